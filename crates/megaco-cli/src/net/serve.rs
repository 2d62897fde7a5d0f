//! Answering requests as `mgc` and `mg` do: a scenario's rules, then the
//! defaults ([`Responder`]), one responder (contexts, terminations) per
//! peer. A reply given on the spot is handed to the stack at once (its
//! outcome counted later, without a task); one that waits (a pending
//! first, or a delay) goes out from a task of its own, so that a delayed
//! answer holds up nobody else.
//!
//! Replies to nothing outstanding, which a peer can send as fast as it
//! likes, are logged [`UNEXPECTED_SHOWN`] a peer each report interval;
//! the rest are counted, and the count is logged once the interval ends
//! ([`Server::report`]).

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use megaco::model::ActionRequest;
use megaco_stack::endpoint::{CloseReason, DropReport, EndpointEvent};
use megaco_stack::engine::Event;
use megaco_stack::scenario::{Answer, Capacity, Responder, Role, Rule, TermIdStyle};
use megaco_stack::{IncomingRequest, Peer, ReplySent};
use serde_json::json;
use tokio::task::JoinSet;

use super::log::{addr, Log};
use super::show::{self, describe};
use super::Tally;

/// Requests a rule leaves unanswered are kept (unanswered) up to this
/// many; older ones are then let go (the stack answers them with 500).
const MAX_HELD: usize = 1024;

/// Replies given on the spot whose outcome is awaited are kept up to this
/// many (the stack sends them within a turn of its loop, so only a stack
/// far behind gets near it); beyond it the oldest outcome goes uncounted.
const MAX_SENT: usize = 65_536;

/// Replies to nothing outstanding logged one by one for a peer in each
/// report interval; the rest are counted, and their number logged at the
/// end of the interval.
pub const UNEXPECTED_SHOWN: u32 = 5;

/// Peers whose unexpected replies are counted one by one in an interval;
/// those of further peers are counted together (and not shown).
const UNEXPECTED_PEERS: usize = 4096;

/// Which unexpected replies are logged, and how many were not, in the
/// current report interval.
#[derive(Debug, Default)]
pub struct Unexpected {
    /// Per peer: how many were shown, how many were not.
    peers: HashMap<SocketAddr, (u32, u64)>,
    /// Not shown, of peers beyond [`UNEXPECTED_PEERS`].
    others: u64,
}

impl Unexpected {
    /// Counts one from `peer`: whether to log it.
    pub fn note(&mut self, peer: SocketAddr) -> bool {
        if !self.peers.contains_key(&peer) && self.peers.len() >= UNEXPECTED_PEERS {
            self.others += 1;
            return false;
        }
        let (shown, hidden) = self.peers.entry(peer).or_default();
        if *shown < UNEXPECTED_SHOWN {
            *shown += 1;
            true
        } else {
            *hidden += 1;
            false
        }
    }

    /// Ends the interval: the peers some were not logged for, with how
    /// many (in address order), and how many of other peers.
    pub fn take(&mut self) -> (Vec<(SocketAddr, u64)>, u64) {
        let mut hidden: Vec<(SocketAddr, u64)> = self
            .peers
            .drain()
            .filter(|(_, (_, n))| *n > 0)
            .map(|(a, (_, n))| (a, n))
            .collect();
        hidden.sort();
        (hidden, std::mem::take(&mut self.others))
    }
}

/// Answers requests.
pub struct Server {
    log: Log,
    tally: Arc<Tally>,
    role: Role,
    rules: Arc<[Rule]>,
    /// One per peer; at most `max_peers`.
    responders: HashMap<Peer, Responder>,
    /// How each peer's termination ids are written (binary encodings:
    /// bit levels), from the encoding the stack recognised.
    styles: HashMap<Peer, TermIdStyle>,
    max_peers: usize,
    held: VecDeque<IncomingRequest>,
    /// Replies given on the spot whose outcome is not yet counted, oldest
    /// first.
    sent: VecDeque<(SocketAddr, u32, ReplySent)>,
    /// Replies given after a pending or a delay, each in its task.
    replies: JoinSet<()>,
    /// Replies to nothing outstanding, in this report interval.
    unexpected: Unexpected,
    /// Terminations the responders hold together.
    terminations: usize,
}

