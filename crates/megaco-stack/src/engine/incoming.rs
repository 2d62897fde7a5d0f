//! Requests from the peer: duplicates, pendings, our replies (whole or in
//! segments), the reply cache and its bounds, acks, and the version
//! negotiation of the peer's registrations.

use std::hash::BuildHasher;
use std::time::Instant;

use megaco::model::*;
use megaco::EncodeError;

use super::util::{accepted_registration, after, offered_version};
use super::{
    Connection, Error, Event, InState, Key, Print, ERR_PENDING_LIMIT, ERR_SERVICE_UNAVAILABLE,
};

fn error_reply(id: u32, code: u16, text: &str) -> MessageBody {
    MessageBody::Transactions(
        vec![Transaction::Reply(TransactionReply {
            transaction_id: id,
            imm_ack_required: false,
            result: TransactionResult::Error(ErrorDescriptor {
                error_code: code,
                error_text: Some(text.into()),
            }),
            segment_number: None,
            segmentation_complete: false,
        })]
        .into(),
    )
}

impl Connection {
    /// A request from the peer (decoded): new, a retransmission of one
    /// we know (same id, same actions), or a new one reusing the id of
    /// one we know (other actions). `wire` is the hash of the bytes of
    /// its message, when known.
    pub(super) fn on_request(
        &mut self,
        now: Instant,
        r: TransactionRequest,
        mid: &Mid,
        version: u8,
        wire: Option<u64>,
    ) {
        let id = r.transaction_id;
        let content = self.prints.hash_one(&r.actions);
        match self.incoming.get_mut(&id) {
            Some(state) if state.print().content == content => {
                // A retransmission: from now on read from the view when
                // it comes in these bytes again.
                if wire.is_some() {
                    state.print_mut().wire = wire;
                }
                self.on_duplicate(now, id);
                return;
            }
            // The user holds the request that had this id: a reply could
            // not be told from the other's.
            Some(InState::Processing { .. }) => {
                self.stats.ids_reused += 1;
                self.send_unavailable(id, version);
                self.events
                    .push_back(Event::TransactionIdInUse { transaction_id: id });
                return;
            }
            Some(InState::Replied { .. }) => {
                self.stats.ids_reused += 1;
                self.forget(id);
            }
            None => {}
        }
        if self
            .config
            .max_unanswered_requests
            .is_some_and(|limit| self.unanswered >= limit)
        {
            self.send_unavailable(id, version);
            self.events
                .push_back(Event::RequestRefused { transaction_id: id });
            return;
        }
        self.unanswered += 1;
        let offered = if self.config.negotiate_version {
            offered_version(&r.actions, version)
        } else {
            None
        };
        self.incoming.insert(
            id,
            InState::Processing {
                pending_deadline: self.config.pending_timer.map(|d| after(now, d)),
                pendings_sent: 0,
                version,
                offered,
                print: Print { content, wire },
            },
        );
        self.reschedule(Key::In(id));
        self.events.push_back(Event::RequestReceived {
            transaction_id: id,
            actions: r.actions.into_vec(),
            mid: mid.clone(),
            version,
        });
    }

    /// Answers a request with error 503, without taking it.
    fn send_unavailable(&mut self, id: u32, version: u8) {
        if let Ok(bytes) = self.encode(
            version,
            error_reply(id, ERR_SERVICE_UNAVAILABLE, "Service Unavailable"),
        ) {
            self.push(bytes, true, false);
        }
    }

    /// A request we have seen again: a pending while the user works on
    /// it (unless [`Config::pending_timer`](super::Config::pending_timer)
    /// is off), the cached reply after (or, once the reply has left the
    /// cache, nothing). False if the request is not known.
    pub(super) fn on_duplicate(&mut self, now: Instant, id: u32) -> bool {
        match self.incoming.get(&id) {
            None => return false,
            Some(InState::Processing { .. }) => {
                if self.config.pending_timer.is_some() {
                    self.auto_pending(now, id);
                }
            }
            Some(InState::Replied { messages, .. }) if messages.is_empty() => {
                self.stats.duplicates_dropped += 1;
                self.events
                    .push_back(Event::DuplicateDropped { transaction_id: id });
            }
            Some(InState::Replied { messages, .. }) => {
                let messages = messages.clone();
                self.stats.duplicates_answered += 1;
                for bytes in messages {
                    self.push(bytes, false, false);
                }
            }
        }
        true
    }

