//! The errors of the codecs: one [`DecodeError`] for every decoder, one
//! [`EncodeError`] for every encoder.
//!
//! A [`DecodeError`] is where the input went wrong (a byte offset, and for
//! text the line and column, for PER the bit) and what went wrong, a
//! [`DecodeErrorKind`]. The kinds are shared by all codecs, so code that
//! reacts to an error (answer 406 to a version it cannot speak, raise a
//! limit, log the position) reads the same fields whatever the encoding:
//!
//! ```
//! use megaco::codec::{DecodeErrorKind, Encoding, Kind, Limit};
//! use megaco::Limits;
//!
//! let tight = Limits { max_depth: 2, ..Limits::DEFAULT };
//! let msg = megaco::text::decode(b"!/1 [10.0.0.1]:2944 T=1{C=1{MF=ROOT{E=5{al/on}}}}").unwrap();
//! let bytes = Encoding::ber().encode(&msg).unwrap();
//! let cfg = megaco::ber::BerConfig { limits: tight, ..megaco::ber::BerConfig::otp() };
//! let err = Encoding::Ber(cfg).decode(&bytes).unwrap_err();
//! assert_eq!(err.codec(), Kind::Ber);
//! assert_eq!(err.exceeded_limit(), Some(Limit::Depth));
//! assert!(matches!(err.kind(), DecodeErrorKind::LimitExceeded { max: 2, .. }));
//! assert!(err.to_string().starts_with("BER at byte "), "{err}");
//! assert!(err.to_string().ends_with(": nesting deeper than the limit (max_depth = 2)"));
//! ```
//!
//! The error is one pointer wide (its parts are boxed, as in
//! `hickory-proto`'s `ProtoError`), so that decoders pass their results
//! through `?` without moving a large error around on every call.

use std::borrow::Cow;
use std::fmt;

use crate::codec::Kind;

/// Why a message could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The message uses something its protocol version cannot carry.
    #[error(
        "{construct} needs protocol version {needs} or later, but the message is version {version}"
    )]
    Version {
        /// What was found, e.g. `"Topology stream"`.
        construct: &'static str,
        /// The message's version.
        version: u8,
        /// The first version that has it.
        needs: u8,
    },
    /// The protocol version itself is not one this crate speaks (1 to 3).
    #[error("unsupported protocol version {0} (this codec speaks 1 to 3)")]
    UnsupportedVersion(u8),
    /// A value cannot be written in this encoding.
    #[error("cannot encode {what}: {detail}")]
    Invalid {
        /// Which field.
        what: &'static str,
        /// Why.
        detail: String,
    },
}

/// [`EncodeError::Invalid`]: `what` cannot be written, and why.
pub(crate) fn invalid(what: &'static str, detail: impl ToString) -> EncodeError {
    EncodeError::Invalid {
        what,
        detail: detail.to_string(),
    }
}

/// Why bytes could not be decoded, where, and by which codec.
///
/// Build one with [`DecodeError::new`] (byte offset),
/// [`DecodeError::text`] (line and column derived from the offset) or
/// [`DecodeError::per`] (bit offset); read it with [`kind`](Self::kind),
/// [`offset`](Self::offset), [`line_column`](Self::line_column),
/// [`bit_offset`](Self::bit_offset) and [`codec`](Self::codec).
///
/// `Display` prints the codec, the position and the kind:
/// `BER at byte 4: invalid value, expected SecurityParmIndex (4 octets)`,
/// `text at line 2, column 7: expected a context id, found `x``.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<Repr>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Repr {
    codec: Kind,
    offset: usize,
    at: At,
    kind: DecodeErrorKind,
}

/// How the position prints, beyond the byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Byte,
    Line { line: u32, column: u32 },
    Bit(usize),
}

impl DecodeError {
    /// An error at byte `offset` of the input (BER, native, or anything
    /// without lines or bits).
    #[cold]
    pub fn new(codec: Kind, offset: usize, kind: DecodeErrorKind) -> Self {
        DecodeError(Box::new(Repr {
            codec,
            offset,
            at: At::Byte,
            kind,
        }))
    }

