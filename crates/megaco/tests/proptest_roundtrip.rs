//! Property tests: arbitrary valid v1, v2 and v3 messages round-trip
//! through every codec, and through a chain of all of them.
//!
//! Canonicalisations applied before comparing (see [`canon`]):
//! - audit tokens and signal notify-completion reasons travel as ASN.1
//!   BIT STRINGs in BER and PER, so their order and repetitions are not
//!   kept: both are sorted into bit order and deduplicated.
//!
//! Generator restrictions, each because the text encoding (RFC 3525
//! Annex B, as Erlang/OTP writes and reads it) cannot tell two model values
//! apart:
//! - KeepActive is a bare flag: only `None` and `Some(true)` are made.
//! - v1/v2 text Notify requests carry ObservedEvents *or* an Error (OTP's
//!   v1/v2 grammar), so a Notify request error is made in v3 only.
//! - An empty reply audit (`termination_audit: Some([])`) is written as no
//!   audit: replies get `None` or a non-empty list.
//! - Several termination ids in one command are written as a list, which
//!   exists from v3 on (version::check does not refuse it, the encoders
//!   do): v1/v2 commands get one id.
//! - `Audit { }` reads back as no tokens: token lists are absent or
//!   non-empty.
//! - ServiceChangeAddress and MgcIdToTry share one slot in OTP's text
//!   grammar (the decoder refuses both): at most one of them is made.

use megaco::ber::{self, BerConfig};
use megaco::model::*;
use megaco::native::{self, NativeConfig};
use megaco::per::{self, PerConfig};
use megaco::text;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

type S<T> = BoxedStrategy<T>;

fn opt<T: std::fmt::Debug + Clone + 'static>(s: S<T>) -> S<Option<T>> {
    option::of(s).boxed()
}

/// `Some(s)` from version `min` on, else always `None`.
fn since<T: std::fmt::Debug + Clone + 'static>(v: u8, min: u8, s: S<T>) -> S<Option<T>> {
    if v >= min {
        opt(s)
    } else {
        Just(None).boxed()
    }
}

fn flag_since(v: u8, min: u8) -> S<bool> {
    if v >= min {
        any::<bool>().boxed()
    } else {
        Just(false).boxed()
    }
}

fn word() -> S<String> {
    "[a-z][a-z0-9]{0,7}".boxed()
}

fn number() -> S<String> {
    (0u32..100_000).prop_map(|n| n.to_string()).boxed()
}

fn mid() -> S<Mid> {
    let port = option::of(1u16..);
    prop_oneof![
        (any::<[u8; 4]>(), port.clone())
            .prop_map(|(address, port)| Mid::Ip4(Ip4Address { address, port })),
        (any::<[u8; 16]>(), port.clone())
            .prop_map(|(address, port)| Mid::Ip6(Ip6Address { address, port })),
        ("[a-z][a-z0-9]{0,6}(\\.[a-z][a-z0-9]{0,6}){0,2}", port).prop_map(|(name, port)| {
            Mid::Domain(DomainName {
                name: name.into(),
                port,
            })
        }),
        "[a-z][a-z0-9]{0,6}(/[a-z][a-z0-9]{0,6}){0,2}".prop_map(|s| Mid::Device(s.into())),
        // PER carries the MTP address as its text octets, as OTP does, in an
        // OCTET STRING (SIZE(2..4)): only 4 hex digits fit.
        "[0-9A-F]{4}".prop_map(|s| Mid::Mtp(s.into())),
    ]
    .boxed()
}

fn termination_id() -> S<TerminationId> {
    let level = "[01]{8}";
    prop_oneof![
        Just(TerminationId::root()),
        (level, level, level).prop_map(|(a, b, c)| TerminationId::new(format!("{a}/{b}/{c}"))),
        (level, level, "[$*]").prop_map(|(a, b, w)| TerminationId::new(format!("{a}/{b}/{w}"))),
        (level, "[$*]").prop_map(|(a, w)| TerminationId::new(format!("{a}/{w}"))),
        "[$*]".prop_map(TerminationId::new),
    ]
    .boxed()
}

fn context_id() -> S<ContextId> {
    prop_oneof![
        Just(ContextId::NULL),
        Just(ContextId::CHOOSE),
        Just(ContextId::ALL),
        (1u32..0xFFFF_FFFE).prop_map(ContextId),
    ]
    .boxed()
}

fn error_descriptor() -> S<ErrorDescriptor> {
    (0u16..1000, option::of("[A-Za-z][A-Za-z0-9 ]{0,20}"))
        .prop_map(|(error_code, error_text)| ErrorDescriptor {
            error_code,
            error_text: error_text.map(Into::into),
        })
        .boxed()
}

fn time_notation() -> S<TimeNotation> {
    (
        "2[0-9]{3}[01][0-9][0-3][0-9]",
        "[0-2][0-9][0-5][0-9][0-5][0-9][0-9]{2}",
    )
        .prop_map(|(date, time)| TimeNotation {
            date: date.into(),
            time: time.into(),
        })
        .boxed()
}

/// A parameter value list with its relation, for a name with value type
/// given by `value`.
fn parm(name: &'static str, value: S<String>, v: u8) -> S<PropertyParm> {
    let _ = v;
    prop_oneof![
        4 => value.clone().prop_map(move |x| PropertyParm::new(name, x)),
        1 => (value.clone(), prop_oneof![
            Just(Relation::GreaterThan),
            Just(Relation::SmallerThan),
            Just(Relation::UnequalTo)
        ])
            .prop_map(move |(x, r)| PropertyParm {
                name: name.into(),
                value: smallvec![x.into()],
                extra_info: Some(ExtraInfo::Relation(r)),
            }),
        1 => (value.clone(), value.clone()).prop_map(move |(a, b)| PropertyParm {
            name: name.into(),
            value: smallvec![a.into(), b.into()],
            extra_info: Some(ExtraInfo::Range(true)),
        }),
        1 => (vec(value, 1..4), any::<bool>()).prop_map(move |(xs, all)| PropertyParm {
            name: name.into(),
            value: xs.into_iter().map(Into::into).collect(),
            extra_info: Some(ExtraInfo::Sublist(all)),
        }),
    ]
    .boxed()
}

