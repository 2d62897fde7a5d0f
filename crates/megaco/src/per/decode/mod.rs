//! Aligned PER → model, following the module of the version found in the
//! message. The one recursion of the ASN.1 types (a regulated notify
//! behaviour embeds events whose actions have a notify behaviour again) is
//! bounded by the `max_depth` of [`PerConfig::limits`](super::PerConfig::limits);
//! every count is checked against the bits left and the limits before
//! anything is allocated.
//!
//! One file per descriptor family, with the same names as the other
//! codecs: [`message`], [`commands`], [`media`], [`events`], [`signals`],
//! [`audit`], [`service_change`], [`replies`]; the helpers every family
//! uses are here.
//!
//! Two ways of reading share these functions: the owned decoder builds
//! the model (large values in place, in the list element or field that
//! holds them, rather than moved out through `Result`s), and a borrowed
//! reading goes past what it does not report with [`Dcx::build`] off:
//! then nothing is allocated, no string or name is made, lists stay empty
//! and only what the structure needs is kept.

use std::cell::Cell;

use super::bits::{BitReader, List, R};
use super::form::Scope;
use super::PerConfig;
use crate::asn1::enums::{Enumerated, NamedBits};
use crate::asn1::termid::{self, AsnTermId, TermIdError};
use crate::error::{DecodeError, DecodeErrorKind, Limit};
use crate::model::*;
use crate::view::{MidView, MtpForm, NameForm};

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

pub(super) use message::{header, megaco_message};

/// What every decoding function needs besides the reader.
pub(crate) struct Dcx<'f> {
    /// Protocol version read from the message.
    pub(crate) v: u8,
    /// Names and termination id mapping.
    pub(crate) cfg: &'f PerConfig,
    /// Whether values are built (the owned decoder) or only read past
    /// (the view): strings, names, lists, boxes.
    pub(crate) build: bool,
    /// Current nesting of notify behaviours.
    depth: Cell<usize>,
    /// The deepest nesting accepted.
    max_depth: usize,
}

impl<'f> Dcx<'f> {
    /// The context for a message of version `v`.
    pub(crate) fn new(v: u8, cfg: &'f PerConfig, build: bool) -> Self {
        Dcx {
            v,
            cfg,
            build,
            depth: Cell::new(0),
            max_depth: cfg.limits.max_depth,
        }
    }
}

fn form_err(r: &BitReader<'_>, what: &'static str, detail: String) -> DecodeError {
    r.err(DecodeErrorKind::Unmappable { what, detail })
}

fn invalid(r: &BitReader<'_>, what: &'static str, detail: &'static str) -> DecodeError {
    r.err(DecodeErrorKind::Invalid {
        what,
        detail: detail.into(),
    })
}

// ---------------------------------------------------------------- helpers

/// SEQUENCE OF: `min_bits` is the smallest encoding of one item; `f`
/// reads one. Nothing is kept when not building.
#[inline]
fn seq_of<'a, T, L: List<T>>(
    r: &mut BitReader<'a>,
    cx: &Dcx<'_>,
    min_bits: usize,
    what: &'static str,
    mut f: impl FnMut(&mut BitReader<'a>) -> R<T>,
) -> R<L> {
    let mut out = L::default();
    let mut so_far = 0;
    loop {
        let (n, more) = r.list_run(min_bits, so_far, what)?;
        if cx.build {
            out.reserve(n);
        }
        for _ in 0..n {
            let item = f(r)?;
            if cx.build {
                out.push(item);
            }
        }
        if !more {
            return Ok(out);
        }
        so_far += n;
    }
}

/// SEQUENCE OF built in place: `f` fills in each new (default) item where
/// the list holds it. When not building, every item is read into one
/// scratch value that is dropped afterwards.
#[inline]
fn seq_in<'a, T: Default, L: List<T>>(
    r: &mut BitReader<'a>,
    cx: &Dcx<'_>,
    min_bits: usize,
    what: &'static str,
    out: &mut L,
    mut f: impl FnMut(&mut BitReader<'a>, &mut T) -> R<()>,
) -> R<()> {
    let mut scratch = None;
    let mut so_far = 0;
    loop {
        let (n, more) = r.list_run(min_bits, so_far, what)?;
        if cx.build {
            out.reserve(n);
        }
        for _ in 0..n {
            let item = if cx.build {
                out.push(T::default());
                out.last_mut()
            } else {
                None
            };
            match item {
                Some(item) => f(r, item)?,
                None => f(r, scratch.get_or_insert_with(T::default))?,
            }
        }
        if !more {
            return Ok(());
        }
        so_far += n;
    }
}

/// Extension additions of a SEQUENCE with `known` additions: calls
/// `f(reader over the addition, index)` for each present known one and
/// skips unknown ones.
fn additions<'a>(
    r: &mut BitReader<'a>,
    known: usize,
    what: &'static str,
    mut f: impl FnMut(&mut BitReader<'a>, usize) -> R<()>,
) -> R<()> {
    // (saturating: a hostile count near 2^64 is refused just below)
    let n = usize::try_from(r.normally_small(what)?)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    if n > r.remaining_bits() {
        return Err(r.truncated(what));
    }
    r.check_list(n, what)?;
    // The presence bitmap, read alongside the open types that follow it.
    let mut bitmap = *r;
    r.skip_bits(n);
    for i in 0..n {
        if bitmap.bit(what)? {
            let mut sub = r.open_type(what)?;
            if i < known {
                f(&mut sub, i)?;
            }
        }
    }
    Ok(())
}

