//! Erlang/OTP's codecs measured on the same corpus, through the escript
//! `otp/otp_meas.escript` of this crate (embedded, and written to a
//! temporary directory when used).
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::meas::{Failure, Row};
use crate::samples::Sample;

/// The escript's source.
pub const ESCRIPT: &str = include_str!("../otp/otp_meas.escript");

/// What the escript reported.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OtpRun {
    /// `(key, value)` facts: OTP release, megaco version, schedulers, flex.
    pub info: Vec<(String, String)>,
    /// meas rows.
    pub rows: Vec<Row>,
    /// Pairs that failed.
    pub failures: Vec<Failure>,
    /// mstone operations per configuration.
    pub mstone: Vec<(String, u64)>,
    /// mstone total operations and seconds.
    pub total: Option<(u64, f64)>,
}

/// Whether `escript` runs and OTP's megaco application loads (found out
/// once per process).
pub fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(probe)
}

fn probe() -> bool {
    let Ok(dir) = scratch_dir() else {
        return false;
    };
    let script = dir.join("otp_meas.escript");
    if std::fs::write(&script, ESCRIPT).is_err() {
        return false;
    }
    let ok = Command::new("escript")
        .arg(&script)
        .arg(".")
        .arg("configs")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("config\tpretty")
        })
        .unwrap_or(false);
    let _ = std::fs::remove_dir_all(&dir);
    ok
}

fn scratch_dir() -> std::io::Result<PathBuf> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "megaco-bench-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Runs the escript over exactly `samples` (written, as the corpus holds
/// them, to a temporary directory named after the corpus codec) with the
/// given mode arguments (`["meas", "0.01"]`, `["mstone", "10", "1"]`,
/// optionally followed by configuration names).
pub fn run(samples: &[Sample], corpus_codec: &str, args: &[String]) -> anyhow::Result<OtpRun> {
    let dir = scratch_dir()?;
    let result = run_in(&dir, samples, corpus_codec, args);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run_in(dir: &Path, samples: &[Sample], codec: &str, args: &[String]) -> anyhow::Result<OtpRun> {
    let script = dir.join("otp_meas.escript");
    std::fs::write(&script, ESCRIPT)?;
    let corpus = dir.join(if codec == "compact" {
        "compact"
    } else {
        "pretty"
    });
    std::fs::create_dir_all(&corpus)?;
    for s in samples {
        std::fs::write(corpus.join(format!("{}.txt", s.name)), &s.source)?;
    }
    let out = Command::new("escript")
        .arg(&script)
        .arg(&corpus)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| anyhow::anyhow!("running escript: {e}"))?;
    if !out.status.success() {
        anyhow::bail!("the OTP escript failed ({})", out.status);
    }
    Ok(parse(&String::from_utf8_lossy(&out.stdout)))
}

/// Parses the escript's tab-separated output; unknown lines are ignored.
pub fn parse(stdout: &str) -> OtpRun {
    let mut run = OtpRun::default();
    for line in stdout.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            ["info", k, v] => run.info.push((k.to_string(), v.to_string())),
            ["row", codec, msg, size, enc, dec] => {
                if let (Ok(size), Ok(encode_us), Ok(decode_us)) =
                    (size.parse(), enc.parse(), dec.parse())
                {
                    run.rows.push(Row {
                        codec: codec.to_string(),
                        message: msg.to_string(),
                        size,
                        encode_us,
                        decode_us,
                    });
                }
            }
            ["fail", codec, msg, error] => run.failures.push(Failure {
                codec: codec.to_string(),
                message: msg.to_string(),
                error: error.to_string(),
            }),
            ["mstone", codec, n] => {
                if let Ok(n) = n.parse() {
                    run.mstone.push((codec.to_string(), n));
                }
            }
            ["total", n, secs] => {
                if let (Ok(n), Ok(s)) = (n.parse(), secs.parse()) {
                    run.total = Some((n, s));
                }
            }
            _ => {}
        }
    }
    run
}
