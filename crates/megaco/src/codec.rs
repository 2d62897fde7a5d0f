//! Which codec is data: an [`Encoding`] names a wire encoding together with
//! its configuration, the way Erlang/OTP's `megaco_encoder` behaviour makes
//! codecs pluggable. Code that moves messages (a transport, a converter,
//! a benchmark) holds one value and calls [`Encoding::encode`] and
//! [`Encoding::decode`] without caring which codec is behind it.
//!
//! ```
//! use megaco::codec::{Encoding, Kind};
//!
//! let msg = megaco::text::decode(b"!/2 [10.0.0.1]:2944 T=9{C=-{AV=ROOT}}").unwrap();
//! for encoding in [Encoding::pretty(), Encoding::compact(), Encoding::ber(), Encoding::per()] {
//!     let bytes = encoding.encode(&msg).unwrap();
//!     assert_eq!(encoding.decode(&bytes).unwrap(), msg);
//!     assert_eq!(encoding.version_of(&bytes), Ok(2));
//! }
//! // Text is text: the decoder reads pretty and compact whatever the style.
//! let compact = Encoding::compact().encode(&msg).unwrap();
//! assert_eq!(Encoding::pretty().decode(&compact).unwrap(), msg);
//! assert_eq!(Encoding::compact().kind(), Kind::Text);
//! ```
//!
//! Every decoder reports one [`DecodeError`], which says which codec
//! failed, where the input went wrong and what went wrong (a
//! [`DecodeErrorKind`] shared by all codecs):
//!
//! ```
//! use megaco::codec::{DecodeErrorKind, Encoding, Kind};
//!
//! let err = Encoding::compact().decode(b"!/1 [10.0.0.1]\nT=1{C=x{}}").unwrap_err();
//! assert_eq!(err.codec(), Kind::Text);
//! assert_eq!(err.offset(), 21); // the `x`
//! assert_eq!(err.line_column(), Some((2, 7)));
//!
//! let err = Encoding::ber().decode(&[0x30, 0x05, 0xa1]).unwrap_err();
//! assert_eq!(err.codec(), Kind::Ber);
//! assert_eq!(err.line_column(), None);
//! assert!(matches!(err.kind(), DecodeErrorKind::Truncated { .. }));
//! assert_eq!(err.to_string(), "BER at byte 2: unexpected end of input, expected content of the stated length");
//! ```

use std::fmt;

use crate::ber::{self, BerConfig};
#[cfg(feature = "native")]
use crate::native::{self, NativeConfig};
use crate::per::{self, PerConfig};
use crate::text::{self, Style};
use crate::{EncodeError, Limits, MegacoMessage};

pub use crate::error::{DecodeError, DecodeErrorKind, Limit};

mod foreign;
mod names;
pub use foreign::{foreign_kind, not_a_message, without_signature};
pub use names::UnknownEncoding;

/// A wire encoding and its configuration.
///
/// Text decoding accepts pretty, compact and mixed input whatever the
/// [`Style`]; the style only chooses how messages are written.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Encoding {
    /// Text (RFC 3525 Annex B), written in the given style.
    Text {
        /// Pretty or compact output.
        style: Style,
        /// What the decoder accepts.
        limits: Limits,
    },
    /// BER (H.248.1 Annex A).
    Ber(BerConfig),
    /// Aligned PER (H.248.1 Annex A), as Erlang/OTP writes it.
    Per(PerConfig),
    /// This crate's native serialisation of the model ([`crate::native`]):
    /// not a Megaco wire encoding, for two programs that both use this
    /// crate.
    #[cfg(feature = "native")]
    Native(NativeConfig),
}

/// The family of an [`Encoding`], without its configuration: what
/// [`sniff`] guesses from bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Text, pretty or compact.
    Text,
    /// BER.
    Ber,
    /// Aligned PER.
    Per,
    /// The native format ([`crate::native`]).
    Native,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Text => "text",
            Kind::Ber => "ber",
            Kind::Per => "per",
            Kind::Native => "native",
        })
    }
}

impl Encoding {
    /// Pretty text, as Erlang/OTP's `megaco_pretty_text_encoder` writes it.
    pub fn pretty() -> Self {
        Encoding::Text {
            style: Style::Pretty,
            limits: Limits::DEFAULT,
        }
    }

    /// Compact text, as Erlang/OTP's `megaco_compact_text_encoder` writes it.
    pub fn compact() -> Self {
        Encoding::Text {
            style: Style::Compact,
            limits: Limits::DEFAULT,
        }
    }

