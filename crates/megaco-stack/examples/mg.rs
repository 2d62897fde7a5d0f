//! A media gateway: registers with a ServiceChange (Restart) on ROOT,
//! sends a Notify, and prints the controller's replies.
//!
//! ```text
//! cargo run -p megaco-stack --example mg -- [--tcp] [--mgc 127.0.0.1:2944]
//!     [--local 0.0.0.0:0] [--encoding pretty|compact|ber|per] [--version 1|2|3]
//! ```
//!
//! Text over UDP to port 2944 by default; `--tcp` for TCP with TPKT framing.
use std::net::SocketAddr;

use megaco::model::*;
use megaco_stack::engine::Config;
use megaco_stack::{build, tcp, udp, Encoding};

struct Args {
    tcp: bool,
    mgc: SocketAddr,
    local: SocketAddr,
    encoding: Encoding,
    version: u8,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        tcp: false,
        mgc: "127.0.0.1:2944".parse().unwrap(),
        local: "0.0.0.0:0".parse().unwrap(),
        encoding: Encoding::pretty(),
        version: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--tcp" => args.tcp = true,
            "--mgc" => args.mgc = value()?.parse().map_err(|e| format!("{e}"))?,
            "--local" => args.local = value()?.parse().map_err(|e| format!("{e}"))?,
            "--encoding" => {
                args.encoding = match value()?.as_str() {
                    "pretty" => Encoding::pretty(),
                    "compact" => Encoding::compact(),
                    "ber" => Encoding::ber(),
                    "per" => Encoding::per(),
                    other => return Err(format!("unknown encoding {other}")),
                }
            }
            "--version" => args.version = value()?.parse().map_err(|e| format!("{e}"))?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// Prints a reply in compact text, whatever the wire encoding.
fn show(what: &str, result: &TransactionResult) {
    let msg = megaco::MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 3,
            mid: Mid::Device("mgc".into()),
            body: MessageBody::Transactions(
                vec![Transaction::Reply(TransactionReply {
                    transaction_id: 0,
                    imm_ack_required: false,
                    result: result.clone(),
                    segment_number: None,
                    segmentation_complete: false,
                })]
                .into(),
            ),
        },
    };
    match megaco::text::encode_pretty(&msg) {
        Ok(text) => println!("{what} reply:\n{}\n", String::from_utf8_lossy(&text)),
        Err(_) => println!("{what} reply: {result:?}"),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let mid = Mid::Domain(DomainName {
        name: "mg.example.net".into(),
        port: None,
    });
    let mut config = Config::new(mid);
    config.encoding = args.encoding;
    config.version = args.version;
    let (conn, _incoming) = if args.tcp {
        tcp::connect(args.mgc, config).await?
    } else {
        udp::connect(args.local, args.mgc, config).await?
    };
    println!("MG {} -> MGC {}", conn.local_addr(), conn.peer_addr());

    let register = build::service_change(
        TerminationId::root(),
        ServiceChangeMethod::Restart,
        "901 mg col boot",
    );
    show("ServiceChange", &conn.request(vec![register]).await?);

    let notify = build::notify(
        ContextId(1),
        TerminationId::new("11111111/00000000/00000001"),
        1,
        "al/of",
    );
    show("Notify", &conn.request(vec![notify]).await?);
    Ok(())
}
