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
//!
//! A failure names the field, the value and the check that failed, once
//! per distinct failure.
#[path = "support/escript.rs"]
mod escript;
#[path = "../../../fuzz/fuzz_targets/normalise.rs"]
mod normalise;
#[path = "../../../fuzz/fuzz_targets/view_check.rs"]
mod view_check;

use megaco::codec::Encoding;
use megaco::model::MegacoMessage;
use serde_json::{json, Value};
use std::cell::Cell;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::Command;
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
    let mut for_otp_compact = TextsForOtp::new();
    let mut for_otp_pretty = TextsForOtp::new();
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
                            let why = otp_text_refusal(model, slot.key());
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
    otp_reads(&for_otp, &for_otp_per, texts, part, &mut failures);
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

/// Reads the OTP-dialect BER (`ber`), the PER (`per`) or the text
/// (`compact`, `pretty`) of every
/// model the sweep's check passed with Erlang/OTP's own decoder (the
/// version found as its stack finds it), and prints, for each encoding it
/// refuses, its index and where the refusal came from: for BER and PER the first
/// three functions of OTP's ASN.1 decoder or transformer on the stack
/// (innermost first; the version left out) and the error's tag, for text
/// the parser's complaint.
const OTP_ESCRIPT: &str = r#"#!/usr/bin/env escript
main([]) -> io:format(standard_error, "usage: sweep.escript ber|per|compact|pretty FILE~n", []);
main([Codec, File]) ->
    {ok, B} = file:read_file(File),
    loop(list_to_atom(Codec), B, 0),
    io:format("done~n").
loop(_, <<>>, _) -> ok;
loop(Codec, <<L:32, M:L/binary, Rest/binary>>, I) ->
    case catch decode(Codec, M) of
        {ok, _} -> ok;
        {again, Again} -> io:format("again ~p ~s~n", [I, hex(Again)]);
        {unwritten, E} -> io:format("unwritten ~p ~s~n", [I, class(E)]);
        Err -> io:format("refused ~p ~s~n", [I, class(Err)])
    end,
    loop(Codec, Rest, I + 1).
decode(compact, M) ->
    megaco_compact_text_encoder:decode_message([], dynamic, M);
decode(pretty, M) ->
    megaco_pretty_text_encoder:decode_message([], dynamic, M);
decode(Codec, M) ->
    Mod = case Codec of ber -> megaco_ber_encoder; per -> megaco_per_encoder end,
    case Mod:version_of([], M) of
        {ok, V} ->
            case Mod:decode_message([], V, M) of
                {ok, Msg} -> again(Mod:encode_message([], V, Msg), M);
                E -> E
            end;
        E -> E
    end.
again({ok, Bytes}, M) ->
    case iolist_to_binary(Bytes) of
        M -> {ok, M};
        Other -> {again, Other}
    end;
again(E, _) -> {unwritten, E}.
hex(B) -> [io_lib:format("~2.16.0b", [X]) || <<X>> <= B].
class({'EXIT', {R, Stack}}) -> where(Stack) ++ " " ++ tag(R);
class({error, {asn1, {R, Stack}}}) when is_list(Stack) -> where(Stack) ++ " " ++ tag(R);
class({error, {R, Stack}}) when is_list(Stack) -> where(Stack) ++ " " ++ tag(R);
class({error, [{reason, {_Line, Parser, [_, Token]}} | _]}) ->
    io_lib:format("~s before ~p", [Parser, Token]);
class(_) -> "other".
where(Stack) ->
    case [atom_to_list(F) || {M, F, _, _} <- Stack, ours(atom_to_list(M))] of
        [] -> "unknown";
        Fs -> string:join(lists:sublist(Fs, 3), "<")
    end.
ours(M) ->
    lists:prefix("megaco_binary_transformer", M)
        orelse lists:prefix("megaco_ber_media", M)
        orelse lists:prefix("megaco_per_media", M).
tag({error, R}) -> tag(R);
tag(R) when is_atom(R) -> atom_to_list(R);
tag(R) when is_tuple(R), is_atom(element(1, R)) -> atom_to_list(element(1, R));
tag(_) -> "other".
"#;

