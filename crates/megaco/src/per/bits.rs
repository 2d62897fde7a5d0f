//! The aligned PER bit layer (ITU-T X.691, ALIGNED variant): a bit writer
//! and a bit reader with the building blocks every type encoding uses —
//! constrained whole numbers, length determinants, normally small numbers
//! and open types.

use std::borrow::Cow;

use crate::error::{DecodeError, DecodeErrorKind, Limit};
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
    ///
    /// The bits already in a partly used last octet and the new ones are
    /// put together in one number, whose octets go out in one 8-octet
    /// store (the vector is then cut to the octets used).
    #[inline]
    pub(crate) fn bits(&mut self, v: u64, n: u32) {
        if n > 56 {
            self.bits(v >> 32, n - 32);
            self.bits(v & 0xFFFF_FFFF, 32);
            return;
        }
        if n == 0 {
            return;
        }
        let used = u32::from(self.used);
        let prev = match used {
            0 => 0,
            _ => u64::from(self.buf.pop().unwrap_or(0) >> (8 - used)),
        };
        let total = used + n;
        let acc = ((prev << n) | (v & ((1u64 << n) - 1))) << (64 - total);
        let start = self.buf.len();
        self.buf.extend_from_slice(&acc.to_be_bytes());
        self.buf.truncate(start + total.div_ceil(8) as usize);
        self.used = (total % 8) as u8;
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
    #[inline]
    pub(crate) fn aligned_octets(&mut self, data: &[u8]) {
        self.align();
        self.buf.extend_from_slice(data);
    }

    /// A constrained whole number `v` in `lb..=ub` (X.691 11.5.7, aligned).
    /// Inlined, so that constant bounds pick the writing at compile time.
    #[inline(always)]
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
            self.constrained_long(off, range);
        }
    }

    /// The indefinite-length case of [`Self::constrained`]: the octet
    /// count as a constrained number in 1..=max octets, then the minimal
    /// octets, aligned.
    fn constrained_long(&mut self, off: u64, range: u64) {
        let n = octets_for(off);
        let max = octets_for(range - 1);
        self.constrained(n as u64, 1, max as u64);
        self.align();
        self.bits(off, 8 * n as u32);
    }

    /// An unconstrained length determinant for a count below 16K.
    #[inline]
    pub(crate) fn length(&mut self, n: usize) {
        self.short_length(n);
    }

    /// A length determinant below 16K with no upper bound (X.691 11.9.3.6-7).
    /// Larger lengths go through [`BitWriter::fragmented`].
    #[inline]
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
/// A number outside its constraint.
pub(crate) fn out_of_range(what: &'static str) -> DecodeErrorKind {
    DecodeErrorKind::OutOfRange {
        what,
        found: None,
        max: None,
    }
}

/// What the decoding functions return. (The error is one pointer wide,
/// so every result fits in a register or two.)
pub(crate) type R<T> = Result<T, DecodeError>;

