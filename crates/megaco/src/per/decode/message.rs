//! The message: header, mId, transactions (requests, pending, acks,
//! segment replies), actions and error descriptors.

use super::*;

/// The authentication header (its data kept when `build`), the Message
/// extension bit and the version: everything before the mId.
pub(crate) fn header(
    r: &mut BitReader<'_>,
    build: bool,
) -> R<(Option<AuthenticationHeader>, bool, u8)> {
    let has_auth = r.bit("authHeader presence")?;
    let auth_header = if has_auth {
        let spi = u32::from_be_bytes(r.aligned_array("secParmIndex")?);
        let sn = u32::from_be_bytes(r.aligned_array("seqNum")?);
        let ad = sized(r, 12, 32, "AuthData")?;
        Some(AuthenticationHeader {
            sec_parm_index: spi,
            seq_num: sn,
            ad: if build { ad.to_vec() } else { Vec::new() },
        })
    } else {
        None
    };
    let ext = r.bit("Message extension bit")?;
    let version = r.constrained(0, 99, "version")? as u8;
    if !(1..=3).contains(&version) {
        return Err(r.err(DecodeErrorKind::UnsupportedVersion {
            version: u64::from(version),
        }));
    }
    Ok((auth_header, ext, version))
}

/// Decodes a whole MegacoMessage into `msg` (whose body is an empty
/// transaction list); the version is read from the message.
pub(crate) fn megaco_message(
    r: &mut BitReader<'_>,
    cfg: &PerConfig,
    msg: &mut MegacoMessage,
) -> R<()> {
    let ext;
    (msg.auth_header, ext, msg.mess.version) = header(r, true)?;
    let cx = Dcx::new(msg.mess.version, cfg, true);
    msg.mess.mid = mid(r)?.to_mid();
    if r.bits(1, "messageBody")? == 0 {
        msg.mess.body = MessageBody::Error(error_descriptor(r, &cx)?);
    } else if let MessageBody::Transactions(ts) = &mut msg.mess.body {
        seq_with(r, 3, "transactions", ts, |r, ts| transaction(r, &cx, ts))?;
    }
    skip_ext(r, ext, "Message extensions")
}

pub(super) fn port(r: &mut BitReader<'_>, present: bool) -> R<Option<u16>> {
    opt(r, present, |r| u16_(r, "portNumber"))
}

pub(super) fn ip4(r: &mut BitReader<'_>) -> R<Ip4Address> {
    let p = r.bit("IP4Address preamble")?;
    let address = r.aligned_array("IP4Address.address")?;
    Ok(Ip4Address {
        address,
        port: port(r, p)?,
    })
}

pub(super) fn ip6(r: &mut BitReader<'_>) -> R<Ip6Address> {
    let p = r.bit("IP6Address preamble")?;
    let address = r.aligned_array("IP6Address.address")?;
    Ok(Ip6Address {
        address,
        port: port(r, p)?,
    })
}

/// A domain name's octets and port. A name of 16K octets or more (a
/// fragmented length) is refused: the text grammar allows 64 characters.
pub(super) fn domain_parts<'a>(r: &mut BitReader<'a>) -> R<(&'a [u8], Option<u16>)> {
    let p = r.bit("DomainName preamble")?;
    let n = r.length("DomainName.name")?;
    r.check_string(n)?;
    let name = r.aligned_slice(n, "DomainName.name")?;
    Ok((name, port(r, p)?))
}

pub(super) fn domain(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<DomainName> {
    let (name, port) = domain_parts(r)?;
    Ok(DomainName {
        name: text(cx, name),
        port,
    })
}

pub(super) fn mtp(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CompactString> {
    let b = sized(r, 2, 4, "mtpAddress")?;
    Ok(text(cx, b))
}

/// The mId as it is in the bytes (the view's; the owned decoder maps it
/// with [`MidView::to_mid`]).
pub(crate) fn mid<'a>(r: &mut BitReader<'a>) -> R<MidView<'a>> {
    const FORM: NameForm = NameForm::Utf8OrLatin1;
    Ok(match root_choice(r, 5, true, "MId")? {
        0 => MidView::Ip4(ip4(r)?),
        1 => MidView::Ip6(ip6(r)?),
        2 => {
            let (name, port) = domain_parts(r)?;
            MidView::Domain {
                name,
                port,
                form: FORM,
            }
        }
        3 => MidView::Device {
            name: sized(r, 1, 64, "PathName")?,
            form: FORM,
        },
        _ => MidView::Mtp {
            address: sized(r, 2, 4, "mtpAddress")?,
            form: MtpForm::Text(FORM),
        },
    })
}

