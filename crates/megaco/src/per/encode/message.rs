//! The message: header, mId, transactions, actions and error descriptors.

use super::*;

pub(crate) fn megaco_message(w: &mut BitWriter<'_>, cx: &Cx<'_>, m: &MegacoMessage) -> R {
    w.bit(m.auth_header.is_some());
    if let Some(a) = &m.auth_header {
        w.aligned_octets(&a.sec_parm_index.to_be_bytes());
        w.aligned_octets(&a.seq_num.to_be_bytes());
        sized(w, &a.ad, 12, 32, "AuthData")?;
    }
    message(w, cx, &m.mess)
}

pub(super) fn message(w: &mut BitWriter<'_>, cx: &Cx<'_>, m: &Message) -> R {
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
pub(super) fn port(w: &mut BitWriter<'_>, p: Option<u16>) {
    if let Some(p) = p {
        u16_(w, p);
    }
}

pub(super) fn ip4(w: &mut BitWriter<'_>, a: &Ip4Address) {
    w.bit(a.port.is_some());
    w.aligned_octets(&a.address);
    port(w, a.port);
}

pub(super) fn ip6(w: &mut BitWriter<'_>, a: &Ip6Address) {
    w.bit(a.port.is_some());
    w.aligned_octets(&a.address);
    port(w, a.port);
}

pub(super) fn domain(w: &mut BitWriter<'_>, d: &DomainName) -> R {
    w.bit(d.port.is_some());
    ia5(w, &d.name, "DomainName.name")?;
    port(w, d.port);
    Ok(())
}

pub(super) fn mid(w: &mut BitWriter<'_>, _cx: &Cx<'_>, m: &Mid) -> R {
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

pub(super) fn transaction(w: &mut BitWriter<'_>, cx: &Cx<'_>, t: &Transaction) -> R {
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

pub(super) fn error_descriptor(w: &mut BitWriter<'_>, e: &ErrorDescriptor) -> R {
    w.bit(e.error_text.is_some());
    u16_(w, e.error_code);
    if let Some(t) = &e.error_text {
        ia5(w, t, "ErrorText")?;
    }
    Ok(())
}

pub(super) fn context_id(w: &mut BitWriter<'_>, c: ContextId) {
    u32_(w, c.0);
}

pub(super) fn action_request(w: &mut BitWriter<'_>, cx: &Cx<'_>, a: &ActionRequest) -> R {
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
