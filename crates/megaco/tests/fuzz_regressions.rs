//! Inputs the fuzzers once failed on (fuzz/regressions/<target>/), replayed
//! through the same checks as the fuzz targets in fuzz/fuzz_targets/.
use std::path::PathBuf;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions")
        .join(target);
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let p = e.unwrap().path();
            (p.display().to_string(), std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no regression inputs for {target}");
    v
}

#[test]
fn text_decode_regressions() {
    for (name, data) in inputs("text_decode") {
        let Ok(msg) = megaco::text::decode(&data) else {
            continue;
        };
        for style in [megaco::text::Style::Compact, megaco::text::Style::Pretty] {
            let mut out = Vec::new();
            if megaco::text::encode(&msg, style, &mut out).is_ok() {
                let again = megaco::text::decode(&out)
                    .unwrap_or_else(|e| panic!("{name}: our {style:?} output fails: {e}"));
                assert_eq!(again, msg, "{name}: round trip through {style:?}");
            }
        }
    }
}
