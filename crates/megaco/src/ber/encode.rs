//! Model → BER. Tags follow the v3 module's AUTOMATIC TAGS: component `n`
//! of a SEQUENCE or alternative `n` of a CHOICE is `[n]`, implicit, except
//! that a CHOICE-typed component gets an explicit `[n]` around the chosen
//! alternative. Lengths are definite and minimal.

use crate::asn1::enums::{Enumerated, NamedBits};
use crate::asn1::names::{ItemKind, NameRegistry};
use crate::asn1::termid::{self, TermIdLevels};
use crate::asn1::values;
use crate::ber::{BerConfig, Dialect, Mapping};
use crate::model::*;
use crate::EncodeError;

type R = Result<(), EncodeError>;

/// Context-specific primitive tag `[n]`.
const fn p(n: u8) -> u8 {
    0x80 | n
}
/// Context-specific constructed tag `[n]`.
const fn c(n: u8) -> u8 {
    0xA0 | n
}
const SEQ: u8 = 0x30;
const OCTETS: u8 = 0x04;
const INTEGER: u8 = 0x02;
const ENUMERATED: u8 = 0x0A;

fn invalid(what: &'static str, detail: impl ToString) -> EncodeError {
    EncodeError::Invalid {
        what,
        detail: detail.to_string(),
    }
}

/// `v` within its ASN.1 range `0..=max` (the decoder refuses the rest).
fn bounded(v: u8, max: u8, what: &'static str) -> Result<u8, EncodeError> {
    if v > max {
        return Err(invalid(what, format!("{v} is above {max}")));
    }
    Ok(v)
}

/// An open constructed value: where its content starts, and how many
/// length octets were pending when it was opened.
#[derive(Clone, Copy)]
struct Mark {
    start: usize,
    extra: usize,
}

const INLINE_FIXUPS: usize = 32;

struct Enc<'a> {
    out: &'a mut Vec<u8>,
    /// Long lengths to write at the end: (placeholder offset, length);
    /// the first [`INLINE_FIXUPS`] inline, the rest in `spill`.
    fixups: [(usize, usize); INLINE_FIXUPS],
    nfix: usize,
    spill: Vec<(usize, usize)>,
    /// Length octets still to insert (sum over `fixups`).
    extra: usize,
    reg: &'a NameRegistry,
    levels: Option<&'a TermIdLevels>,
    standard: bool,
    scratch: Vec<u8>,
    /// Nesting of embedded events (the one recursive ASN.1 type:
    /// regulated notify behaviours hold embedded events again).
    depth: usize,
    max_depth: usize,
}

pub(super) fn encode_message(msg: &MegacoMessage, cfg: &BerConfig, out: &mut Vec<u8>) -> R {
    static EMPTY: std::sync::OnceLock<NameRegistry> = std::sync::OnceLock::new();
    let (reg, levels) = match &cfg.mapping {
        Mapping::Text(l) => (&*cfg.registry, Some(l)),
        Mapping::Native => (EMPTY.get_or_init(NameRegistry::empty), None),
    };
    let mut e = Enc {
        out,
        reg,
        levels,
        standard: cfg.dialect == Dialect::Standard,
        scratch: Vec::new(),
        depth: 0,
        max_depth: cfg.limits.max_depth,
        fixups: [(0, 0); INLINE_FIXUPS],
        nfix: 0,
        spill: Vec::new(),
        extra: 0,
    };
    e.megaco_message(msg)?;
    e.finish();
    Ok(())
}

