//! Templates write exactly what the encoders write, and the scanner reads
//! the transaction id the decoders read, in every wire encoding.
use megaco::codec::Encoding;
use megaco::model::*;
use megaco_load::msg::{self, Expect, Gateway};
use megaco_load::scan::{scan, Head};
use megaco_load::template::Template;

const IDS: &[u32] = &[
    1,
    7,
    9,
    10,
    99,
    100,
    127,
    128,
    255,
    256,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x1_0000,
    0x02_0105,
    999_999,
    1_000_000,
    0x7FFF_FFFF,
    0x8000_0000,
    4_000_000_000,
    0xFFFF_FFFD,
];

fn mid() -> Mid {
    Mid::Ip4(Ip4Address {
        address: [127, 0, 0, 1],
        port: Some(2944),
    })
}

fn encodings() -> Vec<(String, Encoding)> {
    // Every wire encoding of the codec registry.
    Encoding::named()
        .into_iter()
        .filter(|e| megaco_load::check_wire(e).is_ok())
        .map(|e| (e.to_string(), e))
        .collect()
}

#[test]
fn templates_write_what_the_encoder_writes() {
    for (name, enc) in encodings() {
        let shapes: Vec<(bool, megaco_load::template::Builder)> = vec![
            (
                false,
                Box::new(|tid, _| msg::request(mid(), 1, tid, vec![msg::audit_root()])),
            ),
            (
                true,
                Box::new(|tid, ctx| {
                    let t = msg::termination("00000001", 5);
                    msg::request(mid(), 2, tid, vec![msg::modify(ContextId(ctx), t)])
                }),
            ),
            (
                true,
                Box::new(|tid, ctx| {
                    let actions = vec![msg::subtract(
                        ContextId(ctx),
                        msg::termination("00000001", 3),
                    )];
                    msg::request(mid(), 3, tid, actions)
                }),
            ),
        ];
        for (with_ctx, build) in shapes {
            let expected: Vec<Vec<u8>> = IDS
                .iter()
                .map(|&id| enc.encode(&build(id, id.wrapping_add(3))).unwrap())
                .collect();
            let mut t = Template::new(enc.clone(), with_ctx, build);
            let mut patched = 0;
            for (&id, want) in IDS.iter().zip(&expected) {
                let mut out = b"prefix".to_vec();
                t.write(id, id.wrapping_add(3), &mut out).unwrap();
                assert_eq!(&out[6..], &want[..], "{name}: id {id:#x}");
                if t.is_patched(id, id.wrapping_add(3)) {
                    patched += 1;
                }
            }
            // Every value is patched, not re-encoded (a context of
            // 0xFFFF_FFFE or more is special and never patched).
            assert!(patched >= IDS.len() - 1, "{name}: only {patched} patched");
        }
    }
}

#[test]
fn scan_reads_the_decoders_transaction_id() {
    for (name, enc) in encodings() {
        for &id in IDS {
            let mut gw = Gateway::new("00000001", 1);
            let result = gw.answer(&[msg::audit_root()]);
            let reply = enc.encode(&msg::reply(mid(), 1, id, result)).unwrap();
            let request = enc
                .encode(&msg::request(mid(), 1, id, vec![msg::audit_root()]))
                .unwrap();
            match enc {
                Encoding::Per(_) => assert_eq!(scan(&enc, &reply), None),
                _ => {
                    assert_eq!(scan(&enc, &reply), Some(Head::Reply(id)), "{name} {id:#x}");
                    assert_eq!(
                        scan(&enc, &request),
                        Some(Head::Request(id)),
                        "{name} {id:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn scan_refuses_what_it_cannot_read() {
    let enc = Encoding::compact();
    for bad in [
        &b""[..],
        b"!/1",
        b"!/1 <mg> P=",
        b"!/1 <mg> P=99999999999",
        b"GET / HTTP/1.1",
        b"\x30\x82\xff",
    ] {
        assert_eq!(scan(&enc, bad), None, "{bad:?}");
        assert_eq!(scan(&Encoding::ber(), bad), None, "{bad:?}");
    }
    assert_eq!(scan(&enc, b"!/1 <mg> ER=400{}"), Some(Head::Error));
    assert_eq!(
        scan(&enc, b"MEGACO/1 <mg> ; note\n Pending = 12"),
        Some(Head::Pending(12))
    );
}

#[test]
fn gateway_answers_wildcards_with_one_reply_per_termination() {
    let mut gw = Gateway::new("00000001", 300);
    for req in [
        msg::audit_wildcard("00000001/*"),
        msg::modify(ContextId::NULL, TerminationId::new("00000001/*")),
    ] {
        let expect = if matches!(req.command_requests[0].command, Command::Modify(_)) {
            Expect::Modify
        } else {
            Expect::Audit
        };
        let reply = gw.answer(&[req]);
        let answer = msg::check_reply(expect, &reply).unwrap();
        assert_eq!(answer.terminations, 300);
        // Every termination once.
        let TransactionResult::ActionReplies(a) = &reply else {
            panic!()
        };
        let mut ids: Vec<String> = a[0]
            .command_reply
            .iter()
            .map(|c| match c {
                CommandReply::AuditValue(AuditReply::AuditResult(r)) => {
                    r.termination_id.as_str().to_string()
                }
                CommandReply::Modify(r) => r.termination_ids[0].as_str().to_string(),
                other => panic!("{other:?}"),
            })
            .collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 300);
    }
    // Add on $ gets a real context, which the check requires.
    let reply = gw.answer(&[msg::add(TerminationId::new("$"))]);
    let a = msg::check_reply(Expect::Add, &reply).unwrap();
    assert!(a.context.is_some());
    assert_eq!(
        msg::check_reply(Expect::Modify, &reply),
        Err("reply to another command")
    );
}
