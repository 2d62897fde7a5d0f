//! `version_of` reads the version from the header alone: for every OTP
//! vector (the 149 corpus messages and the OTP-suite messages, whose
//! versions OTP's own encoders put there) it must agree with the full
//! decode, and on every prefix it must either agree or fail cleanly.

use std::path::{Path, PathBuf};

use megaco::ber::{self, BerConfig};
use megaco::per::{self, PerConfig};
use megaco::text;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// Files under `dir` (recursively) whose name ends in `suffix`.
fn files(dir: &Path, suffix: &str, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, suffix, out);
        } else if p.to_string_lossy().ends_with(suffix) {
            let b = std::fs::read(&p).unwrap();
            out.push((p, b));
        }
    }
}

fn all(vectors: &str, suite: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    files(&corpus().join("vectors").join(vectors), "", &mut out);
    files(&corpus().join("otp-suite"), suite, &mut out);
    assert!(out.len() > 300, "{vectors}: {}", out.len());
    out
}

/// `version_of` on the whole input gives `full`; on each prefix it gives
/// `full` or an error (never another version).
fn check<E: std::fmt::Debug>(
    name: &Path,
    bytes: &[u8],
    full: u8,
    f: impl Fn(&[u8]) -> Result<u8, E>,
) {
    assert_eq!(f(bytes).unwrap(), full, "{}", name.display());
    for n in 0..bytes.len() {
        if let Ok(v) = f(&bytes[..n]) {
            assert_eq!(v, full, "{} cut at {n}", name.display());
        }
    }
}

#[test]
fn text_version_matches_full_decode() {
    let mut seen = [0usize; 4];
    for suffix in ["pretty.txt", "compact.txt"] {
        let dir = if suffix == "pretty.txt" {
            "pretty"
        } else {
            "compact"
        };
        for (p, b) in all(dir, suffix) {
            let full = text::decode(&b).unwrap().mess.version;
            seen[full as usize] += 1;
            check(&p, &b, full, text::version_of);
        }
    }
    assert!(seen[1] > 0 && seen[2] > 0 && seen[3] > 0, "{seen:?}");
}

#[test]
fn ber_version_matches_full_decode_in_both_dialects() {
    let std_cfg = BerConfig::default();
    for (p, b) in all("ber", ".ber") {
        let msg = ber::decode(&b, &BerConfig::otp()).unwrap();
        check(&p, &b, msg.mess.version, ber::version_of);
        let standard = ber::encode(&msg, &std_cfg).unwrap();
        check(&p, &standard, msg.mess.version, ber::version_of);
    }
}

#[test]
fn per_version_matches_full_decode() {
    for (p, b) in all("per", ".per") {
        let full = per::decode(&b, &PerConfig::default()).unwrap().mess.version;
        check(&p, &b, full, per::version_of);
    }
}

#[test]
fn unsupported_versions_are_typed_errors() {
    let e = text::version_of(b"MEGACO/4 [10.0.0.1]").unwrap_err();
    assert_eq!(e.unsupported_version(), Some(4), "{e}");
    // Message { version [0] 4 }
    let e = ber::version_of(&[0x30, 0x05, 0xA1, 0x03, 0x80, 0x01, 0x04]).unwrap_err();
    assert_eq!(
        (e.unsupported_version(), e.offset(), e.codec()),
        (Some(4), 4, megaco::codec::Kind::Ber)
    );
    // no auth header, no extension, version 4 in 7 bits: 0 0 0000100
    let e = per::version_of(&[0x02, 0x00]).unwrap_err();
    assert_eq!(
        (e.unsupported_version(), e.codec()),
        (Some(4), megaco::codec::Kind::Per)
    );
}
