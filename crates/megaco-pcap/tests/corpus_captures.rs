//! Captures built from the corpus vectors read back every message, equal
//! to the original bytes and decoding to the same model: over UDP, TCP
//! (split, reordered, retransmitted, overlapping), IPv4 and IPv6
//! fragments, SCTP, and every supported link type.

mod common;

use common::*;
use megaco::codec::Kind;
use megaco_pcap::write::{build, Writer};
use megaco_pcap::{LinkType, Transport};
use std::net::SocketAddr;

/// Text on 2944, binary on 2945.
fn port(kind: Kind) -> u16 {
    if kind == Kind::Text {
        2944
    } else {
        2945
    }
}

fn all_vectors() -> Vec<Vector> {
    ["pretty", "compact", "ber", "per"]
        .iter()
        .flat_map(|d| vectors(d))
        .collect()
}

#[test]
fn udp_every_vector_of_every_codec_in_pcap_and_pcapng() {
    let sent = all_vectors();
    let ips: Vec<Vec<u8>> = sent
        .iter()
        .map(|v| {
            let p = port(v.kind);
            build::udp(
                format!("10.0.0.1:{p}").parse().unwrap(),
                format!("10.0.0.2:{p}").parse().unwrap(),
                &v.bytes,
            )
        })
        .collect();
    for ng in [false, true] {
        let (records, problems) = read(&capture(&ips, ng));
        assert!(problems.is_empty(), "{problems:?}");
        assert_same(&records, &sent);
        for (i, r) in records.iter().enumerate() {
            assert_eq!(r.packet, i as u64 + 1);
            assert_eq!(r.time, time(i));
            assert_eq!(r.transport, Transport::Udp);
            assert_eq!(r.src.to_string(), format!("10.0.0.1:{}", port(r.encoding)));
        }
    }
}

#[test]
fn udp_on_other_ports_is_found_by_sniffing_or_by_port() {
    let text = vectors("compact").remove(3);
    let ber = vectors("ber").remove(3);
    let per = vectors("per").remove(3);
    let sent = [text.clone(), ber.clone(), per.clone()];
    let ips = udp_ips(&sent, "10.0.0.1:5000", "10.0.0.2:6000");
    let file = capture(&ips, false);
    // Sniffing finds all three (PER decodes, so it is reported).
    let (records, _) = read(&file);
    assert_same(&records, &[text.clone(), ber.clone(), per.clone()]);
    // Without sniffing, nothing; with the port, everything.
    let mut o = megaco_pcap::Options {
        sniff: false,
        ..Default::default()
    };
    assert!(read_with(&file, o.clone()).0.is_empty());
    o.ports.push(6000);
    assert_same(&read_with(&file, o).0, &[text, ber, per]);
}

/// One TCP stream of TPKT frames, cut into segments of 1 to 300 bytes
/// (several frames in one, one frame over many), sent out of order
/// within a window of 6, with duplicated and overlapping segments.
fn tcp_ips(side: &TcpSide, stream: &[u8], rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut cuts = vec![0usize];
    while *cuts.last().unwrap() < stream.len() {
        let step = 1 + rng.below(300);
        cuts.push((cuts.last().unwrap() + step).min(stream.len()));
    }
    let mut segs: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1] - w[0])).collect();
    for chunk in segs.chunks_mut(6) {
        rng.shuffle(chunk);
    }
    let mut ips = vec![side.syn()];
    for (i, &(at, len)) in segs.iter().enumerate() {
        ips.push(side.segment(stream, at, len));
        if i % 5 == 0 {
            // A retransmission of the same bytes.
            ips.push(side.segment(stream, at, len));
        }
        if i % 7 == 0 && at > 10 {
            // An overlapping segment: the 10 bytes before and the first
            // half of this one.
            ips.push(side.segment(stream, at - 10, 10 + len / 2));
        }
    }
    ips.push(side.fin(stream.len()));
    ips
}

#[test]
fn tcp_split_reordered_retransmitted_and_overlapping_ipv4_and_ipv6() {
    let sent: Vec<Vector> = vectors("ber")
        .into_iter()
        .zip(vectors("compact"))
        .flat_map(|(a, b)| [a, b])
        .collect();
    let stream: Vec<u8> = sent.iter().flat_map(|v| build::tpkt(&v.bytes)).collect();
    for (i, (src, dst)) in [
        ("10.0.0.1:40000", "10.0.0.2:2945"),
        ("[2001:db8::1]:40000", "[2001:db8::2]:2945"),
    ]
    .into_iter()
    .enumerate()
    {
        // An initial sequence number close to the wrap.
        let side = TcpSide::new(src, dst, u32::MAX - 5000 + i as u32);
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 + i as u64);
        let ips = tcp_ips(&side, &stream, &mut rng);
        let (records, problems) = read(&capture(&ips, i == 1));
        assert!(problems.is_empty(), "{problems:?}");
        assert_same(&records, &sent);
        assert!(records
            .iter()
            .all(|r| r.transport == Transport::Tcp && r.src == side.src && r.dst == side.dst));
    }
}