/// `r`'s answer to `actions`, while all responders together hold `held`
/// terminations (updated): at `max` or more, nothing more is added (error
/// 510), whatever `r` alone could still hold.
fn answer_within(
    r: &mut Responder,
    held: &mut usize,
    max: usize,
    actions: &[ActionRequest],
    version: u8,
    style: TermIdStyle,
) -> Answer {
    r.set_capacity(if *held >= max {
        // No new context, no new termination.
        Capacity {
            contexts: 0,
            terminations_per_context: 0,
            termination_bytes: 0,
        }
    } else {
        Capacity::default()
    });
    let before = r.terminations();
    let answer = r.answer(actions, version, style);
    *held = (*held + r.terminations()).saturating_sub(before);
    answer
}

/// The most terminations the responders of all peers hold together.
/// Each peer's responder is bounded ([`Capacity`]: 640,000 terminations,
/// about 80 MB), but there is one per peer slot; past this total (about
/// 125 MB of state) an Add or Move from any peer gets error 510 until
/// Subtracts free room.
pub const MAX_TERMINATIONS: usize = 1_000_000;

impl Server {
    pub fn new(
        log: Log,
        tally: Arc<Tally>,
        role: Role,
        rules: Vec<Rule>,
        max_peers: usize,
    ) -> Self {
        Server {
            log,
            tally,
            role,
            rules: rules.into(),
            responders: HashMap::new(),
            styles: HashMap::new(),
            max_peers: max_peers.max(1),
            held: VecDeque::new(),
            sent: VecDeque::new(),
            replies: JoinSet::new(),
            unexpected: Unexpected::default(),
            terminations: 0,
        }
    }

    /// Logs an engine event ([`event`]), but of the replies to nothing
    /// outstanding only the first [`UNEXPECTED_SHOWN`] of each peer in a
    /// report interval; the others are counted for [`Server::report`].
    pub fn event(&mut self, peer: SocketAddr, ev: &Event) {
        if matches!(ev, Event::UnexpectedReply { .. }) && !self.unexpected.note(peer) {
            return;
        }
        event(&self.log, &self.tally, peer, ev);
    }

    /// Ends a report interval of `every`: logs how many replies to
    /// nothing outstanding were not logged, per peer.
    pub fn report(&mut self, every: Duration) {
        let secs = every.as_secs_f64();
        let (peers, others) = self.unexpected.take();
        for (peer, n) in peers {
            self.log.info(
                "unexpected_replies",
                || format!("<- {n} more replies from {peer} to no outstanding request in the last {secs} s (ignored)"),
                || json!({ "peer": addr(peer), "count": n, "seconds": secs }),
            );
        }
        if others > 0 {
            self.log.info(
                "unexpected_replies",
                || format!("<- {others} more replies from other peers to no outstanding request in the last {secs} s (ignored)"),
                || json!({ "count": others, "seconds": secs }),
            );
        }
    }

    /// The log and tally it reports to.
    pub fn parts(&self) -> (Log, Arc<Tally>) {
        (self.log.clone(), self.tally.clone())
    }

    /// Drops a peer's responder and what it held.
    fn drop_responder(&mut self, peer: Peer) {
        if let Some(r) = self.responders.remove(&peer) {
            self.terminations = self.terminations.saturating_sub(r.terminations());
        }
    }

    fn responder(&mut self, peer: Peer) -> &mut Responder {
        if !self.responders.contains_key(&peer) && self.responders.len() >= self.max_peers {
            // Forget a peer that holds no context, or any.
            let victim = self
                .responders
                .iter()
                .find(|(_, r)| r.contexts().next().is_none())
                .or_else(|| self.responders.iter().next())
                .map(|(a, _)| *a);
            if let Some(v) = victim {
                self.drop_responder(v);
            }
        }
        let (role, rules) = (&self.role, &self.rules);
        self.responders
            .entry(peer)
            .or_insert_with(|| Responder::new(role.clone(), rules.clone()))
    }

