//! Which wire encoding a connection speaks, as data: [`megaco::codec`]
//! re-exported, so that `megaco_stack::Encoding` and
//! `megaco::codec::Encoding` are the same type.

pub use megaco::codec::{sniff, DecodeError, Encoding, Kind};
