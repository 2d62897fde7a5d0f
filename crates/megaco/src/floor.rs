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

/// The floor of byte-oriented formats (text, PER, native): reads every
/// byte once and folds it into a hash.
pub fn byte_scan(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .fold(0usize, |a, &b| a.rotate_left(5) ^ usize::from(b))
}
