//! Any bytes through the BER decoder, in both dialects; what decodes must
//! re-encode and decode back to the same model.
#![no_main]
use libfuzzer_sys::fuzz_target;
use megaco::ber::BerConfig;

fuzz_target!(|data: &[u8]| {
    for cfg in [BerConfig::default(), BerConfig::otp()] {
        if let Ok(msg) = megaco::ber::decode(data, &cfg) {
            if let Ok(bytes) = megaco::ber::encode(&msg, &cfg) {
                let again = megaco::ber::decode(&bytes, &cfg).expect("our own BER decodes");
                assert_eq!(again, msg, "BER round trip");
            }
        }
    }
});
