//! Structure-aware: an arbitrary model through every codec. Whatever an
//! encoder accepts must decode back to the same model; an encoder may
//! refuse (an `EncodeError`) but never panic.
//!
//! Documented canonicalisations: BER and PER carry audit tokens and
//! notify-completion reasons as ASN.1 BIT STRINGs, so those lists come
//! back in bit order without duplicates; the expected model is normalised
//! the same way before comparing. Text reads names in lower case, so a
//! text round trip is compared up to ASCII case (see `normalise`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use megaco::ber::BerConfig;
use megaco::model::MegacoMessage;
use megaco::native::NativeConfig;
use megaco::per::PerConfig;

mod normalise;

fuzz_target!(|msg: MegacoMessage| {
    for style in [megaco::text::Style::Pretty, megaco::text::Style::Compact] {
        let mut out = Vec::new();
        if megaco::text::encode(&msg, style, &mut out).is_ok() {
            let back = megaco::text::decode(&out).unwrap_or_else(|e| {
                panic!(
                    "text {style:?} output fails: {e}\n{}",
                    String::from_utf8_lossy(&out)
                )
            });
            normalise::text_equivalent(&msg, &back, style);
        }
    }
    let bits = normalise::bit_strings(&msg);
    let standard = normalise::standard_ber(&msg);
    for (cfg, expected) in [(BerConfig::default(), &standard), (BerConfig::otp(), &bits)] {
        if let Ok(bytes) = megaco::ber::encode(&msg, &cfg) {
            let back = megaco::ber::decode(&bytes, &cfg)
                .unwrap_or_else(|e| panic!("BER {:?} output fails: {e}", cfg.dialect));
            normalise::binary_equivalent(expected, &back, "BER", |m| {
                let b = megaco::ber::encode(m, &cfg).expect("a decoded message encodes");
                megaco::ber::decode(&b, &cfg).expect("our own BER decodes")
            });
        }
    }
    let cfg = PerConfig::default();
    if let Ok(bytes) = megaco::per::encode(&msg, &cfg) {
        let back =
            megaco::per::decode(&bytes, &cfg).unwrap_or_else(|e| panic!("PER output fails: {e}"));
        normalise::binary_equivalent(&bits, &back, "PER", |m| {
            let b = megaco::per::encode(m, &cfg).expect("a decoded message encodes");
            megaco::per::decode(&b, &cfg).expect("our own PER decodes")
        });
    }
    for cfg in NativeConfig::ALL {
        if let Ok(bytes) = megaco::native::encode(&msg, &cfg) {
            let back = megaco::native::decode(&bytes, &cfg)
                .unwrap_or_else(|e| panic!("native {cfg:?} output fails: {e}"));
            assert_eq!(back, msg, "native {cfg:?} round trip");
        }
    }
});