    /// A text error at byte `offset` of `input`; the line and column
    /// (1-based, the column in bytes) are derived from the offset.
    ///
    /// ```
    /// use megaco::codec::{DecodeError, DecodeErrorKind};
    ///
    /// let input = b"!/1 [10.0.0.1]\nT=1{C=x{}}";
    /// let e = DecodeError::text(input, 21, DecodeErrorKind::Missing { what: "a context id" });
    /// assert_eq!(e.line_column(), Some((2, 7)));
    /// assert_eq!(e.to_string(), "text at line 2, column 7: missing a context id");
    /// ```
    #[cold]
    pub fn text(input: &[u8], offset: usize, kind: DecodeErrorKind) -> Self {
        let at = offset.min(input.len());
        let before = &input[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = u32::try_from(line).unwrap_or(u32::MAX);
        let column = u32::try_from(at - line_start + 1).unwrap_or(u32::MAX);
        Self::text_at(offset, line, column, kind)
    }

    /// A text error whose line and column the caller already knows.
    #[cold]
    pub fn text_at(offset: usize, line: u32, column: u32, kind: DecodeErrorKind) -> Self {
        DecodeError(Box::new(Repr {
            codec: Kind::Text,
            offset,
            at: At::Line { line, column },
            kind,
        }))
    }

    /// A PER error at bit `bit_offset` of the input; [`offset`](Self::offset)
    /// is the byte holding that bit.
    #[cold]
    pub fn per(bit_offset: usize, kind: DecodeErrorKind) -> Self {
        DecodeError(Box::new(Repr {
            codec: Kind::Per,
            offset: bit_offset / 8,
            at: At::Bit(bit_offset),
            kind,
        }))
    }

    /// What went wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.0.kind
    }

    /// Which codec failed.
    pub fn codec(&self) -> Kind {
        self.0.codec
    }

    /// Where the input went wrong, as a 0-based byte offset into it (for
    /// PER, the byte holding the offending bit; for the compressed native
    /// configurations, an offset into the decompressed body).
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// For text, the 1-based line and column (in bytes) of the error.
    pub fn line_column(&self) -> Option<(u32, u32)> {
        match self.0.at {
            At::Line { line, column } => Some((line, column)),
            _ => None,
        }
    }

    /// For PER, the 0-based bit offset of the error.
    pub fn bit_offset(&self) -> Option<usize> {
        match self.0.at {
            At::Bit(b) => Some(b),
            _ => None,
        }
    }

    /// Which of the [`Limits`](crate::Limits) the input exceeded, if that
    /// is what went wrong.
    pub fn exceeded_limit(&self) -> Option<Limit> {
        match self.0.kind {
            DecodeErrorKind::LimitExceeded { limit, .. } => Some(limit),
            _ => None,
        }
    }

    /// The protocol version the message announced, when the error is that
    /// this crate does not speak it (a peer answers 406 to it).
    pub fn unsupported_version(&self) -> Option<u64> {
        match self.0.kind {
            DecodeErrorKind::UnsupportedVersion { version } => Some(version),
            _ => None,
        }
    }

    /// The same error at another offset (a decoder reading a part of its
    /// input, such as a decompressed body, moves it to its place).
    #[must_use]
    pub fn shifted(mut self, by: usize) -> Self {
        self.0.offset += by;
        if let At::Bit(b) = &mut self.0.at {
            *b += by * 8;
        }
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let codec = match self.0.codec {
            Kind::Text => "text",
            Kind::Ber => "BER",
            Kind::Per => "PER",
            Kind::Native => "native",
        };
        match self.0.at {
            At::Byte => write!(f, "{codec} at byte {}: ", self.0.offset)?,
            At::Line { line, column } => write!(f, "{codec} at line {line}, column {column}: ")?,
            At::Bit(bit) => write!(f, "{codec} at byte {} (bit {bit}): ", self.0.offset)?,
        }
        self.0.kind.fmt(f)
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("DecodeError");
        d.field("codec", &self.0.codec)
            .field("offset", &self.0.offset);
        match self.0.at {
            At::Byte => {}
            At::Line { line, column } => {
                d.field("line", &line).field("column", &column);
            }
            At::Bit(b) => {
                d.field("bit_offset", &b);
            }
        }
        d.field("kind", &self.0.kind).finish()
    }
}

impl std::error::Error for DecodeError {}

