//! The Megaco/H.248 message model: one set of types for v1, v2 and v3.
//!
//! The shape follows the H.248.1 v3 ASN.1 module (Annex A), which is a
//! superset of v1 and v2; the protocol version travels in
//! [`Message::version`]. Values are kept in their *text* form, the form of
//! the text encoding (RFC 3525 Annex B) and of Erlang/OTP's megaco records:
//! package names are `"al/of"`, termination ids `"11111111/00000000/00000000"`,
//! property values are lists of strings. The binary codecs map these to the
//! ASN.1 form (packed termination ids, 2+2-octet package/item codes).
//!
//! Fields that are `OPTIONAL` in ASN.1 are `Option`; an optional `NULL` is a
//! `bool`. Optional `SEQUENCE OF` fields are `Option<Vec<_>>` so that absent
//! and empty stay distinct, as they are on the wire.
//!
//! ```
//! use megaco::model::*;
//!
//! let msg = MegacoMessage {
//!     auth_header: None,
//!     mess: Message {
//!         version: 1,
//!         mid: "[10.0.0.1]:2944".parse()?,
//!         body: MessageBody::Transactions(
//!             vec![Transaction::Pending(TransactionPending { transaction_id: 17 })].into(),
//!         ),
//!     },
//! };
//! assert_eq!(msg.mess.version, 1);
//! assert_eq!(msg.mess.mid.to_string(), "[10.0.0.1]:2944");
//! # Ok::<(), ParseIdError>(())
//! ```
//!
//! # Memory layout
//!
//! A decoded message is built once and read many times, so the model is
//! shaped by what the messages people send hold (measured on the bundled
//! corpus of 149 messages), to keep decoding to a few allocations:
//!
//! - names, values and texts are [`CompactString`]s, which hold up to 24
//!   bytes inline; names the binary codecs take from their package
//!   registries are static strings and cost nothing;
//! - termination ids hold up to 32 bytes inline ([`TerminationId`]);
//! - lists that nearly always hold one element (transactions, actions,
//!   commands, termination ids, observed events, property values, ...)
//!   are [`SmallList`]s, which keep one element inline;
//! - rare large values are boxed (the ServiceChange command and reply), so
//!   the common ones stay small.
//!
//! None of this changes how the model is used: build strings and lists
//! with `.into()` (or [`smallvec!`]) and read them as `&str` and slices.
//! Structs whose fields all have a natural empty value derive [`Default`],
//! so a value can name only what it sets:
//!
//! ```
//! use megaco::model::*;
//!
//! let signal = Signal { signal_name: "al/ri".into(), duration: Some(500), ..Default::default() };
//! let t: TerminationId = "11111111/00000000/00000001".parse()?;
//! let notify = NotifyRequest { termination_ids: smallvec![t], ..Default::default() };
//! assert_eq!(notify.termination_ids[0].as_str(), "11111111/00000000/00000001");
//! assert_eq!(signal.signal_name, "al/ri");
//! # Ok::<(), ParseIdError>(())
//! ```
//!
//! # Text forms and serde
//!
//! [`Mid`], [`TerminationId`] and [`ContextId`] implement `Display` and
//! `FromStr` in their text-encoding forms. In human-readable serde formats
//! (JSON) they are those strings (a context id: `"-"`, `"$"`, `"*"` or its
//! number), and enum variants are snake_case (`{"transactions": [...]}`);
//! binary formats keep a compact structural form.
//!
//! # Which types are `#[non_exhaustive]`
//!
//! `#[non_exhaustive]` lets a later release add a variant without breaking
//! callers, at the price of a wildcard arm in every `match` outside this
//! crate. The model uses it where H.248 itself has grown and may grow
//! again by extension (each of these CHOICEs gained alternatives between
//! v1 and v3): [`Transaction`], [`Command`], [`CommandReply`],
//! [`AmmDescriptor`], [`AuditReturnParameter`], [`IndAuditParameter`] and
//! [`MuxType`]. It is not used on the structs, because a non-exhaustive
//! struct cannot be built with a literal outside this crate, even with
//! `..Default::default()`, and building messages field by field is the
//! main use of the model; nor on the closed enumerations (modes, methods,
//! directions), whose values the standard fixes. Error kinds and the
//! codec [`Encoding`](crate::codec::Encoding) are non-exhaustive too;
//! configurations (`BerConfig`, `Limits`, ...) have public fields and
//! `Default`, so that `..Default::default()` keeps working.

// Which variants are boxed is decided by what messages hold (see the
// memory layout above and the `sizes` test), not by the largest variant.
#![allow(clippy::large_enum_variant)]

pub use compact_str::CompactString;
pub use smallvec::{smallvec, SmallVec};

/// A list that stores one element inline and spills to the heap beyond:
/// for lists that nearly always hold exactly one element. Build one with
/// [`smallvec!`] or `.into()` from a `Vec` or array, read it as a slice.
pub type SmallList<T> = SmallVec<[T; 1]>;

/// The values of a property or parameter: nearly always one.
pub type Values = SmallList<CompactString>;

/// Pushes `make()` onto `list` and returns it, for a decoder to fill in
/// place.
///
/// The value is made once there is room for it, so it is written straight
/// into the list: a value made first and pushed after is copied whole,
/// hundreds of bytes for a transaction or an action.
#[inline]
pub(crate) fn push_in_place<T>(list: &mut SmallList<T>, make: impl FnOnce() -> T) -> &mut T {
    list.extend(std::iter::once_with(make));
    let last = list.len() - 1;
    &mut list[last]
}

/// Derives shared by every model type: equality, hashing, serde (enum
/// variants in snake_case; a field the model does not have is an error,
/// not silently dropped) and, for fuzzing, `arbitrary`.
macro_rules! model {
    ($($item:item)*) => {
        $(
            #[derive(Debug, Clone, PartialEq, Eq, Hash)]
            #[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
            #[cfg_attr(feature = "serde", serde(rename_all = "snake_case", deny_unknown_fields))]
            #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
            $item
        )*
    };
}

mod audit;
mod commands;
mod events;
mod ids;
mod media;
mod message;
mod service_change;
mod signals;

pub use audit::*;
pub use commands::*;
pub use events::*;
pub use ids::*;
pub use media::*;
pub use message::*;
pub use service_change::*;
pub use signals::*;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// The sizes decoding moves around; a test so a change that grows them
    /// is a decision, not an accident.
    #[test]
    fn sizes() {
        assert_eq!(size_of::<CompactString>(), 24);
        assert_eq!(size_of::<TerminationId>(), 40);
        assert_eq!(size_of::<Mid>(), 32);
        // A Notify's one observed event is inline; the ServiceChange
        // command and reply and regulated notifications are boxed.
        assert!(size_of::<Command>() <= 200, "{}", size_of::<Command>());
        assert!(size_of::<CommandRequest>() <= 208);
        assert!(size_of::<CommandReply>() <= 88);
        assert!(size_of::<RequestedActions>() <= 200);
        assert!(size_of::<Transaction>() <= 368);
        assert!(size_of::<MegacoMessage>() <= 456);
    }
}
