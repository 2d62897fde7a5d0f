//! The drivers' bounds (peers, inbound queue), cancellation of dropped
//! requests and segmented replies, over real loopback UDP sockets.
use std::net::SocketAddr;
use std::time::Duration;

use megaco::model::*;
use megaco::MegacoMessage;
use megaco_stack::endpoint::EndpointEvent;
use megaco_stack::engine::{Config, Event};
use megaco_stack::{build, tcp, udp, Encoding, Inbound, Stats};
use tokio::net::UdpSocket;

fn mid(a: u8) -> Mid {
    Mid::Ip4(Ip4Address {
        address: [127, 0, 0, a],
        port: Some(2944),
    })
}

fn config(a: u8) -> Config {
    let mut c = Config::new(mid(a));
    c.encoding = Encoding::compact();
    c.version = 3;
    c
}

fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn notify(event: u32) -> ActionRequest {
    build::notify(ContextId(1), TerminationId::new("t1"), event, "al/on")
}

/// A raw peer asks for transaction `id` (a ServiceChange, compact text).
async fn ask(peer: &UdpSocket, to: SocketAddr, id: u32) {
    let req = format!("!/1 [127.0.0.9]:2944 T={id}{{C=-{{SC=ROOT{{SV{{MT=RS,RE=\"901\"}}}}}}}}");
    peer.send_to(req.as_bytes(), to).await.unwrap();
}

/// A raw peer sends the request `id`, a Notify (which, unlike a
/// ServiceChange, does not register it).
async fn ask_notify(peer: &UdpSocket, to: SocketAddr, id: u32) {
    let req = format!("!/1 [127.0.0.9]:2944 T={id}{{C=1{{N=t1{{OE=3{{al/on}}}}}}}}");
    peer.send_to(req.as_bytes(), to).await.unwrap();
}

async fn recv(peer: &UdpSocket) -> MegacoMessage {
    let mut buf = vec![0u8; 65_535];
    let (n, _) = tokio::time::timeout(Duration::from_secs(30), peer.recv_from(&mut buf))
        .await
        .expect("no datagram")
        .unwrap();
    megaco::text::decode(&buf[..n]).unwrap()
}

fn transactions(msg: MegacoMessage) -> Vec<Transaction> {
    match msg.mess.body {
        MessageBody::Transactions(t) => t.to_vec(),
        MessageBody::Error(e) => panic!("{e:?}"),
    }
}

