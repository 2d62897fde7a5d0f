//! Text encoders: the pretty form (long keywords, one item per line,
//! tab-indented) and the compact form (short keywords, no optional
//! whitespace).
//!
//! Both write the same bytes as Erlang/OTP's megaco 4.4.2 encoders
//! (`megaco_pretty_text_encoder` / `megaco_compact_text_encoder`), using
//! the v1, v2 or v3 layout according to [`Message::version`]: the three
//! OTP generators differ in a few places (indentation of topology triples
//! and of some audit items, `EmergencyOff` spelling, how property lists are
//! bracketed, ...). The few places where OTP writes something no parser
//! accepts are written in the standard form instead; see the deviations
//! listed on [`encode`].
//!
//! The encoders append to a caller-supplied `Vec<u8>` and build no
//! intermediate strings. One file per descriptor family, as in the
//! decoder and the binary codecs; `writer` holds the primitives (tokens,
//! punctuation with OTP's indentation, names, values and quoted strings).

mod audit;
mod commands;
mod events;
mod media;
mod message;
mod replies;
mod service_change;
mod signals;
mod tokens;
mod writer;

use crate::{EncodeError, MegacoMessage};
use tokens::Tokens;

/// Which text form to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// Long keywords, indented.
    Pretty,
    /// Short keywords, no optional whitespace.
    Compact,
}

/// Appends the text encoding of `msg` in `style` to `out`.
///
/// The message is first checked with [`crate::version::check`], so a
/// construct its protocol version cannot carry gives
/// [`EncodeError::Version`]; a value the text grammar cannot express (an
/// empty termination id list where one is required, a quote inside a
/// quoted string, a property list the encoder does not know how to
/// bracket, ...) gives [`EncodeError::Invalid`]. On error nothing is left
/// appended to `out`.
///
/// Deviations from Erlang/OTP megaco 4.4.2 (where OTP writes something
/// that neither it nor any other parser reads back):
///
/// - a v3 topology triple's stream is written `Stream = 5`; OTP writes the
///   bare number;
/// - a v3 audited signal's stream is written `Stream = 5`; OTP writes the
///   bare number;
/// - a ServiceChange's v2/v3 audit items (`serviceChangeInfo`) are written
///   as the bare audit items the ABNF asks for (`Media, Events`); OTP
///   fails on them;
/// - an event's digit map value is written `DigitMap = { ... }`, as the
///   ABNF has it; OTP writes `DigitMap { ... }` (and reads both);
/// - a value holding upper-case letters is written quoted (`"ABC"`), so
///   that it reads back as it is; OTP writes it bare, and a bare value
///   reads back lower-cased;
/// - audit-reply items that OTP cannot write (`Events`, `Signals`,
///   `EventBuffer` in [`EmptyDescriptors`](crate::model::AuditReturnParameter::EmptyDescriptors))
///   are written as their keywords.
///
/// What text cannot tell apart: an action's `ContextRequest` or
/// `ContextAttrAuditRequest` with nothing set writes nothing (its items
/// are elements of the action's list; the grammar has no empty form), so
/// it reads back as `None`. In version 1, `emergency: Some(false)` writes
/// nothing either (v1 has `EmergencyToken` alone; `EmergencyOffToken`
/// came with v2, as OTP has it), so it reads back as `None`.
///
/// ```
/// use megaco::model::*;
/// use megaco::text::{encode, Style};
///
/// let msg = MegacoMessage {
///     auth_header: None,
///     mess: Message {
///         version: 1,
///         mid: Mid::Ip4(Ip4Address { address: [10, 0, 0, 1], port: Some(2944) }),
///         body: MessageBody::Transactions(smallvec![Transaction::Pending(TransactionPending {
///             transaction_id: 17,
///         })]),
///     },
/// };
/// let mut out = Vec::new();
/// encode(&msg, Style::Compact, &mut out).unwrap();
/// assert_eq!(out, b"!/1 [10.0.0.1]:2944\nPN=17{}");
/// out.clear();
/// encode(&msg, Style::Pretty, &mut out).unwrap();
/// assert_eq!(out, b"MEGACO/1 [10.0.0.1]:2944\nPending = 17 {\n\t\n}");
/// ```
pub fn encode(msg: &MegacoMessage, style: Style, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    crate::version::check(msg)?;
    let start = out.len();
    let mut enc = Enc::new(out, style, msg.mess.version);
    let result = enc.megaco_message(msg);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// The pretty text encoding of `msg`.
pub fn encode_pretty(msg: &MegacoMessage) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(1024);
    encode(msg, Style::Pretty, &mut out)?;
    Ok(out)
}

/// The compact text encoding of `msg`.
pub fn encode_compact(msg: &MegacoMessage) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(512);
    encode(msg, Style::Compact, &mut out)?;
    Ok(out)
}

type R = Result<(), EncodeError>;

use crate::error::invalid;

/// The encoder state: output, form and protocol version. Indentation
/// depth is passed down explicitly (OTP's `State`).
pub(super) struct Enc<'a> {
    out: &'a mut Vec<u8>,
    pretty: bool,
    v: u8,
    t: &'static Tokens,
    /// Nesting of regulated notifications (the one recursive part of the
    /// model), bounded by [`MAX_NESTING`].
    nesting: usize,
}

/// Deepest nesting of regulated-notification embedded events written.
const MAX_NESTING: usize = 32;

impl<'a> Enc<'a> {
    fn new(out: &'a mut Vec<u8>, style: Style, v: u8) -> Self {
        let pretty = style == Style::Pretty;
        Enc {
            out,
            pretty,
            v,
            t: if pretty {
                &tokens::PRETTY
            } else {
                &tokens::COMPACT
            },
            nesting: 0,
        }
    }
}
