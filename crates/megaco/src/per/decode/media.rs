//! Media and its streams, properties and their values, non-standard
//! data, and the Mux, Modem, DigitMap and Statistics descriptors.

use super::*;

pub(super) fn service_state(r: &mut BitReader<'_>) -> R<ServiceState> {
    enumerated(r, "ServiceState")
}

pub(super) fn stream_mode(r: &mut BitReader<'_>) -> R<StreamMode> {
    enumerated(r, "StreamMode")
}

pub(crate) fn media_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<MediaDescriptor> {
    let ext = r.bit("MediaDescriptor extension bit")?;
    let has_t = r.bit("MediaDescriptor preamble")?;
    let has_s = r.bit("MediaDescriptor preamble")?;
    let term_state_descr = if has_t {
        let ext = r.bit("TerminationStateDescriptor extension bit")?;
        let has_e = r.bit("TerminationStateDescriptor preamble")?;
        let has_s = r.bit("TerminationStateDescriptor preamble")?;
        let property_parms = property_parms(r, cx, "propertyParms")?;
        let event_buffer_control = if has_e {
            Some(enumerated(r, "EventBufferControl")?)
        } else {
            None
        };
        let service_state = if has_s { Some(service_state(r)?) } else { None };
        skip_ext(r, ext, "TerminationStateDescriptor extensions")?;
        Some(TerminationStateDescriptor {
            property_parms,
            event_buffer_control,
            service_state,
        })
    } else {
        None
    };
    let streams = if has_s {
        Some(if r.bits(1, "MediaDescriptor.streams")? == 0 {
            Streams::OneStream(stream_parms(r, cx)?)
        } else {
            Streams::MultiStream(seq_of(r, cx, 20, "multiStream", |r| {
                let stream_id = u16_(r, "streamID")?;
                let stream_parms = stream_parms(r, cx)?;
                Ok(StreamDescriptor {
                    stream_id,
                    stream_parms,
                })
            })?)
        })
    } else {
        None
    };
    skip_ext(r, ext, "MediaDescriptor extensions")?;
    Ok(MediaDescriptor {
        term_state_descr,
        streams,
    })
}

pub(super) fn stream_parms(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<StreamParms> {
    let ext = r.bit("StreamParms extension bit")?;
    let has_lc = r.bit("StreamParms preamble")?;
    let has_l = r.bit("StreamParms preamble")?;
    let has_r = r.bit("StreamParms preamble")?;
    let local_control_descriptor = if has_lc {
        let ext = r.bit("LocalControlDescriptor extension bit")?;
        let has_m = r.bit("LocalControlDescriptor preamble")?;
        let has_v = r.bit("LocalControlDescriptor preamble")?;
        let has_g = r.bit("LocalControlDescriptor preamble")?;
        let stream_mode = if has_m { Some(stream_mode(r)?) } else { None };
        let reserve_value = if has_v {
            Some(r.bit("reserveValue")?)
        } else {
            None
        };
        let reserve_group = if has_g {
            Some(r.bit("reserveGroup")?)
        } else {
            None
        };
        let property_parms = property_parms(r, cx, "propertyParms")?;
        skip_ext(r, ext, "LocalControlDescriptor extensions")?;
        Some(LocalControlDescriptor {
            stream_mode,
            reserve_value,
            reserve_group,
            property_parms,
        })
    } else {
        None
    };
    let lr = |r: &mut BitReader<'_>, present: bool| -> R<Option<LocalRemoteDescriptor>> {
        if !present {
            return Ok(None);
        }
        let ext = r.bit("LocalRemoteDescriptor extension bit")?;
        let prop_grps = seq_of(r, cx, 8, "propGrps", |r| {
            property_parms(r, cx, "PropertyGroup")
        })?;
        skip_ext(r, ext, "LocalRemoteDescriptor extensions")?;
        Ok(Some(LocalRemoteDescriptor { prop_grps }))
    };
    let local_descriptor = lr(r, has_l)?;
    let remote_descriptor = lr(r, has_r)?;
    let mut stats = None;
    if ext {
        let known = if cx.v >= 3 { 1 } else { 0 };
        additions(r, known, "StreamParms extensions", |r, _| {
            stats = Some(statistics_descriptor(r, cx)?);
            Ok(())
        })?;
    }
    Ok(StreamParms {
        local_control_descriptor,
        local_descriptor,
        remote_descriptor,
        statistics_descriptor: stats,
    })
}