/// Waits (without asserting on time) until the stats satisfy `cond`.
async fn until(stats: impl Fn() -> Stats, cond: impl Fn(&Stats) -> bool) -> Stats {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let s = stats();
            if cond(&s) {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("stats never got there")
}

/// The id of the request a raw peer received.
async fn request_id(peer: &UdpSocket) -> u32 {
    match &transactions(recv(peer).await)[..] {
        [Transaction::Request(r)] => r.transaction_id,
        other => panic!("{other:?}"),
    }
}

/// A reply from the raw peer, compact text.
async fn answer(peer: &UdpSocket, to: SocketAddr, id: u32) {
    let msg = format!("!/1 [127.0.0.9]:2944 P={id}{{C=1{{N=t1}}}}");
    peer.send_to(msg.as_bytes(), to).await.unwrap();
}

/// Dropping a request future cancels its transaction: the engine forgets
/// it (so it is no longer resent) and a late reply is unexpected.
#[tokio::test]
async fn dropped_request_future_cancels_the_transaction() {
    let peer = UdpSocket::bind(any_port()).await.unwrap();
    let (conn, mut incoming) = udp::connect(any_port(), peer.local_addr().unwrap(), config(1))
        .await
        .unwrap();
    let first = tokio::spawn({
        let conn = conn.clone();
        async move { conn.request(vec![notify(1)]).await }
    });
    let id1 = request_id(&peer).await;
    first.abort();
    assert!(first.await.unwrap_err().is_cancelled());

    // The cancel went down the same command queue before this request.
    let second = tokio::spawn({
        let conn = conn.clone();
        async move { conn.request(vec![notify(2)]).await }
    });
    let id2 = request_id(&peer).await;
    assert_ne!(id1, id2);

    answer(&peer, conn.local_addr(), id1).await;
    match incoming.recv().await {
        Some(Inbound::Event {
            event: Event::UnexpectedReply { transaction_id, .. },
            ..
        }) => assert_eq!(transaction_id, id1),
        other => panic!("{other:?}"),
    }
    answer(&peer, conn.local_addr(), id2).await;
    assert!(matches!(
        second.await.unwrap(),
        Ok(TransactionResult::ActionReplies(_))
    ));
}

/// Messages from new addresses beyond `max_peers` are dropped and
/// counted; an unregistered peer with nothing live expires after its idle
/// time, making room.
#[tokio::test]
async fn peers_are_bounded_and_idle_ones_expire() {
    let mut cfg = config(1);
    cfg.transport.max_peers = 1;
    cfg.transport.peer_idle_timeout = Duration::from_millis(50);
    cfg.reply_timer = Some(Duration::from_millis(10));
    let (ep, mut incoming) = udp::bind(any_port(), cfg).await.unwrap();
    let a = UdpSocket::bind(any_port()).await.unwrap();
    let b = UdpSocket::bind(any_port()).await.unwrap();

    ask_notify(&a, ep.local_addr(), 1).await;
    let req = incoming.next_request().await.unwrap();
    assert_eq!(req.peer(), a.local_addr().unwrap());

    // While A's request is unanswered, A stays and B is refused.
    ask_notify(&b, ep.local_addr(), 7).await;
    let s = until(|| ep.stats(), |s| s.peers_refused >= 1).await;
    assert_eq!((s.peers, s.peers_refused, s.peers_expired), (1, 1, 0));

    let result = build::default_replies(&req.actions);
    req.reply(result).await.unwrap();
    assert!(matches!(
        &transactions(recv(&a).await)[..],
        [Transaction::Reply(_)]
    ));

    // A's cached reply expires, then A itself.
    let s = until(|| ep.stats(), |s| s.peers_expired >= 1).await;
    assert_eq!(s.peers, 0);

    // Now B gets in.
    ask_notify(&b, ep.local_addr(), 8).await;
    let req = incoming.next_request().await.unwrap();
    assert_eq!(req.peer(), b.local_addr().unwrap());
    assert_eq!(req.transaction_id(), 8);
    assert_eq!(ep.stats().peers, 1);
}

/// With the Incoming queue full, a new request is answered with 503 and
/// other events are dropped; both counted. Queued requests stay
/// answerable.
#[tokio::test]
async fn full_inbound_queue_answers_503_and_drops_events() {
    let mut cfg = config(1);
    // The peer's admission (an endpoint event, taken while half the
    // queue is free) and its first request fill it.
    cfg.transport.inbound_queue = 2;
    let (ep, mut incoming) = udp::bind(any_port(), cfg).await.unwrap();
    let peer = UdpSocket::bind(any_port()).await.unwrap();

    ask(&peer, ep.local_addr(), 1).await;
    ask(&peer, ep.local_addr(), 2).await;
    match &transactions(recv(&peer).await)[..] {
        [Transaction::Reply(TransactionReply {
            transaction_id: 2,
            result: TransactionResult::Error(e),
            ..
        })] => assert_eq!(e.error_code, 503),
        other => panic!("{other:?}"),
    }
    // Garbage: the peer still gets its 400, the event is dropped.
    peer.send_to(b"garbage", ep.local_addr()).await.unwrap();
    let MessageBody::Error(e) = recv(&peer).await.mess.body else {
        panic!()
    };
    assert_eq!(e.error_code, 400);
    let s = ep.stats();
    assert_eq!(s.requests_refused, 1);
    assert_eq!(s.events_dropped, 1);

    assert!(matches!(
        incoming.recv().await,
        Some(Inbound::Endpoint(EndpointEvent::PeerAdmitted { .. }))
    ));
    let req = incoming.next_request().await.unwrap();
    assert_eq!(req.transaction_id(), 1);
    let result = build::default_replies(&req.actions);
    req.reply(result).await.unwrap();
    assert!(matches!(
        &transactions(recv(&peer).await)[..],
        [Transaction::Reply(TransactionReply {
            transaction_id: 1,
            result: TransactionResult::ActionReplies(_),
            ..
        })]
    ));
}

/// A peer flooding a busy stack (its requests find the queue to the user
/// full) gets 503s within its error rate limit, the rest counted, not
/// one per request.
#[tokio::test]
async fn refusals_of_a_full_queue_keep_to_the_error_rate_limit() {
    let mut cfg = config(1);
    cfg.transport.inbound_queue = 2;
    let (ep, _incoming) = udp::bind(any_port(), cfg).await.unwrap();
    let peer = UdpSocket::bind(any_port()).await.unwrap();
    let body: String = (1..=200)
        .map(|id| format!("T={id}{{C=1{{N=t1{{OE=3{{al/on}}}}}}}}"))
        .collect();
    let msg = format!("!/1 [127.0.0.9]:2944 {body}");
    peer.send_to(msg.as_bytes(), ep.local_addr()).await.unwrap();
    let s = until(|| ep.stats(), |s| s.requests_refused >= 199).await;
    // At most the burst of 10 and what the rate added meanwhile went out.
    assert!(s.errors_rate_limited > 0, "{s:?}");
    let first = transactions(recv(&peer).await);
    assert!(matches!(
        &first[..],
        [Transaction::Reply(TransactionReply { result: TransactionResult::Error(e), .. })]
            if e.error_code == 503
    ));
}

/// A UDP peer flooding a busy stack takes at most half the queue to the
/// user: another peer's requests still find room, and reach the user.
#[tokio::test]
async fn one_flooding_udp_peer_leaves_room_for_the_others() {
    let mut cfg = config(1);
    cfg.transport.inbound_queue = 8;
    let (ep, mut incoming) = udp::bind(any_port(), cfg).await.unwrap();
    let flooder = UdpSocket::bind(any_port()).await.unwrap();
    let other = UdpSocket::bind(any_port()).await.unwrap();

    // Its admission (an endpoint event) and four requests fill the queue
    // past half; the other sixteen are refused.
    let body: String = (1..=20)
        .map(|id| format!("T={id}{{C=1{{N=t1{{OE=3{{al/on}}}}}}}}"))
        .collect();
    let msg = format!("!/1 [127.0.0.9]:2944 {body}");
    flooder
        .send_to(msg.as_bytes(), ep.local_addr())
        .await
        .unwrap();
    let s = until(|| ep.stats(), |s| s.requests_refused >= 16).await;
    assert_eq!((s.requests_refused, s.requests_over_share), (16, 16));

    ask_notify(&other, ep.local_addr(), 101).await;
    ask_notify(&other, ep.local_addr(), 102).await;
    let mut from_other = Vec::new();
    let mut from_flooder = 0;
    while from_other.len() < 2 {
        let req = tokio::time::timeout(Duration::from_secs(30), incoming.next_request())
            .await
            .expect("the other peer's requests never came")
            .unwrap();
        if req.peer() == other.local_addr().unwrap() {
            from_other.push(req.transaction_id());
        } else {
            from_flooder += 1;
        }
    }
    assert_eq!((from_other, from_flooder), (vec![101, 102], 4));
    assert_eq!(ep.stats().requests_refused, 16);
}

/// A reply in two segments (v3) from a raw peer: each is acknowledged,
/// then the transaction, and the request resolves with the whole reply.
#[tokio::test]
async fn segmented_reply_over_udp() {
    let peer = UdpSocket::bind(any_port()).await.unwrap();
    let (conn, _incoming) = udp::connect(any_port(), peer.local_addr().unwrap(), config(1))
        .await
        .unwrap();
    let pending = tokio::spawn({
        let conn = conn.clone();
        async move { conn.request(vec![notify(1), notify(2)]).await }
    });
    let id = request_id(&peer).await;
    for (n, ctx, last) in [(2u16, 2u32, true), (1, 1, false)] {
        let end = if last { "/END" } else { "" };
        let msg = format!("!/3 [127.0.0.9]:2944 P={id}/{n}{end}{{C={ctx}{{N=t1}}}}");
        peer.send_to(msg.as_bytes(), conn.local_addr())
            .await
            .unwrap();
        match &transactions(recv(&peer).await)[..] {
            [Transaction::SegmentReply(sr)] => {
                assert_eq!(
                    (
                        sr.transaction_id,
                        sr.segment_number,
                        sr.segmentation_complete
                    ),
                    (id, n, last)
                );
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        &transactions(recv(&peer).await)[..],
        [Transaction::ResponseAck(a)] if a[0].first_ack == id
    ));
    let TransactionResult::ActionReplies(r) = pending.await.unwrap().unwrap() else {
        panic!()
    };
    let contexts: Vec<u32> = r.iter().map(|a| a.context_id.0).collect();
    assert_eq!(contexts, vec![1, 2]);
}

/// Over TCP, a request finding the Incoming queue full gets 503 too; when
/// the peer then closes, the user still gets the queued request and then
/// the end of the stream.
#[tokio::test]
async fn tcp_full_queue_then_close_is_still_reported() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut cfg = config(1);
    cfg.transport.inbound_queue = 1;
    let listener = tcp::Listener::bind(any_port(), cfg).await.unwrap();
    let mut raw = tokio::net::TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    for id in [1, 2] {
        raw.write_all(&framed_register(id)).await.unwrap();
    }
    let (conn, mut incoming) = listener.accept().await.unwrap();
    let mut h = [0u8; 4];
    raw.read_exact(&mut h).await.unwrap();
    let len = usize::from(u16::from_be_bytes([h[2], h[3]])) - 4;
    let mut reply = vec![0u8; len];
    raw.read_exact(&mut reply).await.unwrap();
    match &transactions(megaco::text::decode(&reply).unwrap())[..] {
        [Transaction::Reply(TransactionReply {
            transaction_id: 2,
            result: TransactionResult::Error(e),
            ..
        })] => assert_eq!(e.error_code, 503),
        other => panic!("{other:?}"),
    }
    assert_eq!(conn.handle().stats().requests_refused, 1);
    drop(raw);
    match incoming.recv().await {
        Some(Inbound::Request(req)) => assert_eq!(req.transaction_id(), 1),
        other => panic!("{other:?}"),
    }
    loop {
        match incoming.recv().await {
            Some(Inbound::Closed { .. }) => break,
            Some(Inbound::Event { .. }) => continue,
            other => panic!("{other:?}"),
        }
    }
}

/// A TPKT frame holding a ServiceChange request `id` (compact text).
fn framed_register(id: u32) -> Vec<u8> {
    let body = format!("!/1 [127.0.0.9]:2944 T={id}{{C=-{{SC=ROOT{{SV{{MT=RS,RE=\"901\"}}}}}}}}");
    let mut framed = vec![3, 0, 0, (body.len() + 4) as u8];
    framed.extend_from_slice(body.as_bytes());
    framed
}

/// A listener keeps at most `max_peers` proven connections; a registered
/// one keeps its slot, so a newcomer is closed on its first message and
/// counted; the slot frees when the registered peer leaves.
#[tokio::test]
async fn tcp_listener_keeps_at_most_max_peers_connections() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut cfg = config(1);
    cfg.transport.max_peers = 1;
    let listener = tcp::Listener::bind(any_port(), cfg).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut first = tokio::net::TcpStream::connect(addr).await.unwrap();
    first.write_all(&framed_register(1)).await.unwrap();
    let (_conn, mut incoming) = listener.accept().await.unwrap();
    let req = incoming.next_request().await.unwrap();
    let result = build::default_replies(&req.actions);
    req.reply(result).await.unwrap();
    let mut h = [0u8; 4];
    first.read_exact(&mut h).await.unwrap();

    // The second connection proves itself while the only slot is held by
    // a registered peer: it is closed.
    let mut second = tokio::net::TcpStream::connect(addr).await.unwrap();
    second.write_all(&framed_register(1)).await.unwrap();
    let mut buf = [0u8; 1];
    let n = tokio::time::timeout(Duration::from_secs(10), second.read(&mut buf))
        .await
        .expect("the refused connection is closed")
        .unwrap_or(0);
    assert_eq!(n, 0, "the refused connection is closed without data");
    assert_eq!(listener.refused(), 1);

    // The first peer leaves: its slot frees and a third is accepted.
    drop(first);
    loop {
        match incoming.recv().await {
            Some(Inbound::Closed { .. }) | None => break,
            Some(_) => continue,
        }
    }
    let mut third = tokio::net::TcpStream::connect(addr).await.unwrap();
    third.write_all(&framed_register(1)).await.unwrap();
    let (_conn, mut incoming) = tokio::time::timeout(Duration::from_secs(10), listener.accept())
        .await
        .expect("a connection within the limit is accepted")
        .unwrap();
    assert!(incoming.next_request().await.is_some());
    assert_eq!(listener.refused(), 1);
}

