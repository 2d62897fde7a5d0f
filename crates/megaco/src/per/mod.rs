//! The ASN.1 aligned PER encoding of Megaco (H.248.1 Annex A), byte for
//! byte as Erlang/OTP's `megaco_per_encoder` writes it.
//!
//! OTP compiles three ASN.1 modules (`MEDIA-GATEWAY-CONTROL-v1`, `-v2`,
//! `-v3`); they differ in extension markers and optionality (v1's
//! `TopologyRequest` has no extension marker, its `EventsDescriptor.requestID`
//! is mandatory, and so on), so the same message gives different bits in
//! each version. The encoder follows the module of the message's
//! [`Message::version`](crate::model::Message::version); the decoder reads
//! the version (the first field of `Message`) and continues with that
//! module's layout.
//!
//! Values of properties, parameters, statistics and ServiceChange reasons
//! travel as their text octets, as OTP does (OTP's dialect, not the
//! "double wrapping" of RFC 3525 A.2).
//!
//! # Following OTP
//!
//! - Strings (IA5String fields and values) carry the octets of the text:
//!   UTF-8 goes out as UTF-8, like OTP's octet lists; on decoding, octets
//!   that are not UTF-8 are read as Latin-1 characters (OTP keeps them as
//!   such). OTP's IA5String encoder does not check for 7-bit characters,
//!   and neither does this one.
//! - Named-bit BIT STRINGs (audit tokens, NotifyCompletion) drop their
//!   trailing zero bits, as OTP's encoder does.
//! - `ServiceChangeProfile` is OTP's single `profileName` string
//!   (`resgw/1`), split into name and version in the model.
//! - An MTP address is carried as the octets of its text, as OTP's text
//!   parser keeps it (only 2 to 4 fit the ASN.1 size).
//! - Extension additions and alternatives unknown to the message's version
//!   are skipped when they are SEQUENCE additions (X.691 open types) and
//!   refused when they are CHOICE alternatives or ENUMERATED values (the
//!   model has no place for them).
//!
//! The decoder refuses nothing it can represent and never panics; counts
//! and lengths are checked against the input left and the
//! [`PerConfig::limits`] (message size, list and string lengths) before
//! anything is allocated. The one recursion of the ASN.1 types (a regulated
//! notify behaviour embeds events whose actions have a notify behaviour
//! again) is bounded by the limits' `max_depth`.
//!
//! ```
//! use megaco::model::*;
//! use megaco::per::{self, PerConfig};
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
//! let cfg = PerConfig::default();
//! let bytes = per::encode(&msg, &cfg).unwrap();
//! assert_eq!(per::decode(&bytes, &cfg).unwrap(), msg);
//! ```

mod bits;
mod decode;
mod encode;
mod form;

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::asn1::names::{ItemKind, NameRegistry};
use crate::asn1::termid::{self, AsnTermId, TermIdLevels};
pub use crate::ber::Mapping;
use crate::error::Limit;
use crate::model::{
    CompactString, MegacoMessage, Message, MessageBody, Mid, SmallList, TerminationId,
};
use crate::{DecodeError, EncodeError, Limits};
use form::{Form, Scope};

/// How the PER codec maps the model's text-form values to ASN.1.
///
/// The default is Erlang/OTP's default binary configuration: the standard
/// package registry and termination ids of three 8-bit levels. The
/// mapping choices are the BER codec's ([`Mapping`]): with
/// [`Mapping::Native`] (OTP's `[native]`) nothing is mapped and names are
/// written as their hex codes (`0x0009/0x0005`), termination ids in the
/// form of [`termid::format_native`] (`0xff0000`).
///
/// PER has no dialects: values always travel as their text octets, as OTP
/// writes them.
#[derive(Debug, Clone)]
pub struct PerConfig {
    /// Name and termination id mapping.
    pub mapping: Mapping,
    /// Package, item, parameter and digit map names ↔ codes (standard
    /// packages by default).
    pub registry: Arc<NameRegistry>,
    /// What the decoder accepts: message size, list and string lengths,
    /// and in `max_depth` how deeply regulated notify behaviours may nest
    /// (v3 `NotifyRegulated` embeds events that can carry a notify
    /// behaviour again): the only recursion of the ASN.1 types. Deeper
    /// input is an error for the decoder and the encoder alike. Default
    /// [`Limits::DEFAULT`] with `max_depth` 16.
    pub limits: Limits,
}

