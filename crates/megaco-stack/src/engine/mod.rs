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
//!   [`Config::pending_timer`]; with that timer off (`None`), the engine
//!   sends no pending by itself, not even for a duplicate. Each pending
//!   it sends by itself is an [`Event::PendingSent`]. Sending more than
//!   [`Config::sent_pending_limit`] pendings aborts the transaction: the
//!   peer gets error 506 ("Pending limit exceeded", as OTP words it) and
//!   the user [`Event::RequestAborted`].
//! - **Transaction ids reused.** A duplicate is a request with a known
//!   id *and* the same actions (a hash of its decoded actions is kept
//!   with each remembered request). A known id with other actions is a
//!   new transaction, from a peer that restarted and numbers its
//!   requests from 1 again: when we replied to the old one, that one is
//!   forgotten (its cached reply named what the old request asked) and
//!   the new one reported as any new request; while the user still holds
//!   the old one, the new one is answered with error 503 and reported as
//!   [`Event::TransactionIdInUse`] (a reply could not be told from the
//!   other's). Both are counted ([`ConnectionStats::ids_reused`]). A
//!   restarted peer that repeats a request exactly, same id and same
//!   actions, still gets the cached reply: nothing tells it from a
//!   resend. Resends are byte-identical in practice (ours, OTP's), so a
//!   resend in the bytes of the message that last carried its request
//!   is recognised from the borrowed view ([`Connection::handle_view`]);
//!   any other is decoded, and compared by its actions, so a request
//!   resent in another message (alone after travelling with others, or
//!   written otherwise) is still a duplicate.
//! - **Replies we send** are cached for [`Config::reply_horizon`] (by
//!   default the whole life of a request on our resend schedule, 105 s:
//!   a duplicate is never executed twice while its sender may still send
//!   it), or until the peer acknowledges them with a
//!   TransactionResponseAck (which costs its ranges and the replies it
//!   acknowledges, not the replies cached). The cache is bounded per
//!   peer in bytes ([`Config::reply_cache_bytes`]: beyond it, only the
//!   fact that a request was executed is kept, and a duplicate of it is
//!   dropped, [`Event::DuplicateDropped`]) and in entries
//!   ([`Config::max_remembered_requests`]). Replies go out in the version
//!   of the request. With
//!   [`Config::imm_ack_required`] our replies carry `ImmAckRequired`, and
//!   a reply that expires unacknowledged is reported
//!   ([`Event::AckTimedOut`]).
//! - **Replies we receive** that carry `ImmAckRequired` are acknowledged
//!   at once (a segmented reply once, after its last segment, whatever
//!   its segments ask: an ack after the first would end the transaction
//!   at the peer before the other SegmentReplies); all the acks owed for
//!   one received message travel in one TransactionResponseAck. A reply to an id with no outstanding request
//!   (never sent, timed out, already answered) is
//!   [`Event::UnexpectedReply`].
//! - **Undecodable input** is [`Event::DecodeError`] and, when
//!   [`Config::reply_to_decode_errors`] is set (the default, as OTP's
//!   default `handle_syntax_error` does), the peer gets a message-level
//!   error ([`decode_error_descriptor`]: 400, or 406 for an unsupported
//!   version). A received message-level error
//!   is [`Event::MessageError`], and fails the requests to that peer that
//!   have not been answered in any way yet ([`FailReason::MessageError`]):
//!   a peer that refuses our messages (406 "Version not supported", 400)
//!   is reported at once, not after the resends. **No storms**: nothing is
//!   ever answered to a message that carries only errors (a message-level
//!   error, or replies that are all errors: they are not even
//!   acknowledged), and undecodable input right after an error of ours
//!   gets no second error ([`Connection::errors_suppressed`]). Nothing
//!   panics on any input.
//! - **Version negotiation** (H.248.1 section 11.3, with
//!   [`Config::negotiate_version`]): a ServiceChange on ROOT we send
//!   offers our version (ServiceChangeVersion); the version in the peer's
//!   ServiceChangeReply, or when it has none the lower of the version
//!   offered and that of the reply's message, is used
//!   from then on ([`Event::VersionNegotiated`]). A ServiceChange on ROOT
//!   we receive offers the peer's version; when the user's reply accepts
//!   it, the reply carries the lower of that and [`Config::version`]
//!   (unless the user set one), which is used from then on. Either way
//!   the peer is *registered* ([`Connection::is_registered`]).
//! - **Segmented replies** (v3: a reply with a segment number, the last
//!   one marked complete) are collected: each segment is answered with a
//!   SegmentReply, the first one stops the resends, and each new one
//!   (re)starts the [`Config::segment_recv_timer`]. Once every segment up
//!   to the last has come, the whole reply (the action replies of all
//!   segments in segment order, or the first error segment) is one
//!   [`Event::ReplyReceived`], and the transaction is acknowledged with a
//!   TransactionResponseAck. At the timer's expiry the peer gets error
//!   459 listing the missing segments and the user
//!   [`Event::SegmentsMissing`]. A reply of more than
//!   [`MAX_REPLY_SEGMENTS`] segments or [`MAX_SEGMENTED_REPLY_BYTES`]
//!   bytes fails the request ([`FailReason::SegmentLimitExceeded`]) at
//!   the segment that goes beyond. A v3 reply of ours longer than
//!   [`Config::max_pdu_size`] is sent as segments (runs of its action
//!   replies, each message within the limit); a repeated request gets
//!   them all again. In BER and PER only to a peer that negotiated v3
//!   (see [`Config::max_pdu_size`]).
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
//! except the reply timer (below) and:
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
//!   OTP bounds neither the number nor the bytes of the segments it
//!   collects; ours are [`MAX_REPLY_SEGMENTS`] and
//!   [`MAX_SEGMENTED_REPLY_BYTES`].
//! - OTP bounds neither outstanding nor unanswered transactions; its flow
//!   control is the user blocking the transport (`megaco_udp:block/1`).
//!   Ours are [`Config::max_outstanding_requests`],
//!   [`Config::max_unanswered_requests`] (error 503, "Service
//!   Unavailable" in H.248.8) and, in the drivers, [`TransportConfig`]:
//!   a bounded number of peers, idle peers forgotten, a bounded queue to
//!   the user (a UDP request that finds it full gets error 503, a TCP
//!   one waits while its connection is not read) and readers that stop
//!   reading the socket while the driver is behind.
//! - RFC 3525 D.1.1 (at-most-once) compares the transaction id of a
//!   request with those of the recent replies to the same sender and,
//!   on a match, repeats the reply without executing the request; OTP's
//!   messenger does so (a known id gets the stored reply, or a pending
//!   while the user works on it, whatever the request holds). A peer
//!   that restarts and reuses the ids of its previous life, within the
//!   reply horizon, then gets the replies meant for that life, and its
//!   user never sees the new requests, its registration among them.
//!   Ours also compares the request's actions (see "Transaction ids
//!   reused" above).
//! - OTP's `megaco:cancel/2` cancels every request of a connection; ours
//!   cancels one ([`Connection::cancel`], or dropping the request future
//!   in the drivers).
//! - Where OTP calls `handle_syntax_error` and the user decides, the
//!   answer to undecodable input is the [`Config::reply_to_decode_errors`]
//!   flag, and never two errors in a row to one peer: OTP answers an
//!   undecodable error with an error, so two mismatched peers loop.
//! - OTP's reply timer (30 s) expires before the last resend of its own
//!   default request timer (7, 14, 28 s: the third resend at 49 s), so a
//!   late duplicate is executed again; ours keeps replies for the
//!   request's whole lifetime (see [`Config::reply_timer`]). OTP's
//!   default request timer resends forever, so no finite cache covers
//!   an OTP peer entirely; ours covers its resends up to 105 s.
//! - Version negotiation is the user's job in OTP (`megaco:
//!   update_conn_info(CH, protocol_version, V)` on the ServiceChange), and
//!   with its default `strict_version` a message in another version than
//!   the connection's is answered with 406 "Not negotiated version". Ours
//!   negotiates by itself and accepts any version it decodes up to
//!   [`Config::version`], answering in the request's version; a message
//!   in a higher version is answered with 406 "Version not supported"
//!   (in ours) and none of its transactions is taken, unless it carries a
//!   registration (which negotiates the version down).

