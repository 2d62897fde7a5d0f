//! The tokio driver of an [`Endpoint`]: one task owns the endpoint, the
//! UDP sockets' sending side and a queue to each TCP connection's task;
//! reader, acceptor and connection tasks feed it what arrives; handles
//! talk to it over a channel.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use megaco::model::{ActionRequest, ErrorDescriptor, Mid, TransactionResult};
use megaco::EncodeError;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpStream, UdpSocket};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::endpoint::{CloseReason, Endpoint, EndpointEvent, Peer, Stats, TransportId};
use crate::engine::{self, Event, FailReason};

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
    /// ([`Config::max_outstanding_requests`](crate::engine::Config::max_outstanding_requests)).
    #[error("{0} requests already await a reply")]
    TooManyOutstanding(usize),
    /// The peer sent part of a segmented reply; these segments did not
    /// come within the segment timer (the peer got error 459).
    #[error("segments {0:?} of the reply are missing")]
    SegmentsMissing(Vec<u16>),
    /// The peer answered with a message-level error (such as 406 "Version
    /// not supported", or 400 when it cannot decode us).
    #[error("the peer answered with error {}{}", .0.error_code, .0.error_text.as_deref().map(|t| format!(" \"{t}\"")).unwrap_or_default())]
    MessageError(ErrorDescriptor),
    /// No connection to this peer.
    #[error("not connected")]
    NotConnected,
}

impl From<engine::Error> for Error {
    fn from(e: engine::Error) -> Self {
        match e {
            engine::Error::UnknownTransaction(id) => Error::UnknownTransaction(id),
            engine::Error::Encode(e) => Error::Encode(e),
            engine::Error::TooManyOutstanding(n) => Error::TooManyOutstanding(n),
            _ => Error::NotConnected,
        }
    }
}

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
    /// Close the stream to a peer gracefully.
    Close {
        peer: Peer,
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
    Datagram {
        transport: TransportId,
        from: SocketAddr,
        bytes: Vec<u8>,
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
}

/// How many inputs the reader tasks may queue for the driver; beyond
/// that they wait (UDP datagrams then drop in the kernel, TCP pushes back
/// on the peer).
pub(crate) const INPUT_QUEUE: usize = 1024;

/// What arrives from peers, in order.
#[derive(Debug)]
#[non_exhaustive]
pub enum Inbound {
    /// A request to answer.
    Request(IncomingRequest),
    /// Any other transaction event not consumed by a waiting request
    /// (pendings, acks, unexpected replies, decode errors, message-level
    /// errors, negotiated versions, ...).
    Event {
        /// Who sent it.
        peer: Peer,
        /// What happened.
        event: Event,
    },
    /// A stream closed; nothing more will arrive from it.
    Closed {
        /// Who.
        peer: Peer,
        /// Why, if not closed by the peer.
        error: Option<CloseReason>,
    },
    /// Peers admitted, evicted, refused or expired, and what was dropped
    /// (at most once per report interval).
    Endpoint(EndpointEvent),
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
/// full get error 503 ("Service Unavailable").
#[derive(Debug)]
pub struct IncomingRequest {
    /// Who sent it.
    pub peer: SocketAddr,
    /// Its transaction id.
    pub transaction_id: u32,
    /// Its actions.
    pub actions: Vec<ActionRequest>,
    source: Peer,
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
                peer: self.source,
                id: self.transaction_id,
                result: error_result(500, "Request dropped unanswered"),
                tx,
            });
        }
    }
}

fn error_result(code: u16, text: &str) -> TransactionResult {
    TransactionResult::Error(ErrorDescriptor {
        error_code: code,
        error_text: Some(text.to_string().into()),
    })
}

impl IncomingRequest {
    /// The address it came from.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// The peer: address and transport.
    pub fn source(&self) -> Peer {
        self.source
    }

    /// Its transaction id.
    pub fn transaction_id(&self) -> u32 {
        self.transaction_id
    }

    /// Its actions.
    pub fn actions(&self) -> &[ActionRequest] {
        &self.actions
    }

    /// Takes its actions out (leaving none), for a handler that consumes
    /// them before replying.
    pub fn take_actions(&mut self) -> Vec<ActionRequest> {
        std::mem::take(&mut self.actions)
    }

    /// The sender's message identifier, from the header of the message
    /// that carried the request.
    pub fn mid(&self) -> &Mid {
        &self.mid
    }

