//! Events: requested (`Events`), embedded, observed and buffered.

use super::media::Dm;
use super::{lower, text, Parser};
use crate::model::*;
use crate::text::keyword::Kw;
use crate::text::lexer::R;
use crate::text::scalar::is_timestamp;

/// Which event parameters a list may hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EvKind {
    /// Events descriptor: everything.
    Requested,
    /// Embedded events: no embedded events inside.
    Second,
    /// Observed events and event specs: stream and parameters only.
    Plain,
}

/// Parts of an event parameter list, before they become a requested
/// event, a second (embedded) event, an observed event or an event spec.
#[derive(Default)]
struct EventParms {
    stream_id: Option<u16>,
    params: Vec<PropertyParm>,
    /// Whether any of the requested actions below is given.
    has_action: bool,
    actions: RequestedActions,
}

impl Parser<'_> {
    pub(super) fn request_id(&mut self) -> R<u32> {
        let (at, w) = self.word("a request id")?;
        if w == "*" {
            return Ok(u32::MAX);
        }
        Ok(self.number(at, w, "a request id", u32::MAX.into())? as u32)
    }

    /// `Events` alone, or `Events = id { event, ... }`.
    pub(super) fn events_descriptor(&mut self) -> R<EventsDescriptor> {
        self.requested_events(EvKind::Requested)
    }

    /// The events of an Events descriptor (`kind` Requested) or of an
    /// embedded one (`kind` Second), after the keyword.
    fn requested_events(&mut self, kind: EvKind) -> R<EventsDescriptor> {
        let mut ed = EventsDescriptor::default();
        if !self.eat(b'=') {
            return Ok(ed);
        }
        ed.request_id = Some(self.request_id()?);
        self.braced(|p| {
            let pkgd_name = p.pkgd_name()?;
            let ep = p.event_parms(kind)?;
            ed.event_list.push(RequestedEvent {
                pkgd_name,
                stream_id: ep.stream_id,
                event_action: ep.has_action.then_some(ep.actions),
                ev_par_list: ep.params.into(),
            });
            Ok(())
        })?;
        Ok(ed)
    }

    /// The optional `{ ... }` parameters of an event.
    fn event_parms(&mut self, kind: EvKind) -> R<EventParms> {
        let mut ep = EventParms::default();
        if self.peek() != Some(b'{') {
            return Ok(ep);
        }
        self.braced(|p| {
            let t = p.token("an event parameter")?;
            let k = if kind == EvKind::Plain {
                t.kw.filter(|k| *k == Kw::Stream)
            } else {
                t.kw
            };
            let a = &mut ep.actions;
            match k {
                Some(Kw::Stream) => {
                    if ep.stream_id.is_some() {
                        return Err(p.dup(t.at, "Stream"));
                    }
                    p.equal()?;
                    ep.stream_id = Some(p.u16_word("a stream id")?);
                }
                Some(Kw::KeepActive) => {
                    if a.keep_active.is_some() {
                        return Err(p.dup(t.at, "KeepActive"));
                    }
                    a.keep_active = Some(true);
                    ep.has_action = true;
                }
                Some(Kw::ResetEventsDescriptor) => {
                    a.reset_events_descriptor = true;
                    ep.has_action = true;
                }
                Some(Kw::DigitMap) => {
                    if a.event_dm.is_some() {
                        return Err(p.dup(t.at, "DigitMap"));
                    }
                    let d = match p.digit_map()? {
                        Dm::Desc(d) => d,
                        Dm::Bare => return Err(p.expected("`=` or `{` after DigitMap")),
                    };
                    a.event_dm = Some(match (d.digit_map_value, d.digit_map_name) {
                        (Some(v), _) => EventDm::DigitMapValue(v),
                        (None, Some(name)) => EventDm::DigitMapName(name),
                        (None, None) => return Err(p.invalid(t.at, t.text, "DigitMap (empty)")),
                    });
                    ep.has_action = true;
                }
                Some(k @ (Kw::ImmediateNotify | Kw::NeverNotify | Kw::RegulatedNotify)) => {
                    if a.notify_behaviour.is_some() {
                        return Err(p.dup(t.at, "notification behaviour"));
                    }
                    a.notify_behaviour = Some(match k {
                        Kw::ImmediateNotify => NotifyBehaviour::NotifyImmediate,
                        Kw::NeverNotify => NotifyBehaviour::NeverNotify,
                        _ => {
                            let mut red = RegulatedEmbeddedDescriptor::default();
                            if p.peek() == Some(b'{') {
                                p.open()?;
                                p.expect_kw(Kw::Embed, "Embed")?;
                                let (sd, se) = p.embed(EvKind::Requested)?;
                                red.signals_descriptor = sd;
                                red.second_event = se;
                                p.close()?;
                            }
                            NotifyBehaviour::NotifyRegulated(Box::new(red))
                        }
                    });
                    ep.has_action = true;
                }
                Some(Kw::Embed) => {
                    if a.signals_descriptor.is_some() || a.second_event.is_some() {
                        return Err(p.dup(t.at, "Embed"));
                    }
                    let (sd, se) = p.embed(kind)?;
                    a.signals_descriptor = sd;
                    a.second_event = se;
                    ep.has_action = true;
                }
                _ => {
                    let name = lower(t.text);
                    ep.params.push(p.parm_value(name)?);
                    if ep.params.len() > p.limits.max_list_len {
                        return Err(p.too_many());
                    }
                }
            }
            Ok(())
        })?;
        Ok(ep)
    }

    /// `{ Signals {...} [, Events = id {...}] }` or `{ Events ... }` after
    /// `Embed`. Inside embedded events (`kind == Second`) only signals.
    fn embed(&mut self, kind: EvKind) -> R<(Option<SignalsDescriptor>, Option<EventsDescriptor>)> {
        self.open()?;
        let mut sd = None;
        let mut se = None;
        let t = self.token("Signals or Events")?;
        match t.kw {
            Some(Kw::Signals) => {
                sd = Some(self.signals_descriptor()?);
                if kind != EvKind::Second && self.eat(b',') {
                    self.expect_kw(Kw::Events, "Events")?;
                    se = Some(self.requested_events(EvKind::Second)?);
                }
            }
            Some(Kw::Events) if kind != EvKind::Second => {
                se = Some(self.requested_events(EvKind::Second)?)
            }
            _ => return Err(self.unknown(t, "Signals or Events")),
        }
        self.close()?;
        Ok((sd, se))
    }

    /// `= id { [timestamp:] event [{params}], ... }` after `ObservedEvents`.
    pub(super) fn observed_events(&mut self) -> R<ObservedEventsDescriptor> {
        self.equal()?;
        let mut oed = ObservedEventsDescriptor {
            request_id: self.request_id()?,
            observed_event_lst: SmallList::new(),
        };
        self.braced(|p| {
            let (at, w) = p.word("an observed event")?;
            let (time_notation, event_name) = if is_timestamp(w.as_bytes()) {
                p.expect(b':', "`:` after the time stamp")?;
                let (at2, w2) = p.word("an event name")?;
                (Some(time_notation(w)), p.pkgd_name_from(at2, w2)?)
            } else {
                (None, p.pkgd_name_from(at, w)?)
            };
            let ep = p.event_parms(EvKind::Plain)?;
            oed.observed_event_lst.push(ObservedEvent {
                event_name,
                stream_id: ep.stream_id,
                event_par_list: ep.params,
                time_notation,
            });
            Ok(())
        })?;
        Ok(oed)
    }

    /// `EventBuffer` alone, or `EventBuffer { event, ... }`.
    pub(super) fn event_buffer_descriptor(&mut self) -> R<EventBufferDescriptor> {
        let mut out = Vec::new();
        if self.peek() != Some(b'{') {
            return Ok(out);
        }
        self.braced(|p| {
            let event_name = p.pkgd_name()?;
            let ep = p.event_parms(EvKind::Plain)?;
            out.push(EventSpec {
                event_name,
                stream_id: ep.stream_id,
                event_par_list: ep.params,
            });
            Ok(())
        })?;
        Ok(out)
    }
}

/// The date and time of a `yyyymmddThhmmssss` word.
pub(super) fn time_notation(w: &str) -> TimeNotation {
    TimeNotation {
        date: text(&w[..8]),
        time: text(&w[9..]),
    }
}