mod event;
mod incoming;
mod outgoing;
mod util;
mod view;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// The maps of transactions: keyed by ids a peer chooses, so with a
/// seeded hash (foldhash's, several times SipHash's speed on small keys).
pub(crate) type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
use std::sync::Arc;
use std::time::{Duration, Instant};

use megaco::model::*;
use megaco::{EncodeError, MegacoMessage};

use crate::codec::{DecodeError, Encoding};
pub use crate::config::{Config, RateLimit, RequestTimer, TransportConfig};
pub use event::{Error, Event, FailReason};
pub(crate) use util::after;
pub use util::decode_error_descriptor;
use util::{ack_ranges, only_errors};
pub use view::VIEW_PATIENCE;

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

/// The most segments a segmented reply from the peer may have: a
/// segment numbered above it fails the request
/// ([`FailReason::SegmentLimitExceeded`]). A sender fills each segment
/// up to its largest message for the path, at least about 1 KiB on any
/// network (IPv6's minimum MTU is 1280 bytes), so a reply of
/// [`MAX_SEGMENTED_REPLY_BYTES`] needs at most this many.
pub const MAX_REPLY_SEGMENTS: u16 = (MAX_SEGMENTED_REPLY_BYTES / 1024) as u16;

/// The most bytes the segments of one segmented reply from the peer may
/// hold together (each measured in our encoding): as much as one message
/// a decoder takes by default ([`megaco::Limits::max_message_size`],
/// 4 MiB), since segmenting splits a reply, it does not make it bigger.
/// A segment beyond it fails the request
/// ([`FailReason::SegmentLimitExceeded`]) and frees the others.
pub const MAX_SEGMENTED_REPLY_BYTES: usize = megaco::Limits::DEFAULT.max_message_size;

