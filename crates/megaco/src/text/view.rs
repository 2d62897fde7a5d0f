//! The borrowed view of a text message ([`crate::view`]): the header, then
//! a pull walk over transactions, actions, commands and termination ids,
//! descriptors skipped.
//!
//! What it reads it reads with the owned decoder's own code (the lexer,
//! the keyword table of the message's version, [`super::header`]), so that
//! whatever it yields for a message the owned decoder accepts is what the
//! owned model holds. What it skips (descriptors) it scans byte by byte,
//! stopping only at braces, brackets, commas, quotes and comments, with
//! just the grammar knowledge that keeps it in step: quoted strings and
//! comments are stepped over whole, and the raw `{ }` text after `Local`,
//! `Remote` and `DigitMap`, whose braces and quotes are not the grammar's,
//! is found by the keyword of the item's first word, looked up only at a
//! `{`. It checks no more than that: a message the owned decoder refuses
//! for what lies inside a descriptor may be walked without an error.
//! Nothing is allocated (errors aside); nesting is bounded by the same
//! [`Limits`] as the owned decoder.

use super::header::split_command_prefix;
use super::keyword::{keyword, Kw, KwSet};
use super::lexer::{is_safe, Lexer, Tok, R};
use crate::error::{DecodeError, Limit};
use crate::view::{
    CommandKind, CommandView, Item, MessageView, Queued, TermIdView, TransactionView,
};
use crate::Limits;

/// Reads the header of a text message; the walker starts at its first
/// transaction.
pub(crate) fn parse<'a>(
    bytes: &'a [u8],
    limits: &'a Limits,
) -> Result<MessageView<'a>, DecodeError> {
    if bytes.len() > limits.max_message_size {
        return Err(DecodeError::text(
            bytes,
            0,
            Limit::MessageSize.exceeded(limits, Some(bytes.len())),
        ));
    }
    header(bytes, limits)
}

fn header<'a>(bytes: &'a [u8], limits: &'a Limits) -> R<MessageView<'a>> {
    let mut lx = Lexer::new(bytes, limits);
    lx.header()?;
    let version = lx.version;
    let mid = lx.mid_view()?;
    lx.sep("white space after the mId")?;
    let t = lx.token(TRANSACTION)?;
    if t.kw == Some(Kw::Error) {
        let (code, _) = lx.error_code()?;
        if !lx.at_end() {
            return Err(lx.expected("end of message"));
        }
        return Ok(MessageView::text(version, mid, Some(code), None));
    }
    let walker = TextWalker {
        lx,
        state: State::Transactions,
        ahead: Some(t),
        queued: None,
        transactions: 0,
        actions: 0,
        commands: 0,
        ids: 0,
    };
    Ok(MessageView::text(version, mid, None, Some(walker)))
}

/// Where the walk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before a transaction, or at the end of the message.
    Transactions,
    /// Inside a TransactionResponseAck, before a range.
    Acks,
    /// Inside a transaction's braces, before an action (`reply`: an
    /// action reply).
    Actions { reply: bool },
    /// Inside an action's braces, before a command, a context property or
    /// (in a reply) an error.
    Commands { reply: bool },
    /// The one termination id of the command just yielded (in `ahead`).
    OneId { reply: bool },
    /// Inside the `[ ]` of a command's termination ids.
    IdList { reply: bool },
    /// Inside the `{ }` of an audit reply's `Context { ... }`.
    ContextIds,
    /// After a command's termination ids: its descriptors, if any, to skip.
    AfterIds { reply: bool },
    /// After the last item, or an error.
    Done,
}

/// The walk over a text message's structure.
#[derive(Debug, Clone)]
pub(crate) struct TextWalker<'a> {
    lx: Lexer<'a>,
    state: State,
    /// A word read ahead: the first word of the next transaction or
    /// action, or a command's one termination id.
    ahead: Option<Tok<'a>>,
    /// An item read ahead (a reply's or an action reply's error).
    queued: Option<Queued>,
    /// Items so far in the lists being walked (for the list limit).
    transactions: usize,
    actions: usize,
    commands: usize,
    ids: usize,
}

const TRANSACTION: &str =
    "a transaction (Transaction, Reply, Pending, TransactionResponseAck or Segment)";
const COMMAND: &str = "a command or context property";
const REPLY_ITEM: &str = "a command reply, context property or Error";

