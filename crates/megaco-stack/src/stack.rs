//! A running stack: one [`Endpoint`] driven by tokio over any number of
//! UDP sockets and TCP listeners at once, plus outgoing TCP connections.
//!
//! ```no_run
//! use megaco::model::*;
//! use megaco_stack::{build, engine::Config, Inbound, Stack};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let config = Config::new(Mid::Device("mgc".into()));
//! // One controller on the text and binary ports (as Erlang/OTP's example
//! // MGC listens), UDP and TCP: each peer is answered in its own encoding.
//! let (stack, mut incoming) = Stack::builder(config)
//!     .udp("0.0.0.0:2944".parse()?)
//!     .udp("0.0.0.0:2945".parse()?)
//!     .tcp("0.0.0.0:2944".parse()?)
//!     .tcp("0.0.0.0:2945".parse()?)
//!     .start()
//!     .await?;
//! while let Some(item) = incoming.recv().await {
//!     match item {
//!         Inbound::Request(req) => {
//!             let result = build::default_replies(req.actions());
//!             req.reply(result).await?;
//!         }
//!         Inbound::Endpoint(event) => println!("{event:?}"),
//!         _ => {}
//!     }
//! }
//! stack.handle().close().await;
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::{TcpListener, UdpSocket};
use tokio::sync::{mpsc, oneshot};

use crate::driver::{self, Cmd, Handle, Incoming, Input};
use crate::endpoint::{Endpoint, Peer, Stats, TransportId, TransportKind};
use crate::engine::Config;
use crate::Connection;

/// The largest datagram read.
const MAX_DATAGRAM: usize = 65_535;

/// What a [`Stack`] listens on, before it starts.
#[derive(Debug)]
pub struct StackBuilder {
    config: Config,
    udp: Vec<SocketAddr>,
    tcp: Vec<SocketAddr>,
    stop_with_streams: bool,
}

impl StackBuilder {
    /// Also serve UDP on `addr`.
    pub fn udp(mut self, addr: SocketAddr) -> Self {
        self.udp.push(addr);
        self
    }

    /// Also listen for TCP connections on `addr`.
    pub fn tcp(mut self, addr: SocketAddr) -> Self {
        self.tcp.push(addr);
        self
    }

    /// Stop once a stream was open and none is left (a client of one
    /// connection).
    pub(crate) fn stop_with_streams(mut self) -> Self {
        self.stop_with_streams = true;
        self
    }

    /// Binds everything and starts the stack.
    pub async fn start(self) -> io::Result<(Stack, Incoming)> {
        let buffer = self.config.transport.udp_buffer;
        let mut ep = Endpoint::new(self.config);
        let mut udp = HashMap::new();
        let mut udp_addrs = Vec::new();
        let mut readers = Vec::new();
        for addr in self.udp {
            let sock = Arc::new(bind_udp(addr, buffer)?);
            let id = ep.add_transport(TransportKind::Datagram);
            udp_addrs.push((id, sock.local_addr()?));
            udp.insert(id, sock.clone());
            readers.push((id, sock));
        }
        let mut listeners = Vec::new();
        let mut tcp_addrs = Vec::new();
        for addr in self.tcp {
            let l = TcpListener::bind(addr).await?;
            let id = ep.add_transport(TransportKind::Stream);
            tcp_addrs.push((id, l.local_addr()?));
            listeners.push((id, l));
        }
        let outbound = ep.add_transport(TransportKind::Stream);
        let default = udp_addrs
            .first()
            .or(tcp_addrs.first())
            .map_or(outbound, |(id, _)| *id);
        let spawned = driver::spawn(ep, udp, outbound, default, self.stop_with_streams);
        for (id, sock) in readers {
            tokio::spawn(read_udp(id, sock, spawned.input_tx.clone()));
        }
        for (id, l) in listeners {
            tokio::spawn(accept_tcp(id, l, spawned.input_tx.clone()));
        }
        Ok((
            Stack {
                handle: spawned.handle,
                udp: udp_addrs,
                tcp: tcp_addrs,
            },
            spawned.incoming,
        ))
    }
}

/// A running stack (see the [module documentation](self)). Cheap to
/// clone; the stack runs until every clone, every [`Handle`] and
/// [`Connection`], and the [`Incoming`] are dropped, or
/// [`Handle::close`].
#[derive(Debug, Clone)]
pub struct Stack {
    handle: Handle,
    udp: Vec<(TransportId, SocketAddr)>,
    tcp: Vec<(TransportId, SocketAddr)>,
}

impl Stack {
    /// A stack with `config`, listening on what the builder adds.
    pub fn builder(config: Config) -> StackBuilder {
        StackBuilder {
            config,
            udp: Vec::new(),
            tcp: Vec::new(),
            stop_with_streams: false,
        }
    }

    /// The bound UDP sockets, in the builder's order.
    pub fn udp_addrs(&self) -> Vec<SocketAddr> {
        self.udp.iter().map(|(_, a)| *a).collect()
    }

    /// The bound TCP listeners, in the builder's order.
    pub fn tcp_addrs(&self) -> Vec<SocketAddr> {
        self.tcp.iter().map(|(_, a)| *a).collect()
    }

    /// `addr` reached through the `n`th UDP socket.
    pub fn udp_peer(&self, n: usize, addr: SocketAddr) -> Option<Peer> {
        self.udp.get(n).map(|(id, _)| Peer::new(*id, addr))
    }