impl Default for PerConfig {
    fn default() -> Self {
        PerConfig {
            mapping: Mapping::default(),
            registry: NameRegistry::standard_arc().clone(),
            limits: Limits {
                max_depth: 16,
                ..Limits::DEFAULT
            },
        }
    }
}

impl PerConfig {
    /// OTP's `[native]` configuration: no name or termination id mapping.
    pub fn native() -> Self {
        PerConfig {
            mapping: Mapping::Native,
            ..PerConfig::default()
        }
    }

    /// The registry in use: none at all under [`Mapping::Native`].
    fn names(&self) -> &NameRegistry {
        static EMPTY: OnceLock<NameRegistry> = OnceLock::new();
        match self.mapping {
            Mapping::Text(_) => &self.registry,
            Mapping::Native => EMPTY.get_or_init(NameRegistry::empty),
        }
    }
}

/// Encodes `msg` in aligned PER, in the ASN.1 module of its version.
///
/// Fails with [`EncodeError::Version`] when the message holds something its
/// version cannot carry, and [`EncodeError::Invalid`] for values outside
/// their ASN.1 constraints or names without a binary code.
pub fn encode(msg: &MegacoMessage, cfg: &PerConfig) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(256);
    encode_into(msg, cfg, &mut out)?;
    Ok(out)
}

/// Like [`encode`], appending to `out` (which is left as it was on error).
pub fn encode_into(
    msg: &MegacoMessage,
    cfg: &PerConfig,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let v = msg.mess.version;
    if !(1..=3).contains(&v) {
        return Err(EncodeError::UnsupportedVersion(v));
    }
    let start = out.len();
    let cx = encode::Cx {
        v,
        form: cfg,
        depth: std::cell::Cell::new(0),
        max_depth: cfg.limits.max_depth,
    };
    let mut w = bits::BitWriter::new(out);
    let res = encode::megaco_message(&mut w, &cx, msg);
    if res.is_err() {
        out.truncate(start);
    }
    res
}

/// Decodes an aligned PER message; the version is read from the message
/// and selects the ASN.1 module for the rest.
pub fn decode(bytes: &[u8], cfg: &PerConfig) -> Result<MegacoMessage, DecodeError> {
    check_size(bytes, &cfg.limits)?;
    let mut r = bits::BitReader::new(bytes, 0, &cfg.limits);
    let mut msg = MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 0,
            mid: Mid::Device(CompactString::default()),
            body: MessageBody::Transactions(SmallList::new()),
        },
    };
    decode::megaco_message(&mut r, cfg, &mut msg)?;
    Ok(msg)
}

/// The protocol version of a PER message, read from its header alone (as
/// Erlang/OTP's `version_of/2`): the authentication header, if any, is
/// skipped. PER's layout of everything after the version depends on it,
/// so this is what picks the ASN.1 module.
///
/// ```
/// use megaco::per;
/// let msg = megaco::text::decode(b"!/3 <mg1> T=1{C=-{AV=ROOT}}").unwrap();
/// let bytes = per::encode(&msg, &per::PerConfig::default()).unwrap();
/// assert_eq!(per::version_of(&bytes), Ok(3));
/// assert!(per::version_of(&[]).is_err());
/// ```
pub fn version_of(bytes: &[u8]) -> Result<u8, DecodeError> {
    let limits = Limits::DEFAULT;
    let mut r = bits::BitReader::new(bytes, 0, &limits);
    Ok(decode::header(&mut r, false)?.2)
}

/// Refuses a message larger than the limit.
fn check_size(bytes: &[u8], limits: &Limits) -> Result<(), DecodeError> {
    if bytes.len() > limits.max_message_size {
        return Err(DecodeError::per(
            0,
            Limit::MessageSize.exceeded(limits, Some(bytes.len())),
        ));
    }
    Ok(())
}

