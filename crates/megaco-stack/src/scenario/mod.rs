//! Scenario files: how a simulated MGC or MG answers, and what an MG
//! script sends and expects (`megaco mgc --scenario`, `megaco mg
//! --scenario`, `megaco load --scenario`).
//!
//! A scenario is a TOML file of reply rules (`[[rule]]`, for any side that
//! answers requests), script steps (`[[step]]`, for a gateway that sends
//! them) and gateway options (`[mg]`):
//!
//! ```toml
//! # Answer Modify of any rtp termination with error 510, once.
//! [[rule]]
//! command = "modify"          # Add, Move, Modify, Subtract, AuditValue,
//!                             # AuditCapabilities, Notify, ServiceChange, "*"
//! termination = "rtp/*"       # optional: a pattern of the termination id
//! error = 510                 # reply = "error" (implied by `error`)
//! text = "Insufficient resources"
//! times = 1                   # optional: only the first matching command
//!
//! # Answer Notify of the `al` package after a pending and 2 s.
//! [[rule]]
//! command = "notify"
//! package = "al"              # optional: names an event/signal/property of it
//! pending = 2.0
//!
//! # Answer AuditValue with descriptors, written as in a text message.
//! [[rule]]
//! command = "auditvalue"
//! descriptors = "Packages { g-1, root-2, nt-1, rtp-1 }"
//!
//! [mg]
//! register = true             # ServiceChange Restart first (the default)
//! repeat = 1                  # run the steps this many times (0: forever)
//!
//! [[step]]
//! name = "add"
//! send = "Context = $ { Add = rtp/$ { Media { Stream = 1 { LocalControl { Mode = SendReceive } } } } }"
//! save = { ctx = "context", rtp = "termination" }   # also "termination.2": the 2nd command's
//! [[step]]
//! wait = 0.2
//! [[step]]
//! send = "Context = ${ctx} { Modify = ${rtp} { Events = 2 { al/on } } }"
//! expect = "ok"               # ok (the default), error, any, noreply
//! [[step]]
//! send = "Context = ${ctx} { Subtract = tdm/9 }"
//! error = 430                 # expect this error code
//! [[step]]
//! receive = "modify"          # wait for the controller to send a Modify
//! timeout = 5
//! ```
//!
//! A rule's `reply` is `answer` (the default: the default reply, with
//! `descriptors` if given), `error` (`error` code, optional `text`, `scope`
//! = `command` (default), `context` or `transaction`) or `none` (no answer
//! at all). `pending = SECS` sends a TransactionPending at once and the
//! reply after SECS; `delay = SECS` answers after SECS without a pending.
//! The first rule that matches a command decides; commands no rule
//! matches get the defaults of [`Responder`].
//!
//! A step is one of `send` (actions in pretty or compact text; `${name}`
//! is a variable saved by an earlier step's `save`, a bare `$` is
//! Megaco's "choose"), `wait` (seconds) or `receive` (a command name,
//! optional `termination` pattern). `send` steps check the reply:
//! `expect`, `error` (implies `expect = "error"`), `contains` (text the
//! reply, as one compact line, must hold). `timeout` (seconds) bounds a
//! `send` or `receive` step.
//!
//! The types here are stable: [`Scenario`] (parsed file), [`Rule`] and
//! [`Responder`] (answering), [`Step`] and [`Script`] (MG scripts).

mod responder;
mod rules;
mod script;
mod text;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use megaco::model::*;
use serde::Deserialize;

pub use responder::{Answer, Capacity, Responder, Role, TermIdStyle};
pub use rules::{CommandKind, ErrorScope, Pattern, Reply, Rule};
pub use script::{Capture, Expect, Failure, Next, ReceiveStep, Script, SendStep, Step};

/// A parsed scenario file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scenario {
    /// Reply rules, first match wins.
    pub rules: Vec<Rule>,
    /// The MG script.
    pub steps: Vec<Step>,
    /// Gateway options.
    pub mg: MgOptions,
}

