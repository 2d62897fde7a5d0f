//! The async driver shared by the UDP and TCP transports: one task owns the
//! engines (one per peer address) and the socket's sending side; a reader
//! task feeds it received messages; handles talk to it over a channel.

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use megaco::model::{ActionRequest, Mid, TransactionResult};
use megaco::EncodeError;
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::UdpSocket;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::engine::{self, Config, Event, FailReason};
use crate::tpkt;

/// Why a request or reply through a transport failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No reply came within the request timer schedule (or the long
    /// timer after a pending).
    #[error("request timed out")]
    Timeout,
    /// The peer sent more pendings than the configured limit.
    #[error("pending limit exceeded")]
    PendingLimitExceeded,
    /// The connection is closed (TCP stream ended, or the driver stopped).
    #[error("connection closed")]
    Closed,
    /// The request is not waiting for a reply (already replied, aborted
    /// or expired).
    #[error("no request {0} is waiting for a reply")]
    UnknownTransaction(u32),
    /// The message could not be encoded.
    #[error("encode: {0}")]
    Encode(#[from] EncodeError),
    /// Too many requests to this peer await a reply already
    /// ([`Config::max_outstanding_requests`]).
    #[error("{0} requests already await a reply")]
    TooManyOutstanding(usize),
    /// The peer sent part of a segmented reply; these segments did not
    /// come within [`Config::segment_recv_timer`] (the peer got error
    /// 459).
    #[error("segments {0:?} of the reply are missing")]
    SegmentsMissing(Vec<u16>),
}

impl From<engine::Error> for Error {
    fn from(e: engine::Error) -> Self {
        match e {
            engine::Error::UnknownTransaction(id) => Error::UnknownTransaction(id),
            engine::Error::Encode(e) => Error::Encode(e),
            engine::Error::TooManyOutstanding(n) => Error::TooManyOutstanding(n),
        }
    }
}

// A reply's result holds its first action reply inline; commands are
// few and short-lived, so their size does not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Cmd {
    Request {
        peer: SocketAddr,
        actions: Vec<ActionRequest>,
        tx: oneshot::Sender<Result<TransactionResult, Error>>,
        /// Told the transaction id the engine gave the request, or why
        /// it could not be sent.
        id_tx: oneshot::Sender<Result<u32, Error>>,
    },
    Reply {
        peer: SocketAddr,
        id: u32,
        result: TransactionResult,
        tx: oneshot::Sender<Result<(), Error>>,
    },
    Pending {
        peer: SocketAddr,
        id: u32,
        tx: oneshot::Sender<Result<(), Error>>,
    },
    /// A request future to `peer` was dropped: forget the requests whose
    /// waiter is gone.
    Cancel { peer: SocketAddr },
}

/// How many messages the reader tasks may queue for the driver; beyond
/// that they stop reading the socket (UDP datagrams then drop in the
/// kernel, TCP pushes back on the peer).
const INPUT_QUEUE: usize = 256;

/// Counters of what a driver refused or dropped to bound its memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Peers (engines) currently kept.
    pub peers: u64,
    /// Messages dropped because they came from a new address while
    /// [`crate::engine::TransportConfig::max_peers`] peers were kept.
    pub peers_refused: u64,
    /// Peers forgotten after
    /// [`crate::engine::TransportConfig::peer_idle_timeout`] without
    /// traffic or live transactions.
    pub peers_expired: u64,
    /// Requests answered with error 503 because the [`Incoming`] queue
    /// was full.
    pub requests_refused: u64,
    /// Other events dropped because the [`Incoming`] queue was full.
    pub events_dropped: u64,
}

#[derive(Debug, Default)]
struct Counters {
    peers: AtomicU64,
    peers_refused: AtomicU64,
    peers_expired: AtomicU64,
    requests_refused: AtomicU64,
    events_dropped: AtomicU64,
}

impl Counters {
    fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn snapshot(&self) -> Stats {
        Stats {
            peers: self.peers.load(Ordering::Relaxed),
            peers_refused: self.peers_refused.load(Ordering::Relaxed),
            peers_expired: self.peers_expired.load(Ordering::Relaxed),
            requests_refused: self.requests_refused.load(Ordering::Relaxed),
            events_dropped: self.events_dropped.load(Ordering::Relaxed),
        }
    }
}

