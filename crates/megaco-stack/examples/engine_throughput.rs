//! Transactions per second through two engines in memory (no sockets):
//! request encode + decode, reply encode + decode, per encoding.
//!
//! ```text
//! cargo run --release -p megaco-stack --example engine_throughput [N]
//! ```
use std::time::Instant;

use megaco::model::*;
use megaco_stack::engine::{Config, Connection, Event};
use megaco_stack::{build, Encoding};

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let mid = |a| {
        Mid::Ip4(Ip4Address {
            address: [10, 0, 0, a],
            port: Some(2944),
        })
    };
    for (name, enc) in [
        ("pretty", Encoding::pretty()),
        ("compact", Encoding::compact()),
        ("ber", Encoding::ber()),
        ("per", Encoding::per()),
    ] {
        let mut a = Config::new(mid(1));
        a.encoding = enc.clone();
        let mut b = Config::new(mid(2));
        b.encoding = enc;
        let (mut mg, mut mgc) = (Connection::new(a), Connection::new(b));
        let notify = build::notify(
            ContextId(1),
            TerminationId::new("11111111/00000000/00000001"),
            1,
            "al/of",
        );
        let start = Instant::now();
        for _ in 0..n {
            let now = Instant::now();
            mg.send_request(now, vec![notify.clone()]).unwrap();
            mgc.handle_input(now, &mg.poll_transmit().unwrap());
            let Some(Event::RequestReceived {
                transaction_id,
                actions,
                ..
            }) = mgc.poll_event()
            else {
                panic!()
            };
            mgc.reply(now, transaction_id, build::default_replies(&actions))
                .unwrap();
            mg.handle_input(now, &mgc.poll_transmit().unwrap());
            let Some(Event::ReplyReceived { .. }) = mg.poll_event() else {
                panic!()
            };
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{name:8} {n} transactions in {secs:.3} s: {:.0} transactions/s, {:.2} µs each",
            f64::from(n) / secs,
            secs * 1e6 / f64::from(n)
        );
    }
}
