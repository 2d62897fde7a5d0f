//! BER → model. Components of a SEQUENCE are matched by tag and may come
//! in any order; tags a component list does not know (extension additions
//! of later versions) are skipped. Unknown alternatives of an extensible
//! CHOICE are skipped where the CHOICE is an element of a list, and an
//! error elsewhere.

use super::reader::{
    bad_value, missing_at, too_large, trailing_data, truncated, unexpected_tag,
    unsupported_version, Reader, Tlv,
};
use super::{BerConfig, Dialect, Mapping};
use crate::asn1::enums::{Enumerated, NamedBits};
use crate::asn1::names::{ItemKind, NameRegistry};
use crate::asn1::termid::{self, AsnTermId, TermIdLevels};
use crate::asn1::values::{self, ValueType};
use crate::error::DecodeError;
use crate::model::*;
use crate::Limits;

type D<T> = Result<T, DecodeError>;

struct Dec<'c> {
    reg: &'c NameRegistry,
    levels: Option<&'c TermIdLevels>,
    standard: bool,
    native: bool,
}

pub(super) fn decode_message(bytes: &[u8], cfg: &BerConfig) -> D<MegacoMessage> {
    static EMPTY: std::sync::OnceLock<NameRegistry> = std::sync::OnceLock::new();
    let (reg, levels, native) = match &cfg.mapping {
        Mapping::Text(l) => (&*cfg.registry, Some(l), false),
        Mapping::Native => (EMPTY.get_or_init(NameRegistry::empty), None, true),
    };
    let d = Dec {
        reg,
        levels,
        standard: cfg.dialect == Dialect::Standard,
        native,
    };
    if bytes.len() > cfg.limits.max_message_size {
        return Err(too_large(bytes.len(), cfg.limits.max_message_size));
    }
    let limits = Limits {
        max_depth: cfg.limits.max_depth.max(1),
        ..cfg.limits
    };
    let (top, end) = top_level(bytes, &limits)?;
    if end < bytes.len() {
        return Err(trailing_data(end, bytes.len()));
    }
    d.megaco_message(&top)
}

/// The outer `MegacoMessage` SEQUENCE and the offset after it.
pub(super) fn top_level<'a>(bytes: &'a [u8], limits: &'a Limits) -> D<(Tlv<'a>, usize)> {
    let mut r = Reader::new(bytes, limits);
    let top = r.next()?.ok_or_else(|| truncated(0, "MegacoMessage"))?;
    expect(&top, 0x30, "MegacoMessage (SEQUENCE, tag 0x30)")?;
    Ok((top, r.pos()))
}

/// The version of a message, from its header alone.
pub(super) fn version_of(bytes: &[u8]) -> D<u8> {
    let (top, _) = top_level(bytes, &Limits::DEFAULT)?;
    // The decoder keeps the last `[1] Message` if there are several.
    let mut c = top.children()?;
    let mut message = None;
    while let Some(x) = c.next()? {
        if x.tag == 0xA1 {
            message = Some(x);
        }
    }
    let m = message.ok_or_else(|| missing(&top, "Message"))?;
    message_version(&m, &mut m.children()?)
}

/// `Message.version`, the first component of `Message` `t` (read from
/// `r`, a reader over its components): it tells which module the rest
/// follows.
pub(super) fn message_version(t: &Tlv, r: &mut Reader) -> D<u8> {
    let first = r.next()?.ok_or_else(|| missing(t, "Message.version"))?;
    expect(&first, 0x80, "Message.version [0] INTEGER")?;
    let version = uint(&first, u64::MAX, "version INTEGER")?;
    if !(1..=3).contains(&version) {
        return Err(unsupported_version(first.offset, version));
    }
    Ok(version as u8)
}

// ---- primitive helpers -------------------------------------------------

#[inline]
pub(super) fn expect(t: &Tlv, tag: u8, what: &'static str) -> D<()> {
    if t.tag == tag {
        Ok(())
    } else {
        Err(unexpected_tag(t.offset, what, t.tag))
    }
}

#[inline]
pub(super) fn bad(t: &Tlv, expected: &'static str) -> DecodeError {
    bad_value(t.offset, expected)
}

#[inline]
pub(super) fn missing(t: &Tlv, expected: &'static str) -> DecodeError {
    missing_at(t.end, expected)
}

