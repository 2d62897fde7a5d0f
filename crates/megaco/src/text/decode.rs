//! Text decoder (skeleton: replaced by the real parser).
use crate::model::MegacoMessage;

/// Limits on what the decoder accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of braces.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_depth: 64 }
    }
}

/// A decode error with its position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {kind}")]
pub struct TextError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
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
    #[error("expected {expected}")]
    Expected {
        /// What was expected.
        expected: &'static str,
    },
}

/// Decodes a text message (pretty, compact or mixed).
pub fn decode(input: &[u8]) -> Result<MegacoMessage, TextError> {
    decode_with(input, &Limits::default())
}

/// Decodes a text message with explicit limits.
pub fn decode_with(_input: &[u8], _limits: &Limits) -> Result<MegacoMessage, TextError> {
    Err(TextError {
        line: 1,
        column: 1,
        offset: 0,
        kind: TextErrorKind::Expected { expected: "MEGACO" },
    })
}
