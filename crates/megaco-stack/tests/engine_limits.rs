//! The engine's bounds, cancellation and segmented replies, with injected
//! time.
use std::time::{Duration, Instant};

use megaco::model::*;
use megaco::MegacoMessage;
use megaco_stack::engine::{
    Config, Connection, Error, Event, FailReason, ERR_MISSING_SEGMENTS, ERR_SERVICE_UNAVAILABLE,
    MAX_REPLY_SEGMENTS, MAX_SEGMENTED_REPLY_BYTES,
};
use megaco_stack::{build, Encoding};

fn mid(a: u8) -> Mid {
    Mid::Ip4(Ip4Address {
        address: [10, 0, 0, a],
        port: Some(2944),
    })
}

fn v3(a: u8) -> Config {
    let mut c = Config::new(mid(a));
    c.version = 3;
    c
}

fn notify(event: u32) -> ActionRequest {
    build::notify(ContextId(1), TerminationId::new("t1"), event, "al/on")
}

fn drain(c: &mut Connection) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| c.poll_transmit()).collect()
}

fn events(c: &mut Connection) -> Vec<Event> {
    std::iter::from_fn(|| c.poll_event()).collect()
}

fn body(bytes: &[u8]) -> MessageBody {
    megaco::text::decode(bytes).unwrap().mess.body
}

fn transactions(bytes: &[u8]) -> Vec<Transaction> {
    match body(bytes) {
        MessageBody::Transactions(t) => t.to_vec(),
        MessageBody::Error(e) => panic!("error message {e:?}"),
    }
}

/// The single reply in `bytes`: its id and error code.
fn error_reply(bytes: &[u8]) -> (u32, u16) {
    match &transactions(bytes)[..] {
        [Transaction::Reply(TransactionReply {
            transaction_id,
            result: TransactionResult::Error(e),
            ..
        })] => (*transaction_id, e.error_code),
        other => panic!("{other:?}"),
    }
}

/// A v3 message from `mid(from)` with one transaction, in pretty text.
fn v3_message(from: u8, t: Transaction) -> Vec<u8> {
    let msg = MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 3,
            mid: mid(from),
            body: MessageBody::Transactions(vec![t].into()),
        },
    };
    Encoding::pretty().encode(&msg).unwrap()
}

/// A v3 message from the MGC with one reply segment.
fn segment(id: u32, number: u16, complete: bool, result: TransactionResult) -> Vec<u8> {
    v3_message(
        2,
        Transaction::Reply(TransactionReply {
            transaction_id: id,
            imm_ack_required: false,
            result,
            segment_number: Some(number),
            segmentation_complete: complete,
        }),
    )
}

/// The default reply to a notify of `event`, as one segment's result.
fn part(event: u32) -> TransactionResult {
    build::default_replies(&[notify(event)])
}

