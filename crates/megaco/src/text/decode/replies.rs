//! Replies: transaction replies, action replies, command replies and what
//! an audit returns.

use super::commands::termination_id;
use super::media::Dm;
use super::Parser;
use crate::model::*;
use crate::text::keyword::Kw;
use crate::text::lexer::{Tok, R};

impl Parser<'_> {
    /// `= id[/seg[/END]] { ... }` after `Reply`, into `r`.
    pub(super) fn transaction_reply(&mut self, r: &mut TransactionReply) -> R<()> {
        self.equal()?;
        let (at, w) = self.word("a transaction id")?;
        (r.transaction_id, r.segment_number, r.segmentation_complete) =
            self.tid_and_segment(at, w)?;
        self.open()?;
        const WHAT: &str = "ImmAckRequired, Error or Context";
        let mut t = self.token(WHAT)?;
        if t.kw == Some(Kw::ImmAckRequired) {
            r.imm_ack_required = true;
            self.expect(b',', "`,`")?;
            t = self.token("Error or Context")?;
        }
        if t.kw == Some(Kw::Error) {
            r.result = TransactionResult::Error(self.error_descriptor_body()?);
            return self.close();
        }
        let TransactionResult::ActionReplies(replies) = &mut r.result else {
            return Ok(());
        };
        self.items_from(t, "Context", |p, t| {
            p.action_reply(t, push_in_place(replies, ActionReply::default))
        })
    }

    /// `Context = id [{ ... }]`, its first word `t` read, into `r`.
    fn action_reply(&mut self, t: Tok<'_>, r: &mut ActionReply) -> R<()> {
        if t.kw != Some(Kw::Ctx) {
            return Err(self.unknown(t, "Context"));
        }
        self.equal()?;
        r.context_id = self.context_id()?;
        if self.peek() != Some(b'{') {
            // v3 writes an action reply without a body as `Context = id`;
            // v1 and v2 have no such form.
            if self.version < 3 {
                return Err(self.expected("`{` (an action reply's body)"));
            }
            return Ok(());
        }
        self.open()?;
        let mut ctx = ContextRequest::default();
        // Context properties, then command replies, then the error (or the
        // error alone).
        self.items(|p| {
            const WHAT: &str = "a command reply, context property or Error";
            let t = p.token(WHAT)?;
            if r.error_descriptor.is_some() {
                return Err(p.invalid(t.at, t.text, "item after an action reply's Error"));
            }
            match t.kw {
                Some(Kw::Error) => r.error_descriptor = Some(p.error_descriptor_body()?),
                Some(
                    Kw::Topology
                    | Kw::Priority
                    | Kw::Emergency
                    | Kw::EmergencyOff
                    | Kw::Ieps
                    | Kw::ContextAttr,
                ) if !r.command_reply.is_empty() => {
                    return Err(p.invalid(t.at, t.text, super::message::CONTEXT_AFTER_COMMAND))
                }
                Some(
                    k @ (Kw::Topology
                    | Kw::Priority
                    | Kw::Emergency
                    | Kw::EmergencyOff
                    | Kw::Ieps
                    | Kw::ContextAttr),
                ) => p.context_property(t.at, k, &mut ctx)?,
                None => return Err(p.unknown(t, WHAT)),
                _ => {
                    let reply = p.command_reply(t)?;
                    r.command_reply.push(reply);
                }
            }
            Ok(())
        })?;
        r.context_reply = (!ctx.is_empty()).then_some(ctx);
        Ok(())
    }

    fn command_reply(&mut self, t: Tok<'_>) -> R<CommandReply> {
        match t.kw {
            Some(k @ (Kw::Add | Kw::Move | Kw::Modify | Kw::Subtract)) => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                // `A = t { }` audits nothing: the same reply as `A = t`,
                // which is how encoders write it.
                let termination_audit = if self.peek() == Some(b'{') {
                    Some(self.termination_audit()?).filter(|a| !a.is_empty())
                } else {
                    None
                };
                let r = AmmsReply {
                    termination_ids,
                    termination_audit,
                };
                Ok(match k {
                    Kw::Add => CommandReply::Add(r),
                    Kw::Move => CommandReply::Move(r),
                    Kw::Modify => CommandReply::Modify(r),
                    _ => CommandReply::Subtract(r),
                })
            }
            Some(k @ (Kw::AuditValue | Kw::AuditCap)) => {
                self.equal()?;
                let reply = self.audit_reply()?;
                Ok(if k == Kw::AuditValue {
                    CommandReply::AuditValue(reply)
                } else {
                    CommandReply::AuditCapability(reply)
                })
            }
            Some(Kw::Notify) => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                let error_descriptor = if self.peek() == Some(b'{') {
                    self.open()?;
                    let e = self.error_descriptor()?;
                    self.close()?;
                    Some(e)
                } else {
                    None
                };
                Ok(CommandReply::Notify(NotifyReply {
                    termination_ids,
                    error_descriptor,
                }))
            }
            Some(Kw::ServiceChange) => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                let service_change_result = if self.peek() == Some(b'{') {
                    self.open()?;
                    let t2 = self.token("Error or Services")?;
                    let r = match t2.kw {
                        Some(Kw::Error) => {
                            ServiceChangeResult::ErrorDescriptor(self.error_descriptor_body()?)
                        }
                        Some(Kw::Services) => ServiceChangeResult::ServiceChangeResParms(
                            self.service_change_res_parm()?,
                        ),
                        _ => return Err(self.unknown(t2, "Error or Services")),
                    };
                    self.close()?;
                    r
                } else {
                    ServiceChangeResult::ServiceChangeResParms(ServiceChangeResParm::default())
                };
                Ok(CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                    termination_ids,
                    service_change_result,
                })))
            }
            _ => Err(self.unknown(t, "a command reply")),
        }
    }

    /// After `AuditValue =` or `AuditCapability =` in a reply.
    fn audit_reply(&mut self) -> R<AuditReply> {
        let mut tids = if self.peek() == Some(b'[') {
            self.term_id_list()?
        } else {
            let t = self.token("Context or a termination id")?;
            if t.kw == Some(Kw::Ctx) {
                self.open()?;
                let t = self.token("Error or a termination id")?;
                if t.kw == Some(Kw::Error) {
                    let e = self.error_descriptor_body()?;
                    self.close()?;
                    return Ok(AuditReply::Error(e));
                }
                let mut tids = Vec::new();
                self.items_from(t, "a termination id", |_, t| {
                    tids.push(termination_id(t.text));
                    Ok(())
                })?;
                return Ok(AuditReply::ContextAuditResult(tids));
            }
            smallvec![termination_id(t.text)]
        };
        let termination_audit_result = if self.peek() == Some(b'{') {
            self.termination_audit()?
        } else {
            Vec::new()
        };
        Ok(if tids.len() == 1 {
            AuditReply::AuditResult(AuditResult {
                termination_id: tids.swap_remove(0),
                termination_audit_result,
            })
        } else {
            AuditReply::AuditResultTermList(TermListAuditResult {
                termination_id_list: tids.into_vec(),
                termination_audit_result,
            })
        })
    }

    /// `{ auditReturnParameter, ... }`: descriptors in the order written,
    /// then the bare descriptor names gathered into one
    /// `EmptyDescriptors` at the end (where OTP puts it).
    fn termination_audit(&mut self) -> R<Vec<AuditReturnParameter>> {
        self.open()?;
        let mut out = Vec::new();
        let mut tokens = Vec::new();
        if self.eat(b'}') {
            self.leave();
            return Ok(out);
        }
        self.items(|p| {
            const WHAT: &str = "an audit return parameter";
            let t = p.token(WHAT)?;
            let next = p.peek();
            let braced = next == Some(b'{');
            let eq = next == Some(b'=');
            match t.kw {
                Some(Kw::Media) if braced => {
                    let mut m = MediaDescriptor::default();
                    p.media_descriptor(&mut m)?;
                    out.push(AuditReturnParameter::Media(m))
                }
                Some(Kw::Media) => tokens.push(AuditToken::Media),
                Some(Kw::Modem) if braced || eq || next == Some(b'[') => {
                    out.push(AuditReturnParameter::Modem(p.modem_descriptor()?))
                }
                Some(Kw::Modem) => tokens.push(AuditToken::Modem),
                Some(Kw::Mux) if eq => out.push(AuditReturnParameter::Mux(p.mux_descriptor()?)),
                Some(Kw::Mux) => tokens.push(AuditToken::Mux),
                Some(Kw::Events) => {
                    let mut e = EventsDescriptor::default();
                    p.events_descriptor(&mut e)?;
                    out.push(AuditReturnParameter::Events(e))
                }
                Some(Kw::Signals) => {
                    out.push(AuditReturnParameter::Signals(p.signals_descriptor()?))
                }
                Some(Kw::EventBuffer) => out.push(AuditReturnParameter::EventBuffer(
                    p.event_buffer_descriptor()?,
                )),
                Some(Kw::DigitMap) => match p.digit_map(false)? {
                    Dm::Bare => tokens.push(AuditToken::DigitMap),
                    Dm::Desc(d) => out.push(AuditReturnParameter::DigitMap(d)),
                },
                Some(Kw::ObservedEvents) if eq => {
                    let mut oe = ObservedEventsDescriptor::default();
                    p.observed_events(&mut oe)?;
                    out.push(AuditReturnParameter::ObservedEvents(oe))
                }
                Some(Kw::ObservedEvents) => tokens.push(AuditToken::ObservedEvents),
                Some(Kw::Stats) if braced => {
                    out.push(AuditReturnParameter::Statistics(p.statistics_descriptor()?))
                }
                Some(Kw::Stats) => tokens.push(AuditToken::Stats),
                Some(Kw::Packages) if braced => {
                    out.push(AuditReturnParameter::Packages(p.packages_descriptor()?))
                }
                Some(Kw::Packages) => tokens.push(AuditToken::Packages),
                Some(Kw::Error) => {
                    out.push(AuditReturnParameter::Error(p.error_descriptor_body()?))
                }
                _ => return Err(p.unknown(t, WHAT)),
            }
            Ok(())
        })?;
        if !tokens.is_empty() {
            out.push(AuditReturnParameter::EmptyDescriptors(AuditDescriptor {
                audit_token: Some(tokens),
                audit_property_token: None,
            }));
        }
        Ok(out)
    }
}
