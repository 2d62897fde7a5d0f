//! Messages encoded once and patched per send: only the transaction id
//! (and, optionally, the context id) change between two requests of a
//! load run or a fan-out, so the bytes are encoded once per shape and the
//! numbers written in place.
//!
//! A number's encoding has a length that depends on its value (decimal
//! digits in text; the octets of an INTEGER in BER and PER, with every
//! enclosing length in BER), so a template keeps one encoding per length
//! class, made the first time a value of that class is written. The
//! place of each number in it is found, not assumed: the message is
//! encoded with two values of the class that differ in every digit or
//! octet, and the bytes that differ are the field; a third value then
//! checks that patching gives exactly what the encoder writes. A shape
//! for which that fails (or an encoding with no fixed number layout, such
//! as the native format) is encoded in full each time: slower, never
//! wrong.
//!
//! ```
//! use megaco::codec::Encoding;
//! use megaco::model::*;
//! use megaco_load::template::Template;
//!
//! let build = |tid: u32, _ctx: u32| {
//!     megaco_load::msg::request(
//!         Mid::Device("mgc".into()),
//!         1,
//!         tid,
//!         vec![megaco_load::msg::audit_root()],
//!     )
//! };
//! let mut t = Template::new(Encoding::compact(), false, Box::new(build));
//! let mut out = Vec::new();
//! t.write(4711, 0, &mut out).unwrap();
//! assert_eq!(out, Encoding::compact().encode(&build(4711, 0)).unwrap());
//! ```

use megaco::codec::{Encoding, Kind};
use megaco::{EncodeError, MegacoMessage};

/// Builds the message for a transaction id and a context id.
pub type Builder = Box<dyn Fn(u32, u32) -> MegacoMessage + Send>;

/// The number of length classes of a 32-bit value: 10 decimal digits at
/// most.
const CLASSES: usize = 10;

#[derive(Debug, Clone)]
enum Slot {
    /// Encoded in full each time.
    Fallback,
    Ready {
        bytes: Vec<u8>,
        tid: (usize, usize),
        ctx: Option<(usize, usize)>,
    },
}

/// A message shape with a patchable transaction id and, optionally, a
/// patchable context id.
pub struct Template {
    encoding: Encoding,
    kind: Kind,
    with_context: bool,
    build: Builder,
    /// Length-class key and its encoding; few classes are ever used.
    slots: Vec<(usize, Slot)>,
}

impl std::fmt::Debug for Template {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Template")
            .field("kind", &self.kind)
            .field("with_context", &self.with_context)
            .finish_non_exhaustive()
    }
}

impl Template {
    /// A template of the messages `build` makes. With `with_context`, the
    /// context id is patched too (it must then be a plain number: the
    /// null, choose and all contexts are encoded in full).
    pub fn new(encoding: Encoding, with_context: bool, build: Builder) -> Self {
        let kind = encoding.kind();
        Template {
            encoding,
            kind,
            with_context,
            build,
            slots: Vec::new(),
        }
    }

    /// Appends the message for `tid` (and `ctx`) to `out`.
    pub fn write(&mut self, tid: u32, ctx: u32, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let special_ctx = self.with_context && (ctx == 0 || ctx >= 0xFFFF_FFFE);
        let classes = class(self.kind, tid).zip(if self.with_context {
            class(self.kind, ctx)
        } else {
            Some(0)
        });
        let Some((ct, cc)) = classes.filter(|_| !special_ctx) else {
            return self.encoding.encode_into(&(self.build)(tid, ctx), out);
        };
        let key = ct * CLASSES + cc;
        let i = match self.slots.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                let slot = self.discover(ct, cc)?;
                self.slots.push((key, slot));
                self.slots.len() - 1
            }
        };
        match &self.slots[i].1 {
            Slot::Ready {
                bytes,
                tid: t,
                ctx: c,
            } => {
                let start = out.len();
                out.extend_from_slice(bytes);
                patch(self.kind, &mut out[start + t.0..start + t.1], tid);
                if let Some(c) = c {
                    patch(self.kind, &mut out[start + c.0..start + c.1], ctx);
                }
                Ok(())
            }
            _ => self.encoding.encode_into(&(self.build)(tid, ctx), out),
        }
    }

    /// Whether values of these classes are patched (rather than encoded in
    /// full); for tests and reports.
    pub fn is_patched(&mut self, tid: u32, ctx: u32) -> bool {
        let mut sink = Vec::new();
        if self.write(tid, ctx, &mut sink).is_err() {
            return false;
        }
        match class(self.kind, tid).zip(class(self.kind, ctx)) {
            Some((ct, cc)) => {
                let key = ct * CLASSES + if self.with_context { cc } else { 0 };
                self.slots
                    .iter()
                    .any(|(k, s)| *k == key && matches!(s, Slot::Ready { .. }))
            }
            None => false,
        }
    }

    fn discover(&self, ct: usize, cc: usize) -> Result<Slot, EncodeError> {
        let (Some(t), Some(c)) = (samples(self.kind, ct), samples(self.kind, cc)) else {
            return Ok(Slot::Fallback);
        };
        let c = if self.with_context { c } else { [0; 3] };
        let enc = |tid, ctx| self.encoding.encode(&(self.build)(tid, ctx));
        let base = enc(t[0], c[0])?;
        let Some(tid) = span(&base, &enc(t[1], c[0])?) else {
            return Ok(Slot::Fallback);
        };
        let ctx = if self.with_context {
            match span(&base, &enc(t[0], c[1])?) {
                Some(s) if s.1 <= tid.0 || s.0 >= tid.1 => Some(s),
                _ => return Ok(Slot::Fallback),
            }
        } else {
            None
        };
        // The check: a third pair of values, patched, must be what the
        // encoder writes.
        let mut patched = base.clone();
        patch(self.kind, &mut patched[tid.0..tid.1], t[2]);
        if let Some(s) = ctx {
            patch(self.kind, &mut patched[s.0..s.1], c[2]);
        }
        if patched != enc(t[2], c[2])? {
            return Ok(Slot::Fallback);
        }
        Ok(Slot::Ready {
            bytes: base,
            tid,
            ctx,
        })
    }
}