/// With `tcp_idle_timeout`, a connection that sends nothing is closed
/// (TimedOut) and its listener slot is free again; one that keeps sending
/// stays.
#[tokio::test]
async fn silent_tcp_connection_is_closed_after_the_idle_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut cfg = config(1);
    cfg.transport.max_peers = 1;
    cfg.transport.tcp_idle_timeout = Some(Duration::from_secs(2));
    cfg.transport.unproven_timeout = Duration::from_secs(2);
    let listener = tcp::Listener::bind(any_port(), cfg).await.unwrap();
    let addr = listener.local_addr().unwrap();

    let mut silent = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut buf = [0u8; 1];
    let n = tokio::time::timeout(Duration::from_secs(10), silent.read(&mut buf))
        .await
        .expect("the silent connection is closed")
        .unwrap_or(0);
    assert_eq!(n, 0);
    assert_eq!(listener.stats().unproven_expired, 1);

    // The slot is free: a talking peer is accepted and kept past the
    // timeout while it sends a message more often than that.
    // (A connection is handed out by its first message.)
    let mut talker = tokio::net::TcpStream::connect(addr).await.unwrap();
    talker.write_all(&framed_register(1)).await.unwrap();
    let (_conn, mut incoming) = tokio::time::timeout(Duration::from_secs(10), listener.accept())
        .await
        .expect("accepted")
        .unwrap();
    // 5 messages 0.6 s apart: 3 s in all, each gap well inside the 2 s
    for id in 1..=5u32 {
        if id > 1 {
            talker.write_all(&framed_register(id)).await.unwrap();
        }
        match incoming.recv().await {
            Some(Inbound::Request(req)) => assert_eq!(req.transaction_id(), id),
            other => panic!("{other:?}"),
        }
        tokio::time::sleep(Duration::from_millis(600)).await;
    }
    assert_eq!(listener.refused(), 0);
}

