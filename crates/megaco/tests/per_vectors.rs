//! The PER codec against Erlang/OTP's PER vectors: every vector decodes,
//! and encoding the decoded model gives OTP's bytes back.

use std::path::{Path, PathBuf};

use megaco::per::{self, PerConfig};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// Every `.per` vector: the 149 corpus messages and OTP's suite messages.
fn vectors() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![corpus().join("vectors/per")];
    for v in ["v1", "v2", "v3"] {
        dirs.push(corpus().join("otp-suite").join(v));
    }
    for d in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "per"))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

fn check_round_trip(cfg: &PerConfig) -> (usize, Vec<String>) {
    let mut ok = 0;
    let mut bad = Vec::new();
    for path in vectors() {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.strip_prefix(corpus()).unwrap().display().to_string();
        match per::decode(&bytes, cfg) {
            Err(e) => bad.push(format!("{name}: decode: {e}")),
            Ok(msg) => match per::encode(&msg, cfg) {
                Err(e) => bad.push(format!("{name}: encode: {e}")),
                Ok(out) if out == bytes => ok += 1,
                Ok(out) => {
                    let at = out
                        .iter()
                        .zip(&bytes)
                        .position(|(a, b)| a != b)
                        .unwrap_or(out.len().min(bytes.len()));
                    bad.push(format!(
                        "{name}: differs at byte {at} (ours {} bytes, OTP {} bytes)",
                        out.len(),
                        bytes.len()
                    ))
                }
            },
        }
    }
    (ok, bad)
}

#[test]
fn per_vectors_decode_and_reencode_byte_exact() {
    let (ok, bad) = check_round_trip(&PerConfig::default());
    assert!(
        bad.is_empty(),
        "{ok} matched; {} failed:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert_eq!(ok, 149 + 166);
}

#[test]
fn per_vectors_native_round_trip() {
    let (ok, bad) = check_round_trip(&PerConfig::native());
    assert!(
        bad.is_empty(),
        "{ok} matched; {} failed:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
