//! A borrowed, zero-allocation view of a message, for hot paths.
//!
//! Routing a message, detecting a duplicate request or acknowledging a
//! reply needs the header and the transactions' kinds and ids, perhaps the
//! contexts, commands and termination ids; it does not need the whole
//! tree. A [`MessageView`] reads those from the bytes as they are, in the
//! spirit of `httparse`: nothing is allocated and nothing is copied but
//! small fixed-size values. Build the owned model ([`crate::codec`]) only
//! for what you hand on.
//!
//! The view is a pull reader: [`MessageView::items`] yields the message's
//! structure in document order as flat [`Item`]s:
//!
//! ```text
//! Transaction            (a request, reply, pending, ack list or segment reply)
//!   TransactionError     (a reply's error instead of actions)
//!   Ack                  (each range of a TransactionResponseAck)
//!   Action               (each action of a request or reply)
//!     ActionError        (an action reply's error)
//!     Command            (each command or command reply)
//!       TerminationId    (each termination id it names)
//! ```
//!
//! Descriptors are skipped. A message-level error (`ERROR = …` as the
//! whole body) is [`MessageView::error_code`], with no items.
//! [`MessageView::outline`] yields the first three kinds alone, each
//! transaction's actions skipped unread: what a transaction engine reads
//! of a repeated request, a pending or an acknowledgement.
//!
//! ```
//! use megaco::codec::Encoding;
//! use megaco::view::{CommandKind, Item, MessageView, TransactionView};
//!
//! let msg = megaco::text::decode(
//!     b"!/2 [10.0.0.1]:2944 T=9{C=-{N=11111111/00000000/00000001{OE=1{al/of}}}}",
//! )?;
//! let encoding = Encoding::ber();
//! let bytes = encoding.encode(&msg)?;
//!
//! let view = MessageView::parse(&bytes, &encoding)?;
//! assert_eq!(view.version(), 2);
//! assert_eq!(view.mid().to_mid(), msg.mess.mid);
//! let mut items = view.items();
//! assert_eq!(items.next().unwrap()?, Item::Transaction(TransactionView::Request { id: 9 }));
//! assert!(matches!(items.next().unwrap()?, Item::Action { .. }));
//! let Item::Command(c) = items.next().unwrap()? else { panic!() };
//! assert_eq!(c.kind, CommandKind::Notify);
//! let Item::TerminationId(t) = items.next().unwrap()? else { panic!() };
//! assert_eq!(t.to_termination_id().as_str(), "11111111/00000000/00000001");
//! assert!(items.next().is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The view takes untrusted bytes like every decoder: the same
//! [`Limits`](crate::Limits) as the encoding's decoder, typed errors, no
//! panic. It checks what it reads, not what it skips: a message the owned
//! decoder refuses for a malformed descriptor may still be viewed, but
//! whatever the view yields for a message the owned decoder accepts is
//! what the owned model holds (a fuzz target checks this).
//!
//! # Encodings
//!
//! BER (either dialect and mapping) and text (pretty, compact or mixed)
//! are viewed; PER plugs in the same way: a walker type in the codec's
//! module with a `next_item(&mut self) -> Result<Option<Item<'a>>,
//! DecodeError>` method and a `skip_actions` for the outline (leaving the
//! transaction just read without its actions), and its variant in the
//! private `Walker` enum of this module. The native format is not a wire
//! encoding and has no view: decode it.

use std::fmt;

use crate::asn1::termid::{self, AsnTermId, TermIdLevels};
use crate::codec::{DecodeError, DecodeErrorKind, Encoding};
use crate::model::{ContextId, DomainName, Ip4Address, Ip6Address, Mid, TerminationId};

/// A message's header, and a reader of its structure.
#[derive(Debug, Clone)]
pub struct MessageView<'a> {
    version: u8,
    mid: MidView<'a>,
    error_code: Option<u16>,
    walker: Walker<'a>,
}

