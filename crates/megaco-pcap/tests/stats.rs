//! Transaction statistics: every request of a capture paired with its
//! reply; pendings, resends, segments, acknowledgements, error codes and
//! unanswered requests counted.

mod common;

use common::*;
use megaco::codec::Encoding;
use megaco::model::*;
use megaco_pcap::stats::Stats;
use megaco_pcap::write::build;
use std::net::SocketAddr;

fn mg() -> SocketAddr {
    "10.0.0.1:2944".parse().unwrap()
}

fn mgc() -> SocketAddr {
    "10.0.0.2:2944".parse().unwrap()
}

fn message(version: u8, t: Vec<Transaction>) -> MegacoMessage {
    MegacoMessage {
        auth_header: None,
        mess: Message {
            version,
            mid: Mid::Ip4(Ip4Address {
                address: [10, 0, 0, 1],
                port: None,
            }),
            body: MessageBody::Transactions(t.into()),
        },
    }
}

fn actions(m: &MegacoMessage) -> Vec<ActionRequest> {
    match &m.mess.body {
        MessageBody::Transactions(ts) => match &ts[0] {
            Transaction::Request(r) => r.actions.to_vec(),
            _ => Vec::new(),
        },
        MessageBody::Error(_) => Vec::new(),
    }
}

fn reply(id: u32, result: TransactionResult, segment: Option<(u16, bool)>) -> Transaction {
    Transaction::Reply(TransactionReply {
        transaction_id: id,
        imm_ack_required: false,
        result,
        segment_number: segment.map(|s| s.0),
        segmentation_complete: segment.is_some_and(|s| s.1),
    })
}

fn report(packets: &[(SocketAddr, SocketAddr, u64, MegacoMessage)]) -> megaco_pcap::stats::Report {
    let mut ips = Vec::new();
    let mut w =
        megaco_pcap::write::Writer::pcap(Vec::new(), megaco_pcap::LinkType::ETHERNET).unwrap();
    for (src, dst, ms, m) in packets {
        let bytes = Encoding::compact().encode(m).unwrap();
        let ip = build::udp(*src, *dst, &bytes);
        let t = megaco_pcap::Timestamp(1_700_000_000_000_000_000 + ms * 1_000_000);
        w.packet(t, &build::ethernet(&ip)).unwrap();
        ips.push(ip);
    }
    let (records, problems) = read(&w.into_inner());
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(records.len(), packets.len());
    let mut stats = Stats::default();
    for r in &records {
        stats.add(r);
    }
    stats.finish()
}

#[test]
fn every_corpus_request_is_paired_with_its_reply() {
    let requests: Vec<MegacoMessage> = vectors("pretty")
        .iter()
        .map(|v| megaco::text::decode(&v.bytes).unwrap())
        .filter(|m| !actions(m).is_empty())
        .collect();
    assert!(requests.len() > 50);
    let mut packets = Vec::new();
    for (i, req) in requests.iter().enumerate() {
        let id = i as u32 + 1;
        let mut q = req.clone();
        q.mess.body = MessageBody::Transactions(
            vec![Transaction::Request(TransactionRequest {
                transaction_id: id,
                actions: actions(req).into(),
            })]
            .into(),
        );
        let result = megaco_stack::build::default_replies(&actions(req));
        let r = message(req.mess.version, vec![reply(id, result, None)]);
        packets.push((mg(), mgc(), 2 * i as u64, q));
        packets.push((mgc(), mg(), 2 * i as u64 + 1, r));
    }
    let n = requests.len() as u64;
    let r = report(&packets);
    assert_eq!((r.requests, r.answered, r.unanswered), (n, n, 0), "{r}");
    assert_eq!((r.resends, r.orphan_replies, r.reply_resends), (0, 0, 0));
    let all = r.commands.iter().find(|c| c.name == "all").unwrap();
    assert_eq!(all.count, n);
    assert_eq!((all.min_ms, all.max_ms), (1.0, 1.0));
    // default_replies answers what is neither Notify nor ServiceChange
    // with 501.
    let not_implemented = requests
        .iter()
        .flat_map(actions)
        .filter(|a| {
            a.command_requests
                .iter()
                .any(|c| !matches!(c.command, Command::Notify(_) | Command::ServiceChange(_)))
        })
        .count() as u64;
    assert_eq!(r.errors, vec![(501, not_implemented)]);
}

