//! Identifiers: message identifiers ([`Mid`]), termination ids and context
//! ids, with their text forms (`Display` and `FromStr`, as hickory's
//! `Name`) and their serde forms.
//!
//! In human-readable serde formats (JSON, YAML, ...) each of the three is
//! its text form: a mid `"[10.0.0.1]:2944"`, a termination id
//! `"11111111/00000000/00000000"`, a context id `"-"`, `"$"`, `"*"` or its
//! number. Binary formats (the [`native`](crate::native) format) keep the
//! compact structural form.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use compact_str::CompactString;

#[cfg(feature = "serde")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};

model! {
    /// Message identifier / address (`MId`).
    ///
    /// Its text form is the one of the text encoding:
    ///
    /// ```
    /// use megaco::model::{Ip4Address, Mid};
    ///
    /// let mid: Mid = "[10.0.0.1]:2944".parse()?;
    /// assert_eq!(mid, Mid::Ip4(Ip4Address { address: [10, 0, 0, 1], port: Some(2944) }));
    /// assert_eq!(mid.to_string(), "[10.0.0.1]:2944");
    /// for text in ["<mg1.example.net>:2944", "[2001:db8::1]", "MTP{0A1B}", "gw/trunk1"] {
    ///     assert_eq!(text.parse::<Mid>()?.to_string(), text);
    /// }
    /// assert!("[10.0.0.256]".parse::<Mid>().is_err());
    /// # Ok::<(), megaco::model::ParseIdError>(())
    /// ```
    #[cfg_attr(feature = "serde", serde(remote = "Self"))]
    pub enum Mid {
        /// `[a.b.c.d]:port`.
        Ip4(Ip4Address),
        /// `[ipv6]:port`.
        Ip6(Ip6Address),
        /// `<domain.name>:port`.
        Domain(DomainName),
        /// A device name (`PathName`).
        Device(CompactString),
        /// `MTP{hex}`: the hex digits as written (4 to 8 of them).
        Mtp(CompactString),
    }

    /// An IPv4 address with an optional port.
    #[derive(Copy, Default)]
    pub struct Ip4Address {
        /// The four octets.
        pub address: [u8; 4],
        /// The port, if given.
        pub port: Option<u16>,
    }

    /// An IPv6 address with an optional port.
    #[derive(Copy, Default)]
    pub struct Ip6Address {
        /// The sixteen octets.
        pub address: [u8; 16],
        /// The port, if given.
        pub port: Option<u16>,
    }

    /// A domain name with an optional port.
    #[derive(Default)]
    pub struct DomainName {
        /// The name, without the angle brackets.
        pub name: CompactString,
        /// The port, if given.
        pub port: Option<u16>,
    }
}

/// Context id: a number, or one of the special values [`ContextId::NULL`]
/// (`-`), [`ContextId::CHOOSE`] (`$`) and [`ContextId::ALL`] (`*`).
///
/// ```
/// use megaco::model::ContextId;
///
/// assert_eq!("$".parse::<ContextId>()?, ContextId::CHOOSE);
/// assert_eq!("42".parse::<ContextId>()?, ContextId(42));
/// assert_eq!(ContextId::NULL.to_string(), "-");
/// assert_eq!(ContextId(7).to_string(), "7");
/// # Ok::<(), megaco::model::ParseIdError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct ContextId(pub u32);

impl ContextId {
    /// The null context, `-`.
    pub const NULL: ContextId = ContextId(0);
    /// Choose a context, `$`.
    pub const CHOOSE: ContextId = ContextId(0xFFFF_FFFE);
    /// All contexts, `*`.
    pub const ALL: ContextId = ContextId(0xFFFF_FFFF);

    /// The text form of a special value (`-`, `$`, `*`), `None` for a
    /// numbered context.
    pub fn special(self) -> Option<&'static str> {
        match self {
            ContextId::NULL => Some("-"),
            ContextId::CHOOSE => Some("$"),
            ContextId::ALL => Some("*"),
            _ => None,
        }
    }
}

impl fmt::Display for ContextId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.special() {
            Some(s) => f.write_str(s),
            None => write!(f, "{}", self.0),
        }
    }
}

impl FromStr for ContextId {
    type Err = ParseIdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "-" => Ok(ContextId::NULL),
            "$" => Ok(ContextId::CHOOSE),
            "*" => Ok(ContextId::ALL),
            _ if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => s
                .parse()
                .map(ContextId)
                .map_err(|_| ParseIdError::new("context id", "number above 4294967295")),
            _ => Err(ParseIdError::new(
                "context id",
                "expected `-`, `$`, `*` or a number",
            )),
        }
    }
}