/// The codec-specific readers behind [`Items`]. (Kept inline: boxing
/// would allocate, and there is one per view.)
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
enum Walker<'a> {
    /// A message-level error: nothing to walk.
    Empty,
    Ber(crate::ber::view::BerWalker<'a>),
    Text(crate::text::view::TextWalker<'a>),
}

impl<'a> MessageView<'a> {
    /// Reads the header of the message in `bytes`, encoded as `encoding`
    /// says, within the limits of its configuration.
    ///
    /// Fails on a header the owned decoder would refuse too, and for an
    /// encoding without a view yet (see the module docs).
    pub fn parse(bytes: &'a [u8], encoding: &'a Encoding) -> Result<Self, DecodeError> {
        match encoding {
            Encoding::Ber(cfg) => crate::ber::view::parse(bytes, cfg),
            Encoding::Text { limits, .. } => crate::text::view::parse(bytes, limits),
            _ => Err(DecodeError::new(
                encoding.kind(),
                0,
                DecodeErrorKind::Unsupported {
                    what: "a borrowed view of this encoding",
                },
            )),
        }
    }

    pub(crate) fn ber(
        version: u8,
        mid: MidView<'a>,
        error_code: Option<u16>,
        walker: Option<crate::ber::view::BerWalker<'a>>,
    ) -> Self {
        MessageView {
            version,
            mid,
            error_code,
            walker: walker.map_or(Walker::Empty, Walker::Ber),
        }
    }

    pub(crate) fn text(
        version: u8,
        mid: MidView<'a>,
        error_code: Option<u16>,
        walker: Option<crate::text::view::TextWalker<'a>>,
    ) -> Self {
        MessageView {
            version,
            mid,
            error_code,
            walker: walker.map_or(Walker::Empty, Walker::Text),
        }
    }

    /// The protocol version, 1 to 3.
    pub fn version(&self) -> u8 {
        self.version
    }

    /// The sender's message identifier, as written in the bytes.
    pub fn mid(&self) -> &MidView<'a> {
        &self.mid
    }

    /// The error code when the whole body is a message-level error; the
    /// message then has no items.
    pub fn error_code(&self) -> Option<u16> {
        self.error_code
    }

    /// The message's structure in document order (see the module docs).
    /// Cheap to call again: each call starts from the first transaction.
    pub fn items(&self) -> Items<'a> {
        Items {
            walker: self.walker.clone(),
            done: false,
            outline: false,
        }
    }

    /// The message's outline: its transactions, with what they carry
    /// in place of actions ([`Item::TransactionError`] and the ranges of
    /// a TransactionResponseAck, [`Item::Ack`]); each transaction's
    /// actions are skipped unread, in one scan for text. What routing,
    /// duplicate detection and acknowledgement need, at the least cost.
    ///
    /// As everywhere in the view, what is skipped is not checked: a
    /// message whose actions the owned decoder refuses may still be
    /// outlined.
    ///
    /// ```
    /// use megaco::codec::Encoding;
    /// use megaco::view::{Item, MessageView, TransactionView};
    ///
    /// let bytes = b"!/1 [10.0.0.1] T=5{C=1{MF=a{M{L{v=0}}}}} K{3-4}";
    /// let encoding = Encoding::compact();
    /// let view = MessageView::parse(bytes, &encoding)?;
    /// let outline: Vec<Item> = view.outline().collect::<Result<_, _>>()?;
    /// assert_eq!(
    ///     outline,
    ///     [
    ///         Item::Transaction(TransactionView::Request { id: 5 }),
    ///         Item::Transaction(TransactionView::ResponseAck),
    ///         Item::Ack { first: 3, last: Some(4) },
    ///     ]
    /// );
    /// # Ok::<(), megaco::codec::DecodeError>(())
    /// ```
    pub fn outline(&self) -> Items<'a> {
        Items {
            walker: self.walker.clone(),
            done: false,
            outline: true,
        }
    }

    /// The transactions alone ([`MessageView::outline`] without the
    /// errors and acknowledged ranges; like the outline, it does not read
    /// or check the transactions' actions).
    pub fn transactions(&self) -> impl Iterator<Item = Result<TransactionView, DecodeError>> + 'a {
        self.outline().filter_map(|i| match i {
            Ok(Item::Transaction(t)) => Some(Ok(t)),
            Ok(_) => None,
            Err(e) => Some(Err(e)),
        })
    }
}

/// The reader [`MessageView::items`] returns: an iterator of
/// `Result<Item, DecodeError>` that ends after the first error.
#[derive(Debug, Clone)]
pub struct Items<'a> {
    walker: Walker<'a>,
    done: bool,
    /// Transactions' actions skipped ([`MessageView::outline`]).
    outline: bool,
}

