//! The borrowed view against the owned decoder on the corpus: the same
//! header, transactions, actions, commands and termination ids, in every
//! BER configuration; and the view of encodings it does not cover yet is
//! a typed error.
use std::path::{Path, PathBuf};

use megaco::ber::{BerConfig, Dialect, Mapping};
use megaco::codec::Encoding;
use megaco::view::MessageView;

#[path = "../../../fuzz/fuzz_targets/view_check.rs"]
mod view_check;

#[path = "../../../fuzz/replay_inputs.rs"]
mod replay_inputs;

fn vectors(dir: &str) -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vectors");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

/// The inputs on which the view and the owned decoder once disagreed
/// (`fuzz/regressions/view/`), checked as the `view` fuzz target checks
/// them: both dialects, both mappings.
#[test]
fn view_regressions() {
    let inputs = replay_inputs::inputs("regressions/view");
    assert!(
        !inputs.is_empty(),
        "fuzz/regressions/view/ holds the inputs"
    );
    for (name, bytes) in inputs {
        view_check::check_ber(&bytes, &name);
    }
}

#[test]
fn ber_view_agrees_with_the_owned_decoder_on_the_corpus() {
    let models: Vec<_> = vectors("pretty")
        .iter()
        .map(|(_, b)| megaco::text::decode(b).unwrap())
        .collect();
    let mut checked = 0;
    // OTP's own bytes.
    let otp = Encoding::ber();
    for (name, bytes) in vectors("ber") {
        view_check::check(&bytes, &otp, &name);
        checked += 1;
    }
    // Our encodings in both dialects and both mappings.
    for dialect in [Dialect::Standard, Dialect::Otp] {
        for mapping in [Mapping::default(), Mapping::Native] {
            let enc = Encoding::Ber(BerConfig {
                dialect,
                mapping: mapping.clone(),
                ..BerConfig::default()
            });
            for (i, m) in models.iter().enumerate() {
                let text_mapped = Encoding::Ber(BerConfig {
                    dialect,
                    ..BerConfig::default()
                });
                let bytes = text_mapped.encode(m).unwrap();
                view_check::check(&bytes, &enc, &format!("{dialect:?} {mapping:?} #{i}"));
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 149 * 5);
}

#[test]
fn view_of_every_corpus_message_has_items() {
    let enc = Encoding::ber();
    for (name, bytes) in vectors("ber") {
        let view = MessageView::parse(&bytes, &enc).unwrap();
        let mut n = 0;
        for item in view.items() {
            item.unwrap();
            n += 1;
        }
        assert!(n > 0 || view.error_code().is_some(), "{name}");
    }
}

#[test]
fn truncated_and_corrupt_bytes_are_errors_not_panics() {
    let enc = Encoding::ber();
    for (name, bytes) in vectors("ber").into_iter().take(40) {
        for cut in 0..bytes.len() {
            view_check::check(&bytes[..cut], &enc, &format!("{name} cut at {cut}"));
        }
        let mut b = bytes.clone();
        for i in 0..b.len() {
            b[i] ^= 0x5A;
            view_check::check(&b, &enc, &format!("{name} byte {i} flipped"));
            b[i] ^= 0x5A;
        }
    }
}

#[test]
fn encodings_without_a_view_say_so() {
    let msg = megaco::text::decode(b"!/1 [10.0.0.1] T=1{C=-{AV=ROOT}}").unwrap();
    for enc in [Encoding::per(), Encoding::native()] {
        let bytes = enc.encode(&msg).unwrap();
        let err = MessageView::parse(&bytes, &enc).unwrap_err();
        assert!(err.to_string().contains("not supported"), "{err}");
    }
}
