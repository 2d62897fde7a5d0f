//! Model → aligned PER, following the MEDIA-GATEWAY-CONTROL module of the
//! message's version (v1, v2 or v3; OTP's modules).

use std::cell::Cell;

use super::bits::BitWriter;
use super::form::{Form, Scope};
use crate::asn1::enums::{Enumerated, NamedBits};
use crate::model::*;
use crate::EncodeError;

type R = Result<(), EncodeError>;

/// What every encoding function needs besides the writer.
pub(crate) struct Cx<'f> {
    /// Protocol version of the message (selects the module).
    pub(crate) v: u8,
    /// Text ↔ ASN.1 form mapping.
    pub(crate) form: &'f dyn Form,
    /// Current nesting of notify behaviours.
    pub(crate) depth: Cell<usize>,
    /// The deepest nesting accepted.
    pub(crate) max_depth: usize,
}

impl Cx<'_> {
    /// Fails when `present` and the message version is below `needs`.
    fn need(&self, present: bool, needs: u8, construct: &'static str) -> R {
        if present && self.v < needs {
            Err(EncodeError::Version {
                construct,
                version: self.v,
                needs,
            })
        } else {
            Ok(())
        }
    }
}

fn invalid(what: &'static str, detail: impl Into<String>) -> EncodeError {
    EncodeError::Invalid {
        what,
        detail: detail.into(),
    }
}

// ---------------------------------------------------------------- helpers

