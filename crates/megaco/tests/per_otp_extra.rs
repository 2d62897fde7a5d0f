//! PER vectors made by Erlang/OTP 25 (megaco 4.4.2) for constructs the
//! bundled corpus does not exercise: domain and device mIds, IPv6, MTP,
//! the authentication header, Modem and Mux descriptors with non-standard
//! data (H.221, experimental, object identifier), EventBuffer, signal
//! lists, audit token bit strings, relation/range/sublist, message-level
//! errors, pending and response-ack transactions, packages and statistics,
//! v2 Nx64k, v2 topology stream and digit map duration timer.
//!
//! Each was produced by OTP from the text (or native ASN.1 record) quoted
//! beside it, with `megaco_pretty_text_encoder:decode_message/3` then
//! `megaco_per_encoder:encode_message/3`. The tests decode OTP's bytes,
//! check the model against the source, and encode the model back to OTP's
//! bytes.

use megaco::model::*;
use megaco::per::{self, PerConfig};

fn hex(parts: &[&str]) -> Vec<u8> {
    let s: String = parts.concat();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Decodes OTP's bytes, and checks that encoding the result gives them back.
fn round_trip(bytes: &[u8]) -> MegacoMessage {
    let cfg = PerConfig::default();
    let msg = per::decode(bytes, &cfg).expect("decode");
    assert_eq!(per::encode(&msg, &cfg).expect("encode"), bytes);
    msg
}

fn actions(m: &MegacoMessage) -> &[ActionRequest] {
    match &m.mess.body {
        MessageBody::Transactions(ts) => match &ts[0] {
            Transaction::Request(r) => &r.actions,
            t => panic!("not a request: {t:?}"),
        },
        b => panic!("no transactions: {b:?}"),
    }
}

fn amm(m: &MegacoMessage, i: usize) -> &AmmRequest {
    match &actions(m)[0].command_requests[i].command {
        Command::Add(a) | Command::Modify(a) => a,
        c => panic!("not add/modify: {c:?}"),
    }
}

// OTP source text:
// MEGACO/2 <gw.example.net>:2944
// Transaction = 5 {
// 	Context = 12 {
// 		Modify = 11111111/00000000/00000000 {
// 			Modem [V18, V32bis] { tdmc/gain=2 },
// 			Mux = H221 { 11111111/00000000/00000001 },
// 			Events = 3 { al/of { Stream = 2, KeepActive, Embed { Signals { cg/rt } } } },
// 			EventBuffer { al/on { strict=state } },
// 			Signals { SignalList = 7 { cg/rt { SignalType = TimeOut, Duration = 300, NotifyCompletion = { TimeOut, OtherReason } } } },
// 			Audit { Media, Events, Packages },
// 			Media { TerminationState { Buffer = LockStep, ServiceStates = OutOfService, tdmc/gain > 3 }, Stream = 1 { LocalControl { Mode = LoopBack, ReservedValue = ON, ReservedGroup = OFF, tdmc/ec = [g165, g168] } } }
// 		}
// 	}
// }

const T1: &[&str] = &[
    "01140E67772E6578616D706C652E6E65740B808001000501000C010401000040FF000006200001000040FF0001340301",
    "600009000500024C0100000700310000400100000900040100004001057374617465500140000701380007003140012C",
    "04900074093083600140000D000A010133026001000147480140000D00080204673136350467313638A0",
];

// OTP source text:
// MEGACO/1 mgw1/line
// Transaction = 1 {
// 	Context = 3 {
// 		Topology { 11111111/00000000/00000001, 11111111/00000000/00000010, Isolate },
// 		Priority = 3,
// 		Add = 11111111/00000000/$ {
// 			Media { TerminationState { tdmc/gain = [1:5] }, Stream = 1 { LocalControl { Mode = SendOnly, tdmc/ec # g165, tdmc/gain = {1, 2} } } }
// 		},
// 		Subtract = 11111111/00000000/* { Audit { Media } }
// 	}
// }

const T2: &[&str] = &[
    "0099006D6777312F6C696E65800100010180035301000040FF0001000040FF00024002000100010740FF000001060001",
    "40000D000A02013101357001000144000240000D000801046731363512000D000A020131013280D00100018740FF0000",
    "400320",
];

// OTP source text:
// MEGACO/1 [10.0.0.1]:2944
// Transaction = 2 {
// 	Context = * {
// 		ServiceChange = root { Services { Method = Forced, Reason = "905 Termination taken out of service", Delay = 30, Version = 1, MgcIdToTry = <mgc.example>:2944, 19990729T22000000 } }
// 	}
// }
// Reply = 9 { Error = 504 { "Command Received from unauthorized entity" } }
// Pending = 10 { }
// TransactionResponseAck { 1-5, 7 }

const T3: &[&str] = &[
    "00840A0000010B80800400020130FFFFFFFF010E010000E0FFFFFFFFFFFFFFFF2E10200124393035205465726D696E61",
    "74696F6E2074616B656E206F7574206F662073657276696365001E280B6D67632E6578616D706C650B80313939393037",
    "3239323230303030303040094001F829436F6D6D616E642052656365697665642066726F6D20756E617574686F72697A",
    "656420656E74697479200A6002800100050007",
];

// OTP source text:
// MEGACO/2 [10.0.0.1]
// ERROR = 400 { "Syntax error" }

const T4: &[&str] = &["01000A0000014001900C53796E746178206572726F72"];

// OTP source text:
// MEGACO/1 [10.0.0.1]:2944
// Reply = 11 {
// 	Context = 5 {
// 		AuditValue = 11111111/00000000/00000000 {
// 			Packages { al-1, tdmc-2 },
// 			Statistics { nt/os = 45, nt/or = 70 },
// 			Events = 1 { al/on },
// 			ObservedEvents = 5 { al/of { init = true } }
// 		},
// 		Notify = 11111111/00000000/00000000,
// 		Add = 11111111/00000000/00000001 { Media { Stream = 1 { Local { v=0 } } } }
// 	}
// }

const T7: &[&str] = &[
    "00840A0000010B808001400B8001000503540040FF0000045002000481000682480280000B00020102343580000B0003",
    "010237302001010000090004004005010000090005010000800104747275656001000040FF00000401000040FF000101",
    "0980010001200101000000B001010130",
];

// OTP native ASN.1 records (encoded with config [native]):
// {"v2_nx64k_duration", {'MegacoMessage', asn1_NOVALUE, {'Message', 2, {ip4Address, {'IP4Address',[10,0,0,1],2944}}, {transactions, [{transactionRequest, {'TransactionRequest', 3, [{'ActionRequest', 3, asn1_NOVALUE, asn1_NOVALUE, [{'CommandRequest', {modReq, {'AmmRequest', [{'TerminationID',[],[255,0,0]}], [{muxDescriptor, {'MuxDescriptor', nx64k, [{'TerminationID',[],[255,0,1]}], asn1_NOVALUE}}, {digitMapDescriptor, {'DigitMapDescriptor', [0,0], {'DigitMapValue', 3,4,5, "(xx)", 7}}}]}}, asn1_NOVALUE, asn1_NOVALUE}]}]}}]}}}}.
// {"v2_topology_stream", {'MegacoMessage', asn1_NOVALUE, {'Message', 2, {deviceName, "mgw1/line"}, {transactions, [{transactionRequest, {'TransactionRequest', 4, [{'ActionRequest', 7, {'ContextRequest', asn1_NOVALUE, false, [{'TopologyRequest', {'TerminationID',[],[255,0,1]}, {'TerminationID',[[16#57]],[0,0,0]}, oneway, 5}]}, asn1_NOVALUE, []}]}}]}}}}.
// {"v1_modem_nsd_ip6_auth", {'MegacoMessage', {'AuthenticationHeader', [1,2,3,4], [0,0,0,9], [7,7,7,7,7,7,7,7,7,7,7,7,7]}, {'Message', 1, {ip6Address, {'IP6Address',[16#20,1,16#d,16#b8,0,0,0,0,0,0,0,0,0,0,0,1],2944}}, {transactions, [{transactionRequest, {'TransactionRequest', 5, [{'ActionRequest', 16#fffffffe, asn1_NOVALUE, asn1_NOVALUE, [{'CommandRequest', {addReq, {'AmmRequest', [{'TerminationID',[[16#57]],[0,0,0]}], [{modemDescriptor, {'ModemDescriptor', [v18, v32bis, synchISDN], [{'PropertyParm', [0,16#d,0,16#a], ["2"], {relation, greaterThan}}], {'NonStandardData', {h221NonStandard, {'H221NonStandard', 181, 0, 22, 300}}, [1,2,3]}}}, {muxDescriptor, {'MuxDescriptor', h223, [{'TerminationID',[],[255,0,1]}], {'NonStandardData', {experimental, "X-ABCDEF"}, []}}}]}}, 'NULL', 'NULL'}]}]}}]}}}}.
// {"v1_mtp_nsd_object", {'MegacoMessage', asn1_NOVALUE, {'Message', 1, {mtpAddress, [16#12,16#34]}, {transactions, [{transactionRequest, {'TransactionRequest', 6, [{'ActionRequest', 0, asn1_NOVALUE, asn1_NOVALUE, [{'CommandRequest', {serviceChangeReq, {'ServiceChangeRequest', [{'TerminationID',[],[255,255,255,255,255,255,255,255]}], {'ServiceChangeParm', disconnected, {mtpAddress, [1,2,3]}, asn1_NOVALUE, asn1_NOVALUE, ["900"], asn1_NOVALUE, {ip4Address, {'IP4Address',[1,2,3,4],asn1_NOVALUE}}, asn1_NOVALUE, {'NonStandardData', {object, {1,2,840,113549,1}}, "abc"}}}}, asn1_NOVALUE, asn1_NOVALUE}]}]}}]}}}}.

const V2_NX64K_DURATION: &[&str] = &[
    "01040A0000010B8080010003010003010401000040FF000002220001000040FF00016C0003C1840A042878782901010E",
];

const V2_TOPOLOGY_STREAM: &[&str] =
    &["0119006D6777312F6C696E65800100040180073001800040FF000100015740000000804002000500"];

const V1_MODEM_NSD_IP6_AUTH: &[&str] = &[
    "8001020304000000090807070707070707070707070707011820010DB80000000000000000000000010B808001000501",
    "30FFFFFFFE0160010001574000000002180301100140000D000A0101320100B50016012C03010203248001000040FF00",
    "0140582D41424344454600",
];

const V1_MTP_NSD_OBJECT: &[&str] = &[
    "00A0123480010006010000010E010000E0FFFFFFFFFFFFFFFF4545400102030103393030000102030400072A864886F7",
    "0D0103616263",
];

#[test]
fn v2_domain_mid_mux_events_signal_list_audit_tokens() {
    let m = round_trip(&hex(T1));
    assert_eq!(m.mess.version, 2);
    assert_eq!(
        m.mess.mid,
        Mid::Domain(DomainName {
            name: "gw.example.net".into(),
            port: Some(2944)
        })
    );
    let d = &amm(&m, 0).descriptors;
    // OTP's text parser drops the Modem descriptor of this text: six remain.
    assert_eq!(d.len(), 6);
    assert!(matches!(&d[0], AmmDescriptor::Mux(x) if x.mux_type == MuxType::H221));
    match &d[1] {
        AmmDescriptor::Events(e) => {
            assert_eq!(e.request_id, Some(3));
            let ev = &e.event_list[0];
            assert_eq!(ev.pkgd_name, "al/of");
            assert_eq!(ev.stream_id, Some(2));
            let a = ev.event_action.as_ref().unwrap();
            assert_eq!(a.keep_active, Some(true));
            assert_eq!(a.signals_descriptor.as_ref().unwrap().len(), 1);
        }
        x => panic!("{x:?}"),
    }
    match &d[2] {
        AmmDescriptor::EventBuffer(e) => {
            assert_eq!(e[0].event_name, "al/on");
            assert_eq!(
                e[0].event_par_list,
                vec![PropertyParm::new("strict", "state")]
            );
        }
        x => panic!("{x:?}"),
    }
    match &d[3] {
        AmmDescriptor::Signals(s) => match &s[0] {
            SignalRequest::SeqSigList(l) => {
                assert_eq!(l.id, 7);
                let s = &l.signal_list[0];
                assert_eq!(s.signal_name, "cg/rt");
                assert_eq!(s.sig_type, Some(SignalType::TimeOut));
                assert_eq!(s.duration, Some(300));
                assert_eq!(
                    s.notify_completion,
                    Some(vec![
                        NotifyCompletion::OnTimeOut,
                        NotifyCompletion::OtherReason
                    ])
                );
            }
            x => panic!("{x:?}"),
        },
        x => panic!("{x:?}"),
    }
    match &d[4] {
        AmmDescriptor::Audit(a) => assert_eq!(
            a.audit_token,
            Some(vec![
                AuditToken::Media,
                AuditToken::Events,
                AuditToken::Packages
            ])
        ),
        x => panic!("{x:?}"),
    }
    match &d[5] {
        AmmDescriptor::Media(md) => {
            let ts = md.term_state_descr.as_ref().unwrap();
            assert_eq!(ts.event_buffer_control, Some(EventBufferControl::LockStep));
            assert_eq!(ts.service_state, Some(ServiceState::OutOfSvc));
            assert_eq!(
                ts.property_parms[0].extra_info,
                Some(ExtraInfo::Relation(Relation::GreaterThan))
            );
            let Some(Streams::MultiStream(s)) = &md.streams else {
                panic!("streams")
            };
            let lc = s[0].stream_parms.local_control_descriptor.as_ref().unwrap();
            assert_eq!(lc.stream_mode, Some(StreamMode::LoopBack));
            assert_eq!(lc.reserve_value, Some(true));
            assert_eq!(lc.reserve_group, Some(false));
            assert_eq!(lc.property_parms[0].value.as_slice(), ["g165", "g168"]);
            assert_eq!(
                lc.property_parms[0].extra_info,
                Some(ExtraInfo::Sublist(true))
            );
        }
        x => panic!("{x:?}"),
    }
}

#[test]
fn v1_device_mid_topology_wildcards_range_relation() {
    let m = round_trip(&hex(T2));
    assert_eq!(m.mess.version, 1);
    assert_eq!(m.mess.mid, Mid::Device("mgw1/line".into()));
    let a = &actions(&m)[0];
    let cr = a.context_request.as_ref().unwrap();
    assert_eq!(cr.priority, Some(3));
    let t = &cr.topology_req.as_ref().unwrap()[0];
    assert_eq!(t.topology_direction, TopologyDirection::Isolate);
    assert_eq!(t.termination_to.as_str(), "11111111/00000000/00000010");
    let add = amm(&m, 0);
    assert_eq!(add.termination_ids[0].as_str(), "11111111/00000000/$");
    match &a.command_requests[1].command {
        Command::Subtract(s) => {
            assert_eq!(s.termination_ids[0].as_str(), "11111111/00000000/*");
            assert_eq!(
                s.audit_descriptor.as_ref().unwrap().audit_token,
                Some(vec![AuditToken::Media])
            );
        }
        c => panic!("{c:?}"),
    }
    let AmmDescriptor::Media(md) = &add.descriptors[0] else {
        panic!("media")
    };
    let p = &md.term_state_descr.as_ref().unwrap().property_parms[0];
    assert_eq!(p.value.as_slice(), ["1", "5"]);
    assert_eq!(p.extra_info, Some(ExtraInfo::Range(true)));
}

#[test]
fn v1_service_change_reply_error_pending_response_ack() {
    let m = round_trip(&hex(T3));
    let MessageBody::Transactions(ts) = &m.mess.body else {
        panic!("body")
    };
    assert_eq!(ts.len(), 4);
    let Transaction::Request(r) = &ts[0] else {
        panic!()
    };
    assert_eq!(r.actions[0].context_id, ContextId::ALL);
    let Command::ServiceChange(sc) = &r.actions[0].command_requests[0].command else {
        panic!()
    };
    assert!(sc.termination_ids[0].is_root());
    let p = &sc.service_change_parms;
    assert_eq!(p.service_change_method, ServiceChangeMethod::Forced);
    assert_eq!(
        p.service_change_reason.as_slice(),
        ["905 Termination taken out of service"]
    );
    assert_eq!(p.service_change_delay, Some(30));
    assert_eq!(p.service_change_version, Some(1));
    assert_eq!(
        p.service_change_mgc_id,
        Some(Mid::Domain(DomainName {
            name: "mgc.example".into(),
            port: Some(2944)
        }))
    );
    assert_eq!(
        p.time_stamp,
        Some(TimeNotation {
            date: "19990729".into(),
            time: "22000000".into()
        })
    );
    let Transaction::Reply(rep) = &ts[1] else {
        panic!()
    };
    assert_eq!(rep.transaction_id, 9);
    assert_eq!(
        rep.result,
        TransactionResult::Error(ErrorDescriptor {
            error_code: 504,
            error_text: Some("Command Received from unauthorized entity".into())
        })
    );
    assert_eq!(
        ts[2],
        Transaction::Pending(TransactionPending { transaction_id: 10 })
    );
    assert_eq!(
        ts[3],
        Transaction::ResponseAck(vec![
            TransactionAck {
                first_ack: 1,
                last_ack: Some(5)
            },
            TransactionAck {
                first_ack: 7,
                last_ack: None
            },
        ])
    );
}

#[test]
fn hand_built_message_error_encodes_to_otp_bytes() {
    let msg = MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 2,
            mid: Mid::Ip4(Ip4Address {
                address: [10, 0, 0, 1],
                port: None,
            }),
            body: MessageBody::Error(ErrorDescriptor {
                error_code: 400,
                error_text: Some("Syntax error".into()),
            }),
        },
    };
    let cfg = PerConfig::default();
    assert_eq!(per::encode(&msg, &cfg).unwrap(), hex(T4));
    assert_eq!(per::decode(&hex(T4), &cfg).unwrap(), msg);
}

