//! Text encoder tests.
//!
//! The byte targets are Erlang/OTP 25 (megaco 4.4.2) output: the pretty and
//! compact vectors in `corpus/vectors/` (the 149 corpus messages) and
//! `corpus/otp-suite/v{1,2,3}/` (shapes from OTP's codec test suites). Each
//! vector is decoded with our decoder and re-encoded in both forms; the
//! result must equal OTP's bytes.
//!
//! # Deviations
//!
//! None for the vectors: all 315 pairs (630 encodings) are reproduced from
//! our decoder's model as is, with no adjustment.
//!
//! An audited property with a value is one `IndAudPropertyParm` in the model,
//! as OTP reads it, and written as OTP writes it, as two items
//! (`tdmc/gain, tdmc/gain=2`, vectors `msg76a02`); pinned by
//! `audited_property_with_value_is_one_item_written_as_a_pair`.
//!
//! Deviations of the encoder itself from OTP (documented on
//! `megaco::text::encode`) concern constructs no vector holds: a v3 topology
//! stream and an audited signal's stream (OTP writes a bare number that its
//! own parser rejects, we write `Stream = n`) and ServiceChange audit items
//! (OTP fails). They are pinned by the unit tests at the end of this file.
//! The other byte targets of those unit tests were checked against OTP
//! 4.4.2 (decode the compact text with `megaco_compact_text_encoder`, encode
//! with both encoders).

use megaco::model::*;
use megaco::text::{decode, encode, encode_compact, encode_pretty, Style};
use megaco::EncodeError;
use std::path::{Path, PathBuf};

#[path = "support/model.rs"]
mod model;
use model::first_command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(suffix)))
        .collect();
    v.sort();
    v
}

/// One OTP vector pair: label (`vectors/msg01a`, `otp-suite/v3/msg71a`),
/// pretty bytes, compact bytes.
struct Vector {
    label: String,
    pretty: Vec<u8>,
    compact: Vec<u8>,
}

fn vectors() -> Vec<Vector> {
    let mut out = Vec::new();
    for p in files(&corpus().join("vectors/pretty"), ".txt") {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let c = corpus()
            .join("vectors/compact")
            .join(p.file_name().unwrap());
        out.push(Vector {
            label: format!("vectors/{name}"),
            pretty: std::fs::read(&p).unwrap(),
            compact: std::fs::read(&c).unwrap(),
        });
    }
    for v in ["v1", "v2", "v3"] {
        for p in files(&corpus().join("otp-suite").join(v), ".pretty.txt") {
            let s = p.to_str().unwrap();
            let name = p
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".pretty.txt", "");
            out.push(Vector {
                label: format!("otp-suite/{v}/{name}"),
                pretty: std::fs::read(&p).unwrap(),
                compact: std::fs::read(s.replace(".pretty.txt", ".compact.txt")).unwrap(),
            });
        }
    }
    out
}

