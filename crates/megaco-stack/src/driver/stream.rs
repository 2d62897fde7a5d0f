//! One TCP connection's task.

use std::io;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

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

/// One TCP connection: forwards what it reads to the driver, writes what
/// the driver queues. When the driver drops its queue, it writes what is
/// left, waits `closing.delay` (unless the peer closes first), closes our
/// side, and reads (discarding) until the peer closes its side or
/// `closing.linger` passes, so that our last messages are neither lost to
/// a reset nor to a peer that drops what it has not processed when the
/// connection closes (Erlang/OTP's megaco does).
pub(super) async fn run_stream(
    peer: Peer,
    mut stream: TcpStream,
    mut out: mpsc::Receiver<Vec<u8>>,
    input: mpsc::Sender<Input>,
    closing: Closing,
) {
    let mut open = true;
    loop {
        tokio::select! {
            ready = stream.readable(), if open => {
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
            bytes = out.recv() => match bytes {
                Some(bytes) => {
                    if let Err(e) = stream.write_all(&bytes).await {
                        if open {
                            let _ = input.send(Input::Ended { peer, error: Some(e.to_string()) }).await;
                        }
                        return;
                    }
                }
                None => break,
            },
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
