//! Megaco/H.248 transactions: a sans-IO engine and thin tokio transports.
//!
//! - [`engine`]: the transaction state machine (requests, replies,
//!   pendings, acks, resends, timers). No I/O, no clock: bytes and the
//!   current time go in, bytes, events and the next deadline come out.
//! - [`udp`] and [`tcp`]: async drivers of the engine over UDP and over
//!   TCP with [`tpkt`] framing.
//! - [`codec`]: the wire encoding as data ([`Encoding`]: text, BER, PER,
//!   native), re-exported from [`megaco::codec`].
//! - [`build`]: constructors for common requests and replies.
//!
//! The engine, driven by hand between two endpoints:
//!
//! ```
//! use std::time::{Duration, Instant};
//! use megaco::model::*;
//! use megaco_stack::{build, engine::{Config, Connection, Event}};
//!
//! let mid = |a| Mid::Ip4(Ip4Address { address: [10, 0, 0, a], port: Some(2944) });
//! let mut mg = Connection::new(Config::new(mid(1)));
//! let mut mgc = Connection::new(Config::new(mid(2)));
//! let t0 = Instant::now();
//!
//! let sc = build::service_change(TerminationId::root(), ServiceChangeMethod::Restart, "901 mg col boot");
//! let id = mg.send_request(t0, vec![sc]).unwrap();
//! let lost = mg.poll_transmit().unwrap(); // this datagram is lost
//!
//! // 7 s later the request timer resends it.
//! assert_eq!(mg.poll_timeout(), Some(t0 + Duration::from_secs(7)));
//! let t1 = t0 + Duration::from_secs(7);
//! mg.handle_timeout(t1);
//! let resent = mg.poll_transmit().unwrap();
//! assert_eq!(resent, lost);
//!
//! mgc.handle_input(t1, &resent);
//! let Some(Event::RequestReceived { transaction_id, actions, .. }) = mgc.poll_event() else { panic!() };
//! mgc.reply(t1, transaction_id, build::default_replies(&actions)).unwrap();
//!
//! mg.handle_input(t1, &mgc.poll_transmit().unwrap());
//! // The registration negotiated the version (H.248.1 11.3) ...
//! assert_eq!(mg.poll_event(), Some(Event::VersionNegotiated { version: 1 }));
//! // ... and its reply came.
//! match mg.poll_event() {
//!     Some(Event::ReplyReceived { transaction_id, result: TransactionResult::ActionReplies(r) }) => {
//!         assert_eq!(transaction_id, id);
//!         assert!(matches!(r[0].command_reply[0], CommandReply::ServiceChange(_)));
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod build;
pub mod codec;
pub mod config;
#[cfg(feature = "tokio")]
mod driver;
pub mod endpoint;
pub mod engine;
#[cfg(all(target_os = "linux", feature = "tokio"))]
pub mod mmsg;
#[cfg(feature = "scenario")]
pub mod scenario;
#[cfg(feature = "tokio")]
pub mod stack;
#[cfg(feature = "tokio")]
pub mod tcp;
pub mod tpkt;
#[cfg(feature = "tokio")]
pub mod udp;

pub use codec::{DecodeError, Encoding};
#[cfg(feature = "tokio")]
pub use driver::{Error, Handle, Inbound, Incoming, IncomingRequest, OutgoingRequest, ReplySent};
pub use endpoint::{Peer, Stats};
#[cfg(feature = "tokio")]
pub use stack::Stack;

#[cfg(feature = "tokio")]
mod connection {
    use std::net::SocketAddr;

    use megaco::model::{ActionRequest, TransactionResult};

    use crate::driver::{Error, Handle, OutgoingRequest};
    use crate::endpoint::Peer;

    /// A transport connection to one peer (see [`crate::udp::connect`],
    /// [`crate::tcp::connect`]). Cheap to clone; requests may run concurrently.
    #[derive(Debug, Clone)]
    pub struct Connection {
        handle: Handle,
        local: SocketAddr,
        peer: Peer,
        /// Whether the stack serves this connection alone
        /// ([`crate::udp::connect`], [`crate::tcp::connect`]).
        owns_stack: bool,
    }

    impl Connection {
        pub(crate) fn new(handle: Handle, local: SocketAddr, peer: Peer) -> Self {
            Connection {
                handle,
                local,
                peer,
                owns_stack: false,
            }
        }

        /// The connection of a stack that serves it alone: closing it
        /// stops the stack.
        pub(crate) fn owning_its_stack(mut self) -> Self {
            self.owns_stack = true;
            self
        }

        /// Sends a request and waits for its reply. A reply holding an error
        /// descriptor is `Ok`: the peer answered.
        pub async fn request(
            &self,
            actions: Vec<ActionRequest>,
        ) -> Result<TransactionResult, Error> {
            self.handle.request(self.peer, actions).await
        }

        /// Sends a request; resolves, once the stack has numbered and sent it,
        /// to an [`OutgoingRequest`] that tells its transaction id and is
        /// awaited for the reply. Requests sent this way are in flight
        /// together:
        ///
        /// ```no_run
        /// use megaco::model::*;
        /// use megaco_stack::{build, engine::Config, udp};
        ///
        /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
        /// let config = Config::new(Mid::Device("mg1".into()));
        /// let (conn, _incoming) =
        ///     udp::connect("0.0.0.0:0".parse()?, "192.0.2.1:2944".parse()?, config).await?;
        /// let mut sent = Vec::new();
        /// for t in ["a/1", "a/2"] {
        ///     let notify = build::notify(ContextId::NULL, TerminationId::new(t), 1, "al/of");
        ///     sent.push(conn.send_request(vec![notify]).await?);
        /// }
        /// for request in sent {
        ///     let id = request.transaction_id();
        ///     println!("{id}: {:?}", request.await?);
        /// }
        /// # Ok(())
        /// # }
        /// ```
        pub async fn send_request(
            &self,
            actions: Vec<ActionRequest>,
        ) -> Result<OutgoingRequest, Error> {
            self.handle.send_request(self.peer, actions).await
        }

        /// The peer's address.
        pub fn peer_addr(&self) -> SocketAddr {
            self.peer.addr
        }

        /// The peer: address and transport.
        pub fn peer(&self) -> Peer {
            self.peer
        }

        /// Closes the connection gracefully and resolves once done. Over
        /// TCP: once the peer's SegmentReplies to our segmented replies
        /// have come (or [`Config::segment_recv_timer`] has run out), what
        /// is queued is written, our side closes first, and we read until
        /// the peer closes its side (at most
        /// [`TransportConfig::tcp_linger`]), so that our last messages are
        /// not lost to a reset. A stack of this one connection
        /// ([`crate::udp::connect`], [`crate::tcp::connect`]) stops; over
        /// UDP on a shared stack there is nothing to close.
        ///
        /// [`Config::segment_recv_timer`]: crate::config::Config::segment_recv_timer
        /// [`TransportConfig::tcp_linger`]: crate::config::TransportConfig::tcp_linger
        pub async fn close(&self) {
            if self.owns_stack {
                self.handle.close().await;
            } else {
                self.handle.close_peer_and_wait(self.peer).await;
            }
        }

        /// Our address.
        pub fn local_addr(&self) -> SocketAddr {
            self.local
        }

        /// The underlying driver handle.
        pub fn handle(&self) -> &Handle {
            &self.handle
        }
    }
}
#[cfg(feature = "tokio")]
pub use connection::Connection;
