//! Transactions paired across a capture: each request with its reply
//! (pendings, resends, segmented replies and acknowledgements counted),
//! response times per command, error codes and unanswered requests.
//!
//! A request sent from A to B with transaction id T is answered by a
//! reply (or pending) from B to A with id T. Memory stays bounded: at
//! most [`Stats::MAX_TRACKED`] transactions are remembered; beyond that the
//! oldest is let go (counted unanswered if it never got its reply).
//!
//! ```
//! use megaco_pcap::stats::Stats;
//! use megaco_pcap::{Capture, Event, Options};
//! # let file: Vec<u8> = Vec::new();
//! # let file = {
//! #     use megaco_pcap::write::{build, Writer};
//! #     let mut w = Writer::pcap(Vec::new(), megaco_pcap::LinkType::ETHERNET)?;
//! #     let (mg, mgc) = ("10.0.0.1:2944".parse()?, "10.0.0.2:2944".parse()?);
//! #     let req = b"!/1 [10.0.0.1] T=7{C=-{N=ROOT{OE=1{al/of}}}}";
//! #     let rep = b"!/1 [10.0.0.2] P=7{C=-{N=ROOT}}";
//! #     w.packet(megaco_pcap::Timestamp(1_000_000_000), &build::ethernet(&build::udp(mg, mgc, req)))?;
//! #     w.packet(megaco_pcap::Timestamp(1_002_000_000), &build::ethernet(&build::udp(mgc, mg, rep)))?;
//! #     w.into_inner()
//! # };
//!
//! let mut stats = Stats::default();
//! for event in Capture::new(&file[..], Options::default())? {
//!     if let Event::Message(m) = event {
//!         stats.add(&m);
//!     }
//! }
//! let report = stats.finish();
//! assert_eq!((report.requests, report.answered), (1, 1));
//! assert_eq!(report.commands[0].name, "Notify");
//! assert_eq!(report.commands[0].p50_ms, 2.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::net::SocketAddr;

use megaco::model::{
    AuditReply, AuditReturnParameter, Command, CommandReply, ErrorDescriptor, MessageBody,
    ServiceChangeResult, Transaction, TransactionResult,
};

use crate::event::{Record, Transport};
use crate::histogram::Histogram;
use crate::source::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    requester: SocketAddr,
    responder: SocketAddr,
    id: u32,
}

struct Tx {
    packet: u64,
    time: Timestamp,
    transport: Transport,
    commands: Vec<&'static str>,
    replied: bool,
    generation: u64,
}

/// An unanswered request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unanswered {
    /// The packet of its first sending.
    pub packet: u64,
    /// When.
    pub time: Timestamp,
    /// Requester.
    pub src: SocketAddr,
    /// Responder.
    pub dst: SocketAddr,
    /// Transport.
    pub transport: Transport,
    /// Transaction id.
    pub transaction_id: u32,
    /// Its commands.
    pub commands: Vec<&'static str>,
}

/// Response times of one command (or of all).
#[derive(Debug, Clone, PartialEq)]
pub struct CommandTimes {
    /// The command (`Add`, `Notify`, …) or `all`.
    pub name: &'static str,
    /// Answered transactions holding it.
    pub count: u64,
    /// Fastest, milliseconds (exact).
    pub min_ms: f64,
    /// Median, milliseconds.
    pub p50_ms: f64,
    /// 90th percentile, milliseconds.
    pub p90_ms: f64,
    /// 99th percentile, milliseconds.
    pub p99_ms: f64,
    /// Slowest, milliseconds (exact).
    pub max_ms: f64,
    /// Mean, milliseconds (exact).
    pub mean_ms: f64,
}

/// What [`Stats::finish`] reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Messages seen.
    pub messages: u64,
    /// Messages that did not decode.
    pub decode_errors: u64,
    /// Messages by transport and encoding.
    pub encodings: Vec<(Transport, &'static str, u64)>,
    /// Distinct transaction requests.
    pub requests: u64,
    /// Requests sent again (same sender, receiver and id).
    pub resends: u64,
    /// Requests that got a final reply.
    pub answered: u64,
    /// Requests that never did.
    pub unanswered: u64,
    /// TransactionPending messages for known requests.
    pub pendings: u64,
    /// Replies sent again.
    pub reply_resends: u64,
    /// Replies (and pendings) for requests not in the capture.
    pub orphan_replies: u64,
    /// Segments of segmented (v3) replies.
    pub reply_segments: u64,
    /// SegmentReply transactions.
    pub segment_replies: u64,
    /// Transaction ids acknowledged by TransactionResponseAck.
    pub acks: u64,
    /// Response times per command, then `all`.
    pub commands: Vec<CommandTimes>,
    /// Error codes in replies and message errors: (code, count).
    pub errors: Vec<(u16, u64)>,
    /// The first [`Stats::MAX_LISTED`] unanswered requests, oldest first.
    pub unanswered_list: Vec<Unanswered>,
}

