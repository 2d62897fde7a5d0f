//! The transaction engine's races, with injected time.
use std::time::{Duration, Instant};

use megaco::model::*;
use megaco::MegacoMessage;
use megaco_stack::engine::{Config, Connection, Event, FailReason, RequestTimer};
use megaco_stack::{build, Encoding};

fn mid(a: u8) -> Mid {
    Mid::Ip4(Ip4Address {
        address: [10, 0, 0, a],
        port: Some(2944),
    })
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// The configuration of the tests below, which are about timers and
/// acks: OTP's 30 s reply timer, no version negotiation (tested on its
/// own in `negotiation.rs`).
fn otp_like(a: u8) -> Config {
    let mut c = Config::new(mid(a));
    c.reply_timer = Some(secs(30));
    c.negotiate_version = false;
    c
}

fn pair() -> (Connection, Connection) {
    (Connection::new(otp_like(1)), Connection::new(otp_like(2)))
}

fn sc() -> ActionRequest {
    build::service_change(
        TerminationId::root(),
        ServiceChangeMethod::Restart,
        "901 mg col boot",
    )
}

fn decode(bytes: &[u8]) -> MegacoMessage {
    megaco::text::decode(bytes).unwrap()
}

fn transactions(bytes: &[u8]) -> Vec<Transaction> {
    match decode(bytes).mess.body {
        MessageBody::Transactions(t) => t.to_vec(),
        MessageBody::Error(e) => panic!("error message {e:?}"),
    }
}

fn drain(c: &mut Connection) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| c.poll_transmit()).collect()
}

fn events(c: &mut Connection) -> Vec<Event> {
    std::iter::from_fn(|| c.poll_event()).collect()
}

/// Delivers the request from `mg` to `mgc` and returns its id at the MGC.
fn deliver_request(mg: &mut Connection, mgc: &mut Connection, now: Instant) -> u32 {
    let bytes = mg.poll_transmit().unwrap();
    mgc.handle_input(now, &bytes);
    match mgc.poll_event() {
        Some(Event::RequestReceived { transaction_id, .. }) => transaction_id,
        other => panic!("{other:?}"),
    }
}

fn sc_reply() -> TransactionResult {
    build::default_replies(&[sc()])
}

#[test]
fn transaction_ids_are_sequential_and_wrap() {
    let mut cfg = otp_like(1);
    cfg.min_trans_id = 5;
    cfg.max_trans_id = 6;
    let mut mg = Connection::new(cfg);
    let t0 = Instant::now();
    let ids: Vec<u32> = (0..2)
        .map(|_| mg.send_request(t0, vec![sc()]).unwrap())
        .collect();
    assert_eq!(ids, [5, 6]);
    // Both ids are in flight: a third request would reuse one, and its
    // reply would answer the wrong request.
    assert!(matches!(
        mg.send_request(t0, vec![sc()]),
        Err(megaco_stack::engine::Error::TooManyOutstanding(2))
    ));
    let sent = drain(&mut mg);
    assert_eq!(sent.len(), 2);
    let Transaction::Request(r) = &transactions(&sent[1])[0] else {
        panic!()
    };
    assert_eq!(r.transaction_id, 6);
    // Mid and version come from the configuration.
    let msg = decode(&sent[0]);
    assert_eq!(msg.mess.mid, mid(1));
    assert_eq!(msg.mess.version, 1);
    // Once they are done (timed out here), the ids wrap round.
    let mut later = t0;
    while let Some(t) = mg.poll_timeout() {
        later = t;
        mg.handle_timeout(t);
    }
    assert_eq!(mg.send_request(later, vec![sc()]).unwrap(), 5);
    assert_eq!(mg.send_request(later, vec![sc()]).unwrap(), 6);
}

#[test]
fn an_id_still_in_flight_is_skipped_after_a_wrap() {
    let mut cfg = otp_like(1);
    cfg.min_trans_id = 1;
    cfg.max_trans_id = 3;
    let mut mg = Connection::new(cfg);
    let mut mgc = Connection::new(otp_like(2));
    let t0 = Instant::now();
    let ids: Vec<u32> = (0..3)
        .map(|_| mg.send_request(t0, vec![sc()]).unwrap())
        .collect();
    assert_eq!(ids, [1, 2, 3]);
    // 2 is answered; 1 and 3 still wait. The next id is 2, not 1.
    let sent = drain(&mut mg);
    mgc.handle_input(t0, &sent[1]);
    let _ = events(&mut mgc);
    mgc.reply(t0, 2, sc_reply()).unwrap();
    mg.handle_input(t0, &mgc.poll_transmit().unwrap());
    assert!(events(&mut mg).iter().any(|e| matches!(
        e,
        Event::ReplyReceived {
            transaction_id: 2,
            ..
        }
    )));
    assert_eq!(mg.send_request(t0, vec![sc()]).unwrap(), 2);
    // A maximum below the minimum is the minimum: one id.
    let mut cfg = otp_like(1);
    cfg.min_trans_id = 10;
    cfg.max_trans_id = 5;
    let mut one = Connection::new(cfg);
    assert_eq!(one.send_request(t0, vec![sc()]).unwrap(), 10);
    assert!(one.send_request(t0, vec![sc()]).is_err());
}

