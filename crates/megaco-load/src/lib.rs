//! Load and fan-out for Megaco/H.248: how many transactions a second a
//! controller carries and with what latency (`megaco load`), and what it
//! costs a controller to reach many gateways at once (`megaco bench
//! fanout`), side by side with Erlang/OTP's megaco stack.
//!
//! - [`load`]: the load generator (gateway or controller role, UDP or
//!   TCP, any encoding, a rate or as fast as answered, a rate sweep and
//!   its knee), with HdrHistogram latency.
//! - [`fanout`]: one request to each of N registered gateways, time per
//!   destination as N grows, per setup (per-destination or template,
//!   trusted or untrusted, single or multiple), with a per-stage profile;
//!   and a wildcard answered for N terminations inside one gateway.
//! - [`farm`]: simulated gateways, each its own address and mid: its own
//!   socket, or (Linux) one socket per thread for all of its gateways
//!   ([`shared`]).
//! - [`otp`]: Erlang/OTP's megaco driven the same way (an escript), and
//!   [`memory`]: controllers' RSS per registered gateway.
//! - [`template`]: messages encoded once, the transaction and context ids
//!   patched per send; [`scan`]: a reply's transaction id read without
//!   decoding it; [`msg`]: the requests, a simulated gateway's answers,
//!   and the check of a reply against its request; [`chart`]: the charts.
//!
//! Every run targets loopback addresses only unless told otherwise
//! ([`check_target`]), is bounded in count and time, and stops by itself.
// One function sends many datagrams each from its own source address, which
// no safe wrapper offers ([`shared`]); everything else is safe code.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod batch;
pub mod chart;
pub mod cpu;
pub mod fanout;
pub mod farm;
pub mod load;
pub mod memory;
pub mod msg;
pub mod net;
pub mod otp;
pub mod scan;
#[cfg(target_os = "linux")]
pub mod shared;
pub mod template;

use std::net::SocketAddr;

use megaco::codec::Encoding;

/// The codec registry's names of the encodings load and fan-out runs
/// speak: text, and BER and PER with termination ids mapped from their
/// text form (the `-native` mappings take ids in their own form, which
/// the runs' messages are not written in; the native format is no wire
/// encoding).
pub const WIRE_ENCODINGS: [&str; 5] = ["pretty", "compact", "ber", "ber-otp", "per"];

/// Checks that `encoding` is one of [`WIRE_ENCODINGS`].
///
/// ```
/// use megaco::codec::Encoding;
/// use megaco_load::check_wire;
///
/// assert!(check_wire(&"ber-otp".parse().unwrap()).is_ok());
/// assert!(check_wire(&"per-native".parse().unwrap()).is_err());
/// assert!(check_wire(&Encoding::native()).is_err());
/// ```
pub fn check_wire(encoding: &Encoding) -> anyhow::Result<()> {
    match encoding.slug() {
        Some(slug) if WIRE_ENCODINGS.contains(&slug) => Ok(()),
        _ => anyhow::bail!(
            "load and fan-out runs speak {}, not {encoding}",
            WIRE_ENCODINGS.join(", ")
        ),
    }
}

/// The name Erlang/OTP's side of a run gives `encoding` (its
/// `megaco_pretty_text_encoder`, `megaco_compact_text_encoder` or
/// `megaco_ber_encoder`), if OTP speaks it as we write it.
///
/// ```
/// use megaco::codec::Encoding;
/// use megaco_load::otp_codec;
///
/// assert_eq!(otp_codec(&Encoding::compact()).unwrap(), "compact");
/// assert_eq!(otp_codec(&"ber-otp".parse().unwrap()).unwrap(), "ber");
/// assert!(otp_codec(&Encoding::per()).is_err());
/// ```
pub fn otp_codec(encoding: &Encoding) -> anyhow::Result<&'static str> {
    match encoding.slug() {
        Some("pretty") => Ok("pretty"),
        Some("compact") => Ok("compact"),
        Some("ber-otp") => Ok("ber"),
        _ => anyhow::bail!(
            "OTP's side of a run speaks pretty, compact or ber-otp (BER as OTP writes it), \
             not {encoding}"
        ),
    }
}

/// Serializes an encoding by its name in the codec registry.
pub(crate) fn encoding_name<S: serde::Serializer>(e: &Encoding, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(e)
}

/// Refuses a target outside loopback (127.0.0.0/8, ::1) unless
/// `allow_remote`: load and fan-out runs flood their target.
///
/// ```
/// use megaco_load::check_target;
/// assert!(check_target("127.0.0.1:2944".parse().unwrap(), false).is_ok());
/// assert!(check_target("192.0.2.1:2944".parse().unwrap(), false).is_err());
/// assert!(check_target("192.0.2.1:2944".parse().unwrap(), true).is_ok());
/// ```
pub fn check_target(addr: SocketAddr, allow_remote: bool) -> anyhow::Result<()> {
    if addr.ip().is_loopback() || allow_remote {
        Ok(())
    } else {
        anyhow::bail!(
            "{addr} is not a loopback address; load runs flood their target, so they \
             go to 127.0.0.0/8 or ::1 only unless --allow-remote is given"
        )
    }
}

/// Replies that were not good answers, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Errors {
    /// Did not decode (or scan).
    pub malformed: u64,
    /// A reply to no request ever sent.
    pub unexpected: u64,
    /// A second reply to an answered request.
    pub duplicate: u64,
    /// A reply to a request already given up (timed out, or of an
    /// earlier round).
    pub late: u64,
    /// From the wrong gateway, or to another command.
    pub mismatched: u64,
    /// An answer carrying an error descriptor.
    pub error_replies: u64,
    /// A message whose whole body is an error descriptor: it answers no
    /// transaction.
    pub message_errors: u64,
}

impl Errors {
    /// Adds `o`'s counts.
    pub fn add(&mut self, o: &Errors) {
        self.malformed += o.malformed;
        self.unexpected += o.unexpected;
        self.duplicate += o.duplicate;
        self.late += o.late;
        self.mismatched += o.mismatched;
        self.error_replies += o.error_replies;
        self.message_errors += o.message_errors;
    }

    /// All of them.
    pub fn total(&self) -> u64 {
        self.malformed
            + self.unexpected
            + self.duplicate
            + self.late
            + self.mismatched
            + self.error_replies
            + self.message_errors
    }

    /// Replies that answered no request in flight (malformed, unexpected,
    /// duplicate, late, message-level errors): those a load run counts
    /// beside its failed and timed-out requests.
    pub fn stray(&self) -> u64 {
        self.malformed + self.unexpected + self.duplicate + self.late + self.message_errors
    }
}
