//! Byte-level building blocks of the text decoder: character classes,
//! the keyword table (long and short forms) and address parsing.
//!
//! Nothing here allocates; the parser turns slices into model strings.

/// `SafeChar` of RFC 3525 Annex B: letters, digits and
/// `+ - & ! _ / ' ? @ ^ \` ~ * $ \ ( ) % | .`.
#[inline]
pub(crate) fn is_safe(b: u8) -> bool {
    SAFE[b as usize]
}

const SAFE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'+' | b'-'
                    | b'&'
                    | b'!'
                    | b'_'
                    | b'/'
                    | b'\''
                    | b'?'
                    | b'@'
                    | b'^'
                    | b'`'
                    | b'~'
                    | b'*'
                    | b'$'
                    | b'\\'
                    | b'('
                    | b')'
                    | b'%'
                    | b'|'
                    | b'.'
            );
        i += 1;
    }
    t
};

/// Space, tab, CR or LF.
#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// The keywords of the text encoding (long and short forms map to one).
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

/// Longest keyword (`TransactionResponseAck`).
const MAX_KW: usize = 24;

/// The keyword spelled by `word` (any case, long or short form).
pub(crate) fn keyword(word: &[u8]) -> Option<Kw> {
    // Numbers, package names (`al/of`) and termination ids are the most
    // common words; none is a keyword.
    if word.is_empty()
        || word.len() > MAX_KW
        || !(word[0].is_ascii_alphabetic() || word[0] == b'!')
        || word.contains(&b'/')
    {
        return None;
    }
    let mut buf = [0u8; MAX_KW];
    for (d, s) in buf.iter_mut().zip(word) {
        *d = s.to_ascii_lowercase();
    }
    use Kw::*;
    let w = &buf[..word.len()];
    // One fixed-size match per length: the compiler turns each into a
    // decision tree over the bytes.
    Some(match w.len() {
        1 => match <&[u8; 1]>::try_from(w).ok()? {
            b"a" => Add,
            b"b" => Both,
            b"c" => Ctx,
            b"e" => Events,
            b"l" => Local,
            b"o" => LocalControl,
            b"m" => Media,
            b"n" => Notify,
            b"p" => Reply,
            b"k" => ResponseAck,
            b"r" => Remote,
            b"s" => Subtract,
            b"t" => Trans,
            b"v" => Version,
            _ => return None,
        },
        2 => match <&[u8; 2]>::try_from(w).ok()? {
            b"at" => Audit,
            b"ac" => AuditCap,
            b"av" => AuditValue,
            b"au" => Auth,
            b"bw" => Bothway,
            b"br" => Brief,
            b"bf" => Buffer,
            b"ct" => ContextAttr,
            b"ca" => ContextAudit,
            b"dm" => DigitMap,
            b"di" => Direction,
            b"dc" => Disconnected,
            b"dl" => Delay,
            b"dr" => Duration,
            b"em" => Embed,
            b"eg" => Emergency,
            b"er" => Error,
            b"eb" => EventBuffer,
            b"ex" => External,
            b"fl" => Failover,
            b"fo" => Forced,
            b"gr" => Graceful,
            b"ho" => HandOff,
            b"in" => Inactive,
            b"it" => Internal,
            b"ia" => ImmAckRequired,
            b"iv" => InSvc,
            b"is" => Isolate,
            b"ir" => Iteration,
            b"ka" => KeepActive,
            b"sp" => LockStep,
            b"lb" => Loopback,
            b"sm" => Segment,
            b"mt" => Method,
            b"mg" => MgcId,
            b"mo" => Mode,
            b"mf" => Modify,
            b"md" => Modem,
            b"mv" => Move,
            b"mx" => Mux,
            b"nc" => NotifyCompletion,
            b"oe" => ObservedEvents,
            b"ow" => Oneway,
            b"on" => On,
            b"oo" => OnOff,
            b"or" => OtherReason,
            b"os" => OutOfSvc,
            b"pg" => Packages,
            b"pn" => Pending,
            b"pr" => Priority,
            b"pf" => Profile,
            b"re" => Reason,
            b"rc" => Recvonly,
            b"rq" => RequestId,
            b"rs" => Restart,
            b"rg" => ReservedGroup,
            b"rv" => ReservedValue,
            b"so" => Sendonly,
            b"sr" => Sendrecv,
            b"sv" => Services,
            b"si" => ServiceStates,
            b"sc" => ServiceChange,
            b"ad" => ServiceChangeAddress,
            b"sl" => SignalList,
            b"sg" => Signals,
            b"sy" => SignalType,
            b"sa" => Stats,
            b"st" => Stream,
            b"sn" => SynchIsdn,
            b"ts" => TerminationState,
            b"te" => Test,
            b"to" => TimeOut,
            b"tp" => Topology,
            _ => return None,
        },
        3 => match <&[u8; 3]>::try_from(w).ok()? {
            b"add" => Add,
            b"clt" => ContextList,
            b"ego" => EmergencyOff,
            b"egv" => EmergencyValue,
            b"ibe" => IntByEvent,
            b"ibs" => IntBySigDescr,
            b"mtp" => Mtp,
            b"mux" => Mux,
            b"n64" => Nx64k,
            b"owb" => OnewayBoth,
            b"owe" => OnewayExternal,
            b"off" => Off,
            b"rse" => ResetEventsDescriptor,
            b"sic" => ServiceChangeInc,
            b"v18" => V18,
            b"v22" => V22,
            b"v32" => V32,
            b"v34" => V34,
            b"v76" => V76,
            b"v90" => V90,
            b"v91" => V91,
            _ => return None,
        },
        4 => match <&[u8; 4]>::try_from(w).ok()? {
            b"both" => Both,
            b"h221" => H221,
            b"h223" => H223,
            b"h226" => H226,
            b"ieps" => Ieps,
            b"mode" => Mode,
            b"move" => Move,
            b"nbnn" => NeverNotify,
            b"nbin" => ImmediateNotify,
            b"nbrn" => RegulatedNotify,
            b"test" => Test,
            b"v22b" => V22bis,
            b"v32b" => V32bis,
            _ => return None,
        },
        5 => match <&[u8; 5]>::try_from(w).ok()? {
            b"audit" => Audit,
            b"brief" => Brief,
            b"spadi" => Direction,
            b"delay" => Delay,
            b"embed" => Embed,
            b"error" => Error,
            b"spais" => IntsigDelay,
            b"local" => Local,
            b"media" => Media,
            b"modem" => Modem,
            b"onoff" => OnOff,
            b"orlgc" => OrLgc,
            b"sparq" => RequestId,
            b"reply" => Reply,
            _ => return None,
        },
        6 => match <&[u8; 6]>::try_from(w).ok()? {
            b"andlgc" | b"anslgc" => AndLgc,
            b"buffer" => Buffer,
            b"events" => Events,
            b"forced" => Forced,
            b"method" => Method,
            b"modify" => Modify,
            b"notify" => Notify,
            b"oneway" => Oneway,
            b"reason" => Reason,
            b"remote" => Remote,
            b"stream" => Stream,
            _ => return None,
        },
        7 => match <&[u8; 7]>::try_from(w).ok()? {
            b"bothway" => Bothway,
            b"context" => Ctx,
            b"handoff" => HandOff,
            b"isolate" => Isolate,
            b"segment" => Segment,
            b"pending" => Pending,
            b"profile" => Profile,
            b"restart" => Restart,
            b"signals" => Signals,
            b"timeout" => TimeOut,
            b"version" => Version,
            _ => return None,
        },
        8 => match <&[u8; 8]>::try_from(w).ok()? {
            b"digitmap" => DigitMap,
            b"duration" => Duration,
            b"external" => External,
            b"failover" => Failover,
            b"graceful" => Graceful,
            b"iepscall" => Ieps,
            b"inactive" => Inactive,
            b"internal" => Internal,
            b"lockstep" => LockStep,
            b"loopback" => Loopback,
            b"packages" => Packages,
            b"priority" => Priority,
            b"sendonly" => Sendonly,
            b"services" => Services,
            b"subtract" => Subtract,
            b"topology" => Topology,
            _ => return None,
        },
        9 => match <&[u8; 9]>::try_from(w).ok()? {
            b"direction" => Direction,
            b"emergency" => Emergency,
            b"inservice" => InSvc,
            b"iteration" => Iteration,
            b"requestid" => RequestId,
            b"synchisdn" => SynchIsdn,
            _ => return None,
        },
        10 => match <&[u8; 10]>::try_from(w).ok()? {
            b"auditvalue" => AuditValue,
            b"intbyevent" => IntByEvent,
            b"keepactive" => KeepActive,
            b"mgcidtotry" => MgcId,
            b"onewayboth" => OnewayBoth,
            b"signallist" => SignalList,
            b"signaltype" => SignalType,
            b"statistics" => Stats,
            _ => return None,
        },
        11 => match <&[u8; 11]>::try_from(w).ok()? {
            b"contextattr" => ContextAttr,
            b"contextlist" => ContextList,
            b"eventbuffer" => EventBuffer,
            b"intersignal" => IntsigDelay,
            b"nevernotify" => NeverNotify,
            b"otherreason" => OtherReason,
            b"receiveonly" => Recvonly,
            b"sendreceive" => Sendrecv,
            b"transaction" => Trans,
            _ => return None,
        },
        12 => match <&[u8; 12]>::try_from(w).ok()? {
            b"contextaudit" => ContextAudit,
            b"spadirection" => Direction,
            b"disconnected" => Disconnected,
            b"emergencyoff" => EmergencyOff,
            b"localcontrol" => LocalControl,
            b"nx64kservice" => Nx64k,
            b"outofservice" => OutOfSvc,
            b"sparequestid" => RequestId,
            _ => return None,
        },
        13 => match <&[u8; 13]>::try_from(w).ok()? {
            b"intbysigdescr" => IntBySigDescr,
            b"reservedgroup" => ReservedGroup,
            b"reservedvalue" => ReservedValue,
            b"servicestates" => ServiceStates,
            b"servicechange" => ServiceChange,
            _ => return None,
        },
        14 => match <&[u8; 14]>::try_from(w).ok()? {
            b"authentication" => Auth,
            b"emergencyvalue" => EmergencyValue,
            b"immackrequired" => ImmAckRequired,
            b"iterationtoken" => Iteration,
            b"observedevents" => ObservedEvents,
            b"onewayexternal" => OnewayExternal,
            _ => return None,
        },
        15 => match <&[u8; 15]>::try_from(w).ok()? {
            b"auditcapability" => AuditCap,
            b"immediatenotify" => ImmediateNotify,
            b"regulatednotify" => RegulatedNotify,
            _ => return None,
        },
        16 => match <&[u8; 16]>::try_from(w).ok()? {
            b"notifycompletion" => NotifyCompletion,
            b"servicechangeinc" => ServiceChangeInc,
            b"terminationstate" => TerminationState,
            _ => return None,
        },
        17 => match <&[u8; 17]>::try_from(w).ok()? {
            b"emergencyofftoken" => EmergencyOff,
            _ => return None,
        },
        20 => match <&[u8; 20]>::try_from(w).ok()? {
            b"servicechangeaddress" => ServiceChangeAddress,
            _ => return None,
        },
        21 => match <&[u8; 21]>::try_from(w).ok()? {
            b"reseteventsdescriptor" => ResetEventsDescriptor,
            _ => return None,
        },
        22 => match <&[u8; 22]>::try_from(w).ok()? {
            b"transactionresponseack" => ResponseAck,
            _ => return None,
        },
        _ => return None,
    })
}

