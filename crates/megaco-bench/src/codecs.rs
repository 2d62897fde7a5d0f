//! The codec registry: every encoding this build can measure, by name.
//!
//! Names follow OTP's "codec \[config\]" style so that rows of the two
//! measurements line up: `pretty`, `compact`, `ber`, `ber [native]`,
//! `per`, `native [compact,compressed]`, ... A codec whose module is not
//! in this build is simply not listed.
use megaco::MegacoMessage;

/// Encodes a message; the error is rendered as text.
pub type EncodeFn = fn(&MegacoMessage) -> Result<Vec<u8>, String>;
/// Decodes a message; the error is rendered as text.
pub type DecodeFn = fn(&[u8]) -> Result<MegacoMessage, String>;
/// Turns a message of the corpus into the form a codec takes.
pub type PrepareFn = fn(&MegacoMessage) -> Result<MegacoMessage, String>;

/// One codec with one configuration.
#[derive(Clone, Copy)]
pub struct Codec {
    /// Display name, e.g. `native [compact]`.
    pub name: &'static str,
    /// File-system friendly name, e.g. `native-compact` (the directory name
    /// of [`crate::transform`]).
    pub slug: &'static str,
    /// File extension of one encoded message.
    pub ext: &'static str,
    /// The name of OTP's configuration measuring the same thing, if any.
    pub otp: Option<&'static str>,
    /// Encoder.
    pub encode: EncodeFn,
    /// Decoder.
    pub decode: DecodeFn,
    /// For configurations that take the message in another form than the
    /// text decoder gives (OTP's `[native]` ones): the conversion.
    pub prepare: Option<PrepareFn>,
}

impl Codec {
    /// The message in the form this codec encodes.
    pub fn model_for<'a>(
        &self,
        msg: &'a MegacoMessage,
    ) -> Result<std::borrow::Cow<'a, MegacoMessage>, String> {
        match self.prepare {
            Some(p) => p(msg)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| format!("prepare: {e}")),
            None => Ok(std::borrow::Cow::Borrowed(msg)),
        }
    }
}

impl std::fmt::Debug for Codec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Codec").field("name", &self.name).finish()
    }
}

fn text_decode(b: &[u8]) -> Result<MegacoMessage, String> {
    megaco::text::decode(b).map_err(|e| e.to_string())
}

macro_rules! native_codec {
    ($name:literal, $slug:literal, $otp:literal, $config:expr) => {
        Codec {
            name: $name,
            slug: $slug,
            ext: "bin",
            otp: Some($otp),
            encode: |m| megaco::native::encode(m, &$config).map_err(|e| e.to_string()),
            decode: |b| megaco::native::decode(b, &$config).map_err(|e| e.to_string()),
            prepare: None,
        }
    };
}

/// Every codec configuration in this build, in display order.
pub fn all() -> Vec<Codec> {
    use megaco::native::NativeConfig;
    let mut v = vec![
        Codec {
            name: "pretty",
            slug: "pretty",
            ext: "txt",
            otp: Some("pretty"),
            encode: |m| megaco::text::encode_pretty(m).map_err(|e| e.to_string()),
            decode: text_decode,
            prepare: None,
        },
        Codec {
            name: "compact",
            slug: "compact",
            ext: "txt",
            otp: Some("compact"),
            encode: |m| megaco::text::encode_compact(m).map_err(|e| e.to_string()),
            decode: text_decode,
            prepare: None,
        },
    ];
    v.extend(crate::binary_codecs::all());
    v.extend([
        native_codec!("native", "native", "erl_dist", NativeConfig::PLAIN),
        native_codec!(
            "native [compact]",
            "native-compact",
            "erl_dist [megaco_compressed]",
            NativeConfig::COMPACT
        ),
        native_codec!(
            "native [compressed]",
            "native-compressed",
            "erl_dist [compressed]",
            NativeConfig::COMPRESSED
        ),
        native_codec!(
            "native [compact,compressed]",
            "native-compact-compressed",
            "erl_dist [megaco_compressed,compressed]",
            NativeConfig::COMPACT_COMPRESSED
        ),
    ]);
    v
}

/// Selects codecs by name or slug; `None` or an empty list selects all.
/// Unknown names are an error listing the known ones.
pub fn select(names: &[String]) -> anyhow::Result<Vec<Codec>> {
    let all = all();
    if names.is_empty() {
        return Ok(all);
    }
    let mut out = Vec::new();
    for n in names {
        match all.iter().find(|c| c.name == n || c.slug == n) {
            Some(c) => out.push(*c),
            None => anyhow::bail!(
                "unknown codec {n:?}; known: {}",
                all.iter().map(|c| c.slug).collect::<Vec<_>>().join(", ")
            ),
        }
    }
    Ok(out)
}
