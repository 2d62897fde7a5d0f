//! Events: requested (`Events`), embedded, observed and buffered, and
//! the time notation of observed events.

use super::*;

/// The requestID of Events/SecondEvents: mandatory in v1, optional after.
pub(super) fn request_id_pre(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<bool> {
    if cx.v >= 2 {
        r.bit("requestID presence")
    } else {
        Ok(true)
    }
}

pub(crate) fn events_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<EventsDescriptor> {
    events(r, cx, false)
}

/// An EventsDescriptor, or (`second`) the SecondEventsDescriptor embedded
/// in an event's actions, whose events' actions cannot embed another.
pub(super) fn events(r: &mut BitReader<'_>, cx: &Dcx<'_>, second: bool) -> R<EventsDescriptor> {
    let ext = r.bit("EventsDescriptor extension bit")?;
    let has_r = request_id_pre(r, cx)?;
    let request_id = opt(r, has_r, |r| r.u32("requestID"))?;
    let mut event_list = Vec::new();
    seq_in(r, cx, 43, "eventList", &mut event_list, |r, e| {
        requested_event(r, cx, second, e)
    })?;
    skip_ext(r, ext, "EventsDescriptor extensions")?;
    Ok(EventsDescriptor {
        request_id,
        event_list,
    })
}

pub(super) fn requested_event(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    second: bool,
    e: &mut RequestedEvent,
) -> R<()> {
    let ext = r.bit("RequestedEvent extension bit")?;
    let has_s = r.bit("RequestedEvent preamble")?;
    let has_a = r.bit("RequestedEvent preamble")?;
    let code = pkgd_to(r, cx, Scope::Event, "pkgdName", &mut e.pkgd_name)?;
    e.stream_id = opt(r, has_s, |r| u16_(r, "streamID"))?;
    e.event_action = opt(r, has_a, |r| requested_actions(r, cx, second))?;
    parameters(r, cx, Scope::Event, code, &mut e.ev_par_list)?;
    skip_ext(r, ext, "RequestedEvent extensions")
}

pub(super) fn event_dm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<EventDm> {
    Ok(if r.bits(1, "EventDM")? == 0 {
        EventDm::DigitMapName(dialplan(r, cx)?)
    } else {
        EventDm::DigitMapValue(digit_map_value(r, cx)?)
    })
}

/// RequestedActions, or (`second`) SecondRequestedActions, which have
/// no secondEvent.
pub(super) fn requested_actions(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    second: bool,
) -> R<RequestedActions> {
    let ext = r.bit("RequestedActions extension bit")?;
    let has_k = r.bit("RequestedActions preamble")?;
    let has_d = r.bit("RequestedActions preamble")?;
    let has_e = !second && r.bit("RequestedActions preamble")?;
    let has_s = r.bit("RequestedActions preamble")?;
    let mut a = RequestedActions {
        keep_active: opt(r, has_k, |r| r.bit("keepActive"))?,
        event_dm: opt(r, has_d, |r| event_dm(r, cx))?,
        second_event: opt(r, has_e, |r| events(r, cx, true))?,
        signals_descriptor: opt(r, has_s, |r| signals_descriptor(r, cx))?,
        ..RequestedActions::default()
    };
    if ext {
        let known = if cx.v >= 3 { 2 } else { 0 };
        additions(r, known, "RequestedActions extensions", |r, i| {
            if i == 0 {
                a.notify_behaviour = Some(notify_behaviour(r, cx)?);
            } else {
                a.reset_events_descriptor = true;
            }
            Ok(())
        })?;
    }
    Ok(a)
}

pub(super) fn notify_behaviour(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<NotifyBehaviour> {
    let depth = cx.depth.get();
    if depth >= cx.max_depth {
        return Err(r.err(DecodeErrorKind::LimitExceeded {
            limit: Limit::Depth,
            max: cx.max_depth,
            found: None,
        }));
    }
    cx.depth.set(depth + 1);
    let res = notify_behaviour_in(r, cx);
    cx.depth.set(depth);
    res
}

pub(super) fn notify_behaviour_in(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<NotifyBehaviour> {
    Ok(match root_choice(r, 3, true, "NotifyBehaviour")? {
        0 => NotifyBehaviour::NotifyImmediate,
        1 => {
            let ext = r.bit("RegulatedEmbeddedDescriptor extension bit")?;
            let has_e = r.bit("RegulatedEmbeddedDescriptor preamble")?;
            let has_s = r.bit("RegulatedEmbeddedDescriptor preamble")?;
            let d = RegulatedEmbeddedDescriptor {
                second_event: opt(r, has_e, |r| events(r, cx, true))?,
                signals_descriptor: opt(r, has_s, |r| signals_descriptor(r, cx))?,
            };
            skip_ext(r, ext, "RegulatedEmbeddedDescriptor extensions")?;
            if cx.build {
                NotifyBehaviour::NotifyRegulated(Box::new(d))
            } else {
                NotifyBehaviour::NotifyImmediate
            }
        }
        _ => NotifyBehaviour::NeverNotify,
    })
}

pub(super) fn event_buffer(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Vec<EventSpec>> {
    let mut out: Vec<EventSpec> = Vec::new();
    seq_in(r, cx, 42, "EventBufferDescriptor", &mut out, |r, e| {
        let ext = r.bit("EventSpec extension bit")?;
        let has_s = r.bit("EventSpec preamble")?;
        let code = pkgd_to(r, cx, Scope::Event, "eventName", &mut e.event_name)?;
        e.stream_id = opt(r, has_s, |r| u16_(r, "streamID"))?;
        parameters(r, cx, Scope::Event, code, &mut e.event_par_list)?;
        skip_ext(r, ext, "EventSpec extensions")
    })?;
    Ok(out)
}

pub(super) fn time_notation(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<TimeNotation> {
    let mut t = TimeNotation::default();
    time_notation_to(r, cx, &mut t)?;
    Ok(t)
}

/// A TimeNotation read into `t`.
#[inline]
pub(super) fn time_notation_to(r: &mut BitReader<'_>, cx: &Dcx<'_>, t: &mut TimeNotation) -> R<()> {
    ia5_sized_to(r, cx, (8, 8), "TimeNotation.date", &mut t.date)?;
    ia5_sized_to(r, cx, (8, 8), "TimeNotation.time", &mut t.time)
}

/// An ObservedEventsDescriptor, into `o` (a default one).
pub(crate) fn observed_events(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    o: &mut ObservedEventsDescriptor,
) -> R<()> {
    o.request_id = r.u32("requestId")?;
    seq_in(
        r,
        cx,
        43,
        "observedEventLst",
        &mut o.observed_event_lst,
        |r, e| {
            let ext = r.bit("ObservedEvent extension bit")?;
            let has_s = r.bit("ObservedEvent preamble")?;
            let has_t = r.bit("ObservedEvent preamble")?;
            let code = pkgd_to(r, cx, Scope::Event, "eventName", &mut e.event_name)?;
            e.stream_id = opt(r, has_s, |r| u16_(r, "streamID"))?;
            parameters(r, cx, Scope::Event, code, &mut e.event_par_list)?;
            if has_t {
                let t = e.time_notation.insert(TimeNotation::default());
                time_notation_to(r, cx, t)?;
            }
            skip_ext(r, ext, "ObservedEvent extensions")
        },
    )
}
