//! The capture reader: frames in, H.248 messages and problems out, in
//! capture order.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, Read};
use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use megaco::ber::BerConfig;
use megaco::codec::{sniff, Encoding, Kind};
use megaco::per::PerConfig;

use crate::defrag::{Defrag, Outcome};
use crate::event::{Event, Problem, ProblemKind, Record, Transport};
use crate::link::{ip_packet, IpPacket, LinkError};
use crate::sctp::{self, Chunk, PPID_H248};
use crate::source::{FileError, Frame, Source, Step, Timestamp};
use crate::tcp::{self, HalfStream, Out, Segment, StreamProblem};

/// The ports H.248 is registered on: 2944 for text, 2945 for binary.
pub const H248_PORTS: [u16; 2] = [2944, 2945];

/// How much state reading a capture may hold, whatever the capture holds.
#[derive(Debug, Clone)]
pub struct Limits {
    /// TCP connections and SCTP associations followed at once; past this
    /// the least recently active one is dropped (and reported).
    pub max_flows: usize,
    /// Bytes of early (out-of-order) TCP segments held per direction
    /// before the missing bytes are taken as lost.
    pub max_early_bytes: usize,
    /// Bytes of early TCP segments held by all connections together.
    pub max_buffered: usize,
    /// IP datagrams in reassembly at once.
    pub max_datagrams: usize,
    /// Bytes held by IP reassembly.
    pub max_fragment_bytes: usize,
    /// The longest SCTP user message put together.
    pub max_message: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_flows: 1024,
            max_early_bytes: 256 << 10,
            max_buffered: 64 << 20,
            max_datagrams: 1024,
            max_fragment_bytes: 16 << 20,
            max_message: 1 << 20,
        }
    }
}

/// What to look for and how to decode it.
#[derive(Debug, Clone)]
pub struct Options {
    /// Ports that carry H.248 (either end): every payload on them is
    /// reported, decoded or with the decoder's error. Default: 2944, 2945.
    pub ports: Vec<u16>,
    /// Also pick up H.248 on other ports by its signature (text header,
    /// TPKT with a text or BER message, SCTP payload protocol 7); what
    /// does not decode there is not reported. Default: on.
    pub sniff: bool,
    /// How BER is read (the default standard dialect also reads Erlang/OTP's).
    pub ber: BerConfig,
    /// How PER is read.
    pub per: PerConfig,
    /// State bounds.
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ports: H248_PORTS.to_vec(),
            sniff: true,
            ber: BerConfig::default(),
            per: PerConfig::default(),
            limits: Limits::default(),
        }
    }
}

/// A capture being read: an iterator of [`Event`]s in capture order.
///
/// ```no_run
/// use megaco_pcap::{Capture, Event};
///
/// for event in Capture::open("calls.pcapng")? {
///     match event {
///         Event::Message(m) => println!("{} {} -> {}", m.packet, m.src, m.dst),
///         Event::Problem(p) => eprintln!("packet {}: {}", p.packet, p.kind),
///     }
/// }
/// # Ok::<(), megaco_pcap::FileError>(())
/// ```
pub struct Capture<'r> {
    source: Source<'r>,
    state: State,
}

impl Capture<'static> {
    /// Opens a capture file with the default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, FileError> {
        Self::open_with(path, Options::default())
    }

    /// Opens a capture file.
    pub fn open_with(path: impl AsRef<Path>, options: Options) -> Result<Self, FileError> {
        let file = File::open(path.as_ref()).map_err(|e| FileError::Io(e.to_string()))?;
        Capture::new(BufReader::with_capacity(1 << 16, file), options)
    }
}

impl<'r> Capture<'r> {
    /// Reads a capture from any reader (a file, standard input, bytes).
    pub fn new(input: impl Read + Send + 'r, options: Options) -> Result<Self, FileError> {
        Ok(Capture {
            source: Source::new(input)?,
            state: State::new(options),
        })
    }

    /// Packets read so far.
    pub fn packets(&self) -> u64 {
        self.state.packet
    }

