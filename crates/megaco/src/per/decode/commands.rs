//! Commands, the context properties beside them, topology and
//! termination ids.

use super::*;

pub(crate) fn context_request(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ContextRequest> {
    let ext = r.bit("ContextRequest extension bit")?;
    let has_p = r.bit("ContextRequest preamble")?;
    let has_e = r.bit("ContextRequest preamble")?;
    let has_t = r.bit("ContextRequest preamble")?;
    let mut c = ContextRequest {
        priority: opt(r, has_p, |r| Ok(r.constrained(0, 15, "priority")? as u8))?,
        emergency: opt(r, has_e, |r| r.bit("emergency"))?,
        topology_req: opt(r, has_t, |r| {
            seq_of(r, cx, 20, "topologyReq", |r| topology(r, cx))
        })?,
        ..ContextRequest::default()
    };
    if ext {
        let known = if cx.v >= 3 { 3 } else { 0 };
        additions(r, known, "ContextRequest extensions", |r, i| {
            match i {
                0 => c.iepscallind = Some(r.bit("iepscallind")?),
                1 => c.context_prop = Some(property_parms(r, cx, "contextProp")?),
                _ => c.context_list = Some(seq_of(r, cx, 10, "contextList", context_id)?),
            }
            Ok(())
        })?;
    }
    Ok(c)
}

pub(crate) fn context_attr_audit(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
) -> R<ContextAttrAuditRequest> {
    let ext = r.bit("ContextAttrAuditRequest extension bit")?;
    let mut c = ContextAttrAuditRequest {
        topology: r.bit("ContextAttrAuditRequest preamble")?,
        emergency: r.bit("ContextAttrAuditRequest preamble")?,
        priority: r.bit("ContextAttrAuditRequest preamble")?,
        ..ContextAttrAuditRequest::default()
    };
    if ext {
        let known = if cx.v >= 3 { 6 } else { 0 };
        additions(r, known, "ContextAttrAuditRequest extensions", |r, i| {
            match i {
                0 => c.iepscallind = true,
                1 => {
                    c.context_prop_aud = Some(seq_of(r, cx, 33, "contextPropAud", |r| {
                        ind_aud_property_parm(r, cx)
                    })?)
                }
                2 => c.select_priority = Some(r.constrained(0, 15, "selectpriority")? as u8),
                3 => c.select_emergency = Some(r.bit("selectemergency")?),
                4 => c.select_iepscallind = Some(r.bit("selectiepscallind")?),
                _ => {
                    c.select_logic = Some(match root_choice(r, 2, true, "selectLogic")? {
                        0 => SelectLogic::And,
                        _ => SelectLogic::Or,
                    })
                }
            }
            Ok(())
        })?;
    }
    Ok(c)
}

pub(super) fn command_request(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    out: &mut SmallList<CommandRequest>,
) -> R<()> {
    let ext = r.bit("CommandRequest extension bit")?;
    let optional = r.bit("CommandRequest preamble")?;
    let wildcard_return = r.bit("CommandRequest preamble")?;
    let command = match root_choice(r, 8, true, "Command")? {
        0 => Command::Add(AmmRequest::default()),
        1 => Command::Move(AmmRequest::default()),
        2 => Command::Modify(AmmRequest::default()),
        3 => Command::Subtract(SubtractRequest::default()),
        4 => Command::AuditCapability(AuditRequest::default()),
        5 => Command::AuditValue(AuditRequest::default()),
        6 => Command::Notify(NotifyRequest::default()),
        _ => Command::ServiceChange(Box::new(service_change_request(r, cx)?)),
    };
    let c = put(
        out,
        CommandRequest {
            command,
            optional,
            wildcard_return,
        },
    );
    match &mut c.command {
        Command::Add(a) | Command::Move(a) | Command::Modify(a) => {
            let ext = r.bit("AmmRequest extension bit")?;
            a.termination_ids = term_id_list(r, cx)?;
            a.descriptors = amm_descriptors(r, cx)?;
            skip_ext(r, ext, "AmmRequest extensions")?;
        }
        Command::Subtract(s) => {
            let ext = r.bit("SubtractRequest extension bit")?;
            let has_a = r.bit("SubtractRequest preamble")?;
            s.termination_ids = term_id_list(r, cx)?;
            s.audit_descriptor = opt(r, has_a, |r| audit_descriptor(r, cx))?;
            skip_ext(r, ext, "SubtractRequest extensions")?;
        }
        Command::AuditCapability(a) | Command::AuditValue(a) => {
            let ext = r.bit("AuditRequest extension bit")?;
            term_id_to(r, cx, &mut a.termination_id)?;
            a.audit_descriptor = audit_descriptor(r, cx)?;
            if ext {
                a.termination_id_list = audit_request_additions(r, cx)?;
            }
        }
        Command::Notify(n) => {
            let ext = r.bit("NotifyRequest extension bit")?;
            let has_e = r.bit("NotifyRequest preamble")?;
            n.termination_ids = term_id_list(r, cx)?;
            observed_events(r, cx, &mut n.observed_events_descriptor)?;
            n.error_descriptor = opt(r, has_e, |r| error_descriptor(r, cx))?;
            skip_ext(r, ext, "NotifyRequest extensions")?;
        }
        _ => {}
    }
    skip_ext(r, ext, "CommandRequest extensions")
}

/// The descriptors of an Add, Move or Modify.
pub(crate) fn amm_descriptors(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Vec<AmmDescriptor>> {
    seq_of(r, cx, 4, "descriptors", |r| amm_descriptor(r, cx))
}

/// The extension additions of an AuditRequest: v3's termination id list.
pub(crate) fn audit_request_additions(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
) -> R<Option<Vec<TerminationId>>> {
    let mut list = None;
    let known = if cx.v >= 3 { 1 } else { 0 };
    additions(r, known, "AuditRequest extensions", |r, _| {
        list = Some(term_id_list(r, cx)?);
        Ok(())
    })?;
    Ok(list)
}

/// A ServiceChangeRequest after the CHOICE index.
pub(super) fn service_change_request(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
) -> R<ServiceChangeRequest> {
    let ext = r.bit("ServiceChangeRequest extension bit")?;
    let termination_ids = term_id_list(r, cx)?;
    let service_change_parms = service_change_parm(r, cx)?;
    skip_ext(r, ext, "ServiceChangeRequest extensions")?;
    Ok(ServiceChangeRequest {
        termination_ids,
        service_change_parms,
    })
}

pub(super) fn topology(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<TopologyRequest> {
    let ext = ext_bit(r, cx.v >= 2, "TopologyRequest extension bit")?;
    let termination_from = term_id(r, cx)?;
    let termination_to = term_id(r, cx)?;
    let topology_direction = enumerated(r, "topologyDirection")?;
    let mut t = TopologyRequest {
        termination_from,
        termination_to,
        topology_direction,
        stream_id: None,
        topology_direction_extension: None,
    };
    if ext {
        let known = if cx.v >= 3 { 2 } else { 1 };
        additions(r, known, "TopologyRequest extensions", |r, i| {
            if i == 0 {
                t.stream_id = Some(u16_(r, "streamID")?);
            } else {
                t.topology_direction_extension = Some(enumerated(r, "topologyDirectionExtension")?);
            }
            Ok(())
        })?;
    }
    Ok(t)
}

pub(super) fn amm_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<AmmDescriptor> {
    use AmmDescriptor as D;
    Ok(match choice(r, 8, true, "AmmDescriptor")? {
        Ok(0) => D::Media(media_descriptor(r, cx)?),
        Ok(1) => D::Modem(modem_descriptor(r, cx)?),
        Ok(2) => D::Mux(mux_descriptor(r, cx)?),
        Ok(3) => D::Events(events_descriptor(r, cx)?),
        Ok(4) => D::EventBuffer(event_buffer(r, cx)?),
        Ok(5) => D::Signals(signals_descriptor(r, cx)?),
        Ok(6) => D::DigitMap(digit_map_descriptor(r, cx)?),
        Ok(_) => D::Audit(audit_descriptor(r, cx)?),
        Err((0, mut sub)) if cx.v >= 3 => D::Statistics(statistics_descriptor(&mut sub, cx)?),
        Err(_) => return Err(invalid(r, "AmmDescriptor", "unknown extension alternative")),
    })
}

/// A `SEQUENCE OF TerminationID`.
pub(crate) fn term_id_list<L: List<TerminationId>>(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<L> {
    let mut out = L::default();
    seq_in(r, cx, 19, "TerminationIDList", &mut out, |r, t| {
        term_id_to(r, cx, t)
    })?;
    Ok(out)
}

/// A TerminationID as it is in the bytes.
pub(crate) fn term_id_asn(r: &mut BitReader<'_>) -> R<AsnTermId> {
    let ext = r.bit("TerminationID extension bit")?;
    let mut wild = [0u8; termid::MAX_WILDCARDS];
    let mut count = 0;
    let mut so_far = 0;
    loop {
        let (n, more) = r.list_run(8, so_far, "wildcard")?;
        for _ in 0..n {
            let w = r.bits(8, "WildcardField")? as u8;
            if let Some(slot) = wild.get_mut(count) {
                *slot = w;
            }
            count += 1;
        }
        if !more {
            break;
        }
        so_far += n;
    }
    let id = sized(r, 1, 8, "TerminationID.id")?;
    skip_ext(r, ext, "TerminationID extensions")?;
    match wild.get(..count) {
        Some(w) => AsnTermId::new(id, w).map_err(|e| form_err(r, "TerminationID", e.to_string())),
        None => Err(form_err(
            r,
            "TerminationID",
            TermIdError::TooManyWildcards { found: count }.to_string(),
        )),
    }
}

/// A TerminationID in the model's text form (when building).
pub(crate) fn term_id(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<TerminationId> {
    let mut t = TerminationId::default();
    term_id_to(r, cx, &mut t)?;
    Ok(t)
}

/// A TerminationID written into `t` (when building).
#[inline]
pub(crate) fn term_id_to(r: &mut BitReader<'_>, cx: &Dcx<'_>, t: &mut TerminationId) -> R<()> {
    let asn = term_id_asn(r)?;
    if cx.build {
        *t = cx.cfg.term_id(&asn);
    }
    Ok(())
}
