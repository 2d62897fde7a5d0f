//! ServiceChange parameters, of a request and of a reply.

use super::*;

/// The result of a ServiceChangeReply.
pub(crate) fn service_change_result(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ServiceChangeResult> {
    Ok(if r.bits(1, "serviceChangeResult")? == 0 {
        ServiceChangeResult::ErrorDescriptor(error_descriptor(r, cx)?)
    } else {
        ServiceChangeResult::ServiceChangeResParms(service_change_res_parm(r, cx)?)
    })
}

pub(super) fn service_change_address(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
) -> R<ServiceChangeAddress> {
    use ServiceChangeAddress as A;
    Ok(match root_choice(r, 6, true, "ServiceChangeAddress")? {
        0 => A::PortNumber(u16_(r, "portNumber")?),
        1 => A::Ip4(ip4(r)?),
        2 => A::Ip6(ip6(r)?),
        3 => A::Domain(domain(r, cx)?),
        4 => A::Device(ia5_sized(r, cx, 1, 64, "PathName")?),
        _ => A::Mtp(mtp(r, cx)?),
    })
}

/// OTP's `profileName` (`name/version`), split at its last `/`.
pub(super) fn profile(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ServiceChangeProfile> {
    let s = sized(r, 1, 67, "ServiceChangeProfile")?;
    let Some(at) = s.iter().rposition(|&b| b == b'/') else {
        return Err(invalid(
            r,
            "ServiceChangeProfile",
            "no '/' before the version",
        ));
    };
    let (name, ver) = (&s[..at], &s[at + 1..]);
    match std::str::from_utf8(ver)
        .ok()
        .and_then(|v| v.parse::<u8>().ok())
    {
        Some(version) => Ok(ServiceChangeProfile {
            profile_name: text(cx, name),
            version,
        }),
        None => Err(invalid(
            r,
            "ServiceChangeProfile",
            "version is not a number",
        )),
    }
}

pub(crate) fn service_change_parm(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<ServiceChangeParm> {
    let ext = r.bit("ServiceChangeParm extension bit")?;
    let mut pre = [false; 7];
    for p in &mut pre {
        *p = r.bit("ServiceChangeParm preamble")?;
    }
    let service_change_method = enumerated(r, "ServiceChangeMethod")?;
    let service_change_address = if pre[0] {
        Some(service_change_address(r, cx)?)
    } else {
        None
    };
    let service_change_version = if pre[1] {
        Some(u99(r, "serviceChangeVersion")?)
    } else {
        None
    };
    let service_change_profile = if pre[2] { Some(profile(r, cx)?) } else { None };
    let service_change_reason = value(r, cx, "serviceChangeReason")?;
    let service_change_delay = if pre[3] {
        Some(r.u32("serviceChangeDelay")?)
    } else {
        None
    };
    let service_change_mgc_id = if pre[4] { Some(mid_of(r, cx)?) } else { None };
    let time_stamp = if pre[5] {
        Some(time_notation(r, cx)?)
    } else {
        None
    };
    let non_standard_data = if pre[6] { Some(nsd(r, cx)?) } else { None };
    let mut p = ServiceChangeParm {
        service_change_method,
        service_change_address,
        service_change_version,
        service_change_profile,
        service_change_reason,
        service_change_delay,
        service_change_mgc_id,
        time_stamp,
        non_standard_data,
        service_change_info: None,
        service_change_incomplete_flag: false,
    };
    if ext {
        let known = match cx.v {
            1 => 0,
            2 => 1,
            _ => 2,
        };
        additions(r, known, "ServiceChangeParm extensions", |r, i| {
            if i == 0 {
                p.service_change_info = Some(audit_descriptor(r, cx)?);
            } else {
                p.service_change_incomplete_flag = true;
            }
            Ok(())
        })?;
    }
    Ok(p)
}

pub(crate) fn service_change_res_parm(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
) -> R<ServiceChangeResParm> {
    let ext = r.bit("ServiceChangeResParm extension bit")?;
    let mut pre = [false; 5];
    for p in &mut pre {
        *p = r.bit("ServiceChangeResParm preamble")?;
    }
    let service_change_mgc_id = if pre[0] { Some(mid_of(r, cx)?) } else { None };
    let service_change_address = if pre[1] {
        Some(service_change_address(r, cx)?)
    } else {
        None
    };
    let service_change_version = if pre[2] {
        Some(u99(r, "serviceChangeVersion")?)
    } else {
        None
    };
    let service_change_profile = if pre[3] { Some(profile(r, cx)?) } else { None };
    let time_stamp = if pre[4] {
        Some(time_notation(r, cx)?)
    } else {
        None
    };
    skip_ext(r, ext, "ServiceChangeResParm extensions")?;
    Ok(ServiceChangeResParm {
        service_change_mgc_id,
        service_change_address,
        service_change_version,
        service_change_profile,
        time_stamp,
    })
}
