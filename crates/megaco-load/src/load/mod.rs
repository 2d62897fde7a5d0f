//! `megaco load`: a load generator for H.248 in the spirit of sipp.
//!
//! In the gateway role (the default), N simulated MGs, each with its own
//! socket (UDP, or a TCP connection) and mid, register with the
//! controller at `target` (a ServiceChange) and then run calls: each
//! call is the scenario's steps in order (by default Add on a new context,
//! Modify, Notify and Subtract on the context the Add reply named), each
//! step waiting for the previous reply. Every MG keeps `concurrency` calls
//! going. With a `rate`, transactions are started at that rate in all;
//! without one, as fast as the controller answers. After `duration` no
//! new transaction starts; the run waits for the outstanding ones up to
//! the request timeout and stops.
//!
//! In the controller role, the generator listens; N gateways (simulated
//! here, or started elsewhere, e.g. by `megaco mg`) register with it, and
//! it runs the calls towards them.
//!
//! One thread does all the work: requests come from per-MG templates
//! ([`crate::template`]) with the transaction and context ids patched in,
//! so a transaction allocates nothing on the way out; replies are decoded
//! in full and checked against their request ([`crate::msg::check_reply`]).
//! Latency is the time from a transaction's first send to its reply, kept
//! in an HdrHistogram (µs).
//!
//! Counts add up: `sent = answered + failed + timed_out` once the run has
//! stopped. Replies that answer nothing are errors beside them
//! (malformed, unexpected, duplicate, late).

mod conn;
mod engine;
mod script;

use megaco::codec::Encoding;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::bail;
use serde::Serialize;

use crate::batch::Io;
use crate::msg::Expect;
use crate::Errors;

pub use engine::{run, MAX_CONCURRENCY, MAX_RESENDS};

/// Which side the generator plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// N gateways against one controller.
    Mg,
    /// One controller driving N gateways.
    Mgc,
}

/// One step of a built-in call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    /// Add of the MG's termination to a new context (`$`).
    Add,
    /// Modify of it on the call's context.
    Modify,
    /// Notify (`al/of`) of it on the call's context.
    Notify,
    /// Subtract of it from the call's context.
    Subtract,
    /// AuditValue of ROOT.
    Audit,
}

impl Step {
    pub(crate) fn expect(self) -> Expect {
        match self {
            Step::Add => Expect::Add,
            Step::Modify => Expect::Modify,
            Step::Notify => Expect::Notify,
            Step::Subtract => Expect::Subtract,
            Step::Audit => Expect::Audit,
        }
    }

    /// Whether the step runs on the context an Add made.
    pub(crate) fn on_context(self) -> bool {
        matches!(self, Step::Modify | Step::Notify | Step::Subtract)
    }
}

/// What each call of a run does.
#[derive(Debug, Clone, PartialEq)]
pub enum Calls {
    /// Built-in steps on the gateway's own termination, from templates
    /// encoded once per gateway (only the transaction and context ids
    /// patched in).
    Steps(Vec<Step>),
    /// A scenario file's MG script (`[[step]]`s of
    /// [`megaco_stack::scenario`]), each call running it once.
    Script(Arc<megaco_stack::scenario::Scenario>),
}

/// The calls of a run, by name.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Its name (built-in) or file.
    pub name: String,
    /// The calls.
    pub calls: Calls,
}

/// The built-in scenarios: name, steps, what they are.
pub const BUILTIN: [(&str, &[Step], &str); 3] = [
    (
        "call",
        &[Step::Add, Step::Modify, Step::Notify, Step::Subtract],
        "Add to a new context, Modify, Notify (al/of), Subtract",
    ),
    (
        "notify",
        &[Step::Notify],
        "one Notify (al/of) on the null context",
    ),
    ("audit", &[Step::Audit], "one AuditValue of ROOT"),
];

impl Scenario {
    /// A built-in scenario ([`BUILTIN`]): `call` (Add, Modify, Notify,
    /// Subtract; the default), `notify` (one Notify) or `audit` (one
    /// AuditValue of ROOT).
    pub fn builtin(name: &str) -> Option<Scenario> {
        let (name, steps, _) = BUILTIN.iter().find(|(n, _, _)| *n == name)?;
        Some(Scenario {
            name: name.to_string(),
            calls: Calls::Steps(steps.to_vec()),
        })
    }

    /// A built-in name, or a scenario file (TOML, the format of
    /// [`megaco_stack::scenario`], as `megaco mg --scenario` reads it):
    /// each call runs its `[[step]]`s once, `[mg]`'s `register` and
    /// `reason` apply to every gateway's registration.
    pub fn load(name_or_file: &str) -> anyhow::Result<Scenario> {
        if let Some(s) = Scenario::builtin(name_or_file) {
            return Ok(s);
        }
        let path = Path::new(name_or_file);
        if !path.exists() {
            let names: Vec<&str> = BUILTIN.iter().map(|(n, _, _)| *n).collect();
            bail!(
                "{name_or_file}: neither a built-in scenario ({}) nor a file",
                names.join(", ")
            );
        }
        let scenario = megaco_stack::scenario::Scenario::load(path)?;
        Scenario::script(name_or_file, scenario)
    }

