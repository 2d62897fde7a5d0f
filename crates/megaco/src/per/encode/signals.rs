//! Signals and signal lists.

use super::*;

pub(super) fn signals_descriptor(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &[SignalRequest]) -> R {
    seq_of(w, s, |w, r| match r {
        SignalRequest::Signal(s) => {
            choice(w, 0, 2, true);
            signal(w, cx, s)
        }
        SignalRequest::SeqSigList(l) => {
            choice(w, 1, 2, true);
            u16_(w, l.id);
            seq_of(w, &l.signal_list, |w, s| signal(w, cx, s))
        }
    })
}

pub(super) fn signal(w: &mut BitWriter<'_>, cx: &Cx<'_>, s: &Signal) -> R {
    let extra = [
        s.direction.is_some(),
        s.request_id.is_some(),
        s.intersig_delay.is_some(),
    ];
    let any = extra.iter().any(|&b| b);
    cx.need(any, 3, "signal direction / request id / inter-signal delay")?;
    w.bit(any);
    w.bit(s.stream_id.is_some());
    w.bit(s.sig_type.is_some());
    w.bit(s.duration.is_some());
    w.bit(s.notify_completion.is_some());
    w.bit(s.keep_active.is_some());
    pkgd(w, cx, Scope::Signal, &s.signal_name)?;
    if let Some(id) = s.stream_id {
        u16_(w, id);
    }
    if let Some(t) = s.sig_type {
        enumerated(w, t);
    }
    if let Some(d) = s.duration {
        u16_(w, d);
    }
    if let Some(n) = &s.notify_completion {
        if cx.v < 3 && n.contains(&NotifyCompletion::OnIteration) {
            cx.need(true, 3, "NotifyCompletion Iteration")?;
        }
        bit_string(w, n.iter().map(|n| n.bit()));
    }
    if let Some(k) = s.keep_active {
        w.bit(k);
    }
    parameters(w, cx, Scope::Signal, &s.signal_name, &s.sig_par_list)?;
    if any {
        additions(w, &extra, |w, i| {
            match i {
                0 => {
                    enumerated(w, s.direction.unwrap_or(SignalDirection::Internal));
                }
                1 => u32_(w, s.request_id.unwrap_or_default()),
                _ => u16_(w, s.intersig_delay.unwrap_or_default()),
            }
            Ok(())
        })?;
    }
    Ok(())
}
