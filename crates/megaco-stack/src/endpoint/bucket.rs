//! A token bucket driven by the caller's clock.

use std::time::Instant;

use crate::config::RateLimit;

/// Tokens, refilled at the limit's rate up to its burst.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bucket {
    /// Tokens held, in thousandths.
    milli: u64,
    at: Instant,
}

impl Bucket {
    /// A full bucket.
    pub(super) fn full(limit: RateLimit, now: Instant) -> Self {
        Bucket {
            milli: u64::from(limit.burst) * 1000,
            at: now,
        }
    }

    fn refill(&mut self, limit: RateLimit, now: Instant) {
        let elapsed = now.saturating_duration_since(self.at);
        let add = elapsed
            .as_millis()
            .saturating_mul(u128::from(limit.per_second));
        let cap = u64::from(limit.burst) * 1000;
        self.milli = u64::try_from(u128::from(self.milli).saturating_add(add))
            .unwrap_or(u64::MAX)
            .min(cap);
        self.at = now;
    }

    /// Whether a token is there (without taking it).
    pub(super) fn has(&mut self, limit: RateLimit, now: Instant) -> bool {
        self.refill(limit, now);
        self.milli >= 1000
    }

    /// Takes a token, which the caller made sure is there.
    pub(super) fn take(&mut self) {
        self.milli = self.milli.saturating_sub(1000);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn refills_at_the_rate_up_to_the_burst() {
        let limit = RateLimit {
            per_second: 2,
            burst: 3,
        };
        let t0 = Instant::now();
        let mut b = Bucket::full(limit, t0);
        for _ in 0..3 {
            assert!(b.has(limit, t0));
            b.take();
        }
        assert!(!b.has(limit, t0));
        assert!(!b.has(limit, t0 + Duration::from_millis(499)));
        assert!(b.has(limit, t0 + Duration::from_millis(500)));
        assert!(b.has(limit, t0 + Duration::from_secs(3600)));
        for _ in 0..3 {
            b.take();
        }
        assert!(!b.has(limit, t0 + Duration::from_secs(3600)));
    }
}
