//! The transaction engine as a state machine: arbitrary peer messages,
//! raw bytes, user calls and clock advances into one `Connection`; see
//! `engine_ops` for what is checked.
#![no_main]
use libfuzzer_sys::fuzz_target;

mod engine_ops;

fuzz_target!(|data: &[u8]| engine_ops::run(data));
