//! The messages of load and fan-out runs: requests a gateway or a
//! controller sends, the answers a simulated gateway gives, and the check
//! of a reply against its request.
//!
//! ```
//! use megaco::model::*;
//! use megaco_load::msg;
//!
//! let mut mg = msg::Gateway::new("00000001", 3);
//! let req = vec![msg::audit_wildcard("00000001/*")];
//! let reply = mg.answer(&req);
//! assert_eq!(msg::check_reply(msg::Expect::Audit, &reply), Ok(msg::Answer { context: None, terminations: 3 }));
//! ```

use megaco::model::*;
use megaco::MegacoMessage;
use megaco_stack::build;

/// A message with one transaction request.
pub fn request(mid: Mid, version: u8, tid: u32, actions: Vec<ActionRequest>) -> MegacoMessage {
    message(
        mid,
        version,
        Transaction::Request(TransactionRequest {
            transaction_id: tid,
            actions: actions.into(),
        }),
    )
}

/// A message with one transaction reply.
pub fn reply(mid: Mid, version: u8, tid: u32, result: TransactionResult) -> MegacoMessage {
    message(
        mid,
        version,
        Transaction::Reply(TransactionReply {
            transaction_id: tid,
            imm_ack_required: false,
            result,
            segment_number: None,
            segmentation_complete: false,
        }),
    )
}

fn message(mid: Mid, version: u8, t: Transaction) -> MegacoMessage {
    MegacoMessage {
        auth_header: None,
        mess: Message {
            version,
            mid,
            body: MessageBody::Transactions(vec![t].into()),
        },
    }
}

/// A gateway's name for its termination `j` under `prefix`: three levels
/// of eight binary digits, as Erlang/OTP's binary encoders map them
/// (`00000001/00000010/00001111`), so that every encoding carries it.
pub fn termination(prefix: &str, j: usize) -> TerminationId {
    TerminationId::new(format!("{prefix}/{:08b}/{:08b}", (j >> 8) & 0xFF, j & 0xFF))
}

/// `AuditValue = ROOT` on the null context, auditing nothing: the
/// cheapest request every gateway answers.
pub fn audit_root() -> ActionRequest {
    audit(TerminationId::root())
}

/// `AuditValue = PATTERN` (e.g. `00000001/*`) on the null context.
pub fn audit_wildcard(pattern: &str) -> ActionRequest {
    audit(TerminationId::new(pattern))
}

fn audit(t: TerminationId) -> ActionRequest {
    build::action(
        ContextId::NULL,
        Command::AuditValue(AuditRequest {
            termination_id: t,
            audit_descriptor: AuditDescriptor {
                audit_token: None,
                audit_property_token: None,
            },
            termination_id_list: None,
        }),
    )
}

/// `Modify = TERMINATION` on `context` with no descriptors.
pub fn modify(context: ContextId, t: TerminationId) -> ActionRequest {
    build::action(
        context,
        Command::Modify(AmmRequest {
            termination_ids: vec![t].into(),
            descriptors: vec![],
        }),
    )
}

/// `Add = TERMINATION` on a new context (`$`).
pub fn add(t: TerminationId) -> ActionRequest {
    build::action(
        ContextId::CHOOSE,
        Command::Add(AmmRequest {
            termination_ids: vec![t].into(),
            descriptors: vec![],
        }),
    )
}

/// `Subtract = TERMINATION` on `context`.
pub fn subtract(context: ContextId, t: TerminationId) -> ActionRequest {
    build::action(
        context,
        Command::Subtract(SubtractRequest {
            termination_ids: vec![t].into(),
            audit_descriptor: None,
        }),
    )
}

/// What a request expects back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A ServiceChangeReply.
    ServiceChange,
    /// An Add reply with a context id.
    Add,
    /// A Modify reply.
    Modify,
    /// A Notify reply.
    Notify,
    /// A Subtract reply.
    Subtract,
    /// AuditValue results (one per termination for a wildcard).
    Audit,
}

/// What a good reply told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    /// The context the reply names, when it is a real one.
    pub context: Option<u32>,
    /// How many termination replies it holds.
    pub terminations: usize,
}

