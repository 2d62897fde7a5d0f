//! ServiceChange parameters, of a request and of a reply.
//!
//! One method per construct, following the layout of OTP's
//! `megaco_text_gen_v1/v2/v3` generators; `s` is the indentation depth of
//! the construct being written (ignored by the compact form).

use super::{invalid, Enc, R};
use crate::model::*;

impl Enc<'_> {
    pub(super) fn service_change_parm(&mut self, p: &ServiceChangeParm, s: usize) -> R {
        self.raw(self.t.services);
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        self.item(&mut sep, s1, |e| {
            e.raw(e.t.method);
            e.eq();
            e.raw(match p.service_change_method {
                ServiceChangeMethod::Failover => e.t.failover,
                ServiceChangeMethod::Forced => e.t.forced,
                ServiceChangeMethod::Graceful => e.t.graceful,
                ServiceChangeMethod::Restart => e.t.restart,
                ServiceChangeMethod::Disconnected => e.t.disconnected,
                ServiceChangeMethod::HandOff => e.t.hand_off,
            });
            Ok(())
        })?;
        one_of_address_and_mgc_id(
            p.service_change_address.is_some(),
            p.service_change_mgc_id.is_some(),
        )?;
        if let Some(a) = &p.service_change_address {
            self.item(&mut sep, s1, |e| e.service_change_address(a))?;
        }
        if let Some(v) = p.service_change_version {
            self.item(&mut sep, s1, |e| e.service_change_version(v))?;
        }
        if let Some(pf) = &p.service_change_profile {
            self.item(&mut sep, s1, |e| e.service_change_profile(pf))?;
        }
        match p.service_change_reason.as_slice() {
            [] => {
                return Err(invalid(
                    "service change reason",
                    "missing (text requires one)",
                ))
            }
            [reason] => self.item(&mut sep, s1, |e| {
                e.raw(e.t.reason);
                e.eq();
                e.quoted_string(reason, "service change reason")
            })?,
            _ => {
                return Err(invalid(
                    "service change reason",
                    "text carries exactly one reason",
                ))
            }
        }
        if let Some(d) = p.service_change_delay {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.delay);
                e.eq();
                e.num(d as u64);
                Ok(())
            })?;
        }
        if let Some(m) = &p.service_change_mgc_id {
            self.item(&mut sep, s1, |e| {
                e.raw(e.t.mgc_id);
                e.eq();
                e.mid(m)
            })?;
        }
        if let Some(tn) = &p.time_stamp {
            self.item(&mut sep, s1, |e| e.time_notation(tn))?;
        }
        if p.non_standard_data.is_some() {
            return Err(invalid(
                "service change parameters",
                "non-standard data has no text form",
            ));
        }
        // The incomplete flag before the audit items: the grammar takes the
        // parameters in any order, and Erlang/OTP 25's parser reads audit
        // items only at the end (`SV{…,SIC,M{O{MO}}}`, not `SV{…,M{O{MO}},SIC}`).
        if p.service_change_incomplete_flag && self.v >= 3 {
            self.item_tok(&mut sep, s1, self.t.service_change_incomplete);
        }
        if let Some(ad) = &p.service_change_info {
            if self.v < 2 {
                return Err(invalid("service change parameters", "audit items need v2"));
            }
            if let Some(list) = &ad.audit_token {
                for t in list {
                    self.item(&mut sep, s1, |e| {
                        e.audit_token(*t);
                        Ok(())
                    })?;
                }
            }
            if let Some(props) = &ad.audit_property_token {
                for ip in props {
                    self.item(&mut sep, s1, |e| e.ind_aud_parameter(ip, s1))?;
                }
            }
        }
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn service_change_address(&mut self, a: &ServiceChangeAddress) -> R {
        self.raw(self.t.service_change_address);
        self.eq();
        match a {
            ServiceChangeAddress::PortNumber(p) => {
                self.num(*p as u64);
                Ok(())
            }
            ServiceChangeAddress::Ip4(a) => self.ip4(a),
            ServiceChangeAddress::Ip6(a) => self.ip6(a),
            ServiceChangeAddress::Domain(d) => self.domain(d),
            ServiceChangeAddress::Device(d) => self.name(d, "device name"),
            ServiceChangeAddress::Mtp(m) => self.mtp(m),
        }
    }

    pub(super) fn service_change_version(&mut self, v: u8) -> R {
        if v > 99 {
            return Err(invalid("service change version", "above 99"));
        }
        self.raw(self.t.version);
        self.eq();
        self.num(v as u64);
        Ok(())
    }

    pub(super) fn service_change_profile(&mut self, pf: &ServiceChangeProfile) -> R {
        if pf.version > 99 {
            return Err(invalid("service change profile version", "above 99"));
        }
        self.raw(self.t.profile);
        self.eq();
        self.grammar_name(&pf.profile_name, "profile name")?;
        self.byte(b'/');
        self.num(pf.version as u64);
        Ok(())
    }

    /// A ServiceChange reply's parameters (`{ Services { … } }`), left out
    /// when empty.
    pub(super) fn service_change_res_parm(&mut self, p: &ServiceChangeResParm, s: usize) -> R {
        let s2 = s + 2;
        let mark = self.mark();
        self.lb_i(s);
        self.raw(self.t.services);
        self.lb_i(s + 1);
        let start = self.mark();
        let mut sep = false;
        one_of_address_and_mgc_id(
            p.service_change_address.is_some(),
            p.service_change_mgc_id.is_some(),
        )?;
        if let Some(a) = &p.service_change_address {
            self.item(&mut sep, s2, |e| e.service_change_address(a))?;
        }
        if let Some(v) = p.service_change_version {
            self.item(&mut sep, s2, |e| e.service_change_version(v))?;
        }
        if let Some(pf) = &p.service_change_profile {
            self.item(&mut sep, s2, |e| e.service_change_profile(pf))?;
        }
        if let Some(m) = &p.service_change_mgc_id {
            self.item(&mut sep, s2, |e| {
                e.raw(e.t.mgc_id);
                e.eq();
                e.mid(m)
            })?;
        }
        if let Some(tn) = &p.time_stamp {
            self.item(&mut sep, s2, |e| e.time_notation(tn))?;
        }
        if self.mark() == start {
            self.out.truncate(mark);
        } else {
            self.rb_i(s + 1);
            self.rb_i(s);
        }
        Ok(())
    }
}

/// Text reads a ServiceChangeAddress and a MgcIdToTry in one parameter
/// list as an error (as OTP's parser: `not_both_address_mgcid_...`), so
/// a model with both has no text form.
fn one_of_address_and_mgc_id(address: bool, mgc_id: bool) -> R {
    if address && mgc_id {
        return Err(invalid(
            "service change parameters",
            "ServiceChangeAddress and MgcIdToTry together have no text form",
        ));
    }
    Ok(())
}
