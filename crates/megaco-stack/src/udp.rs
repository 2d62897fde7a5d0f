//! Megaco over UDP (RFC 3525 D.1): one datagram per message, requests
//! resent on the engine's request timer.
//!
//! [`connect`] talks to one peer; [`bind`] serves any number of peers from
//! one socket (an engine per peer address), as a controller does. Peers
//! are bounded and forgotten when idle, so that datagrams from spoofed
//! addresses cannot grow memory without limit
//! ([`crate::engine::TransportConfig`], counters in [`Endpoint::stats`]).
//! It is a [`Stack`] with one UDP socket; a [`Stack`] serves several.
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

use megaco::model::{ActionRequest, TransactionResult};

use crate::driver::{Error, Handle, Incoming};
use crate::engine::Config;
use crate::{Connection, Stack};

/// A UDP socket serving any number of peers (a [`Stack`] with one UDP
/// socket).
#[derive(Debug, Clone)]
pub struct Endpoint {
    stack: Stack,
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
        self.stack.handle().request_to(peer, actions).await
    }

    /// The endpoint's counters and current peers (see
    /// [`crate::engine::TransportConfig`]).
    pub fn stats(&self) -> crate::Stats {
        self.stack.stats()
    }

    /// A [`Connection`] to `peer` through this socket.
    pub fn connection(&self, peer: SocketAddr) -> Connection {
        self.stack
            .udp_connection(0, peer)
            .unwrap_or_else(|| unreachable!("a UDP endpoint has its socket"))
    }

    /// The handle of the stack.
    pub fn handle(&self) -> &Handle {
        self.stack.handle()
    }

    /// The stack.
    pub fn stack(&self) -> &Stack {
        &self.stack
    }
}

/// Binds `local` and serves whoever sends to it. `config.reliable` is
/// forced off.
pub async fn bind(local: SocketAddr, mut config: Config) -> io::Result<(Endpoint, Incoming)> {
    config.reliable = false;
    let (stack, incoming) = Stack::builder(config).udp(local).start().await?;
    let local = stack.udp_addrs()[0];
    Ok((Endpoint { stack, local }, incoming))
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
    Ok((ep.connection(remote).owning_its_stack(), incoming))
}