/// Pairs transactions across a capture.
pub struct Stats {
    txs: HashMap<Key, Tx>,
    order: VecDeque<(Key, u64)>,
    generation: u64,
    times: BTreeMap<&'static str, Histogram>,
    all: Histogram,
    errors: BTreeMap<u16, u64>,
    encodings: BTreeMap<(Transport, &'static str), u64>,
    unanswered: Vec<Unanswered>,
    r: Report,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            txs: HashMap::new(),
            order: VecDeque::new(),
            generation: 0,
            times: BTreeMap::new(),
            all: Histogram::default(),
            errors: BTreeMap::new(),
            encodings: BTreeMap::new(),
            unanswered: Vec::new(),
            r: Report {
                messages: 0,
                decode_errors: 0,
                encodings: Vec::new(),
                requests: 0,
                resends: 0,
                answered: 0,
                unanswered: 0,
                pendings: 0,
                reply_resends: 0,
                orphan_replies: 0,
                reply_segments: 0,
                segment_replies: 0,
                acks: 0,
                commands: Vec::new(),
                errors: Vec::new(),
                unanswered_list: Vec::new(),
            },
        }
    }
}

impl Stats {
    /// Transactions remembered at once.
    pub const MAX_TRACKED: usize = 1 << 17;
    /// Unanswered requests listed in the report.
    pub const MAX_LISTED: usize = 1000;

    /// Takes one message of the capture.
    pub fn add(&mut self, m: &Record) {
        self.r.messages += 1;
        *self
            .encodings
            .entry((m.transport, kind_name(m.encoding)))
            .or_default() += 1;
        let msg = match &m.message {
            Ok(msg) => msg,
            Err(_) => {
                self.r.decode_errors += 1;
                return;
            }
        };
        let ts = match &msg.mess.body {
            MessageBody::Error(e) => {
                self.error(e);
                return;
            }
            MessageBody::Transactions(ts) => ts,
        };
        for t in ts {
            match t {
                Transaction::Request(req) => {
                    let key = Key {
                        requester: m.src,
                        responder: m.dst,
                        id: req.transaction_id,
                    };
                    if self.txs.contains_key(&key) {
                        self.r.resends += 1;
                        continue;
                    }
                    let mut commands: Vec<&'static str> = Vec::new();
                    for a in &req.actions {
                        for c in &a.command_requests {
                            let name = command_name(&c.command);
                            if !commands.contains(&name) {
                                commands.push(name);
                            }
                        }
                    }
                    self.r.requests += 1;
                    self.track(
                        key,
                        Tx {
                            packet: m.packet,
                            time: m.time,
                            transport: m.transport,
                            commands,
                            replied: false,
                            generation: 0,
                        },
                    );
                }
                Transaction::Pending(p) => match self.txs.get(&reply_key(m, p.transaction_id)) {
                    Some(_) => self.r.pendings += 1,
                    None => self.r.orphan_replies += 1,
                },
                Transaction::Reply(rep) => {
                    if rep.segment_number.is_some() {
                        self.r.reply_segments += 1;
                    }
                    match &rep.result {
                        TransactionResult::Error(e) => self.error(e),
                        TransactionResult::ActionReplies(actions) => {
                            for a in actions {
                                if let Some(e) = &a.error_descriptor {
                                    self.error(e);
                                }
                                for c in &a.command_reply {
                                    if let Some(e) = command_error(c) {
                                        self.error(e);
                                    }
                                }
                            }
                        }
                    }
                    let key = reply_key(m, rep.transaction_id);
                    match self.txs.get_mut(&key) {
                        None => self.r.orphan_replies += 1,
                        Some(tx) if tx.replied => {
                            if rep.segment_number.is_none() {
                                self.r.reply_resends += 1;
                            }
                        }
                        Some(tx) => {
                            tx.replied = true;
                            self.r.answered += 1;
                            let took = m.time.since(tx.time);
                            self.all.add(took);
                            for name in &tx.commands {
                                self.times.entry(name).or_default().add(took);
                            }
                        }
                    }
                }
                Transaction::ResponseAck(acks) => {
                    for a in acks {
                        let last = a.last_ack.unwrap_or(a.first_ack).max(a.first_ack);
                        self.r.acks += u64::from(last - a.first_ack) + 1;
                    }
                }
                Transaction::SegmentReply(_) => self.r.segment_replies += 1,
                _ => {}
            }
        }
    }

