//! Termination ids: text form ↔ ASN.1 `TerminationID { wildcard, id }`.
//!
//! In the binary encodings a termination id is a bit string of up to 64
//! bits (`id`, 1 to 8 octets) cut into *levels* of configured widths, plus
//! one `wildcard` octet per wildcarded level (H.248.1 Annex A.1). The text
//! form writes each level as its bits, levels separated by `/`:
//! with the default levels of 8, 8 and 8 bits,
//! `11111111/00000000/00000000` is the id `FF 00 00`.
//!
//! A level may end with a wildcard, `$` (choose) or `*` (all), that stands
//! for the rest of the level's bits: `11111111/$`, `1111*`, `$`. The
//! wildcard octet is
//!
//! | bit 7 | bit 6 | bits 5..0 |
//! | --- | --- | --- |
//! | 1 = all (`*`), 0 = choose (`$`) | 1 = also all following levels | position of the wildcard's first bit, counted from the id's last bit (0) |
//!
//! The id bits under a wildcard are zero. When the wildcard ends the text
//! (fewer levels written than configured) it covers every following level
//! too and bit 6 is set; when more levels follow it covers its own level
//! only. This is what Erlang/OTP's `megaco_binary_term_id` produces, so with
//! the default levels `$` is `wildcard = [57], id = 00 00 00` and `*` is
//! `wildcard = [D7], id = 00 00 00`.
//!
//! The root termination (`ROOT`, any case) is the id `FF FF FF FF FF FF FF
//! FF` without wildcards whatever the levels; it decodes to `ROOT`, the
//! model's spelling ([`TerminationId::root`](crate::model::TerminationId::root)).
//!
//! ```
//! use megaco::asn1::termid::{self, TermIdLevels};
//!
//! let levels = TermIdLevels::default(); // 8, 8, 8
//! let t = termid::encode("11111111/00000000/$", &levels).unwrap();
//! assert_eq!(t.id(), &[0xFF, 0x00, 0x00]);
//! assert_eq!(t.wildcards(), &[0x07]);
//!
//! let mut text = String::new();
//! termid::decode(&t, &levels, &mut text).unwrap();
//! assert_eq!(text, "11111111/00000000/$");
//! ```

use std::fmt;

use crate::model::TerminationId;

/// The most wildcard octets one id can carry here (one per level at most).
pub const MAX_WILDCARDS: usize = 16;

/// The id octets of the root termination.
pub const ROOT_ID: [u8; 8] = [0xFF; 8];

/// Widths in bits of the levels of a termination id.
///
/// Each level is 1 to 64 bits wide and all together at most 64 bits (the
/// ASN.1 `id` is at most 8 octets). The default is three levels of 8 bits,
/// Erlang/OTP's default.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TermIdLevels {
    bits: Vec<u8>,
    total: u32,
}

impl Default for TermIdLevels {
    fn default() -> Self {
        TermIdLevels {
            bits: vec![8, 8, 8],
            total: 24,
        }
    }
}

impl TermIdLevels {
    /// Levels of the given widths in bits.
    ///
    /// ```
    /// let l = megaco::asn1::termid::TermIdLevels::new(&[4, 12, 16]).unwrap();
    /// assert_eq!(l.total_bits(), 32);
    /// assert!(megaco::asn1::termid::TermIdLevels::new(&[40, 40]).is_err());
    /// ```
    pub fn new(bits: &[u8]) -> Result<Self, TermIdError> {
        let total: u32 = bits.iter().map(|&b| u32::from(b)).sum();
        if bits.is_empty() || bits.contains(&0) || total > 64 {
            return Err(TermIdError::BadLevels {
                levels: bits.to_vec(),
            });
        }
        Ok(TermIdLevels {
            bits: bits.to_vec(),
            total,
        })
    }

    /// The widths of the levels, first level first.
    pub fn levels(&self) -> &[u8] {
        &self.bits
    }

    /// The sum of the widths.
    pub fn total_bits(&self) -> u32 {
        self.total
    }

    /// The number of `id` octets an id of these levels takes.
    pub fn id_len(&self) -> usize {
        self.total.div_ceil(8) as usize
    }

