//! Media and its streams, properties and their values, non-standard
//! data, and the Mux, Modem, DigitMap and Statistics descriptors.

use super::*;

pub(super) fn media_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, m: &MediaDescriptor) -> R {
    w.bit(false);
    w.bit(m.term_state_descr.is_some());
    w.bit(m.streams.is_some());
    if let Some(t) = &m.term_state_descr {
        w.bit(false);
        w.bit(t.event_buffer_control.is_some());
        w.bit(t.service_state.is_some());
        seq_of(w, &t.property_parms, |w, p| property_parm(w, cx, p))?;
        if let Some(e) = t.event_buffer_control {
            enumerated(w, e);
        }
        if let Some(s) = t.service_state {
            service_state(w, s);
        }
    }
    match &m.streams {
        None => Ok(()),
        Some(Streams::OneStream(s)) => {
            w.bits(0, 1);
            stream_parms(w, cx, s)
        }
        Some(Streams::MultiStream(v)) => {
            w.bits(1, 1);
            seq_of(w, v, |w, s| {
                u16_(w, s.stream_id);
                stream_parms(w, cx, &s.stream_parms)
            })
        }
    }
}

pub(super) fn service_state(w: &mut BitWriter<'_>, s: ServiceState) {
    enumerated(w, s);
}

pub(super) fn stream_mode(w: &mut BitWriter<'_>, m: StreamMode) {
    enumerated(w, m);
}

pub(super) fn stream_parms(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &StreamParms) -> R {
    let extra = [s.statistics_descriptor.is_some()];
    cx.need(extra[0], 3, "stream statistics")?;
    w.bit(extra[0]);
    w.bit(s.local_control_descriptor.is_some());
    w.bit(s.local_descriptor.is_some());
    w.bit(s.remote_descriptor.is_some());
    if let Some(l) = &s.local_control_descriptor {
        w.bit(false);
        w.bit(l.stream_mode.is_some());
        w.bit(l.reserve_value.is_some());
        w.bit(l.reserve_group.is_some());
        if let Some(m) = l.stream_mode {
            stream_mode(w, m);
        }
        if let Some(b) = l.reserve_value {
            w.bit(b);
        }
        if let Some(b) = l.reserve_group {
            w.bit(b);
        }
        seq_of(w, &l.property_parms, |w, p| property_parm(w, cx, p))?;
    }
    for d in [&s.local_descriptor, &s.remote_descriptor]
        .into_iter()
        .flatten()
    {
        w.bit(false);
        seq_of(w, &d.prop_grps, |w, g| {
            seq_of(w, g, |w, p| property_parm(w, cx, p))
        })?;
    }
    if extra[0] {
        additions(w, &extra, |w, _| {
            statistics_descriptor(
                w,
                cx,
                s.statistics_descriptor.as_deref().unwrap_or_default(),
            )
        })?;
    }
    Ok(())
}

/// `Value`: SEQUENCE OF OCTET STRING, the text octets as they are.
pub(super) fn value(w: &mut BitWriter<'_>, v: &[CompactString]) -> R {
    seq_of(w, v, |w, s| {
        w.octet_string(s.as_bytes());
        Ok(())
    })
}

pub(super) fn extra_info(w: &mut BitWriter<'_>, e: &ExtraInfo) {
    match e {
        ExtraInfo::Relation(r) => {
            w.bits(0, 2);
            enumerated(w, *r);
        }
        ExtraInfo::Range(b) => {
            w.bits(1, 2);
            w.bit(*b);
        }
        ExtraInfo::Sublist(b) => {
            w.bits(2, 2);
            w.bit(*b);
        }
    }
}

pub(super) fn property_parm(w: &mut BitWriter<'_>, cx: &Cx<'_>, p: &PropertyParm) -> R {
    w.bit(false);
    w.bit(p.extra_info.is_some());
    pkgd(w, cx, Scope::Property, &p.name)?;
    value(w, &p.value)?;
    if let Some(e) = &p.extra_info {
        extra_info(w, e);
    }
    Ok(())
}

/// EventParameter / SigParameter: the name is relative to `parent`.
pub(super) fn parameter(
    w: &mut BitWriter<'_>,
    cx: &Cx<'_>,
    scope: Scope,
    parent: &str,
    p: &PropertyParm,
) -> R {
    w.bit(false);
    w.bit(p.extra_info.is_some());
    let code = cx.form.param_to_asn1(scope, parent, &p.name)?;
    w.octets(&code);
    value(w, &p.value)?;
    if let Some(e) = &p.extra_info {
        extra_info(w, e);
    }
    Ok(())
}