    /// BER in Erlang/OTP's default configuration ([`BerConfig::otp`]), so
    /// that an OTP peer using `megaco_ber_encoder` reads it.
    pub fn ber() -> Self {
        Encoding::Ber(BerConfig::otp())
    }

    /// PER with the default configuration ([`PerConfig::default`]).
    pub fn per() -> Self {
        Encoding::Per(PerConfig::default())
    }

    /// The plain native format ([`NativeConfig::PLAIN`]).
    #[cfg(feature = "native")]
    pub fn native() -> Self {
        Encoding::Native(NativeConfig::PLAIN)
    }

    /// Which family this is.
    pub fn kind(&self) -> Kind {
        match self {
            Encoding::Text { .. } => Kind::Text,
            Encoding::Ber(_) => Kind::Ber,
            Encoding::Per(_) => Kind::Per,
            #[cfg(feature = "native")]
            Encoding::Native(_) => Kind::Native,
        }
    }

    /// Whether this is a text encoding.
    pub fn is_text(&self) -> bool {
        matches!(self, Encoding::Text { .. })
    }

    /// Encodes one message.
    ///
    /// Fails with [`EncodeError::Version`] when the message holds something
    /// its protocol version cannot carry (text, BER, PER), and
    /// [`EncodeError::Invalid`] for values the encoding cannot express.
    pub fn encode(&self, msg: &MegacoMessage) -> Result<Vec<u8>, EncodeError> {
        match self {
            #[cfg(feature = "native")]
            Encoding::Native(cfg) => native::encode(msg, cfg),
            _ => {
                let mut out = Vec::with_capacity(512);
                self.encode_into(msg, &mut out)?;
                Ok(out)
            }
        }
    }

    /// Encodes one message, appending it to `out` (which keeps its
    /// capacity across calls). On error `out` is left as it was.
    ///
    /// ```
    /// use megaco::codec::Encoding;
    ///
    /// let msg = megaco::text::decode(b"!/1 <mg> PN=5{}").unwrap();
    /// let mut out = b"prefix ".to_vec();
    /// Encoding::compact().encode_into(&msg, &mut out).unwrap();
    /// assert_eq!(out, b"prefix !/1 <mg>\nPN=5{}");
    /// ```
    pub fn encode_into(&self, msg: &MegacoMessage, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Encoding::Text { style, .. } => text::encode(msg, *style, out),
            Encoding::Ber(cfg) => ber::encode_into(msg, cfg, out),
            Encoding::Per(cfg) => per::encode_into(msg, cfg, out),
            #[cfg(feature = "native")]
            Encoding::Native(cfg) => {
                out.extend_from_slice(&native::encode(msg, cfg)?);
                Ok(())
            }
        }
    }

    /// Decodes one message.
    pub fn decode(&self, bytes: &[u8]) -> Result<MegacoMessage, DecodeError> {
        // Each arm's result is returned as it is: unwrapping and wrapping
        // it again would copy the message (hundreds of bytes) once more.
        match self {
            Encoding::Text { limits, .. } => text::decode_with(bytes, limits),
            Encoding::Ber(cfg) => ber::decode(bytes, cfg),
            Encoding::Per(cfg) => per::decode(bytes, cfg),
            #[cfg(feature = "native")]
            Encoding::Native(cfg) => native::decode(bytes, cfg),
        }
    }

    /// The protocol version of a message, as Erlang/OTP's `version_of/2`
    /// reads it: from the header alone for text, BER and PER (enough to
    /// pick a configuration or answer in the peer's version before
    /// decoding the rest). The native format has no separate header: the
    /// whole message is decoded.
    ///
    /// ```
    /// use megaco::codec::Encoding;
    ///
    /// assert_eq!(Encoding::pretty().version_of(b"MEGACO/3 <mg> T=1{"), Ok(3));
    /// assert!(Encoding::pretty().version_of(b"MEGACO/9 <mg>").is_err());
    /// ```
    pub fn version_of(&self, bytes: &[u8]) -> Result<u8, DecodeError> {
        Ok(match self {
            Encoding::Text { .. } => text::version_of(bytes)?,
            Encoding::Ber(_) => ber::version_of(bytes)?,
            Encoding::Per(_) => per::version_of(bytes)?,
            #[cfg(feature = "native")]
            Encoding::Native(cfg) => native::decode(bytes, cfg)?.mess.version,
        })
    }
}

