//! The text encoding of Megaco (RFC 3525 Annex B, H.248.1 Annex B).
//!
//! One decoder reads pretty, compact and any mix of the two; two encoders
//! write the compact form (short keywords, no optional whitespace) and the
//! pretty form (long keywords, indented like the RFC examples).

mod decode;
mod encode;
mod header;
mod keyword;
mod lexer;
pub(crate) use keyword::keyword;
pub(crate) use lexer::safe_char;
mod scalar;
pub(crate) mod view;

pub use decode::{decode, decode_with, version_of, Limits};
pub use encode::{encode, encode_compact, encode_pretty, Style};