/// Skips the (unknown) extension additions of a SEQUENCE.
#[inline]
pub(crate) fn skip_ext(r: &mut BitReader<'_>, ext: bool, what: &'static str) -> R<()> {
    if ext {
        additions(r, 0, what, |_, _| Ok(()))?;
    }
    Ok(())
}

/// Reads the extension bit of a SEQUENCE when the module has a marker.
fn ext_bit(r: &mut BitReader<'_>, has: bool, what: &'static str) -> R<bool> {
    if has {
        r.bit(what)
    } else {
        Ok(false)
    }
}

/// A CHOICE index: `Ok(i)` for a root alternative, `Err((i, reader))` for an
/// extension alternative with its open type contents.
#[inline(always)]
pub(crate) fn choice<'a>(
    r: &mut BitReader<'a>,
    n: u64,
    ext: bool,
    what: &'static str,
) -> R<Result<u64, (u64, BitReader<'a>)>> {
    if ext && r.bit(what)? {
        return extension_choice(r, what).map(Err);
    }
    Ok(Ok(r.constrained(0, n - 1, what)?))
}

/// The index and contents of an extension alternative of a CHOICE.
#[inline(never)]
fn extension_choice<'a>(r: &mut BitReader<'a>, what: &'static str) -> R<(u64, BitReader<'a>)> {
    let i = r.normally_small(what)?;
    let sub = r.open_type(what)?;
    Ok((i, sub))
}

/// A root-only CHOICE index (extension alternatives are unknown here).
#[inline(always)]
pub(crate) fn root_choice(r: &mut BitReader<'_>, n: u64, ext: bool, what: &'static str) -> R<u64> {
    if ext && r.bit(what)? {
        return Err(unknown_alternative(r, what));
    }
    r.constrained(0, n - 1, what)
}

/// An extension alternative where none is known: read, then refused.
#[cold]
#[inline(never)]
fn unknown_alternative(r: &mut BitReader<'_>, what: &'static str) -> DecodeError {
    match extension_choice(r, what) {
        Ok(_) => invalid(r, what, "unknown extension alternative"),
        Err(e) => e,
    }
}

/// An ENUMERATED value (the table in `asn1::enums`); an index the table
/// does not have is an error.
#[inline(always)]
fn enumerated<T: Enumerated>(r: &mut BitReader<'_>, what: &'static str) -> R<T> {
    let addition = T::EXTENSIBLE && r.bit(what)?;
    let index = if addition {
        r.normally_small(what)?
    } else {
        r.constrained(0, T::ROOT.len() as u64 - 1, what)?
    };
    T::from_per_index(addition, index).ok_or_else(|| invalid(r, what, "unknown value"))
}

#[inline]
pub(crate) fn u16_(r: &mut BitReader<'_>, what: &'static str) -> R<u16> {
    Ok(r.constrained(0, 65535, what)? as u16)
}

#[inline]
fn u99(r: &mut BitReader<'_>, what: &'static str) -> R<u8> {
    Ok(r.constrained(0, 99, what)? as u8)
}

/// An optional value: `f` reads it when `present`.
#[inline]
fn opt<'a, T>(
    r: &mut BitReader<'a>,
    present: bool,
    f: impl FnOnce(&mut BitReader<'a>) -> R<T>,
) -> R<Option<T>> {
    if present {
        f(r).map(Some)
    } else {
        Ok(None)
    }
}

/// Octets of a string value → text. OTP keeps such values as octet lists
/// and sends them unchanged, so text that came in as UTF-8 goes out as
/// UTF-8; octets that are not UTF-8 are taken as Latin-1 (one character
/// an octet, as OTP's lists hold them).
pub(crate) fn to_string(bytes: &[u8]) -> CompactString {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.into(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

/// Text of `bytes` when building, else nothing.
#[inline]
fn text(cx: &Dcx<'_>, bytes: &[u8]) -> CompactString {
    if cx.build {
        to_string(bytes)
    } else {
        CompactString::default()
    }
}

fn ia5(r: &mut BitReader<'_>, cx: &Dcx<'_>, what: &'static str) -> R<CompactString> {
    let mut s = CompactString::default();
    ia5_to(r, cx, what, &mut s)?;
    Ok(s)
}

/// An IA5String, written into `s` when building. (Strings and names are
/// written where they are kept rather than returned inside a `Result`:
/// moving an inline string out of a `Result` copies it in pieces that
/// cost more than reading it.)
#[inline]
fn ia5_to(r: &mut BitReader<'_>, cx: &Dcx<'_>, what: &'static str, s: &mut CompactString) -> R<()> {
    let b = r.octet_str(cx.build, what)?;
    if cx.build {
        *s = to_string(&b);
    }
    Ok(())
}

/// An octet string with SIZE(lb..ub), ub < 64K; a fixed size (`lb ==
/// ub`) must be above two octets (those are aligned; Megaco has no
/// smaller fixed-size string).
#[inline(always)]
pub(crate) fn sized<'a>(
    r: &mut BitReader<'a>,
    lb: usize,
    ub: usize,
    what: &'static str,
) -> R<&'a [u8]> {
    let n = if lb == ub {
        lb
    } else {
        r.constrained(lb as u64, ub as u64, what)? as usize
    };
    r.check_string(n)?;
    r.aligned_slice(n, what)
}

