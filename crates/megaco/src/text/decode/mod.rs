//! Text decoder: RFC 3525 Annex B (v1) plus the H.248.1 (09/2005) Annex B
//! additions (v2, v3), pretty, compact and any mix of the two.
//!
//! A hand-written recursive-descent parser over the input bytes, one file
//! per descriptor family (the same files as the binary codecs): `message`
//! (header, transactions, actions), `commands`, `media`, `events`,
//! `signals`, `audit`, `service_change` and `replies`. It maps to the model
//! the way Erlang/OTP's megaco text parser maps to its records: names and
//! unquoted values are lower-cased, `Local`/`Remote` SDP becomes property
//! groups (a new group at each `v=` line), digit-map timers are split off
//! the body, and so on. Keywords are those of the message's version (a v3
//! keyword is an ordinary name in a v1 message, as in OTP's scanner).
//! Nesting is bounded by [`Limits::max_depth`]; every error carries its
//! line, column and byte offset.
//!
//! # Where the model differs from OTP's records
//!
//! Checked against OTP 4.4.2 (megaco_text_parser_v1/v2/v3); every corpus
//! vector decodes to the model OTP's BER and text encoders reproduce.
//! Deliberate differences, all outside the corpus:
//!
//! - Termination ids are kept as written (OTP lower-cases them); `ROOT` in
//!   any case becomes [`TerminationId::root`].
//! - Audit tokens keep the order written (OTP reverses the bare descriptor
//!   names of an audit reply, e.g. corpus msg79a01).
//! - Event parameters keep their relation, range or list in `extra_info`
//!   (OTP drops it for event parameters, not for signal parameters).
//! - An audited Media with both `TerminationState` and stream items keeps
//!   both (OTP keeps only the kind given last).
//! - An audited property written with a value (`name=value`) alone is read
//!   as one valued item; OTP rejects it. After a bare audited name it
//!   completes that item, as OTP reads `tdmc/gain, tdmc/gain=2` (corpus
//!   msg76a02), and this holds in TerminationState and ContextAudit too,
//!   where OTP drops the value.
//! - Valid syntax OTP rejects is read: a v1 `Signals { }` (RFC 3525 makes
//!   the braces of a v1 Signals descriptor mandatory), `Notify` with both
//!   `ObservedEvents` and `Error`.
//!
//! What the decoder accepts beyond the ABNF, and why, is listed in
//! `docs/text-grammar.md`.

mod audit;
mod commands;
mod events;
mod media;
mod message;
mod replies;
mod service_change;
mod signals;

use std::ops::{Deref, DerefMut};

use super::lexer::{Lexer, Tok, R};
use crate::error::{DecodeError, Limit};
use crate::model::*;

pub use crate::limits::Limits;

/// Decodes a text message (pretty, compact or mixed).
///
/// ```
/// use megaco::model::*;
/// let msg = megaco::text::decode(b"!/1 [10.0.0.1]:2944 T=7{C=${A=$}}").unwrap();
/// assert_eq!(msg.mess.version, 1);
/// let MessageBody::Transactions(t) = &msg.mess.body else { panic!() };
/// let Transaction::Request(r) = &t[0] else { panic!() };
/// assert_eq!(r.transaction_id, 7);
/// assert_eq!(r.actions[0].context_id, ContextId::CHOOSE);
/// ```
pub fn decode(input: &[u8]) -> Result<MegacoMessage, DecodeError> {
    decode_with(input, &Limits::DEFAULT)
}

/// Decodes a text message with explicit limits.
pub fn decode_with(input: &[u8], limits: &Limits) -> Result<MegacoMessage, DecodeError> {
    if input.len() > limits.max_message_size {
        return Err(DecodeError::text(
            input,
            0,
            Limit::MessageSize.exceeded(limits, Some(input.len())),
        ));
    }
    let mut p = Parser {
        lx: Lexer::new(input, limits),
    };
    p.megaco_message()
}

/// The protocol version of a text message, read from its header alone
/// (as Erlang/OTP's `version_of/2`): what a transport needs to pick a
/// configuration or answer in the peer's version before decoding the
/// whole message. Only the header is checked.
///
/// ```
/// assert_eq!(megaco::text::version_of(b"MEGACO/2 <mg1> T=1{}"), Ok(2));
/// assert!(megaco::text::version_of(b"MEGACO/4 <mg1>").is_err());
/// ```
pub fn version_of(input: &[u8]) -> Result<u8, DecodeError> {
    let limits = Limits::DEFAULT;
    let mut p = Parser {
        lx: Lexer::new(input, &limits),
    };
    p.lx.header()?;
    Ok(p.version)
}

/// The parser: a [`Lexer`] whose methods (one file per descriptor family)
/// build the model.
struct Parser<'a> {
    lx: Lexer<'a>,
}

impl<'a> Deref for Parser<'a> {
    type Target = Lexer<'a>;
    #[inline]
    fn deref(&self) -> &Lexer<'a> {
        &self.lx
    }
}

impl DerefMut for Parser<'_> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.lx
    }
}

impl<'a> Parser<'a> {
    /// The items of a list whose `{` and first word are read: `item` is
    /// called with that word, then with the first word of each further
    /// item; the `}` is read.
    fn items_from(
        &mut self,
        first: Tok<'a>,
        what: &'static str,
        mut item: impl FnMut(&mut Self, Tok<'a>) -> R<()>,
    ) -> R<()> {
        item(self, first)?;
        let mut n = 0;
        while self.next_item(&mut n)? {
            let t = self.token(what)?;
            item(self, t)?;
        }
        Ok(())
    }

    /// `{ item *(, item) }`: the list's `{`, each item read by `item`, and
    /// its `}`.
    #[inline]
    fn braced(&mut self, mut item: impl FnMut(&mut Self) -> R<()>) -> R<()> {
        self.open()?;
        self.items(&mut item)
    }

    /// The items of a list whose `{` is read, and its `}`.
    #[inline]
    fn items(&mut self, mut item: impl FnMut(&mut Self) -> R<()>) -> R<()> {
        let mut n = 0;
        loop {
            item(self)?;
            if !self.next_item(&mut n)? {
                return Ok(());
            }
        }
    }

    /// `[ item *(, item) ]` after its `[`, and the `]`.
    fn square_items(&mut self, mut item: impl FnMut(&mut Self) -> R<()>) -> R<()> {
        let mut n = 0;
        loop {
            item(self)?;
            if !self.eat(b',') {
                return self.close_square();
            }
            self.count(&mut n)?;
        }
    }
}

/// A word as a model string, case kept.
#[inline]
fn text(w: &str) -> CompactString {
    CompactString::from(w)
}

/// A word lower-cased, as OTP's scanner reads names and unquoted values.
#[inline]
fn lower(w: &str) -> CompactString {
    lower_as(w, w.bytes().any(|b| b.is_ascii_uppercase()))
}

/// [`lower`] of a word known to hold an upper-case letter (`upper`) or
/// none.
fn lower_as(w: &str, upper: bool) -> CompactString {
    let mut s = CompactString::from(w);
    if upper {
        s.make_ascii_lowercase();
    }
    s
}