/// Checks a reply against what its request expects: no error descriptor
/// anywhere, only command replies of the expected kind, and (for Add) a
/// real context id. The `Err` text names what was wrong.
pub fn check_reply(expect: Expect, result: &TransactionResult) -> Result<Answer, &'static str> {
    let actions = match result {
        TransactionResult::Error(_) => return Err("error reply"),
        TransactionResult::ActionReplies(a) => a,
    };
    let mut answer = Answer {
        context: None,
        terminations: 0,
    };
    for a in actions {
        if a.error_descriptor.is_some() {
            return Err("error reply");
        }
        let ctx = a.context_id.0;
        if ctx != 0 && ctx < 0xFFFF_FFFE {
            answer.context = Some(ctx);
        }
        for c in &a.command_reply {
            let ok = match (expect, c) {
                (Expect::ServiceChange, CommandReply::ServiceChange(r)) => !matches!(
                    r.service_change_result,
                    ServiceChangeResult::ErrorDescriptor(_)
                ),
                (Expect::Add, CommandReply::Add(r))
                | (Expect::Modify, CommandReply::Modify(r))
                | (Expect::Subtract, CommandReply::Subtract(r)) => !r
                    .termination_audit
                    .as_deref()
                    .unwrap_or_default()
                    .iter()
                    .any(|p| matches!(p, AuditReturnParameter::Error(_))),
                (Expect::Notify, CommandReply::Notify(r)) => r.error_descriptor.is_none(),
                (Expect::Audit, CommandReply::AuditValue(r)) => {
                    matches!(
                        r,
                        AuditReply::AuditResult(_) | AuditReply::AuditResultTermList(_)
                    )
                }
                (_, _) => return Err("reply to another command"),
            };
            if !ok {
                return Err("error reply");
            }
            answer.terminations += 1;
        }
    }
    if answer.terminations == 0 {
        return Err("empty reply");
    }
    if expect == Expect::Add && answer.context.is_none() {
        return Err("no context in the Add reply");
    }
    Ok(answer)
}

/// A simulated gateway's answers: it holds `terminations` terminations
/// under `prefix`, gives new contexts their ids, and answers every
/// command of H.248.1 with a well-formed reply.
#[derive(Debug, Clone)]
pub struct Gateway {
    prefix: String,
    terminations: usize,
    next_context: u32,
    next_ephemeral: usize,
}

impl Gateway {
    /// A gateway with `terminations` terminations named under `prefix`
    /// (see [`termination`]).
    pub fn new(prefix: &str, terminations: usize) -> Self {
        Gateway {
            prefix: prefix.to_string(),
            terminations,
            next_context: 1,
            next_ephemeral: 0,
        }
    }

    /// Sets how many terminations the gateway holds.
    pub fn set_terminations(&mut self, n: usize) {
        self.terminations = n;
    }

    /// How many terminations a wildcard names, and how.
    fn expand(&self, t: &TerminationId) -> Vec<TerminationId> {
        let id: &str = t.as_str();
        match id.strip_suffix("/*") {
            Some(p) if p == self.prefix => (0..self.terminations)
                .map(|j| termination(&self.prefix, j))
                .collect(),
            _ if id == "*" => (0..self.terminations)
                .map(|j| termination(&self.prefix, j))
                .collect(),
            _ => vec![t.clone()],
        }
    }

    /// The reply to a request's actions.
    pub fn answer(&mut self, actions: &[ActionRequest]) -> TransactionResult {
        let mut replies = Vec::with_capacity(actions.len());
        for a in actions {
            let mut context = a.context_id;
            if context == ContextId::CHOOSE {
                context = ContextId(self.next_context);
                self.next_context = self.next_context % 0xFFFF_FFF0 + 1;
            }
            let mut command_reply = Vec::with_capacity(a.command_requests.len());
            for c in &a.command_requests {
                self.command(&c.command, &mut command_reply);
            }
            replies.push(ActionReply {
                context_id: context,
                error_descriptor: None,
                context_reply: None,
                command_reply: command_reply.into(),
            });
        }
        TransactionResult::ActionReplies(replies.into())
    }

    fn command(&mut self, c: &Command, out: &mut Vec<CommandReply>) {
        let amms = |ids: Vec<TerminationId>| AmmsReply {
            termination_ids: ids.into(),
            termination_audit: None,
        };
        match c {
            Command::Add(r) => {
                let ids = r
                    .termination_ids
                    .iter()
                    .map(|t| {
                        if t.as_str().contains('$') {
                            self.next_ephemeral += 1;
                            termination("00000010", self.next_ephemeral & 0xFFFF)
                        } else {
                            t.clone()
                        }
                    })
                    .collect();
                out.push(CommandReply::Add(amms(ids)));
            }
            Command::Move(r) => out.push(CommandReply::Move(amms(r.termination_ids.to_vec()))),
            Command::Modify(r) => {
                for t in r.termination_ids.iter().flat_map(|t| self.expand(t)) {
                    out.push(CommandReply::Modify(amms(vec![t])));
                }
            }
            Command::Subtract(r) => {
                out.push(CommandReply::Subtract(amms(r.termination_ids.to_vec())))
            }
            Command::AuditValue(r) | Command::AuditCapability(r) => {
                for t in self.expand(&r.termination_id) {
                    let result = AuditReply::AuditResult(AuditResult {
                        termination_id: t,
                        termination_audit_result: vec![],
                    });
                    out.push(if matches!(c, Command::AuditValue(_)) {
                        CommandReply::AuditValue(result)
                    } else {
                        CommandReply::AuditCapability(result)
                    });
                }
            }
            Command::Notify(n) => out.push(CommandReply::Notify(NotifyReply {
                termination_ids: n.termination_ids.clone(),
                error_descriptor: None,
            })),
            Command::ServiceChange(sc) => {
                out.push(CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                    termination_ids: sc.termination_ids.clone(),
                    service_change_result: ServiceChangeResult::ServiceChangeResParms(
                        build::service_change_res_parm(None),
                    ),
                })))
            }
            // Commands of later versions of the model: no reply of theirs.
            _ => {}
        }
    }
}
