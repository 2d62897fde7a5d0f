//! Inputs of the `engine` fuzz target (fuzz/fuzz_targets/engine.rs):
//! those it once failed on (fuzz/regressions/engine/) and a sample of its
//! corpus (fuzz/seeds/engine/), replayed through the same checks.
use std::path::PathBuf;

#[path = "../../../fuzz/fuzz_targets/engine_ops.rs"]
mod engine_ops;

fn inputs(dir: &str) -> Vec<(String, Vec<u8>)> {
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

#[test]
fn engine_regressions_and_seeds() {
    let seeds = inputs("seeds/engine");
    assert!(!seeds.is_empty(), "the engine seed sample is missing");
    for (name, data) in inputs("regressions/engine").into_iter().chain(seeds) {
        eprintln!("{name}");
        engine_ops::run(&data);
    }
}
