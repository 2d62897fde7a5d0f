//! Our MG against our MGC over loopback UDP and TCP/TPKT, in text and BER.
use std::net::SocketAddr;
use std::time::Duration;

use megaco::model::*;
use megaco_stack::engine::{Config, Event, RequestTimer};
use megaco_stack::{build, tcp, udp, Encoding, Error, Inbound, Incoming};
use tokio::io::AsyncWriteExt;

fn mid(a: u8) -> Mid {
    Mid::Ip4(Ip4Address {
        address: [127, 0, 0, a],
        port: Some(2944),
    })
}

fn config(a: u8, encoding: Encoding) -> Config {
    let mut c = Config::new(mid(a));
    c.encoding = encoding;
    c
}

/// `f`, or a failure after 10 s (a bound against hanging, not a timing).
async fn within<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), f)
        .await
        .expect("nothing within 10 s")
}

fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// Answers every request with the default replies; counts them.
fn serve(mut incoming: Incoming) -> tokio::task::JoinHandle<usize> {
    tokio::spawn(async move {
        let mut n = 0;
        while let Some(req) = incoming.next_request().await {
            n += 1;
            let result = build::default_replies(&req.actions);
            req.reply(result).await.unwrap();
        }
        n
    })
}

fn register() -> ActionRequest {
    build::service_change(
        TerminationId::root(),
        ServiceChangeMethod::Restart,
        "901 mg col boot",
    )
}

fn notify() -> ActionRequest {
    build::notify(
        ContextId(5),
        TerminationId::new("11111111/00000000/00000001"),
        2,
        "al/on",
    )
}

/// Registers, then notifies, and checks both replies.
async fn mg_session(conn: &megaco_stack::Connection) {
    let r = conn.request(vec![register()]).await.unwrap();
    let TransactionResult::ActionReplies(a) = r else {
        panic!("{r:?}")
    };
    match &a[0].command_reply[0] {
        CommandReply::ServiceChange(sc) => {
            assert_eq!(sc.termination_ids.as_slice(), [TerminationId::root()])
        }
        other => panic!("{other:?}"),
    }
    // Several concurrent requests on one connection.
    let (x, y) = tokio::join!(conn.request(vec![notify()]), conn.request(vec![notify()]));
    for r in [x, y] {
        let TransactionResult::ActionReplies(a) = r.unwrap() else {
            panic!()
        };
        assert_eq!(a[0].context_id, ContextId(5));
        assert!(matches!(a[0].command_reply[0], CommandReply::Notify(_)));
    }
}

async fn udp_roundtrip(encoding: Encoding) {
    let (mgc, incoming) = udp::bind(any_port(), config(1, encoding.clone()))
        .await
        .unwrap();
    let server = serve(incoming);
    let (conn, _mg_incoming) = udp::connect(any_port(), mgc.local_addr(), config(2, encoding))
        .await
        .unwrap();
    mg_session(&conn).await;
    drop(mgc);
    drop(conn);
    drop(_mg_incoming);
    server.abort();
}

async fn tcp_roundtrip(encoding: Encoding) {
    let listener = tcp::Listener::bind(any_port(), config(1, encoding.clone()))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (_conn, incoming) = listener.accept().await.unwrap();
        serve(incoming).await.unwrap()
    });
    let (conn, mg_incoming) = tcp::connect(addr, config(2, encoding)).await.unwrap();
    mg_session(&conn).await;
    // Closing the MG's side ends the MGC's connection.
    drop(conn);
    drop(mg_incoming);
    let served = tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("MGC connection did not end")
        .unwrap();
    assert_eq!(served, 3);
}

#[tokio::test]
async fn udp_pretty_text() {
    udp_roundtrip(Encoding::pretty()).await;
}

#[tokio::test]
async fn udp_compact_text() {
    udp_roundtrip(Encoding::compact()).await;
}

#[tokio::test]
async fn udp_ber() {
    udp_roundtrip(Encoding::ber()).await;
}

#[tokio::test]
async fn tcp_pretty_text() {
    tcp_roundtrip(Encoding::pretty()).await;
}

#[tokio::test]
async fn tcp_ber() {
    tcp_roundtrip(Encoding::ber()).await;
}

