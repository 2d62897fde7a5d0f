//! Simulated gateways: many MGs, each its own address and mid, served by a
//! few threads. Each gateway has its own UDP socket ([`Sockets::Own`]), or
//! (Linux, IPv4) its own loopback address behind one socket per thread
//! ([`Sockets::Shared`], see [`crate::shared`]). Each registers with a
//! controller (a ServiceChange, resent until answered) and answers every
//! request it gets with a well-formed reply ([`crate::msg::Gateway`]). Some can be told to
//! misbehave ([`Fault`]), to check that controllers count bad replies.
//!
//! A request seen before (the same bytes but for the transaction id, with
//! an answer that does not change: no new context) is answered from a
//! template of its reply, so that the gateways' cost stays small beside
//! the controller's being measured.
//!
//! ```no_run
//! use megaco_load::farm::{Farm, FarmConfig};
//!
//! let mgc = "127.0.0.1:2944".parse().unwrap();
//! let farm = Farm::start(FarmConfig { mgs: 100, register_to: vec![mgc], ..FarmConfig::default() })?;
//! farm.wait_registered(std::time::Duration::from_secs(5));
//! println!("{} of 100 registered", farm.registered());
//! farm.stop();
//! # Ok::<(), std::io::Error>(())
//! ```

use megaco::codec::Encoding;
use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use megaco::model::*;
use megaco::MegacoMessage;
use megaco_stack::build;
use mio::{Events, Interest, Poll, Token};

use crate::batch::{Inbox, Io, Outbox, BATCH};
use crate::msg::{self, Gateway};
use crate::net;
use crate::scan::{scan_span, Head};
use crate::template::Template;

/// How a simulated gateway misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Answers with bytes that decode as nothing.
    Garbage,
    /// Sends each reply twice.
    Duplicate,
    /// Answers under a transaction id no one asked about.
    WrongId,
    /// Never answers (after registering).
    Silent,
    /// Answers with an error descriptor (500).
    ErrorReply,
}

/// What the farm simulates.
#[derive(Debug, Clone)]
pub struct FarmConfig {
    /// How many gateways.
    pub mgs: usize,
    /// How many threads serve them.
    pub threads: usize,
    /// The wire encoding.
    pub wire: Encoding,
    /// The protocol version of the registration.
    pub version: u8,
    /// Gateway `i` registers with `register_to[i % len]` (none: no
    /// registration).
    pub register_to: Vec<SocketAddr>,
    /// Terminations each gateway holds (for wildcards), at start.
    pub terminations: usize,
    /// Gateways that misbehave, by index.
    pub faults: Vec<(usize, Fault)>,
    /// How the gateways' addresses map to sockets.
    pub sockets: Sockets,
}

/// How simulated gateways' addresses map to sockets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sockets {
    /// Each gateway its own socket on `127.0.0.1` (or `::1`) and an
    /// ephemeral port: one system call and poll event per gateway.
    #[default]
    Own,
    /// Each gateway its own address (`127.1.x.y`), all of a thread's
    /// gateways behind one socket read and answered a batch at a time
    /// (Linux, with a controller on an IPv4 loopback address, up to
    /// [`MAX_SHARED`] gateways; otherwise as [`Sockets::Own`]).
    Shared,
}

/// The most gateways [`Sockets::Shared`] numbers: 250 addresses in each
/// of 250 subnets of `127.1.0.0/16`, none ending in `.0` or `.255`.
pub const MAX_SHARED: usize = 250 * 250;

impl Sockets {
    /// The layout a farm of `mgs` gateways registering over `family` gets
    /// when it asks for this one.
    pub fn effective(self, family: SocketAddr, mgs: usize) -> Sockets {
        // A datagram from 127.1.x.y can only go to a loopback address.
        if self == Sockets::Shared
            && cfg!(target_os = "linux")
            && family.is_ipv4()
            && family.ip().is_loopback()
            && mgs <= MAX_SHARED
        {
            Sockets::Shared
        } else {
            Sockets::Own
        }
    }
}

impl Default for FarmConfig {
    fn default() -> Self {
        FarmConfig {
            mgs: 1,
            threads: 1,
            wire: Encoding::pretty(),
            version: 1,
            register_to: vec![],
            terminations: 1,
            faults: vec![],
            sockets: Sockets::Own,
        }
    }
}

/// Counters of a farm.
#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
    registered: AtomicUsize,
    answered: AtomicU64,
    /// Whether the gateways' sockets use one system call per datagram.
    per_datagram: AtomicBool,
    malformed: AtomicU64,
    terminations: AtomicUsize,
}

