//! The model's serde forms: in JSON, mids, termination ids and context ids
//! are their text forms and enum variants are snake_case; every corpus
//! message survives the trip through JSON unchanged.

use std::path::Path;

use megaco::model::*;
use serde_json::json;

#[test]
fn json_uses_text_forms_and_snake_case() {
    let msg = megaco::text::decode(
        b"!/2 [10.0.0.1]:2944 T=9{C=${A=11111111/00000000/00000001{M{O{MO=SR}}}},C=-{N=ROOT{OE=1{al/of}}}}",
    )
    .unwrap();
    let v = serde_json::to_value(&msg).unwrap();
    assert_eq!(v["mess"]["mid"], "[10.0.0.1]:2944");
    let request = &v["mess"]["body"]["transactions"][0]["request"];
    assert_eq!(request["transaction_id"], 9);
    assert_eq!(request["actions"][0]["context_id"], "$");
    assert_eq!(request["actions"][1]["context_id"], "-");
    let add = &request["actions"][0]["command_requests"][0]["command"]["add"];
    assert_eq!(
        add["termination_ids"],
        json!(["11111111/00000000/00000001"])
    );
    let mode = &add["descriptors"][0]["media"]["streams"]["one_stream"]["local_control_descriptor"]
        ["stream_mode"];
    assert_eq!(mode, "send_recv");
    let back: MegacoMessage = serde_json::from_value(v).unwrap();
    assert_eq!(back, msg);
}

#[test]
fn context_ids_read_as_numbers_or_text() {
    for (j, c) in [
        (json!(5), ContextId(5)),
        (json!("5"), ContextId(5)),
        (json!("*"), ContextId::ALL),
        (json!("$"), ContextId::CHOOSE),
        (json!("-"), ContextId::NULL),
    ] {
        assert_eq!(serde_json::from_value::<ContextId>(j).unwrap(), c);
    }
    assert_eq!(serde_json::to_value(ContextId(7)).unwrap(), json!(7));
    assert!(serde_json::from_value::<ContextId>(json!("x")).is_err());
    assert!(serde_json::from_value::<ContextId>(json!(-1)).is_err());
}

/// A mid without a text form that reads back as itself keeps its
/// structure, so no model value is lost in JSON.
#[test]
fn mids_without_a_text_form_keep_their_structure() {
    for mid in [
        Mid::Device("not a name".into()),
        Mid::Mtp("zz".into()),
        Mid::Domain(DomainName {
            name: "".into(),
            port: None,
        }),
    ] {
        let v = serde_json::to_value(&mid).unwrap();
        assert!(v.is_object(), "{v}");
        assert_eq!(serde_json::from_value::<Mid>(v).unwrap(), mid);
    }
    let mid: Mid = "<mg.example>:2944".parse().unwrap();
    assert_eq!(
        serde_json::to_value(&mid).unwrap(),
        json!("<mg.example>:2944")
    );
}

#[test]
fn every_corpus_message_survives_json() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vectors/pretty");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let msg = megaco::text::decode(&std::fs::read(&path).unwrap()).unwrap();
        let text = serde_json::to_string(&msg).unwrap();
        let back: MegacoMessage = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()));
        assert_eq!(back, msg, "{}", path.display());
        n += 1;
    }
    assert_eq!(n, 149);
}
