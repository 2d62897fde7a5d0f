//! The codec configurations the suite measures: the library's named
//! encodings ([`Encoding::named`]: `pretty`, `compact`, `ber`,
//! `ber [otp]`, `ber [native]`, `per`, `per [native]`, `native`,
//! `native [compact]`, ...), each beside the Erlang/OTP configuration it is
//! compared with. Rows, `--codec` values and `transform` directories use
//! the library's names and slugs.
use std::borrow::Cow;

use megaco::ber::{BerConfig, Mapping};
use megaco::codec::Encoding;
use megaco::per::PerConfig;
use megaco::MegacoMessage;

/// Every configuration measured, in display order.
pub fn all() -> Vec<Encoding> {
    Encoding::named()
}

/// The name of OTP's configuration measuring the same thing as `encoding`
/// (as `otp/otp_meas.escript` names it), if there is one.
///
/// ```
/// use megaco::codec::Encoding;
///
/// let native: Encoding = "native [compact]".parse().unwrap();
/// assert_eq!(megaco_bench::codecs::otp_twin(&native), Some("erl_dist [megaco_compressed]"));
/// ```
pub fn otp_twin(encoding: &Encoding) -> Option<&'static str> {
    Some(match encoding.name()? {
        "pretty" => "pretty",
        "compact" => "compact",
        // Both dialects are compared with OTP's only BER.
        "ber" | "ber [otp]" => "ber",
        "ber [native]" => "ber [native]",
        "per" => "per",
        "per [native]" => "per [native]",
        "native" => "erl_dist",
        "native [compact]" => "erl_dist [megaco_compressed]",
        "native [compressed]" => "erl_dist [compressed]",
        "native [compact,compressed]" => "erl_dist [megaco_compressed,compressed]",
        _ => return None,
    })
}

/// The message in the form `encoding` takes. Configurations without the
/// name and termination-id mapping (OTP's `[native]` ones) take the names
/// and ids in their ASN.1-coded form; as OTP's meas does, that form is
/// obtained by encoding with the mapping and decoding without it.
pub fn model_for<'a>(
    encoding: &Encoding,
    msg: &'a MegacoMessage,
) -> Result<Cow<'a, MegacoMessage>, String> {
    let mapped = match encoding {
        Encoding::Ber(c) if c.mapping == Mapping::Native => Encoding::Ber(BerConfig {
            mapping: Mapping::default(),
            ..c.clone()
        }),
        Encoding::Per(c) if c.mapping == Mapping::Native => Encoding::Per(PerConfig {
            mapping: Mapping::default(),
            ..c.clone()
        }),
        _ => return Ok(Cow::Borrowed(msg)),
    };
    let bytes = mapped
        .encode(msg)
        .map_err(|e| format!("prepare: {mapped}: {e}"))?;
    encoding
        .decode(&bytes)
        .map(Cow::Owned)
        .map_err(|e| format!("prepare: {encoding}: {e}"))
}

/// The configurations named (by name or slug, see [`Encoding`]'s
/// `FromStr`); all of them when `names` is empty.
pub fn select(names: &[String]) -> anyhow::Result<Vec<Encoding>> {
    if names.is_empty() {
        return Ok(all());
    }
    names
        .iter()
        .map(|n| n.parse::<Encoding>().map_err(anyhow::Error::from))
        .collect()
}
