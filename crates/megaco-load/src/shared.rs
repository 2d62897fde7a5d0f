//! One UDP socket answering for many loopback addresses (Linux, IPv4).
//!
//! Every address of `127.0.0.0/8` is local on Linux, so simulated
//! gateways can each have their own address (`127.1.x.y`, all on one
//! port, as real gateways each have their own address and port 2944)
//! behind a single socket bound to `0.0.0.0`: `IP_PKTINFO` tells, for each
//! datagram received, the address it was sent to, and sets, for each
//! datagram sent, the address it comes from. A thread then reads the
//! requests for all its gateways with one `recvmmsg(2)` per batch instead
//! of one system call (and one poll event) per gateway, so the gateways'
//! own cost stays small beside the controller's that a fan-out measures.
//!
//! Datagrams addressed to anything but a gateway's address (the socket is
//! bound to every interface) are dropped by the caller.
//!
//! ```
//! # #[cfg(target_os = "linux")]
//! # fn main() -> std::io::Result<()> {
//! use std::net::{Ipv4Addr, SocketAddr};
//! use megaco_load::{net, shared};
//!
//! let sock = shared::bind(true)?;
//! let port = sock.local_addr()?.port();
//! let gw = Ipv4Addr::new(127, 1, 0, 7);
//! let peer = net::udp("127.0.0.1:0".parse().unwrap(), false)?;
//! net::send_to(&peer, b"hello", SocketAddr::from((gw, port)))?;
//! let mut inbox = shared::Inbox::new();
//! while inbox.recv(&sock, 64)? == 0 {
//!     std::thread::yield_now();
//! }
//! let (bytes, from, to) = inbox.get(0);
//! assert_eq!((bytes, from, to), (&b"hello"[..], peer.local_addr()?, gw));
//! shared::send_from(&sock, b"hi", from, gw)?;
//! let mut buf = [0; 8];
//! let (n, src) = loop {
//!     match peer.recv_from(&mut buf) {
//!         Ok(got) => break got,
//!         Err(_) => std::thread::yield_now(),
//!     }
//! };
//! assert_eq!((&buf[..n], src), (&b"hi"[..], SocketAddr::from((gw, port))));
//! # Ok(())
//! # }
//! # #[cfg(not(target_os = "linux"))]
//! # fn main() {}
//! ```

use std::io::{self, IoSlice, IoSliceMut};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::AsRawFd;

use mio::net::UdpSocket;
use nix::errno::Errno;
use nix::libc;
use nix::sys::socket::{
    self, sockopt, ControlMessage, ControlMessageOwned, MsgFlags, MultiHeaders, SockaddrIn,
    SockaddrStorage,
};

use crate::batch::BATCH;
use crate::net;

/// The `n`-th gateway address (`n` < 62,500): `127.1.0.1`, …,
/// `127.1.0.250`, `127.1.1.1`, …; never a `.0` or `.255`.
///
/// ```
/// use std::net::Ipv4Addr;
/// assert_eq!(megaco_load::shared::address(0), Ipv4Addr::new(127, 1, 0, 1));
/// assert_eq!(megaco_load::shared::address(250), Ipv4Addr::new(127, 1, 1, 1));
/// ```
pub fn address(n: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 1, (n / 250) as u8, (n % 250 + 1) as u8)
}

/// The most gateways [`address`] numbers.
pub const MAX_ADDRESSES: usize = 250 * 250;

/// A non-blocking socket on `0.0.0.0` (an ephemeral port) that reports
/// each datagram's destination address; with `big`, with large buffers.
pub fn bind(big: bool) -> io::Result<UdpSocket> {
    let sock = net::udp(SocketAddr::from(([0, 0, 0, 0], 0)), big)?;
    socket::setsockopt(&sock, sockopt::Ipv4PacketInfo, &true).map_err(io::Error::from)?;
    Ok(sock)
}

