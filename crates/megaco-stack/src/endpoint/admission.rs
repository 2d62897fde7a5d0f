//! Admission: unproven peers in a small table of their own, proven ones
//! in slots, evictions and refusals.

use std::sync::Arc;
use std::time::Instant;

use super::{
    describe, once_per, Bucket, CloseReason, Endpoint, EndpointEvent, Peer, PeerState, StreamState,
};
use crate::engine::{Connection, ConnectionStats};

impl Endpoint {
    /// Makes room for and adds an unproven peer. False if there is no
    /// room at all.
    pub(super) fn admit_unproven(
        &mut self,
        now: Instant,
        peer: Peer,
        stream: Option<Box<StreamState>>,
    ) -> bool {
        let max = self.limits().max_unproven_peers;
        if max == 0 {
            self.refused(now, peer, stream.is_some());
            return false;
        }
        while self.unproven.len() >= max {
            let Some((_, victim)) = self.unproven.pop_first() else {
                break;
            };
            self.stats.unproven -= 1;
            self.stats.unproven_evicted += 1;
            self.schedule_report(now);
            self.drop_peer(victim, CloseReason::Evicted);
        }
        let limit = self.limits().error_rate_per_peer;
        self.peers.insert(
            peer,
            PeerState {
                conn: None,
                encoding: None,
                first_seen: now,
                last_active: now,
                armed: None,
                errors: Bucket::full(limit, now),
                last_sent_error: false,
                stream,
                closing: None,
                seen: ConnectionStats::default(),
                registered: false,
                held: (0, 0),
                decode_error_shown: None,
            },
        );
        self.unproven.insert((now, peer));
        self.stats.unproven += 1;
        self.dirty.push(peer);
        true
    }

    /// Gives `peer` (unproven, or new when `by_user`) a slot and its
    /// transactions. False (and the peer dropped) if there is no room.
    pub(super) fn admit_proven(
        &mut self,
        now: Instant,
        peer: Peer,
        by_user: bool,
        stream: Option<Box<StreamState>>,
    ) -> bool {
        let held = self.stats.peers as usize;
        if !by_user && held >= self.limits().max_peers && !self.evict_idle_proven(now) {
            self.refused(now, peer, self.is_stream(peer));
            return false;
        }
        let limit = self.limits().error_rate_per_peer;
        let state = self.peers.entry(peer).or_insert_with(|| PeerState {
            conn: None,
            encoding: None,
            first_seen: now,
            last_active: now,
            armed: None,
            errors: Bucket::full(limit, now),
            last_sent_error: false,
            stream: None,
            closing: None,
            seen: ConnectionStats::default(),
            registered: false,
            held: (0, 0),
            decode_error_shown: None,
        });
        if state.conn.is_some() {
            return true;
        }
        if state.stream.is_none() {
            state.stream = stream;
        }
        if self.unproven.remove(&(state.first_seen, peer)) {
            self.stats.unproven -= 1;
        }
        let encoding = state
            .encoding
            .take()
            .unwrap_or_else(|| self.codecs.primary.clone());
        let mut config = self.config.clone();
        if state.stream.is_some() && !config.reliable {
            let mut c = (*config).clone();
            c.reliable = true;
            config = Arc::new(c);
        }
        state.conn = Some(Box::new(Connection::with_shared(config, encoding.clone())));
        state.last_active = now;
        self.stats.peers += 1;
        self.stats.peers_admitted += 1;
        self.dirty.push(peer);
        if !by_user {
            self.events.push_back(EndpointEvent::PeerAdmitted {
                peer,
                encoding: describe(&encoding),
            });
        }
        true
    }

    /// Frees the slot of the unregistered proven peer with no live
    /// transaction that was idle the longest; false if there is none.
    pub(super) fn evict_idle_proven(&mut self, now: Instant) -> bool {
        let victim = self
            .peers
            .iter()
            .filter_map(|(peer, s)| {
                let conn = s.conn.as_ref()?;
                (!conn.is_registered() && conn.is_idle()).then_some((s.last_active, *peer))
            })
            .min();
        let Some((_, victim)) = victim else {
            return false;
        };
        self.stats.peers_evicted += 1;
        self.schedule_report(now);
        self.events
            .push_back(EndpointEvent::PeerEvicted { peer: victim });
        self.drop_peer(victim, CloseReason::Evicted);
        true
    }

    pub(super) fn refused(&mut self, now: Instant, peer: Peer, stream: bool) {
        self.stats.peers_refused += 1;
        self.schedule_report(now);
        if let Some(state) = self.peers.get(&peer) {
            if state.conn.is_none() && self.unproven.remove(&(state.first_seen, peer)) {
                self.stats.unproven -= 1;
            }
            self.remove(peer);
        }
        if stream {
            self.stats.connections_closed += 1;
            self.closes.push_back((peer, CloseReason::Refused));
        }
        // One event per report interval: a refused peer has no state of
        // its own, and may send as fast as it likes.
        let interval = self.limits().report_interval;
        if once_per(&mut self.refusal_shown, now, interval) {
            self.events.push_back(EndpointEvent::PeerRefused { peer });
        }
    }

    /// Removes a peer's state and its timer; returns it.
    pub(super) fn remove(&mut self, peer: Peer) -> Option<PeerState> {
        self.account(peer, (0, 0));
        let state = self.peers.remove(&peer)?;
        if let Some(at) = state.armed {
            self.timers.remove(&(at, peer));
        }
        if state.conn.is_none() {
            if self.unproven.remove(&(state.first_seen, peer)) {
                self.stats.unproven -= 1;
            }
        } else {
            self.stats.peers -= 1;
            if state.registered {
                self.stats.registered -= 1;
            }
        }
        Some(state)
    }

    /// Forgets a peer, closing its stream if it has one.
    pub(super) fn drop_peer(&mut self, peer: Peer, reason: CloseReason) {
        if let Some(state) = self.remove(peer) {
            if state.stream.is_some() {
                self.stats.connections_closed += 1;
                self.closes.push_back((peer, reason.clone()));
                if state.conn.is_some() {
                    self.events
                        .push_back(EndpointEvent::Closed { peer, reason });
                }
            }
        }
    }

    /// Forgets `peer` at once, closing its stream (for a driver that finds
    /// the peer unfit, such as one that does not read what we write).
    pub fn abort(&mut self, now: Instant, peer: Peer, reason: CloseReason) {
        self.drop_peer(peer, reason);
        self.flush(now);
    }

    /// Closes the stream to `peer` once what is queued for it is written.
    pub(super) fn close_stream(&mut self, peer: Peer, reason: CloseReason) {
        self.drop_peer(peer, reason);
    }
}
