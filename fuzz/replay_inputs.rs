//! The files of a directory under `fuzz/` (regression inputs, seeds),
//! sorted by name, for the replay tests of both crates
//! (`crates/*/tests/fuzz_regressions.rs`, which include this file).
use std::path::PathBuf;

/// `(path, bytes)` of every file in `fuzz/<dir>`; none when the directory
/// does not exist (a target the fuzzers have found nothing in).
pub fn inputs(dir: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz")
        .join(dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut v: Vec<_> = entries
        .map(|e| {
            let p = e.unwrap().path();
            (p.display().to_string(), std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}