#[test]
fn request_is_resent_on_backoff_then_times_out() {
    let (mut mg, _) = pair();
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![sc()]).unwrap();
    let first = mg.poll_transmit().unwrap();
    // OTP's default: 7 s, doubling; we stop after 3 resends.
    let mut at = t0;
    for interval in [7, 14, 28] {
        assert_eq!(mg.poll_timeout(), Some(at + secs(interval)));
        // Nothing happens just before the deadline.
        mg.handle_timeout(at + secs(interval) - Duration::from_millis(1));
        assert_eq!(mg.poll_transmit(), None);
        at += secs(interval);
        mg.handle_timeout(at);
        assert_eq!(
            mg.poll_transmit().as_ref(),
            Some(&first),
            "resend at {interval}"
        );
        assert_eq!(mg.poll_event(), None);
    }
    assert_eq!(mg.poll_timeout(), Some(at + secs(56)));
    mg.handle_timeout(at + secs(56));
    assert_eq!(mg.poll_transmit(), None);
    assert_eq!(
        events(&mut mg),
        [Event::RequestTimedOut { transaction_id: id }]
    );
    assert_eq!(mg.poll_timeout(), None);
    assert_eq!(mg.outstanding_requests(), 0);
}

#[test]
fn backoff_interval_is_capped() {
    let mut cfg = otp_like(1);
    cfg.request_timer = RequestTimer {
        initial: secs(1),
        factor: 10,
        max_interval: secs(5),
        max_retries: 2,
    };
    let mut mg = Connection::new(cfg);
    let t0 = Instant::now();
    mg.send_request(t0, vec![sc()]).unwrap();
    drain(&mut mg);
    mg.handle_timeout(t0 + secs(1));
    assert_eq!(drain(&mut mg).len(), 1);
    assert_eq!(mg.poll_timeout(), Some(t0 + secs(6)));
    mg.handle_timeout(t0 + secs(6));
    assert_eq!(drain(&mut mg).len(), 1);
    assert_eq!(mg.poll_timeout(), Some(t0 + secs(11)));
    mg.handle_timeout(t0 + secs(11));
    assert!(matches!(
        mg.poll_event(),
        Some(Event::RequestTimedOut { .. })
    ));
}

#[test]
fn reliable_transport_never_resends_but_times_out() {
    let mut cfg = otp_like(1);
    cfg.reliable = true;
    let mut mg = Connection::new(cfg);
    let t0 = Instant::now();
    mg.send_request(t0, vec![sc()]).unwrap();
    assert_eq!(drain(&mut mg).len(), 1);
    let mut at = t0;
    for interval in [7, 14, 28, 56] {
        at += secs(interval);
        mg.handle_timeout(at);
        assert_eq!(mg.poll_transmit(), None);
    }
    assert!(matches!(
        mg.poll_event(),
        Some(Event::RequestTimedOut { transaction_id: 1 })
    ));
}

#[test]
fn pending_stops_resends_and_switches_to_long_timer() {
    let (mut mg, mut mgc) = pair();
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![sc()]).unwrap();
    let mgc_id = deliver_request(&mut mg, &mut mgc, t0);
    mgc.send_pending(t0 + secs(1), mgc_id).unwrap();
    let pending = mgc.poll_transmit().unwrap();
    assert!(matches!(
        transactions(&pending)[0],
        Transaction::Pending(TransactionPending { transaction_id }) if transaction_id == id
    ));
    mg.handle_input(t0 + secs(1), &pending);
    assert_eq!(
        events(&mut mg),
        [Event::PendingReceived { transaction_id: id }]
    );
    // The long timer (60 s) replaces the 7 s resend timer.
    assert_eq!(mg.poll_timeout(), Some(t0 + secs(61)));
    mg.handle_timeout(t0 + secs(7));
    mg.handle_timeout(t0 + secs(21));
    assert_eq!(mg.poll_transmit(), None);
    // Another pending restarts it.
    mg.handle_input(t0 + secs(30), &pending);
    assert_eq!(mg.poll_timeout(), Some(t0 + secs(90)));
    mg.handle_timeout(t0 + secs(61));
    assert_eq!(
        events(&mut mg),
        [Event::PendingReceived { transaction_id: id }]
    );
    // The reply still arrives in time.
    mgc.reply(t0 + secs(80), mgc_id, sc_reply()).unwrap();
    mg.handle_input(t0 + secs(80), &mgc.poll_transmit().unwrap());
    assert!(matches!(
        mg.poll_event(),
        Some(Event::ReplyReceived { transaction_id, .. }) if transaction_id == id
    ));
    assert_eq!(mg.poll_timeout(), None);
}

#[test]
fn long_timer_expiry_times_out() {
    let (mut mg, mut mgc) = pair();
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![sc()]).unwrap();
    let mgc_id = deliver_request(&mut mg, &mut mgc, t0);
    mgc.send_pending(t0, mgc_id).unwrap();
    mg.handle_input(t0, &mgc.poll_transmit().unwrap());
    mg.handle_timeout(t0 + secs(60));
    assert_eq!(
        events(&mut mg),
        [
            Event::PendingReceived { transaction_id: id },
            Event::RequestTimedOut { transaction_id: id }
        ]
    );
}