pub(crate) enum Input {
    Message(SocketAddr, Vec<u8>),
    Closed(Option<io::Error>),
}

pub(crate) enum Sink {
    Udp(Arc<UdpSocket>),
    Tcp(OwnedWriteHalf, SocketAddr),
}

/// What arrives from peers, in order.
#[derive(Debug)]
#[non_exhaustive]
pub enum Inbound {
    /// A request to answer.
    Request(IncomingRequest),
    /// Any other engine event not consumed by a waiting
    /// [`Handle::request_to`] (pendings, acks, unexpected replies, decode
    /// errors, ...).
    Event {
        /// Who sent it.
        peer: SocketAddr,
        /// What happened.
        event: Event,
    },
    /// The connection ended (TCP); nothing more will arrive.
    Closed {
        /// Who.
        peer: SocketAddr,
        /// Why, if not a clean end of stream.
        error: Option<io::Error>,
    },
}

/// A received request, with what it takes to answer it, and where it
/// came from ([`peer`](Self::peer), [`mid`](Self::mid),
/// [`version`](Self::version)).
///
/// Dropped without [`IncomingRequest::reply`], it is answered with error
/// 500 ("Request dropped unanswered"), so that no transaction is left
/// pending forever. Requests that arrive after the [`Incoming`] is dropped
/// get error 501 ("Not Implemented"), as Erlang/OTP's default user
/// module answers; requests that arrive while the [`Incoming`] queue is
/// full ([`crate::engine::TransportConfig::inbound_queue`]) get error 503
/// ("Service Unavailable").
#[derive(Debug)]
pub struct IncomingRequest {
    /// Who sent it.
    pub peer: SocketAddr,
    /// Its transaction id.
    pub transaction_id: u32,
    /// Its actions.
    pub actions: Vec<ActionRequest>,
    mid: Mid,
    version: u8,
    cmd: mpsc::UnboundedSender<Cmd>,
    answered: bool,
}

impl Drop for IncomingRequest {
    fn drop(&mut self) {
        if !self.answered {
            let (tx, _) = oneshot::channel();
            let _ = self.cmd.send(Cmd::Reply {
                peer: self.peer,
                id: self.transaction_id,
                result: error_result(500, "Request dropped unanswered"),
                tx,
            });
        }
    }
}

fn error_result(code: u16, text: &str) -> TransactionResult {
    TransactionResult::Error(megaco::model::ErrorDescriptor {
        error_code: code,
        error_text: Some(text.to_string().into()),
    })
}

impl IncomingRequest {
    /// The address it came from.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// Its transaction id.
    pub fn transaction_id(&self) -> u32 {
        self.transaction_id
    }

    /// Its actions.
    pub fn actions(&self) -> &[ActionRequest] {
        &self.actions
    }

    /// The sender's message identifier, from the header of the message
    /// that carried the request.
    pub fn mid(&self) -> &Mid {
        &self.mid
    }

    /// The protocol version of the message that carried the request.
    pub fn version(&self) -> u8 {
        self.version
    }

    /// Sends the reply, and resolves once it has been handed to the
    /// transport (UDP: sent; TCP: written to the stream), so that a
    /// program may exit right after. The reply is cached and resent to
    /// duplicates of the request, as the engine does.
    pub async fn reply(mut self, result: TransactionResult) -> Result<(), Error> {
        self.answered = true;
        let (tx, rx) = oneshot::channel();
        self.cmd
            .send(Cmd::Reply {
                peer: self.peer,
                id: self.transaction_id,
                result,
                tx,
            })
            .map_err(|_| Error::Closed)?;
        rx.await.map_err(|_| Error::Closed)?
    }

    /// Tells the peer we are still working on it (TransactionPending);
    /// resolves once the pending has been handed to the transport.
    pub async fn send_pending(&self) -> Result<(), Error> {
        let (tx, rx) = oneshot::channel();
        self.cmd
            .send(Cmd::Pending {
                peer: self.peer,
                id: self.transaction_id,
                tx,
            })
            .map_err(|_| Error::Closed)?;
        rx.await.map_err(|_| Error::Closed)?
    }
}

