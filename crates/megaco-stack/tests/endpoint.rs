//! The sans-IO endpoint between simulated peers (tests/common): duplicates
//! executed once through loss, duplication and reordering, a resend after
//! OTP's 30 s reply timer answered from the cache, no error loops between
//! mismatched or spoofed peers, version negotiation, admission under
//! garbage from thousands of addresses.
mod common;

use std::time::Duration;

use common::{mid, Link, Pair};
use megaco::model::*;
use megaco_stack::build;
use megaco_stack::endpoint::{EndpointEvent, Peer};
use megaco_stack::engine::{Config, Event};
use megaco_stack::Encoding;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn sc() -> ActionRequest {
    build::service_change(
        TerminationId::root(),
        ServiceChangeMethod::Restart,
        "901 mg col boot",
    )
}

fn notify(n: u32) -> ActionRequest {
    build::notify(
        ContextId(1),
        TerminationId::new("11111111/00000000/00000001"),
        n,
        "al/of",
    )
}

/// The MGC (node b) answers every request it is handed with the default
/// replies; returns how many times each transaction id was handed over.
fn answer_all(pair: &mut Pair, executed: &mut std::collections::HashMap<u32, u32>) {
    for (peer, event) in Pair::transactions(&mut pair.b) {
        if let Event::RequestReceived {
            transaction_id,
            actions,
            ..
        } = event
        {
            *executed.entry(transaction_id).or_default() += 1;
            pair.b
                .ep
                .reply(
                    pair.now,
                    peer,
                    transaction_id,
                    build::default_replies(&actions),
                )
                .unwrap();
        }
    }
}

/// The MG's last resend (49 s with the default timers) comes after OTP's
/// 30 s reply timer: our default keeps the reply for the request's whole
/// life, so the resend is answered from the cache, not executed again.
/// With OTP's 30 s it would run twice, which is what the issue saw.
#[test]
fn resend_after_thirty_seconds_is_answered_from_the_cache() {
    for (reply_timer, runs) in [(None, 1), (Some(secs(30)), 2)] {
        let mut mgc = Config::new(mid(2));
        mgc.reply_timer = reply_timer;
        let link = Link {
            latency: Duration::from_millis(5),
            ..Link::default()
        };
        let mut pair = Pair::new(Config::new(mid(1)), mgc, link, 1);
        let to_b = pair.a.peer(pair.b.addr);
        let id = pair
            .a
            .ep
            .send_request(pair.now, to_b, vec![notify(1)])
            .unwrap();
        // Every reply is lost until just before the third resend (49 s).
        pair.block_ba = true;
        let mut executed = std::collections::HashMap::new();
        let t0 = pair.now;
        while pair.now < t0 + secs(45) {
            pair.run_for(Duration::from_millis(100));
            answer_all(&mut pair, &mut executed);
        }
        pair.block_ba = false;
        pair.run_for(secs(10));
        answer_all(&mut pair, &mut executed);
        pair.run_for(secs(1));
        let replies = Pair::transactions(&mut pair.a)
            .into_iter()
            .filter(|(_, e)| matches!(e, Event::ReplyReceived { transaction_id, .. } if *transaction_id == id))
            .count();
        assert_eq!(replies, 1, "{reply_timer:?}");
        let n: u32 = executed.values().sum();
        assert_eq!(n, runs, "{reply_timer:?}: executed {n} times");
        if reply_timer.is_none() {
            assert_eq!(pair.b.ep.stats().duplicates_answered, 3);
        }
    }
}

