//! The native format: round trips for all four configurations, and a
//! decoder that fails cleanly (never panics) on truncated or corrupted
//! input.
mod common;

use megaco::codec::DecodeErrorKind;
use megaco::native::{self, NativeConfig};

fn messages() -> Vec<(String, megaco::MegacoMessage)> {
    let mut v = common::hand_built();
    let corpus = common::decoded_corpus();
    eprintln!("{} corpus messages decoded by this build", corpus.len());
    v.extend(corpus);
    v
}

#[test]
fn round_trip_all_configs() {
    for (name, msg) in messages() {
        for cfg in NativeConfig::ALL {
            let bytes = native::encode(&msg, &cfg).unwrap();
            let back =
                native::decode(&bytes, &cfg).unwrap_or_else(|e| panic!("{name} {cfg:?}: {e}"));
            assert_eq!(back, msg, "{name} {cfg:?}");
        }
    }
}

#[test]
fn compact_is_smaller_when_strings_are_frequent() {
    let msg = common::add_request();
    let plain = native::encode(&msg, &NativeConfig::PLAIN).unwrap();
    let compact = native::encode(&msg, &NativeConfig::COMPACT).unwrap();
    assert!(
        compact.len() < plain.len(),
        "{} vs {}",
        compact.len(),
        plain.len()
    );
}

#[test]
fn header_names_the_config() {
    let msg = common::message_error();
    let bytes = native::encode(&msg, &NativeConfig::COMPACT).unwrap();
    let err = native::decode(&bytes, &NativeConfig::PLAIN).unwrap_err();
    assert_eq!(err.offset(), 0);
    assert!(matches!(err.kind(), DecodeErrorKind::Unexpected { .. }));
    assert!(err.to_string().contains("0xa0 (plain native)"), "{err}");
}

#[test]
fn every_truncation_is_an_error() {
    for (name, msg) in messages().into_iter().take(40) {
        for cfg in NativeConfig::ALL {
            let bytes = native::encode(&msg, &cfg).unwrap();
            for len in 0..bytes.len() {
                assert!(
                    native::decode(&bytes[..len], &cfg).is_err(),
                    "{name} {cfg:?} truncated to {len} decoded"
                );
            }
        }
    }
}

#[test]
fn trailing_bytes_are_an_error() {
    let mut bytes = native::encode(&common::replies(), &NativeConfig::PLAIN).unwrap();
    bytes.push(0);
    let err = native::decode(&bytes, &NativeConfig::PLAIN).unwrap_err();
    assert_eq!(err.kind(), &DecodeErrorKind::TrailingData { len: 1 });
}

#[test]
fn huge_length_is_rejected_before_allocating() {
    // Header, no auth header, version 1, Mid::Device with a length of 2^62.
    let bytes = [
        0xA0, 0, 1, 3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40,
    ];
    let err = native::decode(&bytes, &NativeConfig::PLAIN).unwrap_err();
    assert!(
        matches!(err.kind(), DecodeErrorKind::BadLength { .. }),
        "{err}"
    );
    assert_eq!(err.offset(), 13);
}

/// A small deterministic generator (xorshift), so the test needs no crate.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn corrupted_input_never_panics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (_, msg) in messages().into_iter().take(40) {
        for cfg in NativeConfig::ALL {
            let good = native::encode(&msg, &cfg).unwrap();
            for _ in 0..200 {
                let mut bad = good.clone();
                let flips = 1 + rng.next() % 4;
                for _ in 0..flips {
                    let i = (rng.next() as usize) % bad.len();
                    bad[i] = rng.next() as u8;
                }
                // Ok (a different valid message) or a typed error; never a panic.
                let _ = native::decode(&bad, &cfg);
            }
        }
    }
    // Pure noise too.
    for len in 0..300 {
        let noise: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        for cfg in NativeConfig::ALL {
            let _ = native::decode(&noise, &cfg);
        }
    }
}
