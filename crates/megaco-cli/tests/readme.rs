//! Runs every line of the README's `## Command line` block, as a user
//! would type it, against the bundled data.
//!
//! The rules (also written beside the block in the README, for whoever
//! adds a line):
//!
//! - Lines run in order with `sh -c`, in one fresh temporary directory
//!   that holds `corpus/` (the repository's), `msg.txt` (a Notify request
//!   in pretty text, corpus message msg03) and `msgs/` (a few messages in
//!   several encodings); a line may use files an earlier line wrote.
//!   `megaco` is the binary under test; `/tmp/` in a line means a
//!   directory inside the temporary one. A `#` after a space starts a
//!   comment.
//! - A line starting with `cargo` is not run here (the installed binary is
//!   `tests/install.rs`'s business).
//! - `megaco bench` lines run with `--quick` appended (a smoke run of a few
//!   seconds, whatever else the line asks for).
//! - Every other line must exit 0 within 60 s, except:
//!   - a `megaco mgc` line (a server) runs until it prints its `listening
//!     on` line and is then stopped; its `--listen` address is replaced by
//!     `127.0.0.1:0` (a free port), or added when the line has none;
//!   - a line naming a peer with `--mgc ADDR` or `--to ADDR` (ADDR an IP
//!     address and port) runs against a
//!     `megaco mgc` the test starts on a free port, with the line's `--tcp`,
//!     `--version` and `--encoding` (without `--encoding`, the encoding of
//!     the `.ber`/`.per` file the line sends); ADDR is replaced by its
//!     address.
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The lines of the first `sh` block after `## Command line`, comments
/// and blank lines left out.
fn command_lines() -> Vec<String> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Command line"))
        .expect("README has a `## Command line` section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("the Command line section has a ```sh block");
    block
        .lines()
        .map(|l| match l.find(" #") {
            Some(i) => l[..i].trim(),
            None => l.trim(),
        })
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The temporary directory with the bundled data.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::os::unix::fs::symlink(
        repo().join("corpus").canonicalize().unwrap(),
        p.join("corpus"),
    )
    .unwrap();
    let vectors = repo().join("corpus/vectors");
    std::fs::copy(vectors.join("pretty/msg03.txt"), p.join("msg.txt")).unwrap();
    std::fs::create_dir(p.join("msgs")).unwrap();
    for (from, to) in [
        ("pretty/msg09.txt", "msg09.txt"),
        ("compact/msg10.txt", "msg10.txt"),
        ("ber/msg12.ber", "msg12.ber"),
        ("per/msg16.per", "msg16.per"),
    ] {
        std::fs::copy(vectors.join(from), p.join("msgs").join(to)).unwrap();
    }
    std::fs::create_dir(p.join("tmp")).unwrap();
    dir
}

/// The value after `flag` in a line's words.
fn value_of<'a>(words: &[&'a str], flag: &str) -> Option<&'a str> {
    words
        .iter()
        .position(|w| *w == flag)
        .and_then(|i| words.get(i + 1).copied())
}

fn shell(line: &str, dir: &Path) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_megaco")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("sh");
    cmd.args(["-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .stdin(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd
}

/// A child in its own process group, stopped (with all it started) when
/// dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .args(["-TERM", "--", &format!("-{}", self.0.id())])
                .stderr(Stdio::null())
                .status();
        }
        let _ = self.0.wait();
    }
}

/// Starts a server line and waits (up to 30 s) for its `listening on
/// PROTO ADDR` line; returns it running and the address.
fn start_server(line: &str, dir: &Path) -> Result<(Running, String), String> {
    let mut child = shell(line, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = child.stdout.take().unwrap();
    let running = Running(child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut first = String::new();
        let _ = reader.read_line(&mut first);
        let _ = tx.send(first);
        // Keep reading: a server whose output pipe closes may stop serving.
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
    });
    let first = rx
        .recv_timeout(Duration::from_secs(30))
        .map_err(|_| "no `listening on` line within 30 s".to_string())?;
    // `TIME listening on PROTO ADDR KIND`: the words from `listening` on.
    let words: Vec<&str> = first
        .split_whitespace()
        .skip_while(|w| *w != "listening")
        .collect();
    match words.as_slice() {
        ["listening", "on", _, addr, ..] => Ok((running, addr.to_string())),
        _ => Err(format!(
            "first line {first:?}, expected `listening on PROTO ADDR`"
        )),
    }
}

/// Runs a line to its end (at most 60 s); its output goes to files.
fn run_to_end(line: &str, dir: &Path, n: usize) -> Result<(), String> {
    let out = dir.join(format!(".line{n}.out"));
    let err = dir.join(format!(".line{n}.err"));
    let child = shell(line, dir)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut running = Running(child);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = running.0.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            return Err("still running after 60 s".to_string());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "{status}\nstdout:\n{}\nstderr:\n{}",
            std::fs::read_to_string(&out).unwrap_or_default(),
            std::fs::read_to_string(&err).unwrap_or_default()
        ))
    }
}

/// Runs one line by the rules above; `Ok` with what was done.
fn run_line(line: &str, dir: &Path, n: usize) -> Result<&'static str, String> {
    if line.starts_with("cargo ") {
        return Ok("not run (cargo)");
    }
    let tmp = format!("{}/", dir.join("tmp").display());
    let mut line = line.replace("/tmp/", &tmp);
    let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    if words.get(1) == Some(&"bench") {
        line.push_str(" --quick");
        return run_to_end(&line, dir, n).map(|()| "ran (--quick)");
    }
    if words.get(1) == Some(&"mgc") {
        let line = match value_of(&words, "--listen") {
            Some(addr) => line.replace(addr, "127.0.0.1:0"),
            None => format!("{line} --listen 127.0.0.1:0"),
        };
        let (_server, _) = start_server(&line, dir)?;
        return Ok("server started and stopped");
    }
    let peer = [value_of(&words, "--mgc"), value_of(&words, "--to")]
        .into_iter()
        .flatten()
        .find(|a| a.parse::<std::net::SocketAddr>().is_ok());
    let Some(addr) = peer else {
        return run_to_end(&line, dir, n).map(|()| "ran");
    };
    let mut mgc = String::from("megaco mgc --listen 127.0.0.1:0");
    if words.contains(&"--tcp") {
        mgc.push_str(" --tcp");
    }
    if let Some(v) = value_of(&words, "--version") {
        mgc.push_str(&format!(" --version {v}"));
    }
    let file_encoding = words.last().and_then(|f| {
        Path::new(f)
            .extension()
            .and_then(|e| e.to_str())
            .filter(|e| ["ber", "per"].contains(e))
    });
    if let Some(e) = value_of(&words, "--encoding").or(file_encoding) {
        mgc.push_str(&format!(" --encoding {e}"));
    }
    let (_server, bound) = start_server(&mgc, dir)?;
    let line = line.replace(addr, &bound);
    run_to_end(&line, dir, n).map(|()| "ran against a megaco mgc")
}

#[test]
fn every_command_line_of_the_readme_runs() {
    let lines = command_lines();
    assert!(lines.len() >= 10, "{lines:?}");
    let dir = workdir();
    let mut failures = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let start = Instant::now();
        match run_line(line, dir.path(), n) {
            Ok(what) => eprintln!(
                "{what:>28} in {:>5.1} s: {line}",
                start.elapsed().as_secs_f64()
            ),
            Err(e) => failures.push(format!("`{line}`: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
