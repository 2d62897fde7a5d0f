//! Events: requested (`Events`), embedded, observed and buffered.

use super::*;

pub(super) fn request_id_v1(w: &mut BitWriter<'_>, cx: &Cx<'_>, id: Option<u32>) -> R {
    if cx.v >= 2 {
        w.bit(id.is_some());
        Ok(())
    } else if id.is_none() {
        Err(invalid(
            "EventsDescriptor.requestID",
            "mandatory in version 1",
        ))
    } else {
        Ok(())
    }
}

pub(super) fn events_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, e: &EventsDescriptor) -> R {
    w.bit(false);
    request_id_v1(w, cx, e.request_id)?;
    if let Some(r) = e.request_id {
        u32_(w, r);
    }
    seq_of(w, &e.event_list, |w, ev| {
        w.bit(false);
        w.bit(ev.stream_id.is_some());
        w.bit(ev.event_action.is_some());
        pkgd(w, cx, Scope::Event, &ev.pkgd_name)?;
        if let Some(s) = ev.stream_id {
            u16_(w, s);
        }
        if let Some(a) = &ev.event_action {
            requested_actions(w, cx, a)?;
        }
        parameters(w, cx, Scope::Event, &ev.pkgd_name, &ev.ev_par_list)
    })
}

pub(super) fn event_dm(w: &mut BitWriter<'_>, cx: &Cx<'_>, d: &EventDm) -> R {
    match d {
        EventDm::DigitMapName(n) => {
            w.bits(0, 1);
            let code = cx.form.dialplan_to_asn1(n)?;
            w.octets(&code);
            Ok(())
        }
        EventDm::DigitMapValue(v) => {
            w.bits(1, 1);
            digit_map_value(w, cx, v)
        }
    }
}

pub(super) fn requested_actions(w: &mut BitWriter<'_>, cx: &Cx<'_>, a: &RequestedActions) -> R {
    let extra = [a.notify_behaviour.is_some(), a.reset_events_descriptor];
    let any = extra.iter().any(|&b| b);
    cx.need(any, 3, "notify behaviour / ResetEventsDescriptor")?;
    w.bit(any);
    w.bit(a.keep_active.is_some());
    w.bit(a.event_dm.is_some());
    w.bit(a.second_event.is_some());
    w.bit(a.signals_descriptor.is_some());
    if let Some(k) = a.keep_active {
        w.bit(k);
    }
    if let Some(d) = &a.event_dm {
        event_dm(w, cx, d)?;
    }
    if let Some(s) = &a.second_event {
        second_events(w, cx, s)?;
    }
    if let Some(s) = &a.signals_descriptor {
        signals_descriptor(w, cx, s)?;
    }
    if any {
        additions(w, &extra, |w, i| {
            if i == 0 {
                if let Some(n) = &a.notify_behaviour {
                    notify_behaviour(w, cx, n)?;
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

pub(super) fn notify_behaviour(w: &mut BitWriter<'_>, cx: &Cx<'_>, n: &NotifyBehaviour) -> R {
    let depth = cx.depth.get();
    if depth >= cx.max_depth {
        return Err(invalid(
            "NotifyBehaviour",
            format!(
                "regulated notifications nested deeper than {}",
                cx.max_depth
            ),
        ));
    }
    cx.depth.set(depth + 1);
    let res = notify_behaviour_in(w, cx, n);
    cx.depth.set(depth);
    res
}

pub(super) fn notify_behaviour_in(w: &mut BitWriter<'_>, cx: &Cx<'_>, n: &NotifyBehaviour) -> R {
    match n {
        NotifyBehaviour::NotifyImmediate => choice(w, 0, 3, true),
        NotifyBehaviour::NotifyRegulated(r) => {
            choice(w, 1, 3, true);
            w.bit(false);
            w.bit(r.second_event.is_some());
            w.bit(r.signals_descriptor.is_some());
            if let Some(s) = &r.second_event {
                second_events(w, cx, s)?;
            }
            if let Some(s) = &r.signals_descriptor {
                signals_descriptor(w, cx, s)?;
            }
        }
        NotifyBehaviour::NeverNotify => choice(w, 2, 3, true),
    }
    Ok(())
}

pub(super) fn second_events(w: &mut BitWriter<'_>, cx: &Cx<'_>, e: &EventsDescriptor) -> R {
    w.bit(false);
    request_id_v1(w, cx, e.request_id)?;
    if let Some(r) = e.request_id {
        u32_(w, r);
    }
    seq_of(w, &e.event_list, |w, ev| {
        w.bit(false);
        w.bit(ev.stream_id.is_some());
        w.bit(ev.event_action.is_some());
        pkgd(w, cx, Scope::Event, &ev.pkgd_name)?;
        if let Some(s) = ev.stream_id {
            u16_(w, s);
        }
        if let Some(a) = &ev.event_action {
            // SecondRequestedActions has no secondEvent.
            if a.second_event.is_some() {
                return Err(invalid(
                    "embedded event",
                    "an embedded event's actions cannot embed events again",
                ));
            }
            let extra = [a.notify_behaviour.is_some(), a.reset_events_descriptor];
            let any = extra.iter().any(|&b| b);
            cx.need(any, 3, "notify behaviour / ResetEventsDescriptor")?;
            w.bit(any);
            w.bit(a.keep_active.is_some());
            w.bit(a.event_dm.is_some());
            w.bit(a.signals_descriptor.is_some());
            if let Some(k) = a.keep_active {
                w.bit(k);
            }
            if let Some(d) = &a.event_dm {
                event_dm(w, cx, d)?;
            }
            if let Some(s) = &a.signals_descriptor {
                signals_descriptor(w, cx, s)?;
            }
            if any {
                additions(w, &extra, |w, i| {
                    if i == 0 {
                        if let Some(n) = &a.notify_behaviour {
                            notify_behaviour(w, cx, n)?;
                        }
                    }
                    Ok(())
                })?;
            }
        }
        parameters(w, cx, Scope::Event, &ev.pkgd_name, &ev.ev_par_list)
    })
}

pub(super) fn event_buffer(w: &mut BitWriter<'_>, cx: &Cx<'_>, e: &[EventSpec]) -> R {
    seq_of(w, e, |w, s| {
        w.bit(false);
        w.bit(s.stream_id.is_some());
        pkgd(w, cx, Scope::Event, &s.event_name)?;
        if let Some(id) = s.stream_id {
            u16_(w, id);
        }
        parameters(w, cx, Scope::Event, &s.event_name, &s.event_par_list)
    })
}

pub(super) fn time_notation(w: &mut BitWriter<'_>, t: &TimeNotation) -> R {
    ia5_sized(w, &t.date, 8, 8, "TimeNotation.date")?;
    ia5_sized(w, &t.time, 8, 8, "TimeNotation.time")
}

pub(super) fn observed_events(
    w: &mut BitWriter<'_>,
    cx: &Cx<'_>,
    o: &ObservedEventsDescriptor,
) -> R {
    u32_(w, o.request_id);
    seq_of(w, &o.observed_event_lst, |w, e| {
        w.bit(false);
        w.bit(e.stream_id.is_some());
        w.bit(e.time_notation.is_some());
        pkgd(w, cx, Scope::Event, &e.event_name)?;
        if let Some(s) = e.stream_id {
            u16_(w, s);
        }
        parameters(w, cx, Scope::Event, &e.event_name, &e.event_par_list)?;
        if let Some(t) = &e.time_notation {
            time_notation(w, t)?;
        }
        Ok(())
    })
}
