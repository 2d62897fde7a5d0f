//! Shared helpers: the bundled corpus, and hand-built messages that cover
//! much of the model whatever the text decoder in this build accepts.
#![allow(dead_code)]
use std::path::PathBuf;

use megaco::model::*;

pub fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// Every corpus message the text decoder of this build accepts.
pub fn decoded_corpus() -> Vec<(String, MegacoMessage)> {
    let c = megaco::corpus::load(&corpus_dir().join("time_test.msgs")).unwrap();
    c.messages
        .into_iter()
        .filter_map(|m| megaco::text::decode(&m.bytes).ok().map(|d| (m.name, d)))
        .collect()
}

fn tid(s: &str) -> TerminationId {
    TerminationId::new(s)
}

fn sdp(name: &str, v: &str) -> PropertyParm {
    PropertyParm::new(name, v)
}

/// An Add request with Media (LocalControl, Local SDP), Events with
/// embedded signals, Signals (a list), DigitMap and Audit; v3 extras.
pub fn add_request() -> MegacoMessage {
    let media = MediaDescriptor {
        term_state_descr: Some(TerminationStateDescriptor {
            property_parms: vec![PropertyParm::new("tdmc/gain", "2")],
            event_buffer_control: Some(EventBufferControl::LockStep),
            service_state: Some(ServiceState::InSvc),
        }),
        streams: Some(Streams::MultiStream(
            vec![StreamDescriptor {
                stream_id: 1,
                stream_parms: StreamParms {
                    local_control_descriptor: Some(LocalControlDescriptor {
                        stream_mode: Some(StreamMode::RecvOnly),
                        reserve_value: Some(true),
                        reserve_group: None,
                        property_parms: vec![PropertyParm {
                            name: "nt/jit".into(),
                            value: vec!["40".into(), "50".into()].into(),
                            extra_info: Some(ExtraInfo::Range(true)),
                        }],
                    }),
                    local_descriptor: Some(LocalRemoteDescriptor {
                        prop_grps: vec![vec![
                            sdp("v", "0"),
                            sdp("c", "IN IP4 $ "),
                            sdp("m", "audio $ RTP/AVP 4"),
                            sdp("a", "ptime:30"),
                        ]]
                        .into(),
                    }),
                    remote_descriptor: None,
                    statistics_descriptor: Some(vec![StatisticsParameter {
                        stat_name: "nt/os".into(),
                        stat_value: Some(vec!["45123".into()].into()),
                    }]),
                },
            }]
            .into(),
        )),
    };
    let signal = Signal {
        signal_name: "cg/rt".into(),
        stream_id: Some(1),
        sig_type: Some(SignalType::TimeOut),
        duration: Some(3000),
        notify_completion: Some(vec![
            NotifyCompletion::OnTimeOut,
            NotifyCompletion::OtherReason,
        ]),
        keep_active: Some(true),
        sig_par_list: vec![PropertyParm::new("cad", "on")],
        direction: Some(SignalDirection::Both),
        request_id: Some(7),
        intersig_delay: Some(100),
    };
    let events = EventsDescriptor {
        request_id: Some(2222),
        event_list: vec![RequestedEvent {
            pkgd_name: "al/of".into(),
            stream_id: None,
            event_action: Some(RequestedActions {
                keep_active: Some(false),
                event_dm: Some(EventDm::DigitMapValue(DigitMapValue {
                    start_timer: Some(9),
                    short_timer: None,
                    long_timer: Some(30),
                    digit_map_body: "(0s| 00s|[1-7]xlxx|8lxxxxxxx)".into(),
                    duration_timer: None,
                })),
                second_event: Some(EventsDescriptor {
                    request_id: Some(2223),
                    event_list: vec![RequestedEvent {
                        pkgd_name: "dd/ce".into(),
                        stream_id: None,
                        event_action: Some(RequestedActions {
                            keep_active: None,
                            event_dm: Some(EventDm::DigitMapName("dialplan00".into())),
                            signals_descriptor: None,
                            notify_behaviour: Some(NotifyBehaviour::NeverNotify),
                            reset_events_descriptor: true,
                            second_event: None,
                        }),
                        ev_par_list: vec![].into(),
                    }],
                }),
                signals_descriptor: Some(vec![SignalRequest::Signal(signal.clone())].into()),
                notify_behaviour: Some(NotifyBehaviour::NotifyRegulated(Box::new(
                    RegulatedEmbeddedDescriptor {
                        second_event: None,
                        signals_descriptor: Some(vec![].into()),
                    },
                ))),
                reset_events_descriptor: false,
            }),
            ev_par_list: vec![PropertyParm {
                name: "strict".into(),
                value: vec!["state".into()].into(),
                extra_info: Some(ExtraInfo::Relation(Relation::UnequalTo)),
            }]
            .into(),
        }],
    };
    let amm = AmmRequest {
        termination_ids: vec![tid("11111111/00000000/00000000"), tid("$")].into(),
        descriptors: vec![
            AmmDescriptor::Media(media),
            AmmDescriptor::Events(events),
            AmmDescriptor::Signals(
                vec![SignalRequest::SeqSigList(SeqSigList {
                    id: 5,
                    signal_list: vec![signal],
                })]
                .into(),
            ),
            AmmDescriptor::DigitMap(DigitMapDescriptor {
                digit_map_name: Some("dialplan00".into()),
                digit_map_value: None,
            }),
            AmmDescriptor::Audit(AuditDescriptor {
                audit_token: Some(vec![AuditToken::Media, AuditToken::Stats]),
                audit_property_token: None,
            }),
            AmmDescriptor::Mux(MuxDescriptor {
                mux_type: MuxType::H221,
                term_list: vec![tid("mux/1")],
                non_standard_data: Some(NonStandardData {
                    non_standard_identifier: NonStandardIdentifier::Object(vec![1, 2, 840, 113549]),
                    data: vec![0, 1, 2, 255],
                }),
            }),
        ],
    };
    MegacoMessage {
        auth_header: Some(AuthenticationHeader {
            sec_parm_index: 0xDEAD_BEEF,
            seq_num: 1,
            ad: vec![0xAB; 12],
        }),
        mess: Message {
            version: 3,
            mid: Mid::Domain(DomainName {
                name: "mgc.example.net".into(),
                port: Some(2944),
            }),
            body: MessageBody::Transactions(
                vec![Transaction::Request(TransactionRequest {
                    transaction_id: 9999,
                    actions: vec![ActionRequest {
                        context_id: ContextId::CHOOSE,
                        context_request: Some(ContextRequest {
                            priority: Some(3),
                            emergency: Some(false),
                            topology_req: Some(vec![TopologyRequest {
                                termination_from: tid("a"),
                                termination_to: tid("b"),
                                topology_direction: TopologyDirection::Oneway,
                                stream_id: Some(2),
                                topology_direction_extension: Some(
                                    TopologyDirectionExtension::OnewayBoth,
                                ),
                            }]),
                            iepscallind: Some(true),
                            context_prop: None,
                            context_list: Some(vec![ContextId(1), ContextId::ALL]),
                        }),
                        context_attr_audit_req: None,
                        command_requests: vec![CommandRequest {
                            command: Command::Add(amm),
                            optional: true,
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

/// A reply with an error, a ServiceChange reply, an audit reply, a
/// pending, an ack range and a segment reply; v2 IPv6 mid.
pub fn replies() -> MegacoMessage {
    MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 2,
            mid: Mid::Ip6(Ip6Address {
                address: [0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
                port: None,
            }),
            body: MessageBody::Transactions(
                vec![
                    Transaction::Reply(TransactionReply {
                        transaction_id: 1,
                        imm_ack_required: true,
                        result: TransactionResult::Error(ErrorDescriptor {
                            error_code: 401,
                            error_text: Some("Protocol \"error\"".into()),
                        }),
                        segment_number: Some(2),
                        segmentation_complete: true,
                    }),
                    Transaction::Reply(TransactionReply {
                        transaction_id: u32::MAX,
                        imm_ack_required: false,
                        result: TransactionResult::ActionReplies(
                            vec![ActionReply {
                                context_id: ContextId::NULL,
                                error_descriptor: None,
                                context_reply: None,
                                command_reply: vec![
                                    CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                                        termination_ids: vec![tid("ROOT")].into(),
                                        service_change_result:
                                            ServiceChangeResult::ServiceChangeResParms(
                                                ServiceChangeResParm {
                                                    service_change_mgc_id: Some(Mid::Mtp(
                                                        "0A1B".into(),
                                                    )),
                                                    service_change_address: Some(
                                                        ServiceChangeAddress::PortNumber(55555),
                                                    ),
                                                    service_change_version: Some(2),
                                                    service_change_profile: Some(
                                                        ServiceChangeProfile {
                                                            profile_name: "resgw".into(),
                                                            version: 1,
                                                        },
                                                    ),
                                                    time_stamp: Some(TimeNotation {
                                                        date: "20260101".into(),
                                                        time: "10203040".into(),
                                                    }),
                                                },
                                            ),
                                    })),
                                    CommandReply::AuditValue(AuditReply::AuditResult(
                                        AuditResult {
                                            termination_id: tid("11111111/00001111/00000000"),
                                            termination_audit_result: vec![
                                                AuditReturnParameter::Packages(vec![
                                                    PackagesItem {
                                                        package_name: "nt".into(),
                                                        package_version: 1,
                                                    },
                                                ]),
                                                AuditReturnParameter::EmptyDescriptors(
                                                    AuditDescriptor::empty(),
                                                ),
                                                AuditReturnParameter::ObservedEvents(
                                                    ObservedEventsDescriptor {
                                                        request_id: 1,
                                                        observed_event_lst: vec![ObservedEvent {
                                                            event_name: "al/on".into(),
                                                            stream_id: None,
                                                            event_par_list: vec![],
                                                            time_notation: None,
                                                        }]
                                                        .into(),
                                                    },
                                                ),
                                            ],
                                        },
                                    )),
                                    CommandReply::Subtract(AmmsReply {
                                        termination_ids: vec![tid("*")].into(),
                                        termination_audit: None,
                                    }),
                                ]
                                .into(),
                            }]
                            .into(),
                        ),
                        segment_number: None,
                        segmentation_complete: false,
                    }),
                    Transaction::Pending(TransactionPending {
                        transaction_id: 300,
                    }),
                    Transaction::ResponseAck(vec![
                        TransactionAck {
                            first_ack: 1,
                            last_ack: Some(5),
                        },
                        TransactionAck {
                            first_ack: 8,
                            last_ack: None,
                        },
                    ]),
                    Transaction::SegmentReply(SegmentReply {
                        transaction_id: 4,
                        segment_number: 65535,
                        segmentation_complete: false,
                    }),
                ]
                .into(),
            ),
        },
    }
}

/// A message-level error from a device-named sender.
pub fn message_error() -> MegacoMessage {
    MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 1,
            mid: Mid::Device("gw/01".into()),
            body: MessageBody::Error(ErrorDescriptor {
                error_code: 0,
                error_text: None,
            }),
        },
    }
}

pub fn hand_built() -> Vec<(String, MegacoMessage)> {
    vec![
        ("add_request".into(), add_request()),
        ("replies".into(), replies()),
        ("message_error".into(), message_error()),
    ]
}