impl Enc<'_> {
    // ---- writer primitives -------------------------------------------

    /// Starts a constructed value with a one-octet length placeholder.
    #[inline]
    fn open(&mut self, tag: u8) -> Mark {
        self.out.push(tag);
        self.out.push(0);
        Mark {
            start: self.out.len(),
            extra: self.extra,
        }
    }

    /// Ends a constructed value. A short length is written in place; a
    /// long one is recorded and written by [`finish`](Self::finish), which
    /// moves every byte at most once, instead of shifting the content now.
    #[inline]
    fn close(&mut self, m: Mark) {
        let len = self.out.len() - m.start + (self.extra - m.extra);
        if len < 0x80 {
            self.out[m.start - 1] = len as u8;
        } else {
            let n = if len < 0x100 {
                1
            } else if len < 0x1_0000 {
                2
            } else if len < 0x100_0000 {
                3
            } else {
                4
            };
            if self.nfix < INLINE_FIXUPS {
                self.fixups[self.nfix] = (m.start - 1, len);
                self.nfix += 1;
            } else {
                self.spill.push((m.start - 1, len));
            }
            self.extra += n;
        }
    }

    /// Writes the recorded long lengths, moving the data after each one
    /// back, from the end of the buffer to its start.
    fn finish(&mut self) {
        if self.nfix == 0 {
            return;
        }
        let mut all = std::mem::take(&mut self.spill);
        let fixups: &mut [(usize, usize)] = if all.is_empty() {
            &mut self.fixups[..self.nfix]
        } else {
            all.extend_from_slice(&self.fixups[..self.nfix]);
            &mut all
        };
        fixups.sort_unstable_by_key(|f| std::cmp::Reverse(f.0));
        let mut src_end = self.out.len();
        self.out.resize(src_end + self.extra, 0);
        let mut dst_end = self.out.len();
        for &(pos, len) in fixups.iter() {
            let n = (usize::BITS - len.leading_zeros()).div_ceil(8) as usize;
            let seg = src_end - (pos + 1);
            let dst_start = dst_end - seg;
            self.out.copy_within(pos + 1..src_end, dst_start);
            for i in 0..n {
                self.out[dst_start - n + i] = (len >> (8 * (n - 1 - i))) as u8;
            }
            self.out[dst_start - n - 1] = 0x80 | n as u8;
            // the tag (and all before it) has not moved yet
            src_end = pos;
            dst_end = dst_start - n - 1;
        }
        debug_assert_eq!(src_end, dst_end);
    }

    #[inline]
    fn len(&mut self, n: usize) {
        if n < 0x80 {
            self.out.push(n as u8);
        } else {
            let bytes = (n as u64).to_be_bytes();
            let skip = bytes.iter().take_while(|&&b| b == 0).count();
            self.out.push(0x80 | (8 - skip) as u8);
            self.out.extend_from_slice(&bytes[skip..]);
        }
    }

    #[inline]
    fn prim(&mut self, tag: u8, content: &[u8]) {
        self.out.push(tag);
        self.len(content.len());
        self.out.extend_from_slice(content);
    }

    #[inline]
    fn uint(&mut self, tag: u8, v: u64) {
        let bytes = v.to_be_bytes();
        let mut start = 0;
        while start < 7 && bytes[start] == 0 && bytes[start + 1] & 0x80 == 0 {
            start += 1;
        }
        // A value with its top bit set needs a leading zero octet.
        if bytes[start] & 0x80 != 0 {
            self.out.push(tag);
            self.out.push((8 - start + 1) as u8);
            self.out.push(0);
        } else {
            self.out.push(tag);
            self.out.push((8 - start) as u8);
        }
        self.out.extend_from_slice(&bytes[start..]);
    }

    #[inline]
    fn opt_uint(&mut self, tag: u8, v: Option<impl Into<u64>>) {
        if let Some(v) = v {
            self.uint(tag, v.into());
        }
    }

    #[inline]
    fn null(&mut self, tag: u8) {
        self.out.push(tag);
        self.out.push(0);
    }

    #[inline]
    fn flag(&mut self, tag: u8, set: bool) {
        if set {
            self.null(tag);
        }
    }

    #[inline]
    fn boolean(&mut self, tag: u8, v: bool) {
        self.out
            .extend_from_slice(&[tag, 1, if v { 0xFF } else { 0 }]);
    }

    #[inline]
    fn opt_bool(&mut self, tag: u8, v: Option<bool>) {
        if let Some(v) = v {
            self.boolean(tag, v);
        }
    }

    /// A BIT STRING of the given bit numbers (named-bit list: trailing
    /// zero bits removed).
    /// An ENUMERATED: its number from the table in `asn1::enums`.
    #[inline]
    fn enumerated<T: Enumerated>(&mut self, tag: u8, v: T) {
        self.uint(tag, u64::from(v.number()));
    }

    /// A BIT STRING of named bits (positions from `asn1::enums`), with
    /// trailing zero bits removed.
    fn bits<T: NamedBits>(&mut self, tag: u8, set: &[T]) {
        let mut mask: u32 = 0;
        for b in set {
            mask |= 1 << b.bit();
        }
        if mask == 0 {
            self.prim(tag, &[0]);
            return;
        }
        let nbits = 32 - mask.leading_zeros();
        let nbytes = nbits.div_ceil(8) as usize;
        let mut buf = [0u8; 5];
        buf[0] = (nbytes as u32 * 8 - nbits) as u8;
        for b in 0..nbits {
            if mask & (1 << b) != 0 {
                buf[1 + (b / 8) as usize] |= 0x80 >> (b % 8);
            }
        }
        self.prim(tag, &buf[..=nbytes]);
    }

    // ---- mapped values ------------------------------------------------

    fn pkgd(&mut self, tag: u8, kind: ItemKind, name: &str) -> Result<[u8; 4], EncodeError> {
        let code = self
            .reg
            .encode_pkgd_name(kind, name)
            .map_err(|e| invalid("name", e))?;
        self.prim(tag, &code);
        Ok(code)
    }

    fn param_name(
        &mut self,
        tag: u8,
        kind: ItemKind,
        item: [u8; 4],
        name: &str,
    ) -> Result<[u8; 2], EncodeError> {
        let code = self
            .reg
            .encode_parameter(kind, item, name)
            .map_err(|e| invalid("parameter name", e))?;
        self.prim(tag, &code);
        Ok(code)
    }

    fn term_id(&mut self, tag: u8, t: &TerminationId) -> R {
        let asn = match self.levels {
            Some(l) => termid::encode(t.as_str(), l)
                .map_err(|e| invalid("termination id", format!("{:?}: {e}", t.as_str())))?,
            None => termid::parse_native(t.as_str()).ok_or_else(|| {
                invalid(
                    "termination id",
                    format!("{:?} is not in native form 0x<hex>[#<hex>]", t.as_str()),
                )
            })?,
        };
        let s = self.open(tag);
        let w = self.open(c(0));
        for &wc in asn.wildcards() {
            self.prim(OCTETS, &[wc]);
        }
        self.close(w);
        self.prim(p(1), asn.id());
        self.close(s);
        Ok(())
    }

    fn term_ids(&mut self, tag: u8, ids: &[TerminationId]) -> R {
        let s = self.open(tag);
        for t in ids {
            self.term_id(SEQ, t)?;
        }
        self.close(s);
        Ok(())
    }

    /// `Value ::= SEQUENCE OF OCTET STRING`, wrapped by `ty` in the
    /// standard dialect.
    fn value(&mut self, tag: u8, vals: &[CompactString], ty: Option<&values::ValueType>) {
        let s = self.open(tag);
        for v in vals {
            if self.standard {
                let mut inner = std::mem::take(&mut self.scratch);
                inner.clear();
                values::wrap(ty, v, &mut inner);
                self.prim(OCTETS, &inner);
                self.scratch = inner;
            } else {
                self.prim(OCTETS, v.as_bytes());
            }
        }
        self.close(s);
    }

    fn extra_info(&mut self, tag: u8, x: &Option<ExtraInfo>) {
        if let Some(x) = x {
            let s = self.open(tag);
            match x {
                ExtraInfo::Relation(r) => self.enumerated(p(0), *r),
                ExtraInfo::Range(b) => self.boolean(p(1), *b),
                ExtraInfo::Sublist(b) => self.boolean(p(2), *b),
            }
            self.close(s);
        }
    }

    // ---- message --------------------------------------------------------

    fn megaco_message(&mut self, m: &MegacoMessage) -> R {
        let s = self.open(SEQ);
        if let Some(a) = &m.auth_header {
            let h = self.open(c(0));
            self.prim(p(0), &a.sec_parm_index.to_be_bytes());
            self.prim(p(1), &a.seq_num.to_be_bytes());
            self.prim(p(2), &a.ad);
            self.close(h);
        }
        let ms = self.open(c(1));
        self.uint(p(0), u64::from(m.mess.version));
        let mid = self.open(c(1));
        self.mid(&m.mess.mid)?;
        self.close(mid);
        let body = self.open(c(2));
        match &m.mess.body {
            MessageBody::Error(e) => self.error_descriptor(c(0), e),
            MessageBody::Transactions(ts) => {
                let l = self.open(c(1));
                for t in ts {
                    self.transaction(t)?;
                }
                self.close(l);
            }
        }
        self.close(body);
        self.close(ms);
        self.close(s);
        Ok(())
    }

    fn ip4(&mut self, tag: u8, a: &Ip4Address) {
        let s = self.open(tag);
        self.prim(p(0), &a.address);
        self.opt_uint(p(1), a.port);
        self.close(s);
    }

    fn ip6(&mut self, tag: u8, a: &Ip6Address) {
        let s = self.open(tag);
        self.prim(p(0), &a.address);
        self.opt_uint(p(1), a.port);
        self.close(s);
    }

    fn domain(&mut self, tag: u8, d: &DomainName) {
        let s = self.open(tag);
        self.prim(p(0), d.name.as_bytes());
        self.opt_uint(p(1), d.port);
        self.close(s);
    }

    /// An MTP address: its hex digits as octets in the standard dialect;
    /// in OTP's, the characters themselves (as `megaco_ber_encoder`
    /// writes the string OTP's text parser keeps).
    fn mtp(&mut self, tag: u8, hex: &str) -> R {
        let digits = hex.as_bytes();
        if !self.standard {
            if !(2..=4).contains(&digits.len()) {
                return Err(invalid(
                    "MTP address",
                    format!("{hex:?}: 2 to 4 characters in OTP's dialect"),
                ));
            }
            self.prim(tag, digits);
            return Ok(());
        }
        if !(4..=8).contains(&digits.len()) || digits.len() % 2 != 0 {
            return Err(invalid(
                "MTP address",
                format!("{hex:?}: 4, 6 or 8 hex digits"),
            ));
        }
        let mut buf = [0u8; 4];
        for (i, pair) in digits.chunks(2).enumerate() {
            let h = (pair[0] as char).to_digit(16);
            let l = (pair[1] as char).to_digit(16);
            match (h, l) {
                (Some(h), Some(l)) => buf[i] = (h * 16 + l) as u8,
                _ => return Err(invalid("MTP address", format!("{hex:?}: not hex"))),
            }
        }
        self.prim(tag, &buf[..digits.len() / 2]);
        Ok(())
    }

    fn mid(&mut self, m: &Mid) -> R {
        match m {
            Mid::Ip4(a) => self.ip4(c(0), a),
            Mid::Ip6(a) => self.ip6(c(1), a),
            Mid::Domain(d) => self.domain(c(2), d),
            Mid::Device(d) => self.prim(p(3), d.as_bytes()),
            Mid::Mtp(h) => self.mtp(p(4), h)?,
        }
        Ok(())
    }

    fn error_descriptor(&mut self, tag: u8, e: &ErrorDescriptor) {
        let s = self.open(tag);
        self.uint(p(0), u64::from(e.error_code));
        if let Some(t) = &e.error_text {
            self.prim(p(1), t.as_bytes());
        }
        self.close(s);
    }

    fn transaction(&mut self, t: &Transaction) -> R {
        match t {
            Transaction::Request(r) => {
                let s = self.open(c(0));
                self.uint(p(0), u64::from(r.transaction_id));
                let l = self.open(c(1));
                for a in &r.actions {
                    self.action_request(a)?;
                }
                self.close(l);
                self.close(s);
            }
            Transaction::Pending(pd) => {
                let s = self.open(c(1));
                self.uint(p(0), u64::from(pd.transaction_id));
                self.close(s);
            }
            Transaction::Reply(r) => {
                let s = self.open(c(2));
                self.uint(p(0), u64::from(r.transaction_id));
                self.flag(p(1), r.imm_ack_required);
                let res = self.open(c(2));
                match &r.result {
                    TransactionResult::Error(e) => self.error_descriptor(c(0), e),
                    TransactionResult::ActionReplies(ars) => {
                        let l = self.open(c(1));
                        for a in ars {
                            self.action_reply(a)?;
                        }
                        self.close(l);
                    }
                }
                self.close(res);
                self.opt_uint(p(3), r.segment_number);
                self.flag(p(4), r.segmentation_complete);
                self.close(s);
            }
            Transaction::ResponseAck(acks) => {
                let s = self.open(c(3));
                for a in acks {
                    let e = self.open(SEQ);
                    self.uint(p(0), u64::from(a.first_ack));
                    self.opt_uint(p(1), a.last_ack);
                    self.close(e);
                }
                self.close(s);
            }
            Transaction::SegmentReply(r) => {
                let s = self.open(c(4));
                self.uint(p(0), u64::from(r.transaction_id));
                self.uint(p(1), u64::from(r.segment_number));
                self.flag(p(2), r.segmentation_complete);
                self.close(s);
            }
        }
        Ok(())
    }

    fn action_request(&mut self, a: &ActionRequest) -> R {
        let s = self.open(SEQ);
        self.uint(p(0), u64::from(a.context_id.0));
        if let Some(cr) = &a.context_request {
            self.context_request(c(1), cr)?;
        }
        if let Some(ca) = &a.context_attr_audit_req {
            self.context_attr_audit(c(2), ca)?;
        }
        let l = self.open(c(3));
        for cmd in &a.command_requests {
            let e = self.open(SEQ);
            let ch = self.open(c(0));
            self.command(&cmd.command)?;
            self.close(ch);
            self.flag(p(1), cmd.optional);
            self.flag(p(2), cmd.wildcard_return);
            self.close(e);
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    fn action_reply(&mut self, a: &ActionReply) -> R {
        let s = self.open(SEQ);
        self.uint(p(0), u64::from(a.context_id.0));
        if let Some(e) = &a.error_descriptor {
            self.error_descriptor(c(1), e);
        }
        if let Some(cr) = &a.context_reply {
            self.context_request(c(2), cr)?;
        }
        let l = self.open(c(3));
        for r in &a.command_reply {
            self.command_reply(r)?;
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    fn context_request(&mut self, tag: u8, cr: &ContextRequest) -> R {
        let s = self.open(tag);
        self.opt_uint(
            p(0),
            cr.priority
                .map(|v| bounded(v, 15, "priority"))
                .transpose()?,
        );
        self.opt_bool(p(1), cr.emergency);
        if let Some(ts) = &cr.topology_req {
            let l = self.open(c(2));
            for t in ts {
                let e = self.open(SEQ);
                self.term_id(c(0), &t.termination_from)?;
                self.term_id(c(1), &t.termination_to)?;
                self.enumerated(p(2), t.topology_direction);
                self.opt_uint(p(3), t.stream_id);
                if let Some(x) = t.topology_direction_extension {
                    self.enumerated(p(4), x);
                }
                self.close(e);
            }
            self.close(l);
        }
        self.opt_bool(p(3), cr.iepscallind);
        if let Some(props) = &cr.context_prop {
            let l = self.open(c(4));
            for pp in props {
                self.property_parm(SEQ, pp)?;
            }
            self.close(l);
        }
        if let Some(ids) = &cr.context_list {
            let l = self.open(c(5));
            for id in ids {
                self.uint(INTEGER, u64::from(id.0));
            }
            self.close(l);
        }
        self.close(s);
        Ok(())
    }

    fn context_attr_audit(&mut self, tag: u8, ca: &ContextAttrAuditRequest) -> R {
        let s = self.open(tag);
        self.flag(p(0), ca.topology);
        self.flag(p(1), ca.emergency);
        self.flag(p(2), ca.priority);
        self.flag(p(3), ca.iepscallind);
        if let Some(props) = &ca.context_prop_aud {
            let l = self.open(c(4));
            for pp in props {
                self.ind_aud_property_parm(pp)?;
            }
            self.close(l);
        }
        let select_priority = ca.select_priority.map(|v| bounded(v, 15, "selectpriority"));
        self.opt_uint(p(5), select_priority.transpose()?);
        self.opt_bool(p(6), ca.select_emergency);
        self.opt_bool(p(7), ca.select_iepscallind);
        if let Some(sl) = ca.select_logic {
            let l = self.open(c(8));
            self.null(match sl {
                SelectLogic::And => p(0),
                SelectLogic::Or => p(1),
            });
            self.close(l);
        }
        self.close(s);
        Ok(())
    }

    fn command(&mut self, cmd: &Command) -> R {
        match cmd {
            Command::Add(r) => self.amm_request(c(0), r),
            Command::Move(r) => self.amm_request(c(1), r),
            Command::Modify(r) => self.amm_request(c(2), r),
            Command::Subtract(r) => {
                let s = self.open(c(3));
                self.term_ids(c(0), &r.termination_ids)?;
                if let Some(ad) = &r.audit_descriptor {
                    self.audit_descriptor(c(1), ad)?;
                }
                self.close(s);
                Ok(())
            }
            Command::AuditCapability(r) => self.audit_request(c(4), r),
            Command::AuditValue(r) => self.audit_request(c(5), r),
            Command::Notify(r) => {
                let s = self.open(c(6));
                self.term_ids(c(0), &r.termination_ids)?;
                self.observed_events(c(1), &r.observed_events_descriptor)?;
                if let Some(e) = &r.error_descriptor {
                    self.error_descriptor(c(2), e);
                }
                self.close(s);
                Ok(())
            }
            Command::ServiceChange(r) => {
                let s = self.open(c(7));
                self.term_ids(c(0), &r.termination_ids)?;
                self.service_change_parm(c(1), &r.service_change_parms)?;
                self.close(s);
                Ok(())
            }
        }
    }

    fn amm_request(&mut self, tag: u8, r: &AmmRequest) -> R {
        let s = self.open(tag);
        self.term_ids(c(0), &r.termination_ids)?;
        let l = self.open(c(1));
        for d in &r.descriptors {
            match d {
                AmmDescriptor::Media(m) => self.media(c(0), m)?,
                AmmDescriptor::Modem(m) => self.modem(c(1), m)?,
                AmmDescriptor::Mux(m) => self.mux(c(2), m)?,
                AmmDescriptor::Events(e) => self.events(c(3), e)?,
                AmmDescriptor::EventBuffer(e) => self.event_buffer(c(4), e)?,
                AmmDescriptor::Signals(sd) => self.signals(c(5), sd)?,
                AmmDescriptor::DigitMap(dm) => self.digit_map(c(6), dm)?,
                AmmDescriptor::Audit(ad) => self.audit_descriptor(c(7), ad)?,
                AmmDescriptor::Statistics(st) => self.statistics(c(8), st)?,
            }
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    fn audit_request(&mut self, tag: u8, r: &AuditRequest) -> R {
        let s = self.open(tag);
        self.term_id(c(0), &r.termination_id)?;
        self.audit_descriptor(c(1), &r.audit_descriptor)?;
        if let Some(l) = &r.termination_id_list {
            self.term_ids(c(2), l)?;
        }
        self.close(s);
        Ok(())
    }

    fn command_reply(&mut self, r: &CommandReply) -> R {
        match r {
            CommandReply::Add(a) => self.amms_reply(c(0), a),
            CommandReply::Move(a) => self.amms_reply(c(1), a),
            CommandReply::Modify(a) => self.amms_reply(c(2), a),
            CommandReply::Subtract(a) => self.amms_reply(c(3), a),
            CommandReply::AuditCapability(a) => self.audit_reply(c(4), a),
            CommandReply::AuditValue(a) => self.audit_reply(c(5), a),
            CommandReply::Notify(n) => {
                let s = self.open(c(6));
                self.term_ids(c(0), &n.termination_ids)?;
                if let Some(e) = &n.error_descriptor {
                    self.error_descriptor(c(1), e);
                }
                self.close(s);
                Ok(())
            }
            CommandReply::ServiceChange(sc) => {
                let s = self.open(c(7));
                self.term_ids(c(0), &sc.termination_ids)?;
                let res = self.open(c(1));
                match &sc.service_change_result {
                    ServiceChangeResult::ErrorDescriptor(e) => self.error_descriptor(c(0), e),
                    ServiceChangeResult::ServiceChangeResParms(rp) => {
                        let r = self.open(c(1));
                        if let Some(m) = &rp.service_change_mgc_id {
                            let x = self.open(c(0));
                            self.mid(m)?;
                            self.close(x);
                        }
                        if let Some(a) = &rp.service_change_address {
                            self.sc_address(c(1), a)?;
                        }
                        let v = rp.service_change_version;
                        let v = v.map(|v| bounded(v, 99, "serviceChangeVersion"));
                        self.opt_uint(p(2), v.transpose()?);
                        if let Some(pr) = &rp.service_change_profile {
                            self.profile(c(3), pr);
                        }
                        if let Some(t) = &rp.time_stamp {
                            self.time(c(4), t);
                        }
                        self.close(r);
                    }
                }
                self.close(res);
                self.close(s);
                Ok(())
            }
        }
    }

    fn amms_reply(&mut self, tag: u8, a: &AmmsReply) -> R {
        let s = self.open(tag);
        self.term_ids(c(0), &a.termination_ids)?;
        if let Some(ta) = &a.termination_audit {
            self.termination_audit(c(1), ta)?;
        }
        self.close(s);
        Ok(())
    }

    fn audit_reply(&mut self, tag: u8, a: &AuditReply) -> R {
        let s = self.open(tag);
        match a {
            AuditReply::ContextAuditResult(ids) => self.term_ids(c(0), ids)?,
            AuditReply::Error(e) => self.error_descriptor(c(1), e),
            AuditReply::AuditResult(r) => {
                let x = self.open(c(2));
                self.term_id(c(0), &r.termination_id)?;
                self.termination_audit(c(1), &r.termination_audit_result)?;
                self.close(x);
            }
            AuditReply::AuditResultTermList(r) => {
                let x = self.open(c(3));
                self.term_ids(c(0), &r.termination_id_list)?;
                self.termination_audit(c(1), &r.termination_audit_result)?;
                self.close(x);
            }
        }
        self.close(s);
        Ok(())
    }

    fn termination_audit(&mut self, tag: u8, items: &[AuditReturnParameter]) -> R {
        let s = self.open(tag);
        for it in items {
            match it {
                AuditReturnParameter::Error(e) => self.error_descriptor(c(0), e),
                AuditReturnParameter::Media(m) => self.media(c(1), m)?,
                AuditReturnParameter::Modem(m) => self.modem(c(2), m)?,
                AuditReturnParameter::Mux(m) => self.mux(c(3), m)?,
                AuditReturnParameter::Events(e) => self.events(c(4), e)?,
                AuditReturnParameter::EventBuffer(e) => self.event_buffer(c(5), e)?,
                AuditReturnParameter::Signals(sd) => self.signals(c(6), sd)?,
                AuditReturnParameter::DigitMap(dm) => self.digit_map(c(7), dm)?,
                AuditReturnParameter::ObservedEvents(o) => self.observed_events(c(8), o)?,
                AuditReturnParameter::Statistics(st) => self.statistics(c(9), st)?,
                AuditReturnParameter::Packages(pk) => {
                    let l = self.open(c(10));
                    for item in pk {
                        let e = self.open(SEQ);
                        self.package_name(p(0), &item.package_name)?;
                        let v = bounded(item.package_version, 99, "packageVersion")?;
                        self.uint(p(1), u64::from(v));
                        self.close(e);
                    }
                    self.close(l);
                }
                AuditReturnParameter::EmptyDescriptors(ad) => self.audit_descriptor(c(11), ad)?,
            }
        }
        self.close(s);
        Ok(())
    }

    fn package_name(&mut self, tag: u8, name: &str) -> R {
        let code = self
            .reg
            .encode_package(name)
            .map_err(|e| invalid("package name", e))?;
        self.prim(tag, &code);
        Ok(())
    }

    fn audit_descriptor(&mut self, tag: u8, ad: &AuditDescriptor) -> R {
        let s = self.open(tag);
        if let Some(tokens) = &ad.audit_token {
            self.bits(p(0), tokens);
        }
        if let Some(items) = &ad.audit_property_token {
            let l = self.open(c(1));
            for it in items {
                self.ind_audit_parameter(it)?;
            }
            self.close(l);
        }
        self.close(s);
        Ok(())
    }

    fn ind_audit_parameter(&mut self, it: &IndAuditParameter) -> R {
        match it {
            IndAuditParameter::Media(m) => {
                let s = self.open(c(0));
                if let Some(ts) = &m.term_state_descr {
                    let t = self.open(c(0));
                    let l = self.open(c(0));
                    for pp in &ts.property_parms {
                        self.ind_aud_property_parm(pp)?;
                    }
                    self.close(l);
                    self.flag(p(1), ts.event_buffer_control);
                    self.flag(p(2), ts.service_state);
                    if let Some(ss) = ts.service_state_sel {
                        self.enumerated(p(3), ss);
                    }
                    self.close(t);
                }
                if let Some(st) = &m.streams {
                    let x = self.open(c(1));
                    match st {
                        IndAudStreams::OneStream(sp) => self.ind_aud_stream_parms(c(0), sp)?,
                        IndAudStreams::MultiStream(v) => {
                            let l = self.open(c(1));
                            for sd in v {
                                let e = self.open(SEQ);
                                self.uint(p(0), u64::from(sd.stream_id));
                                self.ind_aud_stream_parms(c(1), &sd.stream_parms)?;
                                self.close(e);
                            }
                            self.close(l);
                        }
                    }
                    self.close(x);
                }
                self.close(s);
            }
            IndAuditParameter::Events(e) => {
                let s = self.open(c(1));
                self.opt_uint(p(0), e.request_id);
                self.pkgd(p(1), ItemKind::Event, &e.pkgd_name)?;
                self.opt_uint(p(2), e.stream_id);
                self.close(s);
            }
            IndAuditParameter::EventBuffer(e) => {
                let s = self.open(c(2));
                self.pkgd(p(0), ItemKind::Event, &e.event_name)?;
                self.opt_uint(p(1), e.stream_id);
                self.close(s);
            }
            IndAuditParameter::Signals(sd) => {
                let s = self.open(c(3));
                match sd {
                    IndAudSignalsDescriptor::Signal(sig) => self.ind_aud_signal(c(0), sig)?,
                    IndAudSignalsDescriptor::SeqSigList(l) => {
                        let x = self.open(c(1));
                        self.uint(p(0), u64::from(l.id));
                        if let Some(sig) = &l.signal_list {
                            self.ind_aud_signal(c(1), sig)?;
                        }
                        self.close(x);
                    }
                }
                self.close(s);
            }
            IndAuditParameter::DigitMap(d) => {
                let s = self.open(c(4));
                if let Some(n) = &d.digit_map_name {
                    self.digit_map_name(p(0), n)?;
                }
                self.close(s);
            }
            IndAuditParameter::Statistics(st) => {
                let s = self.open(c(5));
                self.pkgd(p(0), ItemKind::Statistic, &st.stat_name)?;
                self.close(s);
            }
            IndAuditParameter::Packages(pk) => {
                let s = self.open(c(6));
                self.package_name(p(0), &pk.package_name)?;
                let v = bounded(pk.package_version, 99, "packageVersion")?;
                self.uint(p(1), u64::from(v));
                self.close(s);
            }
        }
        Ok(())
    }

    fn ind_aud_signal(&mut self, tag: u8, sig: &IndAudSignal) -> R {
        let s = self.open(tag);
        self.pkgd(p(0), ItemKind::Signal, &sig.signal_name)?;
        self.opt_uint(p(1), sig.stream_id);
        self.opt_uint(p(2), sig.signal_request_id);
        self.close(s);
        Ok(())
    }

    fn ind_aud_stream_parms(&mut self, tag: u8, sp: &IndAudStreamParms) -> R {
        let s = self.open(tag);
        if let Some(lc) = &sp.local_control_descriptor {
            let x = self.open(c(0));
            self.flag(p(0), lc.stream_mode);
            self.flag(p(1), lc.reserve_value);
            self.flag(p(2), lc.reserve_group);
            if let Some(pps) = &lc.property_parms {
                let l = self.open(c(3));
                for pp in pps {
                    self.ind_aud_property_parm(pp)?;
                }
                self.close(l);
            }
            if let Some(m) = lc.stream_mode_sel {
                self.enumerated(p(4), m);
            }
            self.close(x);
        }
        for (n, lr) in [(0u8, &sp.local_descriptor), (1, &sp.remote_descriptor)] {
            if let Some(lr) = lr {
                let x = self.open(c(1 + n));
                self.opt_uint(p(0), lr.prop_group_id);
                let l = self.open(c(1));
                for pp in &lr.prop_grps {
                    self.ind_aud_property_parm(pp)?;
                }
                self.close(l);
                self.close(x);
            }
        }
        if let Some(st) = &sp.statistics_descriptor {
            let x = self.open(c(3));
            self.pkgd(p(0), ItemKind::Statistic, &st.stat_name)?;
            self.close(x);
        }
        self.close(s);
        Ok(())
    }

    fn ind_aud_property_parm(&mut self, pp: &IndAudPropertyParm) -> R {
        let s = self.open(SEQ);
        self.pkgd(p(0), ItemKind::Property, &pp.name)?;
        if let Some(prop) = &pp.property_parms {
            self.property_parm(c(1), prop)?;
        }
        self.close(s);
        Ok(())
    }

    fn property_parm(&mut self, tag: u8, pp: &PropertyParm) -> R {
        let s = self.open(tag);
        let code = self.pkgd(p(0), ItemKind::Property, &pp.name)?;
        let ty = if self.standard {
            self.reg.item_type(ItemKind::Property, code)
        } else {
            None
        };
        self.value(c(1), &pp.value, ty);
        self.extra_info(c(2), &pp.extra_info);
        self.close(s);
        Ok(())
    }

    fn parameter(&mut self, kind: ItemKind, item: [u8; 4], pp: &PropertyParm) -> R {
        let s = self.open(SEQ);
        let code = self.param_name(p(0), kind, item, &pp.name)?;
        let ty = if self.standard {
            self.reg.parameter_type(kind, item, code)
        } else {
            None
        };
        self.value(c(1), &pp.value, ty);
        self.extra_info(c(2), &pp.extra_info);
        self.close(s);
        Ok(())
    }

    fn parameters(&mut self, tag: u8, kind: ItemKind, item: [u8; 4], list: &[PropertyParm]) -> R {
        let l = self.open(tag);
        for pp in list {
            self.parameter(kind, item, pp)?;
        }
        self.close(l);
        Ok(())
    }

    fn media(&mut self, tag: u8, m: &MediaDescriptor) -> R {
        let s = self.open(tag);
        if let Some(ts) = &m.term_state_descr {
            let t = self.open(c(0));
            let l = self.open(c(0));
            for pp in &ts.property_parms {
                self.property_parm(SEQ, pp)?;
            }
            self.close(l);
            if let Some(b) = ts.event_buffer_control {
                self.enumerated(p(1), b);
            }
            if let Some(ss) = ts.service_state {
                self.enumerated(p(2), ss);
            }
            self.close(t);
        }
        if let Some(st) = &m.streams {
            let x = self.open(c(1));
            match st {
                Streams::OneStream(sp) => self.stream_parms(c(0), sp)?,
                Streams::MultiStream(v) => {
                    let l = self.open(c(1));
                    for sd in v {
                        let e = self.open(SEQ);
                        self.uint(p(0), u64::from(sd.stream_id));
                        self.stream_parms(c(1), &sd.stream_parms)?;
                        self.close(e);
                    }
                    self.close(l);
                }
            }
            self.close(x);
        }
        self.close(s);
        Ok(())
    }

    fn stream_parms(&mut self, tag: u8, sp: &StreamParms) -> R {
        let s = self.open(tag);
        if let Some(lc) = &sp.local_control_descriptor {
            let x = self.open(c(0));
            if let Some(m) = lc.stream_mode {
                self.enumerated(p(0), m);
            }
            self.opt_bool(p(1), lc.reserve_value);
            self.opt_bool(p(2), lc.reserve_group);
            let l = self.open(c(3));
            for pp in &lc.property_parms {
                self.property_parm(SEQ, pp)?;
            }
            self.close(l);
            self.close(x);
        }
        for (n, lr) in [(1u8, &sp.local_descriptor), (2, &sp.remote_descriptor)] {
            if let Some(lr) = lr {
                let x = self.open(c(n));
                let l = self.open(c(0));
                for g in &lr.prop_grps {
                    let gs = self.open(SEQ);
                    for pp in g {
                        self.property_parm(SEQ, pp)?;
                    }
                    self.close(gs);
                }
                self.close(l);
                self.close(x);
            }
        }
        if let Some(st) = &sp.statistics_descriptor {
            self.statistics(c(3), st)?;
        }
        self.close(s);
        Ok(())
    }

    fn statistics(&mut self, tag: u8, st: &[StatisticsParameter]) -> R {
        let l = self.open(tag);
        for sp in st {
            let e = self.open(SEQ);
            let code = self.pkgd(p(0), ItemKind::Statistic, &sp.stat_name)?;
            if let Some(v) = &sp.stat_value {
                let ty = if self.standard {
                    self.reg.item_type(ItemKind::Statistic, code)
                } else {
                    None
                };
                self.value(c(1), v, ty);
            }
            self.close(e);
        }
        self.close(l);
        Ok(())
    }

    fn modem(&mut self, tag: u8, m: &ModemDescriptor) -> R {
        let s = self.open(tag);
        let l = self.open(c(0));
        for t in &m.mtl {
            self.enumerated(ENUMERATED, *t);
        }
        self.close(l);
        let l = self.open(c(1));
        for pp in &m.mpl {
            self.property_parm(SEQ, pp)?;
        }
        self.close(l);
        if let Some(n) = &m.non_standard_data {
            self.non_standard(c(2), n)?;
        }
        self.close(s);
        Ok(())
    }

    fn mux(&mut self, tag: u8, m: &MuxDescriptor) -> R {
        let s = self.open(tag);
        self.enumerated(p(0), m.mux_type);
        self.term_ids(c(1), &m.term_list)?;
        if let Some(n) = &m.non_standard_data {
            self.non_standard(c(2), n)?;
        }
        self.close(s);
        Ok(())
    }

    fn non_standard(&mut self, tag: u8, n: &NonStandardData) -> R {
        let s = self.open(tag);
        let id = self.open(c(0));
        match &n.non_standard_identifier {
            NonStandardIdentifier::Object(arcs) => {
                let mut buf = Vec::new();
                oid(arcs, &mut buf)?;
                self.prim(p(0), &buf);
            }
            NonStandardIdentifier::H221NonStandard(h) => {
                let x = self.open(c(1));
                self.uint(p(0), u64::from(h.t35_country_code1));
                self.uint(p(1), u64::from(h.t35_country_code2));
                self.uint(p(2), u64::from(h.t35_extension));
                self.uint(p(3), u64::from(h.manufacturer_code));
                self.close(x);
            }
            NonStandardIdentifier::Experimental(e) => self.prim(p(2), e.as_bytes()),
        }
        self.close(id);
        self.prim(p(1), &n.data);
        self.close(s);
        Ok(())
    }

    fn events(&mut self, tag: u8, e: &EventsDescriptor) -> R {
        let s = self.open(tag);
        self.opt_uint(p(0), e.request_id);
        let l = self.open(c(1));
        for ev in &e.event_list {
            let x = self.open(SEQ);
            let code = self.pkgd(p(0), ItemKind::Event, &ev.pkgd_name)?;
            self.opt_uint(p(1), ev.stream_id);
            if let Some(a) = &ev.event_action {
                let y = self.open(c(2));
                self.opt_bool(p(0), a.keep_active);
                self.event_dm(c(1), &a.event_dm)?;
                if let Some(se) = &a.second_event {
                    self.second_events(c(2), se)?;
                }
                if let Some(sd) = &a.signals_descriptor {
                    self.signals(c(3), sd)?;
                }
                self.notify_behaviour(c(4), &a.notify_behaviour)?;
                self.flag(p(5), a.reset_events_descriptor);
                self.close(y);
            }
            self.parameters(c(3), ItemKind::Event, code, &ev.ev_par_list)?;
            self.close(x);
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    fn second_events(&mut self, tag: u8, e: &EventsDescriptor) -> R {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(invalid(
                "embedded events",
                format!("nested deeper than max_depth {}", self.max_depth),
            ));
        }
        let r = self.second_events_inner(tag, e);
        self.depth -= 1;
        r
    }

    fn second_events_inner(&mut self, tag: u8, e: &EventsDescriptor) -> R {
        let s = self.open(tag);
        self.opt_uint(p(0), e.request_id);
        let l = self.open(c(1));
        for ev in &e.event_list {
            let x = self.open(SEQ);
            let code = self.pkgd(p(0), ItemKind::Event, &ev.pkgd_name)?;
            self.opt_uint(p(1), ev.stream_id);
            if let Some(a) = &ev.event_action {
                let y = self.open(c(2));
                self.opt_bool(p(0), a.keep_active);
                self.event_dm(c(1), &a.event_dm)?;
                if let Some(sd) = &a.signals_descriptor {
                    self.signals(c(2), sd)?;
                }
                self.notify_behaviour(c(3), &a.notify_behaviour)?;
                self.flag(p(4), a.reset_events_descriptor);
                self.close(y);
            }
            self.parameters(c(3), ItemKind::Event, code, &ev.ev_par_list)?;
            self.close(x);
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    fn event_dm(&mut self, tag: u8, dm: &Option<EventDm>) -> R {
        if let Some(dm) = dm {
            let s = self.open(tag);
            match dm {
                EventDm::DigitMapName(n) => self.digit_map_name(p(0), n)?,
                EventDm::DigitMapValue(v) => self.digit_map_value(c(1), v)?,
            }
            self.close(s);
        }
        Ok(())
    }

    fn notify_behaviour(&mut self, tag: u8, nb: &Option<NotifyBehaviour>) -> R {
        if let Some(nb) = nb {
            let s = self.open(tag);
            match nb {
                NotifyBehaviour::NotifyImmediate => self.null(p(0)),
                NotifyBehaviour::NotifyRegulated(r) => {
                    let x = self.open(c(1));
                    if let Some(se) = &r.second_event {
                        self.second_events(c(0), se)?;
                    }
                    if let Some(sd) = &r.signals_descriptor {
                        self.signals(c(1), sd)?;
                    }
                    self.close(x);
                }
                NotifyBehaviour::NeverNotify => self.null(p(2)),
            }
            self.close(s);
        }
        Ok(())
    }

    fn event_buffer(&mut self, tag: u8, eb: &[EventSpec]) -> R {
        let l = self.open(tag);
        for es in eb {
            let x = self.open(SEQ);
            let code = self.pkgd(p(0), ItemKind::Event, &es.event_name)?;
            self.opt_uint(p(1), es.stream_id);
            self.parameters(c(2), ItemKind::Event, code, &es.event_par_list)?;
            self.close(x);
        }
        self.close(l);
        Ok(())
    }

    fn signals(&mut self, tag: u8, sd: &[SignalRequest]) -> R {
        let l = self.open(tag);
        for sr in sd {
            match sr {
                SignalRequest::Signal(sig) => self.signal(c(0), sig)?,
                SignalRequest::SeqSigList(list) => {
                    let x = self.open(c(1));
                    self.uint(p(0), u64::from(list.id));
                    let y = self.open(c(1));
                    for sig in &list.signal_list {
                        self.signal(SEQ, sig)?;
                    }
                    self.close(y);
                    self.close(x);
                }
            }
        }
        self.close(l);
        Ok(())
    }

    fn signal(&mut self, tag: u8, sig: &Signal) -> R {
        let s = self.open(tag);
        let code = self.pkgd(p(0), ItemKind::Signal, &sig.signal_name)?;
        self.opt_uint(p(1), sig.stream_id);
        if let Some(t) = sig.sig_type {
            self.enumerated(p(2), t);
        }
        self.opt_uint(p(3), sig.duration);
        if let Some(nc) = &sig.notify_completion {
            self.bits(p(4), nc);
        }
        self.opt_bool(p(5), sig.keep_active);
        self.parameters(c(6), ItemKind::Signal, code, &sig.sig_par_list)?;
        if let Some(d) = sig.direction {
            self.enumerated(p(7), d);
        }
        self.opt_uint(p(8), sig.request_id);
        self.opt_uint(p(9), sig.intersig_delay);
        self.close(s);
        Ok(())
    }

    fn digit_map_name(&mut self, tag: u8, name: &str) -> R {
        let code = self
            .reg
            .encode_digit_map(name)
            .map_err(|e| invalid("digit map name", e))?;
        self.prim(tag, &code);
        Ok(())
    }

    fn digit_map_value(&mut self, tag: u8, v: &DigitMapValue) -> R {
        let timer = |t: Option<u8>| t.map(|t| bounded(t, 99, "digit map timer")).transpose();
        let s = self.open(tag);
        self.opt_uint(p(0), timer(v.start_timer)?);
        self.opt_uint(p(1), timer(v.short_timer)?);
        self.opt_uint(p(2), timer(v.long_timer)?);
        self.prim(p(3), v.digit_map_body.as_bytes());
        self.opt_uint(p(4), timer(v.duration_timer)?);
        self.close(s);
        Ok(())
    }

    fn digit_map(&mut self, tag: u8, dm: &DigitMapDescriptor) -> R {
        let s = self.open(tag);
        if let Some(n) = &dm.digit_map_name {
            self.digit_map_name(p(0), n)?;
        }
        if let Some(v) = &dm.digit_map_value {
            self.digit_map_value(c(1), v)?;
        }
        self.close(s);
        Ok(())
    }

    fn observed_events(&mut self, tag: u8, o: &ObservedEventsDescriptor) -> R {
        let s = self.open(tag);
        self.uint(p(0), u64::from(o.request_id));
        let l = self.open(c(1));
        for ev in &o.observed_event_lst {
            let x = self.open(SEQ);
            let code = self.pkgd(p(0), ItemKind::Event, &ev.event_name)?;
            self.opt_uint(p(1), ev.stream_id);
            self.parameters(c(2), ItemKind::Event, code, &ev.event_par_list)?;
            if let Some(t) = &ev.time_notation {
                self.time(c(3), t);
            }
            self.close(x);
        }
        self.close(l);
        self.close(s);
        Ok(())
    }

    fn time(&mut self, tag: u8, t: &TimeNotation) {
        let s = self.open(tag);
        self.prim(p(0), t.date.as_bytes());
        self.prim(p(1), t.time.as_bytes());
        self.close(s);
    }

    fn profile(&mut self, tag: u8, pr: &ServiceChangeProfile) {
        let s = self.open(tag);
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        text.extend_from_slice(pr.profile_name.as_bytes());
        text.push(b'/');
        let v = pr.version;
        if v >= 100 {
            text.push(b'0' + v / 100);
        }
        if v >= 10 {
            text.push(b'0' + (v / 10) % 10);
        }
        text.push(b'0' + v % 10);
        self.prim(p(0), &text);
        self.scratch = text;
        self.close(s);
    }

    fn sc_address(&mut self, tag: u8, a: &ServiceChangeAddress) -> R {
        let s = self.open(tag);
        match a {
            ServiceChangeAddress::PortNumber(n) => self.uint(p(0), u64::from(*n)),
            ServiceChangeAddress::Ip4(a) => self.ip4(c(1), a),
            ServiceChangeAddress::Ip6(a) => self.ip6(c(2), a),
            ServiceChangeAddress::Domain(d) => self.domain(c(3), d),
            ServiceChangeAddress::Device(d) => self.prim(p(4), d.as_bytes()),
            ServiceChangeAddress::Mtp(h) => self.mtp(p(5), h)?,
        }
        self.close(s);
        Ok(())
    }

    fn service_change_parm(&mut self, tag: u8, sp: &ServiceChangeParm) -> R {
        let s = self.open(tag);
        self.enumerated(p(0), sp.service_change_method);
        if let Some(a) = &sp.service_change_address {
            self.sc_address(c(1), a)?;
        }
        let v = sp.service_change_version;
        let v = v.map(|v| bounded(v, 99, "serviceChangeVersion"));
        self.opt_uint(p(2), v.transpose()?);
        if let Some(pr) = &sp.service_change_profile {
            self.profile(c(3), pr);
        }
        let ty = if self.standard {
            Some(&values::ValueType::String)
        } else {
            None
        };
        self.value(c(4), &sp.service_change_reason, ty);
        self.opt_uint(p(5), sp.service_change_delay);
        if let Some(m) = &sp.service_change_mgc_id {
            let x = self.open(c(6));
            self.mid(m)?;
            self.close(x);
        }
        if let Some(t) = &sp.time_stamp {
            self.time(c(7), t);
        }
        if let Some(n) = &sp.non_standard_data {
            self.non_standard(c(8), n)?;
        }
        if let Some(ad) = &sp.service_change_info {
            self.audit_descriptor(c(9), ad)?;
        }
        self.flag(p(10), sp.service_change_incomplete_flag);
        self.close(s);
        Ok(())
    }
}

/// BER content octets of an OBJECT IDENTIFIER.
fn oid(arcs: &[u32], out: &mut Vec<u8>) -> R {
    if arcs.len() < 2 || arcs[0] > 2 || (arcs[0] < 2 && arcs[1] > 39) {
        return Err(invalid("object identifier", format!("{arcs:?}")));
    }
    let first = u64::from(arcs[0]) * 40 + u64::from(arcs[1]);
    let mut put = |v: u64| {
        let mut tmp = [0u8; 10];
        let mut n = 0;
        let mut v = v;
        loop {
            tmp[n] = (v & 0x7F) as u8;
            n += 1;
            v >>= 7;
            if v == 0 {
                break;
            }
        }
        for i in (0..n).rev() {
            out.push(tmp[i] | if i > 0 { 0x80 } else { 0 });
        }
    };
    put(first);
    for &a in &arcs[2..] {
        put(u64::from(a));
    }
    Ok(())
}
