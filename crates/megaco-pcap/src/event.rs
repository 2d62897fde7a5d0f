//! What reading a capture yields: H.248 messages and problems, each tied
//! to the packet it came from.

use std::fmt;
use std::net::{IpAddr, SocketAddr};

use megaco::codec::{DecodeError, Kind};
use megaco::MegacoMessage;

use crate::source::{FileError, Timestamp};

/// The transport a message came over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Transport {
    /// UDP, one message per datagram.
    Udp,
    /// TCP, one message per TPKT frame.
    Tcp,
    /// SCTP, one message per user message.
    Sctp,
}

impl Transport {
    /// `udp`, `tcp` or `sctp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Udp => "udp",
            Transport::Tcp => "tcp",
            Transport::Sctp => "sctp",
        }
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One H.248 message found in the capture, decoded or not.
#[derive(Debug, Clone)]
pub struct Record {
    /// The packet that completed it (1-based, as Wireshark numbers them).
    pub packet: u64,
    /// When that packet was captured.
    pub time: Timestamp,
    /// Sender.
    pub src: SocketAddr,
    /// Receiver.
    pub dst: SocketAddr,
    /// How it travelled.
    pub transport: Transport,
    /// Its encoding: what the bytes sniff as, or what decoded them.
    pub encoding: Kind,
    /// The message's bytes (a UDP payload, a TPKT frame's payload, an SCTP
    /// user message).
    pub bytes: Vec<u8>,
    /// The decoded message, or why it did not decode.
    pub message: Result<MegacoMessage, DecodeError>,
}

/// Something in the capture that could not be read as it should, tied to
/// a packet: the packet (or the bytes concerned) is skipped and reading
/// goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The packet concerned (for a file error: the last packet read).
    pub packet: u64,
    /// When it was captured.
    pub time: Timestamp,
    /// The flow concerned, when known.
    pub flow: Option<(SocketAddr, SocketAddr, Transport)>,
    /// What.
    pub kind: ProblemKind,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProblemKind {
    /// The file itself: nothing after this is read.
    #[error("{0}")]
    File(#[from] FileError),
    /// A link type this reader does not know (reported once per type).
    #[error("link type {0} not supported: its packets are skipped")]
    UnsupportedLink(i32),
    /// A link, IP or transport header that does not parse.
    #[error("malformed packet: {0}")]
    Malformed(String),
    /// The snapshot length cut a packet that carried H.248.
    #[error("packet cut by the snapshot length: {captured} of {original} bytes captured")]
    SnapCut {
        /// Bytes in the capture.
        captured: u32,
        /// Bytes on the wire.
        original: u32,
    },
    /// An IP fragment refused.
    #[error("IP fragment dropped: {0}")]
    Fragment(&'static str),
    /// A datagram given up on: its fragments never all arrived, or they
    /// overlap with different bytes.
    #[error(
        "IP datagram {id:#x} {src} -> {dst} dropped ({received} bytes from packet {first_packet} on): {reason}"
    )]
    Datagram {
        /// Its source.
        src: IpAddr,
        /// Its destination.
        dst: IpAddr,
        /// Its identification.
        id: u32,
        /// Packet of its first fragment.
        first_packet: u64,
        /// Bytes received.
        received: usize,
        /// Why it was given up.
        reason: &'static str,
    },
    /// Bytes of a TCP stream the capture does not have.
    #[error("TCP stream: {bytes} bytes missing at stream offset {at}{}", partial_note(*partial))]
    TcpHole {
        /// Stream offset of the hole.
        at: u64,
        /// Bytes missing.
        bytes: u64,
        /// Bytes of the frame it broke, dropped.
        partial: usize,
    },
    /// TCP bytes that are not TPKT framed.
    #[error("TCP stream: {0} bytes skipped looking for a TPKT header")]
    NotTpkt(u64),
    /// A TCP stream that ended inside a frame.
    #[error("TCP stream ended inside a TPKT frame ({0} bytes dropped)")]
    TcpEnded(usize),
    /// An SCTP packet or chunk that does not parse, or a user message that
    /// cannot be put together.
    #[error("SCTP: {0}")]
    Sctp(&'static str),
    /// The flow table is full: the oldest flow was dropped.
    #[error("flow table full: flow dropped with {0} bytes held")]
    FlowEvicted(usize),
}

fn partial_note(partial: usize) -> String {
    if partial == 0 {
        String::new()
    } else {
        format!(" (a {partial}-byte partial frame dropped)")
    }
}

/// One item of a capture, in capture order.
#[derive(Debug, Clone)]
pub enum Event {
    /// An H.248 message.
    Message(Box<Record>),
    /// A problem.
    Problem(Problem),
}
