//! Replies: transaction replies, action replies, command replies and
//! what an audit returns.

use super::*;

pub(super) fn transaction_reply(w: &mut BitWriter<'_>, cx: &Cx<'_>, r: &TransactionReply) -> R {
    let extra = [r.segment_number.is_some(), r.segmentation_complete];
    cx.need(extra.iter().any(|&b| b), 3, "segmented TransactionReply")?;
    let ext = cx.v >= 3 && extra.iter().any(|&b| b);
    w.bit(ext);
    w.bit(r.imm_ack_required);
    u32_(w, r.transaction_id);
    match &r.result {
        TransactionResult::Error(e) => {
            w.bits(0, 1);
            error_descriptor(w, e)?;
        }
        TransactionResult::ActionReplies(rs) => {
            crate::asn1::rules::action_replies(rs)?;
            w.bits(1, 1);
            seq_of(w, rs, |w, a| action_reply(w, cx, a))?;
        }
    }
    if ext {
        additions(w, &extra, |w, i| {
            if i == 0 {
                u16_(w, r.segment_number.unwrap_or_default());
            }
            Ok(())
        })?;
    }
    Ok(())
}

pub(super) fn action_reply(w: &mut BitWriter<'_>, cx: &Cx<'_>, a: &ActionReply) -> R {
    w.bit(a.error_descriptor.is_some());
    w.bit(a.context_reply.is_some());
    context_id(w, a.context_id);
    if let Some(e) = &a.error_descriptor {
        error_descriptor(w, e)?;
    }
    if let Some(c) = &a.context_reply {
        context_request(w, cx, c)?;
    }
    seq_of(w, &a.command_reply, |w, c| command_reply(w, cx, c))
}

pub(super) fn command_reply(w: &mut BitWriter<'_>, cx: &Cx<'_>, c: &CommandReply) -> R {
    let idx = match c {
        CommandReply::Add(_) => 0,
        CommandReply::Move(_) => 1,
        CommandReply::Modify(_) => 2,
        CommandReply::Subtract(_) => 3,
        CommandReply::AuditCapability(_) => 4,
        CommandReply::AuditValue(_) => 5,
        CommandReply::Notify(_) => 6,
        CommandReply::ServiceChange(_) => 7,
    };
    choice(w, idx, 8, true);
    match c {
        CommandReply::Add(r)
        | CommandReply::Move(r)
        | CommandReply::Modify(r)
        | CommandReply::Subtract(r) => {
            w.bit(false);
            w.bit(r.termination_audit.is_some());
            term_id_list(w, cx, &r.termination_ids)?;
            if let Some(a) = &r.termination_audit {
                termination_audit(w, cx, a)?;
            }
            Ok(())
        }
        CommandReply::AuditCapability(a) | CommandReply::AuditValue(a) => audit_reply(w, cx, a),
        CommandReply::Notify(n) => {
            w.bit(false);
            w.bit(n.error_descriptor.is_some());
            term_id_list(w, cx, &n.termination_ids)?;
            if let Some(e) = &n.error_descriptor {
                error_descriptor(w, e)?;
            }
            Ok(())
        }
        CommandReply::ServiceChange(s) => {
            w.bit(false);
            term_id_list(w, cx, &s.termination_ids)?;
            match &s.service_change_result {
                ServiceChangeResult::ErrorDescriptor(e) => {
                    w.bits(0, 1);
                    error_descriptor(w, e)
                }
                ServiceChangeResult::ServiceChangeResParms(p) => {
                    w.bits(1, 1);
                    service_change_res_parm(w, cx, p)
                }
            }
        }
    }
}

pub(super) fn audit_reply(w: &mut BitWriter<'_>, cx: &Cx<'_>, a: &AuditReply) -> R {
    match a {
        AuditReply::ContextAuditResult(ids) => {
            choice(w, 0, 3, true);
            term_id_list(w, cx, ids)
        }
        AuditReply::Error(e) => {
            choice(w, 1, 3, true);
            error_descriptor(w, e)
        }
        AuditReply::AuditResult(r) => {
            choice(w, 2, 3, true);
            term_id(w, cx, &r.termination_id)?;
            termination_audit(w, cx, &r.termination_audit_result)
        }
        AuditReply::AuditResultTermList(r) => {
            cx.need(true, 3, "auditResultTermList")?;
            w.bit(true);
            w.normally_small(0);
            w.open_type(|w| {
                w.bit(false);
                term_id_list(w, cx, &r.termination_id_list)?;
                termination_audit(w, cx, &r.termination_audit_result)
            })
        }
    }
}

pub(super) fn termination_audit(
    w: &mut BitWriter<'_>,
    cx: &Cx<'_>,
    items: &[AuditReturnParameter],
) -> R {
    seq_of(w, items, |w, p| {
        use AuditReturnParameter as A;
        let idx = match p {
            A::Error(_) => 0,
            A::Media(_) => 1,
            A::Modem(_) => 2,
            A::Mux(_) => 3,
            A::Events(_) => 4,
            A::EventBuffer(_) => 5,
            A::Signals(_) => 6,
            A::DigitMap(_) => 7,
            A::ObservedEvents(_) => 8,
            A::Statistics(_) => 9,
            A::Packages(_) => 10,
            A::EmptyDescriptors(_) => 11,
        };
        choice(w, idx, 12, true);
        match p {
            A::Error(e) => error_descriptor(w, e),
            A::Media(m) => media_descriptor(w, cx, m),
            A::Modem(m) => modem_descriptor(w, cx, m),
            A::Mux(m) => mux_descriptor(w, cx, m),
            A::Events(e) => events_descriptor(w, cx, e),
            A::EventBuffer(e) => event_buffer(w, cx, e),
            A::Signals(s) => signals_descriptor(w, cx, s),
            A::DigitMap(d) => digit_map_descriptor(w, cx, d),
            A::ObservedEvents(o) => observed_events(w, cx, o),
            A::Statistics(s) => statistics_descriptor(w, cx, s),
            A::Packages(p) => seq_of(w, p, |w, p| {
                w.bit(false);
                let code = cx.form.package_to_asn1(&p.package_name)?;
                w.octets(&code);
                version99(w, p.package_version, "packageVersion")
            }),
            A::EmptyDescriptors(a) => audit_descriptor(w, cx, a),
        }
    })
}