    /// The longest text [`decode`] writes for these levels: a digit per
    /// bit and the separators (a wildcard takes the place of at least one
    /// digit), or `ROOT`.
    pub(crate) fn text_max(&self) -> usize {
        (self.total as usize + self.bits.len() - 1).max(4)
    }

    /// Whether every level is one whole octet and the text of an id fits
    /// [`TerminationId`]'s inline bytes: what [`octet_text`] takes.
    #[inline]
    fn octet_levels(&self) -> bool {
        self.bits.iter().all(|&b| b == 8) && self.text_max() <= TerminationId::INLINE
    }
}

/// The text of `id`, an id without wildcards under `levels`, when every
/// level is one octet (OTP's default 8/8/8 and its like): each octet's
/// eight digits, `/` between them. `None` for anything else (other
/// levels, an id of another length, the root's octets), which [`decode`]
/// maps.
#[inline]
pub(crate) fn octet_text(id: &[u8], levels: &TermIdLevels) -> Option<TerminationId> {
    if id.len() != levels.bits.len() || !levels.octet_levels() || id == ROOT_ID {
        return None;
    }
    let mut buf = [0u8; TerminationId::INLINE];
    for (i, &octet) in id.iter().enumerate() {
        buf[9 * i..9 * i + 8].copy_from_slice(&BIT_DIGITS[usize::from(octet)]);
        if i > 0 {
            buf[9 * i - 1] = b'/';
        }
    }
    TerminationId::from_padded(buf, 9 * id.len() - 1)
}

/// A termination id in ASN.1 form: `id` octets and `wildcard` octets, kept
/// inline (no allocation).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct AsnTermId {
    /// The `id` octets, then zeros up to 8 (so that the whole array reads
    /// as the id's bits, most significant first).
    id: [u8; 8],
    id_len: u8,
    wildcards: [u8; MAX_WILDCARDS],
    wildcard_len: u8,
}

impl fmt::Debug for AsnTermId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsnTermId")
            .field("wildcard", &self.wildcards())
            .field("id", &self.id())
            .finish()
    }
}

impl AsnTermId {
    /// An id from its octets (1 to 8) and its wildcard octets (at most
    /// [`MAX_WILDCARDS`]).
    pub fn new(id: &[u8], wildcards: &[u8]) -> Result<Self, TermIdError> {
        if id.is_empty() || id.len() > 8 {
            return Err(TermIdError::IdLength {
                expected: 8,
                found: id.len(),
            });
        }
        if wildcards.len() > MAX_WILDCARDS {
            return Err(TermIdError::TooManyWildcards {
                found: wildcards.len(),
            });
        }
        let mut t = AsnTermId::empty();
        t.id[..id.len()].copy_from_slice(id);
        t.id_len = id.len() as u8;
        t.wildcards[..wildcards.len()].copy_from_slice(wildcards);
        t.wildcard_len = wildcards.len() as u8;
        Ok(t)
    }

    fn empty() -> Self {
        AsnTermId {
            id: [0; 8],
            id_len: 0,
            wildcards: [0; MAX_WILDCARDS],
            wildcard_len: 0,
        }
    }

    /// The root termination.
    pub fn root() -> Self {
        AsnTermId {
            id: ROOT_ID,
            id_len: 8,
            ..AsnTermId::empty()
        }
    }

    /// The `id` octets.
    pub fn id(&self) -> &[u8] {
        &self.id[..self.id_len as usize]
    }

    /// The `id` octets as a number, the first octet in the top 8 bits.
    #[inline]
    fn id_bits(&self) -> u64 {
        u64::from_be_bytes(self.id)
    }

    /// The `wildcard` octets, one per wildcarded level.
    pub fn wildcards(&self) -> &[u8] {
        &self.wildcards[..self.wildcard_len as usize]
    }

    /// Whether this is the root termination.
    pub fn is_root(&self) -> bool {
        self.wildcard_len == 0 && self.id() == ROOT_ID
    }

    fn push_wildcard(&mut self, w: u8) -> Result<(), TermIdError> {
        let n = self.wildcard_len as usize;
        if n >= MAX_WILDCARDS {
            return Err(TermIdError::TooManyWildcards { found: n + 1 });
        }
        self.wildcards[n] = w;
        self.wildcard_len += 1;
        Ok(())
    }
}

