//! Text encoders (skeleton: replaced by the real encoders).
use crate::{EncodeError, MegacoMessage};

/// Which text form to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// Long keywords, indented.
    Pretty,
    /// Short keywords, no optional whitespace.
    Compact,
}

/// Appends the text encoding of `msg` in `style` to `out`.
pub fn encode(msg: &MegacoMessage, style: Style, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let _ = (msg, style, out);
    Err(EncodeError::UnsupportedVersion(0))
}

/// The pretty text encoding of `msg`.
pub fn encode_pretty(msg: &MegacoMessage) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode(msg, Style::Pretty, &mut out)?;
    Ok(out)
}

/// The compact text encoding of `msg`.
pub fn encode_compact(msg: &MegacoMessage) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode(msg, Style::Compact, &mut out)?;
    Ok(out)
}
