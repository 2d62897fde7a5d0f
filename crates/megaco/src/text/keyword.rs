//! The keywords of the text encoding and their lookup.
//!
//! Every keyword has a long and a short form (`Transaction`/`T`) and is
//! case-insensitive; some exist only from a later protocol version on
//! (`ContextAttr` in v3), and in an earlier version the same spelling is an
//! ordinary name, as in Erlang/OTP's scanner. The lookup hashes a word's
//! length and three of its bytes (case folded) into an open-addressed table
//! built at compile time and compares the one or two candidates it finds
//! byte by byte, folding case on the fly: no copy, no lower-case buffer.

/// A keyword (the long and short forms map to one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kw {
    Add,
    AndLgc,
    Audit,
    AuditCap,
    AuditValue,
    Auth,
    Both,
    Bothway,
    Brief,
    Buffer,
    Ctx,
    ContextAttr,
    ContextList,
    ContextAudit,
    DigitMap,
    Direction,
    Delay,
    Duration,
    Embed,
    Emergency,
    EmergencyOff,
    EmergencyValue,
    Error,
    EventBuffer,
    Events,
    External,
    Failover,
    Forced,
    Graceful,
    H221,
    H223,
    H226,
    HandOff,
    Ieps,
    Inactive,
    Internal,
    ImmAckRequired,
    InSvc,
    IntsigDelay,
    IntByEvent,
    IntBySigDescr,
    Isolate,
    Iteration,
    KeepActive,
    Local,
    LocalControl,
    LockStep,
    Loopback,
    Media,
    Segment,
    Method,
    Mtp,
    MgcId,
    Mode,
    Modify,
    Modem,
    Move,
    Mux,
    NeverNotify,
    Notify,
    NotifyCompletion,
    ImmediateNotify,
    RegulatedNotify,
    Nx64k,
    ObservedEvents,
    Oneway,
    OnewayBoth,
    OnewayExternal,
    Off,
    On,
    OnOff,
    OrLgc,
    OtherReason,
    OutOfSvc,
    Packages,
    Pending,
    Priority,
    Profile,
    Reason,
    Recvonly,
    RequestId,
    Reply,
    ResetEventsDescriptor,
    ResponseAck,
    Restart,
    Remote,
    ReservedGroup,
    ReservedValue,
    Sendonly,
    Sendrecv,
    Services,
    ServiceStates,
    ServiceChange,
    ServiceChangeAddress,
    ServiceChangeInc,
    SignalList,
    Signals,
    SignalType,
    Stats,
    Stream,
    Subtract,
    SynchIsdn,
    TerminationState,
    Test,
    TimeOut,
    Topology,
    Trans,
    V18,
    V22,
    V22bis,
    V32,
    V32bis,
    V34,
    V76,
    V90,
    V91,
    Version,
    Disconnected,
}

use Kw::*;

