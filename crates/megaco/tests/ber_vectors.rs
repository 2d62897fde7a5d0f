//! OTP's BER vectors: each decodes, and re-encoding it in the OTP dialect
//! gives OTP's bytes back; truncated and corrupted copies never panic.

use std::path::PathBuf;

use megaco::ber::{self, BerConfig};
use megaco::codec::{DecodeErrorKind, Limit};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// Every `.ber` file of the corpus: (label, bytes).
fn vectors() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut dirs = vec![corpus().join("vectors/ber")];
    for v in ["v1", "v2", "v3"] {
        dirs.push(corpus().join("otp-suite").join(v));
    }
    for d in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ber"))
            .collect();
        files.sort();
        for f in files {
            let label = format!(
                "{}/{}",
                d.file_name().unwrap().to_string_lossy(),
                f.file_name().unwrap().to_string_lossy()
            );
            out.push((label, std::fs::read(&f).unwrap()));
        }
    }
    out
}

#[test]
fn otp_vectors_decode_and_reencode_byte_identical() {
    let cfg = BerConfig::otp();
    let all = vectors();
    assert_eq!(all.len(), 149 + 166, "vector count");
    let mut failures = Vec::new();
    for (name, bytes) in &all {
        match ber::decode(bytes, &cfg) {
            Err(e) => failures.push(format!("{name}: decode: {e}")),
            Ok(msg) => match ber::encode(&msg, &cfg) {
                Err(e) => failures.push(format!("{name}: encode: {e}")),
                Ok(again) if &again != bytes => {
                    let at = again.iter().zip(bytes.iter()).position(|(a, b)| a != b);
                    failures.push(format!(
                        "{name}: re-encoding differs at byte {at:?} (ours {} bytes, OTP {})",
                        again.len(),
                        bytes.len()
                    ))
                }
                Ok(_) => {}
            },
        }
    }
    println!(
        "{} of {} vectors round-trip byte-identically",
        all.len() - failures.len(),
        all.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every prefix of every vector is an error (never a panic), and a
/// single-byte corruption at every position decodes or fails cleanly; what decodes also
/// re-encodes without panicking.
#[test]
fn truncation_and_corruption_never_panic() {
    let cfgs = [
        BerConfig::otp(),
        BerConfig::default(),
        BerConfig {
            mapping: ber::Mapping::Native,
            ..BerConfig::default()
        },
    ];
    let mut decoded_corrupt = 0usize;
    let mut total = 0usize;
    for (name, bytes) in vectors() {
        for n in 0..bytes.len() {
            for cfg in &cfgs {
                let r = ber::decode(&bytes[..n], cfg);
                assert!(r.is_err(), "{name}: prefix of {n} bytes decoded");
                let e = r.unwrap_err();
                assert!(
                    e.offset() <= n,
                    "{name}: error offset {} past input {n}",
                    e.offset()
                );
            }
        }
        let mut copy = bytes.clone();
        // Every position; in the large OTP-suite messages (msg22c-f: 10 to
        // 40 KB of one descriptor repeated) every position of the first
        // 512 bytes and the last 256 and 256 evenly spread in between, which
        // keeps the quadratic cost of this test in check.
        let len = bytes.len();
        let stride = (len / 256).max(1);
        let positions =
            (0..len).filter(|&i| len <= 5120 || i < 512 || i >= len - 256 || i % stride == 0);
        for i in positions {
            // one replacement per position, cycling through the kinds
            let choices = [0x00, 0xFF, 0x80, bytes[i] ^ 0x01, bytes[i] ^ 0x20];
            copy[i] = choices[i % choices.len()];
            let cfg = &cfgs[(i / choices.len()) % cfgs.len()];
            total += 1;
            if let Ok(m) = ber::decode(&copy, cfg) {
                decoded_corrupt += 1;
                let _ = ber::encode(&m, cfg);
            }
            copy[i] = bytes[i];
        }
    }
    println!("{decoded_corrupt} of {total} corrupted inputs still decoded");
}

/// Re-writes a BER encoding with indefinite lengths on every constructed
/// value (`indefinite`) or with 4-octet long-form lengths everywhere.
fn rewrite(data: &[u8], indefinite: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let tag = data[pos];
        let l0 = data[pos + 1];
        let (len, hdr) = if l0 < 0x80 {
            (l0 as usize, 2)
        } else {
            let n = (l0 & 0x7F) as usize;
            let mut len = 0usize;
            for &b in &data[pos + 2..pos + 2 + n] {
                len = (len << 8) | b as usize;
            }
            (len, 2 + n)
        };
        let content = &data[pos + hdr..pos + hdr + len];
        out.push(tag);
        if tag & 0x20 != 0 {
            let inner = rewrite(content, indefinite);
            if indefinite {
                out.push(0x80);
                out.extend_from_slice(&inner);
                out.extend_from_slice(&[0, 0]);
            } else {
                out.push(0x84);
                out.extend_from_slice(&(inner.len() as u32).to_be_bytes());
                out.extend_from_slice(&inner);
            }
        } else {
            out.push(0x84);
            out.extend_from_slice(&(len as u32).to_be_bytes());
            out.extend_from_slice(content);
        }
        pos += hdr + len;
    }
    out
}

#[test]
fn indefinite_and_long_form_lengths_decode_the_same() {
    let cfg = BerConfig::otp();
    for (name, bytes) in vectors() {
        let want = ber::decode(&bytes, &cfg).unwrap();
        for indefinite in [true, false] {
            let other = rewrite(&bytes, indefinite);
            assert_ne!(other, bytes);
            let got = ber::decode(&other, &cfg)
                .unwrap_or_else(|e| panic!("{name} indefinite={indefinite}: {e}"));
            assert_eq!(got, want, "{name} indefinite={indefinite}");
            // and our output is minimal again
            assert_eq!(ber::encode(&got, &cfg).unwrap(), bytes, "{name}");
        }
    }
}

#[test]
fn unknown_extensions_are_skipped() {
    let cfg = BerConfig::otp();
    let bytes = std::fs::read(corpus().join("vectors/ber/msg05.ber")).unwrap();
    let want = ber::decode(&bytes, &cfg).unwrap();
    // Message is `30 L a1 L' ...`: append an unknown [29] component (and a
    // high-tag-number one) to the Message SEQUENCE.
    let extra = [0x9D, 0x02, 0xAB, 0xCD, 0xBF, 0x81, 0x00, 0x01, 0x00];
    let mut mess = bytes[2..].to_vec(); // a1 4f ...
    assert_eq!(&mess[..2], &[0xa1, 0x4f]);
    mess[1] += extra.len() as u8;
    mess.extend_from_slice(&extra);
    let mut top = vec![0x30, mess.len() as u8];
    top.extend_from_slice(&mess);
    assert_eq!(ber::decode(&top, &cfg).unwrap(), want);
}

#[test]
fn hostile_inputs_fail_cleanly() {
    let cfg = BerConfig::otp();
    // huge claimed lengths: no allocation, a Truncated error
    for input in [
        &[0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF][..],
        &[0x30, 0x88, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF][..],
        &[0x30, 0x80][..],
        &[][..],
        &[0x31, 0x00][..],
    ] {
        assert!(ber::decode(input, &cfg).is_err(), "{input:02x?}");
    }
    // deep nesting of indefinite lengths: an error, not a stack overflow
    let mut deep = vec![0x30, 0x80];
    for _ in 0..100_000 {
        deep.extend_from_slice(&[0xA1, 0x80]);
    }
    assert_eq!(
        ber::decode(&deep, &cfg).unwrap_err().exceeded_limit(),
        Some(Limit::Depth)
    );
    // unsupported versions
    let bytes = std::fs::read(corpus().join("vectors/ber/msg05.ber")).unwrap();
    let mut v4 = bytes.clone();
    assert_eq!(&v4[4..7], &[0x80, 0x01, 0x01]);
    v4[6] = 4;
    let e = ber::decode(&v4, &cfg).unwrap_err();
    assert_eq!((e.unsupported_version(), e.offset()), (Some(4), 4));
    // trailing bytes
    let mut t = bytes.clone();
    t.push(0);
    let e = ber::decode(&t, &cfg).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingData { len: 1 });
    assert_eq!(e.offset(), bytes.len());
}

#[test]
fn version_is_detected_from_the_message() {
    let cfg = BerConfig::otp();
    for (dir, v) in [("v1", 1), ("v2", 2), ("v3", 3)] {
        let d = corpus().join("otp-suite").join(dir);
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "ber") {
                let m = ber::decode(&std::fs::read(&p).unwrap(), &cfg).unwrap();
                assert_eq!(m.mess.version, v, "{}", p.display());
            }
        }
    }
}