#[test]
fn tcp_on_another_port_is_followed_from_its_first_tpkt_frame() {
    let sent = vectors("compact")[..20].to_vec();
    let stream: Vec<u8> = sent.iter().flat_map(|v| build::tpkt(&v.bytes)).collect();
    let side = TcpSide::new("10.0.0.1:40000", "10.0.0.2:7000", 1000);
    let ips: Vec<Vec<u8>> = stream
        .chunks(100)
        .enumerate()
        .map(|(i, c)| side.segment(&stream, i * 100, c.len()))
        .collect();
    let (records, problems) = read(&capture(&ips, false));
    assert!(problems.is_empty(), "{problems:?}");
    assert_same(&records, &sent);
}

#[test]
fn ip_fragments_reassembled_v4_and_v6_in_any_order() {
    let sent: Vec<Vector> = vectors("pretty")
        .into_iter()
        .filter(|v| v.bytes.len() > 400)
        .take(30)
        .collect();
    assert!(sent.len() >= 10);
    let mut rng = Rng(42);
    for (src, dst) in [
        ("10.0.0.1:2944", "10.0.0.2:2944"),
        ("[2001:db8::1]:2944", "[2001:db8::2]:2944"),
    ] {
        let (src, dst): (SocketAddr, SocketAddr) = (src.parse().unwrap(), dst.parse().unwrap());
        let mut ips = Vec::new();
        for (n, v) in sent.iter().enumerate() {
            let udp = build::udp_datagram(src, dst, &v.bytes);
            let mut frags = build::ip_fragments(src.ip(), dst.ip(), 17, &udp, n as u32 + 1, 128);
            assert!(frags.len() >= 3);
            rng.shuffle(&mut frags);
            // One fragment twice.
            frags.push(frags[0].clone());
            ips.extend(frags);
        }
        let (records, problems) = read(&capture(&ips, false));
        assert!(problems.is_empty(), "{problems:?}");
        assert_same(&records, &sent);
    }
}

#[test]
fn sctp_data_chunks_bundled_split_and_duplicated() {
    let sent: Vec<Vector> = vectors("ber")
        .into_iter()
        .zip(vectors("pretty"))
        .flat_map(|(a, b)| [a, b])
        .take(120)
        .collect();
    let src: SocketAddr = "10.0.0.1:2944".parse().unwrap();
    let dst: SocketAddr = "10.0.0.2:2944".parse().unwrap();
    let mut ips = Vec::new();
    let mut tsn = 100u32;
    let mut i = 0;
    while i < sent.len() {
        let chunk = |tsn, begin, end, data| build::DataChunk {
            tsn,
            stream: 1,
            ppid: 7,
            begin,
            end,
            data,
        };
        match i % 3 {
            // Two messages bundled in one packet.
            0 if i + 1 < sent.len() => {
                let c = [
                    chunk(tsn, true, true, &sent[i].bytes[..]),
                    chunk(tsn + 1, true, true, &sent[i + 1].bytes[..]),
                ];
                ips.push(build::sctp(src, dst, 1, &c));
                // And the whole packet again, retransmitted.
                ips.push(build::sctp(src, dst, 1, &c));
                tsn += 2;
                i += 2;
            }
            // One message in three fragments, three packets.
            _ => {
                let b = &sent[i].bytes[..];
                let (x, y) = (b.len() / 3, 2 * b.len() / 3);
                ips.push(build::sctp(
                    src,
                    dst,
                    1,
                    &[chunk(tsn, true, false, &b[..x])],
                ));
                ips.push(build::sctp(
                    src,
                    dst,
                    1,
                    &[chunk(tsn + 1, false, false, &b[x..y])],
                ));
                ips.push(build::sctp(
                    src,
                    dst,
                    1,
                    &[chunk(tsn + 2, false, true, &b[y..])],
                ));
                tsn += 3;
                i += 1;
            }
        }
    }
    let (records, problems) = read(&capture(&ips, true));
    assert!(problems.is_empty(), "{problems:?}");
    assert_same(&records, &sent);
    assert!(records.iter().all(|r| r.transport == Transport::Sctp));
}

#[test]
fn every_link_type() {
    let sent = vectors("compact")[..10].to_vec();
    let v4 = udp_ips(&sent, "10.0.0.1:2944", "10.0.0.2:2944");
    let v6 = udp_ips(&sent, "[::1]:2944", "[::1]:2944");
    type Wrap = fn(&[u8]) -> Vec<u8>;
    let vlan: Wrap = |ip| build::ethernet_vlan(ip, 42);
    let raw: Wrap = |ip| ip.to_vec();
    let cases: [(LinkType, Wrap); 7] = [
        (LinkType::ETHERNET, build::ethernet),
        (LinkType::ETHERNET, vlan),
        (LinkType::LINUX_SLL, build::linux_sll),
        (LinkType::LINUX_SLL2, build::linux_sll2),
        (LinkType::NULL, build::null_loopback),
        (LinkType::RAW, raw),
        (LinkType::IPV4, raw),
    ];
    for (link, wrap) in cases {
        for ips in [&v4, &v6] {
            if link == LinkType::IPV4 && ips[0][0] >> 4 == 6 {
                continue;
            }
            let mut w = Writer::pcapng(Vec::new(), link).unwrap();
            for (i, ip) in ips.iter().enumerate() {
                w.packet(time(i), &wrap(ip)).unwrap();
            }
            let (records, problems) = read(&w.into_inner());
            assert!(problems.is_empty(), "{link:?}: {problems:?}");
            assert_same(&records, &sent);
        }
    }
}
