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
    if word.is_empty() || word.len() > MAX_KW {
        return None;
    }
    let mut buf = [0u8; MAX_KW];
    for (d, s) in buf.iter_mut().zip(word) {
        *d = s.to_ascii_lowercase();
    }
    use Kw::*;
    Some(match &buf[..word.len()] {
        b"add" | b"a" => Add,
        b"andlgc" | b"anslgc" => AndLgc,
        b"audit" | b"at" => Audit,
        b"auditcapability" | b"ac" => AuditCap,
        b"auditvalue" | b"av" => AuditValue,
        b"authentication" | b"au" => Auth,
        b"both" | b"b" => Both,
        b"bothway" | b"bw" => Bothway,
        b"brief" | b"br" => Brief,
        b"buffer" | b"bf" => Buffer,
        b"context" | b"c" => Ctx,
        b"contextattr" | b"ct" => ContextAttr,
        b"contextlist" | b"clt" => ContextList,
        b"contextaudit" | b"ca" => ContextAudit,
        b"digitmap" | b"dm" => DigitMap,
        b"spadirection" | b"direction" | b"spadi" | b"di" => Direction,
        b"disconnected" | b"dc" => Disconnected,
        b"delay" | b"dl" => Delay,
        b"duration" | b"dr" => Duration,
        b"embed" | b"em" => Embed,
        b"emergency" | b"eg" => Emergency,
        b"emergencyoff" | b"emergencyofftoken" | b"ego" => EmergencyOff,
        b"emergencyvalue" | b"egv" => EmergencyValue,
        b"error" | b"er" => Error,
        b"eventbuffer" | b"eb" => EventBuffer,
        b"events" | b"e" => Events,
        b"external" | b"ex" => External,
        b"failover" | b"fl" => Failover,
        b"forced" | b"fo" => Forced,
        b"graceful" | b"gr" => Graceful,
        b"h221" => H221,
        b"h223" => H223,
        b"h226" => H226,
        b"handoff" | b"ho" => HandOff,
        b"iepscall" | b"ieps" => Ieps,
        b"inactive" | b"in" => Inactive,
        b"internal" | b"it" => Internal,
        b"immackrequired" | b"ia" => ImmAckRequired,
        b"inservice" | b"iv" => InSvc,
        b"intersignal" | b"spais" => IntsigDelay,
        b"intbyevent" | b"ibe" => IntByEvent,
        b"intbysigdescr" | b"ibs" => IntBySigDescr,
        b"isolate" | b"is" => Isolate,
        b"iteration" | b"iterationtoken" | b"ir" => Iteration,
        b"keepactive" | b"ka" => KeepActive,
        b"local" | b"l" => Local,
        b"localcontrol" | b"o" => LocalControl,
        b"lockstep" | b"sp" => LockStep,
        b"loopback" | b"lb" => Loopback,
        b"media" | b"m" => Media,
        b"segment" | b"sm" => Segment,
        b"method" | b"mt" => Method,
        b"mtp" => Mtp,
        b"mgcidtotry" | b"mg" => MgcId,
        b"mode" | b"mo" => Mode,
        b"modify" | b"mf" => Modify,
        b"modem" | b"md" => Modem,
        b"move" | b"mv" => Move,
        b"mux" | b"mx" => Mux,
        b"nevernotify" | b"nbnn" => NeverNotify,
        b"notify" | b"n" => Notify,
        b"notifycompletion" | b"nc" => NotifyCompletion,
        b"immediatenotify" | b"nbin" => ImmediateNotify,
        b"regulatednotify" | b"nbrn" => RegulatedNotify,
        b"nx64kservice" | b"n64" => Nx64k,
        b"observedevents" | b"oe" => ObservedEvents,
        b"oneway" | b"ow" => Oneway,
        b"onewayboth" | b"owb" => OnewayBoth,
        b"onewayexternal" | b"owe" => OnewayExternal,
        b"off" => Off,
        b"on" => On,
        b"onoff" | b"oo" => OnOff,
        b"orlgc" => OrLgc,
        b"otherreason" | b"or" => OtherReason,
        b"outofservice" | b"os" => OutOfSvc,
        b"packages" | b"pg" => Packages,
        b"pending" | b"pn" => Pending,
        b"priority" | b"pr" => Priority,
        b"profile" | b"pf" => Profile,
        b"reason" | b"re" => Reason,
        b"receiveonly" | b"rc" => Recvonly,
        b"sparequestid" | b"requestid" | b"sparq" | b"rq" => RequestId,
        b"reply" | b"p" => Reply,
        b"reseteventsdescriptor" | b"rse" => ResetEventsDescriptor,
        b"transactionresponseack" | b"k" => ResponseAck,
        b"restart" | b"rs" => Restart,
        b"remote" | b"r" => Remote,
        b"reservedgroup" | b"rg" => ReservedGroup,
        b"reservedvalue" | b"rv" => ReservedValue,
        b"sendonly" | b"so" => Sendonly,
        b"sendreceive" | b"sr" => Sendrecv,
        b"services" | b"sv" => Services,
        b"servicestates" | b"si" => ServiceStates,
        b"servicechange" | b"sc" => ServiceChange,
        b"servicechangeaddress" | b"ad" => ServiceChangeAddress,
        b"servicechangeinc" | b"sic" => ServiceChangeInc,
        b"signallist" | b"sl" => SignalList,
        b"signals" | b"sg" => Signals,
        b"signaltype" | b"sy" => SignalType,
        b"statistics" | b"sa" => Stats,
        b"stream" | b"st" => Stream,
        b"subtract" | b"s" => Subtract,
        b"synchisdn" | b"sn" => SynchIsdn,
        b"terminationstate" | b"ts" => TerminationState,
        b"test" | b"te" => Test,
        b"timeout" | b"to" => TimeOut,
        b"topology" | b"tp" => Topology,
        b"transaction" | b"t" => Trans,
        b"v18" => V18,
        b"v22" => V22,
        b"v22b" => V22bis,
        b"v32" => V32,
        b"v32b" => V32bis,
        b"v34" => V34,
        b"v76" => V76,
        b"v90" => V90,
        b"v91" => V91,
        b"version" | b"v" => Version,
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
