//! The message grammar: one method per construct, following the layout of
//! OTP's `megaco_text_gen_v1/v2/v3` generators. `s` is the indentation
//! depth of the construct being written (ignored by the compact form).
use super::{invalid, Enc, R};
use crate::model::*;

impl Enc<'_> {
    pub(super) fn megaco_message(&mut self, msg: &MegacoMessage) -> R {
        if let Some(auth) = &msg.auth_header {
            self.auth_header(auth)?;
        }
        self.message_body_start(&msg.mess)?;
        match &msg.mess.body {
            MessageBody::Error(ed) => self.error_descriptor(ed),
            MessageBody::Transactions(ts) => {
                if ts.is_empty() {
                    return Err(invalid("transactions", "a message needs at least one"));
                }
                for (i, t) in ts.iter().enumerate() {
                    // A segment reply ends in a number or a token, not a
                    // bracket: without a separator the next transaction's
                    // keyword would run into it (`SM=5/35SM=…`, one word
                    // to the scanner). OTP writes nothing there; we write
                    // the line break that also follows the message header.
                    if i > 0 && matches!(ts[i - 1], Transaction::SegmentReply(_)) {
                        self.byte(b'\n');
                    }
                    self.transaction(t)?;
                }
                Ok(())
            }
        }
    }

    fn auth_header(&mut self, a: &AuthenticationHeader) -> R {
        if a.ad.len() < 12 || a.ad.len() > 32 {
            return Err(invalid(
                "authentication data",
                format!("{} octets, needs 12 to 32", a.ad.len()),
            ));
        }
        self.raw(self.t.auth);
        self.eq();
        self.raw(b"0x");
        self.hex_octets(&a.sec_parm_index.to_be_bytes());
        self.raw(b":0x");
        self.hex_octets(&a.seq_num.to_be_bytes());
        self.raw(b":0x");
        self.hex_octets(&a.ad);
        self.byte(b'\n');
        Ok(())
    }

    // ---- addresses ------------------------------------------------------

    pub(super) fn mid(&mut self, mid: &Mid) -> R {
        match mid {
            Mid::Ip4(a) => self.ip4(a),
            Mid::Ip6(a) => self.ip6(a),
            Mid::Domain(d) => self.domain(d),
            Mid::Device(p) => self.name(p, "device name"),
            Mid::Mtp(m) => self.mtp(m),
        }
    }

    fn port(&mut self, port: Option<u16>) {
        if let Some(p) = port {
            self.byte(b':');
            self.num(p as u64);
        }
    }

    pub(super) fn ip4(&mut self, a: &Ip4Address) -> R {
        self.byte(b'[');
        for (i, o) in a.address.iter().enumerate() {
            if i > 0 {
                self.byte(b'.');
            }
            self.num(*o as u64);
        }
        self.byte(b']');
        self.port(a.port);
        Ok(())
    }

    pub(super) fn ip6(&mut self, a: &Ip6Address) -> R {
        self.byte(b'[');
        let groups: [u16; 8] =
            std::array::from_fn(|i| u16::from_be_bytes([a.address[2 * i], a.address[2 * i + 1]]));
        self.ip6_groups(&groups);
        self.byte(b']');
        self.port(a.port);
        Ok(())
    }

    /// The address groups the way OTP's generator writes them: the first
    /// run of zero groups is compressed (`::`), a single leading zero group
    /// is written `0:`, later zero groups are written `0`.
    pub(super) fn ip6_groups(&mut self, g: &[u16; 8]) {
        let (mut i, mut pad, mut first) = if g[0] == 0 {
            (1, 1usize, true)
        } else {
            (0, 0, false)
        };
        let mut padded = false;
        while i < 8 {
            let last = i == 7;
            let x = g[i];
            if last {
                if x == 0 {
                    if pad == 0 || padded {
                        self.byte(b'0');
                    } else if first {
                        self.raw(b"::");
                    } else {
                        self.byte(b':');
                    }
                } else if pad == 0 || padded {
                    self.hex(x as u32);
                } else if pad == 1 {
                    self.raw(b"0:");
                    self.hex(x as u32);
                } else if first {
                    self.raw(b"::");
                    self.hex(x as u32);
                } else {
                    self.byte(b':');
                    self.hex(x as u32);
                }
                return;
            }
            if x == 0 {
                if padded {
                    self.raw(b"0:");
                    pad = 0;
                    first = false;
                } else {
                    pad += 1;
                }
            } else if pad == 0 {
                self.hex(x as u32);
                self.byte(b':');
                first = false;
            } else if pad == 1 {
                self.raw(b"0:");
                self.hex(x as u32);
                self.byte(b':');
                pad = 0;
                first = false;
            } else {
                if first {
                    self.raw(b"::");
                } else {
                    self.byte(b':');
                }
                self.hex(x as u32);
                self.byte(b':');
                pad = 0;
                padded = true;
                first = false;
            }
            i += 1;
        }
    }

    pub(super) fn domain(&mut self, d: &DomainName) -> R {
        self.byte(b'<');
        self.name(&d.name, "domain name")?;
        self.byte(b'>');
        self.port(d.port);
        Ok(())
    }

    pub(super) fn mtp(&mut self, m: &str) -> R {
        // `MTP { 4*8 HEXDIG }`: the decoder accepts nothing else.
        if m.is_empty() || !m.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid("MTP address", "needs hexadecimal digits"));
        }
        self.raw(self.t.mtp);
        self.lb();
        self.octet_string(m);
        self.rb();
        Ok(())
    }

    // ---- transactions ---------------------------------------------------

    fn transaction(&mut self, t: &Transaction) -> R {
        match t {
            Transaction::Request(r) => {
                self.raw(self.t.trans);
                self.eq();
                self.num(r.transaction_id as u64);
                self.lb_i(0);
                if r.actions.is_empty() {
                    return Err(invalid("transaction request", "no actions"));
                }
                for (i, a) in r.actions.iter().enumerate() {
                    if i > 0 {
                        self.comma_i(1);
                    }
                    self.action_request(a, 1)?;
                }
                self.rb_i(0);
            }
            Transaction::Pending(p) => {
                self.raw(self.t.pending);
                self.eq();
                self.num(p.transaction_id as u64);
                self.lb_i(0);
                self.rb_i(0);
            }
            Transaction::Reply(r) => self.transaction_reply(r)?,
            Transaction::ResponseAck(acks) => {
                if acks.is_empty() {
                    return Err(invalid("transaction response ack", "empty"));
                }
                self.raw(self.t.response_ack);
                self.lb_i(0);
                for (i, a) in acks.iter().enumerate() {
                    if i > 0 {
                        self.comma_i(0);
                        // OTP's v1 generator writes the inner indentation
                        // once more after each comma.
                        if self.v == 1 {
                            self.tabs_if_pretty(1);
                        }
                    }
                    self.num(a.first_ack as u64);
                    if let Some(l) = a.last_ack {
                        self.byte(b'-');
                        self.num(l as u64);
                    }
                }
                self.rb_i(0);
            }
            Transaction::SegmentReply(sr) => {
                self.raw(self.t.message_segment);
                self.eq();
                self.num(sr.transaction_id as u64);
                self.byte(b'/');
                self.num(sr.segment_number as u64);
                if sr.segmentation_complete {
                    self.byte(b'/');
                    self.raw(self.t.segmentation_complete);
                }
            }
        }
        Ok(())
    }

    fn tabs_if_pretty(&mut self, n: usize) {
        if self.pretty {
            self.tabs(n);
        }
    }

    fn transaction_reply(&mut self, r: &TransactionReply) -> R {
        self.raw(self.t.reply);
        self.eq();
        self.num(r.transaction_id as u64);
        if self.v >= 3 {
            match r.segment_number {
                Some(n) => {
                    self.byte(b'/');
                    self.num(n as u64);
                    if r.segmentation_complete {
                        self.byte(b'/');
                        self.raw(self.t.segmentation_complete);
                    }
                }
                None if r.segmentation_complete => {
                    return Err(invalid(
                        "transaction reply",
                        "segmentation complete without a segment number",
                    ))
                }
                None => {}
            }
        }
        self.lb_i(0);
        if r.imm_ack_required {
            self.raw(self.t.imm_ack_required);
            self.comma_i(1);
        }
        match &r.result {
            TransactionResult::Error(ed) => self.error_descriptor(ed)?,
            TransactionResult::ActionReplies(ars) => {
                if ars.is_empty() {
                    return Err(invalid("transaction reply", "no action replies"));
                }
                for (i, a) in ars.iter().enumerate() {
                    if i > 0 {
                        self.comma_i(1);
                    }
                    self.action_reply(a, 1)?;
                }
            }
        }
        self.rb_i(0);
        Ok(())
    }

    pub(super) fn error_descriptor(&mut self, ed: &ErrorDescriptor) -> R {
        if ed.error_code > 999 {
            return Err(invalid("error code", "above 999"));
        }
        self.raw(self.t.error);
        self.eq();
        self.num(ed.error_code as u64);
        self.lb();
        if let Some(text) = &ed.error_text {
            self.quoted_string(text, "error text")?;
        }
        self.rb();
        Ok(())
    }

    fn context_id(&mut self, c: ContextId) {
        match c {
            ContextId::ALL => self.byte(b'*'),
            ContextId::NULL => self.byte(b'-'),
            ContextId::CHOOSE => self.byte(b'$'),
            ContextId(n) => self.num(n as u64),
        }
    }

    // ---- actions --------------------------------------------------------

    fn action_request(&mut self, a: &ActionRequest, s: usize) -> R {
        self.raw(self.t.ctx);
        self.eq();
        self.context_id(a.context_id);
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        if self.v >= 3 {
            if let Some(cr) = &a.context_request {
                self.context_request_items(cr, &mut sep, s1)?;
            }
            if let Some(caar) = &a.context_attr_audit_req {
                self.item(&mut sep, s1, |e| e.context_attr_audit_v3(caar, s1))?;
            }
        } else {
            if let Some(caar) = &a.context_attr_audit_req {
                self.item(&mut sep, s1, |e| e.context_attr_audit_v1(caar, s1))?;
            }
            if let Some(cr) = &a.context_request {
                self.context_request_items(cr, &mut sep, s1)?;
            }
        }
        for c in &a.command_requests {
            self.item(&mut sep, s1, |e| e.command_request(c, s1))?;
        }
        self.rb_i(s);
        Ok(())
    }

    /// The items of a ContextRequest, as elements of the enclosing list.
    fn context_request_items(&mut self, cr: &ContextRequest, sep: &mut bool, s: usize) -> R {
        if let Some(p) = cr.priority {
            self.item(sep, s, |e| {
                e.raw(e.t.priority);
                e.eq();
                e.num(p as u64);
                Ok(())
            })?;
        }
        if let Some(em) = cr.emergency {
            self.item(sep, s, |e| {
                if em {
                    e.raw(e.t.emergency);
                } else if e.v >= 2 {
                    e.emergency_off();
                }
                Ok(())
            })?;
        }
        if let Some(tr) = &cr.topology_req {
            if tr.is_empty() {
                return Err(invalid("topology", "no topology triples"));
            }
            self.item(sep, s, |e| e.topology(tr, s))?;
        }
        if self.v >= 3 {
            if let Some(ieps) = cr.iepscallind {
                self.item(sep, s, |e| {
                    e.ieps_value(ieps);
                    Ok(())
                })?;
            }
            if let Some(props) = &cr.context_prop {
                if !props.is_empty() {
                    self.item(sep, s, |e| {
                        e.raw(e.t.context_attr);
                        e.lb_i(s);
                        for (i, p) in props.iter().enumerate() {
                            if i > 0 {
                                e.comma_i(s);
                            }
                            e.property_parm(p, s)?;
                        }
                        e.rb_i(s);
                        Ok(())
                    })?;
                }
            }
            if let Some(list) = &cr.context_list {
                if !list.is_empty() {
                    self.item(sep, s, |e| {
                        e.raw(e.t.context_attr);
                        e.lb_i(s);
                        e.raw(e.t.context_list);
                        e.eq();
                        e.lb_i(s + 1);
                        for (i, c) in list.iter().enumerate() {
                            if i > 0 {
                                e.comma_i(s + 2);
                            }
                            e.context_id(*c);
                        }
                        e.rb_i(s + 1);
                        e.rb_i(s);
                        Ok(())
                    })?;
                }
            }
        }
        Ok(())
    }

    fn emergency_off(&mut self) {
        if self.pretty && self.v < 3 {
            self.raw(super::tokens::PRETTY_V2_EMERGENCY_OFF);
        } else {
            self.raw(self.t.emergency_off);
        }
    }

    pub(super) fn on_off(&mut self, b: bool) {
        self.raw(if b { self.t.on } else { self.t.off });
    }

    pub(super) fn ieps_value(&mut self, b: bool) {
        self.raw(self.t.ieps);
        self.eq();
        self.on_off(b);
    }

    fn topology(&mut self, tr: &[TopologyRequest], s: usize) -> R {
        self.raw(self.t.topology);
        self.lb_i(s);
        let s1 = s + 1;
        // v1/v2 indent the parts of a triple one level deeper than v3.
        let si = if self.v >= 3 { s1 } else { s1 + 1 };
        for (i, t) in tr.iter().enumerate() {
            if i > 0 {
                self.comma_i(s1);
            }
            self.termination_id(&t.termination_from)?;
            self.comma_i(si);
            self.termination_id(&t.termination_to)?;
            self.comma_i(si);
            self.raw(match t.topology_direction {
                TopologyDirection::Bothway => self.t.bothway,
                TopologyDirection::Isolate => self.t.isolate,
                TopologyDirection::Oneway => self.t.oneway,
            });
            if self.v >= 2 {
                if let Some(sid) = t.stream_id {
                    self.comma_i(si);
                    self.event_stream(sid);
                }
            }
            if self.v >= 3 {
                if let Some(ext) = t.topology_direction_extension {
                    self.comma_i(si);
                    self.raw(match ext {
                        TopologyDirectionExtension::OnewayExternal => self.t.oneway_external,
                        TopologyDirectionExtension::OnewayBoth => self.t.oneway_both,
                    });
                }
            }
        }
        self.rb_i(s);
        Ok(())
    }

    /// `Stream = id`.
    pub(super) fn event_stream(&mut self, sid: u16) {
        self.raw(self.t.stream);
        self.eq();
        self.num(sid as u64);
    }

    fn context_attr_audit_v1(&mut self, c: &ContextAttrAuditRequest, s: usize) -> R {
        // Nothing to audit: no `ContextAudit { }`, which no parser reads.
        if !(c.topology || c.emergency || c.priority) {
            return Ok(());
        }
        self.raw(self.t.context_audit);
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        if c.topology {
            self.item_tok(&mut sep, s1, self.t.topology);
        }
        if c.emergency {
            self.item_tok(&mut sep, s1, self.t.emergency);
        }
        if c.priority {
            self.item_tok(&mut sep, s1, self.t.priority);
        }
        self.rb_i(s);
        Ok(())
    }

    fn context_attr_audit_v3(&mut self, c: &ContextAttrAuditRequest, s: usize) -> R {
        // AND, the default select logic, is not written (as OTP).
        let writes_nothing =
            c.is_empty() || (c.select_logic == Some(SelectLogic::And) && c.is_empty_but_logic());
        if writes_nothing {
            return Ok(());
        }
        self.raw(self.t.context_audit);
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        if c.topology {
            self.item_tok(&mut sep, s1, self.t.topology);
        }
        if c.emergency {
            self.item_tok(&mut sep, s1, self.t.emergency);
        }
        if c.priority {
            self.item_tok(&mut sep, s1, self.t.priority);
        }
        if c.iepscallind {
            self.item_tok(&mut sep, s1, self.t.ieps);
        }
        if let Some(cpa) = &c.context_prop_aud {
            self.ind_aud_property_parms(cpa, &mut sep, s1)?;
        }
        if let Some(p) = c.select_priority {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.priority);
                e.eq();
                e.num(p as u64);
                Ok(())
            })?;
        }
        if let Some(em) = c.select_emergency {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.emergency_value);
                e.eq();
                e.raw(if em { e.t.emergency } else { e.t.emergency_off });
                Ok(())
            })?;
        }
        if let Some(ieps) = c.select_iepscallind {
            self.item(&mut sep, s1, |e| {
                e.ieps_value(ieps);
                Ok(())
            })?;
        }
        if let Some(SelectLogic::Or) = c.select_logic {
            self.item_tok(&mut sep, s1, self.t.or_audit_select);
        }
        self.rb_i(s);
        Ok(())
    }

    fn action_reply(&mut self, a: &ActionReply, s: usize) -> R {
        self.raw(self.t.ctx);
        self.eq();
        self.context_id(a.context_id);
        let ed = a.error_descriptor.as_ref();
        // An empty context reply has no text form (`ContextRequest::is_empty`).
        let cr = a.context_reply.as_ref().filter(|c| !c.is_empty());
        let cmds = &a.command_reply;
        let s1 = s + 1;
        if self.v >= 3 {
            if ed.is_none() && cr.is_none() && cmds.is_empty() {
                return Ok(());
            }
            self.lb_i(s);
            let mut sep = false;
            if let Some(cr) = cr {
                self.context_request_items(cr, &mut sep, s1)?;
                // (`sep`: the context reply wrote something)
                if sep && (ed.is_some() || !cmds.is_empty()) {
                    self.comma_i(s1);
                    sep = false;
                }
            }
            for c in cmds {
                self.item(&mut sep, s1, |e| e.command_reply(c, s1))?;
            }
            if let Some(ed) = ed {
                self.item(&mut sep, s1, |e| e.error_descriptor(ed))?;
            }
            self.rb_i(s);
        } else {
            if cr.is_none() && cmds.is_empty() && ed.is_none() {
                return Err(invalid("action reply", "empty (v1 and v2 need a reply)"));
            }
            self.lb_i(s);
            let mut sep = false;
            if let Some(cr) = cr {
                self.context_request_items(cr, &mut sep, s1)?;
            }
            // (a v1 context reply of only EmergencyOff writes nothing)
            if !sep && cmds.is_empty() && ed.is_none() {
                return Err(invalid("action reply", "empty (v1 and v2 need a reply)"));
            }
            for c in cmds {
                self.item(&mut sep, s1, |e| e.command_reply(c, s1))?;
            }
            if let Some(ed) = ed {
                self.item(&mut sep, s1, |e| e.error_descriptor(ed))?;
            }
            self.rb_i(s);
        }
        Ok(())
    }

    // ---- commands -------------------------------------------------------

    fn command_request(&mut self, c: &CommandRequest, s: usize) -> R {
        if c.optional {
            self.raw(b"O-");
        }
        if c.wildcard_return {
            self.raw(b"W-");
        }
        match &c.command {
            Command::Add(r) => {
                self.raw(self.t.add);
                self.amm_request(r, s)
            }
            Command::Move(r) => {
                self.raw(self.t.move_);
                self.amm_request(r, s)
            }
            Command::Modify(r) => {
                self.raw(self.t.modify);
                self.amm_request(r, s)
            }
            Command::Subtract(r) => {
                self.raw(self.t.subtract);
                self.eq();
                self.term_id_list(&r.termination_ids, s)?;
                if let Some(ad) = &r.audit_descriptor {
                    self.lb_i(s);
                    self.audit_descriptor(ad, s + 1)?;
                    self.rb_i(s);
                }
                Ok(())
            }
            Command::AuditCapability(r) => {
                self.raw(self.t.audit_cap);
                self.audit_request(r, s)
            }
            Command::AuditValue(r) => {
                self.raw(self.t.audit_value);
                self.audit_request(r, s)
            }
            Command::Notify(r) => {
                self.raw(self.t.notify);
                self.notify_request(r, s)
            }
            Command::ServiceChange(r) => {
                self.raw(self.t.service_change);
                self.eq();
                self.term_id_list(&r.termination_ids, s)?;
                self.lb_i(s);
                self.service_change_parm(&r.service_change_parms, s + 1)?;
                self.rb_i(s);
                Ok(())
            }
        }
    }

    fn amm_request(&mut self, r: &AmmRequest, s: usize) -> R {
        self.eq();
        self.term_id_list(&r.termination_ids, s)?;
        let s1 = s + 1;
        self.opt_brackets(s, |e| {
            let mut sep = false;
            for d in &r.descriptors {
                e.item(&mut sep, s1, |e| e.amm_descriptor(d, s1))?;
            }
            Ok(())
        })
    }

    fn amm_descriptor(&mut self, d: &AmmDescriptor, s: usize) -> R {
        match d {
            AmmDescriptor::Media(m) => self.media_descriptor(m, s),
            AmmDescriptor::Modem(m) => self.modem_descriptor(m, s),
            AmmDescriptor::Mux(m) => self.mux_descriptor(m, s),
            AmmDescriptor::Events(ev) => self.events_descriptor(ev, s),
            AmmDescriptor::EventBuffer(eb) => self.event_buffer_descriptor(eb, s),
            AmmDescriptor::Signals(sd) => self.signals_descriptor(sd, s),
            AmmDescriptor::DigitMap(dm) => self.digit_map_descriptor(dm, s),
            AmmDescriptor::Audit(ad) => self.audit_descriptor(ad, s),
            // (bare `Statistics` is an audit-reply item, not a descriptor)
            AmmDescriptor::Statistics(sd) if sd.is_empty() => Err(invalid(
                "statistics descriptor",
                "empty (text needs at least one statistic)",
            )),
            AmmDescriptor::Statistics(sd) => self.statistics_descriptor(sd, s),
        }
    }

    fn audit_request(&mut self, r: &AuditRequest, s: usize) -> R {
        self.eq();
        match &r.termination_id_list {
            Some(list) if self.v >= 3 => {
                if list.first() != Some(&r.termination_id) {
                    return Err(invalid(
                        "audit request",
                        "termination id list must start with the termination id",
                    ));
                }
                self.term_id_list(list, s)?;
            }
            _ => self.termination_id(&r.termination_id)?,
        }
        self.lb_i(s);
        self.audit_descriptor(&r.audit_descriptor, s + 1)?;
        self.rb_i(s);
        Ok(())
    }

    fn notify_request(&mut self, r: &NotifyRequest, s: usize) -> R {
        self.eq();
        self.term_id_list(&r.termination_ids, s)?;
        self.lb_i(s);
        // ObservedEvents is mandatory (as in the ASN.1); an Error follows
        // it in every version, rather than replacing it, so nothing in the
        // model is lost and the decoder reads it back.
        self.observed_events_descriptor(&r.observed_events_descriptor, s + 1)?;
        if let Some(ed) = &r.error_descriptor {
            self.comma();
            self.error_descriptor(ed)?;
        }
        self.rb_i(s);
        Ok(())
    }

    fn command_reply(&mut self, c: &CommandReply, s: usize) -> R {
        match c {
            CommandReply::Add(r) => {
                self.raw(self.t.add);
                self.amms_reply(r, s)
            }
            CommandReply::Move(r) => {
                self.raw(self.t.move_);
                self.amms_reply(r, s)
            }
            CommandReply::Modify(r) => {
                self.raw(self.t.modify);
                self.amms_reply(r, s)
            }
            CommandReply::Subtract(r) => {
                self.raw(self.t.subtract);
                self.amms_reply(r, s)
            }
            CommandReply::AuditCapability(r) => {
                self.raw(self.t.audit_cap);
                self.audit_reply(r, s)
            }
            CommandReply::AuditValue(r) => {
                self.raw(self.t.audit_value);
                self.audit_reply(r, s)
            }
            CommandReply::Notify(r) => {
                self.raw(self.t.notify);
                self.eq();
                self.term_id_list(&r.termination_ids, s)?;
                if let Some(ed) = &r.error_descriptor {
                    self.lb_i(s);
                    self.error_descriptor(ed)?;
                    self.rb_i(s);
                }
                Ok(())
            }
            CommandReply::ServiceChange(r) => {
                self.raw(self.t.service_change);
                self.eq();
                self.term_id_list(&r.termination_ids, s)?;
                match &r.service_change_result {
                    ServiceChangeResult::ErrorDescriptor(ed) => {
                        self.lb_i(s);
                        self.error_descriptor(ed)?;
                        self.rb_i(s);
                    }
                    ServiceChangeResult::ServiceChangeResParms(p) => {
                        self.service_change_res_parm(p, s)?;
                    }
                }
                Ok(())
            }
        }
    }

    fn amms_reply(&mut self, r: &AmmsReply, s: usize) -> R {
        self.eq();
        self.term_id_list(&r.termination_ids, s)?;
        if let Some(ta) = &r.termination_audit {
            self.termination_audit_block(ta, s)?;
        }
        Ok(())
    }

    /// `LBRKT terminationAudit RBRKT`, left out when the audit writes
    /// nothing.
    fn termination_audit_block(&mut self, ta: &[AuditReturnParameter], s: usize) -> R {
        if ta.is_empty() {
            return Ok(());
        }
        let s1 = s + 1;
        self.opt_brackets(s, |e| {
            for (i, p) in ta.iter().enumerate() {
                if i > 0 {
                    e.comma_i(s1);
                }
                e.audit_return_parameter(p, s1)?;
            }
            Ok(())
        })
    }

    fn audit_reply(&mut self, r: &AuditReply, s: usize) -> R {
        self.eq();
        match r {
            AuditReply::ContextAuditResult(tids) => {
                self.raw(self.t.ctx);
                self.termination_id_list_braced(tids, s)
            }
            AuditReply::Error(ed) => {
                self.raw(self.t.ctx);
                self.lb_i(s);
                self.error_descriptor(ed)?;
                self.rb_i(s);
                Ok(())
            }
            AuditReply::AuditResult(ar) => {
                context_like(std::slice::from_ref(&ar.termination_id))?;
                self.termination_id(&ar.termination_id)?;
                self.termination_audit_block(&ar.termination_audit_result, s)
            }
            AuditReply::AuditResultTermList(tl) => {
                if self.v < 3 {
                    return Err(invalid("audit reply", "termination id lists need v3"));
                }
                context_like(&tl.termination_id_list)?;
                self.term_id_list(&tl.termination_id_list, s)?;
                self.termination_audit_block(&tl.termination_audit_result, s)
            }
        }
    }

    // ---- termination ids ------------------------------------------------

    pub(super) fn termination_id(&mut self, t: &TerminationId) -> R {
        if t.as_str().is_empty() {
            return Err(invalid("termination id", "empty"));
        }
        // OTP keeps the root termination as `root` and writes it so.
        if t.is_root() {
            self.raw(b"root");
            Ok(())
        } else {
            // one word to the scanner, like a name
            self.bounded(t.as_str(), 1, usize::MAX, "termination id")
        }
    }

    /// A command's termination ids: one bare id, or (v3) a bracketed list.
    fn term_id_list(&mut self, tids: &[TerminationId], s: usize) -> R {
        match tids {
            [] => Err(invalid("termination id list", "empty")),
            [one] => self.termination_id(one),
            many => {
                if self.v < 3 {
                    return Err(invalid(
                        "termination id list",
                        "several termination ids in one command need v3",
                    ));
                }
                self.lsb_i(s);
                for (i, t) in many.iter().enumerate() {
                    if i > 0 {
                        self.comma_i(s + 1);
                    }
                    self.termination_id(t)?;
                }
                self.rsb_i(s);
                Ok(())
            }
        }
    }

    /// `LBRKT TerminationID *(COMMA TerminationID) RBRKT`.
    pub(super) fn termination_id_list_braced(&mut self, tids: &[TerminationId], s: usize) -> R {
        if tids.is_empty() {
            return Err(invalid("termination id list", "empty"));
        }
        self.lb_i(s);
        for (i, t) in tids.iter().enumerate() {
            if i > 0 {
                self.comma_i(s);
            }
            self.termination_id(t)?;
        }
        self.rb_i(s);
        Ok(())
    }
}

/// An audit reply for one termination id spelled like the Context
/// keyword (`AuditValue = C ...`) would read back as a context audit.
fn context_like(tids: &[TerminationId]) -> R {
    match tids {
        [one]
            if one.as_str().eq_ignore_ascii_case("c")
                || one.as_str().eq_ignore_ascii_case("context") =>
        {
            Err(invalid(
                "audit reply",
                "a termination id spelled like the Context keyword",
            ))
        }
        _ => Ok(()),
    }
}