/// Every spelling (lower case), its keyword and the first protocol
/// version in which it is one (RFC 3525 for v1; H.248.1 Annex B and
/// Erlang/OTP's scanner for what v2 and v3 added).
const SPELLINGS: &[(&str, Kw, u8)] = &[
    ("add", Add, 1),
    ("a", Add, 1),
    ("andlgc", AndLgc, 3),
    ("audit", Audit, 1),
    ("at", Audit, 1),
    ("auditcapability", AuditCap, 1),
    ("ac", AuditCap, 1),
    ("auditvalue", AuditValue, 1),
    ("av", AuditValue, 1),
    ("authentication", Auth, 1),
    ("au", Auth, 1),
    ("both", Both, 3),
    ("b", Both, 3),
    ("bothway", Bothway, 1),
    ("bw", Bothway, 1),
    ("brief", Brief, 1),
    ("br", Brief, 1),
    ("buffer", Buffer, 1),
    ("bf", Buffer, 1),
    ("context", Ctx, 1),
    ("c", Ctx, 1),
    ("contextattr", ContextAttr, 3),
    ("ct", ContextAttr, 3),
    ("contextlist", ContextList, 3),
    ("clt", ContextList, 3),
    ("contextaudit", ContextAudit, 1),
    ("ca", ContextAudit, 1),
    ("digitmap", DigitMap, 1),
    ("dm", DigitMap, 1),
    ("spadirection", Direction, 3),
    ("direction", Direction, 3),
    ("spadi", Direction, 3),
    ("di", Direction, 3),
    ("disconnected", Disconnected, 1),
    ("dc", Disconnected, 1),
    ("delay", Delay, 1),
    ("dl", Delay, 1),
    ("duration", Duration, 1),
    ("dr", Duration, 1),
    ("embed", Embed, 1),
    ("em", Embed, 1),
    ("emergency", Emergency, 1),
    ("eg", Emergency, 1),
    ("emergencyofftoken", EmergencyOff, 2),
    ("emergencyoff", EmergencyOff, 3),
    ("ego", EmergencyOff, 2),
    ("emergencyvalue", EmergencyValue, 3),
    ("egv", EmergencyValue, 3),
    ("error", Error, 1),
    ("er", Error, 1),
    ("eventbuffer", EventBuffer, 1),
    ("eb", EventBuffer, 1),
    ("events", Events, 1),
    ("e", Events, 1),
    ("external", External, 3),
    ("ex", External, 3),
    ("failover", Failover, 1),
    ("fl", Failover, 1),
    ("forced", Forced, 1),
    ("fo", Forced, 1),
    ("graceful", Graceful, 1),
    ("gr", Graceful, 1),
    ("h221", H221, 1),
    ("h223", H223, 1),
    ("h226", H226, 1),
    ("handoff", HandOff, 1),
    ("ho", HandOff, 1),
    ("iepscall", Ieps, 3),
    ("ieps", Ieps, 3),
    ("inactive", Inactive, 1),
    ("in", Inactive, 1),
    ("internal", Internal, 3),
    ("it", Internal, 3),
    ("immackrequired", ImmAckRequired, 1),
    ("ia", ImmAckRequired, 1),
    ("inservice", InSvc, 1),
    ("iv", InSvc, 1),
    ("intersignal", IntsigDelay, 3),
    ("spais", IntsigDelay, 3),
    ("intbyevent", IntByEvent, 1),
    ("ibe", IntByEvent, 1),
    ("intbysigdescr", IntBySigDescr, 1),
    ("ibs", IntBySigDescr, 1),
    ("isolate", Isolate, 1),
    ("is", Isolate, 1),
    ("iteration", Iteration, 3),
    ("iterationtoken", Iteration, 3),
    ("ir", Iteration, 3),
    ("keepactive", KeepActive, 1),
    ("ka", KeepActive, 1),
    ("local", Local, 1),
    ("l", Local, 1),
    ("localcontrol", LocalControl, 1),
    ("o", LocalControl, 1),
    ("lockstep", LockStep, 1),
    ("sp", LockStep, 1),
    ("loopback", Loopback, 1),
    ("lb", Loopback, 1),
    ("media", Media, 1),
    ("m", Media, 1),
    ("segment", Segment, 3),
    ("sm", Segment, 3),
    ("method", Method, 1),
    ("mt", Method, 1),
    ("mtp", Mtp, 1),
    ("mgcidtotry", MgcId, 1),
    ("mg", MgcId, 1),
    ("mode", Mode, 1),
    ("mo", Mode, 1),
    ("modify", Modify, 1),
    ("mf", Modify, 1),
    ("modem", Modem, 1),
    ("md", Modem, 1),
    ("move", Move, 1),
    ("mv", Move, 1),
    ("mux", Mux, 1),
    ("mx", Mux, 1),
    ("nevernotify", NeverNotify, 3),
    ("nbnn", NeverNotify, 3),
    ("notify", Notify, 1),
    ("n", Notify, 1),
    ("notifycompletion", NotifyCompletion, 1),
    ("nc", NotifyCompletion, 1),
    ("immediatenotify", ImmediateNotify, 3),
    ("nbin", ImmediateNotify, 3),
    ("regulatednotify", RegulatedNotify, 3),
    ("nbrn", RegulatedNotify, 3),
    ("nx64kservice", Nx64k, 2),
    ("n64", Nx64k, 2),
    ("observedevents", ObservedEvents, 1),
    ("oe", ObservedEvents, 1),
    ("oneway", Oneway, 1),
    ("ow", Oneway, 1),
    ("onewayboth", OnewayBoth, 3),
    ("owb", OnewayBoth, 3),
    ("onewayexternal", OnewayExternal, 3),
    ("owe", OnewayExternal, 3),
    ("off", Off, 1),
    ("on", On, 1),
    ("onoff", OnOff, 1),
    ("oo", OnOff, 1),
    ("orlgc", OrLgc, 3),
    ("otherreason", OtherReason, 1),
    ("or", OtherReason, 1),
    ("outofservice", OutOfSvc, 1),
    ("os", OutOfSvc, 1),
    ("packages", Packages, 1),
    ("pg", Packages, 1),
    ("pending", Pending, 1),
    ("pn", Pending, 1),
    ("priority", Priority, 1),
    ("pr", Priority, 1),
    ("profile", Profile, 1),
    ("pf", Profile, 1),
    ("reason", Reason, 1),
    ("re", Reason, 1),
    ("receiveonly", Recvonly, 1),
    ("rc", Recvonly, 1),
    ("requestid", RequestId, 3),
    ("rq", RequestId, 3),
    ("sparequestid", RequestId, 3),
    ("sparq", RequestId, 3),
    ("reply", Reply, 1),
    ("p", Reply, 1),
    ("reseteventsdescriptor", ResetEventsDescriptor, 3),
    ("rse", ResetEventsDescriptor, 3),
    ("transactionresponseack", ResponseAck, 1),
    ("k", ResponseAck, 1),
    ("restart", Restart, 1),
    ("rs", Restart, 1),
    ("remote", Remote, 1),
    ("r", Remote, 1),
    ("reservedgroup", ReservedGroup, 1),
    ("rg", ReservedGroup, 1),
    ("reservedvalue", ReservedValue, 1),
    ("rv", ReservedValue, 1),
    ("sendonly", Sendonly, 1),
    ("so", Sendonly, 1),
    ("sendreceive", Sendrecv, 1),
    ("sr", Sendrecv, 1),
    ("services", Services, 1),
    ("sv", Services, 1),
    ("servicestates", ServiceStates, 1),
    ("si", ServiceStates, 1),
    ("servicechange", ServiceChange, 1),
    ("sc", ServiceChange, 1),
    ("servicechangeaddress", ServiceChangeAddress, 1),
    ("ad", ServiceChangeAddress, 1),
    ("servicechangeinc", ServiceChangeInc, 3),
    ("sic", ServiceChangeInc, 3),
    ("signallist", SignalList, 1),
    ("sl", SignalList, 1),
    ("signals", Signals, 1),
    ("sg", Signals, 1),
    ("signaltype", SignalType, 1),
    ("sy", SignalType, 1),
    ("statistics", Stats, 1),
    ("sa", Stats, 1),
    ("stream", Stream, 1),
    ("st", Stream, 1),
    ("subtract", Subtract, 1),
    ("s", Subtract, 1),
    ("synchisdn", SynchIsdn, 1),
    ("sn", SynchIsdn, 1),
    ("terminationstate", TerminationState, 1),
    ("ts", TerminationState, 1),
    ("test", Test, 1),
    ("te", Test, 1),
    ("timeout", TimeOut, 1),
    ("to", TimeOut, 1),
    ("topology", Topology, 1),
    ("tp", Topology, 1),
    ("transaction", Trans, 1),
    ("t", Trans, 1),
    ("v18", V18, 1),
    ("v22", V22, 1),
    ("v22b", V22bis, 1),
    ("v32", V32, 1),
    ("v32b", V32bis, 1),
    ("v34", V34, 1),
    ("v76", V76, 1),
    ("v90", V90, 1),
    ("v91", V91, 1),
    ("version", Version, 1),
    ("v", Version, 1),
];

