//! Signals and signal lists.

use super::*;

pub(crate) fn signals_descriptor(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<SignalsDescriptor> {
    seq_of(r, cx, 8, "SignalsDescriptor", |r| {
        Ok(match root_choice(r, 2, true, "SignalRequest")? {
            0 => SignalRequest::Signal(signal(r, cx)?),
            _ => {
                let id = u16_(r, "SeqSigList.id")?;
                let signal_list = seq_of(r, cx, 46, "signalList", |r| signal(r, cx))?;
                SignalRequest::SeqSigList(SeqSigList { id, signal_list })
            }
        })
    })
}

pub(super) fn signal(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<Signal> {
    let ext = r.bit("Signal extension bit")?;
    let mut pre = [false; 5];
    for p in &mut pre {
        *p = r.bit("Signal preamble")?;
    }
    let mut signal_name = CompactString::default();
    let code = pkgd_to(r, cx, Scope::Signal, "signalName", &mut signal_name)?;
    let stream_id = if pre[0] {
        Some(u16_(r, "streamID")?)
    } else {
        None
    };
    let sig_type = if pre[1] {
        Some(enumerated(r, "SignalType")?)
    } else {
        None
    };
    let duration = if pre[2] {
        Some(u16_(r, "duration")?)
    } else {
        None
    };
    let notify_completion = opt(r, pre[3], |r| named_bits(r, cx, "notifyCompletion"))?;
    let keep_active = if pre[4] {
        Some(r.bit("keepActive")?)
    } else {
        None
    };
    let mut sig_par_list = Vec::new();
    parameters(r, cx, Scope::Signal, code, &mut sig_par_list)?;
    let mut s = Signal {
        signal_name,
        stream_id,
        sig_type,
        duration,
        notify_completion,
        keep_active,
        sig_par_list,
        direction: None,
        request_id: None,
        intersig_delay: None,
    };
    if ext {
        let known = if cx.v >= 3 { 3 } else { 0 };
        additions(r, known, "Signal extensions", |r, i| {
            match i {
                0 => s.direction = Some(enumerated(r, "SignalDirection")?),
                1 => s.request_id = Some(r.u32("requestID")?),
                _ => s.intersig_delay = Some(u16_(r, "intersigDelay")?),
            }
            Ok(())
        })?;
    }
    Ok(s)
}
