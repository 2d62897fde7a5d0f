//! The standard packages of [`NameRegistry::standard`]: codes as in
//! H.248.1 Annex E / RFC 3525 and as Erlang/OTP's
//! `megaco_binary_name_resolver_v3` uses them, with each item's and
//! parameter's value type.

use super::{ItemKind, NameRegistry};
use crate::asn1::values::ValueType;

#[derive(Clone, Copy)]
enum T {
    S,
    I,
    U,
    D,
    B,
    O,
    E(&'static [(&'static str, u32)]),
    None,
}

impl T {
    fn ty(self) -> Option<ValueType> {
        Some(match self {
            T::S => ValueType::String,
            T::I => ValueType::Integer,
            T::U => ValueType::Unsigned,
            T::D => ValueType::Double,
            T::B => ValueType::Boolean,
            T::O => ValueType::OctetString,
            T::E(items) => ValueType::enumeration(items),
            T::None => return None,
        })
    }
}

use ItemKind::{Event as Ev, Property as Pr, Signal as Sg, Statistic as St};

type ItemRow = (
    ItemKind,
    &'static str,
    u16,
    T,
    &'static [(&'static str, u16, T)],
);

const GENERAL_CAUSE: &[(&str, u32)] = &[
    ("NR", 1),
    ("UR", 2),
    ("FT", 3),
    ("FP", 4),
    ("IW", 5),
    ("UN", 6),
];
const SC_METH: &[(&str, u32)] = &[("TO", 1), ("EV", 2), ("SD", 3), ("NC", 4), ("PI", 5)];
const CE_METH: &[(&str, u32)] = &[("UM", 1), ("PM", 2), ("FM", 3)];
const STRICT: &[(&str, u32)] = &[("exact", 0), ("state", 1), ("failWrong", 2)];
const CT_RES: &[(&str, u32)] = &[("success", 1), ("failure", 2)];
const PORTTYPE: &[(&str, u32)] = &[("TCP", 0), ("UDP", 1), ("SCTP", 2)];

const BTD: &[(&str, u16, T)] = &[("btd", 1, T::I)];
const DTMF: &[(&str, u16)] = &[
    ("d0", 0x10),
    ("d1", 0x11),
    ("d2", 0x12),
    ("d3", 0x13),
    ("d4", 0x14),
    ("d5", 0x15),
    ("d6", 0x16),
    ("d7", 0x17),
    ("d8", 0x18),
    ("d9", 0x19),
    ("ds", 0x20),
    ("do", 0x21),
    ("da", 0x1a),
    ("db", 0x1b),
    ("dc", 0x1c),
    ("dd", 0x1d),
];
const CALL_PROGRESS: &[(&str, u16)] = &[
    ("dt", 0x30),
    ("rt", 0x31),
    ("bt", 0x32),
    ("ct", 0x33),
    ("sit", 0x34),
    ("wt", 0x35),
    ("prt", 0x36),
    ("cw", 0x37),
    ("cr", 0x38),
];

