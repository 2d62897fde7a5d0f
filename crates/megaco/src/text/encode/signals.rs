//! Signals and signal lists.
//!
//! One method per construct, following the layout of OTP's
//! `megaco_text_gen_v1/v2/v3` generators; `s` is the indentation depth of
//! the construct being written (ignored by the compact form).

use super::{invalid, Enc, R};
use crate::model::*;

impl Enc<'_> {
    pub(super) fn signals_descriptor(&mut self, sd: &[SignalRequest], s: usize) -> R {
        self.raw(self.t.signals);
        if sd.is_empty() {
            return Ok(());
        }
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        for r in sd {
            self.item(&mut sep, s1, |e| match r {
                SignalRequest::Signal(sig) => e.signal(sig, s1),
                SignalRequest::SeqSigList(l) => {
                    e.raw(e.t.signal_list);
                    e.eq();
                    e.num(l.id as u64);
                    let s2 = s1 + 1;
                    e.braces(s1, "signal list", |e| {
                        let mut sep2 = false;
                        for sig in &l.signal_list {
                            e.item(&mut sep2, s2, |e| e.signal(sig, s2))?;
                        }
                        Ok(())
                    })
                }
            })?;
        }
        self.rb_i(s);
        Ok(())
    }

    pub(super) fn signal(&mut self, sig: &Signal, s: usize) -> R {
        self.pkgd_name(&sig.signal_name)?;
        let s1 = s + 1;
        self.opt_brackets(s, |e| {
            let mut sep = false;
            if let Some(sid) = sig.stream_id {
                e.item(&mut sep, s1, |e| {
                    e.event_stream(sid);
                    Ok(())
                })?;
            }
            if let Some(t) = sig.sig_type {
                e.item(&mut sep, s1, |e| {
                    e.raw(e.t.signal_type);
                    e.eq();
                    e.raw(match t {
                        SignalType::Brief => e.t.brief,
                        SignalType::OnOff => e.t.on_off,
                        SignalType::TimeOut => e.t.time_out,
                    });
                    Ok(())
                })?;
            }
            if let Some(d) = sig.duration {
                e.item(&mut sep, s1, |e| {
                    e.raw(e.t.duration);
                    e.eq();
                    e.num(d as u64);
                    Ok(())
                })?;
            }
            if let Some(nc) = &sig.notify_completion {
                e.item(&mut sep, s1, |e| e.notify_completion(nc, s1))?;
            }
            if let Some(ka) = sig.keep_active {
                e.item(&mut sep, s1, |e| {
                    e.keep_active(ka);
                    Ok(())
                })?;
            }
            for p in &sig.sig_par_list {
                e.item(&mut sep, s1, |e| e.parameter(p, s1))?;
            }
            if e.v >= 3 {
                if let Some(d) = sig.direction {
                    e.item(&mut sep, s1, |e| {
                        e.raw(e.t.direction);
                        e.eq();
                        e.raw(match d {
                            SignalDirection::Internal => e.t.internal,
                            SignalDirection::External => e.t.external,
                            SignalDirection::Both => e.t.both,
                        });
                        Ok(())
                    })?;
                }
                if let Some(rid) = sig.request_id {
                    e.item(&mut sep, s1, |e| {
                        e.sig_request_id(rid);
                        Ok(())
                    })?;
                }
                if let Some(d) = sig.intersig_delay {
                    e.item(&mut sep, s1, |e| {
                        e.raw(e.t.intsig_delay);
                        e.eq();
                        e.num(d as u64);
                        Ok(())
                    })?;
                }
            }
            Ok(())
        })
    }

    pub(super) fn sig_request_id(&mut self, rid: u32) {
        self.raw(self.t.request_id);
        self.eq();
        self.request_id(rid);
    }

    pub(super) fn notify_completion(&mut self, nc: &[NotifyCompletion], s: usize) -> R {
        // `NotifyCompletion = { }` is not in the grammar (at least one
        // reason); Erlang/OTP writes it and cannot read it back.
        if nc.is_empty() {
            return Err(invalid(
                "notify completion",
                "an empty list has no text form",
            ));
        }
        self.raw(self.t.notify_completion);
        self.eq();
        self.lb_i(s);
        let s1 = s + 1;
        for (i, c) in nc.iter().enumerate() {
            if i > 0 {
                self.comma_i(s1);
            }
            self.raw(match c {
                NotifyCompletion::OnTimeOut => self.t.time_out,
                NotifyCompletion::OnInterruptByEvent => self.t.interrupt_by_event,
                NotifyCompletion::OnInterruptByNewSignalDescr => {
                    self.t.interrupt_by_new_signals_descr
                }
                NotifyCompletion::OtherReason => self.t.other_reason,
                NotifyCompletion::OnIteration => {
                    if self.v < 3 {
                        return Err(invalid("notify completion", "Iteration needs v3"));
                    }
                    self.t.iteration
                }
            });
        }
        self.rb_i(s);
        Ok(())
    }
}