fn ia5_sized(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    lb: usize,
    ub: usize,
    what: &'static str,
) -> R<CompactString> {
    let b = sized(r, lb, ub, what)?;
    Ok(text(cx, b))
}

/// An IA5String with SIZE(lb..ub), written into `s` when building.
#[inline]
fn ia5_sized_to(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    (lb, ub): (usize, usize),
    what: &'static str,
    s: &mut CompactString,
) -> R<()> {
    let b = sized(r, lb, ub, what)?;
    if cx.build {
        *s = to_string(b);
    }
    Ok(())
}

/// The two octets of a package, parameter or digit map name (unaligned:
/// a fixed size of two).
#[inline]
fn code2(r: &mut BitReader<'_>, what: &'static str) -> R<[u8; 2]> {
    Ok((r.bits(16, what)? as u16).to_be_bytes())
}

/// A `PkgdName`: its text when building, and its code (parameters are
/// relative to it).
#[inline]
fn pkgd_code(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    scope: Scope,
    what: &'static str,
) -> R<(CompactString, [u8; 4])> {
    let c = r.aligned_array::<4>(what)?;
    let name = if cx.build {
        cx.cfg.pkgd_name(scope, c)
    } else {
        CompactString::default()
    };
    Ok((name, c))
}

#[inline]
fn pkgd(r: &mut BitReader<'_>, cx: &Dcx<'_>, scope: Scope, what: &'static str) -> R<CompactString> {
    Ok(pkgd_code(r, cx, scope, what)?.0)
}

/// A `PkgdName`: its text into `name` when building; its code returned
/// (parameters are relative to it).
#[inline]
fn pkgd_to(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    scope: Scope,
    what: &'static str,
    name: &mut CompactString,
) -> R<[u8; 4]> {
    let c = r.aligned_array::<4>(what)?;
    if cx.build {
        *name = cx.cfg.pkgd_name(scope, c);
    }
    Ok(c)
}

fn dialplan(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CompactString> {
    let c = code2(r, "DigitMapName")?;
    Ok(if cx.build {
        cx.cfg.dialplan_name(c)
    } else {
        CompactString::default()
    })
}

fn package(r: &mut BitReader<'_>, cx: &Dcx<'_>) -> R<CompactString> {
    let c = code2(r, "packageName")?;
    Ok(if cx.build {
        cx.cfg.package_name(c)
    } else {
        CompactString::default()
    })
}

/// BIT STRING with named bits, no size: `named(bit)` maps each set bit
/// (`None`: an unknown one, refused).
fn bit_string<T>(
    r: &mut BitReader<'_>,
    cx: &Dcx<'_>,
    what: &'static str,
    named: impl Fn(u32) -> Option<T>,
) -> R<Vec<T>> {
    let n = r.length(what)?;
    if n > r.remaining_bits() {
        return Err(r.truncated(what));
    }
    let mut out = Vec::new();
    let mut unknown = false;
    for i in 0..n {
        if r.bit(what)? {
            match named(i as u32) {
                Some(v) if cx.build => out.push(v),
                Some(_) => {}
                None => unknown = true,
            }
        }
    }
    if unknown {
        return Err(invalid(r, what, "unknown named bit"));
    }
    Ok(out)
}

/// Pushes `v` and returns it where the list holds it.
fn put<T, L: List<T>>(out: &mut L, v: T) -> &mut T {
    out.push(v);
    match out.last_mut() {
        Some(x) => x,
        None => unreachable!("an element was just pushed"),
    }
}

/// SEQUENCE OF whose items `f` puts in the list itself (the envelope of
/// the message, which only the owned decoder builds).
fn seq_with<'a, T, L: List<T>>(
    r: &mut BitReader<'a>,
    min_bits: usize,
    what: &'static str,
    out: &mut L,
    mut f: impl FnMut(&mut BitReader<'a>, &mut L) -> R<()>,
) -> R<()> {
    let mut so_far = 0;
    loop {
        let (n, more) = r.list_run(min_bits, so_far, what)?;
        out.reserve(n);
        for _ in 0..n {
            f(r, out)?;
        }
        if !more {
            return Ok(());
        }
        so_far += n;
    }
}

/// A BIT STRING of named bits (the table in `asn1::enums`); a bit the
/// module of the message's version does not name is an error.
fn named_bits<T: NamedBits>(r: &mut BitReader<'_>, cx: &Dcx<'_>, what: &'static str) -> R<Vec<T>> {
    bit_string(r, cx, what, |b| {
        T::from_bit(b).filter(|x| x.since() <= cx.v)
    })
}