/// Where OTP 25's BER and PER decoders refuse what our encoders write (both
/// in the same places: they share OTP's transformer), and why
/// that is OTP's and not ours (the README, "Where the codecs differ from
/// OTP"). Each is a bound or a missing clause of OTP's transformer (the
/// code between its ASN.1 records and its model), which its encoder
/// shares: OTP cannot write these either.
const OTP_BINARY_REFUSES: &[(&str, &str)] = &[
    (
        "verify_count<tr_integer<tr_ErrorDescriptor count_too_large",
        "an error code above 999: the ASN.1 takes 0..65535",
    ),
    (
        "verify_count<tr_QUOTED_STRING<tr_ErrorDescriptor count_too_small",
        "an empty error text: the ASN.1 (an IA5String) and the text \
         grammar (a quoted string) take it",
    ),
    (
        "verify_count<tr_integer<tr_opt_SecondEventsDescriptor count_not_an_integer",
        "embedded events without a request id: the ASN.1 has it OPTIONAL, and \
         OTP's PER in its [native] configuration writes them (the v3 vector of \
         per_otp_extra.rs); the text grammar has no form for them, and our text \
         encoder refuses them",
    ),
    (
        "tr_indAudLocalControlDescriptor_propertyParms<tr_indAudLocalControlDescriptor\
         <tr_indAudStreamParms function_clause",
        "an audited LocalControl with an empty list of properties (present, \
         not absent): the ASN.1 takes an empty SEQUENCE OF",
    ),
];

/// Each distinct text of the sweep in one style: the first model's label, and
/// the documented shape OTP's parser refuses ([`otp_text_refusal`]), if
/// it has one.
type TextsForOtp = BTreeMap<Vec<u8>, (String, Option<&'static str>)>;

/// OTP's decoders over the sweep's BER, PER and text
/// (`OTP_ESCRIPT`): a BER or PER refusal whose class is not in
/// [`OTP_BINARY_REFUSES`], or a text
/// refusal of a message that has none of the shapes
/// [`otp_text_refusal`] knows, is a failure.
fn otp_reads(
    ber: &BTreeMap<Vec<u8>, String>,
    per: &BTreeMap<Vec<u8>, String>,
    [compact, pretty]: [&TextsForOtp; 2],
    part: usize,
    failures: &mut BTreeMap<String, String>,
) {
    let tag = format!("sweep-{part}");
    let Some((dir, script)) = escript::prepare(&tag, "sweep.escript", OTP_ESCRIPT) else {
        return;
    };
    let run = |codec: &str, encodings: &mut dyn Iterator<Item = &Vec<u8>>| {
        let input = dir.join(codec);
        let mut f = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        for bytes in encodings {
            let len = u32::try_from(bytes.len()).unwrap();
            f.write_all(&len.to_be_bytes()).unwrap();
            f.write_all(bytes).unwrap();
        }
        f.into_inner().unwrap().sync_all().ok();
        let out = Command::new("escript")
            .arg(&script)
            .arg(codec)
            .arg(&input)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.ends_with("done\n"),
            "escript failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
            .lines()
            .filter(|l| *l != "done")
            .map(Verdict::parse)
            .collect::<Vec<_>>()
    };
    let verdicts = [
        ("BER", run("ber", &mut ber.keys()), ber),
        ("PER", run("per", &mut per.keys()), per),
    ];
    let text_verdicts = [
        ("compact", run("compact", &mut compact.keys()), compact),
        ("pretty", run("pretty", &mut pretty.keys()), pretty),
    ];
    std::fs::remove_dir_all(&dir).ok();

    for (codec, verdicts, encodings) in verdicts {
        let encodings: Vec<(&Vec<u8>, &String)> = encodings.iter().collect();
        for verdict in verdicts {
            match verdict {
                Verdict::Refused(index, class) => {
                    if !OTP_BINARY_REFUSES.iter().any(|(c, _)| *c == class) {
                        failures
                            .entry(format!("OTP's {codec} decoder refuses ({class})"))
                            .or_insert(encodings[index].1.clone());
                    }
                }
                Verdict::Unwritten(index, class) => {
                    if !OTP_BINARY_UNWRITTEN.iter().any(|(c, _)| *c == class) {
                        failures
                            .entry(format!(
                                "OTP's {codec} codec reads but cannot write back ({class})"
                            ))
                            .or_insert(encodings[index].1.clone());
                    }
                }
                Verdict::Again(index, again) => {
                    let (ours, label) = encodings[index];
                    let lost = otp_loses(codec, ours, &again);
                    if lost
                        .iter()
                        .any(|k| !OTP_BINARY_LOSES.iter().any(|(l, _)| l == k))
                    {
                        failures
                            .entry(format!(
                                "OTP's {codec} codec writes back other bytes ({})",
                                lost.join(", ")
                            ))
                            .or_insert(label.clone());
                    }
                }
            }
        }
    }
    for (style, verdicts, texts) in text_verdicts {
        let texts: Vec<_> = texts.iter().collect();
        for verdict in verdicts {
            let Verdict::Refused(index, class) = verdict else {
                unreachable!("the text escript only refuses")
            };
            let (bytes, (label, why)) = texts[index];
            if why.is_none() {
                failures
                    .entry(format!("OTP's {style} text parser refuses ({class})"))
                    .or_insert(format!("{label}\n{}", String::from_utf8_lossy(bytes)));
            }
        }
    }
}

/// What `OTP_ESCRIPT` says of one encoding it does not read back exactly.
enum Verdict {
    /// OTP refuses it: its index and where the refusal came from.
    Refused(usize, String),
    /// OTP reads it and writes other bytes: its index and those bytes.
    Again(usize, Vec<u8>),
    /// OTP reads it and fails to write it back: its index and where.
    Unwritten(usize, String),
}

impl Verdict {
    fn parse(line: &str) -> Verdict {
        let mut words = line.splitn(3, ' ');
        let (kind, index, rest) = (
            words.next().unwrap_or_default(),
            words.next().and_then(|i| i.parse().ok()).expect("an index"),
            words.next().unwrap_or_default(),
        );
        match kind {
            "refused" => Verdict::Refused(index, rest.to_string()),
            "unwritten" => Verdict::Unwritten(index, rest.to_string()),
            "again" => Verdict::Again(
                index,
                (0..rest.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&rest[i..i + 2], 16).expect("hex"))
                    .collect(),
            ),
            _ => panic!("unexpected escript line {line:?}"),
        }
    }
}

