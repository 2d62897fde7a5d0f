//! MG scripts: a sequence of requests to send, waits, and requests to
//! wait for, each checked against what it expects. Sans-IO: the caller
//! sends, sleeps and receives; the script says what to do next and judges
//! what came back.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use megaco::model::*;

use super::rules::{terminations, CommandKind, Pattern};
use super::text;

/// One step of a script.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Send a request and check its reply.
    Send(SendStep),
    /// Do nothing for this long.
    Wait(Duration),
    /// Wait for a request from the peer (answered by the rules and
    /// defaults, as any other).
    Receive(ReceiveStep),
}

/// A request to send and what its reply must be.
#[derive(Debug, Clone, PartialEq)]
pub struct SendStep {
    /// A name for messages.
    pub name: Option<String>,
    /// The transaction's actions in text (`Context = … { … }`), with
    /// `${name}` variables saved by earlier steps.
    pub actions: String,
    /// What the reply must be.
    pub expect: Expect,
    /// Text the reply, written as one line of compact text, must contain.
    pub contains: Option<String>,
    /// Values to save from the reply, by variable name.
    pub save: Vec<(String, Capture)>,
    /// How long to wait for the reply (the caller's default otherwise).
    pub timeout: Option<Duration>,
}

/// What a reply must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A reply without any error descriptor.
    Ok,
    /// A reply carrying an error descriptor (of this code, if given).
    Error(Option<u16>),
    /// Any reply.
    Any,
    /// No reply within the timeout.
    NoReply,
}

/// A value taken from a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    /// The context id of the first action reply (`7`).
    Context,
    /// The first termination id of the `n`-th command reply (from 0) of
    /// the first action reply.
    Termination(usize),
}

/// A request to wait for.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceiveStep {
    /// A name for messages.
    pub name: Option<String>,
    /// The command the request must carry.
    pub command: CommandKind,
    /// Its termination id pattern.
    pub termination: Option<Pattern>,
    /// How long to wait (the caller's default otherwise).
    pub timeout: Option<Duration>,
}

/// What the caller does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Send a request of these actions, then call [`Script::replied`] or
    /// [`Script::no_reply`].
    Send {
        /// The actions, variables filled in.
        actions: Vec<ActionRequest>,
        /// The step's own timeout.
        timeout: Option<Duration>,
    },
    /// Sleep this long, then call [`Script::next_step`] again.
    Wait(Duration),
    /// Answer incoming requests, feeding each to [`Script::received`],
    /// until it returns true; [`Script::receive_timed_out`] when none came.
    Receive {
        /// The step's own timeout.
        timeout: Option<Duration>,
    },
    /// The script has run to its end: it passed.
    Done,
}

/// Why a script failed: the step and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The step, from 1.
    pub step: usize,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// What went wrong.
    pub reason: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(n) => write!(f, "step {} ({n}): {}", self.step, self.reason),
            None => write!(f, "step {}: {}", self.step, self.reason),
        }
    }
}

impl std::error::Error for Failure {}

/// A running MG script.
///
/// ```
/// use megaco::model::*;
/// use megaco_stack::scenario::{Next, Scenario, Script};
///
/// let scenario = Scenario::parse(r#"
///     [[step]]
///     send = "Context = $ { Add = rtp/$ }"
///     save = { ctx = "context", rtp = "termination" }
///     [[step]]
///     send = "Context = ${ctx} { Subtract = ${rtp} }"
/// "#)?;
/// let mut script = Script::new(scenario.steps);
/// let Next::Send { actions, .. } = script.next_step()? else { panic!() };
/// assert_eq!(actions[0].context_id, ContextId::CHOOSE);
/// // The peer answers with context 7 and termination rtp/1.
/// let reply = megaco_stack::build::action_reply(ContextId(7), CommandReply::Add(AmmsReply {
///     termination_ids: vec![TerminationId::new("rtp/1")].into(),
///     termination_audit: None,
/// }));
/// script.replied(&TransactionResult::ActionReplies(vec![reply].into()))?;
/// let Next::Send { actions, .. } = script.next_step()? else { panic!() };
/// assert_eq!(actions[0].context_id, ContextId(7));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Script {
    steps: Arc<[Step]>,
    pos: usize,
    repeat: u64,
    round: u64,
    vars: HashMap<String, String>,
}

impl Script {
    /// A script of `steps`, run once.
    pub fn new(steps: impl Into<Arc<[Step]>>) -> Self {
        Script {
            steps: steps.into(),
            pos: 0,
            repeat: 1,
            round: 0,
            vars: HashMap::new(),
        }
    }

    /// Runs the steps `times` times over (0: until stopped); variables
    /// carry over from one round to the next.
    pub fn repeat(mut self, times: u64) -> Self {
        self.repeat = times;
        self
    }

    /// How many steps have passed, over all rounds.
    pub fn passed(&self) -> u64 {
        self.round * self.steps.len() as u64 + self.pos as u64
    }

