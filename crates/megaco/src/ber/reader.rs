//! A bounds-checked BER TLV reader over untrusted input.
//!
//! Reads single-octet and multi-octet tags, short, long and (for
//! constructed values) indefinite lengths. Every length is checked against
//! the bytes that remain in its container before anything is sliced, and
//! the nesting depth is bounded. Nothing here allocates.
//!
//! [`Input`] reads; what it hands out are offsets: a [`Span`] (one TLV)
//! and a [`Cursor`] (a container being read), sized to come back from a
//! call in registers. The borrowed view and the owned decoder both walk
//! with those.

use crate::codec::Kind;
use crate::error::{DecodeError, DecodeErrorKind as K, Limit};
use crate::Limits;
use std::num::NonZeroU64;

// ---- errors --------------------------------------------------------------
//
// Out of line and cold: the happy path carries none of their code.

#[cold]
fn ber(offset: usize, kind: K) -> DecodeError {
    DecodeError::new(Kind::Ber, offset, kind)
}

#[cold]
pub(super) fn unexpected_tag(offset: usize, expected: &'static str, tag: u8) -> DecodeError {
    ber(offset, K::UnexpectedTag { expected, tag })
}

#[cold]
pub(super) fn truncated(offset: usize, expected: &'static str) -> DecodeError {
    ber(offset, K::Truncated { expected })
}

#[cold]
fn bad_length(offset: usize, detail: &'static str) -> DecodeError {
    ber(
        offset,
        K::BadLength {
            detail: detail.into(),
        },
    )
}

#[cold]
pub(super) fn too_deep(offset: usize, max: usize) -> DecodeError {
    let (limit, found) = (Limit::Depth, None);
    ber(offset, K::LimitExceeded { limit, max, found })
}

#[cold]
fn too_many_items(offset: usize, max: usize) -> DecodeError {
    let (limit, found) = (Limit::ListLen, None);
    ber(offset, K::LimitExceeded { limit, max, found })
}

#[cold]
fn string_too_long(offset: usize, len: usize, max: usize) -> DecodeError {
    let (limit, found) = (Limit::StringLen, Some(len));
    ber(offset, K::LimitExceeded { limit, max, found })
}

#[cold]
pub(super) fn too_large(size: usize, max: usize) -> DecodeError {
    let (limit, found) = (Limit::MessageSize, Some(size));
    ber(0, K::LimitExceeded { limit, max, found })
}

#[cold]
pub(super) fn missing_at(offset: usize, what: &'static str) -> DecodeError {
    ber(offset, K::Missing { what })
}

#[cold]
pub(super) fn bad_value(offset: usize, expected: &'static str) -> DecodeError {
    ber(offset, K::BadValue { expected })
}

#[cold]
pub(super) fn unsupported_version(offset: usize, version: u64) -> DecodeError {
    ber(offset, K::UnsupportedVersion { version })
}

#[cold]
pub(super) fn trailing_data(offset: usize, len: usize) -> DecodeError {
    ber(offset, K::TrailingData { len: len - offset })
}

// ---- the input, spans and cursors ------------------------------------------

/// The longest input the reader takes (its offsets are 32-bit).
pub(super) const MAX_INPUT: usize = u32::MAX as usize;

/// The deepest nesting the reader follows, whatever [`Limits::max_depth`]
/// says (its depth is 16-bit; the stack gives out long before).
pub(super) const MAX_DEPTH: usize = u16::MAX as usize;

/// The bytes being read and the limits they are read within. Everything
/// else the reader hands out ([`Span`], [`Cursor`]) is a few offsets into
/// it, small enough to pass to and come back from a call in registers:
/// the borrowed view and the owned decoder walk with those.
#[derive(Debug, Clone, Copy)]
pub(super) struct Input<'a> {
    data: &'a [u8],
    limits: &'a Limits,
}

/// Where one TLV lies, in two 64-bit words: the content's start and end
/// offsets, and its tag, header length and depth. Whole words, so that
/// the reader's result (`Result<Span, Option<DecodeError>>`, two words)
/// comes back in two registers: built from fields of their own sizes, it
/// went through the stack, and each read stalled on the narrower stores
/// before it (the view took half as long again).
///
/// The tag octet of a high-tag-number value (number ≥ 31) is kept as its
/// first octet, which never equals a tag the Megaco module uses, so such
/// values are skipped as unknown extensions.
#[derive(Debug, Clone, Copy)]
pub(super) struct Span {
    /// Content start offset (low half) and end offset (high half,
    /// exclusive; the end-of-contents octets of an indefinite length are
    /// not included).
    bounds: u64,
    /// The first tag octet (class, constructed bit, number < 31) in bits
    /// 0–7, the octets of tag and length before the content (2 to 132)
    /// in bits 8–15, the depth in bits 16–31, and [`PRESENT`].
    meta: NonZeroU64,
}