/// What went wrong in a [`DecodeError`]. The kinds are shared by the
/// codecs; each says which ones it reports (see `docs/errors.md` for an
/// input producing each, per codec).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ends before the message does.
    #[error("unexpected end of input, expected {expected}")]
    Truncated {
        /// What was being read.
        expected: &'static str,
    },
    /// A binary tag other than the ones allowed here.
    #[error("unexpected tag {tag:#04x}, expected {expected}")]
    UnexpectedTag {
        /// What was expected.
        expected: &'static str,
        /// The (first) tag octet found.
        tag: u8,
    },
    /// Something other than what the encoding allows here.
    #[error("expected {expected}, found {found}")]
    Unexpected {
        /// What was expected.
        expected: &'static str,
        /// What was found: a short excerpt, quoted with backticks, or a
        /// byte in hex.
        found: Cow<'static, str>,
    },
    /// A text word that is not one of the keywords allowed here.
    #[error("expected {expected}, found unknown keyword `{found}`")]
    UnknownKeyword {
        /// What was expected.
        expected: &'static str,
        /// The word found.
        found: String,
    },
    /// A length that is malformed or runs past its container.
    #[error("bad length: {detail}")]
    BadLength {
        /// What is wrong with it.
        detail: Cow<'static, str>,
    },
    /// A value that does not have the form its type requires.
    #[error("invalid value, expected {expected}")]
    BadValue {
        /// What a valid value is.
        expected: &'static str,
    },
    /// Text that should be a decimal number and is not.
    #[error("invalid number for {what}: `{found}`")]
    InvalidNumber {
        /// Which field.
        what: &'static str,
        /// The text found.
        found: String,
    },
    /// A number outside the range of its field.
    #[error(
        "{what} out of range{}{}",
        OrEmpty(found, ": `", "`"),
        OrEmpty(max, " (at most ", ")")
    )]
    OutOfRange {
        /// Which field.
        what: &'static str,
        /// The value found, when the codec keeps it.
        found: Option<String>,
        /// The largest value allowed, when there is a single one.
        max: Option<u64>,
    },
    /// A malformed value (an address, a name, a compressed body, ...).
    #[error("invalid {what}: {detail}")]
    Invalid {
        /// Which field.
        what: &'static str,
        /// Why, or the value found.
        detail: Cow<'static, str>,
    },
    /// An item that may appear at most once appears again.
    #[error("{what} given more than once")]
    Duplicate {
        /// Which item.
        what: &'static str,
    },
    /// A mandatory item is absent.
    #[error("missing {what}")]
    Missing {
        /// Which item.
        what: &'static str,
    },
    /// Text that is not UTF-8 where UTF-8 is required.
    #[error("text is not valid UTF-8")]
    InvalidUtf8,
    /// The message's protocol version is not 1, 2 or 3.
    #[error("unsupported protocol version {version} (this decoder speaks 1 to 3)")]
    UnsupportedVersion {
        /// The version the message announces.
        version: u64,
    },
    /// Bytes after the end of the message.
    #[error("{len} bytes after the end of the message")]
    TrailingData {
        /// How many.
        len: usize,
    },
    /// The input exceeds one of the decoder's [`Limits`](crate::Limits);
    /// raise that limit to accept it.
    #[error("{}", LimitText { limit: *limit, max: *max, found: *found })]
    LimitExceeded {
        /// Which limit.
        limit: Limit,
        /// Its value.
        max: usize,
        /// The size, depth or length found, when the decoder knows it
        /// (a list counted as it is read stops at `max + 1`).
        found: Option<usize>,
    },
    /// A value the configured mapping cannot express in the model (a
    /// termination id that does not fit the level widths, ...).
    #[error("cannot map {what}: {detail}")]
    Unmappable {
        /// Which field.
        what: &'static str,
        /// Why.
        detail: String,
    },
    /// Something this build cannot do with these bytes, such as a
    /// borrowed view of an encoding that has none.
    #[error("not supported: {what}")]
    Unsupported {
        /// What was asked for.
        what: &'static str,
    },
}

/// `prefix value suffix` for `Some(value)`, nothing for `None`.
struct OrEmpty<'a, T>(&'a Option<T>, &'static str, &'static str);

impl<T: fmt::Display> fmt::Display for OrEmpty<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => write!(f, "{}{v}{}", self.1, self.2),
            None => Ok(()),
        }
    }
}

