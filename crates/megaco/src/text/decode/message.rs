//! The message: header, mId, transactions, actions and error descriptors.

use super::{lower, text, Parser};
use crate::model::*;
use crate::text::error::TextErrorKind;
use crate::text::keyword::{keyword, Kw};
use crate::text::lexer::{is_safe, Tok, R};
use crate::text::scalar::{parse_hex_octets, parse_ip4, parse_ip6};

impl Parser<'_> {
    pub(super) fn megaco_message(&mut self) -> R<MegacoMessage> {
        let auth_header = self.header()?;
        let mut msg = MegacoMessage {
            auth_header,
            mess: Message {
                version: self.version,
                mid: self.mid()?,
                body: MessageBody::Transactions(SmallList::new()),
            },
        };
        let t = self.token(TRANSACTION)?;
        if t.kw == Some(Kw::Error) {
            msg.mess.body = MessageBody::Error(self.error_descriptor_body()?);
        } else if let MessageBody::Transactions(list) = &mut msg.mess.body {
            let mut t = t;
            loop {
                self.transaction(t, list)?;
                if list.len() > self.limits.max_list_len {
                    return Err(self.too_many());
                }
                if self.at_end() {
                    break;
                }
                t = self.token(TRANSACTION)?;
            }
        }
        if !self.at_end() {
            return Err(self.expected("end of message"));
        }
        Ok(msg)
    }

    /// The authentication header, if any, and `MEGACO/v` (sets `version`).
    pub(super) fn header(&mut self) -> R<Option<AuthenticationHeader>> {
        const HEADER: &str = "`MEGACO/` or `!/` and a version";
        let mut t = self.token(HEADER)?;
        let auth_header = if t.kw == Some(Kw::Auth) {
            let a = self.auth_header()?;
            t = self.token(HEADER)?;
            Some(a)
        } else {
            None
        };
        let (at, w) = (t.at, t.text);
        let Some(slash) = w.find('/') else {
            return Err(self.invalid(at, w, "message header (MEGACO/version)"));
        };
        let (name, ver) = (&w[..slash], &w[slash + 1..]);
        if !(name.eq_ignore_ascii_case("megaco") || name == "!") {
            return Err(self.invalid(at, w, "message header (MEGACO/version)"));
        }
        let v = self.number(at + slash + 1, ver, "protocol version", 99)?;
        if !(1..=3).contains(&v) {
            return Err(self.err(at, TextErrorKind::UnsupportedVersion(v as u32)));
        }
        self.version = v as u8;
        Ok(auth_header)
    }

    /// `= 0xSPI:0xSEQ:0xDATA` after `Authentication`.
    fn auth_header(&mut self) -> R<AuthenticationHeader> {
        self.equal()?;
        let hex = |p: &mut Self, what: &'static str, min: usize, max: usize| -> R<Vec<u8>> {
            let (at, w) = p.word(what)?;
            parse_hex_octets(w.as_bytes(), min, max).ok_or_else(|| p.invalid(at, w, what))
        };
        let spi = hex(self, "security parameter index (0x + 8 hex digits)", 8, 8)?;
        self.expect(b':', "`:`")?;
        let seq = hex(self, "sequence number (0x + 8 hex digits)", 8, 8)?;
        self.expect(b':', "`:`")?;
        let ad = hex(
            self,
            "authentication data (0x + 24 to 64 hex digits)",
            24,
            64,
        )?;
        let u = |v: &[u8]| u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
        Ok(AuthenticationHeader {
            sec_parm_index: u(&spi),
            seq_num: u(&seq),
            ad,
        })
    }

    /// `mId`: `[ip4]`, `[ip6]`, `<domain>`, each with an optional
    /// `:port`; `MTP{hex}`; or a device name.
    pub(super) fn mid(&mut self) -> R<Mid> {
        match self.peek() {
            Some(b'[') => {
                self.pos += 1;
                let start = self.pos;
                let b = self.rest_from(start).as_bytes();
                let n = b.iter().take_while(|&&c| is_safe(c) || c == b':').count();
                let text = self.slice(start, start + n);
                self.pos = start + n;
                self.expect(b']', "`]`")?;
                let port = self.opt_port()?;
                if text.contains(':') {
                    let address = parse_ip6(text.as_bytes())
                        .ok_or_else(|| self.invalid(start, text, "IPv6 address"))?;
                    Ok(Mid::Ip6(Ip6Address { address, port }))
                } else {
                    let address = parse_ip4(text.as_bytes())
                        .ok_or_else(|| self.invalid(start, text, "IPv4 address"))?;
                    Ok(Mid::Ip4(Ip4Address { address, port }))
                }
            }
            Some(b'<') => {
                self.pos += 1;
                let (_, name) = self.word("a domain name")?;
                self.expect(b'>', "`>`")?;
                let port = self.opt_port()?;
                Ok(Mid::Domain(DomainName {
                    name: lower(name),
                    port,
                }))
            }
            _ => {
                let t = self.token("a message identifier (mId)")?;
                if t.kw == Some(Kw::Mtp) && self.peek() == Some(b'{') {
                    let (at, hex) = self.octet_string()?;
                    if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err(self.invalid(at, hex, "MTP address"));
                    }
                    Ok(Mid::Mtp(text(hex)))
                } else {
                    Ok(Mid::Device(lower(t.text)))
                }
            }
        }
    }

    fn opt_port(&mut self) -> R<Option<u16>> {
        if self.eat(b':') {
            Ok(Some(self.u16_word("a port number")?))
        } else {
            Ok(None)
        }
    }

    /// One transaction, its first word `t` read, added to `list` (and
    /// filled in place there).
    fn transaction(&mut self, t: Tok<'_>, list: &mut SmallList<Transaction>) -> R<()> {
        match t.kw {
            Some(Kw::Trans) => {
                list.push(Transaction::Request(TransactionRequest::default()));
                if let Some(Transaction::Request(r)) = list.last_mut() {
                    self.transaction_request(r)?;
                }
            }
            Some(Kw::Reply) => {
                list.push(Transaction::Reply(TransactionReply {
                    transaction_id: 0,
                    imm_ack_required: false,
                    result: TransactionResult::ActionReplies(SmallList::new()),
                    segment_number: None,
                    segmentation_complete: false,
                }));
                if let Some(Transaction::Reply(r)) = list.last_mut() {
                    self.transaction_reply(r)?;
                }
            }
            Some(Kw::Pending) => {
                self.equal()?;
                let transaction_id = self.u32_word("a transaction id")?;
                self.open()?;
                self.close()?;
                list.push(Transaction::Pending(TransactionPending { transaction_id }));
            }
            Some(Kw::ResponseAck) => {
                let mut acks = Vec::new();
                self.braced(|p| {
                    acks.push(p.transaction_ack()?);
                    Ok(())
                })?;
                list.push(Transaction::ResponseAck(acks));
            }
            Some(Kw::Segment) => {
                self.equal()?;
                let (at, w) = self.word("a transaction id and segment number")?;
                let (transaction_id, seg, complete) = self.tid_and_segment(at, w)?;
                let segment_number = seg.ok_or_else(|| self.missing(at, "segment number"))?;
                list.push(Transaction::SegmentReply(SegmentReply {
                    transaction_id,
                    segment_number,
                    segmentation_complete: complete,
                }));
            }
            _ => return Err(self.unknown(t, TRANSACTION)),
        }
        Ok(())
    }

    /// `id` or `id-id`.
    fn transaction_ack(&mut self) -> R<TransactionAck> {
        let (at, w) = self.word("a transaction id or range")?;
        const TID: &str = "a transaction id";
        Ok(match w.find('-') {
            Some(i) => TransactionAck {
                first_ack: self.number(at, &w[..i], TID, u32::MAX.into())? as u32,
                last_ack: Some(self.number(at + i + 1, &w[i + 1..], TID, u32::MAX.into())? as u32),
            },
            None => TransactionAck {
                first_ack: self.number(at, w, TID, u32::MAX.into())? as u32,
                last_ack: None,
            },
        })
    }

    /// `id`, `id/seg` or `id/seg/END` (v3 segmentation).
    pub(super) fn tid_and_segment(&self, at: usize, w: &str) -> R<(u32, Option<u16>, bool)> {
        let mut parts = w.splitn(3, '/');
        let tid = parts.next().unwrap_or_default();
        let id = self.number(at, tid, "a transaction id", u32::MAX.into())? as u32;
        let Some(seg) = parts.next() else {
            return Ok((id, None, false));
        };
        let seg_at = at + tid.len() + 1;
        let seg_no = self.number(seg_at, seg, "a segment number", u16::MAX.into())? as u16;
        match parts.next() {
            None => Ok((id, Some(seg_no), false)),
            Some(end) if end.eq_ignore_ascii_case("end") || end == "&" => {
                Ok((id, Some(seg_no), true))
            }
            Some(end) => Err(self.invalid(
                seg_at + seg.len() + 1,
                end,
                "segmentation complete token (END)",
            )),
        }
    }

    fn transaction_request(&mut self, r: &mut TransactionRequest) -> R<()> {
        // `Transaction {`, `Transaction = {` and `Transaction = id {`;
        // a missing id decodes as 0.
        if self.eat(b'=') && self.peek() != Some(b'{') {
            r.transaction_id = self.u32_word("a transaction id")?;
        }
        self.braced(|p| {
            r.actions.push(ActionRequest::default());
            match r.actions.last_mut() {
                Some(a) => p.action_request(a),
                None => Ok(()),
            }
        })
    }

    pub(super) fn context_id(&mut self) -> R<ContextId> {
        let (at, w) = self.word("a context id")?;
        match w.as_bytes() {
            [b'-'] => Ok(ContextId::NULL),
            [b'$'] => Ok(ContextId::CHOOSE),
            [b'*'] => Ok(ContextId::ALL),
            _ => {
                let v = self.number(at, w, "a context id", u32::MAX.into())? as u32;
                if v == 0 || v == ContextId::CHOOSE.0 || v == ContextId::ALL.0 {
                    // Reserved values are written `-`, `$` and `*`.
                    return Err(self.invalid(at, w, "context id (reserved value)"));
                }
                Ok(ContextId(v))
            }
        }
    }

    fn action_request(&mut self, a: &mut ActionRequest) -> R<()> {
        self.expect_kw(Kw::Ctx, "Context")?;
        self.equal()?;
        a.context_id = self.context_id()?;
        self.open()?;
        let mut ctx = ContextRequest::default();
        let mut audit: Option<ContextAttrAuditRequest> = None;
        if self.eat(b'}') {
            self.leave();
        } else {
            self.items(|p| {
                const WHAT: &str = "a command or context property";
                let t = p.token(WHAT)?;
                let (optional, wildcard_return, name) = split_command_prefix(t.text);
                let commands = &mut a.command_requests;
                if name.len() < t.text.len() {
                    // `O-` and `W-` prefix commands only.
                    let k = keyword(name.as_bytes(), p.version);
                    if !p.command_request(k, optional, wildcard_return, commands)? {
                        return Err(p.unknown(t, WHAT));
                    }
                    return Ok(());
                }
                match t.kw {
                    Some(
                        k @ (Kw::Topology
                        | Kw::Priority
                        | Kw::Emergency
                        | Kw::EmergencyOff
                        | Kw::Ieps
                        | Kw::ContextAttr),
                    ) => p.context_property(t.at, k, &mut ctx),
                    Some(Kw::ContextAudit) => {
                        if audit.is_some() {
                            return Err(p.dup(t.at, "ContextAudit"));
                        }
                        audit = Some(p.context_audit()?);
                        Ok(())
                    }
                    k => {
                        if !p.command_request(k, false, false, commands)? {
                            return Err(p.unknown(t, WHAT));
                        }
                        Ok(())
                    }
                }
            })?;
        }
        a.context_request = (!ctx.is_empty()).then_some(ctx);
        a.context_attr_audit_req = audit.filter(|a| !a.is_empty());
        Ok(())
    }

    /// `Error = code { "text" }` after `Error`.
    pub(super) fn error_descriptor_body(&mut self) -> R<ErrorDescriptor> {
        self.equal()?;
        let error_code = self.u16_word("an error code")?;
        self.open()?;
        let error_text = if self.peek() == Some(b'"') {
            Some(text(self.quoted()?))
        } else {
            None
        };
        self.close()?;
        Ok(ErrorDescriptor {
            error_code,
            error_text,
        })
    }

    /// `Error = code { "text" }`, the keyword not yet read.
    pub(super) fn error_descriptor(&mut self) -> R<ErrorDescriptor> {
        self.expect_kw(Kw::Error, "Error")?;
        self.error_descriptor_body()
    }
}

const TRANSACTION: &str =
    "a transaction (Transaction, Reply, Pending, TransactionResponseAck or Segment)";

/// `O-`, `W-` and `O-W-` command prefixes: (optional, wildcard, rest).
fn split_command_prefix(w: &str) -> (bool, bool, &str) {
    let mut rest = w;
    let mut optional = false;
    let mut wildcard = false;
    let b = rest.as_bytes();
    if b.len() > 2 && (b[0] | 0x20) == b'o' && b[1] == b'-' {
        optional = true;
        rest = &rest[2..];
    }
    let b = rest.as_bytes();
    if b.len() > 2 && (b[0] | 0x20) == b'w' && b[1] == b'-' {
        wildcard = true;
        rest = &rest[2..];
    }
    (optional, wildcard, rest)
}
