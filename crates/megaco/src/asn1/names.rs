//! Package, item and parameter names ↔ their 2-octet binary codes.
//!
//! The binary encodings name a property, event, signal or statistic with a
//! `PkgdName`: a 2-octet package id and a 2-octet item id (`"al/of"` is
//! `00 09 00 05`). Event and signal parameters, package names (in
//! `PackagesItem`) and digit map names are one 2-octet `Name`. A parameter
//! code is scoped by its event or signal.
//!
//! [`NameRegistry::standard`] knows the packages of H.248.1 Annex E that
//! Erlang/OTP's binary name resolver knows, with the same codes: `g`,
//! `root`, `tonegen`, `tonedet`, `dg`, `dd`, `cg`, `cd`, `al`, `ct`, `nt`,
//! `rtp`, `tdmc`, `swb` (OTP's proprietary `FE FE`), and the pseudo
//! package `00 00` of the Annex C properties written without a package
//! (SDP `v`, `c`, `m`, … and `IPv4`, `Port`, …). Each item and parameter
//! also carries its [`ValueType`] for the standard dialect's value
//! wrapping. Clone it and add your own packages:
//!
//! ```
//! use megaco::asn1::names::{ItemKind, NameRegistry};
//! use megaco::asn1::values::ValueType;
//!
//! let mut reg = NameRegistry::standard().clone();
//! reg.add_package("xyz", 0x8001);
//! reg.add_item(0x8001, ItemKind::Event, "boom", 0x0001, None);
//! reg.add_parameter(0x8001, ItemKind::Event, 0x0001, "loud", 0x0002, Some(ValueType::Integer));
//!
//! let code = reg.encode_pkgd_name(ItemKind::Event, "xyz/boom").unwrap();
//! assert_eq!(code, [0x80, 0x01, 0x00, 0x01]);
//! assert_eq!(reg.encode_parameter(ItemKind::Event, code, "loud").unwrap(), [0, 2]);
//!
//! let mut s = String::new();
//! reg.decode_pkgd_name(ItemKind::Event, [0x00, 0x09, 0x00, 0x05], &mut s);
//! assert_eq!(s, "al/of");
//! ```
//!
//! `*` as a package or item is `FF FF`. Unknown codes decode to the hex
//! form `0xPPPP` (see the [module docs](super)), which encodes back to the
//! same code; names the registry does not know and that are not in that
//! form are an error on encoding ([`NameError`]).

use compact_str::CompactString;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, OnceLock};

use super::values::ValueType;
use super::{parse_hex16, push_hex16};

mod standard;

/// What a `PkgdName` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// A property (TerminationState, LocalControl, Local/Remote, context).
    Property,
    /// An event.
    Event,
    /// A signal.
    Signal,
    /// A statistic.
    Statistic,
}

/// A parameter of an event or signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameter {
    /// Its text name.
    pub name: String,
    /// Its 2-octet code.
    pub code: u16,
    /// Its value type, if known.
    pub ty: Option<ValueType>,
}

/// A property, event, signal or statistic of a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// What it is.
    pub kind: ItemKind,
    /// Its text name.
    pub name: String,
    /// Its 2-octet code.
    pub code: u16,
    /// The value type of a property or statistic, if known.
    pub ty: Option<ValueType>,
    /// Parameters of an event or signal.
    pub params: Vec<Parameter>,
}

/// A package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// Its text name (empty for the `00 00` pseudo package).
    pub name: String,
    /// Its 2-octet code.
    pub code: u16,
    /// Its items.
    pub items: Vec<Item>,
}

/// A name that has no code in the registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// Unknown package.
    #[error("unknown package {0:?}")]
    UnknownPackage(String),
    /// Unknown item of a known package.
    #[error("unknown {kind:?} {name:?}")]
    UnknownItem {
        /// What was looked for.
        kind: ItemKind,
        /// The full name.
        name: String,
    },
    /// Unknown parameter of an event or signal.
    #[error("unknown parameter {name:?} of {kind:?} {item:02x?}")]
    UnknownParameter {
        /// Event or signal.
        kind: ItemKind,
        /// The event or signal code.
        item: [u8; 4],
        /// The parameter name.
        name: String,
    },
    /// A digit map name without a code.
    #[error("digit map name {0:?} has no binary code (dialplanNN or 0xHHHH)")]
    UnknownDigitMap(String),
    /// A bare `*`: the wildcard item needs a package (`pkg/*` or `*/*`).
    #[error("a bare \"*\" is no {0:?} name: the wildcard needs a package (\"pkg/*\" or \"*/*\")")]
    BareWildcard(ItemKind),
}

