//! The borrowed view of a BER message ([`crate::view`]): a walk over the
//! TLVs down to termination ids, descriptors skipped by their lengths.
//!
//! It reads the same components as the owned decoder ([`super::decode`])
//! and in the same way: components of a SEQUENCE in any order, the last
//! of a repeated one wins, unknown transaction and command reply
//! alternatives skipped.

use super::decode::{bad, expect, missing, top_level};
use super::header::usual_header;
use super::reader::{too_large, trailing_data, unexpected_tag, Cursor, Input, Span};
use super::{BerConfig, Dialect, Mapping};
use crate::asn1::termid::TermIdLevels;
use crate::codec::DecodeError;
use crate::model::{ContextId, Ip4Address, Ip6Address};
use crate::view::{
    CommandKind, CommandView, Item, MessageView, MidView, MtpForm, NameForm, Queued, TermIdView,
    TransactionView,
};

type D<T> = Result<T, DecodeError>;

/// Where the walk is: one cursor per level of the structure, each a few
/// offsets into the input (see [`Input`]).
#[derive(Debug, Clone)]
pub(crate) struct BerWalker<'a> {
    input: Input<'a>,
    levels: Option<&'a TermIdLevels>,
    transactions: Cursor,
    /// Actions of the current transaction; `true` for action replies.
    actions: Option<(Cursor, bool)>,
    /// Commands of the current action; `true` for command replies.
    commands: Option<(Cursor, bool)>,
    /// Termination ids of the current command.
    ids: Option<Ids>,
    /// Ranges of the current TransactionResponseAck.
    acks: Option<Cursor>,
    /// An item read ahead (the error of a reply or an action reply).
    queued: Option<Queued>,
}

#[derive(Debug, Clone)]
enum Ids {
    /// A `SEQUENCE OF TerminationID`.
    List(Cursor),
    /// One `TerminationID`.
    One(Span),
}

/// Reads the header of `bytes`; the walker starts at the first
/// transaction.
pub(crate) fn parse<'a>(
    bytes: &'a [u8],
    cfg: &'a BerConfig,
) -> Result<MessageView<'a>, DecodeError> {
    if bytes.len() <= cfg.limits.max_message_size {
        if let Some(h) = usual_header(bytes, &cfg.limits) {
            let input = Input::new(bytes, &cfg.limits);
            let walker = BerWalker::new(input, cfg, input.children(h.transactions)?);
            return Ok(MessageView::ber(
                h.version,
                MidView::Ip4(h.mid),
                None,
                Some(walker),
            ));
        }
    }
    parse_general(bytes, cfg)
}

/// [`parse`] without the pass for the usual header, for any message.
pub(super) fn parse_general<'a>(
    bytes: &'a [u8],
    cfg: &'a BerConfig,
) -> Result<MessageView<'a>, DecodeError> {
    let limits = &cfg.limits;
    if bytes.len() > limits.max_message_size {
        return Err(too_large(bytes.len(), limits.max_message_size));
    }
    let (top, end) = top_level(bytes, limits)?;
    if end < bytes.len() {
        return Err(trailing_data(end, bytes.len()));
    }
    let input = Input::new(bytes, limits);
    let mut message = None;
    let mut r = input.children(top)?;
    while let Some(x) = input.next(&mut r)? {
        if x.tag() == 0xA1 {
            message = Some(x);
        }
    }
    let m = message.ok_or_else(|| missing(top, "Message"))?;
    let mut r = input.children(m)?;
    let first = input
        .next(&mut r)?
        .ok_or_else(|| missing(m, "Message.version"))?;
    let version = input.version(first)?;
    let (mut mid, mut body) = (None, None);
    while let Some(x) = input.next(&mut r)? {
        match x.tag() {
            0xA1 => mid = Some(x),
            0xA2 => body = Some(x),
            _ => {}
        }
    }
    let mid = mid_view(input, mid.ok_or_else(|| missing(m, "Message.mId"))?, cfg)?;
    let body = body.ok_or_else(|| missing(m, "Message.messageBody"))?;
    let alt = first_of(input, body, "messageBody alternative")?;
    Ok(match alt.tag() {
        0xA0 => MessageView::ber(version, mid, Some(error_code(input, alt)?), None),
        0xA1 => MessageView::ber(
            version,
            mid,
            None,
            Some(BerWalker::new(input, cfg, input.children(alt)?)),
        ),
        _ => {
            return Err(unexpected_tag(
                alt.offset(),
                "messageError [0] or transactions [1]",
                alt.tag(),
            ))
        }
    })
}