#[test]
fn v1_audit_reply_packages_statistics_observed_local() {
    let m = round_trip(&hex(T7));
    let MessageBody::Transactions(ts) = &m.mess.body else {
        panic!()
    };
    let Transaction::Reply(r) = &ts[0] else {
        panic!()
    };
    let TransactionResult::ActionReplies(ar) = &r.result else {
        panic!()
    };
    let replies = &ar[0].command_reply;
    assert_eq!(replies.len(), 3);
    let CommandReply::AuditValue(AuditReply::AuditResult(res)) = &replies[0] else {
        panic!("{:?}", replies[0])
    };
    let items = &res.termination_audit_result;
    assert_eq!(
        items[0],
        AuditReturnParameter::Packages(vec![
            PackagesItem {
                package_name: "al".into(),
                package_version: 1
            },
            PackagesItem {
                package_name: "tdmc".into(),
                package_version: 2
            },
        ])
    );
    assert_eq!(
        items[1],
        AuditReturnParameter::Statistics(vec![
            StatisticsParameter {
                stat_name: "nt/os".into(),
                stat_value: Some(vec!["45".into()].into())
            },
            StatisticsParameter {
                stat_name: "nt/or".into(),
                stat_value: Some(vec!["70".into()].into())
            },
        ])
    );
    let AuditReturnParameter::ObservedEvents(o) = &items[3] else {
        panic!()
    };
    assert_eq!(o.request_id, 5);
    assert_eq!(
        o.observed_event_lst[0].event_par_list,
        vec![PropertyParm::new("init", "true")]
    );
    let CommandReply::Add(add) = &replies[2] else {
        panic!()
    };
    let Some(audit) = &add.termination_audit else {
        panic!()
    };
    let AuditReturnParameter::Media(md) = &audit[0] else {
        panic!()
    };
    let Some(Streams::MultiStream(s)) = &md.streams else {
        panic!()
    };
    let local = s[0].stream_parms.local_descriptor.as_ref().unwrap();
    assert_eq!(
        local.prop_grps.as_slice(),
        [vec![PropertyParm::new("v", "0")]]
    );
}

