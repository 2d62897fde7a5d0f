//! Writing captures: pcap and pcapng files, and the packets to put in
//! them (Ethernet, IPv4 and IPv6 with fragments, UDP, TCP, SCTP, TPKT),
//! with correct lengths and checksums. For test captures, generated
//! traffic and tools.
//!
//! ```
//! use megaco_pcap::write::{build, Writer};
//! use megaco_pcap::{Capture, Event, LinkType, Options, Timestamp};
//!
//! let msg = b"!/1 [10.0.0.1]:2944 T=1{C=-{AV=ROOT}}";
//! let ip = build::udp("10.0.0.1:2944".parse()?, "10.0.0.2:2944".parse()?, msg);
//! let mut w = Writer::pcapng(Vec::new(), LinkType::ETHERNET)?;
//! w.packet(Timestamp(1_700_000_000_000_000_000), &build::ethernet(&ip))?;
//! let file = w.into_inner();
//!
//! let events: Vec<Event> = Capture::new(&file[..], Options::default())?.collect();
//! assert!(matches!(&events[..], [Event::Message(m)] if m.bytes == msg));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{self, Write};

use crate::source::{LinkType, Timestamp};

/// A capture file being written.
pub struct Writer<W: Write> {
    out: W,
    ng: bool,
}

impl<W: Write> Writer<W> {
    /// A pcap file (little-endian, nanosecond timestamps) of one link type.
    pub fn pcap(mut out: W, link: LinkType) -> io::Result<Self> {
        out.write_all(&0xA1B2_3C4Du32.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&[0; 8])?; // zone, sigfigs
        out.write_all(&262_144u32.to_le_bytes())?;
        out.write_all(&(link.0 as u32).to_le_bytes())?;
        Ok(Writer { out, ng: false })
    }

    /// A pcapng file with one section and one interface of one link type
    /// (nanosecond timestamps).
    pub fn pcapng(mut out: W, link: LinkType) -> io::Result<Self> {
        // Section header block.
        let mut shb = Vec::new();
        shb.extend_from_slice(&0x1A2B_3C4Du32.to_le_bytes());
        shb.extend_from_slice(&1u16.to_le_bytes());
        shb.extend_from_slice(&0u16.to_le_bytes());
        shb.extend_from_slice(&(-1i64).to_le_bytes());
        block(&mut out, 0x0A0D_0D0A, &shb)?;
        // Interface description block: if_tsresol = 9 (nanoseconds).
        let mut idb = Vec::new();
        idb.extend_from_slice(&(link.0 as u16).to_le_bytes());
        idb.extend_from_slice(&0u16.to_le_bytes());
        idb.extend_from_slice(&262_144u32.to_le_bytes());
        idb.extend_from_slice(&9u16.to_le_bytes());
        idb.extend_from_slice(&1u16.to_le_bytes());
        idb.extend_from_slice(&[9, 0, 0, 0]);
        idb.extend_from_slice(&[0; 4]); // opt_endofopt
        block(&mut out, 1, &idb)?;
        Ok(Writer { out, ng: true })
    }

    /// Writes one packet as captured in full.
    pub fn packet(&mut self, time: Timestamp, data: &[u8]) -> io::Result<()> {
        self.packet_cut(time, data, data.len())
    }

    /// Writes one packet of which only the first `snap` bytes were captured.
    pub fn packet_cut(&mut self, time: Timestamp, data: &[u8], snap: usize) -> io::Result<()> {
        let captured = &data[..snap.min(data.len())];
        let (cap, orig) = (captured.len() as u32, data.len() as u32);
        if self.ng {
            let mut epb = Vec::with_capacity(20 + captured.len() + 3);
            epb.extend_from_slice(&0u32.to_le_bytes());
            epb.extend_from_slice(&((time.0 >> 32) as u32).to_le_bytes());
            epb.extend_from_slice(&(time.0 as u32).to_le_bytes());
            epb.extend_from_slice(&cap.to_le_bytes());
            epb.extend_from_slice(&orig.to_le_bytes());
            epb.extend_from_slice(captured);
            block(&mut self.out, 6, &epb)
        } else {
            let secs = (time.0 / 1_000_000_000) as u32;
            let nanos = (time.0 % 1_000_000_000) as u32;
            let mut rec = [0u8; 16];
            rec[..4].copy_from_slice(&secs.to_le_bytes());
            rec[4..8].copy_from_slice(&nanos.to_le_bytes());
            rec[8..12].copy_from_slice(&cap.to_le_bytes());
            rec[12..].copy_from_slice(&orig.to_le_bytes());
            self.out.write_all(&rec)?;
            self.out.write_all(captured)
        }
    }

