//! Model → BER. Tags follow the v3 module's AUTOMATIC TAGS: component `n`
//! of a SEQUENCE or alternative `n` of a CHOICE is `[n]`, implicit, except
//! that a CHOICE-typed component gets an explicit `[n]` around the chosen
//! alternative. Lengths are definite and minimal.

use crate::asn1::enums::{Enumerated, NamedBits};
use crate::asn1::names::{ItemKind, NameRegistry};
use crate::asn1::termid::{self, TermIdLevels};
use crate::asn1::values;
use crate::ber::{BerConfig, Dialect, EventLevel, Mapping};
use crate::model::*;
use crate::EncodeError;

// The walk, by descriptor family (the same files as `model/`).
mod audit;
mod commands;
mod events;
mod media;
mod message;
mod replies;
mod service_change;
mod signals;

type R = Result<(), EncodeError>;

/// Context-specific primitive tag `[n]`.
const fn p(n: u8) -> u8 {
    0x80 | n
}
/// Context-specific constructed tag `[n]`.
const fn c(n: u8) -> u8 {
    0xA0 | n
}
const SEQ: u8 = 0x30;
const OCTETS: u8 = 0x04;
const INTEGER: u8 = 0x02;
const ENUMERATED: u8 = 0x0A;

use crate::error::invalid;

/// `v` within its ASN.1 range `0..=max` (the decoder refuses the rest).
fn bounded(v: u8, max: u8, what: &'static str) -> Result<u8, EncodeError> {
    if v > max {
        return Err(invalid(what, format!("{v} is above {max}")));
    }
    Ok(v)
}

/// An open constructed value: where its content starts, and how many
/// length octets were pending when it was opened.
#[derive(Clone, Copy)]
struct Mark {
    start: usize,
    extra: usize,
}

const INLINE_FIXUPS: usize = 32;

struct Enc<'a> {
    out: &'a mut Vec<u8>,
    /// Long lengths to write at the end: (placeholder offset, length);
    /// the first [`INLINE_FIXUPS`] inline, the rest in `spill`.
    fixups: [(usize, usize); INLINE_FIXUPS],
    nfix: usize,
    spill: Vec<(usize, usize)>,
    /// Length octets still to insert (sum over `fixups`).
    extra: usize,
    reg: &'a NameRegistry,
    levels: Option<&'a TermIdLevels>,
    standard: bool,
    /// The message's protocol version.
    version: u8,
    /// Nesting of embedded events (the one recursive ASN.1 type:
    /// regulated notify behaviours hold embedded events again).
    depth: usize,
    max_depth: usize,
}

pub(super) fn encode_message(msg: &MegacoMessage, cfg: &BerConfig, out: &mut Vec<u8>) -> R {
    static EMPTY: std::sync::OnceLock<NameRegistry> = std::sync::OnceLock::new();
    let (reg, levels) = match &cfg.mapping {
        Mapping::Text(l) => (&*cfg.registry, Some(l)),
        Mapping::Native => (EMPTY.get_or_init(NameRegistry::empty), None),
    };
    let mut e = Enc {
        out,
        reg,
        levels,
        standard: cfg.dialect == Dialect::Standard,
        version: msg.mess.version,
        depth: 0,
        max_depth: cfg.limits.max_depth,
        fixups: [(0, 0); INLINE_FIXUPS],
        nfix: 0,
        spill: Vec::new(),
        extra: 0,
    };
    e.megaco_message(msg)?;
    e.finish();
    Ok(())
}

