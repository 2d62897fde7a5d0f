//! The native binary format: the fastest way to store or ship a
//! [`MegacoMessage`] between two programs that both use this crate.
//!
//! It is this crate's counterpart of Erlang/OTP's `megaco_erl_dist_encoder`
//! (the message record in Erlang's external term format): not a Megaco
//! wire encoding, but a faithful serialisation of the message model.
//!
//! # Format
//!
//! One header byte (`0xA0 | flags`: bit 0 compact, bit 1 compressed), then
//! the message's fields in declaration order:
//!
//! - `bool` and `u8` as one byte, wider unsigned integers as LEB128
//!   varints (most values fit in one byte);
//! - `Option` as a `0`/`1` byte followed by the value;
//! - strings, byte strings and sequences as a varint length then the items;
//! - enums as a varint variant index then the variant's fields.
//!
//! Four [`NativeConfig`]s:
//!
//! - plain;
//! - `compact` (counterpart of OTP's `megaco_compressed`): frequent strings
//!   (termination ids, package/item names, SDP names) are written as a
//!   one-byte code from a fixed table; every string costs a tag varint
//!   `(index << 1) | 1` for a table entry or `len << 1` for literal text;
//! - `compressed` (counterpart of OTP's `compressed`): the body after the
//!   header is DEFLATE-compressed;
//! - both.
//!
//! # Untrusted input
//!
//! [`decode`] never panics and never allocates more than the input
//! justifies: every length is checked against the bytes that remain before
//! anything is allocated, decompression stops at the largest size DEFLATE
//! can reach from the input, and the model has no recursive types, so the
//! depth of nesting is bounded by the model itself.
//!
//! ```
//! use megaco::model::*;
//! use megaco::native::{self, NativeConfig};
//!
//! let msg = MegacoMessage {
//!     auth_header: None,
//!     mess: Message {
//!         version: 1,
//!         mid: Mid::Ip4(Ip4Address { address: [10, 0, 0, 1], port: Some(2944) }),
//!         body: MessageBody::Transactions(smallvec![Transaction::Pending(TransactionPending {
//!             transaction_id: 17,
//!         })]),
//!     },
//! };
//! for config in NativeConfig::ALL {
//!     let bytes = native::encode(&msg, &config).unwrap();
//!     assert_eq!(native::decode(&bytes, &config).unwrap(), msg);
//! }
//! ```

mod de;
mod names;
mod ser;

use std::cell::RefCell;

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

use crate::codec::Kind;
use crate::error::{DecodeError, DecodeErrorKind as K, Limit};
use crate::{EncodeError, Limits, MegacoMessage};

/// Which variant of the native format to write or read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NativeConfig {
    /// Frequent strings as one-byte codes (OTP: `megaco_compressed`).
    pub compact: bool,
    /// DEFLATE over the body (OTP: `compressed`).
    pub compressed: bool,
    /// What the decoder accepts ([`Limits::DEFAULT`]); `max_depth` counts
    /// nested containers (structures and lists), and the encoder refuses
    /// a model nested deeper.
    pub limits: Limits,
}

impl Default for NativeConfig {
    fn default() -> Self {
        NativeConfig::PLAIN
    }
}

impl NativeConfig {
    /// Plain.
    pub const PLAIN: NativeConfig = NativeConfig {
        compact: false,
        compressed: false,
        limits: Limits::DEFAULT,
    };
    /// Interned strings.
    pub const COMPACT: NativeConfig = NativeConfig {
        compact: true,
        compressed: false,
        limits: Limits::DEFAULT,
    };
    /// Compressed.
    pub const COMPRESSED: NativeConfig = NativeConfig {
        compact: false,
        compressed: true,
        limits: Limits::DEFAULT,
    };
    /// Interned strings, then compressed.
    pub const COMPACT_COMPRESSED: NativeConfig = NativeConfig {
        compact: true,
        compressed: true,
        limits: Limits::DEFAULT,
    };
    /// The four configurations.
    pub const ALL: [NativeConfig; 4] = [
        Self::PLAIN,
        Self::COMPACT,
        Self::COMPRESSED,
        Self::COMPACT_COMPRESSED,
    ];

    /// The header byte announcing this configuration.
    fn header(&self) -> u8 {
        HEADER_BASE | u8::from(self.compact) | (u8::from(self.compressed) << 1)
    }

    /// The header byte, in words, for errors.
    fn header_text(&self) -> &'static str {
        match (self.compact, self.compressed) {
            (false, false) => "header byte 0xa0 (plain native)",
            (true, false) => "header byte 0xa1 (compact native)",
            (false, true) => "header byte 0xa2 (compressed native)",
            (true, true) => "header byte 0xa3 (compact compressed native)",
        }
    }
}

/// High nibble of the header byte.
const HEADER_BASE: u8 = 0xA0;

