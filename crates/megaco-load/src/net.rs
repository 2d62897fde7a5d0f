//! Sockets for load and fan-out runs: non-blocking, polled with mio, with
//! large buffers where many datagrams arrive at once.

use std::io;
use std::net::SocketAddr;

use socket2::{Domain, Protocol, Socket, Type};

/// The largest UDP payload (IPv4).
pub const MAX_DATAGRAM: usize = 65_507;

/// Socket buffer size asked for where bursts arrive (the kernel caps it at
/// `net.core.rmem_max` / `wmem_max`).
const BIG_BUFFER: usize = 4 << 20;

/// A non-blocking UDP socket bound to `addr`; with `big`, with large
/// send and receive buffers.
pub fn udp(addr: SocketAddr, big: bool) -> io::Result<mio::net::UdpSocket> {
    let s = Socket::new(Domain::for_address(addr), Type::DGRAM, Some(Protocol::UDP))?;
    s.set_nonblocking(true)?;
    if big {
        // Best effort: a smaller buffer only means drops under bursts,
        // which the runs count.
        let _ = s.set_recv_buffer_size(BIG_BUFFER);
        let _ = s.set_send_buffer_size(BIG_BUFFER);
    }
    s.bind(&addr.into())?;
    Ok(mio::net::UdpSocket::from_std(s.into()))
}

/// A loopback address of `family`'s kind with an ephemeral port.
pub fn loopback_like(family: SocketAddr) -> SocketAddr {
    match family {
        SocketAddr::V4(_) => SocketAddr::from(([127, 0, 0, 1], 0)),
        SocketAddr::V6(_) => SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, 0)),
    }
}

/// Sends `bytes` to `to`, waiting (briefly, by yielding) while the
/// socket's buffer is full. Other errors (an ICMP-refused peer) are
/// returned.
pub fn send_to(sock: &mio::net::UdpSocket, bytes: &[u8], to: SocketAddr) -> io::Result<()> {
    let mut spins = 0u32;
    loop {
        match sock.send_to(bytes, to) {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && spins < 100_000 => {
                spins += 1;
                std::thread::yield_now();
            }
            Err(e) => return Err(e),
        }
    }
}
