//! Bad-input regressions, in the spirit of Erlang/OTP's megaco codec
//! ticket tests (megaco_codec_v1/v3/mini_SUITE: missing braces, comments
//! in odd places, vendor extension names, IPv6 mIds, malformed SDP, digit
//! maps, huge numbers, deep nesting, absurd binary lengths).
//!
//! Every case asserts the exact outcome: the decoded content, or the
//! error kind and where it was found (line/column for text, byte offset
//! for BER and PER).

use megaco::ber::{self, BerConfig};
use megaco::codec::{DecodeErrorKind, Kind, Limit};
use megaco::model::*;
use megaco::per::{self, PerConfig};
use megaco::text::{decode, decode_with, Limits};

const HDR: &str = "!/1 [10.0.0.1]:2944\n";

/// Decodes text that must fail; returns (line, column, kind).
fn text_err(input: &str) -> (u32, u32, DecodeErrorKind) {
    match decode(input.as_bytes()) {
        Ok(m) => panic!("decoded {input:?} to {m:?}"),
        Err(e) => {
            let (line, column) = e.line_column().unwrap();
            (line, column, e.kind().clone())
        }
    }
}

/// Decodes text that must succeed.
fn text_ok(input: &str) -> MegacoMessage {
    decode(input.as_bytes()).unwrap_or_else(|e| panic!("{input:?}: {e}"))
}

fn transactions(m: &MegacoMessage) -> &[Transaction] {
    match &m.mess.body {
        MessageBody::Transactions(t) => t,
        other => panic!("{other:?}"),
    }
}

fn request(m: &MegacoMessage) -> &TransactionRequest {
    match &transactions(m)[0] {
        Transaction::Request(r) => r,
        other => panic!("{other:?}"),
    }
}

fn s(v: &str) -> String {
    v.to_string()
}

// ---------------------------------------------------------------- text

#[test]
fn missing_closing_brace() {
    let e = text_err(&format!("{HDR}T=1{{C=-{{AV=ROOT}}"));
    assert_eq!(e, (2, 17, DecodeErrorKind::Truncated { expected: "`}`" }));
}

#[test]
fn comments_before_and_after_header_inside_lists_and_at_end() {
    let m = text_ok(
        "; before the header\n!/1 [10.0.0.1]:2944 ; after the header\n\
         T=1{C=-{MF=a/1{E=5{al/on, ; inside a list\n al/of}}}} ; at the end",
    );
    let r = request(&m);
    assert_eq!(r.transaction_id, 1);
    let Command::Modify(amm) = &r.actions[0].command_requests[0].command else {
        panic!("{:?}", r.actions[0])
    };
    let AmmDescriptor::Events(ev) = &amm.descriptors[0] else {
        panic!("{amm:?}")
    };
    let names: Vec<&str> = ev.event_list.iter().map(|e| e.pkgd_name.as_str()).collect();
    assert_eq!(names, ["al/on", "al/of"]);
}

#[test]
fn transaction_without_id_reads_as_zero() {
    let m = text_ok(&format!("{HDR}T={{C=-{{AV=ROOT}}}}"));
    assert_eq!(request(&m).transaction_id, 0);
}

#[test]
fn vendor_extension_parameters_in_service_change_are_dropped() {
    let m = text_ok(&format!(
        "{HDR}T=2{{C=-{{SC=ROOT{{SV{{MT=RS,RE=\"901\",X-Vendor=abc,x+other=\"q v\"}}}}}}}}"
    ));
    let Command::ServiceChange(sc) = &request(&m).actions[0].command_requests[0].command else {
        panic!()
    };
    assert_eq!(
        sc.service_change_parms.service_change_method,
        ServiceChangeMethod::Restart
    );
}

fn mid_of(header: &str) -> Result<Mid, (u32, u32, DecodeErrorKind)> {
    match decode(format!("!/1 {header} T=1{{C=-{{AV=ROOT}}}}").as_bytes()) {
        Ok(m) => Ok(m.mess.mid),
        Err(e) => {
            let (line, column) = e.line_column().unwrap();
            Err((line, column, e.kind().clone()))
        }
    }
}