/// TPKT frames of Notify requests `ids` (compact text).
fn framed_notifies(ids: std::ops::RangeInclusive<u32>) -> Vec<u8> {
    ids.flat_map(|id| {
        let body = format!("!/1 [127.0.0.9]:2944 T={id}{{C=1{{N=t1{{OE=3{{al/on}}}}}}}}");
        let mut framed = vec![3, 0, 0, (body.len() + 4) as u8];
        framed.extend_from_slice(body.as_bytes());
        framed
    })
    .collect()
}

/// Reads TPKT frames from `raw` until `n` transaction replies have come;
/// their ids.
async fn read_replies(raw: &mut tokio::net::TcpStream, n: usize) -> Vec<u32> {
    use tokio::io::AsyncReadExt;
    let mut ids = Vec::new();
    while ids.len() < n {
        let mut header = [0u8; 4];
        raw.read_exact(&mut header).await.unwrap();
        let len = usize::from(u16::from_be_bytes([header[2], header[3]])) - 4;
        let mut body = vec![0u8; len];
        raw.read_exact(&mut body).await.unwrap();
        for t in transactions(megaco::text::decode(&body).unwrap()) {
            if let Transaction::Reply(r) = t {
                ids.push(r.transaction_id);
            }
        }
    }
    ids
}