/// Guesses the encoding of a message from its first bytes, without
/// decoding it; `None` when the bytes look like none of them.
///
/// How sure the guess is depends on the encoding:
///
/// - **Text** has a signature: `MEGACO/` or `!/` (or an `AUTHENTICATION`
///   / `AU=` header), case-insensitive, after optional whitespace and `;`
///   comments.
/// - **BER** has one too: a `MegacoMessage` is a SEQUENCE, so its first
///   byte is `0x30`.
/// - **PER** and the **native** format carry no signature of their own.
///   PER is guessed from its leading bits as Erlang/OTP writes them: a
///   message without an authentication header starts with `0x00` or `0x01`
///   and a version of 1 to 3 in the following bit; with one it starts with
///   `0x80`. The native format is guessed from its header byte
///   (`0xA0`..=`0xA3`). Neither guess rules out other binary data that
///   happens to start the same way, so confirm it by decoding, and prefer
///   knowing the encoding (from the port or the peer's configuration) to
///   sniffing it.
///
/// ```
/// use megaco::codec::{sniff, Kind};
///
/// assert_eq!(sniff(b"; a comment\nMEGACO/1 [10.0.0.1] T=1{}"), Some(Kind::Text));
/// assert_eq!(sniff(b"!/2 <mg> T=1{}"), Some(Kind::Text));
/// assert_eq!(sniff(&[0x30, 0x82, 0x01, 0x10]), Some(Kind::Ber));
/// assert_eq!(sniff(&[0x00, 0x80, 0x0a]), Some(Kind::Per));
/// assert_eq!(sniff(&[0xa1, 0x01]), Some(Kind::Native));
/// assert_eq!(sniff(b"GET / HTTP/1.1"), None);
/// assert_eq!(sniff(b""), None);
/// ```
pub fn sniff(bytes: &[u8]) -> Option<Kind> {
    let mut rest = bytes;
    // Leading whitespace and `;` comments are allowed before the header.
    loop {
        match rest.first() {
            Some(b) if b.is_ascii_whitespace() => rest = &rest[1..],
            Some(b';') => {
                let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                rest = &rest[end..];
            }
            _ => break,
        }
    }
    let starts = |p: &[u8]| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p);
    // `Authentication` or `AU`, then optional white space and `=`.
    let auth = || {
        let word = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
        let after = rest[word..].iter().skip_while(|b| b.is_ascii_whitespace());
        (rest[..word].eq_ignore_ascii_case(b"AUTHENTICATION")
            || rest[..word].eq_ignore_ascii_case(b"AU"))
            && after.take(1).eq([b'='].iter())
    };
    if starts(b"MEGACO/") || starts(b"!/") || auth() {
        return Some(Kind::Text);
    }
    match *bytes {
        [0x30, ..] => Some(Kind::Ber),
        [0xA0..=0xA3, ..] => Some(Kind::Native),
        [0x80, ..] => Some(Kind::Per),
        // No authentication header, the Message extension bit, then the
        // 7-bit version straddling the first two bytes.
        [b0, b1, ..] if b0 & 0x80 == 0 => {
            let version = ((b0 & 0x3F) << 1) | (b1 >> 7);
            (1..=3).contains(&version).then_some(Kind::Per)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn vector(path: &str) -> Vec<u8> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../corpus/vectors")
            .join(path);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    const NAMES: [&str; 4] = ["msg01a", "msg03", "msg04", "msg10"];

    /// Every encoding of a corpus message decodes to the same model, and
    /// OTP's bytes come back byte for byte from our encoder.
    #[test]
    fn corpus_vectors_agree_across_encodings() {
        for name in NAMES {
            let pretty = vector(&format!("pretty/{name}.txt"));
            let compact = vector(&format!("compact/{name}.txt"));
            let ber_bytes = vector(&format!("ber/{name}.ber"));
            let per_bytes = vector(&format!("per/{name}.per"));
            let msg = Encoding::pretty().decode(&pretty).unwrap();
            for (encoding, bytes) in [
                (Encoding::pretty(), &pretty),
                (Encoding::compact(), &compact),
                (Encoding::ber(), &ber_bytes),
                (Encoding::per(), &per_bytes),
            ] {
                assert_eq!(encoding.decode(bytes).unwrap(), msg, "{name} {encoding:?}");
                assert_eq!(
                    &encoding.encode(&msg).unwrap(),
                    bytes,
                    "{name} {encoding:?}"
                );
                assert_eq!(encoding.version_of(bytes), Ok(msg.mess.version), "{name}");
                assert_eq!(sniff(bytes), Some(encoding.kind()), "{name} {encoding:?}");
            }
            #[cfg(feature = "native")]
            for cfg in crate::native::NativeConfig::ALL {
                let native = Encoding::Native(cfg);
                let bytes = native.encode(&msg).unwrap();
                assert_eq!(native.decode(&bytes).unwrap(), msg);
                assert_eq!(native.version_of(&bytes), Ok(msg.mess.version));
                assert_eq!(sniff(&bytes), Some(Kind::Native));
            }
        }
    }

    #[test]
    fn encode_into_appends_and_leaves_output_alone_on_error() {
        let msg = Encoding::pretty()
            .decode(&vector("pretty/msg03.txt"))
            .unwrap();
        for encoding in [
            Encoding::compact(),
            Encoding::ber(),
            Encoding::per(),
            #[cfg(feature = "native")]
            Encoding::native(),
        ] {
            let mut out = vec![1, 2, 3];
            encoding.encode_into(&msg, &mut out).unwrap();
            assert_eq!(out[..3], [1, 2, 3]);
            assert_eq!(out[3..], encoding.encode(&msg).unwrap()[..]);
        }
        // Version 4 does not exist: nothing is appended.
        let mut bad = msg.clone();
        bad.mess.version = 4;
        for encoding in [Encoding::compact(), Encoding::ber(), Encoding::per()] {
            let mut out = vec![9];
            assert!(encoding.encode_into(&bad, &mut out).is_err());
            assert_eq!(out, [9]);
        }
    }

    #[test]
    fn decode_errors_say_which_codec_and_where() {
        let ber_bytes = vector("ber/msg03.ber");
        let cut = &ber_bytes[..ber_bytes.len() / 2];
        let e = Encoding::ber().decode(cut).unwrap_err();
        assert_eq!(e.codec(), Kind::Ber);
        assert!(e.offset() <= cut.len());

        let per_bytes = vector("per/msg03.per");
        let e = Encoding::per().decode(&per_bytes[..5]).unwrap_err();
        assert_eq!(e.codec(), Kind::Per);
        assert!(e.offset() <= 5);

        #[cfg(feature = "native")]
        {
            let e = Encoding::native().decode(&[0xA1, 0x00]).unwrap_err();
            assert_eq!(e.codec(), Kind::Native);
            assert_eq!(e.offset(), 0);
            assert!(Encoding::native().decode(b"MEGACO/1 <mg>").is_err());
        }

        // A text message in a binary codec is a typed error, not a panic.
        let text = vector("pretty/msg03.txt");
        assert!(Encoding::ber().decode(&text).is_err());
        assert!(Encoding::per().decode(&text).is_err());
        let e = Encoding::compact().decode(&ber_bytes).unwrap_err();
        assert_eq!(
            (e.codec(), e.offset(), e.line_column()),
            (Kind::Text, 0, Some((1, 1)))
        );
    }

    #[test]
    fn sniffing_the_whole_corpus() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vectors");
        for (sub, kind) in [
            ("pretty", Kind::Text),
            ("compact", Kind::Text),
            ("ber", Kind::Ber),
            ("per", Kind::Per),
        ] {
            let mut n = 0;
            for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
                let path = entry.unwrap().path();
                let bytes = std::fs::read(&path).unwrap();
                assert_eq!(sniff(&bytes), Some(kind), "{}", path.display());
                n += 1;
            }
            assert!(n > 10, "{sub}: {n} files");
        }
    }

    #[test]
    fn sniffing_headers_with_spaces_and_extension_bits() {
        // text: `AU = ...` decodes, so it sniffs as text too
        let au = b"AU = 0x01020304:0x00000001:0x0102030405060708090a0b0c !/1 [10.0.0.1] K{1}";
        assert!(crate::text::decode(au).is_ok());
        assert_eq!(sniff(au), Some(Kind::Text));
        assert_eq!(sniff(b"Authentication=0x1"), Some(Kind::Text));
        assert_ne!(sniff(b"AUDIT = x"), Some(Kind::Text));
        // PER without an authentication header: 0, extension bit, version
        assert_eq!(sniff(&[0x00, 0x80]), Some(Kind::Per)); // v1
        assert_eq!(sniff(&[0x41, 0x80]), Some(Kind::Per)); // v3, extension bit set
        assert_eq!(sniff(&[0x42, 0x00]), None); // v4
    }
}