    /// The protocol version of the message that carried the request (the
    /// reply goes out in it).
    pub fn version(&self) -> u8 {
        self.version
    }

    /// Sends the reply, and resolves once it has been handed to the
    /// transport (UDP: sent; TCP: queued to the connection's writer), so
    /// that a program may exit right after a graceful
    /// [`Handle::close`]. The reply is cached and resent to duplicates of
    /// the request.
    pub async fn reply(mut self, result: TransactionResult) -> Result<(), Error> {
        self.answered = true;
        let (tx, rx) = oneshot::channel();
        self.cmd
            .send(Cmd::Reply {
                peer: self.source,
                id: self.transaction_id,
                result,
                tx,
            })
            .map_err(|_| Error::Closed)?;
        rx.await.map_err(|_| Error::Closed)?
    }

    /// Answers error 503 ("Service Unavailable"), counted as refused: the
    /// user's queue had no room for it.
    pub(crate) fn refuse(mut self) {
        self.answered = true;
        let _ = self.cmd.send(Cmd::Refuse {
            peer: self.source,
            id: self.transaction_id,
        });
    }

    /// Tells the peer we are still working on it (TransactionPending);
    /// resolves once the pending has been handed to the transport.
    pub async fn send_pending(&self) -> Result<(), Error> {
        let (tx, rx) = oneshot::channel();
        self.cmd
            .send(Cmd::Pending {
                peer: self.source,
                id: self.transaction_id,
                tx,
            })
            .map_err(|_| Error::Closed)?;
        rx.await.map_err(|_| Error::Closed)?
    }
}

