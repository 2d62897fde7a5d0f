//! Reading and writing messages for `convert`, `check` and `send`: the
//! encodings by the library's names ([`megaco::codec::Encoding`]), what
//! bytes that are no Megaco message look like, and errors that say so.

use std::fmt;
use std::str::FromStr;

use clap::{Args, ValueEnum};
use megaco::ber::{Dialect, Mapping, TermIdLevels};
use megaco::codec::{self, DecodeError, Encoding, Kind};
use megaco::MegacoMessage;

/// What `convert --from` takes: `auto`, an encoding, or the model as JSON.
#[derive(Debug, Clone)]
pub enum Input {
    /// Recognise the encoding by the bytes' signature (the JSON form by
    /// its opening `{"`).
    Auto,
    /// The model as JSON (`megaco::json`: `{"megaco_json": 1, "message": …}`).
    Json,
    /// This encoding.
    Known(Encoding),
}

impl FromStr for Input {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Input::Auto),
            "json" => Ok(Input::Json),
            // Text is read the same whatever its style.
            "text" => Ok(Input::Known(Encoding::pretty())),
            _ => s
                .parse()
                .map(Input::Known)
                .map_err(|e| format!("{e}, auto, text, json")),
        }
    }
}

/// What `convert --to` writes: an encoding, or the model as JSON.
#[derive(Debug, Clone)]
pub enum Output {
    /// The decoded model as JSON.
    Json,
    /// This encoding.
    Wire(Encoding),
}

impl FromStr for Output {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "json" => Ok(Output::Json),
            _ => s
                .parse()
                .map(Output::Wire)
                .map_err(|e| format!("{e}, json")),
        }
    }
}

impl Output {
    /// Whether the output is text (ends with a newline unless `--exact`;
    /// fit for a terminal).
    pub fn is_text(&self) -> bool {
        match self {
            Output::Json => true,
            Output::Wire(e) => e.is_text(),
        }
    }
}

impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Output::Json => f.write_str("json"),
            Output::Wire(e) => e.fmt(f),
        }
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

/// Options of the binary codecs, applied to the encoding read and the one
/// written.
#[derive(Debug, Clone, Default, Args)]
pub struct BinaryOptions {
    /// BER value wrapping of the messages read (and, for `convert`,
    /// written) [default: the encoding's: standard for `ber`, otp for
    /// `ber-otp`]; the standard decoder also reads OTP's values. With an
    /// encoding named `ber-otp` or `ber-native` (OTP's dialect by name),
    /// `standard` is refused.
    #[arg(long, value_enum)]
    pub dialect: Option<DialectArg>,
    /// Bits per termination-id level (BER and PER), e.g. `8,8,8`
    /// [default: 8,8,8]. Not with --native, nor with the `-native`
    /// encodings, which map no termination ids.
    #[arg(long, value_delimiter = ',')]
    pub levels: Option<Vec<u8>>,
    /// No name or termination-id mapping (OTP's `[native]` config): names
    /// and ids travel as their ASN.1 codes in `0x…` text form.
    #[arg(long)]
    pub native: bool,
}

impl BinaryOptions {
    /// `encoding` with these options applied (BER and PER only).
    pub fn apply(&self, encoding: Encoding) -> anyhow::Result<Encoding> {
        let named = encoding.slug();
        // Level widths belong to the termination-id mapping: --native and
        // the `-native` encodings have none, and --levels would silently
        // bring it back (or be ignored).
        let mapping = |current: Mapping| -> anyhow::Result<Mapping> {
            match (&self.levels, self.native, &current) {
                (Some(_), true, _) => anyhow::bail!(
                    "--levels and --native contradict each other: --native turns off the \
                     termination-id mapping whose level widths --levels sets"
                ),
                (Some(_), false, Mapping::Native) => {
                    let name = named.unwrap_or("the encoding");
                    anyhow::bail!(
                        "--levels contradicts {name}, which maps no termination ids: use `{}` \
                         with --levels instead (or leave --levels out)",
                        name.trim_end_matches("-native")
                    )
                }
                (_, true, _) => Ok(Mapping::Native),
                (Some(levels), false, _) => {
                    // The error names the levels itself.
                    Ok(Mapping::Text(
                        TermIdLevels::new(levels).map_err(|e| anyhow::anyhow!("--levels: {e}"))?,
                    ))
                }
                (None, false, _) => Ok(current),
            }
        };
        // The name given says which dialect: `ber` takes --dialect otp,
        // but `ber-otp` (and `ber-native`, OTP's layout) with --dialect
        // standard would contradict it.
        Ok(match encoding {
            Encoding::Ber(mut c) => {
                if let Some(d) = self.dialect {
                    let wanted = match d {
                        DialectArg::Standard => Dialect::Standard,
                        DialectArg::Otp => Dialect::Otp,
                    };
                    if c.dialect == Dialect::Otp && wanted == Dialect::Standard {
                        anyhow::bail!(
                            "--dialect standard contradicts {}, which is BER in Erlang/OTP's \
                             dialect: for standard BER use `ber` instead (or leave --dialect out)",
                            named.unwrap_or("the encoding")
                        );
                    }
                    c.dialect = wanted;
                }
                c.mapping = mapping(c.mapping)?;
                Encoding::Ber(c)
            }
            Encoding::Per(mut c) => {
                c.mapping = mapping(c.mapping)?;
                Encoding::Per(c)
            }
            other => other,
        })
    }
}