    /// Flushes and returns the output.
    pub fn into_inner(mut self) -> W {
        let _ = self.out.flush();
        self.out
    }
}

/// A pcapng block: type, length, body padded to 4 bytes, length again.
fn block(out: &mut impl Write, kind: u32, body: &[u8]) -> io::Result<()> {
    let padded = (body.len() + 3) & !3;
    let len = (12 + padded) as u32;
    out.write_all(&kind.to_le_bytes())?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(body)?;
    out.write_all(&[0; 3][..padded - body.len()])?;
    out.write_all(&len.to_le_bytes())
}

/// Packet builders. The IP-level builders return an IP packet; wrap it in
/// a link layer with [`build::ethernet`] and friends.
pub mod build {
    use std::net::{IpAddr, SocketAddr};

    /// TCP flags.
    pub mod flags {
        /// FIN.
        pub const FIN: u8 = 0x01;
        /// SYN.
        pub const SYN: u8 = 0x02;
        /// RST.
        pub const RST: u8 = 0x04;
        /// PSH.
        pub const PSH: u8 = 0x08;
        /// ACK.
        pub const ACK: u8 = 0x10;
    }

    /// An Ethernet II frame around an IP packet.
    pub fn ethernet(ip: &[u8]) -> Vec<u8> {
        let mut f = Vec::with_capacity(14 + ip.len());
        f.extend_from_slice(&[0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1]);
        f.extend_from_slice(&ether_type(ip).to_be_bytes());
        f.extend_from_slice(ip);
        f
    }

    /// An Ethernet II frame with an 802.1Q tag.
    pub fn ethernet_vlan(ip: &[u8], vlan: u16) -> Vec<u8> {
        let mut f = Vec::with_capacity(18 + ip.len());
        f.extend_from_slice(&[0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x81, 0x00]);
        f.extend_from_slice(&(vlan & 0x0FFF).to_be_bytes());
        f.extend_from_slice(&ether_type(ip).to_be_bytes());
        f.extend_from_slice(ip);
        f
    }