pub(super) fn transaction(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    ts: &mut SmallList<Transaction>,
) -> R<()> {
    match choice(r, 4, true, "Transaction")? {
        Ok(0) => {
            let ext = r.bit("TransactionRequest extension bit")?;
            let transaction_id = r.u32("transactionId")?;
            let t = put(
                ts,
                Transaction::Request(TransactionRequest {
                    transaction_id,
                    actions: SmallList::new(),
                }),
            );
            if let Transaction::Request(t) = t {
                seq_in(r, cx, 11, "actions", &mut t.actions, |r, a| {
                    action_request(r, cx, a)
                })?;
            }
            skip_ext(r, ext, "TransactionRequest extensions")
        }
        Ok(1) => {
            let ext = r.bit("TransactionPending extension bit")?;
            let transaction_id = r.u32("transactionId")?;
            skip_ext(r, ext, "TransactionPending extensions")?;
            ts.push(Transaction::Pending(TransactionPending { transaction_id }));
            Ok(())
        }
        Ok(2) => {
            let ext = r.bit("TransactionReply extension bit")?;
            let imm_ack_required = r.bit("TransactionReply preamble")?;
            let transaction_id = r.u32("transactionId")?;
            let t = put(
                ts,
                Transaction::Reply(TransactionReply {
                    transaction_id,
                    imm_ack_required,
                    result: TransactionResult::ActionReplies(SmallList::new()),
                    segment_number: None,
                    segmentation_complete: false,
                }),
            );
            if let Transaction::Reply(t) = t {
                transaction_result(r, cx, &mut t.result)?;
                if ext {
                    (t.segment_number, t.segmentation_complete) = reply_additions(r, cx)?;
                }
            }
            Ok(())
        }
        Ok(_) => {
            let acks = seq_of(r, cx, 9, "TransactionResponseAck", transaction_ack)?;
            ts.push(Transaction::ResponseAck(acks));
            Ok(())
        }
        Err((0, mut sub)) if cx.v >= 3 => {
            ts.push(Transaction::SegmentReply(segment_reply(&mut sub)?));
            Ok(())
        }
        Err(_) => Err(invalid(r, "Transaction", "unknown extension alternative")),
    }
}

pub(crate) fn transaction_ack(r: &mut BitReader<'_>) -> R<TransactionAck> {
    let has_last = r.bit("TransactionAck preamble")?;
    let first_ack = r.u32("firstAck")?;
    let last_ack = opt(r, has_last, |r| r.u32("lastAck"))?;
    Ok(TransactionAck {
        first_ack,
        last_ack,
    })
}

/// A v3 SegmentReply (the contents of its open type).
pub(crate) fn segment_reply(r: &mut BitReader<'_>) -> R<SegmentReply> {
    let ext = r.bit("SegmentReply extension bit")?;
    let complete = r.bit("SegmentReply preamble")?;
    let transaction_id = r.u32("transactionId")?;
    let segment_number = u16_(r, "segmentNumber")?;
    skip_ext(r, ext, "SegmentReply extensions")?;
    Ok(SegmentReply {
        transaction_id,
        segment_number,
        segmentation_complete: complete,
    })
}

pub(crate) fn error_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ErrorDescriptor> {
    let has_text = r.bit("ErrorDescriptor preamble")?;
    let error_code = u16_(r, "errorCode")?;
    let error_text = opt(r, has_text, |r| ia5(r, cx, "errorText"))?;
    Ok(ErrorDescriptor {
        error_code,
        error_text,
    })
}

pub(crate) fn context_id(r: &mut BitReader<'_>) -> R<ContextId> {
    Ok(ContextId(r.u32("contextId")?))
}

pub(super) fn action_request(r: &mut BitReader<'_>, cx: &Dcx<'_>, a: &mut ActionRequest) -> R<()> {
    let has_cr = r.bit("ActionRequest preamble")?;
    let has_car = r.bit("ActionRequest preamble")?;
    a.context_id = context_id(r)?;
    a.context_request = opt(r, has_cr, |r| context_request(r, cx))?;
    a.context_attr_audit_req = opt(r, has_car, |r| context_attr_audit(r, cx))?;
    seq_with(
        r,
        7,
        "commandRequests",
        &mut a.command_requests,
        |r, out| command_request(r, cx, out),
    )
}

/// The mId of a ServiceChange (when building).
pub(super) fn mid_of(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Mid> {
    let m = mid(r)?;
    Ok(if cx.build {
        m.to_mid()
    } else {
        Mid::Device(CompactString::default())
    })
}