    /// Bytes of the file read so far.
    pub fn offset(&self) -> u64 {
        self.source.offset()
    }

    /// When the file's first packet was captured, whatever it carried
    /// (`None` before any packet is read). Every event comes after it, so
    /// it is the reference for times relative to the capture's start.
    pub fn first_time(&self) -> Option<Timestamp> {
        self.state.first_time
    }
}

impl Iterator for Capture<'_> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.state.out.pop_front() {
                return Some(e);
            }
            if self.state.finished {
                return None;
            }
            let state = &mut self.state;
            match self.source.next(&mut |frame| state.frame(frame)) {
                Step::Frame => {}
                Step::Error(e) => {
                    state.problem(None, ProblemKind::File(e));
                    state.finish();
                }
                Step::End => state.finish(),
            }
        }
    }
}

/// A connection or association, keyed by its two ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct FlowKey {
    proto: u8,
    a: SocketAddr,
    b: SocketAddr,
}

#[derive(Default)]
struct Flow {
    /// Sender and receiver of the flow's first packet seen.
    origin: Option<(SocketAddr, SocketAddr)>,
    last: Timestamp,
    tcp: [HalfStream; 2],
    sctp: [sctp::Direction; 2],
    /// Each direction has ended (`HalfStream::ended`, or a RST).
    fin: [bool; 2],
}

impl Flow {
    /// Ends direction `dir` when its stream has ended in order
    /// (`HalfStream::ended`), or at once with `now` (a RST): what it still
    /// holds is reported.
    fn end_if_over(&mut self, dir: usize, now: bool, budget: &mut usize, out: &mut Vec<Out>) {
        if !self.fin[dir] && (now || self.tcp[dir].ended()) {
            self.fin[dir] = true;
            self.tcp[dir].finish(budget, out);
        }
    }

    /// A flow first seen on a packet from `src` to `dst`.
    fn opened(src: SocketAddr, dst: SocketAddr) -> Flow {
        Flow {
            origin: Some((src, dst)),
            ..Flow::default()
        }
    }
}

struct State {
    ports: Vec<u16>,
    sniff: bool,
    text: Encoding,
    ber: Encoding,
    per: Encoding,
    limits: Limits,
    defrag: Defrag,
    flows: HashMap<FlowKey, Flow>,
    budget: usize,
    out: VecDeque<Event>,
    scratch: Vec<Out>,
    unsupported: Vec<i32>,
    packet: u64,
    time: Timestamp,
    first_time: Option<Timestamp>,
    finished: bool,
}

/// An IP payload's context.
struct Ip<'a> {
    src: IpAddr,
    dst: IpAddr,
    proto: u8,
    payload: &'a [u8],
    /// The payload is cut: (captured, original) frame lengths.
    cut: Option<(u32, u32)>,
}

impl State {
    fn new(o: Options) -> State {
        State {
            ports: o.ports,
            sniff: o.sniff,
            text: Encoding::pretty(),
            ber: Encoding::Ber(o.ber),
            per: Encoding::Per(o.per),
            defrag: Defrag::new(o.limits.max_datagrams, o.limits.max_fragment_bytes),
            budget: o.limits.max_buffered,
            limits: o.limits,
            flows: HashMap::new(),
            out: VecDeque::new(),
            scratch: Vec::new(),
            unsupported: Vec::new(),
            packet: 0,
            time: Timestamp::default(),
            first_time: None,
            finished: false,
        }
    }

    fn problem(&mut self, flow: Option<(SocketAddr, SocketAddr, Transport)>, kind: ProblemKind) {
        self.out.push_back(Event::Problem(Problem {
            packet: self.packet,
            time: self.time,
            flow,
            kind,
        }));
    }

