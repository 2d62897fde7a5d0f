//! The sans-IO transaction engine: one [`Connection`] per peer.
//!
//! The engine does no I/O and reads no clock. Received messages go in with
//! [`Connection::handle_input`], elapsed timers with
//! [`Connection::handle_timeout`], user commands with
//! [`Connection::send_request`], [`Connection::reply`] and
//! [`Connection::send_pending`]; each takes the current time. Out come
//! messages to send ([`Connection::poll_transmit`]), events for the user
//! ([`Connection::poll_event`]) and the next instant at which
//! [`Connection::handle_timeout`] must be called
//! ([`Connection::poll_timeout`]).
//!
//! # Behaviour (RFC 3525 section 8 and D.1, Erlang/OTP's `megaco_messenger`)
//!
//! - **Outgoing requests** get sequential transaction ids (from
//!   [`Config::min_trans_id`], wrapping to it after
//!   [`Config::max_trans_id`]). On an unreliable transport the request is
//!   sent again each time the [`RequestTimer`] runs out, the interval
//!   growing by its factor up to its maximum, until a reply, a pending or
//!   `max_retries` resends; then [`Event::RequestTimedOut`]. On a reliable
//!   transport ([`Config::reliable`]) nothing is resent but the same
//!   schedule bounds the wait.
//! - **TransactionPending** from the peer stops resending and switches the
//!   request to [`Config::long_request_timer`], restarted by each further
//!   pending. More than [`Config::recv_pending_limit`] pendings fail the
//!   request ([`Event::RequestFailed`] with
//!   [`FailReason::PendingLimitExceeded`]).
//! - **Incoming requests** are reported once ([`Event::RequestReceived`]).
//!   A duplicate while the user has not replied is answered with a
//!   TransactionPending; a duplicate after the reply gets the cached reply
//!   again. While the user has not replied, a pending is also sent every
//!   [`Config::pending_timer`]. Sending more than
//!   [`Config::sent_pending_limit`] pendings aborts the transaction: the
//!   peer gets error 506 ("Pending limit exceeded", as OTP words it) and
//!   the user [`Event::RequestAborted`].
//! - **Replies we send** are cached for [`Config::reply_timer`], or until
//!   the peer acknowledges them with a TransactionResponseAck. With
//!   [`Config::imm_ack_required`] our replies carry `ImmAckRequired`, and
//!   a reply that expires unacknowledged is reported
//!   ([`Event::AckTimedOut`]).
//! - **Replies we receive** that carry `ImmAckRequired` are acknowledged
//!   at once; all the acks owed for one received message travel in one
//!   TransactionResponseAck. A reply to an id with no outstanding request
//!   (never sent, timed out, already answered) is
//!   [`Event::UnexpectedReply`].
//! - **Undecodable input** is [`Event::DecodeError`] and, when
//!   [`Config::reply_to_decode_errors`] is set (the default, as OTP's
//!   default `handle_syntax_error` does), the peer gets a message-level
//!   error ([`decode_error_descriptor`]: 400, or 406 for an unsupported
//!   version). A received message-level error
//!   is [`Event::MessageError`]. Nothing panics on any input.
//! - **Segmented replies** (v3: a reply with a segment number, the last
//!   one marked complete) are collected: each segment is answered with a
//!   SegmentReply, the first one stops the resends, and each new one
//!   (re)starts the [`Config::segment_recv_timer`]. Once every segment up
//!   to the last has come, the whole reply (the action replies of all
//!   segments in segment order, or the first error segment) is one
//!   [`Event::ReplyReceived`], and the transaction is acknowledged with a
//!   TransactionResponseAck. At the timer's expiry the peer gets error
//!   459 listing the missing segments and the user
//!   [`Event::SegmentsMissing`]. A v3 reply of ours longer than
//!   [`Config::max_pdu_size`] is sent as segments (runs of its action
//!   replies, each message within the limit); a repeated request gets
//!   them all again.
//! - **Bounds**: at most [`Config::max_outstanding_requests`] of our
//!   requests await a reply ([`Error::TooManyOutstanding`] beyond) and at
//!   most [`Config::max_unanswered_requests`] received requests await the
//!   user's reply (a new one beyond is answered with error 503 and
//!   reported as [`Event::RequestRefused`]). [`Connection::cancel`]
//!   forgets a request (no more resends).
//!
//! # Where it differs from Erlang/OTP megaco 4.4.2
//!
//! The timer defaults are OTP's (`megaco:user_info(Mid, all)` of a fresh
//! user: `request_timer` `#megaco_incr_timer{wait_for = 7000, factor = 2,
//! incr = 0}`, `long_request_timer` 60 000, `pending_timer` 30 000,
//! `reply_timer` 30 000, `min_trans_id` 1, pending limits `infinity`),
//! except:
//!
//! - OTP's request timer has `max_retries = infinity` (a request is resent
//!   for ever); ours gives up after 3 resends, so a request to a dead peer
//!   ends.
//! - OTP resends on every transport; we do not resend over TCP
//!   ([`Config::reliable`]), as RFC 3525 D.2 leaves retransmission to TCP.
//! - OTP's reply timer may be incremental, resending an unacknowledged
//!   reply at each intermediate expiry; ours is one interval.
//! - OTP's `long_request_resend`, accumulated acks and requests
//!   (`trans_ack`, `trans_req`) and the request keep-alive timer are not
//!   implemented; acks owed for one received message go out together at
//!   once.
//! - Segmented replies are always collected and delivered whole, as
//!   OTP does with `segment_recv_acc = true` (its default, `false`, hands
//!   each segment to the user as it comes). OTP starts the segment timer
//!   only once the segment marked complete has come, so a peer that stops
//!   mid-way holds the request for ever; ours runs from the first segment.
//!   Our own replies are segmented by [`Config::max_pdu_size`] alone and
//!   every segment goes out at once, as OTP with `segment_send =
//!   infinity`; OTP's window of outstanding segments (`segment_send` as
//!   a number) is not implemented, so a received SegmentReply is ignored.
//! - OTP bounds neither outstanding nor unanswered transactions; its flow
//!   control is the user blocking the transport (`megaco_udp:block/1`).
//!   Ours are [`Config::max_outstanding_requests`],
//!   [`Config::max_unanswered_requests`] (error 503, "Service
//!   Unavailable" in H.248.8) and, in the drivers, [`TransportConfig`]:
//!   a bounded number of peers, idle peers forgotten, a bounded queue to
//!   the user (a request that finds it full gets error 503) and readers
//!   that stop reading the socket while the driver is behind.
//! - OTP's `megaco:cancel/2` cancels every request of a connection; ours
//!   cancels one ([`Connection::cancel`], or dropping the request future
//!   in the drivers).
//! - Where OTP calls `handle_syntax_error` and the user decides, the
//!   answer to undecodable input is the [`Config::reply_to_decode_errors`]
//!   flag.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::time::{Duration, Instant};

