//! One TCP connection's task.

use std::io;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use super::Input;
use crate::endpoint::Peer;

/// One TCP connection: forwards what it reads to the driver, writes what
/// the driver queues; when the driver drops its queue, writes what is
/// left, closes our side and reads (discarding) until the peer closes
/// its side or `linger` passes, so that our last messages are not lost
/// to a reset.
pub(super) async fn run_stream(
    peer: Peer,
    mut stream: TcpStream,
    mut out: mpsc::Receiver<Vec<u8>>,
    input: mpsc::Sender<Input>,
    linger: Duration,
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
    // Graceful close: our FIN after everything written, then wait for
    // the peer's.
    let _ = stream.shutdown().await;
    if open {
        let _ = tokio::time::timeout(linger, async {
            let mut buf = [0u8; 1024];
            loop {
                match tokio::io::AsyncReadExt::read(&mut stream, &mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
            }
        })
        .await;
    }
}
