//! Any bytes through the text decoder; what decodes must re-encode, and
//! the compact encoding must decode back to the same model.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(msg) = megaco::text::decode(data) {
        for style in [megaco::text::Style::Compact, megaco::text::Style::Pretty] {
            let mut out = Vec::new();
            if megaco::text::encode(&msg, style, &mut out).is_ok() {
                let again = megaco::text::decode(&out).expect("our own encoding decodes");
                assert_eq!(again, msg, "round trip through {style:?}");
            }
        }
    }
});