fn ip6(words: [u16; 8], port: Option<u16>) -> Mid {
    let mut address = [0u8; 16];
    for (i, w) in words.iter().enumerate() {
        address[2 * i..2 * i + 2].copy_from_slice(&w.to_be_bytes());
    }
    Mid::Ip6(Ip6Address { address, port })
}

#[test]
fn ipv6_mids_in_every_valid_form() {
    assert_eq!(
        mid_of("[2001:db8:0:0:1:0:0:1]"),
        Ok(ip6([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1], None))
    );
    assert_eq!(mid_of("[::]"), Ok(ip6([0; 8], None)));
    assert_eq!(mid_of("[::1]"), Ok(ip6([0, 0, 0, 0, 0, 0, 0, 1], None)));
    assert_eq!(
        mid_of("[FE80::]:2944"),
        Ok(ip6([0xfe80, 0, 0, 0, 0, 0, 0, 0], Some(2944)))
    );
    assert_eq!(
        mid_of("[::ffff:10.0.0.1]:55555"),
        Ok(ip6([0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001], Some(55555)))
    );
    assert_eq!(
        mid_of("[1:2:3:4:5:6:1.2.3.4]"),
        Ok(ip6([1, 2, 3, 4, 5, 6, 0x0102, 0x0304], None))
    );
    assert_eq!(
        mid_of("[1:2:3:4:5:6:7::]"),
        Ok(ip6([1, 2, 3, 4, 5, 6, 7, 0], None))
    );
}

#[test]
fn ipv6_mids_malformed_are_rejected() {
    let invalid = |found: &str| DecodeErrorKind::Invalid {
        what: "IPv6 address",
        detail: format!("`{}`", found).into(),
    };
    assert_eq!(mid_of("[1::2::3]"), Err((1, 6, invalid("1::2::3"))));
    assert_eq!(
        mid_of("[1:2:3:4:5:6:7:8:9]"),
        Err((1, 6, invalid("1:2:3:4:5:6:7:8:9")))
    );
    assert_eq!(
        mid_of("[1:2:3:4:5:6:7]"),
        Err((1, 6, invalid("1:2:3:4:5:6:7")))
    );
    assert_eq!(
        mid_of("[1:2:3:4::5:6:7:8]"),
        Err((1, 6, invalid("1:2:3:4::5:6:7:8")))
    );
    assert_eq!(mid_of("[fffff::1]"), Err((1, 6, invalid("fffff::1"))));
    assert_eq!(mid_of("[12g4::1]"), Err((1, 6, invalid("12g4::1"))));
    assert_eq!(mid_of("[::1.2.3]"), Err((1, 6, invalid("::1.2.3"))));
}

#[test]
fn malformed_sdp_in_local() {
    let e = text_err(&format!(
        "{HDR}T=1{{C=1{{MF=a/1{{M{{ST=1{{L{{\nv=0\nthis is not sdp\n}}}}}}}}}}}}"
    ));
    assert_eq!(
        e,
        (
            4,
            5,
            DecodeErrorKind::Invalid {
                what: "SDP line name",
                detail: format!("`{}`", "this ").into()
            }
        )
    );
}

#[test]
fn digit_map_with_only_a_name_or_an_empty_body() {
    // A name alone refers to a digit map defined earlier: valid.
    let m = text_ok(&format!("{HDR}T=1{{C=1{{MF=a/1{{DM=dialplan0}}}}}}"));
    let Command::Modify(amm) = &request(&m).actions[0].command_requests[0].command else {
        panic!()
    };
    let AmmDescriptor::DigitMap(dm) = &amm.descriptors[0] else {
        panic!("{amm:?}")
    };
    assert_eq!(dm.digit_map_name.as_deref(), Some("dialplan0"));
    assert_eq!(dm.digit_map_value, None);
    // An empty body is not a digit map value (`digitMap` is at least one
    // digit string): refused, though OTP reads it as no value.
    let e = text_err(&format!("{HDR}T=1{{C=1{{MF=a/1{{DM=dialplan0{{}}}}}}}}"));
    assert_eq!(
        e,
        (
            2,
            29,
            DecodeErrorKind::Missing {
                what: "digit map (the value is empty)"
            }
        )
    );
    // Neither a name nor a body.
    let e = text_err(&format!("{HDR}T=1{{C=1{{MF=a/1{{DM=}}}}}}"));
    assert_eq!(
        e,
        (
            2,
            19,
            DecodeErrorKind::Unexpected {
                expected: "a digit map name or `{`",
                found: "`}`".into()
            }
        )
    );
}

