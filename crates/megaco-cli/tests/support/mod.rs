//! What the network tests share: running `megaco`, a running `megaco mgc`,
//! reading timestamped log lines.
#![allow(dead_code)]
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Output, Stdio};

pub fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

pub fn vector(path: &str) -> String {
    corpus()
        .join("vectors")
        .join(path)
        .to_str()
        .unwrap()
        .to_string()
}

/// Runs `megaco` to completion.
pub fn megaco(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_megaco"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run megaco")
}

/// The message lines of standard output, without timestamps.
pub fn stdout(out: &Output) -> String {
    messages(&bodies(&String::from_utf8(out.stdout.clone()).unwrap()))
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// A log line without its timestamp.
pub fn body(line: &str) -> &str {
    line.split_once(' ').map_or(line, |(_, rest)| rest)
}

/// The lines of a log that carry messages (`->`, `<-` and their pretty
/// continuation lines), without the `--` lines of other events.
pub fn messages(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("-- "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Every line of a log without timestamps (pretty continuation lines,
/// which have none, are kept whole).
pub fn bodies(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.starts_with(|c: char| c.is_ascii_digit()) {
                body(l)
            } else {
                l
            }
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A running `megaco mgc`, killed if the test ends before it exits.
pub struct Mgc {
    pub child: Child,
    pub stdout: BufReader<ChildStdout>,
    /// The first bound address (UDP unless --tcp), from the first line.
    pub addr: String,
    /// Every `(transport, address, kind)` it listens on.
    pub listening: Vec<(String, String, String)>,
}

impl Mgc {
    /// Starts `megaco mgc` on the loopback: on free text and binary
    /// ports, or (with `--encoding`) on a free port of that encoding.
    pub fn start(args: &[&str]) -> Mgc {
        let one_encoding = args.contains(&"--encoding") || args.contains(&"--listen");
        let one_transport = args.contains(&"--tcp") || args.contains(&"--udp");
        let sockets = (if one_encoding { 1 } else { 2 }) * (if one_transport { 1 } else { 2 });
        let mut command = Command::new(env!("CARGO_BIN_EXE_megaco"));
        command.arg("mgc");
        if !args.contains(&"--listen") {
            command.args([
                "--host",
                "127.0.0.1",
                "--text-port",
                "0",
                "--binary-port",
                "0",
            ]);
        }
        let mut child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run megaco mgc");
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut listening = Vec::new();
        for _ in 0..sockets {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            // `TIME listening on udp|tcp ADDR KIND`
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.len() != 6 || words[1..3] != ["listening", "on"] {
                // Say why: the controller's exit status and standard error
                // (it may have failed to start) beside the line it wrote.
                let _ = child.kill();
                let status = child.wait().unwrap();
                let mut err = String::new();
                child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut err)
                    .unwrap();
                panic!("megaco mgc wrote {line:?} for a listening line ({status}); stderr:\n{err}");
            }
            listening.push((
                words[3].to_string(),
                words[4].to_string(),
                words[5].to_string(),
            ));
        }
        let addr = listening[0].1.clone();
        Mgc {
            child,
            stdout,
            addr,
            listening,
        }
    }

    /// The address of the `transport` socket of `kind` (`text`, `binary`).
    pub fn addr_of(&self, transport: &str, kind: &str) -> String {
        self.listening
            .iter()
            .find(|(t, _, k)| t == transport && k == kind)
            .unwrap_or_else(|| panic!("no {transport} {kind} socket in {:?}", self.listening))
            .1
            .clone()
    }

    /// Waits for the controller to exit (after `--count` requests) and
    /// returns the message lines of the rest of its standard output,
    /// without timestamps.
    pub fn finish(mut self) -> String {
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "mgc exited with {status}");
        messages(&bodies(&rest))
    }

    /// Stops the controller with `signal` and returns its standard error.
    #[cfg(unix)]
    pub fn stop(mut self, signal: &str) -> String {
        let kill = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
        let mut err = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        err
    }
}

impl Mgc {
    /// Stops the controller with SIGTERM and returns its standard error.
    #[cfg(unix)]
    pub fn stop_quietly(self) -> String {
        self.stop("-TERM")
    }

    /// Stops the controller with SIGTERM (its queued lines written) and
    /// returns the rest of its standard output, as written.
    #[cfg(unix)]
    pub fn stop_with_log(mut self) -> String {
        let kill = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
        rest
    }
}

impl Drop for Mgc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        stdout(out),
        stderr(out)
    );
}