#[test]
fn too_many_pendings_fail_the_request() {
    let mut cfg = otp_like(1);
    cfg.recv_pending_limit = Some(2);
    let mut mg = Connection::new(cfg);
    let mut mgc = Connection::new(otp_like(2));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![sc()]).unwrap();
    let mgc_id = deliver_request(&mut mg, &mut mgc, t0);
    for _ in 0..3 {
        mgc.send_pending(t0, mgc_id).unwrap();
        mg.handle_input(t0, &mgc.poll_transmit().unwrap());
    }
    assert_eq!(
        events(&mut mg),
        [
            Event::PendingReceived { transaction_id: id },
            Event::PendingReceived { transaction_id: id },
            Event::RequestFailed {
                transaction_id: id,
                reason: FailReason::PendingLimitExceeded
            }
        ]
    );
    assert_eq!(mg.outstanding_requests(), 0);
}

#[test]
fn duplicate_request_before_reply_gets_pending() {
    let (mut mg, mut mgc) = pair();
    let t0 = Instant::now();
    mg.send_request(t0, vec![sc()]).unwrap();
    let id = deliver_request(&mut mg, &mut mgc, t0);
    // The MG resends; the MGC's user is still busy.
    mg.handle_timeout(t0 + secs(7));
    let dup = mg.poll_transmit().unwrap();
    mgc.handle_input(t0 + secs(7), &dup);
    assert_eq!(
        events(&mut mgc),
        [Event::PendingSent { transaction_id: id }],
        "a duplicate is not a new request"
    );
    let sent = drain(&mut mgc);
    assert_eq!(sent.len(), 1);
    assert_eq!(
        transactions(&sent[0]),
        [Transaction::Pending(TransactionPending {
            transaction_id: id
        })]
    );
    // The pending reaches the MG: no more resends.
    mg.handle_input(t0 + secs(7), &sent[0]);
    mg.handle_timeout(t0 + secs(21));
    assert_eq!(mg.poll_transmit(), None);
}

/// With the pending timer off the engine sends no pending by itself: a
/// duplicate of a request the user has not answered gets nothing (the
/// user may still send one).
#[test]
fn duplicate_request_with_the_pending_timer_off_gets_no_pending() {
    let mut cfg = otp_like(2);
    cfg.pending_timer = None;
    let (mut mg, mut mgc) = (Connection::new(otp_like(1)), Connection::new(cfg));
    let t0 = Instant::now();
    mg.send_request(t0, vec![sc()]).unwrap();
    let id = deliver_request(&mut mg, &mut mgc, t0);
    let mut now = t0;
    for _ in 0..3 {
        now = mg.poll_timeout().unwrap();
        mg.handle_timeout(now);
        let dup = mg.poll_transmit().unwrap();
        mgc.handle_input(now, &dup);
        assert_eq!(events(&mut mgc), []);
        assert!(drain(&mut mgc).is_empty());
    }
    mgc.send_pending(now, id).unwrap();
    assert_eq!(drain(&mut mgc).len(), 1);
    assert_eq!(events(&mut mgc), [], "the user knows of its own pendings");
}

#[test]
fn duplicate_request_after_reply_gets_cached_reply() {
    let (mut mg, mut mgc) = pair();
    let t0 = Instant::now();
    mg.send_request(t0, vec![sc()]).unwrap();
    let first = mg.poll_transmit().unwrap();
    mgc.handle_input(t0, &first);
    let Some(Event::RequestReceived { transaction_id, .. }) = mgc.poll_event() else {
        panic!()
    };
    mgc.reply(t0, transaction_id, sc_reply()).unwrap();
    let reply = mgc.poll_transmit().unwrap(); // lost on the way
    mgc.handle_input(t0 + secs(7), &first);
    assert_eq!(mgc.poll_event(), None);
    assert_eq!(drain(&mut mgc), [reply]);
    // Replying twice is refused.
    assert!(mgc.reply(t0, transaction_id, sc_reply()).is_err());
    // The cache lives for the reply timer (30 s), then the id is forgotten.
    assert_eq!(mgc.poll_timeout(), Some(t0 + secs(30)));
    mgc.handle_timeout(t0 + secs(30));
    assert_eq!(mgc.remembered_requests(), 0);
    assert_eq!(mgc.poll_event(), None, "no ack was asked for");
}

#[test]
fn a_reply_that_cannot_be_encoded_still_answers_the_peer() {
    let (mut mg, mut mgc) = pair();
    let t0 = Instant::now();
    mg.send_request(t0, vec![sc()]).unwrap();
    let first = mg.poll_transmit().unwrap();
    mgc.handle_input(t0, &first);
    let Some(Event::RequestReceived {
        transaction_id: id, ..
    }) = mgc.poll_event()
    else {
        panic!()
    };
    // Text has no way to write a quote inside an error text.
    let unwritable = TransactionResult::Error(ErrorDescriptor {
        error_code: 400,
        error_text: Some("say \"hi\"".into()),
    });
    let e = mgc.reply(t0, id, unwritable).unwrap_err();
    assert!(matches!(e, megaco_stack::engine::Error::Encode(_)), "{e:?}");
    // The peer gets error 500 instead of nothing, and the request is not
    // left processing: no pendings, a duplicate gets the same 500.
    let sent = drain(&mut mgc);
    assert_eq!(sent.len(), 1);
    let [Transaction::Reply(r)] = &transactions(&sent[0])[..] else {
        panic!("{sent:?}")
    };
    let TransactionResult::Error(err) = &r.result else {
        panic!("{r:?}")
    };
    assert_eq!((r.transaction_id, err.error_code), (id, 500));
    mgc.handle_input(t0 + secs(7), &first);
    assert_eq!(drain(&mut mgc), sent);
    assert!(mgc.reply(t0, id, sc_reply()).is_err(), "answered already");
    assert_eq!(events(&mut mgc), []);
}