/// Parses up to 19 decimal digits into a `u64`; `None` for an empty
/// string, a non-digit or an overflow.
pub(crate) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(b - b'0');
    }
    Some(v)
}

/// Whether every byte is a decimal digit (and there is at least one).
pub(crate) fn all_digits(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(u8::is_ascii_digit)
}

/// A dotted-quad IPv4 address.
pub(crate) fn parse_ip4(s: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut parts = s.split(|&b| b == b'.');
    for o in out.iter_mut() {
        let p = parts.next()?;
        if p.len() > 3 {
            return None;
        }
        let v = parse_u64(p)?;
        *o = u8::try_from(v).ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some(out)
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// One to four hex digits.
fn parse_hex4(s: &[u8]) -> Option<u16> {
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    let mut v: u16 = 0;
    for &b in s {
        v = (v << 4) | u16::from(hex_val(b)?);
    }
    Some(v)
}

/// An IPv6 address in any RFC 4291 text form: full, with one `::`, and
/// with a trailing dotted-quad IPv4 part.
pub(crate) fn parse_ip6(s: &[u8]) -> Option<[u8; 16]> {
    // Split at the (single) "::" if there is one.
    let dbl = s.windows(2).position(|w| w == b"::");
    let (head, tail) = match dbl {
        Some(i) => {
            let rest = &s[i + 2..];
            if rest.windows(2).any(|w| w == b"::") {
                return None;
            }
            (&s[..i], Some(rest))
        }
        None => (s, None),
    };
    let mut words_head = [0u16; 8];
    let mut nh = 0usize;
    let mut words_tail = [0u16; 8];
    let mut nt = 0usize;
    // Parses a ':'-separated group list; the last group may be IPv4.
    fn groups(part: &[u8], out: &mut [u16; 8], n: &mut usize, allow_v4: bool) -> Option<()> {
        if part.is_empty() {
            return Some(());
        }
        let mut it = part.split(|&b| b == b':').peekable();
        while let Some(g) = it.next() {
            let last = it.peek().is_none();
            if last && allow_v4 && g.contains(&b'.') {
                let v4 = parse_ip4(g)?;
                if *n + 2 > 8 {
                    return None;
                }
                out[*n] = u16::from_be_bytes([v4[0], v4[1]]);
                out[*n + 1] = u16::from_be_bytes([v4[2], v4[3]]);
                *n += 2;
            } else {
                if *n >= 8 {
                    return None;
                }
                out[*n] = parse_hex4(g)?;
                *n += 1;
            }
        }
        Some(())
    }
    match tail {
        Some(t) => {
            groups(head, &mut words_head, &mut nh, false)?;
            groups(t, &mut words_tail, &mut nt, true)?;
            if nh + nt > 7 {
                return None;
            }
        }
        None => {
            groups(head, &mut words_head, &mut nh, true)?;
            if nh != 8 {
                return None;
            }
        }
    }
    let mut words = [0u16; 8];
    words[..nh].copy_from_slice(&words_head[..nh]);
    words[8 - nt..].copy_from_slice(&words_tail[..nt]);
    let mut out = [0u8; 16];
    for (i, w) in words.iter().enumerate() {
        out[2 * i..2 * i + 2].copy_from_slice(&w.to_be_bytes());
    }
    Some(out)
}

/// `0x` followed by hex digits (an even number of them), as bytes.
pub(crate) fn parse_hex_bytes(s: &[u8]) -> Option<Vec<u8>> {
    let digits = s.strip_prefix(b"0x").or_else(|| s.strip_prefix(b"0X"))?;
    if digits.is_empty() || digits.len() % 2 != 0 {
        return None;
    }
    digits
        .chunks(2)
        .map(|c| Some((hex_val(c[0])? << 4) | hex_val(c[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip6_forms() {
        let mut lo = [0u8; 16];
        lo[15] = 1;
        assert_eq!(parse_ip6(b"::1"), Some(lo));
        assert_eq!(parse_ip6(b"::"), Some([0; 16]));
        let a = parse_ip6(b"2001:db8::10.0.0.1").unwrap();
        assert_eq!(&a[..4], &[0x20, 0x01, 0x0d, 0xb8]);
        assert_eq!(&a[12..], &[10, 0, 0, 1]);
        assert_eq!(parse_ip6(b"1:2:3:4:5:6:7:8").unwrap()[14..], [0, 8]);
        assert!(parse_ip6(b"1:2:3:4:5:6:7").is_none());
        assert!(parse_ip6(b"1::2::3").is_none());
        assert!(parse_ip6(b"1:2:3:4:5:6:7:8:9").is_none());
        assert!(parse_ip6(b"fe80::1:2:3:4:5:6:7").is_none());
        assert_eq!(parse_ip6(b"fe80::").unwrap()[..2], [0xfe, 0x80]);
    }

    #[test]
    fn ip4_and_numbers() {
        assert_eq!(parse_ip4(b"124.124.124.222"), Some([124, 124, 124, 222]));
        assert!(parse_ip4(b"1.2.3.256").is_none());
        assert!(parse_ip4(b"1.2.3").is_none());
        assert_eq!(parse_u64(b"4294967295"), Some(4_294_967_295));
        assert!(parse_u64(b"99999999999999999999").is_none());
        assert_eq!(keyword(b"TransactionResponseAck"), Some(Kw::ResponseAck));
        assert_eq!(keyword(b"mF"), Some(Kw::Modify));
        assert_eq!(keyword(b"nosuch"), None);
    }
}
