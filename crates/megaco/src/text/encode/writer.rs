//! The writer's primitives: raw tokens, punctuation with OTP's
//! indentation, numbers, names, values and quoted strings, and the checks
//! that keep what is written readable by the decoder.

use super::{invalid, Enc, R};
use crate::model::Message;
use crate::text::scalar::{is_name, is_pkgd_name};
use crate::EncodeError;

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
impl Enc<'_> {
    // ---- primitives -----------------------------------------------------

    #[inline]
    pub(super) fn raw(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    #[inline]
    pub(super) fn byte(&mut self, b: u8) {
        self.out.push(b);
    }

    #[inline]
    pub(super) fn str(&mut self, s: &str) {
        self.raw(s.as_bytes());
    }

    #[inline]
    pub(super) fn mark(&self) -> usize {
        self.out.len()
    }

    #[inline]
    pub(super) fn tabs(&mut self, n: usize) {
        self.out.resize(self.out.len() + n, b'\t');
    }

    /// Writes a decimal number.
    pub(super) fn num(&mut self, n: u64) {
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
    pub(super) fn hex(&mut self, n: u32) {
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
    pub(super) fn eq(&mut self) {
        self.raw(if self.pretty { b" = " } else { b"=" });
    }

    /// `LBRKT` (not followed by a new line).
    #[inline]
    pub(super) fn lb(&mut self) {
        self.raw(if self.pretty { b" { " } else { b"{" });
    }

    /// `RBRKT`.
    #[inline]
    pub(super) fn rb(&mut self) {
        self.raw(if self.pretty { b" } " } else { b"}" });
    }

    /// `LSBRKT` (OTP's v1/v2 pretty encoders write it without spaces).
    #[inline]
    pub(super) fn lsb(&mut self) {
        self.raw(if self.pretty && self.v >= 3 {
            b" [ "
        } else {
            b"["
        });
    }

    /// `RSBRKT`.
    #[inline]
    pub(super) fn rsb(&mut self) {
        self.raw(if self.pretty && self.v >= 3 {
            b" ] "
        } else {
            b"]"
        });
    }

    /// `COMMA` (not followed by a new line).
    #[inline]
    pub(super) fn comma(&mut self) {
        self.raw(if self.pretty { b", " } else { b"," });
    }

    /// `LBRKT` and a new line indented one level deeper than `s`.
    #[inline]
    pub(super) fn lb_i(&mut self, s: usize) {
        if self.pretty {
            self.raw(b" {\n");
            self.tabs(s + 1);
        } else {
            self.byte(b'{');
        }
    }

    /// A new line indented at `s` and `RBRKT`.
    #[inline]
    pub(super) fn rb_i(&mut self, s: usize) {
        if self.pretty {
            self.byte(b'\n');
            self.tabs(s);
        }
        self.byte(b'}');
    }

    #[inline]
    pub(super) fn lsb_i(&mut self, s: usize) {
        if self.pretty {
            self.raw(b" [\n");
            self.tabs(s + 1);
        } else {
            self.byte(b'[');
        }
    }

    #[inline]
    pub(super) fn rsb_i(&mut self, s: usize) {
        if self.pretty {
            self.byte(b'\n');
            self.tabs(s);
        }
        self.byte(b']');
    }

    /// `COMMA` and a new line indented at `s`.
    #[inline]
    pub(super) fn comma_i(&mut self, s: usize) {
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
    pub(super) fn item(&mut self, sep: &mut bool, s: usize, f: impl FnOnce(&mut Self) -> R) -> R {
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
    pub(super) fn item_tok(&mut self, sep: &mut bool, s: usize, tok: &'static [u8]) {
        if *sep {
            self.comma_i(s);
        }
        self.raw(tok);
        *sep = true;
    }

    /// `LBRKT_INDENT(s) … RBRKT_INDENT(s)` around `f`, or nothing if `f`
    /// writes nothing (OTP's `enc_opt_brackets`).
    pub(super) fn opt_brackets(&mut self, s: usize, f: impl FnOnce(&mut Self) -> R) -> R {
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
    pub(super) fn braces(
        &mut self,
        s: usize,
        what: &'static str,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        self.lb_i(s);
        self.nonempty(what, "empty (text needs at least one item)", f)?;
        self.rb_i(s);
        Ok(())
    }

    /// Runs `f`, refusing as `what`/`detail` if it wrote nothing (an
    /// item that would not read back at all).
    pub(super) fn nonempty(
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
    pub(super) fn bounded(&mut self, s: &str, min: usize, max: usize, what: &'static str) -> R {
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

    /// A device name or SDP line name: up to 64 safe characters.
    pub(super) fn name(&mut self, s: &str, what: &'static str) -> R {
        self.bounded(s, 1, 64, what)
    }

    /// A `NAME` of the grammar (a letter, then letters, digits and `_`,
    /// 64 at most), as the decoder reads it.
    pub(super) fn grammar_name(&mut self, s: &str, what: &'static str) -> R {
        if !is_name(s.as_bytes()) {
            return Err(invalid(
                what,
                format!("{s:?} is not a NAME (a letter, then letters, digits and _)"),
            ));
        }
        self.str(s);
        Ok(())
    }

    /// `package/item` (`package/*` or `*/*`), as the decoder reads it.
    pub(super) fn pkgd_name(&mut self, s: &str) -> R {
        if !is_pkgd_name(s.as_bytes()) {
            return Err(invalid(
                "package item name",
                format!("{s:?} is not package/item"),
            ));
        }
        self.str(s);
        Ok(())
    }

    /// A VALUE: written bare if every character is safe and none is an
    /// upper-case letter, else quoted. (A bare value reads back
    /// lower-cased, so `"ABC"` stays quoted to keep its case; OTP writes it
    /// bare and reads back `abc`.)
    pub(super) fn value(&mut self, s: &str) -> R {
        let sc = scan(s, "value")?;
        if sc.quoted {
            // Written as is, `"q"` would read back as `q`: text has no way
            // to hold a value's own quotes.
            return Err(invalid("value", "double quotes around a value"));
        }
        if sc.count == 0 || !sc.safe || (!sc.quoted && s.bytes().any(|b| b.is_ascii_uppercase())) {
            self.byte(b'"');
            self.str(s);
            self.byte(b'"');
        } else {
            self.str(s);
        }
        Ok(())
    }

    /// A quoted string (error text, ServiceChange reason).
    ///
    /// The model holds the text without its quotes; quotes of its own
    /// would be lost (`"x"` reads back as `x`), so they are refused, as a
    /// quote inside is. An empty string is `""` (the grammar's
    /// `quotedString` may be empty, and the decoder reads it).
    pub(super) fn quoted_string(&mut self, s: &str, what: &'static str) -> R {
        let sc = scan(s, what)?;
        if sc.quoted {
            return Err(invalid(what, "double quotes around the text"));
        }
        self.byte(b'"');
        self.str(s);
        self.byte(b'"');
        Ok(())
    }

    /// An octet string, with `}` escaped.
    /// An octetString (`}` escaped); the grammar has no NUL octet
    /// (`%x01-7C / %x7E-FF`), so `what` holding one is refused.
    pub(super) fn octet_string(&mut self, s: &str, what: &'static str) -> R {
        if s.as_bytes().contains(&0) {
            return Err(invalid(what, "a NUL octet has no text form"));
        }
        for &b in s.as_bytes() {
            if b == b'}' {
                self.byte(b'\\');
            }
            self.byte(b);
        }
        Ok(())
    }

    /// Uppercase hex, two digits per octet.
    pub(super) fn hex_octets(&mut self, octets: &[u8]) {
        const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
        for &o in octets {
            self.byte(DIGITS[(o >> 4) as usize]);
            self.byte(DIGITS[(o & 0xF) as usize]);
        }
    }

    pub(super) fn message_body_start(&mut self, mess: &Message) -> R {
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
