//! Live interop with Erlang/OTP's megaco: every corpus message, encoded by
//! our codecs, is decoded by OTP's codecs and compared with OTP's decode of
//! the original text (tests/otp/interop.escript does the Erlang side).
//!
//! Needs `escript` with the megaco application (Debian: erlang-base,
//! erlang-megaco, erlang-asn1; scripts/setup.sh installs them). Without it
//! the test fails when `CI=true` and is skipped, saying so, otherwise.
use std::collections::BTreeMap;
use std::path::PathBuf;

use megaco::MegacoMessage;

#[path = "support/escript.rs"]
mod escript;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn otp_available() -> bool {
    escript::available(&root().join("tests/otp/interop.escript"), "interop")
}

type Encoder = fn(&MegacoMessage) -> Vec<u8>;

/// Encodes every corpus message with each encoder, has OTP decode them all
/// and returns OTP's verdict per (message, codec).
fn run_otp(encoders: &[(&str, &str, Encoder)]) -> BTreeMap<(String, String), String> {
    let corpus = megaco::corpus::load(&root().join("../../corpus/time_test.msgs")).unwrap();
    let dir = std::env::temp_dir().join(format!(
        "megaco-interop-{}-{}",
        std::process::id(),
        encoders[0].0
    ));
    std::fs::create_dir_all(&dir).unwrap();
    for m in &corpus.messages {
        let msg = megaco::text::decode(&m.bytes).unwrap();
        std::fs::write(dir.join(format!("{}.ref.txt", m.name)), &m.bytes).unwrap();
        for (_, ext, enc) in encoders {
            std::fs::write(dir.join(format!("{}{ext}", m.name)), enc(&msg)).unwrap();
        }
    }
    let lines = escript::run(&root().join("tests/otp/interop.escript"), [&dir]);
    std::fs::remove_dir_all(&dir).ok();
    let mut verdicts = BTreeMap::new();
    for line in &lines {
        let mut parts = line.splitn(3, ' ');
        let name = parts.next().unwrap().to_string();
        let codec = parts.next().unwrap_or("").to_string();
        verdicts.insert((name, codec), parts.next().unwrap_or("").to_string());
    }
    assert_eq!(
        verdicts.len(),
        corpus.messages.len() * encoders.len(),
        "{}",
        lines.join("\n")
    );
    verdicts
}

fn assert_all_ok(verdicts: &BTreeMap<(String, String), String>) {
    let failures: Vec<_> = verdicts
        .iter()
        .filter(|(_, v)| v.as_str() != "ok")
        .map(|((n, c), v)| format!("{n} {c}: {v}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} rejected by OTP:\n{}",
        failures.len(),
        verdicts.len(),
        failures.join("\n")
    );
}

#[test]
fn otp_decodes_our_text_encodings_to_its_own_model() {
    if !otp_available() {
        return;
    }
    let verdicts = run_otp(&[
        ("pretty", ".pretty.txt", |m| {
            megaco::text::encode_pretty(m).unwrap()
        }),
        ("compact", ".compact.txt", |m| {
            megaco::text::encode_compact(m).unwrap()
        }),
    ]);
    assert_all_ok(&verdicts);
}

#[test]
fn otp_decodes_our_ber_and_per_to_its_own_model() {
    if !otp_available() {
        return;
    }
    let verdicts = run_otp(&[
        ("ber", ".ber", |m| {
            megaco::ber::encode(m, &megaco::ber::BerConfig::otp()).unwrap()
        }),
        ("per", ".per", |m| {
            megaco::per::encode(m, &megaco::per::PerConfig::default()).unwrap()
        }),
    ]);
    // msg76a02 (audited `tdmc/gain, tdmc/gain=2`) is the one message whose
    // model shape differs from OTP's; everything else must match exactly.
    assert_all_ok(&verdicts);
}
