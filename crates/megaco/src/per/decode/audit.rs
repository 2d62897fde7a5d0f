//! Audits: what to audit (the audit descriptor and the v2 individual
//! audit items).

use super::*;

pub(crate) fn audit_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<AuditDescriptor> {
    let ext = r.bit("AuditDescriptor extension bit")?;
    let has_t = r.bit("AuditDescriptor preamble")?;
    let audit_token = opt(r, has_t, |r| named_bits(r, cx, "auditToken"))?;
    let mut audit_property_token = None;
    if ext {
        let known = if cx.v >= 2 { 1 } else { 0 };
        additions(r, known, "AuditDescriptor extensions", |r, _| {
            audit_property_token = Some(seq_of(r, cx, 4, "auditPropertyToken", |r| {
                ind_audit_parameter(r, cx)
            })?);
            Ok(())
        })?;
    }
    Ok(AuditDescriptor {
        audit_token,
        audit_property_token,
    })
}

pub(super) fn ind_audit_parameter(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<IndAuditParameter> {
    use IndAuditParameter as P;
    Ok(match root_choice(r, 7, true, "IndAuditParameter")? {
        0 => {
            let ext = r.bit("IndAudMediaDescriptor extension bit")?;
            let has_t = r.bit("IndAudMediaDescriptor preamble")?;
            let has_s = r.bit("IndAudMediaDescriptor preamble")?;
            let term_state_descr = if has_t {
                let ext = r.bit("IndAudTerminationStateDescriptor extension bit")?;
                let event_buffer_control = r.bit("IndAudTerminationStateDescriptor preamble")?;
                let service_state_b = r.bit("IndAudTerminationStateDescriptor preamble")?;
                let property_parms =
                    seq_of(r, cx, 33, "propertyParms", |r| ind_aud_property_parm(r, cx))?;
                let mut service_state_sel = None;
                if ext {
                    let known = if cx.v >= 3 { 1 } else { 0 };
                    additions(
                        r,
                        known,
                        "IndAudTerminationStateDescriptor extensions",
                        |r, _| {
                            service_state_sel = Some(service_state(r)?);
                            Ok(())
                        },
                    )?;
                }
                Some(IndAudTerminationStateDescriptor {
                    property_parms,
                    event_buffer_control,
                    service_state: service_state_b,
                    service_state_sel,
                })
            } else {
                None
            };
            let streams = if has_s {
                Some(if r.bits(1, "IndAudMediaDescriptor.streams")? == 0 {
                    IndAudStreams::OneStream(ind_aud_stream_parms(r, cx)?)
                } else {
                    IndAudStreams::MultiStream(seq_of(r, cx, 20, "multiStream", |r| {
                        let stream_id = u16_(r, "streamID")?;
                        let stream_parms = ind_aud_stream_parms(r, cx)?;
                        Ok(IndAudStreamDescriptor {
                            stream_id,
                            stream_parms,
                        })
                    })?)
                })
            } else {
                None
            };
            skip_ext(r, ext, "IndAudMediaDescriptor extensions")?;
            P::Media(IndAudMediaDescriptor {
                term_state_descr,
                streams,
            })
        }
        1 => {
            let ext = r.bit("IndAudEventsDescriptor extension bit")?;
            let has_r = r.bit("IndAudEventsDescriptor preamble")?;
            let has_s = r.bit("IndAudEventsDescriptor preamble")?;
            let request_id = if has_r {
                Some(r.u32("requestID")?)
            } else {
                None
            };
            let pkgd_name = pkgd(r, cx, Scope::Event, "pkgdName")?;
            let stream_id = if has_s {
                Some(u16_(r, "streamID")?)
            } else {
                None
            };
            skip_ext(r, ext, "IndAudEventsDescriptor extensions")?;
            P::Events(IndAudEventsDescriptor {
                request_id,
                pkgd_name,
                stream_id,
            })
        }
        2 => {
            let ext = r.bit("IndAudEventBufferDescriptor extension bit")?;
            let has_s = r.bit("IndAudEventBufferDescriptor preamble")?;
            let event_name = pkgd(r, cx, Scope::Event, "eventName")?;
            let stream_id = if has_s {
                Some(u16_(r, "streamID")?)
            } else {
                None
            };
            skip_ext(r, ext, "IndAudEventBufferDescriptor extensions")?;
            P::EventBuffer(IndAudEventBufferDescriptor {
                event_name,
                stream_id,
            })
        }
        3 => P::Signals(match root_choice(r, 2, true, "IndAudSignalsDescriptor")? {
            0 => IndAudSignalsDescriptor::Signal(ind_aud_signal(r, cx)?),
            _ => {
                let has_s = r.bit("IndAudSeqSigList preamble")?;
                let id = u16_(r, "IndAudSeqSigList.id")?;
                let signal_list = if has_s {
                    Some(ind_aud_signal(r, cx)?)
                } else {
                    None
                };
                IndAudSignalsDescriptor::SeqSigList(IndAudSeqSigList { id, signal_list })
            }
        }),
        4 => {
            let has = r.bit("IndAudDigitMapDescriptor preamble")?;
            let digit_map_name = if has { Some(dialplan(r, cx)?) } else { None };
            P::DigitMap(IndAudDigitMapDescriptor { digit_map_name })
        }
        5 => P::Statistics(IndAudStatisticsDescriptor {
            stat_name: pkgd(r, cx, Scope::Statistics, "statName")?,
        }),
        _ => {
            let ext = r.bit("IndAudPackagesDescriptor extension bit")?;
            let package_name = package(r, cx)?;
            let package_version = u99(r, "packageVersion")?;
            skip_ext(r, ext, "IndAudPackagesDescriptor extensions")?;
            P::Packages(IndAudPackagesDescriptor {
                package_name,
                package_version,
            })
        }
    })
}

pub(super) fn ind_aud_signal(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<IndAudSignal> {
    let ext = r.bit("IndAudSignal extension bit")?;
    let has_s = r.bit("IndAudSignal preamble")?;
    let signal_name = pkgd(r, cx, Scope::Signal, "signalName")?;
    let stream_id = if has_s {
        Some(u16_(r, "streamID")?)
    } else {
        None
    };
    let mut signal_request_id = None;
    if ext {
        let known = if cx.v >= 3 { 1 } else { 0 };
        additions(r, known, "IndAudSignal extensions", |r, _| {
            signal_request_id = Some(r.u32("signalRequestID")?);
            Ok(())
        })?;
    }
    Ok(IndAudSignal {
        signal_name,
        stream_id,
        signal_request_id,
    })
}

pub(super) fn ind_aud_stream_parms(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<IndAudStreamParms> {
    let ext = r.bit("IndAudStreamParms extension bit")?;
    let has_lc = r.bit("IndAudStreamParms preamble")?;
    let has_l = r.bit("IndAudStreamParms preamble")?;
    let has_r = r.bit("IndAudStreamParms preamble")?;
    let local_control_descriptor = if has_lc {
        let ext = r.bit("IndAudLocalControlDescriptor extension bit")?;
        let stream_mode_b = r.bit("IndAudLocalControlDescriptor preamble")?;
        let reserve_value = r.bit("IndAudLocalControlDescriptor preamble")?;
        let reserve_group = r.bit("IndAudLocalControlDescriptor preamble")?;
        let has_p = r.bit("IndAudLocalControlDescriptor preamble")?;
        let property_parms = if has_p {
            Some(seq_of(r, cx, 33, "propertyParms", |r| {
                ind_aud_property_parm(r, cx)
            })?)
        } else {
            None
        };
        let mut stream_mode_sel = None;
        if ext {
            let known = if cx.v >= 3 { 1 } else { 0 };
            additions(
                r,
                known,
                "IndAudLocalControlDescriptor extensions",
                |r, _| {
                    stream_mode_sel = Some(stream_mode(r)?);
                    Ok(())
                },
            )?;
        }
        Some(IndAudLocalControlDescriptor {
            stream_mode: stream_mode_b,
            reserve_value,
            reserve_group,
            property_parms,
            stream_mode_sel,
        })
    } else {
        None
    };
    let lr = |r: &mut BitReader<'_>, present: bool| -> R<Option<IndAudLocalRemoteDescriptor>> {
        if !present {
            return Ok(None);
        }
        let ext = r.bit("IndAudLocalRemoteDescriptor extension bit")?;
        let has_g = r.bit("IndAudLocalRemoteDescriptor preamble")?;
        let prop_group_id = if has_g {
            Some(u16_(r, "propGroupID")?)
        } else {
            None
        };
        let prop_grps = seq_of(r, cx, 33, "propGrps", |r| ind_aud_property_parm(r, cx))?;
        skip_ext(r, ext, "IndAudLocalRemoteDescriptor extensions")?;
        Ok(Some(IndAudLocalRemoteDescriptor {
            prop_group_id,
            prop_grps,
        }))
    };
    let local_descriptor = lr(r, has_l)?;
    let remote_descriptor = lr(r, has_r)?;
    let mut statistics_descriptor = None;
    if ext {
        let known = if cx.v >= 3 { 1 } else { 0 };
        additions(r, known, "IndAudStreamParms extensions", |r, _| {
            statistics_descriptor = Some(IndAudStatisticsDescriptor {
                stat_name: pkgd(r, cx, Scope::Statistics, "statName")?,
            });
            Ok(())
        })?;
    }
    Ok(IndAudStreamParms {
        local_control_descriptor,
        local_descriptor,
        remote_descriptor,
        statistics_descriptor,
    })
}

pub(super) fn ind_aud_property_parm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<IndAudPropertyParm> {
    let ext = r.bit("IndAudPropertyParm extension bit")?;
    let name = pkgd(r, cx, Scope::Property, "IndAudPropertyParm.name")?;
    let mut property_parms = None;
    if ext {
        let known = if cx.v >= 3 { 1 } else { 0 };
        additions(r, known, "IndAudPropertyParm extensions", |r, _| {
            property_parms = Some(property_parm(r, cx)?);
            Ok(())
        })?;
    }
    Ok(IndAudPropertyParm {
        name,
        property_parms,
    })
}
