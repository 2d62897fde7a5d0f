//! Many datagrams per system call: an [`Outbox`] of datagrams sent with
//! `sendmmsg(2)` and an [`Inbox`] filled with `recvmmsg(2)` on Linux (up
//! to [`BATCH`] datagrams a call), one `sendto`/`recvfrom` per datagram
//! elsewhere, or when a run asks for it ([`Io::PerDatagram`]) to measure
//! the difference.
//!
//! On loopback the kernel's cost per datagram (delivery into the
//! receiver's socket, its wake-up) stays; what batching saves is the
//! system call's entry and exit, the socket lookup and locking per call,
//! and the wake-ups of a poll loop that finds one datagram at a time.
//!
//! ```
//! use megaco_load::batch::{Inbox, Io, Outbox};
//! use megaco_load::net;
//!
//! let a = net::udp("127.0.0.1:0".parse().unwrap(), true)?;
//! let b = net::udp("127.0.0.1:0".parse().unwrap(), true)?;
//! let to = b.local_addr()?;
//! let mut out = Outbox::new(Io::Batched);
//! for i in 0..3u8 {
//!     out.push(to, |buf| buf.extend_from_slice(&[b'x', i]));
//! }
//! assert_eq!(out.flush(&a)?, 3);
//! let mut inbox = Inbox::new(Io::Batched);
//! let mut got = Vec::new();
//! while got.len() < 3 {
//!     inbox.recv(&b)?;
//!     got.extend(inbox.iter().map(|(bytes, from)| (bytes.to_vec(), from)));
//! }
//! assert_eq!(got[2], (vec![b'x', 2], a.local_addr()?));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io;
use std::net::SocketAddr;
#[cfg(target_os = "linux")]
use std::os::fd::AsFd;

use mio::net::UdpSocket;

use crate::net;

#[cfg(target_os = "linux")]
use megaco_stack::mmsg;
/// Datagrams per `sendmmsg`/`recvmmsg` call at most.
#[cfg(target_os = "linux")]
pub use megaco_stack::mmsg::BATCH;
/// Datagrams per `sendmmsg`/`recvmmsg` call at most.
#[cfg(not(target_os = "linux"))]
pub const BATCH: usize = 64;

/// How datagrams go through the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Io {
    /// Up to [`BATCH`] datagrams a system call (Linux; elsewhere as
    /// [`Io::PerDatagram`]).
    Batched,
    /// One system call per datagram.
    PerDatagram,
}

impl Io {
    /// Whether this platform batches ([`Io::Batched`] on Linux).
    pub fn batches(self) -> bool {
        self == Io::Batched && cfg!(target_os = "linux")
    }
}

/// Datagrams waiting to be sent from one socket, each to its own address.
#[derive(Debug)]
pub struct Outbox {
    io: Io,
    arena: Vec<u8>,
    /// End of each datagram in `arena`, and its destination.
    items: Vec<(usize, SocketAddr)>,
}

impl Outbox {
    /// An empty outbox.
    pub fn new(io: Io) -> Outbox {
        Outbox {
            io,
            arena: Vec::new(),
            items: Vec::new(),
        }
    }

    /// Appends one datagram to `to`, written by `write` into the buffer
    /// it is given (nothing is queued if it writes nothing).
    pub fn push(&mut self, to: SocketAddr, write: impl FnOnce(&mut Vec<u8>)) {
        let start = self.arena.len();
        write(&mut self.arena);
        if self.arena.len() > start {
            self.items.push((self.arena.len(), to));
        }
    }

    /// Drops every queued datagram unsent.
    pub fn clear(&mut self) {
        self.arena.clear();
        self.items.clear();
    }

    /// Datagrams queued.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether none is queued.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The `i`-th datagram and its destination.
    pub fn get(&self, i: usize) -> (&[u8], SocketAddr) {
        let start = if i == 0 { 0 } else { self.items[i - 1].0 };
        let (end, to) = self.items[i];
        (&self.arena[start..end], to)
    }

    /// Sends every queued datagram from `sock` and empties the outbox;
    /// how many went out. A full socket buffer is waited out (briefly, as
    /// [`net::send_to`] does); a datagram the kernel refuses otherwise
    /// (an unreachable peer) is dropped, as the network would.
    pub fn flush(&mut self, sock: &UdpSocket) -> io::Result<usize> {
        let sent = if self.io.batches() {
            self.flush_batched(sock)
        } else {
            let mut sent = 0;
            for i in 0..self.items.len() {
                let (bytes, to) = self.get(i);
                if net::send_to(sock, bytes, to).is_ok() {
                    sent += 1;
                }
            }
            Ok(sent)
        };
        self.clear();
        sent
    }