/// A non-negative INTEGER (or ENUMERATED) no larger than `max`.
#[inline]
pub(super) fn uint(t: &Tlv, max: u64, what: &'static str) -> D<u64> {
    let c = t.content();
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
fn u8v(t: &Tlv, max: u8, what: &'static str) -> D<u8> {
    Ok(uint(t, u64::from(max), what)? as u8)
}

#[inline]
pub(super) fn u16v(t: &Tlv, what: &'static str) -> D<u16> {
    Ok(uint(t, 0xFFFF, what)? as u16)
}

#[inline]
pub(super) fn u32v(t: &Tlv, what: &'static str) -> D<u32> {
    Ok(uint(t, 0xFFFF_FFFF, what)? as u32)
}

#[inline]
fn boolean(t: &Tlv) -> D<bool> {
    match t.content() {
        [b] => Ok(*b != 0),
        _ => Err(bad(t, "BOOLEAN (one octet)")),
    }
}

#[inline]
pub(super) fn null(t: &Tlv) -> D<bool> {
    if t.content().is_empty() {
        Ok(true)
    } else {
        Err(bad(t, "NULL (no content)"))
    }
}

#[inline]
pub(super) fn string(t: &Tlv) -> CompactString {
    CompactString::from_utf8_lossy(t.content())
}

#[inline]
pub(super) fn fixed<const N: usize>(t: &Tlv, what: &'static str) -> D<[u8; N]> {
    t.content().try_into().map_err(|_| bad(t, what))
}

/// An ENUMERATED, by its number in the table of `asn1::enums`.
#[inline]
fn enumerated<T: Enumerated>(t: &Tlv, what: &'static str) -> D<T> {
    T::from_number(uint(t, u64::from(u32::MAX), what)?).ok_or_else(|| bad(t, what))
}

/// The set bits of a BIT STRING, as indices into `table` (bits beyond the
/// table, e.g. from a later version, are ignored).
fn bit_list<T: NamedBits>(t: &Tlv) -> D<Vec<T>> {
    let c = t.content();
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

impl Dec<'_> {
    // ---- mapped values ------------------------------------------------

    fn pkgd(&self, t: &Tlv, kind: ItemKind) -> D<(CompactString, [u8; 4])> {
        let code: [u8; 4] = fixed(t, "PkgdName (4 octets)")?;
        if let Some(n) = self.reg.known_pkgd_name(kind, code) {
            return Ok((n.into(), code));
        }
        let mut s = String::new();
        self.reg.decode_pkgd_name(kind, code, &mut s);
        Ok((s.into(), code))
    }

    fn param_name(&self, t: &Tlv, kind: ItemKind, item: [u8; 4]) -> D<(CompactString, [u8; 2])> {
        let code: [u8; 2] = fixed(t, "Name (2 octets)")?;
        if let Some(n) = self.reg.known_parameter(kind, item, code) {
            return Ok((n.into(), code));
        }
        let mut s = String::new();
        self.reg.decode_parameter(kind, item, code, &mut s);
        Ok((s.into(), code))
    }

    fn package_name(&self, t: &Tlv) -> D<String> {
        let code: [u8; 2] = fixed(t, "Name (2 octets)")?;
        let mut s = String::new();
        self.reg.decode_package(code, &mut s);
        Ok(s)
    }

    fn digit_map_name(&self, t: &Tlv) -> D<CompactString> {
        let code: [u8; 2] = fixed(t, "digit map Name (2 octets)")?;
        let mut s = String::new();
        if self.native {
            crate::asn1::push_hex16(&mut s, u16::from_be_bytes(code));
        } else {
            self.reg.decode_digit_map(code, &mut s);
        }
        Ok(s.into())
    }

    fn term_id(&self, t: &Tlv) -> D<TerminationId> {
        let mut wild = [0u8; termid::MAX_WILDCARDS];
        let mut nw = 0;
        let mut id: Option<&[u8]> = None;
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => {
                    let mut w = x.children()?;
                    while let Some(o) = w.next()? {
                        expect(&o, 0x04, "WildcardField (OCTET STRING)")?;
                        let [b] = fixed::<1>(&o, "WildcardField (1 octet)")?;
                        if nw == termid::MAX_WILDCARDS {
                            return Err(bad(&o, "at most 16 wildcard octets"));
                        }
                        wild[nw] = b;
                        nw += 1;
                    }
                }
                0x81 => id = Some(x.content()),
                _ => {}
            }
        }
        let id = id.ok_or_else(|| missing(t, "TerminationID.id"))?;
        let asn = AsnTermId::new(id, &wild[..nw])
            .map_err(|_| bad(t, "TerminationID.id of 1 to 8 octets"))?;
        Ok(termid::to_model(&asn, self.levels))
    }

    fn term_ids(&self, t: &Tlv) -> D<SmallList<TerminationId>> {
        let mut v = SmallList::new();
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            expect(&x, 0x30, "TerminationID (SEQUENCE)")?;
            v.push(self.term_id(&x)?);
        }
        Ok(v)
    }

    fn value(&self, t: &Tlv, ty: Option<&ValueType>) -> D<Values> {
        let mut v = Values::new();
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            expect(&x, 0x04, "Value item (OCTET STRING)")?;
            let content = x.content();
            let mut s = String::new();
            if self.standard && values::unwrap(ty, content, &mut s) {
                v.push(s.into());
            } else {
                v.push(string(&x));
            }
        }
        Ok(v)
    }

    fn extra_info(&self, t: &Tlv) -> D<Option<ExtraInfo>> {
        let mut r = t.children()?;
        let Some(x) = r.next()? else {
            return Err(missing(t, "extraInfo alternative"));
        };
        Ok(match x.tag {
            0x80 => Some(ExtraInfo::Relation(enumerated(&x, "Relation")?)),
            0x81 => Some(ExtraInfo::Range(boolean(&x)?)),
            0x82 => Some(ExtraInfo::Sublist(boolean(&x)?)),
            _ => None,
        })
    }

    // ---- message --------------------------------------------------------

    fn megaco_message(&self, t: &Tlv) -> D<MegacoMessage> {
        let mut auth = None;
        let mut mess = None;
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => auth = Some(self.auth(&x)?),
                0xA1 => mess = Some(self.message(&x)?),
                _ => {}
            }
        }
        Ok(MegacoMessage {
            auth_header: auth,
            mess: mess.ok_or_else(|| missing(t, "Message"))?,
        })
    }

    fn auth(&self, t: &Tlv) -> D<AuthenticationHeader> {
        let (mut spi, mut sn, mut ad) = (None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => {
                    spi = Some(u32::from_be_bytes(fixed(
                        &x,
                        "SecurityParmIndex (4 octets)",
                    )?))
                }
                0x81 => sn = Some(u32::from_be_bytes(fixed(&x, "SequenceNum (4 octets)")?)),
                0x82 => ad = Some(x.content().to_vec()),
                _ => {}
            }
        }
        Ok(AuthenticationHeader {
            sec_parm_index: spi.ok_or_else(|| missing(t, "secParmIndex"))?,
            seq_num: sn.ok_or_else(|| missing(t, "seqNum"))?,
            ad: ad.ok_or_else(|| missing(t, "ad"))?,
        })
    }

    fn message(&self, t: &Tlv) -> D<Message> {
        let mut r = t.children()?;
        let version = message_version(t, &mut r)?;
        let (mut mid, mut body) = (None, None);
        while let Some(x) = r.next()? {
            match x.tag {
                0xA1 => mid = Some(self.mid_choice(&x)?),
                0xA2 => {
                    let mut c = x.children()?;
                    let alt = c
                        .next()?
                        .ok_or_else(|| missing(&x, "messageBody alternative"))?;
                    body = Some(match alt.tag {
                        0xA0 => MessageBody::Error(self.error_descriptor(&alt)?),
                        0xA1 => {
                            let mut ts = SmallList::new();
                            let mut l = alt.children()?;
                            while let Some(tr) = l.next()? {
                                if let Some(tr) = self.transaction(&tr)? {
                                    ts.push(tr);
                                }
                            }
                            MessageBody::Transactions(ts)
                        }
                        _ => {
                            return Err(unexpected_tag(
                                alt.offset,
                                "messageError [0] or transactions [1]",
                                alt.tag,
                            ))
                        }
                    });
                }
                _ => {}
            }
        }
        Ok(Message {
            version,
            mid: mid.ok_or_else(|| missing(t, "Message.mId"))?,
            body: body.ok_or_else(|| missing(t, "Message.messageBody"))?,
        })
    }

    /// An explicitly tagged MId.
    fn mid_choice(&self, t: &Tlv) -> D<Mid> {
        let mut c = t.children()?;
        let alt = c.next()?.ok_or_else(|| missing(t, "MId alternative"))?;
        Ok(match alt.tag {
            0xA0 => Mid::Ip4(self.ip4(&alt)?),
            0xA1 => Mid::Ip6(self.ip6(&alt)?),
            0xA2 => Mid::Domain(self.domain(&alt)?),
            0x83 => Mid::Device(string(&alt)),
            0x84 => Mid::Mtp(mtp(&alt, self.standard)?),
            _ => return Err(unexpected_tag(alt.offset, "an MId alternative", alt.tag)),
        })
    }

    fn ip4(&self, t: &Tlv) -> D<Ip4Address> {
        let (mut a, mut port) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => a = Some(fixed(&x, "IPv4 address (4 octets)")?),
                0x81 => port = Some(u16v(&x, "port number")?),
                _ => {}
            }
        }
        Ok(Ip4Address {
            address: a.ok_or_else(|| missing(t, "IP4Address.address"))?,
            port,
        })
    }

    fn ip6(&self, t: &Tlv) -> D<Ip6Address> {
        let (mut a, mut port) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => a = Some(fixed(&x, "IPv6 address (16 octets)")?),
                0x81 => port = Some(u16v(&x, "port number")?),
                _ => {}
            }
        }
        Ok(Ip6Address {
            address: a.ok_or_else(|| missing(t, "IP6Address.address"))?,
            port,
        })
    }

    fn domain(&self, t: &Tlv) -> D<DomainName> {
        let (mut n, mut port) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => n = Some(string(&x)),
                0x81 => port = Some(u16v(&x, "port number")?),
                _ => {}
            }
        }
        Ok(DomainName {
            name: n.ok_or_else(|| missing(t, "DomainName.name"))?,
            port,
        })
    }

    fn error_descriptor(&self, t: &Tlv) -> D<ErrorDescriptor> {
        let (mut code, mut text) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => code = Some(u16v(&x, "ErrorCode 0..65535")?),
                0x81 => text = Some(string(&x)),
                _ => {}
            }
        }
        Ok(ErrorDescriptor {
            error_code: code.ok_or_else(|| missing(t, "errorCode"))?,
            error_text: text,
        })
    }

    fn transaction(&self, t: &Tlv) -> D<Option<Transaction>> {
        Ok(Some(match t.tag {
            0xA0 => {
                let (mut id, mut actions) = (None, None);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0x80 => id = Some(u32v(&x, "TransactionId")?),
                        0xA1 => {
                            let mut v = SmallList::new();
                            let mut l = x.children()?;
                            while let Some(a) = l.next()? {
                                expect(&a, 0x30, "ActionRequest (SEQUENCE)")?;
                                v.push(self.action_request(&a)?);
                            }
                            actions = Some(v);
                        }
                        _ => {}
                    }
                }
                Transaction::Request(TransactionRequest {
                    transaction_id: id.ok_or_else(|| missing(t, "transactionId"))?,
                    actions: actions.ok_or_else(|| missing(t, "actions"))?,
                })
            }
            0xA1 => {
                let mut id = None;
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    if x.tag == 0x80 {
                        id = Some(u32v(&x, "TransactionId")?);
                    }
                }
                Transaction::Pending(TransactionPending {
                    transaction_id: id.ok_or_else(|| missing(t, "transactionId"))?,
                })
            }
            0xA2 => {
                let (mut id, mut imm, mut res, mut seg, mut done) =
                    (None, false, None, None, false);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0x80 => id = Some(u32v(&x, "TransactionId")?),
                        0x81 => imm = null(&x)?,
                        0xA2 => {
                            let mut c = x.children()?;
                            let alt = c
                                .next()?
                                .ok_or_else(|| missing(&x, "transactionResult alternative"))?;
                            res = Some(match alt.tag {
                                0xA0 => TransactionResult::Error(self.error_descriptor(&alt)?),
                                0xA1 => {
                                    let mut v = SmallList::new();
                                    let mut l = alt.children()?;
                                    while let Some(a) = l.next()? {
                                        expect(&a, 0x30, "ActionReply (SEQUENCE)")?;
                                        v.push(self.action_reply(&a)?);
                                    }
                                    TransactionResult::ActionReplies(v)
                                }
                                _ => {
                                    return Err(unexpected_tag(
                                        alt.offset,
                                        "transactionError [0] or actionReplies [1]",
                                        alt.tag,
                                    ))
                                }
                            });
                        }
                        0x83 => seg = Some(u16v(&x, "SegmentNumber")?),
                        0x84 => done = null(&x)?,
                        _ => {}
                    }
                }
                Transaction::Reply(TransactionReply {
                    transaction_id: id.ok_or_else(|| missing(t, "transactionId"))?,
                    imm_ack_required: imm,
                    result: res.ok_or_else(|| missing(t, "transactionResult"))?,
                    segment_number: seg,
                    segmentation_complete: done,
                })
            }
            0xA3 => {
                let mut acks = Vec::new();
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    expect(&x, 0x30, "TransactionAck (SEQUENCE)")?;
                    let (mut first, mut last) = (None, None);
                    let mut c = x.children()?;
                    while let Some(y) = c.next()? {
                        match y.tag {
                            0x80 => first = Some(u32v(&y, "firstAck")?),
                            0x81 => last = Some(u32v(&y, "lastAck")?),
                            _ => {}
                        }
                    }
                    acks.push(TransactionAck {
                        first_ack: first.ok_or_else(|| missing(&x, "firstAck"))?,
                        last_ack: last,
                    });
                }
                Transaction::ResponseAck(acks)
            }
            0xA4 => {
                let (mut id, mut seg, mut done) = (None, None, false);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0x80 => id = Some(u32v(&x, "TransactionId")?),
                        0x81 => seg = Some(u16v(&x, "SegmentNumber")?),
                        0x82 => done = null(&x)?,
                        _ => {}
                    }
                }
                Transaction::SegmentReply(SegmentReply {
                    transaction_id: id.ok_or_else(|| missing(t, "transactionId"))?,
                    segment_number: seg.ok_or_else(|| missing(t, "segmentNumber"))?,
                    segmentation_complete: done,
                })
            }
            _ => return Ok(None),
        }))
    }

    fn action_request(&self, t: &Tlv) -> D<ActionRequest> {
        let (mut ctx, mut cr, mut ca, mut cmds) = (None, None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => ctx = Some(ContextId(u32v(&x, "ContextID")?)),
                0xA1 => cr = Some(self.context_request(&x)?),
                0xA2 => ca = Some(self.context_attr_audit(&x)?),
                0xA3 => {
                    let mut v = SmallList::new();
                    let mut l = x.children()?;
                    while let Some(c) = l.next()? {
                        expect(&c, 0x30, "CommandRequest (SEQUENCE)")?;
                        v.push(self.command_request(&c)?);
                    }
                    cmds = Some(v);
                }
                _ => {}
            }
        }
        Ok(ActionRequest {
            context_id: ctx.ok_or_else(|| missing(t, "contextId"))?,
            context_request: cr,
            context_attr_audit_req: ca,
            command_requests: cmds.ok_or_else(|| missing(t, "commandRequests"))?,
        })
    }

    fn action_reply(&self, t: &Tlv) -> D<ActionReply> {
        let (mut ctx, mut err, mut cr, mut reps) = (None, None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => ctx = Some(ContextId(u32v(&x, "ContextID")?)),
                0xA1 => err = Some(self.error_descriptor(&x)?),
                0xA2 => cr = Some(self.context_request(&x)?),
                0xA3 => {
                    let mut v = SmallList::new();
                    let mut l = x.children()?;
                    while let Some(c) = l.next()? {
                        if let Some(rep) = self.command_reply(&c)? {
                            v.push(rep);
                        }
                    }
                    reps = Some(v);
                }
                _ => {}
            }
        }
        Ok(ActionReply {
            context_id: ctx.ok_or_else(|| missing(t, "contextId"))?,
            error_descriptor: err,
            context_reply: cr,
            command_reply: reps.ok_or_else(|| missing(t, "commandReply"))?,
        })
    }

    fn context_request(&self, t: &Tlv) -> D<ContextRequest> {
        let mut cr = ContextRequest {
            priority: None,
            emergency: None,
            topology_req: None,
            iepscallind: None,
            context_prop: None,
            context_list: None,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => cr.priority = Some(u8v(&x, 15, "priority 0..15")?),
                0x81 => cr.emergency = Some(boolean(&x)?),
                0xA2 => {
                    let mut v = Vec::new();
                    let mut l = x.children()?;
                    while let Some(e) = l.next()? {
                        expect(&e, 0x30, "TopologyRequest (SEQUENCE)")?;
                        v.push(self.topology(&e)?);
                    }
                    cr.topology_req = Some(v);
                }
                0x83 => cr.iepscallind = Some(boolean(&x)?),
                0xA4 => {
                    let mut v = Vec::new();
                    let mut l = x.children()?;
                    while let Some(e) = l.next()? {
                        expect(&e, 0x30, "PropertyParm (SEQUENCE)")?;
                        v.push(self.property_parm(&e)?);
                    }
                    cr.context_prop = Some(v);
                }
                0xA5 => {
                    let mut v = Vec::new();
                    let mut l = x.children()?;
                    while let Some(e) = l.next()? {
                        expect(&e, 0x02, "ContextID (INTEGER)")?;
                        v.push(ContextId(u32v(&e, "ContextID")?));
                    }
                    cr.context_list = Some(v);
                }
                _ => {}
            }
        }
        Ok(cr)
    }

    fn topology(&self, t: &Tlv) -> D<TopologyRequest> {
        let (mut from, mut to, mut dir, mut sid, mut ext) = (None, None, None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => from = Some(self.term_id(&x)?),
                0xA1 => to = Some(self.term_id(&x)?),
                0x82 => dir = Some(enumerated(&x, "topologyDirection 0..2")?),
                0x83 => sid = Some(u16v(&x, "StreamID")?),
                0x84 => ext = Some(enumerated(&x, "topologyDirectionExtension 0..1")?),
                _ => {}
            }
        }
        Ok(TopologyRequest {
            termination_from: from.ok_or_else(|| missing(t, "terminationFrom"))?,
            termination_to: to.ok_or_else(|| missing(t, "terminationTo"))?,
            topology_direction: dir.ok_or_else(|| missing(t, "topologyDirection"))?,
            stream_id: sid,
            topology_direction_extension: ext,
        })
    }

    fn context_attr_audit(&self, t: &Tlv) -> D<ContextAttrAuditRequest> {
        let mut ca = ContextAttrAuditRequest {
            topology: false,
            emergency: false,
            priority: false,
            iepscallind: false,
            context_prop_aud: None,
            select_priority: None,
            select_emergency: None,
            select_iepscallind: None,
            select_logic: None,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => ca.topology = null(&x)?,
                0x81 => ca.emergency = null(&x)?,
                0x82 => ca.priority = null(&x)?,
                0x83 => ca.iepscallind = null(&x)?,
                0xA4 => ca.context_prop_aud = Some(self.ind_aud_property_parms(&x)?),
                0x85 => ca.select_priority = Some(u8v(&x, 15, "selectpriority 0..15")?),
                0x86 => ca.select_emergency = Some(boolean(&x)?),
                0x87 => ca.select_iepscallind = Some(boolean(&x)?),
                0xA8 => {
                    let mut c = x.children()?;
                    if let Some(alt) = c.next()? {
                        ca.select_logic = match alt.tag {
                            0x80 => Some(SelectLogic::And),
                            0x81 => Some(SelectLogic::Or),
                            _ => None,
                        };
                    }
                }
                _ => {}
            }
        }
        Ok(ca)
    }

    fn command_request(&self, t: &Tlv) -> D<CommandRequest> {
        let (mut cmd, mut opt, mut wild) = (None, false, false);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => {
                    let mut c = x.children()?;
                    let alt = c
                        .next()?
                        .ok_or_else(|| missing(&x, "Command alternative"))?;
                    cmd = Some(self.command(&alt)?);
                }
                0x81 => opt = null(&x)?,
                0x82 => wild = null(&x)?,
                _ => {}
            }
        }
        Ok(CommandRequest {
            command: cmd.ok_or_else(|| missing(t, "command"))?,
            optional: opt,
            wildcard_return: wild,
        })
    }

    fn command(&self, t: &Tlv) -> D<Command> {
        Ok(match t.tag {
            0xA0 => Command::Add(self.amm_request(t)?),
            0xA1 => Command::Move(self.amm_request(t)?),
            0xA2 => Command::Modify(self.amm_request(t)?),
            0xA3 => {
                let (mut ids, mut ad) = (None, None);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0xA0 => ids = Some(self.term_ids(&x)?),
                        0xA1 => ad = Some(self.audit_descriptor(&x)?),
                        _ => {}
                    }
                }
                Command::Subtract(SubtractRequest {
                    termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
                    audit_descriptor: ad,
                })
            }
            0xA4 => Command::AuditCapability(self.audit_request(t)?),
            0xA5 => Command::AuditValue(self.audit_request(t)?),
            0xA6 => {
                let (mut ids, mut oe, mut err) = (None, None, None);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0xA0 => ids = Some(self.term_ids(&x)?),
                        0xA1 => oe = Some(self.observed_events(&x)?),
                        0xA2 => err = Some(self.error_descriptor(&x)?),
                        _ => {}
                    }
                }
                Command::Notify(NotifyRequest {
                    termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
                    observed_events_descriptor: oe
                        .ok_or_else(|| missing(t, "observedEventsDescriptor"))?,
                    error_descriptor: err,
                })
            }
            0xA7 => {
                let (mut ids, mut parms) = (None, None);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0xA0 => ids = Some(self.term_ids(&x)?),
                        0xA1 => parms = Some(self.service_change_parm(&x)?),
                        _ => {}
                    }
                }
                Command::ServiceChange(Box::new(ServiceChangeRequest {
                    termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
                    service_change_parms: parms.ok_or_else(|| missing(t, "serviceChangeParms"))?,
                }))
            }
            _ => return Err(unexpected_tag(t.offset, "a Command alternative", t.tag)),
        })
    }

    fn amm_request(&self, t: &Tlv) -> D<AmmRequest> {
        let (mut ids, mut descs) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => ids = Some(self.term_ids(&x)?),
                0xA1 => {
                    let mut v = Vec::new();
                    let mut l = x.children()?;
                    while let Some(d) = l.next()? {
                        let item = match d.tag {
                            0xA0 => AmmDescriptor::Media(self.media(&d)?),
                            0xA1 => AmmDescriptor::Modem(self.modem(&d)?),
                            0xA2 => AmmDescriptor::Mux(self.mux(&d)?),
                            0xA3 => AmmDescriptor::Events(self.events(&d)?),
                            0xA4 => AmmDescriptor::EventBuffer(self.event_buffer(&d)?),
                            0xA5 => AmmDescriptor::Signals(self.signals(&d)?.into()),
                            0xA6 => AmmDescriptor::DigitMap(self.digit_map(&d)?),
                            0xA7 => AmmDescriptor::Audit(self.audit_descriptor(&d)?),
                            0xA8 => AmmDescriptor::Statistics(self.statistics(&d)?),
                            _ => continue,
                        };
                        v.push(item);
                    }
                    descs = Some(v);
                }
                _ => {}
            }
        }
        Ok(AmmRequest {
            termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
            descriptors: descs.ok_or_else(|| missing(t, "descriptors"))?,
        })
    }

    fn audit_request(&self, t: &Tlv) -> D<AuditRequest> {
        let (mut id, mut ad, mut list) = (None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => id = Some(self.term_id(&x)?),
                0xA1 => ad = Some(self.audit_descriptor(&x)?),
                0xA2 => list = Some(self.term_ids(&x)?),
                _ => {}
            }
        }
        Ok(AuditRequest {
            termination_id: id.ok_or_else(|| missing(t, "terminationID"))?,
            audit_descriptor: ad.ok_or_else(|| missing(t, "auditDescriptor"))?,
            termination_id_list: list.map(SmallVec::into_vec),
        })
    }

    fn command_reply(&self, t: &Tlv) -> D<Option<CommandReply>> {
        Ok(Some(match t.tag {
            0xA0 => CommandReply::Add(self.amms_reply(t)?),
            0xA1 => CommandReply::Move(self.amms_reply(t)?),
            0xA2 => CommandReply::Modify(self.amms_reply(t)?),
            0xA3 => CommandReply::Subtract(self.amms_reply(t)?),
            0xA4 => CommandReply::AuditCapability(self.audit_reply(t)?),
            0xA5 => CommandReply::AuditValue(self.audit_reply(t)?),
            0xA6 => {
                let (mut ids, mut err) = (None, None);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0xA0 => ids = Some(self.term_ids(&x)?),
                        0xA1 => err = Some(self.error_descriptor(&x)?),
                        _ => {}
                    }
                }
                CommandReply::Notify(NotifyReply {
                    termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
                    error_descriptor: err,
                })
            }
            0xA7 => {
                let (mut ids, mut res) = (None, None);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0xA0 => ids = Some(self.term_ids(&x)?),
                        0xA1 => {
                            let mut c = x.children()?;
                            let alt = c
                                .next()?
                                .ok_or_else(|| missing(&x, "serviceChangeResult alternative"))?;
                            res = Some(match alt.tag {
                                0xA0 => ServiceChangeResult::ErrorDescriptor(
                                    self.error_descriptor(&alt)?,
                                ),
                                0xA1 => ServiceChangeResult::ServiceChangeResParms(
                                    self.sc_res_parm(&alt)?,
                                ),
                                _ => {
                                    return Err(unexpected_tag(
                                        alt.offset,
                                        "errorDescriptor [0] or serviceChangeResParms [1]",
                                        alt.tag,
                                    ))
                                }
                            });
                        }
                        _ => {}
                    }
                }
                CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                    termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
                    service_change_result: res.ok_or_else(|| missing(t, "serviceChangeResult"))?,
                }))
            }
            _ => return Ok(None),
        }))
    }

    fn amms_reply(&self, t: &Tlv) -> D<AmmsReply> {
        let (mut ids, mut audit) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => ids = Some(self.term_ids(&x)?),
                0xA1 => audit = Some(self.termination_audit(&x)?),
                _ => {}
            }
        }
        Ok(AmmsReply {
            termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
            termination_audit: audit,
        })
    }

    fn audit_reply(&self, t: &Tlv) -> D<AuditReply> {
        let mut c = t.children()?;
        let alt = c
            .next()?
            .ok_or_else(|| missing(t, "AuditReply alternative"))?;
        Ok(match alt.tag {
            0xA0 => AuditReply::ContextAuditResult(self.term_ids(&alt)?.to_vec()),
            0xA1 => AuditReply::Error(self.error_descriptor(&alt)?),
            0xA2 | 0xA3 => {
                let (mut id, mut ids, mut res) = (None, None, None);
                let mut r = alt.children()?;
                while let Some(x) = r.next()? {
                    match (alt.tag, x.tag) {
                        (0xA2, 0xA0) => id = Some(self.term_id(&x)?),
                        (0xA3, 0xA0) => ids = Some(self.term_ids(&x)?),
                        (_, 0xA1) => res = Some(self.termination_audit(&x)?),
                        _ => {}
                    }
                }
                let res = res.ok_or_else(|| missing(&alt, "terminationAuditResult"))?;
                if alt.tag == 0xA2 {
                    AuditReply::AuditResult(AuditResult {
                        termination_id: id.ok_or_else(|| missing(&alt, "terminationID"))?,
                        termination_audit_result: res,
                    })
                } else {
                    AuditReply::AuditResultTermList(TermListAuditResult {
                        termination_id_list: ids
                            .ok_or_else(|| missing(&alt, "terminationIDList"))?
                            .to_vec(),
                        termination_audit_result: res,
                    })
                }
            }
            _ => {
                return Err(unexpected_tag(
                    alt.offset,
                    "an AuditReply alternative",
                    alt.tag,
                ))
            }
        })
    }

    fn termination_audit(&self, t: &Tlv) -> D<Vec<AuditReturnParameter>> {
        let mut v = Vec::new();
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            let item = match x.tag {
                0xA0 => AuditReturnParameter::Error(self.error_descriptor(&x)?),
                0xA1 => AuditReturnParameter::Media(self.media(&x)?),
                0xA2 => AuditReturnParameter::Modem(self.modem(&x)?),
                0xA3 => AuditReturnParameter::Mux(self.mux(&x)?),
                0xA4 => AuditReturnParameter::Events(self.events(&x)?),
                0xA5 => AuditReturnParameter::EventBuffer(self.event_buffer(&x)?),
                0xA6 => AuditReturnParameter::Signals(self.signals(&x)?.into()),
                0xA7 => AuditReturnParameter::DigitMap(self.digit_map(&x)?),
                0xA8 => AuditReturnParameter::ObservedEvents(self.observed_events(&x)?),
                0xA9 => AuditReturnParameter::Statistics(self.statistics(&x)?),
                0xAA => {
                    let mut items = Vec::new();
                    let mut l = x.children()?;
                    while let Some(e) = l.next()? {
                        expect(&e, 0x30, "PackagesItem (SEQUENCE)")?;
                        let (mut n, mut ver) = (None, None);
                        let mut c = e.children()?;
                        while let Some(y) = c.next()? {
                            match y.tag {
                                0x80 => n = Some(self.package_name(&y)?),
                                0x81 => ver = Some(u8v(&y, 99, "packageVersion 0..99")?),
                                _ => {}
                            }
                        }
                        items.push(PackagesItem {
                            package_name: n.ok_or_else(|| missing(&e, "packageName"))?.into(),
                            package_version: ver.ok_or_else(|| missing(&e, "packageVersion"))?,
                        });
                    }
                    AuditReturnParameter::Packages(items)
                }
                0xAB => AuditReturnParameter::EmptyDescriptors(self.audit_descriptor(&x)?),
                _ => continue,
            };
            v.push(item);
        }
        Ok(v)
    }

    fn audit_descriptor(&self, t: &Tlv) -> D<AuditDescriptor> {
        let mut ad = AuditDescriptor::empty();
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => ad.audit_token = Some(bit_list(&x)?),
                0xA1 => {
                    let mut v = Vec::new();
                    let mut l = x.children()?;
                    while let Some(e) = l.next()? {
                        if let Some(item) = self.ind_audit_parameter(&e)? {
                            v.push(item);
                        }
                    }
                    ad.audit_property_token = Some(v);
                }
                _ => {}
            }
        }
        Ok(ad)
    }

    fn ind_audit_parameter(&self, t: &Tlv) -> D<Option<IndAuditParameter>> {
        Ok(Some(match t.tag {
            0xA0 => {
                let mut m = IndAudMediaDescriptor {
                    term_state_descr: None,
                    streams: None,
                };
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0xA0 => m.term_state_descr = Some(self.ind_aud_term_state(&x)?),
                        0xA1 => {
                            let mut c = x.children()?;
                            let alt = c
                                .next()?
                                .ok_or_else(|| missing(&x, "streams alternative"))?;
                            m.streams = match alt.tag {
                                0xA0 => {
                                    Some(IndAudStreams::OneStream(self.ind_aud_stream_parms(&alt)?))
                                }
                                0xA1 => {
                                    let mut v = Vec::new();
                                    let mut l = alt.children()?;
                                    while let Some(e) = l.next()? {
                                        expect(&e, 0x30, "IndAudStreamDescriptor (SEQUENCE)")?;
                                        let (mut sid, mut sp) = (None, None);
                                        let mut c = e.children()?;
                                        while let Some(y) = c.next()? {
                                            match y.tag {
                                                0x80 => sid = Some(u16v(&y, "StreamID")?),
                                                0xA1 => sp = Some(self.ind_aud_stream_parms(&y)?),
                                                _ => {}
                                            }
                                        }
                                        v.push(IndAudStreamDescriptor {
                                            stream_id: sid
                                                .ok_or_else(|| missing(&e, "streamID"))?,
                                            stream_parms: sp
                                                .ok_or_else(|| missing(&e, "streamParms"))?,
                                        });
                                    }
                                    Some(IndAudStreams::MultiStream(v))
                                }
                                _ => None,
                            };
                        }
                        _ => {}
                    }
                }
                IndAuditParameter::Media(m)
            }
            0xA1 => {
                let (mut rid, mut name, mut sid) = (None, None, None);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0x80 => rid = Some(u32v(&x, "RequestID")?),
                        0x81 => name = Some(self.pkgd(&x, ItemKind::Event)?.0),
                        0x82 => sid = Some(u16v(&x, "StreamID")?),
                        _ => {}
                    }
                }
                IndAuditParameter::Events(IndAudEventsDescriptor {
                    request_id: rid,
                    pkgd_name: name.ok_or_else(|| missing(t, "pkgdName"))?,
                    stream_id: sid,
                })
            }
            0xA2 => {
                let (mut name, mut sid) = (None, None);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0x80 => name = Some(self.pkgd(&x, ItemKind::Event)?.0),
                        0x81 => sid = Some(u16v(&x, "StreamID")?),
                        _ => {}
                    }
                }
                IndAuditParameter::EventBuffer(IndAudEventBufferDescriptor {
                    event_name: name.ok_or_else(|| missing(t, "eventName"))?,
                    stream_id: sid,
                })
            }
            0xA3 => {
                let mut c = t.children()?;
                let alt = c
                    .next()?
                    .ok_or_else(|| missing(t, "IndAudSignalsDescriptor alternative"))?;
                IndAuditParameter::Signals(match alt.tag {
                    0xA0 => IndAudSignalsDescriptor::Signal(self.ind_aud_signal(&alt)?),
                    0xA1 => {
                        let (mut id, mut sig) = (None, None);
                        let mut r = alt.children()?;
                        while let Some(x) = r.next()? {
                            match x.tag {
                                0x80 => id = Some(u16v(&x, "signal list id")?),
                                0xA1 => sig = Some(self.ind_aud_signal(&x)?),
                                _ => {}
                            }
                        }
                        IndAudSignalsDescriptor::SeqSigList(IndAudSeqSigList {
                            id: id.ok_or_else(|| missing(&alt, "id"))?,
                            signal_list: sig,
                        })
                    }
                    _ => return Ok(None),
                })
            }
            0xA4 => {
                let mut name = None;
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    if x.tag == 0x80 {
                        name = Some(self.digit_map_name(&x)?);
                    }
                }
                IndAuditParameter::DigitMap(IndAudDigitMapDescriptor {
                    digit_map_name: name,
                })
            }
            0xA5 => IndAuditParameter::Statistics(self.ind_aud_statistics(t)?),
            0xA6 => {
                let (mut n, mut ver) = (None, None);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0x80 => n = Some(self.package_name(&x)?),
                        0x81 => ver = Some(u8v(&x, 99, "packageVersion 0..99")?),
                        _ => {}
                    }
                }
                IndAuditParameter::Packages(IndAudPackagesDescriptor {
                    package_name: n.ok_or_else(|| missing(t, "packageName"))?.into(),
                    package_version: ver.ok_or_else(|| missing(t, "packageVersion"))?,
                })
            }
            _ => return Ok(None),
        }))
    }

    fn ind_aud_statistics(&self, t: &Tlv) -> D<IndAudStatisticsDescriptor> {
        let mut name = None;
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            if x.tag == 0x80 {
                name = Some(self.pkgd(&x, ItemKind::Statistic)?.0);
            }
        }
        Ok(IndAudStatisticsDescriptor {
            stat_name: name.ok_or_else(|| missing(t, "statName"))?,
        })
    }

    fn ind_aud_signal(&self, t: &Tlv) -> D<IndAudSignal> {
        let (mut name, mut sid, mut rid) = (None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => name = Some(self.pkgd(&x, ItemKind::Signal)?.0),
                0x81 => sid = Some(u16v(&x, "StreamID")?),
                0x82 => rid = Some(u32v(&x, "RequestID")?),
                _ => {}
            }
        }
        Ok(IndAudSignal {
            signal_name: name.ok_or_else(|| missing(t, "signalName"))?,
            stream_id: sid,
            signal_request_id: rid,
        })
    }

    fn ind_aud_term_state(&self, t: &Tlv) -> D<IndAudTerminationStateDescriptor> {
        let (mut pps, mut ebc, mut ss, mut sel) = (None, false, false, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => pps = Some(self.ind_aud_property_parms(&x)?),
                0x81 => ebc = null(&x)?,
                0x82 => ss = null(&x)?,
                0x83 => sel = Some(enumerated(&x, "ServiceState 0..2")?),
                _ => {}
            }
        }
        Ok(IndAudTerminationStateDescriptor {
            property_parms: pps.ok_or_else(|| missing(t, "propertyParms"))?,
            event_buffer_control: ebc,
            service_state: ss,
            service_state_sel: sel,
        })
    }

    fn ind_aud_stream_parms(&self, t: &Tlv) -> D<IndAudStreamParms> {
        let mut sp = IndAudStreamParms {
            local_control_descriptor: None,
            local_descriptor: None,
            remote_descriptor: None,
            statistics_descriptor: None,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => {
                    let mut lc = IndAudLocalControlDescriptor {
                        stream_mode: false,
                        reserve_value: false,
                        reserve_group: false,
                        property_parms: None,
                        stream_mode_sel: None,
                    };
                    let mut c = x.children()?;
                    while let Some(y) = c.next()? {
                        match y.tag {
                            0x80 => lc.stream_mode = null(&y)?,
                            0x81 => lc.reserve_value = null(&y)?,
                            0x82 => lc.reserve_group = null(&y)?,
                            0xA3 => lc.property_parms = Some(self.ind_aud_property_parms(&y)?),
                            0x84 => lc.stream_mode_sel = Some(enumerated(&y, "StreamMode 0..4")?),
                            _ => {}
                        }
                    }
                    sp.local_control_descriptor = Some(lc);
                }
                0xA1 | 0xA2 => {
                    let (mut gid, mut grps) = (None, None);
                    let mut c = x.children()?;
                    while let Some(y) = c.next()? {
                        match y.tag {
                            0x80 => gid = Some(u16v(&y, "propGroupID")?),
                            0xA1 => grps = Some(self.ind_aud_property_parms(&y)?),
                            _ => {}
                        }
                    }
                    let d = IndAudLocalRemoteDescriptor {
                        prop_group_id: gid,
                        prop_grps: grps.ok_or_else(|| missing(&x, "propGrps"))?,
                    };
                    if x.tag == 0xA1 {
                        sp.local_descriptor = Some(d);
                    } else {
                        sp.remote_descriptor = Some(d);
                    }
                }
                0xA3 => sp.statistics_descriptor = Some(self.ind_aud_statistics(&x)?),
                _ => {}
            }
        }
        Ok(sp)
    }

    fn ind_aud_property_parms(&self, t: &Tlv) -> D<Vec<IndAudPropertyParm>> {
        let mut v = Vec::new();
        let mut r = t.children()?;
        while let Some(e) = r.next()? {
            expect(&e, 0x30, "IndAudPropertyParm (SEQUENCE)")?;
            let (mut name, mut pp) = (None, None);
            let mut c = e.children()?;
            while let Some(y) = c.next()? {
                match y.tag {
                    0x80 => name = Some(self.pkgd(&y, ItemKind::Property)?.0),
                    0xA1 => pp = Some(self.property_parm(&y)?),
                    _ => {}
                }
            }
            v.push(IndAudPropertyParm {
                name: name.ok_or_else(|| missing(&e, "name"))?,
                property_parms: pp,
            });
        }
        Ok(v)
    }

    fn property_parm(&self, t: &Tlv) -> D<PropertyParm> {
        let (mut name, mut code, mut val, mut extra) = (None, [0u8; 4], None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => {
                    let (n, c) = self.pkgd(&x, ItemKind::Property)?;
                    name = Some(n);
                    code = c;
                }
                0xA1 => val = Some(x),
                0xA2 => extra = self.extra_info(&x)?,
                _ => {}
            }
        }
        let name = name.ok_or_else(|| missing(t, "PropertyParm.name"))?;
        let val = val.ok_or_else(|| missing(t, "PropertyParm.value"))?;
        let ty = if self.standard {
            self.reg.item_type(ItemKind::Property, code)
        } else {
            None
        };
        Ok(PropertyParm {
            name,
            value: self.value(&val, ty)?,
            extra_info: extra,
        })
    }

    fn property_parms(&self, t: &Tlv) -> D<Vec<PropertyParm>> {
        let mut v = Vec::new();
        let mut r = t.children()?;
        while let Some(e) = r.next()? {
            expect(&e, 0x30, "PropertyParm (SEQUENCE)")?;
            v.push(self.property_parm(&e)?);
        }
        Ok(v)
    }

    fn parameters(&self, t: &Tlv, kind: ItemKind, item: [u8; 4]) -> D<Vec<PropertyParm>> {
        let mut v = Vec::new();
        let mut r = t.children()?;
        while let Some(e) = r.next()? {
            expect(&e, 0x30, "EventParameter / SigParameter (SEQUENCE)")?;
            let (mut name, mut code, mut val, mut extra) = (None, [0u8; 2], None, None);
            let mut c = e.children()?;
            while let Some(x) = c.next()? {
                match x.tag {
                    0x80 => {
                        let (n, cd) = self.param_name(&x, kind, item)?;
                        name = Some(n);
                        code = cd;
                    }
                    0xA1 => val = Some(x),
                    0xA2 => extra = self.extra_info(&x)?,
                    _ => {}
                }
            }
            let name = name.ok_or_else(|| missing(&e, "parameter name"))?;
            let val = val.ok_or_else(|| missing(&e, "parameter value"))?;
            let ty = if self.standard {
                self.reg.parameter_type(kind, item, code)
            } else {
                None
            };
            v.push(PropertyParm {
                name,
                value: self.value(&val, ty)?,
                extra_info: extra,
            });
        }
        Ok(v)
    }

    fn media(&self, t: &Tlv) -> D<MediaDescriptor> {
        let mut m = MediaDescriptor {
            term_state_descr: None,
            streams: None,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => {
                    let (mut pps, mut ebc, mut ss) = (None, None, None);
                    let mut c = x.children()?;
                    while let Some(y) = c.next()? {
                        match y.tag {
                            0xA0 => pps = Some(self.property_parms(&y)?),
                            0x81 => ebc = Some(enumerated(&y, "EventBufferControl 0..1")?),
                            0x82 => ss = Some(enumerated(&y, "ServiceState 0..2")?),
                            _ => {}
                        }
                    }
                    m.term_state_descr = Some(TerminationStateDescriptor {
                        property_parms: pps.ok_or_else(|| missing(&x, "propertyParms"))?,
                        event_buffer_control: ebc,
                        service_state: ss,
                    });
                }
                0xA1 => {
                    let mut c = x.children()?;
                    let alt = c
                        .next()?
                        .ok_or_else(|| missing(&x, "streams alternative"))?;
                    m.streams = match alt.tag {
                        0xA0 => Some(Streams::OneStream(self.stream_parms(&alt)?)),
                        0xA1 => {
                            let mut v = Vec::new();
                            let mut l = alt.children()?;
                            while let Some(e) = l.next()? {
                                expect(&e, 0x30, "StreamDescriptor (SEQUENCE)")?;
                                let (mut sid, mut sp) = (None, None);
                                let mut c = e.children()?;
                                while let Some(y) = c.next()? {
                                    match y.tag {
                                        0x80 => sid = Some(u16v(&y, "StreamID")?),
                                        0xA1 => sp = Some(self.stream_parms(&y)?),
                                        _ => {}
                                    }
                                }
                                v.push(StreamDescriptor {
                                    stream_id: sid.ok_or_else(|| missing(&e, "streamID"))?,
                                    stream_parms: sp.ok_or_else(|| missing(&e, "streamParms"))?,
                                });
                            }
                            Some(Streams::MultiStream(v.into()))
                        }
                        _ => None,
                    };
                }
                _ => {}
            }
        }
        Ok(m)
    }

    fn stream_parms(&self, t: &Tlv) -> D<StreamParms> {
        let mut sp = StreamParms {
            local_control_descriptor: None,
            local_descriptor: None,
            remote_descriptor: None,
            statistics_descriptor: None,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => {
                    let mut lc = LocalControlDescriptor {
                        stream_mode: None,
                        reserve_value: None,
                        reserve_group: None,
                        property_parms: Vec::new(),
                    };
                    let mut c = x.children()?;
                    while let Some(y) = c.next()? {
                        match y.tag {
                            0x80 => lc.stream_mode = Some(enumerated(&y, "StreamMode 0..4")?),
                            0x81 => lc.reserve_value = Some(boolean(&y)?),
                            0x82 => lc.reserve_group = Some(boolean(&y)?),
                            0xA3 => lc.property_parms = self.property_parms(&y)?,
                            _ => {}
                        }
                    }
                    sp.local_control_descriptor = Some(lc);
                }
                0xA1 | 0xA2 => {
                    let mut grps = Vec::new();
                    let mut c = x.children()?;
                    while let Some(y) = c.next()? {
                        if y.tag == 0xA0 {
                            let mut l = y.children()?;
                            while let Some(g) = l.next()? {
                                expect(&g, 0x30, "PropertyGroup (SEQUENCE OF)")?;
                                grps.push(self.property_parms(&g)?);
                            }
                        }
                    }
                    let d = LocalRemoteDescriptor {
                        prop_grps: grps.into(),
                    };
                    if x.tag == 0xA1 {
                        sp.local_descriptor = Some(d);
                    } else {
                        sp.remote_descriptor = Some(d);
                    }
                }
                0xA3 => sp.statistics_descriptor = Some(self.statistics(&x)?),
                _ => {}
            }
        }
        Ok(sp)
    }

    fn statistics(&self, t: &Tlv) -> D<Vec<StatisticsParameter>> {
        let mut v = Vec::new();
        let mut r = t.children()?;
        while let Some(e) = r.next()? {
            expect(&e, 0x30, "StatisticsParameter (SEQUENCE)")?;
            let (mut name, mut code, mut val) = (None, [0u8; 4], None);
            let mut c = e.children()?;
            while let Some(x) = c.next()? {
                match x.tag {
                    0x80 => {
                        let (n, cd) = self.pkgd(&x, ItemKind::Statistic)?;
                        name = Some(n);
                        code = cd;
                    }
                    0xA1 => val = Some(x),
                    _ => {}
                }
            }
            let ty = if self.standard {
                self.reg.item_type(ItemKind::Statistic, code)
            } else {
                None
            };
            v.push(StatisticsParameter {
                stat_name: name.ok_or_else(|| missing(&e, "statName"))?,
                stat_value: match val {
                    Some(x) => Some(self.value(&x, ty)?),
                    None => None,
                },
            });
        }
        Ok(v)
    }

    fn modem(&self, t: &Tlv) -> D<ModemDescriptor> {
        let (mut mtl, mut mpl, mut nsd) = (None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => {
                    let mut v = Vec::new();
                    let mut l = x.children()?;
                    while let Some(e) = l.next()? {
                        expect(&e, 0x0A, "ModemType (ENUMERATED)")?;
                        v.push(enumerated(&e, "ModemType 0..8")?);
                    }
                    mtl = Some(v);
                }
                0xA1 => mpl = Some(self.property_parms(&x)?),
                0xA2 => nsd = Some(self.non_standard(&x)?),
                _ => {}
            }
        }
        Ok(ModemDescriptor {
            mtl: mtl.ok_or_else(|| missing(t, "mtl"))?,
            mpl: mpl.ok_or_else(|| missing(t, "mpl"))?,
            non_standard_data: nsd,
        })
    }

    fn mux(&self, t: &Tlv) -> D<MuxDescriptor> {
        let (mut ty, mut list, mut nsd) = (None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => ty = Some(enumerated(&x, "MuxType 0..4")?),
                0xA1 => list = Some(self.term_ids(&x)?),
                0xA2 => nsd = Some(self.non_standard(&x)?),
                _ => {}
            }
        }
        Ok(MuxDescriptor {
            mux_type: ty.ok_or_else(|| missing(t, "muxType"))?,
            term_list: list.ok_or_else(|| missing(t, "termList"))?.to_vec(),
            non_standard_data: nsd,
        })
    }

    fn non_standard(&self, t: &Tlv) -> D<NonStandardData> {
        let (mut id, mut data) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => {
                    let mut c = x.children()?;
                    let alt = c
                        .next()?
                        .ok_or_else(|| missing(&x, "NonStandardIdentifier alternative"))?;
                    id = Some(match alt.tag {
                        0x80 => NonStandardIdentifier::Object(oid(&alt)?),
                        0xA1 => {
                            let mut h = [None; 4];
                            let mut c = alt.children()?;
                            while let Some(y) = c.next()? {
                                match y.tag {
                                    0x80..=0x82 => {
                                        h[usize::from(y.tag - 0x80)] =
                                            Some(uint(&y, 255, "T.35 code 0..255")?)
                                    }
                                    0x83 => h[3] = Some(uint(&y, 0xFFFF, "manufacturerCode")?),
                                    _ => {}
                                }
                            }
                            let get = |i: usize| {
                                h[i].ok_or_else(|| missing(&alt, "H221NonStandard component"))
                            };
                            NonStandardIdentifier::H221NonStandard(H221NonStandard {
                                t35_country_code1: get(0)? as u8,
                                t35_country_code2: get(1)? as u8,
                                t35_extension: get(2)? as u8,
                                manufacturer_code: get(3)? as u16,
                            })
                        }
                        0x82 => NonStandardIdentifier::Experimental(string(&alt)),
                        _ => {
                            return Err(unexpected_tag(
                                alt.offset,
                                "a NonStandardIdentifier alternative",
                                alt.tag,
                            ))
                        }
                    });
                }
                0x81 => data = Some(x.content().to_vec()),
                _ => {}
            }
        }
        Ok(NonStandardData {
            non_standard_identifier: id.ok_or_else(|| missing(t, "nonStandardIdentifier"))?,
            data: data.ok_or_else(|| missing(t, "data"))?,
        })
    }

    fn events(&self, t: &Tlv) -> D<EventsDescriptor> {
        let (mut rid, mut list) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => rid = Some(u32v(&x, "RequestID")?),
                0xA1 => {
                    let mut v = Vec::new();
                    let mut l = x.children()?;
                    while let Some(e) = l.next()? {
                        expect(&e, 0x30, "RequestedEvent (SEQUENCE)")?;
                        let (mut name, mut code, mut sid, mut act, mut pars) =
                            (None, [0u8; 4], None, None, None);
                        let mut c = e.children()?;
                        while let Some(y) = c.next()? {
                            match y.tag {
                                0x80 => {
                                    let (n, cd) = self.pkgd(&y, ItemKind::Event)?;
                                    name = Some(n);
                                    code = cd;
                                }
                                0x81 => sid = Some(u16v(&y, "StreamID")?),
                                0xA2 => act = Some(y),
                                0xA3 => pars = Some(y),
                                _ => {}
                            }
                        }
                        let event_action = match act {
                            Some(a) => Some(self.requested_actions(&a)?),
                            None => None,
                        };
                        v.push(RequestedEvent {
                            pkgd_name: name.ok_or_else(|| missing(&e, "pkgdName"))?,
                            stream_id: sid,
                            event_action,
                            ev_par_list: match pars {
                                Some(p) => self.parameters(&p, ItemKind::Event, code)?.into(),
                                None => return Err(missing(&e, "evParList")),
                            },
                        });
                    }
                    list = Some(v);
                }
                _ => {}
            }
        }
        Ok(EventsDescriptor {
            request_id: rid,
            event_list: list.ok_or_else(|| missing(t, "eventList"))?,
        })
    }

    fn requested_actions(&self, t: &Tlv) -> D<RequestedActions> {
        let mut a = RequestedActions {
            keep_active: None,
            event_dm: None,
            second_event: None,
            signals_descriptor: None,
            notify_behaviour: None,
            reset_events_descriptor: false,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => a.keep_active = Some(boolean(&x)?),
                0xA1 => a.event_dm = self.event_dm(&x)?,
                0xA2 => a.second_event = Some(self.second_events(&x)?),
                0xA3 => a.signals_descriptor = Some(self.signals(&x)?.into()),
                0xA4 => a.notify_behaviour = self.notify_behaviour(&x)?,
                0x85 => a.reset_events_descriptor = null(&x)?,
                _ => {}
            }
        }
        Ok(a)
    }

    fn second_events(&self, t: &Tlv) -> D<EventsDescriptor> {
        let (mut rid, mut list) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => rid = Some(u32v(&x, "RequestID")?),
                0xA1 => {
                    let mut v = Vec::new();
                    let mut l = x.children()?;
                    while let Some(e) = l.next()? {
                        expect(&e, 0x30, "RequestedEvent (SEQUENCE)")?;
                        let (mut name, mut code, mut sid, mut act, mut pars) =
                            (None, [0u8; 4], None, None, None);
                        let mut c = e.children()?;
                        while let Some(y) = c.next()? {
                            match y.tag {
                                0x80 => {
                                    let (n, cd) = self.pkgd(&y, ItemKind::Event)?;
                                    name = Some(n);
                                    code = cd;
                                }
                                0x81 => sid = Some(u16v(&y, "StreamID")?),
                                0xA2 => act = Some(y),
                                0xA3 => pars = Some(y),
                                _ => {}
                            }
                        }
                        let event_action = match act {
                            Some(a) => {
                                let mut sa = RequestedActions::default();
                                let mut c = a.children()?;
                                while let Some(y) = c.next()? {
                                    match y.tag {
                                        0x80 => sa.keep_active = Some(boolean(&y)?),
                                        0xA1 => sa.event_dm = self.event_dm(&y)?,
                                        0xA2 => {
                                            sa.signals_descriptor = Some(self.signals(&y)?.into())
                                        }
                                        0xA3 => sa.notify_behaviour = self.notify_behaviour(&y)?,
                                        0x84 => sa.reset_events_descriptor = null(&y)?,
                                        _ => {}
                                    }
                                }
                                Some(sa)
                            }
                            None => None,
                        };
                        v.push(RequestedEvent {
                            pkgd_name: name.ok_or_else(|| missing(&e, "pkgdName"))?,
                            stream_id: sid,
                            event_action,
                            ev_par_list: match pars {
                                Some(p) => self.parameters(&p, ItemKind::Event, code)?.into(),
                                None => return Err(missing(&e, "evParList")),
                            },
                        });
                    }
                    list = Some(v);
                }
                _ => {}
            }
        }
        Ok(EventsDescriptor {
            request_id: rid,
            event_list: list.ok_or_else(|| missing(t, "eventList"))?,
        })
    }

    fn event_dm(&self, t: &Tlv) -> D<Option<EventDm>> {
        let mut c = t.children()?;
        let alt = c.next()?.ok_or_else(|| missing(t, "EventDM alternative"))?;
        Ok(match alt.tag {
            0x80 => Some(EventDm::DigitMapName(self.digit_map_name(&alt)?)),
            0xA1 => Some(EventDm::DigitMapValue(self.digit_map_value(&alt)?)),
            _ => None,
        })
    }

    fn notify_behaviour(&self, t: &Tlv) -> D<Option<NotifyBehaviour>> {
        let mut c = t.children()?;
        let alt = c
            .next()?
            .ok_or_else(|| missing(t, "NotifyBehaviour alternative"))?;
        Ok(match alt.tag {
            0x80 => Some(NotifyBehaviour::NotifyImmediate),
            0xA1 => {
                let mut rd = RegulatedEmbeddedDescriptor {
                    second_event: None,
                    signals_descriptor: None,
                };
                let mut r = alt.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0xA0 => rd.second_event = Some(self.second_events(&x)?),
                        0xA1 => rd.signals_descriptor = Some(self.signals(&x)?.into()),
                        _ => {}
                    }
                }
                Some(NotifyBehaviour::NotifyRegulated(Box::new(rd)))
            }
            0x82 => Some(NotifyBehaviour::NeverNotify),
            _ => None,
        })
    }

    fn event_buffer(&self, t: &Tlv) -> D<Vec<EventSpec>> {
        let mut v = Vec::new();
        let mut r = t.children()?;
        while let Some(e) = r.next()? {
            expect(&e, 0x30, "EventSpec (SEQUENCE)")?;
            let (mut name, mut code, mut sid, mut pars) = (None, [0u8; 4], None, None);
            let mut c = e.children()?;
            while let Some(y) = c.next()? {
                match y.tag {
                    0x80 => {
                        let (n, cd) = self.pkgd(&y, ItemKind::Event)?;
                        name = Some(n);
                        code = cd;
                    }
                    0x81 => sid = Some(u16v(&y, "StreamID")?),
                    0xA2 => pars = Some(y),
                    _ => {}
                }
            }
            v.push(EventSpec {
                event_name: name.ok_or_else(|| missing(&e, "eventName"))?,
                stream_id: sid,
                event_par_list: match pars {
                    Some(p) => self.parameters(&p, ItemKind::Event, code)?,
                    None => return Err(missing(&e, "eventParList")),
                },
            });
        }
        Ok(v)
    }

    fn signals(&self, t: &Tlv) -> D<Vec<SignalRequest>> {
        let mut v = Vec::new();
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => v.push(SignalRequest::Signal(self.signal(&x)?)),
                0xA1 => {
                    let (mut id, mut list) = (None, None);
                    let mut c = x.children()?;
                    while let Some(y) = c.next()? {
                        match y.tag {
                            0x80 => id = Some(u16v(&y, "signal list id")?),
                            0xA1 => {
                                let mut sigs = Vec::new();
                                let mut l = y.children()?;
                                while let Some(s) = l.next()? {
                                    expect(&s, 0x30, "Signal (SEQUENCE)")?;
                                    sigs.push(self.signal(&s)?);
                                }
                                list = Some(sigs);
                            }
                            _ => {}
                        }
                    }
                    v.push(SignalRequest::SeqSigList(SeqSigList {
                        id: id.ok_or_else(|| missing(&x, "SeqSigList.id"))?,
                        signal_list: list.ok_or_else(|| missing(&x, "signalList"))?,
                    }));
                }
                _ => {}
            }
        }
        Ok(v)
    }

    fn signal(&self, t: &Tlv) -> D<Signal> {
        let mut name = None;
        let mut code = [0u8; 4];
        let mut pars = None;
        let mut s = Signal {
            signal_name: String::new().into(),
            stream_id: None,
            sig_type: None,
            duration: None,
            notify_completion: None,
            keep_active: None,
            sig_par_list: Vec::new(),
            direction: None,
            request_id: None,
            intersig_delay: None,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => {
                    let (n, cd) = self.pkgd(&x, ItemKind::Signal)?;
                    name = Some(n);
                    code = cd;
                }
                0x81 => s.stream_id = Some(u16v(&x, "StreamID")?),
                0x82 => s.sig_type = Some(enumerated(&x, "SignalType 0..2")?),
                0x83 => s.duration = Some(u16v(&x, "duration")?),
                0x84 => s.notify_completion = Some(bit_list(&x)?),
                0x85 => s.keep_active = Some(boolean(&x)?),
                0xA6 => pars = Some(x),
                0x87 => s.direction = Some(enumerated(&x, "SignalDirection 0, 1 or 3")?),
                0x88 => s.request_id = Some(u32v(&x, "RequestID")?),
                0x89 => s.intersig_delay = Some(u16v(&x, "intersigDelay")?),
                _ => {}
            }
        }
        s.signal_name = name.ok_or_else(|| missing(t, "signalName"))?;
        s.sig_par_list = match pars {
            Some(p) => self.parameters(&p, ItemKind::Signal, code)?,
            None => return Err(missing(t, "sigParList")),
        };
        Ok(s)
    }

    fn digit_map_value(&self, t: &Tlv) -> D<DigitMapValue> {
        let mut v = DigitMapValue {
            start_timer: None,
            short_timer: None,
            long_timer: None,
            digit_map_body: String::new().into(),
            duration_timer: None,
        };
        let mut body = None;
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => v.start_timer = Some(u8v(&x, 99, "timer 0..99")?),
                0x81 => v.short_timer = Some(u8v(&x, 99, "timer 0..99")?),
                0x82 => v.long_timer = Some(u8v(&x, 99, "timer 0..99")?),
                0x83 => body = Some(string(&x)),
                0x84 => v.duration_timer = Some(u8v(&x, 99, "timer 0..99")?),
                _ => {}
            }
        }
        v.digit_map_body = body.ok_or_else(|| missing(t, "digitMapBody"))?;
        Ok(v)
    }

    fn digit_map(&self, t: &Tlv) -> D<DigitMapDescriptor> {
        let mut d = DigitMapDescriptor {
            digit_map_name: None,
            digit_map_value: None,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => d.digit_map_name = Some(self.digit_map_name(&x)?),
                0xA1 => d.digit_map_value = Some(self.digit_map_value(&x)?),
                _ => {}
            }
        }
        Ok(d)
    }

    fn observed_events(&self, t: &Tlv) -> D<ObservedEventsDescriptor> {
        let (mut rid, mut list) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => rid = Some(u32v(&x, "RequestID")?),
                0xA1 => {
                    let mut v = SmallList::new();
                    let mut l = x.children()?;
                    while let Some(e) = l.next()? {
                        expect(&e, 0x30, "ObservedEvent (SEQUENCE)")?;
                        let (mut name, mut code, mut sid, mut pars, mut time) =
                            (None, [0u8; 4], None, None, None);
                        let mut c = e.children()?;
                        while let Some(y) = c.next()? {
                            match y.tag {
                                0x80 => {
                                    let (n, cd) = self.pkgd(&y, ItemKind::Event)?;
                                    name = Some(n);
                                    code = cd;
                                }
                                0x81 => sid = Some(u16v(&y, "StreamID")?),
                                0xA2 => pars = Some(y),
                                0xA3 => time = Some(self.time(&y)?),
                                _ => {}
                            }
                        }
                        v.push(ObservedEvent {
                            event_name: name.ok_or_else(|| missing(&e, "eventName"))?,
                            stream_id: sid,
                            event_par_list: match pars {
                                Some(p) => self.parameters(&p, ItemKind::Event, code)?,
                                None => return Err(missing(&e, "eventParList")),
                            },
                            time_notation: time,
                        });
                    }
                    list = Some(v);
                }
                _ => {}
            }
        }
        Ok(ObservedEventsDescriptor {
            request_id: rid.ok_or_else(|| missing(t, "requestId"))?,
            observed_event_lst: list.ok_or_else(|| missing(t, "observedEventLst"))?,
        })
    }

    fn time(&self, t: &Tlv) -> D<TimeNotation> {
        let (mut date, mut time) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => date = Some(string(&x)),
                0x81 => time = Some(string(&x)),
                _ => {}
            }
        }
        Ok(TimeNotation {
            date: date.ok_or_else(|| missing(t, "TimeNotation.date"))?,
            time: time.ok_or_else(|| missing(t, "TimeNotation.time"))?,
        })
    }

    fn profile(&self, t: &Tlv) -> D<ServiceChangeProfile> {
        let mut name = None;
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            if x.tag == 0x80 {
                name = Some(x);
            }
        }
        let x = name.ok_or_else(|| missing(t, "profileName"))?;
        let text = string(&x);
        let (n, v) = text
            .rsplit_once('/')
            .ok_or_else(|| bad(&x, "profileName \"name/version\""))?;
        let version: u8 = v
            .parse()
            .map_err(|_| bad(&x, "profileName \"name/version\""))?;
        Ok(ServiceChangeProfile {
            profile_name: n.to_string().into(),
            version,
        })
    }

    fn sc_address(&self, t: &Tlv) -> D<ServiceChangeAddress> {
        let mut c = t.children()?;
        let alt = c
            .next()?
            .ok_or_else(|| missing(t, "ServiceChangeAddress alternative"))?;
        Ok(match alt.tag {
            0x80 => ServiceChangeAddress::PortNumber(u16v(&alt, "port number")?),
            0xA1 => ServiceChangeAddress::Ip4(self.ip4(&alt)?),
            0xA2 => ServiceChangeAddress::Ip6(self.ip6(&alt)?),
            0xA3 => ServiceChangeAddress::Domain(self.domain(&alt)?),
            0x84 => ServiceChangeAddress::Device(string(&alt)),
            0x85 => ServiceChangeAddress::Mtp(mtp(&alt, self.standard)?),
            _ => {
                return Err(unexpected_tag(
                    alt.offset,
                    "a ServiceChangeAddress alternative",
                    alt.tag,
                ))
            }
        })
    }

    fn service_change_parm(&self, t: &Tlv) -> D<ServiceChangeParm> {
        let mut method = None;
        let mut reason = None;
        let mut sp = ServiceChangeParm {
            service_change_method: ServiceChangeMethod::Restart,
            service_change_address: None,
            service_change_version: None,
            service_change_profile: None,
            service_change_reason: Vec::new().into(),
            service_change_delay: None,
            service_change_mgc_id: None,
            time_stamp: None,
            non_standard_data: None,
            service_change_info: None,
            service_change_incomplete_flag: false,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => method = Some(enumerated(&x, "ServiceChangeMethod 0..5")?),
                0xA1 => sp.service_change_address = Some(self.sc_address(&x)?),
                0x82 => {
                    sp.service_change_version = Some(u8v(&x, 99, "serviceChangeVersion 0..99")?)
                }
                0xA3 => sp.service_change_profile = Some(self.profile(&x)?),
                0xA4 => {
                    let ty = if self.standard {
                        Some(&ValueType::String)
                    } else {
                        None
                    };
                    reason = Some(self.value(&x, ty)?);
                }
                0x85 => sp.service_change_delay = Some(u32v(&x, "serviceChangeDelay")?),
                0xA6 => sp.service_change_mgc_id = Some(self.mid_choice(&x)?),
                0xA7 => sp.time_stamp = Some(self.time(&x)?),
                0xA8 => sp.non_standard_data = Some(self.non_standard(&x)?),
                0xA9 => sp.service_change_info = Some(self.audit_descriptor(&x)?),
                0x8A => sp.service_change_incomplete_flag = null(&x)?,
                _ => {}
            }
        }
        sp.service_change_method = method.ok_or_else(|| missing(t, "serviceChangeMethod"))?;
        sp.service_change_reason = reason.ok_or_else(|| missing(t, "serviceChangeReason"))?;
        Ok(sp)
    }

    fn sc_res_parm(&self, t: &Tlv) -> D<ServiceChangeResParm> {
        let mut rp = ServiceChangeResParm {
            service_change_mgc_id: None,
            service_change_address: None,
            service_change_version: None,
            service_change_profile: None,
            time_stamp: None,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => rp.service_change_mgc_id = Some(self.mid_choice(&x)?),
                0xA1 => rp.service_change_address = Some(self.sc_address(&x)?),
                0x82 => {
                    rp.service_change_version = Some(u8v(&x, 99, "serviceChangeVersion 0..99")?)
                }
                0xA3 => rp.service_change_profile = Some(self.profile(&x)?),
                0xA4 => rp.time_stamp = Some(self.time(&x)?),
                _ => {}
            }
        }
        Ok(rp)
    }
}

/// An MTP address (2 to 4 octets): as hex text in the standard dialect,
/// as the characters themselves in OTP's.
fn mtp(t: &Tlv, standard: bool) -> D<CompactString> {
    let c = t.content();
    if !(2..=4).contains(&c.len()) {
        return Err(bad(t, "mtpAddress of 2 to 4 octets"));
    }
    if !standard {
        return Ok(string(t));
    }
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut s = CompactString::with_capacity(c.len() * 2);
    for &b in c {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 0xF)] as char);
    }
    Ok(s)
}

fn oid(t: &Tlv) -> D<Vec<u32>> {
    let c = t.content();
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
