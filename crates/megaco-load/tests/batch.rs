//! Batched and per-datagram sockets carry the same datagrams: more than a
//! batch at once, to several destinations, each from the right sender.
use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use megaco_load::batch::{Inbox, Io, Outbox, BATCH};
use megaco_load::net;

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

#[test]
fn every_datagram_arrives_whole_and_from_its_sender() {
    for io in [Io::Batched, Io::PerDatagram] {
        let from = net::udp(loopback(), true).unwrap();
        let sinks: Vec<_> = (0..3)
            .map(|_| net::udp(loopback(), true).unwrap())
            .collect();
        let addrs: Vec<SocketAddr> = sinks.iter().map(|s| s.local_addr().unwrap()).collect();
        let total = 3 * BATCH + 5;
        let mut out = Outbox::new(io);
        for i in 0..total {
            // Sizes from 1 to 1,500 bytes, each datagram naming its index.
            let len = 1 + (i * 37) % 1500;
            out.push(addrs[i % 3], |buf| {
                buf.extend_from_slice(&(i as u32).to_be_bytes()[..len.min(4)]);
                buf.resize(buf.len() + len.saturating_sub(4), b'x');
            });
        }
        assert_eq!(out.len(), total);
        assert_eq!(out.flush(&from).unwrap(), total, "{io:?}");
        assert!(out.is_empty());
        let mut inbox = Inbox::new(io);
        let mut got: HashMap<usize, Vec<Vec<u8>>> = HashMap::new();
        let end = Instant::now() + Duration::from_secs(10);
        while got.values().map(Vec::len).sum::<usize>() < total && Instant::now() < end {
            for (k, sink) in sinks.iter().enumerate() {
                while inbox.recv(sink).unwrap() > 0 {
                    for (bytes, sender) in inbox.iter() {
                        assert_eq!(sender, from.local_addr().unwrap());
                        got.entry(k).or_default().push(bytes.to_vec());
                    }
                }
            }
        }
        for k in 0..3 {
            let datagrams = &got[&k];
            let want: Vec<usize> = (0..total).filter(|i| i % 3 == k).collect();
            assert_eq!(datagrams.len(), want.len(), "{io:?} sink {k}");
            for (bytes, i) in datagrams.iter().zip(want) {
                assert_eq!(bytes.len(), 1 + (i * 37) % 1500, "{io:?} datagram {i}");
            }
        }
        assert_eq!(inbox.truncated(), 0);
    }
}
