//! Recognising a peer's encoding from its messages: text (pretty or
//! compact), BER (Erlang/OTP's dialect or the standard one), PER.

use std::sync::Arc;

use megaco::ber::{BerConfig, Dialect};
use megaco::codec::{sniff, DecodeError, Encoding, Kind};
use megaco::text::Style;
use megaco::MegacoMessage;

/// The encodings an endpoint answers in, one shared value each.
#[derive(Debug)]
pub(super) struct Codecs {
    pub(super) primary: Arc<Encoding>,
    pretty: Arc<Encoding>,
    compact: Arc<Encoding>,
    ber_otp: Arc<Encoding>,
    ber_standard: Arc<Encoding>,
    per: Arc<Encoding>,
}

/// How a message decoded, and in which encoding to answer.
pub(super) struct Decoded {
    pub(super) result: Result<MegacoMessage, DecodeError>,
    /// The encoding to answer in, when recognised.
    pub(super) encoding: Option<Arc<Encoding>>,
}

impl Codecs {
    /// The set for `primary`: the other encodings take its limits, and
    /// its configuration where it is of their kind.
    pub(super) fn new(primary: &Encoding) -> Self {
        let text = |style| match primary {
            Encoding::Text { style: s, .. } if *s == style => primary.clone(),
            Encoding::Text { limits, .. } => Encoding::Text {
                style,
                limits: *limits,
            },
            _ => match style {
                Style::Pretty => Encoding::pretty(),
                Style::Compact => Encoding::compact(),
            },
        };
        let ber = |dialect| match primary {
            Encoding::Ber(cfg) => Encoding::Ber(BerConfig {
                dialect,
                ..cfg.clone()
            }),
            _ => Encoding::Ber(BerConfig {
                dialect,
                ..BerConfig::default()
            }),
        };
        let per = match primary {
            Encoding::Per(_) => primary.clone(),
            _ => Encoding::per(),
        };
        Codecs {
            primary: Arc::new(primary.clone()),
            pretty: Arc::new(text(Style::Pretty)),
            compact: Arc::new(text(Style::Compact)),
            ber_otp: Arc::new(ber(Dialect::Otp)),
            ber_standard: Arc::new(ber(Dialect::Standard)),
            per: Arc::new(per),
        }
    }

    /// Decodes `bytes` from a peer that speaks `current` (if known). With
    /// `recognise`, the encoding is told by the bytes: text's style by its
    /// header (`!/` compact, `MEGACO/` pretty), BER's dialect, on a peer's
    /// first BER message, by which dialect gives the same bytes back
    /// (the standard decoder reads both), PER by its leading bits.
    pub(super) fn decode(
        &self,
        bytes: &[u8],
        current: Option<&Arc<Encoding>>,
        recognise: bool,
    ) -> Decoded {
        let fixed = |enc: &Arc<Encoding>| Decoded {
            result: enc.decode(bytes),
            encoding: None,
        };
        if !recognise {
            return fixed(current.unwrap_or(&self.primary));
        }
        let known = |enc: &Arc<Encoding>| Decoded {
            result: enc.decode(bytes),
            encoding: Some(enc.clone()),
        };
        match sniff(bytes) {
            Some(Kind::Text) => {
                if compact_header(bytes) {
                    known(&self.compact)
                } else {
                    known(&self.pretty)
                }
            }
            Some(Kind::Ber) => match current {
                Some(enc) if enc.kind() == Kind::Ber => known(enc),
                _ => {
                    let result = self.ber_standard.decode(bytes);
                    let encoding = match &result {
                        Ok(msg) if self.ber_otp.encode(msg).is_ok_and(|b| b == bytes) => {
                            self.ber_otp.clone()
                        }
                        Ok(msg) if self.ber_standard.encode(msg).is_ok_and(|b| b == bytes) => {
                            self.ber_standard.clone()
                        }
                        _ if self.primary.kind() == Kind::Ber => self.primary.clone(),
                        _ => self.ber_standard.clone(),
                    };
                    Decoded {
                        result,
                        encoding: Some(encoding),
                    }
                }
            },
            Some(Kind::Per) => known(&self.per),
            _ => fixed(current.unwrap_or(&self.primary)),
        }
    }
}

impl Codecs {
    /// Whether `bytes` are in `current`, the encoding a peer speaks, as
    /// recognition would tell them (always, without `recognise`): then a
    /// borrowed view of them in `current` reads what decoding would, and
    /// a peer changing encodings is still decoded and recognised.
    pub(super) fn speaks(&self, bytes: &[u8], current: &Encoding, recognise: bool) -> bool {
        if !recognise {
            return true;
        }
        match (sniff(bytes), current) {
            (Some(Kind::Ber), Encoding::Ber(_)) => true,
            (Some(Kind::Text), Encoding::Text { style, .. }) => {
                (*style == Style::Compact) == compact_header(bytes)
            }
            _ => false,
        }
    }
}

/// Whether a text message's header is in the compact form (`!/`).
fn compact_header(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    loop {
        match rest.first() {
            Some(b) if b.is_ascii_whitespace() => rest = &rest[1..],
            Some(b';') => {
                let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                rest = &rest[end..];
            }
            Some(b'!') => return true,
            Some(b'A' | b'a') => {
                // An authentication header: the message header follows it.
                match rest.windows(2).position(|w| w == b"!/") {
                    Some(_) => return !contains_ignore_case(rest, b"MEGACO/"),
                    None => return false,
                }
            }
            _ => return false,
        }
    }
}

fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}
