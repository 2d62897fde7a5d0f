//! Aligned PER → model, following the module of the version found in the
//! message. The one recursion of the ASN.1 types (a regulated notify
//! behaviour embeds events whose actions have a notify behaviour again) is
//! bounded by the `max_depth` of [`PerConfig::limits`](super::PerConfig::limits);
//! every count is checked against the bits left and the limits before
//! anything is allocated.

use std::cell::Cell;

use super::bits::{BitReader, List};
use super::form::{Form, Scope};
use super::{PerError, PerErrorKind};
use crate::model::*;

type R<T> = Result<T, PerError>;

/// What every decoding function needs besides the reader.
pub(crate) struct Dcx<'f> {
    /// Protocol version read from the message.
    pub(crate) v: u8,
    /// ASN.1 → text form mapping.
    pub(crate) form: &'f dyn Form,
    /// Current nesting of notify behaviours.
    depth: Cell<usize>,
    /// The deepest nesting accepted.
    max_depth: usize,
}

fn form_err(r: &BitReader<'_>, what: &'static str, detail: String) -> PerError {
    r.err(PerErrorKind::Form { what, detail })
}

fn invalid(r: &BitReader<'_>, what: &'static str, detail: &'static str) -> PerError {
    r.err(PerErrorKind::Invalid { what, detail })
}

// ---------------------------------------------------------------- helpers

/// SEQUENCE OF: `min_bits` is the smallest encoding of one item.
fn seq_of<'a, T, L: List<T>>(
    r: &mut BitReader<'a>,
    min_bits: usize,
    what: &'static str,
    f: impl FnMut(&mut BitReader<'a>) -> R<T>,
) -> R<L> {
    r.fragmented(min_bits, what, f)
}

/// Extension additions of a SEQUENCE with `known` additions: calls
/// `f(reader over the addition, index)` for each present known one and
/// skips unknown ones.
fn additions<'a>(
    r: &mut BitReader<'a>,
    known: usize,
    what: &'static str,
    mut f: impl FnMut(&mut BitReader<'a>, usize) -> R<()>,
) -> R<()> {
    // (saturating: a hostile count near 2^64 is refused just below)
    let n = usize::try_from(r.normally_small(what)?)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    if n > r.remaining_bits() {
        return Err(r.err(PerErrorKind::Truncated { expected: what }));
    }
    r.check_list(n, what)?;
    let mut present = Vec::with_capacity(n);
    for _ in 0..n {
        present.push(r.bit(what)?);
    }
    for (i, p) in present.into_iter().enumerate() {
        if p {
            let mut sub = r.open_type(what)?;
            if i < known {
                f(&mut sub, i)?;
            }
        }
    }
    Ok(())
}

/// Reads the extension bit of a SEQUENCE when the module has a marker.
fn ext_bit(r: &mut BitReader<'_>, has: bool, what: &'static str) -> R<bool> {
    if has {
        r.bit(what)
    } else {
        Ok(false)
    }
}

/// A CHOICE index: `Ok(i)` for a root alternative, `Err((i, reader))` for an
/// extension alternative with its open type contents.
fn choice<'a>(
    r: &mut BitReader<'a>,
    n: u64,
    ext: bool,
    what: &'static str,
) -> R<Result<u64, (u64, BitReader<'a>)>> {
    if ext && r.bit(what)? {
        let i = r.normally_small(what)?;
        let sub = r.open_type(what)?;
        return Ok(Err((i, sub)));
    }
    Ok(Ok(r.constrained(0, n - 1, what)?))
}

/// A root-only CHOICE index (extension alternatives are unknown here).
fn root_choice(r: &mut BitReader<'_>, n: u64, ext: bool, what: &'static str) -> R<u64> {
    match choice(r, n, ext, what)? {
        Ok(i) => Ok(i),
        Err(_) => Err(invalid(r, what, "unknown extension alternative")),
    }
}

/// An ENUMERATED index; extension values come back as `n + i`.
fn enumerated(r: &mut BitReader<'_>, n: u64, ext: bool, what: &'static str) -> R<u64> {
    if ext && r.bit(what)? {
        return Ok(n.saturating_add(r.normally_small(what)?));
    }
    r.constrained(0, n - 1, what)
}

fn u32_(r: &mut BitReader<'_>, what: &'static str) -> R<u32> {
    Ok(r.constrained(0, 4_294_967_295, what)? as u32)
}

fn u16_(r: &mut BitReader<'_>, what: &'static str) -> R<u16> {
    Ok(r.constrained(0, 65535, what)? as u16)
}

fn u99(r: &mut BitReader<'_>, what: &'static str) -> R<u8> {
    Ok(r.constrained(0, 99, what)? as u8)
}

/// Octets of a string value → text. OTP keeps such values as octet lists
/// and sends them unchanged, so text that came in as UTF-8 goes out as
/// UTF-8; octets that are not UTF-8 are taken as Latin-1 (one character
/// an octet, as OTP's lists hold them).
fn to_string(bytes: &[u8]) -> CompactString {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.into(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

fn ia5(r: &mut BitReader<'_>, what: &'static str) -> R<CompactString> {
    Ok(to_string(&r.octet_str(what)?))
}

/// An octet string with SIZE(lb..ub), ub < 64K.
fn sized<'a>(
    r: &mut BitReader<'a>,
    lb: usize,
    ub: usize,
    what: &'static str,
) -> R<std::borrow::Cow<'a, [u8]>> {
    if lb == ub {
        r.check_string(lb)?;
        if lb <= 2 {
            r.octets(lb, what).map(std::borrow::Cow::Owned)
        } else {
            Ok(r.aligned_slice(lb, what)?.into())
        }
    } else {
        let n = r.constrained(lb as u64, ub as u64, what)? as usize;
        r.check_string(n)?;
        Ok(r.aligned_slice(n, what)?.into())
    }
}

fn ia5_sized(r: &mut BitReader<'_>, lb: usize, ub: usize, what: &'static str) -> R<CompactString> {
    Ok(to_string(&sized(r, lb, ub, what)?))
}

fn code4(r: &mut BitReader<'_>, what: &'static str) -> R<[u8; 4]> {
    let s = r.aligned_slice(4, what)?;
    Ok([s[0], s[1], s[2], s[3]])
}

fn code2(r: &mut BitReader<'_>, what: &'static str) -> R<[u8; 2]> {
    let a = r.bits(16, what)?;
    Ok([(a >> 8) as u8, a as u8])
}

fn pkgd(r: &mut BitReader<'_>, cx: &Dcx<'_>, scope: Scope, what: &'static str) -> R<CompactString> {
    let c = code4(r, what)?;
    cx.form
        .pkgd_from_asn1(scope, c)
        .map_err(|e| form_err(r, what, e))
}

/// Like [`pkgd`], also returning the code (parameters are relative to it).
fn pkgd_code(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    scope: Scope,
    what: &'static str,
) -> R<(CompactString, [u8; 4])> {
    let c = code4(r, what)?;
    let s = cx
        .form
        .pkgd_from_asn1(scope, c)
        .map_err(|e| form_err(r, what, e))?;
    Ok((s, c))
}

