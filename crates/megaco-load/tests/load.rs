//! `megaco load`'s counts add up, in both roles, over UDP and TCP, and a
//! misbehaving controller's replies are counted as errors.
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use megaco::codec::Encoding;
use megaco::model::*;
use megaco_load::load::{self, LoadConfig, LoadReport, Role, Scenario};
use megaco_load::msg::{self, Gateway};

/// A controller on a plain UDP socket answering as a gateway would
/// (every command gets a well-formed reply); `fault(n)` may spoil the
/// n-th request's answer.
struct Mgc {
    addr: SocketAddr,
    /// How many answers of each kind of [`Spoil`] went out.
    spoiled: Arc<[AtomicU64; SPOILS]>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Clone, Copy, PartialEq)]
enum Spoil {
    None,
    Garbage,
    Duplicate,
    Error,
    Silent,
    /// A transaction id above any sent.
    Stray,
    /// A transaction id below the first one sent.
    Below,
    /// An error descriptor as the whole message, instead of a reply.
    MessageError,
}

const SPOILS: usize = 8;

impl Mgc {
    fn start(wire: Encoding, fault: fn(u64) -> Spoil) -> Mgc {
        let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
        sock.set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let addr = sock.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let spoiled: Arc<[AtomicU64; SPOILS]> = Arc::new(Default::default());
        let count = spoiled.clone();
        let thread = std::thread::spawn(move || {
            let enc = wire;
            let mut gw = Gateway::new("00000001", 1);
            let mut buf = vec![0u8; 65536];
            let mut n = 0u64;
            let me = Mid::Device("mgc".into());
            while !flag.load(Ordering::Relaxed) {
                let Ok((len, from)) = sock.recv_from(&mut buf) else {
                    continue;
                };
                let Ok(m) = enc.decode(&buf[..len]) else {
                    continue;
                };
                let MessageBody::Transactions(ts) = m.mess.body else {
                    continue;
                };
                for t in ts {
                    let Transaction::Request(r) = t else { continue };
                    let is_sc = matches!(
                        r.actions[0].command_requests[0].command,
                        Command::ServiceChange(_)
                    );
                    let spoil = if is_sc {
                        Spoil::None
                    } else {
                        n += 1;
                        fault(n)
                    };
                    count[spoil as usize].fetch_add(1, Ordering::Relaxed);
                    let mut result = gw.answer(&r.actions);
                    let mut tid = r.transaction_id;
                    match spoil {
                        Spoil::Silent => continue,
                        Spoil::Garbage => {
                            sock.send_to(b"garbage", from).unwrap();
                            continue;
                        }
                        Spoil::Error => {
                            result = TransactionResult::Error(ErrorDescriptor {
                                error_code: 500,
                                error_text: None,
                            })
                        }
                        Spoil::Stray => tid += 1_000_000,
                        Spoil::Below => tid = tid.saturating_sub(1_000_000),
                        Spoil::MessageError => {
                            let body = MessageBody::Error(ErrorDescriptor {
                                error_code: 400,
                                error_text: None,
                            });
                            let m = MegacoMessage {
                                auth_header: None,
                                mess: Message {
                                    version: 1,
                                    mid: me.clone(),
                                    body,
                                },
                            };
                            sock.send_to(&enc.encode(&m).unwrap(), from).unwrap();
                            continue;
                        }
                        _ => {}
                    }
                    let bytes = enc.encode(&msg::reply(me.clone(), 1, tid, result)).unwrap();
                    sock.send_to(&bytes, from).unwrap();
                    if spoil == Spoil::Duplicate {
                        sock.send_to(&bytes, from).unwrap();
                    }
                }
            }
        });
        Mgc {
            addr,
            spoiled,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Mgc {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.take().map(|t| t.join());
    }
}

fn adds_up(r: &LoadReport) {
    assert_eq!(r.sent, r.answered + r.failed + r.timed_out, "{r:#?}");
    let per_second: u64 = r.series.iter().map(|s| s.answered).sum();
    assert_eq!(per_second, r.answered, "the series holds every answer");
    assert!(!r.series.is_empty());
    let json = serde_json::to_value(r).unwrap();
    assert_eq!(json["sent"], r.sent);
    assert!(json["latency"]["p99_us"].is_u64());
}

fn config(target: SocketAddr, wire: Encoding) -> LoadConfig {
    LoadConfig {
        mgs: 4,
        rate: Some(400.0),
        duration: Duration::from_millis(1200),
        wire,
        timeout: Duration::from_millis(400),
        ..LoadConfig::new(target)
    }
}

#[test]
fn a_generator_held_up_reports_its_stall() {
    // The progress callback runs in the generator's loop, once a second:
    // holding it up 150 ms is a stall of at least that long.
    let wire = Encoding::compact();
    let mgc = Mgc::start(wire.clone(), |_| Spoil::None);
    let cfg = config(mgc.addr, wire);
    let r = load::run(&cfg, &mut |_| {
        std::thread::sleep(Duration::from_millis(150))
    })
    .unwrap();
    adds_up(&r);
    assert!(r.generator_stall_ms >= 150.0, "{}", r.generator_stall_ms);
    assert!(r.generator_stall_ms < 10_000.0, "{}", r.generator_stall_ms);
}

#[test]
fn gateways_against_a_controller_over_udp() {
    for wire in [Encoding::compact(), Encoding::ber()] {
        let mgc = Mgc::start(wire.clone(), |_| Spoil::None);
        // The controller runs in this process: its CPU time is ours.
        let cfg = LoadConfig {
            target_pid: Some(std::process::id()),
            ..config(mgc.addr, wire)
        };
        let r = load::run(&cfg, &mut |_| {}).unwrap();
        adds_up(&r);
        assert_eq!(r.registered, 4);
        assert!(r.answered > 100, "{r:#?}");
        if cfg!(target_os = "linux") {
            assert!(r.cpu_per_transaction_us.is_some_and(|c| c > 0.0));
            assert!(r.target_cpu_per_transaction_us.is_some());
        }
        assert_eq!(
            (r.failed, r.timed_out, r.errors.total()),
            (0, 0, 0),
            "{r:#?}"
        );
        // Calls go Add, Modify, Notify, Subtract: a quarter of the answers
        // complete one, give or take the calls in flight at the end.
        assert!(
            r.calls * 4 <= r.answered && r.calls * 4 + 4 * 16 >= r.answered,
            "{r:#?}"
        );
    }
}

#[test]
fn misbehaving_controller_is_counted() {
    let mgc = Mgc::start(Encoding::pretty(), |n| match n % 12 {
        1 => Spoil::Garbage,
        3 => Spoil::Duplicate,
        5 => Spoil::Error,
        7 => Spoil::Silent,
        9 => Spoil::Stray,
        10 => Spoil::Below,
        11 => Spoil::MessageError,
        _ => Spoil::None,
    });
    let cfg = LoadConfig {
        scenario: Scenario::builtin("notify").unwrap(),
        resends: 0,
        ..config(mgc.addr, Encoding::pretty())
    };
    let r = load::run(&cfg, &mut |_| {}).unwrap();
    adds_up(&r);
    assert!(
        r.errors.malformed > 0 && r.errors.duplicate > 0 && r.errors.unexpected > 0,
        "{r:#?}"
    );
    assert_eq!(r.failed, r.errors.error_replies);
    assert!(r.failed > 0 && r.timed_out > 0, "{r:#?}");
    // A failure's reason is its error code.
    assert_eq!(r.failures, [("error 500".to_string(), r.failed)], "{r:#?}");
    // Ids never sent, above or below those sent, are unexpected, not
    // duplicates; an error as the whole message answers nothing.
    let spoiled = |s: Spoil| mgc.spoiled[s as usize].load(Ordering::Relaxed);
    assert!(spoiled(Spoil::Below) > 0 && spoiled(Spoil::MessageError) > 0);
    assert_eq!(
        r.errors.unexpected,
        spoiled(Spoil::Stray) + spoiled(Spoil::Below),
        "{r:#?}"
    );
    assert!(r.errors.duplicate <= spoiled(Spoil::Duplicate), "{r:#?}");
    assert_eq!(r.errors.message_errors, spoiled(Spoil::MessageError));
}

#[test]
fn controller_role_drives_simulated_gateways() {
    let cfg = LoadConfig {
        role: Role::Mgc,
        rate: None,
        concurrency: Some(2),
        mgs: 6,
        duration: Duration::from_millis(800),
        ..config("127.0.0.1:0".parse().unwrap(), Encoding::compact())
    };
    let r = load::run(&cfg, &mut |_| {}).unwrap();
    adds_up(&r);
    assert_eq!(r.registered, 6);
    assert!(r.answered > 50);
    assert_eq!(
        (r.failed, r.timed_out, r.errors.total()),
        (0, 0, 0),
        "{r:#?}"
    );
}

#[test]
fn refuses_a_silent_target_in_bounded_time() {
    // Nobody listens: registration fails within its window, no hang.
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let cfg = LoadConfig {
        mgs: 1,
        register_window: Duration::from_millis(500),
        ..config(sock.local_addr().unwrap(), Encoding::pretty())
    };
    let t = std::time::Instant::now();
    assert!(load::run(&cfg, &mut |_| {}).is_err());
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[test]
fn scenario_files() {
    let file =
        |text: &str| Scenario::script("x", megaco_stack::scenario::Scenario::parse(text).unwrap());
    assert!(file("[[step]]\nsend = \"Context = - { AuditValue = root }\"\n").is_ok());
    assert!(file("[[step]]\nreceive = \"modify\"\n").is_err());
    assert!(file("[[step]]\nwait = 1\n").is_err());
    assert!(Scenario::load("no-such-scenario").is_err());
    assert!(Scenario::builtin("call").unwrap().steps().unwrap().len() == 4);
}

#[test]
fn gateways_over_tcp() {
    use megaco_stack::engine::Config;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(megaco_stack::tcp::Listener::bind(
            "127.0.0.1:0".parse().unwrap(),
            Config::new(Mid::Device("mgc".into())),
        ))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    rt.spawn(async move {
        while let Ok((_conn, incoming)) = listener.accept().await {
            tokio::spawn(
                incoming.serve(
                    |_, actions| async move { Gateway::new("00000001", 1).answer(&actions) },
                ),
            );
        }
    });
    let cfg = LoadConfig {
        tcp: true,
        ..config(addr, Encoding::compact())
    };
    let r = load::run(&cfg, &mut |_| {}).unwrap();
    adds_up(&r);
    assert_eq!(r.registered, 4);
    assert!(r.answered > 100, "{r:#?}");
    assert_eq!(r.timed_out, 0);
    // A fresh gateway per request gives every Add context 1: still a
    // real context.
    assert_eq!((r.failed, r.errors.total()), (0, 0), "{r:#?}");
    rt.shutdown_timeout(Duration::from_millis(100));
}

#[test]
fn gateways_against_otp() {
    if !megaco_load::otp::available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "escript (Erlang/OTP) is required under CI"
        );
        eprintln!("SKIPPED: escript not installed");
        return;
    }
    let node =
        megaco_load::otp::OtpNode::mgc(0, false, "compact", 1, Duration::from_secs(60)).unwrap();
    assert!(node.rss().unwrap() > 0);
    let target: SocketAddr = format!("127.0.0.1:{}", node.port).parse().unwrap();
    let r = load::run(&config(target, Encoding::compact()), &mut |_| {}).unwrap();
    adds_up(&r);
    assert_eq!(r.registered, 4);
    assert!(r.answered > 100, "{r:#?}");
    assert_eq!(
        (r.failed, r.timed_out, r.errors.total()),
        (0, 0, 0),
        "{r:#?}"
    );
}

/// A controller on a plain UDP socket that keeps its contexts as
/// `megaco mgc` does (an Add of a termination already in a context gets
/// error 433) and leaves the first Modify unanswered.
fn stateful_mgc(stop: Arc<AtomicBool>) -> (SocketAddr, JoinHandle<()>) {
    use megaco_stack::scenario::{Responder, Role as Plays, Scenario as File, TermIdStyle};
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let addr = sock.local_addr().unwrap();
    let rules = File::parse("[[rule]]\ncommand = \"modify\"\nreply = \"none\"\ntimes = 1\n")
        .unwrap()
        .rules;
    let me = Mid::Device("mgc".into());
    let plays = Plays::Mgc {
        mid: me.clone(),
        max_version: 1,
    };
    let thread = std::thread::spawn(move || {
        let enc = Encoding::compact();
        let mut responder = Responder::new(plays, rules);
        let mut buf = vec![0u8; 65536];
        while !stop.load(Ordering::Relaxed) {
            let Ok((len, from)) = sock.recv_from(&mut buf) else {
                continue;
            };
            let MessageBody::Transactions(ts) = enc.decode(&buf[..len]).unwrap().mess.body else {
                continue;
            };
            for t in ts {
                let Transaction::Request(r) = t else { continue };
                let answer = responder.answer(&r.actions, 1, TermIdStyle::Text);
                if let Some(result) = answer.reply {
                    let reply = msg::reply(me.clone(), 1, r.transaction_id, result);
                    sock.send_to(&enc.encode(&reply).unwrap(), from).unwrap();
                }
            }
        }
    });
    (addr, thread)
}

/// A call whose step timed out takes its termination out of any context
/// before it starts over: its next Add is not refused as already in a
/// context (error 433), and the calls go on.
#[test]
fn a_call_cleans_up_after_a_lost_reply() {
    let stop = Arc::new(AtomicBool::new(false));
    let (addr, thread) = stateful_mgc(stop.clone());
    let cfg = LoadConfig {
        mgs: 1,
        rate: None,
        concurrency: Some(1),
        resends: 0,
        timeout: Duration::from_millis(300),
        ..config(addr, Encoding::compact())
    };
    let r = load::run(&cfg, &mut |_| {}).unwrap();
    stop.store(true, Ordering::Relaxed);
    thread.join().unwrap();
    adds_up(&r);
    assert_eq!((r.timed_out, r.cleanups, r.failed), (1, 1, 0), "{r:#?}");
    assert!(r.calls >= 2, "{r:#?}");
}
