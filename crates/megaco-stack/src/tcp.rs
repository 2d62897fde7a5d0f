//! Megaco over TCP (RFC 3525 D.2): messages framed with TPKT (RFC 1006),
//! never resent (the transport is reliable; the request timer still bounds
//! the wait for a reply).
//!
//! [`connect`] opens one connection; [`Listener`] serves incoming ones,
//! handing out each connection's requests on its own [`Incoming`]. Both
//! are a [`Stack`] underneath: connections are peers of one endpoint,
//! with its admission, idle and frame timeouts (a TPKT header announcing
//! bytes that never come, one byte a second) and graceful close. A
//! [`Stack`] also serves TCP and UDP at once.
//!
//! ```no_run
//! use megaco::model::*;
//! use megaco_stack::{build, engine::Config, tcp};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let mid = |a| Mid::Ip4(Ip4Address { address: [127, 0, 0, a], port: Some(2944) });
//! // Controller: answer every request with the default replies.
//! let listener = tcp::Listener::bind("127.0.0.1:2944".parse()?, Config::new(mid(1))).await?;
//! tokio::spawn(async move {
//!     while let Ok((_conn, mut incoming)) = listener.accept().await {
//!         tokio::spawn(async move {
//!             while let Some(req) = incoming.next_request().await {
//!                 let result = build::default_replies(&req.actions);
//!                 let _ = req.reply(result).await;
//!             }
//!         });
//!     }
//! });
//! // Gateway.
//! let (conn, _incoming) = tcp::connect("127.0.0.1:2944".parse()?, Config::new(mid(2))).await?;
//! let sc = build::service_change(TerminationId::root(), ServiceChangeMethod::Restart, "901");
//! println!("{:?}", conn.request(vec![sc]).await?);
//! conn.close().await; // gracefully: what we wrote reaches the peer
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;

use tokio::sync::{mpsc, Mutex};

use crate::driver::{Cmd, Inbound, Incoming};
use crate::endpoint::{Peer, Stats};
use crate::engine::Config;
use crate::{Connection, Stack};

/// Connects to `remote`. `config.reliable` is forced on. The stack stops
/// when the connection closes. A peer that does not complete the
/// handshake within `config.request_timer`'s
/// [lifetime](crate::engine::RequestTimer::lifetime) (105 s by default:
/// as long as a request would wait for its reply) fails the connect with
/// [`io::ErrorKind::TimedOut`].
pub async fn connect(remote: SocketAddr, mut config: Config) -> io::Result<(Connection, Incoming)> {
    config.reliable = true;
    let (stack, incoming) = Stack::builder(config).stop_with_streams().start().await?;
    let conn = stack.connect_tcp(remote).await?.owning_its_stack();
    Ok((conn, incoming))
}

/// A listening socket; each accepted connection has its own
/// [`Incoming`].
///
/// At most [`TransportConfig::max_unproven_peers`](crate::engine::TransportConfig::max_unproven_peers)
/// connections may wait for their first valid message (the oldest is
/// closed for a new one), at most
/// [`TransportConfig::max_peers`](crate::engine::TransportConfig::max_peers)
/// are served; beyond, connections are closed and counted
/// ([`Listener::refused`]).
///
/// Each connection's [`Incoming`] holds
/// [`TransportConfig::inbound_queue`](crate::engine::TransportConfig::inbound_queue)
/// items; a request that finds it full is answered with error 503, as
/// one connection's user being behind must not hold up the others. (A
/// [`Stack`] serving TCP has one queue, and holds a connection's
/// requests and its reading instead.)
#[derive(Debug)]
pub struct Listener {
    stack: Stack,
    local: SocketAddr,
    accepted: Mutex<mpsc::Receiver<(Connection, Incoming)>>,
}

impl Listener {
    /// Listens on `local`.
    pub async fn bind(local: SocketAddr, mut config: Config) -> io::Result<Self> {
        config.reliable = true;
        // Each connection's queue is the configured one; the stack's own
        // queue only feeds the router, which drains it at once.
        let queue = config.transport.inbound_queue.max(1);
        config.transport.inbound_queue = queue.max(crate::driver::INPUT_QUEUE);
        let (stack, incoming) = Stack::builder(config).tcp(local).start().await?;
        let local = stack.tcp_addrs()[0];
        let (tx, rx) = mpsc::channel(64);
        tokio::spawn(route(stack.clone(), incoming, tx, queue));
        Ok(Listener {
            stack,
            local,
            accepted: Mutex::new(rx),
        })
    }

    /// How many connections were closed for lack of room.
    pub fn refused(&self) -> u64 {
        self.stack.stats().peers_refused
    }

    /// The endpoint's counters.
    pub fn stats(&self) -> Stats {
        self.stack.stats()
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.local)
    }

    /// The next connection, once it has sent its first message.
    pub async fn accept(&self) -> io::Result<(Connection, Incoming)> {
        self.accepted
            .lock()
            .await
            .recv()
            .await
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "the stack stopped"))
    }
}

/// Hands each connection's items to its own queue, announcing a new
/// connection with its first item.
async fn route(
    stack: Stack,
    mut incoming: Incoming,
    accepted: mpsc::Sender<(Connection, Incoming)>,
    queue: usize,
) {
    let mut conns: HashMap<Peer, mpsc::Sender<Inbound>> = HashMap::new();
    while let Some(item) = incoming.recv().await {
        let peer = match &item {
            Inbound::Request(r) => r.source(),
            Inbound::Event { peer, .. } | Inbound::Closed { peer, .. } => *peer,
            _ => continue,
        };
        let closed = matches!(item, Inbound::Closed { .. });
        if !conns.contains_key(&peer) && !closed {
            let (tx, rx) = mpsc::channel(queue);
            let local = stack.tcp_addrs()[0];
            let conn = Connection::new(stack.handle().clone(), local, peer);
            if accepted.send((conn, Incoming { rx })).await.is_err() {
                return;
            }
            conns.insert(peer, tx);
        }
        let Some(tx) = (if closed {
            conns.remove(&peer)
        } else {
            conns.get(&peer).cloned()
        }) else {
            continue;
        };
        match tx.try_send(item) {
            Ok(()) => {}
            // The connection's user is behind: a request gets 503, other
            // events are dropped (both counted), and the end of the
            // stream waits for room, so that the user learns of it after
            // what is queued.
            Err(mpsc::error::TrySendError::Full(item)) => match item {
                Inbound::Request(req) => req.refuse(),
                item @ Inbound::Closed { .. } => {
                    tokio::spawn(async move {
                        let _ = tx.send(item).await;
                    });
                }
                _ => {
                    let _ = stack.handle().cmd.send(Cmd::EventDropped);
                }
            },
            // The user dropped that connection's Incoming: a request is
            // answered 500 as it is dropped.
            Err(mpsc::error::TrySendError::Closed(_)) => {}
        }
    }
}