/// The next `n` requests from `incoming` (other events skipped; the end
/// of a stream or of the stack before them fails the test, as does
/// waiting 30 s).
async fn next_requests(
    incoming: &mut megaco_stack::Incoming,
    n: usize,
) -> Vec<megaco_stack::IncomingRequest> {
    let mut requests = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), async {
        while requests.len() < n {
            match incoming.recv().await {
                Some(Inbound::Request(req)) => requests.push(req),
                Some(Inbound::Event { .. } | Inbound::Endpoint(_)) => {}
                other => panic!("{other:?}"),
            }
        }
    })
    .await
    .expect("every request reaches the user");
    requests
}

/// A stack on a TCP port of its own with `cfg`, and a raw connection to
/// it.
async fn tcp_stack(
    cfg: megaco_stack::engine::Config,
) -> (
    megaco_stack::Stack,
    megaco_stack::Incoming,
    tokio::net::TcpStream,
) {
    let (stack, incoming) = megaco_stack::Stack::builder(cfg)
        .tcp(any_port())
        .start()
        .await
        .unwrap();
    let raw = tokio::net::TcpStream::connect(stack.tcp_addrs()[0])
        .await
        .unwrap();
    (stack, incoming, raw)
}

/// A TCP peer that reads what it is sent gets every reply to a burst of
/// requests far larger than the write queue, answered all at once: a
/// long queue holds back the reading of the peer's requests, it does not
/// drop a peer that reads.
#[tokio::test]
async fn a_burst_larger_than_the_write_queue_is_answered() {
    use tokio::io::AsyncWriteExt;
    let mut cfg = config(1);
    cfg.transport.tcp_write_queue = 4;
    let (stack, mut incoming, mut raw) = tcp_stack(cfg).await;
    const N: usize = 300;
    raw.write_all(&framed_notifies(1..=N as u32)).await.unwrap();
    let requests = next_requests(&mut incoming, N).await;
    // Every reply handed over before the stack runs again: they leave in
    // one go.
    let sent: Vec<_> = requests
        .into_iter()
        .map(|req| {
            let result = build::default_replies(&req.actions);
            req.send_reply(result)
        })
        .collect();
    let mut ids = tokio::time::timeout(Duration::from_secs(30), read_replies(&mut raw, N))
        .await
        .expect("every reply comes");
    ids.sort_unstable();
    assert_eq!(ids, (1..=N as u32).collect::<Vec<_>>());
    for s in sent {
        s.await.unwrap();
    }
    assert_eq!(stack.stats().connections_closed, 0);
}