/// The receiving side of a transport: requests to answer and other events.
///
/// The driver runs until this and every [`Handle`]/[`crate::Connection`]
/// are dropped, or the TCP stream ends. Requests already handed out can
/// still be answered while it runs.
#[derive(Debug)]
pub struct Incoming {
    rx: mpsc::Receiver<Inbound>,
}

impl Incoming {
    /// The next request or event; `None` once the driver has stopped.
    pub async fn recv(&mut self) -> Option<Inbound> {
        self.rx.recv().await
    }

    /// Answers every request with `handler`, each in its own task (so a
    /// slow answer does not hold up the others), until the driver stops.
    /// Other inbound items are dropped.
    ///
    /// ```no_run
    /// use megaco::model::*;
    /// use megaco_stack::{build, engine::Config, udp};
    ///
    /// # async fn run() -> std::io::Result<()> {
    /// let mid = Mid::Device("mgc".into());
    /// let (_endpoint, incoming) = udp::bind("0.0.0.0:2944".parse().unwrap(), Config::new(mid)).await?;
    /// incoming
    ///     .serve(|peer, actions| async move {
    ///         println!("{peer}: {} actions", actions.len());
    ///         build::default_replies(&actions)
    ///     })
    ///     .await;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn serve<F, Fut>(mut self, handler: F)
    where
        F: Fn(SocketAddr, Vec<ActionRequest>) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = TransactionResult> + Send + 'static,
    {
        let handler = Arc::new(handler);
        while let Some(mut req) = self.next_request().await {
            let handler = handler.clone();
            tokio::spawn(async move {
                let actions = std::mem::take(&mut req.actions);
                let result = handler(req.peer, actions).await;
                let _ = req.reply(result).await;
            });
        }
    }

    /// The next request, skipping other events; `None` once the driver
    /// has stopped.
    pub async fn next_request(&mut self) -> Option<IncomingRequest> {
        loop {
            match self.rx.recv().await? {
                Inbound::Request(r) => return Some(r),
                _ => continue,
            }
        }
    }
}

/// A cloneable handle to a running driver, for sending requests.
#[derive(Debug, Clone)]
pub struct Handle {
    cmd: mpsc::UnboundedSender<Cmd>,
    counters: Arc<Counters>,
}

/// A request on its way: its transaction id, and a future of its reply
/// (see [`Handle::send_request_to`], [`crate::Connection::send_request`]).
///
/// Awaiting it gives what [`Handle::request_to`] gives. Dropping it before
/// the reply came cancels the transaction: it is no longer resent, and a
/// late reply is an [`Event::UnexpectedReply`].
#[derive(Debug)]
#[must_use = "dropping an OutgoingRequest cancels it"]
pub struct OutgoingRequest {
    id: u32,
    peer: SocketAddr,
    rx: oneshot::Receiver<Result<TransactionResult, Error>>,
    cmd: mpsc::UnboundedSender<Cmd>,
    done: bool,
}

impl OutgoingRequest {
    /// The transaction id the stack gave the request: the one the peer
    /// sees and answers.
    pub fn transaction_id(&self) -> u32 {
        self.id
    }

    /// Where it went.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }
}