#[test]
fn huge_numbers_are_out_of_range() {
    let e = text_err(&format!("{HDR}T=4294967296{{C=-{{AV=ROOT}}}}"));
    assert_eq!(
        e,
        (
            2,
            3,
            DecodeErrorKind::OutOfRange {
                what: "a transaction id",
                found: Some(s("4294967296")),
                max: Some(4294967295)
            }
        )
    );
    let e = text_err(&format!("{HDR}T=1{{C=4294967296{{AV=ROOT}}}}"));
    assert_eq!(
        e,
        (
            2,
            7,
            DecodeErrorKind::OutOfRange {
                what: "a context id",
                found: Some(s("4294967296")),
                max: Some(4294967295)
            }
        )
    );
    let e = text_err(&format!("{HDR}T=1{{C=1{{MF=a/1{{M{{ST=65536{{}}}}}}}}}}"));
    assert_eq!(
        e,
        (
            2,
            21,
            DecodeErrorKind::OutOfRange {
                what: "a stream id",
                found: Some(s("65536")),
                max: Some(65535)
            }
        )
    );
    let e = text_err("!/1 [10.0.0.1]:65536 T=1{C=-{AV=ROOT}}");
    assert_eq!(
        e,
        (
            1,
            16,
            DecodeErrorKind::OutOfRange {
                what: "a port number",
                found: Some(s("65536")),
                max: Some(65535)
            }
        )
    );
    let e = text_err(&format!(
        "{HDR}T=1{{C=1{{MF=a/1{{E=4294967296{{al/on}}}}}}}}"
    ));
    assert_eq!(
        e,
        (
            2,
            18,
            DecodeErrorKind::OutOfRange {
                what: "a request id",
                found: Some(s("4294967296")),
                max: Some(4294967295)
            }
        )
    );
    let e = text_err("!/99999999999 [10.0.0.1] T=1{C=-{AV=ROOT}}");
    assert_eq!(
        e,
        (
            1,
            3,
            DecodeErrorKind::OutOfRange {
                what: "protocol version",
                found: Some(s("99999999999")),
                max: Some(99)
            }
        )
    );
    let e = text_err("!/4 [10.0.0.1] T=1{C=-{AV=ROOT}}");
    assert_eq!(
        e,
        (1, 1, DecodeErrorKind::UnsupportedVersion { version: 4 })
    );
}

#[test]
fn deep_nesting_is_too_deep() {
    // The grammar itself nests about a dozen levels (embedded events
    // cannot embed events again), so a deep message is a malformed one:
    // ten thousand braces fail at the first, without deep recursion.
    let e = text_err(&format!("{HDR}T=1{}", "{".repeat(10_000)));
    assert_eq!(
        e,
        (
            2,
            5,
            DecodeErrorKind::Unexpected {
                expected: "Context",
                found: "`{`".into()
            }
        )
    );
    // A lower limit is hit at the brace that exceeds it.
    let msg = format!("{HDR}T=1{{C=1{{MF=a/1{{E=5{{al/on}}}}}}}}");
    let limits = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    let e = decode_with(msg.as_bytes(), &limits).unwrap_err();
    assert_eq!(
        (e.line_column(), e.offset()),
        (Some((2, 19)), HDR.len() + 18)
    );
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::LimitExceeded {
            limit: Limit::Depth,
            max: 3,
            found: None
        }
    );
}

