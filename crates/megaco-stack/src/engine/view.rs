//! The per-datagram work that needs no owned message: duplicates of
//! known requests, pendings, acks and SegmentReplies, read from a
//! borrowed view of the bytes ([`megaco::view`]). Whatever the user is
//! handed (new requests, replies, errors) is decoded into the model.

use std::hash::BuildHasher;
use std::time::Instant;

use megaco::model::{SegmentReply, TransactionAck};
use megaco::view::{Item, MessageView, TransactionView};

use super::Connection;

impl Connection {
    /// Handles a message from a borrowed view of `bytes`, when the
    /// encoding has one and the message holds only what needs no owned
    /// values: requests already known (answered with a pending or the
    /// cached reply), TransactionPendings, TransactionResponseAcks and
    /// SegmentReplies. Returns false, having done nothing, for any other
    /// message (new requests, replies, message-level errors, anything the
    /// view cannot read): decode it and call
    /// [`Connection::handle_message`] ([`Connection::handle_input`] does
    /// both).
    ///
    /// A known request is recognised by its transaction id and a hash of
    /// the whole message's bytes: a request whose last message had these
    /// very bytes (resends are byte-identical in practice). Only the
    /// message's outline is read ([`MessageView::outline`]: transactions
    /// and ack ranges, each transaction's actions skipped in one scan),
    /// not the actions again. A known id in other bytes is left to the
    /// decoding path, which compares the request's actions with those
    /// remembered (a peer that restarted may reuse the id for another
    /// request; see the [module docs](super)). When the view declines a
    /// message, the hash of its bytes is kept for
    /// [`Connection::handle_message`], called next with the message
    /// decoded (as [`Connection::handle_input`] does).
    ///
    /// Reading the view first costs a new request or a reply the view's
    /// header read (about a fifth more than decoding alone): after
    /// [`VIEW_PATIENCE`] messages in a row that the view could not handle,
    /// it is tried on one message in [`VIEW_PATIENCE`] only, until it
    /// handles one again. A flood of repeats is so read from the view
    /// after at most that many messages, and a stream of new requests
    /// pays an eighth of the cost.
    pub fn handle_view(&mut self, now: Instant, bytes: &[u8]) -> bool {
        // Noted for handle_message, should the view decline.
        let wire = self.prints.hash_one(bytes);
        self.input_wire = Some(wire);
        if self.view_luck.skip() {
            return false;
        }
        let handled = self.view_message(now, bytes, wire);
        self.view_luck.record(handled);
        if handled {
            self.input_wire = None;
        }
        handled
    }

    fn view_message(&mut self, now: Instant, bytes: &[u8], wire: u64) -> bool {
        let encoding = self.encoding.clone();
        let Ok(view) = MessageView::parse(bytes, &encoding) else {
            return false;
        };
        if view.error_code().is_some() {
            return false;
        }
        // One walk: what to do is noted first, and done only once the whole
        // message has read without error and holds nothing else.
        let mut todo = [Todo::Nothing; MAX_VIEWED];
        let mut n = 0;
        for item in view.outline() {
            let next = match item {
                Ok(Item::Transaction(TransactionView::Request { id }))
                    if self.knows_resend(id, wire) =>
                {
                    Todo::Repeat(id)
                }
                Ok(Item::Transaction(TransactionView::Pending { id })) => Todo::Pending(id),
                Ok(Item::Transaction(TransactionView::ResponseAck)) => continue,
                Ok(Item::Ack { first, last }) => Todo::Ack { first, last },
                Ok(Item::Transaction(TransactionView::SegmentReply {
                    id,
                    segment_number,
                    segmentation_complete,
                })) => Todo::SegmentReply {
                    id,
                    number: segment_number,
                    complete: segmentation_complete,
                },
                // New requests, replies, and anything unread.
                _ => return false,
            };
            let Some(slot) = todo.get_mut(n) else {
                return false;
            };
            *slot = next;
            n += 1;
        }
        if n == 0 {
            return false;
        }
        // The peer reads us again: a later undecodable message may be
        // answered (as in handle_message).
        self.last_sent_error = false;
        self.stats.messages_viewed += 1;
        for t in &todo[..n] {
            match t {
                Todo::Nothing => {}
                Todo::Repeat(id) => {
                    self.on_duplicate(now, *id);
                }
                Todo::Pending(id) => self.on_pending(now, *id),
                Todo::Ack { first, last } => self.on_ack(&[TransactionAck {
                    first_ack: *first,
                    last_ack: *last,
                }]),
                Todo::SegmentReply {
                    id,
                    number,
                    complete,
                } => self.on_segment_reply(&SegmentReply {
                    transaction_id: *id,
                    segment_number: *number,
                    segmentation_complete: *complete,
                }),
            }
        }
        true
    }
}

/// At most this many transactions and ack ranges in a message handled
/// from its view (more are decoded: rare, and nothing is allocated).
const MAX_VIEWED: usize = 16;

/// What a viewed message asks of the connection, in its order.
#[derive(Clone, Copy)]
enum Todo {
    Nothing,
    /// A request we know, again.
    Repeat(u32),
    Pending(u32),
    Ack {
        first: u32,
        last: Option<u32>,
    },
    SegmentReply {
        id: u32,
        number: u16,
        complete: bool,
    },
}

/// After this many messages in a row that the view could not handle, it
/// is tried on one message in this many.
pub const VIEW_PATIENCE: u8 = 8;

/// How the view has fared with one peer lately.
#[derive(Debug, Default)]
pub(super) struct Luck {
    /// Messages in a row the view could not handle.
    misses: u8,
    /// Messages left to decode without trying the view.
    skipping: u8,
}

impl Luck {
    /// Whether to decode this message without trying the view.
    fn skip(&mut self) -> bool {
        if self.skipping == 0 {
            return false;
        }
        self.skipping -= 1;
        true
    }

    fn record(&mut self, handled: bool) {
        if handled {
            self.misses = 0;
        } else {
            self.misses = self.misses.saturating_add(1);
            if self.misses >= VIEW_PATIENCE {
                self.skipping = VIEW_PATIENCE - 1;
            }
        }
    }
}
