//! Text encoder tests against the OTP vectors in corpus/.

use megaco::text::{decode, encode_compact, encode_pretty};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(suffix)))
        .collect();
    v.sort();
    v
}

#[test]
fn explore() {
    let mut bad = 0;
    let mut pairs = vec![];
    for p in files(&corpus().join("vectors/pretty"), ".txt") {
        let c = corpus().join("vectors/compact").join(p.file_name().unwrap());
        pairs.push((p, c));
    }
    for v in ["v1", "v2", "v3"] {
        for p in files(&corpus().join("otp-suite").join(v), ".pretty.txt") {
            let c = PathBuf::from(p.to_str().unwrap().replace(".pretty.txt", ".compact.txt"));
            pairs.push((p, c));
        }
    }
    for (p, c) in &pairs {
        let pb = std::fs::read(p).unwrap();
        let cb = std::fs::read(c).unwrap();
        let m = decode(&pb).unwrap();
        match encode_pretty(&m) {
            Ok(o) if o == pb => {}
            Ok(o) => { bad += 1; std::fs::write(format!("/tmp/te/out/{}.p", p.file_name().unwrap().to_string_lossy()), &o).unwrap(); eprintln!("PRETTY DIFF {}", p.display()); }
            Err(e) => { bad += 1; eprintln!("PRETTY ERR {} {e}", p.display()); }
        }
        match encode_compact(&m) {
            Ok(o) if o == cb => {}
            Ok(o) => { bad += 1; std::fs::write(format!("/tmp/te/out/{}.c", c.file_name().unwrap().to_string_lossy()), &o).unwrap(); eprintln!("COMPACT DIFF {}", c.display()); }
            Err(e) => { bad += 1; eprintln!("COMPACT ERR {} {e}", c.display()); }
        }
    }
    eprintln!("{} pairs, {bad} bad", pairs.len());
    assert_eq!(bad, 0);
}
