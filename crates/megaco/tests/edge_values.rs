//! Every field of every corpus message, set to edge values, through every
//! codec.
//!
//! The `roundtrip` fuzz target builds models from random bytes, and most
//! of them never reach the text encoder's corners: a random name is
//! rarely one the encoders accept. This sweep starts from the corpus
//! instead (names, ids and SDP that every codec takes) and changes one
//! field at a time: to none, empty, zero, the limits of its type, strings
//! with the characters the text grammar treats specially, lists shortened,
//! reversed or with an element repeated, and to every value (up to a
//! dozen) the same field holds anywhere else in the corpus (or, for the
//! few fields no corpus message sets, values written here). A handful of
//! text messages add the shapes the corpus lacks (`EXTRA`). Each model
//! that still deserialises goes through the `roundtrip` target's check
//! (`fuzz/fuzz_targets/normalise.rs`): every encoder either refuses it or
//! gives back the same model, up to the documented canonical forms. The
//! sweep is deterministic, so what it finds stays found (fuzz findings
//! 56–61 came from it).
//!
//! Where Erlang/OTP is installed (and always under `CI=true`), OTP 25's
//! own decoders then read every distinct compact and pretty text,
//! OTP-dialect BER and PER encoding the sweep made: a refusal fails the test unless it is one of
//! the documented differences (`OTP_BINARY_REFUSES`, `otp_text_refusal`).
//! What OTP's binary codecs read they write again, and what its BER
//! decoder reads its text encoders write: bytes or text other than ours
//! fail the test unless the difference is a documented one
//! (`OTP_BINARY_LOSES`, `otp_text::OTP_TEXT_WRITES`).
//!
//! A failure names the field, the value and the check that failed, once
//! per distinct failure.
#[path = "support/escript.rs"]
mod escript;
#[path = "../../../fuzz/fuzz_targets/normalise.rs"]
mod normalise;
#[path = "edge_values/otp.rs"]
mod otp;
#[path = "edge_values/otp_text.rs"]
mod otp_text;
#[path = "../../../fuzz/fuzz_targets/view_check.rs"]
mod view_check;

use megaco::codec::Encoding;
use megaco::model::MegacoMessage;
use serde_json::{json, Value};
use std::cell::Cell;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Once;

/// The corpus, decoded from Erlang/OTP's BER encodings, and [`EXTRA`].
fn corpus() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vectors/ber");
    let cfg = megaco::ber::BerConfig::otp();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus/vectors/ber")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 149, "the corpus has 149 messages");
    paths
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).expect("a corpus file");
            let msg = megaco::ber::decode(&bytes, &cfg).expect("a corpus message decodes");
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            (
                name.into_owned(),
                serde_json::to_value(msg).expect("serialises"),
            )
        })
        .chain(EXTRA.iter().map(|(name, text)| {
            let msg =
                megaco::text::decode(text.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
            (
                name.to_string(),
                serde_json::to_value(msg).expect("serialises"),
            )
        }))
        .collect()
}

/// Shapes no corpus message has (a Modem and a Mux descriptor, an Audit
/// descriptor among a command's descriptors, AuditCapability and
/// ContextAudit replies, observed events in an audit reply, an audit of a
/// list of terminations, a pending transaction), written as text and
/// swept like the corpus.
const EXTRA: [(&str, &str); 7] = [
    (
        "modem-mux",
        "!/1 [10.0.0.1]\nT=1{C=1{A=t1{MD[V18,V32b]{nt/jit=40},MX=H221{t2,t3}}}}",
    ),
    (
        "audit-in-add",
        "!/2 [10.0.0.1]\nT=2{C=1{A=t1{AT{M,E},E=3{al/on}}}}",
    ),
    (
        "audit-capability-reply",
        "!/1 [10.0.0.1]\nP=3{C=1{AC=t1{M{TS{SI=IV}},OE=4{al/on}}}}",
    ),
    (
        "context-audit-reply",
        "!/3 [10.0.0.1]\nP=4{C=1{AV=C{t1,t2}}}",
    ),
    (
        "audit-term-list",
        "!/3 [10.0.0.1]\nP=5{C=1{AV=[t1,t2]{M{TS{SI=IV}}}}}",
    ),
    ("pending", "!/1 [10.0.0.1]\nPN=6{}"),
    (
        "observed-events-audit",
        "!/2 [10.0.0.1]\nP=7{C=1{AV=t1{OE=4{19990729T22000000:al/on{strict=state}}}}}",
    ),
];

/// Strings the text grammar treats specially (quotes, braces, separators,
/// white space, non-ASCII, wildcards, the root termination).
const SPECIAL: [&str; 19] = [
    "", "a", "x y", "}", "{", "\\", "\"", ",", "=", "a\nb", "0", "*", "$", "é", "a;b", "[1]",
    "<x>", "-", "ROOT",
];