/// Why a termination id could not be mapped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TermIdError {
    /// The level configuration itself is unusable.
    #[error("bad termination id levels {levels:?}: each level 1..64 bits, at most 64 bits in all")]
    BadLevels {
        /// The widths given.
        levels: Vec<u8>,
    },
    /// More `/`-separated levels than configured.
    #[error("termination id has {found} levels, the configuration has {max}")]
    TooManyLevels {
        /// Levels in the id.
        found: usize,
        /// Levels configured.
        max: usize,
    },
    /// Fewer levels than configured and no wildcard at the end.
    #[error("termination id has {found} levels without a final wildcard, the configuration has {expected}")]
    TooFewLevels {
        /// Levels in the id.
        found: usize,
        /// Levels configured.
        expected: usize,
    },
    /// A level has more or fewer bits than its configured width.
    #[error(
        "level {level} of the termination id has {found} bits, the configuration says {expected}"
    )]
    LevelWidth {
        /// The level, from 1.
        level: usize,
        /// Its configured width.
        expected: u8,
        /// Bits written.
        found: usize,
    },
    /// A level holds something other than `0`, `1` and a final wildcard.
    #[error("level {level} of the termination id holds {ch:?}: only 0, 1 and a final $ or * fit the binary form")]
    BadChar {
        /// The level, from 1.
        level: usize,
        /// The offending character.
        ch: char,
    },
    /// The `id` octets do not match the configured width.
    #[error("termination id has {found} id octets, {expected} expected")]
    IdLength {
        /// Octets expected.
        expected: usize,
        /// Octets found.
        found: usize,
    },
    /// More wildcard octets than this implementation keeps.
    #[error("termination id has {found} wildcards (at most 16 supported)")]
    TooManyWildcards {
        /// Wildcards found.
        found: usize,
    },
    /// A wildcard octet points outside the id or two share a level.
    #[error("bad wildcard octet {octet:#04x}")]
    BadWildcard {
        /// The octet.
        octet: u8,
    },
}

