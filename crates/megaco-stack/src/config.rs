//! Configuration: the transaction timers and bounds of each peer
//! ([`Config`]), and the bounds of the endpoint and its transports
//! ([`TransportConfig`]). Every field has a documented default, so that a
//! command line can expose each one as a flag.

use std::time::Duration;

use megaco::model::Mid;

use crate::codec::Encoding;

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
    /// 60 s: resends at 7, 21 and 49 s, time-out at 105 s.
    fn default() -> Self {
        RequestTimer {
            initial: Duration::from_secs(7),
            factor: 2,
            max_interval: Duration::from_secs(60),
            max_retries: 3,
        }
    }
}

impl RequestTimer {
    /// The intervals of the schedule: before each resend, then before the
    /// time-out (`max_retries + 1` of them).
    pub fn intervals(&self) -> impl Iterator<Item = Duration> + '_ {
        let mut next = self.initial;
        (0..=self.max_retries).map(move |_| {
            let this = next;
            next = next
                .checked_mul(self.factor)
                .unwrap_or(self.max_interval)
                .min(self.max_interval);
            this
        })
    }

    /// When the last resend goes out, counted from the first sending:
    /// the latest a duplicate of the request can be sent (49 s with the
    /// defaults).
    ///
    /// ```
    /// use std::time::Duration;
    /// use megaco_stack::engine::RequestTimer;
    ///
    /// let t = RequestTimer::default();
    /// assert_eq!(t.resend_horizon(), Duration::from_secs(7 + 14 + 28));
    /// assert_eq!(t.lifetime(), Duration::from_secs(7 + 14 + 28 + 56));
    /// ```
    pub fn resend_horizon(&self) -> Duration {
        self.intervals()
            .take(self.max_retries as usize)
            .fold(Duration::ZERO, Duration::saturating_add)
    }

    /// How long a request lives without an answer, from its first
    /// sending to its time-out (105 s with the defaults).
    pub fn lifetime(&self) -> Duration {
        self.intervals()
            .fold(Duration::ZERO, Duration::saturating_add)
    }
}

/// A token bucket: on average `per_second` events a second, with bursts
/// of up to `burst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Tokens added per second.
    pub per_second: u32,
    /// Most tokens held (and so the longest burst).
    pub burst: u32,
}

