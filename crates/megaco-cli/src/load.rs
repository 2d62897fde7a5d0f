//! `megaco load` and `megaco bench fanout`: the command-line side of the
//! `megaco-load` crate (arguments, progress on standard error, tables on
//! standard output, JSON, TSV and charts in `--out`).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand, ValueEnum};
use megaco::codec::Encoding;
use megaco_load::batch::Io;
use megaco_load::load::{self, LoadConfig, LoadReport, Role, Sample, Scenario};
use megaco_load::otp::OtpNode;
use megaco_load::{chart, check_target, check_wire, otp_codec};

use crate::fanout::{run_fanout, FanoutArgs};

/// `megaco load`.
#[derive(Debug, Clone, Args)]
pub struct LoadArgs {
    /// The controller to load (gateway role), or the address to listen on
    /// (controller role, default 127.0.0.1:2944). Loopback only unless
    /// --allow-remote. With --vs-otp and no --mgc, our own controller
    /// (megaco_stack's UDP endpoint) is started for the run.
    #[arg(long, value_name = "ADDR")]
    pub mgc: Option<SocketAddr>,
    /// Which side to play: `mg` (N gateways against one controller) or
    /// `mgc` (one controller driving N gateways).
    #[arg(long, value_enum, default_value_t = RoleArg::Mg)]
    pub role: RoleArg,
    /// How many gateways (1 to 10,000).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub mgs: usize,
    /// Transactions started per second in all [default: as fast as the
    /// controller answers].
    #[arg(long, value_name = "TPS")]
    pub rate: Option<f64>,
    /// Seconds transactions are started (at most 3600).
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub duration: f64,
    /// TCP with TPKT framing instead of UDP (gateway role).
    #[arg(long)]
    pub tcp: bool,
    /// Wire encoding, named as in the codec registry (as `megaco
    /// convert --to` names them): pretty, compact, ber (RFC 3525's
    /// dialect), ber-otp (as Erlang/OTP writes it), per, ...
    #[arg(long, value_name = "E", default_value = "pretty")]
    pub encoding: Encoding,
    /// Protocol version of the messages sent.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub version: u8,
    /// The calls: `call` (Add, Modify, Notify, Subtract), `notify`,
    /// `audit`, or a scenario file (TOML, as `megaco mg --scenario` reads
    /// it: each call runs its `[[step]]`s once, each reply checked).
    #[arg(long, value_name = "FILE", default_value = "call")]
    pub scenario: String,
    /// Calls in flight per gateway [default: 8, or 50 ms of --rate; 1 for
    /// a scenario file, whose calls use the gateway's own lines].
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Seconds a request waits for its reply, resends included.
    #[arg(long, value_name = "SECS", default_value_t = 2.0)]
    pub timeout: f64,
    /// Resends over UDP within --timeout (at most 100).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(0..=load::MAX_RESENDS as i64))]
    pub resends: u32,
    /// Controller role: wait (up to 10 s) for --mgs gateways started
    /// elsewhere to register, e.g. `megaco mg --mgc ADDR --stay`, instead
    /// of simulating them.
    #[arg(long)]
    pub external: bool,
    /// Step the rate FROM:TO:STEP (transactions per second), each step
    /// for --duration, and report the knee.
    #[arg(long, value_name = "FROM:TO:STEP")]
    pub sweep: Option<String>,
    /// The knee's p99 limit, milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5.0)]
    pub knee_p99: f64,
    /// Also run the same load against Erlang/OTP's megaco controller (an
    /// escript), in the same run, and print OTP/ours ratios.
    #[arg(long)]
    pub vs_otp: bool,
    /// Print the report as JSON on standard output.
    #[arg(long)]
    pub json: bool,
    /// Directory for load.json and the charts (latency and throughput
    /// per second, PNG and SVG).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// No progress lines on standard error.
    #[arg(long)]
    pub quiet: bool,
    /// Allow a target outside loopback (127.0.0.0/8, ::1).
    #[arg(long)]
    pub allow_remote: bool,
    /// One system call per UDP datagram (on Linux, datagrams are
    /// otherwise sent and received up to 64 a call with sendmmsg and
    /// recvmmsg), to measure the difference.
    #[arg(long)]
    pub unbatched: bool,
    /// The process id of the controller under load (on this machine):
    /// its CPU time per transaction is reported beside the generator's
    /// (a controller started by --vs-otp is measured anyway).
    #[arg(long, value_name = "PID")]
    pub mgc_pid: Option<u32>,
}

