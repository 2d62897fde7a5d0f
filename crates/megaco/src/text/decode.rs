//! Text decoder: RFC 3525 Annex B (v1) plus the H.248.1 (09/2005) Annex B
//! additions (v2, v3), pretty, compact and any mix of the two.
//!
//! A hand-written recursive-descent parser over the input bytes. It maps
//! to the model the way Erlang/OTP's megaco text parser maps to its
//! records: names and unquoted values are lower-cased, `Local`/`Remote`
//! SDP becomes property groups (a new group at each `v=` line), digit-map
//! timers are split off the body, and so on. Nesting is bounded by
//! [`Limits::max_depth`]; every error carries its line, column and byte
//! offset.
//!
//! # Where the model differs from OTP's records
//!
//! Checked against OTP 4.4.2 (megaco_text_parser_v1/v2/v3); every corpus
//! vector decodes to the model OTP's BER and text encoders reproduce.
//! Deliberate differences, all outside the corpus:
//!
//! - Termination ids are kept as written (OTP lower-cases them); `ROOT` in
//!   any case becomes [`TerminationId::root`].
//! - Audit tokens keep the order written (OTP reverses the bare descriptor
//!   names of an audit reply, e.g. corpus msg79a01).
//! - Event parameters keep their relation, range or list in `extra_info`
//!   (OTP drops it for event parameters, not for signal parameters).
//! - An audited Media with both `TerminationState` and stream items keeps
//!   both (OTP keeps only the kind given last).
//! - An audited property written with a value (`name=value`) alone is read
//!   as one valued item; OTP rejects it. After a bare audited name it
//!   completes that item, as OTP reads `tdmc/gain, tdmc/gain=2` (corpus
//!   msg76a02), and this holds in TerminationState and ContextAudit too,
//!   where OTP drops the value.
//! - Valid syntax OTP rejects is read: `Signals { }`, a v1 `ContextAudit`,
//!   `Notify` with both `ObservedEvents` and `Error`.
//! - Keywords are not gated by version (`EmergencyOff` reads in a v1
//!   message); the encoders' version check refuses what a version cannot
//!   carry. A `Transaction` without an id decodes with id 0; an
//!   `AuditValue`/`AuditCapability` without `{ Audit {...} }` gets an empty
//!   audit descriptor.

use super::lexer::{
    all_digits, is_safe, is_ws, keyword, parse_hex_bytes, parse_ip4, parse_ip6, parse_u64, Kw,
};
use crate::model::*;

pub use crate::limits::Limits;

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
    /// Nesting deeper than [`Limits::max_depth`].
    #[error("nesting deeper than {max} levels")]
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// The message is larger than [`Limits::max_message_size`].
    #[error("message of {size} bytes exceeds the limit of {max} bytes")]
    TooLarge {
        /// The message size.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// A list longer than [`Limits::max_list_len`].
    #[error("more than {max} items in a list")]
    TooManyItems {
        /// The limit.
        max: usize,
    },
    /// A word, quoted string or `{ }` text (SDP, digit map, ...) longer
    /// than [`Limits::max_string_len`].
    #[error("string of {len} bytes is longer than {max} bytes")]
    StringTooLong {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Text (a quoted string or SDP) that is not UTF-8.
    #[error("text is not valid UTF-8")]
    InvalidUtf8,
    /// A protocol version other than 1, 2 or 3.
    #[error("unsupported protocol version {0} (this decoder speaks 1 to 3)")]
    UnsupportedVersion(u32),
}

/// Decodes a text message (pretty, compact or mixed).
///
/// ```
/// use megaco::model::*;
/// let msg = megaco::text::decode(b"!/1 [10.0.0.1]:2944 T=7{C=${A=$}}").unwrap();
/// assert_eq!(msg.mess.version, 1);
/// let MessageBody::Transactions(t) = &msg.mess.body else { panic!() };
/// let Transaction::Request(r) = &t[0] else { panic!() };
/// assert_eq!(r.transaction_id, 7);
/// assert_eq!(r.actions[0].context_id, ContextId::CHOOSE);
/// ```
pub fn decode(input: &[u8]) -> Result<MegacoMessage, TextError> {
    decode_with(input, &Limits::default())
}

/// Decodes a text message with explicit limits.
pub fn decode_with(input: &[u8], limits: &Limits) -> Result<MegacoMessage, TextError> {
    let mut p = P {
        s: input,
        pos: 0,
        depth: 0,
        version: 1,
        limits,
    };
    if input.len() > limits.max_message_size {
        return Err(p.err_at(
            0,
            TextErrorKind::TooLarge {
                size: input.len(),
                max: limits.max_message_size,
            },
        ));
    }
    p.megaco_message()
}

/// The protocol version of a text message, read from its header alone
/// (as Erlang/OTP's `version_of/2`): what a transport needs to pick a
/// configuration or answer in the peer's version before decoding the
/// whole message. Only the header is checked.
///
/// ```
/// assert_eq!(megaco::text::version_of(b"MEGACO/2 <mg1> T=1{}"), Ok(2));
/// assert!(megaco::text::version_of(b"MEGACO/4 <mg1>").is_err());
/// ```
pub fn version_of(input: &[u8]) -> Result<u8, TextError> {
    let limits = Limits::DEFAULT;
    let mut p = P {
        s: input,
        pos: 0,
        depth: 0,
        version: 1,
        limits: &limits,
    };
    p.header()?;
    Ok(p.version)
}

type R<T> = Result<T, TextError>;

/// The parser state: a cursor over the input.
struct P<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
    version: u8,
    limits: &'a Limits,
}

/// Lower-cases an ASCII slice into a new string.
fn lower(w: &[u8]) -> CompactString {
    let mut s = ascii(w);
    s.make_ascii_lowercase();
    s
}

/// An ASCII slice as a string, case kept (the parser only passes safe
/// characters, which are ASCII).
fn ascii(w: &[u8]) -> CompactString {
    CompactString::from_utf8(w).unwrap_or_default()
}

/// A short printable excerpt for error messages.
fn excerpt(w: &[u8]) -> String {
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

/// `yyyymmddThhmmssss`.
fn is_timestamp(w: &[u8]) -> bool {
    w.len() == 17
        && (w[8] == b'T' || w[8] == b't')
        && w[..8].iter().all(u8::is_ascii_digit)
        && w[9..].iter().all(u8::is_ascii_digit)
}

/// Parts of an event parameter list, before they become a requested
/// event, a second (embedded) event, an observed event or an event spec.
#[derive(Default)]
struct EventParms {
    stream_id: Option<u16>,
    params: Vec<PropertyParm>,
    has_action: bool,
    keep_active: Option<bool>,
    event_dm: Option<EventDm>,
    second_event: Option<EventsDescriptor>,
    signals: Option<SignalsDescriptor>,
    notify_behaviour: Option<NotifyBehaviour>,
    reset: bool,
}

/// Which event parameters a list may hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EvKind {
    /// Events descriptor: everything.
    Requested,
    /// Embedded events: no embedded events inside.
    Second,
    /// Observed events and event specs: stream and parameters only.
    Plain,
}

/// A DigitMap keyword with what followed it.
enum Dm {
    Bare,
    Desc(DigitMapDescriptor),
}

impl<'a> P<'a> {
    // ---------------------------------------------------------------
    // Errors and positions
    // ---------------------------------------------------------------

