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
use megaco_load::fanout::{self, FanoutConfig, FanoutReport, Request, Row, Setup, SetupResult};
use megaco_load::farm::Sockets;
use megaco_load::load::{self, LoadConfig, LoadReport, Role, Sample, Scenario};
use megaco_load::otp::OtpNode;
use megaco_load::{chart, check_target, check_wire, memory, otp_codec};

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
fn create_out(dir: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}

fn secs(s: f64, what: &str) -> Result<Duration> {
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
        let rows: [(&str, F, bool); 24] = [
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

fn serve_args(wire: &Encoding, version: u8) -> Vec<String> {
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

// ---------------------------------------------------------------- fanout

/// `megaco bench fanout`.
#[derive(Debug, Clone, Args)]
pub struct FanoutArgs {
    /// The largest number of destinations (at most 10,000).
    #[arg(long, value_name = "N", default_value_t = 901)]
    pub max: usize,
    /// Destinations grow by this much: 1, 1 + STEP, ... up to --max.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub step: usize,
    /// The numbers of destinations, e.g. `1,101,1001,10000` (instead of
    /// --max and --step).
    #[arg(long, value_name = "N,N,...", value_delimiter = ',')]
    pub ns: Vec<usize>,
    /// Passes per N; the fastest is reported.
    #[arg(long, default_value_t = 5)]
    pub passes: usize,
    /// Wire encoding, named as in the codec registry (as `megaco
    /// convert --to` names them): pretty, compact, ber (RFC 3525's
    /// dialect), ber-otp (as Erlang/OTP writes it), per, ...
    #[arg(long, value_name = "E", default_value = "pretty")]
    pub encoding: Encoding,
    /// Protocol version.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub version: u8,
    /// The request: `audit` (AuditValue of ROOT) or `modify`.
    #[arg(long, value_enum, default_value_t = RequestArg::Audit)]
    pub request: RequestArg,
    /// Controller shards (and gateway threads) of the multiple setups.
    #[arg(long, default_value_t = 2)]
    pub shards: usize,
    /// How the simulated gateways listen: `shared` gives each its own
    /// address (127.1.x.y) behind one socket per gateway thread, read a
    /// batch at a time (Linux; elsewhere `own`); `own` gives each its own
    /// socket on 127.0.0.1.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = SocketsArg::Shared)]
    pub gateway_sockets: SocketsArg,
    /// Only this setup (e.g. `template/trusted/single`); repeatable. A
    /// setup with `/unbatched` after it sends and receives one datagram
    /// per system call (on Linux the others use sendmmsg/recvmmsg, up to
    /// 64 datagrams a call), to measure the difference in one run.
    #[arg(long = "setup", value_name = "NAME")]
    pub setups: Vec<String>,
    /// Leave out the `stack` row (megaco_stack's UDP driver).
    #[arg(long)]
    pub no_stack: bool,
    /// Leave out the wildcard table.
    #[arg(long)]
    pub no_wildcard: bool,
    /// Also fan out from Erlang/OTP's megaco: `megaco bench`'s global
    /// `--vs-otp`.
    #[arg(skip)]
    pub vs_otp: bool,
    /// Also measure the controller's RSS with 1, 1,000 and 10,000
    /// registered gateways (ours; OTP's with --vs-otp).
    #[arg(long)]
    pub memory: bool,
    /// Seconds a round waits for replies beyond its sends.
    #[arg(long, value_name = "SECS", default_value_t = 2.0)]
    pub timeout: f64,
    /// Directory for fanout.tsv, fanout.json and the charts.
    #[arg(long, value_name = "DIR", default_value = "bench-out/fanout")]
    pub out: PathBuf,
    /// Print the report as JSON on standard output instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Run a controller for the memory measurement (internal).
    #[arg(long, hide = true)]
    pub serve_mgc: bool,
}

/// The request, on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RequestArg {
    /// AuditValue of ROOT.
    Audit,
    /// Modify of one termination.
    Modify,
}

/// How the simulated gateways listen, on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SocketsArg {
    /// One socket per gateway thread, each gateway its own address.
    Shared,
    /// Each gateway its own socket.
    Own,
}

/// Runs `megaco bench fanout`.
pub fn run_fanout(args: FanoutArgs) -> Result<ExitCode> {
    if args.serve_mgc {
        memory::serve_stack_mgc(args.encoding.clone(), args.version)?;
        return Ok(ExitCode::SUCCESS);
    }
    check_wire(&args.encoding)?;
    if !(1..=64).contains(&args.shards) || !(1..=1000).contains(&args.passes) {
        bail!("--shards is 1 to 64 and --passes 1 to 1000");
    }
    let all = Setup::all();
    let setups = if args.setups.is_empty() {
        all
    } else {
        let mut v = Vec::new();
        for name in &args.setups {
            match Setup::named(name) {
                Some(s) => v.push(s),
                None => bail!(
                    "unknown setup {name:?}; one of: {} (each also with /unbatched: one \
                     system call per datagram)",
                    all.iter().map(Setup::name).collect::<Vec<_>>().join(", ")
                ),
            }
        }
        v
    };
    if args.step == 0 {
        bail!("--step: destinations grow by at least 1");
    }
    if args.ns.contains(&0) {
        bail!("--ns: every number of destinations is at least 1");
    }
    let cfg = FanoutConfig {
        ns: if args.ns.is_empty() {
            fanout::steps(args.max, args.step)
        } else {
            args.ns.clone()
        },
        passes: args.passes,
        wire: args.encoding.clone(),
        version: args.version,
        request: match args.request {
            RequestArg::Audit => Request::Audit,
            RequestArg::Modify => Request::Modify,
        },
        shards: args.shards,
        setups,
        stack: !args.no_stack,
        wildcard: !args.no_wildcard,
        timeout: secs(args.timeout, "timeout")?,
        faults: vec![],
        otp: args.vs_otp,
        sockets: match args.gateway_sockets {
            SocketsArg::Shared => Sockets::Shared,
            SocketsArg::Own => Sockets::Own,
        },
    };
    create_out(&args.out)?;
    let mut progress = |s: &str| eprintln!("== {s}");
    let report = fanout::run(&cfg, &mut progress)?;
    let mem = if args.memory {
        let exe = std::env::current_exe()?;
        let serve = serve_args(&args.encoding, args.version);
        let serve: Vec<&str> = serve.iter().map(String::as_str).collect();
        Some(memory::measure(
            (&exe, &serve),
            &[1, 1000, 10_000],
            args.encoding.clone(),
            args.version,
            args.vs_otp,
            &mut progress,
        )?)
    } else {
        None
    };
    let json = serde_json::json!({ "fanout": report, "memory": mem });
    std::fs::write(
        args.out.join("fanout.json"),
        serde_json::to_string_pretty(&json)?,
    )?;
    std::fs::write(args.out.join("fanout.tsv"), tsv(&report))?;
    for p in chart::fanout(&report, &args.out)? {
        eprintln!("wrote {}", p.display());
    }
    eprintln!("wrote {}/fanout.json and fanout.tsv", args.out.display());
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print!("{}", fanout_text(&report, mem.as_ref()));
    }
    let lost = report
        .setups
        .iter()
        .chain(&report.wildcard)
        .flat_map(|s| &s.rows)
        .any(|r| r.answered < r.sent);
    Ok(if lost {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn opt(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.3}"))
}

/// One line per setup and N: times, the profile, the counts.
pub fn tsv(report: &FanoutReport) -> String {
    let mut out = String::from(
        "setup\tdestinations\ttime_us\tper_destination_us\tbuild_us\tencode_us\tengine_us\tsend_us\treceive_us\tdecode_us\tmatch_us\tsent\tanswered\ttimeouts\terrors\tcpu_per_destination_us\tprocess_cpu_per_destination_us\n",
    );
    for s in report
        .setups
        .iter()
        .chain(&report.wildcard)
        .chain(&report.otp)
    {
        for r in &s.rows {
            // No profile (OTP's side): `-`, not stages of zero.
            let stage = |f: fn(&fanout::Profile) -> f64| opt(r.profile.as_ref().map(f));
            let _ = writeln!(
                out,
                "{}\t{}\t{:.1}\t{:.3}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                s.name,
                r.destinations,
                r.time_us,
                r.per_destination_us,
                stage(|p| p.build_us),
                stage(|p| p.encode_us),
                stage(|p| p.engine_us),
                stage(|p| p.send_us),
                stage(|p| p.receive_us),
                stage(|p| p.decode_us),
                stage(|p| p.match_us),
                r.sent,
                r.answered,
                r.timeouts,
                r.errors.total(),
                opt(r.cpu_per_destination_us),
                opt(r.process_cpu_per_destination_us)
            );
        }
    }
    out
}

fn table(out: &mut String, title: &str, unit: &str, rows: &[Row]) {
    let _ = writeln!(out, "\n{title}\n");
    let _ = writeln!(
        out,
        "| {unit} | Time (µs) | Time per {} (µs) |",
        unit.trim_end_matches('s').to_lowercase()
    );
    out.push_str("| ---: | ---: | ---: |\n");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {:.1} | {:.3} |",
            r.destinations, r.time_us, r.per_destination_us
        );
    }
}

