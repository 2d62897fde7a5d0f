//! The message: header, mId, transactions, actions and error descriptors.
//!
//! One method per construct, following the layout of OTP's
//! `megaco_text_gen_v1/v2/v3` generators; `s` is the indentation depth of
//! the construct being written (ignored by the compact form).

use super::{invalid, Enc, R};
use crate::model::*;
use crate::text::scalar::{is_domain_name, is_mtp_address};

impl Enc<'_> {
    pub(super) fn megaco_message(&mut self, msg: &MegacoMessage) -> R {
        if let Some(auth) = &msg.auth_header {
            self.auth_header(auth)?;
        }
        self.message_body_start(&msg.mess)?;
        match &msg.mess.body {
            MessageBody::Error(ed) => self.error_descriptor(ed),
            MessageBody::Transactions(ts) => {
                if ts.is_empty() {
                    return Err(invalid("transactions", "a message needs at least one"));
                }
                for (i, t) in ts.iter().enumerate() {
                    // A segment reply ends in a number or a token, not a
                    // bracket: without a separator the next transaction's
                    // keyword would run into it (`SM=5/35SM=…`, one word
                    // to the scanner). OTP writes nothing there; we write
                    // the line break that also follows the message header.
                    if i > 0 && matches!(ts[i - 1], Transaction::SegmentReply(_)) {
                        self.byte(b'\n');
                    }
                    self.transaction(t)?;
                }
                Ok(())
            }
        }
    }

    pub(super) fn auth_header(&mut self, a: &AuthenticationHeader) -> R {
        if a.ad.len() < 12 || a.ad.len() > 32 {
            return Err(invalid(
                "authentication data",
                format!("{} octets, needs 12 to 32", a.ad.len()),
            ));
        }
        self.raw(self.t.auth);
        self.eq();
        self.raw(b"0x");
        self.hex_octets(&a.sec_parm_index.to_be_bytes());
        self.raw(b":0x");
        self.hex_octets(&a.seq_num.to_be_bytes());
        self.raw(b":0x");
        self.hex_octets(&a.ad);
        self.byte(b'\n');
        Ok(())
    }

    pub(super) fn mid(&mut self, mid: &Mid) -> R {
        match mid {
            Mid::Ip4(a) => self.ip4(a),
            Mid::Ip6(a) => self.ip6(a),
            Mid::Domain(d) => self.domain(d),
            Mid::Device(p) => self.name(p, "device name"),
            Mid::Mtp(m) => self.mtp(m),
        }
    }

    pub(super) fn port(&mut self, port: Option<u16>) {
        if let Some(p) = port {
            self.byte(b':');
            self.num(p as u64);
        }
    }

    pub(super) fn ip4(&mut self, a: &Ip4Address) -> R {
        self.byte(b'[');
        for (i, o) in a.address.iter().enumerate() {
            if i > 0 {
                self.byte(b'.');
            }
            self.num(*o as u64);
        }
        self.byte(b']');
        self.port(a.port);
        Ok(())
    }

    pub(super) fn ip6(&mut self, a: &Ip6Address) -> R {
        self.byte(b'[');
        let groups: [u16; 8] =
            std::array::from_fn(|i| u16::from_be_bytes([a.address[2 * i], a.address[2 * i + 1]]));
        self.ip6_groups(&groups);
        self.byte(b']');
        self.port(a.port);
        Ok(())
    }

    /// The address groups the way OTP's generator writes them: the first
    /// run of zero groups is compressed (`::`), a single leading zero group
    /// is written `0:`, later zero groups are written `0`.
    pub(super) fn ip6_groups(&mut self, g: &[u16; 8]) {
        let (mut i, mut pad, mut first) = if g[0] == 0 {
            (1, 1usize, true)
        } else {
            (0, 0, false)
        };
        let mut padded = false;
        while i < 8 {
            let last = i == 7;
            let x = g[i];
            if last {
                if x == 0 {
                    if pad == 0 || padded {
                        self.byte(b'0');
                    } else if first {
                        self.raw(b"::");
                    } else {
                        self.byte(b':');
                    }
                } else if pad == 0 || padded {
                    self.hex(x as u32);
                } else if pad == 1 {
                    self.raw(b"0:");
                    self.hex(x as u32);
                } else if first {
                    self.raw(b"::");
                    self.hex(x as u32);
                } else {
                    self.byte(b':');
                    self.hex(x as u32);
                }
                return;
            }
            if x == 0 {
                if padded {
                    self.raw(b"0:");
                    pad = 0;
                    first = false;
                } else {
                    pad += 1;
                }
            } else if pad == 0 {
                self.hex(x as u32);
                self.byte(b':');
                first = false;
            } else if pad == 1 {
                self.raw(b"0:");
                self.hex(x as u32);
                self.byte(b':');
                pad = 0;
                first = false;
            } else {
                if first {
                    self.raw(b"::");
                } else {
                    self.byte(b':');
                }
                self.hex(x as u32);
                self.byte(b':');
                pad = 0;
                padded = true;
                first = false;
            }
            i += 1;
        }
    }

    pub(super) fn domain(&mut self, d: &DomainName) -> R {
        if !is_domain_name(d.name.as_bytes()) {
            return Err(invalid(
                "domain name",
                "a letter or digit, then up to 63 letters, digits, - and .",
            ));
        }
        self.byte(b'<');
        self.str(&d.name);
        self.byte(b'>');
        self.port(d.port);
        Ok(())
    }

    pub(super) fn mtp(&mut self, m: &str) -> R {
        // `MTP { 4*8 HEXDIG }`: the decoder accepts nothing else.
        if !is_mtp_address(m.as_bytes()) {
            return Err(invalid("MTP address", "needs 4 to 8 hexadecimal digits"));
        }
        self.raw(self.t.mtp);
        self.lb();
        self.octet_string(m, "MTP address")?;
        self.rb();
        Ok(())
    }

    pub(super) fn transaction(&mut self, t: &Transaction) -> R {
        match t {
            Transaction::Request(r) => {
                self.raw(self.t.trans);
                self.eq();
                self.num(r.transaction_id as u64);
                self.lb_i(0);
                if r.actions.is_empty() {
                    return Err(invalid("transaction request", "no actions"));
                }
                for (i, a) in r.actions.iter().enumerate() {
                    if i > 0 {
                        self.comma_i(1);
                    }
                    self.action_request(a, 1)?;
                }
                self.rb_i(0);
            }
            Transaction::Pending(p) => {
                self.raw(self.t.pending);
                self.eq();
                self.num(p.transaction_id as u64);
                self.lb_i(0);
                self.rb_i(0);
            }
            Transaction::Reply(r) => self.transaction_reply(r)?,
            Transaction::ResponseAck(acks) => {
                if acks.is_empty() {
                    return Err(invalid("transaction response ack", "empty"));
                }
                self.raw(self.t.response_ack);
                self.lb_i(0);
                for (i, a) in acks.iter().enumerate() {
                    if i > 0 {
                        self.comma_i(0);
                        // OTP's v1 generator writes the inner indentation
                        // once more after each comma.
                        if self.v == 1 {
                            self.tabs_if_pretty(1);
                        }
                    }
                    self.num(a.first_ack as u64);
                    if let Some(l) = a.last_ack {
                        self.byte(b'-');
                        self.num(l as u64);
                    }
                }
                self.rb_i(0);
            }
            Transaction::SegmentReply(sr) => {
                self.raw(self.t.message_segment);
                self.eq();
                self.num(sr.transaction_id as u64);
                self.byte(b'/');
                self.num(sr.segment_number as u64);
                if sr.segmentation_complete {
                    self.byte(b'/');
                    self.raw(self.t.segmentation_complete);
                }
            }
        }
        Ok(())
    }

    pub(super) fn tabs_if_pretty(&mut self, n: usize) {
        if self.pretty {
            self.tabs(n);
        }
    }

    pub(super) fn error_descriptor(&mut self, ed: &ErrorDescriptor) -> R {
        if ed.error_code > 999 {
            return Err(invalid("error code", "above 999"));
        }
        self.raw(self.t.error);
        self.eq();
        self.num(ed.error_code as u64);
        self.lb();
        if let Some(text) = &ed.error_text {
            self.quoted_string(text, "error text")?;
        }
        self.rb();
        Ok(())
    }

    pub(super) fn context_id(&mut self, c: ContextId) {
        match c {
            ContextId::ALL => self.byte(b'*'),
            ContextId::NULL => self.byte(b'-'),
            ContextId::CHOOSE => self.byte(b'$'),
            ContextId(n) => self.num(n as u64),
        }
    }

    pub(super) fn action_request(&mut self, a: &ActionRequest, s: usize) -> R {
        self.raw(self.t.ctx);
        self.eq();
        self.context_id(a.context_id);
        self.lb_i(s);
        let s1 = s + 1;
        let mut sep = false;
        if self.v >= 3 {
            if let Some(cr) = &a.context_request {
                self.context_request_items(cr, &mut sep, s1)?;
            }
            if let Some(caar) = &a.context_attr_audit_req {
                self.item(&mut sep, s1, |e| e.context_attr_audit_v3(caar, s1))?;
            }
        } else {
            if let Some(caar) = &a.context_attr_audit_req {
                self.item(&mut sep, s1, |e| e.context_attr_audit_v1(caar, s1))?;
            }
            if let Some(cr) = &a.context_request {
                self.context_request_items(cr, &mut sep, s1)?;
            }
        }
        for c in &a.command_requests {
            self.item(&mut sep, s1, |e| e.command_request(c, s1))?;
        }
        if !sep {
            // `Context = id { }` is not in the grammar (and OTP refuses it).
            return Err(invalid(
                "action request",
                "no commands and no context properties",
            ));
        }
        self.rb_i(s);
        Ok(())
    }
}
