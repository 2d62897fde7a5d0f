//! Simulated gateways in both socket layouts: each registers from its own
//! address with its own mid and answers there; a datagram for no gateway
//! is ignored.
use std::collections::HashSet;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use megaco::codec::Encoding;
use megaco::model::{MessageBody, Mid, Transaction};
use megaco_load::farm::{self, Farm, FarmConfig, Sockets};
use megaco_load::msg;

/// Every datagram `sock` receives until `n` came or `limit` passed.
fn receive(sock: &UdpSocket, n: usize, limit: Duration) -> Vec<(Vec<u8>, SocketAddr)> {
    let end = Instant::now() + limit;
    let mut got = Vec::new();
    let mut buf = vec![0; 65_536];
    sock.set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    while got.len() < n && Instant::now() < end {
        if let Ok((len, from)) = sock.recv_from(&mut buf) {
            got.push((buf[..len].to_vec(), from));
        }
    }
    got
}

/// The mid and transaction id of a one-transaction message.
fn head(bytes: &[u8]) -> (Mid, u32) {
    let m = Encoding::pretty().decode(bytes).unwrap();
    let MessageBody::Transactions(ts) = &m.mess.body else {
        panic!("no transactions")
    };
    let id = match &ts[0] {
        Transaction::Request(r) => r.transaction_id,
        Transaction::Reply(r) => r.transaction_id,
        t => panic!("{t:?}"),
    };
    (m.mess.mid, id)
}

fn registers_and_answers_from_its_own_address(sockets: Sockets) {
    let mgc = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mgs = 40;
    let farm = Farm::start(FarmConfig {
        mgs,
        threads: 2,
        register_to: vec![mgc.local_addr().unwrap()],
        sockets,
        ..FarmConfig::default()
    })
    .unwrap();
    let want = sockets.effective(mgc.local_addr().unwrap(), mgs);
    assert_eq!(farm.sockets(), want);
    let addrs = farm.addrs().to_vec();
    assert_eq!(addrs.iter().collect::<HashSet<_>>().len(), mgs);
    if want == Sockets::Shared {
        // Each its own loopback address; a thread's gateways share a port.
        assert_eq!(
            addrs.iter().map(|a| a.ip()).collect::<HashSet<_>>().len(),
            mgs
        );
        assert_eq!(
            addrs.iter().map(|a| a.port()).collect::<HashSet<_>>().len(),
            2
        );
    }
    // Registrations: each from the gateway's address, under its mid.
    let regs = receive(&mgc, mgs, Duration::from_secs(5));
    assert_eq!(regs.len(), mgs);
    let from: HashSet<SocketAddr> = regs.iter().map(|(_, a)| *a).collect();
    assert_eq!(from, addrs.iter().copied().collect());
    for (bytes, addr) in &regs {
        let (mid, tid) = head(bytes);
        assert_eq!(mid, farm::mid_of(*addr));
        let m = Encoding::pretty().decode(bytes).unwrap();
        let MessageBody::Transactions(ts) = &m.mess.body else {
            panic!("no transactions")
        };
        let Transaction::Request(r) = &ts[0] else {
            panic!("{:?}", ts[0])
        };
        let reply = msg::reply(
            farm::mid_of(mgc.local_addr().unwrap()),
            1,
            tid,
            megaco_stack::build::default_replies(&r.actions),
        );
        mgc.send_to(&Encoding::pretty().encode(&reply).unwrap(), addr)
            .unwrap();
    }
    assert!(farm.wait_registered(Duration::from_secs(5)));
    // One request to each gateway: one reply from each, with its id.
    let mid = farm::mid_of(mgc.local_addr().unwrap());
    for (i, addr) in addrs.iter().enumerate() {
        let req = msg::request(mid.clone(), 1, 1000 + i as u32, vec![msg::audit_root()]);
        mgc.send_to(&Encoding::pretty().encode(&req).unwrap(), addr)
            .unwrap();
    }
    let replies = receive(&mgc, mgs, Duration::from_secs(5));
    assert_eq!(replies.len(), mgs);
    for (bytes, addr) in &replies {
        let (mid, tid) = head(bytes);
        let i = addrs.iter().position(|a| a == addr).unwrap();
        assert_eq!((mid, tid), (farm::mid_of(*addr), 1000 + i as u32));
    }
    assert_eq!(farm.answered(), mgs as u64);
    farm.stop();
}

#[test]
fn own_sockets_register_and_answer() {
    registers_and_answers_from_its_own_address(Sockets::Own);
}

#[test]
fn shared_sockets_register_and_answer() {
    registers_and_answers_from_its_own_address(Sockets::Shared);
}

#[cfg(target_os = "linux")]
#[test]
fn a_shared_socket_ignores_datagrams_for_no_gateway() {
    let farm = Farm::start(FarmConfig {
        mgs: 3,
        sockets: Sockets::Shared,
        ..FarmConfig::default()
    })
    .unwrap();
    let port = farm.addrs()[0].port();
    let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
    let req = msg::request(
        farm::mid_of(peer.local_addr().unwrap()),
        1,
        7,
        vec![msg::audit_root()],
    );
    let bytes = Encoding::pretty().encode(&req).unwrap();
    // The socket's port on an address that is no gateway's.
    for ip in [[127, 0, 0, 1], [127, 1, 0, 200]] {
        peer.send_to(&bytes, SocketAddr::from((ip, port))).unwrap();
    }
    assert!(receive(&peer, 1, Duration::from_millis(300)).is_empty());
    // The gateways still answer.
    peer.send_to(&bytes, farm.addrs()[2]).unwrap();
    let got = receive(&peer, 1, Duration::from_secs(5));
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1, farm.addrs()[2]);
    assert_eq!(farm.answered(), 1);
    farm.stop();
}
