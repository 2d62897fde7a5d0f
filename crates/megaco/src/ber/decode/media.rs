//! BER → model: properties, media, stream, statistics, modem, mux and non-standard data.

use super::*;

impl Dec<'_> {
    pub(super) fn property_parm(&self, t: Span) -> D<PropertyParm> {
        let (mut name, mut code, mut val, mut extra) = (None, [0u8; 4], None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => {
                    let (n, c) = self.pkgd(x, ItemKind::Property)?;
                    name = Some(n);
                    code = c;
                }
                0xA1 => val = Some(x),
                0xA2 => extra = self.extra_info(x)?,
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
            value: self.value(val, ty)?,
            extra_info: extra,
        })
    }

    pub(super) fn property_parms(&self, t: Span) -> D<Vec<PropertyParm>> {
        let mut v = Vec::new();
        let mut r = self.children(t)?;
        while let Some(e) = self.next(&mut r)? {
            expect(e, 0x30, "PropertyParm (SEQUENCE)")?;
            v.push(self.property_parm(e)?);
        }
        Ok(v)
    }

    pub(super) fn parameters(
        &self,
        t: Span,
        kind: ItemKind,
        item: [u8; 4],
    ) -> D<Vec<PropertyParm>> {
        let mut v = Vec::new();
        let mut r = self.children(t)?;
        while let Some(e) = self.next(&mut r)? {
            expect(e, 0x30, "EventParameter / SigParameter (SEQUENCE)")?;
            let (mut name, mut code, mut val, mut extra) = (None, [0u8; 2], None, None);
            let mut c = self.children(e)?;
            while let Some(x) = self.next(&mut c)? {
                match x.tag() {
                    0x80 => {
                        let (n, cd) = self.param_name(x, kind, item)?;
                        name = Some(n);
                        code = cd;
                    }
                    0xA1 => val = Some(x),
                    0xA2 => extra = self.extra_info(x)?,
                    _ => {}
                }
            }
            let name = name.ok_or_else(|| missing(e, "parameter name"))?;
            let val = val.ok_or_else(|| missing(e, "parameter value"))?;
            let ty = if self.standard {
                self.reg.parameter_type(kind, item, code)
            } else {
                None
            };
            v.push(PropertyParm {
                name,
                value: self.value(val, ty)?,
                extra_info: extra,
            });
        }
        Ok(v)
    }

    pub(super) fn media(&self, t: Span) -> D<MediaDescriptor> {
        let mut m = MediaDescriptor {
            term_state_descr: None,
            streams: None,
        };
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => {
                    let (mut pps, mut ebc, mut ss) = (None, None, None);
                    let mut c = self.children(x)?;
                    while let Some(y) = self.next(&mut c)? {
                        match y.tag() {
                            0xA0 => pps = Some(self.property_parms(y)?),
                            0x81 => ebc = Some(self.enumerated(y, "EventBufferControl 0..1")?),
                            0x82 => ss = Some(self.enumerated(y, "ServiceState 0..2")?),
                            _ => {}
                        }
                    }
                    m.term_state_descr = Some(TerminationStateDescriptor {
                        property_parms: pps.ok_or_else(|| missing(x, "propertyParms"))?,
                        event_buffer_control: ebc,
                        service_state: ss,
                    });
                }
                0xA1 => {
                    let alt = self.first(x, "streams alternative")?;
                    m.streams = match alt.tag() {
                        0xA0 => Some(Streams::OneStream(self.stream_parms(alt)?)),
                        0xA1 => {
                            let mut v = Vec::new();
                            let mut l = self.children(alt)?;
                            while let Some(e) = self.next(&mut l)? {
                                expect(e, 0x30, "StreamDescriptor (SEQUENCE)")?;
                                let (mut sid, mut sp) = (None, None);
                                let mut c = self.children(e)?;
                                while let Some(y) = self.next(&mut c)? {
                                    match y.tag() {
                                        0x80 => sid = Some(self.u16v(y, "StreamID")?),
                                        0xA1 => sp = Some(self.stream_parms(y)?),
                                        _ => {}
                                    }
                                }
                                v.push(StreamDescriptor {
                                    stream_id: sid.ok_or_else(|| missing(e, "streamID"))?,
                                    stream_parms: sp.ok_or_else(|| missing(e, "streamParms"))?,
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

    pub(super) fn stream_parms(&self, t: Span) -> D<StreamParms> {
        let mut sp = StreamParms {
            local_control_descriptor: None,
            local_descriptor: None,
            remote_descriptor: None,
            statistics_descriptor: None,
        };
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => {
                    let mut lc = LocalControlDescriptor {
                        stream_mode: None,
                        reserve_value: None,
                        reserve_group: None,
                        property_parms: Vec::new(),
                    };
                    let mut c = self.children(x)?;
                    while let Some(y) = self.next(&mut c)? {
                        match y.tag() {
                            0x80 => lc.stream_mode = Some(self.enumerated(y, "StreamMode 0..4")?),
                            0x81 => lc.reserve_value = Some(self.boolean(y)?),
                            0x82 => lc.reserve_group = Some(self.boolean(y)?),
                            0xA3 => lc.property_parms = self.property_parms(y)?,
                            _ => {}
                        }
                    }
                    sp.local_control_descriptor = Some(lc);
                }
                0xA1 | 0xA2 => {
                    let mut grps = Vec::new();
                    let mut c = self.children(x)?;
                    while let Some(y) = self.next(&mut c)? {
                        if y.tag() == 0xA0 {
                            let mut l = self.children(y)?;
                            while let Some(g) = self.next(&mut l)? {
                                expect(g, 0x30, "PropertyGroup (SEQUENCE OF)")?;
                                grps.push(self.property_parms(g)?);
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
                0xA3 => sp.statistics_descriptor = Some(self.statistics(x)?),
                _ => {}
            }
        }
        Ok(sp)
    }

    pub(super) fn statistics(&self, t: Span) -> D<Vec<StatisticsParameter>> {
        let mut v = Vec::new();
        let mut r = self.children(t)?;
        while let Some(e) = self.next(&mut r)? {
            expect(e, 0x30, "StatisticsParameter (SEQUENCE)")?;
            let (mut name, mut code, mut val) = (None, [0u8; 4], None);
            let mut c = self.children(e)?;
            while let Some(x) = self.next(&mut c)? {
                match x.tag() {
                    0x80 => {
                        let (n, cd) = self.pkgd(x, ItemKind::Statistic)?;
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
                stat_name: name.ok_or_else(|| missing(e, "statName"))?,
                stat_value: match val {
                    Some(x) => Some(self.value(x, ty)?),
                    None => None,
                },
            });
        }
        Ok(v)
    }

    pub(super) fn modem(&self, t: Span) -> D<ModemDescriptor> {
        let (mut mtl, mut mpl, mut nsd) = (None, None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => {
                    let mut v = Vec::new();
                    let mut l = self.children(x)?;
                    while let Some(e) = self.next(&mut l)? {
                        expect(e, 0x0A, "ModemType (ENUMERATED)")?;
                        v.push(self.enumerated(e, "ModemType 0..8")?);
                    }
                    mtl = Some(v);
                }
                0xA1 => mpl = Some(self.property_parms(x)?),
                0xA2 => nsd = Some(self.non_standard(x)?),
                _ => {}
            }
        }
        Ok(ModemDescriptor {
            mtl: mtl.ok_or_else(|| missing(t, "mtl"))?,
            mpl: mpl.ok_or_else(|| missing(t, "mpl"))?,
            non_standard_data: nsd,
        })
    }

    pub(super) fn mux(&self, t: Span) -> D<MuxDescriptor> {
        let (mut ty, mut list, mut nsd) = (None, None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => ty = Some(self.enumerated(x, "MuxType 0..4")?),
                0xA1 => list = Some(self.term_ids(x)?),
                0xA2 => nsd = Some(self.non_standard(x)?),
                _ => {}
            }
        }
        Ok(MuxDescriptor {
            mux_type: ty.ok_or_else(|| missing(t, "muxType"))?,
            term_list: list.ok_or_else(|| missing(t, "termList"))?.to_vec(),
            non_standard_data: nsd,
        })
    }

    pub(super) fn non_standard(&self, t: Span) -> D<NonStandardData> {
        let (mut id, mut data) = (None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => {
                    let alt = self.first(x, "NonStandardIdentifier alternative")?;
                    id = Some(match alt.tag() {
                        0x80 => NonStandardIdentifier::Object(oid(alt, self.content(alt))?),
                        0xA1 => {
                            let mut h = [None; 4];
                            let mut c = self.children(alt)?;
                            while let Some(y) = self.next(&mut c)? {
                                match y.tag() {
                                    0x80..=0x82 => {
                                        h[usize::from(y.tag() - 0x80)] =
                                            Some(self.uint(y, 255, "T.35 code 0..255")?)
                                    }
                                    0x83 => {
                                        h[3] = Some(self.uint(y, 0xFFFF, "manufacturerCode")?)
                                    }
                                    _ => {}
                                }
                            }
                            let get = |i: usize| {
                                h[i].ok_or_else(|| missing(alt, "H221NonStandard component"))
                            };
                            NonStandardIdentifier::H221NonStandard(H221NonStandard {
                                t35_country_code1: get(0)? as u8,
                                t35_country_code2: get(1)? as u8,
                                t35_extension: get(2)? as u8,
                                manufacturer_code: get(3)? as u16,
                            })
                        }
                        0x82 => NonStandardIdentifier::Experimental(self.string(alt)),
                        _ => {
                            return Err(unexpected_tag(
                                alt.offset(),
                                "a NonStandardIdentifier alternative",
                                alt.tag(),
                            ))
                        }
                    });
                }
                0x81 => data = Some(self.content(x).to_vec()),
                _ => {}
            }
        }
        Ok(NonStandardData {
            non_standard_identifier: id.ok_or_else(|| missing(t, "nonStandardIdentifier"))?,
            data: data.ok_or_else(|| missing(t, "data"))?,
        })
    }
}
