//! Model → BER: actions, context properties and command requests.

use super::*;

impl Enc<'_> {
    pub(super) fn action_request(&mut self, a: &ActionRequest) -> R {
        let s = self.open(SEQ);
        self.uint(p(0), u64::from(a.context_id.0));
        if let Some(cr) = &a.context_request {
            self.context_request(c(1), cr)?;
        }
        if let Some(ca) = &a.context_attr_audit_req {
            self.context_attr_audit(c(2), ca)?;
        }
        let l = self.open(c(3));
        for cmd in &a.command_requests {
            let e = self.open(SEQ);
            let ch = self.open(c(0));
            self.command(&cmd.command)?;
            self.close(ch);
            self.flag(p(1), cmd.optional);
            self.flag(p(2), cmd.wildcard_return);
            self.close(e);
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    pub(super) fn context_request(&mut self, tag: u8, cr: &ContextRequest) -> R {
        let s = self.open(tag);
        self.opt_uint(
            p(0),
            cr.priority
                .map(|v| bounded(v, 15, "priority"))
                .transpose()?,
        );
        self.opt_bool(p(1), cr.emergency);
        if let Some(ts) = &cr.topology_req {
            let l = self.open(c(2));
            for t in ts {
                let e = self.open(SEQ);
                self.term_id(c(0), &t.termination_from)?;
                self.term_id(c(1), &t.termination_to)?;
                self.enumerated(p(2), t.topology_direction);
                self.opt_uint(p(3), t.stream_id);
                if let Some(x) = t.topology_direction_extension {
                    self.enumerated(p(4), x);
                }
                self.close(e);
            }
            self.close(l);
        }
        self.opt_bool(p(3), cr.iepscallind);
        if let Some(props) = &cr.context_prop {
            let l = self.open(c(4));
            for pp in props {
                self.property_parm(SEQ, pp)?;
            }
            self.close(l);
        }
        if let Some(ids) = &cr.context_list {
            let l = self.open(c(5));
            for id in ids {
                self.uint(INTEGER, u64::from(id.0));
            }
            self.close(l);
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn context_attr_audit(&mut self, tag: u8, ca: &ContextAttrAuditRequest) -> R {
        let s = self.open(tag);
        self.flag(p(0), ca.topology);
        self.flag(p(1), ca.emergency);
        self.flag(p(2), ca.priority);
        self.flag(p(3), ca.iepscallind);
        if let Some(props) = &ca.context_prop_aud {
            let l = self.open(c(4));
            for pp in props {
                self.ind_aud_property_parm(pp)?;
            }
            self.close(l);
        }
        let select_priority = ca.select_priority.map(|v| bounded(v, 15, "selectpriority"));
        self.opt_uint(p(5), select_priority.transpose()?);
        self.opt_bool(p(6), ca.select_emergency);
        self.opt_bool(p(7), ca.select_iepscallind);
        if let Some(sl) = ca.select_logic {
            let l = self.open(c(8));
            self.null(match sl {
                SelectLogic::And => p(0),
                SelectLogic::Or => p(1),
            });
            self.close(l);
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn command(&mut self, cmd: &Command) -> R {
        match cmd {
            Command::Add(r) => self.amm_request(c(0), r),
            Command::Move(r) => self.amm_request(c(1), r),
            Command::Modify(r) => self.amm_request(c(2), r),
            Command::Subtract(r) => {
                let s = self.open(c(3));
                self.term_ids(c(0), &r.termination_ids)?;
                if let Some(ad) = &r.audit_descriptor {
                    self.audit_descriptor(c(1), ad)?;
                }
                self.close(s);
                Ok(())
            }
            Command::AuditCapability(r) => self.audit_request(c(4), r),
            Command::AuditValue(r) => self.audit_request(c(5), r),
            Command::Notify(r) => {
                let s = self.open(c(6));
                self.term_ids(c(0), &r.termination_ids)?;
                self.observed_events(c(1), &r.observed_events_descriptor)?;
                if let Some(e) = &r.error_descriptor {
                    self.error_descriptor(c(2), e);
                }
                self.close(s);
                Ok(())
            }
            Command::ServiceChange(r) => {
                let s = self.open(c(7));
                self.term_ids(c(0), &r.termination_ids)?;
                self.service_change_parm(c(1), &r.service_change_parms)?;
                self.close(s);
                Ok(())
            }
        }
    }

    pub(super) fn amm_request(&mut self, tag: u8, r: &AmmRequest) -> R {
        let s = self.open(tag);
        self.term_ids(c(0), &r.termination_ids)?;
        let l = self.open(c(1));
        for d in &r.descriptors {
            match d {
                AmmDescriptor::Media(m) => self.media(c(0), m)?,
                AmmDescriptor::Modem(m) => self.modem(c(1), m)?,
                AmmDescriptor::Mux(m) => self.mux(c(2), m)?,
                AmmDescriptor::Events(e) => self.events(c(3), e, EventLevel::First)?,
                AmmDescriptor::EventBuffer(e) => self.event_buffer(c(4), e)?,
                AmmDescriptor::Signals(sd) => self.signals(c(5), sd)?,
                AmmDescriptor::DigitMap(dm) => self.digit_map(c(6), dm)?,
                AmmDescriptor::Audit(ad) => self.audit_descriptor(c(7), ad)?,
                AmmDescriptor::Statistics(st) => self.statistics(c(8), st)?,
            }
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    pub(super) fn audit_request(&mut self, tag: u8, r: &AuditRequest) -> R {
        let s = self.open(tag);
        self.term_id(c(0), &r.termination_id)?;
        self.audit_descriptor(c(1), &r.audit_descriptor)?;
        if let Some(l) = &r.termination_id_list {
            self.term_ids(c(2), l)?;
        }
        self.close(s);
        Ok(())
    }
}
