//! IPv4 and IPv6 fragment reassembly, bounded in the number of datagrams
//! held, their size and their age.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;

use crate::link::Fragment;
use crate::source::Timestamp;

/// The largest datagram reassembled (the IP length fields' limit).
pub const MAX_DATAGRAM: usize = 65_535;

/// How long the fragments of one datagram wait for the rest, in capture
/// time (Linux waits 30 s).
const TIMEOUT_NS: u64 = 30_000_000_000;

/// How long a fragment of a datagram just completed counts as a duplicate
/// (rather than the start of a new datagram reusing the id).
const DUPLICATE_NS: u64 = 2_000_000_000;
/// Datagrams remembered as done with.
const COMPLETED: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    src: IpAddr,
    dst: IpAddr,
    proto: u8,
    id: u32,
}

struct Datagram {
    data: Vec<u8>,
    /// Byte ranges received, sorted and merged.
    have: Vec<(usize, usize)>,
    /// The total length, once the last fragment is in.
    total: Option<usize>,
    first_packet: u64,
    first_time: Timestamp,
    /// Which entry of `Defrag::order` is this datagram's.
    generation: u64,
}

/// A datagram given up on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// The packet of its first fragment.
    pub first_packet: u64,
    /// Its source and destination.
    pub src: IpAddr,
    /// Destination.
    pub dst: IpAddr,
    /// Its IP identification.
    pub id: u32,
    /// Bytes received of it.
    pub received: usize,
    /// Why.
    pub reason: &'static str,
}

/// What a fragment did.
#[derive(Debug)]
pub enum Outcome {
    /// Held until the rest arrives.
    Held,
    /// A copy of a fragment of a datagram already complete.
    Duplicate,
    /// The datagram is complete: its payload.
    Complete(Vec<u8>),
    /// The fragment itself was refused.
    Refused(&'static str),
    /// The fragment overlaps bytes received before with other bytes: the
    /// datagram is ambiguous and dropped (reported by `take_dropped`).
    Conflict,
}

/// Datagrams being reassembled.
pub struct Defrag {
    pending: HashMap<Key, Datagram>,
    /// Datagrams in arrival order, for eviction by age and count.
    order: VecDeque<(Key, u64)>,
    bytes: usize,
    generation: u64,
    max_datagrams: usize,
    max_bytes: usize,
    /// Datagrams given up on since the last `take_dropped`.
    dropped: Vec<Dropped>,
    /// Datagrams recently completed or dropped for overlaps, and when.
    completed: VecDeque<(Key, Timestamp)>,
}

impl Defrag {
    /// At most `max_datagrams` datagrams in reassembly holding at most
    /// `max_bytes` together.
    pub fn new(max_datagrams: usize, max_bytes: usize) -> Self {
        Defrag {
            pending: HashMap::new(),
            order: VecDeque::new(),
            bytes: 0,
            generation: 0,
            max_datagrams: max_datagrams.max(1),
            max_bytes: max_bytes.max(MAX_DATAGRAM),
            dropped: Vec::new(),
            completed: VecDeque::new(),
        }
    }

    /// Adds one fragment.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        src: IpAddr,
        dst: IpAddr,
        proto: u8,
        frag: Fragment,
        payload: &[u8],
        packet: u64,
        time: Timestamp,
    ) -> Outcome {
        let end = frag.offset + payload.len();
        if end > MAX_DATAGRAM {
            return Outcome::Refused("fragment ends past 65535 bytes");
        }
        if frag.more && payload.len() % 8 != 0 {
            return Outcome::Refused("fragment length not a multiple of 8");
        }
        self.expire(time);
        let key = Key {
            src,
            dst,
            proto,
            id: frag.id,
        };
        if !self.pending.contains_key(&key) {
            if self
                .completed
                .iter()
                .any(|&(k, t)| k == key && time.since(t) <= DUPLICATE_NS)
            {
                return Outcome::Duplicate;
            }
            self.make_room(end);
            self.generation += 1;
            self.order.push_back((key, self.generation));
            self.pending.insert(
                key,
                Datagram {
                    data: Vec::new(),
                    have: Vec::new(),
                    total: None,
                    first_packet: packet,
                    first_time: time,
                    generation: self.generation,
                },
            );
        }
        let d = self.pending.get_mut(&key).expect("inserted above");
        if let Some(total) = d.total {
            if end > total || (!frag.more && end != total) {
                return Outcome::Refused("fragment past the datagram's last fragment");
            }
        }
        if !frag.more {
            if d.have.last().is_some_and(|&(_, e)| e > end) {
                return Outcome::Refused("last fragment ends before data already received");
            }
            d.total = Some(end);
        }
        // Overlaps must bring the same bytes: otherwise which copy the
        // receiver kept is anyone's guess (RFC 5722, RFC 8200 4.5).
        let conflict = d.have.iter().any(|&(s, e)| {
            let (from, to) = (s.max(frag.offset), e.min(end));
            from < to && d.data[from..to] != payload[from - frag.offset..to - frag.offset]
        });
        if conflict {
            let generation = d.generation;
            self.drop_entry(key, generation, "fragments overlap with different bytes");
            // Its other fragments are dropped too.
            self.remember(key, time);
            return Outcome::Conflict;
        }
        if d.data.len() < end {
            self.bytes += end - d.data.len();
            d.data.resize(end, 0);
        }
        d.data[frag.offset..end].copy_from_slice(payload);
        insert_range(&mut d.have, (frag.offset, end));
        if d.total.is_some_and(|t| d.have == [(0, t)]) {
            let d = self.pending.remove(&key).expect("present");
            self.bytes -= d.data.len();
            self.remember(key, time);
            return Outcome::Complete(d.data);
        }
        if self.bytes > self.max_bytes {
            self.make_room(0);
        }
        Outcome::Held
    }

