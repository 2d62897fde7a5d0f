//! The `stack` row of the fan-out: the same requests through
//! `megaco_stack`'s UDP driver (a tokio task owning one engine per
//! gateway), as a library user would send them.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use megaco::model::{ContextId, Mid, TransactionResult};
use megaco_stack::engine::Config;
use megaco_stack::udp;

use super::{row, FanoutConfig, Request, SetupResult};
use crate::msg::{self, Expect};
use crate::Errors;

pub(super) fn run(cfg: &FanoutConfig, gateways: &[SocketAddr]) -> anyhow::Result<SetupResult> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(fan(cfg, gateways))
}

async fn fan(cfg: &FanoutConfig, gateways: &[SocketAddr]) -> anyhow::Result<SetupResult> {
    let mut config = Config::new(Mid::Device("mgc".into()));
    config.version = cfg.version;
    config.encoding = cfg.wire.clone();
    config.transport.max_peers = gateways.len() + 16;
    // As a user on loopback would set it: a datagram lost in a burst
    // (the driver's socket keeps the system's default buffer) is resent
    // after 100 ms, within the round's timeout.
    let resends = (cfg.timeout.as_millis() / 100).clamp(1, 50) as u32;
    config.request_timer.initial = Duration::from_millis(100);
    config.request_timer.factor = 1;
    config.request_timer.max_interval = Duration::from_millis(100);
    config.request_timer.max_retries = resends - 1;
    let (endpoint, _incoming) = udp::bind(SocketAddr::from(([127, 0, 0, 1], 0)), config)
        .await
        .context("binding the stack's socket")?;
    let (action, expect) = match cfg.request {
        Request::Modify => (
            msg::modify(ContextId::NULL, msg::termination(crate::farm::PREFIX, 0)),
            Expect::Modify,
        ),
        _ => (msg::audit_root(), Expect::Audit),
    };
    let handle = endpoint.connection(gateways[0]).handle().clone();
    let mut result = SetupResult::new("stack".into());
    for &n in &cfg.ns {
        let mut passes = Vec::new();
        for _ in 0..cfg.passes.max(1) {
            let t0 = Instant::now();
            let mut pending = Vec::with_capacity(n);
            for &to in &gateways[..n.min(gateways.len())] {
                pending.push(handle.send_request_to(to, vec![action.clone()]).await);
            }
            let mut r = super::shard::ShardRound::default();
            let mut errors = Errors::default();
            for p in pending {
                let answer = match p {
                    Ok(request) => {
                        tokio::time::timeout(cfg.timeout + Duration::from_secs(1), request).await
                    }
                    Err(e) => Ok(Err(e)),
                };
                match answer {
                    Ok(Ok(TransactionResult::ActionReplies(a))) => {
                        match msg::check_reply(expect, &TransactionResult::ActionReplies(a)) {
                            Ok(_) => r.answered += 1,
                            Err(_) => errors.mismatched += 1,
                        }
                    }
                    Ok(Ok(TransactionResult::Error(_))) => errors.error_replies += 1,
                    _ => r.timeouts += 1,
                }
            }
            r.wall = t0.elapsed();
            r.errors = errors;
            passes.push(r);
        }
        let mut row = row(n, &passes);
        // The driver's stages are not separated.
        row.profile = None;
        result.rows.push(row);
    }
    Ok(result)
}