fn replies(r: TransactionResult) -> Vec<ActionReply> {
    match r {
        TransactionResult::ActionReplies(a) => a.to_vec(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn outstanding_requests_are_bounded() {
    let mut cfg = Config::new(mid(1));
    cfg.max_outstanding_requests = Some(2);
    let mut mg = Connection::new(cfg);
    let mut mgc = Connection::new(Config::new(mid(2)));
    let t0 = Instant::now();
    let first = mg.send_request(t0, vec![notify(1)]).unwrap();
    mg.send_request(t0, vec![notify(2)]).unwrap();
    assert_eq!(
        mg.send_request(t0, vec![notify(3)]),
        Err(Error::TooManyOutstanding(2))
    );
    // Nothing was sent for the refused one, and no id was used up.
    let sent = drain(&mut mg);
    assert_eq!(sent.len(), 2);

    // A reply frees a slot.
    mgc.handle_input(t0, &sent[0]);
    let Some(Event::RequestReceived { transaction_id, .. }) = mgc.poll_event() else {
        panic!()
    };
    mgc.reply(t0, transaction_id, part(1)).unwrap();
    mg.handle_input(t0, &mgc.poll_transmit().unwrap());
    assert!(matches!(
        mg.poll_event(),
        Some(Event::ReplyReceived { transaction_id, .. }) if transaction_id == first
    ));
    assert_eq!(mg.send_request(t0, vec![notify(3)]), Ok(3));
}

#[test]
fn cancelled_request_is_not_resent() {
    let mut mg = Connection::new(Config::new(mid(1)));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![notify(1)]).unwrap();
    drain(&mut mg);
    assert!(mg.cancel(id));
    assert_eq!(mg.poll_timeout(), None);
    mg.handle_timeout(t0 + Duration::from_secs(7));
    assert!(drain(&mut mg).is_empty());
    assert!(events(&mut mg).is_empty());
    assert!(mg.is_idle());
}

#[test]
fn unanswered_requests_beyond_the_limit_get_503() {
    let mut mg = Connection::new(Config::new(mid(1)));
    let mut cfg = Config::new(mid(2));
    cfg.max_unanswered_requests = Some(1);
    let mut mgc = Connection::new(cfg);
    let t0 = Instant::now();
    mg.send_request(t0, vec![notify(1)]).unwrap();
    mg.send_request(t0, vec![notify(2)]).unwrap();
    for bytes in drain(&mut mg) {
        mgc.handle_input(t0, &bytes);
    }
    let ev = events(&mut mgc);
    assert!(matches!(
        ev[..],
        [
            Event::RequestReceived {
                transaction_id: 1,
                ..
            },
            Event::RequestRefused { transaction_id: 2 }
        ]
    ));
    let out = drain(&mut mgc);
    assert_eq!(out.len(), 1);
    assert_eq!(error_reply(&out[0]), (2, ERR_SERVICE_UNAVAILABLE));
    assert_eq!(mgc.unanswered_requests(), 1);

    // Once the first is answered, a new request is taken again.
    mgc.reply(t0, 1, part(1)).unwrap();
    assert_eq!(mgc.unanswered_requests(), 0);
    drain(&mut mgc);
    mg.send_request(t0, vec![notify(3)]).unwrap();
    mgc.handle_input(t0, &mg.poll_transmit().unwrap());
    assert!(matches!(
        mgc.poll_event(),
        Some(Event::RequestReceived {
            transaction_id: 3,
            ..
        })
    ));
}

/// Segments out of order and duplicated: each is acknowledged with a
/// SegmentReply (as OTP's messenger does), the whole reply is delivered
/// once, in segment order, and the transaction is acknowledged.
#[test]
fn segmented_reply_is_collected_and_delivered_whole() {
    let mut mg = Connection::new(v3(1));
    let t0 = Instant::now();
    let id = mg
        .send_request(t0, vec![notify(1), notify(2), notify(3)])
        .unwrap();
    drain(&mut mg);

    mg.handle_input(t0, &segment(id, 3, true, part(3)));
    mg.handle_input(t0, &segment(id, 1, false, part(1)));
    mg.handle_input(t0, &segment(id, 1, false, part(1)));
    assert!(events(&mut mg).is_empty());
    let seg_replies: Vec<Transaction> = drain(&mut mg)
        .iter()
        .flat_map(|b| transactions(b))
        .collect();
    let sr = |n, c| {
        Transaction::SegmentReply(SegmentReply {
            transaction_id: id,
            segment_number: n,
            segmentation_complete: c,
        })
    };
    assert_eq!(seg_replies, vec![sr(3, true), sr(1, false), sr(1, false)]);

    mg.handle_input(t0, &segment(id, 2, false, part(2)));
    let ev = events(&mut mg);
    let [Event::ReplyReceived {
        transaction_id,
        result,
    }] = &ev[..]
    else {
        panic!("{ev:?}")
    };
    assert_eq!(*transaction_id, id);
    let expected: Vec<ActionReply> = (1..=3).flat_map(|e| replies(part(e))).collect();
    assert_eq!(replies(result.clone()), expected);
    let out: Vec<Transaction> = drain(&mut mg)
        .iter()
        .flat_map(|b| transactions(b))
        .collect();
    assert_eq!(
        out,
        vec![
            sr(2, false),
            Transaction::ResponseAck(vec![TransactionAck {
                first_ack: id,
                last_ack: None
            }])
        ]
    );
    assert_eq!(mg.poll_timeout(), None);
    assert!(mg.is_idle());

    // A straggler after completion is unexpected.
    mg.handle_input(t0, &segment(id, 2, false, part(2)));
    assert!(matches!(
        mg.poll_event(),
        Some(Event::UnexpectedReply { .. })
    ));
}

/// The first segment stops the resends; each new segment restarts the
/// segment timer; at its expiry the peer gets error 459 listing what is
/// missing and the request fails.
#[test]
fn missing_segments_time_out_with_error_459() {
    let mut mg = Connection::new(v3(1));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![notify(1)]).unwrap();
    drain(&mut mg);
    let t1 = t0 + Duration::from_secs(1);
    mg.handle_input(t1, &segment(id, 1, false, part(1)));
    assert_eq!(mg.poll_timeout(), Some(t1 + Duration::from_secs(10)));
    let t2 = t0 + Duration::from_secs(8);
    mg.handle_input(t2, &segment(id, 4, true, part(4)));
    assert_eq!(mg.poll_timeout(), Some(t2 + Duration::from_secs(10)));
    drain(&mut mg);

    // No resend at the request timer's 7 s, nor at t1 + 10 s.
    mg.handle_timeout(t1 + Duration::from_secs(10));
    assert!(drain(&mut mg).is_empty());

    mg.handle_timeout(t2 + Duration::from_secs(10));
    let out = drain(&mut mg);
    assert_eq!(out.len(), 1);
    let MessageBody::Error(e) = body(&out[0]) else {
        panic!()
    };
    assert_eq!(e.error_code, ERR_MISSING_SEGMENTS);
    assert_eq!(e.error_text.as_deref(), Some("2,3"));
    assert_eq!(
        events(&mut mg),
        vec![Event::SegmentsMissing {
            transaction_id: id,
            missing: vec![2, 3]
        }]
    );
    assert!(mg.is_idle());
}

/// When the segment marked complete never comes, the number after the
/// highest received is reported missing.
#[test]
fn missing_last_segment_is_reported() {
    let mut mg = Connection::new(v3(1));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![notify(1)]).unwrap();
    drain(&mut mg);
    mg.handle_input(t0, &segment(id, 1, false, part(1)));
    mg.handle_input(t0, &segment(id, 2, false, part(2)));
    drain(&mut mg);
    mg.handle_timeout(t0 + Duration::from_secs(10));
    assert_eq!(
        events(&mut mg),
        vec![Event::SegmentsMissing {
            transaction_id: id,
            missing: vec![3]
        }]
    );
}

