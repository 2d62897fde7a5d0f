//! ServiceChange parameters, of a request and of a reply.

use super::events::time_notation;
use super::Parser;
use crate::model::*;
use crate::text::keyword::Kw;
use crate::text::lexer::{is_safe, Tok, R, VERSION};
use crate::text::scalar::{all_digits, is_extension, is_timestamp};

impl Parser<'_> {
    /// `{ parm, ... }` after `Services` in a request.
    pub(super) fn service_change_parm(&mut self) -> R<ServiceChangeParm> {
        let start = self.pos;
        let mut method = None;
        let mut reason = None;
        let mut p = ServiceChangeParm {
            service_change_method: ServiceChangeMethod::Restart,
            service_change_address: None,
            service_change_version: None,
            service_change_profile: None,
            service_change_reason: Values::new(),
            service_change_delay: None,
            service_change_mgc_id: None,
            time_stamp: None,
            non_standard_data: None,
            service_change_info: None,
            service_change_incomplete_flag: false,
        };
        let mut audit_tokens = Vec::new();
        let mut audit_props = Vec::new();
        self.braced(|s| {
            let t = s.token("a ServiceChange parameter")?;
            match t.kw {
                Some(Kw::Method) => {
                    if method.is_some() {
                        return Err(s.dup(t.at, "Method"));
                    }
                    s.equal()?;
                    method = Some(s.service_change_method()?);
                }
                Some(Kw::Reason) => {
                    if reason.is_some() {
                        return Err(s.dup(t.at, "Reason"));
                    }
                    s.equal()?;
                    reason = Some(s.value()?);
                }
                Some(Kw::Delay) => {
                    if p.service_change_delay.is_some() {
                        return Err(s.dup(t.at, "Delay"));
                    }
                    s.equal()?;
                    p.service_change_delay = Some(s.u32_word("a delay")?);
                }
                Some(Kw::ServiceChangeInc) => p.service_change_incomplete_flag = true,
                Some(
                    Kw::Mux
                    | Kw::Modem
                    | Kw::Media
                    | Kw::DigitMap
                    | Kw::Stats
                    | Kw::ObservedEvents
                    | Kw::Packages
                    | Kw::Signals
                    | Kw::EventBuffer
                    | Kw::Events,
                ) if s.version >= 2 => s.audit_item(t, &mut audit_tokens, &mut audit_props)?,
                _ if is_extension(t.text.as_bytes()) => {
                    // Extension parameters have no place in the model;
                    // OTP drops them too.
                    s.parm_value(CompactString::default())?;
                }
                _ => {
                    return s.common_parm(
                        t,
                        &mut p.service_change_address,
                        &mut p.service_change_mgc_id,
                        &mut p.service_change_profile,
                        &mut p.service_change_version,
                        &mut p.time_stamp,
                        "a ServiceChange parameter",
                    )
                }
            }
            Ok(())
        })?;
        p.service_change_method =
            method.ok_or_else(|| self.missing(start, "ServiceChange Method"))?;
        let reason = reason.ok_or_else(|| self.missing(start, "ServiceChange Reason"))?;
        p.service_change_reason.push(reason);
        if !audit_tokens.is_empty() || !audit_props.is_empty() {
            p.service_change_info = Some(AuditDescriptor {
                audit_token: (!audit_tokens.is_empty()).then_some(audit_tokens),
                audit_property_token: (!audit_props.is_empty()).then_some(audit_props),
            });
        }
        Ok(p)
    }

    /// `{ parm, ... }` after `Services` in a reply.
    pub(super) fn service_change_res_parm(&mut self) -> R<ServiceChangeResParm> {
        let mut p = ServiceChangeResParm::default();
        self.braced(|s| {
            let t = s.token("a ServiceChange reply parameter")?;
            s.common_parm(
                t,
                &mut p.service_change_address,
                &mut p.service_change_mgc_id,
                &mut p.service_change_profile,
                &mut p.service_change_version,
                &mut p.time_stamp,
                "a ServiceChange reply parameter",
            )
        })?;
        Ok(p)
    }

    /// The parameters a request and a reply share: address or MgcIdToTry,
    /// Profile, Version and a time stamp.
    #[allow(clippy::too_many_arguments)]
    fn common_parm(
        &mut self,
        t: Tok<'_>,
        address: &mut Option<ServiceChangeAddress>,
        mgc_id: &mut Option<Mid>,
        profile: &mut Option<ServiceChangeProfile>,
        version: &mut Option<u8>,
        time_stamp: &mut Option<TimeNotation>,
        what: &'static str,
    ) -> R<()> {
        match t.kw {
            Some(k @ (Kw::ServiceChangeAddress | Kw::MgcId)) => {
                if address.is_some() || mgc_id.is_some() {
                    return Err(self.dup(t.at, "ServiceChangeAddress/MgcIdToTry"));
                }
                self.equal()?;
                if k == Kw::MgcId {
                    *mgc_id = Some(self.mid()?);
                } else {
                    *address = Some(self.service_change_address()?);
                }
            }
            Some(Kw::Profile) => {
                if profile.is_some() {
                    return Err(self.dup(t.at, "Profile"));
                }
                *profile = Some(self.profile()?);
            }
            Some(Kw::Version) => {
                if version.is_some() {
                    return Err(self.dup(t.at, "Version"));
                }
                self.equal()?;
                *version = Some(self.u8_word("a version", VERSION)?);
            }
            _ if is_timestamp(t.text.as_bytes()) => {
                if time_stamp.is_some() {
                    return Err(self.dup(t.at, "time stamp"));
                }
                *time_stamp = Some(time_notation(t.text));
            }
            _ => return Err(self.unknown(t, what)),
        }
        Ok(())
    }

    /// `mId` or a port after `ServiceChangeAddress =`.
    fn service_change_address(&mut self) -> R<ServiceChangeAddress> {
        self.ws();
        let rest = self.rest_from(self.pos).as_bytes();
        let n = rest.iter().take_while(|&&b| is_safe(b)).count();
        if all_digits(&rest[..n]) {
            return Ok(ServiceChangeAddress::PortNumber(
                self.u16_word("a port number")?,
            ));
        }
        Ok(match self.mid()? {
            Mid::Ip4(a) => ServiceChangeAddress::Ip4(a),
            Mid::Ip6(a) => ServiceChangeAddress::Ip6(a),
            Mid::Domain(d) => ServiceChangeAddress::Domain(d),
            Mid::Device(d) => ServiceChangeAddress::Device(d),
            Mid::Mtp(m) => ServiceChangeAddress::Mtp(m),
        })
    }

    /// `= name/version` after `Profile`.
    fn profile(&mut self) -> R<ServiceChangeProfile> {
        self.equal()?;
        let (at, w) = self.word("a profile (name/version)")?;
        let Some(i) = w.bytes().position(|b| b == b'/') else {
            return Err(self.invalid(at, w, "profile (name/version)"));
        };
        Ok(ServiceChangeProfile {
            profile_name: self.name(at, &w[..i], "profile name")?,
            version: self.number(at + i + 1, &w[i + 1..], "a profile version", VERSION)? as u8,
        })
    }

    fn service_change_method(&mut self) -> R<ServiceChangeMethod> {
        const WHAT: &str =
            "a ServiceChange method (Failover, Forced, Graceful, Restart, Disconnected, HandOff)";
        let t = self.token(WHAT)?;
        Ok(match t.kw {
            Some(Kw::Failover) => ServiceChangeMethod::Failover,
            Some(Kw::Forced) => ServiceChangeMethod::Forced,
            Some(Kw::Graceful) => ServiceChangeMethod::Graceful,
            Some(Kw::Restart) => ServiceChangeMethod::Restart,
            Some(Kw::Disconnected) => ServiceChangeMethod::Disconnected,
            Some(Kw::HandOff) => ServiceChangeMethod::HandOff,
            _ => return Err(self.unknown(t, WHAT)),
        })
    }
}
