//! `megaco mgc`: a controller on UDP and TCP, text and binary ports at
//! once, answering every request (scenario rules, then the defaults).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use megaco_stack::scenario::{Role, TermIdStyle};
use megaco_stack::{Inbound, Incoming, Stack, Stats};
use serde_json::json;

use super::log::{addr, Log, LogArgs};
use super::serve::Server;
use super::show::mid_text;
use super::{
    config, domain, resolve_any, runtime, stop_signal, Common, EngineArgs, Tally, WireEncoding,
    MID_HELP,
};

/// `megaco mgc`.
#[derive(Debug, Clone, Args)]
#[command(
    mut_arg("mid", |a| a.help(MID_HELP.to_string() + " [default: <mgc>]")),
    mut_arg("version", |a| a.help(
        "The highest protocol version we speak, 1 to 3 (each reply goes out in its \
         request's version; a registration gets the lower of its own and this) [default: 3]"
    )),
)]
pub struct MgcArgs {
    /// Listen on this one address only, in the encoding --encoding names
    /// (pretty text by default), instead of the text and binary ports:
    /// `HOST[:PORT]` or `IP[:PORT]` [port default: 2944 for text, 2945
    /// for binary].
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// The address the text and binary ports are opened on: an IP
    /// address or a host name, without a port (--text-port and
    /// --binary-port give those).
    #[arg(long, value_name = "HOST", default_value = "0.0.0.0")]
    pub host: String,
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

/// The ports to open, from those `wanted`: a port 0 that UDP and TCP
/// both open is picked here, free for both, so that they share it.
fn ports(
    args: &MgcArgs,
    mut wanted: Vec<(WireEncoding, SocketAddr)>,
) -> Result<Vec<(WireEncoding, SocketAddr)>> {
    if shared_pick(args, &wanted) {
        for (_, at) in &mut wanted {
            if at.port() == 0 {
                at.set_port(free_port(at.ip())?);
            }
        }
    }
    Ok(wanted)
}

/// Whether [`ports`] picks a port itself: a port 0 that UDP and TCP share.
fn shared_pick(args: &MgcArgs, wanted: &[(WireEncoding, SocketAddr)]) -> bool {
    !args.tcp && !args.udp && wanted.iter().any(|(_, a)| a.port() == 0)
}

/// A port free for both UDP and TCP on `ip`.
fn free_port(ip: IpAddr) -> Result<u16> {
    for _ in 0..16 {
        let udp = std::net::UdpSocket::bind((ip, 0)).context("finding a free port")?;
        let port = udp.local_addr()?.port();
        if std::net::TcpListener::bind((ip, port)).is_ok() {
            return Ok(port);
        }
    }
    anyhow::bail!("no port free for both UDP and TCP on {ip}")
}

/// The addresses --listen or --host, --text-port and --binary-port ask
/// for. Host names are resolved as `mg --mgc` resolves them, and a
/// --listen address without a port gets the encoding's (2944 for text,
/// 2945 for binary), as there.
async fn wanted(args: &MgcArgs) -> Result<Vec<(WireEncoding, SocketAddr)>> {
    if let Some(listen) = &args.listen {
        let e = args.common.encoding.unwrap_or(WireEncoding::Pretty);
        let at = resolve_any(listen, e.default_port())
            .await
            .with_context(|| {
                format!("--listen {listen} (`HOST[:PORT]`, `IP[:PORT]` or `[IPv6]:PORT`)")
            })?;
        return Ok(vec![(e, at)]);
    }
    let host = host_ip(&args.host).await?;
    Ok(match args.common.encoding {
        Some(e) => {
            let port = if e.is_binary() {
                args.binary_port
            } else {
                args.text_port
            };
            vec![(e, SocketAddr::new(host, port))]
        }
        None => vec![
            (WireEncoding::Pretty, SocketAddr::new(host, args.text_port)),
            (WireEncoding::Ber, SocketAddr::new(host, args.binary_port)),
        ],
    })
}

/// The address --host names: an IP address (`[IPv6]` too) or a host name,
/// without a port.
async fn host_ip(host: &str) -> Result<IpAddr> {
    let expected = || {
        format!(
            "--host {host}: expected an IP address or a host name without a port \
             (--text-port and --binary-port set the ports; --listen takes `ADDR:PORT`)"
        )
    };
    if let Ok(ip) = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
        .parse::<IpAddr>()
    {
        return Ok(ip);
    }
    if host.contains(':') || host.is_empty() {
        anyhow::bail!(expected());
    }
    let at = resolve_any(host, 0)
        .await
        .with_context(|| format!("--host {host} (an IP address or a host name)"))?;
    Ok(at.ip())
}

/// A started stack, and what each of its sockets is for.
struct Listening {
    stack: Stack,
    incoming: Incoming,
    udp_kinds: Vec<&'static str>,
    tcp_kinds: Vec<&'static str>,
    max_peers: usize,
}

/// Binds the ports and starts the stack. A port 0 shared by UDP and TCP
/// is picked by [`free_port`], which must let it go again before the
/// stack binds it; should another program take it in between, a new pick
/// is tried (a few times) rather than failing the start.
async fn listen(args: &MgcArgs, mid: &megaco::model::Mid, version: u8) -> Result<Listening> {
    let asked = wanted(args).await?;
    let mut attempts = 0;
    loop {
        let ports = ports(args, asked.clone())?;
        // Each peer is answered in its own encoding; this one is for the
        // messages to a peer not heard from yet.
        let first = ports.first().map_or(WireEncoding::Pretty, |p| p.0);
        let config = config(
            mid.clone(),
            version,
            first.encoding(args.common.dialect),
            &args.engine,
        )?;
        let max_peers = config.transport.max_peers;
        let mut builder = Stack::builder(config);
        let (mut udp_kinds, mut tcp_kinds) = (Vec::new(), Vec::new());
        for (encoding, at) in &ports {
            // What the port is for: each peer is answered in its own
            // encoding whichever port it uses.
            let kind = if encoding.is_binary() {
                "binary"
            } else {
                "text"
            };
            if !args.tcp {
                builder = builder.udp(*at);
                udp_kinds.push(kind);
            }
            if !args.udp {
                builder = builder.tcp(*at);
                tcp_kinds.push(kind);
            }
        }
        match builder.start().await {
            Ok((stack, incoming)) => {
                return Ok(Listening {
                    stack,
                    incoming,
                    udp_kinds,
                    tcp_kinds,
                    max_peers,
                })
            }
            Err(e)
                if e.kind() == std::io::ErrorKind::AddrInUse
                    && attempts < 8
                    && shared_pick(args, &asked) =>
            {
                attempts += 1;
            }
            Err(e) => {
                let wanted: Vec<String> = ports.iter().map(|(_, a)| a.to_string()).collect();
                return Err(e).with_context(|| format!("listening on {}", wanted.join(", ")));
            }
        }
    }
}

async fn run(args: MgcArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let c = &args.common;
    let scenario = super::scenario(args.scenario.as_ref())?;
    let mid = c.mid.clone().unwrap_or_else(|| domain("mgc"));
    // The highest version we speak; each reply goes out in its request's.
    let version = c.version.unwrap_or(3);
    let (log, writer) = Log::start(&args.log)?;
    let tally = Arc::new(Tally::default());
    // Installed before the first line, so that a signal right after it is
    // caught.
    let stop = stop_signal().context("installing the signal handlers")?;
    let Listening {
        stack,
        mut incoming,
        udp_kinds,
        tcp_kinds,
        max_peers,
    } = listen(&args, &mid, version).await?;
    for ((at, kind), transport) in stack
        .udp_addrs()
        .into_iter()
        .zip(udp_kinds)
        .map(|x| (x, "udp"))
        .chain(
            stack
                .tcp_addrs()
                .into_iter()
                .zip(tcp_kinds)
                .map(|x| (x, "tcp")),
        )
    {
        log.notice(
            "listening",
            || format!("listening on {transport} {at} {kind}"),
            || json!({ "transport": transport, "address": addr(at), "encoding": kind }),
        );
    }
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
        max_version: version,
    };
    let mut server = Server::new(log.clone(), tally.clone(), role, scenario.rules, max_peers);
    let mut served: u64 = 0;
    tokio::pin!(stop);
    // The log's drops are reported as often as the stack's.
    let every = args.engine.report_interval.0.max(Duration::from_millis(1));
    let every_secs = every.as_secs_f64();
    let mut report = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    let mut log_dropped = 0;
    let mut behind = Behind::default();
    let mut last_report = Instant::now();
    let ended = loop {
        tokio::select! {
            sig = &mut stop => break format!("mgc: stopped by {sig}"),
            _ = report.tick() => {
                // The stack reports its own drops; this is the log's.
                let now = log.dropped();
                if now > log_dropped {
                    let n = now - log_dropped;
                    log.warn(
                        "log_dropped",
                        || format!("mgc: {n} log lines dropped in the last {every_secs} s (output full or closed)"),
                        || json!({ "seconds": every_secs, "log_lines_dropped": n }),
                    );
                }
                log_dropped = now;
                server.report(every);
                behind = behind.report(&stack.stats(), &log, last_report.elapsed());
                last_report = Instant::now();
            }
            item = incoming.recv() => match item {
                None => break "mgc: the stack stopped".to_string(),
                Some(Inbound::Request(req)) => {
                    server.request(req, TermIdStyle::Text);
                    served += 1;
                    if args.count == Some(served) {
                        break format!("mgc: answered {served} requests");
                    }
                }
                Some(Inbound::Event { peer, event }) => server.event(peer.addr, &event),
                Some(Inbound::Endpoint(ev)) => server.endpoint(&ev),
                Some(Inbound::Closed { peer, error }) => server.closed(peer, error.as_ref()),
                Some(_) => {}
            }
        }
    };
    // The replies under way go out, and TCP connections close gracefully,
    // before the process ends.
    server.drain(Duration::from_secs(5)).await;
    behind.report(&stack.stats(), &log, last_report.elapsed());
    let _ = tokio::time::timeout(Duration::from_secs(5), stack.handle().close()).await;
    tally.summary(&log, &ended, started);
    writer.finish(log, Duration::from_secs(1));
    Ok(ExitCode::SUCCESS)
}

