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
use megaco::model::MegacoMessage;

mod normalise;

fuzz_target!(|msg: MegacoMessage| {
    normalise::roundtrip(&msg, "input");
});
