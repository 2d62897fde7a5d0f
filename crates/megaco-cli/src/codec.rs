//! Encoding selection for the CLI: sniffing input, decoding and encoding.

use std::fmt;

use clap::{Args, ValueEnum};
use megaco::ber::{BerConfig, Dialect, Mapping, TermIdLevels};
use megaco::codec::Kind;
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
    /// The model as JSON (`megaco::json`: `{"megaco_json": 1, "message": …}`).
    Json,
}

/// Encodings `convert --to` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Pretty text (long keywords, indented).
    Pretty,
    /// Compact text (short keywords, no optional whitespace).
    Compact,
    /// The model as JSON (`megaco::json`: `{"megaco_json": 1, "message": …}`).
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
    /// Guesses the encoding of a message ([`megaco::codec::sniff`]);
    /// whatever is neither text nor BER is taken for PER.
    pub fn sniff(bytes: &[u8]) -> Detected {
        match megaco::codec::sniff(bytes) {
            Some(Kind::Text) => Detected::Text,
            Some(Kind::Ber) => Detected::Ber,
            _ => Detected::Per,
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
    /// The JSON reader failed.
    Json(megaco::json::JsonError),
}

impl fmt::Display for DecodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeFailure::Text(e) => write!(f, "{}:{}: {}", e.line, e.column, e.kind),
            DecodeFailure::Ber(e) => write!(f, "{}: BER: {e}", e.offset()),
            DecodeFailure::Per(e) => write!(f, "{}: PER: {e}", e.byte_offset()),
            DecodeFailure::Json(megaco::json::JsonError::Syntax {
                line,
                column,
                message,
            }) => write!(f, "{line}:{column}: JSON: {message}"),
            DecodeFailure::Json(e) => write!(f, "JSON: {e}"),
        }
    }
}

impl std::error::Error for DecodeFailure {}

/// Margin before every snippet line.
const GUTTER: &str = "    | ";

impl DecodeFailure {
    /// Where the error is, as a byte offset into the input.
    pub fn offset(&self) -> usize {
        match self {
            DecodeFailure::Text(e) => e.offset,
            DecodeFailure::Ber(e) => e.offset(),
            DecodeFailure::Per(e) => e.byte_offset(),
            DecodeFailure::Json(_) => 0,
        }
    }

    /// The input around the error, for a terminal: for text the offending
    /// line with a caret under the column, for binary input a hex dump of
    /// up to 16 bytes with a caret under the byte. Each line starts with
    /// `    | ` and ends with a newline.
    pub fn snippet(&self, input: &[u8]) -> String {
        match self {
            DecodeFailure::Text(_) => text_snippet(input, self.offset()),
            _ => hex_snippet(input, self.offset()),
        }
    }
}

/// The line holding `offset` (tabs and unprintable bytes shown as one
/// character each, so the caret lines up), at most 100 columns of it.
fn text_snippet(input: &[u8], offset: usize) -> String {
    let offset = offset.min(input.len());
    let start = input[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = input[offset..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map_or(input.len(), |i| offset + i);
    // A window of the line when it is long.
    const WIDTH: usize = 100;
    let from = if offset - start > WIDTH - 20 {
        offset - (WIDTH - 20)
    } else {
        start
    };
    let to = end.min(from + WIDTH);
    let shown: String = input[from..to]
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                char::from(b)
            } else {
                ' '
            }
        })
        .collect();
    let lead = if from > start { "…" } else { "" };
    let tail = if to < end { "…" } else { "" };
    let pad = " ".repeat(offset - from + usize::from(from > start));
    format!("{GUTTER}{lead}{shown}{tail}\n{GUTTER}{pad}^\n")
}

/// Up to 16 bytes around `offset` in hex, a caret under the byte at
/// `offset` (or just past the last byte when the input ended there).
fn hex_snippet(input: &[u8], offset: usize) -> String {
    let offset = offset.min(input.len());
    let start = offset.saturating_sub(8).min(input.len().saturating_sub(16));
    let end = (start + 16).min(input.len());
    let hex: Vec<String> = input[start..end]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let label = format!("{start:06x}: ");
    let pad = " ".repeat(label.len() + 3 * (offset - start));
    let note = if offset == input.len() {
        " end of input"
    } else {
        ""
    };
    format!("{GUTTER}{label}{}\n{GUTTER}{pad}^^{note}\n", hex.join(" "))
}

/// Decodes one message.
pub fn decode(
    bytes: &[u8],
    from: InputFormat,
    cfg: &Configs,
) -> Result<(MegacoMessage, Detected), DecodeFailure> {
    if from == InputFormat::Json {
        let msg = megaco::json::from_slice(bytes).map_err(DecodeFailure::Json)?;
        return Ok((msg, Detected::Text));
    }
    let kind = match from {
        InputFormat::Auto | InputFormat::Json => Detected::sniff(bytes),
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
            let mut v = megaco::json::to_string_pretty(msg)?.into_bytes();
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
    fn snippets_point_at_the_error() {
        let e = megaco::text::decode(b"!/1 [1.2.3.4]\nT=1{\tC=x{}}").unwrap_err();
        let f = DecodeFailure::Text(e);
        assert_eq!(
            f.snippet(b"!/1 [1.2.3.4]\nT=1{\tC=x{}}"),
            "    | T=1{ C=x{}}\n    |        ^\n"
        );
        let bytes = (0u8..40).collect::<Vec<u8>>();
        assert_eq!(
            hex_snippet(&bytes, 20),
            format!(
                "    | 00000c: 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b\n    | {}^^\n",
                // "00000c: " then three columns for each of bytes 0c..13.
                " ".repeat(8 + 3 * 8)
            )
        );
        assert_eq!(
            hex_snippet(&bytes[..3], 3),
            format!(
                "    | 000000: 00 01 02\n    | {}^^ end of input\n",
                " ".repeat(8 + 3 * 3)
            )
        );
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
