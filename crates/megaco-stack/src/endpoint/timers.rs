//! Timers: frame, unproven and idle expiry, graceful closes, reports of
//! what was dropped, and moving what the peers produced out.

use std::time::{Duration, Instant};

use super::{engine_after, once_per, CloseReason, Endpoint, EndpointEvent, Peer, PeerState};
use crate::config::TransportConfig;
use crate::engine::Event;

impl Endpoint {
    /// Processes what is due at `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        while let Some(&(at, peer)) = self.timers.first() {
            if at > now {
                break;
            }
            self.timers.pop_first();
            if let Some(state) = self.peers.get_mut(&peer) {
                state.armed = None;
            }
            self.peer_timeout(now, peer);
        }
        if self.next_report.is_some_and(|at| at <= now) {
            self.next_report = None;
            self.report(now);
        }
        self.flush(now);
    }

    pub(super) fn peer_timeout(&mut self, now: Instant, peer: Peer) {
        let limits = *self.limits();
        let Some(state) = self.peers.get_mut(&peer) else {
            return;
        };
        self.dirty.push(peer);
        if let Some(stream) = state.stream.as_ref().filter(|s| !s.held) {
            if stream
                .frame_started
                .is_some_and(|t| now >= engine_after(t, limits.tcp_frame_timeout))
            {
                return self.close_stream(peer, CloseReason::FrameTimeout);
            }
        }
        if state.closing.is_some_and(|t| now >= t)
            || (state.closing.is_some() && !close_waits(state))
        {
            let reason = if state.finished {
                CloseReason::PeerClosed
            } else {
                CloseReason::Requested
            };
            return self.close_stream(peer, reason);
        }
        let Some(conn) = state.conn.as_mut() else {
            if now >= engine_after(state.first_seen, limits.unproven_timeout) {
                self.stats.unproven_expired += 1;
                self.schedule_report(now);
                self.drop_peer(peer, CloseReason::Unproven);
            }
            return;
        };
        conn.handle_timeout(now);
        if let Some(at) = idle_deadline(state, &limits) {
            if now >= at {
                self.stats.peers_expired += 1;
                self.events.push_back(EndpointEvent::PeerExpired { peer });
                self.drop_peer(peer, CloseReason::Idle);
            }
        }
    }

    pub(super) fn schedule_report(&mut self, now: Instant) {
        if self.next_report.is_none() {
            self.next_report = Some(engine_after(now, Duration::from_millis(1)).max(now));
        }
    }

    /// Reports what was dropped since the last report, if anything, and
    /// schedules the next report no sooner than an interval from now.
    pub(super) fn report(&mut self, now: Instant) {
        let total = self.stats.report();
        let delta = total.since(&self.reported);
        if delta.is_empty() {
            return;
        }
        self.reported = total;
        self.events.push_back(EndpointEvent::Dropped(delta));
        // The next report waits a whole interval.
        self.next_report = Some(engine_after(now, self.limits().report_interval));
    }

    /// Moves what the dirty peers produced out, re-arms their timers,
    /// and keeps the caches of all peers within their budgets.
    pub(super) fn flush(&mut self, now: Instant) {
        loop {
            let mut dirty = std::mem::take(&mut self.dirty);
            if dirty.is_empty() {
                break;
            }
            dirty.sort_unstable();
            dirty.dedup();
            for peer in dirty {
                self.flush_peer(now, peer);
            }
            // May forget requests, and so re-arm timers: dirty again.
            self.enforce_budgets(now);
        }
    }

    pub(super) fn flush_peer(&mut self, now: Instant, peer: Peer) {
        let limits = *self.limits();
        let mut out = Vec::new();
        let mut events = Vec::new();
        let Some(state) = self.peers.get_mut(&peer) else {
            return;
        };
        if let Some(conn) = state.conn.as_mut() {
            let before = state.seen;
            while let Some(t) = conn.poll_transmit_tagged() {
                out.push(t);
            }
            while let Some(event) = conn.poll_event() {
                events.push(event);
            }
            let after = conn.stats();
            state.seen = after;
            self.stats.duplicates_answered +=
                after.duplicates_answered - before.duplicates_answered;
            self.stats.duplicates_dropped += after.duplicates_dropped - before.duplicates_dropped;
            self.stats.messages_viewed += after.messages_viewed - before.messages_viewed;
            if conn.is_registered() && !state.registered {
                state.registered = true;
                self.stats.registered += 1;
            }
            let held = (conn.cached_reply_bytes(), conn.executed_requests());
            self.account(peer, held);
        }
        let Some(state) = self.peers.get_mut(&peer) else {
            return;
        };
        let next = deadline(state, &limits);
        if next != state.armed {
            if let Some(old) = state.armed {
                self.timers.remove(&(old, peer));
            }
            if let Some(at) = next {
                self.timers.insert((at.max(now), peer));
            }
            state.armed = next.map(|at| at.max(now));
        }
        for (bytes, stack_error) in out {
            if stack_error && !self.take_error_token(now, peer) {
                continue;
            }
            self.send(peer, bytes);
        }
        for event in events {
            match &event {
                Event::MessageError { .. } => self.stats.message_errors += 1,
                Event::DuplicateDropped { .. } => self.schedule_report(now),
                // Garbage after a valid message: one event per report
                // interval, the rest counted (decode_errors) and reported.
                Event::DecodeError { .. } => {
                    let Some(state) = self.peers.get_mut(&peer) else {
                        continue;
                    };
                    if !once_per(&mut state.decode_error_shown, now, limits.report_interval) {
                        continue;
                    }
                }
                _ => {}
            }
            self.events
                .push_back(EndpointEvent::Transaction { peer, event });
        }
    }
}
/// The next deadline of a peer: its transactions', its idle or unproven
/// expiry, its frame timeout, its graceful close.
pub(super) fn deadline(state: &PeerState, limits: &TransportConfig) -> Option<Instant> {
    let mut next: Option<Instant> = None;
    let mut at = |t: Option<Instant>| {
        if let Some(t) = t {
            next = Some(next.map_or(t, |n| n.min(t)));
        }
    };
    // A graceful close waits for the SegmentReplies to our segments (and,
    // once the peer closed its side, for our replies to it), at most
    // until its deadline; once they are all in, it is due at once (the
    // first sight of the peer lies in the past).
    if let Some(t) = state.closing {
        at(Some(if close_waits(state) {
            t
        } else {
            state.first_seen
        }));
    }
    if let Some(stream) = state.stream.as_ref().filter(|s| !s.held) {
        at(stream
            .frame_started
            .map(|t| engine_after(t, limits.tcp_frame_timeout)));
    }
    match &state.conn {
        None => at(Some(engine_after(
            state.first_seen,
            limits.unproven_timeout,
        ))),
        Some(conn) => {
            at(conn.poll_timeout());
            at(idle_deadline(state, limits));
        }
    }
    next
}

