//! The canonical form the binary codecs give back: audit tokens and
//! notify-completion reasons travel as ASN.1 BIT STRINGs, so they decode
//! in bit order, each once; standard BER carries MTP addresses as the
//! octets their hex digits stand for, so that text comes back in upper
//! case. Shared by the `roundtrip` fuzz target and the
//! regression replay test (crates/megaco/tests/fuzz_regressions.rs).
use megaco::ber::BerConfig;
use megaco::model::{
    AuditToken, MegacoMessage, MessageBody, NotifyCompletion, Transaction, TransactionResult,
};
use megaco::native::NativeConfig;
use megaco::per::PerConfig;
use serde_json::Value;

/// The `roundtrip` target's check: `msg` through every codec. Whatever an
/// encoder accepts must decode back to `msg` up to the documented
/// canonical forms below; an encoder may refuse (an `EncodeError`) but
/// never panic. `label` names the input in a failure.
pub fn roundtrip(msg: &MegacoMessage, label: &str) {
    for style in [megaco::text::Style::Pretty, megaco::text::Style::Compact] {
        let mut out = Vec::new();
        if megaco::text::encode(msg, style, &mut out).is_ok() {
            let back = megaco::text::decode(&out).unwrap_or_else(|e| {
                panic!(
                    "{label}: text {style:?} output fails: {e}\n{}",
                    String::from_utf8_lossy(&out)
                )
            });
            text_equivalent(msg, &back, style);
        }
    }
    let bits = bit_strings(msg);
    let standard = standard_ber(msg);
    for (cfg, expected) in [(BerConfig::default(), &standard), (BerConfig::otp(), &bits)] {
        if let Ok(bytes) = megaco::ber::encode(msg, &cfg) {
            let back = megaco::ber::decode(&bytes, &cfg)
                .unwrap_or_else(|e| panic!("{label}: BER {:?} output fails: {e}", cfg.dialect));
            binary_equivalent(expected, &back, "BER", |m| {
                let b = megaco::ber::encode(m, &cfg).expect("a decoded message encodes");
                megaco::ber::decode(&b, &cfg).expect("our own BER decodes")
            });
        }
    }
    let cfg = PerConfig::default();
    if let Ok(bytes) = megaco::per::encode(msg, &cfg) {
        let back = megaco::per::decode(&bytes, &cfg)
            .unwrap_or_else(|e| panic!("{label}: PER output fails: {e}"));
        binary_equivalent(&bits, &back, "PER", |m| {
            let b = megaco::per::encode(m, &cfg).expect("a decoded message encodes");
            megaco::per::decode(&b, &cfg).expect("our own PER decodes")
        });
    }
    for cfg in NativeConfig::ALL {
        if let Ok(bytes) = megaco::native::encode(msg, &cfg) {
            let back = megaco::native::decode(&bytes, &cfg)
                .unwrap_or_else(|e| panic!("{label}: native {cfg:?} output fails: {e}"));
            assert_eq!(&back, msg, "{label}: native {cfg:?} round trip");
        }
    }
}

/// `msg` with every audit token and notify-completion list in bit order
/// without duplicates (what OTP-dialect BER and PER give back).
pub fn bit_strings(msg: &MegacoMessage) -> MegacoMessage {
    let mut v = serde_json::to_value(msg).expect("the model serialises");
    walk(&mut v, false);
    serde_json::from_value(v).expect("the model deserialises")
}

/// [`bit_strings`], and MTP addresses in upper-case hex (what
/// standard-dialect BER gives back).
pub fn standard_ber(msg: &MegacoMessage) -> MegacoMessage {
    let mut v = serde_json::to_value(msg).expect("the model serialises");
    walk(&mut v, true);
    serde_json::from_value(v).expect("the model deserialises")
}

fn walk(v: &mut Value, hex_mtp: bool) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                match k.as_str() {
                    "audit_token" => sort::<AuditToken>(child),
                    "notify_completion" => sort::<NotifyCompletion>(child),
                    // a service change address's MTP digits, or a mid
                    // written in its structural form
                    "mtp" if hex_mtp => {
                        if let Value::String(hex) = child {
                            hex.make_ascii_uppercase();
                        }
                    }
                    // a mid in its text form, `MTP{hex}`
                    "mid" | "service_change_mgc_id" if hex_mtp => match child {
                        Value::String(mid) if mid.starts_with("MTP{") => mid.make_ascii_uppercase(),
                        _ => walk(child, hex_mtp),
                    },
                    _ => walk(child, hex_mtp),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| walk(x, hex_mtp)),
        _ => {}
    }
}