const G: &[ItemRow] = &[
    (
        Ev,
        "cause",
        1,
        T::None,
        &[
            ("Generalcause", 1, T::E(GENERAL_CAUSE)),
            ("Failurecause", 2, T::S),
        ],
    ),
    (
        Ev,
        "sc",
        2,
        T::None,
        &[
            ("SigID", 1, T::S),
            ("Meth", 2, T::E(SC_METH)),
            ("SLID", 3, T::I),
            ("RID", 4, T::I),
        ],
    ),
];
const ROOT: &[ItemRow] = &[
    (Pr, "maxNumberOfContexts", 1, T::D, &[]),
    (Pr, "maxTerminationsPerContext", 2, T::I, &[]),
    (Pr, "normalMGExecutionTime", 3, T::I, &[]),
    (Pr, "normalMGCExecutionTime", 4, T::I, &[]),
    (Pr, "MGProvisionalResponseTimerValue", 5, T::I, &[]),
    (Pr, "MGCProvisionalResponseTimerValue", 6, T::I, &[]),
    (Pr, "MGCOriginatedPendingLimit", 7, T::I, &[]),
    (Pr, "MGOriginatedPendingLimit", 8, T::I, &[]),
    (Pr, "MGSegmentationTimerValue", 9, T::I, &[]),
    (Pr, "MGCSegmentationTimerValue", 10, T::I, &[]),
    (Pr, "MGMaxPDUSize", 11, T::I, &[]),
    (Pr, "MGCMaxPDUSize", 12, T::I, &[]),
];
const TONEGEN: &[ItemRow] = &[(
    Sg,
    "pt",
    1,
    T::None,
    &[("tl", 1, T::S), ("ind", 2, T::I), ("btd", 3, T::I)],
)];
const TONEDET: &[ItemRow] = &[
    (Ev, "std", 1, T::None, &[("tl", 1, T::S), ("tid", 3, T::S)]),
    (
        Ev,
        "etd",
        2,
        T::None,
        &[("tl", 1, T::S), ("tid", 3, T::S), ("dur", 2, T::I)],
    ),
    (
        Ev,
        "ltd",
        3,
        T::None,
        &[("tl", 1, T::S), ("dur", 2, T::I), ("tid", 3, T::S)],
    ),
];
const AL: &[ItemRow] = &[
    (
        Ev,
        "on",
        4,
        T::None,
        &[("strict", 1, T::E(STRICT)), ("init", 2, T::B)],
    ),
    (
        Ev,
        "of",
        5,
        T::None,
        &[("strict", 1, T::E(STRICT)), ("init", 2, T::B)],
    ),
    (
        Ev,
        "fl",
        6,
        T::None,
        &[("mindur", 4, T::I), ("maxdur", 5, T::I)],
    ),
    (Sg, "ri", 2, T::None, &[("cad", 6, T::S), ("freq", 7, T::I)]),
];
const CT: &[ItemRow] = &[
    (Ev, "cmp", 5, T::None, &[("res", 8, T::E(CT_RES))]),
    (Sg, "ct", 3, T::None, &[]),
    (Sg, "rsp", 4, T::None, &[]),
];
const NT: &[ItemRow] = &[
    (Pr, "jit", 7, T::I, &[]),
    (Ev, "netfail", 5, T::None, &[("cs", 1, T::S)]),
    (Ev, "qualert", 6, T::None, &[("th", 1, T::I)]),
    (St, "dur", 1, T::D, &[]),
    (St, "os", 2, T::D, &[]),
    (St, "or", 3, T::D, &[]),
];
const RTP: &[ItemRow] = &[
    (Ev, "pltrans", 1, T::None, &[("rtppltype", 1, T::S)]),
    (St, "ps", 4, T::D, &[]),
    (St, "pr", 5, T::D, &[]),
    (St, "pl", 6, T::D, &[]),
    (St, "jit", 7, T::D, &[]),
    (St, "delay", 8, T::D, &[]),
];
const TDMC: &[ItemRow] = &[(Pr, "ec", 8, T::B, &[]), (Pr, "gain", 10, T::I, &[])];
const SWB: &[ItemRow] = &[(St, "fs", 0, T::I, &[]), (St, "as", 1, T::I, &[])];
const NATIVE: &[ItemRow] = &[
    (Pr, "IPv4", 0x6001, T::O, &[]),
    (Pr, "IPv6", 0x6002, T::O, &[]),
    (Pr, "Port", 0x6003, T::U, &[]),
    (Pr, "Porttype", 0x6004, T::E(PORTTYPE), &[]),
    (Pr, "v", 0xb001, T::S, &[]),
    (Pr, "o", 0xb002, T::S, &[]),
    (Pr, "s", 0xb003, T::S, &[]),
    (Pr, "i", 0xb004, T::S, &[]),
    (Pr, "u", 0xb005, T::S, &[]),
    (Pr, "e", 0xb006, T::S, &[]),
    (Pr, "p", 0xb007, T::S, &[]),
    (Pr, "c", 0xb008, T::S, &[]),
    (Pr, "b", 0xb009, T::S, &[]),
    (Pr, "z", 0xb00a, T::S, &[]),
    (Pr, "k", 0xb00b, T::S, &[]),
    (Pr, "a", 0xb00c, T::S, &[]),
    (Pr, "t", 0xb00d, T::S, &[]),
    (Pr, "r", 0xb00e, T::S, &[]),
    (Pr, "m", 0xb00f, T::S, &[]),
];

pub(super) fn build_standard() -> NameRegistry {
    let mut reg = NameRegistry::empty();
    let tables: &[(&str, u16, &[ItemRow])] = &[
        ("", 0x0000, NATIVE),
        ("g", 0x0001, G),
        ("root", 0x0002, ROOT),
        ("tonegen", 0x0003, TONEGEN),
        ("tonedet", 0x0004, TONEDET),
        ("dg", 0x0005, &[]),
        ("dd", 0x0006, &[]),
        ("cg", 0x0007, &[]),
        ("cd", 0x0008, &[]),
        ("al", 0x0009, AL),
        ("ct", 0x000a, CT),
        ("nt", 0x000b, NT),
        ("rtp", 0x000c, RTP),
        ("tdmc", 0x000d, TDMC),
        ("swb", 0xfefe, SWB),
    ];
    for &(pname, pcode, rows) in tables {
        reg.add_package(pname, pcode);
        for &(kind, name, code, ty, params) in rows {
            reg.add_item(pcode, kind, name, code, ty.ty());
            for &(qn, qc, qt) in params {
                reg.add_parameter(pcode, kind, code, qn, qc, qt.ty());
            }
        }
    }
    // dg: DTMF signals; dd: the ce event and DTMF events; all with btd.
    for &(name, code) in DTMF {
        for (pcode, kind) in [(0x0005, Sg), (0x0006, Ev)] {
            reg.add_item(pcode, kind, name, code, None);
            for &(qn, qc, qt) in BTD {
                reg.add_parameter(pcode, kind, code, qn, qc, qt.ty());
            }
        }
    }
    reg.add_item(0x0006, Ev, "ce", 4, None);
    reg.add_parameter(0x0006, Ev, 4, "ds", 1, Some(ValueType::String));
    reg.add_parameter(0x0006, Ev, 4, "Meth", 3, T::E(CE_METH).ty());
    // cg signals, cd events
    for &(name, code) in CALL_PROGRESS {
        reg.add_item(0x0007, Sg, name, code, None);
        reg.add_item(0x0008, Ev, name, code, None);
    }
    reg
}