/// A termination id in text form: `ROOT`, `*`, `$`,
/// `11111111/00000000/00000000`, `line/$` and so on, or a binary codec's
/// `0x…` native form (see [`crate::ber`]).
///
/// Ids of up to 32 bytes (every id of three 8-bit levels written in
/// binary digits) are stored inline, without an allocation.
///
/// ```
/// use megaco::model::TerminationId;
///
/// let t: TerminationId = "11111111/00000000/$".parse()?;
/// assert!(t.has_wildcard());
/// assert_eq!(t.levels().count(), 3);
/// assert_eq!(t.as_str(), "11111111/00000000/$");
/// assert_eq!(t, TerminationId::new("11111111/00000000/$"));
/// assert!("a b".parse::<TerminationId>().is_err());
/// # Ok::<(), megaco::model::ParseIdError>(())
/// ```
#[derive(PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TerminationId {
    id: smallstr::SmallString<[u8; TerminationId::INLINE]>,
}

impl Clone for TerminationId {
    /// A copy of the text in one go (the derived clone went byte by
    /// byte, through the inner vector's `extend`).
    fn clone(&self) -> Self {
        TerminationId::new(self.as_str())
    }
}

impl TerminationId {
    /// The longest text kept inline.
    pub(crate) const INLINE: usize = 32;

    /// The id whose text is the first `len` bytes of `buf`: for the binary
    /// decoders, which write an id's text into such an array. `None` if
    /// `len` is too long or the array is not all UTF-8 (the bytes after
    /// the text too: leave them zero).
    ///
    /// Checking the whole array, of a fixed length, costs less than
    /// checking the text alone.
    #[inline]
    pub(crate) fn from_padded(buf: [u8; Self::INLINE], len: usize) -> Option<Self> {
        let text = std::str::from_utf8(&buf).ok()?.get(..len)?;
        Some(TerminationId {
            id: smallstr::SmallString::from_str(text),
        })
    }

    /// A termination id from its text form, taken as it is (see
    /// [`FromStr`](#impl-FromStr-for-TerminationId) for a checked parse).
    pub fn new(id: impl AsRef<str>) -> Self {
        TerminationId {
            id: smallstr::SmallString::from_str(id.as_ref()),
        }
    }

    /// The root termination, `ROOT`.
    pub fn root() -> Self {
        TerminationId::new("ROOT")
    }

    /// The id's text.
    #[inline]
    pub fn as_str(&self) -> &str {
        self.id.as_str()
    }

    /// Whether this is the root termination (any case).
    pub fn is_root(&self) -> bool {
        self.id.eq_ignore_ascii_case("root")
    }

    /// Whether the id holds a `*` or `$` wildcard.
    pub fn has_wildcard(&self) -> bool {
        self.id.bytes().any(|b| b == b'*' || b == b'$')
    }

    /// The `/`-separated levels of the id.
    pub fn levels(&self) -> impl Iterator<Item = &str> {
        self.id.split('/')
    }
}

impl fmt::Debug for TerminationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TerminationId({:?})", self.as_str())
    }
}

impl fmt::Display for TerminationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AsRef<str> for TerminationId {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for TerminationId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for TerminationId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<&str> for TerminationId {
    fn from(s: &str) -> Self {
        TerminationId::new(s)
    }
}

impl From<String> for TerminationId {
    fn from(s: String) -> Self {
        TerminationId::new(s)
    }
}

impl From<&String> for TerminationId {
    fn from(s: &String) -> Self {
        TerminationId::new(s)
    }
}

impl From<CompactString> for TerminationId {
    fn from(s: CompactString) -> Self {
        TerminationId::new(s)
    }
}

/// Bytes a termination id may hold: the characters of the text grammar's
/// `pathNAME` (letters, digits, `/`, `*`, `$`, `_`, `@`, `.`, `-`) and `#`
/// of the binary codecs' native form.
fn termination_id_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"/*$_@.-#".contains(&b)
}

impl FromStr for TerminationId {
    type Err = ParseIdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() {
            return Err(ParseIdError::new("termination id", "empty"));
        }
        if let Some(b) = s.bytes().find(|&b| !termination_id_byte(b)) {
            return Err(ParseIdError::new("termination id", bad_char(b)));
        }
        Ok(TerminationId::new(s))
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for TerminationId {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(TerminationId::new(<&str>::arbitrary(u)?))
    }

    fn size_hint(depth: usize) -> (usize, Option<usize>) {
        <&str as arbitrary::Arbitrary>::size_hint(depth)
    }
}

/// Why a text form did not parse as a [`Mid`], [`TerminationId`] or
/// [`ContextId`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a valid {what}: {detail}")]
pub struct ParseIdError {
    what: &'static str,
    detail: &'static str,
}

impl ParseIdError {
    fn new(what: &'static str, detail: &'static str) -> Self {
        ParseIdError { what, detail }
    }
}

fn bad_char(b: u8) -> &'static str {
    if b.is_ascii_whitespace() {
        "contains white space"
    } else {
        "contains a character the text grammar does not allow"
    }
}