/// The values a field holding `v` is set to, besides the corpus's own.
fn edits(v: &Value) -> Vec<Value> {
    match v {
        Value::Null => vec![
            json!([]),
            json!({}),
            json!(false),
            json!(true),
            json!(0),
            json!(""),
            json!("a"),
            json!([0]),
            json!(65535),
        ],
        Value::Bool(b) => vec![json!(!b), Value::Null],
        Value::Number(_) => [0u64, 1, 2, 3, 255, 65535, 4294967295]
            .iter()
            .map(|&n| json!(n))
            .chain([Value::Null])
            .collect(),
        Value::String(s) => [
            Value::Null,
            json!(s.to_ascii_uppercase()),
            json!(s.repeat(2)),
        ]
        .into_iter()
        .chain(SPECIAL.iter().map(|&x| json!(x)))
        .collect(),
        Value::Array(a) => match a.as_slice() {
            [] => vec![Value::Null],
            [first, ..] => {
                let mut out = vec![json!([]), Value::Null];
                if a.len() > 1 {
                    out.push(json!([first]));
                    out.push(a.iter().rev().cloned().collect());
                }
                out.push(a.iter().chain([first]).cloned().collect());
                out
            }
        },
        Value::Object(_) => vec![Value::Null, json!({})],
    }
}

/// Values for the fields no corpus message sets (each is `null`
/// throughout), and a few wrong ones among them.
fn unset_fields(key: &str, by_key: &BTreeMap<String, Vec<Value>>) -> Vec<Value> {
    match key {
        "auth_header" => vec![
            json!({"sec_parm_index": 1, "seq_num": 2, "ad": [0, 1, 2, 255]}),
            json!({"sec_parm_index": 0, "seq_num": 0, "ad": []}),
        ],
        "time_stamp" => vec![
            json!({"date": "20261129", "time": "12000000"}),
            json!({"date": "2026112", "time": "1200000"}),
            json!({"date": "abcdefgh", "time": "12:00:00"}),
        ],
        "non_standard_data" => vec![
            json!({"non_standard_identifier": {"experimental": "abcdefgh"}, "data": [1, 2]}),
            json!({"non_standard_identifier": {"object": [1, 2, 3]}, "data": []}),
            json!({"non_standard_identifier": {"h221_non_standard": {
                "t35_country_code1": 1, "t35_country_code2": 2,
                "t35_extension": 3, "manufacturer_code": 4}}, "data": [0]}),
        ],
        // a mid, as the header holds them
        "service_change_mgc_id" => by_key.get("mid").cloned().unwrap_or_default(),
        // an audit descriptor, as commands hold them
        "service_change_info" => by_key.get("audit_descriptor").cloned().unwrap_or_default(),
        "duration_timer" | "service_change_delay" => vec![json!(1), json!(99)],
        _ => vec![],
    }
}

/// Up to a dozen distinct values of each object key, across the corpus.
fn values_by_key(corpus: &[(String, Value)]) -> BTreeMap<String, Vec<Value>> {
    fn collect(v: &Value, out: &mut BTreeMap<String, Vec<Value>>) {
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    let seen = out.entry(k.clone()).or_default();
                    if !child.is_null() && seen.len() < 12 && !seen.contains(child) {
                        seen.push(child.clone());
                    }
                    collect(child, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|x| collect(x, out)),
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    corpus.iter().for_each(|(_, v)| collect(v, &mut out));
    out
}

/// The path of every node below the root of `v`.
fn paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut visit = |key: String, child: &Value| {
        at.push(key);
        out.push(at.clone());
        paths(child, at, out);
        at.pop();
    };
    match v {
        Value::Object(map) => map.iter().for_each(|(k, c)| visit(k.clone(), c)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .for_each(|(i, c)| visit(i.to_string(), c)),
        _ => {}
    }
}

/// The node of `v` at `path` (from [`paths`]).
fn node<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(v, |v, k| match v {
        Value::Object(map) => map.get_mut(k).expect("a path of this value"),
        Value::Array(items) => &mut items[k.parse::<usize>().expect("an index")],
        _ => unreachable!("paths end at leaves"),
    })
}

/// The `view` and `text_view` targets' check on `msg`'s compact text
/// and OTP-dialect BER: the borrowed view yields what the owned decoder
/// does.
fn views(msg: &MegacoMessage, label: &str) {
    let text = Encoding::Text {
        style: megaco::text::Style::Compact,
        limits: megaco::Limits::DEFAULT,
    };
    let ber = Encoding::Ber(megaco::ber::BerConfig::otp());
    for enc in [text, ber] {
        if let Ok(bytes) = enc.encode(msg) {
            view_check::check(&bytes, &enc, label);
        }
    }
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// The check panics on a failure, which the sweep catches and counts:
/// while `on`, this thread's panics print nothing (the other tests'
/// threads, and this one's final assertion, print as usual).
fn quiet_panics(on: bool) {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                default(info);
            }
        }));
    });
    QUIET.with(|q| q.set(on));
}

