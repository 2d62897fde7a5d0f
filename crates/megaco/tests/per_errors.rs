//! What the PER encoder refuses, and how the decoder treats extension
//! additions its version's module does not know.

use std::path::Path;

use megaco::codec::{DecodeErrorKind, Limit};
use megaco::model::*;
use megaco::per::{self, PerConfig};
use megaco::EncodeError;

fn message(version: u8, t: Transaction) -> MegacoMessage {
    MegacoMessage {
        auth_header: None,
        mess: Message {
            version,
            mid: Mid::Ip4(Ip4Address {
                address: [10, 0, 0, 1],
                port: Some(2944),
            }),
            body: MessageBody::Transactions(vec![t].into()),
        },
    }
}

fn modify(version: u8, d: AmmDescriptor) -> MegacoMessage {
    message(
        version,
        Transaction::Request(TransactionRequest {
            transaction_id: 1,
            actions: vec![ActionRequest {
                context_id: ContextId(1),
                context_request: None,
                context_attr_audit_req: None,
                command_requests: vec![CommandRequest {
                    command: Command::Modify(AmmRequest {
                        termination_ids: vec![TerminationId::new("11111111/00000000/00000000")]
                            .into(),
                        descriptors: vec![d],
                    }),
                    optional: false,
                    wildcard_return: false,
                }]
                .into(),
            }]
            .into(),
        }),
    )
}

#[test]
fn v3_constructs_in_older_versions_are_refused() {
    let seg = Transaction::SegmentReply(SegmentReply {
        transaction_id: 5,
        segment_number: 1,
        segmentation_complete: true,
    });
    for v in [1, 2] {
        let e = per::encode(&message(v, seg.clone()), &PerConfig::default()).unwrap_err();
        assert!(
            matches!(e, EncodeError::Version { needs: 3, version, .. } if version == v),
            "{e}"
        );
    }
    assert!(per::encode(&message(3, seg), &PerConfig::default()).is_ok());
    let stats = AmmDescriptor::Statistics(vec![StatisticsParameter {
        stat_name: "nt/os".into(),
        stat_value: None,
    }]);
    assert!(matches!(
        per::encode(&modify(2, stats.clone()), &PerConfig::default()),
        Err(EncodeError::Version { needs: 3, .. })
    ));
    assert!(per::encode(&modify(3, stats), &PerConfig::default()).is_ok());
}

#[test]
fn v1_events_need_a_request_id() {
    let ev = AmmDescriptor::Events(EventsDescriptor {
        request_id: None,
        event_list: vec![],
    });
    assert!(matches!(
        per::encode(&modify(1, ev.clone()), &PerConfig::default()),
        Err(EncodeError::Invalid { .. })
    ));
    // v2 made it optional.
    assert!(per::encode(&modify(2, ev), &PerConfig::default()).is_ok());
}

#[test]
fn values_outside_constraints_and_unknown_names_are_refused() {
    let cfg = PerConfig::default();
    let mut m = message(
        1,
        Transaction::Pending(TransactionPending { transaction_id: 1 }),
    );
    m.mess.mid = Mid::Device("x".repeat(65).into());
    assert!(matches!(
        per::encode(&m, &cfg),
        Err(EncodeError::Invalid { .. })
    ));
    m.mess.version = 4;
    assert_eq!(
        per::encode(&m, &cfg),
        Err(EncodeError::UnsupportedVersion(4))
    );

    let sig = AmmDescriptor::Signals(
        vec![SignalRequest::Signal(Signal {
            signal_name: "nosuchpkg/x".into(),
            stream_id: None,
            sig_type: None,
            duration: None,
            notify_completion: None,
            keep_active: None,
            sig_par_list: vec![],
            direction: None,
            request_id: None,
            intersig_delay: None,
        })]
        .into(),
    );
    let mut out = vec![0xAA];
    let e = per::encode_into(&modify(1, sig), &cfg, &mut out).unwrap_err();
    assert!(matches!(e, EncodeError::Invalid { .. }), "{e}");
    // Nothing of the failed message is left behind.
    assert_eq!(out, [0xAA]);
}