/// The role, on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    /// Gateways.
    Mg,
    /// A controller.
    Mgc,
}

/// The output directory, created before a run rather than after it, so
/// that a name that cannot be a directory loses no measurement.
pub(crate) fn create_out(dir: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}

pub(crate) fn secs(s: f64, what: &str) -> Result<Duration> {
    if !(s > 0.0 && s <= 3600.0) {
        bail!("--{what} must be between 0 and 3600 seconds");
    }
    Ok(Duration::from_secs_f64(s))
}

/// Runs `megaco load`.
pub fn run_load(args: LoadArgs) -> Result<ExitCode> {
    let role = match args.role {
        RoleArg::Mg => Role::Mg,
        RoleArg::Mgc => Role::Mgc,
    };
    if role == Role::Mgc && (args.tcp || args.vs_otp) {
        bail!("--role mgc runs over UDP, without --vs-otp");
    }
    check_wire(&args.encoding)?;
    if args.rate.is_some_and(|r| !(r > 0.0 && r <= 10_000_000.0)) {
        bail!("--rate must be a positive number of transactions per second");
    }
    if let Some(pid) = args.mgc_pid {
        if megaco_load::cpu::of_process(pid).is_none() {
            bail!("--mgc-pid {pid}: no such process whose CPU time can be read");
        }
    }
    if !(args.knee_p99 > 0.0 && args.knee_p99 <= 60_000.0) {
        bail!("--knee-p99 must be between 0 and 60,000 milliseconds");
    }
    // What would fail after the run, found before it.
    if args.vs_otp {
        otp_codec(&args.encoding)?;
    }
    if let Some(dir) = &args.out {
        create_out(dir)?;
    }
    let default_listen = SocketAddr::from(([127, 0, 0, 1], 2944));
    let mut cfg = LoadConfig {
        role,
        mgs: args.mgs,
        rate: args.rate,
        duration: secs(args.duration, "duration")?,
        tcp: args.tcp,
        wire: args.encoding.clone(),
        version: args.version,
        scenario: Scenario::load(&args.scenario)?,
        concurrency: args.concurrency,
        timeout: secs(args.timeout, "timeout")?,
        resends: args.resends,
        simulate: !args.external,
        // External gateways need the address even with --quiet.
        announce: !args.quiet || args.external,
        io: if args.unbatched {
            Io::PerDatagram
        } else {
            Io::Batched
        },
        target_pid: args.mgc_pid,
        ..LoadConfig::new(args.mgc.unwrap_or(default_listen))
    };
    cfg.check()?;
    let rates = args.sweep.as_deref().map(parse_sweep).transpose()?;
    let quiet = args.quiet;
    let mut progress = |s: &Sample| {
        if !quiet {
            eprintln!(
                "{:6.1}s  sent {:>8}/s  answered {:>8}/s  outstanding {:>6}  errors {:>6}  p99 {:>8.3} ms",
                s.t,
                s.sent,
                s.answered,
                s.outstanding,
                s.errors,
                s.latency.p99_us as f64 / 1e3
            );
        }
    };
    let mut note = |s: &str| {
        if !quiet {
            eprintln!("== {s}");
        }
    };
    // Ours: the given controller, or one started here for --vs-otp.
    let mut _ours = None;
    match (args.mgc, args.vs_otp, role) {
        (Some(a), _, _) => check_target(a, args.allow_remote)?,
        (None, true, Role::Mg) => {
            let (child, port) = start_our_mgc(&args.encoding, args.version, args.tcp)?;
            cfg.target_pid = Some(child.0.id());
            _ours = Some(child);
            cfg.target = SocketAddr::from(([127, 0, 0, 1], port));
        }
        (None, false, Role::Mg) => bail!("--mgc ADDR is required (or --vs-otp)"),
        (None, _, Role::Mgc) => {}
    }
    let mut sides: Vec<(&str, Side)> = Vec::new();
    note(&format!("ours: {}", cfg.target));
    sides.push((
        "ours",
        run_side(
            &cfg,
            rates.as_deref(),
            args.knee_p99,
            &mut progress,
            &mut note,
        )?,
    ));
    drop(_ours);
    if args.vs_otp {
        let bound =
            cfg.duration * rates.as_ref().map_or(1, |r| r.len() as u32) + Duration::from_secs(120);
        let node = OtpNode::mgc(0, args.tcp, otp_codec(&args.encoding)?, args.version, bound)?;
        let otp_cfg = LoadConfig {
            target: SocketAddr::from(([127, 0, 0, 1], node.port)),
            target_pid: Some(node.pid).filter(|&p| p != 0),
            ..cfg.clone()
        };
        note(&format!("OTP: {}", otp_cfg.target));
        sides.push((
            "otp",
            run_side(
                &otp_cfg,
                rates.as_deref(),
                args.knee_p99,
                &mut progress,
                &mut note,
            )?,
        ));
    }
    if let Some(dir) = &args.out {
        for (name, side) in &sides {
            let last = match side {
                Side::One(r) => r,
                Side::Sweep(s) => s.steps.last().context("empty sweep")?,
            };
            let sub = if sides.len() > 1 {
                dir.join(name)
            } else {
                dir.clone()
            };
            std::fs::create_dir_all(&sub)?;
            let title = if *name == "otp" {
                "OTP's controller"
            } else {
                "megaco load"
            };
            for p in chart::load(last, &sub, title)? {
                note(&format!("wrote {}", p.display()));
            }
        }
        let json = side_json(&sides);
        std::fs::write(dir.join("load.json"), serde_json::to_string_pretty(&json)?)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&side_json(&sides))?);
    } else {
        print!("{}", side_text(&sides));
    }
    let bad = sides.iter().any(|(_, s)| match s {
        Side::One(r) => r.answered == 0,
        Side::Sweep(s) => s.steps.iter().all(|r| r.answered == 0),
    });
    Ok(if bad {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

enum Side {
    One(Box<LoadReport>),
    Sweep(load::Sweep),
}

fn run_side(
    cfg: &LoadConfig,
    rates: Option<&[f64]>,
    knee_p99: f64,
    progress: &mut dyn FnMut(&Sample),
    note: &mut dyn FnMut(&str),
) -> Result<Side> {
    Ok(match rates {
        None => Side::One(Box::new(load::run(cfg, progress)?)),
        Some(r) => Side::Sweep(load::sweep(
            cfg,
            r,
            Duration::from_secs_f64(knee_p99 / 1e3),
            progress,
            note,
        )?),
    })
}

fn parse_sweep(s: &str) -> Result<Vec<f64>> {
    let parts: Vec<f64> = s
        .split(':')
        .map(|p| p.parse::<f64>().with_context(|| format!("--sweep {s:?}")))
        .collect::<Result<_>>()?;
    let [from, to, step] = parts[..] else {
        bail!("--sweep FROM:TO:STEP, e.g. 20000:200000:20000");
    };
    let max = load::MAX_SWEEP_STEPS;
    if !(from > 0.0 && to >= from && step > 0.0) || (to - from) / step + 1.0 > max as f64 + 1e-9 {
        bail!("--sweep {s:?}: FROM > 0, TO >= FROM, STEP > 0, at most {max} steps");
    }
    let mut v = Vec::new();
    let mut r = from;
    while r <= to + 1e-9 {
        v.push(r);
        r += step;
    }
    Ok(v)
}

fn side_json(sides: &[(&str, Side)]) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for (name, s) in sides {
        let v = match s {
            Side::One(r) => serde_json::to_value(r),
            Side::Sweep(s) => serde_json::to_value(s),
        };
        m.insert(name.to_string(), v.unwrap_or_default());
    }
    serde_json::Value::Object(m)
}

fn ms(us: u64) -> String {
    format!("{:.3}", us as f64 / 1e3)
}

fn side_text(sides: &[(&str, Side)]) -> String {
    let mut out = String::new();
    let ones: Vec<(&str, &LoadReport)> = sides
        .iter()
        .filter_map(|(n, s)| match s {
            Side::One(r) => Some((*n, &**r)),
            Side::Sweep(_) => None,
        })
        .collect();
    if !ones.is_empty() {
        let names: Vec<&str> = ones.iter().map(|(n, _)| *n).collect();
        let _ = write!(out, "| | {} |", names.join(" | "));
        if ones.len() == 2 {
            out.push_str(" OTP/ours |");
        }
        out.push('\n');
        out.push_str(&"| --- ".repeat(names.len() + 1 + usize::from(ones.len() == 2)));
        out.push_str("|\n");
        type F = fn(&LoadReport) -> f64;
        let rows: [(&str, F, bool); 25] = [
            ("gateways registered", |r| r.registered as f64, false),
            ("transactions sent", |r| r.sent as f64, false),
            ("answered", |r| r.answered as f64, false),
            ("failed", |r| r.failed as f64, false),
            (
                "failed: an error descriptor",
                |r| r.errors.error_replies as f64,
                false,
            ),
            (
                "failed: a reply to another command",
                |r| r.errors.mismatched as f64,
                false,
            ),
            ("timed out", |r| r.timed_out as f64, false),
            ("stray: malformed", |r| r.errors.malformed as f64, false),
            (
                "stray: unexpected (never sent)",
                |r| r.errors.unexpected as f64,
                false,
            ),
            (
                "stray: duplicate (answered already)",
                |r| r.errors.duplicate as f64,
                false,
            ),
            ("stray: late (given up)", |r| r.errors.late as f64, false),
            (
                "stray: message-level error",
                |r| r.errors.message_errors as f64,
                false,
            ),
            ("resent", |r| r.resent as f64, false),
            ("calls completed", |r| r.calls as f64, false),
            (
                "calls cleaned up after a failure",
                |r| r.cleanups as f64,
                false,
            ),
            ("throughput (transactions/s)", |r| r.throughput, true),
            ("latency p50 (ms)", |r| r.latency.p50_us as f64 / 1e3, true),
            ("latency p90 (ms)", |r| r.latency.p90_us as f64 / 1e3, true),
            ("latency p99 (ms)", |r| r.latency.p99_us as f64 / 1e3, true),
            (
                "latency p99.9 (ms)",
                |r| r.latency.p999_us as f64 / 1e3,
                true,
            ),
            ("latency max (ms)", |r| r.latency.max_us as f64 / 1e3, true),
            ("latency mean (ms)", |r| r.latency.mean_us / 1e3, true),
            (
                "longest generator stall (ms)",
                |r| r.generator_stall_ms,
                false,
            ),
            (
                "CPU per transaction, load generator (µs)",
                |r| r.cpu_per_transaction_us.unwrap_or(f64::NAN),
                false,
            ),
            (
                "CPU per transaction, controller (µs)",
                |r| r.target_cpu_per_transaction_us.unwrap_or(f64::NAN),
                true,
            ),
        ];
        for (label, f, ratio) in rows {
            let _ = write!(out, "| {label} |");
            for (_, r) in &ones {
                let v = f(r);
                if v.is_nan() {
                    out.push_str(" - |");
                } else if v.fract() == 0.0 && v.abs() < 1e15 {
                    let _ = write!(out, " {v:.0} |");
                } else {
                    let _ = write!(out, " {v:.3} |");
                }
            }
            if ones.len() == 2 {
                let (a, b) = (f(ones[0].1), f(ones[1].1));
                if ratio && a > 0.0 && b.is_finite() {
                    let _ = write!(out, " {:.2} |", b / a);
                } else {
                    out.push_str(" |");
                }
            }
            out.push('\n');
        }
    }
    for (name, r) in &ones {
        for (why, count) in &r.failures {
            let _ = writeln!(out, "{name}: {count} failed: {why}");
        }
    }
    for (name, s) in sides {
        let Side::Sweep(sw) = s else { continue };
        let _ = writeln!(out, "\n{name}: rate sweep\n");
        out.push_str("| target (/s) | throughput (/s) | p50 (ms) | p99 (ms) | p99.9 (ms) | max (ms) | timed out | failed | generator stall (ms) |\n");
        out.push_str("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for r in &sw.steps {
            let _ = writeln!(
                out,
                "| {:.0} | {:.0} | {} | {} | {} | {} | {} | {} | {} |",
                r.rate.unwrap_or(0.0),
                r.throughput,
                ms(r.latency.p50_us),
                ms(r.latency.p99_us),
                ms(r.latency.p999_us),
                ms(r.latency.max_us),
                r.timed_out,
                r.failed,
                ms((r.generator_stall_ms * 1e3) as u64)
            );
        }
        let rate =
            |k: Option<f64>| k.map_or("none".to_string(), |k| format!("{k:.0} transactions/s"));
        let _ = writeln!(
            out,
            "\n{name}: knee (highest rate answered in full, nothing lost): {}; with p99 <= {} ms too: {}",
            rate(sw.knee),
            ms(sw.p99_limit_us),
            rate(sw.knee_p99)
        );
    }
    out
}

/// Starts our controller (megaco_stack's UDP endpoint) as a child process
/// of this binary; returns it and its port.
fn start_our_mgc(wire: &Encoding, version: u8, tcp: bool) -> Result<(Child, u16)> {
    if tcp {
        bail!("with --tcp, give --mgc (e.g. a `megaco mgc --tcp` started beforehand)");
    }
    let exe = std::env::current_exe().context("finding this program")?;
    let mut child = std::process::Command::new(exe)
        .args(serve_args(wire, version))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("starting our controller")?;
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.as_mut().context("stdout")?),
        &mut line,
    )?;
    let port = line
        .trim()
        .strip_prefix("port\t")
        .context("our controller did not start")?
        .parse()?;
    Ok((Child(child), port))
}