#[tokio::test]
async fn tcp_per() {
    tcp_roundtrip(Encoding::per()).await;
}

/// Nobody answers: the request is resent, then times out.
#[tokio::test]
async fn udp_request_to_silent_peer_times_out() {
    let silent = tokio::net::UdpSocket::bind(any_port()).await.unwrap();
    let mut cfg = config(2, Encoding::compact());
    cfg.request_timer = RequestTimer {
        initial: Duration::from_millis(20),
        factor: 2,
        max_interval: Duration::from_millis(40),
        max_retries: 2,
    };
    let (conn, _incoming) = udp::connect(any_port(), silent.local_addr().unwrap(), cfg)
        .await
        .unwrap();
    let err = conn.request(vec![register()]).await.unwrap_err();
    assert!(matches!(err, Error::Timeout), "{err:?}");
    // The original and both resends reached the peer, identical.
    let mut buf = [0u8; 2048];
    let mut got = Vec::new();
    for _ in 0..3 {
        let (n, _) = silent.recv_from(&mut buf).await.unwrap();
        got.push(buf[..n].to_vec());
    }
    assert!(got.windows(2).all(|w| w[0] == w[1]));
    assert!(got[0].starts_with(b"!/1 [127.0.0.2]:2944"));
}

/// A peer that sends garbage gets a message-level error back, and the
/// user sees the decode error.
#[tokio::test]
async fn udp_garbage_gets_error_descriptor() {
    let (ep, mut incoming) = udp::bind(any_port(), config(1, Encoding::pretty()))
        .await
        .unwrap();
    let peer = tokio::net::UdpSocket::bind(any_port()).await.unwrap();
    peer.send_to(b"hello?", ep.local_addr()).await.unwrap();
    let mut buf = [0u8; 2048];
    let (n, _) = peer.recv_from(&mut buf).await.unwrap();
    let msg = megaco::text::decode(&buf[..n]).unwrap();
    assert!(matches!(
        msg.mess.body,
        MessageBody::Error(ErrorDescriptor {
            error_code: 400,
            ..
        })
    ));
    // An address that never sent a valid message is only counted.
    assert_eq!(ep.stats().decode_errors, 1);
    assert_eq!(ep.stats().unproven, 1);
    // Only a summary of what was dropped reaches the user.
    match tokio::time::timeout(std::time::Duration::from_millis(100), incoming.recv()).await {
        Err(_) => {}
        Ok(Some(Inbound::Endpoint(megaco_stack::endpoint::EndpointEvent::Dropped(r)))) => {
            assert_eq!(r.decode_errors, 1)
        }
        Ok(other) => panic!("{other:?}"),
    }
}

/// A stream that breaks TPKT framing is closed (the peer sees the end of
/// the stream), counted, and never reaches the user: it had not sent a
/// valid message.
#[tokio::test]
async fn tcp_bad_tpkt_version_closes_connection() {
    use tokio::io::AsyncReadExt;
    let listener = tcp::Listener::bind(any_port(), config(1, Encoding::pretty()))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let mut raw = tokio::net::TcpStream::connect(addr).await.unwrap();
    raw.write_all(&[2, 0, 0, 8, b'a', b'b', b'c', b'd'])
        .await
        .unwrap();
    let mut buf = [0u8; 16];
    let n = tokio::time::timeout(std::time::Duration::from_secs(5), raw.read(&mut buf))
        .await
        .expect("closed")
        .unwrap_or(0);
    assert_eq!(n, 0);
    assert_eq!(listener.stats().connections_closed, 1);
    assert!(
        tokio::time::timeout(std::time::Duration::from_millis(200), listener.accept())
            .await
            .is_err()
    );
}

