//! Model → BER: properties, media, stream, statistics, modem, mux and non-standard data.

use super::*;

impl Enc<'_> {
    pub(super) fn property_parm(&mut self, tag: u8, pp: &PropertyParm) -> R {
        let s = self.open(tag);
        let code = self.pkgd(p(0), ItemKind::Property, &pp.name)?;
        let ty = if self.standard {
            self.reg.item_type(ItemKind::Property, code)
        } else {
            None
        };
        self.value(c(1), &pp.value, ty);
        self.extra_info(c(2), &pp.extra_info);
        self.close(s);
        Ok(())
    }

    pub(super) fn parameter(&mut self, kind: ItemKind, item: [u8; 4], pp: &PropertyParm) -> R {
        let s = self.open(SEQ);
        let code = self.param_name(p(0), kind, item, &pp.name)?;
        let ty = if self.standard {
            self.reg.parameter_type(kind, item, code)
        } else {
            None
        };
        self.value(c(1), &pp.value, ty);
        self.extra_info(c(2), &pp.extra_info);
        self.close(s);
        Ok(())
    }

    pub(super) fn parameters(
        &mut self,
        tag: u8,
        kind: ItemKind,
        item: [u8; 4],
        list: &[PropertyParm],
    ) -> R {
        let l = self.open(tag);
        for pp in list {
            self.parameter(kind, item, pp)?;
        }
        self.close(l);
        Ok(())
    }

    pub(super) fn media(&mut self, tag: u8, m: &MediaDescriptor) -> R {
        let s = self.open(tag);
        if let Some(ts) = &m.term_state_descr {
            let t = self.open(c(0));
            let l = self.open(c(0));
            for pp in &ts.property_parms {
                self.property_parm(SEQ, pp)?;
            }
            self.close(l);
            if let Some(b) = ts.event_buffer_control {
                self.enumerated(p(1), b);
            }
            if let Some(ss) = ts.service_state {
                self.enumerated(p(2), ss);
            }
            self.close(t);
        }
        if let Some(st) = &m.streams {
            let x = self.open(c(1));
            match st {
                Streams::OneStream(sp) => self.stream_parms(c(0), sp)?,
                Streams::MultiStream(v) => {
                    let l = self.open(c(1));
                    for sd in v {
                        let e = self.open(SEQ);
                        self.uint(p(0), u64::from(sd.stream_id));
                        self.stream_parms(c(1), &sd.stream_parms)?;
                        self.close(e);
                    }
                    self.close(l);
                }
            }
            self.close(x);
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn stream_parms(&mut self, tag: u8, sp: &StreamParms) -> R {
        let s = self.open(tag);
        if let Some(lc) = &sp.local_control_descriptor {
            let x = self.open(c(0));
            if let Some(m) = lc.stream_mode {
                self.enumerated(p(0), m);
            }
            self.opt_bool(p(1), lc.reserve_value);
            self.opt_bool(p(2), lc.reserve_group);
            let l = self.open(c(3));
            for pp in &lc.property_parms {
                self.property_parm(SEQ, pp)?;
            }
            self.close(l);
            self.close(x);
        }
        for (n, lr) in [(1u8, &sp.local_descriptor), (2, &sp.remote_descriptor)] {
            if let Some(lr) = lr {
                let x = self.open(c(n));
                let l = self.open(c(0));
                for g in &lr.prop_grps {
                    let gs = self.open(SEQ);
                    for pp in g {
                        self.property_parm(SEQ, pp)?;
                    }
                    self.close(gs);
                }
                self.close(l);
                self.close(x);
            }
        }
        if let Some(st) = &sp.statistics_descriptor {
            self.statistics(c(3), st)?;
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn statistics(&mut self, tag: u8, st: &[StatisticsParameter]) -> R {
        let l = self.open(tag);
        for sp in st {
            let e = self.open(SEQ);
            let code = self.pkgd(p(0), ItemKind::Statistic, &sp.stat_name)?;
            if let Some(v) = &sp.stat_value {
                let ty = if self.standard {
                    self.reg.item_type(ItemKind::Statistic, code)
                } else {
                    None
                };
                self.value(c(1), v, ty);
            }
            self.close(e);
        }
        self.close(l);
        Ok(())
    }

    pub(super) fn modem(&mut self, tag: u8, m: &ModemDescriptor) -> R {
        let s = self.open(tag);
        let l = self.open(c(0));
        for t in &m.mtl {
            self.enumerated(ENUMERATED, *t);
        }
        self.close(l);
        let l = self.open(c(1));
        for pp in &m.mpl {
            self.property_parm(SEQ, pp)?;
        }
        self.close(l);
        if let Some(n) = &m.non_standard_data {
            self.non_standard(c(2), n)?;
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn mux(&mut self, tag: u8, m: &MuxDescriptor) -> R {
        let s = self.open(tag);
        self.enumerated(p(0), m.mux_type);
        self.term_ids(c(1), &m.term_list)?;
        if let Some(n) = &m.non_standard_data {
            self.non_standard(c(2), n)?;
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn non_standard(&mut self, tag: u8, n: &NonStandardData) -> R {
        let s = self.open(tag);
        let id = self.open(c(0));
        match &n.non_standard_identifier {
            NonStandardIdentifier::Object(arcs) => {
                let mut buf = Vec::new();
                oid(arcs, &mut buf)?;
                self.prim(p(0), &buf);
            }
            NonStandardIdentifier::H221NonStandard(h) => {
                let x = self.open(c(1));
                self.uint(p(0), u64::from(h.t35_country_code1));
                self.uint(p(1), u64::from(h.t35_country_code2));
                self.uint(p(2), u64::from(h.t35_extension));
                self.uint(p(3), u64::from(h.manufacturer_code));
                self.close(x);
            }
            NonStandardIdentifier::Experimental(e) => self.prim(p(2), e.as_bytes()),
        }
        self.close(id);
        self.prim(p(1), &n.data);
        self.close(s);
        Ok(())
    }
}
