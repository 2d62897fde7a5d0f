//! Replies: transaction replies, action replies, command replies and what
//! an audit returns.
//!
//! One method per construct, following the layout of OTP's
//! `megaco_text_gen_v1/v2/v3` generators; `s` is the indentation depth of
//! the construct being written (ignored by the compact form).

use super::{invalid, Enc, R};
use crate::model::*;

impl Enc<'_> {
    pub(super) fn transaction_reply(&mut self, r: &TransactionReply) -> R {
        self.raw(self.t.reply);
        self.eq();
        self.num(r.transaction_id as u64);
        if self.v >= 3 {
            match r.segment_number {
                Some(n) => {
                    self.byte(b'/');
                    self.num(n as u64);
                    if r.segmentation_complete {
                        self.byte(b'/');
                        self.raw(self.t.segmentation_complete);
                    }
                }
                None if r.segmentation_complete => {
                    return Err(invalid(
                        "transaction reply",
                        "segmentation complete without a segment number",
                    ))
                }
                None => {}
            }
        }
        self.lb_i(0);
        if r.imm_ack_required {
            self.raw(self.t.imm_ack_required);
            self.comma_i(1);
        }
        match &r.result {
            TransactionResult::Error(ed) => self.error_descriptor(ed)?,
            TransactionResult::ActionReplies(ars) => {
                if ars.is_empty() {
                    return Err(invalid("transaction reply", "no action replies"));
                }
                for (i, a) in ars.iter().enumerate() {
                    if i > 0 {
                        self.comma_i(1);
                    }
                    self.action_reply(a, 1)?;
                }
            }
        }
        self.rb_i(0);
        Ok(())
    }

    pub(super) fn action_reply(&mut self, a: &ActionReply, s: usize) -> R {
        self.raw(self.t.ctx);
        self.eq();
        self.context_id(a.context_id);
        let ed = a.error_descriptor.as_ref();
        // An empty context reply has no text form (`ContextRequest::is_empty`).
        let cr = a.context_reply.as_ref().filter(|c| !c.is_empty());
        let cmds = &a.command_reply;
        let s1 = s + 1;
        if self.v >= 3 {
            if ed.is_none() && cr.is_none() && cmds.is_empty() {
                return Ok(());
            }
            self.lb_i(s);
            let mut sep = false;
            if let Some(cr) = cr {
                self.context_request_items(cr, &mut sep, s1)?;
                // (`sep`: the context reply wrote something)
                if sep && (ed.is_some() || !cmds.is_empty()) {
                    self.comma_i(s1);
                    sep = false;
                }
            }
            for c in cmds {
                self.item(&mut sep, s1, |e| e.command_reply(c, s1))?;
            }
            if let Some(ed) = ed {
                self.item(&mut sep, s1, |e| e.error_descriptor(ed))?;
            }
            self.rb_i(s);
        } else {
            if cr.is_none() && cmds.is_empty() && ed.is_none() {
                return Err(invalid("action reply", "empty (v1 and v2 need a reply)"));
            }
            self.lb_i(s);
            let mut sep = false;
            if let Some(cr) = cr {
                self.context_request_items(cr, &mut sep, s1)?;
            }
            // (a v1 context reply of only EmergencyOff writes nothing)
            if !sep && cmds.is_empty() && ed.is_none() {
                return Err(invalid("action reply", "empty (v1 and v2 need a reply)"));
            }
            for c in cmds {
                self.item(&mut sep, s1, |e| e.command_reply(c, s1))?;
            }
            if let Some(ed) = ed {
                self.item(&mut sep, s1, |e| e.error_descriptor(ed))?;
            }
            self.rb_i(s);
        }
        Ok(())
    }

    pub(super) fn command_reply(&mut self, c: &CommandReply, s: usize) -> R {
        match c {
            CommandReply::Add(r) => {
                self.raw(self.t.add);
                self.amms_reply(r, s)
            }
            CommandReply::Move(r) => {
                self.raw(self.t.move_);
                self.amms_reply(r, s)
            }
            CommandReply::Modify(r) => {
                self.raw(self.t.modify);
                self.amms_reply(r, s)
            }
            CommandReply::Subtract(r) => {
                self.raw(self.t.subtract);
                self.amms_reply(r, s)
            }
            CommandReply::AuditCapability(r) => {
                self.raw(self.t.audit_cap);
                self.audit_reply(r, s)
            }
            CommandReply::AuditValue(r) => {
                self.raw(self.t.audit_value);
                self.audit_reply(r, s)
            }
            CommandReply::Notify(r) => {
                self.raw(self.t.notify);
                self.eq();
                self.term_id_list(&r.termination_ids, s)?;
                if let Some(ed) = &r.error_descriptor {
                    self.lb_i(s);
                    self.error_descriptor(ed)?;
                    self.rb_i(s);
                }
                Ok(())
            }
            CommandReply::ServiceChange(r) => {
                self.raw(self.t.service_change);
                self.eq();
                self.term_id_list(&r.termination_ids, s)?;
                match &r.service_change_result {
                    ServiceChangeResult::ErrorDescriptor(ed) => {
                        self.lb_i(s);
                        self.error_descriptor(ed)?;
                        self.rb_i(s);
                    }
                    ServiceChangeResult::ServiceChangeResParms(p) => {
                        self.service_change_res_parm(p, s)?;
                    }
                }
                Ok(())
            }
        }
    }

    pub(super) fn amms_reply(&mut self, r: &AmmsReply, s: usize) -> R {
        self.eq();
        self.term_id_list(&r.termination_ids, s)?;
        if let Some(ta) = &r.termination_audit {
            self.termination_audit_block(ta, s)?;
        }
        Ok(())
    }

    /// `LBRKT terminationAudit RBRKT`, left out when the audit writes
    /// nothing.
    pub(super) fn termination_audit_block(&mut self, ta: &[AuditReturnParameter], s: usize) -> R {
        if ta.is_empty() {
            return Ok(());
        }
        let s1 = s + 1;
        self.opt_brackets(s, |e| {
            for (i, p) in ta.iter().enumerate() {
                if i > 0 {
                    e.comma_i(s1);
                }
                e.audit_return_parameter(p, s1)?;
            }
            Ok(())
        })
    }

    pub(super) fn audit_reply(&mut self, r: &AuditReply, s: usize) -> R {
        self.eq();
        match r {
            AuditReply::ContextAuditResult(tids) => {
                self.raw(self.t.ctx);
                self.termination_id_list_braced(tids, s)
            }
            AuditReply::Error(ed) => {
                self.raw(self.t.ctx);
                self.lb_i(s);
                self.error_descriptor(ed)?;
                self.rb_i(s);
                Ok(())
            }
            AuditReply::AuditResult(ar) => {
                context_like(std::slice::from_ref(&ar.termination_id))?;
                self.termination_id(&ar.termination_id)?;
                self.termination_audit_block(&ar.termination_audit_result, s)
            }
            AuditReply::AuditResultTermList(tl) => {
                if self.v < 3 {
                    return Err(invalid("audit reply", "termination id lists need v3"));
                }
                context_like(&tl.termination_id_list)?;
                self.term_id_list(&tl.termination_id_list, s)?;
                self.termination_audit_block(&tl.termination_audit_result, s)
            }
        }
    }

    pub(super) fn audit_return_parameter(&mut self, p: &AuditReturnParameter, s: usize) -> R {
        match p {
            AuditReturnParameter::Error(ed) => self.error_descriptor(ed),
            AuditReturnParameter::Media(m) => self.media_descriptor(m, s),
            AuditReturnParameter::Modem(m) => self.modem_descriptor(m, s),
            AuditReturnParameter::Mux(m) => self.mux_descriptor(m, s),
            AuditReturnParameter::Events(ev) => self.events_descriptor(ev, s),
            AuditReturnParameter::EventBuffer(eb) => self.event_buffer_descriptor(eb, s),
            AuditReturnParameter::Signals(sd) => self.signals_descriptor(sd, s),
            AuditReturnParameter::DigitMap(dm) => self.digit_map_descriptor(dm, s),
            AuditReturnParameter::ObservedEvents(oe) => self.observed_events_descriptor(oe, s),
            AuditReturnParameter::Statistics(st) => self.statistics_descriptor(st, s),
            AuditReturnParameter::Packages(pd) => self.packages_descriptor(pd, s),
            AuditReturnParameter::EmptyDescriptors(ad) => {
                // bare audit tokens (`Media, Events`); nothing else fits
                let Some(list) = ad.audit_token.as_ref().filter(|l| !l.is_empty()) else {
                    return Err(invalid("audited descriptors", "no audit tokens"));
                };
                if ad
                    .audit_property_token
                    .as_ref()
                    .is_some_and(|l| !l.is_empty())
                {
                    return Err(invalid(
                        "audited descriptors",
                        "property tokens have no text form in a reply",
                    ));
                }
                // v1/v2 indent these one level deeper than v3.
                let si = if self.v >= 3 { s } else { s + 1 };
                self.audit_items(list, si);
                Ok(())
            }
        }
    }
}

/// An audit reply for one termination id spelled like the Context
/// keyword (`AuditValue = C ...`) would read back as a context audit.
fn context_like(tids: &[TerminationId]) -> R {
    match tids {
        [one]
            if one.as_str().eq_ignore_ascii_case("c")
                || one.as_str().eq_ignore_ascii_case("context") =>
        {
            Err(invalid(
                "audit reply",
                "a termination id spelled like the Context keyword",
            ))
        }
        _ => Ok(()),
    }
}