pub(crate) fn serve_args(wire: &Encoding, version: u8) -> Vec<String> {
    vec![
        "bench".into(),
        "fanout".into(),
        "--serve-mgc".into(),
        "--encoding".into(),
        wire.to_string(),
        "--version".into(),
        version.to_string(),
    ]
}

/// A child process stopped on drop.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        drop(self.0.stdin.take());
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

// ---------------------------------------------------------------- bench

/// `megaco bench`: the codec measurements of `megaco-bench` (a quick
/// comparison, `meas`, `mstone`) and `fanout`, one subcommand each.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// What to run (default: a quick comparison of the codecs).
    #[command(subcommand)]
    pub command: Option<BenchCommand>,
    /// Options shared by every mode.
    #[command(flatten)]
    pub common: megaco_bench::CommonArgs,
}

/// The modes of `megaco bench`.
#[derive(Debug, Clone, Subcommand)]
pub enum BenchCommand {
    /// The codec measurements.
    #[command(flatten)]
    Codecs(megaco_bench::BenchCommand),
    /// Fan-out: one controller, one request to each of N gateways, time
    /// per destination as N grows.
    Fanout(FanoutArgs),
}

/// Runs `megaco bench`.
pub fn run_bench(args: BenchArgs) -> Result<ExitCode> {
    let command = match args.command {
        Some(BenchCommand::Fanout(mut fanout)) => {
            let c = &args.common;
            let ignored = [
                ("--corpus", c.corpus.is_some()),
                ("--codec", !c.codecs.is_empty()),
                ("--message", !c.messages.is_empty()),
                ("--limit", c.limit.is_some()),
                ("--no-otp", c.no_otp),
                ("--quick", c.quick),
                ("--no-progress", c.no_progress),
            ];
            if let Some((flag, _)) = ignored.iter().find(|(_, given)| *given) {
                bail!(
                    "{flag} is an option of the codec benchmarks; `bench fanout` does not take it"
                );
            }
            fanout.vs_otp = c.vs_otp;
            return run_fanout(fanout);
        }
        Some(BenchCommand::Codecs(c)) => Some(c),
        None => None,
    };
    megaco_bench::run_bench(&megaco_bench::BenchArgs {
        command,
        common: args.common,
    })
    .map(|()| ExitCode::SUCCESS)
}