/// What the stack did because this program was behind (the queue to it
/// was full): requests refused with 503, of them those of a UDP peer over
/// its share of the queue, TCP requests held, other events dropped.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Behind {
    refused: u64,
    over_share: u64,
    held: u64,
    dropped: u64,
}

impl Behind {
    fn of(s: &Stats) -> Behind {
        Behind {
            refused: s.requests_refused,
            over_share: s.requests_over_share,
            held: s.requests_held,
            dropped: s.events_dropped,
        }
    }

    /// Warns of what the stack did since `self` was taken, `since` ago,
    /// if anything; the counts now.
    fn report(self, stats: &Stats, log: &Log, since: Duration) -> Behind {
        let now = Behind::of(stats);
        let d = Behind {
            refused: now.refused - self.refused,
            over_share: now.over_share - self.over_share,
            held: now.held - self.held,
            dropped: now.dropped - self.dropped,
        };
        if d != Behind::default() {
            let secs = since.as_secs_f64();
            log.warn(
                "behind",
                || {
                    format!(
                        "mgc: behind in the last {secs:.1} s: {} requests refused with 503 \
                         ({} over one peer's share of the queue), {} TCP requests held, \
                         {} events dropped (a longer --inbound-queue absorbs bursts; \
                         steady, it is more load than this machine answers)",
                        d.refused, d.over_share, d.held, d.dropped
                    )
                },
                || {
                    json!({ "seconds": secs, "refused": d.refused, "over_share": d.over_share,
                            "held": d.held, "events_dropped": d.dropped })
                },
            );
        }
        now
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        mgc: MgcArgs,
    }

