//! The README's "Transactions and transports" example, compiled and run
//! here (tests/readme.rs checks that the README holds this very code): a
//! controller on UDP and TCP, and a gateway that registers with it.
//!
//! ```text
//! cargo run -p megaco-stack --example readme
//! ```
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // README BEGIN
    use megaco::model::*;
    use megaco_stack::{build, engine::Config, udp, Inbound, Stack};

    // A controller on a UDP and a TCP port at once; each peer is answered
    // in its own encoding (text, BER of either dialect, PER) and version.
    let mgc_mid = Mid::Device("mgc".into());
    let (mgc, mut incoming) = Stack::builder(Config::new(mgc_mid))
        .udp("127.0.0.1:0".parse()?)
        .tcp("127.0.0.1:0".parse()?)
        .start()
        .await?;
    tokio::spawn(async move {
        while let Some(item) = incoming.recv().await {
            match item {
                Inbound::Request(req) => {
                    let result = build::default_replies(req.actions());
                    let _ = req.reply(result).await;
                }
                // Peers admitted, evicted, refused; what was dropped.
                Inbound::Endpoint(event) => eprintln!("{event:?}"),
                _ => {}
            }
        }
    });

    // A gateway at version 3: it offers v3 in its ServiceChange, and uses
    // what the controller accepts from then on.
    let mut config = Config::new(Mid::Device("mg1".into()));
    config.version = 3;
    let (conn, _incoming) =
        udp::connect("127.0.0.1:0".parse()?, mgc.udp_addrs()[0], config).await?;
    let register =
        build::service_change(TerminationId::root(), ServiceChangeMethod::Restart, "901");
    let reply = conn.request(vec![register]).await?;
    assert!(matches!(reply, TransactionResult::ActionReplies(_)));

    // Several requests in flight, each known by its transaction id.
    let notify = build::notify(ContextId::NULL, TerminationId::new("a/1"), 1, "al/of");
    let sent = conn.send_request(vec![notify]).await?;
    println!("sent as transaction {}", sent.transaction_id());
    sent.await?;
    println!("{:?}", mgc.stats());
    conn.close().await;
    // README END
    Ok(())
}
