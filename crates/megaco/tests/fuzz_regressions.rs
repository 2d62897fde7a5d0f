//! Inputs the fuzzers once failed on (fuzz/regressions/<target>/), replayed
//! through the same checks as the fuzz targets in fuzz/fuzz_targets/.
#[path = "../../../fuzz/replay_inputs.rs"]
mod replay_inputs;

/// The regression inputs of fuzz target `target`.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    replay_inputs::inputs(&format!("regressions/{target}"))
}

#[test]
fn text_decode_regressions() {
    for (name, data) in inputs("text_decode") {
        let Ok(msg) = megaco::text::decode(&data) else {
            continue;
        };
        for style in [megaco::text::Style::Compact, megaco::text::Style::Pretty] {
            let mut out = Vec::new();
            if megaco::text::encode(&msg, style, &mut out).is_ok() {
                let again = megaco::text::decode(&out)
                    .unwrap_or_else(|e| panic!("{name}: our {style:?} output fails: {e}"));
                assert_eq!(again, msg, "{name}: round trip through {style:?}");
            }
        }
    }
}

#[test]
fn ber_decode_regressions() {
    use megaco::ber::BerConfig;
    for (name, data) in inputs("ber_decode") {
        for cfg in [BerConfig::default(), BerConfig::otp()] {
            let Ok(msg) = megaco::ber::decode(&data, &cfg) else {
                continue;
            };
            if let Ok(bytes) = megaco::ber::encode(&msg, &cfg) {
                let again = megaco::ber::decode(&bytes, &cfg)
                    .unwrap_or_else(|e| panic!("{name}: our {:?} BER fails: {e}", cfg.dialect));
                assert_eq!(again, msg, "{name}: BER {:?} round trip", cfg.dialect);
            }
        }
    }
}

#[test]
fn per_decode_regressions() {
    let cfg = megaco::per::PerConfig::default();
    for (name, data) in inputs("per_decode") {
        let Ok(msg) = megaco::per::decode(&data, &cfg) else {
            continue;
        };
        if let Ok(bytes) = megaco::per::encode(&msg, &cfg) {
            let again = megaco::per::decode(&bytes, &cfg)
                .unwrap_or_else(|e| panic!("{name}: our PER fails: {e}"));
            assert_eq!(again, msg, "{name}: PER round trip");
        }
    }
}

/// What the binary decoders accept (ASN.1's IA5 strings, say) may not
/// be writable as text; the text encoder then refuses it, and whatever it
/// writes reads back.
#[test]
fn binary_decodes_write_text_that_reads_back() {
    let cfg = megaco::per::PerConfig::default();
    let per = inputs("per_decode")
        .into_iter()
        .filter_map(|(n, d)| Some((n, megaco::per::decode(&d, &cfg).ok()?)));
    let ber = inputs("ber_decode").into_iter().filter_map(|(n, d)| {
        let msg = megaco::ber::decode(&d, &megaco::ber::BerConfig::otp()).ok()?;
        Some((n, msg))
    });
    let mut refused = 0;
    for (name, msg) in per.chain(ber) {
        for style in [megaco::text::Style::Compact, megaco::text::Style::Pretty] {
            let mut out = Vec::new();
            match megaco::text::encode(&msg, style, &mut out) {
                Ok(()) => {
                    if let Err(e) = megaco::text::decode(&out) {
                        panic!("{name}: our {style:?} text does not read back: {e}");
                    }
                }
                Err(_) => refused += 1,
            }
        }
    }
    // The time stamps of letters (regressions/*/time-stamp-letters-*).
    assert!(refused >= 6, "only {refused} refusals");
}

#[test]
fn native_decode_regressions() {
    use megaco::native::NativeConfig;
    for (name, data) in inputs("native_decode") {
        for cfg in NativeConfig::ALL {
            let Ok(msg) = megaco::native::decode(&data, &cfg) else {
                continue;
            };
            if let Ok(bytes) = megaco::native::encode(&msg, &cfg) {
                let again = megaco::native::decode(&bytes, &cfg)
                    .unwrap_or_else(|e| panic!("{name}: our native {cfg:?} fails: {e}"));
                assert_eq!(again, msg, "{name}: native {cfg:?} round trip");
            }
        }
    }
}

#[test]
fn version_of_regressions() {
    use megaco::ber::BerConfig;
    use megaco::per::PerConfig;
    for (name, data) in inputs("version_of") {
        let v = megaco::text::version_of(&data);
        if let Ok(msg) = megaco::text::decode(&data) {
            assert_eq!(v, Ok(msg.mess.version), "{name}: text");
        }
        let v = megaco::ber::version_of(&data);
        for cfg in [BerConfig::default(), BerConfig::otp()] {
            if let Ok(msg) = megaco::ber::decode(&data, &cfg) {
                assert_eq!(v, Ok(msg.mess.version), "{name}: BER");
            }
        }
        let v = megaco::per::version_of(&data);
        if let Ok(msg) = megaco::per::decode(&data, &PerConfig::default()) {
            assert_eq!(v, Ok(msg.mess.version), "{name}: PER");
        }
    }
}

#[path = "../../../fuzz/fuzz_targets/normalise.rs"]
mod normalise;

#[test]
fn roundtrip_regressions() {
    use arbitrary::{Arbitrary, Unstructured};
    use megaco::model::MegacoMessage;
    for (name, data) in inputs("roundtrip") {
        // libFuzzer's `fuzz_target!(|msg: T|)` builds its value this way.
        let Ok(msg) = MegacoMessage::arbitrary_take_rest(Unstructured::new(&data)) else {
            continue;
        };
        normalise::roundtrip(&msg, &name);
    }
}

/// Models the `roundtrip` target once failed on, kept as JSON
/// (`fuzz/regressions/roundtrip-models/*.json`): unlike the raw inputs
/// beside them, which `arbitrary` reads into whatever the model's layout
/// makes of them, these stay the same model when the layout changes.
#[test]
fn roundtrip_model_regressions() {
    let models = inputs("roundtrip-models");
    assert!(!models.is_empty());
    for (name, data) in models {
        let msg: megaco::model::MegacoMessage =
            serde_json::from_slice(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        normalise::roundtrip(&msg, &name);
    }
}
