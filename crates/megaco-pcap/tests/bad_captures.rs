//! Captures are untrusted input: truncated files, absurd lengths, corrupt
//! headers, frames cut by the snapshot length and TCP streams with holes
//! are reported per packet, and the rest of the capture is still read.

mod common;

use common::*;
use megaco_pcap::write::{build, Writer};
use megaco_pcap::{Capture, FileError, LinkType, Options, ProblemKind};

fn compact_udp(n: usize) -> (Vec<Vector>, Vec<Vec<u8>>) {
    let sent = vectors("compact")[..n].to_vec();
    let ips = udp_ips(&sent, "10.0.0.1:2944", "10.0.0.2:2944");
    (sent, ips)
}

/// Where each pcap record ends (after the 24-byte file header).
fn record_ends(file: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut at = 24;
    while at + 16 <= file.len() {
        let caplen = u32::from_le_bytes(file[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + caplen;
        ends.push(at);
    }
    ends
}

#[test]
fn a_file_truncated_anywhere_gives_the_whole_records_and_one_report() {
    let (sent, ips) = compact_udp(6);
    for ng in [false, true] {
        let file = capture(&ips, ng);
        // Every byte of the headers, around every record boundary, and
        // every 7th byte inside records.
        let ends = record_ends(&file);
        let near = |c: usize| ends.iter().any(|&e| c.abs_diff(e) <= 2);
        for cut in (0..file.len()).filter(|&c| c < 100 || near(c) || c % 7 == 0) {
            let part = &file[..cut];
            let Ok(c) = Capture::new(part, Options::default()) else {
                // Too short for a header: refused at once.
                assert!(cut < 64, "{cut}");
                continue;
            };
            let mut messages = Vec::new();
            let mut problems = Vec::new();
            for e in c {
                match e {
                    megaco_pcap::Event::Message(m) => messages.push(*m),
                    megaco_pcap::Event::Problem(p) => problems.push(p),
                }
            }
            if !ng {
                let whole = record_ends(&file).iter().filter(|&&e| e <= cut).count();
                assert_eq!(messages.len(), whole, "cut at {cut}");
                let at_boundary = cut == 24 || record_ends(&file).contains(&cut);
                if at_boundary {
                    assert!(problems.is_empty(), "cut at {cut}: {problems:?}");
                } else {
                    assert!(
                        matches!(
                            &problems[..],
                            [p] if matches!(p.kind, ProblemKind::File(FileError::Truncated { .. }))
                        ),
                        "cut at {cut}: {problems:?}"
                    );
                }
            }
            assert_same(&messages, &sent[..messages.len()]);
        }
    }
}

#[test]
fn absurd_record_lengths_stop_the_file_with_a_report() {
    let (sent, ips) = compact_udp(4);
    let mut file = capture(&ips, false);
    let third = record_ends(&file)[1];
    file[third + 8..third + 12].copy_from_slice(&0x7FFF_FFF0u32.to_le_bytes());
    let (messages, problems) = read(&file);
    assert_same(&messages, &sent[..2]);
    assert!(
        matches!(
            &problems[..],
            [p] if matches!(p.kind, ProblemKind::File(FileError::AbsurdLength { .. }))
        ),
        "{problems:?}"
    );

    // pcapng: a block length that is not a multiple of 4 or runs past
    // the file.
    let mut file = capture(&ips, true);
    let len = file.len();
    // The last block's length.
    let last = len - u32::from_le_bytes(file[len - 4..].try_into().unwrap()) as usize;
    file[last + 4..last + 8].copy_from_slice(&0x0FFF_FFF0u32.to_le_bytes());
    let (messages, problems) = read(&file);
    assert_same(&messages, &sent[..3]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(matches!(problems[0].kind, ProblemKind::File(_)));
}

#[test]
fn large_records_are_read() {
    let (sent, ips) = compact_udp(2);
    let mut w = Writer::pcap(Vec::new(), LinkType::ETHERNET).unwrap();
    w.packet(time(0), &build::ethernet(&ips[0])).unwrap();
    // A 200 KB frame of another protocol: larger than the first buffer.
    let mut jumbo = vec![0u8; 200_000];
    jumbo[12..14].copy_from_slice(&0x88B5u16.to_be_bytes());
    w.packet(time(1), &jumbo).unwrap();
    w.packet(time(2), &build::ethernet(&ips[1])).unwrap();
    let (messages, problems) = read(&w.into_inner());
    assert!(problems.is_empty(), "{problems:?}");
    assert_same(&messages, &sent);
}

#[test]
fn not_a_capture_is_refused() {
    for bytes in [
        &b""[..],
        b"MEGACO/1 [10.0.0.1]",
        &[0xD4, 0xC3, 0xB2],
        &[0u8; 100],
    ] {
        assert!(Capture::new(bytes, Options::default()).is_err());
    }
}

#[test]
fn snap_length_cuts_and_corrupt_headers_are_reported_per_packet() {
    let (sent, ips) = compact_udp(6);
    let mut w = Writer::pcap(Vec::new(), LinkType::ETHERNET).unwrap();
    for (i, ip) in ips.iter().enumerate() {
        let frame = build::ethernet(ip);
        match i {
            // Cut by the snapshot length.
            1 => w.packet_cut(time(i), &frame, 60).unwrap(),
            // An IPv4 header length past the packet.
            2 => {
                let mut f = frame.clone();
                f[14] = 0x4F;
                f.truncate(14 + 40);
                w.packet(time(i), &f).unwrap();
            }
            // A UDP length past the datagram.
            3 => {
                let mut f = frame.clone();
                f[14 + 20 + 4..14 + 20 + 6].copy_from_slice(&0xFFF0u16.to_be_bytes());
                w.packet(time(i), &f).unwrap();
            }
            // An Ethernet frame too short for its header.
            4 => w.packet(time(i), &frame[..10]).unwrap(),
            _ => w.packet(time(i), &frame).unwrap(),
        }
    }
    let (messages, problems) = read(&w.into_inner());
    assert_same(&messages, &[sent[0].clone(), sent[5].clone()]);
    let by_packet: Vec<(u64, &ProblemKind)> =
        problems.iter().map(|p| (p.packet, &p.kind)).collect();
    assert!(
        matches!(
            by_packet[..],
            [
                (2, ProblemKind::SnapCut { captured: 60, .. }),
                (3, ProblemKind::Malformed(_)),
                (4, ProblemKind::Malformed(_)),
                (5, ProblemKind::Malformed(_)),
            ]
        ),
        "{by_packet:?}"
    );
}

#[test]
fn a_tcp_stream_with_holes_reports_them_and_reads_on() {
    let sent = vectors("ber")[..12].to_vec();
    let frames: Vec<Vec<u8>> = sent.iter().map(|v| build::tpkt(&v.bytes)).collect();
    let stream: Vec<u8> = frames.concat();
    let side = TcpSide::new("10.0.0.1:40000", "10.0.0.2:2945", 7);
    // One segment per frame, but frame 3 is lost and frame 7 loses its
    // last 5 bytes (cut by the snapshot length).
    let mut w = Writer::pcap(Vec::new(), LinkType::ETHERNET).unwrap();
    w.packet(time(0), &build::ethernet(&side.syn())).unwrap();
    let mut at = 0;
    for (i, f) in frames.iter().enumerate() {
        let frame = build::ethernet(&side.segment(&stream, at, f.len()));
        match i {
            3 => {}
            7 => w.packet_cut(time(i + 1), &frame, frame.len() - 5).unwrap(),
            _ => w.packet(time(i + 1), &frame).unwrap(),
        }
        at += f.len();
    }
    w.packet(time(20), &build::ethernet(&side.fin(stream.len())))
        .unwrap();
    let (messages, problems) = read(&w.into_inner());
    let expect: Vec<Vector> = sent
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 7)
        .map(|(_, v)| v.clone())
        .collect();
    assert_same(&messages, &expect);
    let holes: Vec<&ProblemKind> = problems
        .iter()
        .map(|p| &p.kind)
        .filter(|k| matches!(k, ProblemKind::TcpHole { .. }))
        .collect();
    assert_eq!(holes.len(), 2, "{problems:?}");
    assert!(
        matches!(holes[0], ProblemKind::TcpHole { bytes, partial: 0, .. } if *bytes == frames[3].len() as u64)
    );
    assert!(
        matches!(holes[1], ProblemKind::TcpHole { bytes: 5, partial, .. } if *partial == frames[7].len() - 5)
    );
    assert!(problems
        .iter()
        .any(|p| matches!(p.kind, ProblemKind::SnapCut { .. }) && p.packet == 8));
}

/// A connection with a request and a reply, then closed: by `a` alone
/// (`b` only acknowledges the FIN) or by both. With `lost`, the last
/// `lost` bytes of the request never reach the capture.
fn closed_connection(both: bool, lost: usize) -> Vec<u8> {
    use build::flags::{ACK, FIN, PSH, SYN};
    let a: std::net::SocketAddr = "10.0.0.1:40000".parse().unwrap();
    let b: std::net::SocketAddr = "10.0.0.2:2944".parse().unwrap();
    let req = build::tpkt(b"!/1 [10.0.0.1]:2944 T=1{C=-{N=ROOT{OE=1{al/of}}}}");
    let rep = build::tpkt(b"!/1 [10.0.0.2]:2944 P=1{C=-{N=ROOT}}");
    let (ra, rb) = (req.len() as u32, rep.len() as u32);
    let (ia, ib) = (100u32, 500u32);
    let mut ips = vec![
        build::tcp(a, b, ia, 0, SYN, &[]),
        build::tcp(b, a, ib, ia + 1, SYN | ACK, &[]),
        build::tcp(a, b, ia + 1, ib + 1, ACK, &[]),
        build::tcp(a, b, ia + 1, ib + 1, ACK | PSH, &req[..req.len() - lost]),
        build::tcp(b, a, ib + 1, ia + 1 + ra, ACK | PSH, &rep),
        build::tcp(a, b, ia + 1 + ra, ib + 1 + rb, ACK | FIN, &[]),
    ];
    if both {
        ips.push(build::tcp(b, a, ib + 1 + rb, ia + 2 + ra, ACK | FIN, &[]));
        ips.push(build::tcp(a, b, ia + 2 + ra, ib + 2 + rb, ACK, &[]));
    } else {
        ips.push(build::tcp(b, a, ib + 1 + rb, ia + 2 + ra, ACK, &[]));
    }
    capture(&ips, false)
}

#[test]
fn a_closed_tcp_connection_is_no_hole() {
    for both in [false, true] {
        let (messages, problems) = read(&closed_connection(both, 0));
        assert_eq!(messages.len(), 2, "closed by both: {both}");
        assert!(messages.iter().all(|m| m.message.is_ok()));
        assert_eq!(problems, [], "closed by both: {both}");
        // Bytes lost before the FIN are still a hole.
        let (messages, problems) = read(&closed_connection(both, 7));
        assert_eq!(messages.len(), 1, "closed by both: {both}");
        let holes: Vec<&ProblemKind> = problems
            .iter()
            .map(|p| &p.kind)
            .filter(|k| matches!(k, ProblemKind::TcpHole { .. }))
            .collect();
        assert!(
            matches!(holes[..], [ProblemKind::TcpHole { bytes: 7, .. }]),
            "{problems:?}"
        );
    }
}

/// Reordering around a close: the second of three requests reaches the
/// capture after the third and after the FIN. It is still read, and no
/// byte is reported lost.
#[test]
fn a_segment_overtaken_by_the_fin_is_still_read() {
    use build::flags::{ACK, FIN, PSH, SYN};
    let a: std::net::SocketAddr = "10.0.0.1:40000".parse().unwrap();
    let b: std::net::SocketAddr = "10.0.0.2:2944".parse().unwrap();
    let reqs: Vec<Vec<u8>> = (1..=3)
        .map(|t| {
            build::tpkt(
                format!("!/1 [10.0.0.1]:2944 T={t}{{C=-{{N=ROOT{{OE=1{{al/of}}}}}}}}").as_bytes(),
            )
        })
        .collect();
    let (ia, ib) = (100u32, 500u32);
    let at = |i: usize| ia + 1 + reqs[..i].iter().map(|r| r.len() as u32).sum::<u32>();
    for both in [false, true] {
        let mut ips = vec![
            build::tcp(a, b, ia, 0, SYN, &[]),
            build::tcp(b, a, ib, ia + 1, SYN | ACK, &[]),
            build::tcp(a, b, ia + 1, ib + 1, ACK, &[]),
            build::tcp(a, b, at(0), ib + 1, ACK | PSH, &reqs[0]),
            build::tcp(a, b, at(2), ib + 1, ACK | PSH, &reqs[2]),
            build::tcp(a, b, at(3), ib + 1, ACK | FIN, &[]),
        ];
        if both {
            ips.push(build::tcp(b, a, ib + 1, at(1), ACK | FIN, &[]));
        }
        ips.push(build::tcp(
            a,
            b,
            at(1),
            ib + 1 + u32::from(both),
            ACK | PSH,
            &reqs[1],
        ));
        ips.push(build::tcp(
            b,
            a,
            ib + 1 + u32::from(both),
            at(3) + 1,
            ACK,
            &[],
        ));
        let (messages, problems) = read(&capture(&ips, false));
        assert_eq!(problems, [], "closed by both: {both}");
        let ids: Vec<String> = messages
            .iter()
            .map(|m| String::from_utf8_lossy(&m.bytes).chars().take(24).collect())
            .collect();
        assert_eq!(messages.len(), 3, "closed by both: {both}: {ids:?}");
    }
}

#[test]
fn a_dropped_flow_is_named_in_its_own_direction() {
    // The gateway's address sorts after the controller's: the flow is
    // named as its first packet went, not in address order.
    let mut o = Options::default();
    o.limits.max_flows = 1;
    let mut ips = Vec::new();
    for port in [40000, 40001] {
        let side = TcpSide::new(&format!("10.0.0.9:{port}"), "10.0.0.2:2944", 1);
        ips.push(side.syn());
        ips.push(side.segment(&[0u8; 10], 0, 10));
    }
    let (_, problems) = read_with(&capture(&ips, false), o);
    let evicted: Vec<_> = problems
        .iter()
        .filter(|p| matches!(p.kind, ProblemKind::FlowEvicted(_)))
        .collect();
    assert_eq!(evicted.len(), 1, "{problems:?}");
    assert_eq!(evicted[0].packet, 3);
    assert_eq!(
        evicted[0].flow,
        Some((
            "10.0.0.9:40000".parse().unwrap(),
            "10.0.0.2:2944".parse().unwrap(),
            megaco_pcap::Transport::Tcp
        ))
    );
}

#[test]
fn flow_table_and_early_bytes_are_bounded() {
    let mut o = Options::default();
    o.limits.max_flows = 4;
    o.limits.max_early_bytes = 2000;
    let msg = &vectors("compact")[0].bytes;
    let frame = build::tpkt(msg);
    let mut w = Writer::pcap(Vec::new(), LinkType::ETHERNET).unwrap();
    let mut n = 0;
    for conn in 0..10 {
        let side = TcpSide::new(&format!("10.0.0.1:{}", 40000 + conn), "10.0.0.2:2944", 1);
        w.packet(
            time(n),
            &build::ethernet(&side.segment(&frame, 0, frame.len())),
        )
        .unwrap();
        n += 1;
        // Far-ahead segments that can never be delivered.
        for k in 1..8 {
            let seg = build::tcp(
                side.src,
                side.dst,
                10_000 * k,
                0,
                build::flags::PSH,
                &[0u8; 700],
            );
            w.packet(time(n), &build::ethernet(&seg)).unwrap();
            n += 1;
        }
    }
    let (messages, problems) = read_with(&w.into_inner(), o);
    assert_eq!(messages.len(), 10);
    assert!(problems
        .iter()
        .any(|p| matches!(p.kind, ProblemKind::FlowEvicted(_))));
    assert!(problems
        .iter()
        .any(|p| matches!(p.kind, ProblemKind::TcpHole { .. })));
    // Held bytes never exceeded the bound: an evicted flow held at most
    // max_early_bytes plus one frame.
    for p in &problems {
        if let ProblemKind::FlowEvicted(held) = p.kind {
            assert!(held <= 2000 + 65_535, "{held}");
        }
    }
}

#[test]
fn sctp_garbage_is_reported() {
    let src = "10.0.0.1:2944".parse().unwrap();
    let dst = "10.0.0.2:2944".parse().unwrap();
    let msg = &vectors("compact")[0].bytes;
    let good = build::sctp(
        src,
        dst,
        1,
        &[build::DataChunk {
            tsn: 1,
            stream: 0,
            ppid: 7,
            begin: true,
            end: true,
            data: msg,
        }],
    );
    let mut bad = good.clone();
    // The chunk length runs past the packet.
    bad[20 + 12 + 2..20 + 12 + 4].copy_from_slice(&0xFFFFu16.to_be_bytes());
    let middle = build::sctp(
        src,
        dst,
        1,
        &[build::DataChunk {
            tsn: 9,
            stream: 0,
            ppid: 7,
            begin: false,
            end: true,
            data: b"orphan",
        }],
    );
    let (messages, problems) = read(&capture(&[bad, middle, good], false));
    assert_eq!(messages.len(), 1);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems
        .iter()
        .all(|p| matches!(p.kind, ProblemKind::Sctp(_))));
}

#[test]
fn random_damage_never_panics() {
    let (_, ips) = compact_udp(8);
    let side = TcpSide::new("10.0.0.1:40000", "10.0.0.2:2945", 7);
    let stream: Vec<u8> = vectors("ber")[..4]
        .iter()
        .flat_map(|v| build::tpkt(&v.bytes))
        .collect();
    let mut all = ips;
    all.push(side.syn());
    all.extend(
        stream
            .chunks(50)
            .enumerate()
            .map(|(i, c)| side.segment(&stream, i * 50, c.len())),
    );
    let mut rng = Rng(7);
    for ng in [false, true] {
        let file = capture(&all, ng);
        for _ in 0..400 {
            let mut f = file.clone();
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(f.len());
                f[i] = rng.next() as u8;
            }
            let events = Capture::new(&f[..], Options::default()).map(|c| c.count());
            assert!(events.unwrap_or(0) < 1000);
        }
    }
}

