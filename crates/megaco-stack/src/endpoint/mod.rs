//! The sans-IO endpoint: every peer of one Megaco entity, over any number
//! of transports, in the sense of quinn-proto's `Endpoint`.
//!
//! It performs no I/O and reads no clock. It owns the peer table (one
//! [`Connection`] per proven peer), admits and evicts peers, expires idle
//! ones, frames and times TCP streams, recognises each peer's encoding,
//! negotiates versions, rate-limits the errors it sends, and counts what
//! it drops. Datagrams and stream bytes go in with the current time
//! ([`Endpoint::handle_datagram`], [`Endpoint::handle_stream_data`]), as
//! do timer expiries ([`Endpoint::handle_timeout`]) and user commands
//! ([`Endpoint::send_request`], [`Endpoint::reply`], ...). Out come bytes
//! to send ([`Endpoint::poll_transmit`]), streams to close
//! ([`Endpoint::poll_close`]), events ([`Endpoint::poll_event`]) and the
//! next deadline ([`Endpoint::poll_timeout`]). The tokio drivers
//! ([`crate::udp`], [`crate::tcp`], [`crate::Stack`]) only move bytes
//! between sockets and this.
//!
//! # Admission
//!
//! A peer is *unproven* until it sends a message that decodes: it costs a
//! small entry (no transaction state) in a table of at most
//! [`TransportConfig::max_unproven_peers`], the oldest evicted first, and
//! is forgotten (a TCP connection closed) after
//! [`TransportConfig::unproven_timeout`]. Garbage from many addresses so
//! only ever churns that table. A decodable message makes the peer
//! *proven*: it gets a [`Connection`] and one of
//! [`TransportConfig::max_peers`] slots (taking, when all are held, the
//! slot of the unregistered peer with no live transaction idle the
//! longest, or else of a peer that has been quiet for the request timer's
//! resend horizon, or else being refused). A peer whose registration
//! (ServiceChange on ROOT) was accepted is *registered*: it keeps its
//! slot while it talks or is talked to (at least every resend horizon, 49
//! s by default) or has a request in progress, so that registrations from
//! many addresses cannot hold the table once they go quiet.
//!
//! # No storms
//!
//! Message-level errors and transaction errors the stack produces by
//! itself are limited per peer and in total (token
//! buckets, [`crate::config::RateLimit`]); undecodable input right after an error of ours is not
//! answered; messages carrying only errors are never answered. What is
//! dropped is counted ([`Endpoint::stats`]) and reported at most once per
//! [`TransportConfig::report_interval`] ([`EndpointEvent::Dropped`]).
//! Per-message events that a peer can provoke at will are handed out at
//! most once per report interval, the rest only counted in that report:
//! [`Event::DecodeError`](crate::engine::Event::DecodeError) once per
//! proven peer (unproven peers get none), [`EndpointEvent::PeerRefused`]
//! once for all peers.
//!
//! ```
//! use std::time::Instant;
//! use megaco::model::*;
//! use megaco_stack::build;
//! use megaco_stack::endpoint::{Endpoint, EndpointEvent, Peer, TransportKind};
//! use megaco_stack::engine::{Config, Event};
//!
//! let mid = |a| Mid::Ip4(Ip4Address { address: [127, 0, 0, a], port: Some(2944) });
//! let mut mgc = Endpoint::new(Config::new(mid(1)));
//! let udp = mgc.add_transport(TransportKind::Datagram);
//! let mut mg = Endpoint::new(Config::new(mid(2)));
//! let mg_udp = mg.add_transport(TransportKind::Datagram);
//! let (mgc_addr, mg_addr) = ("127.0.0.1:2944".parse()?, "127.0.0.1:2945".parse()?);
//! let now = Instant::now();
//!
//! // The MG registers; its datagram reaches the MGC.
//! let sc = build::service_change(TerminationId::root(), ServiceChangeMethod::Restart, "901");
//! mg.send_request(now, Peer::new(mg_udp, mgc_addr), vec![sc])?;
//! let t = mg.poll_transmit().unwrap();
//! mgc.handle_datagram(now, Peer::new(udp, mg_addr), &t.contents);
//!
//! // The MGC admits the MG and hands the request to its user.
//! let mut request = None;
//! while let Some(ev) = mgc.poll_event() {
//!     if let EndpointEvent::Transaction { peer, event: Event::RequestReceived { transaction_id, actions, .. } } = ev {
//!         request = Some((peer, transaction_id, actions));
//!     }
//! }
//! let (peer, id, actions) = request.unwrap();
//! mgc.reply(now, peer, id, build::default_replies(&actions))?;
//! assert!(mgc.is_registered(peer));
//! assert_eq!(mgc.stats().peers, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod admission;
mod bucket;
mod budget;
mod codecs;
mod events;
mod timers;

