//! Admission: unproven peers in a small table of their own, proven ones
//! in slots, evictions and refusals.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{
    describe, once_per, Bucket, CloseReason, Endpoint, EndpointEvent, Peer, PeerState, StreamState,
};
use crate::engine::{Connection, ConnectionStats};

/// How long a full peer table is not searched again for a slot to free
/// after a search found none: newcomers meanwhile are refused at once. A
/// slot that becomes free by eviction so waits at most this long.
pub(super) const EVICTION_RETRY: Duration = Duration::from_secs(1);

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
                finished: false,
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
        if !by_user && held >= self.limits().max_peers && !self.evict_idle_proven(now, peer) {
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
            finished: false,
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
        *self.by_address.entry(peer.addr.ip()).or_default() += 1;
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

    /// Frees a proven peer's slot for `newcomer`; false if no peer may
    /// give it up. In order of choice:
    ///
    /// 1. the unregistered peer with no live transaction idle the longest;
    /// 2. when one address holds more than half the table (and more than
    ///    one slot) and the newcomer comes from another, that address's
    ///    peer with no live transaction idle the longest, however recently
    ///    it talked;
    /// 3. the peer, registered ones included, *quiet* the longest: no
    ///    request awaits a reply either way, no segment waits for its
    ///    SegmentReply, and nothing came from or went to it for the
    ///    request timer's resend horizon
    ///    ([`RequestTimer::resend_horizon`](crate::config::RequestTimer::resend_horizon),
    ///    49 s by default), provided its address holds at least as many
    ///    slots as the newcomer's: a newcomer from an address that holds
    ///    many cannot push out a quiet gateway that holds its own alone.
    ///
    /// After the resend horizon a peer on our timers has no resend left
    /// to send, so the replies it has cached would answer nothing; one
    /// that was quiet gets a slot again with its next message. Without 3,
    /// peers that register from as many ports as there are slots would
    /// hold the table for the registered idle timeout once they stop;
    /// without 2, as long as they keep talking (a message each per resend
    /// horizon, 84 a second for 4,096 slots). From one address, as on
    /// loopback under `megaco load`, the rules are those of one address:
    /// 1 and 3.
    ///
    /// The search reads every slot; after one that finds nothing, the
    /// newcomers from the same address (from any, when the newcomer held
    /// no slot) of the next [`EVICTION_RETRY`] are refused without
    /// another, so that a flood of newcomers against a full table costs a
    /// search a second, not one each.
    pub(super) fn evict_idle_proven(&mut self, now: Instant, newcomer: Peer) -> bool {
        let ip = newcomer.addr.ip();
        if let Some((until, from, any)) = self.no_eviction_until {
            if now < until && (any || from == ip) {
                return false;
            }
        }
        self.eviction_searches += 1;
        let held = |a: &std::net::IpAddr| self.by_address.get(a).copied().unwrap_or(0);
        let mine = held(&ip);
        let max = self.limits().max_peers;
        let crowded = self
            .by_address
            .iter()
            .max_by_key(|(_, n)| **n)
            .filter(|(a, n)| **n >= 2 && **n as usize * 2 > max && **a != ip)
            .map(|(a, _)| *a);
        let quiet_for = self.config.request_timer.resend_horizon();
        let victim = self
            .peers
            .iter()
            .filter_map(|(peer, s)| {
                let conn = s.conn.as_ref()?;
                let registered = conn.is_registered();
                let live = conn.outstanding_requests() > 0
                    || conn.unanswered_requests() > 0
                    || conn.awaits_segment_replies();
                let quiet = !live
                    && now.saturating_duration_since(s.last_active) >= quiet_for
                    && held(&peer.addr.ip()) >= mine;
                let rule = if !registered && conn.is_idle() {
                    1
                } else if !live && crowded == Some(peer.addr.ip()) {
                    2
                } else if quiet {
                    3
                } else {
                    return None;
                };
                Some((rule, s.last_active, *peer))
            })
            .min();
        let Some((_, _, victim)) = victim else {
            self.no_eviction_until = Some((now + EVICTION_RETRY, ip, mine == 0));
            return false;
        };
        self.no_eviction_until = None;
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
            let ip = peer.addr.ip();
            if let Some(n) = self.by_address.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    self.by_address.remove(&ip);
                }
            }
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

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::time::{Duration, Instant};

    use crate::build;
    use crate::endpoint::{Endpoint, EndpointEvent, Peer, TransportId, TransportKind};
    use crate::engine::{Config, Event};
    use megaco::model::{Ip4Address, Mid};

    fn mgc(max_peers: usize) -> (Endpoint, TransportId) {
        let mid = Mid::Ip4(Ip4Address {
            address: [127, 0, 0, 1],
            port: Some(2944),
        });
        let mut config = Config::new(mid);
        config.transport.max_peers = max_peers;
        let mut ep = Endpoint::new(config);
        let udp = ep.add_transport(TransportKind::Datagram);
        (ep, udp)
    }

    fn from(udp: TransportId, port: u16) -> Peer {
        Peer::new(udp, SocketAddr::from(([127, 0, 0, 1], port)))
    }

    /// `peer` sends a request (a registration, or a Notify); the user
    /// answers every request it is handed. Whether it was handed over.
    fn ask(ep: &mut Endpoint, now: Instant, peer: Peer, id: u32, register: bool) -> bool {
        let port = peer.addr.port();
        let body = if register {
            "SC=ROOT{SV{MT=RS,RE=\"901\"}}"
        } else {
            "N=t1{OE=1{al/of}}"
        };
        let text = format!("!/1 [127.0.0.1]:{port} T={id}{{C=-{{{body}}}}}");
        ep.handle_datagram(now, peer, text.as_bytes());
        let mut handed = false;
        while let Some(event) = ep.poll_event() {
            if let EndpointEvent::Transaction {
                peer,
                event:
                    Event::RequestReceived {
                        transaction_id,
                        actions,
                        ..
                    },
            } = event
            {
                let replies = build::default_replies(&actions);
                ep.reply(now, peer, transaction_id, replies).unwrap();
                handed = true;
            }
        }
        while ep.poll_transmit().is_some() {}
        handed
    }

    /// A registered gateway alone on its address keeps its slot against
    /// newcomers from an address that holds most of the table, even when
    /// quiet for longer than the resend horizon while that address keeps
    /// its own peers talking; a newcomer from a third address takes the
    /// slot of the crowded address's peer idle the longest, not the
    /// gateway's.
    #[test]
    fn an_address_that_holds_most_of_the_table_cannot_push_out_a_quiet_gateway() {
        let (mut ep, udp) = mgc(4);
        let at = |ip: [u8; 4], port: u16| Peer::new(udp, SocketAddr::from((ip, port)));
        let (a, g, c) = ([10, 0, 0, 1], [10, 0, 0, 2], [10, 0, 0, 3]);
        let t0 = Instant::now();
        assert!(ask(&mut ep, t0, at(g, 2944), 1, true));
        for port in 1..=3 {
            assert!(ask(&mut ep, t0, at(a, port), 1, true));
        }
        // The crowded address keeps its peers talking; the gateway is
        // quiet past the horizon.
        let horizon = ep.config().request_timer.resend_horizon();
        let keep = t0 + horizon - Duration::from_secs(5);
        for port in 1..=3 {
            assert!(ask(
                &mut ep,
                keep + Duration::from_secs(u64::from(port)),
                at(a, port),
                2,
                false
            ));
        }
        let later = t0 + horizon + Duration::from_secs(1);
        assert!(
            !ask(&mut ep, later, at(a, 99), 1, true),
            "pushed out the gateway"
        );
        assert!(ep.is_registered(at(g, 2944)));
        // A newcomer from elsewhere: the crowded address gives way, its
        // peer idle the longest first.
        assert!(ask(&mut ep, later, at(c, 1000), 1, false));
        assert!(ep.is_registered(at(g, 2944)));
        assert!(ep.conn(at(a, 1)).is_none());
        assert!(ep.conn(at(a, 2)).is_some() && ep.conn(at(a, 3)).is_some());
    }

    /// Registrations from as many addresses as there are slots do not
    /// hold the table against newcomers once they have gone quiet for the
    /// resend horizon: a newcomer takes the slot of the registered peer
    /// quiet the longest. A registered peer that talked since keeps its
    /// slot, and so does one with a request in progress.
    #[test]
    fn quiet_registered_peers_give_their_slots_to_newcomers() {
        let (mut ep, udp) = mgc(4);
        let t0 = Instant::now();
        for port in 1..=4 {
            assert!(ask(&mut ep, t0, from(udp, port), 1, true));
            assert!(ep.is_registered(from(udp, port)));
        }
        assert_eq!(ep.stats().registered, 4);

        // A moment later the table is full of live registrations.
        let soon = t0 + Duration::from_secs(1);
        assert!(!ask(&mut ep, soon, from(udp, 100), 1, false));
        assert_eq!(ep.stats().peers_refused, 1);
        // A flood of newcomers meanwhile is refused without searching the
        // table for each: one search per EVICTION_RETRY.
        let searches = ep.eviction_searches;
        for port in 200..1200 {
            assert!(!ask(&mut ep, soon, from(udp, port), 1, false));
        }
        let retry = soon + super::EVICTION_RETRY;
        assert!(!ask(&mut ep, retry, from(udp, 100), 1, false));
        assert_eq!(ep.eviction_searches - searches, 1);
        assert_eq!(ep.stats().peers_refused, 1002);

        // Peer 1 talks again at 30 s; the others stay quiet.
        let talk = t0 + Duration::from_secs(30);
        assert!(ask(&mut ep, talk, from(udp, 1), 2, false));

        // Once the resend horizon has passed since their registration,
        // the three quiet ones give their slots up, oldest first; peer 1
        // (quiet for less than that) and the newcomers (just answered)
        // keep theirs.
        let horizon = ep.config().request_timer.resend_horizon();
        let later = t0 + horizon;
        for port in 101..=103 {
            assert!(ask(&mut ep, later, from(udp, port), 1, false), "{port}");
        }
        assert!(!ask(&mut ep, later, from(udp, 104), 1, false));
        let s = ep.stats();
        assert_eq!((s.peers, s.registered, s.peers_evicted), (4, 1, 3));
        assert!(ep.is_registered(from(udp, 1)));
        for port in 2..=4 {
            assert!(ep.conn(from(udp, port)).is_none(), "{port}");
        }
    }
}
