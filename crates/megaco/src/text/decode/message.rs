//! The message: header, mId, transactions, actions and error descriptors.

use super::{text, Parser};
use crate::model::*;
use crate::text::header::split_command_prefix;
use crate::text::keyword::{keyword, Kw};
use crate::text::lexer::{Tok, R};
use crate::text::scalar::parse_hex_octets;

impl Parser<'_> {
    pub(super) fn megaco_message(&mut self) -> R<MegacoMessage> {
        let auth_header = self.auth_header()?;
        let mut msg = MegacoMessage {
            auth_header,
            mess: Message {
                version: self.version,
                mid: self.mid()?,
                body: MessageBody::Transactions(SmallList::new()),
            },
        };
        self.sep("white space after the mId")?;
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
    pub(super) fn auth_header(&mut self) -> R<Option<AuthenticationHeader>> {
        let Some(a) = self.header()? else {
            return Ok(None);
        };
        let octets = |w: &str| parse_hex_octets(w.as_bytes(), 0, 64).unwrap_or_default();
        let u = |w: &str| {
            let v = octets(w);
            u32::from_be_bytes([v[0], v[1], v[2], v[3]])
        };
        Ok(Some(AuthenticationHeader {
            sec_parm_index: u(a.spi),
            seq_num: u(a.seq),
            ad: octets(a.data),
        }))
    }

    /// `mId`: `[ip4]`, `[ip6]`, `<domain>`, each with an optional
    /// `:port`; `MTP{hex}`; or a device name.
    pub(super) fn mid(&mut self) -> R<Mid> {
        Ok(self.mid_view()?.to_mid())
    }

    /// One transaction, its first word `t` read, added to `list` (and
    /// filled in place there).
    fn transaction(&mut self, t: Tok<'_>, list: &mut SmallList<Transaction>) -> R<()> {
        match t.kw {
            Some(Kw::Trans) => {
                let made = || Transaction::Request(TransactionRequest::default());
                if let Transaction::Request(r) = push_in_place(list, made) {
                    self.transaction_request(r)?;
                }
            }
            Some(Kw::Reply) => {
                let made = || {
                    Transaction::Reply(TransactionReply {
                        transaction_id: 0,
                        imm_ack_required: false,
                        result: TransactionResult::ActionReplies(SmallList::new()),
                        segment_number: None,
                        segmentation_complete: false,
                    })
                };
                if let Transaction::Reply(r) = push_in_place(list, made) {
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
                    let (first_ack, last_ack) = p.transaction_ack()?;
                    acks.push(TransactionAck {
                        first_ack,
                        last_ack,
                    });
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

    fn transaction_request(&mut self, r: &mut TransactionRequest) -> R<()> {
        // `Transaction {`, `Transaction = {` and `Transaction = id {`;
        // a missing id decodes as 0.
        if self.eat(b'=') && self.peek() != Some(b'{') {
            r.transaction_id = self.u32_word("a transaction id")?;
        }
        self.braced(|p| p.action_request(push_in_place(&mut r.actions, ActionRequest::default)))
    }

    fn action_request(&mut self, a: &mut ActionRequest) -> R<()> {
        self.expect_kw(Kw::Ctx, "Context")?;
        self.equal()?;
        a.context_id = self.context_id()?;
        self.open()?;
        let mut ctx = ContextRequest::default();
        let mut audit: Option<ContextAttrAuditRequest> = None;
        {
            // `contextRequest [COMMA commandRequestList]` or the commands
            // alone: at least one item, context items before commands.
            self.items(|p| {
                const WHAT: &str = "a command or context property";
                let t = p.token(WHAT)?;
                let after_command = !a.command_requests.is_empty();
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
                        Kw::Topology
                        | Kw::Priority
                        | Kw::Emergency
                        | Kw::EmergencyOff
                        | Kw::Ieps
                        | Kw::ContextAttr,
                    ) if after_command => Err(p.invalid(t.at, t.text, CONTEXT_AFTER_COMMAND)),
                    Some(
                        k @ (Kw::Topology
                        | Kw::Priority
                        | Kw::Emergency
                        | Kw::EmergencyOff
                        | Kw::Ieps
                        | Kw::ContextAttr),
                    ) => p.context_property(t.at, k, &mut ctx),
                    Some(Kw::ContextAudit) if after_command => {
                        Err(p.invalid(t.at, t.text, CONTEXT_AFTER_COMMAND))
                    }
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

    /// `= code { "text" }` after `Error`.
    pub(super) fn error_descriptor_body(&mut self) -> R<ErrorDescriptor> {
        let (error_code, error_text) = self.error_code()?;
        Ok(ErrorDescriptor {
            error_code,
            error_text: error_text.map(text),
        })
    }

    /// `Error = code { "text" }`, the keyword not yet read.
    pub(super) fn error_descriptor(&mut self) -> R<ErrorDescriptor> {
        self.expect_kw(Kw::Error, "Error")?;
        self.error_descriptor_body()
    }
}

/// What the grammar says of a context property after a command.
pub(super) const CONTEXT_AFTER_COMMAND: &str =
    "place for a context property (context properties come before the commands)";

const TRANSACTION: &str =
    "a transaction (Transaction, Reply, Pending, TransactionResponseAck or Segment)";
