//! BER → model. Components of a SEQUENCE are matched by tag and may come
//! in any order; tags a component list does not know (extension additions
//! of later versions) are skipped. Unknown alternatives of an extensible
//! CHOICE are skipped where the CHOICE is an element of a list, and an
//! error elsewhere.

use super::header::usual_header;
use super::reader::{
    bad_value, missing_at, too_large, trailing_data, truncated, unexpected_tag,
    unsupported_version, Cursor, Input, Span, MAX_DEPTH, MAX_INPUT,
};
use super::{BerConfig, Dialect, EventLevel, Mapping};
use crate::asn1::enums::{Enumerated, NamedBits};
use crate::asn1::names::{ItemKind, NameRegistry};
use crate::asn1::termid::{self, AsnTermId, TermIdLevels};
use crate::asn1::values::{self, ValueType};
use crate::error::DecodeError;
use crate::model::*;
use crate::Limits;

// The walk, by descriptor family (the same files as `model/`).
mod audit;
mod commands;
mod events;
mod media;
mod message;
mod replies;
mod service_change;
mod signals;

type D<T> = Result<T, DecodeError>;

/// The decoder: the input it reads and how it maps names and ids.
///
/// TLVs are passed around as [`Span`]s, two words that travel in
/// registers, and read through the input (`self.children(t)`,
/// `self.next(&mut c)`, `self.u32v(t, ..)`: `Dec` dereferences to its
/// [`Input`]). A TLV that carried its input went through memory at every
/// call and every step of a loop.
struct Dec<'a> {
    input: Input<'a>,
    reg: &'a NameRegistry,
    levels: Option<&'a TermIdLevels>,
    standard: bool,
    native: bool,
}

impl<'a> std::ops::Deref for Dec<'a> {
    type Target = Input<'a>;

    #[inline]
    fn deref(&self) -> &Input<'a> {
        &self.input
    }
}

pub(super) fn decode_message(bytes: &[u8], cfg: &BerConfig) -> D<MegacoMessage> {
    decode_with(bytes, cfg, true)
}

/// [`decode_message`] without the pass for the usual header (for the
/// tests that compare the two).
#[cfg(test)]
pub(super) fn decode_message_general(bytes: &[u8], cfg: &BerConfig) -> D<MegacoMessage> {
    decode_with(bytes, cfg, false)
}

/// Decodes `bytes`, trying the usual header's pass first when
/// `usual_pass` (see [`super::header`]).
#[inline(always)]
fn decode_with(bytes: &[u8], cfg: &BerConfig, usual_pass: bool) -> D<MegacoMessage> {
    static EMPTY: std::sync::OnceLock<NameRegistry> = std::sync::OnceLock::new();
    let (reg, levels, native) = match &cfg.mapping {
        Mapping::Text(l) => (&*cfg.registry, Some(l), false),
        Mapping::Native => (EMPTY.get_or_init(NameRegistry::empty), None, true),
    };
    if bytes.len() > cfg.limits.max_message_size {
        return Err(too_large(bytes.len(), cfg.limits.max_message_size));
    }
    let limits = Limits {
        max_depth: cfg.limits.max_depth.max(1),
        ..cfg.limits
    };
    let d = Dec {
        input: Input::new(bytes, &limits),
        reg,
        levels,
        standard: cfg.dialect == Dialect::Standard,
        native,
    };
    if usual_pass {
        if let Some(h) = usual_header(bytes, &limits) {
            return d.usual_message(h.version, h.mid, h.transactions);
        }
    }
    let (top, end) = top_level(bytes, &limits)?;
    if end < bytes.len() {
        return Err(trailing_data(end, bytes.len()));
    }
    d.megaco_message(top)
}

/// The outer `MegacoMessage` SEQUENCE and the offset after it.
pub(super) fn top_level(bytes: &[u8], limits: &Limits) -> D<(Span, usize)> {
    if bytes.len() > MAX_INPUT {
        return Err(too_large(bytes.len(), MAX_INPUT));
    }
    let input = Input::new(bytes, limits);
    let mut r = input.cursor();
    let top = input
        .next(&mut r)?
        .ok_or_else(|| truncated(0, "MegacoMessage"))?;
    expect(top, 0x30, "MegacoMessage (SEQUENCE, tag 0x30)")?;
    Ok((top, r.pos()))
}