/// SEQUENCE OF with an unconstrained count.
fn seq_of<T>(
    w: &mut BitWriter<'_>,
    items: &[T],
    mut f: impl FnMut(&mut BitWriter<'_>, &T) -> R,
) -> R {
    w.fragmented(items.len(), |w, i| f(w, &items[i]))
}

/// Extension additions of a SEQUENCE: the bitmap of the `n` additions
/// (`present`), then each present one as an open type via `f(w, index)`.
fn additions(
    w: &mut BitWriter<'_>,
    present: &[bool],
    mut f: impl FnMut(&mut BitWriter<'_>, usize) -> R,
) -> R {
    w.normally_small(present.len() as u64 - 1);
    for &p in present {
        w.bit(p);
    }
    for (i, &p) in present.iter().enumerate() {
        if p {
            w.open_type(|w| f(w, i))?;
        }
    }
    Ok(())
}

#[inline]
fn u32_(w: &mut BitWriter<'_>, v: u32) {
    w.constrained(v as u64, 0, 4_294_967_295);
}

#[inline]
fn u16_(w: &mut BitWriter<'_>, v: u16) {
    w.constrained(v as u64, 0, 65535);
}

/// IA5String without a size constraint (8 bits a character, aligned).
/// Like OTP, which sends the octets of its character lists as they are,
/// the text's UTF-8 octets go out unchanged.
#[inline]
fn ia5(w: &mut BitWriter<'_>, s: &str, _what: &'static str) -> R {
    w.octet_string(s.as_bytes());
    Ok(())
}

/// An octet string (or IA5String) with SIZE(lb..ub), ub < 64K.
fn sized(w: &mut BitWriter<'_>, data: &[u8], lb: usize, ub: usize, what: &'static str) -> R {
    let n = data.len();
    if n < lb || n > ub {
        return Err(invalid(what, format!("size {n} outside {lb}..{ub}")));
    }
    if lb == ub {
        if n <= 2 {
            w.octets(data);
        } else {
            w.aligned_octets(data);
        }
    } else {
        w.constrained(n as u64, lb as u64, ub as u64);
        w.aligned_octets(data);
    }
    Ok(())
}

fn ia5_sized(w: &mut BitWriter<'_>, s: &str, lb: usize, ub: usize, what: &'static str) -> R {
    sized(w, s.as_bytes(), lb, ub, what)
}

/// ENUMERATED: the value's index in the root (after the extension bit
/// of an extensible type) or among the additions (the table in
/// `asn1::enums`).
#[inline]
fn enumerated<T: Enumerated>(w: &mut BitWriter<'_>, v: T) {
    match v.per_index() {
        (false, i) => {
            if T::EXTENSIBLE {
                w.bit(false);
            }
            w.constrained(u64::from(i), 0, T::ROOT.len() as u64 - 1);
        }
        (true, i) => {
            w.bit(true);
            w.normally_small(u64::from(i));
        }
    }
}

/// CHOICE index among `n` root alternatives.
#[inline]
fn choice(w: &mut BitWriter<'_>, idx: u64, n: u64, ext: bool) {
    if ext {
        w.bit(false);
    }
    w.constrained(idx, 0, n - 1);
}

// ------------------------------------------------------------- top level

pub(crate) fn megaco_message(w: &mut BitWriter<'_>, cx: &Cx<'_>, m: &MegacoMessage) -> R {
    w.bit(m.auth_header.is_some());
    if let Some(a) = &m.auth_header {
        w.aligned_octets(&a.sec_parm_index.to_be_bytes());
        w.aligned_octets(&a.seq_num.to_be_bytes());
        sized(w, &a.ad, 12, 32, "AuthData")?;
    }
    message(w, cx, &m.mess)
}

fn message(w: &mut BitWriter<'_>, cx: &Cx<'_>, m: &Message) -> R {
    w.bit(false); // extension
    if m.version > 99 {
        return Err(invalid("version", "above 99"));
    }
    w.constrained(m.version as u64, 0, 99);
    mid(w, cx, &m.mid)?;
    match &m.body {
        MessageBody::Error(e) => {
            w.bits(0, 1);
            error_descriptor(w, e)
        }
        MessageBody::Transactions(ts) => {
            w.bits(1, 1);
            seq_of(w, ts, |w, t| transaction(w, cx, t))
        }
    }
}

#[inline]
fn port(w: &mut BitWriter<'_>, p: Option<u16>) {
    if let Some(p) = p {
        u16_(w, p);
    }
}

fn ip4(w: &mut BitWriter<'_>, a: &Ip4Address) {
    w.bit(a.port.is_some());
    w.aligned_octets(&a.address);
    port(w, a.port);
}

fn ip6(w: &mut BitWriter<'_>, a: &Ip6Address) {
    w.bit(a.port.is_some());
    w.aligned_octets(&a.address);
    port(w, a.port);
}

fn domain(w: &mut BitWriter<'_>, d: &DomainName) -> R {
    w.bit(d.port.is_some());
    ia5(w, &d.name, "DomainName.name")?;
    port(w, d.port);
    Ok(())
}

fn mid(w: &mut BitWriter<'_>, _cx: &Cx<'_>, m: &Mid) -> R {
    match m {
        Mid::Ip4(a) => {
            choice(w, 0, 5, true);
            ip4(w, a);
        }
        Mid::Ip6(a) => {
            choice(w, 1, 5, true);
            ip6(w, a);
        }
        Mid::Domain(d) => {
            choice(w, 2, 5, true);
            domain(w, d)?;
        }
        Mid::Device(p) => {
            choice(w, 3, 5, true);
            ia5_sized(w, p, 1, 64, "PathName")?;
        }
        Mid::Mtp(s) => {
            choice(w, 4, 5, true);
            sized(w, s.as_bytes(), 2, 4, "mtpAddress")?;
        }
    }
    Ok(())
}

fn transaction(w: &mut BitWriter<'_>, cx: &Cx<'_>, t: &Transaction) -> R {
    match t {
        Transaction::Request(r) => {
            choice(w, 0, 4, true);
            w.bit(false);
            u32_(w, r.transaction_id);
            seq_of(w, &r.actions, |w, a| action_request(w, cx, a))
        }
        Transaction::Pending(p) => {
            choice(w, 1, 4, true);
            w.bit(false);
            u32_(w, p.transaction_id);
            Ok(())
        }
        Transaction::Reply(r) => {
            choice(w, 2, 4, true);
            transaction_reply(w, cx, r)
        }
        Transaction::ResponseAck(acks) => {
            choice(w, 3, 4, true);
            seq_of(w, acks, |w, a| {
                w.bit(a.last_ack.is_some());
                u32_(w, a.first_ack);
                if let Some(l) = a.last_ack {
                    u32_(w, l);
                }
                Ok(())
            })
        }
        Transaction::SegmentReply(s) => {
            cx.need(true, 3, "SegmentReply")?;
            w.bit(true);
            w.normally_small(0);
            w.open_type(|w| {
                w.bit(false);
                w.bit(s.segmentation_complete);
                u32_(w, s.transaction_id);
                u16_(w, s.segment_number);
                Ok(())
            })
        }
    }
}

fn transaction_reply(w: &mut BitWriter<'_>, cx: &Cx<'_>, r: &TransactionReply) -> R {
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

fn error_descriptor(w: &mut BitWriter<'_>, e: &ErrorDescriptor) -> R {
    w.bit(e.error_text.is_some());
    u16_(w, e.error_code);
    if let Some(t) = &e.error_text {
        ia5(w, t, "ErrorText")?;
    }
    Ok(())
}

fn context_id(w: &mut BitWriter<'_>, c: ContextId) {
    u32_(w, c.0);
}

fn action_request(w: &mut BitWriter<'_>, cx: &Cx<'_>, a: &ActionRequest) -> R {
    w.bit(a.context_request.is_some());
    w.bit(a.context_attr_audit_req.is_some());
    context_id(w, a.context_id);
    if let Some(c) = &a.context_request {
        context_request(w, cx, c)?;
    }
    if let Some(c) = &a.context_attr_audit_req {
        context_attr_audit(w, cx, c)?;
    }
    seq_of(w, &a.command_requests, |w, c| command_request(w, cx, c))
}

fn action_reply(w: &mut BitWriter<'_>, cx: &Cx<'_>, a: &ActionReply) -> R {
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

fn context_request(w: &mut BitWriter<'_>, cx: &Cx<'_>, c: &ContextRequest) -> R {
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

fn context_attr_audit(w: &mut BitWriter<'_>, cx: &Cx<'_>, c: &ContextAttrAuditRequest) -> R {
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

fn command_request(w: &mut BitWriter<'_>, cx: &Cx<'_>, c: &CommandRequest) -> R {
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

fn audit_request(w: &mut BitWriter<'_>, cx: &Cx<'_>, r: &AuditRequest) -> R {
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

fn command_reply(w: &mut BitWriter<'_>, cx: &Cx<'_>, c: &CommandReply) -> R {
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

fn audit_reply(w: &mut BitWriter<'_>, cx: &Cx<'_>, a: &AuditReply) -> R {
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

fn termination_audit(w: &mut BitWriter<'_>, cx: &Cx<'_>, items: &[AuditReturnParameter]) -> R {
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

fn version99(w: &mut BitWriter<'_>, v: u8, what: &'static str) -> R {
    if v > 99 {
        return Err(invalid(what, "above 99"));
    }
    w.constrained(v as u64, 0, 99);
    Ok(())
}

fn topology(w: &mut BitWriter<'_>, cx: &Cx<'_>, t: &TopologyRequest) -> R {
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

fn amm_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, d: &AmmDescriptor) -> R {
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

fn audit_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, a: &AuditDescriptor) -> R {
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

/// BIT STRING with named bits and no size constraint: OTP drops the
/// trailing zero bits, so the length is the highest set bit plus one.
fn bit_string(w: &mut BitWriter<'_>, set: impl Iterator<Item = u32>) {
    let mut mask: u64 = 0;
    for b in set {
        mask |= 1 << b;
    }
    let len = 64 - mask.leading_zeros();
    w.length(len as usize);
    for b in 0..len {
        w.bit(mask & (1 << b) != 0);
    }
}

fn ind_audit_parameter(w: &mut BitWriter<'_>, cx: &Cx<'_>, p: &IndAuditParameter) -> R {
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

fn ind_aud_signal(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &IndAudSignal) -> R {
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

fn ind_aud_stream_parms(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &IndAudStreamParms) -> R {
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

fn ind_aud_property_parm(w: &mut BitWriter<'_>, cx: &Cx<'_>, p: &IndAudPropertyParm) -> R {
    let extra = [p.property_parms.is_some()];
    cx.need(extra[0], 3, "IndAudPropertyParm value")?;
    w.bit(extra[0]);
    pkgd(w, cx, Scope::Property, &p.name)?;
    if let Some(pp) = &p.property_parms {
        additions(w, &extra, |w, _| property_parm(w, cx, pp))?;
    }
    Ok(())
}

fn term_id_list(w: &mut BitWriter<'_>, cx: &Cx<'_>, ids: &[TerminationId]) -> R {
    seq_of(w, ids, |w, t| term_id(w, cx, t))
}

fn term_id(w: &mut BitWriter<'_>, cx: &Cx<'_>, t: &TerminationId) -> R {
    let a = cx.form.term_id_to_asn1(t)?;
    let (wild, id) = (a.wildcards(), a.id());
    w.bit(false);
    w.fragmented(wild.len(), |w, i| {
        w.bits(wild[i] as u64, 8);
        Ok::<(), EncodeError>(())
    })?;
    sized(w, id, 1, 8, "TerminationID.id")
}

fn pkgd(w: &mut BitWriter<'_>, cx: &Cx<'_>, scope: Scope, name: &str) -> R {
    let code = cx.form.pkgd_to_asn1(scope, name)?;
    w.aligned_octets(&code);
    Ok(())
}

fn media_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, m: &MediaDescriptor) -> R {
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

fn service_state(w: &mut BitWriter<'_>, s: ServiceState) {
    enumerated(w, s);
}

fn stream_mode(w: &mut BitWriter<'_>, m: StreamMode) {
    enumerated(w, m);
}

fn stream_parms(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &StreamParms) -> R {
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
fn value(w: &mut BitWriter<'_>, v: &[CompactString]) -> R {
    seq_of(w, v, |w, s| {
        w.octet_string(s.as_bytes());
        Ok(())
    })
}

fn extra_info(w: &mut BitWriter<'_>, e: &ExtraInfo) {
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

fn property_parm(w: &mut BitWriter<'_>, cx: &Cx<'_>, p: &PropertyParm) -> R {
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
fn parameter(
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

fn parameters(
    w: &mut BitWriter<'_>,
    cx: &Cx<'_>,
    scope: Scope,
    parent: &str,
    ps: &[PropertyParm],
) -> R {
    seq_of(w, ps, |w, p| parameter(w, cx, scope, parent, p))
}

fn nsd(w: &mut BitWriter<'_>, n: &NonStandardData) -> R {
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
fn oid_contents(arcs: &[u32], out: &mut Vec<u8>) -> R {
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

fn mux_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, m: &MuxDescriptor) -> R {
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

fn request_id_v1(w: &mut BitWriter<'_>, cx: &Cx<'_>, id: Option<u32>) -> R {
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

fn events_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, e: &EventsDescriptor) -> R {
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

fn event_dm(w: &mut BitWriter<'_>, cx: &Cx<'_>, d: &EventDm) -> R {
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

fn requested_actions(w: &mut BitWriter<'_>, cx: &Cx<'_>, a: &RequestedActions) -> R {
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

fn notify_behaviour(w: &mut BitWriter<'_>, cx: &Cx<'_>, n: &NotifyBehaviour) -> R {
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

fn notify_behaviour_in(w: &mut BitWriter<'_>, cx: &Cx<'_>, n: &NotifyBehaviour) -> R {
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

fn second_events(w: &mut BitWriter<'_>, cx: &Cx<'_>, e: &EventsDescriptor) -> R {
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

fn event_buffer(w: &mut BitWriter<'_>, cx: &Cx<'_>, e: &[EventSpec]) -> R {
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

fn signals_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &[SignalRequest]) -> R {
    seq_of(w, s, |w, r| match r {
        SignalRequest::Signal(s) => {
            choice(w, 0, 2, true);
            signal(w, cx, s)
        }
        SignalRequest::SeqSigList(l) => {
            choice(w, 1, 2, true);
            u16_(w, l.id);
            seq_of(w, &l.signal_list, |w, s| signal(w, cx, s))
        }
    })
}

fn signal(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &Signal) -> R {
    let extra = [
        s.direction.is_some(),
        s.request_id.is_some(),
        s.intersig_delay.is_some(),
    ];
    let any = extra.iter().any(|&b| b);
    cx.need(any, 3, "signal direction / request id / inter-signal delay")?;
    w.bit(any);
    w.bit(s.stream_id.is_some());
    w.bit(s.sig_type.is_some());
    w.bit(s.duration.is_some());
    w.bit(s.notify_completion.is_some());
    w.bit(s.keep_active.is_some());
    pkgd(w, cx, Scope::Signal, &s.signal_name)?;
    if let Some(id) = s.stream_id {
        u16_(w, id);
    }
    if let Some(t) = s.sig_type {
        enumerated(w, t);
    }
    if let Some(d) = s.duration {
        u16_(w, d);
    }
    if let Some(n) = &s.notify_completion {
        if cx.v < 3 && n.contains(&NotifyCompletion::OnIteration) {
            cx.need(true, 3, "NotifyCompletion Iteration")?;
        }
        bit_string(w, n.iter().map(|n| n.bit()));
    }
    if let Some(k) = s.keep_active {
        w.bit(k);
    }
    parameters(w, cx, Scope::Signal, &s.signal_name, &s.sig_par_list)?;
    if any {
        additions(w, &extra, |w, i| {
            match i {
                0 => {
                    enumerated(w, s.direction.unwrap_or(SignalDirection::Internal));
                }
                1 => u32_(w, s.request_id.unwrap_or_default()),
                _ => u16_(w, s.intersig_delay.unwrap_or_default()),
            }
            Ok(())
        })?;
    }
    Ok(())
}

fn modem_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, m: &ModemDescriptor) -> R {
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

fn digit_map_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, d: &DigitMapDescriptor) -> R {
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

fn digit_map_value(w: &mut BitWriter<'_>, cx: &Cx<'_>, d: &DigitMapValue) -> R {
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

fn service_change_address(w: &mut BitWriter<'_>, a: &ServiceChangeAddress) -> R {
    use ServiceChangeAddress as A;
    match a {
        A::PortNumber(p) => {
            choice(w, 0, 6, true);
            u16_(w, *p);
        }
        A::Ip4(a) => {
            choice(w, 1, 6, true);
            ip4(w, a);
        }
        A::Ip6(a) => {
            choice(w, 2, 6, true);
            ip6(w, a);
        }
        A::Domain(d) => {
            choice(w, 3, 6, true);
            domain(w, d)?;
        }
        A::Device(p) => {
            choice(w, 4, 6, true);
            ia5_sized(w, p, 1, 64, "PathName")?;
        }
        A::Mtp(s) => {
            choice(w, 5, 6, true);
            sized(w, s.as_bytes(), 2, 4, "mtpAddress")?;
        }
    }
    Ok(())
}

fn profile(w: &mut BitWriter<'_>, p: &ServiceChangeProfile) -> R {
    let s = format!("{}/{}", p.profile_name, p.version);
    ia5_sized(w, &s, 1, 67, "ServiceChangeProfile")
}

fn time_notation(w: &mut BitWriter<'_>, t: &TimeNotation) -> R {
    ia5_sized(w, &t.date, 8, 8, "TimeNotation.date")?;
    ia5_sized(w, &t.time, 8, 8, "TimeNotation.time")
}

fn service_change_parm(w: &mut BitWriter<'_>, cx: &Cx<'_>, p: &ServiceChangeParm) -> R {
    let extra = [
        p.service_change_info.is_some(),
        p.service_change_incomplete_flag,
    ];
    cx.need(extra[0], 2, "ServiceChange audit info")?;
    cx.need(extra[1], 3, "ServiceChangeInc")?;
    let any = extra.iter().any(|&b| b);
    w.bit(any);
    w.bit(p.service_change_address.is_some());
    w.bit(p.service_change_version.is_some());
    w.bit(p.service_change_profile.is_some());
    w.bit(p.service_change_delay.is_some());
    w.bit(p.service_change_mgc_id.is_some());
    w.bit(p.time_stamp.is_some());
    w.bit(p.non_standard_data.is_some());
    enumerated(w, p.service_change_method);
    if let Some(a) = &p.service_change_address {
        service_change_address(w, a)?;
    }
    if let Some(v) = p.service_change_version {
        version99(w, v, "serviceChangeVersion")?;
    }
    if let Some(pr) = &p.service_change_profile {
        profile(w, pr)?;
    }
    value(w, &p.service_change_reason)?;
    if let Some(d) = p.service_change_delay {
        u32_(w, d);
    }
    if let Some(m) = &p.service_change_mgc_id {
        mid(w, cx, m)?;
    }
    if let Some(t) = &p.time_stamp {
        time_notation(w, t)?;
    }
    if let Some(n) = &p.non_standard_data {
        nsd(w, n)?;
    }
    if any {
        let n = if cx.v >= 3 { 2 } else { 1 };
        additions(w, &extra[..n], |w, i| {
            if i == 0 {
                if let Some(a) = &p.service_change_info {
                    audit_descriptor(w, cx, a)?;
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

fn service_change_res_parm(w: &mut BitWriter<'_>, cx: &Cx<'_>, p: &ServiceChangeResParm) -> R {
    w.bit(false);
    w.bit(p.service_change_mgc_id.is_some());
    w.bit(p.service_change_address.is_some());
    w.bit(p.service_change_version.is_some());
    w.bit(p.service_change_profile.is_some());
    w.bit(p.time_stamp.is_some());
    if let Some(m) = &p.service_change_mgc_id {
        mid(w, cx, m)?;
    }
    if let Some(a) = &p.service_change_address {
        service_change_address(w, a)?;
    }
    if let Some(v) = p.service_change_version {
        version99(w, v, "serviceChangeVersion")?;
    }
    if let Some(pr) = &p.service_change_profile {
        profile(w, pr)?;
    }
    if let Some(t) = &p.time_stamp {
        time_notation(w, t)?;
    }
    Ok(())
}

fn statistics_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &[StatisticsParameter]) -> R {
    seq_of(w, s, |w, p| {
        w.bit(p.stat_value.is_some());
        pkgd(w, cx, Scope::Statistics, &p.stat_name)?;
        if let Some(v) = &p.stat_value {
            value(w, v)?;
        }
        Ok(())
    })
}

fn observed_events(w: &mut BitWriter<'_>, cx: &Cx<'_>, o: &ObservedEventsDescriptor) -> R {
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