/// A segment that is an error makes the whole reply that error.
#[test]
fn error_segment_makes_the_reply_an_error() {
    let mut mg = Connection::new(v3(1));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![notify(1)]).unwrap();
    drain(&mut mg);
    let err = TransactionResult::Error(ErrorDescriptor {
        error_code: 500,
        error_text: None,
    });
    mg.handle_input(t0, &segment(id, 1, false, part(1)));
    mg.handle_input(t0, &segment(id, 2, true, err.clone()));
    assert_eq!(
        events(&mut mg),
        vec![Event::ReplyReceived {
            transaction_id: id,
            result: err
        }]
    );
}

/// Segments of a reply to no outstanding request are unexpected and not
/// acknowledged.
#[test]
fn segment_without_request_is_unexpected() {
    let mut mg = Connection::new(v3(1));
    let t0 = Instant::now();
    mg.handle_input(t0, &segment(42, 1, true, part(1)));
    assert!(matches!(
        mg.poll_event(),
        Some(Event::UnexpectedReply {
            transaction_id: 42,
            ..
        })
    ));
    assert!(drain(&mut mg).is_empty());
}

/// A segment carrying ImmAckRequired is acknowledged; the completing one's
/// ack and the transaction ack travel together, once.
#[test]
fn imm_ack_on_last_segment_is_sent_once() {
    let mut mg = Connection::new(v3(1));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![notify(1)]).unwrap();
    drain(&mut mg);
    let mut msg = Encoding::pretty()
        .decode(&segment(id, 1, true, part(1)))
        .unwrap();
    let MessageBody::Transactions(t) = &mut msg.mess.body else {
        panic!()
    };
    let Transaction::Reply(r) = &mut t[0] else {
        panic!()
    };
    r.imm_ack_required = true;
    mg.handle_message(t0, msg);
    let out: Vec<Transaction> = drain(&mut mg)
        .iter()
        .flat_map(|b| transactions(b))
        .collect();
    let acks = out
        .iter()
        .filter(|t| matches!(t, Transaction::ResponseAck(_)))
        .count();
    assert_eq!(acks, 1);
    assert!(matches!(mg.poll_event(), Some(Event::ReplyReceived { .. })));
}

/// A lone last segment numbered [`MAX_REPLY_SEGMENTS`]: every gap is
/// reported to the user, the error text to the peer stays short.
#[test]
fn huge_segment_gap_keeps_the_error_short() {
    let mut mg = Connection::new(v3(1));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![notify(1)]).unwrap();
    drain(&mut mg);
    mg.handle_input(t0, &segment(id, MAX_REPLY_SEGMENTS, true, part(1)));
    drain(&mut mg);
    mg.handle_timeout(t0 + Duration::from_secs(10));
    let out = drain(&mut mg);
    let MessageBody::Error(e) = body(&out[0]) else {
        panic!()
    };
    let text = e.error_text.unwrap();
    assert!(text.starts_with("1,2,3,"), "{text}");
    assert!(text.ends_with(",64,..."), "{text}");
    match &events(&mut mg)[..] {
        [Event::SegmentsMissing { missing, .. }] => {
            assert_eq!(missing.len(), usize::from(MAX_REPLY_SEGMENTS) - 1);
        }
        other => panic!("{other:?}"),
    }
}