impl Future for OutgoingRequest {
    type Output = Result<TransactionResult, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match Pin::new(&mut self.rx).poll(cx) {
            Poll::Ready(answer) => {
                self.done = true;
                Poll::Ready(answer.map_err(|_| Error::Closed).and_then(|r| r))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for OutgoingRequest {
    fn drop(&mut self) {
        if !self.done {
            // Closed first, so that the driver sees the waiter gone when
            // the cancel arrives.
            self.rx.close();
            let _ = self.cmd.send(Cmd::Cancel { peer: self.peer });
        }
    }
}

impl Handle {
    /// Sends a request to `peer` and waits for its reply.
    ///
    /// A reply carrying an error descriptor is `Ok`
    /// ([`TransactionResult::Error`]): the peer answered. Dropping the
    /// future cancels the transaction: it is no longer resent, and a late
    /// reply is an [`Event::UnexpectedReply`].
    pub async fn request_to(
        &self,
        peer: SocketAddr,
        actions: Vec<ActionRequest>,
    ) -> Result<TransactionResult, Error> {
        self.send_request_to(peer, actions).await?.await
    }

    /// Sends a request to `peer`; resolves, once the engine has numbered
    /// and sent it, to an [`OutgoingRequest`] that tells its transaction
    /// id and is awaited for the reply. Several requests can so be in
    /// flight at once, each known by its id.
    ///
    /// Fails at once, without sending, with [`Error::Encode`] or
    /// [`Error::TooManyOutstanding`].
    pub async fn send_request_to(
        &self,
        peer: SocketAddr,
        actions: Vec<ActionRequest>,
    ) -> Result<OutgoingRequest, Error> {
        let (tx, rx) = oneshot::channel();
        let (id_tx, id_rx) = oneshot::channel();
        self.cmd
            .send(Cmd::Request {
                peer,
                actions,
                tx,
                id_tx,
            })
            .map_err(|_| Error::Closed)?;
        // Dropped while waiting for the id, it cancels the request.
        let mut request = OutgoingRequest {
            id: 0,
            peer,
            rx,
            cmd: self.cmd.clone(),
            done: false,
        };
        match id_rx.await {
            Ok(Ok(id)) => {
                request.id = id;
                Ok(request)
            }
            Ok(Err(e)) => {
                request.done = true;
                Err(e)
            }
            Err(_) => {
                request.done = true;
                Err(Error::Closed)
            }
        }
    }

    /// What the driver refused or dropped so far to bound its memory, and
    /// how many peers it keeps.
    pub fn stats(&self) -> Stats {
        self.counters.snapshot()
    }
}

type Waiter = oneshot::Sender<Result<TransactionResult, Error>>;

struct Peer {
    conn: engine::Connection,
    waiters: HashMap<u32, Waiter>,
    /// The deadline of this peer's entry in [`Driver::timers`].
    armed: Option<Instant>,
    /// When it last sent us something or we it.
    last_active: Instant,
}

struct Driver {
    config: Config,
    peers: HashMap<SocketAddr, Peer>,
    sink: Sink,
    inbound: mpsc::Sender<Inbound>,
    counters: Arc<Counters>,
    /// Given to each [`IncomingRequest`]; separate from the handles'
    /// channel so that a reply can be sent after every handle is gone.
    reply_cmd: mpsc::UnboundedSender<Cmd>,
    /// Peers whose engine was handed something since the last flush.
    dirty: Vec<SocketAddr>,
    /// The next deadline of every peer that has one, soonest first.
    timers: BTreeSet<(Instant, SocketAddr)>,
    /// Replies and pendings handed to the engines since the last flush:
    /// told when their bytes have gone to the transport.
    written: Vec<oneshot::Sender<Result<(), Error>>>,
}

/// Starts a driver; returns its handle and the receiving side.
pub(crate) fn spawn(
    config: Config,
    sink: Sink,
    reader: impl FnOnce(mpsc::Sender<Input>) -> JoinHandle<()>,
) -> (Handle, Incoming) {
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let (in_tx, in_rx) = mpsc::channel(config.transport.inbound_queue.max(1));
    let (input_tx, input_rx) = mpsc::channel(INPUT_QUEUE);
    let (reply_tx, reply_rx) = mpsc::unbounded_channel();
    let reader = reader(input_tx);
    let counters = Arc::new(Counters::default());
    let driver = Driver {
        config,
        peers: HashMap::new(),
        sink,
        inbound: in_tx,
        counters: counters.clone(),
        reply_cmd: reply_tx,
        dirty: Vec::new(),
        timers: BTreeSet::new(),
        written: Vec::new(),
    };
    tokio::spawn(driver.run(cmd_rx, reply_rx, input_rx, reader));
    (
        Handle {
            cmd: cmd_tx,
            counters,
        },
        Incoming { rx: in_rx },
    )
}

impl Driver {
    /// The peer at `addr` (created if new), marked for the next flush.
    fn peer(&mut self, addr: SocketAddr, now: Instant) -> &mut Peer {
        self.dirty.push(addr);
        let config = &self.config;
        let counters = &self.counters;
        let p = self.peers.entry(addr).or_insert_with(|| {
            counters.peers.fetch_add(1, Ordering::Relaxed);
            Peer {
                conn: engine::Connection::new(config.clone()),
                waiters: HashMap::new(),
                armed: None,
                last_active: now,
            }
        });
        p.last_active = now;
        p
    }

    /// A message from `addr`: to its engine, unless it is a new peer
    /// beyond the bound.
    fn input(&mut self, addr: SocketAddr, bytes: &[u8]) {
        if !self.peers.contains_key(&addr) && self.peers.len() >= self.config.transport.max_peers {
            Counters::bump(&self.counters.peers_refused);
            return;
        }
        let now = Instant::now();
        self.peer(addr, now).conn.handle_input(now, bytes);
    }

    /// Timers due at `now`: the engines', and the idle expiry of peers.
    fn timers_due(&mut self, now: Instant) {
        while let Some(&(at, addr)) = self.timers.first() {
            if at > now {
                break;
            }
            self.timers.pop_first();
            let idle = self.config.transport.peer_idle_timeout;
            let Some(p) = self.peers.get_mut(&addr) else {
                continue;
            };
            p.armed = None;
            if p.conn.is_idle()
                && p.waiters.is_empty()
                && now.saturating_duration_since(p.last_active) >= idle
            {
                self.peers.remove(&addr);
                self.counters.peers.fetch_sub(1, Ordering::Relaxed);
                Counters::bump(&self.counters.peers_expired);
                continue;
            }
            p.conn.handle_timeout(now);
            self.dirty.push(addr);
        }
    }

    async fn run(
        mut self,
        mut cmd_rx: mpsc::UnboundedReceiver<Cmd>,
        mut reply_rx: mpsc::UnboundedReceiver<Cmd>,
        mut input_rx: mpsc::Receiver<Input>,
        reader: JoinHandle<()>,
    ) {
        let mut cmds_open = true;
        let mut close_error = None;
        loop {
            if !self.flush().await {
                break;
            }
            if !cmds_open && self.inbound.is_closed() {
                break;
            }
            let deadline = self.timers.first().map(|(at, _)| *at);
            let sleep = async move {
                match deadline {
                    Some(d) => tokio::time::sleep_until(tokio::time::Instant::from_std(d)).await,
                    None => std::future::pending().await,
                }
            };
            let inbound = self.inbound.clone();
            tokio::select! {
                cmd = cmd_rx.recv(), if cmds_open => match cmd {
                    Some(cmd) => self.command(cmd),
                    None => cmds_open = false,
                },
                Some(cmd) = reply_rx.recv() => self.command(cmd),
                () = inbound.closed(), if !cmds_open => break,
                input = input_rx.recv() => match input {
                    Some(Input::Message(peer, bytes)) => self.input(peer, &bytes),
                    Some(Input::Closed(e)) => {
                        close_error = e;
                        break;
                    }
                    None => break,
                },
                () = sleep => self.timers_due(Instant::now()),
            }
        }
        reader.abort();
        for (_, p) in self.peers.drain() {
            for (_, w) in p.waiters {
                let _ = w.send(Err(Error::Closed));
            }
        }
        self.counters.peers.store(0, Ordering::Relaxed);
        if let Sink::Tcp(write, peer) = self.sink {
            // Close our side first: the user may be slow to take the news.
            drop(write);
            let _ = self
                .inbound
                .send(Inbound::Closed {
                    peer,
                    error: close_error,
                })
                .await;
        }
    }

    fn command(&mut self, cmd: Cmd) {
        let now = Instant::now();
        match cmd {
            Cmd::Request {
                peer,
                actions,
                tx,
                id_tx,
            } => {
                let p = self.peer(peer, now);
                match p.conn.send_request(now, actions) {
                    Ok(id) => {
                        p.waiters.insert(id, tx);
                        let _ = id_tx.send(Ok(id));
                    }
                    Err(e) => {
                        let _ = id_tx.send(Err(e.into()));
                    }
                }
            }
            Cmd::Reply {
                peer,
                id,
                result,
                tx,
            } => {
                let r = self.peer(peer, now).conn.reply(now, id, result);
                self.after_flush(r, tx);
            }
            Cmd::Pending { peer, id, tx } => {
                let r = self.peer(peer, now).conn.send_pending(now, id);
                self.after_flush(r, tx);
            }
            Cmd::Cancel { peer } => {
                let Some(p) = self.peers.get_mut(&peer) else {
                    return;
                };
                let gone: Vec<u32> = p
                    .waiters
                    .iter()
                    .filter(|(_, w)| w.is_closed())
                    .map(|(id, _)| *id)
                    .collect();
                for id in gone {
                    p.waiters.remove(&id);
                    p.conn.cancel(id);
                }
                self.dirty.push(peer);
            }
        }
    }

    /// Answers `tx` with an engine error now, or with success once the
    /// next flush has written what the engine queued.
    fn after_flush(
        &mut self,
        r: Result<(), engine::Error>,
        tx: oneshot::Sender<Result<(), Error>>,
    ) {
        match r {
            Ok(()) => self.written.push(tx),
            Err(e) => {
                let _ = tx.send(Err(e.into()));
            }
        }
    }

    /// Sends what the engines have to send and hands out their events.
    /// Returns false if the transport failed.
    async fn flush(&mut self) -> bool {
        // Dropped unanswered if the transport fails: their waiters see
        // `Error::Closed`.
        let written = std::mem::take(&mut self.written);
        let mut out: Vec<(SocketAddr, Vec<u8>)> = Vec::new();
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.sort_unstable();
        dirty.dedup();
        for addr in dirty {
            let Some(p) = self.peers.get_mut(&addr) else {
                continue;
            };
            while let Some(bytes) = p.conn.poll_transmit() {
                out.push((addr, bytes));
            }
            while let Some(event) = p.conn.poll_event() {
                let unclaimed = match event {
                    Event::ReplyReceived {
                        transaction_id,
                        result,
                    } => match p.waiters.remove(&transaction_id) {
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
                        finish(&mut p.waiters, transaction_id, Error::Timeout, event)
                    }
                    Event::RequestFailed {
                        transaction_id,
                        reason: FailReason::PendingLimitExceeded,
                    } => finish(
                        &mut p.waiters,
                        transaction_id,
                        Error::PendingLimitExceeded,
                        event,
                    ),
                    Event::SegmentsMissing {
                        transaction_id,
                        ref missing,
                    } => finish(
                        &mut p.waiters,
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
                            peer: addr,
                            transaction_id,
                            actions,
                            mid,
                            version,
                            cmd: self.reply_cmd.clone(),
                            answered: false,
                        };
                        if let Err(e) = self.inbound.try_send(Inbound::Request(req)) {
                            // Nobody listens, or the user is behind:
                            // answer at once.
                            let result = if let TrySendError::Full(_) = e {
                                Counters::bump(&self.counters.requests_refused);
                                error_result(503, "Service Unavailable")
                            } else {
                                error_result(501, "Not Implemented")
                            };
                            if let Inbound::Request(mut req) = e.into_inner() {
                                req.answered = true;
                            }
                            let _ = p.conn.reply(Instant::now(), transaction_id, result);
                            while let Some(bytes) = p.conn.poll_transmit() {
                                out.push((addr, bytes));
                            }
                        }
                        None
                    }
                    other => Some(other),
                };
                if let Some(event) = unclaimed {
                    let item = Inbound::Event { peer: addr, event };
                    if let Err(TrySendError::Full(_)) = self.inbound.try_send(item) {
                        Counters::bump(&self.counters.events_dropped);
                    }
                }
            }
            // With nothing live, the peer's only timer is its idle expiry.
            let next = p.conn.poll_timeout().or_else(|| {
                (p.conn.is_idle() && p.waiters.is_empty())
                    .then(|| p.last_active + self.config.transport.peer_idle_timeout)
            });
            if next != p.armed {
                if let Some(old) = p.armed {
                    self.timers.remove(&(old, addr));
                }
                if let Some(at) = next {
                    self.timers.insert((at, addr));
                }
                p.armed = next;
            }
        }
        for (addr, bytes) in out {
            match &mut self.sink {
                // A datagram that cannot be sent is like one lost on the
                // way: the timers take care of it.
                Sink::Udp(sock) => {
                    let _ = sock.send_to(&bytes, addr).await;
                }
                Sink::Tcp(w, _) => {
                    let Ok(h) = tpkt::header(bytes.len()) else {
                        continue;
                    };
                    let mut framed = Vec::with_capacity(bytes.len() + tpkt::HEADER_LEN);
                    framed.extend_from_slice(&h);
                    framed.extend_from_slice(&bytes);
                    if w.write_all(&framed).await.is_err() {
                        return false;
                    }
                }
            }
        }
        for tx in written {
            let _ = tx.send(Ok(()));
        }
        true
    }
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
