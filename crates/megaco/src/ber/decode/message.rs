//! BER → model: the message, its header (authentication, MId) and transactions.

use super::*;

impl Dec<'_> {
    pub(super) fn megaco_message(&self, t: Span) -> D<MegacoMessage> {
        let mut out = MegacoMessage {
            auth_header: None,
            mess: Message {
                version: 0,
                mid: Mid::Device(CompactString::default()),
                body: MessageBody::Transactions(SmallList::new()),
            },
        };
        let mut mess = false;
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => out.auth_header = Some(self.auth(x)?),
                0xA1 => {
                    self.message(x, &mut out.mess)?;
                    mess = true;
                }
                _ => {}
            }
        }
        if !mess {
            return Err(missing(t, "Message"));
        }
        Ok(out)
    }

    /// A message whose usual header [`super::super::header`] has read:
    /// its transactions, `t`, are what is left to read.
    pub(super) fn usual_message(&self, version: u8, mid: Ip4Address, t: Span) -> D<MegacoMessage> {
        let mut out = MegacoMessage {
            auth_header: None,
            mess: Message {
                version,
                mid: Mid::Ip4(mid),
                body: MessageBody::Transactions(SmallList::new()),
            },
        };
        self.transactions(t, &mut out.mess.body)?;
        Ok(out)
    }

    /// The `transactions [1]` alternative of a message body, read into
    /// `body` in place.
    fn transactions(&self, t: Span, body: &mut MessageBody) -> D<()> {
        *body = MessageBody::Transactions(SmallList::new());
        let MessageBody::Transactions(ts) = body else {
            unreachable!("set on the line above")
        };
        let mut l = self.children(t)?;
        while let Some(tr) = self.next(&mut l)? {
            self.transaction(tr, ts)?;
        }
        Ok(())
    }

    pub(super) fn auth(&self, t: Span) -> D<AuthenticationHeader> {
        let (mut spi, mut sn, mut ad) = (None, None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => {
                    spi = Some(u32::from_be_bytes(
                        self.fixed(x, "SecurityParmIndex (4 octets)")?,
                    ))
                }
                0x81 => sn = Some(u32::from_be_bytes(self.fixed(x, "SequenceNum (4 octets)")?)),
                0x82 => ad = Some(self.content(x).to_vec()),
                _ => {}
            }
        }
        Ok(AuthenticationHeader {
            sec_parm_index: spi.ok_or_else(|| missing(t, "secParmIndex"))?,
            seq_num: sn.ok_or_else(|| missing(t, "seqNum"))?,
            ad: ad.ok_or_else(|| missing(t, "ad"))?,
        })
    }

    pub(super) fn message(&self, t: Span, out: &mut Message) -> D<()> {
        let mut r = self.children(t)?;
        out.version = self.message_version(t, &mut r)?;
        let (mut mid, mut body) = (false, false);
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA1 => {
                    out.mid = self.mid_choice(x)?;
                    mid = true;
                }
                0xA2 => {
                    let alt = self.first(x, "messageBody alternative")?;
                    match alt.tag() {
                        0xA0 => out.body = MessageBody::Error(self.error_descriptor(alt)?),
                        0xA1 => self.transactions(alt, &mut out.body)?,
                        _ => {
                            return Err(unexpected_tag(
                                alt.offset(),
                                "messageError [0] or transactions [1]",
                                alt.tag(),
                            ))
                        }
                    }
                    body = true;
                }
                _ => {}
            }
        }
        if !mid {
            return Err(missing(t, "Message.mId"));
        }
        if !body {
            return Err(missing(t, "Message.messageBody"));
        }
        Ok(())
    }

    /// An explicitly tagged MId.
    pub(super) fn mid_choice(&self, t: Span) -> D<Mid> {
        let mut c = self.children(t)?;
        let alt = self
            .next(&mut c)?
            .ok_or_else(|| missing(t, "MId alternative"))?;
        Ok(match alt.tag() {
            0xA0 => Mid::Ip4(self.ip4(alt)?),
            0xA1 => Mid::Ip6(self.ip6(alt)?),
            0xA2 => Mid::Domain(self.domain(alt)?),
            0x83 => Mid::Device(self.string(alt)),
            0x84 => Mid::Mtp(self.mtp(alt, self.standard)?),
            _ => {
                return Err(unexpected_tag(
                    alt.offset(),
                    "an MId alternative",
                    alt.tag(),
                ))
            }
        })
    }

    pub(super) fn ip4(&self, t: Span) -> D<Ip4Address> {
        let (mut a, mut port) = (None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => a = Some(self.fixed(x, "IPv4 address (4 octets)")?),
                0x81 => port = Some(self.u16v(x, "port number")?),
                _ => {}
            }
        }
        Ok(Ip4Address {
            address: a.ok_or_else(|| missing(t, "IP4Address.address"))?,
            port,
        })
    }

    pub(super) fn ip6(&self, t: Span) -> D<Ip6Address> {
        let (mut a, mut port) = (None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => a = Some(self.fixed(x, "IPv6 address (16 octets)")?),
                0x81 => port = Some(self.u16v(x, "port number")?),
                _ => {}
            }
        }
        Ok(Ip6Address {
            address: a.ok_or_else(|| missing(t, "IP6Address.address"))?,
            port,
        })
    }

    pub(super) fn domain(&self, t: Span) -> D<DomainName> {
        let (mut n, mut port) = (None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => n = Some(self.string(x)),
                0x81 => port = Some(self.u16v(x, "port number")?),
                _ => {}
            }
        }
        Ok(DomainName {
            name: n.ok_or_else(|| missing(t, "DomainName.name"))?,
            port,
        })
    }

    pub(super) fn error_descriptor(&self, t: Span) -> D<ErrorDescriptor> {
        let (mut code, mut text) = (None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => code = Some(self.u16v(x, "ErrorCode 0..65535")?),
                0x81 => text = Some(self.string(x)),
                _ => {}
            }
        }
        Ok(ErrorDescriptor {
            error_code: code.ok_or_else(|| missing(t, "errorCode"))?,
            error_text: text,
        })
    }

    /// Appends the transaction `t` to `out` (an unknown alternative is
    /// skipped).
    pub(super) fn transaction(&self, t: Span, out: &mut SmallList<Transaction>) -> D<()> {
        let tr = match t.tag() {
            0xA0 => {
                let Transaction::Request(req) =
                    push_in_place(out, || Transaction::Request(TransactionRequest::default()))
                else {
                    unreachable!("pushed on the line above")
                };
                let (mut id, mut actions) = (false, false);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0x80 => {
                            req.transaction_id = self.u32v(x, "TransactionId")?;
                            id = true;
                        }
                        0xA1 => {
                            req.actions.clear();
                            let mut l = self.children(x)?;
                            while let Some(a) = self.next(&mut l)? {
                                expect(a, 0x30, "ActionRequest (SEQUENCE)")?;
                                self.action_request(
                                    a,
                                    push_in_place(&mut req.actions, ActionRequest::default),
                                )?;
                            }
                            actions = true;
                        }
                        _ => {}
                    }
                }
                if !id {
                    return Err(missing(t, "transactionId"));
                }
                if !actions {
                    return Err(missing(t, "actions"));
                }
                return Ok(());
            }
            0xA1 => {
                let mut id = None;
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    if x.tag() == 0x80 {
                        id = Some(self.u32v(x, "TransactionId")?);
                    }
                }
                Transaction::Pending(TransactionPending {
                    transaction_id: id.ok_or_else(|| missing(t, "transactionId"))?,
                })
            }
            0xA2 => {
                let Transaction::Reply(rep) = push_in_place(out, || {
                    Transaction::Reply(TransactionReply {
                        transaction_id: 0,
                        imm_ack_required: false,
                        result: TransactionResult::ActionReplies(SmallList::new()),
                        segment_number: None,
                        segmentation_complete: false,
                    })
                }) else {
                    unreachable!("pushed on the line above")
                };
                let (mut id, mut res) = (false, false);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0x80 => {
                            rep.transaction_id = self.u32v(x, "TransactionId")?;
                            id = true;
                        }
                        0x81 => rep.imm_ack_required = self.null(x)?,
                        0xA2 => {
                            let alt = self.first(x, "transactionResult alternative")?;
                            match alt.tag() {
                                0xA0 => {
                                    rep.result =
                                        TransactionResult::Error(self.error_descriptor(alt)?)
                                }
                                0xA1 => {
                                    rep.result = TransactionResult::ActionReplies(SmallList::new());
                                    let TransactionResult::ActionReplies(v) = &mut rep.result
                                    else {
                                        unreachable!("set on the line above")
                                    };
                                    let mut l = self.children(alt)?;
                                    while let Some(a) = self.next(&mut l)? {
                                        expect(a, 0x30, "ActionReply (SEQUENCE)")?;
                                        self.action_reply(
                                            a,
                                            push_in_place(v, ActionReply::default),
                                        )?;
                                    }
                                }
                                _ => {
                                    return Err(unexpected_tag(
                                        alt.offset(),
                                        "transactionError [0] or actionReplies [1]",
                                        alt.tag(),
                                    ))
                                }
                            }
                            res = true;
                        }
                        0x83 => rep.segment_number = Some(self.u16v(x, "SegmentNumber")?),
                        0x84 => rep.segmentation_complete = self.null(x)?,
                        _ => {}
                    }
                }
                if !id {
                    return Err(missing(t, "transactionId"));
                }
                if !res {
                    return Err(missing(t, "transactionResult"));
                }
                return Ok(());
            }
            0xA3 => {
                let mut acks = Vec::new();
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    expect(x, 0x30, "TransactionAck (SEQUENCE)")?;
                    let (mut first, mut last) = (None, None);
                    let mut c = self.children(x)?;
                    while let Some(y) = self.next(&mut c)? {
                        match y.tag() {
                            0x80 => first = Some(self.u32v(y, "firstAck")?),
                            0x81 => last = Some(self.u32v(y, "lastAck")?),
                            _ => {}
                        }
                    }
                    acks.push(TransactionAck {
                        first_ack: first.ok_or_else(|| missing(x, "firstAck"))?,
                        last_ack: last,
                    });
                }
                Transaction::ResponseAck(acks)
            }
            0xA4 => {
                let (mut id, mut seg, mut done) = (None, None, false);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0x80 => id = Some(self.u32v(x, "TransactionId")?),
                        0x81 => seg = Some(self.u16v(x, "SegmentNumber")?),
                        0x82 => done = self.null(x)?,
                        _ => {}
                    }
                }
                Transaction::SegmentReply(SegmentReply {
                    transaction_id: id.ok_or_else(|| missing(t, "transactionId"))?,
                    segment_number: seg.ok_or_else(|| missing(t, "segmentNumber"))?,
                    segmentation_complete: done,
                })
            }
            _ => return Ok(()),
        };
        out.push(tr);
        Ok(())
    }
}
