//! Aligned PER → model, following the module of the version found in the
//! message. The one recursion of the ASN.1 types (a regulated notify
//! behaviour embeds events whose actions have a notify behaviour again) is
//! bounded by the `max_depth` of [`PerConfig::limits`](super::PerConfig::limits);
//! every count is checked against the bits left and the limits before
//! anything is allocated.
//!
//! Two ways of reading share these functions: the owned decoder builds
//! the model (large values in place, in the list element or field that
//! holds them, rather than moved out through `Result`s), and the borrowed
//! view ([`super::view`]) reads past what it does not report with
//! [`Dcx::build`] off: then nothing is allocated, no string or name is
//! made, lists stay empty and only what the structure needs is kept.

use std::cell::Cell;

use super::bits::{BitReader, List, R};
use super::form::Scope;
use super::PerConfig;
use crate::asn1::enums::{Enumerated, NamedBits};
use crate::asn1::termid::{self, AsnTermId, TermIdError};
use crate::error::{DecodeError, DecodeErrorKind, Limit};
use crate::model::*;
use crate::view::{MidView, MtpForm, NameForm};

/// What every decoding function needs besides the reader.
pub(crate) struct Dcx<'f> {
    /// Protocol version read from the message.
    pub(crate) v: u8,
    /// Names and termination id mapping.
    pub(crate) cfg: &'f PerConfig,
    /// Whether values are built (the owned decoder) or only read past
    /// (the view): strings, names, lists, boxes.
    pub(crate) build: bool,
    /// Current nesting of notify behaviours.
    depth: Cell<usize>,
    /// The deepest nesting accepted.
    max_depth: usize,
}

impl<'f> Dcx<'f> {
    /// The context for a message of version `v`.
    pub(crate) fn new(v: u8, cfg: &'f PerConfig, build: bool) -> Self {
        Dcx {
            v,
            cfg,
            build,
            depth: Cell::new(0),
            max_depth: cfg.limits.max_depth,
        }
    }
}

fn form_err(r: &BitReader<'_>, what: &'static str, detail: String) -> DecodeError {
    r.err(DecodeErrorKind::Unmappable { what, detail })
}

fn invalid(r: &BitReader<'_>, what: &'static str, detail: &'static str) -> DecodeError {
    r.err(DecodeErrorKind::Invalid {
        what,
        detail: detail.into(),
    })
}

// ---------------------------------------------------------------- helpers

/// SEQUENCE OF: `min_bits` is the smallest encoding of one item; `f`
/// reads one. Nothing is kept when not building.
#[inline]
fn seq_of<'a, T, L: List<T>>(
    r: &mut BitReader<'a>,
    cx: &Dcx<'_>,
    min_bits: usize,
    what: &'static str,
    mut f: impl FnMut(&mut BitReader<'a>) -> R<T>,
) -> R<L> {
    let mut out = L::default();
    let mut so_far = 0;
    loop {
        let (n, more) = r.list_run(min_bits, so_far, what)?;
        if cx.build {
            out.reserve(n);
        }
        for _ in 0..n {
            let item = f(r)?;
            if cx.build {
                out.push(item);
            }
        }
        if !more {
            return Ok(out);
        }
        so_far += n;
    }
}

/// SEQUENCE OF built in place: `f` fills in each new (default) item where
/// the list holds it. When not building, every item is read into one
/// scratch value that is dropped afterwards.
#[inline]
fn seq_in<'a, T: Default, L: List<T>>(
    r: &mut BitReader<'a>,
    cx: &Dcx<'_>,
    min_bits: usize,
    what: &'static str,
    out: &mut L,
    mut f: impl FnMut(&mut BitReader<'a>, &mut T) -> R<()>,
) -> R<()> {
    let mut scratch = None;
    let mut so_far = 0;
    loop {
        let (n, more) = r.list_run(min_bits, so_far, what)?;
        if cx.build {
            out.reserve(n);
        }
        for _ in 0..n {
            let item = if cx.build {
                out.push(T::default());
                out.last_mut()
            } else {
                None
            };
            match item {
                Some(item) => f(r, item)?,
                None => f(r, scratch.get_or_insert_with(T::default))?,
            }
        }
        if !more {
            return Ok(());
        }
        so_far += n;
    }
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
        return Err(r.truncated(what));
    }
    r.check_list(n, what)?;
    // The presence bitmap, read alongside the open types that follow it.
    let mut bitmap = *r;
    r.skip_bits(n);
    for i in 0..n {
        if bitmap.bit(what)? {
            let mut sub = r.open_type(what)?;
            if i < known {
                f(&mut sub, i)?;
            }
        }
    }
    Ok(())
}