/// The longest message the engine hands its transports: what a UDP
/// datagram over IPv4 carries (65,507 bytes; over IPv6 65,527, and a TPKT
/// frame 65,531). A longer request or reply could not be sent on any of
/// them, so it is an [`Error::Encode`] here rather than a message the
/// driver would drop: a request is refused to the caller, and a reply
/// (unless segmented into shorter messages, see
/// [`Config::max_pdu_size`]) is replaced by error 500, as a reply that
/// cannot be encoded is.
pub const MAX_WIRE_MESSAGE: usize = 65_507;

/// `bytes` if the transports can carry them (see [`MAX_WIRE_MESSAGE`]).
fn sendable(bytes: Vec<u8>) -> Result<Vec<u8>, EncodeError> {
    if bytes.len() <= MAX_WIRE_MESSAGE {
        Ok(bytes)
    } else {
        Err(EncodeError::Invalid {
            what: "message",
            detail: format!(
                "{} bytes, more than a UDP datagram carries ({MAX_WIRE_MESSAGE})",
                bytes.len()
            ),
        })
    }
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
        /// Bytes of the segments in `received`, in our encoding.
        bytes: usize,
        /// The number of the segment marked complete, once seen.
        last: Option<u16>,
    },
}

#[derive(Debug)]
struct OutRequest {
    bytes: Vec<u8>,
    state: OutState,
    /// The version offered, when the request holds a registration.
    offered: Option<u8>,
}

