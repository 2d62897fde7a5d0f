//! Mappings between the text-form model and the ASN.1 form of H.248.1
//! Annex A, shared by the binary codecs (BER and PER).
//!
//! The message model keeps values as the text encoding writes them
//! (`"al/of"`, `"11111111/00000000/$"`). The ASN.1 module carries the same
//! things in binary form: a termination id is a packed bit string with
//! wildcard octets, a package item is a 2-octet package id plus a 2-octet
//! item id. This module holds those conversions:
//!
//! - [`termid`]: termination id text ↔ `TerminationID { wildcard, id }`,
//!   with configurable level sizes (H.248.1 Annex A.1, Erlang/OTP's
//!   `megaco_binary_term_id`).
//! - [`names`]: package / item / parameter names ↔ 2-octet codes through a
//!   [`names::NameRegistry`] of the standard packages that users can extend.
//! - [`values`]: the RFC 3525 A.2 "double wrapping" of property, parameter
//!   and statistic values by their package type (standard binary dialect).
//! - [`enums`]: the ENUMERATED types and named BIT STRINGs, declared once
//!   (variant, number, identifier, version) and checked against
//!   `spec/asn1/`: both binary codecs read and write them from there and
//!   never from the order of the model's variants. BER uses
//!   [`enums::Enumerated::number`] / [`from_number`](enums::Enumerated::from_number);
//!   PER uses [`enums::Enumerated::per_index`] /
//!   [`from_per_index`](enums::Enumerated::from_per_index) (the position in
//!   the root or among the extension additions, with
//!   [`ROOT`](enums::Enumerated::ROOT)`.len()` values in the root and
//!   [`EXTENSIBLE`](enums::Enumerated::EXTENSIBLE) for the extension bit);
//!   both use [`enums::NamedBits::bit`] for bit lists.
//!
//! # Reversible forms for codes without a name
//!
//! A code the registry does not know is written in hex with a `0x` prefix,
//! which no text-encoding name can start with: `0x0063/0x0001` (unknown
//! package), `al/0x0099` (known package, unknown item), `0x0004` (a
//! parameter or package name). The encoders accept these forms back, so
//! decoding and re-encoding is lossless. A termination id that does not fit
//! the configured levels is written `0x<id octets>` followed by `#<octet>`
//! per wildcard octet, e.g. `0x000000#57` (see [`termid::format_native`]).

pub mod enums;
pub mod names;
pub mod termid;
pub mod values;

/// Writes `v` as four lower-case hex digits prefixed by `0x`.
pub(crate) fn push_hex16(out: &mut String, v: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("0x");
    for shift in [12u32, 8, 4, 0] {
        out.push(HEX[((v >> shift) & 0xF) as usize] as char);
    }
}

/// Parses `0xHHHH` (exactly four hex digits, any case).
pub(crate) fn parse_hex16(s: &str) -> Option<u16> {
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    if digits.len() != 4 {
        return None;
    }
    u16::from_str_radix(digits, 16).ok()
}

/// The decimal digits of a ServiceChangeProfile's version, as its ASN.1
/// form `name/version` writes them (no leading zeros), in `buf`.
pub(crate) fn version_digits(v: u8, buf: &mut [u8; 3]) -> &[u8] {
    *buf = [b'0' + v / 100, b'0' + (v / 10) % 10, b'0' + v % 10];
    let skip = match v {
        0..=9 => 2,
        10..=99 => 1,
        _ => 0,
    };
    &buf[skip..]
}

/// Rules both binary encoders keep beyond their ASN.1 modules: shapes the
/// ASN.1 lets through that H.248.1 and the text grammar do not, and that
/// Erlang/OTP's binary codecs can neither write nor read.
pub(crate) mod rules {
    use crate::model::{ActionReply, ServiceChangeProfile, Values};
    use crate::EncodeError;

    use crate::error::invalid;

    /// A transaction reply's action replies: the ASN.1 allows none;
    /// H.248.1 and the text grammar want one at least.
    pub(crate) fn action_replies(replies: &[ActionReply]) -> Result<(), EncodeError> {
        if replies.is_empty() {
            return Err(invalid("transaction reply", "no action replies"));
        }
        Ok(())
    }

    /// A profile is written `name/version`: the name must be there and
    /// hold no `/`, and the version is two digits at most.
    pub(crate) fn profile(p: &ServiceChangeProfile) -> Result<(), EncodeError> {
        const WHAT: &str = "ServiceChangeProfile";
        if p.profile_name.is_empty() {
            return Err(invalid(WHAT, "empty name"));
        }
        if p.profile_name.contains('/') {
            return Err(invalid(WHAT, "a `/` in the name"));
        }
        if p.version > 99 {
            return Err(invalid(WHAT, "version above 99"));
        }
        Ok(())
    }

    /// A ServiceChange gives one reason (a `Value` in the ASN.1, which
    /// could hold any number).
    pub(crate) fn reason(v: &Values) -> Result<(), EncodeError> {
        if v.len() != 1 {
            return Err(invalid(
                "serviceChangeReason",
                "one value, no more or fewer",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex16_round_trip() {
        let mut s = String::new();
        push_hex16(&mut s, 0xb00f);
        assert_eq!(s, "0xb00f");
        assert_eq!(parse_hex16(&s), Some(0xb00f));
        assert_eq!(parse_hex16("0XB00F"), Some(0xb00f));
        assert_eq!(parse_hex16("0x123"), None);
        assert_eq!(parse_hex16("b00f"), None);
    }

    #[test]
    fn version_digits_as_decimal() {
        let mut buf = [0; 3];
        for v in [0u8, 7, 10, 99, 100, 255] {
            assert_eq!(version_digits(v, &mut buf), v.to_string().as_bytes());
        }
    }
}