/// A burst over TCP beyond what the user has room for waits for it: the
/// stack stops reading the connection (TCP pushes back on the peer)
/// instead of refusing requests with 503, and every request reaches the
/// user and is answered.
#[tokio::test]
async fn a_tcp_burst_beyond_the_users_queue_is_answered_in_full() {
    use tokio::io::AsyncWriteExt;
    let mut cfg = config(1);
    cfg.transport.inbound_queue = 4;
    let (stack, mut incoming, mut raw) = tcp_stack(cfg).await;
    const N: usize = 200;
    raw.write_all(&framed_notifies(1..=N as u32)).await.unwrap();
    // The user answers what reached it, once the burst is held.
    let s = until(|| stack.stats(), |s| s.requests_held > 0).await;
    assert_eq!(s.requests_refused, 0);
    let answering = tokio::spawn(async move {
        while let Some(item) = incoming.recv().await {
            if let Inbound::Request(req) = item {
                let result = build::default_replies(&req.actions);
                let _ = req.send_reply(result).await;
            }
        }
    });
    let mut ids = tokio::time::timeout(Duration::from_secs(30), read_replies(&mut raw, N))
        .await
        .expect("every request is answered");
    ids.sort_unstable();
    assert_eq!(ids, (1..=N as u32).collect::<Vec<_>>());
    assert_eq!(stack.stats().requests_refused, 0);
    answering.abort();
}

/// Requests over TCP that wait for the user reach it in the order the
/// peer sent them, and the end of the stream comes after them.
#[tokio::test]
async fn held_tcp_requests_come_in_order_then_the_close() {
    use tokio::io::AsyncWriteExt;
    let mut cfg = config(1);
    cfg.transport.inbound_queue = 2;
    let (stack, mut incoming, mut raw) = tcp_stack(cfg).await;
    const N: u32 = 50;
    raw.write_all(&framed_notifies(1..=N)).await.unwrap();
    raw.shutdown().await.unwrap();
    until(|| stack.stats(), |s| s.requests_held > 0).await;
    let requests = next_requests(&mut incoming, N as usize).await;
    let ids: Vec<u32> = requests.iter().map(|r| r.transaction_id()).collect();
    assert_eq!(ids, (1..=N).collect::<Vec<_>>());
    // The peer closed its side: once answered, the stream ends.
    for req in requests {
        let result = build::default_replies(&req.actions);
        req.reply(result).await.unwrap();
    }
    let mut got = tokio::time::timeout(Duration::from_secs(30), read_replies(&mut raw, N as usize))
        .await
        .expect("every reply comes");
    got.sort_unstable();
    assert_eq!(got, (1..=N).collect::<Vec<_>>());
    let closed = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match incoming.recv().await {
                Some(Inbound::Closed { error, .. }) => break error,
                Some(Inbound::Event { .. } | Inbound::Endpoint(_)) => {}
                other => panic!("{other:?}"),
            }
        }
    })
    .await
    .expect("the close is reported");
    assert_eq!(closed, None);
    assert_eq!(stack.stats().requests_refused, 0);
}