#[test]
fn a_reply_or_request_too_long_for_the_transports_is_an_encode_error() {
    use megaco_stack::engine::MAX_WIRE_MESSAGE;
    let (mut mg, mut mgc) = pair();
    let t0 = Instant::now();
    mg.send_request(t0, vec![sc()]).unwrap();
    let id = deliver_request(&mut mg, &mut mgc, t0);
    // A v1 peer (no segmentation): one reply of more than 64 KiB.
    let long = |n| {
        TransactionResult::Error(ErrorDescriptor {
            error_code: 400,
            error_text: Some("x".repeat(n).into()),
        })
    };
    let e = mgc.reply(t0, id, long(MAX_WIRE_MESSAGE)).unwrap_err();
    assert!(matches!(e, megaco_stack::engine::Error::Encode(_)), "{e:?}");
    // The peer still gets an answer: error 500, short.
    let sent = drain(&mut mgc);
    assert!(sent.len() == 1 && sent[0].len() < 200, "{sent:?}");
    let [Transaction::Reply(r)] = &transactions(&sent[0])[..] else {
        panic!("{sent:?}")
    };
    assert!(matches!(&r.result, TransactionResult::Error(e) if e.error_code == 500));
    // A request of that size is refused to its caller, and nothing is sent.
    let huge = build::notify(
        ContextId::NULL,
        TerminationId::new("x".repeat(MAX_WIRE_MESSAGE)),
        1,
        "al/of",
    );
    assert!(matches!(
        mg.send_request(t0, vec![huge]),
        Err(megaco_stack::engine::Error::Encode(_))
    ));
    assert_eq!(drain(&mut mg), Vec::<Vec<u8>>::new());
    // Just under the bound still goes.
    let fits = long(MAX_WIRE_MESSAGE - 200);
    mg.send_request(t0 + secs(1), vec![sc()]).unwrap();
    let id2 = deliver_request(&mut mg, &mut mgc, t0 + secs(1));
    mgc.reply(t0 + secs(1), id2, fits).unwrap();
    let sent = drain(&mut mgc);
    assert!(
        sent.len() == 1 && sent[0].len() > MAX_WIRE_MESSAGE - 200,
        "{}",
        sent[0].len()
    );
}

#[test]
fn ack_releases_cached_reply() {
    let mut cfg = otp_like(2);
    cfg.imm_ack_required = true;
    let mut mgc = Connection::new(cfg);
    let mut mg = Connection::new(otp_like(1));
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![sc()]).unwrap();
    let req = mg.poll_transmit().unwrap();
    mgc.handle_input(t0, &req);
    mgc.poll_event().unwrap();
    mgc.reply(t0, id, sc_reply()).unwrap();
    let reply = mgc.poll_transmit().unwrap();
    let Transaction::Reply(r) = &transactions(&reply)[0] else {
        panic!()
    };
    assert!(r.imm_ack_required);
    // The MG acknowledges at once.
    mg.handle_input(t0, &reply);
    let ack = mg.poll_transmit().unwrap();
    assert_eq!(
        transactions(&ack),
        [Transaction::ResponseAck(vec![TransactionAck {
            first_ack: id,
            last_ack: None
        }])]
    );
    mgc.handle_input(t0 + secs(1), &ack);
    assert_eq!(
        events(&mut mgc),
        [Event::AckReceived { transaction_id: id }]
    );
    assert_eq!(mgc.remembered_requests(), 0);
    assert_eq!(mgc.poll_timeout(), None);
    // A second ack for the same id does nothing.
    mgc.handle_input(t0 + secs(2), &ack);
    assert_eq!(mgc.poll_event(), None);
}

#[test]
fn unacknowledged_reply_expires() {
    let mut cfg = otp_like(2);
    cfg.imm_ack_required = true;
    let mut mgc = Connection::new(cfg);
    let mut mg = Connection::new(otp_like(1));
    let t0 = Instant::now();
    mg.send_request(t0, vec![sc()]).unwrap();
    let id = deliver_request(&mut mg, &mut mgc, t0);
    mgc.reply(t0, id, sc_reply()).unwrap();
    drain(&mut mgc);
    mgc.handle_timeout(t0 + secs(30));
    assert_eq!(
        events(&mut mgc),
        [Event::AckTimedOut { transaction_id: id }]
    );
    assert_eq!(mgc.remembered_requests(), 0);
}

