//! The tokio driver of an [`Endpoint`]: one task owns the endpoint, the
//! UDP sockets' sending side and a queue to each TCP connection's task;
//! reader, acceptor and connection tasks feed it what arrives; handles
//! talk to it over a channel.

mod api;
mod stream;

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use megaco::model::{ActionRequest, ErrorDescriptor, TransactionResult};
use tokio::net::{TcpStream, UdpSocket};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::endpoint::{CloseReason, Endpoint, EndpointEvent, Peer, Stats, Transmit, TransportId};
use crate::engine::{self, Event, FailReason};
pub use api::{Error, Handle, Inbound, Incoming, IncomingRequest, OutgoingRequest, ReplySent};
use stream::{run_stream, Closing, Outbox, StreamTx, Writing};

type Waiter = oneshot::Sender<Result<TransactionResult, Error>>;
type Done = oneshot::Sender<Result<(), Error>>;

// A reply's result holds its first action reply inline; commands are
// few and short-lived, so their size does not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Cmd {
    Request {
        peer: Peer,
        actions: Vec<ActionRequest>,
        tx: Waiter,
        id_tx: oneshot::Sender<Result<u32, Error>>,
    },
    Reply {
        peer: Peer,
        id: u32,
        result: TransactionResult,
        tx: Done,
    },
    Pending {
        peer: Peer,
        id: u32,
        tx: Done,
    },
    /// A request future to `peer` was dropped: forget the requests whose
    /// waiter is gone.
    Cancel {
        peer: Peer,
    },
    /// Open a TCP connection.
    Connect {
        addr: SocketAddr,
        tx: oneshot::Sender<io::Result<(Peer, SocketAddr)>>,
    },
    /// Close the stream to a peer gracefully; tell `done` once it is.
    Close {
        peer: Peer,
        done: Option<oneshot::Sender<()>>,
    },
    /// A request from `peer` found its connection's queue full
    /// ([`crate::tcp::Listener`]): answer 503 and count it.
    Refuse {
        peer: Peer,
        id: u32,
    },
    /// An item for a connection's queue was dropped: count it.
    EventDropped,
    /// Close every stream gracefully and stop.
    Shutdown {
        tx: oneshot::Sender<()>,
    },
}

pub(crate) enum Input {
    /// Datagrams read in one go: each one's end in `bytes` and sender.
    Datagrams {
        transport: TransportId,
        bytes: Vec<u8>,
        datagrams: Vec<(usize, SocketAddr)>,
    },
    Accepted {
        transport: TransportId,
        stream: TcpStream,
        from: SocketAddr,
    },
    Connected {
        stream: io::Result<TcpStream>,
        tx: oneshot::Sender<io::Result<(Peer, SocketAddr)>>,
    },
    Data {
        peer: Peer,
        bytes: Vec<u8>,
    },
    Ended {
        peer: Peer,
        error: Option<String>,
    },
    /// The peer took none of the bytes waiting for it in time: the
    /// connection's task ended.
    SlowReader {
        peer: Peer,
    },
}

/// How many inputs the reader tasks may queue for the driver; beyond
/// that they wait (UDP datagrams then drop in the kernel, TCP pushes back
/// on the peer).
pub(crate) const INPUT_QUEUE: usize = 1024;

impl Input {
    /// How many messages it may hold (requests for the user among them).
    fn datagrams(&self) -> usize {
        match self {
            Input::Datagrams { datagrams, .. } => datagrams.len(),
            _ => 1,
        }
    }
}

/// How many queued inputs and replies the driver takes beyond the one
/// that woke it before it sends what they produced.
const BATCH: usize = 64;

fn error_result(code: u16, text: &str) -> TransactionResult {
    TransactionResult::Error(ErrorDescriptor {
        error_code: code,
        error_text: Some(text.to_string().into()),
    })
}

