//! Megaco/H.248 in packet captures.
//!
//! [`Capture`] reads a pcap or pcapng file (from any reader, in constant
//! memory) and yields, in capture order, every H.248 message it carries
//! and every problem met on the way ([`Event`]):
//!
//! - link layers: Ethernet (with VLAN tags), Linux cooked v1 and v2, raw
//!   IP, BSD loopback;
//! - IPv4 and IPv6, fragments reassembled (bounded in count, size and age);
//! - UDP; TCP put back in order (early, retransmitted and overlapping
//!   segments) and cut into TPKT frames, with holes reported; SCTP DATA
//!   chunks of payload protocol 7 (H.248.4), fragmented user messages
//!   put together;
//! - H.248 found by port (2944, 2945 and [`Options::ports`]) and by its
//!   signature elsewhere ([`megaco::codec::sniff`]); text, BER (either
//!   dialect) and PER decoded.
//!
//! Captures are untrusted input: truncated files, frames cut by the
//! snapshot length, corrupt headers, streams with holes and absurd
//! lengths become [`Problem`]s tied to a packet, never a panic, and every
//! buffer is bounded ([`Limits`]).
//!
//! [`stats`] pairs transactions and measures response times; [`flow`]
//! draws the ladder diagram; [`write`](mod@write) writes captures.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod capture;
mod defrag;
mod event;
pub mod flow;
mod histogram;
mod link;
mod sctp;
mod source;
pub mod stats;
mod tcp;
pub mod write;

pub use capture::{Capture, Limits, Options, H248_PORTS};
pub use event::{Event, Problem, ProblemKind, Record, Transport};
pub use source::{FileError, LinkType, Timestamp};
