//! BER → model: actions, context properties and command requests.

use super::*;

impl Dec<'_> {
    pub(super) fn action_request(&self, t: Span, a: &mut ActionRequest) -> D<()> {
        let (mut ctx, mut cmds) = (false, false);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => {
                    a.context_id = ContextId(self.u32v(x, "ContextID")?);
                    ctx = true;
                }
                0xA1 => a.context_request = Some(self.context_request(x)?),
                0xA2 => a.context_attr_audit_req = Some(self.context_attr_audit(x)?),
                0xA3 => {
                    a.command_requests.clear();
                    let mut l = self.children(x)?;
                    while let Some(c) = self.next(&mut l)? {
                        expect(c, 0x30, "CommandRequest (SEQUENCE)")?;
                        let cr = push_in_place(&mut a.command_requests, || CommandRequest {
                            command: Command::Add(AmmRequest::default()),
                            optional: false,
                            wildcard_return: false,
                        });
                        self.command_request(c, cr)?;
                    }
                    cmds = true;
                }
                _ => {}
            }
        }
        if !ctx {
            return Err(missing(t, "contextId"));
        }
        if !cmds {
            return Err(missing(t, "commandRequests"));
        }
        Ok(())
    }

    pub(super) fn context_request(&self, t: Span) -> D<ContextRequest> {
        let mut cr = ContextRequest {
            priority: None,
            emergency: None,
            topology_req: None,
            iepscallind: None,
            context_prop: None,
            context_list: None,
        };
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => cr.priority = Some(self.u8v(x, 15, "priority 0..15")?),
                0x81 => cr.emergency = Some(self.boolean(x)?),
                0xA2 => {
                    let mut v = Vec::new();
                    let mut l = self.children(x)?;
                    while let Some(e) = self.next(&mut l)? {
                        expect(e, 0x30, "TopologyRequest (SEQUENCE)")?;
                        v.push(self.topology(e)?);
                    }
                    cr.topology_req = Some(v);
                }
                0x83 => cr.iepscallind = Some(self.boolean(x)?),
                0xA4 => {
                    let mut v = Vec::new();
                    let mut l = self.children(x)?;
                    while let Some(e) = self.next(&mut l)? {
                        expect(e, 0x30, "PropertyParm (SEQUENCE)")?;
                        v.push(self.property_parm(e)?);
                    }
                    cr.context_prop = Some(v);
                }
                0xA5 => {
                    let mut v = Vec::new();
                    let mut l = self.children(x)?;
                    while let Some(e) = self.next(&mut l)? {
                        expect(e, 0x02, "ContextID (INTEGER)")?;
                        v.push(ContextId(self.u32v(e, "ContextID")?));
                    }
                    cr.context_list = Some(v);
                }
                _ => {}
            }
        }
        Ok(cr)
    }

    pub(super) fn topology(&self, t: Span) -> D<TopologyRequest> {
        let (mut from, mut to, mut dir, mut sid, mut ext) = (None, None, None, None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => from = Some(self.term_id(x)?),
                0xA1 => to = Some(self.term_id(x)?),
                0x82 => dir = Some(self.enumerated(x, "topologyDirection 0..2")?),
                0x83 => sid = Some(self.u16v(x, "StreamID")?),
                0x84 => ext = Some(self.enumerated(x, "topologyDirectionExtension 0..1")?),
                _ => {}
            }
        }
        Ok(TopologyRequest {
            termination_from: from.ok_or_else(|| missing(t, "terminationFrom"))?,
            termination_to: to.ok_or_else(|| missing(t, "terminationTo"))?,
            topology_direction: dir.ok_or_else(|| missing(t, "topologyDirection"))?,
            stream_id: sid,
            topology_direction_extension: ext,
        })
    }

    pub(super) fn context_attr_audit(&self, t: Span) -> D<ContextAttrAuditRequest> {
        let mut ca = ContextAttrAuditRequest {
            topology: false,
            emergency: false,
            priority: false,
            iepscallind: false,
            context_prop_aud: None,
            select_priority: None,
            select_emergency: None,
            select_iepscallind: None,
            select_logic: None,
        };
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => ca.topology = self.null(x)?,
                0x81 => ca.emergency = self.null(x)?,
                0x82 => ca.priority = self.null(x)?,
                0x83 => ca.iepscallind = self.null(x)?,
                0xA4 => ca.context_prop_aud = Some(self.ind_aud_property_parms(x)?),
                0x85 => ca.select_priority = Some(self.u8v(x, 15, "selectpriority 0..15")?),
                0x86 => ca.select_emergency = Some(self.boolean(x)?),
                0x87 => ca.select_iepscallind = Some(self.boolean(x)?),
                0xA8 => {
                    let mut c = self.children(x)?;
                    if let Some(alt) = self.next(&mut c)? {
                        ca.select_logic = match alt.tag() {
                            0x80 => Some(SelectLogic::And),
                            0x81 => Some(SelectLogic::Or),
                            _ => None,
                        };
                    }
                }
                _ => {}
            }
        }
        Ok(ca)
    }

    pub(super) fn command_request(&self, t: Span, cr: &mut CommandRequest) -> D<()> {
        let mut cmd = false;
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => {
                    let alt = self.first(x, "Command alternative")?;
                    self.command(alt, &mut cr.command)?;
                    cmd = true;
                }
                0x81 => cr.optional = self.null(x)?,
                0x82 => cr.wildcard_return = self.null(x)?,
                _ => {}
            }
        }
        if !cmd {
            return Err(missing(t, "command"));
        }
        Ok(())
    }

    /// Writes the command `t` into `out`.
    pub(super) fn command(&self, t: Span, out: &mut Command) -> D<()> {
        let amm = |out: &mut Command, which: fn(AmmRequest) -> Command| {
            *out = which(AmmRequest::default());
            match out {
                Command::Add(a) | Command::Move(a) | Command::Modify(a) => self.amm_request(t, a),
                _ => unreachable!("set on the line above"),
            }
        };
        *out = match t.tag() {
            0xA0 => return amm(out, Command::Add),
            0xA1 => return amm(out, Command::Move),
            0xA2 => return amm(out, Command::Modify),
            0xA3 => {
                let (mut ids, mut ad) = (None, None);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0xA0 => ids = Some(self.term_ids(x)?),
                        0xA1 => ad = Some(self.audit_descriptor(x)?),
                        _ => {}
                    }
                }
                Command::Subtract(SubtractRequest {
                    termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
                    audit_descriptor: ad,
                })
            }
            0xA4 => Command::AuditCapability(self.audit_request(t)?),
            0xA5 => Command::AuditValue(self.audit_request(t)?),
            0xA6 => {
                let (mut ids, mut oe, mut err) = (None, None, None);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0xA0 => ids = Some(self.term_ids(x)?),
                        0xA1 => oe = Some(self.observed_events(x)?),
                        0xA2 => err = Some(self.error_descriptor(x)?),
                        _ => {}
                    }
                }
                Command::Notify(NotifyRequest {
                    termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
                    observed_events_descriptor: oe
                        .ok_or_else(|| missing(t, "observedEventsDescriptor"))?,
                    error_descriptor: err,
                })
            }
            0xA7 => {
                let (mut ids, mut parms) = (None, None);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0xA0 => ids = Some(self.term_ids(x)?),
                        0xA1 => parms = Some(self.service_change_parm(x)?),
                        _ => {}
                    }
                }
                Command::ServiceChange(Box::new(ServiceChangeRequest {
                    termination_ids: ids.ok_or_else(|| missing(t, "terminationID"))?,
                    service_change_parms: parms.ok_or_else(|| missing(t, "serviceChangeParms"))?,
                }))
            }
            _ => return Err(unexpected_tag(t.offset(), "a Command alternative", t.tag())),
        };
        Ok(())
    }

    pub(super) fn amm_request(&self, t: Span, out: &mut AmmRequest) -> D<()> {
        let (mut ids, mut descs) = (false, false);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => {
                    out.termination_ids = self.term_ids(x)?;
                    ids = true;
                }
                0xA1 => {
                    let v = &mut out.descriptors;
                    v.clear();
                    let mut l = self.children(x)?;
                    while let Some(d) = self.next(&mut l)? {
                        let item = match d.tag() {
                            0xA0 => AmmDescriptor::Media(self.media(d)?),
                            0xA1 => AmmDescriptor::Modem(self.modem(d)?),
                            0xA2 => AmmDescriptor::Mux(self.mux(d)?),
                            0xA3 => AmmDescriptor::Events(self.events(d, EventLevel::First)?),
                            0xA4 => AmmDescriptor::EventBuffer(self.event_buffer(d)?),
                            0xA5 => AmmDescriptor::Signals(self.signals(d)?.into()),
                            0xA6 => AmmDescriptor::DigitMap(self.digit_map(d)?),
                            0xA7 => AmmDescriptor::Audit(self.audit_descriptor(d)?),
                            0xA8 => AmmDescriptor::Statistics(self.statistics(d)?),
                            _ => continue,
                        };
                        v.push(item);
                    }
                    descs = true;
                }
                _ => {}
            }
        }
        if !ids {
            return Err(missing(t, "terminationID"));
        }
        if !descs {
            return Err(missing(t, "descriptors"));
        }
        Ok(())
    }

    pub(super) fn audit_request(&self, t: Span) -> D<AuditRequest> {
        let (mut id, mut ad, mut list) = (None, None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => id = Some(self.term_id(x)?),
                0xA1 => ad = Some(self.audit_descriptor(x)?),
                0xA2 => list = Some(self.term_ids(x)?),
                _ => {}
            }
        }
        Ok(AuditRequest {
            termination_id: id.ok_or_else(|| missing(t, "terminationID"))?,
            audit_descriptor: ad.ok_or_else(|| missing(t, "auditDescriptor"))?,
            termination_id_list: list.map(SmallVec::into_vec),
        })
    }
}