/// The version of a message, from its header alone.
pub(super) fn version_of(bytes: &[u8]) -> D<u8> {
    let (top, _) = top_level(bytes, &Limits::DEFAULT)?;
    let input = Input::new(bytes, &Limits::DEFAULT);
    // The decoder keeps the last `[1] Message` if there are several.
    let mut c = input.children(top)?;
    let mut message = None;
    while let Some(x) = input.next(&mut c)? {
        if x.tag() == 0xA1 {
            message = Some(x);
        }
    }
    let m = message.ok_or_else(|| missing(top, "Message"))?;
    input.message_version(m, &mut input.children(m)?)
}

// ---- primitive helpers -------------------------------------------------

#[inline]
pub(super) fn expect(t: Span, tag: u8, what: &'static str) -> D<()> {
    if t.tag() == tag {
        Ok(())
    } else {
        Err(unexpected_tag(t.offset(), what, t.tag()))
    }
}

#[inline]
pub(super) fn bad(t: Span, expected: &'static str) -> DecodeError {
    bad_value(t.offset(), expected)
}

#[inline]
pub(super) fn missing(t: Span, expected: &'static str) -> DecodeError {
    missing_at(t.end(), expected)
}

/// Octets as text: nearly always valid UTF-8 (ASCII), checked once and
/// copied once.
#[inline]
pub(super) fn text(c: &[u8]) -> CompactString {
    match std::str::from_utf8(c) {
        Ok(s) => CompactString::new(s),
        Err(_) => CompactString::from_utf8_lossy(c),
    }
}

