//! Erlang/OTP's own codecs, run by `escript`, for the tests that check
//! what OTP reads.

use std::path::PathBuf;
use std::process::Command;

/// Writes `script` as `name` in a fresh directory of the test's own
/// (`tag`), and gives both paths when `escript` runs it (the script prints
/// `usage` on standard error when given no arguments). Without Erlang it
/// gives `None` and the test skips its OTP part, except under `CI=true`,
/// where that fails the test. The caller removes the directory.
pub fn prepare(tag: &str, name: &str, script: &str) -> Option<(PathBuf, PathBuf)> {
    let dir = std::env::temp_dir().join(format!("megaco-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    let available = Command::new("escript")
        .arg(&path)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stderr).contains("usage"))
        .unwrap_or(false);
    if available {
        return Some((dir, path));
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "escript with Erlang/OTP megaco is required under CI (run scripts/setup.sh)"
    );
    eprintln!("SKIPPED: {tag}: escript/Erlang not installed (run scripts/setup.sh)");
    None
}
