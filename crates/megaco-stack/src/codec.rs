//! Which wire encoding a connection speaks, as data.

use megaco::ber::{BerConfig, BerError};
use megaco::per::{PerConfig, PerError};
use megaco::text::{Style, TextError};
use megaco::{EncodeError, Limits, MegacoMessage};

/// A wire encoding and its configuration.
///
/// Text decoding accepts pretty, compact and mixed input whatever the
/// [`Style`]; the style only chooses how messages are written.
#[derive(Debug, Clone)]
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
    /// PER (H.248.1 Annex A).
    Per(PerConfig),
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

    /// PER with the default configuration.
    pub fn per() -> Self {
        Encoding::Per(PerConfig::default())
    }

    /// Whether this is a text encoding.
    pub fn is_text(&self) -> bool {
        matches!(self, Encoding::Text { .. })
    }

    /// Encodes one message.
    pub fn encode(&self, msg: &MegacoMessage) -> Result<Vec<u8>, EncodeError> {
        match self {
            Encoding::Text { style, .. } => {
                let mut out = Vec::with_capacity(256);
                megaco::text::encode(msg, *style, &mut out)?;
                Ok(out)
            }
            Encoding::Ber(cfg) => megaco::ber::encode(msg, cfg),
            Encoding::Per(cfg) => megaco::per::encode(msg, cfg),
        }
    }

    /// Decodes one message.
    pub fn decode(&self, bytes: &[u8]) -> Result<MegacoMessage, DecodeError> {
        match self {
            Encoding::Text { limits, .. } => {
                megaco::text::decode_with(bytes, limits).map_err(DecodeError::Text)
            }
            Encoding::Ber(cfg) => megaco::ber::decode(bytes, cfg).map_err(DecodeError::Ber),
            Encoding::Per(cfg) => megaco::per::decode(bytes, cfg).map_err(DecodeError::Per),
        }
    }
}

/// A received message that could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// Text syntax error.
    #[error("text: {0}")]
    Text(#[from] TextError),
    /// BER error.
    #[error("BER: {0}")]
    Ber(#[from] BerError),
    /// PER error.
    #[error("PER: {0}")]
    Per(#[from] PerError),
}
