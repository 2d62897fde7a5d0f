//! Audits: what to audit (`Audit { … }` and the v2 individual audit
//! items) and the Packages descriptor.

use super::media::Dm;
use super::Parser;
use crate::model::*;
use crate::text::keyword::Kw;
use crate::text::lexer::{Tok, PACKAGE_VERSION, R};

impl Parser<'_> {
    /// `{ item, ... }` after `Audit`.
    pub(super) fn audit_descriptor(&mut self) -> R<AuditDescriptor> {
        self.open()?;
        let mut tokens = Vec::new();
        let mut props = Vec::new();
        if self.eat(b'}') {
            self.leave();
        } else {
            self.items(|p| {
                let t = p.token(AUDIT_ITEM)?;
                p.audit_item(t, &mut tokens, &mut props)
            })?;
        }
        Ok(AuditDescriptor {
            audit_token: (!tokens.is_empty()).then_some(tokens),
            audit_property_token: (!props.is_empty()).then_some(props),
        })
    }

    /// One audit item, its keyword read: a bare descriptor name (a token)
    /// or a v2 individual audit descriptor.
    pub(super) fn audit_item(
        &mut self,
        t: Tok<'_>,
        tokens: &mut Vec<AuditToken>,
        props: &mut Vec<IndAuditParameter>,
    ) -> R<()> {
        let next = self.peek();
        let braced = next == Some(b'{');
        if self.version < 2 && (braced || next == Some(b'=')) {
            // v1 audits name descriptors only; individual audit items came
            // with v2.
            return Err(self.invalid(t.at, t.text, "audit item (v1 names descriptors only)"));
        }
        match t.kw {
            Some(Kw::Mux) => tokens.push(AuditToken::Mux),
            Some(Kw::Modem) => tokens.push(AuditToken::Modem),
            Some(Kw::ObservedEvents) => tokens.push(AuditToken::ObservedEvents),
            Some(Kw::Media) if braced => {
                props.push(IndAuditParameter::Media(self.ind_aud_media()?));
            }
            Some(Kw::Media) => tokens.push(AuditToken::Media),
            Some(Kw::DigitMap) => match self.digit_map(false)? {
                Dm::Bare => tokens.push(AuditToken::DigitMap),
                Dm::Desc(d) => props.push(IndAuditParameter::DigitMap(IndAudDigitMapDescriptor {
                    digit_map_name: d.digit_map_name,
                })),
            },
            Some(Kw::Stats) if braced => {
                self.open()?;
                let stat_name = self.pkgd_name()?;
                self.close()?;
                props.push(IndAuditParameter::Statistics(IndAudStatisticsDescriptor {
                    stat_name,
                }));
            }
            Some(Kw::Stats) => tokens.push(AuditToken::Stats),
            Some(Kw::Packages) if braced => {
                self.open()?;
                let p = self.packages_item()?;
                self.close()?;
                props.push(IndAuditParameter::Packages(IndAudPackagesDescriptor {
                    package_name: p.package_name,
                    package_version: p.package_version,
                }));
            }
            Some(Kw::Packages) => tokens.push(AuditToken::Packages),
            Some(Kw::Signals) if braced => {
                self.open()?;
                if self.eat(b'}') {
                    // `Signals { }`: no signal named; the same as the token.
                    self.leave();
                    tokens.push(AuditToken::Signals);
                } else {
                    let t = self.token(super::signals::SIGNAL)?;
                    let d = if t.kw == Some(Kw::SignalList) {
                        self.equal()?;
                        let id = self.u16_word("a signal list id")?;
                        let signal_list = if self.peek() == Some(b'{') {
                            self.open()?;
                            let s = self.signal_request()?;
                            self.close()?;
                            Some(ind_aud_signal(s))
                        } else {
                            None
                        };
                        IndAudSignalsDescriptor::SeqSigList(IndAudSeqSigList { id, signal_list })
                    } else {
                        IndAudSignalsDescriptor::Signal(ind_aud_signal(
                            self.signal_request_from(t)?,
                        ))
                    };
                    self.close()?;
                    props.push(IndAuditParameter::Signals(d));
                }
            }
            Some(Kw::Signals) => tokens.push(AuditToken::Signals),
            Some(Kw::EventBuffer) if braced => {
                self.open()?;
                let event_name = self.pkgd_name()?;
                let mut stream_id = None;
                if self.peek() == Some(b'{') {
                    self.open()?;
                    let t2 = self.token("Stream or an event parameter name")?;
                    if t2.kw == Some(Kw::Stream) {
                        self.equal()?;
                        stream_id = Some(self.u16_word("a stream id")?);
                    }
                    // An event parameter name has no place in the model.
                    self.close()?;
                }
                self.close()?;
                props.push(IndAuditParameter::EventBuffer(
                    IndAudEventBufferDescriptor {
                        event_name,
                        stream_id,
                    },
                ));
            }
            Some(Kw::EventBuffer) => tokens.push(AuditToken::EventBuffer),
            Some(Kw::Events) if braced || self.peek() == Some(b'=') => {
                let request_id = if self.eat(b'=') {
                    Some(self.request_id()?)
                } else {
                    None
                };
                self.open()?;
                let pkgd_name = self.pkgd_name()?;
                self.close()?;
                props.push(IndAuditParameter::Events(IndAudEventsDescriptor {
                    request_id,
                    pkgd_name,
                    stream_id: None,
                }));
            }
            Some(Kw::Events) => tokens.push(AuditToken::Events),
            _ => return Err(self.unknown(t, AUDIT_ITEM)),
        }
        Ok(())
    }

    /// `{ ... }` of an individual Media audit.
    fn ind_aud_media(&mut self) -> R<IndAudMediaDescriptor> {
        let mut md = IndAudMediaDescriptor::default();
        let mut multi = Vec::new();
        self.braced(|p| {
            const WHAT: &str = "a media audit item";
            let t = p.token(WHAT)?;
            match t.kw {
                Some(Kw::TerminationState) => {
                    if md.term_state_descr.is_some() {
                        return Err(p.dup(t.at, "TerminationState"));
                    }
                    md.term_state_descr = Some(p.ind_aud_termination_state()?);
                }
                Some(Kw::Stream) => {
                    if md.streams.is_some() {
                        return Err(p.invalid(t.at, t.text, "Stream after stream parameters"));
                    }
                    p.equal()?;
                    let stream_id = p.u16_word("a stream id")?;
                    p.open()?;
                    let mut stream_parms = IndAudStreamParms::default();
                    let t2 = p.token("a stream audit item")?;
                    p.ind_aud_stream_parm(t2, &mut stream_parms)?;
                    p.close()?;
                    multi.push(IndAudStreamDescriptor {
                        stream_id,
                        stream_parms,
                    });
                }
                _ => {
                    if !multi.is_empty() {
                        return Err(p.invalid(t.at, t.text, "stream audit item after Stream"));
                    }
                    let sp = match md
                        .streams
                        .get_or_insert_with(|| IndAudStreams::OneStream(Default::default()))
                    {
                        IndAudStreams::OneStream(sp) => sp,
                        IndAudStreams::MultiStream(_) => return Err(p.unknown(t, WHAT)),
                    };
                    p.ind_aud_stream_parm(t, sp)?;
                }
            }
            Ok(())
        })?;
        if !multi.is_empty() {
            md.streams = Some(IndAudStreams::MultiStream(multi));
        }
        Ok(md)
    }

    fn ind_aud_stream_parm(&mut self, t: Tok<'_>, sp: &mut IndAudStreamParms) -> R<()> {
        match t.kw {
            Some(Kw::LocalControl) => {
                if sp.local_control_descriptor.is_some() {
                    return Err(self.dup(t.at, "LocalControl"));
                }
                sp.local_control_descriptor = Some(self.ind_aud_local_control()?);
            }
            Some(Kw::Stats) => {
                if sp.statistics_descriptor.is_some() {
                    return Err(self.dup(t.at, "Statistics"));
                }
                self.open()?;
                let stat_name = self.pkgd_name()?;
                self.close()?;
                sp.statistics_descriptor = Some(IndAudStatisticsDescriptor { stat_name });
            }
            Some(k @ (Kw::Local | Kw::Remote)) => {
                let groups = self.sdp()?;
                let d = IndAudLocalRemoteDescriptor {
                    prop_group_id: None,
                    prop_grps: groups
                        .into_iter()
                        .flatten()
                        .map(|pp| IndAudPropertyParm {
                            name: pp.name.clone(),
                            property_parms: Some(pp),
                        })
                        .collect(),
                };
                let slot = if k == Kw::Local {
                    &mut sp.local_descriptor
                } else {
                    &mut sp.remote_descriptor
                };
                if slot.is_some() {
                    return Err(self.dup(t.at, "Local/Remote"));
                }
                *slot = Some(d);
            }
            _ => {
                return Err(self.unknown(
                    t,
                    "a stream audit item (LocalControl, Statistics, Local, Remote)",
                ))
            }
        }
        Ok(())
    }

    /// Audit-or-select property: `name` alone, or `name` with a value.
    pub(super) fn ind_aud_prop(&mut self, t: Tok<'_>) -> R<IndAudPropertyParm> {
        let name = self.pkgd_name_from(t.at, t.text)?;
        let property_parms = if matches!(self.peek(), Some(b'=' | b'#' | b'<' | b'>')) {
            Some(self.parm_value(name.clone())?)
        } else {
            None
        };
        Ok(IndAudPropertyParm {
            name,
            property_parms,
        })
    }

    fn ind_aud_local_control(&mut self) -> R<IndAudLocalControlDescriptor> {
        let mut d = IndAudLocalControlDescriptor::default();
        self.braced(|p| {
            let t = p.token("a LocalControl audit item")?;
            match t.kw {
                Some(Kw::ReservedGroup) => d.reserve_group = true,
                Some(Kw::ReservedValue) => d.reserve_value = true,
                Some(Kw::Mode) => {
                    if p.eat(b'=') || p.eat(b'#') {
                        d.stream_mode_sel = Some(p.stream_mode()?);
                        d.stream_mode = false;
                    } else if d.stream_mode_sel.is_none() {
                        d.stream_mode = true;
                    }
                }
                _ => {
                    let prop = p.ind_aud_prop(t)?;
                    push_ind_aud(d.property_parms.get_or_insert_with(Vec::new), prop);
                }
            }
            Ok(())
        })?;
        Ok(d)
    }

    fn ind_aud_termination_state(&mut self) -> R<IndAudTerminationStateDescriptor> {
        let mut d = IndAudTerminationStateDescriptor::default();
        self.braced(|p| {
            let t = p.token("a TerminationState audit item")?;
            match t.kw {
                Some(Kw::ServiceStates) => {
                    if p.eat(b'=') || p.eat(b'#') {
                        d.service_state_sel = Some(p.service_state()?);
                    } else {
                        d.service_state = true;
                    }
                }
                Some(Kw::Buffer) => d.event_buffer_control = true,
                _ => {
                    let prop = p.ind_aud_prop(t)?;
                    push_ind_aud(&mut d.property_parms, prop);
                }
            }
            Ok(())
        })?;
        Ok(d)
    }

    /// `{ name-version, ... }` after `Packages`.
    pub(super) fn packages_descriptor(&mut self) -> R<PackagesDescriptor> {
        let mut out = Vec::new();
        self.braced(|p| {
            out.push(p.packages_item()?);
            Ok(())
        })?;
        Ok(out)
    }

    fn packages_item(&mut self) -> R<PackagesItem> {
        let (at, w) = self.word("a package (name-version)")?;
        let i = w
            .find('-')
            .ok_or_else(|| self.invalid(at, w, "package item (name-version)"))?;
        Ok(PackagesItem {
            package_name: self.name(at, &w[..i], "package name")?,
            package_version: self.number(
                at + i + 1,
                &w[i + 1..],
                "a package version",
                PACKAGE_VERSION,
            )? as u8,
        })
    }
}

const AUDIT_ITEM: &str = "an audit item (Media, Events, Signals, DigitMap, ...)";

fn ind_aud_signal(s: Signal) -> IndAudSignal {
    IndAudSignal {
        signal_name: s.signal_name,
        stream_id: s.stream_id,
        signal_request_id: s.request_id,
    }
}

/// Adds an audited property to `list` the way OTP reads audit lists: a
/// valued property (`name=value`) right after a bare name completes that
/// item with a selection value (`tdmc/gain, tdmc/gain=2` is one item);
/// otherwise it is an item of its own.
pub(super) fn push_ind_aud(list: &mut Vec<IndAudPropertyParm>, p: IndAudPropertyParm) {
    match (list.last_mut(), p.property_parms) {
        (Some(last), Some(pp)) if last.property_parms.is_none() => {
            last.property_parms = Some(pp);
        }
        (_, property_parms) => list.push(IndAudPropertyParm {
            name: p.name,
            property_parms,
        }),
    }
}
