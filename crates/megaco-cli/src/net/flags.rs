//! The engine's timers and bounds as command-line flags, their defaults
//! taken from the engine's own (`Config::new`), so that `--help` shows
//! what runs.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use clap::Args;
use megaco::model::Mid;
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

/// Every timer and bound of the transaction engine and its transports.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Engine timers and bounds (Erlang/OTP megaco's names in brackets)")]
pub struct EngineArgs {
    /// First resend interval of a request over UDP [request_timer].
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().request_timer.initial))]
    pub request_timer: Secs,
    /// Each resend interval is the previous one times N.
    #[arg(long, value_name = "N", default_value_t = defaults().request_timer.factor)]
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
    /// How long a reply is kept to answer duplicates of its request
    /// [reply_timer]; by default the whole life of a request on the
    /// resend schedule (105 s with the default timers).
    #[arg(long, value_name = "SECS")]
    pub reply_timer: Option<Secs>,
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
    /// How many peers one UDP socket keeps, and TCP connections one
    /// listener holds, at once.
    #[arg(long, value_name = "N", default_value_t = defaults().transport.max_peers as u64)]
    pub max_peers: u64,
    /// A UDP peer with nothing going on is forgotten after this long.
    #[arg(long, value_name = "SECS", default_value_t = Secs(defaults().transport.peer_idle_timeout))]
    pub peer_idle_timeout: Secs,
    /// How many received requests and events may wait for us; beyond,
    /// requests get error 503.
    #[arg(long, value_name = "N", default_value_t = defaults().transport.inbound_queue as u64)]
    pub inbound_queue: u64,
    /// Close a TCP connection that brings no message for this long.
    #[arg(long, value_name = "SECS|none", default_value_t = MaybeSecs(defaults().transport.tcp_idle_timeout))]
    pub tcp_idle_timeout: MaybeSecs,
}

impl EngineArgs {
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
        c.reply_timer = self.reply_timer.map(|s| s.0);
        c.imm_ack_required = self.imm_ack_required;
        c.reply_to_decode_errors = !self.no_decode_error_replies;
        c.min_trans_id = self.min_trans_id;
        c.max_trans_id = self.max_trans_id.max(self.min_trans_id);
        c.max_outstanding_requests = self.max_outstanding.get(usize::MAX);
        c.max_unanswered_requests = self.max_unanswered.get(usize::MAX);
        c.max_pdu_size = self.max_pdu_size.get(usize::MAX);
        c.segment_recv_timer = self.segment_recv_timer.0;
        c.transport.max_peers = usize::try_from(self.max_peers).unwrap_or(usize::MAX).max(1);
        c.transport.peer_idle_timeout = self.peer_idle_timeout.0;
        c.transport.inbound_queue = usize::try_from(self.inbound_queue)
            .unwrap_or(usize::MAX)
            .max(1);
        c.transport.tcp_idle_timeout = self.tcp_idle_timeout.0;
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
        ])
        .unwrap();
        let mut c = defaults();
        cli.engine.apply(&mut c);
        assert_eq!(c.pending_timer, None);
        assert_eq!(c.max_unanswered_requests, None);
        assert_eq!(
            c.transport.tcp_idle_timeout,
            Some(Duration::from_millis(2500))
        );
        assert_eq!(c.max_pdu_size, Some(1400));
        assert!(Cli::try_parse_from(["x", "--reply-timer", "none"]).is_err());
        assert!(Cli::try_parse_from(["x", "--reply-timer", "-1"]).is_err());
    }
}
