//! Encoding selection for the CLI: sniffing input, decoding and encoding.

use std::fmt;

use clap::ValueEnum;
use megaco::MegacoMessage;

/// Encodings `convert --from` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// Sniff the encoding from the bytes.
    Auto,
    /// Pretty text.
    Pretty,
    /// Compact text.
    Compact,
}

/// Encodings `convert --to` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Pretty text (long keywords, indented).
    Pretty,
    /// Compact text (short keywords, no optional whitespace).
    Compact,
    /// The model as JSON.
    Json,
}

/// What the bytes look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    /// Text, pretty or compact.
    Text,
    /// Not recognised as any encoding.
    Unknown,
}

impl Detected {
    /// Guesses the encoding of a message.
    pub fn sniff(bytes: &[u8]) -> Detected {
        let mut rest = bytes;
        // Leading whitespace and `;` comments are allowed before the header.
        loop {
            match rest.first() {
                Some(b) if b.is_ascii_whitespace() => rest = &rest[1..],
                Some(b';') => {
                    let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                    rest = &rest[end..];
                }
                _ => break,
            }
        }
        let starts = |p: &[u8]| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p);
        if starts(b"MEGACO/") || starts(b"!/") || starts(b"AUTHENTICATION") || starts(b"AU=") {
            Detected::Text
        } else {
            Detected::Unknown
        }
    }
}

impl fmt::Display for Detected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Detected::Text => "text",
            Detected::Unknown => "unknown",
        })
    }
}

/// Whether the bytes look like an OTP corpus term file rather than one
/// message.
pub fn looks_like_term_file(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{' || b == b'%')
}

/// A decode failure, printed after `file:` as `line:col: message` for text.
#[derive(Debug)]
pub enum DecodeFailure {
    /// The text decoder failed.
    Text(megaco::text::TextError),
}

impl fmt::Display for DecodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeFailure::Text(e) => write!(f, "{}:{}: {}", e.line, e.column, e.kind),
        }
    }
}

impl std::error::Error for DecodeFailure {}

/// Decodes one message.
pub fn decode(bytes: &[u8], from: InputFormat) -> Result<MegacoMessage, DecodeFailure> {
    let kind = match from {
        InputFormat::Auto => Detected::sniff(bytes),
        InputFormat::Pretty | InputFormat::Compact => Detected::Text,
    };
    match kind {
        // Unrecognised bytes go to the text decoder too: its error says
        // where they stop looking like a message.
        Detected::Text | Detected::Unknown => {
            megaco::text::decode(bytes).map_err(DecodeFailure::Text)
        }
    }
}

/// Encodes one message.
pub fn encode(msg: &MegacoMessage, to: OutputFormat) -> anyhow::Result<Vec<u8>> {
    Ok(match to {
        OutputFormat::Pretty => megaco::text::encode_pretty(msg)?,
        OutputFormat::Compact => megaco::text::encode_compact(msg)?,
        OutputFormat::Json => {
            let mut v = serde_json::to_vec_pretty(msg)?;
            v.push(b'\n');
            v
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_text_after_comments_and_whitespace() {
        assert_eq!(Detected::sniff(b"MEGACO/1 [1.2.3.4]"), Detected::Text);
        assert_eq!(Detected::sniff(b"  ; hi\n!/1 [1.2.3.4]"), Detected::Text);
        assert_eq!(Detected::sniff(b"megaco/3 <a>"), Detected::Text);
        assert_eq!(Detected::sniff(b"\x30\x81"), Detected::Unknown);
        assert_eq!(Detected::sniff(b""), Detected::Unknown);
    }
}