/// A pcapng block (little-endian): type, length, body padded, length.
fn ng_block(kind: u32, body: &[u8]) -> Vec<u8> {
    let padded = body.len().div_ceil(4) * 4;
    let len = (12 + padded) as u32;
    let mut b = kind.to_le_bytes().to_vec();
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(body);
    b.resize(8 + padded, 0);
    b.extend_from_slice(&len.to_le_bytes());
    b
}

/// A pcapng file of one Ethernet interface whose if_tsresol option has
/// the value `tsresol` (no option when empty) and one packet stamped
/// `ticks`.
fn ng_resolution(tsresol: &[u8], ticks: u64) -> Vec<u8> {
    let mut shb = 0x1A2B_3C4Du32.to_le_bytes().to_vec();
    shb.extend_from_slice(&[1, 0, 0, 0]);
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    let mut idb = vec![1, 0, 0, 0];
    idb.extend_from_slice(&0u32.to_le_bytes());
    if !tsresol.is_empty() {
        idb.extend_from_slice(&9u16.to_le_bytes());
        idb.extend_from_slice(&(tsresol.len() as u16).to_le_bytes());
        idb.extend_from_slice(tsresol);
        idb.resize(idb.len().div_ceil(4) * 4, 0);
        idb.extend_from_slice(&[0; 4]);
    }
    let frame = build::ethernet(&build::udp(
        "10.0.0.1:2944".parse().unwrap(),
        "10.0.0.2:2944".parse().unwrap(),
        b"!/1 [10.0.0.1]:2944 T=1{C=-{AV=ROOT}}",
    ));
    let mut epb = 0u32.to_le_bytes().to_vec();
    epb.extend_from_slice(&((ticks >> 32) as u32).to_le_bytes());
    epb.extend_from_slice(&(ticks as u32).to_le_bytes());
    epb.extend_from_slice(&(frame.len() as u32).to_le_bytes());
    epb.extend_from_slice(&(frame.len() as u32).to_le_bytes());
    epb.extend_from_slice(&frame);
    [
        ng_block(0x0A0D_0D0A, &shb),
        ng_block(1, &idb),
        ng_block(6, &epb),
    ]
    .concat()
}

