//! One TCP connection's task, and the queue of what is to be written to
//! it.
//!
//! The driver never waits for a connection: it appends what is to be
//! written to the connection's [`Outbox`], which holds at most
//! [`TransportConfig::tcp_write_buffer`] bytes (a peer that lets more pile
//! up is disconnected), and all connections' outboxes together hold at
//! most [`TransportConfig::tcp_write_total`] (past it, a connection that
//! already has bytes waiting is disconnected rather than queue more). The
//! connection's task writes from it, and stops
//! reading from the peer while more than
//! [`TransportConfig::tcp_write_queue`] messages wait in it: a burst of
//! requests is answered at the pace the peer reads the answers, and a
//! peer that does not read stops being read. It also stops reading while
//! the driver holds it: the queue to the user is full, and the requests
//! read wait for room instead of being refused. A peer is judged by its
//! reading alone: bytes waiting that it takes none of for
//! [`TransportConfig::tcp_write_timeout`] close the connection
//! ([`CloseReason::SlowReader`](crate::endpoint::CloseReason::SlowReader)).
//!
//! [`TransportConfig::tcp_write_buffer`]: crate::config::TransportConfig::tcp_write_buffer
//! [`TransportConfig::tcp_write_total`]: crate::config::TransportConfig::tcp_write_total
//! [`TransportConfig::tcp_write_queue`]: crate::config::TransportConfig::tcp_write_queue
//! [`TransportConfig::tcp_write_timeout`]: crate::config::TransportConfig::tcp_write_timeout

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, Notify};
use tokio::time::Instant;

use super::Input;
use crate::endpoint::Peer;

/// How a connection closes (see [`run_stream`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Closing {
    /// How long to wait after the last write before closing our side.
    pub(super) delay: Duration,
    /// How long to wait after that for the peer to close its side.
    pub(super) linger: Duration,
}

/// The bounds of what waits to be written to one connection.
#[derive(Debug, Clone, Copy)]
pub(super) struct Writing {
    /// Reading stops while more messages than this wait.
    pub(super) pause_at: usize,
    /// Most bytes waiting; more disconnect the peer.
    pub(super) max_bytes: usize,
    /// Most bytes waiting on all connections together; more disconnect a
    /// peer that has some waiting.
    pub(super) max_total: usize,
    /// Bytes waiting and none taken for this long: the peer does not read.
    pub(super) timeout: Duration,
}

/// How many queued bytes one write takes at most (messages are gathered
/// into one write up to this).
const GATHER: usize = 64 * 1024;

#[derive(Debug, Default)]
struct Queue {
    messages: VecDeque<Vec<u8>>,
    /// Bytes not yet written: those queued and those taken by the task.
    bytes: usize,
    /// The driver let go: write what is left, then close gracefully.
    closed: bool,
    /// The driver gave up on the peer: close at once, writing nothing more.
    aborted: bool,
    /// The user is behind: read nothing from the peer until it catches up.
    held: bool,
}

/// What waits to be written to one connection, shared by the driver
/// (which appends) and the connection's task (which takes).
#[derive(Debug)]
pub(super) struct Outbox {
    queue: Mutex<Queue>,
    /// Wakes the task: something was appended, or the driver let go.
    wake: Notify,
    /// Bytes not yet written on all connections (each outbox counts its
    /// own in, and takes them out as they are written or when it goes).
    total: Arc<AtomicUsize>,
}

