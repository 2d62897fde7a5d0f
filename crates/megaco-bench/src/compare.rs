//! Ours beside OTP's: the ratio tables of a `meas` run with `--vs-otp`.
use std::fmt::Write as _;

use megaco::codec::Encoding;

use crate::codecs;
use crate::meas::{self, MeasResult, Row, Summary};
use crate::report;

/// One of our configurations and OTP's twin, summarised over the
/// messages both sides measured.
pub struct Pair {
    /// Ours.
    pub ours: Summary,
    /// OTP's.
    pub otp: Summary,
}

/// The pairs of `codecs` with an OTP twin measured in `otp_rows`.
pub fn pairs(ours: &MeasResult, otp_rows: &[Row], codecs: &[Encoding]) -> Vec<Pair> {
    let mut out = Vec::new();
    for c in codecs {
        let Some(otp_name) = codecs::otp_twin(c) else {
            continue;
        };
        let name = c.to_string();
        let mine: Vec<&Row> = ours.rows.iter().filter(|r| r.codec == name).collect();
        let theirs: Vec<&Row> = otp_rows.iter().filter(|r| r.codec == otp_name).collect();
        let common = |r: &&Row, other: &[&Row]| other.iter().any(|o| o.message == r.message);
        let a: Vec<Row> = mine
            .iter()
            .filter(|r| common(r, &theirs))
            .map(|r| (*r).clone())
            .collect();
        let b: Vec<Row> = theirs
            .iter()
            .filter(|r| common(r, &mine))
            .map(|r| (*r).clone())
            .collect();
        if let (Some(ours), Some(otp)) = (
            meas::summarize(&a).into_iter().next(),
            meas::summarize(&b).into_iter().next(),
        ) {
            out.push(Pair { ours, otp });
        }
    }
    out
}

/// OTP's table and, per matching configuration, the OTP/ours ratios of
/// encode, decode and total time (over the messages both measured).
pub fn console(ours: &MeasResult, otp_rows: &[Row], codecs: &[Encoding]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\nErlang/OTP codecs, same messages (means per message):");
    s.push_str(&report::console_table(&meas::summarize(otp_rows)));
    let _ = writeln!(
        s,
        "\nOTP / ours: how many times as long OTP takes (time ratios), and our size as a share of OTP's:"
    );
    let _ = writeln!(
        s,
        "{:<28} | {:<40} | {:>5} | {:>8} | {:>8} | {:>8} | {:>13}",
        "Ours", "OTP", "Msgs", "Encode", "Decode", "Total", "Size ours/OTP"
    );
    for p in pairs(ours, otp_rows, codecs) {
        let _ = writeln!(
            s,
            "{:<28} | {:<40} | {:>5} | {:>7.1}x | {:>7.1}x | {:>7.1}x | {:>13.2}",
            p.ours.codec,
            p.otp.codec,
            p.ours.messages,
            p.otp.encode_us / p.ours.encode_us,
            p.otp.decode_us / p.ours.decode_us,
            p.otp.total_us / p.ours.total_us,
            p.ours.size / p.otp.size
        );
    }
    s
}

/// The comparison in Markdown (`comparison.md`), for the README.
pub fn markdown(ours: &MeasResult, otp_rows: &[Row], codecs: &[Encoding]) -> String {
    let mut s = String::from(
        "| Ours | OTP | Messages | Ours total (µs) | OTP total (µs) | OTP/ours encode | OTP/ours decode | OTP/ours total |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for p in pairs(ours, otp_rows, codecs) {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.3} | {:.3} | {:.1} | {:.1} | {:.1} |",
            p.ours.codec,
            p.otp.codec,
            p.ours.messages,
            p.ours.total_us,
            p.otp.total_us,
            p.otp.encode_us / p.ours.encode_us,
            p.otp.decode_us / p.ours.decode_us,
            p.otp.total_us / p.ours.total_us
        );
    }
    s
}
