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
//! - [`otp`]: the same measurements of OTP's codecs (`--vs-otp`), and
//!   [`compare`]: the OTP/ours ratio per matching configuration.
//! - [`codecs`]: the configurations measured, the library's named
//!   [`megaco::codec::Encoding`]s, each beside its OTP twin.
//! - [`samples`]: the corpus; Erlang/OTP's `time_test.msgs` is embedded
//!   ([`samples::BUNDLED`]) and used when no corpus is given.
//!
//! The command-line entry points are [`run_bench`] (`megaco bench`) and
//! [`run_transform`] (`megaco transform`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod charts;
pub mod codecs;
pub mod compare;
pub mod floor;
pub mod meas;
pub mod mstone;
mod mstone_run;
pub mod otp;
pub mod report;
pub mod samples;
pub mod transform;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use megaco::codec::Encoding;

use crate::meas::MeasResult;
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
    /// directory of one-message files [default: the bundled corpus,
    /// Erlang/OTP's time_test.msgs, 149 messages].
    #[arg(long, global = true)]
    pub corpus: Option<PathBuf>,
    /// Measure only this codec config (name or slug, e.g. `native-compact`);
    /// repeatable [default: all].
    #[arg(long = "codec", global = true)]
    pub codecs: Vec<String>,
    /// Measure only this message; repeatable [default: all].
    #[arg(long = "message", global = true)]
    pub messages: Vec<String>,
    /// Measure only the first N messages.
    #[arg(long, global = true)]
    pub limit: Option<usize>,
    /// Also measure Erlang/OTP's codecs on the same messages (needs
    /// `escript` and OTP's megaco application) and print OTP/ours ratios;
    /// with `fanout`, fan out from OTP's controller too.
    #[arg(long, global = true)]
    pub vs_otp: bool,
    /// Without a subcommand, leave OTP's codecs out (they are included
    /// whenever `escript` and OTP's megaco are found).
    #[arg(long, global = true)]
    pub no_otp: bool,
    /// A smoke run of a few seconds, whatever --factor and --time say
    /// (meas: 0.2 ms per operation and message; mstone: 0.25 s per run).
    #[arg(long, global = true)]
    pub quick: bool,
    /// No progress bar.
    #[arg(long, global = true)]
    pub no_progress: bool,
}

