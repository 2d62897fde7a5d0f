//! `megaco bench mstone`: the runs, their console tables and OTP's side.
use std::time::Duration;

use megaco::codec::Encoding;

use crate::samples::Samples;
use crate::{codecs, mstone, otp, run_otp, CommonArgs, MstoneArgs, MstoneMode};

/// Seconds per run with `--quick`.
pub const QUICK_SECS: f64 = 0.25;

/// Runs `megaco bench mstone`.
pub fn run(
    c: &CommonArgs,
    loaded: &Samples,
    codecs: &[Encoding],
    m: &MstoneArgs,
) -> anyhow::Result<()> {
    let secs = if c.quick { QUICK_SECS } else { m.time };
    let duration = Duration::from_secs_f64(secs.clamp(0.01, 86_400.0));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = m.threads.unwrap_or(cores).max(1);
    let prepared = mstone::prepare(&loaded.samples, codecs);
    println!(
        "megaco {} mstone ({}): {}, {} messages, {} codec configs, {secs} s per run",
        env!("CARGO_PKG_VERSION"),
        crate::build(),
        loaded.origin,
        loaded.samples.len(),
        prepared.len()
    );
    println!("An operation is one decode or one encode of one message.");
    let mut ours1 = None;
    if m.mode != MstoneMode::Mstone2 {
        let r = mstone::mstone1(&prepared, m.factor, threads, duration);
        print!("\n{}", mstone::report(&r));
        ours1 = Some(r);
        if !m.no_scaling && cores > 1 {
            println!("\nmstone1 scaling:");
            println!(
                "{:>7} | {:>12} | {:>14}",
                "Threads", "MStone (ops)", "Rate (ops/s)"
            );
            for t in 1..=cores {
                let r = mstone::mstone1(&prepared, m.factor, t, duration);
                println!(
                    "{:>7} | {:>12} | {:>14.0}",
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
    if !c.vs_otp {
        return Ok(());
    }
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
        "Codec and config", "Operations", "Rate (ops/s)"
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
            let Some(otp_name) = codecs::otp_twin(cfg) else {
                continue;
            };
            let name = cfg.to_string();
            let mine = ours.per_codec.iter().find(|(n, _)| *n == name);
            let theirs = otp.mstone.iter().find(|(n, _)| n == otp_name);
            if let (Some((_, a)), Some((_, b))) = (mine, theirs) {
                if *b > 0 {
                    let ra = *a as f64 / ours.seconds;
                    let rb = *b as f64 / otp_secs;
                    println!("{:<28} vs {:<40} {:>8.1}x", name, otp_name, ra / rb);
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
    Ok(())
}

/// mstone1 of each configuration alone, ours and (with --vs-otp) OTP's.
fn run_isolated(
    c: &CommonArgs,
    loaded: &Samples,
    codecs: &[Encoding],
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
        if let Some(o) = codecs::otp_twin(cfg) {
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
        let Some(otp_name) = codecs::otp_twin(cfg) else {
            continue;
        };
        let name = cfg.to_string();
        let a = ours.iter().find(|(n, _)| *n == name);
        let b = theirs.iter().find(|(n, _)| *n == otp_name);
        if let (Some((_, a)), Some((_, b))) = (a, b) {
            if *b > 0.0 {
                println!("{:<28} vs {:<40} {:>8.1}x", name, otp_name, a / b);
            }
        }
    }
    Ok(())
}