fn decoded(v: &Vector) -> MegacoMessage {
    decode(&v.pretty).unwrap_or_else(|e| panic!("{}: {e}", v.label))
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn every_vector_reencodes_byte_identically() {
    let all = vectors();
    assert_eq!(all.len(), 149 + 166, "vector count");
    let mut matched = 0;
    let mut failures = Vec::new();
    for v in &all {
        let m = decoded(v);
        match encode_pretty(&m) {
            Ok(out) if out == v.pretty => matched += 1,
            Ok(out) => failures.push(format!(
                "{} pretty:\n--- ours\n{}\n--- OTP\n{}",
                v.label,
                show(&out),
                show(&v.pretty)
            )),
            Err(e) => failures.push(format!("{} pretty: {e}", v.label)),
        }
        match encode_compact(&m) {
            Ok(out) if out == v.compact => matched += 1,
            Ok(out) => failures.push(format!(
                "{} compact:\n--- ours\n{}\n--- OTP\n{}",
                v.label,
                show(&out),
                show(&v.compact)
            )),
            Err(e) => failures.push(format!("{} compact: {e}", v.label)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(matched, 2 * (149 + 166));
}

#[test]
fn audited_property_with_value_is_one_item_written_as_a_pair() {
    // A lone valued item is written in OTP's two-item form, which reads
    // back as the one item.
    let lone = "!/3 [124.124.124.222]:55555\nT=1{C=1{AV=a{AT{M{O{a/b=4}}}}}}";
    let m = decode(lone.as_bytes()).unwrap();
    let pair = "!/3 [124.124.124.222]:55555\nT=1{C=1{AV=a{AT{M{O{a/b,a/b=4}}}}}}";
    assert_eq!(show(&encode_compact(&m).unwrap()), pair);
    assert_eq!(decode(pair.as_bytes()).unwrap(), m);
    // A bare item before a valued one stays its own item.
    let three = "!/3 [124.124.124.222]:55555\nT=1{C=1{AV=a{AT{M{O{a/c,a/b,a/b=4}}}}}}";
    let m3 = decode(three.as_bytes()).unwrap();
    assert_eq!(show(&encode_compact(&m3).unwrap()), three);
    assert_ne!(m3, m);
}

#[test]
fn our_encodings_decode_back_to_the_same_model() {
    for v in vectors() {
        let m = decoded(&v);
        for style in [Style::Pretty, Style::Compact] {
            let mut out = Vec::new();
            encode(&m, style, &mut out).unwrap();
            let back = decode(&out).unwrap_or_else(|e| panic!("{} {style:?}: {e}", v.label));
            assert_eq!(back, m, "{} {style:?}", v.label);
        }
    }
}

#[test]
fn encode_appends_to_the_buffer() {
    let v = vectors().into_iter().next().unwrap();
    let m = decoded(&v);
    let mut out = b"prefix".to_vec();
    encode(&m, Style::Compact, &mut out).unwrap();
    assert_eq!(&out[..6], b"prefix");
    assert_eq!(&out[6..], &v.compact[..]);
}

// ---- hand-built messages ------------------------------------------------

fn message(version: u8, body: MessageBody) -> MegacoMessage {
    MegacoMessage {
        auth_header: None,
        mess: Message {
            version,
            mid: Mid::Ip4(Ip4Address {
                address: [124, 124, 124, 222],
                port: Some(55555),
            }),
            body,
        },
    }
}

fn request(version: u8, actions: Vec<ActionRequest>) -> MegacoMessage {
    message(
        version,
        MessageBody::Transactions(
            vec![Transaction::Request(TransactionRequest {
                transaction_id: 9898,
                actions: actions.into(),
            })]
            .into(),
        ),
    )
}

fn tid(s: &str) -> TerminationId {
    TerminationId::new(s)
}

fn notify(t: &str) -> CommandRequest {
    CommandRequest {
        command: Command::Notify(NotifyRequest {
            termination_ids: vec![tid(t)].into(),
            observed_events_descriptor: ObservedEventsDescriptor {
                request_id: 2222,
                observed_event_lst: vec![ObservedEvent {
                    event_name: "al/of".into(),
                    stream_id: None,
                    event_par_list: vec![],
                    time_notation: None,
                }]
                .into(),
            },
            error_descriptor: None,
        }),
        optional: false,
        wildcard_return: false,
    }
}

fn topology_action(stream_id: Option<u16>) -> ActionRequest {
    ActionRequest {
        context_id: ContextId(1),
        context_request: Some(ContextRequest {
            priority: None,
            emergency: None,
            topology_req: Some(vec![TopologyRequest {
                termination_from: tid("a"),
                termination_to: tid("b"),
                topology_direction: TopologyDirection::Isolate,
                stream_id,
                topology_direction_extension: None,
            }]),
            iepscallind: None,
            context_prop: None,
            context_list: None,
        }),
        context_attr_audit_req: None,
        command_requests: vec![notify("a")].into(),
    }
}

#[test]
fn v1_message_with_v3_construct_is_a_version_error() {
    // A segmented reply.
    let reply = |version| {
        message(
            version,
            MessageBody::Transactions(
                vec![Transaction::Reply(TransactionReply {
                    transaction_id: 1,
                    imm_ack_required: false,
                    result: TransactionResult::ActionReplies(
                        vec![ActionReply {
                            context_id: ContextId(1),
                            error_descriptor: None,
                            context_reply: None,
                            command_reply: vec![].into(),
                        }]
                        .into(),
                    ),
                    segment_number: Some(2),
                    segmentation_complete: true,
                })]
                .into(),
            ),
        )
    };
    for style in [Style::Pretty, Style::Compact] {
        let mut out = b"kept".to_vec();
        let err = encode(&reply(1), style, &mut out).unwrap_err();
        assert!(
            matches!(
                err,
                EncodeError::Version {
                    version: 1,
                    needs: 3,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(out, b"kept");
    }
    // The same reply in v3 (bytes as OTP 4.4.2 writes them).
    assert_eq!(
        encode_compact(&reply(3)).unwrap(),
        b"!/3 [124.124.124.222]:55555\nP=1/2/&{C=1}"
    );
    assert_eq!(
        encode_pretty(&reply(3)).unwrap(),
        b"MEGACO/3 [124.124.124.222]:55555\nReply = 1/2/END {\n\tContext = 1\n}"
    );
    // A topology stream in v1.
    let err = encode_pretty(&request(1, vec![topology_action(Some(5))])).unwrap_err();
    assert!(
        matches!(
            err,
            EncodeError::Version {
                version: 1,
                needs: 2,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn topology_stream_is_written_as_event_stream() {
    // v2: as OTP writes it.
    assert_eq!(
        show(&encode_compact(&request(2, vec![topology_action(Some(5))])).unwrap()),
        "!/2 [124.124.124.222]:55555\nT=9898{C=1{TP{a,b,IS,ST=5},N=a{OE=2222{al/of}}}}"
    );
    assert_eq!(
        show(&encode_pretty(&request(2, vec![topology_action(Some(5))])).unwrap()),
        "MEGACO/2 [124.124.124.222]:55555\nTransaction = 9898 {\n\tContext = 1 {\n\t\t\
         Topology {\n\t\t\ta,\n\t\t\t\tb,\n\t\t\t\tIsolate,\n\t\t\t\tStream = 5\n\t\t},\n\t\t\
         Notify = a {\n\t\t\tObservedEvents = 2222 {\n\t\t\t\tal/of\n\t\t\t}\n\t\t}\n\t}\n}"
    );
    // v3: OTP writes a bare `5` here, which its own parser rejects; we
    // write the eventStream form of the ABNF.
    assert_eq!(
        show(&encode_compact(&request(3, vec![topology_action(Some(5))])).unwrap()),
        "!/3 [124.124.124.222]:55555\nT=9898{C=1{TP{a,b,IS,ST=5},N=a{OE=2222{al/of}}}}"
    );
}

#[test]
fn unwritable_values_are_invalid() {
    let invalid = |m: &MegacoMessage| {
        for style in [Style::Pretty, Style::Compact] {
            let mut out = b"kept".to_vec();
            let err = encode(m, style, &mut out).unwrap_err();
            assert!(matches!(err, EncodeError::Invalid { .. }), "{err:?}");
            assert_eq!(out, b"kept");
        }
    };
    // No termination id.
    let mut c = notify("a");
    if let Command::Notify(n) = &mut c.command {
        n.termination_ids.clear();
    }
    let action = |c| ActionRequest {
        context_id: ContextId(1),
        context_request: None,
        context_attr_audit_req: None,
        command_requests: vec![c].into(),
    };
    invalid(&request(3, vec![action(c)]));
    // Several termination ids in one v1 command.
    let mut c = notify("a");
    if let Command::Notify(n) = &mut c.command {
        n.termination_ids.push(tid("b"));
    }
    invalid(&request(1, vec![action(c.clone())]));
    assert!(encode_pretty(&request(3, vec![action(c)])).is_ok());
    // A transaction without actions, a message without transactions.
    invalid(&request(3, vec![]));
    invalid(&message(3, MessageBody::Transactions(vec![].into())));
    // A quote inside an error text, a line break in a value.
    let err = |text: &str| {
        message(
            2,
            MessageBody::Error(ErrorDescriptor {
                error_code: 400,
                error_text: Some(text.into()),
            }),
        )
    };
    invalid(&err("say \"hi\""));
    // Quotes of its own would be lost: `"hi"` reads back as `hi`.
    invalid(&err("\"hi\""));
    assert_eq!(
        encode_compact(&err("Syntax error")).unwrap(),
        b"!/2 [124.124.124.222]:55555\nER=400{\"Syntax error\"}"
    );
    // An empty text is `""`, which the decoder reads back.
    let empty = encode_compact(&err("")).unwrap();
    assert_eq!(empty, b"!/2 [124.124.124.222]:55555\nER=400{\"\"}");
    assert_eq!(megaco::text::decode(&empty).unwrap(), err(""));
    let mut c = notify("a");
    if let Command::Notify(n) = &mut c.command {
        n.observed_events_descriptor.observed_event_lst[0]
            .event_par_list
            .push(PropertyParm::new("x", "a\nb"));
    }
    invalid(&request(3, vec![action(c)]));
    // A value in quotes of its own (from BER, say): written as is, `"q"`
    // would read back as `q`.
    for v in ["\"q\"", "\"\""] {
        let mut c = notify("a");
        if let Command::Notify(n) = &mut c.command {
            n.observed_events_descriptor.observed_event_lst[0]
                .event_par_list
                .push(PropertyParm::new("x", v));
        }
        invalid(&request(3, vec![action(c)]));
    }
    // An error code above 999.
    let mut m = err("x");
    if let MessageBody::Error(e) = &mut m.mess.body {
        e.error_code = 1000;
    }
    invalid(&m);
}

#[test]
fn values_are_quoted_only_when_needed() {
    let with_value = |v: &str| {
        let mut c = notify("a");
        if let Command::Notify(n) = &mut c.command {
            n.observed_events_descriptor.observed_event_lst[0]
                .event_par_list
                .push(PropertyParm::new("x", v));
        }
        let m = request(
            1,
            vec![ActionRequest {
                context_id: ContextId::NULL,
                context_request: None,
                context_attr_audit_req: None,
                command_requests: vec![c].into(),
            }],
        );
        let out = show(&encode_compact(&m).unwrap());
        out[out.find("al/of").unwrap()..].to_string()
    };
    assert_eq!(with_value("abc"), "al/of{x=abc}}}}}");
    assert_eq!(with_value("a b"), "al/of{x=\"a b\"}}}}}");
    assert_eq!(with_value(""), "al/of{x=\"\"}}}}}");
    assert_eq!(with_value("a=b"), "al/of{x=\"a=b\"}}}}}");
}

#[test]
fn addresses() {
    let with_mid = |mid: Mid| {
        let mut m = message(
            1,
            MessageBody::Transactions(
                vec![Transaction::Pending(TransactionPending {
                    transaction_id: 1,
                })]
                .into(),
            ),
        );
        m.mess.mid = mid;
        let out = show(&encode_compact(&m).unwrap());
        out[4..out.find('\n').unwrap()].to_string()
    };
    let ip6 = |g: [u16; 8], port| {
        let mut address = [0u8; 16];
        for (i, x) in g.iter().enumerate() {
            address[2 * i..2 * i + 2].copy_from_slice(&x.to_be_bytes());
        }
        with_mid(Mid::Ip6(Ip6Address { address, port }))
    };
    // Bytes as OTP 4.4.2 writes these addresses.
    assert_eq!(ip6([0, 0, 0, 0, 0, 0, 0, 1], Some(2944)), "[::1]:2944");
    assert_eq!(
        ip6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1], None),
        "[2001:DB8::1]"
    );
    assert_eq!(
        ip6([0xfe80, 0, 0, 0, 0x1, 0x2, 0x3, 0x4], None),
        "[FE80::1:2:3:4]"
    );
    assert_eq!(
        ip6([0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8], None),
        "[1:2:3:4:5:6:7:8]"
    );
    assert_eq!(ip6([0; 8], None), "[::]");
    assert_eq!(
        with_mid(Mid::Domain(DomainName {
            name: "mgc.example.net".into(),
            port: Some(2944)
        })),
        "<mgc.example.net>:2944"
    );
    assert_eq!(with_mid(Mid::Device("mg/one".into())), "mg/one");
}

#[test]
fn authentication_header() {
    // As OTP 4.4.2 writes it.
    let text =
        b"AU=0x01020304:0x0000000A:0x0102030405060708090A0B0C\n!/1 [124.124.124.222]:55555\nPN=1{}";
    let m = decode(text).unwrap();
    assert_eq!(encode_compact(&m).unwrap(), text);
    assert_eq!(
        show(&encode_pretty(&m).unwrap()),
        "Authentication = 0x01020304:0x0000000A:0x0102030405060708090A0B0C\n\
         MEGACO/1 [124.124.124.222]:55555\nPending = 1 {\n\t\n}"
    );
}

/// Decodes compact `text`, checks that both encodings read back to the
/// same model, and returns the compact encoding.
fn reencode(text: &str) -> String {
    let m = decode(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"));
    for style in [Style::Pretty, Style::Compact] {
        let mut out = Vec::new();
        encode(&m, style, &mut out).unwrap();
        assert_eq!(decode(&out).unwrap(), m, "{}", show(&out));
    }
    show(&encode_compact(&m).unwrap())
}

#[test]
fn shapes_checked_against_otp() {
    // Each of these is OTP 4.4.2's compact encoding of its own decoding of
    // the same text.
    for text in [
        "!/1 [124.124.124.222]:55555\nT=1{C=1{A=a{MX=H221{b,c}}}}",
        "!/1 [124.124.124.222]:55555\nT=1{C=1{MF=a{EB{al/of{ST=2},al/on,dd/ce{ds=\"12\",meth=um}}}}}",
        "!/1 [124.124.124.222]:55555\nT=1{C=1{MF=a{SG{cg/rt{ST=1,SY=TO,DR=100,NC={TO,IBE,IBS,OR},KA,x=1},SL=5{al/ri,cg/dt{SY=BR}}}}}}",
        "!/2 [124.124.124.222]:55555\nT=1{C=1{MF=a{DM={T:1,S:2,L:3,Z:4,(1|2)}}}}",
        "!/2 [124.124.124.222]:55555\nT=1{C=1{EGO,N=a{OE=1{al/of}}}}",
        "!/3 [124.124.124.222]:55555\nT=1{C=1{EGO,IEPS=ON,CT{a/b=1,a/c=2},N=a{OE=1{al/of}}}}",
        "!/3 [124.124.124.222]:55555\nT=1{C=1{CA{PR=4,EGV=EG,IEPS=OFF,ORLgc}}}",
        "!/3 [124.124.124.222]:55555\nP=1{C=1{PR=3,EG,IEPS=ON,CT{CLT={1,2,3}}},C=2{PR=1,AV=a},C=3{CT{CLT={4}}}}",
        "!/3 [124.124.124.222]:55555\nT=1{C=1{MF=a{SG{cg/rt{SPADI=EX,SPARQ=5,SPAIS=20},cg/dt{SPADI=IT}}}}}",
        "!/3 [124.124.124.222]:55555\nT=1{C=1{AV=[a,b,c]{AT{M}},AC=[d,e]{AT{}}}}",
        "!/3 [124.124.124.222]:55555\nT=1{C=-{SC=root{SV{MT=RS,RE=\"901\",SIC}}}}",
        "!/3 [124.124.124.222]:55555\nSM=5/6/&",
        "!/2 [124.124.124.222]:55555\nP=1{C=-{SC=root{SV{AD=55,V=2,PF=abc/1}}}}",
    ] {
        assert_eq!(reencode(text), text);
    }
    // OTP writes the context properties in ASN.1 order.
    assert_eq!(
        reencode(
            "!/3 [124.124.124.222]:55555\nT=1{C=1{IEPS=ON,CT{a/b=1,a/c=2},EGO,N=a{OE=1{al/of}}}}"
        ),
        "!/3 [124.124.124.222]:55555\nT=1{C=1{EGO,IEPS=ON,CT{a/b=1,a/c=2},N=a{OE=1{al/of}}}}"
    );
    // Pretty forms where the v1/v2 and v3 generators differ.
    let pretty = |text: &str| show(&encode_pretty(&decode(text.as_bytes()).unwrap()).unwrap());
    assert_eq!(
        pretty("!/1 [124.124.124.222]:55555\nT=1{C=1{MF=a{M{TS{a/e=[1:9],a/f=[1,2],a/g={4,5}}}}}}"),
        "MEGACO/1 [124.124.124.222]:55555\nTransaction = 1 {\n\tContext = 1 {\n\t\t\
         Modify = a {\n\t\t\tMedia {\n\t\t\t\tTerminationState {\n\t\t\t\t\t\
         a/e=[1:9],\n\t\t\t\t\ta/f=[1,\n\t\t\t\t\t2],\n\t\t\t\t\ta/g= { 4,\n\t\t\t\t\t5 } \n\t\t\t\t}\n\t\t\t}\n\t\t}\n\t}\n}"
    );
    assert_eq!(
        pretty("!/3 [124.124.124.222]:55555\nT=1{C=1{MF=a{M{TS{a/e=[1:9],a/f=[1,2],a/g={4,5}}}}}}"),
        "MEGACO/3 [124.124.124.222]:55555\nTransaction = 1 {\n\tContext = 1 {\n\t\t\
         Modify = a {\n\t\t\tMedia {\n\t\t\t\tTerminationState {\n\t\t\t\t\t\
         a/e =  [ 1:9 ] ,\n\t\t\t\t\ta/f =  [\n\t\t\t\t\t\t1,\n\t\t\t\t\t\t2\n\t\t\t\t\t],\n\t\t\t\t\t\
         a/g =  {\n\t\t\t\t\t\t4,\n\t\t\t\t\t\t5\n\t\t\t\t\t}\n\t\t\t\t}\n\t\t\t}\n\t\t}\n\t}\n}"
    );
}

#[test]
fn service_change_audit_items_are_written_bare() {
    // OTP 4.4.2 fails on these; the ABNF writes them as bare audit items.
    assert_eq!(
        reencode("!/2 [124.124.124.222]:55555\nT=1{C=-{SC=root{SV{MT=RS,RE=\"901\",M,E}}}}"),
        "!/2 [124.124.124.222]:55555\nT=1{C=-{SC=root{SV{MT=RS,RE=\"901\",M,E}}}}"
    );
    // The v3 incomplete flag comes before them: OTP 4.4.2 reads audit items
    // only at the end (`text_grammar.rs` checks both orders against it).
    assert_eq!(
        reencode(
            "!/3 [124.124.124.222]:55555\nT=1{C=-{SC=root{SV{MT=RS,RE=\"901\",M{O{MO}},SIC}}}}"
        ),
        "!/3 [124.124.124.222]:55555\nT=1{C=-{SC=root{SV{MT=RS,RE=\"901\",SIC,M{O{MO}}}}}}"
    );
}

#[test]
fn audited_signal_stream_is_written_as_event_stream() {
    // OTP 4.4.2 writes `cg/rt{1,SPARQ=2}`, which its own parser rejects.
    assert_eq!(
        reencode("!/3 [124.124.124.222]:55555\nT=1{C=1{AV=a{AT{SG{cg/rt{ST=1,SPARQ=2}}}}}}"),
        "!/3 [124.124.124.222]:55555\nT=1{C=1{AV=a{AT{SG{cg/rt{ST=1,SPARQ=2}}}}}}"
    );
}

#[test]
fn deeply_nested_regulated_notifications_are_refused() {
    fn nested(depth: usize) -> NotifyBehaviour {
        let mut nb = NotifyBehaviour::NotifyImmediate;
        for _ in 0..depth {
            nb = NotifyBehaviour::NotifyRegulated(Box::new(RegulatedEmbeddedDescriptor {
                second_event: Some(EventsDescriptor {
                    request_id: Some(2),
                    event_list: vec![RequestedEvent {
                        pkgd_name: "al/on".into(),
                        stream_id: None,
                        event_action: Some(RequestedActions {
                            keep_active: None,
                            event_dm: None,
                            signals_descriptor: None,
                            notify_behaviour: Some(nb),
                            ..Default::default()
                        }),
                        ev_par_list: vec![].into(),
                    }],
                }),
                signals_descriptor: None,
            }));
        }
        nb
    }
    let msg = |depth| {
        let c = CommandRequest {
            command: Command::Modify(AmmRequest {
                termination_ids: vec![tid("a")].into(),
                descriptors: vec![AmmDescriptor::Events(EventsDescriptor {
                    request_id: Some(1),
                    event_list: vec![RequestedEvent {
                        pkgd_name: "al/of".into(),
                        stream_id: None,
                        event_action: Some(RequestedActions {
                            keep_active: None,
                            event_dm: None,
                            second_event: None,
                            signals_descriptor: None,
                            notify_behaviour: Some(nested(depth)),
                            reset_events_descriptor: false,
                        }),
                        ev_par_list: vec![].into(),
                    }],
                })],
            }),
            optional: false,
            wildcard_return: false,
        };
        request(
            3,
            vec![ActionRequest {
                context_id: ContextId(1),
                context_request: None,
                context_attr_audit_req: None,
                command_requests: vec![c].into(),
            }],
        )
    };
    let ok = encode_compact(&msg(2)).unwrap();
    // As OTP 4.4.2 writes it.
    assert_eq!(
        show(&ok),
        "!/3 [124.124.124.222]:55555\nT=9898{C=1{MF=a{E=1{al/of{NBRN{EM{E=2{al/on{NBRN{EM{E=2{al/on{NBIN}}}}}}}}}}}}}"
    );
    assert_eq!(decode(&ok).unwrap(), msg(2));
    assert!(encode_pretty(&msg(32)).is_ok());
    assert!(matches!(
        encode_pretty(&msg(33)),
        Err(EncodeError::Invalid { .. })
    ));
}

#[test]
fn v1_notify_with_error_keeps_its_observed_events() {
    let text = "!/1 [124.124.124.222]:55555\nT=1{C=1{N=a{OE=7{al/of},ER=400{\"x\"}}}}";
    let m = decode(text.as_bytes()).unwrap();
    for style in [Style::Pretty, Style::Compact] {
        let mut out = Vec::new();
        encode(&m, style, &mut out).unwrap();
        assert_eq!(decode(&out).unwrap(), m, "{style:?}");
    }
}

/// OTP's parser refuses a ServiceChangeAddress beside a MgcIdToTry (in
/// requests and replies alike), so a model with both has no text form:
/// the encoder says so rather than write what does not read back.
#[test]
fn service_change_address_beside_mgc_id_is_refused() {
    let request = "!/2 [10.0.0.1]\nT=1{C=-{SC=ROOT{SV{MT=RS,AD=2945,RE=\"901\"}}}}";
    let reply = "!/2 [10.0.0.1]\nP=1{C=-{SC=ROOT{SV{AD=2945}}}}";
    for text in [request, reply] {
        let mut m = decode(text.as_bytes()).unwrap();
        for style in [Style::Pretty, Style::Compact] {
            let mut out = Vec::new();
            encode(&m, style, &mut out).unwrap();
        }
        let mgc = Some(Mid::Ip4(Ip4Address {
            address: [10, 0, 0, 2],
            port: None,
        }));
        let MessageBody::Transactions(ts) = &mut m.mess.body else {
            unreachable!()
        };
        match &mut ts[0] {
            Transaction::Request(r) => {
                let Command::ServiceChange(sc) = &mut r.actions[0].command_requests[0].command
                else {
                    unreachable!()
                };
                sc.service_change_parms.service_change_mgc_id = mgc;
            }
            Transaction::Reply(r) => {
                let TransactionResult::ActionReplies(a) = &mut r.result else {
                    unreachable!()
                };
                let CommandReply::ServiceChange(sc) = &mut a[0].command_reply[0] else {
                    unreachable!()
                };
                let ServiceChangeResult::ServiceChangeResParms(p) = &mut sc.service_change_result
                else {
                    unreachable!()
                };
                p.service_change_mgc_id = mgc;
            }
            _ => unreachable!(),
        }
        for style in [Style::Pretty, Style::Compact] {
            let mut out = Vec::new();
            let err = encode(&m, style, &mut out).unwrap_err();
            assert!(matches!(err, EncodeError::Invalid { .. }), "{err:?}");
        }
    }
}

/// The `c=` line of the Local descriptor of `SDP_MODIFY`.
fn sdp_c_line(m: &mut MegacoMessage) -> &mut PropertyParm {
    let Command::Modify(modify) = first_command(m) else {
        unreachable!()
    };
    let AmmDescriptor::Media(media) = &mut modify.descriptors[0] else {
        unreachable!()
    };
    let Some(Streams::OneStream(stream)) = &mut media.streams else {
        unreachable!()
    };
    let local = stream.local_descriptor.as_mut().unwrap();
    &mut local.prop_grps[0][1]
}

/// A Modify whose Local descriptor holds `v=` and `c=` lines.
const SDP_MODIFY: &str = "!/1 [10.0.0.1]\nT=1{C=1{MF=t1{M{L{\nv=0\nc=IN IP4 10.0.0.1\n}}}}}";

/// An SDP line is `name=value`: a relation, range or sublist on a Local or
/// Remote descriptor's property has no text form, so the encoder refuses
/// it rather than drop it.
#[test]
fn sdp_property_with_extra_info_is_refused() {
    let mut m = decode(SDP_MODIFY.as_bytes()).unwrap();
    for style in [Style::Pretty, Style::Compact] {
        encode(&m, style, &mut Vec::new()).unwrap();
    }
    sdp_c_line(&mut m).extra_info = Some(ExtraInfo::Range(false));
    for style in [Style::Pretty, Style::Compact] {
        let err = encode(&m, style, &mut Vec::new()).unwrap_err();
        assert!(matches!(err, EncodeError::Invalid { .. }), "{err:?}");
    }
}

/// The text grammar's octetString has no NUL octet (`%x01-7C / %x7E-FF`):
/// an SDP value holding one is refused rather than written as bytes the
/// decoder (ours, OTP's) refuses.
#[test]
fn sdp_value_with_nul_is_refused() {
    let mut m = decode(SDP_MODIFY.as_bytes()).unwrap();
    sdp_c_line(&mut m).value[0] = "IN IP4 10.0\u{0}.0.1".into();
    for style in [Style::Pretty, Style::Compact] {
        let err = encode(&m, style, &mut Vec::new()).unwrap_err();
        assert!(matches!(err, EncodeError::Invalid { .. }), "{err:?}");
    }
}

/// An SDP line ends at CR or LF: a value holding either is refused
/// rather than written as two lines that read back as something else.
#[test]
fn sdp_value_with_a_line_end_is_refused() {
    for cut in ["\r", "\n", "\r\n"] {
        let mut m = decode(SDP_MODIFY.as_bytes()).unwrap();
        sdp_c_line(&mut m).value[0] = format!("IN IP4{cut}10.0.0.1").into();
        for style in [Style::Pretty, Style::Compact] {
            let err = encode(&m, style, &mut Vec::new()).unwrap_err();
            assert!(
                matches!(err, EncodeError::Invalid { .. }),
                "{cut:?}: {err:?}"
            );
        }
    }
}

/// An embedded Events descriptor: the grammar has events only after a
/// request id. Events without an id are refused rather than dropped
/// (OTP 25 writes a bare `E` and loses them); an id without events is
/// written bare, as OTP writes it, and reads back without the id.
#[test]
fn embedded_events_without_request_id_are_refused() {
    let text = "!/2 [10.0.0.1]\nT=1{C=1{MV=a{E=7{t/ite{EM{E=9{al/on}}}}}}}";
    let mut m = decode(text.as_bytes()).unwrap();
    fn embedded(m: &mut MegacoMessage) -> &mut EventsDescriptor {
        let Command::Move(amm) = first_command(m) else {
            unreachable!()
        };
        let AmmDescriptor::Events(ev) = &mut amm.descriptors[0] else {
            unreachable!()
        };
        let action = ev.event_list[0].event_action.as_mut().unwrap();
        action.second_event.as_mut().unwrap()
    }
    assert_eq!(encode_compact(&m).unwrap(), text.as_bytes());

    embedded(&mut m).request_id = None;
    for style in [Style::Pretty, Style::Compact] {
        let err = encode(&m, style, &mut Vec::new()).unwrap_err();
        assert!(matches!(err, EncodeError::Invalid { .. }), "{err:?}");
    }

    embedded(&mut m).request_id = Some(9);
    embedded(&mut m).event_list.clear();
    let bytes = encode_compact(&m).unwrap();
    assert_eq!(bytes, b"!/2 [10.0.0.1]\nT=1{C=1{MV=a{E=7{t/ite{EM{E}}}}}}");
    let mut back = decode(&bytes).unwrap();
    assert_eq!(embedded(&mut back).request_id, None);
}

/// Every style refuses `m` as [`EncodeError::Invalid`].
fn refused_in_text(m: &MegacoMessage) {
    for style in [Style::Pretty, Style::Compact] {
        let err = encode(m, style, &mut Vec::new()).unwrap_err();
        assert!(matches!(err, EncodeError::Invalid { .. }), "{err:?}");
    }
}

/// Shapes the text grammar cannot say (each found by the edge-value sweep
/// in `edge_values.rs`; Erlang/OTP 25's encoders write the first and the
/// last, and its parser refuses what they write): an empty NotifyCompletion
/// list (`NC={}`), a `ds` digit string with a quote in it, an SDP `v=`
/// line inside a property group (it reads back as the start of the next),
/// and an audited `Stream = id { … }` with two items (the grammar has one).
#[test]
fn shapes_without_a_text_form_are_refused() {
    let text = "!/1 [10.0.0.1]\nT=1{C=1{MF=t1{SG{al/ri{NC={TO}}}}}}";
    let mut m = decode(text.as_bytes()).unwrap();
    assert_eq!(encode_compact(&m).unwrap(), text.as_bytes());
    let Command::Modify(amm) = first_command(&mut m) else {
        unreachable!()
    };
    let AmmDescriptor::Signals(signals) = &mut amm.descriptors[0] else {
        unreachable!()
    };
    let SignalRequest::Signal(signal) = &mut signals[0] else {
        unreachable!()
    };
    signal.notify_completion = Some(vec![]);
    refused_in_text(&m);

    let text = "!/1 [10.0.0.1]\nT=1{C=1{N=t1{OE=1{19990729T22000000:dd/ce{ds=\"12\",meth=fm}}}}}";
    let mut m = decode(text.as_bytes()).unwrap();
    assert_eq!(encode_compact(&m).unwrap(), text.as_bytes());
    let Command::Notify(n) = first_command(&mut m) else {
        unreachable!()
    };
    n.observed_events_descriptor.observed_event_lst[0].event_par_list[0].value[0] = "1\"2".into();
    refused_in_text(&m);

    let mut m = decode(SDP_MODIFY.as_bytes()).unwrap();
    let c_line = sdp_c_line(&mut m).clone();
    *sdp_c_line(&mut m) = PropertyParm::new("v", "0");
    let Command::Modify(modify) = first_command(&mut m) else {
        unreachable!()
    };
    let AmmDescriptor::Media(media) = &mut modify.descriptors[0] else {
        unreachable!()
    };
    let Some(Streams::OneStream(stream)) = &mut media.streams else {
        unreachable!()
    };
    stream.local_descriptor.as_mut().unwrap().prop_grps[0][0] = c_line;
    refused_in_text(&m);

    let audit = |item: &str| {
        let text = format!("!/3 [10.0.0.1]\nT=1{{C=-{{AV=t1{{AT{{M{{ST=1{{{item}}}}}}}}}}}}}");
        let mut m = decode(text.as_bytes()).unwrap();
        assert_eq!(encode_compact(&m).unwrap(), text.as_bytes());
        let Command::AuditValue(a) = first_command(&mut m).clone() else {
            unreachable!()
        };
        let IndAuditParameter::Media(media) = &a.audit_descriptor.audit_property_token.unwrap()[0]
        else {
            unreachable!()
        };
        let Some(IndAudStreams::MultiStream(streams)) = &media.streams else {
            unreachable!()
        };
        (m, streams[0].stream_parms.clone())
    };
    let (mut m, stream) = audit("SA{nt/dur}");
    let (_, local_control) = audit("O{MO}");
    let Command::AuditValue(a) = first_command(&mut m) else {
        unreachable!()
    };
    let tokens = a.audit_descriptor.audit_property_token.as_mut().unwrap();
    let IndAuditParameter::Media(media) = &mut tokens[0] else {
        unreachable!()
    };
    let Some(IndAudStreams::MultiStream(streams)) = &mut media.streams else {
        unreachable!()
    };
    streams[0].stream_parms = IndAudStreamParms {
        local_control_descriptor: local_control.local_control_descriptor,
        ..stream
    };
    refused_in_text(&m);
}

/// A Local or Remote descriptor's text ends at `}` with its white space
/// trimmed, so the last SDP line's trailing spaces go with it, as
/// Erlang/OTP 25's decoder reads it (checked); a line's own trailing
/// space before a line end stays.
#[test]
fn last_sdp_line_reads_back_trimmed() {
    let text = "!/1 [10.0.0.1]\nT=1{C=1{MF=t1{M{L{\nv=0\nc=IN IP4 $ \na=x \n}}}}}";
    let mut m = decode(text.as_bytes()).unwrap();
    let Command::Modify(modify) = first_command(&mut m) else {
        unreachable!()
    };
    let AmmDescriptor::Media(media) = &modify.descriptors[0] else {
        unreachable!()
    };
    let Some(Streams::OneStream(stream)) = &media.streams else {
        unreachable!()
    };
    let lines = &stream.local_descriptor.as_ref().unwrap().prop_grps[0];
    let values: Vec<&str> = lines.iter().map(|p| p.value[0].as_str()).collect();
    assert_eq!(values, ["0", "IN IP4 $ ", "x"]);
}