use std::collections::{BTreeSet, VecDeque};
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use megaco::model::*;
use megaco::MegacoMessage;

use crate::codec::{DecodeError, Encoding};
use crate::config::{Config, TransportConfig};
use crate::engine::{self, decode_error_descriptor, Connection, ConnectionStats, Map};
use crate::tpkt::{self, FrameDecoder};
use bucket::Bucket;
use codecs::Codecs;
pub use events::{CloseReason, DropReport, EndpointEvent, Stats};

/// One of an endpoint's transports (a UDP socket, a TCP listener, an
/// outgoing TCP connection), numbered by [`Endpoint::add_transport`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TransportId(pub u16);

/// Whether a transport carries datagrams (UDP: one message each) or a
/// byte stream (TCP, TPKT framed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// UDP.
    Datagram,
    /// TCP with TPKT framing; each connection is a peer.
    Stream,
}

/// A peer: an address on one of the endpoint's transports (for TCP, one
/// connection).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Peer {
    /// The transport.
    pub transport: TransportId,
    /// The peer's address.
    pub addr: SocketAddr,
}

impl Peer {
    /// `addr` on `transport`.
    pub fn new(transport: TransportId, addr: SocketAddr) -> Self {
        Peer { transport, addr }
    }
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.addr.fmt(f)
    }
}

/// Bytes to send to a peer: a datagram, or for a stream, bytes to write
/// (TPKT framed already).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// To whom.
    pub peer: Peer,
    /// What.
    pub contents: Vec<u8>,
}

#[derive(Debug)]
struct StreamState {
    decoder: FrameDecoder,
    /// When the bytes of the frame being read started to come.
    frame_started: Option<Instant>,
    /// When the last complete message came (or the connection opened).
    last_message: Instant,
    /// Not read for now, for our user's sake
    /// ([`Endpoint::handle_stream_held`]): its timers wait.
    held: bool,
}

#[derive(Debug)]
struct PeerState {
    /// The transactions, once proven.
    conn: Option<Box<Connection>>,
    /// The encoding recognised while unproven.
    encoding: Option<Arc<Encoding>>,
    first_seen: Instant,
    last_active: Instant,
    /// The deadline of this peer's entry in [`Endpoint::timers`].
    armed: Option<Instant>,
    errors: Bucket,
    /// Whether our last message to this unproven peer was an error.
    last_sent_error: bool,
    stream: Option<Box<StreamState>>,
    /// A graceful close waiting for SegmentReplies (or, once the peer
    /// closed its side, for our replies to its requests), until this
    /// instant.
    closing: Option<Instant>,
    /// The peer closed its side of the stream: it sends no more.
    finished: bool,
    /// The connection's counters at the last flush.
    seen: ConnectionStats,
    /// Whether it was registered at the last flush.
    registered: bool,
    /// Bytes of cached replies and executed requests remembered, at the
    /// last flush.
    held: (usize, usize),
    /// When a [`Event::DecodeError`] of this peer was last handed out:
    /// the others of that report interval are only counted.
    decode_error_shown: Option<Instant>,
}

