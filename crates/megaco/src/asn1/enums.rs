//! The ENUMERATED types and named BIT STRINGs of H.248.1 Annex A, declared
//! once, in the manner of rustls's `enum_builder!`: each table pairs a
//! model variant with its ASN.1 number and identifier, and the macros
//! generate both directions from it (variant → number for the encoders,
//! number → variant for the decoders) with exhaustive `match`es, so a
//! model variant without a number does not compile and the order of the
//! model's variants never decides a byte on the wire.
//!
//! The BER codec writes and reads the numbers ([`Enumerated::number`],
//! [`Enumerated::from_number`]); the PER codec the index of a value in
//! its root or among its extension additions ([`Enumerated::per_index`],
//! [`Enumerated::from_per_index`]), which differs from the number when the
//! numbers have gaps (`SignalDirection`: `both(3)` is root index 2).
//! Named bits are [`NamedBits::bit`] / [`NamedBits::from_bit`] in both.
//!
//! A test parses every ENUMERATED and named BIT STRING of
//! `spec/asn1/*.asn` (v1, v2, v3 and RFC 3525) and compares them with
//! these tables: identifiers, numbers, order, the extension marker and
//! the version each value appeared in.

use crate::model::{
    AuditToken, EventBufferControl, ModemType, MuxType, NotifyCompletion, Relation,
    ServiceChangeMethod, ServiceState, SignalDirection, SignalType, StreamMode, TopologyDirection,
    TopologyDirectionExtension,
};

/// One value of an ENUMERATED, or one named bit of a BIT STRING.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Named<T: 'static> {
    /// The model's value.
    pub value: T,
    /// The ASN.1 number (ENUMERATED) or bit position (BIT STRING).
    pub number: u32,
    /// The ASN.1 identifier, as the module spells it.
    pub name: &'static str,
    /// The first protocol version whose module has it.
    pub since: u8,
}

/// A model enum that is an ASN.1 ENUMERATED.
pub trait Enumerated: Copy + Eq + std::fmt::Debug + 'static {
    /// The ASN.1 type (or, for an inline type, the component) name.
    const ASN1_NAME: &'static str;
    /// Whether the type has an extension marker (`...`).
    const EXTENSIBLE: bool;
    /// The root values, in the module's order (ascending numbers).
    const ROOT: &'static [Named<Self>];
    /// The extension additions, in the module's order.
    const ADDITIONS: &'static [Named<Self>];

    /// The ASN.1 number of a value (what BER writes).
    fn number(self) -> u32;

    /// The value of an ASN.1 number, if the type has one.
    fn from_number(n: u64) -> Option<Self>;

    /// Where PER puts a value: `(false, i)` for the `i`-th root value,
    /// `(true, i)` for the `i`-th extension addition.
    #[inline]
    fn per_index(self) -> (bool, u32) {
        if let Some(i) = Self::ROOT.iter().position(|n| n.value == self) {
            return (false, i as u32);
        }
        let i = Self::ADDITIONS.iter().position(|n| n.value == self);
        // Every variant is in one of the two lists (the tables' test).
        (true, i.unwrap_or(0) as u32)
    }

    /// The first protocol version whose module has this value.
    #[inline]
    fn since(self) -> u8 {
        let mut all = Self::ROOT.iter().chain(Self::ADDITIONS);
        all.find(|n| n.value == self).map_or(1, |n| n.since)
    }

    /// The value PER puts at `index` of the root (`addition == false`)
    /// or of the extension additions.
    #[inline]
    fn from_per_index(addition: bool, index: u64) -> Option<Self> {
        let list = if addition {
            Self::ADDITIONS
        } else {
            Self::ROOT
        };
        usize::try_from(index)
            .ok()
            .and_then(|i| list.get(i))
            .map(|n| n.value)
    }
}

/// A model enum whose values are the named bits of an ASN.1 BIT STRING.
pub trait NamedBits: Copy + Eq + std::fmt::Debug + 'static {
    /// The ASN.1 type (or component) name.
    const ASN1_NAME: &'static str;
    /// The named bits, in the module's order.
    const BITS: &'static [Named<Self>];

    /// The bit position of a value.
    fn bit(self) -> u32;

    /// The value at a bit position, if it is named.
    fn from_bit(bit: u32) -> Option<Self>;

    /// The first protocol version whose module names this bit.
    #[inline]
    fn since(self) -> u8 {
        Self::BITS
            .iter()
            .find(|n| n.value == self)
            .map_or(1, |n| n.since)
    }
}

/// `since` of a value: 1 unless given.
macro_rules! since {
    () => {
        1
    };
    ($v:literal) => {
        $v
    };
}