fn sort<T>(v: &mut Value)
where
    T: Ord + serde::Serialize + serde::de::DeserializeOwned,
{
    if v.is_null() {
        return;
    }
    let mut items: Vec<T> = serde_json::from_value(v.take()).expect("a list of bits");
    items.sort();
    items.dedup();
    *v = serde_json::to_value(items).expect("bits serialise");
}

/// Replaces with null every value of `v`, at any depth, for which `hit`
/// (given the object holding it, its key and the value) holds; looks no
/// deeper into those.
fn null_where(v: &mut Value, hit: &impl Fn(&serde_json::Map<String, Value>, &str, &Value) -> bool) {
    match v {
        Value::Object(map) => {
            let nulled: Vec<String> = map
                .iter()
                .filter(|(k, child)| hit(map, k, child))
                .map(|(k, _)| k.clone())
                .collect();
            for (k, child) in map.iter_mut() {
                if nulled.contains(k) {
                    *child = Value::Null;
                } else {
                    null_where(child, hit);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| null_where(item, hit)),
        _ => {}
    }
}

/// Whether `v` is the JSON of an empty list.
fn empty_list(v: &Value) -> bool {
    v.as_array().is_some_and(Vec::is_empty)
}

/// `msg` as text gives it back: an empty context request, context audit
/// or context reply has no text form (their items are elements of the
/// action's list), so it reads back as `None`, as does an empty list of
/// context properties or audited context properties, and the default
/// select logic (AND), which is not written; an audit descriptor with
/// empty token lists is `Audit { }`, which reads back without lists; an
/// event's requested actions with nothing in them, an embedded Signals
/// descriptor with no signals, a KeepActive of `false` and the request
/// id of an embedded Events descriptor with no events are not written, so
/// they read back as none, as do an audited LocalControl's empty list
/// of properties and a media descriptor's empty list of streams, and a
/// service change's audit descriptor with no tokens; the last SDP line
/// of a Local or Remote descriptor reads back without trailing spaces or
/// tabs.
fn text_canonical(msg: &MegacoMessage) -> MegacoMessage {
    let mut json = serde_json::to_value(msg).expect("the model serialises");
    // `Audit { }` reads as an audit descriptor with no token lists.
    null_where(&mut json, &|_, k, child| {
        (k == "audit_token" || k == "audit_property_token") && empty_list(child)
    });
    // A service change's audit items are written among its parameters:
    // with no tokens in either list nothing is written, and the
    // parameters read back without an audit descriptor.
    null_where(&mut json, &|_, k, child| {
        k == "service_change_info"
            && child
                .as_object()
                .is_some_and(|m| m.values().all(Value::is_null))
    });
    // An embedded Events descriptor with a request id and no events is
    // written bare (`Embed { Events }`, as Erlang/OTP's encoder writes
    // it; the grammar has a request id only before a list of events), so
    // it reads back without the id. (A first-level one is refused.)
    null_where(&mut json, &|parent, k, _| {
        k == "request_id" && parent.get("event_list").is_some_and(empty_list)
    });
    // KeepActive is a flag in text: `false` is not written (nor by
    // Erlang/OTP's encoders), so a signal's or an event's reads back as
    // none.
    null_where(&mut json, &|_, k, child| {
        k == "keep_active" && *child == Value::Bool(false)
    });
    // An event's embedded Signals descriptor with no signals is not
    // written (Erlang/OTP's encoder leaves it out the same way), so the
    // event reads back without it. (A regulated notification's is
    // written, `Embed { Signals }`, and reads back as it was.)
    null_where(&mut json, &|parent, k, child| {
        k == "signals_descriptor" && empty_list(child) && parent.contains_key("keep_active")
    });
    // An event's requested actions with nothing in them (no KeepActive,
    // digit map, embedded descriptors, notify behaviour or reset flag)
    // have no text form: `t/c` with no body reads back without actions.
    null_where(&mut json, &|_, k, child| {
        k == "event_action"
            && child
                .as_object()
                .is_some_and(|m| m.values().all(|v| v.is_null() || *v == Value::Bool(false)))
    });
    // An audited LocalControl's empty list of properties writes nothing
    // (`LocalControl { RV }`): it reads back as no list. (Only the audit
    // descriptor, which has `stream_mode_sel`, holds the list as an
    // option.)
    null_where(&mut json, &|parent, k, child| {
        k == "property_parms" && empty_list(child) && parent.contains_key("stream_mode_sel")
    });
    // A media descriptor's empty list of streams writes nothing (each
    // stream is a `Stream = id { … }`): it reads back as no streams.
    null_where(&mut json, &|_, k, child| {
        k == "streams" && child.get("multi_stream").is_some_and(empty_list)
    });
    // v1/v2 text writes an empty digit map value (no timers, no body) as
    // none (`DigitMap = name`).
    if msg.mess.version < 3 {
        null_where(&mut json, &|_, k, child| {
            k == "digit_map_value"
                && child.as_object().is_some_and(|m| {
                    m.iter().all(|(k, v)| {
                        v.is_null() || (k == "digit_map_body" && v.as_str() == Some(""))
                    })
                })
        });
    }
    // A Local or Remote descriptor's text ends at its `}` with white
    // space trimmed, so its last line's trailing spaces and tabs read back
    // trimmed (Erlang/OTP's decoder trims them the same way).
    trim_last_sdp_value(&mut json);
    let mut msg: MegacoMessage = serde_json::from_value(json).expect("the model deserialises");
    let v = msg.mess.version;
    if let MessageBody::Transactions(ts) = &mut msg.mess.body {
        for t in ts {
            match t {
                Transaction::Request(r) => {
                    for a in &mut r.actions {
                        canonical_context(&mut a.context_request, v);
                        a.command_requests
                            .iter_mut()
                            .for_each(|c| canonical_request(&mut c.command));
                        if let Some(c) = &mut a.context_attr_audit_req {
                            if c.context_prop_aud.as_ref().is_some_and(Vec::is_empty) {
                                c.context_prop_aud = None;
                            }
                            // AND is the default; OTP writes nothing for it
                            if c.select_logic == Some(megaco::model::SelectLogic::And) {
                                c.select_logic = None;
                            }
                            if c.is_empty() {
                                a.context_attr_audit_req = None;
                            }
                        }
                    }
                }
                Transaction::Reply(r) => {
                    if let TransactionResult::ActionReplies(actions) = &mut r.result {
                        for a in actions {
                            canonical_context(&mut a.context_reply, v);
                            a.command_reply.iter_mut().for_each(canonical_reply);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    msg
}

/// Trims the trailing spaces and tabs of the last SDP line of every
/// Local and Remote descriptor in `v`.
fn trim_last_sdp_value(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                let last = (k == "prop_grps")
                    .then(|| child.as_array_mut()?.last_mut()?.as_array_mut()?.last_mut())
                    .flatten();
                match last.and_then(|p| p.get_mut("value")?.get_mut(0)) {
                    Some(Value::String(value)) => {
                        let kept = value.trim_end_matches([' ', '\t']).len();
                        value.truncate(kept);
                    }
                    _ => trim_last_sdp_value(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(trim_last_sdp_value),
        _ => {}
    }
}

/// A command as text gives it back: an audit of a list of one
/// termination id is written as that id and reads back without a list
/// (as OTP's parser).
fn canonical_request(c: &mut megaco::model::Command) {
    use megaco::model::Command;
    if let Command::AuditValue(r) | Command::AuditCapability(r) = c {
        if r.termination_id_list.as_ref().is_some_and(|l| l.len() == 1) {
            r.termination_id_list = None;
        }
    }
}

/// A command reply as text gives it back: an empty list of audit
/// results is not written (`Subtract = t1`, as OTP), so it reads back as
/// none; a termination id list of one id is written as that id, which
/// reads back as a single-termination audit result (as OTP's parser).
fn canonical_reply(c: &mut megaco::model::CommandReply) {
    use megaco::model::{AuditReply, AuditResult, CommandReply};
    match c {
        CommandReply::Add(r)
        | CommandReply::Move(r)
        | CommandReply::Modify(r)
        | CommandReply::Subtract(r) => {
            if let Some(list) = &mut r.termination_audit {
                canonical_audit_list(list);
            }
            if r.termination_audit.as_ref().is_some_and(Vec::is_empty) {
                r.termination_audit = None;
            }
        }
        CommandReply::AuditValue(a) | CommandReply::AuditCapability(a) => {
            match a {
                AuditReply::AuditResult(r) => canonical_audit_list(&mut r.termination_audit_result),
                AuditReply::AuditResultTermList(tl) => {
                    canonical_audit_list(&mut tl.termination_audit_result)
                }
                _ => {}
            }
            if let AuditReply::AuditResultTermList(tl) = a {
                if let [one] = tl.termination_id_list.as_slice() {
                    *a = AuditReply::AuditResult(AuditResult {
                        termination_id: one.clone(),
                        termination_audit_result: std::mem::take(&mut tl.termination_audit_result),
                    });
                }
            }
        }
        _ => {}
    }
}

/// A list of audit results as text gives it back: bare descriptor names
/// (`Media, Statistics`: the tokens of `EmptyDescriptors`, and an empty
/// Statistics descriptor, which text writes the same) are gathered into
/// one `EmptyDescriptors` after the other items, in the order written;
/// but a bare `Signals`, `EventBuffer` or `Events` is an empty
/// descriptor of that name in the text grammar (as in OTP's parser, which
/// reads none of them as an audit item here), so those tokens read back
/// as empty descriptors, where they were written.
fn canonical_audit_list(list: &mut Vec<megaco::model::AuditReturnParameter>) {
    use megaco::model::{AuditDescriptor, AuditReturnParameter as P};
    let mut tokens = Vec::new();
    let mut rest = Vec::new();
    for p in std::mem::take(list) {
        match p {
            P::EmptyDescriptors(AuditDescriptor {
                audit_token: Some(t),
                ..
            }) => {
                for token in t {
                    match token {
                        AuditToken::Signals => rest.push(P::Signals(Default::default())),
                        AuditToken::EventBuffer => rest.push(P::EventBuffer(Default::default())),
                        AuditToken::Events => rest.push(P::Events(Default::default())),
                        token => tokens.push(token),
                    }
                }
            }
            P::EmptyDescriptors(_) => {}
            P::Statistics(s) if s.is_empty() => tokens.push(AuditToken::Stats),
            other => rest.push(other),
        }
    }
    if !tokens.is_empty() {
        rest.push(P::EmptyDescriptors(AuditDescriptor {
            audit_token: Some(tokens),
            audit_property_token: None,
        }));
    }
    *list = rest;
}

/// An empty list of context properties or context ids reads back as
/// none, and an empty
/// context request as none; v1 text has no `EmergencyOff` (OTP's v1
/// encoder writes nothing for it either).
fn canonical_context(c: &mut Option<megaco::model::ContextRequest>, version: u8) {
    if let Some(cr) = c {
        if version < 2 && cr.emergency == Some(false) {
            cr.emergency = None;
        }
        if cr.context_prop.as_ref().is_some_and(Vec::is_empty) {
            cr.context_prop = None;
        }
        if cr.context_list.as_ref().is_some_and(Vec::is_empty) {
            cr.context_list = None;
        }
        if cr.is_empty() {
            *c = None;
        }
    }
}

/// Whether `back`, read from our text encoding of `msg`, is `msg` as far
/// as the text codec promises: names in text are case-insensitive and the
/// decoder reads domain, device, package, property and other names in
/// lower case (as OTP's scanner does), so the two must agree up to ASCII
/// case; empty context requests are dropped (`text_canonical`); and
/// `back` must itself be a fixed point of encode → decode.
pub fn text_equivalent(msg: &MegacoMessage, back: &MegacoMessage, style: megaco::text::Style) {
    if back == msg {
        return;
    }
    let msg = &text_canonical(msg);
    assert_eq!(
        format!("{back:?}").to_ascii_lowercase(),
        format!("{msg:?}").to_ascii_lowercase(),
        "text {style:?} round trip differs beyond the case of names"
    );
    let mut out = Vec::new();
    megaco::text::encode(back, style, &mut out).expect("a decoded message encodes");
    let again = megaco::text::decode(&out).expect("our own text decodes");
    assert_eq!(
        &again, back,
        "text {style:?}: decoded form is not a fixed point"
    );
}

/// Whether `back`, read from a binary encoding of a model whose canonical
/// form is `expected`, is that model: exactly, or up to the ASCII case of
/// the names the registry maps (package, item, parameter and digit map
/// names), which it matches case-insensitively and gives back in its own
/// spelling (`A` for the registered item `a` reads back as `a`), and of
/// the root termination id (one binary value, read back as `ROOT`). `again`
/// encodes and decodes once more: the decoded form must be a fixed point.
pub fn binary_equivalent(
    expected: &MegacoMessage,
    back: &MegacoMessage,
    what: &str,
    again: impl Fn(&MegacoMessage) -> MegacoMessage,
) {
    if back == expected {
        return;
    }
    fn lower_names(v: &mut Value) {
        const NAMES: [&str; 7] = [
            "name",
            "pkgd_name",
            "event_name",
            "signal_name",
            "stat_name",
            "package_name",
            "digit_map_name",
        ];
        match v {
            Value::Object(map) => {
                for (k, child) in map.iter_mut() {
                    match child {
                        Value::String(s) if NAMES.contains(&k.as_str()) => s.make_ascii_lowercase(),
                        _ => lower_names(child),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(lower_names),
            // the root termination is one binary value, read back as `ROOT`
            Value::String(s) if s.eq_ignore_ascii_case("root") => s.make_ascii_uppercase(),
            _ => {}
        }
    }
    let lowered = |m: &MegacoMessage| {
        let mut v = serde_json::to_value(m).expect("the model serialises");
        lower_names(&mut v);
        v
    };
    assert_eq!(
        lowered(back),
        lowered(expected),
        "{what} round trip differs beyond the case of names"
    );
    assert_eq!(
        &again(back),
        back,
        "{what}: decoded form is not a fixed point"
    );
}