#[derive(Debug)]
enum InState {
    /// The user has the request and has not replied.
    Processing {
        pending_deadline: Option<Instant>,
        pendings_sent: u32,
        /// The version of the request's message.
        version: u8,
        /// The version the peer offered, when the request holds a
        /// registration.
        offered: Option<u8>,
        print: Print,
    },
    /// We replied (or aborted); the reply is cached (one message, or
    /// each segment's), or, once dropped from the cache, only remembered
    /// (`messages` empty).
    Replied {
        messages: Vec<Vec<u8>>,
        expires: Instant,
        ack_required: bool,
        print: Print,
    },
}

impl InState {
    fn print(&self) -> &Print {
        match self {
            InState::Processing { print, .. } | InState::Replied { print, .. } => print,
        }
    }

    fn print_mut(&mut self) -> &mut Print {
        match self {
            InState::Processing { print, .. } | InState::Replied { print, .. } => print,
        }
    }
}

/// What tells a retransmission of a received request from a new request
/// that reuses its id (see "Transaction ids reused" in the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Print {
    /// A hash of the request's actions, as decoded.
    content: u64,
    /// A hash of the bytes of the last message that carried it, when
    /// they were seen ([`Connection::handle_view`]): a byte-identical
    /// resend is recognised from the view, without decoding.
    wire: Option<u64>,
}