/// 200 Notifies through 30 % loss, duplication and reordering: each is
/// executed exactly once, and nearly all are answered.
#[test]
fn notifies_through_a_bad_link_are_executed_once() {
    // In text and BER the MGC reads duplicates (and, asked for, acks)
    // from a borrowed view of the bytes; PER has none: the same outcome.
    for (encoding, imm_ack) in [
        (Encoding::pretty(), false),
        (Encoding::ber(), true),
        (Encoding::per(), false),
    ] {
        let link = Link {
            latency: Duration::from_millis(20),
            loss: 0.3,
            duplication: 0.1,
            reorder: 0.2,
        };
        let config = |a| {
            let mut c = Config::new(mid(a));
            c.encoding = encoding.clone();
            c.imm_ack_required = imm_ack;
            c
        };
        let mut pair = Pair::new(config(1), config(2), link, 7);
        let to_b = pair.a.peer(pair.b.addr);
        let mut ids = Vec::new();
        for n in 0..200 {
            ids.push(
                pair.a
                    .ep
                    .send_request(pair.now, to_b, vec![notify(n)])
                    .unwrap(),
            );
        }
        let mut executed = std::collections::HashMap::new();
        let t0 = pair.now;
        let mut replied = std::collections::HashSet::new();
        while pair.now < t0 + secs(200) {
            pair.run_for(Duration::from_millis(50));
            answer_all(&mut pair, &mut executed);
            for (_, e) in Pair::transactions(&mut pair.a) {
                if let Event::ReplyReceived { transaction_id, .. } = e {
                    assert!(replied.insert(transaction_id), "{transaction_id} twice");
                }
            }
        }
        assert!(executed.values().all(|&n| n == 1), "{executed:?}");
        // Some fail: each attempt (request and reply) gets through with
        // probability 0.49, and a request has 4: about 7 % time out.
        assert!(replied.len() >= 170, "{} of 200 answered", replied.len());
        let stats = pair.b.ep.stats();
        if encoding.kind() == megaco::codec::Kind::Per {
            assert_eq!(stats.messages_viewed, 0, "{stats:?}");
        } else {
            assert!(stats.messages_viewed > 0, "{encoding}: {stats:?}");
        }
    }
}

/// Two stacks that cannot read each other (BER against PER, each only
/// its own encoding) exchange a handful of datagrams, not a loop: an
/// error is never answered with a second one.
#[test]
fn mismatched_encodings_exchange_a_handful_of_datagrams() {
    let strict = |a, enc: Encoding| {
        let mut c = Config::new(mid(a));
        c.encoding = enc;
        c.recognise_encoding = false;
        c
    };
    let mut pair = Pair::new(
        strict(1, Encoding::ber()),
        strict(2, Encoding::per()),
        Link::default(),
        3,
    );
    let to_b = pair.a.peer(pair.b.addr);
    pair.a.ep.send_request(pair.now, to_b, vec![sc()]).unwrap();
    pair.run_for(secs(600));
    // The request and its 3 resends, one error from a (it answers b's
    // first error, then no more until b says something it reads), and
    // from b at most one error per unproven period (b forgets a after
    // 10 s without a valid message): no loop.
    let (ab, ba) = (pair.sent_ab, pair.sent_ba);
    assert!(ab <= 5 && ba <= 4, "{ab} + {ba} datagrams");
    assert!(pair.a.ep.stats().storms_suppressed >= 1);
    // Once a's request has timed out, nothing more is said.
    pair.run_for(secs(3600));
    assert_eq!((pair.sent_ab, pair.sent_ba), (ab, ba));

    // Recognising the encoding, the same two stacks just work.
    let mut pair = Pair::new(
        Config {
            encoding: Encoding::ber(),
            ..Config::new(mid(1))
        },
        Config {
            encoding: Encoding::per(),
            ..Config::new(mid(2))
        },
        Link::default(),
        3,
    );
    let to_b = pair.a.peer(pair.b.addr);
    let id = pair.a.ep.send_request(pair.now, to_b, vec![sc()]).unwrap();
    let mut executed = std::collections::HashMap::new();
    pair.run_for(secs(1));
    answer_all(&mut pair, &mut executed);
    pair.run_for(secs(1));
    assert!(Pair::transactions(&mut pair.a).iter().any(
        |(_, e)| matches!(e, Event::ReplyReceived { transaction_id, .. } if *transaction_id == id)
    ));
    assert_eq!(pair.sent_ab + pair.sent_ba, 2);
}

/// A spoofed error (message-level, or undecodable) between two endpoints
/// that talk to each other does not start a loop.
#[test]
fn spoofed_error_does_not_start_a_loop() {
    let mut pair = Pair::new(Config::new(mid(1)), Config::new(mid(2)), Link::default(), 5);
    let to_b = pair.a.peer(pair.b.addr);
    pair.a.ep.send_request(pair.now, to_b, vec![sc()]).unwrap();
    let mut executed = std::collections::HashMap::new();
    pair.run_for(secs(1));
    answer_all(&mut pair, &mut executed);
    pair.run_for(secs(1));
    let before = pair.sent_ab + pair.sent_ba;
    // A message-level error "from a" reaches b, and garbage "from b"
    // reaches a.
    let error = megaco::text::encode_compact(&megaco::MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 1,
            mid: mid(1),
            body: MessageBody::Error(ErrorDescriptor {
                error_code: 400,
                error_text: Some("Syntax error".into()),
            }),
        },
    })
    .unwrap();
    let (a_addr, b_addr) = (pair.a.addr, pair.b.addr);
    pair.put(false, a_addr, error);
    pair.put(true, b_addr, b"\x00\x01 not megaco".to_vec());
    pair.run_for(secs(300));
    // a answered the garbage with one error; b, which got that error,
    // said nothing; b said nothing to the spoofed error either.
    assert_eq!(pair.sent_ab + pair.sent_ba - before, 1);
    assert!(Pair::transactions(&mut pair.b)
        .iter()
        .any(|(_, e)| matches!(e, Event::MessageError { .. })));
}