impl<'a> TextWalker<'a> {
    /// The next item, `None` after the last.
    pub(crate) fn next_item(&mut self) -> Result<Option<Item<'a>>, DecodeError> {
        if let Some(item) = self.queued.take() {
            return Ok(Some(item.item()));
        }
        match self.step() {
            Ok(item) => Ok(item),
            Err(e) => {
                self.state = State::Done;
                Err(e)
            }
        }
    }

    /// When the walk stands before the actions of the transaction just
    /// read, skips them and the transaction's `}` in one scan (for the
    /// outline; after an error, `Items` reads no further).
    pub(crate) fn skip_actions(&mut self) -> Result<(), DecodeError> {
        if let State::Actions { .. } = self.state {
            let first = match self.ahead.take() {
                Some(t) => First::Known(t.kw),
                None => First::At(self.lx.pos),
            };
            self.skip_items(Ctx::Generic, first, true)?;
            self.state = State::Transactions;
        }
        Ok(())
    }

    fn step(&mut self) -> R<Option<Item<'a>>> {
        loop {
            match self.state {
                State::Done => return Ok(None),
                State::Transactions => {
                    let t = match self.ahead.take() {
                        Some(t) => t,
                        None if self.lx.at_end() => {
                            self.state = State::Done;
                            return Ok(None);
                        }
                        None => self.lx.token(TRANSACTION)?,
                    };
                    self.transactions += 1;
                    if self.transactions > self.lx.limits.max_list_len {
                        return Err(self.lx.too_many());
                    }
                    return self.transaction(t).map(Some);
                }
                State::Acks => {
                    let (first, last) = self.lx.transaction_ack()?;
                    if !self.lx.next_item(&mut self.ids)? {
                        self.state = State::Transactions;
                    }
                    return Ok(Some(Item::Ack { first, last }));
                }
                State::Actions { reply } => return self.action(reply).map(Some),
                State::Commands { reply } => {
                    if let Some(item) = self.command(reply)? {
                        return Ok(Some(item));
                    }
                }
                State::OneId { reply } => {
                    self.state = State::AfterIds { reply };
                    if let Some(t) = self.ahead.take() {
                        return Ok(Some(termination_id(t.text)));
                    }
                }
                State::IdList { reply } => {
                    let (_, w) = self.lx.word("a termination id")?;
                    if self.lx.eat(b',') {
                        self.lx.count(&mut self.ids)?;
                    } else {
                        self.lx.close_square()?;
                        self.state = State::AfterIds { reply };
                    }
                    return Ok(Some(termination_id(w)));
                }
                State::ContextIds => {
                    let t = match self.ahead.take() {
                        Some(t) => t,
                        None => self.lx.plain_word("a termination id")?,
                    };
                    if !self.lx.next_item(&mut self.ids)? {
                        self.state = State::AfterIds { reply: true };
                    }
                    return Ok(Some(termination_id(t.text)));
                }
                State::AfterIds { reply } => {
                    if self.lx.peek() == Some(b'{') {
                        self.skip_block(Ctx::Generic)?;
                    }
                    self.end_of_command(reply)?;
                }
            }
        }
    }

    /// A transaction, its first word `t` read.
    fn transaction(&mut self, t: Tok<'a>) -> R<Item<'a>> {
        let lx = &mut self.lx;
        let view = match t.kw {
            Some(Kw::Trans) => {
                let mut id = 0;
                if lx.eat(b'=') && lx.peek() != Some(b'{') {
                    id = lx.u32_word("a transaction id")?;
                }
                lx.open()?;
                self.actions = 0;
                self.state = State::Actions { reply: false };
                TransactionView::Request { id }
            }
            Some(Kw::Reply) => {
                lx.equal()?;
                let (at, w) = lx.word("a transaction id")?;
                let (id, segment_number, segmentation_complete) = lx.tid_and_segment(at, w)?;
                lx.open()?;
                let mut t = lx.token("ImmAckRequired, Error or Context")?;
                let imm_ack_required = t.kw == Some(Kw::ImmAckRequired);
                if imm_ack_required {
                    lx.expect(b',', "`,`")?;
                    t = lx.token("Error or Context")?;
                }
                if t.kw == Some(Kw::Error) {
                    let (code, _) = lx.error_code()?;
                    lx.close()?;
                    self.queued = Some(Queued::TransactionError(code));
                    self.state = State::Transactions;
                } else {
                    self.ahead = Some(t);
                    self.actions = 0;
                    self.state = State::Actions { reply: true };
                }
                TransactionView::Reply {
                    id,
                    imm_ack_required,
                    segment_number,
                    segmentation_complete,
                }
            }
            Some(Kw::Pending) => {
                lx.equal()?;
                let id = lx.u32_word("a transaction id")?;
                lx.open()?;
                lx.close()?;
                TransactionView::Pending { id }
            }
            Some(Kw::ResponseAck) => {
                lx.open()?;
                self.ids = 0;
                self.state = State::Acks;
                TransactionView::ResponseAck
            }
            Some(Kw::Segment) => {
                lx.equal()?;
                let (at, w) = lx.word("a transaction id and segment number")?;
                let (id, seg, segmentation_complete) = lx.tid_and_segment(at, w)?;
                let segment_number = seg.ok_or_else(|| lx.missing(at, "segment number"))?;
                TransactionView::SegmentReply {
                    id,
                    segment_number,
                    segmentation_complete,
                }
            }
            _ => return Err(lx.unknown(t, TRANSACTION)),
        };
        Ok(Item::Transaction(view))
    }

    /// `Context = id` and what opens its body.
    fn action(&mut self, reply: bool) -> R<Item<'a>> {
        let t = match self.ahead.take() {
            Some(t) => t,
            None => self.lx.token("Context")?,
        };
        if t.kw != Some(Kw::Ctx) {
            return Err(self.lx.unknown(t, "Context"));
        }
        self.lx.equal()?;
        let context_id = self.lx.context_id()?;
        self.commands = 0;
        if reply && self.lx.peek() != Some(b'{') {
            self.end_of_action(reply)?;
        } else {
            self.lx.open()?;
            if self.lx.eat(b'}') {
                self.lx.leave();
                self.end_of_action(reply)?;
            } else {
                if reply {
                    self.queued = self.action_error()?;
                }
                self.state = State::Commands { reply };
            }
        }
        Ok(Item::Action { context_id })
    }

    /// An action reply's error, wherever it is among its items (the view
    /// yields it right after the action, as the model holds it apart).
    fn action_error(&mut self) -> R<Option<Queued>> {
        let save = self.lx.clone();
        let mut error = None;
        let mut n = 0;
        loop {
            let t = self.lx.token(REPLY_ITEM)?;
            if t.kw == Some(Kw::Error) && error.is_none() {
                let (code, _) = self.lx.error_code()?;
                error = Some(Queued::ActionError(code));
            } else {
                self.skip_rest(Ctx::Generic, t.kw)?;
            }
            if !self.lx.next_item(&mut n)? {
                break;
            }
        }
        self.lx = save;
        Ok(error)
    }

    /// One item of an action's body: a command (yielded) or something
    /// skipped (`None`).
    fn command(&mut self, reply: bool) -> R<Option<Item<'a>>> {
        let t = self.lx.token(if reply { REPLY_ITEM } else { COMMAND })?;
        let (optional, wildcard_return, kw) = if reply {
            (false, false, t.kw)
        } else {
            let (o, w, name) = split_command_prefix(t.text);
            if name.len() < t.text.len() {
                (o, w, keyword(name.as_bytes(), self.lx.version))
            } else {
                (false, false, t.kw)
            }
        };
        let prefixed = optional || wildcard_return;
        let kind = match kw {
            Some(Kw::Add) => CommandKind::Add,
            Some(Kw::Move) => CommandKind::Move,
            Some(Kw::Modify) => CommandKind::Modify,
            Some(Kw::Subtract) => CommandKind::Subtract,
            Some(Kw::AuditValue) => CommandKind::AuditValue,
            Some(Kw::AuditCap) => CommandKind::AuditCapability,
            Some(Kw::Notify) => CommandKind::Notify,
            Some(Kw::ServiceChange) => CommandKind::ServiceChange,
            Some(
                Kw::Topology
                | Kw::Priority
                | Kw::Emergency
                | Kw::EmergencyOff
                | Kw::Ieps
                | Kw::ContextAttr,
            ) if !prefixed => {
                self.skip_rest(Ctx::Generic, kw)?;
                self.end_of_command(reply)?;
                return Ok(None);
            }
            Some(Kw::ContextAudit) if !reply && !prefixed => {
                self.skip_rest(Ctx::Generic, kw)?;
                self.end_of_command(reply)?;
                return Ok(None);
            }
            Some(Kw::Error) if reply => {
                // Yielded after the action (see `action_error`).
                self.skip_rest(Ctx::Generic, kw)?;
                self.end_of_command(reply)?;
                return Ok(None);
            }
            _ => return Err(self.lx.unknown(t, if reply { REPLY_ITEM } else { COMMAND })),
        };
        self.lx.equal()?;
        self.ids = 0;
        let audit_reply =
            reply && matches!(kind, CommandKind::AuditValue | CommandKind::AuditCapability);
        if self.lx.version >= 3 && self.lx.open_square()? {
            self.state = State::IdList { reply };
        } else {
            // Only an audit reply's `Context` needs the keyword.
            let id = if audit_reply {
                self.lx.token("a termination id")?
            } else {
                self.lx.plain_word("a termination id")?
            };
            if audit_reply && id.kw == Some(Kw::Ctx) {
                self.lx.open()?;
                let first = self.lx.token("Error or a termination id")?;
                if first.kw == Some(Kw::Error) {
                    self.lx.error_code()?;
                    self.lx.close()?;
                    self.state = State::AfterIds { reply };
                } else {
                    self.ahead = Some(first);
                    self.state = State::ContextIds;
                }
            } else {
                self.ahead = Some(id);
                self.state = State::OneId { reply };
            }
        }
        Ok(Some(Item::Command(CommandView {
            kind,
            reply,
            optional,
            wildcard_return,
        })))
    }

    /// After a command (or another item of an action's body): `,` and
    /// another, or `}` and the end of the action.
    fn end_of_command(&mut self, reply: bool) -> R<()> {
        if self.lx.next_item(&mut self.commands)? {
            self.state = State::Commands { reply };
            Ok(())
        } else {
            self.end_of_action(reply)
        }
    }

    /// After an action: `,` and another, or `}` and the end of the
    /// transaction.
    fn end_of_action(&mut self, reply: bool) -> R<()> {
        self.state = if self.lx.next_item(&mut self.actions)? {
            State::Actions { reply }
        } else {
            State::Transactions
        };
        Ok(())
    }
}