    #[cfg(target_os = "linux")]
    fn flush_batched(&self, sock: &UdpSocket) -> io::Result<usize> {
        let (mut done, mut sent, mut spins) = (0, 0, 0u32);
        while done < self.items.len() {
            let end = (done + BATCH).min(self.items.len());
            let batch = (done..end).map(|i| self.get(i));
            match mmsg::sendmmsg(sock.as_fd(), batch) {
                Ok(0) | Err(mmsg::Sent::Full) if spins < 100_000 => {
                    spins += 1;
                    std::thread::yield_now();
                }
                Ok(n) => {
                    done += n;
                    sent += n;
                }
                // The first datagram was refused: drop it, send the rest.
                Err(mmsg::Sent::Refused) => done += 1,
                Err(mmsg::Sent::Full) => return Err(io::ErrorKind::WouldBlock.into()),
            }
        }
        Ok(sent)
    }

    #[cfg(not(target_os = "linux"))]
    fn flush_batched(&self, _sock: &UdpSocket) -> io::Result<usize> {
        unreachable!("Io::batches is false off Linux")
    }
}

/// Datagrams received on one socket by the last [`Inbox::recv`].
#[derive(Debug)]
pub struct Inbox {
    io: Io,
    /// `BATCH` buffers of [`net::MAX_DATAGRAM`] bytes, one after another.
    bufs: Vec<u8>,
    /// Start in `bufs`, length and sender of each datagram received.
    got: Vec<(usize, usize, SocketAddr)>,
    /// Datagrams the last receive took from the socket (cut short ones
    /// included).
    taken: usize,
    truncated: u64,
}

impl Inbox {
    /// An empty inbox (`BATCH` buffers of 64 KiB when batched).
    pub fn new(io: Io) -> Inbox {
        let n = if io.batches() { BATCH } else { 1 };
        Inbox {
            io,
            bufs: vec![0; n * net::MAX_DATAGRAM],
            got: Vec::with_capacity(n),
            taken: 0,
            truncated: 0,
        }
    }

    /// Receives what `sock` holds, without waiting: up to [`BATCH`]
    /// datagrams in one system call (one when per datagram); how many.
    /// Zero when none waits. ICMP errors from earlier sends are skipped.
    pub fn recv(&mut self, sock: &UdpSocket) -> io::Result<usize> {
        self.got.clear();
        if self.io.batches() {
            #[cfg(target_os = "linux")]
            {
                let received = mmsg::recvmmsg(
                    sock.as_fd(),
                    &mut self.bufs,
                    net::MAX_DATAGRAM,
                    &mut self.got,
                )?;
                self.truncated += received.truncated;
                self.taken = received.taken;
            }
            return Ok(self.got.len());
        }
        self.taken = 0;
        loop {
            match sock.recv_from(&mut self.bufs[..net::MAX_DATAGRAM]) {
                Ok((n, from)) => {
                    self.got.push((0, n, from));
                    self.taken = 1;
                    return Ok(1);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(0),
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Whether the last [`Inbox::recv`] found the socket empty: it took
    /// fewer datagrams than it had room for (batched), or none. A loop
    /// that drains an edge-triggered socket may stop there, one system
    /// call short of the `EAGAIN` it would otherwise read: what arrives
    /// later raises a new edge.
    pub fn drained(&self) -> bool {
        let room = if self.io.batches() { BATCH } else { 1 };
        self.taken < room
    }

    /// How many datagrams the last [`Inbox::recv`] got.
    pub fn len(&self) -> usize {
        self.got.len()
    }

    /// Whether it got none.
    pub fn is_empty(&self) -> bool {
        self.got.is_empty()
    }

    /// The `i`-th datagram of the last receive and its sender.
    pub fn get(&self, i: usize) -> (&[u8], SocketAddr) {
        let (start, len, from) = self.got[i];
        (&self.bufs[start..start + len], from)
    }

    /// The datagrams of the last receive.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], SocketAddr)> + '_ {
        (0..self.got.len()).map(|i| self.get(i))
    }

    /// Datagrams cut short so far (larger than a buffer: cannot happen
    /// with 64 KiB buffers over IPv4, counted all the same).
    pub fn truncated(&self) -> u64 {
        self.truncated
    }
}