use megaco::model::*;
use megaco::{EncodeError, MegacoMessage};

use crate::codec::{DecodeError, Encoding};

/// Error code sent when the sent-pending limit is exceeded (H.248.8).
pub const ERR_PENDING_LIMIT: u16 = 506;
/// Error code sent in answer to an undecodable message (H.248.8).
pub const ERR_SYNTAX: u16 = 400;
/// Error code sent in answer to a message of an unsupported version
/// (H.248.8).
pub const ERR_VERSION: u16 = 406;
/// Error code sent when segments of a reply are missing at the expiry of
/// the segment timer (H.248.8 459, "Incomplete/Missing segments").
pub const ERR_MISSING_SEGMENTS: u16 = 459;
/// Error code answering a request refused for lack of capacity (H.248.8
/// 503, "Service Unavailable"): too many unanswered requests, or the
/// user is not keeping up.
pub const ERR_SERVICE_UNAVAILABLE: u16 = 503;

/// Backoff of the request (resend) timer.
///
/// The first resend comes after `initial`; each following interval is the
/// previous one times `factor`, at most `max_interval`. After `max_retries`
/// resends, the next expiry times the request out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestTimer {
    /// The first interval.
    pub initial: Duration,
    /// How much each interval grows.
    pub factor: u32,
    /// The longest interval.
    pub max_interval: Duration,
    /// How many times the request is resent before it times out.
    pub max_retries: u32,
}

impl Default for RequestTimer {
    /// OTP's `#megaco_incr_timer{wait_for = 7000, factor = 2}`, with at most
    /// 3 resends (OTP resends forever by default) and intervals of at most
    /// 60 s: a request times out after 7 + 14 + 28 + 56 = 105 s.
    fn default() -> Self {
        RequestTimer {
            initial: Duration::from_secs(7),
            factor: 2,
            max_interval: Duration::from_secs(60),
            max_retries: 3,
        }
    }
}

/// Configuration of a [`Connection`].
#[derive(Debug, Clone)]
pub struct Config {
    /// Our message identifier, written in every message we send.
    pub mid: Mid,
    /// The protocol version of the messages we send (1 to 3).
    pub version: u8,
    /// The wire encoding.
    pub encoding: Encoding,
    /// Whether the transport is reliable (TCP): then requests are never
    /// resent, though the [`RequestTimer`] schedule still bounds the wait.
    pub reliable: bool,
    /// Resend schedule of outgoing requests.
    pub request_timer: RequestTimer,
    /// How long to wait for the reply after a pending (OTP
    /// `long_request_timer`, 60 s).
    pub long_request_timer: Duration,
    /// How many pendings we accept for one request (OTP
    /// `recv_pending_limit`, unlimited); `None` for no limit.
    pub recv_pending_limit: Option<u32>,
    /// Send a pending this often while the user has not replied (OTP
    /// `pending_timer`, 30 s); `None` to send pendings only on duplicates
    /// and [`Connection::send_pending`].
    pub pending_timer: Option<Duration>,
    /// How many pendings we send for one request before aborting it (OTP
    /// `sent_pending_limit`, unlimited); `None` for no limit.
    pub sent_pending_limit: Option<u32>,
    /// How long a reply we sent is kept for resending to duplicates (OTP
    /// `reply_timer`, 30 s).
    pub reply_timer: Duration,
    /// Ask the peer to acknowledge our replies (`ImmAckRequired`).
    pub imm_ack_required: bool,
    /// Answer undecodable messages with a message-level error 400.
    pub reply_to_decode_errors: bool,
    /// The first transaction id (OTP `min_trans_id`, 1).
    pub min_trans_id: u32,
    /// The last transaction id before wrapping (OTP `max_trans_id`,
    /// `infinity`, i.e. 2^32 - 1).
    pub max_trans_id: u32,
    /// How many of our requests may await a reply at once;
    /// [`Connection::send_request`] refuses more with
    /// [`Error::TooManyOutstanding`]. `None` for no limit. Default 10 000
    /// (OTP has no such limit).
    pub max_outstanding_requests: Option<usize>,
    /// How many received requests may await the user's reply at once;
    /// further new requests are answered with error 503 ("Service
    /// Unavailable") and reported as [`Event::RequestRefused`]. `None` for
    /// no limit. Default 10 000 (OTP has no such limit).
    pub max_unanswered_requests: Option<usize>,
    /// The largest message we send as one reply (OTP `max_pdu_size`,
    /// `infinity`; set it below the path MTU for UDP). In v3 a reply whose
    /// encoding is longer is sent as segments (H.248.1 v3 segmentation):
    /// consecutive runs of its action replies, each its own message of at
    /// most this many bytes, numbered from 1, the last marked complete.
    /// A single action reply longer than this, or a reply in v1/v2, goes
    /// out whole. `None` (the default) never segments.
    pub max_pdu_size: Option<usize>,
    /// How long to wait for the next segment of a segmented reply (OTP
    /// `segment_recv_timer`, 10 s). At expiry the peer gets error 459 and
    /// the request fails ([`Event::SegmentsMissing`]).
    pub segment_recv_timer: Duration,
    /// Limits of the UDP and TCP drivers (ignored by the engine itself).
    pub transport: TransportConfig,
}

