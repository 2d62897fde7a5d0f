//! The measurement suite of the megaco codecs, after Erlang/OTP's
//! "Performance comparison" (`lib/megaco/examples/meas`), with OTP's own
//! codecs measured on the same corpus in the same run.
//!
//! - [`meas`]: mean encode and decode time and size per message and codec
//!   configuration; console table, TSV, JSON, Markdown and charts.
//! - [`mstone`]: throughput of all configurations running at once
//!   (mstone1: long-lived runners; mstone2: short-lived workers), and how
//!   it scales from one core to all.
//! - [`transform`]: the corpus written in every encoding.
//! - [`otp`]: the same measurements of OTP's codecs (`--vs-otp`), and the
//!   OTP/ours ratio per matching configuration.
//!
//! The command-line entry points are [`run_bench`] (`megaco bench`) and
//! [`run_transform`] (`megaco transform`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod binary_codecs;
pub mod charts;
pub mod codecs;
pub mod meas;
pub mod mstone;
pub mod otp;
pub mod report;
pub mod samples;
pub mod transform;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;

use crate::codecs::Codec;
use crate::meas::{MeasResult, Row};
use crate::samples::Samples;

/// `megaco bench`: without a subcommand, a quick comparison: a short
/// `meas` over the corpus, ours and (when `escript` and OTP's megaco are
/// found) OTP's, console tables only.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// What to run (default: a quick comparison).
    #[command(subcommand)]
    pub command: Option<BenchCommand>,
    /// Options shared by every mode.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The measurement modes.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum BenchCommand {
    /// Mean encode/decode time and size per message and codec config.
    Meas(MeasArgs),
    /// Throughput with all codec configs running at once (mstone1, mstone2).
    Mstone(MstoneArgs),
}

/// Options shared by every mode.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CommonArgs {
    /// The corpus: an OTP term file (`{Codec, [{Name, <<"...">>}]}.`) or a
    /// directory of one-message files [default: corpus/time_test.msgs].
    #[arg(long, global = true)]
    pub corpus: Option<PathBuf>,
    /// Measure only this codec config (name or slug, e.g. `native-compact`);
    /// repeatable [default: all in this build].
    #[arg(long = "codec", global = true)]
    pub codecs: Vec<String>,
    /// Measure only this message; repeatable [default: all].
    #[arg(long = "message", global = true)]
    pub messages: Vec<String>,
    /// Measure only the first N messages.
    #[arg(long, global = true)]
    pub limit: Option<usize>,
    /// Also measure Erlang/OTP's codecs on the same messages (needs
    /// `escript` and OTP's megaco application) and print OTP/ours ratios.
    #[arg(long, global = true)]
    pub vs_otp: bool,
    /// Without a subcommand, leave OTP's codecs out (they are included
    /// whenever `escript` and OTP's megaco are found).
    #[arg(long, global = true)]
    pub no_otp: bool,
    /// A short run (meas factor 0.01, mstone 1 s).
    #[arg(long, global = true)]
    pub quick: bool,
    /// No progress bar.
    #[arg(long, global = true)]
    pub no_progress: bool,
}

/// `megaco bench meas`.
#[derive(clap::Args, Debug, Clone)]
pub struct MeasArgs {
    /// Time per operation and message is 1 s × FACTOR.
    #[arg(long, default_value_t = 1.0)]
    pub factor: f64,
    /// Directory for meas.tsv, meas.json, summary.md and the charts.
    #[arg(long, default_value = "bench-out")]
    pub out: PathBuf,
}