/// A TPKT-framed text request written by hand is answered in a TPKT frame.
#[tokio::test]
async fn tcp_raw_tpkt_request_is_answered() {
    use tokio::io::AsyncReadExt;
    let listener = tcp::Listener::bind(any_port(), config(1, Encoding::pretty()))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let mut raw = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = b"!/1 [127.0.0.9]:2944 T=42{C=-{SC=ROOT{SV{MT=RS,RE=\"901\"}}}}";
    let mut framed = vec![3, 0, 0, (body.len() + 4) as u8];
    framed.extend_from_slice(body);
    raw.write_all(&framed).await.unwrap();
    // A connection is handed out with its first message.
    let (_conn, incoming) = listener.accept().await.unwrap();
    let _server = serve(incoming);
    let mut h = [0u8; 4];
    raw.read_exact(&mut h).await.unwrap();
    assert_eq!(&h[..2], &[3, 0]);
    let len = usize::from(u16::from_be_bytes([h[2], h[3]])) - 4;
    let mut reply = vec![0u8; len];
    raw.read_exact(&mut reply).await.unwrap();
    let msg = megaco::text::decode(&reply).unwrap();
    let MessageBody::Transactions(t) = msg.mess.body else {
        panic!()
    };
    assert!(matches!(&t[0], Transaction::Reply(r) if r.transaction_id == 42));
}

/// A controller that keeps only the receiving side of an accepted stream
/// still answers (the handle is not needed to reply).
#[tokio::test]
async fn tcp_serving_without_connection_handle() {
    let listener = tcp::Listener::bind(any_port(), config(1, Encoding::compact()))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (conn, incoming) = listener.accept().await.unwrap();
        drop(conn);
        serve(incoming).await.unwrap()
    });
    let (conn, _incoming) = tcp::connect(addr, config(2, Encoding::compact()))
        .await
        .unwrap();
    mg_session(&conn).await;
}

/// One UDP controller socket serves many gateways at once, each with its
/// own transaction ids.
#[tokio::test]
async fn udp_endpoint_serves_many_gateways() {
    let (mgc, incoming) = udp::bind(any_port(), config(1, Encoding::compact()))
        .await
        .unwrap();
    let server = serve(incoming);
    let mut gateways = Vec::new();
    for _ in 0..20 {
        let (conn, incoming) =
            udp::connect(any_port(), mgc.local_addr(), config(2, Encoding::compact()))
                .await
                .unwrap();
        gateways.push(tokio::spawn(async move {
            let _incoming = incoming;
            mg_session(&conn).await;
        }));
    }
    for g in gateways {
        g.await.unwrap();
    }
    server.abort();
}

/// Requests are never left hanging: one dropped unanswered gets error
/// 500, and once nobody listens for requests they get error 501. Both
/// come at once, without waiting for a timer; each wait is bounded so that
/// a regression fails the test instead of hanging it.
#[tokio::test]
async fn unanswered_requests_get_errors() {
    let (ep, mut incoming) = udp::bind(any_port(), config(1, Encoding::compact()))
        .await
        .unwrap();
    let peer = tokio::net::UdpSocket::bind(any_port()).await.unwrap();
    let mut buf = [0u8; 2048];
    async fn ask(peer: &tokio::net::UdpSocket, to: SocketAddr, id: u32) {
        let req =
            format!("!/1 [127.0.0.9]:2944 T={id}{{C=-{{SC=ROOT{{SV{{MT=RS,RE=\"901\"}}}}}}}}");
        peer.send_to(req.as_bytes(), to).await.unwrap();
    }
    ask(&peer, ep.local_addr(), 1).await;
    let req = within(incoming.next_request()).await.unwrap();
    assert_eq!(req.transaction_id(), 1);
    drop(req);
    let (n, _) = within(peer.recv_from(&mut buf)).await.unwrap();
    let reply = |bytes: &[u8]| {
        let MessageBody::Transactions(t) = megaco::text::decode(bytes).unwrap().mess.body else {
            panic!()
        };
        let Transaction::Reply(r) = &t[0] else {
            panic!()
        };
        let TransactionResult::Error(e) = &r.result else {
            panic!()
        };
        (r.transaction_id, e.error_code)
    };
    assert_eq!(reply(&buf[..n]), (1, 500));

    drop(incoming);
    ask(&peer, ep.local_addr(), 2).await;
    let (n, _) = within(peer.recv_from(&mut buf)).await.unwrap();
    assert_eq!(reply(&buf[..n]), (2, 501));
}

