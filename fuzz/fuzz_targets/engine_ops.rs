//! The `engine` target's body: one sans-IO `Connection` driven by an
//! arbitrary sequence of peer messages, raw bytes, user calls and clock
//! advances. Shared with the replay test
//! (crates/megaco-stack/tests/fuzz_regressions.rs).
//!
//! Checked after every step: nothing panics; every message the engine
//! sends decodes with its own encoding (what we put on the wire is valid
//! Megaco); the bounds of the configuration hold (outstanding and
//! unanswered requests); after `handle_timeout(now)` no deadline lies
//! before `now`.
use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Unstructured};
use megaco::model::*;
use megaco::MegacoMessage;
use megaco_stack::engine::{Config, Connection, Event, RequestTimer};
use megaco_stack::{build, Encoding};

/// How the connection is set up.
#[derive(Arbitrary, Debug)]
struct Setup {
    version: u8,
    encoding: u8,
    reliable: bool,
    imm_ack_required: bool,
    reply_to_decode_errors: bool,
    max_pdu_size: Option<u16>,
    max_outstanding: Option<u8>,
    max_unanswered: Option<u8>,
    sent_pending_limit: Option<u8>,
    recv_pending_limit: Option<u8>,
    pending_timer_ms: Option<u16>,
    min_trans_id: u32,
    trans_id_span: u8,
}

/// A transaction from the peer, about the ids this run has seen.
#[derive(Arbitrary, Debug)]
enum PeerTx {
    /// A request with a small id (so that duplicates happen).
    Request {
        id: u8,
        actions: u8,
    },
    /// A request with arbitrary actions.
    RequestWith {
        id: u8,
        actions: Vec<ActionRequest>,
    },
    /// A reply to one of our requests, whole or as a segment.
    Reply {
        pick: u8,
        imm_ack: bool,
        segment: Option<(u16, bool)>,
        result: TransactionResult,
    },
    Pending {
        pick: u8,
    },
    Ack {
        pick: u8,
        span: u8,
    },
    SegmentReply {
        pick: u8,
        number: u16,
        last: bool,
    },
    /// Anything at all.
    Any(Transaction),
}

#[derive(Arbitrary, Debug)]
enum Op {
    /// One message from the peer, encoded in the connection's encoding
    /// (or handed over decoded when it cannot be encoded).
    Peer(Vec<PeerTx>),
    /// A message-level error from the peer.
    PeerError(ErrorDescriptor),
    /// Raw bytes from the peer.
    Bytes(Vec<u8>),
    /// The user sends a request of `n` notifies.
    Send(u8),
    /// The user answers a received request with the default replies.
    ReplyDefault(u8),
    /// The user answers a received request with an arbitrary result.
    Reply(u8, Box<TransactionResult>),
    SendPending(u8),
    Cancel(u8),
    /// The clock moves on by this many milliseconds (times 64: up to
    /// about 70 minutes), then due timers run.
    Advance(u16),
    /// The clock jumps to the next deadline.
    ToDeadline,
}

fn mid(a: u8) -> Mid {
    Mid::Ip4(Ip4Address {
        address: [10, 0, 0, a],
        port: Some(2944),
    })
}

fn config(s: &Setup) -> Config {
    let mut c = Config::new(mid(1));
    c.version = s.version % 3 + 1;
    c.encoding = match s.encoding % 5 {
        0 => Encoding::pretty(),
        1 => Encoding::compact(),
        2 => Encoding::ber(),
        3 => Encoding::per(),
        _ => Encoding::native(),
    };
    c.reliable = s.reliable;
    c.imm_ack_required = s.imm_ack_required;
    c.reply_to_decode_errors = s.reply_to_decode_errors;
    c.max_pdu_size = s.max_pdu_size.map(usize::from);
    c.max_outstanding_requests = s.max_outstanding.map(usize::from);
    c.max_unanswered_requests = s.max_unanswered.map(usize::from);
    c.sent_pending_limit = s.sent_pending_limit.map(u32::from);
    c.recv_pending_limit = s.recv_pending_limit.map(u32::from);
    c.pending_timer = s
        .pending_timer_ms
        .map(|ms| Duration::from_millis(u64::from(ms)));
    c.request_timer = RequestTimer {
        initial: Duration::from_millis(500),
        factor: 2,
        max_interval: Duration::from_secs(4),
        max_retries: 2,
    };
    c.min_trans_id = s.min_trans_id;
    c.max_trans_id = s.min_trans_id.saturating_add(u32::from(s.trans_id_span));
    c
}

fn notify(event: u32) -> ActionRequest {
    build::notify(ContextId(1), TerminationId::new("t1"), event, "al/on")
}

/// The id of `pick` among `ids`, or a raw small id when there are none.
fn choose(ids: &[u32], pick: u8) -> u32 {
    if ids.is_empty() {
        u32::from(pick)
    } else {
        ids[usize::from(pick) % ids.len()]
    }
}

struct Run {
    conn: Connection,
    now: Instant,
    /// Ids of our requests (sent by the user).
    ours: Vec<u32>,
    /// Ids of the peer's requests the engine reported.
    theirs: Vec<u32>,
    encoding: Encoding,
    version: u8,
    max_outstanding: Option<usize>,
    max_unanswered: Option<usize>,
}

