//! The canonical form the binary codecs give back: audit tokens and
//! notify-completion reasons travel as ASN.1 BIT STRINGs, so they decode
//! in bit order, each once. Shared by the `roundtrip` fuzz target and the
//! regression replay test (crates/megaco/tests/fuzz_regressions.rs).
use megaco::model::{AuditToken, MegacoMessage, NotifyCompletion};
use serde_json::Value;

/// `msg` with every audit token and notify-completion list in bit order
/// without duplicates.
pub fn bit_strings(msg: &MegacoMessage) -> MegacoMessage {
    let mut v = serde_json::to_value(msg).expect("the model serialises");
    walk(&mut v);
    serde_json::from_value(v).expect("the model deserialises")
}

fn walk(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                match k.as_str() {
                    "audit_token" => sort::<AuditToken>(child),
                    "notify_completion" => sort::<NotifyCompletion>(child),
                    _ => walk(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(walk),
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

/// `msg` as text gives it back: an action's context request or context
/// audit with nothing set has no text form (its items are elements of the
/// action's list), so it reads back as `None`.
fn text_canonical(msg: &MegacoMessage) -> MegacoMessage {
    fn empty(v: &Value) -> bool {
        match v {
            Value::Object(map) => map.values().all(|f| {
                f.is_null() || *f == Value::Bool(false) || f.as_array().is_some_and(Vec::is_empty)
            }),
            _ => false,
        }
    }
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (k, child) in map.iter_mut() {
                    if (k == "context_request" || k == "context_attr_audit_req") && empty(child) {
                        *child = Value::Null;
                    } else {
                        strip(child);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(msg).expect("the model serialises");
    strip(&mut v);
    serde_json::from_value(v).expect("the model deserialises")
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