/// The sans-IO endpoint (see the [module documentation](self)).
#[derive(Debug)]
pub struct Endpoint {
    config: Arc<Config>,
    codecs: Codecs,
    transports: Vec<TransportKind>,
    peers: Map<Peer, PeerState>,
    /// Unproven peers by arrival, oldest first.
    unproven: BTreeSet<(Instant, Peer)>,
    /// Every peer's next deadline, soonest first.
    timers: BTreeSet<(Instant, Peer)>,
    /// Peers by bytes of cached replies, and by executed requests
    /// remembered (those holding none left out).
    by_cached: BTreeSet<(usize, Peer)>,
    by_remembered: BTreeSet<(usize, Peer)>,
    dirty: Vec<Peer>,
    transmits: VecDeque<Transmit>,
    closes: VecDeque<(Peer, CloseReason)>,
    events: VecDeque<EndpointEvent>,
    errors: Bucket,
    stats: Stats,
    /// The counters at the last report.
    reported: DropReport,
    next_report: Option<Instant>,
    /// When an [`EndpointEvent::PeerRefused`] was last handed out: the
    /// others of that report interval are only counted.
    refusal_shown: Option<Instant>,
    /// Until when a full table is not searched again for a slot to free,
    /// after a search found none, and for whom: newcomers from that
    /// address, or (`true`) from any (see [`Endpoint::evict_idle_proven`]).
    no_eviction_until: Option<(Instant, std::net::IpAddr, bool)>,
    /// How many proven peers each source address holds.
    by_address: Map<std::net::IpAddr, u32>,
    /// Searches of the peer table for a slot to free (for tests of their
    /// cost).
    eviction_searches: u64,
}

