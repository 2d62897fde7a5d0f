//! Encoding selection for the CLI: sniffing input, decoding and encoding.

use std::fmt;

use clap::{Args, ValueEnum};
use megaco::ber::{BerConfig, Dialect, Mapping, TermIdLevels};
use megaco::per::PerConfig;
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
    /// ASN.1 BER.
    Ber,
    /// ASN.1 aligned PER (as Erlang/OTP encodes it).
    Per,
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
    /// ASN.1 BER.
    Ber,
    /// ASN.1 aligned PER (as Erlang/OTP encodes it).
    Per,
}

impl OutputFormat {
    /// Whether the output is text meant for a terminal.
    pub fn is_text(self) -> bool {
        matches!(
            self,
            OutputFormat::Pretty | OutputFormat::Compact | OutputFormat::Json
        )
    }
}

/// How BER values are wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// RFC 3525 A.2 double-wrapped values (what Wireshark reads).
    Standard,
    /// Erlang/OTP's raw text octets (byte-identical to megaco_ber_encoder).
    Otp,
}

/// Options of the binary codecs.
#[derive(Debug, Clone, Args)]
pub struct BinaryOptions {
    /// BER value wrapping, on output and on input.
    #[arg(long, value_enum, default_value_t = DialectArg::Standard)]
    pub dialect: DialectArg,
    /// Bits per termination-id level (BER and PER), e.g. `8,8,8`.
    #[arg(long, value_delimiter = ',', default_value = "8,8,8")]
    pub levels: Vec<u8>,
    /// No name or termination-id mapping (OTP's `[native]` config): names
    /// and ids travel as their ASN.1 codes in `0x…` text form.
    #[arg(long)]
    pub native: bool,
}

impl Default for BinaryOptions {
    fn default() -> Self {
        BinaryOptions {
            dialect: DialectArg::Standard,
            levels: vec![8, 8, 8],
            native: false,
        }
    }
}

/// The codec configurations the options select.
pub struct Configs {
    ber: BerConfig,
    per: PerConfig,
}

impl BinaryOptions {
    /// Builds the codec configurations, checking the level widths.
    pub fn configs(&self) -> anyhow::Result<Configs> {
        let mapping = if self.native {
            Mapping::Native
        } else {
            Mapping::Text(
                TermIdLevels::new(&self.levels)
                    .map_err(|e| anyhow::anyhow!("--levels {:?}: {e}", self.levels))?,
            )
        };
        let dialect = match self.dialect {
            DialectArg::Standard => Dialect::Standard,
            DialectArg::Otp => Dialect::Otp,
        };
        Ok(Configs {
            ber: BerConfig {
                dialect,
                mapping: mapping.clone(),
                ..BerConfig::default()
            },
            per: PerConfig {
                mapping,
                ..PerConfig::default()
            },
        })
    }
}

/// What the bytes look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    /// Text, pretty or compact.
    Text,
    /// Starts like a BER `MegacoMessage` (a SEQUENCE).
    Ber,
    /// Anything else: PER has no signature.
    Per,
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
        } else if bytes.first() == Some(&0x30) {
            Detected::Ber
        } else {
            Detected::Per
        }
    }
}

impl fmt::Display for Detected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Detected::Text => "text",
            Detected::Ber => "ber",
            Detected::Per => "per",
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

/// A decode failure, printed after `file:` as `line:col: message` for text
/// and `offset: message` for binary input.
#[derive(Debug)]
pub enum DecodeFailure {
    /// The text decoder failed.
    Text(megaco::text::TextError),
    /// The BER decoder failed.
    Ber(megaco::ber::BerError),
    /// The PER decoder failed.
    Per(megaco::per::PerError),
}

impl fmt::Display for DecodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeFailure::Text(e) => write!(f, "{}:{}: {}", e.line, e.column, e.kind),
            DecodeFailure::Ber(e) => write!(f, "{}: BER: {e}", e.offset()),
            DecodeFailure::Per(e) => write!(f, "{}: PER: {e}", e.byte_offset()),
        }
    }
}

impl std::error::Error for DecodeFailure {}

/// Decodes one message.
pub fn decode(
    bytes: &[u8],
    from: InputFormat,
    cfg: &Configs,
) -> Result<(MegacoMessage, Detected), DecodeFailure> {
    let kind = match from {
        InputFormat::Auto => Detected::sniff(bytes),
        InputFormat::Pretty | InputFormat::Compact => Detected::Text,
        InputFormat::Ber => Detected::Ber,
        InputFormat::Per => Detected::Per,
    };
    let text = || megaco::text::decode(bytes).map_err(DecodeFailure::Text);
    let ber = || megaco::ber::decode(bytes, &cfg.ber).map_err(DecodeFailure::Ber);
    let per = || megaco::per::decode(bytes, &cfg.per).map_err(DecodeFailure::Per);
    let result = match (from, kind) {
        (InputFormat::Auto, Detected::Ber) => {
            // A PER message can start with 0x30 too: fall back, but report
            // the BER error if neither reads it.
            ber().or_else(|e| per().map_err(|_| e))
        }
        (InputFormat::Auto, Detected::Per) => {
            // Neither text nor BER: PER, or else text's error says where the
            // bytes stop looking like a message.
            per().or_else(|e| if bytes.is_ascii() { text() } else { Err(e) })
        }
        (_, Detected::Text) => text(),
        (_, Detected::Ber) => ber(),
        (_, Detected::Per) => per(),
    };
    result.map(|m| (m, kind))
}

/// Encodes one message.
pub fn encode(msg: &MegacoMessage, to: OutputFormat, cfg: &Configs) -> anyhow::Result<Vec<u8>> {
    Ok(match to {
        OutputFormat::Pretty => megaco::text::encode_pretty(msg)?,
        OutputFormat::Compact => megaco::text::encode_compact(msg)?,
        OutputFormat::Ber => megaco::ber::encode(msg, &cfg.ber)?,
        OutputFormat::Per => megaco::per::encode(msg, &cfg.per)?,
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
        assert_eq!(Detected::sniff(b"\x30\x81"), Detected::Ber);
        assert_eq!(Detected::sniff(b"\x00\x01"), Detected::Per);
        assert_eq!(Detected::sniff(b""), Detected::Per);
    }

    #[test]
    fn levels_are_checked() {
        let bad = BinaryOptions {
            levels: vec![],
            ..BinaryOptions::default()
        };
        assert!(bad.configs().is_err());
        assert!(BinaryOptions::default().configs().is_ok());
    }
}