/// Whether the bytes look like an OTP corpus term file rather than one
/// message: `{` (then an atom, `{pretty, [...]}.`) or a `%` comment.
/// JSON, which starts with `{"`, is not one.
pub fn looks_like_term_file(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{' || b == b'%')
        && !looks_like_json(bytes)
}

/// Whether the bytes look like the model as JSON (`convert --to json`,
/// `{"megaco_json": 1, …}`): `{` then `"`, white space allowed before
/// and between. An Erlang term file has an atom there (`{pretty` or
/// `{'...'`), never a double quote.
pub fn looks_like_json(bytes: &[u8]) -> bool {
    let mut rest = bytes.iter().filter(|b| !b.is_ascii_whitespace());
    rest.next() == Some(&b'{') && rest.next() == Some(&b'"')
}

/// Why the bytes given are not a message that could be read.
#[derive(Debug)]
pub enum InputError {
    /// The bytes are no Megaco message at all: why, as
    /// [`megaco::codec::not_a_message`] and
    /// [`megaco::codec::without_signature`] say it.
    NotMegaco(String),
    /// The JSON reader failed (`--from json`).
    Json(megaco::json::JsonError),
    /// A decoder failed.
    Decode {
        /// The encoding tried.
        encoding: Encoding,
        /// Its error.
        error: DecodeError,
        /// Whether the encoding was guessed (PER has no signature).
        guessed: bool,
        /// What the bytes look like, when that is another encoding than
        /// the one given.
        hint: Option<String>,
    },
}

impl InputError {
    /// The error after the input's name: `NAME:LINE:COL: message` for
    /// text, `NAME:OFFSET: message` for binary input, `NAME: message` when
    /// the input is no Megaco message.
    pub fn located(&self, name: &str) -> String {
        match self {
            InputError::NotMegaco(why) => format!("{name}: {why}"),
            InputError::Json(e @ megaco::json::JsonError::Syntax { line, column, .. })
                if *line > 0 =>
            {
                format!("{name}:{line}:{column}: JSON: {}", e.without_position())
            }
            InputError::Json(e) => format!("{name}: JSON: {e}"),
            InputError::Decode {
                encoding,
                error,
                guessed,
                hint,
            } => {
                let at = match error.line_column() {
                    Some((line, column)) => format!("{line}:{column}"),
                    None => error.offset().to_string(),
                };
                let what = match error.codec() {
                    Kind::Text => error.kind().to_string(),
                    _ => error.to_string(),
                };
                let mut s = if *guessed {
                    format!(
                        "{name}:{at}: not a Megaco message? It has no text or BER signature, \
                         and read as {encoding} (the only encoding without one) it fails: {what}"
                    )
                } else {
                    format!("{name}:{at}: {what}")
                };
                if let Some(h) = hint {
                    s.push_str(&format!(" ({h})"));
                }
                s
            }
        }
    }

    /// The input around the error, for a terminal (see [`text_snippet`]
    /// and [`hex_snippet`]); empty when the input is no Megaco message.
    pub fn snippet(&self, input: &[u8]) -> String {
        match self {
            InputError::Decode { error, .. } if error.codec() == Kind::Text => {
                text_snippet(input, error.offset())
            }
            InputError::Decode { error, .. } => hex_snippet(input, error.offset()),
            _ => String::new(),
        }
    }
}

/// Decodes one message: with `input`'s encoding, or with the one the bytes
/// announce ([`Encoding::guess`], or the JSON form: [`looks_like_json`]);
/// `options` apply to BER and PER. Returns the message and the encoding
/// that read it (pretty text for JSON).
pub fn read_message(
    bytes: &[u8],
    input: &Input,
    options: &BinaryOptions,
) -> Result<(MegacoMessage, Encoding), ReadError> {
    let (encoding, guessed) = match input {
        Input::Json => {
            let msg = megaco::json::from_slice(bytes).map_err(InputError::Json)?;
            // JSON is no wire encoding: report it as read by the text codec.
            return Ok((msg, Encoding::pretty()));
        }
        // The native format names its configuration in its header byte.
        Input::Known(e) => match Encoding::guess(bytes) {
            Some(g) if e.kind() == Kind::Native && g.kind() == Kind::Native => (g, false),
            _ => (options.apply(e.clone())?, false),
        },
        Input::Auto => {
            if let Some(why) = codec::not_a_message(bytes) {
                return Err(InputError::NotMegaco(why).into());
            }
            if looks_like_json(bytes) {
                return read_message(bytes, &Input::Json, options);
            }
            match Encoding::guess(bytes) {
                Some(e) => {
                    let guessed = e.kind() == Kind::Per;
                    (options.apply(e)?, guessed)
                }
                // Text that lacks its header: the text decoder says where.
                None if looks_textual(bytes) => (Encoding::pretty(), false),
                None => return Err(InputError::NotMegaco(codec::without_signature(bytes)).into()),
            }
        }
    };
    match encoding.decode(bytes) {
        Ok(msg) => Ok((msg, encoding)),
        Err(error) => {
            let hint = match input {
                Input::Auto | Input::Json => None,
                Input::Known(_) => hint(bytes, &encoding),
            };
            Err(InputError::Decode {
                encoding,
                error,
                guessed,
                hint,
            }
            .into())
        }
    }
}

/// Either the input could not be read, or the options are wrong.
#[derive(Debug)]
pub enum ReadError {
    /// The bytes.
    Input(Box<InputError>),
    /// The options (`--levels`).
    Options(anyhow::Error),
}

impl From<InputError> for ReadError {
    fn from(e: InputError) -> Self {
        ReadError::Input(Box::new(e))
    }
}

impl From<anyhow::Error> for ReadError {
    fn from(e: anyhow::Error) -> Self {
        ReadError::Options(e)
    }
}

impl ReadError {
    /// The error as one line after the input's name.
    pub fn located(&self, name: &str) -> String {
        match self {
            ReadError::Input(e) => e.located(name),
            ReadError::Options(e) => format!("{e:#}"),
        }
    }
}

/// Printable ASCII and whitespace only (text with a broken header).
fn looks_textual(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace())
}

