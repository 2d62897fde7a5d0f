//! BER configuration: native mapping, termination-id levels, registry
//! extension, dialect interplay and encode errors.

use std::path::PathBuf;
use std::sync::Arc;

use megaco::asn1::names::{ItemKind, NameRegistry};
use megaco::asn1::values::ValueType;
use megaco::ber::{self, BerConfig, Dialect, Mapping, TermIdLevels};
use megaco::model::*;
use megaco::EncodeError;

#[path = "support/model.rs"]
mod model;
use model::first_command;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

fn vector_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in [
        "vectors/ber",
        "otp-suite/v1",
        "otp-suite/v2",
        "otp-suite/v3",
    ] {
        for e in std::fs::read_dir(corpus().join(d)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "ber") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

fn text_model(name: &str) -> MegacoMessage {
    let t = std::fs::read(corpus().join(format!("vectors/pretty/{name}.txt"))).unwrap();
    megaco::text::decode(&t).unwrap()
}

/// Every termination id of the message, read from its JSON form (where
/// a termination id is a string under one of these keys).
fn all_term_ids(m: &MegacoMessage) -> Vec<String> {
    const KEYS: [&str; 7] = [
        "termination_ids",
        "termination_id",
        "termination_id_list",
        "termination_from",
        "termination_to",
        "term_list",
        "context_audit_result",
    ];
    fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    if KEYS.contains(&k.as_str()) {
                        strings(x, out);
                    } else {
                        walk(x, out);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&serde_json::to_value(m).unwrap(), &mut out);
    out
}

#[test]
fn native_mapping_is_lossless_and_unmapped() {
    let native = BerConfig {
        dialect: Dialect::Otp,
        mapping: Mapping::Native,
        ..BerConfig::default()
    };
    for p in vector_files() {
        let bytes = std::fs::read(&p).unwrap();
        let m = ber::decode(&bytes, &native).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(ber::encode(&m, &native).unwrap(), bytes, "{}", p.display());
        for id in all_term_ids(&m) {
            assert!(id.starts_with("0x"), "{}: {id}", p.display());
        }
    }
    // msg12: al/ri is 0x0009/0x0002, SDP "v" is 0xb001, `$` is 0x000000#57
    let bytes = std::fs::read(corpus().join("vectors/ber/msg12.ber")).unwrap();
    let m = ber::decode(&bytes, &native).unwrap();
    let json = serde_json::to_string(&m).unwrap();
    assert!(json.contains(r#""signal_name":"0x0009/0x0002""#), "{json}");
    assert!(json.contains(r#""name":"0xb001""#));
    assert!(json.contains(r#""0x000000#57""#));
    assert!(json.contains(r#""0xffff00""#));
}

#[test]
fn text_mapping_decodes_unknown_codes_reversibly() {
    let cfg = BerConfig::otp();
    // msg12 with al/ri's item code changed to an unknown 0x0099
    let mut bytes = std::fs::read(corpus().join("vectors/ber/msg12.ber")).unwrap();
    let at = bytes
        .windows(6)
        .position(|w| w == [0x80, 4, 0, 9, 0, 2])
        .unwrap();
    bytes[at + 5] = 0x99;
    let m = ber::decode(&bytes, &cfg).unwrap();
    let json = serde_json::to_string(&m).unwrap();
    assert!(json.contains(r#""signal_name":"al/0x0099""#), "{json}");
    assert_eq!(ber::encode(&m, &cfg).unwrap(), bytes);
}

#[test]
fn other_termination_id_levels() {
    // 4 + 4 + 16 bits: the same octets read as other levels
    let levels = TermIdLevels::new(&[4, 4, 16]).unwrap();
    let cfg = BerConfig {
        dialect: Dialect::Otp,
        mapping: Mapping::Text(levels),
        ..BerConfig::default()
    };
    let bytes = std::fs::read(corpus().join("vectors/ber/msg12.ber")).unwrap();
    let m = ber::decode(&bytes, &cfg).unwrap();
    let ids = all_term_ids(&m);
    assert!(
        ids.contains(&"1111/1111/1111111100000000".to_string()),
        "{ids:?}"
    );
    assert!(ids.contains(&"$".to_string()), "{ids:?}");
    assert_eq!(ber::encode(&m, &cfg).unwrap(), bytes);

    // ids that do not fit the levels are a typed encode error
    let mut m = text_model("msg12");
    if let MessageBody::Transactions(ts) = &mut m.mess.body {
        if let Transaction::Request(r) = &mut ts[0] {
            if let Command::Add(a) = &mut r.actions[0].command_requests[0].command {
                a.termination_ids[0] = TerminationId::new("line/1");
            }
        }
    }
    match ber::encode(&m, &BerConfig::default()) {
        Err(EncodeError::Invalid { what, detail }) => {
            assert_eq!(what, "termination id");
            assert!(detail.contains("line/1"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    // ... and a 5-level id for 3 levels
    let mut out = Vec::new();
    let mut m2 = text_model("msg12");
    if let MessageBody::Transactions(ts) = &mut m2.mess.body {
        if let Transaction::Request(r) = &mut ts[0] {
            if let Command::Add(a) = &mut r.actions[0].command_requests[0].command {
                a.termination_ids[0] = TerminationId::new("1/1/1/1/1");
            }
        }
    }
    assert!(ber::encode_into(&m2, &BerConfig::default(), &mut out).is_err());
    assert!(out.is_empty(), "nothing written on error");
}

#[test]
fn registry_extension_is_used_by_the_codec() {
    let mut reg = NameRegistry::standard().clone();
    reg.add_package("xyz", 0x8001);
    reg.add_item(
        0x8001,
        ItemKind::Property,
        "level",
        0x0001,
        Some(ValueType::Integer),
    );
    let cfg = BerConfig {
        registry: Arc::new(reg),
        ..BerConfig::default()
    };
    let mut m = text_model("msg12");
    // add xyz/level=7 to the first LocalControl
    if let MessageBody::Transactions(ts) = &mut m.mess.body {
        if let Transaction::Request(r) = &mut ts[0] {
            if let Command::Add(a) = &mut r.actions[0].command_requests[0].command {
                if let AmmDescriptor::Media(md) = &mut a.descriptors[0] {
                    if let Some(Streams::MultiStream(s)) = &mut md.streams {
                        let lc = s[0].stream_parms.local_control_descriptor.as_mut().unwrap();
                        lc.property_parms.push(PropertyParm::new("xyz/level", "7"));
                    }
                }
            }
        }
    }
    let bytes = ber::encode(&m, &cfg).unwrap();
    // name 80 01 00 01, value: OCTET STRING { INTEGER 7 }
    let want = [
        0x80, 4, 0x80, 0x01, 0x00, 0x01, 0xa1, 5, 0x04, 3, 0x02, 1, 7,
    ];
    assert!(bytes.windows(want.len()).any(|w| w == want));
    assert_eq!(ber::decode(&bytes, &cfg).unwrap(), m);
    // the standard registry does not know it
    match ber::encode(&m, &BerConfig::default()) {
        Err(EncodeError::Invalid { what: "name", .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn standard_decoder_reads_otp_raw_values() {
    // A standard-dialect decoder falls back to raw text for values that
    // are not a wrapped TLV, so it reads OTP's encoding too.
    let std_cfg = BerConfig::default();
    let otp_cfg = BerConfig::otp();
    for p in vector_files() {
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(
            ber::decode(&bytes, &std_cfg).unwrap(),
            ber::decode(&bytes, &otp_cfg).unwrap(),
            "{}",
            p.display()
        );
    }
}

#[test]
fn version_rules_are_enforced_on_encode() {
    // a v3 construct in a v1 message is refused, not silently written
    let mut m = text_model("msg05");
    assert_eq!(m.mess.version, 1);
    if let MessageBody::Transactions(ts) = &mut m.mess.body {
        if let Transaction::Reply(r) = &mut ts[0] {
            r.segment_number = Some(1);
        }
    }
    assert!(matches!(
        ber::encode(&m, &BerConfig::otp()),
        Err(EncodeError::Version { needs: 3, .. })
    ));
}

/// Regulated notify behaviours nest embedded events in embedded events:
/// the encoder refuses a model nested deeper than `max_depth` (no stack
/// overflow), and the decoder refuses such input.
#[test]
fn recursive_embedded_events_are_bounded() {
    fn nest(levels: usize) -> EventsDescriptor {
        let mut inner = EventsDescriptor {
            request_id: Some(1),
            event_list: vec![],
        };
        for _ in 0..levels {
            inner = EventsDescriptor {
                request_id: Some(1),
                event_list: vec![RequestedEvent {
                    pkgd_name: "al/on".into(),
                    stream_id: None,
                    event_action: Some(RequestedActions {
                        keep_active: None,
                        event_dm: None,
                        second_event: None,
                        signals_descriptor: None,
                        notify_behaviour: Some(NotifyBehaviour::NotifyRegulated(Box::new(
                            RegulatedEmbeddedDescriptor {
                                second_event: Some(inner),
                                signals_descriptor: None,
                            },
                        ))),
                        reset_events_descriptor: false,
                    }),
                    ev_par_list: vec![].into(),
                }],
            };
        }
        inner
    }
    fn message(levels: usize) -> MegacoMessage {
        let events = EventsDescriptor {
            request_id: Some(7),
            event_list: vec![RequestedEvent {
                pkgd_name: "al/of".into(),
                stream_id: None,
                event_action: Some(RequestedActions {
                    keep_active: None,
                    event_dm: None,
                    second_event: Some(nest(levels)),
                    signals_descriptor: None,
                    notify_behaviour: None,
                    reset_events_descriptor: false,
                }),
                ev_par_list: vec![].into(),
            }],
        };
        MegacoMessage {
            auth_header: None,
            mess: Message {
                version: 3,
                mid: Mid::Device("mg".into()),
                body: MessageBody::Transactions(
                    vec![Transaction::Request(TransactionRequest {
                        transaction_id: 1,
                        actions: vec![ActionRequest {
                            context_id: ContextId(1),
                            context_request: None,
                            context_attr_audit_req: None,
                            command_requests: vec![CommandRequest {
                                command: Command::Modify(AmmRequest {
                                    termination_ids: vec![TerminationId::new(
                                        "11111111/00000000/00000000",
                                    )]
                                    .into(),
                                    descriptors: vec![AmmDescriptor::Events(events)],
                                }),
                                optional: false,
                                wildcard_return: false,
                            }]
                            .into(),
                        }]
                        .into(),
                    })]
                    .into(),
                ),
            },
        }
    }
    let cfg = BerConfig::default();
    let ok = message(3);
    let bytes = ber::encode(&ok, &cfg).unwrap();
    assert_eq!(ber::decode(&bytes, &cfg).unwrap(), ok);

    let deep = message(200);
    assert!(matches!(
        ber::encode(&deep, &cfg),
        Err(EncodeError::Invalid {
            what: "embedded events",
            ..
        })
    ));
    // encoded with a higher limit, the decoder with the default one refuses it
    let loose = BerConfig {
        limits: megaco::Limits {
            max_depth: 10_000,
            ..megaco::Limits::DEFAULT
        },
        ..BerConfig::default()
    };
    let bytes = ber::encode(&deep, &loose).unwrap();
    assert_eq!(
        ber::decode(&bytes, &cfg).unwrap_err().exceeded_limit(),
        Some(megaco::codec::Limit::Depth)
    );
    assert_eq!(ber::decode(&bytes, &loose).unwrap(), deep);
}

/// An MTP address in OTP's dialect is the text itself as octets: the bytes
/// below are what Erlang/OTP 25 (megaco 4.4.2) writes for
/// `!/1 MTP{12AB} K{1}` (`megaco_compact_text_encoder:decode_message/2`,
/// then `megaco_ber_encoder:encode_message/2`). The standard dialect
/// writes the hex digits as the octets they stand for, and reads them
/// back as upper-case hex.
#[test]
fn mtp_address_in_each_dialect() {
    let otp_bytes: [u8; 26] = [
        48, 24, 161, 22, 128, 1, 1, 161, 6, 132, 4, 49, 50, 65, 66, 162, 9, 161, 7, 163, 5, 48, 3,
        128, 1, 1,
    ];
    let msg = megaco::text::decode(b"!/1 MTP{12AB} K{1}").unwrap();
    assert_eq!(ber::encode(&msg, &BerConfig::otp()).unwrap(), otp_bytes);
    assert_eq!(ber::decode(&otp_bytes, &BerConfig::otp()).unwrap(), msg);

    let lower = megaco::text::decode(b"!/1 MTP{12ab} K{1}").unwrap();
    let standard = ber::encode(&lower, &BerConfig::default()).unwrap();
    assert_eq!(&standard[9..13], &[0x84, 2, 0x12, 0xAB]);
    assert_eq!(ber::decode(&standard, &BerConfig::default()).unwrap(), msg);
    // OTP's dialect keeps the text as written
    let otp = ber::encode(&lower, &BerConfig::otp()).unwrap();
    assert_eq!(ber::decode(&otp, &BerConfig::otp()).unwrap(), lower);
    // and holds at most 4 characters
    let long = megaco::text::decode(b"!/1 MTP{12ABCD} K{1}").unwrap();
    assert!(ber::encode(&long, &BerConfig::default()).is_ok());
    assert!(matches!(
        ber::encode(&long, &BerConfig::otp()),
        Err(EncodeError::Invalid { .. })
    ));
}

/// Sizes the ASN.1 fixes and Erlang/OTP's decoder enforces are refused on
/// encode (PER and text refuse them too): a TimeNotation's date and time
/// are 8 characters, authentication data 12 to 32 octets. Found by running
/// OTP's BER decoder over the edge-value sweep's encodings.
#[test]
fn asn1_sizes_are_refused_on_encode() {
    let text =
        "!/1 [10.0.0.1]\nT=1{C=1{N=11111111/00000000/00000000{OE=1{19990729T22000000:al/on}}}}";
    let mut m = megaco::text::decode(text.as_bytes()).unwrap();
    let cfg = BerConfig::otp();
    assert!(ber::encode(&m, &cfg).is_ok());
    let MessageBody::Transactions(ts) = &mut m.mess.body else {
        unreachable!()
    };
    let Transaction::Request(r) = &mut ts[0] else {
        unreachable!()
    };
    let Command::Notify(n) = &mut r.actions[0].command_requests[0].command else {
        unreachable!()
    };
    let time = n.observed_events_descriptor.observed_event_lst[0]
        .time_notation
        .as_mut()
        .unwrap();
    time.date = "1999072".into();
    assert!(matches!(
        ber::encode(&m, &cfg),
        Err(EncodeError::Invalid {
            what: "TimeNotation",
            ..
        })
    ));

    let mut m = megaco::text::decode(text.as_bytes()).unwrap();
    m.auth_header = Some(AuthenticationHeader {
        sec_parm_index: 1,
        seq_num: 2,
        ad: vec![0; 12],
    });
    assert!(ber::encode(&m, &cfg).is_ok());
    m.auth_header.as_mut().unwrap().ad = vec![0; 11];
    assert!(matches!(
        ber::encode(&m, &cfg),
        Err(EncodeError::Invalid {
            what: "authentication data",
            ..
        })
    ));
}

/// Both binary encoders refuse `m` with an `Invalid` error about `what`.
fn binary_encoders_refuse(m: &MegacoMessage, what: &str) {
    let (ber_cfg, per_cfg) = (BerConfig::otp(), megaco::per::PerConfig::default());
    for r in [ber::encode(m, &ber_cfg), megaco::per::encode(m, &per_cfg)] {
        assert!(
            matches!(&r, Err(EncodeError::Invalid { what: w, .. }) if *w == what),
            "{what}: {r:?}"
        );
    }
}

/// `text` decodes, and both binary encoders take it.
fn encodable(text: &str) -> MegacoMessage {
    let m = megaco::text::decode(text.as_bytes()).unwrap();
    assert!(ber::encode(&m, &BerConfig::otp()).is_ok());
    assert!(megaco::per::encode(&m, &Default::default()).is_ok());
    m
}

/// What H.248.1 and the text grammar forbid and the ASN.1 lets through,
/// which OTP's binary codecs can neither write nor read: both binary
/// encoders refuse it, as the text encoder does.
#[test]
fn binary_encoders_keep_the_text_rules() {
    let mut m = encodable("!/1 [10.0.0.1]\nP=1{C=1{N=11111111/00000000/00000000}}");
    let MessageBody::Transactions(ts) = &mut m.mess.body else {
        unreachable!()
    };
    let Transaction::Reply(r) = &mut ts[0] else {
        unreachable!()
    };
    r.result = TransactionResult::ActionReplies(Default::default());
    binary_encoders_refuse(&m, "transaction reply");

    // A bare `*` names no item (`pkg/*` and `*/*` do).
    let mut m = encodable("!/1 [10.0.0.1]\nT=1{C=1{N=11111111/00000000/00000000{OE=1{al/*,*/*}}}}");
    let Command::Notify(n) = first_command(&mut m) else {
        unreachable!()
    };
    n.observed_events_descriptor.observed_event_lst[1].event_name = "*".into();
    for refused in [
        ber::encode(&m, &BerConfig::otp()),
        ber::encode(&m, &BerConfig::default()),
        megaco::per::encode(&m, &Default::default()),
    ] {
        assert!(
            matches!(&refused, Err(EncodeError::Invalid { detail, .. })
                if detail.contains("wildcard needs a package")),
            "{refused:?}"
        );
    }

    let base = encodable("!/2 [10.0.0.1]\nT=1{C=-{SC=ROOT{SV{MT=RS,RE=\"901\",PF=ResGW/1}}}}");
    type Edit<'a> = (&'a dyn Fn(&mut ServiceChangeParm), &'a str);
    let edits: [Edit; 5] = [
        (
            &|p| p.service_change_profile.as_mut().unwrap().profile_name = "".into(),
            "ServiceChangeProfile",
        ),
        (
            &|p| p.service_change_profile.as_mut().unwrap().profile_name = "a/b".into(),
            "ServiceChangeProfile",
        ),
        (
            &|p| p.service_change_profile.as_mut().unwrap().version = 100,
            "ServiceChangeProfile",
        ),
        (
            &|p| p.service_change_reason = Default::default(),
            "serviceChangeReason",
        ),
        (
            &|p| p.service_change_reason.push("902".into()),
            "serviceChangeReason",
        ),
    ];
    for (edit, what) in edits {
        let mut m = base.clone();
        let Command::ServiceChange(sc) = first_command(&mut m) else {
            unreachable!()
        };
        edit(&mut sc.service_change_parms);
        binary_encoders_refuse(&m, what);
    }

    // OTP's version 1 module (as IG 6.82 had it) wants the request id of
    // an Events descriptor, which RFC 3525 and later versions make
    // optional.
    let mut m = encodable("!/2 [10.0.0.1]\nT=1{C=1{MF=11111111/00000000/00000000{E=5{al/on}}}}");
    let Command::Modify(c) = first_command(&mut m) else {
        unreachable!()
    };
    let AmmDescriptor::Events(e) = &mut c.descriptors[0] else {
        unreachable!()
    };
    e.request_id = None;
    assert!(ber::encode(&m, &BerConfig::otp()).is_ok());
    assert!(megaco::per::encode(&m, &Default::default()).is_ok());
    m.mess.version = 1;
    assert!(ber::encode(&m, &BerConfig::default()).is_ok());
    binary_encoders_refuse(&m, "EventsDescriptor.requestID");
}