/// The values of primitive TLVs, read through the input (the owned
/// decoder and the view both).
impl Input<'_> {
    /// `Message.version`, the first component of `Message` `t` (read
    /// from `r`, a cursor over its components): it tells which module the
    /// rest follows.
    pub(super) fn message_version(&self, t: Span, r: &mut Cursor) -> D<u8> {
        let first = self.next(r)?.ok_or_else(|| missing(t, "Message.version"))?;
        self.version(first)
    }

    /// `Message.version` from its TLV `first`.
    #[inline]
    pub(super) fn version(&self, first: Span) -> D<u8> {
        expect(first, 0x80, "Message.version [0] INTEGER")?;
        let version = self.uint(first, u64::MAX, "version INTEGER")?;
        if !(1..=3).contains(&version) {
            return Err(unsupported_version(first.offset(), version));
        }
        Ok(version as u8)
    }

    /// A non-negative INTEGER (or ENUMERATED) no larger than `max`.
    #[inline]
    pub(super) fn uint(&self, t: Span, max: u64, what: &'static str) -> D<u64> {
        let c = self.content(t);
        if c.is_empty() || c.len() > 9 || c[0] & 0x80 != 0 || (c.len() == 9 && c[0] != 0) {
            return Err(bad(t, what));
        }
        let mut v: u64 = 0;
        for &b in c {
            v = (v << 8) | u64::from(b);
        }
        if v > max {
            return Err(bad(t, what));
        }
        Ok(v)
    }

    #[inline]
    fn u8v(&self, t: Span, max: u8, what: &'static str) -> D<u8> {
        Ok(self.uint(t, u64::from(max), what)? as u8)
    }

    #[inline]
    pub(super) fn u16v(&self, t: Span, what: &'static str) -> D<u16> {
        Ok(self.uint(t, 0xFFFF, what)? as u16)
    }

    #[inline]
    pub(super) fn u32v(&self, t: Span, what: &'static str) -> D<u32> {
        Ok(self.uint(t, 0xFFFF_FFFF, what)? as u32)
    }

    #[inline]
    fn boolean(&self, t: Span) -> D<bool> {
        match self.content(t) {
            [b] => Ok(*b != 0),
            _ => Err(bad(t, "BOOLEAN (one octet)")),
        }
    }

    #[inline]
    pub(super) fn null(&self, t: Span) -> D<bool> {
        if self.content(t).is_empty() {
            Ok(true)
        } else {
            Err(bad(t, "NULL (no content)"))
        }
    }

    #[inline]
    pub(super) fn string(&self, t: Span) -> CompactString {
        text(self.content(t))
    }

    #[inline]
    pub(super) fn fixed<const N: usize>(&self, t: Span, what: &'static str) -> D<[u8; N]> {
        self.content(t).try_into().map_err(|_| bad(t, what))
    }

    /// An ENUMERATED, by its number in the table of `asn1::enums`.
    #[inline]
    fn enumerated<T: Enumerated>(&self, t: Span, what: &'static str) -> D<T> {
        T::from_number(self.uint(t, u64::from(u32::MAX), what)?).ok_or_else(|| bad(t, what))
    }

    /// The set bits of a BIT STRING, as indices into `table` (bits beyond
    /// the table, e.g. from a later version, are ignored).
    fn bit_list<T: NamedBits>(&self, t: Span) -> D<Vec<T>> {
        let c = self.content(t);
        let Some((&unused, bits)) = c.split_first() else {
            return Err(bad(t, "BIT STRING"));
        };
        if unused > 7 || (bits.is_empty() && unused != 0) {
            return Err(bad(t, "BIT STRING"));
        }
        let mut out = Vec::new();
        for named in T::BITS {
            let i = named.number as usize;
            if bits.get(i / 8).is_some_and(|b| b & (0x80 >> (i % 8)) != 0) {
                out.push(named.value);
            }
        }
        Ok(out)
    }

    /// The `TerminationID` `t` in its ASN.1 form (the owned decoder's
    /// general way and the view's): the usual shape at once, anything
    /// else component by component.
    #[inline]
    pub(super) fn asn_term_id(&self, t: Span) -> D<AsnTermId> {
        match self.plain_id(t) {
            Some(id) => {
                AsnTermId::new(id, &[]).map_err(|_| bad(t, "TerminationID.id of 1 to 8 octets"))
            }
            None => self.asn_term_id_components(t),
        }
    }

    /// [`Self::asn_term_id`] component by component: any order, any
    /// wildcards.
    fn asn_term_id_components(&self, t: Span) -> D<AsnTermId> {
        let mut wild = [0u8; termid::MAX_WILDCARDS];
        let mut nw = 0;
        let mut id: Option<&[u8]> = None;
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => {
                    // A repeated component: the last one counts.
                    nw = 0;
                    let mut w = self.children(x)?;
                    while let Some(o) = self.next(&mut w)? {
                        expect(o, 0x04, "WildcardField (OCTET STRING)")?;
                        let [b] = self.fixed::<1>(o, "WildcardField (1 octet)")?;
                        if nw == termid::MAX_WILDCARDS {
                            return Err(bad(o, "at most 16 wildcard octets"));
                        }
                        wild[nw] = b;
                        nw += 1;
                    }
                }
                0x81 => id = Some(self.content(x)),
                _ => {}
            }
        }
        let id = id.ok_or_else(|| missing(t, "TerminationID.id"))?;
        AsnTermId::new(id, &wild[..nw]).map_err(|_| bad(t, "TerminationID.id of 1 to 8 octets"))
    }

    /// The first component of the constructed value `t` (a CHOICE's
    /// alternative).
    #[inline(always)]
    pub(super) fn first(&self, t: Span, what: &'static str) -> D<Span> {
        self.next(&mut self.children(t)?)?
            .ok_or_else(|| missing(t, what))
    }

    /// An MTP address (2 to 4 octets): as hex text in the standard
    /// dialect, as the characters themselves in OTP's.
    pub(super) fn mtp(&self, t: Span, standard: bool) -> D<CompactString> {
        let c = self.content(t);
        if !(2..=4).contains(&c.len()) {
            return Err(bad(t, "mtpAddress of 2 to 4 octets"));
        }
        if !standard {
            return Ok(text(c));
        }
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let mut s = CompactString::with_capacity(c.len() * 2);
        for &b in c {
            s.push(HEX[usize::from(b >> 4)] as char);
            s.push(HEX[usize::from(b & 0xF)] as char);
        }
        Ok(s)
    }

    /// The `id` of the usual `TerminationID` `t`: an empty `wildcard [0]`
    /// (or none) then `id [1]` of 1 to 8 octets, short lengths, within
    /// limits that let the general reader take it as it is. `None` for
    /// anything else, which [`Dec::term_id`] reads component by component.
    #[inline]
    fn plain_id(&self, t: Span) -> Option<&[u8]> {
        let id = plain_id_octets(self.content(t))?;
        let l = self.limits();
        // What the general reader would check: `t` and its wildcard list
        // opened (two levels below `t`), two components read, the id's
        // length.
        let fits = t.tag() & 0x20 != 0
            && t.depth() + 1 < l.max_depth.min(MAX_DEPTH)
            && l.max_list_len >= 2
            && id.len() <= l.max_string_len;
        fits.then_some(id)
    }
}