#[test]
fn acks_for_one_message_are_coalesced() {
    let (mut mg, mgc) = pair();
    let t0 = Instant::now();
    for _ in 0..4 {
        mg.send_request(t0, vec![sc()]).unwrap();
    }
    drain(&mut mg);
    // One message with replies to 1, 2 and 4, each asking for an ack.
    let replies = [1, 2, 4]
        .map(|id| {
            Transaction::Reply(TransactionReply {
                transaction_id: id,
                imm_ack_required: true,
                result: sc_reply(),
                segment_number: None,
                segmentation_complete: false,
            })
        })
        .to_vec();
    let msg = MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 1,
            mid: mgc.config().mid.clone(),
            body: MessageBody::Transactions(replies.into()),
        },
    };
    mg.handle_input(t0, &megaco::text::encode_compact(&msg).unwrap());
    let sent = drain(&mut mg);
    assert_eq!(sent.len(), 1);
    assert_eq!(
        transactions(&sent[0]),
        [Transaction::ResponseAck(vec![
            TransactionAck {
                first_ack: 1,
                last_ack: Some(2)
            },
            TransactionAck {
                first_ack: 4,
                last_ack: None
            },
        ])]
    );
    assert_eq!(events(&mut mg).len(), 3);
    assert_eq!(mg.outstanding_requests(), 1);
}

#[test]
fn ack_range_releases_several_replies() {
    let (mut mg, mut mgc) = pair();
    let t0 = Instant::now();
    for _ in 0..3 {
        mg.send_request(t0, vec![sc()]).unwrap();
        let id = deliver_request(&mut mg, &mut mgc, t0);
        mgc.reply(t0, id, sc_reply()).unwrap();
    }
    drain(&mut mgc);
    let msg = MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 1,
            mid: mid(1),
            body: MessageBody::Transactions(
                vec![Transaction::ResponseAck(vec![TransactionAck {
                    first_ack: 1,
                    last_ack: Some(u32::MAX),
                }])]
                .into(),
            ),
        },
    };
    mgc.handle_input(t0, &megaco::text::encode_pretty(&msg).unwrap());
    assert_eq!(
        events(&mut mgc),
        [1, 2, 3].map(|id| Event::AckReceived { transaction_id: id })
    );
    assert_eq!(mgc.remembered_requests(), 0);
}

#[test]
fn late_reply_after_timeout_is_unexpected() {
    let (mut mg, mut mgc) = pair();
    let t0 = Instant::now();
    let id = mg.send_request(t0, vec![sc()]).unwrap();
    let mgc_id = deliver_request(&mut mg, &mut mgc, t0);
    let mut at = t0;
    for interval in [7, 14, 28, 56] {
        at += secs(interval);
        mg.handle_timeout(at);
    }
    assert_eq!(
        events(&mut mg),
        [Event::RequestTimedOut { transaction_id: id }]
    );
    mgc.reply(at, mgc_id, sc_reply()).unwrap();
    mg.handle_input(at + secs(1), &mgc.poll_transmit().unwrap());
    assert_eq!(
        events(&mut mg),
        [Event::UnexpectedReply {
            transaction_id: id,
            result: sc_reply()
        }]
    );
}

#[test]
fn reply_to_unknown_id_is_unexpected() {
    let (mut mg, _) = pair();
    let t0 = Instant::now();
    mg.handle_input(
        t0,
        b"MEGACO/1 [10.0.0.2]:2944 Reply = 99 { Context = - { ServiceChange = ROOT } }",
    );
    match mg.poll_event() {
        Some(Event::UnexpectedReply {
            transaction_id: 99, ..
        }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(mg.poll_transmit(), None);
    // A pending for an unknown id is ignored.
    mg.handle_input(t0, b"!/1 [10.0.0.2] PN=5{}");
    assert_eq!(mg.poll_event(), None);
}

#[test]
fn pending_timer_and_sent_pending_limit() {
    let mut cfg = otp_like(2);
    cfg.pending_timer = Some(secs(2));
    cfg.sent_pending_limit = Some(2);
    let mut mgc = Connection::new(cfg);
    let mut mg = Connection::new(otp_like(1));
    let t0 = Instant::now();
    mg.send_request(t0, vec![sc()]).unwrap();
    let id = deliver_request(&mut mg, &mut mgc, t0);
    // The user does not answer: a pending every 2 s, twice.
    for k in 1..=2 {
        assert_eq!(mgc.poll_timeout(), Some(t0 + secs(2 * k)));
        mgc.handle_timeout(t0 + secs(2 * k));
        assert_eq!(
            transactions(&mgc.poll_transmit().unwrap()),
            [Transaction::Pending(TransactionPending {
                transaction_id: id
            })]
        );
    }
    // The third would exceed the limit: the transaction is aborted.
    mgc.handle_timeout(t0 + secs(6));
    let abort = mgc.poll_transmit().unwrap();
    let Transaction::Reply(r) = &transactions(&abort)[0] else {
        panic!()
    };
    assert_eq!(r.transaction_id, id);
    let TransactionResult::Error(e) = &r.result else {
        panic!()
    };
    assert_eq!(e.error_code, 506);
    assert_eq!(
        events(&mut mgc),
        [
            Event::PendingSent { transaction_id: id },
            Event::PendingSent { transaction_id: id },
            Event::RequestAborted { transaction_id: id }
        ]
    );
    assert!(mgc.reply(t0 + secs(7), id, sc_reply()).is_err());
    // A duplicate now gets the error reply again.
    mgc.handle_input(
        t0 + secs(7),
        &megaco::text::encode_pretty(&request_msg(id)).unwrap(),
    );
    assert_eq!(drain(&mut mgc), [abort]);
}

fn request_msg(id: u32) -> MegacoMessage {
    MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 1,
            mid: mid(1),
            body: MessageBody::Transactions(
                vec![Transaction::Request(TransactionRequest {
                    transaction_id: id,
                    actions: vec![sc()].into(),
                })]
                .into(),
            ),
        },
    }
}

