//! `mstone`: throughput under load (OTP: `megaco_codec_mstone1` and
//! `megaco_codec_mstone2`).
//!
//! - **mstone1**: `factor` long-lived runners per codec configuration, all
//!   started together; each loops over the corpus, one pass decoding every
//!   message, the next encoding every result, until the run time is up.
//!   The runners are multiplexed over `threads` OS threads, one pass at a
//!   time (as Erlang processes are over schedulers), so the same workload
//!   can be measured on 1, 2, … cores.
//! - **mstone2**: short-lived workers: `factor` drivers per configuration,
//!   multiplexed the same way, each spawning a fresh worker thread per
//!   pass that decodes and encodes the whole corpus once.
//!
//! The count is the number of operations done (one decode or one encode
//! of one message); the MStone is the sum over all configurations.
use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use megaco::MegacoMessage;
use serde::{Deserialize, Serialize};

use megaco::codec::Encoding;

use crate::codecs;
use crate::samples::Sample;

/// Result of one mstone run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MstoneResult {
    /// `mstone1` or `mstone2`.
    pub kind: String,
    /// OS threads used.
    pub threads: usize,
    /// Runners per configuration (mstone1).
    pub factor: usize,
    /// Seconds the run lasted.
    pub seconds: f64,
    /// `(codec, operations)` per configuration.
    pub per_codec: Vec<(String, u64)>,
    /// The MStone: all operations.
    pub total: u64,
}

/// The corpus encoded with one codec (messages it cannot encode left out).
pub struct Prepared {
    codec: Encoding,
    encoded: Vec<Vec<u8>>,
}

/// Encodes the corpus with each codec; a codec that can encode none of
/// the messages is left out.
pub fn prepare(samples: &[Sample], codecs: &[Encoding]) -> Vec<Prepared> {
    codecs
        .iter()
        .filter_map(|c| {
            let encoded: Vec<Vec<u8>> = samples
                .iter()
                .filter_map(|s| {
                    let m = codecs::model_for(c, &s.msg).ok()?;
                    c.encode(&m).ok()
                })
                .filter(|b| c.decode(b).is_ok())
                .collect();
            (!encoded.is_empty()).then_some(Prepared {
                codec: c.clone(),
                encoded,
            })
        })
        .collect()
}

enum State {
    Encoded(Vec<Vec<u8>>),
    Decoded(Vec<MegacoMessage>),
}

/// Time a thread gives one runner before it takes the next. Erlang
/// preempts a process after a budget of reductions (about a millisecond);
/// here a runner always finishes the pass it started, then yields once
/// its slice is used up, so every runner gets about the same CPU time and
/// its count reflects its codec's speed.
const SLICE: Duration = Duration::from_millis(2);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// mstone1: one runner for the whole run, alternating passes.
    Long,
    /// mstone2: a fresh worker thread for each decode+encode pass.
    Short,
}

struct Runner {
    which: usize,
    kind: Kind,
    state: State,
    count: u64,
}

impl Runner {
    fn new(which: usize, kind: Kind, p: &Prepared) -> Self {
        let mut r = Runner {
            which,
            kind,
            state: State::Encoded(p.encoded.clone()),
            count: 0,
        };
        // Warm-up, not counted.
        r.step(&p.codec);
        if kind == Kind::Long {
            r.step(&p.codec);
        }
        r.count = 0;
        r
    }

    /// One pass (Long: decode or encode the whole corpus; Short: a new
    /// thread decoding and encoding the whole corpus).
    fn step(&mut self, codec: &Encoding) {
        match self.kind {
            Kind::Long => self.pass(codec),
            Kind::Short => self.short_pass(codec),
        }
    }

    fn pass(&mut self, codec: &Encoding) {
        let (next, n) = match &self.state {
            State::Encoded(bins) => {
                let msgs: Vec<MegacoMessage> =
                    bins.iter().filter_map(|b| codec.decode(b).ok()).collect();
                let n = msgs.len() as u64;
                (State::Decoded(msgs), n)
            }
            State::Decoded(msgs) => {
                let bins: Vec<Vec<u8>> = msgs.iter().filter_map(|m| codec.encode(m).ok()).collect();
                let n = bins.len() as u64;
                (State::Encoded(bins), n)
            }
        };
        self.state = next;
        self.count += n;
    }

