//! Commands, the context properties beside them, and termination ids.
//!
//! One method per construct, following the layout of OTP's
//! `megaco_text_gen_v1/v2/v3` generators; `s` is the indentation depth of
//! the construct being written (ignored by the compact form).

use super::{invalid, Enc, R};
use crate::model::*;

impl Enc<'_> {
    /// The items of a ContextRequest, as elements of the enclosing list.
    pub(super) fn context_request_items(
        &mut self,
        cr: &ContextRequest,
        sep: &mut bool,
        s: usize,
    ) -> R {
        if let Some(p) = cr.priority {
            self.item(sep, s, |e| {
                e.raw(e.t.priority);
                e.eq();
                e.num(p as u64);
                Ok(())
            })?;
        }
        if let Some(em) = cr.emergency {
            self.item(sep, s, |e| {
                if em {
                    e.raw(e.t.emergency);
                } else if e.v >= 2 {
                    e.emergency_off();
                }
                Ok(())
            })?;
        }
        if let Some(tr) = &cr.topology_req {
            if tr.is_empty() {
                return Err(invalid("topology", "no topology triples"));
            }
            self.item(sep, s, |e| e.topology(tr, s))?;
        }
        if self.v >= 3 {
            if let Some(ieps) = cr.iepscallind {
                self.item(sep, s, |e| {
                    e.ieps_value(ieps);
                    Ok(())
                })?;
            }
            if let Some(props) = &cr.context_prop {
                if !props.is_empty() {
                    self.item(sep, s, |e| {
                        e.raw(e.t.context_attr);
                        e.lb_i(s);
                        for (i, p) in props.iter().enumerate() {
                            if i > 0 {
                                e.comma_i(s);
                            }
                            e.property_parm(p, s)?;
                        }
                        e.rb_i(s);
                        Ok(())
                    })?;
                }
            }
            if let Some(list) = &cr.context_list {
                if !list.is_empty() {
                    self.item(sep, s, |e| {
                        e.raw(e.t.context_attr);
                        e.lb_i(s);
                        e.raw(e.t.context_list);
                        e.eq();
                        e.lb_i(s + 1);
                        for (i, c) in list.iter().enumerate() {
                            if i > 0 {
                                e.comma_i(s + 2);
                            }
                            e.context_id(*c);
                        }
                        e.rb_i(s + 1);
                        e.rb_i(s);
                        Ok(())
                    })?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn emergency_off(&mut self) {
        if self.pretty && self.v < 3 {
            self.raw(super::tokens::PRETTY_V2_EMERGENCY_OFF);
        } else {
            self.raw(self.t.emergency_off);
        }
    }

    pub(super) fn on_off(&mut self, b: bool) {
        self.raw(if b { self.t.on } else { self.t.off });
    }

    pub(super) fn ieps_value(&mut self, b: bool) {
        self.raw(self.t.ieps);
        self.eq();
        self.on_off(b);
    }

    pub(super) fn topology(&mut self, tr: &[TopologyRequest], s: usize) -> R {
        self.raw(self.t.topology);
        self.lb_i(s);
        let s1 = s + 1;
        // v1/v2 indent the parts of a triple one level deeper than v3.
        let si = if self.v >= 3 { s1 } else { s1 + 1 };
        for (i, t) in tr.iter().enumerate() {
            if i > 0 {
                self.comma_i(s1);
            }
            self.termination_id(&t.termination_from)?;
            self.comma_i(si);
            self.termination_id(&t.termination_to)?;
            self.comma_i(si);
            self.raw(match t.topology_direction {
                TopologyDirection::Bothway => self.t.bothway,
                TopologyDirection::Isolate => self.t.isolate,
                TopologyDirection::Oneway => self.t.oneway,
            });
            if self.v >= 2 {
                if let Some(sid) = t.stream_id {
                    self.comma_i(si);
                    self.event_stream(sid);
                }
            }
            if self.v >= 3 {
                if let Some(ext) = t.topology_direction_extension {
                    self.comma_i(si);
                    self.raw(match ext {
                        TopologyDirectionExtension::OnewayExternal => self.t.oneway_external,
                        TopologyDirectionExtension::OnewayBoth => self.t.oneway_both,
                    });
                }
            }
        }
        self.rb_i(s);
        Ok(())
    }

    /// `Stream = id`.
    pub(super) fn event_stream(&mut self, sid: u16) {
        self.raw(self.t.stream);
        self.eq();
        self.num(sid as u64);
    }

    pub(super) fn context_attr_audit_v1(&mut self, c: &ContextAttrAuditRequest, s: usize) -> R {
        // Nothing to audit: no `ContextAudit { }`, which no parser reads.
        if !(c.topology || c.emergency || c.priority) {
            return Ok(());
        }
        self.raw(self.t.context_audit);
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        if c.topology {
            self.item_tok(&mut sep, s1, self.t.topology);
        }
        if c.emergency {
            self.item_tok(&mut sep, s1, self.t.emergency);
        }
        if c.priority {
            self.item_tok(&mut sep, s1, self.t.priority);
        }
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn context_attr_audit_v3(&mut self, c: &ContextAttrAuditRequest, s: usize) -> R {
        // AND, the default select logic, is not written (as OTP).
        let writes_nothing =
            c.is_empty() || (c.select_logic == Some(SelectLogic::And) && c.is_empty_but_logic());
        if writes_nothing {
            return Ok(());
        }
        self.raw(self.t.context_audit);
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        if c.topology {
            self.item_tok(&mut sep, s1, self.t.topology);
        }
        if c.emergency {
            self.item_tok(&mut sep, s1, self.t.emergency);
        }
        if c.priority {
            self.item_tok(&mut sep, s1, self.t.priority);
        }
        if c.iepscallind {
            self.item_tok(&mut sep, s1, self.t.ieps);
        }
        if let Some(cpa) = &c.context_prop_aud {
            self.ind_aud_property_parms(cpa, &mut sep, s1)?;
        }
        if let Some(p) = c.select_priority {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.priority);
                e.eq();
                e.num(p as u64);
                Ok(())
            })?;
        }
        if let Some(em) = c.select_emergency {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.emergency_value);
                e.eq();
                e.raw(if em { e.t.emergency } else { e.t.emergency_off });
                Ok(())
            })?;
        }
        if let Some(ieps) = c.select_iepscallind {
            self.item(&mut sep, s1, |e| {
                e.ieps_value(ieps);
                Ok(())
            })?;
        }
        if let Some(SelectLogic::Or) = c.select_logic {
            self.item_tok(&mut sep, s1, self.t.or_audit_select);
        }
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn command_request(&mut self, c: &CommandRequest, s: usize) -> R {
        if c.optional {
            self.raw(b"O-");
        }
        if c.wildcard_return {
            self.raw(b"W-");
        }
        match &c.command {
            Command::Add(r) => {
                self.raw(self.t.add);
                self.amm_request(r, s)
            }
            Command::Move(r) => {
                self.raw(self.t.move_);
                self.amm_request(r, s)
            }
            Command::Modify(r) => {
                self.raw(self.t.modify);
                self.amm_request(r, s)
            }
            Command::Subtract(r) => {
                self.raw(self.t.subtract);
                self.eq();
                self.term_id_list(&r.termination_ids, s)?;
                if let Some(ad) = &r.audit_descriptor {
                    self.lb_i(s);
                    self.audit_descriptor(ad, s + 1)?;
                    self.rb_i(s);
                }
                Ok(())
            }
            Command::AuditCapability(r) => {
                self.raw(self.t.audit_cap);
                self.audit_request(r, s)
            }
            Command::AuditValue(r) => {
                self.raw(self.t.audit_value);
                self.audit_request(r, s)
            }
            Command::Notify(r) => {
                self.raw(self.t.notify);
                self.notify_request(r, s)
            }
            Command::ServiceChange(r) => {
                self.raw(self.t.service_change);
                self.eq();
                self.term_id_list(&r.termination_ids, s)?;
                self.lb_i(s);
                self.service_change_parm(&r.service_change_parms, s + 1)?;
                self.rb_i(s);
                Ok(())
            }
        }
    }

    pub(super) fn amm_request(&mut self, r: &AmmRequest, s: usize) -> R {
        self.eq();
        self.term_id_list(&r.termination_ids, s)?;
        let s1 = s + 1;
        self.opt_brackets(s, |e| {
            let mut sep = false;
            for d in &r.descriptors {
                e.item(&mut sep, s1, |e| e.amm_descriptor(d, s1))?;
            }
            Ok(())
        })
    }

    pub(super) fn amm_descriptor(&mut self, d: &AmmDescriptor, s: usize) -> R {
        match d {
            AmmDescriptor::Media(m) => self.media_descriptor(m, s),
            AmmDescriptor::Modem(m) => self.modem_descriptor(m, s),
            AmmDescriptor::Mux(m) => self.mux_descriptor(m, s),
            AmmDescriptor::Events(ev) => self.events_descriptor(ev, s),
            AmmDescriptor::EventBuffer(eb) => self.event_buffer_descriptor(eb, s),
            AmmDescriptor::Signals(sd) => self.signals_descriptor(sd, s),
            AmmDescriptor::DigitMap(dm) => self.digit_map_descriptor(dm, s),
            AmmDescriptor::Audit(ad) => self.audit_descriptor(ad, s),
            // (bare `Statistics` is an audit-reply item, not a descriptor)
            AmmDescriptor::Statistics(sd) if sd.is_empty() => Err(invalid(
                "statistics descriptor",
                "empty (text needs at least one statistic)",
            )),
            AmmDescriptor::Statistics(sd) => self.statistics_descriptor(sd, s),
        }
    }

    pub(super) fn audit_request(&mut self, r: &AuditRequest, s: usize) -> R {
        self.eq();
        match &r.termination_id_list {
            Some(list) if self.v >= 3 => {
                if list.first() != Some(&r.termination_id) {
                    return Err(invalid(
                        "audit request",
                        "termination id list must start with the termination id",
                    ));
                }
                self.term_id_list(list, s)?;
            }
            _ => self.termination_id(&r.termination_id)?,
        }
        self.lb_i(s);
        self.audit_descriptor(&r.audit_descriptor, s + 1)?;
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn notify_request(&mut self, r: &NotifyRequest, s: usize) -> R {
        self.eq();
        self.term_id_list(&r.termination_ids, s)?;
        self.lb_i(s);
        // ObservedEvents is mandatory (as in the ASN.1); an Error follows
        // it in every version, rather than replacing it, so nothing in the
        // model is lost and the decoder reads it back.
        self.observed_events_descriptor(&r.observed_events_descriptor, s + 1)?;
        if let Some(ed) = &r.error_descriptor {
            self.comma();
            self.error_descriptor(ed)?;
        }
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn termination_id(&mut self, t: &TerminationId) -> R {
        if t.as_str().is_empty() {
            return Err(invalid("termination id", "empty"));
        }
        // OTP keeps the root termination as `root` and writes it so.
        if t.is_root() {
            self.raw(b"root");
            Ok(())
        } else {
            // one word to the scanner, like a name
            self.bounded(t.as_str(), 1, usize::MAX, "termination id")
        }
    }

    /// A command's termination ids: one bare id, or (v3) a bracketed list.
    pub(super) fn term_id_list(&mut self, tids: &[TerminationId], s: usize) -> R {
        match tids {
            [] => Err(invalid("termination id list", "empty")),
            [one] => self.termination_id(one),
            many => {
                if self.v < 3 {
                    return Err(invalid(
                        "termination id list",
                        "several termination ids in one command need v3",
                    ));
                }
                self.lsb_i(s);
                for (i, t) in many.iter().enumerate() {
                    if i > 0 {
                        self.comma_i(s + 1);
                    }
                    self.termination_id(t)?;
                }
                self.rsb_i(s);
                Ok(())
            }
        }
    }

    /// `LBRKT TerminationID *(COMMA TerminationID) RBRKT`.
    pub(super) fn termination_id_list_braced(&mut self, tids: &[TerminationId], s: usize) -> R {
        if tids.is_empty() {
            return Err(invalid("termination id list", "empty"));
        }
        self.lb_i(s);
        for (i, t) in tids.iter().enumerate() {
            if i > 0 {
                self.comma_i(s);
            }
            self.termination_id(t)?;
        }
        self.rb_i(s);
        Ok(())
    }
}
