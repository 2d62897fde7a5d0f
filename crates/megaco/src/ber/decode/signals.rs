//! BER → model: signals descriptors and digit maps.

use super::*;

impl Dec<'_> {
    pub(super) fn signals(&self, t: Span) -> D<Vec<SignalRequest>> {
        let mut v = Vec::new();
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0xA0 => v.push(SignalRequest::Signal(self.signal(x)?)),
                0xA1 => {
                    let (mut id, mut list) = (None, None);
                    let mut c = self.children(x)?;
                    while let Some(y) = self.next(&mut c)? {
                        match y.tag() {
                            0x80 => id = Some(self.u16v(y, "signal list id")?),
                            0xA1 => {
                                let mut sigs = Vec::new();
                                let mut l = self.children(y)?;
                                while let Some(s) = self.next(&mut l)? {
                                    expect(s, 0x30, "Signal (SEQUENCE)")?;
                                    sigs.push(self.signal(s)?);
                                }
                                list = Some(sigs);
                            }
                            _ => {}
                        }
                    }
                    v.push(SignalRequest::SeqSigList(SeqSigList {
                        id: id.ok_or_else(|| missing(x, "SeqSigList.id"))?,
                        signal_list: list.ok_or_else(|| missing(x, "signalList"))?,
                    }));
                }
                _ => {}
            }
        }
        Ok(v)
    }

    pub(super) fn signal(&self, t: Span) -> D<Signal> {
        let mut name = None;
        let mut code = [0u8; 4];
        let mut pars = None;
        let mut s = Signal {
            signal_name: String::new().into(),
            stream_id: None,
            sig_type: None,
            duration: None,
            notify_completion: None,
            keep_active: None,
            sig_par_list: Vec::new(),
            direction: None,
            request_id: None,
            intersig_delay: None,
        };
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => {
                    let (n, cd) = self.pkgd(x, ItemKind::Signal)?;
                    name = Some(n);
                    code = cd;
                }
                0x81 => s.stream_id = Some(self.u16v(x, "StreamID")?),
                0x82 => s.sig_type = Some(self.enumerated(x, "SignalType 0..2")?),
                0x83 => s.duration = Some(self.u16v(x, "duration")?),
                0x84 => s.notify_completion = Some(self.bit_list(x)?),
                0x85 => s.keep_active = Some(self.boolean(x)?),
                0xA6 => pars = Some(x),
                0x87 => s.direction = Some(self.enumerated(x, "SignalDirection 0, 1 or 3")?),
                0x88 => s.request_id = Some(self.u32v(x, "RequestID")?),
                0x89 => s.intersig_delay = Some(self.u16v(x, "intersigDelay")?),
                _ => {}
            }
        }
        s.signal_name = name.ok_or_else(|| missing(t, "signalName"))?;
        s.sig_par_list = match pars {
            Some(p) => self.parameters(p, ItemKind::Signal, code)?,
            None => return Err(missing(t, "sigParList")),
        };
        Ok(s)
    }

    pub(super) fn digit_map_value(&self, t: Span) -> D<DigitMapValue> {
        let mut v = DigitMapValue {
            start_timer: None,
            short_timer: None,
            long_timer: None,
            digit_map_body: String::new().into(),
            duration_timer: None,
        };
        let mut body = None;
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => v.start_timer = Some(self.u8v(x, 99, "timer 0..99")?),
                0x81 => v.short_timer = Some(self.u8v(x, 99, "timer 0..99")?),
                0x82 => v.long_timer = Some(self.u8v(x, 99, "timer 0..99")?),
                0x83 => body = Some(self.string(x)),
                0x84 => v.duration_timer = Some(self.u8v(x, 99, "timer 0..99")?),
                _ => {}
            }
        }
        v.digit_map_body = body.ok_or_else(|| missing(t, "digitMapBody"))?;
        Ok(v)
    }

    pub(super) fn digit_map(&self, t: Span) -> D<DigitMapDescriptor> {
        let mut d = DigitMapDescriptor {
            digit_map_name: None,
            digit_map_value: None,
        };
        let mut r = self.children(t)?;
        while let Some(x) = self.next(&mut r)? {
            match x.tag() {
                0x80 => d.digit_map_name = Some(self.digit_map_name(x)?),
                0xA1 => d.digit_map_value = Some(self.digit_map_value(x)?),
                _ => {}
            }
        }
        Ok(d)
    }
}
