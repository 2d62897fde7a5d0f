//! Graceful close over TCP, against a raw peer that shows what reaches the
//! wire: what we wrote is handed over before our side closes, and a close
//! waits for the SegmentReplies to our segmented replies, or their timer.
use std::net::SocketAddr;
use std::time::Duration;

use megaco::model::*;
use megaco_stack::engine::Config;
use megaco_stack::{build, tcp, Encoding};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn config() -> Config {
    let mut c = Config::new(Mid::Ip4(Ip4Address {
        address: [127, 0, 0, 1],
        port: Some(2944),
    }));
    c.encoding = Encoding::compact();
    c.version = 3;
    c
}

fn any() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// `text` in a TPKT frame.
fn frame(text: &str) -> Vec<u8> {
    let mut f = vec![3, 0];
    f.extend_from_slice(&u16::try_from(text.len() + 4).unwrap().to_be_bytes());
    f.extend_from_slice(text.as_bytes());
    f
}

/// The next message, or `None` at the end of the stream.
async fn read_message(s: &mut TcpStream) -> Option<MegacoMessage> {
    let mut header = [0u8; 4];
    s.read_exact(&mut header).await.ok()?;
    let len = usize::from(u16::from_be_bytes([header[2], header[3]])) - 4;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).await.unwrap();
    Some(megaco::text::decode(&body).unwrap())
}

fn transaction(msg: &MegacoMessage) -> &Transaction {
    match &msg.mess.body {
        MessageBody::Transactions(t) => &t[0],
        MessageBody::Error(e) => panic!("{e:?}"),
    }
}

/// A three-action v3 request, transaction 7.
const REQUEST: &str = "!/3 [127.0.0.9]:2944 T=7{C=1{N=t1{OE=1{al/of}}},\
                       C=2{N=t1{OE=1{al/of}}},C=3{N=t1{OE=1{al/of}}}}";

/// Our MGC (a TCP listener) answers a raw peer's three-action request in
/// segments of one action each, and its user closes the connection at
/// once; returns the raw peer, the close under way, and the segment
/// numbers received.
async fn segmented_reply_then_close(
    segment_recv_timer: Duration,
) -> (TcpStream, tokio::task::JoinHandle<()>, Vec<u16>) {
    let mut cfg = config();
    cfg.max_pdu_size = Some(45);
    cfg.segment_recv_timer = segment_recv_timer;
    let listener = tcp::Listener::bind(any(), cfg).await.unwrap();
    let mut raw = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    raw.write_all(&frame(REQUEST)).await.unwrap();
    let (conn, mut incoming) = listener.accept().await.unwrap();
    let req = incoming.next_request().await.unwrap();
    let result = build::default_replies(req.actions());
    req.reply(result).await.unwrap();
    let closing = tokio::spawn(async move {
        let _listener = listener;
        conn.close().await;
    });
    let mut segments = Vec::new();
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(5), read_message(&mut raw))
            .await
            .expect("the segments come")
            .expect("the segments come before the close");
        let Transaction::Reply(r) = transaction(&msg) else {
            panic!("{msg:?}")
        };
        assert_eq!(r.transaction_id, 7);
        segments.push(r.segment_number.unwrap());
        if r.segmentation_complete {
            break;
        }
    }
    (raw, closing, segments)
}

/// The close waits for the peer's SegmentReplies, then closes (long
/// before the segment timer, 30 s here).
#[tokio::test]
async fn close_waits_for_the_segment_replies() {
    let (mut raw, closing, segments) = segmented_reply_then_close(Duration::from_secs(30)).await;
    assert_eq!(segments, [1, 2, 3]);
    // Still open while they are missing.
    assert!(
        tokio::time::timeout(Duration::from_millis(300), read_message(&mut raw))
            .await
            .is_err(),
        "closed before the SegmentReplies"
    );
    assert!(!closing.is_finished());
    for sn in segments {
        let end = if sn == 3 { "/&" } else { "" };
        let sm = format!("!/3 [127.0.0.9]:2944 SM=7/{sn}{end}");
        raw.write_all(&frame(&sm)).await.unwrap();
    }
    let end = tokio::time::timeout(Duration::from_secs(10), read_message(&mut raw))
        .await
        .expect("closed once the SegmentReplies came");
    assert!(end.is_none(), "{end:?}");
    drop(raw);
    tokio::time::timeout(Duration::from_secs(10), closing)
        .await
        .expect("the close resolves")
        .unwrap();
}

