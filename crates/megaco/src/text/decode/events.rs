//! Events: requested (`Events`), embedded, observed and buffered.

use super::media::Dm;
use super::{text, Parser};
use crate::model::*;
use crate::text::keyword::Kw;
use crate::text::lexer::{R, UINT32};
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

/// The parameter list of an event: a `Vec` or a one-element `SmallList`.
trait Params {
    fn add(&mut self, p: PropertyParm);
    fn count(&self) -> usize;
}

impl Params for Vec<PropertyParm> {
    fn add(&mut self, p: PropertyParm) {
        self.push(p);
    }
    fn count(&self) -> usize {
        self.len()
    }
}

impl Params for SmallList<PropertyParm> {
    fn add(&mut self, p: PropertyParm) {
        self.push(p);
    }
    fn count(&self) -> usize {
        self.len()
    }
}

impl Parser<'_> {
    pub(super) fn request_id(&mut self) -> R<u32> {
        let (at, w) = self.word("a request id")?;
        if w == "*" {
            return Ok(u32::MAX);
        }
        Ok(self.number(at, w, "a request id", UINT32)? as u32)
    }

    /// `Events` alone, or `Events = id { event, ... }`, into `ed`.
    pub(super) fn events_descriptor(&mut self, ed: &mut EventsDescriptor) -> R<()> {
        self.requested_events(EvKind::Requested, ed)
    }

    /// The events of an Events descriptor (`kind` Requested) or of an
    /// embedded one (`kind` Second), after the keyword.
    fn requested_events(&mut self, kind: EvKind, ed: &mut EventsDescriptor) -> R<()> {
        if !self.eat(b'=') {
            return Ok(());
        }
        ed.request_id = Some(self.request_id()?);
        self.braced(|p| {
            let pkgd_name = p.pkgd_name()?;
            ed.event_list.push(RequestedEvent {
                pkgd_name,
                ..RequestedEvent::default()
            });
            if let Some(re) = ed.event_list.last_mut() {
                p.event_parms(
                    kind,
                    &mut re.stream_id,
                    &mut re.ev_par_list,
                    &mut re.event_action,
                )?;
            }
            Ok(())
        })
    }

    /// The optional `{ ... }` parameters of an event: its stream, its
    /// other parameters and (in Events descriptors) its requested actions,
    /// `Some` once one is given.
    fn event_parms(
        &mut self,
        kind: EvKind,
        stream_id: &mut Option<u16>,
        params: &mut impl Params,
        actions: &mut Option<RequestedActions>,
    ) -> R<()> {
        if self.peek() != Some(b'{') {
            return Ok(());
        }
        self.braced(|p| {
            let t = p.token("an event parameter")?;
            let k = if kind == EvKind::Plain {
                t.kw.filter(|k| *k == Kw::Stream)
            } else {
                t.kw
            };
            if k == Some(Kw::Stream) {
                if stream_id.is_some() {
                    return Err(p.dup(t.at, "Stream"));
                }
                p.equal()?;
                *stream_id = Some(p.u16_word("a stream id")?);
                return Ok(());
            }
            if !matches!(
                k,
                Some(
                    Kw::KeepActive
                        | Kw::ResetEventsDescriptor
                        | Kw::DigitMap
                        | Kw::ImmediateNotify
                        | Kw::NeverNotify
                        | Kw::RegulatedNotify
                        | Kw::Embed
                )
            ) {
                let name = p.name(t.at, t.text, "event parameter name")?;
                params.add(p.parm_value(name)?);
                if params.count() > p.limits.max_list_len {
                    return Err(p.too_many());
                }
                return Ok(());
            }
            let a = actions.get_or_insert_with(RequestedActions::default);
            match k {
                Some(Kw::KeepActive) => {
                    if a.keep_active.is_some() {
                        return Err(p.dup(t.at, "KeepActive"));
                    }
                    a.keep_active = Some(true);
                }
                Some(Kw::ResetEventsDescriptor) => a.reset_events_descriptor = true,
                Some(Kw::DigitMap) => {
                    if a.event_dm.is_some() {
                        return Err(p.dup(t.at, "DigitMap"));
                    }
                    let d = match p.digit_map(true)? {
                        Dm::Desc(d) => d,
                        Dm::Bare => return Err(p.expected("`=` or `{` after DigitMap")),
                    };
                    // `eventDM = DigitMapToken EQUAL (digitMapName /
                    // (LBRKT digitMapValue RBRKT))`: one or the other.
                    a.event_dm = Some(match (d.digit_map_value, d.digit_map_name) {
                        (Some(v), None) => EventDm::DigitMapValue(v),
                        (None, Some(name)) => EventDm::DigitMapName(name),
                        _ => return Err(p.invalid(t.at, t.text, "DigitMap (a name or a value)")),
                    });
                }
                Some(Kw::Embed) => {
                    if a.signals_descriptor.is_some() || a.second_event.is_some() {
                        return Err(p.dup(t.at, "Embed"));
                    }
                    let (sd, se) = p.embed(kind)?;
                    a.signals_descriptor = sd;
                    a.second_event = se;
                }
                _ => {
                    if a.notify_behaviour.is_some() {
                        return Err(p.dup(t.at, "notification behaviour"));
                    }
                    a.notify_behaviour = Some(match k {
                        Some(Kw::ImmediateNotify) => NotifyBehaviour::NotifyImmediate,
                        Some(Kw::NeverNotify) => NotifyBehaviour::NeverNotify,
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
                }
            }
            Ok(())
        })
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
                    se = Some(self.second_events()?);
                }
            }
            Some(Kw::Events) if kind != EvKind::Second => se = Some(self.second_events()?),
            _ => return Err(self.unknown(t, "Signals or Events")),
        }
        self.close()?;
        Ok((sd, se))
    }

    /// Embedded `Events` (after the keyword).
    fn second_events(&mut self) -> R<EventsDescriptor> {
        let mut ed = EventsDescriptor::default();
        self.requested_events(EvKind::Second, &mut ed)?;
        Ok(ed)
    }

    /// `= id { [timestamp:] event [{params}], ... }` after `ObservedEvents`,
    /// into `oed`.
    pub(super) fn observed_events(&mut self, oed: &mut ObservedEventsDescriptor) -> R<()> {
        self.equal()?;
        oed.request_id = self.request_id()?;
        self.braced(|p| {
            let (at, w) = p.word("an observed event")?;
            let mut oe = ObservedEvent::default();
            if is_timestamp(w.as_bytes()) {
                p.expect(b':', "`:` after the time stamp")?;
                let (at2, w2) = p.word("an event name")?;
                oe.time_notation = Some(time_notation(w));
                oe.event_name = p.pkgd_name_from(at2, w2)?;
            } else {
                oe.event_name = p.pkgd_name_from(at, w)?;
            }
            p.event_parms(
                EvKind::Plain,
                &mut oe.stream_id,
                &mut oe.event_par_list,
                &mut None,
            )?;
            oed.observed_event_lst.push(oe);
            Ok(())
        })
    }

    /// `EventBuffer` alone, or `EventBuffer { event, ... }`.
    pub(super) fn event_buffer_descriptor(&mut self) -> R<EventBufferDescriptor> {
        let mut out = Vec::new();
        if self.peek() != Some(b'{') {
            return Ok(out);
        }
        self.braced(|p| {
            let mut es = EventSpec {
                event_name: p.pkgd_name()?,
                ..EventSpec::default()
            };
            p.event_parms(
                EvKind::Plain,
                &mut es.stream_id,
                &mut es.event_par_list,
                &mut None,
            )?;
            out.push(es);
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
