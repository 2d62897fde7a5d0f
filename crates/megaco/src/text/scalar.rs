//! Values inside one word of the text encoding: decimal numbers, IPv4 and
//! IPv6 addresses, hexadecimal octets and time stamps. Pure functions of
//! bytes; the parser turns their `None` into a positioned error.

/// Decimal digits only, at least one and at most `max_digits` of them (the
/// ABNF's `1*5(DIGIT)` for UINT16, `1*10(DIGIT)` for UINT32, ...), as a
/// number; `None` otherwise.
#[inline]
pub(crate) fn parse_decimal(s: &[u8], max_digits: usize) -> Option<u64> {
    if s.is_empty() || s.len() > max_digits || s.len() > 19 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + u64::from(d);
    }
    Some(v)
}

/// Whether every byte is a decimal digit (and there is at least one).
pub(crate) fn all_digits(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(u8::is_ascii_digit)
}

/// A dotted-quad IPv4 address (`V4hex = 1*3(DIGIT)`, each 0 to 255).
pub(crate) fn parse_ip4(s: &[u8]) -> Option<[u8; 4]> {
    scan_ip4(s).and_then(|(address, n)| (n == s.len()).then_some(address))
}

/// A dotted-quad IPv4 address at the start of `s`, read up to the first
/// byte that is neither a digit nor a dot, and the length it spans.
pub(crate) fn scan_ip4(s: &[u8]) -> Option<([u8; 4], usize)> {
    let mut out = [0u8; 4];
    let mut octet = 0;
    let mut digits = 0;
    let mut v: u16 = 0;
    let mut i = 0;
    while let Some(&b) = s.get(i) {
        if b == b'.' {
            if digits == 0 || octet == 3 {
                return None;
            }
            out[octet] = u8::try_from(v).ok()?;
            octet += 1;
            digits = 0;
            v = 0;
        } else if b.is_ascii_digit() {
            if digits == 3 {
                return None;
            }
            v = v * 10 + u16::from(b - b'0');
            digits += 1;
        } else {
            break;
        }
        i += 1;
    }
    if digits == 0 || octet != 3 {
        return None;
    }
    out[3] = u8::try_from(v).ok()?;
    Some((out, i))
}

pub(crate) fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// One to four hex digits.
fn parse_hex4(s: &[u8]) -> Option<u16> {
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    let mut v: u16 = 0;
    for &b in s {
        v = (v << 4) | u16::from(hex_val(b)?);
    }
    Some(v)
}

/// An IPv6 address in any RFC 4291 text form: full, with one `::`, and
/// with a trailing dotted-quad IPv4 part.
pub(crate) fn parse_ip6(s: &[u8]) -> Option<[u8; 16]> {
    // Split at the (single) "::" if there is one.
    let dbl = s.windows(2).position(|w| w == b"::");
    let (head, tail) = match dbl {
        Some(i) => {
            let rest = &s[i + 2..];
            if rest.windows(2).any(|w| w == b"::") {
                return None;
            }
            (&s[..i], Some(rest))
        }
        None => (s, None),
    };
    let mut words_head = [0u16; 8];
    let mut nh = 0usize;
    let mut words_tail = [0u16; 8];
    let mut nt = 0usize;
    // Parses a ':'-separated group list; the last group may be IPv4.
    fn groups(part: &[u8], out: &mut [u16; 8], n: &mut usize, allow_v4: bool) -> Option<()> {
        if part.is_empty() {
            return Some(());
        }
        let mut it = part.split(|&b| b == b':').peekable();
        while let Some(g) = it.next() {
            let last = it.peek().is_none();
            if last && allow_v4 && g.contains(&b'.') {
                let v4 = parse_ip4(g)?;
                if *n + 2 > 8 {
                    return None;
                }
                out[*n] = u16::from_be_bytes([v4[0], v4[1]]);
                out[*n + 1] = u16::from_be_bytes([v4[2], v4[3]]);
                *n += 2;
            } else {
                if *n >= 8 {
                    return None;
                }
                out[*n] = parse_hex4(g)?;
                *n += 1;
            }
        }
        Some(())
    }
    match tail {
        Some(t) => {
            groups(head, &mut words_head, &mut nh, false)?;
            groups(t, &mut words_tail, &mut nt, true)?;
            if nh + nt > 7 {
                return None;
            }
        }
        None => {
            groups(head, &mut words_head, &mut nh, true)?;
            if nh != 8 {
                return None;
            }
        }
    }
    let mut words = [0u16; 8];
    words[..nh].copy_from_slice(&words_head[..nh]);
    words[8 - nt..].copy_from_slice(&words_tail[..nt]);
    let mut out = [0u8; 16];
    for (i, w) in words.iter().enumerate() {
        out[2 * i..2 * i + 2].copy_from_slice(&w.to_be_bytes());
    }
    Some(out)
}