impl Endpoint {
    /// An endpoint with no transports yet.
    pub fn new(config: Config) -> Self {
        let now = Instant::now();
        Endpoint {
            codecs: Codecs::new(&config.encoding),
            errors: Bucket::full(config.transport.error_rate_total, now),
            config: Arc::new(config),
            transports: Vec::new(),
            peers: Map::default(),
            unproven: BTreeSet::new(),
            timers: BTreeSet::new(),
            by_cached: BTreeSet::new(),
            by_remembered: BTreeSet::new(),
            dirty: Vec::new(),
            transmits: VecDeque::new(),
            closes: VecDeque::new(),
            events: VecDeque::new(),
            stats: Stats::default(),
            reported: DropReport::default(),
            next_report: None,
            refusal_shown: None,
            no_eviction_until: None,
            by_address: Map::default(),
            eviction_searches: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    fn limits(&self) -> &TransportConfig {
        &self.config.transport
    }

    /// Adds a transport; peers on it are named with the returned id.
    pub fn add_transport(&mut self, kind: TransportKind) -> TransportId {
        let id = TransportId(u16::try_from(self.transports.len()).unwrap_or(u16::MAX));
        self.transports.push(kind);
        id
    }

    fn is_stream(&self, peer: Peer) -> bool {
        self.transports.get(usize::from(peer.transport.0)) == Some(&TransportKind::Stream)
    }

    /// The counters, and the peers kept now.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Whether `peer` is registered (a registration between us was
    /// accepted).
    pub fn is_registered(&self, peer: Peer) -> bool {
        self.conn(peer).is_some_and(|c| c.is_registered())
    }

    /// The protocol version of our messages to `peer` (negotiated, or
    /// [`Config::version`]), if it is proven.
    pub fn peer_version(&self, peer: Peer) -> Option<u8> {
        self.conn(peer).map(|c| c.version())
    }

    /// The encoding we speak to `peer`, if it is proven.
    pub fn peer_encoding(&self, peer: Peer) -> Option<&Encoding> {
        self.conn(peer).map(|c| c.encoding())
    }

    /// The transactions with `peer`, if it is proven.
    pub fn conn(&self, peer: Peer) -> Option<&Connection> {
        self.peers.get(&peer).and_then(|p| p.conn.as_deref())
    }

    /// The next bytes to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next stream to close, once every [`Transmit`] polled before is
    /// written (drain [`Endpoint::poll_transmit`] first).
    pub fn poll_close(&mut self) -> Option<(Peer, CloseReason)> {
        self.closes.pop_front()
    }

    /// Whether something waits to be polled (bytes to send, a stream to
    /// close, an event).
    pub fn has_output(&self) -> bool {
        !(self.transmits.is_empty() && self.closes.is_empty() && self.events.is_empty())
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }

    /// When [`Endpoint::handle_timeout`] must next be called, if ever.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let peer = self.timers.first().map(|(at, _)| *at);
        match (peer, self.next_report) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    // ------------------------------------------------------------ input

    /// A datagram from `peer`.
    pub fn handle_datagram(&mut self, now: Instant, peer: Peer, bytes: &[u8]) {
        if !self.peers.contains_key(&peer) && !self.admit_unproven(now, peer, None) {
            return;
        }
        self.message(now, peer, bytes);
        self.flush(now);
    }

    /// A stream to `peer` opened: accepted from a listener (`outbound`
    /// false: the peer starts unproven) or connected by us (proven at
    /// once). Returns false when it must be closed at once (no room).
    pub fn handle_connected(&mut self, now: Instant, peer: Peer, outbound: bool) -> bool {
        let stream = Box::new(StreamState {
            decoder: FrameDecoder::default(),
            frame_started: None,
            last_message: now,
            held: false,
        });
        let ok = if outbound {
            self.admit_proven(now, peer, true, Some(stream))
        } else {
            self.admit_unproven(now, peer, Some(stream))
        };
        if ok {
            self.events.push_back(EndpointEvent::Connected { peer });
        }
        self.flush(now);
        ok
    }

    /// The driver stops reading from the stream to `peer` (`held`: its
    /// user has no room for more requests) or reads it again. While it
    /// is held, the frame and idle timeouts do not run against the peer,
    /// as the wait is ours; when it is read again, both count from `now`.
    pub fn handle_stream_held(&mut self, now: Instant, peer: Peer, held: bool) {
        let Some(stream) = self.peers.get_mut(&peer).and_then(|s| s.stream.as_mut()) else {
            return;
        };
        stream.held = held;
        if !held {
            stream.frame_started = stream.frame_started.map(|_| now);
            stream.last_message = now;
        }
        self.dirty.push(peer);
        self.flush(now);
    }

    /// Bytes read from the stream to `peer`.
    pub fn handle_stream_data(&mut self, now: Instant, peer: Peer, bytes: &[u8]) {
        let mut frames = Vec::new();
        let mut bad = None;
        {
            let Some(state) = self.peers.get_mut(&peer) else {
                return;
            };
            let Some(stream) = state.stream.as_mut() else {
                return;
            };
            state.last_active = now;
            stream.decoder.extend(bytes);
            loop {
                match stream.decoder.next_frame() {
                    Ok(Some(frame)) => {
                        frames.push(frame);
                        stream.last_message = now;
                    }
                    Ok(None) => break,
                    Err(e) => {
                        bad = Some(e);
                        break;
                    }
                }
            }
            stream.frame_started = match (stream.decoder.buffered(), stream.frame_started) {
                (0, _) => None,
                (_, started) if frames.is_empty() => started.or(Some(now)),
                _ => Some(now),
            };
        }
        self.dirty.push(peer);
        for frame in frames {
            if !self.peers.contains_key(&peer) {
                break;
            }
            self.message(now, peer, &frame);
        }
        if let Some(e) = bad {
            self.close_stream(peer, CloseReason::BadFraming(e.to_string()));
        }
        self.flush(now);
    }

    /// The peer closed its side of the stream (a half-close: it sends no
    /// more, and may still read). The stream is closed once our replies
    /// to the requests it sent are written: at once when none is owed,
    /// else when the last is handed over, at most the request timer's
    /// [lifetime](crate::config::RequestTimer::lifetime) from now (as
    /// long as the peer would wait for them). The close is polled
    /// ([`Endpoint::poll_close`]) with [`CloseReason::PeerClosed`].
    pub fn handle_stream_finished(&mut self, now: Instant, peer: Peer) {
        let wait = self.config.request_timer.lifetime();
        let Some(state) = self.peers.get_mut(&peer) else {
            return;
        };
        let owed = state
            .conn
            .as_ref()
            .is_some_and(|c| c.unanswered_requests() > 0);
        if owed {
            state.finished = true;
            // The rest of a frame will not come.
            if let Some(stream) = state.stream.as_mut() {
                stream.frame_started = None;
            }
            let until = engine_after(now, wait);
            state.closing = Some(state.closing.map_or(until, |t| t.min(until)));
            self.dirty.push(peer);
        } else if self.remove(peer).is_some() {
            self.stats.connections_closed += 1;
            self.closes.push_back((peer, CloseReason::PeerClosed));
            self.events.push_back(EndpointEvent::Closed {
                peer,
                reason: CloseReason::PeerClosed,
            });
        }
        self.flush(now);
    }

    /// The stream to `peer` ended (`None`: closed by the peer).
    pub fn handle_stream_closed(&mut self, now: Instant, peer: Peer, error: Option<String>) {
        if self.remove(peer).is_some() {
            self.stats.connections_closed += 1;
            let reason = error.map_or(CloseReason::PeerClosed, CloseReason::Error);
            self.events
                .push_back(EndpointEvent::Closed { peer, reason });
        }
        self.flush(now);
    }

    /// One message (a datagram or a frame) from a known peer.
    fn message(&mut self, now: Instant, peer: Peer, bytes: &[u8]) {
        let recognise = self.config.recognise_encoding;
        let Some(state) = self.peers.get_mut(&peer) else {
            return;
        };
        state.last_active = now;
        // A proven peer's duplicates, pendings, acks and SegmentReplies
        // need no owned model: read them from a borrowed view of the bytes
        // (BER and text), when they are in the encoding the peer speaks.
        if let Some(conn) = state.conn.as_mut() {
            if self.codecs.speaks(bytes, conn.encoding(), recognise) && conn.handle_view(now, bytes)
            {
                self.dirty.push(peer);
                return;
            }
        }
        let current = state
            .conn
            .as_ref()
            .map(|c| c.encoding_arc())
            .or(state.encoding.clone());
        let decoded = self.codecs.decode(bytes, current.as_ref(), recognise);
        match decoded.result {
            Ok(msg) => {
                let proven = state.conn.is_some();
                if !proven {
                    state.encoding = decoded.encoding.clone().or(state.encoding.take());
                    if !self.admit_proven(now, peer, false, None) {
                        return;
                    }
                }
                let Some(conn) = self.peers.get_mut(&peer).and_then(|p| p.conn.as_mut()) else {
                    return;
                };
                if let Some(enc) = decoded.encoding {
                    if !Arc::ptr_eq(&enc, &conn.encoding_arc()) {
                        conn.set_encoding(enc);
                    }
                }
                conn.handle_message(now, msg);
                self.dirty.push(peer);
            }
            Err(error) => self.undecodable(now, peer, decoded.encoding, bytes, error),
        }
    }

    fn undecodable(
        &mut self,
        now: Instant,
        peer: Peer,
        encoding: Option<Arc<Encoding>>,
        bytes: &[u8],
        error: DecodeError,
    ) {
        self.stats.decode_errors += 1;
        self.schedule_report(now);
        let Some(state) = self.peers.get_mut(&peer) else {
            return;
        };
        if let Some(conn) = state.conn.as_mut() {
            let before = conn.errors_suppressed();
            conn.handle_undecodable(error);
            if conn.errors_suppressed() > before {
                self.stats.storms_suppressed += 1;
            }
            self.dirty.push(peer);
            return;
        }
        // Unproven: no event per datagram (garbage from many addresses
        // would flood the user), only the counters.
        if !self.config.reply_to_decode_errors {
            return;
        }
        if state.last_sent_error {
            self.stats.storms_suppressed += 1;
            return;
        }
        let encoding = encoding
            .or(state.encoding.clone())
            .unwrap_or_else(|| self.codecs.primary.clone());
        // The rate limit first: under a storm of garbage most datagrams
        // get no answer, and need none built.
        if !self.take_error_token(now, peer) {
            return;
        }
        // In the peer's version when its header says one we speak: a v1
        // gateway need not read a v3 message.
        let version = encoding
            .version_of(bytes)
            .ok()
            .filter(|v| (1..=self.config.version).contains(v))
            .unwrap_or(self.config.version);
        let msg = MegacoMessage {
            auth_header: None,
            mess: Message {
                version,
                mid: self.config.mid.clone(),
                body: MessageBody::Error(decode_error_descriptor(&error)),
            },
        };
        let Ok(bytes) = encoding.encode(&msg) else {
            return;
        };
        if let Some(state) = self.peers.get_mut(&peer) {
            state.last_sent_error = true;
        }
        self.send(peer, bytes);
    }

    /// Whether an error may go to `peer` now (taking a token from its
    /// bucket and the endpoint's); counts it when not.
    fn take_error_token(&mut self, now: Instant, peer: Peer) -> bool {
        let (per_peer, total) = (
            self.limits().error_rate_per_peer,
            self.limits().error_rate_total,
        );
        let Some(state) = self.peers.get_mut(&peer) else {
            return false;
        };
        if state.errors.has(per_peer, now) && self.errors.has(total, now) {
            state.errors.take();
            self.errors.take();
            true
        } else {
            self.stats.errors_rate_limited += 1;
            self.schedule_report(now);
            false
        }
    }

    fn send(&mut self, peer: Peer, bytes: Vec<u8>) {
        let contents = if self.is_stream(peer) {
            match tpkt::frame(&bytes) {
                Ok(framed) => framed,
                Err(_) => return,
            }
        } else {
            bytes
        };
        self.transmits.push_back(Transmit { peer, contents });
    }

    // ------------------------------------------------------ user calls

    /// Sends a request to `peer` (a new UDP address is admitted at once;
    /// a stream peer must be connected). Returns its transaction id.
    pub fn send_request(
        &mut self,
        now: Instant,
        peer: Peer,
        actions: Vec<ActionRequest>,
    ) -> Result<u32, engine::Error> {
        if self.peers.get(&peer).is_none_or(|p| p.conn.is_none()) {
            if self.is_stream(peer) && !self.peers.contains_key(&peer) {
                return Err(engine::Error::NotConnected);
            }
            self.admit_proven(now, peer, true, None);
        }
        let conn = self.conn_mut(peer)?;
        let id = conn.send_request(now, actions)?;
        if let Some(state) = self.peers.get_mut(&peer) {
            state.last_active = now;
        }
        self.dirty.push(peer);
        self.flush(now);
        Ok(id)
    }

    fn conn_mut(&mut self, peer: Peer) -> Result<&mut Connection, engine::Error> {
        self.peers
            .get_mut(&peer)
            .and_then(|p| p.conn.as_deref_mut())
            .ok_or(engine::Error::NotConnected)
    }

    /// Replies to the request `transaction_id` from `peer`.
    pub fn reply(
        &mut self,
        now: Instant,
        peer: Peer,
        transaction_id: u32,
        result: TransactionResult,
    ) -> Result<(), engine::Error> {
        self.answer(now, peer, transaction_id, result, true)
    }

    /// Replies to the request `transaction_id` from `peer`, the reply
    /// sent or (`send` false) only cached, for a duplicate to find.
    fn answer(
        &mut self,
        now: Instant,
        peer: Peer,
        transaction_id: u32,
        result: TransactionResult,
        send: bool,
    ) -> Result<(), engine::Error> {
        // A peer that is gone (its stream closed, or it expired) took
        // its requests with it: NotConnected.
        let conn = self.conn_mut(peer)?;
        let r = conn.reply(now, transaction_id, result);
        if !send {
            while conn.poll_transmit_tagged().is_some() {}
        }
        self.dirty.push(peer);
        self.flush(now);
        r
    }

    /// Answers the request `transaction_id` from `peer` with an error the
    /// stack chose by itself (503 when the user is behind), within the
    /// per-peer and total error rate limits
    /// ([`TransportConfig::error_rate_per_peer`]): beyond them the request
    /// is answered all the same (a duplicate of it gets the cached
    /// error), but the reply is not sent, only counted
    /// ([`Stats::errors_rate_limited`]). A peer flooding a busy endpoint
    /// so gets a few errors a second, not one per request. A TCP peer is
    /// answered every time: a connected peer cannot aim our errors at
    /// another address, what it is sent is held to what it reads
    /// ([`TransportConfig::tcp_write_queue`]), and over TCP it does not
    /// resend, so a request left unanswered would wait out its whole
    /// timer.
    pub fn refuse(
        &mut self,
        now: Instant,
        peer: Peer,
        transaction_id: u32,
        result: TransactionResult,
    ) -> Result<(), engine::Error> {
        // Nothing of this peer's waits to be sent but what this produces.
        self.flush(now);
        self.conn_mut(peer)?;
        let send = self.is_stream(peer) || self.take_error_token(now, peer);
        self.answer(now, peer, transaction_id, result, send)
    }

    /// Sends a TransactionPending for the request `transaction_id` from
    /// `peer`.
    pub fn send_pending(
        &mut self,
        now: Instant,
        peer: Peer,
        transaction_id: u32,
    ) -> Result<(), engine::Error> {
        let conn = self.conn_mut(peer)?;
        let r = conn.send_pending(now, transaction_id);
        self.dirty.push(peer);
        self.flush(now);
        r
    }

    /// Forgets our request `transaction_id` to `peer` (no more resends).
    pub fn cancel(&mut self, peer: Peer, transaction_id: u32) -> bool {
        let done = self
            .peers
            .get_mut(&peer)
            .and_then(|p| p.conn.as_mut())
            .is_some_and(|c| c.cancel(transaction_id));
        self.dirty.push(peer);
        done
    }

    /// Closes the stream to `peer` gracefully: once the SegmentReplies of
    /// our segmented replies have come (at most
    /// [`Config::segment_recv_timer`]) and what is queued is written.
    pub fn close(&mut self, now: Instant, peer: Peer) {
        let wait = self.config.segment_recv_timer;
        let Some(state) = self.peers.get_mut(&peer) else {
            // A stream the endpoint no longer holds: closed all the same.
            if self.is_stream(peer) {
                self.closes.push_back((peer, CloseReason::Requested));
            }
            return;
        };
        if state
            .conn
            .as_ref()
            .is_some_and(|c| c.awaits_segment_replies())
        {
            state.closing = Some(engine_after(now, wait));
            self.dirty.push(peer);
            self.flush(now);
        } else {
            self.drop_peer(peer, CloseReason::Requested);
        }
    }
}

fn engine_after(now: Instant, d: Duration) -> Instant {
    crate::engine::after(now, d)
}

/// Whether an event last shown at `last` may be shown again at `now`,
/// once per `interval` (then `last` becomes `now`): for the events a peer
/// can provoke at will, the rest only counted.
fn once_per(last: &mut Option<Instant>, now: Instant, interval: Duration) -> bool {
    if last.is_some_and(|t| now < engine_after(t, interval)) {
        return false;
    }
    *last = Some(now);
    true
}

/// A short name of an encoding, for logs.
fn describe(e: &Encoding) -> String {
    match e {
        Encoding::Text {
            style: megaco::text::Style::Pretty,
            ..
        } => "pretty".into(),
        Encoding::Text { .. } => "compact".into(),
        Encoding::Ber(cfg) if cfg.dialect == megaco::ber::Dialect::Otp => "ber (otp)".into(),
        Encoding::Ber(_) => "ber (standard)".into(),
        Encoding::Per(_) => "per".into(),
        _ => e.kind().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Config, Event};

    /// Requests refused with 503 at one instant: the peer gets as many
    /// as its error burst allows, the rest are counted; every request is
    /// answered (none left waiting for the user).
    #[test]
    fn refusals_keep_to_the_error_rate_limit() {
        let mid = Mid::Ip4(Ip4Address {
            address: [127, 0, 0, 1],
            port: Some(2944),
        });
        let mut ep = Endpoint::new(Config::new(mid));
        let udp = ep.add_transport(TransportKind::Datagram);
        let peer = Peer::new(udp, SocketAddr::from(([127, 0, 0, 1], 2945)));
        let now = Instant::now();
        let body: String = (1..=100)
            .map(|id| format!("T={id}{{C=-{{N=t1{{OE=1{{al/of}}}}}}}}"))
            .collect();
        let msg = format!("!/1 [127.0.0.9]:2944 {body}");
        ep.handle_datagram(now, peer, msg.as_bytes());
        let ids: Vec<u32> = std::iter::from_fn(|| ep.poll_event())
            .filter_map(|e| match e {
                EndpointEvent::Transaction {
                    event: Event::RequestReceived { transaction_id, .. },
                    ..
                } => Some(transaction_id),
                _ => None,
            })
            .collect();
        assert_eq!(ids.len(), 100);
        for id in ids {
            let busy = TransactionResult::Error(ErrorDescriptor {
                error_code: 503,
                error_text: None,
            });
            ep.refuse(now, peer, id, busy).unwrap();
        }
        let sent = std::iter::from_fn(|| ep.poll_transmit()).count();
        let burst = ep.config().transport.error_rate_per_peer.burst as usize;
        assert_eq!(sent, burst);
        assert_eq!(ep.stats().errors_rate_limited, (100 - burst) as u64);
        assert_eq!(ep.conn(peer).unwrap().unanswered_requests(), 0);
    }
}
