//! The engine reads duplicates, pendings, acks and SegmentReplies from a
//! borrowed view of the bytes (BER and text): one conversation run twice, once
//! through `handle_input` (the view where it suffices) and once decoding
//! every message into the model first, gives the same messages, events
//! and counters.
use std::time::{Duration, Instant};

use megaco::model::*;
use megaco_stack::engine::{Config, Connection, ConnectionStats, Event};
use megaco_stack::{build, Encoding};

fn mid(a: u8) -> Mid {
    Mid::Ip4(Ip4Address {
        address: [10, 0, 0, a],
        port: Some(2944),
    })
}

fn config(a: u8, encoding: &Encoding) -> Config {
    let mut c = Config::new(mid(a));
    c.version = 3;
    c.encoding = encoding.clone();
    c.imm_ack_required = true;
    // One action reply per segment: the reply to seven Notifies goes in
    // seven segments.
    c.max_pdu_size = Some(1);
    c
}

fn notify(event: u32) -> ActionRequest {
    build::notify(
        ContextId(1),
        TerminationId::new("11111111/00000000/00000001"),
        event,
        "al/on",
    )
}

/// What one side did after a step: its messages and its events.
#[derive(Debug, PartialEq)]
struct Step {
    sent: Vec<Vec<u8>>,
    events: Vec<Event>,
}

struct Run {
    mg: Connection,
    mgc: Connection,
    view: bool,
    trace: Vec<Step>,
    /// How many segments the long reply took.
    segments: usize,
}

impl Run {
    /// Delivers `bytes` to one side, through the view or decoded first.
    fn deliver(&mut self, to_mgc: bool, now: Instant, bytes: &[u8]) {
        let c = if to_mgc { &mut self.mgc } else { &mut self.mg };
        if self.view {
            c.handle_input(now, bytes);
        } else {
            let msg = c.encoding().decode(bytes).unwrap();
            c.handle_message(now, msg);
        }
    }

    /// Records and returns what `side` did since the last call.
    fn take(&mut self, to_mgc: bool) -> Vec<Vec<u8>> {
        let c = if to_mgc { &mut self.mgc } else { &mut self.mg };
        let sent: Vec<Vec<u8>> = std::iter::from_fn(|| c.poll_transmit()).collect();
        let events = std::iter::from_fn(|| c.poll_event()).collect();
        self.trace.push(Step {
            sent: sent.clone(),
            events,
        });
        sent
    }

    /// Delivers `bytes` to a side and returns what it sent back.
    fn exchange(&mut self, to_mgc: bool, now: Instant, bytes: &[Vec<u8>]) -> Vec<Vec<u8>> {
        for b in bytes {
            self.deliver(to_mgc, now, b);
        }
        self.take(to_mgc)
    }
}

/// Registration, a request resent while the MGC works on it, a segmented
/// reply acknowledged segment by segment, the request resent after the
/// reply, and the final ack.
fn conversation(encoding: &Encoding, view: bool) -> (Run, [ConnectionStats; 2]) {
    let t0 = Instant::now();
    let mut run = Run {
        mg: Connection::new(config(1, encoding)),
        mgc: Connection::new(config(2, encoding)),
        view,
        trace: Vec::new(),
        segments: 0,
    };
    let sc = build::service_change(TerminationId::root(), ServiceChangeMethod::Restart, "boot");
    run.mg.send_request(t0, vec![sc.clone()]).unwrap();
    let req = run.take(false);
    run.exchange(true, t0, &req);
    let reply = build::default_replies(&[sc]);
    run.mgc.reply(t0, 1, reply).unwrap();
    let reply = run.take(true);
    let ack = run.exchange(false, t0, &reply);
    run.exchange(true, t0, &ack);

    let actions: Vec<ActionRequest> = (1..=7).map(notify).collect();
    let id = run.mg.send_request(t0, actions.clone()).unwrap();
    let req = run.take(false);
    run.exchange(true, t0, &req);
    // The MG resends; the MGC is still working: a pending, which stops
    // the MG's resends.
    let t7 = t0 + Duration::from_secs(7);
    run.mg.handle_timeout(t7);
    let resent = run.take(false);
    assert_eq!(resent, req);
    let pending = run.exchange(true, t7, &resent);
    run.exchange(false, t7, &pending);
    // The reply, in segments; the MG answers each with a SegmentReply
    // and acknowledges the whole once.
    run.mgc
        .reply(t7, id, build::default_replies(&actions))
        .unwrap();
    let segments = run.take(true);
    assert!(segments.len() >= 3, "{} segments", segments.len());
    run.segments = segments.len();
    assert!(run.mgc.awaits_segment_replies());
    let answers = run.exchange(false, t7, &segments);
    let (segment_replies, ack) = answers.split_at(answers.len() - 1);
    run.exchange(true, t7, segment_replies);
    assert!(!run.mgc.awaits_segment_replies());
    // The request once more (as if the reply were lost): every segment
    // again, from the cache.
    let again = run.exchange(true, t7, &req);
    assert_eq!(again, segments);
    run.exchange(true, t7, ack);
    assert_eq!(run.mgc.remembered_requests(), 0, "the ack released it");
    let stats = [run.mg.stats(), run.mgc.stats()];
    (run, stats)
}

