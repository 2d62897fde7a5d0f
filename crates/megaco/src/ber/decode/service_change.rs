//! BER → model: service change parameters and results.

use super::*;

impl Dec<'_> {
    pub(super) fn profile(&self, t: Span) -> D<ServiceChangeProfile> {
        let mut name = None;
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            if x.tag() == 0x80 {
                name = Some(x);
            }
        }
        let x = name.ok_or_else(|| missing(t, "profileName"))?;
        let text = self.string(x);
        let (n, v) = text
            .rsplit_once('/')
            .ok_or_else(|| bad(x, "profileName \"name/version\""))?;
        let version: u8 = v
            .parse()
            .map_err(|_| bad(x, "profileName \"name/version\""))?;
        Ok(ServiceChangeProfile {
            profile_name: n.to_string().into(),
            version,
        })
    }

    pub(super) fn sc_address(&self, t: Span) -> D<ServiceChangeAddress> {
        let alt = self.first(t, "ServiceChangeAddress alternative")?;
        Ok(match alt.tag() {
            0x80 => ServiceChangeAddress::PortNumber(self.u16v(alt, "port number")?),
            0xA1 => ServiceChangeAddress::Ip4(self.ip4(alt)?),
            0xA2 => ServiceChangeAddress::Ip6(self.ip6(alt)?),
            0xA3 => ServiceChangeAddress::Domain(self.domain(alt)?),
            0x84 => ServiceChangeAddress::Device(self.string(alt)),
            0x85 => ServiceChangeAddress::Mtp(self.mtp(alt, self.standard)?),
            _ => {
                return Err(unexpected_tag(
                    alt.offset(),
                    "a ServiceChangeAddress alternative",
                    alt.tag(),
                ))
            }
        })
    }

    pub(super) fn service_change_parm(&self, t: Span) -> D<ServiceChangeParm> {
        let mut method = None;
        let mut reason = None;
        let mut sp = ServiceChangeParm {
            service_change_method: ServiceChangeMethod::Restart,
            service_change_address: None,
            service_change_version: None,
            service_change_profile: None,
            service_change_reason: Vec::new().into(),
            service_change_delay: None,
            service_change_mgc_id: None,
            time_stamp: None,
            non_standard_data: None,
            service_change_info: None,
            service_change_incomplete_flag: false,
        };
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => method = Some(self.enumerated(x, "ServiceChangeMethod 0..5")?),
                0xA1 => sp.service_change_address = Some(self.sc_address(x)?),
                0x82 => {
                    sp.service_change_version =
                        Some(self.u8v(x, 99, "serviceChangeVersion 0..99")?)
                }
                0xA3 => sp.service_change_profile = Some(self.profile(x)?),
                0xA4 => {
                    let ty = if self.standard {
                        Some(&ValueType::String)
                    } else {
                        None
                    };
                    reason = Some(self.value(x, ty)?);
                }
                0x85 => sp.service_change_delay = Some(self.u32v(x, "serviceChangeDelay")?),
                0xA6 => sp.service_change_mgc_id = Some(self.mid_choice(x)?),
                0xA7 => sp.time_stamp = Some(self.time(x)?),
                0xA8 => sp.non_standard_data = Some(self.non_standard(x)?),
                0xA9 => sp.service_change_info = Some(self.audit_descriptor(x)?),
                0x8A => sp.service_change_incomplete_flag = self.null(x)?,
                _ => {}
            }
        }
        sp.service_change_method = method.ok_or_else(|| missing(t, "serviceChangeMethod"))?;
        sp.service_change_reason = reason.ok_or_else(|| missing(t, "serviceChangeReason"))?;
        Ok(sp)
    }

    pub(super) fn sc_res_parm(&self, t: Span) -> D<ServiceChangeResParm> {
        let mut rp = ServiceChangeResParm {
            service_change_mgc_id: None,
            service_change_address: None,
            service_change_version: None,
            service_change_profile: None,
            time_stamp: None,
        };
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => rp.service_change_mgc_id = Some(self.mid_choice(x)?),
                0xA1 => rp.service_change_address = Some(self.sc_address(x)?),
                0x82 => {
                    rp.service_change_version =
                        Some(self.u8v(x, 99, "serviceChangeVersion 0..99")?)
                }
                0xA3 => rp.service_change_profile = Some(self.profile(x)?),
                0xA4 => rp.time_stamp = Some(self.time(x)?),
                _ => {}
            }
        }
        Ok(rp)
    }
}