/// Longest spelling (`transactionresponseack`).
const MAX_LEN: usize = 22;
const SLOTS: usize = 1024;
const MASK: usize = SLOTS - 1;

/// The hash of a spelling: its length, first, second and last bytes. The
/// bytes are folded with `| 0x20`, which maps `A-Z` to `a-z` and leaves
/// digits alone; keywords hold nothing else, and no other byte folds onto
/// a letter or digit, so a folded match is a case-insensitive match.
#[inline]
const fn hash(len: usize, first: u8, second: u8, last: u8) -> usize {
    let x = (len as u64) << 24 | (first as u64) << 16 | (second as u64) << 8 | last as u64;
    // A multiplier picked so that no spelling needs more than 3 probes.
    (x.wrapping_mul(9_094_476_386_454_449_459) >> 54) as usize & MASK
}

#[inline]
const fn hash_of(w: &[u8]) -> usize {
    let n = w.len();
    let second = if n > 1 { w[1] } else { 0 };
    hash(n, w[0] | 0x20, second | 0x20, w[n - 1] | 0x20)
}

/// Slot -> 1 + index into [`SPELLINGS`] (0: empty), linear probing.
static TABLE: [u16; SLOTS] = {
    let mut t = [0u16; SLOTS];
    let mut i = 0;
    while i < SPELLINGS.len() {
        let w = SPELLINGS[i].0.as_bytes();
        assert!(!w.is_empty() && w.len() <= MAX_LEN);
        let mut h = hash_of(w);
        while t[h] != 0 {
            h = (h + 1) & MASK;
        }
        t[h] = (i + 1) as u16;
        i += 1;
    }
    t
};

