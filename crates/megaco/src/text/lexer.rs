//! The tokens of the text encoding, read in one pass over the input.
//!
//! [`Lexer`] is a cursor over a message: it skips white space and `;`
//! comments, reads a word (a run of `SafeChar`s) once and looks it up as a
//! keyword once, reads quoted strings and the raw `{ }` text of SDP and
//! digit maps, and makes every error with its position. The input is
//! checked to be UTF-8 once, up front, so the words and strings it hands
//! out are `&str` slices that become model strings without another check.
//! It allocates nothing (errors aside).

use super::keyword::{keyword, Kw};
use super::scalar::parse_decimal;
use crate::error::{DecodeError, DecodeErrorKind, Limit};
use crate::Limits;

/// What every parsing step returns; the error is one pointer wide.
pub(crate) type R<T> = Result<T, DecodeError>;

const SAFE: u8 = 1;
const SPACE: u8 = 2;
const SEMI: u8 = 4;

/// `SafeChar` of the ABNF: letters, digits and
/// `+ - & ! _ / ' ? @ ^ ` ~ * $ \ ( ) % | .` (also the text scan floor's
/// word characters, [`crate::floor`]).
pub(crate) const fn safe_char(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'+' | b'-'
                | b'&'
                | b'!'
                | b'_'
                | b'/'
                | b'\''
                | b'?'
                | b'@'
                | b'^'
                | b'`'
                | b'~'
                | b'*'
                | b'$'
                | b'\\'
                | b'('
                | b')'
                | b'%'
                | b'|'
                | b'.'
        )
}

/// Byte classes: `SafeChar` of the ABNF (letters, digits and
/// `+ - & ! _ / ' ? @ ^ ` ~ * $ \ ( ) % | .`), white space (space, tab,
/// CR, LF) and `;`.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = if safe_char(c) {
            SAFE
        } else if matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
            SPACE
        } else if c == b';' {
            SEMI
        } else {
            0
        };
        i += 1;
    }
    t
};

/// `SafeChar` of the ABNF.
#[inline]
pub(crate) fn is_safe(b: u8) -> bool {
    CLASS[b as usize] == SAFE
}

/// Space, tab, CR or LF.
#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    CLASS[b as usize] == SPACE
}

/// A numeric type of the ABNF: at most `digits` decimal digits, at most
/// `max`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Num {
    pub max: u64,
    pub digits: usize,
}

/// `UINT16 = 1*5(DIGIT)`.
pub(crate) const UINT16: Num = Num {
    max: u16::MAX as u64,
    digits: 5,
};
/// `UINT32 = 1*10(DIGIT)`.
pub(crate) const UINT32: Num = Num {
    max: u32::MAX as u64,
    digits: 10,
};
/// `Version = 1*2(DIGIT)` (protocol, ServiceChange and profile versions).
pub(crate) const VERSION: Num = Num { max: 99, digits: 2 };
/// `ErrorCode = 1*4(DIGIT)`.
pub(crate) const ERROR_CODE: Num = Num {
    max: 9999,
    digits: 4,
};
/// `Timer = 1*2DIGIT` (digit map timers).
pub(crate) const TIMER: Num = Num { max: 99, digits: 2 };
/// `priority = PriorityToken EQUAL UINT16`: the model holds a byte
/// (H.248.1 defines 0 to 15).
pub(crate) const PRIORITY: Num = Num {
    max: u8::MAX as u64,
    digits: 5,
};
/// `packagesItem = NAME "-" UINT16`, at most 99 as the ASN.1 (and OTP)
/// bound it.
pub(crate) const PACKAGE_VERSION: Num = Num { max: 99, digits: 5 };

/// A word with its offset and, when it spells one in the message's
/// version, its keyword.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok<'a> {
    pub at: usize,
    pub text: &'a str,
    pub kw: Option<Kw>,
}

/// A cursor over one message.
#[derive(Debug, Clone)]
pub(crate) struct Lexer<'a> {
    /// The whole input (for positions and excerpts).
    input: &'a [u8],
    /// The part of the input that is UTF-8: all of it, or the prefix
    /// before the first invalid byte (reaching its end is then an
    /// [`InvalidUtf8`](DecodeErrorKind::InvalidUtf8) error).
    s: &'a str,
    pub pos: usize,
    depth: usize,
    /// The protocol version (from the header; 3 until then).
    pub version: u8,
    pub limits: &'a Limits,
}