/// Name ↔ code tables.
#[derive(Debug, Clone, Default)]
pub struct NameRegistry {
    packages: Vec<Package>,
    digit_maps: Vec<(String, u16)>,
    /// Hash indexes of full `pkg/item` names, built on first use and
    /// dropped by every change.
    index: OnceLock<Index>,
}

impl PartialEq for NameRegistry {
    fn eq(&self, other: &Self) -> bool {
        self.packages == other.packages && self.digit_maps == other.digit_maps
    }
}

impl Eq for NameRegistry {}

/// FNV-1a: names and codes are a few bytes long.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }

    /// Codes: one multiply, its high half folded into the low, which
    /// picks the bucket.
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        let h = (self.0 ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

type FnvMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

#[derive(Debug, Clone, Default)]
struct Index {
    /// Per kind: exact full name → code.
    enc: [FnvMap<Box<str>, [u8; 4]>; 4],
    /// Per kind: code → the item.
    dec: [FnvMap<u32, Known>; 4],
    /// Event and signal parameters: (kind, item code, parameter code) →
    /// the parameter.
    params: FnvMap<u64, Known>,
}

/// An item or parameter the registry knows: its name, ready to copy out
/// (inline strings), and where it is in the packages.
#[derive(Debug, Clone)]
struct Known {
    name: CompactString,
    package: usize,
    item: usize,
    /// The parameter's index, for a parameter.
    param: usize,
}

/// The key of a parameter in [`Index::params`].
fn param_key(kind: ItemKind, item: u32, code: u16) -> u64 {
    (kind_index(kind) as u64) << 48 | u64::from(item) << 16 | u64::from(code)
}

fn kind_index(kind: ItemKind) -> usize {
    match kind {
        ItemKind::Property => 0,
        ItemKind::Event => 1,
        ItemKind::Signal => 2,
        ItemKind::Statistic => 3,
    }
}

/// The code of the `*` wildcard package or item.
pub const WILDCARD: u16 = 0xFFFF;

impl NameRegistry {
    /// An empty registry: only hex forms and `*` map.
    pub fn empty() -> Self {
        NameRegistry::default()
    }

    /// The standard packages (shared instance).
    pub fn standard() -> &'static NameRegistry {
        Self::standard_arc()
    }

    /// The standard packages, as a shared pointer (cheap to clone into a
    /// codec configuration).
    pub fn standard_arc() -> &'static Arc<NameRegistry> {
        static STD: OnceLock<Arc<NameRegistry>> = OnceLock::new();
        STD.get_or_init(|| Arc::new(standard::build_standard()))
    }

    /// The packages, in the order added.
    pub fn packages(&self) -> &[Package] {
        &self.packages
    }

    /// Adds (or renames) a package.
    pub fn add_package(&mut self, name: &str, code: u16) {
        self.index = OnceLock::new();
        match self.packages.iter_mut().find(|p| p.code == code) {
            Some(p) => p.name = name.to_string(),
            None => self.packages.push(Package {
                name: name.to_string(),
                code,
                items: Vec::new(),
            }),
        }
    }

    /// Adds an item to the package with code `package` (created unnamed as
    /// `0xPPPP` if missing).
    pub fn add_item(
        &mut self,
        package: u16,
        kind: ItemKind,
        name: &str,
        code: u16,
        ty: Option<ValueType>,
    ) {
        self.index = OnceLock::new();
        let p = self.package_mut(package);
        p.items.retain(|i| !(i.kind == kind && i.code == code));
        p.items.push(Item {
            kind,
            name: name.to_string(),
            code,
            ty,
            params: Vec::new(),
        });
    }

    /// Adds a parameter to the event or signal `item` of `package`.
    pub fn add_parameter(
        &mut self,
        package: u16,
        kind: ItemKind,
        item: u16,
        name: &str,
        code: u16,
        ty: Option<ValueType>,
    ) {
        self.index = OnceLock::new();
        let p = self.package_mut(package);
        let idx = match p
            .items
            .iter()
            .position(|i| i.kind == kind && i.code == item)
        {
            Some(i) => i,
            None => {
                let mut n = String::new();
                push_hex16(&mut n, item);
                p.items.push(Item {
                    kind,
                    name: n,
                    code: item,
                    ty: None,
                    params: Vec::new(),
                });
                p.items.len() - 1
            }
        };
        let it = &mut p.items[idx];
        it.params.retain(|q| q.code != code);
        it.params.push(Parameter {
            name: name.to_string(),
            code,
            ty,
        });
    }

    /// Adds a digit map name with its code.
    pub fn add_digit_map(&mut self, name: &str, code: u16) {
        self.digit_maps.retain(|(_, c)| *c != code);
        self.digit_maps.push((name.to_string(), code));
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let mut idx = Index::default();
            for (pi, p) in self.packages.iter().enumerate() {
                for (ii, i) in p.items.iter().enumerate() {
                    let full: Box<str> = if p.name.is_empty() {
                        i.name.as_str().into()
                    } else {
                        format!("{}/{}", p.name, i.name).into()
                    };
                    let code = (u32::from(p.code) << 16) | u32::from(i.code);
                    let k = kind_index(i.kind);
                    let known = |name: &str, param| Known {
                        name: CompactString::from(name),
                        package: pi,
                        item: ii,
                        param,
                    };
                    idx.enc[k].insert(full.clone(), code.to_be_bytes());
                    idx.dec[k].insert(code, known(&full, 0));
                    for (qi, param) in i.params.iter().enumerate() {
                        let key = param_key(i.kind, code, param.code);
                        idx.params.insert(key, known(&param.name, qi));
                    }
                }
            }
            idx
        })
    }

    fn package_mut(&mut self, code: u16) -> &mut Package {
        let idx = match self.packages.iter().position(|p| p.code == code) {
            Some(i) => i,
            None => {
                let mut n = String::new();
                push_hex16(&mut n, code);
                self.packages.push(Package {
                    name: n,
                    code,
                    items: Vec::new(),
                });
                self.packages.len() - 1
            }
        };
        &mut self.packages[idx]
    }

    fn package_by_code(&self, code: u16) -> Option<&Package> {
        self.packages.iter().find(|p| p.code == code)
    }

    fn item_by_code(&self, kind: ItemKind, code: [u8; 4]) -> Option<&Item> {
        let k = self.known_item(kind, code)?;
        Some(&self.packages[k.package].items[k.item])
    }

    /// The code of a package name (`PackagesItem`, `IndAudPackagesDescriptor`).
    pub fn encode_package(&self, name: &str) -> Result<[u8; 2], NameError> {
        self.package_code(name)
            .map(u16::to_be_bytes)
            .ok_or_else(|| NameError::UnknownPackage(name.to_string()))
    }

    fn package_code(&self, name: &str) -> Option<u16> {
        if name == "*" {
            return Some(WILDCARD);
        }
        if let Some(c) = parse_hex16(name) {
            return Some(c);
        }
        self.packages
            .iter()
            .find(|p| !p.name.is_empty() && p.name.eq_ignore_ascii_case(name))
            .map(|p| p.code)
    }

    /// Appends the name of a package code.
    pub fn decode_package(&self, code: [u8; 2], out: &mut String) {
        let c = u16::from_be_bytes(code);
        if c == WILDCARD {
            out.push('*');
            return;
        }
        match self.package_by_code(c) {
            Some(p) if !p.name.is_empty() => out.push_str(&p.name),
            _ => push_hex16(out, c),
        }
    }

    /// The `PkgdName` code of `pkg/item` (or of a bare `item` of the
    /// `00 00` pseudo package).
    pub fn encode_pkgd_name(&self, kind: ItemKind, text: &str) -> Result<[u8; 4], NameError> {
        if let Some(c) = self.index().enc[kind_index(kind)].get(text) {
            return Ok(*c);
        }
        let (pkg, item) = match text.split_once('/') {
            Some((p, i)) => (Some(p), i),
            None => (None, text),
        };
        let pc = match pkg {
            None => 0,
            Some(p) => self
                .package_code(p)
                .ok_or_else(|| NameError::UnknownPackage(p.to_string()))?,
        };
        let ic = if item == "*" {
            // `00 00 FF FF` would name no item of any package; the text
            // grammar has no bare `*` either, and OTP's resolver reads it
            // as an unknown native item.
            if pkg.is_none() {
                return Err(NameError::BareWildcard(kind));
            }
            WILDCARD
        } else if let Some(c) = parse_hex16(item) {
            c
        } else {
            self.package_by_code(pc)
                .and_then(|p| {
                    p.items
                        .iter()
                        .find(|i| i.kind == kind && i.name.eq_ignore_ascii_case(item))
                })
                .map(|i| i.code)
                .ok_or_else(|| NameError::UnknownItem {
                    kind,
                    name: text.to_string(),
                })?
        };
        let [a, b] = pc.to_be_bytes();
        let [c, d] = ic.to_be_bytes();
        Ok([a, b, c, d])
    }

    /// The text name of a `PkgdName` code the registry knows, without
    /// building anything (`None`: use [`Self::decode_pkgd_name`]).
    pub(crate) fn known_pkgd_name(&self, kind: ItemKind, code: [u8; 4]) -> Option<&CompactString> {
        self.known_item(kind, code).map(|k| &k.name)
    }

    fn known_item(&self, kind: ItemKind, code: [u8; 4]) -> Option<&Known> {
        self.index().dec[kind_index(kind)].get(&u32::from_be_bytes(code))
    }

    fn known_param(&self, kind: ItemKind, item: [u8; 4], code: [u8; 2]) -> Option<&Known> {
        let key = param_key(kind, u32::from_be_bytes(item), u16::from_be_bytes(code));
        self.index().params.get(&key)
    }

    /// The name of parameter `code` of the event or signal `item`, when the
    /// registry knows it.
    pub(crate) fn known_parameter(
        &self,
        kind: ItemKind,
        item: [u8; 4],
        code: [u8; 2],
    ) -> Option<&CompactString> {
        self.known_param(kind, item, code).map(|k| &k.name)
    }

    /// Appends the text name of a `PkgdName` code.
    pub fn decode_pkgd_name(&self, kind: ItemKind, code: [u8; 4], out: &mut String) {
        if let Some(n) = self.known_pkgd_name(kind, code) {
            out.push_str(n);
            return;
        }
        let (pc, ic) = split(code);
        let pkg = self.package_by_code(pc);
        if pc == WILDCARD {
            out.push_str("*/");
        } else {
            match pkg {
                Some(p) if p.name.is_empty() => {}
                Some(p) => {
                    out.push_str(&p.name);
                    out.push('/');
                }
                None if pc == 0 => {}
                None => {
                    push_hex16(out, pc);
                    out.push('/');
                }
            }
        }
        if ic == WILDCARD {
            out.push('*');
            return;
        }
        match pkg.and_then(|p| p.items.iter().find(|i| i.kind == kind && i.code == ic)) {
            Some(i) => out.push_str(&i.name),
            None => push_hex16(out, ic),
        }
    }

    /// The code of parameter `name` of the event or signal `item`.
    pub fn encode_parameter(
        &self,
        kind: ItemKind,
        item: [u8; 4],
        name: &str,
    ) -> Result<[u8; 2], NameError> {
        if let Some(c) = parse_hex16(name) {
            return Ok(c.to_be_bytes());
        }
        self.item_by_code(kind, item)
            .and_then(|i| i.params.iter().find(|p| p.name.eq_ignore_ascii_case(name)))
            .map(|p| p.code.to_be_bytes())
            .ok_or_else(|| NameError::UnknownParameter {
                kind,
                item,
                name: name.to_string(),
            })
    }

    /// Appends the name of parameter `code` of the event or signal `item`.
    pub fn decode_parameter(&self, kind: ItemKind, item: [u8; 4], code: [u8; 2], out: &mut String) {
        let c = u16::from_be_bytes(code);
        match self
            .item_by_code(kind, item)
            .and_then(|i| i.params.iter().find(|p| p.code == c))
        {
            Some(p) => out.push_str(&p.name),
            None => push_hex16(out, c),
        }
    }

    /// The value type of a property or statistic.
    pub fn item_type(&self, kind: ItemKind, code: [u8; 4]) -> Option<&ValueType> {
        let k = self.known_item(kind, code)?;
        self.packages[k.package].items[k.item].ty.as_ref()
    }

    /// The value type of a parameter of an event or signal.
    pub fn parameter_type(
        &self,
        kind: ItemKind,
        item: [u8; 4],
        code: [u8; 2],
    ) -> Option<&ValueType> {
        let k = self.known_param(kind, item, code)?;
        self.packages[k.package].items[k.item].params[k.param]
            .ty
            .as_ref()
    }

    /// The code of a digit map name: `dialplanNN` (Erlang/OTP's
    /// convention, `dialplan00` is `00 00`, `dialplan1` is `00 01`), a name
    /// added with [`add_digit_map`](Self::add_digit_map), or `0xHHHH`.
    pub fn encode_digit_map(&self, name: &str) -> Result<[u8; 2], NameError> {
        if let Some((_, c)) = self
            .digit_maps
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            return Ok(c.to_be_bytes());
        }
        if let Some(c) = parse_hex16(name) {
            return Ok(c.to_be_bytes());
        }
        let nb = name.as_bytes();
        if nb.len() >= 8 && nb[..8].eq_ignore_ascii_case(b"dialplan") {
            let d = &nb[8..];
            let digit = |b: u8| {
                if b.is_ascii_digit() {
                    Some(b - b'0')
                } else {
                    None
                }
            };
            match d {
                [] => return Ok([0, 0]),
                [b] => {
                    if let Some(v) = digit(*b) {
                        return Ok([0, v]);
                    }
                }
                [a, b] => {
                    if let (Some(x), Some(y)) = (digit(*a), digit(*b)) {
                        return Ok([x, y]);
                    }
                }
                _ => {}
            }
        }
        Err(NameError::UnknownDigitMap(name.to_string()))
    }

    /// Appends the name of a digit map code.
    pub fn decode_digit_map(&self, code: [u8; 2], out: &mut String) {
        let c = u16::from_be_bytes(code);
        if let Some((n, _)) = self.digit_maps.iter().find(|(_, dc)| *dc == c) {
            out.push_str(n);
        } else if code[0] <= 9 && code[1] <= 9 {
            out.push_str("dialplan");
            out.push((b'0' + code[0]) as char);
            out.push((b'0' + code[1]) as char);
        } else {
            push_hex16(out, c);
        }
    }
}