#[test]
fn garbage_input_is_an_event_and_gets_error_400() {
    let (mut mg, _) = pair();
    let t0 = Instant::now();
    mg.handle_input(t0, b"this is not megaco");
    assert!(matches!(mg.poll_event(), Some(Event::DecodeError { .. })));
    let reply = decode(&mg.poll_transmit().unwrap());
    assert_eq!(reply.mess.mid, mid(1));
    assert_eq!(
        reply.mess.body,
        MessageBody::Error(ErrorDescriptor {
            error_code: 400,
            error_text: Some("Syntax error on line 1".into())
        })
    );
    // Right after our error, undecodable input gets no second error (it
    // is most likely the peer's answer to ours): no loop.
    mg.handle_input(t0, b"still not megaco");
    assert!(matches!(mg.poll_event(), Some(Event::DecodeError { .. })));
    assert_eq!(mg.poll_transmit(), None);
    assert_eq!(mg.errors_suppressed(), 1);
    // A version we do not speak: 406, as OTP answers.
    let (mut fresh, _) = pair();
    fresh.handle_input(t0, b"MEGACO/9 [10.0.0.2]:2944 T=1{C=-{SC=ROOT{SV{MT=RS}}}}");
    assert!(matches!(
        fresh.poll_event(),
        Some(Event::DecodeError { .. })
    ));
    assert_eq!(
        decode(&fresh.poll_transmit().unwrap()).mess.body,
        MessageBody::Error(ErrorDescriptor {
            error_code: 406,
            error_text: Some("Unsupported version: 9".into())
        })
    );
    // Without the error reply.
    let mut cfg = otp_like(1);
    cfg.reply_to_decode_errors = false;
    let mut quiet = Connection::new(cfg);
    quiet.handle_input(t0, b"\x30\x80garbage");
    assert!(matches!(
        quiet.poll_event(),
        Some(Event::DecodeError { .. })
    ));
    assert_eq!(quiet.poll_transmit(), None);
}

#[test]
fn message_error_is_reported() {
    let (mut mg, _) = pair();
    mg.handle_input(
        Instant::now(),
        b"MEGACO/1 [10.0.0.2]:2944 Error = 400 {\"Syntax error in message\"}",
    );
    assert_eq!(
        events(&mut mg),
        [Event::MessageError {
            error: ErrorDescriptor {
                error_code: 400,
                error_text: Some("Syntax error in message".into())
            }
        }]
    );
}

/// Pseudo-random bytes (and mutated valid messages) never panic, in any
/// encoding.
#[test]
fn random_input_never_panics() {
    let valid = megaco::text::encode_pretty(&request_msg(3)).unwrap();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for enc in [
        Encoding::pretty(),
        Encoding::ber(),
        Encoding::per(),
        Encoding::compact(),
    ] {
        let mut cfg = otp_like(1);
        cfg.encoding = enc;
        let mut c = Connection::new(cfg);
        let t0 = Instant::now();
        for i in 0..500 {
            let mut input = if i % 2 == 0 {
                valid.clone()
            } else {
                (0..(next() % 64)).map(|_| next() as u8).collect()
            };
            if !input.is_empty() {
                let at = (next() as usize) % input.len();
                input[at] = next() as u8;
            }
            c.handle_input(t0, &input);
            while c.poll_event().is_some() {}
            while c.poll_transmit().is_some() {}
        }
    }
}

#[test]
fn every_encoding_carries_a_transaction() {
    for enc in [
        Encoding::pretty(),
        Encoding::compact(),
        Encoding::ber(),
        Encoding::per(),
    ] {
        let mut a = otp_like(1);
        a.encoding = enc.clone();
        a.version = 3;
        let mut b = otp_like(2);
        b.encoding = enc.clone();
        b.version = 3;
        let (mut mg, mut mgc) = (Connection::new(a), Connection::new(b));
        let t0 = Instant::now();
        let term = TerminationId::new("11111111/00000000/00000001");
        let notify = build::notify(ContextId(7), term, 1, "al/on");
        let id = mg.send_request(t0, vec![notify.clone()]).unwrap();
        let bytes = mg.poll_transmit().unwrap();
        mgc.handle_input(t0, &bytes);
        let Some(Event::RequestReceived {
            transaction_id,
            actions,
            ..
        }) = mgc.poll_event()
        else {
            panic!("{enc:?}")
        };
        assert_eq!(actions, vec![notify]);
        mgc.reply(t0, transaction_id, build::default_replies(&actions))
            .unwrap();
        mg.handle_input(t0, &mgc.poll_transmit().unwrap());
        assert_eq!(
            mg.poll_event(),
            Some(Event::ReplyReceived {
                transaction_id: id,
                result: build::default_replies(&actions)
            }),
            "{enc:?}"
        );
    }
}

/// Zero-length timers fire once per call instead of looping.
#[test]
fn zero_timers_fire_once_per_call() {
    let mut cfg = otp_like(2);
    cfg.pending_timer = Some(Duration::ZERO);
    let mut mgc = Connection::new(cfg);
    let mut mg = Connection::new(otp_like(1));
    let t0 = Instant::now();
    mg.send_request(t0, vec![sc()]).unwrap();
    let id = deliver_request(&mut mg, &mut mgc, t0);
    for _ in 0..3 {
        assert_eq!(mgc.poll_timeout(), Some(t0));
        mgc.handle_timeout(t0);
        assert_eq!(
            transactions(&mgc.poll_transmit().unwrap()),
            [Transaction::Pending(TransactionPending {
                transaction_id: id
            })]
        );
        assert_eq!(mgc.poll_transmit(), None);
    }
}

