//! The load generator's sockets: UDP datagrams (sent and received many
//! per system call where the platform can, [`crate::batch`]), or TCP with
//! TPKT framing (RFC 1006), non-blocking under one mio poll.

use std::io::{self, Read, Write};
use std::net::SocketAddr;

use megaco_stack::tpkt;
use mio::net::{TcpStream, UdpSocket};

use crate::batch::{Inbox, Io, Outbox};

/// One socket of the generator.
pub(super) enum Sock {
    Udp(Box<Dgram>),
    Tcp(Box<Stream>),
}

/// A UDP socket and the datagrams it has yet to send.
pub(super) struct Dgram {
    pub sock: UdpSocket,
    out: Outbox,
}

pub(super) struct Stream {
    pub stream: TcpStream,
    rbuf: Vec<u8>,
    /// Where the unparsed bytes of `rbuf` start.
    start: usize,
    wbuf: Vec<u8>,
    pub closed: bool,
}

impl Sock {
    pub fn udp(sock: UdpSocket, io: Io) -> Sock {
        Sock::Udp(Box::new(Dgram {
            sock,
            out: Outbox::new(io),
        }))
    }

    pub fn tcp(to: SocketAddr) -> io::Result<Sock> {
        let s = std::net::TcpStream::connect(to)?;
        s.set_nodelay(true)?;
        s.set_nonblocking(true)?;
        Ok(Sock::Tcp(Box::new(Stream {
            stream: TcpStream::from_std(s),
            rbuf: Vec::with_capacity(64 * 1024),
            start: 0,
            wbuf: Vec::new(),
            closed: false,
        })))
    }

    /// Queues one message until [`Sock::flush`].
    pub fn send(&mut self, bytes: &[u8], to: SocketAddr) -> io::Result<()> {
        match self {
            Sock::Udp(d) => {
                d.out.push(to, |b| b.extend_from_slice(bytes));
                Ok(())
            }
            Sock::Tcp(t) => {
                let h = tpkt::header(bytes.len()).map_err(io::Error::other)?;
                t.wbuf.extend_from_slice(&h);
                t.wbuf.extend_from_slice(bytes);
                Ok(())
            }
        }
    }

    /// Sends what is queued: every datagram (batched where the platform
    /// can), TCP's bytes as far as the socket takes them.
    pub fn flush(&mut self) -> io::Result<()> {
        let t = match self {
            Sock::Udp(d) => return d.out.flush(&d.sock).map(|_| ()),
            Sock::Tcp(t) => t,
        };
        let mut done = 0;
        while done < t.wbuf.len() {
            match t.stream.write(&t.wbuf[done..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        t.wbuf.drain(..done);
        Ok(())
    }

    /// Whether bytes wait to be written.
    pub fn backlog(&self) -> bool {
        match self {
            Sock::Udp(d) => !d.out.is_empty(),
            Sock::Tcp(t) => !t.wbuf.is_empty(),
        }
    }

    /// Reads what has arrived and hands each message to `each` with its
    /// sender (`peer` for TCP). A broken TPKT stream is closed and
    /// reported as one malformed message.
    pub fn receive(
        &mut self,
        inbox: &mut Inbox,
        buf: &mut [u8],
        peer: SocketAddr,
        mut each: impl FnMut(&[u8], SocketAddr),
    ) -> io::Result<()> {
        match self {
            Sock::Udp(d) => loop {
                inbox.recv(&d.sock)?;
                for (bytes, from) in inbox.iter() {
                    each(bytes, from);
                }
                if inbox.drained() {
                    return Ok(());
                }
            },
            Sock::Tcp(t) => {
                if t.closed {
                    return Ok(());
                }
                loop {
                    match t.stream.read(buf) {
                        Ok(0) => {
                            t.closed = true;
                            break;
                        }
                        Ok(n) => t.rbuf.extend_from_slice(&buf[..n]),
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) => return Err(e),
                    }
                }
                loop {
                    let avail = &t.rbuf[t.start..];
                    if avail.len() < tpkt::HEADER_LEN {
                        break;
                    }
                    let h = [avail[0], avail[1], avail[2], avail[3]];
                    let len = match tpkt::parse_header(h, tpkt::MAX_PAYLOAD) {
                        Ok(len) => len,
                        Err(_) => {
                            each(&avail[..0], peer);
                            t.closed = true;
                            t.rbuf.clear();
                            t.start = 0;
                            return Ok(());
                        }
                    };
                    if avail.len() < tpkt::HEADER_LEN + len {
                        break;
                    }
                    each(&avail[tpkt::HEADER_LEN..tpkt::HEADER_LEN + len], peer);
                    t.start += tpkt::HEADER_LEN + len;
                }
                if t.start > 0 && t.start == t.rbuf.len() {
                    t.rbuf.clear();
                    t.start = 0;
                } else if t.start > 32 * 1024 {
                    t.rbuf.drain(..t.start);
                    t.start = 0;
                }
                Ok(())
            }
        }
    }
}
