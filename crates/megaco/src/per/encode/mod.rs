//! Model → aligned PER, following the MEDIA-GATEWAY-CONTROL module of the
//! message's version (v1, v2 or v3; OTP's modules).
//!
//! One file per descriptor family, with the same names as the other
//! codecs: [`message`], [`commands`], [`media`], [`events`], [`signals`],
//! [`audit`], [`service_change`], [`replies`]; the helpers every family
//! uses are here.

use std::cell::Cell;

use super::bits::BitWriter;
use super::form::{Form, Scope};
use crate::asn1::enums::{Enumerated, NamedBits};
use crate::model::*;
use crate::EncodeError;

mod audit;
mod commands;
mod events;
mod media;
mod message;
mod replies;
mod service_change;
mod signals;

use audit::*;
use commands::*;
use events::*;
use media::*;
use message::*;
use replies::*;
use service_change::*;
use signals::*;

pub(super) use message::megaco_message;

type R = Result<(), EncodeError>;

/// What every encoding function needs besides the writer.
pub(crate) struct Cx<'f> {
    /// Protocol version of the message (selects the module).
    pub(crate) v: u8,
    /// Text ↔ ASN.1 form mapping.
    pub(crate) form: &'f dyn Form,
    /// Current nesting of notify behaviours.
    pub(crate) depth: Cell<usize>,
    /// The deepest nesting accepted.
    pub(crate) max_depth: usize,
}

impl Cx<'_> {
    /// Fails when `present` and the message version is below `needs`.
    fn need(&self, present: bool, needs: u8, construct: &'static str) -> R {
        if present && self.v < needs {
            Err(EncodeError::Version {
                construct,
                version: self.v,
                needs,
            })
        } else {
            Ok(())
        }
    }
}

use crate::error::invalid;

// ---------------------------------------------------------------- helpers

/// SEQUENCE OF with an unconstrained count.
fn seq_of<T>(
    w: &mut BitWriter<'_>,
    items: &[T],
    mut f: impl FnMut(&mut BitWriter<'_>, &T) -> R,
) -> R {
    w.fragmented(items.len(), |w, i| f(w, &items[i]))
}

/// Extension additions of a SEQUENCE: the bitmap of the `n` additions
/// (`present`), then each present one as an open type via `f(w, index)`.
fn additions(
    w: &mut BitWriter<'_>,
    present: &[bool],
    mut f: impl FnMut(&mut BitWriter<'_>, usize) -> R,
) -> R {
    w.normally_small(present.len() as u64 - 1);
    for &p in present {
        w.bit(p);
    }
    for (i, &p) in present.iter().enumerate() {
        if p {
            w.open_type(|w| f(w, i))?;
        }
    }
    Ok(())
}

#[inline]
fn u32_(w: &mut BitWriter<'_>, v: u32) {
    w.constrained(v as u64, 0, 4_294_967_295);
}

#[inline]
fn u16_(w: &mut BitWriter<'_>, v: u16) {
    w.constrained(v as u64, 0, 65535);
}

/// IA5String without a size constraint (8 bits a character, aligned).
/// Like OTP, which sends the octets of its character lists as they are,
/// the text's UTF-8 octets go out unchanged.
#[inline]
fn ia5(w: &mut BitWriter<'_>, s: &str, _what: &'static str) -> R {
    w.octet_string(s.as_bytes());
    Ok(())
}

/// An octet string (or IA5String) with SIZE(lb..ub), ub < 64K.
fn sized(w: &mut BitWriter<'_>, data: &[u8], lb: usize, ub: usize, what: &'static str) -> R {
    let n = data.len();
    if n < lb || n > ub {
        return Err(invalid(what, format!("size {n} outside {lb}..{ub}")));
    }
    if lb == ub {
        if n <= 2 {
            w.octets(data);
        } else {
            w.aligned_octets(data);
        }
    } else {
        w.constrained(n as u64, lb as u64, ub as u64);
        w.aligned_octets(data);
    }
    Ok(())
}

fn ia5_sized(w: &mut BitWriter<'_>, s: &str, lb: usize, ub: usize, what: &'static str) -> R {
    sized(w, s.as_bytes(), lb, ub, what)
}

/// ENUMERATED: the value's index in the root (after the extension bit
/// of an extensible type) or among the additions (the table in
/// `asn1::enums`).
#[inline]
fn enumerated<T: Enumerated>(w: &mut BitWriter<'_>, v: T) {
    match v.per_index() {
        (false, i) => {
            if T::EXTENSIBLE {
                w.bit(false);
            }
            w.constrained(u64::from(i), 0, T::ROOT.len() as u64 - 1);
        }
        (true, i) => {
            w.bit(true);
            w.normally_small(u64::from(i));
        }
    }
}

/// CHOICE index among `n` root alternatives.
#[inline]
fn choice(w: &mut BitWriter<'_>, idx: u64, n: u64, ext: bool) {
    if ext {
        w.bit(false);
    }
    w.constrained(idx, 0, n - 1);
}

/// INTEGER (0..99): a version or a timer.
fn version99(w: &mut BitWriter<'_>, v: u8, what: &'static str) -> R {
    if v > 99 {
        return Err(invalid(what, "above 99"));
    }
    w.constrained(v as u64, 0, 99);
    Ok(())
}

/// BIT STRING with named bits and no size constraint: OTP drops the
/// trailing zero bits, so the length is the highest set bit plus one.
fn bit_string(w: &mut BitWriter<'_>, set: impl Iterator<Item = u32>) {
    let mut mask: u64 = 0;
    for b in set {
        mask |= 1 << b;
    }
    let len = 64 - mask.leading_zeros();
    w.length(len as usize);
    for b in 0..len {
        w.bit(mask & (1 << b) != 0);
    }
}

fn pkgd(w: &mut BitWriter<'_>, cx: &Cx<'_>, scope: Scope, name: &str) -> R {
    let code = cx.form.pkgd_to_asn1(scope, name)?;
    w.aligned_octets(&code);
    Ok(())
}
