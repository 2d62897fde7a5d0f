//! Erlang/OTP's own codecs, run by `escript`, for the tests that check
//! what OTP reads.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `escript` runs `script` (which prints `usage` on standard
/// error when given no arguments). Without Erlang the test skips its OTP
/// part, except under `CI=true`, where this fails the test.
pub fn available(script: &Path, tag: &str) -> bool {
    let ok = Command::new("escript")
        .arg(script)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stderr).contains("usage"))
        .unwrap_or(false);
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "escript with Erlang/OTP megaco is required under CI (run scripts/setup.sh)"
        );
        eprintln!("SKIPPED: {tag}: escript/Erlang not installed (run scripts/setup.sh)");
    }
    ok
}

/// Writes `script` as `name` in a fresh directory of the test's own
/// (`tag`), and gives both paths when it runs ([`available`]); the caller
/// removes the directory.
#[allow(dead_code)] // not every test that includes this file writes its script
pub fn prepare(tag: &str, name: &str, script: &str) -> Option<(PathBuf, PathBuf)> {
    let dir = std::env::temp_dir().join(format!("megaco-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    if available(&path, tag) {
        return Some((dir, path));
    }
    std::fs::remove_dir_all(&dir).ok();
    None
}

/// Runs `script` with `args`; it must end its output with a `done` line.
/// Gives the lines before it.
pub fn run<I, S>(script: &Path, args: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = Command::new("escript")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.ends_with("done\n"),
        "escript failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .filter(|l| *l != "done")
        .map(str::to_string)
        .collect()
}
