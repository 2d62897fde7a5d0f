//! Many datagrams per system call on Linux: `sendmmsg(2)` and
//! `recvmmsg(2)` through `nix`'s safe wrappers, on any UDP socket (the
//! stack's tokio sockets, the load generator's mio ones).
//!
//! On loopback the kernel's cost per datagram (delivery into the
//! receiver's socket, its wake-up) stays; what a batch saves is the
//! system call's entry and exit, the socket lookup and locking per call.
//!
//! ```
//! # #[cfg(target_os = "linux")]
//! # fn main() -> std::io::Result<()> {
//! use std::net::UdpSocket;
//! use std::os::fd::AsFd;
//! use megaco_stack::mmsg;
//!
//! let a = UdpSocket::bind("127.0.0.1:0")?;
//! let b = UdpSocket::bind("127.0.0.1:0")?;
//! let to = b.local_addr()?;
//! let datagrams = [&b"one"[..], b"two"];
//! let sent = mmsg::sendmmsg(a.as_fd(), datagrams.iter().map(|d| (*d, to)))
//!     .map_err(|_| std::io::Error::other("not sent"))?;
//! assert_eq!(sent, 2);
//! b.set_nonblocking(true)?;
//! let mut bufs = vec![0; 2 * 64];
//! let mut got = Vec::new();
//! while got.len() < 2 {
//!     mmsg::recvmmsg(b.as_fd(), &mut bufs, 64, &mut got)?;
//! }
//! let (start, len, from) = got[1];
//! assert_eq!(&bufs[start..start + len], b"two");
//! assert_eq!(from, a.local_addr()?);
//! # Ok(())
//! # }
//! # #[cfg(not(target_os = "linux"))]
//! # fn main() {}
//! ```

use std::cell::RefCell;
use std::io::{IoSlice, IoSliceMut};
use std::net::{SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::{AsRawFd, BorrowedFd};

use nix::errno::Errno;
use nix::sys::socket::{self, MsgFlags, MultiHeaders, SockaddrStorage};

/// Datagrams per call at most.
pub const BATCH: usize = 64;

thread_local! {
    // The kernel's message headers, reused by every call of a thread;
    // one set for each call, since `sendmmsg` points a header's address
    // at the caller's (gone after the call) and `recvmmsg` would then
    // write the sender's address there.
    static SEND_HEADERS: RefCell<MultiHeaders<SockaddrStorage>> =
        RefCell::new(MultiHeaders::preallocate(BATCH, None));
    static RECV_HEADERS: RefCell<MultiHeaders<SockaddrStorage>> =
        RefCell::new(MultiHeaders::preallocate(BATCH, None));
}

/// Why [`sendmmsg`] sent nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// The socket's buffer is full: wait until it is writable.
    Full,
    /// The kernel refused the first datagram (an unreachable peer, say):
    /// drop it and send the rest, as the network would.
    Refused,
}

/// Sends up to [`BATCH`] of `datagrams` (bytes, destination) from `fd`
/// without blocking; how many went (the first ones). The rest of a longer
/// list is left for the next call.
pub fn sendmmsg<'a>(
    fd: BorrowedFd<'_>,
    datagrams: impl Iterator<Item = (&'a [u8], SocketAddr)>,
) -> Result<usize, Sent> {
    let (slices, addrs): (Vec<[IoSlice<'a>; 1]>, Vec<Option<SockaddrStorage>>) = datagrams
        .take(BATCH)
        .map(|(bytes, to)| ([IoSlice::new(bytes)], Some(SockaddrStorage::from(to))))
        .unzip();
    if slices.is_empty() {
        return Ok(0);
    }
    SEND_HEADERS.with(|h| {
        let mut headers = h.borrow_mut();
        loop {
            let r = socket::sendmmsg(
                fd.as_raw_fd(),
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

/// What one [`recvmmsg`] took from the socket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Received {
    /// Datagrams taken, appended or not: zero when none was waiting.
    pub taken: usize,
    /// Of those, how many were cut short (longer than a buffer) and left
    /// out.
    pub truncated: u64,
}

/// Receives what `fd` holds without blocking: up to [`BATCH`] datagrams,
/// and no more than `bufs` has buffers of `buf_len` bytes. Appends each
/// datagram's start in `bufs`, length and sender to `got`; datagrams cut
/// short (longer than `buf_len`) or from an address of another family
/// are taken from the socket but not appended. ICMP errors from earlier
/// sends are skipped.
pub fn recvmmsg(
    fd: BorrowedFd<'_>,
    bufs: &mut [u8],
    buf_len: usize,
    got: &mut Vec<(usize, usize, SocketAddr)>,
) -> std::io::Result<Received> {
    RECV_HEADERS.with(|h| {
        let mut headers = h.borrow_mut();
        loop {
            match recv_once(fd, &mut headers, bufs, buf_len, got) {
                Err(Errno::EINTR) | Err(Errno::ECONNREFUSED) => continue,
                Err(Errno::EAGAIN) => return Ok(Received::default()),
                Err(e) => return Err(e.into()),
                Ok(received) => return Ok(received),
            }
        }
    })
}

fn recv_once(
    fd: BorrowedFd<'_>,
    headers: &mut MultiHeaders<SockaddrStorage>,
    bufs: &mut [u8],
    buf_len: usize,
    got: &mut Vec<(usize, usize, SocketAddr)>,
) -> nix::Result<Received> {
    let mut slices: Vec<[IoSliceMut<'_>; 1]> = bufs
        .chunks_exact_mut(buf_len.max(1))
        .take(BATCH)
        .map(|b| [IoSliceMut::new(b)])
        .collect();
    let results = socket::recvmmsg(
        fd.as_raw_fd(),
        headers,
        slices.iter_mut(),
        MsgFlags::MSG_DONTWAIT,
        None,
    )?;
    let mut received = Received::default();
    for (i, m) in results.enumerate() {
        received.taken += 1;
        if m.flags.contains(MsgFlags::MSG_TRUNC) {
            received.truncated += 1;
            continue;
        }
        if let Some(from) = m.address.as_ref().and_then(address) {
            got.push((i * buf_len, m.bytes, from));
        }
    }
    Ok(received)
}

fn address(a: &SockaddrStorage) -> Option<SocketAddr> {
    if let Some(v4) = a.as_sockaddr_in() {
        return Some(SocketAddr::V4(SocketAddrV4::from(*v4)));
    }
    a.as_sockaddr_in6()
        .map(|v6| SocketAddr::V6(SocketAddrV6::from(*v6)))
}
