//! `megaco bench fanout`: the command-line side of `megaco_load::fanout`
//! (arguments, progress on standard error, tables with OTP's ratios and
//! the ceiling, TSV, JSON and charts in `--out`).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use megaco::codec::Encoding;
use megaco_load::fanout::{self, FanoutConfig, FanoutReport, Request, Row, Setup, SetupResult};
use megaco_load::farm::Sockets;
use megaco_load::{chart, check_wire, memory};

use crate::load::{create_out, secs, serve_args};

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
    progress(&format!(
        "megaco {} bench fanout ({})",
        env!("CARGO_PKG_VERSION"),
        megaco_bench::build()
    ));
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
    let json = serde_json::json!({
        "fanout": report,
        "memory": mem,
        "build": megaco_bench::build(),
    });
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

    /// A report of pretty-text AuditValues over two shards: `setups`
    /// beside OTP's `otp`.
    fn report(setups: Vec<SetupResult>, otp: SetupResult) -> FanoutReport {
        FanoutReport {
            wire: Encoding::pretty(),
            request: Request::Audit,
            passes: 1,
            shards: 2,
            sockets: Sockets::Shared,
            setups,
            wildcard: None,
            otp: Some(otp),
            otp_info: vec![],
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
        let report = report(
            vec![setup(
                "template/trusted/single",
                vec![row(1, 3.0, Some(calls))],
            )],
            setup("otp", vec![row(1, 40.0, None)]),
        );
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
        let report = report(
            vec![
                setup("template/trusted/single", vec![row(101, 5.0, Some(calls))]),
                setup(
                    "template/trusted/multiple",
                    vec![row(101, 4.0, Some(calls))],
                ),
            ],
            setup("otp", vec![row(101, 42.0, None)]),
        );
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
