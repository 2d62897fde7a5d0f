//! What the owned decoder and the borrowed view read alike: the header,
//! the mId, transaction ids with their segment numbers, acknowledged
//! ranges, context ids and error codes. One implementation, so that the
//! view yields exactly what the owned model holds.

use super::keyword::Kw;
use super::lexer::{is_safe, is_ws, Lexer, ERROR_CODE, R, UINT16, UINT32, VERSION};
use super::scalar::{hex_val, is_domain_name, is_mtp_address, parse_ip4, parse_ip6, scan_ip4};
use crate::error::DecodeErrorKind;
use crate::model::{ContextId, Ip4Address, Ip6Address};
use crate::view::{MidView, MtpForm, NameForm};

/// An authentication header's three fields, checked, as written.
pub(crate) struct AuthWords<'a> {
    pub spi: &'a str,
    pub seq: &'a str,
    pub data: &'a str,
}

const HEADER: &str = "`MEGACO/` or `!/` and a version";

impl<'a> Lexer<'a> {
    /// The authentication header, if any, and `MEGACO/v` (sets `version`).
    pub(crate) fn header(&mut self) -> R<Option<AuthWords<'a>>> {
        if self.usual_header() {
            return Ok(None);
        }
        let mut t = self.token(HEADER)?;
        let auth = if t.kw == Some(Kw::Auth) {
            let a = self.auth_words()?;
            self.sep("white space after the authentication header")?;
            t = self.token(HEADER)?;
            Some(a)
        } else {
            None
        };
        let (at, w) = (t.at, t.text);
        let Some(slash) = w.bytes().position(|b| b == b'/') else {
            return Err(self.invalid(at, w, "message header (MEGACO/version)"));
        };
        let (name, ver) = (&w[..slash], &w[slash + 1..]);
        if !(name.eq_ignore_ascii_case("megaco") || name == "!") {
            return Err(self.invalid(at, w, "message header (MEGACO/version)"));
        }
        let v = self.number(at + slash + 1, ver, "protocol version", VERSION)?;
        if !(1..=3).contains(&v) {
            return Err(self.err(at, DecodeErrorKind::UnsupportedVersion { version: v }));
        }
        self.version = v as u8;
        self.sep("white space after the version")?;
        Ok(auth)
    }

    /// The usual header, `MEGACO/v` or `!/v` with a one-digit version and
    /// white space after it, read in one step (sets `version`); `false`,
    /// with nothing read, for anything else, which [`Lexer::header`]
    /// reads token by token.
    #[inline]
    fn usual_header(&mut self) -> bool {
        let b = self.rest_from(self.pos).as_bytes();
        let n = if b.len() > 8 && b[..7].eq_ignore_ascii_case(b"megaco/") {
            7
        } else if b.starts_with(b"!/") {
            2
        } else {
            return false;
        };
        match b.get(n..n + 2) {
            Some(&[v @ b'1'..=b'3', c]) if is_ws(c) => {
                self.version = v - b'0';
                self.pos += n + 1;
                self.ws();
                true
            }
            _ => false,
        }
    }

    /// `= 0xSPI:0xSEQ:0xDATA` after `Authentication`.
    fn auth_words(&mut self) -> R<AuthWords<'a>> {
        self.equal()?;
        let spi = self.hex_word("security parameter index (0x + 8 hex digits)", 8, 8)?;
        self.expect(b':', "`:`")?;
        let seq = self.hex_word("sequence number (0x + 8 hex digits)", 8, 8)?;
        self.expect(b':', "`:`")?;
        let data = self.hex_word("authentication data (0x + 24 to 64 hex digits)", 24, 64)?;
        Ok(AuthWords { spi, seq, data })
    }

    /// `0x` and `min..=max` hex digits.
    fn hex_word(&mut self, what: &'static str, min: usize, max: usize) -> R<&'a str> {
        let (at, w) = self.word(what)?;
        let ok = w.len() > 2
            && w.as_bytes()[0] == b'0'
            && (w.as_bytes()[1] | 0x20) == b'x'
            && (min..=max).contains(&(w.len() - 2))
            && w.bytes().skip(2).all(|b| hex_val(b).is_some());
        if ok {
            Ok(w)
        } else {
            Err(self.invalid(at, w, what))
        }
    }

    /// `mId`: `[ip4]`, `[ip6]`, `<domain>`, each with an optional
    /// `:port`; `MTP{hex}`; or a device name.
    pub(crate) fn mid_view(&mut self) -> R<MidView<'a>> {
        match self.peek() {
            Some(b'[') => {
                self.pos += 1;
                let start = self.pos;
                let b = self.rest_from(start).as_bytes();
                // An IPv4 address, the usual case, is read in the pass that
                // finds its end; anything else takes the general way.
                if let Some((address, n)) = scan_ip4(b) {
                    if b.get(n) == Some(&b']') {
                        self.pos = start + n + 1;
                        let port = self.opt_port()?;
                        return Ok(MidView::Ip4(Ip4Address { address, port }));
                    }
                }
                let n = b.iter().take_while(|&&c| is_safe(c) || c == b':').count();
                let text = self.slice(start, start + n);
                self.pos = start + n;
                self.expect_here(b']', "`]`")?;
                let port = self.opt_port()?;
                if text.contains(':') {
                    let address = parse_ip6(text.as_bytes())
                        .ok_or_else(|| self.invalid(start, text, "IPv6 address"))?;
                    Ok(MidView::Ip6(Ip6Address { address, port }))
                } else {
                    let address = parse_ip4(text.as_bytes())
                        .ok_or_else(|| self.invalid(start, text, "IPv4 address"))?;
                    Ok(MidView::Ip4(Ip4Address { address, port }))
                }
            }
            Some(b'<') => {
                self.pos += 1;
                let start = self.pos;
                let b = self.rest_from(start).as_bytes();
                let n = b.iter().take_while(|&&c| is_safe(c)).count();
                let name = self.slice(start, start + n);
                self.pos = start + n;
                self.string_len(start, n)?;
                if !is_domain_name(name.as_bytes()) {
                    return Err(self.invalid(start, name, "domain name"));
                }
                self.expect_here(b'>', "`>`")?;
                let port = self.opt_port()?;
                Ok(MidView::Domain {
                    name: name.as_bytes(),
                    port,
                    form: NameForm::Lower,
                })
            }
            _ => {
                let t = self.token("a message identifier (mId)")?;
                // `MTP` is an MTP address only when a `{` follows (white
                // space allowed); otherwise it is a device name, and the
                // white space after it is the header's separator.
                let after = self.pos;
                if t.kw == Some(Kw::Mtp) && self.peek() == Some(b'{') {
                    let (at, hex) = self.octet_string()?;
                    if !is_mtp_address(hex.as_bytes()) {
                        return Err(self.invalid(at, hex, "MTP address (4 to 8 hex digits)"));
                    }
                    Ok(MidView::Mtp {
                        address: hex.as_bytes(),
                        form: MtpForm::Text(NameForm::Utf8Lossy),
                    })
                } else {
                    self.pos = after;
                    Ok(MidView::Device {
                        name: t.text.as_bytes(),
                        form: NameForm::Lower,
                    })
                }
            }
        }
    }

    /// `":" portNumber`, when a `:` follows at once (no white space on
    /// either side).
    fn opt_port(&mut self) -> R<Option<u16>> {
        if self.here() != Some(b':') {
            return Ok(None);
        }
        self.pos += 1;
        if !self.here().is_some_and(|b| b.is_ascii_digit()) {
            return Err(self.expected("a port number"));
        }
        Ok(Some(self.u16_word("a port number")?))
    }

    /// `id`, `id/seg` or `id/seg/END` (v3 segmentation).
    pub(crate) fn tid_and_segment(&self, at: usize, w: &str) -> R<(u32, Option<u16>, bool)> {
        let mut parts = w.splitn(3, '/');
        let tid = parts.next().unwrap_or_default();
        let id = self.number(at, tid, "a transaction id", UINT32)? as u32;
        let Some(seg) = parts.next() else {
            return Ok((id, None, false));
        };
        let seg_at = at + tid.len() + 1;
        if self.version < 3 {
            return Err(self.invalid(at, w, "transaction id (segments are v3)"));
        }
        let seg_no = self.number(seg_at, seg, "a segment number", UINT16)? as u16;
        match parts.next() {
            None => Ok((id, Some(seg_no), false)),
            Some(end) if end.eq_ignore_ascii_case("end") || end == "&" => {
                Ok((id, Some(seg_no), true))
            }
            Some(end) => Err(self.invalid(
                seg_at + seg.len() + 1,
                end,
                "segmentation complete token (END)",
            )),
        }
    }

    /// One range of a TransactionResponseAck: `id` or `id-id`.
    pub(crate) fn transaction_ack(&mut self) -> R<(u32, Option<u32>)> {
        let (at, w) = self.word("a transaction id or range")?;
        const TID: &str = "a transaction id";
        Ok(match w.bytes().position(|b| b == b'-') {
            Some(i) => (
                self.number(at, &w[..i], TID, UINT32)? as u32,
                Some(self.number(at + i + 1, &w[i + 1..], TID, UINT32)? as u32),
            ),
            None => (self.number(at, w, TID, UINT32)? as u32, None),
        })
    }

    /// `ContextID`: a number, `-` (null), `$` (choose) or `*` (all).
    pub(crate) fn context_id(&mut self) -> R<ContextId> {
        const WHAT: &str = "a context id";
        // A number, the usual case, is read in one pass over its digits.
        let (at, v) = if self.peek().is_some_and(|b| b.is_ascii_digit()) {
            (self.pos, self.num_word(WHAT, UINT32)?)
        } else {
            let (at, w) = self.word(WHAT)?;
            match w.as_bytes() {
                [b'-'] => return Ok(ContextId::NULL),
                [b'$'] => return Ok(ContextId::CHOOSE),
                [b'*'] => return Ok(ContextId::ALL),
                _ => (at, self.number(at, w, WHAT, UINT32)?),
            }
        };
        let v = v as u32;
        if v == 0 || v == ContextId::CHOOSE.0 || v == ContextId::ALL.0 {
            // Reserved values are written `-`, `$` and `*`.
            let w = self.slice(at, self.pos);
            return Err(self.invalid(at, w, "context id (reserved value)"));
        }
        Ok(ContextId(v))
    }

    /// `= code { ["text"] }` after `Error`: the code and the text.
    pub(crate) fn error_code(&mut self) -> R<(u16, Option<&'a str>)> {
        self.equal()?;
        let code = self.num_word("an error code", ERROR_CODE)? as u16;
        self.open()?;
        let text = if self.peek() == Some(b'"') {
            Some(self.quoted()?)
        } else {
            None
        };
        self.close()?;
        Ok((code, text))
    }
}

/// `O-`, `W-` and `O-W-` command prefixes: (optional, wildcard, rest).
pub(crate) fn split_command_prefix(w: &str) -> (bool, bool, &str) {
    let mut rest = w;
    let mut optional = false;
    let mut wildcard = false;
    let b = rest.as_bytes();
    if b.len() > 2 && (b[0] | 0x20) == b'o' && b[1] == b'-' {
        optional = true;
        rest = &rest[2..];
    }
    let b = rest.as_bytes();
    if b.len() > 2 && (b[0] | 0x20) == b'w' && b[1] == b'-' {
        wildcard = true;
        rest = &rest[2..];
    }
    (optional, wildcard, rest)
}