/// The state of the driver task.
struct Driver {
    ep: Endpoint,
    udp: HashMap<TransportId, Arc<UdpSocket>>,
    /// What waits to be written to each stream (its task writes it).
    streams: HashMap<Peer, StreamTx>,
    /// Each stream's task (or, once a close is awaited, the task that
    /// waits for it).
    tasks: HashMap<Peer, JoinHandle<()>>,
    /// Who waits for a stream's graceful close.
    close_waiters: HashMap<Peer, Vec<oneshot::Sender<()>>>,
    /// Shutting down: new connections are dropped.
    draining: bool,
    waiters: HashMap<Peer, HashMap<u32, Waiter>>,
    inbound: mpsc::Sender<Inbound>,
    reply_cmd: mpsc::UnboundedSender<Cmd>,
    input_tx: mpsc::Sender<Input>,
    stats: Arc<Mutex<Stats>>,
    requests_refused: u64,
    events_dropped: u64,
    /// Replies and pendings handed to the endpoint since the last flush.
    written: Vec<Done>,
    /// The transport of our outgoing TCP connections.
    outbound: TransportId,
    /// Stop when the last stream closes ([`crate::tcp::connect`]).
    stop_with_streams: bool,
    closing: Closing,
    /// Bytes waiting to be written on all TCP connections.
    waiting: Arc<AtomicUsize>,
    writing: Writing,
    /// The datagrams of a flush, gathered to go out together (kept
    /// between flushes for its capacity).
    datagrams: Vec<Transmit>,
    /// Ends of streams that found the queue to the user full: they wait
    /// for room (up to [`MAX_UNDELIVERED_CLOSES`]) rather than be
    /// dropped, so that the user always learns that a stream ended.
    undelivered_closes: VecDeque<Inbound>,
    /// Requests from TCP peers that found the queue to the user full (or
    /// others waiting before them), in order: they wait for room, and
    /// their streams' reading is held meanwhile, which bounds them.
    held: VecDeque<Inbound>,
    /// The streams whose reading is held, until `held` is empty.
    holding: HashSet<Peer>,
    requests_held: u64,
    /// How many requests of each UDP peer the user holds, in its queue
    /// or taken, not yet answered (for [`Driver::over_share`]).
    at_user: HashMap<Peer, usize>,
    requests_over_share: u64,
}

/// How many ends of streams wait for room in a full queue to the user;
/// beyond, they are dropped and counted ([`Stats::events_dropped`]).
const MAX_UNDELIVERED_CLOSES: usize = 65_536;

pub(crate) struct Spawned {
    pub(crate) handle: Handle,
    pub(crate) incoming: Incoming,
    pub(crate) input_tx: mpsc::Sender<Input>,
}

/// Starts the driver of `ep` (its transports added already).
pub(crate) fn spawn(
    ep: Endpoint,
    udp: HashMap<TransportId, Arc<UdpSocket>>,
    outbound: TransportId,
    default: TransportId,
    stop_with_streams: bool,
) -> Spawned {
    let limits = ep.config().transport;
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let (in_tx, in_rx) = mpsc::channel(limits.inbound_queue.max(1));
    let (input_tx, input_rx) = mpsc::channel(INPUT_QUEUE);
    let (reply_tx, reply_rx) = mpsc::unbounded_channel();
    let stats = Arc::new(Mutex::new(Stats::default()));
    let driver = Driver {
        ep,
        udp,
        streams: HashMap::new(),
        tasks: HashMap::new(),
        close_waiters: HashMap::new(),
        draining: false,
        waiters: HashMap::new(),
        inbound: in_tx,
        reply_cmd: reply_tx,
        input_tx: input_tx.clone(),
        stats: stats.clone(),
        requests_refused: 0,
        events_dropped: 0,
        written: Vec::new(),
        outbound,
        stop_with_streams,
        closing: Closing {
            delay: limits.tcp_close_delay,
            linger: limits.tcp_linger,
        },
        waiting: Arc::default(),
        writing: Writing {
            pause_at: limits.tcp_write_queue.max(1),
            max_bytes: limits.tcp_write_buffer,
            max_total: limits.tcp_write_total,
            timeout: limits.tcp_write_timeout,
        },
        datagrams: Vec::new(),
        undelivered_closes: VecDeque::new(),
        held: VecDeque::new(),
        holding: HashSet::new(),
        requests_held: 0,
        at_user: HashMap::new(),
        requests_over_share: 0,
    };
    tokio::spawn(driver.run(cmd_rx, reply_rx, input_rx));
    Spawned {
        handle: Handle {
            cmd: cmd_tx,
            stats,
            default,
        },
        incoming: Incoming { rx: in_rx },
        input_tx,
    }
}

