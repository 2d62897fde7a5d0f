//! The Erlang/OTP side of the interop tests: the escripts in this
//! directory (compiled once per run), an OTP MGC process that prints a
//! line per event, and the check that OTP is installed (required under
//! `CI=true`).
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::time::Duration;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Transport {
    Udp,
    Tcp,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Udp => "udp",
            Transport::Tcp => "tcp",
        }
    }
}

/// A free TCP port on the loopback (OTP's `megaco_tcp:listen` takes a
/// fixed port).
pub fn free_tcp_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

pub fn otp_available() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    let ok = *FOUND.get_or_init(|| {
        Command::new("erl")
            .args(["-noshell", "-eval", "halt()."])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
            && Command::new("erlc")
                .arg("-help")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok()
    });
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "erl/erlc with Erlang/OTP megaco are required under CI (run scripts/setup.sh)"
        );
        eprintln!("SKIPPED: erl/erlc not installed (run scripts/setup.sh)");
    }
    ok
}

/// The OTP MGC, stopped (stdin closed, then killed) when dropped.
pub struct OtpMgc {
    child: Child,
    pub port: u16,
    pub lines: mpsc::Receiver<String>,
}

impl Drop for OtpMgc {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Compiles tests/otp/*.erl once per test run, into this test's
/// directory under the target directory; returns that directory.
pub fn beams() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/otp");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("megaco-stack-otp");
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new("erlc")
            .arg("-o")
            .arg(&dir)
            .arg(src.join("otp_mgc.erl"))
            .arg(src.join("otp_mg.erl"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "erlc failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
    .clone()
}

pub fn start_otp_mgc(encoding: &str, version: u8, transport: Transport, mode: &str) -> OtpMgc {
    let dir = beams();
    let port = match transport {
        Transport::Udp => 0,
        Transport::Tcp => free_tcp_port(),
    };
    let mut child = Command::new("erl")
        .arg("-noshell")
        .arg("-pa")
        .arg(&dir)
        .args([
            "-s",
            "otp_mgc",
            "start",
            &port.to_string(),
            encoding,
            &version.to_string(),
            transport.name(),
            mode,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut mgc = OtpMgc {
        child,
        port: 0,
        lines,
    };
    let first = mgc
        .lines
        .recv_timeout(Duration::from_secs(30))
        .expect("OTP MGC did not start");
    mgc.port = first
        .strip_prefix("port ")
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("unexpected OTP output: {first}"));
    mgc
}

/// Runs the OTP MG (otp_mg.erl) against `port` and waits for it to end;
/// returns its standard output, which must end with "done".
pub fn run_otp_mg_process(
    port: u16,
    encoding: &str,
    version: u8,
    transport: Transport,
    mode: &str,
) -> String {
    let out = Command::new("erl")
        .arg("-noshell")
        .arg("-pa")
        .arg(beams())
        .args([
            "-s",
            "otp_mg",
            "start",
            &port.to_string(),
            encoding,
            &version.to_string(),
            transport.name(),
            mode,
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        stdout.ends_with("done\n"),
        "OTP MG failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The first line of `output` that starts with `prefix`.
pub fn line<'a>(output: &'a str, prefix: &str) -> &'a str {
    output
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix} in {output}"))
}
