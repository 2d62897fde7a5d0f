//! Text encoders: the pretty form (long keywords, one item per line,
//! tab-indented) and the compact form (short keywords, no optional
//! whitespace).
//!
//! Both write the same bytes as Erlang/OTP's megaco 4.4.2 encoders
//! (`megaco_pretty_text_encoder` / `megaco_compact_text_encoder`), using
//! the v1, v2 or v3 layout according to [`Message::version`]: the three
//! OTP generators differ in a few places (indentation of topology triples
//! and of some audit items, `EmergencyOff` spelling, how property lists are
//! bracketed, ...). The few places where OTP writes something no parser
//! accepts are written in the standard form instead; see the deviations
//! listed on [`encode`].
//!
//! The encoders append to a caller-supplied `Vec<u8>` and build no
//! intermediate strings.

mod descriptors;
mod grammar;
mod tokens;

use crate::model::Message;
use crate::{EncodeError, MegacoMessage};
use tokens::Tokens;

/// Which text form to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// Long keywords, indented.
    Pretty,
    /// Short keywords, no optional whitespace.
    Compact,
}

/// Appends the text encoding of `msg` in `style` to `out`.
///
/// The message is first checked with [`crate::version::check`], so a
/// construct its protocol version cannot carry gives
/// [`EncodeError::Version`]; a value the text grammar cannot express (an
/// empty termination id list where one is required, a quote inside a
/// quoted string, a property list the encoder does not know how to
/// bracket, ...) gives [`EncodeError::Invalid`]. On error nothing is left
/// appended to `out`.
///
/// Deviations from Erlang/OTP megaco 4.4.2 (where OTP writes something
/// that neither it nor any other parser reads back):
///
/// - a v3 topology triple's stream is written `Stream = 5`; OTP writes the
///   bare number;
/// - a v3 audited signal's stream is written `Stream = 5`; OTP writes the
///   bare number;
/// - a ServiceChange's v2/v3 audit items (`serviceChangeInfo`) are written
///   as the bare audit items the ABNF asks for (`Media, Events`); OTP
///   fails on them;
/// - audit-reply items that OTP cannot write (`Events`, `Signals`,
///   `EventBuffer` in [`EmptyDescriptors`](crate::model::AuditReturnParameter::EmptyDescriptors))
///   are written as their keywords.
///
/// What text cannot tell apart: an action's `ContextRequest` or
/// `ContextAttrAuditRequest` with nothing set writes nothing (its items
/// are elements of the action's list; the grammar has no empty form), so
/// it reads back as `None`.
///
/// ```
/// use megaco::model::*;
/// use megaco::text::{encode, Style};
///
/// let msg = MegacoMessage {
///     auth_header: None,
///     mess: Message {
///         version: 1,
///         mid: Mid::Ip4(Ip4Address { address: [10, 0, 0, 1], port: Some(2944) }),
///         body: MessageBody::Transactions(smallvec![Transaction::Pending(TransactionPending {
///             transaction_id: 17,
///         })]),
///     },
/// };
/// let mut out = Vec::new();
/// encode(&msg, Style::Compact, &mut out).unwrap();
/// assert_eq!(out, b"!/1 [10.0.0.1]:2944\nPN=17{}");
/// out.clear();
/// encode(&msg, Style::Pretty, &mut out).unwrap();
/// assert_eq!(out, b"MEGACO/1 [10.0.0.1]:2944\nPending = 17 {\n\t\n}");
/// ```
pub fn encode(msg: &MegacoMessage, style: Style, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    crate::version::check(msg)?;
    let start = out.len();
    let mut enc = Enc::new(out, style, msg.mess.version);
    let result = enc.megaco_message(msg);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// The pretty text encoding of `msg`.
pub fn encode_pretty(msg: &MegacoMessage) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(1024);
    encode(msg, Style::Pretty, &mut out)?;
    Ok(out)
}

