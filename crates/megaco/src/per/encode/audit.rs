//! Audits: what to audit (the audit descriptor and the v2 individual
//! audit items).

use super::*;

pub(super) fn audit_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, a: &AuditDescriptor) -> R {
    let extra = [a.audit_property_token.is_some()];
    cx.need(extra[0], 2, "individual audit items")?;
    w.bit(extra[0]);
    w.bit(a.audit_token.is_some());
    if let Some(t) = &a.audit_token {
        bit_string(w, t.iter().map(|t| t.bit()));
    }
    if extra[0] {
        additions(w, &extra, |w, _| {
            seq_of(
                w,
                a.audit_property_token.as_deref().unwrap_or_default(),
                |w, p| ind_audit_parameter(w, cx, p),
            )
        })?;
    }
    Ok(())
}

pub(super) fn ind_audit_parameter(w: &mut BitWriter<'_>, cx: &Cx<'_>, p: &IndAuditParameter) -> R {
    use IndAuditParameter as P;
    let idx = match p {
        P::Media(_) => 0,
        P::Events(_) => 1,
        P::EventBuffer(_) => 2,
        P::Signals(_) => 3,
        P::DigitMap(_) => 4,
        P::Statistics(_) => 5,
        P::Packages(_) => 6,
    };
    choice(w, idx, 7, true);
    match p {
        P::Media(m) => {
            w.bit(false);
            w.bit(m.term_state_descr.is_some());
            w.bit(m.streams.is_some());
            if let Some(t) = &m.term_state_descr {
                let extra = [t.service_state_sel.is_some()];
                cx.need(extra[0], 3, "serviceStateSel")?;
                w.bit(extra[0]);
                w.bit(t.event_buffer_control);
                w.bit(t.service_state);
                seq_of(w, &t.property_parms, |w, p| ind_aud_property_parm(w, cx, p))?;
                if extra[0] {
                    additions(w, &extra, |w, _| {
                        service_state(w, t.service_state_sel.unwrap_or(ServiceState::InSvc));
                        Ok(())
                    })?;
                }
            }
            match &m.streams {
                None => Ok(()),
                Some(IndAudStreams::OneStream(s)) => {
                    w.bits(0, 1);
                    ind_aud_stream_parms(w, cx, s)
                }
                Some(IndAudStreams::MultiStream(v)) => {
                    w.bits(1, 1);
                    seq_of(w, v, |w, s| {
                        u16_(w, s.stream_id);
                        ind_aud_stream_parms(w, cx, &s.stream_parms)
                    })
                }
            }
        }
        P::Events(e) => {
            w.bit(false);
            w.bit(e.request_id.is_some());
            w.bit(e.stream_id.is_some());
            if let Some(r) = e.request_id {
                u32_(w, r);
            }
            pkgd(w, cx, Scope::Event, &e.pkgd_name)?;
            if let Some(s) = e.stream_id {
                u16_(w, s);
            }
            Ok(())
        }
        P::EventBuffer(e) => {
            w.bit(false);
            w.bit(e.stream_id.is_some());
            pkgd(w, cx, Scope::Event, &e.event_name)?;
            if let Some(s) = e.stream_id {
                u16_(w, s);
            }
            Ok(())
        }
        P::Signals(s) => match s {
            IndAudSignalsDescriptor::Signal(s) => {
                choice(w, 0, 2, true);
                ind_aud_signal(w, cx, s)
            }
            IndAudSignalsDescriptor::SeqSigList(l) => {
                choice(w, 1, 2, true);
                w.bit(l.signal_list.is_some());
                u16_(w, l.id);
                if let Some(s) = &l.signal_list {
                    ind_aud_signal(w, cx, s)?;
                }
                Ok(())
            }
        },
        P::DigitMap(d) => {
            w.bit(d.digit_map_name.is_some());
            if let Some(n) = &d.digit_map_name {
                let code = cx.form.dialplan_to_asn1(n)?;
                w.octets(&code);
            }
            Ok(())
        }
        P::Statistics(s) => pkgd(w, cx, Scope::Statistics, &s.stat_name),
        P::Packages(p) => {
            w.bit(false);
            let code = cx.form.package_to_asn1(&p.package_name)?;
            w.octets(&code);
            version99(w, p.package_version, "packageVersion")
        }
    }
}

pub(super) fn ind_aud_signal(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &IndAudSignal) -> R {
    let extra = [s.signal_request_id.is_some()];
    cx.need(extra[0], 3, "signalRequestID")?;
    w.bit(extra[0]);
    w.bit(s.stream_id.is_some());
    pkgd(w, cx, Scope::Signal, &s.signal_name)?;
    if let Some(id) = s.stream_id {
        u16_(w, id);
    }
    if extra[0] {
        additions(w, &extra, |w, _| {
            u32_(w, s.signal_request_id.unwrap_or_default());
            Ok(())
        })?;
    }
    Ok(())
}

pub(super) fn ind_aud_stream_parms(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &IndAudStreamParms) -> R {
    let extra = [s.statistics_descriptor.is_some()];
    cx.need(extra[0], 3, "stream statistics audit")?;
    w.bit(extra[0]);
    w.bit(s.local_control_descriptor.is_some());
    w.bit(s.local_descriptor.is_some());
    w.bit(s.remote_descriptor.is_some());
    if let Some(l) = &s.local_control_descriptor {
        let extra = [l.stream_mode_sel.is_some()];
        cx.need(extra[0], 3, "streamModeSel")?;
        w.bit(extra[0]);
        w.bit(l.stream_mode);
        w.bit(l.reserve_value);
        w.bit(l.reserve_group);
        w.bit(l.property_parms.is_some());
        if let Some(p) = &l.property_parms {
            seq_of(w, p, |w, p| ind_aud_property_parm(w, cx, p))?;
        }
        if extra[0] {
            additions(w, &extra, |w, _| {
                stream_mode(w, l.stream_mode_sel.unwrap_or(StreamMode::SendRecv));
                Ok(())
            })?;
        }
    }
    for d in [&s.local_descriptor, &s.remote_descriptor]
        .into_iter()
        .flatten()
    {
        w.bit(false);
        w.bit(d.prop_group_id.is_some());
        if let Some(g) = d.prop_group_id {
            u16_(w, g);
        }
        seq_of(w, &d.prop_grps, |w, p| ind_aud_property_parm(w, cx, p))?;
    }
    if extra[0] {
        additions(w, &extra, |w, _| {
            let st = s
                .statistics_descriptor
                .as_ref()
                .map(|s| s.stat_name.as_str())
                .unwrap_or_default();
            pkgd(w, cx, Scope::Statistics, st)
        })?;
    }
    Ok(())
}

pub(super) fn ind_aud_property_parm(
    w: &mut BitWriter<'_>,
    cx: &Cx<'_>,
    p: &IndAudPropertyParm,
) -> R {
    let extra = [p.property_parms.is_some()];
    cx.need(extra[0], 3, "IndAudPropertyParm value")?;
    w.bit(extra[0]);
    pkgd(w, cx, Scope::Property, &p.name)?;
    if let Some(pp) = &p.property_parms {
        additions(w, &extra, |w, _| property_parm(w, cx, pp))?;
    }
    Ok(())
}