/// A table of OTP's figure over ours, a row per setup, a column per N
/// (`-` where either is missing).
fn ratio_table<'a>(
    out: &mut String,
    title: &str,
    otp: &SetupResult,
    setups: impl IntoIterator<Item = &'a SetupResult>,
    figure: fn(&Row) -> Option<f64>,
    ours: &dyn Fn(&SetupResult, &Row) -> Option<f64>,
) {
    let _ = write!(out, "\n{title}\n\n| setup |");
    for r in &otp.rows {
        let _ = write!(out, " N = {} |", r.destinations);
    }
    out.push('\n');
    out.push_str(&"| ---: ".repeat(otp.rows.len() + 1));
    out.push_str("|\n");
    for s in setups {
        let _ = write!(out, "| {} |", s.name);
        for (o, r) in otp.rows.iter().zip(&s.rows) {
            match (figure(o), ours(s, r)) {
                (Some(a), Some(b)) if b > 0.0 => {
                    let _ = write!(out, " {:.1} |", a / b);
                }
                _ => out.push_str(" - |"),
            }
        }
        out.push('\n');
    }
}

/// The tables: one per setup, the profiles, the counts, OTP's ratios and
/// memory.
pub fn fanout_text(report: &FanoutReport, mem: Option<&memory::Memory>) -> String {
    let mut out = match report.sockets {
        Sockets::Shared => {
            "Simulated gateways: each its own address (127.1.x.y), one socket per gateway thread\n"
        }
        Sockets::Own => "Simulated gateways: each its own socket on 127.0.0.1\n",
    }
    .to_string();
    for s in report.setups.iter().chain(&report.otp) {
        table(&mut out, &s.name, "Destinations", &s.rows);
    }
    if let Some(w) = &report.wildcard {
        table(
            &mut out,
            "wildcard (one gateway, AuditValue = 00000001/*)",
            "Terminations",
            &w.rows,
        );
    }
    let with_cpu: Vec<_> = report
        .setups
        .iter()
        .chain(&report.otp)
        .filter(|s| s.rows.iter().any(|r| r.cpu_per_destination_us.is_some()))
        .collect();
    if !with_cpu.is_empty() {
        out.push_str("\nCPU time per destination (µs; least of the passes): the controller's thread(s) / the whole process (controller, gateways and the kernel's work for them)\n\n| Destinations |");
        for s in &with_cpu {
            let _ = write!(out, " {} |", s.name);
        }
        out.push('\n');
        out.push_str(&"| ---: ".repeat(with_cpu.len() + 1));
        out.push_str("|\n");
        for (i, r) in with_cpu[0].rows.iter().enumerate() {
            let _ = write!(out, "| {} |", r.destinations);
            for s in &with_cpu {
                let r = &s.rows[i.min(s.rows.len() - 1)];
                let _ = write!(
                    out,
                    " {} / {} |",
                    opt(r.cpu_per_destination_us),
                    opt(r.process_cpu_per_destination_us)
                );
            }
            out.push('\n');
        }
    }
    out.push_str("\nPer-stage profile at the largest N (µs per destination; multiple: the shards' summed time)\n\n");
    out.push_str(
        "| setup | N | build | encode | engine | send | receive | decode | match | total |\n",
    );
    out.push_str("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for s in report.setups.iter().chain(&report.wildcard) {
        let Some(r) = s.rows.last() else { continue };
        let Some(p) = r.profile else { continue };
        let _ = writeln!(
            out,
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
            s.name,
            r.destinations,
            p.build_us,
            p.encode_us,
            p.engine_us,
            p.send_us,
            p.receive_us,
            p.decode_us,
            p.match_us,
            p.total_us
        );
    }
    out.push_str("\nCounts over all passes\n\n| setup | sent | answered | timed out | errors |\n| --- | ---: | ---: | ---: | ---: |\n");
    for s in report
        .setups
        .iter()
        .chain(&report.wildcard)
        .chain(&report.otp)
    {
        let sum = |f: fn(&Row) -> u64| s.rows.iter().map(f).sum::<u64>();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            s.name,
            sum(|r| r.sent),
            sum(|r| r.answered),
            sum(|r| r.timeouts),
            sum(|r| r.errors.total())
        );
    }
    if let Some(otp) = &report.otp {
        let time = |r: &Row| Some(r.per_destination_us);
        ratio_table(
            &mut out,
            "OTP/ours, time per destination",
            otp,
            &report.setups,
            time,
            &|_, r| time(r),
        );
        // A controller doing no work of its own still makes these calls
        // and waits for these gateways: OTP over that time alone is the
        // most a controller making them could reach. A multiple setup's
        // stages are its shards' summed time; they run side by side.
        let shards = report.shards.max(1) as f64;
        ratio_table(
            &mut out,
            "Ceiling: OTP over the time in our send and receive calls alone (receive: with the wait for the gateways; multiple: the shards' summed time over their number), the fastest pass; the most a controller making the same calls could reach",
            otp,
            &report.setups,
            time,
            &|s, r| {
                let p = r.profile?;
                let k = if s.name.contains("/multiple") { shards } else { 1.0 };
                Some((p.send_us + p.receive_us) / k)
            },
        );
        if otp.rows.iter().any(|r| r.cpu_per_destination_us.is_some()) {
            let cpu = |r: &Row| r.cpu_per_destination_us;
            ratio_table(
                &mut out,
                "OTP/ours, CPU time per destination (the OTP node's / our controller thread's)",
                otp,
                &report.setups,
                cpu,
                &|_, r| cpu(r),
            );
        }
    }
    for s in &report.setups {
        if let (Some(a), Some(b)) = (s.rows.iter().find(|r| r.destinations >= 101), s.rows.last()) {
            if b.destinations > a.destinations {
                let cpu = match (a.cpu_per_destination_us, b.cpu_per_destination_us) {
                    (Some(x), Some(y)) if x > 0.0 => format!(" (CPU time: {:.2}x)", y / x),
                    _ => String::new(),
                };
                let _ = writeln!(
                    out,
                    "{}: time per destination at N = {} is {:.2}x that at N = {}{cpu}",
                    s.name,
                    b.destinations,
                    b.per_destination_us / a.per_destination_us.max(1e-9),
                    a.destinations
                );
            }
        }
    }
    if let Some(m) = mem {
        out.push_str("\nController RSS with registered gateways\n\n| gateways | ours (KiB) | OTP (KiB) |\n| ---: | ---: | ---: |\n");
        for r in &m.rows {
            let otp = r.otp_bytes.map_or("-".into(), |b| (b / 1024).to_string());
            let _ = writeln!(out, "| {} | {} | {} |", r.mgs, r.ours_bytes / 1024, otp);
        }
        let _ = writeln!(
            out,
            "\nbytes per registered gateway: ours {:.0}, OTP {}",
            m.ours_bytes_per_mg,
            m.otp_bytes_per_mg.map_or("-".into(), |b| format!("{b:.0}"))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use megaco_load::fanout::Profile;

    fn row(n: usize, per_destination_us: f64, profile: Option<Profile>) -> Row {
        Row {
            destinations: n,
            time_us: per_destination_us * n as f64,
            per_destination_us,
            profile,
            cpu_per_destination_us: None,
            process_cpu_per_destination_us: None,
            sent: n as u64,
            answered: n as u64,
            timeouts: 0,
            errors: Default::default(),
        }
    }

    fn setup(name: &str, rows: Vec<Row>) -> SetupResult {
        SetupResult {
            name: name.into(),
            rows,
        }
    }

    #[test]
    fn rows_without_a_profile_have_no_stage_times_in_the_tsv() {
        let calls = Profile {
            send_us: 2.5,
            total_us: 2.5,
            ..Profile::default()
        };
        let report = FanoutReport {
            wire: Encoding::pretty(),
            request: Request::Audit,
            passes: 1,
            shards: 2,
            sockets: Sockets::Shared,
            setups: vec![setup(
                "template/trusted/single",
                vec![row(1, 3.0, Some(calls))],
            )],
            wildcard: None,
            otp: Some(setup("otp", vec![row(1, 40.0, None)])),
            otp_info: vec![],
        };
        let text = tsv(&report);
        let fields = |name: &str| -> Vec<String> {
            let line = text.lines().find(|l| l.starts_with(name)).unwrap();
            line.split('\t').map(String::from).collect()
        };
        let (ours, otp) = (fields("template/"), fields("otp"));
        assert_eq!(ours.len(), 17);
        assert_eq!(ours[7], "2.500", "send");
        assert_eq!(otp.len(), 17);
        assert!(otp[4..11].iter().all(|f| f == "-"), "{otp:?}");
    }

    #[test]
    fn the_ceiling_is_otp_over_the_send_and_receive_calls_per_shard() {
        let calls = Profile {
            send_us: 2.5,
            receive_us: 1.5,
            decode_us: 1.0,
            total_us: 5.0,
            ..Profile::default()
        };
        let report = FanoutReport {
            wire: Encoding::pretty(),
            request: Request::Audit,
            passes: 1,
            shards: 2,
            sockets: Sockets::Shared,
            setups: vec![
                setup("template/trusted/single", vec![row(101, 5.0, Some(calls))]),
                setup(
                    "template/trusted/multiple",
                    vec![row(101, 4.0, Some(calls))],
                ),
            ],
            wildcard: None,
            otp: Some(setup("otp", vec![row(101, 42.0, None)])),
            otp_info: vec![],
        };
        let text = fanout_text(&report, None);
        let (_, ceiling) = text.split_once("Ceiling:").expect("a ceiling table");
        let ceiling = ceiling.split("\n\n").nth(1).unwrap();
        // 42 / (2.5 + 1.5); decoding is the controller's own work. Two
        // shards make the calls side by side.
        assert_eq!(
            ceiling.lines().nth(2),
            Some("| template/trusted/single | 10.5 |")
        );
        assert_eq!(
            ceiling.lines().nth(3),
            Some("| template/trusted/multiple | 21.0 |")
        );
        // The plain ratios still use the whole time.
        assert!(text.contains("| template/trusted/single | 8.4 |"), "{text}");
    }
}