/// Reads the TLVs of one container in order (offsets into an [`Input`]).
#[derive(Debug, Clone)]
pub(super) struct Cursor {
    pos: u32,
    end: u32,
    /// TLVs read so far from this container.
    count: u32,
    depth: u16,
}

impl Cursor {
    /// The offset of the next TLV (after the last one read).
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos as usize
    }
}

impl Span {
    /// The first tag octet.
    #[inline]
    pub fn tag(&self) -> u8 {
        self.meta.get() as u8
    }

    /// Offset of the tag in the input.
    #[inline]
    pub fn offset(&self) -> usize {
        self.start() - (self.meta.get() >> 8) as u8 as usize
    }

    /// Offset of the content.
    #[inline]
    fn start(&self) -> usize {
        self.bounds as u32 as usize
    }

    /// Offset after the content (the end-of-contents octets of an
    /// indefinite length excluded).
    #[inline]
    pub fn end(&self) -> usize {
        (self.bounds >> 32) as usize
    }

    /// Its nesting depth (0 for a value of the outermost level).
    #[inline]
    pub fn depth(&self) -> usize {
        usize::from((self.meta.get() >> 16) as u16)
    }
}

impl<'a> Input<'a> {
    /// `data` read within `limits` (depth, components per container,
    /// primitive value length); only its first [`MAX_INPUT`] octets are
    /// read (callers refuse longer inputs).
    pub fn new(data: &'a [u8], limits: &'a Limits) -> Self {
        Input { data, limits }
    }

    /// A cursor over the whole input.
    pub fn cursor(&self) -> Cursor {
        Cursor {
            pos: 0,
            end: u32::try_from(self.data.len()).unwrap_or(u32::MAX),
            count: 0,
            depth: 0,
        }
    }

    /// The limits the input is read within.
    #[inline]
    pub fn limits(&self) -> &'a Limits {
        self.limits
    }

    /// The content octets of `s`.
    #[inline]
    pub fn content(&self, s: Span) -> &'a [u8] {
        &self.data[s.start()..s.end()]
    }

    /// A cursor over the components of the constructed value `s`.
    #[inline]
    pub fn children(&self, s: Span) -> Result<Cursor, DecodeError> {
        if s.tag() & 0x20 == 0 {
            return Err(unexpected_tag(s.offset(), "a constructed value", s.tag()));
        }
        let max = self.limits.max_depth.min(MAX_DEPTH);
        if s.depth() >= max {
            return Err(too_deep(s.offset(), max));
        }
        Ok(Cursor {
            // Both within the input, u32s.
            pos: s.start() as u32,
            end: s.end() as u32,
            count: 0,
            // Below MAX_DEPTH, a u16.
            depth: s.depth() as u16 + 1,
        })
    }

    /// The next TLV of `c`, or `None` at the end of its container.
    #[inline(always)]
    pub fn next(&self, c: &mut Cursor) -> Result<Option<Span>, DecodeError> {
        match self.advance(c) {
            Ok(s) => Ok(Some(s)),
            Err(None) => Ok(None),
            Err(Some(e)) => Err(e),
        }
    }

    /// [`next`](Self::next) in a form that fits two registers: the next
    /// TLV, `Err(None)` at the end of the container, or `Err(Some(_))`.
    ///
    /// The common case (a low tag number, a short definite length, within
    /// every limit) is a few instructions inlined into the caller; the
    /// rest is [`advance_slow`](Self::advance_slow), out of line.
    #[inline(always)]
    fn advance(&self, c: &mut Cursor) -> Result<Span, Option<DecodeError>> {
        let (pos, limit) = (c.pos as usize, c.end as usize);
        if pos >= limit {
            return Err(None);
        }
        c.count += 1;
        if let Some(&[tag, l0, l1]) = self.data.get(pos..pos + 3) {
            // A short length, or one length octet after 0x81 (what
            // encoders write for 128 to 255 octets).
            let (header, len) = match l0 {
                0..=0x7F => (2, usize::from(l0)),
                0x81 => (3, usize::from(l1)),
                _ => (0, 0),
            };
            let end = pos + header + len;
            if tag & 0x1F != 0x1F
                && header != 0
                && end <= limit
                && c.count as usize <= self.limits.max_list_len
                && (tag & 0x20 != 0 || len <= self.limits.max_string_len)
            {
                // Within `limit`, a u32.
                c.pos = end as u32;
                return Ok(span(tag, pos, pos + header, end, c.depth));
            }
        }
        self.advance_slow(c)
    }

    /// [`advance`](Self::advance) for long and indefinite lengths, high
    /// tag numbers, and every error.
    #[inline(never)]
    fn advance_slow(&self, c: &mut Cursor) -> Result<Span, Option<DecodeError>> {
        let max = self.limits.max_list_len;
        if c.count as usize > max {
            return Err(Some(too_many_items(c.pos(), max)));
        }
        let (s, next) = read_tlv(self.data, c.pos(), c.end as usize, c.depth, self.limits)?;
        // Within `c.end`, a u32.
        c.pos = next as u32;
        let len = s.end() - s.start();
        if s.tag() & 0x20 == 0 && len > self.limits.max_string_len {
            let max = self.limits.max_string_len;
            return Err(Some(string_too_long(s.offset(), len, max)));
        }
        Ok(s)
    }
}

