//! Events: requested (`Events`), embedded, observed and buffered.
//!
//! One method per construct, following the layout of OTP's
//! `megaco_text_gen_v1/v2/v3` generators; `s` is the indentation depth of
//! the construct being written (ignored by the compact form).

use super::{invalid, Enc, R};
use crate::model::*;

impl Enc<'_> {
    pub(super) fn request_id(&mut self, id: u32) {
        if id == u32::MAX {
            self.byte(b'*');
        } else {
            self.num(id as u64);
        }
    }

    pub(super) fn events_descriptor(&mut self, ev: &EventsDescriptor, s: usize) -> R {
        match (ev.request_id, ev.event_list.is_empty()) {
            (None, true) => {
                self.raw(self.t.events);
                Ok(())
            }
            (Some(rid), false) => {
                self.events_with_id(rid, &ev.event_list, s, Self::requested_event)
            }
            _ => Err(invalid(
                "Events descriptor",
                "needs both a request id and events, or neither",
            )),
        }
    }

    /// `Events = id { … }`, each event written by `event` (first-level or
    /// embedded).
    fn events_with_id(
        &mut self,
        rid: u32,
        events: &[RequestedEvent],
        s: usize,
        event: fn(&mut Self, &RequestedEvent, usize) -> R,
    ) -> R {
        self.raw(self.t.events);
        self.eq();
        self.request_id(rid);
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        for re in events {
            self.item(&mut sep, s1, |e| event(e, re, s1))?;
        }
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn requested_event(&mut self, re: &RequestedEvent, s: usize) -> R {
        self.pkgd_name(&re.pkgd_name)?;
        let s1 = s + 1;
        let body = |e: &mut Self| -> R {
            let mut sep = false;
            if let Some(sid) = re.stream_id {
                e.item(&mut sep, s1, |e| {
                    e.event_stream(sid);
                    Ok(())
                })?;
            }
            for p in &re.ev_par_list {
                e.item(&mut sep, s1, |e| e.event_parameter(p, s1))?;
            }
            if let Some(a) = &re.event_action {
                e.requested_actions(a, &mut sep, s1)?;
            }
            Ok(())
        };
        // Braces only around something: actions with nothing in them
        // write nothing, and `{ }` would not read back.
        self.opt_brackets(s, body)
    }

    pub(super) fn requested_actions(
        &mut self,
        a: &RequestedActions,
        sep: &mut bool,
        s: usize,
    ) -> R {
        let sd_present = a
            .signals_descriptor
            .as_ref()
            .is_some_and(|sd| !sd.is_empty());
        let with_sig = a.keep_active != Some(true) && sd_present;
        if !with_sig {
            if let Some(ka) = a.keep_active {
                self.item(sep, s, |e| {
                    e.keep_active(ka);
                    Ok(())
                })?;
            }
        }
        if let Some(dm) = &a.event_dm {
            self.item(sep, s, |e| e.event_dm(dm, s))?;
        }
        if sd_present {
            let sd = a.signals_descriptor.as_deref().unwrap_or(&[]);
            self.item(sep, s, |e| e.embed_with_sig(a.second_event.as_ref(), sd, s))?;
        } else if let Some(se) = &a.second_event {
            self.item(sep, s, |e| e.embed_no_sig(se, s))?;
        }
        if self.v >= 3 {
            if let Some(nb) = &a.notify_behaviour {
                self.item(sep, s, |e| e.notify_behaviour(nb, s))?;
            }
            if a.reset_events_descriptor {
                self.item_tok(sep, s, self.t.reset_events_descriptor);
            }
        }
        Ok(())
    }

    pub(super) fn keep_active(&mut self, ka: bool) {
        if ka {
            self.raw(self.t.keep_active);
        }
    }

    pub(super) fn event_dm(&mut self, dm: &EventDm, s: usize) -> R {
        self.raw(self.t.digit_map);
        match dm {
            EventDm::DigitMapName(n) => {
                self.eq();
                self.grammar_name(n, "digit map name")
            }
            EventDm::DigitMapValue(v) => {
                // `eventDM = DigitMapToken EQUAL (LBRKT digitMapValue
                // RBRKT)`; OTP leaves the `=` out.
                self.eq();
                self.lb_i(s);
                self.digit_map_value(v, s + 1)?;
                self.rb_i(s);
                Ok(())
            }
        }
    }

    /// `Embed { Events … }`.
    pub(super) fn embed_no_sig(&mut self, se: &EventsDescriptor, s: usize) -> R {
        self.raw(self.t.embed);
        self.lb_i(s);
        self.embed_first(se, s + 1)?;
        self.rb_i(s);
        Ok(())
    }

    /// `Embed { Signals …[, Events …] }`.
    pub(super) fn embed_with_sig(
        &mut self,
        se: Option<&EventsDescriptor>,
        sd: &[SignalRequest],
        s: usize,
    ) -> R {
        self.raw(self.t.embed);
        self.lb_i(s);
        self.signals_descriptor(sd, s + 1)?;
        if let Some(se) = se {
            self.comma_i(s + 1);
            self.embed_first(se, s + 1)?;
        }
        self.rb_i(s);
        Ok(())
    }

    /// `Events` or `Events = id { … }`. The grammar has events only after
    /// a request id: events without one have no text form and are
    /// refused; an id without events is written bare, as OTP writes it.
    pub(super) fn embed_first(&mut self, se: &EventsDescriptor, s: usize) -> R {
        match (se.request_id, se.event_list.is_empty()) {
            (None, false) => Err(invalid(
                "embedded Events descriptor",
                "has events but no request id",
            )),
            (Some(rid), false) => {
                self.events_with_id(rid, &se.event_list, s, Self::second_requested_event)
            }
            (_, true) => {
                self.raw(self.t.events);
                Ok(())
            }
        }
    }

    pub(super) fn second_requested_event(&mut self, re: &RequestedEvent, s: usize) -> R {
        self.pkgd_name(&re.pkgd_name)?;
        let s1 = s + 1;
        let body = |e: &mut Self| -> R {
            let mut sep = false;
            if let Some(sid) = re.stream_id {
                e.item(&mut sep, s1, |e| {
                    e.event_stream(sid);
                    Ok(())
                })?;
            }
            for p in &re.ev_par_list {
                e.item(&mut sep, s1, |e| e.event_parameter(p, s1))?;
            }
            if let Some(a) = &re.event_action {
                e.second_requested_actions(a, &mut sep, s1)?;
            }
            Ok(())
        };
        // Braces only around something: actions with nothing in them
        // write nothing, and `{ }` would not read back.
        self.opt_brackets(s, body)
    }

    pub(super) fn second_requested_actions(
        &mut self,
        a: &RequestedActions,
        sep: &mut bool,
        s: usize,
    ) -> R {
        if self.v < 3 {
            if let Some(ka) = a.keep_active {
                self.item(sep, s, |e| {
                    e.keep_active(ka);
                    Ok(())
                })?;
            }
            if let Some(dm) = &a.event_dm {
                self.item(sep, s, |e| e.event_dm(dm, s))?;
            }
            if let Some(sd) = &a.signals_descriptor {
                self.item(sep, s, |e| e.embed_sig(sd, s))?;
            }
            return Ok(());
        }
        let sd_present = a
            .signals_descriptor
            .as_ref()
            .is_some_and(|sd| !sd.is_empty());
        if sd_present && a.keep_active == Some(true) {
            return Err(invalid(
                "embedded event actions",
                "KeepActive and embedded signals cannot both be present",
            ));
        }
        if !sd_present {
            if let Some(ka) = a.keep_active {
                self.item(sep, s, |e| {
                    e.keep_active(ka);
                    Ok(())
                })?;
            }
        }
        if let Some(dm) = &a.event_dm {
            self.item(sep, s, |e| e.event_dm(dm, s))?;
        }
        if sd_present {
            let sd = a.signals_descriptor.as_deref().unwrap_or(&[]);
            self.item(sep, s, |e| e.embed_sig(sd, s))?;
        }
        if let Some(nb) = &a.notify_behaviour {
            self.item(sep, s, |e| e.notify_behaviour(nb, s))?;
        }
        if a.reset_events_descriptor {
            self.item_tok(sep, s, self.t.reset_events_descriptor);
        }
        Ok(())
    }

    /// `Embed { Signals … }`.
    pub(super) fn embed_sig(&mut self, sd: &[SignalRequest], s: usize) -> R {
        self.raw(self.t.embed);
        self.lb_i(s);
        self.signals_descriptor(sd, s + 1)?;
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn notify_behaviour(&mut self, nb: &NotifyBehaviour, s: usize) -> R {
        match nb {
            NotifyBehaviour::NotifyImmediate => self.raw(self.t.notify_immediate),
            NotifyBehaviour::NeverNotify => self.raw(self.t.never_notify),
            NotifyBehaviour::NotifyRegulated(r) => {
                if self.nesting >= super::MAX_NESTING {
                    return Err(invalid(
                        "regulated notification",
                        "embedded events nested too deeply",
                    ));
                }
                self.nesting += 1;
                self.raw(self.t.notify_regulated);
                match (&r.second_event, &r.signals_descriptor) {
                    (None, None) => {}
                    (Some(se), None) => {
                        self.lb_i(s);
                        self.embed_no_sig(se, s + 1)?;
                        self.rb_i(s);
                    }
                    (se, Some(sd)) => {
                        self.lb_i(s);
                        self.embed_with_sig(se.as_ref(), sd, s + 1)?;
                        self.rb_i(s);
                    }
                }
                self.nesting -= 1;
            }
        }
        Ok(())
    }

    pub(super) fn event_buffer_descriptor(&mut self, eb: &[EventSpec], s: usize) -> R {
        self.raw(self.t.event_buffer);
        if eb.is_empty() {
            return Ok(());
        }
        self.lb_i(s);
        let s1 = s + 1;
        for (i, es) in eb.iter().enumerate() {
            if i > 0 {
                self.comma_i(s1);
            }
            self.pkgd_name(&es.event_name)?;
            let s2 = s1 + 1;
            let body = |e: &mut Self| -> R {
                let mut sep = false;
                if let Some(sid) = es.stream_id {
                    e.item(&mut sep, s2, |e| {
                        e.event_stream(sid);
                        Ok(())
                    })?;
                }
                for p in &es.event_par_list {
                    e.item(&mut sep, s2, |e| e.event_parameter(p, s2))?;
                }
                Ok(())
            };
            if self.v >= 3 {
                if es.stream_id.is_some() || !es.event_par_list.is_empty() {
                    self.lb_i(s1);
                    body(self)?;
                    self.rb_i(s1);
                }
            } else {
                self.opt_brackets(s1, body)?;
            }
        }
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn observed_events_descriptor(
        &mut self,
        oe: &ObservedEventsDescriptor,
        s: usize,
    ) -> R {
        if oe.observed_event_lst.is_empty() {
            return Err(invalid("ObservedEvents descriptor", "no events"));
        }
        self.raw(self.t.observed_events);
        self.eq();
        self.request_id(oe.request_id);
        self.lb_i(s);
        let s1 = s + 1;
        for (i, ev) in oe.observed_event_lst.iter().enumerate() {
            if i > 0 {
                self.comma_i(s1);
            }
            if let Some(tn) = &ev.time_notation {
                self.time_notation(tn)?;
                self.byte(b':');
            }
            self.pkgd_name(&ev.event_name)?;
            let s2 = s1 + 1;
            self.opt_brackets(s1, |e| {
                let mut sep = false;
                if let Some(sid) = ev.stream_id {
                    e.item(&mut sep, s2, |e| {
                        e.event_stream(sid);
                        Ok(())
                    })?;
                }
                for p in &ev.event_par_list {
                    e.item(&mut sep, s2, |e| e.event_parameter(p, s2))?;
                }
                Ok(())
            })?;
        }
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn time_notation(&mut self, tn: &TimeNotation) -> R {
        // `TimeStamp = Date "T" Time`, each 8 digits: the binary
        // encodings carry any 8 IA5 characters, which text cannot.
        let digits = |s: &str| s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(&tn.date) || !digits(&tn.time) {
            return Err(invalid("time stamp", "date and time need 8 digits each"));
        }
        self.str(&tn.date);
        self.byte(b'T');
        self.str(&tn.time);
        Ok(())
    }
}
