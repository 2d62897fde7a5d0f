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
//! Replies go out a batch at a time too: [`send_batch_from`] gives each
//! datagram of one `sendmmsg(2)` its own source address. That takes a
//! control message per datagram, which nix's `sendmmsg` (one set shared
//! by the whole batch) cannot express, so it is the one place of this
//! crate with `unsafe` code: the headers are built here and handed to
//! `libc::sendmmsg`. Against one `sendmsg` per reply it took a bare
//! fan-out to 901 loopback addresses from 4.15 to 3.30 µs per destination
//! and the process's CPU from 7.8 to 6.8 µs.
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

use std::io::{self, IoSliceMut};
use std::mem::{offset_of, size_of};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::AsRawFd;

use mio::net::UdpSocket;
use nix::errno::Errno;
use nix::libc;
use nix::sys::socket::{
    self, sockopt, ControlMessageOwned, MsgFlags, MultiHeaders, SockaddrStorage,
};

use crate::batch::BATCH;
use crate::net;

/// The `n`-th gateway address (`n` < [`crate::farm::MAX_SHARED`]): `127.1.0.1`, …,
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

/// A non-blocking socket on `0.0.0.0` (an ephemeral port) that reports
/// each datagram's destination address; with `big`, with large buffers.
pub fn bind(big: bool) -> io::Result<UdpSocket> {
    let sock = net::udp(SocketAddr::from(([0, 0, 0, 0], 0)), big)?;
    socket::setsockopt(&sock, sockopt::Ipv4PacketInfo, &true).map_err(io::Error::from)?;
    Ok(sock)
}

/// Sends `bytes` to `to` from the local address `from` (on the socket's
/// port): [`send_batch_from`] with one datagram, which waits briefly while
/// the socket's buffer is full, as [`net::send_to`] does.
pub fn send_from(sock: &UdpSocket, bytes: &[u8], to: SocketAddr, from: Ipv4Addr) -> io::Result<()> {
    match send_batch_from(sock, &[(bytes, to, from)])? {
        1 => Ok(()),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not sent: the kernel refused it, or the destination is not IPv4",
        )),
    }
}

/// Sends `datagrams` (bytes, destination, local source address), each
/// from its own source, with one `sendmmsg(2)` per [`BATCH`]; how many
/// went. A full socket buffer is waited out briefly, as
/// [`net::send_to`] does; a datagram the kernel refuses otherwise (or to an IPv6
/// destination) is dropped and the rest are sent.
///
/// ```
/// # #[cfg(target_os = "linux")]
/// # fn main() -> std::io::Result<()> {
/// use std::net::{Ipv4Addr, UdpSocket};
/// use megaco_load::shared;
///
/// let sock = shared::bind(false)?;
/// let port = sock.local_addr()?.port();
/// let peer = UdpSocket::bind("127.0.0.1:0")?;
/// let to = peer.local_addr()?;
/// let froms = [Ipv4Addr::new(127, 1, 0, 1), Ipv4Addr::new(127, 1, 0, 2)];
/// let batch = [(&b"one"[..], to, froms[0]), (&b"two"[..], to, froms[1])];
/// assert_eq!(shared::send_batch_from(&sock, &batch)?, 2);
/// let mut buf = [0; 8];
/// for (want, from) in [(&b"one"[..], froms[0]), (&b"two"[..], froms[1])] {
///     let (n, src) = peer.recv_from(&mut buf)?;
///     assert_eq!((&buf[..n], src), (want, (from, port).into()));
/// }
/// # Ok(())
/// # }
/// # #[cfg(not(target_os = "linux"))]
/// # fn main() {}
/// ```
pub fn send_batch_from(
    sock: &UdpSocket,
    datagrams: &[(&[u8], SocketAddr, Ipv4Addr)],
) -> io::Result<usize> {
    let v4: Vec<(&[u8], SocketAddrV4, Ipv4Addr)> = datagrams
        .iter()
        .filter_map(|&(bytes, to, from)| match to {
            SocketAddr::V4(to) => Some((bytes, to, from)),
            SocketAddr::V6(_) => None,
        })
        .collect();
    let (mut done, mut spins) = (0, 0u32);
    let mut sent = 0;
    while done < v4.len() {
        let chunk = &v4[done..(done + BATCH).min(v4.len())];
        match send_chunk(sock.as_raw_fd(), chunk) {
            Ok(n) if n > 0 => {
                done += n;
                sent += n;
            }
            Err(Errno::EINTR) => {}
            Ok(_) | Err(Errno::EAGAIN | Errno::ENOBUFS) if spins < 100_000 => {
                spins += 1;
                std::thread::yield_now();
            }
            Ok(_) | Err(Errno::EAGAIN | Errno::ENOBUFS) => {
                return Err(io::ErrorKind::WouldBlock.into())
            }
            // The first datagram was refused: drop it, send the rest.
            Err(_) => done += 1,
        }
    }
    Ok(sent)
}

