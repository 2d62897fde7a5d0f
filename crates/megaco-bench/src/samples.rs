//! The corpus as decoded messages: what every codec encodes and decodes.
use std::path::Path;

use megaco::codec::Encoding;
use megaco::MegacoMessage;

/// Erlang/OTP's measurement corpus, `time_test.msgs` (149 messages: 35
/// v1, 22 v2, 92 v3, pretty text), embedded in the binary: the corpus
/// used when none is given. Apache-2.0, Copyright Ericsson AB (see
/// `data/time_test.msgs.license` in this crate).
pub const BUNDLED: &[u8] = include_bytes!("../data/time_test.msgs");

/// One corpus message, decoded into the model.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The message's name (`msg01a`, ...).
    pub name: String,
    /// The decoded message.
    pub msg: MegacoMessage,
    /// The message as the corpus holds it.
    pub source: Vec<u8>,
}

/// The decoded corpus, with the messages that could not be decoded.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    /// Where the messages come from: `the bundled corpus (time_test.msgs)`
    /// or the path given.
    pub origin: String,
    /// The codec the corpus names (`pretty`, `compact`, ...).
    pub codec: String,
    /// Messages decoded, in corpus order.
    pub samples: Vec<Sample>,
    /// `(name, error)` of the messages whose decoding failed.
    pub skipped: Vec<(String, String)>,
}

/// Reads the corpus at `path` (term file or directory), or the bundled
/// one when `path` is `None`, and decodes each message with the codec the
/// corpus names (a name or slug of [`Encoding`]; text when it names none).
/// `only` keeps the named messages (all when empty); `limit` keeps the
/// first N of those.
pub fn load(path: Option<&Path>, only: &[String], limit: Option<usize>) -> anyhow::Result<Samples> {
    let (corpus, origin) = match path {
        None => (
            megaco::corpus::parse_term_file(BUNDLED)
                .map_err(|e| anyhow::anyhow!("the bundled corpus: {e}"))?,
            "the bundled corpus (time_test.msgs)".to_string(),
        ),
        Some(p) => (
            megaco::corpus::load(p)
                .map_err(|e| anyhow::anyhow!("reading corpus {}: {e}", p.display()))?,
            p.display().to_string(),
        ),
    };
    let decoder = corpus
        .codec
        .parse::<Encoding>()
        .unwrap_or_else(|_| Encoding::pretty());
    let mut out = Samples {
        origin,
        codec: corpus.codec.clone(),
        ..Samples::default()
    };
    for m in corpus.messages {
        if !only.is_empty() && !only.contains(&m.name) {
            continue;
        }
        if limit.is_some_and(|l| out.samples.len() + out.skipped.len() >= l) {
            break;
        }
        match decoder.decode(&m.bytes) {
            Ok(msg) => out.samples.push(Sample {
                name: m.name,
                msg,
                source: m.bytes,
            }),
            Err(e) => out.skipped.push((m.name, e.to_string())),
        }
    }
    Ok(out)
}
