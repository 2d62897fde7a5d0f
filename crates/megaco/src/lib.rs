//! Megaco/H.248 (ITU-T H.248.1 v1, v2, v3; RFC 3525): one message model and
//! its codecs.
//!
//! - [`model`]: the message types, one set for every protocol version.
//! - [`version`]: which constructs each protocol version can carry.
//! - [`codec`]: the codec as data ([`codec::Encoding`]), one decode error
//!   ([`DecodeError`]).
//! - [`view`]: a borrowed, zero-allocation view of a message's header,
//!   transactions, actions, commands and termination ids.
//!
//! Codecs are pure functions of their input: no I/O, no global state, safe
//! to call from many threads at once.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod asn1;
pub mod ber;
pub mod codec;
pub mod corpus;
pub mod error;
#[cfg(feature = "serde")]
pub mod json;
pub mod limits;
pub mod model;
#[cfg(feature = "native")]
pub mod native;
pub mod per;
pub mod text;
pub mod version;
pub mod view;

pub use error::{DecodeError, EncodeError};
pub use limits::Limits;
pub use model::MegacoMessage;