#[test]
fn the_view_answers_as_the_decoded_message_does() {
    for encoding in [Encoding::ber(), Encoding::compact(), Encoding::pretty()] {
        let (viewed, [mg_v, mgc_v]) = conversation(&encoding, true);
        let (decoded, [mg_d, mgc_d]) = conversation(&encoding, false);
        assert_eq!(viewed.trace, decoded.trace, "{encoding}");
        // The MG viewed the pending; the MGC the ack of the registration,
        // the resend before the reply, the SegmentReplies, the resend
        // after it and the ack.
        let segments = viewed.segments as u64;
        assert_eq!(mg_v.messages_viewed, 1, "{encoding}");
        assert_eq!(
            mgc_v.messages_viewed,
            1 + 1 + segments + 1 + 1,
            "{encoding}"
        );
        assert_eq!((mg_d.messages_viewed, mgc_d.messages_viewed), (0, 0));
        let without_view = |mut s: ConnectionStats| {
            s.messages_viewed = 0;
            s
        };
        assert_eq!(without_view(mg_v), mg_d, "{encoding}");
        assert_eq!(without_view(mgc_v), mgc_d, "{encoding}");
        assert_eq!(mgc_v.duplicates_answered, 1, "{encoding}");
    }
}

/// PER has no view yet: the same conversation decodes every message.
#[test]
fn per_is_decoded() {
    let (_, [mg, mgc]) = conversation(&Encoding::per(), true);
    assert_eq!((mg.messages_viewed, mgc.messages_viewed), (0, 0));
}

/// A message of more transactions and ack ranges than the view path
/// notes (16) is decoded instead, with the same effect.
#[test]
fn a_long_ack_list_is_decoded() {
    let encoding = Encoding::ber();
    for (ranges, viewed) in [(16, 1), (17, 0)] {
        let mut mgc = Connection::new(config(2, &encoding));
        let msg = megaco::MegacoMessage {
            auth_header: None,
            mess: Message {
                version: 3,
                mid: mid(1),
                body: MessageBody::Transactions(
                    vec![Transaction::ResponseAck(
                        (1..=ranges)
                            .map(|i| TransactionAck {
                                first_ack: i * 10,
                                last_ack: Some(i * 10 + 5),
                            })
                            .collect(),
                    )]
                    .into(),
                ),
            },
        };
        mgc.handle_input(Instant::now(), &encoding.encode(&msg).unwrap());
        assert_eq!(mgc.stats().messages_viewed, viewed, "{ranges} ranges");
        assert_eq!(mgc.poll_transmit(), None);
        assert_eq!(mgc.poll_event(), None);
    }
}

/// After a run of new requests the view is tried on one message in
/// `VIEW_PATIENCE` only; a flood of repeats is read from it again after
/// at most that many messages.
#[test]
fn repeats_after_many_new_requests_are_viewed_again() {
    let encoding = Encoding::compact();
    let mut mg = Connection::new(config(1, &encoding));
    let mut mgc = Connection::new(config(2, &encoding));
    let t0 = Instant::now();
    let mut last = Vec::new();
    for n in 0..100 {
        mg.send_request(t0, vec![notify(n)]).unwrap();
        last = mg.poll_transmit().unwrap();
        mgc.handle_input(t0, &last);
        let Some(Event::RequestReceived { transaction_id, .. }) = mgc.poll_event() else {
            panic!()
        };
        mgc.reply(t0, transaction_id, build::default_replies(&[notify(n)]))
            .unwrap();
    }
    assert_eq!(mgc.stats().messages_viewed, 0);
    while mgc.poll_transmit().is_some() {}
    for _ in 0..50 {
        mgc.handle_input(t0, &last);
    }
    let stats = mgc.stats();
    assert_eq!(stats.duplicates_answered, 50);
    let patience = u64::from(megaco_stack::engine::VIEW_PATIENCE);
    assert!(stats.messages_viewed >= 50 - patience, "{stats:?}");
}
