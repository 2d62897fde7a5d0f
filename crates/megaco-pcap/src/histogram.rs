//! A fixed-size log-linear histogram of durations: percentiles over any
//! number of samples in constant memory, within 3 % of the true value.

/// Sub-buckets per power of two (5 bits: 32).
const SUB: u32 = 5;
const BUCKETS: usize = 32 * 60;

/// Durations in nanoseconds.
#[derive(Clone)]
pub struct Histogram {
    counts: Box<[u64; BUCKETS]>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: Box::new([0; BUCKETS]),
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

fn index(v: u64) -> usize {
    if v < 32 {
        return v as usize;
    }
    let e = 63 - v.leading_zeros();
    let m = (v >> (e - SUB)) - 32;
    (32 * (e - 4) as u64 + m) as usize
}

/// The middle of a bucket.
fn value(i: usize) -> u64 {
    if i < 32 {
        return i as u64;
    }
    let e = (i / 32) as u32 + 4;
    let m = (i % 32) as u64 + 32;
    let width = 1u64 << (e - SUB);
    (m << (e - SUB)) + width / 2
}

impl Histogram {
    /// Adds one sample.
    pub fn add(&mut self, nanos: u64) {
        self.counts[index(nanos).min(BUCKETS - 1)] += 1;
        self.n += 1;
        self.sum += u128::from(nanos);
        self.min = self.min.min(nanos);
        self.max = self.max.max(nanos);
    }

    /// Samples added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The mean, exact.
    pub fn mean(&self) -> u64 {
        if self.n == 0 {
            0
        } else {
            (self.sum / u128::from(self.n)) as u64
        }
    }

    /// The largest sample, exact.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The smallest sample, exact (0 when empty).
    pub fn min(&self) -> u64 {
        if self.n == 0 {
            0
        } else {
            self.min
        }
    }

    /// The value below which `p` percent of the samples fall (0 when
    /// empty); clamped to the exact minimum and maximum.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((p / 100.0) * self.n as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return value(i).clamp(self.min, self.max);
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotonic_and_tight() {
        let mut last = 0;
        for v in (0..100_000u64).chain([1 << 40, u64::MAX / 2]) {
            let i = index(v);
            assert!(i >= last, "{v}");
            last = i;
            let mid = value(i);
            assert!(
                mid.abs_diff(v) as f64 <= v as f64 * 0.032 + 1.0,
                "{v} -> {mid}"
            );
        }
    }

    #[test]
    fn percentiles_of_a_uniform_sample() {
        let mut h = Histogram::default();
        for v in 1..=10_000u64 {
            h.add(v * 1000);
        }
        for (p, want) in [
            (50.0, 5_000_000f64),
            (90.0, 9_000_000.0),
            (99.0, 9_900_000.0),
        ] {
            let got = h.percentile(p) as f64;
            assert!((got - want).abs() / want < 0.035, "p{p}: {got}");
        }
        assert_eq!(h.percentile(100.0), 10_000_000);
        assert_eq!(h.min(), 1000);
        assert_eq!(h.mean(), 5_000_500);
        assert_eq!(Histogram::default().percentile(50.0), 0);
    }
}
