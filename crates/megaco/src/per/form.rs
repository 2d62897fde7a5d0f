//! The seam between the PER encoder and the text → ASN.1 form mapping:
//! termination ids, package/item names, digit map names. (The decoder
//! maps codes back with `PerConfig`'s own methods.)

use crate::asn1::termid::AsnTermId;
use crate::model::TerminationId;
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

/// Maps the model's text-form values to their ASN.1 form.
pub(crate) trait Form {
    /// TerminationID → wildcard fields and id octets.
    fn term_id_to_asn1(&self, t: &TerminationId) -> Result<AsnTermId, EncodeError>;
    /// A packaged name (`pkg/item`) → 4 octets.
    fn pkgd_to_asn1(&self, scope: Scope, name: &str) -> Result<[u8; 4], EncodeError>;
    /// An event or signal parameter name relative to its event/signal.
    fn param_to_asn1(&self, scope: Scope, parent: &str, name: &str)
        -> Result<[u8; 2], EncodeError>;
    /// A package name → 2 octets.
    fn package_to_asn1(&self, name: &str) -> Result<[u8; 2], EncodeError>;
    /// A digit map name → 2 octets.
    fn dialplan_to_asn1(&self, name: &str) -> Result<[u8; 2], EncodeError>;
}