/// Skips the (unknown) extension additions of a SEQUENCE.
#[inline]
pub(crate) fn skip_ext(r: &mut BitReader<'_>, ext: bool, what: &'static str) -> R<()> {
    if ext {
        additions(r, 0, what, |_, _| Ok(()))?;
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
#[inline(always)]
pub(crate) fn choice<'a>(
    r: &mut BitReader<'a>,
    n: u64,
    ext: bool,
    what: &'static str,
) -> R<Result<u64, (u64, BitReader<'a>)>> {
    if ext && r.bit(what)? {
        return extension_choice(r, what).map(Err);
    }
    Ok(Ok(r.constrained(0, n - 1, what)?))
}

/// The index and contents of an extension alternative of a CHOICE.
#[inline(never)]
fn extension_choice<'a>(r: &mut BitReader<'a>, what: &'static str) -> R<(u64, BitReader<'a>)> {
    let i = r.normally_small(what)?;
    let sub = r.open_type(what)?;
    Ok((i, sub))
}

/// A root-only CHOICE index (extension alternatives are unknown here).
#[inline(always)]
pub(crate) fn root_choice(r: &mut BitReader<'_>, n: u64, ext: bool, what: &'static str) -> R<u64> {
    if ext && r.bit(what)? {
        return Err(unknown_alternative(r, what));
    }
    r.constrained(0, n - 1, what)
}

/// An extension alternative where none is known: read, then refused.
#[cold]
#[inline(never)]
fn unknown_alternative(r: &mut BitReader<'_>, what: &'static str) -> DecodeError {
    match extension_choice(r, what) {
        Ok(_) => invalid(r, what, "unknown extension alternative"),
        Err(e) => e,
    }
}

/// An ENUMERATED value (the table in `asn1::enums`); an index the table
/// does not have is an error.
#[inline(always)]
fn enumerated<T: Enumerated>(r: &mut BitReader<'_>, what: &'static str) -> R<T> {
    let addition = T::EXTENSIBLE && r.bit(what)?;
    let index = if addition {
        r.normally_small(what)?
    } else {
        r.constrained(0, T::ROOT.len() as u64 - 1, what)?
    };
    T::from_per_index(addition, index).ok_or_else(|| invalid(r, what, "unknown value"))
}

#[inline]
pub(crate) fn u16_(r: &mut BitReader<'_>, what: &'static str) -> R<u16> {
    Ok(r.constrained(0, 65535, what)? as u16)
}

#[inline]
fn u99(r: &mut BitReader<'_>, what: &'static str) -> R<u8> {
    Ok(r.constrained(0, 99, what)? as u8)
}

/// An optional value: `f` reads it when `present`.
#[inline]
fn opt<'a, T>(
    r: &mut BitReader<'a>,
    present: bool,
    f: impl FnOnce(&mut BitReader<'a>) -> R<T>,
) -> R<Option<T>> {
    if present {
        f(r).map(Some)
    } else {
        Ok(None)
    }
}

/// Octets of a string value → text. OTP keeps such values as octet lists
/// and sends them unchanged, so text that came in as UTF-8 goes out as
/// UTF-8; octets that are not UTF-8 are taken as Latin-1 (one character
/// an octet, as OTP's lists hold them).
pub(crate) fn to_string(bytes: &[u8]) -> CompactString {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.into(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

/// Text of `bytes` when building, else nothing.
#[inline]
fn text(cx: &Dcx<'_>, bytes: &[u8]) -> CompactString {
    if cx.build {
        to_string(bytes)
    } else {
        CompactString::default()
    }
}

fn ia5(r: &mut BitReader<'_>, cx: &Dcx<'_>, what: &'static str) -> R<CompactString> {
    let b = r.octet_str(cx.build, what)?;
    Ok(text(cx, &b))
}

/// An octet string with SIZE(lb..ub), ub < 64K; a fixed size (`lb ==
/// ub`) must be above two octets (those are aligned; Megaco has no
/// smaller fixed-size string).
#[inline(always)]
pub(crate) fn sized<'a>(
    r: &mut BitReader<'a>,
    lb: usize,
    ub: usize,
    what: &'static str,
) -> R<&'a [u8]> {
    let n = if lb == ub {
        lb
    } else {
        r.constrained(lb as u64, ub as u64, what)? as usize
    };
    r.check_string(n)?;
    r.aligned_slice(n, what)
}

