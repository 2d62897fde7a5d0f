//! One controller shard of a fan-out: a UDP socket and a thread, the
//! gateways registered with it, and the fan-out round with its per-stage
//! clock.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use megaco::codec::Encoding;
use megaco::model::*;
use megaco::MegacoMessage;
use megaco_stack::build;
use mio::{Events, Interest, Poll, Token};

use super::{Build, Request, Setup, Stages, Trust};
use crate::batch::{Inbox, Io, Outbox, BATCH};
use crate::msg::{self, Expect};
use crate::scan::{scan, Head};
use crate::template::Template;
use crate::{net, Errors};

/// What the coordinator asks of a shard.
pub(crate) enum Cmd {
    /// Answer registrations until `expect` gateways are known or `limit`
    /// passed; tell how many are.
    Register {
        expect: usize,
        limit: Duration,
        done: Sender<usize>,
    },
    /// One fan-out to the first `n` registered gateways.
    Round {
        n: usize,
        setup: Setup,
        request: Request,
        start: Arc<Barrier>,
        done: Sender<ShardRound>,
    },
}

/// What one shard measured in one round.
#[derive(Debug, Clone, Default)]
pub(crate) struct ShardRound {
    pub wall: Duration,
    /// CPU time of the controller's thread(s) in the round.
    pub cpu: Option<Duration>,
    /// CPU time of the whole process (controller and gateways).
    pub process_cpu: Option<Duration>,
    pub stages: Stages,
    pub answered: u64,
    pub timeouts: u64,
    pub errors: Errors,
}

struct Dest {
    addr: SocketAddr,
    mid: Mid,
}

pub(crate) struct Shard {
    sock: mio::net::UdpSocket,
    poll: Poll,
    events: Events,
    encoding: Encoding,
    version: u8,
    mid: Mid,
    request: Request,
    dests: Vec<Dest>,
    known: HashMap<SocketAddr, usize>,
    next_tid: u32,
    buf: Vec<u8>,
    io: Io,
    inbox: Option<Inbox>,
    outbox: Outbox,
    msgs: Vec<MegacoMessage>,
    table: HashMap<u32, u32>,
    answered: Vec<bool>,
    timeout: Duration,
}

impl Shard {
    pub(crate) fn bind(wire: Encoding, version: u8, timeout: Duration) -> io::Result<Shard> {
        let mut sock = net::udp(SocketAddr::from(([127, 0, 0, 1], 0)), true)?;
        let poll = Poll::new()?;
        poll.registry()
            .register(&mut sock, Token(0), Interest::READABLE)?;
        let mid = crate::farm::mid_of(sock.local_addr()?);
        Ok(Shard {
            sock,
            poll,
            events: Events::with_capacity(256),
            encoding: wire,
            version,
            mid,
            request: Request::Audit,
            dests: Vec::new(),
            known: HashMap::new(),
            next_tid: 1,
            buf: vec![0; net::MAX_DATAGRAM],
            io: Io::Batched,
            inbox: Some(Inbox::new(Io::Batched)),
            outbox: Outbox::new(Io::Batched),
            msgs: Vec::new(),
            table: HashMap::new(),
            answered: Vec::new(),
            timeout,
        })
    }

    pub(crate) fn local_addr(&self) -> io::Result<SocketAddr> {
        self.sock.local_addr()
    }

    pub(crate) fn run(mut self, cmds: Receiver<Cmd>) {
        while let Ok(cmd) = cmds.recv() {
            match cmd {
                Cmd::Register {
                    expect,
                    limit,
                    done,
                } => {
                    let end = Instant::now() + limit;
                    while self.dests.len() < expect && Instant::now() < end {
                        let _ = self.wait(Some(end));
                        self.drain_registrations();
                    }
                    let _ = done.send(self.dests.len());
                }
                Cmd::Round {
                    n,
                    setup,
                    request,
                    start,
                    done,
                } => {
                    self.request = request;
                    start.wait();
                    let r = self.round(n.min(self.dests.len()), setup);
                    let _ = done.send(r);
                }
            }
        }
    }

    fn wait(&mut self, until: Option<Instant>) -> io::Result<()> {
        let timeout = until.map(|u| u.saturating_duration_since(Instant::now()));
        self.poll.poll(&mut self.events, timeout)
    }

