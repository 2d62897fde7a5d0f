//! The load generator's loop: one thread, every socket under one poll.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use hdrhistogram::Histogram;
use megaco::codec::Encoding;
use megaco::model::*;
use megaco_stack::build;
use mio::{Events, Interest, Poll, Token};

use megaco_stack::scenario::{reply_errors, Script};

use super::conn::Sock;
use super::script::{Now, Plan};
use super::{Calls, Latency, LoadConfig, LoadReport, Role, Sample, Step};
use crate::batch::Inbox;
use crate::farm::{self, Farm, FarmConfig};
use crate::msg::{self, Gateway};
use crate::net;
use crate::template::Template;

/// Marks the registration transaction of a link.
const REGISTRATION: u32 = u32::MAX;
/// At most this many transactions start between two reads.
const SEND_BATCH: usize = 1024;
/// How many given-up transaction ids a link remembers (to tell late
/// replies from unexpected ones).
const GIVEN_UP: usize = 4096;

struct Link {
    sock: usize,
    peer: SocketAddr,
    mid: Mid,
    /// Per step: its template (none for a script step filled in per call,
    /// or a wait). A scenario with an Add has one set of step templates
    /// per call slot (`per_slot` each: the steps, then the clean-up
    /// Subtract), so that the gateway's calls in flight Add different
    /// terminations.
    templates: Vec<Option<Template>>,
    per_slot: Option<usize>,
    next_tid: u32,
    out: HashMap<u32, Out>,
    given_up: HashSet<u32>,
    registered: bool,
}

struct Out {
    call: u32,
    ctx: u32,
    first: Instant,
    deadline: Instant,
    resends_left: u32,
    /// The request, when it was encoded for this call alone (resends).
    bytes: Option<Box<[u8]>>,
}

struct Call {
    link: u32,
    /// Which of its link's calls this is (`0..calls_per_mg`).
    slot: u32,
    step: u8,
    ctx: u32,
    /// A scenario file's script, where it stands in this call.
    script: Option<Box<Script>>,
}

struct Gen<'a> {
    cfg: &'a LoadConfig,
    /// Sockets with messages queued.
    dirty: Vec<usize>,
    /// Every link's first transaction id.
    first_tid: u32,
    /// A scenario file's script.
    plan: Option<Plan>,
    /// Calls in a script's wait step, until when.
    waits: BinaryHeap<Reverse<(Instant, u32)>>,
    inbox: Inbox,
    encoding: Encoding,
    socks: Vec<Sock>,
    links: Vec<Link>,
    by_addr: HashMap<SocketAddr, u32>,
    calls: Vec<Call>,
    ready: VecDeque<u32>,
    deadlines: VecDeque<(Instant, u32, u32)>,
    gateway: Gateway,
    scratch: Vec<u8>,
    interval: Duration,
    report: LoadReport,
    all: Histogram<u64>,
    tick: Histogram<u64>,
    tick_sent: u64,
    tick_answered: u64,
    outstanding: u64,
}

/// A first transaction id that differs from run to run: a controller
/// remembers the replies it sent (to answer a resent request from its
/// cache, never running it twice), and a new run's gateway on a port an
/// earlier run's gateway used must not have its requests taken for
/// resends of that one's.
fn first_tid() -> u32 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() ^ d.as_secs() as u32);
    1 + nanos % 0x3FFF_FFFF
}

/// Queues a message on socket `s`, remembering that it has some.
fn send(socks: &mut [Sock], dirty: &mut Vec<usize>, s: usize, bytes: &[u8], to: SocketAddr) {
    if !socks[s].backlog() {
        dirty.push(s);
    }
    let _ = socks[s].send(bytes, to);
}

/// Where the template of `step` for call `slot` is among a link's
/// templates (one set per slot, `per_slot` steps each, or one shared set).
fn template_index(per_slot: Option<usize>, slot: u32, step: usize) -> usize {
    per_slot.map_or(step, |n| slot as usize * n + step)
}

