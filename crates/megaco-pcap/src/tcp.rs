//! TCP stream reassembly and TPKT framing (RFC 1006, H.248.1 Annex H.2).
//!
//! Each direction of a connection is put back in order: segments that
//! arrive early wait (bounded), retransmitted and overlapping bytes are
//! taken once, and the contiguous stream is cut into TPKT frames, several
//! per segment or one over many. Bytes the capture never saw (lost
//! segments, frames cut by the snapshot length) leave a hole: it is
//! reported, the frame it broke is dropped, and framing picks up at the
//! next TPKT header.

use std::collections::BTreeMap;

use megaco::codec::sniff;

/// What reassembly produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Out {
    /// The payload of one TPKT frame.
    Frame(Vec<u8>),
    /// Something to report.
    Problem(StreamProblem),
}

/// Trouble in one direction of a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamProblem {
    /// Bytes the capture does not have.
    Hole {
        /// Offset of the first missing byte in the stream.
        at: u64,
        /// How many are missing.
        bytes: u64,
        /// Bytes of a frame in progress thrown away with the hole.
        partial: usize,
    },
    /// Bytes skipped looking for a TPKT header.
    NotTpkt {
        /// How many.
        bytes: u64,
    },
    /// The stream ended (FIN, RST or the end of the capture) inside a frame.
    Ended {
        /// Bytes of the unfinished frame.
        partial: usize,
    },
}

/// One TCP segment, as far as reassembly cares.
#[derive(Debug, Clone, Copy)]
pub struct Segment<'a> {
    /// Sequence number.
    pub seq: u32,
    /// SYN flag.
    pub syn: bool,
    /// FIN flag.
    pub fin: bool,
    /// The payload.
    pub payload: &'a [u8],
}

/// One direction of a connection.
#[derive(Debug, Default)]
pub struct HalfStream {
    started: bool,
    /// Sequence number of the next byte expected.
    next_seq: u32,
    /// Sequence number of the FIN, once seen: the stream's data ends
    /// there, and the FIN itself takes one sequence number that is no
    /// data (the peer's acknowledgement of it is no hole).
    fin_seq: Option<u32>,
    /// A FIN was seen (even before the stream started).
    fin_seen: bool,
    /// Stream offset of the next byte expected.
    pos: u64,
    /// Early segments by stream offset.
    ooo: BTreeMap<u64, Vec<u8>>,
    ooo_bytes: usize,
    /// Bytes of the frame in progress.
    buf: Vec<u8>,
    /// `buf` starts at a TPKT header.
    synced: bool,
    /// Bytes skipped while looking for a header, not yet reported.
    skipped: u64,
    /// Segments that brought nothing new.
    pub retransmissions: u64,
}

impl HalfStream {
    /// Bytes held (early segments and the frame in progress).
    pub fn held(&self) -> usize {
        self.ooo_bytes + self.buf.len()
    }

    /// Takes one segment; `budget` is what early segments may still take
    /// (shared by all streams), `max_early` what this one may hold.
    pub fn segment(
        &mut self,
        seg: Segment<'_>,
        budget: &mut usize,
        max_early: usize,
        out: &mut Vec<Out>,
    ) {
        self.fin_seen |= seg.fin;
        if !self.started {
            if seg.syn {
                self.next_seq = seg.seq.wrapping_add(1);
                self.synced = true;
            } else if !seg.payload.is_empty() {
                self.next_seq = seg.seq;
                // Joined mid-stream: look for a header.
                self.synced = false;
            } else {
                return;
            }
            self.started = true;
        }
        let data_seq = if seg.syn {
            seg.seq.wrapping_add(1)
        } else {
            seg.seq
        };
        if seg.fin {
            self.fin_seq = Some(data_seq.wrapping_add(seg.payload.len() as u32));
        }
        if seg.payload.is_empty() {
            return;
        }
        let rel = i64::from(data_seq.wrapping_sub(self.next_seq) as i32);
        let start = self.pos as i64 + rel;
        let end = start + seg.payload.len() as i64;
        if end <= self.pos as i64 {
            self.retransmissions += 1;
            return;
        }
        if start <= self.pos as i64 {
            let skip = (self.pos as i64 - start) as usize;
            self.deliver(&seg.payload[skip..], out);
            self.drain(budget, out);
            return;
        }
        // Early: wait for what comes before it.
        let start = start as u64;
        let len = seg.payload.len();
        match self.ooo.get(&start) {
            Some(have) if have.len() >= len => {
                self.retransmissions += 1;
                return;
            }
            Some(have) => {
                *budget += have.len();
                self.ooo_bytes -= have.len();
            }
            None => {}
        }
        if len > *budget || self.ooo_bytes + len > max_early {
            // No room to wait any longer: what is missing is lost.
            self.skip_hole(budget, out);
            if self.pos >= start {
                let skip = (self.pos - start) as usize;
                if skip < len {
                    self.deliver(&seg.payload[skip..], out);
                }
                self.drain(budget, out);
                return;
            }
            if len > *budget || self.ooo_bytes + len > max_early {
                let gap = start - self.pos;
                self.hole(gap, out);
                self.deliver(seg.payload, out);
                return;
            }
        }
        *budget -= len;
        self.ooo_bytes += len;
        self.ooo.insert(start, seg.payload.to_vec());
    }

