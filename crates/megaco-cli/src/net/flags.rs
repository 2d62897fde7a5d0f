//! The engine's timers and bounds as command-line flags, their defaults
//! taken from the engine's own (`Config::new`), so that `--help` shows
//! what runs.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use clap::Args;
use megaco::model::Mid;
use megaco_stack::config::RateLimit;
use megaco_stack::engine::Config;

fn defaults() -> Config {
    Config::new(Mid::Device("x".into()))
}

/// Seconds, fractions allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Secs(pub Duration);

impl fmt::Display for Secs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

impl FromStr for Secs {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let secs: f64 = s.parse().map_err(|e| format!("{s:?}: {e}"))?;
        if !(secs > 0.0 && secs < 1e9) {
            return Err(format!("{s:?}: expected a positive number of seconds"));
        }
        Ok(Secs(Duration::from_secs_f64(secs)))
    }
}

/// A number, or `none` for no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit(pub Option<u64>);

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("none"),
        }
    }
}

impl FromStr for Limit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("none") {
            return Ok(Limit(None));
        }
        s.parse()
            .map(|n| Limit(Some(n)))
            .map_err(|e| format!("{s:?}: {e} (a number, or `none`)"))
    }
}

impl Limit {
    fn of(n: Option<impl TryInto<u64>>) -> Limit {
        Limit(n.and_then(|n| n.try_into().ok()))
    }

    fn get<T: TryFrom<u64>>(self, max: T) -> Option<T> {
        self.0.map(|n| T::try_from(n).unwrap_or(max))
    }
}

/// Seconds, or `none` for never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaybeSecs(pub Option<Duration>);

impl fmt::Display for MaybeSecs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(d) => write!(f, "{}", Secs(d)),
            None => f.write_str("none"),
        }
    }
}

impl FromStr for MaybeSecs {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("none") {
            return Ok(MaybeSecs(None));
        }
        Secs::from_str(s).map(|s| MaybeSecs(Some(s.0)))
    }
}

/// Seconds, or `auto` for the engine's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Auto(pub Option<Duration>);

impl fmt::Display for Auto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(d) => write!(f, "{}", Secs(d)),
            None => f.write_str("auto"),
        }
    }
}

impl FromStr for Auto {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(Auto(None));
        }
        Secs::from_str(s).map(|s| Auto(Some(s.0)))
    }
}

/// A rate limit: `RATE/BURST` (events a second, the longest burst).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate(pub RateLimit);

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.0.per_second, self.0.burst)
    }
}

impl FromStr for Rate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (rate, burst) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?}: expected RATE/BURST, e.g. 5/10"))?;
        let n = |v: &str| v.trim().parse::<u32>().map_err(|e| format!("{s:?}: {e}"));
        Ok(Rate(RateLimit {
            per_second: n(rate)?,
            burst: n(burst)?.max(1),
        }))
    }
}