/// A pcapng file in either byte order: one Ethernet interface whose
/// if_tsoffset option is `offset` seconds (microsecond ticks), and one
/// packet stamped `ticks`.
fn ng_offset(big_endian: bool, offset: i64, ticks: u64) -> Vec<u8> {
    let u16b = |v: u16| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let u32b = |v: u32| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let block = |kind: u32, body: &[u8]| {
        let padded = body.len().div_ceil(4) * 4;
        let len = (12 + padded) as u32;
        let mut b = u32b(kind).to_vec();
        b.extend_from_slice(&u32b(len));
        b.extend_from_slice(body);
        b.resize(8 + padded, 0);
        b.extend_from_slice(&u32b(len));
        b
    };
    let mut shb = u32b(0x1A2B_3C4D).to_vec();
    shb.extend_from_slice(&u16b(1));
    shb.extend_from_slice(&u16b(0));
    shb.extend_from_slice(&[0xFF; 8]);
    let mut idb = u16b(1).to_vec();
    idb.extend_from_slice(&u16b(0));
    idb.extend_from_slice(&u32b(0));
    idb.extend_from_slice(&u16b(14)); // if_tsoffset
    idb.extend_from_slice(&u16b(8));
    idb.extend_from_slice(&if big_endian {
        offset.to_be_bytes()
    } else {
        offset.to_le_bytes()
    });
    idb.extend_from_slice(&[0; 4]); // opt_endofopt
    let frame = build::ethernet(&build::udp(
        "10.0.0.1:2944".parse().unwrap(),
        "10.0.0.2:2944".parse().unwrap(),
        b"!/1 [10.0.0.1]:2944 T=1{C=-{AV=ROOT}}",
    ));
    let mut epb = u32b(0).to_vec();
    epb.extend_from_slice(&u32b((ticks >> 32) as u32));
    epb.extend_from_slice(&u32b(ticks as u32));
    epb.extend_from_slice(&u32b(frame.len() as u32));
    epb.extend_from_slice(&u32b(frame.len() as u32));
    epb.extend_from_slice(&frame);
    [block(0x0A0D_0D0A, &shb), block(1, &idb), block(6, &epb)].concat()
}