/// A reply's first error, `error CODE (TEXT)`, as a failure's reason:
/// a 503 (the controller is behind) reads apart from a 433 (a call's
/// termination is in a context already).
fn error_reason(result: &TransactionResult) -> String {
    match reply_errors(result).first() {
        Some(ErrorDescriptor {
            error_code,
            error_text: Some(text),
        }) => format!("error {error_code} ({text})"),
        Some(e) => format!("error {}", e.error_code),
        None => "error reply".into(),
    }
}

/// Writes a request into `scratch`: the bytes encoded for its call alone,
/// or its template's with `tid` and `ctx` patched in; false when there is
/// nothing to send.
fn fill(
    scratch: &mut Vec<u8>,
    own: Option<&[u8]>,
    template: Option<&mut Template>,
    tid: u32,
    ctx: u32,
) -> bool {
    scratch.clear();
    match (own, template) {
        (Some(b), _) => {
            scratch.extend_from_slice(b);
            true
        }
        (None, Some(t)) => t.write(tid, ctx, scratch).is_ok(),
        (None, None) => false,
    }
}

fn histogram() -> Histogram<u64> {
    Histogram::new(3).expect("3 significant figures is valid")
}

fn latency(h: &Histogram<u64>) -> Latency {
    if h.is_empty() {
        return Latency::default();
    }
    Latency {
        p50_us: h.value_at_quantile(0.5),
        p90_us: h.value_at_quantile(0.9),
        p99_us: h.value_at_quantile(0.99),
        p999_us: h.value_at_quantile(0.999),
        max_us: h.max(),
        mean_us: h.mean(),
    }
}

/// The most calls in flight per gateway.
pub const MAX_CONCURRENCY: usize = 4096;

/// The most resends of one request within its timeout.
pub const MAX_RESENDS: u32 = 100;