    /// A Linux cooked (v1) frame around an IP packet.
    pub fn linux_sll(ip: &[u8]) -> Vec<u8> {
        let mut f = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0];
        f.extend_from_slice(&ether_type(ip).to_be_bytes());
        f.extend_from_slice(ip);
        f
    }

    /// A Linux cooked v2 frame around an IP packet.
    pub fn linux_sll2(ip: &[u8]) -> Vec<u8> {
        let mut f = ether_type(ip).to_be_bytes().to_vec();
        f.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
        f.extend_from_slice(ip);
        f
    }

    /// A BSD loopback frame (address family in host byte order, little
    /// endian here) around an IP packet.
    pub fn null_loopback(ip: &[u8]) -> Vec<u8> {
        let family: u32 = if ip.first().is_some_and(|b| b >> 4 == 6) {
            30
        } else {
            2
        };
        let mut f = family.to_le_bytes().to_vec();
        f.extend_from_slice(ip);
        f
    }

    fn ether_type(ip: &[u8]) -> u16 {
        if ip.first().is_some_and(|b| b >> 4 == 6) {
            0x86DD
        } else {
            0x0800
        }
    }

    /// An IP packet (IPv4 or IPv6 by the addresses) of protocol `proto`.
    pub fn ip(src: IpAddr, dst: IpAddr, proto: u8, payload: &[u8]) -> Vec<u8> {
        match (src, dst) {
            (IpAddr::V4(s), IpAddr::V4(d)) => {
                ipv4(s.octets(), d.octets(), proto, 0, 0, false, payload)
            }
            _ => {
                let mut p = ipv6_header(src, dst, proto, payload.len());
                p.extend_from_slice(payload);
                p
            }
        }
    }

    /// An IPv4 packet with its fragment fields and header checksum.
    fn ipv4(
        src: [u8; 4],
        dst: [u8; 4],
        proto: u8,
        id: u16,
        offset: usize,
        more: bool,
        payload: &[u8],
    ) -> Vec<u8> {
        let total = (20 + payload.len()) as u16;
        let frag = ((offset / 8) as u16) | if more { 0x2000 } else { 0 };
        let mut h = vec![0x45, 0];
        h.extend_from_slice(&total.to_be_bytes());
        h.extend_from_slice(&id.to_be_bytes());
        h.extend_from_slice(&frag.to_be_bytes());
        h.extend_from_slice(&[64, proto, 0, 0]);
        h.extend_from_slice(&src);
        h.extend_from_slice(&dst);
        let sum = checksum(&[&h]);
        h[10..12].copy_from_slice(&sum.to_be_bytes());
        h.extend_from_slice(payload);
        h
    }

    fn ipv6_header(src: IpAddr, dst: IpAddr, next: u8, len: usize) -> Vec<u8> {
        let mut h = vec![0x60, 0, 0, 0];
        h.extend_from_slice(&(len as u16).to_be_bytes());
        h.extend_from_slice(&[next, 64]);
        h.extend_from_slice(&v6(src));
        h.extend_from_slice(&v6(dst));
        h
    }

    fn v6(a: IpAddr) -> [u8; 16] {
        match a {
            IpAddr::V6(a) => a.octets(),
            IpAddr::V4(a) => a.to_ipv6_mapped().octets(),
        }
    }

    /// The IP packets of a datagram cut into fragments carrying at most
    /// `max` payload bytes each (rounded down to a multiple of 8), in
    /// order. IPv6 fragments carry a fragment header.
    pub fn ip_fragments(
        src: IpAddr,
        dst: IpAddr,
        proto: u8,
        payload: &[u8],
        id: u32,
        max: usize,
    ) -> Vec<Vec<u8>> {
        let step = (max / 8).max(1) * 8;
        let mut out = Vec::new();
        let mut offset = 0;
        while offset < payload.len() || (offset == 0 && payload.is_empty()) {
            let end = (offset + step).min(payload.len());
            let more = end < payload.len();
            let part = &payload[offset..end];
            out.push(match (src, dst) {
                (IpAddr::V4(s), IpAddr::V4(d)) => {
                    ipv4(s.octets(), d.octets(), proto, id as u16, offset, more, part)
                }
                _ => {
                    let mut p = ipv6_header(src, dst, 44, 8 + part.len());
                    let frag = ((offset / 8) as u16) << 3 | u16::from(more);
                    p.extend_from_slice(&[proto, 0]);
                    p.extend_from_slice(&frag.to_be_bytes());
                    p.extend_from_slice(&id.to_be_bytes());
                    p.extend_from_slice(part);
                    p
                }
            });
            offset = end;
            if payload.is_empty() {
                break;
            }
        }
        out
    }

    /// The UDP datagram (header and payload, checksum set), not yet in IP.
    pub fn udp_datagram(src: SocketAddr, dst: SocketAddr, payload: &[u8]) -> Vec<u8> {
        let mut u = Vec::with_capacity(8 + payload.len());
        u.extend_from_slice(&src.port().to_be_bytes());
        u.extend_from_slice(&dst.port().to_be_bytes());
        u.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
        u.extend_from_slice(&[0, 0]);
        u.extend_from_slice(payload);
        let sum = match checksum(&[&pseudo(src.ip(), dst.ip(), 17, u.len()), &u]) {
            0 => 0xFFFF,
            s => s,
        };
        u[6..8].copy_from_slice(&sum.to_be_bytes());
        u
    }

    /// An IP packet carrying one UDP datagram.
    pub fn udp(src: SocketAddr, dst: SocketAddr, payload: &[u8]) -> Vec<u8> {
        ip(src.ip(), dst.ip(), 17, &udp_datagram(src, dst, payload))
    }

    /// An IP packet carrying one TCP segment (`flags` from [`flags`]; the
    /// ACK flag makes `ack` count).
    pub fn tcp(
        src: SocketAddr,
        dst: SocketAddr,
        seq: u32,
        ack: u32,
        flags: u8,
        payload: &[u8],
    ) -> Vec<u8> {
        let mut t = Vec::with_capacity(20 + payload.len());
        t.extend_from_slice(&src.port().to_be_bytes());
        t.extend_from_slice(&dst.port().to_be_bytes());
        t.extend_from_slice(&seq.to_be_bytes());
        t.extend_from_slice(&ack.to_be_bytes());
        t.extend_from_slice(&[0x50, flags, 0xFF, 0xFF, 0, 0, 0, 0]);
        t.extend_from_slice(payload);
        let sum = checksum(&[&pseudo(src.ip(), dst.ip(), 6, t.len()), &t]);
        t[16..18].copy_from_slice(&sum.to_be_bytes());
        ip(src.ip(), dst.ip(), 6, &t)
    }

    /// A TPKT frame (RFC 1006) around a message.
    ///
    /// # Panics
    ///
    /// When the message is longer than a TPKT frame can hold (65531 bytes).
    pub fn tpkt(payload: &[u8]) -> Vec<u8> {
        let len = u16::try_from(payload.len() + 4).expect("message fits a TPKT frame");
        let mut f = vec![3, 0];
        f.extend_from_slice(&len.to_be_bytes());
        f.extend_from_slice(payload);
        f
    }

    /// One SCTP DATA chunk.
    #[derive(Debug, Clone, Copy)]
    pub struct DataChunk<'a> {
        /// Transmission sequence number.
        pub tsn: u32,
        /// Stream.
        pub stream: u16,
        /// Payload protocol identifier (7 for H.248).
        pub ppid: u32,
        /// First fragment of the user message.
        pub begin: bool,
        /// Last fragment.
        pub end: bool,
        /// The user data.
        pub data: &'a [u8],
    }

    /// An IP packet carrying one SCTP packet with the given DATA chunks
    /// (CRC32c checksum set).
    pub fn sctp(src: SocketAddr, dst: SocketAddr, vtag: u32, chunks: &[DataChunk<'_>]) -> Vec<u8> {
        let mut s = Vec::new();
        s.extend_from_slice(&src.port().to_be_bytes());
        s.extend_from_slice(&dst.port().to_be_bytes());
        s.extend_from_slice(&vtag.to_be_bytes());
        s.extend_from_slice(&[0; 4]);
        for c in chunks {
            let flags = u8::from(c.end) | (u8::from(c.begin) << 1);
            s.extend_from_slice(&[0, flags]);
            s.extend_from_slice(&((16 + c.data.len()) as u16).to_be_bytes());
            s.extend_from_slice(&c.tsn.to_be_bytes());
            s.extend_from_slice(&c.stream.to_be_bytes());
            s.extend_from_slice(&0u16.to_be_bytes());
            s.extend_from_slice(&c.ppid.to_be_bytes());
            s.extend_from_slice(c.data);
            s.resize((s.len() + 3) & !3, 0);
        }
        let crc = crc32c(&s);
        s[8..12].copy_from_slice(&crc.to_le_bytes());
        ip(src.ip(), dst.ip(), 132, &s)
    }

    /// The TCP/UDP pseudo-header.
    fn pseudo(src: IpAddr, dst: IpAddr, proto: u8, len: usize) -> Vec<u8> {
        let mut p = Vec::with_capacity(40);
        match (src, dst) {
            (IpAddr::V4(s), IpAddr::V4(d)) => {
                p.extend_from_slice(&s.octets());
                p.extend_from_slice(&d.octets());
                p.extend_from_slice(&[0, proto]);
                p.extend_from_slice(&(len as u16).to_be_bytes());
            }
            _ => {
                p.extend_from_slice(&v6(src));
                p.extend_from_slice(&v6(dst));
                p.extend_from_slice(&(len as u32).to_be_bytes());
                p.extend_from_slice(&[0, 0, 0, proto]);
            }
        }
        p
    }

    /// The Internet checksum over the concatenation of `parts` (each of
    /// even length but the last).
    fn checksum(parts: &[&[u8]]) -> u16 {
        let mut sum: u32 = 0;
        for part in parts {
            for pair in part.chunks(2) {
                let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
                sum += u32::from(word);
            }
        }
        while sum > 0xFFFF {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        !(sum as u16)
    }

    /// CRC32c (Castagnoli), as SCTP checksums its packets.
    fn crc32c(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0x82F6_3B78
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn crc32c_check_value() {
            assert_eq!(super::crc32c(b"123456789"), 0xE306_9283);
        }

        #[test]
        fn checksums_verify() {
            let ip = super::udp(
                "10.0.0.1:1".parse().unwrap(),
                "10.0.0.2:2".parse().unwrap(),
                b"abc",
            );
            assert_eq!(super::checksum(&[&ip[..20]]), 0);
        }
    }
}
