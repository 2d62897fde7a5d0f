//! Media and its streams, properties and their values, and the Mux,
//! Modem, DigitMap and Statistics descriptors.
//!
//! One method per construct, following the layout of OTP's
//! `megaco_text_gen_v1/v2/v3` generators; `s` is the indentation depth of
//! the construct being written (ignored by the compact form).

use super::{invalid, Enc, R};
use crate::model::*;

impl Enc<'_> {
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

    pub(super) fn stream_parms(&mut self, p: &StreamParms, sep: &mut bool, s: usize) -> R {
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

    pub(super) fn local_control_descriptor(&mut self, l: &LocalControlDescriptor, s: usize) -> R {
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

    pub(super) fn stream_mode(&mut self, m: StreamMode) {
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
    pub(super) fn local_remote(
        &mut self,
        token: &'static [u8],
        d: &LocalRemoteDescriptor,
        s: usize,
    ) -> R {
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
                for (j, p) in g.iter().enumerate() {
                    // The decoder starts a group at each `v=` line.
                    if j > 0 && p.name == "v" {
                        return Err(invalid(
                            "SDP property group",
                            "a v= line other than a group's first would start a new group",
                        ));
                    }
                    let [value] = p.value.as_slice() else {
                        return Err(invalid("SDP property", "needs exactly one value"));
                    };
                    if p.extra_info.is_some() {
                        return Err(invalid(
                            "SDP property",
                            "a relation, range or sublist has no SDP form",
                        ));
                    }
                    // A line ends at CR or LF: a value holding one would
                    // read back as two lines.
                    if value.bytes().any(|b| b == b'\r' || b == b'\n') {
                        return Err(invalid("SDP value", "a line end inside a line"));
                    }
                    self.name(&p.name, "SDP property name")?;
                    self.byte(b'=');
                    self.octet_string(value, "SDP value")?;
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

    pub(super) fn service_state(&mut self, st: ServiceState) {
        self.raw(self.t.service_states);
        self.eq();
        self.raw(match st {
            ServiceState::Test => self.t.test,
            ServiceState::OutOfSvc => self.t.out_of_svc,
            ServiceState::InSvc => self.t.in_svc,
        });
    }

    pub(super) fn property_parm(&mut self, p: &PropertyParm, s: usize) -> R {
        self.pkgd_name(&p.name)?;
        self.parm_values(&p.value, p.extra_info.as_ref(), s)
    }

    /// An event or signal parameter (`NAME parmValue`).
    pub(super) fn parameter(&mut self, p: &PropertyParm, s: usize) -> R {
        self.grammar_name(&p.name, "parameter name")?;
        self.parm_values(&p.value, p.extra_info.as_ref(), s)
    }

    /// An event parameter: `ds` (the dd/ce digit string) is always quoted.
    pub(super) fn event_parameter(&mut self, p: &PropertyParm, s: usize) -> R {
        if p.name == "ds" && p.extra_info.is_none() {
            if let [ds] = p.value.as_slice() {
                self.raw(b"ds=");
                return self.quoted_string(ds, "digit string");
            }
        }
        self.parameter(p, s)
    }

    pub(super) fn parm_values(
        &mut self,
        values: &[CompactString],
        extra: Option<&ExtraInfo>,
        s: usize,
    ) -> R {
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
                    "{} value(s) with extra_info {:?} have no text form (one value, \
                     with no extra_info or a relation; two with Range(true); any \
                     number with Sublist)",
                    values.len(),
                    extra
                ),
            )),
        }
    }

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

    pub(super) fn modem_type(&mut self, t: ModemType) {
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
            (Some(n), None) => self.grammar_name(n, "digit map name"),
            (n, Some(v)) => {
                if let Some(n) = n {
                    self.grammar_name(n, "digit map name")?;
                }
                self.lb_i(s);
                self.digit_map_value(v, s + 1)?;
                self.rb_i(s);
                Ok(())
            }
        }
    }

    pub(super) fn digit_map_value(&mut self, v: &DigitMapValue, s: usize) -> R {
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

    pub(super) fn statistics_descriptor(&mut self, sd: &[StatisticsParameter], s: usize) -> R {
        self.raw(self.t.stats);
        // Empty: the bare token, an audit item in every version (`{ }`
        // would not read back).
        if sd.is_empty() {
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
}
