//! The text decoder's error: what went wrong and where (byte offset, and
//! the line and column a person looks for).

/// A decode error with its position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {kind}")]
pub struct TextError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in bytes).
    pub column: u32,
    /// 0-based byte offset.
    pub offset: usize,
    /// What went wrong.
    pub kind: TextErrorKind,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TextErrorKind {
    /// Something else was expected here.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What was expected.
        expected: &'static str,
        /// What was found (a short excerpt, or `end of input`).
        found: String,
    },
    /// A word that is not one of the keywords allowed here.
    #[error("expected {expected}, found unknown keyword `{found}`")]
    UnknownKeyword {
        /// What was expected.
        expected: &'static str,
        /// The word found.
        found: String,
    },
    /// The input ended in the middle of the message.
    #[error("unexpected end of input, expected {expected}")]
    UnexpectedEof {
        /// What was expected.
        expected: &'static str,
    },
    /// Not a decimal number.
    #[error("invalid number for {what}: `{found}`")]
    InvalidNumber {
        /// Which field.
        what: &'static str,
        /// The text found.
        found: String,
    },
    /// A number too large for its field.
    #[error("{what} out of range: `{found}` (at most {max})")]
    OutOfRange {
        /// Which field.
        what: &'static str,
        /// The text found.
        found: String,
        /// The largest value allowed.
        max: u64,
    },
    /// A malformed value (address, name, time stamp, ...).
    #[error("invalid {what}: `{found}`")]
    Invalid {
        /// Which field.
        what: &'static str,
        /// The text found.
        found: String,
    },
    /// An item that may appear at most once appeared again.
    #[error("{what} given more than once")]
    Duplicate {
        /// Which item.
        what: &'static str,
    },
    /// A required item is missing.
    #[error("missing {what}")]
    Missing {
        /// Which item.
        what: &'static str,
    },
    /// Nesting deeper than [`Limits::max_depth`](crate::Limits::max_depth).
    #[error("nesting deeper than {max} levels")]
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// The message is larger than
    /// [`Limits::max_message_size`](crate::Limits::max_message_size).
    #[error("message of {size} bytes exceeds the limit of {max} bytes")]
    TooLarge {
        /// The message size.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// A list longer than [`Limits::max_list_len`](crate::Limits::max_list_len).
    #[error("more than {max} items in a list")]
    TooManyItems {
        /// The limit.
        max: usize,
    },
    /// A word, quoted string or `{ }` text (SDP, digit map, ...) longer
    /// than [`Limits::max_string_len`](crate::Limits::max_string_len).
    #[error("string of {len} bytes is longer than {max} bytes")]
    StringTooLong {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Bytes that are not UTF-8 (the grammar allows non-ASCII bytes only
    /// in SDP, which the model holds as text).
    #[error("text is not valid UTF-8")]
    InvalidUtf8,
    /// A protocol version other than 1, 2 or 3.
    #[error("unsupported protocol version {0} (this decoder speaks 1 to 3)")]
    UnsupportedVersion(u32),
}

impl TextError {
    /// The error `kind` at byte offset `at` of `input`, with its line and
    /// column.
    pub(crate) fn at(input: &[u8], at: usize, kind: TextErrorKind) -> TextError {
        let at = at.min(input.len());
        let before = &input[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        TextError {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(at - line_start + 1).unwrap_or(u32::MAX),
            offset: at,
            kind,
        }
    }
}

/// A short printable excerpt for error messages.
pub(crate) fn excerpt(w: &[u8]) -> String {
    let n = w.len().min(32);
    let mut s: String = w[..n]
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                char::from(b)
            } else {
                '?'
            }
        })
        .collect();
    if w.len() > n {
        s.push('…');
    }
    s
}