/// Maps a termination id from text to ASN.1 form.
///
/// Accepts `ROOT` (any case), level bit strings with optional final
/// wildcards, and the native form of [`format_native`].
pub fn encode(text: &str, levels: &TermIdLevels) -> Result<AsnTermId, TermIdError> {
    let bytes = text.as_bytes();
    if bytes.len() == 4 && text.eq_ignore_ascii_case("root") {
        return Ok(AsnTermId::root());
    }
    if bytes.len() > 2 && bytes[0] == b'0' && (bytes[1] | 0x20) == b'x' {
        if let Some(t) = parse_native(text) {
            return Ok(t);
        }
    }
    let widths = levels.levels();
    let total = levels.total_bits();
    let mut out = AsnTermId::empty();
    out.id_len = levels.id_len() as u8;
    let mut acc: u64 = 0;
    // state of the level being read
    let mut level = 0usize;
    let mut width = u32::from(widths[0]);
    let mut bitpos: u32 = 0; // first bit of the level
    let mut digits: u32 = 0;
    let mut wildcard: u8 = 0;
    let mut remaining: u32 = total - width; // bits of the levels after it
    let mut k = 0;
    loop {
        // Fast path: a whole 8-bit level of digits.
        if digits == 0 && wildcard == 0 && width == 8 && k + 8 <= bytes.len() {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(&bytes[k..k + 8]);
            let x = u64::from_be_bytes(eight);
            if (x ^ 0x3030_3030_3030_3030) & 0xFEFE_FEFE_FEFE_FEFE == 0
                && bytes.get(k + 8).map_or(true, |&b| b == b'/')
            {
                let octet = ((x & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
                acc |= octet << (56 - bitpos);
                digits = 8;
                k += 8;
                continue;
            }
        }
        let c = bytes.get(k).copied();
        match c {
            Some(d @ (b'0' | b'1')) if wildcard == 0 => {
                if digits == width {
                    return Err(TermIdError::LevelWidth {
                        level: level + 1,
                        expected: width as u8,
                        found: digits as usize + 1,
                    });
                }
                acc |= u64::from(d - b'0') << (63 - (bitpos + digits));
                digits += 1;
            }
            Some(w @ (b'$' | b'*')) if wildcard == 0 => wildcard = w,
            Some(b'/') | None => {
                let last = c.is_none();
                if wildcard == 0 && digits != width {
                    return Err(TermIdError::LevelWidth {
                        level: level + 1,
                        expected: width as u8,
                        found: digits as usize,
                    });
                }
                if wildcard != 0 {
                    let offset = (total - 1 - (bitpos + digits)) as u8;
                    let recursive = if last && remaining > 0 { 0x40 } else { 0 };
                    let kind = if wildcard == b'*' { 0x80 } else { 0 };
                    out.push_wildcard(kind | recursive | offset)?;
                } else if last && level + 1 < widths.len() {
                    return Err(TermIdError::TooFewLevels {
                        found: level + 1,
                        expected: widths.len(),
                    });
                }
                if last {
                    break;
                }
                level += 1;
                if level >= widths.len() {
                    return Err(TermIdError::TooManyLevels {
                        found: 1 + bytes.iter().filter(|&&b| b == b'/').count(),
                        max: widths.len(),
                    });
                }
                bitpos += width;
                width = u32::from(widths[level]);
                remaining -= width;
                digits = 0;
                wildcard = 0;
            }
            Some(_) => {
                let ch = std::str::from_utf8(&bytes[k..])
                    .ok()
                    .and_then(|s| s.chars().next())
                    .unwrap_or('?');
                return Err(TermIdError::BadChar {
                    level: level + 1,
                    ch,
                });
            }
        }
        k += 1;
    }
    let be = acc.to_be_bytes();
    out.id[..out.id_len as usize].copy_from_slice(&be[..out.id_len as usize]);
    Ok(out)
}

/// Maps a termination id from ASN.1 form to text, appending to `out`.
///
/// On error nothing is appended; callers that want to keep going can write
/// the id with [`format_native`] instead.
pub fn decode(t: &AsnTermId, levels: &TermIdLevels, out: &mut String) -> Result<(), TermIdError> {
    let mut buf = [0u8; TEXT_MAX];
    let n = decode_into(t, levels, &mut buf)?;
    // Only ASCII was written.
    out.push_str(std::str::from_utf8(&buf[..n]).unwrap_or_default());
    Ok(())
}

/// The longest text [`decode_into`] writes: at most 64 bits, 63
/// separators and one wildcard per level.
pub(crate) const TEXT_MAX: usize = 192;

/// [`decode`] into a stack buffer of at least [`TermIdLevels::text_max`]
/// bytes: returns the length of the (ASCII) text.
fn decode_into<const N: usize>(
    t: &AsnTermId,
    levels: &TermIdLevels,
    buf: &mut [u8; N],
) -> Result<usize, TermIdError> {
    if t.is_root() {
        buf[..4].copy_from_slice(b"ROOT");
        return Ok(4);
    }
    let total = levels.total_bits();
    let id = t.id();
    if id.len() != levels.id_len() {
        return Err(TermIdError::IdLength {
            expected: levels.id_len(),
            found: id.len(),
        });
    }
    let acc = t.id_bits();

    // (first bit position from the start, wildcard char, covers the rest);
    // positions are below 64.
    let mut wild: [(u8, u8, bool); MAX_WILDCARDS] = [(0, 0, false); MAX_WILDCARDS];
    let nw = t.wildcards().len();
    for (k, &w) in t.wildcards().iter().enumerate() {
        let off = u32::from(w & 0x3F);
        if off >= total {
            return Err(TermIdError::BadWildcard { octet: w });
        }
        let ch = if w & 0x80 != 0 { b'*' } else { b'$' };
        wild[k] = ((total - 1 - off) as u8, ch, w & 0x40 != 0);
    }
    wild[..nw].sort_unstable_by_key(|w| w.0);

    let mut n = 0;
    let mut start: u32 = 0;
    let mut wi = 0;
    for (i, &width) in levels.levels().iter().enumerate() {
        if i > 0 {
            buf[n] = b'/';
            n += 1;
        }
        let end = start + u32::from(width);
        let mut stop_at = end;
        let mut wc = None;
        if wi < nw && u32::from(wild[wi].0) < end {
            let (pos, ch, rec) = wild[wi];
            wi += 1;
            if wi < nw && u32::from(wild[wi].0) < end {
                return Err(TermIdError::BadWildcard {
                    octet: t.wildcards()[0],
                });
            }
            stop_at = u32::from(pos);
            wc = Some((ch, rec));
        }
        if wc.is_none() && width == 8 && start % 8 == 0 {
            // A whole octet: copy its eight digits.
            let byte = (acc >> (56 - start)) as u8;
            buf[n..n + 8].copy_from_slice(&BIT_DIGITS[usize::from(byte)]);
            n += 8;
        } else {
            for b in start..stop_at {
                buf[n] = b'0' + ((acc >> (63 - b)) & 1) as u8;
                n += 1;
            }
        }
        if let Some((ch, rec)) = wc {
            buf[n] = ch;
            n += 1;
            if rec {
                break;
            }
        }
        start = end;
    }
    Ok(n)
}

/// The eight binary digits of every octet value.
static BIT_DIGITS: [[u8; 8]; 256] = {
    let mut t = [[b'0'; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut b = 0;
        while b < 8 {
            if v & (0x80 >> b) != 0 {
                t[v][b] = b'1';
            }
            b += 1;
        }
        v += 1;
    }
    t
};

/// Writes the native form of an ASN.1 termination id: `0x` and the id
/// octets in hex, then `#` and each wildcard octet in hex, e.g.
/// `0xff0000`, `0x000000#57`. [`encode`] and [`parse_native`] read it back.
pub fn format_native(t: &AsnTermId, out: &mut String) {
    let mut buf = [0u8; NATIVE_MAX];
    let n = format_native_into(t, &mut buf);
    out.push_str(std::str::from_utf8(&buf[..n]).unwrap_or_default());
}

/// The longest text [`format_native_into`] writes: `0x`, 8 id octets and
/// 16 wildcard octets.
pub(crate) const NATIVE_MAX: usize = 2 + 2 * 8 + 3 * MAX_WILDCARDS;

/// [`format_native`] into a stack buffer: returns the length of the
/// (ASCII) text.
pub(crate) fn format_native_into(t: &AsnTermId, buf: &mut [u8; NATIVE_MAX]) -> usize {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    buf[..2].copy_from_slice(b"0x");
    let mut n = 2;
    for &b in t.id() {
        buf[n] = HEX[usize::from(b >> 4)];
        buf[n + 1] = HEX[usize::from(b & 0xF)];
        n += 2;
    }
    for &w in t.wildcards() {
        buf[n] = b'#';
        buf[n + 1] = HEX[usize::from(w >> 4)];
        buf[n + 2] = HEX[usize::from(w & 0xF)];
        n += 3;
    }
    n
}

/// The model's termination id for an ASN.1 one: its text under `levels`
/// when it fits them, else (or without levels) its native form. Under
/// levels whose every text fits the 32 bytes [`TerminationId`] keeps
/// inline, the text is written into an array of that size and handed
/// over whole ([`TerminationId::from_padded`]).
pub(crate) fn to_model(t: &AsnTermId, levels: Option<&TermIdLevels>) -> TerminationId {
    if let Some(l) = levels {
        if l.text_max() <= TerminationId::INLINE {
            let mut buf = [0u8; TerminationId::INLINE];
            if let Ok(n) = decode_into(t, l, &mut buf) {
                return TerminationId::from_padded(buf, n).unwrap_or_default();
            }
        } else {
            let mut buf = [0u8; TEXT_MAX];
            if let Ok(n) = decode_into(t, l, &mut buf) {
                return TerminationId::new(std::str::from_utf8(&buf[..n]).unwrap_or_default());
            }
        }
    }
    let mut buf = [0u8; NATIVE_MAX];
    let n = format_native_into(t, &mut buf);
    // Only ASCII was written.
    TerminationId::new(std::str::from_utf8(&buf[..n]).unwrap_or_default())
}

/// Parses the native form written by [`format_native`].
pub fn parse_native(text: &str) -> Option<AsnTermId> {
    let rest = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))?;
    let mut parts = rest.split('#');
    let id_hex = parts.next()?;
    if id_hex.is_empty() || id_hex.len() % 2 != 0 || id_hex.len() > 16 {
        return None;
    }
    let mut t = AsnTermId::empty();
    for (k, chunk) in id_hex.as_bytes().chunks(2).enumerate() {
        t.id[k] = hex_byte(chunk)?;
    }
    t.id_len = (id_hex.len() / 2) as u8;
    for w in parts {
        if w.len() != 2 {
            return None;
        }
        t.push_wildcard(hex_byte(w.as_bytes())?).ok()?;
    }
    Some(t)
}

fn hex_byte(two: &[u8]) -> Option<u8> {
    let h = (two[0] as char).to_digit(16)?;
    let l = (two[1] as char).to_digit(16)?;
    Some((h * 16 + l) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(s: &str) -> AsnTermId {
        encode(s, &TermIdLevels::default()).unwrap()
    }

    fn dec(t: &AsnTermId, l: &TermIdLevels) -> String {
        let mut s = String::new();
        decode(t, l, &mut s).unwrap();
        s
    }

    #[test]
    fn plain_ids() {
        let t = enc("11111111/00000000/00000000");
        assert_eq!(t.id(), &[0xFF, 0, 0]);
        assert!(t.wildcards().is_empty());
        let t = enc("11111111/11111111/00000000");
        assert_eq!(t.id(), &[0xFF, 0xFF, 0]);
        assert_eq!(
            dec(&t, &TermIdLevels::default()),
            "11111111/11111111/00000000"
        );
    }

    #[test]
    fn root() {
        for r in ["ROOT", "root", "Root"] {
            let t = enc(r);
            assert_eq!(t.id(), &ROOT_ID);
            assert!(t.wildcards().is_empty());
        }
        assert_eq!(dec(&AsnTermId::root(), &TermIdLevels::default()), "ROOT");
    }

    #[test]
    fn whole_id_wildcards_match_otp() {
        // OTP: asn_choose_tid / asn_all_tid with [8,8,8]
        let t = enc("$");
        assert_eq!((t.id(), t.wildcards()), (&[0u8, 0, 0][..], &[0x57u8][..]));
        let t = enc("*");
        assert_eq!((t.id(), t.wildcards()), (&[0u8, 0, 0][..], &[0xD7u8][..]));
        let l = TermIdLevels::default();
        assert_eq!(dec(&enc("$"), &l), "$");
        assert_eq!(dec(&enc("*"), &l), "*");
    }

    #[test]
    fn level_and_partial_wildcards() {
        let l = TermIdLevels::default();
        for s in [
            "11111111/$",
            "11111111/*",
            "11111111/00000000/$",
            "11111111/00000000/*",
            "$/00000000/00000001",
            "10101010/*/11110000",
            "1111*",
            "11111111/0000$",
        ] {
            let t = enc(s);
            assert_eq!(dec(&t, &l), s, "{s}: {t:?}");
        }
        let t = enc("11111111/00000000/$");
        assert_eq!(t.wildcards(), &[0x07]);
        let t = enc("11111111/$");
        assert_eq!(t.wildcards(), &[0x4F]);
        assert_eq!(t.id(), &[0xFF, 0, 0]);
        let t = enc("10101010/*/11110000");
        assert_eq!(t.wildcards(), &[0x8F]);
        assert_eq!(t.id(), &[0xAA, 0, 0xF0]);
    }

    #[test]
    fn custom_levels() {
        let l = TermIdLevels::new(&[4, 12]).unwrap();
        let t = encode("1010/000000000001", &l).unwrap();
        assert_eq!(t.id(), &[0xA0, 0x01]);
        assert_eq!(dec(&t, &l), "1010/000000000001");
        let t = encode("1010/$", &l).unwrap();
        assert_eq!(t.wildcards(), &[0x0B]);
        assert_eq!(dec(&t, &l), "1010/$");
        let l = TermIdLevels::new(&[3, 3]).unwrap();
        let t = encode("101/011", &l).unwrap();
        assert_eq!(t.id(), &[0b1010_1100]);
        assert_eq!(dec(&t, &l), "101/011");
    }

    #[test]
    fn errors() {
        let l = TermIdLevels::default();
        assert!(matches!(
            encode("line/1", &l),
            Err(TermIdError::BadChar { level: 1, ch: 'l' })
        ));
        assert!(matches!(
            encode("1111111/00000000/00000000", &l),
            Err(TermIdError::LevelWidth {
                level: 1,
                found: 7,
                ..
            })
        ));
        assert!(matches!(
            encode("11111111/0$0/00000000", &l),
            Err(TermIdError::BadChar { level: 2, ch: '0' })
        ));
        assert!(matches!(
            encode("11111111//00000000", &l),
            Err(TermIdError::LevelWidth {
                level: 2,
                found: 0,
                ..
            })
        ));
        assert!(matches!(
            encode("", &l),
            Err(TermIdError::LevelWidth { level: 1, .. })
        ));
        assert!(matches!(
            encode("1111111x", &TermIdLevels::new(&[8]).unwrap()),
            Err(TermIdError::BadChar { level: 1, ch: 'x' })
        ));
        assert!(matches!(
            encode("11111111/00000000", &l),
            Err(TermIdError::TooFewLevels { .. })
        ));
        assert!(matches!(
            encode("11111111/00000000/00000000/00000000", &l),
            Err(TermIdError::TooManyLevels { .. })
        ));
        assert!(matches!(
            encode("111111111/00000000/00000000", &l),
            Err(TermIdError::LevelWidth { level: 1, .. })
        ));
        let t = AsnTermId::new(&[1, 2], &[]).unwrap();
        let mut s = String::new();
        assert!(matches!(
            decode(&t, &l, &mut s),
            Err(TermIdError::IdLength { .. })
        ));
        let t = AsnTermId::new(&[0, 0, 0], &[0x3F]).unwrap();
        assert!(matches!(
            decode(&t, &l, &mut s),
            Err(TermIdError::BadWildcard { .. })
        ));
        assert!(s.is_empty());
    }

    #[test]
    fn native_form() {
        let t = AsnTermId::new(&[0, 0, 0], &[0x57]).unwrap();
        let mut s = String::new();
        format_native(&t, &mut s);
        assert_eq!(s, "0x000000#57");
        assert_eq!(parse_native(&s), Some(t));
        assert_eq!(encode(&s, &TermIdLevels::default()), Ok(t));
        assert_eq!(parse_native("0x"), None);
        assert_eq!(parse_native("0xfff"), None);
    }

    /// The octet-levels path gives what the general mapping gives, and
    /// leaves to it what it does not take.
    #[test]
    fn octet_text_matches_the_general_mapping() {
        let general =
            |id: &[u8], l: &TermIdLevels| to_model(&AsnTermId::new(id, &[]).unwrap(), Some(l));
        for l in [
            TermIdLevels::default(),
            TermIdLevels::new(&[8]).unwrap(),
            TermIdLevels::new(&[8, 8]).unwrap(),
        ] {
            let n = l.levels().len();
            let mut x: u32 = 0x9E37_79B9;
            for _ in 0..2000 {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let id = &x.to_be_bytes()[..n];
                assert_eq!(octet_text(id, &l), Some(general(id, &l)), "{id:02X?}");
            }
            for edge in [[0u8; 3], [0xFF; 3]] {
                assert_eq!(octet_text(&edge[..n], &l), Some(general(&edge[..n], &l)));
            }
            // Another length is left to the general mapping.
            assert_eq!(octet_text(&[0x12; 4][..n + 1], &l), None);
        }
        // The root's octets, levels of other widths, and texts longer
        // than the inline bytes are left to it too.
        let eight = TermIdLevels::new(&[8; 8]).unwrap();
        assert_eq!(octet_text(&ROOT_ID, &eight), None);
        assert_eq!(
            octet_text(&[1, 2, 3, 4], &TermIdLevels::new(&[8; 4]).unwrap()),
            None
        );
        assert_eq!(
            octet_text(&[1, 2], &TermIdLevels::new(&[4, 12]).unwrap()),
            None
        );
    }
}
