//! Text decoder tests against the OTP vectors in corpus/.

use megaco::model::*;
use megaco::text::{decode, decode_with, Limits, TextErrorKind};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// Files in `dir` whose names end with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(suffix)))
        .collect();
    v.sort();
    v
}

fn decode_file(p: &Path) -> MegacoMessage {
    let bytes = std::fs::read(p).unwrap();
    decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn vectors_pretty_and_compact_decode_to_the_same_model() {
    let pretty = files(&corpus().join("vectors/pretty"), ".txt");
    assert_eq!(pretty.len(), 149);
    for p in &pretty {
        let name = p.file_name().unwrap();
        let c = corpus().join("vectors/compact").join(name);
        let mp = decode_file(p);
        let mc = decode_file(&c);
        assert_eq!(mp, mc, "{}", name.to_string_lossy());
    }
}

#[test]
fn otp_suite_pretty_and_compact_decode_to_the_same_model() {
    let mut n = 0;
    for v in ["v1", "v2", "v3"] {
        let dir = corpus().join("otp-suite").join(v);
        for p in files(&dir, ".pretty.txt") {
            let s = p.to_str().unwrap();
            let c = PathBuf::from(s.replace(".pretty.txt", ".compact.txt"));
            let mp = decode_file(&p);
            let mc = decode_file(&c);
            assert_eq!(mp, mc, "{s}");
            n += 1;
        }
    }
    assert!(n > 100, "only {n} otp-suite messages");
}