/// `0x` and `min..=max` hex digits, as octets: two digits an octet, and a
/// last odd digit an octet of its own (as Erlang/OTP reads an odd
/// `AuthData`).
pub(crate) fn parse_hex_octets(s: &[u8], min: usize, max: usize) -> Option<Vec<u8>> {
    let digits = s.strip_prefix(b"0x").or_else(|| s.strip_prefix(b"0X"))?;
    if digits.len() < min || digits.len() > max {
        return None;
    }
    digits
        .chunks(2)
        .map(|c| match *c {
            [hi, lo] => Some((hex_val(hi)? << 4) | hex_val(lo)?),
            [lone] => hex_val(lone),
            _ => None,
        })
        .collect()
}

/// `yyyymmddThhmmssss` (`TimeStamp = Date "T" Time`, 8 digits each).
pub(crate) fn is_timestamp(w: &[u8]) -> bool {
    w.len() == 17
        && (w[8] | 0x20) == b't'
        && w[..8].iter().all(u8::is_ascii_digit)
        && w[9..].iter().all(u8::is_ascii_digit)
}

/// `NAME = ALPHA *63(ALPHA / DIGIT / "_")`.
pub(crate) fn is_name(n: &[u8]) -> bool {
    name_case(n).is_some()
}

/// Whether `n` is a `NAME`, and if so whether it has an upper-case
/// letter (one pass, for a decoder that lower-cases names).
#[inline]
pub(crate) fn name_case(n: &[u8]) -> Option<bool> {
    let (&first, rest) = n.split_first()?;
    if !first.is_ascii_alphabetic() || n.len() > 64 {
        return None;
    }
    let mut upper = first.is_ascii_uppercase();
    for &c in rest {
        if !(c.is_ascii_alphanumeric() || c == b'_') {
            return None;
        }
        upper |= c.is_ascii_uppercase();
    }
    Some(upper)
}

/// `pkgdName = (PackageName SLASH ItemID) / (PackageName SLASH "*") /
/// ("*" SLASH "*")`, names being `NAME`s.
pub(crate) fn is_pkgd_name(n: &[u8]) -> bool {
    pkgd_name_case(n).is_some()
}

/// Whether `n` is a `pkgdName`, and if so whether it has an upper-case
/// letter.
#[inline]
pub(crate) fn pkgd_name_case(n: &[u8]) -> Option<bool> {
    let i = n.iter().position(|&b| b == b'/')?;
    let (package, item) = (&n[..i], &n[i + 1..]);
    if package == b"*" {
        return (item == b"*").then_some(false);
    }
    let upper = name_case(package)?;
    if item == b"*" {
        return Some(upper);
    }
    Some(upper | name_case(item)?)
}

/// `domainName`'s text: a letter or digit, then up to 63 letters, digits,
/// `-` and `.`.
pub(crate) fn is_domain_name(n: &[u8]) -> bool {
    matches!(n.first(), Some(c) if c.is_ascii_alphanumeric())
        && n.len() <= 64
        && n.iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'.')
}

/// `extensionParameter = "X" ("-" / "+") 1*6(ALPHA / DIGIT)`.
pub(crate) fn is_extension(n: &[u8]) -> bool {
    n.len() >= 3
        && n.len() <= 8
        && (n[0] | 0x20) == b'x'
        && (n[1] == b'-' || n[1] == b'+')
        && n[2..].iter().all(u8::is_ascii_alphanumeric)
}