/// A property of a termination state or local control.
fn property(v: u8) -> S<PropertyParm> {
    prop_oneof![
        parm("tdmc/gain", number(), v),
        parm(
            "tdmc/ec",
            prop_oneof![Just("on".to_string()), Just("off".to_string())].boxed(),
            v
        ),
        parm("nt/jit", number(), v),
    ]
    .boxed()
}

fn sdp_group() -> S<Vec<PropertyParm>> {
    (
        any::<[u8; 4]>(),
        1024u16..,
        prop_oneof![Just("0"), Just("8"), Just("18")],
    )
        .prop_map(|(ip, port, pt)| {
            vec![
                PropertyParm::new("v", "0"),
                PropertyParm::new(
                    "c",
                    format!("IN IP4 {}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3]),
                ),
                PropertyParm::new("m", format!("audio {port} RTP/AVP {pt}")),
            ]
        })
        .boxed()
}

fn local_remote() -> S<LocalRemoteDescriptor> {
    vec(sdp_group(), 1..3)
        .prop_map(|prop_grps| LocalRemoteDescriptor {
            prop_grps: prop_grps.into(),
        })
        .boxed()
}

fn stream_mode() -> S<StreamMode> {
    prop_oneof![
        Just(StreamMode::SendOnly),
        Just(StreamMode::RecvOnly),
        Just(StreamMode::SendRecv),
        Just(StreamMode::Inactive),
        Just(StreamMode::LoopBack),
    ]
    .boxed()
}

fn statistics_parameter(with_value: bool) -> S<StatisticsParameter> {
    let name = prop_oneof![
        Just("nt/dur"),
        Just("nt/os"),
        Just("nt/or"),
        Just("rtp/ps"),
        Just("rtp/pl"),
        Just("rtp/jit"),
    ];
    let value = if with_value {
        option::of(number().prop_map(|n| smallvec![n.into()])).boxed()
    } else {
        Just(None).boxed()
    };
    (name, value)
        .prop_map(|(n, stat_value)| StatisticsParameter {
            stat_name: n.into(),
            stat_value,
        })
        .boxed()
}

fn stream_parms(v: u8) -> S<StreamParms> {
    let lcd = (
        option::of(stream_mode()),
        option::of(any::<bool>()),
        option::of(any::<bool>()),
        vec(property(v), 0..3),
    )
        .prop_map(
            |(stream_mode, reserve_value, reserve_group, property_parms)| LocalControlDescriptor {
                stream_mode,
                reserve_value,
                reserve_group,
                property_parms,
            },
        )
        .prop_filter("empty LocalControl", |l| {
            l.stream_mode.is_some()
                || l.reserve_value.is_some()
                || l.reserve_group.is_some()
                || !l.property_parms.is_empty()
        });
    (
        option::of(lcd),
        option::of(local_remote()),
        option::of(local_remote()),
        since(v, 3, vec(statistics_parameter(true), 1..3).boxed()),
    )
        .prop_map(|(l, lo, re, st)| StreamParms {
            local_control_descriptor: l,
            local_descriptor: lo,
            remote_descriptor: re,
            statistics_descriptor: st,
        })
        // An empty stream is written as nothing.
        .prop_filter("empty stream", |p| {
            *p != StreamParms {
                local_control_descriptor: None,
                local_descriptor: None,
                remote_descriptor: None,
                statistics_descriptor: None,
            }
        })
        .boxed()
}

fn media(v: u8) -> S<MediaDescriptor> {
    let tsd = (
        vec(property(v), 0..3),
        option::of(prop_oneof![
            Just(EventBufferControl::Off),
            Just(EventBufferControl::LockStep)
        ]),
        option::of(prop_oneof![
            Just(ServiceState::Test),
            Just(ServiceState::OutOfSvc),
            Just(ServiceState::InSvc)
        ]),
    )
        .prop_map(|(property_parms, event_buffer_control, service_state)| {
            TerminationStateDescriptor {
                property_parms,
                event_buffer_control,
                service_state,
            }
        })
        // The text decoder refuses an empty TerminationState.
        .prop_filter("empty TerminationState", |t| {
            !t.property_parms.is_empty()
                || t.event_buffer_control.is_some()
                || t.service_state.is_some()
        });
    let streams = prop_oneof![
        stream_parms(v).prop_map(Streams::OneStream),
        vec(
            (1u16..100, stream_parms(v)).prop_map(|(stream_id, stream_parms)| StreamDescriptor {
                stream_id,
                stream_parms
            }),
            1..3
        )
        .prop_map(|v| Streams::MultiStream(v.into())),
    ];
    (option::of(tsd), option::of(streams))
        .prop_map(|(term_state_descr, streams)| MediaDescriptor {
            term_state_descr,
            streams,
        })
        // `Media { }` is no text (OTP's parsers refuse it too).
        .prop_filter("empty Media", |m| {
            m.term_state_descr.is_some() || m.streams.is_some()
        })
        .boxed()
}

/// An event name with a strategy for its parameters.
fn event_with_parms(v: u8) -> S<(String, Vec<PropertyParm>)> {
    let strict = prop_oneof![
        Just("exact".to_string()),
        Just("state".to_string()),
        // Unquoted text values read back lower case: no `failWrong`.
    ]
    .boxed();
    prop_oneof![
        (
            prop_oneof![Just("al/of"), Just("al/on")],
            vec(parm("strict", strict, v), 0..2)
        )
            .prop_map(|(n, p)| (n.to_string(), p)),
        Just(("al/fl".to_string(), vec![])),
        vec(parm("ds", word(), v), 0..2).prop_map(|p| ("dd/ce".to_string(), p)),
        vec(parm("th", number(), v), 0..2).prop_map(|p| ("nt/qualert".to_string(), p)),
        Just(("g/cause".to_string(), vec![])),
    ]
    .boxed()
}

fn signal(v: u8) -> S<Signal> {
    let name = prop_oneof![
        Just("cg/rt"),
        Just("cg/bt"),
        Just("al/ri"),
        Just("dg/d1"),
        Just("ct/ct")
    ];
    let nc = prop_oneof![
        Just(NotifyCompletion::OnTimeOut),
        Just(NotifyCompletion::OnInterruptByEvent),
        Just(NotifyCompletion::OnInterruptByNewSignalDescr),
        Just(NotifyCompletion::OtherReason),
    ];
    let nc = if v >= 3 {
        prop_oneof![nc, Just(NotifyCompletion::OnIteration)].boxed()
    } else {
        nc.boxed()
    };
    (
        name,
        option::of(1u16..100),
        option::of(prop_oneof![
            Just(SignalType::Brief),
            Just(SignalType::OnOff),
            Just(SignalType::TimeOut)
        ]),
        option::of(0u16..60000),
        option::of(vec(nc, 1..3)),
        keep_active(),
        (
            since(
                v,
                3,
                prop_oneof![
                    Just(SignalDirection::Internal),
                    Just(SignalDirection::External),
                    Just(SignalDirection::Both)
                ]
                .boxed(),
            ),
            since(v, 3, any::<u32>().boxed()),
            since(v, 3, any::<u16>().boxed()),
        ),
    )
        .prop_map(
            |(n, stream_id, sig_type, duration, notify_completion, keep_active, (d, r, i))| {
                let sig_par_list = if n == "al/ri" {
                    vec![PropertyParm::new("freq", "25")]
                } else {
                    vec![]
                };
                Signal {
                    signal_name: n.into(),
                    stream_id,
                    sig_type,
                    duration,
                    notify_completion,
                    keep_active,
                    sig_par_list,
                    direction: d,
                    request_id: r,
                    intersig_delay: i,
                }
            },
        )
        .boxed()
}

fn signals(v: u8) -> S<SignalsDescriptor> {
    let req = prop_oneof![
        3 => signal(v).prop_map(SignalRequest::Signal),
        1 => (any::<u16>(), vec(signal(v), 1..3))
            .prop_map(|(id, signal_list)| SignalRequest::SeqSigList(SeqSigList { id, signal_list })),
    ];
    vec(req, 0..3).prop_map(SignalsDescriptor::from_vec).boxed()
}

/// Signals embedded in an event: never empty (text would write an empty
/// embedded Signals descriptor as nothing).
fn embedded_signals(v: u8) -> S<SignalsDescriptor> {
    signals(v).prop_filter("empty", |s| !s.is_empty()).boxed()
}

fn digit_map_value(v: u8) -> S<DigitMapValue> {
    let body = prop_oneof![
        Just("(0s| 00s|[1-7]xxx|8xxxxxxx|#xxxxxxx|*xx|9l1xxxxxxxxxx|9011x.)"),
        Just("(xxxx)"),
        Just("([2-9]xxxxxx|0xx.|1xxxxxxxxxx)"),
    ];
    (
        option::of(0u8..100),
        option::of(0u8..100),
        option::of(0u8..100),
        body,
        since(v, 2, (0u8..100).boxed()),
    )
        .prop_map(|(s, sh, l, b, z)| DigitMapValue {
            start_timer: s,
            short_timer: sh,
            long_timer: l,
            digit_map_body: b.into(),
            duration_timer: z,
        })
        .boxed()
}

fn event_dm(v: u8) -> S<EventDm> {
    prop_oneof![
        (0u8..100).prop_map(|n| EventDm::DigitMapName(format!("dialplan{n:02}").into())),
        digit_map_value(v).prop_map(EventDm::DigitMapValue),
    ]
    .boxed()
}

fn notify_behaviour(v: u8, embedded: bool) -> S<Option<NotifyBehaviour>> {
    if v < 3 {
        return Just(None).boxed();
    }
    let mut choices = vec![
        Just(NotifyBehaviour::NotifyImmediate).boxed(),
        Just(NotifyBehaviour::NeverNotify).boxed(),
    ];
    if !embedded {
        choices.push(
            (
                option::of(second_events(v)),
                option::of(embedded_signals(v)),
            )
                .prop_map(|(second_event, signals_descriptor)| {
                    NotifyBehaviour::NotifyRegulated(Box::new(RegulatedEmbeddedDescriptor {
                        second_event,
                        signals_descriptor,
                    }))
                })
                .boxed(),
        );
    }
    option::of(proptest::strategy::Union::new(choices)).boxed()
}

fn second_events(v: u8) -> S<EventsDescriptor> {
    let actions = (
        keep_active(),
        option::of(event_dm(v)),
        option::of(embedded_signals(v)),
        notify_behaviour(v, true),
        flag_since(v, 3),
    )
        .prop_map(
            |(keep_active, event_dm, signals_descriptor, nb, reset)| RequestedActions {
                // Text: an embedded event has KeepActive or signals, not both.
                keep_active: if signals_descriptor.is_some() {
                    None
                } else {
                    keep_active
                },
                event_dm,
                signals_descriptor,
                notify_behaviour: nb,
                reset_events_descriptor: reset,
                second_event: None,
            },
        )
        // Actions with nothing in them are written as none.
        .prop_filter("empty actions", |a| {
            a.keep_active.is_some()
                || a.event_dm.is_some()
                || a.signals_descriptor.is_some()
                || a.notify_behaviour.is_some()
                || a.reset_events_descriptor
        });
    let ev = (
        event_with_parms(v),
        option::of(1u16..100),
        option::of(actions),
    )
        .prop_map(
            |((pkgd_name, ev_par_list), stream_id, event_action)| RequestedEvent {
                pkgd_name: pkgd_name.into(),
                stream_id,
                event_action,
                ev_par_list: ev_par_list.into(),
            },
        );
    (any::<u32>(), vec(ev, 1..3))
        .prop_map(|(id, event_list)| EventsDescriptor {
            request_id: Some(id),
            event_list,
        })
        .boxed()
}

fn events(v: u8) -> S<EventsDescriptor> {
    let actions = (
        keep_active(),
        option::of(event_dm(v)),
        option::of(second_events(v)),
        option::of(embedded_signals(v)),
        notify_behaviour(v, false),
        flag_since(v, 3),
    )
        .prop_map(
            |(keep_active, event_dm, second_event, signals_descriptor, nb, reset)| {
                RequestedActions {
                    keep_active,
                    event_dm,
                    second_event,
                    signals_descriptor,
                    notify_behaviour: nb,
                    reset_events_descriptor: reset,
                }
            },
        )
        // Actions with nothing in them are written as none.
        .prop_filter("empty actions", |a| {
            a.keep_active.is_some()
                || a.event_dm.is_some()
                || a.signals_descriptor.is_some()
                || a.notify_behaviour.is_some()
                || a.reset_events_descriptor
        });
    let ev = (
        event_with_parms(v),
        option::of(1u16..100),
        option::of(actions),
    )
        .prop_map(
            |((pkgd_name, ev_par_list), stream_id, event_action)| RequestedEvent {
                pkgd_name: pkgd_name.into(),
                stream_id,
                event_action,
                ev_par_list: ev_par_list.into(),
            },
        );
    // Text writes `Events = id { … }` or a bare `Events`: an id goes with
    // events.
    (any::<u32>(), vec(ev, 1..3))
        .prop_map(|(id, event_list)| EventsDescriptor {
            request_id: Some(id),
            event_list,
        })
        .boxed()
}

fn event_buffer(v: u8) -> S<EventBufferDescriptor> {
    vec(
        (event_with_parms(v), option::of(1u16..100)).prop_map(
            |((event_name, event_par_list), stream_id)| EventSpec {
                event_name: event_name.into(),
                stream_id,
                event_par_list,
            },
        ),
        0..3,
    )
    .boxed()
}

fn digit_map(v: u8) -> S<DigitMapDescriptor> {
    prop_oneof![
        (0u8..100).prop_map(|n| DigitMapDescriptor {
            digit_map_name: Some(format!("dialplan{n:02}").into()),
            digit_map_value: None,
        }),
        (
            option::of((0u8..100).prop_map(|n| CompactString::from(format!("dialplan{n:02}")))),
            digit_map_value(v)
        )
            .prop_map(|(digit_map_name, value)| DigitMapDescriptor {
                digit_map_name,
                digit_map_value: Some(value),
            }),
    ]
    .boxed()
}

fn audit_token() -> S<AuditToken> {
    prop_oneof![
        Just(AuditToken::Mux),
        Just(AuditToken::Modem),
        Just(AuditToken::Media),
        Just(AuditToken::Events),
        Just(AuditToken::Signals),
        Just(AuditToken::DigitMap),
        Just(AuditToken::Stats),
        Just(AuditToken::ObservedEvents),
        Just(AuditToken::Packages),
        Just(AuditToken::EventBuffer),
    ]
    .boxed()
}

fn ind_audit_parameter(v: u8) -> S<IndAuditParameter> {
    // v2 text writes an audited event with its request id and an audited
    // signal without a stream.
    let ev = (any::<u32>().prop_map(Some), event_with_parms(v), Just(None)).prop_map(
        |(request_id, (pkgd_name, _), stream_id)| {
            IndAuditParameter::Events(IndAudEventsDescriptor {
                request_id,
                pkgd_name: pkgd_name.into(),
                stream_id,
            })
        },
    );
    let sig = (
        signal(v),
        since(v, 3, (1u16..100).boxed()),
        since(v, 3, any::<u32>().boxed()),
    )
        .prop_map(|(s, stream_id, signal_request_id)| {
            IndAuditParameter::Signals(IndAudSignalsDescriptor::Signal(IndAudSignal {
                signal_name: s.signal_name,
                stream_id,
                signal_request_id,
            }))
        });
    let stats = statistics_parameter(false).prop_map(|s| {
        IndAuditParameter::Statistics(IndAudStatisticsDescriptor {
            stat_name: s.stat_name,
        })
    });
    let pkg = (prop_oneof![Just("al"), Just("nt"), Just("rtp")], 1u8..3).prop_map(|(p, n)| {
        IndAuditParameter::Packages(IndAudPackagesDescriptor {
            package_name: p.into(),
            package_version: n,
        })
    });
    let lcd = (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        option::of(vec(
            prop_oneof![Just("tdmc/gain"), Just("tdmc/ec"), Just("nt/jit")].prop_map(|n| {
                IndAudPropertyParm {
                    name: n.into(),
                    property_parms: None,
                }
            }),
            1..3,
        )),
        since(v, 3, stream_mode()),
    )
        .prop_map(|(m, rv, rg, p, sel)| IndAudLocalControlDescriptor {
            stream_mode: m && sel.is_none(),
            reserve_value: rv,
            reserve_group: rg,
            property_parms: p,
            stream_mode_sel: sel,
        })
        .prop_filter("empty", |l| {
            l.stream_mode
                || l.reserve_value
                || l.reserve_group
                || l.property_parms.is_some()
                || l.stream_mode_sel.is_some()
        });
    // v2 text audits the termination state or the streams, not both.
    let media = (any::<bool>(), option::of(lcd))
        .prop_map(move |(tsd, lcd)| {
            let tsd = tsd && (v >= 3 || lcd.is_none());
            IndAuditParameter::Media(IndAudMediaDescriptor {
                term_state_descr: tsd.then(|| IndAudTerminationStateDescriptor {
                    property_parms: vec![],
                    event_buffer_control: true,
                    service_state: false,
                    service_state_sel: None,
                }),
                streams: lcd.map(|l| {
                    IndAudStreams::OneStream(IndAudStreamParms {
                        local_control_descriptor: Some(l),
                        local_descriptor: None,
                        remote_descriptor: None,
                        statistics_descriptor: None,
                    })
                }),
            })
        })
        .prop_filter("empty", |m| {
            !matches!(
                m,
                IndAuditParameter::Media(IndAudMediaDescriptor {
                    term_state_descr: None,
                    streams: None
                })
            )
        });
    let dm = (0u8..100).prop_map(|n| {
        IndAuditParameter::DigitMap(IndAudDigitMapDescriptor {
            digit_map_name: Some(format!("dialplan{n:02}").into()),
        })
    });
    prop_oneof![ev, sig, stats, pkg, media, dm].boxed()
}

fn audit_descriptor(v: u8) -> S<AuditDescriptor> {
    (
        option::of(vec(audit_token(), 1..4)),
        since(v, 2, vec(ind_audit_parameter(v), 1..3).boxed()),
    )
        .prop_map(|(audit_token, audit_property_token)| AuditDescriptor {
            audit_token,
            audit_property_token,
        })
        .boxed()
}

fn modem() -> S<ModemDescriptor> {
    (
        vec(
            prop_oneof![
                Just(ModemType::V18),
                Just(ModemType::V22),
                Just(ModemType::V22bis),
                Just(ModemType::V32),
                Just(ModemType::V32bis),
                Just(ModemType::V34),
                Just(ModemType::V90),
                Just(ModemType::V91),
                Just(ModemType::SynchIsdn),
            ],
            1..3,
        ),
        vec(parm("nt/jit", number(), 1), 0..2),
    )
        .prop_map(|(mtl, mpl)| ModemDescriptor {
            mtl,
            mpl,
            non_standard_data: None,
        })
        .boxed()
}

fn mux(v: u8) -> S<MuxDescriptor> {
    let ty = prop_oneof![
        Just(MuxType::H221),
        Just(MuxType::H223),
        Just(MuxType::H226),
        Just(MuxType::V76),
    ];
    let ty = if v >= 2 {
        prop_oneof![ty, Just(MuxType::Nx64k)].boxed()
    } else {
        ty.boxed()
    };
    (ty, vec(termination_id(), 1..3))
        .prop_map(|(mux_type, term_list)| MuxDescriptor {
            mux_type,
            term_list,
            non_standard_data: None,
        })
        .boxed()
}

fn amm_descriptor(v: u8) -> S<AmmDescriptor> {
    let mut choices = vec![
        mux(v).prop_map(AmmDescriptor::Mux).boxed(),
        media(v).prop_map(AmmDescriptor::Media).boxed(),
        events(v).prop_map(AmmDescriptor::Events).boxed(),
        event_buffer(v).prop_map(AmmDescriptor::EventBuffer).boxed(),
        signals(v).prop_map(AmmDescriptor::Signals).boxed(),
        digit_map(v).prop_map(AmmDescriptor::DigitMap).boxed(),
        audit_descriptor(v).prop_map(AmmDescriptor::Audit).boxed(),
    ];
    // Modem was deprecated: only v1 text carries it.
    if v == 1 {
        choices.push(modem().prop_map(AmmDescriptor::Modem).boxed());
    }
    if v >= 3 {
        choices.push(
            vec(statistics_parameter(true), 1..3)
                .prop_map(AmmDescriptor::Statistics)
                .boxed(),
        );
    }
    proptest::strategy::Union::new(choices).boxed()
}

fn observed_events(v: u8) -> S<ObservedEventsDescriptor> {
    let ev = (
        event_with_parms(v),
        option::of(1u16..100),
        option::of(time_notation()),
    )
        .prop_map(
            |((event_name, event_par_list), stream_id, time_notation)| ObservedEvent {
                event_name: event_name.into(),
                stream_id,
                event_par_list,
                time_notation,
            },
        );
    (any::<u32>(), vec(ev, 1..3))
        .prop_map(
            |(request_id, observed_event_lst)| ObservedEventsDescriptor {
                request_id,
                observed_event_lst: observed_event_lst.into(),
            },
        )
        .boxed()
}

fn service_change_parm(v: u8) -> S<ServiceChangeParm> {
    let method = prop_oneof![
        Just(ServiceChangeMethod::Failover),
        Just(ServiceChangeMethod::Forced),
        Just(ServiceChangeMethod::Graceful),
        Just(ServiceChangeMethod::Restart),
        Just(ServiceChangeMethod::Disconnected),
        Just(ServiceChangeMethod::HandOff),
    ];
    let address = prop_oneof![
        any::<u16>().prop_map(ServiceChangeAddress::PortNumber),
        (any::<[u8; 4]>(), option::of(1u16..))
            .prop_map(|(address, port)| ServiceChangeAddress::Ip4(Ip4Address { address, port })),
    ];
    let profile =
        ("[a-z][a-z0-9]{0,7}", 1u8..10).prop_map(|(profile_name, version)| ServiceChangeProfile {
            profile_name: profile_name.into(),
            version,
        });
    let reason = prop_oneof![
        Just("901 mg col boot"),
        Just("902 Warm Boot"),
        Just("905 Termination taken out of service"),
    ];
    (
        method,
        option::of(address),
        option::of(1u8..=v),
        option::of(profile),
        reason,
        option::of(any::<u32>()),
        option::of(mid()),
        option::of(time_notation()),
        since(
            v,
            2,
            audit_descriptor(v)
                .prop_filter("empty", |a| *a != AuditDescriptor::empty())
                .boxed(),
        ),
        flag_since(v, 3),
    )
        .prop_map(
            |(m, a, ver, p, r, d, mgc, ts, info, inc)| ServiceChangeParm {
                service_change_method: m,
                service_change_address: if mgc.is_some() { None } else { a },
                service_change_version: ver,
                service_change_profile: p,
                service_change_reason: vec![r.into()].into(),
                service_change_delay: d,
                service_change_mgc_id: mgc,
                time_stamp: ts,
                non_standard_data: None,
                service_change_info: info,
                service_change_incomplete_flag: inc,
            },
        )
        .boxed()
}

/// Several termination ids in one command exist from v3 on.
fn terms(v: u8) -> S<Vec<TerminationId>> {
    vec(termination_id(), 1..if v >= 3 { 3 } else { 2 }).boxed()
}

fn command(v: u8) -> S<Command> {
    let amm =
        (terms(v), vec(amm_descriptor(v), 0..3)).prop_map(|(termination_ids, descriptors)| {
            AmmRequest {
                termination_ids: termination_ids.into(),
                descriptors,
            }
        });
    // v3: a list of terminations, the first also in `termination_id`.
    let audit = (
        termination_id(),
        audit_descriptor(v),
        since(v, 3, vec(termination_id(), 1..3).boxed()),
    )
        .prop_map(|(t, a, rest)| AuditRequest {
            termination_id: t.clone(),
            audit_descriptor: a,
            termination_id_list: rest.map(|mut r| {
                r.insert(0, t);
                r
            }),
        });
    prop_oneof![
        amm.clone().prop_map(Command::Add),
        amm.clone().prop_map(Command::Move),
        amm.prop_map(Command::Modify),
        (terms(v), option::of(audit_descriptor(v))).prop_map(
            |(termination_ids, audit_descriptor)| {
                Command::Subtract(SubtractRequest {
                    termination_ids: termination_ids.into(),
                    audit_descriptor,
                })
            }
        ),
        audit.clone().prop_map(Command::AuditValue),
        audit.prop_map(Command::AuditCapability),
        (
            terms(v),
            observed_events(v),
            since(v, 3, error_descriptor())
        )
            .prop_map(|(termination_ids, oe, error_descriptor)| Command::Notify(
                NotifyRequest {
                    termination_ids: termination_ids.into(),
                    observed_events_descriptor: oe,
                    error_descriptor,
                }
            )),
        (terms(v), service_change_parm(v)).prop_map(|(termination_ids, p)| {
            Command::ServiceChange(Box::new(ServiceChangeRequest {
                termination_ids: termination_ids.into(),
                service_change_parms: p,
            }))
        }),
    ]
    .boxed()
}

fn audit_return(v: u8) -> S<AuditReturnParameter> {
    prop_oneof![
        mux(v).prop_map(AuditReturnParameter::Mux),
        // EmptyDescriptors is not made: text reads a bare `Events` back as
        // an empty Events descriptor.
        error_descriptor().prop_map(AuditReturnParameter::Error),
        media(v).prop_map(AuditReturnParameter::Media),
        events(v).prop_map(AuditReturnParameter::Events),
        signals(v).prop_map(AuditReturnParameter::Signals),
        digit_map(v).prop_map(AuditReturnParameter::DigitMap),
        observed_events(v).prop_map(AuditReturnParameter::ObservedEvents),
        vec(statistics_parameter(true), 1..3).prop_map(AuditReturnParameter::Statistics),
        vec(
            (
                prop_oneof![Just("al"), Just("nt"), Just("rtp"), Just("g")],
                1u8..3
            )
                .prop_map(|(p, n)| PackagesItem {
                    package_name: p.into(),
                    package_version: n,
                }),
            1..3
        )
        .prop_map(AuditReturnParameter::Packages),
    ]
    .boxed()
}

fn command_reply(v: u8) -> S<CommandReply> {
    let amms = (terms(v), option::of(vec(audit_return(v), 1..3))).prop_map(
        |(termination_ids, termination_audit)| AmmsReply {
            termination_ids: termination_ids.into(),
            termination_audit,
        },
    );
    let term_list = if v >= 3 {
        (vec(termination_id(), 2..4), vec(audit_return(v), 0..3))
            .prop_map(|(l, r)| {
                AuditReply::AuditResultTermList(TermListAuditResult {
                    termination_id_list: l,
                    termination_audit_result: r,
                })
            })
            .boxed()
    } else {
        error_descriptor().prop_map(AuditReply::Error).boxed()
    };
    let audit = prop_oneof![
        term_list,
        terms(v).prop_map(AuditReply::ContextAuditResult),
        error_descriptor().prop_map(AuditReply::Error),
        (termination_id(), vec(audit_return(v), 0..3)).prop_map(|(t, r)| {
            AuditReply::AuditResult(AuditResult {
                termination_id: t,
                termination_audit_result: r,
            })
        }),
    ];
    let sc_res = prop_oneof![
        error_descriptor().prop_map(ServiceChangeResult::ErrorDescriptor),
        (
            option::of(mid()),
            option::of(1u8..=v),
            option::of(time_notation())
        )
            .prop_map(|(mgc, ver, ts)| ServiceChangeResult::ServiceChangeResParms(
                ServiceChangeResParm {
                    service_change_mgc_id: mgc,
                    service_change_address: None,
                    service_change_version: ver,
                    service_change_profile: None,
                    time_stamp: ts,
                }
            )),
    ];
    prop_oneof![
        amms.clone().prop_map(CommandReply::Add),
        amms.clone().prop_map(CommandReply::Move),
        amms.clone().prop_map(CommandReply::Modify),
        amms.prop_map(CommandReply::Subtract),
        audit.clone().prop_map(CommandReply::AuditValue),
        audit.prop_map(CommandReply::AuditCapability),
        (terms(v), option::of(error_descriptor())).prop_map(
            |(termination_ids, error_descriptor)| {
                CommandReply::Notify(NotifyReply {
                    termination_ids: termination_ids.into(),
                    error_descriptor,
                })
            }
        ),
        (terms(v), sc_res).prop_map(|(termination_ids, r)| {
            CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                termination_ids: termination_ids.into(),
                service_change_result: r,
            }))
        }),
    ]
    .boxed()
}

