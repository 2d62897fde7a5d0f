//! `meas`: per message and codec configuration, the mean time of one encode
//! and of one decode, and the encoded size (OTP: `megaco_codec_meas`).
//!
//! For each (message, codec) the message is encoded once (its size is the
//! size of that encoding) and decoded back; then each operation is warmed
//! up, its speed estimated, and run as many times as fit in
//! `1 s × factor`; the mean of that run is reported.
use std::hint::black_box;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use megaco::codec::Encoding;

use crate::codecs;
use crate::samples::Sample;

/// One measurement: one message with one codec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Codec and config, e.g. `native [compact]`.
    pub codec: String,
    /// Message name.
    pub message: String,
    /// Encoded size in bytes.
    pub size: usize,
    /// Mean microseconds of one encode.
    pub encode_us: f64,
    /// Mean microseconds of one decode.
    pub decode_us: f64,
}

impl Row {
    /// Encode plus decode.
    pub fn total_us(&self) -> f64 {
        self.encode_us + self.decode_us
    }
}

/// A (message, codec) pair that could not be measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Codec and config.
    pub codec: String,
    /// Message name.
    pub message: String,
    /// What failed.
    pub error: String,
}

/// Means over the messages of one codec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Codec and config.
    pub codec: String,
    /// Messages measured.
    pub messages: usize,
    /// Mean size in bytes.
    pub size: f64,
    /// Mean encode µs.
    pub encode_us: f64,
    /// Mean decode µs.
    pub decode_us: f64,
    /// Mean encode + decode µs.
    pub total_us: f64,
}

/// Everything one `meas` run produced.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MeasResult {
    /// Rows in codec order, then message order.
    pub rows: Vec<Row>,
    /// Pairs that failed.
    pub failures: Vec<Failure>,
}

impl MeasResult {
    /// Means per codec, in the order the codecs first appear.
    pub fn summary(&self) -> Vec<Summary> {
        summarize(&self.rows)
    }
}

/// Means per codec of `rows`, in order of first appearance.
pub fn summarize(rows: &[Row]) -> Vec<Summary> {
    let mut order: Vec<&str> = Vec::new();
    for r in rows {
        if !order.contains(&r.codec.as_str()) {
            order.push(&r.codec);
        }
    }
    order
        .into_iter()
        .map(|codec| {
            let rs: Vec<&Row> = rows.iter().filter(|r| r.codec == codec).collect();
            let n = rs.len() as f64;
            let mean = |f: &dyn Fn(&Row) -> f64| rs.iter().map(|r| f(r)).sum::<f64>() / n;
            Summary {
                codec: codec.to_string(),
                messages: rs.len(),
                size: mean(&|r| r.size as f64),
                encode_us: mean(&|r| r.encode_us),
                decode_us: mean(&|r| r.decode_us),
                total_us: mean(&|r| r.total_us()),
            }
        })
        .collect()
}

/// Mean microseconds of one call of `f`, running it for about `budget`
/// after a warm-up of a tenth of it.
pub fn time_per_op(budget: Duration, mut f: impl FnMut()) -> f64 {
    let warm = budget / 10;
    let start = Instant::now();
    let mut done: u64 = 0;
    let mut batch: u64 = 1;
    loop {
        for _ in 0..batch {
            f();
        }
        done += batch;
        if start.elapsed() >= warm {
            break;
        }
        batch = batch.saturating_mul(2);
    }
    let per_op = start.elapsed().as_secs_f64() / done as f64;
    let count = (budget.as_secs_f64() / per_op.max(1e-9)).clamp(1.0, 1e12) as u64;
    let t = Instant::now();
    for _ in 0..count {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / count as f64
}

/// Measures one message with one codec.
pub fn measure_one(codec: &Encoding, sample: &Sample, budget: Duration) -> Result<Row, String> {
    let msg = codecs::model_for(codec, &sample.msg)?;
    let msg: &megaco::MegacoMessage = &msg;
    let bytes = codec.encode(msg).map_err(|e| format!("encode: {e}"))?;
    codec.decode(&bytes).map_err(|e| format!("decode: {e}"))?;
    let encode_us = time_per_op(budget, || {
        let _ = black_box(codec.encode(black_box(msg)));
    });
    let decode_us = time_per_op(budget, || {
        let _ = black_box(codec.decode(black_box(&bytes)));
    });
    Ok(Row {
        codec: codec.to_string(),
        message: sample.name.clone(),
        size: bytes.len(),
        encode_us,
        decode_us,
    })
}

/// Measures every message with every codec; `budget` is the time spent on
/// each operation of each pair; `progress` is called after each pair.
pub fn run(
    samples: &[Sample],
    codecs: &[Encoding],
    budget: Duration,
    mut progress: impl FnMut(&Encoding, &Sample),
) -> MeasResult {
    let mut out = MeasResult::default();
    for codec in codecs {
        for s in samples {
            match measure_one(codec, s, budget) {
                Ok(row) => out.rows.push(row),
                Err(error) => out.failures.push(Failure {
                    codec: codec.to_string(),
                    message: s.name.clone(),
                    error,
                }),
            }
            progress(codec, s);
        }
    }
    out
}
