//! Shared by the capture tests: the corpus vectors, a deterministic
//! shuffle, TCP connections that number their segments, and reading a
//! capture back.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;

use megaco::codec::{Encoding, Kind};
use megaco_pcap::write::{build, Writer};
use megaco_pcap::{Capture, Event, LinkType, Options, Problem, Record, Timestamp};

/// One corpus vector: its name, codec and bytes.
#[derive(Clone)]
pub struct Vector {
    pub name: String,
    pub kind: Kind,
    pub bytes: Vec<u8>,
}

/// Every vector of `corpus/vectors/<dir>`, sorted by name.
pub fn vectors(dir: &str) -> Vec<Vector> {
    let kind = match dir {
        "pretty" | "compact" => Kind::Text,
        "ber" => Kind::Ber,
        "per" => Kind::Per,
        other => panic!("{other}"),
    };
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus/vectors")
        .join(dir);
    let mut out: Vec<Vector> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|e| {
            let p = e.unwrap().path();
            Vector {
                name: format!("{dir}/{}", p.file_stem().unwrap().to_string_lossy()),
                kind,
                bytes: std::fs::read(&p).unwrap(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(out.len() >= 149, "{dir}: {} vectors", out.len());
    out
}

/// How the reader decodes each codec by default.
pub fn encoding(kind: Kind) -> Encoding {
    match kind {
        Kind::Text => Encoding::pretty(),
        Kind::Ber => Encoding::Ber(megaco::ber::BerConfig::default()),
        Kind::Per => Encoding::per(),
        Kind::Native => Encoding::native(),
    }
}

/// One UDP packet per vector, from `src` to `dst`.
pub fn udp_ips(sent: &[Vector], src: &str, dst: &str) -> Vec<Vec<u8>> {
    let (src, dst) = (src.parse().unwrap(), dst.parse().unwrap());
    sent.iter()
        .map(|v| build::udp(src, dst, &v.bytes))
        .collect()
}

/// A deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// One direction of a TCP connection: numbers the bytes it sends.
pub struct TcpSide {
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub isn: u32,
}

impl TcpSide {
    pub fn new(src: &str, dst: &str, isn: u32) -> Self {
        TcpSide {
            src: src.parse().unwrap(),
            dst: dst.parse().unwrap(),
            isn,
        }
    }

    /// The SYN.
    pub fn syn(&self) -> Vec<u8> {
        build::tcp(self.src, self.dst, self.isn, 0, build::flags::SYN, &[])
    }

    /// A segment carrying `stream[at..at + len]` (no ACK: these tests
    /// draw one direction).
    pub fn segment(&self, stream: &[u8], at: usize, len: usize) -> Vec<u8> {
        let seq = self.isn.wrapping_add(1).wrapping_add(at as u32);
        build::tcp(
            self.src,
            self.dst,
            seq,
            0,
            build::flags::PSH,
            &stream[at..(at + len).min(stream.len())],
        )
    }

    /// The FIN after `len` bytes.
    pub fn fin(&self, len: usize) -> Vec<u8> {
        let seq = self.isn.wrapping_add(1).wrapping_add(len as u32);
        build::tcp(self.src, self.dst, seq, 0, build::flags::FIN, &[])
    }
}

/// Writes IP packets as a pcap (or pcapng) of Ethernet frames, 1 ms apart.
pub fn capture(ips: &[Vec<u8>], ng: bool) -> Vec<u8> {
    let mut w = if ng {
        Writer::pcapng(Vec::new(), LinkType::ETHERNET).unwrap()
    } else {
        Writer::pcap(Vec::new(), LinkType::ETHERNET).unwrap()
    };
    for (i, ip) in ips.iter().enumerate() {
        w.packet(time(i), &build::ethernet(ip)).unwrap();
    }
    w.into_inner()
}

/// The time of the `i`-th packet.
pub fn time(i: usize) -> Timestamp {
    Timestamp(1_700_000_000_000_000_000 + i as u64 * 1_000_000)
}

/// Reads a capture: its messages and its problems.
pub fn read(file: &[u8]) -> (Vec<Record>, Vec<Problem>) {
    read_with(file, Options::default())
}

pub fn read_with(file: &[u8], options: Options) -> (Vec<Record>, Vec<Problem>) {
    let mut messages = Vec::new();
    let mut problems = Vec::new();
    for e in Capture::new(file, options).expect("a capture") {
        match e {
            Event::Message(m) => messages.push(*m),
            Event::Problem(p) => problems.push(p),
        }
    }
    (messages, problems)
}

/// Asserts the records are the vectors, in order, each decoded as its
/// own codec decodes it.
pub fn assert_same(records: &[Record], sent: &[Vector]) {
    assert_eq!(records.len(), sent.len(), "message count");
    for (r, v) in records.iter().zip(sent) {
        assert_eq!(r.bytes, v.bytes, "{}: bytes", v.name);
        assert_eq!(r.encoding, v.kind, "{}: encoding", v.name);
        let want = encoding(v.kind).decode(&v.bytes).unwrap();
        assert_eq!(r.message.as_ref().unwrap(), &want, "{}: message", v.name);
    }
}

/// Where `tshark` is, or `None` (a failure under `CI=true`).
pub fn tshark() -> Option<&'static str> {
    let ok = std::process::Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some("tshark");
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("tshark is not installed (scripts/setup.sh installs it)");
    }
    eprintln!("tshark not installed: skipped");
    None
}
