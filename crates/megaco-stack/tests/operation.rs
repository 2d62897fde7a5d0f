//! The stack under attack over real loopback sockets (bounded in count
//! and time; every test stops by itself): garbage from 5,000 source ports,
//! mismatched encodings, thousands of idle or slowloris TCP connections.
//! Memory figures (bytes per peer, RSS) are printed, not asserted as
//! timings; the tables' bounds are asserted.
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use megaco::model::*;
use megaco_stack::engine::Config;
use megaco_stack::{build, tcp, udp, Encoding, Inbound, Stack};
use tokio::io::AsyncWriteExt;

fn mid(a: u8) -> Mid {
    Mid::Ip4(Ip4Address {
        address: [127, 0, 0, a],
        port: Some(2944),
    })
}

fn any() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Answers every request with the default replies.
fn serve(mut incoming: megaco_stack::Incoming) {
    tokio::spawn(async move {
        while let Some(item) = incoming.recv().await {
            if let Inbound::Request(req) = item {
                let result = build::default_replies(req.actions());
                let _ = req.reply(result).await;
            }
        }
    });
}

/// `f`, or a failure after 10 s (a bound against hanging, not a timing).
async fn within<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), f)
        .await
        .expect("nothing within 10 s")
}

fn sc() -> ActionRequest {
    build::service_change(TerminationId::root(), ServiceChangeMethod::Restart, "901")
}

/// Garbage from 5,000 source ports, then a new gateway registers: it is
/// answered within a second, the table of unproven peers stays at its
/// bound, and the error replies stay within the rate limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_from_5000_ports_does_not_stop_a_registration() {
    let (mgc, incoming) = udp::bind(any(), Config::new(mid(1))).await.unwrap();
    serve(incoming);
    let target = mgc.local_addr();
    let base = rss_kib();
    let mut socks = Vec::new();
    for _ in 0..5000 {
        let s = std::net::UdpSocket::bind(any()).unwrap();
        s.send_to(b"\x30\x03garbage", target).unwrap();
        socks.push(s);
    }
    // Let the stack read what the kernel kept (it drops some of a burst
    // of 5,000 datagrams to one socket).
    let mut last = u64::MAX;
    while mgc.stats().decode_errors != last {
        last = mgc.stats().decode_errors;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let stats = mgc.stats();
    assert!(stats.decode_errors > 2048, "{stats:?}");
    assert!(stats.unproven <= 1024, "{stats:?}");
    // At most the burst and 100 a second of error replies went out.
    assert!(
        stats.decode_errors - stats.errors_rate_limited <= 200 + 100 * 10,
        "{stats:?}"
    );
    eprintln!(
        "5,000 garbage ports: RSS {} KiB -> {} KiB, unproven kept {}",
        base,
        rss_kib(),
        stats.unproven
    );
    drop(socks);

    let started = Instant::now();
    let (mg, _incoming) = udp::connect(any(), target, Config::new(mid(2)))
        .await
        .unwrap();
    let reply = tokio::time::timeout(Duration::from_secs(1), mg.request(vec![sc()]))
        .await
        .expect("registered within a second")
        .unwrap();
    assert!(matches!(reply, TransactionResult::ActionReplies(_)));
    eprintln!("registration after the flood: {:?}", started.elapsed());
    assert_eq!(mgc.stats().registered, 1);
}