/// Limits of the async drivers ([`crate::udp`], [`crate::tcp`]) that keep
/// a hostile or fast peer from growing memory without bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransportConfig {
    /// How many peers (one engine each) a driver keeps at once. A message
    /// from a new address beyond this is dropped and counted
    /// ([`crate::Stats::peers_refused`]); requests the user sends to a new
    /// address are always allowed. A [`crate::tcp::Listener`] keeps at most
    /// this many connections open ([`crate::tcp::Listener::refused`]).
    /// Default 4096.
    pub max_peers: usize,
    /// A peer with no live transaction (no request awaiting a reply, no
    /// received request unanswered or cached) is forgotten after this long
    /// without traffic. It should exceed the peers' reply timers (OTP
    /// default 30 s): a forgotten peer's transaction ids start again from
    /// [`Config::min_trans_id`]. Default 5 minutes.
    pub peer_idle_timeout: Duration,
    /// Capacity of the [`crate::Incoming`] queue. When it is full, a new
    /// request is answered with error 503 ("Service Unavailable") and
    /// other events are dropped; both are counted ([`crate::Stats`]).
    /// Default 1024.
    pub inbound_queue: usize,
    /// A TCP connection that brings no complete message for this long is
    /// closed ([`crate::Inbound::Closed`] with an error of kind
    /// [`std::io::ErrorKind::TimedOut`]), freeing its
    /// [`crate::tcp::Listener`] slot. Pick it above the peer's own
    /// keep-alive interval. `None` (the default, as OTP) never closes an
    /// idle connection.
    pub tcp_idle_timeout: Option<Duration>,
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            max_peers: 4096,
            peer_idle_timeout: Duration::from_secs(300),
            inbound_queue: 1024,
            tcp_idle_timeout: None,
        }
    }
}

impl Config {
    /// The defaults (Erlang/OTP megaco's, see each field) for `mid`,
    /// version 1, pretty text, an unreliable transport.
    pub fn new(mid: Mid) -> Self {
        Config {
            mid,
            version: 1,
            encoding: Encoding::pretty(),
            reliable: false,
            request_timer: RequestTimer::default(),
            long_request_timer: Duration::from_secs(60),
            recv_pending_limit: None,
            pending_timer: Some(Duration::from_secs(30)),
            sent_pending_limit: None,
            reply_timer: Duration::from_secs(30),
            imm_ack_required: false,
            reply_to_decode_errors: true,
            min_trans_id: 1,
            max_trans_id: u32::MAX,
            max_outstanding_requests: Some(10_000),
            max_unanswered_requests: Some(10_000),
            max_pdu_size: None,
            segment_recv_timer: Duration::from_secs(10),
            transport: TransportConfig::default(),
        }
    }
}

/// Why an outgoing request failed without a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailReason {
    /// The peer sent more pendings than [`Config::recv_pending_limit`].
    PendingLimitExceeded,
}

/// Something the user should know about.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A new request from the peer: answer it with [`Connection::reply`].
    RequestReceived {
        /// Its transaction id.
        transaction_id: u32,
        /// Its actions.
        actions: Vec<ActionRequest>,
        /// The sender's message identifier, from the message header.
        mid: Mid,
        /// The protocol version of the message that carried it.
        version: u8,
    },
    /// The reply to one of our requests.
    ReplyReceived {
        /// The request's transaction id.
        transaction_id: u32,
        /// The result.
        result: TransactionResult,
    },
    /// The peer is still working on one of our requests.
    PendingReceived {
        /// The request's transaction id.
        transaction_id: u32,
    },
    /// No reply came in time; the request is forgotten.
    RequestTimedOut {
        /// The request's transaction id.
        transaction_id: u32,
    },
    /// A segmented reply stayed incomplete for
    /// [`Config::segment_recv_timer`]: the peer got error 459 and the
    /// request is forgotten.
    SegmentsMissing {
        /// The request's transaction id.
        transaction_id: u32,
        /// The segment numbers not received (when the last segment never
        /// came, the number after the highest one received is listed).
        missing: Vec<u16>,
    },
    /// A new request from the peer was answered with error 503 because
    /// [`Config::max_unanswered_requests`] requests await the user's
    /// reply already.
    RequestRefused {
        /// Its transaction id.
        transaction_id: u32,
    },
    /// The request failed for another reason; it is forgotten.
    RequestFailed {
        /// The request's transaction id.
        transaction_id: u32,
        /// Why.
        reason: FailReason,
    },
    /// A reply for which no request is outstanding (never sent, already
    /// answered, or timed out).
    UnexpectedReply {
        /// Its transaction id.
        transaction_id: u32,
        /// Its result.
        result: TransactionResult,
    },
    /// The peer acknowledged one of our replies.
    AckReceived {
        /// The transaction id.
        transaction_id: u32,
    },
    /// A reply sent with `ImmAckRequired` was not acknowledged within
    /// [`Config::reply_timer`].
    AckTimedOut {
        /// The transaction id.
        transaction_id: u32,
    },
    /// We sent more pendings than [`Config::sent_pending_limit`]: the peer
    /// got error 506, and a later [`Connection::reply`] is refused.
    RequestAborted {
        /// The transaction id.
        transaction_id: u32,
    },
    /// The peer sent a message-level error.
    MessageError {
        /// The error.
        error: ErrorDescriptor,
    },
    /// A received message could not be decoded.
    DecodeError {
        /// Why.
        error: DecodeError,
    },
}