fn ia5_sized(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    lb: usize,
    ub: usize,
    what: &'static str,
) -> R<CompactString> {
    let b = sized(r, lb, ub, what)?;
    Ok(text(cx, b))
}

/// The two octets of a package, parameter or digit map name (unaligned:
/// a fixed size of two).
#[inline]
fn code2(r: &mut BitReader<'_>, what: &'static str) -> R<[u8; 2]> {
    Ok((r.bits(16, what)? as u16).to_be_bytes())
}

/// A `PkgdName`: its text when building, and its code (parameters are
/// relative to it).
#[inline]
fn pkgd_code(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    scope: Scope,
    what: &'static str,
) -> R<(CompactString, [u8; 4])> {
    let c = r.aligned_array::<4>(what)?;
    let name = if cx.build {
        cx.cfg.pkgd_name(scope, c)
    } else {
        CompactString::default()
    };
    Ok((name, c))
}

#[inline]
fn pkgd(r: &mut BitReader<'_>, cx: &Dcx<'_>, scope: Scope, what: &'static str) -> R<CompactString> {
    Ok(pkgd_code(r, cx, scope, what)?.0)
}

fn dialplan(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CompactString> {
    let c = code2(r, "DigitMapName")?;
    Ok(if cx.build {
        cx.cfg.dialplan_name(c)
    } else {
        CompactString::default()
    })
}

fn package(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CompactString> {
    let c = code2(r, "packageName")?;
    Ok(if cx.build {
        cx.cfg.package_name(c)
    } else {
        CompactString::default()
    })
}

/// BIT STRING with named bits, no size: `named(bit)` maps each set bit
/// (`None`: an unknown one, refused).
fn bit_string<T>(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    what: &'static str,
    named: impl Fn(u32) -> Option<T>,
) -> R<Vec<T>> {
    let n = r.length(what)?;
    if n > r.remaining_bits() {
        return Err(r.truncated(what));
    }
    let mut out = Vec::new();
    let mut unknown = false;
    for i in 0..n {
        if r.bit(what)? {
            match named(i as u32) {
                Some(v) if cx.build => out.push(v),
                Some(_) => {}
                None => unknown = true,
            }
        }
    }
    if unknown {
        return Err(invalid(r, what, "unknown named bit"));
    }
    Ok(out)
}

/// Pushes `v` and returns it where the list holds it.
fn put<T, L: List<T>>(out: &mut L, v: T) -> &mut T {
    out.push(v);
    match out.last_mut() {
        Some(x) => x,
        None => unreachable!("an element was just pushed"),
    }
}

/// SEQUENCE OF whose items `f` puts in the list itself (the envelope of
/// the message, which only the owned decoder builds).
fn seq_with<'a, T, L: List<T>>(
    r: &mut BitReader<'a>,
    min_bits: usize,
    what: &'static str,
    out: &mut L,
    mut f: impl FnMut(&mut BitReader<'a>, &mut L) -> R<()>,
) -> R<()> {
    let mut so_far = 0;
    loop {
        let (n, more) = r.list_run(min_bits, so_far, what)?;
        out.reserve(n);
        for _ in 0..n {
            f(r, out)?;
        }
        if !more {
            return Ok(());
        }
        so_far += n;
    }
}

/// A BIT STRING of named bits (the table in `asn1::enums`); a bit the
/// module of the message's version does not name is an error.
fn named_bits<T: NamedBits>(r: &mut BitReader<'_>, cx: &Dcx<'_>, what: &'static str) -> R<Vec<T>> {
    bit_string(r, cx, what, |b| {
        T::from_bit(b).filter(|x| x.since() <= cx.v)
    })
}

// ------------------------------------------------------------- top level

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

fn port(r: &mut BitReader<'_>, present: bool) -> R<Option<u16>> {
    opt(r, present, |r| u16_(r, "portNumber"))
}

fn ip4(r: &mut BitReader<'_>) -> R<Ip4Address> {
    let p = r.bit("IP4Address preamble")?;
    let address = r.aligned_array("IP4Address.address")?;
    Ok(Ip4Address {
        address,
        port: port(r, p)?,
    })
}

fn ip6(r: &mut BitReader<'_>) -> R<Ip6Address> {
    let p = r.bit("IP6Address preamble")?;
    let address = r.aligned_array("IP6Address.address")?;
    Ok(Ip6Address {
        address,
        port: port(r, p)?,
    })
}

/// A domain name's octets and port. A name of 16K octets or more (a
/// fragmented length) is refused: the text grammar allows 64 characters.
fn domain_parts<'a>(r: &mut BitReader<'a>) -> R<(&'a [u8], Option<u16>)> {
    let p = r.bit("DomainName preamble")?;
    let n = r.length("DomainName.name")?;
    r.check_string(n)?;
    let name = r.aligned_slice(n, "DomainName.name")?;
    Ok((name, port(r, p)?))
}

fn domain(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<DomainName> {
    let (name, port) = domain_parts(r)?;
    Ok(DomainName {
        name: text(cx, name),
        port,
    })
}

fn mtp(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CompactString> {
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

fn transaction(r: &mut BitReader<'_>, cx: &Dcx<'_>, ts: &mut SmallList<Transaction>) -> R<()> {
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

/// The result of a TransactionReply, into `out` (an empty action reply
/// list).
fn transaction_result(r: &mut BitReader<'_>, cx: &Dcx<'_>, out: &mut TransactionResult) -> R<()> {
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

fn action_request(r: &mut BitReader<'_>, cx: &Dcx<'_>, a: &mut ActionRequest) -> R<()> {
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

fn action_reply(r: &mut BitReader<'_>, cx: &Dcx<'_>, a: &mut ActionReply) -> R<()> {
    let has_err = r.bit("ActionReply preamble")?;
    let has_cr = r.bit("ActionReply preamble")?;
    a.context_id = context_id(r)?;
    a.error_descriptor = opt(r, has_err, |r| error_descriptor(r, cx))?;
    a.context_reply = opt(r, has_cr, |r| context_request(r, cx))?;
    a.command_reply = seq_of(r, cx, 4, "commandReply", |r| command_reply(r, cx))?;
    Ok(())
}

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
                1 => {
                    c.context_prop =
                        Some(seq_of(r, cx, 42, "contextProp", |r| property_parm(r, cx))?)
                }
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

fn command_request(
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
            a.termination_id = term_id(r, cx)?;
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
fn service_change_request(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ServiceChangeRequest> {
    let ext = r.bit("ServiceChangeRequest extension bit")?;
    let termination_ids = term_id_list(r, cx)?;
    let service_change_parms = service_change_parm(r, cx)?;
    skip_ext(r, ext, "ServiceChangeRequest extensions")?;
    Ok(ServiceChangeRequest {
        termination_ids,
        service_change_parms,
    })
}

fn command_reply(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CommandReply> {
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

/// The result of a ServiceChangeReply.
pub(crate) fn service_change_result(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ServiceChangeResult> {
    Ok(if r.bits(1, "serviceChangeResult")? == 0 {
        ServiceChangeResult::ErrorDescriptor(error_descriptor(r, cx)?)
    } else {
        ServiceChangeResult::ServiceChangeResParms(service_change_res_parm(r, cx)?)
    })
}

fn audit_reply(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<AuditReply> {
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

fn topology(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<TopologyRequest> {
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

fn amm_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<AmmDescriptor> {
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

pub(crate) fn audit_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<AuditDescriptor> {
    let ext = r.bit("AuditDescriptor extension bit")?;
    let has_t = r.bit("AuditDescriptor preamble")?;
    let audit_token = opt(r, has_t, |r| named_bits(r, cx, "auditToken"))?;
    let mut audit_property_token = None;
    if ext {
        let known = if cx.v >= 2 { 1 } else { 0 };
        additions(r, known, "AuditDescriptor extensions", |r, _| {
            audit_property_token = Some(seq_of(r, cx, 4, "auditPropertyToken", |r| {
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
    enumerated(r, "ServiceState")
}

fn stream_mode(r: &mut BitReader<'_>) -> R<StreamMode> {
    enumerated(r, "StreamMode")
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
                    seq_of(r, cx, 33, "propertyParms", |r| ind_aud_property_parm(r, cx))?;
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
                    IndAudStreams::MultiStream(seq_of(r, cx, 20, "multiStream", |r| {
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
                Some(r.u32("requestID")?)
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
            signal_request_id = Some(r.u32("signalRequestID")?);
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
            Some(seq_of(r, cx, 33, "propertyParms", |r| {
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
        let prop_grps = seq_of(r, cx, 33, "propGrps", |r| ind_aud_property_parm(r, cx))?;
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

/// A `SEQUENCE OF TerminationID`.
pub(crate) fn term_id_list<L: List<TerminationId>>(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<L> {
    seq_of(r, cx, 19, "TerminationIDList", |r| term_id(r, cx))
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
    let t = term_id_asn(r)?;
    Ok(if cx.build {
        cx.cfg.term_id(&t)
    } else {
        TerminationId::default()
    })
}

pub(crate) fn media_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<MediaDescriptor> {
    let ext = r.bit("MediaDescriptor extension bit")?;
    let has_t = r.bit("MediaDescriptor preamble")?;
    let has_s = r.bit("MediaDescriptor preamble")?;
    let term_state_descr = if has_t {
        let ext = r.bit("TerminationStateDescriptor extension bit")?;
        let has_e = r.bit("TerminationStateDescriptor preamble")?;
        let has_s = r.bit("TerminationStateDescriptor preamble")?;
        let property_parms = seq_of(r, cx, 42, "propertyParms", |r| property_parm(r, cx))?;
        let event_buffer_control = if has_e {
            Some(enumerated(r, "EventBufferControl")?)
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
            Streams::MultiStream(seq_of(r, cx, 20, "multiStream", |r| {
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
        let property_parms = seq_of(r, cx, 42, "propertyParms", |r| property_parm(r, cx))?;
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
        let prop_grps = seq_of(r, cx, 8, "propGrps", |r| {
            seq_of(r, cx, 42, "PropertyGroup", |r| property_parm(r, cx))
        })?;
        skip_ext(r, ext, "LocalRemoteDescriptor extensions")?;
        Ok(Some(LocalRemoteDescriptor { prop_grps }))
    };
    let local_descriptor = lr(r, has_l)?;
    let remote_descriptor = lr(r, has_r)?;
    let mut stats = None;
    if ext {
        let known = if cx.v >= 3 { 1 } else { 0 };
        additions(r, known, "StreamParms extensions", |r, _| {
            stats = Some(statistics_descriptor(r, cx)?);
            Ok(())
        })?;
    }
    Ok(StreamParms {
        local_control_descriptor,
        local_descriptor,
        remote_descriptor,
        statistics_descriptor: stats,
    })
}

fn value(r: &mut BitReader<'_>, cx: &Dcx<'_>, what: &'static str) -> R<Values> {
    seq_of(r, cx, 8, what, |r| ia5(r, cx, what))
}

fn extra_info(r: &mut BitReader<'_>) -> R<ExtraInfo> {
    Ok(match r.constrained(0, 2, "extraInfo")? {
        0 => ExtraInfo::Relation(enumerated(r, "Relation")?),
        1 => ExtraInfo::Range(r.bit("range")?),
        _ => ExtraInfo::Sublist(r.bit("sublist")?),
    })
}

fn property_parm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<PropertyParm> {
    let ext = r.bit("PropertyParm extension bit")?;
    let has_x = r.bit("PropertyParm preamble")?;
    let name = pkgd(r, cx, Scope::Property, "PropertyParm.name")?;
    let value = value(r, cx, "PropertyParm.value")?;
    let extra_info = if has_x { Some(extra_info(r)?) } else { None };
    skip_ext(r, ext, "PropertyParm extensions")?;
    Ok(PropertyParm {
        name,
        value,
        extra_info,
    })
}

fn parameters<L: List<PropertyParm>>(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    scope: Scope,
    parent: [u8; 4],
) -> R<L> {
    seq_of(r, cx, 26, "parameter list", |r| {
        let ext = r.bit("parameter extension bit")?;
        let has_x = r.bit("parameter preamble")?;
        let code = code2(r, "parameter name")?;
        let name = if cx.build {
            cx.cfg.param_name(scope, parent, code)
        } else {
            CompactString::default()
        };
        let value = value(r, cx, "parameter value")?;
        let extra_info = if has_x { Some(extra_info(r)?) } else { None };
        skip_ext(r, ext, "parameter extensions")?;
        Ok(PropertyParm {
            name,
            value,
            extra_info,
        })
    })
}

fn nsd(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<NonStandardData> {
    let non_standard_identifier = match root_choice(r, 3, true, "NonStandardIdentifier")? {
        0 => {
            let b = r.octet_str(true, "OBJECT IDENTIFIER")?;
            NonStandardIdentifier::Object(oid_arcs(r, cx, &b)?)
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
        _ => NonStandardIdentifier::Experimental(ia5_sized(r, cx, 8, 8, "experimental")?),
    };
    let data = r.octet_string(cx.build, "NonStandardData.data")?;
    Ok(NonStandardData {
        non_standard_identifier,
        data,
    })
}

/// The arcs of an OBJECT IDENTIFIER's contents (checked, and kept when
/// building).
fn oid_arcs(r: &BitReader<'_>, cx: &Dcx<'_>, b: &[u8]) -> R<Vec<u32>> {
    let mut arcs = Vec::new();
    let mut count = 0;
    let mut acc: u64 = 0;
    let mut open = false;
    for &x in b {
        acc = (acc << 7) | (x & 0x7F) as u64;
        if acc > u32::MAX as u64 + 80 {
            return Err(invalid(r, "OBJECT IDENTIFIER", "arc too large"));
        }
        open = x & 0x80 != 0;
        if !open {
            if cx.build && arcs.is_empty() {
                let first = (acc / 40).min(2);
                arcs.push(first as u32);
                arcs.push((acc - first * 40) as u32);
            } else if cx.build {
                arcs.push(acc as u32);
            }
            count += 1;
            acc = 0;
        }
    }
    if open || count == 0 {
        return Err(invalid(r, "OBJECT IDENTIFIER", "truncated arc"));
    }
    Ok(arcs)
}

fn mux_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<MuxDescriptor> {
    let ext = r.bit("MuxDescriptor extension bit")?;
    let has_n = r.bit("MuxDescriptor preamble")?;
    let mux_type: MuxType = enumerated(r, "MuxType")?;
    if mux_type.since() > cx.v {
        return Err(invalid(r, "MuxType", "unknown value"));
    }
    let term_list = term_id_list(r, cx)?;
    let non_standard_data = if has_n { Some(nsd(r, cx)?) } else { None };
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

pub(crate) fn events_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<EventsDescriptor> {
    events(r, cx, false)
}

/// An EventsDescriptor, or (`second`) the SecondEventsDescriptor embedded
/// in an event's actions, whose events' actions cannot embed another.
fn events(r: &mut BitReader<'_>, cx: &Dcx<'_>, second: bool) -> R<EventsDescriptor> {
    let ext = r.bit("EventsDescriptor extension bit")?;
    let has_r = request_id_pre(r, cx)?;
    let request_id = opt(r, has_r, |r| r.u32("requestID"))?;
    let mut event_list = Vec::new();
    seq_in(r, cx, 43, "eventList", &mut event_list, |r, e| {
        requested_event(r, cx, second, e)
    })?;
    skip_ext(r, ext, "EventsDescriptor extensions")?;
    Ok(EventsDescriptor {
        request_id,
        event_list,
    })
}

fn requested_event(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    second: bool,
    e: &mut RequestedEvent,
) -> R<()> {
    let ext = r.bit("RequestedEvent extension bit")?;
    let has_s = r.bit("RequestedEvent preamble")?;
    let has_a = r.bit("RequestedEvent preamble")?;
    let code;
    (e.pkgd_name, code) = pkgd_code(r, cx, Scope::Event, "pkgdName")?;
    e.stream_id = opt(r, has_s, |r| u16_(r, "streamID"))?;
    e.event_action = opt(r, has_a, |r| requested_actions(r, cx, second))?;
    e.ev_par_list = parameters(r, cx, Scope::Event, code)?;
    skip_ext(r, ext, "RequestedEvent extensions")
}

fn event_dm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<EventDm> {
    Ok(if r.bits(1, "EventDM")? == 0 {
        EventDm::DigitMapName(dialplan(r, cx)?)
    } else {
        EventDm::DigitMapValue(digit_map_value(r, cx)?)
    })
}

/// RequestedActions, or (`second`) SecondRequestedActions, which have
/// no secondEvent.
fn requested_actions(r: &mut BitReader<'_>, cx: &Dcx<'_>, second: bool) -> R<RequestedActions> {
    let ext = r.bit("RequestedActions extension bit")?;
    let has_k = r.bit("RequestedActions preamble")?;
    let has_d = r.bit("RequestedActions preamble")?;
    let has_e = !second && r.bit("RequestedActions preamble")?;
    let has_s = r.bit("RequestedActions preamble")?;
    let mut a = RequestedActions {
        keep_active: opt(r, has_k, |r| r.bit("keepActive"))?,
        event_dm: opt(r, has_d, |r| event_dm(r, cx))?,
        second_event: opt(r, has_e, |r| events(r, cx, true))?,
        signals_descriptor: opt(r, has_s, |r| signals_descriptor(r, cx))?,
        ..RequestedActions::default()
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
        return Err(r.err(DecodeErrorKind::LimitExceeded {
            limit: Limit::Depth,
            max: cx.max_depth,
            found: None,
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
            let d = RegulatedEmbeddedDescriptor {
                second_event: opt(r, has_e, |r| events(r, cx, true))?,
                signals_descriptor: opt(r, has_s, |r| signals_descriptor(r, cx))?,
            };
            skip_ext(r, ext, "RegulatedEmbeddedDescriptor extensions")?;
            if cx.build {
                NotifyBehaviour::NotifyRegulated(Box::new(d))
            } else {
                NotifyBehaviour::NotifyImmediate
            }
        }
        _ => NotifyBehaviour::NeverNotify,
    })
}

fn event_buffer(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Vec<EventSpec>> {
    seq_of(r, cx, 42, "EventBufferDescriptor", |r| {
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

pub(crate) fn signals_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<SignalsDescriptor> {
    seq_of(r, cx, 8, "SignalsDescriptor", |r| {
        Ok(match root_choice(r, 2, true, "SignalRequest")? {
            0 => SignalRequest::Signal(signal(r, cx)?),
            _ => {
                let id = u16_(r, "SeqSigList.id")?;
                let signal_list = seq_of(r, cx, 46, "signalList", |r| signal(r, cx))?;
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
        Some(enumerated(r, "SignalType")?)
    } else {
        None
    };
    let duration = if pre[2] {
        Some(u16_(r, "duration")?)
    } else {
        None
    };
    let notify_completion = opt(r, pre[3], |r| named_bits(r, cx, "notifyCompletion"))?;
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
                0 => s.direction = Some(enumerated(r, "SignalDirection")?),
                1 => s.request_id = Some(r.u32("requestID")?),
                _ => s.intersig_delay = Some(u16_(r, "intersigDelay")?),
            }
            Ok(())
        })?;
    }
    Ok(s)
}

fn modem_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ModemDescriptor> {
    let has_n = r.bit("ModemDescriptor preamble")?;
    let mtl = seq_of(r, cx, 5, "mtl", |r| enumerated(r, "ModemType"))?;
    let mpl = seq_of(r, cx, 42, "mpl", |r| property_parm(r, cx))?;
    let non_standard_data = if has_n { Some(nsd(r, cx)?) } else { None };
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
    let digit_map_body = ia5(r, cx, "digitMapBody")?;
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

fn service_change_address(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ServiceChangeAddress> {
    use ServiceChangeAddress as A;
    Ok(match root_choice(r, 6, true, "ServiceChangeAddress")? {
        0 => A::PortNumber(u16_(r, "portNumber")?),
        1 => A::Ip4(ip4(r)?),
        2 => A::Ip6(ip6(r)?),
        3 => A::Domain(domain(r, cx)?),
        4 => A::Device(ia5_sized(r, cx, 1, 64, "PathName")?),
        _ => A::Mtp(mtp(r, cx)?),
    })
}

/// OTP's `profileName` (`name/version`), split at its last `/`.
fn profile(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ServiceChangeProfile> {
    let s = sized(r, 1, 67, "ServiceChangeProfile")?;
    let Some(at) = s.iter().rposition(|&b| b == b'/') else {
        return Err(invalid(
            r,
            "ServiceChangeProfile",
            "no '/' before the version",
        ));
    };
    let (name, ver) = (&s[..at], &s[at + 1..]);
    match std::str::from_utf8(ver)
        .ok()
        .and_then(|v| v.parse::<u8>().ok())
    {
        Some(version) => Ok(ServiceChangeProfile {
            profile_name: text(cx, name),
            version,
        }),
        None => Err(invalid(
            r,
            "ServiceChangeProfile",
            "version is not a number",
        )),
    }
}

fn time_notation(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<TimeNotation> {
    Ok(TimeNotation {
        date: ia5_sized(r, cx, 8, 8, "TimeNotation.date")?,
        time: ia5_sized(r, cx, 8, 8, "TimeNotation.time")?,
    })
}

pub(crate) fn service_change_parm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ServiceChangeParm> {
    let ext = r.bit("ServiceChangeParm extension bit")?;
    let mut pre = [false; 7];
    for p in &mut pre {
        *p = r.bit("ServiceChangeParm preamble")?;
    }
    let service_change_method = enumerated(r, "ServiceChangeMethod")?;
    let service_change_address = if pre[0] {
        Some(service_change_address(r, cx)?)
    } else {
        None
    };
    let service_change_version = if pre[1] {
        Some(u99(r, "serviceChangeVersion")?)
    } else {
        None
    };
    let service_change_profile = if pre[2] { Some(profile(r, cx)?) } else { None };
    let service_change_reason = value(r, cx, "serviceChangeReason")?;
    let service_change_delay = if pre[3] {
        Some(r.u32("serviceChangeDelay")?)
    } else {
        None
    };
    let service_change_mgc_id = if pre[4] { Some(mid_of(r, cx)?) } else { None };
    let time_stamp = if pre[5] {
        Some(time_notation(r, cx)?)
    } else {
        None
    };
    let non_standard_data = if pre[6] { Some(nsd(r, cx)?) } else { None };
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

pub(crate) fn service_change_res_parm(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
) -> R<ServiceChangeResParm> {
    let ext = r.bit("ServiceChangeResParm extension bit")?;
    let mut pre = [false; 5];
    for p in &mut pre {
        *p = r.bit("ServiceChangeResParm preamble")?;
    }
    let service_change_mgc_id = if pre[0] { Some(mid_of(r, cx)?) } else { None };
    let service_change_address = if pre[1] {
        Some(service_change_address(r, cx)?)
    } else {
        None
    };
    let service_change_version = if pre[2] {
        Some(u99(r, "serviceChangeVersion")?)
    } else {
        None
    };
    let service_change_profile = if pre[3] { Some(profile(r, cx)?) } else { None };
    let time_stamp = if pre[4] {
        Some(time_notation(r, cx)?)
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

pub(crate) fn statistics_descriptor(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
) -> R<Vec<StatisticsParameter>> {
    seq_of(r, cx, 33, "StatisticsDescriptor", |r| {
        let has_v = r.bit("StatisticsParameter preamble")?;
        let stat_name = pkgd(r, cx, Scope::Statistics, "statName")?;
        let stat_value = opt(r, has_v, |r| value(r, cx, "statValue"))?;
        Ok(StatisticsParameter {
            stat_name,
            stat_value,
        })
    })
}

/// An ObservedEventsDescriptor, into `o` (a default one).
pub(crate) fn observed_events(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    o: &mut ObservedEventsDescriptor,
) -> R<()> {
    o.request_id = r.u32("requestId")?;
    seq_in(
        r,
        cx,
        43,
        "observedEventLst",
        &mut o.observed_event_lst,
        |r, e| {
            let ext = r.bit("ObservedEvent extension bit")?;
            let has_s = r.bit("ObservedEvent preamble")?;
            let has_t = r.bit("ObservedEvent preamble")?;
            let code;
            (e.event_name, code) = pkgd_code(r, cx, Scope::Event, "eventName")?;
            e.stream_id = opt(r, has_s, |r| u16_(r, "streamID"))?;
            e.event_par_list = parameters(r, cx, Scope::Event, code)?;
            e.time_notation = opt(r, has_t, |r| time_notation(r, cx))?;
            skip_ext(r, ext, "ObservedEvent extensions")
        },
    )
}

/// The mId of a ServiceChange (when building).
fn mid_of(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Mid> {
    let m = mid(r)?;
    Ok(if cx.build {
        m.to_mid()
    } else {
        Mid::Device(CompactString::default())
    })
}