impl Shared {
    fn io(&self) -> Io {
        if self.per_datagram.load(Ordering::Relaxed) {
            Io::PerDatagram
        } else {
            Io::Batched
        }
    }
}

/// Running simulated gateways; stopped (and joined) by [`Farm::stop`] or
/// on drop.
#[derive(Debug)]
pub struct Farm {
    addrs: Vec<SocketAddr>,
    sockets: Sockets,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

/// The prefix of every simulated gateway's terminations.
pub const PREFIX: &str = "00000001";

/// A gateway's mid: its own address, as `[127.0.0.1]:PORT`.
pub fn mid_of(addr: SocketAddr) -> Mid {
    match addr {
        SocketAddr::V4(a) => Mid::Ip4(Ip4Address {
            address: a.ip().octets(),
            port: Some(a.port()),
        }),
        SocketAddr::V6(a) => Mid::Ip6(Ip6Address {
            address: a.ip().octets(),
            port: Some(a.port()),
        }),
    }
}

impl Farm {
    /// Binds the gateways' sockets (loopback, ephemeral ports) and starts
    /// the threads; registrations go out at once.
    pub fn start(config: FarmConfig) -> io::Result<Farm> {
        let family = config
            .register_to
            .first()
            .copied()
            .unwrap_or(SocketAddr::from(([127, 0, 0, 1], 0)));
        let threads = config.threads.clamp(1, config.mgs.max(1));
        let sockets = config.sockets.effective(family, config.mgs);
        let mut groups: Vec<Group> = (0..threads).map(|_| Group::default()).collect();
        if sockets == Sockets::Shared {
            for g in &mut groups {
                g.shared = Some(shared_socket()?);
            }
        }
        let mut addrs = Vec::with_capacity(config.mgs);
        for i in 0..config.mgs {
            let g = &mut groups[i % threads];
            let (addr, own) = match &g.shared {
                Some(sock) => (shared_address(i, sock)?, None),
                None => {
                    let s = net::udp(net::loopback_like(family), false)?;
                    (s.local_addr()?, Some(s))
                }
            };
            addrs.push(addr);
            g.mgs.push((i, addr, own));
        }
        let shared = Arc::new(Shared {
            terminations: AtomicUsize::new(config.terminations),
            ..Shared::default()
        });
        let faults: HashMap<usize, Fault> = config.faults.iter().copied().collect();
        let mut handles = Vec::new();
        for group in groups {
            let shared = shared.clone();
            let config = config.clone();
            let faults = faults.clone();
            handles.push(std::thread::spawn(move || {
                if let Err(e) = serve(group, &config, &faults, &shared) {
                    eprintln!("megaco-load: simulated gateways stopped: {e}");
                }
            }));
        }
        Ok(Farm {
            addrs,
            sockets,
            shared,
            threads: handles,
        })
    }

    /// The gateways' addresses, by index.
    pub fn addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// How the gateways' addresses map to sockets (what was asked for,
    /// where this platform has it).
    pub fn sockets(&self) -> Sockets {
        self.sockets
    }

    /// How many registrations were answered.
    pub fn registered(&self) -> usize {
        self.shared.registered.load(Ordering::Relaxed)
    }