pub(super) fn parameters(
    w: &mut BitWriter<'_>,
    cx: &Cx<'_>,
    scope: Scope,
    parent: &str,
    ps: &[PropertyParm],
) -> R {
    seq_of(w, ps, |w, p| parameter(w, cx, scope, parent, p))
}

pub(super) fn nsd(w: &mut BitWriter<'_>, n: &NonStandardData) -> R {
    match &n.non_standard_identifier {
        NonStandardIdentifier::Object(arcs) => {
            choice(w, 0, 3, true);
            let mut body = Vec::new();
            oid_contents(arcs, &mut body)?;
            w.octet_string(&body);
        }
        NonStandardIdentifier::H221NonStandard(h) => {
            choice(w, 1, 3, true);
            w.bit(false);
            w.constrained(h.t35_country_code1 as u64, 0, 255);
            w.constrained(h.t35_country_code2 as u64, 0, 255);
            w.constrained(h.t35_extension as u64, 0, 255);
            u16_(w, h.manufacturer_code);
        }
        NonStandardIdentifier::Experimental(s) => {
            choice(w, 2, 3, true);
            ia5_sized(w, s, 8, 8, "experimental")?;
        }
    }
    w.octet_string(&n.data);
    Ok(())
}

/// BER contents octets of an OBJECT IDENTIFIER.
pub(super) fn oid_contents(arcs: &[u32], out: &mut Vec<u8>) -> R {
    if arcs.len() < 2 || arcs[0] > 2 || (arcs[0] < 2 && arcs[1] > 39) {
        return Err(invalid("OBJECT IDENTIFIER", "needs two valid first arcs"));
    }
    let first = arcs[0] as u64 * 40 + arcs[1] as u64;
    for a in std::iter::once(first).chain(arcs[2..].iter().map(|&a| a as u64)) {
        let mut groups = 1;
        while groups < 10 && a >> (7 * groups) != 0 {
            groups += 1;
        }
        for g in (0..groups).rev() {
            let b = ((a >> (7 * g)) & 0x7F) as u8;
            out.push(if g > 0 { b | 0x80 } else { b });
        }
    }
    Ok(())
}

pub(super) fn mux_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, m: &MuxDescriptor) -> R {
    w.bit(false);
    w.bit(m.non_standard_data.is_some());
    cx.need(true, m.mux_type.since(), "Nx64k mux")?;
    enumerated(w, m.mux_type);
    term_id_list(w, cx, &m.term_list)?;
    if let Some(n) = &m.non_standard_data {
        nsd(w, n)?;
    }
    Ok(())
}

pub(super) fn modem_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, m: &ModemDescriptor) -> R {
    w.bit(m.non_standard_data.is_some());
    seq_of(w, &m.mtl, |w, t| {
        enumerated(w, *t);
        Ok(())
    })?;
    seq_of(w, &m.mpl, |w, p| property_parm(w, cx, p))?;
    if let Some(n) = &m.non_standard_data {
        nsd(w, n)?;
    }
    Ok(())
}

pub(super) fn digit_map_descriptor(
    w: &mut BitWriter<'_>,
    cx: &Cx<'_>,
    d: &DigitMapDescriptor,
) -> R {
    w.bit(d.digit_map_name.is_some());
    w.bit(d.digit_map_value.is_some());
    if let Some(n) = &d.digit_map_name {
        let code = cx.form.dialplan_to_asn1(n)?;
        w.octets(&code);
    }
    if let Some(v) = &d.digit_map_value {
        digit_map_value(w, cx, v)?;
    }
    Ok(())
}

pub(super) fn digit_map_value(w: &mut BitWriter<'_>, cx: &Cx<'_>, d: &DigitMapValue) -> R {
    let extra = [d.duration_timer.is_some()];
    cx.need(extra[0], 2, "digit map duration timer")?;
    w.bit(extra[0]);
    w.bit(d.start_timer.is_some());
    w.bit(d.short_timer.is_some());
    w.bit(d.long_timer.is_some());
    for t in [d.start_timer, d.short_timer, d.long_timer]
        .into_iter()
        .flatten()
    {
        version99(w, t, "digit map timer")?;
    }
    ia5(w, &d.digit_map_body, "digitMapBody")?;
    if extra[0] {
        additions(w, &extra, |w, _| {
            version99(w, d.duration_timer.unwrap_or_default(), "durationTimer")
        })?;
    }
    Ok(())
}

pub(super) fn statistics_descriptor(
    w: &mut BitWriter<'_>,
    cx: &Cx<'_>,
    s: &[StatisticsParameter],
) -> R {
    seq_of(w, s, |w, p| {
        w.bit(p.stat_value.is_some());
        pkgd(w, cx, Scope::Statistics, &p.stat_name)?;
        if let Some(v) = &p.stat_value {
            value(w, v)?;
        }
        Ok(())
    })
}