/// The keyword spelled by `word` (any case, long or short form) in
/// protocol version `version`; `None` for anything else.
#[inline]
pub(crate) fn keyword(word: &[u8], version: u8) -> Option<Kw> {
    let n = word.len();
    // Numbers, termination ids and package names (`al/of`) are the most
    // common words; every keyword starts with a letter.
    if n == 0 || n > MAX_LEN || !word[0].is_ascii_alphabetic() {
        return None;
    }
    let mut h = hash_of(word);
    loop {
        let e = TABLE[h] as usize;
        if e == 0 {
            return None;
        }
        let (spelling, kw, since) = SPELLINGS[e - 1];
        let s = spelling.as_bytes();
        if s.len() == n && folded_eq(s, word) {
            return (version >= since).then_some(kw);
        }
        h = (h + 1) & MASK;
    }
}

/// Whether `word` folded with `| 0x20` is `spelling`, both of the same
/// length: eight or four bytes at a time (the last chunk overlapping the
/// one before), the way a word is compared against a keyword on every
/// token.
#[inline]
fn folded_eq(spelling: &[u8], word: &[u8]) -> bool {
    let n = word.len();
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if !eq8(spelling, word, i) {
                return false;
            }
            i += 8;
        }
        eq8(spelling, word, n - 8)
    } else if n >= 4 {
        eq4(spelling, word, 0) && eq4(spelling, word, n - 4)
    } else {
        spelling.iter().zip(word).all(|(&a, &b)| a == b | 0x20)
    }
}

#[inline]
fn eq8(spelling: &[u8], word: &[u8], at: usize) -> bool {
    let chunk = |b: &[u8]| {
        b.get(at..at + 8)
            .and_then(|c| c.try_into().ok())
            .map(u64::from_le_bytes)
    };
    match (chunk(spelling), chunk(word)) {
        (Some(s), Some(w)) => s == w | 0x2020_2020_2020_2020,
        _ => false,
    }
}

#[inline]
fn eq4(spelling: &[u8], word: &[u8], at: usize) -> bool {
    let chunk = |b: &[u8]| {
        b.get(at..at + 4)
            .and_then(|c| c.try_into().ok())
            .map(u32::from_le_bytes)
    };
    match (chunk(spelling), chunk(word)) {
        (Some(s), Some(w)) => s == w | 0x2020_2020,
        _ => false,
    }
}

/// A few keywords a caller cares about, with a test that rules most
/// other words out before any lookup: whether some spelling of one of
/// them has the word's length and first letter.
pub(crate) struct KwSet {
    /// Per length, a bit per first letter (`a` is bit 0).
    shapes: [u32; MAX_LEN + 1],
}

impl KwSet {
    pub(crate) const fn new(kws: &[Kw]) -> KwSet {
        let mut shapes = [0u32; MAX_LEN + 1];
        let mut i = 0;
        while i < SPELLINGS.len() {
            let (spelling, kw, _) = SPELLINGS[i];
            let mut j = 0;
            while j < kws.len() {
                if kws[j] as u8 == kw as u8 {
                    let w = spelling.as_bytes();
                    shapes[w.len()] |= 1 << (w[0] - b'a');
                }
                j += 1;
            }
            i += 1;
        }
        KwSet { shapes }
    }