/// Reads one TLV at `pos`, which must lie before `limit`; returns it and
/// the offset after it.
fn read_tlv(
    data: &[u8],
    pos: usize,
    limit: usize,
    depth: u16,
    limits: &Limits,
) -> Result<(Span, usize), DecodeError> {
    let offset = pos;
    let tag = data[pos];
    let mut p = pos + 1;
    if tag & 0x1F == 0x1F {
        // high tag number: base-128 octets, last one without bit 8
        let mut n = 0;
        loop {
            if p >= limit {
                return Err(truncated(p, "tag number"));
            }
            let b = data[p];
            p += 1;
            n += 1;
            if n > 4 {
                return Err(unexpected_tag(offset, "a tag number below 2^28", tag));
            }
            if b & 0x80 == 0 {
                break;
            }
        }
    }
    if p >= limit {
        return Err(truncated(p, "length"));
    }
    let l0 = data[p];
    p += 1;
    if l0 < 0x80 {
        let end = p + usize::from(l0);
        if end > limit {
            return Err(truncated(p, "content of the stated length"));
        }
        return Ok((span(tag, offset, p, end, depth), end));
    }
    if l0 == 0x80 {
        if tag & 0x20 == 0 {
            return Err(bad_length(p - 1, "indefinite length on a primitive value"));
        }
        let max = limits.max_depth.min(MAX_DEPTH);
        if usize::from(depth) >= max {
            return Err(too_deep(offset, max));
        }
        // Scan the components up to the end-of-contents octets.
        let start = p;
        let mut q = p;
        loop {
            if q + 2 > limit {
                return Err(truncated(q, "end-of-contents octets"));
            }
            if data[q] == 0 && data[q + 1] == 0 {
                let t = span(tag, offset, start, q, depth);
                return Ok((t, q + 2));
            }
            let (_, next) = read_tlv(data, q, limit, depth + 1, limits)?;
            q = next;
        }
    }
    if l0 == 0xFF {
        return Err(bad_length(p - 1, "reserved length octet 0xFF"));
    }
    let n = usize::from(l0 & 0x7F);
    if p + n > limit {
        return Err(truncated(p, "length octets"));
    }
    let mut len: usize = 0;
    for &b in &data[p..p + n] {
        if len > (usize::MAX >> 8) {
            return Err(bad_length(p - 1, "length too large"));
        }
        len = (len << 8) | usize::from(b);
    }
    p += n;
    if len > limit - p {
        return Err(truncated(p, "content of the stated length"));
    }
    let end = p + len;
    Ok((span(tag, offset, p, end, depth), end))
}

/// A span within the first [`MAX_INPUT`] octets (every offset a reader
/// hands out is), whose header (tag and length octets) is 2 to 132 octets.
#[inline]
pub(super) fn span(tag: u8, offset: usize, start: usize, end: usize, depth: u16) -> Span {
    let header = (start - offset) as u64;
    Span {
        bounds: start as u64 | (end as u64) << 32,
        meta: PRESENT | (u64::from(tag) | header << 8 | u64::from(depth) << 16),
    }
}

/// Bit 32 of [`Span::meta`], always set: `meta` is never zero, and
/// `Result<Span, Option<DecodeError>>` needs no room of its own for
/// which it is.
const PRESENT: NonZeroU64 = match NonZeroU64::new(1 << 32) {
    Some(n) => n,
    None => unreachable!(),
};

