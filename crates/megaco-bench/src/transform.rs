//! `transform`: the corpus in every encoding, one directory per codec
//! configuration, one file per message (OTP: `megaco_codec_transform`).
use std::path::{Path, PathBuf};

use megaco::codec::Encoding;

use crate::codecs;
use crate::samples::Sample;

/// What was written for one codec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Codec and config.
    pub codec: String,
    /// Its directory.
    pub dir: PathBuf,
    /// Files written.
    pub files: usize,
    /// `(message, error)` for the messages it could not encode.
    pub failures: Vec<(String, String)>,
}

/// Writes `out/<codec slug>/<message>.<ext>` for every codec and message
/// (a configuration without a slug gets a directory named after its
/// [`Encoding`] display form).
pub fn write(samples: &[Sample], codecs: &[Encoding], out: &Path) -> anyhow::Result<Vec<Written>> {
    if out.exists() && !out.is_dir() {
        anyhow::bail!(
            "{}: the output directory is a file (`megaco transform [CORPUS] OUTDIR`)",
            out.display()
        );
    }
    let mut result = Vec::new();
    for c in codecs {
        let slug = c
            .slug()
            .map_or_else(|| slugify(&c.to_string()), str::to_string);
        let dir = out.join(slug);
        std::fs::create_dir_all(&dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
        let mut w = Written {
            codec: c.to_string(),
            dir: dir.clone(),
            files: 0,
            failures: Vec::new(),
        };
        for s in samples {
            let encoded =
                codecs::model_for(c, &s.msg).and_then(|m| c.encode(&m).map_err(|e| e.to_string()));
            match encoded {
                Ok(bytes) => {
                    let file = dir.join(format!("{}.{}", s.name, c.extension()));
                    std::fs::write(&file, bytes)
                        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
                    w.files += 1;
                }
                Err(e) => w.failures.push((s.name.clone(), e)),
            }
        }
        result.push(w);
    }
    Ok(result)
}

/// `ber [standard,native]` → `ber-standard-native`.
fn slugify(name: &str) -> String {
    let mut out = String::new();
    for part in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        if !part.is_empty() {
            if !out.is_empty() {
                out.push('-');
            }
            out.push_str(part);
        }
    }
    out
}
