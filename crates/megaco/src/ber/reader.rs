//! A bounds-checked BER TLV reader over untrusted input.
//!
//! Reads single-octet and multi-octet tags, short, long and (for
//! constructed values) indefinite lengths. Every length is checked against
//! the bytes that remain in its container before anything is sliced, and
//! the nesting depth is bounded. Nothing here allocates.

use super::BerError;

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
    max_depth: usize,
}

impl<'a> Tlv<'a> {
    /// The content octets.
    #[inline]
    pub fn content(&self) -> &'a [u8] {
        &self.data[self.start..self.end]
    }

    /// A reader over the components of a constructed value.
    #[inline]
    pub fn children(&self) -> Result<Reader<'a>, BerError> {
        if self.tag & 0x20 == 0 {
            return Err(BerError::UnexpectedTag {
                offset: self.offset,
                expected: "a constructed value",
                found: self.tag,
            });
        }
        if self.depth >= self.max_depth {
            return Err(BerError::TooDeep {
                offset: self.offset,
                limit: self.max_depth,
            });
        }
        Ok(Reader {
            data: self.data,
            pos: self.start,
            end: self.end,
            depth: self.depth + 1,
            max_depth: self.max_depth,
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
    max_depth: usize,
}

impl<'a> Reader<'a> {
    /// A reader over the whole input.
    pub fn new(data: &'a [u8], max_depth: usize) -> Self {
        Reader {
            data,
            pos: 0,
            end: data.len(),
            depth: 0,
            max_depth,
        }
    }

    /// The current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The next TLV, or `None` at the end of the container.
    #[inline]
    pub fn next(&mut self) -> Result<Option<Tlv<'a>>, BerError> {
        if self.pos >= self.end {
            return Ok(None);
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
                        self.max_depth,
                    );
                    self.pos = end;
                    return Ok(Some(t));
                }
            }
        }
        let (tlv, next) = read_tlv(self.data, self.pos, self.end, self.depth, self.max_depth)?;
        self.pos = next;
        Ok(Some(tlv))
    }
}

/// Reads one TLV at `pos`, which must lie before `limit`; returns it and
/// the offset after it.
fn read_tlv(
    data: &[u8],
    pos: usize,
    limit: usize,
    depth: usize,
    max_depth: usize,
) -> Result<(Tlv<'_>, usize), BerError> {
    let offset = pos;
    let tag = data[pos];
    let mut p = pos + 1;
    if tag & 0x1F == 0x1F {
        // high tag number: base-128 octets, last one without bit 8
        let mut n = 0;
        loop {
            if p >= limit {
                return Err(BerError::Truncated {
                    offset: p,
                    expected: "tag number",
                });
            }
            let b = data[p];
            p += 1;
            n += 1;
            if n > 4 {
                return Err(BerError::UnexpectedTag {
                    offset,
                    expected: "a tag number below 2^28",
                    found: tag,
                });
            }
            if b & 0x80 == 0 {
                break;
            }
        }
    }
    if p >= limit {
        return Err(BerError::Truncated {
            offset: p,
            expected: "length",
        });
    }
    let l0 = data[p];
    p += 1;
    if l0 < 0x80 {
        let end = p + usize::from(l0);
        if end > limit {
            return Err(BerError::Truncated {
                offset: p,
                expected: "content of the stated length",
            });
        }
        return Ok((tlv(data, tag, offset, p, end, depth, max_depth), end));
    }
    if l0 == 0x80 {
        if tag & 0x20 == 0 {
            return Err(BerError::BadLength {
                offset: p - 1,
                detail: "indefinite length on a primitive value",
            });
        }
        if depth >= max_depth {
            return Err(BerError::TooDeep {
                offset,
                limit: max_depth,
            });
        }
        // Scan the components up to the end-of-contents octets.
        let start = p;
        let mut q = p;
        loop {
            if q + 2 > limit {
                return Err(BerError::Truncated {
                    offset: q,
                    expected: "end-of-contents octets",
                });
            }
            if data[q] == 0 && data[q + 1] == 0 {
                let t = tlv(data, tag, offset, start, q, depth, max_depth);
                return Ok((t, q + 2));
            }
            let (_, next) = read_tlv(data, q, limit, depth + 1, max_depth)?;
            q = next;
        }
    }
    if l0 == 0xFF {
        return Err(BerError::BadLength {
            offset: p - 1,
            detail: "reserved length octet 0xFF",
        });
    }
    let n = usize::from(l0 & 0x7F);
    if p + n > limit {
        return Err(BerError::Truncated {
            offset: p,
            expected: "length octets",
        });
    }
    let mut len: usize = 0;
    for &b in &data[p..p + n] {
        if len > (usize::MAX >> 8) {
            return Err(BerError::BadLength {
                offset: p - 1,
                detail: "length too large",
            });
        }
        len = (len << 8) | usize::from(b);
    }
    p += n;
    if len > limit - p {
        return Err(BerError::Truncated {
            offset: p,
            expected: "content of the stated length",
        });
    }
    let end = p + len;
    Ok((tlv(data, tag, offset, p, end, depth, max_depth), end))
}

#[inline]
fn tlv(
    data: &[u8],
    tag: u8,
    offset: usize,
    start: usize,
    end: usize,
    depth: usize,
    max_depth: usize,
) -> Tlv<'_> {
    Tlv {
        tag,
        offset,
        start,
        end,
        data,
        depth,
        max_depth,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(data: &[u8]) -> Result<Vec<(u8, Vec<u8>)>, BerError> {
        let mut r = Reader::new(data, 8);
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
            Err(BerError::Truncated { .. })
        ));
        assert!(matches!(all(&[0x80]), Err(BerError::Truncated { .. })));
        assert!(matches!(
            all(&[0x80, 0x80, 0, 0]),
            Err(BerError::BadLength { .. })
        ));
        assert!(matches!(
            all(&[0xA0, 0x80, 0x80, 0]),
            Err(BerError::Truncated { .. })
        ));
        assert!(matches!(
            all(&[0x80, 0xFF]),
            Err(BerError::BadLength { .. })
        ));
        assert!(matches!(
            all(&[0x80, 0x88, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            Err(BerError::Truncated { .. })
        ));
        // depth bound on indefinite nesting
        let mut deep = Vec::new();
        for _ in 0..20 {
            deep.extend_from_slice(&[0xA0, 0x80]);
        }
        assert!(matches!(all(&deep), Err(BerError::TooDeep { .. })));
    }
}