/// pcapng section 4.2: if_tsoffset is a signed count of seconds added to
/// every timestamp of the interface, written in the section's byte order
/// (tshark reads both files of this test as 1,700,000,000.000005 s for the
/// offset 700,000,000).
#[test]
fn pcapng_time_offsets_in_either_byte_order() {
    let s = 1_000_000_000u64;
    for big_endian in [false, true] {
        for offset in [0i64, 700_000_000, -300_000_000] {
            let (messages, problems) = read(&ng_offset(big_endian, offset, s * 1_000_000 + 5));
            assert_eq!(problems, [], "{big_endian} {offset}");
            assert_eq!(messages.len(), 1, "{big_endian} {offset}");
            let secs = (s as i64 + offset) as u64;
            assert_eq!(
                messages[0].time,
                megaco_pcap::Timestamp(secs * 1_000_000_000 + 5_000),
                "big endian {big_endian}, offset {offset}"
            );
        }
    }
}

#[test]
fn pcapng_time_resolutions_in_either_base_and_absurd_ones_refused() {
    let s = 1_700_000_000u64;
    // Times as tshark reads them (frame.time_epoch).
    for (tsresol, ticks, nanos) in [
        (&[][..], s * 1_000_000 + 250_000, 250_000_000), // no option: µs
        (&[3], s * 1000 + 123, 123_000_000),             // 10^-3 s
        (&[9], s * 1_000_000_000 + 7, 7),                // 10^-9 s
        (&[0x8A], (s << 10) + 600, 585_937_500),         // 2^-10 s
        (&[0x80 | 20], (s << 20) + 1, 953),              // 2^-20 s
    ] {
        let (messages, problems) = read(&ng_resolution(tsresol, ticks));
        assert_eq!(problems, [], "{tsresol:?}");
        assert_eq!(messages.len(), 1, "{tsresol:?}");
        assert_eq!(
            messages[0].time,
            megaco_pcap::Timestamp(s * 1_000_000_000 + nanos),
            "{tsresol:?}"
        );
    }
    // Finer than 64 bits of units per second, or not one byte: refused.
    for tsresol in [&[20][..], &[0x80 | 64], &[0xFF], &[6, 0]] {
        let (messages, problems) = read(&ng_resolution(tsresol, 5));
        assert_eq!(messages.len(), 0, "{tsresol:?}");
        assert!(
            matches!(
                &problems[..],
                [p] if matches!(&p.kind, ProblemKind::File(FileError::Corrupt { reason, .. })
                    if reason.contains("if_tsresol"))
            ),
            "{tsresol:?}: {problems:?}"
        );
    }
}