impl fmt::Display for Mid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mid::Ip4(a) => a.fmt(f),
            Mid::Ip6(a) => a.fmt(f),
            Mid::Domain(d) => d.fmt(f),
            Mid::Device(d) => f.write_str(d),
            Mid::Mtp(m) => write!(f, "MTP{{{m}}}"),
        }
    }
}

fn fmt_port(port: Option<u16>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match port {
        Some(p) => write!(f, ":{p}"),
        None => Ok(()),
    }
}

impl fmt::Display for Ip4Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", Ipv4Addr::from(self.address))?;
        fmt_port(self.port, f)
    }
}

impl fmt::Display for Ip6Address {
    /// The groups the way Erlang/OTP's text encoder writes them (and the
    /// text encoder of this crate): zero runs compressed as OTP does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        ip6_text(&self.address, &mut |s| f.write_str(s))?;
        f.write_str("]")?;
        fmt_port(self.port, f)
    }
}

impl fmt::Display for DomainName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}>", self.name)?;
        fmt_port(self.port, f)
    }
}

/// Writes an IPv6 address's groups in Erlang/OTP's text form: the first
/// run of two or more zero groups is compressed (`::`), a single zero
/// group is written `0`, groups in lower-case hex without leading zeros.
pub(crate) fn ip6_text(
    address: &[u8; 16],
    out: &mut dyn FnMut(&str) -> fmt::Result,
) -> fmt::Result {
    let g: [u16; 8] =
        std::array::from_fn(|i| u16::from_be_bytes([address[2 * i], address[2 * i + 1]]));
    // The first run of at least two zero groups.
    let mut run: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < 8 {
        if g[i] == 0 {
            let start = i;
            while i < 8 && g[i] == 0 {
                i += 1;
            }
            if i - start >= 2 {
                run = Some((start, i));
                break;
            }
        } else {
            i += 1;
        }
    }
    let mut buf = String::with_capacity(5);
    let mut group = |x: u16, out: &mut dyn FnMut(&str) -> fmt::Result| {
        use fmt::Write;
        buf.clear();
        let _ = write!(buf, "{x:x}");
        out(&buf)
    };
    match run {
        None => {
            for (i, &x) in g.iter().enumerate() {
                if i > 0 {
                    out(":")?;
                }
                group(x, out)?;
            }
        }
        Some((start, end)) => {
            for (i, &x) in g[..start].iter().enumerate() {
                if i > 0 {
                    out(":")?;
                }
                group(x, out)?;
            }
            out("::")?;
            for (i, &x) in g[end..].iter().enumerate() {
                if i > 0 {
                    out(":")?;
                }
                group(x, out)?;
            }
        }
    }
    Ok(())
}

/// Splits `text` into the part before an optional `:port` and the port.
fn split_port<'a>(text: &'a str, close: &str) -> Result<(&'a str, Option<u16>), ParseIdError> {
    let Some(end) = text.find(close) else {
        return Err(ParseIdError::new("mid", "unclosed address"));
    };
    let (inner, rest) = (&text[..end], &text[end + close.len()..]);
    let port = match rest.strip_prefix(':') {
        None if rest.is_empty() => None,
        None => return Err(ParseIdError::new("mid", "text after the address")),
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(
            p.parse()
                .map_err(|_| ParseIdError::new("mid", "port above 65535"))?,
        ),
        Some(_) => return Err(ParseIdError::new("mid", "port is not a number")),
    };
    Ok((inner, port))
}

impl FromStr for Mid {
    type Err = ParseIdError;

    /// Parses the text encoding's `mId`: `[IPv4]`, `[IPv6]` or
    /// `<domain>`, each with an optional `:port`; `MTP{hex}`; or a device
    /// name. Names keep their case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(rest) = s.strip_prefix('[') {
            let (inner, port) = split_port(rest, "]")?;
            if inner.contains(':') {
                let a: Ipv6Addr = inner
                    .parse()
                    .map_err(|_| ParseIdError::new("mid", "bad IPv6 address"))?;
                Ok(Mid::Ip6(Ip6Address {
                    address: a.octets(),
                    port,
                }))
            } else {
                let a: Ipv4Addr = inner
                    .parse()
                    .map_err(|_| ParseIdError::new("mid", "bad IPv4 address"))?;
                Ok(Mid::Ip4(Ip4Address {
                    address: a.octets(),
                    port,
                }))
            }
        } else if let Some(rest) = s.strip_prefix('<') {
            let (name, port) = split_port(rest, ">")?;
            let ok = name
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
            if !ok || name.len() > 64 {
                return Err(ParseIdError::new("mid", "bad domain name"));
            }
            Ok(Mid::Domain(DomainName {
                name: name.into(),
                port,
            }))
        } else if s.len() > 3
            && s.as_bytes()[..3].eq_ignore_ascii_case(b"mtp")
            && s.as_bytes()[3] == b'{'
        {
            let hex = s[4..]
                .strip_suffix('}')
                .ok_or(ParseIdError::new("mid", "unclosed MTP address"))?;
            if !(4..=8).contains(&hex.len()) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(ParseIdError::new(
                    "mid",
                    "MTP address needs 4 to 8 hex digits",
                ));
            }
            Ok(Mid::Mtp(hex.into()))
        } else {
            let ok = s
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'*')
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"/*$_@.-".contains(&b));
            if !ok {
                return Err(ParseIdError::new(
                    "mid",
                    "expected `[address]`, `<domain>`, `MTP{hex}` or a device name",
                ));
            }
            Ok(Mid::Device(s.into()))
        }
    }
}

