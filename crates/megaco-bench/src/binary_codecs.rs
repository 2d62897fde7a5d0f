//! The ASN.1 codecs (BER, PER), listed once they are in the build.

use crate::codecs::Codec;

/// BER and PER configurations available in this build.
pub fn all() -> Vec<Codec> {
    Vec::new()
}
