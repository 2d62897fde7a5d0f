//! Media and its streams, properties and their values, and the Mux,
//! Modem, DigitMap and Statistics descriptors.

use super::{lower, lower_as, text, Parser};
use crate::model::*;
use crate::text::keyword::Kw;
use crate::text::lexer::{is_safe, is_ws, Tok, R, TIMER};
use crate::text::scalar::{name_case, pkgd_name_case};

/// A DigitMap keyword with what followed it.
pub(super) enum Dm {
    /// The bare keyword (an audit item).
    Bare,
    Desc(DigitMapDescriptor),
}

impl Parser<'_> {
    /// `{ mediaParm, ... }` after `Media`, into `md`.
    pub(super) fn media_descriptor(&mut self, md: &mut MediaDescriptor) -> R<()> {
        self.open()?;
        let mut multi: SmallList<StreamDescriptor> = SmallList::new();
        // `mediaDescriptor = MediaToken LBRKT mediaParm *(COMMA mediaParm)
        // RBRKT`: at least one.
        self.items(|p| {
            const WHAT: &str = "a media parameter (Stream, Local, Remote, LocalControl, TerminationState, Statistics)";
            let t = p.token(WHAT)?;
            match t.kw {
                Some(Kw::TerminationState) => {
                    if md.term_state_descr.is_some() {
                        return Err(p.dup(t.at, "TerminationState"));
                    }
                    md.term_state_descr = Some(p.termination_state()?);
                }
                Some(Kw::Stream) => {
                    if md.streams.is_some() {
                        return Err(p.invalid(t.at, t.text, "Stream after stream parameters"));
                    }
                    p.equal()?;
                    let stream_id = p.u16_word("a stream id")?;
                    let mut stream_parms = StreamParms::default();
                    p.braced(|p| {
                        let t = p.token("a stream parameter")?;
                        p.stream_parm(t, &mut stream_parms)
                    })?;
                    multi.push(StreamDescriptor {
                        stream_id,
                        stream_parms,
                    });
                }
                Some(Kw::Stats) if p.version < 3 => return Err(p.unknown(t, WHAT)),
                Some(Kw::Local | Kw::Remote | Kw::LocalControl | Kw::Stats) => {
                    if !multi.is_empty() {
                        return Err(p.invalid(t.at, t.text, "stream parameter after Stream"));
                    }
                    let sp = match md
                        .streams
                        .get_or_insert_with(|| Streams::OneStream(StreamParms::default()))
                    {
                        Streams::OneStream(sp) => sp,
                        Streams::MultiStream(_) => return Err(p.unknown(t, WHAT)),
                    };
                    p.stream_parm(t, sp)?;
                }
                _ => return Err(p.unknown(t, WHAT)),
            }
            Ok(())
        })?;
        if !multi.is_empty() {
            md.streams = Some(Streams::MultiStream(multi));
        }
        Ok(())
    }

    fn stream_parm(&mut self, t: Tok<'_>, sp: &mut StreamParms) -> R<()> {
        match t.kw {
            Some(Kw::Local) => {
                if sp.local_descriptor.is_some() {
                    return Err(self.dup(t.at, "Local"));
                }
                sp.local_descriptor = Some(LocalRemoteDescriptor {
                    prop_grps: self.sdp()?,
                });
            }
            Some(Kw::Remote) => {
                if sp.remote_descriptor.is_some() {
                    return Err(self.dup(t.at, "Remote"));
                }
                sp.remote_descriptor = Some(LocalRemoteDescriptor {
                    prop_grps: self.sdp()?,
                });
            }
            Some(Kw::LocalControl) => {
                let l = sp
                    .local_control_descriptor
                    .get_or_insert_with(Default::default);
                self.local_control(l)?;
            }
            Some(Kw::Stats) if self.version >= 3 => {
                if sp.statistics_descriptor.is_some() {
                    return Err(self.dup(t.at, "Statistics"));
                }
                sp.statistics_descriptor = Some(self.statistics_descriptor()?);
            }
            _ => {
                return Err(self.unknown(
                    t,
                    "a stream parameter (Local, Remote, LocalControl, Statistics)",
                ))
            }
        }
        Ok(())
    }

    /// `Local { SDP }` / `Remote { SDP }`: property groups, a new group
    /// at each `v=` line; each line `name=value`. A `\}` in a value is an
    /// escaped `}` (`nonEscapeChar`), which the value holds as `}`: the
    /// encoder escapes every `}` of a value (as OTP's does), so the two
    /// give back what they were given, both ways. OTP's scanner differs:
    /// it ends the descriptor at the first `}`, escaped or not.
    pub(super) fn sdp(&mut self) -> R<SmallList<Vec<PropertyParm>>> {
        let (base, sdp) = self.octet_string()?;
        let b = sdp.as_bytes();
        let escaped = b.contains(&b'\\');
        let value = |v: &str| -> CompactString {
            if escaped && v.contains("\\}") {
                v.replace("\\}", "}").into()
            } else {
                v.into()
            }
        };
        let mut groups: SmallList<Vec<PropertyParm>> = SmallList::new();
        let mut group: Vec<PropertyParm> = Vec::new();
        let mut i = 0;
        while i < b.len() {
            // Skip blank space and line ends before a name.
            while i < b.len() && is_ws(b[i]) {
                i += 1;
            }
            if i >= b.len() {
                break;
            }
            let name_start = i;
            while i < b.len() && b[i] != b'=' {
                if !is_safe(b[i]) {
                    let bad = sdp.get(name_start..=i).unwrap_or_default();
                    return Err(self.invalid(base + i, bad, "SDP line name"));
                }
                i += 1;
            }
            let name = &sdp[name_start..i];
            if i >= b.len() {
                // A name running to the end: an empty value, as OTP. It is
                // written back as `name=`, so a `v` starts a group here too.
                if name == "v" && !group.is_empty() {
                    groups.push(std::mem::take(&mut group));
                }
                group.push(PropertyParm::new(name, ""));
                break;
            }
            if name.is_empty() {
                return Err(self.invalid(base + i, "=", "SDP line name"));
            }
            i += 1; // '='
            let value_start = i;
            while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
                i += 1;
            }
            if name == "v" && !group.is_empty() {
                groups.push(std::mem::take(&mut group));
            }
            group.push(PropertyParm {
                name: name.into(),
                value: smallvec![value(&sdp[value_start..i])],
                extra_info: None,
            });
            if group.len() > self.limits.max_list_len {
                self.pos = base + i;
                return Err(self.too_many());
            }
        }
        if !group.is_empty() {
            groups.push(group);
        }
        Ok(groups)
    }

    fn local_control(&mut self, l: &mut LocalControlDescriptor) -> R<()> {
        self.braced(|p| {
            let t = p.token("a LocalControl parameter")?;
            match t.kw {
                Some(Kw::Mode) => {
                    if l.stream_mode.is_some() {
                        return Err(p.dup(t.at, "Mode"));
                    }
                    p.equal()?;
                    l.stream_mode = Some(p.stream_mode()?);
                }
                Some(Kw::ReservedGroup) => {
                    if l.reserve_group.is_some() {
                        return Err(p.dup(t.at, "ReservedGroup"));
                    }
                    p.equal()?;
                    l.reserve_group = Some(p.on_off()?);
                }
                Some(Kw::ReservedValue) => {
                    if l.reserve_value.is_some() {
                        return Err(p.dup(t.at, "ReservedValue"));
                    }
                    p.equal()?;
                    l.reserve_value = Some(p.on_off()?);
                }
                _ => {
                    let name = p.pkgd_name_from(t.at, t.text)?;
                    l.property_parms.push(p.parm_value(name)?);
                }
            }
            Ok(())
        })
    }

    pub(super) fn stream_mode(&mut self) -> R<StreamMode> {
        const WHAT: &str = "a stream mode (SendOnly, ReceiveOnly, SendReceive, Inactive, LoopBack)";
        let t = self.token(WHAT)?;
        Ok(match t.kw {
            Some(Kw::Sendonly) => StreamMode::SendOnly,
            Some(Kw::Recvonly) => StreamMode::RecvOnly,
            Some(Kw::Sendrecv) => StreamMode::SendRecv,
            Some(Kw::Inactive) => StreamMode::Inactive,
            Some(Kw::Loopback) => StreamMode::LoopBack,
            _ => return Err(self.unknown(t, WHAT)),
        })
    }

    pub(super) fn service_state(&mut self) -> R<ServiceState> {
        const WHAT: &str = "a service state (Test, OutOfService, InService)";
        let t = self.token(WHAT)?;
        Ok(match t.kw {
            Some(Kw::Test) => ServiceState::Test,
            Some(Kw::OutOfSvc) => ServiceState::OutOfSvc,
            Some(Kw::InSvc) => ServiceState::InSvc,
            _ => return Err(self.unknown(t, WHAT)),
        })
    }

    fn termination_state(&mut self) -> R<TerminationStateDescriptor> {
        let mut ts = TerminationStateDescriptor::default();
        self.braced(|p| {
            let t = p.token("a TerminationState parameter")?;
            match t.kw {
                Some(Kw::ServiceStates) => {
                    if ts.service_state.is_some() {
                        return Err(p.dup(t.at, "ServiceStates"));
                    }
                    p.equal()?;
                    ts.service_state = Some(p.service_state()?);
                }
                Some(Kw::Buffer) => {
                    if ts.event_buffer_control.is_some() {
                        return Err(p.dup(t.at, "Buffer"));
                    }
                    p.equal()?;
                    let t2 = p.token("Off or LockStep")?;
                    ts.event_buffer_control = Some(match t2.kw {
                        Some(Kw::Off) => EventBufferControl::Off,
                        Some(Kw::LockStep) => EventBufferControl::LockStep,
                        _ => return Err(p.unknown(t2, "Off or LockStep")),
                    });
                }
                _ => {
                    let name = p.pkgd_name_from(t.at, t.text)?;
                    ts.property_parms.push(p.parm_value(name)?);
                }
            }
            Ok(())
        })?;
        Ok(ts)
    }

    /// `= type [{props}]` or `[type, type] [{props}]` after `Modem`.
    pub(super) fn modem_descriptor(&mut self) -> R<ModemDescriptor> {
        let mut md = ModemDescriptor::default();
        if self.open_square()? {
            self.square_items(|p| {
                md.mtl.push(p.modem_type()?);
                Ok(())
            })?;
        } else {
            self.equal()?;
            md.mtl.push(self.modem_type()?);
        }
        if self.peek() == Some(b'{') {
            self.braced(|p| {
                md.mpl.push(p.property_parm()?);
                Ok(())
            })?;
        }
        Ok(md)
    }

    fn modem_type(&mut self) -> R<ModemType> {
        const WHAT: &str = "a modem type";
        let t = self.token(WHAT)?;
        Ok(match t.kw {
            Some(Kw::V18) => ModemType::V18,
            Some(Kw::V22) => ModemType::V22,
            Some(Kw::V22bis) => ModemType::V22bis,
            Some(Kw::V32) => ModemType::V32,
            Some(Kw::V32bis) => ModemType::V32bis,
            Some(Kw::V34) => ModemType::V34,
            Some(Kw::V90) => ModemType::V90,
            Some(Kw::V91) => ModemType::V91,
            Some(Kw::SynchIsdn) => ModemType::SynchIsdn,
            _ => return Err(self.unknown(t, WHAT)),
        })
    }

    /// `= type { tids }` after `Mux`.
    pub(super) fn mux_descriptor(&mut self) -> R<MuxDescriptor> {
        self.equal()?;
        const WHAT: &str = "a multiplex type (H221, H223, H226, V76, Nx64Kservice)";
        let t = self.token(WHAT)?;
        let mux_type = match t.kw {
            Some(Kw::H221) => MuxType::H221,
            Some(Kw::H223) => MuxType::H223,
            Some(Kw::H226) => MuxType::H226,
            Some(Kw::V76) => MuxType::V76,
            Some(Kw::Nx64k) => MuxType::Nx64k,
            _ => return Err(self.unknown(t, WHAT)),
        };
        let term_list = self.termination_id_braces()?;
        Ok(MuxDescriptor {
            mux_type,
            term_list,
            non_standard_data: None,
        })
    }

    /// `{ name [= value | = [v, ...]], ... }` after `Statistics`.
    pub(super) fn statistics_descriptor(&mut self) -> R<StatisticsDescriptor> {
        let mut out = Vec::new();
        self.braced(|p| {
            let stat_name = p.pkgd_name()?;
            let stat_value = if p.eat(b'=') {
                let mut vals = Values::new();
                if p.open_square()? {
                    p.square_items(|p| {
                        vals.push(p.value()?);
                        Ok(())
                    })?;
                } else {
                    vals.push(p.value()?);
                }
                Some(vals)
            } else {
                None
            };
            out.push(StatisticsParameter {
                stat_name,
                stat_value,
            });
            Ok(())
        })?;
        Ok(out)
    }

    /// After `DigitMap`: `= name`, `= name { value }` or `= { value }`;
    /// or nothing (the bare keyword, an audit item). `bare_value`: also
    /// `{ value }` without the `=`, as OTP writes an event's digit map.
    pub(super) fn digit_map(&mut self, bare_value: bool) -> R<Dm> {
        if !self.eat(b'=') {
            if self.peek() != Some(b'{') {
                return Ok(Dm::Bare);
            }
            if !bare_value {
                return Err(self.expected("`=` after DigitMap"));
            }
            let (at, body) = self.octet_string()?;
            return Ok(Dm::Desc(DigitMapDescriptor {
                digit_map_name: None,
                digit_map_value: Some(self.digit_map_value(at, body)?),
            }));
        }
        let mut name = None;
        if self.peek() != Some(b'{') {
            let (at, w) = self.word("a digit map name or `{`")?;
            name = Some(self.name(at, w, "digit map name")?);
        }
        let value = if self.peek() == Some(b'{') {
            let (at, body) = self.octet_string()?;
            Some(self.digit_map_value(at, body)?)
        } else {
            None
        };
        Ok(Dm::Desc(DigitMapDescriptor {
            digit_map_name: name,
            digit_map_value: value,
        }))
    }

    /// `digitMapValue = ["T" COLON Timer COMMA] ["S" COLON Timer COMMA]
    /// ["L" COLON Timer COMMA] ["Z" COLON Timer COMMA] digitMap`: the
    /// timers in that order, each once (`Z` from v2 on), then a body,
    /// which must not be empty. The body is kept as written: Erlang/OTP
    /// does not check it either, and the corpus uses `#` and `*` where the
    /// v1 ABNF has `E` and `F`.
    fn digit_map_value(&self, at: usize, body: &str) -> R<DigitMapValue> {
        let b = body.as_bytes();
        let mut v = DigitMapValue::default();
        let mut i = 0;
        let mut next = 0;
        while b.len() >= i + 2 && b[i + 1] == b':' {
            let Some(k) = b"tslz".iter().position(|&c| c == b[i] | 0x20) else {
                break;
            };
            if k < next || (k == 3 && self.version < 2) {
                return Err(self.invalid(
                    at + i,
                    &body[i..i + 2],
                    "digit map timer (T, S, L, then Z from v2 on, each once)",
                ));
            }
            next = k + 1;
            let mut j = i + 2;
            let d0 = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let t = self.number(at + d0, &body[d0..j], "a digit map timer", TIMER)? as u8;
            while j < b.len() && is_ws(b[j]) {
                j += 1;
            }
            if b.get(j) != Some(&b',') {
                return Err(self.invalid(at + i, &body[i..j], "digit map timer (X:n,)"));
            }
            *[
                &mut v.start_timer,
                &mut v.short_timer,
                &mut v.long_timer,
                &mut v.duration_timer,
            ][k] = Some(t);
            j += 1;
            while j < b.len() && is_ws(b[j]) {
                j += 1;
            }
            i = j;
        }
        if i >= b.len() {
            return Err(self.missing(at + i, "digit map (the value is empty)"));
        }
        v.digit_map_body = text(&body[i..]);
        Ok(v)
    }

    // ---- properties ------------------------------------------------------

    /// `pkgdName`: `package/item` (either may be `*`), lower-cased.
    pub(super) fn pkgd_name_from(&self, at: usize, w: &str) -> R<CompactString> {
        match pkgd_name_case(w.as_bytes()) {
            Some(upper) => Ok(lower_as(w, upper)),
            None => Err(self.invalid(at, w, "package name (package/item)")),
        }
    }

    /// A `NAME` of the grammar, lower-cased.
    pub(super) fn name(&self, at: usize, w: &str, what: &'static str) -> R<CompactString> {
        match name_case(w.as_bytes()) {
            Some(upper) => Ok(lower_as(w, upper)),
            None => Err(self.invalid(at, w, what)),
        }
    }

    pub(super) fn pkgd_name(&mut self) -> R<CompactString> {
        let (at, w) = self.word("a package name (package/item)")?;
        self.pkgd_name_from(at, w)
    }

    /// `pkgdName parmValue`.
    pub(super) fn property_parm(&mut self) -> R<PropertyParm> {
        let name = self.pkgd_name()?;
        self.parm_value(name)
    }

    /// `= value`, `= {a,b}`, `= [a,b]`, `= [a:b]`, `# value`, `< value`,
    /// `> value` after a name.
    pub(super) fn parm_value(&mut self, name: CompactString) -> R<PropertyParm> {
        let relation = match self.peek() {
            Some(b'#') => Some(Relation::UnequalTo),
            Some(b'<') => Some(Relation::SmallerThan),
            Some(b'>') => Some(Relation::GreaterThan),
            Some(b'=') => None,
            _ => return Err(self.expected("`=`, `#`, `<` or `>`")),
        };
        self.pos += 1;
        let mut pp = PropertyParm {
            name,
            value: Values::new(),
            extra_info: None,
        };
        if let Some(r) = relation {
            pp.value.push(self.value()?);
            pp.extra_info = Some(ExtraInfo::Relation(r));
            return Ok(pp);
        }
        match self.peek() {
            Some(b'{') => {
                self.braced(|p| {
                    pp.value.push(p.value()?);
                    Ok(())
                })?;
                pp.extra_info = Some(ExtraInfo::Sublist(false));
            }
            Some(b'[') => {
                self.open_square()?;
                pp.value.push(self.value()?);
                if self.eat(b':') {
                    pp.value.push(self.value()?);
                    self.close_square()?;
                    pp.extra_info = Some(ExtraInfo::Range(true));
                } else {
                    let mut n = 0;
                    while self.eat(b',') {
                        self.count(&mut n)?;
                        pp.value.push(self.value()?);
                    }
                    self.close_square()?;
                    pp.extra_info = Some(ExtraInfo::Sublist(true));
                }
            }
            _ => pp.value.push(self.value()?),
        }
        Ok(pp)
    }

    /// `VALUE`: a quoted string (case kept) or safe characters
    /// (lower-cased, as OTP does).
    pub(super) fn value(&mut self) -> R<CompactString> {
        if self.peek() == Some(b'"') {
            Ok(text(self.quoted()?))
        } else {
            let (_, w) = self.word("a value")?;
            Ok(lower(w))
        }
    }
}