/// The first component of the constructed value `s` (a CHOICE's
/// alternative).
#[inline]
fn first_of(input: Input<'_>, s: Span, what: &'static str) -> D<Span> {
    input
        .next(&mut input.children(s)?)?
        .ok_or_else(|| missing(s, what))
}

/// An explicitly tagged MId.
fn mid_view<'a>(input: Input<'a>, s: Span, cfg: &BerConfig) -> D<MidView<'a>> {
    let alt = first_of(input, s, "MId alternative")?;
    let address_and_port = || -> D<(Option<Span>, Option<u16>)> {
        let (mut a, mut port) = (None, None);
        let mut r = input.children(alt)?;
        while let Some(x) = input.next(&mut r)? {
            match x.tag() {
                0x80 => a = Some(x),
                0x81 => port = Some(input.u16v(x, "port number")?),
                _ => {}
            }
        }
        Ok((a, port))
    };
    Ok(match alt.tag() {
        0xA0 => {
            let (a, port) = address_and_port()?;
            let a = a.ok_or_else(|| missing(alt, "IP4Address.address"))?;
            MidView::Ip4(Ip4Address {
                address: input.fixed(a, "IPv4 address (4 octets)")?,
                port,
            })
        }
        0xA1 => {
            let (a, port) = address_and_port()?;
            let a = a.ok_or_else(|| missing(alt, "IP6Address.address"))?;
            MidView::Ip6(Ip6Address {
                address: input.fixed(a, "IPv6 address (16 octets)")?,
                port,
            })
        }
        0xA2 => {
            let (n, port) = address_and_port()?;
            let n = n.ok_or_else(|| missing(alt, "DomainName.name"))?;
            MidView::Domain {
                name: input.content(n),
                port,
                form: NameForm::Utf8Lossy,
            }
        }
        0x83 => MidView::Device {
            name: input.content(alt),
            form: NameForm::Utf8Lossy,
        },
        0x84 => {
            if !(2..=4).contains(&input.content(alt).len()) {
                return Err(bad(alt, "mtpAddress of 2 to 4 octets"));
            }
            MidView::Mtp {
                address: input.content(alt),
                form: match cfg.dialect {
                    Dialect::Standard => MtpForm::Octets,
                    Dialect::Otp => MtpForm::Text(NameForm::Utf8Lossy),
                },
            }
        }
        _ => return Err(unexpected_tag(alt.offset(), "a MId alternative", alt.tag())),
    })
}

/// The code of an ErrorDescriptor.
fn error_code(input: Input<'_>, s: Span) -> D<u16> {
    let mut code = None;
    let mut r = input.children(s)?;
    while let Some(x) = input.next(&mut r)? {
        if x.tag() == 0x80 {
            code = Some(input.u16v(x, "ErrorCode 0..65535")?);
        }
    }
    code.ok_or_else(|| missing(s, "errorCode"))
}

impl<'a> BerWalker<'a> {
    /// A walk over the `transactions` of a message.
    fn new(input: Input<'a>, cfg: &'a BerConfig, transactions: Cursor) -> Self {
        BerWalker {
            input,
            levels: match &cfg.mapping {
                Mapping::Text(l) => Some(l),
                Mapping::Native => None,
            },
            transactions,
            actions: None,
            commands: None,
            ids: None,
            acks: None,
            queued: None,
        }
    }

    /// Leaves the actions of the transaction just read unread (for the
    /// outline; a reply's error is still yielded).
    #[inline]
    pub(crate) fn skip_actions(&mut self) {
        self.actions = None;
    }