#[test]
fn every_text_limit_gives_its_typed_error() {
    let msg = format!("{HDR}T=1{{C=1{{MF=a/1{{E=5{{al/on,al/of,al/fl}}}}}}}}");
    let limits = Limits {
        max_message_size: msg.len() - 1,
        ..Limits::default()
    };
    let e = decode_with(msg.as_bytes(), &limits).unwrap_err();
    assert_eq!((e.line_column(), e.offset()), (Some((1, 1)), 0));
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::LimitExceeded {
            limit: Limit::MessageSize,
            max: msg.len() - 1,
            found: Some(msg.len())
        }
    );

    let limits = Limits {
        max_list_len: 2,
        ..Limits::default()
    };
    let e = decode_with(msg.as_bytes(), &limits).unwrap_err();
    assert_eq!(e.line_column(), Some((2, 32)));
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::LimitExceeded {
            limit: Limit::ListLen,
            max: 2,
            found: None
        }
    );

    let limits = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    let e = decode_with(msg.as_bytes(), &limits).unwrap_err();
    assert_eq!(e.line_column(), Some((2, 19)));
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::LimitExceeded {
            limit: Limit::Depth,
            max: 3,
            found: None
        }
    );

    // The first word past 3 bytes is the port, `2944`.
    let limits = Limits {
        max_string_len: 3,
        ..Limits::default()
    };
    let e = decode_with(msg.as_bytes(), &limits).unwrap_err();
    assert_eq!(e.line_column(), Some((1, 16)));
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::LimitExceeded {
            limit: Limit::StringLen,
            max: 3,
            found: Some(4)
        }
    );

    // At the limits themselves the message decodes.
    let limits = Limits {
        max_message_size: msg.len(),
        max_list_len: 3,
        max_depth: 4,
        max_string_len: "al/on".len(),
    };
    assert!(decode_with(msg.as_bytes(), &limits).is_ok());
}

// ---------------------------------------------------------------- BER

