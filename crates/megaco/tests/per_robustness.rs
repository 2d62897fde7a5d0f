//! The PER decoder on damaged input: every truncation and single-byte
//! change of every OTP vector gives a message or a typed error, never a
//! panic, and errors point inside the input.

use std::path::{Path, PathBuf};

use megaco::codec::DecodeErrorKind;
use megaco::per::{self, PerConfig};

fn vectors() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let mut dirs: Vec<PathBuf> = vec![root.join("vectors/per")];
    for v in ["v1", "v2", "v3"] {
        dirs.push(root.join("otp-suite").join(v));
    }
    let mut out = Vec::new();
    for d in dirs {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "per") {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    assert_eq!(out.len(), 149 + 166);
    // Many suite messages are corpus messages too: test each encoding once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|(_, b)| seen.insert(b.clone()));
    out
}

/// Every position of the usual messages; the few large OTP messages
/// (up to 27K, with fragmented lengths) are sampled at about 300 points.
fn step(len: usize) -> usize {
    if len > 2000 {
        len / 300
    } else {
        1
    }
}

#[test]
fn every_truncation_fails_cleanly() {
    let cfg = PerConfig::default();
    let mut errors = 0;
    for (name, bytes) in vectors() {
        for n in (0..bytes.len()).step_by(step(bytes.len())) {
            match per::decode(&bytes[..n], &cfg) {
                Ok(_) => {}
                Err(e) => {
                    errors += 1;
                    assert!(e.offset() <= n, "{name}[..{n}]: error past the end: {e}");
                }
            }
        }
        // The whole vector decodes.
        per::decode(&bytes, &cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert!(errors > 0);
}

#[test]
fn every_byte_replacement_is_handled() {
    let cfg = PerConfig::default();
    for (name, bytes) in vectors() {
        let mut buf = bytes.clone();
        for i in (0..bytes.len()).step_by(step(bytes.len())) {
            for v in [0xFF, bytes[i] ^ 0x80, bytes[i] ^ 0x01] {
                buf[i] = v;
                if let Ok(m) = per::decode(&buf, &cfg) {
                    // Whatever decodes must encode again (it is a valid model).
                    let _ = per::encode(&m, &cfg);
                }
            }
            buf[i] = bytes[i];
        }
        let _ = name;
    }
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    // v1 message, IPv4 mId, transactions with a 16K-fragment count header
    // and nothing behind it.
    let mut m = vec![0x00, 0x84, 10, 0, 0, 1, 0x0B, 0x80, 0x80, 0xC4];
    let e = per::decode(&m, &PerConfig::default()).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::Truncated { .. }), "{e}");
    // A two-octet count of 16383 transactions with three bytes behind it.
    m.truncate(9);
    m.extend_from_slice(&[0xBF, 0xFF, 0, 0, 0]);
    let e = per::decode(&m, &PerConfig::default()).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::Truncated { .. }), "{e}");
}

#[test]
fn versions_outside_one_to_three_are_refused() {
    // authHeader absent, Message extension bit 0, version 4 in 7 bits.
    let e = per::decode(&[0x02, 0x00], &PerConfig::default()).unwrap_err();
    assert_eq!(e.unsupported_version(), Some(4));
    let e = per::decode(&[], &PerConfig::default()).unwrap_err();
    assert_eq!(e.bit_offset(), Some(0));
    assert!(matches!(e.kind(), DecodeErrorKind::Truncated { .. }));
}