/// `megaco bench mstone`.
#[derive(clap::Args, Debug, Clone)]
pub struct MstoneArgs {
    /// Seconds each run lasts.
    #[arg(long, default_value_t = 10.0)]
    pub time: f64,
    /// Runners (mstone1) or worker drivers (mstone2) per codec config.
    #[arg(long, default_value_t = 1)]
    pub factor: usize,
    /// OS threads [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Skip the scaling runs (1 ..= all cores).
    #[arg(long)]
    pub no_scaling: bool,
    /// Also run mstone1 for each codec config alone (each for --time), on
    /// both sides with --vs-otp: per-config throughput that does not depend
    /// on how a runtime shares the cores between configs.
    #[arg(long)]
    pub isolated: bool,
    /// Which benchmark.
    #[arg(long, value_enum, default_value_t = MstoneMode::Both)]
    pub mode: MstoneMode,
}

/// Which mstone to run.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum MstoneMode {
    /// Long-lived runners.
    Mstone1,
    /// Short-lived workers.
    Mstone2,
    /// Both.
    Both,
}

/// `megaco transform [CORPUS] OUTDIR`.
#[derive(clap::Args, Debug, Clone)]
pub struct TransformArgs {
    /// The corpus (term file or directory) [default: corpus/time_test.msgs];
    /// with a single path, that path is OUTDIR.
    #[arg(value_name = "CORPUS")]
    pub first: PathBuf,
    /// The output directory: one subdirectory per codec config.
    #[arg(value_name = "OUTDIR")]
    pub second: Option<PathBuf>,
    /// Only these codec configs (name or slug); repeatable.
    #[arg(long = "codec")]
    pub codecs: Vec<String>,
}

/// Runs `megaco transform`.
pub fn run_transform(args: &TransformArgs) -> anyhow::Result<()> {
    let (corpus, out) = match &args.second {
        Some(out) => (args.first.clone(), out.clone()),
        None => (samples::default_corpus(), args.first.clone()),
    };
    let loaded = samples::load(&corpus, &[], None)?;
    report_skipped(&loaded);
    let codecs = codecs::select(&args.codecs)?;
    for w in transform::write(&loaded.samples, &codecs, &out)? {
        println!("{:<30} {:>4} files  {}", w.codec, w.files, w.dir.display());
        for (m, e) in &w.failures {
            eprintln!("  {m}: {e}");
        }
    }
    Ok(())
}

fn report_skipped(loaded: &Samples) {
    if !loaded.skipped.is_empty() {
        eprintln!(
            "{} corpus message(s) not decoded, left out:",
            loaded.skipped.len()
        );
        for (name, e) in loaded.skipped.iter().take(10) {
            eprintln!("  {name}: {e}");
        }
        if loaded.skipped.len() > 10 {
            eprintln!("  ...");
        }
    }
}

/// Runs `megaco bench`.
pub fn run_bench(args: &BenchArgs) -> anyhow::Result<()> {
    let c = &args.common;
    let corpus = c.corpus.clone().unwrap_or_else(samples::default_corpus);
    let loaded = samples::load(&corpus, &c.messages, c.limit)?;
    report_skipped(&loaded);
    anyhow::ensure!(
        !loaded.samples.is_empty(),
        "no message of {} could be decoded",
        corpus.display()
    );
    let codecs = codecs::select(&c.codecs)?;
    match &args.command {
        None => {
            let factor = if c.quick { 0.002 } else { 0.01 };
            // The quick comparison includes OTP's codecs whenever they run.
            let mut c = c.clone();
            if !c.vs_otp && !c.no_otp {
                c.vs_otp = otp::available();
                if !c.vs_otp {
                    eprintln!("Erlang/OTP's megaco not found (escript); measuring ours only");
                }
            }
            run_meas(&c, &loaded, &codecs, factor, None)
        }
        Some(BenchCommand::Meas(m)) => {
            let factor = if c.quick { 0.01 } else { m.factor };
            run_meas(c, &loaded, &codecs, factor, Some(&m.out))
        }
        Some(BenchCommand::Mstone(m)) => run_mstone(c, &loaded, &codecs, m),
    }
}

fn budget(factor: f64) -> Duration {
    Duration::from_secs_f64(factor.clamp(1e-6, 1e6))
}