/// Many transactions in flight: each timer fires at its own deadline, in
/// order, and answered ones are disarmed.
#[test]
fn many_requests_keep_their_own_timers() {
    let (mut mg, mut mgc) = pair();
    let t0 = Instant::now();
    let ids: Vec<u32> = (0..100)
        .map(|k| {
            mg.send_request(t0 + Duration::from_millis(k), vec![sc()])
                .unwrap()
        })
        .collect();
    // The MGC answers the even ones.
    let sent = drain(&mut mg);
    for bytes in &sent {
        mgc.handle_input(t0, bytes);
    }
    while let Some(ev) = mgc.poll_event() {
        let Event::RequestReceived { transaction_id, .. } = ev else {
            panic!()
        };
        if transaction_id % 2 == 0 {
            mgc.reply(t0, transaction_id, sc_reply()).unwrap();
        }
    }
    for bytes in drain(&mut mgc) {
        mg.handle_input(t0, &bytes);
    }
    assert_eq!(events(&mut mg).len(), 50);
    // Odd ones are resent 7 s after their own send time, one at a time.
    for (k, id) in ids.iter().enumerate().filter(|(_, id)| *id % 2 == 1) {
        let at = t0 + Duration::from_millis(k as u64) + secs(7);
        assert_eq!(mg.poll_timeout(), Some(at));
        mg.handle_timeout(at);
        let resent = drain(&mut mg);
        assert_eq!(resent.len(), 1);
        assert!(matches!(
            &transactions(&resent[0])[0],
            Transaction::Request(r) if r.transaction_id == *id
        ));
    }
}

/// `Duration::MAX` timers mean "not in our lifetime", not a panic.
#[test]
fn huge_timers_do_not_overflow() {
    let mut cfg = otp_like(1);
    cfg.request_timer.initial = Duration::MAX;
    cfg.request_timer.max_interval = Duration::MAX;
    cfg.long_request_timer = Duration::MAX;
    cfg.reply_timer = Some(Duration::MAX);
    cfg.pending_timer = Some(Duration::MAX);
    let mut a = Connection::new(cfg.clone());
    let mut b = Connection::new(cfg);
    let t0 = Instant::now();
    a.send_request(t0, vec![sc()]).unwrap();
    assert!(a.poll_timeout().unwrap() > t0 + secs(1_000_000));
    let id = deliver_request(&mut a, &mut b, t0);
    b.send_pending(t0, id).unwrap();
    a.handle_input(t0, &b.poll_transmit().unwrap());
    b.reply(t0, id, sc_reply()).unwrap();
    a.handle_timeout(t0 + secs(1_000_000));
    assert!(b.poll_timeout().unwrap() > t0 + secs(1_000_000));
}

/// A peer that does not negotiate (no ServiceChangeVersion in its reply)
/// but answers our v3 registration in a v1 message speaks v1: our later
/// messages use it. One that answers in our version leaves ours.
#[test]
fn a_reply_without_a_version_sets_that_of_its_message() {
    for (reply_version, agreed) in [(1u8, 1u8), (2, 2), (3, 3)] {
        let mut config = Config::new(mid(1));
        config.version = 3;
        let mut mg = Connection::new(config);
        let t0 = Instant::now();
        let id = mg.send_request(t0, vec![sc()]).unwrap();
        drain(&mut mg);
        let reply =
            format!("!/{reply_version} [10.0.0.2]:2944 P={id}{{C=-{{SC=ROOT{{SV{{AD=2944}}}}}}}}");
        mg.handle_input(t0, reply.as_bytes());
        assert!(events(&mut mg).contains(&Event::VersionNegotiated { version: agreed }));
        assert_eq!(mg.version(), agreed);
        mg.send_request(t0, vec![sc()]).unwrap();
        let next = mg.poll_transmit().unwrap();
        assert_eq!(decode(&next).mess.version, agreed);
    }
}

/// A text request from 10.0.0.1 with id `id`, notifying on termination
/// `term`, written `style`: "pretty" spreads it over lines.
fn notify_text(id: u32, term: &str, pretty: bool) -> Vec<u8> {
    let text = if pretty {
        format!("!/1 [10.0.0.1]:2944\nT={id} {{\n  C=- {{\n    N={term} {{ OE=1 {{ al/on }} }}\n  }}\n}}\n")
    } else {
        format!("!/1 [10.0.0.1]:2944 T={id}{{C=-{{N={term}{{OE=1{{al/on}}}}}}}}")
    };
    text.into_bytes()
}

/// The termination the notify request of a `RequestReceived` names.
fn received_termination(event: Option<Event>) -> (u32, String) {
    let Some(Event::RequestReceived {
        transaction_id,
        actions,
        ..
    }) = event
    else {
        panic!("{event:?}")
    };
    let Command::Notify(n) = &actions[0].command_requests[0].command else {
        panic!("{actions:?}")
    };
    (transaction_id, n.termination_ids[0].as_str().to_string())
}