    /// A [`Connection`] to `addr` through the `n`th UDP socket.
    pub fn udp_connection(&self, n: usize, addr: SocketAddr) -> Option<Connection> {
        let (id, local) = self.udp.get(n)?;
        Some(Connection::new(
            self.handle.clone(),
            *local,
            Peer::new(*id, addr),
        ))
    }

    /// Opens a TCP connection to `addr` (TPKT framed), proven at once.
    /// A handshake that does not complete within the request timer's
    /// [lifetime](crate::engine::RequestTimer::lifetime) fails with
    /// [`io::ErrorKind::TimedOut`].
    pub async fn connect_tcp(&self, addr: SocketAddr) -> io::Result<Connection> {
        let (tx, rx) = oneshot::channel();
        self.handle
            .cmd
            .send(Cmd::Connect { addr, tx })
            .map_err(|_| io::Error::new(io::ErrorKind::NotConnected, "the stack stopped"))?;
        let (peer, local) = rx
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::NotConnected, "the stack stopped"))??;
        Ok(Connection::new(self.handle.clone(), local, peer))
    }

    /// The handle for requests, closing and counters.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// The endpoint's counters and current peers.
    pub fn stats(&self) -> Stats {
        self.handle.stats()
    }
}

/// A UDP socket bound to `addr`, with receive and send buffers of
/// `buffer` bytes if the system grants them (a smaller buffer only means
/// drops under bursts, which the timers repair).
fn bind_udp(addr: SocketAddr, buffer: Option<usize>) -> io::Result<UdpSocket> {
    use socket2::{Domain, Protocol, Socket, Type};
    let s = Socket::new(Domain::for_address(addr), Type::DGRAM, Some(Protocol::UDP))?;
    if let Some(bytes) = buffer {
        let _ = s.set_recv_buffer_size(bytes);
        let _ = s.set_send_buffer_size(bytes);
    }
    s.set_nonblocking(true)?;
    s.bind(&addr.into())?;
    UdpSocket::from_std(s.into())
}

/// Reads datagrams and hands them to the driver: on Linux up to
/// [`RECV_BATCH`] a system call and one queue item for all of them.
async fn read_udp(id: TransportId, sock: Arc<UdpSocket>, tx: mpsc::Sender<Input>) {
    let mut reader = Reader::new();
    loop {
        match reader.read(&sock).await {
            Ok(()) => {
                let Some(input) = reader.input(id) else {
                    continue;
                };
                if tx.send(input).await.is_err() {
                    return;
                }
            }
            // ICMP port unreachable and the like, reported on some
            // systems: the peer is not there (yet).
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionReset
                ) => {}
            Err(_) => {
                if tx.is_closed() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    }
}

/// Datagrams read on Linux per system call at most (a buffer of
/// [`MAX_DATAGRAM`] bytes each: 1 MiB per UDP socket).
#[cfg(target_os = "linux")]
const RECV_BATCH: usize = 16;
#[cfg(not(target_os = "linux"))]
const RECV_BATCH: usize = 1;

/// One UDP socket's receive buffers and what the last read got.
struct Reader {
    bufs: Vec<u8>,
    /// Start in `bufs`, length and sender of each datagram read.
    got: Vec<(usize, usize, SocketAddr)>,
}

impl Reader {
    fn new() -> Reader {
        Reader {
            bufs: vec![0; RECV_BATCH * MAX_DATAGRAM],
            got: Vec::with_capacity(RECV_BATCH),
        }
    }

    /// Waits for datagrams and reads what is there.
    async fn read(&mut self, sock: &UdpSocket) -> io::Result<()> {
        self.got.clear();
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsFd;
            let (bufs, got) = (&mut self.bufs, &mut self.got);
            sock.async_io(tokio::io::Interest::READABLE, || {
                let received = crate::mmsg::recvmmsg(sock.as_fd(), bufs, MAX_DATAGRAM, got)?;
                if received.taken == 0 {
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                Ok(())
            })
            .await
        }
        #[cfg(not(target_os = "linux"))]
        {
            let (n, from) = sock.recv_from(&mut self.bufs).await?;
            self.got.push((0, n, from));
            Ok(())
        }
    }

    /// What was read, copied out for the driver (one allocation for all).
    fn input(&self, transport: TransportId) -> Option<Input> {
        if self.got.is_empty() {
            return None;
        }
        let total = self.got.iter().map(|(_, len, _)| len).sum();
        let mut bytes = Vec::with_capacity(total);
        let mut datagrams = Vec::with_capacity(self.got.len());
        for &(start, len, from) in &self.got {
            bytes.extend_from_slice(&self.bufs[start..start + len]);
            datagrams.push((bytes.len(), from));
        }
        Some(Input::Datagrams {
            transport,
            bytes,
            datagrams,
        })
    }
}

async fn accept_tcp(id: TransportId, listener: TcpListener, tx: mpsc::Sender<Input>) {
    loop {
        match listener.accept().await {
            Ok((stream, from)) => {
                let input = Input::Accepted {
                    transport: id,
                    stream,
                    from,
                };
                if tx.send(input).await.is_err() {
                    return;
                }
            }
            // Out of descriptors and the like: wait a little, go on.
            Err(_) => {
                if tx.is_closed() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    }
}