fn context_request(v: u8) -> S<ContextRequest> {
    (
        option::of(0u8..16),
        if v >= 3 {
            option::of(any::<bool>()).boxed()
        } else {
            option::of(Just(true)).boxed()
        },
        since(v, 3, any::<bool>().boxed()),
        option::of(vec(topology(v), 1..3)),
        since(v, 3, vec(property(v), 1..3).boxed()),
    )
        .prop_map(
            |(priority, emergency, iepscallind, topology_req, context_prop)| ContextRequest {
                priority,
                emergency,
                topology_req,
                iepscallind,
                context_prop,
                context_list: None,
            },
        )
        .prop_filter("empty context request", |c| {
            c.priority.is_some()
                || c.context_prop.is_some()
                || c.emergency.is_some()
                || c.iepscallind.is_some()
                || c.topology_req.is_some()
        })
        .boxed()
}

fn topology(v: u8) -> S<TopologyRequest> {
    (
        termination_id(),
        termination_id(),
        prop_oneof![
            Just(TopologyDirection::Bothway),
            Just(TopologyDirection::Isolate),
            Just(TopologyDirection::Oneway)
        ],
        since(v, 2, (1u16..100).boxed()),
        since(
            v,
            3,
            prop_oneof![
                Just(TopologyDirectionExtension::OnewayExternal),
                Just(TopologyDirectionExtension::OnewayBoth)
            ]
            .boxed(),
        ),
    )
        .prop_map(|(from, to, dir, stream_id, ext)| TopologyRequest {
            termination_from: from,
            termination_to: to,
            topology_direction: dir,
            stream_id,
            topology_direction_extension: ext,
        })
        .boxed()
}

