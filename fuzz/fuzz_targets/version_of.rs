//! Version detection from the header alone (`version_of` of text, BER
//! and PER) on any bytes: never panics, and whenever the full decoder
//! accepts the input, agrees with the version it read.
#![no_main]
use libfuzzer_sys::fuzz_target;
use megaco::ber::BerConfig;
use megaco::per::PerConfig;

fuzz_target!(|data: &[u8]| {
    let v = megaco::text::version_of(data);
    if let Ok(msg) = megaco::text::decode(data) {
        assert_eq!(v, Ok(msg.mess.version), "text");
    }
    let v = megaco::ber::version_of(data);
    for cfg in [BerConfig::default(), BerConfig::otp()] {
        if let Ok(msg) = megaco::ber::decode(data, &cfg) {
            assert_eq!(v, Ok(msg.mess.version), "BER {:?}", cfg.dialect);
        }
    }
    let v = megaco::per::version_of(data);
    if let Ok(msg) = megaco::per::decode(data, &PerConfig::default()) {
        assert_eq!(v, Ok(msg.mess.version), "PER");
    }
});