/// Encodes `msg` in the native format with `config`.
///
/// Fails only if the model holds something serde cannot express, which
/// the message model never does; the `Result` keeps the codec API uniform.
pub fn encode(msg: &MegacoMessage, config: &NativeConfig) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(256);
    out.push(config.header());
    if config.compressed {
        let mut body = Vec::with_capacity(256);
        ser::write(msg, config.compact, config.limits.max_depth, &mut body)?;
        deflate(&body, &mut out)?;
    } else {
        ser::write(msg, config.compact, config.limits.max_depth, &mut out)?;
    }
    Ok(out)
}

/// A 1 KiB window: messages are small, and a small window makes the
/// per-message reset cheap. Any DEFLATE decoder reads the result.
const WINDOW_BITS: u8 = 10;

thread_local! {
    // DEFLATE state is large (hundreds of KiB for the compressor); creating
    // it per message would cost more than the compression itself, so each
    // thread keeps one and resets it between messages.
    static COMPRESS: RefCell<Compress> = RefCell::new(Compress::new_with_window_bits(
        Compression::fast(),
        false,
        WINDOW_BITS,
    ));
    static DECOMPRESS: RefCell<Decompress> = RefCell::new(Decompress::new(false));
}

/// Appends the raw DEFLATE compression of `body` to `out`.
fn deflate(body: &[u8], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    COMPRESS.with(|c| {
        let mut c = c.borrow_mut();
        c.reset();
        out.reserve(body.len() / 2 + 64);
        loop {
            let consumed = c.total_in() as usize;
            let status = c
                .compress_vec(&body[consumed..], out, FlushCompress::Finish)
                .map_err(|e| EncodeError::Invalid {
                    what: "native compressed body",
                    detail: e.to_string(),
                })?;
            if status == Status::StreamEnd {
                return Ok(());
            }
            out.reserve(out.capacity().max(64));
        }
    })
}

/// Inflates `body` (raw DEFLATE) into a new vector of at most `limit` bytes.
fn inflate(body: &[u8], limit: usize) -> Result<Vec<u8>, DecodeError> {
    let too_large = |consumed: usize| {
        let kind = K::LimitExceeded {
            limit: Limit::MessageSize,
            max: limit,
            found: None,
        };
        DecodeError::new(Kind::Native, 1 + consumed, kind)
    };
    // One byte of room past the limit, so that a body of exactly `limit`
    // bytes can reach its end and a longer one is caught.
    let room = limit.saturating_add(1);
    DECOMPRESS.with(|d| {
        let mut d = d.borrow_mut();
        d.reset(false);
        let mut plain = Vec::with_capacity(body.len().saturating_mul(3).max(64).min(room));
        loop {
            let consumed = d.total_in() as usize;
            let produced = d.total_out();
            if plain.len() == plain.capacity() {
                if plain.len() >= room {
                    return Err(too_large(consumed));
                }
                plain.reserve_exact(plain.capacity().max(64).min(room - plain.len()));
            }
            let status = d
                .decompress_vec(&body[consumed..], &mut plain, FlushDecompress::Finish)
                .map_err(|e| corrupt(1 + consumed, e.to_string()))?;
            if plain.len() > limit {
                return Err(too_large(d.total_in() as usize));
            }
            if status == Status::StreamEnd {
                return Ok(plain);
            }
            if d.total_in() as usize == consumed && d.total_out() == produced {
                // No progress with room to write: the stream is cut short.
                return Err(corrupt(1 + body.len(), "truncated stream".into()));
            }
        }
    })
}

#[cold]
fn corrupt(offset: usize, detail: String) -> DecodeError {
    let kind = K::Invalid {
        what: "compressed body",
        detail: detail.into(),
    };
    DecodeError::new(Kind::Native, offset, kind)
}

/// Largest expansion DEFLATE can achieve (about 1032:1), with slack.
const MAX_DEFLATE_RATIO: usize = 1040;

/// Decodes a message written by [`encode`] with the same `config`.
pub fn decode(input: &[u8], config: &NativeConfig) -> Result<MegacoMessage, DecodeError> {
    let Some((&header, body)) = input.split_first() else {
        let expected = "a header byte";
        return Err(DecodeError::new(Kind::Native, 0, K::Truncated { expected }));
    };
    if header != config.header() {
        let kind = K::Unexpected {
            expected: config.header_text(),
            found: format!("header byte {header:#04x}").into(),
        };
        return Err(DecodeError::new(Kind::Native, 0, kind));
    }
    let max = config.limits.max_message_size;
    if input.len() > max {
        let kind = Limit::MessageSize.exceeded(&config.limits, Some(input.len()));
        return Err(DecodeError::new(Kind::Native, 0, kind));
    }
    if config.compressed {
        let limit = body
            .len()
            .saturating_mul(MAX_DEFLATE_RATIO)
            .saturating_add(64)
            .min(max);
        let plain = inflate(body, limit)?;
        de::read(&plain, config.compact, 0, &config.limits)
    } else {
        de::read(body, config.compact, 1, &config.limits)
    }
}