/// Why a user command was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No request with this id is waiting for our reply.
    #[error("no request {0} is waiting for a reply")]
    UnknownTransaction(u32),
    /// The message could not be encoded.
    #[error("encode: {0}")]
    Encode(#[from] EncodeError),
    /// [`Config::max_outstanding_requests`] of our requests await a reply
    /// already.
    #[error("{0} requests already await a reply")]
    TooManyOutstanding(usize),
}

#[derive(Debug)]
enum OutState {
    /// Waiting for a reply; resending on expiry.
    Short {
        deadline: Instant,
        interval: Duration,
        retries_left: u32,
    },
    /// A pending came; waiting on the long timer.
    Long { deadline: Instant, pendings: u32 },
    /// Segments of the reply are arriving; waiting on the segment timer.
    Segments {
        deadline: Instant,
        received: BTreeMap<u16, TransactionResult>,
        /// The number of the segment marked complete, once seen.
        last: Option<u16>,
    },
}

#[derive(Debug)]
struct OutRequest {
    bytes: Vec<u8>,
    state: OutState,
}

#[derive(Debug)]
enum InState {
    /// The user has the request and has not replied.
    Processing {
        pending_deadline: Option<Instant>,
        pendings_sent: u32,
    },
    /// We replied (or aborted); the reply is cached (one message, or
    /// each segment's).
    Replied {
        messages: Vec<Vec<u8>>,
        expires: Instant,
        ack_required: bool,
    },
}

/// The transaction state shared with one peer.
///
/// ```
/// use std::time::{Duration, Instant};
/// use megaco::model::*;
/// use megaco_stack::build;
/// use megaco_stack::engine::{Config, Connection, Event};
///
/// let mid = |a| Mid::Ip4(Ip4Address { address: [10, 0, 0, a], port: Some(2944) });
/// let mut mg = Connection::new(Config::new(mid(1)));
/// let mut mgc = Connection::new(Config::new(mid(2)));
/// let t0 = Instant::now();
///
/// let notify = build::notify(ContextId(1), TerminationId::new("t1"), 7, "al/on");
/// let id = mg.send_request(t0, vec![notify]).unwrap();
/// assert_eq!(id, 1);
///
/// // Deliver the MG's message to the MGC; the MGC's user replies.
/// let bytes = mg.poll_transmit().unwrap();
/// mgc.handle_input(t0, &bytes);
/// let Some(Event::RequestReceived { transaction_id, actions, .. }) = mgc.poll_event() else { panic!() };
/// mgc.reply(t0, transaction_id, build::default_replies(&actions)).unwrap();
///
/// // Deliver the reply to the MG.
/// mg.handle_input(t0, &mgc.poll_transmit().unwrap());
/// assert!(matches!(mg.poll_event(), Some(Event::ReplyReceived { transaction_id: 1, .. })));
///
/// // Without the reply, the MG would have resent after 7 s.
/// assert_eq!(mg.poll_timeout(), None);
/// assert_eq!(mgc.poll_timeout(), Some(t0 + Duration::from_secs(30)));
/// ```
#[derive(Debug)]
pub struct Connection {
    config: Config,
    next_id: u32,
    outgoing: HashMap<u32, OutRequest>,
    incoming: HashMap<u32, InState>,
    /// Every armed timer, soonest first.
    timers: BTreeSet<(Instant, Key)>,
    /// The armed deadline of each key, to find its entry in `timers`.
    deadlines: HashMap<Key, Instant>,
    transmits: VecDeque<Vec<u8>>,
    events: VecDeque<Event>,
    /// How many entries of `incoming` are `Processing`.
    unanswered: usize,
}

/// Which transaction a timer belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Key {
    /// One of our requests.
    Out(u32),
    /// A request from the peer.
    In(u32),
}

impl Connection {
    /// A connection with no transactions yet.
    pub fn new(config: Config) -> Self {
        Connection {
            next_id: config.min_trans_id,
            config,
            outgoing: HashMap::new(),
            incoming: HashMap::new(),
            timers: BTreeSet::new(),
            deadlines: HashMap::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            unanswered: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The next message to send, if any.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmits.pop_front()
    }

    /// The next event for the user, if any.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When [`Connection::handle_timeout`] must next be called, if ever.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.timers.first().map(|(at, _)| *at)
    }

    /// Re-arms the timer of `key` from its transaction's current state
    /// (disarms it if the transaction is gone or has no deadline).
    fn reschedule(&mut self, key: Key) {
        if let Some(old) = self.deadlines.remove(&key) {
            self.timers.remove(&(old, key));
        }
        let deadline = match key {
            Key::Out(id) => self.outgoing.get(&id).map(|r| match r.state {
                OutState::Short { deadline, .. }
                | OutState::Long { deadline, .. }
                | OutState::Segments { deadline, .. } => deadline,
            }),
            Key::In(id) => match self.incoming.get(&id) {
                Some(InState::Processing {
                    pending_deadline, ..
                }) => *pending_deadline,
                Some(InState::Replied { expires, .. }) => Some(*expires),
                None => None,
            },
        };
        if let Some(at) = deadline {
            self.deadlines.insert(key, at);
            self.timers.insert((at, key));
        }
    }

