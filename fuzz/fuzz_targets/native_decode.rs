//! Any bytes through the native decoder, in each of its four
//! configurations; what decodes must re-encode and decode back to the same
//! model.
#![no_main]
use libfuzzer_sys::fuzz_target;
use megaco::native::NativeConfig;

fuzz_target!(|data: &[u8]| {
    for cfg in NativeConfig::ALL {
        if let Ok(msg) = megaco::native::decode(data, &cfg) {
            if let Ok(bytes) = megaco::native::encode(&msg, &cfg) {
                let again = megaco::native::decode(&bytes, &cfg).expect("our own native decodes");
                assert_eq!(again, msg, "native round trip ({cfg:?})");
            }
        }
    }
});
