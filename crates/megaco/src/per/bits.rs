//! The aligned PER bit layer (ITU-T X.691, ALIGNED variant): a bit writer
//! and a bit reader with the building blocks every type encoding uses —
//! constrained whole numbers, length determinants, normally small numbers
//! and open types.

use super::{PerError, PerErrorKind};
use crate::Limits;

/// Fragment size unit for length determinants (X.691 11.9.3.8): 16K.
const FRAG: usize = 16384;

/// Number of bits needed for a constrained whole number of `range` values
/// (range >= 2) when it fits in a bit field.
#[inline]
fn bits_for_range(range: u64) -> u32 {
    64 - (range - 1).leading_zeros()
}

/// Minimal number of octets to hold `v` (at least one).
#[inline]
fn octets_for(v: u64) -> usize {
    if v == 0 {
        1
    } else {
        (64 - v.leading_zeros()).div_ceil(8) as usize
    }
}

/// Writes aligned PER bits into a byte vector.
#[derive(Debug)]
pub(crate) struct BitWriter<'a> {
    buf: &'a mut Vec<u8>,
    /// Number of bits already used in the last octet of `buf` (0 = aligned).
    used: u8,
}

impl<'a> BitWriter<'a> {
    /// A writer appending to `buf` (alignment counts from `buf`'s end).
    pub(crate) fn new(buf: &'a mut Vec<u8>) -> Self {
        BitWriter { buf, used: 0 }
    }

    /// Writes the `n` (<= 64) low bits of `v`, most significant first.
    #[inline]
    pub(crate) fn bits(&mut self, v: u64, n: u32) {
        let mut left = n;
        while left > 0 {
            if self.used == 0 {
                self.buf.push(0);
            }
            let free = 8 - self.used as u32;
            let take = free.min(left);
            let chunk = ((v >> (left - take)) & ((1u64 << take) - 1)) as u8;
            let last = self.buf.len() - 1;
            self.buf[last] |= chunk << (free - take);
            self.used = ((self.used as u32 + take) % 8) as u8;
            left -= take;
        }
    }

    /// One bit.
    #[inline]
    pub(crate) fn bit(&mut self, b: bool) {
        self.bits(b as u64, 1);
    }

    /// Pads with zero bits to the next octet boundary.
    #[inline]
    pub(crate) fn align(&mut self) {
        self.used = 0;
    }

    /// Writes whole octets at the current bit position.
    pub(crate) fn octets(&mut self, data: &[u8]) {
        if self.used == 0 {
            self.buf.extend_from_slice(data);
        } else {
            for &b in data {
                self.bits(b as u64, 8);
            }
        }
    }

    /// Aligns, then writes whole octets.
    pub(crate) fn aligned_octets(&mut self, data: &[u8]) {
        self.align();
        self.buf.extend_from_slice(data);
    }

    /// A constrained whole number `v` in `lb..=ub` (X.691 11.5.7, aligned).
    pub(crate) fn constrained(&mut self, v: u64, lb: u64, ub: u64) {
        let range = ub - lb + 1;
        let off = v - lb;
        if range == 1 {
        } else if range <= 255 {
            self.bits(off, bits_for_range(range));
        } else if range == 256 {
            self.align();
            self.bits(off, 8);
        } else if range <= 65536 {
            self.align();
            self.bits(off, 16);
        } else {
            // Indefinite-length case: the octet count as a constrained
            // number in 1..=max octets, then the minimal octets, aligned.
            let n = octets_for(off);
            let max = octets_for(range - 1);
            self.constrained(n as u64, 1, max as u64);
            self.align();
            self.bits(off, 8 * n as u32);
        }
    }

    /// An unconstrained length determinant for a count below 16K.
    pub(crate) fn length(&mut self, n: usize) {
        self.short_length(n);
    }

    /// A length determinant below 16K with no upper bound (X.691 11.9.3.6-7).
    /// Larger lengths go through [`BitWriter::fragmented`].
    fn short_length(&mut self, n: usize) {
        self.align();
        if n < 128 {
            self.bits(n as u64, 8);
        } else {
            self.bits(0x8000 | n as u64, 16);
        }
    }

    /// Writes `count` items with an unconstrained length determinant,
    /// fragmenting in 16K multiples when `count >= 16K`. `item(w, i)`
    /// writes item `i`.
    pub(crate) fn fragmented<E>(
        &mut self,
        count: usize,
        mut item: impl FnMut(&mut Self, usize) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut i = 0;
        loop {
            let left = count - i;
            if left < FRAG {
                self.short_length(left);
                for k in i..count {
                    item(self, k)?;
                }
                return Ok(());
            }
            let m = (left / FRAG).min(4);
            self.align();
            self.bits(0xC0 | m as u64, 8);
            for k in i..i + m * FRAG {
                item(self, k)?;
            }
            i += m * FRAG;
        }
    }

