//! Talking to peers through the transaction stack (`megaco-stack`): the
//! `mgc`, `mg` and `send` subcommands.
//!
//! Every message sent or received is a line of the log (standard output,
//! or `--log FILE`): a timestamp, `->` for what we send or `<-` for what we
//! receive, the peer's address (for requests received, followed by the
//! sender's mid), then the transaction in compact text (`--pretty`: pretty
//! text under the line; `--json`: one JSON object per line). Warnings and
//! errors go to standard error. The log never holds up the stack: lines
//! that cannot be written at once (a full or closed output) are dropped
//! and counted ([`log`]).
//!
//! Exit status of `mg` and `send`: 0 when every request got a reply
//! without an error descriptor (`mg --scenario`: the script passed), 1
//! when a reply carried one (or did not meet the script), 3 when a request
//! got no reply (timeout, connection refused, closed or not made within
//! the timeout), 2 for anything else (bad arguments, unreadable file, a
//! step the scenario rejects, a request that cannot be encoded, a stop by
//! SIGINT or SIGTERM, ...).

mod client;
mod flags;
mod log;
mod mg;
mod mgc;
mod send;
mod serve;
mod show;

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use megaco::ber::{BerConfig, Dialect};
use megaco::model::*;
use megaco_stack::engine::{Config, RequestTimer};
use megaco_stack::Encoding;
use serde_json::json;

pub use flags::EngineArgs;
pub use mg::{mg, MgArgs};
pub use mgc::{mgc, MgcArgs};
pub use send::{send, SendArgs};

/// Exit status when a reply carried an error descriptor (or a script
/// step failed).
const EXIT_ERROR_REPLY: u8 = 1;
/// Exit status for local failures (encoding, bad input).
const EXIT_FAILED: u8 = 2;
/// Exit status when a request got no reply.
const EXIT_NO_REPLY: u8 = 3;

/// The encodings spoken on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WireEncoding {
    /// Pretty text.
    Pretty,
    /// Compact text.
    Compact,
    /// ASN.1 BER (dialect: --dialect).
    Ber,
    /// ASN.1 aligned PER.
    Per,
}

/// BER's value wrapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BerDialect {
    /// RFC 3525 A.2 double-wrapped values (what Wireshark reads).
    Standard,
    /// Erlang/OTP's raw values (byte-identical to megaco_ber_encoder).
    Otp,
}

impl WireEncoding {
    fn encoding(self, dialect: BerDialect) -> Encoding {
        match self {
            WireEncoding::Pretty => Encoding::pretty(),
            WireEncoding::Compact => Encoding::compact(),
            WireEncoding::Ber => Encoding::Ber(BerConfig {
                dialect: match dialect {
                    BerDialect::Standard => Dialect::Standard,
                    BerDialect::Otp => Dialect::Otp,
                },
                ..BerConfig::default()
            }),
            WireEncoding::Per => Encoding::per(),
        }
    }

    fn is_binary(self) -> bool {
        matches!(self, WireEncoding::Ber | WireEncoding::Per)
    }

    /// RFC 3525 D.1/D.2: port 2944 for text, 2945 for binary.
    fn default_port(self) -> u16 {
        if self.is_binary() {
            2945
        } else {
            2944
        }
    }
}

const MID_HELP: &str =
    "Our message identifier in text form, e.g. `[10.0.0.1]:2944` or `<mg.example.net>`";

/// Encoding and identity options shared by `mgc`, `mg` and `send`.
#[derive(Debug, Clone, Args)]
pub struct Common {
    /// The wire encoding [default: pretty].
    #[arg(long, value_enum)]
    pub encoding: Option<WireEncoding>,
    /// BER's value wrapping.
    #[arg(long, value_enum, default_value_t = BerDialect::Standard)]
    pub dialect: BerDialect,
    /// Our message identifier in text form, e.g. `[10.0.0.1]:2944` or
    /// `<mg.example.net>`.
    #[arg(long, value_parser = parse_mid)]
    pub mid: Option<Mid>,
    /// The highest protocol version we speak, 1 to 3: offered when we
    /// register, used until the peer negotiates another [default: 1].
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub version: Option<u8>,
}

/// Parses a message identifier in its text form.
fn parse_mid(s: &str) -> Result<Mid, String> {
    s.parse::<Mid>().map_err(|e| {
        format!(
            "{s:?} is not a message identifier ({e}); try `[10.0.0.1]:2944` or `<mg.example.net>`"
        )
    })
}

fn parse_secs(s: &str) -> Result<Duration, String> {
    s.parse::<flags::Secs>().map(|s| s.0)
}