fn notify_reply_to(term: &str) -> TransactionResult {
    TransactionResult::ActionReplies(
        vec![build::notify_reply(
            ContextId::NULL,
            vec![TerminationId::new(term)],
        )]
        .into(),
    )
}

/// A peer that restarts and numbers its requests from 1 again: a request
/// with the id of one replied to but other actions is a new transaction,
/// handed to the user (not answered with the cached reply, which named
/// the other termination); a resend of it, byte for byte, gets its own
/// reply from the cache, read from the view.
#[test]
fn a_reused_id_with_other_actions_is_a_new_request() {
    let mut mgc = Connection::new(otp_like(2));
    let t0 = Instant::now();
    let first = notify_text(2, "a", false);
    mgc.handle_input(t0, &first);
    assert_eq!(received_termination(mgc.poll_event()), (2, "a".into()));
    mgc.reply(t0, 2, notify_reply_to("a")).unwrap();
    let reply_a = mgc.poll_transmit().unwrap();

    // The same bytes again: a retransmission, the cached reply.
    mgc.handle_input(t0 + secs(1), &first);
    assert_eq!(events(&mut mgc), []);
    assert_eq!(drain(&mut mgc), std::slice::from_ref(&reply_a));
    assert_eq!(mgc.stats().duplicates_answered, 1);

    // Id 2 again, on termination b: new.
    let second = notify_text(2, "b", false);
    mgc.handle_input(t0 + secs(2), &second);
    assert_eq!(received_termination(mgc.poll_event()), (2, "b".into()));
    assert_eq!(events(&mut mgc), []);
    assert_eq!(drain(&mut mgc), Vec::<Vec<u8>>::new());
    assert_eq!(mgc.stats().ids_reused, 1);
    assert_eq!(mgc.remembered_requests(), 1);
    assert_eq!(mgc.unanswered_requests(), 1);
    mgc.reply(t0 + secs(2), 2, notify_reply_to("b")).unwrap();
    let reply_b = mgc.poll_transmit().unwrap();
    assert_ne!(reply_a, reply_b);

    // Its resend gets its reply, from the view; the old request is gone.
    let viewed = mgc.stats().messages_viewed;
    mgc.handle_input(t0 + secs(3), &second);
    assert_eq!(events(&mut mgc), []);
    assert_eq!(drain(&mut mgc), std::slice::from_ref(&reply_b));
    assert_eq!(mgc.stats().messages_viewed, viewed + 1);
    assert_eq!(mgc.executed_requests(), 1);
    // A late resend of the old one is new again (its reply went with it).
    mgc.handle_input(t0 + secs(4), &first);
    assert_eq!(received_termination(mgc.poll_event()), (2, "a".into()));
}

/// A resend need not be byte-identical to be recognised: the same
/// actions written otherwise (here pretty rather than compact) are the
/// same request, answered from the cache, not executed again; resends in
/// those bytes are then read from the view.
#[test]
fn a_resend_written_otherwise_is_still_a_duplicate() {
    let mut mgc = Connection::new(otp_like(2));
    let t0 = Instant::now();
    mgc.handle_input(t0, &notify_text(7, "a", false));
    assert_eq!(received_termination(mgc.poll_event()), (7, "a".into()));
    mgc.reply(t0, 7, notify_reply_to("a")).unwrap();
    let reply = mgc.poll_transmit().unwrap();

    let pretty = notify_text(7, "a", true);
    mgc.handle_input(t0 + secs(1), &pretty);
    assert_eq!(events(&mut mgc), []);
    assert_eq!(drain(&mut mgc), std::slice::from_ref(&reply));
    assert_eq!(mgc.stats().ids_reused, 0);
    let viewed = mgc.stats().messages_viewed;
    mgc.handle_input(t0 + secs(2), &pretty);
    assert_eq!(drain(&mut mgc), [reply]);
    assert_eq!(mgc.stats().messages_viewed, viewed + 1);
    assert_eq!(mgc.stats().duplicates_answered, 2);
}

/// While the user holds a request, another with its id but other actions
/// is refused with error 503 (a reply could not be told from the
/// other's); the request held is untouched and still answered.
#[test]
fn a_reused_id_while_the_user_holds_the_request_is_refused() {
    let mut mgc = Connection::new(otp_like(2));
    let t0 = Instant::now();
    mgc.handle_input(t0, &notify_text(3, "a", false));
    assert_eq!(received_termination(mgc.poll_event()), (3, "a".into()));
    mgc.handle_input(t0 + secs(1), &notify_text(3, "b", false));
    assert_eq!(
        events(&mut mgc),
        [Event::TransactionIdInUse { transaction_id: 3 }]
    );
    let out = drain(&mut mgc);
    let [Transaction::Reply(TransactionReply {
        transaction_id: 3,
        result: TransactionResult::Error(e),
        ..
    })] = &transactions(&out[0])[..]
    else {
        panic!("{out:?}")
    };
    assert_eq!(e.error_code, 503);
    assert_eq!(mgc.stats().ids_reused, 1);
    assert_eq!(mgc.unanswered_requests(), 1);
    mgc.reply(t0 + secs(2), 3, notify_reply_to("a")).unwrap();
    let reply = drain(&mut mgc);
    // The held request's resend still gets its reply.
    mgc.handle_input(t0 + secs(3), &notify_text(3, "a", false));
    assert_eq!(drain(&mut mgc), reply);
}