pub(super) fn value(r: &mut BitReader<'_>, cx: &Dcx<'_>, what: &'static str) -> R<Values> {
    let mut v = Values::new();
    value_to(r, cx, what, &mut v)?;
    Ok(v)
}

/// A `Value` (a list of strings) read into `out`.
#[inline]
pub(super) fn value_to(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    what: &'static str,
    out: &mut Values,
) -> R<()> {
    seq_in(r, cx, 8, what, out, |r, s| ia5_to(r, cx, what, s))
}

pub(super) fn extra_info(r: &mut BitReader<'_>) -> R<ExtraInfo> {
    Ok(match r.constrained(0, 2, "extraInfo")? {
        0 => ExtraInfo::Relation(enumerated(r, "Relation")?),
        1 => ExtraInfo::Range(r.bit("range")?),
        _ => ExtraInfo::Sublist(r.bit("sublist")?),
    })
}

pub(super) fn property_parm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<PropertyParm> {
    let mut p = PropertyParm::default();
    property_parm_to(r, cx, &mut p)?;
    Ok(p)
}

/// A PropertyParm read into `p` (a default one).
pub(super) fn property_parm_to(r: &mut BitReader<'_>, cx: &Dcx<'_>, p: &mut PropertyParm) -> R<()> {
    let ext = r.bit("PropertyParm extension bit")?;
    let has_x = r.bit("PropertyParm preamble")?;
    pkgd_to(r, cx, Scope::Property, "PropertyParm.name", &mut p.name)?;
    value_to(r, cx, "PropertyParm.value", &mut p.value)?;
    if has_x {
        p.extra_info = Some(extra_info(r)?);
    }
    skip_ext(r, ext, "PropertyParm extensions")
}

/// A SEQUENCE OF PropertyParm, each read where the list keeps it.
#[inline]
pub(super) fn property_parms<L: List<PropertyParm>>(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    what: &'static str,
) -> R<L> {
    let mut out = L::default();
    seq_in(r, cx, 42, what, &mut out, |r, p| property_parm_to(r, cx, p))?;
    Ok(out)
}

/// The parameters of the event or signal `parent`, read into `out`.
pub(super) fn parameters<L: List<PropertyParm>>(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    scope: Scope,
    parent: [u8; 4],
    out: &mut L,
) -> R<()> {
    seq_in(r, cx, 26, "parameter list", out, |r, p| {
        let ext = r.bit("parameter extension bit")?;
        let has_x = r.bit("parameter preamble")?;
        let code = code2(r, "parameter name")?;
        if cx.build {
            p.name = cx.cfg.param_name(scope, parent, code);
        }
        value_to(r, cx, "parameter value", &mut p.value)?;
        if has_x {
            p.extra_info = Some(extra_info(r)?);
        }
        skip_ext(r, ext, "parameter extensions")
    })
}

