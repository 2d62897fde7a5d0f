//! What an endpoint tells its user: events, counters, reports of what it
//! dropped, and why streams close.

use std::fmt;

use super::Peer;
use crate::engine::Event;

/// Why a stream was (or is to be) closed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CloseReason {
    /// The peer closed it.
    PeerClosed,
    /// Reading or writing failed (the error's text).
    Error(String),
    /// The bytes were not TPKT framing (the error's text).
    BadFraming(String),
    /// A frame did not complete within
    /// [`TransportConfig::tcp_frame_timeout`](crate::config::TransportConfig::tcp_frame_timeout).
    FrameTimeout,
    /// No decodable message within [`TransportConfig::unproven_timeout`](crate::config::TransportConfig::unproven_timeout).
    Unproven,
    /// No message for the idle timeout.
    Idle,
    /// Closed to make room for a newer peer.
    Evicted,
    /// Refused: the peer table was full.
    Refused,
    /// The peer did not read what we wrote: it took none of it for
    /// [`TransportConfig::tcp_write_timeout`](crate::config::TransportConfig::tcp_write_timeout),
    /// or let more than
    /// [`TransportConfig::tcp_write_buffer`](crate::config::TransportConfig::tcp_write_buffer)
    /// pile up.
    SlowReader,
    /// The user closed it.
    Requested,
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CloseReason::PeerClosed => f.write_str("closed by the peer"),
            CloseReason::Error(e) => write!(f, "{e}"),
            CloseReason::BadFraming(e) => write!(f, "bad framing: {e}"),
            CloseReason::FrameTimeout => f.write_str("incomplete message timed out"),
            CloseReason::Unproven => f.write_str("no valid message in time"),
            CloseReason::Idle => f.write_str("idle"),
            CloseReason::Evicted => f.write_str("evicted for a newer peer"),
            CloseReason::Refused => f.write_str("refused: peer table full"),
            CloseReason::SlowReader => f.write_str("peer does not read"),
            CloseReason::Requested => f.write_str("closed"),
        }
    }
}

impl std::error::Error for CloseReason {}

/// What was dropped, refused or suppressed during one report interval
/// (see [`EndpointEvent::Dropped`]); every field counts since the
/// previous report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DropReport {
    /// Error replies dropped by the rate limits.
    pub errors_rate_limited: u64,
    /// Undecodable messages not answered because our last message to the
    /// peer was an error (a loop stopped).
    pub storms_suppressed: u64,
    /// Undecodable messages.
    pub decode_errors: u64,
    /// Unproven peers evicted for newer ones.
    pub unproven_evicted: u64,
    /// Unproven peers forgotten after their timeout.
    pub unproven_expired: u64,
    /// Proven peers refused for lack of a slot.
    pub peers_refused: u64,
    /// Proven peers evicted for newer ones.
    pub peers_evicted: u64,
    /// Duplicates dropped because their reply had left the cache.
    pub duplicates_dropped: u64,
    /// Cached replies dropped for the budget of all peers
    /// ([`TransportConfig::reply_cache_total`](crate::config::TransportConfig::reply_cache_total)).
    pub replies_shed: u64,
    /// Executed requests forgotten for the budget of all peers
    /// ([`TransportConfig::max_remembered_total`](crate::config::TransportConfig::max_remembered_total)).
    pub remembered_shed: u64,
}

impl DropReport {
    pub(super) fn is_empty(&self) -> bool {
        *self == DropReport::default()
    }

    /// What was counted since `earlier`.
    pub(super) fn since(&self, earlier: &DropReport) -> DropReport {
        DropReport {
            errors_rate_limited: self.errors_rate_limited - earlier.errors_rate_limited,
            storms_suppressed: self.storms_suppressed - earlier.storms_suppressed,
            decode_errors: self.decode_errors - earlier.decode_errors,
            unproven_evicted: self.unproven_evicted - earlier.unproven_evicted,
            unproven_expired: self.unproven_expired - earlier.unproven_expired,
            peers_refused: self.peers_refused - earlier.peers_refused,
            peers_evicted: self.peers_evicted - earlier.peers_evicted,
            duplicates_dropped: self.duplicates_dropped - earlier.duplicates_dropped,
            replies_shed: self.replies_shed - earlier.replies_shed,
            remembered_shed: self.remembered_shed - earlier.remembered_shed,
        }
    }
}

