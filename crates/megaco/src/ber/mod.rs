//! The ASN.1 BER encoding of Megaco (H.248.1 Annex A; RFC 3525 A.2).
//!
//! One codec covers versions 1, 2 and 3: their ASN.1 modules differ only by
//! extension additions, so a message is written with the v3 module and
//! whatever its version does not have is simply absent (the encoder refuses
//! a message that uses constructs its version lacks, see
//! [`crate::version::check`]). The decoder is not told the version: it
//! reads the `version` INTEGER, the first field of `Message`, and accepts
//! 1 to 3.
//!
//! # Dialects
//!
//! - [`Dialect::Standard`] (default): property, parameter, statistic and
//!   ServiceChange reason values are "double wrapped" as RFC 3525 A.2
//!   requires, by the value type the [`NameRegistry`] gives (see
//!   [`crate::asn1::values`]). This is what Wireshark and standard
//!   implementations read.
//! - [`Dialect::Otp`]: values are the raw text octets, as Erlang/OTP's
//!   `megaco_ber_encoder` writes them; encoding is byte-identical to OTP's.
//!
//! # Mappings
//!
//! The model is text-form (`"al/of"`, `"11111111/00000000/$"`).
//! [`Mapping::Text`] maps names through the registry and termination ids
//! through the given level widths (OTP's default behaviour, whose default
//! is three levels of 8 bits). [`Mapping::Native`] maps nothing and keeps
//! the ASN.1 form in a reversible text form, like OTP's `[native]` config
//! keeps ASN.1 records: every `PkgdName` is `0xPPPP/0xIIII` (or `0xIIII`
//! for package `00 00`), every parameter, package and digit map name is
//! `0xHHHH`, and every termination id is `0x<id octets>[#<wildcard octet>…]`
//! (`0xffffffffffffffff` for root, `0x000000#57` for `$`). Use it to relay
//! or inspect messages whose packages or id layout are unknown.
//!
//! Under `Text`, codes the registry does not know, and ids that do not fit
//! the levels, decode to those same native forms, and every native form is
//! accepted back by the encoder, so decode → encode is lossless.
//!
//! # Robustness
//!
//! The decoder takes untrusted bytes: every length is checked against the
//! bytes left in its container before anything is read, and the
//! [`BerConfig::limits`] bound the message size, the nesting (which also
//! bounds the one recursive ASN.1 type, regulated notify behaviours), the
//! components of one constructed value and the length of a primitive
//! value. Errors are a [`DecodeError`] with
//! the byte offset and what was expected. Long-form and indefinite lengths
//! are accepted; components of a SEQUENCE may come in any order, and
//! components with tags the v3 module does not have (extension additions
//! of later versions) are skipped, as are unknown alternatives of a CHOICE
//! that is a list element (a transaction, a descriptor, a command reply);
//! an unknown alternative elsewhere is an error. The encoder writes
//! definite, minimal lengths.
//!
//! # Where this differs from Erlang/OTP
//!
//! - Domain and device names decode as sent; OTP's name resolver
//!   lower-cases them.
//! - The encoder writes what the model holds: OTP's v3 transformer drops a
//!   digit map's `durationTimer` and a Mux descriptor's non-standard data,
//!   and refuses a Modem descriptor.
//! - Codes the registry does not know decode to the `0x…` forms above;
//!   OTP's resolver fails on them.
//! - Strings that are not UTF-8 decode with U+FFFD replacements.
//! - With level widths that do not add up to whole octets, the id is
//!   padded with zero bits and wildcard positions count the configured
//!   bits; with OTP's default (8, 8, 8) this is OTP's encoding.
//!
//! ```
//! use megaco::ber::{self, BerConfig, Dialect};
//! use megaco::model::*;
//!
//! let msg = MegacoMessage {
//!     auth_header: None,
//!     mess: Message {
//!         version: 1,
//!         mid: Mid::Ip4(Ip4Address { address: [10, 0, 0, 1], port: Some(2944) }),
//!         body: MessageBody::Transactions(smallvec![Transaction::Pending(TransactionPending {
//!             transaction_id: 17,
//!         })]),
//!     },
//! };
//! let cfg = BerConfig { dialect: Dialect::Otp, ..BerConfig::default() };
//! let bytes = ber::encode(&msg, &cfg).unwrap();
//! assert_eq!(&bytes[..4], &[0x30, 0x1c, 0xa1, 0x1a]);
//! assert_eq!(ber::decode(&bytes, &cfg).unwrap(), msg);
//! ```

mod decode;
mod encode;
mod header;
mod reader;
pub(crate) mod view;

use std::sync::Arc;

pub use crate::asn1::names::NameRegistry;
pub use crate::asn1::termid::TermIdLevels;
use crate::{DecodeError, EncodeError, Limits, MegacoMessage};