/// Declares the ASN.1 numbers of a model enum that is an ENUMERATED:
///
/// ```text
/// enumerated! {
///     MuxType = "MuxType", extensible {
///         H221 = 0 => "h221",
///         ...
///     } additions {
///         Nx64k = 4 => "nx64k" since 2,
///     }
/// }
/// ```
macro_rules! enumerated {
    (
        $ty:ident = $asn:literal, $ext:ident {
            $($var:ident = $num:literal => $name:literal $(since $v:literal)?),+ $(,)?
        } $(additions {
            $($avar:ident = $anum:literal => $aname:literal $(since $av:literal)?),+ $(,)?
        })?
    ) => {
        impl Enumerated for $ty {
            const ASN1_NAME: &'static str = $asn;
            const EXTENSIBLE: bool = enumerated!(@ext $ext);
            const ROOT: &'static [Named<Self>] = &[$(Named {
                value: $ty::$var,
                number: $num,
                name: $name,
                since: since!($($v)?),
            }),+];
            const ADDITIONS: &'static [Named<Self>] = &[$($(Named {
                value: $ty::$avar,
                number: $anum,
                name: $aname,
                since: since!($($av)?),
            }),+)?];

            #[inline]
            fn number(self) -> u32 {
                match self {
                    $($ty::$var => $num,)+
                    $($($ty::$avar => $anum,)+)?
                }
            }

            #[inline]
            fn from_number(n: u64) -> Option<Self> {
                match n {
                    $($num => Some($ty::$var),)+
                    $($($anum => Some($ty::$avar),)+)?
                    _ => None,
                }
            }
        }
    };
    (@ext extensible) => { true };
    (@ext closed) => { false };
}

/// Declares the bit positions of a model enum that names the bits of a
/// BIT STRING.
macro_rules! named_bits {
    (
        $ty:ident = $asn:literal {
            $($var:ident = $num:literal => $name:literal $(since $v:literal)?),+ $(,)?
        }
    ) => {
        impl NamedBits for $ty {
            const ASN1_NAME: &'static str = $asn;
            const BITS: &'static [Named<Self>] = &[$(Named {
                value: $ty::$var,
                number: $num,
                name: $name,
                since: since!($($v)?),
            }),+];

            #[inline]
            fn bit(self) -> u32 {
                match self {
                    $($ty::$var => $num,)+
                }
            }

            #[inline]
            fn from_bit(bit: u32) -> Option<Self> {
                match bit {
                    $($num => Some($ty::$var),)+
                    _ => None,
                }
            }
        }
    };
}

enumerated! {
    StreamMode = "StreamMode", extensible {
        SendOnly = 0 => "sendOnly",
        RecvOnly = 1 => "recvOnly",
        SendRecv = 2 => "sendRecv",
        Inactive = 3 => "inactive",
        LoopBack = 4 => "loopBack",
    }
}

enumerated! {
    Relation = "Relation", extensible {
        GreaterThan = 0 => "greaterThan",
        SmallerThan = 1 => "smallerThan",
        UnequalTo = 2 => "unequalTo",
    }
}

enumerated! {
    EventBufferControl = "EventBufferControl", extensible {
        Off = 0 => "off",
        LockStep = 1 => "lockStep",
    }
}

enumerated! {
    ServiceState = "ServiceState", extensible {
        Test = 0 => "test",
        OutOfSvc = 1 => "outOfSvc",
        InSvc = 2 => "inSvc",
    }
}

enumerated! {
    MuxType = "MuxType", extensible {
        H221 = 0 => "h221",
        H223 = 1 => "h223",
        H226 = 2 => "h226",
        V76 = 3 => "v76",
    } additions {
        Nx64k = 4 => "nx64k" since 2,
    }
}

enumerated! {
    SignalType = "SignalType", extensible {
        Brief = 0 => "brief",
        OnOff = 1 => "onOff",
        TimeOut = 2 => "timeOut",
    }
}

enumerated! {
    SignalDirection = "SignalDirection", extensible {
        Internal = 0 => "internal" since 3,
        External = 1 => "external" since 3,
        Both = 3 => "both" since 3,
    }
}

enumerated! {
    ModemType = "ModemType", extensible {
        V18 = 0 => "v18",
        V22 = 1 => "v22",
        V22bis = 2 => "v22bis",
        V32 = 3 => "v32",
        V32bis = 4 => "v32bis",
        V34 = 5 => "v34",
        V90 = 6 => "v90",
        V91 = 7 => "v91",
        SynchIsdn = 8 => "synchISDN",
    }
}

enumerated! {
    ServiceChangeMethod = "ServiceChangeMethod", extensible {
        Failover = 0 => "failover",
        Forced = 1 => "forced",
        Graceful = 2 => "graceful",
        Restart = 3 => "restart",
        Disconnected = 4 => "disconnected",
        HandOff = 5 => "handOff",
    }
}

