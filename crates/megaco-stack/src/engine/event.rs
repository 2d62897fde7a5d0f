//! What the engine tells its user: [`Event`]s, the [`FailReason`] of a
//! request that failed, and the [`Error`] of a refused command.

use megaco::model::*;
use megaco::EncodeError;

#[cfg(doc)]
use super::{Config, Connection, MAX_REPLY_SEGMENTS, MAX_SEGMENTED_REPLY_BYTES};
use crate::codec::DecodeError;

/// Why an outgoing request failed without a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailReason {
    /// The peer sent more pendings than [`Config::recv_pending_limit`].
    PendingLimitExceeded,
    /// The peer answered with a message-level error (for instance 406
    /// "Version not supported", or 400 when it cannot decode us) before
    /// anything else about this request.
    MessageError(ErrorDescriptor),
    /// The peer's segmented reply went beyond [`MAX_REPLY_SEGMENTS`]
    /// segments or [`MAX_SEGMENTED_REPLY_BYTES`] bytes: the segments
    /// received are dropped, later ones are [`Event::UnexpectedReply`].
    SegmentLimitExceeded,
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
        /// The protocol version of the message that carried it (the
        /// version of the reply).
        version: u8,
    },
    /// The reply to one of our requests.
    ReplyReceived {
        /// The request's transaction id.
        transaction_id: u32,
        /// The result.
        result: TransactionResult,
    },
    /// We told the peer, by ourselves, that we are still working on its
    /// request: a duplicate of it came, or [`Config::pending_timer`]
    /// expired (pendings the user sends with [`Connection::send_pending`]
    /// are not reported).
    PendingSent {
        /// The request's transaction id.
        transaction_id: u32,
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
    /// A request came with the id of one the user holds (has not
    /// answered yet) but other actions: a peer that restarted and numbers
    /// its requests from 1 again. It was answered with error 503, as a
    /// reply to it could not be told from the other's; the request held
    /// is untouched.
    TransactionIdInUse {
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
    /// the reply timer.
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
    /// A received message could not be decoded. An
    /// [`Endpoint`](crate::endpoint::Endpoint) hands out one per peer per
    /// report interval and counts the rest
    /// ([`DropReport::decode_errors`](crate::endpoint::DropReport::decode_errors)).
    DecodeError {
        /// Why.
        error: DecodeError,
    },
    /// A ServiceChange on ROOT between us and the peer was accepted: the
    /// peer is registered, and our messages to it use this version from
    /// now on.
    VersionNegotiated {
        /// The version.
        version: u8,
    },
    /// A duplicate of a request we executed came after its reply had
    /// left the cache ([`Config::reply_cache_bytes`]): it was neither
    /// executed again nor answered.
    DuplicateDropped {
        /// The transaction id.
        transaction_id: u32,
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
    /// [`Config::max_outstanding_requests`]
    /// of our requests await a reply already.
    #[error("{0} requests already await a reply")]
    TooManyOutstanding(usize),
    /// No connection to this peer (an endpoint's stream peers exist only
    /// while their connection is open).
    #[error("not connected")]
    NotConnected,
}
