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

use mio::net::UdpSocket;

use crate::net;

/// Datagrams per `sendmmsg`/`recvmmsg` call at most.
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
        self.arena.clear();
        self.items.clear();
        sent
    }

    #[cfg(target_os = "linux")]
    fn flush_batched(&self, sock: &UdpSocket) -> io::Result<usize> {
        let (mut done, mut sent, mut spins) = (0, 0, 0u32);
        while done < self.items.len() {
            let end = (done + BATCH).min(self.items.len());
            match linux::sendmmsg(sock, self, done..end) {
                Ok(0) | Err(linux::Sent::Full) if spins < 100_000 => {
                    spins += 1;
                    std::thread::yield_now();
                }
                Ok(n) => {
                    done += n;
                    sent += n;
                }
                // The first datagram was refused: drop it, send the rest.
                Err(linux::Sent::Refused) => done += 1,
                Err(linux::Sent::Full) => return Err(io::ErrorKind::WouldBlock.into()),
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
                let truncated = linux::recvmmsg(sock, &mut self.bufs, &mut self.got)?;
                self.truncated += truncated;
            }
            return Ok(self.got.len());
        }
        loop {
            match sock.recv_from(&mut self.bufs[..net::MAX_DATAGRAM]) {
                Ok((n, from)) => {
                    self.got.push((0, n, from));
                    return Ok(1);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(0),
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
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

#[cfg(target_os = "linux")]
mod linux {
    //! The two system calls through `nix`'s safe wrappers.

    use std::cell::RefCell;
    use std::io::{IoSlice, IoSliceMut};
    use std::net::{SocketAddr, SocketAddrV4, SocketAddrV6};
    use std::ops::Range;
    use std::os::fd::AsRawFd;

    use mio::net::UdpSocket;
    use nix::errno::Errno;
    use nix::sys::socket::{self, MsgFlags, MultiHeaders, SockaddrStorage};

    use super::{Outbox, BATCH};
    use crate::net::MAX_DATAGRAM;

    thread_local! {
        // The kernel's message headers, reused by every call of a thread;
        // one set for each call, since `sendmmsg` points a header's
        // address at the caller's (gone after the call) and `recvmmsg`
        // would then write the sender's address there.
        static SEND_HEADERS: RefCell<MultiHeaders<SockaddrStorage>> =
            RefCell::new(MultiHeaders::preallocate(BATCH, None));
        static RECV_HEADERS: RefCell<MultiHeaders<SockaddrStorage>> =
            RefCell::new(MultiHeaders::preallocate(BATCH, None));
    }

    /// Why `sendmmsg` sent nothing.
    pub(super) enum Sent {
        /// The socket's buffer is full.
        Full,
        /// The kernel refused the first datagram.
        Refused,
    }

    /// Sends the datagrams `range` of `out`; how many went.
    pub(super) fn sendmmsg(
        sock: &UdpSocket,
        out: &Outbox,
        range: Range<usize>,
    ) -> Result<usize, Sent> {
        let slices: Vec<[IoSlice<'_>; 1]> = range
            .clone()
            .map(|i| [IoSlice::new(out.get(i).0)])
            .collect();
        let addrs: Vec<Option<SockaddrStorage>> = range
            .map(|i| Some(SockaddrStorage::from(out.get(i).1)))
            .collect();
        SEND_HEADERS.with(|h| {
            let mut headers = h.borrow_mut();
            loop {
                let r = socket::sendmmsg(
                    sock.as_raw_fd(),
                    &mut headers,
                    &slices,
                    &addrs,
                    [],
                    MsgFlags::MSG_DONTWAIT,
                );
                return match r {
                    Ok(results) => Ok(results.count()),
                    Err(Errno::EINTR) => continue,
                    Err(Errno::EAGAIN) | Err(Errno::ENOBUFS) => Err(Sent::Full),
                    Err(_) => Err(Sent::Refused),
                };
            }
        })
    }

    /// Receives up to `BATCH` datagrams into `bufs` (`BATCH` buffers of
    /// `MAX_DATAGRAM` bytes), their lengths and senders into `got`;
    /// returns how many were cut short.
    pub(super) fn recvmmsg(
        sock: &UdpSocket,
        bufs: &mut [u8],
        got: &mut Vec<(usize, usize, SocketAddr)>,
    ) -> std::io::Result<u64> {
        RECV_HEADERS.with(|h| {
            let mut headers = h.borrow_mut();
            loop {
                match recv_once(sock, &mut headers, bufs, got) {
                    Err(Errno::EINTR) | Err(Errno::ECONNREFUSED) => continue,
                    Err(Errno::EAGAIN) => return Ok(0),
                    Err(e) => return Err(e.into()),
                    Ok(truncated) => return Ok(truncated),
                }
            }
        })
    }

    fn recv_once(
        sock: &UdpSocket,
        headers: &mut MultiHeaders<SockaddrStorage>,
        bufs: &mut [u8],
        got: &mut Vec<(usize, usize, SocketAddr)>,
    ) -> nix::Result<u64> {
        let mut slices: Vec<[IoSliceMut<'_>; 1]> = bufs
            .chunks_mut(MAX_DATAGRAM)
            .take(BATCH)
            .map(|b| [IoSliceMut::new(b)])
            .collect();
        let results = socket::recvmmsg(
            sock.as_raw_fd(),
            headers,
            slices.iter_mut(),
            MsgFlags::MSG_DONTWAIT,
            None,
        )?;
        let mut truncated = 0;
        for (i, m) in results.enumerate() {
            if m.flags.contains(MsgFlags::MSG_TRUNC) {
                truncated += 1;
                continue;
            }
            if let Some(from) = m.address.as_ref().and_then(address) {
                got.push((i * MAX_DATAGRAM, m.bytes, from));
            }
        }
        Ok(truncated)
    }

    fn address(a: &SockaddrStorage) -> Option<SocketAddr> {
        if let Some(v4) = a.as_sockaddr_in() {
            return Some(SocketAddr::V4(SocketAddrV4::from(*v4)));
        }
        a.as_sockaddr_in6()
            .map(|v6| SocketAddr::V6(SocketAddrV6::from(*v6)))
    }
}