fn run_meas(
    c: &CommonArgs,
    loaded: &Samples,
    codecs: &[Codec],
    factor: f64,
    out: Option<&PathBuf>,
) -> anyhow::Result<()> {
    let n = (loaded.samples.len() * codecs.len()) as u64;
    let bar = if c.no_progress {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(n)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg} (eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let result = meas::run(&loaded.samples, codecs, budget(factor), |codec, s| {
        bar.set_message(format!("{} {}", codec.name, s.name));
        bar.inc(1);
    });
    bar.finish_and_clear();
    for f in &result.failures {
        eprintln!("{} {}: {}", f.codec, f.message, f.error);
    }
    println!(
        "megaco {} — {} messages, 1 s × {factor} per operation",
        env!("CARGO_PKG_VERSION"),
        loaded.samples.len()
    );
    print!("{}", report::console_table(&result.summary()));
    if let Some(dir) = out {
        let written = report::write_all(&result, dir)
            .with_context(|| format!("writing results to {}", dir.display()))?;
        println!("wrote {} files to {}", written.len(), dir.display());
    }
    if c.vs_otp {
        let otp = run_otp(loaded, &["meas".to_string(), factor.to_string()])?;
        print!("{}", compare_meas(&result, &otp.rows, codecs));
        if let Some(dir) = out {
            std::fs::write(
                dir.join("otp-meas.tsv"),
                report::tsv(&MeasResult {
                    rows: otp.rows.clone(),
                    failures: otp.failures.clone(),
                }),
            )?;
            std::fs::write(
                dir.join("comparison.md"),
                compare_markdown(&result, &otp.rows, codecs),
            )?;
        }
    }
    Ok(())
}

fn run_otp(loaded: &Samples, args: &[String]) -> anyhow::Result<otp::OtpRun> {
    anyhow::ensure!(
        otp::available(),
        "--vs-otp needs `escript` and Erlang/OTP's megaco application"
    );
    let run = otp::run(&loaded.samples, &loaded.codec, args)?;
    let info: Vec<String> = run.info.iter().map(|(k, v)| format!("{k} {v}")).collect();
    println!("\nErlang/OTP: {}", info.join(", "));
    for f in run.failures.iter().take(10) {
        eprintln!("OTP {} {}: {}", f.codec, f.message, f.error);
    }
    Ok(run)
}

/// One matched pair of summaries over the messages both sides measured.
struct Pair {
    ours: meas::Summary,
    otp: meas::Summary,
}

fn pairs(ours: &MeasResult, otp_rows: &[Row], codecs: &[Codec]) -> Vec<Pair> {
    let mut out = Vec::new();
    for c in codecs {
        let Some(otp_name) = c.otp else { continue };
        let mine: Vec<&Row> = ours.rows.iter().filter(|r| r.codec == c.name).collect();
        let theirs: Vec<&Row> = otp_rows.iter().filter(|r| r.codec == otp_name).collect();
        let common = |r: &&Row, other: &[&Row]| other.iter().any(|o| o.message == r.message);
        let a: Vec<Row> = mine
            .iter()
            .filter(|r| common(r, &theirs))
            .map(|r| (*r).clone())
            .collect();
        let b: Vec<Row> = theirs
            .iter()
            .filter(|r| common(r, &mine))
            .map(|r| (*r).clone())
            .collect();
        if let (Some(ours), Some(otp)) = (
            meas::summarize(&a).into_iter().next(),
            meas::summarize(&b).into_iter().next(),
        ) {
            out.push(Pair { ours, otp });
        }
    }
    out
}

/// OTP's table and, per matching configuration, the OTP/ours ratios of
/// encode, decode and total time (over the messages both measured).
fn compare_meas(ours: &MeasResult, otp_rows: &[Row], codecs: &[Codec]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\nErlang/OTP codecs, same messages:");
    s.push_str(&report::console_table(&meas::summarize(otp_rows)));
    let _ = writeln!(
        s,
        "\nOTP / ours (time ratio: how many times faster ours is):"
    );
    let _ = writeln!(
        s,
        "{:<28} | {:<40} | {:>5} | {:>8} | {:>8} | {:>8} | {:>10}",
        "Ours", "OTP", "Msgs", "Encode", "Decode", "Total", "Size o/t"
    );
    for p in pairs(ours, otp_rows, codecs) {
        let _ = writeln!(
            s,
            "{:<28} | {:<40} | {:>5} | {:>7.1}x | {:>7.1}x | {:>7.1}x | {:>10.2}",
            p.ours.codec,
            p.otp.codec,
            p.ours.messages,
            p.otp.encode_us / p.ours.encode_us,
            p.otp.decode_us / p.ours.decode_us,
            p.otp.total_us / p.ours.total_us,
            p.ours.size / p.otp.size
        );
    }
    s
}

fn compare_markdown(ours: &MeasResult, otp_rows: &[Row], codecs: &[Codec]) -> String {
    let mut s = String::from(
        "| Ours | OTP | Messages | Ours total (µs) | OTP total (µs) | OTP/ours encode | OTP/ours decode | OTP/ours total |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for p in pairs(ours, otp_rows, codecs) {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.3} | {:.3} | {:.1} | {:.1} | {:.1} |",
            p.ours.codec,
            p.otp.codec,
            p.ours.messages,
            p.ours.total_us,
            p.otp.total_us,
            p.otp.encode_us / p.ours.encode_us,
            p.otp.decode_us / p.ours.decode_us,
            p.otp.total_us / p.ours.total_us
        );
    }
    s
}

