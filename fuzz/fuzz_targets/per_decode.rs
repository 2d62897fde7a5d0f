//! Any bytes through the PER decoder; what decodes must re-encode and
//! decode back to the same model.
#![no_main]
use libfuzzer_sys::fuzz_target;
use megaco::per::PerConfig;

fuzz_target!(|data: &[u8]| {
    let cfg = PerConfig::default();
    if let Ok(msg) = megaco::per::decode(data, &cfg) {
        if let Ok(bytes) = megaco::per::encode(&msg, &cfg) {
            let again = megaco::per::decode(&bytes, &cfg).expect("our own PER decodes");
            assert_eq!(again, msg, "PER round trip");
        }
    }
});
