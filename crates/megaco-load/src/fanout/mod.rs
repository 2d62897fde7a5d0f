//! `megaco bench fanout`: one controller sends one request to each of N
//! registered gateways and waits for every reply, as N grows; the time
//! per destination tells whether the cost of reaching a gateway grows
//! with their number.
//!
//! The method is that of the Erlang fan-out study of ejabberd's
//! mod_multicast (one packet to N destinations, N = 1, 101, …, 901,
//! normal routing against multicast, trusted and untrusted, one server
//! and several, with a per-stage profile). Here:
//!
//! - **per-destination** builds the request's model and encodes it for
//!   each gateway; **template** encodes it once and patches only the
//!   transaction id ([`crate::template`]);
//! - **trusted** takes a reply's transaction id from a scan
//!   ([`crate::scan`]) and counts it as the answer; **untrusted** decodes
//!   each reply in full and checks it against its request (sender's
//!   address and mid, command, no error);
//! - **single** has every gateway behind one controller socket and thread
//!   (and the gateways on one thread); **multiple** shards the controller
//!   over several sockets and threads, each with its share of the
//!   gateways (served by as many threads).
//!
//! Each gateway has its own address (`127.1.x.y`) and mid; by default
//! ([`Sockets::Shared`], Linux) a gateway thread reads the requests for
//! all of its gateways from one socket, a batch at a time, so that the
//! simulated gateways, which share the machine with the controller being
//! measured, cost it as little as they can. [`Sockets::Own`] gives each
//! gateway its own socket on `127.0.0.1`: one system call and poll event
//! per gateway and request.
//!
//! Each round charges every moment of the controller's time to one stage
//! (build, encode, engine, send, receive, decode, match), so the stages
//! sum to the round's time (to the shards' summed time when sharded).
//! `stack` sends the same requests through `megaco_stack`'s UDP driver;
//! `otp` through Erlang/OTP's megaco ([`crate::otp`]), to the same
//! simulated gateways. The wildcard part sends one `AuditValue =
//! 00000001/*` to one gateway holding N terminations.

mod otp;
mod shard;
mod stack;

use megaco::codec::Encoding;
use std::net::SocketAddr;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{bail, Context as _};
use serde::Serialize;

use crate::batch::Io;
use crate::farm::{Farm, FarmConfig, Fault, Sockets};
use crate::Errors;
use shard::{Cmd, Shard, ShardRound};

/// How requests are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Build {
    /// Built and encoded for each gateway.
    PerDestination,
    /// Encoded once, the transaction id patched per gateway.
    Template,
}

/// How replies are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trust {
    /// By their transaction id alone.
    Trusted,
    /// Decoded in full and checked against the request.
    Untrusted,
}

/// Where the gateways are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Spread {
    /// Behind one controller socket and thread.
    Single,
    /// Over several controller sockets and threads.
    Multiple,
}

/// One way of fanning out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Setup {
    /// How requests are made.
    pub build: Build,
    /// How replies are taken.
    pub trust: Trust,
    /// Where the gateways are.
    pub spread: Spread,
    /// How datagrams go through the kernel (the controller's and the
    /// gateways').
    pub io: Io,
}

impl Setup {
    /// The eight combinations, datagrams batched ([`Io::Batched`]).
    pub fn all() -> Vec<Setup> {
        let mut v = Vec::new();
        for spread in [Spread::Single, Spread::Multiple] {
            for build in [Build::PerDestination, Build::Template] {
                for trust in [Trust::Untrusted, Trust::Trusted] {
                    v.push(Setup {
                        build,
                        trust,
                        spread,
                        io: Io::Batched,
                    });
                }
            }
        }
        v
    }

