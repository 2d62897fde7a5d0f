//! The captures our writer makes are well-formed: Wireshark's `tshark`
//! reads each of them (pcap and pcapng; UDP, TCP with TPKT, IPv6, IPv4
//! fragments, SCTP), with checksums verified, finds the H.248 messages
//! where we do, and flags nothing malformed.
//!
//! Without `tshark` the test fails when `CI=true` and is skipped otherwise.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::*;
use megaco::codec::Encoding;
use megaco_pcap::write::build;

/// Standard-dialect BER (what Wireshark's H.248 dissector reads) of the
/// first corpus messages, and their compact text.
fn messages() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let std_ber = Encoding::Ber(megaco::ber::BerConfig::default());
    let text: Vec<Vec<u8>> = vectors("compact")[..40]
        .iter()
        .map(|v| v.bytes.clone())
        .collect();
    let ber = text
        .iter()
        .map(|t| std_ber.encode(&megaco::text::decode(t).unwrap()).unwrap())
        .collect();
    (text, ber)
}

/// The captures: name, IP packets, messages in them.
fn captures() -> Vec<(&'static str, Vec<Vec<u8>>, usize)> {
    let (text, ber) = messages();
    let (a4, b4) = ("10.0.0.1", "10.0.0.2");
    let addr = |ip: &str, port: u16| -> std::net::SocketAddr {
        if ip.contains(':') {
            format!("[{ip}]:{port}").parse().unwrap()
        } else {
            format!("{ip}:{port}").parse().unwrap()
        }
    };
    let mut out = Vec::new();
    // UDP, text on 2944 and BER on 2945, IPv4 and IPv6.
    for (name, a, b) in [("udp4", a4, b4), ("udp6", "2001:db8::1", "2001:db8::2")] {
        let mut ips = Vec::new();
        for (t, b_) in text.iter().zip(&ber) {
            ips.push(build::udp(addr(a, 2944), addr(b, 2944), t));
            ips.push(build::udp(addr(a, 2945), addr(b, 2945), b_));
        }
        out.push((name, ips, text.len() * 2));
    }
    // TCP: TPKT frames of BER, two frames per segment.
    let side = TcpSide::new("10.0.0.1:40000", "10.0.0.2:2945", 1000);
    let stream: Vec<u8> = ber.iter().flat_map(|b| build::tpkt(b)).collect();
    let mut ips = vec![side.syn()];
    let mut at = 0;
    for pair in ber.chunks(2) {
        let len: usize = pair.iter().map(|b| b.len() + 4).sum();
        ips.push(side.segment(&stream, at, len));
        at += len;
    }
    out.push(("tcp", ips, ber.len()));
    // IPv4 fragments of large text messages.
    let mut ips = Vec::new();
    let big: Vec<&Vec<u8>> = text.iter().filter(|t| t.len() > 300).collect();
    for (i, t) in big.iter().enumerate() {
        let udp = build::udp_datagram(addr(a4, 2944), addr(b4, 2944), t);
        ips.extend(build::ip_fragments(
            a4.parse().unwrap(),
            b4.parse().unwrap(),
            17,
            &udp,
            i as u32,
            128,
        ));
    }
    out.push(("frag", ips, big.len()));
    // SCTP, PPID 7, one message per packet.
    let ips = text
        .iter()
        .enumerate()
        .map(|(i, t)| {
            build::sctp(
                addr(a4, 2944),
                addr(b4, 2944),
                1,
                &[build::DataChunk {
                    tsn: i as u32,
                    stream: 0,
                    ppid: 7,
                    begin: true,
                    end: true,
                    data: t,
                }],
            )
        })
        .collect();
    out.push(("sctp", ips, text.len()));
    out
}

#[test]
fn tshark_reads_our_captures_as_we_do() {
    let Some(tshark) = tshark() else { return };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tshark-captures");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, ips, n) in captures() {
        for ng in [false, true] {
            let file = capture(&ips, ng);
            let (ours, problems) = read(&file);
            assert!(problems.is_empty(), "{name}: {problems:?}");
            assert_eq!(ours.len(), n, "{name}");
            let path = dir.join(format!("{name}.{}", if ng { "pcapng" } else { "pcap" }));
            std::fs::write(&path, &file).unwrap();
            let out = Command::new(tshark)
                .args(["-n", "-r"])
                .arg(&path)
                .args([
                    "-o",
                    "ip.check_checksum:TRUE",
                    "-o",
                    "udp.check_checksum:TRUE",
                    "-o",
                    "tcp.check_checksum:TRUE",
                    "-o",
                    "sctp.checksum:crc32c",
                    "-T",
                    "fields",
                    "-e",
                    "frame.number",
                    "-e",
                    "frame.protocols",
                    "-e",
                    "_ws.expert.message",
                ])
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let mut h248 = 0;
            for line in stdout.lines() {
                let mut f = line.split('\t');
                let (_, protocols, expert) =
                    (f.next(), f.next().unwrap_or(""), f.next().unwrap_or(""));
                // Malformed frames and bad checksums are the capture's
                // fault; what the H.248 dissectors think of the messages'
                // contents (SDP, package values) is not.
                assert!(!protocols.contains("_ws.malformed"), "{name}: {line}");
                assert!(
                    !expert.to_ascii_lowercase().contains("checksum"),
                    "{name}: {line}"
                );
                if protocols.contains("megaco") || protocols.contains("h248") {
                    h248 += 1;
                }
            }
            let frames = stdout.lines().count();
            assert_eq!(frames, ips.len(), "{name}");
            // Every packet that completes a message carries H.248 for
            // tshark too (TCP: every segment holds whole frames).
            let want = if name == "tcp" { ips.len() - 1 } else { n };
            assert_eq!(h248, want, "{name}: {stdout}");
            eprintln!(
                "{name}: {frames} packets, {h248} with H.248 for tshark, {n} messages for us"
            );
        }
    }
}