/// The `[mg]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MgOptions {
    /// Register (ServiceChange Restart on ROOT) before the steps.
    pub register: bool,
    /// The registration's ServiceChangeReason.
    pub reason: String,
    /// Run the steps this many times (0: until stopped).
    pub repeat: u64,
}

impl Default for MgOptions {
    fn default() -> Self {
        MgOptions {
            register: true,
            reason: "901 mg col boot".into(),
            repeat: 1,
        }
    }
}

/// Why a scenario file was refused: where, and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(String);

impl Scenario {
    /// Parses a scenario from TOML text.
    pub fn parse(text: &str) -> Result<Scenario, Error> {
        let file: FileSpec =
            toml::from_str(text).map_err(|e| Error(e.to_string().trim_end().to_string()))?;
        let rules = file
            .rule
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.build().map_err(|e| Error(format!("rule {}: {e}", i + 1))))
            .collect::<Result<_, _>>()?;
        let mut saved: Vec<String> = Vec::new();
        let mut steps = Vec::new();
        for (i, s) in file.step.into_iter().enumerate() {
            let step = s
                .build(&mut saved)
                .map_err(|e| Error(format!("step {}: {e}", i + 1)))?;
            steps.push(step);
        }
        let defaults = MgOptions::default();
        let mg = file.mg.unwrap_or_default();
        Ok(Scenario {
            rules,
            steps,
            mg: MgOptions {
                register: mg.register.unwrap_or(defaults.register),
                reason: mg.reason.unwrap_or(defaults.reason),
                repeat: mg.repeat.unwrap_or(defaults.repeat),
            },
        })
    }

    /// Reads and parses a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, Error> {
        let text =
            std::fs::read_to_string(path).map_err(|e| Error(format!("{}: {e}", path.display())))?;
        Scenario::parse(&text).map_err(|Error(e)| Error(format!("{}: {e}", path.display())))
    }
}

