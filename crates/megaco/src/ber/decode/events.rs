//! BER → model: events descriptors (both levels), event buffers, observed events.

use super::*;

impl Dec<'_> {
    /// An EventsDescriptor, or a SecondEventsDescriptor when `level` is
    /// embedded (see [`EventLevel`]).
    pub(super) fn events(&self, t: Span, level: EventLevel) -> D<EventsDescriptor> {
        let (mut rid, mut list) = (None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => rid = Some(self.u32v(x, "RequestID")?),
                0xA1 => {
                    let mut v = Vec::new();
                    let mut l = self.children(x)?;
                    while let Some(e) = self.next(&mut l)? {
                        expect(e, 0x30, "RequestedEvent (SEQUENCE)")?;
                        let (mut name, mut code, mut sid, mut act, mut pars) =
                            (None, [0u8; 4], None, None, None);
                        let mut c = self.children(e)?;
                        while let Some(y) = self.next(&mut c)? {
                            match y.tag() {
                                0x80 => {
                                    let (n, cd) = self.pkgd(y, ItemKind::Event)?;
                                    name = Some(n);
                                    code = cd;
                                }
                                0x81 => sid = Some(self.u16v(y, "StreamID")?),
                                0xA2 => act = Some(y),
                                0xA3 => pars = Some(y),
                                _ => {}
                            }
                        }
                        let event_action = match act {
                            Some(a) => Some(self.requested_actions(a, level)?),
                            None => None,
                        };
                        v.push(RequestedEvent {
                            pkgd_name: name.ok_or_else(|| missing(e, "pkgdName"))?,
                            stream_id: sid,
                            event_action,
                            ev_par_list: match pars {
                                Some(p) => self.parameters(p, ItemKind::Event, code)?.into(),
                                None => return Err(missing(e, "evParList")),
                            },
                        });
                    }
                    list = Some(v);
                }
                _ => {}
            }
        }
        Ok(EventsDescriptor {
            request_id: rid,
            event_list: list.ok_or_else(|| missing(t, "eventList"))?,
        })
    }

    /// RequestedActions, or SecondRequestedActions when embedded: the
    /// tags are read as their first-level ones, and `secondEvent` exists
    /// at the first level only.
    pub(super) fn requested_actions(&self, t: Span, level: EventLevel) -> D<RequestedActions> {
        let mut a = RequestedActions::default();
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match level.first_level_tag(x.tag()) {
                0x80 => a.keep_active = Some(self.boolean(x)?),
                0xA1 => a.event_dm = self.event_dm(x)?,
                0xA2 => a.second_event = Some(self.events(x, EventLevel::Embedded)?),
                0xA3 => a.signals_descriptor = Some(self.signals(x)?.into()),
                0xA4 => a.notify_behaviour = self.notify_behaviour(x)?,
                0x85 => a.reset_events_descriptor = self.null(x)?,
                _ => {}
            }
        }
        Ok(a)
    }

    pub(super) fn event_dm(&self, t: Span) -> D<Option<EventDm>> {
        let mut c = self.children(t)?;
        let alt = self
            .next(&mut c)?
            .ok_or_else(|| missing(t, "EventDM alternative"))?;
        Ok(match alt.tag() {
            0x80 => Some(EventDm::DigitMapName(self.digit_map_name(alt)?)),
            0xA1 => Some(EventDm::DigitMapValue(self.digit_map_value(alt)?)),
            _ => None,
        })
    }

    pub(super) fn notify_behaviour(&self, t: Span) -> D<Option<NotifyBehaviour>> {
        let alt = self.first(t, "NotifyBehaviour alternative")?;
        Ok(match alt.tag() {
            0x80 => Some(NotifyBehaviour::NotifyImmediate),
            0xA1 => {
                let mut rd = RegulatedEmbeddedDescriptor {
                    second_event: None,
                    signals_descriptor: None,
                };
                let mut r = self.children(alt)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0xA0 => rd.second_event = Some(self.events(x, EventLevel::Embedded)?),
                        0xA1 => rd.signals_descriptor = Some(self.signals(x)?.into()),
                        _ => {}
                    }
                }
                Some(NotifyBehaviour::NotifyRegulated(Box::new(rd)))
            }
            0x82 => Some(NotifyBehaviour::NeverNotify),
            _ => None,
        })
    }

    pub(super) fn event_buffer(&self, t: Span) -> D<Vec<EventSpec>> {
        let mut v = Vec::new();
        let mut r = self.children(t)?;
        while let Some(e) = self.next(&mut r)? {
            expect(e, 0x30, "EventSpec (SEQUENCE)")?;
            let (mut name, mut code, mut sid, mut pars) = (None, [0u8; 4], None, None);
            let mut c = self.children(e)?;
            while let Some(y) = self.next(&mut c)? {
                match y.tag() {
                    0x80 => {
                        let (n, cd) = self.pkgd(y, ItemKind::Event)?;
                        name = Some(n);
                        code = cd;
                    }
                    0x81 => sid = Some(self.u16v(y, "StreamID")?),
                    0xA2 => pars = Some(y),
                    _ => {}
                }
            }
            v.push(EventSpec {
                event_name: name.ok_or_else(|| missing(e, "eventName"))?,
                stream_id: sid,
                event_par_list: match pars {
                    Some(p) => self.parameters(p, ItemKind::Event, code)?,
                    None => return Err(missing(e, "eventParList")),
                },
            });
        }
        Ok(v)
    }

    pub(super) fn observed_events(&self, t: Span) -> D<ObservedEventsDescriptor> {
        let (mut rid, mut list) = (None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => rid = Some(self.u32v(x, "RequestID")?),
                0xA1 => {
                    let mut v = SmallList::new();
                    let mut l = self.children(x)?;
                    while let Some(e) = self.next(&mut l)? {
                        expect(e, 0x30, "ObservedEvent (SEQUENCE)")?;
                        let (mut name, mut code, mut sid, mut pars, mut time) =
                            (None, [0u8; 4], None, None, None);
                        let mut c = self.children(e)?;
                        while let Some(y) = self.next(&mut c)? {
                            match y.tag() {
                                0x80 => {
                                    let (n, cd) = self.pkgd(y, ItemKind::Event)?;
                                    name = Some(n);
                                    code = cd;
                                }
                                0x81 => sid = Some(self.u16v(y, "StreamID")?),
                                0xA2 => pars = Some(y),
                                0xA3 => time = Some(self.time(y)?),
                                _ => {}
                            }
                        }
                        v.push(ObservedEvent {
                            event_name: name.ok_or_else(|| missing(e, "eventName"))?,
                            stream_id: sid,
                            event_par_list: match pars {
                                Some(p) => self.parameters(p, ItemKind::Event, code)?,
                                None => return Err(missing(e, "eventParList")),
                            },
                            time_notation: time,
                        });
                    }
                    list = Some(v);
                }
                _ => {}
            }
        }
        Ok(ObservedEventsDescriptor {
            request_id: rid.ok_or_else(|| missing(t, "requestId"))?,
            observed_event_lst: list.ok_or_else(|| missing(t, "observedEventLst"))?,
        })
    }

    pub(super) fn time(&self, t: Span) -> D<TimeNotation> {
        let (mut date, mut time) = (None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => date = Some(self.string(x)),
                0x81 => time = Some(self.string(x)),
                _ => {}
            }
        }
        Ok(TimeNotation {
            date: date.ok_or_else(|| missing(t, "TimeNotation.date"))?,
            time: time.ok_or_else(|| missing(t, "TimeNotation.time"))?,
        })
    }
}