/// H.248.1 11.3: the MG offers its version in the ServiceChange; the MGC
/// answers with the lower of the two, used from then on both ways.
#[test]
fn versions_are_negotiated_in_the_service_change() {
    for (mg_version, mgc_version, agreed) in [(3, 1, 1), (1, 3, 1), (2, 3, 2), (3, 3, 3)] {
        let mut mg = Config::new(mid(1));
        mg.version = mg_version;
        let mut mgc = Config::new(mid(2));
        mgc.version = mgc_version;
        let mut pair = Pair::new(mg, mgc, Link::default(), 9);
        let to_b = pair.a.peer(pair.b.addr);
        pair.a.ep.send_request(pair.now, to_b, vec![sc()]).unwrap();
        let mut executed = std::collections::HashMap::new();
        pair.run_for(secs(1));
        answer_all(&mut pair, &mut executed);
        pair.run_for(secs(1));
        let to_a = pair.b.peer(pair.a.addr);
        assert_eq!(pair.a.ep.peer_version(to_b), Some(agreed));
        assert_eq!(pair.b.ep.peer_version(to_a), Some(agreed));
        assert!(pair.a.ep.is_registered(to_b) && pair.b.ep.is_registered(to_a));
        assert!(Pair::transactions(&mut pair.a)
            .iter()
            .any(|(_, e)| matches!(e, Event::VersionNegotiated { version } if *version == agreed)));
        // The next Notify, both ways, goes out in the agreed version.
        pair.a
            .ep
            .send_request(pair.now, to_b, vec![notify(1)])
            .unwrap();
        pair.b
            .ep
            .send_request(pair.now, to_a, vec![notify(2)])
            .unwrap();
        for node in [&mut pair.a, &mut pair.b] {
            let t = node.ep.poll_transmit().unwrap();
            let v = Encoding::pretty().version_of(&t.contents).unwrap();
            assert_eq!(v, agreed, "{mg_version}/{mgc_version}");
        }
    }
}

/// An unknown peer's undecodable message is answered in the version its
/// header names when we speak it (a v1 gateway need not read v3), else in
/// ours; bytes with no readable header get ours too.
#[test]
fn an_undecodable_message_is_answered_in_the_peers_version() {
    for (ours, theirs, answered) in [(3, "1", 1), (3, "2", 2), (3, "3", 3), (2, "3", 2)] {
        let mut config = Config::new(mid(2));
        config.version = ours;
        let mut pair = Pair::new(Config::new(mid(1)), config, Link::default(), 5);
        let udp = pair.b.udp;
        let from = std::net::SocketAddr::from(([127, 0, 1, 1], 10_000));
        let garbage = format!("MEGACO/{theirs} [127.0.1.1]:10000 Transaction = 1 {{ junk");
        pair.b
            .ep
            .handle_datagram(pair.now, Peer::new(udp, from), garbage.as_bytes());
        let t = pair.b.ep.poll_transmit().expect("an error reply");
        let v = Encoding::pretty().version_of(&t.contents).unwrap();
        assert_eq!(v, answered, "ours {ours}, theirs {theirs}");
        let text = String::from_utf8_lossy(&t.contents);
        assert!(text.contains("Error"), "{text}");
    }
    let mut pair = Pair::new(Config::new(mid(1)), Config::new(mid(2)), Link::default(), 6);
    let udp = pair.b.udp;
    let from = std::net::SocketAddr::from(([127, 0, 1, 1], 10_001));
    pair.b
        .ep
        .handle_datagram(pair.now, Peer::new(udp, from), b"MEGACO/x garbage");
    let t = pair.b.ep.poll_transmit().expect("an error reply");
    assert_eq!(Encoding::pretty().version_of(&t.contents), Ok(1));
}

