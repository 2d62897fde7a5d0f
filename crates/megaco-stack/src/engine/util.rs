//! Helpers of the engine: time arithmetic, ack ranges, segments, the
//! message-level error for undecodable input, and the ServiceChange
//! version negotiation (H.248.1 section 11.3).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use megaco::model::*;

use super::{ERR_SYNTAX, ERR_VERSION};
use crate::codec::DecodeError;

/// The message-level error answering an undecodable message, as OTP's
/// messenger words it: 406 "Unsupported version: V" for a version this
/// codec does not speak, otherwise 400 "Syntax error on line L" (text) or
/// "Syntax error" (binary).
pub fn decode_error_descriptor(error: &DecodeError) -> ErrorDescriptor {
    match (error.unsupported_version(), error.line_column()) {
        (Some(v), _) => ErrorDescriptor {
            error_code: ERR_VERSION,
            error_text: Some(format!("Unsupported version: {v}").into()),
        },
        (None, Some((line, _))) => ErrorDescriptor {
            error_code: ERR_SYNTAX,
            error_text: Some(format!("Syntax error on line {line}").into()),
        },
        (None, None) => ErrorDescriptor {
            error_code: ERR_SYNTAX,
            error_text: Some("Syntax error".into()),
        },
    }
}

/// `now + d`, saturating: a duration too long for `Instant` (such as
/// `Duration::MAX`, for "never") lands a century ahead instead of
/// overflowing.
pub(crate) fn after(now: Instant, d: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
    now.checked_add(d.min(CENTURY))
        .or_else(|| now.checked_add(Duration::from_secs(24 * 3600)))
        .unwrap_or(now)
}

/// The segment numbers not (yet) received: the gaps below the last
/// segment, or, when the last one is unknown, the gaps below the highest
/// received and the number after it.
pub(super) fn missing_segments(
    received: &BTreeMap<u16, TransactionResult>,
    last: Option<u16>,
) -> Vec<u16> {
    let highest = received.keys().next_back().copied().unwrap_or(0);
    let end = last.unwrap_or(highest);
    let mut missing: Vec<u16> = (1..=end).filter(|n| !received.contains_key(n)).collect();
    if last.is_none() {
        missing.push(highest.saturating_add(1));
    }
    missing
}

/// One result from the segments of a reply, in segment order: the action
/// replies of all segments, or the first segment's error if any segment
/// is an error.
pub(super) fn merge_segments(
    parts: impl IntoIterator<Item = TransactionResult>,
) -> TransactionResult {
    let mut replies = Vec::new();
    for part in parts {
        match part {
            TransactionResult::ActionReplies(r) => replies.extend(r),
            error @ TransactionResult::Error(_) => return error,
        }
    }
    TransactionResult::ActionReplies(replies.into())
}

/// Sorted, coalesced ranges of transaction ids.
pub(super) fn ack_ranges(mut ids: Vec<u32>) -> Vec<TransactionAck> {
    ids.sort_unstable();
    ids.dedup();
    let mut out: Vec<TransactionAck> = Vec::new();
    for id in ids {
        if let Some(last) = out.last_mut() {
            let end = last.last_ack.unwrap_or(last.first_ack);
            if end.checked_add(1) == Some(id) {
                last.last_ack = Some(id);
                continue;
            }
        }
        out.push(TransactionAck {
            first_ack: id,
            last_ack: None,
        });
    }
    out
}

/// Whether a ServiceChange method registers (or re-registers) the MG
/// with a controller, the occasions H.248.1 section 11.3 negotiates the
/// version at: Restart, Failover, HandOff and Disconnected.
fn registers(method: ServiceChangeMethod) -> bool {
    !matches!(
        method,
        ServiceChangeMethod::Forced | ServiceChangeMethod::Graceful
    )
}

/// The version a request offers in its ServiceChange on ROOT (its
/// ServiceChangeVersion, or the message's own version without one), if it
/// holds such a registration.
pub(super) fn offered_version(actions: &[ActionRequest], message_version: u8) -> Option<u8> {
    actions
        .iter()
        .flat_map(|a| &a.command_requests)
        .find_map(|c| match &c.command {
            Command::ServiceChange(sc)
                if sc.termination_ids.iter().any(TerminationId::is_root)
                    && registers(sc.service_change_parms.service_change_method) =>
            {
                Some(
                    sc.service_change_parms
                        .service_change_version
                        .unwrap_or(message_version),
                )
            }
            _ => None,
        })
}

/// Fills in the ServiceChangeVersion of the registrations in `actions`
/// that leave it empty; returns the version offered, if any.
pub(super) fn offer_version(actions: &mut [ActionRequest], version: u8) -> Option<u8> {
    let mut offered = None;
    for c in actions
        .iter_mut()
        .flat_map(|a| a.command_requests.iter_mut())
    {
        if let Command::ServiceChange(sc) = &mut c.command {
            let parms = &mut sc.service_change_parms;
            if sc.termination_ids.iter().any(TerminationId::is_root)
                && registers(parms.service_change_method)
            {
                let v = *parms.service_change_version.get_or_insert(version);
                offered.get_or_insert(v);
            }
        }
    }
    offered
}

/// The ServiceChangeReply parameters of an accepted registration in a
/// reply, if it holds one.
pub(super) fn accepted_registration(
    result: &mut TransactionResult,
) -> Option<&mut ServiceChangeResParm> {
    let TransactionResult::ActionReplies(replies) = result else {
        return None;
    };
    replies
        .iter_mut()
        .filter(|a| a.error_descriptor.is_none())
        .flat_map(|a| a.command_reply.iter_mut())
        .find_map(|r| match r {
            CommandReply::ServiceChange(sc) => {
                let ServiceChangeReply {
                    termination_ids,
                    service_change_result,
                } = &mut **sc;
                match service_change_result {
                    ServiceChangeResult::ServiceChangeResParms(p)
                        if termination_ids.iter().any(TerminationId::is_root) =>
                    {
                        Some(p)
                    }
                    _ => None,
                }
            }
            _ => None,
        })
}

/// Whether a result carries nothing but errors: a transaction error, or
/// action replies each holding an error descriptor and no command reply.
pub(super) fn only_errors(result: &TransactionResult) -> bool {
    match result {
        TransactionResult::Error(_) => true,
        TransactionResult::ActionReplies(r) => {
            !r.is_empty()
                && r.iter()
                    .all(|a| a.error_descriptor.is_some() && a.command_reply.is_empty())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_ranges_coalesce() {
        let r = ack_ranges(vec![5, 1, 2, 3, 9, 2]);
        assert_eq!(
            r,
            vec![
                TransactionAck {
                    first_ack: 1,
                    last_ack: Some(3)
                },
                TransactionAck {
                    first_ack: 5,
                    last_ack: None
                },
                TransactionAck {
                    first_ack: 9,
                    last_ack: None
                },
            ]
        );
    }
}