impl Driver {
    async fn run(
        mut self,
        mut cmd_rx: mpsc::UnboundedReceiver<Cmd>,
        mut reply_rx: mpsc::UnboundedReceiver<Cmd>,
        mut input_rx: mpsc::Receiver<Input>,
    ) {
        let mut cmds_open = true;
        let mut had_stream = false;
        let mut shutdown = None;
        loop {
            self.flush().await;
            had_stream |= !self.streams.is_empty();
            // A shutdown waits for the streams' graceful closes (each
            // bounded by the segment timer).
            if (shutdown.is_some() && self.streams.is_empty())
                || (!cmds_open && self.inbound.is_closed())
                || (self.stop_with_streams && had_stream && self.streams.is_empty())
            {
                break;
            }
            let deadline = self.ep.poll_timeout();
            let sleep = async move {
                match deadline {
                    Some(d) => tokio::time::sleep_until(tokio::time::Instant::from_std(d)).await,
                    None => std::future::pending().await,
                }
            };
            // The user is behind: let it take what is queued before more
            // comes in (on a one-thread runtime it runs only when we
            // yield), rather than refuse what a moment would have served.
            if self.user_behind() {
                tokio::task::yield_now().await;
            }
            let inbound = self.inbound.clone();
            // Messages taken in this turn, each perhaps a request for the
            // user (handed over at the next flush).
            let mut taken = 0;
            tokio::select! {
                cmd = cmd_rx.recv(), if cmds_open => match cmd {
                    Some(Cmd::Shutdown { tx }) => {
                        shutdown = Some(tx);
                        self.drain();
                    }
                    Some(cmd) => self.command(cmd),
                    None => cmds_open = false,
                },
                Some(cmd) = reply_rx.recv() => self.command(cmd),
                () = inbound.closed(), if !cmds_open => break,
                Some(input) = input_rx.recv() => {
                    taken = input.datagrams();
                    self.input(input);
                }
                () = sleep => self.ep.handle_timeout(Instant::now()),
                permit = inbound.reserve(),
                    if !self.held.is_empty() || !self.undelivered_closes.is_empty() =>
                {
                    // Held requests first: a stream's end comes after them.
                    let next = self
                        .held
                        .pop_front()
                        .or_else(|| self.undelivered_closes.pop_front());
                    match (permit, next) {
                        (Ok(permit), Some(item)) => permit.send(item),
                        // Nobody listens any more.
                        _ => {
                            self.held.clear();
                            self.undelivered_closes.clear();
                        }
                    }
                    // As many more as there is room for, in one go.
                    while let Some(item) = self.held.pop_front() {
                        if let Err(e) = self.inbound.try_send(item) {
                            if let TrySendError::Full(item) = e {
                                self.held.push_front(item);
                            }
                            break;
                        }
                    }
                    if self.held.is_empty() {
                        self.release_streams();
                    }
                }
            }
            // Under load more is queued by now: take it before sending,
            // so that one flush (and one wake of the user) serves a burst.
            // What they hand the user waits until the flush: take no
            // more requests than half the user's queue has room for.
            let mut room = self.room_for_requests().saturating_sub(taken);
            for _ in 0..BATCH {
                if let Ok(cmd) = reply_rx.try_recv() {
                    self.command(cmd);
                } else if room == 0 {
                    break;
                } else if let Ok(input) = input_rx.try_recv() {
                    room = room.saturating_sub(input.datagrams());
                    self.input(input);
                } else {
                    break;
                }
            }
        }
        for (_, waiters) in self.waiters.drain() {
            for (_, w) in waiters {
                let _ = w.send(Err(Error::Closed));
            }
        }
        // Held requests and ends of streams the user has not had room for
        // yet come after what it has queued, before the end of the queue.
        if !self.held.is_empty() || !self.undelivered_closes.is_empty() {
            let mut rest = std::mem::take(&mut self.held);
            rest.append(&mut self.undelivered_closes);
            let inbound = self.inbound.clone();
            tokio::spawn(async move {
                for item in rest {
                    if inbound.send(item).await.is_err() {
                        break;
                    }
                }
            });
        }
        // Each stream's task writes what is queued, closes our side and
        // lingers for the peer's.
        let peers: Vec<Peer> = self.streams.drain().map(|(p, _)| p).collect();
        for peer in peers {
            self.stream_gone(peer);
        }
        if let Some(tx) = shutdown {
            let wait = self.closing.delay + self.closing.linger + Duration::from_millis(500);
            for (_, task) in self.tasks.drain() {
                let _ = tokio::time::timeout(wait, task).await;
            }
            let _ = tx.send(());
        }
    }