/// Every timer and bound of the transaction engine and its transports.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Engine timers and bounds (Erlang/OTP megaco's names in brackets)")]
pub struct EngineArgs {
    /// First resend interval of a request over UDP [request_timer].
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().request_timer.initial))]
    pub request_timer: Secs,
    /// Each resend interval is the previous one times N (at least 1).
    #[arg(long, value_name = "N", default_value_t = defaults().request_timer.factor,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub request_timer_factor: u32,
    /// The longest resend interval.
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().request_timer.max_interval))]
    pub request_timer_max: Secs,
    /// How many times a request is resent over UDP before it times out
    /// (over TCP the same schedule bounds the wait).
    #[arg(long, value_name = "N", default_value_t = defaults().request_timer.max_retries)]
    pub resends: u32,
    /// How long to wait for a reply after a TransactionPending
    /// [long_request_timer].
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().long_request_timer))]
    pub long_request_timer: Secs,
    /// How many pendings one request may receive [recv_pending_limit].
    #[arg(long, value_name = "N|none", default_value_t = Limit::of(defaults().recv_pending_limit))]
    pub recv_pending_limit: Limit,
    /// Send a TransactionPending this often while a request is unanswered
    /// [pending_timer].
    #[arg(long, value_name = "SECS|none", default_value_t = MaybeSecs(defaults().pending_timer))]
    pub pending_timer: MaybeSecs,
    /// How many pendings we send for one request before aborting it with
    /// error 506 [sent_pending_limit].
    #[arg(long, value_name = "N|none", default_value_t = Limit::of(defaults().sent_pending_limit))]
    pub sent_pending_limit: Limit,
    /// How long an executed request is remembered (and its reply kept) to
    /// answer duplicates; `auto` is the whole resend horizon of the
    /// request timer (105 s with the defaults; OTP's reply_timer is 30 s)
    /// [reply_timer].
    #[arg(long, value_name = "SECS|auto", default_value_t = Auto(defaults().reply_timer))]
    pub reply_timer: Auto,
    /// How many bytes of cached replies one peer may hold (beyond, the
    /// oldest replies go, but their requests are still not run twice).
    #[arg(long, value_name = "BYTES", default_value_t = defaults().reply_cache_bytes as u64)]
    pub reply_cache_bytes: u64,
    /// How many executed requests of one peer are remembered at most.
    #[arg(long, value_name = "N", default_value_t = defaults().max_remembered_requests as u64)]
    pub max_remembered: u64,
    /// How many bytes of cached replies all peers together may hold.
    #[arg(long, value_name = "BYTES", default_value_t = defaults().transport.reply_cache_total as u64)]
    pub reply_cache_total: u64,
    /// How many executed requests all peers together remember at most.
    #[arg(long, value_name = "N", default_value_t = defaults().transport.max_remembered_total as u64)]
    pub max_remembered_total: u64,
    /// Answer every peer in the configured encoding only, instead of in
    /// the encoding of its messages.
    #[arg(long)]
    pub no_recognise_encoding: bool,
    /// Do not negotiate the protocol version in ServiceChange (H.248.1
    /// 11.3).
    #[arg(long)]
    pub no_negotiate_version: bool,
    /// Ask the peer to acknowledge our replies (ImmAckRequired).
    #[arg(long)]
    pub imm_ack_required: bool,
    /// Do not answer undecodable messages with error 400.
    #[arg(long)]
    pub no_decode_error_replies: bool,
    /// The first transaction id of our requests [min_trans_id].
    #[arg(long, value_name = "ID", default_value_t = defaults().min_trans_id)]
    pub min_trans_id: u32,
    /// The last transaction id before wrapping [max_trans_id].
    #[arg(long, value_name = "ID", default_value_t = defaults().max_trans_id)]
    pub max_trans_id: u32,
    /// How many of our requests to one peer may await a reply at once.
    #[arg(long, value_name = "N|none", default_value_t = Limit::of(defaults().max_outstanding_requests))]
    pub max_outstanding: Limit,
    /// How many received requests of one peer may await our reply at
    /// once; beyond, error 503.
    #[arg(long, value_name = "N|none", default_value_t = Limit::of(defaults().max_unanswered_requests))]
    pub max_unanswered: Limit,
    /// Send v3 replies longer than BYTES as segments, each message within
    /// BYTES [max_pdu_size].
    #[arg(long, value_name = "BYTES|none", default_value_t = Limit::of(defaults().max_pdu_size))]
    pub max_pdu_size: Limit,
    /// How long to wait for the next segment of a segmented reply
    /// [segment_recv_timer].
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().segment_recv_timer))]
    pub segment_recv_timer: Secs,
    /// How many peers (UDP peers and TCP connections, over every port
    /// together) are kept at once. When all are held, a newcomer takes the
    /// slot of an idle unregistered peer, or else of one (registered too)
    /// quiet for the resend horizon (49 s with the default timers), or is
    /// refused.
    #[arg(long, value_name = "N", default_value_t = defaults().transport.max_peers as u64)]
    pub max_peers: u64,
    /// How many peers that never sent a decodable message are kept; a new
    /// one beyond evicts the oldest.
    #[arg(long, value_name = "N", default_value_t = defaults().transport.max_unproven_peers as u64)]
    pub max_unproven_peers: u64,
    /// How long a peer that sent nothing decodable is kept (its TCP
    /// connection closed).
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().transport.unproven_timeout))]
    pub unproven_timeout: Secs,
    /// An unregistered peer with nothing going on is forgotten after this
    /// long.
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().transport.peer_idle_timeout))]
    pub peer_idle_timeout: Secs,
    /// The same for registered peers.
    #[arg(long, value_name = "SECS|none", default_value_t = MaybeSecs(defaults().transport.registered_idle_timeout))]
    pub registered_idle_timeout: MaybeSecs,
    /// A TCP frame must be complete this long after its first byte.
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().transport.tcp_frame_timeout))]
    pub tcp_frame_timeout: Secs,
    /// How many received requests and events may wait for us; beyond,
    /// requests over UDP get error 503, and a TCP connection is not read
    /// until its requests have room.
    #[arg(long, value_name = "N", default_value_t = defaults().transport.inbound_queue as u64)]
    pub inbound_queue: u64,
    /// Bytes asked of the kernel for each UDP socket's receive and send
    /// buffers (Linux caps them at net.core.rmem_max and wmem_max); a
    /// burst the receive buffer cannot hold is dropped before it is read.
    /// 0: the system's default.
    #[arg(long, value_name = "BYTES", default_value_t = defaults().transport.udp_buffer.unwrap_or(0) as u64)]
    pub udp_buffer: u64,
    /// Close an unregistered TCP connection that brings no message for
    /// this long.
    #[arg(long, value_name = "SECS|none", default_value_t = MaybeSecs(defaults().transport.tcp_idle_timeout))]
    pub tcp_idle_timeout: MaybeSecs,
    /// On a graceful close, wait this long for the peer to close its side.
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().transport.tcp_linger))]
    pub tcp_linger: Secs,
    /// How many messages may wait to be written to one TCP connection
    /// before we stop reading from it until they drain.
    #[arg(long, value_name = "N", default_value_t = defaults().transport.tcp_write_queue as u64)]
    pub tcp_write_queue: u64,
    /// Bytes that may wait to be written to one TCP connection; a peer
    /// that lets more pile up is disconnected as not reading.
    #[arg(long, value_name = "BYTES", default_value_t = defaults().transport.tcp_write_buffer as u64)]
    pub tcp_write_buffer: u64,
    /// Bytes that may wait to be written to all TCP connections together;
    /// past it, a peer that already has bytes waiting is disconnected as
    /// not reading.
    #[arg(long, value_name = "BYTES", default_value_t = defaults().transport.tcp_write_total as u64)]
    pub tcp_write_total: u64,
    /// A TCP peer that takes none of the bytes waiting for it for this
    /// long is disconnected as not reading.
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().transport.tcp_write_timeout))]
    pub tcp_write_timeout: Secs,
    /// Error replies (to undecodable messages, 503, 506, 459) to one
    /// peer: per second and burst (a TCP peer gets every 503 of a full
    /// queue).
    #[arg(long, value_name = "RATE/BURST", default_value_t = Rate(defaults().transport.error_rate_per_peer))]
    pub error_rate_per_peer: Rate,
    /// The same, for all peers together.
    #[arg(long, value_name = "RATE/BURST", default_value_t = Rate(defaults().transport.error_rate_total))]
    pub error_rate_total: Rate,
    /// Drops, refusals, evictions and replies to nothing outstanding are
    /// reported at most once per interval.
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().transport.report_interval))]
    pub report_interval: Secs,
}

