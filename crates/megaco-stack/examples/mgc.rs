//! A media gateway controller: listens for gateways, answers ServiceChange
//! with a ServiceChangeReply and Notify with a NotifyReply, and logs every
//! command.
//!
//! ```text
//! cargo run -p megaco-stack --example mgc -- [--tcp] [--listen 0.0.0.0:2944]
//!     [--encoding pretty|compact|ber|per] [--version 1|2|3]
//! ```
//!
//! Text over UDP port 2944 by default; `--tcp` for TCP with TPKT framing.
use std::net::SocketAddr;

use megaco::model::*;
use megaco_stack::engine::Config;
use megaco_stack::{build, tcp, udp, Encoding, Inbound, Incoming};

struct Args {
    tcp: bool,
    listen: SocketAddr,
    encoding: Encoding,
    version: u8,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        tcp: false,
        listen: "0.0.0.0:2944".parse().unwrap(),
        encoding: Encoding::pretty(),
        version: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--tcp" => args.tcp = true,
            "--listen" => args.listen = value()?.parse().map_err(|e| format!("{e}"))?,
            "--encoding" => args.encoding = encoding(&value()?)?,
            "--version" => args.version = value()?.parse().map_err(|e| format!("{e}"))?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

fn encoding(name: &str) -> Result<Encoding, String> {
    Ok(match name {
        "pretty" => Encoding::pretty(),
        "compact" => Encoding::compact(),
        "ber" => Encoding::ber(),
        "per" => Encoding::per(),
        other => return Err(format!("unknown encoding {other}")),
    })
}

fn command_name(c: &Command) -> &'static str {
    match c {
        Command::Add(_) => "Add",
        Command::Move(_) => "Move",
        Command::Modify(_) => "Modify",
        Command::Subtract(_) => "Subtract",
        Command::AuditCapability(_) => "AuditCapability",
        Command::AuditValue(_) => "AuditValue",
        Command::Notify(_) => "Notify",
        Command::ServiceChange(_) => "ServiceChange",
        _ => "a command of a later version",
    }
}

/// Answers every request on `incoming`, logging what arrives.
async fn serve(mut incoming: Incoming) {
    while let Some(inbound) = incoming.recv().await {
        match inbound {
            Inbound::Request(req) => {
                for a in req.actions() {
                    for c in &a.command_requests {
                        println!(
                            "{} {:?} v{} T={} C={} {}",
                            req.peer(),
                            req.mid(),
                            req.version(),
                            req.transaction_id(),
                            a.context_id.0,
                            command_name(&c.command)
                        );
                    }
                }
                let result = build::default_replies(req.actions());
                if let Err(e) = req.reply(result).await {
                    eprintln!("reply failed: {e}");
                }
            }
            Inbound::Event { peer, event } => println!("{peer} {event:?}"),
            Inbound::Closed { peer, error } => {
                println!(
                    "{peer} closed{}",
                    error.map(|e| format!(": {e}")).unwrap_or_default()
                )
            }
            _ => {}
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let mid = match args.listen.ip() {
        std::net::IpAddr::V4(ip) => Mid::Ip4(Ip4Address {
            address: ip.octets(),
            port: Some(args.listen.port()),
        }),
        std::net::IpAddr::V6(ip) => Mid::Ip6(Ip6Address {
            address: ip.octets(),
            port: Some(args.listen.port()),
        }),
    };
    let mut config = Config::new(mid);
    config.encoding = args.encoding;
    config.version = args.version;
    if args.tcp {
        let listener = tcp::Listener::bind(args.listen, config).await?;
        println!("MGC listening on tcp {}", listener.local_addr()?);
        loop {
            let (conn, incoming) = listener.accept().await?;
            println!("{} connected", conn.peer_addr());
            tokio::spawn(serve(incoming));
        }
    } else {
        let (endpoint, incoming) = udp::bind(args.listen, config).await?;
        println!("MGC listening on udp {}", endpoint.local_addr());
        serve(incoming).await;
    }
    Ok(())
}
