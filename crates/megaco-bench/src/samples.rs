//! The corpus as decoded messages: what every codec encodes and decodes.
use std::path::{Path, PathBuf};

use megaco::MegacoMessage;

use crate::codecs;

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
    /// The codec the corpus names (`pretty`, `compact`, ...).
    pub codec: String,
    /// Messages decoded, in corpus order.
    pub samples: Vec<Sample>,
    /// `(name, error)` of the messages whose decoding failed.
    pub skipped: Vec<(String, String)>,
}

/// The corpus used when none is given: the repository's
/// `corpus/time_test.msgs`, looked up from the current directory upwards,
/// then next to the source tree this binary was built from.
pub fn default_corpus() -> PathBuf {
    let rel = Path::new("corpus").join("time_test.msgs");
    if let Ok(cwd) = std::env::current_dir() {
        for dir in cwd.ancestors() {
            let p = dir.join(&rel);
            if p.is_file() {
                return p;
            }
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// Reads the corpus at `path` (term file or directory) and decodes each
/// message with the codec the corpus names (text when it names none of
/// ours). `only` keeps the named messages (all when empty); `limit` keeps
/// the first N of those.
pub fn load(path: &Path, only: &[String], limit: Option<usize>) -> anyhow::Result<Samples> {
    let corpus = megaco::corpus::load(path)
        .map_err(|e| anyhow::anyhow!("reading corpus {}: {e}", path.display()))?;
    let decode = codecs::all()
        .into_iter()
        .find(|c| c.slug == corpus.codec)
        .map(|c| c.decode)
        .unwrap_or(|b: &[u8]| megaco::text::decode(b).map_err(|e| e.to_string()));
    let mut out = Samples {
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
        match decode(&m.bytes) {
            Ok(msg) => out.samples.push(Sample {
                name: m.name,
                msg,
                source: m.bytes,
            }),
            Err(e) => out.skipped.push((m.name, e)),
        }
    }
    Ok(out)
}