/// When `encoding` failed on bytes that look like something else, what
/// they look like.
fn hint(bytes: &[u8], encoding: &Encoding) -> Option<String> {
    if let Some(what) = codec::foreign_kind(bytes) {
        return Some(format!("the input looks like {what}"));
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Some("the input starts with a UTF-8 byte-order mark".to_string());
    }
    let other = Encoding::guess(bytes)?;
    (other.kind() != encoding.kind()).then(|| {
        format!(
            "the input looks like {}: try --from {} or --from auto",
            other,
            other.slug().unwrap_or("auto")
        )
    })
}

/// Encodes one message.
pub fn write_message(msg: &MegacoMessage, to: &Output) -> anyhow::Result<Vec<u8>> {
    Ok(match to {
        Output::Wire(e) => e.encode(msg)?,
        Output::Json => megaco::json::to_string_pretty(msg)?.into_bytes(),
    })
}

/// Margin before every snippet line.
const GUTTER: &str = "    | ";

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

#[cfg(test)]
mod tests {
    use super::*;

    fn auto(bytes: &[u8]) -> Result<Encoding, String> {
        read_message(bytes, &Input::Auto, &BinaryOptions::default())
            .map(|(_, e)| e)
            .map_err(|e| e.located("f"))
    }

    #[test]
    fn the_encoding_is_recognised() {
        assert_eq!(
            auto(b"MEGACO/1 [1.2.3.4] T=1{C=-{AV=ROOT}}")
                .unwrap()
                .to_string(),
            "pretty"
        );
        assert_eq!(
            auto(b"  ; hi\n!/1 [1.2.3.4] PN=1{}").unwrap().to_string(),
            "compact"
        );
        let err = auto(b"\x30\x81").unwrap_err();
        assert!(err.starts_with("f:"), "{err}");
        assert_eq!(auto(b"").unwrap_err(), "f: empty: not a Megaco message");
        assert!(auto(b"\xd4\xc3\xb2\xa1\x02\x00")
            .unwrap_err()
            .contains("not a Megaco message (a pcap capture file)"));
        assert!(auto(b"\xef\xbb\xbf!/1 <a> PN=1{}")
            .unwrap_err()
            .contains("the rest is a valid message"));
        assert!(auto(b"\xee\x01\x02")
            .unwrap_err()
            .contains("it starts ee 01 02, which is neither text"));
        // ASCII without a header: the text decoder's position.
        assert!(auto(b"hello").unwrap_err().starts_with("f:1:1: "));
    }