#[test]
fn v2_nx64k_and_duration_timer() {
    let m = round_trip(&hex(V2_NX64K_DURATION));
    let d = &amm(&m, 0).descriptors;
    assert!(matches!(&d[0], AmmDescriptor::Mux(x) if x.mux_type == MuxType::Nx64k));
    let AmmDescriptor::DigitMap(dm) = &d[1] else {
        panic!()
    };
    assert_eq!(dm.digit_map_name.as_deref(), Some("dialplan00"));
    assert_eq!(
        dm.digit_map_value,
        Some(DigitMapValue {
            start_timer: Some(3),
            short_timer: Some(4),
            long_timer: Some(5),
            digit_map_body: "(xx)".into(),
            duration_timer: Some(7),
        })
    );
    // The same message as version 1 cannot carry either.
    let mut v1 = m.clone();
    v1.mess.version = 1;
    assert!(matches!(
        per::encode(&v1, &PerConfig::default()),
        Err(megaco::EncodeError::Version { needs: 2, .. })
    ));
}

#[test]
fn hand_built_v2_topology_stream_encodes_to_otp_bytes() {
    let msg = MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 2,
            mid: Mid::Device("mgw1/line".into()),
            body: MessageBody::Transactions(
                vec![Transaction::Request(TransactionRequest {
                    transaction_id: 4,
                    actions: vec![ActionRequest {
                        context_id: ContextId(7),
                        context_request: Some(ContextRequest {
                            priority: None,
                            emergency: Some(false),
                            topology_req: Some(vec![TopologyRequest {
                                termination_from: TerminationId::new("11111111/00000000/00000001"),
                                termination_to: TerminationId::new("$"),
                                topology_direction: TopologyDirection::Oneway,
                                stream_id: Some(5),
                                topology_direction_extension: None,
                            }]),
                            iepscallind: None,
                            context_prop: None,
                            context_list: None,
                        }),
                        context_attr_audit_req: None,
                        command_requests: vec![].into(),
                    }]
                    .into(),
                })]
                .into(),
            ),
        },
    };
    let cfg = PerConfig::default();
    assert_eq!(per::encode(&msg, &cfg).unwrap(), hex(V2_TOPOLOGY_STREAM));
    assert_eq!(per::decode(&hex(V2_TOPOLOGY_STREAM), &cfg).unwrap(), msg);
    // v1's TopologyRequest has no extension marker and no stream.
    let mut v1 = msg.clone();
    v1.mess.version = 1;
    assert!(matches!(
        per::encode(&v1, &cfg),
        Err(megaco::EncodeError::Version { needs: 2, .. })
    ));
}

