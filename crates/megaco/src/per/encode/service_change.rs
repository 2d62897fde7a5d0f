//! ServiceChange parameters, of a request and of a reply.

use super::*;

pub(super) fn service_change_address(w: &mut BitWriter<'_>, a: &ServiceChangeAddress) -> R {
    use ServiceChangeAddress as A;
    match a {
        A::PortNumber(p) => {
            choice(w, 0, 6, true);
            u16_(w, *p);
        }
        A::Ip4(a) => {
            choice(w, 1, 6, true);
            ip4(w, a);
        }
        A::Ip6(a) => {
            choice(w, 2, 6, true);
            ip6(w, a);
        }
        A::Domain(d) => {
            choice(w, 3, 6, true);
            domain(w, d)?;
        }
        A::Device(p) => {
            choice(w, 4, 6, true);
            ia5_sized(w, p, 1, 64, "PathName")?;
        }
        A::Mtp(s) => {
            choice(w, 5, 6, true);
            sized(w, s.as_bytes(), 2, 4, "mtpAddress")?;
        }
    }
    Ok(())
}

pub(super) fn profile(w: &mut BitWriter<'_>, p: &ServiceChangeProfile) -> R {
    const WHAT: &str = "ServiceChangeProfile";
    crate::asn1::rules::profile(p)?;
    // `name/version`, written on the stack: the type takes 67 octets.
    let mut digits = [0; 3];
    let version = crate::asn1::version_digits(p.version, &mut digits);
    let name = p.profile_name.as_bytes();
    let n = name.len() + 1 + version.len();
    let mut buf = [0u8; 67];
    let Some(text) = buf.get_mut(..n) else {
        let s = format!("{}/{}", p.profile_name, p.version);
        return ia5_sized(w, &s, 1, 67, WHAT);
    };
    text[..name.len()].copy_from_slice(name);
    text[name.len()] = b'/';
    text[name.len() + 1..].copy_from_slice(version);
    sized(w, text, 1, 67, WHAT)
}

pub(super) fn service_change_parm(w: &mut BitWriter<'_>, cx: &Cx<'_>, p: &ServiceChangeParm) -> R {
    let extra = [
        p.service_change_info.is_some(),
        p.service_change_incomplete_flag,
    ];
    cx.need(extra[0], 2, "ServiceChange audit info")?;
    cx.need(extra[1], 3, "ServiceChangeInc")?;
    let any = extra.iter().any(|&b| b);
    w.bit(any);
    w.bit(p.service_change_address.is_some());
    w.bit(p.service_change_version.is_some());
    w.bit(p.service_change_profile.is_some());
    w.bit(p.service_change_delay.is_some());
    w.bit(p.service_change_mgc_id.is_some());
    w.bit(p.time_stamp.is_some());
    w.bit(p.non_standard_data.is_some());
    enumerated(w, p.service_change_method);
    if let Some(a) = &p.service_change_address {
        service_change_address(w, a)?;
    }
    if let Some(v) = p.service_change_version {
        version99(w, v, "serviceChangeVersion")?;
    }
    if let Some(pr) = &p.service_change_profile {
        profile(w, pr)?;
    }
    crate::asn1::rules::reason(&p.service_change_reason)?;
    value(w, &p.service_change_reason)?;
    if let Some(d) = p.service_change_delay {
        u32_(w, d);
    }
    if let Some(m) = &p.service_change_mgc_id {
        mid(w, cx, m)?;
    }
    if let Some(t) = &p.time_stamp {
        time_notation(w, t)?;
    }
    if let Some(n) = &p.non_standard_data {
        nsd(w, n)?;
    }
    if any {
        let n = if cx.v >= 3 { 2 } else { 1 };
        additions(w, &extra[..n], |w, i| {
            if i == 0 {
                if let Some(a) = &p.service_change_info {
                    audit_descriptor(w, cx, a)?;
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

pub(super) fn service_change_res_parm(
    w: &mut BitWriter<'_>,
    cx: &Cx<'_>,
    p: &ServiceChangeResParm,
) -> R {
    w.bit(false);
    w.bit(p.service_change_mgc_id.is_some());
    w.bit(p.service_change_address.is_some());
    w.bit(p.service_change_version.is_some());
    w.bit(p.service_change_profile.is_some());
    w.bit(p.time_stamp.is_some());
    if let Some(m) = &p.service_change_mgc_id {
        mid(w, cx, m)?;
    }
    if let Some(a) = &p.service_change_address {
        service_change_address(w, a)?;
    }
    if let Some(v) = p.service_change_version {
        version99(w, v, "serviceChangeVersion")?;
    }
    if let Some(pr) = &p.service_change_profile {
        profile(w, pr)?;
    }
    if let Some(t) = &p.time_stamp {
        time_notation(w, t)?;
    }
    Ok(())
}