/// Counters of an endpoint since it started, and its current peers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Proven peers kept now (with their transactions).
    pub peers: u64,
    /// Of those, registered.
    pub registered: u64,
    /// Unproven peers kept now.
    pub unproven: u64,
    /// Peers that became proven.
    pub peers_admitted: u64,
    /// New peers refused because every slot was held (messages from a
    /// new address dropped, connections closed).
    pub peers_refused: u64,
    /// Proven peers evicted for newer ones.
    pub peers_evicted: u64,
    /// Peers forgotten (connections closed) after their idle timeout.
    pub peers_expired: u64,
    /// Unproven peers evicted for newer ones.
    pub unproven_evicted: u64,
    /// Unproven peers forgotten after [`TransportConfig::unproven_timeout`](crate::config::TransportConfig::unproven_timeout).
    pub unproven_expired: u64,
    /// Undecodable messages.
    pub decode_errors: u64,
    /// Error replies dropped by the rate limits.
    pub errors_rate_limited: u64,
    /// Undecodable messages not answered because our last message to the
    /// peer was an error.
    pub storms_suppressed: u64,
    /// Message-level errors received.
    pub message_errors: u64,
    /// Duplicates answered from the reply cache.
    pub duplicates_answered: u64,
    /// Duplicates dropped because their reply had left the cache.
    pub duplicates_dropped: u64,
    /// Messages of proven peers handled from a borrowed view of their
    /// bytes, without building the owned model (duplicates, pendings,
    /// acks, SegmentReplies in BER and text).
    pub messages_viewed: u64,
    /// Streams closed (for any reason).
    pub connections_closed: u64,
    /// Requests answered with error 503 because the queue to the user
    /// was full, or their UDP peer held its share of it
    /// ([`Stats::requests_over_share`]; counted by the tokio driver).
    /// Over TCP they wait instead ([`Stats::requests_held`]).
    pub requests_refused: u64,
    /// Requests from TCP peers that found the queue to the user full and
    /// waited for room, their connection not read meanwhile (counted by
    /// the tokio driver).
    pub requests_held: u64,
    /// Of [`Stats::requests_refused`], those of UDP peers that held half
    /// the queue to the user already while it was half full or more:
    /// one peer's flood leaves the other half to everyone else (counted
    /// by the tokio driver).
    pub requests_over_share: u64,
    /// Other events dropped because the queue to the user was full
    /// (counted by the tokio driver).
    pub events_dropped: u64,
    /// Bytes of replies cached for duplicates now, all peers together.
    pub cached_reply_bytes: u64,
    /// Executed requests remembered now (with their reply or only the
    /// fact), all peers together.
    pub remembered_requests: u64,
    /// Cached replies dropped for the budget of all peers
    /// ([`TransportConfig::reply_cache_total`](crate::config::TransportConfig::reply_cache_total)):
    /// their requests are still remembered as executed.
    pub replies_shed: u64,
    /// Executed requests forgotten for the budget of all peers
    /// ([`TransportConfig::max_remembered_total`](crate::config::TransportConfig::max_remembered_total)).
    pub remembered_shed: u64,
}

impl Stats {
    pub(super) fn report(&self) -> DropReport {
        DropReport {
            errors_rate_limited: self.errors_rate_limited,
            storms_suppressed: self.storms_suppressed,
            decode_errors: self.decode_errors,
            unproven_evicted: self.unproven_evicted,
            unproven_expired: self.unproven_expired,
            peers_refused: self.peers_refused,
            peers_evicted: self.peers_evicted,
            duplicates_dropped: self.duplicates_dropped,
            replies_shed: self.replies_shed,
            remembered_shed: self.remembered_shed,
        }
    }
}

/// Something the user of an endpoint should know about.
// Transaction events are nearly all of them: boxing the one large
// variant would cost an allocation per event to spare a few bytes on
// the rare others.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EndpointEvent {
    /// An event of a peer's transactions (requests to answer, replies,
    /// message-level errors, negotiated versions, ...).
    Transaction {
        /// The peer.
        peer: Peer,
        /// What happened.
        event: Event,
    },
    /// A peer sent its first decodable message and got a slot.
    PeerAdmitted {
        /// The peer.
        peer: Peer,
        /// The encoding it speaks (and we answer in).
        encoding: String,
    },
    /// A proven peer lost its slot to a newer one (an unregistered peer
    /// idle the longest, or a quiet one; see
    /// [`TransportConfig::max_peers`](crate::config::TransportConfig::max_peers)).
    PeerEvicted {
        /// The peer.
        peer: Peer,
    },
    /// A proven peer found every slot held by peers that cannot be
    /// evicted (each with a live transaction, or not yet quiet); its message was dropped (its connection closed). Handed
    /// out for the first refusal of a report interval only; every one is
    /// counted ([`DropReport::peers_refused`]).
    PeerRefused {
        /// The peer.
        peer: Peer,
    },
    /// A TCP connection was opened (accepted, or connected by us); the
    /// peer is unproven until its first decodable message when it is an
    /// accepted one.
    Connected {
        /// The peer.
        peer: Peer,
    },
    /// A peer was forgotten after its idle timeout.
    PeerExpired {
        /// The peer.
        peer: Peer,
    },
    /// A stream closed (or is closing, once what was queued is written);
    /// its outstanding requests are gone.
    Closed {
        /// The peer.
        peer: Peer,
        /// Why.
        reason: CloseReason,
    },
    /// What was dropped since the last report, at most once per
    /// [`TransportConfig::report_interval`](crate::config::TransportConfig::report_interval) and only when something was.
    Dropped(DropReport),
}