/// `mtpAddress`'s text: 4 to 8 hex digits.
pub(crate) fn is_mtp_address(n: &[u8]) -> bool {
    (4..=8).contains(&n.len()) && n.iter().all(u8::is_ascii_hexdigit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip6_forms() {
        let mut lo = [0u8; 16];
        lo[15] = 1;
        assert_eq!(parse_ip6(b"::1"), Some(lo));
        assert_eq!(parse_ip6(b"::"), Some([0; 16]));
        let a = parse_ip6(b"2001:db8::10.0.0.1").unwrap();
        assert_eq!(&a[..4], &[0x20, 0x01, 0x0d, 0xb8]);
        assert_eq!(&a[12..], &[10, 0, 0, 1]);
        assert_eq!(parse_ip6(b"1:2:3:4:5:6:7:8").unwrap()[14..], [0, 8]);
        assert!(parse_ip6(b"1:2:3:4:5:6:7").is_none());
        assert!(parse_ip6(b"1::2::3").is_none());
        assert!(parse_ip6(b"1:2:3:4:5:6:7:8:9").is_none());
        assert!(parse_ip6(b"fe80::1:2:3:4:5:6:7").is_none());
        assert!(parse_ip6(b"12345::").is_none());
        assert_eq!(parse_ip6(b"fe80::").unwrap()[..2], [0xfe, 0x80]);
    }

    #[test]
    fn ip4_and_numbers() {
        assert_eq!(parse_ip4(b"124.124.124.222"), Some([124, 124, 124, 222]));
        assert_eq!(parse_ip4(b"0.0.0.0"), Some([0; 4]));
        assert!(parse_ip4(b"1.2.3.256").is_none());
        assert!(parse_ip4(b"1.2.3").is_none());
        assert!(parse_ip4(b"1.2.3.0004").is_none());
        assert!(parse_ip4(b"1..2.3").is_none());
        assert!(parse_ip4(b"1.2.3.4]").is_none());
        // The scan stops at the first byte that is no digit or dot.
        assert_eq!(scan_ip4(b"1.2.3.4]:5"), Some(([1, 2, 3, 4], 7)));
        assert_eq!(scan_ip4(b"10.0.0.1:2944"), Some(([10, 0, 0, 1], 8)));
        assert_eq!(scan_ip4(b"::1]"), None);
        assert_eq!(scan_ip4(b"1.2.3.4.5]"), None);
        assert_eq!(scan_ip4(b"1.2.3]"), None);
        assert_eq!(parse_decimal(b"4294967295", 10), Some(4_294_967_295));
        assert_eq!(parse_decimal(b"00001", 5), Some(1));
        assert!(parse_decimal(b"000001", 5).is_none());
        assert!(parse_decimal(b"99999999999999999999", 20).is_none());
        assert!(parse_decimal(b"1a", 5).is_none());
        assert!(parse_decimal(b"", 5).is_none());
    }

    #[test]
    fn names_of_the_grammar() {
        assert!(is_name(b"a") && is_name(b"tdmc_2") && !is_name(b"2a") && !is_name(b"a-b"));
        assert!(!is_name(&[b'a'; 65]) && is_name(&[b'a'; 64]) && !is_name(b""));
        for ok in ["al/of", "al/*", "*/*", "nt/jit", "G/x_1"] {
            assert!(is_pkgd_name(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "al", "al/", "/of", "*/of", "al/of/x", "1l/of", "al/o-f", "al/**",
        ] {
            assert!(!is_pkgd_name(bad.as_bytes()), "{bad}");
        }
        assert!(is_domain_name(b"mg1.example-net.com") && is_domain_name(b"1a"));
        assert!(!is_domain_name(b"-ab") && !is_domain_name(b"a_b") && !is_domain_name(b""));
        assert!(is_extension(b"X-abc") && is_extension(b"x+123456"));
        assert!(!is_extension(b"X-abcdefg") && !is_extension(b"X-") && !is_extension(b"Y-ab"));
        assert!(is_mtp_address(b"0a0B") && is_mtp_address(b"12345678"));
        assert!(
            !is_mtp_address(b"123") && !is_mtp_address(b"123456789") && !is_mtp_address(b"12g4")
        );
    }

    #[test]
    fn hex_octets_and_time_stamps() {
        assert_eq!(parse_hex_octets(b"0x0A0b", 4, 4), Some(vec![10, 11]));
        assert_eq!(parse_hex_octets(b"0X0a1", 3, 4), Some(vec![10, 1]));
        assert!(parse_hex_octets(b"0x0a", 3, 4).is_none());
        assert!(parse_hex_octets(b"0a0b", 4, 4).is_none());
        assert!(parse_hex_octets(b"0x0g", 2, 4).is_none());
        assert!(is_timestamp(b"19990729T22000000"));
        assert!(is_timestamp(b"19990729t22000000"));
        assert!(!is_timestamp(b"19990729X22000000"));
        assert!(!is_timestamp(b"1999072aT22000000"));
    }
}