    #[test]
    fn json_and_term_files_are_told_apart() {
        for json in [&b"{\"megaco_json\": 1}"[..], b"\n  {\n  \"message\""] {
            assert!(looks_like_json(json));
            assert!(!looks_like_term_file(json));
        }
        for term in [
            &b"{pretty, [{msg01, <<\"!/1\">>}]}."[..],
            b" {'a b', []}.",
            b"% x\n{",
        ] {
            assert!(looks_like_term_file(term));
            assert!(!looks_like_json(term));
        }
        assert!(!looks_like_json(b"!/1 [1.2.3.4] T=1{}"));
        // Read as JSON in auto mode: a JSON error, not a text one.
        assert!(auto(b"{\"megaco_json\": 1}")
            .unwrap_err()
            .contains("JSON: missing field"));
    }

    #[test]
    fn snippets_point_at_the_error() {
        let input = b"!/1 [1.2.3.4]\nT=1{\tC=x{}}";
        let Err(ReadError::Input(e)) = read_message(input, &Input::Auto, &Default::default())
        else {
            panic!("decoded");
        };
        assert_eq!(e.snippet(input), "    | T=1{ C=x{}}\n    |        ^\n");
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
    fn options_apply_to_binary_encodings() {
        let bad = BinaryOptions {
            levels: Some(vec![]),
            ..BinaryOptions::default()
        };
        assert!(bad.apply(Encoding::per()).is_err());
        assert!(bad.apply(Encoding::pretty()).is_ok());
        let otp = BinaryOptions {
            dialect: Some(DialectArg::Otp),
            ..BinaryOptions::default()
        };
        let ber: Encoding = "ber".parse().unwrap();
        assert_eq!(otp.apply(ber).unwrap().to_string(), "ber [otp]");
        // A name that says OTP's dialect does not take --dialect standard.
        let standard = BinaryOptions {
            dialect: Some(DialectArg::Standard),
            ..BinaryOptions::default()
        };
        for name in ["ber-otp", "ber-native"] {
            let err = standard.apply(name.parse().unwrap()).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with(&format!("--dialect standard contradicts {name}")),
                "{err}"
            );
        }
        assert_eq!(
            standard.apply("ber".parse().unwrap()).unwrap().to_string(),
            "ber"
        );
        assert_eq!(
            otp.apply("ber-otp".parse().unwrap()).unwrap().to_string(),
            "ber [otp]"
        );
        let native = BinaryOptions {
            native: true,
            ..BinaryOptions::default()
        };
        assert_eq!(
            native.apply(Encoding::per()).unwrap().to_string(),
            "per [native]"
        );
        let levels = BinaryOptions {
            levels: Some(vec![4, 4]),
            ..BinaryOptions::default()
        };
        assert_eq!(
            levels.apply(Encoding::per()).unwrap().to_string(),
            "per [levels 4.4]"
        );
        // Levels need the mapping that --native and `-native` turn off.
        for name in ["per-native", "ber-native"] {
            let err = levels.apply(name.parse().unwrap()).unwrap_err();
            let base = name.trim_end_matches("-native");
            assert!(
                err.to_string()
                    .starts_with(&format!("--levels contradicts {name}"))
                    && err.to_string().contains(&format!("`{base}`")),
                "{err}"
            );
        }
        let both = BinaryOptions {
            native: true,
            levels: Some(vec![8, 8, 8]),
            ..BinaryOptions::default()
        };
        let err = both.apply(Encoding::per()).unwrap_err();
        assert!(
            err.to_string().starts_with("--levels and --native"),
            "{err}"
        );
        // Text takes neither, and ignores both as before.
        assert!(both.apply(Encoding::pretty()).is_ok());
    }

    #[test]
    fn names_on_the_command_line() {
        assert!(matches!("auto".parse::<Input>(), Ok(Input::Auto)));
        assert!(matches!("json".parse::<Output>(), Ok(Output::Json)));
        let to: Output = "native-compact".parse().unwrap();
        assert_eq!(to.to_string(), "native [compact]");
        assert!(!to.is_text());
        let err = "xml".parse::<Output>().unwrap_err();
        assert!(
            err.contains("known: pretty, compact") && err.ends_with("json"),
            "{err}"
        );
    }
}