/// Garbage from 5,000 addresses only churns the small table of unproven
/// peers, within the error rate limit; a gateway registering afterwards is
/// admitted and answered at once.
#[test]
fn garbage_from_many_addresses_does_not_lock_out_a_gateway() {
    let mut pair = Pair::new(
        Config::new(mid(1)),
        Config::new(mid(2)),
        Link::default(),
        11,
    );
    let udp = pair.b.udp;
    let mut errors = 0;
    for port in 0..5000u16 {
        let from = std::net::SocketAddr::from(([127, 0, 1, 1], 10_000 + port));
        pair.b
            .ep
            .handle_datagram(pair.now, Peer::new(udp, from), b"\x30\x03garbage");
        while pair.b.ep.poll_transmit().is_some() {
            errors += 1;
        }
    }
    let stats = pair.b.ep.stats();
    assert_eq!(stats.unproven, 1024);
    assert_eq!(stats.unproven_evicted, 5000 - 1024);
    assert_eq!(stats.decode_errors, 5000);
    assert_eq!(errors, 200, "the burst of the total error rate");
    assert_eq!(stats.errors_rate_limited, 4800);
    // A report of what was dropped, once.
    pair.b
        .ep
        .handle_timeout(pair.now + Duration::from_millis(1));
    let reports: Vec<_> = std::iter::from_fn(|| pair.b.ep.poll_event())
        .filter(|e| matches!(e, EndpointEvent::Dropped(_)))
        .collect();
    assert_eq!(reports.len(), 1, "{reports:?}");

    let to_b = pair.a.peer(pair.b.addr);
    let id = pair.a.ep.send_request(pair.now, to_b, vec![sc()]).unwrap();
    let mut executed = std::collections::HashMap::new();
    pair.run_for(Duration::from_millis(10));
    answer_all(&mut pair, &mut executed);
    pair.run_for(Duration::from_millis(10));
    assert!(Pair::transactions(&mut pair.a).iter().any(
        |(_, e)| matches!(e, Event::ReplyReceived { transaction_id, .. } if *transaction_id == id)
    ));
    assert_eq!(pair.b.ep.stats().registered, 1);
    // The unproven ones go after their timeout; the gateway stays.
    pair.run_for(secs(11));
    assert_eq!(pair.b.ep.stats().unproven, 0);
    assert_eq!(pair.b.ep.stats().peers, 1);
}