#[test]
fn overlapping_fragments_with_different_bytes_drop_the_datagram() {
    let msg = &vectors("pretty")
        .into_iter()
        .find(|v| v.bytes.len() > 400)
        .unwrap()
        .bytes;
    for (src, dst) in [
        ("10.0.0.1:2944", "10.0.0.2:2944"),
        ("[2001:db8::1]:2944", "[2001:db8::2]:2944"),
    ] {
        let (src, dst): (std::net::SocketAddr, std::net::SocketAddr) =
            (src.parse().unwrap(), dst.parse().unwrap());
        let udp = build::udp_datagram(src, dst, msg);
        let frags = build::ip_fragments(src.ip(), dst.ip(), 17, &udp, 5, 128);
        assert!(frags.len() >= 4);
        // The second fragment once with other bytes (the IP header, and
        // so the offset, unchanged), then as it should be.
        let mut other = frags[1].clone();
        let n = other.len();
        for b in &mut other[n - 64..] {
            *b ^= 0x5A;
        }
        let mut ips = vec![frags[0].clone(), frags[1].clone(), other];
        ips.extend(frags[2..].iter().cloned());
        let (messages, problems) = read(&capture(&ips, false));
        assert_eq!(messages.len(), 0, "{src}");
        assert!(
            matches!(
                &problems[..],
                [p] if p.packet == 3 && matches!(&p.kind, ProblemKind::Datagram {
                    id: 5, first_packet: 1, reason, ..
                } if reason.contains("overlap"))
            ),
            "{problems:?}"
        );
        let line = problems[0].kind.to_string();
        assert!(
            line.contains(&format!("{} -> {}", src.ip(), dst.ip())),
            "{line}"
        );
    }
}