/// A termination id as the owned decoder reads it (`ROOT` in any case is
/// `ROOT`).
fn termination_id(w: &str) -> Item<'_> {
    Item::TerminationId(TermIdView::text(if w.eq_ignore_ascii_case("root") {
        "ROOT"
    } else {
        w
    }))
}

// ---- skipping ----------------------------------------------------------

/// What a skipped `{ }` holds, for what its words mean: where `DigitMap`,
/// `Local` and `Remote` are followed by raw text, and where a `{` opens a
/// list of signals, of events, or of values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// Descriptors and their parameters.
    Generic,
    /// A Signals descriptor or signal list: signals.
    Signals,
    /// An Events descriptor: requested events.
    Events,
    /// A requested event's parameters (DigitMap, Embed, ...).
    EventParams,
    /// Observed events or an event buffer: events with plain parameters.
    PlainEvents,
    /// Parameters and value lists: no keyword has a meaning.
    Values,
}

impl Ctx {
    /// What a `{` in an item of this context holds, the item's first word
    /// being `kw`.
    fn inner(self, kw: Option<Kw>) -> Ctx {
        match (self, kw) {
            (Ctx::Generic, Some(Kw::Signals)) => Ctx::Signals,
            (Ctx::Generic, Some(Kw::Events)) => Ctx::Events,
            (Ctx::Generic, Some(Kw::ObservedEvents | Kw::EventBuffer)) => Ctx::PlainEvents,
            (Ctx::Generic, _) => Ctx::Generic,
            (Ctx::Signals, Some(Kw::SignalList)) => Ctx::Signals,
            (Ctx::Events, _) => Ctx::EventParams,
            (Ctx::EventParams, Some(Kw::Embed | Kw::RegulatedNotify)) => Ctx::Generic,
            _ => Ctx::Values,
        }
    }