/// Runs the load; `progress` gets one [`Sample`] a second.
pub fn run(cfg: &LoadConfig, progress: &mut dyn FnMut(&Sample)) -> anyhow::Result<LoadReport> {
    cfg.check()?;
    let mut poll = Poll::new()?;
    let resends = if cfg.tcp { 0 } else { cfg.resends };
    let mut g = Gen {
        cfg,
        dirty: Vec::new(),
        first_tid: first_tid(),
        plan: match &cfg.scenario.calls {
            Calls::Script(s) => Some(Plan::new(s)),
            Calls::Steps(_) => None,
        },
        waits: BinaryHeap::new(),
        inbox: Inbox::new(cfg.io),
        encoding: cfg.wire.clone(),
        socks: Vec::new(),
        links: Vec::new(),
        by_addr: HashMap::new(),
        calls: Vec::new(),
        ready: VecDeque::new(),
        deadlines: VecDeque::new(),
        gateway: Gateway::new(farm::PREFIX, 1),
        scratch: Vec::with_capacity(4096),
        interval: cfg.timeout / (resends + 1),
        report: LoadReport {
            mgs: cfg.mgs,
            rate: cfg.rate,
            concurrency: cfg.calls_per_mg(),
            ..LoadReport::default()
        },
        all: histogram(),
        tick: histogram(),
        tick_sent: 0,
        tick_answered: 0,
        outstanding: 0,
    };
    let mut events = Events::with_capacity(1024);
    let mut buf = vec![0u8; net::MAX_DATAGRAM];
    let mut inbox: Vec<u8> = Vec::new();
    let mut index: Vec<(usize, usize, SocketAddr, usize)> = Vec::new();
    // Registration.
    let mut _farm = None;
    match cfg.role {
        Role::Mg => {
            for i in 0..cfg.mgs {
                let mut sock = if cfg.tcp {
                    Sock::tcp(cfg.target)
                        .with_context(|| format!("connecting to tcp {}", cfg.target))?
                } else {
                    Sock::udp(net::udp(net::loopback_like(cfg.target), false)?, cfg.io)
                };
                let local = match &mut sock {
                    Sock::Udp(d) => {
                        poll.registry()
                            .register(&mut d.sock, Token(i), Interest::READABLE)?;
                        d.sock.local_addr()?
                    }
                    Sock::Tcp(t) => {
                        poll.registry()
                            .register(&mut t.stream, Token(i), Interest::READABLE)?;
                        t.stream.local_addr()?
                    }
                };
                g.socks.push(sock);
                g.add_link(i, cfg.target, farm::mid_of(local));
                if g.plan.as_ref().is_none_or(|p| p.register) {
                    g.send_registration(i as u32, Instant::now());
                } else {
                    g.registered(i as u32);
                }
            }
        }
        Role::Mgc => {
            let mut sock = net::udp(cfg.target, true)
                .with_context(|| format!("listening on udp {}", cfg.target))?;
            poll.registry()
                .register(&mut sock, Token(0), Interest::READABLE)?;
            let local = sock.local_addr()?;
            g.socks.push(Sock::udp(sock, cfg.io));
            if cfg.announce {
                eprintln!("listening on udp {local}");
            }
            if cfg.simulate {
                let farm = Farm::start(FarmConfig {
                    mgs: cfg.mgs,
                    threads: 1,
                    wire: cfg.wire.clone(),
                    version: cfg.version,
                    register_to: vec![local],
                    ..FarmConfig::default()
                })?;
                farm.set_io(cfg.io);
                _farm = Some(farm);
            }
        }
    }
    let reg_end = Instant::now() + cfg.register_window;
    while g.report.registered < cfg.mgs && Instant::now() < reg_end {
        g.io(
            &mut poll,
            &mut events,
            &mut buf,
            &mut inbox,
            &mut index,
            Duration::from_millis(5),
        )?;
        g.expire(Instant::now());
    }
    if g.report.registered == 0 {
        match cfg.role {
            Role::Mg => bail!(
                "no gateway registered with {} within {:?} (is a controller listening?)",
                cfg.target,
                cfg.register_window
            ),
            Role::Mgc => bail!(
                "no gateway registered with us at {} within {:?} (are they started, \
                 pointed at this address?)",
                cfg.target,
                cfg.register_window
            ),
        }
    }
    // Calls.
    let start = Instant::now();
    let cpu0 = (
        crate::cpu::process(),
        cfg.target_pid.and_then(crate::cpu::of_process),
    );
    let stop_at = start + cfg.duration;
    let hard_end = stop_at + cfg.timeout + Duration::from_secs(1);
    let mut next_tick = start + Duration::from_secs(1);
    let mut last = start;
    let mut allowance = 0.0f64;
    // The last turn's start and the wait it chose (for the stall).
    let (mut turn, mut waited) = (start, Duration::ZERO);
    let mut stall = Duration::ZERO;
    g.tick_sent = 0;
    loop {
        let now = Instant::now();
        stall = stall.max((now - turn).saturating_sub(waited));
        turn = now;
        if now < stop_at {
            let budget = match cfg.rate {
                Some(rate) => {
                    let cap = (rate * 0.02).max(64.0);
                    allowance = (allowance + rate * (now - last).as_secs_f64()).min(cap);
                    allowance.floor() as usize
                }
                None => usize::MAX,
            };
            let mut k = 0;
            while k < budget.min(SEND_BATCH) {
                let Some(call) = g.ready.pop_front() else {
                    break;
                };
                g.start_step(call, now);
                k += 1;
            }
            allowance -= k as f64;
        }
        last = now;
        let wait = if now >= stop_at {
            Duration::from_millis(5)
        } else if g.ready.is_empty() {
            Duration::from_millis(2)
        } else if let Some(rate) = cfg.rate {
            Duration::from_secs_f64(((1.0 - allowance) / rate).clamp(0.0, 0.002))
        } else {
            Duration::ZERO
        };
        // What the poll will wait: it rounds up to whole milliseconds.
        waited = Duration::from_millis(wait.as_nanos().div_ceil(1_000_000) as u64);
        g.io(
            &mut poll,
            &mut events,
            &mut buf,
            &mut inbox,
            &mut index,
            wait,
        )?;
        let now = Instant::now();
        g.expire(now);
        if now >= next_tick {
            next_tick += Duration::from_secs(1);
            let s = g.sample((now - start).as_secs_f64());
            g.report.series.push(s);
            progress(&s);
        }
        if now >= stop_at && (g.outstanding == 0 || now >= hard_end) {
            break;
        }
    }
    let per = |d: Option<Duration>| {
        d.filter(|_| g.report.answered > 0)
            .map(|d| d.as_secs_f64() * 1e6 / g.report.answered as f64)
    };
    g.report.cpu_per_transaction_us = per(crate::cpu::since(cpu0.0, crate::cpu::process()));
    g.report.target_cpu_per_transaction_us = per(crate::cpu::since(
        cpu0.1,
        cfg.target_pid.and_then(crate::cpu::of_process),
    ));
    // Whatever is still out timed out.
    for l in &mut g.links {
        for (_, o) in l.out.drain() {
            if o.call != REGISTRATION {
                g.report.timed_out += 1;
            }
        }
    }
    let seconds = cfg.duration.as_secs_f64();
    let last_t = g.report.series.last().map_or(0.0, |s| s.t);
    if last_t < (Instant::now() - start).as_secs_f64() - 0.05 {
        let s = g.sample((Instant::now() - start).as_secs_f64());
        g.report.series.push(s);
    }
    // The last turn too.
    stall = stall.max((Instant::now() - turn).saturating_sub(waited));
    g.report.generator_stall_ms = stall.as_secs_f64() * 1e3;
    g.report.seconds = seconds;
    g.report.throughput = g.report.answered as f64 / seconds.max(1e-9);
    g.report.latency = latency(&g.all);
    Ok(g.report)
}

