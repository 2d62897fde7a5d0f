//! Answering requests: the scenario's rules first, then the defaults of a
//! simulated MGC or MG, which keep the contexts and terminations they
//! hand out.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use megaco::model::*;

use super::rules::{terminations, CommandKind, ErrorScope, Reply, Rule};

/// Which side the defaults play.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// A controller: a ServiceChange is accepted with this mid as MgcId
    /// (as Erlang/OTP's example MGC answers), and a ServiceChangeVersion
    /// offered is answered with the lower of it and `max_version`, and 1
    /// at least (H.248.1 section 11.3, as the stack negotiates it), so
    /// that the reply shown is the reply sent and the version it names is
    /// the one used.
    Mgc {
        /// Our mid.
        mid: Mid,
        /// The highest protocol version we speak.
        max_version: u8,
    },
    /// A gateway: a ServiceChange from the controller is accepted plainly.
    Mg,
}

/// How termination ids chosen for `$` are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermIdStyle {
    /// Text: a `$` level becomes a number (`rtp/$` → `rtp/1`), a bare `$`
    /// becomes `rtp/N`.
    Text,
    /// BER and PER with the default mapping: three levels of 8 bits
    /// (`$` → `00000000/00000000/00000001`, `11111111/$` →
    /// `11111111/00000000/00000001`).
    Binary,
}

/// How to answer one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The reply; `None` when a rule says not to answer.
    pub reply: Option<TransactionResult>,
    /// Send a TransactionPending at once and the reply this long after.
    pub pending: Option<Duration>,
    /// Send the reply this long after the request came.
    pub delay: Option<Duration>,
}

/// How many numbers a `$` termination id may try before it finds one
/// that no context holds; beyond, the Add gets error 510. Ids a peer
/// added by name can take the numbers `$` would give (`rtp/5`), and a
/// binary level of 8 bits has 256 of them: the search is bounded so that
/// an Add costs the same whatever the peer holds.
const CHOICE_TRIES: usize = 64;

/// What each termination added allows a wildcard Subtract on every
/// context (`C=*{S=rtp/*}`) to look at later. Such a Subtract looks at
/// every termination held, and one that matches nothing takes nothing
/// away, so it could be repeated at the cost of a few bytes each: this
/// bounds the searching to a constant times the terminations ever added
/// (a peer that has used it up gets error 510).
const SCAN_CREDIT: u64 = 64;

/// Bounds of what a [`Responder`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// Contexts at once; an Add on `$` beyond gets error 510
    /// ("Insufficient resources").
    pub contexts: usize,
    /// Terminations in one context; an Add beyond gets error 510.
    pub terminations_per_context: usize,
    /// Bytes of termination ids held in all (the sum of their lengths);
    /// an Add or Move beyond gets error 510. Each id is kept twice (in its
    /// context and in the index that finds it), so the memory is about
    /// twice this, besides a fixed cost per termination.
    ///
    /// The default, 16 MiB, holds the 640,000 terminations the other
    /// defaults allow when their ids are as long as the longest the
    /// defaults hand out (26 bytes: `00000000/00000000/00000001`), so it
    /// is not reached before the counts with ids such as a gateway gives;
    /// it keeps long ids (text allows any length) from multiplying what a
    /// peer can make us hold, bytes for bytes sent.
    pub termination_bytes: usize,
}

impl Default for Capacity {
    fn default() -> Self {
        Capacity {
            contexts: 10_000,
            terminations_per_context: 64,
            termination_bytes: 16 << 20,
        }
    }
}

