//! The `otp` row of the fan-out: Erlang/OTP's megaco as the controller
//! (`megaco:cast/3` to every registered gateway, replies through
//! `handle_trans_reply`), fanning out to the same simulated gateways.

use std::time::Duration;

use anyhow::{bail, Context as _};
use megaco::codec::Encoding;

use super::{FanoutConfig, Request, Row, SetupResult};
use crate::farm::{Farm, FarmConfig};
use crate::otp::OtpNode;
use crate::{msg, Errors};

/// Runs the rounds through OTP; returns its table and the node's facts.
pub(super) fn run(
    cfg: &FanoutConfig,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<(SetupResult, Vec<(String, String)>)> {
    let codec = crate::otp_codec(&cfg.wire)?;
    let max = cfg.ns.iter().copied().max().unwrap_or(1);
    let mut node = OtpNode::fanout(codec, cfg.version, Duration::from_secs(900))?;
    progress(&format!(
        "otp: registering {max} simulated gateways with OTP's controller"
    ));
    // The gateways get as many threads as in our multiple setups: the
    // most the farm gives any of our controllers, and OTP's controller
    // gains from it too (paired runs at N = 101-901: 36.5 µs per
    // destination against 39.6 with one thread).
    let farm = Farm::start(FarmConfig {
        mgs: max,
        threads: cfg.multiple_shards(),
        wire: cfg.wire.clone(),
        version: cfg.version,
        register_to: vec![std::net::SocketAddr::from(([127, 0, 0, 1], node.port))],
        sockets: cfg.sockets,
        ..FarmConfig::default()
    })?;
    farm.wait_registered(Duration::from_secs(30) + Duration::from_millis(3 * max as u64));
    let known = node.registered()?;
    if known < max {
        bail!("only {known} of {max} gateways registered with OTP's controller");
    }
    let action = match cfg.request {
        Request::Modify => msg::modify(
            megaco::model::ContextId::NULL,
            msg::termination(crate::farm::PREFIX, 0),
        ),
        _ => msg::audit_root(),
    };
    let mid = crate::farm::mid_of(std::net::SocketAddr::from(([127, 0, 0, 1], node.port)));
    let text = Encoding::pretty()
        .encode(&msg::request(mid, cfg.version, 1, vec![action]))
        .context("encoding the request for OTP")?;
    let mut result = SetupResult::new("otp".into());
    for &n in &cfg.ns {
        progress(&format!("otp: N = {n}"));
        let cpu0 = settle(node.pid);
        let passes = node.round(n, cfg.passes.max(1), &text)?;
        // The node's CPU time over all the passes: read in 10 ms ticks, so
        // the mean over them rather than the least of them, and none when
        // under 20 ticks were counted (too coarse to tell).
        let cpu = crate::cpu::since(cpu0, crate::cpu::of_process(node.pid))
            .filter(|d| *d >= Duration::from_millis(200))
            .map(|d| d.as_secs_f64() * 1e6 / (n.max(1) * passes.len().max(1)) as f64);
        let best = passes.iter().map(|p| p.micros).min().unwrap_or(0) as f64;
        let answered: u64 = passes.iter().map(|p| p.answered).sum();
        let errors: u64 = passes.iter().map(|p| p.errors).sum();
        result.rows.push(Row {
            destinations: n,
            time_us: best,
            per_destination_us: best / n.max(1) as f64,
            profile: None,
            cpu_per_destination_us: cpu,
            process_cpu_per_destination_us: cpu,
            sent: (n * passes.len()) as u64,
            answered,
            timeouts: 0,
            errors: Errors {
                error_replies: errors,
                ..Errors::default()
            },
        });
    }
    farm.stop();
    Ok((result, node.info.clone()))
}

/// Waits (up to 5 s) until the node is idle, so that what it still does
/// for the registrations or the last round is not charged to the next
/// one; returns its CPU time then.
fn settle(pid: u32) -> Option<Duration> {
    let mut last = crate::cpu::of_process(pid)?;
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        let now = crate::cpu::of_process(pid)?;
        // At most one 10 ms tick in 100 ms.
        if now.saturating_sub(last) <= Duration::from_millis(10) {
            return Some(now);
        }
        last = now;
    }
    Some(last)
}
