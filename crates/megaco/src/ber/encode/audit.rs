//! Model → BER: audit descriptors and the individual audit items.

use super::*;

impl Enc<'_> {
    pub(super) fn package_name(&mut self, tag: u8, name: &str) -> R {
        let code = self
            .reg
            .encode_package(name)
            .map_err(|e| invalid("package name", e))?;
        self.prim(tag, &code);
        Ok(())
    }

    pub(super) fn audit_descriptor(&mut self, tag: u8, ad: &AuditDescriptor) -> R {
        let s = self.open(tag);
        if let Some(tokens) = &ad.audit_token {
            self.bits(p(0), tokens);
        }
        if let Some(items) = &ad.audit_property_token {
            let l = self.open(c(1));
            for it in items {
                self.ind_audit_parameter(it)?;
            }
            self.close(l);
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn ind_audit_parameter(&mut self, it: &IndAuditParameter) -> R {
        match it {
            IndAuditParameter::Media(m) => {
                let s = self.open(c(0));
                if let Some(ts) = &m.term_state_descr {
                    let t = self.open(c(0));
                    let l = self.open(c(0));
                    for pp in &ts.property_parms {
                        self.ind_aud_property_parm(pp)?;
                    }
                    self.close(l);
                    self.flag(p(1), ts.event_buffer_control);
                    self.flag(p(2), ts.service_state);
                    if let Some(ss) = ts.service_state_sel {
                        self.enumerated(p(3), ss);
                    }
                    self.close(t);
                }
                if let Some(st) = &m.streams {
                    let x = self.open(c(1));
                    match st {
                        IndAudStreams::OneStream(sp) => self.ind_aud_stream_parms(c(0), sp)?,
                        IndAudStreams::MultiStream(v) => {
                            let l = self.open(c(1));
                            for sd in v {
                                let e = self.open(SEQ);
                                self.uint(p(0), u64::from(sd.stream_id));
                                self.ind_aud_stream_parms(c(1), &sd.stream_parms)?;
                                self.close(e);
                            }
                            self.close(l);
                        }
                    }
                    self.close(x);
                }
                self.close(s);
            }
            IndAuditParameter::Events(e) => {
                let s = self.open(c(1));
                self.opt_uint(p(0), e.request_id);
                self.pkgd(p(1), ItemKind::Event, &e.pkgd_name)?;
                self.opt_uint(p(2), e.stream_id);
                self.close(s);
            }
            IndAuditParameter::EventBuffer(e) => {
                let s = self.open(c(2));
                self.pkgd(p(0), ItemKind::Event, &e.event_name)?;
                self.opt_uint(p(1), e.stream_id);
                self.close(s);
            }
            IndAuditParameter::Signals(sd) => {
                let s = self.open(c(3));
                match sd {
                    IndAudSignalsDescriptor::Signal(sig) => self.ind_aud_signal(c(0), sig)?,
                    IndAudSignalsDescriptor::SeqSigList(l) => {
                        let x = self.open(c(1));
                        self.uint(p(0), u64::from(l.id));
                        if let Some(sig) = &l.signal_list {
                            self.ind_aud_signal(c(1), sig)?;
                        }
                        self.close(x);
                    }
                }
                self.close(s);
            }
            IndAuditParameter::DigitMap(d) => {
                let s = self.open(c(4));
                if let Some(n) = &d.digit_map_name {
                    self.digit_map_name(p(0), n)?;
                }
                self.close(s);
            }
            IndAuditParameter::Statistics(st) => {
                let s = self.open(c(5));
                self.pkgd(p(0), ItemKind::Statistic, &st.stat_name)?;
                self.close(s);
            }
            IndAuditParameter::Packages(pk) => {
                let s = self.open(c(6));
                self.package_name(p(0), &pk.package_name)?;
                let v = bounded(pk.package_version, 99, "packageVersion")?;
                self.uint(p(1), u64::from(v));
                self.close(s);
            }
        }
        Ok(())
    }

    pub(super) fn ind_aud_signal(&mut self, tag: u8, sig: &IndAudSignal) -> R {
        let s = self.open(tag);
        self.pkgd(p(0), ItemKind::Signal, &sig.signal_name)?;
        self.opt_uint(p(1), sig.stream_id);
        self.opt_uint(p(2), sig.signal_request_id);
        self.close(s);
        Ok(())
    }

    pub(super) fn ind_aud_stream_parms(&mut self, tag: u8, sp: &IndAudStreamParms) -> R {
        let s = self.open(tag);
        if let Some(lc) = &sp.local_control_descriptor {
            let x = self.open(c(0));
            self.flag(p(0), lc.stream_mode);
            self.flag(p(1), lc.reserve_value);
            self.flag(p(2), lc.reserve_group);
            if let Some(pps) = &lc.property_parms {
                let l = self.open(c(3));
                for pp in pps {
                    self.ind_aud_property_parm(pp)?;
                }
                self.close(l);
            }
            if let Some(m) = lc.stream_mode_sel {
                self.enumerated(p(4), m);
            }
            self.close(x);
        }
        for (n, lr) in [(0u8, &sp.local_descriptor), (1, &sp.remote_descriptor)] {
            if let Some(lr) = lr {
                let x = self.open(c(1 + n));
                self.opt_uint(p(0), lr.prop_group_id);
                let l = self.open(c(1));
                for pp in &lr.prop_grps {
                    self.ind_aud_property_parm(pp)?;
                }
                self.close(l);
                self.close(x);
            }
        }
        if let Some(st) = &sp.statistics_descriptor {
            let x = self.open(c(3));
            self.pkgd(p(0), ItemKind::Statistic, &st.stat_name)?;
            self.close(x);
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn ind_aud_property_parm(&mut self, pp: &IndAudPropertyParm) -> R {
        let s = self.open(SEQ);
        self.pkgd(p(0), ItemKind::Property, &pp.name)?;
        if let Some(prop) = &pp.property_parms {
            self.property_parm(c(1), prop)?;
        }
        self.close(s);
        Ok(())
    }
}