/// Whether a graceful close still waits: for the SegmentReplies to our
/// segments, or, the peer having closed its side, for our replies to its
/// requests.
fn close_waits(state: &PeerState) -> bool {
    state.conn.as_ref().is_some_and(|c| {
        c.awaits_segment_replies() || (state.finished && c.unanswered_requests() > 0)
    })
}

/// When a proven peer expires: a UDP peer with no live transaction after
/// its idle timeout, a TCP connection without a message for its idle
/// timeout.
pub(super) fn idle_deadline(state: &PeerState, limits: &TransportConfig) -> Option<Instant> {
    let conn = state.conn.as_ref()?;
    let timeout = if conn.is_registered() {
        limits.registered_idle_timeout?
    } else if state.stream.is_some() {
        limits.tcp_idle_timeout?
    } else {
        limits.peer_idle_timeout
    };
    match &state.stream {
        // Not read for our user's sake: not idle.
        Some(stream) if stream.held => None,
        Some(stream) => Some(engine_after(stream.last_message, timeout)),
        None => conn
            .is_idle()
            .then(|| engine_after(state.last_active, timeout)),
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::time::Instant;

    use crate::endpoint::{CloseReason, Endpoint, EndpointEvent, Peer, TransportKind};
    use crate::engine::{Config, Event};
    use megaco::model::{Ip4Address, Mid};

    /// A half-closed TCP peer owed a reply nobody gives is closed after
    /// the request timer's lifetime; one owed nothing at once.
    #[test]
    fn a_half_closed_peer_is_kept_for_its_replies_at_most_a_request_lifetime() {
        let mid = Mid::Ip4(Ip4Address {
            address: [127, 0, 0, 1],
            port: Some(2944),
        });
        let mut ep = Endpoint::new(Config::new(mid));
        let tcp = ep.add_transport(TransportKind::Stream);
        let t0 = Instant::now();
        let (owed, quiet) = (
            Peer::new(tcp, SocketAddr::from(([127, 0, 0, 1], 1))),
            Peer::new(tcp, SocketAddr::from(([127, 0, 0, 1], 2))),
        );
        for peer in [owed, quiet] {
            assert!(ep.handle_connected(t0, peer, false));
        }
        let body = b"!/1 [127.0.0.9]:2944 T=1{C=-{N=t1{OE=1{al/of}}}}";
        let mut frame = vec![3, 0, 0, (body.len() + 4) as u8];
        frame.extend_from_slice(body);
        ep.handle_stream_data(t0, owed, &frame);
        let asked = std::iter::from_fn(|| ep.poll_event()).any(|e| {
            matches!(
                e,
                EndpointEvent::Transaction {
                    event: Event::RequestReceived { .. },
                    ..
                }
            )
        });
        assert!(asked);

        ep.handle_stream_finished(t0, quiet);
        assert_eq!(ep.poll_close(), Some((quiet, CloseReason::PeerClosed)));
        ep.handle_stream_finished(t0, owed);
        assert_eq!(ep.poll_close(), None);
        assert!(ep.conn(owed).is_some());

        let lifetime = ep.config().request_timer.lifetime();
        ep.handle_timeout(t0 + lifetime);
        assert_eq!(ep.poll_close(), Some((owed, CloseReason::PeerClosed)));
        let closed = std::iter::from_fn(|| ep.poll_event()).any(|e| {
            matches!(e, EndpointEvent::Closed { peer, reason: CloseReason::PeerClosed } if peer == owed)
        });
        assert!(closed);
    }
}
