//! `megaco mgc`: a controller on UDP and TCP, text and binary ports at
//! once, answering every request (scenario rules, then the defaults).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use megaco_stack::scenario::{Role, TermIdStyle};
use megaco_stack::{tcp, udp, Inbound, Incoming};
use serde_json::json;
use tokio::sync::mpsc;

use super::log::{addr, Log, LogArgs};
use super::serve::{self, Server};
use super::show::mid_text;
use super::{
    config, domain, runtime, stop_signal, Common, EngineArgs, Tally, WireEncoding, MID_HELP,
};

/// `megaco mgc`.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("mid", |a| a.help(MID_HELP.to_string() + " [default: <mgc>]")))]
pub struct MgcArgs {
    /// Listen on this one address only, in the encoding --encoding names
    /// (pretty text by default), instead of the text and binary ports.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// The address the text and binary ports are opened on.
    #[arg(long, value_name = "IP", default_value_t = IpAddr::V4(Ipv4Addr::UNSPECIFIED))]
    pub host: IpAddr,
    /// The text port (RFC 3525 D.1; 0 picks a free one).
    #[arg(long, value_name = "PORT", default_value_t = 2944)]
    pub text_port: u16,
    /// The binary (BER, PER) port (RFC 3525 D.2; 0 picks a free one).
    #[arg(long, value_name = "PORT", default_value_t = 2945)]
    pub binary_port: u16,
    /// TCP only (TPKT framing).
    #[arg(long, conflicts_with = "udp")]
    pub tcp: bool,
    /// UDP only.
    #[arg(long)]
    pub udp: bool,
    /// Exit after answering N requests.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,
    /// Answer as this scenario file's rules say (see the README).
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub log: LogArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Runs `megaco mgc`.
pub fn mgc(args: MgcArgs) -> Result<ExitCode> {
    runtime()?.block_on(run(args))
}

/// One listening socket's traffic, tagged with how to answer it.
struct Tagged {
    style: TermIdStyle,
    item: Inbound,
}

/// The ports to open: the encoding of each and its address.
fn ports(args: &MgcArgs) -> Vec<(WireEncoding, SocketAddr)> {
    match (args.listen, args.common.encoding) {
        (Some(a), e) => vec![(e.unwrap_or(WireEncoding::Pretty), a)],
        (None, Some(e)) => {
            let port = if e.is_binary() {
                args.binary_port
            } else {
                args.text_port
            };
            vec![(e, SocketAddr::new(args.host, port))]
        }
        (None, None) => vec![
            (
                WireEncoding::Pretty,
                SocketAddr::new(args.host, args.text_port),
            ),
            (
                WireEncoding::Ber,
                SocketAddr::new(args.host, args.binary_port),
            ),
        ],
    }
}

async fn run(args: MgcArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let c = &args.common;
    let scenario = super::scenario(args.scenario.as_ref())?;
    let mid = c.mid.clone().unwrap_or_else(|| domain("mgc"));
    let version = c.version.unwrap_or(1);
    let (log, writer) = Log::start(&args.log)?;
    let tally = Arc::new(Tally::default());
    // Installed before the first line, so that a signal right after it is
    // caught.
    let stop = stop_signal().context("installing the signal handlers")?;
    let (tx, mut rx) = mpsc::channel::<Tagged>(1024);
    let mut watch = Watch::default();
    let mut max_peers = 0;
    for (encoding, at) in ports(&args) {
        let config = config(
            mid.clone(),
            version,
            encoding.encoding(c.dialect),
            &args.engine,
        );
        max_peers += config.transport.max_peers;
        let style = if encoding.is_binary() {
            TermIdStyle::Binary
        } else {
            TermIdStyle::Text
        };
        let kind = if encoding.is_binary() {
            encoding.name()
        } else {
            "text"
        };
        let mut bound = at;
        if !args.tcp {
            let (endpoint, incoming) = udp::bind(at, config.clone())
                .await
                .with_context(|| format!("listening on udp {at}"))?;
            bound = endpoint.local_addr();
            listening(&log, "udp", bound, kind);
            watch.endpoints.push(endpoint);
            tokio::spawn(forward(incoming, style, tx.clone()));
        }
        if !args.udp {
            // The same port as UDP's, when that one was picked freely.
            let listener = tcp::Listener::bind(bound, config)
                .await
                .with_context(|| format!("listening on tcp {bound}"))?;
            listening(&log, "tcp", listener.local_addr()?, kind);
            let listener = Arc::new(listener);
            watch.listeners.push(listener.clone());
            tokio::spawn(accept(listener, style, tx.clone(), log.clone()));
        }
    }
    drop(tx);
    log.warn(
        "started",
        || {
            format!(
                "mgc: mid {}, v{version}; SIGINT or SIGTERM to stop",
                mid_text(&mid)
            )
        },
        || json!({ "mid": mid_text(&mid), "version": version }),
    );

    let role = Role::Mgc {
        mid: mid.clone(),
        max_version: 3,
    };
    let mut server = Server::new(log.clone(), tally.clone(), role, scenario.rules, max_peers);
    let mut served: u64 = 0;
    tokio::pin!(stop);
    let mut report =
        tokio::time::interval_at(tokio::time::Instant::now() + REPORT_EVERY, REPORT_EVERY);
    let ended = loop {
        tokio::select! {
            sig = &mut stop => break format!("mgc: stopped by {sig}"),
            _ = report.tick() => watch.report(&log),
            item = rx.recv() => match item {
                None => break "mgc: every socket closed".to_string(),
                Some(Tagged { style, item: Inbound::Request(req) }) => {
                    server.request(req, style);
                    served += 1;
                    if args.count == Some(served) {
                        break format!("mgc: answered {served} requests");
                    }
                }
                Some(Tagged { item: Inbound::Event { peer, event }, .. }) => {
                    serve::event(&log, &tally, peer.addr, &event)
                }
                Some(Tagged { item: Inbound::Closed { peer, error }, .. }) => {
                    let why = error.map(|e| format!(": {e}")).unwrap_or_default();
                    log.info(
                        "closed",
                        || format!("-- {peer} closed{why}"),
                        || json!({ "peer": addr(peer.addr), "error": why.trim_start_matches(": ") }),
                    );
                }
                Some(_) => {}
            }
        }
    };
    // The replies under way go out before the process ends.
    server.drain(Duration::from_secs(5)).await;
    drop(watch);
    tally.summary(&log, &ended, started);
    writer.finish(log, Duration::from_secs(1));
    Ok(ExitCode::SUCCESS)
}

/// How often what the transports refused or dropped is reported (when
/// it grew).
const REPORT_EVERY: Duration = Duration::from_secs(10);

/// The sockets' counters of what they refused or dropped to bound their
/// memory, and of the log's dropped lines, as last reported.
#[derive(Default)]
struct Watch {
    endpoints: Vec<udp::Endpoint>,
    listeners: Vec<Arc<tcp::Listener>>,
    last: [u64; 6],
}

impl Watch {
    /// Logs, once per interval, what grew since the last report.
    fn report(&mut self, log: &Log) {
        let mut now = [0u64; 6];
        for e in &self.endpoints {
            let s = e.stats();
            now[0] += s.peers_refused;
            now[1] += s.peers_expired;
            now[2] += s.requests_refused;
            now[3] += s.events_dropped;
        }
        now[4] = self.listeners.iter().map(|l| l.refused()).sum();
        now[5] = log.dropped();
        const WHAT: [&str; 6] = [
            "messages from new UDP peers refused (peer table full)",
            "idle UDP peers forgotten",
            "requests refused with error 503 (queue full)",
            "events dropped (queue full)",
            "TCP connections refused (connection limit)",
            "log lines dropped (output full or closed)",
        ];
        let grew: Vec<String> = now
            .iter()
            .zip(self.last)
            .zip(WHAT)
            .filter(|((n, l), _)| *n > l)
            .map(|((n, l), what)| format!("{} {what}", n - l))
            .collect();
        self.last = now;
        if grew.is_empty() {
            return;
        }
        const KEYS: [&str; 6] = [
            "udp_peers_refused",
            "udp_peers_expired",
            "requests_refused",
            "events_dropped",
            "tcp_connections_refused",
            "log_lines_dropped",
        ];
        let text = grew.join(", ");
        log.warn(
            "limits",
            || format!("mgc: in the last {} s: {text}", REPORT_EVERY.as_secs()),
            || {
                let mut v = json!({ "seconds": REPORT_EVERY.as_secs() });
                for (k, n) in KEYS.iter().zip(now) {
                    v[*k] = json!(n);
                }
                v
            },
        );
    }
}

fn listening(log: &Log, transport: &str, at: SocketAddr, kind: &str) {
    log.notice(
        "listening",
        || format!("listening on {transport} {at} {kind}"),
        || json!({ "transport": transport, "address": addr(at), "encoding": kind }),
    );
}

async fn forward(mut incoming: Incoming, style: TermIdStyle, tx: mpsc::Sender<Tagged>) {
    while let Some(item) = incoming.recv().await {
        if tx.send(Tagged { style, item }).await.is_err() {
            return;
        }
    }
}

async fn accept(
    listener: Arc<tcp::Listener>,
    style: TermIdStyle,
    tx: mpsc::Sender<Tagged>,
    log: Log,
) {
    loop {
        match listener.accept().await {
            Ok((conn, incoming)) => {
                let peer = conn.peer_addr();
                log.info(
                    "connected",
                    || format!("-- {peer} connected"),
                    || json!({ "peer": addr(peer) }),
                );
                tokio::spawn(forward(incoming, style, tx.clone()));
            }
            Err(e) => {
                log.warn(
                    "error",
                    || format!("megaco: accept: {e}"),
                    || json!({ "error": e.to_string() }),
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}