fn kind(s: Scope) -> ItemKind {
    match s {
        Scope::Property => ItemKind::Property,
        Scope::Event => ItemKind::Event,
        Scope::Signal => ItemKind::Signal,
        Scope::Statistics => ItemKind::Statistic,
    }
}

fn name_err(what: &'static str, e: impl fmt::Display) -> EncodeError {
    EncodeError::Invalid {
        what,
        detail: e.to_string(),
    }
}

/// The model's names and termination ids for the codes in a message.
impl PerConfig {
    /// The levels termination ids are mapped by (none: native form).
    pub(crate) fn levels(&self) -> Option<&TermIdLevels> {
        match &self.mapping {
            Mapping::Text(levels) => Some(levels),
            Mapping::Native => None,
        }
    }

    /// A termination id in the model's text form.
    pub(crate) fn term_id(&self, t: &AsnTermId) -> TerminationId {
        termid::to_model(t, self.levels())
    }

    /// The name of a `PkgdName` code: the registry's, else built from
    /// the package's name and the item's hex code, or hex codes alone.
    pub(crate) fn pkgd_name(&self, scope: Scope, code: [u8; 4]) -> CompactString {
        if let Some(n) = self.names().known_pkgd_name(kind(scope), code) {
            return n.clone();
        }
        let mut s = String::new();
        self.names().decode_pkgd_name(kind(scope), code, &mut s);
        s.into()
    }

    /// The name of parameter `code` of the event or signal `parent`.
    pub(crate) fn param_name(&self, scope: Scope, parent: [u8; 4], code: [u8; 2]) -> CompactString {
        if let Some(n) = self.names().known_parameter(kind(scope), parent, code) {
            return n.clone();
        }
        let mut s = String::new();
        self.names()
            .decode_parameter(kind(scope), parent, code, &mut s);
        s.into()
    }

    /// The name of a package code.
    pub(crate) fn package_name(&self, code: [u8; 2]) -> CompactString {
        let mut s = String::new();
        self.names().decode_package(code, &mut s);
        s.into()
    }

    /// The name of a digit map code.
    pub(crate) fn dialplan_name(&self, code: [u8; 2]) -> CompactString {
        let mut s = String::new();
        match self.mapping {
            Mapping::Text(_) => self.names().decode_digit_map(code, &mut s),
            Mapping::Native => crate::asn1::push_hex16(&mut s, u16::from_be_bytes(code)),
        }
        s.into()
    }
}

impl Form for PerConfig {
    fn term_id_to_asn1(&self, t: &TerminationId) -> Result<AsnTermId, EncodeError> {
        let r = match &self.mapping {
            Mapping::Text(levels) => termid::encode(t.as_str(), levels),
            Mapping::Native => {
                return termid::parse_native(t.as_str()).ok_or_else(|| {
                    name_err(
                        "TerminationID",
                        format!("{:?} is not in native form 0x<hex>[#<hex>]", t.as_str()),
                    )
                })
            }
        };
        r.map_err(|e| name_err("TerminationID", e))
    }

    fn pkgd_to_asn1(&self, scope: Scope, name: &str) -> Result<[u8; 4], EncodeError> {
        self.names()
            .encode_pkgd_name(kind(scope), name)
            .map_err(|e| name_err("PkgdName", e))
    }

    fn param_to_asn1(
        &self,
        scope: Scope,
        parent: &str,
        name: &str,
    ) -> Result<[u8; 2], EncodeError> {
        let k = kind(scope);
        let item = self
            .registry
            .encode_pkgd_name(k, parent)
            .map_err(|e| name_err("parameter's event or signal", e))?;
        self.names()
            .encode_parameter(k, item, name)
            .map_err(|e| name_err("parameter name", e))
    }

    fn package_to_asn1(&self, name: &str) -> Result<[u8; 2], EncodeError> {
        self.names()
            .encode_package(name)
            .map_err(|e| name_err("package name", e))
    }

    fn dialplan_to_asn1(&self, name: &str) -> Result<[u8; 2], EncodeError> {
        self.names()
            .encode_digit_map(name)
            .map_err(|e| name_err("digit map name", e))
    }
}