fn split(code: [u8; 4]) -> (u16, u16) {
    (
        u16::from_be_bytes([code[0], code[1]]),
        u16::from_be_bytes([code[2], code[3]]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ItemKind::{Event as Ev, Property as Pr, Signal as Sg, Statistic as St};

    fn enc(kind: ItemKind, s: &str) -> [u8; 4] {
        NameRegistry::standard().encode_pkgd_name(kind, s).unwrap()
    }

    fn dec(kind: ItemKind, c: [u8; 4]) -> String {
        let mut s = String::new();
        NameRegistry::standard().decode_pkgd_name(kind, c, &mut s);
        s
    }

    #[test]
    fn standard_codes() {
        assert_eq!(enc(Sg, "al/ri"), [0, 9, 0, 2]);
        assert_eq!(enc(Pr, "nt/jit"), [0, 0x0b, 0, 7]);
        assert_eq!(enc(Pr, "v"), [0, 0, 0xb0, 0x01]);
        assert_eq!(enc(Pr, "m"), [0, 0, 0xb0, 0x0f]);
        assert_eq!(enc(Ev, "dd/ce"), [0, 6, 0, 4]);
        assert_eq!(enc(Sg, "dg/ds"), [0, 5, 0, 0x20]);
        assert_eq!(enc(Sg, "cg/rt"), [0, 7, 0, 0x31]);
        assert_eq!(enc(St, "swb/as"), [0xfe, 0xfe, 0, 1]);
        assert_eq!(enc(Ev, "al/*"), [0, 9, 0xff, 0xff]);
        assert_eq!(enc(Ev, "*/*"), [0xff; 4]);
        assert_eq!(enc(St, "rtp/jit"), [0, 0x0c, 0, 7]);
        assert_eq!(enc(Ev, "AL/of"), [0, 9, 0, 5]);
    }

    #[test]
    fn decode_and_hex_forms() {
        assert_eq!(dec(Ev, [0, 9, 0, 5]), "al/of");
        assert_eq!(dec(Pr, [0, 0, 0xb0, 0x08]), "c");
        assert_eq!(dec(Ev, [0xff; 4]), "*/*");
        assert_eq!(dec(Ev, [0, 9, 0, 0x99]), "al/0x0099");
        assert_eq!(dec(Ev, [0x12, 0x34, 0, 1]), "0x1234/0x0001");
        assert_eq!(dec(Pr, [0, 0, 0x77, 0x77]), "0x7777");
        for s in ["al/0x0099", "0x1234/0x0001", "0x7777"] {
            assert_eq!(dec(Ev, enc(Ev, s)), s);
        }
        // Kind matters: al/ri is a signal, not an event.
        assert!(NameRegistry::standard()
            .encode_pkgd_name(Ev, "al/ri")
            .is_err());
        assert!(matches!(
            NameRegistry::standard().encode_pkgd_name(Ev, "zz/ri"),
            Err(NameError::UnknownPackage(_))
        ));
    }

    #[test]
    fn a_wildcard_needs_a_package() {
        // `00 00 FF FF` reads back as `*` (the pseudo package prints no
        // name), but no bare `*` is written: the text grammar has none,
        // and OTP's resolver cannot read that code (it takes `FF FF FF
        // FF` and `pkg FF FF` only).
        for kind in [Pr, Ev, Sg, St] {
            assert_eq!(
                NameRegistry::standard().encode_pkgd_name(kind, "*"),
                Err(NameError::BareWildcard(kind))
            );
        }
        assert_eq!(dec(Pr, [0, 0, 0xff, 0xff]), "*");
        assert_eq!(enc(Sg, "cg/*"), [0, 7, 0xff, 0xff]);
    }

    #[test]
    fn parameters() {
        let r = NameRegistry::standard();
        let of = enc(Ev, "al/of");
        assert_eq!(r.encode_parameter(Ev, of, "strict").unwrap(), [0, 1]);
        assert_eq!(r.encode_parameter(Ev, of, "init").unwrap(), [0, 2]);
        let ce = enc(Ev, "dd/ce");
        assert_eq!(r.encode_parameter(Ev, ce, "ds").unwrap(), [0, 1]);
        assert_eq!(r.encode_parameter(Ev, ce, "Meth").unwrap(), [0, 3]);
        let mut s = String::new();
        r.decode_parameter(Ev, ce, [0, 3], &mut s);
        assert_eq!(s, "Meth");
        assert!(r.encode_parameter(Ev, ce, "nope").is_err());
        assert_eq!(r.parameter_type(Ev, of, [0, 2]), Some(&ValueType::Boolean));
        assert_eq!(r.item_type(St, enc(St, "nt/os")), Some(&ValueType::Double));
    }

    #[test]
    fn packages_and_digit_maps() {
        let r = NameRegistry::standard();
        assert_eq!(r.encode_package("nt").unwrap(), [0, 0x0b]);
        let mut s = String::new();
        r.decode_package([0xfe, 0xfe], &mut s);
        assert_eq!(s, "swb");
        assert_eq!(r.encode_digit_map("dialplan00").unwrap(), [0, 0]);
        assert_eq!(r.encode_digit_map("dialplan12").unwrap(), [1, 2]);
        assert_eq!(r.encode_digit_map("dialplan7").unwrap(), [0, 7]);
        assert!(r.encode_digit_map("mymap").is_err());
        let mut s = String::new();
        r.decode_digit_map([0, 0], &mut s);
        assert_eq!(s, "dialplan00");
        let mut s = String::new();
        r.decode_digit_map([0x10, 0], &mut s);
        assert_eq!(s, "0x1000");
    }
}
