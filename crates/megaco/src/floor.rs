//! Scan floors: the least any decoder of a format must do with its bytes,
//! to measure decoders against. `megaco bench meas` and `cargo bench
//! --bench floor` report each decoder's time as a multiple of the floor
//! of the same bytes, a ratio that holds on any machine.
//!
//! A loop as small as a floor runs at a speed that depends on where the
//! compiler places it: eight copies of the same code in one build took
//! from 126 to 135 ns a BER message, from 237 to 296 ns a pretty text
//! one and from 100 to 149 ns a compact one, the same in every run, and
//! builds that did not touch the floors moved them as much.
//! [`ber_tlv_walk_copies`] and [`text_tokens_copies`] give the function
//! compiled [`COPIES`] times, at as many addresses; the benches time
//! every copy in every pass beside the decoders and take the fastest, so
//! that a decoder is measured against the floor's best placement, not its
//! luck.
//!
//! ```
//! let bytes = [0x30, 0x05, 0xA1, 0x03, 0x80, 0x01, 0x03];
//! assert_eq!(megaco::floor::ber_tlv_walk(&bytes), Some(3));
//! assert_eq!(megaco::floor::ber_tlv_walk(&bytes[..5]), None);
//! assert_ne!(megaco::floor::byte_scan(b"!/1 [10.0.0.1]"), 0);
//! assert_ne!(megaco::floor::text_tokens(b"!/1 [10.0.0.1] T=1{}"), 0);
//! for walk in megaco::floor::ber_tlv_walk_copies() {
//!     assert_eq!((walk(&bytes), walk(&bytes[..5])), (3, 0));
//! }
//! ```

/// The BER floor: visits every TLV of `bytes` (definite lengths of up to
/// two octets), descending into constructed values and reading the last
/// octet of each primitive one, as any BER decoder must at least do.
/// Returns the number of TLVs, or `None` when a length runs past its
/// container or has a form the walk does not take.
pub fn ber_tlv_walk(bytes: &[u8]) -> Option<usize> {
    ber_tlv_walk_at::<0>(bytes)
}

/// A floor as the benches call it: a function of one message's bytes.
pub type Floor = fn(&[u8]) -> usize;

/// How many copies [`ber_tlv_walk_copies`] and [`text_tokens_copies`]
/// give.
pub const COPIES: usize = 8;

/// [`ber_tlv_walk`] compiled [`COPIES`] times, each at its own address
/// (see the [module docs](self)), as the benches call a floor: the number
/// of TLVs, 0 where the walk gives `None`.
pub fn ber_tlv_walk_copies() -> [Floor; COPIES] {
    [
        ber_tlv_count_at::<0>,
        ber_tlv_count_at::<1>,
        ber_tlv_count_at::<2>,
        ber_tlv_count_at::<3>,
        ber_tlv_count_at::<4>,
        ber_tlv_count_at::<5>,
        ber_tlv_count_at::<6>,
        ber_tlv_count_at::<7>,
    ]
}

/// One copy of the walk, as a count.
#[inline(never)]
fn ber_tlv_count_at<const K: u8>(bytes: &[u8]) -> usize {
    ber_tlv_walk_at::<K>(bytes).unwrap_or(0)
}

/// The TLV walk, one copy per `K`: `K` goes into the checksum of every
/// primitive value, so that no two copies are the same code and none is
/// merged into another.
#[inline]
fn ber_tlv_walk_at<const K: u8>(bytes: &[u8]) -> Option<usize> {
    fn walk<const K: u8>(mut b: &[u8], depth: usize, acc: &mut usize, sum: &mut u8) -> Option<()> {
        if depth > 64 {
            return None;
        }
        while !b.is_empty() {
            let tag = b[0];
            let (len, hdr) = match *b.get(1)? {
                l @ 0..=0x7f => (usize::from(l), 2),
                0x81 => (usize::from(*b.get(2)?), 3),
                0x82 => (usize::from(*b.get(2)?) << 8 | usize::from(*b.get(3)?), 4),
                _ => return None,
            };
            let content = b.get(hdr..hdr + len)?;
            *acc += 1;
            if tag & 0x20 != 0 {
                walk::<K>(content, depth + 1, acc, sum)?;
            } else if let Some(&last) = content.last() {
                *sum = sum.wrapping_add(last ^ K);
            }
            b = &b[hdr + len..];
        }
        Some(())
    }
    let (mut n, mut sum) = (0, K);
    walk::<K>(bytes, 0, &mut n, &mut sum)?;
    std::hint::black_box(sum);
    Some(n)
}