fn context_audit(v: u8) -> S<ContextAttrAuditRequest> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        flag_since(v, 3),
        since(v, 3, (0u8..16).boxed()),
        since(v, 3, any::<bool>().boxed()),
        since(v, 3, any::<bool>().boxed()),
    )
        .prop_map(move |(t, e, p, i, sp, se, si)| ContextAttrAuditRequest {
            topology: t,
            emergency: e,
            priority: p,
            iepscallind: i,
            context_prop_aud: None,
            select_priority: sp,
            select_emergency: se,
            select_iepscallind: si,
            // Text writes AND, the default, as nothing: only OR is made.
            select_logic: (v >= 3 && t && (sp.is_some() || se.is_some()))
                .then_some(SelectLogic::Or),
        })
        .prop_filter("empty context audit", |c| {
            c.topology || c.emergency || c.priority || c.iepscallind
        })
        .boxed()
}

fn transaction(v: u8) -> S<Transaction> {
    let action = (
        context_id(),
        option::of(context_request(v)),
        since(v, 2, context_audit(v)),
        vec(
            (command(v), any::<bool>(), any::<bool>()).prop_map(
                |(command, optional, wildcard_return)| CommandRequest {
                    command,
                    optional,
                    wildcard_return,
                },
            ),
            1..3,
        ),
    )
        .prop_map(
            |(context_id, context_request, context_attr_audit_req, command_requests)| {
                ActionRequest {
                    context_id,
                    context_request,
                    context_attr_audit_req,
                    command_requests: command_requests.into(),
                }
            },
        );
    let action_reply = (
        context_id(),
        option::of(error_descriptor()),
        option::of(context_request(v)),
        // v1/v2 text needs at least one command reply in an action reply.
        vec(command_reply(v), usize::from(v < 3)..3),
    )
        .prop_map(
            |(context_id, error_descriptor, context_reply, command_reply)| ActionReply {
                context_id,
                error_descriptor,
                context_reply,
                command_reply: command_reply.into(),
            },
        );
    let segment = if v >= 3 {
        option::of((any::<u16>(), any::<bool>())).boxed()
    } else {
        Just(None).boxed()
    };
    let reply = (
        any::<u32>(),
        any::<bool>(),
        prop_oneof![
            error_descriptor().prop_map(TransactionResult::Error),
            vec(action_reply, 1..3).prop_map(|v| TransactionResult::ActionReplies(v.into())),
        ],
        segment,
    )
        .prop_map(|(transaction_id, imm_ack_required, result, seg)| {
            Transaction::Reply(TransactionReply {
                transaction_id,
                imm_ack_required,
                result,
                segment_number: seg.map(|s| s.0),
                segmentation_complete: seg.is_some_and(|s| s.1),
            })
        });
    let mut choices = vec![
        (
            4,
            (any::<u32>(), vec(action, 1..3))
                .prop_map(|(transaction_id, actions)| {
                    Transaction::Request(TransactionRequest {
                        transaction_id,
                        actions: actions.into(),
                    })
                })
                .boxed(),
        ),
        (4, reply.boxed()),
        (
            1,
            any::<u32>()
                .prop_map(|transaction_id| {
                    Transaction::Pending(TransactionPending { transaction_id })
                })
                .boxed(),
        ),
        (
            1,
            vec(
                (any::<u32>(), option::of(any::<u32>())).prop_map(|(first_ack, last_ack)| {
                    TransactionAck {
                        first_ack,
                        last_ack,
                    }
                }),
                1..3,
            )
            .prop_map(Transaction::ResponseAck)
            .boxed(),
        ),
    ];
    if v >= 3 {
        choices.push((
            1,
            (any::<u32>(), any::<u16>(), any::<bool>())
                .prop_map(|(transaction_id, segment_number, segmentation_complete)| {
                    Transaction::SegmentReply(SegmentReply {
                        transaction_id,
                        segment_number,
                        segmentation_complete,
                    })
                })
                .boxed(),
        ));
    }
    proptest::strategy::Union::new_weighted(choices).boxed()
}