    /// The peer acknowledged up to `ack`: bytes before it that the capture
    /// never showed are lost.
    pub fn acked(&mut self, ack: u32, budget: &mut usize, out: &mut Vec<Out>) {
        if !self.started {
            return;
        }
        // Past the FIN, the acknowledgement counts the FIN, not data.
        let ack = match self.fin_seq {
            Some(fin) if ack.wrapping_sub(fin) as i32 > 0 => fin,
            _ => ack,
        };
        let ahead = ack.wrapping_sub(self.next_seq) as i32;
        if ahead <= 0 {
            return;
        }
        let acked_to = self.pos + ahead as u64;
        match self.ooo.keys().next() {
            Some(&first) if first <= acked_to => self.skip_hole(budget, out),
            Some(_) | None => {
                self.hole(ahead as u64, out);
                self.drain(budget, out);
            }
        }
    }

    /// Whether the stream has ended in order: a FIN was seen, and every
    /// byte before it was read or, acknowledged by the peer and never
    /// seen, reported lost. A FIN that overtakes data (reordering on the
    /// way to the capture) ends nothing until that data comes.
    pub fn ended(&self) -> bool {
        self.fin_seen && (!self.started || self.fin_seq == Some(self.next_seq))
    }

    /// The stream ends: early segments and an unfinished frame are
    /// reported.
    pub fn finish(&mut self, budget: &mut usize, out: &mut Vec<Out>) {
        while !self.ooo.is_empty() {
            self.skip_hole(budget, out);
        }
        self.flush_skipped(out);
        if !self.buf.is_empty() {
            out.push(Out::Problem(StreamProblem::Ended {
                partial: self.buf.len(),
            }));
            self.buf.clear();
        }
    }

    /// Jumps over the gap before the first early segment.
    fn skip_hole(&mut self, budget: &mut usize, out: &mut Vec<Out>) {
        if let Some(&first) = self.ooo.keys().next() {
            if first > self.pos {
                self.hole(first - self.pos, out);
            }
            self.drain(budget, out);
        }
    }

    /// `bytes` bytes at the current position are missing.
    fn hole(&mut self, bytes: u64, out: &mut Vec<Out>) {
        self.flush_skipped(out);
        out.push(Out::Problem(StreamProblem::Hole {
            at: self.pos,
            bytes,
            partial: self.buf.len(),
        }));
        self.buf.clear();
        self.synced = false;
        self.pos += bytes;
        self.next_seq = self.next_seq.wrapping_add(bytes as u32);
    }

    /// Delivers early segments that are now in order.
    fn drain(&mut self, budget: &mut usize, out: &mut Vec<Out>) {
        while let Some(entry) = self.ooo.first_entry() {
            let start = *entry.key();
            if start > self.pos {
                break;
            }
            let data = entry.remove();
            *budget += data.len();
            self.ooo_bytes -= data.len();
            let skip = (self.pos - start) as usize;
            if skip < data.len() {
                self.deliver(&data[skip..], out);
            } else {
                self.retransmissions += 1;
            }
        }
    }