/// A segment numbered beyond [`MAX_REPLY_SEGMENTS`] (a controller
/// announcing segment 65535 as the last, then sending 1, 2, ... for
/// ever) fails the request at once: nothing is held, and the segments
/// that follow are unexpected.
#[test]
fn segment_numbered_beyond_the_limit_fails_the_request() {
    let mut mg = Connection::new(v3(1));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![notify(1)]).unwrap();
    drain(&mut mg);
    mg.handle_input(t0, &segment(id, MAX_REPLY_SEGMENTS + 1, true, part(1)));
    assert_eq!(
        events(&mut mg),
        vec![Event::RequestFailed {
            transaction_id: id,
            reason: FailReason::SegmentLimitExceeded
        }]
    );
    // No SegmentReply for it, no timer, nothing held.
    assert!(drain(&mut mg).is_empty());
    assert_eq!(mg.outstanding_requests(), 0);
    assert_eq!(mg.poll_timeout(), None);
    mg.handle_input(t0, &segment(id, 1, false, part(1)));
    assert!(matches!(
        &events(&mut mg)[..],
        [Event::UnexpectedReply { .. }]
    ));
    assert_eq!(mg.outstanding_requests(), 0);
}

/// The largest reply taken: [`MAX_REPLY_SEGMENTS`] segments, the last
/// first, is collected and delivered whole.
#[test]
fn reply_of_the_most_segments_is_collected() {
    let mut mg = Connection::new(v3(1));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![notify(1)]).unwrap();
    drain(&mut mg);
    mg.handle_input(t0, &segment(id, MAX_REPLY_SEGMENTS, true, part(1)));
    for n in 1..MAX_REPLY_SEGMENTS {
        mg.handle_input(t0, &segment(id, n, false, part(1)));
        drain(&mut mg);
    }
    match &events(&mut mg)[..] {
        [Event::ReplyReceived {
            transaction_id,
            result,
        }] => {
            assert_eq!(*transaction_id, id);
            assert_eq!(
                replies(result.clone()).len(),
                usize::from(MAX_REPLY_SEGMENTS)
            );
        }
        other => panic!("{} events, first {:?}", other.len(), other.first()),
    }
    assert!(mg.is_idle());
}

/// Segments whose bytes together go beyond [`MAX_SEGMENTED_REPLY_BYTES`]
/// (a controller sending 40 KB segments that never end) fail the request
/// at the segment that goes beyond, and the segments held are freed.
#[test]
fn segments_beyond_the_byte_limit_fail_the_request() {
    let mut mg = Connection::new(v3(1));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![notify(1)]).unwrap();
    drain(&mut mg);
    let big = || {
        let name = "x".repeat(40_000);
        build::default_replies(&[build::notify(
            ContextId::NULL,
            TerminationId::new(&name),
            1,
            "al/on",
        )])
    };
    let mut sent = 0usize;
    let mut failed_at = None;
    for n in 1..=300u16 {
        let bytes = segment(id, n, false, big());
        sent += bytes.len();
        mg.handle_input(t0, &bytes);
        let ev = events(&mut mg);
        if !ev.is_empty() {
            assert_eq!(
                ev,
                vec![Event::RequestFailed {
                    transaction_id: id,
                    reason: FailReason::SegmentLimitExceeded
                }]
            );
            failed_at = Some(n);
            break;
        }
    }
    let n = failed_at.expect("the request did not fail");
    assert!(
        sent > MAX_SEGMENTED_REPLY_BYTES,
        "failed early, at {sent} bytes"
    );
    assert!(sent < MAX_SEGMENTED_REPLY_BYTES + 2 * 41_000, "{n}: {sent}");
    assert_eq!(mg.outstanding_requests(), 0);
    assert_eq!(mg.poll_timeout(), None);
}

/// The MG asks `n` notifies of the MGC (both v3); the MGC's request id.
fn notify_request(mg: &mut Connection, mgc: &mut Connection, n: u32, t0: Instant) -> (u32, u32) {
    let actions = (1..=n).map(notify).collect();
    let id = mg.send_request(t0, actions).unwrap();
    for b in drain(mg) {
        mgc.handle_input(t0, &b);
    }
    match &events(mgc)[..] {
        [Event::RequestReceived { transaction_id, .. }] => (id, *transaction_id),
        other => panic!("{other:?}"),
    }
}

