//! Megaco over TCP (RFC 3525 D.2): messages framed with TPKT (RFC 1006),
//! never resent (the transport is reliable; the request timer still bounds
//! the wait for a reply).
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
//! # Ok(())
//! # }
//! ```

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::driver::{self, Incoming, Input, Sink};
use crate::engine::Config;
use crate::{tpkt, Connection};

/// Connects to `remote`. `config.reliable` is forced on.
pub async fn connect(remote: SocketAddr, config: Config) -> io::Result<(Connection, Incoming)> {
    let stream = TcpStream::connect(remote).await?;
    start(stream, config)
}

/// Runs the engine over an established stream (TPKT framed both ways).
/// `config.reliable` is forced on.
pub fn start(stream: TcpStream, config: Config) -> io::Result<(Connection, Incoming)> {
    start_holding(stream, config, None)
}

/// [`start`], holding `slot` (a [`Listener`]'s connection slot) until the
/// stream ends.
fn start_holding(
    stream: TcpStream,
    mut config: Config,
    slot: Option<OwnedSemaphorePermit>,
) -> io::Result<(Connection, Incoming)> {
    config.reliable = true;
    stream.set_nodelay(true)?;
    let local = stream.local_addr()?;
    let peer = stream.peer_addr()?;
    let (mut read, write) = stream.into_split();
    let idle = config.transport.tcp_idle_timeout;
    let (handle, incoming) = driver::spawn(config, Sink::Tcp(write, peer), move |tx| {
        tokio::spawn(async move {
            // released when the peer closes or the engine goes away
            let _slot = slot;
            loop {
                let frame = tpkt::read_frame(&mut read, tpkt::MAX_PAYLOAD);
                let frame = match idle {
                    None => frame.await,
                    Some(idle) => match tokio::time::timeout(idle, frame).await {
                        Ok(frame) => frame,
                        Err(_) => Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!("no message for {idle:?}"),
                        )),
                    },
                };
                match frame {
                    Ok(Some(msg)) => {
                        if tx.send(Input::Message(peer, msg)).await.is_err() {
                            return;
                        }
                    }
                    Ok(None) => {
                        let _ = tx.send(Input::Closed(None)).await;
                        return;
                    }
                    Err(e) => {
                        let _ = tx.send(Input::Closed(Some(e))).await;
                        return;
                    }
                }
            }
        })
    });
    Ok((Connection::new(handle, local, peer), incoming))
}

/// A listening socket; each accepted stream gets its own engine.
///
/// At most [`TransportConfig::max_peers`](crate::engine::TransportConfig::max_peers)
/// connections are open at once: a connection beyond that is closed as
/// soon as it is accepted and counted ([`Listener::refused`]). A slot is
/// free again when its peer closes the stream or the connection's
/// [`Connection`] and [`Incoming`] are dropped.
#[derive(Debug)]
pub struct Listener {
    inner: TcpListener,
    config: Config,
    slots: Arc<Semaphore>,
    refused: AtomicU64,
}

impl Listener {
    /// Listens on `local`.
    pub async fn bind(local: SocketAddr, config: Config) -> io::Result<Self> {
        let slots = Arc::new(Semaphore::new(
            config.transport.max_peers.min(Semaphore::MAX_PERMITS),
        ));
        Ok(Listener {
            inner: TcpListener::bind(local).await?,
            config,
            slots,
            refused: AtomicU64::new(0),
        })
    }

    /// How many connections were closed on arrival because
    /// `max_peers` connections were open.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }

    /// Waits for the next connection within the limit (connections
    /// beyond it are closed and counted while waiting).
    pub async fn accept(&self) -> io::Result<(Connection, Incoming)> {
        loop {
            let (stream, _) = self.inner.accept().await?;
            match self.slots.clone().try_acquire_owned() {
                Ok(slot) => return start_holding(stream, self.config.clone(), Some(slot)),
                Err(_) => {
                    self.refused.fetch_add(1, Ordering::Relaxed);
                    drop(stream);
                }
            }
        }
    }
}
