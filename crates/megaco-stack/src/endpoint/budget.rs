//! The budget of all peers' reply caches: bytes of cached replies
//! (`TransportConfig::reply_cache_total`) and executed requests
//! remembered (`TransportConfig::max_remembered_total`), on top of each
//! peer's own bounds. When a budget is exceeded, the peer holding the most
//! gives up its oldest first.

use std::time::Instant;

use super::{Endpoint, Peer};

impl Endpoint {
    /// Records what `peer` holds now: bytes of cached replies and
    /// executed requests remembered.
    pub(super) fn account(&mut self, peer: Peer, held: (usize, usize)) {
        let Some(state) = self.peers.get_mut(&peer) else {
            return;
        };
        let (old_bytes, old_count) = std::mem::replace(&mut state.held, held);
        if (old_bytes, old_count) == held {
            return;
        }
        let (bytes, count) = held;
        self.by_cached.remove(&(old_bytes, peer));
        self.by_remembered.remove(&(old_count, peer));
        if bytes > 0 {
            self.by_cached.insert((bytes, peer));
        }
        if count > 0 {
            self.by_remembered.insert((count, peer));
        }
        self.stats.cached_reply_bytes =
            self.stats.cached_reply_bytes + bytes as u64 - old_bytes as u64;
        self.stats.remembered_requests =
            self.stats.remembered_requests + count as u64 - old_count as u64;
    }

    /// Brings the caches of all peers within their budgets: the peer
    /// caching the most bytes drops its oldest replies (keeping the fact
    /// that their requests ran), the peer remembering the most requests
    /// forgets its oldest. Counted, and reported.
    pub(super) fn enforce_budgets(&mut self, now: Instant) {
        let limits = *self.limits();
        while let Some(excess) = (self.stats.cached_reply_bytes as usize)
            .checked_sub(limits.reply_cache_total)
            .filter(|e| *e > 0)
        {
            let Some(&(_, peer)) = self.by_cached.last() else {
                break;
            };
            let Some(conn) = self.peers.get_mut(&peer).and_then(|p| p.conn.as_mut()) else {
                break;
            };
            let (freed, dropped) = conn.shed_replies(excess);
            let held = (conn.cached_reply_bytes(), conn.executed_requests());
            self.account(peer, held);
            self.stats.replies_shed += dropped as u64;
            self.schedule_report(now);
            if freed == 0 {
                break;
            }
        }
        while let Some(excess) = (self.stats.remembered_requests as usize)
            .checked_sub(limits.max_remembered_total)
            .filter(|e| *e > 0)
        {
            let Some(&(_, peer)) = self.by_remembered.last() else {
                break;
            };
            let Some(conn) = self.peers.get_mut(&peer).and_then(|p| p.conn.as_mut()) else {
                break;
            };
            let forgotten = conn.forget_oldest(excess);
            let held = (conn.cached_reply_bytes(), conn.executed_requests());
            self.account(peer, held);
            self.stats.remembered_shed += forgotten as u64;
            self.schedule_report(now);
            // Its timers changed.
            self.dirty.push(peer);
            if forgotten == 0 {
                break;
            }
        }
    }
}