    /// In-order bytes: advance and cut frames.
    fn deliver(&mut self, data: &[u8], out: &mut Vec<Out>) {
        self.pos += data.len() as u64;
        self.next_seq = self.next_seq.wrapping_add(data.len() as u32);
        self.buf.extend_from_slice(data);
        let mut at = 0;
        loop {
            let rest = &self.buf[at..];
            if !self.synced {
                match find_header(rest) {
                    Find::At(i) => {
                        self.skipped += i as u64;
                        at += i;
                        self.synced = true;
                        if self.skipped > 0 {
                            out.push(Out::Problem(StreamProblem::NotTpkt {
                                bytes: std::mem::take(&mut self.skipped),
                            }));
                        }
                        continue;
                    }
                    Find::Wait(i) => {
                        self.skipped += i as u64;
                        at += i;
                        break;
                    }
                }
            }
            if rest.len() < 4 {
                break;
            }
            let len = usize::from(u16::from_be_bytes([rest[2], rest[3]]));
            if rest[0] != 3 || rest[1] != 0 || len < 5 {
                // Not a header where one should be: skip a byte and look.
                self.synced = false;
                self.skipped += 1;
                at += 1;
                continue;
            }
            if rest.len() < len {
                break;
            }
            out.push(Out::Frame(rest[4..len].to_vec()));
            at += len;
        }
        self.buf.drain(..at);
    }

    fn flush_skipped(&mut self, out: &mut Vec<Out>) {
        if !self.synced {
            self.skipped += self.buf.len() as u64;
            self.buf.clear();
        }
        if self.skipped > 0 {
            out.push(Out::Problem(StreamProblem::NotTpkt {
                bytes: std::mem::take(&mut self.skipped),
            }));
        }
    }
}

enum Find {
    /// A header starts here.
    At(usize),
    /// Nothing before this offset; wait for more bytes from it.
    Wait(usize),
}

/// Where the next plausible TPKT header carrying H.248 starts: version 3,
/// reserved 0, a length of at least 5, and a payload that sniffs as H.248.
fn find_header(bytes: &[u8]) -> Find {
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 3 {
            let rest = &bytes[i..];
            if rest.len() < 6 {
                return Find::Wait(i);
            }
            let len = usize::from(u16::from_be_bytes([rest[2], rest[3]]));
            if rest[1] == 0 && len >= 5 && sniff(&rest[4..]).is_some() {
                return Find::At(i);
            }
        }
        i += 1;
    }
    Find::Wait(bytes.len())
}