    /// Logs a request and answers it (at once, after a pending, after a
    /// delay, or never, as the rules say); termination ids chosen for `$`
    /// are written as the peer's encoding wants them (`style` when it is
    /// not known).
    pub fn request(&mut self, req: IncomingRequest, style: TermIdStyle) {
        let (peer, id, version) = (req.peer(), req.transaction_id(), req.version());
        let source = req.source();
        let style = self.styles.get(&source).copied().unwrap_or(style);
        Tally::bump(&self.tally.received);
        self.tally.peer(peer);
        if !self.log.quiet {
            let from = show::mid_text(req.mid());
            show::message(
                &self.log,
                "<-",
                peer,
                &from,
                version,
                show::request(id, req.actions()),
            );
        }
        let mut held = self.terminations;
        let r = self.responder(source);
        let answer = answer_within(
            r,
            &mut held,
            MAX_TERMINATIONS,
            req.actions(),
            version,
            style,
        );
        self.terminations = held;
        let Some(result) = answer.reply else {
            self.log.info(
                "not_answered",
                || format!("-- {peer} transaction {id} left unanswered (scenario)"),
                || json!({ "peer": addr(peer), "transaction_id": id }),
            );
            if self.held.len() >= MAX_HELD {
                self.held.pop_front();
            }
            self.held.push_back(req);
            return;
        };
        self.reap_sent();
        if answer.pending.is_none() && answer.delay.is_none() {
            // Answered on the spot: no task, the outcome is read later.
            if !self.log.quiet {
                show::message(&self.log, "->", peer, "", version, show::reply(id, &result));
            }
            if self.sent.len() >= MAX_SENT {
                // The stack is far behind: forget the oldest outcome.
                self.sent.pop_front();
            }
            self.sent.push_back((peer, id, req.send_reply(result)));
            return;
        }
        let (log, tally) = (self.log.clone(), self.tally.clone());
        self.replies.spawn(async move {
            if let Some(wait) = answer.pending {
                match req.send_pending().await {
                    Err(megaco_stack::Error::Closed) => return,
                    Ok(()) => log.info(
                        "pending_sent",
                        || format!("-> {peer} Pending={id}"),
                        || json!({ "peer": addr(peer), "transaction_id": id }),
                    ),
                    Err(e) => log.warn(
                        "error",
                        || format!("megaco: pending {id} to {peer}: {e}"),
                        || json!({ "peer": addr(peer), "transaction_id": id, "error": e.to_string() }),
                    ),
                }
                tokio::time::sleep(wait).await;
            }
            if let Some(wait) = answer.delay {
                tokio::time::sleep(wait).await;
            }
            if !log.quiet {
                show::message(&log, "->", peer, "", version, show::reply(id, &result));
            }
            let outcome = req.reply(result).await;
            reply_outcome(&log, &tally, peer, id, outcome);
        });
        // Reap finished replies as we go.
        while let Some(done) = self.replies.try_join_next() {
            let _ = done;
        }
    }

    /// Logs what the endpoint reports (peers admitted, evicted, refused,
    /// expired, closed; what it dropped) and keeps each peer's encoding.
    pub fn endpoint(&mut self, ev: &EndpointEvent) {
        match ev {
            EndpointEvent::PeerAdmitted { peer, encoding } => {
                let binary = encoding.starts_with("ber") || encoding.starts_with("per");
                if self.styles.len() < self.max_peers.saturating_mul(2) {
                    let style = if binary {
                        TermIdStyle::Binary
                    } else {
                        TermIdStyle::Text
                    };
                    self.styles.insert(*peer, style);
                }
            }
            EndpointEvent::PeerEvicted { peer }
            | EndpointEvent::PeerExpired { peer }
            | EndpointEvent::Closed { peer, .. } => self.forget(*peer),
            _ => {}
        }
        endpoint_event(&self.log, ev);
    }

    /// Forgets what is kept for `peer` (its contexts, its encoding).
    fn forget(&mut self, peer: Peer) {
        self.styles.remove(&peer);
        self.drop_responder(peer);
    }

    /// Logs the end of a TCP connection and forgets its peer (a TCP
    /// connection is a peer of its own).
    pub fn closed(&mut self, peer: Peer, reason: Option<&CloseReason>) {
        self.forget(peer);
        closed(&self.log, peer.addr, reason);
    }

    /// Counts (and logs the failures of) the replies given on the spot
    /// that have gone out since. The stack takes them in order, so their
    /// outcomes come in order too.
    fn reap_sent(&mut self) {
        while let Some((peer, id, sent)) = self.sent.front_mut() {
            let Some(outcome) = sent.outcome() else {
                break;
            };
            reply_outcome(&self.log, &self.tally, *peer, *id, outcome);
            self.sent.pop_front();
        }
    }