/// Answers requests: the first matching [`Rule`] of a scenario decides
/// how, and the defaults do the rest. One per peer (context ids belong to
/// a peer).
///
/// The defaults answer every command of H.248.1: Add on context `$` gets
/// a new context id and a `$` termination a new id, one no context holds
/// (kept until Subtract);
/// Add or Move to an unknown context gets error 411, Add of a termination
/// already in a context 433, Subtract of one not in the context 430;
/// Subtract, Move, Modify, AuditValue, AuditCapabilities, Notify and
/// ServiceChange get well-formed replies (AuditValue of `*` in a context
/// lists its terminations). A `$` in the Local SDP of an Add or Modify
/// (`c=IN IP4 $`, `m=audio $ RTP/AVP 0`) is filled in and returned.
///
/// What it keeps is bounded ([`Capacity`]), and so is the work of a
/// command: the context of a termination is found at once, whatever the
/// peer holds, and a wildcard Subtract on every context (`C=*{S=rtp/*}`),
/// which looks at every termination held, is allowed 64 looks for each
/// termination ever added (beyond, error 510; `C=*{S=*}` always goes).
///
/// ```
/// use megaco::model::*;
/// use megaco_stack::scenario::{Responder, Role, TermIdStyle};
///
/// let mut mg = Responder::new(Role::Mg, Vec::new());
/// let add = megaco_stack::build::action(ContextId::CHOOSE, Command::Add(AmmRequest {
///     termination_ids: vec![TerminationId::new("rtp/$")].into(),
///     descriptors: vec![],
/// }));
/// let answer = mg.answer(&[add], 1, TermIdStyle::Text);
/// let Some(TransactionResult::ActionReplies(r)) = answer.reply else { panic!() };
/// assert_eq!(r[0].context_id, ContextId(1));
/// let CommandReply::Add(a) = &r[0].command_reply[0] else { panic!() };
/// assert_eq!(a.termination_ids[0].as_str(), "rtp/1");
/// assert_eq!(mg.contexts().count(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct Responder {
    role: Role,
    rules: Arc<[Rule]>,
    used: Vec<u64>,
    capacity: Capacity,
    contexts: BTreeMap<u32, Vec<TerminationId>>,
    /// The context of each termination held, kept in step with
    /// `contexts`: a termination is in one context at most.
    index: HashMap<Key, u32>,
    /// Terminations a wildcard Subtract on every context (`C=*`) may
    /// still look at: [`SCAN_CREDIT`] for each termination added.
    scan_credit: u64,
    /// The sum of the lengths of the termination ids held.
    bytes: usize,
    next_context: u32,
    next_termination: u64,
    /// The version of the message being answered.
    request_version: u8,
    /// Terminations looked at by searches so far (a cost the tests bound).
    examined: u64,
}

/// What a request does beyond its action replies.
#[derive(Default)]
struct Effects {
    no_answer: bool,
    transaction_error: Option<ErrorDescriptor>,
    pending: Option<Duration>,
    delay: Option<Duration>,
}

fn error(code: u16, text: &str) -> ErrorDescriptor {
    ErrorDescriptor {
        error_code: code,
        error_text: Some(text.into()),
    }
}

impl Responder {
    /// A responder playing `role`, applying `rules` before the defaults.
    pub fn new(role: Role, rules: impl Into<Arc<[Rule]>>) -> Self {
        let rules = rules.into();
        Responder {
            role,
            used: vec![0; rules.len()],
            rules,
            capacity: Capacity::default(),
            contexts: BTreeMap::new(),
            index: HashMap::new(),
            scan_credit: 0,
            bytes: 0,
            next_context: 1,
            next_termination: 1,
            request_version: 1,
            examined: 0,
        }
    }

    /// Sets the bounds of what it keeps.
    pub fn with_capacity(mut self, capacity: Capacity) -> Self {
        self.capacity = capacity;
        self
    }

    /// Changes the bounds of what it keeps; what it holds beyond them
    /// stays (it is only refused more).
    pub fn set_capacity(&mut self, capacity: Capacity) {
        self.capacity = capacity;
    }

    /// How many terminations it holds, in all its contexts.
    pub fn terminations(&self) -> usize {
        self.index.len()
    }

    /// The contexts it has handed out, with their terminations.
    pub fn contexts(&self) -> impl Iterator<Item = (ContextId, &[TerminationId])> {
        self.contexts
            .iter()
            .map(|(c, t)| (ContextId(*c), t.as_slice()))
    }

    /// How to answer a request of `actions` that came in a message of
    /// protocol `version` (what a ServiceChange offers when it names no
    /// ServiceChangeVersion).
    pub fn answer(&mut self, actions: &[ActionRequest], version: u8, style: TermIdStyle) -> Answer {
        self.request_version = version;
        let mut fx = Effects::default();
        let replies: Vec<ActionReply> = actions
            .iter()
            .map(|a| self.action(a, style, &mut fx))
            .collect();
        let reply = if fx.no_answer {
            None
        } else if let Some(e) = fx.transaction_error {
            Some(TransactionResult::Error(e))
        } else {
            Some(TransactionResult::ActionReplies(replies.into()))
        };
        Answer {
            reply,
            pending: fx.pending,
            delay: fx.delay,
        }
    }