/// Whether a segment's payload starts with a TPKT header over H.248
/// (to pick up connections on ports not known to carry it).
pub fn looks_like_tpkt(payload: &[u8]) -> bool {
    payload.len() >= 6
        && payload[0] == 3
        && payload[1] == 0
        && u16::from_be_bytes([payload[2], payload[3]]) >= 5
        && matches!(
            sniff(&payload[4..]),
            Some(megaco::codec::Kind::Text | megaco::codec::Kind::Ber)
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tpkt(payload: &[u8]) -> Vec<u8> {
        let len = (payload.len() + 4) as u16;
        let mut v = vec![3, 0];
        v.extend_from_slice(&len.to_be_bytes());
        v.extend_from_slice(payload);
        v
    }

    fn frames(out: &[Out]) -> Vec<&[u8]> {
        out.iter()
            .filter_map(|o| match o {
                Out::Frame(f) => Some(&f[..]),
                _ => None,
            })
            .collect()
    }

    fn seg(seq: u32, payload: &[u8]) -> Segment<'_> {
        Segment {
            seq,
            syn: false,
            fin: false,
            payload,
        }
    }

    #[test]
    fn reorders_dedups_and_frames() {
        let a = b"!/1 <a> T=1{C=-{AV=ROOT}}";
        let b = b"!/1 <a> T=2{C=-{AV=ROOT}}";
        let mut stream = tpkt(a);
        stream.extend(tpkt(b));
        let mut h = HalfStream::default();
        let mut budget = 1 << 20;
        let mut out = Vec::new();
        let base = u32::MAX - 10; // wraps inside the stream
        h.segment(
            Segment {
                seq: base - 1,
                syn: true,
                fin: false,
                payload: &[],
            },
            &mut budget,
            1 << 16,
            &mut out,
        );
        let cut = [0usize, 7, 20, 33, stream.len()];
        let pieces: Vec<(u32, &[u8])> = cut
            .windows(2)
            .map(|w| (base.wrapping_add(w[0] as u32), &stream[w[0]..w[1]]))
            .collect();
        // Last piece first, then a retransmission overlapping two pieces.
        for &(s, p) in [pieces[3], pieces[1], pieces[0], pieces[0], pieces[2]].iter() {
            h.segment(seg(s, p), &mut budget, 1 << 16, &mut out);
        }
        h.segment(
            seg(base + 5, &stream[5..25]),
            &mut budget,
            1 << 16,
            &mut out,
        );
        assert_eq!(frames(&out), [&a[..], &b[..]]);
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(budget, 1 << 20);
        assert!(h.retransmissions >= 2);
    }

    #[test]
    fn holes_are_reported_and_framing_resumes() {
        let a = b"!/1 <a> T=1{C=-{AV=ROOT}}";
        let b = b"!/1 <a> T=2{C=-{AV=ROOT}}";
        let c = b"!/1 <a> T=3{C=-{AV=ROOT}}";
        let mut stream = tpkt(a);
        stream.extend(tpkt(b));
        stream.extend(tpkt(c));
        let n = tpkt(a).len();
        let mut h = HalfStream::default();
        let mut budget = 1 << 20;
        let mut out = Vec::new();
        // The first frame, then the second's first 10 bytes are lost; the
        // rest arrives.
        h.segment(seg(100, &stream[..n]), &mut budget, 1 << 16, &mut out);
        h.segment(
            seg(100 + n as u32 + 10, &stream[n + 10..]),
            &mut budget,
            1 << 16,
            &mut out,
        );
        assert_eq!(frames(&out), [&a[..]]);
        h.finish(&mut budget, &mut out);
        assert_eq!(frames(&out), [&a[..], &c[..]]);
        assert!(out.contains(&Out::Problem(StreamProblem::Hole {
            at: n as u64,
            bytes: 10,
            partial: 0
        })));
        assert!(out
            .iter()
            .any(|o| matches!(o, Out::Problem(StreamProblem::NotTpkt { .. }))));
        assert_eq!(budget, 1 << 20);
    }

    #[test]
    fn an_ack_past_unseen_bytes_declares_the_hole_at_once() {
        let a = b"!/1 <a> T=1{C=-{AV=ROOT}}";
        let frame = tpkt(a);
        let mut h = HalfStream::default();
        let mut budget = 1 << 20;
        let mut out = Vec::new();
        h.segment(seg(0, &frame[..10]), &mut budget, 1 << 16, &mut out);
        h.acked(frame.len() as u32 + 50, &mut budget, &mut out);
        assert!(
            matches!(
                out[..],
                [Out::Problem(StreamProblem::Hole {
                    at: 10,
                    bytes: 69,
                    partial: 10
                })]
            ),
            "{out:?}"
        );
        // The next frame after the hole is read.
        let at = frame.len() as u32 + 50;
        h.segment(seg(at, &frame), &mut budget, 1 << 16, &mut out);
        assert_eq!(frames(&out), [&a[..]]);
    }

    #[test]
    fn early_bytes_are_bounded() {
        let mut h = HalfStream::default();
        let mut budget = 1000;
        let mut out = Vec::new();
        h.segment(seg(0, &tpkt(b"!/1 <a> P=1{}")), &mut budget, 600, &mut out);
        for i in 1..20u32 {
            h.segment(seg(i * 1000, &[0u8; 300]), &mut budget, 600, &mut out);
            assert!(h.held() <= 600 + 65_535);
            assert!(budget <= 1000);
        }
        h.finish(&mut budget, &mut out);
        assert_eq!(budget, 1000);
        assert!(out
            .iter()
            .any(|o| matches!(o, Out::Problem(StreamProblem::Hole { .. }))));
    }
}