/// A TCP peer that sends requests and never reads is dropped
/// ([`CloseReason::SlowReader`](megaco_stack::endpoint::CloseReason)); the
/// user, behind with its queue full meanwhile, still learns of the close
/// after the requests queued, and replying to them says the peer is gone.
#[tokio::test]
async fn a_close_is_reported_even_when_the_queue_is_full() {
    use tokio::io::AsyncWriteExt;
    let mut cfg = config(1);
    cfg.transport.inbound_queue = 4;
    cfg.transport.tcp_write_queue = 1;
    cfg.transport.tcp_write_timeout = Duration::from_secs(1);
    let (stack, mut incoming) = megaco_stack::Stack::builder(cfg)
        .tcp(any_port())
        .start()
        .await
        .unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let raw = socket.connect(stack.tcp_addrs()[0]).await.unwrap();
    // Requests until the stack gives up on us; we read nothing.
    let (_unread, mut raw) = raw.into_split();
    let batch = framed_notifies(1..=1000);
    let sending = tokio::spawn(tokio::time::timeout(Duration::from_secs(60), async move {
        while raw.write_all(&batch).await.is_ok() {}
    }));
    // The user answers the first requests with replies too large for the
    // peer's buffers, then reads no more while the stack drops the peer.
    tokio::time::timeout(Duration::from_secs(30), async {
        let mut answered = 0;
        while answered < 100 {
            match incoming.recv().await {
                Some(Inbound::Request(req)) => {
                    drop(req.send_reply(TransactionResult::Error(ErrorDescriptor {
                        error_code: 500,
                        error_text: Some("x".repeat(30_000).into()),
                    })));
                    answered += 1;
                }
                Some(_) => {}
                None => panic!("the stack stopped"),
            }
        }
    })
    .await
    .expect("the first requests reach the user");
    until(|| stack.stats(), |s| s.connections_closed == 1).await;
    let mut requests = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match incoming.recv().await {
                Some(Inbound::Request(req)) => requests.push(req),
                Some(Inbound::Closed { error, .. }) => break error,
                Some(_) => {}
                None => panic!("the queue ended without the close"),
            }
        }
    })
    .await
    .expect("no close reported");
    assert_eq!(
        closed,
        Some(megaco_stack::endpoint::CloseReason::SlowReader)
    );
    assert!(!requests.is_empty());
    for req in requests {
        let result = build::default_replies(&req.actions);
        assert!(matches!(
            req.reply(result).await,
            Err(megaco_stack::Error::Closed)
        ));
    }
    sending.abort();
}

/// All TCP connections together hold at most `tcp_write_total` bytes
/// waiting: past it, a connection that already has some waiting is
/// dropped as not reading, far below its own `tcp_write_buffer` and
/// before its write timeout, while a peer that reads is still answered.
#[tokio::test]
async fn slow_readers_together_hold_at_most_the_total_write_budget() {
    use tokio::io::AsyncWriteExt;
    let mut cfg = config(1);
    // Neither the per-connection bound, the pause in reading nor the
    // timeout comes into play: only the total can end a connection.
    cfg.transport.tcp_write_buffer = 1 << 30;
    cfg.transport.tcp_write_queue = 1 << 20;
    cfg.transport.tcp_write_timeout = Duration::from_secs(600);
    cfg.transport.tcp_write_total = 1 << 20;
    cfg.transport.inbound_queue = 1 << 16;
    let (stack, mut incoming) = megaco_stack::Stack::builder(cfg)
        .tcp(any_port())
        .start()
        .await
        .unwrap();
    let addr = stack.tcp_addrs()[0];
    // Every request gets a 30 KB error reply; closes are passed on.
    let (closes_tx, mut closes) = tokio::sync::mpsc::unbounded_channel();
    let answering = tokio::spawn(async move {
        while let Some(item) = incoming.recv().await {
            match item {
                Inbound::Request(req) => {
                    // Handed over at once; when it leaves does not matter.
                    drop(req.send_reply(TransactionResult::Error(ErrorDescriptor {
                        error_code: 500,
                        error_text: Some("x".repeat(30_000).into()),
                    })));
                }
                Inbound::Closed { error, .. } => {
                    let _ = closes_tx.send(error);
                }
                _ => {}
            }
        }
    });
    // Two peers that never read, with small receive buffers, keep
    // asking: 400 requests each, 12 MB of replies between them.
    let mut silent = Vec::new();
    for _ in 0..2 {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let mut raw = socket.connect(addr).await.unwrap();
        raw.write_all(&framed_notifies(1..=400)).await.unwrap();
        silent.push(raw);
    }
    let s = until(|| stack.stats(), |s| s.connections_closed >= 1).await;
    assert!(s.connections_closed <= 2, "{s:?}");
    let reason = tokio::time::timeout(Duration::from_secs(30), closes.recv())
        .await
        .expect("the close is reported");
    assert_eq!(
        reason,
        Some(Some(megaco_stack::endpoint::CloseReason::SlowReader))
    );
    // A peer that reads is answered in full all the same.
    let mut reader = tokio::net::TcpStream::connect(addr).await.unwrap();
    reader.write_all(&framed_notifies(1..=20)).await.unwrap();
    let mut ids = tokio::time::timeout(Duration::from_secs(30), read_replies(&mut reader, 20))
        .await
        .expect("the reading peer is answered");
    ids.sort_unstable();
    assert_eq!(ids, (1..=20).collect::<Vec<_>>());
    drop(silent);
    answering.abort();
}