    /// An unconstrained OCTET STRING (or 8-bit character string): length
    /// determinant and the octets.
    pub(crate) fn octet_string(&mut self, data: &[u8]) {
        if data.len() < FRAG {
            self.short_length(data.len());
            self.buf.extend_from_slice(data);
        } else {
            let mut rest = data;
            loop {
                if rest.len() < FRAG {
                    self.short_length(rest.len());
                    self.buf.extend_from_slice(rest);
                    return;
                }
                let m = (rest.len() / FRAG).min(4);
                self.align();
                self.bits(0xC0 | m as u64, 8);
                self.buf.extend_from_slice(&rest[..m * FRAG]);
                rest = &rest[m * FRAG..];
            }
        }
    }

    /// A normally small non-negative whole number (X.691 11.6).
    pub(crate) fn normally_small(&mut self, n: u64) {
        if n <= 63 {
            self.bits(n, 7);
        } else {
            self.bit(true);
            let k = octets_for(n);
            self.align();
            self.bits(k as u64, 8);
            self.bits(n, 8 * k as u32);
        }
    }

    /// An open type: `inner` writes a complete encoding, which goes out as
    /// an unconstrained octet string (an empty encoding becomes one zero
    /// octet, X.691 11.1.3). The contents are written in place behind a
    /// one-octet length that is widened afterwards if needed.
    pub(crate) fn open_type<E>(
        &mut self,
        inner: impl FnOnce(&mut BitWriter<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.align();
        let at = self.buf.len();
        self.buf.push(0);
        inner(&mut BitWriter::new(&mut *self.buf))?;
        let mut n = self.buf.len() - at - 1;
        if n == 0 {
            self.buf.push(0);
            n = 1;
        }
        if n < 128 {
            self.buf[at] = n as u8;
        } else if n < FRAG {
            self.buf[at] = 0x80 | (n >> 8) as u8;
            self.buf.insert(at + 1, n as u8);
        } else {
            let content = self.buf.split_off(at + 1);
            self.buf.truncate(at);
            self.octet_string(&content);
        }
        Ok(())
    }
}

/// Reads aligned PER bits from a byte slice.
#[derive(Debug, Clone)]
pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    /// Bit position from the start of `data`.
    pos: usize,
    /// Byte offset of `data` within the whole message, for error reports.
    base: usize,
    /// List and string length bounds.
    limits: &'a Limits,
}

impl<'a> BitReader<'a> {
    /// A reader over `data`, which starts at byte `base` of the message.
    pub(crate) fn new(data: &'a [u8], base: usize, limits: &'a Limits) -> Self {
        BitReader {
            data,
            pos: 0,
            base,
            limits,
        }
    }

    /// Refuses a list of `len` items longer than the limit.
    #[inline]
    pub(crate) fn check_list(&self, len: usize, what: &'static str) -> Result<(), PerError> {
        if len > self.limits.max_list_len {
            return Err(self.err(PerErrorKind::TooManyItems {
                what,
                limit: self.limits.max_list_len,
            }));
        }
        Ok(())
    }

    /// Refuses a string of `len` octets longer than the limit.
    #[inline]
    pub(crate) fn check_string(&self, len: usize) -> Result<(), PerError> {
        if len > self.limits.max_string_len {
            return Err(self.err(PerErrorKind::StringTooLong {
                len,
                limit: self.limits.max_string_len,
            }));
        }
        Ok(())
    }

    /// Bit offset within the whole message.
    pub(crate) fn bit_offset(&self) -> usize {
        self.base * 8 + self.pos
    }

    /// An error at the current position.
    pub(crate) fn err(&self, kind: PerErrorKind) -> PerError {
        PerError {
            bit_offset: self.bit_offset(),
            kind,
        }
    }

    /// Bits left to read.
    pub(crate) fn remaining_bits(&self) -> usize {
        self.data.len() * 8 - self.pos
    }

    /// Reads `n` (<= 64) bits as an unsigned number.
    #[inline]
    pub(crate) fn bits(&mut self, n: u32, what: &'static str) -> Result<u64, PerError> {
        if (n as usize) > self.remaining_bits() {
            return Err(self.err(PerErrorKind::Truncated { expected: what }));
        }
        let mut v: u64 = 0;
        let mut left = n;
        while left > 0 {
            let byte = self.data[self.pos / 8];
            let off = (self.pos % 8) as u32;
            let avail = 8 - off;
            let take = avail.min(left);
            let chunk = (byte >> (avail - take)) as u64 & ((1u64 << take) - 1);
            v = if take == 64 {
                chunk
            } else {
                (v << take) | chunk
            };
            self.pos += take as usize;
            left -= take;
        }
        Ok(v)
    }