    /// How many more requests the queue to the user takes before it is
    /// half full (unbounded when nobody takes from it: those are answered
    /// at once).
    fn room_for_requests(&self) -> usize {
        if self.inbound.is_closed() {
            return usize::MAX;
        }
        let half = self.inbound.max_capacity() / 2;
        self.inbound.capacity().saturating_sub(half)
    }

    /// Whether the queue to the user is half full or more.
    fn user_behind(&self) -> bool {
        self.room_for_requests() == 0
    }

    /// Starts a graceful shutdown: no new connection, every stream closed
    /// gracefully.
    fn drain(&mut self) {
        self.draining = true;
        let now = Instant::now();
        let peers: Vec<Peer> = self.streams.keys().copied().collect();
        for peer in peers {
            self.ep.close(now, peer);
        }
    }

    /// The driver let go of the stream to `peer` (its task writes what is
    /// queued and closes): whoever waits for the close is told once the
    /// task is done.
    fn stream_gone(&mut self, peer: Peer) {
        let Some(waiters) = self.close_waiters.remove(&peer) else {
            return;
        };
        match self.tasks.remove(&peer) {
            Some(task) => {
                let watcher = tokio::spawn(async move {
                    let _ = task.await;
                    for w in waiters {
                        let _ = w.send(());
                    }
                });
                self.tasks.insert(peer, watcher);
            }
            None => {
                for w in waiters {
                    let _ = w.send(());
                }
            }
        }
    }