impl<'a> Iterator for Items<'a> {
    type Item = Result<Item<'a>, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = match &mut self.walker {
            Walker::Empty => Ok(None),
            Walker::Ber(w) => {
                if self.outline {
                    w.skip_actions();
                }
                w.next_item()
            }
            Walker::Text(w) => {
                if self.outline {
                    if let Err(e) = w.skip_actions() {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
                w.next_item()
            }
        };
        match r {
            Ok(Some(item)) => Some(Ok(item)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// An error a walker read ahead of the item it yields first (a reply's
/// or an action reply's): kept small, as it sits in every [`Items`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Queued {
    TransactionError(u16),
    ActionError(u16),
}

impl Queued {
    pub(crate) fn item<'a>(self) -> Item<'a> {
        match self {
            Queued::TransactionError(code) => Item::TransactionError { code },
            Queued::ActionError(code) => Item::ActionError { code },
        }
    }
}

/// One element of a message's structure (see the module docs for where
/// each appears).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Item<'a> {
    /// A transaction starts.
    Transaction(TransactionView),
    /// A transaction reply's error, in place of its actions.
    TransactionError {
        /// The error code.
        code: u16,
    },
    /// A range of a TransactionResponseAck.
    Ack {
        /// First id of the range.
        first: u32,
        /// Last id of the range, if it is a range.
        last: Option<u32>,
    },
    /// An action of a request or a reply; its commands follow.
    Action {
        /// The context.
        context_id: ContextId,
    },
    /// An action reply's error descriptor.
    ActionError {
        /// The error code.
        code: u16,
    },
    /// A command of a request, or a command reply; its termination ids
    /// follow.
    Command(CommandView),
    /// A termination id of the command just read.
    TerminationId(TermIdView<'a>),
}

/// A transaction's kind and header fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransactionView {
    /// A request; its actions follow.
    Request {
        /// The transaction id.
        id: u32,
    },
    /// A TransactionPending.
    Pending {
        /// The transaction id.
        id: u32,
    },
    /// A reply; its actions (or its error) follow.
    Reply {
        /// The transaction id.
        id: u32,
        /// `ImmAckRequired`.
        imm_ack_required: bool,
        /// v3: the segment number.
        segment_number: Option<u16>,
        /// v3: the last segment.
        segmentation_complete: bool,
    },
    /// A TransactionResponseAck; its ranges follow as [`Item::Ack`].
    ResponseAck,
    /// A v3 segment reply.
    SegmentReply {
        /// The transaction id.
        id: u32,
        /// The segment acknowledged.
        segment_number: u16,
        /// Set on the last segment.
        segmentation_complete: bool,
    },
}

/// A command or a command reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandView {
    /// Which command.
    pub kind: CommandKind,
    /// A command reply (in a transaction reply) rather than a request.
    pub reply: bool,
    /// `O-`: an optional command (requests only).
    pub optional: bool,
    /// `W-`: a wildcarded response is requested (requests only).
    pub wildcard_return: bool,
}

/// The commands of H.248.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CommandKind {
    /// `Add`.
    Add,
    /// `Move`.
    Move,
    /// `Modify`.
    Modify,
    /// `Subtract`.
    Subtract,
    /// `AuditCapability`.
    AuditCapability,
    /// `AuditValue`.
    AuditValue,
    /// `Notify`.
    Notify,
    /// `ServiceChange`.
    ServiceChange,
}

impl CommandKind {
    /// The command's name in text (long form).
    pub fn name(self) -> &'static str {
        match self {
            CommandKind::Add => "Add",
            CommandKind::Move => "Move",
            CommandKind::Modify => "Modify",
            CommandKind::Subtract => "Subtract",
            CommandKind::AuditCapability => "AuditCapability",
            CommandKind::AuditValue => "AuditValue",
            CommandKind::Notify => "Notify",
            CommandKind::ServiceChange => "ServiceChange",
        }
    }

    /// The kind of a model command.
    pub fn of(c: &crate::model::Command) -> Option<CommandKind> {
        use crate::model::Command as C;
        Some(match c {
            C::Add(_) => CommandKind::Add,
            C::Move(_) => CommandKind::Move,
            C::Modify(_) => CommandKind::Modify,
            C::Subtract(_) => CommandKind::Subtract,
            C::AuditCapability(_) => CommandKind::AuditCapability,
            C::AuditValue(_) => CommandKind::AuditValue,
            C::Notify(_) => CommandKind::Notify,
            C::ServiceChange(_) => CommandKind::ServiceChange,
        })
    }

    /// The kind of a model command reply.
    pub fn of_reply(c: &crate::model::CommandReply) -> Option<CommandKind> {
        use crate::model::CommandReply as C;
        Some(match c {
            C::Add(_) => CommandKind::Add,
            C::Move(_) => CommandKind::Move,
            C::Modify(_) => CommandKind::Modify,
            C::Subtract(_) => CommandKind::Subtract,
            C::AuditCapability(_) => CommandKind::AuditCapability,
            C::AuditValue(_) => CommandKind::AuditValue,
            C::Notify(_) => CommandKind::Notify,
            C::ServiceChange(_) => CommandKind::ServiceChange,
        })
    }
}