    /// Gives up on every datagram still incomplete (the end of the
    /// capture).
    pub fn finish(&mut self) {
        while let Some((key, generation)) = self.order.pop_front() {
            self.drop_entry(key, generation, "capture ended before its last fragment");
        }
    }

    /// Remembers a datagram done with (completed or dropped), so that
    /// late copies of its fragments do not start it again.
    fn remember(&mut self, key: Key, time: Timestamp) {
        if self.completed.len() == COMPLETED {
            self.completed.pop_front();
        }
        self.completed.push_back((key, time));
    }

    /// Datagrams given up on since the last call.
    pub fn take_dropped(&mut self) -> Vec<Dropped> {
        std::mem::take(&mut self.dropped)
    }

    fn expire(&mut self, now: Timestamp) {
        while let Some(&(key, generation)) = self.order.front() {
            match self.pending.get(&key) {
                Some(d) if d.generation == generation => {
                    if now.since(d.first_time) <= TIMEOUT_NS {
                        break;
                    }
                    self.order.pop_front();
                    self.drop_entry(key, generation, "timed out waiting for fragments");
                }
                _ => {
                    self.order.pop_front();
                }
            }
        }
    }

    /// Evicts the oldest datagrams until one more of `incoming` bytes fits.
    fn make_room(&mut self, incoming: usize) {
        while self.pending.len() >= self.max_datagrams
            || (self.bytes + incoming > self.max_bytes && !self.pending.is_empty())
        {
            let Some((key, generation)) = self.order.pop_front() else {
                break;
            };
            self.drop_entry(key, generation, "evicted: too many datagrams in reassembly");
        }
    }

    fn drop_entry(&mut self, key: Key, generation: u64, reason: &'static str) {
        if self
            .pending
            .get(&key)
            .is_some_and(|d| d.generation == generation)
        {
            let d = self.pending.remove(&key).expect("present");
            self.bytes -= d.data.len();
            self.dropped.push(Dropped {
                first_packet: d.first_packet,
                src: key.src,
                dst: key.dst,
                id: key.id,
                received: d.have.iter().map(|(s, e)| e - s).sum(),
                reason,
            });
        }
    }
}

/// Adds `new` to sorted, disjoint, non-adjacent ranges.
fn insert_range(ranges: &mut Vec<(usize, usize)>, new: (usize, usize)) {
    let (mut s, mut e) = new;
    if s == e {
        return;
    }
    let mut out = Vec::with_capacity(ranges.len() + 1);
    let mut placed = false;
    for &(rs, re) in ranges.iter() {
        if re < s {
            out.push((rs, re));
        } else if rs > e {
            if !placed {
                out.push((s, e));
                placed = true;
            }
            out.push((rs, re));
        } else {
            s = s.min(rs);
            e = e.max(re);
        }
    }
    if !placed {
        out.push((s, e));
    }
    *ranges = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frag(offset: usize, more: bool) -> Fragment {
        Fragment {
            id: 7,
            offset,
            more,
        }
    }

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

    #[test]
    fn reassembles_in_any_order_with_overlaps() {
        let data: Vec<u8> = (0..40u8).collect();
        let mut d = Defrag::new(4, 1 << 20);
        let t = Timestamp(0);
        assert!(matches!(
            d.add(A, B, 17, frag(24, false), &data[24..], 1, t),
            Outcome::Held
        ));
        assert!(matches!(
            d.add(A, B, 17, frag(8, true), &data[8..24], 2, t),
            Outcome::Held
        ));
        // A retransmitted middle fragment overlapping the others.
        assert!(matches!(
            d.add(A, B, 17, frag(8, true), &data[8..16], 3, t),
            Outcome::Held
        ));
        match d.add(A, B, 17, frag(0, true), &data[..16], 4, t) {
            Outcome::Complete(v) => assert_eq!(v, data),
            other => panic!("{other:?}"),
        }
        // A late copy of a fragment is a duplicate, not a new datagram.
        assert!(matches!(
            d.add(A, B, 17, frag(8, true), &data[8..16], 5, t),
            Outcome::Duplicate
        ));
        assert!(d.pending.is_empty() && d.bytes == 0);
    }

    #[test]
    fn bounded_in_count_and_age() {
        let mut d = Defrag::new(2, 1 << 20);
        for id in 0..5u32 {
            let f = Fragment {
                id,
                offset: 0,
                more: true,
            };
            d.add(A, B, 17, f, &[0; 8], u64::from(id), Timestamp(0));
        }
        assert_eq!(d.pending.len(), 2);
        assert_eq!(d.take_dropped().len(), 3);
        // Ages out after the timeout.
        d.add(
            A,
            B,
            17,
            frag(0, true),
            &[0; 8],
            9,
            Timestamp(TIMEOUT_NS + 1),
        );
        assert_eq!(d.pending.len(), 1);
        assert_eq!(d.take_dropped().len(), 2);
        d.finish();
        assert_eq!(d.take_dropped().len(), 1);
        assert_eq!(d.bytes, 0);
    }

    #[test]
    fn refuses_absurd_fragments() {
        let mut d = Defrag::new(2, 1 << 20);
        let t = Timestamp(0);
        assert!(matches!(
            d.add(A, B, 17, frag(65_528, true), &[0; 16], 1, t),
            Outcome::Refused(_)
        ));
        assert!(matches!(
            d.add(A, B, 17, frag(0, true), &[0; 7], 1, t),
            Outcome::Refused(_)
        ));
        d.add(A, B, 17, frag(8, false), &[0; 8], 1, t);
        assert!(matches!(
            d.add(A, B, 17, frag(16, true), &[0; 8], 1, t),
            Outcome::Refused(_)
        ));
    }
}
