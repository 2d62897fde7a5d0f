//! BER → model: properties, media, stream, statistics, modem, mux and non-standard data.

use super::*;

impl Dec<'_> {
    pub(super) fn property_parm(&self, t: &Tlv) -> D<PropertyParm> {
        let (mut name, mut code, mut val, mut extra) = (None, [0u8; 4], None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag() {
                0x80 => {
                    let (n, c) = self.pkgd(&x, ItemKind::Property)?;
                    name = Some(n);
                    code = c;
                }
                0xA1 => val = Some(x),
                0xA2 => extra = self.extra_info(&x)?,
                _ => {}
            }
        }
        let name = name.ok_or_else(|| missing(t, "PropertyParm.name"))?;
        let val = val.ok_or_else(|| missing(t, "PropertyParm.value"))?;
        let ty = if self.standard {
            self.reg.item_type(ItemKind::Property, code)
        } else {
            None
        };
        Ok(PropertyParm {
            name,
            value: self.value(&val, ty)?,
            extra_info: extra,
        })
    }

    pub(super) fn property_parms(&self, t: &Tlv) -> D<Vec<PropertyParm>> {
        let mut v = Vec::new();
        let mut r = t.children()?;
        while let Some(e) = r.next()? {
            expect(&e, 0x30, "PropertyParm (SEQUENCE)")?;
            v.push(self.property_parm(&e)?);
        }
        Ok(v)
    }

    pub(super) fn parameters(
        &self,
        t: &Tlv,
        kind: ItemKind,
        item: [u8; 4],
    ) -> D<Vec<PropertyParm>> {
        let mut v = Vec::new();
        let mut r = t.children()?;
        while let Some(e) = r.next()? {
            expect(&e, 0x30, "EventParameter / SigParameter (SEQUENCE)")?;
            let (mut name, mut code, mut val, mut extra) = (None, [0u8; 2], None, None);
            let mut c = e.children()?;
            while let Some(x) = c.next()? {
                match x.tag() {
                    0x80 => {
                        let (n, cd) = self.param_name(&x, kind, item)?;
                        name = Some(n);
                        code = cd;
                    }
                    0xA1 => val = Some(x),
                    0xA2 => extra = self.extra_info(&x)?,
                    _ => {}
                }
            }
            let name = name.ok_or_else(|| missing(&e, "parameter name"))?;
            let val = val.ok_or_else(|| missing(&e, "parameter value"))?;
            let ty = if self.standard {
                self.reg.parameter_type(kind, item, code)
            } else {
                None
            };
            v.push(PropertyParm {
                name,
                value: self.value(&val, ty)?,
                extra_info: extra,
            });
        }
        Ok(v)
    }

    pub(super) fn media(&self, t: &Tlv) -> D<MediaDescriptor> {
        let mut m = MediaDescriptor {
            term_state_descr: None,
            streams: None,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag() {
                0xA0 => {
                    let (mut pps, mut ebc, mut ss) = (None, None, None);
                    let mut c = x.children()?;
                    while let Some(y) = c.next()? {
                        match y.tag() {
                            0xA0 => pps = Some(self.property_parms(&y)?),
                            0x81 => ebc = Some(enumerated(&y, "EventBufferControl 0..1")?),
                            0x82 => ss = Some(enumerated(&y, "ServiceState 0..2")?),
                            _ => {}
                        }
                    }
                    m.term_state_descr = Some(TerminationStateDescriptor {
                        property_parms: pps.ok_or_else(|| missing(&x, "propertyParms"))?,
                        event_buffer_control: ebc,
                        service_state: ss,
                    });
                }
                0xA1 => {
                    let mut c = x.children()?;
                    let alt = c
                        .next()?
                        .ok_or_else(|| missing(&x, "streams alternative"))?;
                    m.streams = match alt.tag() {
                        0xA0 => Some(Streams::OneStream(self.stream_parms(&alt)?)),
                        0xA1 => {
                            let mut v = Vec::new();
                            let mut l = alt.children()?;
                            while let Some(e) = l.next()? {
                                expect(&e, 0x30, "StreamDescriptor (SEQUENCE)")?;
                                let (mut sid, mut sp) = (None, None);
                                let mut c = e.children()?;
                                while let Some(y) = c.next()? {
                                    match y.tag() {
                                        0x80 => sid = Some(u16v(&y, "StreamID")?),
                                        0xA1 => sp = Some(self.stream_parms(&y)?),
                                        _ => {}
                                    }
                                }
                                v.push(StreamDescriptor {
                                    stream_id: sid.ok_or_else(|| missing(&e, "streamID"))?,
                                    stream_parms: sp.ok_or_else(|| missing(&e, "streamParms"))?,
                                });
                            }
                            Some(Streams::MultiStream(v.into()))
                        }
                        _ => None,
                    };
                }
                _ => {}
            }
        }
        Ok(m)
    }

    pub(super) fn stream_parms(&self, t: &Tlv) -> D<StreamParms> {
        let mut sp = StreamParms {
            local_control_descriptor: None,
            local_descriptor: None,
            remote_descriptor: None,
            statistics_descriptor: None,
        };
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag() {
                0xA0 => {
                    let mut lc = LocalControlDescriptor {
                        stream_mode: None,
                        reserve_value: None,
                        reserve_group: None,
                        property_parms: Vec::new(),
                    };
                    let mut c = x.children()?;
                    while let Some(y) = c.next()? {
                        match y.tag() {
                            0x80 => lc.stream_mode = Some(enumerated(&y, "StreamMode 0..4")?),
                            0x81 => lc.reserve_value = Some(boolean(&y)?),
                            0x82 => lc.reserve_group = Some(boolean(&y)?),
                            0xA3 => lc.property_parms = self.property_parms(&y)?,
                            _ => {}
                        }
                    }
                    sp.local_control_descriptor = Some(lc);
                }
                0xA1 | 0xA2 => {
                    let mut grps = Vec::new();
                    let mut c = x.children()?;
                    while let Some(y) = c.next()? {
                        if y.tag() == 0xA0 {
                            let mut l = y.children()?;
                            while let Some(g) = l.next()? {
                                expect(&g, 0x30, "PropertyGroup (SEQUENCE OF)")?;
                                grps.push(self.property_parms(&g)?);
                            }
                        }
                    }
                    let d = LocalRemoteDescriptor {
                        prop_grps: grps.into(),
                    };
                    if x.tag() == 0xA1 {
                        sp.local_descriptor = Some(d);
                    } else {
                        sp.remote_descriptor = Some(d);
                    }
                }
                0xA3 => sp.statistics_descriptor = Some(self.statistics(&x)?),
                _ => {}
            }
        }
        Ok(sp)
    }

    pub(super) fn statistics(&self, t: &Tlv) -> D<Vec<StatisticsParameter>> {
        let mut v = Vec::new();
        let mut r = t.children()?;
        while let Some(e) = r.next()? {
            expect(&e, 0x30, "StatisticsParameter (SEQUENCE)")?;
            let (mut name, mut code, mut val) = (None, [0u8; 4], None);
            let mut c = e.children()?;
            while let Some(x) = c.next()? {
                match x.tag() {
                    0x80 => {
                        let (n, cd) = self.pkgd(&x, ItemKind::Statistic)?;
                        name = Some(n);
                        code = cd;
                    }
                    0xA1 => val = Some(x),
                    _ => {}
                }
            }
            let ty = if self.standard {
                self.reg.item_type(ItemKind::Statistic, code)
            } else {
                None
            };
            v.push(StatisticsParameter {
                stat_name: name.ok_or_else(|| missing(&e, "statName"))?,
                stat_value: match val {
                    Some(x) => Some(self.value(&x, ty)?),
                    None => None,
                },
            });
        }
        Ok(v)
    }

    pub(super) fn modem(&self, t: &Tlv) -> D<ModemDescriptor> {
        let (mut mtl, mut mpl, mut nsd) = (None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag() {
                0xA0 => {
                    let mut v = Vec::new();
                    let mut l = x.children()?;
                    while let Some(e) = l.next()? {
                        expect(&e, 0x0A, "ModemType (ENUMERATED)")?;
                        v.push(enumerated(&e, "ModemType 0..8")?);
                    }
                    mtl = Some(v);
                }
                0xA1 => mpl = Some(self.property_parms(&x)?),
                0xA2 => nsd = Some(self.non_standard(&x)?),
                _ => {}
            }
        }
        Ok(ModemDescriptor {
            mtl: mtl.ok_or_else(|| missing(t, "mtl"))?,
            mpl: mpl.ok_or_else(|| missing(t, "mpl"))?,
            non_standard_data: nsd,
        })
    }

    pub(super) fn mux(&self, t: &Tlv) -> D<MuxDescriptor> {
        let (mut ty, mut list, mut nsd) = (None, None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag() {
                0x80 => ty = Some(enumerated(&x, "MuxType 0..4")?),
                0xA1 => list = Some(self.term_ids(&x)?),
                0xA2 => nsd = Some(self.non_standard(&x)?),
                _ => {}
            }
        }
        Ok(MuxDescriptor {
            mux_type: ty.ok_or_else(|| missing(t, "muxType"))?,
            term_list: list.ok_or_else(|| missing(t, "termList"))?.to_vec(),
            non_standard_data: nsd,
        })
    }

    pub(super) fn non_standard(&self, t: &Tlv) -> D<NonStandardData> {
        let (mut id, mut data) = (None, None);
        let mut r = t.children()?;
        while let Some(x) = r.next()? {
            match x.tag() {
                0xA0 => {
                    let mut c = x.children()?;
                    let alt = c
                        .next()?
                        .ok_or_else(|| missing(&x, "NonStandardIdentifier alternative"))?;
                    id = Some(match alt.tag() {
                        0x80 => NonStandardIdentifier::Object(oid(&alt)?),
                        0xA1 => {
                            let mut h = [None; 4];
                            let mut c = alt.children()?;
                            while let Some(y) = c.next()? {
                                match y.tag() {
                                    0x80..=0x82 => {
                                        h[usize::from(y.tag() - 0x80)] =
                                            Some(uint(&y, 255, "T.35 code 0..255")?)
                                    }
                                    0x83 => h[3] = Some(uint(&y, 0xFFFF, "manufacturerCode")?),
                                    _ => {}
                                }
                            }
                            let get = |i: usize| {
                                h[i].ok_or_else(|| missing(&alt, "H221NonStandard component"))
                            };
                            NonStandardIdentifier::H221NonStandard(H221NonStandard {
                                t35_country_code1: get(0)? as u8,
                                t35_country_code2: get(1)? as u8,
                                t35_extension: get(2)? as u8,
                                manufacturer_code: get(3)? as u16,
                            })
                        }
                        0x82 => NonStandardIdentifier::Experimental(string(&alt)),
                        _ => {
                            return Err(unexpected_tag(
                                alt.offset(),
                                "a NonStandardIdentifier alternative",
                                alt.tag(),
                            ))
                        }
                    });
                }
                0x81 => data = Some(x.content().to_vec()),
                _ => {}
            }
        }
        Ok(NonStandardData {
            non_standard_identifier: id.ok_or_else(|| missing(t, "nonStandardIdentifier"))?,
            data: data.ok_or_else(|| missing(t, "data"))?,
        })
    }
}