/// One of the bounds of [`Limits`](crate::Limits); `Display` prints the
/// field's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limit {
    /// [`Limits::max_message_size`](crate::Limits::max_message_size).
    MessageSize,
    /// [`Limits::max_depth`](crate::Limits::max_depth).
    Depth,
    /// [`Limits::max_list_len`](crate::Limits::max_list_len).
    ListLen,
    /// [`Limits::max_string_len`](crate::Limits::max_string_len).
    StringLen,
}

impl Limit {
    /// The name of the [`Limits`](crate::Limits) field.
    pub fn name(self) -> &'static str {
        match self {
            Limit::MessageSize => "max_message_size",
            Limit::Depth => "max_depth",
            Limit::ListLen => "max_list_len",
            Limit::StringLen => "max_string_len",
        }
    }

    /// Its value in `limits`.
    pub fn of(self, limits: &crate::Limits) -> usize {
        match self {
            Limit::MessageSize => limits.max_message_size,
            Limit::Depth => limits.max_depth,
            Limit::ListLen => limits.max_list_len,
            Limit::StringLen => limits.max_string_len,
        }
    }

    /// The error kind for input exceeding this limit of `limits`, with
    /// the size, depth or length `found` when known.
    pub fn exceeded(self, limits: &crate::Limits, found: Option<usize>) -> DecodeErrorKind {
        DecodeErrorKind::LimitExceeded {
            limit: self,
            max: self.of(limits),
            found,
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

struct LimitText {
    limit: Limit,
    max: usize,
    found: Option<usize>,
}

impl fmt::Display for LimitText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match (self.limit, self.found) {
            (Limit::MessageSize, Some(n)) => format!("message of {n} bytes exceeds"),
            (Limit::MessageSize, None) => "message expands beyond".to_string(),
            (Limit::Depth, _) => "nesting deeper than".to_string(),
            (Limit::ListLen, Some(n)) => format!("list of {n} items exceeds"),
            (Limit::ListLen, None) => "list longer than".to_string(),
            (Limit::StringLen, Some(n)) => format!("string of {n} bytes exceeds"),
            (Limit::StringLen, None) => "string longer than".to_string(),
        };
        write!(f, "{what} the limit ({} = {})", self.limit, self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pointer_wide() {
        assert_eq!(
            std::mem::size_of::<DecodeError>(),
            std::mem::size_of::<usize>()
        );
        assert_eq!(
            std::mem::size_of::<Result<(), DecodeError>>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn positions_print_per_codec() {
        let k = || DecodeErrorKind::Missing { what: "x" };
        assert_eq!(
            DecodeError::new(Kind::Ber, 4, k()).to_string(),
            "BER at byte 4: missing x"
        );
        assert_eq!(
            DecodeError::per(13, k()).to_string(),
            "PER at byte 1 (bit 13): missing x"
        );
        let t = DecodeError::text(b"a\nbc", 3, k());
        assert_eq!((t.offset(), t.line_column()), (3, Some((2, 2))));
        assert_eq!(t.to_string(), "text at line 2, column 2: missing x");
        let n = DecodeError::new(Kind::Native, 2, k()).shifted(1);
        assert_eq!((n.offset(), n.codec()), (3, Kind::Native));
        assert_eq!(DecodeError::per(13, k()).shifted(1).bit_offset(), Some(21));
    }

    #[test]
    fn out_of_range_prints_what_it_has() {
        let k = DecodeErrorKind::OutOfRange {
            what: "a transaction id",
            found: Some("4294967296".into()),
            max: Some(4294967295),
        };
        assert_eq!(
            k.to_string(),
            "a transaction id out of range: `4294967296` (at most 4294967295)"
        );
        let k = DecodeErrorKind::OutOfRange {
            what: "MId",
            found: None,
            max: None,
        };
        assert_eq!(k.to_string(), "MId out of range");
    }

    #[test]
    fn limits_name_the_field_to_raise() {
        let limits = crate::Limits {
            max_list_len: 2,
            ..crate::Limits::DEFAULT
        };
        let k = Limit::ListLen.exceeded(&limits, Some(3));
        assert_eq!(
            k.to_string(),
            "list of 3 items exceeds the limit (max_list_len = 2)"
        );
        let e = DecodeError::new(Kind::Text, 0, k);
        assert_eq!(e.exceeded_limit(), Some(Limit::ListLen));
        assert_eq!(e.unsupported_version(), None);
    }
}