    fn error(&mut self, e: &ErrorDescriptor) {
        *self.errors.entry(e.error_code).or_default() += 1;
    }

    fn track(&mut self, key: Key, mut tx: Tx) {
        while self.txs.len() >= Self::MAX_TRACKED {
            let Some((k, generation)) = self.order.pop_front() else {
                break;
            };
            self.forget(k, generation);
        }
        self.generation += 1;
        tx.generation = self.generation;
        self.order.push_back((key, self.generation));
        self.txs.insert(key, tx);
    }

    fn forget(&mut self, key: Key, generation: u64) {
        if self
            .txs
            .get(&key)
            .is_some_and(|t| t.generation == generation)
        {
            let tx = self.txs.remove(&key).expect("present");
            if !tx.replied {
                self.r.unanswered += 1;
                if self.unanswered.len() < Self::MAX_LISTED {
                    self.unanswered.push(Unanswered {
                        packet: tx.packet,
                        time: tx.time,
                        src: key.requester,
                        dst: key.responder,
                        transport: tx.transport,
                        transaction_id: key.id,
                        commands: tx.commands,
                    });
                }
            }
        }
    }

    /// The report: requests still unanswered at the end count as
    /// unanswered.
    pub fn finish(mut self) -> Report {
        while let Some((k, generation)) = self.order.pop_front() {
            self.forget(k, generation);
        }
        let times = |name: &'static str, h: &Histogram| CommandTimes {
            name,
            count: h.count(),
            min_ms: ms(h.min()),
            p50_ms: ms(h.percentile(50.0)),
            p90_ms: ms(h.percentile(90.0)),
            p99_ms: ms(h.percentile(99.0)),
            max_ms: ms(h.max()),
            mean_ms: ms(h.mean()),
        };
        let mut r = self.r;
        r.commands = self.times.iter().map(|(n, h)| times(n, h)).collect();
        if self.all.count() > 0 {
            r.commands.push(times("all", &self.all));
        }
        r.errors = self.errors.into_iter().collect();
        r.encodings = self
            .encodings
            .into_iter()
            .map(|((t, e), n)| (t, e, n))
            .collect();
        self.unanswered.sort_by_key(|u| u.packet);
        r.unanswered_list = self.unanswered;
        r
    }
}

fn reply_key(m: &Record, id: u32) -> Key {
    Key {
        requester: m.dst,
        responder: m.src,
        id,
    }
}

fn ms(nanos: u64) -> f64 {
    (nanos as f64 / 1e3).round() / 1e3
}

fn kind_name(k: megaco::codec::Kind) -> &'static str {
    match k {
        megaco::codec::Kind::Text => "text",
        megaco::codec::Kind::Ber => "ber",
        megaco::codec::Kind::Per => "per",
        megaco::codec::Kind::Native => "native",
    }
}

/// The name of a command, as the text encoding writes it.
pub fn command_name(c: &Command) -> &'static str {
    match c {
        Command::Add(_) => "Add",
        Command::Move(_) => "Move",
        Command::Modify(_) => "Modify",
        Command::Subtract(_) => "Subtract",
        Command::AuditCapability(_) => "AuditCapability",
        Command::AuditValue(_) => "AuditValue",
        Command::Notify(_) => "Notify",
        Command::ServiceChange(_) => "ServiceChange",
        // A command a later version of the model adds.
        _ => "Other",
    }
}

/// The error a command reply carries, if any: a Notify's or a
/// ServiceChange's error descriptor, an audit answered with an error, or
/// an error among the audited values of an Add, Move, Modify, Subtract or
/// audit reply.
pub fn command_error(c: &CommandReply) -> Option<&ErrorDescriptor> {
    fn in_audit(params: &[AuditReturnParameter]) -> Option<&ErrorDescriptor> {
        params.iter().find_map(|p| match p {
            AuditReturnParameter::Error(e) => Some(e),
            _ => None,
        })
    }
    match c {
        CommandReply::Add(r)
        | CommandReply::Move(r)
        | CommandReply::Modify(r)
        | CommandReply::Subtract(r) => r.termination_audit.as_deref().and_then(in_audit),
        CommandReply::AuditCapability(a) | CommandReply::AuditValue(a) => match a {
            AuditReply::Error(e) => Some(e),
            AuditReply::AuditResult(r) => in_audit(&r.termination_audit_result),
            AuditReply::AuditResultTermList(r) => in_audit(&r.termination_audit_result),
            _ => None,
        },
        CommandReply::Notify(n) => n.error_descriptor.as_ref(),
        CommandReply::ServiceChange(s) => match &s.service_change_result {
            ServiceChangeResult::ErrorDescriptor(e) => Some(e),
            _ => None,
        },
        _ => None,
    }
}

