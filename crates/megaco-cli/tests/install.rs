//! The binary as an installed copy runs it: copied out of the build tree
//! (as `cargo install` does), started from an empty directory with a
//! clean environment, it needs no file of the checkout: `bench` and
//! `transform` use the corpus built into it.
use std::path::Path;
use std::process::{Command, Output};

/// `bin/megaco` in `root`, a copy of the binary under test.
fn install(root: &Path) -> std::path::PathBuf {
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let copy = bin.join("megaco");
    std::fs::copy(env!("CARGO_BIN_EXE_megaco"), &copy).unwrap();
    copy
}

/// Runs the copy in `cwd` with only `PATH` (for `escript`) and a `HOME`
/// of its own: no `CARGO_*` variable, nothing pointing at the checkout.
fn run(megaco: &Path, cwd: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(megaco)
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .output()
        .expect("run the installed megaco")
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn an_installed_megaco_works_from_an_empty_directory() {
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let megaco = install(root.path());

    let out = run(
        &megaco,
        cwd.path(),
        home.path(),
        &["bench", "--quick", "--no-progress"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "bench --quick:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("the bundled corpus (time_test.msgs), 149 messages × 11 codec configs"),
        "{stdout}"
    );
    assert!(stdout.contains("Size (bytes) | Encode (µs)"), "{stdout}");
    assert!(stdout.contains("Done in "), "{stdout}");
    // Nothing written where it ran.
    assert!(entries(cwd.path()).is_empty(), "{:?}", entries(cwd.path()));

    let out = run(&megaco, cwd.path(), home.path(), &["transform", "OUT"]);
    assert!(
        out.status.success(),
        "transform OUT: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = cwd.path().join("OUT");
    let dirs = entries(&written);
    let slugs: Vec<String> = megaco::codec::Encoding::named()
        .iter()
        .map(|e| e.slug().unwrap().to_string())
        .collect();
    let mut expected = slugs.clone();
    expected.sort();
    assert_eq!(dirs, expected);
    for slug in &slugs {
        assert_eq!(entries(&written.join(slug)).len(), 149, "{slug}");
    }
    assert_eq!(entries(cwd.path()), ["OUT"]);
}
