//! Replies: transaction results, action replies, command replies and
//! what an audit returns.

use super::*;

/// The result of a TransactionReply, into `out` (an empty action reply
/// list).
pub(super) fn transaction_result(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    out: &mut TransactionResult,
) -> R<()> {
    if r.bits(1, "transactionResult")? == 0 {
        *out = TransactionResult::Error(error_descriptor(r, cx)?);
    } else if let TransactionResult::ActionReplies(a) = out {
        seq_in(r, cx, 11, "actionReplies", a, |r, a| action_reply(r, cx, a))?;
    }
    Ok(())
}

/// The extension additions of a TransactionReply: v3's segment number
/// and segmentation-complete flag.
pub(crate) fn reply_additions(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<(Option<u16>, bool)> {
    let mut segment_number = None;
    let mut segmentation_complete = false;
    let known = if cx.v >= 3 { 2 } else { 0 };
    additions(r, known, "TransactionReply extensions", |r, i| {
        if i == 0 {
            segment_number = Some(u16_(r, "segmentNumber")?);
        } else {
            segmentation_complete = true;
        }
        Ok(())
    })?;
    Ok((segment_number, segmentation_complete))
}

pub(super) fn action_reply(r: &mut BitReader<'_>, cx: &Dcx<'_>, a: &mut ActionReply) -> R<()> {
    let has_err = r.bit("ActionReply preamble")?;
    let has_cr = r.bit("ActionReply preamble")?;
    a.context_id = context_id(r)?;
    a.error_descriptor = opt(r, has_err, |r| error_descriptor(r, cx))?;
    a.context_reply = opt(r, has_cr, |r| context_request(r, cx))?;
    a.command_reply = seq_of(r, cx, 4, "commandReply", |r| command_reply(r, cx))?;
    Ok(())
}

pub(super) fn command_reply(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CommandReply> {
    let idx = root_choice(r, 8, true, "CommandReply")?;
    Ok(match idx {
        0..=3 => {
            let ext = r.bit("AmmsReply extension bit")?;
            let has_a = r.bit("AmmsReply preamble")?;
            let termination_ids = term_id_list(r, cx)?;
            let termination_audit = opt(r, has_a, |r| termination_audit(r, cx))?;
            skip_ext(r, ext, "AmmsReply extensions")?;
            let a = AmmsReply {
                termination_ids,
                termination_audit,
            };
            match idx {
                0 => CommandReply::Add(a),
                1 => CommandReply::Move(a),
                2 => CommandReply::Modify(a),
                _ => CommandReply::Subtract(a),
            }
        }
        4 => CommandReply::AuditCapability(audit_reply(r, cx)?),
        5 => CommandReply::AuditValue(audit_reply(r, cx)?),
        6 => {
            let ext = r.bit("NotifyReply extension bit")?;
            let has_e = r.bit("NotifyReply preamble")?;
            let termination_ids = term_id_list(r, cx)?;
            let error_descriptor = opt(r, has_e, |r| error_descriptor(r, cx))?;
            skip_ext(r, ext, "NotifyReply extensions")?;
            CommandReply::Notify(NotifyReply {
                termination_ids,
                error_descriptor,
            })
        }
        _ => {
            let ext = r.bit("ServiceChangeReply extension bit")?;
            let termination_ids = term_id_list(r, cx)?;
            let service_change_result = service_change_result(r, cx)?;
            skip_ext(r, ext, "ServiceChangeReply extensions")?;
            CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                termination_ids,
                service_change_result,
            }))
        }
    })
}

pub(super) fn audit_reply(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<AuditReply> {
    match choice(r, 3, true, "AuditReply")? {
        Ok(0) => Ok(AuditReply::ContextAuditResult(term_id_list(r, cx)?)),
        Ok(1) => Ok(AuditReply::Error(error_descriptor(r, cx)?)),
        Ok(_) => {
            let termination_id = term_id(r, cx)?;
            let termination_audit_result = termination_audit(r, cx)?;
            Ok(AuditReply::AuditResult(AuditResult {
                termination_id,
                termination_audit_result,
            }))
        }
        Err((0, mut sub)) if cx.v >= 3 => {
            let r = &mut sub;
            let ext = r.bit("TermListAuditResult extension bit")?;
            let termination_id_list = term_id_list(r, cx)?;
            let termination_audit_result = termination_audit(r, cx)?;
            skip_ext(r, ext, "TermListAuditResult extensions")?;
            Ok(AuditReply::AuditResultTermList(TermListAuditResult {
                termination_id_list,
                termination_audit_result,
            }))
        }
        Err(_) => Err(invalid(r, "AuditReply", "unknown extension alternative")),
    }
}

pub(crate) fn termination_audit(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
) -> R<Vec<AuditReturnParameter>> {
    seq_of(r, cx, 5, "TerminationAudit", |r| {
        use AuditReturnParameter as A;
        Ok(match root_choice(r, 12, true, "AuditReturnParameter")? {
            0 => A::Error(error_descriptor(r, cx)?),
            1 => A::Media(media_descriptor(r, cx)?),
            2 => A::Modem(modem_descriptor(r, cx)?),
            3 => A::Mux(mux_descriptor(r, cx)?),
            4 => A::Events(events_descriptor(r, cx)?),
            5 => A::EventBuffer(event_buffer(r, cx)?),
            6 => A::Signals(signals_descriptor(r, cx)?),
            7 => A::DigitMap(digit_map_descriptor(r, cx)?),
            8 => {
                let mut o = ObservedEventsDescriptor::default();
                observed_events(r, cx, &mut o)?;
                A::ObservedEvents(o)
            }
            9 => A::Statistics(statistics_descriptor(r, cx)?),
            10 => A::Packages(seq_of(r, cx, 16, "PackagesDescriptor", |r| {
                let ext = r.bit("PackagesItem extension bit")?;
                let package_name = package(r, cx)?;
                let package_version = u99(r, "packageVersion")?;
                skip_ext(r, ext, "PackagesItem extensions")?;
                Ok(PackagesItem {
                    package_name,
                    package_version,
                })
            })?),
            _ => A::EmptyDescriptors(audit_descriptor(r, cx)?),
        })
    })
}