fn domain(name: &str) -> Mid {
    Mid::Domain(DomainName {
        name: name.into(),
        port: None,
    })
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// The engine configuration the options select.
fn config(mid: Mid, version: u8, encoding: Encoding, engine: &EngineArgs) -> Result<Config> {
    engine.check()?;
    let mut config = Config::new(mid);
    config.version = version;
    config.encoding = encoding;
    engine.apply(&mut config);
    Ok(config)
}

/// `--timeout SECS`: the whole wait for a reply, resends spread evenly
/// within it.
fn spread_timeout(config: &mut Config, total: Duration) {
    let resends = config.request_timer.max_retries;
    let interval = total / resends.saturating_add(1);
    config.request_timer = RequestTimer {
        initial: interval,
        factor: 1,
        max_interval: interval,
        max_retries: resends,
    };
    config.long_request_timer = total;
}

/// How long a request waits for its reply (without pendings).
fn total_wait(t: &RequestTimer) -> Duration {
    let mut interval = t.initial;
    let mut total = interval;
    for _ in 0..t.max_retries {
        interval = interval
            .checked_mul(t.factor)
            .unwrap_or(t.max_interval)
            .min(t.max_interval);
        total = total.saturating_add(interval);
    }
    total
}

/// Resolves `HOST[:PORT]`, `IP[:PORT]` or `[IPv6]:PORT`.
async fn resolve(s: &str, default_port: u16) -> Result<SocketAddr> {
    let a = resolve_any(s, default_port).await?;
    if a.port() == 0 {
        bail!("{s}: port 0 is no peer's port");
    }
    Ok(a)
}

/// [`resolve`], port 0 included.
async fn resolve_any(s: &str, default_port: u16) -> Result<SocketAddr> {
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    let bare = s.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, default_port));
    }
    let target = if s.contains(':') {
        s.to_string()
    } else {
        format!("{s}:{default_port}")
    };
    let mut addrs = tokio::net::lookup_host(target.as_str())
        .await
        .with_context(|| format!("resolving {s}"))?;
    addrs.next().ok_or_else(|| anyhow!("{s}: no address"))
}

/// Any address of `remote`'s family, an ephemeral port.
fn any_local(remote: SocketAddr) -> SocketAddr {
    let ip = match remote {
        SocketAddr::V4(_) => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        SocketAddr::V6(_) => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
    };
    SocketAddr::new(ip, 0)
}

/// Resolves on SIGINT or SIGTERM (Ctrl-C elsewhere) with the signal's
/// name; the handlers are in place on return.
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = &'static str>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut int = signal(SignalKind::interrupt())?;
        let mut term = signal(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = int.recv() => "SIGINT",
                _ = term.recv() => "SIGTERM",
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        })
    }
}

/// The most distinct peers the summary counts one by one.
const MAX_PEERS_COUNTED: usize = 100_000;

/// What a run did, for the summary line.
#[derive(Default)]
struct Tally {
    received: AtomicU64,
    sent: AtomicU64,
    replied: AtomicU64,
    errors: AtomicU64,
    peers: Mutex<HashSet<SocketAddr>>,
}

impl Tally {
    fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn peer(&self, peer: SocketAddr) {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        if peers.len() < MAX_PEERS_COUNTED {
            peers.insert(peer);
        }
    }

    /// `received 3, sent 0, replied 3, errors 0, dropped log lines 0, peers 1`,
    /// after `what` (the command, how it ended and after how long).
    fn summary(&self, log: &log::Log, what: &str, started: Instant) {
        // What is queued is written (or found unwritable) first, so that
        // the count of dropped lines is whole; a stuck output is waited
        // for only briefly, and what it has not taken by then is given up
        // and counted.
        log.flush(Duration::from_millis(500));
        log.abandon_queued();
        let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let peers = self.peers.lock().map(|p| p.len()).unwrap_or(0);
        let secs = started.elapsed().as_secs_f64();
        let dropped = log.dropped();
        let (received, sent, replied, errors) = (
            n(&self.received),
            n(&self.sent),
            n(&self.replied),
            n(&self.errors),
        );
        log.warn(
            "summary",
            || {
                format!(
                    "{what} after {secs:.1} s: received {received}, sent {sent}, replied {replied}, \
                     errors {errors}, dropped log lines {dropped}, peers {peers}"
                )
            },
            || {
                json!({ "what": what, "seconds": secs, "received": received, "sent": sent,
                        "replied": replied, "errors": errors, "dropped_log_lines": dropped,
                        "peers": peers })
            },
        );
    }
}

/// Reads a scenario file, if given.
fn scenario(path: Option<&PathBuf>) -> Result<megaco_stack::scenario::Scenario> {
    match path {
        Some(p) => Ok(megaco_stack::scenario::Scenario::load(p)?),
        None => Ok(Default::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mids_parse_as_text_writes_them() {
        let mid = parse_mid("[10.0.0.1]:2944").unwrap();
        assert_eq!(
            mid,
            Mid::Ip4(Ip4Address {
                address: [10, 0, 0, 1],
                port: Some(2944)
            })
        );
        assert_eq!(show::mid_text(&mid), "[10.0.0.1]:2944");
        assert_eq!(
            parse_mid("<mg.example.net>").unwrap(),
            domain("mg.example.net")
        );
        assert!(parse_mid("").is_err());
        assert!(parse_mid("[1.2.3.4] T=1{}").is_err());
        assert!(parse_mid("[1.2.3").is_err());
    }

    #[test]
    fn timeout_is_the_total_wait() {
        let mut c = Config::new(domain("mg"));
        spread_timeout(&mut c, Duration::from_secs(2));
        assert_eq!(c.request_timer.initial, Duration::from_millis(500));
        assert_eq!(total_wait(&c.request_timer), Duration::from_secs(2));
        assert_eq!(c.long_request_timer, Duration::from_secs(2));
        let default = Config::new(domain("mg"));
        assert_eq!(total_wait(&default.request_timer), Duration::from_secs(105));
    }
}