    /// Whether a `{` in an item of this context whose first word is `kw`
    /// opens raw text.
    fn raw(self, kw: Option<Kw>) -> bool {
        match kw {
            Some(Kw::DigitMap) => matches!(self, Ctx::Generic | Ctx::EventParams),
            Some(Kw::Local | Kw::Remote) => self == Ctx::Generic,
            _ => false,
        }
    }
}

/// The keywords that change how a `{` is skipped ([`Ctx::inner`] and
/// [`Ctx::raw`]); any other word's keyword works as no keyword there.
const SKIP_KEYWORDS: KwSet = KwSet::new(&[
    Kw::Signals,
    Kw::Events,
    Kw::ObservedEvents,
    Kw::EventBuffer,
    Kw::SignalList,
    Kw::Embed,
    Kw::RegulatedNotify,
    Kw::DigitMap,
    Kw::Local,
    Kw::Remote,
]);

/// The keyword of a skipped item's first word: known (the caller read
/// the word), or to be looked up from where the item starts, which is
/// done only when a `{` in the item makes it matter.
#[derive(Debug, Clone, Copy)]
enum First {
    Known(Option<Kw>),
    At(usize),
}

/// The bytes the skipping scan stops at: braces, brackets, the comma
/// between items, and what opens a quoted string or a comment. Words,
/// white space, `=` and the like it steps over without a look.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let stops = *b"{},[]\";";
    let mut i = 0;
    while i < stops.len() {
        t[stops[i] as usize] = true;
        i += 1;
    }
    t
};