    /// Waits (at most `wait`) for the replies under way to go out.
    pub async fn drain(&mut self, wait: Duration) {
        let (log, tally) = (self.log.clone(), self.tally.clone());
        let sent = std::mem::take(&mut self.sent);
        let all = async {
            for (peer, id, sent) in sent {
                reply_outcome(&log, &tally, peer, id, sent.await);
            }
            while self.replies.join_next().await.is_some() {}
        };
        let _ = tokio::time::timeout(wait, all).await;
    }
}

/// Counts a reply that went out, or counts and logs one that did not.
fn reply_outcome(
    log: &Log,
    tally: &Tally,
    peer: SocketAddr,
    id: u32,
    outcome: Result<(), megaco_stack::Error>,
) {
    match outcome {
        Ok(()) => Tally::bump(&tally.replied),
        // The peer is gone (its connection closed, which is logged once),
        // and its requests with it: not a warning per reply.
        Err(megaco_stack::Error::Closed) => {}
        Err(e) => {
            Tally::bump(&tally.errors);
            log.warn(
                "error",
                || format!("megaco: reply {id} to {peer}: {e}"),
                || json!({ "peer": addr(peer), "transaction_id": id, "error": e.to_string() }),
            );
        }
    }
}

/// Logs an endpoint event in words.
pub fn endpoint_event(log: &Log, ev: &EndpointEvent) {
    match ev {
        EndpointEvent::PeerAdmitted { peer, encoding } => log.info(
            "peer_admitted",
            || format!("-- {peer} speaks {encoding}"),
            || json!({ "peer": addr(peer.addr), "encoding": encoding }),
        ),
        EndpointEvent::PeerEvicted { peer } => log.warn(
            "peer_evicted",
            || format!("megaco: {peer} lost its slot to a newer peer"),
            || json!({ "peer": addr(peer.addr) }),
        ),
        EndpointEvent::PeerRefused { peer } => log.warn(
            "peer_refused",
            || format!("megaco: {peer} refused: every peer slot is held"),
            || json!({ "peer": addr(peer.addr) }),
        ),
        EndpointEvent::PeerExpired { peer } => log.info(
            "peer_expired",
            || format!("-- {peer} forgotten after its idle timeout"),
            || json!({ "peer": addr(peer.addr) }),
        ),
        EndpointEvent::Connected { peer } => log.info(
            "connected",
            || format!("-- {peer} connected"),
            || json!({ "peer": addr(peer.addr) }),
        ),
        EndpointEvent::Closed { peer, reason } => closed(log, peer.addr, Some(reason)),
        EndpointEvent::Dropped(r) => {
            let text = drop_report(r);
            log.warn(
                "dropped",
                || format!("megaco: since the last report: {text}"),
                || {
                    json!({
                        "errors_rate_limited": r.errors_rate_limited,
                        "storms_suppressed": r.storms_suppressed,
                        "decode_errors": r.decode_errors,
                        "unproven_evicted": r.unproven_evicted,
                        "unproven_expired": r.unproven_expired,
                        "peers_refused": r.peers_refused,
                        "peers_evicted": r.peers_evicted,
                        "duplicates_dropped": r.duplicates_dropped,
                        "replies_shed": r.replies_shed,
                        "remembered_shed": r.remembered_shed,
                    })
                },
            );
        }
        other => {
            let text = format!("{other:?}");
            log.info(
                "endpoint",
                || format!("-- {text}"),
                || json!({ "detail": text }),
            );
        }
    }
}

/// Logs the end of a TCP connection: `-- PEER closed[: REASON]`, JSON
/// `closed` with `peer` and, unless the peer closed it, `reason`.
pub fn closed(log: &Log, peer: SocketAddr, reason: Option<&CloseReason>) {
    let why = reason.map(|r| format!(": {r}")).unwrap_or_default();
    log.info(
        "closed",
        || format!("-- {peer} closed{why}"),
        || match reason {
            Some(r) => json!({ "peer": addr(peer), "reason": r.to_string() }),
            None => json!({ "peer": addr(peer) }),
        },
    );
}

/// A drop report in words: only what is not zero.
fn drop_report(r: &DropReport) -> String {
    let parts = [
        (r.errors_rate_limited, "error replies rate-limited"),
        (r.storms_suppressed, "error loops stopped"),
        (r.decode_errors, "undecodable messages"),
        (r.unproven_evicted, "unproven peers evicted"),
        (r.unproven_expired, "unproven peers expired"),
        (r.peers_refused, "peers refused (table full)"),
        (r.peers_evicted, "peers evicted"),
        (
            r.duplicates_dropped,
            "duplicates dropped (reply no longer cached)",
        ),
        (r.replies_shed, "cached replies shed (cache budget)"),
        (
            r.remembered_shed,
            "executed requests forgotten (memory budget)",
        ),
    ];
    let said: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    said.join(", ")
}