    fn input(&mut self, input: Input) {
        let now = Instant::now();
        match input {
            Input::Datagrams {
                transport,
                bytes,
                datagrams,
            } => {
                let mut start = 0;
                for (end, from) in datagrams {
                    let datagram = &bytes[start..end];
                    self.ep
                        .handle_datagram(now, Peer::new(transport, from), datagram);
                    start = end;
                }
            }
            Input::Accepted {
                transport,
                stream,
                from,
            } => {
                let peer = Peer::new(transport, from);
                // Shutting down: the connection is dropped (closed).
                if !self.draining && self.ep.handle_connected(now, peer, false) {
                    self.start_stream(peer, stream);
                }
            }
            Input::Connected { stream, tx } => {
                match stream.and_then(|s| Ok((s.peer_addr()?, s.local_addr()?, s))) {
                    Ok((addr, local, stream)) => {
                        let peer = Peer::new(self.outbound, addr);
                        self.ep.handle_connected(now, peer, true);
                        self.start_stream(peer, stream);
                        let _ = tx.send(Ok((peer, local)));
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            }
            Input::Data { peer, bytes } => self.ep.handle_stream_data(now, peer, &bytes),
            // A half-close: the peer may still read the replies it is owed.
            Input::Ended { peer, error: None } => self.ep.handle_stream_finished(now, peer),
            Input::Ended { peer, error } => {
                self.streams.remove(&peer);
                self.stream_gone(peer);
                self.ep.handle_stream_closed(now, peer, error);
            }
            Input::SlowReader { peer } => {
                self.streams.remove(&peer);
                self.stream_gone(peer);
                self.ep.abort(now, peer, CloseReason::SlowReader);
            }
        }
    }

    fn start_stream(&mut self, peer: Peer, stream: TcpStream) {
        let _ = stream.set_nodelay(true);
        let outbox = Arc::new(Outbox::new(self.waiting.clone()));
        self.streams.insert(peer, StreamTx(outbox.clone()));
        let input = self.input_tx.clone();
        let (closing, writing) = (self.closing, self.writing);
        self.tasks.retain(|_, t| !t.is_finished());
        self.tasks.insert(
            peer,
            tokio::spawn(run_stream(peer, stream, outbox, input, closing, writing)),
        );
    }

    fn command(&mut self, cmd: Cmd) {
        let now = Instant::now();
        match cmd {
            Cmd::Request {
                peer,
                actions,
                tx,
                id_tx,
            } => match self.ep.send_request(now, peer, actions) {
                Ok(id) => {
                    self.waiters.entry(peer).or_default().insert(id, tx);
                    let _ = id_tx.send(Ok(id));
                    // Its reply must be read (see `request_to_user`).
                    if self.holding.remove(&peer) {
                        self.set_held(now, peer, false);
                    }
                }
                Err(e) => {
                    let _ = id_tx.send(Err(e.into()));
                }
            },
            Cmd::Reply {
                peer,
                id,
                result,
                tx,
            } => {
                if let Entry::Occupied(mut n) = self.at_user.entry(peer) {
                    *n.get_mut() -= 1;
                    if *n.get() == 0 {
                        n.remove();
                    }
                }
                let r = self.ep.reply(now, peer, id, result);
                self.after_flush(r, tx);
            }
            Cmd::Pending { peer, id, tx } => {
                let r = self.ep.send_pending(now, peer, id);
                self.after_flush(r, tx);
            }
            Cmd::Cancel { peer } => {
                let Some(waiters) = self.waiters.get_mut(&peer) else {
                    return;
                };
                let gone: Vec<u32> = waiters
                    .iter()
                    .filter(|(_, w)| w.is_closed())
                    .map(|(id, _)| *id)
                    .collect();
                for id in gone {
                    waiters.remove(&id);
                    self.ep.cancel(peer, id);
                }
            }
            Cmd::Connect { addr, tx } => {
                let input = self.input_tx.clone();
                // A peer that never completes the handshake (a full accept
                // queue drops our SYNs) is given up on after a request's
                // whole lifetime, not after the system's minutes of SYN
                // retries.
                let limit = self.ep.config().request_timer.lifetime();
                tokio::spawn(async move {
                    let stream = match tokio::time::timeout(limit, TcpStream::connect(addr)).await {
                        Ok(r) => r,
                        Err(_) => Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!("no connection within {limit:?} (timed out)"),
                        )),
                    };
                    let _ = input.send(Input::Connected { stream, tx }).await;
                });
            }
            Cmd::Close { peer, done } => {
                if let Some(done) = done {
                    if self.streams.contains_key(&peer) {
                        self.close_waiters.entry(peer).or_default().push(done);
                    } else {
                        let _ = done.send(());
                    }
                }
                self.ep.close(now, peer);
            }
            Cmd::Refuse { peer, id } => {
                self.requests_refused += 1;
                let _ = self
                    .ep
                    .refuse(now, peer, id, error_result(503, "Service Unavailable"));
            }
            Cmd::EventDropped => self.events_dropped += 1,
            Cmd::Shutdown { .. } => {}
        }
    }