    fn err_at(&self, at: usize, kind: TextErrorKind) -> TextError {
        let at = at.min(self.s.len());
        let before = &self.s[..at];
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

    /// What is at the cursor, for "found ..." in errors.
    fn found(&self) -> String {
        let rest = &self.s[self.pos.min(self.s.len())..];
        match rest.first() {
            None => "end of input".to_string(),
            Some(&b) if is_safe(b) => {
                let n = rest.iter().take_while(|&&c| is_safe(c)).count();
                format!("`{}`", excerpt(&rest[..n]))
            }
            Some(&b) if b.is_ascii_graphic() => format!("`{}`", char::from(b)),
            Some(&b) => format!("byte 0x{b:02X}"),
        }
    }

    /// "Expected X" at the cursor (an EOF error at the end of input).
    fn expected(&self, expected: &'static str) -> TextError {
        if self.pos >= self.s.len() {
            self.err_at(self.pos, TextErrorKind::UnexpectedEof { expected })
        } else {
            self.err_at(
                self.pos,
                TextErrorKind::Expected {
                    expected,
                    found: self.found(),
                },
            )
        }
    }

    fn unknown(&self, at: usize, w: &[u8], expected: &'static str) -> TextError {
        self.err_at(
            at,
            TextErrorKind::UnknownKeyword {
                expected,
                found: excerpt(w),
            },
        )
    }

    fn invalid(&self, at: usize, w: &[u8], what: &'static str) -> TextError {
        self.err_at(
            at,
            TextErrorKind::Invalid {
                what,
                found: excerpt(w),
            },
        )
    }

    fn dup(&self, at: usize, what: &'static str) -> TextError {
        self.err_at(at, TextErrorKind::Duplicate { what })
    }

    // ---------------------------------------------------------------
    // Lexing
    // ---------------------------------------------------------------

    /// Skips white space, line ends and `;` comments.
    fn ws(&mut self) {
        while let Some(&b) = self.s.get(self.pos) {
            if is_ws(b) {
                self.pos += 1;
            } else if b == b';' {
                while let Some(&c) = self.s.get(self.pos) {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// The next significant byte.
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, b: u8, what: &'static str) -> R<()> {
        if self.eat(b) {
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }

    fn equal(&mut self) -> R<()> {
        self.expect(b'=', "`=`")
    }

    /// One nesting level deeper.
    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(self.err_at(
                self.pos.saturating_sub(1),
                TextErrorKind::TooDeep {
                    max: self.limits.max_depth,
                },
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// `{`, one level deeper.
    fn open(&mut self) -> R<()> {
        self.expect(b'{', "`{`")?;
        self.enter()
    }

    /// `}`, one level up.
    fn close(&mut self) -> R<()> {
        self.expect(b'}', "`}`")?;
        self.leave();
        Ok(())
    }

    /// After an item of a braced list: `true` for `,` (another item),
    /// `false` after the closing `}`.
    fn next_item(&mut self, count: &mut usize) -> R<bool> {
        if self.eat(b',') {
            *count += 1;
            if *count >= self.limits.max_list_len {
                return Err(self.err_at(
                    self.pos,
                    TextErrorKind::TooManyItems {
                        max: self.limits.max_list_len,
                    },
                ));
            }
            Ok(true)
        } else {
            self.close()?;
            Ok(false)
        }
    }

    /// Refuses a string of `len` bytes at `at` longer than the limit.
    #[inline]
    fn string_len(&self, at: usize, len: usize) -> R<()> {
        if len > self.limits.max_string_len {
            return Err(self.err_at(
                at,
                TextErrorKind::StringTooLong {
                    len,
                    max: self.limits.max_string_len,
                },
            ));
        }
        Ok(())
    }

    /// A run of safe characters, with its offset.
    fn word(&mut self, expected: &'static str) -> R<(usize, &'a [u8])> {
        self.ws();
        let start = self.pos;
        let s = self.s;
        let mut end = start;
        while end < s.len() && is_safe(s[end]) {
            end += 1;
        }
        if end == start {
            return Err(self.expected(expected));
        }
        self.string_len(start, end - start)?;
        self.pos = end;
        Ok((start, &s[start..end]))
    }

    /// The next word without consuming it.
    fn peek_word(&mut self) -> &'a [u8] {
        self.ws();
        let s = self.s;
        let mut end = self.pos;
        while end < s.len() && is_safe(s[end]) {
            end += 1;
        }
        &s[self.pos..end]
    }

    /// The keyword of the next word, without consuming it.
    fn peek_kw(&mut self) -> Option<Kw> {
        keyword(self.peek_word())
    }

    /// A keyword, consumed, with its offset and spelling.
    fn kw(&mut self, expected: &'static str) -> R<(usize, &'a [u8], Option<Kw>)> {
        let (at, w) = self.word(expected)?;
        Ok((at, w, keyword(w)))
    }

    /// Exactly the keyword `k`.
    fn expect_kw(&mut self, k: Kw, expected: &'static str) -> R<()> {
        let (at, w, got) = self.kw(expected)?;
        if got == Some(k) {
            Ok(())
        } else {
            Err(self.unknown(at, w, expected))
        }
    }

    fn number(&self, at: usize, w: &[u8], what: &'static str, max: u64) -> R<u64> {
        if !all_digits(w) {
            return Err(self.err_at(
                at,
                TextErrorKind::InvalidNumber {
                    what,
                    found: excerpt(w),
                },
            ));
        }
        match parse_u64(w) {
            Some(v) if v <= max => Ok(v),
            _ => Err(self.err_at(
                at,
                TextErrorKind::OutOfRange {
                    what,
                    found: excerpt(w),
                    max,
                },
            )),
        }
    }

    fn num_word(&mut self, what: &'static str, max: u64) -> R<u64> {
        let (at, w) = self.word(what)?;
        self.number(at, w, what, max)
    }

    fn u32_word(&mut self, what: &'static str) -> R<u32> {
        // The bound makes the conversion lossless.
        Ok(self.num_word(what, u64::from(u32::MAX))? as u32)
    }

    fn u16_word(&mut self, what: &'static str) -> R<u16> {
        Ok(self.num_word(what, u64::from(u16::MAX))? as u16)
    }

    fn u8_word(&mut self, what: &'static str, max: u8) -> R<u8> {
        Ok(self.num_word(what, u64::from(max))? as u8)
    }

    /// A string from raw bytes, checked UTF-8.
    fn utf8(&self, at: usize, b: &[u8]) -> R<CompactString> {
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s.into()),
            Err(e) => Err(self.err_at(at + e.valid_up_to(), TextErrorKind::InvalidUtf8)),
        }
    }

    /// A quoted string, without its quotes (the cursor is on `"`).
    fn quoted(&mut self) -> R<CompactString> {
        let start = self.pos + 1;
        let s = self.s;
        let mut i = start;
        loop {
            match s.get(i) {
                None => {
                    self.pos = i;
                    return Err(self.expected("closing `\"`"));
                }
                Some(b'"') => break,
                Some(&b) if b < 0x20 && b != b'\t' => {
                    self.pos = i;
                    return Err(self.expected("closing `\"`"));
                }
                Some(_) => i += 1,
            }
        }
        self.string_len(start, i - start)?;
        let text = self.utf8(start, &s[start..i])?;
        self.pos = i + 1;
        Ok(text)
    }

    /// `VALUE`: a quoted string (case kept) or safe characters
    /// (lower-cased, as OTP does).
    fn value(&mut self) -> R<CompactString> {
        if self.peek() == Some(b'"') {
            self.quoted()
        } else {
            let (_, w) = self.word("a value")?;
            Ok(lower(w))
        }
    }

    /// The raw text of `{ ... }` after a keyword (SDP, digit maps, MTP):
    /// up to the first `}` not preceded by `\`, white space trimmed at
    /// both ends. Returns the text and its offset.
    fn octet_string(&mut self) -> R<(usize, &'a [u8])> {
        self.expect(b'{', "`{`")?;
        self.ws();
        let s = self.s;
        let start = self.pos;
        let mut i = start;
        loop {
            match s.get(i) {
                None => {
                    self.pos = i;
                    return Err(self.expected("`}`"));
                }
                Some(b'}') => break,
                Some(b'\\') if s.get(i + 1) == Some(&b'}') => i += 2,
                Some(0) => {
                    self.pos = i;
                    return Err(self.expected("`}`"));
                }
                Some(_) => i += 1,
            }
        }
        let mut end = i;
        while end > start && is_ws(s[end - 1]) {
            end -= 1;
        }
        self.string_len(start, end - start)?;
        self.pos = i + 1;
        Ok((start, &s[start..end]))
    }

    // ---------------------------------------------------------------
    // Message
    // ---------------------------------------------------------------

    fn megaco_message(&mut self) -> R<MegacoMessage> {
        let auth_header = self.header()?;
        let mid = self.mid()?;
        let body = self.message_body()?;
        self.ws();
        if self.pos < self.s.len() {
            return Err(self.expected("end of message"));
        }
        Ok(MegacoMessage {
            auth_header,
            mess: Message {
                version: self.version,
                mid,
                body,
            },
        })
    }

    /// The authentication header, if any, and `MEGACO/v` (sets `version`).
    fn header(&mut self) -> R<Option<AuthenticationHeader>> {
        self.ws();
        let auth_header = if self.peek_kw() == Some(Kw::Auth) {
            self.word("Authentication")?;
            Some(self.auth_header()?)
        } else {
            None
        };
        let (at, w) = self.word("`MEGACO/` or `!/` and a version")?;
        let slash = w
            .iter()
            .position(|&b| b == b'/')
            .ok_or_else(|| self.invalid(at, w, "message header (MEGACO/version)"))?;
        let (name, ver) = (&w[..slash], &w[slash + 1..]);
        if !(name.eq_ignore_ascii_case(b"megaco") || name == b"!") {
            return Err(self.invalid(at, w, "message header (MEGACO/version)"));
        }
        let v = self.number(at + slash + 1, ver, "protocol version", 99)?;
        if !(1..=3).contains(&v) {
            return Err(self.err_at(at, TextErrorKind::UnsupportedVersion(v as u32)));
        }
        self.version = v as u8;
        Ok(auth_header)
    }

    /// `= 0xSPI:0xSEQ:0xDATA` after `Authentication`.
    fn auth_header(&mut self) -> R<AuthenticationHeader> {
        self.equal()?;
        let hex = |p: &mut Self, what: &'static str, min: usize, max: usize| -> R<Vec<u8>> {
            let (at, w) = p.word(what)?;
            match parse_hex_bytes(w) {
                Some(v) if (min..=max).contains(&(w.len() - 2)) => Ok(v),
                _ => Err(p.invalid(at, w, what)),
            }
        };
        let spi = hex(self, "security parameter index (0x + 8 hex digits)", 8, 8)?;
        self.expect(b':', "`:`")?;
        let seq = hex(self, "sequence number (0x + 8 hex digits)", 8, 8)?;
        self.expect(b':', "`:`")?;
        let ad = hex(
            self,
            "authentication data (0x + 24 to 64 hex digits)",
            24,
            64,
        )?;
        let u = |v: &[u8]| u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
        Ok(AuthenticationHeader {
            sec_parm_index: u(&spi),
            seq_num: u(&seq),
            ad,
        })
    }

    /// `mId`: `[ip4]`, `[ip6]`, `<domain>`, each with an optional
    /// `:port`; `MTP{hex}`; or a device name.
    fn mid(&mut self) -> R<Mid> {
        match self.peek() {
            Some(b'[') => {
                self.pos += 1;
                let start = self.pos;
                let s = self.s;
                let mut i = start;
                while i < s.len() && (is_safe(s[i]) || s[i] == b':') {
                    i += 1;
                }
                let text = &s[start..i];
                self.pos = i;
                self.expect(b']', "`]`")?;
                let port = self.opt_port()?;
                if text.contains(&b':') {
                    let address =
                        parse_ip6(text).ok_or_else(|| self.invalid(start, text, "IPv6 address"))?;
                    Ok(Mid::Ip6(Ip6Address { address, port }))
                } else {
                    let address =
                        parse_ip4(text).ok_or_else(|| self.invalid(start, text, "IPv4 address"))?;
                    Ok(Mid::Ip4(Ip4Address { address, port }))
                }
            }
            Some(b'<') => {
                self.pos += 1;
                let (_, name) = self.word("a domain name")?;
                self.expect(b'>', "`>`")?;
                let port = self.opt_port()?;
                Ok(Mid::Domain(DomainName {
                    name: lower(name),
                    port,
                }))
            }
            _ => {
                let (_, w) = self.word("a message identifier (mId)")?;
                if keyword(w) == Some(Kw::Mtp) && self.peek() == Some(b'{') {
                    let (at, hex) = self.octet_string()?;
                    if hex.is_empty() || !hex.iter().all(u8::is_ascii_hexdigit) {
                        return Err(self.invalid(at, hex, "MTP address"));
                    }
                    Ok(Mid::Mtp(ascii(hex)))
                } else {
                    Ok(Mid::Device(lower(w)))
                }
            }
        }
    }

    fn opt_port(&mut self) -> R<Option<u16>> {
        if self.eat(b':') {
            Ok(Some(self.u16_word("a port number")?))
        } else {
            Ok(None)
        }
    }

    fn message_body(&mut self) -> R<MessageBody> {
        if self.peek_kw() == Some(Kw::Error) {
            return Ok(MessageBody::Error(self.error_descriptor()?));
        }
        let mut list = Vec::new();
        loop {
            list.push(self.transaction()?);
            if list.len() > self.limits.max_list_len {
                return Err(self.err_at(
                    self.pos,
                    TextErrorKind::TooManyItems {
                        max: self.limits.max_list_len,
                    },
                ));
            }
            if self.peek().is_none() {
                break;
            }
        }
        Ok(MessageBody::Transactions(list.into()))
    }

    fn transaction(&mut self) -> R<Transaction> {
        const WHAT: &str =
            "a transaction (Transaction, Reply, Pending, TransactionResponseAck or Segment)";
        let (at, w, k) = self.kw(WHAT)?;
        match k {
            Some(Kw::Trans) => Ok(Transaction::Request(self.transaction_request()?)),
            Some(Kw::Reply) => Ok(Transaction::Reply(self.transaction_reply()?)),
            Some(Kw::Pending) => {
                self.equal()?;
                let transaction_id = self.u32_word("a transaction id")?;
                self.open()?;
                self.close()?;
                Ok(Transaction::Pending(TransactionPending { transaction_id }))
            }
            Some(Kw::ResponseAck) => {
                self.open()?;
                let mut acks = Vec::new();
                let mut n = 0;
                loop {
                    let (at, w) = self.word("a transaction id or range")?;
                    let ack = match w.iter().position(|&b| b == b'-') {
                        Some(i) => TransactionAck {
                            first_ack: self.number(
                                at,
                                &w[..i],
                                "a transaction id",
                                u32::MAX.into(),
                            )? as u32,
                            last_ack: Some(self.number(
                                at + i + 1,
                                &w[i + 1..],
                                "a transaction id",
                                u32::MAX.into(),
                            )? as u32),
                        },
                        None => TransactionAck {
                            first_ack: self.number(at, w, "a transaction id", u32::MAX.into())?
                                as u32,
                            last_ack: None,
                        },
                    };
                    acks.push(ack);
                    if !self.next_item(&mut n)? {
                        break;
                    }
                }
                Ok(Transaction::ResponseAck(acks))
            }
            Some(Kw::Segment) => {
                self.equal()?;
                let (at, w) = self.word("a transaction id and segment number")?;
                let (transaction_id, seg, complete) = self.tid_and_segment(at, w)?;
                let segment_number = seg.ok_or_else(|| {
                    self.err_at(
                        at,
                        TextErrorKind::Missing {
                            what: "segment number",
                        },
                    )
                })?;
                Ok(Transaction::SegmentReply(SegmentReply {
                    transaction_id,
                    segment_number,
                    segmentation_complete: complete,
                }))
            }
            _ => Err(self.unknown(at, w, WHAT)),
        }
    }

    /// `id`, `id/seg` or `id/seg/END` (v3 segmentation).
    fn tid_and_segment(&self, at: usize, w: &[u8]) -> R<(u32, Option<u16>, bool)> {
        let mut parts = w.splitn(3, |&b| b == b'/');
        let tid = parts.next().unwrap_or_default();
        let id = self.number(at, tid, "a transaction id", u32::MAX.into())? as u32;
        let Some(seg) = parts.next() else {
            return Ok((id, None, false));
        };
        let seg_at = at + tid.len() + 1;
        let seg_no = self.number(seg_at, seg, "a segment number", u16::MAX.into())? as u16;
        match parts.next() {
            None => Ok((id, Some(seg_no), false)),
            Some(end) if end.eq_ignore_ascii_case(b"end") || end == b"&" => {
                Ok((id, Some(seg_no), true))
            }
            Some(end) => Err(self.invalid(
                seg_at + seg.len() + 1,
                end,
                "segmentation complete token (END)",
            )),
        }
    }

    fn transaction_request(&mut self) -> R<TransactionRequest> {
        // `Transaction {`, `Transaction = {` and `Transaction = id {`;
        // a missing id decodes as 0.
        let mut transaction_id = 0;
        if self.eat(b'=') && self.peek() != Some(b'{') {
            transaction_id = self.u32_word("a transaction id")?;
        }
        self.open()?;
        let mut actions = Vec::new();
        let mut n = 0;
        loop {
            actions.push(self.action_request()?);
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(TransactionRequest {
            transaction_id,
            actions: actions.into(),
        })
    }

    fn context_id(&mut self) -> R<ContextId> {
        let (at, w) = self.word("a context id")?;
        match w {
            b"-" => Ok(ContextId::NULL),
            b"$" => Ok(ContextId::CHOOSE),
            b"*" => Ok(ContextId::ALL),
            _ => {
                let v = self.number(at, w, "a context id", u32::MAX.into())? as u32;
                if v == 0 || v == ContextId::CHOOSE.0 || v == ContextId::ALL.0 {
                    // Reserved values are written `-`, `$` and `*`.
                    return Err(self.invalid(at, w, "context id (reserved value)"));
                }
                Ok(ContextId(v))
            }
        }
    }

    fn action_request(&mut self) -> R<ActionRequest> {
        self.expect_kw(Kw::Ctx, "Context")?;
        self.equal()?;
        let context_id = self.context_id()?;
        self.open()?;
        let mut ctx = ContextRequest::default_empty();
        let mut audit: Option<ContextAttrAuditRequest> = None;
        let mut commands = Vec::new();
        let mut n = 0;
        if self.peek() != Some(b'}') {
            loop {
                const WHAT: &str = "a command or context property";
                let (at, w) = self.word(WHAT)?;
                let (optional, wildcard_return, name) = split_command_prefix(w);
                match keyword(name) {
                    Some(
                        k @ (Kw::Topology
                        | Kw::Priority
                        | Kw::Emergency
                        | Kw::EmergencyOff
                        | Kw::Ieps
                        | Kw::ContextAttr),
                    ) if name.len() == w.len() => self.context_property(at, k, &mut ctx)?,
                    Some(Kw::ContextAudit) if name.len() == w.len() => {
                        if audit.is_some() {
                            return Err(self.dup(at, "ContextAudit"));
                        }
                        audit = Some(self.context_audit()?);
                    }
                    Some(k) => {
                        let command = self.command_request(at, k, name)?;
                        commands.push(CommandRequest {
                            command,
                            optional,
                            wildcard_return,
                        });
                    }
                    None => return Err(self.unknown(at, w, WHAT)),
                }
                if !self.next_item(&mut n)? {
                    break;
                }
            }
        } else {
            self.close()?;
        }
        Ok(ActionRequest {
            context_id,
            context_request: ctx.strip(),
            context_attr_audit_req: audit.and_then(strip_audit),
            command_requests: commands.into(),
        })
    }

    /// A context property (`Topology`, `Priority`, `Emergency`, ...),
    /// its keyword already read.
    fn context_property(&mut self, at: usize, k: Kw, ctx: &mut ContextRequest) -> R<()> {
        match k {
            Kw::Topology => {
                if ctx.topology_req.is_some() {
                    return Err(self.dup(at, "Topology"));
                }
                ctx.topology_req = Some(self.topology()?);
            }
            Kw::Priority => {
                if ctx.priority.is_some() {
                    return Err(self.dup(at, "Priority"));
                }
                self.equal()?;
                ctx.priority = Some(self.u8_word("a priority", u8::MAX)?);
            }
            Kw::Emergency | Kw::EmergencyOff => {
                if ctx.emergency.is_some() {
                    return Err(self.dup(at, "Emergency"));
                }
                // v1 text cannot say "emergency off" (its absence means
                // the same) and v1 encoders write nothing for it, so a v1
                // `EmergencyOff` reads as absent.
                if k == Kw::Emergency || self.version >= 2 {
                    ctx.emergency = Some(k == Kw::Emergency);
                }
            }
            Kw::Ieps => {
                if ctx.iepscallind.is_some() {
                    return Err(self.dup(at, "IEPSCall"));
                }
                self.equal()?;
                ctx.iepscallind = Some(self.on_off()?);
            }
            _ => {
                // ContextAttr { props } or ContextAttr { ContextList = {..} }
                self.open()?;
                if self.peek_kw() == Some(Kw::ContextList) {
                    self.word("ContextList")?;
                    if ctx.context_list.is_some() {
                        return Err(self.dup(at, "ContextList"));
                    }
                    ctx.context_list = Some(self.context_list()?);
                    self.close()?;
                } else {
                    if ctx.context_prop.is_some() {
                        return Err(self.dup(at, "ContextAttr"));
                    }
                    let mut props = Vec::new();
                    let mut n = 0;
                    loop {
                        props.push(self.property_parm()?);
                        if !self.next_item(&mut n)? {
                            break;
                        }
                    }
                    ctx.context_prop = Some(props);
                }
            }
        }
        Ok(())
    }

    /// `= { id, id, ... }` after `ContextList`.
    fn context_list(&mut self) -> R<Vec<ContextId>> {
        self.equal()?;
        self.open()?;
        let mut ids = Vec::new();
        let mut n = 0;
        loop {
            ids.push(self.context_id()?);
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(ids)
    }

    fn on_off(&mut self) -> R<bool> {
        let (at, w, k) = self.kw("ON or OFF")?;
        match k {
            Some(Kw::On) => Ok(true),
            Some(Kw::Off) => Ok(false),
            _ => Err(self.unknown(at, w, "ON or OFF")),
        }
    }

    /// `Topology { from, to, direction [, Stream = n], ... }`.
    fn topology(&mut self) -> R<Vec<TopologyRequest>> {
        struct Partial {
            from: Option<TerminationId>,
            to: Option<TerminationId>,
            dir: Option<TopologyDirection>,
            stream: Option<u16>,
            ext: Option<TopologyDirectionExtension>,
        }
        let empty = || Partial {
            from: None,
            to: None,
            dir: None,
            stream: None,
            ext: None,
        };
        let start = self.pos;
        let finish = |p: &Self, t: Partial| -> R<TopologyRequest> {
            match (t.from, t.to, t.dir) {
                (Some(termination_from), Some(termination_to), Some(topology_direction)) => {
                    Ok(TopologyRequest {
                        termination_from,
                        termination_to,
                        topology_direction,
                        stream_id: t.stream,
                        topology_direction_extension: t.ext,
                    })
                }
                _ => Err(p.err_at(
                    start,
                    TextErrorKind::Missing {
                        what: "topology triple (from, to, direction)",
                    },
                )),
            }
        };
        self.open()?;
        let mut out = Vec::new();
        let mut cur = empty();
        let mut n = 0;
        loop {
            let (at, w) = self.word("a termination id, direction or Stream")?;
            // A triple starts with two termination ids whatever they are
            // spelled like (`st`, `Bothway`, ...); after them a keyword is
            // a keyword only where the triple can still take it.
            let kw = if cur.from.is_none() || cur.to.is_none() {
                None
            } else {
                match keyword(w) {
                    Some(Kw::Bothway | Kw::Isolate | Kw::Oneway) if cur.dir.is_some() => None,
                    Some(Kw::OnewayExternal | Kw::OnewayBoth) if cur.ext.is_some() => None,
                    Some(Kw::Stream) if cur.stream.is_some() || self.peek() != Some(b'=') => None,
                    k => k,
                }
            };
            match kw {
                Some(Kw::Bothway) => cur.dir = Some(TopologyDirection::Bothway),
                Some(Kw::Isolate) => cur.dir = Some(TopologyDirection::Isolate),
                Some(Kw::Oneway) => cur.dir = Some(TopologyDirection::Oneway),
                Some(k @ (Kw::OnewayExternal | Kw::OnewayBoth)) => {
                    if cur.dir.is_none() {
                        cur.dir = Some(TopologyDirection::Oneway);
                    }
                    cur.ext = Some(if k == Kw::OnewayBoth {
                        TopologyDirectionExtension::OnewayBoth
                    } else {
                        TopologyDirectionExtension::OnewayExternal
                    });
                }
                Some(Kw::Stream) => {
                    self.equal()?;
                    cur.stream = Some(self.u16_word("a stream id")?);
                }
                _ => {
                    let tid = self.termination_id_from(at, w)?;
                    if cur.from.is_none() {
                        cur.from = Some(tid);
                    } else if cur.to.is_none() {
                        cur.to = Some(tid);
                    } else {
                        let done = std::mem::replace(&mut cur, empty());
                        out.push(finish(self, done)?);
                        cur.from = Some(tid);
                    }
                }
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        out.push(finish(self, cur)?);
        Ok(out)
    }

    /// `ContextAudit { ... }`.
    fn context_audit(&mut self) -> R<ContextAttrAuditRequest> {
        let mut car = ContextAttrAuditRequest {
            topology: false,
            emergency: false,
            priority: false,
            iepscallind: false,
            context_prop_aud: None,
            select_priority: None,
            select_emergency: None,
            select_iepscallind: None,
            select_logic: None,
        };
        self.context_audit_items(&mut car)?;
        Ok(car)
    }

    /// The braced item list of `ContextAudit` (or of a `ContextAttr`
    /// inside it).
    fn context_audit_items(&mut self, car: &mut ContextAttrAuditRequest) -> R<()> {
        self.open()?;
        let mut n = 0;
        loop {
            const WHAT: &str = "a context audit property";
            let (at, w) = self.word(WHAT)?;
            match keyword(w) {
                Some(Kw::Topology) => car.topology = true,
                Some(Kw::Emergency) => car.emergency = true,
                Some(Kw::Priority) => {
                    if self.eat(b'=') {
                        if car.select_priority.is_some() {
                            return Err(self.dup(at, "Priority"));
                        }
                        car.select_priority = Some(self.u8_word("a priority", u8::MAX)?);
                    } else {
                        car.priority = true;
                    }
                }
                Some(Kw::Ieps) => {
                    if self.eat(b'=') {
                        if car.select_iepscallind.is_some() {
                            return Err(self.dup(at, "IEPSCall"));
                        }
                        car.select_iepscallind = Some(self.on_off()?);
                    } else {
                        car.iepscallind = true;
                    }
                }
                Some(Kw::EmergencyValue) => {
                    self.equal()?;
                    let (at2, w2, k2) = self.kw("Emergency or EmergencyOff")?;
                    let v = match k2 {
                        Some(Kw::Emergency) => true,
                        Some(Kw::EmergencyOff) => false,
                        _ => return Err(self.unknown(at2, w2, "Emergency or EmergencyOff")),
                    };
                    if car.select_emergency.is_some() {
                        return Err(self.dup(at, "EmergencyValue"));
                    }
                    car.select_emergency = Some(v);
                }
                Some(k @ (Kw::AndLgc | Kw::OrLgc)) => {
                    if car.select_logic.is_some() {
                        return Err(self.dup(at, "selection logic"));
                    }
                    car.select_logic = Some(if k == Kw::AndLgc {
                        SelectLogic::And
                    } else {
                        SelectLogic::Or
                    });
                }
                Some(Kw::ContextAttr) => {
                    // `ContextAudit { ContextAttr { audit props } }`; a
                    // property value or ContextList in a selector has no
                    // place in the model and is dropped, as OTP does.
                    self.context_audit_items(car)?;
                }
                Some(Kw::ContextList) => {
                    self.context_list()?;
                }
                _ => {
                    let p = self.ind_aud_prop(at, w)?;
                    push_ind_aud(car.context_prop_aud.get_or_insert_with(Vec::new), p);
                }
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------
    // Terminations and names
    // ---------------------------------------------------------------

    /// A termination id as written (`ROOT` in any case becomes `ROOT`).
    fn termination_id_from(&self, _at: usize, w: &[u8]) -> R<TerminationId> {
        if w.eq_ignore_ascii_case(b"root") {
            Ok(TerminationId::root())
        } else {
            Ok(TerminationId::new(ascii(w)))
        }
    }

    fn termination_id(&mut self) -> R<TerminationId> {
        let (at, w) = self.word("a termination id")?;
        self.termination_id_from(at, w)
    }

    /// `tid` or (v3) `[tid, tid, ...]`.
    fn term_id_list(&mut self) -> R<Vec<TerminationId>> {
        if self.eat(b'[') {
            self.enter()?;
            let mut v = Vec::new();
            loop {
                v.push(self.termination_id()?);
                if v.len() > self.limits.max_list_len {
                    return Err(self.err_at(
                        self.pos,
                        TextErrorKind::TooManyItems {
                            max: self.limits.max_list_len,
                        },
                    ));
                }
                if !self.eat(b',') {
                    break;
                }
            }
            self.expect(b']', "`]`")?;
            self.leave();
            Ok(v)
        } else {
            Ok(vec![self.termination_id()?])
        }
    }

    /// `{ tid, tid, ... }`.
    fn termination_id_braces(&mut self) -> R<Vec<TerminationId>> {
        self.open()?;
        let mut v = Vec::new();
        let mut n = 0;
        loop {
            v.push(self.termination_id()?);
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(v)
    }

    /// `pkgdName`: `package/item` (either may be `*`), lower-cased.
    fn pkgd_name_from(&self, at: usize, w: &[u8]) -> R<CompactString> {
        match w.iter().position(|&b| b == b'/') {
            Some(i) if i > 0 && i + 1 < w.len() => Ok(lower(w)),
            _ => Err(self.invalid(at, w, "package name (package/item)")),
        }
    }

    fn pkgd_name(&mut self) -> R<CompactString> {
        let (at, w) = self.word("a package name (package/item)")?;
        self.pkgd_name_from(at, w)
    }

    /// `pkgdName parmValue`.
    fn property_parm(&mut self) -> R<PropertyParm> {
        let name = self.pkgd_name()?;
        self.parm_value(name.to_string())
    }

    /// `= value`, `= {a,b}`, `= [a,b]`, `= [a:b]`, `# value`, `< value`,
    /// `> value` after a name.
    fn parm_value(&mut self, name: String) -> R<PropertyParm> {
        let relation = match self.peek() {
            Some(b'#') => Some(Relation::UnequalTo),
            Some(b'<') => Some(Relation::SmallerThan),
            Some(b'>') => Some(Relation::GreaterThan),
            Some(b'=') => None,
            _ => return Err(self.expected("`=`, `#`, `<` or `>`")),
        };
        self.pos += 1;
        if let Some(r) = relation {
            return Ok(PropertyParm {
                name: name.into(),
                value: vec![self.value()?].into(),
                extra_info: Some(ExtraInfo::Relation(r)),
            });
        }
        match self.peek() {
            Some(b'{') => {
                self.open()?;
                let mut value = Vec::new();
                let mut n = 0;
                loop {
                    value.push(self.value()?);
                    if !self.next_item(&mut n)? {
                        break;
                    }
                }
                Ok(PropertyParm {
                    name: name.into(),
                    value: value.into(),
                    extra_info: Some(ExtraInfo::Sublist(false)),
                })
            }
            Some(b'[') => {
                self.pos += 1;
                self.enter()?;
                let first = self.value()?;
                let extra = if self.eat(b':') {
                    let second = self.value()?;
                    self.expect(b']', "`]`")?;
                    self.leave();
                    return Ok(PropertyParm {
                        name: name.into(),
                        value: vec![first, second].into(),
                        extra_info: Some(ExtraInfo::Range(true)),
                    });
                } else {
                    ExtraInfo::Sublist(true)
                };
                let mut value = vec![first];
                while self.eat(b',') {
                    value.push(self.value()?);
                    if value.len() > self.limits.max_list_len {
                        return Err(self.err_at(
                            self.pos,
                            TextErrorKind::TooManyItems {
                                max: self.limits.max_list_len,
                            },
                        ));
                    }
                }
                self.expect(b']', "`]`")?;
                self.leave();
                Ok(PropertyParm {
                    name: name.into(),
                    value: value.into(),
                    extra_info: Some(extra),
                })
            }
            _ => Ok(PropertyParm {
                name: name.into(),
                value: vec![self.value()?].into(),
                extra_info: None,
            }),
        }
    }

    /// `Error = code { "text" }`, the keyword not yet read.
    fn error_descriptor(&mut self) -> R<ErrorDescriptor> {
        self.expect_kw(Kw::Error, "Error")?;
        self.error_descriptor_body()
    }

    fn error_descriptor_body(&mut self) -> R<ErrorDescriptor> {
        self.equal()?;
        let error_code = self.u16_word("an error code")?;
        self.open()?;
        let error_text = if self.peek() == Some(b'"') {
            Some(self.quoted()?)
        } else {
            None
        };
        self.close()?;
        Ok(ErrorDescriptor {
            error_code,
            error_text,
        })
    }

    // ---------------------------------------------------------------
    // Commands
    // ---------------------------------------------------------------

    fn command_request(&mut self, at: usize, k: Kw, w: &[u8]) -> R<Command> {
        match k {
            Kw::Add | Kw::Move | Kw::Modify => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                let mut descriptors = Vec::new();
                if self.peek() == Some(b'{') {
                    self.open()?;
                    let mut n = 0;
                    loop {
                        if let Some(d) = self.amm_descriptor()? {
                            descriptors.push(d);
                        }
                        if !self.next_item(&mut n)? {
                            break;
                        }
                    }
                }
                let req = AmmRequest {
                    termination_ids: termination_ids.into(),
                    descriptors,
                };
                Ok(match k {
                    Kw::Add => Command::Add(req),
                    Kw::Move => Command::Move(req),
                    _ => Command::Modify(req),
                })
            }
            Kw::Subtract => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                let audit_descriptor = self.opt_audit_braces()?;
                Ok(Command::Subtract(SubtractRequest {
                    termination_ids: termination_ids.into(),
                    audit_descriptor,
                }))
            }
            Kw::AuditValue | Kw::AuditCap => {
                self.equal()?;
                let mut tids = self.term_id_list()?;
                let audit_descriptor = self
                    .opt_audit_braces()?
                    .unwrap_or_else(AuditDescriptor::empty);
                let termination_id_list = if tids.len() > 1 {
                    Some(tids.clone())
                } else {
                    None
                };
                let req = AuditRequest {
                    termination_id: tids.swap_remove(0),
                    audit_descriptor,
                    termination_id_list,
                };
                Ok(if k == Kw::AuditValue {
                    Command::AuditValue(req)
                } else {
                    Command::AuditCapability(req)
                })
            }
            Kw::Notify => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                self.open()?;
                let mut oe = None;
                let mut err = None;
                let mut n = 0;
                loop {
                    let (at, w, k) = self.kw("ObservedEvents or Error")?;
                    match k {
                        Some(Kw::ObservedEvents) if oe.is_none() => {
                            oe = Some(self.observed_events()?)
                        }
                        Some(Kw::Error) if err.is_none() => {
                            err = Some(self.error_descriptor_body()?)
                        }
                        Some(Kw::ObservedEvents) => return Err(self.dup(at, "ObservedEvents")),
                        Some(Kw::Error) => return Err(self.dup(at, "Error")),
                        _ => return Err(self.unknown(at, w, "ObservedEvents or Error")),
                    }
                    if !self.next_item(&mut n)? {
                        break;
                    }
                }
                let observed_events_descriptor = oe.ok_or_else(|| {
                    self.err_at(
                        at,
                        TextErrorKind::Missing {
                            what: "ObservedEvents in Notify",
                        },
                    )
                })?;
                Ok(Command::Notify(NotifyRequest {
                    termination_ids: termination_ids.into(),
                    observed_events_descriptor,
                    error_descriptor: err,
                }))
            }
            Kw::ServiceChange => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                self.open()?;
                self.expect_kw(Kw::Services, "Services")?;
                let service_change_parms = self.service_change_parm()?;
                self.close()?;
                Ok(Command::ServiceChange(Box::new(ServiceChangeRequest {
                    termination_ids: termination_ids.into(),
                    service_change_parms,
                })))
            }
            _ => Err(self.unknown(at, w, "a command")),
        }
    }

    /// `{ Audit { ... } }` or nothing.
    fn opt_audit_braces(&mut self) -> R<Option<AuditDescriptor>> {
        if self.peek() != Some(b'{') {
            return Ok(None);
        }
        self.open()?;
        self.expect_kw(Kw::Audit, "Audit")?;
        let d = self.audit_descriptor()?;
        self.close()?;
        Ok(Some(d))
    }

    /// A descriptor of Add, Move or Modify; `None` for a v2/v3 Modem
    /// descriptor, which OTP drops.
    fn amm_descriptor(&mut self) -> R<Option<AmmDescriptor>> {
        const WHAT: &str = "a descriptor (Media, Events, Signals, DigitMap, ...)";
        let (at, w, k) = self.kw(WHAT)?;
        Ok(Some(match k {
            Some(Kw::Media) => AmmDescriptor::Media(self.media_descriptor()?),
            Some(Kw::Modem) => {
                // Deprecated since H.248.1 Corrigendum 1: OTP's v2 and v3
                // parsers drop it, its v1 parser keeps it.
                let d = self.modem_descriptor()?;
                if self.version > 1 {
                    return Ok(None);
                }
                AmmDescriptor::Modem(d)
            }
            Some(Kw::Mux) => AmmDescriptor::Mux(self.mux_descriptor()?),
            Some(Kw::Events) => AmmDescriptor::Events(self.events_descriptor()?),
            Some(Kw::EventBuffer) => AmmDescriptor::EventBuffer(self.event_buffer_descriptor()?),
            Some(Kw::Signals) => AmmDescriptor::Signals(self.signals_descriptor()?),
            Some(Kw::DigitMap) => match self.digit_map()? {
                Dm::Desc(d) => AmmDescriptor::DigitMap(d),
                Dm::Bare => return Err(self.expected("`=` or `{` after DigitMap")),
            },
            Some(Kw::Audit) => AmmDescriptor::Audit(self.audit_descriptor()?),
            Some(Kw::Stats) => AmmDescriptor::Statistics(self.statistics_descriptor()?),
            _ => return Err(self.unknown(at, w, WHAT)),
        }))
    }

    // ---------------------------------------------------------------
    // Media
    // ---------------------------------------------------------------

    fn media_descriptor(&mut self) -> R<MediaDescriptor> {
        self.open()?;
        let mut ts: Option<TerminationStateDescriptor> = None;
        let mut one: Option<StreamParms> = None;
        let mut multi: Vec<StreamDescriptor> = Vec::new();
        let mut n = 0;
        if self.peek() == Some(b'}') {
            self.close()?;
        } else {
            loop {
                const WHAT: &str = "a media parameter (Stream, Local, Remote, LocalControl, TerminationState, Statistics)";
                let (at, w, k) = self.kw(WHAT)?;
                match k {
                    Some(Kw::TerminationState) => {
                        if ts.is_some() {
                            return Err(self.dup(at, "TerminationState"));
                        }
                        ts = Some(self.termination_state()?);
                    }
                    Some(Kw::Stream) => {
                        if one.is_some() {
                            return Err(self.invalid(at, w, "Stream after stream parameters"));
                        }
                        self.equal()?;
                        let stream_id = self.u16_word("a stream id")?;
                        self.open()?;
                        let mut sp = empty_stream_parms();
                        let mut m = 0;
                        loop {
                            let (at, w, k) = self.kw("a stream parameter")?;
                            self.stream_parm(at, w, k, &mut sp)?;
                            if !self.next_item(&mut m)? {
                                break;
                            }
                        }
                        multi.push(StreamDescriptor {
                            stream_id,
                            stream_parms: sp,
                        });
                    }
                    Some(Kw::Local | Kw::Remote | Kw::LocalControl | Kw::Stats) => {
                        if !multi.is_empty() {
                            return Err(self.invalid(at, w, "stream parameter after Stream"));
                        }
                        let sp = one.get_or_insert_with(empty_stream_parms);
                        self.stream_parm(at, w, k, sp)?;
                    }
                    _ => return Err(self.unknown(at, w, WHAT)),
                }
                if !self.next_item(&mut n)? {
                    break;
                }
            }
        }
        let streams = match one {
            Some(sp) => Some(Streams::OneStream(sp)),
            None if !multi.is_empty() => Some(Streams::MultiStream(multi.into())),
            None => None,
        };
        Ok(MediaDescriptor {
            term_state_descr: ts,
            streams,
        })
    }

    fn stream_parm(&mut self, at: usize, w: &[u8], k: Option<Kw>, sp: &mut StreamParms) -> R<()> {
        match k {
            Some(Kw::Local) => {
                if sp.local_descriptor.is_some() {
                    return Err(self.dup(at, "Local"));
                }
                sp.local_descriptor = Some(LocalRemoteDescriptor {
                    prop_grps: self.sdp()?.into(),
                });
            }
            Some(Kw::Remote) => {
                if sp.remote_descriptor.is_some() {
                    return Err(self.dup(at, "Remote"));
                }
                sp.remote_descriptor = Some(LocalRemoteDescriptor {
                    prop_grps: self.sdp()?.into(),
                });
            }
            Some(Kw::LocalControl) => {
                let lcd =
                    sp.local_control_descriptor
                        .get_or_insert_with(|| LocalControlDescriptor {
                            stream_mode: None,
                            reserve_value: None,
                            reserve_group: None,
                            property_parms: Vec::new(),
                        });
                // Field borrow ends before the parser is used again.
                let mut l = std::mem::replace(
                    lcd,
                    LocalControlDescriptor {
                        stream_mode: None,
                        reserve_value: None,
                        reserve_group: None,
                        property_parms: Vec::new(),
                    },
                );
                self.local_control(&mut l)?;
                sp.local_control_descriptor = Some(l);
            }
            Some(Kw::Stats) => {
                if sp.statistics_descriptor.is_some() {
                    return Err(self.dup(at, "Statistics"));
                }
                sp.statistics_descriptor = Some(self.statistics_descriptor()?);
            }
            _ => {
                return Err(self.unknown(
                    at,
                    w,
                    "a stream parameter (Local, Remote, LocalControl, Statistics)",
                ))
            }
        }
        Ok(())
    }

    /// `Local { SDP }` / `Remote { SDP }`: property groups, a new group
    /// at each `v=` line; each line `name=value`.
    fn sdp(&mut self) -> R<Vec<Vec<PropertyParm>>> {
        let (base, text) = self.octet_string()?;
        let mut groups: Vec<Vec<PropertyParm>> = Vec::new();
        let mut group: Vec<PropertyParm> = Vec::new();
        let mut i = 0;
        while i < text.len() {
            // Skip blank space and line ends before a name.
            while i < text.len() && is_ws(text[i]) {
                i += 1;
            }
            if i >= text.len() {
                break;
            }
            let name_start = i;
            while i < text.len() && text[i] != b'=' {
                if !is_safe(text[i]) {
                    return Err(self.invalid(base + i, &text[name_start..=i], "SDP line name"));
                }
                i += 1;
            }
            let name = &text[name_start..i];
            if i >= text.len() {
                // A name running to the end: an empty value, as OTP. It is
                // written back as `name=`, so a `v` starts a group here too.
                if name == b"v" && !group.is_empty() {
                    groups.push(std::mem::take(&mut group));
                }
                group.push(PropertyParm {
                    name: ascii(name),
                    value: smallvec![CompactString::default()],
                    extra_info: None,
                });
                break;
            }
            if name.is_empty() {
                return Err(self.invalid(base + i, b"=", "SDP line name"));
            }
            i += 1; // '='
            let value_start = i;
            while i < text.len() && text[i] != b'\n' && text[i] != b'\r' {
                i += 1;
            }
            if name == b"v" && !group.is_empty() {
                groups.push(std::mem::take(&mut group));
            }
            group.push(PropertyParm {
                name: ascii(name),
                value: vec![self.utf8(base + value_start, &text[value_start..i])?].into(),
                extra_info: None,
            });
            if group.len() > self.limits.max_list_len {
                return Err(self.err_at(
                    base + i,
                    TextErrorKind::TooManyItems {
                        max: self.limits.max_list_len,
                    },
                ));
            }
        }
        if !group.is_empty() {
            groups.push(group);
        }
        Ok(groups)
    }

    fn local_control(&mut self, l: &mut LocalControlDescriptor) -> R<()> {
        self.open()?;
        let mut n = 0;
        loop {
            let (at, w) = self.word("a LocalControl parameter")?;
            match keyword(w) {
                Some(Kw::Mode) => {
                    if l.stream_mode.is_some() {
                        return Err(self.dup(at, "Mode"));
                    }
                    self.equal()?;
                    l.stream_mode = Some(self.stream_mode()?);
                }
                Some(Kw::ReservedGroup) => {
                    if l.reserve_group.is_some() {
                        return Err(self.dup(at, "ReservedGroup"));
                    }
                    self.equal()?;
                    l.reserve_group = Some(self.on_off()?);
                }
                Some(Kw::ReservedValue) => {
                    if l.reserve_value.is_some() {
                        return Err(self.dup(at, "ReservedValue"));
                    }
                    self.equal()?;
                    l.reserve_value = Some(self.on_off()?);
                }
                _ => {
                    let name = self.pkgd_name_from(at, w)?;
                    l.property_parms.push(self.parm_value(name.to_string())?);
                }
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(())
    }

    fn stream_mode(&mut self) -> R<StreamMode> {
        const WHAT: &str = "a stream mode (SendOnly, ReceiveOnly, SendReceive, Inactive, LoopBack)";
        let (at, w, k) = self.kw(WHAT)?;
        Ok(match k {
            Some(Kw::Sendonly) => StreamMode::SendOnly,
            Some(Kw::Recvonly) => StreamMode::RecvOnly,
            Some(Kw::Sendrecv) => StreamMode::SendRecv,
            Some(Kw::Inactive) => StreamMode::Inactive,
            Some(Kw::Loopback) => StreamMode::LoopBack,
            _ => return Err(self.unknown(at, w, WHAT)),
        })
    }

    fn service_state(&mut self) -> R<ServiceState> {
        const WHAT: &str = "a service state (Test, OutOfService, InService)";
        let (at, w, k) = self.kw(WHAT)?;
        Ok(match k {
            Some(Kw::Test) => ServiceState::Test,
            Some(Kw::OutOfSvc) => ServiceState::OutOfSvc,
            Some(Kw::InSvc) => ServiceState::InSvc,
            _ => return Err(self.unknown(at, w, WHAT)),
        })
    }

    fn termination_state(&mut self) -> R<TerminationStateDescriptor> {
        self.open()?;
        let mut t = TerminationStateDescriptor {
            property_parms: Vec::new(),
            event_buffer_control: None,
            service_state: None,
        };
        let mut n = 0;
        loop {
            let (at, w) = self.word("a TerminationState parameter")?;
            match keyword(w) {
                Some(Kw::ServiceStates) => {
                    if t.service_state.is_some() {
                        return Err(self.dup(at, "ServiceStates"));
                    }
                    self.equal()?;
                    t.service_state = Some(self.service_state()?);
                }
                Some(Kw::Buffer) => {
                    if t.event_buffer_control.is_some() {
                        return Err(self.dup(at, "Buffer"));
                    }
                    self.equal()?;
                    let (at2, w2, k2) = self.kw("Off or LockStep")?;
                    t.event_buffer_control = Some(match k2 {
                        Some(Kw::Off) => EventBufferControl::Off,
                        Some(Kw::LockStep) => EventBufferControl::LockStep,
                        _ => return Err(self.unknown(at2, w2, "Off or LockStep")),
                    });
                }
                _ => {
                    let name = self.pkgd_name_from(at, w)?;
                    t.property_parms.push(self.parm_value(name.to_string())?);
                }
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(t)
    }

    /// `= type [{props}]` or `[type, type] [{props}]` after `Modem`.
    fn modem_descriptor(&mut self) -> R<ModemDescriptor> {
        let mut mtl = Vec::new();
        if self.eat(b'[') {
            self.enter()?;
            loop {
                mtl.push(self.modem_type()?);
                if mtl.len() > self.limits.max_list_len {
                    return Err(self.err_at(
                        self.pos,
                        TextErrorKind::TooManyItems {
                            max: self.limits.max_list_len,
                        },
                    ));
                }
                if !self.eat(b',') {
                    break;
                }
            }
            self.expect(b']', "`]`")?;
            self.leave();
        } else {
            self.equal()?;
            mtl.push(self.modem_type()?);
        }
        let mut mpl = Vec::new();
        if self.peek() == Some(b'{') {
            self.open()?;
            let mut n = 0;
            loop {
                mpl.push(self.property_parm()?);
                if !self.next_item(&mut n)? {
                    break;
                }
            }
        }
        Ok(ModemDescriptor {
            mtl,
            mpl,
            non_standard_data: None,
        })
    }

    fn modem_type(&mut self) -> R<ModemType> {
        const WHAT: &str = "a modem type";
        let (at, w, k) = self.kw(WHAT)?;
        Ok(match k {
            Some(Kw::V18) => ModemType::V18,
            Some(Kw::V22) => ModemType::V22,
            Some(Kw::V22bis) => ModemType::V22bis,
            Some(Kw::V32) => ModemType::V32,
            Some(Kw::V32bis) => ModemType::V32bis,
            Some(Kw::V34) => ModemType::V34,
            Some(Kw::V90) => ModemType::V90,
            Some(Kw::V91) => ModemType::V91,
            Some(Kw::SynchIsdn) => ModemType::SynchIsdn,
            _ => return Err(self.unknown(at, w, WHAT)),
        })
    }

    /// `= type { tids }` after `Mux`.
    fn mux_descriptor(&mut self) -> R<MuxDescriptor> {
        self.equal()?;
        const WHAT: &str = "a multiplex type (H221, H223, H226, V76, Nx64Kservice)";
        let (at, w, k) = self.kw(WHAT)?;
        let mux_type = match k {
            Some(Kw::H221) => MuxType::H221,
            Some(Kw::H223) => MuxType::H223,
            Some(Kw::H226) => MuxType::H226,
            Some(Kw::V76) => MuxType::V76,
            Some(Kw::Nx64k) => MuxType::Nx64k,
            _ => return Err(self.unknown(at, w, WHAT)),
        };
        let term_list = self.termination_id_braces()?;
        Ok(MuxDescriptor {
            mux_type,
            term_list,
            non_standard_data: None,
        })
    }

    // ---------------------------------------------------------------
    // Events and signals
    // ---------------------------------------------------------------

    fn request_id(&mut self) -> R<u32> {
        let (at, w) = self.word("a request id")?;
        if w == b"*" {
            return Ok(u32::MAX);
        }
        Ok(self.number(at, w, "a request id", u32::MAX.into())? as u32)
    }

    /// `Events` alone, or `Events = id { event, ... }`.
    fn events_descriptor(&mut self) -> R<EventsDescriptor> {
        if !self.eat(b'=') {
            return Ok(EventsDescriptor {
                request_id: None,
                event_list: Vec::new(),
            });
        }
        let request_id = Some(self.request_id()?);
        self.open()?;
        let mut event_list = Vec::new();
        let mut n = 0;
        loop {
            let pkgd_name = self.pkgd_name()?;
            let ep = self.event_parms(EvKind::Requested)?;
            let event_action = ep.has_action.then_some(RequestedActions {
                keep_active: ep.keep_active,
                event_dm: ep.event_dm,
                second_event: ep.second_event,
                signals_descriptor: ep.signals,
                notify_behaviour: ep.notify_behaviour,
                reset_events_descriptor: ep.reset,
            });
            event_list.push(RequestedEvent {
                pkgd_name,
                stream_id: ep.stream_id,
                event_action,
                ev_par_list: ep.params.into(),
            });
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(EventsDescriptor {
            request_id,
            event_list,
        })
    }

    /// The optional `{ ... }` parameters of an event.
    fn event_parms(&mut self, kind: EvKind) -> R<EventParms> {
        let mut ep = EventParms::default();
        if self.peek() != Some(b'{') {
            return Ok(ep);
        }
        self.open()?;
        let mut n = 0;
        loop {
            let (at, w) = self.word("an event parameter")?;
            let k = if kind == EvKind::Plain {
                keyword(w).filter(|k| *k == Kw::Stream)
            } else {
                keyword(w)
            };
            match k {
                Some(Kw::Stream) => {
                    if ep.stream_id.is_some() {
                        return Err(self.dup(at, "Stream"));
                    }
                    self.equal()?;
                    ep.stream_id = Some(self.u16_word("a stream id")?);
                }
                Some(Kw::KeepActive) => {
                    if ep.keep_active.is_some() {
                        return Err(self.dup(at, "KeepActive"));
                    }
                    ep.keep_active = Some(true);
                    ep.has_action = true;
                }
                Some(Kw::ResetEventsDescriptor) => {
                    ep.reset = true;
                    ep.has_action = true;
                }
                Some(Kw::DigitMap) => {
                    if ep.event_dm.is_some() {
                        return Err(self.dup(at, "DigitMap"));
                    }
                    let d = match self.digit_map()? {
                        Dm::Desc(d) => d,
                        Dm::Bare => return Err(self.expected("`=` or `{` after DigitMap")),
                    };
                    ep.event_dm = Some(match (d.digit_map_value, d.digit_map_name) {
                        (Some(v), _) => EventDm::DigitMapValue(v),
                        (None, Some(name)) => EventDm::DigitMapName(name),
                        (None, None) => return Err(self.invalid(at, w, "DigitMap (empty)")),
                    });
                    ep.has_action = true;
                }
                Some(Kw::ImmediateNotify | Kw::NeverNotify | Kw::RegulatedNotify) => {
                    if ep.notify_behaviour.is_some() {
                        return Err(self.dup(at, "notification behaviour"));
                    }
                    ep.notify_behaviour = Some(match k {
                        Some(Kw::ImmediateNotify) => NotifyBehaviour::NotifyImmediate,
                        Some(Kw::NeverNotify) => NotifyBehaviour::NeverNotify,
                        _ => {
                            let mut red = RegulatedEmbeddedDescriptor {
                                second_event: None,
                                signals_descriptor: None,
                            };
                            if self.peek() == Some(b'{') {
                                self.open()?;
                                self.expect_kw(Kw::Embed, "Embed")?;
                                let (sd, se) = self.embed(EvKind::Requested)?;
                                red.signals_descriptor = sd;
                                red.second_event = se;
                                self.close()?;
                            }
                            NotifyBehaviour::NotifyRegulated(Box::new(red))
                        }
                    });
                    ep.has_action = true;
                }
                Some(Kw::Embed) => {
                    if ep.signals.is_some() || ep.second_event.is_some() {
                        return Err(self.dup(at, "Embed"));
                    }
                    let (sd, se) = self.embed(kind)?;
                    ep.signals = sd;
                    ep.second_event = se;
                    ep.has_action = true;
                }
                _ => {
                    let name = lower(w);
                    if name == "st" || name == "stream" {
                        // Reached only for a non-keyword spelling; kept
                        // for symmetry with OTP's eventStreamOrOther.
                        self.equal()?;
                        ep.stream_id = Some(self.u16_word("a stream id")?);
                    } else {
                        ep.params.push(self.parm_value(name.to_string())?);
                    }
                }
            }
            if ep.params.len() > self.limits.max_list_len {
                return Err(self.err_at(
                    self.pos,
                    TextErrorKind::TooManyItems {
                        max: self.limits.max_list_len,
                    },
                ));
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(ep)
    }

    /// `{ Signals {...} [, Events = id {...}] }` or `{ Events ... }` after
    /// `Embed`. Inside embedded events (`kind == Second`) only signals.
    fn embed(&mut self, kind: EvKind) -> R<(Option<SignalsDescriptor>, Option<EventsDescriptor>)> {
        self.open()?;
        let mut sd = None;
        let mut se = None;
        let (at, w, k) = self.kw("Signals or Events")?;
        match k {
            Some(Kw::Signals) => {
                sd = Some(self.signals_descriptor()?);
                if kind != EvKind::Second && self.eat(b',') {
                    self.expect_kw(Kw::Events, "Events")?;
                    se = Some(self.second_events()?);
                }
            }
            Some(Kw::Events) if kind != EvKind::Second => se = Some(self.second_events()?),
            _ => return Err(self.unknown(at, w, "Signals or Events")),
        }
        self.close()?;
        Ok((sd, se))
    }

    /// Embedded `Events` (after the keyword).
    fn second_events(&mut self) -> R<EventsDescriptor> {
        if !self.eat(b'=') {
            return Ok(EventsDescriptor {
                request_id: None,
                event_list: Vec::new(),
            });
        }
        let request_id = Some(self.request_id()?);
        self.open()?;
        let mut event_list = Vec::new();
        let mut n = 0;
        loop {
            let pkgd_name = self.pkgd_name()?;
            let ep = self.event_parms(EvKind::Second)?;
            let event_action = ep.has_action.then_some(RequestedActions {
                keep_active: ep.keep_active,
                event_dm: ep.event_dm,
                signals_descriptor: ep.signals,
                notify_behaviour: ep.notify_behaviour,
                reset_events_descriptor: ep.reset,
                second_event: None,
            });
            event_list.push(RequestedEvent {
                pkgd_name,
                stream_id: ep.stream_id,
                event_action,
                ev_par_list: ep.params.into(),
            });
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(EventsDescriptor {
            request_id,
            event_list,
        })
    }

    /// `Signals` alone, `Signals { }` or `Signals { signal, ... }`.
    fn signals_descriptor(&mut self) -> R<SignalsDescriptor> {
        let mut out = Vec::new();
        if self.peek() != Some(b'{') {
            return Ok(out.into());
        }
        self.open()?;
        if self.peek() == Some(b'}') {
            self.close()?;
            return Ok(out.into());
        }
        let mut n = 0;
        loop {
            if self.peek_kw() == Some(Kw::SignalList) {
                self.word("SignalList")?;
                self.equal()?;
                let id = self.u16_word("a signal list id")?;
                self.open()?;
                let mut signal_list = Vec::new();
                let mut m = 0;
                loop {
                    signal_list.push(self.signal_request()?);
                    if !self.next_item(&mut m)? {
                        break;
                    }
                }
                out.push(SignalRequest::SeqSigList(SeqSigList { id, signal_list }));
            } else {
                out.push(SignalRequest::Signal(self.signal_request()?));
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(out.into())
    }

    /// `pkgdName [{ sigParameter, ... }]`.
    fn signal_request(&mut self) -> R<Signal> {
        let signal_name = self.pkgd_name()?;
        let mut s = Signal {
            signal_name,
            stream_id: None,
            sig_type: None,
            duration: None,
            notify_completion: None,
            keep_active: None,
            sig_par_list: Vec::new(),
            direction: None,
            request_id: None,
            intersig_delay: None,
        };
        if self.peek() != Some(b'{') {
            return Ok(s);
        }
        self.open()?;
        let mut n = 0;
        loop {
            let (at, w) = self.word("a signal parameter")?;
            match keyword(w) {
                Some(Kw::Stream) => {
                    if s.stream_id.is_some() {
                        return Err(self.dup(at, "Stream"));
                    }
                    self.equal()?;
                    s.stream_id = Some(self.u16_word("a stream id")?);
                }
                Some(Kw::SignalType) => {
                    if s.sig_type.is_some() {
                        return Err(self.dup(at, "SignalType"));
                    }
                    self.equal()?;
                    const WHAT: &str = "a signal type (OnOff, TimeOut, Brief)";
                    let (at2, w2, k2) = self.kw(WHAT)?;
                    s.sig_type = Some(match k2 {
                        Some(Kw::OnOff) => SignalType::OnOff,
                        Some(Kw::TimeOut) => SignalType::TimeOut,
                        Some(Kw::Brief) => SignalType::Brief,
                        _ => return Err(self.unknown(at2, w2, WHAT)),
                    });
                }
                Some(Kw::Duration) => {
                    if s.duration.is_some() {
                        return Err(self.dup(at, "Duration"));
                    }
                    self.equal()?;
                    s.duration = Some(self.u16_word("a duration")?);
                }
                Some(Kw::NotifyCompletion) => {
                    if s.notify_completion.is_some() {
                        return Err(self.dup(at, "NotifyCompletion"));
                    }
                    self.equal()?;
                    self.open()?;
                    let mut list = Vec::new();
                    let mut m = 0;
                    loop {
                        const WHAT: &str =
                            "a notification reason (TimeOut, IntByEvent, IntBySigDescr, OtherReason, Iteration)";
                        let (at2, w2, k2) = self.kw(WHAT)?;
                        list.push(match k2 {
                            Some(Kw::TimeOut) => NotifyCompletion::OnTimeOut,
                            Some(Kw::IntByEvent) => NotifyCompletion::OnInterruptByEvent,
                            Some(Kw::IntBySigDescr) => {
                                NotifyCompletion::OnInterruptByNewSignalDescr
                            }
                            Some(Kw::OtherReason) => NotifyCompletion::OtherReason,
                            Some(Kw::Iteration) => NotifyCompletion::OnIteration,
                            _ => return Err(self.unknown(at2, w2, WHAT)),
                        });
                        if !self.next_item(&mut m)? {
                            break;
                        }
                    }
                    s.notify_completion = Some(list);
                }
                Some(Kw::KeepActive) => {
                    if s.keep_active.is_some() {
                        return Err(self.dup(at, "KeepActive"));
                    }
                    s.keep_active = Some(true);
                }
                Some(Kw::Direction) => {
                    if s.direction.is_some() {
                        return Err(self.dup(at, "SPADirection"));
                    }
                    self.equal()?;
                    const WHAT: &str = "a signal direction (Internal, External, Both)";
                    let (at2, w2, k2) = self.kw(WHAT)?;
                    s.direction = Some(match k2 {
                        Some(Kw::Internal) => SignalDirection::Internal,
                        Some(Kw::External) => SignalDirection::External,
                        Some(Kw::Both) => SignalDirection::Both,
                        _ => return Err(self.unknown(at2, w2, WHAT)),
                    });
                }
                Some(Kw::RequestId) => {
                    if s.request_id.is_some() {
                        return Err(self.dup(at, "SPARequestID"));
                    }
                    self.equal()?;
                    s.request_id = Some(self.request_id()?);
                }
                Some(Kw::IntsigDelay) => {
                    if s.intersig_delay.is_some() {
                        return Err(self.dup(at, "Intersignal"));
                    }
                    self.equal()?;
                    s.intersig_delay = Some(self.u16_word("an inter-signal delay")?);
                }
                _ => {
                    let name = lower(w);
                    s.sig_par_list.push(self.parm_value(name.to_string())?);
                }
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(s)
    }

    /// After `DigitMap`: `= name`, `= name { value }`, `= { value }`,
    /// `{ value }`, or nothing (a bare token, in audits).
    fn digit_map(&mut self) -> R<Dm> {
        let mut name = None;
        if self.eat(b'=') {
            if self.peek() != Some(b'{') {
                let (_, w) = self.word("a digit map name or `{`")?;
                name = Some(lower(w));
            }
        } else if self.peek() != Some(b'{') {
            return Ok(Dm::Bare);
        }
        let value = if self.peek() == Some(b'{') {
            let (at, body) = self.octet_string()?;
            self.digit_map_value(at, body)?
        } else {
            None
        };
        Ok(Dm::Desc(DigitMapDescriptor {
            digit_map_name: name,
            digit_map_value: value,
        }))
    }

    /// Splits the `T:`, `S:`, `L:` and `Z:` timers off a digit map
    /// body, as OTP's scanner does (a malformed or repeated timer starts
    /// the body).
    fn digit_map_value(&self, at: usize, text: &[u8]) -> R<Option<DigitMapValue>> {
        if text.is_empty() {
            return Ok(None);
        }
        let mut v = DigitMapValue {
            start_timer: None,
            short_timer: None,
            long_timer: None,
            digit_map_body: String::new().into(),
            duration_timer: None,
        };
        let mut i = 0;
        while text.len() >= i + 2 && text[i + 1] == b':' {
            let slot = match text[i].to_ascii_lowercase() {
                b't' => &mut v.start_timer,
                b's' => &mut v.short_timer,
                b'l' => &mut v.long_timer,
                b'z' => &mut v.duration_timer,
                _ => break,
            };
            let mut j = i + 2;
            let d0 = j;
            while j < text.len() && is_safe(text[j]) {
                j += 1;
            }
            let digits = &text[d0..j];
            while j < text.len() && is_ws(text[j]) {
                j += 1;
            }
            if slot.is_some() || text.get(j) != Some(&b',') || !all_digits(digits) {
                break;
            }
            *slot = Some(self.number(at + d0, digits, "a digit map timer", 255)? as u8);
            j += 1;
            while j < text.len() && is_ws(text[j]) {
                j += 1;
            }
            i = j;
        }
        if self.version < 2 {
            // v1 has no duration timer; OTP's v1 parser drops it.
            v.duration_timer = None;
        }
        v.digit_map_body = self.utf8(at + i, &text[i..])?;
        Ok(Some(v))
    }

    /// `= id { [timestamp:] event [{params}], ... }` after `ObservedEvents`.
    fn observed_events(&mut self) -> R<ObservedEventsDescriptor> {
        self.equal()?;
        let request_id = self.request_id()?;
        self.open()?;
        let mut observed_event_lst = Vec::new();
        let mut n = 0;
        loop {
            let (at, w) = self.word("an observed event")?;
            let (time_notation, name) = if is_timestamp(w) {
                self.expect(b':', "`:` after the time stamp")?;
                let (at2, w2) = self.word("an event name")?;
                (Some(time_notation(w)), self.pkgd_name_from(at2, w2)?)
            } else {
                (None, self.pkgd_name_from(at, w)?)
            };
            let ep = self.event_parms(EvKind::Plain)?;
            observed_event_lst.push(ObservedEvent {
                event_name: name,
                stream_id: ep.stream_id,
                event_par_list: ep.params,
                time_notation,
            });
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(ObservedEventsDescriptor {
            request_id,
            observed_event_lst: observed_event_lst.into(),
        })
    }

    /// `EventBuffer` alone, or `EventBuffer { event, ... }`.
    fn event_buffer_descriptor(&mut self) -> R<EventBufferDescriptor> {
        let mut out = Vec::new();
        if self.peek() != Some(b'{') {
            return Ok(out);
        }
        self.open()?;
        let mut n = 0;
        loop {
            let event_name = self.pkgd_name()?;
            let ep = self.event_parms(EvKind::Plain)?;
            out.push(EventSpec {
                event_name,
                stream_id: ep.stream_id,
                event_par_list: ep.params,
            });
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(out)
    }

    /// `{ name [= value | = [v, ...]], ... }` after `Statistics`.
    fn statistics_descriptor(&mut self) -> R<StatisticsDescriptor> {
        self.open()?;
        let mut out = Vec::new();
        let mut n = 0;
        loop {
            let stat_name = self.pkgd_name()?;
            let stat_value = if self.eat(b'=') {
                if self.eat(b'[') {
                    self.enter()?;
                    let mut vals = vec![self.value()?];
                    while self.eat(b',') {
                        vals.push(self.value()?);
                        if vals.len() > self.limits.max_list_len {
                            return Err(self.err_at(
                                self.pos,
                                TextErrorKind::TooManyItems {
                                    max: self.limits.max_list_len,
                                },
                            ));
                        }
                    }
                    self.expect(b']', "`]`")?;
                    self.leave();
                    Some(vals)
                } else {
                    Some(vec![self.value()?])
                }
            } else {
                None
            };
            out.push(StatisticsParameter {
                stat_name,
                stat_value: stat_value.map(Into::into),
            });
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(out)
    }

    /// `{ name-version, ... }` after `Packages`.
    fn packages_descriptor(&mut self) -> R<PackagesDescriptor> {
        self.open()?;
        let mut out = Vec::new();
        let mut n = 0;
        loop {
            out.push(self.packages_item()?);
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(out)
    }

    fn packages_item(&mut self) -> R<PackagesItem> {
        let (at, w) = self.word("a package (name-version)")?;
        let i = w
            .iter()
            .position(|&b| b == b'-')
            .ok_or_else(|| self.invalid(at, w, "package item (name-version)"))?;
        Ok(PackagesItem {
            package_name: lower(&w[..i]),
            package_version: self.number(at + i + 1, &w[i + 1..], "a package version", 99)? as u8,
        })
    }

    // ---------------------------------------------------------------
    // Audit
    // ---------------------------------------------------------------

    /// `{ item, ... }` after `Audit`.
    fn audit_descriptor(&mut self) -> R<AuditDescriptor> {
        self.open()?;
        let mut tokens = Vec::new();
        let mut props = Vec::new();
        if self.peek() == Some(b'}') {
            self.close()?;
        } else {
            let mut n = 0;
            loop {
                self.audit_item(&mut tokens, &mut props)?;
                if !self.next_item(&mut n)? {
                    break;
                }
            }
        }
        Ok(AuditDescriptor {
            audit_token: (!tokens.is_empty()).then_some(tokens),
            audit_property_token: (!props.is_empty()).then_some(props),
        })
    }

    /// One audit item: a bare descriptor name (a token) or a v2
    /// individual audit descriptor.
    fn audit_item(
        &mut self,
        tokens: &mut Vec<AuditToken>,
        props: &mut Vec<IndAuditParameter>,
    ) -> R<()> {
        const WHAT: &str = "an audit item (Media, Events, Signals, DigitMap, ...)";
        let (at, w, k) = self.kw(WHAT)?;
        let braced = self.peek() == Some(b'{');
        match k {
            Some(Kw::Mux) => tokens.push(AuditToken::Mux),
            Some(Kw::Modem) => tokens.push(AuditToken::Modem),
            Some(Kw::ObservedEvents) => tokens.push(AuditToken::ObservedEvents),
            Some(Kw::Media) if braced => {
                props.push(IndAuditParameter::Media(self.ind_aud_media()?));
            }
            Some(Kw::Media) => tokens.push(AuditToken::Media),
            Some(Kw::DigitMap) => match self.digit_map()? {
                Dm::Bare => tokens.push(AuditToken::DigitMap),
                Dm::Desc(d) => props.push(IndAuditParameter::DigitMap(IndAudDigitMapDescriptor {
                    digit_map_name: d.digit_map_name,
                })),
            },
            Some(Kw::Stats) if braced => {
                self.open()?;
                let stat_name = self.pkgd_name()?;
                self.close()?;
                props.push(IndAuditParameter::Statistics(IndAudStatisticsDescriptor {
                    stat_name,
                }));
            }
            Some(Kw::Stats) => tokens.push(AuditToken::Stats),
            Some(Kw::Packages) if braced => {
                self.open()?;
                let p = self.packages_item()?;
                self.close()?;
                props.push(IndAuditParameter::Packages(IndAudPackagesDescriptor {
                    package_name: p.package_name,
                    package_version: p.package_version,
                }));
            }
            Some(Kw::Packages) => tokens.push(AuditToken::Packages),
            Some(Kw::Signals) if braced => {
                self.open()?;
                if self.peek() == Some(b'}') {
                    // `Signals { }`: no signal named; the same as the token.
                    self.close()?;
                    tokens.push(AuditToken::Signals);
                } else {
                    let d = if self.peek_kw() == Some(Kw::SignalList) {
                        self.word("SignalList")?;
                        self.equal()?;
                        let id = self.u16_word("a signal list id")?;
                        let signal_list = if self.peek() == Some(b'{') {
                            self.open()?;
                            let s = self.signal_request()?;
                            self.close()?;
                            Some(ind_aud_signal(s))
                        } else {
                            None
                        };
                        IndAudSignalsDescriptor::SeqSigList(IndAudSeqSigList { id, signal_list })
                    } else {
                        IndAudSignalsDescriptor::Signal(ind_aud_signal(self.signal_request()?))
                    };
                    self.close()?;
                    props.push(IndAuditParameter::Signals(d));
                }
            }
            Some(Kw::Signals) => tokens.push(AuditToken::Signals),
            Some(Kw::EventBuffer) if braced => {
                self.open()?;
                let event_name = self.pkgd_name()?;
                let mut stream_id = None;
                if self.peek() == Some(b'{') {
                    self.open()?;
                    let (at2, w2) = self.word("Stream or an event parameter name")?;
                    if keyword(w2) == Some(Kw::Stream) {
                        self.equal()?;
                        stream_id = Some(self.u16_word("a stream id")?);
                    } else {
                        // An event parameter name has no place in the model.
                        lower(w2);
                        let _ = at2;
                    }
                    self.close()?;
                }
                self.close()?;
                props.push(IndAuditParameter::EventBuffer(
                    IndAudEventBufferDescriptor {
                        event_name,
                        stream_id,
                    },
                ));
            }
            Some(Kw::EventBuffer) => tokens.push(AuditToken::EventBuffer),
            Some(Kw::Events) if braced || self.peek() == Some(b'=') => {
                let request_id = if self.eat(b'=') {
                    Some(self.request_id()?)
                } else {
                    None
                };
                self.open()?;
                let pkgd_name = self.pkgd_name()?;
                self.close()?;
                props.push(IndAuditParameter::Events(IndAudEventsDescriptor {
                    request_id,
                    pkgd_name,
                    stream_id: None,
                }));
            }
            Some(Kw::Events) => tokens.push(AuditToken::Events),
            _ => return Err(self.unknown(at, w, WHAT)),
        }
        Ok(())
    }

    /// `{ ... }` of an individual Media audit.
    fn ind_aud_media(&mut self) -> R<IndAudMediaDescriptor> {
        self.open()?;
        let mut ts = None;
        let mut one: Option<IndAudStreamParms> = None;
        let mut multi = Vec::new();
        let mut n = 0;
        loop {
            const WHAT: &str = "a media audit item";
            let (at, w, k) = self.kw(WHAT)?;
            match k {
                Some(Kw::TerminationState) => {
                    if ts.is_some() {
                        return Err(self.dup(at, "TerminationState"));
                    }
                    ts = Some(self.ind_aud_termination_state()?);
                }
                Some(Kw::Stream) => {
                    if one.is_some() {
                        return Err(self.invalid(at, w, "Stream after stream parameters"));
                    }
                    self.equal()?;
                    let stream_id = self.u16_word("a stream id")?;
                    self.open()?;
                    let mut sp = empty_ind_aud_stream_parms();
                    let (at2, w2, k2) = self.kw("a stream audit item")?;
                    self.ind_aud_stream_parm(at2, w2, k2, &mut sp)?;
                    self.close()?;
                    multi.push(IndAudStreamDescriptor {
                        stream_id,
                        stream_parms: sp,
                    });
                }
                _ => {
                    if !multi.is_empty() {
                        return Err(self.invalid(at, w, "stream audit item after Stream"));
                    }
                    let sp = one.get_or_insert_with(empty_ind_aud_stream_parms);
                    let mut tmp = std::mem::replace(sp, empty_ind_aud_stream_parms());
                    self.ind_aud_stream_parm(at, w, k, &mut tmp)?;
                    one = Some(tmp);
                }
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        let streams = match one {
            Some(sp) => Some(IndAudStreams::OneStream(sp)),
            None if !multi.is_empty() => Some(IndAudStreams::MultiStream(multi)),
            None => None,
        };
        Ok(IndAudMediaDescriptor {
            term_state_descr: ts,
            streams,
        })
    }

    fn ind_aud_stream_parm(
        &mut self,
        at: usize,
        w: &[u8],
        k: Option<Kw>,
        sp: &mut IndAudStreamParms,
    ) -> R<()> {
        match k {
            Some(Kw::LocalControl) => {
                if sp.local_control_descriptor.is_some() {
                    return Err(self.dup(at, "LocalControl"));
                }
                sp.local_control_descriptor = Some(self.ind_aud_local_control()?);
            }
            Some(Kw::Stats) => {
                if sp.statistics_descriptor.is_some() {
                    return Err(self.dup(at, "Statistics"));
                }
                self.open()?;
                let stat_name = self.pkgd_name()?;
                self.close()?;
                sp.statistics_descriptor = Some(IndAudStatisticsDescriptor { stat_name });
            }
            Some(k @ (Kw::Local | Kw::Remote)) => {
                let groups = self.sdp()?;
                let d = IndAudLocalRemoteDescriptor {
                    prop_group_id: None,
                    prop_grps: groups
                        .into_iter()
                        .flatten()
                        .map(|pp| IndAudPropertyParm {
                            name: pp.name.clone(),
                            property_parms: Some(pp),
                        })
                        .collect(),
                };
                let slot = if k == Kw::Local {
                    &mut sp.local_descriptor
                } else {
                    &mut sp.remote_descriptor
                };
                if slot.is_some() {
                    return Err(self.dup(at, "Local/Remote"));
                }
                *slot = Some(d);
            }
            _ => {
                return Err(self.unknown(
                    at,
                    w,
                    "a stream audit item (LocalControl, Statistics, Local, Remote)",
                ))
            }
        }
        Ok(())
    }

    /// Audit-or-select property: `name` alone, or `name` with a value.
    fn ind_aud_prop(&mut self, at: usize, w: &[u8]) -> R<IndAudPropertyParm> {
        let name = self.pkgd_name_from(at, w)?;
        if matches!(self.peek(), Some(b'=' | b'#' | b'<' | b'>')) {
            let pp = self.parm_value(name.to_string())?;
            Ok(IndAudPropertyParm {
                name,
                property_parms: Some(pp),
            })
        } else {
            Ok(IndAudPropertyParm {
                name,
                property_parms: None,
            })
        }
    }

    fn ind_aud_local_control(&mut self) -> R<IndAudLocalControlDescriptor> {
        self.open()?;
        let mut d = IndAudLocalControlDescriptor {
            stream_mode: false,
            reserve_value: false,
            reserve_group: false,
            property_parms: None,
            stream_mode_sel: None,
        };
        let mut n = 0;
        loop {
            let (at, w) = self.word("a LocalControl audit item")?;
            match keyword(w) {
                Some(Kw::ReservedGroup) => d.reserve_group = true,
                Some(Kw::ReservedValue) => d.reserve_value = true,
                Some(Kw::Mode) => {
                    if self.eat(b'=') || self.eat(b'#') {
                        d.stream_mode_sel = Some(self.stream_mode()?);
                        d.stream_mode = false;
                    } else if d.stream_mode_sel.is_none() {
                        d.stream_mode = true;
                    }
                }
                _ => {
                    let p = self.ind_aud_prop(at, w)?;
                    push_ind_aud(d.property_parms.get_or_insert_with(Vec::new), p);
                }
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(d)
    }

    fn ind_aud_termination_state(&mut self) -> R<IndAudTerminationStateDescriptor> {
        self.open()?;
        let mut d = IndAudTerminationStateDescriptor {
            property_parms: Vec::new(),
            event_buffer_control: false,
            service_state: false,
            service_state_sel: None,
        };
        let mut n = 0;
        loop {
            let (at, w) = self.word("a TerminationState audit item")?;
            match keyword(w) {
                Some(Kw::ServiceStates) => {
                    if self.eat(b'=') || self.eat(b'#') {
                        d.service_state_sel = Some(self.service_state()?);
                    } else {
                        d.service_state = true;
                    }
                }
                Some(Kw::Buffer) => d.event_buffer_control = true,
                _ => {
                    let p = self.ind_aud_prop(at, w)?;
                    push_ind_aud(&mut d.property_parms, p);
                }
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(d)
    }

    // ---------------------------------------------------------------
    // Service change
    // ---------------------------------------------------------------

    /// A time stamp word `yyyymmddThhmmssss`.
    fn time_stamp_word(&mut self) -> R<TimeNotation> {
        let (at, w) = self.word("a time stamp")?;
        if !is_timestamp(w) {
            return Err(self.invalid(at, w, "time stamp (yyyymmddThhmmssss)"));
        }
        Ok(time_notation(w))
    }

    /// `= mId` or `= port` after `ServiceChangeAddress`.
    fn service_change_address(&mut self) -> R<ServiceChangeAddress> {
        self.equal()?;
        let w = self.peek_word();
        if all_digits(w) {
            return Ok(ServiceChangeAddress::PortNumber(
                self.u16_word("a port number")?,
            ));
        }
        Ok(match self.mid()? {
            Mid::Ip4(a) => ServiceChangeAddress::Ip4(a),
            Mid::Ip6(a) => ServiceChangeAddress::Ip6(a),
            Mid::Domain(d) => ServiceChangeAddress::Domain(d),
            Mid::Device(d) => ServiceChangeAddress::Device(d),
            Mid::Mtp(m) => ServiceChangeAddress::Mtp(m),
        })
    }

    /// `= name/version` after `Profile`.
    fn profile(&mut self) -> R<ServiceChangeProfile> {
        self.equal()?;
        let (at, w) = self.word("a profile (name/version)")?;
        let mut parts = w.split(|&b| b == b'/').filter(|p| !p.is_empty());
        match (parts.next(), parts.next(), parts.next()) {
            (Some(name), Some(ver), None) => {
                let vat = at + (ver.as_ptr() as usize - w.as_ptr() as usize);
                Ok(ServiceChangeProfile {
                    profile_name: lower(name),
                    version: self.number(vat, ver, "a profile version", 99)? as u8,
                })
            }
            _ => Err(self.invalid(at, w, "profile (name/version)")),
        }
    }

    /// `{ parm, ... }` after `Services` in a request.
    fn service_change_parm(&mut self) -> R<ServiceChangeParm> {
        let start = self.pos;
        self.open()?;
        let mut method = None;
        let mut reason = None;
        let mut p = ServiceChangeParm {
            service_change_method: ServiceChangeMethod::Restart,
            service_change_address: None,
            service_change_version: None,
            service_change_profile: None,
            service_change_reason: Vec::new().into(),
            service_change_delay: None,
            service_change_mgc_id: None,
            time_stamp: None,
            non_standard_data: None,
            service_change_info: None,
            service_change_incomplete_flag: false,
        };
        let mut audit_tokens = Vec::new();
        let mut audit_props = Vec::new();
        let mut n = 0;
        loop {
            let w = self.peek_word();
            let at = self.pos;
            match keyword(w) {
                Some(Kw::Method) => {
                    self.word("Method")?;
                    if method.is_some() {
                        return Err(self.dup(at, "Method"));
                    }
                    self.equal()?;
                    method = Some(self.service_change_method()?);
                }
                Some(Kw::Reason) => {
                    self.word("Reason")?;
                    if reason.is_some() {
                        return Err(self.dup(at, "Reason"));
                    }
                    self.equal()?;
                    reason = Some(vec![self.value()?]);
                }
                Some(Kw::Delay) => {
                    self.word("Delay")?;
                    if p.service_change_delay.is_some() {
                        return Err(self.dup(at, "Delay"));
                    }
                    self.equal()?;
                    p.service_change_delay = Some(self.u32_word("a delay")?);
                }
                Some(Kw::ServiceChangeAddress) => {
                    self.word("ServiceChangeAddress")?;
                    if p.service_change_address.is_some() || p.service_change_mgc_id.is_some() {
                        return Err(self.dup(at, "ServiceChangeAddress/MgcIdToTry"));
                    }
                    p.service_change_address = Some(self.service_change_address()?);
                }
                Some(Kw::MgcId) => {
                    self.word("MgcIdToTry")?;
                    if p.service_change_address.is_some() || p.service_change_mgc_id.is_some() {
                        return Err(self.dup(at, "ServiceChangeAddress/MgcIdToTry"));
                    }
                    self.equal()?;
                    p.service_change_mgc_id = Some(self.mid()?);
                }
                Some(Kw::Profile) => {
                    self.word("Profile")?;
                    if p.service_change_profile.is_some() {
                        return Err(self.dup(at, "Profile"));
                    }
                    p.service_change_profile = Some(self.profile()?);
                }
                Some(Kw::Version) => {
                    self.word("Version")?;
                    if p.service_change_version.is_some() {
                        return Err(self.dup(at, "Version"));
                    }
                    self.equal()?;
                    p.service_change_version = Some(self.u8_word("a version", 99)?);
                }
                Some(Kw::ServiceChangeInc) => {
                    self.word("ServiceChangeInc")?;
                    p.service_change_incomplete_flag = true;
                }
                Some(
                    Kw::Mux
                    | Kw::Modem
                    | Kw::Media
                    | Kw::DigitMap
                    | Kw::Stats
                    | Kw::ObservedEvents
                    | Kw::Packages
                    | Kw::Signals
                    | Kw::EventBuffer
                    | Kw::Events,
                ) => self.audit_item(&mut audit_tokens, &mut audit_props)?,
                _ if is_timestamp(w) => {
                    if p.time_stamp.is_some() {
                        return Err(self.dup(at, "time stamp"));
                    }
                    p.time_stamp = Some(self.time_stamp_word()?);
                }
                _ if w.len() >= 2
                    && (w[0] == b'x' || w[0] == b'X')
                    && (w[1] == b'-' || w[1] == b'+') =>
                {
                    // Extension parameters have no place in the model;
                    // OTP drops them too.
                    self.word("an extension parameter")?;
                    self.parm_value(String::new())?;
                }
                _ => {
                    let (at, w) = self.word("a ServiceChange parameter")?;
                    return Err(self.unknown(at, w, "a ServiceChange parameter"));
                }
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        p.service_change_method = method.ok_or_else(|| {
            self.err_at(
                start,
                TextErrorKind::Missing {
                    what: "ServiceChange Method",
                },
            )
        })?;
        p.service_change_reason = reason
            .ok_or_else(|| {
                self.err_at(
                    start,
                    TextErrorKind::Missing {
                        what: "ServiceChange Reason",
                    },
                )
            })?
            .into();
        if !audit_tokens.is_empty() || !audit_props.is_empty() {
            p.service_change_info = Some(AuditDescriptor {
                audit_token: (!audit_tokens.is_empty()).then_some(audit_tokens),
                audit_property_token: (!audit_props.is_empty()).then_some(audit_props),
            });
        }
        Ok(p)
    }

    fn service_change_method(&mut self) -> R<ServiceChangeMethod> {
        const WHAT: &str =
            "a ServiceChange method (Failover, Forced, Graceful, Restart, Disconnected, HandOff)";
        let (at, w, k) = self.kw(WHAT)?;
        Ok(match k {
            Some(Kw::Failover) => ServiceChangeMethod::Failover,
            Some(Kw::Forced) => ServiceChangeMethod::Forced,
            Some(Kw::Graceful) => ServiceChangeMethod::Graceful,
            Some(Kw::Restart) => ServiceChangeMethod::Restart,
            Some(Kw::Disconnected) => ServiceChangeMethod::Disconnected,
            Some(Kw::HandOff) => ServiceChangeMethod::HandOff,
            _ => return Err(self.unknown(at, w, WHAT)),
        })
    }

    /// `{ parm, ... }` after `Services` in a reply.
    fn service_change_res_parm(&mut self) -> R<ServiceChangeResParm> {
        self.open()?;
        let mut p = ServiceChangeResParm {
            service_change_mgc_id: None,
            service_change_address: None,
            service_change_version: None,
            service_change_profile: None,
            time_stamp: None,
        };
        let mut n = 0;
        loop {
            let w = self.peek_word();
            let at = self.pos;
            match keyword(w) {
                Some(Kw::ServiceChangeAddress) => {
                    self.word("ServiceChangeAddress")?;
                    if p.service_change_address.is_some() || p.service_change_mgc_id.is_some() {
                        return Err(self.dup(at, "ServiceChangeAddress/MgcIdToTry"));
                    }
                    p.service_change_address = Some(self.service_change_address()?);
                }
                Some(Kw::MgcId) => {
                    self.word("MgcIdToTry")?;
                    if p.service_change_address.is_some() || p.service_change_mgc_id.is_some() {
                        return Err(self.dup(at, "ServiceChangeAddress/MgcIdToTry"));
                    }
                    self.equal()?;
                    p.service_change_mgc_id = Some(self.mid()?);
                }
                Some(Kw::Profile) => {
                    self.word("Profile")?;
                    if p.service_change_profile.is_some() {
                        return Err(self.dup(at, "Profile"));
                    }
                    p.service_change_profile = Some(self.profile()?);
                }
                Some(Kw::Version) => {
                    self.word("Version")?;
                    if p.service_change_version.is_some() {
                        return Err(self.dup(at, "Version"));
                    }
                    self.equal()?;
                    p.service_change_version = Some(self.u8_word("a version", 99)?);
                }
                _ if is_timestamp(w) => {
                    if p.time_stamp.is_some() {
                        return Err(self.dup(at, "time stamp"));
                    }
                    p.time_stamp = Some(self.time_stamp_word()?);
                }
                _ => {
                    let (at, w) = self.word("a ServiceChange reply parameter")?;
                    return Err(self.unknown(at, w, "a ServiceChange reply parameter"));
                }
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        Ok(p)
    }

    // ---------------------------------------------------------------
    // Replies
    // ---------------------------------------------------------------

    fn transaction_reply(&mut self) -> R<TransactionReply> {
        self.equal()?;
        let (at, w) = self.word("a transaction id")?;
        let (transaction_id, segment_number, segmentation_complete) =
            self.tid_and_segment(at, w)?;
        self.open()?;
        let mut imm_ack_required = false;
        if self.peek_kw() == Some(Kw::ImmAckRequired) {
            self.word("ImmAckRequired")?;
            imm_ack_required = true;
            self.expect(b',', "`,`")?;
        }
        let result = if self.peek_kw() == Some(Kw::Error) {
            let e = self.error_descriptor()?;
            self.close()?;
            TransactionResult::Error(e)
        } else {
            let mut replies = Vec::new();
            let mut n = 0;
            loop {
                replies.push(self.action_reply()?);
                if !self.next_item(&mut n)? {
                    break;
                }
            }
            TransactionResult::ActionReplies(replies.into())
        };
        Ok(TransactionReply {
            transaction_id,
            imm_ack_required,
            result,
            segment_number,
            segmentation_complete,
        })
    }

    fn action_reply(&mut self) -> R<ActionReply> {
        self.expect_kw(Kw::Ctx, "Context")?;
        self.equal()?;
        let context_id = self.context_id()?;
        let mut r = ActionReply {
            context_id,
            error_descriptor: None,
            context_reply: None,
            command_reply: Vec::new().into(),
        };
        if self.peek() != Some(b'{') {
            return Ok(r);
        }
        self.open()?;
        if self.peek() == Some(b'}') {
            self.close()?;
            return Ok(r);
        }
        let mut ctx = ContextRequest::default_empty();
        let mut n = 0;
        loop {
            const WHAT: &str = "a command reply, context property or Error";
            let (at, w, k) = self.kw(WHAT)?;
            match k {
                Some(Kw::Error) => {
                    if r.error_descriptor.is_some() {
                        return Err(self.dup(at, "Error"));
                    }
                    r.error_descriptor = Some(self.error_descriptor_body()?);
                }
                Some(
                    k @ (Kw::Topology
                    | Kw::Priority
                    | Kw::Emergency
                    | Kw::EmergencyOff
                    | Kw::Ieps
                    | Kw::ContextAttr),
                ) => self.context_property(at, k, &mut ctx)?,
                Some(k) => r.command_reply.push(self.command_reply(at, k, w)?),
                None => return Err(self.unknown(at, w, WHAT)),
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        r.context_reply = ctx.strip();
        Ok(r)
    }

    fn command_reply(&mut self, at: usize, k: Kw, w: &[u8]) -> R<CommandReply> {
        match k {
            Kw::Add | Kw::Move | Kw::Modify | Kw::Subtract => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                // `A = t { }` audits nothing: the same reply as `A = t`,
                // which is how encoders write it.
                let termination_audit = if self.peek() == Some(b'{') {
                    Some(self.termination_audit()?).filter(|a| !a.is_empty())
                } else {
                    None
                };
                let r = AmmsReply {
                    termination_ids: termination_ids.into(),
                    termination_audit,
                };
                Ok(match k {
                    Kw::Add => CommandReply::Add(r),
                    Kw::Move => CommandReply::Move(r),
                    Kw::Modify => CommandReply::Modify(r),
                    _ => CommandReply::Subtract(r),
                })
            }
            Kw::AuditValue | Kw::AuditCap => {
                self.equal()?;
                let reply = if self.peek_kw() == Some(Kw::Ctx) {
                    self.word("Context")?;
                    self.open()?;
                    if self.peek_kw() == Some(Kw::Error) {
                        let e = self.error_descriptor()?;
                        self.close()?;
                        AuditReply::Error(e)
                    } else {
                        let mut tids = Vec::new();
                        let mut n = 0;
                        loop {
                            tids.push(self.termination_id()?);
                            if !self.next_item(&mut n)? {
                                break;
                            }
                        }
                        AuditReply::ContextAuditResult(tids)
                    }
                } else {
                    let mut tids = self.term_id_list()?;
                    let tar = if self.peek() == Some(b'{') {
                        self.termination_audit()?
                    } else {
                        Vec::new()
                    };
                    if tids.len() == 1 {
                        AuditReply::AuditResult(AuditResult {
                            termination_id: tids.swap_remove(0),
                            termination_audit_result: tar,
                        })
                    } else {
                        AuditReply::AuditResultTermList(TermListAuditResult {
                            termination_id_list: tids,
                            termination_audit_result: tar,
                        })
                    }
                };
                Ok(if k == Kw::AuditValue {
                    CommandReply::AuditValue(reply)
                } else {
                    CommandReply::AuditCapability(reply)
                })
            }
            Kw::Notify => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                let error_descriptor = if self.peek() == Some(b'{') {
                    self.open()?;
                    let e = self.error_descriptor()?;
                    self.close()?;
                    Some(e)
                } else {
                    None
                };
                Ok(CommandReply::Notify(NotifyReply {
                    termination_ids: termination_ids.into(),
                    error_descriptor,
                }))
            }
            Kw::ServiceChange => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                let service_change_result = if self.peek() == Some(b'{') {
                    self.open()?;
                    let (at2, w2, k2) = self.kw("Error or Services")?;
                    let r = match k2 {
                        Some(Kw::Error) => {
                            ServiceChangeResult::ErrorDescriptor(self.error_descriptor_body()?)
                        }
                        Some(Kw::Services) => ServiceChangeResult::ServiceChangeResParms(
                            self.service_change_res_parm()?,
                        ),
                        _ => return Err(self.unknown(at2, w2, "Error or Services")),
                    };
                    self.close()?;
                    r
                } else {
                    ServiceChangeResult::ServiceChangeResParms(ServiceChangeResParm {
                        service_change_mgc_id: None,
                        service_change_address: None,
                        service_change_version: None,
                        service_change_profile: None,
                        time_stamp: None,
                    })
                };
                Ok(CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                    termination_ids: termination_ids.into(),
                    service_change_result,
                })))
            }
            _ => Err(self.unknown(at, w, "a command reply")),
        }
    }

    /// `{ auditReturnParameter, ... }`: descriptors in the order written,
    /// then the bare descriptor names gathered into one
    /// `EmptyDescriptors` at the end (where OTP puts it).
    fn termination_audit(&mut self) -> R<Vec<AuditReturnParameter>> {
        self.open()?;
        let mut out = Vec::new();
        let mut tokens = Vec::new();
        let mut n = 0;
        if self.peek() == Some(b'}') {
            self.close()?;
            return Ok(out);
        }
        loop {
            const WHAT: &str = "an audit return parameter";
            let (at, w, k) = self.kw(WHAT)?;
            let braced = self.peek() == Some(b'{');
            let eq = self.peek() == Some(b'=');
            match k {
                Some(Kw::Media) if braced => {
                    out.push(AuditReturnParameter::Media(self.media_descriptor()?))
                }
                Some(Kw::Media) => tokens.push(AuditToken::Media),
                Some(Kw::Modem) if braced || eq || self.peek() == Some(b'[') => {
                    out.push(AuditReturnParameter::Modem(self.modem_descriptor()?))
                }
                Some(Kw::Modem) => tokens.push(AuditToken::Modem),
                Some(Kw::Mux) if eq => out.push(AuditReturnParameter::Mux(self.mux_descriptor()?)),
                Some(Kw::Mux) => tokens.push(AuditToken::Mux),
                Some(Kw::Events) => {
                    out.push(AuditReturnParameter::Events(self.events_descriptor()?))
                }
                Some(Kw::Signals) => {
                    out.push(AuditReturnParameter::Signals(self.signals_descriptor()?))
                }
                Some(Kw::EventBuffer) => out.push(AuditReturnParameter::EventBuffer(
                    self.event_buffer_descriptor()?,
                )),
                Some(Kw::DigitMap) => match self.digit_map()? {
                    Dm::Bare => tokens.push(AuditToken::DigitMap),
                    Dm::Desc(d) => out.push(AuditReturnParameter::DigitMap(d)),
                },
                Some(Kw::ObservedEvents) if eq => out.push(AuditReturnParameter::ObservedEvents(
                    self.observed_events()?,
                )),
                Some(Kw::ObservedEvents) => tokens.push(AuditToken::ObservedEvents),
                Some(Kw::Stats) if braced => out.push(AuditReturnParameter::Statistics(
                    self.statistics_descriptor()?,
                )),
                Some(Kw::Stats) => tokens.push(AuditToken::Stats),
                Some(Kw::Packages) if braced => {
                    out.push(AuditReturnParameter::Packages(self.packages_descriptor()?))
                }
                Some(Kw::Packages) => tokens.push(AuditToken::Packages),
                Some(Kw::Error) => {
                    out.push(AuditReturnParameter::Error(self.error_descriptor_body()?))
                }
                _ => return Err(self.unknown(at, w, WHAT)),
            }
            if !self.next_item(&mut n)? {
                break;
            }
        }
        if !tokens.is_empty() {
            out.push(AuditReturnParameter::EmptyDescriptors(AuditDescriptor {
                audit_token: Some(tokens),
                audit_property_token: None,
            }));
        }
        Ok(out)
    }
}

/// `O-`, `W-` and `O-W-` command prefixes: (optional, wildcard, rest).
fn split_command_prefix(w: &[u8]) -> (bool, bool, &[u8]) {
    let mut rest = w;
    let mut optional = false;
    let mut wildcard = false;
    if rest.len() > 2 && (rest[0] == b'o' || rest[0] == b'O') && rest[1] == b'-' {
        optional = true;
        rest = &rest[2..];
    }
    if rest.len() > 2 && (rest[0] == b'w' || rest[0] == b'W') && rest[1] == b'-' {
        wildcard = true;
        rest = &rest[2..];
    }
    (optional, wildcard, rest)
}

fn time_notation(w: &[u8]) -> TimeNotation {
    TimeNotation {
        date: ascii(&w[..8]),
        time: ascii(&w[9..]),
    }
}

fn empty_stream_parms() -> StreamParms {
    StreamParms {
        local_control_descriptor: None,
        local_descriptor: None,
        remote_descriptor: None,
        statistics_descriptor: None,
    }
}

fn empty_ind_aud_stream_parms() -> IndAudStreamParms {
    IndAudStreamParms {
        local_control_descriptor: None,
        local_descriptor: None,
        remote_descriptor: None,
        statistics_descriptor: None,
    }
}

fn ind_aud_signal(s: Signal) -> IndAudSignal {
    IndAudSignal {
        signal_name: s.signal_name,
        stream_id: s.stream_id,
        signal_request_id: s.request_id,
    }
}

/// `None` for a context audit that asks for nothing.
fn strip_audit(a: ContextAttrAuditRequest) -> Option<ContextAttrAuditRequest> {
    (!a.is_empty()).then_some(a)
}

impl ContextRequest {
    fn default_empty() -> Self {
        ContextRequest {
            priority: None,
            emergency: None,
            topology_req: None,
            iepscallind: None,
            context_prop: None,
            context_list: None,
        }
    }

    /// `None` when nothing is set (as OTP strips it).
    fn strip(self) -> Option<Self> {
        (!self.is_empty()).then_some(self)
    }
}

/// Adds an audited property to `list` the way OTP reads audit lists: a
/// valued property (`name=value`) right after a bare name completes that
/// item with a selection value (`tdmc/gain, tdmc/gain=2` is one item);
/// otherwise it is an item of its own.
fn push_ind_aud(list: &mut Vec<IndAudPropertyParm>, p: IndAudPropertyParm) {
    match (list.last_mut(), p.property_parms) {
        (Some(last), Some(pp)) if last.property_parms.is_none() => {
            last.property_parms = Some(pp);
        }
        (_, property_parms) => list.push(IndAudPropertyParm {
            name: p.name,
            property_parms,
        }),
    }
}
