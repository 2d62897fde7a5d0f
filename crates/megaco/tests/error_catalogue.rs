//! Keeps docs/errors.md true: every example there is decoded (or encoded)
//! again and must give exactly the message the document shows, and every
//! error kind of every codec must have an example.
//!
//! To regenerate the messages after a deliberate change of wording, run
//! `MEGACO_BLESS_ERRORS=1 cargo test -p megaco --test error_catalogue`
//! and review the diff of docs/errors.md.

use std::path::PathBuf;

use megaco::ber::{self, BerConfig};
use megaco::codec::{DecodeError, DecodeErrorKind, Encoding};
use megaco::native::NativeConfig;
use megaco::per::{self, PerConfig};
use megaco::text::{self, Style};
use megaco::Limits;

fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/errors.md")
}

/// One ```case block.
#[derive(Default, Debug)]
struct Case {
    kind: String,
    codec: String,
    input: String,
    config: Vec<(String, usize)>,
    message: String,
    /// Line index of `message:` in the document.
    message_line: usize,
}

fn parse(doc: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut cur: Option<Case> = None;
    for (i, line) in doc.lines().enumerate() {
        if line == "```case" {
            cur = Some(Case::default());
            continue;
        }
        let Some(c) = cur.as_mut() else { continue };
        if line == "```" {
            cases.push(cur.take().unwrap());
            continue;
        }
        let (key, value) = line
            .split_once(": ")
            .unwrap_or((line.trim_end_matches(':'), ""));
        match key {
            "kind" => c.kind = value.to_string(),
            "codec" => c.codec = value.to_string(),
            "input" => c.input = value.to_string(),
            "config" => {
                for kv in value.split(", ") {
                    let (k, v) = kv.split_once('=').unwrap();
                    c.config.push((k.to_string(), v.parse().unwrap()));
                }
            }
            "message" => {
                c.message = value.to_string();
                c.message_line = i;
            }
            other => panic!("docs/errors.md line {}: unknown key {other:?}", i + 1),
        }
    }
    cases
}

/// `\n`, `\r`, `\t`, `\\` and `\xNN` escapes of a text input.
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b't' => out.push(b'\t'),
                b'\\' => out.push(b'\\'),
                b'x' => {
                    out.push(u8::from_str_radix(&s[i + 2..i + 4], 16).unwrap());
                    i += 2;
                }
                c => panic!("unknown escape \\{}", char::from(c)),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn unhex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|h| u8::from_str_radix(h, 16).unwrap())
        .collect()
}

/// The variant name of an error's `Debug` form.
fn variant(debug: String) -> String {
    debug
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap()
        .to_string()
}

/// `DecodeErrorKind::Variant`, and for a limit the limit's name:
/// `DecodeErrorKind::LimitExceeded(max_depth)`.
fn label(e: &DecodeError) -> String {
    match e.kind() {
        DecodeErrorKind::LimitExceeded { limit, .. } => {
            format!("DecodeErrorKind::LimitExceeded({limit})")
        }
        k => format!("DecodeErrorKind::{}", variant(format!("{k:?}"))),
    }
}

/// Runs a case: (type::Variant, message).
fn run(c: &Case) -> (String, String) {
    let cfg = |name: &str| c.config.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
    let text_in = || unescape(&c.input);
    let bin_in = || unhex(&c.input);
    let fail = |what: &str| -> ! { panic!("{}: {what} succeeded", c.kind) };
    // Limits named in `config:` over the codec's defaults.
    let limits = |mut limits: Limits| {
        if let Some(v) = cfg("max_depth") {
            limits.max_depth = v;
        }
        if let Some(v) = cfg("max_list_len") {
            limits.max_list_len = v;
        }
        if let Some(v) = cfg("max_message_size") {
            limits.max_message_size = v;
        }
        if let Some(v) = cfg("max_string_len") {
            limits.max_string_len = v;
        }
        limits
    };
    // Every decoder reports a `DecodeError`, read here through the codec
    // registry so that the catalogue shows what callers see.
    let decode = |encoding: Encoding, input: Vec<u8>| {
        let e = encoding
            .decode(&input)
            .err()
            .unwrap_or_else(|| fail("decode"));
        (label(&e), e.to_string())
    };
    match c.codec.as_str() {
        "text" => decode(
            Encoding::Text {
                style: Style::Compact,
                limits: limits(Limits::default()),
            },
            text_in(),
        ),
        "ber" => decode(
            Encoding::Ber(BerConfig {
                limits: limits(Limits::default()),
                ..BerConfig::default()
            }),
            bin_in(),
        ),
        "per" => {
            let config = PerConfig::default();
            let config = PerConfig {
                limits: limits(config.limits),
                ..config
            };
            decode(Encoding::Per(config), bin_in())
        }
        "native" | "native-compact" | "native-compressed" => {
            let config = match c.codec.as_str() {
                "native" => NativeConfig::PLAIN,
                "native-compact" => NativeConfig::COMPACT,
                _ => NativeConfig::COMPRESSED,
            };
            let config = NativeConfig {
                limits: limits(Limits::default()),
                ..config
            };
            decode(Encoding::Native(config), bin_in())
        }
        "encode-pretty" | "encode-ber" | "encode-per" => {
            let mut m = text::decode(&text_in()).unwrap_or_else(|e| panic!("{}: {e}", c.kind));
            if let Some(v) = cfg("version") {
                m.mess.version = v as u8;
            }
            let r = match c.codec.as_str() {
                "encode-pretty" => text::encode_pretty(&m),
                "encode-ber" => ber::encode(&m, &BerConfig::default()),
                _ => per::encode(&m, &PerConfig::default()),
            };
            let e = r.err().unwrap_or_else(|| fail("encode"));
            (
                format!("EncodeError::{}", variant(format!("{e:?}"))),
                e.to_string(),
            )
        }
        "corpus-parse" => {
            let e = megaco::corpus::parse_term_file(&text_in())
                .err()
                .unwrap_or_else(|| fail("parse"));
            (
                format!("CorpusError::{}", variant(format!("{e:?}"))),
                e.to_string(),
            )
        }
        "corpus-load" => {
            let e = megaco::corpus::load(std::path::Path::new(&c.input))
                .err()
                .unwrap_or_else(|| fail("load"));
            (
                format!("CorpusError::{}", variant(format!("{e:?}"))),
                e.to_string(),
            )
        }
        other => panic!("unknown codec {other:?}"),
    }
}