/// The length class of `v` (0-based): decimal digits in text, INTEGER
/// octets in BER (signed) and PER (unsigned). `None` where numbers have
/// no fixed layout.
fn class(kind: Kind, v: u32) -> Option<usize> {
    match kind {
        Kind::Text => Some(digits(v) - 1),
        Kind::Ber => Some(match v {
            0..=0x7F => 0,
            0x80..=0x7FFF => 1,
            0x8000..=0x7F_FFFF => 2,
            0x80_0000..=0x7FFF_FFFF => 3,
            _ => 4,
        }),
        Kind::Per => Some(match v {
            0..=0xFF => 0,
            0x100..=0xFFFF => 1,
            0x1_0000..=0xFF_FFFF => 2,
            _ => 3,
        }),
        _ => None,
    }
}

fn digits(mut v: u32) -> usize {
    let mut n = 1;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

/// Three values of a class that differ in every digit or octet.
fn samples(kind: Kind, class: usize) -> Option<[u32; 3]> {
    let n = class + 1;
    let rep = |unit: u64, base: u64, digit: u64| -> u32 {
        let mut v = 0u64;
        for _ in 0..n {
            v = v * base + digit * unit;
        }
        v as u32
    };
    match kind {
        Kind::Text if n <= 10 => Some([rep(1, 10, 1), rep(1, 10, 2), rep(1, 10, 3)]),
        Kind::Ber if n == 5 => Some([0x9191_9191, 0xA2A2_A2A2, 0xB3B3_B3B3]),
        Kind::Ber | Kind::Per if n <= 4 => {
            Some([rep(0x11, 256, 1), rep(0x11, 256, 2), rep(0x11, 256, 3)])
        }
        _ => None,
    }
}

/// The one contiguous run of bytes where `a` and `b` differ.
fn span(a: &[u8], b: &[u8]) -> Option<(usize, usize)> {
    if a.len() != b.len() {
        return None;
    }
    let first = a.iter().zip(b).position(|(x, y)| x != y)?;
    let last = a.len() - a.iter().zip(b).rev().position(|(x, y)| x != y)?;
    a[first..last]
        .iter()
        .zip(&b[first..last])
        .all(|(x, y)| x != y)
        .then_some((first, last))
}

/// Writes `v` into `field`: decimal digits for text, the low octets big
/// endian otherwise.
fn patch(kind: Kind, field: &mut [u8], mut v: u32) {
    match kind {
        Kind::Text => {
            for b in field.iter_mut().rev() {
                *b = b'0' + (v % 10) as u8;
                v /= 10;
            }
        }
        _ => {
            for b in field.iter_mut().rev() {
                *b = v as u8;
                v >>= 8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_samples_agree() {
        for kind in [Kind::Text, Kind::Ber, Kind::Per] {
            for c in 0..CLASSES {
                if let Some(s) = samples(kind, c) {
                    for v in s {
                        assert_eq!(class(kind, v), Some(c), "{kind:?} {c} {v:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn span_finds_one_run() {
        assert_eq!(span(b"T=111{", b"T=222{"), Some((2, 5)));
        assert_eq!(span(b"T=1{1", b"T=2{2"), None);
        assert_eq!(span(b"abc", b"abc"), None);
    }
}