    /// The first rule for `command` still in force, counted as used.
    fn rule_for(&mut self, command: &Command) -> Option<Rule> {
        let i =
            self.rules.iter().enumerate().position(|(i, r)| {
                r.times.is_none_or(|n| self.used[i] < n) && r.matches(command)
            })?;
        self.used[i] += 1;
        Some(self.rules[i].clone())
    }

    fn action(&mut self, a: &ActionRequest, style: TermIdStyle, fx: &mut Effects) -> ActionReply {
        let mut reply = ActionReply {
            context_id: a.context_id,
            error_descriptor: None,
            context_reply: None,
            command_reply: Vec::with_capacity(a.command_requests.len()).into(),
        };
        for c in &a.command_requests {
            let rule = self.rule_for(&c.command);
            let mut descriptors = Vec::new();
            if let Some(rule) = &rule {
                fx.pending = fx.pending.max(rule.pending);
                fx.delay = fx.delay.max(rule.delay);
                match &rule.reply {
                    Reply::None => fx.no_answer = true,
                    Reply::Error { code, text, scope } => {
                        let e = ErrorDescriptor {
                            error_code: *code,
                            error_text: text.as_deref().map(Into::into),
                        };
                        match scope {
                            ErrorScope::Transaction => fx.transaction_error = Some(e),
                            ErrorScope::Context => reply.error_descriptor = Some(e),
                            ErrorScope::Command => {
                                reply.command_reply.push(command_error(&c.command, e))
                            }
                        }
                        break;
                    }
                    Reply::Answer { descriptors: d } => descriptors = d.clone(),
                }
            }
            match self.command(&mut reply.context_id, &c.command, style, descriptors) {
                Ok(r) => reply.command_reply.push(r),
                Err(Failure::Context(e)) => {
                    reply.error_descriptor = Some(e);
                    break;
                }
                Err(Failure::Command(e)) => {
                    reply.command_reply.push(command_error(&c.command, e));
                    break;
                }
            }
        }
        // A context this action made and left empty (its Add failed) is
        // not kept.
        let made = a.context_id == ContextId::CHOOSE && reply.context_id != ContextId::CHOOSE;
        if made
            && self
                .contexts
                .get(&reply.context_id.0)
                .is_some_and(Vec::is_empty)
        {
            self.contexts.remove(&reply.context_id.0);
            reply.context_id = ContextId::CHOOSE;
        }
        reply
    }