    /// One bit.
    #[inline]
    pub(crate) fn bit(&mut self, what: &'static str) -> Result<bool, PerError> {
        Ok(self.bits(1, what)? == 1)
    }

    /// Skips to the next octet boundary.
    #[inline]
    pub(crate) fn align(&mut self) {
        self.pos = self.pos.div_ceil(8) * 8;
    }

    /// Reads `n` octets at the current bit position (unaligned allowed).
    pub(crate) fn octets(&mut self, n: usize, what: &'static str) -> Result<Vec<u8>, PerError> {
        if n.saturating_mul(8) > self.remaining_bits() {
            return Err(self.err(PerErrorKind::Truncated { expected: what }));
        }
        if self.pos % 8 == 0 {
            let s = self.pos / 8;
            self.pos += n * 8;
            return Ok(self.data[s..s + n].to_vec());
        }
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.bits(8, what)? as u8);
        }
        Ok(out)
    }

    /// Aligns, then borrows `n` octets.
    pub(crate) fn aligned_slice(
        &mut self,
        n: usize,
        what: &'static str,
    ) -> Result<&'a [u8], PerError> {
        self.align();
        if n.saturating_mul(8) > self.remaining_bits() {
            return Err(self.err(PerErrorKind::Truncated { expected: what }));
        }
        let s = self.pos / 8;
        self.pos += n * 8;
        Ok(&self.data[s..s + n])
    }

    /// A constrained whole number in `lb..=ub` (the inverse of
    /// [`BitWriter::constrained`]); values past `ub` are an error.
    pub(crate) fn constrained(
        &mut self,
        lb: u64,
        ub: u64,
        what: &'static str,
    ) -> Result<u64, PerError> {
        let range = ub - lb + 1;
        let off = if range == 1 {
            0
        } else if range <= 255 {
            self.bits(bits_for_range(range), what)?
        } else if range == 256 {
            self.align();
            self.bits(8, what)?
        } else if range <= 65536 {
            self.align();
            self.bits(16, what)?
        } else {
            let max = octets_for(range - 1);
            let n = self.constrained(1, max as u64, what)? as u32;
            self.align();
            self.bits(8 * n, what)?
        };
        match off.checked_add(lb) {
            Some(v) if v <= ub => Ok(v),
            _ => Err(self.err(PerErrorKind::OutOfRange { what })),
        }
    }

    /// An unconstrained length determinant below 16K; a fragment header
    /// (16K multiples) is returned as `Err(Fragment(m))`.
    fn length_part(&mut self, what: &'static str) -> Result<Result<usize, usize>, PerError> {
        self.align();
        let first = self.bits(8, what)? as usize;
        if first & 0x80 == 0 {
            Ok(Ok(first))
        } else if first & 0x40 == 0 {
            let second = self.bits(8, what)? as usize;
            Ok(Ok(((first & 0x3F) << 8) | second))
        } else {
            let m = first & 0x3F;
            if !(1..=4).contains(&m) {
                return Err(self.err(PerErrorKind::Invalid {
                    what,
                    detail: "bad fragment count",
                }));
            }
            Ok(Err(m * FRAG))
        }
    }

    /// An unconstrained length determinant that must not be fragmented.
    pub(crate) fn length(&mut self, what: &'static str) -> Result<usize, PerError> {
        match self.length_part(what)? {
            Ok(n) => Ok(n),
            Err(_) => Err(self.err(PerErrorKind::Invalid {
                what,
                detail: "unexpected fragmented length",
            })),
        }
    }

    /// Reads items under an unconstrained length determinant, following
    /// fragments. `min_bits` is the least number of bits one item takes
    /// (used to refuse counts the input cannot hold); `item` reads one.
    pub(crate) fn fragmented<T, L: List<T>>(
        &mut self,
        min_bits: usize,
        what: &'static str,
        mut item: impl FnMut(&mut Self) -> Result<T, PerError>,
    ) -> Result<L, PerError> {
        let mut out = L::default();
        loop {
            let (n, more) = match self.length_part(what)? {
                Ok(n) => (n, false),
                Err(n) => (n, true),
            };
            if n.saturating_mul(min_bits) > self.remaining_bits() {
                return Err(self.err(PerErrorKind::Truncated { expected: what }));
            }
            self.check_list(out.len() + n, what)?;
            out.reserve(n);
            for _ in 0..n {
                out.push(item(self)?);
            }
            if !more {
                return Ok(out);
            }
        }
    }

    /// An unconstrained OCTET STRING, borrowed from the input when it is
    /// not fragmented (any string shorter than 16K octets).
    pub(crate) fn octet_str(
        &mut self,
        what: &'static str,
    ) -> Result<std::borrow::Cow<'a, [u8]>, PerError> {
        let save = self.pos;
        match self.length_part(what)? {
            Ok(n) => {
                self.check_string(n)?;
                Ok(std::borrow::Cow::Borrowed(self.aligned_slice(n, what)?))
            }
            Err(_) => {
                self.pos = save;
                self.octet_string(what).map(std::borrow::Cow::Owned)
            }
        }
    }

    /// An unconstrained OCTET STRING.
    pub(crate) fn octet_string(&mut self, what: &'static str) -> Result<Vec<u8>, PerError> {
        let mut out = Vec::new();
        loop {
            let (n, more) = match self.length_part(what)? {
                Ok(n) => (n, false),
                Err(n) => (n, true),
            };
            self.check_string(out.len() + n)?;
            let s = self.aligned_slice(n, what)?;
            out.extend_from_slice(s);
            if !more {
                return Ok(out);
            }
        }
    }

    /// A normally small non-negative whole number.
    pub(crate) fn normally_small(&mut self, what: &'static str) -> Result<u64, PerError> {
        if !self.bit(what)? {
            return self.bits(6, what);
        }
        let n = self.length(what)?;
        if n == 0 || n > 8 {
            return Err(self.err(PerErrorKind::OutOfRange { what }));
        }
        self.bits(8 * n as u32, what)
    }

    /// An open type: returns a reader over its contents (which starts at
    /// the right message offset) and skips past it.
    pub(crate) fn open_type(&mut self, what: &'static str) -> Result<BitReader<'a>, PerError> {
        let n = self.length(what)?;
        let base = self.base + self.pos.div_ceil(8);
        let s = self.aligned_slice(n, what)?;
        Ok(BitReader::new(s, base, self.limits))
    }
}