/// The compact text encoding of `msg`.
pub fn encode_compact(msg: &MegacoMessage) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(512);
    encode(msg, Style::Compact, &mut out)?;
    Ok(out)
}

type R = Result<(), EncodeError>;

fn invalid(what: &'static str, detail: impl Into<String>) -> EncodeError {
    EncodeError::Invalid {
        what,
        detail: detail.into(),
    }
}

/// How a character may appear in a VALUE or quoted string (OTP's
/// `classify_char`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum CharClass {
    Safe,
    Rest,
    Space,
    Quote,
    Bad,
}

fn classify(b: u8) -> CharClass {
    match b {
        b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' => CharClass::Safe,
        b'+' | b'-' | b'&' | b'!' | b'_' | b'/' | b'\'' | b'?' | b'@' | b'^' | b'`' | b'~'
        | b'*' | b'$' | b'\\' | b'(' | b')' | b'%' | b'|' | b'.' => CharClass::Safe,
        b';' | b'[' | b']' | b'{' | b'}' | b':' | b',' | b'#' | b'<' | b'>' | b'=' => {
            CharClass::Rest
        }
        b' ' | b'\t' => CharClass::Space,
        b'"' => CharClass::Quote,
        _ => CharClass::Bad,
    }
}

/// What a string scan found: all characters safe, their count (the
/// closing quote of an already quoted string excluded), and whether the
/// string is already quoted.
struct Scan {
    safe: bool,
    count: usize,
    quoted: bool,
}

fn scan(s: &str, what: &'static str) -> Result<Scan, EncodeError> {
    let b = s.as_bytes();
    let mut safe = true;
    let mut quoted = false;
    let mut i = 0;
    if b.first() == Some(&b'"') {
        quoted = true;
        i = 1;
    }
    let end = if quoted {
        if b.len() >= 2 && b[b.len() - 1] == b'"' {
            b.len() - 1
        } else {
            return Err(invalid(what, "unterminated quoted string"));
        }
    } else {
        b.len()
    };
    while i < end {
        match classify(b[i]) {
            CharClass::Safe => {}
            CharClass::Rest | CharClass::Space => safe = false,
            CharClass::Quote => return Err(invalid(what, "double quote inside a string")),
            CharClass::Bad => {
                return Err(invalid(
                    what,
                    format!("character 0x{:02x} cannot appear in a text value", b[i]),
                ))
            }
        }
        i += 1;
    }
    Ok(Scan {
        safe,
        count: end,
        quoted,
    })
}

/// The encoder state: output, form and protocol version. Indentation
/// depth is passed down explicitly (OTP's `State`).
pub(super) struct Enc<'a> {
    out: &'a mut Vec<u8>,
    pretty: bool,
    v: u8,
    t: &'static Tokens,
    /// Nesting of regulated notifications (the one recursive part of the
    /// model), bounded by [`MAX_NESTING`].
    nesting: usize,
}

/// Deepest nesting of regulated-notification embedded events written.
const MAX_NESTING: usize = 32;

impl<'a> Enc<'a> {
    fn new(out: &'a mut Vec<u8>, style: Style, v: u8) -> Self {
        let pretty = style == Style::Pretty;
        Enc {
            out,
            pretty,
            v,
            t: if pretty {
                &tokens::PRETTY
            } else {
                &tokens::COMPACT
            },
            nesting: 0,
        }
    }

    // ---- primitives -----------------------------------------------------

    #[inline]
    fn raw(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        self.out.push(b);
    }

    #[inline]
    fn str(&mut self, s: &str) {
        self.raw(s.as_bytes());
    }

    #[inline]
    fn mark(&self) -> usize {
        self.out.len()
    }

    #[inline]
    fn tabs(&mut self, n: usize) {
        self.out.resize(self.out.len() + n, b'\t');
    }