fn message_v(v: u8) -> S<MegacoMessage> {
    let body = prop_oneof![
        1 => error_descriptor().prop_map(MessageBody::Error),
        6 => vec(transaction(v), 1..3).prop_map(|v| MessageBody::Transactions(v.into())),
    ];
    let auth = (any::<u32>(), any::<u32>(), vec(any::<u8>(), 12..=32)).prop_map(
        |(sec_parm_index, seq_num, ad)| AuthenticationHeader {
            sec_parm_index,
            seq_num,
            ad,
        },
    );
    (option::of(auth), mid(), body)
        .prop_map(move |(auth_header, mid, body)| MegacoMessage {
            auth_header,
            mess: Message {
                version: v,
                mid,
                body,
            },
        })
        .boxed()
}

/// An arbitrary valid message of version 1, 2 or 3.
fn message() -> S<MegacoMessage> {
    prop_oneof![message_v(1), message_v(2), message_v(3)].boxed()
}

/// Puts the bit-string-carried lists into bit order (see the module docs).
fn canon(msg: &MegacoMessage) -> MegacoMessage {
    // Walk the message through its JSON form: every `audit_token` and
    // `notify_completion` array is sorted by the variant's bit position.
    let mut j = serde_json::to_value(msg).unwrap();
    fn walk(j: &mut serde_json::Value) {
        match j {
            serde_json::Value::Object(m) => {
                for (k, val) in m.iter_mut() {
                    if k == "audit_token" || k == "notify_completion" {
                        if let serde_json::Value::Array(a) = val {
                            let mut items: Vec<(usize, serde_json::Value)> =
                                a.drain(..).map(|x| (bit_of(&x), x)).collect();
                            items.sort_by_key(|p| p.0);
                            items.dedup_by_key(|p| p.0);
                            a.extend(items.into_iter().map(|p| p.1));
                        }
                    } else {
                        walk(val);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    fn bit_of(x: &serde_json::Value) -> usize {
        let s = x.as_str().unwrap_or_default();
        const ORDER: &[&str] = &[
            "mux",
            "modem",
            "media",
            "events",
            "signals",
            "digit_map",
            "stats",
            "observed_events",
            "packages",
            "event_buffer",
            "on_time_out",
            "on_interrupt_by_event",
            "on_interrupt_by_new_signal_descr",
            "other_reason",
            "on_iteration",
        ];
        ORDER.iter().position(|o| *o == s).unwrap_or(usize::MAX)
    }
    walk(&mut j);
    serde_json::from_value(j).unwrap()
}

fn roundtrip_all(msg: &MegacoMessage) -> Result<(), TestCaseError> {
    megaco::version::check(msg).map_err(|e| TestCaseError::fail(format!("generator: {e}")))?;
    let want = canon(msg);

    for (style, bytes) in [
        ("pretty", text::encode_pretty(msg)),
        ("compact", text::encode_compact(msg)),
    ] {
        let bytes = bytes.map_err(|e| TestCaseError::fail(format!("{style} encode: {e}")))?;
        let got = text::decode(&bytes).map_err(|e| {
            TestCaseError::fail(format!(
                "{style} decode: {e}\n{}",
                String::from_utf8_lossy(&bytes)
            ))
        })?;
        prop_assert_eq!(
            canon(&got),
            want.clone(),
            "text {}:\n{}",
            style,
            String::from_utf8_lossy(&bytes)
        );
    }
    for (name, cfg) in [
        ("ber standard", BerConfig::default()),
        ("ber otp", BerConfig::otp()),
    ] {
        let bytes = ber::encode(msg, &cfg)
            .map_err(|e| TestCaseError::fail(format!("{name} encode: {e}")))?;
        let got = ber::decode(&bytes, &cfg)
            .map_err(|e| TestCaseError::fail(format!("{name} decode: {e}")))?;
        prop_assert_eq!(canon(&got), want.clone(), "{}", name);
    }
    let cfg = PerConfig::default();
    let bytes =
        per::encode(msg, &cfg).map_err(|e| TestCaseError::fail(format!("per encode: {e}")))?;
    let got =
        per::decode(&bytes, &cfg).map_err(|e| TestCaseError::fail(format!("per decode: {e}")))?;
    prop_assert_eq!(canon(&got), want.clone(), "per");
    for cfg in NativeConfig::ALL {
        let bytes = native::encode(msg, &cfg)
            .map_err(|e| TestCaseError::fail(format!("native {cfg:?} encode: {e}")))?;
        let got = native::decode(&bytes, &cfg)
            .map_err(|e| TestCaseError::fail(format!("native {cfg:?} decode: {e}")))?;
        // Native carries the model as is: no canonicalisation.
        prop_assert_eq!(&got, msg, "native {:?}", cfg);
    }
    Ok(())
}

fn chain(msg: &MegacoMessage) -> Result<(), TestCaseError> {
    let want = canon(msg);
    let fail = |what: &str, e: &dyn std::fmt::Display| TestCaseError::fail(format!("{what}: {e}"));
    let bytes = text::encode_pretty(msg).map_err(|e| fail("text encode", &e))?;
    let t = text::decode(&bytes).map_err(|e| fail("text decode", &e))?;
    let ber_cfg = BerConfig::default();
    let bytes = ber::encode(&t, &ber_cfg).map_err(|e| fail("ber encode", &e))?;
    let b = ber::decode(&bytes, &ber_cfg).map_err(|e| fail("ber decode", &e))?;
    let per_cfg = PerConfig::default();
    let bytes = per::encode(&b, &per_cfg).map_err(|e| fail("per encode", &e))?;
    let p = per::decode(&bytes, &per_cfg).map_err(|e| fail("per decode", &e))?;
    let bytes =
        native::encode(&p, &NativeConfig::COMPACT).map_err(|e| fail("native encode", &e))?;
    let n =
        native::decode(&bytes, &NativeConfig::COMPACT).map_err(|e| fail("native decode", &e))?;
    let bytes = text::encode_compact(&n).map_err(|e| fail("text encode back", &e))?;
    let back = text::decode(&bytes).map_err(|e| fail("text decode back", &e))?;
    prop_assert_eq!(canon(&back), want);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, max_shrink_iters: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_codec_round_trips(msg in message()) {
        roundtrip_all(&msg)?;
    }

    #[test]
    fn text_ber_per_native_text_chain(msg in message()) {
        chain(&msg)?;
    }
}

#[test]
fn canon_sorts_bit_string_lists_into_bit_order() {
    let msg = |tokens: Vec<AuditToken>| MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 1,
            mid: Mid::Device("mg".into()),
            body: MessageBody::Transactions(
                vec![Transaction::Request(TransactionRequest {
                    transaction_id: 1,
                    actions: vec![ActionRequest {
                        context_id: ContextId::NULL,
                        context_request: None,
                        context_attr_audit_req: None,
                        command_requests: vec![CommandRequest {
                            command: Command::AuditValue(AuditRequest {
                                termination_id: TerminationId::root(),
                                audit_descriptor: AuditDescriptor {
                                    audit_token: Some(tokens),
                                    audit_property_token: None,
                                },
                                termination_id_list: None,
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
    };
    use AuditToken::*;
    let written = msg(vec![Packages, Media, Mux, Media]);
    assert_eq!(canon(&written), msg(vec![Mux, Media, Packages]));
    // BER carries the tokens as a bit string: it reads them back in bit order.
    let cfg = BerConfig::default();
    let back = ber::decode(&ber::encode(&written, &cfg).unwrap(), &cfg).unwrap();
    assert_eq!(back, msg(vec![Mux, Media, Packages]));
}

/// Text writes KeepActive as a bare flag: `Some(false)` and `None` are the
/// same text, so the generator only makes `None` and `Some(true)`.
fn keep_active() -> S<Option<bool>> {
    option::of(Just(true)).boxed()
}

/// Regression: a segment reply followed by another transaction used to be
/// written without a separator (`MessageSegment = 0/0Transaction = …`) and
/// could not be read back.
#[test]
fn segment_reply_then_transaction_round_trips_in_text() {
    let msg = MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 3,
            mid: Mid::Ip4(Ip4Address {
                address: [0, 0, 0, 0],
                port: None,
            }),
            body: MessageBody::Transactions(
                vec![
                    Transaction::SegmentReply(SegmentReply {
                        transaction_id: 0,
                        segment_number: 0,
                        segmentation_complete: false,
                    }),
                    Transaction::Request(TransactionRequest {
                        transaction_id: 0,
                        actions: vec![ActionRequest {
                            context_id: ContextId::NULL,
                            context_request: None,
                            context_attr_audit_req: None,
                            command_requests: vec![CommandRequest {
                                command: Command::Add(AmmRequest {
                                    termination_ids: vec![TerminationId::root()].into(),
                                    descriptors: vec![],
                                }),
                                optional: false,
                                wildcard_return: false,
                            }]
                            .into(),
                        }]
                        .into(),
                    }),
                ]
                .into(),
            ),
        },
    };
    for bytes in [
        text::encode_pretty(&msg).unwrap(),
        text::encode_compact(&msg).unwrap(),
    ] {
        assert_eq!(
            text::decode(&bytes).unwrap(),
            msg,
            "{}",
            String::from_utf8_lossy(&bytes)
        );
    }
    roundtrip_all(&msg).unwrap();
    chain(&msg).unwrap();
}
