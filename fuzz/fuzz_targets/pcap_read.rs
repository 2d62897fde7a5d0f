//! Any bytes through the capture reader: as a whole file, and (so the
//! fuzzer reaches the IP, TCP, SCTP and H.248 layers quickly) as frames
//! of a well-formed pcap file whose link type and frame boundaries the
//! input chooses. Reading must never panic, every event must carry a
//! packet number that exists, and held state stays within the limits.
#![no_main]
use libfuzzer_sys::fuzz_target;
use megaco_pcap::write::Writer;
use megaco_pcap::{Capture, Event, LinkType, Options, Timestamp};

/// Small limits, so eviction and give-up paths run often.
fn options() -> Options {
    let mut o = Options::default();
    o.limits.max_flows = 4;
    o.limits.max_early_bytes = 4096;
    o.limits.max_buffered = 16384;
    o.limits.max_datagrams = 4;
    o.limits.max_fragment_bytes = 65_535;
    o.limits.max_message = 8192;
    o
}

fn read_all(file: &[u8]) {
    let Ok(capture) = Capture::new(file, options()) else {
        return;
    };
    let mut last = 0;
    for event in capture {
        let packet = match &event {
            Event::Message(m) => m.packet,
            Event::Problem(p) => p.packet,
        };
        assert!(packet >= last || matches!(event, Event::Problem(_)));
        last = last.max(packet);
    }
}

fuzz_target!(|data: &[u8]| {
    read_all(data);
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let link = match mode % 6 {
        0 => LinkType::ETHERNET,
        1 => LinkType::RAW,
        2 => LinkType::LINUX_SLL,
        3 => LinkType::LINUX_SLL2,
        4 => LinkType::NULL,
        _ => LinkType::IPV6,
    };
    let mut w = Writer::pcap(Vec::new(), link).expect("writing to memory");
    let mut rest = rest;
    let mut n = 0u64;
    while rest.len() >= 2 {
        let len = usize::from(u16::from_be_bytes([rest[0], rest[1]])) % 2048;
        let frame = &rest[2..(2 + len).min(rest.len())];
        w.packet(Timestamp(n * 1_000_000), frame).expect("writing to memory");
        rest = &rest[2 + frame.len()..];
        n += 1;
    }
    read_all(&w.into_inner());
});