    /// How many of our requests await a reply.
    pub fn outstanding_requests(&self) -> usize {
        self.outgoing.len()
    }

    /// How many received requests are remembered (waiting for our reply,
    /// or replied and cached).
    pub fn remembered_requests(&self) -> usize {
        self.incoming.len()
    }

    /// How many received requests await our reply.
    pub fn unanswered_requests(&self) -> usize {
        self.unanswered
    }

    /// Whether no transaction is live: no request of ours awaits a reply,
    /// no received request is unanswered or cached, and nothing waits to
    /// be polled.
    pub fn is_idle(&self) -> bool {
        self.outgoing.is_empty()
            && self.incoming.is_empty()
            && self.transmits.is_empty()
            && self.events.is_empty()
    }

    fn compose(&self, body: MessageBody) -> MegacoMessage {
        MegacoMessage {
            auth_header: None,
            mess: Message {
                version: self.config.version,
                mid: self.config.mid.clone(),
                body,
            },
        }
    }

    fn encode(&self, body: MessageBody) -> Result<Vec<u8>, EncodeError> {
        self.config.encoding.encode(&self.compose(body))
    }

    /// The messages of our reply to `id`: one, or (v3, longer than
    /// [`Config::max_pdu_size`]) its segments.
    fn reply_messages(
        &self,
        id: u32,
        ack: bool,
        result: TransactionResult,
    ) -> Result<Vec<Vec<u8>>, EncodeError> {
        let reply = |result, segment_number, segmentation_complete| {
            MessageBody::Transactions(
                vec![Transaction::Reply(TransactionReply {
                    transaction_id: id,
                    imm_ack_required: ack,
                    result,
                    segment_number,
                    segmentation_complete,
                })]
                .into(),
            )
        };
        let msg = self.compose(reply(result, None, false));
        let whole = self.config.encoding.encode(&msg)?;
        let max = match self.config.max_pdu_size {
            Some(max) if self.config.version >= 3 && whole.len() > max => max,
            _ => return Ok(vec![whole]),
        };
        let MessageBody::Transactions(mut t) = msg.mess.body else {
            return Ok(vec![whole]);
        };
        let Some(Transaction::Reply(TransactionReply {
            result: TransactionResult::ActionReplies(actions),
            ..
        })) = t.pop()
        else {
            return Ok(vec![whole]);
        };
        if actions.len() < 2 {
            return Ok(vec![whole]);
        }
        // Each segment is the longest run of the remaining action replies
        // that encodes within `max` (at least one), found by bisection.
        let encode = |run: &[ActionReply], number: u16, last: bool| {
            let body = reply(
                TransactionResult::ActionReplies(run.to_vec().into()),
                Some(number),
                last,
            );
            self.encode(body)
        };
        let mut segments = Vec::new();
        let mut start = 0;
        while start < actions.len() {
            let Ok(number) = u16::try_from(segments.len() + 1) else {
                return Ok(vec![whole]);
            };
            let rest = &actions[start..];
            let n = rest.len();
            let all = encode(rest, number, true)?;
            let (run, bytes) = if all.len() <= max || n == 1 {
                (n, all)
            } else {
                // `lo` actions fit (or lo = 1); more than `hi` do not
                let (mut lo, mut hi) = (1, n - 1);
                let mut best = encode(&rest[..1], number, n == 1)?;
                while lo < hi {
                    let mid = lo + (hi - lo).div_ceil(2);
                    let bytes = encode(&rest[..mid], number, false)?;
                    if bytes.len() <= max {
                        lo = mid;
                        best = bytes;
                    } else {
                        hi = mid - 1;
                    }
                }
                (lo, best)
            };
            segments.push(bytes);
            start += run;
        }
        Ok(segments)
    }

