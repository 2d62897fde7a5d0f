//! Reading a message's first transaction id without decoding it: what a
//! controller that trusts its peers needs to match a reply to its
//! request. Text is scanned up to the first transaction's number, BER
//! walked through the few tag-length-values above it; PER (bit-packed)
//! is not scanned. `None` means "decode it in full to know".
//!
//! ```
//! use megaco::codec::Encoding;
//! use megaco_load::scan::{scan, Head};
//!
//! let text = b"MEGACO/1 [127.0.0.1]:2944\nReply = 42 {\n\tContext = - {\n\t\tAuditValue = ROOT\n\t}\n}";
//! assert_eq!(scan(&Encoding::pretty(), text), Some(Head::Reply(42)));
//! assert_eq!(scan(&Encoding::compact(), b"!/1 <mg> PN=7"), Some(Head::Pending(7)));
//! ```

use std::ops::Range;

use megaco::codec::Encoding;

/// A message's first transaction, as far as a scan tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// A request with this id.
    Request(u32),
    /// A reply with this id.
    Reply(u32),
    /// A pending with this id.
    Pending(u32),
    /// A TransactionResponseAck or SegmentReply.
    Other,
    /// A message-level error.
    Error,
}

/// Scans `bytes` written in `encoding`.
pub fn scan(encoding: &Encoding, bytes: &[u8]) -> Option<Head> {
    scan_span(encoding, bytes).map(|(h, _)| h)
}

/// [`scan`], and where the transaction id is in `bytes` (its digits or
/// INTEGER octets; empty for a message without one).
pub fn scan_span(encoding: &Encoding, bytes: &[u8]) -> Option<(Head, Range<usize>)> {
    match encoding {
        Encoding::Text { .. } => text(bytes),
        Encoding::Ber(_) => ber(bytes),
        _ => None,
    }
}

fn text(b: &[u8]) -> Option<(Head, Range<usize>)> {
    let mut i = skip_space(b, 0);
    // MEGACO/v or !/v
    if b.get(i) == Some(&b'!') {
        i += 1;
    } else if b.len() >= i + 6 && b[i..i + 6].eq_ignore_ascii_case(b"MEGACO") {
        i += 6;
    } else {
        return None;
    }
    if b.get(i) != Some(&b'/') {
        return None;
    }
    i += 1;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i = skip_space(b, i);
    // The mid: one token (no white space inside any mid form).
    while b
        .get(i)
        .is_some_and(|c| !c.is_ascii_whitespace() && *c != b';')
    {
        i += 1;
    }
    i = skip_space(b, i);
    let start = i;
    while b.get(i).is_some_and(u8::is_ascii_alphabetic) {
        i += 1;
    }
    let word = &b[start..i];
    let is = |long: &[u8], short: &[u8]| {
        word.eq_ignore_ascii_case(long) || word.eq_ignore_ascii_case(short)
    };
    let make: fn(u32) -> Head = if is(b"Reply", b"P") {
        Head::Reply
    } else if is(b"Pending", b"PN") {
        Head::Pending
    } else if is(b"Transaction", b"T") {
        Head::Request
    } else if is(b"Error", b"ER") {
        return Some((Head::Error, 0..0));
    } else if is(b"TransactionResponseAck", b"K") {
        return Some((Head::Other, 0..0));
    } else {
        return None;
    };
    i = skip_space(b, i);
    if b.get(i) != Some(&b'=') {
        return None;
    }
    i = skip_space(b, i + 1);
    let mut v: u64 = 0;
    let digits = i;
    while let Some(d) = b.get(i).filter(|c| c.is_ascii_digit()) {
        v = v * 10 + u64::from(d - b'0');
        if v > u64::from(u32::MAX) {
            return None;
        }
        i += 1;
    }
    (i > digits).then(|| (make(v as u32), digits..i))
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            Some(c) if c.is_ascii_whitespace() => i += 1,
            Some(b';') => {
                while b.get(i).is_some_and(|c| *c != b'\n' && *c != b'\r') {
                    i += 1;
                }
            }
            _ => return i,
        }
    }
}

/// One tag-length-value: the tag byte and the content. Only low tag
/// numbers and definite lengths.
fn tlv(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let tag = *b.first()?;
    if tag & 0x1F == 0x1F {
        return None;
    }
    let first = *b.get(1)?;
    let (len, head) = if first < 0x80 {
        (usize::from(first), 2)
    } else {
        let n = usize::from(first & 0x7F);
        if n == 0 || n > 4 {
            return None;
        }
        let mut len = 0usize;
        for k in 0..n {
            len = (len << 8) | usize::from(*b.get(2 + k)?);
        }
        (len, 2 + n)
    };
    let end = head.checked_add(len)?;
    Some((tag, b.get(head..end)?, b.get(end..)?))
}

/// The first child with `tag` among the TLVs of `b`.
fn child(mut b: &[u8], tag: u8) -> Option<&[u8]> {
    while !b.is_empty() {
        let (t, content, rest) = tlv(b)?;
        if t == tag {
            return Some(content);
        }
        b = rest;
    }
    None
}

fn ber(b: &[u8]) -> Option<(Head, Range<usize>)> {
    let (t, msg, _) = tlv(b)?;
    if t != 0x30 {
        return None;
    }
    let mess = child(msg, 0xA1)?;
    let body = child(mess, 0xA2)?;
    let (t, inner, _) = tlv(body)?;
    match t {
        0xA0 => return Some((Head::Error, 0..0)),
        0xA1 => {}
        _ => return None,
    }
    let (t, trans, _) = tlv(inner)?;
    let make: fn(u32) -> Head = match t {
        0xA0 => Head::Request,
        0xA1 => Head::Pending,
        0xA2 => Head::Reply,
        0xA3 | 0xA4 => return Some((Head::Other, 0..0)),
        _ => return None,
    };
    let (t, id, _) = tlv(trans)?;
    if t != 0x80 {
        return None;
    }
    if id.is_empty() || id.len() > 5 || (id.len() == 5 && id[0] != 0) {
        return None;
    }
    let v = id.iter().fold(0u64, |v, b| (v << 8) | u64::from(*b));
    let at = id.as_ptr() as usize - b.as_ptr() as usize;
    u32::try_from(v).ok().map(|v| (make(v), at..at + id.len()))
}