    /// A reply or pending handed to the endpoint: done once written, or
    /// failed at once. A peer that is gone (its stream closed, or it
    /// expired) took its requests with it: [`Error::Closed`].
    fn after_flush(&mut self, r: Result<(), engine::Error>, tx: Done) {
        match r {
            Ok(()) => self.written.push(tx),
            Err(engine::Error::NotConnected) => {
                let _ = tx.send(Err(Error::Closed));
            }
            Err(e) => {
                let _ = tx.send(Err(e.into()));
            }
        }
    }

    /// Sends what the endpoint has to send, closes what it closes, and
    /// hands out its events.
    async fn flush(&mut self) {
        // Handing out events may produce more to send (a request nobody
        // can take is answered at once): until nothing is left.
        loop {
            self.flush_once().await;
            if !self.ep.has_output() {
                break;
            }
        }
        self.publish_stats();
    }

    /// Makes the counters visible to handles.
    fn publish_stats(&self) {
        let mut stats = self.ep.stats();
        stats.requests_refused = self.requests_refused;
        stats.requests_held = self.requests_held;
        stats.requests_over_share = self.requests_over_share;
        stats.events_dropped = self.events_dropped;
        *self.stats.lock().unwrap_or_else(|e| e.into_inner()) = stats;
    }

    async fn flush_once(&mut self) {
        let now = Instant::now();
        // Before anything leaves: a peer that got our reply finds the
        // counters up to date.
        self.publish_stats();
        let mut datagrams = std::mem::take(&mut self.datagrams);
        while let Some(t) = self.ep.poll_transmit() {
            if self.udp.contains_key(&t.peer.transport) {
                datagrams.push(t);
            } else if let Some(queue) = self.streams.get(&t.peer) {
                // Never waits: the stream's task stops reading from a peer
                // whose queue is long, and gives up on one that takes
                // nothing for a while; this bounds its memory.
                if !queue.0.push(t.contents, &self.writing) {
                    queue.0.abort();
                    self.streams.remove(&t.peer);
                    self.stream_gone(t.peer);
                    self.ep.abort(now, t.peer, CloseReason::SlowReader);
                }
            }
        }
        self.send_datagrams(&datagrams).await;
        datagrams.clear();
        self.datagrams = datagrams;
        while let Some((peer, _)) = self.ep.poll_close() {
            // The task writes what is queued, then closes gracefully.
            self.streams.remove(&peer);
            self.stream_gone(peer);
        }
        for tx in self.written.drain(..) {
            let _ = tx.send(Ok(()));
        }
        while let Some(event) = self.ep.poll_event() {
            self.event(event);
        }
    }

    /// Sends `datagrams`, each run of them through one socket in as few
    /// system calls as the platform allows. Tokio knows a socket writable
    /// only once told so: until then (and when the buffer is full) it
    /// waits for it. A datagram that cannot be sent is like one lost on
    /// the way: the timers take care of it.
    async fn send_datagrams(&self, datagrams: &[Transmit]) {
        let mut rest = datagrams;
        while let Some(first) = rest.first() {
            let Some(sock) = self.udp.get(&first.peer.transport) else {
                rest = &rest[1..];
                continue;
            };
            let run = rest
                .iter()
                .take_while(|t| t.peer.transport == first.peer.transport)
                .count();
            let sent = send_run(sock, &rest[..run]).await;
            rest = &rest[sent.max(1).min(run)..];
        }
    }