/// Sends `bytes` to `to` from the local address `from` (on the socket's
/// port), waiting briefly while the socket's buffer is full, as
/// [`net::send_to`] does.
pub fn send_from(sock: &UdpSocket, bytes: &[u8], to: SocketAddr, from: Ipv4Addr) -> io::Result<()> {
    let SocketAddr::V4(to) = to else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a shared gateway socket speaks IPv4 only",
        ));
    };
    let info = libc::in_pktinfo {
        ipi_ifindex: 0,
        ipi_spec_dst: libc::in_addr {
            s_addr: u32::from(from).to_be(),
        },
        ipi_addr: libc::in_addr { s_addr: 0 },
    };
    let cmsg = [ControlMessage::Ipv4PacketInfo(&info)];
    let iov = [IoSlice::new(bytes)];
    let to = SockaddrIn::from(to);
    let mut spins = 0u32;
    loop {
        match socket::sendmsg(
            sock.as_raw_fd(),
            &iov,
            &cmsg,
            MsgFlags::MSG_DONTWAIT,
            Some(&to),
        ) {
            Ok(_) => return Ok(()),
            Err(Errno::EINTR) => {}
            Err(Errno::EAGAIN | Errno::ENOBUFS) if spins < 100_000 => {
                spins += 1;
                std::thread::yield_now();
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Datagrams received by the last [`Inbox::recv`], each with its sender
/// and the local address it was sent to.
pub struct Inbox {
    headers: MultiHeaders<SockaddrStorage>,
    /// `BATCH` buffers of [`net::MAX_DATAGRAM`] bytes, one after another.
    bufs: Vec<u8>,
    /// Start in `bufs`, length, sender and destination of each datagram.
    got: Vec<(usize, usize, SocketAddr, Ipv4Addr)>,
    taken: usize,
    room: usize,
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox")
            .field("got", &self.got.len())
            .finish()
    }
}

impl Default for Inbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Inbox {
    /// An empty inbox of [`BATCH`] buffers of 64 KiB.
    pub fn new() -> Inbox {
        let cmsg = nix::cmsg_space!(libc::in_pktinfo);
        Inbox {
            headers: MultiHeaders::preallocate(BATCH, Some(cmsg)),
            bufs: vec![0; BATCH * net::MAX_DATAGRAM],
            got: Vec::with_capacity(BATCH),
            taken: 0,
            room: BATCH,
        }
    }

    /// Receives what `sock` holds, without waiting: up to `max` (at most
    /// [`BATCH`]) datagrams in one system call; how many it kept.
    /// Datagrams cut short, from IPv6 senders or without their
    /// destination are taken and dropped; ICMP errors from earlier sends
    /// are skipped.
    pub fn recv(&mut self, sock: &UdpSocket, max: usize) -> io::Result<usize> {
        loop {
            match self.recv_once(sock, max.clamp(1, BATCH)) {
                Err(Errno::EINTR | Errno::ECONNREFUSED) => continue,
                Err(Errno::EAGAIN) => return Ok(0),
                Err(e) => return Err(e.into()),
                Ok(n) => return Ok(n),
            }
        }
    }

    fn recv_once(&mut self, sock: &UdpSocket, max: usize) -> nix::Result<usize> {
        let Inbox {
            headers,
            bufs,
            got,
            taken,
            room,
        } = self;
        got.clear();
        *taken = 0;
        *room = max;
        let mut slices: Vec<[IoSliceMut<'_>; 1]> = bufs
            .chunks_exact_mut(net::MAX_DATAGRAM)
            .take(max)
            .map(|b| [IoSliceMut::new(b)])
            .collect();
        let results = socket::recvmmsg(
            sock.as_raw_fd(),
            headers,
            slices.iter_mut(),
            MsgFlags::MSG_DONTWAIT,
            None,
        )?;
        for (i, m) in results.enumerate() {
            *taken += 1;
            if m.flags.contains(MsgFlags::MSG_TRUNC) {
                continue;
            }
            let from = m.address.as_ref().and_then(SockaddrStorage::as_sockaddr_in);
            let to = m.cmsgs().ok().and_then(|mut c| {
                c.find_map(|c| match c {
                    ControlMessageOwned::Ipv4PacketInfo(p) => {
                        Some(Ipv4Addr::from(u32::from_be(p.ipi_addr.s_addr)))
                    }
                    _ => None,
                })
            });
            if let (Some(from), Some(to)) = (from, to) {
                let from = SocketAddr::V4(SocketAddrV4::from(*from));
                got.push((i * net::MAX_DATAGRAM, m.bytes, from, to));
            }
        }
        Ok(got.len())
    }

    /// Whether the last [`Inbox::recv`] found the socket empty (it took
    /// fewer datagrams than it had room for), as
    /// [`crate::batch::Inbox::drained`].
    pub fn drained(&self) -> bool {
        self.taken < self.room
    }

    /// How many datagrams the last [`Inbox::recv`] kept.
    pub fn len(&self) -> usize {
        self.got.len()
    }

    /// Whether it kept none.
    pub fn is_empty(&self) -> bool {
        self.got.is_empty()
    }

    /// The `i`-th datagram: its bytes, its sender and the local address
    /// it was sent to.
    pub fn get(&self, i: usize) -> (&[u8], SocketAddr, Ipv4Addr) {
        let (start, len, from, to) = self.got[i];
        (&self.bufs[start..start + len], from, to)
    }
}
