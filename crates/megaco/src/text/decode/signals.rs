//! Signals and signal lists.

use super::Parser;
use crate::model::*;
use crate::text::keyword::Kw;
use crate::text::lexer::{Tok, R};

impl Parser<'_> {
    /// `Signals` alone, `Signals { }` or `Signals { signal, ... }`.
    pub(super) fn signals_descriptor(&mut self) -> R<SignalsDescriptor> {
        let mut out = SignalsDescriptor::new();
        if self.peek() != Some(b'{') {
            return Ok(out);
        }
        self.open()?;
        // RFC 3525 (v1) writes an empty Signals descriptor `Signals { }`;
        // H.248.1 v2 and v3 write the keyword alone.
        if self.version == 1 && self.eat(b'}') {
            self.leave();
            return Ok(out);
        }
        let t = self.token(SIGNAL)?;
        self.items_from(t, SIGNAL, |p, t| {
            if t.kw == Some(Kw::SignalList) {
                p.equal()?;
                let id = p.u16_word("a signal list id")?;
                let mut signal_list = Vec::new();
                p.braced(|p| {
                    signal_list.push(p.signal_request()?);
                    Ok(())
                })?;
                out.push(SignalRequest::SeqSigList(SeqSigList { id, signal_list }));
            } else {
                out.push(SignalRequest::Signal(p.signal_request_from(t)?));
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// `pkgdName [{ sigParameter, ... }]`.
    pub(super) fn signal_request(&mut self) -> R<Signal> {
        let t = self.token("a signal name (package/item)")?;
        self.signal_request_from(t)
    }

    /// A signal request, its name `t` read.
    pub(super) fn signal_request_from(&mut self, t: Tok<'_>) -> R<Signal> {
        let mut s = Signal {
            signal_name: self.pkgd_name_from(t.at, t.text)?,
            ..Signal::default()
        };
        if self.peek() != Some(b'{') {
            return Ok(s);
        }
        self.braced(|p| {
            let t = p.token("a signal parameter")?;
            match t.kw {
                Some(Kw::Stream) => {
                    if s.stream_id.is_some() {
                        return Err(p.dup(t.at, "Stream"));
                    }
                    p.equal()?;
                    s.stream_id = Some(p.u16_word("a stream id")?);
                }
                Some(Kw::SignalType) => {
                    if s.sig_type.is_some() {
                        return Err(p.dup(t.at, "SignalType"));
                    }
                    p.equal()?;
                    const WHAT: &str = "a signal type (OnOff, TimeOut, Brief)";
                    let t2 = p.token(WHAT)?;
                    s.sig_type = Some(match t2.kw {
                        Some(Kw::OnOff) => SignalType::OnOff,
                        Some(Kw::TimeOut) => SignalType::TimeOut,
                        Some(Kw::Brief) => SignalType::Brief,
                        _ => return Err(p.unknown(t2, WHAT)),
                    });
                }
                Some(Kw::Duration) => {
                    if s.duration.is_some() {
                        return Err(p.dup(t.at, "Duration"));
                    }
                    p.equal()?;
                    s.duration = Some(p.u16_word("a duration")?);
                }
                Some(Kw::NotifyCompletion) => {
                    if s.notify_completion.is_some() {
                        return Err(p.dup(t.at, "NotifyCompletion"));
                    }
                    p.equal()?;
                    let mut list = Vec::new();
                    p.braced(|p| {
                        list.push(p.notification_reason()?);
                        Ok(())
                    })?;
                    s.notify_completion = Some(list);
                }
                Some(Kw::KeepActive) => {
                    if s.keep_active.is_some() {
                        return Err(p.dup(t.at, "KeepActive"));
                    }
                    s.keep_active = Some(true);
                }
                Some(Kw::Direction) => {
                    if s.direction.is_some() {
                        return Err(p.dup(t.at, "SPADirection"));
                    }
                    p.equal()?;
                    const WHAT: &str = "a signal direction (Internal, External, Both)";
                    let t2 = p.token(WHAT)?;
                    s.direction = Some(match t2.kw {
                        Some(Kw::Internal) => SignalDirection::Internal,
                        Some(Kw::External) => SignalDirection::External,
                        Some(Kw::Both) => SignalDirection::Both,
                        _ => return Err(p.unknown(t2, WHAT)),
                    });
                }
                Some(Kw::RequestId) => {
                    if s.request_id.is_some() {
                        return Err(p.dup(t.at, "SPARequestID"));
                    }
                    p.equal()?;
                    s.request_id = Some(p.request_id()?);
                }
                Some(Kw::IntsigDelay) => {
                    if s.intersig_delay.is_some() {
                        return Err(p.dup(t.at, "Intersignal"));
                    }
                    p.equal()?;
                    s.intersig_delay = Some(p.u16_word("an inter-signal delay")?);
                }
                _ => {
                    let name = p.name(t.at, t.text, "signal parameter name")?;
                    s.sig_par_list.push(p.parm_value(name)?);
                }
            }
            Ok(())
        })?;
        Ok(s)
    }

    fn notification_reason(&mut self) -> R<NotifyCompletion> {
        const WHAT: &str =
            "a notification reason (TimeOut, IntByEvent, IntBySigDescr, OtherReason, Iteration)";
        let t = self.token(WHAT)?;
        Ok(match t.kw {
            Some(Kw::TimeOut) => NotifyCompletion::OnTimeOut,
            Some(Kw::IntByEvent) => NotifyCompletion::OnInterruptByEvent,
            Some(Kw::IntBySigDescr) => NotifyCompletion::OnInterruptByNewSignalDescr,
            Some(Kw::OtherReason) => NotifyCompletion::OtherReason,
            Some(Kw::Iteration) => NotifyCompletion::OnIteration,
            _ => return Err(self.unknown(t, WHAT)),
        })
    }
}

pub(super) const SIGNAL: &str = "a signal or SignalList";