#[test]
fn pendings_resends_segments_acks_errors_and_the_unanswered() {
    let notify = megaco::text::decode(b"!/3 [10.0.0.1] T=2{C=-{N=a/1{OE=1{al/of}}}}").unwrap();
    let add = megaco::text::decode(b"!/3 [10.0.0.2] T=3{C=${A=a/2}}").unwrap();
    let modify = megaco::text::decode(b"!/3 [10.0.0.2] T=4{C=1{MF=a/2}}").unwrap();
    let audit = megaco::text::decode(b"!/3 [10.0.0.2] T=5{C=-{AV=ROOT}}").unwrap();
    let ok = |m: &MegacoMessage| megaco_stack::build::default_replies(&actions(m));
    let err = |code| {
        TransactionResult::Error(ErrorDescriptor {
            error_code: code,
            error_text: None,
        })
    };
    let audit_reply = TransactionResult::ActionReplies(
        vec![ActionReply {
            context_id: ContextId::NULL,
            error_descriptor: None,
            context_reply: None,
            command_reply: vec![CommandReply::AuditValue(AuditReply::ContextAuditResult(
                vec![TerminationId::root()],
            ))]
            .into(),
        }]
        .into(),
    );
    let packets = vec![
        // Notify: sent twice, a pending, then the reply 30 ms after.
        (mg(), mgc(), 0, notify.clone()),
        (mg(), mgc(), 5, notify.clone()),
        (
            mgc(),
            mg(),
            6,
            message(
                3,
                vec![Transaction::Pending(TransactionPending {
                    transaction_id: 2,
                })],
            ),
        ),
        (
            mgc(),
            mg(),
            30,
            message(3, vec![reply(2, ok(&notify), None)]),
        ),
        // Add: refused with 430, the reply sent twice, then acknowledged.
        (mgc(), mg(), 40, add.clone()),
        (mg(), mgc(), 42, message(3, vec![reply(3, err(430), None)])),
        (mg(), mgc(), 43, message(3, vec![reply(3, err(430), None)])),
        (
            mgc(),
            mg(),
            44,
            message(
                3,
                vec![Transaction::ResponseAck(vec![TransactionAck {
                    first_ack: 3,
                    last_ack: None,
                }])],
            ),
        ),
        // Modify: never answered.
        (mgc(), mg(), 50, modify),
        // AuditValue: a reply in two segments, each acknowledged.
        (mgc(), mg(), 60, audit.clone()),
        (
            mg(),
            mgc(),
            64,
            message(3, vec![reply(5, audit_reply.clone(), Some((1, false)))]),
        ),
        (
            mgc(),
            mg(),
            65,
            message(
                3,
                vec![Transaction::SegmentReply(SegmentReply {
                    transaction_id: 5,
                    segment_number: 1,
                    segmentation_complete: false,
                })],
            ),
        ),
        (
            mg(),
            mgc(),
            66,
            message(3, vec![reply(5, audit_reply, Some((2, true)))]),
        ),
        (
            mgc(),
            mg(),
            67,
            message(
                3,
                vec![Transaction::SegmentReply(SegmentReply {
                    transaction_id: 5,
                    segment_number: 2,
                    segmentation_complete: true,
                })],
            ),
        ),
        // A reply to a request the capture does not hold.
        (mgc(), mg(), 70, message(3, vec![reply(99, err(500), None)])),
    ];
    let r = report(&packets);
    assert_eq!(r.messages, 15);
    assert_eq!((r.requests, r.answered, r.unanswered), (4, 3, 1), "{r}");
    assert_eq!((r.resends, r.pendings, r.reply_resends), (1, 1, 1));
    assert_eq!((r.reply_segments, r.segment_replies, r.acks), (2, 2, 1));
    assert_eq!(r.orphan_replies, 1);
    assert_eq!(r.errors, vec![(430, 2), (500, 1)]);
    let ms = |name: &str| {
        let c = r.commands.iter().find(|c| c.name == name).unwrap();
        (c.count, c.max_ms)
    };
    assert_eq!(ms("Notify"), (1, 30.0));
    assert_eq!(ms("Add"), (1, 2.0));
    assert_eq!(ms("AuditValue"), (1, 4.0));
    assert!(r.commands.iter().all(|c| c.name != "Modify"));
    let u = &r.unanswered_list[..];
    assert_eq!(u.len(), 1);
    assert_eq!(
        (u[0].packet, u[0].transaction_id, &u[0].commands[..]),
        (9, 4, &["Modify"][..])
    );
    let text = r.to_string();
    assert!(
        text.contains("430") && text.contains("Unknown termination id"),
        "{text}"
    );
}

#[test]
fn errors_inside_command_replies_are_counted_and_drawn_red() {
    use megaco_pcap::flow::Ladder;
    // Requests and replies whose errors sit inside a command reply, not
    // in the action: a Modify's audited values, a Notify, a
    // ServiceChange.
    let exchanges: [(&[u8], &[u8]); 3] = [
        (
            b"!/1 [10.0.0.1]:2944 T=3{C=-{MF=ROOT}}",
            b"!/1 [10.0.0.2]:2944 P=3{C=-{MF=ROOT{ER=501{\"Not Implemented\"}}}}",
        ),
        (
            b"!/1 [10.0.0.1]:2944 T=4{C=-{N=ROOT{OE=1{al/of}}}}",
            b"!/1 [10.0.0.2]:2944 P=4{C=-{N=ROOT{ER=502{\"Not ready\"}}}}",
        ),
        (
            b"!/1 [10.0.0.1]:2944 T=5{C=-{SC=ROOT{SV{MT=RS,RE=\"901\"}}}}",
            b"!/1 [10.0.0.2]:2944 P=5{C=-{SC=ROOT{ER=503{\"Service Unavailable\"}}}}",
        ),
    ];
    let mut ips = Vec::new();
    for (req, rep) in exchanges {
        ips.push(build::udp(mg(), mgc(), req));
        ips.push(build::udp(mgc(), mg(), rep));
    }
    let (records, problems) = read(&capture(&ips, false));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(records.len(), 6);
    let mut stats = Stats::default();
    let mut ladder = Ladder::new(100);
    for r in &records {
        assert!(r.message.is_ok(), "{:?}", r.message);
        stats.add(r);
        ladder.add(r);
    }
    let report = stats.finish();
    assert_eq!(report.errors, [(501, 1), (502, 1), (503, 1)]);
    let svg = ladder.svg();
    for code in [501, 502, 503] {
        assert!(svg.contains(&format!(" error {code}")), "{code}: {svg}");
    }
    assert_eq!(svg.matches("<g class=\"err\">").count(), 3, "{svg}");
}
