//! The ASN.1 codecs (BER, PER), listed when the build has them (see
//! `build.rs`, which sets `megaco_ber` / `megaco_per`).
//!
//! OTP's `[native]` configurations skip the mapping of names and
//! termination ids, so they take the message in its ASN.1-coded form; as
//! OTP's meas does, that form is obtained by encoding with the mapping and
//! decoding without it (the codec's `prepare`).

use crate::codecs::Codec;

/// BER and PER configurations available in this build.
pub fn all() -> Vec<Codec> {
    #[allow(unused_mut)]
    let mut v = Vec::new();
    #[cfg(megaco_ber)]
    v.extend(ber::codecs());
    #[cfg(megaco_per)]
    v.extend(per::codecs());
    v
}

#[cfg(megaco_ber)]
mod ber {
    use std::sync::OnceLock;

    use megaco::ber::{self, BerConfig, Dialect, Mapping};

    use crate::codecs::Codec;

    fn standard() -> &'static BerConfig {
        static C: OnceLock<BerConfig> = OnceLock::new();
        C.get_or_init(BerConfig::default)
    }

    fn otp() -> &'static BerConfig {
        static C: OnceLock<BerConfig> = OnceLock::new();
        C.get_or_init(|| BerConfig {
            dialect: Dialect::Otp,
            ..BerConfig::default()
        })
    }

    fn native() -> &'static BerConfig {
        static C: OnceLock<BerConfig> = OnceLock::new();
        C.get_or_init(|| BerConfig {
            dialect: Dialect::Otp,
            mapping: Mapping::Native,
            ..BerConfig::default()
        })
    }

    pub fn codecs() -> [Codec; 3] {
        [
            Codec {
                name: "ber",
                slug: "ber",
                ext: "ber",
                otp: Some("ber"),
                encode: |m| ber::encode(m, standard()).map_err(|e| e.to_string()),
                decode: |b| ber::decode(b, standard()).map_err(|e| e.to_string()),
                prepare: None,
            },
            Codec {
                name: "ber [otp]",
                slug: "ber-otp",
                ext: "ber",
                otp: Some("ber"),
                encode: |m| ber::encode(m, otp()).map_err(|e| e.to_string()),
                decode: |b| ber::decode(b, otp()).map_err(|e| e.to_string()),
                prepare: None,
            },
            Codec {
                name: "ber [native]",
                slug: "ber-native",
                ext: "ber",
                otp: Some("ber [native]"),
                encode: |m| ber::encode(m, native()).map_err(|e| e.to_string()),
                decode: |b| ber::decode(b, native()).map_err(|e| e.to_string()),
                prepare: Some(|m| {
                    let b = ber::encode(m, otp()).map_err(|e| e.to_string())?;
                    ber::decode(&b, native()).map_err(|e| e.to_string())
                }),
            },
        ]
    }
}

#[cfg(megaco_per)]
mod per {
    use std::sync::OnceLock;

    use megaco::per::{self, PerConfig};

    use crate::codecs::Codec;

    fn plain() -> &'static PerConfig {
        static C: OnceLock<PerConfig> = OnceLock::new();
        C.get_or_init(PerConfig::default)
    }

    fn native() -> &'static PerConfig {
        static C: OnceLock<PerConfig> = OnceLock::new();
        C.get_or_init(PerConfig::native)
    }

    pub fn codecs() -> [Codec; 2] {
        [
            Codec {
                name: "per",
                slug: "per",
                ext: "per",
                otp: Some("per"),
                encode: |m| per::encode(m, plain()).map_err(|e| e.to_string()),
                decode: |b| per::decode(b, plain()).map_err(|e| e.to_string()),
                prepare: None,
            },
            Codec {
                name: "per [native]",
                slug: "per-native",
                ext: "per",
                otp: Some("per [native]"),
                encode: |m| per::encode(m, native()).map_err(|e| e.to_string()),
                decode: |b| per::decode(b, native()).map_err(|e| e.to_string()),
                prepare: Some(|m| {
                    let b = per::encode(m, plain()).map_err(|e| e.to_string())?;
                    per::decode(&b, native()).map_err(|e| e.to_string())
                }),
            },
        ]
    }
}