impl Enc<'_> {
    /// Starts a constructed value with a one-octet length placeholder.
    #[inline]
    fn open(&mut self, tag: u8) -> Mark {
        self.out.push(tag);
        self.out.push(0);
        Mark {
            start: self.out.len(),
            extra: self.extra,
        }
    }

    /// Ends a constructed value. A short length is written in place; a
    /// long one is recorded and written by [`finish`](Self::finish), which
    /// moves every byte at most once, instead of shifting the content now.
    #[inline]
    fn close(&mut self, m: Mark) {
        let len = self.out.len() - m.start + (self.extra - m.extra);
        if len < 0x80 {
            self.out[m.start - 1] = len as u8;
        } else {
            let n = if len < 0x100 {
                1
            } else if len < 0x1_0000 {
                2
            } else if len < 0x100_0000 {
                3
            } else {
                4
            };
            if self.nfix < INLINE_FIXUPS {
                self.fixups[self.nfix] = (m.start - 1, len);
                self.nfix += 1;
            } else {
                self.spill.push((m.start - 1, len));
            }
            self.extra += n;
        }
    }

    /// Writes the recorded long lengths, moving the data after each one
    /// back, from the end of the buffer to its start.
    fn finish(&mut self) {
        if self.nfix == 0 {
            return;
        }
        let mut all = std::mem::take(&mut self.spill);
        let fixups: &mut [(usize, usize)] = if all.is_empty() {
            &mut self.fixups[..self.nfix]
        } else {
            all.extend_from_slice(&self.fixups[..self.nfix]);
            &mut all
        };
        fixups.sort_unstable_by_key(|f| std::cmp::Reverse(f.0));
        let mut src_end = self.out.len();
        self.out.resize(src_end + self.extra, 0);
        let mut dst_end = self.out.len();
        for &(pos, len) in fixups.iter() {
            let n = (usize::BITS - len.leading_zeros()).div_ceil(8) as usize;
            let seg = src_end - (pos + 1);
            let dst_start = dst_end - seg;
            self.out.copy_within(pos + 1..src_end, dst_start);
            for i in 0..n {
                self.out[dst_start - n + i] = (len >> (8 * (n - 1 - i))) as u8;
            }
            self.out[dst_start - n - 1] = 0x80 | n as u8;
            // the tag (and all before it) has not moved yet
            src_end = pos;
            dst_end = dst_start - n - 1;
        }
        debug_assert_eq!(src_end, dst_end);
    }

    #[inline]
    fn len(&mut self, n: usize) {
        if n < 0x80 {
            self.out.push(n as u8);
        } else {
            let bytes = (n as u64).to_be_bytes();
            let skip = bytes.iter().take_while(|&&b| b == 0).count();
            self.out.push(0x80 | (8 - skip) as u8);
            self.out.extend_from_slice(&bytes[skip..]);
        }
    }

    #[inline]
    fn prim(&mut self, tag: u8, content: &[u8]) {
        self.out.push(tag);
        self.len(content.len());
        self.out.extend_from_slice(content);
    }

    #[inline]
    fn uint(&mut self, tag: u8, v: u64) {
        let bytes = v.to_be_bytes();
        let mut start = 0;
        while start < 7 && bytes[start] == 0 && bytes[start + 1] & 0x80 == 0 {
            start += 1;
        }
        // A value with its top bit set needs a leading zero octet.
        if bytes[start] & 0x80 != 0 {
            self.out.push(tag);
            self.out.push((8 - start + 1) as u8);
            self.out.push(0);
        } else {
            self.out.push(tag);
            self.out.push((8 - start) as u8);
        }
        self.out.extend_from_slice(&bytes[start..]);
    }

    #[inline]
    fn opt_uint(&mut self, tag: u8, v: Option<impl Into<u64>>) {
        if let Some(v) = v {
            self.uint(tag, v.into());
        }
    }

    #[inline]
    fn null(&mut self, tag: u8) {
        self.out.push(tag);
        self.out.push(0);
    }

    #[inline]
    fn flag(&mut self, tag: u8, set: bool) {
        if set {
            self.null(tag);
        }
    }

    #[inline]
    fn boolean(&mut self, tag: u8, v: bool) {
        self.out
            .extend_from_slice(&[tag, 1, if v { 0xFF } else { 0 }]);
    }

    #[inline]
    fn opt_bool(&mut self, tag: u8, v: Option<bool>) {
        if let Some(v) = v {
            self.boolean(tag, v);
        }
    }

    /// A BIT STRING of the given bit numbers (named-bit list: trailing
    /// zero bits removed).
    /// An ENUMERATED: its number from the table in `asn1::enums`.
    #[inline]
    fn enumerated<T: Enumerated>(&mut self, tag: u8, v: T) {
        self.uint(tag, u64::from(v.number()));
    }

    /// A BIT STRING of named bits (positions from `asn1::enums`), with
    /// trailing zero bits removed.
    fn bits<T: NamedBits>(&mut self, tag: u8, set: &[T]) {
        let mut mask: u32 = 0;
        for b in set {
            mask |= 1 << b.bit();
        }
        if mask == 0 {
            self.prim(tag, &[0]);
            return;
        }
        let nbits = 32 - mask.leading_zeros();
        let nbytes = nbits.div_ceil(8) as usize;
        let mut buf = [0u8; 5];
        buf[0] = (nbytes as u32 * 8 - nbits) as u8;
        for b in 0..nbits {
            if mask & (1 << b) != 0 {
                buf[1 + (b / 8) as usize] |= 0x80 >> (b % 8);
            }
        }
        self.prim(tag, &buf[..=nbytes]);
    }

    // ---- mapped values ------------------------------------------------

    fn pkgd(&mut self, tag: u8, kind: ItemKind, name: &str) -> Result<[u8; 4], EncodeError> {
        let code = self
            .reg
            .encode_pkgd_name(kind, name)
            .map_err(|e| invalid("name", e))?;
        self.prim(tag, &code);
        Ok(code)
    }

    fn param_name(
        &mut self,
        tag: u8,
        kind: ItemKind,
        item: [u8; 4],
        name: &str,
    ) -> Result<[u8; 2], EncodeError> {
        let code = self
            .reg
            .encode_parameter(kind, item, name)
            .map_err(|e| invalid("parameter name", e))?;
        self.prim(tag, &code);
        Ok(code)
    }

    fn term_id(&mut self, tag: u8, t: &TerminationId) -> R {
        let asn = match self.levels {
            Some(l) => termid::encode(t.as_str(), l)
                .map_err(|e| invalid("termination id", format!("{:?}: {e}", t.as_str())))?,
            None => termid::parse_native(t.as_str()).ok_or_else(|| {
                invalid(
                    "termination id",
                    format!("{:?} is not in native form 0x<hex>[#<hex>]", t.as_str()),
                )
            })?,
        };
        let s = self.open(tag);
        let w = self.open(c(0));
        for &wc in asn.wildcards() {
            self.prim(OCTETS, &[wc]);
        }
        self.close(w);
        self.prim(p(1), asn.id());
        self.close(s);
        Ok(())
    }

    fn term_ids(&mut self, tag: u8, ids: &[TerminationId]) -> R {
        let s = self.open(tag);
        for t in ids {
            self.term_id(SEQ, t)?;
        }
        self.close(s);
        Ok(())
    }

    /// `Value ::= SEQUENCE OF OCTET STRING`, wrapped by `ty` in the
    /// standard dialect.
    fn value(&mut self, tag: u8, vals: &[CompactString], ty: Option<&values::ValueType>) {
        let s = self.open(tag);
        for v in vals {
            if self.standard {
                let m = self.open(OCTETS);
                values::wrap(ty, v, self.out);
                self.close(m);
            } else {
                self.prim(OCTETS, v.as_bytes());
            }
        }
        self.close(s);
    }

    fn extra_info(&mut self, tag: u8, x: &Option<ExtraInfo>) {
        if let Some(x) = x {
            let s = self.open(tag);
            match x {
                ExtraInfo::Relation(r) => self.enumerated(p(0), *r),
                ExtraInfo::Range(b) => self.boolean(p(1), *b),
                ExtraInfo::Sublist(b) => self.boolean(p(2), *b),
            }
            self.close(s);
        }
    }

    // ---- message --------------------------------------------------------
}

/// BER content octets of an OBJECT IDENTIFIER.
fn oid(arcs: &[u32], out: &mut Vec<u8>) -> R {
    if arcs.len() < 2 || arcs[0] > 2 || (arcs[0] < 2 && arcs[1] > 39) {
        return Err(invalid("object identifier", format!("{arcs:?}")));
    }
    let first = u64::from(arcs[0]) * 40 + u64::from(arcs[1]);
    let mut put = |v: u64| {
        let mut tmp = [0u8; 10];
        let mut n = 0;
        let mut v = v;
        loop {
            tmp[n] = (v & 0x7F) as u8;
            n += 1;
            v >>= 7;
            if v == 0 {
                break;
            }
        }
        for i in (0..n).rev() {
            out.push(tmp[i] | if i > 0 { 0x80 } else { 0 });
        }
    };
    put(first);
    for &a in &arcs[2..] {
        put(u64::from(a));
    }
    Ok(())
}
