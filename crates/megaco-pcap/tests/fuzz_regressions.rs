//! Inputs the `pcap_read` fuzz target found trouble with
//! (`fuzz/regressions/pcap_read/`), read again the way the target reads
//! them: as a whole file, and as frames of a well-formed pcap file whose
//! link type and frame boundaries the input chooses.

use std::path::PathBuf;

use megaco_pcap::write::Writer;
use megaco_pcap::{Capture, LinkType, Options, Timestamp};

fn read_all(file: &[u8]) -> usize {
    Capture::new(file, Options::default()).map_or(0, |c| c.count())
}

/// The target's second reading: byte 0 picks the link type, then frames
/// of a 2-byte length each.
fn framed(data: &[u8]) -> Vec<u8> {
    let Some((&mode, mut rest)) = data.split_first() else {
        return Vec::new();
    };
    let link = match mode % 6 {
        0 => LinkType::ETHERNET,
        1 => LinkType::RAW,
        2 => LinkType::LINUX_SLL,
        3 => LinkType::LINUX_SLL2,
        4 => LinkType::NULL,
        _ => LinkType::IPV6,
    };
    let mut w = Writer::pcap(Vec::new(), link).unwrap();
    let mut n = 0;
    while rest.len() >= 2 {
        let len = usize::from(u16::from_be_bytes([rest[0], rest[1]])) % 2048;
        let frame = &rest[2..(2 + len).min(rest.len())];
        w.packet(Timestamp(n * 1_000_000), frame).unwrap();
        rest = &rest[2 + frame.len()..];
        n += 1;
    }
    w.into_inner()
}

#[test]
fn fuzz_findings_read_without_panic() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/pcap_read");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        read_all(&data);
        read_all(&framed(&data));
        n += 1;
    }
    assert!(n >= 1);
}