pub(super) fn nsd(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<NonStandardData> {
    let non_standard_identifier = match root_choice(r, 3, true, "NonStandardIdentifier")? {
        0 => {
            let b = r.octet_str(true, "OBJECT IDENTIFIER")?;
            NonStandardIdentifier::Object(oid_arcs(r, cx, &b)?)
        }
        1 => {
            let ext = r.bit("H221NonStandard extension bit")?;
            let h = H221NonStandard {
                t35_country_code1: r.constrained(0, 255, "t35CountryCode1")? as u8,
                t35_country_code2: r.constrained(0, 255, "t35CountryCode2")? as u8,
                t35_extension: r.constrained(0, 255, "t35Extension")? as u8,
                manufacturer_code: u16_(r, "manufacturerCode")?,
            };
            skip_ext(r, ext, "H221NonStandard extensions")?;
            NonStandardIdentifier::H221NonStandard(h)
        }
        _ => NonStandardIdentifier::Experimental(ia5_sized(r, cx, 8, 8, "experimental")?),
    };
    let data = r.octet_string(cx.build, "NonStandardData.data")?;
    Ok(NonStandardData {
        non_standard_identifier,
        data,
    })
}

/// The arcs of an OBJECT IDENTIFIER's contents (checked, and kept when
/// building).
pub(super) fn oid_arcs(r: &BitReader<'_>, cx: &Dcx<'_>, b: &[u8]) -> R<Vec<u32>> {
    let mut arcs = Vec::new();
    let mut count = 0;
    let mut acc: u64 = 0;
    let mut open = false;
    for &x in b {
        acc = (acc << 7) | (x & 0x7F) as u64;
        if acc > u32::MAX as u64 + 80 {
            return Err(invalid(r, "OBJECT IDENTIFIER", "arc too large"));
        }
        open = x & 0x80 != 0;
        if !open {
            if cx.build && arcs.is_empty() {
                let first = (acc / 40).min(2);
                arcs.push(first as u32);
                arcs.push((acc - first * 40) as u32);
            } else if cx.build {
                arcs.push(acc as u32);
            }
            count += 1;
            acc = 0;
        }
    }
    if open || count == 0 {
        return Err(invalid(r, "OBJECT IDENTIFIER", "truncated arc"));
    }
    Ok(arcs)
}

pub(super) fn mux_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<MuxDescriptor> {
    let ext = r.bit("MuxDescriptor extension bit")?;
    let has_n = r.bit("MuxDescriptor preamble")?;
    let mux_type: MuxType = enumerated(r, "MuxType")?;
    if mux_type.since() > cx.v {
        return Err(invalid(r, "MuxType", "unknown value"));
    }
    let term_list = term_id_list(r, cx)?;
    let non_standard_data = if has_n { Some(nsd(r, cx)?) } else { None };
    skip_ext(r, ext, "MuxDescriptor extensions")?;
    Ok(MuxDescriptor {
        mux_type,
        term_list,
        non_standard_data,
    })
}

pub(super) fn modem_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ModemDescriptor> {
    let has_n = r.bit("ModemDescriptor preamble")?;
    let mtl = seq_of(r, cx, 5, "mtl", |r| enumerated(r, "ModemType"))?;
    let mpl = property_parms(r, cx, "mpl")?;
    let non_standard_data = if has_n { Some(nsd(r, cx)?) } else { None };
    Ok(ModemDescriptor {
        mtl,
        mpl,
        non_standard_data,
    })
}

pub(super) fn digit_map_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<DigitMapDescriptor> {
    let has_n = r.bit("DigitMapDescriptor preamble")?;
    let has_v = r.bit("DigitMapDescriptor preamble")?;
    let digit_map_name = if has_n { Some(dialplan(r, cx)?) } else { None };
    let digit_map_value = if has_v {
        Some(digit_map_value(r, cx)?)
    } else {
        None
    };
    Ok(DigitMapDescriptor {
        digit_map_name,
        digit_map_value,
    })
}

pub(super) fn digit_map_value(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<DigitMapValue> {
    let ext = r.bit("DigitMapValue extension bit")?;
    let has_st = r.bit("DigitMapValue preamble")?;
    let has_sh = r.bit("DigitMapValue preamble")?;
    let has_l = r.bit("DigitMapValue preamble")?;
    let start_timer = if has_st {
        Some(u99(r, "startTimer")?)
    } else {
        None
    };
    let short_timer = if has_sh {
        Some(u99(r, "shortTimer")?)
    } else {
        None
    };
    let long_timer = if has_l {
        Some(u99(r, "longTimer")?)
    } else {
        None
    };
    let digit_map_body = ia5(r, cx, "digitMapBody")?;
    let mut duration_timer = None;
    if ext {
        let known = if cx.v >= 2 { 1 } else { 0 };
        additions(r, known, "DigitMapValue extensions", |r, _| {
            duration_timer = Some(u99(r, "durationTimer")?);
            Ok(())
        })?;
    }
    Ok(DigitMapValue {
        start_timer,
        short_timer,
        long_timer,
        digit_map_body,
        duration_timer,
    })
}

pub(crate) fn statistics_descriptor(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
) -> R<Vec<StatisticsParameter>> {
    let mut out: Vec<StatisticsParameter> = Vec::new();
    seq_in(r, cx, 33, "StatisticsDescriptor", &mut out, |r, p| {
        let has_v = r.bit("StatisticsParameter preamble")?;
        pkgd_to(r, cx, Scope::Statistics, "statName", &mut p.stat_name)?;
        if has_v {
            let v = p.stat_value.insert(Values::new());
            value_to(r, cx, "statValue", v)?;
        }
        Ok(())
    })?;
    Ok(out)
}