    fn alloc_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id = if id >= self.config.max_trans_id {
            self.config.min_trans_id
        } else {
            id + 1
        };
        id
    }

    /// Sends a request with `actions`; returns its transaction id.
    ///
    /// The reply comes as [`Event::ReplyReceived`] with this id (or
    /// [`Event::RequestTimedOut`] / [`Event::RequestFailed`]).
    pub fn send_request(
        &mut self,
        now: Instant,
        actions: Vec<ActionRequest>,
    ) -> Result<u32, Error> {
        if let Some(limit) = self.config.max_outstanding_requests {
            if self.outgoing.len() >= limit {
                return Err(Error::TooManyOutstanding(limit));
            }
        }
        let id = self.next_id;
        let bytes = self.encode(MessageBody::Transactions(
            vec![Transaction::Request(TransactionRequest {
                transaction_id: id,
                actions: actions.into(),
            })]
            .into(),
        ))?;
        self.alloc_id();
        let t = self.config.request_timer;
        self.transmits.push_back(bytes.clone());
        self.outgoing.insert(
            id,
            OutRequest {
                bytes,
                state: OutState::Short {
                    deadline: after(now, t.initial),
                    interval: t.initial,
                    retries_left: t.max_retries,
                },
            },
        );
        self.reschedule(Key::Out(id));
        Ok(id)
    }

    /// Forgets an outgoing request: no event will be reported for it, and
    /// a late reply is [`Event::UnexpectedReply`]. Returns whether it was
    /// outstanding.
    pub fn cancel(&mut self, transaction_id: u32) -> bool {
        let was = self.outgoing.remove(&transaction_id).is_some();
        self.reschedule(Key::Out(transaction_id));
        was
    }

    /// Replies to the received request `transaction_id`.
    pub fn reply(
        &mut self,
        now: Instant,
        transaction_id: u32,
        result: TransactionResult,
    ) -> Result<(), Error> {
        match self.incoming.get(&transaction_id) {
            Some(InState::Processing { .. }) => {}
            _ => return Err(Error::UnknownTransaction(transaction_id)),
        }
        let ack_required = self.config.imm_ack_required;
        let messages = self.reply_messages(transaction_id, ack_required, result)?;
        self.transmits.extend(messages.iter().cloned());
        self.unanswered -= 1;
        self.incoming.insert(
            transaction_id,
            InState::Replied {
                messages,
                expires: after(now, self.config.reply_timer),
                ack_required,
            },
        );
        self.reschedule(Key::In(transaction_id));
        Ok(())
    }

    /// Tells the peer we are still working on `transaction_id` (a
    /// TransactionPending), counting against
    /// [`Config::sent_pending_limit`].
    pub fn send_pending(&mut self, now: Instant, transaction_id: u32) -> Result<(), Error> {
        match self.incoming.get(&transaction_id) {
            Some(InState::Processing { .. }) => {
                self.pending(now, transaction_id);
                Ok(())
            }
            _ => Err(Error::UnknownTransaction(transaction_id)),
        }
    }

    /// Sends a pending for a request in `Processing`, or aborts it past the
    /// limit.
    fn pending(&mut self, now: Instant, id: u32) {
        let Some(InState::Processing {
            pending_deadline,
            pendings_sent,
        }) = self.incoming.get_mut(&id)
        else {
            return;
        };
        *pendings_sent += 1;
        if self
            .config
            .sent_pending_limit
            .is_some_and(|limit| *pendings_sent > limit)
        {
            self.abort(now, id);
            return;
        }
        *pending_deadline = self.config.pending_timer.map(|d| after(now, d));
        self.reschedule(Key::In(id));
        let body = MessageBody::Transactions(
            vec![Transaction::Pending(TransactionPending {
                transaction_id: id,
            })]
            .into(),
        );
        if let Ok(bytes) = self.encode(body) {
            self.transmits.push_back(bytes);
        }
    }

    fn abort(&mut self, now: Instant, id: u32) {
        let body = MessageBody::Transactions(
            vec![Transaction::Reply(TransactionReply {
                transaction_id: id,
                imm_ack_required: false,
                result: TransactionResult::Error(ErrorDescriptor {
                    error_code: ERR_PENDING_LIMIT,
                    error_text: Some("Pending limit exceeded".into()),
                }),
                segment_number: None,
                segmentation_complete: false,
            })]
            .into(),
        );
        let messages: Vec<Vec<u8>> = self.encode(body).into_iter().collect();
        self.transmits.extend(messages.iter().cloned());
        self.unanswered -= 1;
        self.incoming.insert(
            id,
            InState::Replied {
                messages,
                expires: after(now, self.config.reply_timer),
                ack_required: false,
            },
        );
        self.reschedule(Key::In(id));
        self.events
            .push_back(Event::RequestAborted { transaction_id: id });
    }

    /// Processes the timers due at `now`. Each due timer fires once, even
    /// if it re-arms at or before `now` (zero intervals).
    pub fn handle_timeout(&mut self, now: Instant) {
        let mut due = Vec::new();
        while let Some(&(at, key)) = self.timers.first() {
            if at > now {
                break;
            }
            self.timers.pop_first();
            self.deadlines.remove(&key);
            due.push(key);
        }
        for key in due {
            match key {
                Key::Out(id) => self.request_timer_fired(now, id),
                Key::In(id) => self.incoming_timer_fired(now, id),
            }
        }
    }

    fn request_timer_fired(&mut self, now: Instant, id: u32) {
        let t = self.config.request_timer;
        let Some(req) = self.outgoing.get_mut(&id) else {
            return;
        };
        match &mut req.state {
            OutState::Short {
                deadline,
                interval,
                retries_left,
            } if *retries_left > 0 => {
                *retries_left -= 1;
                let next = interval
                    .checked_mul(t.factor)
                    .unwrap_or(t.max_interval)
                    .min(t.max_interval);
                *interval = next;
                *deadline = after(now, next);
                if !self.config.reliable {
                    self.transmits.push_back(req.bytes.clone());
                }
                self.reschedule(Key::Out(id));
            }
            OutState::Segments { received, last, .. } => {
                let missing = missing_segments(received, *last);
                self.outgoing.remove(&id);
                // As OTP words it ("2,3"), at most 64 numbers (a hostile
                // peer could leave 65 534 gaps).
                let mut text = missing
                    .iter()
                    .take(64)
                    .map(u16::to_string)
                    .collect::<Vec<_>>()
                    .join(",");
                if missing.len() > 64 {
                    text.push_str(",...");
                }
                let body = MessageBody::Error(ErrorDescriptor {
                    error_code: ERR_MISSING_SEGMENTS,
                    error_text: Some(text.into()),
                });
                if let Ok(bytes) = self.encode(body) {
                    self.transmits.push_back(bytes);
                }
                self.events.push_back(Event::SegmentsMissing {
                    transaction_id: id,
                    missing,
                });
            }
            _ => {
                self.outgoing.remove(&id);
                self.events
                    .push_back(Event::RequestTimedOut { transaction_id: id });
            }
        }
    }

    fn incoming_timer_fired(&mut self, now: Instant, id: u32) {
        match self.incoming.get(&id) {
            Some(InState::Processing { .. }) => self.pending(now, id),
            Some(InState::Replied { ack_required, .. }) => {
                let ack_required = *ack_required;
                self.incoming.remove(&id);
                if ack_required {
                    self.events
                        .push_back(Event::AckTimedOut { transaction_id: id });
                }
            }
            None => {}
        }
    }

    /// Processes one received message.
    pub fn handle_input(&mut self, now: Instant, bytes: &[u8]) {
        let msg = match self.config.encoding.decode(bytes) {
            Ok(msg) => msg,
            Err(error) => {
                let descriptor = decode_error_descriptor(&error);
                self.events.push_back(Event::DecodeError { error });
                if self.config.reply_to_decode_errors {
                    let body = MessageBody::Error(descriptor);
                    if let Ok(bytes) = self.encode(body) {
                        self.transmits.push_back(bytes);
                    }
                }
                return;
            }
        };
        self.handle_message(now, msg);
    }

    /// Processes one received, already decoded message.
    pub fn handle_message(&mut self, now: Instant, msg: MegacoMessage) {
        let Message { mid, version, body } = msg.mess;
        let transactions = match body {
            MessageBody::Error(error) => {
                self.events.push_back(Event::MessageError { error });
                return;
            }
            MessageBody::Transactions(t) => t,
        };
        let mut acks: Vec<u32> = Vec::new();
        for t in transactions {
            match t {
                Transaction::Request(r) => self.on_request(now, r, &mid, version),
                Transaction::Pending(p) => self.on_pending(now, p.transaction_id),
                Transaction::Reply(r) => {
                    if r.imm_ack_required {
                        acks.push(r.transaction_id);
                    }
                    let id = r.transaction_id;
                    match r.segment_number {
                        // OTP acknowledges a completed segmented reply.
                        Some(sn) => {
                            if self.on_segment(now, r, sn) {
                                acks.push(id);
                            }
                        }
                        None => self.on_reply(r),
                    }
                }
                Transaction::ResponseAck(ranges) => self.on_ack(&ranges),
                // segment replies to our own segments; later kinds
                _ => {}
            }
        }
        if !acks.is_empty() {
            let body =
                MessageBody::Transactions(vec![Transaction::ResponseAck(ack_ranges(acks))].into());
            if let Ok(bytes) = self.encode(body) {
                self.transmits.push_back(bytes);
            }
        }
    }

    fn on_request(&mut self, now: Instant, r: TransactionRequest, mid: &Mid, version: u8) {
        let id = r.transaction_id;
        match self.incoming.get(&id) {
            None if self
                .config
                .max_unanswered_requests
                .is_some_and(|limit| self.unanswered >= limit) =>
            {
                let body = MessageBody::Transactions(
                    vec![Transaction::Reply(TransactionReply {
                        transaction_id: id,
                        imm_ack_required: false,
                        result: TransactionResult::Error(ErrorDescriptor {
                            error_code: ERR_SERVICE_UNAVAILABLE,
                            error_text: Some("Service Unavailable".into()),
                        }),
                        segment_number: None,
                        segmentation_complete: false,
                    })]
                    .into(),
                );
                if let Ok(bytes) = self.encode(body) {
                    self.transmits.push_back(bytes);
                }
                self.events
                    .push_back(Event::RequestRefused { transaction_id: id });
            }
            None => {
                self.unanswered += 1;
                self.incoming.insert(
                    id,
                    InState::Processing {
                        pending_deadline: self.config.pending_timer.map(|d| after(now, d)),
                        pendings_sent: 0,
                    },
                );
                self.reschedule(Key::In(id));
                self.events.push_back(Event::RequestReceived {
                    transaction_id: id,
                    actions: r.actions.to_vec(),
                    mid: mid.clone(),
                    version,
                });
            }
            Some(InState::Processing { .. }) => self.pending(now, id),
            Some(InState::Replied { messages, .. }) => {
                self.transmits.extend(messages.iter().cloned());
            }
        }
    }

    fn on_pending(&mut self, now: Instant, id: u32) {
        let Some(req) = self.outgoing.get_mut(&id) else {
            return;
        };
        let pendings = match req.state {
            OutState::Short { .. } => 1,
            OutState::Long { pendings, .. } => pendings + 1,
            // The peer is already replying.
            OutState::Segments { .. } => return,
        };
        if self
            .config
            .recv_pending_limit
            .is_some_and(|limit| pendings > limit)
        {
            self.outgoing.remove(&id);
            self.reschedule(Key::Out(id));
            self.events.push_back(Event::RequestFailed {
                transaction_id: id,
                reason: FailReason::PendingLimitExceeded,
            });
            return;
        }
        req.state = OutState::Long {
            deadline: after(now, self.config.long_request_timer),
            pendings,
        };
        self.reschedule(Key::Out(id));
        self.events
            .push_back(Event::PendingReceived { transaction_id: id });
    }

    fn on_reply(&mut self, r: TransactionReply) {
        let id = r.transaction_id;
        if self.outgoing.remove(&id).is_some() {
            self.reschedule(Key::Out(id));
            self.events.push_back(Event::ReplyReceived {
                transaction_id: id,
                result: r.result,
            });
        } else {
            self.events.push_back(Event::UnexpectedReply {
                transaction_id: id,
                result: r.result,
            });
        }
    }

    /// Takes in segment `sn` of a segmented reply: acknowledges it with a
    /// SegmentReply, and once every segment up to the one marked complete
    /// has come, reports the whole reply. Returns whether the reply is
    /// complete (then the caller acknowledges the transaction).
    fn on_segment(&mut self, now: Instant, r: TransactionReply, sn: u16) -> bool {
        let id = r.transaction_id;
        let Some(req) = self.outgoing.get_mut(&id) else {
            self.events.push_back(Event::UnexpectedReply {
                transaction_id: id,
                result: r.result,
            });
            return false;
        };
        let deadline = after(now, self.config.segment_recv_timer);
        if !matches!(req.state, OutState::Segments { .. }) {
            req.state = OutState::Segments {
                deadline,
                received: BTreeMap::new(),
                last: None,
            };
        }
        let OutState::Segments {
            deadline: armed,
            received,
            last,
        } = &mut req.state
        else {
            return false;
        };
        if r.segmentation_complete {
            *last = Some(sn);
        }
        if let std::collections::btree_map::Entry::Vacant(slot) = received.entry(sn) {
            slot.insert(r.result);
            *armed = deadline;
        }
        let complete = last.is_some_and(|l| (1..=l).all(|n| received.contains_key(&n)));
        let result = if complete {
            let l = last.unwrap_or(0);
            let mut parts = std::mem::take(received);
            Some(merge_segments(
                (1..=l).filter_map(|n| parts.remove(&n)).collect(),
            ))
        } else {
            None
        };
        let body = MessageBody::Transactions(
            vec![Transaction::SegmentReply(SegmentReply {
                transaction_id: id,
                segment_number: sn,
                segmentation_complete: r.segmentation_complete,
            })]
            .into(),
        );
        if let Ok(bytes) = self.encode(body) {
            self.transmits.push_back(bytes);
        }
        match result {
            Some(result) => {
                self.outgoing.remove(&id);
                self.reschedule(Key::Out(id));
                self.events.push_back(Event::ReplyReceived {
                    transaction_id: id,
                    result,
                });
                true
            }
            None => {
                self.reschedule(Key::Out(id));
                false
            }
        }
    }

    fn on_ack(&mut self, ranges: &[TransactionAck]) {
        let mut acked: Vec<u32> = Vec::new();
        for range in ranges {
            let first = range.first_ack;
            let last = range.last_ack.unwrap_or(first).max(first);
            // Walk the smaller of the range and the cache.
            if u64::from(last - first) < self.incoming.len() as u64 {
                acked.extend((first..=last).filter(|id| self.is_replied(*id)));
            } else {
                acked.extend(
                    self.incoming
                        .iter()
                        .filter(|(id, s)| {
                            (first..=last).contains(*id) && matches!(s, InState::Replied { .. })
                        })
                        .map(|(id, _)| *id),
                );
            }
        }
        acked.sort_unstable();
        acked.dedup();
        for id in acked {
            self.incoming.remove(&id);
            self.reschedule(Key::In(id));
            self.events
                .push_back(Event::AckReceived { transaction_id: id });
        }
    }

    fn is_replied(&self, id: u32) -> bool {
        matches!(self.incoming.get(&id), Some(InState::Replied { .. }))
    }
}