#[test]
fn v1_auth_header_ip6_modem_mux_nonstandard_data() {
    let m = round_trip(&hex(V1_MODEM_NSD_IP6_AUTH));
    assert_eq!(
        m.auth_header,
        Some(AuthenticationHeader {
            sec_parm_index: 0x01020304,
            seq_num: 9,
            ad: vec![7; 13],
        })
    );
    let mut a6 = [0u8; 16];
    a6[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
    a6[15] = 1;
    assert_eq!(
        m.mess.mid,
        Mid::Ip6(Ip6Address {
            address: a6,
            port: Some(2944)
        })
    );
    let a = &actions(&m)[0];
    assert_eq!(a.context_id, ContextId::CHOOSE);
    assert!(a.command_requests[0].optional && a.command_requests[0].wildcard_return);
    let add = amm(&m, 0);
    assert_eq!(add.termination_ids[0].as_str(), "$");
    let AmmDescriptor::Modem(md) = &add.descriptors[0] else {
        panic!()
    };
    assert_eq!(
        md.mtl,
        vec![ModemType::V18, ModemType::V32bis, ModemType::SynchIsdn]
    );
    assert_eq!(
        md.non_standard_data,
        Some(NonStandardData {
            non_standard_identifier: NonStandardIdentifier::H221NonStandard(H221NonStandard {
                t35_country_code1: 181,
                t35_country_code2: 0,
                t35_extension: 22,
                manufacturer_code: 300,
            }),
            data: vec![1, 2, 3],
        })
    );
    let AmmDescriptor::Mux(mx) = &add.descriptors[1] else {
        panic!()
    };
    assert_eq!(mx.mux_type, MuxType::H223);
    assert_eq!(
        mx.non_standard_data
            .as_ref()
            .unwrap()
            .non_standard_identifier,
        NonStandardIdentifier::Experimental("X-ABCDEF".into())
    );
}

#[test]
fn v1_mtp_addresses_and_object_identifier() {
    let m = round_trip(&hex(V1_MTP_NSD_OBJECT));
    // OTP carries the MTP address as the octets it was given.
    assert_eq!(m.mess.mid, Mid::Mtp("\u{12}\u{34}".into()));
    let Command::ServiceChange(sc) = &actions(&m)[0].command_requests[0].command else {
        panic!()
    };
    let p = &sc.service_change_parms;
    assert_eq!(p.service_change_method, ServiceChangeMethod::Disconnected);
    assert_eq!(
        p.service_change_address,
        Some(ServiceChangeAddress::Mtp("\u{1}\u{2}\u{3}".into()))
    );
    assert_eq!(
        p.non_standard_data
            .as_ref()
            .unwrap()
            .non_standard_identifier,
        NonStandardIdentifier::Object(vec![1, 2, 840, 113549, 1])
    );
    assert_eq!(p.non_standard_data.as_ref().unwrap().data, b"abc");
}

/// OTP sends the octets of its strings as they are: an error text with
/// octet 200 (made by OTP from `"a" ++ [200] ++ "b"`) decodes to the
/// Latin-1 character; UTF-8 text goes out as its UTF-8 octets.
#[test]
fn string_octets_outside_ascii() {
    let otp = [1, 0, 10, 0, 0, 1, 64, 1, 144, 3, 97, 200, 98];
    let cfg = PerConfig::default();
    let m = per::decode(&otp, &cfg).unwrap();
    let MessageBody::Error(e) = &m.mess.body else {
        panic!()
    };
    assert_eq!(e.error_text.as_deref(), Some("a\u{c8}b"));
    let mut utf8 = m.clone();
    utf8.mess.body = MessageBody::Error(ErrorDescriptor {
        error_code: 400,
        error_text: Some("aéb".into()),
    });
    let b = per::encode(&utf8, &cfg).unwrap();
    assert_eq!(&b[9..], &[4, b'a', 0xC3, 0xA9, b'b']);
    assert_eq!(per::decode(&b, &cfg).unwrap(), utf8);
}

/// FNV-1a, to compare with long OTP encodings without storing them.
fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Fragmented lengths (X.691 11.9.3.8), checked against OTP: a 40000
/// character error text (OTP: 40012 octets, `C2` then 32768 characters,
/// then `9C 40` and 7232 characters) and a response ack of 20000 ranges
/// (OTP: 59757 octets, `C1` then 16384 items, then `8E 20` and 3616).
#[test]
fn fragmented_lengths_match_otp() {
    let cfg = PerConfig::default();
    let text = "a".repeat(40000);
    let m = MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 2,
            mid: Mid::Ip4(Ip4Address {
                address: [10, 0, 0, 1],
                port: None,
            }),
            body: MessageBody::Error(ErrorDescriptor {
                error_code: 400,
                error_text: Some(text.into()),
            }),
        },
    };
    let b = per::encode(&m, &cfg).unwrap();
    assert_eq!(b.len(), 40012);
    assert_eq!(&b[..10], &[1, 0, 10, 0, 0, 1, 64, 1, 144, 0xC2]);
    assert_eq!(&b[10 + 32768..10 + 32770], &[0x9C, 0x40]);
    assert_eq!(fnv1a(&b), 0x1c1f_2407_b8cf_acac);
    assert_eq!(per::decode(&b, &cfg).unwrap(), m);

    let acks = (1..=20000)
        .map(|i| TransactionAck {
            first_ack: i,
            last_ack: None,
        })
        .collect();
    let m = MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 1,
            mid: Mid::Ip4(Ip4Address {
                address: [10, 0, 0, 1],
                port: None,
            }),
            body: MessageBody::Transactions(vec![Transaction::ResponseAck(acks)].into()),
        },
    };
    let b = per::encode(&m, &cfg).unwrap();
    assert_eq!(b.len(), 59757);
    assert_eq!(&b[..12], &[0, 128, 10, 0, 0, 1, 128, 1, 0x60, 0xC1, 0, 1]);
    assert_eq!(&b[48907..48911], &[0x8E, 0x20, 0x20, 0x40]);
    assert_eq!(fnv1a(&b), 0xb2c0_6356_41e7_bb34);
    assert_eq!(per::decode(&b, &cfg).unwrap(), m);
}

