//! Value wrapping of the standard binary dialect (RFC 3525 Annex A.2).
//!
//! In ASN.1 a property, event or signal parameter, statistic or
//! ServiceChange reason value is `Value ::= SEQUENCE OF OCTET STRING`.
//! RFC 3525 A.2 says each OCTET STRING holds the value BER-encoded by its
//! package type ("double wrapping"): String → IA5String (UTF8String when
//! not ASCII), Integer / Double / Unsigned → INTEGER, Enumeration →
//! ENUMERATED, Boolean → BOOLEAN, Octet string → OCTET STRING. Erlang/OTP
//! instead puts the text octets there (the `Otp` dialect of the codecs).
//!
//! [`wrap`] writes the inner encoding of one text value, [`unwrap`] reads
//! it back. Both are total and lossless for the text forms they produce:
//! a value is given its typed encoding only when its text is the canonical
//! text of that encoding (`"40"` as an Integer, `"on"`/`"off"` as a
//! Boolean, a listed name as an Enumeration); anything else, and any value
//! of unknown type, is written as a string, so decode(encode(v)) == v.
//!
//! ```
//! use megaco::asn1::values::{wrap, unwrap, ValueType};
//!
//! let mut inner = Vec::new();
//! wrap(Some(&ValueType::Integer), "40", &mut inner);
//! assert_eq!(inner, [0x02, 0x01, 0x28]);
//! let mut text = String::new();
//! assert!(unwrap(Some(&ValueType::Integer), &inner, &mut text));
//! assert_eq!(text, "40");
//! ```

use std::fmt::Write as _;

/// The package type of a value (H.248.1 clause 12.1.2).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// String (IA5String or UTF8String).
    String,
    /// 4-octet signed integer.
    Integer,
    /// Unsigned integer.
    Unsigned,
    /// 8-octet signed integer.
    Double,
    /// Boolean, text `on` / `off`.
    Boolean,
    /// Enumeration: text names and their binary values.
    Enumeration(Vec<(String, u32)>),
    /// Octet string (the text octets as they are).
    OctetString,
}

impl ValueType {
    /// An enumeration from `(name, value)` pairs.
    pub fn enumeration(items: &[(&str, u32)]) -> Self {
        ValueType::Enumeration(items.iter().map(|&(n, v)| (n.to_string(), v)).collect())
    }
}

const TAG_BOOLEAN: u8 = 0x01;
const TAG_INTEGER: u8 = 0x02;
const TAG_OCTET_STRING: u8 = 0x04;
const TAG_ENUMERATED: u8 = 0x0A;
const TAG_UTF8: u8 = 0x0C;
const TAG_PRINTABLE: u8 = 0x13;
const TAG_IA5: u8 = 0x16;
const TAG_VISIBLE: u8 = 0x1A;

/// Appends the BER encoding of the text value `text` of type `ty` (a whole
/// TLV) to `out`.
pub fn wrap(ty: Option<&ValueType>, text: &str, out: &mut Vec<u8>) {
    match ty {
        Some(ValueType::Integer | ValueType::Double) => {
            if let Some(v) = canonical_int(text) {
                return put_int(TAG_INTEGER, v, out);
            }
        }
        Some(ValueType::Unsigned) => {
            if let Some(v) = canonical_int(text).filter(|v| *v >= 0) {
                return put_int(TAG_INTEGER, v, out);
            }
        }
        Some(ValueType::Boolean) => match text {
            "on" => return put_tlv(TAG_BOOLEAN, &[0xFF], out),
            "off" => return put_tlv(TAG_BOOLEAN, &[0x00], out),
            _ => {}
        },
        Some(ValueType::Enumeration(items)) => {
            if let Some((_, v)) = items.iter().find(|(n, _)| n == text) {
                return put_int(TAG_ENUMERATED, i64::from(*v), out);
            }
            if let Some(v) = canonical_int(text) {
                if v >= 0 && !items.iter().any(|(_, iv)| i64::from(*iv) == v) {
                    return put_int(TAG_ENUMERATED, v, out);
                }
            }
        }
        Some(ValueType::OctetString) => return put_tlv(TAG_OCTET_STRING, text.as_bytes(), out),
        Some(ValueType::String) | None => {}
    }
    let tag = if text.is_ascii() { TAG_IA5 } else { TAG_UTF8 };
    put_tlv(tag, text.as_bytes(), out)
}

/// Reads one wrapped value back to text, appending to `out`.
///
/// Returns `false`, appending nothing, when `inner` is not exactly one
/// definite-length TLV of a type this module writes; callers then take the
/// octets as raw text (the Erlang/OTP form).
pub fn unwrap(ty: Option<&ValueType>, inner: &[u8], out: &mut String) -> bool {
    let Some((tag, content)) = single_tlv(inner) else {
        return false;
    };
    match tag {
        TAG_BOOLEAN if content.len() == 1 => {
            out.push_str(if content[0] != 0 { "on" } else { "off" });
            true
        }
        TAG_INTEGER => match read_int(content) {
            Some(v) => {
                let _ = write!(out, "{v}");
                true
            }
            None => false,
        },
        TAG_ENUMERATED => match read_int(content) {
            Some(v) => {
                let name = match ty {
                    Some(ValueType::Enumeration(items)) => items
                        .iter()
                        .find(|(_, iv)| i64::from(*iv) == v)
                        .map(|(n, _)| n.as_str()),
                    _ => None,
                };
                match name {
                    Some(n) => out.push_str(n),
                    None => {
                        let _ = write!(out, "{v}");
                    }
                }
                true
            }
            None => false,
        },
        TAG_OCTET_STRING | TAG_UTF8 | TAG_PRINTABLE | TAG_IA5 | TAG_VISIBLE => {
            match std::str::from_utf8(content) {
                Ok(s) => {
                    out.push_str(s);
                    true
                }
                Err(_) => false,
            }
        }
        _ => false,
    }
}