impl TextWalker<'_> {
    /// Skips a `{ ... }` (the cursor on its `{`) whose items are `ctx`.
    fn skip_block(&mut self, ctx: Ctx) -> R<()> {
        self.lx.open()?;
        self.skip_items(ctx, First::At(self.lx.pos), true)
    }

    /// Skips the rest of an item of `ctx` whose first word (already read)
    /// spells `kw`: up to the `,` or `}` that ends it, not read.
    fn skip_rest(&mut self, ctx: Ctx, kw: Option<Kw>) -> R<()> {
        self.skip_items(ctx, First::Known(kw), false)
    }

    /// The scan behind both: from inside an item of `ctx` whose first
    /// word is `first`, to the end of that item (`block` false: the `,`
    /// or `}` after it, not read) or past the `}` that closes the list
    /// (`block`). A `{` in an item is skipped as raw text or as a nested
    /// list, as the item's first word and `ctx` say; `[ ]`, quoted
    /// strings and comments are stepped over whole, so that their commas
    /// and braces do not count.
    fn skip_items(&mut self, ctx: Ctx, mut first: First, block: bool) -> R<()> {
        let mut square = 0usize;
        let mut kw = None;
        loop {
            let b = self.lx.rest_from(0).as_bytes();
            let mut i = self.lx.pos;
            while i < b.len() && !STOP[b[i] as usize] {
                i += 1;
            }
            self.lx.pos = i;
            let Some(&c) = b.get(i) else {
                return Err(self.lx.expected("`}`"));
            };
            match c {
                b',' | b'}' if square == 0 => {
                    if !block {
                        return Ok(());
                    }
                    self.lx.pos += 1;
                    if c == b'}' {
                        self.lx.leave();
                        return Ok(());
                    }
                    first = First::At(self.lx.pos);
                    kw = None;
                }
                b',' => self.lx.pos += 1,
                b'{' => {
                    let kw = *kw.get_or_insert_with(|| self.first_keyword(first));
                    if ctx.raw(kw) {
                        self.lx.octet_string()?;
                    } else {
                        self.skip_block(ctx.inner(kw))?;
                    }
                }
                b'[' => {
                    self.lx.pos += 1;
                    self.lx.enter()?;
                    square += 1;
                }
                b']' if square > 0 => {
                    self.lx.pos += 1;
                    self.lx.leave();
                    square -= 1;
                }
                b'"' => {
                    self.lx.quoted()?;
                }
                b';' => self.lx.ws(),
                _ => return Err(self.lx.expected("a descriptor's item, `,` or `}`")),
            }
        }
    }

    /// The keyword an item's first word spells.
    fn first_keyword(&mut self, first: First) -> Option<Kw> {
        match first {
            First::Known(kw) => kw,
            First::At(at) => {
                let save = self.lx.pos;
                self.lx.pos = at;
                self.lx.ws();
                let word = self.lx.rest_from(self.lx.pos).as_bytes();
                let n = word.iter().take_while(|&&c| is_safe(c)).count();
                let kw = SKIP_KEYWORDS.keyword(&word[..n], self.lx.version);
                self.lx.pos = save;
                kw
            }
        }
    }
}
