//! Descriptors: media, events, signals, audit, service change, ...
use super::{invalid, Enc, R};
use crate::model::*;

impl Enc<'_> {
    // ---- media ----------------------------------------------------------

    pub(super) fn media_descriptor(&mut self, m: &MediaDescriptor, s: usize) -> R {
        self.raw(self.t.media);
        let s1 = s + 1;
        self.braces(s, "Media descriptor", |e| {
            let mut sep = false;
            if let Some(tsd) = &m.term_state_descr {
                e.item(&mut sep, s1, |e| e.termination_state_descriptor(tsd, s1))?;
            }
            match &m.streams {
                None => {}
                // an empty one would read back as no stream at all
                Some(Streams::OneStream(p)) => e.nonempty("stream parameters", "empty", |e| {
                    e.stream_parms(p, &mut sep, s1)
                })?,
                Some(Streams::MultiStream(list)) => {
                    for sd in list {
                        e.item(&mut sep, s1, |e| {
                            e.raw(e.t.stream);
                            e.eq();
                            e.num(sd.stream_id as u64);
                            e.braces(s1, "stream descriptor", |e| {
                                e.stream_parms(&sd.stream_parms, &mut false, s1 + 1)
                            })
                        })?;
                    }
                }
            }
            Ok(())
        })
    }

    fn stream_parms(&mut self, p: &StreamParms, sep: &mut bool, s: usize) -> R {
        if let Some(lcd) = &p.local_control_descriptor {
            self.item(sep, s, |e| e.local_control_descriptor(lcd, s))?;
        }
        if let Some(l) = &p.local_descriptor {
            self.item(sep, s, |e| e.local_remote(e.t.local, l, s))?;
        }
        if let Some(r) = &p.remote_descriptor {
            self.item(sep, s, |e| e.local_remote(e.t.remote, r, s))?;
        }
        if let Some(st) = &p.statistics_descriptor {
            if self.v < 3 {
                return Err(invalid("stream statistics", "need v3"));
            }
            if st.is_empty() {
                // a bare `Statistics` is an audit item, not a descriptor
                return Err(invalid("stream statistics", "empty"));
            }
            self.item(sep, s, |e| e.statistics_descriptor(st, s))?;
        }
        Ok(())
    }

    fn local_control_descriptor(&mut self, l: &LocalControlDescriptor, s: usize) -> R {
        if l.stream_mode.is_none()
            && l.reserve_value.is_none()
            && l.reserve_group.is_none()
            && l.property_parms.is_empty()
        {
            return Err(invalid("LocalControl descriptor", "empty"));
        }
        self.raw(self.t.local_control);
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        if let Some(m) = l.stream_mode {
            self.item(&mut sep, s1, |e| {
                e.stream_mode(m);
                Ok(())
            })?;
        }
        if let Some(g) = l.reserve_group {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.reserved_group);
                e.eq();
                e.on_off(g);
                Ok(())
            })?;
        }
        if let Some(v) = l.reserve_value {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.reserved_value);
                e.eq();
                e.on_off(v);
                Ok(())
            })?;
        }
        for p in &l.property_parms {
            self.item(&mut sep, s1, |e| e.property_parm(p, s1))?;
        }
        self.rb_i(s);
        Ok(())
    }

    fn stream_mode(&mut self, m: StreamMode) {
        self.raw(self.t.mode);
        self.eq();
        self.raw(match m {
            StreamMode::SendOnly => self.t.sendonly,
            StreamMode::RecvOnly => self.t.recvonly,
            StreamMode::SendRecv => self.t.sendrecv,
            StreamMode::Inactive => self.t.inactive,
            StreamMode::LoopBack => self.t.loopback,
        });
    }

    /// `Local { <SDP> }` / `Remote { <SDP> }`: one `name=value` line per
    /// property, CRLF-terminated, `}` escaped.
    fn local_remote(&mut self, token: &'static [u8], d: &LocalRemoteDescriptor, s: usize) -> R {
        self.raw(token);
        self.lb();
        if !d.prop_grps.is_empty() {
            self.byte(b'\n');
            for (i, g) in d.prop_grps.iter().enumerate() {
                if g.is_empty() {
                    return Err(invalid("SDP property group", "empty"));
                }
                if i > 0 && g.first().map(|p| p.name.as_str()) != Some("v") {
                    return Err(invalid(
                        "SDP property group",
                        "every group after the first must start with v=",
                    ));
                }
                for p in g {
                    let [value] = p.value.as_slice() else {
                        return Err(invalid("SDP property", "needs exactly one value"));
                    };
                    self.name(&p.name, "SDP property name")?;
                    self.byte(b'=');
                    self.octet_string(value);
                    self.raw(b"\r\n");
                }
            }
        }
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn termination_state_descriptor(
        &mut self,
        t: &TerminationStateDescriptor,
        s: usize,
    ) -> R {
        self.raw(self.t.termination_state);
        let s1 = s + 1;
        self.braces(s, "TerminationState descriptor", |e| {
            let mut sep = false;
            for p in &t.property_parms {
                e.item(&mut sep, s1, |e| e.property_parm(p, s1))?;
            }
            if let Some(b) = t.event_buffer_control {
                e.item(&mut sep, s1, |e| {
                    e.raw(e.t.buffer);
                    e.eq();
                    e.raw(match b {
                        EventBufferControl::Off => e.t.off,
                        EventBufferControl::LockStep => e.t.lock_step,
                    });
                    Ok(())
                })?;
            }
            if let Some(st) = t.service_state {
                e.item(&mut sep, s1, |e| {
                    e.service_state(st);
                    Ok(())
                })?;
            }
            Ok(())
        })
    }

    fn service_state(&mut self, st: ServiceState) {
        self.raw(self.t.service_states);
        self.eq();
        self.raw(match st {
            ServiceState::Test => self.t.test,
            ServiceState::OutOfSvc => self.t.out_of_svc,
            ServiceState::InSvc => self.t.in_svc,
        });
    }

    // ---- properties and parameters --------------------------------------

    pub(super) fn property_parm(&mut self, p: &PropertyParm, s: usize) -> R {
        self.pkgd_name(&p.name)?;
        self.parm_values(&p.value, p.extra_info.as_ref(), s)
    }

    /// An event or signal parameter (`NAME parmValue`).
    fn parameter(&mut self, p: &PropertyParm, s: usize) -> R {
        self.name(&p.name, "parameter name")?;
        self.parm_values(&p.value, p.extra_info.as_ref(), s)
    }

    /// An event parameter: `ds` (the dd/ce digit string) is always quoted.
    fn event_parameter(&mut self, p: &PropertyParm, s: usize) -> R {
        if p.name == "ds" && p.extra_info.is_none() {
            if let [ds] = p.value.as_slice() {
                self.raw(b"ds=\"");
                self.str(ds);
                self.byte(b'"');
                return Ok(());
            }
        }
        self.parameter(p, s)
    }

    fn parm_values(&mut self, values: &[CompactString], extra: Option<&ExtraInfo>, s: usize) -> R {
        match (values, extra) {
            ([one], None) => {
                self.byte(b'=');
                self.value(one)
            }
            ([one], Some(ExtraInfo::Relation(r))) => {
                self.byte(match r {
                    Relation::GreaterThan => b'>',
                    Relation::SmallerThan => b'<',
                    Relation::UnequalTo => b'#',
                });
                self.value(one)
            }
            ([low, high], Some(ExtraInfo::Range(true))) => {
                if self.v >= 3 {
                    self.eq();
                } else {
                    self.byte(b'=');
                }
                self.lsb();
                self.value(low)?;
                self.byte(b':');
                self.value(high)?;
                self.rsb();
                Ok(())
            }
            ([], Some(ExtraInfo::Sublist(_))) => Err(invalid(
                "parameter value",
                "an empty value list has no text form",
            )),
            (vals, Some(ExtraInfo::Sublist(all))) => {
                if self.v >= 3 {
                    self.eq();
                    if *all {
                        self.lsb_i(s);
                    } else {
                        self.lb_i(s);
                    }
                    for (i, v) in vals.iter().enumerate() {
                        if i > 0 {
                            self.comma_i(s + 1);
                        }
                        self.value(v)?;
                    }
                    if *all {
                        self.rsb_i(s);
                    } else {
                        self.rb_i(s);
                    }
                } else {
                    self.byte(b'=');
                    if *all {
                        self.lsb();
                    } else {
                        self.lb();
                    }
                    for (i, v) in vals.iter().enumerate() {
                        if i > 0 {
                            self.comma_i(s);
                        }
                        self.value(v)?;
                    }
                    if *all {
                        self.rsb();
                    } else {
                        self.rb();
                    }
                }
                Ok(())
            }
            _ => Err(invalid(
                "parameter value",
                format!(
                    "{} value(s) with {:?} cannot be written",
                    values.len(),
                    extra
                ),
            )),
        }
    }

    // ---- mux and modem --------------------------------------------------

    pub(super) fn mux_descriptor(&mut self, m: &MuxDescriptor, s: usize) -> R {
        if m.non_standard_data.is_some() {
            return Err(invalid(
                "Mux descriptor",
                "non-standard data has no text form",
            ));
        }
        self.raw(self.t.mux);
        self.eq();
        self.raw(match m.mux_type {
            MuxType::H221 => self.t.h221,
            MuxType::H223 => self.t.h223,
            MuxType::H226 => self.t.h226,
            MuxType::V76 => self.t.v76,
            MuxType::Nx64k => {
                if self.v < 2 {
                    return Err(invalid("Mux type", "Nx64Kservice needs v2"));
                }
                self.t.nx64k
            }
        });
        self.termination_id_list_braced(&m.term_list, s)
    }

    pub(super) fn modem_descriptor(&mut self, m: &ModemDescriptor, s: usize) -> R {
        if self.v >= 2 {
            return Err(invalid(
                "Modem descriptor",
                "deprecated by H.248.1 Corrigendum 1; only v1 text carries it",
            ));
        }
        if m.non_standard_data.is_some() {
            return Err(invalid(
                "Modem descriptor",
                "non-standard data has no text form",
            ));
        }
        if m.mtl.is_empty() {
            return Err(invalid("Modem descriptor", "no modem type"));
        }
        self.raw(self.t.modem);
        if let ([one], []) = (m.mtl.as_slice(), m.mpl.as_slice()) {
            self.eq();
            self.modem_type(*one);
            return Ok(());
        }
        self.lsb();
        for (i, t) in m.mtl.iter().enumerate() {
            if i > 0 {
                self.comma_i(s);
            }
            self.modem_type(*t);
        }
        self.rsb();
        let s1 = s + 1;
        self.opt_brackets(s, |e| {
            for (i, p) in m.mpl.iter().enumerate() {
                if i > 0 {
                    e.comma_i(s1);
                }
                e.property_parm(p, s1)?;
            }
            Ok(())
        })
    }

    fn modem_type(&mut self, t: ModemType) {
        self.raw(match t {
            ModemType::V18 => self.t.v18,
            ModemType::V22 => self.t.v22,
            ModemType::V22bis => self.t.v22bis,
            ModemType::V32 => self.t.v32,
            ModemType::V32bis => self.t.v32bis,
            ModemType::V34 => self.t.v34,
            ModemType::V90 => self.t.v90,
            ModemType::V91 => self.t.v91,
            ModemType::SynchIsdn => self.t.synch_isdn,
        });
    }

    // ---- events ---------------------------------------------------------

    fn request_id(&mut self, id: u32) {
        if id == u32::MAX {
            self.byte(b'*');
        } else {
            self.num(id as u64);
        }
    }

    pub(super) fn events_descriptor(&mut self, ev: &EventsDescriptor, s: usize) -> R {
        match (ev.request_id, ev.event_list.is_empty()) {
            (None, true) => {
                self.raw(self.t.events);
                Ok(())
            }
            (Some(rid), false) => {
                self.raw(self.t.events);
                self.eq();
                self.request_id(rid);
                self.lb_i(s);
                let s1 = s + 1;
                let mut sep = false;
                for re in &ev.event_list {
                    self.item(&mut sep, s1, |e| e.requested_event(re, s1))?;
                }
                self.rb_i(s);
                Ok(())
            }
            _ => Err(invalid(
                "Events descriptor",
                "needs both a request id and events, or neither",
            )),
        }
    }

    fn requested_event(&mut self, re: &RequestedEvent, s: usize) -> R {
        self.pkgd_name(&re.pkgd_name)?;
        let s1 = s + 1;
        let body = |e: &mut Self| -> R {
            let mut sep = false;
            if let Some(sid) = re.stream_id {
                e.item(&mut sep, s1, |e| {
                    e.event_stream(sid);
                    Ok(())
                })?;
            }
            for p in &re.ev_par_list {
                e.item(&mut sep, s1, |e| e.event_parameter(p, s1))?;
            }
            if let Some(a) = &re.event_action {
                e.requested_actions(a, &mut sep, s1)?;
            }
            Ok(())
        };
        if self.v >= 3 {
            if re.stream_id.is_none() && re.event_action.is_none() && re.ev_par_list.is_empty() {
                return Ok(());
            }
            self.lb_i(s);
            body(self)?;
            self.rb_i(s);
            Ok(())
        } else {
            self.opt_brackets(s, body)
        }
    }

    fn requested_actions(&mut self, a: &RequestedActions, sep: &mut bool, s: usize) -> R {
        let sd_present = a
            .signals_descriptor
            .as_ref()
            .is_some_and(|sd| !sd.is_empty());
        let with_sig = a.keep_active != Some(true) && sd_present;
        if !with_sig {
            if let Some(ka) = a.keep_active {
                self.item(sep, s, |e| {
                    e.keep_active(ka);
                    Ok(())
                })?;
            }
        }
        if let Some(dm) = &a.event_dm {
            self.item(sep, s, |e| e.event_dm(dm, s))?;
        }
        if sd_present {
            let sd = a.signals_descriptor.as_deref().unwrap_or(&[]);
            self.item(sep, s, |e| e.embed_with_sig(a.second_event.as_ref(), sd, s))?;
        } else if let Some(se) = &a.second_event {
            self.item(sep, s, |e| e.embed_no_sig(se, s))?;
        }
        if self.v >= 3 {
            if let Some(nb) = &a.notify_behaviour {
                self.item(sep, s, |e| e.notify_behaviour(nb, s))?;
            }
            if a.reset_events_descriptor {
                self.item_tok(sep, s, self.t.reset_events_descriptor);
            }
        }
        Ok(())
    }

    fn keep_active(&mut self, ka: bool) {
        if ka {
            self.raw(self.t.keep_active);
        }
    }

    fn event_dm(&mut self, dm: &EventDm, s: usize) -> R {
        self.raw(self.t.digit_map);
        match dm {
            EventDm::DigitMapName(n) => {
                self.eq();
                self.name(n, "digit map name")
            }
            EventDm::DigitMapValue(v) => {
                self.lb_i(s);
                self.digit_map_value(v, s + 1)?;
                self.rb_i(s);
                Ok(())
            }
        }
    }

    /// `Embed { Events … }`.
    fn embed_no_sig(&mut self, se: &EventsDescriptor, s: usize) -> R {
        self.raw(self.t.embed);
        self.lb_i(s);
        self.embed_first(se, s + 1)?;
        self.rb_i(s);
        Ok(())
    }

    /// `Embed { Signals …[, Events …] }`.
    fn embed_with_sig(
        &mut self,
        se: Option<&EventsDescriptor>,
        sd: &[SignalRequest],
        s: usize,
    ) -> R {
        self.raw(self.t.embed);
        self.lb_i(s);
        self.signals_descriptor(sd, s + 1)?;
        if let Some(se) = se {
            self.comma_i(s + 1);
            self.embed_first(se, s + 1)?;
        }
        self.rb_i(s);
        Ok(())
    }

    fn embed_first(&mut self, se: &EventsDescriptor, s: usize) -> R {
        self.raw(self.t.events);
        if let (Some(rid), false) = (se.request_id, se.event_list.is_empty()) {
            self.eq();
            self.request_id(rid);
            self.lb_i(s);
            let s1 = s + 1;
            let mut sep = false;
            for ev in &se.event_list {
                self.item(&mut sep, s1, |e| e.second_requested_event(ev, s1))?;
            }
            self.rb_i(s);
        }
        Ok(())
    }

    fn second_requested_event(&mut self, re: &RequestedEvent, s: usize) -> R {
        self.pkgd_name(&re.pkgd_name)?;
        let s1 = s + 1;
        let body = |e: &mut Self| -> R {
            let mut sep = false;
            if let Some(sid) = re.stream_id {
                e.item(&mut sep, s1, |e| {
                    e.event_stream(sid);
                    Ok(())
                })?;
            }
            for p in &re.ev_par_list {
                e.item(&mut sep, s1, |e| e.event_parameter(p, s1))?;
            }
            if let Some(a) = &re.event_action {
                e.second_requested_actions(a, &mut sep, s1)?;
            }
            Ok(())
        };
        if self.v >= 3 {
            if re.stream_id.is_none() && re.event_action.is_none() && re.ev_par_list.is_empty() {
                return Ok(());
            }
            self.lb_i(s);
            body(self)?;
            self.rb_i(s);
            Ok(())
        } else {
            self.opt_brackets(s, body)
        }
    }

    fn second_requested_actions(&mut self, a: &RequestedActions, sep: &mut bool, s: usize) -> R {
        if self.v < 3 {
            if let Some(ka) = a.keep_active {
                self.item(sep, s, |e| {
                    e.keep_active(ka);
                    Ok(())
                })?;
            }
            if let Some(dm) = &a.event_dm {
                self.item(sep, s, |e| e.event_dm(dm, s))?;
            }
            if let Some(sd) = &a.signals_descriptor {
                self.item(sep, s, |e| e.embed_sig(sd, s))?;
            }
            return Ok(());
        }
        let sd_present = a
            .signals_descriptor
            .as_ref()
            .is_some_and(|sd| !sd.is_empty());
        if sd_present && a.keep_active == Some(true) {
            return Err(invalid(
                "embedded event actions",
                "KeepActive and embedded signals cannot both be present",
            ));
        }
        if !sd_present {
            if let Some(ka) = a.keep_active {
                self.item(sep, s, |e| {
                    e.keep_active(ka);
                    Ok(())
                })?;
            }
        }
        if let Some(dm) = &a.event_dm {
            self.item(sep, s, |e| e.event_dm(dm, s))?;
        }
        if sd_present {
            let sd = a.signals_descriptor.as_deref().unwrap_or(&[]);
            self.item(sep, s, |e| e.embed_sig(sd, s))?;
        }
        if let Some(nb) = &a.notify_behaviour {
            self.item(sep, s, |e| e.notify_behaviour(nb, s))?;
        }
        if a.reset_events_descriptor {
            self.item_tok(sep, s, self.t.reset_events_descriptor);
        }
        Ok(())
    }

    /// `Embed { Signals … }`.
    fn embed_sig(&mut self, sd: &[SignalRequest], s: usize) -> R {
        self.raw(self.t.embed);
        self.lb_i(s);
        self.signals_descriptor(sd, s + 1)?;
        self.rb_i(s);
        Ok(())
    }

    fn notify_behaviour(&mut self, nb: &NotifyBehaviour, s: usize) -> R {
        match nb {
            NotifyBehaviour::NotifyImmediate => self.raw(self.t.notify_immediate),
            NotifyBehaviour::NeverNotify => self.raw(self.t.never_notify),
            NotifyBehaviour::NotifyRegulated(r) => {
                if self.nesting >= super::MAX_NESTING {
                    return Err(invalid(
                        "regulated notification",
                        "embedded events nested too deeply",
                    ));
                }
                self.nesting += 1;
                self.raw(self.t.notify_regulated);
                match (&r.second_event, &r.signals_descriptor) {
                    (None, None) => {}
                    (Some(se), None) => {
                        self.lb_i(s);
                        self.embed_no_sig(se, s + 1)?;
                        self.rb_i(s);
                    }
                    (se, Some(sd)) => {
                        self.lb_i(s);
                        self.embed_with_sig(se.as_ref(), sd, s + 1)?;
                        self.rb_i(s);
                    }
                }
                self.nesting -= 1;
            }
        }
        Ok(())
    }

    pub(super) fn event_buffer_descriptor(&mut self, eb: &[EventSpec], s: usize) -> R {
        self.raw(self.t.event_buffer);
        if eb.is_empty() {
            return Ok(());
        }
        self.lb_i(s);
        let s1 = s + 1;
        for (i, es) in eb.iter().enumerate() {
            if i > 0 {
                self.comma_i(s1);
            }
            self.pkgd_name(&es.event_name)?;
            let s2 = s1 + 1;
            let body = |e: &mut Self| -> R {
                let mut sep = false;
                if let Some(sid) = es.stream_id {
                    e.item(&mut sep, s2, |e| {
                        e.event_stream(sid);
                        Ok(())
                    })?;
                }
                for p in &es.event_par_list {
                    e.item(&mut sep, s2, |e| e.event_parameter(p, s2))?;
                }
                Ok(())
            };
            if self.v >= 3 {
                if es.stream_id.is_some() || !es.event_par_list.is_empty() {
                    self.lb_i(s1);
                    body(self)?;
                    self.rb_i(s1);
                }
            } else {
                self.opt_brackets(s1, body)?;
            }
        }
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn observed_events_descriptor(
        &mut self,
        oe: &ObservedEventsDescriptor,
        s: usize,
    ) -> R {
        if oe.observed_event_lst.is_empty() {
            return Err(invalid("ObservedEvents descriptor", "no events"));
        }
        self.raw(self.t.observed_events);
        self.eq();
        self.request_id(oe.request_id);
        self.lb_i(s);
        let s1 = s + 1;
        for (i, ev) in oe.observed_event_lst.iter().enumerate() {
            if i > 0 {
                self.comma_i(s1);
            }
            if let Some(tn) = &ev.time_notation {
                self.time_notation(tn)?;
                self.byte(b':');
            }
            self.pkgd_name(&ev.event_name)?;
            let s2 = s1 + 1;
            self.opt_brackets(s1, |e| {
                let mut sep = false;
                if let Some(sid) = ev.stream_id {
                    e.item(&mut sep, s2, |e| {
                        e.event_stream(sid);
                        Ok(())
                    })?;
                }
                for p in &ev.event_par_list {
                    e.item(&mut sep, s2, |e| e.event_parameter(p, s2))?;
                }
                Ok(())
            })?;
        }
        self.rb_i(s);
        Ok(())
    }

    fn time_notation(&mut self, tn: &TimeNotation) -> R {
        if tn.date.len() != 8 || tn.time.len() != 8 {
            return Err(invalid(
                "time stamp",
                "date and time need 8 characters each",
            ));
        }
        self.str(&tn.date);
        self.byte(b'T');
        self.str(&tn.time);
        Ok(())
    }

    // ---- signals --------------------------------------------------------

    pub(super) fn signals_descriptor(&mut self, sd: &[SignalRequest], s: usize) -> R {
        self.raw(self.t.signals);
        if sd.is_empty() {
            return Ok(());
        }
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        for r in sd {
            self.item(&mut sep, s1, |e| match r {
                SignalRequest::Signal(sig) => e.signal(sig, s1),
                SignalRequest::SeqSigList(l) => {
                    e.raw(e.t.signal_list);
                    e.eq();
                    e.num(l.id as u64);
                    let s2 = s1 + 1;
                    e.braces(s1, "signal list", |e| {
                        let mut sep2 = false;
                        for sig in &l.signal_list {
                            e.item(&mut sep2, s2, |e| e.signal(sig, s2))?;
                        }
                        Ok(())
                    })
                }
            })?;
        }
        self.rb_i(s);
        Ok(())
    }

    fn signal(&mut self, sig: &Signal, s: usize) -> R {
        self.pkgd_name(&sig.signal_name)?;
        let s1 = s + 1;
        self.opt_brackets(s, |e| {
            let mut sep = false;
            if let Some(sid) = sig.stream_id {
                e.item(&mut sep, s1, |e| {
                    e.event_stream(sid);
                    Ok(())
                })?;
            }
            if let Some(t) = sig.sig_type {
                e.item(&mut sep, s1, |e| {
                    e.raw(e.t.signal_type);
                    e.eq();
                    e.raw(match t {
                        SignalType::Brief => e.t.brief,
                        SignalType::OnOff => e.t.on_off,
                        SignalType::TimeOut => e.t.time_out,
                    });
                    Ok(())
                })?;
            }
            if let Some(d) = sig.duration {
                e.item(&mut sep, s1, |e| {
                    e.raw(e.t.duration);
                    e.eq();
                    e.num(d as u64);
                    Ok(())
                })?;
            }
            if let Some(nc) = &sig.notify_completion {
                e.item(&mut sep, s1, |e| e.notify_completion(nc, s1))?;
            }
            if let Some(ka) = sig.keep_active {
                e.item(&mut sep, s1, |e| {
                    e.keep_active(ka);
                    Ok(())
                })?;
            }
            for p in &sig.sig_par_list {
                e.item(&mut sep, s1, |e| e.parameter(p, s1))?;
            }
            if e.v >= 3 {
                if let Some(d) = sig.direction {
                    e.item(&mut sep, s1, |e| {
                        e.raw(e.t.direction);
                        e.eq();
                        e.raw(match d {
                            SignalDirection::Internal => e.t.internal,
                            SignalDirection::External => e.t.external,
                            SignalDirection::Both => e.t.both,
                        });
                        Ok(())
                    })?;
                }
                if let Some(rid) = sig.request_id {
                    e.item(&mut sep, s1, |e| {
                        e.sig_request_id(rid);
                        Ok(())
                    })?;
                }
                if let Some(d) = sig.intersig_delay {
                    e.item(&mut sep, s1, |e| {
                        e.raw(e.t.intsig_delay);
                        e.eq();
                        e.num(d as u64);
                        Ok(())
                    })?;
                }
            }
            Ok(())
        })
    }

    fn sig_request_id(&mut self, rid: u32) {
        self.raw(self.t.request_id);
        self.eq();
        self.request_id(rid);
    }

    fn notify_completion(&mut self, nc: &[NotifyCompletion], s: usize) -> R {
        self.raw(self.t.notify_completion);
        self.eq();
        self.lb_i(s);
        let s1 = s + 1;
        for (i, c) in nc.iter().enumerate() {
            if i > 0 {
                self.comma_i(s1);
            }
            self.raw(match c {
                NotifyCompletion::OnTimeOut => self.t.time_out,
                NotifyCompletion::OnInterruptByEvent => self.t.interrupt_by_event,
                NotifyCompletion::OnInterruptByNewSignalDescr => {
                    self.t.interrupt_by_new_signals_descr
                }
                NotifyCompletion::OtherReason => self.t.other_reason,
                NotifyCompletion::OnIteration => {
                    if self.v < 3 {
                        return Err(invalid("notify completion", "Iteration needs v3"));
                    }
                    self.t.iteration
                }
            });
        }
        self.rb_i(s);
        Ok(())
    }

    // ---- digit maps -----------------------------------------------------

    pub(super) fn digit_map_descriptor(&mut self, dm: &DigitMapDescriptor, s: usize) -> R {
        let value = if self.v >= 3 {
            dm.digit_map_value.as_ref()
        } else {
            // v1/v2 treat an empty value as absent.
            dm.digit_map_value.as_ref().filter(|v| {
                v.start_timer.is_some()
                    || v.short_timer.is_some()
                    || v.long_timer.is_some()
                    || v.duration_timer.is_some()
                    || !v.digit_map_body.is_empty()
            })
        };
        self.raw(self.t.digit_map);
        self.eq();
        match (&dm.digit_map_name, value) {
            (None, None) => Err(invalid("DigitMap descriptor", "neither a name nor a value")),
            (Some(n), None) => self.name(n, "digit map name"),
            (n, Some(v)) => {
                if let Some(n) = n {
                    self.name(n, "digit map name")?;
                }
                self.lb_i(s);
                self.digit_map_value(v, s + 1)?;
                self.rb_i(s);
                Ok(())
            }
        }
    }

    fn digit_map_value(&mut self, v: &DigitMapValue, s: usize) -> R {
        let timers = [
            (v.start_timer, b'T'),
            (v.short_timer, b'S'),
            (v.long_timer, b'L'),
            (v.duration_timer, b'Z'),
        ];
        for (t, prefix) in timers {
            if let Some(t) = t {
                if t > 99 {
                    return Err(invalid("digit map timer", "above 99"));
                }
                if prefix == b'Z' && self.v < 2 {
                    return Err(invalid("digit map timer", "Z: needs v2"));
                }
                self.byte(prefix);
                self.byte(b':');
                self.num(t as u64);
                self.comma_i(s);
            }
        }
        // The body is read back raw up to the closing `}`, whitespace
        // trimmed, so it must be a digit map (H.248.1 digitMap: digits,
        // letters, `#*.[]-()|` and inner spaces) and not empty.
        let body = v.digit_map_body.as_bytes();
        let allowed = |b: &u8| b.is_ascii_alphanumeric() || b"#*.[]-()| \t".contains(b);
        if body.is_empty() {
            return Err(invalid("digit map", "empty body"));
        }
        if !body.iter().all(allowed)
            || body.first().is_some_and(|b| b.is_ascii_whitespace())
            || body.last().is_some_and(|b| b.is_ascii_whitespace())
        {
            return Err(invalid(
                "digit map",
                "the body holds characters a digit map cannot",
            ));
        }
        self.str(&v.digit_map_body);
        Ok(())
    }

    // ---- statistics and packages ----------------------------------------

    pub(super) fn statistics_descriptor(&mut self, sd: &[StatisticsParameter], s: usize) -> R {
        self.raw(self.t.stats);
        if sd.is_empty() && self.v >= 3 {
            return Ok(());
        }
        self.lb_i(s);
        let s1 = s + 1;
        for (i, p) in sd.iter().enumerate() {
            if i > 0 {
                self.comma_i(s1);
            }
            self.pkgd_name(&p.stat_name)?;
            match p.stat_value.as_deref() {
                None => {}
                Some([v]) => {
                    self.eq();
                    self.value(v)?;
                }
                Some(_) => {
                    return Err(invalid("statistic", "text carries exactly one value"));
                }
            }
        }
        self.rb_i(s);
        Ok(())
    }

    /// `name-version`; the version is 0..=99 (as in the ASN.1).
    fn package_item(&mut self, name: &str, version: u8) -> R {
        if version > 99 {
            return Err(invalid("package version", "above 99"));
        }
        self.name(name, "package name")?;
        self.byte(b'-');
        self.num(u64::from(version));
        Ok(())
    }

    fn packages_descriptor(&mut self, pd: &[PackagesItem], s: usize) -> R {
        self.raw(self.t.packages);
        let s1 = s + 1;
        self.braces(s, "Packages descriptor", |e| {
            for (i, p) in pd.iter().enumerate() {
                if i > 0 {
                    e.comma_i(s1);
                }
                e.package_item(&p.package_name, p.package_version)?;
            }
            Ok(())
        })
    }

    // ---- audit ----------------------------------------------------------

    pub(super) fn audit_descriptor(&mut self, ad: &AuditDescriptor, s: usize) -> R {
        self.raw(self.t.audit);
        // An empty list is written as none (`Audit { }` reads back so).
        let tokens = ad.audit_token.as_deref().filter(|l| !l.is_empty());
        let props = if self.v >= 2 {
            ad.audit_property_token.as_deref().filter(|l| !l.is_empty())
        } else {
            None
        };
        let s1 = s + 1;
        match (tokens, props) {
            (None, None) => {
                self.lb();
                self.rb();
            }
            (Some(list), None) => {
                self.lb_i(s);
                self.audit_items(list, s1);
                self.rb_i(s);
            }
            (None, Some(props)) => {
                self.lb_i(s);
                self.ind_aud_parameters(props, s1)?;
                self.rb_i(s);
            }
            (Some(list), Some(props)) => {
                self.lb_i(s);
                self.audit_items(list, s1);
                self.comma_i(s);
                self.ind_aud_parameters(props, s1)?;
                self.rb_i(s);
            }
        }
        Ok(())
    }

    fn audit_items(&mut self, list: &[AuditToken], s: usize) {
        for (i, t) in list.iter().enumerate() {
            if i > 0 {
                self.comma_i(s);
            }
            self.audit_token(*t);
        }
    }

    fn audit_token(&mut self, t: AuditToken) {
        self.raw(match t {
            AuditToken::Mux => self.t.mux,
            AuditToken::Modem => self.t.modem,
            AuditToken::Media => self.t.media,
            AuditToken::Events => self.t.events,
            AuditToken::Signals => self.t.signals,
            AuditToken::DigitMap => self.t.digit_map,
            AuditToken::Stats => self.t.stats,
            AuditToken::ObservedEvents => self.t.observed_events,
            AuditToken::Packages => self.t.packages,
            AuditToken::EventBuffer => self.t.event_buffer,
        });
    }

    fn ind_aud_parameters(&mut self, props: &[IndAuditParameter], s: usize) -> R {
        for (i, p) in props.iter().enumerate() {
            if i > 0 {
                self.comma_i(s);
            }
            self.ind_aud_parameter(p, s)?;
        }
        Ok(())
    }

    fn ind_aud_parameter(&mut self, p: &IndAuditParameter, s: usize) -> R {
        match p {
            IndAuditParameter::Media(m) => self.ind_aud_media(m, s),
            IndAuditParameter::Events(ev) => {
                if ev.stream_id.is_some() {
                    return Err(invalid("audited event", "a stream cannot be written"));
                }
                self.raw(self.t.events);
                match ev.request_id {
                    Some(rid) => {
                        self.eq();
                        self.request_id(rid);
                    }
                    None if self.v < 3 => {
                        return Err(invalid("audited event", "v2 needs a request id"));
                    }
                    None => {}
                }
                self.lb_i(s);
                self.pkgd_name(&ev.pkgd_name)?;
                self.rb_i(s);
                Ok(())
            }
            IndAuditParameter::EventBuffer(eb) => {
                self.raw(self.t.event_buffer);
                self.lb_i(s);
                self.pkgd_name(&eb.event_name)?;
                if let Some(sid) = eb.stream_id {
                    self.lb_i(s + 1);
                    self.event_stream(sid);
                    self.rb_i(s + 1);
                }
                self.rb_i(s);
                Ok(())
            }
            IndAuditParameter::Signals(sd) => {
                self.raw(self.t.signals);
                self.lb_i(s);
                match sd {
                    IndAudSignalsDescriptor::Signal(sig) => self.ind_aud_signal(sig, s + 1)?,
                    IndAudSignalsDescriptor::SeqSigList(l) => {
                        self.raw(self.t.signal_list);
                        self.eq();
                        self.num(l.id as u64);
                        match &l.signal_list {
                            Some(sig) => {
                                self.lb_i(s + 1);
                                self.ind_aud_signal(sig, s + 2)?;
                                self.rb_i(s + 1);
                            }
                            None if self.v < 3 => {
                                return Err(invalid("audited signal list", "v2 needs a signal"));
                            }
                            None => {}
                        }
                    }
                }
                self.rb_i(s);
                Ok(())
            }
            IndAuditParameter::DigitMap(dm) => match &dm.digit_map_name {
                Some(n) => {
                    self.raw(self.t.digit_map);
                    self.eq();
                    self.name(n, "digit map name")
                }
                None => Err(invalid("audited digit map", "needs a name")),
            },
            IndAuditParameter::Statistics(st) => {
                self.raw(self.t.stats);
                self.lb_i(s);
                self.pkgd_name(&st.stat_name)?;
                self.rb_i(s);
                Ok(())
            }
            IndAuditParameter::Packages(p) => {
                self.raw(self.t.packages);
                self.lb_i(s);
                self.package_item(&p.package_name, p.package_version)?;
                self.rb_i(s);
                Ok(())
            }
        }
    }

    fn ind_aud_signal(&mut self, sig: &IndAudSignal, s: usize) -> R {
        self.pkgd_name(&sig.signal_name)?;
        if sig.stream_id.is_none() && sig.signal_request_id.is_none() {
            return Ok(());
        }
        if self.v < 3 {
            return Err(invalid("audited signal", "v2 cannot write a stream"));
        }
        self.lb_i(s);
        let mut sep = false;
        if let Some(sid) = sig.stream_id {
            self.item(&mut sep, s, |e| {
                e.event_stream(sid);
                Ok(())
            })?;
        }
        if let Some(rid) = sig.signal_request_id {
            self.item(&mut sep, s, |e| {
                e.sig_request_id(rid);
                Ok(())
            })?;
        }
        self.rb_i(s);
        Ok(())
    }

    fn ind_aud_media(&mut self, m: &IndAudMediaDescriptor, s: usize) -> R {
        self.raw(self.t.media);
        let s1 = s + 1;
        self.braces(s, "audited media", |e| {
            match (&m.term_state_descr, &m.streams) {
                (None, None) => Err(invalid("audited media", "empty")),
                (None, Some(st)) => e.ind_aud_streams(st, s1),
                (Some(t), None) => e.ind_aud_term_state(t, s1),
                (Some(t), Some(st)) => {
                    if e.v < 3 {
                        return Err(invalid(
                            "audited media",
                            "v2 cannot audit termination state and streams together",
                        ));
                    }
                    e.ind_aud_term_state(t, s1)?;
                    e.comma_i(s);
                    e.nonempty("audited streams", "empty", |e| e.ind_aud_streams(st, s1))
                }
            }
        })
    }

    fn ind_aud_streams(&mut self, st: &IndAudStreams, s: usize) -> R {
        match st {
            IndAudStreams::OneStream(p) => self.ind_aud_stream_parms(p, s),
            IndAudStreams::MultiStream(list) => {
                if self.v < 3 {
                    let [one] = list.as_slice() else {
                        return Err(invalid("audited streams", "v2 audits exactly one stream"));
                    };
                    return self.ind_aud_stream_descriptor(one, s + 1);
                }
                let mut sep = false;
                for sd in list {
                    self.item(&mut sep, s, |e| e.ind_aud_stream_descriptor(sd, s))?;
                }
                Ok(())
            }
        }
    }

    fn ind_aud_stream_descriptor(&mut self, sd: &IndAudStreamDescriptor, s: usize) -> R {
        self.raw(self.t.stream);
        self.eq();
        self.num(sd.stream_id as u64);
        self.braces(s, "audited stream", |e| {
            e.ind_aud_stream_parms(&sd.stream_parms, s + 1)
        })
    }

    fn ind_aud_stream_parms(&mut self, p: &IndAudStreamParms, s: usize) -> R {
        if p.local_descriptor.is_some() || p.remote_descriptor.is_some() {
            return Err(invalid(
                "audited stream",
                "Local/Remote audit has no text form",
            ));
        }
        // Both OTP generators write these items one level deeper.
        let s1 = s + 1;
        if self.v < 3 {
            return match &p.local_control_descriptor {
                Some(l) => self.ind_aud_local_control(l, s1),
                None => Err(invalid("audited stream", "v2 audits LocalControl only")),
            };
        }
        let mut sep = false;
        if let Some(l) = &p.local_control_descriptor {
            self.item(&mut sep, s1, |e| e.ind_aud_local_control(l, s1))?;
        }
        if let Some(st) = &p.statistics_descriptor {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.stats);
                e.lb_i(s1);
                e.pkgd_name(&st.stat_name)?;
                e.rb_i(s1);
                Ok(())
            })?;
        }
        Ok(())
    }

    fn ind_aud_local_control(&mut self, l: &IndAudLocalControlDescriptor, s: usize) -> R {
        if l.stream_mode_sel.is_some() && l.stream_mode {
            return Err(invalid(
                "audited LocalControl",
                "mode audit and mode selection together",
            ));
        }
        self.raw(self.t.local_control);
        let s1 = s + 1;
        self.braces(s, "audited LocalControl", |e| {
            e.ind_aud_local_control_items(l, s1)
        })
    }

    fn ind_aud_local_control_items(&mut self, l: &IndAudLocalControlDescriptor, s1: usize) -> R {
        let mut sep = false;
        if l.stream_mode {
            self.item_tok(&mut sep, s1, self.t.mode);
        }
        if l.reserve_value {
            self.item_tok(&mut sep, s1, self.t.reserved_value);
        }
        if l.reserve_group {
            self.item_tok(&mut sep, s1, self.t.reserved_group);
        }
        if let Some(pp) = &l.property_parms {
            self.ind_aud_property_parms(pp, &mut sep, s1)?;
        }
        if self.v >= 3 {
            if let Some(m) = l.stream_mode_sel {
                self.item(&mut sep, s1, |e| {
                    e.stream_mode(m);
                    Ok(())
                })?;
            }
        }
        Ok(())
    }

    /// Audited properties, as elements of the enclosing list.
    ///
    /// OTP writes a property audited with a value (`IndAudPropertyParm`
    /// with `property_parms`) as two items, the name and then the valued
    /// property (`tdmc/gain, tdmc/gain=2`), and its parser folds such a
    /// pair back into one item; a valued property alone is not accepted.
    pub(super) fn ind_aud_property_parms(
        &mut self,
        list: &[IndAudPropertyParm],
        sep: &mut bool,
        s: usize,
    ) -> R {
        for p in list {
            self.item(sep, s, |e| e.pkgd_name(&p.name))?;
            if self.v >= 3 {
                if let Some(pp) = &p.property_parms {
                    self.item(sep, s, |e| e.property_parm(pp, s))?;
                }
            }
        }
        Ok(())
    }

    fn ind_aud_term_state(&mut self, t: &IndAudTerminationStateDescriptor, s: usize) -> R {
        let sel = if self.v >= 3 {
            t.service_state_sel
        } else {
            None
        };
        self.raw(self.t.termination_state);
        self.lb_i(s);
        match (
            t.property_parms.as_slice(),
            t.event_buffer_control,
            t.service_state,
            sel,
        ) {
            ([], false, true, None) => self.raw(self.t.service_states),
            ([], false, false, Some(st)) => self.service_state(st),
            ([], true, false, None) => self.raw(self.t.buffer),
            ([one], false, false, None) if one.property_parms.is_none() || self.v < 3 => {
                self.pkgd_name(&one.name)?
            }
            ([one], false, false, None) => {
                self.ind_aud_property_parms(std::slice::from_ref(one), &mut false, s + 1)?
            }
            _ => {
                return Err(invalid(
                    "audited TerminationState",
                    "text audits exactly one item of a termination state",
                ))
            }
        }
        self.rb_i(s);
        Ok(())
    }

    // ---- audit replies --------------------------------------------------

    pub(super) fn audit_return_parameter(&mut self, p: &AuditReturnParameter, s: usize) -> R {
        match p {
            AuditReturnParameter::Error(ed) => self.error_descriptor(ed),
            AuditReturnParameter::Media(m) => self.media_descriptor(m, s),
            AuditReturnParameter::Modem(m) => self.modem_descriptor(m, s),
            AuditReturnParameter::Mux(m) => self.mux_descriptor(m, s),
            AuditReturnParameter::Events(ev) => self.events_descriptor(ev, s),
            AuditReturnParameter::EventBuffer(eb) => self.event_buffer_descriptor(eb, s),
            AuditReturnParameter::Signals(sd) => self.signals_descriptor(sd, s),
            AuditReturnParameter::DigitMap(dm) => self.digit_map_descriptor(dm, s),
            AuditReturnParameter::ObservedEvents(oe) => self.observed_events_descriptor(oe, s),
            AuditReturnParameter::Statistics(st) => self.statistics_descriptor(st, s),
            AuditReturnParameter::Packages(pd) => self.packages_descriptor(pd, s),
            AuditReturnParameter::EmptyDescriptors(ad) => {
                // bare audit tokens (`Media, Events`); nothing else fits
                let Some(list) = ad.audit_token.as_ref().filter(|l| !l.is_empty()) else {
                    return Err(invalid("audited descriptors", "no audit tokens"));
                };
                if ad
                    .audit_property_token
                    .as_ref()
                    .is_some_and(|l| !l.is_empty())
                {
                    return Err(invalid(
                        "audited descriptors",
                        "property tokens have no text form in a reply",
                    ));
                }
                // v1/v2 indent these one level deeper than v3.
                let si = if self.v >= 3 { s } else { s + 1 };
                self.audit_items(list, si);
                Ok(())
            }
        }
    }

    // ---- service change -------------------------------------------------

    pub(super) fn service_change_parm(&mut self, p: &ServiceChangeParm, s: usize) -> R {
        self.raw(self.t.services);
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        self.item(&mut sep, s1, |e| {
            e.raw(e.t.method);
            e.eq();
            e.raw(match p.service_change_method {
                ServiceChangeMethod::Failover => e.t.failover,
                ServiceChangeMethod::Forced => e.t.forced,
                ServiceChangeMethod::Graceful => e.t.graceful,
                ServiceChangeMethod::Restart => e.t.restart,
                ServiceChangeMethod::Disconnected => e.t.disconnected,
                ServiceChangeMethod::HandOff => e.t.hand_off,
            });
            Ok(())
        })?;
        if let Some(a) = &p.service_change_address {
            self.item(&mut sep, s1, |e| e.service_change_address(a))?;
        }
        if let Some(v) = p.service_change_version {
            self.item(&mut sep, s1, |e| e.service_change_version(v))?;
        }
        if let Some(pf) = &p.service_change_profile {
            self.item(&mut sep, s1, |e| e.service_change_profile(pf))?;
        }
        match p.service_change_reason.as_slice() {
            [] => {
                return Err(invalid(
                    "service change reason",
                    "missing (text requires one)",
                ))
            }
            [reason] => self.item(&mut sep, s1, |e| {
                e.raw(e.t.reason);
                e.eq();
                e.quoted_string(reason, "service change reason")
            })?,
            _ => {
                return Err(invalid(
                    "service change reason",
                    "text carries exactly one reason",
                ))
            }
        }
        if let Some(d) = p.service_change_delay {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.delay);
                e.eq();
                e.num(d as u64);
                Ok(())
            })?;
        }
        if let Some(m) = &p.service_change_mgc_id {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.mgc_id);
                e.eq();
                e.mid(m)
            })?;
        }
        if let Some(tn) = &p.time_stamp {
            self.item(&mut sep, s1, |e| e.time_notation(tn))?;
        }
        if p.non_standard_data.is_some() {
            return Err(invalid(
                "service change parameters",
                "non-standard data has no text form",
            ));
        }
        if let Some(ad) = &p.service_change_info {
            if self.v < 2 {
                return Err(invalid("service change parameters", "audit items need v2"));
            }
            if let Some(list) = &ad.audit_token {
                for t in list {
                    self.item(&mut sep, s1, |e| {
                        e.audit_token(*t);
                        Ok(())
                    })?;
                }
            }
            if let Some(props) = &ad.audit_property_token {
                for ip in props {
                    self.item(&mut sep, s1, |e| e.ind_aud_parameter(ip, s1))?;
                }
            }
        }
        if p.service_change_incomplete_flag && self.v >= 3 {
            self.item_tok(&mut sep, s1, self.t.service_change_incomplete);
        }
        self.rb_i(s);
        Ok(())
    }

    fn service_change_address(&mut self, a: &ServiceChangeAddress) -> R {
        self.raw(self.t.service_change_address);
        self.eq();
        match a {
            ServiceChangeAddress::PortNumber(p) => {
                self.num(*p as u64);
                Ok(())
            }
            ServiceChangeAddress::Ip4(a) => self.ip4(a),
            ServiceChangeAddress::Ip6(a) => self.ip6(a),
            ServiceChangeAddress::Domain(d) => self.domain(d),
            ServiceChangeAddress::Device(d) => self.name(d, "device name"),
            ServiceChangeAddress::Mtp(m) => self.mtp(m),
        }
    }

    fn service_change_version(&mut self, v: u8) -> R {
        if v > 99 {
            return Err(invalid("service change version", "above 99"));
        }
        self.raw(self.t.version);
        self.eq();
        self.num(v as u64);
        Ok(())
    }

    fn service_change_profile(&mut self, pf: &ServiceChangeProfile) -> R {
        if pf.version > 99 {
            return Err(invalid("service change profile version", "above 99"));
        }
        self.raw(self.t.profile);
        self.eq();
        self.name(&pf.profile_name, "profile name")?;
        self.byte(b'/');
        self.num(pf.version as u64);
        Ok(())
    }

    /// A ServiceChange reply's parameters (`{ Services { … } }`), left out
    /// when empty.
    pub(super) fn service_change_res_parm(&mut self, p: &ServiceChangeResParm, s: usize) -> R {
        let s2 = s + 2;
        let mark = self.mark();
        self.lb_i(s);
        self.raw(self.t.services);
        self.lb_i(s + 1);
        let start = self.mark();
        let mut sep = false;
        if let Some(a) = &p.service_change_address {
            self.item(&mut sep, s2, |e| e.service_change_address(a))?;
        }
        if let Some(v) = p.service_change_version {
            self.item(&mut sep, s2, |e| e.service_change_version(v))?;
        }
        if let Some(pf) = &p.service_change_profile {
            self.item(&mut sep, s2, |e| e.service_change_profile(pf))?;
        }
        if let Some(m) = &p.service_change_mgc_id {
            self.item(&mut sep, s2, |e| {
                e.raw(e.t.mgc_id);
                e.eq();
                e.mid(m)
            })?;
        }
        if let Some(tn) = &p.time_stamp {
            self.item(&mut sep, s2, |e| e.time_notation(tn))?;
        }
        if self.mark() == start {
            self.out.truncate(mark);
        } else {
            self.rb_i(s + 1);
            self.rb_i(s);
        }
        Ok(())
    }
}