impl<'a> Lexer<'a> {
    pub fn new(input: &'a [u8], limits: &'a Limits) -> Self {
        let s = match std::str::from_utf8(input) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&input[..e.valid_up_to()]).unwrap_or_default(),
        };
        Lexer {
            input,
            s,
            pos: 0,
            depth: 0,
            version: 3,
            limits,
        }
    }

    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.s.as_bytes()
    }

    /// The text from `from` to `to` (both on token boundaries).
    #[inline]
    pub fn slice(&self, from: usize, to: usize) -> &'a str {
        self.s.get(from..to).unwrap_or_default()
    }

    /// The text from `from` to the end.
    #[inline]
    pub fn rest_from(&self, from: usize) -> &'a str {
        self.s.get(from..).unwrap_or_default()
    }

    // ---- errors --------------------------------------------------------

    #[cold]
    pub fn err(&self, at: usize, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::text(self.input, at, kind)
    }

    /// What is at the cursor, for "found ..." in errors.
    fn found(&self) -> String {
        let rest = &self.input[self.pos.min(self.input.len())..];
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

    /// "Expected X" at the cursor: at the end of the UTF-8 text, an
    /// end-of-input or invalid-UTF-8 error.
    #[cold]
    pub fn expected(&self, expected: &'static str) -> DecodeError {
        if self.pos >= self.s.len() {
            if self.s.len() < self.input.len() {
                return self.err(self.s.len(), DecodeErrorKind::InvalidUtf8);
            }
            return self.err(self.pos, DecodeErrorKind::Truncated { expected });
        }
        self.err(
            self.pos,
            DecodeErrorKind::Unexpected {
                expected,
                found: self.found().into(),
            },
        )
    }

    #[cold]
    pub fn unknown(&self, t: Tok<'_>, expected: &'static str) -> DecodeError {
        self.err(
            t.at,
            DecodeErrorKind::UnknownKeyword {
                expected,
                found: excerpt(t.text.as_bytes()),
            },
        )
    }

    #[cold]
    pub fn invalid(&self, at: usize, w: &str, what: &'static str) -> DecodeError {
        self.err(
            at,
            DecodeErrorKind::Invalid {
                what,
                detail: format!("`{}`", excerpt(w.as_bytes())).into(),
            },
        )
    }

    #[cold]
    pub fn dup(&self, at: usize, what: &'static str) -> DecodeError {
        self.err(at, DecodeErrorKind::Duplicate { what })
    }

    #[cold]
    pub fn missing(&self, at: usize, what: &'static str) -> DecodeError {
        self.err(at, DecodeErrorKind::Missing { what })
    }

    #[cold]
    pub fn too_many(&self) -> DecodeError {
        self.err(self.pos, Limit::ListLen.exceeded(self.limits, None))
    }

    // ---- white space and punctuation -------------------------------------

    /// Skips white space, line ends and `;` comments.
    #[inline]
    pub fn ws(&mut self) {
        let b = self.bytes();
        // Nothing to skip is the usual case in the compact form: no store.
        if b.get(self.pos)
            .is_some_and(|&c| CLASS[c as usize] & (SPACE | SEMI) != 0)
        {
            self.pos = skip_ws(b, self.pos);
        }
    }

    /// The next significant byte.
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.bytes().get(self.pos).copied()
    }

    /// The byte at the cursor, white space not skipped.
    #[inline]
    pub fn here(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    /// `SEP`: at least one space, tab, line end or comment (and any more).
    pub fn sep(&mut self, what: &'static str) -> R<()> {
        match self.here() {
            Some(c) if is_ws(c) || c == b';' => {
                self.ws();
                Ok(())
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Exactly the byte `b` at the cursor, no white space before it.
    pub fn expect_here(&mut self, b: u8, what: &'static str) -> R<()> {
        if self.here() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }

    /// Whether the input is used up (white space and comments aside).
    pub fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    #[inline]
    pub fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    #[inline]
    pub fn expect(&mut self, b: u8, what: &'static str) -> R<()> {
        if self.eat(b) {
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }

    #[inline]
    pub fn equal(&mut self) -> R<()> {
        self.expect(b'=', "`=`")
    }

    /// One nesting level deeper.
    #[inline]
    pub fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(self.too_deep());
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> DecodeError {
        self.err(
            self.pos.saturating_sub(1),
            Limit::Depth.exceeded(self.limits, None),
        )
    }

    #[inline]
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// `{`, one level deeper.
    #[inline]
    pub fn open(&mut self) -> R<()> {
        self.expect(b'{', "`{`")?;
        self.enter()
    }

    /// `}`, one level up.
    #[inline]
    pub fn close(&mut self) -> R<()> {
        self.expect(b'}', "`}`")?;
        self.leave();
        Ok(())
    }

    /// `[`, one level deeper, when it is next.
    #[inline]
    pub fn open_square(&mut self) -> R<bool> {
        if self.eat(b'[') {
            self.enter()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// `]`, one level up.
    #[inline]
    pub fn close_square(&mut self) -> R<()> {
        self.expect(b']', "`]`")?;
        self.leave();
        Ok(())
    }

    /// After an item of a braced list: `true` for `,` (another item),
    /// `false` after the closing `}`. `count` counts the items so far.
    #[inline]
    pub fn next_item(&mut self, count: &mut usize) -> R<bool> {
        if self.eat(b',') {
            self.count(count)?;
            Ok(true)
        } else {
            self.close()?;
            Ok(false)
        }
    }

    /// One more item in a list: refused past [`Limits::max_list_len`].
    #[inline]
    pub fn count(&self, count: &mut usize) -> R<()> {
        *count += 1;
        if *count >= self.limits.max_list_len {
            return Err(self.too_many());
        }
        Ok(())
    }

    /// Refuses a string of `len` bytes at `at` longer than the limit.
    #[inline]
    pub fn string_len(&self, at: usize, len: usize) -> R<()> {
        if len > self.limits.max_string_len {
            return Err(self.too_long(at, len));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_long(&self, at: usize, len: usize) -> DecodeError {
        self.err(at, Limit::StringLen.exceeded(self.limits, Some(len)))
    }

    // ---- words -----------------------------------------------------------

    /// A run of safe characters, with its offset.
    #[inline]
    pub fn word(&mut self, expected: &'static str) -> R<(usize, &'a str)> {
        let b = self.bytes();
        let start = skip_ws(b, self.pos);
        let mut end = start;
        while end < b.len() && is_safe(b[end]) {
            end += 1;
        }
        let len = end - start;
        // One test for both refusals; the errors are built out of line.
        if len.wrapping_sub(1) >= self.limits.max_string_len {
            self.pos = start;
            return Err(self.bad_word(start, len, expected));
        }
        self.pos = end;
        Ok((start, self.slice(start, end)))
    }

    #[cold]
    #[inline(never)]
    fn bad_word(&self, start: usize, len: usize, expected: &'static str) -> DecodeError {
        if len == 0 {
            self.expected(expected)
        } else {
            self.too_long(start, len)
        }
    }

    /// A word and its keyword, read once.
    #[inline]
    pub fn token(&mut self, expected: &'static str) -> R<Tok<'a>> {
        let (at, text) = self.word(expected)?;
        Ok(Tok {
            at,
            text,
            kw: keyword(text.as_bytes(), self.version),
        })
    }

    /// A word whose keyword does not matter (a termination id, a
    /// number): no lookup.
    #[inline]
    pub fn plain_word(&mut self, expected: &'static str) -> R<Tok<'a>> {
        let (at, text) = self.word(expected)?;
        Ok(Tok { at, text, kw: None })
    }

    /// Exactly the keyword `k`.
    pub fn expect_kw(&mut self, k: Kw, expected: &'static str) -> R<Tok<'a>> {
        let t = self.token(expected)?;
        if t.kw == Some(k) {
            Ok(t)
        } else {
            Err(self.unknown(t, expected))
        }
    }

    // ---- numbers ---------------------------------------------------------

    /// `w` (at `at`) as a number of the ABNF type `num`: decimal digits,
    /// no more of them than the type has, and at most its largest value.
    #[inline]
    pub fn number(&self, at: usize, w: &str, what: &'static str, num: Num) -> R<u64> {
        match parse_decimal(w.as_bytes(), num.digits) {
            Some(v) if v <= num.max => Ok(v),
            Some(_) => Err(self.out_of_range(at, w, what, num.max)),
            None if w.len() > num.digits && w.bytes().all(|b| b.is_ascii_digit()) => {
                match parse_decimal(w.as_bytes(), 19) {
                    Some(v) if v <= num.max => Err(self.bad_number(at, w, what)),
                    _ => Err(self.out_of_range(at, w, what, num.max)),
                }
            }
            None => Err(self.bad_number(at, w, what)),
        }
    }

    #[cold]
    fn bad_number(&self, at: usize, w: &str, what: &'static str) -> DecodeError {
        self.err(
            at,
            DecodeErrorKind::InvalidNumber {
                what,
                found: excerpt(w.as_bytes()),
            },
        )
    }

    #[cold]
    fn out_of_range(&self, at: usize, w: &str, what: &'static str, max: u64) -> DecodeError {
        self.err(
            at,
            DecodeErrorKind::OutOfRange {
                what,
                found: Some(excerpt(w.as_bytes())),
                max: Some(max),
            },
        )
    }

    /// A word that is a number of the ABNF type `num`, read and
    /// converted in one pass over its digits. Anything else (no digit,
    /// too many, too large, or a word that goes on past its digits) is
    /// read again by [`Lexer::word`] and [`Lexer::number`], which say what
    /// is wrong.
    #[inline]
    pub fn num_word(&mut self, what: &'static str, num: Num) -> R<u64> {
        let b = self.bytes();
        let start = skip_ws(b, self.pos);
        let mut end = start;
        let mut v: u64 = 0;
        while let Some(d) = b.get(end).map(|c| c.wrapping_sub(b'0')).filter(|&d| d <= 9) {
            // Wraps only past `num.digits` digits, which are refused below.
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            end += 1;
        }
        let len = end - start;
        if len == 0
            || len > num.digits
            || len > self.limits.max_string_len
            || v > num.max
            || b.get(end).is_some_and(|&c| is_safe(c))
        {
            return self.num_word_slow(what, num);
        }
        self.pos = end;
        Ok(v)
    }

    /// [`Lexer::num_word`] for anything but plain digits: the word, then
    /// the number in it.
    #[cold]
    #[inline(never)]
    fn num_word_slow(&mut self, what: &'static str, num: Num) -> R<u64> {
        let (at, w) = self.word(what)?;
        self.number(at, w, what, num)
    }

    /// `UINT32`.
    #[inline]
    pub fn u32_word(&mut self, what: &'static str) -> R<u32> {
        // The bound makes the conversion lossless.
        Ok(self.num_word(what, UINT32)? as u32)
    }

    /// `UINT16`.
    #[inline]
    pub fn u16_word(&mut self, what: &'static str) -> R<u16> {
        Ok(self.num_word(what, UINT16)? as u16)
    }

    /// A number of the ABNF type `num` whose largest value fits a byte.
    #[inline]
    pub fn u8_word(&mut self, what: &'static str, num: Num) -> R<u8> {
        Ok(self.num_word(what, num)?.min(u64::from(u8::MAX)) as u8)
    }

    // ---- strings ---------------------------------------------------------

    /// A quoted string, without its quotes (the cursor is on `"`):
    /// `DQUOTE *(SafeChar / RestChar / WSP) DQUOTE`, that is printable
    /// ASCII and tabs.
    pub fn quoted(&mut self) -> R<&'a str> {
        let b = self.bytes();
        let start = self.pos + 1;
        let mut i = start;
        loop {
            match b.get(i) {
                Some(b'"') => break,
                Some(&c) if (0x20..0x7F).contains(&c) || c == b'\t' => i += 1,
                _ => {
                    self.pos = i;
                    return Err(self.expected("printable ASCII or a closing `\"`"));
                }
            }
        }
        self.string_len(start, i - start)?;
        self.pos = i + 1;
        Ok(self.slice(start, i))
    }

    /// The raw text of `{ ... }` after a keyword (SDP, digit maps, MTP):
    /// up to the first `}` not preceded by `\`, white space trimmed at
    /// both ends. Returns the text and its offset.
    pub fn octet_string(&mut self) -> R<(usize, &'a str)> {
        self.expect(b'{', "`{`")?;
        self.ws();
        let b = self.bytes();
        let start = self.pos;
        let mut i = start;
        // SDP runs to tens of lines: the bytes that matter are found by a
        // search that reads many at a time.
        loop {
            let Some(k) = memchr::memchr3(b'}', b'\\', 0, &b[i..]) else {
                self.pos = b.len();
                return Err(self.expected("`}`"));
            };
            i += k;
            match b[i] {
                b'}' => break,
                b'\\' if b.get(i + 1) == Some(&b'}') => i += 2,
                b'\\' => i += 1,
                _ => {
                    self.pos = i;
                    return Err(self.expected("`}`"));
                }
            }
        }
        let mut end = i;
        while end > start && is_ws(b[end - 1]) {
            end -= 1;
        }
        self.string_len(start, end - start)?;
        self.pos = i + 1;
        Ok((start, self.slice(start, end)))
    }
}

/// The first offset at or after `i` that is neither white space nor in a
/// `;` comment. A local cursor, stored by the caller once: with the
/// pretty form's indentation this loop is as hot as the word scan.
#[inline]
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        match CLASS[c as usize] {
            SPACE => i += 1,
            SEMI => {
                i += 1;
                while let Some(&c) = b.get(i) {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    i += 1;
                }
            }
            _ => break,
        }
    }
    i
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