/// What OTP's re-encoding `again` of our `ours` lost, by the model's field
/// names ([`differences`]; `"nothing"` when both decode to the same model,
/// which would be a byte-identity fault of ours).
fn otp_loses(codec: &str, ours: &[u8], again: &[u8]) -> Vec<String> {
    let decode = |bytes: &[u8]| {
        let msg = match codec {
            "BER" => megaco::ber::decode(bytes, &megaco::ber::BerConfig::otp()),
            _ => megaco::per::decode(bytes, &Default::default()),
        };
        msg.map(|m| serde_json::to_value(m).expect("serialises"))
    };
    let (Ok(ours), Ok(again)) = (decode(ours), decode(again)) else {
        return vec!["something we cannot read".to_string()];
    };
    let mut lost = Vec::new();
    differences(&ours, &again, "", &mut lost);
    lost.sort();
    lost.dedup();
    if lost.is_empty() {
        lost.push("nothing".to_string());
    }
    lost
}

/// Where `a` and `b` differ: the last two keys of each differing leaf's
/// path (`parent.key`, list indices left out).
fn differences(a: &Value, b: &Value, key: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let parent = key.rsplit('.').next().unwrap_or_default();
            for (k, v) in x {
                let key = format!("{parent}.{k}");
                differences(v, y.get(k).unwrap_or(&Value::Null), &key, out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (v, w) in x.iter().zip(y) {
                differences(v, w, key, out);
            }
        }
        _ if a != b => out.push(key.to_string()),
        _ => {}
    }
}

/// What OTP's BER and PER codecs drop when they read and write again what
/// our encoders write (each checked in OTP's transformer), by the model's
/// field names.
const OTP_BINARY_LOSES: &[(&str, &str)] = &[
    (
        "prop_grps.extra_info",
        "a relation, range or sublist on an SDP line: tr_PropertyGroupParm keeps \
         the name and value alone (the text form has no place for it either)",
    ),
    (
        "digit_map_value.duration_timer",
        "a duration timer of 0 (H.248.1 gives it 1 to 99, the ASN.1 0 to 99)",
    ),
    (
        "service_change_parms.non_standard_data",
        "non-standard data of a ServiceChange (the text form has no place for \
         it either)",
    ),
    (
        "empty_descriptors.audit_property_token",
        "an empty list of audited properties, written back absent",
    ),
];