/// Every error kind the catalogue must show, per codec: what each
/// decoder reports.
const KINDS: &[(&str, &[&str])] = &[
    (
        "text",
        &[
            "Unexpected",
            "UnknownKeyword",
            "Truncated",
            "InvalidNumber",
            "OutOfRange",
            "Invalid",
            "Duplicate",
            "Missing",
            "InvalidUtf8",
            "UnsupportedVersion",
            "LimitExceeded(max_message_size)",
            "LimitExceeded(max_depth)",
            "LimitExceeded(max_list_len)",
            "LimitExceeded(max_string_len)",
        ],
    ),
    (
        "ber",
        &[
            "Truncated",
            "UnexpectedTag",
            "BadLength",
            "Missing",
            "BadValue",
            "UnsupportedVersion",
            "TrailingData",
            "LimitExceeded(max_message_size)",
            "LimitExceeded(max_depth)",
            "LimitExceeded(max_list_len)",
            "LimitExceeded(max_string_len)",
        ],
    ),
    (
        "per",
        &[
            "Truncated",
            "OutOfRange",
            "Invalid",
            "UnsupportedVersion",
            "Unmappable",
            "LimitExceeded(max_message_size)",
            "LimitExceeded(max_depth)",
            "LimitExceeded(max_list_len)",
            "LimitExceeded(max_string_len)",
        ],
    ),
    (
        "native",
        &[
            "Truncated",
            "Unexpected",
            "Invalid",
            "BadLength",
            "InvalidUtf8",
            "TrailingData",
            "LimitExceeded(max_message_size)",
            "LimitExceeded(max_depth)",
            "LimitExceeded(max_list_len)",
            "LimitExceeded(max_string_len)",
        ],
    ),
    (
        "encode",
        &[
            "EncodeError::Version",
            "EncodeError::UnsupportedVersion",
            "EncodeError::Invalid",
        ],
    ),
    ("corpus", &["CorpusError::Syntax", "CorpusError::Io"]),
];

#[test]
fn every_documented_example_gives_its_documented_message() {
    let doc = std::fs::read_to_string(doc_path()).unwrap();
    let cases = parse(&doc);
    assert!(!cases.is_empty());
    let bless = std::env::var_os("MEGACO_BLESS_ERRORS").is_some();
    let mut lines: Vec<String> = doc.lines().map(String::from).collect();
    let mut wrong = Vec::new();
    for c in &cases {
        let (kind, message) = run(c);
        if kind != c.kind {
            wrong.push(format!("example for {} gives {kind}: {message}", c.kind));
            continue;
        }
        if message != c.message {
            wrong.push(format!(
                "{}:\n  documented: {}\n  actual:     {message}",
                c.kind, c.message
            ));
            lines[c.message_line] = format!("message: {message}");
        }
    }
    if bless {
        std::fs::write(doc_path(), lines.join("\n") + "\n").unwrap();
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let mut missing = Vec::new();
    for (codec, kinds) in KINDS {
        for kind in *kinds {
            let full = if kind.contains("::") {
                kind.to_string()
            } else {
                format!("DecodeErrorKind::{kind}")
            };
            if !cases
                .iter()
                .any(|c| c.kind == full && c.codec.starts_with(codec))
            {
                missing.push(format!("{codec}: {full}"));
            }
        }
    }
    assert!(missing.is_empty(), "no example for {missing:?}");
}