/// The receiving side of a stack: requests to answer and other events.
///
/// The driver runs until this and every [`Handle`] are dropped (or, for
/// [`crate::tcp::connect`], the stream ends). Requests already handed out
/// can still be answered while it runs.
#[derive(Debug)]
pub struct Incoming {
    pub(crate) rx: mpsc::Receiver<Inbound>,
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
        Fut: Future<Output = TransactionResult> + Send + 'static,
    {
        let handler = Arc::new(handler);
        while let Some(mut req) = self.next_request().await {
            let handler = handler.clone();
            tokio::spawn(async move {
                let actions = req.take_actions();
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

/// A cloneable handle to a running stack, for sending requests.
#[derive(Debug, Clone)]
pub struct Handle {
    pub(crate) cmd: mpsc::UnboundedSender<Cmd>,
    stats: Arc<Mutex<Stats>>,
    /// The transport of [`Handle::request_to`].
    pub(crate) default: TransportId,
}

/// A request on its way: its transaction id, and a future of its reply
/// (see [`Handle::send_request`], [`crate::Connection::send_request`]).
///
/// Awaiting it gives what [`Handle::request`] gives. Dropping it before
/// the reply came cancels the transaction: it is no longer resent, and a
/// late reply is an [`Event::UnexpectedReply`].
#[derive(Debug)]
#[must_use = "dropping an OutgoingRequest cancels it"]
pub struct OutgoingRequest {
    id: u32,
    peer: Peer,
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
        self.peer.addr
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
    /// future cancels the transaction.
    pub async fn request(
        &self,
        peer: Peer,
        actions: Vec<ActionRequest>,
    ) -> Result<TransactionResult, Error> {
        self.send_request(peer, actions).await?.await
    }

    /// [`Handle::request`] to `addr` on the stack's first transport.
    pub async fn request_to(
        &self,
        addr: SocketAddr,
        actions: Vec<ActionRequest>,
    ) -> Result<TransactionResult, Error> {
        self.request(Peer::new(self.default, addr), actions).await
    }

    /// [`Handle::send_request`] to `addr` on the stack's first transport.
    pub async fn send_request_to(
        &self,
        addr: SocketAddr,
        actions: Vec<ActionRequest>,
    ) -> Result<OutgoingRequest, Error> {
        self.send_request(Peer::new(self.default, addr), actions)
            .await
    }

    /// Sends a request to `peer`; resolves, once the engine has numbered
    /// and sent it, to an [`OutgoingRequest`] that tells its transaction
    /// id and is awaited for the reply. Several requests can so be in
    /// flight at once, each known by its id.
    ///
    /// Fails at once, without sending, with [`Error::Encode`],
    /// [`Error::TooManyOutstanding`] or [`Error::NotConnected`].
    pub async fn send_request(
        &self,
        peer: Peer,
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

    /// Closes the stream to `peer` gracefully: after the SegmentReplies
    /// of our segmented replies (or their timer), once what is queued is
    /// written, our side first, then waiting a little for the peer's.
    pub fn close_peer(&self, peer: Peer) {
        let _ = self.cmd.send(Cmd::Close { peer });
    }

    /// Stops the stack gracefully: every stream is closed as
    /// [`Handle::close_peer`] does, and this resolves once they are (at
    /// most the configured linger later). Call it before a program exits
    /// right after its last message.
    pub async fn close(&self) {
        let (tx, rx) = oneshot::channel();
        if self.cmd.send(Cmd::Shutdown { tx }).is_ok() {
            let _ = rx.await;
        }
    }

    /// The endpoint's counters and current peers (see [`Stats`]).
    pub fn stats(&self) -> Stats {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The state of the driver task.
struct Driver {
    ep: Endpoint,
    udp: HashMap<TransportId, Arc<UdpSocket>>,
    /// The queue to each stream's task.
    streams: HashMap<Peer, mpsc::Sender<Vec<u8>>>,
    tasks: Vec<JoinHandle<()>>,
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
    linger: Duration,
    write_queue: usize,
}

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
        tasks: Vec::new(),
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
        linger: limits.tcp_linger,
        write_queue: limits.tcp_write_queue.max(1),
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
            if shutdown.is_some()
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
            let inbound = self.inbound.clone();
            tokio::select! {
                cmd = cmd_rx.recv(), if cmds_open => match cmd {
                    Some(Cmd::Shutdown { tx }) => shutdown = Some(tx),
                    Some(cmd) => self.command(cmd),
                    None => cmds_open = false,
                },
                Some(cmd) = reply_rx.recv() => self.command(cmd),
                () = inbound.closed(), if !cmds_open => break,
                Some(input) = input_rx.recv() => self.input(input),
                () = sleep => self.ep.handle_timeout(Instant::now()),
            }
        }
        for (_, waiters) in self.waiters.drain() {
            for (_, w) in waiters {
                let _ = w.send(Err(Error::Closed));
            }
        }
        // Each stream's task writes what is queued, closes our side and
        // lingers for the peer's.
        self.streams.clear();
        if let Some(tx) = shutdown {
            let wait = self.linger + Duration::from_millis(500);
            for task in self.tasks.drain(..) {
                let _ = tokio::time::timeout(wait, task).await;
            }
            let _ = tx.send(());
        }
    }

    fn input(&mut self, input: Input) {
        let now = Instant::now();
        match input {
            Input::Datagram {
                transport,
                from,
                bytes,
            } => self
                .ep
                .handle_datagram(now, Peer::new(transport, from), &bytes),
            Input::Accepted {
                transport,
                stream,
                from,
            } => {
                let peer = Peer::new(transport, from);
                if self.ep.handle_connected(now, peer, false) {
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
            Input::Ended { peer, error } => {
                self.streams.remove(&peer);
                self.ep.handle_stream_closed(now, peer, error);
            }
        }
    }

    fn start_stream(&mut self, peer: Peer, stream: TcpStream) {
        let _ = stream.set_nodelay(true);
        let (tx, rx) = mpsc::channel(self.write_queue);
        self.streams.insert(peer, tx);
        let input = self.input_tx.clone();
        let linger = self.linger;
        self.tasks.retain(|t| !t.is_finished());
        self.tasks
            .push(tokio::spawn(run_stream(peer, stream, rx, input, linger)));
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
                tokio::spawn(async move {
                    let stream = TcpStream::connect(addr).await;
                    let _ = input.send(Input::Connected { stream, tx }).await;
                });
            }
            Cmd::Close { peer } => self.ep.close(now, peer),
            Cmd::Refuse { peer, id } => {
                self.requests_refused += 1;
                let _ = self
                    .ep
                    .reply(now, peer, id, error_result(503, "Service Unavailable"));
            }
            Cmd::EventDropped => self.events_dropped += 1,
            Cmd::Shutdown { .. } => {}
        }
    }

    fn after_flush(&mut self, r: Result<(), engine::Error>, tx: Done) {
        match r {
            Ok(()) => self.written.push(tx),
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
        let mut stats = self.ep.stats();
        stats.requests_refused = self.requests_refused;
        stats.events_dropped = self.events_dropped;
        *self.stats.lock().unwrap_or_else(|e| e.into_inner()) = stats;
    }

    async fn flush_once(&mut self) {
        let now = Instant::now();
        while let Some(t) = self.ep.poll_transmit() {
            if let Some(sock) = self.udp.get(&t.peer.transport) {
                // Tokio knows a socket writable only once told so: until
                // then (and when the buffer is full) wait for it. A
                // datagram that cannot be sent is like one lost on the
                // way: the timers take care of it.
                match sock.try_send_to(&t.contents, t.peer.addr) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        let _ = sock.send_to(&t.contents, t.peer.addr).await;
                    }
                    _ => {}
                }
            } else if let Some(queue) = self.streams.get(&t.peer) {
                if let Err(TrySendError::Full(_)) = queue.try_send(t.contents) {
                    self.streams.remove(&t.peer);
                    self.ep.abort(now, t.peer, CloseReason::SlowReader);
                }
            }
        }
        while let Some((peer, _)) = self.ep.poll_close() {
            // The task writes what is queued, then closes gracefully.
            self.streams.remove(&peer);
        }
        for tx in self.written.drain(..) {
            let _ = tx.send(Ok(()));
        }
        while let Some(event) = self.ep.poll_event() {
            self.event(event);
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
                return self.deliver(Inbound::Closed { peer, error });
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
                if let Err(e) = self.inbound.try_send(Inbound::Request(req)) {
                    // Nobody listens, or the user is behind: answer at once.
                    let result = if let TrySendError::Full(_) = e {
                        self.requests_refused += 1;
                        error_result(503, "Service Unavailable")
                    } else {
                        error_result(501, "Not Implemented")
                    };
                    if let Inbound::Request(mut req) = e.into_inner() {
                        req.answered = true;
                    }
                    let _ = self.ep.reply(Instant::now(), peer, transaction_id, result);
                }
                None
            }
            other => Some(other),
        };
        if let Some(event) = unclaimed {
            self.deliver(Inbound::Event { peer, event });
        }
    }

    fn deliver(&mut self, item: Inbound) {
        if let Err(TrySendError::Full(_)) = self.inbound.try_send(item) {
            self.events_dropped += 1;
        }
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

/// One TCP connection: forwards what it reads to the driver, writes what
/// the driver queues; when the driver drops its queue, writes what is
/// left, closes our side and reads (discarding) until the peer closes
/// its side or `linger` passes, so that our last messages are not lost
/// to a reset.
async fn run_stream(
    peer: Peer,
    mut stream: TcpStream,
    mut out: mpsc::Receiver<Vec<u8>>,
    input: mpsc::Sender<Input>,
    linger: Duration,
) {
    let mut open = true;
    loop {
        tokio::select! {
            ready = stream.readable(), if open => {
                if let Err(e) = ready {
                    let _ = input.send(Input::Ended { peer, error: Some(e.to_string()) }).await;
                    open = false;
                    continue;
                }
                let read = {
                    let mut buf = [0u8; 4096];
                    match stream.try_read(&mut buf) {
                        Ok(0) => Ok(None),
                        Ok(n) => Ok(Some(buf[..n].to_vec())),
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                        Err(e) => Err(e),
                    }
                };
                match read {
                    Ok(Some(bytes)) => {
                        if input.send(Input::Data { peer, bytes }).await.is_err() {
                            return;
                        }
                    }
                    Ok(None) => {
                        open = false;
                        let _ = input.send(Input::Ended { peer, error: None }).await;
                    }
                    Err(e) => {
                        open = false;
                        let _ = input.send(Input::Ended { peer, error: Some(e.to_string()) }).await;
                    }
                }
            }
            bytes = out.recv() => match bytes {
                Some(bytes) => {
                    if let Err(e) = stream.write_all(&bytes).await {
                        if open {
                            let _ = input.send(Input::Ended { peer, error: Some(e.to_string()) }).await;
                        }
                        return;
                    }
                }
                None => break,
            },
        }
    }
    // Graceful close: our FIN after everything written, then wait for
    // the peer's.
    let _ = stream.shutdown().await;
    if open {
        let _ = tokio::time::timeout(linger, async {
            let mut buf = [0u8; 1024];
            loop {
                match tokio::io::AsyncReadExt::read(&mut stream, &mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
            }
        })
        .await;
    }
}