    fn drain_registrations(&mut self) {
        while let Ok((len, from)) = self.sock.recv_from(&mut self.buf) {
            if let Ok(msg) = self.encoding.decode(&self.buf[..len]) {
                self.register(msg, from);
            }
        }
    }

    /// Answers a ServiceChange and remembers its sender; false if `msg`
    /// holds no request.
    fn register(&mut self, msg: MegacoMessage, from: SocketAddr) -> bool {
        let MessageBody::Transactions(ts) = msg.mess.body else {
            return false;
        };
        let mut any = false;
        for t in ts {
            if let Transaction::Request(r) = t {
                any = true;
                if !self.known.contains_key(&from) {
                    self.known.insert(from, self.dests.len());
                    self.dests.push(Dest {
                        addr: from,
                        mid: msg.mess.mid.clone(),
                    });
                }
                let result = build::default_replies(&r.actions);
                let reply = msg::reply(self.mid.clone(), self.version, r.transaction_id, result);
                if let Ok(bytes) = self.encoding.encode(&reply) {
                    let _ = net::send_to(&self.sock, &bytes, from);
                }
            }
        }
        any
    }

    fn action(&self) -> ActionRequest {
        match self.request {
            Request::Audit => msg::audit_root(),
            Request::Modify => {
                msg::modify(ContextId::NULL, msg::termination(crate::farm::PREFIX, 0))
            }
            Request::Wildcard { .. } => msg::audit_wildcard(&format!("{}/*", crate::farm::PREFIX)),
        }
    }

    /// Sends the request to the first `n` gateways and takes in the
    /// replies; every moment of it is charged to one stage.
    fn round(&mut self, n: usize, setup: Setup) -> ShardRound {
        let mut r = ShardRound::default();
        let cpu0 = crate::cpu::thread();
        let t0 = Instant::now();
        let mut clock = t0;
        let mut lap = |at: &mut Duration| {
            let now = Instant::now();
            *at += now - clock;
            clock = now;
        };
        // Transaction ids of this round: base .. base + n.
        if self.next_tid > 0x7000_0000 {
            self.next_tid = 1;
        }
        let base = self.next_tid;
        self.next_tid += n as u32;
        self.table.clear();
        self.answered.clear();
        self.answered.resize(n, false);
        let mut template = None;
        if setup.build == Build::Template {
            let (mid, version, action) = (self.mid.clone(), self.version, self.action());
            template = Some(Template::new(
                self.encoding.clone(),
                false,
                Box::new(move |tid, _| {
                    msg::request(mid.clone(), version, tid, vec![action.clone()])
                }),
            ));
            lap(&mut r.stages.build);
        }
        let deadline = t0 + self.timeout + Duration::from_micros(50 * n as u64);
        if self.io != setup.io {
            self.io = setup.io;
            self.inbox = Some(Inbox::new(setup.io));
            self.outbox = Outbox::new(setup.io);
        }
        let mut inbox = self.inbox.take().unwrap_or_else(|| Inbox::new(setup.io));
        let (mut sent, mut got) = (0usize, 0usize);
        loop {
            if sent < n {
                let batch = (n - sent).min(BATCH);
                let ids = sent..sent + batch;
                if setup.build == Build::PerDestination {
                    self.msgs.clear();
                    for i in ids.clone() {
                        let tid = base + i as u32;
                        self.msgs.push(msg::request(
                            self.mid.clone(),
                            self.version,
                            tid,
                            vec![self.action()],
                        ));
                    }
                    lap(&mut r.stages.build);
                }
                match &mut template {
                    Some(t) => {
                        for i in ids.clone() {
                            self.outbox.push(self.dests[i].addr, |buf| {
                                let _ = t.write(base + i as u32, 0, buf);
                            });
                        }
                    }
                    None => {
                        for (m, i) in self.msgs.iter().zip(ids.clone()) {
                            let encoding = &self.encoding;
                            self.outbox.push(self.dests[i].addr, |buf| {
                                let _ = encoding.encode_into(m, buf);
                            });
                        }
                    }
                }
                lap(&mut r.stages.encode);
                for i in ids {
                    self.table.insert(base + i as u32, i as u32);
                }
                lap(&mut r.stages.engine);
                let _ = self.outbox.flush(&self.sock);
                lap(&mut r.stages.send);
                sent += batch;
            }
            // Read what has come (about a batch while sending remains).
            let mut reads = 0;
            while sent == n || reads < BATCH {
                let k = match inbox.recv(&self.sock) {
                    Ok(k) if k > 0 => k,
                    _ => break,
                };
                reads += k;
                lap(&mut r.stages.receive);
                for i in 0..k {
                    let (bytes, from) = inbox.get(i);
                    let verdict = self.take(bytes, from, setup.trust, base, n);
                    lap(&mut r.stages.decode);
                    self.settle(verdict, base, n, &mut r, &mut got);
                    lap(&mut r.stages.matching);
                }
                if got == n {
                    break;
                }
            }
            if got == n || (sent == n && Instant::now() >= deadline) {
                break;
            }
            if sent == n {
                let _ = self.wait(Some(deadline));
            }
            lap(&mut r.stages.receive);
        }
        self.inbox = Some(inbox);
        r.timeouts = (n - got) as u64;
        r.wall = clock - t0;
        r.cpu = crate::cpu::since(cpu0, crate::cpu::thread());
        r
    }