/// Without SegmentReplies, the close happens when the segment timer runs
/// out.
#[tokio::test]
async fn close_gives_up_on_missing_segment_replies_after_the_segment_timer() {
    let (mut raw, closing, segments) = segmented_reply_then_close(Duration::from_secs(2)).await;
    assert_eq!(segments, [1, 2, 3]);
    assert!(
        tokio::time::timeout(Duration::from_millis(300), read_message(&mut raw))
            .await
            .is_err(),
        "closed before the segment timer"
    );
    let end = tokio::time::timeout(Duration::from_secs(20), read_message(&mut raw))
        .await
        .expect("closed at the segment timer");
    assert!(end.is_none(), "{end:?}");
    drop(raw);
    tokio::time::timeout(Duration::from_secs(10), closing)
        .await
        .expect("the close resolves")
        .unwrap();
}

/// A client closing right after a segmented reply (as `megaco send`
/// does): the SegmentReplies and the TransactionResponseAck it writes
/// last all reach the peer, then the end of the stream, not a reset.
#[tokio::test]
async fn close_hands_over_everything_written() {
    let server = TcpListener::bind(any()).await.unwrap();
    let addr = server.local_addr().unwrap();
    let peer = tokio::spawn(async move {
        let (mut s, _) = server.accept().await.unwrap();
        let msg = read_message(&mut s).await.unwrap();
        let Transaction::Request(r) = transaction(&msg) else {
            panic!("{msg:?}")
        };
        let id = r.transaction_id;
        for (sn, ctx) in [(1, 1), (2, 2), (3, 3)] {
            let end = if sn == 3 { "/&" } else { "" };
            let segment = format!("!/3 [127.0.0.9]:2944 P={id}/{sn}{end}{{IA,C={ctx}{{N=t1}}}}");
            s.write_all(&frame(&segment)).await.unwrap();
        }
        // Read what the client sends until it closes.
        let mut seen = Vec::new();
        while let Some(msg) = read_message(&mut s).await {
            seen.push(match transaction(&msg) {
                Transaction::SegmentReply(sr) => format!("SM {}", sr.segment_number),
                Transaction::ResponseAck(a) => format!("K {}", a[0].first_ack),
                other => panic!("{other:?}"),
            });
        }
        (id, seen)
    });
    let (conn, _incoming) = tcp::connect(addr, config()).await.unwrap();
    let notify = |c| build::notify(ContextId(c), TerminationId::new("t1"), 1, "al/of");
    let reply = conn
        .request(vec![notify(1), notify(2), notify(3)])
        .await
        .unwrap();
    assert!(matches!(reply, TransactionResult::ActionReplies(ref a) if a.len() == 3));
    conn.close().await;
    let (id, seen) = tokio::time::timeout(Duration::from_secs(10), peer)
        .await
        .expect("the peer saw the end of the stream")
        .unwrap();
    // One ack, for the whole reply, after the last SegmentReply.
    assert_eq!(seen, ["SM 1", "SM 2", "SM 3", &format!("K {id}")]);
}

/// A client that sends its request and closes its side at once (a
/// half-close: it still reads) gets the reply, then the end of the
/// stream; the reply is handed over (not failed as to a closed peer).
#[tokio::test]
async fn a_half_closed_peer_still_gets_its_reply() {
    let listener = tcp::Listener::bind(any(), config()).await.unwrap();
    let mut raw = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let request = "!/3 [127.0.0.9]:2944 T=7{C=1{N=t1{OE=3{al/on}}}}";
    raw.write_all(&frame(request)).await.unwrap();
    raw.shutdown().await.unwrap();
    let (_conn, mut incoming) = listener.accept().await.unwrap();
    let req = incoming.next_request().await.unwrap();
    // The end of the client's side reaches the stack before the reply
    // (this pause only orders the two; nothing is timed).
    tokio::time::sleep(Duration::from_millis(200)).await;
    let result = build::default_replies(&req.actions);
    req.reply(result).await.expect("the reply is handed over");
    let msg = tokio::time::timeout(Duration::from_secs(10), read_message(&mut raw))
        .await
        .expect("the reply comes")
        .expect("the reply comes before the end of the stream");
    assert!(matches!(transaction(&msg), Transaction::Reply(r) if r.transaction_id == 7));
    let end = tokio::time::timeout(Duration::from_secs(10), read_message(&mut raw))
        .await
        .expect("the stream ends");
    assert!(end.is_none());
}