    /// A scenario file's script, checked for what a load run can do:
    /// at least one `send` step, no `receive` step (under load the
    /// controller's requests are answered, never awaited).
    pub fn script(
        name: &str,
        scenario: megaco_stack::scenario::Scenario,
    ) -> anyhow::Result<Scenario> {
        use megaco_stack::scenario::Step as S;
        if let Some(at) = scenario
            .steps
            .iter()
            .position(|s| matches!(s, S::Receive(_)))
        {
            bail!(
                "{name}: step {}: `receive` steps are not run under load (the controller's \
                 requests are answered, never awaited)",
                at + 1
            );
        }
        if !scenario.steps.iter().any(|s| matches!(s, S::Send(_))) {
            bail!("{name}: no `send` step: nothing to load the controller with");
        }
        Ok(Scenario {
            name: name.into(),
            calls: Calls::Script(Arc::new(scenario)),
        })
    }

    /// The built-in steps, if built in.
    pub fn steps(&self) -> Option<&[Step]> {
        match &self.calls {
            Calls::Steps(s) => Some(s),
            Calls::Script(_) => None,
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// Gateway role: the controller's address. Controller role: the
    /// address to listen on.
    pub target: SocketAddr,
    /// Which side we play.
    pub role: Role,
    /// How many gateways.
    pub mgs: usize,
    /// Transactions started per second in all; `None` for as fast as
    /// answers come.
    pub rate: Option<f64>,
    /// How long transactions are started.
    pub duration: Duration,
    /// TCP (TPKT) instead of UDP (gateway role).
    pub tcp: bool,
    /// The wire encoding.
    pub wire: Encoding,
    /// The protocol version.
    pub version: u8,
    /// The calls.
    pub scenario: Scenario,
    /// Calls in flight per gateway; `None` for 8, or with a rate enough
    /// for 50 ms of it (a scenario file's script: 1).
    pub concurrency: Option<usize>,
    /// How long a request waits for its reply (in all, resends included).
    pub timeout: Duration,
    /// Resends over UDP within the timeout.
    pub resends: u32,
    /// Controller role: simulate the gateways here (else wait for them to
    /// register from elsewhere).
    pub simulate: bool,
    /// How long registrations may take before the calls start anyway
    /// (with the gateways registered by then; none is an error).
    pub register_window: Duration,
    /// How UDP datagrams go through the kernel.
    pub io: Io,
    /// The process id of the controller under load, when it runs on this
    /// machine: its CPU time per transaction is reported beside ours.
    pub target_pid: Option<u32>,
    /// Controller role: print `listening on udp ADDR` on standard error
    /// once the socket is bound, for gateways started elsewhere (above
    /// all when the port was picked). On by default.
    pub announce: bool,
}

impl LoadConfig {
    /// Defaults for `mgs` gateways against `target`.
    pub fn new(target: SocketAddr) -> Self {
        LoadConfig {
            target,
            role: Role::Mg,
            mgs: 10,
            rate: None,
            duration: Duration::from_secs(10),
            tcp: false,
            wire: Encoding::pretty(),
            version: 1,
            scenario: Scenario::builtin("call").expect("built-in"),
            concurrency: None,
            timeout: Duration::from_secs(2),
            resends: 1,
            simulate: true,
            register_window: Duration::from_secs(10),
            io: Io::Batched,
            target_pid: None,
            announce: true,
        }
    }

    /// Whether the run is within its bounds (what [`run`] checks first):
    /// 1 to 10,000 gateways, an hour at most, 1 to [`MAX_CONCURRENCY`]
    /// calls in flight per gateway, [`MAX_RESENDS`] resends at most.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.mgs == 0 || self.mgs > 10_000 {
            bail!("--mgs must be 1 to 10,000 (asked for {})", self.mgs);
        }
        if self.duration > Duration::from_secs(3600) {
            bail!("--duration is at most an hour");
        }
        if let Some(c) = self
            .concurrency
            .filter(|c| !(1..=MAX_CONCURRENCY).contains(c))
        {
            bail!("--concurrency must be 1 to {MAX_CONCURRENCY} (asked for {c})");
        }
        // Each resend waits its share of the timeout; more than this many
        // would be a flood, not a retry.
        if self.resends > MAX_RESENDS {
            let n = self.resends;
            bail!("--resends is at most {MAX_RESENDS} (asked for {n})");
        }
        Ok(())
    }

    pub(crate) fn calls_per_mg(&self) -> usize {
        let script = matches!(self.scenario.calls, Calls::Script(_));
        let c = match (self.concurrency, self.rate) {
            (Some(c), _) => c,
            // A scripted call uses the gateway's own lines (tdm/1): one
            // at a time, as on a real gateway.
            (None, _) if script => 1,
            (None, Some(rate)) => (rate * 0.05 / self.mgs.max(1) as f64).ceil() as usize,
            (None, None) => 8,
        };
        c.clamp(1, MAX_CONCURRENCY)
    }
}

