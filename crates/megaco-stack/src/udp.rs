//! Megaco over UDP (RFC 3525 D.1): one datagram per message, requests
//! resent on the engine's request timer.
//!
//! [`connect`] talks to one peer; [`bind`] serves any number of peers from
//! one socket (an engine per peer address), as a controller does. Peers
//! are bounded and forgotten when idle, so that datagrams from spoofed
//! addresses cannot grow memory without limit
//! ([`crate::engine::TransportConfig`], counters in [`Endpoint::stats`]).
//!
//! ```no_run
//! use megaco::model::*;
//! use megaco_stack::{build, engine::Config, udp};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let mid = Mid::Ip4(Ip4Address { address: [127, 0, 0, 1], port: Some(2945) });
//! let (conn, _incoming) = udp::connect(
//!     "127.0.0.1:2945".parse()?,
//!     "127.0.0.1:2944".parse()?,
//!     Config::new(mid),
//! )
//! .await?;
//! let sc = build::service_change(TerminationId::root(), ServiceChangeMethod::Restart, "901");
//! let reply = conn.request(vec![sc]).await?;
//! println!("{reply:?}");
//! # Ok(())
//! # }
//! ```

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use megaco::model::{ActionRequest, TransactionResult};
use tokio::net::UdpSocket;

use crate::driver::{self, Error, Handle, Incoming, Input, Sink};
use crate::engine::Config;
use crate::Connection;

/// The largest datagram read.
const MAX_DATAGRAM: usize = 65_535;

/// A UDP socket serving any number of peers.
#[derive(Debug, Clone)]
pub struct Endpoint {
    handle: Handle,
    local: SocketAddr,
}

impl Endpoint {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// Sends a request to `peer` and waits for the reply.
    pub async fn request(
        &self,
        peer: SocketAddr,
        actions: Vec<ActionRequest>,
    ) -> Result<TransactionResult, Error> {
        self.handle.request_to(peer, actions).await
    }

    /// What the driver refused or dropped so far, and how many peers it
    /// keeps (see [`crate::engine::TransportConfig`]).
    pub fn stats(&self) -> crate::Stats {
        self.handle.stats()
    }

    /// A [`Connection`] to `peer` through this socket.
    pub fn connection(&self, peer: SocketAddr) -> Connection {
        Connection::new(self.handle.clone(), self.local, peer)
    }
}

/// Binds `local` and serves whoever sends to it. `config.reliable` is
/// forced off.
pub async fn bind(local: SocketAddr, config: Config) -> io::Result<(Endpoint, Incoming)> {
    let sock = Arc::new(UdpSocket::bind(local).await?);
    let local = sock.local_addr()?;
    let (handle, incoming) = start(sock, config);
    Ok((Endpoint { handle, local }, incoming))
}

/// Binds `local` and talks to `remote`. `config.reliable` is forced off.
///
/// Messages from other addresses are served too (they show up in
/// [`Incoming`] with their own peer address).
pub async fn connect(
    local: SocketAddr,
    remote: SocketAddr,
    config: Config,
) -> io::Result<(Connection, Incoming)> {
    let (ep, incoming) = bind(local, config).await?;
    Ok((ep.connection(remote), incoming))
}

fn start(sock: Arc<UdpSocket>, mut config: Config) -> (Handle, Incoming) {
    config.reliable = false;
    let reader_sock = sock.clone();
    driver::spawn(config, Sink::Udp(sock), move |tx| {
        tokio::spawn(async move {
            let mut buf = vec![0u8; MAX_DATAGRAM];
            loop {
                match reader_sock.recv_from(&mut buf).await {
                    Ok((n, peer)) => {
                        if tx
                            .send(Input::Message(peer, buf[..n].to_vec()))
                            .await
                            .is_err()
                        {
                            return;
                        }
                    }
                    // ICMP port unreachable and the like, reported on
                    // some systems: the peer is not there (yet).
                    Err(e)
                        if matches!(
                            e.kind(),
                            io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionReset
                        ) => {}
                    Err(e) => {
                        let _ = tx.send(Input::Closed(Some(e))).await;
                        return;
                    }
                }
            }
        })
    })
}