    /// A variable's value (saved from a reply, or set with [`Script::set`]).
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// Sets a variable for later steps.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        self.vars.insert(name.to_string(), value.into());
    }

    fn current(&self) -> Option<&Step> {
        self.steps.get(self.pos)
    }

    fn fail(&self, reason: impl Into<String>) -> Failure {
        let name = match self.current() {
            Some(Step::Send(s)) => s.name.clone(),
            Some(Step::Receive(r)) => r.name.clone(),
            _ => None,
        };
        Failure {
            step: self.pos + 1,
            name,
            reason: reason.into(),
        }
    }

    fn advance(&mut self) {
        self.pos += 1;
        if self.pos == self.steps.len() {
            self.round += 1;
            if self.repeat == 0 || self.round < self.repeat {
                self.pos = 0;
            }
        }
    }

    /// What to do now.
    pub fn next_step(&mut self) -> Result<Next, Failure> {
        let Some(step) = self.current().cloned() else {
            return Ok(Next::Done);
        };
        match step {
            Step::Wait(d) => {
                self.advance();
                Ok(Next::Wait(d))
            }
            Step::Receive(r) => Ok(Next::Receive { timeout: r.timeout }),
            Step::Send(s) => {
                let body = text::substitute(&s.actions, &self.vars).map_err(|e| self.fail(e))?;
                let actions = text::parse_actions(&body).map_err(|e| self.fail(e))?;
                Ok(Next::Send {
                    actions,
                    timeout: s.timeout,
                })
            }
        }
    }

    /// The reply to the request of the current step came.
    pub fn replied(&mut self, result: &TransactionResult) -> Result<(), Failure> {
        let Some(Step::Send(s)) = self.current().cloned() else {
            return Err(self.fail("a reply came while no request was outstanding"));
        };
        let errors = super::reply_errors(result);
        let first = errors.first().map(|e| describe(e));
        match (s.expect, first) {
            (Expect::Ok, Some(e)) => {
                return Err(self.fail(format!("expected a reply without error, got {e}")))
            }
            (Expect::Error(_), None) => {
                return Err(self.fail("expected an error reply, got a reply without error"))
            }
            (Expect::Error(Some(code)), Some(_))
                if !errors.iter().any(|e| e.error_code == code) =>
            {
                let got: Vec<String> = errors.iter().map(|e| describe(e)).collect();
                return Err(self.fail(format!("expected error {code}, got {}", got.join(", "))));
            }
            (Expect::NoReply, _) => return Err(self.fail("expected no reply, got one")),
            _ => {}
        }
        if let Some(want) = &s.contains {
            let line = super::compact_line(result);
            if !line.contains(want.as_str()) {
                return Err(self.fail(format!("the reply does not contain {want:?}: {line}")));
            }
        }
        for (name, capture) in &s.save {
            let value = capture_value(result, *capture).ok_or_else(|| {
                self.fail(format!(
                    "the reply has no {} to save as `{name}`",
                    capture_name(*capture)
                ))
            })?;
            self.vars.insert(name.clone(), value);
        }
        self.advance();
        Ok(())
    }

    /// The request of the current step got no reply.
    pub fn no_reply(&mut self, why: &str) -> Result<(), Failure> {
        match self.current() {
            Some(Step::Send(s)) if s.expect == Expect::NoReply => {
                self.advance();
                Ok(())
            }
            _ => Err(self.fail(format!("no reply: {why}"))),
        }
    }

    /// A request came from the peer; true when it is the one the current
    /// [`Next::Receive`] step waits for (the script then moves on).
    pub fn received(&mut self, actions: &[ActionRequest]) -> bool {
        let Some(Step::Receive(r)) = self.current() else {
            return false;
        };
        let hit = actions.iter().flat_map(|a| &a.command_requests).any(|c| {
            (r.command == CommandKind::Any || r.command == CommandKind::of(&c.command))
                && r.termination.as_ref().is_none_or(|p| {
                    terminations(&c.command)
                        .iter()
                        .any(|t| p.matches(t.as_str()))
                })
        });
        if hit {
            self.advance();
        }
        hit
    }

    /// No request came for the current [`Next::Receive`] step in time.
    pub fn receive_timed_out(&self) -> Failure {
        match self.current() {
            Some(Step::Receive(r)) => self.fail(format!(
                "no {} request came",
                match &r.termination {
                    Some(p) => format!("{} of {}", r.command.name(), p.as_str()),
                    None => r.command.name().to_string(),
                }
            )),
            _ => self.fail("not waiting for a request"),
        }
    }
}

fn describe(e: &ErrorDescriptor) -> String {
    match &e.error_text {
        Some(t) => format!("error {} ({t})", e.error_code),
        None => format!("error {}", e.error_code),
    }
}

fn capture_name(c: Capture) -> String {
    match c {
        Capture::Context => "context id".into(),
        Capture::Termination(0) => "termination id".into(),
        Capture::Termination(n) => format!("termination id in command reply {}", n + 1),
    }
}

fn capture_value(result: &TransactionResult, capture: Capture) -> Option<String> {
    let TransactionResult::ActionReplies(replies) = result else {
        return None;
    };
    let first = replies.first()?;
    match capture {
        Capture::Context => {
            let c = first.context_id;
            (c != ContextId::NULL && c != ContextId::CHOOSE && c != ContextId::ALL)
                .then(|| c.0.to_string())
        }
        Capture::Termination(n) => {
            let ids: &[TerminationId] = match first.command_reply.get(n)? {
                CommandReply::Add(r)
                | CommandReply::Move(r)
                | CommandReply::Modify(r)
                | CommandReply::Subtract(r) => &r.termination_ids,
                CommandReply::Notify(r) => &r.termination_ids,
                CommandReply::ServiceChange(r) => &r.termination_ids,
                CommandReply::AuditValue(a) | CommandReply::AuditCapability(a) => match a {
                    AuditReply::AuditResult(r) => std::slice::from_ref(&r.termination_id),
                    AuditReply::AuditResultTermList(r) => &r.termination_id_list,
                    AuditReply::ContextAuditResult(t) => t,
                    AuditReply::Error(_) => &[],
                },
                _ => &[],
            };
            ids.first().map(|t| t.as_str().to_string())
        }
    }
}