    pub(crate) fn next_item(&mut self) -> Result<Option<Item<'a>>, DecodeError> {
        if let Some(item) = self.queued.take() {
            return Ok(Some(item.item()));
        }
        let input = self.input;
        loop {
            if let Some(ids) = &mut self.ids {
                let s = match ids {
                    Ids::List(r) => match input.next(r)? {
                        Some(s) => {
                            expect(s, 0x30, "TerminationID (SEQUENCE)")?;
                            s
                        }
                        None => {
                            self.ids = None;
                            continue;
                        }
                    },
                    Ids::One(s) => {
                        let s = *s;
                        self.ids = None;
                        s
                    }
                };
                return Ok(Some(Item::TerminationId(self.term_id(s)?)));
            }
            if let Some((r, reply)) = &mut self.commands {
                let reply = *reply;
                match input.next(r)? {
                    Some(c) if reply => match self.command_reply(c)? {
                        Some(item) => return Ok(Some(item)),
                        None => continue,
                    },
                    Some(c) => return Ok(Some(self.command_request(c)?)),
                    None => {
                        self.commands = None;
                        continue;
                    }
                }
            }
            if let Some(r) = &mut self.acks {
                match input.next(r)? {
                    Some(a) => return Ok(Some(ack(input, a)?)),
                    None => {
                        self.acks = None;
                        continue;
                    }
                }
            }
            if let Some((r, reply)) = &mut self.actions {
                let reply = *reply;
                match input.next(r)? {
                    Some(a) => return Ok(Some(self.action(a, reply)?)),
                    None => {
                        self.actions = None;
                        continue;
                    }
                }
            }
            match input.next(&mut self.transactions)? {
                Some(t) => {
                    if let Some(item) = self.transaction(t)? {
                        return Ok(Some(item));
                    }
                }
                None => return Ok(None),
            }
        }
    }

    fn transaction(&mut self, t: Span) -> D<Option<Item<'a>>> {
        let input = self.input;
        let view = match t.tag() {
            0xA0 => {
                let (mut id, mut actions) = (None, None);
                let mut r = input.children(t)?;
                while let Some(x) = input.next(&mut r)? {
                    match x.tag() {
                        0x80 => id = Some(self.input.u32v(x, "TransactionId")?),
                        0xA1 => actions = Some(x),
                        _ => {}
                    }
                }
                let id = id.ok_or_else(|| missing(t, "transactionId"))?;
                let actions = actions.ok_or_else(|| missing(t, "actions"))?;
                self.actions = Some((input.children(actions)?, false));
                TransactionView::Request { id }
            }
            0xA1 => {
                let mut id = None;
                let mut r = input.children(t)?;
                while let Some(x) = input.next(&mut r)? {
                    if x.tag() == 0x80 {
                        id = Some(self.input.u32v(x, "TransactionId")?);
                    }
                }
                TransactionView::Pending {
                    id: id.ok_or_else(|| missing(t, "transactionId"))?,
                }
            }
            0xA2 => {
                let (mut id, mut imm, mut res, mut seg, mut done) =
                    (None, false, None, None, false);
                let mut r = input.children(t)?;
                while let Some(x) = input.next(&mut r)? {
                    match x.tag() {
                        0x80 => id = Some(self.input.u32v(x, "TransactionId")?),
                        0x81 => imm = self.input.null(x)?,
                        0xA2 => res = Some(x),
                        0x83 => seg = Some(self.input.u16v(x, "SegmentNumber")?),
                        0x84 => done = self.input.null(x)?,
                        _ => {}
                    }
                }
                let id = id.ok_or_else(|| missing(t, "transactionId"))?;
                let res = res.ok_or_else(|| missing(t, "transactionResult"))?;
                let alt = first_of(input, res, "transactionResult alternative")?;
                match alt.tag() {
                    0xA0 => self.queued = Some(Queued::TransactionError(error_code(input, alt)?)),
                    0xA1 => self.actions = Some((input.children(alt)?, true)),
                    _ => {
                        return Err(unexpected_tag(
                            alt.offset(),
                            "transactionError [0] or actionReplies [1]",
                            alt.tag(),
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
                self.acks = Some(input.children(t)?);
                TransactionView::ResponseAck
            }
            0xA4 => {
                let (mut id, mut seg, mut done) = (None, None, false);
                let mut r = input.children(t)?;
                while let Some(x) = input.next(&mut r)? {
                    match x.tag() {
                        0x80 => id = Some(self.input.u32v(x, "TransactionId")?),
                        0x81 => seg = Some(self.input.u16v(x, "SegmentNumber")?),
                        0x82 => done = self.input.null(x)?,
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

    fn action(&mut self, t: Span, reply: bool) -> D<Item<'a>> {
        let input = self.input;
        let what = if reply {
            "ActionReply (SEQUENCE)"
        } else {
            "ActionRequest (SEQUENCE)"
        };
        expect(t, 0x30, what)?;
        let (mut ctx, mut err, mut cmds) = (None, None, None);
        let mut r = input.children(t)?;
        while let Some(x) = input.next(&mut r)? {
            match x.tag() {
                0x80 => ctx = Some(ContextId(self.input.u32v(x, "ContextID")?)),
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
            self.queued = Some(Queued::ActionError(error_code(input, e)?));
        }
        self.commands = Some((input.children(cmds)?, reply));
        Ok(Item::Action { context_id })
    }

    fn command_request(&mut self, t: Span) -> D<Item<'a>> {
        let input = self.input;
        expect(t, 0x30, "CommandRequest (SEQUENCE)")?;
        let (mut cmd, mut optional, mut wildcard_return) = (None, false, false);
        let mut r = input.children(t)?;
        while let Some(x) = input.next(&mut r)? {
            match x.tag() {
                0xA0 => cmd = Some(x),
                0x81 => optional = self.input.null(x)?,
                0x82 => wildcard_return = self.input.null(x)?,
                _ => {}
            }
        }
        let cmd = cmd.ok_or_else(|| missing(t, "command"))?;
        let alt = first_of(input, cmd, "Command alternative")?;
        let Some(kind) = kind_of(alt.tag()) else {
            return Err(unexpected_tag(
                alt.offset(),
                "a Command alternative",
                alt.tag(),
            ));
        };
        let (mut one, mut list) = (None, None);
        let mut r = input.children(alt)?;
        let audit = matches!(kind, CommandKind::AuditCapability | CommandKind::AuditValue);
        while let Some(x) = input.next(&mut r)? {
            match x.tag() {
                0xA0 if audit => one = Some(x),
                0xA0 => list = Some(x),
                0xA2 if audit => list = Some(x),
                _ => {}
            }
        }
        self.ids = Some(match (one, list) {
            (_, Some(l)) if !audit || one.is_some() => Ids::List(input.children(l)?),
            (Some(one), _) => Ids::One(one),
            _ => return Err(missing(alt, "terminationID")),
        });
        Ok(Item::Command(CommandView {
            kind,
            reply: false,
            optional,
            wildcard_return,
        }))
    }

    fn command_reply(&mut self, t: Span) -> D<Option<Item<'a>>> {
        let input = self.input;
        let Some(kind) = kind_of(t.tag()) else {
            return Ok(None);
        };
        let ids = match kind {
            CommandKind::AuditCapability | CommandKind::AuditValue => {
                let alt = first_of(input, t, "AuditReply alternative")?;
                match alt.tag() {
                    0xA0 => Some(Ids::List(input.children(alt)?)),
                    0xA1 => {
                        error_code(input, alt)?;
                        None
                    }
                    0xA2 | 0xA3 => {
                        let mut id = None;
                        let mut r = input.children(alt)?;
                        while let Some(x) = input.next(&mut r)? {
                            if x.tag() == 0xA0 {
                                id = Some(x);
                            }
                        }
                        let what = if alt.tag() == 0xA2 {
                            "terminationID"
                        } else {
                            "terminationIDList"
                        };
                        let id = id.ok_or_else(|| missing(alt, what))?;
                        Some(if alt.tag() == 0xA2 {
                            Ids::One(id)
                        } else {
                            Ids::List(input.children(id)?)
                        })
                    }
                    _ => {
                        return Err(unexpected_tag(
                            alt.offset(),
                            "an AuditReply alternative",
                            alt.tag(),
                        ))
                    }
                }
            }
            _ => {
                let mut list = None;
                let mut r = input.children(t)?;
                while let Some(x) = input.next(&mut r)? {
                    if x.tag() == 0xA0 {
                        list = Some(x);
                    }
                }
                let list = list.ok_or_else(|| missing(t, "terminationID"))?;
                Some(Ids::List(input.children(list)?))
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

    fn term_id(&self, t: Span) -> D<TermIdView<'a>> {
        Ok(TermIdView::asn1(self.input.asn_term_id(t)?, self.levels))
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

fn ack<'a>(input: Input<'a>, s: Span) -> D<Item<'a>> {
    expect(s, 0x30, "TransactionAck (SEQUENCE)")?;
    let (mut first, mut last) = (None, None);
    let mut r = input.children(s)?;
    while let Some(y) = input.next(&mut r)? {
        match y.tag() {
            0x80 => first = Some(input.u32v(y, "firstAck")?),
            0x81 => last = Some(input.u32v(y, "lastAck")?),
            _ => {}
        }
    }
    Ok(Item::Ack {
        first: first.ok_or_else(|| missing(s, "firstAck"))?,
        last,
    })
}
