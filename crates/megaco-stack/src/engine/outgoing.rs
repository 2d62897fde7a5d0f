//! Our requests: numbering, resends, pendings, replies (whole or in
//! segments), and the version negotiation of our registrations.

use std::collections::BTreeMap;
use std::time::Instant;

use megaco::model::*;

use super::util::{accepted_registration, after, merge_segments, missing_segments, offer_version};
use super::{
    Connection, Error, Event, FailReason, Key, OutRequest, OutState, ERR_MISSING_SEGMENTS,
    MAX_REPLY_SEGMENTS, MAX_SEGMENTED_REPLY_BYTES,
};

impl Connection {
    /// The id after `id`, wrapping from [`Config::max_trans_id`] (or
    /// [`Config::min_trans_id`], if set below it) back to the first.
    ///
    /// [`Config::max_trans_id`]: super::Config::max_trans_id
    /// [`Config::min_trans_id`]: super::Config::min_trans_id
    fn id_after(&self, id: u32) -> u32 {
        let (min, max) = (self.config.min_trans_id, self.config.max_trans_id);
        if id >= max.max(min) {
            min
        } else {
            id + 1
        }
    }

    /// The next id no request of ours still awaits a reply on: after a
    /// wrap, an id in flight is skipped rather than reused (its reply
    /// would answer the wrong request). `None` when every id of the range
    /// is in flight.
    fn free_id(&self) -> Option<u32> {
        let mut id = self.next_id;
        for _ in 0..=self.outgoing.len() {
            if !self.outgoing.contains_key(&id) {
                return Some(id);
            }
            id = self.id_after(id);
        }
        None
    }

