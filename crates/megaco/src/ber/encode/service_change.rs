//! Model → BER: service change parameters and results.

use super::*;

impl Enc<'_> {
    pub(super) fn profile(&mut self, tag: u8, pr: &ServiceChangeProfile) -> R {
        crate::asn1::rules::profile(pr)?;
        let s = self.open(tag);
        let mut buf = [0; 3];
        let version = crate::asn1::version_digits(pr.version, &mut buf);
        let name = pr.profile_name.as_bytes();
        self.out.push(p(0));
        self.len(name.len() + 1 + version.len());
        self.out.extend_from_slice(name);
        self.out.push(b'/');
        self.out.extend_from_slice(version);
        self.close(s);
        Ok(())
    }

    pub(super) fn sc_address(&mut self, tag: u8, a: &ServiceChangeAddress) -> R {
        let s = self.open(tag);
        match a {
            ServiceChangeAddress::PortNumber(n) => self.uint(p(0), u64::from(*n)),
            ServiceChangeAddress::Ip4(a) => self.ip4(c(1), a),
            ServiceChangeAddress::Ip6(a) => self.ip6(c(2), a),
            ServiceChangeAddress::Domain(d) => self.domain(c(3), d),
            ServiceChangeAddress::Device(d) => self.prim(p(4), d.as_bytes()),
            ServiceChangeAddress::Mtp(h) => self.mtp(p(5), h)?,
        }
        self.close(s);
        Ok(())
    }

    pub(super) fn service_change_parm(&mut self, tag: u8, sp: &ServiceChangeParm) -> R {
        let s = self.open(tag);
        self.enumerated(p(0), sp.service_change_method);
        if let Some(a) = &sp.service_change_address {
            self.sc_address(c(1), a)?;
        }
        let v = sp.service_change_version;
        let v = v.map(|v| bounded(v, 99, "serviceChangeVersion"));
        self.opt_uint(p(2), v.transpose()?);
        if let Some(pr) = &sp.service_change_profile {
            self.profile(c(3), pr)?;
        }
        crate::asn1::rules::reason(&sp.service_change_reason)?;
        let ty = if self.standard {
            Some(&values::ValueType::String)
        } else {
            None
        };
        self.value(c(4), &sp.service_change_reason, ty);
        self.opt_uint(p(5), sp.service_change_delay);
        if let Some(m) = &sp.service_change_mgc_id {
            let x = self.open(c(6));
            self.mid(m)?;
            self.close(x);
        }
        if let Some(t) = &sp.time_stamp {
            self.time(c(7), t)?;
        }
        if let Some(n) = &sp.non_standard_data {
            self.non_standard(c(8), n)?;
        }
        if let Some(ad) = &sp.service_change_info {
            self.audit_descriptor(c(9), ad)?;
        }
        self.flag(p(10), sp.service_change_incomplete_flag);
        self.close(s);
        Ok(())
    }
}
