//! Audits: what to audit (`Audit { … }` and the v2 individual audit
//! items) and the Packages descriptor.
//!
//! One method per construct, following the layout of OTP's
//! `megaco_text_gen_v1/v2/v3` generators; `s` is the indentation depth of
//! the construct being written (ignored by the compact form).

use super::{invalid, Enc, R};
use crate::model::*;

impl Enc<'_> {
    /// `name-version`; the version is 0..=99 (as in the ASN.1).
    pub(super) fn package_item(&mut self, name: &str, version: u8) -> R {
        if version > 99 {
            return Err(invalid("package version", "above 99"));
        }
        self.grammar_name(name, "package name")?;
        self.byte(b'-');
        self.num(u64::from(version));
        Ok(())
    }

    pub(super) fn packages_descriptor(&mut self, pd: &[PackagesItem], s: usize) -> R {
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

    pub(super) fn audit_items(&mut self, list: &[AuditToken], s: usize) {
        for (i, t) in list.iter().enumerate() {
            if i > 0 {
                self.comma_i(s);
            }
            self.audit_token(*t);
        }
    }

    pub(super) fn audit_token(&mut self, t: AuditToken) {
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

    pub(super) fn ind_aud_parameters(&mut self, props: &[IndAuditParameter], s: usize) -> R {
        for (i, p) in props.iter().enumerate() {
            if i > 0 {
                self.comma_i(s);
            }
            self.ind_aud_parameter(p, s)?;
        }
        Ok(())
    }

    pub(super) fn ind_aud_parameter(&mut self, p: &IndAuditParameter, s: usize) -> R {
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
                    self.grammar_name(n, "digit map name")
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

    pub(super) fn ind_aud_signal(&mut self, sig: &IndAudSignal, s: usize) -> R {
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

    pub(super) fn ind_aud_media(&mut self, m: &IndAudMediaDescriptor, s: usize) -> R {
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

    pub(super) fn ind_aud_streams(&mut self, st: &IndAudStreams, s: usize) -> R {
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

    pub(super) fn ind_aud_stream_descriptor(&mut self, sd: &IndAudStreamDescriptor, s: usize) -> R {
        // `Stream = id { item }` holds exactly one item (as Erlang/OTP's
        // parser reads it; its encoder writes both and cannot read them
        // back). The single-stream form lists several.
        let p = &sd.stream_parms;
        if p.local_control_descriptor.is_some() && p.statistics_descriptor.is_some() {
            return Err(invalid(
                "audited stream",
                "`Stream = id { … }` holds one item: LocalControl or Statistics",
            ));
        }
        self.raw(self.t.stream);
        self.eq();
        self.num(sd.stream_id as u64);
        self.braces(s, "audited stream", |e| {
            e.nonempty("audited stream", "empty", |e| {
                e.ind_aud_stream_parms(p, s + 1)
            })
        })
    }

    pub(super) fn ind_aud_stream_parms(&mut self, p: &IndAudStreamParms, s: usize) -> R {
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

    pub(super) fn ind_aud_local_control(
        &mut self,
        l: &IndAudLocalControlDescriptor,
        s: usize,
    ) -> R {
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

    pub(super) fn ind_aud_local_control_items(
        &mut self,
        l: &IndAudLocalControlDescriptor,
        s1: usize,
    ) -> R {
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

    pub(super) fn ind_aud_term_state(
        &mut self,
        t: &IndAudTerminationStateDescriptor,
        s: usize,
    ) -> R {
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
}