/// A BER-only and a PER-only stack (neither recognising the other's
/// encoding) exchange a handful of datagrams and stop.
#[tokio::test]
async fn mismatched_encodings_over_udp_stop_by_themselves() {
    let strict = |a, enc| {
        let mut c = Config::new(mid(a));
        c.encoding = enc;
        c.recognise_encoding = false;
        c.request_timer.initial = Duration::from_millis(100);
        c.request_timer.max_interval = Duration::from_millis(400);
        c
    };
    let (mgc, incoming) = udp::bind(any(), strict(1, Encoding::ber())).await.unwrap();
    serve(incoming);
    let (mg, _incoming) = udp::connect(any(), mgc.local_addr(), strict(2, Encoding::per()))
        .await
        .unwrap();
    let r = mg.request(vec![sc()]).await;
    assert!(r.is_err(), "{r:?}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (a, b) = (mgc.stats(), mg.handle().stats());
    // One error from the MGC for the first request (then it waits for a
    // valid message), one from the MG answering it; then silence.
    assert!(
        a.decode_errors - a.storms_suppressed <= 1 && b.decode_errors <= 1,
        "{a:?} {b:?}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(mgc.stats().decode_errors, a.decode_errors);
}

/// Over real sockets, a request resent after OTP's reply horizon is
/// answered from the cache, not executed again; with the reply timer at
/// that horizon, as OTP's, it runs twice. The timers are the defaults
/// scaled by 1/20 (resends at 0.35, 1.05 and 2.45 s, time-out at 5.25 s;
/// OTP's 30 s reply timer becomes 1.5 s), and the peer's last resend
/// comes at 2.45 s.
#[tokio::test]
async fn a_resend_after_the_old_horizon_is_answered_from_the_cache() {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    let ms = Duration::from_millis;
    let run = |reply_timer: Option<Duration>| async move {
        let mut config = Config::new(mid(1));
        config.request_timer.initial = ms(350);
        config.request_timer.max_interval = ms(3000);
        config.reply_timer = reply_timer;
        let (mgc, mut incoming) = udp::bind(any(), config).await.unwrap();
        let executed = Arc::new(AtomicU32::new(0));
        let counter = executed.clone();
        tokio::spawn(async move {
            while let Some(req) = incoming.next_request().await {
                counter.fetch_add(1, Ordering::SeqCst);
                let result = build::default_replies(req.actions());
                let _ = req.reply(result).await;
            }
        });
        let peer = tokio::net::UdpSocket::bind(any()).await.unwrap();
        let request = b"!/1 [127.0.0.9]:2944 T=7{C=-{SC=ROOT{SV{MT=RS,RE=\"901\"}}}}";
        let mut buf = [0u8; 2048];
        peer.send_to(request, mgc.local_addr()).await.unwrap();
        let (n, _) = within(peer.recv_from(&mut buf)).await.unwrap();
        let first = buf[..n].to_vec();
        // The reply is taken as lost; the last resend of the schedule.
        tokio::time::sleep(ms(350 + 700 + 1400)).await;
        peer.send_to(request, mgc.local_addr()).await.unwrap();
        let (n, _) = within(peer.recv_from(&mut buf)).await.unwrap();
        (executed.load(Ordering::SeqCst), first, buf[..n].to_vec())
    };
    let (ours, otp_like) = tokio::join!(run(None), run(Some(ms(1500))));
    let (executed, first, again) = ours;
    assert_eq!(executed, 1, "executed again");
    assert_eq!(again, first, "the cached reply");
    let reply = megaco::text::decode(&first).unwrap();
    let MessageBody::Transactions(t) = &reply.mess.body else {
        panic!("{reply:?}")
    };
    assert!(
        matches!(&t[..], [Transaction::Reply(r)] if r.transaction_id == 7),
        "{reply:?}"
    );
    assert_eq!(otp_like.0, 2, "with OTP's horizon the resend runs again");
}

/// Bytes the endpoint keeps per UDP peer (unproven, and proven after a
/// request), measured by the RSS of 4,096 peers each. Printed.
#[tokio::test]
async fn memory_per_udp_peer() {
    let mut cfg = Config::new(mid(1));
    cfg.transport.max_unproven_peers = 4096;
    let (mgc, incoming) = udp::bind(any(), cfg).await.unwrap();
    serve(incoming);
    let target = mgc.local_addr();
    let mut socks = Vec::new();
    for _ in 0..4096 {
        socks.push(std::net::UdpSocket::bind(any()).unwrap());
    }
    let base = rss_kib();
    // In batches, so that the kernel keeps them all.
    async fn send_all(socks: &[std::net::UdpSocket], target: SocketAddr, bytes: &[u8]) {
        for batch in socks.chunks(128) {
            for s in batch {
                s.send_to(bytes, target).unwrap();
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    async fn settle(count: impl Fn() -> u64) {
        let mut last = u64::MAX;
        while count() != last {
            last = count();
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    send_all(&socks, target, b"\x30\x03garbage").await;
    settle(|| mgc.stats().decode_errors).await;
    let unproven = rss_kib();
    let kept = mgc.stats().unproven;
    let notify = b"!/1 [127.0.0.9]:2944 T=7{C=-{SC=ROOT{SV{MT=RS,RE=\"901\"}}}}";
    send_all(&socks, target, notify).await;
    settle(|| mgc.stats().peers).await;
    let proven = rss_kib();
    let peers = mgc.stats().peers;
    assert!(peers > 2000, "{:?}", mgc.stats());
    eprintln!(
        "UDP peers: RSS {base} KiB; {kept} unproven {unproven} KiB ({} B each); \
         {peers} proven, registered, one cached reply each: {proven} KiB ({} B each)",
        (unproven.saturating_sub(base)) * 1024 / kept.max(1),
        (proven.saturating_sub(base)) * 1024 / peers.max(1),
    );
}

/// The environment variable that makes this test binary the TCP
/// attacker of [`idle_and_slowloris_tcp_connections_do_not_lock_out`]
/// ("ADDRESS COUNT"): the attacker runs in a child process so that each
/// process stays within its descriptor limit.
const ATTACKER: &str = "MEGACO_TCP_ATTACKER";

/// The attacker's side: `count` connections to `target`, half idle, half
/// slowloris (a TPKT header announcing 65,535 bytes, then one byte a
/// second); prints "attacker: connected N" once they are open, then keeps
/// dripping for at most `DRIP` and exits.
async fn attack(target: SocketAddr, count: usize) {
    const DRIP: Duration = Duration::from_secs(20);
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024);
    let count = count.min(limit.saturating_sub(64) as usize);
    let mut conns = Vec::with_capacity(count);
    for i in 0..count {
        let Ok(mut c) = tokio::net::TcpStream::connect(target).await else {
            break;
        };
        if i % 2 == 1 {
            let _ = c.write_all(&[3, 0, 0xff, 0xff, b'M']).await;
        }
        conns.push(c);
    }
    println!("attacker: connected {}", conns.len());
    let started = Instant::now();
    while started.elapsed() < DRIP {
        tokio::time::sleep(Duration::from_secs(1)).await;
        for c in conns.iter_mut().skip(1).step_by(2) {
            let _ = c.try_write(b"E");
        }
    }
}

/// The attacker process, killed when dropped.
struct Attacker(std::process::Child);

impl Drop for Attacker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// 10,000 idle and slowloris TCP connections (a TPKT header announcing
/// bytes that never come, one byte a second), opened by a child process,
/// do not stop a new connection being served; the stack keeps at most its
/// unproven bound of them and closes them on its timeouts. The RSS figures
/// are this process's, the server's alone. `MEGACO_TCP_ATTACK` sets the
/// count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_slowloris_tcp_connections_do_not_lock_out() {
    if let Ok(spec) = std::env::var(ATTACKER) {
        let (addr, count) = spec.split_once(' ').expect("ADDRESS COUNT");
        attack(addr.parse().unwrap(), count.parse().unwrap()).await;
        return;
    }
    rlimit::increase_nofile_limit(u64::MAX).unwrap();
    let wanted: usize = std::env::var("MEGACO_TCP_ATTACK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let mut cfg = Config::new(mid(1));
    cfg.transport.unproven_timeout = Duration::from_secs(3);
    cfg.transport.tcp_frame_timeout = Duration::from_secs(2);
    let (stack, incoming) = Stack::builder(cfg).tcp(any()).start().await.unwrap();
    serve(incoming);
    let target = stack.tcp_addrs()[0];
    let base = rss_kib();

    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "idle_and_slowloris_tcp_connections_do_not_lock_out",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ATTACKER, format!("{target} {wanted}"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let attacker = Attacker(child);
    let opened = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            // After libtest's "test NAME ... " on the same line.
            .find_map(|l| {
                l.split("attacker: connected ")
                    .nth(1)?
                    .parse::<usize>()
                    .ok()
            })
    });
    let opened = tokio::time::timeout(Duration::from_secs(120), opened)
        .await
        .expect("the attacker connects within two minutes")
        .unwrap()
        .expect("the attacker reports its connections");
    assert!(
        opened >= wanted.min(4000),
        "the attacker opened only {opened}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let held = rss_kib();
    let stats = stack.stats();
    assert!(stats.unproven <= 1024, "{stats:?}");
    eprintln!(
        "{opened} attacking TCP connections from another process: server RSS {base} KiB -> \
         {held} KiB ({} B per connection opened); unproven kept {}, evicted {}",
        (held.saturating_sub(base)) * 1024 / opened.max(1) as u64,
        stats.unproven,
        stats.unproven_evicted
    );

    // A new gateway is served while the attack goes on.
    let (mg, _incoming) = tcp::connect(target, Config::new(mid(2))).await.unwrap();
    let reply = tokio::time::timeout(Duration::from_secs(10), mg.request(vec![sc()]))
        .await
        .expect("served")
        .unwrap();
    assert!(matches!(reply, TransactionResult::ActionReplies(_)));

    // The slowloris connections still drip a byte a second; none of the
    // attacker's connections outlives the unproven timeout.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let after = stack.stats();
    assert_eq!(after.unproven, 0, "{after:?}");
    assert!(after.connections_closed as usize + 1 >= opened, "{after:?}");
    assert_eq!((after.peers, after.registered), (1, 1), "{after:?}");
    drop(attacker);
}
