//! Model → BER: signals descriptors and digit maps.

use super::*;

impl Enc<'_> {
    pub(super) fn signals(&mut self, tag: u8, sd: &[SignalRequest]) -> R {
        let l = self.open(tag);
        for sr in sd {
            match sr {
                SignalRequest::Signal(sig) => self.signal(c(0), sig)?,
                SignalRequest::SeqSigList(list) => {
                    let x = self.open(c(1));
                    self.uint(p(0), u64::from(list.id));
                    let y = self.open(c(1));
                    for sig in &list.signal_list {
                        self.signal(SEQ, sig)?;
                    }
                    self.close(y);
                    self.close(x);
                }
            }
        }
        self.close(l);
        Ok(())
    }

    pub(super) fn signal(&mut self, tag: u8, sig: &Signal) -> R {
        let s = self.open(tag);
        let code = self.pkgd(p(0), ItemKind::Signal, &sig.signal_name)?;
        self.opt_uint(p(1), sig.stream_id);
        if let Some(t) = sig.sig_type {
            self.enumerated(p(2), t);
        }
        self.opt_uint(p(3), sig.duration);
        if let Some(nc) = &sig.notify_completion {
            self.bits(p(4), nc);
        }
        self.opt_bool(p(5), sig.keep_active);
        self.parameters(c(6), ItemKind::Signal, code, &sig.sig_par_list)?;
        if let Some(d) = sig.direction {
            self.enumerated(p(7), d);
        }
        self.opt_uint(p(8), sig.request_id);
        self.opt_uint(p(9), sig.intersig_delay);
        self.close(s);
        Ok(())
    }

    pub(super) fn digit_map_name(&mut self, tag: u8, name: &str) -> R {
        let code = self
            .reg
            .encode_digit_map(name)
            .map_err(|e| invalid("digit map name", e))?;
        self.prim(tag, &code);
        Ok(())
    }

    pub(super) fn digit_map_value(&mut self, tag: u8, v: &DigitMapValue) -> R {
        let timer = |t: Option<u8>| t.map(|t| bounded(t, 99, "digit map timer")).transpose();
        let s = self.open(tag);
        self.opt_uint(p(0), timer(v.start_timer)?);
        self.opt_uint(p(1), timer(v.short_timer)?);
        self.opt_uint(p(2), timer(v.long_timer)?);
        self.prim(p(3), v.digit_map_body.as_bytes());
        self.opt_uint(p(4), timer(v.duration_timer)?);
        self.close(s);
        Ok(())
    }

    pub(super) fn digit_map(&mut self, tag: u8, dm: &DigitMapDescriptor) -> R {
        let s = self.open(tag);
        if let Some(n) = &dm.digit_map_name {
            self.digit_map_name(p(0), n)?;
        }
        if let Some(v) = &dm.digit_map_value {
            self.digit_map_value(c(1), v)?;
        }
        self.close(s);
        Ok(())
    }
}
