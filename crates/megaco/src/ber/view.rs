//! The borrowed view of a BER message ([`crate::view`]): a walk over the
//! TLVs down to termination ids, descriptors skipped by their lengths.
//!
//! It reads the same components as the owned decoder ([`super::decode`])
//! and in the same way: components of a SEQUENCE in any order, the last
//! of a repeated one wins, unknown transaction and command reply
//! alternatives skipped.

use super::decode::{bad, expect, fixed, message_version, missing, null, top_level, u16v, u32v};
use super::reader::{too_large, trailing_data, unexpected_tag, Reader, Tlv};
use super::{BerConfig, Dialect, Mapping};
use crate::asn1::termid::{self, AsnTermId, TermIdLevels};
use crate::codec::DecodeError;
use crate::model::{ContextId, Ip4Address, Ip6Address};
use crate::view::{
    CommandKind, CommandView, Item, MessageView, MidView, MtpForm, NameForm, TermIdView,
    TransactionView,
};

type D<T> = Result<T, DecodeError>;

/// Where the walk is: one reader per level of the structure.
#[derive(Debug, Clone)]
pub(crate) struct BerWalker<'a> {
    levels: Option<&'a TermIdLevels>,
    transactions: Reader<'a>,
    /// Actions of the current transaction; `true` for action replies.
    actions: Option<(Reader<'a>, bool)>,
    /// Commands of the current action; `true` for command replies.
    commands: Option<(Reader<'a>, bool)>,
    /// Termination ids of the current command.
    ids: Option<Ids<'a>>,
    /// Ranges of the current TransactionResponseAck.
    acks: Option<Reader<'a>>,
    /// An item read ahead (the error of a reply or an action reply).
    queued: Option<Item<'a>>,
}

#[derive(Debug, Clone)]
enum Ids<'a> {
    /// A `SEQUENCE OF TerminationID`.
    List(Reader<'a>),
    /// One `TerminationID`.
    One(Tlv<'a>),
}

/// Reads the header of `bytes`; the walker starts at the first
/// transaction.
pub(crate) fn parse<'a>(
    bytes: &'a [u8],
    cfg: &'a BerConfig,
) -> Result<MessageView<'a>, DecodeError> {
    header(bytes, cfg)
}

fn header<'a>(bytes: &'a [u8], cfg: &'a BerConfig) -> D<MessageView<'a>> {
    let limits = &cfg.limits;
    if bytes.len() > limits.max_message_size {
        return Err(too_large(bytes.len(), limits.max_message_size));
    }
    let (top, end) = top_level(bytes, limits)?;
    if end < bytes.len() {
        return Err(trailing_data(end, bytes.len()));
    }
    let mut message = None;
    let mut r = top.children()?;
    while let Some(x) = r.next()? {
        if x.tag == 0xA1 {
            message = Some(x);
        }
    }
    let m = message.ok_or_else(|| missing(&top, "Message"))?;
    let mut r = m.children()?;
    let version = message_version(&m, &mut r)?;
    let (mut mid, mut body) = (None, None);
    while let Some(x) = r.next()? {
        match x.tag {
            0xA1 => mid = Some(x),
            0xA2 => body = Some(x),
            _ => {}
        }
    }
    let mid = mid_view(&mid.ok_or_else(|| missing(&m, "Message.mId"))?, cfg)?;
    let body = body.ok_or_else(|| missing(&m, "Message.messageBody"))?;
    let alt = body
        .children()?
        .next()?
        .ok_or_else(|| missing(&body, "messageBody alternative"))?;
    let levels = match &cfg.mapping {
        Mapping::Text(l) => Some(l),
        Mapping::Native => None,
    };
    Ok(match alt.tag {
        0xA0 => MessageView::ber(version, mid, Some(error_code(&alt)?), None),
        0xA1 => MessageView::ber(
            version,
            mid,
            None,
            Some(BerWalker {
                levels,
                transactions: alt.children()?,
                actions: None,
                commands: None,
                ids: None,
                acks: None,
                queued: None,
            }),
        ),
        _ => {
            return Err(unexpected_tag(
                alt.offset,
                "messageError [0] or transactions [1]",
                alt.tag,
            ))
        }
    })
}

