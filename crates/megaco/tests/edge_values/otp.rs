//! Erlang/OTP's own decoders over what the sweep encodes: what they
//! refuse, what their binary codecs write back, what its text encoders
//! write of what its BER decoder read (compared in `otp_text`), and the
//! documented reasons for each difference.

use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Write;

use super::{escript, otp_text};

/// Reads the OTP-dialect BER (`ber`), the PER (`per`) or the text
/// (`compact`, `pretty`) of every model the sweep's check passed with
/// Erlang/OTP's own decoder (the version found as its stack finds it).
/// For each encoding it refuses it prints its index and where the refusal
/// came from: for BER and PER the first three functions of OTP's ASN.1
/// decoder or transformer on the stack (innermost first; the version left
/// out) and the error's tag, for text the parser's complaint. What its
/// binary codecs read they encode again, and print when the bytes differ
/// from ours or the encoding fails. What its BER decoder reads it also
/// writes in compact and pretty text, and prints when the text differs
/// from ours (given beside each BER encoding) or the encoding fails.
const OTP_ESCRIPT: &str = r#"#!/usr/bin/env escript
main([]) -> io:format(standard_error, "usage: sweep.escript ber|per|compact|pretty FILE~n", []);
main([Codec, File]) ->
    {ok, B} = file:read_file(File),
    loop(list_to_atom(Codec), B, 0),
    io:format("done~n").
loop(_, <<>>, _) -> ok;
loop(ber, <<L:32, M:L/binary, LC:32, C:LC/binary, LP:32, P:LP/binary, Rest/binary>>, I) ->
    verdict(ber, M, I),
    texts(M, I, [{compact, C}, {pretty, P}]),
    loop(ber, Rest, I + 1);
loop(Codec, <<L:32, M:L/binary, Rest/binary>>, I) ->
    verdict(Codec, M, I),
    loop(Codec, Rest, I + 1).
verdict(Codec, M, I) ->
    case catch decode(Codec, M) of
        {ok, _} -> ok;
        {again, Again} -> io:format("again ~p ~s~n", [I, hex(Again)]);
        {unwritten, E} -> io:format("unwritten ~p ~s~n", [I, class(E)]);
        Err -> io:format("refused ~p ~s~n", [I, class(Err)])
    end.
texts(M, I, Ours) ->
    case catch read_ber(M) of
        {ok, V, Msg} -> [text(Style, V, Msg, T, I) || {Style, T} <- Ours, T =/= <<>>];
        _ -> ok
    end.
read_ber(M) ->
    {ok, V} = megaco_ber_encoder:version_of([], M),
    {ok, Msg} = megaco_ber_encoder:decode_message([], V, M),
    {ok, V, Msg}.
text(Style, V, Msg, Ours, I) ->
    Mod = case Style of
        compact -> megaco_compact_text_encoder;
        pretty -> megaco_pretty_text_encoder
    end,
    case catch Mod:encode_message([], V, Msg) of
        {ok, Bytes} ->
            case iolist_to_binary(Bytes) of
                Ours -> ok;
                Other -> io:format("text ~p ~s ~s~n", [I, Style, hex(Other)])
            end;
        {error, {R, Stack}} when is_list(Stack) ->
            io:format("untexted ~p ~s ~s ~s~n", [I, Style, where(Stack, 5), tag(R)]);
        Err -> io:format("untexted ~p ~s ~s~n", [I, Style, class(Err)])
    end.
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
where(Stack) -> where(Stack, 3).
where(Stack, N) ->
    case [atom_to_list(F) || {M, F, _, _} <- Stack, ours(atom_to_list(M))] of
        [] -> "unknown";
        Fs -> string:join(lists:sublist(Fs, N), "<")
    end.
ours(M) ->
    lists:prefix("megaco_binary_transformer", M)
        orelse lists:prefix("megaco_ber_media", M)
        orelse lists:prefix("megaco_per_media", M)
        orelse lists:prefix("megaco_compact_text_encoder", M)
        orelse lists:prefix("megaco_pretty_text_encoder", M).
tag({error, R}) -> tag(R);
tag(R) when is_atom(R) -> atom_to_list(R);
tag(R) when is_tuple(R), is_atom(element(1, R)) -> atom_to_list(element(1, R));
tag(_) -> "other".
"#;

/// Where OTP 25's BER and PER decoders refuse what our encoders write, and
/// why that is OTP's and not ours (the README, "Where the codecs differ
/// from OTP"). Each is a bound or a missing clause of OTP's transformer,
/// the code between its ASN.1 records and its model that both binary
/// codecs share, decoding and encoding: OTP cannot write these either.
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

