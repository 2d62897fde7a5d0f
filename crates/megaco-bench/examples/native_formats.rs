//! Compares serialisations of the message model on the bundled corpus:
//! this crate's native format with postcard and bincode 2 (serde), for
//! size and encode/decode time. The numbers chose the native format's
//! design. `cargo run --release -p megaco-bench --example native_formats`
use std::hint::black_box;
use std::time::Duration;

use megaco::native::{self, NativeConfig};
use megaco::MegacoMessage;
use megaco_bench::meas::time_per_op;

type Enc = Box<dyn Fn(&MegacoMessage) -> Vec<u8>>;
type Dec = Box<dyn Fn(&[u8]) -> MegacoMessage>;

fn main() -> anyhow::Result<()> {
    let corpus = megaco_bench::samples::load(None, &[], None)?;
    let msgs: Vec<MegacoMessage> = corpus.samples.into_iter().map(|s| s.msg).collect();
    let bincode_cfg = bincode::config::standard();
    let formats: Vec<(&str, Enc, Dec)> = vec![
        (
            "native",
            Box::new(|m| native::encode(m, &NativeConfig::PLAIN).unwrap()),
            Box::new(|b| native::decode(b, &NativeConfig::PLAIN).unwrap()),
        ),
        (
            "native [compact]",
            Box::new(|m| native::encode(m, &NativeConfig::COMPACT).unwrap()),
            Box::new(|b| native::decode(b, &NativeConfig::COMPACT).unwrap()),
        ),
        (
            "postcard",
            Box::new(|m| postcard::to_allocvec(m).unwrap()),
            Box::new(|b| postcard::from_bytes(b).unwrap()),
        ),
        (
            "bincode 2 (serde, standard)",
            Box::new(move |m| bincode::serde::encode_to_vec(m, bincode_cfg).unwrap()),
            Box::new(move |b| bincode::serde::decode_from_slice(b, bincode_cfg).unwrap().0),
        ),
    ];
    let budget = Duration::from_millis(
        std::env::args()
            .nth(1)
            .and_then(|a| a.parse().ok())
            .unwrap_or(500),
    );
    println!("{} messages, {budget:?} per operation", msgs.len());
    println!(
        "{:<28} | {:>9} | {:>12} | {:>12}",
        "format", "bytes", "encode µs", "decode µs"
    );
    for (name, enc, dec) in &formats {
        let bins: Vec<Vec<u8>> = msgs.iter().map(enc).collect();
        for (m, b) in msgs.iter().zip(&bins) {
            assert_eq!(&dec(b), m, "{name} round trip");
        }
        let size: usize = bins.iter().map(Vec::len).sum();
        let e = time_per_op(budget, || {
            for m in &msgs {
                black_box(enc(black_box(m)));
            }
        });
        let d = time_per_op(budget, || {
            for b in &bins {
                black_box(dec(black_box(b)));
            }
        });
        let n = msgs.len() as f64;
        println!(
            "{:<28} | {:>9.1} | {:>12.3} | {:>12.3}",
            name,
            size as f64 / n,
            e / n,
            d / n
        );
    }
    Ok(())
}
