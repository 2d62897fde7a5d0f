//! Commands, the context properties beside them, topology and
//! termination ids.

use super::*;

pub(super) fn context_request(w: &mut BitWriter<'_>, cx: &Cx<'_>, c: &ContextRequest) -> R {
    let extra = [
        c.iepscallind.is_some(),
        c.context_prop.is_some(),
        c.context_list.is_some(),
    ];
    let any = extra.iter().any(|&b| b);
    cx.need(any, 3, "ContextRequest IEPS/properties/list")?;
    w.bit(any);
    w.bit(c.priority.is_some());
    w.bit(c.emergency.is_some());
    w.bit(c.topology_req.is_some());
    if let Some(p) = c.priority {
        if p > 15 {
            return Err(invalid("priority", "above 15"));
        }
        w.constrained(p as u64, 0, 15);
    }
    if let Some(e) = c.emergency {
        w.bit(e);
    }
    if let Some(t) = &c.topology_req {
        seq_of(w, t, |w, t| topology(w, cx, t))?;
    }
    if any {
        additions(w, &extra, |w, i| match i {
            0 => {
                w.bit(c.iepscallind.unwrap_or_default());
                Ok(())
            }
            1 => seq_of(w, c.context_prop.as_deref().unwrap_or_default(), |w, p| {
                property_parm(w, cx, p)
            }),
            _ => seq_of(w, c.context_list.as_deref().unwrap_or_default(), |w, c| {
                context_id(w, *c);
                Ok(())
            }),
        })?;
    }
    Ok(())
}