/// An `IP_PKTINFO` control message as the kernel reads it: the header,
/// then the data where `CMSG_DATA` puts it, then zeros up to
/// `CMSG_SPACE` (where `cmsghdr` is less aligned than the space is
/// rounded, as on 64-bit musl, the struct alone would be shorter).
#[repr(C)]
struct SourceCmsg {
    hdr: libc::cmsghdr,
    info: libc::in_pktinfo,
    tail: [u8; SPACE - LEN],
}

const INFO_LEN: u32 = size_of::<libc::in_pktinfo>() as u32;
// SAFETY: CMSG_SPACE and CMSG_LEN only compute sizes.
#[allow(unsafe_code)]
const SPACE: usize = unsafe { libc::CMSG_SPACE(INFO_LEN) } as usize;
#[allow(unsafe_code)]
const LEN: usize = unsafe { libc::CMSG_LEN(INFO_LEN) } as usize;
// The struct's layout is the one the kernel's macros describe.
const _: () = assert!(size_of::<SourceCmsg>() == SPACE);
const _: () = assert!(offset_of!(SourceCmsg, info) + size_of::<libc::in_pktinfo>() == LEN);

/// One `sendmmsg(2)` of up to [`BATCH`] datagrams, each with its source.
#[allow(unsafe_code)]
fn send_chunk(fd: i32, chunk: &[(&[u8], SocketAddrV4, Ipv4Addr)]) -> nix::Result<usize> {
    let mut names: Vec<libc::sockaddr_in> = chunk
        .iter()
        .map(|(_, to, _)| {
            // SAFETY: all zeros is a valid sockaddr_in (and clears its
            // padding, which the kernel wants zero).
            let mut a: libc::sockaddr_in = unsafe { std::mem::zeroed() };
            a.sin_family = libc::AF_INET as libc::sa_family_t;
            a.sin_port = to.port().to_be();
            a.sin_addr.s_addr = u32::from(*to.ip()).to_be();
            a
        })
        .collect();
    let mut iovs: Vec<libc::iovec> = chunk
        .iter()
        .map(|(bytes, _, _)| libc::iovec {
            iov_base: bytes.as_ptr().cast_mut().cast(),
            iov_len: bytes.len(),
        })
        .collect();
    let mut cmsgs: Vec<SourceCmsg> = chunk
        .iter()
        .map(|(_, _, from)| {
            // SAFETY: all zeros is a valid cmsghdr (a length and two ints,
            // padding on some targets).
            let mut hdr: libc::cmsghdr = unsafe { std::mem::zeroed() };
            hdr.cmsg_len = LEN as _;
            hdr.cmsg_level = libc::IPPROTO_IP;
            hdr.cmsg_type = libc::IP_PKTINFO;
            SourceCmsg {
                hdr,
                info: libc::in_pktinfo {
                    ipi_ifindex: 0,
                    ipi_spec_dst: libc::in_addr {
                        s_addr: u32::from(*from).to_be(),
                    },
                    ipi_addr: libc::in_addr { s_addr: 0 },
                },
                tail: [0; SPACE - LEN],
            }
        })
        .collect();
    // One pointer to each vector, taken once: the headers point into
    // them, and no reference to them is made again until the call is over.
    let (name, iov, cmsg) = (names.as_mut_ptr(), iovs.as_mut_ptr(), cmsgs.as_mut_ptr());
    let mut headers: Vec<libc::mmsghdr> = (0..chunk.len())
        .map(|k| {
            // SAFETY: all zeros is a valid msghdr (null pointers, zero
            // lengths and flags); the fields that matter are set below.
            let mut h: libc::msghdr = unsafe { std::mem::zeroed() };
            // `k` < the length of each vector: the pointers stay inside them.
            h.msg_name = name.wrapping_add(k).cast();
            h.msg_namelen = size_of::<libc::sockaddr_in>() as libc::socklen_t;
            h.msg_iov = iov.wrapping_add(k);
            h.msg_iovlen = 1;
            h.msg_control = cmsg.wrapping_add(k).cast();
            h.msg_controllen = SPACE as _;
            libc::mmsghdr {
                msg_hdr: h,
                msg_len: 0,
            }
        })
        .collect();
    // SAFETY: `headers` holds `headers.len()` initialised headers whose
    // pointers go to `names`, `iovs` (each to a live slice of `chunk`)
    // and `cmsgs`, all alive and unmoved until this call returns; the
    // kernel reads them and writes only each header's `msg_len`.
    let n = unsafe {
        libc::sendmmsg(
            fd,
            headers.as_mut_ptr(),
            headers.len() as libc::c_uint,
            libc::MSG_DONTWAIT as _,
        )
    };
    Errno::result(n).map(|n| n as usize)
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
