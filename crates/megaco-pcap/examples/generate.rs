//! Writes a capture of H.248 traffic between a controller and gateways:
//! the requests of the bundled corpus (`corpus/time_test.msgs`), each
//! numbered anew and answered by the controller 1 to 5 ms later, over UDP
//! (text on port 2944, BER in the standard dialect on 2945) or TCP with TPKT.
//!
//! ```text
//! cargo run --release -p megaco-pcap --example generate -- OUT.pcap [MESSAGES] [--encoding text|ber|mix] [--tcp] [--pcapng]
//! ```
//!
//! MESSAGES (default 1000000) counts requests and replies together. The
//! file is written as it goes, in constant memory.

use std::fs::File;
use std::io::BufWriter;
use std::net::SocketAddr;
use std::path::PathBuf;

use megaco::codec::Encoding;
use megaco::model::*;
use megaco_pcap::write::{build, Writer};
use megaco_pcap::{LinkType, Timestamp};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut out = None;
    let mut messages: u64 = 1_000_000;
    let mut encoding = "mix".to_string();
    let (mut tcp, mut ng) = (false, false);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--encoding" => encoding = args.next().ok_or("--encoding needs a value")?,
            "--tcp" => tcp = true,
            "--pcapng" => ng = true,
            n if out.is_some() => messages = n.parse()?,
            path => out = Some(PathBuf::from(path)),
        }
    }
    let out = out.ok_or(
        "usage: generate OUT.pcap [MESSAGES] [--encoding text|ber|mix] [--tcp] [--pcapng]",
    )?;
    let requests = requests()?;
    let file = BufWriter::with_capacity(1 << 20, File::create(&out)?);
    let mut w = if ng {
        Writer::pcapng(file, LinkType::ETHERNET)?
    } else {
        Writer::pcap(file, LinkType::ETHERNET)?
    };
    let mgc_mid = Mid::Ip4(Ip4Address {
        address: [10, 0, 0, 1],
        port: Some(2944),
    });
    let gateways = 16u32;
    let mut time = 1_700_000_000_000_000_000u64;
    let mut seq = [[1u32; 2]; 16];
    let mut pending: Vec<(u64, Vec<u8>)> = Vec::new();
    // Standard BER: what Wireshark's H.248 dissector reads.
    let (text, ber) = (
        Encoding::compact(),
        Encoding::Ber(megaco::ber::BerConfig::default()),
    );
    let pairs = messages / 2;
    for i in 0..pairs {
        let (enc, port) = match encoding.as_str() {
            "text" => (&text, 2944),
            "ber" => (&ber, 2945),
            _ if i % 2 == 0 => (&text, 2944),
            _ => (&ber, 2945),
        };
        let gw = (i % u64::from(gateways)) as usize;
        let mg: SocketAddr = format!("10.0.1.{}:{port}", gw + 1).parse()?;
        let mgc: SocketAddr = format!("10.0.0.1:{port}").parse()?;
        let template = &requests[(i as usize) % requests.len()];
        let tid = (i / u64::from(gateways)) as u32 + 1;
        let mut req = template.clone();
        req.mess.body = MessageBody::Transactions(vec![Transaction::Request(TransactionRequest {
            transaction_id: tid,
            actions: actions(template).to_vec(),
        })]);
        let reply = MegacoMessage {
            auth_header: None,
            mess: Message {
                version: template.mess.version,
                mid: mgc_mid.clone(),
                body: MessageBody::Transactions(vec![Transaction::Reply(TransactionReply {
                    transaction_id: tid,
                    imm_ack_required: false,
                    result: megaco_stack::build::default_replies(actions(template)),
                    segment_number: None,
                    segmentation_complete: false,
                })]),
            },
        };
        let req_bytes = enc.encode(&req)?;
        let rep_bytes = enc.encode(&reply)?;
        time += 50_000 + (i * 7919 % 100_000);
        let late = time + 1_000_000 + (i * 104_729 % 4_000_000);
        let (q, r) = if tcp {
            let s = &mut seq[gw];
            let q = build::tcp(
                mg,
                mgc,
                s[0],
                s[1],
                build::flags::ACK | build::flags::PSH,
                &build::tpkt(&req_bytes),
            );
            s[0] = s[0].wrapping_add(req_bytes.len() as u32 + 4);
            let r = build::tcp(
                mgc,
                mg,
                s[1],
                s[0],
                build::flags::ACK | build::flags::PSH,
                &build::tpkt(&rep_bytes),
            );
            s[1] = s[1].wrapping_add(rep_bytes.len() as u32 + 4);
            (q, r)
        } else {
            (
                build::udp(mg, mgc, &req_bytes),
                build::udp(mgc, mg, &rep_bytes),
            )
        };
        // Replies due before this request go first: the file stays in
        // time order.
        pending.sort_by_key(|p| std::cmp::Reverse(p.0));
        while pending.last().is_some_and(|p| p.0 <= time) {
            let (t, frame) = pending.pop().expect("checked");
            w.packet(Timestamp(t), &frame)?;
        }
        w.packet(Timestamp(time), &build::ethernet(&q))?;
        pending.push((late, build::ethernet(&r)));
    }
    pending.sort_by_key(|p| p.0);
    for (t, frame) in pending {
        w.packet(Timestamp(t), &frame)?;
    }
    w.into_inner();
    eprintln!("{}: {} messages", out.display(), pairs * 2);
    Ok(())
}

fn actions(m: &MegacoMessage) -> &[ActionRequest] {
    match &m.mess.body {
        MessageBody::Transactions(ts) => match &ts[0] {
            Transaction::Request(r) => &r.actions,
            _ => &[],
        },
        MessageBody::Error(_) => &[],
    }
}

/// The corpus messages that start with a transaction request.
fn requests() -> Result<Vec<MegacoMessage>, Box<dyn std::error::Error>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/time_test.msgs");
    let corpus = megaco::corpus::load(&path)?;
    let mut out = Vec::new();
    for m in corpus.messages {
        let msg = megaco::text::decode(&m.bytes)?;
        if !actions(&msg).is_empty() && Encoding::ber().encode(&msg).is_ok() {
            out.push(msg);
        }
    }
    Ok(out)
}