/// A reply longer than `max_pdu_size` goes out as segments, each within
/// the limit, numbered from 1 with the last marked complete; the
/// requester collects them into the whole reply; a repeated request gets
/// every segment again.
#[test]
fn long_reply_is_sent_in_segments_within_max_pdu_size() {
    const MAX: usize = 120;
    let t0 = Instant::now();
    let mut mg = Connection::new(v3(1));
    let mut cfg = v3(2);
    cfg.max_pdu_size = Some(MAX);
    let mut mgc = Connection::new(cfg);
    let (id, at_mgc) = notify_request(&mut mg, &mut mgc, 7, t0);
    let result = build::default_replies(&(1..=7).map(notify).collect::<Vec<_>>());
    let whole = v3_message(
        2,
        Transaction::Reply(TransactionReply {
            transaction_id: at_mgc,
            imm_ack_required: false,
            result: result.clone(),
            segment_number: None,
            segmentation_complete: false,
        }),
    );
    assert!(whole.len() > 2 * MAX, "needs 3 segments: {}", whole.len());
    mgc.reply(t0, at_mgc, result.clone()).unwrap();
    let sent = drain(&mut mgc);
    assert!(sent.len() >= 3, "{} segments", sent.len());
    let mut numbers = Vec::new();
    let mut carried = Vec::new();
    for (i, bytes) in sent.iter().enumerate() {
        assert!(bytes.len() <= MAX, "segment of {} bytes", bytes.len());
        let [Transaction::Reply(r)] = &transactions(bytes)[..] else {
            panic!()
        };
        assert_eq!(r.transaction_id, at_mgc);
        assert_eq!(r.segmentation_complete, i + 1 == sent.len());
        numbers.push(r.segment_number.unwrap());
        carried.extend(replies(r.result.clone()));
    }
    assert_eq!(numbers, (1..=sent.len() as u16).collect::<Vec<_>>());
    assert_eq!(carried, replies(result.clone()));

    // Delivered in reverse, the MG still gets the whole reply once.
    for bytes in sent.iter().rev() {
        mg.handle_input(t0, bytes);
    }
    match &events(&mut mg)[..] {
        [Event::ReplyReceived {
            transaction_id,
            result: got,
        }] => {
            assert_eq!(*transaction_id, id);
            assert_eq!(got, &result);
        }
        other => panic!("{other:?}"),
    }

    // The request again (a lost reply): every segment again.
    let again = v3_message(
        1,
        Transaction::Request(TransactionRequest {
            transaction_id: at_mgc,
            actions: (1..=7).map(notify).collect(),
        }),
    );
    mgc.handle_input(t0, &again);
    assert_eq!(drain(&mut mgc), sent);
}

/// Without a limit, in v1/v2, or when one action reply alone is longer
/// than the limit, the reply goes out whole.
#[test]
fn reply_goes_out_whole_when_it_cannot_or_need_not_be_segmented() {
    let t0 = Instant::now();
    for (version, max, actions) in [(3, None, 7), (2, Some(200), 7), (3, Some(20), 1)] {
        let mut a = v3(1);
        a.version = version;
        let mut b = v3(2);
        b.version = version;
        b.max_pdu_size = max;
        let (mut mg, mut mgc) = (Connection::new(a), Connection::new(b));
        let (_, at_mgc) = notify_request(&mut mg, &mut mgc, actions, t0);
        let result = build::default_replies(&(1..=actions).map(notify).collect::<Vec<_>>());
        mgc.reply(t0, at_mgc, result.clone()).unwrap();
        let sent = drain(&mut mgc);
        let [bytes] = &sent[..] else {
            panic!("v{version} {max:?}: {} messages", sent.len())
        };
        let [Transaction::Reply(r)] = &transactions(bytes)[..] else {
            panic!()
        };
        assert_eq!((r.segment_number, &r.result), (None, &result));
    }
}

/// With a limit that lets one action reply per segment, each action
/// reply is its own segment.
#[test]
fn tight_limit_gives_one_action_reply_per_segment() {
    let t0 = Instant::now();
    let mut mg = Connection::new(v3(1));
    let mut cfg = v3(2);
    cfg.max_pdu_size = Some(1);
    let mut mgc = Connection::new(cfg);
    let (_, at_mgc) = notify_request(&mut mg, &mut mgc, 4, t0);
    let result = build::default_replies(&(1..=4).map(notify).collect::<Vec<_>>());
    mgc.reply(t0, at_mgc, result.clone()).unwrap();
    let sent = drain(&mut mgc);
    let per_segment: Vec<usize> = sent
        .iter()
        .map(|b| match &transactions(b)[..] {
            [Transaction::Reply(r)] => replies(r.result.clone()).len(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(per_segment, vec![1, 1, 1, 1]);
}