    fn event(&mut self, event: EndpointEvent) {
        let (peer, event) = match event {
            EndpointEvent::Transaction { peer, event } => (peer, event),
            EndpointEvent::Closed { peer, reason } => {
                for (_, w) in self.waiters.remove(&peer).unwrap_or_default() {
                    let _ = w.send(Err(Error::Closed));
                }
                let error = (reason != CloseReason::PeerClosed).then_some(reason);
                return self.deliver_close(Inbound::Closed { peer, error });
            }
            // Peers admitted, evicted, ...: only while they leave half
            // the queue to requests, so that a burst of them (new peers
            // from many addresses) never gets requests refused.
            other => {
                if self.inbound.capacity() > self.inbound.max_capacity() / 2 {
                    return self.deliver(Inbound::Endpoint(other));
                }
                self.events_dropped += 1;
                return;
            }
        };
        let waiters = self.waiters.entry(peer).or_default();
        let unclaimed = match event {
            Event::ReplyReceived {
                transaction_id,
                result,
            } => match waiters.remove(&transaction_id) {
                Some(w) => {
                    let _ = w.send(Ok(result));
                    None
                }
                None => Some(Event::ReplyReceived {
                    transaction_id,
                    result,
                }),
            },
            Event::RequestTimedOut { transaction_id } => {
                finish(waiters, transaction_id, Error::Timeout, event)
            }
            Event::RequestFailed {
                transaction_id,
                ref reason,
            } => {
                let err = match reason {
                    FailReason::MessageError(e) => Error::MessageError(e.clone()),
                    FailReason::SegmentLimitExceeded => Error::SegmentLimitExceeded,
                    _ => Error::PendingLimitExceeded,
                };
                finish(waiters, transaction_id, err, event)
            }
            Event::SegmentsMissing {
                transaction_id,
                ref missing,
            } => finish(
                waiters,
                transaction_id,
                Error::SegmentsMissing(missing.clone()),
                event,
            ),
            Event::RequestReceived {
                transaction_id,
                actions,
                mid,
                version,
            } => {
                let req = IncomingRequest {
                    peer: peer.addr,
                    transaction_id,
                    actions,
                    source: peer,
                    mid,
                    version,
                    cmd: self.reply_cmd.clone(),
                    answered: false,
                };
                self.request_to_user(peer, transaction_id, req);
                None
            }
            other => Some(other),
        };
        if let Some(event) = unclaimed {
            self.deliver(Inbound::Event { peer, event });
        }
    }

    /// Hands the end of a stream to the user, after the ends still
    /// waiting for room; never drops it while there is room to keep it.
    fn deliver_close(&mut self, item: Inbound) {
        if self.undelivered_closes.is_empty() && self.held.is_empty() {
            match self.inbound.try_send(item) {
                Ok(()) => return,
                Err(TrySendError::Closed(_)) => return,
                Err(TrySendError::Full(item)) => {
                    self.undelivered_closes.push_back(item);
                    return;
                }
            }
        }
        if self.undelivered_closes.len() < MAX_UNDELIVERED_CLOSES {
            self.undelivered_closes.push_back(item);
        } else {
            self.events_dropped += 1;
        }
    }

    /// Hands a request from `peer` to the user. One from a TCP peer
    /// waits for room when the user is behind (or other requests wait
    /// already), and its stream stops being read: TCP pushes back on the
    /// peer. Otherwise, when nobody listens or the user is behind, it is
    /// answered at once (a 503 of ours within the peer's error rate
    /// limit). So is one from a TCP peer that a request of ours awaits a
    /// reply from: the user may be waiting for that reply before it takes
    /// more requests, and a stream not read would never bring it.
    fn request_to_user(&mut self, peer: Peer, transaction_id: u32, req: IncomingRequest) {
        let stream = self.streams.contains_key(&peer);
        let may_hold = stream
            && self
                .ep
                .conn(peer)
                .is_some_and(|c| c.outstanding_requests() == 0);
        let over_share = !stream && self.over_share(peer);
        // Requests held already go first: to this one the queue is full.
        let sent = if over_share || (stream && !self.held.is_empty()) {
            self.requests_over_share += u64::from(over_share);
            Err(TrySendError::Full(Inbound::Request(req)))
        } else {
            self.inbound.try_send(Inbound::Request(req))
        };
        let full = match sent {
            Ok(()) if stream => return,
            Ok(()) => {
                *self.at_user.entry(peer).or_default() += 1;
                return;
            }
            Err(TrySendError::Full(item)) if may_hold => {
                self.held.push_back(item);
                self.requests_held += 1;
                if self.holding.insert(peer) {
                    self.set_held(Instant::now(), peer, true);
                }
                return;
            }
            Err(e) => {
                let full = matches!(e, TrySendError::Full(_));
                if let Inbound::Request(mut req) = e.into_inner() {
                    req.answered = true;
                }
                full
            }
        };
        let now = Instant::now();
        if full {
            self.requests_refused += 1;
            let result = error_result(503, "Service Unavailable");
            let _ = self.ep.refuse(now, peer, transaction_id, result);
        } else {
            let result = error_result(501, "Not Implemented");
            let _ = self.ep.reply(now, peer, transaction_id, result);
        }
    }

