//! Model → BER: events descriptors (both levels), event buffers, observed events.

use super::*;

impl Enc<'_> {
    /// An EventsDescriptor (`level` first) or SecondEventsDescriptor
    /// (embedded): the same SEQUENCE but for the actions of its events.
    pub(super) fn events(&mut self, tag: u8, e: &EventsDescriptor, level: EventLevel) -> R {
        if e.request_id.is_none() && !self.standard && self.version == 1 {
            // OTP's v1 module makes it mandatory (as IG 6.82 had it).
            return Err(invalid(
                "EventsDescriptor.requestID",
                "mandatory in version 1",
            ));
        }
        let s = self.open(tag);
        self.opt_uint(p(0), e.request_id);
        let l = self.open(c(1));
        for ev in &e.event_list {
            let x = self.open(SEQ);
            let code = self.pkgd(p(0), ItemKind::Event, &ev.pkgd_name)?;
            self.opt_uint(p(1), ev.stream_id);
            if let Some(a) = &ev.event_action {
                self.requested_actions(c(2), a, level)?;
            }
            self.parameters(c(3), ItemKind::Event, code, &ev.ev_par_list)?;
            self.close(x);
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    /// RequestedActions, or SecondRequestedActions when embedded (no
    /// `secondEvent`; see [`EventLevel::tag`]).
    pub(super) fn requested_actions(
        &mut self,
        tag: u8,
        a: &RequestedActions,
        level: EventLevel,
    ) -> R {
        let y = self.open(tag);
        self.opt_bool(p(0), a.keep_active);
        self.event_dm(c(1), &a.event_dm)?;
        if let (EventLevel::First, Some(se)) = (level, &a.second_event) {
            self.second_events(c(2), se)?;
        }
        if let Some(sd) = &a.signals_descriptor {
            self.signals(level.tag(c(3)), sd)?;
        }
        self.notify_behaviour(level.tag(c(4)), &a.notify_behaviour)?;
        self.flag(level.tag(p(5)), a.reset_events_descriptor);
        self.close(y);
        Ok(())
    }

    /// Embedded events, within the nesting limit (the one recursive type:
    /// regulated notify behaviours hold embedded events again).
    pub(super) fn second_events(&mut self, tag: u8, e: &EventsDescriptor) -> R {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(invalid(
                "embedded events",
                format!("nested deeper than max_depth {}", self.max_depth),
            ));
        }
        let r = self.events(tag, e, EventLevel::Embedded);
        self.depth -= 1;
        r
    }

    pub(super) fn event_dm(&mut self, tag: u8, dm: &Option<EventDm>) -> R {
        if let Some(dm) = dm {
            let s = self.open(tag);
            match dm {
                EventDm::DigitMapName(n) => self.digit_map_name(p(0), n)?,
                EventDm::DigitMapValue(v) => self.digit_map_value(c(1), v)?,
            }
            self.close(s);
        }
        Ok(())
    }

    pub(super) fn notify_behaviour(&mut self, tag: u8, nb: &Option<NotifyBehaviour>) -> R {
        if let Some(nb) = nb {
            let s = self.open(tag);
            match nb {
                NotifyBehaviour::NotifyImmediate => self.null(p(0)),
                NotifyBehaviour::NotifyRegulated(r) => {
                    let x = self.open(c(1));
                    if let Some(se) = &r.second_event {
                        self.second_events(c(0), se)?;
                    }
                    if let Some(sd) = &r.signals_descriptor {
                        self.signals(c(1), sd)?;
                    }
                    self.close(x);
                }
                NotifyBehaviour::NeverNotify => self.null(p(2)),
            }
            self.close(s);
        }
        Ok(())
    }

    pub(super) fn event_buffer(&mut self, tag: u8, eb: &[EventSpec]) -> R {
        let l = self.open(tag);
        for es in eb {
            let x = self.open(SEQ);
            let code = self.pkgd(p(0), ItemKind::Event, &es.event_name)?;
            self.opt_uint(p(1), es.stream_id);
            self.parameters(c(2), ItemKind::Event, code, &es.event_par_list)?;
            self.close(x);
        }
        self.close(l);
        Ok(())
    }

    pub(super) fn observed_events(&mut self, tag: u8, o: &ObservedEventsDescriptor) -> R {
        let s = self.open(tag);
        self.uint(p(0), u64::from(o.request_id));
        let l = self.open(c(1));
        for ev in &o.observed_event_lst {
            let x = self.open(SEQ);
            let code = self.pkgd(p(0), ItemKind::Event, &ev.event_name)?;
            self.opt_uint(p(1), ev.stream_id);
            self.parameters(c(2), ItemKind::Event, code, &ev.event_par_list)?;
            if let Some(t) = &ev.time_notation {
                self.time(c(3), t)?;
            }
            self.close(x);
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    /// `TimeNotation`: date and time are `IA5String (SIZE(8))`, which
    /// Erlang/OTP's decoder enforces; anything else is refused.
    pub(super) fn time(&mut self, tag: u8, t: &TimeNotation) -> R {
        if t.date.len() != 8 || t.time.len() != 8 || !(t.date.is_ascii() && t.time.is_ascii()) {
            return Err(invalid(
                "TimeNotation",
                "date and time are 8 characters each",
            ));
        }
        let s = self.open(tag);
        self.prim(p(0), t.date.as_bytes());
        self.prim(p(1), t.time.as_bytes());
        self.close(s);
        Ok(())
    }
}