/// Configuration of a peer's transactions: one
/// [`Connection`](crate::engine::Connection), or each peer of an
/// [`Endpoint`](crate::endpoint::Endpoint).
#[derive(Debug, Clone)]
pub struct Config {
    /// Our message identifier, written in every message we send.
    pub mid: Mid,
    /// The highest protocol version we speak (1 to 3): the version of our
    /// messages to a peer until a ServiceChange negotiates another
    /// ([`Config::negotiate_version`]). Replies always go out in the
    /// version of the request; a message in a higher version is answered
    /// with error 406. Default 1.
    pub version: u8,
    /// The wire encoding of our messages to a peer we have not heard
    /// from yet (and, with [`Config::recognise_encoding`] off, of every
    /// message). Default pretty text.
    pub encoding: Encoding,
    /// Answer each peer in the encoding of its messages (text pretty or
    /// compact, BER in OTP's or the standard dialect, PER), as an
    /// [`Endpoint`](crate::endpoint::Endpoint) recognises it from the first
    /// bytes ([`megaco::codec::sniff`]); off, only [`Config::encoding`] is
    /// read and written. Default on. A bare
    /// [`Connection`](crate::engine::Connection) ignores it.
    pub recognise_encoding: bool,
    /// Negotiate the protocol version in ServiceChange (H.248.1 section
    /// 11.3): our ServiceChange on ROOT offers our version
    /// (ServiceChangeVersion, filled in when the request leaves it
    /// empty), the version in the peer's ServiceChangeReply (or, without
    /// one, the lower of the version offered and that of the reply's
    /// message: a peer that does not negotiate answers in the version it
    /// speaks) is used for every later message to that
    /// peer; a received ServiceChange on ROOT offers the peer's version,
    /// and when the user accepts it, the reply carries the lower of that
    /// and ours, which is used from then on. Default on.
    pub negotiate_version: bool,
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
    /// `pending_timer`, 30 s), and answer a duplicate of such a request
    /// with one; `None` to send pendings only when the user asks
    /// ([`Connection::send_pending`](crate::engine::Connection::send_pending)):
    /// a duplicate then gets nothing.
    pub pending_timer: Option<Duration>,
    /// How many pendings we send for one request before aborting it (OTP
    /// `sent_pending_limit`, unlimited); `None` for no limit.
    pub sent_pending_limit: Option<u32>,
    /// How long a request we executed is remembered, so that a duplicate
    /// of it gets the cached reply instead of running again. `None` (the
    /// default) derives it from the timers: the
    /// [`RequestTimer::lifetime`] of [`Config::request_timer`] (105 s
    /// with the defaults), so that every resend of a peer on the same
    /// schedule finds the reply (its last resend goes out at 49 s). OTP's
    /// `reply_timer` is 30 s, before that last resend. See
    /// [`Config::reply_cache_bytes`] for the memory bound.
    pub reply_timer: Option<Duration>,
    /// How many bytes of cached replies one peer may hold (all peers of
    /// an endpoint together: [`TransportConfig::reply_cache_total`]). Beyond it the
    /// oldest replies are dropped but the fact that their requests were
    /// executed is kept: a duplicate of one is then not executed again
    /// and not answered ([`Event::DuplicateDropped`](crate::engine::Event)).
    /// Default 256 KiB.
    pub reply_cache_bytes: usize,
    /// How many executed requests one peer's cache remembers at most (with
    /// or without their reply). Beyond it the oldest are forgotten, as if
    /// their reply timer had run out. Default 16 384 (150 requests a second
    /// for 105 s).
    pub max_remembered_requests: usize,
    /// Ask the peer to acknowledge our replies (`ImmAckRequired`).
    pub imm_ack_required: bool,
    /// Answer undecodable messages with a message-level error 400 (406
    /// for an unsupported version). Never twice in a row to the same
    /// peer: undecodable input right after an error of ours is dropped
    /// (it is most likely the peer's answer to our error, in an encoding
    /// we do not read), which ends error loops between mismatched peers.
    /// The error goes out in the version agreed with the peer; to a peer
    /// not yet known, in the version its header names when that is one
    /// we speak, else in [`version`](Self::version).
    /// Default on, as OTP's default `handle_syntax_error`.
    pub reply_to_decode_errors: bool,
    /// The first transaction id (OTP `min_trans_id`, 1).
    pub min_trans_id: u32,
    /// The last transaction id before wrapping (OTP `max_trans_id`,
    /// `infinity`, i.e. 2^32 - 1); below `min_trans_id`, taken as it.
    /// After a wrap, ids still awaiting a reply are skipped, and when
    /// every id of the range is in flight a new request is refused
    /// ([`Error::TooManyOutstanding`](crate::engine::Error::TooManyOutstanding)).
    pub max_trans_id: u32,
    /// How many of our requests may await a reply at once;
    /// [`Connection::send_request`](crate::engine::Connection::send_request)
    /// refuses more. `None` for no limit. Default 10 000 (OTP has no such
    /// limit).
    pub max_outstanding_requests: Option<usize>,
    /// How many received requests may await the user's reply at once;
    /// further new requests are answered with error 503 ("Service
    /// Unavailable"). `None` for no limit. Default 10 000 (OTP has no such
    /// limit).
    pub max_unanswered_requests: Option<usize>,
    /// The largest message we send as one reply (OTP `max_pdu_size`,
    /// `infinity`; set it below the path MTU for UDP). In v3 a reply whose
    /// encoding is longer is sent as segments (H.248.1 v3 segmentation):
    /// consecutive runs of its action replies, each its own message of at
    /// most this many bytes, numbered from 1, the last marked complete.
    /// A single action reply longer than this, a reply in v1/v2, and, in
    /// BER or PER, a reply to a peer that has not negotiated v3 go out
    /// whole (Erlang/OTP decodes binary messages of a peer it did not
    /// negotiate v3 with as v1, where segments read as separate replies).
    /// `None` (the default) never segments.
    pub max_pdu_size: Option<usize>,
    /// How long to wait for the next segment of a segmented reply (OTP
    /// `segment_recv_timer`, 10 s). At expiry the peer gets error 459 and
    /// the request fails. Also how long a graceful close waits for the
    /// SegmentReplies of our own segmented replies.
    pub segment_recv_timer: Duration,
    /// Bounds of the endpoint and its transports (ignored by a bare
    /// [`Connection`](crate::engine::Connection)).
    pub transport: TransportConfig,
}