impl Dec<'_> {
    fn pkgd(&self, t: Span, kind: ItemKind) -> D<(CompactString, [u8; 4])> {
        let code: [u8; 4] = self.fixed(t, "PkgdName (4 octets)")?;
        if let Some(n) = self.reg.known_pkgd_name(kind, code) {
            return Ok((n.clone(), code));
        }
        let mut s = String::new();
        self.reg.decode_pkgd_name(kind, code, &mut s);
        Ok((s.into(), code))
    }

    fn param_name(&self, t: Span, kind: ItemKind, item: [u8; 4]) -> D<(CompactString, [u8; 2])> {
        let code: [u8; 2] = self.fixed(t, "Name (2 octets)")?;
        if let Some(n) = self.reg.known_parameter(kind, item, code) {
            return Ok((n.clone(), code));
        }
        let mut s = String::new();
        self.reg.decode_parameter(kind, item, code, &mut s);
        Ok((s.into(), code))
    }

    fn package_name(&self, t: Span) -> D<String> {
        let code: [u8; 2] = self.fixed(t, "Name (2 octets)")?;
        let mut s = String::new();
        self.reg.decode_package(code, &mut s);
        Ok(s)
    }

    fn digit_map_name(&self, t: Span) -> D<CompactString> {
        let code: [u8; 2] = self.fixed(t, "digit map Name (2 octets)")?;
        let mut s = String::new();
        if self.native {
            crate::asn1::push_hex16(&mut s, u16::from_be_bytes(code));
        } else {
            self.reg.decode_digit_map(code, &mut s);
        }
        Ok(s.into())
    }

    /// A `TerminationID` in the model's form: the usual one written from
    /// its octets at once, any other mapped from its ASN.1 form.
    fn term_id(&self, t: Span) -> D<TerminationId> {
        if let (Some(id), Some(levels)) = (self.plain_id(t), self.levels) {
            if let Some(tid) = termid::octet_text(id, levels) {
                return Ok(tid);
            }
        }
        Ok(termid::to_model(&self.asn_term_id(t)?, self.levels))
    }

    fn term_ids(&self, t: Span) -> D<SmallList<TerminationId>> {
        let mut v = SmallList::new();
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            expect(x, 0x30, "TerminationID (SEQUENCE)")?;
            v.push(self.term_id(x)?);
        }
        Ok(v)
    }

    fn value(&self, t: Span, ty: Option<&ValueType>) -> D<Values> {
        let mut v = Values::new();
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            expect(x, 0x04, "Value item (OCTET STRING)")?;
            let content = self.content(x);
            let mut s = String::new();
            if self.standard && values::unwrap(ty, content, &mut s) {
                v.push(s.into());
            } else {
                v.push(self.string(x));
            }
        }
        Ok(v)
    }

    fn extra_info(&self, t: Span) -> D<Option<ExtraInfo>> {
        let mut r = self.children(t)?;
        let Some(x) = self.next(&mut r)? else {
            return Err(missing(t, "extraInfo alternative"));
        };
        Ok(match x.tag() {
            0x80 => Some(ExtraInfo::Relation(self.enumerated(x, "Relation")?)),
            0x81 => Some(ExtraInfo::Range(self.boolean(x)?)),
            0x82 => Some(ExtraInfo::Sublist(self.boolean(x)?)),
            _ => None,
        })
    }

    // ---- message --------------------------------------------------------

    // Decoding writes into place: each list element is pushed empty and
    // filled through a reference, so the large values (transactions,
    // actions, commands) are built where they stay instead of being moved
    // up through every `Result`.
}

/// The id octets of a `TerminationID`'s content of the usual shape.
#[inline]
fn plain_id_octets(content: &[u8]) -> Option<&[u8]> {
    match content {
        [0xA0, 0x00, 0x81, n, id @ ..] | [0x81, n, id @ ..]
            if usize::from(*n) == id.len() && (1..=8).contains(&id.len()) =>
        {
            Some(id)
        }
        _ => None,
    }
}