/// Reads aligned PER bits from a byte slice.
///
/// The reads every message is made of (a bit, a few bits, an aligned
/// octet or two) are inlined: each is a bounds check, one load of the
/// eight octets at the position and a shift. Failures are built out of
/// line.
#[derive(Debug, Clone, Copy)]
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
    pub(crate) fn check_list(&self, len: usize, what: &'static str) -> R<()> {
        if len > self.limits.max_list_len {
            let _ = what;
            return Err(self.err(Limit::ListLen.exceeded(self.limits, None)));
        }
        Ok(())
    }

    /// Refuses a string of `len` octets longer than the limit.
    #[inline]
    pub(crate) fn check_string(&self, len: usize) -> R<()> {
        if len > self.limits.max_string_len {
            return Err(self.err(Limit::StringLen.exceeded(self.limits, Some(len))));
        }
        Ok(())
    }

    /// Bit offset within the whole message.
    pub(crate) fn bit_offset(&self) -> usize {
        self.base * 8 + self.pos
    }

    /// An error at the current position.
    #[cold]
    #[inline(never)]
    pub(crate) fn err(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::per(self.bit_offset(), kind)
    }

    /// The input ends inside `what`.
    #[cold]
    #[inline(never)]
    pub(crate) fn truncated(&self, what: &'static str) -> DecodeError {
        self.err(DecodeErrorKind::Truncated { expected: what })
    }

    /// Bits left to read.
    #[inline]
    pub(crate) fn remaining_bits(&self) -> usize {
        self.data.len() * 8 - self.pos
    }

    /// The eight octets from the one holding the current position on,
    /// as a big-endian number (zeros past the end of the input).
    #[inline(always)]
    fn window(&self) -> u64 {
        let i = self.pos >> 3;
        match self.data.get(i..).and_then(<[u8]>::first_chunk::<8>) {
            Some(c) => u64::from_be_bytes(*c),
            None => self.window_tail(i),
        }
    }

    /// [`Self::window`] within the last eight octets of the input.
    #[inline(never)]
    fn window_tail(&self, i: usize) -> u64 {
        let mut b = [0u8; 8];
        for (d, s) in b.iter_mut().zip(self.data.get(i..).unwrap_or_default()) {
            *d = *s;
        }
        u64::from_be_bytes(b)
    }

    /// Reads `n` (1 to 57) bits as an unsigned number.
    #[inline(always)]
    pub(crate) fn bits(&mut self, n: u32, what: &'static str) -> R<u64> {
        debug_assert!((1..=57).contains(&n));
        if n as usize > self.remaining_bits() {
            return Err(self.truncated(what));
        }
        let v = (self.window() << (self.pos & 7)) >> (64 - n);
        self.pos += n as usize;
        Ok(v)
    }

    /// Reads `n` (0 to 64) bits as an unsigned number.
    pub(crate) fn bits_wide(&mut self, n: u32, what: &'static str) -> R<u64> {
        if n as usize > self.remaining_bits() {
            return Err(self.truncated(what));
        }
        match n {
            0 => Ok(0),
            1..=57 => self.bits(n, what),
            _ => {
                let hi = self.bits(n - 32, what)?;
                Ok((hi << 32) | self.bits(32, what)?)
            }
        }
    }

    /// One bit.
    #[inline(always)]
    pub(crate) fn bit(&mut self, what: &'static str) -> R<bool> {
        match self.data.get(self.pos >> 3) {
            Some(&b) => {
                let v = (b >> (7 - (self.pos & 7))) & 1;
                self.pos += 1;
                Ok(v == 1)
            }
            None => Err(self.truncated(what)),
        }
    }

    /// Skips `n` bits, which the caller has checked are there.
    pub(crate) fn skip_bits(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.data.len() * 8);
    }

    /// Skips to the next octet boundary.
    #[inline(always)]
    pub(crate) fn align(&mut self) {
        self.pos = (self.pos + 7) & !7;
    }

    /// Aligns, then reads one octet.
    #[inline(always)]
    pub(crate) fn aligned_u8(&mut self, what: &'static str) -> R<u8> {
        self.align();
        match self.data.get(self.pos >> 3) {
            Some(&b) => {
                self.pos += 8;
                Ok(b)
            }
            None => Err(self.truncated(what)),
        }
    }

    /// Aligns, then reads `N` octets.
    #[inline(always)]
    pub(crate) fn aligned_array<const N: usize>(&mut self, what: &'static str) -> R<[u8; N]> {
        self.align();
        match self
            .data
            .get(self.pos >> 3..)
            .and_then(<[u8]>::first_chunk::<N>)
        {
            Some(c) => {
                self.pos += N * 8;
                Ok(*c)
            }
            None => Err(self.truncated(what)),
        }
    }

    /// Aligns, then borrows `n` octets.
    #[inline]
    pub(crate) fn aligned_slice(&mut self, n: usize, what: &'static str) -> R<&'a [u8]> {
        self.align();
        match self.data.get(self.pos >> 3..).and_then(|s| s.get(..n)) {
            Some(s) => {
                self.pos += n * 8;
                Ok(s)
            }
            None => Err(self.truncated(what)),
        }
    }

    /// A constrained whole number in `lb..=ub` (the inverse of
    /// [`BitWriter::constrained`]); values past `ub` are an error.
    /// Inlined, so that constant bounds pick the reading at compile time.
    #[inline(always)]
    pub(crate) fn constrained(&mut self, lb: u64, ub: u64, what: &'static str) -> R<u64> {
        let range = ub - lb + 1;
        let off = if range == 1 {
            0
        } else if range <= 255 {
            self.bits(bits_for_range(range), what)?
        } else if range == 256 {
            u64::from(self.aligned_u8(what)?)
        } else if range <= 65536 {
            u64::from(u16::from_be_bytes(self.aligned_array(what)?))
        } else {
            self.constrained_long(range, what)?
        };
        match off.checked_add(lb) {
            Some(v) if v <= ub => Ok(v),
            _ => Err(self.err(out_of_range(what))),
        }
    }

    /// The offset of a constrained whole number of a range above 64K: its
    /// octet count, then the octets, aligned.
    fn constrained_long(&mut self, range: u64, what: &'static str) -> R<u64> {
        let max = octets_for(range - 1);
        let n = self.constrained(1, max as u64, what)? as u32;
        self.align();
        self.bits_wide(8 * n, what)
    }

    /// A whole number in `0..=2^32-1` (ids, delays): two bits of octet
    /// count, then the octets, aligned.
    #[inline]
    pub(crate) fn u32(&mut self, what: &'static str) -> R<u32> {
        let n = self.bits(2, what)? as u32 + 1;
        self.align();
        Ok(self.bits(8 * n, what)? as u32)
    }

    /// An unconstrained length determinant below 16K; a fragment header
    /// (16K multiples) is returned as `Err(length)`.
    #[inline(always)]
    fn length_part(&mut self, what: &'static str) -> R<Result<usize, usize>> {
        let first = self.aligned_u8(what)?;
        if first < 0x80 {
            Ok(Ok(usize::from(first)))
        } else {
            self.length_long(first, what)
        }
    }

    /// [`Self::length_part`] after a first octet of `1x`.
    fn length_long(&mut self, first: u8, what: &'static str) -> R<Result<usize, usize>> {
        if first & 0x40 == 0 {
            let second = self.aligned_u8(what)?;
            Ok(Ok((usize::from(first & 0x3F) << 8) | usize::from(second)))
        } else {
            let m = usize::from(first & 0x3F);
            if !(1..=4).contains(&m) {
                return Err(self.err(DecodeErrorKind::Invalid {
                    what,
                    detail: "bad fragment count".into(),
                }));
            }
            Ok(Err(m * FRAG))
        }
    }

    /// An unconstrained length determinant that must not be fragmented.
    #[inline]
    pub(crate) fn length(&mut self, what: &'static str) -> R<usize> {
        match self.length_part(what)? {
            Ok(n) => Ok(n),
            Err(_) => Err(self.err(DecodeErrorKind::Invalid {
                what,
                detail: "unexpected fragmented length".into(),
            })),
        }
    }

    /// The next run of a `SEQUENCE OF`'s items: their count, and whether
    /// another run follows (the count was a 16K-multiple fragment). The
    /// count is checked against the input left (`min_bits` is the least
    /// one item takes) and, with the `so_far` items of earlier runs,
    /// against the list limit, before anything is read or allocated.
    #[inline(always)]
    pub(crate) fn list_run(
        &mut self,
        min_bits: usize,
        so_far: usize,
        what: &'static str,
    ) -> R<(usize, bool)> {
        self.align();
        if let Some(&first) = self.data.get(self.pos >> 3) {
            // The usual short list: one octet of count, and room for it.
            let n = usize::from(first);
            if first < 0x80
                && n * min_bits + 8 <= self.remaining_bits()
                && so_far + n <= self.limits.max_list_len
            {
                self.pos += 8;
                return Ok((n, false));
            }
        }
        self.list_run_long(min_bits, so_far, what)
    }

    /// [`Self::list_run`] beyond its usual case.
    #[inline(never)]
    fn list_run_long(
        &mut self,
        min_bits: usize,
        so_far: usize,
        what: &'static str,
    ) -> R<(usize, bool)> {
        let (n, more) = match self.length_part(what)? {
            Ok(n) => (n, false),
            Err(n) => (n, true),
        };
        if n.saturating_mul(min_bits) > self.remaining_bits() {
            return Err(self.truncated(what));
        }
        self.check_list(so_far + n, what)?;
        Ok((n, more))
    }

    /// An unconstrained OCTET STRING, borrowed from the input when it is
    /// not fragmented (any string shorter than 16K octets). A fragmented
    /// one is gathered when `keep`, else read past and returned empty.
    #[inline]
    pub(crate) fn octet_str(&mut self, keep: bool, what: &'static str) -> R<Cow<'a, [u8]>> {
        let save = self.pos;
        match self.length_part(what)? {
            Ok(n) => {
                self.check_string(n)?;
                Ok(Cow::Borrowed(self.aligned_slice(n, what)?))
            }
            Err(_) => {
                self.pos = save;
                self.octet_string(keep, what).map(Cow::Owned)
            }
        }
    }

    /// An unconstrained OCTET STRING, gathered when `keep` (else read past
    /// and returned empty).
    pub(crate) fn octet_string(&mut self, keep: bool, what: &'static str) -> R<Vec<u8>> {
        let mut out = Vec::new();
        let mut len = 0;
        loop {
            let (n, more) = match self.length_part(what)? {
                Ok(n) => (n, false),
                Err(n) => (n, true),
            };
            len += n;
            self.check_string(len)?;
            let s = self.aligned_slice(n, what)?;
            if keep {
                out.extend_from_slice(s);
            }
            if !more {
                return Ok(out);
            }
        }
    }

    /// A normally small non-negative whole number.
    pub(crate) fn normally_small(&mut self, what: &'static str) -> R<u64> {
        if !self.bit(what)? {
            return self.bits(6, what);
        }
        let n = self.length(what)?;
        if n == 0 || n > 8 {
            return Err(self.err(out_of_range(what)));
        }
        self.bits_wide(8 * n as u32, what)
    }

    /// An open type: returns a reader over its contents (which starts at
    /// the right message offset) and skips past it.
    pub(crate) fn open_type(&mut self, what: &'static str) -> R<BitReader<'a>> {
        let n = self.length(what)?;
        let base = self.base + self.pos / 8;
        let s = self.aligned_slice(n, what)?;
        Ok(BitReader::new(s, base, self.limits))
    }
}

/// The lists a `SEQUENCE OF` decodes into: vectors, and the model's
/// one-element-inline lists, built in place.
pub(crate) trait List<T>: Default {
    fn reserve(&mut self, n: usize);
    fn push(&mut self, item: T);
    fn last_mut(&mut self) -> Option<&mut T>;
}

impl<T> List<T> for Vec<T> {
    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n)
    }
    fn push(&mut self, item: T) {
        Vec::push(self, item)
    }
    fn last_mut(&mut self) -> Option<&mut T> {
        <[T]>::last_mut(self)
    }
}

impl<T> List<T> for smallvec::SmallVec<[T; 1]> {
    fn reserve(&mut self, n: usize) {
        smallvec::SmallVec::reserve(self, n)
    }
    fn push(&mut self, item: T) {
        smallvec::SmallVec::push(self, item)
    }
    fn last_mut(&mut self) -> Option<&mut T> {
        <[T]>::last_mut(self)
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
        assert_eq!(r.octet_string(true, "x").unwrap(), data);
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