// ---- serde: text forms in human-readable formats ---------------------------

/// In human-readable formats a mid is its text form, unless that text
/// would not parse back to the same mid (a device name with characters
/// the grammar does not allow, say): then it is written in its structural
/// form (`{"device": "..."}`), which is also accepted, so that every model
/// value survives the trip.
#[cfg(feature = "serde")]
impl Serialize for Mid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            let text = self.to_string();
            if text.parse::<Mid>().as_ref() == Ok(self) {
                return s.serialize_str(&text);
            }
        }
        Mid::serialize(self, s)
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for Mid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Mid;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mid: its text form, or its structure")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Mid, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Mid, A::Error> {
                Mid::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        if d.is_human_readable() {
            d.deserialize_any(V)
        } else {
            Mid::deserialize(d)
        }
    }
}

#[cfg(feature = "serde")]
impl Serialize for TerminationId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for TerminationId {
    /// Any string: ids outside the text grammar (a binary codec's native
    /// form) are valid model values.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = TerminationId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a termination id")
            }
            fn visit_str<E>(self, v: &str) -> Result<TerminationId, E> {
                Ok(TerminationId::new(v))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(feature = "serde")]
impl Serialize for ContextId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.special() {
            Some(text) if s.is_human_readable() => s.serialize_str(text),
            _ => s.serialize_u32(self.0),
        }
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for ContextId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ContextId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a context id: `-`, `$`, `*` or a number")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ContextId, E> {
                u32::try_from(v)
                    .map(ContextId)
                    .map_err(|_| E::custom("context id above 4294967295"))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<ContextId, E> {
                u32::try_from(v)
                    .map(ContextId)
                    .map_err(|_| E::custom("context id out of range"))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ContextId, E> {
                v.parse().map_err(E::custom)
            }
        }
        if d.is_human_readable() {
            d.deserialize_any(V)
        } else {
            d.deserialize_u32(V)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip6_text_follows_otp() {
        let text = |s: &str| {
            let a: Ipv6Addr = s.parse().unwrap();
            let mut out = String::new();
            ip6_text(&a.octets(), &mut |p| {
                out.push_str(p);
                Ok(())
            })
            .unwrap();
            out
        };
        assert_eq!(text("2001:db8::1"), "2001:db8::1");
        assert_eq!(text("::1"), "::1");
        assert_eq!(text("::"), "::");
        assert_eq!(text("1::"), "1::");
        assert_eq!(text("0:1:0:2:0:0:0:3"), "0:1:0:2::3");
        assert_eq!(text("1:0:2:3:4:5:6:7"), "1:0:2:3:4:5:6:7");
    }

    #[test]
    fn mids_round_trip_their_text() {
        for s in [
            "[10.0.0.1]",
            "[10.0.0.1]:2944",
            "[::1]:2944",
            "<mg.example>",
            "<a-1.example>:7",
            "MTP{0000}",
            "MTP{12345678}",
            "mg/line_1",
        ] {
            assert_eq!(s.parse::<Mid>().unwrap().to_string(), s);
        }
        for bad in [
            "",
            "[10.0.0.1",
            "[10.0.0.1]x",
            "[10.0.0.1]:",
            "[10.0.0.1]:65536",
            "[1:2:3]",
            "<>",
            "<-a>",
            "MTP{123}",
            "MTP{12345678",
            "1abc",
            "a b",
        ] {
            assert!(bad.parse::<Mid>().is_err(), "{bad}");
        }
    }

    #[test]
    fn context_ids() {
        for (s, c) in [
            ("-", ContextId::NULL),
            ("$", ContextId::CHOOSE),
            ("*", ContextId::ALL),
            ("1", ContextId(1)),
            ("4294967293", ContextId(4294967293)),
        ] {
            assert_eq!(s.parse::<ContextId>().unwrap(), c);
            assert_eq!(c.to_string(), s);
        }
        for bad in ["", "x", "-1", "4294967296", " 1"] {
            assert!(bad.parse::<ContextId>().is_err(), "{bad}");
        }
    }
}
