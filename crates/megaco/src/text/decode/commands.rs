//! Commands, the context properties beside them, and termination ids.

use super::media::Dm;
use super::Parser;
use crate::model::*;
use crate::text::keyword::Kw;
use crate::text::lexer::{PRIORITY, R};

impl Parser<'_> {
    /// A context property (`Topology`, `Priority`, `Emergency`, ...),
    /// its keyword `k` already read at `at`.
    pub(super) fn context_property(&mut self, at: usize, k: Kw, ctx: &mut ContextRequest) -> R<()> {
        match k {
            Kw::Topology => {
                if ctx.topology_req.is_some() {
                    return Err(self.dup(at, "Topology"));
                }
                ctx.topology_req = Some(self.topology()?);
            }
            Kw::Priority => {
                if ctx.priority.is_some() {
                    return Err(self.dup(at, "Priority"));
                }
                self.equal()?;
                ctx.priority = Some(self.u8_word("a priority", PRIORITY)?);
            }
            Kw::Emergency | Kw::EmergencyOff => {
                if ctx.emergency.is_some() {
                    return Err(self.dup(at, "Emergency"));
                }
                ctx.emergency = Some(k == Kw::Emergency);
            }
            Kw::Ieps => {
                if ctx.iepscallind.is_some() {
                    return Err(self.dup(at, "IEPSCall"));
                }
                self.equal()?;
                ctx.iepscallind = Some(self.on_off()?);
            }
            _ => {
                // ContextAttr { props } or ContextAttr { ContextList = {..} }
                self.open()?;
                let t = self.token("ContextList or a property")?;
                if t.kw == Some(Kw::ContextList) {
                    if ctx.context_list.is_some() {
                        return Err(self.dup(at, "ContextList"));
                    }
                    ctx.context_list = Some(self.context_list()?);
                    self.close()?;
                } else {
                    if ctx.context_prop.is_some() {
                        return Err(self.dup(at, "ContextAttr"));
                    }
                    let mut props = Vec::new();
                    self.items_from(t, "a property", |p, t| {
                        let name = p.pkgd_name_from(t.at, t.text)?;
                        props.push(p.parm_value(name)?);
                        Ok(())
                    })?;
                    ctx.context_prop = Some(props);
                }
            }
        }
        Ok(())
    }

    /// `= { id, id, ... }` after `ContextList`.
    fn context_list(&mut self) -> R<Vec<ContextId>> {
        self.equal()?;
        let mut ids = Vec::new();
        self.braced(|p| {
            ids.push(p.context_id()?);
            Ok(())
        })?;
        Ok(ids)
    }

    pub(super) fn on_off(&mut self) -> R<bool> {
        let t = self.token("ON or OFF")?;
        match t.kw {
            Some(Kw::On) => Ok(true),
            Some(Kw::Off) => Ok(false),
            _ => Err(self.unknown(t, "ON or OFF")),
        }
    }

    /// `Topology { from, to, direction [, Stream = n], ... }`.
    fn topology(&mut self) -> R<Vec<TopologyRequest>> {
        #[derive(Default)]
        struct Partial {
            from: Option<TerminationId>,
            to: Option<TerminationId>,
            dir: Option<TopologyDirection>,
            stream: Option<u16>,
            ext: Option<TopologyDirectionExtension>,
        }
        let start = self.pos;
        let finish = |p: &Self, t: Partial| -> R<TopologyRequest> {
            match (t.from, t.to, t.dir) {
                (Some(termination_from), Some(termination_to), Some(topology_direction)) => {
                    Ok(TopologyRequest {
                        termination_from,
                        termination_to,
                        topology_direction,
                        stream_id: t.stream,
                        topology_direction_extension: t.ext,
                    })
                }
                _ => Err(p.missing(start, "topology triple (from, to, direction)")),
            }
        };
        let mut out = Vec::new();
        let mut cur = Partial::default();
        self.braced(|p| {
            let t = p.token("a termination id, direction or Stream")?;
            // A triple starts with two termination ids whatever they are
            // spelled like (`st`, `Bothway`, ...); after them a keyword is
            // a keyword only where the triple can still take it.
            let kw = if cur.from.is_none() || cur.to.is_none() {
                None
            } else {
                match t.kw {
                    Some(Kw::Bothway | Kw::Isolate | Kw::Oneway) if cur.dir.is_some() => None,
                    Some(Kw::OnewayExternal | Kw::OnewayBoth) if cur.ext.is_some() => None,
                    Some(Kw::Stream) if cur.stream.is_some() || p.peek() != Some(b'=') => None,
                    k => k,
                }
            };
            match kw {
                Some(Kw::Bothway) => cur.dir = Some(TopologyDirection::Bothway),
                Some(Kw::Isolate) => cur.dir = Some(TopologyDirection::Isolate),
                Some(Kw::Oneway) => cur.dir = Some(TopologyDirection::Oneway),
                Some(k @ (Kw::OnewayExternal | Kw::OnewayBoth)) => {
                    if cur.dir.is_none() {
                        cur.dir = Some(TopologyDirection::Oneway);
                    }
                    cur.ext = Some(if k == Kw::OnewayBoth {
                        TopologyDirectionExtension::OnewayBoth
                    } else {
                        TopologyDirectionExtension::OnewayExternal
                    });
                }
                Some(Kw::Stream) if p.version < 2 => {
                    return Err(p.invalid(t.at, t.text, "topology stream (v2)"));
                }
                Some(Kw::Stream) => {
                    p.equal()?;
                    cur.stream = Some(p.u16_word("a stream id")?);
                }
                _ => {
                    let tid = termination_id(t.text);
                    if cur.from.is_none() {
                        cur.from = Some(tid);
                    } else if cur.to.is_none() {
                        cur.to = Some(tid);
                    } else {
                        let done = std::mem::take(&mut cur);
                        out.push(finish(p, done)?);
                        cur.from = Some(tid);
                    }
                }
            }
            Ok(())
        })?;
        out.push(finish(self, cur)?);
        Ok(out)
    }

    /// `ContextAudit { ... }`.
    pub(super) fn context_audit(&mut self) -> R<ContextAttrAuditRequest> {
        let mut car = ContextAttrAuditRequest::default();
        self.context_audit_items(&mut car)?;
        Ok(car)
    }

    /// The braced item list of `ContextAudit` (or of a `ContextAttr`
    /// inside it).
    fn context_audit_items(&mut self, car: &mut ContextAttrAuditRequest) -> R<()> {
        self.braced(|p| {
            const WHAT: &str = "a context audit property";
            let t = p.token(WHAT)?;
            // v1 and v2 audit Topology, Emergency and Priority; the
            // selection values and properties came with v3.
            if p.version < 3
                && !(matches!(t.kw, Some(Kw::Topology | Kw::Emergency | Kw::Priority))
                    && matches!(p.peek(), Some(b',' | b'}')))
            {
                return Err(p.unknown(t, "Topology, Emergency or Priority"));
            }
            match t.kw {
                Some(Kw::Topology) => car.topology = true,
                Some(Kw::Emergency) => car.emergency = true,
                Some(Kw::Priority) => {
                    if p.eat(b'=') {
                        if car.select_priority.is_some() {
                            return Err(p.dup(t.at, "Priority"));
                        }
                        car.select_priority = Some(p.u8_word("a priority", PRIORITY)?);
                    } else {
                        car.priority = true;
                    }
                }
                Some(Kw::Ieps) => {
                    if p.eat(b'=') {
                        if car.select_iepscallind.is_some() {
                            return Err(p.dup(t.at, "IEPSCall"));
                        }
                        car.select_iepscallind = Some(p.on_off()?);
                    } else {
                        car.iepscallind = true;
                    }
                }
                Some(Kw::EmergencyValue) => {
                    p.equal()?;
                    let t2 = p.token("Emergency or EmergencyOff")?;
                    let v = match t2.kw {
                        Some(Kw::Emergency) => true,
                        Some(Kw::EmergencyOff) => false,
                        _ => return Err(p.unknown(t2, "Emergency or EmergencyOff")),
                    };
                    if car.select_emergency.is_some() {
                        return Err(p.dup(t.at, "EmergencyValue"));
                    }
                    car.select_emergency = Some(v);
                }
                Some(k @ (Kw::AndLgc | Kw::OrLgc)) => {
                    if car.select_logic.is_some() {
                        return Err(p.dup(t.at, "selection logic"));
                    }
                    car.select_logic = Some(if k == Kw::AndLgc {
                        SelectLogic::And
                    } else {
                        SelectLogic::Or
                    });
                }
                Some(Kw::ContextAttr) => {
                    // `ContextAudit { ContextAttr { audit props } }`; a
                    // property value or ContextList in a selector has no
                    // place in the model and is dropped, as OTP does.
                    p.context_audit_items(car)?;
                }
                Some(Kw::ContextList) => {
                    p.context_list()?;
                }
                _ => {
                    let prop = p.ind_aud_prop(t)?;
                    super::audit::push_ind_aud(
                        car.context_prop_aud.get_or_insert_with(Vec::new),
                        prop,
                    );
                }
            }
            Ok(())
        })
    }

    /// A command request, its keyword `k` read, added to `out` (and filled
    /// in place there); `false` when `k` names no command.
    pub(super) fn command_request(
        &mut self,
        k: Option<Kw>,
        optional: bool,
        wildcard_return: bool,
        out: &mut SmallList<CommandRequest>,
    ) -> R<bool> {
        let command = match k {
            Some(Kw::Add) => Command::Add(AmmRequest::default()),
            Some(Kw::Move) => Command::Move(AmmRequest::default()),
            Some(Kw::Modify) => Command::Modify(AmmRequest::default()),
            Some(Kw::Subtract) => Command::Subtract(SubtractRequest::default()),
            Some(Kw::AuditValue) => Command::AuditValue(AuditRequest::default()),
            Some(Kw::AuditCap) => Command::AuditCapability(AuditRequest::default()),
            Some(Kw::Notify) => Command::Notify(NotifyRequest::default()),
            Some(Kw::ServiceChange) => {
                self.equal()?;
                let termination_ids = self.term_id_list()?;
                self.open()?;
                self.expect_kw(Kw::Services, "Services")?;
                let service_change_parms = self.service_change_parm()?;
                self.close()?;
                Command::ServiceChange(Box::new(ServiceChangeRequest {
                    termination_ids,
                    service_change_parms,
                }))
            }
            _ => return Ok(false),
        };
        out.push(CommandRequest {
            command,
            optional,
            wildcard_return,
        });
        let Some(c) = out.last_mut() else {
            return Ok(true);
        };
        match &mut c.command {
            Command::Add(r) | Command::Move(r) | Command::Modify(r) => {
                self.equal()?;
                r.termination_ids = self.term_id_list()?;
                if self.peek() == Some(b'{') {
                    self.braced(|p| p.amm_descriptor(&mut r.descriptors))?;
                }
            }
            Command::Subtract(r) => {
                self.equal()?;
                r.termination_ids = self.term_id_list()?;
                r.audit_descriptor = self.opt_audit_braces()?;
            }
            Command::AuditValue(r) | Command::AuditCapability(r) => {
                self.equal()?;
                let mut tids = self.term_id_list()?;
                r.audit_descriptor = self.opt_audit_braces()?.unwrap_or_default();
                if tids.len() > 1 {
                    r.termination_id_list = Some(tids.to_vec());
                }
                r.termination_id = tids.swap_remove(0);
            }
            Command::Notify(r) => {
                let at = self.pos;
                self.equal()?;
                r.termination_ids = self.term_id_list()?;
                // `{ observedEventsDescriptor [COMMA errorDescriptor] }`.
                self.open()?;
                let t = self.token("ObservedEvents")?;
                if t.kw != Some(Kw::ObservedEvents) {
                    return Err(match t.kw {
                        Some(Kw::Error) => {
                            self.missing(at, "ObservedEvents in Notify (before Error)")
                        }
                        _ => self.unknown(t, "ObservedEvents"),
                    });
                }
                self.observed_events(&mut r.observed_events_descriptor)?;
                if self.eat(b',') {
                    let t = self.token("Error")?;
                    if t.kw != Some(Kw::Error) {
                        return Err(self.unknown(t, "Error (after ObservedEvents)"));
                    }
                    r.error_descriptor = Some(self.error_descriptor_body()?);
                }
                self.close()?;
            }
            _ => {}
        }
        Ok(true)
    }

    /// `{ Audit { ... } }` or nothing.
    fn opt_audit_braces(&mut self) -> R<Option<AuditDescriptor>> {
        if self.peek() != Some(b'{') {
            return Ok(None);
        }
        self.open()?;
        self.expect_kw(Kw::Audit, "Audit")?;
        let d = self.audit_descriptor()?;
        self.close()?;
        Ok(Some(d))
    }

    /// A descriptor of Add, Move or Modify, added to `out` (a v2/v3 Modem
    /// descriptor, which OTP drops, is read and dropped).
    fn amm_descriptor(&mut self, out: &mut Vec<AmmDescriptor>) -> R<()> {
        const WHAT: &str = "a descriptor (Media, Events, Signals, DigitMap, ...)";
        let t = self.token(WHAT)?;
        out.push(match t.kw {
            Some(Kw::Media) => {
                out.push(AmmDescriptor::Media(MediaDescriptor::default()));
                if let Some(AmmDescriptor::Media(m)) = out.last_mut() {
                    self.media_descriptor(m)?;
                }
                return Ok(());
            }
            Some(Kw::Events) => {
                out.push(AmmDescriptor::Events(EventsDescriptor::default()));
                if let Some(AmmDescriptor::Events(e)) = out.last_mut() {
                    self.events_descriptor(e)?;
                }
                return Ok(());
            }
            Some(Kw::Modem) => {
                // Deprecated since H.248.1 Corrigendum 1: OTP's v2 and v3
                // parsers drop it, its v1 parser keeps it.
                let d = self.modem_descriptor()?;
                if self.version > 1 {
                    return Ok(());
                }
                AmmDescriptor::Modem(d)
            }
            Some(Kw::Mux) => AmmDescriptor::Mux(self.mux_descriptor()?),
            Some(Kw::EventBuffer) => AmmDescriptor::EventBuffer(self.event_buffer_descriptor()?),
            Some(Kw::Signals) => AmmDescriptor::Signals(self.signals_descriptor()?),
            Some(Kw::DigitMap) => match self.digit_map(false)? {
                Dm::Desc(d) => AmmDescriptor::DigitMap(d),
                Dm::Bare => return Err(self.expected("`=` or `{` after DigitMap")),
            },
            Some(Kw::Audit) => AmmDescriptor::Audit(self.audit_descriptor()?),
            Some(Kw::Stats) if self.version >= 3 => {
                AmmDescriptor::Statistics(self.statistics_descriptor()?)
            }
            _ => return Err(self.unknown(t, WHAT)),
        });
        Ok(())
    }

    // ---- termination ids -------------------------------------------------

    pub(super) fn termination_id(&mut self) -> R<TerminationId> {
        let (_, w) = self.word("a termination id")?;
        Ok(termination_id(w))
    }

    /// `tid` or (v3) `[tid, tid, ...]`.
    pub(super) fn term_id_list(&mut self) -> R<SmallList<TerminationId>> {
        let mut v = SmallList::new();
        if self.version >= 3 && self.open_square()? {
            self.square_items(|p| {
                v.push(p.termination_id()?);
                Ok(())
            })?;
        } else {
            v.push(self.termination_id()?);
        }
        Ok(v)
    }

    /// `{ tid, tid, ... }`.
    pub(super) fn termination_id_braces(&mut self) -> R<Vec<TerminationId>> {
        let mut v = Vec::new();
        self.braced(|p| {
            v.push(p.termination_id()?);
            Ok(())
        })?;
        Ok(v)
    }
}

/// A termination id as written (`ROOT` in any case becomes `ROOT`).
pub(super) fn termination_id(w: &str) -> TerminationId {
    if w.eq_ignore_ascii_case("root") {
        TerminationId::root()
    } else {
        TerminationId::new(w)
    }
}
