//! A simulated network between sans-IO endpoints, in the manner of
//! quinn-proto's `tests/util.rs` `Pair`: a clock that jumps from deadline
//! to deadline, datagrams delivered after a latency, and seeded loss,
//! duplication and reordering.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use megaco::model::*;
use megaco_stack::endpoint::{Endpoint, EndpointEvent, Peer, TransportId, TransportKind};
use megaco_stack::engine::{Config, Event};

/// A small deterministic generator (xorshift), so that a failing seed
/// replays.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() % 1_000_000) as f64 / 1_000_000.0 < p
    }
}

/// How the network treats datagrams.
#[derive(Clone, Copy, Debug, Default)]
pub struct Link {
    pub latency: Duration,
    pub loss: f64,
    pub duplication: f64,
    /// Probability that a datagram takes up to 3 times the latency.
    pub reorder: f64,
}

pub fn mid(a: u8) -> Mid {
    Mid::Ip4(Ip4Address {
        address: [127, 0, 0, a],
        port: Some(2944),
    })
}

/// One endpoint of the simulation, at `addr`, on one UDP transport.
pub struct Node {
    pub ep: Endpoint,
    pub addr: SocketAddr,
    pub udp: TransportId,
    pub events: Vec<(Peer, EndpointEvent)>,
}

impl Node {
    pub fn new(config: Config, addr: SocketAddr) -> Self {
        let mut ep = Endpoint::new(config);
        let udp = ep.add_transport(TransportKind::Datagram);
        Node {
            ep,
            addr,
            udp,
            events: Vec::new(),
        }
    }

    /// Who `other` is, seen from here.
    pub fn peer(&self, other: SocketAddr) -> Peer {
        Peer::new(self.udp, other)
    }
}

/// Two nodes and the datagrams in flight between them.
pub struct Pair {
    pub now: Instant,
    pub a: Node,
    pub b: Node,
    pub link: Link,
    pub rng: Rng,
    /// (arrival, sequence) -> (to a?, from, bytes)
    in_flight: BTreeMap<(Instant, u64), (bool, SocketAddr, Vec<u8>)>,
    seq: u64,
    /// Datagrams put on the wire, each way.
    pub sent_ab: usize,
    pub sent_ba: usize,
    /// Drop everything from b to a while set.
    pub block_ba: bool,
}

impl Pair {
    pub fn new(a: Config, b: Config, link: Link, seed: u64) -> Self {
        Pair {
            now: Instant::now(),
            a: Node::new(a, "127.0.0.1:2944".parse().unwrap()),
            b: Node::new(b, "127.0.0.2:2944".parse().unwrap()),
            link,
            rng: Rng::new(seed),
            in_flight: BTreeMap::new(),
            seq: 0,
            sent_ab: 0,
            sent_ba: 0,
            block_ba: false,
        }
    }

    /// Moves what both endpoints send onto the wire.
    pub fn drive_transmits(&mut self) {
        for to_a in [false, true] {
            loop {
                let (from, t) = {
                    let node = if to_a { &mut self.b } else { &mut self.a };
                    match node.ep.poll_transmit() {
                        Some(t) => (node.addr, t),
                        None => break,
                    }
                };
                if to_a {
                    self.sent_ba += 1;
                } else {
                    self.sent_ab += 1;
                }
                self.put(to_a, from, t.contents);
            }
        }
        for node in [&mut self.a, &mut self.b] {
            while let Some(ev) = node.ep.poll_event() {
                let peer = match &ev {
                    EndpointEvent::Transaction { peer, .. } => *peer,
                    _ => Peer::new(node.udp, node.addr),
                };
                node.events.push((peer, ev));
            }
        }
    }

    /// Puts a datagram on the wire, as the link treats it.
    pub fn put(&mut self, to_a: bool, from: SocketAddr, bytes: Vec<u8>) {
        if (to_a && self.block_ba) || self.rng.chance(self.link.loss) {
            return;
        }
        let copies = if self.rng.chance(self.link.duplication) {
            2
        } else {
            1
        };
        for _ in 0..copies {
            let mut latency = self.link.latency;
            if self.rng.chance(self.link.reorder) {
                latency *= 1 + (self.rng.next() % 3) as u32;
            }
            self.seq += 1;
            self.in_flight
                .insert((self.now + latency, self.seq), (to_a, from, bytes.clone()));
        }
    }

    /// The next instant something happens.
    fn next_time(&self) -> Option<Instant> {
        [
            self.a.ep.poll_timeout(),
            self.b.ep.poll_timeout(),
            self.in_flight.keys().next().map(|(t, _)| *t),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Runs one step: delivers what arrives and fires what is due at the
    /// next instant. False when nothing is left to happen before `until`.
    pub fn step(&mut self, until: Instant) -> bool {
        self.drive_transmits();
        let Some(t) = self.next_time() else {
            return false;
        };
        if t > until {
            return false;
        }
        self.now = self.now.max(t);
        while let Some((&(at, seq), _)) = self.in_flight.iter().next() {
            if at > self.now {
                break;
            }
            let (to_a, from, bytes) = self.in_flight.remove(&(at, seq)).unwrap();
            let node = if to_a { &mut self.a } else { &mut self.b };
            let peer = node.peer(from);
            node.ep.handle_datagram(self.now, peer, &bytes);
        }
        self.a.ep.handle_timeout(self.now);
        self.b.ep.handle_timeout(self.now);
        self.drive_transmits();
        true
    }

    /// Runs until nothing is left to happen or `d` has passed.
    pub fn run_for(&mut self, d: Duration) {
        let until = self.now + d;
        while self.step(until) {}
        self.now = self.now.max(until);
    }

    /// The transaction events one node saw.
    pub fn transactions(node: &mut Node) -> Vec<(Peer, Event)> {
        std::mem::take(&mut node.events)
            .into_iter()
            .filter_map(|(p, e)| match e {
                EndpointEvent::Transaction { event, .. } => Some((p, event)),
                _ => None,
            })
            .collect()
    }
}