// OTP native ASN.1 record (encoded with config [native], version 3): every
// v3 extension addition and alternative at once.
// {"v3_additions", {'MegacoMessage', asn1_NOVALUE, {'Message', 3, {ip4Address, {'IP4Address',[10,0,0,1],2944}}, {transactions, [
//  {transactionRequest, {'TransactionRequest', 1, [
//   {'ActionRequest', 2,
//    {'ContextRequest', 4, true, [{'TopologyRequest', {'TerminationID',[],[255,0,1]}, {'TerminationID',[],[255,0,2]}, oneway, 9, onewayboth}], false, [{'PropertyParm',[0,13,0,10],["2"],asn1_NOVALUE}], [7,8]},
//    {'ContextAttrAuditRequest', 'NULL', asn1_NOVALUE, 'NULL', 'NULL', [{'IndAudPropertyParm',[0,13,0,10],asn1_NOVALUE}], 3, false, true, {orAUDITSelect,'NULL'}},
//    [{'CommandRequest', {modReq, {'AmmRequest', [{'TerminationID',[],[255,0,0]}], [
//       {statisticsDescriptor, [{'StatisticsParameter',[0,11,0,1],asn1_NOVALUE}]},
//       {eventsDescriptor, {'EventsDescriptor', asn1_NOVALUE, [{'RequestedEvent', [0,9,0,5], 3, {'RequestedActions', asn1_NOVALUE, asn1_NOVALUE, {'EventsDescriptor', asn1_NOVALUE, [{'RequestedEvent',[0,9,0,4],asn1_NOVALUE,{'RequestedActions',false,asn1_NOVALUE,asn1_NOVALUE,{notifyImmediate,'NULL'},'NULL'},[]}]}, asn1_NOVALUE, {notifyRegulated, {'RegulatedEmbeddedDescriptor', asn1_NOVALUE, [{signal, {'Signal',[0,7,0,49],asn1_NOVALUE,asn1_NOVALUE,asn1_NOVALUE,asn1_NOVALUE,asn1_NOVALUE,[],asn1_NOVALUE,asn1_NOVALUE,asn1_NOVALUE}}]}}, 'NULL'}, []}]}},
//       {signalsDescriptor, [{signal, {'Signal',[0,7,0,49],1,brief,100,[onTimeOut,onIteration],true,[],both,77,10}}]},
//       {mediaDescriptor, {'MediaDescriptor', asn1_NOVALUE, {oneStream, {'StreamParms', asn1_NOVALUE, asn1_NOVALUE, asn1_NOVALUE, [{'StatisticsParameter',[0,11,0,1],["5","6"]}]}}}}
//     ]}}, asn1_NOVALUE, asn1_NOVALUE},
//     {'CommandRequest', {auditValueRequest, {'AuditRequest', {'TerminationID',[],[255,0,0]},
//       {'AuditDescriptor', [muxToken, eventBufferToken], [
//         {indAudMediaDescriptor, {'IndAudMediaDescriptor', {'IndAudTerminationStateDescriptor', [{'IndAudPropertyParm',[0,13,0,10],{'PropertyParm',[0,13,0,10],["3"],{range,true}}}], asn1_NOVALUE, 'NULL', outOfSvc},
//            {multiStream, [{'IndAudStreamDescriptor', 2, {'IndAudStreamParms', {'IndAudLocalControlDescriptor', 'NULL', asn1_NOVALUE, asn1_NOVALUE, asn1_NOVALUE, loopBack}, {'IndAudLocalRemoteDescriptor', 3, [{'IndAudPropertyParm',[0,0,176,1],asn1_NOVALUE}]}, asn1_NOVALUE, {'IndAudStatisticsDescriptor',[0,11,0,2]}}}]}}},
//         {indAudSignalsDescriptor, {seqSigList, {'IndAudSeqSigList', 5, {'IndAudSignal', [0,7,0,49], 1, 99}}}},
//         {indAudEventsDescriptor, {'IndAudEventsDescriptor', 4, [0,9,0,5], 2}},
//         {indAudEventBufferDescriptor, {'IndAudEventBufferDescriptor', [0,9,0,4], asn1_NOVALUE}},
//         {indAudDigitMapDescriptor, {'IndAudDigitMapDescriptor', [0,1]}},
//         {indAudStatisticsDescriptor, {'IndAudStatisticsDescriptor', [0,11,0,1]}},
//         {indAudPackagesDescriptor, {'IndAudPackagesDescriptor', [0,9], 1}}
//       ]}, [{'TerminationID',[],[255,0,0]}, {'TerminationID',[[16#87]],[255,0,0]}]}}, asn1_NOVALUE, asn1_NOVALUE}]}]}},
//  {transactionReply, {'TransactionReply', 2, asn1_NOVALUE, {actionReplies, [{'ActionReply', 2, asn1_NOVALUE, asn1_NOVALUE, [{auditValueReply, {auditResultTermList, {'TermListAuditResult', [{'TerminationID',[],[255,0,0]}], [{emptyDescriptors, {'AuditDescriptor', [mediaToken], asn1_NOVALUE}}]}}}]}]}, 3, asn1_NOVALUE}},
//  {segmentReply, {'SegmentReply', 2, 3, 'NULL'}},
//  {transactionPending, {'TransactionPending', 9}}
// ]}}}}.
const V3_ADDITIONS: &[&str] = &[
    "01840A0000010B808004000101C002F48001800040FF0001000040FF000280E0020009014005C00100090100000D000A",
    "010132050200070008D0BF800100060100000D000A0130010001800140020401000040FF00000480060100000B000130",
    "016000090005000390012000090004C01C0100010000038008240100000700310001000050013F000700310001000064",
    "058C0005C0014002004D02000A0280100B0180000B000102013501360B000040FF0000C00A804040570707400180000D",
    "000A010940000D000A0101336001012080010002EC0080014040000301000000B0010104000B0002360005C000070031",
    "000101020063160004000900050002200009000448000A80000B000160004810010E02000040FF000000018740FF0000",
    "5002800100020158000C0001000040FF0000015A032003000200038004400200032009",
];