enumerated! {
    TopologyDirection = "topologyDirection", closed {
        Bothway = 0 => "bothway",
        Isolate = 1 => "isolate",
        Oneway = 2 => "oneway",
    }
}

enumerated! {
    TopologyDirectionExtension = "topologyDirectionExtension", extensible {
        OnewayExternal = 0 => "onewayexternal" since 3,
        OnewayBoth = 1 => "onewayboth" since 3,
    }
}

named_bits! {
    AuditToken = "auditToken" {
        Mux = 0 => "muxToken",
        Modem = 1 => "modemToken",
        Media = 2 => "mediaToken",
        Events = 3 => "eventsToken",
        Signals = 4 => "signalsToken",
        DigitMap = 5 => "digitMapToken",
        Stats = 6 => "statsToken",
        ObservedEvents = 7 => "observedEventsToken",
        Packages = 8 => "packagesToken",
        EventBuffer = 9 => "eventBufferToken",
    }
}

named_bits! {
    NotifyCompletion = "NotifyCompletion" {
        OnTimeOut = 0 => "onTimeOut",
        OnInterruptByEvent = 1 => "onInterruptByEvent",
        OnInterruptByNewSignalDescr = 2 => "onInterruptByNewSignalDescr",
        OtherReason = 3 => "otherReason",
        OnIteration = 4 => "onIteration" since 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::Path;

    /// One ENUMERATED or BIT STRING as a module or a table has it.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Def {
        bits: bool,
        extensible: bool,
        root: Vec<(String, u32)>,
        additions: Vec<(String, u32)>,
    }

    /// Every `Name ::= ENUMERATED {...}`, `Name ::= BIT STRING {...}` and
    /// inline `component ENUMERATED {...}` / `component BIT STRING {...}`
    /// of an ASN.1 module, by name.
    fn parse_module(text: &str) -> BTreeMap<String, Def> {
        // Comments run from `--` to the end of the line.
        let text: String = text
            .lines()
            .map(|l| l.split("--").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .collect();
        let mut defs = BTreeMap::new();
        let mut i = 0;
        while i < words.len() {
            let (bits, skip) = match (words[i], words.get(i + 1)) {
                ("ENUMERATED", _) => (false, 1),
                ("BIT", Some(&"STRING")) => (true, 2),
                _ => {
                    i += 1;
                    continue;
                }
            };
            if words.get(i + skip).map(|w| w.starts_with('{')) != Some(true) {
                i += 1;
                continue;
            }
            // The name: before `::=` for a type, the word before for a
            // component.
            let name = if i >= 2 && words[i - 1] == "::=" {
                words[i - 2]
            } else {
                words[i - 1]
            };
            let mut def = Def {
                bits,
                extensible: false,
                root: Vec::new(),
                additions: Vec::new(),
            };
            let mut j = i + skip;
            let mut body = String::new();
            loop {
                body.push_str(words[j]);
                body.push(' ');
                if words[j].contains('}') {
                    break;
                }
                j += 1;
            }
            let body = body.trim().trim_start_matches('{');
            let body = &body[..body.find('}').unwrap()];
            for item in body.split_whitespace() {
                if item == "..." {
                    def.extensible = true;
                    continue;
                }
                let (id, num) = item.trim_end_matches(')').split_once('(').unwrap();
                let entry = (id.to_string(), num.parse().unwrap());
                if def.extensible {
                    def.additions.push(entry);
                } else {
                    def.root.push(entry);
                }
            }
            defs.insert(name.to_string(), def);
            i = j + 1;
        }
        defs
    }

    /// What a table says the module of `version` holds.
    fn enumerated_def<T: Enumerated>(version: u8) -> Def {
        let pick = |list: &[Named<T>]| {
            list.iter()
                .filter(|n| n.since <= version)
                .map(|n| (n.name.to_string(), n.number))
                .collect()
        };
        Def {
            bits: false,
            extensible: T::EXTENSIBLE,
            root: pick(T::ROOT),
            additions: pick(T::ADDITIONS),
        }
    }

    fn bits_def<T: NamedBits>(version: u8) -> Def {
        Def {
            bits: true,
            extensible: false,
            root: T::BITS
                .iter()
                .filter(|n| n.since <= version)
                .map(|n| (n.name.to_string(), n.number))
                .collect(),
            additions: Vec::new(),
        }
    }

    /// Every table: its name, its definition in a version's module (None
    /// before the version that introduced it), and its consistency
    /// checks.
    type Table = (&'static str, Box<dyn Fn(u8) -> Option<Def>>, fn());

    fn enumerated<T: Enumerated>() -> Table {
        let first = T::ROOT.iter().map(|n| n.since).min().unwrap();
        (
            T::ASN1_NAME,
            Box::new(move |v| (v >= first).then(|| enumerated_def::<T>(v))),
            check_enumerated::<T>,
        )
    }

    fn bits<T: NamedBits>() -> Table {
        (
            T::ASN1_NAME,
            Box::new(|v| Some(bits_def::<T>(v))),
            check_bits::<T>,
        )
    }

    fn tables() -> Vec<Table> {
        vec![
            enumerated::<StreamMode>(),
            enumerated::<Relation>(),
            enumerated::<EventBufferControl>(),
            enumerated::<ServiceState>(),
            enumerated::<MuxType>(),
            enumerated::<SignalType>(),
            enumerated::<SignalDirection>(),
            enumerated::<ModemType>(),
            enumerated::<ServiceChangeMethod>(),
            enumerated::<TopologyDirection>(),
            enumerated::<TopologyDirectionExtension>(),
            bits::<AuditToken>(),
            bits::<NotifyCompletion>(),
        ]
    }

    /// The model's variant is the one the identifier names (`SendOnly`
    /// for `sendOnly`, `Mux` for `muxToken`), so that a line of a table
    /// cannot pair a variant with another value's number.
    fn names_agree<T: std::fmt::Debug>(n: &Named<T>) {
        let variant = format!("{:?}", n.value).to_ascii_lowercase();
        assert!(
            n.name.to_ascii_lowercase().starts_with(&variant),
            "{:?} paired with {}",
            n.value,
            n.name
        );
    }

    fn check_enumerated<T: Enumerated>() {
        let all: Vec<&Named<T>> = T::ROOT.iter().chain(T::ADDITIONS).collect();
        for n in &all {
            names_agree(n);
            assert_eq!(n.value.number(), n.number, "{:?}", n.value);
            assert_eq!(T::from_number(u64::from(n.number)), Some(n.value));
            let (addition, i) = n.value.per_index();
            assert_eq!(T::from_per_index(addition, u64::from(i)), Some(n.value));
        }
        for w in T::ROOT.windows(2) {
            assert!(w[0].number < w[1].number, "{}: root order", T::ASN1_NAME);
        }
        assert!(T::from_number(99).is_none());
        assert!(T::from_per_index(false, T::ROOT.len() as u64).is_none());
        assert!(T::from_per_index(true, T::ADDITIONS.len() as u64).is_none());
    }

    fn check_bits<T: NamedBits>() {
        for n in T::BITS {
            names_agree(n);
            assert_eq!(n.value.bit(), n.number);
            assert_eq!(T::from_bit(n.number), Some(n.value));
        }
        assert!(T::from_bit(99).is_none());
    }

    /// Every table agrees with every module, and every ENUMERATED and
    /// named BIT STRING of the v3 module has a table.
    #[test]
    fn tables_match_the_asn1_modules() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec/asn1");
        let tables = tables();
        for (file, version) in [
            ("MEDIA-GATEWAY-CONTROL-v1.asn", 1),
            ("MEDIA-GATEWAY-CONTROL-rfc3525.asn", 1),
            ("MEDIA-GATEWAY-CONTROL-v2.asn", 2),
            ("MEDIA-GATEWAY-CONTROL-v3.asn", 3),
        ] {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            let module = parse_module(&text);
            assert!(module.len() >= 10, "{file}: {module:?}");
            for (name, def) in &module {
                let table = tables.iter().find(|t| t.0 == name);
                let table = table.unwrap_or_else(|| panic!("{file}: no table for {name}"));
                assert_eq!(table.1(version).as_ref(), Some(def), "{file}: {name}");
            }
            for (name, def, _) in &tables {
                if def(version).is_some() {
                    assert!(module.contains_key(*name), "{file} has no {name}");
                }
            }
        }
        for (_, _, check) in &tables {
            check();
        }
    }

    #[test]
    fn the_parser_reads_what_it_should() {
        let m = parse_module(
            "A ::= ENUMERATED { a(0), -- x(9)\n b(2), ..., c(3) }\n\
             S ::= SEQUENCE { f BIT STRING { p(0), q(1) } OPTIONAL }",
        );
        assert_eq!(
            m["A"],
            Def {
                bits: false,
                extensible: true,
                root: vec![("a".into(), 0), ("b".into(), 2)],
                additions: vec![("c".into(), 3)],
            }
        );
        assert_eq!(m["f"].root, vec![("p".into(), 0), ("q".into(), 1)]);
        assert!(m["f"].bits);
    }

    #[test]
    fn per_indices_follow_the_root_not_the_numbers() {
        assert_eq!(SignalDirection::Both.number(), 3);
        assert_eq!(SignalDirection::Both.per_index(), (false, 2));
        assert_eq!(MuxType::Nx64k.per_index(), (true, 0));
        assert_eq!(MuxType::from_per_index(true, 0), Some(MuxType::Nx64k));
        assert_eq!(SignalDirection::from_number(2), None);
    }
}