    /// Whether `peer` (a UDP peer, whose new request this is) holds its
    /// share of the queue to the user already: while the queue is half
    /// full or more, no one peer's unanswered requests take more than
    /// half of it, so that a flooding peer cannot lock the others out.
    /// Its request is answered 503, as one that finds the queue full.
    fn over_share(&self, peer: Peer) -> bool {
        let half = self.inbound.max_capacity() / 2;
        self.user_behind() && self.at_user.get(&peer).is_some_and(|&n| n >= half)
    }

    /// Every held request has reached the user: the streams are read
    /// again.
    fn release_streams(&mut self) {
        let now = Instant::now();
        for peer in std::mem::take(&mut self.holding) {
            self.set_held(now, peer, false);
        }
    }

    /// Stops or resumes reading the stream to `peer` (its task), and its
    /// frame and idle timers (the endpoint).
    fn set_held(&mut self, now: Instant, peer: Peer, held: bool) {
        if let Some(stream) = self.streams.get(&peer) {
            stream.0.hold(held);
        }
        self.ep.handle_stream_held(now, peer, held);
    }

    fn deliver(&mut self, item: Inbound) {
        if let Err(TrySendError::Full(_)) = self.inbound.try_send(item) {
            self.events_dropped += 1;
        }
    }
}

/// Sends the first of `run` (datagrams through `sock`), as many as one
/// system call takes on Linux; how many went or were dropped.
#[cfg(target_os = "linux")]
async fn send_run(sock: &UdpSocket, run: &[Transmit]) -> usize {
    use std::os::fd::AsFd;
    let batch = || run.iter().map(|t| (&t.contents[..], t.peer.addr));
    let sent = sock
        .async_io(
            tokio::io::Interest::WRITABLE,
            || match crate::mmsg::sendmmsg(sock.as_fd(), batch()) {
                Ok(n) => Ok(n),
                Err(crate::mmsg::Sent::Full) => Err(io::ErrorKind::WouldBlock.into()),
                Err(crate::mmsg::Sent::Refused) => Err(io::ErrorKind::Other.into()),
            },
        )
        .await;
    // Refused: the first is dropped, the rest goes next time.
    sent.unwrap_or(1)
}

/// Sends the first of `run` (datagrams through `sock`); one.
#[cfg(not(target_os = "linux"))]
async fn send_run(sock: &UdpSocket, run: &[Transmit]) -> usize {
    let t = &run[0];
    match sock.try_send_to(&t.contents, t.peer.addr) {
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            let _ = sock.send_to(&t.contents, t.peer.addr).await;
        }
        _ => {}
    }
    1
}

fn finish(waiters: &mut HashMap<u32, Waiter>, id: u32, err: Error, event: Event) -> Option<Event> {
    match waiters.remove(&id) {
        Some(w) => {
            let _ = w.send(Err(err));
            None
        }
        None => Some(event),
    }
}
