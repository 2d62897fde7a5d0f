//! How far each decoder is from its bytes: per codec config, the mean
//! time per message of the scan floor of the encoded corpus
//! ([`megaco::floor`]: a TLV walk for BER, a tokenizer for text, a byte
//! scan for the others; for BER and text the fastest of the floor's
//! copies at different code addresses), of the owned decoder, and of the borrowed view
//! ([`megaco::view::MessageView`], for the encodings it reads) walking
//! every item and reading the outline alone (transactions, their errors
//! and ack ranges: what the transaction engine reads of a repeat),
//! measured in one run, each as a multiple of the floor.
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use megaco::codec::Encoding;
use megaco::view::MessageView;

use crate::codecs;
use crate::meas::time_per_op;
use crate::samples::Sample;

/// One codec config against its floor; times are mean µs per message.
#[derive(Debug, Clone, PartialEq)]
pub struct FloorRow {
    /// Codec and config.
    pub codec: String,
    /// Which floor: `TLV walk`, `tokenizer` or `byte scan`.
    pub floor: &'static str,
    /// The floor's time.
    pub floor_us: f64,
    /// The owned decoder's time.
    pub decode_us: f64,
    /// The borrowed view's time (every item), for the encodings it reads.
    pub view_us: Option<f64>,
    /// The view's outline time (transactions, their errors and ack
    /// ranges), for the encodings it reads.
    pub outline_us: Option<f64>,
}

/// Measures every config on the messages it can encode. Each of the two
/// or three operations runs over the whole corpus for about `budget`, in
/// [`ROUNDS`] rounds that alternate the operations; each keeps its fastest
/// round (the machine's noise only ever adds time).
pub fn run(samples: &[Sample], codecs: &[Encoding], budget: Duration) -> Vec<FloorRow> {
    codecs
        .iter()
        .filter_map(|codec| measure(codec, samples, budget))
        .collect()
}

/// Rounds per config: floor, decoder and views take turns this many times.
pub const ROUNDS: u32 = 5;

fn measure(codec: &Encoding, samples: &[Sample], budget: Duration) -> Option<FloorRow> {
    let inputs: Vec<Vec<u8>> = samples
        .iter()
        .filter_map(|s| {
            let msg = codecs::model_for(codec, &s.msg).ok()?;
            let bytes = codec.encode(&msg).ok()?;
            codec.decode(&bytes).ok().map(|_| bytes)
        })
        .collect();
    if inputs.is_empty() {
        return None;
    }
    let n = inputs.len() as f64;
    // The BER and text floors in each of their copies (one per code
    // address, see `megaco::floor`).
    let (floor, floor_fns): (_, &[megaco::floor::Floor]) = match codec {
        Encoding::Ber(_) => ("TLV walk", &megaco::floor::ber_tlv_walk_copies()),
        Encoding::Text { .. } => ("tokenizer", &megaco::floor::text_tokens_copies()),
        _ => ("byte scan", &[megaco::floor::byte_scan]),
    };
    let has_view = MessageView::parse(&inputs[0], codec).is_ok();
    let per_message = |f: &dyn Fn(&[u8]) -> usize, budget: Duration| {
        time_per_op(budget / ROUNDS, || {
            for b in &inputs {
                black_box(f(black_box(b)));
            }
        }) / n
    };
    let decode = |b: &[u8]| codec.decode(b).map_or(0, |m| usize::from(m.mess.version));
    let view = |b: &[u8]| match MessageView::parse(b, codec) {
        Ok(v) => v.items().filter(Result::is_ok).count(),
        Err(_) => 0,
    };
    let outline = |b: &[u8]| match MessageView::parse(b, codec) {
        Ok(v) => v.outline().filter(Result::is_ok).count(),
        Err(_) => 0,
    };
    // Every copy of the floor takes its turn in every round, sharing the
    // floor's time; the floor is the fastest copy in its fastest round.
    let copies = u32::try_from(floor_fns.len()).expect("a few copies");
    let (mut floor_us, mut decode_us) = (f64::INFINITY, f64::INFINITY);
    let (mut view_us, mut outline_us) = (None::<f64>, None::<f64>);
    let keep = |best: &mut Option<f64>, t: f64| *best = Some(best.map_or(t, |b| b.min(t)));
    for _ in 0..ROUNDS {
        for f in floor_fns {
            floor_us = floor_us.min(per_message(f, budget / copies));
        }
        decode_us = decode_us.min(per_message(&decode, budget));
        if has_view {
            keep(&mut view_us, per_message(&view, budget));
            keep(&mut outline_us, per_message(&outline, budget));
        }
    }
    Some(FloorRow {
        codec: codec.to_string(),
        floor,
        floor_us,
        decode_us,
        view_us,
        outline_us,
    })
}

/// The console table: `Codec and config | Floor | Floor (µs) | Decode
/// (µs) | × floor | View (µs) | × floor | Outline (µs) | × floor`.
pub fn console_table(rows: &[FloorRow]) -> String {
    let w = rows
        .iter()
        .map(|r| r.codec.chars().count())
        .max()
        .unwrap_or(0)
        .max("Codec and config".len());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<w$} | {:<9} | {:>10} | {:>11} | {:>7} | {:>9} | {:>7} | {:>12} | {:>7}",
        "Codec and config",
        "Floor",
        "Floor (µs)",
        "Decode (µs)",
        "× floor",
        "View (µs)",
        "× floor",
        "Outline (µs)",
        "× floor"
    );
    let _ = writeln!(
        out,
        "{}-+-----------+------------+-------------+---------+-----------+---------+--------------+--------",
        "-".repeat(w)
    );
    for r in rows {
        let ratio = |t: f64| t / r.floor_us.max(f64::MIN_POSITIVE);
        let cells = |t: Option<f64>| match t {
            Some(v) => (format!("{v:.3}"), format!("{:.2}", ratio(v))),
            None => ("-".into(), "-".into()),
        };
        let (view, view_x) = cells(r.view_us);
        let (outline, outline_x) = cells(r.outline_us);
        let _ = writeln!(
            out,
            "{:<w$} | {:<9} | {:>10.3} | {:>11.3} | {:>7.2} | {:>9} | {:>7} | {:>12} | {:>7}",
            r.codec,
            r.floor,
            r.floor_us,
            r.decode_us,
            ratio(r.decode_us),
            view,
            view_x,
            outline,
            outline_x
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_for_ber_have_a_view_and_the_table_shows_ratios() {
        let loaded = crate::samples::load(None, &[], Some(3)).unwrap();
        let codecs: Vec<Encoding> = ["ber", "compact", "per"]
            .iter()
            .map(|c| c.parse().unwrap())
            .collect();
        let rows = run(&loaded.samples, &codecs, Duration::from_micros(200));
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].floor, "TLV walk");
        assert!(rows[0].view_us.is_some() && rows[0].outline_us.is_some());
        assert_eq!(rows[1].floor, "tokenizer");
        assert!(rows[1].outline_us.is_some());
        assert!(rows[2].view_us.is_none() && rows[2].outline_us.is_none());
        let table = console_table(&rows);
        assert!(table.contains("× floor"), "{table}");
        assert_eq!(rows[2].floor, "byte scan");
        assert_eq!(table.lines().count(), 5, "{table}");
    }
}