    /// Reads one received message: the id of its reply, trusted or
    /// checked in full.
    fn take(
        &mut self,
        bytes: &[u8],
        from: SocketAddr,
        trust: Trust,
        base: u32,
        n: usize,
    ) -> Verdict {
        if trust == Trust::Trusted {
            match scan(&self.encoding, bytes) {
                Some(Head::Reply(tid)) => return Verdict::Reply(tid),
                Some(Head::Pending(_)) | Some(Head::Other) => return Verdict::Ignore,
                Some(Head::Error) => return Verdict::Malformed,
                // A request (a late registration) or PER: decode below.
                Some(Head::Request(_)) | None => {}
            }
        }
        let Ok(msg) = self.encoding.decode(bytes) else {
            return Verdict::Malformed;
        };
        if trust == Trust::Trusted {
            if self.register(msg.clone(), from) {
                return Verdict::Ignore;
            }
            return match first_reply(&msg) {
                Some(r) => Verdict::Reply(r.transaction_id),
                None => Verdict::Malformed,
            };
        }
        let Some(reply) = first_reply(&msg) else {
            return if self.register(msg, from) {
                Verdict::Ignore
            } else {
                Verdict::Malformed
            };
        };
        let tid = reply.transaction_id;
        let Some(i) = tid.checked_sub(base).map(|i| i as usize).filter(|i| *i < n) else {
            return Verdict::Reply(tid);
        };
        let d = &self.dests[i];
        if d.addr != from || d.mid != msg.mess.mid {
            return Verdict::Mismatched;
        }
        let expect = match self.request {
            Request::Modify => Expect::Modify,
            _ => Expect::Audit,
        };
        match msg::check_reply(expect, &reply.result) {
            Ok(a) => match self.request {
                Request::Wildcard { terminations } if a.terminations != terminations => {
                    Verdict::Mismatched
                }
                _ => Verdict::Reply(tid),
            },
            Err("error reply") => Verdict::ErrorReply(tid),
            Err(_) => Verdict::Mismatched,
        }
    }

    fn settle(&mut self, v: Verdict, base: u32, n: usize, r: &mut ShardRound, got: &mut usize) {
        let tid = match v {
            Verdict::Ignore => return,
            Verdict::Malformed => return r.errors.malformed += 1,
            Verdict::Mismatched => return r.errors.mismatched += 1,
            Verdict::ErrorReply(tid) | Verdict::Reply(tid) => tid,
        };
        match self.table.remove(&tid) {
            Some(i) => {
                self.answered[i as usize] = true;
                *got += 1;
                if matches!(v, Verdict::ErrorReply(_)) {
                    r.errors.error_replies += 1;
                } else {
                    r.answered += 1;
                }
            }
            None if tid >= base && ((tid - base) as usize) < n => r.errors.duplicate += 1,
            None if tid < base && tid > 0 => r.errors.late += 1,
            None => r.errors.unexpected += 1,
        }
    }
}

enum Verdict {
    Reply(u32),
    ErrorReply(u32),
    Malformed,
    Mismatched,
    Ignore,
}

fn first_reply(msg: &MegacoMessage) -> Option<&TransactionReply> {
    match &msg.mess.body {
        MessageBody::Transactions(ts) => ts.iter().find_map(|t| match t {
            Transaction::Reply(r) => Some(r),
            _ => None,
        }),
        MessageBody::Error(_) => None,
    }
}