    /// [`keyword`] for a word that may spell one of the set: `None` when
    /// no spelling of theirs has its length and first letter, the word's
    /// keyword otherwise (which may be outside the set).
    #[inline]
    pub(crate) fn keyword(&self, word: &[u8], version: u8) -> Option<Kw> {
        let letter = (*word.first()? | 0x20).wrapping_sub(b'a');
        let shape = *self.shapes.get(word.len())?;
        if letter >= 26 || shape & (1 << letter) == 0 {
            return None;
        }
        keyword(word, version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_finds_its_keywords_and_only_rules_out_others() {
        let wanted = [Local, Remote, DigitMap, Events, RegulatedNotify];
        let set = KwSet::new(&wanted);
        let mut found = 0;
        for &(spelling, _, _) in SPELLINGS {
            for version in 1..=3 {
                for w in [spelling.to_string(), spelling.to_ascii_uppercase()] {
                    let full = keyword(w.as_bytes(), version);
                    let fast = set.keyword(w.as_bytes(), version);
                    if full.is_some_and(|k| wanted.contains(&k)) {
                        assert_eq!(fast, full, "{w} in v{version}");
                        found += 1;
                    } else {
                        assert!(fast.is_none() || fast == full, "{w} in v{version}");
                    }
                }
            }
        }
        // local, l, remote, r, digitmap, dm, events, e: both cases, three
        // versions; regulatednotify and nbrn: both cases, v3.
        assert_eq!(found, 8 * 2 * 3 + 2 * 2, "{found}");
        for w in ["m", "st", "ts", "mf", "@l", "", "ll", "digitmaps"] {
            assert_eq!(set.keyword(w.as_bytes(), 3), None, "{w}");
        }
    }

    #[test]
    fn every_spelling_in_any_case() {
        for &(s, kw, since) in SPELLINGS {
            assert_eq!(keyword(s.as_bytes(), 3), Some(kw), "{s}");
            assert_eq!(keyword(s.to_ascii_uppercase().as_bytes(), 3), Some(kw));
            assert_eq!(keyword(s.as_bytes(), since), Some(kw), "{s}");
            if since > 1 {
                assert_eq!(keyword(s.as_bytes(), since - 1), None, "{s}");
            }
        }
    }

    #[test]
    fn near_misses_are_not_keywords() {
        for w in [
            "",
            "ad_",
            "adds",
            "transactionresponseacks",
            "11111111",
            "al/of",
            "Add@",
            "a-",
            "A^",
            "modem2",
            "@dd",
            "`dd",
            "mEdIa2",
            "x-foo",
        ] {
            assert_eq!(keyword(w.as_bytes(), 3), None, "{w:?}");
        }
        // Bytes that fold onto nothing in a keyword: `@` | 0x20 is `` ` ``.
        assert_eq!(keyword(b"@", 3), None);
        assert_eq!(keyword(b"TransactionResponseAck", 1), Some(ResponseAck));
        assert_eq!(keyword(b"mF", 1), Some(Modify));
        assert_eq!(keyword(b"CT", 2), None);
        assert_eq!(keyword(b"CT", 3), Some(ContextAttr));
    }

    #[test]
    fn a_wrong_byte_anywhere_is_no_keyword() {
        // Every position of every length, whichever chunk of the
        // comparison it falls in (first, middle, overlapping last).
        for &(s, _, _) in SPELLINGS {
            for i in 1..s.len() {
                let mut w = s.as_bytes().to_vec();
                w[i] = b'#';
                assert_eq!(keyword(&w, 3), None, "{s} at {i}");
            }
        }
    }

    #[test]
    fn probes_stay_short() {
        let mut worst = 0;
        for &(s, _, _) in SPELLINGS {
            let mut h = hash_of(s.as_bytes());
            let mut probes = 1;
            while SPELLINGS[TABLE[h] as usize - 1].0 != s {
                h = (h + 1) & MASK;
                probes += 1;
            }
            worst = worst.max(probes);
        }
        assert!(worst <= 3, "{worst} probes");
    }
}