    /// `template/trusted/single` and so on.
    pub fn name(&self) -> String {
        let b = match self.build {
            Build::PerDestination => "per-destination",
            Build::Template => "template",
        };
        let t = match self.trust {
            Trust::Trusted => "trusted",
            Trust::Untrusted => "untrusted",
        };
        let s = match self.spread {
            Spread::Single => "single",
            Spread::Multiple => "multiple",
        };
        match self.io {
            Io::Batched => format!("{b}/{t}/{s}"),
            Io::PerDatagram => format!("{b}/{t}/{s}/unbatched"),
        }
    }

    /// The setup of a [`Setup::name`]: one of [`Setup::all`], or one of
    /// them with `/unbatched` after it (one system call per datagram).
    ///
    /// ```
    /// use megaco_load::batch::Io;
    /// use megaco_load::fanout::Setup;
    ///
    /// let s = Setup::named("template/trusted/single/unbatched").unwrap();
    /// assert_eq!(s.io, Io::PerDatagram);
    /// assert_eq!(s.name(), "template/trusted/single/unbatched");
    /// assert!(Setup::named("template/trusted").is_none());
    /// ```
    pub fn named(name: &str) -> Option<Setup> {
        let (base, io) = match name.strip_suffix("/unbatched") {
            Some(base) => (base, Io::PerDatagram),
            None => (name, Io::Batched),
        };
        Setup::all()
            .into_iter()
            .find(|s| s.name() == base)
            .map(|s| Setup { io, ..s })
    }
}

/// The request sent to each gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Request {
    /// `AuditValue = ROOT`.
    Audit,
    /// `Modify = 00000001/00000000/00000000` on the null context.
    Modify,
    /// `AuditValue = 00000001/*`, answered for every termination.
    Wildcard {
        /// How many termination replies the answer must hold.
        terminations: usize,
    },
}

/// Time charged to each stage of a round.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stages {
    /// Building the request's model.
    pub build: Duration,
    /// Encoding (or patching the template).
    pub encode: Duration,
    /// Recording the transaction (id → gateway).
    pub engine: Duration,
    /// The send system calls.
    pub send: Duration,
    /// The receive system calls and waiting for replies.
    pub receive: Duration,
    /// Reading a reply: its id scanned, or the whole message decoded.
    pub decode: Duration,
    /// Finding its request and checking it.
    pub matching: Duration,
}

impl Stages {
    fn add(&mut self, o: &Stages) {
        self.build += o.build;
        self.encode += o.encode;
        self.engine += o.engine;
        self.send += o.send;
        self.receive += o.receive;
        self.decode += o.decode;
        self.matching += o.matching;
    }

    fn per(&self, n: usize) -> Profile {
        let us = |d: Duration| d.as_secs_f64() * 1e6 / n.max(1) as f64;
        let p = Profile {
            build_us: us(self.build),
            encode_us: us(self.encode),
            engine_us: us(self.engine),
            send_us: us(self.send),
            receive_us: us(self.receive),
            decode_us: us(self.decode),
            match_us: us(self.matching),
            total_us: 0.0,
        };
        Profile {
            total_us: p.build_us
                + p.encode_us
                + p.engine_us
                + p.send_us
                + p.receive_us
                + p.decode_us
                + p.match_us,
            ..p
        }
    }
}

/// A round's stages in µs per destination.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Profile {
    /// Build.
    pub build_us: f64,
    /// Encode.
    pub encode_us: f64,
    /// Engine.
    pub engine_us: f64,
    /// Send system calls.
    pub send_us: f64,
    /// Receive system calls and waiting.
    pub receive_us: f64,
    /// Decode.
    pub decode_us: f64,
    /// Match.
    pub match_us: f64,
    /// Their sum.
    pub total_us: f64,
}

