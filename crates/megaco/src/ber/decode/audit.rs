//! BER → model: audit descriptors and the individual audit items.

use super::*;

impl Dec<'_> {
    pub(super) fn audit_descriptor(&self, t: Span) -> D<AuditDescriptor> {
        let mut ad = AuditDescriptor::empty();
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => ad.audit_token = Some(self.bit_list(x)?),
                0xA1 => {
                    let mut v = Vec::new();
                    let mut l = self.children(x)?;
                    while let Some(e) = self.next(&mut l)? {
                        if let Some(item) = self.ind_audit_parameter(e)? {
                            v.push(item);
                        }
                    }
                    ad.audit_property_token = Some(v);
                }
                _ => {}
            }
        }
        Ok(ad)
    }

    pub(super) fn ind_audit_parameter(&self, t: Span) -> D<Option<IndAuditParameter>> {
        Ok(Some(match t.tag() {
            0xA0 => {
                let mut m = IndAudMediaDescriptor {
                    term_state_descr: None,
                    streams: None,
                };
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0xA0 => m.term_state_descr = Some(self.ind_aud_term_state(x)?),
                        0xA1 => {
                            let alt = self.first(x, "streams alternative")?;
                            m.streams = match alt.tag() {
                                0xA0 => {
                                    Some(IndAudStreams::OneStream(self.ind_aud_stream_parms(alt)?))
                                }
                                0xA1 => {
                                    let mut v = Vec::new();
                                    let mut l = self.children(alt)?;
                                    while let Some(e) = self.next(&mut l)? {
                                        expect(e, 0x30, "IndAudStreamDescriptor (SEQUENCE)")?;
                                        let (mut sid, mut sp) = (None, None);
                                        let mut c = self.children(e)?;
                                        while let Some(y) = self.next(&mut c)? {
                                            match y.tag() {
                                                0x80 => sid = Some(self.u16v(y, "StreamID")?),
                                                0xA1 => sp = Some(self.ind_aud_stream_parms(y)?),
                                                _ => {}
                                            }
                                        }
                                        v.push(IndAudStreamDescriptor {
                                            stream_id: sid.ok_or_else(|| missing(e, "streamID"))?,
                                            stream_parms: sp
                                                .ok_or_else(|| missing(e, "streamParms"))?,
                                        });
                                    }
                                    Some(IndAudStreams::MultiStream(v))
                                }
                                _ => None,
                            };
                        }
                        _ => {}
                    }
                }
                IndAuditParameter::Media(m)
            }
            0xA1 => {
                let (mut rid, mut name, mut sid) = (None, None, None);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0x80 => rid = Some(self.u32v(x, "RequestID")?),
                        0x81 => name = Some(self.pkgd(x, ItemKind::Event)?.0),
                        0x82 => sid = Some(self.u16v(x, "StreamID")?),
                        _ => {}
                    }
                }
                IndAuditParameter::Events(IndAudEventsDescriptor {
                    request_id: rid,
                    pkgd_name: name.ok_or_else(|| missing(t, "pkgdName"))?,
                    stream_id: sid,
                })
            }
            0xA2 => {
                let (mut name, mut sid) = (None, None);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0x80 => name = Some(self.pkgd(x, ItemKind::Event)?.0),
                        0x81 => sid = Some(self.u16v(x, "StreamID")?),
                        _ => {}
                    }
                }
                IndAuditParameter::EventBuffer(IndAudEventBufferDescriptor {
                    event_name: name.ok_or_else(|| missing(t, "eventName"))?,
                    stream_id: sid,
                })
            }
            0xA3 => {
                let alt = self.first(t, "IndAudSignalsDescriptor alternative")?;
                IndAuditParameter::Signals(match alt.tag() {
                    0xA0 => IndAudSignalsDescriptor::Signal(self.ind_aud_signal(alt)?),
                    0xA1 => {
                        let (mut id, mut sig) = (None, None);
                        let mut r = self.children(alt)?;
                        while let Some(x) = self.next(&mut r)? {
                            match x.tag() {
                                0x80 => id = Some(self.u16v(x, "signal list id")?),
                                0xA1 => sig = Some(self.ind_aud_signal(x)?),
                                _ => {}
                            }
                        }
                        IndAudSignalsDescriptor::SeqSigList(IndAudSeqSigList {
                            id: id.ok_or_else(|| missing(alt, "id"))?,
                            signal_list: sig,
                        })
                    }
                    _ => return Ok(None),
                })
            }
            0xA4 => {
                let mut name = None;
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    if x.tag() == 0x80 {
                        name = Some(self.digit_map_name(x)?);
                    }
                }
                IndAuditParameter::DigitMap(IndAudDigitMapDescriptor {
                    digit_map_name: name,
                })
            }
            0xA5 => IndAuditParameter::Statistics(self.ind_aud_statistics(t)?),
            0xA6 => {
                let (mut n, mut ver) = (None, None);
                let mut r = self.children(t)?;
                while let Some(x) = self.next(&mut r)? {
                    match x.tag() {
                        0x80 => n = Some(self.package_name(x)?),
                        0x81 => ver = Some(self.u8v(x, 99, "packageVersion 0..99")?),
                        _ => {}
                    }
                }
                IndAuditParameter::Packages(IndAudPackagesDescriptor {
                    package_name: n.ok_or_else(|| missing(t, "packageName"))?.into(),
                    package_version: ver.ok_or_else(|| missing(t, "packageVersion"))?,
                })
            }
            _ => return Ok(None),
        }))
    }

    pub(super) fn ind_aud_statistics(&self, t: Span) -> D<IndAudStatisticsDescriptor> {
        let mut name = None;
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            if x.tag() == 0x80 {
                name = Some(self.pkgd(x, ItemKind::Statistic)?.0);
            }
        }
        Ok(IndAudStatisticsDescriptor {
            stat_name: name.ok_or_else(|| missing(t, "statName"))?,
        })
    }

    pub(super) fn ind_aud_signal(&self, t: Span) -> D<IndAudSignal> {
        let (mut name, mut sid, mut rid) = (None, None, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => name = Some(self.pkgd(x, ItemKind::Signal)?.0),
                0x81 => sid = Some(self.u16v(x, "StreamID")?),
                0x82 => rid = Some(self.u32v(x, "RequestID")?),
                _ => {}
            }
        }
        Ok(IndAudSignal {
            signal_name: name.ok_or_else(|| missing(t, "signalName"))?,
            stream_id: sid,
            signal_request_id: rid,
        })
    }

    pub(super) fn ind_aud_term_state(&self, t: Span) -> D<IndAudTerminationStateDescriptor> {
        let (mut pps, mut ebc, mut ss, mut sel) = (None, false, false, None);
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => pps = Some(self.ind_aud_property_parms(x)?),
                0x81 => ebc = self.null(x)?,
                0x82 => ss = self.null(x)?,
                0x83 => sel = Some(self.enumerated(x, "ServiceState 0..2")?),
                _ => {}
            }
        }
        Ok(IndAudTerminationStateDescriptor {
            property_parms: pps.ok_or_else(|| missing(t, "propertyParms"))?,
            event_buffer_control: ebc,
            service_state: ss,
            service_state_sel: sel,
        })
    }

    pub(super) fn ind_aud_stream_parms(&self, t: Span) -> D<IndAudStreamParms> {
        let mut sp = IndAudStreamParms {
            local_control_descriptor: None,
            local_descriptor: None,
            remote_descriptor: None,
            statistics_descriptor: None,
        };
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => {
                    let mut lc = IndAudLocalControlDescriptor {
                        stream_mode: false,
                        reserve_value: false,
                        reserve_group: false,
                        property_parms: None,
                        stream_mode_sel: None,
                    };
                    let mut c = self.children(x)?;
                    while let Some(y) = self.next(&mut c)? {
                        match y.tag() {
                            0x80 => lc.stream_mode = self.null(y)?,
                            0x81 => lc.reserve_value = self.null(y)?,
                            0x82 => lc.reserve_group = self.null(y)?,
                            0xA3 => lc.property_parms = Some(self.ind_aud_property_parms(y)?),
                            0x84 => {
                                lc.stream_mode_sel = Some(self.enumerated(y, "StreamMode 0..4")?)
                            }
                            _ => {}
                        }
                    }
                    sp.local_control_descriptor = Some(lc);
                }
                0xA1 | 0xA2 => {
                    let (mut gid, mut grps) = (None, None);
                    let mut c = self.children(x)?;
                    while let Some(y) = self.next(&mut c)? {
                        match y.tag() {
                            0x80 => gid = Some(self.u16v(y, "propGroupID")?),
                            0xA1 => grps = Some(self.ind_aud_property_parms(y)?),
                            _ => {}
                        }
                    }
                    let d = IndAudLocalRemoteDescriptor {
                        prop_group_id: gid,
                        prop_grps: grps.ok_or_else(|| missing(x, "propGrps"))?,
                    };
                    if x.tag() == 0xA1 {
                        sp.local_descriptor = Some(d);
                    } else {
                        sp.remote_descriptor = Some(d);
                    }
                }
                0xA3 => sp.statistics_descriptor = Some(self.ind_aud_statistics(x)?),
                _ => {}
            }
        }
        Ok(sp)
    }

    pub(super) fn ind_aud_property_parms(&self, t: Span) -> D<Vec<IndAudPropertyParm>> {
        let mut v = Vec::new();
        let mut r = self.children(t)?;
        while let Some(e) = self.next(&mut r)? {
            expect(e, 0x30, "IndAudPropertyParm (SEQUENCE)")?;
            let (mut name, mut pp) = (None, None);
            let mut c = self.children(e)?;
            while let Some(y) = self.next(&mut c)? {
                match y.tag() {
                    0x80 => name = Some(self.pkgd(y, ItemKind::Property)?.0),
                    0xA1 => pp = Some(self.property_parm(y)?),
                    _ => {}
                }
            }
            v.push(IndAudPropertyParm {
                name: name.ok_or_else(|| missing(e, "name"))?,
                property_parms: pp,
            });
        }
        Ok(v)
    }
}