/// An explicitly tagged MId.
fn mid_view<'a>(t: &Tlv<'a>, cfg: &BerConfig) -> D<MidView<'a>> {
    let alt = t
        .children()?
        .next()?
        .ok_or_else(|| missing(t, "MId alternative"))?;
    let address_and_port = |what: &'static str| -> D<(Option<Tlv<'a>>, Option<u16>)> {
        let (mut a, mut port) = (None, None);
        let mut r = alt.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => a = Some(x),
                0x81 => port = Some(u16v(&x, "port number")?),
                _ => {}
            }
        }
        let _ = what;
        Ok((a, port))
    };
    Ok(match alt.tag {
        0xA0 => {
            let (a, port) = address_and_port("IP4Address.address")?;
            let a = a.ok_or_else(|| missing(&alt, "IP4Address.address"))?;
            MidView::Ip4(Ip4Address {
                address: fixed(&a, "IPv4 address (4 octets)")?,
                port,
            })
        }
        0xA1 => {
            let (a, port) = address_and_port("IP6Address.address")?;
            let a = a.ok_or_else(|| missing(&alt, "IP6Address.address"))?;
            MidView::Ip6(Ip6Address {
                address: fixed(&a, "IPv6 address (16 octets)")?,
                port,
            })
        }
        0xA2 => {
            let (n, port) = address_and_port("DomainName.name")?;
            let n = n.ok_or_else(|| missing(&alt, "DomainName.name"))?;
            MidView::Domain {
                name: n.content(),
                port,
                form: NameForm::Utf8Lossy,
            }
        }
        0x83 => MidView::Device {
            name: alt.content(),
            form: NameForm::Utf8Lossy,
        },
        0x84 => {
            if !(2..=4).contains(&alt.content().len()) {
                return Err(bad(&alt, "mtpAddress of 2 to 4 octets"));
            }
            MidView::Mtp {
                address: alt.content(),
                form: match cfg.dialect {
                    Dialect::Standard => MtpForm::Octets,
                    Dialect::Otp => MtpForm::Text(NameForm::Utf8Lossy),
                },
            }
        }
        _ => return Err(unexpected_tag(alt.offset, "a MId alternative", alt.tag)),
    })
}

/// The code of an ErrorDescriptor.
fn error_code(t: &Tlv) -> D<u16> {
    let mut code = None;
    let mut r = t.children()?;
    while let Some(x) = r.next()? {
        if x.tag == 0x80 {
            code = Some(u16v(&x, "ErrorCode 0..65535")?);
        }
    }
    code.ok_or_else(|| missing(t, "errorCode"))
}