/// Each distinct text of the sweep in one style: the first model's label,
/// and the documented shape OTP's parser refuses ([`otp_text_refusal`]),
/// if it has one.
pub(super) type TextsForOtp = BTreeMap<Vec<u8>, (String, Option<&'static str>)>;

/// OTP's codecs over the sweep's BER, PER and text (`OTP_ESCRIPT`), adding
/// to `failures`: a BER or PER refusal whose class is not in
/// [`OTP_BINARY_REFUSES`], a re-encoding that differs from ours beyond
/// [`OTP_BINARY_LOSES`] or fails beyond [`OTP_BINARY_UNWRITTEN`], and a
/// text refusal of a message with none of the shapes [`otp_text_refusal`]
/// knows.
pub(super) fn otp_reads(
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
    let run = |codec: &str, records: &mut dyn Iterator<Item = Vec<&[u8]>>| {
        let input = dir.join(codec);
        let mut f = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        for bytes in records.flatten() {
            let len = u32::try_from(bytes.len()).unwrap();
            f.write_all(&len.to_be_bytes()).unwrap();
            f.write_all(bytes).unwrap();
        }
        f.into_inner().unwrap().sync_all().ok();
        escript::run(&script, [OsStr::new(codec), input.as_os_str()])
            .iter()
            .map(|line| Verdict::parse(line))
            .collect::<Vec<_>>()
    };
    // Our text of what our BER decoder reads of each BER encoding (empty
    // where we do not write it), for OTP's text encoders to match.
    let ours_in_text: Vec<[Vec<u8>; 2]> = ber.keys().map(|b| texts_of_ber(b)).collect();
    let mut ber_records = ber
        .keys()
        .zip(&ours_in_text)
        .map(|(b, [c, p])| vec![&b[..], &c[..], &p[..]]);
    let verdicts = [
        ("BER", run("ber", &mut ber_records), ber),
        ("PER", run("per", &mut alone(per.keys())), per),
    ];
    let text_verdicts = [
        (
            "compact",
            run("compact", &mut alone(compact.keys())),
            compact,
        ),
        ("pretty", run("pretty", &mut alone(pretty.keys())), pretty),
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
                Verdict::Text(index, style, otp) => {
                    let (label, ours) = (encodings[index].1, &ours_in_text[index][style]);
                    for kind in otp_text::differences(ours, &otp) {
                        if !otp_text::OTP_TEXT_WRITES.iter().any(|(k, _)| *k == kind) {
                            failures
                                .entry(format!(
                                    "OTP's {} text encoder writes {kind}",
                                    STYLES[style]
                                ))
                                .or_insert(format!(
                                    "{label}\nours: {}\nOTP's: {}",
                                    String::from_utf8_lossy(ours),
                                    String::from_utf8_lossy(&otp)
                                ));
                        }
                    }
                }
                Verdict::Untexted(index, style, class) => {
                    if !otp_text::OTP_TEXT_UNWRITTEN
                        .iter()
                        .any(|(c, _)| *c == class)
                    {
                        failures
                            .entry(format!(
                                "OTP's {} text encoder fails on what it read ({class})",
                                STYLES[style]
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

/// Each encoding as a record of its own.
fn alone<'a>(keys: impl Iterator<Item = &'a Vec<u8>>) -> impl Iterator<Item = Vec<&'a [u8]>> {
    keys.map(|b| vec![&b[..]])
}

/// The text styles OTP writes what it reads of our BER in, as the
/// escript names them and in the order of `texts_of_ber`.
const STYLES: [&str; 2] = ["compact", "pretty"];

/// Our compact and pretty text of what our BER decoder reads of `ber`
/// (each empty where our text encoder refuses the model).
fn texts_of_ber(ber: &[u8]) -> [Vec<u8>; 2] {
    let msg = megaco::ber::decode(ber, &megaco::ber::BerConfig::otp()).expect("our BER reads back");
    [megaco::text::Style::Compact, megaco::text::Style::Pretty].map(|style| {
        let mut text = Vec::new();
        if megaco::text::encode(&msg, style, &mut text).is_err() {
            text.clear();
        }
        text
    })
}

/// What `OTP_ESCRIPT` says of one encoding it does not read back exactly.
enum Verdict {
    /// OTP refuses it: its index and where the refusal came from.
    Refused(usize, String),
    /// OTP reads it and writes other bytes: its index and those bytes.
    Again(usize, Vec<u8>),
    /// OTP reads it and fails to write it back: its index and where.
    Unwritten(usize, String),
    /// OTP writes in text (the index of a style of [`STYLES`]) what it
    /// read of our BER, and the text differs from ours: the BER's index
    /// and OTP's text.
    Text(usize, usize, Vec<u8>),
    /// OTP fails to write in text what it read of our BER: the BER's
    /// index, the style's and where.
    Untexted(usize, usize, String),
}

impl Verdict {
    fn parse(line: &str) -> Verdict {
        let mut words = line.splitn(3, ' ');
        let (kind, index, rest) = (
            words.next().unwrap_or_default(),
            words.next().and_then(|i| i.parse().ok()).expect("an index"),
            words.next().unwrap_or_default(),
        );
        let styled = || {
            let (style, rest) = rest.split_once(' ').expect("a style");
            let style = STYLES.iter().position(|s| *s == style).expect("a style");
            (style, rest)
        };
        match kind {
            "refused" => Verdict::Refused(index, rest.to_string()),
            "unwritten" => Verdict::Unwritten(index, rest.to_string()),
            "again" => Verdict::Again(index, unhex(rest)),
            "text" => {
                let (style, hex) = styled();
                Verdict::Text(index, style, unhex(hex))
            }
            "untexted" => {
                let (style, class) = styled();
                Verdict::Untexted(index, style, class.to_string())
            }
            _ => panic!("unexpected escript line {line:?}"),
        }
    }
}

fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
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
/// our encoders write, by the model's field names (seen in what OTP writes
/// back; the first also in OTP's transformer source).
const OTP_BINARY_LOSES: &[(&str, &str)] = &[
    (
        "prop_grps.extra_info",
        "a relation, range or sublist on an SDP line: tr_PropertyGroupParm keeps \
         the name and value alone (the text form has no place for it either)",
    ),
    (
        "digit_map_value.duration_timer",
        "a digit map's duration timer: tr_DigitMapValue keeps the start, short \
         and long timers and the body alone",
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
pub(super) fn otp_text_refusal(v: &Value, text: &[u8]) -> Option<&'static str> {
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