/// Where an events descriptor sits, which decides the tags of its
/// events' actions: `RequestedActions` at the first level (an Events
/// descriptor) has `secondEvent [2]`; `SecondRequestedActions` (embedded
/// events of a regulated notify behaviour or of a first-level action)
/// has none, and its later components sit one tag number lower. The
/// model folds both into one type, and each codec walks them once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventLevel {
    /// `EventsDescriptor`, `RequestedEvent`, `RequestedActions`.
    First,
    /// `SecondEventsDescriptor`, `SecondRequestedEvent`,
    /// `SecondRequestedActions`.
    Embedded,
}

impl EventLevel {
    /// The tag at this level of a RequestedActions component given by its
    /// first-level tag: components after `secondEvent [2]` move one down.
    #[inline]
    pub(crate) fn tag(self, first_level: u8) -> u8 {
        match self {
            EventLevel::Embedded if first_level & 0x1F > 2 => first_level - 1,
            _ => first_level,
        }
    }

    /// The first-level tag of a component read at this level (the inverse
    /// of [`tag`](Self::tag)); `secondEvent`'s tag is none at the embedded
    /// level, so it maps where no component is.
    #[inline]
    pub(crate) fn first_level_tag(self, tag: u8) -> u8 {
        match self {
            EventLevel::Embedded if (2..31).contains(&(tag & 0x1F)) => tag + 1,
            _ => tag,
        }
    }
}

/// Which BER flavour to read and write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Dialect {
    /// RFC 3525 A.2 double-wrapped values.
    #[default]
    Standard,
    /// Erlang/OTP's raw text values (byte-identical to `megaco_ber_encoder`).
    Otp,
}

/// How names and termination ids map between the model and ASN.1.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Mapping {
    /// Names through the registry, termination ids by these level widths.
    Text(TermIdLevels),
    /// No mapping: the ASN.1 codes in their `0x…` text forms.
    Native,
}

impl Default for Mapping {
    fn default() -> Self {
        Mapping::Text(TermIdLevels::default())
    }
}

/// Configuration of the BER codec.
#[derive(Debug, Clone)]
pub struct BerConfig {
    /// Value wrapping.
    pub dialect: Dialect,
    /// Name and termination id mapping.
    pub mapping: Mapping,
    /// Names, codes and value types of packages (standard packages by
    /// default).
    pub registry: Arc<NameRegistry>,
    /// What the decoder accepts ([`Limits::DEFAULT`]): message size,
    /// nesting of constructed values, components of one constructed value
    /// and length of a primitive value. The encoder refuses embedded events
    /// (regulated notify behaviours) nested deeper than `max_depth`.
    pub limits: Limits,
}

impl Default for BerConfig {
    fn default() -> Self {
        BerConfig {
            dialect: Dialect::Standard,
            mapping: Mapping::default(),
            registry: NameRegistry::standard_arc().clone(),
            limits: Limits::DEFAULT,
        }
    }
}

impl BerConfig {
    /// Erlang/OTP's default: OTP dialect, three levels of 8 bits.
    pub fn otp() -> Self {
        BerConfig {
            dialect: Dialect::Otp,
            ..BerConfig::default()
        }
    }
}

/// Encodes a message as BER.
pub fn encode(msg: &MegacoMessage, cfg: &BerConfig) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(512);
    encode_into(msg, cfg, &mut out)?;
    Ok(out)
}

/// Encodes a message as BER, appending to `out` (which keeps its capacity
/// across calls). On error `out` is left as it was.
pub fn encode_into(
    msg: &MegacoMessage,
    cfg: &BerConfig,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    crate::version::check(msg)?;
    let start = out.len();
    let r = encode::encode_message(msg, cfg, out);
    if r.is_err() {
        out.truncate(start);
    }
    r
}

/// Decodes one BER message (any of versions 1 to 3).
pub fn decode(bytes: &[u8], cfg: &BerConfig) -> Result<MegacoMessage, DecodeError> {
    decode::decode_message(bytes, cfg)
}

/// The protocol version of a BER message, read from its header alone (as
/// Erlang/OTP's `version_of/2`), in either dialect: enough to pick a
/// configuration or answer in the peer's version before decoding.
///
/// ```
/// use megaco::ber;
/// let msg = megaco::text::decode(b"!/2 <mg1> T=1{C=-{AV=ROOT}}").unwrap();
/// let bytes = ber::encode(&msg, &ber::BerConfig::default()).unwrap();
/// assert_eq!(ber::version_of(&bytes), Ok(2));
/// assert!(ber::version_of(&bytes[..4]).is_err());
/// ```
pub fn version_of(bytes: &[u8]) -> Result<u8, DecodeError> {
    decode::version_of(bytes)
}