/// A connection held for the user (its reading stopped while the queue
/// to the user is full) is not closed for a frame it could not finish
/// meanwhile: the frame timeout runs against the peer, not against us.
#[tokio::test]
async fn a_held_connection_is_not_timed_out_mid_frame() {
    use tokio::io::AsyncWriteExt;
    let mut cfg = config(1);
    cfg.transport.inbound_queue = 2;
    cfg.transport.tcp_frame_timeout = Duration::from_millis(300);
    let (stack, mut incoming, mut raw) = tcp_stack(cfg).await;
    const N: u32 = 40;
    // N frames and the first half of one more, in one read's worth.
    let mut bytes = framed_notifies(1..=N);
    let last = framed_notifies(N + 1..=N + 1);
    bytes.extend_from_slice(&last[..last.len() / 2]);
    assert!(bytes.len() < 4096);
    raw.write_all(&bytes).await.unwrap();
    until(|| stack.stats(), |s| s.requests_held > 0).await;
    // The user is behind for longer than the frame timeout.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(stack.stats().connections_closed, 0);
    raw.write_all(&last[last.len() / 2..]).await.unwrap();
    let ids: Vec<u32> = next_requests(&mut incoming, N as usize + 1)
        .await
        .iter()
        .map(|r| r.transaction_id())
        .collect();
    assert_eq!(ids, (1..=N + 1).collect::<Vec<_>>());
    assert_eq!(stack.stats().connections_closed, 0);
}

/// A user that, before answering a TCP peer's request, asks that peer
/// something of its own is not stalled by the hold: while a reply of
/// the peer is awaited, its connection is read (its requests beyond the
/// user's queue are answered 503 meanwhile), so the reply comes; the
/// requests held before still reach the user.
#[tokio::test]
async fn a_held_peer_is_read_while_its_reply_is_awaited() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut cfg = config(1);
    cfg.transport.inbound_queue = 2;
    let (stack, mut incoming, mut raw) = tcp_stack(cfg).await;
    const N: u32 = 20;
    raw.write_all(&framed_notifies(1..=N)).await.unwrap();
    until(|| stack.stats(), |s| s.requests_held > 0).await;
    let first = next_requests(&mut incoming, 1).await.remove(0);
    let handle = stack.handle().clone();
    let peer = first.source();
    let ours = tokio::spawn(async move { handle.request(peer, vec![notify(7)]).await });
    // The peer reads our request and answers it.
    let mut header = [0u8; 4];
    raw.read_exact(&mut header).await.unwrap();
    let mut body = vec![0u8; usize::from(u16::from_be_bytes([header[2], header[3]])) - 4];
    raw.read_exact(&mut body).await.unwrap();
    let id = match &transactions(megaco::text::decode(&body).unwrap())[..] {
        [Transaction::Request(r)] => r.transaction_id,
        other => panic!("{other:?}"),
    };
    let reply = format!("!/1 [127.0.0.9]:2944 P={id}{{C=1{{N=t1}}}}");
    let mut framed = vec![3, 0, 0, (reply.len() + 4) as u8];
    framed.extend_from_slice(reply.as_bytes());
    raw.write_all(&framed).await.unwrap();
    let result = tokio::time::timeout(Duration::from_secs(20), ours)
        .await
        .expect("the peer's reply is read")
        .unwrap()
        .unwrap();
    assert!(
        matches!(result, TransactionResult::ActionReplies(_)),
        "{result:?}"
    );
    // What was held still comes, in order.
    first
        .reply(build::default_replies(&[notify(1)]))
        .await
        .unwrap();
    let ids: Vec<u32> = next_requests(&mut incoming, N as usize - 1)
        .await
        .iter()
        .map(|r| r.transaction_id())
        .collect();
    assert_eq!(ids, (2..=N).collect::<Vec<_>>());
}