impl Run {
    /// Drains what the engine produced and checks it.
    fn drain(&mut self) {
        while let Some(bytes) = self.conn.poll_transmit() {
            if let Err(e) = self.encoding.decode(&bytes) {
                panic!(
                    "the engine sent what its own encoding cannot read: {e}\n{}",
                    String::from_utf8_lossy(&bytes)
                );
            }
        }
        while let Some(ev) = self.conn.poll_event() {
            if let Event::RequestReceived { transaction_id, .. } = ev {
                if self.theirs.len() < 64 {
                    self.theirs.push(transaction_id);
                }
            }
        }
        if let Some(max) = self.max_outstanding {
            assert!(self.conn.outstanding_requests() <= max, "outstanding bound");
        }
        if let Some(max) = self.max_unanswered {
            assert!(self.conn.unanswered_requests() <= max, "unanswered bound");
        }
    }

    /// Runs the timers due now; none is left due before now (a driver
    /// would spin on it).
    fn timeout(&mut self) {
        self.conn.handle_timeout(self.now);
        if let Some(at) = self.conn.poll_timeout() {
            assert!(at >= self.now, "a deadline left in the past");
        }
    }

    fn peer_message(&mut self, body: MessageBody) {
        let msg = MegacoMessage {
            auth_header: None,
            mess: Message {
                version: self.version,
                mid: mid(2),
                body,
            },
        };
        match self.encoding.encode(&msg) {
            Ok(bytes) => self.conn.handle_input(self.now, &bytes),
            Err(_) => self.conn.handle_message(self.now, msg),
        }
    }

    fn peer_tx(&self, t: PeerTx) -> Transaction {
        match t {
            PeerTx::Request { id, actions } => Transaction::Request(TransactionRequest {
                transaction_id: u32::from(id),
                actions: (0..u32::from(actions % 4) + 1).map(notify).collect(),
            }),
            PeerTx::RequestWith { id, actions } => Transaction::Request(TransactionRequest {
                transaction_id: u32::from(id),
                actions: actions.into(),
            }),
            PeerTx::Reply {
                pick,
                imm_ack,
                segment,
                result,
            } => Transaction::Reply(TransactionReply {
                transaction_id: choose(&self.ours, pick),
                imm_ack_required: imm_ack,
                result,
                segment_number: segment.map(|(n, _)| n),
                segmentation_complete: segment.is_some_and(|(_, last)| last),
            }),
            PeerTx::Pending { pick } => Transaction::Pending(TransactionPending {
                transaction_id: choose(&self.ours, pick),
            }),
            PeerTx::Ack { pick, span } => {
                let first = choose(&self.theirs, pick);
                Transaction::ResponseAck(vec![TransactionAck {
                    first_ack: first,
                    last_ack: (span > 0).then(|| first.saturating_add(u32::from(span))),
                }])
            }
            PeerTx::SegmentReply { pick, number, last } => {
                Transaction::SegmentReply(SegmentReply {
                    transaction_id: choose(&self.theirs, pick),
                    segment_number: number,
                    segmentation_complete: last,
                })
            }
            PeerTx::Any(t) => t,
        }
    }

    fn step(&mut self, op: Op) {
        match op {
            Op::Peer(txs) => {
                let txs: Vec<Transaction> =
                    txs.into_iter().take(16).map(|t| self.peer_tx(t)).collect();
                self.peer_message(MessageBody::Transactions(txs.into()));
            }
            Op::PeerError(e) => self.peer_message(MessageBody::Error(e)),
            Op::Bytes(b) => self.conn.handle_input(self.now, &b),
            Op::Send(n) => {
                let actions = (0..u32::from(n % 4) + 1).map(notify).collect();
                if let Ok(id) = self.conn.send_request(self.now, actions) {
                    if self.ours.len() < 64 {
                        self.ours.push(id);
                    }
                }
            }
            Op::ReplyDefault(pick) => {
                let id = choose(&self.theirs, pick);
                let result = build::default_replies(&[notify(1), notify(2), notify(3)]);
                let _ = self.conn.reply(self.now, id, result);
            }
            Op::Reply(pick, result) => {
                let id = choose(&self.theirs, pick);
                let _ = self.conn.reply(self.now, id, *result);
            }
            Op::SendPending(pick) => {
                let id = choose(&self.theirs, pick);
                let _ = self.conn.send_pending(self.now, id);
            }
            Op::Cancel(pick) => {
                let id = choose(&self.ours, pick);
                self.conn.cancel(id);
            }
            Op::Advance(ms) => {
                self.now += Duration::from_millis(u64::from(ms) * 64);
                self.timeout();
            }
            Op::ToDeadline => {
                if let Some(at) = self.conn.poll_timeout() {
                    self.now = self.now.max(at);
                    self.timeout();
                }
            }
        }
        self.drain();
    }
}

/// Runs the ops `data` describes (at most 64 of them).
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(setup) = Setup::arbitrary(&mut u) else {
        return;
    };
    let config = config(&setup);
    let mut run = Run {
        encoding: config.encoding.clone(),
        version: config.version,
        max_outstanding: config.max_outstanding_requests,
        max_unanswered: config.max_unanswered_requests,
        conn: Connection::new(config),
        now: Instant::now(),
        ours: Vec::new(),
        theirs: Vec::new(),
    };
    for _ in 0..64 {
        let Ok(op) = Op::arbitrary(&mut u) else {
            break;
        };
        run.step(op);
    }
}