    /// Sends a request with `actions`; returns its transaction id.
    ///
    /// The reply comes as [`Event::ReplyReceived`] with this id (or
    /// [`Event::RequestTimedOut`] / [`Event::RequestFailed`]). With
    /// [`Config::negotiate_version`](super::Config::negotiate_version), a
    /// ServiceChange on ROOT (a registration) that leaves its
    /// ServiceChangeVersion empty offers our version in it.
    pub fn send_request(
        &mut self,
        now: Instant,
        mut actions: Vec<ActionRequest>,
    ) -> Result<u32, Error> {
        if let Some(limit) = self.config.max_outstanding_requests {
            if self.outgoing.len() >= limit {
                return Err(Error::TooManyOutstanding(limit));
            }
        }
        let offered = if self.config.negotiate_version {
            offer_version(&mut actions, self.version)
        } else {
            None
        };
        let id = self
            .free_id()
            .ok_or(Error::TooManyOutstanding(self.outgoing.len()))?;
        let bytes = super::sendable(
            self.encode(
                self.version,
                MessageBody::Transactions(
                    vec![Transaction::Request(TransactionRequest {
                        transaction_id: id,
                        actions: actions.into(),
                    })]
                    .into(),
                ),
            )?,
        )?;
        self.next_id = self.id_after(id);
        let t = self.config.request_timer;
        self.push(bytes.clone(), false, false);
        self.outgoing.insert(
            id,
            OutRequest {
                bytes,
                state: OutState::Short {
                    deadline: after(now, t.initial),
                    interval: t.initial,
                    retries_left: t.max_retries,
                },
                offered,
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

    pub(super) fn request_timer_fired(&mut self, now: Instant, id: u32) {
        let t = self.config.request_timer;
        let reliable = self.config.reliable;
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
                let resend = (!reliable).then(|| req.bytes.clone());
                if let Some(bytes) = resend {
                    self.push(bytes, false, false);
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
                let error = ErrorDescriptor {
                    error_code: ERR_MISSING_SEGMENTS,
                    error_text: Some(text.into()),
                };
                let version = self.version;
                if let Ok(bytes) = self.encode(version, MessageBody::Error(error)) {
                    self.push(bytes, true, true);
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

    pub(super) fn on_pending(&mut self, now: Instant, id: u32) {
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

    pub(super) fn on_reply(&mut self, r: TransactionReply, version: u8) {
        let id = r.transaction_id;
        match self.outgoing.remove(&id) {
            Some(req) => {
                self.reschedule(Key::Out(id));
                self.deliver(id, req.offered, version, r.result);
            }
            None => self.events.push_back(Event::UnexpectedReply {
                transaction_id: id,
                result: r.result,
            }),
        }
    }

    /// Hands the whole reply to a request to the user, after taking in
    /// the version the peer accepted if the request was a registration:
    /// its ServiceChangeVersion or, without one, the lower of the version
    /// offered and that of the reply's message (a peer that does not
    /// negotiate, such as Erlang/OTP's by default, answers in the version
    /// it speaks).
    fn deliver(
        &mut self,
        id: u32,
        offered: Option<u8>,
        reply_version: u8,
        mut result: TransactionResult,
    ) {
        if let Some(offered) = offered {
            if let Some(parm) = accepted_registration(&mut result) {
                let version = parm
                    .service_change_version
                    .filter(|v| (1..=3).contains(v))
                    .unwrap_or(offered.min(reply_version.max(1)))
                    .min(self.config.version.max(1));
                self.negotiated(version);
            }
        }
        self.events.push_back(Event::ReplyReceived {
            transaction_id: id,
            result,
        });
    }

    /// The peer and we agreed on `version`: it is registered, and our
    /// messages to it use that version from now on.
    pub(super) fn negotiated(&mut self, version: u8) {
        self.version = version;
        self.registered = true;
        self.negotiated_v3 = version >= 3;
        self.events.push_back(Event::VersionNegotiated { version });
    }

    /// Takes in segment `sn` of a segmented reply: acknowledges it with a
    /// SegmentReply, and once every segment up to the one marked complete
    /// has come, reports the whole reply. Returns whether the reply is
    /// complete (then the caller acknowledges the transaction).
    ///
    /// A segment numbered above [`MAX_REPLY_SEGMENTS`], or one that
    /// brings the segments' bytes beyond [`MAX_SEGMENTED_REPLY_BYTES`],
    /// fails the request ([`FailReason::SegmentLimitExceeded`]). Each
    /// arrival costs a map insertion and the measure of the new segment,
    /// whatever the number of segments: the reply is complete when as
    /// many distinct segments as the last one's number have come, from 1
    /// to it.
    pub(super) fn on_segment(
        &mut self,
        now: Instant,
        r: TransactionReply,
        sn: u16,
        version: u8,
    ) -> bool {
        let id = r.transaction_id;
        let Some(req) = self.outgoing.get(&id) else {
            self.events.push_back(Event::UnexpectedReply {
                transaction_id: id,
                result: r.result,
            });
            return false;
        };
        let known = match &req.state {
            OutState::Segments { received, .. } => received.contains_key(&sn),
            _ => false,
        };
        let held = match &req.state {
            OutState::Segments { bytes, .. } => *bytes,
            _ => 0,
        };
        // A new segment is measured (in our encoding) before it is kept.
        let mut r = r;
        let size = if known {
            0
        } else {
            self.segment_size(&mut r, version)
        };
        if sn > MAX_REPLY_SEGMENTS || held.saturating_add(size) > MAX_SEGMENTED_REPLY_BYTES {
            self.outgoing.remove(&id);
            self.reschedule(Key::Out(id));
            self.events.push_back(Event::RequestFailed {
                transaction_id: id,
                reason: FailReason::SegmentLimitExceeded,
            });
            return false;
        }
        let Some(req) = self.outgoing.get_mut(&id) else {
            return false;
        };
        let deadline = after(now, self.config.segment_recv_timer);
        if !matches!(req.state, OutState::Segments { .. }) {
            req.state = OutState::Segments {
                deadline,
                received: BTreeMap::new(),
                bytes: 0,
                last: None,
            };
        }
        let OutState::Segments {
            deadline: armed,
            received,
            bytes,
            last,
        } = &mut req.state
        else {
            return false;
        };
        if r.segmentation_complete {
            *last = Some(sn);
        }
        if !known {
            received.insert(sn, r.result);
            *bytes += size;
            *armed = deadline;
        }
        // Distinct numbers, as many as the last one, none below 1 and
        // none above it: exactly 1 to the last.
        let complete = last.is_some_and(|l| {
            received.len() == usize::from(l)
                && received.first_key_value().is_some_and(|(n, _)| *n >= 1)
                && received.last_key_value().is_some_and(|(n, _)| *n == l)
        });
        let result = complete.then(|| merge_segments(std::mem::take(received).into_values()));
        let body = MessageBody::Transactions(
            vec![Transaction::SegmentReply(SegmentReply {
                transaction_id: id,
                segment_number: sn,
                segmentation_complete: r.segmentation_complete,
            })]
            .into(),
        );
        if let Ok(bytes) = self.encode(version, body) {
            self.push(bytes, false, false);
        }
        match result {
            Some(result) => {
                let offered = self.outgoing.remove(&id).and_then(|r| r.offered);
                self.reschedule(Key::Out(id));
                self.deliver(id, offered, version, result);
                true
            }
            None => {
                self.reschedule(Key::Out(id));
                false
            }
        }
    }

    /// The size of a reply segment: the bytes of a message holding it
    /// alone in our encoding (or, should it not encode, of its debug
    /// form, counted as it is written, nothing allocated).
    fn segment_size(&self, r: &mut TransactionReply, version: u8) -> usize {
        let empty = TransactionResult::ActionReplies(Default::default());
        let result = std::mem::replace(&mut r.result, empty);
        let mut msg = self.compose(
            version,
            MessageBody::Transactions(
                vec![Transaction::Reply(TransactionReply {
                    result,
                    ..r.clone()
                })]
                .into(),
            ),
        );
        let encoded = self.encoding.encode(&msg).map(|b| b.len());
        if let MessageBody::Transactions(t) = &mut msg.mess.body {
            if let Some(Transaction::Reply(back)) = t.pop() {
                r.result = back.result;
            }
        }
        encoded.unwrap_or_else(|_| debug_len(&r.result))
    }
}

/// The length of `value`'s debug form, counted as it is written (nothing
/// is allocated).
fn debug_len(value: &impl std::fmt::Debug) -> usize {
    struct Count(usize);
    impl std::fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 = self.0.saturating_add(s.len());
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = std::fmt::write(&mut count, format_args!("{value:?}"));
    count.0
}