#[test]
fn v3_extension_additions_and_alternatives() {
    let m = round_trip(&hex(V3_ADDITIONS));
    let MessageBody::Transactions(ts) = &m.mess.body else {
        panic!()
    };
    assert_eq!(ts.len(), 4);
    let a = &actions(&m)[0];
    let cr = a.context_request.as_ref().unwrap();
    let t = &cr.topology_req.as_ref().unwrap()[0];
    assert_eq!(t.stream_id, Some(9));
    assert_eq!(
        t.topology_direction_extension,
        Some(TopologyDirectionExtension::OnewayBoth)
    );
    assert_eq!(cr.iepscallind, Some(false));
    assert_eq!(cr.context_list, Some(vec![ContextId(7), ContextId(8)]));
    let ca = a.context_attr_audit_req.as_ref().unwrap();
    assert!(ca.topology && !ca.emergency && ca.priority && ca.iepscallind);
    assert_eq!(ca.select_priority, Some(3));
    assert_eq!(ca.select_emergency, Some(false));
    assert_eq!(ca.select_iepscallind, Some(true));
    assert_eq!(ca.select_logic, Some(SelectLogic::Or));
    let d = &amm(&m, 0).descriptors;
    assert!(matches!(&d[0], AmmDescriptor::Statistics(s) if s.len() == 1));
    let AmmDescriptor::Events(ev) = &d[1] else {
        panic!()
    };
    assert_eq!(ev.request_id, None);
    let act = ev.event_list[0].event_action.as_ref().unwrap();
    assert!(act.reset_events_descriptor);
    assert!(matches!(
        act.notify_behaviour,
        Some(NotifyBehaviour::NotifyRegulated(_))
    ));
    let se = &act.second_event.as_ref().unwrap().event_list[0];
    let sa = se.event_action.as_ref().unwrap();
    assert_eq!(sa.notify_behaviour, Some(NotifyBehaviour::NotifyImmediate));
    assert!(sa.reset_events_descriptor);
    let AmmDescriptor::Signals(s) = &d[2] else {
        panic!()
    };
    let SignalRequest::Signal(s) = &s[0] else {
        panic!()
    };
    assert_eq!(s.direction, Some(SignalDirection::Both));
    assert_eq!(s.request_id, Some(77));
    assert_eq!(s.intersig_delay, Some(10));
    assert_eq!(
        s.notify_completion,
        Some(vec![
            NotifyCompletion::OnTimeOut,
            NotifyCompletion::OnIteration
        ])
    );
    let AmmDescriptor::Media(md) = &d[3] else {
        panic!()
    };
    let Some(Streams::OneStream(sp)) = &md.streams else {
        panic!()
    };
    assert_eq!(
        sp.statistics_descriptor.as_ref().unwrap()[0].stat_value,
        Some(smallvec!["5".into(), "6".into()])
    );
    let Command::AuditValue(ar) = &a.command_requests[1].command else {
        panic!()
    };
    assert_eq!(
        ar.termination_id_list.as_ref().unwrap()[1].as_str(),
        "11111111/00000000/*"
    );
    let ad = &ar.audit_descriptor;
    assert_eq!(
        ad.audit_token,
        Some(vec![AuditToken::Mux, AuditToken::EventBuffer])
    );
    let items = ad.audit_property_token.as_ref().unwrap();
    assert_eq!(items.len(), 7);
    let IndAuditParameter::Media(im) = &items[0] else {
        panic!()
    };
    let ts_ = im.term_state_descr.as_ref().unwrap();
    assert_eq!(ts_.service_state_sel, Some(ServiceState::OutOfSvc));
    assert_eq!(
        ts_.property_parms[0]
            .property_parms
            .as_ref()
            .unwrap()
            .extra_info,
        Some(ExtraInfo::Range(true))
    );
    let Some(IndAudStreams::MultiStream(st)) = &im.streams else {
        panic!()
    };
    let p = &st[0].stream_parms;
    assert_eq!(
        p.local_control_descriptor.as_ref().unwrap().stream_mode_sel,
        Some(StreamMode::LoopBack)
    );
    assert_eq!(p.local_descriptor.as_ref().unwrap().prop_group_id, Some(3));
    assert_eq!(p.statistics_descriptor.as_ref().unwrap().stat_name, "nt/os");
    let IndAuditParameter::Signals(IndAudSignalsDescriptor::SeqSigList(l)) = &items[1] else {
        panic!()
    };
    assert_eq!(l.signal_list.as_ref().unwrap().signal_request_id, Some(99));
    assert!(
        matches!(&items[4], IndAuditParameter::DigitMap(d) if d.digit_map_name.as_deref() == Some("dialplan01"))
    );
    let Transaction::Reply(r) = &ts[1] else {
        panic!()
    };
    assert_eq!(
        (r.segment_number, r.segmentation_complete),
        (Some(3), false)
    );
    let TransactionResult::ActionReplies(rs) = &r.result else {
        panic!()
    };
    assert!(matches!(
        &rs[0].command_reply[0],
        CommandReply::AuditValue(AuditReply::AuditResultTermList(_))
    ));
    assert_eq!(
        ts[2],
        Transaction::SegmentReply(SegmentReply {
            transaction_id: 2,
            segment_number: 3,
            segmentation_complete: true
        })
    );
    // None of it exists in version 2.
    let mut v2 = m.clone();
    v2.mess.version = 2;
    assert!(matches!(
        per::encode(&v2, &PerConfig::default()),
        Err(megaco::EncodeError::Version { needs: 3, .. })
    ));
}
