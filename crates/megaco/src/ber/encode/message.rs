//! Model → BER: the message, its header (authentication, MId) and transactions.

use super::*;

impl Enc<'_> {
    pub(super) fn megaco_message(&mut self, m: &MegacoMessage) -> R {
        let s = self.open(SEQ);
        if let Some(a) = &m.auth_header {
            // `AuthData ::= OCTET STRING (SIZE (12..32))`, as the text
            // encoder and Erlang/OTP's decoder hold it.
            if !(12..=32).contains(&a.ad.len()) {
                return Err(invalid("authentication data", "12 to 32 octets"));
            }
            let h = self.open(c(0));
            self.prim(p(0), &a.sec_parm_index.to_be_bytes());
            self.prim(p(1), &a.seq_num.to_be_bytes());
            self.prim(p(2), &a.ad);
            self.close(h);
        }
        let ms = self.open(c(1));
        self.uint(p(0), u64::from(m.mess.version));
        let mid = self.open(c(1));
        self.mid(&m.mess.mid)?;
        self.close(mid);
        let body = self.open(c(2));
        match &m.mess.body {
            MessageBody::Error(e) => self.error_descriptor(c(0), e),
            MessageBody::Transactions(ts) => {
                let l = self.open(c(1));
                for t in ts {
                    self.transaction(t)?;
                }
                self.close(l);
            }
        }
        self.close(body);
        self.close(ms);
        self.close(s);
        Ok(())
    }

    pub(super) fn ip4(&mut self, tag: u8, a: &Ip4Address) {
        let s = self.open(tag);
        self.prim(p(0), &a.address);
        self.opt_uint(p(1), a.port);
        self.close(s);
    }

    pub(super) fn ip6(&mut self, tag: u8, a: &Ip6Address) {
        let s = self.open(tag);
        self.prim(p(0), &a.address);
        self.opt_uint(p(1), a.port);
        self.close(s);
    }

    pub(super) fn domain(&mut self, tag: u8, d: &DomainName) {
        let s = self.open(tag);
        self.prim(p(0), d.name.as_bytes());
        self.opt_uint(p(1), d.port);
        self.close(s);
    }

    /// An MTP address: its hex digits as octets in the standard dialect;
    /// in OTP's, the characters themselves (as `megaco_ber_encoder`
    /// writes the string OTP's text parser keeps).
    pub(super) fn mtp(&mut self, tag: u8, hex: &str) -> R {
        let digits = hex.as_bytes();
        if !self.standard {
            if !(2..=4).contains(&digits.len()) {
                return Err(invalid(
                    "MTP address",
                    format!("{hex:?}: 2 to 4 characters in OTP's dialect"),
                ));
            }
            self.prim(tag, digits);
            return Ok(());
        }
        if !(4..=8).contains(&digits.len()) || digits.len() % 2 != 0 {
            return Err(invalid(
                "MTP address",
                format!("{hex:?}: 4, 6 or 8 hex digits"),
            ));
        }
        let mut buf = [0u8; 4];
        for (i, pair) in digits.chunks(2).enumerate() {
            let h = (pair[0] as char).to_digit(16);
            let l = (pair[1] as char).to_digit(16);
            match (h, l) {
                (Some(h), Some(l)) => buf[i] = (h * 16 + l) as u8,
                _ => return Err(invalid("MTP address", format!("{hex:?}: not hex"))),
            }
        }
        self.prim(tag, &buf[..digits.len() / 2]);
        Ok(())
    }

    pub(super) fn mid(&mut self, m: &Mid) -> R {
        match m {
            Mid::Ip4(a) => self.ip4(c(0), a),
            Mid::Ip6(a) => self.ip6(c(1), a),
            Mid::Domain(d) => self.domain(c(2), d),
            Mid::Device(d) => self.prim(p(3), d.as_bytes()),
            Mid::Mtp(h) => self.mtp(p(4), h)?,
        }
        Ok(())
    }

    pub(super) fn error_descriptor(&mut self, tag: u8, e: &ErrorDescriptor) {
        let s = self.open(tag);
        self.uint(p(0), u64::from(e.error_code));
        if let Some(t) = &e.error_text {
            self.prim(p(1), t.as_bytes());
        }
        self.close(s);
    }

    pub(super) fn transaction(&mut self, t: &Transaction) -> R {
        match t {
            Transaction::Request(r) => {
                let s = self.open(c(0));
                self.uint(p(0), u64::from(r.transaction_id));
                let l = self.open(c(1));
                for a in &r.actions {
                    self.action_request(a)?;
                }
                self.close(l);
                self.close(s);
            }
            Transaction::Pending(pd) => {
                let s = self.open(c(1));
                self.uint(p(0), u64::from(pd.transaction_id));
                self.close(s);
            }
            Transaction::Reply(r) => {
                let s = self.open(c(2));
                self.uint(p(0), u64::from(r.transaction_id));
                self.flag(p(1), r.imm_ack_required);
                let res = self.open(c(2));
                match &r.result {
                    TransactionResult::Error(e) => self.error_descriptor(c(0), e),
                    TransactionResult::ActionReplies(ars) => {
                        crate::asn1::rules::action_replies(ars)?;
                        let l = self.open(c(1));
                        for a in ars {
                            self.action_reply(a)?;
                        }
                        self.close(l);
                    }
                }
                self.close(res);
                self.opt_uint(p(3), r.segment_number);
                self.flag(p(4), r.segmentation_complete);
                self.close(s);
            }
            Transaction::ResponseAck(acks) => {
                let s = self.open(c(3));
                for a in acks {
                    let e = self.open(SEQ);
                    self.uint(p(0), u64::from(a.first_ack));
                    self.opt_uint(p(1), a.last_ack);
                    self.close(e);
                }
                self.close(s);
            }
            Transaction::SegmentReply(r) => {
                let s = self.open(c(4));
                self.uint(p(0), u64::from(r.transaction_id));
                self.uint(p(1), u64::from(r.segment_number));
                self.flag(p(2), r.segmentation_complete);
                self.close(s);
            }
        }
        Ok(())
    }
}