/// The caches of all peers together stay within their budgets: beyond the
/// bytes, the largest holders drop replies but remember that the requests
/// ran (a duplicate is dropped); beyond the count, they forget requests
/// (a duplicate runs again). Both are counted and reported.
#[test]
fn caches_of_all_peers_stay_within_the_budgets() {
    use megaco_stack::endpoint::{Endpoint, TransportKind};
    let mut config = Config::new(mid(2));
    config.transport.reply_cache_total = 2000;
    config.transport.max_remembered_total = 200;
    let mut ep = Endpoint::new(config);
    let udp = ep.add_transport(TransportKind::Datagram);
    let now = std::time::Instant::now();
    let peer = |p: u16| Peer::new(udp, std::net::SocketAddr::from(([127, 0, 0, 9], 3000 + p)));
    let request = |id: u32| format!("!/1 [127.0.0.9]:2944 T={id}{{C=1{{N=a/1{{OE=1{{al/of}}}}}}}}");
    /// Hands out the requests (replying to them if `reply`); returns how
    /// many there were.
    fn handle(ep: &mut Endpoint, now: std::time::Instant, reply: bool) -> usize {
        let mut executed = 0;
        while let Some(event) = ep.poll_event() {
            if let EndpointEvent::Transaction {
                peer,
                event:
                    Event::RequestReceived {
                        transaction_id,
                        actions,
                        ..
                    },
            } = event
            {
                executed += 1;
                if reply {
                    let result = build::default_replies(&actions);
                    ep.reply(now, peer, transaction_id, result).unwrap();
                }
            }
        }
        while ep.poll_transmit().is_some() {}
        executed
    }
    let mut executed = 0;
    for p in 0..40 {
        for id in 1..=10 {
            ep.handle_datagram(now, peer(p), request(id).as_bytes());
            executed += handle(&mut ep, now, true);
        }
    }
    assert_eq!(executed, 400);
    let s = ep.stats();
    assert!(s.cached_reply_bytes <= 2000, "{s:?}");
    assert_eq!(s.remembered_requests, 200, "{s:?}");
    assert_eq!(s.remembered_shed, 200, "{s:?}");
    assert!(s.replies_shed > 0, "{s:?}");
    ep.handle_timeout(now + Duration::from_millis(1));
    let reported: Vec<_> = std::iter::from_fn(|| ep.poll_event())
        .filter_map(|e| match e {
            EndpointEvent::Dropped(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(reported[0].remembered_shed, 200);
    assert_eq!(reported[0].replies_shed, s.replies_shed);

    // Every request again (not answered this time): the forgotten ones
    // run again, the others are answered from the cache or dropped.
    executed = 0;
    for p in 0..40 {
        for id in 1..=10 {
            ep.handle_datagram(now, peer(p), request(id).as_bytes());
            executed += handle(&mut ep, now, false);
        }
    }
    let after = ep.stats();
    assert_eq!(executed, 200);
    let answered = after.duplicates_answered - s.duplicates_answered;
    let dropped = after.duplicates_dropped - s.duplicates_dropped;
    assert_eq!(answered + dropped, 200, "{after:?}");
    assert!(answered > 0 && dropped > 0, "{after:?}");
}

/// A peer that sent one valid message and then a stream of garbage, and
/// peers refused by a full table, each get one event per report interval;
/// every message is counted and reported.
#[test]
fn garbage_and_refusals_are_counted_not_an_event_each() {
    let mut config = Config::new(mid(2));
    config.transport.max_peers = 1;
    let mut pair = Pair::new(Config::new(mid(1)), config, Link::default(), 12);
    let to_b = pair.a.peer(pair.b.addr);
    pair.a.ep.send_request(pair.now, to_b, vec![sc()]).unwrap();
    let mut executed = std::collections::HashMap::new();
    pair.run_for(Duration::from_millis(10));
    answer_all(&mut pair, &mut executed);
    pair.run_for(Duration::from_millis(10));
    assert_eq!(pair.b.ep.stats().registered, 1);
    let _ = std::iter::from_fn(|| pair.b.ep.poll_event()).count();

    let (udp, now) = (pair.b.udp, pair.now);
    let events = |pair: &mut Pair| -> Vec<EndpointEvent> {
        while pair.b.ep.poll_transmit().is_some() {}
        std::iter::from_fn(|| pair.b.ep.poll_event()).collect()
    };
    let is_decode_error = |e: &EndpointEvent| {
        matches!(
            e,
            EndpointEvent::Transaction {
                event: Event::DecodeError { .. },
                ..
            }
        )
    };
    let mut seen = Vec::new();
    for _ in 0..1000 {
        pair.b.ep.handle_datagram(
            now,
            Peer::new(udp, pair.a.addr),
            b"!/1 [127.0.0.1]:5555 T=1{ garbage",
        );
        seen.extend(events(&mut pair));
    }
    let other = std::net::SocketAddr::from(([127, 0, 1, 9], 2944));
    for id in 1..=1000u32 {
        let request = format!("!/1 [127.0.1.9]:2944 T={id}{{C=-{{N=tdm/1{{OE=1{{al/of}}}}}}}}");
        pair.b
            .ep
            .handle_datagram(now, Peer::new(udp, other), request.as_bytes());
        seen.extend(events(&mut pair));
    }
    assert_eq!(seen.iter().filter(|e| is_decode_error(e)).count(), 1);
    let refused = seen
        .iter()
        .filter(|e| matches!(e, EndpointEvent::PeerRefused { .. }))
        .count();
    assert_eq!(refused, 1);
    let stats = pair.b.ep.stats();
    assert_eq!((stats.decode_errors, stats.peers_refused), (1000, 1000));
    // The reports count them all.
    let (mut decode_errors, mut peers_refused) = (0, 0);
    for after in [1, 11_000] {
        pair.b.ep.handle_timeout(now + Duration::from_millis(after));
        for e in events(&mut pair) {
            if let EndpointEvent::Dropped(r) = e {
                decode_errors += r.decode_errors;
                peers_refused += r.peers_refused;
            }
        }
    }
    assert_eq!((decode_errors, peers_refused), (1000, 1000));
    // A new interval: the next of each is handed out again.
    let later = now + secs(11);
    pair.b.ep.handle_datagram(
        later,
        Peer::new(udp, pair.a.addr),
        b"!/1 [127.0.0.1]:5555 T=1{ garbage",
    );
    pair.b.ep.handle_datagram(
        later,
        Peer::new(udp, other),
        b"!/1 [127.0.1.9]:2944 T=5000{C=-{N=tdm/1{OE=1{al/of}}}}",
    );
    let seen = events(&mut pair);
    assert_eq!(seen.iter().filter(|e| is_decode_error(e)).count(), 1);
    assert!(seen
        .iter()
        .any(|e| matches!(e, EndpointEvent::PeerRefused { .. })));
}