pub(super) fn context_attr_audit(
    w: &mut BitWriter<'_>,
    cx: &Cx<'_>,
    c: &ContextAttrAuditRequest,
) -> R {
    let extra = [
        c.iepscallind,
        c.context_prop_aud.is_some(),
        c.select_priority.is_some(),
        c.select_emergency.is_some(),
        c.select_iepscallind.is_some(),
        c.select_logic.is_some(),
    ];
    let any = extra.iter().any(|&b| b);
    cx.need(any, 3, "ContextAttrAuditRequest selection")?;
    w.bit(any);
    w.bit(c.topology);
    w.bit(c.emergency);
    w.bit(c.priority);
    if any {
        additions(w, &extra, |w, i| {
            match i {
                0 => {}
                1 => seq_of(
                    w,
                    c.context_prop_aud.as_deref().unwrap_or_default(),
                    |w, p| ind_aud_property_parm(w, cx, p),
                )?,
                2 => {
                    let p = c.select_priority.unwrap_or_default();
                    if p > 15 {
                        return Err(invalid("selectpriority", "above 15"));
                    }
                    w.constrained(p as u64, 0, 15)
                }
                3 => w.bit(c.select_emergency.unwrap_or_default()),
                4 => w.bit(c.select_iepscallind.unwrap_or_default()),
                _ => {
                    let idx = match c.select_logic {
                        Some(SelectLogic::Or) => 1,
                        _ => 0,
                    };
                    choice(w, idx, 2, true);
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

pub(super) fn command_request(w: &mut BitWriter<'_>, cx: &Cx<'_>, c: &CommandRequest) -> R {
    w.bit(false);
    w.bit(c.optional);
    w.bit(c.wildcard_return);
    let idx = match &c.command {
        Command::Add(_) => 0,
        Command::Move(_) => 1,
        Command::Modify(_) => 2,
        Command::Subtract(_) => 3,
        Command::AuditCapability(_) => 4,
        Command::AuditValue(_) => 5,
        Command::Notify(_) => 6,
        Command::ServiceChange(_) => 7,
    };
    choice(w, idx, 8, true);
    match &c.command {
        Command::Add(r) | Command::Move(r) | Command::Modify(r) => {
            w.bit(false);
            term_id_list(w, cx, &r.termination_ids)?;
            seq_of(w, &r.descriptors, |w, d| amm_descriptor(w, cx, d))
        }
        Command::Subtract(r) => {
            w.bit(false);
            w.bit(r.audit_descriptor.is_some());
            term_id_list(w, cx, &r.termination_ids)?;
            if let Some(a) = &r.audit_descriptor {
                audit_descriptor(w, cx, a)?;
            }
            Ok(())
        }
        Command::AuditCapability(r) | Command::AuditValue(r) => audit_request(w, cx, r),
        Command::Notify(n) => {
            w.bit(false);
            w.bit(n.error_descriptor.is_some());
            term_id_list(w, cx, &n.termination_ids)?;
            observed_events(w, cx, &n.observed_events_descriptor)?;
            if let Some(e) = &n.error_descriptor {
                error_descriptor(w, e)?;
            }
            Ok(())
        }
        Command::ServiceChange(s) => {
            w.bit(false);
            term_id_list(w, cx, &s.termination_ids)?;
            service_change_parm(w, cx, &s.service_change_parms)
        }
    }
}

pub(super) fn audit_request(w: &mut BitWriter<'_>, cx: &Cx<'_>, r: &AuditRequest) -> R {
    let extra = [r.termination_id_list.is_some()];
    cx.need(extra[0], 3, "AuditRequest terminationIDList")?;
    w.bit(extra[0]);
    term_id(w, cx, &r.termination_id)?;
    audit_descriptor(w, cx, &r.audit_descriptor)?;
    if extra[0] {
        additions(w, &extra, |w, _| {
            term_id_list(w, cx, r.termination_id_list.as_deref().unwrap_or_default())
        })?;
    }
    Ok(())
}

pub(super) fn topology(w: &mut BitWriter<'_>, cx: &Cx<'_>, t: &TopologyRequest) -> R {
    let extra = [
        t.stream_id.is_some(),
        t.topology_direction_extension.is_some(),
    ];
    cx.need(extra[0], 2, "Topology stream")?;
    cx.need(extra[1], 3, "Topology direction extension")?;
    let any = extra.iter().any(|&b| b);
    if cx.v >= 2 {
        w.bit(any);
    }
    term_id(w, cx, &t.termination_from)?;
    term_id(w, cx, &t.termination_to)?;
    enumerated(w, t.topology_direction);
    if any {
        let n = if cx.v >= 3 { 2 } else { 1 };
        additions(w, &extra[..n], |w, i| {
            if i == 0 {
                u16_(w, t.stream_id.unwrap_or_default());
            } else {
                let e = t.topology_direction_extension;
                enumerated(w, e.unwrap_or(TopologyDirectionExtension::OnewayExternal));
            }
            Ok(())
        })?;
    }
    Ok(())
}

pub(super) fn amm_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, d: &AmmDescriptor) -> R {
    use AmmDescriptor as D;
    let idx = match d {
        D::Media(_) => 0,
        D::Modem(_) => 1,
        D::Mux(_) => 2,
        D::Events(_) => 3,
        D::EventBuffer(_) => 4,
        D::Signals(_) => 5,
        D::DigitMap(_) => 6,
        D::Audit(_) => 7,
        D::Statistics(s) => {
            cx.need(true, 3, "Statistics descriptor in Add/Move/Modify")?;
            w.bit(true);
            w.normally_small(0);
            return w.open_type(|w| statistics_descriptor(w, cx, s));
        }
    };
    choice(w, idx, 8, true);
    match d {
        D::Media(m) => media_descriptor(w, cx, m),
        D::Modem(m) => modem_descriptor(w, cx, m),
        D::Mux(m) => mux_descriptor(w, cx, m),
        D::Events(e) => events_descriptor(w, cx, e),
        D::EventBuffer(e) => event_buffer(w, cx, e),
        D::Signals(s) => signals_descriptor(w, cx, s),
        D::DigitMap(d) => digit_map_descriptor(w, cx, d),
        D::Audit(a) => audit_descriptor(w, cx, a),
        D::Statistics(_) => Ok(()),
    }
}

pub(super) fn term_id_list(w: &mut BitWriter<'_>, cx: &Cx<'_>, ids: &[TerminationId]) -> R {
    seq_of(w, ids, |w, t| term_id(w, cx, t))
}

pub(super) fn term_id(w: &mut BitWriter<'_>, cx: &Cx<'_>, t: &TerminationId) -> R {
    let a = cx.form.term_id_to_asn1(t)?;
    let (wild, id) = (a.wildcards(), a.id());
    w.bit(false);
    w.fragmented(wild.len(), |w, i| {
        w.bits(wild[i] as u64, 8);
        Ok::<(), EncodeError>(())
    })?;
    sized(w, id, 1, 8, "TerminationID.id")
}
