//! The per-datagram work that needs no owned message: duplicates of
//! known requests, pendings, acks and SegmentReplies, read from a
//! borrowed view of the bytes ([`megaco::view`]). Whatever the user is
//! handed (new requests, replies, errors) is decoded into the model.

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
    /// A known request is recognised by its transaction id alone, as the
    /// decoding path does: the view does not read its descriptors again
    /// (a resend carries the bytes of the first sending), so a repeat
    /// whose descriptors are malformed is answered like any other repeat
    /// rather than with error 400.
    pub fn handle_view(&mut self, now: Instant, bytes: &[u8]) -> bool {
        let encoding = self.encoding.clone();
        let Ok(view) = MessageView::parse(bytes, &encoding) else {
            return false;
        };
        if view.error_code().is_some() || !self.view_suffices(&view) {
            return false;
        }
        // The peer reads us again: a later undecodable message may be
        // answered (as in handle_message).
        self.last_sent_error = false;
        self.stats.messages_viewed += 1;
        for item in view.items() {
            let Ok(item) = item else {
                // Read once already without error.
                break;
            };
            match item {
                Item::Transaction(TransactionView::Request { id }) => {
                    self.on_duplicate(now, id);
                }
                Item::Transaction(TransactionView::Pending { id }) => self.on_pending(now, id),
                Item::Ack { first, last } => self.on_ack(&[TransactionAck {
                    first_ack: first,
                    last_ack: last,
                }]),
                Item::Transaction(TransactionView::SegmentReply {
                    id,
                    segment_number,
                    segmentation_complete,
                }) => self.on_segment_reply(&SegmentReply {
                    transaction_id: id,
                    segment_number,
                    segmentation_complete,
                }),
                _ => {}
            }
        }
        true
    }

    /// Whether every transaction of the message is one the view handles,
    /// and the whole message reads without error.
    fn view_suffices(&self, view: &MessageView<'_>) -> bool {
        let mut any = false;
        for t in view.transactions() {
            match t {
                Ok(TransactionView::Request { id }) if self.knows_request(id) => {}
                Ok(
                    TransactionView::Pending { .. }
                    | TransactionView::ResponseAck
                    | TransactionView::SegmentReply { .. },
                ) => {}
                _ => return false,
            }
            any = true;
        }
        any
    }
}