fn run_mstone(
    c: &CommonArgs,
    loaded: &Samples,
    codecs: &[Codec],
    m: &MstoneArgs,
) -> anyhow::Result<()> {
    let secs = if c.quick { 1.0 } else { m.time };
    let duration = Duration::from_secs_f64(secs.clamp(0.01, 86_400.0));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = m.threads.unwrap_or(cores).max(1);
    let prepared = mstone::prepare(&loaded.samples, codecs);
    println!(
        "megaco {} — {} messages, {} codec configs",
        env!("CARGO_PKG_VERSION"),
        loaded.samples.len(),
        prepared.len()
    );
    let mut ours1 = None;
    if m.mode != MstoneMode::Mstone2 {
        let r = mstone::mstone1(&prepared, m.factor, threads, duration);
        print!("\n{}", mstone::report(&r));
        ours1 = Some(r);
        if !m.no_scaling && cores > 1 {
            println!("\nmstone1 scaling:");
            println!("{:>7} | {:>12} | {:>12}", "Threads", "MStone", "Ops/s");
            for t in 1..=cores {
                let r = mstone::mstone1(&prepared, m.factor, t, duration);
                println!(
                    "{:>7} | {:>12} | {:>12.0}",
                    t,
                    r.total,
                    r.total as f64 / r.seconds
                );
            }
        }
    }
    if m.mode != MstoneMode::Mstone1 {
        let r = mstone::mstone2(&prepared, m.factor, threads, duration);
        print!("\n{}", mstone::report(&r));
    }
    if m.isolated {
        run_isolated(c, loaded, codecs, &prepared, m, secs, threads)?;
    }
    if c.vs_otp {
        let otp = run_otp(
            loaded,
            &["mstone".into(), secs.to_string(), m.factor.to_string()],
        )?;
        let (otp_total, otp_secs) = otp.total.unwrap_or((0, secs));
        println!(
            "\nErlang/OTP mstone1 ({} runner(s) per config, {:.1} s):",
            m.factor, otp_secs
        );
        println!(
            "{:<40} | {:>12} | {:>12}",
            "Codec and config", "Operations", "Ops/s"
        );
        for (name, n) in &otp.mstone {
            println!("{:<40} | {:>12} | {:>12.0}", name, n, *n as f64 / otp_secs);
        }
        println!(
            "{:<40} | {:>12} | {:>12.0}",
            "MStone (total)",
            otp_total,
            otp_total as f64 / otp_secs
        );
        if let Some(ours) = ours1 {
            println!("\nours / OTP (throughput ratio per matching config):");
            for cfg in codecs {
                let Some(otp_name) = cfg.otp else { continue };
                let mine = ours.per_codec.iter().find(|(n, _)| n == cfg.name);
                let theirs = otp.mstone.iter().find(|(n, _)| n == otp_name);
                if let (Some((_, a)), Some((_, b))) = (mine, theirs) {
                    if *b > 0 {
                        let ra = *a as f64 / ours.seconds;
                        let rb = *b as f64 / otp_secs;
                        println!("{:<28} vs {:<40} {:>8.1}x", cfg.name, otp_name, ra / rb);
                    }
                }
            }
            println!(
                "Note: all configs share the cores in both runs (ours {} configs, OTP {}); \
                 how a runtime shares them (Erlang: by reductions; ours: equal time slices) \
                 weighs on these per-config ratios, see --isolated.",
                ours.per_codec.len(),
                otp.mstone.len()
            );
        }
    }
    Ok(())
}