fn dialplan(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CompactString> {
    let c = code2(r, "DigitMapName")?;
    cx.form
        .dialplan_from_asn1(c)
        .map(Into::into)
        .map_err(|e| form_err(r, "DigitMapName", e))
}

fn package(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CompactString> {
    let c = code2(r, "packageName")?;
    cx.form
        .package_from_asn1(c)
        .map(Into::into)
        .map_err(|e| form_err(r, "packageName", e))
}

/// BIT STRING with named bits, no size: the set bit numbers.
fn bit_string(r: &mut BitReader<'_>, what: &'static str) -> R<Vec<u32>> {
    let n = r.length(what)?;
    if n > r.remaining_bits() {
        return Err(r.err(PerErrorKind::Truncated { expected: what }));
    }
    let mut out = Vec::new();
    for i in 0..n {
        if r.bit(what)? {
            out.push(i as u32);
        }
    }
    Ok(out)
}

// ------------------------------------------------------------- top level

/// The authentication header, the Message extension bit and the version:
/// everything before the mId.
pub(crate) fn header(r: &mut BitReader<'_>) -> R<(Option<AuthenticationHeader>, bool, u8)> {
    let has_auth = r.bit("authHeader presence")?;
    let auth_header = if has_auth {
        let spi = r.aligned_slice(4, "secParmIndex")?;
        let spi = u32::from_be_bytes([spi[0], spi[1], spi[2], spi[3]]);
        let sn = r.aligned_slice(4, "seqNum")?;
        let sn = u32::from_be_bytes([sn[0], sn[1], sn[2], sn[3]]);
        let ad = sized(r, 12, 32, "AuthData")?;
        Some(AuthenticationHeader {
            sec_parm_index: spi,
            seq_num: sn,
            ad: ad.into_owned(),
        })
    } else {
        None
    };
    let ext = r.bit("Message extension bit")?;
    let version = r.constrained(0, 99, "version")? as u8;
    if !(1..=3).contains(&version) {
        return Err(r.err(PerErrorKind::UnsupportedVersion(version)));
    }
    Ok((auth_header, ext, version))
}

/// Decodes a whole MegacoMessage; the version is read from the message.
pub(crate) fn megaco_message(
    r: &mut BitReader<'_>,
    form: &dyn Form,
    max_depth: usize,
) -> R<MegacoMessage> {
    let (auth_header, ext, version) = header(r)?;
    let cx = Dcx {
        v: version,
        form,
        depth: Cell::new(0),
        max_depth,
    };
    let mid = mid(r, &cx)?;
    let body = if r.bits(1, "messageBody")? == 0 {
        MessageBody::Error(error_descriptor(r)?)
    } else {
        MessageBody::Transactions(seq_of(r, 3, "transactions", |r| transaction(r, &cx))?)
    };
    if ext {
        additions(r, 0, "Message extensions", |_, _| Ok(()))?;
    }
    Ok(MegacoMessage {
        auth_header,
        mess: Message { version, mid, body },
    })
}

fn port(r: &mut BitReader<'_>, present: bool) -> R<Option<u16>> {
    if present {
        Ok(Some(u16_(r, "portNumber")?))
    } else {
        Ok(None)
    }
}

fn ip4(r: &mut BitReader<'_>) -> R<Ip4Address> {
    let p = r.bit("IP4Address preamble")?;
    let a = r.aligned_slice(4, "IP4Address.address")?;
    let address = [a[0], a[1], a[2], a[3]];
    Ok(Ip4Address {
        address,
        port: port(r, p)?,
    })
}

fn ip6(r: &mut BitReader<'_>) -> R<Ip6Address> {
    let p = r.bit("IP6Address preamble")?;
    let a = r.aligned_slice(16, "IP6Address.address")?;
    let mut address = [0u8; 16];
    address.copy_from_slice(a);
    Ok(Ip6Address {
        address,
        port: port(r, p)?,
    })
}

fn domain(r: &mut BitReader<'_>) -> R<DomainName> {
    let p = r.bit("DomainName preamble")?;
    let name = ia5(r, "DomainName.name")?;
    Ok(DomainName {
        name,
        port: port(r, p)?,
    })
}

fn mtp(r: &mut BitReader<'_>) -> R<CompactString> {
    Ok(to_string(&sized(r, 2, 4, "mtpAddress")?))
}

fn mid(r: &mut BitReader<'_>, _cx: &Dcx<'_>) -> R<Mid> {
    Ok(match root_choice(r, 5, true, "MId")? {
        0 => Mid::Ip4(ip4(r)?),
        1 => Mid::Ip6(ip6(r)?),
        2 => Mid::Domain(domain(r)?),
        3 => Mid::Device(ia5_sized(r, 1, 64, "PathName")?),
        _ => Mid::Mtp(mtp(r)?),
    })
}

fn transaction(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Transaction> {
    match choice(r, 4, true, "Transaction")? {
        Ok(0) => {
            let ext = r.bit("TransactionRequest extension bit")?;
            let transaction_id = u32_(r, "transactionId")?;
            let actions = seq_of(r, 11, "actions", |r| action_request(r, cx))?;
            if ext {
                additions(r, 0, "TransactionRequest extensions", |_, _| Ok(()))?;
            }
            Ok(Transaction::Request(TransactionRequest {
                transaction_id,
                actions,
            }))
        }
        Ok(1) => {
            let ext = r.bit("TransactionPending extension bit")?;
            let transaction_id = u32_(r, "transactionId")?;
            if ext {
                additions(r, 0, "TransactionPending extensions", |_, _| Ok(()))?;
            }
            Ok(Transaction::Pending(TransactionPending { transaction_id }))
        }
        Ok(2) => transaction_reply(r, cx).map(Transaction::Reply),
        Ok(_) => {
            let acks = seq_of(r, 9, "TransactionResponseAck", |r| {
                let has_last = r.bit("TransactionAck preamble")?;
                let first_ack = u32_(r, "firstAck")?;
                let last_ack = if has_last {
                    Some(u32_(r, "lastAck")?)
                } else {
                    None
                };
                Ok(TransactionAck {
                    first_ack,
                    last_ack,
                })
            })?;
            Ok(Transaction::ResponseAck(acks))
        }
        Err((0, mut sub)) if cx.v >= 3 => {
            let r = &mut sub;
            let ext = r.bit("SegmentReply extension bit")?;
            let complete = r.bit("SegmentReply preamble")?;
            let transaction_id = u32_(r, "transactionId")?;
            let segment_number = u16_(r, "segmentNumber")?;
            if ext {
                additions(r, 0, "SegmentReply extensions", |_, _| Ok(()))?;
            }
            Ok(Transaction::SegmentReply(SegmentReply {
                transaction_id,
                segment_number,
                segmentation_complete: complete,
            }))
        }
        Err(_) => Err(invalid(r, "Transaction", "unknown extension alternative")),
    }
}

fn transaction_reply(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<TransactionReply> {
    let ext = r.bit("TransactionReply extension bit")?;
    let imm_ack_required = r.bit("TransactionReply preamble")?;
    let transaction_id = u32_(r, "transactionId")?;
    let result = if r.bits(1, "transactionResult")? == 0 {
        TransactionResult::Error(error_descriptor(r)?)
    } else {
        TransactionResult::ActionReplies(seq_of(r, 11, "actionReplies", |r| action_reply(r, cx))?)
    };
    let mut segment_number = None;
    let mut segmentation_complete = false;
    if ext {
        let known = if cx.v >= 3 { 2 } else { 0 };
        additions(r, known, "TransactionReply extensions", |r, i| {
            if i == 0 {
                segment_number = Some(u16_(r, "segmentNumber")?);
            } else {
                segmentation_complete = true;
            }
            Ok(())
        })?;
    }
    Ok(TransactionReply {
        transaction_id,
        imm_ack_required,
        result,
        segment_number,
        segmentation_complete,
    })
}

fn error_descriptor(r: &mut BitReader<'_>) -> R<ErrorDescriptor> {
    let has_text = r.bit("ErrorDescriptor preamble")?;
    let error_code = u16_(r, "errorCode")?;
    let error_text = if has_text {
        Some(ia5(r, "errorText")?)
    } else {
        None
    };
    Ok(ErrorDescriptor {
        error_code,
        error_text,
    })
}

fn context_id(r: &mut BitReader<'_>) -> R<ContextId> {
    Ok(ContextId(u32_(r, "contextId")?))
}

fn action_request(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ActionRequest> {
    let has_cr = r.bit("ActionRequest preamble")?;
    let has_car = r.bit("ActionRequest preamble")?;
    let context_id = context_id(r)?;
    let context_request = if has_cr {
        Some(context_request(r, cx)?)
    } else {
        None
    };
    let context_attr_audit_req = if has_car {
        Some(context_attr_audit(r, cx)?)
    } else {
        None
    };
    let command_requests = seq_of(r, 7, "commandRequests", |r| command_request(r, cx))?;
    Ok(ActionRequest {
        context_id,
        context_request,
        context_attr_audit_req,
        command_requests,
    })
}

fn action_reply(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ActionReply> {
    let has_err = r.bit("ActionReply preamble")?;
    let has_cr = r.bit("ActionReply preamble")?;
    let context_id = context_id(r)?;
    let error_descriptor = if has_err {
        Some(error_descriptor(r)?)
    } else {
        None
    };
    let context_reply = if has_cr {
        Some(context_request(r, cx)?)
    } else {
        None
    };
    let command_reply = seq_of(r, 4, "commandReply", |r| command_reply(r, cx))?;
    Ok(ActionReply {
        context_id,
        error_descriptor,
        context_reply,
        command_reply,
    })
}

fn context_request(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ContextRequest> {
    let ext = r.bit("ContextRequest extension bit")?;
    let has_p = r.bit("ContextRequest preamble")?;
    let has_e = r.bit("ContextRequest preamble")?;
    let has_t = r.bit("ContextRequest preamble")?;
    let priority = if has_p {
        Some(r.constrained(0, 15, "priority")? as u8)
    } else {
        None
    };
    let emergency = if has_e {
        Some(r.bit("emergency")?)
    } else {
        None
    };
    let topology_req = if has_t {
        Some(seq_of(r, 20, "topologyReq", |r| topology(r, cx))?)
    } else {
        None
    };
    let mut c = ContextRequest {
        priority,
        emergency,
        topology_req,
        iepscallind: None,
        context_prop: None,
        context_list: None,
    };
    if ext {
        let known = if cx.v >= 3 { 3 } else { 0 };
        additions(r, known, "ContextRequest extensions", |r, i| {
            match i {
                0 => c.iepscallind = Some(r.bit("iepscallind")?),
                1 => c.context_prop = Some(seq_of(r, 42, "contextProp", |r| property_parm(r, cx))?),
                _ => c.context_list = Some(seq_of(r, 10, "contextList", context_id)?),
            }
            Ok(())
        })?;
    }
    Ok(c)
}

fn context_attr_audit(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ContextAttrAuditRequest> {
    let ext = r.bit("ContextAttrAuditRequest extension bit")?;
    let mut c = ContextAttrAuditRequest {
        topology: r.bit("ContextAttrAuditRequest preamble")?,
        emergency: r.bit("ContextAttrAuditRequest preamble")?,
        priority: r.bit("ContextAttrAuditRequest preamble")?,
        iepscallind: false,
        context_prop_aud: None,
        select_priority: None,
        select_emergency: None,
        select_iepscallind: None,
        select_logic: None,
    };
    if ext {
        let known = if cx.v >= 3 { 6 } else { 0 };
        additions(r, known, "ContextAttrAuditRequest extensions", |r, i| {
            match i {
                0 => c.iepscallind = true,
                1 => {
                    c.context_prop_aud = Some(seq_of(r, 33, "contextPropAud", |r| {
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

fn command_request(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CommandRequest> {
    let ext = r.bit("CommandRequest extension bit")?;
    let optional = r.bit("CommandRequest preamble")?;
    let wildcard_return = r.bit("CommandRequest preamble")?;
    let idx = root_choice(r, 8, true, "Command")?;
    let command = match idx {
        0..=2 => {
            let ext = r.bit("AmmRequest extension bit")?;
            let termination_ids = term_id_list(r, cx)?;
            let descriptors = seq_of(r, 4, "descriptors", |r| amm_descriptor(r, cx))?;
            skip_ext(r, ext, "AmmRequest extensions")?;
            let a = AmmRequest {
                termination_ids: termination_ids.into(),
                descriptors,
            };
            match idx {
                0 => Command::Add(a),
                1 => Command::Move(a),
                _ => Command::Modify(a),
            }
        }
        3 => {
            let ext = r.bit("SubtractRequest extension bit")?;
            let has_a = r.bit("SubtractRequest preamble")?;
            let termination_ids = term_id_list(r, cx)?;
            let audit_descriptor = if has_a {
                Some(audit_descriptor(r, cx)?)
            } else {
                None
            };
            skip_ext(r, ext, "SubtractRequest extensions")?;
            Command::Subtract(SubtractRequest {
                termination_ids: termination_ids.into(),
                audit_descriptor,
            })
        }
        4 => Command::AuditCapability(audit_request(r, cx)?),
        5 => Command::AuditValue(audit_request(r, cx)?),
        6 => {
            let ext = r.bit("NotifyRequest extension bit")?;
            let has_e = r.bit("NotifyRequest preamble")?;
            let termination_ids = term_id_list(r, cx)?;
            let observed_events_descriptor = observed_events(r, cx)?;
            let error_descriptor = if has_e {
                Some(error_descriptor(r)?)
            } else {
                None
            };
            skip_ext(r, ext, "NotifyRequest extensions")?;
            Command::Notify(NotifyRequest {
                termination_ids: termination_ids.into(),
                observed_events_descriptor,
                error_descriptor,
            })
        }
        _ => {
            let ext = r.bit("ServiceChangeRequest extension bit")?;
            let termination_ids = term_id_list(r, cx)?;
            let service_change_parms = service_change_parm(r, cx)?;
            skip_ext(r, ext, "ServiceChangeRequest extensions")?;
            Command::ServiceChange(Box::new(ServiceChangeRequest {
                termination_ids: termination_ids.into(),
                service_change_parms,
            }))
        }
    };
    skip_ext(r, ext, "CommandRequest extensions")?;
    Ok(CommandRequest {
        command,
        optional,
        wildcard_return,
    })
}

/// Skips the (unknown) extension additions of a SEQUENCE.
fn skip_ext(r: &mut BitReader<'_>, ext: bool, what: &'static str) -> R<()> {
    if ext {
        additions(r, 0, what, |_, _| Ok(()))?;
    }
    Ok(())
}

fn audit_request(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<AuditRequest> {
    let ext = r.bit("AuditRequest extension bit")?;
    let termination_id = term_id(r, cx)?;
    let audit_descriptor = audit_descriptor(r, cx)?;
    let mut termination_id_list = None;
    if ext {
        let known = if cx.v >= 3 { 1 } else { 0 };
        additions(r, known, "AuditRequest extensions", |r, _| {
            termination_id_list = Some(term_id_list(r, cx)?);
            Ok(())
        })?;
    }
    Ok(AuditRequest {
        termination_id,
        audit_descriptor,
        termination_id_list,
    })
}

fn command_reply(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CommandReply> {
    let idx = root_choice(r, 8, true, "CommandReply")?;
    Ok(match idx {
        0..=3 => {
            let ext = r.bit("AmmsReply extension bit")?;
            let has_a = r.bit("AmmsReply preamble")?;
            let termination_ids = term_id_list(r, cx)?;
            let termination_audit = if has_a {
                Some(termination_audit(r, cx)?)
            } else {
                None
            };
            skip_ext(r, ext, "AmmsReply extensions")?;
            let a = AmmsReply {
                termination_ids: termination_ids.into(),
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
            let error_descriptor = if has_e {
                Some(error_descriptor(r)?)
            } else {
                None
            };
            skip_ext(r, ext, "NotifyReply extensions")?;
            CommandReply::Notify(NotifyReply {
                termination_ids: termination_ids.into(),
                error_descriptor,
            })
        }
        _ => {
            let ext = r.bit("ServiceChangeReply extension bit")?;
            let termination_ids = term_id_list(r, cx)?;
            let service_change_result = if r.bits(1, "serviceChangeResult")? == 0 {
                ServiceChangeResult::ErrorDescriptor(error_descriptor(r)?)
            } else {
                ServiceChangeResult::ServiceChangeResParms(service_change_res_parm(r, cx)?)
            };
            skip_ext(r, ext, "ServiceChangeReply extensions")?;
            CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                termination_ids: termination_ids.into(),
                service_change_result,
            }))
        }
    })
}

fn audit_reply(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<AuditReply> {
    match choice(r, 3, true, "AuditReply")? {
        Ok(0) => Ok(AuditReply::ContextAuditResult(term_id_list(r, cx)?)),
        Ok(1) => Ok(AuditReply::Error(error_descriptor(r)?)),
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

fn termination_audit(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Vec<AuditReturnParameter>> {
    seq_of(r, 5, "TerminationAudit", |r| {
        use AuditReturnParameter as A;
        Ok(match root_choice(r, 12, true, "AuditReturnParameter")? {
            0 => A::Error(error_descriptor(r)?),
            1 => A::Media(media_descriptor(r, cx)?),
            2 => A::Modem(modem_descriptor(r, cx)?),
            3 => A::Mux(mux_descriptor(r, cx)?),
            4 => A::Events(events_descriptor(r, cx)?),
            5 => A::EventBuffer(event_buffer(r, cx)?),
            6 => A::Signals(signals_descriptor(r, cx)?.into()),
            7 => A::DigitMap(digit_map_descriptor(r, cx)?),
            8 => A::ObservedEvents(observed_events(r, cx)?),
            9 => A::Statistics(statistics_descriptor(r, cx)?),
            10 => A::Packages(seq_of(r, 16, "PackagesDescriptor", |r| {
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

fn topology(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<TopologyRequest> {
    let ext = ext_bit(r, cx.v >= 2, "TopologyRequest extension bit")?;
    let termination_from = term_id(r, cx)?;
    let termination_to = term_id(r, cx)?;
    let topology_direction = match r.constrained(0, 2, "topologyDirection")? {
        0 => TopologyDirection::Bothway,
        1 => TopologyDirection::Isolate,
        _ => TopologyDirection::Oneway,
    };
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
                t.topology_direction_extension = Some(
                    match enumerated(r, 2, true, "topologyDirectionExtension")? {
                        0 => TopologyDirectionExtension::OnewayExternal,
                        1 => TopologyDirectionExtension::OnewayBoth,
                        _ => return Err(invalid(r, "topologyDirectionExtension", "unknown value")),
                    },
                );
            }
            Ok(())
        })?;
    }
    Ok(t)
}

fn amm_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<AmmDescriptor> {
    use AmmDescriptor as D;
    Ok(match choice(r, 8, true, "AmmDescriptor")? {
        Ok(0) => D::Media(media_descriptor(r, cx)?),
        Ok(1) => D::Modem(modem_descriptor(r, cx)?),
        Ok(2) => D::Mux(mux_descriptor(r, cx)?),
        Ok(3) => D::Events(events_descriptor(r, cx)?),
        Ok(4) => D::EventBuffer(event_buffer(r, cx)?),
        Ok(5) => D::Signals(signals_descriptor(r, cx)?.into()),
        Ok(6) => D::DigitMap(digit_map_descriptor(r, cx)?),
        Ok(_) => D::Audit(audit_descriptor(r, cx)?),
        Err((0, mut sub)) if cx.v >= 3 => D::Statistics(statistics_descriptor(&mut sub, cx)?),
        Err(_) => return Err(invalid(r, "AmmDescriptor", "unknown extension alternative")),
    })
}

fn audit_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<AuditDescriptor> {
    let ext = r.bit("AuditDescriptor extension bit")?;
    let has_t = r.bit("AuditDescriptor preamble")?;
    let audit_token = if has_t {
        let bits = bit_string(r, "auditToken")?;
        let mut v = Vec::with_capacity(bits.len());
        for b in bits {
            v.push(match b {
                0 => AuditToken::Mux,
                1 => AuditToken::Modem,
                2 => AuditToken::Media,
                3 => AuditToken::Events,
                4 => AuditToken::Signals,
                5 => AuditToken::DigitMap,
                6 => AuditToken::Stats,
                7 => AuditToken::ObservedEvents,
                8 => AuditToken::Packages,
                9 => AuditToken::EventBuffer,
                _ => return Err(invalid(r, "auditToken", "unknown named bit")),
            });
        }
        Some(v)
    } else {
        None
    };
    let mut audit_property_token = None;
    if ext {
        let known = if cx.v >= 2 { 1 } else { 0 };
        additions(r, known, "AuditDescriptor extensions", |r, _| {
            audit_property_token = Some(seq_of(r, 4, "auditPropertyToken", |r| {
                ind_audit_parameter(r, cx)
            })?);
            Ok(())
        })?;
    }
    Ok(AuditDescriptor {
        audit_token,
        audit_property_token,
    })
}

fn service_state(r: &mut BitReader<'_>) -> R<ServiceState> {
    Ok(match enumerated(r, 3, true, "ServiceState")? {
        0 => ServiceState::Test,
        1 => ServiceState::OutOfSvc,
        2 => ServiceState::InSvc,
        _ => return Err(invalid(r, "ServiceState", "unknown value")),
    })
}

fn stream_mode(r: &mut BitReader<'_>) -> R<StreamMode> {
    Ok(match enumerated(r, 5, true, "StreamMode")? {
        0 => StreamMode::SendOnly,
        1 => StreamMode::RecvOnly,
        2 => StreamMode::SendRecv,
        3 => StreamMode::Inactive,
        4 => StreamMode::LoopBack,
        _ => return Err(invalid(r, "StreamMode", "unknown value")),
    })
}

fn ind_audit_parameter(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<IndAuditParameter> {
    use IndAuditParameter as P;
    Ok(match root_choice(r, 7, true, "IndAuditParameter")? {
        0 => {
            let ext = r.bit("IndAudMediaDescriptor extension bit")?;
            let has_t = r.bit("IndAudMediaDescriptor preamble")?;
            let has_s = r.bit("IndAudMediaDescriptor preamble")?;
            let term_state_descr = if has_t {
                let ext = r.bit("IndAudTerminationStateDescriptor extension bit")?;
                let event_buffer_control = r.bit("IndAudTerminationStateDescriptor preamble")?;
                let service_state_b = r.bit("IndAudTerminationStateDescriptor preamble")?;
                let property_parms =
                    seq_of(r, 33, "propertyParms", |r| ind_aud_property_parm(r, cx))?;
                let mut service_state_sel = None;
                if ext {
                    let known = if cx.v >= 3 { 1 } else { 0 };
                    additions(
                        r,
                        known,
                        "IndAudTerminationStateDescriptor extensions",
                        |r, _| {
                            service_state_sel = Some(service_state(r)?);
                            Ok(())
                        },
                    )?;
                }
                Some(IndAudTerminationStateDescriptor {
                    property_parms,
                    event_buffer_control,
                    service_state: service_state_b,
                    service_state_sel,
                })
            } else {
                None
            };
            let streams = if has_s {
                Some(if r.bits(1, "IndAudMediaDescriptor.streams")? == 0 {
                    IndAudStreams::OneStream(ind_aud_stream_parms(r, cx)?)
                } else {
                    IndAudStreams::MultiStream(seq_of(r, 20, "multiStream", |r| {
                        let stream_id = u16_(r, "streamID")?;
                        let stream_parms = ind_aud_stream_parms(r, cx)?;
                        Ok(IndAudStreamDescriptor {
                            stream_id,
                            stream_parms,
                        })
                    })?)
                })
            } else {
                None
            };
            skip_ext(r, ext, "IndAudMediaDescriptor extensions")?;
            P::Media(IndAudMediaDescriptor {
                term_state_descr,
                streams,
            })
        }
        1 => {
            let ext = r.bit("IndAudEventsDescriptor extension bit")?;
            let has_r = r.bit("IndAudEventsDescriptor preamble")?;
            let has_s = r.bit("IndAudEventsDescriptor preamble")?;
            let request_id = if has_r {
                Some(u32_(r, "requestID")?)
            } else {
                None
            };
            let pkgd_name = pkgd(r, cx, Scope::Event, "pkgdName")?;
            let stream_id = if has_s {
                Some(u16_(r, "streamID")?)
            } else {
                None
            };
            skip_ext(r, ext, "IndAudEventsDescriptor extensions")?;
            P::Events(IndAudEventsDescriptor {
                request_id,
                pkgd_name,
                stream_id,
            })
        }
        2 => {
            let ext = r.bit("IndAudEventBufferDescriptor extension bit")?;
            let has_s = r.bit("IndAudEventBufferDescriptor preamble")?;
            let event_name = pkgd(r, cx, Scope::Event, "eventName")?;
            let stream_id = if has_s {
                Some(u16_(r, "streamID")?)
            } else {
                None
            };
            skip_ext(r, ext, "IndAudEventBufferDescriptor extensions")?;
            P::EventBuffer(IndAudEventBufferDescriptor {
                event_name,
                stream_id,
            })
        }
        3 => P::Signals(match root_choice(r, 2, true, "IndAudSignalsDescriptor")? {
            0 => IndAudSignalsDescriptor::Signal(ind_aud_signal(r, cx)?),
            _ => {
                let has_s = r.bit("IndAudSeqSigList preamble")?;
                let id = u16_(r, "IndAudSeqSigList.id")?;
                let signal_list = if has_s {
                    Some(ind_aud_signal(r, cx)?)
                } else {
                    None
                };
                IndAudSignalsDescriptor::SeqSigList(IndAudSeqSigList { id, signal_list })
            }
        }),
        4 => {
            let has = r.bit("IndAudDigitMapDescriptor preamble")?;
            let digit_map_name = if has { Some(dialplan(r, cx)?) } else { None };
            P::DigitMap(IndAudDigitMapDescriptor { digit_map_name })
        }
        5 => P::Statistics(IndAudStatisticsDescriptor {
            stat_name: pkgd(r, cx, Scope::Statistics, "statName")?,
        }),
        _ => {
            let ext = r.bit("IndAudPackagesDescriptor extension bit")?;
            let package_name = package(r, cx)?;
            let package_version = u99(r, "packageVersion")?;
            skip_ext(r, ext, "IndAudPackagesDescriptor extensions")?;
            P::Packages(IndAudPackagesDescriptor {
                package_name,
                package_version,
            })
        }
    })
}

fn ind_aud_signal(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<IndAudSignal> {
    let ext = r.bit("IndAudSignal extension bit")?;
    let has_s = r.bit("IndAudSignal preamble")?;
    let signal_name = pkgd(r, cx, Scope::Signal, "signalName")?;
    let stream_id = if has_s {
        Some(u16_(r, "streamID")?)
    } else {
        None
    };
    let mut signal_request_id = None;
    if ext {
        let known = if cx.v >= 3 { 1 } else { 0 };
        additions(r, known, "IndAudSignal extensions", |r, _| {
            signal_request_id = Some(u32_(r, "signalRequestID")?);
            Ok(())
        })?;
    }
    Ok(IndAudSignal {
        signal_name,
        stream_id,
        signal_request_id,
    })
}

fn ind_aud_stream_parms(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<IndAudStreamParms> {
    let ext = r.bit("IndAudStreamParms extension bit")?;
    let has_lc = r.bit("IndAudStreamParms preamble")?;
    let has_l = r.bit("IndAudStreamParms preamble")?;
    let has_r = r.bit("IndAudStreamParms preamble")?;
    let local_control_descriptor = if has_lc {
        let ext = r.bit("IndAudLocalControlDescriptor extension bit")?;
        let stream_mode_b = r.bit("IndAudLocalControlDescriptor preamble")?;
        let reserve_value = r.bit("IndAudLocalControlDescriptor preamble")?;
        let reserve_group = r.bit("IndAudLocalControlDescriptor preamble")?;
        let has_p = r.bit("IndAudLocalControlDescriptor preamble")?;
        let property_parms = if has_p {
            Some(seq_of(r, 33, "propertyParms", |r| {
                ind_aud_property_parm(r, cx)
            })?)
        } else {
            None
        };
        let mut stream_mode_sel = None;
        if ext {
            let known = if cx.v >= 3 { 1 } else { 0 };
            additions(
                r,
                known,
                "IndAudLocalControlDescriptor extensions",
                |r, _| {
                    stream_mode_sel = Some(stream_mode(r)?);
                    Ok(())
                },
            )?;
        }
        Some(IndAudLocalControlDescriptor {
            stream_mode: stream_mode_b,
            reserve_value,
            reserve_group,
            property_parms,
            stream_mode_sel,
        })
    } else {
        None
    };
    let lr = |r: &mut BitReader<'_>, present: bool| -> R<Option<IndAudLocalRemoteDescriptor>> {
        if !present {
            return Ok(None);
        }
        let ext = r.bit("IndAudLocalRemoteDescriptor extension bit")?;
        let has_g = r.bit("IndAudLocalRemoteDescriptor preamble")?;
        let prop_group_id = if has_g {
            Some(u16_(r, "propGroupID")?)
        } else {
            None
        };
        let prop_grps = seq_of(r, 33, "propGrps", |r| ind_aud_property_parm(r, cx))?;
        skip_ext(r, ext, "IndAudLocalRemoteDescriptor extensions")?;
        Ok(Some(IndAudLocalRemoteDescriptor {
            prop_group_id,
            prop_grps,
        }))
    };
    let local_descriptor = lr(r, has_l)?;
    let remote_descriptor = lr(r, has_r)?;
    let mut statistics_descriptor = None;
    if ext {
        let known = if cx.v >= 3 { 1 } else { 0 };
        additions(r, known, "IndAudStreamParms extensions", |r, _| {
            statistics_descriptor = Some(IndAudStatisticsDescriptor {
                stat_name: pkgd(r, cx, Scope::Statistics, "statName")?,
            });
            Ok(())
        })?;
    }
    Ok(IndAudStreamParms {
        local_control_descriptor,
        local_descriptor,
        remote_descriptor,
        statistics_descriptor,
    })
}

fn ind_aud_property_parm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<IndAudPropertyParm> {
    let ext = r.bit("IndAudPropertyParm extension bit")?;
    let name = pkgd(r, cx, Scope::Property, "IndAudPropertyParm.name")?;
    let mut property_parms = None;
    if ext {
        let known = if cx.v >= 3 { 1 } else { 0 };
        additions(r, known, "IndAudPropertyParm extensions", |r, _| {
            property_parms = Some(property_parm(r, cx)?);
            Ok(())
        })?;
    }
    Ok(IndAudPropertyParm {
        name,
        property_parms,
    })
}

fn term_id_list(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Vec<TerminationId>> {
    seq_of(r, 19, "TerminationIDList", |r| term_id(r, cx))
}

fn term_id(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<TerminationId> {
    let ext = r.bit("TerminationID extension bit")?;
    let wild: Vec<u8> = seq_of(r, 8, "wildcard", |r| Ok(r.bits(8, "WildcardField")? as u8))?;
    let id = sized(r, 1, 8, "TerminationID.id")?;
    skip_ext(r, ext, "TerminationID extensions")?;
    cx.form
        .term_id_from_asn1(&wild, &id)
        .map_err(|e| form_err(r, "TerminationID", e))
}

fn media_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<MediaDescriptor> {
    let ext = r.bit("MediaDescriptor extension bit")?;
    let has_t = r.bit("MediaDescriptor preamble")?;
    let has_s = r.bit("MediaDescriptor preamble")?;
    let term_state_descr = if has_t {
        let ext = r.bit("TerminationStateDescriptor extension bit")?;
        let has_e = r.bit("TerminationStateDescriptor preamble")?;
        let has_s = r.bit("TerminationStateDescriptor preamble")?;
        let property_parms = seq_of(r, 42, "propertyParms", |r| property_parm(r, cx))?;
        let event_buffer_control = if has_e {
            Some(match enumerated(r, 2, true, "EventBufferControl")? {
                0 => EventBufferControl::Off,
                1 => EventBufferControl::LockStep,
                _ => return Err(invalid(r, "EventBufferControl", "unknown value")),
            })
        } else {
            None
        };
        let service_state = if has_s { Some(service_state(r)?) } else { None };
        skip_ext(r, ext, "TerminationStateDescriptor extensions")?;
        Some(TerminationStateDescriptor {
            property_parms,
            event_buffer_control,
            service_state,
        })
    } else {
        None
    };
    let streams = if has_s {
        Some(if r.bits(1, "MediaDescriptor.streams")? == 0 {
            Streams::OneStream(stream_parms(r, cx)?)
        } else {
            Streams::MultiStream(seq_of(r, 20, "multiStream", |r| {
                let stream_id = u16_(r, "streamID")?;
                let stream_parms = stream_parms(r, cx)?;
                Ok(StreamDescriptor {
                    stream_id,
                    stream_parms,
                })
            })?)
        })
    } else {
        None
    };
    skip_ext(r, ext, "MediaDescriptor extensions")?;
    Ok(MediaDescriptor {
        term_state_descr,
        streams,
    })
}

fn stream_parms(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<StreamParms> {
    let ext = r.bit("StreamParms extension bit")?;
    let has_lc = r.bit("StreamParms preamble")?;
    let has_l = r.bit("StreamParms preamble")?;
    let has_r = r.bit("StreamParms preamble")?;
    let local_control_descriptor = if has_lc {
        let ext = r.bit("LocalControlDescriptor extension bit")?;
        let has_m = r.bit("LocalControlDescriptor preamble")?;
        let has_v = r.bit("LocalControlDescriptor preamble")?;
        let has_g = r.bit("LocalControlDescriptor preamble")?;
        let stream_mode = if has_m { Some(stream_mode(r)?) } else { None };
        let reserve_value = if has_v {
            Some(r.bit("reserveValue")?)
        } else {
            None
        };
        let reserve_group = if has_g {
            Some(r.bit("reserveGroup")?)
        } else {
            None
        };
        let property_parms = seq_of(r, 42, "propertyParms", |r| property_parm(r, cx))?;
        skip_ext(r, ext, "LocalControlDescriptor extensions")?;
        Some(LocalControlDescriptor {
            stream_mode,
            reserve_value,
            reserve_group,
            property_parms,
        })
    } else {
        None
    };
    let lr = |r: &mut BitReader<'_>, present: bool| -> R<Option<LocalRemoteDescriptor>> {
        if !present {
            return Ok(None);
        }
        let ext = r.bit("LocalRemoteDescriptor extension bit")?;
        let prop_grps = seq_of(r, 8, "propGrps", |r| {
            seq_of(r, 42, "PropertyGroup", |r| property_parm(r, cx))
        })?;
        skip_ext(r, ext, "LocalRemoteDescriptor extensions")?;
        Ok(Some(LocalRemoteDescriptor { prop_grps }))
    };
    let local_descriptor = lr(r, has_l)?;
    let remote_descriptor = lr(r, has_r)?;
    let mut statistics_descriptor = None;
    if ext {
        let known = if cx.v >= 3 { 1 } else { 0 };
        additions(r, known, "StreamParms extensions", |r, _| {
            statistics_descriptor = Some(statistics_descriptor_(r, cx)?);
            Ok(())
        })?;
    }
    Ok(StreamParms {
        local_control_descriptor,
        local_descriptor,
        remote_descriptor,
        statistics_descriptor,
    })
}

fn value(r: &mut BitReader<'_>, what: &'static str) -> R<Values> {
    seq_of(r, 8, what, |r| Ok(to_string(&r.octet_str(what)?)))
}

fn extra_info(r: &mut BitReader<'_>) -> R<ExtraInfo> {
    Ok(match r.constrained(0, 2, "extraInfo")? {
        0 => ExtraInfo::Relation(match enumerated(r, 3, true, "Relation")? {
            0 => Relation::GreaterThan,
            1 => Relation::SmallerThan,
            2 => Relation::UnequalTo,
            _ => return Err(invalid(r, "Relation", "unknown value")),
        }),
        1 => ExtraInfo::Range(r.bit("range")?),
        _ => ExtraInfo::Sublist(r.bit("sublist")?),
    })
}

fn property_parm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<PropertyParm> {
    let ext = r.bit("PropertyParm extension bit")?;
    let has_x = r.bit("PropertyParm preamble")?;
    let name = pkgd(r, cx, Scope::Property, "PropertyParm.name")?;
    let value = value(r, "PropertyParm.value")?;
    let extra_info = if has_x { Some(extra_info(r)?) } else { None };
    skip_ext(r, ext, "PropertyParm extensions")?;
    Ok(PropertyParm {
        name,
        value,
        extra_info,
    })
}

fn parameters(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    scope: Scope,
    parent: [u8; 4],
) -> R<Vec<PropertyParm>> {
    seq_of(r, 26, "parameter list", |r| {
        let ext = r.bit("parameter extension bit")?;
        let has_x = r.bit("parameter preamble")?;
        let code = code2(r, "parameter name")?;
        let name = cx
            .form
            .param_from_asn1(scope, parent, code)
            .map_err(|e| form_err(r, "parameter name", e))?;
        let value = value(r, "parameter value")?;
        let extra_info = if has_x { Some(extra_info(r)?) } else { None };
        skip_ext(r, ext, "parameter extensions")?;
        Ok(PropertyParm {
            name,
            value,
            extra_info,
        })
    })
}

fn nsd(r: &mut BitReader<'_>) -> R<NonStandardData> {
    let non_standard_identifier = match root_choice(r, 3, true, "NonStandardIdentifier")? {
        0 => {
            let b = r.octet_string("OBJECT IDENTIFIER")?;
            NonStandardIdentifier::Object(oid_arcs(r, &b)?)
        }
        1 => {
            let ext = r.bit("H221NonStandard extension bit")?;
            let h = H221NonStandard {
                t35_country_code1: r.constrained(0, 255, "t35CountryCode1")? as u8,
                t35_country_code2: r.constrained(0, 255, "t35CountryCode2")? as u8,
                t35_extension: r.constrained(0, 255, "t35Extension")? as u8,
                manufacturer_code: u16_(r, "manufacturerCode")?,
            };
            skip_ext(r, ext, "H221NonStandard extensions")?;
            NonStandardIdentifier::H221NonStandard(h)
        }
        _ => NonStandardIdentifier::Experimental(ia5_sized(r, 8, 8, "experimental")?),
    };
    let data = r.octet_string("NonStandardData.data")?;
    Ok(NonStandardData {
        non_standard_identifier,
        data,
    })
}

fn oid_arcs(r: &BitReader<'_>, b: &[u8]) -> R<Vec<u32>> {
    let mut arcs = Vec::new();
    let mut acc: u64 = 0;
    let mut open = false;
    for &x in b {
        acc = (acc << 7) | (x & 0x7F) as u64;
        if acc > u32::MAX as u64 + 80 {
            return Err(invalid(r, "OBJECT IDENTIFIER", "arc too large"));
        }
        open = x & 0x80 != 0;
        if !open {
            if arcs.is_empty() {
                let first = (acc / 40).min(2);
                arcs.push(first as u32);
                arcs.push((acc - first * 40) as u32);
            } else {
                arcs.push(acc as u32);
            }
            acc = 0;
        }
    }
    if open || arcs.is_empty() {
        return Err(invalid(r, "OBJECT IDENTIFIER", "truncated arc"));
    }
    Ok(arcs)
}

fn mux_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<MuxDescriptor> {
    let ext = r.bit("MuxDescriptor extension bit")?;
    let has_n = r.bit("MuxDescriptor preamble")?;
    let mux_type = match enumerated(r, 4, true, "MuxType")? {
        0 => MuxType::H221,
        1 => MuxType::H223,
        2 => MuxType::H226,
        3 => MuxType::V76,
        4 if cx.v >= 2 => MuxType::Nx64k,
        _ => return Err(invalid(r, "MuxType", "unknown value")),
    };
    let term_list = term_id_list(r, cx)?;
    let non_standard_data = if has_n { Some(nsd(r)?) } else { None };
    skip_ext(r, ext, "MuxDescriptor extensions")?;
    Ok(MuxDescriptor {
        mux_type,
        term_list,
        non_standard_data,
    })
}

/// The requestID of Events/SecondEvents: mandatory in v1, optional after.
fn request_id_pre(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<bool> {
    if cx.v >= 2 {
        r.bit("requestID presence")
    } else {
        Ok(true)
    }
}

fn events_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<EventsDescriptor> {
    let ext = r.bit("EventsDescriptor extension bit")?;
    let has_r = request_id_pre(r, cx)?;
    let request_id = if has_r {
        Some(u32_(r, "requestID")?)
    } else {
        None
    };
    let event_list = seq_of(r, 43, "eventList", |r| {
        let ext = r.bit("RequestedEvent extension bit")?;
        let has_s = r.bit("RequestedEvent preamble")?;
        let has_a = r.bit("RequestedEvent preamble")?;
        let (pkgd_name, code) = pkgd_code(r, cx, Scope::Event, "pkgdName")?;
        let stream_id = if has_s {
            Some(u16_(r, "streamID")?)
        } else {
            None
        };
        let event_action = if has_a {
            Some(requested_actions(r, cx)?)
        } else {
            None
        };
        let ev_par_list = parameters(r, cx, Scope::Event, code)?;
        skip_ext(r, ext, "RequestedEvent extensions")?;
        Ok(RequestedEvent {
            pkgd_name,
            stream_id,
            event_action,
            ev_par_list: ev_par_list.into(),
        })
    })?;
    skip_ext(r, ext, "EventsDescriptor extensions")?;
    Ok(EventsDescriptor {
        request_id,
        event_list,
    })
}

fn event_dm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<EventDm> {
    Ok(if r.bits(1, "EventDM")? == 0 {
        EventDm::DigitMapName(dialplan(r, cx)?)
    } else {
        EventDm::DigitMapValue(digit_map_value(r, cx)?)
    })
}

fn requested_actions(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<RequestedActions> {
    let ext = r.bit("RequestedActions extension bit")?;
    let has_k = r.bit("RequestedActions preamble")?;
    let has_d = r.bit("RequestedActions preamble")?;
    let has_e = r.bit("RequestedActions preamble")?;
    let has_s = r.bit("RequestedActions preamble")?;
    let keep_active = if has_k {
        Some(r.bit("keepActive")?)
    } else {
        None
    };
    let event_dm = if has_d { Some(event_dm(r, cx)?) } else { None };
    let second_event = if has_e {
        Some(second_events(r, cx)?)
    } else {
        None
    };
    let signals_descriptor = if has_s {
        Some(signals_descriptor(r, cx)?)
    } else {
        None
    };
    let mut a = RequestedActions {
        keep_active,
        event_dm,
        second_event,
        signals_descriptor: signals_descriptor.map(Into::into),
        notify_behaviour: None,
        reset_events_descriptor: false,
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

fn notify_behaviour(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<NotifyBehaviour> {
    let depth = cx.depth.get();
    if depth >= cx.max_depth {
        return Err(r.err(PerErrorKind::TooDeep {
            limit: cx.max_depth,
        }));
    }
    cx.depth.set(depth + 1);
    let res = notify_behaviour_in(r, cx);
    cx.depth.set(depth);
    res
}

fn notify_behaviour_in(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<NotifyBehaviour> {
    Ok(match root_choice(r, 3, true, "NotifyBehaviour")? {
        0 => NotifyBehaviour::NotifyImmediate,
        1 => {
            let ext = r.bit("RegulatedEmbeddedDescriptor extension bit")?;
            let has_e = r.bit("RegulatedEmbeddedDescriptor preamble")?;
            let has_s = r.bit("RegulatedEmbeddedDescriptor preamble")?;
            let second_event = if has_e {
                Some(second_events(r, cx)?)
            } else {
                None
            };
            let signals_descriptor = if has_s {
                Some(signals_descriptor(r, cx)?)
            } else {
                None
            };
            skip_ext(r, ext, "RegulatedEmbeddedDescriptor extensions")?;
            NotifyBehaviour::NotifyRegulated(Box::new(RegulatedEmbeddedDescriptor {
                second_event,
                signals_descriptor: signals_descriptor.map(Into::into),
            }))
        }
        _ => NotifyBehaviour::NeverNotify,
    })
}

fn second_events(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<EventsDescriptor> {
    let ext = r.bit("EventsDescriptor extension bit")?;
    let has_r = request_id_pre(r, cx)?;
    let request_id = if has_r {
        Some(u32_(r, "requestID")?)
    } else {
        None
    };
    let event_list = seq_of(r, 43, "eventList", |r| {
        let ext = r.bit("RequestedEvent extension bit")?;
        let has_s = r.bit("RequestedEvent preamble")?;
        let has_a = r.bit("RequestedEvent preamble")?;
        let (pkgd_name, code) = pkgd_code(r, cx, Scope::Event, "pkgdName")?;
        let stream_id = if has_s {
            Some(u16_(r, "streamID")?)
        } else {
            None
        };
        let event_action = if has_a {
            let ext = r.bit("RequestedActions extension bit")?;
            let has_k = r.bit("RequestedActions preamble")?;
            let has_d = r.bit("RequestedActions preamble")?;
            let has_s = r.bit("RequestedActions preamble")?;
            let keep_active = if has_k {
                Some(r.bit("keepActive")?)
            } else {
                None
            };
            let event_dm = if has_d { Some(event_dm(r, cx)?) } else { None };
            let signals_descriptor = if has_s {
                Some(signals_descriptor(r, cx)?)
            } else {
                None
            };
            let mut a = RequestedActions {
                keep_active,
                event_dm,
                signals_descriptor: signals_descriptor.map(Into::into),
                ..Default::default()
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
            Some(a)
        } else {
            None
        };
        let ev_par_list = parameters(r, cx, Scope::Event, code)?;
        skip_ext(r, ext, "RequestedEvent extensions")?;
        Ok(RequestedEvent {
            pkgd_name,
            stream_id,
            event_action,
            ev_par_list: ev_par_list.into(),
        })
    })?;
    skip_ext(r, ext, "EventsDescriptor extensions")?;
    Ok(EventsDescriptor {
        request_id,
        event_list,
    })
}

fn event_buffer(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Vec<EventSpec>> {
    seq_of(r, 42, "EventBufferDescriptor", |r| {
        let ext = r.bit("EventSpec extension bit")?;
        let has_s = r.bit("EventSpec preamble")?;
        let (event_name, code) = pkgd_code(r, cx, Scope::Event, "eventName")?;
        let stream_id = if has_s {
            Some(u16_(r, "streamID")?)
        } else {
            None
        };
        let event_par_list = parameters(r, cx, Scope::Event, code)?;
        skip_ext(r, ext, "EventSpec extensions")?;
        Ok(EventSpec {
            event_name,
            stream_id,
            event_par_list,
        })
    })
}

fn signals_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Vec<SignalRequest>> {
    seq_of(r, 8, "SignalsDescriptor", |r| {
        Ok(match root_choice(r, 2, true, "SignalRequest")? {
            0 => SignalRequest::Signal(signal(r, cx)?),
            _ => {
                let id = u16_(r, "SeqSigList.id")?;
                let signal_list = seq_of(r, 46, "signalList", |r| signal(r, cx))?;
                SignalRequest::SeqSigList(SeqSigList { id, signal_list })
            }
        })
    })
}

fn signal(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Signal> {
    let ext = r.bit("Signal extension bit")?;
    let mut pre = [false; 5];
    for p in &mut pre {
        *p = r.bit("Signal preamble")?;
    }
    let (signal_name, code) = pkgd_code(r, cx, Scope::Signal, "signalName")?;
    let stream_id = if pre[0] {
        Some(u16_(r, "streamID")?)
    } else {
        None
    };
    let sig_type = if pre[1] {
        Some(match enumerated(r, 3, true, "SignalType")? {
            0 => SignalType::Brief,
            1 => SignalType::OnOff,
            2 => SignalType::TimeOut,
            _ => return Err(invalid(r, "SignalType", "unknown value")),
        })
    } else {
        None
    };
    let duration = if pre[2] {
        Some(u16_(r, "duration")?)
    } else {
        None
    };
    let notify_completion = if pre[3] {
        let bits = bit_string(r, "notifyCompletion")?;
        let mut v = Vec::with_capacity(bits.len());
        for b in bits {
            v.push(match b {
                0 => NotifyCompletion::OnTimeOut,
                1 => NotifyCompletion::OnInterruptByEvent,
                2 => NotifyCompletion::OnInterruptByNewSignalDescr,
                3 => NotifyCompletion::OtherReason,
                4 if cx.v >= 3 => NotifyCompletion::OnIteration,
                _ => return Err(invalid(r, "notifyCompletion", "unknown named bit")),
            });
        }
        Some(v)
    } else {
        None
    };
    let keep_active = if pre[4] {
        Some(r.bit("keepActive")?)
    } else {
        None
    };
    let sig_par_list = parameters(r, cx, Scope::Signal, code)?;
    let mut s = Signal {
        signal_name,
        stream_id,
        sig_type,
        duration,
        notify_completion,
        keep_active,
        sig_par_list,
        direction: None,
        request_id: None,
        intersig_delay: None,
    };
    if ext {
        let known = if cx.v >= 3 { 3 } else { 0 };
        additions(r, known, "Signal extensions", |r, i| {
            match i {
                0 => {
                    s.direction = Some(match enumerated(r, 3, true, "SignalDirection")? {
                        0 => SignalDirection::Internal,
                        1 => SignalDirection::External,
                        2 => SignalDirection::Both,
                        _ => return Err(invalid(r, "SignalDirection", "unknown value")),
                    })
                }
                1 => s.request_id = Some(u32_(r, "requestID")?),
                _ => s.intersig_delay = Some(u16_(r, "intersigDelay")?),
            }
            Ok(())
        })?;
    }
    Ok(s)
}

fn modem_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ModemDescriptor> {
    let has_n = r.bit("ModemDescriptor preamble")?;
    let mtl = seq_of(r, 5, "mtl", |r| {
        Ok(match enumerated(r, 9, true, "ModemType")? {
            0 => ModemType::V18,
            1 => ModemType::V22,
            2 => ModemType::V22bis,
            3 => ModemType::V32,
            4 => ModemType::V32bis,
            5 => ModemType::V34,
            6 => ModemType::V90,
            7 => ModemType::V91,
            8 => ModemType::SynchIsdn,
            _ => return Err(invalid(r, "ModemType", "unknown value")),
        })
    })?;
    let mpl = seq_of(r, 42, "mpl", |r| property_parm(r, cx))?;
    let non_standard_data = if has_n { Some(nsd(r)?) } else { None };
    Ok(ModemDescriptor {
        mtl,
        mpl,
        non_standard_data,
    })
}

fn digit_map_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<DigitMapDescriptor> {
    let has_n = r.bit("DigitMapDescriptor preamble")?;
    let has_v = r.bit("DigitMapDescriptor preamble")?;
    let digit_map_name = if has_n { Some(dialplan(r, cx)?) } else { None };
    let digit_map_value = if has_v {
        Some(digit_map_value(r, cx)?)
    } else {
        None
    };
    Ok(DigitMapDescriptor {
        digit_map_name,
        digit_map_value,
    })
}

fn digit_map_value(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<DigitMapValue> {
    let ext = r.bit("DigitMapValue extension bit")?;
    let has_st = r.bit("DigitMapValue preamble")?;
    let has_sh = r.bit("DigitMapValue preamble")?;
    let has_l = r.bit("DigitMapValue preamble")?;
    let start_timer = if has_st {
        Some(u99(r, "startTimer")?)
    } else {
        None
    };
    let short_timer = if has_sh {
        Some(u99(r, "shortTimer")?)
    } else {
        None
    };
    let long_timer = if has_l {
        Some(u99(r, "longTimer")?)
    } else {
        None
    };
    let digit_map_body = ia5(r, "digitMapBody")?;
    let mut duration_timer = None;
    if ext {
        let known = if cx.v >= 2 { 1 } else { 0 };
        additions(r, known, "DigitMapValue extensions", |r, _| {
            duration_timer = Some(u99(r, "durationTimer")?);
            Ok(())
        })?;
    }
    Ok(DigitMapValue {
        start_timer,
        short_timer,
        long_timer,
        digit_map_body,
        duration_timer,
    })
}

fn service_change_address(r: &mut BitReader<'_>) -> R<ServiceChangeAddress> {
    use ServiceChangeAddress as A;
    Ok(match root_choice(r, 6, true, "ServiceChangeAddress")? {
        0 => A::PortNumber(u16_(r, "portNumber")?),
        1 => A::Ip4(ip4(r)?),
        2 => A::Ip6(ip6(r)?),
        3 => A::Domain(domain(r)?),
        4 => A::Device(ia5_sized(r, 1, 64, "PathName")?),
        _ => A::Mtp(mtp(r)?),
    })
}

fn profile(r: &mut BitReader<'_>) -> R<ServiceChangeProfile> {
    let s = ia5_sized(r, 1, 67, "ServiceChangeProfile")?;
    match s.rsplit_once('/') {
        Some((name, ver)) => match ver.parse::<u8>() {
            Ok(version) => Ok(ServiceChangeProfile {
                profile_name: name.to_string().into(),
                version,
            }),
            Err(_) => Err(invalid(
                r,
                "ServiceChangeProfile",
                "version is not a number",
            )),
        },
        None => Err(invalid(
            r,
            "ServiceChangeProfile",
            "no '/' before the version",
        )),
    }
}

fn time_notation(r: &mut BitReader<'_>) -> R<TimeNotation> {
    Ok(TimeNotation {
        date: ia5_sized(r, 8, 8, "TimeNotation.date")?,
        time: ia5_sized(r, 8, 8, "TimeNotation.time")?,
    })
}

fn service_change_parm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ServiceChangeParm> {
    let ext = r.bit("ServiceChangeParm extension bit")?;
    let mut pre = [false; 7];
    for p in &mut pre {
        *p = r.bit("ServiceChangeParm preamble")?;
    }
    let service_change_method = match enumerated(r, 6, true, "ServiceChangeMethod")? {
        0 => ServiceChangeMethod::Failover,
        1 => ServiceChangeMethod::Forced,
        2 => ServiceChangeMethod::Graceful,
        3 => ServiceChangeMethod::Restart,
        4 => ServiceChangeMethod::Disconnected,
        5 => ServiceChangeMethod::HandOff,
        _ => return Err(invalid(r, "ServiceChangeMethod", "unknown value")),
    };
    let service_change_address = if pre[0] {
        Some(service_change_address(r)?)
    } else {
        None
    };
    let service_change_version = if pre[1] {
        Some(u99(r, "serviceChangeVersion")?)
    } else {
        None
    };
    let service_change_profile = if pre[2] { Some(profile(r)?) } else { None };
    let service_change_reason = value(r, "serviceChangeReason")?;
    let service_change_delay = if pre[3] {
        Some(u32_(r, "serviceChangeDelay")?)
    } else {
        None
    };
    let service_change_mgc_id = if pre[4] { Some(mid(r, cx)?) } else { None };
    let time_stamp = if pre[5] {
        Some(time_notation(r)?)
    } else {
        None
    };
    let non_standard_data = if pre[6] { Some(nsd(r)?) } else { None };
    let mut p = ServiceChangeParm {
        service_change_method,
        service_change_address,
        service_change_version,
        service_change_profile,
        service_change_reason,
        service_change_delay,
        service_change_mgc_id,
        time_stamp,
        non_standard_data,
        service_change_info: None,
        service_change_incomplete_flag: false,
    };
    if ext {
        let known = match cx.v {
            1 => 0,
            2 => 1,
            _ => 2,
        };
        additions(r, known, "ServiceChangeParm extensions", |r, i| {
            if i == 0 {
                p.service_change_info = Some(audit_descriptor(r, cx)?);
            } else {
                p.service_change_incomplete_flag = true;
            }
            Ok(())
        })?;
    }
    Ok(p)
}

fn service_change_res_parm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ServiceChangeResParm> {
    let ext = r.bit("ServiceChangeResParm extension bit")?;
    let mut pre = [false; 5];
    for p in &mut pre {
        *p = r.bit("ServiceChangeResParm preamble")?;
    }
    let service_change_mgc_id = if pre[0] { Some(mid(r, cx)?) } else { None };
    let service_change_address = if pre[1] {
        Some(service_change_address(r)?)
    } else {
        None
    };
    let service_change_version = if pre[2] {
        Some(u99(r, "serviceChangeVersion")?)
    } else {
        None
    };
    let service_change_profile = if pre[3] { Some(profile(r)?) } else { None };
    let time_stamp = if pre[4] {
        Some(time_notation(r)?)
    } else {
        None
    };
    skip_ext(r, ext, "ServiceChangeResParm extensions")?;
    Ok(ServiceChangeResParm {
        service_change_mgc_id,
        service_change_address,
        service_change_version,
        service_change_profile,
        time_stamp,
    })
}

fn statistics_descriptor_(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Vec<StatisticsParameter>> {
    seq_of(r, 33, "StatisticsDescriptor", |r| {
        let has_v = r.bit("StatisticsParameter preamble")?;
        let stat_name = pkgd(r, cx, Scope::Statistics, "statName")?;
        let stat_value = if has_v {
            Some(value(r, "statValue")?)
        } else {
            None
        };
        Ok(StatisticsParameter {
            stat_name,
            stat_value,
        })
    })
}

fn statistics_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Vec<StatisticsParameter>> {
    statistics_descriptor_(r, cx)
}

fn observed_events(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ObservedEventsDescriptor> {
    let request_id = u32_(r, "requestId")?;
    let observed_event_lst = seq_of(r, 43, "observedEventLst", |r| {
        let ext = r.bit("ObservedEvent extension bit")?;
        let has_s = r.bit("ObservedEvent preamble")?;
        let has_t = r.bit("ObservedEvent preamble")?;
        let (event_name, code) = pkgd_code(r, cx, Scope::Event, "eventName")?;
        let stream_id = if has_s {
            Some(u16_(r, "streamID")?)
        } else {
            None
        };
        let event_par_list = parameters(r, cx, Scope::Event, code)?;
        let time_notation = if has_t { Some(time_notation(r)?) } else { None };
        skip_ext(r, ext, "ObservedEvent extensions")?;
        Ok(ObservedEvent {
            event_name,
            stream_id,
            event_par_list,
            time_notation,
        })
    })?;
    Ok(ObservedEventsDescriptor {
        request_id,
        observed_event_lst,
    })
}
