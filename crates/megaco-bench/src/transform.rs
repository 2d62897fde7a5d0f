//! `transform`: the corpus in every encoding, one directory per codec
//! configuration, one file per message (OTP: `megaco_codec_transform`).
use std::path::{Path, PathBuf};

use crate::codecs::Codec;
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

/// Writes `out/<codec slug>/<message>.<ext>` for every codec and message.
pub fn write(samples: &[Sample], codecs: &[Codec], out: &Path) -> anyhow::Result<Vec<Written>> {
    let mut result = Vec::new();
    for c in codecs {
        let dir = out.join(c.slug);
        std::fs::create_dir_all(&dir)?;
        let mut w = Written {
            codec: c.name.to_string(),
            dir: dir.clone(),
            files: 0,
            failures: Vec::new(),
        };
        for s in samples {
            match c.model_for(&s.msg).and_then(|m| (c.encode)(&m)) {
                Ok(bytes) => {
                    std::fs::write(dir.join(format!("{}.{}", s.name, c.ext)), bytes)?;
                    w.files += 1;
                }
                Err(e) => w.failures.push((s.name.clone(), e)),
            }
        }
        result.push(w);
    }
    Ok(result)
}
