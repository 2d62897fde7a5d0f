//! BER → model: action and command replies, audit results.

use super::*;

impl Dec<'_> {
    pub(super) fn action_reply(&self, t: Span, a: &mut ActionReply) -> D<()> {
        let (mut ctx, mut reps) = (false, false);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => {
                    a.context_id = ContextId(self.u32v(x, "ContextID")?);
                    ctx = true;
                }
                0xA1 => a.error_descriptor = Some(self.error_descriptor(x)?),
                0xA2 => a.context_reply = Some(self.context_request(x)?),
                0xA3 => {
                    a.command_reply.clear();
                    let mut l = self.children(x)?;
                    while let Some(c) = self.next(&mut l)? {
                        if let Some(rep) = self.command_reply(c)? {
                            a.command_reply.push(rep);
                        }
                    }
                    reps = true;
                }
                _ => {}
            }
        }
        if !ctx {
            return Err(missing(t, "contextId"));
        }
        if !reps {
            return Err(missing(t, "commandReply"));
        }
        Ok(())
    }

    pub(super) fn command_reply(&self, t: Span) -> D<Option<CommandReply>> {
        Ok(Some(match t.tag() {
            0xA0 => CommandReply::Add(self.amms_reply(t)?),
            0xA1 => CommandReply::Move(self.amms_reply(t)?),
            0xA2 => CommandReply::Modify(self.amms_reply(t)?),
            0xA3 => CommandReply::Subtract(self.amms_reply(t)?),
            0xA4 => CommandReply::AuditCapability(self.audit_reply(t)?),
            0xA5 => CommandReply::AuditValue(self.audit_reply(t)?),
            0xA6 => {
                let (mut ids, mut err) = (None, None);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0xA0 => ids = Some(self.term_ids(x)?),
                        0xA1 => err = Some(self.error_descriptor(x)?),
                        _ => {}
                    }
                }
                CommandReply::Notify(NotifyReply {
                    termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
                    error_descriptor: err,
                })
            }
            0xA7 => {
                let (mut ids, mut res) = (None, None);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0xA0 => ids = Some(self.term_ids(x)?),
                        0xA1 => {
                            let alt = self.first(x, "serviceChangeResult alternative")?;
                            res = Some(match alt.tag() {
                                0xA0 => ServiceChangeResult::ErrorDescriptor(
                                    self.error_descriptor(alt)?,
                                ),
                                0xA1 => ServiceChangeResult::ServiceChangeResParms(
                                    self.sc_res_parm(alt)?,
                                ),
                                _ => {
                                    return Err(unexpected_tag(
                                        alt.offset(),
                                        "errorDescriptor [0] or serviceChangeResParms [1]",
                                        alt.tag(),
                                    ))
                                }
                            });
                        }
                        _ => {}
                    }
                }
                CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                    termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
                    service_change_result: res.ok_or_else(|| missing(t, "serviceChangeResult"))?,
                }))
            }
            _ => return Ok(None),
        }))
    }

    pub(super) fn amms_reply(&self, t: Span) -> D<AmmsReply> {
        let (mut ids, mut audit) = (None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => ids = Some(self.term_ids(x)?),
                0xA1 => audit = Some(self.termination_audit(x)?),
                _ => {}
            }
        }
        Ok(AmmsReply {
            termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
            termination_audit: audit,
        })
    }

    pub(super) fn audit_reply(&self, t: Span) -> D<AuditReply> {
        let alt = self.first(t, "AuditReply alternative")?;
        Ok(match alt.tag() {
            0xA0 => AuditReply::ContextAuditResult(self.term_ids(alt)?.to_vec()),
            0xA1 => AuditReply::Error(self.error_descriptor(alt)?),
            0xA2 | 0xA3 => {
                let (mut id, mut ids, mut res) = (None, None, None);
                let mut r = self.children(alt)?;
                while let Some(x) = self.next(&mut r)? {
                    match (alt.tag(), x.tag()) {
                        (0xA2, 0xA0) => id = Some(self.term_id(x)?),
                        (0xA3, 0xA0) => ids = Some(self.term_ids(x)?),
                        (_, 0xA1) => res = Some(self.termination_audit(x)?),
                        _ => {}
                    }
                }
                let res = res.ok_or_else(|| missing(alt, "terminationAuditResult"))?;
                if alt.tag() == 0xA2 {
                    AuditReply::AuditResult(AuditResult {
                        termination_id: id.ok_or_else(|| missing(alt, "terminationID"))?,
                        termination_audit_result: res,
                    })
                } else {
                    AuditReply::AuditResultTermList(TermListAuditResult {
                        termination_id_list: ids
                            .ok_or_else(|| missing(alt, "terminationIDList"))?
                            .to_vec(),
                        termination_audit_result: res,
                    })
                }
            }
            _ => {
                return Err(unexpected_tag(
                    alt.offset(),
                    "an AuditReply alternative",
                    alt.tag(),
                ))
            }
        })
    }

    pub(super) fn termination_audit(&self, t: Span) -> D<Vec<AuditReturnParameter>> {
        let mut v = Vec::new();
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            let item = match x.tag() {
                0xA0 => AuditReturnParameter::Error(self.error_descriptor(x)?),
                0xA1 => AuditReturnParameter::Media(self.media(x)?),
                0xA2 => AuditReturnParameter::Modem(self.modem(x)?),
                0xA3 => AuditReturnParameter::Mux(self.mux(x)?),
                0xA4 => AuditReturnParameter::Events(self.events(x, EventLevel::First)?),
                0xA5 => AuditReturnParameter::EventBuffer(self.event_buffer(x)?),
                0xA6 => AuditReturnParameter::Signals(self.signals(x)?.into()),
                0xA7 => AuditReturnParameter::DigitMap(self.digit_map(x)?),
                0xA8 => AuditReturnParameter::ObservedEvents(self.observed_events(x)?),
                0xA9 => AuditReturnParameter::Statistics(self.statistics(x)?),
                0xAA => {
                    let mut items = Vec::new();
                    let mut l = self.children(x)?;
                    while let Some(e) = self.next(&mut l)? {
                        expect(e, 0x30, "PackagesItem (SEQUENCE)")?;
                        let (mut n, mut ver) = (None, None);
                        let mut c = self.children(e)?;
                        while let Some(y) = self.next(&mut c)? {
                            match y.tag() {
                                0x80 => n = Some(self.package_name(y)?),
                                0x81 => ver = Some(self.u8v(y, 99, "packageVersion 0..99")?),
                                _ => {}
                            }
                        }
                        items.push(PackagesItem {
                            package_name: n.ok_or_else(|| missing(e, "packageName"))?.into(),
                            package_version: ver.ok_or_else(|| missing(e, "packageVersion"))?,
                        });
                    }
                    AuditReturnParameter::Packages(items)
                }
                0xAB => AuditReturnParameter::EmptyDescriptors(self.audit_descriptor(x)?),
                _ => continue,
            };
            v.push(item);
        }
        Ok(v)
    }
}
