//! The README's stack example is examples/readme.rs, which cargo compiles
//! (and `cargo run --example readme` runs): the README must hold it
//! verbatim.
#[test]
fn readme_stack_example_is_the_compiled_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = std::fs::read_to_string(root.join("examples/readme.rs")).unwrap();
    let start = example.find("// README BEGIN\n").unwrap() + "// README BEGIN\n".len();
    let end = example.find("    // README END").unwrap();
    let code: String = example[start..end]
        .lines()
        .map(|l| l.strip_prefix("    ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    let readme = std::fs::read_to_string(root.join("../../README.md")).unwrap();
    assert!(
        readme.contains(&code),
        "the README's stack example differs from examples/readme.rs"
    );
}