/// mstone1 of each configuration alone, ours and (with --vs-otp) OTP's.
fn run_isolated(
    c: &CommonArgs,
    loaded: &Samples,
    codecs: &[Codec],
    prepared: &[mstone::Prepared],
    m: &MstoneArgs,
    secs: f64,
    threads: usize,
) -> anyhow::Result<()> {
    let duration = Duration::from_secs_f64(secs.clamp(0.01, 86_400.0));
    // Enough runners to keep every thread busy, on both sides.
    let runners = m.factor.max(1) * threads;
    println!("\nmstone1, each config alone ({threads} threads, {runners} runners, {secs} s each):");
    let mut ours = Vec::new();
    for p in prepared {
        let r = mstone::mstone1(std::slice::from_ref(p), runners, threads, duration);
        if let Some((name, n)) = r.per_codec.first() {
            let rate = *n as f64 / r.seconds;
            println!("{name:<28} | {rate:>12.0} ops/s");
            ours.push((name.clone(), rate));
        }
    }
    if !c.vs_otp {
        return Ok(());
    }
    anyhow::ensure!(
        otp::available(),
        "--vs-otp needs `escript` and Erlang/OTP's megaco application"
    );
    let mut otp_names: Vec<&str> = Vec::new();
    for cfg in codecs {
        if let Some(o) = cfg.otp {
            if !otp_names.contains(&o) {
                otp_names.push(o);
            }
        }
    }
    println!("\nErlang/OTP mstone1, each config alone ({runners} runners):");
    let mut theirs = Vec::new();
    for name in otp_names {
        let run = otp::run(
            &loaded.samples,
            &loaded.codec,
            &[
                "mstone".into(),
                secs.to_string(),
                runners.to_string(),
                name.to_string(),
            ],
        )?;
        if let (Some((_, n)), Some((_, s))) = (run.mstone.first(), run.total) {
            let rate = *n as f64 / s;
            println!("{name:<40} | {rate:>12.0} ops/s");
            theirs.push((name, rate));
        }
    }
    println!("\nours / OTP, each config alone (throughput ratio):");
    for cfg in codecs {
        let Some(otp_name) = cfg.otp else { continue };
        let a = ours.iter().find(|(n, _)| n == cfg.name);
        let b = theirs.iter().find(|(n, _)| *n == otp_name);
        if let (Some((_, a)), Some((_, b))) = (a, b) {
            if *b > 0.0 {
                println!("{:<28} vs {:<40} {:>8.1}x", cfg.name, otp_name, a / b);
            }
        }
    }
    Ok(())
}
