//! What a decoder accepts from untrusted input.
//!
//! Every decoder ([`text`](crate::text), [`ber`](crate::ber),
//! [`per`](crate::per), [`native`](crate::native)) checks the same four
//! bounds and reports one error kind when input exceeds one,
//! [`DecodeErrorKind::LimitExceeded`](crate::codec::DecodeErrorKind::LimitExceeded),
//! naming the [`Limit`](crate::codec::Limit) to raise. Nothing is
//! allocated for a length or count before it has been checked against
//! these limits and against the bytes that remain.

/// Bounds on what a decoder accepts.
///
/// The defaults suit a gateway or controller on a network port: any real
/// Megaco message is far inside them, and a hostile one cannot make a
/// decoder recurse, loop or allocate beyond a small multiple of its size.
///
/// | limit | default | the error names it as |
/// | --- | ---: | --- |
/// | [`max_message_size`](Self::max_message_size) | 4 MiB | [`Limit::MessageSize`](crate::codec::Limit::MessageSize) (also a compressed native body that expands beyond it) |
/// | [`max_depth`](Self::max_depth) | 64 (PER: 16) | [`Limit::Depth`](crate::codec::Limit::Depth) |
/// | [`max_list_len`](Self::max_list_len) | 65 536 | [`Limit::ListLen`](crate::codec::Limit::ListLen) |
/// | [`max_string_len`](Self::max_string_len) | 65 536 | [`Limit::StringLen`](crate::codec::Limit::StringLen) |
///
/// ```
/// use megaco::codec::{Encoding, Limit};
/// use megaco::text::Style;
/// use megaco::Limits;
///
/// // A controller that only ever expects small messages.
/// let tight = Limits { max_string_len: 16, ..Limits::DEFAULT };
/// let text = Encoding::Text { style: Style::Compact, limits: tight };
/// let err = text
///     .decode(b"!/1 [10.0.0.1]:2944 T=1{C=-{MF=ROOT{SG{a_very_long_signal_name}}}}")
///     .unwrap_err();
/// assert_eq!(err.exceeded_limit(), Some(Limit::StringLen));
/// assert!(err.to_string().contains("(max_string_len = 16)"), "{err}");
///
/// // The binary codecs carry theirs in their configuration.
/// let ber = megaco::ber::BerConfig { limits: tight, ..Default::default() };
/// assert_eq!(ber.limits.max_string_len, 16);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Largest message, in bytes. For compressed native input this bounds
    /// the decompressed body as well.
    pub max_message_size: usize,
    /// Deepest nesting: of `{ }` and `[ ]` in text, of constructed values
    /// in BER, of containers in the native format. PER has no nesting in
    /// its encoding beyond what the ASN.1 fixes, except regulated notify
    /// behaviours (the one recursive type), so there it counts those, and
    /// [`PerConfig`](crate::per::PerConfig) defaults it to 16. The
    /// encoders refuse models nested deeper than the same limit. The
    /// decoders recurse once per level, so keep it in the hundreds at most.
    pub max_depth: usize,
    /// Most items in any one list: transactions, actions, commands,
    /// descriptors, termination ids, parameters, values, SDP lines, ...
    /// BER counts the components of every constructed value, SEQUENCEs
    /// included (a few components each, up to about a dozen), so keep it
    /// at 16 or more there.
    pub max_list_len: usize,
    /// Longest string or octet string, in bytes: names, values, quoted
    /// strings, SDP, digit maps, non-standard data, ...
    pub max_string_len: usize,
}

impl Limits {
    /// The default limits (see the table above).
    pub const DEFAULT: Limits = Limits {
        max_message_size: 4 * 1024 * 1024,
        max_depth: 64,
        max_list_len: 65_536,
        max_string_len: 65_536,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