    /// Waits until every gateway is registered or `limit` passed; whether
    /// all are.
    pub fn wait_registered(&self, limit: Duration) -> bool {
        let end = Instant::now() + limit;
        while self.registered() < self.addrs.len() {
            if Instant::now() >= end {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        true
    }

    /// Requests answered so far.
    pub fn answered(&self) -> u64 {
        self.shared.answered.load(Ordering::Relaxed)
    }

    /// Messages that did not decode.
    pub fn malformed(&self) -> u64 {
        self.shared.malformed.load(Ordering::Relaxed)
    }

    /// Sets how the gateways' sockets send and receive from now on
    /// ([`Io::Batched`] at start).
    pub fn set_io(&self, io: Io) {
        self.shared
            .per_datagram
            .store(io == Io::PerDatagram, Ordering::Relaxed);
    }

    /// Sets how many terminations each gateway holds from now on.
    pub fn set_terminations(&self, n: usize) {
        self.shared.terminations.store(n, Ordering::Relaxed);
    }

    /// Stops the threads and waits for them.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        for h in self.threads.drain(..) {
            let _ = h.join();
        }
    }
}

impl Drop for Farm {
    fn drop(&mut self) {
        self.halt();
    }
}

/// The gateways one thread serves: each with its index, its address and
/// its own socket, or none when `shared` answers for all of them.
#[derive(Default)]
struct Group {
    mgs: Vec<(usize, SocketAddr, Option<mio::net::UdpSocket>)>,
    shared: Option<mio::net::UdpSocket>,
}

#[cfg(target_os = "linux")]
fn shared_socket() -> io::Result<mio::net::UdpSocket> {
    crate::shared::bind(true)
}

#[cfg(target_os = "linux")]
fn shared_address(i: usize, sock: &mio::net::UdpSocket) -> io::Result<SocketAddr> {
    Ok(SocketAddr::from((
        crate::shared::address(i),
        sock.local_addr()?.port(),
    )))
}

#[cfg(not(target_os = "linux"))]
fn shared_socket() -> io::Result<mio::net::UdpSocket> {
    unreachable!("Sockets::effective gives Own off Linux")
}

#[cfg(not(target_os = "linux"))]
fn shared_address(_: usize, _: &mio::net::UdpSocket) -> io::Result<SocketAddr> {
    unreachable!("Sockets::effective gives Own off Linux")
}

/// Sends one datagram from `mg`: from its own socket, or from the
/// thread's shared one with its address as the source.
fn send(
    mg: &Mg,
    shared: Option<&mio::net::UdpSocket>,
    bytes: &[u8],
    to: SocketAddr,
) -> io::Result<()> {
    match (&mg.sock, shared) {
        (Some(own), _) => net::send_to(own, bytes, to),
        #[cfg(target_os = "linux")]
        (None, Some(sock)) => match mg.addr {
            SocketAddr::V4(a) => crate::shared::send_from(sock, bytes, to, *a.ip()),
            SocketAddr::V6(_) => Err(io::ErrorKind::Unsupported.into()),
        },
        _ => Err(io::ErrorKind::NotConnected.into()),
    }
}

struct Mg {
    index: usize,
    /// Its own socket; none when the thread's shared socket answers for it.
    sock: Option<mio::net::UdpSocket>,
    addr: SocketAddr,
    mid: Mid,
    gateway: Gateway,
    registered: bool,
    fault: Option<Fault>,
    /// Reply templates of requests answered before, by the request's
    /// bytes before and after its transaction id (a few shapes a run).
    templates: Vec<(Vec<u8>, Vec<u8>, Template)>,
}

/// Request shapes a gateway keeps reply templates for; others are
/// answered in full each time.
const TEMPLATES_PER_MG: usize = 8;

/// Registration requests carry this transaction id.
const REGISTER_TID: u32 = 1;

fn serve(
    group: Group,
    config: &FarmConfig,
    faults: &HashMap<usize, Fault>,
    shared: &Shared,
) -> io::Result<()> {
    let encoding = config.wire.clone();
    let mut poll = Poll::new()?;
    let mut mgs = Vec::with_capacity(group.mgs.len());
    // A gateway by the address a datagram was sent to (shared socket).
    let mut by_address: HashMap<std::net::IpAddr, usize> = HashMap::new();
    for (k, (index, addr, mut sock)) in group.mgs.into_iter().enumerate() {
        if let Some(sock) = &mut sock {
            poll.registry()
                .register(sock, Token(k), Interest::READABLE)?;
        }
        if sock.is_none() {
            by_address.insert(addr.ip(), k);
        }
        mgs.push(Mg {
            index,
            sock,
            addr,
            mid: mid_of(addr),
            gateway: Gateway::new(PREFIX, config.terminations),
            registered: config.register_to.is_empty(),
            fault: faults.get(&index).copied(),
            templates: Vec::new(),
        });
    }
    let mut common = group.shared;
    if let Some(sock) = &mut common {
        poll.registry()
            .register(sock, Token(usize::MAX), Interest::READABLE)?;
    }
    let common = common.as_ref();
    let register = |mg: &Mg| -> io::Result<()> {
        let Some(to) = (!config.register_to.is_empty())
            .then(|| config.register_to[mg.index % config.register_to.len()])
        else {
            return Ok(());
        };
        let sc = build::service_change(
            TerminationId::root(),
            ServiceChangeMethod::Restart,
            "901 mg col boot",
        );
        let bytes = encoding
            .encode(&msg::request(
                mg.mid.clone(),
                config.version,
                REGISTER_TID,
                vec![sc],
            ))
            .map_err(io::Error::other)?;
        // A refused registration (no controller yet) is retried.
        let _ = send(mg, common, &bytes, to);
        Ok(())
    };
    for mg in &mgs {
        register(mg)?;
    }
    let mut next_resend = Instant::now() + Duration::from_millis(500);
    let mut events = Events::with_capacity(1024);
    let mut io = shared.io();
    let mut inbox = Inbox::new(io);
    #[cfg(target_os = "linux")]
    let mut common_inbox = common.map(|_| crate::shared::Inbox::new());
    // The source address of each datagram in `outbox` (shared socket).
    #[cfg(target_os = "linux")]
    let mut sources: Vec<std::net::Ipv4Addr> = Vec::new();
    let mut outbox = Outbox::new(io);
    let mut cache_terminations = usize::MAX;
    while !shared.stop.load(Ordering::Relaxed) {
        poll.poll(&mut events, Some(Duration::from_millis(20)))?;
        if shared.io() != io {
            io = shared.io();
            inbox = Inbox::new(io);
            outbox = Outbox::new(io);
        }
        let terminations = shared.terminations.load(Ordering::Relaxed);
        if terminations != cache_terminations {
            mgs.iter_mut().for_each(|m| {
                m.templates.clear();
                m.gateway.set_terminations(terminations);
            });
            cache_terminations = terminations;
        }
        for ev in &events {
            #[cfg(target_os = "linux")]
            if let (Some(sock), Some(inbox)) = (common, common_inbox.as_mut()) {
                // Everything the shared socket holds, each reply sent
                // from the address its request went to.
                let max = if io.batches() { BATCH } else { 1 };
                loop {
                    inbox.recv(sock, max)?;
                    for i in 0..inbox.len() {
                        let (bytes, from, to) = inbox.get(i);
                        let Some(&k) = by_address.get(&to.into()) else {
                            continue;
                        };
                        take(&mut mgs[k], bytes, from, config, shared, &mut outbox);
                        // The replies leave from the address they answer for.
                        sources.resize(outbox.len(), to);
                    }
                    flush_from(sock, &mut outbox, &mut sources, io);
                    // A flood must not keep the farm from stopping.
                    if inbox.drained() || shared.stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                continue;
            }
            let Some(mg) = mgs.get_mut(ev.token().0) else {
                continue;
            };
            let Some(sock) = mg.sock.take() else {
                continue;
            };
            // Everything the socket holds, answered with one flush.
            loop {
                inbox.recv(&sock)?;
                for (bytes, from) in inbox.iter() {
                    take(mg, bytes, from, config, shared, &mut outbox);
                }
                if outbox.len() >= BATCH {
                    outbox.flush(&sock)?;
                }
                if inbox.drained() || shared.stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            outbox.flush(&sock)?;
            mg.sock = Some(sock);
        }
        if Instant::now() >= next_resend {
            next_resend = Instant::now() + Duration::from_millis(500);
            for mg in mgs.iter().filter(|m| !m.registered) {
                register(mg)?;
            }
        }
    }
    Ok(())
}

/// Sends what `out` holds from the shared socket, datagram `i` from
/// `sources[i]`: a batch at a time, or one by one when the run asks for a
/// system call per datagram. Send errors drop the datagrams, as the
/// network would.
#[cfg(target_os = "linux")]
fn flush_from(
    sock: &mio::net::UdpSocket,
    out: &mut Outbox,
    sources: &mut Vec<std::net::Ipv4Addr>,
    io: crate::batch::Io,
) {
    if io.batches() {
        let batch: Vec<_> = (0..out.len())
            .map(|i| {
                let (bytes, to) = out.get(i);
                (bytes, to, sources[i])
            })
            .collect();
        let _ = crate::shared::send_batch_from(sock, &batch);
    } else {
        for (i, &from) in sources.iter().enumerate() {
            let (bytes, to) = out.get(i);
            let _ = crate::shared::send_from(sock, bytes, to, from);
        }
    }
    out.clear();
    sources.clear();
}

/// One datagram `bytes` from `from` to gateway `mg`: its answers go to
/// `out`. A request seen before is answered from its reply's template.
fn take(
    mg: &mut Mg,
    bytes: &[u8],
    from: SocketAddr,
    config: &FarmConfig,
    shared: &Shared,
    out: &mut Outbox,
) {
    let encoding = &config.wire;
    let seen = match scan_span(encoding, bytes) {
        Some((Head::Request(tid), span)) if mg.fault.is_none() => Some((tid, span)),
        _ => None,
    };
    if let Some((tid, span)) = &seen {
        let (head, tail) = (&bytes[..span.start], &bytes[span.end..]);
        let cached = mg
            .templates
            .iter_mut()
            .find(|(h, t, _)| h == head && t == tail);
        if let Some((_, _, reply)) = cached {
            let before = out.len();
            out.push(from, |buf| {
                let start = buf.len();
                if reply.write(*tid, 0, buf).is_err() {
                    buf.truncate(start);
                }
            });
            if out.len() > before {
                shared.answered.fetch_add(1, Ordering::Relaxed);
                return;
            }
        }
    }
    let Ok(msg) = encoding.decode(bytes) else {
        shared.malformed.fetch_add(1, Ordering::Relaxed);
        return;
    };
    if let Some((_, span)) = seen {
        if mg.templates.len() < TEMPLATES_PER_MG {
            if let Some(t) = cacheable(mg, &msg, encoding) {
                let (head, tail) = (&bytes[..span.start], &bytes[span.end..]);
                mg.templates.push((head.to_vec(), tail.to_vec(), t));
            }
        }
    }
    answer(mg, msg, from, config, shared, out);
}

fn answer(
    mg: &mut Mg,
    msg: MegacoMessage,
    from: SocketAddr,
    config: &FarmConfig,
    shared: &Shared,
    out: &mut Outbox,
) {
    let encoding = &config.wire.clone();
    let version = msg.mess.version;
    let MessageBody::Transactions(ts) = msg.mess.body else {
        return;
    };
    for t in ts {
        match t {
            Transaction::Request(r) => {
                let n = shared.terminations.load(Ordering::Relaxed);
                mg.gateway.set_terminations(n);
                let mut result = mg.gateway.answer(&r.actions);
                let mut tid = r.transaction_id;
                match mg.fault {
                    Some(Fault::Silent) => continue,
                    Some(Fault::Garbage) => {
                        out.push(from, |buf| buf.extend_from_slice(b"\x00garbage\xff"));
                        continue;
                    }
                    Some(Fault::WrongId) => tid = tid.wrapping_add(1_000_000_000),
                    Some(Fault::ErrorReply) => result = error(500, "Simulated failure"),
                    _ => {}
                }
                let reply = msg::reply(mg.mid.clone(), version, tid, result);
                let copies = if mg.fault == Some(Fault::Duplicate) {
                    2
                } else {
                    1
                };
                for _ in 0..copies {
                    out.push(from, |buf| {
                        let start = buf.len();
                        if encoding.encode_into(&reply, buf).is_err()
                            || buf.len() - start > net::MAX_DATAGRAM
                        {
                            buf.truncate(start);
                            let too_big = error(500, "Reply too large for one datagram");
                            let reply = msg::reply(mg.mid.clone(), version, tid, too_big);
                            if encoding.encode_into(&reply, buf).is_err() {
                                buf.truncate(start);
                            }
                        }
                    });
                }
                shared.answered.fetch_add(1, Ordering::Relaxed);
            }
            Transaction::Reply(r) if r.transaction_id == REGISTER_TID && !mg.registered => {
                mg.registered = true;
                shared.registered.fetch_add(1, Ordering::Relaxed);
            }
            _ => {}
        }
    }
}

/// A reply template for `msg`, when its answer does not change from one
/// time to the next (no new context, no termination chosen).
fn cacheable(mg: &Mg, msg: &MegacoMessage, encoding: &megaco::codec::Encoding) -> Option<Template> {
    let MessageBody::Transactions(ts) = &msg.mess.body else {
        return None;
    };
    let [Transaction::Request(r)] = ts.as_slice() else {
        return None;
    };
    let fixed = r.actions.iter().all(|a| {
        a.context_id != ContextId::CHOOSE
            && a.command_requests
                .iter()
                .all(|c| !matches!(c.command, Command::Add(_)))
    });
    if !fixed {
        return None;
    }
    let result = mg.gateway.clone().answer(&r.actions);
    let (mid, version) = (mg.mid.clone(), msg.mess.version);
    Some(Template::new(
        encoding.clone(),
        false,
        Box::new(move |tid, _| msg::reply(mid.clone(), version, tid, result.clone())),
    ))
}

fn error(code: u16, text: &str) -> TransactionResult {
    TransactionResult::Error(ErrorDescriptor {
        error_code: code,
        error_text: Some(text.into()),
    })
}
