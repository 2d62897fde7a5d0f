//! Model → BER: action and command replies, audit results.

use super::*;

impl Enc<'_> {
    pub(super) fn action_reply(&mut self, a: &ActionReply) -> R {
        let s = self.open(SEQ);
        self.uint(p(0), u64::from(a.context_id.0));
        if let Some(e) = &a.error_descriptor {
            self.error_descriptor(c(1), e);
        }
        if let Some(cr) = &a.context_reply {
            self.context_request(c(2), cr)?;
        }
        let l = self.open(c(3));
        for r in &a.command_reply {
            self.command_reply(r)?;
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    pub(super) fn command_reply(&mut self, r: &CommandReply) -> R {
        match r {
            CommandReply::Add(a) => self.amms_reply(c(0), a),
            CommandReply::Move(a) => self.amms_reply(c(1), a),
            CommandReply::Modify(a) => self.amms_reply(c(2), a),
            CommandReply::Subtract(a) => self.amms_reply(c(3), a),
            CommandReply::AuditCapability(a) => self.audit_reply(c(4), a),
            CommandReply::AuditValue(a) => self.audit_reply(c(5), a),
            CommandReply::Notify(n) => {
                let s = self.open(c(6));
                self.term_ids(c(0), &n.termination_ids)?;
                if let Some(e) = &n.error_descriptor {
                    self.error_descriptor(c(1), e);
                }
                self.close(s);
                Ok(())
            }
            CommandReply::ServiceChange(sc) => {
                let s = self.open(c(7));
                self.term_ids(c(0), &sc.termination_ids)?;
                let res = self.open(c(1));
                match &sc.service_change_result {
                    ServiceChangeResult::ErrorDescriptor(e) => self.error_descriptor(c(0), e),
                    ServiceChangeResult::ServiceChangeResParms(rp) => {
                        let r = self.open(c(1));
                        if let Some(m) = &rp.service_change_mgc_id {
                            let x = self.open(c(0));
                            self.mid(m)?;
                            self.close(x);
                        }
                        if let Some(a) = &rp.service_change_address {
                            self.sc_address(c(1), a)?;
                        }
                        let v = rp.service_change_version;
                        let v = v.map(|v| bounded(v, 99, "serviceChangeVersion"));
                        self.opt_uint(p(2), v.transpose()?);
                        if let Some(pr) = &rp.service_change_profile {
                            self.profile(c(3), pr)?;
                        }
                        if let Some(t) = &rp.time_stamp {
                            self.time(c(4), t)?;
                        }
                        self.close(r);
                    }
                }
                self.close(res);
                self.close(s);
                Ok(())
            }
        }
    }

    pub(super) fn amms_reply(&mut self, tag: u8, a: &AmmsReply) -> R {
        let s = self.open(tag);
        self.term_ids(c(0), &a.termination_ids)?;
        if let Some(ta) = &a.termination_audit {
            self.termination_audit(c(1), ta)?;
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn audit_reply(&mut self, tag: u8, a: &AuditReply) -> R {
        let s = self.open(tag);
        match a {
            AuditReply::ContextAuditResult(ids) => self.term_ids(c(0), ids)?,
            AuditReply::Error(e) => self.error_descriptor(c(1), e),
            AuditReply::AuditResult(r) => {
                let x = self.open(c(2));
                self.term_id(c(0), &r.termination_id)?;
                self.termination_audit(c(1), &r.termination_audit_result)?;
                self.close(x);
            }
            AuditReply::AuditResultTermList(r) => {
                let x = self.open(c(3));
                self.term_ids(c(0), &r.termination_id_list)?;
                self.termination_audit(c(1), &r.termination_audit_result)?;
                self.close(x);
            }
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn termination_audit(&mut self, tag: u8, items: &[AuditReturnParameter]) -> R {
        let s = self.open(tag);
        for it in items {
            match it {
                AuditReturnParameter::Error(e) => self.error_descriptor(c(0), e),
                AuditReturnParameter::Media(m) => self.media(c(1), m)?,
                AuditReturnParameter::Modem(m) => self.modem(c(2), m)?,
                AuditReturnParameter::Mux(m) => self.mux(c(3), m)?,
                AuditReturnParameter::Events(e) => self.events(c(4), e, EventLevel::First)?,
                AuditReturnParameter::EventBuffer(e) => self.event_buffer(c(5), e)?,
                AuditReturnParameter::Signals(sd) => self.signals(c(6), sd)?,
                AuditReturnParameter::DigitMap(dm) => self.digit_map(c(7), dm)?,
                AuditReturnParameter::ObservedEvents(o) => self.observed_events(c(8), o)?,
                AuditReturnParameter::Statistics(st) => self.statistics(c(9), st)?,
                AuditReturnParameter::Packages(pk) => {
                    let l = self.open(c(10));
                    for item in pk {
                        let e = self.open(SEQ);
                        self.package_name(p(0), &item.package_name)?;
                        let v = bounded(item.package_version, 99, "packageVersion")?;
                        self.uint(p(1), u64::from(v));
                        self.close(e);
                    }
                    self.close(l);
                }
                AuditReturnParameter::EmptyDescriptors(ad) => self.audit_descriptor(c(11), ad)?,
            }
        }
        self.close(s);
        Ok(())
    }
}