/// Latency percentiles, µs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Median.
    pub p50_us: u64,
    /// 90th percentile.
    pub p90_us: u64,
    /// 99th.
    pub p99_us: u64,
    /// 99.9th.
    pub p999_us: u64,
    /// Largest.
    pub max_us: u64,
    /// Mean.
    pub mean_us: f64,
}

/// One second of the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Sample {
    /// Seconds since the calls started (end of the interval).
    pub t: f64,
    /// Transactions started in the interval.
    pub sent: u64,
    /// Good replies in the interval.
    pub answered: u64,
    /// Awaiting a reply at the end of it.
    pub outstanding: u64,
    /// Failed, timed out and stray replies so far.
    pub errors: u64,
    /// Latency of the interval's replies.
    pub latency: Latency,
}

/// What a run measured.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LoadReport {
    /// Gateways asked for.
    pub mgs: usize,
    /// Gateways registered.
    pub registered: usize,
    /// Target rate (none: as fast as answered).
    pub rate: Option<f64>,
    /// Calls in flight per gateway.
    pub concurrency: usize,
    /// Transactions started (registrations not included).
    pub sent: u64,
    /// Answered as expected.
    pub answered: u64,
    /// Answered with an error, or with a reply to another command.
    pub failed: u64,
    /// No reply in time.
    pub timed_out: u64,
    /// Resent datagrams.
    pub resent: u64,
    /// Pendings received.
    pub pendings: u64,
    /// Calls completed (every step answered).
    pub calls: u64,
    /// Calls that, after a failed or timed-out step, took their
    /// termination out of any context (`Subtract` on context `*`, counted
    /// answered whatever its result) before they started over with their
    /// Add.
    pub cleanups: u64,
    /// Why the first few failed transactions failed (a scenario step's
    /// check, an error reply), with how often each.
    pub failures: Vec<(String, u64)>,
    /// Replies that answered nothing, and error replies.
    pub errors: Errors,
    /// Seconds transactions were started.
    pub seconds: f64,
    /// Answered per second over those.
    pub throughput: f64,
    /// Latency of every answered transaction.
    pub latency: Latency,
    /// CPU time this process (the generator, and the simulated gateways
    /// of the controller role) used per answered transaction while the
    /// calls ran, µs (Linux). On a shared machine the throughput follows
    /// the CPU the processes get; this does not.
    pub cpu_per_transaction_us: Option<f64>,
    /// The same for the controller under load (`target_pid`), µs; read in
    /// 10 ms ticks.
    pub target_cpu_per_transaction_us: Option<f64>,
    /// The longest time one turn of the generator's loop took beyond the
    /// wait it chose (its poll's timeout, in whole milliseconds), ms: the
    /// system waking it late, or a burst keeping it busy. A reply that
    /// comes in then is read, and timed, late; so where a run's worst
    /// latency is no longer than this, it may be the generator's own.
    pub generator_stall_ms: f64,
    /// Second by second.
    pub series: Vec<Sample>,
}

/// One step of a rate sweep, and the knee.
#[derive(Debug, Clone, Serialize)]
pub struct Sweep {
    /// Each rate's run.
    pub steps: Vec<LoadReport>,
    /// The highest rate answered in full: throughput at least 95 % of it,
    /// nothing timed out or failed.
    pub knee: Option<f64>,
    /// The highest rate answered in full with p99 within the limit too.
    pub knee_p99: Option<f64>,
    /// The p99 limit, µs.
    pub p99_limit_us: u64,
}

/// The most steps of a [`sweep`].
pub const MAX_SWEEP_STEPS: usize = 50;

/// Runs `config` at each of `rates` in turn and finds the knee.
pub fn sweep(
    config: &LoadConfig,
    rates: &[f64],
    p99_limit: Duration,
    progress: &mut dyn FnMut(&Sample),
    note: &mut dyn FnMut(&str),
) -> anyhow::Result<Sweep> {
    if rates.len() > MAX_SWEEP_STEPS {
        bail!(
            "a sweep has at most {MAX_SWEEP_STEPS} steps (asked for {})",
            rates.len()
        );
    }
    // Bounded like one run: an hour of load in all.
    if config.duration * rates.len() as u32 > Duration::from_secs(3600) {
        bail!(
            "a sweep of {} steps of {:?} is more than an hour of load",
            rates.len(),
            config.duration
        );
    }
    let limit = p99_limit.as_micros() as u64;
    let mut steps = Vec::new();
    let (mut knee, mut knee_p99) = (None, None);
    for &rate in rates {
        note(&format!("rate {rate:.0}/s"));
        let r = run(
            &LoadConfig {
                rate: Some(rate),
                ..config.clone()
            },
            progress,
        )?;
        let full = r.timed_out == 0 && r.failed == 0 && r.throughput >= 0.95 * rate;
        if full {
            knee = Some(rate);
            if r.latency.p99_us <= limit {
                knee_p99 = Some(rate);
            }
        }
        steps.push(r);
    }
    Ok(Sweep {
        steps,
        knee,
        knee_p99,
        p99_limit_us: limit,
    })
}