impl EngineArgs {
    /// Refuses flags that contradict each other.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.min_trans_id > self.max_trans_id {
            anyhow::bail!(
                "--min-trans-id {} is above --max-trans-id {}",
                self.min_trans_id,
                self.max_trans_id
            );
        }
        Ok(())
    }

    /// Sets the engine configuration from the flags.
    pub fn apply(&self, c: &mut Config) {
        c.request_timer.initial = self.request_timer.0;
        c.request_timer.factor = self.request_timer_factor.max(1);
        c.request_timer.max_interval = self.request_timer_max.0;
        c.request_timer.max_retries = self.resends;
        c.long_request_timer = self.long_request_timer.0;
        c.recv_pending_limit = self.recv_pending_limit.get(u32::MAX);
        c.pending_timer = self.pending_timer.0;
        c.sent_pending_limit = self.sent_pending_limit.get(u32::MAX);
        c.reply_timer = self.reply_timer.0;
        c.reply_cache_bytes = usize::try_from(self.reply_cache_bytes).unwrap_or(usize::MAX);
        c.max_remembered_requests = usize::try_from(self.max_remembered).unwrap_or(usize::MAX);
        c.recognise_encoding = !self.no_recognise_encoding;
        c.negotiate_version = !self.no_negotiate_version;
        c.imm_ack_required = self.imm_ack_required;
        c.reply_to_decode_errors = !self.no_decode_error_replies;
        c.min_trans_id = self.min_trans_id;
        c.max_trans_id = self.max_trans_id.max(self.min_trans_id);
        c.max_outstanding_requests = self.max_outstanding.get(usize::MAX);
        c.max_unanswered_requests = self.max_unanswered.get(usize::MAX);
        c.max_pdu_size = self.max_pdu_size.get(usize::MAX);
        c.segment_recv_timer = self.segment_recv_timer.0;
        c.transport.max_peers = usize::try_from(self.max_peers).unwrap_or(usize::MAX).max(1);
        c.transport.max_unproven_peers =
            usize::try_from(self.max_unproven_peers).unwrap_or(usize::MAX);
        c.transport.unproven_timeout = self.unproven_timeout.0;
        c.transport.peer_idle_timeout = self.peer_idle_timeout.0;
        c.transport.registered_idle_timeout = self.registered_idle_timeout.0;
        c.transport.tcp_frame_timeout = self.tcp_frame_timeout.0;
        c.transport.reply_cache_total =
            usize::try_from(self.reply_cache_total).unwrap_or(usize::MAX);
        c.transport.max_remembered_total =
            usize::try_from(self.max_remembered_total).unwrap_or(usize::MAX);
        c.transport.inbound_queue = usize::try_from(self.inbound_queue)
            .unwrap_or(usize::MAX)
            .max(1);
        c.transport.udp_buffer = match self.udp_buffer {
            0 => None,
            n => Some(usize::try_from(n).unwrap_or(usize::MAX)),
        };
        c.transport.tcp_idle_timeout = self.tcp_idle_timeout.0;
        c.transport.tcp_linger = self.tcp_linger.0;
        c.transport.tcp_write_queue = usize::try_from(self.tcp_write_queue)
            .unwrap_or(usize::MAX)
            .max(1);
        c.transport.tcp_write_buffer = usize::try_from(self.tcp_write_buffer).unwrap_or(usize::MAX);
        c.transport.tcp_write_total = usize::try_from(self.tcp_write_total).unwrap_or(usize::MAX);
        c.transport.tcp_write_timeout = self.tcp_write_timeout.0;
        c.transport.error_rate_per_peer = self.error_rate_per_peer.0;
        c.transport.error_rate_total = self.error_rate_total.0;
        c.transport.report_interval = self.report_interval.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        engine: EngineArgs,
    }

    #[test]
    fn the_flags_default_to_the_engines_defaults() {
        let cli = Cli::try_parse_from(["x"]).unwrap();
        let mut c = defaults();
        cli.engine.apply(&mut c);
        let d = defaults();
        assert_eq!(c.request_timer, d.request_timer);
        assert_eq!(
            (
                c.long_request_timer,
                c.pending_timer,
                c.reply_timer,
                c.segment_recv_timer
            ),
            (
                d.long_request_timer,
                d.pending_timer,
                d.reply_timer,
                d.segment_recv_timer
            )
        );
        assert_eq!(
            (
                c.recv_pending_limit,
                c.sent_pending_limit,
                c.imm_ack_required,
                c.reply_to_decode_errors
            ),
            (
                d.recv_pending_limit,
                d.sent_pending_limit,
                d.imm_ack_required,
                d.reply_to_decode_errors
            )
        );
        assert_eq!(
            (c.min_trans_id, c.max_trans_id),
            (d.min_trans_id, d.max_trans_id)
        );
        assert_eq!(
            (
                c.max_outstanding_requests,
                c.max_unanswered_requests,
                c.max_pdu_size
            ),
            (
                d.max_outstanding_requests,
                d.max_unanswered_requests,
                d.max_pdu_size
            )
        );
        assert_eq!(c.transport, d.transport);
        assert_eq!(
            (
                c.reply_cache_bytes,
                c.max_remembered_requests,
                c.recognise_encoding,
                c.negotiate_version
            ),
            (
                d.reply_cache_bytes,
                d.max_remembered_requests,
                d.recognise_encoding,
                d.negotiate_version
            )
        );
    }

    #[test]
    fn limits_and_timers_read_none() {
        let cli = Cli::try_parse_from([
            "x",
            "--pending-timer",
            "none",
            "--max-unanswered",
            "none",
            "--tcp-idle-timeout",
            "2.5",
            "--max-pdu-size",
            "1400",
            "--udp-buffer",
            "0",
        ])
        .unwrap();
        let mut c = defaults();
        cli.engine.apply(&mut c);
        assert_eq!(c.transport.udp_buffer, None);
        assert_eq!(c.pending_timer, None);
        assert_eq!(c.max_unanswered_requests, None);
        assert_eq!(
            c.transport.tcp_idle_timeout,
            Some(Duration::from_millis(2500))
        );
        assert_eq!(c.max_pdu_size, Some(1400));
        assert!(Cli::try_parse_from(["x", "--reply-timer", "none"]).is_err());
        let cli = Cli::try_parse_from(["x", "--reply-timer", "40", "--error-rate-per-peer", "2/4"])
            .unwrap();
        cli.engine.apply(&mut c);
        assert_eq!(c.reply_timer, Some(Duration::from_secs(40)));
        assert_eq!(
            c.transport.error_rate_per_peer,
            RateLimit {
                per_second: 2,
                burst: 4
            }
        );
        assert!(Cli::try_parse_from(["x", "--reply-timer", "-1"]).is_err());
    }
}