#[cfg(test)]
mod tests {
    use super::*;

    fn all(data: &[u8]) -> Result<Vec<(u8, Vec<u8>)>, DecodeError> {
        all_with(
            data,
            &Limits {
                max_depth: 8,
                ..Limits::DEFAULT
            },
        )
    }

    fn all_with(data: &[u8], limits: &Limits) -> Result<Vec<(u8, Vec<u8>)>, DecodeError> {
        let input = Input::new(data, limits);
        let mut r = input.cursor();
        let mut v = Vec::new();
        while let Some(t) = input.next(&mut r)? {
            v.push((t.tag(), input.content(t).to_vec()));
        }
        Ok(v)
    }

    /// What the reader hands back fits two registers (see [`Span`]).
    #[test]
    fn results_are_two_words() {
        use std::mem::size_of;
        assert_eq!(size_of::<Span>(), 16);
        assert_eq!(size_of::<Result<Span, Option<DecodeError>>>(), 16);
        assert_eq!(size_of::<Cursor>(), 16);
    }

    #[test]
    fn short_long_indefinite() {
        assert_eq!(all(&[0x80, 1, 5]).unwrap(), vec![(0x80, vec![5])]);
        assert_eq!(all(&[0x80, 0x81, 1, 5]).unwrap(), vec![(0x80, vec![5])]);
        assert_eq!(all(&[0x80, 0x82, 0, 1, 5]).unwrap(), vec![(0x80, vec![5])]);
        assert_eq!(
            all(&[0xA1, 0x80, 0x80, 1, 5, 0, 0, 0x81, 0]).unwrap(),
            vec![(0xA1, vec![0x80, 1, 5]), (0x81, vec![])]
        );
        // nested indefinite
        let v = all(&[0xA1, 0x80, 0xA0, 0x80, 0x80, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(v, vec![(0xA1, vec![0xA0, 0x80, 0x80, 0, 0, 0])]);
        // high tag number
        assert_eq!(
            all(&[0x9F, 0x81, 0x01, 1, 7]).unwrap(),
            vec![(0x9F, vec![7])]
        );
    }

    #[test]
    fn errors() {
        assert!(matches!(
            all(&[0x80, 2, 5]),
            Err(e) if matches!(e.kind(), K::Truncated { .. })
        ));
        assert!(matches!(all(&[0x80]), Err(e) if matches!(e.kind(), K::Truncated { .. })));
        assert!(matches!(
            all(&[0x80, 0x80, 0, 0]),
            Err(e) if matches!(e.kind(), K::BadLength { .. })
        ));
        assert!(matches!(
            all(&[0xA0, 0x80, 0x80, 0]),
            Err(e) if matches!(e.kind(), K::Truncated { .. })
        ));
        assert!(matches!(
            all(&[0x80, 0xFF]),
            Err(e) if matches!(e.kind(), K::BadLength { .. })
        ));
        assert!(matches!(
            all(&[0x80, 0x88, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            Err(e) if matches!(e.kind(), K::Truncated { .. })
        ));
        // depth bound on indefinite nesting
        let mut deep = Vec::new();
        for _ in 0..20 {
            deep.extend_from_slice(&[0xA0, 0x80]);
        }
        assert!(matches!(all(&deep), Err(e) if e.exceeded_limit() == Some(Limit::Depth)));
    }

    #[test]
    fn list_and_string_limits() {
        let tight = Limits {
            max_list_len: 2,
            max_string_len: 3,
            ..Limits::DEFAULT
        };
        let three = [0x80, 0, 0x81, 0, 0x82, 0];
        assert_eq!(all_with(&three[..4], &tight).unwrap().len(), 2);
        let e = all_with(&three, &tight).unwrap_err();
        assert_eq!(e.offset(), 4);
        assert_eq!(
            e.kind(),
            &K::LimitExceeded {
                limit: Limit::ListLen,
                max: 2,
                found: None
            }
        );
        assert_eq!(all_with(&[0x80, 3, 1, 2, 3], &tight).unwrap().len(), 1);
        let e = all_with(&[0x80, 0x81, 4, 1, 2, 3, 4], &tight).unwrap_err();
        assert_eq!(e.offset(), 0);
        assert_eq!(
            e.kind(),
            &K::LimitExceeded {
                limit: Limit::StringLen,
                max: 3,
                found: Some(4)
            }
        );
        // a constructed value may be longer: its components are checked
        assert_eq!(
            all_with(&[0xA0, 4, 0x80, 2, 1, 2], &tight).unwrap().len(),
            1
        );
    }
}