    /// Executes one command on `ctx` (a `$` becomes the new context's id).
    fn command(
        &mut self,
        ctx: &mut ContextId,
        command: &Command,
        style: TermIdStyle,
        descriptors: Vec<AuditReturnParameter>,
    ) -> Result<CommandReply, Failure> {
        let audit = |mut d: Vec<AuditReturnParameter>, extra: Option<AuditReturnParameter>| {
            d.extend(extra);
            (!d.is_empty()).then_some(d)
        };
        Ok(match command {
            Command::Add(r) => {
                let ids = self.add(ctx, &r.termination_ids, style)?;
                let local = filled_local(&r.descriptors, self.next_termination);
                CommandReply::Add(AmmsReply {
                    termination_ids: ids.into(),
                    termination_audit: audit(descriptors, local),
                })
            }
            Command::Move(r) => {
                self.relocate(ctx, &r.termination_ids)?;
                CommandReply::Move(AmmsReply {
                    termination_ids: r.termination_ids.clone(),
                    termination_audit: audit(descriptors, None),
                })
            }
            Command::Modify(r) => {
                self.known(*ctx)?;
                let local = filled_local(&r.descriptors, self.next_termination);
                CommandReply::Modify(AmmsReply {
                    termination_ids: r.termination_ids.clone(),
                    termination_audit: audit(descriptors, local),
                })
            }
            Command::Subtract(r) => {
                self.subtract(*ctx, &r.termination_ids)?;
                CommandReply::Subtract(AmmsReply {
                    termination_ids: r.termination_ids.clone(),
                    termination_audit: audit(descriptors, None),
                })
            }
            Command::AuditValue(r) | Command::AuditCapability(r) => {
                self.known(*ctx)?;
                let held = self.contexts.get(&ctx.0);
                let result = match held {
                    Some(t) if r.termination_id.as_str() == "*" && descriptors.is_empty() => {
                        AuditReply::ContextAuditResult(t.clone())
                    }
                    _ => AuditReply::AuditResult(AuditResult {
                        termination_id: r.termination_id.clone(),
                        termination_audit_result: descriptors,
                    }),
                };
                if matches!(command, Command::AuditValue(_)) {
                    CommandReply::AuditValue(result)
                } else {
                    CommandReply::AuditCapability(result)
                }
            }
            Command::Notify(n) => CommandReply::Notify(NotifyReply {
                termination_ids: n.termination_ids.clone(),
                error_descriptor: None,
            }),
            Command::ServiceChange(sc) => {
                let mut parms = crate::build::service_change_res_parm(None);
                if let Role::Mgc { mid, max_version } = &self.role {
                    let max_version = *max_version;
                    parms.service_change_mgc_id = Some(mid.clone());
                    if sc.termination_ids.iter().any(TerminationId::is_root) {
                        // A gateway restarting as a whole (cold or warm
                        // boot) has no contexts left: neither do we, for it.
                        if sc.service_change_parms.service_change_method
                            == ServiceChangeMethod::Restart
                        {
                            self.clear();
                        }
                        let offered = sc
                            .service_change_parms
                            .service_change_version
                            .unwrap_or(self.request_version);
                        // Versions start at 1: a 0 offered is settled
                        // as 1 by the stack, and said so.
                        parms.service_change_version = Some(offered.clamp(1, max_version.max(1)));
                    }
                }
                CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                    termination_ids: sc.termination_ids.clone(),
                    service_change_result: ServiceChangeResult::ServiceChangeResParms(parms),
                }))
            }
            _ => return Err(Failure::Context(error(501, "Not Implemented"))),
        })
    }

    /// Fails with 411 unless `ctx` is the null context, a wildcard or one
    /// we hold.
    fn known(&self, ctx: ContextId) -> Result<(), Failure> {
        if ctx == ContextId::NULL
            || ctx == ContextId::ALL
            || ctx == ContextId::CHOOSE
            || self.contexts.contains_key(&ctx.0)
        {
            Ok(())
        } else {
            Err(unknown_context(ctx))
        }
    }

    /// The context an Add or Move goes to: a new one for `$`.
    fn target(&mut self, ctx: &mut ContextId) -> Result<u32, Failure> {
        if *ctx == ContextId::CHOOSE {
            if self.contexts.len() >= self.capacity.contexts {
                return Err(Failure::Context(error(510, "Insufficient resources")));
            }
            while self.contexts.contains_key(&self.next_context) || self.next_context == 0 {
                self.next_context = self.next_context.wrapping_add(1) % ContextId::CHOOSE.0;
            }
            let id = self.next_context;
            self.next_context = self.next_context.wrapping_add(1) % ContextId::CHOOSE.0;
            self.contexts.insert(id, Vec::new());
            *ctx = ContextId(id);
            return Ok(id);
        }
        if self.contexts.contains_key(&ctx.0) {
            Ok(ctx.0)
        } else {
            Err(unknown_context(*ctx))
        }
    }

    fn add(
        &mut self,
        ctx: &mut ContextId,
        ids: &[TerminationId],
        style: TermIdStyle,
    ) -> Result<Vec<TerminationId>, Failure> {
        let c = self.target(ctx)?;
        let mut out = Vec::with_capacity(ids.len());
        for t in ids {
            let id = if t.as_str().contains('$') {
                self.fresh(t, style)?
            } else {
                if self.context_of(t).is_some() {
                    return Err(Failure::Command(error(
                        433,
                        "TerminationID is already in a Context",
                    )));
                }
                t.clone()
            };
            self.put(c, id.clone())?;
            out.push(id);
        }
        Ok(out)
    }

    /// A new id for `t` (which holds `$`), one no context holds: the next
    /// number, or one of the [`CHOICE_TRIES`] after it when ids were added
    /// by name (or the numbers of a binary level wrapped around).
    fn fresh(&mut self, t: &TerminationId, style: TermIdStyle) -> Result<TerminationId, Failure> {
        for _ in 0..CHOICE_TRIES {
            let n = self.next_termination;
            self.next_termination = self.next_termination.wrapping_add(1);
            let id = choose(t, n, style);
            if self.context_of(&id).is_none() {
                return Ok(id);
            }
        }
        Err(Failure::Command(error(510, "Insufficient resources")))
    }

    fn relocate(&mut self, ctx: &mut ContextId, ids: &[TerminationId]) -> Result<(), Failure> {
        let c = self.target(ctx)?;
        for t in ids {
            if let Some(old) = self.context_of(t) {
                self.remove(old, t);
            }
            self.put(c, t.clone())?;
        }
        Ok(())
    }

    fn subtract(&mut self, ctx: ContextId, ids: &[TerminationId]) -> Result<(), Failure> {
        if ctx == ContextId::NULL || ctx == ContextId::CHOOSE {
            return Err(Failure::Context(error(
                422,
                "Syntax Error in Action: Subtract needs a context",
            )));
        }
        let contexts: Vec<u32> = if ctx == ContextId::ALL {
            self.contexts.keys().copied().collect()
        } else if self.contexts.contains_key(&ctx.0) {
            vec![ctx.0]
        } else {
            return Err(unknown_context(ctx));
        };
        for t in ids {
            let mut found = false;
            if !t.as_str().contains('*') {
                // One id: where it is, if in one of `contexts`.
                if let Some(c) = self.context_of(t).filter(|c| contexts.contains(c)) {
                    self.remove(c, t);
                    found = true;
                }
            } else {
                if contexts.len() > 1 && t.as_str() != "*" {
                    // Every termination held is looked at: paid for by
                    // the Adds that made them (`*` takes them all away).
                    let all = self.index.len() as u64;
                    if all > self.scan_credit {
                        return Err(Failure::Command(error(510, "Insufficient resources")));
                    }
                    self.scan_credit -= all;
                }
                let pattern = super::rules::Pattern::new(t.as_str());
                for &c in &contexts {
                    let held = self.contexts.get(&c).map(Vec::as_slice).unwrap_or_default();
                    self.examined += held.len() as u64;
                    let hits: Vec<TerminationId> = held
                        .iter()
                        .filter(|h| t.as_str() == "*" || pattern.matches(h.as_str()))
                        .cloned()
                        .collect();
                    found |= !hits.is_empty();
                    for h in hits {
                        self.remove(c, &h);
                    }
                }
            }
            if !found {
                return Err(Failure::Command(if t.has_wildcard() {
                    error(431, "No TerminationID matched a wildcard")
                } else {
                    error(430, "Unknown TerminationID")
                }));
            }
        }
        Ok(())
    }

    /// The context holding `t` (ids compare ignoring case).
    fn context_of(&self, t: &TerminationId) -> Option<u32> {
        self.index.get(&Key(t.clone())).copied()
    }

    /// Puts `t` (held nowhere) into context `c`, unless `c` is full or
    /// its id does not fit in what we keep.
    fn put(&mut self, c: u32, t: TerminationId) -> Result<(), Failure> {
        let len = t.as_str().len();
        let held = self.contexts.entry(c).or_default();
        if held.len() >= self.capacity.terminations_per_context
            || self.bytes.saturating_add(len) > self.capacity.termination_bytes
        {
            return Err(Failure::Command(error(510, "Insufficient resources")));
        }
        held.push(t.clone());
        self.bytes += len;
        self.index.insert(Key(t), c);
        self.scan_credit = self.scan_credit.saturating_add(SCAN_CREDIT);
        Ok(())
    }

    /// Takes `t` out of context `c`, deleting the context when it is
    /// left empty.
    fn remove(&mut self, c: u32, t: &TerminationId) {
        if let Some(held) = self.contexts.get_mut(&c) {
            self.examined += held.len() as u64;
            let before = held.len();
            held.retain(|h| !h.as_str().eq_ignore_ascii_case(t.as_str()));
            if held.len() < before {
                self.index.remove(&Key(t.clone()));
                self.bytes -= t.as_str().len();
            }
            if held.is_empty() {
                self.contexts.remove(&c);
            }
        }
    }

    /// Forgets every context (a gateway's restart).
    fn clear(&mut self) {
        self.contexts.clear();
        self.index.clear();
        self.bytes = 0;
    }
}

