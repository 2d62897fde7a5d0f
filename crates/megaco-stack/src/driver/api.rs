//! What the user holds of a running stack: the [`Handle`] for requests,
//! the [`Incoming`] side for what arrives, and their errors.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use megaco::model::{ActionRequest, ErrorDescriptor, Mid, TransactionResult};
use megaco::EncodeError;
use tokio::sync::{mpsc, oneshot};

use super::{error_result, Cmd};
use crate::endpoint::{CloseReason, EndpointEvent, Peer, Stats, TransportId};
use crate::engine::{self, Event};

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
    /// The connection is closed (TCP stream ended, or the driver stopped);
    /// for a reply: its peer is gone (stream closed, peer expired or
    /// evicted), and its requests with it.
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
    /// The peer's segmented reply went beyond
    /// [`MAX_REPLY_SEGMENTS`](crate::engine::MAX_REPLY_SEGMENTS) segments
    /// or [`MAX_SEGMENTED_REPLY_BYTES`](crate::engine::MAX_SEGMENTED_REPLY_BYTES)
    /// bytes.
    #[error("the segmented reply exceeds the segment limits")]
    SegmentLimitExceeded,
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
/// module answers; requests over UDP that arrive while the [`Incoming`]
/// queue is full get error 503 ("Service Unavailable"), those over TCP
/// wait for room (the connection is not read meanwhile).
#[derive(Debug)]
pub struct IncomingRequest {
    /// Who sent it (read with [`peer`](Self::peer): the reply goes where
    /// the request came from, whatever a caller would write here).
    pub(super) peer: SocketAddr,
    /// Its transaction id (read with
    /// [`transaction_id`](Self::transaction_id)).
    pub(super) transaction_id: u32,
    /// Its actions.
    pub actions: Vec<ActionRequest>,
    pub(super) source: Peer,
    pub(super) mid: Mid,
    pub(super) version: u8,
    pub(super) cmd: mpsc::UnboundedSender<Cmd>,
    pub(super) answered: bool,
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
    pub async fn reply(self, result: TransactionResult) -> Result<(), Error> {
        self.send_reply(result).await
    }

    /// Hands the reply to the stack at once, without an `.await` (so a
    /// server that answers on the spot needs no task per request), and
    /// returns what tells when it has gone out: a future resolving as
    /// [`IncomingRequest::reply`] does, which may also be asked without
    /// waiting ([`ReplySent::outcome`]) or dropped.
    ///
    /// ```no_run
    /// # use megaco::model::TransactionResult;
    /// # fn answer(req: megaco_stack::IncomingRequest, result: TransactionResult) {
    /// let mut sent = req.send_reply(result);
    /// // ... later, without waiting:
    /// if let Some(Err(e)) = sent.outcome() {
    ///     eprintln!("the reply did not go out: {e}");
    /// }
    /// # }
    /// ```
    pub fn send_reply(mut self, result: TransactionResult) -> ReplySent {
        self.answered = true;
        let (tx, rx) = oneshot::channel();
        let sent = self.cmd.send(Cmd::Reply {
            peer: self.source,
            id: self.transaction_id,
            result,
            tx,
        });
        ReplySent {
            state: match sent {
                Ok(()) => SentState::Waiting(rx),
                Err(_) => SentState::Stopped,
            },
        }
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

/// A reply handed to the stack ([`IncomingRequest::send_reply`]): resolves
/// once it has been handed to the transport, or with the error that kept
/// it from going out.
#[derive(Debug)]
pub struct ReplySent {
    state: SentState,
}

#[derive(Debug)]
enum SentState {
    /// On its way: the driver tells on this receiver.
    Waiting(oneshot::Receiver<Result<(), Error>>),
    /// The stack had stopped before the reply reached it.
    Stopped,
    /// The outcome has been given.
    Taken,
}

impl ReplySent {
    /// The outcome if it is known by now, without waiting; given once:
    /// `None` while the reply is still on its way to the transport, and
    /// after the outcome has been given (here or by awaiting).
    pub fn outcome(&mut self) -> Option<Result<(), Error>> {
        let outcome = match &mut self.state {
            SentState::Waiting(rx) => match rx.try_recv() {
                Ok(r) => r,
                Err(oneshot::error::TryRecvError::Empty) => return None,
                Err(oneshot::error::TryRecvError::Closed) => Err(Error::Closed),
            },
            SentState::Stopped => Err(Error::Closed),
            SentState::Taken => return None,
        };
        self.state = SentState::Taken;
        Some(outcome)
    }
}

impl Future for ReplySent {
    type Output = Result<(), Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let outcome = match &mut self.state {
            SentState::Waiting(rx) => match Pin::new(rx).poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(r) => r.unwrap_or(Err(Error::Closed)),
            },
            // Stopped, or polled again after it resolved.
            SentState::Stopped | SentState::Taken => Err(Error::Closed),
        };
        self.state = SentState::Taken;
        Poll::Ready(outcome)
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
    pub(super) stats: Arc<Mutex<Stats>>,
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
        let _ = self.cmd.send(Cmd::Close { peer, done: None });
    }

    /// [`Handle::close_peer`], resolving once the stream is closed (at
    /// once for a peer that has none).
    pub async fn close_peer_and_wait(&self, peer: Peer) {
        let (tx, rx) = oneshot::channel();
        if self
            .cmd
            .send(Cmd::Close {
                peer,
                done: Some(tx),
            })
            .is_ok()
        {
            let _ = rx.await;
        }
    }

    /// Stops the stack gracefully: new connections are refused, every
    /// stream is closed as [`Handle::close_peer`] does (after the
    /// SegmentReplies of our segmented replies, or their timer), and this
    /// resolves once they are. Call it before a program exits right after
    /// its last message.
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