/// Bounds of an [`Endpoint`](crate::endpoint::Endpoint) and its
/// transports, which keep hostile or fast peers from growing memory
/// without bound or locking others out.
///
/// A peer is *unproven* until it sends a message we can decode, *proven*
/// after, and *registered* once a ServiceChange on ROOT between us was
/// accepted (either way). Unproven peers are held in a small table of
/// their own and are the first to go; a registered peer keeps its slot
/// while it is not quiet (see [`TransportConfig::max_peers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransportConfig {
    /// How many proven peers (each with its transactions) the endpoint
    /// keeps at once, over all its sockets and listeners together. A new
    /// peer beyond this takes the slot of the proven,
    /// unregistered peer idle the longest (one with no live transaction);
    /// failing that, when one source address holds more than half the
    /// table (two slots at least) and the newcomer comes from another,
    /// the slot of that
    /// address's peer idle the longest; failing that, that of the peer,
    /// registered or not, *quiet* the longest: no request awaiting a reply
    /// either way, and nothing from or to it for at least the request
    /// timer's [`RequestTimer::resend_horizon`] (49 s by default: a peer
    /// on those timers has no resend left to send; its next message gets
    /// it a slot again), if its address holds at least as many slots as
    /// the newcomer's. When there is none either it is refused
    /// ([`EndpointEvent::PeerRefused`](crate::endpoint::EndpointEvent)).
    /// Requests the user sends to a new address are always allowed.
    /// After a search of the table that freed nothing, newcomers are
    /// refused without another for a second. Default 4096.
    pub max_peers: usize,
    /// How many unproven peers (UDP addresses or TCP connections that
    /// never sent a decodable message) are kept; a new one beyond this
    /// evicts the oldest. Default 1024.
    pub max_unproven_peers: usize,
    /// How long an unproven peer is kept (a TCP connection is closed)
    /// without sending a decodable message. Default 10 s.
    pub unproven_timeout: Duration,
    /// A proven, unregistered peer with no live transaction (no request
    /// awaiting a reply, no received request unanswered or remembered) is
    /// forgotten after this long without traffic; a TCP connection is
    /// closed. It should exceed the peers' reply timers: a forgotten
    /// peer's transaction ids start again from
    /// [`Config::min_trans_id`]. Default 5 minutes.
    pub peer_idle_timeout: Duration,
    /// The same for registered peers; `None` keeps them for as long as
    /// the endpoint runs. Default 1 hour.
    pub registered_idle_timeout: Option<Duration>,
    /// A TCP connection's frame must be complete this long after its
    /// first byte came (a TPKT header announcing bytes that never come,
    /// or a peer sending one byte a second), or the connection is
    /// closed. Default 10 s.
    pub tcp_frame_timeout: Duration,
    /// A proven, unregistered TCP connection that brings no complete
    /// message for this long is closed. Registered ones follow
    /// [`TransportConfig::registered_idle_timeout`]. `None` never closes
    /// an idle connection (OTP's behaviour). Default 5 minutes.
    pub tcp_idle_timeout: Option<Duration>,
    /// On a graceful close, how long to wait after our last write before
    /// closing our side (unless the peer closes first). Erlang/OTP's
    /// megaco drops the messages it has read but not yet processed when
    /// the connection closes: without this pause it loses the
    /// SegmentReplies and TransactionResponseAck a client writes just
    /// before closing. Default 100 ms.
    pub tcp_close_delay: Duration,
    /// On a graceful close, how long to wait for the peer to close its
    /// side after ours, reading (and discarding) what it still sends, so
    /// that our last messages are not lost to a reset. Default 2 s.
    pub tcp_linger: Duration,
    /// How many messages may wait to be written to one TCP connection
    /// before we stop reading from it, until they drain: a burst of
    /// requests is answered at the pace its peer reads the answers.
    /// Default 256.
    pub tcp_write_queue: usize,
    /// Bytes that may wait to be written to one TCP connection (replies
    /// to requests read before reading stopped); a peer that lets more
    /// pile up is disconnected
    /// ([`CloseReason::SlowReader`](crate::endpoint::CloseReason)). One
    /// message larger than this still goes alone. Default 4 MiB.
    pub tcp_write_buffer: usize,
    /// Bytes that may wait to be written to all TCP connections together.
    /// When a message would take them past it, a connection that already
    /// has bytes waiting is disconnected
    /// ([`CloseReason::SlowReader`](crate::endpoint::CloseReason)) rather
    /// than queue more; one with nothing waiting (a peer that keeps up)
    /// still gets its message. This bounds what peers that read slowly
    /// can hold together, well below `max_peers` times
    /// [`TransportConfig::tcp_write_buffer`]. Default 64 MiB.
    pub tcp_write_total: usize,
    /// A TCP connection with bytes waiting to be written that its peer
    /// takes none of for this long is closed
    /// ([`CloseReason::SlowReader`](crate::endpoint::CloseReason)): the
    /// peer does not read. Default 10 s, as
    /// [`TransportConfig::tcp_frame_timeout`] for the other direction.
    pub tcp_write_timeout: Duration,
    /// Message-level errors (answers to undecodable input) and errors the
    /// stack sends by itself (503, 506, 459) to one peer. Beyond it they
    /// are dropped and counted. Default 5 a second, bursts of 10.
    pub error_rate_per_peer: RateLimit,
    /// The same, for all peers together. Default 100 a second, bursts of
    /// 200.
    pub error_rate_total: RateLimit,
    /// Drops, refusals, evictions and suppressed error replies are
    /// reported at most once per interval
    /// ([`EndpointEvent::Dropped`](crate::endpoint::EndpointEvent)).
    /// Default 10 s.
    pub report_interval: Duration,
    /// Bytes of cached replies across all peers (each peer is bounded by
    /// [`Config::reply_cache_bytes`] too). Beyond it, the peer caching the
    /// most drops its oldest replies, keeping the fact that their requests
    /// were executed (a duplicate of one is then dropped, not executed
    /// again); counted and reported
    /// ([`Stats::replies_shed`](crate::endpoint::Stats::replies_shed),
    /// [`EndpointEvent::Dropped`](crate::endpoint::EndpointEvent)).
    /// Default 64 MiB.
    pub reply_cache_total: usize,
    /// Executed requests remembered across all peers, with their reply
    /// or only the fact that they ran (each peer is bounded by
    /// [`Config::max_remembered_requests`] too). Beyond it, the peer
    /// remembering the most forgets its oldest: a duplicate of one would
    /// be executed again. Counted and reported
    /// ([`Stats::remembered_shed`](crate::endpoint::Stats::remembered_shed)).
    /// Default 262 144: 2,500 requests a second over the default reply
    /// horizon of 105 s.
    pub max_remembered_total: usize,
    /// Capacity of the queue to the user ([`crate::Incoming`]). When it
    /// is full, a new request from a UDP peer is answered with error 503
    /// ("Service Unavailable", within
    /// [`TransportConfig::error_rate_per_peer`] and
    /// [`TransportConfig::error_rate_total`]), and so is one from a UDP
    /// peer that has half the queue's capacity unanswered already while
    /// the queue is half full or more, so that one peer's flood leaves
    /// room for the others
    /// ([`Stats::requests_over_share`](crate::endpoint::Stats::requests_over_share));
    /// one from a TCP peer waits
    /// for room, and its connection is not read until every waiting
    /// request has reached the user, so that TCP pushes back on the peer
    /// ([`Stats::requests_held`](crate::endpoint::Stats::requests_held)),
    /// except while a request of ours awaits that peer's reply: the user
    /// may need the reply before it takes more, so the connection is read
    /// and the request answered 503.
    /// Other events are dropped. All are counted.
    /// Endpoint events (peers admitted, evicted, ...; `Inbound::Endpoint`)
    /// are dropped already once the queue is half full, so that a burst
    /// of them leaves room for requests. Default 1024.
    pub inbound_queue: usize,
    /// Bytes asked of the kernel for each UDP socket's receive and send
    /// buffers (`SO_RCVBUF`, `SO_SNDBUF`; Linux caps them at
    /// `net.core.rmem_max` and `wmem_max`, 4 MiB on many systems). A
    /// burst the receive buffer cannot hold is dropped by the kernel
    /// before the stack sees it; the default buffer (about 200 KiB on
    /// Linux) holds a few hundred datagrams. `None` leaves the system's
    /// default. Default 4 MiB.
    pub udp_buffer: Option<usize>,
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            max_peers: 4096,
            max_unproven_peers: 1024,
            unproven_timeout: Duration::from_secs(10),
            peer_idle_timeout: Duration::from_secs(300),
            registered_idle_timeout: Some(Duration::from_secs(3600)),
            tcp_frame_timeout: Duration::from_secs(10),
            tcp_idle_timeout: Some(Duration::from_secs(300)),
            tcp_close_delay: Duration::from_millis(100),
            tcp_linger: Duration::from_secs(2),
            tcp_write_queue: 256,
            tcp_write_buffer: 4 << 20,
            tcp_write_total: 64 << 20,
            tcp_write_timeout: Duration::from_secs(10),
            error_rate_per_peer: RateLimit {
                per_second: 5,
                burst: 10,
            },
            error_rate_total: RateLimit {
                per_second: 100,
                burst: 200,
            },
            report_interval: Duration::from_secs(10),
            reply_cache_total: 64 * 1024 * 1024,
            max_remembered_total: 262_144,
            inbound_queue: 1024,
            udp_buffer: Some(4 << 20),
        }
    }
}

impl Config {
    /// The defaults (Erlang/OTP megaco's where it has one, see each field)
    /// for `mid`, version 1, pretty text, an unreliable transport.
    pub fn new(mid: Mid) -> Self {
        Config {
            mid,
            version: 1,
            encoding: Encoding::pretty(),
            recognise_encoding: true,
            negotiate_version: true,
            reliable: false,
            request_timer: RequestTimer::default(),
            long_request_timer: Duration::from_secs(60),
            recv_pending_limit: None,
            pending_timer: Some(Duration::from_secs(30)),
            sent_pending_limit: None,
            reply_timer: None,
            reply_cache_bytes: 256 * 1024,
            max_remembered_requests: 16_384,
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

    /// How long an executed request is remembered: [`Config::reply_timer`],
    /// or by default the request timer's [`RequestTimer::lifetime`].
    pub fn reply_horizon(&self) -> Duration {
        self.reply_timer
            .unwrap_or_else(|| self.request_timer.lifetime())
    }
}