/// Byte classes of the text floor: safe characters, white space, `;`, `"`.
static TEXT_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = if crate::text::safe_char(c) {
            1
        } else if matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
            2
        } else if c == b';' {
            3
        } else if c == b'"' {
            4
        } else {
            0
        };
        i += 1;
    }
    t
};

/// The text floor: a tokenizer that finds every token of the message
/// (words of safe characters, quoted strings, punctuation) and skips white
/// space and comments, as any text decoder must at least do; it folds
/// each token's length and first byte into a checksum.
pub fn text_tokens(bytes: &[u8]) -> usize {
    text_tokens_at::<0>(bytes)
}

/// [`text_tokens`] compiled [`COPIES`] times, each at its own address
/// (see the [module docs](self)).
pub fn text_tokens_copies() -> [Floor; COPIES] {
    [
        text_tokens_at::<0>,
        text_tokens_at::<1>,
        text_tokens_at::<2>,
        text_tokens_at::<3>,
        text_tokens_at::<4>,
        text_tokens_at::<5>,
        text_tokens_at::<6>,
        text_tokens_at::<7>,
    ]
}

/// The tokenizer, one copy per `K` (the checksum's seed; see
/// [`ber_tlv_walk_at`]).
#[inline(never)]
fn text_tokens_at<const K: usize>(bytes: &[u8]) -> usize {
    tokens(bytes, K, |_, _| 0)
}

/// The tokenizer with every word that starts with a letter looked up in
/// the text decoders' keyword table (in version 3, long and short forms):
/// not a floor, but what telling keywords apart adds to one, which every
/// text decoder and view pays for the words it must recognise.
///
/// ```
/// let plain = megaco::floor::text_tokens(b"!/1 [10.0.0.1] T=1{}");
/// assert_ne!(megaco::floor::text_keywords(b"!/1 [10.0.0.1] T=1{}"), plain);
/// ```
#[inline(never)]
pub fn text_keywords(bytes: &[u8]) -> usize {
    // `keyword` turns such words away too, but testing the first byte
    // here keeps numbers and ids from calling it: 1.66-1.75x the compact
    // floor this way, 1.81-1.89x without (the cheaper bound is the one
    // worth quoting).
    tokens(bytes, 0, |start, end| match bytes.get(start..end) {
        Some(word @ [first, ..]) if first.is_ascii_alphabetic() => {
            crate::text::keyword(word, 3).map_or(0, |k| k as usize + 1)
        }
        _ => 0,
    })
}

/// The tokenizer's loop, folding `word(start, end)` of each word into the
/// checksum beside its length and first byte (the word's bounds, not its
/// slice, so that the floor's `|_, _| 0` costs nothing, not even a bounds
/// check).
#[inline(always)]
fn tokens(bytes: &[u8], seed: usize, word: impl Fn(usize, usize) -> usize) -> usize {
    let mut acc = seed;
    let mut i = 0;
    let n = bytes.len();
    while i < n {
        let b = bytes[i];
        match TEXT_CLASS[b as usize] {
            1 => {
                let start = i;
                while i < n && TEXT_CLASS[bytes[i] as usize] == 1 {
                    i += 1;
                }
                acc = acc
                    .wrapping_mul(31)
                    .wrapping_add((i - start) ^ usize::from(b) ^ word(start, i));
            }
            2 => i += 1,
            3 => {
                while i < n && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            4 => {
                let start = i;
                i += 1;
                while i < n && bytes[i] != b'"' {
                    i += 1;
                }
                i += 1;
                acc = acc.wrapping_mul(31).wrapping_add(i - start);
            }
            _ => {
                acc = acc.wrapping_mul(31).wrapping_add(usize::from(b));
                i += 1;
            }
        }
    }
    acc
}

/// The floor of byte-oriented formats (text, PER, native): reads every
/// byte once and folds it into a hash.
pub fn byte_scan(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .fold(0usize, |a, &b| a.rotate_left(5) ^ usize::from(b))
}