/// Counters of what a [`Connection`] did to stay within its bounds and to
/// keep out of error loops.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConnectionStats {
    /// Duplicates answered from the cache.
    pub duplicates_answered: u64,
    /// Duplicates whose reply had left the cache: dropped.
    pub duplicates_dropped: u64,
    /// Undecodable messages not answered because our last message to the
    /// peer was an error already.
    pub errors_suppressed: u64,
    /// Executed requests forgotten early, beyond
    /// [`Config::max_remembered_requests`].
    pub remembered_evicted: u64,
    /// Requests that came with the id of a remembered one but other
    /// actions (a peer restarted and numbering from 1 again): taken as
    /// new, or refused with error 503 while the user holds the old one.
    pub ids_reused: u64,
    /// Messages handled from a borrowed view of their bytes, without
    /// building the owned model (duplicates of known requests, pendings,
    /// acks, SegmentReplies; see [`Connection::handle_view`]).
    pub messages_viewed: u64,
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
/// // Without the reply, the MG would have resent after 7 s; the MGC
/// // remembers its reply for the whole life of a request (105 s).
/// assert_eq!(mg.poll_timeout(), None);
/// assert_eq!(mgc.poll_timeout(), Some(t0 + Duration::from_secs(105)));
/// ```
#[derive(Debug)]
pub struct Connection {
    config: Arc<Config>,
    encoding: Arc<Encoding>,
    /// The version of our requests (and of messages not tied to a
    /// request): the negotiated one, or [`Config::version`].
    version: u8,
    registered: bool,
    /// Whether the peer negotiated v3 (and so reads segmented binary
    /// replies).
    negotiated_v3: bool,
    next_id: u32,
    outgoing: Map<u32, OutRequest>,
    incoming: Map<u32, InState>,
    /// The ids of the `Replied` entries of `incoming`, in order: an
    /// acknowledgement finds the entries of each of its ranges without
    /// walking the others.
    replied_ids: BTreeSet<u32>,
    /// Replied entries of `incoming`, oldest first (with their expiry, to
    /// skip entries replaced since): the eviction order of the cache.
    replied: VecDeque<(u32, Instant)>,
    /// Bytes of the cached replies.
    cached_bytes: usize,
    /// How many entries of `incoming` are `Replied`.
    remembered: usize,
    /// When each replied request is forgotten, soonest first, for the
    /// `Replied` entries of `incoming` (stale entries, of requests
    /// forgotten or replied again since, are skipped; the front is never
    /// stale). Every reply is kept for the same horizon, so a queue in
    /// arrival order is a queue in expiry order: the busiest timer costs
    /// a push and a pop rather than a tree insert and removal.
    expiries: VecDeque<(Instant, u32)>,
    /// Every other armed timer (our requests' resends and deadlines,
    /// pendings owed to the peer), soonest first.
    timers: BTreeSet<(Instant, Key)>,
    /// The armed deadline of each key, to find its entry in `timers`.
    deadlines: Map<Key, Instant>,
    /// Messages to send, and whether each is an error the stack produced
    /// by itself (rate-limited by an endpoint).
    transmits: VecDeque<(Vec<u8>, bool)>,
    events: VecDeque<Event>,
    /// How many entries of `incoming` are `Processing`.
    unanswered: usize,
    /// Whether we sent the peer a message-level error since its last
    /// decodable message.
    last_sent_error: bool,
    /// The borrowed view's luck with this peer ([`Connection::handle_view`]).
    view_luck: view::Luck,
    /// Our segmented replies whose SegmentReplies have not all come: how
    /// many segments each still waits for.
    unacked_segments: Map<u32, u16>,
    stats: ConnectionStats,
    /// The key of the hashes of [`Print`]s (random per connection).
    prints: foldhash::fast::RandomState,
    /// The hash of the bytes of the message being handled, from
    /// [`Connection::handle_view`] to [`Connection::handle_message`].
    input_wire: Option<u64>,
    /// Remembered requests looked at by acknowledgements so far (the
    /// cost of `on_ack` beyond one ordered lookup per range, for the
    /// tests of its bound).
    ack_visits: u64,
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
        let encoding = Arc::new(config.encoding.clone());
        Connection::with_shared(Arc::new(config), encoding)
    }

    /// A connection sharing its configuration with others (as the peers of
    /// an endpoint do), speaking `encoding`.
    pub fn with_shared(config: Arc<Config>, encoding: Arc<Encoding>) -> Self {
        Connection {
            next_id: config.min_trans_id,
            version: config.version,
            config,
            encoding,
            registered: false,
            negotiated_v3: false,
            outgoing: Map::default(),
            incoming: Map::default(),
            replied_ids: BTreeSet::new(),
            replied: VecDeque::new(),
            cached_bytes: 0,
            remembered: 0,
            expiries: VecDeque::new(),
            timers: BTreeSet::new(),
            deadlines: Map::default(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            unanswered: 0,
            last_sent_error: false,
            view_luck: view::Luck::default(),
            unacked_segments: Map::default(),
            stats: ConnectionStats::default(),
            prints: foldhash::fast::RandomState::default(),
            input_wire: None,
            ack_visits: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The encoding of our messages.
    pub fn encoding(&self) -> &Encoding {
        &self.encoding
    }

    pub(crate) fn encoding_arc(&self) -> Arc<Encoding> {
        self.encoding.clone()
    }

    /// Speak `encoding` from now on (an endpoint does when it recognises
    /// the peer's encoding).
    pub fn set_encoding(&mut self, encoding: Arc<Encoding>) {
        self.encoding = encoding;
    }

    /// The protocol version of our requests: the negotiated one, or
    /// [`Config::version`] before a negotiation.
    pub fn version(&self) -> u8 {
        self.version
    }

    /// Whether a registration (a ServiceChange on ROOT) between us and
    /// the peer was accepted.
    pub fn is_registered(&self) -> bool {
        self.registered
    }

    /// What the connection did to stay within its bounds so far.
    pub fn stats(&self) -> ConnectionStats {
        self.stats
    }

    /// How many undecodable messages were not answered because our last
    /// message to the peer was an error already.
    pub fn errors_suppressed(&self) -> u64 {
        self.stats.errors_suppressed
    }

    /// The next message to send, if any.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmits.pop_front().map(|(bytes, _)| bytes)
    }

    /// The next message to send, and whether it is an error the stack
    /// produced by itself (an answer to undecodable input, 503, 506, 459),
    /// which an endpoint rate-limits.
    pub fn poll_transmit_tagged(&mut self) -> Option<(Vec<u8>, bool)> {
        self.transmits.pop_front()
    }

    /// The next event for the user, if any.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When [`Connection::handle_timeout`] must next be called, if ever.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let timer = self.timers.first().map(|(at, _)| *at);
        let expiry = self.expiries.front().map(|(at, _)| *at);
        match (timer, expiry) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
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

    /// How many executed requests are remembered (replied, with the reply
    /// cached or only the fact that they ran).
    pub fn executed_requests(&self) -> usize {
        self.remembered
    }

    /// How many received requests await our reply.
    pub fn unanswered_requests(&self) -> usize {
        self.unanswered
    }

    /// Whether some of our segmented replies still wait for the peer's
    /// SegmentReplies (a graceful close waits for them, at most
    /// [`Config::segment_recv_timer`]).
    pub fn awaits_segment_replies(&self) -> bool {
        !self.unacked_segments.is_empty()
    }

    fn on_segment_reply(&mut self, r: &SegmentReply) {
        if let Some(left) = self.unacked_segments.get_mut(&r.transaction_id) {
            *left = left.saturating_sub(1);
            if *left == 0 || r.segmentation_complete {
                self.unacked_segments.remove(&r.transaction_id);
            }
        }
    }

    /// Bytes of replies cached for duplicates.
    pub fn cached_reply_bytes(&self) -> usize {
        self.cached_bytes
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
            // A replied request's expiry is in `expiries`.
            Key::In(id) => match self.incoming.get(&id) {
                Some(InState::Processing {
                    pending_deadline, ..
                }) => *pending_deadline,
                Some(InState::Replied { .. }) | None => None,
            },
        };
        if let Some(at) = deadline {
            self.deadlines.insert(key, at);
            self.timers.insert((at, key));
        }
    }

    fn compose(&self, version: u8, body: MessageBody) -> MegacoMessage {
        MegacoMessage {
            auth_header: None,
            mess: Message {
                version,
                mid: self.config.mid.clone(),
                body,
            },
        }
    }

    fn encode(&self, version: u8, body: MessageBody) -> Result<Vec<u8>, EncodeError> {
        self.encoding.encode(&self.compose(version, body))
    }

    /// Queues a message for the peer.
    fn push(&mut self, bytes: Vec<u8>, stack_error: bool, message_error: bool) {
        self.last_sent_error |= message_error;
        self.transmits.push_back((bytes, stack_error));
    }

    /// Queues a message-level error for the peer.
    fn send_message_error(&mut self, version: u8, error: ErrorDescriptor) {
        if let Ok(bytes) = self.encode(version, MessageBody::Error(error)) {
            self.push(bytes, true, true);
        }
    }

    /// Processes one received message.
    ///
    /// Messages that only repeat requests already known, or carry
    /// pendings, acks and SegmentReplies, are handled from a borrowed
    /// view of the bytes where the encoding has one
    /// ([`Connection::handle_view`]); the others are decoded.
    pub fn handle_input(&mut self, now: Instant, bytes: &[u8]) {
        if self.handle_view(now, bytes) {
            return;
        }
        match self.encoding.decode(bytes) {
            Ok(msg) => self.handle_message(now, msg),
            Err(error) => self.handle_undecodable(error),
        }
    }

    /// Reports an undecodable message, and answers it with a message-level
    /// error unless [`Config::reply_to_decode_errors`] is off or we sent
    /// the peer an error since its last decodable message.
    pub fn handle_undecodable(&mut self, error: DecodeError) {
        self.input_wire = None;
        let descriptor = decode_error_descriptor(&error);
        self.events.push_back(Event::DecodeError { error });
        if !self.config.reply_to_decode_errors {
            return;
        }
        if self.last_sent_error {
            self.stats.errors_suppressed += 1;
            return;
        }
        self.send_message_error(self.version, descriptor);
    }

    /// Processes one received, already decoded message.
    ///
    /// When [`Connection::handle_view`] was called on its bytes just
    /// before (and declined them), the requests it brings are noted with
    /// a hash of those bytes, so that a byte-identical resend of one is
    /// answered from the view; otherwise each resend is decoded.
    pub fn handle_message(&mut self, now: Instant, msg: MegacoMessage) {
        let wire = self.input_wire.take();
        // The peer reads us again: a later undecodable message may be
        // answered.
        self.last_sent_error = false;
        let Message { mid, version, body } = msg.mess;
        let transactions = match body {
            MessageBody::Error(error) => {
                self.on_message_error(error);
                return;
            }
            MessageBody::Transactions(t) => t,
        };
        // A message of error replies only gets nothing back, not even
        // acks: two stacks must never answer each other's errors.
        let errors_only = !transactions.is_empty()
            && transactions
                .iter()
                .all(|t| matches!(t, Transaction::Reply(r) if only_errors(&r.result)));
        // A version above the highest we speak (Config::version): none of
        // its transactions is taken, the peer gets 406 in ours. A
        // registration is the exception: it negotiates the version
        // (H.248.1 section 11.3), and is answered in its own.
        let registers = || {
            transactions.iter().any(|t| {
                matches!(t, Transaction::Request(r)
                    if util::offered_version(&r.actions, version).is_some())
            })
        };
        if version > self.config.version && !registers() {
            if !errors_only {
                self.send_message_error(
                    self.config.version,
                    ErrorDescriptor {
                        error_code: ERR_VERSION,
                        error_text: Some("Version not supported".into()),
                    },
                );
            }
            return;
        }
        let mut acks: Vec<u32> = Vec::new();
        for t in transactions {
            match t {
                Transaction::Request(r) => self.on_request(now, r, &mid, version, wire),
                Transaction::Pending(p) => self.on_pending(now, p.transaction_id),
                Transaction::Reply(r) => {
                    let id = r.transaction_id;
                    match r.segment_number {
                        // A segmented reply is acknowledged once, when
                        // complete (as OTP does, asked or not): an ack
                        // after the first segment would end the
                        // transaction at the peer before the other
                        // SegmentReplies.
                        Some(sn) => {
                            if self.on_segment(now, r, sn, version) {
                                acks.push(id);
                            }
                        }
                        None => {
                            if r.imm_ack_required {
                                acks.push(id);
                            }
                            self.on_reply(r, version);
                        }
                    }
                }
                Transaction::ResponseAck(ranges) => self.on_ack(&ranges),
                Transaction::SegmentReply(r) => self.on_segment_reply(&r),
                // kinds of a later version of the model
                _ => {}
            }
        }
        if !acks.is_empty() && !errors_only {
            let body =
                MessageBody::Transactions(vec![Transaction::ResponseAck(ack_ranges(acks))].into());
            if let Ok(bytes) = self.encode(version, body) {
                self.push(bytes, false, false);
            }
        }
    }

    /// A message-level error from the peer: reported, and the requests it
    /// has not answered in any way yet fail with it.
    fn on_message_error(&mut self, error: ErrorDescriptor) {
        let mut failed: Vec<u32> = self
            .outgoing
            .iter()
            .filter(|(_, r)| matches!(r.state, OutState::Short { .. }))
            .map(|(id, _)| *id)
            .collect();
        failed.sort_unstable();
        self.events.push_back(Event::MessageError {
            error: error.clone(),
        });
        for id in failed {
            self.outgoing.remove(&id);
            self.reschedule(Key::Out(id));
            self.events.push_back(Event::RequestFailed {
                transaction_id: id,
                reason: FailReason::MessageError(error.clone()),
            });
        }
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
        while let Some(&(at, id)) = self.expiries.front() {
            if at > now {
                break;
            }
            self.expiries.pop_front();
            if self.is_remembered(id, at) {
                due.push(Key::In(id));
            }
        }
        for key in due {
            match key {
                Key::Out(id) => self.request_timer_fired(now, id),
                Key::In(id) => self.incoming_timer_fired(now, id),
            }
        }
    }
}