    fn frame(&mut self, f: Frame<'_>) {
        self.packet = f.number;
        self.time = f.time;
        self.first_time.get_or_insert(f.time);
        let ip = match ip_packet(f.link, f.data) {
            Ok(Some(ip)) => ip,
            Ok(None) => return,
            Err(LinkError::UnsupportedLink(l)) => {
                if !self.unsupported.contains(&l) {
                    self.unsupported.push(l);
                    self.problem(None, ProblemKind::UnsupportedLink(l));
                }
                return;
            }
            Err(LinkError::Malformed(m)) => {
                self.problem(None, ProblemKind::Malformed(m));
                return;
            }
        };
        let cut = (ip.cut || (f.data.len() as u32) < f.orig_len)
            .then_some((f.data.len() as u32, f.orig_len));
        let IpPacket {
            src,
            dst,
            proto,
            payload,
            fragment,
            ..
        } = ip;
        if let Some(frag) = fragment {
            let outcome = self
                .defrag
                .add(src, dst, proto, frag, payload, f.number, f.time);
            self.report_dropped();
            match outcome {
                Outcome::Held | Outcome::Duplicate | Outcome::Conflict => {}
                Outcome::Refused(why) => self.problem(None, ProblemKind::Fragment(why)),
                Outcome::Complete(data) => self.transport(Ip {
                    src,
                    dst,
                    proto,
                    payload: &data,
                    cut: None,
                }),
            }
            return;
        }
        self.transport(Ip {
            src,
            dst,
            proto,
            payload,
            cut,
        });
    }

    fn known_port(&self, a: u16, b: u16) -> bool {
        self.ports.contains(&a) || self.ports.contains(&b)
    }

    fn transport(&mut self, ip: Ip<'_>) {
        match ip.proto {
            17 => self.udp(ip),
            6 => self.tcp(ip),
            132 => self.sctp(ip),
            _ => {}
        }
    }

    fn udp(&mut self, ip: Ip<'_>) {
        let p = ip.payload;
        if p.len() < 8 {
            return;
        }
        let sp = u16::from_be_bytes([p[0], p[1]]);
        let dp = u16::from_be_bytes([p[2], p[3]]);
        let len = usize::from(u16::from_be_bytes([p[4], p[5]]));
        let known = self.known_port(sp, dp);
        let src = SocketAddr::new(ip.src, sp);
        let dst = SocketAddr::new(ip.dst, dp);
        let flow = Some((src, dst, Transport::Udp));
        let body = &p[8..];
        if len < 8 || len > p.len() {
            let looks = known || (self.sniff && sniff(body) == Some(Kind::Text));
            if !looks {
                return;
            }
            let kind = match ip.cut {
                Some((captured, original)) => ProblemKind::SnapCut { captured, original },
                None => ProblemKind::Malformed(format!(
                    "UDP length {len} does not match the {} bytes of the datagram",
                    p.len()
                )),
            };
            self.problem(flow, kind);
            return;
        }
        let body = &p[8..len];
        if body.is_empty() {
            return;
        }
        self.message(body, known, src, dst, Transport::Udp);
    }