fn corpus_file(rel: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus")
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The offset and kind of BER's error on `bytes`.
fn ber_err(bytes: &[u8]) -> (usize, DecodeErrorKind) {
    match ber::decode(bytes, &BerConfig::default()) {
        Ok(m) => panic!("decoded {bytes:02x?} to {m:?}"),
        Err(e) => {
            assert_eq!(e.codec(), Kind::Ber);
            (e.offset(), e.kind().clone())
        }
    }
}

fn ber(offset: usize, kind: DecodeErrorKind) -> (usize, DecodeErrorKind) {
    (offset, kind)
}

#[test]
fn ber_lengths_past_the_end() {
    let v = corpus_file("vectors/ber/msg01a.ber");
    // The outer length (0x81 0xf3) promises more than is left.
    let e = ber_err(&v[..100]);
    assert_eq!(
        e,
        ber(
            3,
            DecodeErrorKind::Truncated {
                expected: "content of the stated length"
            }
        )
    );
    // An inner length promising more than its container holds:
    // 30 81 f3 | a1 81 f0 -> a1 81 f4 (one byte more than the 0xf3 left).
    let mut w = v.clone();
    w[5] = 0xf4;
    let e = ber_err(&w);
    assert_eq!(
        e,
        ber(
            6,
            DecodeErrorKind::Truncated {
                expected: "content of the stated length"
            }
        )
    );
    // One byte after the message.
    let mut w = v.clone();
    w.push(0);
    assert_eq!(
        ber_err(&w),
        ber(246, DecodeErrorKind::TrailingData { len: 1 })
    );
}

#[test]
fn ber_zero_and_absurd_lengths() {
    assert_eq!(
        ber_err(&[]),
        ber(
            0,
            DecodeErrorKind::Truncated {
                expected: "MegacoMessage"
            }
        )
    );
    assert_eq!(
        ber_err(&[0x30, 0x00]),
        ber(2, DecodeErrorKind::Missing { what: "Message" })
    );
    // 4 GiB promised, 2 bytes given: refused before anything is read.
    assert_eq!(
        ber_err(&[0x30, 0x84, 0xff, 0xff, 0xff, 0xff, 0xa1, 0x00]),
        ber(
            6,
            DecodeErrorKind::Truncated {
                expected: "content of the stated length"
            }
        )
    );
    // Nine length octets: more than any length this decoder reads.
    assert_eq!(
        ber_err(&[0x30, 0x89, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        ber(
            1,
            DecodeErrorKind::BadLength {
                detail: "length too large".into()
            }
        )
    );
    // Indefinite length without its end-of-contents.
    assert_eq!(
        ber_err(&[0x30, 0x80, 0xa1, 0x00]),
        ber(
            4,
            DecodeErrorKind::Truncated {
                expected: "end-of-contents octets"
            }
        )
    );
    // A long-form length whose octets are missing.
    assert_eq!(
        ber_err(&[0x30, 0x06, 0x80, 0x01, 0x01, 0xa1, 0x84, 0xff]),
        ber(
            7,
            DecodeErrorKind::Truncated {
                expected: "length octets"
            }
        )
    );
}

// ---------------------------------------------------------------- PER

/// A v1 message with an IPv4 mId and no transactions, in PER; the last
/// byte is the transaction count.
fn per_empty() -> Vec<u8> {
    let m = MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 1,
            mid: Mid::Ip4(Ip4Address {
                address: [10, 0, 0, 1],
                port: Some(2944),
            }),
            body: MessageBody::Transactions(vec![].into()),
        },
    };
    per::encode(&m, &PerConfig::default()).unwrap()
}

#[test]
fn per_absurd_lengths() {
    let base = per_empty();
    assert_eq!(*base.last().unwrap(), 0);
    assert_eq!(
        base,
        [0x00, 0x84, 0x0a, 0x00, 0x00, 0x01, 0x0b, 0x80, 0x80, 0x00]
    );
    let truncated = DecodeErrorKind::Truncated {
        expected: "transactions",
    };
    for (len, at, kind) in [
        // 16 383 transactions promised, none given.
        (vec![0xbf, 0xff], 11, truncated.clone()),
        // Four fragments of 16K items each.
        (vec![0xc4], 10, truncated.clone()),
        (vec![0xc1], 10, truncated.clone()),
        // A fragment count of 63 does not exist.
        (
            vec![0xff],
            10,
            DecodeErrorKind::Invalid {
                what: "transactions",
                detail: "bad fragment count".into(),
            },
        ),
        (vec![0x7f], 10, truncated.clone()),
        (vec![0x81, 0x00], 11, truncated.clone()),
    ] {
        let mut b = base[..base.len() - 1].to_vec();
        b.extend_from_slice(&len);
        let e = per::decode(&b, &PerConfig::default()).unwrap_err();
        assert_eq!((e.offset(), e.kind()), (at, &kind), "{len:02x?}: {e}");
    }
}

/// A topology triple starts with two termination ids, whatever they look
/// like; a keyword after them counts only where the triple can take it.
#[test]
fn topology_termination_ids_spelled_like_keywords() {
    // (A topology triple's stream is v2 and later.)
    let m =
        text_ok("!/3 [10.0.0.1]:2944\nT=1{C=1{TP{st,bothway,Oneway,stream,ST,Isolate,Stream=2}}}");
    let Some(cr) = &request(&m).actions[0].context_request else {
        panic!("no context request")
    };
    let t = cr.topology_req.as_ref().unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(
        (t[0].termination_from.as_str(), t[0].termination_to.as_str()),
        ("st", "bothway")
    );
    assert_eq!(t[0].topology_direction, TopologyDirection::Oneway);
    assert_eq!(
        (t[1].termination_from.as_str(), t[1].termination_to.as_str()),
        ("stream", "ST")
    );
    assert_eq!(t[1].topology_direction, TopologyDirection::Isolate);
    assert_eq!(t[1].stream_id, Some(2));
}