/// Logs an engine event in words; counts errors.
pub fn event(log: &Log, tally: &Tally, peer: SocketAddr, event: &Event) {
    let p = addr(peer);
    match event {
        Event::DecodeError { error } => {
            Tally::bump(&tally.errors);
            let text = show::decode_error(error);
            log.warn(
                "decode_error",
                || format!("megaco: {peer}: cannot decode the message: {text}"),
                || json!({ "peer": p, "error": text }),
            );
        }
        Event::MessageError { error } => {
            Tally::bump(&tally.errors);
            log.warn(
                "message_error",
                || {
                    format!(
                        "megaco: {peer} answered with a message-level {}",
                        describe(error)
                    )
                },
                || json!({ "peer": p, "code": error.error_code, "text": error.error_text }),
            );
        }
        Event::PendingSent { transaction_id } => log.info(
            "pending_sent",
            || format!("-> {peer} Pending={transaction_id}"),
            || json!({ "peer": p, "transaction_id": transaction_id }),
        ),
        Event::PendingReceived { transaction_id } => log.info(
            "pending_received",
            || format!("<- {peer} Pending={transaction_id}"),
            || json!({ "peer": p, "transaction_id": transaction_id }),
        ),
        Event::AckReceived { transaction_id } => log.info(
            "ack_received",
            || format!("<- {peer} TransactionResponseAck={transaction_id}"),
            || json!({ "peer": p, "transaction_id": transaction_id }),
        ),
        Event::RequestRefused { transaction_id } => {
            Tally::bump(&tally.errors);
            log.warn(
                "request_refused",
                || format!("megaco: {peer}: request {transaction_id} refused with error 503 (too many unanswered)"),
                || json!({ "peer": p, "transaction_id": transaction_id }),
            );
        }
        Event::VersionNegotiated { version } => log.info(
            "version_negotiated",
            || format!("-- {peer} negotiated version {version}"),
            || json!({ "peer": p, "version": version }),
        ),
        Event::UnexpectedReply { transaction_id, .. } => log.info(
            "unexpected_reply",
            || format!("<- {peer} reply {transaction_id} to no outstanding request (ignored)"),
            || json!({ "peer": p, "transaction_id": transaction_id }),
        ),
        other => {
            let text = format!("{other:?}");
            log.info(
                "event",
                || format!("-- {peer} {text}"),
                || json!({ "peer": p, "detail": text }),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use megaco::model::*;
    use megaco_stack::build;

    /// A report says every count it holds: none is left out of the line.
    #[test]
    fn a_drop_report_names_every_count() {
        let setters: [fn(&mut DropReport); 10] = [
            |r| r.errors_rate_limited = 7,
            |r| r.storms_suppressed = 7,
            |r| r.decode_errors = 7,
            |r| r.unproven_evicted = 7,
            |r| r.unproven_expired = 7,
            |r| r.peers_refused = 7,
            |r| r.peers_evicted = 7,
            |r| r.duplicates_dropped = 7,
            |r| r.replies_shed = 7,
            |r| r.remembered_shed = 7,
        ];
        let mut texts = Vec::new();
        for set in setters {
            let mut r = DropReport::default();
            set(&mut r);
            let text = drop_report(&r);
            assert!(text.starts_with("7 "), "{text:?}");
            texts.push(text);
        }
        texts.sort();
        texts.dedup();
        assert_eq!(texts.len(), 10);
    }

    #[test]
    fn unexpected_replies_are_shown_a_few_a_peer_then_counted() {
        let a: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:2".parse().unwrap();
        let mut u = Unexpected::default();
        let shown = (0..1000).filter(|_| u.note(a)).count();
        assert_eq!(shown, UNEXPECTED_SHOWN as usize);
        assert!(u.note(b), "another peer has its own share");
        assert_eq!(u.take(), (vec![(a, 1000 - u64::from(UNEXPECTED_SHOWN))], 0));
        // A new interval shows some again, and reports nothing for a peer
        // all of whose replies were shown.
        assert!(u.note(a));
        assert_eq!(u.take(), (vec![], 0));
        // The peers counted one by one are bounded; the others together.
        for port in 0..UNEXPECTED_PEERS as u16 + 10 {
            u.note(SocketAddr::from(([127, 0, 0, 1], port)));
        }
        assert_eq!(u.peers.len(), UNEXPECTED_PEERS);
        assert_eq!(u.take(), (vec![], 10));
        assert!(u.peers.is_empty());
    }

    /// The responders of all peers hold at most so many terminations
    /// together; a Subtract makes room again.
    #[test]
    fn responders_hold_a_bounded_number_of_terminations_together() {
        let add = |n: u32| {
            vec![build::action(
                ContextId::CHOOSE,
                Command::Add(AmmRequest {
                    termination_ids: vec![TerminationId::new(format!("rtp/{n}"))].into(),
                    ..Default::default()
                }),
            )]
        };
        let answered = |a: &Answer| match &a.reply {
            Some(TransactionResult::ActionReplies(r)) => {
                r.iter().all(|r| r.error_descriptor.is_none())
            }
            _ => false,
        };
        let (mut a, mut b) = (
            Responder::new(Role::Mg, Vec::new()),
            Responder::new(Role::Mg, Vec::new()),
        );
        let mut held = 0;
        let style = TermIdStyle::Text;
        for n in 0..3 {
            assert!(answered(&answer_within(
                &mut a,
                &mut held,
                5,
                &add(n),
                1,
                style
            )));
        }
        for n in 3..5 {
            assert!(answered(&answer_within(
                &mut b,
                &mut held,
                5,
                &add(n),
                1,
                style
            )));
        }
        assert_eq!(held, 5);
        // Full: neither can add, though each alone could.
        let refused = answer_within(&mut a, &mut held, 5, &add(9), 1, style);
        assert!(!answered(&refused), "added beyond the total");
        assert!(!answered(&answer_within(
            &mut b,
            &mut held,
            5,
            &add(9),
            1,
            style
        )));
        // A Subtract of one of a's contexts makes room for one more.
        let (ctx, _) = a.contexts().next().unwrap();
        let subtract = vec![build::action(
            ctx,
            Command::Subtract(SubtractRequest {
                termination_ids: vec![TerminationId::new("rtp/0")].into(),
                audit_descriptor: None,
            }),
        )];
        assert!(answered(&answer_within(
            &mut a, &mut held, 5, &subtract, 1, style
        )));
        assert_eq!(held, 4);
        assert!(answered(&answer_within(
            &mut b,
            &mut held,
            5,
            &add(9),
            1,
            style
        )));
        assert_eq!(held, 5);
    }

    /// A flood of replies to nothing outstanding from one peer is a few
    /// lines and a count, not a line each.
    #[test]
    fn a_flood_of_unexpected_replies_is_logged_in_a_few_lines() {
        let (log, writer, kept) = super::super::log::kept();
        let mut server = Server::new(log.clone(), Arc::default(), Role::Mg, Vec::new(), 4);
        let (a, b): (SocketAddr, SocketAddr) = (
            "127.0.0.1:1".parse().unwrap(),
            "127.0.0.1:2".parse().unwrap(),
        );
        let reply = |transaction_id| Event::UnexpectedReply {
            transaction_id,
            result: TransactionResult::ActionReplies(vec![].into()),
        };
        for id in 0..1000 {
            server.event(a, &reply(id));
        }
        server.event(b, &reply(1));
        server.report(Duration::from_secs(10));
        server.event(a, &reply(1000));
        log.flush(Duration::from_secs(5));
        let text = String::from_utf8(kept.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let shown = UNEXPECTED_SHOWN as usize;
        assert_eq!(lines.len(), shown + 3, "{text}");
        assert!(lines[shown - 1].ends_with("reply 4 to no outstanding request (ignored)"));
        assert!(lines[shown].contains("127.0.0.1:2 reply 1 "), "{text}");
        let more = format!(
            "<- {} more replies from 127.0.0.1:1 to no outstanding request in the last 10 s (ignored)",
            1000 - shown
        );
        assert!(lines[shown + 1].ends_with(&more), "{text}");
        assert!(lines[shown + 2].ends_with("reply 1000 to no outstanding request (ignored)"));
        writer.finish(log, Duration::from_secs(1));
    }
}
