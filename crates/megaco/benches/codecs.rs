//! Criterion micro-benchmarks: encode and decode of the whole bundled
//! corpus (corpus/time_test.msgs) with each codec configuration.
//!
//! Messages the text decoder does not accept are left out (and counted).
//! Run with `cargo bench -p megaco --bench codecs`.
use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use megaco::native::{self, NativeConfig};
use megaco::{EncodeError, MegacoMessage};

type Enc = Box<dyn Fn(&MegacoMessage) -> Result<Vec<u8>, EncodeError>>;
type Dec = Box<dyn Fn(&[u8]) -> Option<MegacoMessage>>;

fn corpus() -> Vec<MegacoMessage> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/time_test.msgs");
    let corpus = megaco::corpus::load(&path).expect("bundled corpus");
    let total = corpus.messages.len();
    let msgs: Vec<MegacoMessage> = corpus
        .messages
        .iter()
        .filter_map(|m| megaco::text::decode(&m.bytes).ok())
        .collect();
    eprintln!("corpus: {} of {total} messages decoded", msgs.len());
    msgs
}

fn codecs() -> Vec<(&'static str, Enc, Dec)> {
    let mut v: Vec<(&'static str, Enc, Dec)> = vec![
        (
            "pretty",
            Box::new(megaco::text::encode_pretty),
            Box::new(|b| megaco::text::decode(b).ok()),
        ),
        (
            "compact",
            Box::new(megaco::text::encode_compact),
            Box::new(|b| megaco::text::decode(b).ok()),
        ),
    ];
    let ber_otp = megaco::ber::BerConfig::otp();
    let ber_otp2 = ber_otp.clone();
    v.push((
        "ber-otp",
        Box::new(move |m| megaco::ber::encode(m, &ber_otp)),
        Box::new(move |b| megaco::ber::decode(b, &ber_otp2).ok()),
    ));
    let per_plain = megaco::per::PerConfig::default();
    let per_plain2 = per_plain.clone();
    v.push((
        "per",
        Box::new(move |m| megaco::per::encode(m, &per_plain)),
        Box::new(move |b| megaco::per::decode(b, &per_plain2).ok()),
    ));
    for (name, cfg) in [
        ("native", NativeConfig::PLAIN),
        ("native-compact", NativeConfig::COMPACT),
        ("native-compressed", NativeConfig::COMPRESSED),
        (
            "native-compact-compressed",
            NativeConfig::COMPACT_COMPRESSED,
        ),
    ] {
        v.push((
            name,
            Box::new(move |m| native::encode(m, &cfg)),
            Box::new(move |b| native::decode(b, &cfg).ok()),
        ));
    }
    v
}

fn bench(c: &mut Criterion) {
    let msgs = corpus();
    if msgs.is_empty() {
        eprintln!("no corpus message decodes with this build's text decoder; nothing to measure");
        return;
    }
    for (name, enc, dec) in codecs() {
        let encoded: Vec<Vec<u8>> = msgs.iter().filter_map(|m| enc(m).ok()).collect();
        if encoded.len() != msgs.len() {
            eprintln!(
                "{name}: {} of {} messages encode",
                encoded.len(),
                msgs.len()
            );
        }
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Elements(encoded.len() as u64));
        g.bench_function("encode", |b| {
            b.iter(|| {
                for m in &msgs {
                    let _ = black_box(enc(black_box(m)));
                }
            })
        });
        g.bench_function("decode", |b| {
            b.iter(|| {
                for e in &encoded {
                    black_box(dec(black_box(e)));
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