#[test]
fn a_block_that_does_not_parse_is_named_in_a_few_words() {
    // The packet block's total length set to 0, many packets after it.
    let one = ng_resolution(&[], 5);
    let epb_len = u32::from_le_bytes(one[one.len() - 4..].try_into().unwrap());
    let epb_at = one.len() - epb_len as usize;
    let mut file = one.clone();
    let packets = one[epb_at..].repeat(2000);
    file.truncate(epb_at);
    let bad = file.len();
    file.extend_from_slice(&packets);
    file[bad + 4..bad + 8].copy_from_slice(&0u32.to_le_bytes());
    let (_, problems) = read(&file);
    let [p] = &problems[..] else {
        panic!("{problems:?}")
    };
    let ProblemKind::File(FileError::Corrupt { offset, reason }) = &p.kind else {
        panic!("{p:?}")
    };
    assert_eq!(*offset, bad as u64);
    assert!(reason.contains("declared length 0"), "{reason}");
    assert!(reason.len() < 100, "{} bytes: {reason:.200}", reason.len());
}

#[test]
fn printable_non_megaco_on_an_h248_port_is_refused_as_text() {
    let (src, dst) = (
        "10.0.0.2:2944".parse().unwrap(),
        "10.0.0.1:2944".parse().unwrap(),
    );
    let binary = (
        "10.0.0.2:2945".parse().unwrap(),
        "10.0.0.1:2945".parse().unwrap(),
    );
    let file = capture(
        &[
            build::udp(src, dst, b"hello world\r\n"),
            build::udp(binary.0, binary.1, b"hello world\r\n"),
            build::udp(src, dst, &[0x68, 0x00, 0x01, 0xFF]),
        ],
        false,
    );
    let (messages, problems) = read(&file);
    assert_eq!(problems, []);
    let kinds: Vec<_> = messages
        .iter()
        .map(|m| (m.encoding, m.message.as_ref().err().map(|e| e.to_string())))
        .collect();
    for (kind, err) in &kinds[..2] {
        assert_eq!(*kind, megaco::codec::Kind::Text, "{kinds:?}");
        assert!(
            err.as_ref().is_some_and(|e| e.contains("message header")),
            "{kinds:?}"
        );
    }
    // Bytes that are not text are still tried as PER.
    assert_eq!(kinds[2].0, megaco::codec::Kind::Per, "{kinds:?}");
}

#[test]
fn a_packet_longer_than_its_block_is_corrupt_not_truncated() {
    let mut file = ng_resolution(&[], 5);
    let epb_len = u32::from_le_bytes(file[file.len() - 4..].try_into().unwrap()) as usize;
    let epb_at = file.len() - epb_len;
    // The captured length (after type, length, interface, two time words).
    file[epb_at + 20..epb_at + 24].copy_from_slice(&5000u32.to_le_bytes());
    let (messages, problems) = read(&file);
    assert_eq!(messages.len(), 0);
    assert!(
        matches!(
            &problems[..],
            [p] if matches!(&p.kind, ProblemKind::File(FileError::Corrupt { offset, .. })
                if *offset == epb_at as u64)
        ),
        "{problems:?}"
    );
}
