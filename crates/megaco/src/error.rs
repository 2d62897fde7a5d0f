//! Errors shared by the encoders.

/// Why a message could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The message uses something its protocol version cannot carry.
    #[error(
        "{construct} needs protocol version {needs} or later, but the message is version {version}"
    )]
    Version {
        /// What was found, e.g. `"Topology stream"`.
        construct: &'static str,
        /// The message's version.
        version: u8,
        /// The first version that has it.
        needs: u8,
    },
    /// The protocol version itself is not one this crate speaks (1 to 3).
    #[error("unsupported protocol version {0} (this codec speaks 1 to 3)")]
    UnsupportedVersion(u8),
    /// A value cannot be written in this encoding.
    #[error("cannot encode {what}: {detail}")]
    Invalid {
        /// Which field.
        what: &'static str,
        /// Why.
        detail: String,
    },
}