enum Failure {
    Context(ErrorDescriptor),
    Command(ErrorDescriptor),
}

fn unknown_context(ctx: ContextId) -> Failure {
    Failure::Context(error(
        411,
        &format!("The transaction refers to an unknown ContextId ({})", ctx.0),
    ))
}

/// The reply of `command` carrying error `e`.
fn command_error(command: &Command, e: ErrorDescriptor) -> CommandReply {
    let ids = terminations(command).to_vec();
    let amms = AmmsReply {
        termination_ids: ids.clone().into(),
        termination_audit: Some(vec![AuditReturnParameter::Error(e.clone())]),
    };
    match CommandKind::of(command) {
        CommandKind::Add => CommandReply::Add(amms),
        CommandKind::Move => CommandReply::Move(amms),
        CommandKind::Modify => CommandReply::Modify(amms),
        CommandKind::Subtract => CommandReply::Subtract(amms),
        CommandKind::AuditValue => CommandReply::AuditValue(AuditReply::Error(e)),
        CommandKind::AuditCapabilities | CommandKind::Any => {
            CommandReply::AuditCapability(AuditReply::Error(e))
        }
        CommandKind::Notify => CommandReply::Notify(NotifyReply {
            termination_ids: ids.into(),
            error_descriptor: Some(e),
        }),
        CommandKind::ServiceChange => CommandReply::ServiceChange(Box::new(ServiceChangeReply {
            termination_ids: ids.into(),
            service_change_result: ServiceChangeResult::ErrorDescriptor(e),
        })),
    }
}

