//! `megaco pcap --generate`: a capture of H.248 traffic between a
//! controller and 16 gateways, for trying the tools and measuring them.
//! The gateways send the requests of the bundled corpus, numbered anew;
//! the controller answers each 1 to 5 ms later (ServiceChange and Notify
//! accepted, other commands refused with 501, as `megaco mgc` does). Over
//! UDP (text on port 2944, standard-dialect BER on 2945) or TCP with TPKT.
//! The file is written as it goes, in constant memory.

use std::io::{BufWriter, Write};
use std::net::SocketAddr;

use anyhow::Result;
use clap::ValueEnum;
use megaco::codec::Encoding;
use megaco::model::*;
use megaco_pcap::write::{build, Writer};
use megaco_pcap::{LinkType, Timestamp};

/// Which encodings the generated traffic uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Traffic {
    /// Compact text.
    Text,
    /// Standard-dialect BER.
    Ber,
    /// Text and BER in turn.
    Mix,
}

/// What to generate.
pub struct Plan {
    /// Messages, requests and replies together.
    pub messages: u64,
    /// Encodings.
    pub mix: Traffic,
    /// TCP with TPKT instead of UDP.
    pub tcp: bool,
    /// pcapng instead of pcap.
    pub pcapng: bool,
}

const GATEWAYS: usize = 16;

/// Writes the capture to `out`.
pub fn generate(out: impl Write, plan: &Plan) -> Result<()> {
    let requests = requests()?;
    let file = BufWriter::with_capacity(1 << 20, out);
    let mut w = if plan.pcapng {
        Writer::pcapng(file, LinkType::ETHERNET)?
    } else {
        Writer::pcap(file, LinkType::ETHERNET)?
    };
    let mgc_mid = Mid::Ip4(Ip4Address {
        address: [10, 0, 0, 1],
        port: Some(2944),
    });
    // Standard BER: what Wireshark's H.248 dissector reads.
    let (text, ber) = (
        Encoding::compact(),
        Encoding::Ber(megaco::ber::BerConfig::default()),
    );
    let mut time = 1_700_000_000_000_000_000u64;
    let mut seq = [[1u32; 2]; GATEWAYS];
    // Replies not yet written.
    let mut pending: Vec<Packet> = Vec::new();
    for i in 0..plan.messages / 2 {
        let (enc, port) = match plan.mix {
            Traffic::Text => (&text, 2944),
            Traffic::Ber => (&ber, 2945),
            Traffic::Mix if i % 2 == 0 => (&text, 2944),
            Traffic::Mix => (&ber, 2945),
        };
        let gw = (i % GATEWAYS as u64) as usize;
        let mg = SocketAddr::from(([10, 0, 1, gw as u8 + 1], port));
        let mgc = SocketAddr::from(([10, 0, 0, 1], port));
        let template = &requests[(i as usize) % requests.len()];
        let id = (i / GATEWAYS as u64) as u32 + 1;
        let mut req = template.clone();
        req.mess.body = MessageBody::Transactions(
            vec![Transaction::Request(TransactionRequest {
                transaction_id: id,
                actions: actions(template).iter().cloned().collect(),
            })]
            .into(),
        );
        let reply = MegacoMessage {
            auth_header: None,
            mess: Message {
                version: template.mess.version,
                mid: mgc_mid.clone(),
                body: MessageBody::Transactions(
                    vec![Transaction::Reply(TransactionReply {
                        transaction_id: id,
                        imm_ack_required: false,
                        result: megaco_stack::build::default_replies(actions(template)),
                        segment_number: None,
                        segmentation_complete: false,
                    })]
                    .into(),
                ),
            },
        };
        let req_bytes = enc.encode(&req)?;
        let rep_bytes = enc.encode(&reply)?;
        time += 50_000 + (i * 7919 % 100_000);
        let due = time + 1_000_000 + (i * 104_729 % 4_000_000);
        // Replies due before this request go first: the file stays in
        // time order.
        pending.sort_unstable_by_key(|p| std::cmp::Reverse(p.due));
        while pending.last().is_some_and(|p| p.due <= time) {
            let p = pending.pop().expect("checked");
            p.write(&mut w, plan.tcp, &mut seq[p.gw])?;
        }
        let request = Packet {
            due: time,
            gw,
            src: mg,
            dst: mgc,
            payload: req_bytes,
            reply: false,
        };
        request.write(&mut w, plan.tcp, &mut seq[gw])?;
        pending.push(Packet {
            due,
            gw,
            src: mgc,
            dst: mg,
            payload: rep_bytes,
            reply: true,
        });
    }
    pending.sort_unstable_by_key(|p| p.due);
    for p in pending {
        p.write(&mut w, plan.tcp, &mut seq[p.gw])?;
    }
    w.into_inner().flush()?;
    Ok(())
}

/// A message to write at its time.
struct Packet {
    due: u64,
    gw: usize,
    src: SocketAddr,
    dst: SocketAddr,
    payload: Vec<u8>,
    reply: bool,
}

impl Packet {
    /// Writes it; over TCP it takes the next sequence number of its
    /// direction and acknowledges what the other direction has sent so far.
    fn write<W: std::io::Write>(
        &self,
        w: &mut Writer<W>,
        tcp: bool,
        seq: &mut [u32; 2],
    ) -> Result<()> {
        let ip = if tcp {
            let (me, peer) = if self.reply { (1, 0) } else { (0, 1) };
            let frame = build::tpkt(&self.payload);
            let flags = build::flags::ACK | build::flags::PSH;
            let ip = build::tcp(self.src, self.dst, seq[me], seq[peer], flags, &frame);
            seq[me] = seq[me].wrapping_add(frame.len() as u32);
            ip
        } else {
            build::udp(self.src, self.dst, &self.payload)
        };
        w.packet(Timestamp(self.due), &build::ethernet(&ip))?;
        Ok(())
    }
}

fn actions(m: &MegacoMessage) -> &[ActionRequest] {
    match &m.mess.body {
        MessageBody::Transactions(ts) => match ts.first() {
            Some(Transaction::Request(r)) => &r.actions,
            _ => &[],
        },
        MessageBody::Error(_) => &[],
    }
}

/// The bundled corpus (Erlang/OTP's measurement messages, Apache-2.0),
/// the copy built into the bench crate, so the generator runs anywhere and
/// the CLI packages on its own.
const CORPUS: &[u8] = megaco_bench::samples::BUNDLED;

/// The corpus messages that start with a transaction request (and that
/// BER can carry).
fn requests() -> Result<Vec<MegacoMessage>> {
    let corpus = megaco::corpus::parse_term_file(CORPUS)?;
    let mut out = Vec::new();
    for m in corpus.messages {
        let msg = megaco::text::decode(&m.bytes)?;
        if !actions(&msg).is_empty() && Encoding::ber().encode(&msg).is_ok() {
            out.push(msg);
        }
    }
    Ok(out)
}