    /// Decodes one message and queues it, when it is H.248.
    fn message(
        &mut self,
        bytes: &[u8],
        known: bool,
        src: SocketAddr,
        dst: SocketAddr,
        transport: Transport,
    ) {
        if !known && !self.sniff {
            return;
        }
        let kind = sniff(bytes);
        // On an H.248 port, printable bytes without a text header are read
        // (and refused) as text: "not a Megaco header" says more than a
        // PER decoder's first complaint.
        let printable = || {
            !bytes.is_empty()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace())
        };
        let (encoding, message) = match kind {
            Some(Kind::Text) => (Kind::Text, self.text.decode(bytes)),
            None if known && printable() => (Kind::Text, self.text.decode(bytes)),
            Some(Kind::Ber) => (Kind::Ber, self.ber.decode(bytes)),
            _ if known || (self.sniff && kind == Some(Kind::Per)) => {
                (Kind::Per, self.per.decode(bytes))
            }
            _ => return,
        };
        if message.is_err() && !known && encoding != Kind::Text {
            // Binary data on another port that only looked like H.248.
            return;
        }
        self.out.push_back(Event::Message(Box::new(Record {
            packet: self.packet,
            time: self.time,
            src,
            dst,
            transport,
            encoding,
            bytes: bytes.to_vec(),
            message,
        })));
    }

    fn tcp(&mut self, ip: Ip<'_>) {
        let p = ip.payload;
        if p.len() < 20 {
            return;
        }
        let sp = u16::from_be_bytes([p[0], p[1]]);
        let dp = u16::from_be_bytes([p[2], p[3]]);
        let seq = u32::from_be_bytes([p[4], p[5], p[6], p[7]]);
        let ack = u32::from_be_bytes([p[8], p[9], p[10], p[11]]);
        let header = usize::from(p[12] >> 4) * 4;
        let flags = p[13];
        let (fin, syn, rst, has_ack) = (
            flags & 0x01 != 0,
            flags & 0x02 != 0,
            flags & 0x04 != 0,
            flags & 0x10 != 0,
        );
        let src = SocketAddr::new(ip.src, sp);
        let dst = SocketAddr::new(ip.dst, dp);
        let known = self.known_port(sp, dp);
        let key = flow_key(6, src, dst);
        let flow_id = Some((src, dst, Transport::Tcp));
        if header < 20 || header > p.len() {
            if known || self.flows.contains_key(&key) {
                let why = if ip.cut.is_some() {
                    "TCP header cut by the snapshot length".to_string()
                } else {
                    format!("TCP header length {header} invalid")
                };
                self.problem(flow_id, ProblemKind::Malformed(why));
            }
            return;
        }
        let payload = &p[header..];
        if !self.flows.contains_key(&key) {
            let wanted =
                known || (self.sniff && tcp::looks_like_tpkt(payload) && !syn && !fin && !rst);
            if !wanted || (!syn && payload.is_empty()) || rst {
                return;
            }
            self.make_room();
            self.flows.insert(key, Flow::opened(src, dst));
        }
        if let Some((captured, original)) = ip.cut {
            self.problem(flow_id, ProblemKind::SnapCut { captured, original });
        }
        let dir = usize::from(src != key.a);
        let max_early = self.limits.max_early_bytes;
        let mut out = std::mem::take(&mut self.scratch);
        let flow = self.flows.get_mut(&key).expect("inserted above");
        flow.last = self.time;
        if has_ack {
            flow.tcp[1 - dir].acked(ack, &mut self.budget, &mut out);
            // An acknowledgement past a hole may complete a FIN'd stream.
            flow.end_if_over(1 - dir, false, &mut self.budget, &mut out);
            self.emit_stream(&mut out, dst, src);
        }
        let flow = self.flows.get_mut(&key).expect("present");
        flow.tcp[dir].segment(
            Segment {
                seq,
                syn,
                fin,
                payload,
            },
            &mut self.budget,
            max_early,
            &mut out,
        );
        flow.end_if_over(dir, rst, &mut self.budget, &mut out);
        let done = rst || flow.fin == [true, true];
        self.emit_stream(&mut out, src, dst);
        if done {
            if let Some(mut flow) = self.flows.remove(&key) {
                flow.tcp[1 - dir].finish(&mut self.budget, &mut out);
                self.emit_stream(&mut out, dst, src);
            }
        }
        self.scratch = out;
    }

    /// Turns one direction's reassembly output into events.
    fn emit_stream(&mut self, out: &mut Vec<Out>, src: SocketAddr, dst: SocketAddr) {
        let known = self.known_port(src.port(), dst.port());
        for o in out.drain(..) {
            match o {
                Out::Frame(bytes) => self.message(&bytes, known, src, dst, Transport::Tcp),
                Out::Problem(p) => {
                    let kind = match p {
                        StreamProblem::Hole { at, bytes, partial } => {
                            ProblemKind::TcpHole { at, bytes, partial }
                        }
                        StreamProblem::NotTpkt { bytes } => ProblemKind::NotTpkt(bytes),
                        StreamProblem::Ended { partial } => ProblemKind::TcpEnded(partial),
                    };
                    self.problem(Some((src, dst, Transport::Tcp)), kind);
                }
            }
        }
    }

    fn sctp(&mut self, ip: Ip<'_>) {
        let Some(packet) = sctp::packet(ip.payload) else {
            return;
        };
        let src = SocketAddr::new(ip.src, packet.src_port);
        let dst = SocketAddr::new(ip.dst, packet.dst_port);
        let known = self.known_port(packet.src_port, packet.dst_port);
        let flow_id = Some((src, dst, Transport::Sctp));
        let (chunks, err) = packet.data_chunks();
        let ours = |d: &sctp::Data<'_>| d.ppid == PPID_H248 || (known && d.ppid == 0);
        if chunks.iter().any(ours) || known {
            if let Some(why) = err {
                let kind = match ip.cut {
                    Some((captured, original)) => ProblemKind::SnapCut { captured, original },
                    None => ProblemKind::Sctp(why),
                };
                self.problem(flow_id, kind);
            }
        }
        let key = flow_key(132, src, dst);
        let dir = usize::from(src != key.a);
        for d in chunks.into_iter().filter(|d| ours(d)) {
            if !self.flows.contains_key(&key) {
                self.make_room();
                self.flows.insert(key, Flow::opened(src, dst));
            }
            let max = self.limits.max_message;
            let flow = self.flows.get_mut(&key).expect("inserted above");
            flow.last = self.time;
            match flow.sctp[dir].chunk(d, max) {
                Chunk::Message(bytes) => {
                    self.message(&bytes, true, src, dst, Transport::Sctp);
                }
                Chunk::Held | Chunk::Duplicate => {}
                Chunk::Problem(why) => self.problem(flow_id, ProblemKind::Sctp(why)),
            }
        }
    }

    /// Keeps the flow table within its bound: the least recently active
    /// flow goes.
    fn make_room(&mut self) {
        while self.flows.len() >= self.limits.max_flows.max(1) {
            let Some((&key, _)) = self.flows.iter().min_by_key(|(k, f)| (f.last, **k)) else {
                return;
            };
            let mut flow = self.flows.remove(&key).expect("present");
            let held: usize = flow.tcp.iter().map(HalfStream::held).sum();
            for h in &mut flow.tcp {
                let mut out = Vec::new();
                h.finish(&mut self.budget, &mut out);
            }
            let (src, dst) = flow.origin.unwrap_or((key.a, key.b));
            self.problem(
                Some((src, dst, transport_of(key.proto))),
                ProblemKind::FlowEvicted(held),
            );
        }
    }

    /// Reports the datagrams reassembly gave up on.
    fn report_dropped(&mut self) {
        for d in self.defrag.take_dropped() {
            self.problem(
                None,
                ProblemKind::Datagram {
                    src: d.src,
                    dst: d.dst,
                    id: d.id,
                    first_packet: d.first_packet,
                    received: d.received,
                    reason: d.reason,
                },
            );
        }
    }

    /// The end of the capture: what is still held is reported.
    fn finish(&mut self) {
        let mut keys: Vec<FlowKey> = self.flows.keys().copied().collect();
        keys.sort();
        let mut out = std::mem::take(&mut self.scratch);
        for key in keys {
            let mut flow = self.flows.remove(&key).expect("present");
            for (dir, (src, dst)) in [(key.a, key.b), (key.b, key.a)].into_iter().enumerate() {
                flow.tcp[dir].finish(&mut self.budget, &mut out);
                self.emit_stream(&mut out, src, dst);
            }
        }
        self.defrag.finish();
        self.report_dropped();
        self.finished = true;
    }
}

fn flow_key(proto: u8, x: SocketAddr, y: SocketAddr) -> FlowKey {
    let (a, b) = if x <= y { (x, y) } else { (y, x) };
    FlowKey { proto, a, b }
}

fn transport_of(proto: u8) -> Transport {
    match proto {
        6 => Transport::Tcp,
        132 => Transport::Sctp,
        _ => Transport::Udp,
    }
}
