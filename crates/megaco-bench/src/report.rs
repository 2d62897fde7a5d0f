//! Writing `meas` results: console table, TSV, JSON, Markdown.
use std::fmt::Write as _;
use std::path::Path;

use crate::meas::{MeasResult, Summary};

/// The console table: `Codec and config | Msgs | Size (bytes) | Encode (µs)
/// | Decode (µs) | Total (µs)`, means over messages.
pub fn console_table(summary: &[Summary]) -> String {
    let w = summary
        .iter()
        .map(|s| s.codec.chars().count())
        .max()
        .unwrap_or(0)
        .max("Codec and config".len());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<w$} | {:>5} | {:>12} | {:>11} | {:>11} | {:>11}",
        "Codec and config", "Msgs", "Size (bytes)", "Encode (µs)", "Decode (µs)", "Total (µs)"
    );
    let _ = writeln!(
        out,
        "{}-+-------+--------------+-------------+-------------+------------",
        "-".repeat(w)
    );
    for s in summary {
        let _ = writeln!(
            out,
            "{:<w$} | {:>5} | {:>12.1} | {:>11.3} | {:>11.3} | {:>11.3}",
            s.codec, s.messages, s.size, s.encode_us, s.decode_us, s.total_us
        );
    }
    out
}

/// The same table in Markdown, for the README.
pub fn markdown_table(summary: &[Summary]) -> String {
    let mut out = String::from(
        "| Codec and config | Messages | Size (bytes) | Encode (µs) | Decode (µs) | Total (µs) |\n\
         | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for s in summary {
        let _ = writeln!(
            out,
            "| {} | {} | {:.1} | {:.3} | {:.3} | {:.3} |",
            s.codec, s.messages, s.size, s.encode_us, s.decode_us, s.total_us
        );
    }
    out
}

/// Per-message TSV: `codec  message  size  encode_us  decode_us  total_us`.
pub fn tsv(result: &MeasResult) -> String {
    let mut out = String::from("codec\tmessage\tsize\tencode_us\tdecode_us\ttotal_us\n");
    for r in &result.rows {
        let _ = writeln!(
            out,
            "{}\t{}\t{}\t{:.4}\t{:.4}\t{:.4}",
            r.codec,
            r.message,
            r.size,
            r.encode_us,
            r.decode_us,
            r.total_us()
        );
    }
    out
}

/// Writes `meas.tsv`, `meas.json`, `summary.md` and the charts into `dir`
/// (created if needed); `otp` holds OTP's rows when they were measured,
/// drawn beside ours in the charts. Returns the paths written.
pub fn write_all(
    result: &MeasResult,
    otp: &[crate::meas::Row],
    dir: &Path,
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let mut put = |name: &str, data: &[u8]| -> anyhow::Result<()> {
        let p = dir.join(name);
        std::fs::write(&p, data)?;
        written.push(p);
        Ok(())
    };
    put("meas.tsv", tsv(result).as_bytes())?;
    put(
        "meas.json",
        serde_json::to_string_pretty(result)?.as_bytes(),
    )?;
    put("summary.md", markdown_table(&result.summary()).as_bytes())?;
    written.extend(crate::charts::write(result, otp, dir)?);
    Ok(written)
}