    fn short_pass(&mut self, codec: &Encoding) {
        let State::Encoded(bins) = &self.state else {
            return;
        };
        let done = std::thread::scope(|w| {
            w.spawn(|| {
                let mut n = 0u64;
                for b in bins {
                    if let Ok(m) = codec.decode(b) {
                        n += 1;
                        if black_box(codec.encode(&m)).is_ok() {
                            n += 1;
                        }
                    }
                }
                n
            })
            .join()
            .unwrap_or(0)
        });
        self.count += done;
    }
}

/// Multiplexes `runners` over `threads` OS threads for `duration`; returns
/// the result.
fn schedule(
    kind: &str,
    prepared: &[Prepared],
    runners: VecDeque<Runner>,
    factor: usize,
    threads: usize,
    duration: Duration,
) -> MstoneResult {
    let queue = Mutex::new(runners);
    let ready = Condvar::new();
    let threads = threads.max(1);
    let start = Instant::now();
    let deadline = start + duration;
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                // Take the next runner, or sleep until one is put back
                // (more threads than runners) or the run ends.
                let next = {
                    let Ok(mut q) = queue.lock() else { break };
                    loop {
                        let now = Instant::now();
                        if now >= deadline {
                            break None;
                        }
                        if let Some(r) = q.pop_front() {
                            break Some((r, now));
                        }
                        match ready.wait_timeout(q, deadline - now) {
                            Ok((guard, _)) => q = guard,
                            Err(_) => return,
                        }
                    }
                };
                let Some((mut r, now)) = next else { break };
                let until = (now + SLICE).min(deadline);
                let codec = &prepared[r.which].codec;
                loop {
                    r.step(codec);
                    if Instant::now() >= until {
                        break;
                    }
                }
                if let Ok(mut q) = queue.lock() {
                    q.push_back(r);
                }
                ready.notify_one();
            });
        }
    });
    ready.notify_all();
    let seconds = start.elapsed().as_secs_f64();
    let runners = queue.into_inner().unwrap_or_else(|p| p.into_inner());
    let per_codec: Vec<(String, u64)> = prepared
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let n = runners
                .iter()
                .filter(|r| r.which == i)
                .map(|r| r.count)
                .sum();
            (p.codec.to_string(), n)
        })
        .collect();
    MstoneResult {
        kind: kind.into(),
        threads,
        factor,
        seconds,
        total: per_codec.iter().map(|(_, n)| n).sum(),
        per_codec,
    }
}

fn runners(prepared: &[Prepared], factor: usize, kind: Kind) -> VecDeque<Runner> {
    let mut v = VecDeque::new();
    for (which, p) in prepared.iter().enumerate() {
        for _ in 0..factor.max(1) {
            v.push_back(Runner::new(which, kind, p));
        }
    }
    v
}

/// Runs mstone1 for `duration` with `factor` runners per configuration on
/// `threads` OS threads.
pub fn mstone1(
    prepared: &[Prepared],
    factor: usize,
    threads: usize,
    duration: Duration,
) -> MstoneResult {
    let rs = runners(prepared, factor, Kind::Long);
    schedule("mstone1", prepared, rs, factor, threads, duration)
}

/// Runs mstone2 for `duration` on `threads` OS threads: `factor` drivers
/// per configuration, each spawning a short-lived worker thread per
/// corpus pass (decode and encode every message once).
pub fn mstone2(
    prepared: &[Prepared],
    factor: usize,
    threads: usize,
    duration: Duration,
) -> MstoneResult {
    let rs = runners(prepared, factor, Kind::Short);
    schedule("mstone2", prepared, rs, factor, threads, duration)
}

/// A console report of one run: operations and operations per second per
/// configuration, and the MStone.
pub fn report(r: &MstoneResult) -> String {
    use std::fmt::Write as _;
    let w = r
        .per_codec
        .iter()
        .map(|(c, _)| c.len())
        .max()
        .unwrap_or(0)
        .max("Codec and config".len());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({} threads, {} runner(s) per config, {:.1} s)",
        r.kind, r.threads, r.factor, r.seconds
    );
    let _ = writeln!(
        out,
        "{:<w$} | {:>12} | {:>12}",
        "Codec and config", "Operations", "Rate (ops/s)"
    );
    for (c, n) in &r.per_codec {
        let _ = writeln!(
            out,
            "{:<w$} | {:>12} | {:>12.0}",
            c,
            n,
            *n as f64 / r.seconds
        );
    }
    let _ = writeln!(
        out,
        "{:<w$} | {:>12} | {:>12.0}",
        "MStone (total)",
        r.total,
        r.total as f64 / r.seconds
    );
    out
}