    /// The addresses `megaco mgc ARGS` would open, as text.
    fn addresses(args: &[&str]) -> Result<Vec<String>> {
        let cli = Cli::try_parse_from(std::iter::once("mgc").chain(args.iter().copied()))?;
        let ports = runtime()?.block_on(wanted(&cli.mgc))?;
        Ok(ports
            .iter()
            .map(|(e, a)| format!("{:?} {a}", e).to_lowercase())
            .collect())
    }

    #[test]
    fn listen_takes_an_address_without_a_port_as_mg_does() {
        let one = |args: &[&str]| addresses(args).unwrap().join(", ");
        assert_eq!(one(&["--listen", "127.0.0.1"]), "pretty 127.0.0.1:2944");
        assert_eq!(one(&["--listen", "[::1]"]), "pretty [::1]:2944");
        assert_eq!(
            one(&["--listen", "127.0.0.1", "--encoding", "ber"]),
            "ber 127.0.0.1:2945"
        );
        assert_eq!(one(&["--listen", "127.0.0.1:7"]), "pretty 127.0.0.1:7");
        assert_eq!(
            one(&[]),
            "pretty 0.0.0.0:2944, ber 0.0.0.0:2945",
            "the defaults"
        );
        assert_eq!(
            one(&["--host", "[::1]", "--encoding", "per"]),
            "per [::1]:2945"
        );
        // Host names resolve (localhost is in every hosts file).
        let local = one(&["--host", "localhost", "--text-port", "9"]);
        assert!(
            local.starts_with("pretty 127.0.0.1:9,") || local.starts_with("pretty [::1]:9,"),
            "{local}"
        );
        let local = one(&["--listen", "localhost"]);
        assert!(local.ends_with(":2944"), "{local}");
    }

    #[test]
    fn a_host_with_a_port_is_refused_with_the_form_expected() {
        for host in ["127.0.0.1:2944", "[::1]:2944", "localhost:2944", ""] {
            let err = addresses(&["--host", host]).unwrap_err().to_string();
            assert!(
                err.contains("expected an IP address or a host name without a port"),
                "{host}: {err}"
            );
        }
    }
}