/// Where OTP's BER and PER codecs read what our encoders write but fail to
/// write their own reading back.
const OTP_BINARY_UNWRITTEN: &[(&str, &str)] = &[(
    "tr_EmptyDescriptors<tr_AuditReturnParameter<-tr_TerminationAudit/2-lc$^0/1-0- \
     function_clause",
    "an audit reply's empty descriptors in version 1: OTP's v1 transformer reads \
     the audit tokens into a list its own encoder has no clause for",
)];

/// Whether some object below `v` (or `v`) satisfies `f`.
fn any_object(v: &Value, f: &dyn Fn(&serde_json::Map<String, Value>) -> bool) -> bool {
    match v {
        Value::Object(o) => f(o) || o.values().any(|c| any_object(c, f)),
        Value::Array(a) => a.iter().any(|c| any_object(c, f)),
        _ => false,
    }
}

/// Whether `o[key]` is there and not null.
fn has(o: &serde_json::Map<String, Value>, key: &str) -> bool {
    o.get(key).is_some_and(|v| !v.is_null())
}

/// Which documented shape of `docs/text-grammar.md` ("Where we accept
/// what OTP refuses", and the escaped SDP brace of the README) the model
/// `v`, written as `text`, has: OTP 25's parser refuses each of them.
fn otp_text_refusal(v: &Value, text: &[u8]) -> Option<&'static str> {
    let version = v["mess"]["version"].as_u64().unwrap_or(0);
    // Parameter names OTP's v2 and v3 scanners take for keywords (the
    // sweep's one is Media's short form).
    let keyword_names = ["m"];
    let checks: [(&str, bool); 8] = [
        (
            "an escaped brace in SDP",
            text.windows(2).any(|w| w == b"\\}" || w == b"\\{"),
        ),
        (
            "a v1 ContextAudit",
            version == 1 && any_object(v, &|o| has(o, "context_attr_audit_req")),
        ),
        (
            "Notify with ObservedEvents and Error",
            any_object(v, &|o| {
                o.get("notify")
                    .and_then(Value::as_object)
                    .is_some_and(|n| has(n, "error_descriptor"))
            }),
        ),
        (
            "v2 topology with two triples",
            version == 2
                && any_object(v, &|o| {
                    o.get("topology_req")
                        .and_then(Value::as_array)
                        .is_some_and(|t| t.len() > 1)
                }),
        ),
        (
            "a context property audited with a value",
            any_object(v, &|o| {
                o.get("context_prop_aud")
                    .and_then(Value::as_array)
                    .is_some_and(|ps| ps.iter().any(|p| !p["property_parms"].is_null()))
            }),
        ),
        (
            "a v2/v3 parameter name that spells a keyword",
            version >= 2
                && any_object(v, &|o| {
                    ["ev_par_list", "event_par_list", "sig_par_list"]
                        .iter()
                        .filter_map(|k| o.get(*k).and_then(Value::as_array))
                        .flatten()
                        .filter_map(|p| p["name"].as_str())
                        .any(|n| keyword_names.contains(&n.to_ascii_lowercase().as_str()))
                }),
        ),
        (
            "a transaction after a segment reply",
            any_object(v, &|o| {
                o.get("transactions")
                    .and_then(Value::as_array)
                    .is_some_and(|ts| {
                        ts.iter()
                            .rev()
                            .skip(1)
                            .any(|t| t.get("segment_reply").is_some())
                    })
            }),
        ),
        (
            "a single-stream media audit with LocalControl and Statistics",
            any_object(v, &|o| {
                o.get("one_stream")
                    .and_then(Value::as_object)
                    .is_some_and(|s| {
                        has(s, "local_control_descriptor") && has(s, "statistics_descriptor")
                    })
            }),
        ),
    ];
    checks.iter().find(|(_, is)| *is).map(|(why, _)| *why)
}