/// The meaning of the common H.248.1 error codes (clause 14 and
/// H.248.8), for reports.
pub fn error_name(code: u16) -> Option<&'static str> {
    Some(match code {
        400 => "Syntax error in message",
        401 => "Protocol error",
        402 => "Unauthorized",
        403 => "Syntax error in transaction request",
        406 => "Version not supported",
        410 => "Incorrect identifier",
        411 => "Unknown context id",
        412 => "No context ids available",
        421 => "Unknown action or illegal combination of actions",
        422 => "Syntax error in action",
        430 => "Unknown termination id",
        431 => "No termination id matched a wildcard",
        432 => "Out of termination ids",
        433 => "Termination id already in a context",
        435 => "Termination id not in the context",
        440 => "Unsupported or unknown package",
        441 => "Missing Remote or Local descriptor",
        442 => "Syntax error in command",
        443 => "Unsupported or unknown command",
        444 => "Unsupported or unknown descriptor",
        445 => "Unsupported or unknown property",
        446 => "Unsupported or unknown parameter",
        447 => "Descriptor not legal in this command",
        448 => "Descriptor appears twice in a command",
        449 => "Unsupported parameter or property value",
        459 => "Missing segment",
        500 => "Internal software failure in the MG",
        501 => "Not implemented",
        502 => "Not ready",
        503 => "Service unavailable",
        504 => "Command received from an unauthorised entity",
        505 => "Request received before a ServiceChange reply",
        506 => "Number of TransactionPendings exceeded",
        510 => "Insufficient resources",
        512 => "MG unequipped to detect the requested event",
        513 => "MG unequipped to generate the requested signals",
        515 => "Unsupported media type",
        521 => "Termination is ServiceChanging",
        526 => "Insufficient bandwidth",
        529 => "Internal hardware failure in the MG",
        530 => "Temporary network failure",
        531 => "Permanent network failure",
        _ => return None,
    })
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "messages: {} ({} did not decode)",
            self.messages, self.decode_errors
        )?;
        for (t, e, n) in &self.encodings {
            writeln!(f, "  {t} {e}: {n}")?;
        }
        writeln!(
            f,
            "transactions: {} requests, {} answered, {} unanswered",
            self.requests, self.answered, self.unanswered
        )?;
        writeln!(
            f,
            "  {} resent requests, {} pendings, {} resent replies, {} replies without a request",
            self.resends, self.pendings, self.reply_resends, self.orphan_replies
        )?;
        writeln!(
            f,
            "  {} reply segments, {} segment replies, {} acknowledged ids",
            self.reply_segments, self.segment_replies, self.acks
        )?;
        if !self.commands.is_empty() {
            writeln!(f, "response time (ms):")?;
            writeln!(
                f,
                "  {:<16} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10}",
                "command", "count", "p50", "p90", "p99", "max", "mean"
            )?;
            for c in &self.commands {
                writeln!(
                    f,
                    "  {:<16} {:>9} {:>10.3} {:>10.3} {:>10.3} {:>10.3} {:>10.3}",
                    c.name, c.count, c.p50_ms, c.p90_ms, c.p99_ms, c.max_ms, c.mean_ms
                )?;
            }
        }
        if !self.errors.is_empty() {
            writeln!(f, "error codes:")?;
            for (code, n) in &self.errors {
                writeln!(f, "  {code:>5} {n:>9}  {}", error_name(*code).unwrap_or(""))?;
            }
        }
        if !self.unanswered_list.is_empty() {
            writeln!(
                f,
                "unanswered requests ({} listed of {}):",
                self.unanswered_list.len(),
                self.unanswered
            )?;
            for u in &self.unanswered_list {
                writeln!(
                    f,
                    "  packet {} at {}: {} -> {} {} T={} {}",
                    u.packet,
                    u.time,
                    u.src,
                    u.dst,
                    u.transport,
                    u.transaction_id,
                    u.commands.join(",")
                )?;
            }
        }
        Ok(())
    }
}
