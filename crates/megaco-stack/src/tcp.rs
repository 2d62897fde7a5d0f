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

use tokio::net::{TcpListener, TcpStream};

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
pub fn start(stream: TcpStream, mut config: Config) -> io::Result<(Connection, Incoming)> {
    config.reliable = true;
    stream.set_nodelay(true)?;
    let local = stream.local_addr()?;
    let peer = stream.peer_addr()?;
    let (mut read, write) = stream.into_split();
    let (handle, incoming) = driver::spawn(config, Sink::Tcp(write, peer), move |tx| {
        tokio::spawn(async move {
            loop {
                match tpkt::read_frame(&mut read, tpkt::MAX_PAYLOAD).await {
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
#[derive(Debug)]
pub struct Listener {
    inner: TcpListener,
    config: Config,
}

impl Listener {
    /// Listens on `local`.
    pub async fn bind(local: SocketAddr, config: Config) -> io::Result<Self> {
        Ok(Listener {
            inner: TcpListener::bind(local).await?,
            config,
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }

    /// Waits for the next connection.
    pub async fn accept(&self) -> io::Result<(Connection, Incoming)> {
        let (stream, _) = self.inner.accept().await?;
        start(stream, self.config.clone())
    }
}
