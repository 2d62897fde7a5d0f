//! Scan floors: the least any decoder of a format must do with its bytes,
//! to measure decoders against. `megaco bench meas` and `cargo bench
//! --bench floor` report each decoder's time as a multiple of the floor
//! of the same bytes, a ratio that holds on any machine.
//!
//! ```
//! let bytes = [0x30, 0x05, 0xA1, 0x03, 0x80, 0x01, 0x03];
//! assert_eq!(megaco::floor::ber_tlv_walk(&bytes), Some(3));
//! assert_eq!(megaco::floor::ber_tlv_walk(&bytes[..5]), None);
//! assert_ne!(megaco::floor::byte_scan(b"!/1 [10.0.0.1]"), 0);
//! assert_ne!(megaco::floor::text_tokens(b"!/1 [10.0.0.1] T=1{}"), 0);
//! ```

/// The BER floor: visits every TLV of `bytes` (definite lengths of up to
/// two octets), descending into constructed values and reading the last
/// octet of each primitive one, as any BER decoder must at least do.
/// Returns the number of TLVs, or `None` when a length runs past its
/// container or has a form the walk does not take.
pub fn ber_tlv_walk(bytes: &[u8]) -> Option<usize> {
    fn walk(mut b: &[u8], depth: usize, acc: &mut usize, sum: &mut u8) -> Option<()> {
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
                walk(content, depth + 1, acc, sum)?;
            } else if let Some(&last) = content.last() {
                *sum = sum.wrapping_add(last);
            }
            b = &b[hdr + len..];
        }
        Some(())
    }
    let (mut n, mut sum) = (0, 0);
    walk(bytes, 0, &mut n, &mut sum)?;
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
    let mut acc = 0usize;
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
                    .wrapping_add((i - start) ^ usize::from(b));
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
