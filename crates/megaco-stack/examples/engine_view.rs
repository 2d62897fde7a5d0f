//! What reading datagrams through the borrowed view saves the engine, in
//! BER and compact text: for each kind of datagram, the time `Connection::handle_input`
//! takes (the view where it suffices, else the owned decode) beside
//! decoding into the model and calling `Connection::handle_message`, the
//! engine's path without the view; and, as the floor, the view alone
//! (its header and transactions read). Paired in one process: passes of
//! 1,000 messages alternate between the two paths, and the minimum of
//! 40 passes is shown.
//!
//! ```text
//! cargo run --release -p megaco-stack --example engine_view [N]
//! ```
use std::time::{Duration, Instant};

use megaco::model::*;
use megaco::view::{MessageView, TransactionView};
use megaco_stack::engine::{Config, Connection, Event};
use megaco_stack::{build, Encoding};

fn mid(a: u8) -> Mid {
    Mid::Ip4(Ip4Address {
        address: [10, 0, 0, a],
        port: Some(2944),
    })
}

/// Builds the MGC a pass starts from.
type Setup<'a> = dyn Fn() -> Connection + 'a;

fn config(a: u8, encoding: &Encoding) -> Config {
    let mut c = Config::new(mid(a));
    c.encoding = encoding.clone();
    c.imm_ack_required = true;
    c.max_unanswered_requests = None;
    c.max_remembered_requests = usize::MAX;
    c.reply_cache_bytes = usize::MAX;
    c
}

/// Feeds every message to a fresh MGC built by `setup`, through the view
/// or not; returns the time per message.
fn time(messages: &[Vec<u8>], setup: &Setup<'_>, view: bool) -> Duration {
    let mut mgc = setup();
    let now = Instant::now();
    let start = Instant::now();
    for bytes in messages {
        if view {
            mgc.handle_input(now, bytes);
        } else {
            let msg = mgc.encoding().decode(bytes).unwrap();
            mgc.handle_message(now, msg);
        }
        while mgc.poll_transmit().is_some() {}
        while mgc.poll_event().is_some() {}
    }
    start.elapsed() / messages.len() as u32
}

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000);
    println!("{n} messages a pass, minimum of 40 passes, ns per message");
    println!(
        "{:8} {:12} {:>8} {:>8} {:>6} {:>10}",
        "encoding", "datagram", "decoded", "viewed", "ratio", "view alone"
    );
    for encoding in [Encoding::ber(), Encoding::compact()] {
        measure(n, &encoding);
    }
}

fn measure(n: u32, encoding: &Encoding) {
    let now = Instant::now();
    let notify = build::notify(
        ContextId(1),
        TerminationId::new("11111111/00000000/00000001"),
        1,
        "al/of",
    );
    // n requests from an MG, each answered by a first MGC, each reply
    // acknowledged by the MG.
    let mut mg = Connection::new(config(1, encoding));
    let mut answered = Connection::new(config(2, encoding));
    let (mut requests, mut acks) = (Vec::new(), Vec::new());
    for _ in 0..n {
        mg.send_request(now, vec![notify.clone()]).unwrap();
        let req = mg.poll_transmit().unwrap();
        answered.handle_input(now, &req);
        let Some(Event::RequestReceived {
            transaction_id,
            actions,
            ..
        }) = answered.poll_event()
        else {
            panic!()
        };
        answered
            .reply(now, transaction_id, build::default_replies(&actions))
            .unwrap();
        mg.handle_input(now, &answered.poll_transmit().unwrap());
        acks.push(mg.poll_transmit().unwrap());
        requests.push(req);
    }
    let fresh = || Connection::new(config(2, encoding));
    // An MGC that has executed every request and awaits the acks.
    let replied = || {
        let mut c = Connection::new(config(2, encoding));
        for req in &requests {
            c.handle_input(now, req);
            let Some(Event::RequestReceived { transaction_id, .. }) = c.poll_event() else {
                panic!()
            };
            c.reply(
                now,
                transaction_id,
                build::default_replies(std::slice::from_ref(&notify)),
            )
            .unwrap();
            c.poll_transmit();
        }
        c
    };
    let cases: [(&str, &[Vec<u8>], &Setup<'_>); 3] = [
        ("new request", &requests, &fresh),
        ("duplicate", &requests, &replied),
        ("ack", &acks, &replied),
    ];
    let name = encoding.to_string();
    for (what, messages, setup) in cases {
        let (mut decoded, mut viewed, mut alone) = (Duration::MAX, Duration::MAX, Duration::MAX);
        for _ in 0..40 {
            decoded = decoded.min(time(messages, setup, false));
            viewed = viewed.min(time(messages, setup, true));
            alone = alone.min(view_alone(messages, encoding));
        }
        println!(
            "{name:8} {what:12} {:>8} {:>8} {:>6.2} {:>10}",
            decoded.as_nanos(),
            viewed.as_nanos(),
            viewed.as_secs_f64() / decoded.as_secs_f64(),
            alone.as_nanos()
        );
    }
}

/// The time per message of viewing it and reading its transactions.
fn view_alone(messages: &[Vec<u8>], encoding: &Encoding) -> Duration {
    let start = Instant::now();
    let mut ids = 0u64;
    for bytes in messages {
        let view = MessageView::parse(bytes, encoding).unwrap();
        for t in view.transactions() {
            if let Ok(TransactionView::Request { id }) = t {
                ids += u64::from(id);
            }
        }
    }
    std::hint::black_box(ids);
    start.elapsed() / messages.len() as u32
}