impl<'a> BerWalker<'a> {
    pub(crate) fn next_item(&mut self) -> Result<Option<Item<'a>>, DecodeError> {
        self.step()
    }

    fn step(&mut self) -> D<Option<Item<'a>>> {
        if let Some(item) = self.queued.take() {
            return Ok(Some(item));
        }
        loop {
            if let Some(ids) = &mut self.ids {
                let t = match ids {
                    Ids::List(r) => match r.next()? {
                        Some(t) => {
                            expect(&t, 0x30, "TerminationID (SEQUENCE)")?;
                            t
                        }
                        None => {
                            self.ids = None;
                            continue;
                        }
                    },
                    Ids::One(t) => {
                        let t = *t;
                        self.ids = None;
                        t
                    }
                };
                return Ok(Some(Item::TerminationId(self.term_id(&t)?)));
            }
            if let Some((r, reply)) = &mut self.commands {
                let reply = *reply;
                match r.next()? {
                    Some(c) => {
                        let item = if reply {
                            self.command_reply(&c)?
                        } else {
                            Some(self.command_request(&c)?)
                        };
                        match item {
                            Some(item) => return Ok(Some(item)),
                            None => continue,
                        }
                    }
                    None => {
                        self.commands = None;
                        continue;
                    }
                }
            }
            if let Some(r) = &mut self.acks {
                match r.next()? {
                    Some(a) => return Ok(Some(ack(&a)?)),
                    None => {
                        self.acks = None;
                        continue;
                    }
                }
            }
            if let Some((r, reply)) = &mut self.actions {
                let reply = *reply;
                match r.next()? {
                    Some(a) => return Ok(Some(self.action(&a, reply)?)),
                    None => {
                        self.actions = None;
                        continue;
                    }
                }
            }
            match self.transactions.next()? {
                Some(t) => {
                    if let Some(item) = self.transaction(&t)? {
                        return Ok(Some(item));
                    }
                }
                None => return Ok(None),
            }
        }
    }

    fn transaction(&mut self, t: &Tlv<'a>) -> D<Option<Item<'a>>> {
        let view = match t.tag {
            0xA0 => {
                let (mut id, mut actions) = (None, None);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0x80 => id = Some(u32v(&x, "TransactionId")?),
                        0xA1 => actions = Some(x),
                        _ => {}
                    }
                }
                let id = id.ok_or_else(|| missing(t, "transactionId"))?;
                let actions = actions.ok_or_else(|| missing(t, "actions"))?;
                self.actions = Some((actions.children()?, false));
                TransactionView::Request { id }
            }
            0xA1 => {
                let mut id = None;
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    if x.tag == 0x80 {
                        id = Some(u32v(&x, "TransactionId")?);
                    }
                }
                TransactionView::Pending {
                    id: id.ok_or_else(|| missing(t, "transactionId"))?,
                }
            }
            0xA2 => {
                let (mut id, mut imm, mut res, mut seg, mut done) =
                    (None, false, None, None, false);
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    match x.tag {
                        0x80 => id = Some(u32v(&x, "TransactionId")?),
                        0x81 => imm = null(&x)?,
                        0xA2 => res = Some(x),
                        0x83 => seg = Some(u16v(&x, "SegmentNumber")?),
                        0x84 => done = null(&x)?,
                        _ => {}
                    }
                }
                let id = id.ok_or_else(|| missing(t, "transactionId"))?;
                let res = res.ok_or_else(|| missing(t, "transactionResult"))?;
                let alt = res
                    .children()?
                    .next()?
                    .ok_or_else(|| missing(&res, "transactionResult alternative"))?;
                match alt.tag {
                    0xA0 => {
                        self.queued = Some(Item::TransactionError {
                            code: error_code(&alt)?,
                        })
                    }
                    0xA1 => self.actions = Some((alt.children()?, true)),
                    _ => {
                        return Err(unexpected_tag(
                            alt.offset,
                            "transactionError [0] or actionReplies [1]",
                            alt.tag,
                        ))
                    }
                }
                TransactionView::Reply {
                    id,
                    imm_ack_required: imm,
                    segment_number: seg,
                    segmentation_complete: done,
                }
            }
            0xA3 => {
                self.acks = Some(t.children()?);
                TransactionView::ResponseAck
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
                TransactionView::SegmentReply {
                    id: id.ok_or_else(|| missing(t, "transactionId"))?,
                    segment_number: seg.ok_or_else(|| missing(t, "segmentNumber"))?,
                    segmentation_complete: done,
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(Item::Transaction(view)))
    }

    fn action(&mut self, t: &Tlv<'a>, reply: bool) -> D<Item<'a>> {
        let what = if reply {
            "ActionReply (SEQUENCE)"
        } else {
            "ActionRequest (SEQUENCE)"
        };
        expect(t, 0x30, what)?;
        let (mut ctx, mut err, mut cmds) = (None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0x80 => ctx = Some(ContextId(u32v(&x, "ContextID")?)),
                0xA1 if reply => err = Some(x),
                0xA3 => cmds = Some(x),
                _ => {}
            }
        }
        let context_id = ctx.ok_or_else(|| missing(t, "contextId"))?;
        let what = if reply {
            "commandReply"
        } else {
            "commandRequests"
        };
        let cmds = cmds.ok_or_else(|| missing(t, what))?;
        if let Some(e) = err {
            self.queued = Some(Item::ActionError {
                code: error_code(&e)?,
            });
        }
        self.commands = Some((cmds.children()?, reply));
        Ok(Item::Action { context_id })
    }

    fn command_request(&mut self, t: &Tlv<'a>) -> D<Item<'a>> {
        expect(t, 0x30, "CommandRequest (SEQUENCE)")?;
        let (mut cmd, mut optional, mut wildcard_return) = (None, false, false);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => cmd = Some(x),
                0x81 => optional = null(&x)?,
                0x82 => wildcard_return = null(&x)?,
                _ => {}
            }
        }
        let cmd = cmd.ok_or_else(|| missing(t, "command"))?;
        let alt = cmd
            .children()?
            .next()?
            .ok_or_else(|| missing(&cmd, "Command alternative"))?;
        let Some(kind) = kind_of(alt.tag) else {
            return Err(unexpected_tag(alt.offset, "a Command alternative", alt.tag));
        };
        let (mut one, mut list) = (None, None);
        let mut r = alt.children()?;
        let audit = matches!(kind, CommandKind::AuditCapability | CommandKind::AuditValue);
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 if audit => one = Some(x),
                0xA0 => list = Some(x),
                0xA2 if audit => list = Some(x),
                _ => {}
            }
        }
        self.ids = Some(match (one, list) {
            (_, Some(l)) if !audit || one.is_some() => Ids::List(l.children()?),
            (Some(one), _) => Ids::One(one),
            _ => return Err(missing(&alt, "terminationID")),
        });
        Ok(Item::Command(CommandView {
            kind,
            reply: false,
            optional,
            wildcard_return,
        }))
    }

    fn command_reply(&mut self, t: &Tlv<'a>) -> D<Option<Item<'a>>> {
        let Some(kind) = kind_of(t.tag) else {
            return Ok(None);
        };
        let ids = match kind {
            CommandKind::AuditCapability | CommandKind::AuditValue => {
                let alt = t
                    .children()?
                    .next()?
                    .ok_or_else(|| missing(t, "AuditReply alternative"))?;
                match alt.tag {
                    0xA0 => Some(Ids::List(alt.children()?)),
                    0xA1 => {
                        error_code(&alt)?;
                        None
                    }
                    0xA2 | 0xA3 => {
                        let mut id = None;
                        let mut r = alt.children()?;
                        while let Some(x) = r.next()? {
                            if x.tag == 0xA0 {
                                id = Some(x);
                            }
                        }
                        let what = if alt.tag == 0xA2 {
                            "terminationID"
                        } else {
                            "terminationIDList"
                        };
                        let id = id.ok_or_else(|| missing(&alt, what))?;
                        Some(if alt.tag == 0xA2 {
                            Ids::One(id)
                        } else {
                            Ids::List(id.children()?)
                        })
                    }
                    _ => {
                        return Err(unexpected_tag(
                            alt.offset,
                            "an AuditReply alternative",
                            alt.tag,
                        ))
                    }
                }
            }
            _ => {
                let mut list = None;
                let mut r = t.children()?;
                while let Some(x) = r.next()? {
                    if x.tag == 0xA0 {
                        list = Some(x);
                    }
                }
                let list = list.ok_or_else(|| missing(t, "terminationID"))?;
                Some(Ids::List(list.children()?))
            }
        };
        self.ids = ids;
        Ok(Some(Item::Command(CommandView {
            kind,
            reply: true,
            optional: false,
            wildcard_return: false,
        })))
    }

    fn term_id(&self, t: &Tlv<'a>) -> D<TermIdView<'a>> {
        let mut wild = [0u8; termid::MAX_WILDCARDS];
        let mut nw = 0;
        let mut id: Option<&[u8]> = None;
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag {
                0xA0 => {
                    let mut w = x.children()?;
                    nw = 0;
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
        Ok(TermIdView::asn1(asn, self.levels))
    }
}

fn kind_of(tag: u8) -> Option<CommandKind> {
    Some(match tag {
        0xA0 => CommandKind::Add,
        0xA1 => CommandKind::Move,
        0xA2 => CommandKind::Modify,
        0xA3 => CommandKind::Subtract,
        0xA4 => CommandKind::AuditCapability,
        0xA5 => CommandKind::AuditValue,
        0xA6 => CommandKind::Notify,
        0xA7 => CommandKind::ServiceChange,
        _ => return None,
    })
}

fn ack<'a>(t: &Tlv<'a>) -> D<Item<'a>> {
    expect(t, 0x30, "TransactionAck (SEQUENCE)")?;
    let (mut first, mut last) = (None, None);
    let mut r = t.children()?;
    while let Some(y) = r.next()? {
        match y.tag {
            0x80 => first = Some(u32v(&y, "firstAck")?),
            0x81 => last = Some(u32v(&y, "lastAck")?),
            _ => {}
        }
    }
    Ok(Item::Ack {
        first: first.ok_or_else(|| missing(t, "firstAck"))?,
        last,
    })
}