/// A termination id as the index keeps it: equal and hashed ignoring
/// ASCII case, as ids compare.
#[derive(Debug, Clone)]
struct Key(TerminationId);

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str().eq_ignore_ascii_case(other.0.as_str())
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // In lower case, a run of bytes at a time.
        let mut buf = [0u8; 64];
        for run in self.0.as_str().as_bytes().chunks(buf.len()) {
            let lower = &mut buf[..run.len()];
            lower.copy_from_slice(run);
            lower.make_ascii_lowercase();
            state.write(lower);
        }
        state.write_u8(0xff);
    }
}

/// A concrete id for a termination id holding `$`, numbered `n`.
fn choose(t: &TerminationId, n: u64, style: TermIdStyle) -> TerminationId {
    let levels: Vec<&str> = t.levels().collect();
    let binary = style == TermIdStyle::Binary
        || (levels.len() > 1
            && levels[..levels.len() - 1]
                .iter()
                .all(|l| !l.is_empty() && l.bytes().all(|b| b == b'0' || b == b'1')));
    if binary {
        // Three levels of 8 bits: fixed levels kept, the rest hold n.
        let fixed: Vec<&str> = levels
            .iter()
            .take_while(|l| !l.contains('$'))
            .copied()
            .collect();
        let free = 3usize.saturating_sub(fixed.len()).max(1);
        let bits = format!("{:0w$b}", n % (1u64 << (8 * free)), w = 8 * free);
        let mut parts: Vec<String> = fixed.iter().map(|l| l.to_string()).collect();
        parts.extend(
            bits.as_bytes()
                .chunks(8)
                .map(|c| String::from_utf8_lossy(c).into_owned()),
        );
        return TerminationId::new(parts.join("/"));
    }
    if t.as_str() == "$" {
        return TerminationId::new(format!("rtp/{n}"));
    }
    TerminationId::new(
        t.as_str()
            .replacen('$', &n.to_string(), 1)
            .replace('$', "0"),
    )
}

/// The Local descriptors of `descriptors`' Media with every `$` value
/// filled in (address 127.0.0.1, an even port from 49152 up), if any had
/// one: what a gateway returns for `c=IN IP4 $` and `m=audio $ RTP/AVP 0`.
fn filled_local(descriptors: &[AmmDescriptor], n: u64) -> Option<AuditReturnParameter> {
    let port = 49152 + (n % 8192) * 2;
    let mut media = None;
    for d in descriptors {
        let AmmDescriptor::Media(m) = d else { continue };
        let mut m = m.clone();
        let mut filled = false;
        let streams: Vec<&mut StreamParms> = match &mut m.streams {
            Some(Streams::OneStream(p)) => vec![p],
            Some(Streams::MultiStream(s)) => s.iter_mut().map(|s| &mut s.stream_parms).collect(),
            None => vec![],
        };
        for p in streams {
            p.remote_descriptor = None;
            p.local_control_descriptor = None;
            p.statistics_descriptor = None;
            let Some(local) = &mut p.local_descriptor else {
                continue;
            };
            for group in &mut local.prop_grps {
                for prop in group.iter_mut() {
                    for v in prop.value.iter_mut() {
                        if v.contains('$') {
                            let with = if prop.name == "m" {
                                port.to_string()
                            } else {
                                "127.0.0.1".into()
                            };
                            *v = v.replace('$', &with).into();
                            filled = true;
                        }
                    }
                }
            }
        }
        if filled {
            m.term_state_descr = None;
            media = Some(AuditReturnParameter::Media(m));
        }
    }
    media
}

#[cfg(test)]
mod tests;
