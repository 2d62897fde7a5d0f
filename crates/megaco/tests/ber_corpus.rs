//! The BER codec against OTP's vectors, starting from the text encoding:
//! (a) text → model → OTP-dialect BER gives OTP's bytes, (b) OTP's BER
//! decodes to the model of its text, (c) text → BER → model is lossless in
//! both dialects.

use std::path::PathBuf;

use megaco::ber::{self, BerConfig, Dialect};
use megaco::MegacoMessage;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// (name, text model, path of OTP's .ber) for the 149 corpus messages and
/// every OTP-suite message.
fn cases() -> Vec<(String, MegacoMessage, PathBuf)> {
    let mut out = Vec::new();
    let src = std::fs::read(corpus().join("time_test.msgs")).unwrap();
    let c = megaco::corpus::parse_term_file(&src).unwrap();
    assert_eq!(c.messages.len(), 149);
    for m in &c.messages {
        let model = megaco::text::decode(&m.bytes).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        out.push((
            m.name.clone(),
            model,
            corpus().join(format!("vectors/ber/{}.ber", m.name)),
        ));
    }
    for v in ["v1", "v2", "v3"] {
        let dir = corpus().join("otp-suite").join(v);
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter_map(|n| n.strip_suffix(".pretty.txt").map(str::to_owned))
            .collect();
        names.sort();
        for n in names {
            let text = std::fs::read(dir.join(format!("{n}.pretty.txt"))).unwrap();
            let model = megaco::text::decode(&text).unwrap_or_else(|e| panic!("{v}/{n}: {e}"));
            out.push((format!("{v}/{n}"), model, dir.join(format!("{n}.ber"))));
        }
    }
    out
}

/// The model as JSON with the lists that BER carries as bit strings
/// (audit tokens, notify completions) in bit order: the binary encoding
/// has no order for them.
fn normalized(m: &MegacoMessage) -> serde_json::Value {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, x) in map.iter_mut() {
                    if k == "audit_token" || k == "notify_completion" {
                        if let serde_json::Value::Array(a) = x {
                            a.sort_by_key(|t| {
                                ORDER.iter().position(|o| t == o).unwrap_or(usize::MAX)
                            });
                        }
                    }
                    walk(x);
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    const ORDER: [&str; 15] = [
        "mux",
        "modem",
        "media",
        "events",
        "signals",
        "digit_map",
        "stats",
        "observed_events",
        "packages",
        "event_buffer",
        "on_time_out",
        "on_interrupt_by_event",
        "on_interrupt_by_new_signal_descr",
        "other_reason",
        "on_iteration",
    ];
    let mut v = serde_json::to_value(m).unwrap();
    walk(&mut v);
    v
}

fn first_diff(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

#[test]
fn a_text_model_encodes_to_otp_bytes() {
    let cfg = BerConfig::otp();
    let all = cases();
    let mut bad = Vec::new();
    let mut corpus_ok = 0;
    for (name, model, ber_path) in &all {
        let want = std::fs::read(ber_path).unwrap();
        let got = ber::encode(model, &cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
        if got == want {
            if !name.contains('/') {
                corpus_ok += 1;
            }
        } else {
            bad.push(format!(
                "{name}: differs at byte {} of {}",
                first_diff(&got, &want),
                want.len()
            ));
        }
    }
    println!(
        "OTP-identical BER: {} of {} (corpus {corpus_ok} of 149)",
        all.len() - bad.len(),
        all.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn b_otp_ber_decodes_to_the_text_model() {
    let cfg = BerConfig::otp();
    let mut bad = Vec::new();
    let all = cases();
    for (name, model, ber_path) in &all {
        let bytes = std::fs::read(ber_path).unwrap();
        match ber::decode(&bytes, &cfg) {
            Ok(m) if normalized(&m) == normalized(model) => {}
            Ok(m) => bad.push(format!("{name}:\n  ber:  {m:?}\n  text: {model:?}")),
            Err(e) => bad.push(format!("{name}: {e}")),
        }
    }
    println!(
        "decoded like their text: {} of {}",
        all.len() - bad.len(),
        all.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn c_text_to_ber_to_model_round_trips_in_both_dialects() {
    for dialect in [Dialect::Otp, Dialect::Standard] {
        let cfg = BerConfig {
            dialect,
            ..BerConfig::default()
        };
        let mut bad = Vec::new();
        for (name, model, _) in &cases() {
            let bytes =
                ber::encode(model, &cfg).unwrap_or_else(|e| panic!("{name} {dialect:?}: {e}"));
            match ber::decode(&bytes, &cfg) {
                Ok(m) if normalized(&m) == normalized(model) => {}
                Ok(m) => bad.push(format!(
                    "{name} {dialect:?}:\n  ber:  {m:?}\n  text: {model:?}"
                )),
                Err(e) => bad.push(format!("{name} {dialect:?}: {e}")),
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}

#[test]
fn standard_dialect_differs_from_otp_only_in_values() {
    // msg12: nt/jit=40 and SDP values; the standard dialect wraps each.
    let text = std::fs::read(corpus().join("vectors/pretty/msg12.txt")).unwrap();
    let model = megaco::text::decode(&text).unwrap();
    let std_bytes = ber::encode(&model, &BerConfig::default()).unwrap();
    let otp_bytes = ber::encode(&model, &BerConfig::otp()).unwrap();
    assert_ne!(std_bytes, otp_bytes);
    // nt/jit = 40: OTP has OCTET STRING "40", standard INTEGER 40 inside it.
    let jit_otp = [0x80, 4, 0, 0x0b, 0, 7, 0xa1, 4, 0x04, 2, b'4', b'0'];
    let jit_std = [0x80, 4, 0, 0x0b, 0, 7, 0xa1, 5, 0x04, 3, 0x02, 1, 40];
    assert!(otp_bytes.windows(jit_otp.len()).any(|w| w == jit_otp));
    assert!(std_bytes.windows(jit_std.len()).any(|w| w == jit_std));
    // "v=0": IA5String "0" inside the OCTET STRING.
    let v_std = [0x80, 4, 0, 0, 0xb0, 1, 0xa1, 5, 0x04, 3, 0x16, 1, b'0'];
    assert!(std_bytes.windows(v_std.len()).any(|w| w == v_std));
}

/// A value of 128 octets or more: both the wrapped IA5String and the
/// OCTET STRING around it take a long length (X.690 8.1.3.5: `0x81` and
/// one length octet), and the message reads back.
#[test]
fn standard_dialect_wraps_long_values_with_long_lengths() {
    let long = "a".repeat(150);
    let text = format!(
        "!/1 [10.0.0.1]\nT=1{{C=1{{MF=11111111/00000000/00000001{{M{{L{{\nv=0\ns={long}\n}}}}}}}}}}"
    );
    let model = megaco::text::decode(text.as_bytes()).unwrap();
    let cfg = BerConfig::default();
    let bytes = ber::encode(&model, &cfg).unwrap();
    let mut wrapped = vec![0x04, 0x81, 153, 0x16, 0x81, 150];
    wrapped.extend_from_slice(long.as_bytes());
    assert!(bytes.windows(wrapped.len()).any(|w| w == wrapped));
    assert_eq!(ber::decode(&bytes, &cfg).unwrap(), model);
}