impl fmt::Display for CommandKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A termination id as it is in the bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TermIdView<'a> {
    repr: TermIdRepr<'a>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TermIdRepr<'a> {
    /// Text: the id as written.
    Text(&'a str),
    /// ASN.1: the packed id and its wildcard octets, mapped to text by
    /// these levels (none: the native form).
    Asn1 {
        id: AsnTermId,
        levels: Option<&'a TermIdLevels>,
    },
}

impl<'a> TermIdView<'a> {
    /// A text termination id.
    #[allow(dead_code)]
    pub(crate) fn text(id: &'a str) -> Self {
        TermIdView {
            repr: TermIdRepr::Text(id),
        }
    }

    pub(crate) fn asn1(id: AsnTermId, levels: Option<&'a TermIdLevels>) -> Self {
        TermIdView {
            repr: TermIdRepr::Asn1 { id, levels },
        }
    }

    /// The id as written, for text.
    pub fn as_text(&self) -> Option<&'a str> {
        match self.repr {
            TermIdRepr::Text(s) => Some(s),
            TermIdRepr::Asn1 { .. } => None,
        }
    }

    /// The packed ASN.1 id (BER, PER).
    pub fn as_asn1(&self) -> Option<&AsnTermId> {
        match &self.repr {
            TermIdRepr::Text(_) => None,
            TermIdRepr::Asn1 { id, .. } => Some(id),
        }
    }

    /// Whether this is the root termination.
    pub fn is_root(&self) -> bool {
        match &self.repr {
            TermIdRepr::Text(s) => s.eq_ignore_ascii_case("root"),
            TermIdRepr::Asn1 { id, .. } => id.is_root(),
        }
    }

    /// The model's termination id, as the owned decoder of the same
    /// encoding builds it (no allocation for ids of up to 32 bytes).
    pub fn to_termination_id(&self) -> TerminationId {
        match &self.repr {
            TermIdRepr::Text(s) => TerminationId::new(s),
            TermIdRepr::Asn1 { id, levels } => termid::to_model(id, *levels),
        }
    }
}

impl fmt::Debug for TermIdView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TermIdView({})", self.to_termination_id())
    }
}

impl fmt::Display for TermIdView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            TermIdRepr::Text(s) => f.write_str(s),
            TermIdRepr::Asn1 { .. } => f.write_str(self.to_termination_id().as_str()),
        }
    }
}

/// A message identifier as it is in the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MidView<'a> {
    /// IPv4 address and port.
    Ip4(Ip4Address),
    /// IPv6 address and port.
    Ip6(Ip6Address),
    /// A domain name (the octets between `<` and `>`) and port.
    Domain {
        /// The name as written.
        name: &'a [u8],
        /// The port.
        port: Option<u16>,
        /// How the owned decoder reads the name.
        form: NameForm,
    },
    /// A device name as written.
    Device {
        /// The name as written.
        name: &'a [u8],
        /// How the owned decoder reads the name.
        form: NameForm,
    },
    /// An MTP address: hex digits (text) or octets (BER, PER).
    Mtp {
        /// The address as written.
        address: &'a [u8],
        /// How the owned decoder reads it.
        form: MtpForm,
    },
}

/// How an encoding's owned decoder turns the octets of a name into the
/// model's string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameForm {
    /// UTF-8, invalid sequences replaced (BER).
    Utf8Lossy,
    /// UTF-8, or else one character per octet (PER, as OTP).
    Utf8OrLatin1,
    /// ASCII, lower-cased (text).
    Lower,
}

/// How an encoding's owned decoder reads an MTP address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MtpForm {
    /// The characters themselves (text, OTP's BER, PER).
    Text(NameForm),
    /// Octets whose hex digits (upper case) are the address (standard
    /// BER).
    Octets,
}

impl NameForm {
    fn to_string(self, b: &[u8]) -> compact_str::CompactString {
        match self {
            NameForm::Utf8Lossy => compact_str::CompactString::from_utf8_lossy(b),
            NameForm::Utf8OrLatin1 => match std::str::from_utf8(b) {
                Ok(s) => s.into(),
                Err(_) => b.iter().map(|&c| char::from(c)).collect(),
            },
            NameForm::Lower => {
                let mut s = compact_str::CompactString::from_utf8_lossy(b);
                s.make_ascii_lowercase();
                s
            }
        }
    }
}

impl MidView<'_> {
    /// The model's mid, as the owned decoder of the same encoding builds
    /// it.
    pub fn to_mid(&self) -> Mid {
        match *self {
            MidView::Ip4(a) => Mid::Ip4(a),
            MidView::Ip6(a) => Mid::Ip6(a),
            MidView::Domain { name, port, form } => Mid::Domain(DomainName {
                name: form.to_string(name),
                port,
            }),
            MidView::Device { name, form } => Mid::Device(form.to_string(name)),
            MidView::Mtp { address, form } => Mid::Mtp(match form {
                MtpForm::Text(f) => f.to_string(address),
                MtpForm::Octets => {
                    const HEX: &[u8; 16] = b"0123456789ABCDEF";
                    address
                        .iter()
                        .flat_map(|&b| [HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xF)]])
                        .map(char::from)
                        .collect()
                }
            }),
        }
    }
}