impl Outbox {
    /// An empty outbox counting its bytes into `total`.
    pub(super) fn new(total: Arc<AtomicUsize>) -> Self {
        Outbox {
            queue: Mutex::default(),
            wake: Notify::new(),
            total,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends `bytes`; false (and nothing appended) if the bytes not yet
    /// written would exceed `writing.max_bytes`, or those of all
    /// connections `writing.max_total`. A message larger than that still
    /// goes when nothing else waits on this connection.
    pub(super) fn push(&self, bytes: Vec<u8>, writing: &Writing) -> bool {
        let mut q = self.lock();
        let n = bytes.len();
        if q.bytes > 0
            && (q.bytes.saturating_add(n) > writing.max_bytes
                || self.total.load(Ordering::Relaxed).saturating_add(n) > writing.max_total)
        {
            return false;
        }
        q.bytes += n;
        self.total.fetch_add(n, Ordering::Relaxed);
        q.messages.push_back(bytes);
        drop(q);
        self.wake.notify_one();
        true
    }

    /// The driver lets go: what is queued is written, then the
    /// connection closes gracefully.
    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_one();
    }

    /// The driver gives up on the peer: nothing more is written.
    pub(super) fn abort(&self) {
        let mut q = self.lock();
        q.aborted = true;
        q.closed = true;
        q.messages.clear();
        drop(q);
        self.wake.notify_one();
    }

    /// Up to [`GATHER`] bytes of the queued messages (at least one
    /// message), as one buffer; empty when none waits.
    fn take(&self) -> Vec<u8> {
        let mut q = self.lock();
        let Some(mut out) = q.messages.pop_front() else {
            return Vec::new();
        };
        while let Some(next) = q.messages.front() {
            if out.len() + next.len() > GATHER {
                break;
            }
            out.extend_from_slice(next);
            q.messages.pop_front();
        }
        out
    }

    fn written(&self, n: usize) {
        let mut q = self.lock();
        let n = n.min(q.bytes);
        q.bytes -= n;
        self.total.fetch_sub(n, Ordering::Relaxed);
    }

    /// Stops (`true`) or resumes reading from the peer, for the user's
    /// sake: its queue is full.
    pub(super) fn hold(&self, held: bool) {
        self.lock().held = held;
        self.wake.notify_one();
    }

    /// Messages waiting (not yet taken), whether the driver let go or
    /// gave up, and whether it holds the reading.
    fn state(&self) -> (usize, bool, bool, bool) {
        let q = self.lock();
        (q.messages.len(), q.closed, q.aborted, q.held)
    }
}

impl Drop for Outbox {
    /// What was never written (the connection failed or was given up on)
    /// no longer counts.
    fn drop(&mut self) {
        let q = self.queue.get_mut().unwrap_or_else(|e| e.into_inner());
        self.total.fetch_sub(q.bytes, Ordering::Relaxed);
    }
}

/// The driver's end of a connection's [`Outbox`]: dropping it lets go of
/// the connection (what is queued is written, then it closes).
#[derive(Debug)]
pub(super) struct StreamTx(pub(super) Arc<Outbox>);

impl Drop for StreamTx {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// One TCP connection: forwards what it reads to the driver, writes what
/// the driver queues in `out`, and stops reading while more than
/// `writing.pause_at` messages wait, or while the driver holds it (the
/// user has no room for more requests). Bytes waiting that the peer takes
/// none of for `writing.timeout` end it ([`Input::SlowReader`]). When
/// the driver lets go of `out`, it writes what is left, waits
/// `closing.delay` (unless the peer closes first), closes our side, and
/// reads (discarding) until the peer closes its side or `closing.linger`
/// passes, so that our last messages are neither lost to a reset nor to a
/// peer that drops what it has not processed when the connection closes
/// (Erlang/OTP's megaco does). A peer that closes its side (half-close)
/// is still written to until the driver lets go.
pub(super) async fn run_stream(
    peer: Peer,
    mut stream: TcpStream,
    out: Arc<Outbox>,
    input: mpsc::Sender<Input>,
    closing: Closing,
    writing: Writing,
) {
    let mut open = true;
    // The bytes being written, how many of them are, and when the peer
    // must have taken more.
    let mut pending: Vec<u8> = Vec::new();
    let mut done = 0;
    let mut deadline = Instant::now();
    loop {
        let (waiting, closed, aborted, held) = out.state();
        if aborted {
            return;
        }
        if done == pending.len() {
            pending = out.take();
            done = 0;
            deadline = Instant::now() + writing.timeout;
            if pending.is_empty() && closed {
                break;
            }
        }
        let writing_now = done < pending.len();
        let paused = held || waiting >= writing.pause_at;
        tokio::select! {
            ready = stream.readable(), if open && !paused => {
                if let Err(e) = ready {
                    let _ = input.send(Input::Ended { peer, error: Some(e.to_string()) }).await;
                    open = false;
                    continue;
                }
                let read = {
                    let mut buf = [0u8; 4096];
                    match stream.try_read(&mut buf) {
                        Ok(0) => Ok(None),
                        Ok(n) => Ok(Some(buf[..n].to_vec())),
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                        Err(e) => Err(e),
                    }
                };
                match read {
                    Ok(Some(bytes)) => {
                        if input.send(Input::Data { peer, bytes }).await.is_err() {
                            return;
                        }
                    }
                    Ok(None) => {
                        open = false;
                        let _ = input.send(Input::Ended { peer, error: None }).await;
                    }
                    Err(e) => {
                        open = false;
                        let _ = input.send(Input::Ended { peer, error: Some(e.to_string()) }).await;
                    }
                }
            }
            ready = stream.writable(), if writing_now => {
                let wrote = match ready {
                    Ok(()) => stream.try_write(&pending[done..]),
                    Err(e) => Err(e),
                };
                match wrote {
                    Ok(n) => {
                        done += n;
                        out.written(n);
                        deadline = Instant::now() + writing.timeout;
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    // Also after the peer closed its side: the driver
                    // still holds the stream for the replies it owes.
                    Err(e) => {
                        let _ = input.send(Input::Ended { peer, error: Some(e.to_string()) }).await;
                        return;
                    }
                }
            }
            () = tokio::time::sleep_until(deadline), if writing_now => {
                let _ = input.send(Input::SlowReader { peer }).await;
                return;
            }
            () = out.wake.notified(), if !writing_now => {}
        }
    }
    // Graceful close: a quiet moment for the peer to take in our last
    // messages, our FIN, then wait for the peer's.
    let mut peer_closed = !open;
    if !peer_closed {
        peer_closed = tokio::time::timeout(closing.delay, until_closed(&mut stream))
            .await
            .is_ok();
    }
    let _ = stream.shutdown().await;
    if !peer_closed {
        let _ = tokio::time::timeout(closing.linger, until_closed(&mut stream)).await;
    }
}

/// Reads (and discards) until the peer closes its side or the stream fails.
async fn until_closed(stream: &mut TcpStream) {
    let mut buf = [0u8; 1024];
    loop {
        match tokio::io::AsyncReadExt::read(stream, &mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writing(max_bytes: usize, max_total: usize) -> Writing {
        Writing {
            pause_at: 1,
            max_bytes,
            max_total,
            timeout: Duration::from_secs(1),
        }
    }

    #[test]
    fn outboxes_share_the_total_and_give_it_back() {
        let total = Arc::new(AtomicUsize::new(0));
        let w = writing(1000, 250);
        let (a, b) = (Outbox::new(total.clone()), Outbox::new(total.clone()));
        assert!(a.push(vec![0; 100], &w));
        assert!(a.push(vec![0; 100], &w));
        assert!(b.push(vec![0; 40], &w));
        assert_eq!(total.load(Ordering::Relaxed), 240);
        // Past the total: refused to a connection with bytes waiting ...
        assert!(!a.push(vec![0; 20], &w));
        assert!(!b.push(vec![0; 20], &w));
        // ... not to one with none.
        let c = Outbox::new(total.clone());
        assert!(c.push(vec![0; 20], &w));
        assert_eq!(total.load(Ordering::Relaxed), 260);
        // Written bytes and a dropped outbox's bytes no longer count.
        let taken = a.take();
        assert_eq!(taken.len(), 200);
        a.written(150);
        assert_eq!(total.load(Ordering::Relaxed), 110);
        assert!(b.push(vec![0; 20], &w));
        drop(b);
        assert_eq!(total.load(Ordering::Relaxed), 70);
        a.written(1000);
        drop((a, c));
        assert_eq!(total.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn the_connection_bound_still_holds_under_the_total() {
        let total = Arc::new(AtomicUsize::new(0));
        let w = writing(150, 1 << 20);
        let a = Outbox::new(total.clone());
        assert!(a.push(vec![0; 100], &w));
        assert!(!a.push(vec![0; 100], &w));
        // One message larger than the bound goes when nothing waits.
        let b = Outbox::new(total.clone());
        assert!(b.push(vec![0; 500], &w));
        assert_eq!(total.load(Ordering::Relaxed), 600);
    }
}