/// The message-level error answering an undecodable message, as OTP's
/// messenger words it: 406 "Unsupported version: V" for a version this
/// codec does not speak, otherwise 400 "Syntax error on line L" (text) or
/// "Syntax error" (binary).
pub fn decode_error_descriptor(error: &DecodeError) -> ErrorDescriptor {
    match (error.unsupported_version(), error.line_column()) {
        (Some(v), _) => ErrorDescriptor {
            error_code: ERR_VERSION,
            error_text: Some(format!("Unsupported version: {v}").into()),
        },
        (None, Some((line, _))) => ErrorDescriptor {
            error_code: ERR_SYNTAX,
            error_text: Some(format!("Syntax error on line {line}").into()),
        },
        (None, None) => ErrorDescriptor {
            error_code: ERR_SYNTAX,
            error_text: Some("Syntax error".into()),
        },
    }
}

/// `now + d`, saturating: a duration too long for `Instant` (such as
/// `Duration::MAX`, for "never") lands a century ahead instead of
/// overflowing.
fn after(now: Instant, d: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
    now.checked_add(d.min(CENTURY))
        .or_else(|| now.checked_add(Duration::from_secs(24 * 3600)))
        .unwrap_or(now)
}

/// The segment numbers not (yet) received: the gaps below the last
/// segment, or, when the last one is unknown, the gaps below the highest
/// received and the number after it.
fn missing_segments(received: &BTreeMap<u16, TransactionResult>, last: Option<u16>) -> Vec<u16> {
    let highest = received.keys().next_back().copied().unwrap_or(0);
    let end = last.unwrap_or(highest);
    let mut missing: Vec<u16> = (1..=end).filter(|n| !received.contains_key(n)).collect();
    if last.is_none() {
        missing.push(highest.saturating_add(1));
    }
    missing
}