fn oid(t: Span, c: &[u8]) -> D<Vec<u32>> {
    let mut arcs = Vec::new();
    let mut v: u64 = 0;
    let mut first = true;
    for (i, &b) in c.iter().enumerate() {
        if v > (u64::from(u32::MAX) << 1) {
            return Err(bad(t, "OBJECT IDENTIFIER arcs below 2^32"));
        }
        v = (v << 7) | u64::from(b & 0x7F);
        if b & 0x80 == 0 {
            if first {
                let (a, b2) = if v < 40 {
                    (0, v)
                } else if v < 80 {
                    (1, v - 40)
                } else {
                    (2, v - 80)
                };
                arcs.push(a as u32);
                arcs.push(
                    u32::try_from(b2).map_err(|_| bad(t, "OBJECT IDENTIFIER arcs below 2^32"))?,
                );
                first = false;
            } else {
                arcs.push(
                    u32::try_from(v).map_err(|_| bad(t, "OBJECT IDENTIFIER arcs below 2^32"))?,
                );
            }
            v = 0;
        } else if i + 1 == c.len() {
            return Err(bad(t, "OBJECT IDENTIFIER"));
        }
    }
    if arcs.is_empty() {
        return Err(bad(t, "OBJECT IDENTIFIER"));
    }
    Ok(arcs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TLV of `content` with a short length.
    fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
        let mut v = vec![tag, content.len() as u8];
        v.extend_from_slice(content);
        v
    }

    /// Of two wildcard lists in one id, the last counts, as for every
    /// repeated component, and as the view reads it: the first list's
    /// wildcard is not kept.
    #[test]
    fn a_repeated_wildcard_list_replaces_the_one_before() {
        let cfg = BerConfig::otp();
        let Mapping::Text(levels) = &cfg.mapping else {
            unreachable!("OTP's configuration maps ids to text")
        };
        let id = tlv(0x81, &[0xFF, 0xFF, 0x00]);
        let choose = tlv(0xA0, &tlv(0x04, &[0x57]));
        let none = tlv(0xA0, &[]);
        for (parts, text) in [
            (vec![&choose[..], &none, &id], "11111111/11111111/00000000"),
            (vec![&none[..], &choose, &id], "$"),
            (vec![&choose[..], &choose, &id], "$"),
        ] {
            let bytes = tlv(0x30, &parts.concat());
            let d = Dec {
                input: Input::new(&bytes, &Limits::DEFAULT),
                reg: &cfg.registry,
                levels: Some(levels),
                standard: false,
                native: false,
            };
            let t = d.next(&mut d.cursor()).unwrap().unwrap();
            assert_eq!(d.term_id(t).unwrap().as_str(), text);
        }
    }

    /// Where every TLV of `bytes` whose content has the usual termination
    /// id's shape lies.
    fn plain_ids(bytes: &[u8]) -> Vec<Span> {
        fn walk(input: Input<'_>, mut r: Cursor, out: &mut Vec<Span>) {
            while let Some(x) = input.next(&mut r).unwrap() {
                if plain_id_octets(input.content(x)).is_some() {
                    out.push(x);
                }
                if let Ok(c) = input.children(x) {
                    walk(input, c, out);
                }
            }
        }
        let mut out = Vec::new();
        let input = Input::new(bytes, &Limits::DEFAULT);
        walk(input, input.cursor(), &mut out);
        out
    }

    /// The usual termination id's pass gives what reading its components
    /// gives, in the model's form and in the ASN.1 form the view takes,
    /// for every id of the corpus, under limits around those it needs
    /// (what the general reader would refuse, it leaves to it).
    #[test]
    fn plain_ids_read_as_their_components() {
        let cfg = BerConfig::otp();
        let Mapping::Text(levels) = &cfg.mapping else {
            unreachable!("OTP's configuration maps ids to text")
        };
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vectors/ber");
        let (mut taken, mut refused) = (0, 0);
        for e in std::fs::read_dir(dir).unwrap() {
            let bytes = std::fs::read(e.unwrap().path()).unwrap();
            let ids = plain_ids(&bytes);
            for depth in 6..24 {
                for (list, string) in [(1, 8), (2, 2), (2, 3), (2, 7), (2, 8), (64, 64)] {
                    let limits = Limits {
                        max_depth: depth,
                        max_list_len: list,
                        max_string_len: string,
                        ..Limits::DEFAULT
                    };
                    let d = Dec {
                        input: Input::new(&bytes, &limits),
                        reg: &cfg.registry,
                        levels: Some(levels),
                        standard: false,
                        native: false,
                    };
                    for &t in &ids {
                        // The component reader, and the model's id of it.
                        let asn = d.asn_term_id_components(t);
                        let general = asn
                            .as_ref()
                            .map(|a| termid::to_model(a, d.levels))
                            .map_err(|e| e.to_string());
                        assert_eq!(d.term_id(t).map_err(|e| e.to_string()), general);
                        assert_eq!(d.asn_term_id(t), asn);
                        taken += usize::from(d.plain_id(t).is_some());
                        refused += usize::from(general.is_err());
                    }
                }
            }
        }
        // Both the pass and the limits' refusals were reached.
        assert!(
            taken > 500 && refused > 1000,
            "{taken} ids taken, {refused} refused"
        );
    }
}