/// The lists a `SEQUENCE OF` decodes into: vectors, and the model's
/// one-element-inline lists, built in place.
pub(crate) trait List<T>: Default {
    fn len(&self) -> usize;
    fn reserve(&mut self, n: usize);
    fn push(&mut self, item: T);
}

impl<T> List<T> for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n)
    }
    fn push(&mut self, item: T) {
        Vec::push(self, item)
    }
}

impl<T> List<T> for smallvec::SmallVec<[T; 1]> {
    fn len(&self) -> usize {
        smallvec::SmallVec::len(self)
    }
    fn reserve(&mut self, n: usize) {
        smallvec::SmallVec::reserve(self, n)
    }
    fn push(&mut self, item: T) {
        smallvec::SmallVec::push(self, item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(f: impl FnOnce(&mut BitWriter<'_>)) -> Vec<u8> {
        let mut v = Vec::new();
        let mut w = BitWriter::new(&mut v);
        f(&mut w);
        v
    }

    #[test]
    fn constrained_numbers() {
        // 0..99: 7 bits.
        assert_eq!(enc(|w| w.constrained(3, 0, 99)), vec![0x06]);
        // 0..65535: two aligned octets.
        assert_eq!(
            enc(|w| {
                w.bit(true);
                w.constrained(55555, 0, 65535)
            }),
            vec![0x80, 0xD9, 0x03]
        );
        // 0..2^32-1: 2-bit octet count, then octets aligned.
        assert_eq!(
            enc(|w| w.constrained(9999, 0, 4294967295)),
            vec![0x40, 0x27, 0x0F]
        );
        assert_eq!(enc(|w| w.constrained(0, 0, 4294967295)), vec![0x00, 0x00]);
        let mut r = BitReader::new(&[0x40, 0x27, 0x0F], 0, &Limits::DEFAULT);
        assert_eq!(r.constrained(0, 4294967295, "x").unwrap(), 9999);
    }

    #[test]
    fn lengths_and_fragments() {
        let data = vec![7u8; 40000];
        let out = enc(|w| w.octet_string(&data));
        assert_eq!(out[0], 0xC2);
        assert_eq!(out[1 + 32768..1 + 32768 + 2], [0x9C, 0x40]); // 7232 left
        let mut r = BitReader::new(&out, 0, &Limits::DEFAULT);
        assert_eq!(r.octet_string("x").unwrap(), data);
        assert_eq!(enc(|w| w.octet_string(&[1; 200]))[..2], [0x80, 200]);
    }

    #[test]
    fn normally_small_and_open() {
        assert_eq!(enc(|w| w.normally_small(5)), vec![0x0A]);
        let out = enc(|w| {
            w.open_type::<()>(|_| Ok(())).unwrap();
        });
        assert_eq!(out, vec![1, 0]);
        let mut r = BitReader::new(&[0x80], 0, &Limits::DEFAULT);
        assert!(r.bits(9, "x").is_err());
    }
}