/// A v3 reply with segment number and END (OTP's msg80b01) relabelled as
/// version 2: v2's TransactionReply has an extension marker but no
/// additions, so the decoder skips the two open types it does not know.
#[test]
fn unknown_extension_additions_are_skipped() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/otp-suite/v3/msg80b01.per");
    let mut bytes = std::fs::read(path).unwrap();
    let cfg = PerConfig::default();
    let v3 = per::decode(&bytes, &cfg).unwrap();
    let MessageBody::Transactions(ts) = &v3.mess.body else {
        panic!()
    };
    let Transaction::Reply(r) = &ts[0] else {
        panic!()
    };
    assert_eq!((r.segment_number, r.segmentation_complete), (Some(1), true));
    // authHeader bit, extension bit, then the version in 7 bits
    // (0000011): its last bit is the first bit of the second octet.
    assert_eq!(bytes[0] & 0x3F, 0b000001);
    assert_eq!(bytes[1] >> 7, 1);
    bytes[1] &= 0x7F;
    let v2 = per::decode(&bytes, &cfg).unwrap();
    assert_eq!(v2.mess.version, 2);
    let MessageBody::Transactions(ts) = &v2.mess.body else {
        panic!()
    };
    let Transaction::Reply(r) = &ts[0] else {
        panic!()
    };
    assert_eq!((r.segment_number, r.segmentation_complete), (None, false));
}

#[test]
fn errors_say_where_and_what() {
    let e = per::decode(&[0x00, 0x84, 10, 0], &PerConfig::default()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            DecodeErrorKind::Truncated {
                expected: "IP4Address.address"
            }
        ),
        "{e:?}"
    );
    assert_eq!((e.offset(), e.bit_offset()), (2, Some(16)));
    assert!(e.to_string().contains("IP4Address.address"));
}

/// An Events descriptor of the one event `name`, with `actions`.
fn one_event(request_id: u32, name: &str, actions: RequestedActions) -> EventsDescriptor {
    EventsDescriptor {
        request_id: Some(request_id),
        event_list: vec![RequestedEvent {
            pkgd_name: name.into(),
            stream_id: None,
            event_action: Some(actions),
            ev_par_list: Default::default(),
        }],
    }
}

/// `levels` regulated notify behaviours, each embedding an event whose
/// actions carry the next.
fn nested(levels: usize) -> NotifyBehaviour {
    let mut n = NotifyBehaviour::NotifyImmediate;
    for _ in 1..levels {
        let actions = RequestedActions {
            notify_behaviour: Some(n),
            ..Default::default()
        };
        n = NotifyBehaviour::NotifyRegulated(Box::new(RegulatedEmbeddedDescriptor {
            second_event: Some(one_event(1, "al/on", actions)),
            signals_descriptor: None,
        }));
    }
    n
}

fn with_behaviour(n: NotifyBehaviour) -> MegacoMessage {
    let actions = RequestedActions {
        notify_behaviour: Some(n),
        ..Default::default()
    };
    modify(3, AmmDescriptor::Events(one_event(1, "al/of", actions)))
}

/// The one recursion of the ASN.1 types is bounded both ways.
#[test]
fn nesting_of_notify_behaviours_is_limited() {
    let cfg = PerConfig::default();
    assert_eq!(cfg.limits.max_depth, 16);
    let ok = with_behaviour(nested(16));
    let b = per::encode(&ok, &cfg).unwrap();
    assert_eq!(per::decode(&b, &cfg).unwrap(), ok);

    let deep = with_behaviour(nested(40));
    assert!(matches!(
        per::encode(&deep, &cfg),
        Err(EncodeError::Invalid { .. })
    ));
    let roomy = PerConfig {
        limits: megaco::Limits {
            max_depth: 64,
            ..megaco::Limits::DEFAULT
        },
        ..PerConfig::default()
    };
    let b = per::encode(&deep, &roomy).unwrap();
    assert_eq!(per::decode(&b, &roomy).unwrap(), deep);
    let e = per::decode(&b, &cfg).unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::LimitExceeded {
            limit: Limit::Depth,
            max: 16,
            found: None
        }
    );
}

/// SecondRequestedActions has no secondEvent: an embedded event whose
/// actions embed events again is refused (it was once dropped silently;
/// found by the edge-value sweep in `edge_values.rs`), as BER and text
/// refuse it.
#[test]
fn embedded_events_do_not_nest() {
    let embedded = |inner| {
        let actions = RequestedActions {
            second_event: inner,
            ..Default::default()
        };
        one_event(2, "al/on", actions)
    };
    let outer = |inner| {
        let actions = RequestedActions {
            second_event: Some(embedded(inner)),
            ..Default::default()
        };
        modify(3, AmmDescriptor::Events(one_event(1, "al/of", actions)))
    };
    let cfg = PerConfig::default();
    let one_level = outer(None);
    let bytes = per::encode(&one_level, &cfg).unwrap();
    assert_eq!(per::decode(&bytes, &cfg).unwrap(), one_level);
    let nested = outer(Some(embedded(None)));
    let err = per::encode(&nested, &cfg).unwrap_err();
    assert!(matches!(err, EncodeError::Invalid { .. }), "{err:?}");
    let ber = megaco::ber::encode(&nested, &Default::default()).unwrap_err();
    assert!(matches!(ber, EncodeError::Invalid { .. }), "{ber:?}");
}
