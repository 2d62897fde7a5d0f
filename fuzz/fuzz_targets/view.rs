//! The borrowed view against the owned decoder on the same bytes: never a
//! panic, and whenever the owned decoder accepts the input, the view
//! accepts it too and every field it yields equals the owned model's
//! (see `view_check`). BER in both dialects and both mappings.
#![no_main]
use libfuzzer_sys::fuzz_target;

mod view_check;

fuzz_target!(|data: &[u8]| view_check::check_ber(data, "input"));
