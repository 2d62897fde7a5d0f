//! Erlang/OTP's megaco side by side: the escript `otp/otp_load.escript` (in this crate)
//! (embedded here, written to a temporary directory when used) runs an OTP
//! controller for `megaco load` to drive, and an OTP controller that fans
//! out to the same simulated gateways ours does.
//!
//! Every OTP node started here stops when its standard input closes (on
//! drop) and, in any case, after its time bound.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context as _};
use serde::Serialize;

/// The escript's source.
pub const ESCRIPT: &str = include_str!("../otp/otp_load.escript");

/// Whether `escript` runs (OTP's megaco is checked when a node starts).
pub fn available() -> bool {
    Command::new("escript")
        .arg("-h")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// A running OTP node.
#[derive(Debug)]
pub struct OtpNode {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    dir: PathBuf,
    /// Its UDP (or TCP) port.
    pub port: u16,
    /// Its operating-system process id.
    pub pid: u32,
    /// `(key, value)` facts: OTP release, megaco version, schedulers.
    pub info: Vec<(String, String)>,
}

impl OtpNode {
    /// An OTP controller answering every command, on `port` (0: any) over
    /// UDP or TCP, for at most `max` (whole seconds).
    pub fn mgc(
        port: u16,
        tcp: bool,
        encoding: &str,
        version: u8,
        max: Duration,
    ) -> anyhow::Result<OtpNode> {
        let transport = if tcp { "tcp" } else { "udp" };
        OtpNode::start(&[
            "mgc",
            &port.to_string(),
            transport,
            encoding,
            &version.to_string(),
            &max.as_secs().max(1).to_string(),
        ])
    }

    /// An OTP controller for fan-out rounds (UDP, any port).
    pub fn fanout(encoding: &str, version: u8, max: Duration) -> anyhow::Result<OtpNode> {
        OtpNode::start(&[
            "fanout",
            encoding,
            &version.to_string(),
            &max.as_secs().max(1).to_string(),
        ])
    }

    fn start(args: &[&str]) -> anyhow::Result<OtpNode> {
        let dir = scratch_dir()?;
        let script = dir.join("otp_load.escript");
        std::fs::write(&script, ESCRIPT)?;
        let mut child = Command::new("escript")
            .arg(&script)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("running escript (is Erlang/OTP installed? scripts/setup.sh installs it)")?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().context("escript stdout")?);
        let mut node = OtpNode {
            child,
            stdin,
            stdout,
            dir,
            port: 0,
            pid: 0,
            info: Vec::new(),
        };
        loop {
            let f = node.line()?;
            match f.as_slice() {
                [k, v] if k == "pid" => node.pid = v.parse().unwrap_or(0),
                [k, key, v] if k == "info" => node.info.push((key.clone(), v.clone())),
                [k, v] if k == "port" => {
                    node.port = v.parse().context("escript port")?;
                    return Ok(node);
                }
                _ => {}
            }
        }
    }

    fn line(&mut self) -> anyhow::Result<Vec<String>> {
        let mut s = String::new();
        if self.stdout.read_line(&mut s)? == 0 {
            bail!("the OTP node stopped (see its messages above)");
        }
        Ok(s.trim_end().split('\t').map(str::to_string).collect())
    }

    fn command(&mut self, cmd: &str) -> anyhow::Result<()> {
        let stdin = self.stdin.as_mut().context("OTP node closed")?;
        writeln!(stdin, "{cmd}")?;
        stdin.flush()?;
        Ok(())
    }

    /// How many gateways registered.
    pub fn registered(&mut self) -> anyhow::Result<usize> {
        self.command("count")?;
        loop {
            if let [k, v] = self.line()?.as_slice() {
                if k == "count" {
                    return Ok(v.parse()?);
                }
            }
        }
    }

    /// Fans `request` (one message in pretty text) out to the first `n`
    /// registered gateways, `passes` times.
    pub fn round(
        &mut self,
        n: usize,
        passes: usize,
        request: &[u8],
    ) -> anyhow::Result<Vec<OtpPass>> {
        let file = self.dir.join("request.txt");
        std::fs::write(&file, request)?;
        self.command(&format!("round {n} {passes} {}", file.display()))?;
        let mut out = Vec::new();
        loop {
            let f = self.line()?;
            match f.as_slice() {
                [k] if k == "done" => return Ok(out),
                [k, n, _pass, us, ok, err] if k == "row" => out.push(OtpPass {
                    n: n.parse()?,
                    micros: us.parse()?,
                    answered: ok.parse()?,
                    errors: err.parse()?,
                }),
                [k, text] if k == "error" => bail!("OTP node: {text}"),
                _ => {}
            }
        }
    }

    /// The node's resident set size, bytes.
    pub fn rss(&self) -> Option<u64> {
        rss(self.pid)
    }
}

impl Drop for OtpNode {
    fn drop(&mut self) {
        drop(self.stdin.take());
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One OTP fan-out pass.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct OtpPass {
    /// Destinations.
    pub n: usize,
    /// Time, µs.
    pub micros: u64,
    /// Good replies.
    pub answered: u64,
    /// Error replies and replies that never came.
    pub errors: u64,
}

/// A process's resident set size (Linux `/proc/PID/status` VmRSS), bytes.
pub fn rss(pid: u32) -> Option<u64> {
    let status =
        std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn scratch_dir() -> std::io::Result<PathBuf> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "megaco-load-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