/// One N of one setup: the fastest pass's time, and what all passes
/// counted.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Destinations (terminations, in the wildcard table).
    pub destinations: usize,
    /// Time of the fastest pass, µs.
    pub time_us: f64,
    /// That, per destination.
    pub per_destination_us: f64,
    /// The fastest pass's stages.
    pub profile: Option<Profile>,
    /// CPU time per destination of the controller's thread(s), µs: the
    /// least of the passes (Linux). For `otp`, the OTP node's CPU time,
    /// the mean over the passes (it is read in 10 ms ticks).
    pub cpu_per_destination_us: Option<f64>,
    /// CPU time per destination of the whole process (controller,
    /// gateways, the kernel's work on their behalf), µs: the least of the
    /// passes (Linux).
    pub process_cpu_per_destination_us: Option<f64>,
    /// Requests sent over all passes.
    pub sent: u64,
    /// Replies taken as answers over all passes.
    pub answered: u64,
    /// Requests left without an answer at the round's deadline.
    pub timeouts: u64,
    /// Bad replies.
    pub errors: Errors,
}

/// All rows of one setup.
#[derive(Debug, Clone, Serialize)]
pub struct SetupResult {
    /// The setup's name.
    pub name: String,
    /// One row per N.
    pub rows: Vec<Row>,
}

