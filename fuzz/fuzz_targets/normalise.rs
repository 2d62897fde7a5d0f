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