/// One result from the segments of a reply, in segment order: the action
/// replies of all segments, or the first segment's error if any segment
/// is an error.
fn merge_segments(parts: Vec<TransactionResult>) -> TransactionResult {
    let mut replies = Vec::new();
    for part in parts {
        match part {
            TransactionResult::ActionReplies(r) => replies.extend(r),
            error @ TransactionResult::Error(_) => return error,
        }
    }
    TransactionResult::ActionReplies(replies.into())
}

/// Sorted, coalesced ranges of transaction ids.
fn ack_ranges(mut ids: Vec<u32>) -> Vec<TransactionAck> {
    ids.sort_unstable();
    ids.dedup();
    let mut out: Vec<TransactionAck> = Vec::new();
    for id in ids {
        if let Some(last) = out.last_mut() {
            let end = last.last_ack.unwrap_or(last.first_ack);
            if end.checked_add(1) == Some(id) {
                last.last_ack = Some(id);
                continue;
            }
        }
        out.push(TransactionAck {
            first_ack: id,
            last_ack: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_ranges_coalesce() {
        let r = ack_ranges(vec![5, 1, 2, 3, 9, 2]);
        assert_eq!(
            r,
            vec![
                TransactionAck {
                    first_ack: 1,
                    last_ack: Some(3)
                },
                TransactionAck {
                    first_ack: 5,
                    last_ack: None
                },
                TransactionAck {
                    first_ack: 9,
                    last_ack: None
                },
            ]
        );
    }
}