impl SetupResult {
    fn new(name: String) -> Self {
        SetupResult {
            name,
            rows: Vec::new(),
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct FanoutConfig {
    /// The numbers of destinations.
    pub ns: Vec<usize>,
    /// Passes per N (the fastest is reported).
    pub passes: usize,
    /// The wire encoding.
    pub wire: Encoding,
    /// The protocol version.
    pub version: u8,
    /// The request: [`Request::Audit`] or [`Request::Modify`].
    pub request: Request,
    /// Controller shards (and gateway threads) of the multiple setups.
    pub shards: usize,
    /// The setups to run.
    pub setups: Vec<Setup>,
    /// Also through `megaco_stack`'s UDP driver.
    pub stack: bool,
    /// Also the wildcard table (one gateway, N terminations).
    pub wildcard: bool,
    /// How long a round waits for replies beyond its sends.
    pub timeout: Duration,
    /// Simulated gateways that misbehave (by index).
    pub faults: Vec<(usize, Fault)>,
    /// Also through Erlang/OTP's megaco ([`crate::otp`]).
    pub otp: bool,
    /// How the simulated gateways' addresses map to sockets.
    pub sockets: Sockets,
}

impl FanoutConfig {
    /// The controller shards, and gateway threads, of the multiple setups
    /// (at least two: one would be the single setup).
    pub fn multiple_shards(&self) -> usize {
        self.shards.max(2)
    }
}

impl Default for FanoutConfig {
    fn default() -> Self {
        FanoutConfig {
            ns: steps(901, 100),
            passes: 5,
            wire: Encoding::pretty(),
            version: 1,
            request: Request::Audit,
            shards: 2,
            setups: Setup::all(),
            stack: true,
            wildcard: true,
            timeout: Duration::from_secs(2),
            faults: vec![],
            otp: false,
            sockets: Sockets::Shared,
        }
    }
}

/// 1, 1 + step, … up to `max` (and `max` itself).
pub fn steps(max: usize, step: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (1..=max.max(1)).step_by(step.max(1)).collect();
    if v.last() != Some(&max) && max > 0 {
        v.push(max);
    }
    v
}

/// What a run measured.
#[derive(Debug, Clone, Serialize)]
pub struct FanoutReport {
    /// The wire encoding.
    #[serde(serialize_with = "crate::encoding_name")]
    pub wire: Encoding,
    /// The request.
    pub request: Request,
    /// Passes per N.
    pub passes: usize,
    /// Shards of the multiple setups.
    pub shards: usize,
    /// How the simulated gateways' addresses mapped to sockets.
    pub sockets: Sockets,
    /// One table per setup (and `stack`).
    pub setups: Vec<SetupResult>,
    /// The wildcard table.
    pub wildcard: Option<SetupResult>,
    /// Erlang/OTP's controller, to the same gateways.
    pub otp: Option<SetupResult>,
    /// OTP's release, megaco version and schedulers.
    pub otp_info: Vec<(String, String)>,
}

/// Controller shards and their gateways.
struct World {
    shards: Vec<(Sender<Cmd>, JoinHandle<()>)>,
    farm: Farm,
}

impl World {
    fn start(k: usize, mgs: usize, cfg: &FanoutConfig) -> anyhow::Result<World> {
        let mut shards = Vec::new();
        let mut addrs = Vec::new();
        for _ in 0..k {
            let shard = Shard::bind(cfg.wire.clone(), cfg.version, cfg.timeout)
                .context("binding a controller socket")?;
            addrs.push(shard.local_addr()?);
            let (tx, rx) = mpsc::channel();
            shards.push((tx, std::thread::spawn(move || shard.run(rx))));
        }
        let farm = Farm::start(FarmConfig {
            mgs,
            threads: k,
            wire: cfg.wire.clone(),
            version: cfg.version,
            register_to: addrs,
            terminations: 1,
            faults: cfg.faults.clone(),
            sockets: cfg.sockets,
        })
        .context("starting the simulated gateways")?;
        let mut known = 0;
        for (i, (tx, _)) in shards.iter().enumerate() {
            let (done, rx) = mpsc::channel();
            let expect = mgs / k + usize::from(i < mgs % k);
            let limit = Duration::from_secs(10) + Duration::from_millis(mgs as u64);
            let _ = tx.send(Cmd::Register {
                expect,
                limit,
                done,
            });
            known += rx.recv().unwrap_or(0);
        }
        if known < mgs {
            bail!("only {known} of {mgs} simulated gateways registered");
        }
        Ok(World { shards, farm })
    }

    fn round(&self, n: usize, setup: Setup, request: Request) -> ShardRound {
        self.farm.set_io(setup.io);
        let k = self.shards.len();
        let start = Arc::new(Barrier::new(k));
        let (done, rx) = mpsc::channel();
        // Read before any shard starts, so the process's time holds theirs.
        let p0 = crate::cpu::process();
        for (i, (tx, _)) in self.shards.iter().enumerate() {
            let _ = tx.send(Cmd::Round {
                n: n / k + usize::from(i < n % k),
                setup,
                request,
                start: start.clone(),
                done: done.clone(),
            });
        }
        drop(done);
        let mut total = ShardRound::default();
        for r in rx {
            total.cpu = match (total.cpu, r.cpu) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            };
            total.wall = total.wall.max(r.wall);
            total.stages.add(&r.stages);
            total.answered += r.answered;
            total.timeouts += r.timeouts;
            total.errors.add(&r.errors);
        }
        total.process_cpu = crate::cpu::since(p0, crate::cpu::process());
        total
    }

    fn stop(self) {
        for (tx, h) in self.shards {
            drop(tx);
            let _ = h.join();
        }
        self.farm.stop();
    }
}

/// Folds the passes of one N into a row.
fn row(n: usize, passes: &[ShardRound]) -> Row {
    let best = passes
        .iter()
        .min_by_key(|r| r.wall)
        .cloned()
        .unwrap_or_default();
    let mut errors = Errors::default();
    for p in passes {
        errors.add(&p.errors);
    }
    let time_us = best.wall.as_secs_f64() * 1e6;
    let least = |f: fn(&ShardRound) -> Option<Duration>| {
        passes
            .iter()
            .filter_map(f)
            .min()
            .map(|d| d.as_secs_f64() * 1e6 / n.max(1) as f64)
    };
    Row {
        destinations: n,
        time_us,
        per_destination_us: time_us / n.max(1) as f64,
        profile: Some(best.stages.per(n)),
        cpu_per_destination_us: least(|p| p.cpu),
        process_cpu_per_destination_us: least(|p| p.process_cpu),
        sent: (n * passes.len()) as u64,
        answered: passes.iter().map(|p| p.answered).sum(),
        timeouts: passes.iter().map(|p| p.timeouts).sum(),
        errors,
    }
}

/// Runs the fan-out: every setup over every N, then the wildcard table.
/// `progress` is told what runs.
pub fn run(cfg: &FanoutConfig, progress: &mut dyn FnMut(&str)) -> anyhow::Result<FanoutReport> {
    let max = cfg.ns.iter().copied().max().unwrap_or(1);
    if max > 10_000 {
        bail!("at most 10,000 destinations (asked for {max})");
    }
    let mut setups = Vec::new();
    for spread in [Spread::Single, Spread::Multiple] {
        let chosen: Vec<Setup> = cfg
            .setups
            .iter()
            .copied()
            .filter(|s| s.spread == spread)
            .collect();
        let with_stack = cfg.stack && spread == Spread::Single;
        if chosen.is_empty() && !with_stack {
            continue;
        }
        let k = if spread == Spread::Single {
            1
        } else {
            cfg.multiple_shards()
        };
        progress(&format!(
            "registering {max} simulated gateways with {k} controller socket(s)"
        ));
        let world = World::start(k, max, cfg)?;
        for setup in chosen {
            let mut result = SetupResult::new(setup.name());
            for &n in &cfg.ns {
                progress(&format!("{}: N = {n}", setup.name()));
                let passes: Vec<ShardRound> = (0..cfg.passes.max(1))
                    .map(|_| world.round(n, setup, cfg.request))
                    .collect();
                result.rows.push(row(n, &passes));
            }
            setups.push(result);
        }
        if with_stack {
            progress("stack: megaco_stack's UDP driver");
            setups.push(stack::run(cfg, world.farm.addrs())?);
        }
        world.stop();
    }
    let wildcard = if cfg.wildcard {
        Some(run_wildcard(cfg, progress)?)
    } else {
        None
    };
    let (otp, otp_info) = if cfg.otp {
        let (table, info) = otp::run(cfg, progress)?;
        (Some(table), info)
    } else {
        (None, vec![])
    };
    Ok(FanoutReport {
        otp,
        otp_info,
        wire: cfg.wire.clone(),
        request: cfg.request,
        passes: cfg.passes,
        shards: cfg.multiple_shards(),
        sockets: cfg
            .sockets
            .effective(SocketAddr::from(([127, 0, 0, 1], 0)), max),
        setups,
        wildcard,
    })
}

/// One gateway holding N terminations answers `AuditValue = 00000001/*`
/// with N termination replies; rows per N terminations.
fn run_wildcard(cfg: &FanoutConfig, progress: &mut dyn FnMut(&str)) -> anyhow::Result<SetupResult> {
    let world = World::start(
        1,
        1,
        &FanoutConfig {
            faults: vec![],
            ..cfg.clone()
        },
    )?;
    let setup = Setup {
        build: Build::PerDestination,
        trust: Trust::Untrusted,
        spread: Spread::Single,
        io: Io::Batched,
    };
    let mut result = SetupResult::new("wildcard".into());
    for &n in &cfg.ns {
        progress(&format!("wildcard: {n} terminations"));
        world.farm.set_terminations(n);
        let request = Request::Wildcard { terminations: n };
        let passes: Vec<ShardRound> = (0..cfg.passes.max(1))
            .map(|_| world.round(1, setup, request))
            .collect();
        let mut r = row(1, &passes);
        r.destinations = n;
        r.per_destination_us = r.time_us / n.max(1) as f64;
        r.cpu_per_destination_us = r.cpu_per_destination_us.map(|c| c / n.max(1) as f64);
        r.process_cpu_per_destination_us = r
            .process_cpu_per_destination_us
            .map(|c| c / n.max(1) as f64);
        r.profile = passes
            .iter()
            .min_by_key(|p| p.wall)
            .map(|p| p.stages.per(n));
        result.rows.push(r);
    }
    world.stop();
    Ok(result)
}
