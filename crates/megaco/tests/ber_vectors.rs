//! OTP's BER vectors: each decodes, and re-encoding it in the OTP dialect
//! gives OTP's bytes back; truncated and corrupted copies never panic.

use std::path::PathBuf;

use megaco::ber::{self, BerConfig};

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