    /// Whether a request with this id is known (awaiting our reply, or
    /// replied and remembered) and last came in a message of these bytes
    /// (their hash): a resend that needs no decoding to be recognised.
    pub(super) fn knows_resend(&self, id: u32, wire: u64) -> bool {
        self.incoming
            .get(&id)
            .is_some_and(|state| state.print().wire == Some(wire))
    }

    /// The messages of our reply to `id` in `version`: one, or (v3,
    /// longer than [`Config::max_pdu_size`](super::Config::max_pdu_size))
    /// its segments. Binary encodings are segmented only for a peer that
    /// negotiated v3. A message longer than the transports carry
    /// ([`MAX_WIRE_MESSAGE`](super::MAX_WIRE_MESSAGE)) is an error.
    fn reply_messages(
        &self,
        id: u32,
        version: u8,
        ack: bool,
        result: TransactionResult,
    ) -> Result<Vec<Vec<u8>>, EncodeError> {
        self.reply_messages_of_any_size(id, version, ack, result)?
            .into_iter()
            .map(super::sendable)
            .collect()
    }

    /// [`reply_messages`](Self::reply_messages), however long.
    fn reply_messages_of_any_size(
        &self,
        id: u32,
        version: u8,
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
        let msg = self.compose(version, reply(result, None, false));
        let whole = self.encoding.encode(&msg)?;
        let reads_segments = self.encoding.is_text() || self.negotiated_v3;
        let max = match self.config.max_pdu_size {
            Some(max) if version >= 3 && reads_segments && whole.len() > max => max,
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
                TransactionResult::ActionReplies(run.iter().cloned().collect()),
                Some(number),
                last,
            );
            self.encode(version, body)
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

    /// Replies to the received request `transaction_id`, in the version of
    /// the request.
    ///
    /// When the request was a registration (a ServiceChange on ROOT) and
    /// the reply accepts it, the version is negotiated
    /// ([`Config::negotiate_version`](super::Config::negotiate_version)):
    /// the reply's ServiceChangeVersion, when the user left it empty, is
    /// set to the lower of the version the peer offered and ours, and our
    /// messages to the peer use it from then on
    /// ([`Event::VersionNegotiated`]).
    ///
    /// A reply that cannot be encoded ([`Error::Encode`]) is not lost
    /// silently: the peer is answered with error 500 ("Reply could not be
    /// encoded") in its place, so that the request is not left processing
    /// (with pendings) forever, and no version is negotiated.
    pub fn reply(
        &mut self,
        now: Instant,
        transaction_id: u32,
        mut result: TransactionResult,
    ) -> Result<(), Error> {
        let (version, offered) = match self.incoming.get(&transaction_id) {
            Some(InState::Processing {
                version, offered, ..
            }) => (*version, *offered),
            _ => return Err(Error::UnknownTransaction(transaction_id)),
        };
        let mut agreed = None;
        if let Some(offered) = offered {
            if let Some(parm) = accepted_registration(&mut result) {
                let ours = self.config.version.max(1);
                let v = *parm
                    .service_change_version
                    .get_or_insert(offered.clamp(1, ours));
                agreed = Some(v.clamp(1, ours));
            }
        }
        let before = (self.version, self.registered, self.negotiated_v3);
        if let Some(v) = agreed {
            // Before encoding: the reply may be segmented for a v3 peer.
            self.negotiated(v);
        }
        let ack_required = self.config.imm_ack_required;
        let (messages, unwritable) =
            match self.reply_messages(transaction_id, version, ack_required, result) {
                Ok(m) => (m, None),
                Err(e) => {
                    // The registration this reply accepted does not go out.
                    if agreed.is_some() {
                        (self.version, self.registered, self.negotiated_v3) = before;
                        self.events.pop_back();
                    }
                    // The peer still gets an answer, as for a request dropped
                    // unanswered; the caller learns why its own did not go.
                    let fallback = TransactionResult::Error(ErrorDescriptor {
                        error_code: 500,
                        error_text: Some("Reply could not be encoded".into()),
                    });
                    let m = self
                        .reply_messages(transaction_id, version, ack_required, fallback)
                        .map_err(|_| Error::Encode(e.clone()))?;
                    (m, Some(e))
                }
            };
        for bytes in &messages {
            self.push(bytes.clone(), false, false);
        }
        if let Ok(n @ 2..) = u16::try_from(messages.len()) {
            self.unacked_segments.insert(transaction_id, n);
        }
        self.unanswered -= 1;
        self.remember(now, transaction_id, messages, ack_required);
        match unwritable {
            None => Ok(()),
            Some(e) => Err(Error::Encode(e)),
        }
    }

    /// Caches the reply to `id` until the reply horizon, within the
    /// cache's bounds.
    fn remember(&mut self, now: Instant, id: u32, messages: Vec<Vec<u8>>, ack_required: bool) {
        let expires = after(now, self.config.reply_horizon());
        let print = self
            .incoming
            .get(&id)
            .map_or(Print::default(), |state| *state.print());
        self.cached_bytes += messages.iter().map(Vec::len).sum::<usize>();
        self.remembered += 1;
        self.replied_ids.insert(id);
        self.incoming.insert(
            id,
            InState::Replied {
                messages,
                expires,
                ack_required,
                print,
            },
        );
        // Entries of requests forgotten since (acknowledged, expired)
        // leave the line from its front, so that it stays within the
        // requests of one reply horizon.
        while let Some(&(old, e)) = self.replied.front() {
            if self.is_remembered(old, e) {
                break;
            }
            self.replied.pop_front();
        }
        self.replied.push_back((id, expires));
        // In expiry order even if `now` went back (it should not).
        let at = self
            .expiries
            .iter()
            .rposition(|(e, _)| *e <= expires)
            .map_or(0, |i| i + 1);
        self.expiries.insert(at, (expires, id));
        // Stale entries behind a live front wait for it; should they come
        // to outnumber the live ones, they are swept out (amortised: the
        // next sweep is at least as many pushes away as live entries).
        if self.expiries.len() > 2 * self.remembered + 64 {
            let incoming = &self.incoming;
            self.expiries.retain(|(at, id)| {
                matches!(incoming.get(id), Some(InState::Replied { expires, .. }) if expires == at)
            });
        }
        self.reschedule(Key::In(id));
        self.tidy_expiries();
        self.trim_cache();
    }

    /// Drops stale entries (of requests forgotten or replied again since)
    /// from the front of `expiries`, so that its front is a real deadline.
    fn tidy_expiries(&mut self) {
        while let Some(&(at, id)) = self.expiries.front() {
            if self.is_remembered(id, at) {
                break;
            }
            self.expiries.pop_front();
        }
    }

    /// Whether `id` is remembered as replied with this expiry (an entry
    /// of the eviction line that is not stale).
    pub(super) fn is_remembered(&self, id: u32, expires: Instant) -> bool {
        matches!(self.incoming.get(&id), Some(InState::Replied { expires: e, .. }) if *e == expires)
    }

    /// Drops the oldest replies beyond the byte bound (keeping the fact
    /// that they were executed), and forgets the oldest executed requests
    /// beyond the count bound.
    fn trim_cache(&mut self) {
        let over = self
            .remembered
            .saturating_sub(self.config.max_remembered_requests);
        if over > 0 {
            let forgotten = self.forget_oldest(over);
            self.stats.remembered_evicted += forgotten as u64;
        }
        let excess = self
            .cached_bytes
            .saturating_sub(self.config.reply_cache_bytes);
        if excess > 0 {
            self.shed_replies(excess);
        }
    }

    /// Drops the oldest cached replies until at least `bytes` are freed
    /// (or none is left), keeping the fact that their requests were
    /// executed: a duplicate of one is then dropped
    /// ([`Event::DuplicateDropped`]), not executed again. Returns the
    /// bytes freed and the replies dropped. An endpoint calls it when the
    /// replies of all its peers exceed their budget
    /// ([`TransportConfig::reply_cache_total`](crate::config::TransportConfig::reply_cache_total)).
    pub fn shed_replies(&mut self, bytes: usize) -> (usize, usize) {
        let (mut freed, mut dropped) = (0, 0);
        // Each entry is looked at once: markers go back in line.
        for _ in 0..self.replied.len() {
            if freed >= bytes {
                break;
            }
            let Some((id, expires)) = self.replied.pop_front() else {
                break;
            };
            let Some(InState::Replied {
                messages,
                expires: e,
                ..
            }) = self.incoming.get_mut(&id)
            else {
                continue;
            };
            if *e != expires {
                continue;
            }
            let len: usize = messages.iter().map(Vec::len).sum();
            if !messages.is_empty() {
                *messages = Vec::new();
                self.cached_bytes -= len;
                freed += len;
                dropped += 1;
            }
            // Still remembered, now as executed only: back in line.
            self.replied.push_back((id, expires));
        }
        (freed, dropped)
    }

    /// Forgets the `n` oldest executed requests, their replies and the
    /// fact that they ran (a duplicate of one would be executed again);
    /// returns how many were forgotten. An endpoint calls it when the
    /// requests remembered for all its peers exceed their budget
    /// ([`TransportConfig::max_remembered_total`](crate::config::TransportConfig::max_remembered_total)).
    pub fn forget_oldest(&mut self, n: usize) -> usize {
        let mut forgotten = 0;
        while forgotten < n {
            let Some((id, expires)) = self.replied.pop_front() else {
                break;
            };
            if self.is_remembered(id, expires) {
                self.forget(id);
                forgotten += 1;
            }
        }
        forgotten
    }

    /// Forgets a remembered (replied) request.
    fn forget(&mut self, id: u32) {
        self.unacked_segments.remove(&id);
        if let Some(InState::Replied { messages, .. }) = self.incoming.remove(&id) {
            self.cached_bytes -= messages.iter().map(Vec::len).sum::<usize>();
            self.remembered -= 1;
            self.replied_ids.remove(&id);
        }
        self.reschedule(Key::In(id));
        self.tidy_expiries();
    }

    /// Tells the peer we are still working on `transaction_id` (a
    /// TransactionPending), counting against
    /// [`Config::sent_pending_limit`](super::Config::sent_pending_limit).
    pub fn send_pending(&mut self, now: Instant, transaction_id: u32) -> Result<(), Error> {
        match self.incoming.get(&transaction_id) {
            Some(InState::Processing { .. }) => {
                let _ = self.pending(now, transaction_id);
                Ok(())
            }
            _ => Err(Error::UnknownTransaction(transaction_id)),
        }
    }

    /// A pending the engine sends by itself (a duplicate, the pending
    /// timer), reported to the user.
    fn auto_pending(&mut self, now: Instant, id: u32) {
        if self.pending(now, id) {
            self.events
                .push_back(Event::PendingSent { transaction_id: id });
        }
    }

    /// Sends a pending for a request in `Processing`, or aborts it past the
    /// limit; whether a pending went out.
    pub(super) fn pending(&mut self, now: Instant, id: u32) -> bool {
        let Some(InState::Processing {
            pending_deadline,
            pendings_sent,
            version,
            ..
        }) = self.incoming.get_mut(&id)
        else {
            return false;
        };
        *pendings_sent += 1;
        let version = *version;
        if self
            .config
            .sent_pending_limit
            .is_some_and(|limit| *pendings_sent > limit)
        {
            self.abort(now, id, version);
            return false;
        }
        *pending_deadline = self.config.pending_timer.map(|d| after(now, d));
        self.reschedule(Key::In(id));
        let body = MessageBody::Transactions(
            vec![Transaction::Pending(TransactionPending {
                transaction_id: id,
            })]
            .into(),
        );
        match self.encode(version, body) {
            Ok(bytes) => {
                self.push(bytes, false, false);
                true
            }
            Err(_) => false,
        }
    }

    fn abort(&mut self, now: Instant, id: u32, version: u8) {
        let body = error_reply(id, ERR_PENDING_LIMIT, "Pending limit exceeded");
        let messages: Vec<Vec<u8>> = self.encode(version, body).into_iter().collect();
        for bytes in &messages {
            self.push(bytes.clone(), true, false);
        }
        self.unanswered -= 1;
        self.remember(now, id, messages, false);
        self.events
            .push_back(Event::RequestAborted { transaction_id: id });
    }

    pub(super) fn incoming_timer_fired(&mut self, now: Instant, id: u32) {
        match self.incoming.get(&id) {
            Some(InState::Processing { .. }) => self.auto_pending(now, id),
            Some(InState::Replied { ack_required, .. }) => {
                let ack_required = *ack_required;
                self.forget(id);
                if ack_required {
                    self.events
                        .push_back(Event::AckTimedOut { transaction_id: id });
                }
            }
            None => {}
        }
    }

    /// Forgets the replied requests a TransactionResponseAck names.
    ///
    /// Each range is one lookup in the ordered index of replied ids
    /// (`replied_ids`), which yields only the entries inside it, and an
    /// entry leaves the index as soon as a range yields it: a message
    /// costs its ranges (a logarithm each) and the entries it
    /// acknowledges, however wide or overlapping its ranges and however
    /// many requests are remembered.
    pub(super) fn on_ack(&mut self, ranges: &[TransactionAck]) {
        let mut acked: Vec<u32> = Vec::new();
        for range in ranges {
            let first = range.first_ack;
            let last = range.last_ack.unwrap_or(first).max(first);
            let start = acked.len();
            acked.extend(self.replied_ids.range(first..=last));
            for id in &acked[start..] {
                self.replied_ids.remove(id);
            }
            self.ack_visits += (acked.len() - start) as u64;
        }
        acked.sort_unstable();
        for id in acked {
            self.forget(id);
            self.events
                .push_back(Event::AckReceived { transaction_id: id });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use megaco::model::*;

    use crate::build;
    use crate::engine::{Config, Connection, Event};

    /// A connection that executed and replied to `n` requests (ids 1 to
    /// `n`), all remembered.
    fn replied(n: u32) -> (Connection, Instant) {
        let mut c = Connection::new(Config::new(Mid::Device("mgc".into())));
        let t0 = Instant::now();
        for id in 1..=n {
            let request = format!("!/1 [10.0.0.9]:2944 T={id}{{C=-{{N=t1{{OE=1{{al/of}}}}}}}}");
            c.handle_input(t0, request.as_bytes());
            let reply = build::notify_reply(ContextId::NULL, vec![TerminationId::new("t1")]);
            c.reply(t0, id, TransactionResult::ActionReplies(vec![reply].into()))
                .unwrap();
        }
        while c.poll_transmit().is_some() {}
        while c.poll_event().is_some() {}
        (c, t0)
    }

    /// An acknowledgement costs its ranges and the entries it
    /// acknowledges, not its ranges times the requests remembered: many
    /// wide ranges that match nothing (a message of more ranges than the
    /// view reads, so decoded) look at no entry.
    #[test]
    fn acks_cost_their_ranges_and_the_entries_they_acknowledge() {
        let (mut c, t0) = replied(2_000);
        let ranges: Vec<String> = (0..4_400u32)
            .map(|i| format!("{}-{}", 100_000 + i, 200_000 + i))
            .collect();
        let ack = format!("!/1 [10.0.0.9]:2944 K{{{}}}", ranges.join(","));
        c.handle_input(t0, ack.as_bytes());
        assert_eq!(c.remembered_requests(), 2_000);
        assert!(c.ack_visits <= 4_400, "{} entries visited", c.ack_visits);

        // Overlapping ranges acknowledge each entry once, and look at it
        // once.
        let before = c.ack_visits;
        let ranges: Vec<String> = (0..40).map(|_| "1-100".to_string()).collect();
        let ack = format!("!/1 [10.0.0.9]:2944 K{{{},150}}", ranges.join(","));
        c.handle_input(t0, ack.as_bytes());
        let acked: Vec<u32> = std::iter::from_fn(|| c.poll_event())
            .map(|e| match e {
                Event::AckReceived { transaction_id } => transaction_id,
                e => panic!("{e:?}"),
            })
            .collect();
        let expected: Vec<u32> = (1..=100).chain([150]).collect();
        assert_eq!(acked, expected);
        assert_eq!(c.remembered_requests(), 2_000 - 101);
        assert_eq!(c.replied_ids.len(), c.remembered);
        let visits = c.ack_visits - before;
        assert!(visits <= 41 + 101, "{visits} entries visited");
    }

    /// Acknowledged and expired replies leave the eviction line: a long
    /// run of requests keeps it within the requests still remembered.
    #[test]
    fn the_eviction_line_does_not_grow_with_forgotten_replies() {
        let mid = Mid::Device("mgc".into());
        let mut config = Config::new(mid);
        config.reply_timer = Some(Duration::from_secs(1));
        let mut c = Connection::new(config);
        let t0 = Instant::now();
        for i in 0..10_000u32 {
            let now = t0 + Duration::from_millis(u64::from(i));
            let request = format!(
                "!/1 [10.0.0.9]:2944 T={}{{C=-{{N=t1{{OE=1{{al/of}}}}}}}}",
                i + 1
            );
            c.handle_timeout(now);
            c.handle_input(now, request.as_bytes());
            let event = c.poll_event();
            let Some(Event::RequestReceived { transaction_id, .. }) = event else {
                panic!("{event:?}")
            };
            let notify = build::notify_reply(ContextId::NULL, vec![TerminationId::new("t1")]);
            c.reply(
                now,
                transaction_id,
                TransactionResult::ActionReplies(vec![notify].into()),
            )
            .unwrap();
            // Every other reply is acknowledged at once.
            if i % 2 == 0 {
                let ack = format!("!/1 [10.0.0.9]:2944 K{{{}}}", i + 1);
                c.handle_input(now, ack.as_bytes());
            }
            while c.poll_transmit().is_some() {}
            while c.poll_event().is_some() {}
        }
        // One second of requests (1,000), half of them acknowledged.
        assert!(
            c.remembered_requests() <= 501,
            "{}",
            c.remembered_requests()
        );
        assert!(c.replied.len() <= 1_001, "{}", c.replied.len());
        assert!(c.expiries.len() <= 1_001, "{}", c.expiries.len());
        // The next deadline is the expiry of the oldest reply still
        // remembered: acknowledged ones leave no stale deadline in front.
        let oldest = c
            .incoming
            .values()
            .filter_map(|s| match s {
                super::InState::Replied { expires, .. } => Some(*expires),
                _ => None,
            })
            .min();
        assert!(oldest.is_some());
        assert_eq!(c.poll_timeout(), oldest);
        // At that time it is forgotten, and no sooner.
        let at = oldest.unwrap();
        let before = c.remembered_requests();
        c.handle_timeout(at - Duration::from_millis(1));
        assert_eq!(c.remembered_requests(), before);
        c.handle_timeout(at);
        assert_eq!(c.remembered_requests(), before - 1);
        assert!(c.poll_timeout() > Some(at));
    }
}