impl Gen<'_> {
    fn add_link(&mut self, sock: usize, peer: SocketAddr, mid: Mid) -> u32 {
        let idx = self.links.len() as u32;
        let mut per_slot = None;
        let templates = match (&self.cfg.scenario.calls, &self.plan) {
            (Calls::Steps(steps), _) if steps.contains(&Step::Add) => {
                per_slot = Some(steps.len() + 1);
                (0..self.cfg.calls_per_mg())
                    .flat_map(|slot| self.step_templates(steps, idx, slot, &mid))
                    .collect()
            }
            (Calls::Steps(steps), _) => self.step_templates(steps, idx, 0, &mid),
            (Calls::Script(_), Some(plan)) => (0..plan.len())
                .map(|pos| {
                    let actions = plan.fixed(pos)?.to_vec();
                    let (mid, version) = (mid.clone(), self.cfg.version);
                    Some(Template::new(
                        self.encoding.clone(),
                        false,
                        Box::new(move |tid, _| {
                            msg::request(mid.clone(), version, tid, actions.clone())
                        }),
                    ))
                })
                .collect(),
            (Calls::Script(_), None) => unreachable!("a script has its plan"),
        };
        self.links.push(Link {
            sock,
            peer,
            mid,
            templates,
            per_slot,
            next_tid: self.first_tid,
            out: HashMap::new(),
            given_up: HashSet::new(),
            registered: false,
        });
        self.by_addr.insert(peer, idx);
        idx
    }

    /// The templates of the built-in steps for call `slot` of link `idx`.
    /// Each slot of a gateway works on its own termination (numbered
    /// within the gateway's 16 bits of names); when the steps Add it, a
    /// last template takes it out of whatever context holds it (see
    /// [`Gen::restart`]).
    fn step_templates(
        &self,
        steps: &[Step],
        idx: u32,
        slot: usize,
        mid: &Mid,
    ) -> Vec<Option<Template>> {
        let has_add = steps.contains(&Step::Add);
        let j = (idx as usize * self.cfg.calls_per_mg() + slot) & 0xFFFF;
        let term = msg::termination(farm::PREFIX, j);
        // `None`: the clean-up.
        let cleanup = has_add.then_some(None);
        steps
            .iter()
            .copied()
            .map(Some)
            .chain(cleanup)
            .map(|step| {
                let (mid, term, version) = (mid.clone(), term.clone(), self.cfg.version);
                let with_ctx = step.is_some_and(Step::on_context) && has_add;
                Some(Template::new(
                    self.encoding.clone(),
                    with_ctx,
                    Box::new(move |tid, ctx| {
                        let ctx = if with_ctx {
                            ContextId(ctx)
                        } else {
                            ContextId::NULL
                        };
                        let action = match step {
                            Some(Step::Add) => msg::add(term.clone()),
                            Some(Step::Modify) => msg::modify(ctx, term.clone()),
                            Some(Step::Notify) => build::notify(ctx, term.clone(), 1, "al/of"),
                            Some(Step::Subtract) => msg::subtract(ctx, term.clone()),
                            Some(Step::Audit) => msg::audit_root(),
                            None => msg::subtract(ContextId::ALL, term.clone()),
                        };
                        msg::request(mid.clone(), version, tid, vec![action])
                    }),
                ))
            })
            .collect()
    }

    fn send_registration(&mut self, link: u32, now: Instant) {
        let l = &mut self.links[link as usize];
        let tid = l.next_tid;
        l.next_tid += 1;
        let reason = self.plan.as_ref().map_or("901 mg col boot", |p| &p.reason);
        let sc = build::service_change(TerminationId::root(), ServiceChangeMethod::Restart, reason);
        let m = msg::request(l.mid.clone(), self.cfg.version, tid, vec![sc]);
        if let Ok(bytes) = self.encoding.encode(&m) {
            send(&mut self.socks, &mut self.dirty, l.sock, &bytes, l.peer);
        }
        let deadline = now + self.interval;
        l.out.insert(
            tid,
            Out {
                call: REGISTRATION,
                ctx: 0,
                first: now,
                deadline,
                resends_left: 0,
                bytes: None,
            },
        );
        self.deadlines.push_back((deadline, link, tid));
    }

    /// The link is registered: its calls begin.
    fn registered(&mut self, link: u32) {
        if self.links[link as usize].registered {
            return;
        }
        self.links[link as usize].registered = true;
        self.report.registered += 1;
        for slot in 0..self.cfg.calls_per_mg() as u32 {
            let script = self.plan.as_ref().map(|p| Box::new(p.script()));
            self.calls.push(Call {
                link,
                slot,
                step: 0,
                ctx: 0,
                script,
            });
            self.ready.push_back(self.calls.len() as u32 - 1);
        }
    }

    fn start_step(&mut self, call: u32, now: Instant) {
        // A script's step: a request from its template, or filled in for
        // this call, or a wait.
        let mut bytes = None;
        let mut step = self.calls[call as usize].step;
        if let (Some(plan), Some(script)) = (&self.plan, &mut self.calls[call as usize].script) {
            match plan.now(script) {
                Now::Fixed(pos) => step = pos as u8,
                Now::Send(actions) => {
                    let l = &self.links[self.calls[call as usize].link as usize];
                    let m = msg::request(l.mid.clone(), self.cfg.version, l.next_tid, actions);
                    match self.encoding.encode(&m) {
                        Ok(b) => bytes = Some(b.into_boxed_slice()),
                        Err(e) => return self.fail_call(call, &format!("encoding: {e}")),
                    }
                }
                Now::Wait(d) => return self.waits.push(Reverse((now + d, call))),
                Now::Done => {
                    // A script of waits alone after its last request.
                    self.report.calls += 1;
                    return self.restart(call);
                }
                Now::Failed(why) => return self.fail_call(call, &why),
            }
        }
        let c = &self.calls[call as usize];
        let (link, ctx) = (c.link, c.ctx);
        let l = &mut self.links[link as usize];
        let step = template_index(l.per_slot, c.slot, step as usize);
        let tid = l.next_tid;
        l.next_tid = if tid >= 0x7FFF_FFFF { 1 } else { tid + 1 };
        let deadline = now + self.interval;
        let template = l.templates[step].as_mut();
        if fill(&mut self.scratch, bytes.as_deref(), template, tid, ctx) {
            send(
                &mut self.socks,
                &mut self.dirty,
                l.sock,
                &self.scratch,
                l.peer,
            );
        }
        l.out.insert(
            tid,
            Out {
                call,
                ctx,
                first: now,
                deadline,
                resends_left: if self.cfg.tcp { 0 } else { self.cfg.resends },
                bytes,
            },
        );
        self.deadlines.push_back((deadline, link, tid));
        self.report.sent += 1;
        self.tick_sent += 1;
        self.outstanding += 1;
    }

    /// A call that cannot go on: counted with its reason, started over.
    fn fail_call(&mut self, call: u32, why: &str) {
        self.note_failure(why);
        self.restart(call);
    }

    /// Keeps count of why transactions failed (the first few reasons).
    fn note_failure(&mut self, why: &str) {
        if let Some(f) = self.report.failures.iter_mut().find(|(w, _)| w == why) {
            f.1 += 1;
        } else if self.report.failures.len() < 8 {
            self.report.failures.push((why.to_string(), 1));
        }
    }

    /// Resends or gives up what is due.
    fn expire(&mut self, now: Instant) {
        while let Some(&(at, link, tid)) = self.deadlines.front() {
            if at > now {
                break;
            }
            self.deadlines.pop_front();
            let l = &mut self.links[link as usize];
            let Some(o) = l.out.get_mut(&tid) else {
                continue;
            };
            if o.deadline != at {
                continue;
            }
            if o.resends_left > 0 {
                o.resends_left -= 1;
                o.deadline = now + self.interval;
                self.deadlines.push_back((o.deadline, link, tid));
                let (call, ctx) = (o.call, o.ctx);
                let step = match (&self.plan, &self.calls[call as usize].script) {
                    (Some(_), Some(script)) => script.passed() as usize,
                    _ => self.calls[call as usize].step as usize,
                };
                let step = template_index(l.per_slot, self.calls[call as usize].slot, step);
                let template = l.templates[step].as_mut();
                if fill(&mut self.scratch, o.bytes.as_deref(), template, tid, ctx) {
                    send(
                        &mut self.socks,
                        &mut self.dirty,
                        l.sock,
                        &self.scratch,
                        l.peer,
                    );
                }
                self.report.resent += 1;
                continue;
            }
            let o = l.out.remove(&tid).expect("present");
            if l.given_up.len() >= GIVEN_UP {
                l.given_up.clear();
            }
            l.given_up.insert(tid);
            if o.call == REGISTRATION {
                // Registrations are retried until the window closes.
                self.send_registration(link, now);
                continue;
            }
            self.outstanding -= 1;
            // A script step that expects no reply has passed.
            if let Some(script) = &mut self.calls[o.call as usize].script {
                if script.no_reply("timed out").is_ok() {
                    self.report.answered += 1;
                    self.tick_answered += 1;
                    self.next_in_script(o.call);
                    continue;
                }
            }
            self.report.timed_out += 1;
            self.restart(o.call);
        }
        while let Some(&Reverse((at, call))) = self.waits.peek() {
            if at > now {
                break;
            }
            self.waits.pop();
            self.ready.push_back(call);
        }
    }

    /// A call starts over from its first step (its script anew), after
    /// it failed. When its steps Add a termination, a step that failed or
    /// timed out may have left it in a context (the controller may have
    /// run a request whose reply was lost): the call first takes it out
    /// of any context, lest every Add of it from then on fail with error
    /// 433 ("already in a context").
    fn restart(&mut self, call: u32) {
        let c = &mut self.calls[call as usize];
        c.step = match self.cfg.scenario.steps() {
            Some(steps) if steps.contains(&Step::Add) => steps.len() as u8,
            _ => 0,
        };
        if let (Some(plan), Some(script)) = (&self.plan, &mut c.script) {
            **script = plan.script();
        }
        self.ready.push_back(call);
    }

    /// A script's step passed: the call goes on, or is complete.
    fn next_in_script(&mut self, call: u32) {
        let done = match (&self.plan, &self.calls[call as usize].script) {
            (Some(plan), Some(script)) => plan.finished(script),
            _ => false,
        };
        if done {
            self.report.calls += 1;
            self.restart(call);
        } else {
            self.ready.push_back(call);
        }
    }

    /// Waits up to `wait` for input and handles all of it.
    #[allow(clippy::too_many_arguments)]
    fn io(
        &mut self,
        poll: &mut Poll,
        events: &mut Events,
        buf: &mut [u8],
        inbox: &mut Vec<u8>,
        index: &mut Vec<(usize, usize, SocketAddr, usize)>,
        wait: Duration,
    ) -> anyhow::Result<()> {
        self.flush();
        poll.poll(events, Some(wait))?;
        inbox.clear();
        index.clear();
        for ev in events.iter() {
            let s = ev.token().0;
            let peer = self.cfg.target;
            self.socks[s].receive(&mut self.inbox, buf, peer, |bytes, from| {
                let start = inbox.len();
                inbox.extend_from_slice(bytes);
                index.push((start, inbox.len(), from, s));
            })?;
        }
        let now = Instant::now();
        for &(a, b, from, s) in index.iter() {
            self.message(&inbox[a..b], from, s, now);
        }
        Ok(())
    }

    /// Sends what the sockets have queued; TCP bytes the socket did not
    /// take wait for the next flush.
    fn flush(&mut self) {
        let dirty = std::mem::take(&mut self.dirty);
        for s in dirty {
            let _ = self.socks[s].flush();
            if self.socks[s].backlog() {
                self.dirty.push(s);
            }
        }
    }

    fn message(&mut self, bytes: &[u8], from: SocketAddr, sock: usize, now: Instant) {
        let Ok(m) = self.encoding.decode(bytes) else {
            self.report.errors.malformed += 1;
            return;
        };
        let link = match self.cfg.role {
            Role::Mg if from == self.links[sock].peer => Some(sock as u32),
            Role::Mg => None,
            Role::Mgc => self.by_addr.get(&from).copied(),
        };
        let ts = match m.mess.body {
            MessageBody::Error(_) => {
                self.report.errors.message_errors += 1;
                return;
            }
            MessageBody::Transactions(ts) => ts,
        };
        for t in ts {
            match (t, link) {
                (Transaction::Reply(r), Some(link)) => self.reply(link, r, now),
                (Transaction::Pending(p), Some(link)) => {
                    let l = &mut self.links[link as usize];
                    if let Some(o) = l.out.get_mut(&p.transaction_id) {
                        self.report.pendings += 1;
                        o.resends_left = 0;
                        o.deadline = now + self.cfg.timeout * 5;
                        self.deadlines
                            .push_back((o.deadline, link, p.transaction_id));
                    }
                }
                (Transaction::Request(r), link) => self.request(r, link, from, sock, &m.mess.mid),
                (Transaction::Reply(_) | Transaction::Pending(_), None) => {
                    self.report.errors.unexpected += 1
                }
                _ => {}
            }
        }
    }

    /// A request to us: a gateway registering (controller role), or a
    /// controller asking something of a gateway.
    fn request(
        &mut self,
        r: TransactionRequest,
        link: Option<u32>,
        from: SocketAddr,
        sock: usize,
        mid: &Mid,
    ) {
        let is_sc = r.actions.iter().any(|a| {
            a.command_requests
                .iter()
                .any(|c| matches!(c.command, Command::ServiceChange(_)))
        });
        let link = match link {
            Some(l) => l,
            None if self.cfg.role == Role::Mgc && is_sc && self.links.len() < self.cfg.mgs => {
                let local = match &self.socks[0] {
                    Sock::Udp(d) => d.sock.local_addr().ok(),
                    Sock::Tcp(_) => None,
                };
                let me = farm::mid_of(local.unwrap_or(self.cfg.target));
                let l = self.add_link(0, from, me);
                let _ = mid;
                self.registered(l);
                l
            }
            None => {
                self.report.errors.unexpected += 1;
                return;
            }
        };
        let l = &self.links[link as usize];
        let result = self.gateway.answer(&r.actions);
        let m = msg::reply(l.mid.clone(), self.cfg.version, r.transaction_id, result);
        if let Ok(bytes) = self.encoding.encode(&m) {
            send(&mut self.socks, &mut self.dirty, sock, &bytes, from);
        }
    }

    fn reply(&mut self, link: u32, r: TransactionReply, now: Instant) {
        let l = &mut self.links[link as usize];
        let tid = r.transaction_id;
        let Some(o) = l.out.remove(&tid) else {
            if l.given_up.contains(&tid) {
                self.report.errors.late += 1;
            } else if (self.first_tid..l.next_tid).contains(&tid) {
                // Sent on this link, and answered already.
                self.report.errors.duplicate += 1;
            } else {
                self.report.errors.unexpected += 1;
            }
            return;
        };
        if o.call == REGISTRATION {
            if msg::check_reply(msg::Expect::ServiceChange, &r.result).is_ok() {
                self.registered(link);
            }
            return;
        }
        self.outstanding -= 1;
        let us = (now - o.first).as_micros().max(1) as u64;
        if let Some(script) = &mut self.calls[o.call as usize].script {
            match script.replied(&r.result) {
                Ok(()) => {
                    self.report.answered += 1;
                    self.tick_answered += 1;
                    let _ = self.all.record(us);
                    let _ = self.tick.record(us);
                    self.next_in_script(o.call);
                }
                Err(f) => {
                    self.report.failed += 1;
                    if reply_errors(&r.result).is_empty() {
                        self.report.errors.mismatched += 1;
                    } else {
                        self.report.errors.error_replies += 1;
                    }
                    self.fail_call(o.call, &f.to_string());
                }
            }
            return;
        }
        let c = &mut self.calls[o.call as usize];
        let steps = self.cfg.scenario.steps().unwrap_or_default();
        if usize::from(c.step) == steps.len() {
            // The clean-up: its termination is in no context now, whether
            // it was in one (a reply) or not (error 430 or 411).
            self.report.answered += 1;
            self.report.cleanups += 1;
            self.tick_answered += 1;
            let _ = self.all.record(us);
            let _ = self.tick.record(us);
            c.step = 0;
            self.ready.push_back(o.call);
            return;
        }
        let step = steps[c.step as usize];
        match msg::check_reply(step.expect(), &r.result) {
            Ok(a) => {
                self.report.answered += 1;
                self.tick_answered += 1;
                let _ = self.all.record(us);
                let _ = self.tick.record(us);
                if step == Step::Add {
                    c.ctx = a.context.unwrap_or(0);
                }
                c.step += 1;
                if usize::from(c.step) == steps.len() {
                    c.step = 0;
                    self.report.calls += 1;
                }
                self.ready.push_back(o.call);
            }
            Err(why) => {
                self.report.failed += 1;
                if why == "error reply" {
                    self.report.errors.error_replies += 1;
                    self.note_failure(&error_reason(&r.result));
                } else {
                    self.report.errors.mismatched += 1;
                    self.note_failure(why);
                }
                self.restart(o.call);
            }
        }
    }

    fn sample(&mut self, t: f64) -> Sample {
        let s = Sample {
            t,
            sent: self.tick_sent,
            answered: self.tick_answered,
            outstanding: self.outstanding,
            // A failed request's reply is counted once, as failed.
            errors: self.report.failed + self.report.timed_out + self.report.errors.stray(),
            latency: latency(&self.tick),
        };
        self.tick.reset();
        self.tick_sent = 0;
        self.tick_answered = 0;
        s
    }
}
