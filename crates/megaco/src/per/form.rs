//! The seam between the PER codec and the text ↔ ASN.1 form mapping:
//! termination ids, package/item names, digit map names.

use crate::asn1::termid::AsnTermId;
use crate::model::{CompactString, TerminationId};
use crate::EncodeError;

/// Where a packaged name is used: it selects the resolver table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Properties (`tdmc/gain`, SDP `v`).
    Property,
    /// Events (`al/of`) and their parameters.
    Event,
    /// Signals (`cg/rt`) and their parameters.
    Signal,
    /// Statistics (`nt/os`).
    Statistics,
}

/// Maps the model's text-form values to their ASN.1 form and back.
pub(crate) trait Form {
    /// TerminationID → wildcard fields and id octets.
    fn term_id_to_asn1(&self, t: &TerminationId) -> Result<AsnTermId, EncodeError>;
    /// (wildcard fields, id octets) → TerminationID.
    fn term_id_from_asn1(&self, wild: &[u8], id: &[u8]) -> Result<TerminationId, String>;
    /// A packaged name (`pkg/item`) → 4 octets.
    fn pkgd_to_asn1(&self, scope: Scope, name: &str) -> Result<[u8; 4], EncodeError>;
    /// 4 octets → a packaged name.
    fn pkgd_from_asn1(&self, scope: Scope, code: [u8; 4]) -> Result<CompactString, String>;
    /// An event or signal parameter name relative to its event/signal.
    fn param_to_asn1(&self, scope: Scope, parent: &str, name: &str)
        -> Result<[u8; 2], EncodeError>;
    /// 2 octets → a parameter name, relative to the parent's code.
    fn param_from_asn1(
        &self,
        scope: Scope,
        parent: [u8; 4],
        code: [u8; 2],
    ) -> Result<CompactString, String>;
    /// A package name → 2 octets.
    fn package_to_asn1(&self, name: &str) -> Result<[u8; 2], EncodeError>;
    /// 2 octets → a package name.
    fn package_from_asn1(&self, code: [u8; 2]) -> Result<String, String>;
    /// A digit map name → 2 octets.
    fn dialplan_to_asn1(&self, name: &str) -> Result<[u8; 2], EncodeError>;
    /// 2 octets → a digit map name.
    fn dialplan_from_asn1(&self, code: [u8; 2]) -> Result<String, String>;
}