/// `Incoming::serve` answers concurrently: a slow request does not hold
/// up a quick one.
#[tokio::test]
async fn serve_answers_concurrently() {
    let (mgc, incoming) = udp::bind(any_port(), config(1, Encoding::compact()))
        .await
        .unwrap();
    let (release_tx, release_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(incoming.serve(move |_peer, actions| {
        let mut release = release_rx.clone();
        async move {
            // The ServiceChange waits until the Notify has been answered.
            if matches!(
                actions[0].command_requests[0].command,
                Command::ServiceChange(_)
            ) {
                let _ = release.wait_for(|r| *r).await;
            }
            build::default_replies(&actions)
        }
    }));
    let (conn, _incoming) =
        udp::connect(any_port(), mgc.local_addr(), config(2, Encoding::compact()))
            .await
            .unwrap();
    let slow = tokio::spawn({
        let conn = conn.clone();
        async move { conn.request(vec![register()]).await }
    });
    let quick = conn.request(vec![notify()]).await.unwrap();
    assert!(matches!(
        &quick,
        TransactionResult::ActionReplies(a) if matches!(a[0].command_reply[0], CommandReply::Notify(_))
    ));
    release_tx.send(true).unwrap();
    let slow = slow.await.unwrap().unwrap();
    assert!(matches!(
        &slow,
        TransactionResult::ActionReplies(a) if matches!(a[0].command_reply[0], CommandReply::ServiceChange(_))
    ));
}

/// `send_request` tells each request's transaction id before its reply
/// comes; several are in flight at once, and each reply is the one to its
/// own request. The controller sees the MG's mid, version and address.
#[tokio::test]
async fn send_request_tells_ids_and_incoming_requests_tell_their_sender() {
    enum Incoming {
        Ready(megaco_stack::Incoming),
        Pending(tokio::sync::oneshot::Receiver<megaco_stack::Incoming>),
    }
    for tcp_transport in [false, true] {
        let mut mg_config = config(2, Encoding::compact());
        mg_config.version = 2;
        mg_config.min_trans_id = 40;
        // The controller speaks up to v3, so takes the gateway's v2.
        let mut mgc_config = config(1, Encoding::compact());
        mgc_config.version = 3;
        // The controller's end (a TCP connection or a UDP endpoint) is kept
        // alive in `_keep` for the exchange.
        let (conn, _mg_incoming, incoming, _keep): (_, _, _, Box<dyn std::any::Any>) =
            if tcp_transport {
                let listener = tcp::Listener::bind(any_port(), mgc_config).await.unwrap();
                let addr = listener.local_addr().unwrap();
                let (conn, mg_incoming) = tcp::connect(addr, mg_config).await.unwrap();
                // The listener hands a connection out with its first
                // message: a Listener, not one connection, is kept.
                let (incoming_tx, incoming_rx) = tokio::sync::oneshot::channel();
                let accept = async move {
                    let (mgc_conn, incoming) = listener.accept().await.unwrap();
                    let _ = incoming_tx.send(incoming);
                    (listener, mgc_conn)
                };
                let keep = tokio::spawn(accept);
                (
                    conn,
                    mg_incoming,
                    Incoming::Pending(incoming_rx),
                    Box::new(keep),
                )
            } else {
                let (mgc, incoming) = udp::bind(any_port(), mgc_config).await.unwrap();
                let (conn, mg_incoming) = udp::connect(any_port(), mgc.local_addr(), mg_config)
                    .await
                    .unwrap();
                (conn, mg_incoming, Incoming::Ready(incoming), Box::new(mgc))
            };
        let terms = ["a/1", "a/2", "a/3"];
        let mut sent = Vec::new();
        for t in terms {
            let n = build::notify(ContextId::NULL, TerminationId::new(t), 1, "al/of");
            sent.push(conn.send_request(vec![n]).await.unwrap());
        }
        let ids: Vec<u32> = sent.iter().map(|r| r.transaction_id()).collect();
        assert_eq!(ids, [40, 41, 42]);
        let mut incoming = match incoming {
            Incoming::Ready(i) => i,
            Incoming::Pending(rx) => rx.await.unwrap(),
        };
        assert!(sent.iter().all(|r| r.peer() == conn.peer_addr()));

        // All three reach the controller before any is answered; it
        // answers them in reverse order.
        let mut reqs = Vec::new();
        for _ in terms {
            let req = incoming.next_request().await.unwrap();
            assert_eq!(req.mid(), &mid(2));
            assert_eq!(req.version(), 2);
            assert_eq!(req.peer(), conn.local_addr());
            reqs.push(req);
        }
        let got: Vec<u32> = reqs.iter().map(|r| r.transaction_id()).collect();
        assert_eq!(got, ids);
        for req in reqs.into_iter().rev() {
            let result = build::default_replies(req.actions());
            // Resolves once the transport has the reply.
            req.reply(result).await.unwrap();
        }
        for (request, t) in sent.into_iter().zip(terms) {
            let TransactionResult::ActionReplies(a) = request.await.unwrap() else {
                panic!()
            };
            let CommandReply::Notify(n) = &a[0].command_reply[0] else {
                panic!("{a:?}")
            };
            assert_eq!(n.termination_ids, [TerminationId::new(t)].into());
        }
    }
}

/// A request dropped before its reply is cancelled: the reply that comes
/// later is an unexpected one.
#[tokio::test]
async fn dropping_an_outgoing_request_cancels_it() {
    let (mgc, mut incoming) = udp::bind(any_port(), config(1, Encoding::compact()))
        .await
        .unwrap();
    let (conn, mut mg_incoming) =
        udp::connect(any_port(), mgc.local_addr(), config(2, Encoding::compact()))
            .await
            .unwrap();
    let request = conn.send_request(vec![notify()]).await.unwrap();
    let id = request.transaction_id();
    drop(request);
    let req = incoming.next_request().await.unwrap();
    assert_eq!(req.transaction_id(), id);
    let result = build::default_replies(req.actions());
    req.reply(result).await.unwrap();
    match mg_incoming.recv().await {
        Some(Inbound::Event {
            event: Event::UnexpectedReply { transaction_id, .. },
            ..
        }) => assert_eq!(transaction_id, id),
        other => panic!("{other:?}"),
    }
    drop(mgc);
}

/// A reply handed over with `send_reply` (no await) goes out: the MG gets
/// it, and the `ReplySent` tells so, asked without waiting
/// (`outcome`, which gives it once) or awaited. Once the stack has stopped, a
/// reply handed over says it did not go out.
#[tokio::test]
async fn udp_reply_given_without_await_goes_out_and_says_so() {
    let (mgc, mut incoming) = udp::bind(any_port(), config(1, Encoding::pretty()))
        .await
        .unwrap();
    let (conn, _mg_incoming) =
        udp::connect(any_port(), mgc.local_addr(), config(2, Encoding::pretty()))
            .await
            .unwrap();
    let server = tokio::spawn(async move {
        // The registration: the outcome, asked until it is known.
        let req = incoming.next_request().await.unwrap();
        let result = build::default_replies(&req.actions);
        let mut sent = req.send_reply(result);
        let outcome = loop {
            if let Some(o) = sent.outcome() {
                break o;
            }
            tokio::task::yield_now().await;
        };
        assert!(outcome.is_ok(), "{outcome:?}");
        // Given once.
        assert!(sent.outcome().is_none());
        // The notify: the outcome awaited.
        let req = incoming.next_request().await.unwrap();
        let result = build::default_replies(&req.actions);
        req.send_reply(result).await.unwrap();
        incoming
    });
    within(async {
        let r = conn.request(vec![register()]).await.unwrap();
        assert!(matches!(r, TransactionResult::ActionReplies(_)), "{r:?}");
        let r = conn.request(vec![notify()]).await.unwrap();
        assert!(matches!(r, TransactionResult::ActionReplies(_)), "{r:?}");
    })
    .await;
    let mut incoming = within(server).await.unwrap();
    // A third request reaches the MGC; the MGC's stack then stops before
    // its reply is handed over.
    let pending = tokio::spawn(async move { conn.request(vec![notify()]).await });
    let req = within(incoming.next_request()).await.unwrap();
    within(mgc.handle().close()).await;
    drop(incoming);
    let result = build::default_replies(&req.actions);
    let mut sent = req.send_reply(result);
    let outcome = within(async {
        loop {
            if let Some(o) = sent.outcome() {
                break o;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await;
    assert!(matches!(outcome, Err(Error::Closed)), "{outcome:?}");
    pending.abort();
}

/// A burst of requests from one peer, many times the queue to the user,
/// while the user answers each at once: the driver hands the user no
/// more than the queue has room for and lets it catch up, so every
/// request reaches the user and none is refused with 503.
#[tokio::test]
async fn udp_burst_beyond_the_user_queue_is_served_not_refused() {
    let mut cfg = config(1, Encoding::compact());
    cfg.transport.inbound_queue = 32;
    let (mgc, mut incoming) = udp::bind(any_port(), cfg).await.unwrap();
    const N: u32 = 600;
    // Sent before the stack's tasks run: all of it waits in the socket.
    let client = std::net::UdpSocket::bind(any_port()).unwrap();
    for id in 1..=N {
        let request = format!("!/1 [127.0.0.1]:2944 T={id}{{C=-{{N=t1{{OE=1{{al/of}}}}}}}}");
        client
            .send_to(request.as_bytes(), mgc.local_addr())
            .unwrap();
    }
    let mut served = 0;
    within(async {
        while served < N {
            match incoming.recv().await {
                Some(Inbound::Request(req)) => {
                    served += 1;
                    let result = build::default_replies(&req.actions);
                    drop(req.send_reply(result));
                }
                Some(_) => {}
                None => break,
            }
        }
    })
    .await;
    assert_eq!(served, N);
    assert_eq!(mgc.stats().requests_refused, 0);
}

/// A peer whose accept queue is full never completes the handshake: the
/// connect gives up after the request timer's lifetime, as a request
/// would.
#[tokio::test]
async fn tcp_connect_to_a_full_accept_queue_times_out() {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(any_port()).unwrap();
    let listener = socket.listen(0).unwrap();
    let addr = listener.local_addr().unwrap();
    // Connections never accepted fill the queue (of one, with a backlog
    // of 0); the attempts that find it full are given up on.
    let mut queued = Vec::new();
    for _ in 0..3 {
        if let Ok(Ok(s)) = tokio::time::timeout(
            Duration::from_millis(200),
            tokio::net::TcpStream::connect(addr),
        )
        .await
        {
            queued.push(s);
        }
    }
    let mut cfg = config(2, Encoding::compact());
    cfg.request_timer = RequestTimer {
        initial: Duration::from_millis(100),
        factor: 1,
        max_interval: Duration::from_millis(100),
        max_retries: 2,
    };
    let err = within(tcp::connect(addr, cfg)).await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::TimedOut, "{err}");
    drop((listener, queued));
}

/// A request in a version above the highest we speak is not taken: the
/// peer gets 406 "Version not supported" in ours. A registration in it is
/// taken, to negotiate the version down.
#[tokio::test]
async fn a_request_in_a_version_we_do_not_speak_gets_406() {
    let (mgc, mut incoming) = udp::bind(any_port(), config(1, Encoding::compact()))
        .await
        .unwrap();
    let peer = tokio::net::UdpSocket::bind(any_port()).await.unwrap();
    let mut buf = vec![0u8; 65_535];
    let ask = |req: &'static str| {
        let (peer, to) = (&peer, mgc.local_addr());
        async move {
            peer.send_to(req.as_bytes(), to).await.unwrap();
        }
    };
    ask("!/3 [127.0.0.9]:2944 T=21{C=-{N=tdm/1{OE=1{al/of}}}}").await;
    let n = within(peer.recv(&mut buf)).await.unwrap();
    let msg = megaco::text::decode(&buf[..n]).unwrap();
    assert_eq!(msg.mess.version, 1);
    let MessageBody::Error(e) = msg.mess.body else {
        panic!("{msg:?}")
    };
    assert_eq!(e.error_code, 406);
    // The registration is taken (and answered in its version).
    ask("!/3 [127.0.0.9]:2944 T=22{C=-{SC=ROOT{SV{MT=RS,RE=\"901\",V=3}}}}").await;
    let req = within(incoming.next_request()).await.unwrap();
    assert_eq!((req.transaction_id(), req.version()), (22, 3));
}
