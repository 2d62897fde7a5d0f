//! A bounds-checked BER TLV reader over untrusted input.
//!
//! Reads single-octet and multi-octet tags, short, long and (for
//! constructed values) indefinite lengths. Every length is checked against
//! the bytes that remain in its container before anything is sliced, and
//! the nesting depth is bounded. Nothing here allocates.

use crate::codec::Kind;
use crate::error::{DecodeError, DecodeErrorKind as K, Limit};
use crate::Limits;

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

/// The tag octet of a high-tag-number value (number ≥ 31) is kept as its
/// first octet, which never equals a tag the Megaco module uses, so such
/// values are skipped as unknown extensions.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tlv<'a> {
    /// First tag octet (class, constructed bit, number < 31).
    pub tag: u8,
    /// Offset of the tag in the input.
    pub offset: usize,
    /// Content start offset.
    pub start: usize,
    /// Content end offset (exclusive; the end-of-contents octets of an
    /// indefinite length are not included).
    pub end: usize,
    data: &'a [u8],
    depth: usize,
    limits: &'a Limits,
}

impl<'a> Tlv<'a> {
    /// The content octets.
    #[inline]
    pub fn content(&self) -> &'a [u8] {
        &self.data[self.start..self.end]
    }

    /// A reader over the components of a constructed value.
    #[inline]
    pub fn children(&self) -> Result<Reader<'a>, DecodeError> {
        if self.tag & 0x20 == 0 {
            return Err(unexpected_tag(self.offset, "a constructed value", self.tag));
        }
        if self.depth >= self.limits.max_depth {
            return Err(too_deep(self.offset, self.limits.max_depth));
        }
        Ok(Reader {
            data: self.data,
            pos: self.start,
            end: self.end,
            depth: self.depth + 1,
            count: 0,
            limits: self.limits,
        })
    }
}

/// Reads the TLVs of one container in order.
#[derive(Debug, Clone)]
pub(super) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
    depth: usize,
    /// TLVs read so far from this container.
    count: usize,
    limits: &'a Limits,
}

impl<'a> Reader<'a> {
    /// A reader over the whole input, within `limits` (depth, components
    /// per container, primitive value length).
    pub fn new(data: &'a [u8], limits: &'a Limits) -> Self {
        Reader {
            data,
            pos: 0,
            end: data.len(),
            depth: 0,
            count: 0,
            limits,
        }
    }

    /// The current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The next TLV, or `None` at the end of the container.
    #[inline]
    pub fn next(&mut self) -> Result<Option<Tlv<'a>>, DecodeError> {
        if self.pos >= self.end {
            return Ok(None);
        }
        self.count += 1;
        if self.count > self.limits.max_list_len {
            return Err(too_many_items(self.pos, self.limits.max_list_len));
        }
        // Fast path: low tag number, short definite length.
        if self.pos + 2 <= self.end {
            let tag = self.data[self.pos];
            let l0 = self.data[self.pos + 1];
            if tag & 0x1F != 0x1F && l0 < 0x80 {
                let start = self.pos + 2;
                let end = start + usize::from(l0);
                if end <= self.end {
                    let t = tlv(
                        self.data,
                        tag,
                        self.pos,
                        start,
                        end,
                        self.depth,
                        self.limits,
                    );
                    self.pos = end;
                    return check_string(t).map(Some);
                }
            }
        }
        let (tlv, next) = read_tlv(self.data, self.pos, self.end, self.depth, self.limits)?;
        self.pos = next;
        check_string(tlv).map(Some)
    }
}

/// Refuses a primitive value longer than [`Limits::max_string_len`].
#[inline]
fn check_string(t: Tlv<'_>) -> Result<Tlv<'_>, DecodeError> {
    let len = t.end - t.start;
    if t.tag & 0x20 == 0 && len > t.limits.max_string_len {
        return Err(string_too_long(t.offset, len, t.limits.max_string_len));
    }
    Ok(t)
}

/// Reads one TLV at `pos`, which must lie before `limit`; returns it and
/// the offset after it.
fn read_tlv<'a>(
    data: &'a [u8],
    pos: usize,
    limit: usize,
    depth: usize,
    limits: &'a Limits,
) -> Result<(Tlv<'a>, usize), DecodeError> {
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
        return Ok((tlv(data, tag, offset, p, end, depth, limits), end));
    }
    if l0 == 0x80 {
        if tag & 0x20 == 0 {
            return Err(bad_length(p - 1, "indefinite length on a primitive value"));
        }
        if depth >= limits.max_depth {
            return Err(too_deep(offset, limits.max_depth));
        }
        // Scan the components up to the end-of-contents octets.
        let start = p;
        let mut q = p;
        loop {
            if q + 2 > limit {
                return Err(truncated(q, "end-of-contents octets"));
            }
            if data[q] == 0 && data[q + 1] == 0 {
                let t = tlv(data, tag, offset, start, q, depth, limits);
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
    Ok((tlv(data, tag, offset, p, end, depth, limits), end))
}

#[inline]
fn tlv<'a>(
    data: &'a [u8],
    tag: u8,
    offset: usize,
    start: usize,
    end: usize,
    depth: usize,
    limits: &'a Limits,
) -> Tlv<'a> {
    Tlv {
        tag,
        offset,
        start,
        end,
        data,
        depth,
        limits,
    }
}

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
        let mut r = Reader::new(data, limits);
        let mut v = Vec::new();
        while let Some(t) = r.next()? {
            v.push((t.tag, t.content().to_vec()));
        }
        Ok(v)
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