/// Sweeps the corpus messages whose index is `part` modulo `parts` (the
/// parts run as parallel tests).
fn sweep(part: usize, parts: usize) {
    let corpus = corpus();
    let by_key = values_by_key(&corpus);
    quiet_panics(true);
    let mut failures: BTreeMap<String, String> = BTreeMap::new();
    let mut tried = 0;
    // Each distinct OTP-dialect BER encoding, with the first model's label.
    let mut for_otp: BTreeMap<Vec<u8>, String> = BTreeMap::new();
    let mut for_otp_compact = otp::TextsForOtp::new();
    let mut for_otp_pretty = otp::TextsForOtp::new();
    let mut for_otp_per: BTreeMap<Vec<u8>, String> = BTreeMap::new();
    let otp_ber = megaco::ber::BerConfig::otp();
    for (name, base) in corpus.iter().skip(part).step_by(parts) {
        let mut all = Vec::new();
        paths(base, &mut Vec::new(), &mut all);
        for path in all {
            let old = node(&mut base.clone(), &path).clone();
            let key = path.last().filter(|k| k.parse::<usize>().is_err());
            let elsewhere = key.and_then(|k| by_key.get(k)).into_iter().flatten();
            let unset = key.map(|k| unset_fields(k, &by_key)).unwrap_or_default();
            let new_values = edits(&old)
                .into_iter()
                .chain(elsewhere.filter(|&v| *v != old).cloned())
                .chain(unset);
            for value in new_values {
                let mut v = base.clone();
                *node(&mut v, &path) = value.clone();
                let Ok(msg) = serde_json::from_value::<MegacoMessage>(v) else {
                    continue;
                };
                tried += 1;
                let label = format!("{name} with {} = {value}", path.join("."));
                let Err(e) = std::panic::catch_unwind(|| {
                    normalise::roundtrip(&msg, &label);
                    views(&msg, &label);
                }) else {
                    if let Ok(bytes) = megaco::ber::encode(&msg, &otp_ber) {
                        for_otp.entry(bytes).or_insert_with(|| label.clone());
                    }
                    if let Ok(bytes) = megaco::per::encode(&msg, &Default::default()) {
                        for_otp_per.entry(bytes).or_insert_with(|| label.clone());
                    }
                    let mut model = None;
                    for (texts, style) in [
                        (&mut for_otp_compact, megaco::text::Style::Compact),
                        (&mut for_otp_pretty, megaco::text::Style::Pretty),
                    ] {
                        let mut text = Vec::new();
                        if megaco::text::encode(&msg, style, &mut text).is_err() {
                            continue;
                        }
                        if let Entry::Vacant(slot) = texts.entry(text) {
                            let model = model.get_or_insert_with(|| {
                                serde_json::to_value(&msg).expect("serialises")
                            });
                            let why = otp::otp_text_refusal(model, slot.key());
                            slot.insert((label.clone(), why));
                        }
                    }
                    continue;
                };
                let text = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                // One report per field (indices aside), value and check.
                let field: Vec<&str> = path
                    .iter()
                    .filter(|k| k.parse::<usize>().is_err())
                    .map(String::as_str)
                    .collect();
                let check = text.lines().next().unwrap_or_default();
                let check = check.split_once(": ").map_or(check, |(_, c)| c);
                failures
                    .entry(format!("{} = {value}: {check}", field.join(".")))
                    .or_insert(format!("{label}\n{text}"));
            }
        }
    }
    quiet_panics(false);
    assert!(tried > 10_000, "only {tried} models tried");
    let texts = [&for_otp_compact, &for_otp_pretty];
    otp::otp_reads(&for_otp, &for_otp_per, texts, part, &mut failures);
    let report: Vec<String> = failures
        .iter()
        .map(|(k, first)| {
            format!(
                "{k}\n  first: {}",
                first.chars().take(2000).collect::<String>()
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} distinct failures in {tried} models:\n{}",
        failures.len(),
        report.join("\n")
    );
}

#[test]
fn edge_values_0() {
    sweep(0, 4);
}

#[test]
fn edge_values_1() {
    sweep(1, 4);
}

#[test]
fn edge_values_2() {
    sweep(2, 4);
}

#[test]
fn edge_values_3() {
    sweep(3, 4);
}

/// Each value of [`unset_fields`] fits its field somewhere in the corpus
/// (a misspelt one would never deserialise, and the sweep would skip it
/// without a word).
#[test]
fn unset_field_values_fit() {
    let corpus = corpus();
    let by_key = values_by_key(&corpus);
    let keys = [
        "auth_header",
        "time_stamp",
        "non_standard_data",
        "service_change_mgc_id",
        "service_change_info",
        "duration_timer",
        "service_change_delay",
    ];
    for key in keys {
        let values = unset_fields(key, &by_key);
        assert!(!values.is_empty(), "{key}");
        for value in values {
            let fits = corpus.iter().any(|(_, base)| {
                let mut all = Vec::new();
                paths(base, &mut Vec::new(), &mut all);
                all.iter()
                    .filter(|p| p.last().map(String::as_str) == Some(key))
                    .any(|p| {
                        let mut v = base.clone();
                        *node(&mut v, p) = value.clone();
                        serde_json::from_value::<MegacoMessage>(v).is_ok()
                    })
            });
            assert!(fits, "{key} = {value} fits no corpus message");
        }
    }
}
