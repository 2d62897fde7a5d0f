//! SCTP (RFC 9260): the DATA chunks of a packet, and user messages split
//! over several of them put back together (H.248.4 carries one H.248
//! message per SCTP user message, payload protocol identifier 7).

use std::collections::VecDeque;

/// The payload protocol identifier of H.248 (IANA).
pub const PPID_H248: u32 = 7;

/// The common header and the chunks of one SCTP packet.
pub struct Packet<'a> {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// The chunks after the common header.
    chunks: &'a [u8],
}

/// One DATA chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Data<'a> {
    /// Transmission sequence number.
    pub tsn: u32,
    /// Stream identifier.
    pub stream: u16,
    /// Payload protocol identifier.
    pub ppid: u32,
    /// First fragment of a user message.
    pub begin: bool,
    /// Last fragment of a user message.
    pub end: bool,
    /// The user data.
    pub data: &'a [u8],
}

/// Parses the common header.
pub fn packet(bytes: &[u8]) -> Option<Packet<'_>> {
    if bytes.len() < 12 {
        return None;
    }
    Some(Packet {
        src_port: u16::from_be_bytes([bytes[0], bytes[1]]),
        dst_port: u16::from_be_bytes([bytes[2], bytes[3]]),
        chunks: &bytes[12..],
    })
}

impl<'a> Packet<'a> {
    /// The DATA chunks, in order; `Err` with a reason at the first chunk
    /// whose header does not fit (after the chunks before it).
    pub fn data_chunks(&self) -> (Vec<Data<'a>>, Option<&'static str>) {
        let mut out = Vec::new();
        let mut rest = self.chunks;
        while !rest.is_empty() {
            if rest.len() < 4 {
                return (out, Some("chunk header cut"));
            }
            let kind = rest[0];
            let flags = rest[1];
            let len = usize::from(u16::from_be_bytes([rest[2], rest[3]]));
            if len < 4 || len > rest.len() {
                return (out, Some("chunk length past the packet"));
            }
            if kind == 0 {
                if len < 16 {
                    return (out, Some("DATA chunk shorter than its header"));
                }
                let c = &rest[..len];
                out.push(Data {
                    tsn: u32::from_be_bytes([c[4], c[5], c[6], c[7]]),
                    stream: u16::from_be_bytes([c[8], c[9]]),
                    ppid: u32::from_be_bytes([c[12], c[13], c[14], c[15]]),
                    begin: flags & 0x02 != 0,
                    end: flags & 0x01 != 0,
                    data: &c[16..],
                });
            }
            let padded = (len + 3) & !3;
            rest = &rest[padded.min(rest.len())..];
        }
        (out, None)
    }
}

/// One direction of an association: recent TSNs (to drop retransmitted
/// chunks) and the user messages being put together, per stream.
#[derive(Debug, Default)]
pub struct Direction {
    recent: VecDeque<u32>,
    /// (stream, bytes so far, last TSN).
    partial: Vec<(u16, Vec<u8>, u32)>,
}

/// How many recent TSNs are remembered per direction.
const RECENT: usize = 256;

/// What a DATA chunk did.
#[derive(Debug, PartialEq, Eq)]
pub enum Chunk {
    /// A whole user message.
    Message(Vec<u8>),
    /// A fragment, held.
    Held,
    /// Seen before.
    Duplicate,
    /// A problem, with the chunk dropped.
    Problem(&'static str),
}

impl Direction {
    /// Takes one DATA chunk; a user message is at most `max` bytes.
    pub fn chunk(&mut self, d: Data<'_>, max: usize) -> Chunk {
        if self.recent.contains(&d.tsn) {
            return Chunk::Duplicate;
        }
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(d.tsn);
        if d.begin && d.end {
            return Chunk::Message(d.data.to_vec());
        }
        let slot = self.partial.iter().position(|p| p.0 == d.stream);
        if d.begin {
            if let Some(i) = slot {
                self.partial.swap_remove(i);
            }
            if self.partial.len() >= 16 {
                self.partial.remove(0);
            }
            self.partial.push((d.stream, d.data.to_vec(), d.tsn));
            return Chunk::Held;
        }
        let Some(i) = slot else {
            return Chunk::Problem("fragment of a user message whose first fragment is missing");
        };
        let p = &mut self.partial[i];
        if p.2.wrapping_add(1) != d.tsn {
            self.partial.swap_remove(i);
            return Chunk::Problem("fragment of a user message out of order or missing");
        }
        if p.1.len() + d.data.len() > max {
            self.partial.swap_remove(i);
            return Chunk::Problem("user message longer than the reassembly limit");
        }
        p.1.extend_from_slice(d.data);
        p.2 = d.tsn;
        if d.end {
            let (_, bytes, _) = self.partial.swap_remove(i);
            Chunk::Message(bytes)
        } else {
            Chunk::Held
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(tsn: u32, begin: bool, end: bool, bytes: &[u8]) -> Data<'_> {
        Data {
            tsn,
            stream: 1,
            ppid: PPID_H248,
            begin,
            end,
            data: bytes,
        }
    }

    #[test]
    fn fragments_and_duplicates() {
        let mut d = Direction::default();
        assert_eq!(d.chunk(data(5, true, false, b"ab"), 100), Chunk::Held);
        assert_eq!(d.chunk(data(5, true, false, b"ab"), 100), Chunk::Duplicate);
        assert_eq!(d.chunk(data(6, false, false, b"cd"), 100), Chunk::Held);
        assert_eq!(
            d.chunk(data(7, false, true, b"e"), 100),
            Chunk::Message(b"abcde".to_vec())
        );
        assert!(matches!(
            d.chunk(data(9, false, true, b"e"), 100),
            Chunk::Problem(_)
        ));
        assert_eq!(d.chunk(data(10, true, false, b"abc"), 4), Chunk::Held);
        assert!(matches!(
            d.chunk(data(11, false, true, b"de"), 4),
            Chunk::Problem(_)
        ));
    }

    #[test]
    fn chunk_lengths_are_checked() {
        let mut p = vec![0u8; 12];
        p.extend_from_slice(&[0, 3, 0, 200]);
        let (chunks, err) = packet(&p).unwrap().data_chunks();
        assert!(chunks.is_empty());
        assert_eq!(err, Some("chunk length past the packet"));
        assert!(packet(&[0; 11]).is_none());
    }
}