/// Every error descriptor in a reply: of the transaction, of an action, of
/// a command, of an audited value.
pub fn reply_errors(result: &TransactionResult) -> Vec<&ErrorDescriptor> {
    let replies = match result {
        TransactionResult::Error(e) => return vec![e],
        TransactionResult::ActionReplies(r) => r,
    };
    let mut out = Vec::new();
    for a in replies {
        out.extend(&a.error_descriptor);
        for c in &a.command_reply {
            match c {
                CommandReply::Add(r)
                | CommandReply::Move(r)
                | CommandReply::Modify(r)
                | CommandReply::Subtract(r) => {
                    out.extend(audit(r.termination_audit.as_deref().unwrap_or(&[])))
                }
                CommandReply::AuditCapability(r) | CommandReply::AuditValue(r) => match r {
                    AuditReply::Error(e) => out.push(e),
                    AuditReply::AuditResult(r) => out.extend(audit(&r.termination_audit_result)),
                    AuditReply::AuditResultTermList(r) => {
                        out.extend(audit(&r.termination_audit_result))
                    }
                    AuditReply::ContextAuditResult(_) => {}
                },
                CommandReply::Notify(r) => out.extend(&r.error_descriptor),
                CommandReply::ServiceChange(r) => {
                    if let ServiceChangeResult::ErrorDescriptor(e) = &r.service_change_result {
                        out.push(e);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

fn audit(p: &[AuditReturnParameter]) -> impl Iterator<Item = &ErrorDescriptor> {
    p.iter().filter_map(|p| match p {
        AuditReturnParameter::Error(e) => Some(e),
        _ => None,
    })
}

/// A reply as one line of compact v3 text without the message header
/// (`P=1{C=7{A=rtp/1}}`, transaction id 1), as `contains` checks it.
pub fn compact_line(result: &TransactionResult) -> String {
    let msg = megaco::MegacoMessage {
        auth_header: None,
        mess: Message {
            version: 3,
            mid: Mid::Device("x".into()),
            body: MessageBody::Transactions(
                vec![Transaction::Reply(TransactionReply {
                    transaction_id: 1,
                    imm_ack_required: false,
                    result: result.clone(),
                    segment_number: None,
                    segmentation_complete: false,
                })]
                .into(),
            ),
        },
    };
    match megaco::text::encode_compact(&msg) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let body = text.split_once('\n').map_or(&*text, |(_, b)| b);
            body.split(['\r', '\n'])
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        }
        Err(e) => format!("(not encodable as text: {e})"),
    }
}

// ---------------------------------------------------------------- file

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    mg: Option<MgSpec>,
    #[serde(default)]
    rule: Vec<RuleSpec>,
    #[serde(default)]
    step: Vec<StepSpec>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct MgSpec {
    register: Option<bool>,
    reason: Option<String>,
    repeat: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    command: String,
    termination: Option<String>,
    package: Option<String>,
    reply: Option<String>,
    error: Option<u16>,
    text: Option<String>,
    scope: Option<String>,
    descriptors: Option<String>,
    pending: Option<f64>,
    delay: Option<f64>,
    times: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepSpec {
    name: Option<String>,
    send: Option<String>,
    wait: Option<f64>,
    receive: Option<String>,
    termination: Option<String>,
    expect: Option<String>,
    error: Option<u16>,
    contains: Option<String>,
    #[serde(default)]
    save: BTreeMap<String, String>,
    timeout: Option<f64>,
}

fn seconds(what: &str, s: Option<f64>) -> Result<Option<Duration>, String> {
    match s {
        None => Ok(None),
        Some(s) if s.is_finite() && (0.0..1e7).contains(&s) => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(format!("`{what}` = {s}: expected seconds, 0 or more")),
    }
}

fn command(name: &str) -> Result<CommandKind, String> {
    CommandKind::parse(name).ok_or_else(|| {
        format!(
            "unknown command {name:?}: expected Add, Move, Modify, Subtract, AuditValue, \
             AuditCapabilities, Notify, ServiceChange or \"*\""
        )
    })
}

impl RuleSpec {
    fn build(self) -> Result<Rule, String> {
        let command = command(&self.command)?;
        let kind = match self.reply.as_deref() {
            None if self.error.is_some() => "error",
            None => "answer",
            Some(k) => k,
        };
        let scope = match self.scope.as_deref() {
            None | Some("command") => ErrorScope::Command,
            Some("context") => ErrorScope::Context,
            Some("transaction") => ErrorScope::Transaction,
            Some(s) => {
                return Err(format!(
                    "unknown scope {s:?}: expected command, context or transaction"
                ))
            }
        };
        let reply = match kind {
            "answer" => {
                if self.error.is_some() {
                    return Err("`error` goes with reply = \"error\"".into());
                }
                let descriptors = match &self.descriptors {
                    Some(d) if command == CommandKind::Any => {
                        return Err(format!("`descriptors` {d:?} needs a command, not \"*\""))
                    }
                    Some(d) => text::parse_descriptors(command, d)
                        .map_err(|e| format!("descriptors: {e}"))?,
                    None => Vec::new(),
                };
                Reply::Answer { descriptors }
            }
            "error" => Reply::Error {
                code: self
                    .error
                    .ok_or("reply = \"error\" needs an `error` code")?,
                text: self.text,
                scope,
            },
            "none" => Reply::None,
            k => {
                return Err(format!(
                    "unknown reply {k:?}: expected answer, error or none"
                ))
            }
        };
        if self.descriptors.is_some() && !matches!(reply, Reply::Answer { .. }) {
            return Err("`descriptors` go with reply = \"answer\"".into());
        }
        Ok(Rule {
            command,
            termination: self.termination.as_deref().map(Pattern::new),
            package: self.package,
            reply,
            pending: seconds("pending", self.pending)?,
            delay: seconds("delay", self.delay)?,
            times: self.times,
        })
    }
}

impl StepSpec {
    fn build(self, saved: &mut Vec<String>) -> Result<Step, String> {
        let timeout = seconds("timeout", self.timeout)?;
        let kinds = [
            self.send.is_some(),
            self.wait.is_some(),
            self.receive.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err("a step has exactly one of `send`, `wait` and `receive`".into());
        }
        let only_send = [
            ("expect", self.expect.is_some()),
            ("error", self.error.is_some()),
            ("contains", self.contains.is_some()),
            ("save", !self.save.is_empty()),
        ];
        if self.send.is_none() {
            if let Some((field, _)) = only_send.iter().find(|(_, set)| *set) {
                return Err(format!("`{field}` goes with `send`"));
            }
        }
        if let Some(w) = self.wait {
            return Ok(Step::Wait(seconds("wait", Some(w))?.unwrap_or_default()));
        }
        if let Some(r) = self.receive {
            return Ok(Step::Receive(ReceiveStep {
                name: self.name,
                command: command(&r)?,
                termination: self.termination.as_deref().map(Pattern::new),
                timeout,
            }));
        }
        if self.termination.is_some() {
            return Err("`termination` goes with `receive`".into());
        }
        let actions = self.send.unwrap_or_default();
        for v in text::variables(&actions) {
            if !saved.contains(&v) {
                return Err(format!("variable `{v}` is not saved by an earlier step"));
            }
        }
        let probe = text::substitute(
            &actions,
            &saved.iter().map(|v| (v.clone(), "1".to_string())).collect(),
        )?;
        text::parse_actions(&probe).map_err(|e| format!("send: {e}"))?;
        let expect = match (self.expect.as_deref(), self.error) {
            (None | Some("error"), Some(code)) => Expect::Error(Some(code)),
            (Some("error"), None) => Expect::Error(None),
            (None | Some("ok"), None) => Expect::Ok,
            (Some("any"), None) => Expect::Any,
            (Some("noreply" | "none"), None) => Expect::NoReply,
            (Some(e), None) => {
                return Err(format!(
                    "unknown expect {e:?}: expected ok, error, any or noreply"
                ))
            }
            (Some(e), Some(_)) => {
                return Err(format!("`error` goes with expect = \"error\", not {e:?}"))
            }
        };
        let mut save = Vec::new();
        for (name, what) in self.save {
            let capture = match what.as_str() {
                "context" => Capture::Context,
                "termination" => Capture::Termination(0),
                t => match t.strip_prefix("termination.").and_then(|n| n.parse::<usize>().ok()) {
                    Some(n) if n >= 1 => Capture::Termination(n - 1),
                    _ => {
                        return Err(format!(
                            "save {name} = {what:?}: expected \"context\", \"termination\" or \"termination.N\""
                        ))
                    }
                },
            };
            saved.push(name.clone());
            save.push((name, capture));
        }
        Ok(Step::Send(SendStep {
            name: self.name,
            actions,
            expect,
            contains: self.contains,
            save,
            timeout,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_example_parses() {
        let doc = include_str!("mod.rs");
        let toml: String = doc
            .lines()
            .skip_while(|l| !l.starts_with("//! ```toml"))
            .skip(1)
            .take_while(|l| !l.starts_with("//! ```"))
            .map(|l| format!("{}\n", l.trim_start_matches("//!").trim_start_matches(' ')))
            .collect();
        let s = Scenario::parse(&toml).unwrap();
        assert_eq!(s.rules.len(), 3);
        assert_eq!(s.steps.len(), 5);
        assert!(matches!(s.steps[1], Step::Wait(d) if d == Duration::from_millis(200)));
        assert!(matches!(
            &s.steps[3],
            Step::Send(SendStep {
                expect: Expect::Error(Some(430)),
                ..
            })
        ));
    }

    #[test]
    fn mistakes_are_named_with_their_place() {
        let err = |t: &str| Scenario::parse(t).unwrap_err().to_string();
        assert!(err("[[rule]]\ncommand = \"dance\"").starts_with("rule 1: unknown command"));
        assert!(err("[[step]]\nsend = \"C=${x}{A=$}\"").contains("variable `x`"));
        assert!(err("[[step]]\nsend = \"C=1{Bogus}\"").starts_with("step 1: send: line 1"));
        assert!(err("[[step]]\nwait = 1\nsend = \"C=1{}\"").contains("exactly one"));
        assert!(err("[[rule]]\ncommand = \"add\"\ncolour = 3").contains("colour"));
        assert!(
            err("[[rule]]\ncommand = \"notify\"\ndescriptors = \"Media{}\"")
                .contains("no descriptors")
        );
    }
}