    /// Writes a decimal number.
    fn num(&mut self, n: u64) {
        if n < 10 {
            self.out.push(b'0' + n as u8);
            return;
        }
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        let mut n = n;
        loop {
            i -= 1;
            buf[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.raw(&buf[i..]);
    }

    /// Uppercase hex without leading zeros.
    fn hex(&mut self, n: u32) {
        const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
        let mut buf = [0u8; 8];
        let mut i = buf.len();
        let mut n = n;
        loop {
            i -= 1;
            buf[i] = DIGITS[(n & 0xF) as usize];
            n >>= 4;
            if n == 0 {
                break;
            }
        }
        self.out.extend_from_slice(&buf[i..]);
    }

    /// `EQUAL`.
    #[inline]
    fn eq(&mut self) {
        self.raw(if self.pretty { b" = " } else { b"=" });
    }

    /// `LBRKT` (not followed by a new line).
    #[inline]
    fn lb(&mut self) {
        self.raw(if self.pretty { b" { " } else { b"{" });
    }

    /// `RBRKT`.
    #[inline]
    fn rb(&mut self) {
        self.raw(if self.pretty { b" } " } else { b"}" });
    }

    /// `LSBRKT` (OTP's v1/v2 pretty encoders write it without spaces).
    #[inline]
    fn lsb(&mut self) {
        self.raw(if self.pretty && self.v >= 3 {
            b" [ "
        } else {
            b"["
        });
    }

    /// `RSBRKT`.
    #[inline]
    fn rsb(&mut self) {
        self.raw(if self.pretty && self.v >= 3 {
            b" ] "
        } else {
            b"]"
        });
    }

    /// `COMMA` (not followed by a new line).
    #[inline]
    fn comma(&mut self) {
        self.raw(if self.pretty { b", " } else { b"," });
    }

    /// `LBRKT` and a new line indented one level deeper than `s`.
    #[inline]
    fn lb_i(&mut self, s: usize) {
        if self.pretty {
            self.raw(b" {\n");
            self.tabs(s + 1);
        } else {
            self.byte(b'{');
        }
    }

    /// A new line indented at `s` and `RBRKT`.
    #[inline]
    fn rb_i(&mut self, s: usize) {
        if self.pretty {
            self.byte(b'\n');
            self.tabs(s);
        }
        self.byte(b'}');
    }

    #[inline]
    fn lsb_i(&mut self, s: usize) {
        if self.pretty {
            self.raw(b" [\n");
            self.tabs(s + 1);
        } else {
            self.byte(b'[');
        }
    }

    #[inline]
    fn rsb_i(&mut self, s: usize) {
        if self.pretty {
            self.byte(b'\n');
            self.tabs(s);
        }
        self.byte(b']');
    }

    /// `COMMA` and a new line indented at `s`.
    #[inline]
    fn comma_i(&mut self, s: usize) {
        if self.pretty {
            self.raw(b",\n");
            self.tabs(s);
        } else {
            self.byte(b',');
        }
    }

    /// One element of a comma-separated list at depth `s`: the separator
    /// is written only if an element came before and this one writes
    /// something (OTP's `enc_list` skips empty elements).
    fn item(&mut self, sep: &mut bool, s: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        let mark = self.mark();
        if *sep {
            self.comma_i(s);
        }
        let start = self.mark();
        f(self)?;
        if self.mark() == start {
            self.out.truncate(mark);
        } else {
            *sep = true;
        }
        Ok(())
    }

    /// A list element that is a single keyword.
    fn item_tok(&mut self, sep: &mut bool, s: usize, tok: &'static [u8]) {
        if *sep {
            self.comma_i(s);
        }
        self.raw(tok);
        *sep = true;
    }

    /// `LBRKT_INDENT(s) … RBRKT_INDENT(s)` around `f`, or nothing if `f`
    /// writes nothing (OTP's `enc_opt_brackets`).
    fn opt_brackets(&mut self, s: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        let mark = self.mark();
        self.lb_i(s);
        let start = self.mark();
        f(self)?;
        if self.mark() == start {
            self.out.truncate(mark);
        } else {
            self.rb_i(s);
        }
        Ok(())
    }

    /// `LBRKT item *(COMMA item) RBRKT` where the grammar asks for at least
    /// one item: a body that writes nothing is refused as `what`, empty
    /// (the decoder, like OTP's, would not read `{ }` back).
    fn braces(&mut self, s: usize, what: &'static str, f: impl FnOnce(&mut Self) -> R) -> R {
        self.lb_i(s);
        self.nonempty(what, "empty (text needs at least one item)", f)?;
        self.rb_i(s);
        Ok(())
    }

    /// Runs `f`, refusing as `what`/`detail` if it wrote nothing (an
    /// item that would not read back at all).
    fn nonempty(
        &mut self,
        what: &'static str,
        detail: &'static str,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let start = self.mark();
        f(self)?;
        if self.mark() == start {
            return Err(invalid(what, detail));
        }
        Ok(())
    }

    // ---- lexical values -------------------------------------------------

    /// A NAME or similar bounded string, written as is.
    fn bounded(&mut self, s: &str, min: usize, max: usize, what: &'static str) -> R {
        if s.len() < min || s.len() > max {
            return Err(invalid(
                what,
                format!("length {} outside {}..={}", s.len(), min, max),
            ));
        }
        // A name is one word to the scanner: any other character would end
        // it there (or be no token at all) and the rest would be misread.
        if let Some(&b) = s
            .as_bytes()
            .iter()
            .find(|&&b| classify(b) != CharClass::Safe)
        {
            return Err(invalid(
                what,
                format!("character 0x{b:02x} cannot appear in a name"),
            ));
        }
        self.str(s);
        Ok(())
    }

    fn name(&mut self, s: &str, what: &'static str) -> R {
        self.bounded(s, 1, 64, what)
    }

    /// `package/item` (either may be `*`), as the decoder reads it.
    fn pkgd_name(&mut self, s: &str) -> R {
        match s.find('/') {
            Some(i) if i > 0 && i + 1 < s.len() => self.bounded(s, 1, 64, "package item name"),
            _ => Err(invalid(
                "package item name",
                format!("{s:?} is not package/item"),
            )),
        }
    }

    /// A VALUE: written bare if every character is safe, else quoted.
    fn value(&mut self, s: &str) -> R {
        let sc = scan(s, "value")?;
        if sc.count == 0 || !sc.safe {
            self.byte(b'"');
            self.str(s);
            self.byte(b'"');
        } else {
            self.str(s);
        }
        Ok(())
    }

    /// A quoted string (error text, ServiceChange reason).
    fn quoted_string(&mut self, s: &str, what: &'static str) -> R {
        let sc = scan(s, what)?;
        if sc.quoted {
            if sc.count < 3 {
                return Err(invalid(what, "quoted string too short"));
            }
            self.str(s);
        } else {
            if sc.count < 1 {
                return Err(invalid(what, "empty string"));
            }
            self.byte(b'"');
            self.str(s);
            self.byte(b'"');
        }
        Ok(())
    }

    /// An octet string, with `}` escaped.
    fn octet_string(&mut self, s: &str) {
        for &b in s.as_bytes() {
            if b == b'}' {
                self.byte(b'\\');
            }
            self.byte(b);
        }
    }

    /// Uppercase hex, two digits per octet.
    fn hex_octets(&mut self, octets: &[u8]) {
        const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
        for &o in octets {
            self.byte(DIGITS[(o >> 4) as usize]);
            self.byte(DIGITS[(o & 0xF) as usize]);
        }
    }

    fn message_body_start(&mut self, mess: &Message) -> R {
        self.raw(self.t.megacop);
        self.byte(b'/');
        if mess.version > 99 {
            return Err(invalid("version", "above 99"));
        }
        self.num(mess.version as u64);
        self.byte(b' ');
        self.mid(&mess.mid)?;
        self.byte(b'\n');
        Ok(())
    }
}