fn canonical_int(text: &str) -> Option<i64> {
    let v: i64 = text.parse().ok()?;
    // canonical: no sign on positives, no leading zeros
    let b = text.as_bytes();
    let digits = if b.first() == Some(&b'-') { &b[1..] } else { b };
    if b.first() == Some(&b'+') || (digits.len() > 1 && digits[0] == b'0') || text == "-0" {
        return None;
    }
    Some(v)
}

fn put_tlv(tag: u8, content: &[u8], out: &mut Vec<u8>) {
    out.push(tag);
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes = (n as u64).to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (8 - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
}

fn put_int(tag: u8, v: i64, out: &mut Vec<u8>) {
    let bytes = v.to_be_bytes();
    let mut start = 0;
    while start < 7 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        if (b == 0x00 && next & 0x80 == 0) || (b == 0xFF && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    put_tlv(tag, &bytes[start..], out)
}

fn read_int(content: &[u8]) -> Option<i64> {
    if content.is_empty() || content.len() > 8 {
        return None;
    }
    let mut v: i64 = if content[0] & 0x80 != 0 { -1 } else { 0 };
    for &b in content {
        v = (v << 8) | i64::from(b);
    }
    Some(v)
}

/// Splits `inner` into (tag, content) if it is exactly one primitive,
/// single-octet-tag, definite-length TLV.
fn single_tlv(inner: &[u8]) -> Option<(u8, &[u8])> {
    let (&tag, rest) = inner.split_first()?;
    if tag & 0x20 != 0 || tag & 0x1F == 0x1F {
        return None;
    }
    let (&l0, rest) = rest.split_first()?;
    let (len, rest) = if l0 < 0x80 {
        (usize::from(l0), rest)
    } else {
        let n = usize::from(l0 & 0x7F);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let mut len = 0usize;
        for &b in &rest[..n] {
            len = (len << 8) | usize::from(b);
        }
        (len, &rest[n..])
    };
    if rest.len() != len {
        return None;
    }
    Some((tag, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(ty: Option<&ValueType>, text: &str) -> Vec<u8> {
        let mut v = Vec::new();
        wrap(ty, text, &mut v);
        let mut s = String::new();
        assert!(unwrap(ty, &v, &mut s), "{text}");
        assert_eq!(s, text);
        v
    }

    #[test]
    fn typed_values() {
        assert_eq!(round(Some(&ValueType::Integer), "40"), [2, 1, 40]);
        assert_eq!(round(Some(&ValueType::Integer), "-1"), [2, 1, 0xFF]);
        assert_eq!(round(Some(&ValueType::Integer), "128"), [2, 2, 0, 128]);
        assert_eq!(
            round(Some(&ValueType::Double), "62300"),
            [2, 3, 0, 0xF3, 0x5C]
        );
        assert_eq!(round(Some(&ValueType::Boolean), "on"), [1, 1, 0xFF]);
        assert_eq!(round(Some(&ValueType::Boolean), "off"), [1, 1, 0]);
        let e = ValueType::enumeration(&[("exact", 0), ("state", 1)]);
        assert_eq!(round(Some(&e), "state"), [0x0A, 1, 1]);
        assert_eq!(round(Some(&e), "7"), [0x0A, 1, 7]);
        assert_eq!(round(None, "IN IP4 $ "), b"\x16\x09IN IP4 $ ");
        assert_eq!(round(Some(&ValueType::String), "0"), b"\x16\x010");
    }

    #[test]
    fn non_canonical_falls_back_to_string() {
        assert_eq!(round(Some(&ValueType::Integer), "040")[0], TAG_IA5);
        assert_eq!(round(Some(&ValueType::Integer), "+4")[0], TAG_IA5);
        assert_eq!(round(Some(&ValueType::Integer), "g165")[0], TAG_IA5);
        assert_eq!(round(Some(&ValueType::Boolean), "ON")[0], TAG_IA5);
        let e = ValueType::enumeration(&[("exact", 0)]);
        assert_eq!(round(Some(&e), "0")[0], TAG_IA5);
        assert_eq!(round(Some(&ValueType::Integer), "")[0], TAG_IA5);
        assert_eq!(round(None, "é")[0], TAG_UTF8);
    }

    #[test]
    fn raw_text_is_not_a_tlv() {
        let mut s = String::new();
        assert!(!unwrap(None, b"40", &mut s));
        assert!(!unwrap(None, b"0", &mut s));
        assert!(!unwrap(None, b"", &mut s));
        assert!(!unwrap(None, &[0x02, 0x05, 1], &mut s));
        assert!(s.is_empty());
    }
}