/// `megaco bench meas`.
#[derive(clap::Args, Debug, Clone)]
pub struct MeasArgs {
    /// Time per operation and message is 1 s × FACTOR (OTP's meas uses
    /// 1), above 0 and at most 1000.
    #[arg(long, default_value_t = 1.0, value_parser = bounded_f64::<1000>)]
    pub factor: f64,
    /// Write meas.tsv, meas.json, summary.md and the charts (and with
    /// --vs-otp otp-meas.tsv and comparison.md) into DIR, created if
    /// needed [default: tables on the console only].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `megaco bench mstone`.
#[derive(clap::Args, Debug, Clone)]
pub struct MstoneArgs {
    /// Seconds each run lasts, above 0 and at most 86400.
    #[arg(long, default_value_t = 10.0, value_parser = bounded_f64::<86400>)]
    pub time: f64,
    /// Runners (mstone1) or worker drivers (mstone2) per codec config (at
    /// least 1).
    #[arg(long, default_value_t = 1,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
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

/// A number above 0 and at most `MAX`, for the options that set how long
/// a benchmark runs: NaN, infinities and negative numbers are refused
/// rather than clamped into a run that never ends or means nothing.
fn bounded_f64<const MAX: u32>(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v > 0.0 && v <= f64::from(MAX) {
        Ok(v)
    } else {
        Err(format!("must be above 0 and at most {MAX}"))
    }
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
    /// The corpus (term file or directory) [default: the bundled corpus];
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

/// Runs `megaco transform`: the number of (message, encoding) pairs left
/// out, because the message does not decode or an encoder refuses it
/// (each is named on standard error). A corpus of which no message
/// decodes is an error.
pub fn run_transform(args: &TransformArgs) -> anyhow::Result<usize> {
    let (corpus, out) = match &args.second {
        Some(out) => (Some(args.first.as_path()), out.as_path()),
        None => (None, args.first.as_path()),
    };
    if corpus.is_none() && out.is_file() {
        anyhow::bail!(
            "{}: is a file, and a single argument is the output directory \
             (`megaco transform OUTDIR` writes the bundled corpus); to transform it, \
             give the output directory too: `megaco transform {} OUTDIR`",
            out.display(),
            out.display()
        );
    }
    let loaded = samples::load(corpus, &[], None)?;
    report_skipped(&loaded);
    anyhow::ensure!(
        !loaded.samples.is_empty(),
        "no message of {} could be decoded",
        loaded.origin
    );
    let codecs = codecs::select(&args.codecs)?;
    println!(
        "{}: {} messages in {} encodings",
        loaded.origin,
        loaded.samples.len(),
        codecs.len()
    );
    let mut left_out = loaded.skipped.len() * codecs.len();
    for w in transform::write(&loaded.samples, &codecs, out)? {
        println!("{:<30} {:>4} files  {}", w.codec, w.files, w.dir.display());
        for (m, e) in &w.failures {
            eprintln!("  {m}: {e}");
        }
        left_out += w.failures.len();
    }
    Ok(left_out)
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

/// Time per operation and message of the default comparison (1 ms) and of
/// `--quick` runs (0.2 ms), as a factor of OTP's 1 s.
const COMPARISON_FACTOR: f64 = 0.001;
const QUICK_FACTOR: f64 = 0.0002;

/// Runs `megaco bench`.
pub fn run_bench(args: &BenchArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let c = &args.common;
    let loaded = samples::load(c.corpus.as_deref(), &c.messages, c.limit)?;
    report_skipped(&loaded);
    anyhow::ensure!(
        !loaded.samples.is_empty(),
        "no message of {} could be decoded",
        loaded.origin
    );
    let codecs = codecs::select(&c.codecs)?;
    match &args.command {
        None => {
            let factor = if c.quick {
                QUICK_FACTOR
            } else {
                COMPARISON_FACTOR
            };
            // The quick comparison includes OTP's codecs whenever they run.
            let mut c = c.clone();
            if !c.vs_otp && !c.no_otp {
                c.vs_otp = otp::available();
                if !c.vs_otp {
                    eprintln!("Erlang/OTP's megaco not found (escript); measuring ours only");
                }
            }
            run_meas(&c, &loaded, &codecs, factor, None)?;
            println!(
                "\nDone in {:.1} s. `megaco bench meas --out DIR` measures longer (1 s per \
                 operation and message, as OTP's meas) and writes TSV, JSON and charts.",
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Some(BenchCommand::Meas(m)) => {
            let factor = if c.quick { QUICK_FACTOR } else { m.factor };
            if let Some(dir) = &m.out {
                // Before the run, not after it: a name that cannot be a
                // directory loses no measurement.
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            run_meas(c, &loaded, &codecs, factor, m.out.as_deref())?;
            println!("\nDone in {:.1} s.", started.elapsed().as_secs_f64());
            Ok(())
        }
        Some(BenchCommand::Mstone(m)) => mstone_run::run(c, &loaded, &codecs, m),
    }
}

/// How this binary was built, as the benchmark reports say in their first
/// line: figures from a debug build mean little, and a profile-guided
/// build (`scripts/pgo.sh`, which sets `MEGACO_BUILD=pgo` at compile time)
/// decodes faster than a plain release build of the same source.
///
/// ```
/// println!("measured in a {}", megaco_bench::build());
/// ```
pub fn build() -> &'static str {
    if cfg!(debug_assertions) {
        "debug build"
    } else if option_env!("MEGACO_BUILD") == Some("pgo") {
        "profile-guided release build"
    } else {
        "release build"
    }
}

fn budget(factor: f64) -> Duration {
    Duration::from_secs_f64(factor.clamp(1e-6, 1e6))
}

/// Seconds a meas of `pairs` (message, config) pairs takes at `factor`:
/// two operations each, warmed up for a tenth of their time (a little
/// more, as the warm-up doubles its batches).
fn meas_seconds(pairs: usize, factor: f64) -> f64 {
    pairs as f64 * 2.0 * 1.25 * factor
}

/// How long a run will take, for the user: `about 12 s`, `about 4 min`.
fn about(secs: f64) -> String {
    if secs < 90.0 {
        format!("about {:.0} s", secs.max(1.0))
    } else if secs < 5400.0 {
        format!("about {:.0} min", secs / 60.0)
    } else {
        format!("about {:.1} h", secs / 3600.0)
    }
}

/// Startup of the OTP escript (the VM, megaco, decoding the corpus).
const OTP_STARTUP_SECS: f64 = 1.5;
/// OTP's configurations (with the `[flex]` scanner ones).
const OTP_CONFIGS: usize = 12;

fn run_meas(
    c: &CommonArgs,
    loaded: &Samples,
    codecs: &[Encoding],
    factor: f64,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    let n = loaded.samples.len();
    let mut expected = meas_seconds(n * codecs.len(), factor);
    // The floor rows: up to three operations per config, 10 × factor s each.
    expected += codecs.len() as f64 * 3.0 * 10.0 * factor;
    if c.vs_otp {
        expected += OTP_STARTUP_SECS + meas_seconds(n * OTP_CONFIGS, factor);
    }
    println!(
        "megaco {} meas ({}): {}, {n} messages × {} codec configs{}",
        env!("CARGO_PKG_VERSION"),
        build(),
        loaded.origin,
        codecs.len(),
        if c.vs_otp {
            ", then Erlang/OTP's codecs on the same messages"
        } else {
            ""
        }
    );
    println!(
        "Measures per message the encoded size (bytes) and the mean time of one encode and \
         one decode (µs), {} ms per operation and message; {}.",
        factor * 1000.0,
        about(expected)
    );
    let bar = if c.no_progress {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new((n * codecs.len()) as u64)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg} (eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let result = meas::run(&loaded.samples, codecs, budget(factor), |codec, s| {
        bar.set_message(format!("{codec} {}", s.name));
        bar.inc(1);
    });
    bar.finish_and_clear();
    for f in &result.failures {
        eprintln!("{} {}: {}", f.codec, f.message, f.error);
    }
    println!("\nOurs (means per message):");
    print!("{}", report::console_table(&result.summary()));
    println!(
        "\nDistance from the bytes (means per message; decoders as multiples of the scan floor):"
    );
    // Each operation over the whole corpus for 10 × FACTOR s.
    let floors = floor::run(&loaded.samples, codecs, budget(factor) * 10);
    print!("{}", floor::console_table(&floors));
    let otp_rows = if c.vs_otp {
        let otp = run_otp(loaded, &["meas".to_string(), factor.to_string()])?;
        print!("{}", compare::console(&result, &otp.rows, codecs));
        if let Some(dir) = out {
            write_otp(dir, &result, &otp, codecs)?;
        }
        otp.rows
    } else {
        Vec::new()
    };
    match out {
        Some(dir) => {
            let mut written = report::write_all(&result, &otp_rows, dir)
                .with_context(|| format!("writing results to {}", dir.display()))?;
            // The distance table times each decoder again, in turns with
            // its floor: its means are its own, not the table above's.
            let floor_txt = dir.join("floor.txt");
            std::fs::write(
                &floor_txt,
                format!(
                    "Distance from the bytes (means per message, measured in turns with the floor; decoders as multiples of the scan floor):\n\n{}",
                    floor::console_table(&floors)
                ),
            )
            .with_context(|| format!("writing {}", floor_txt.display()))?;
            written.push(floor_txt);
            println!("\nWrote {} files to {}", written.len(), dir.display());
        }
        None => println!("\n(no files written: --out DIR writes TSV, JSON, Markdown and charts)"),
    }
    Ok(())
}

fn write_otp(
    dir: &Path,
    ours: &MeasResult,
    otp: &otp::OtpRun,
    codecs: &[Encoding],
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let otp_result = MeasResult {
        rows: otp.rows.clone(),
        failures: otp.failures.clone(),
    };
    let tsv = dir.join("otp-meas.tsv");
    std::fs::write(&tsv, report::tsv(&otp_result))
        .with_context(|| format!("writing {}", tsv.display()))?;
    let md = dir.join("comparison.md");
    std::fs::write(&md, compare::markdown(ours, &otp.rows, codecs))
        .with_context(|| format!("writing {}", md.display()))?;
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
