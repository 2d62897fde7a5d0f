//! Inputs of the `engine` fuzz target (fuzz/fuzz_targets/engine.rs):
//! those it once failed on (fuzz/regressions/engine/) and a sample of its
//! corpus (fuzz/seeds/engine/), replayed through the same checks.
#[path = "../../../fuzz/fuzz_targets/engine_ops.rs"]
mod engine_ops;
#[path = "../../../fuzz/replay_inputs.rs"]
mod replay_inputs;
use replay_inputs::inputs;

#[test]
fn engine_regressions_and_seeds() {
    let seeds = inputs("seeds/engine");
    assert!(!seeds.is_empty(), "the engine seed sample is missing");
    for (name, data) in inputs("regressions/engine").into_iter().chain(seeds) {
        eprintln!("{name}");
        engine_ops::run(&data);
    }
}
