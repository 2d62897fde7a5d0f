//! Version negotiation (H.248.1 section 11.3) with Erlang/OTP megaco, at
//! different versions on each side, both ways, over UDP and TCP, in text
//! and BER:
//!
//! - our MG at one version registers with an OTP MGC at another; the OTP
//!   MGC (tests/otp/otp_mgc.erl, mode `negotiate`) sets its connection to
//!   the lower version with `megaco:update_conn_info/3` and says so in its
//!   ServiceChangeReply; our MG takes that version and its Notify, sent in
//!   it, is answered;
//! - an OTP MG (tests/otp/otp_mg.erl, mode `negotiate`) offers its version
//!   to our MGC, which answers with the lower one; OTP switches to it and
//!   its Notify in that version is answered by `megaco:call/3`.
//!
//! OTP leaves negotiation to its user, and with its default
//! `strict_version` answers a message in another version than the
//! connection's with 406 "Not negotiated version": the Notify only
//! succeeds when both sides switched.
//!
//! Needs `erl` and `erlc` with the megaco application; without them the
//! tests fail under `CI=true` and are skipped, saying so, otherwise.
mod otp;

use std::net::SocketAddr;
use std::sync::mpsc;
use std::time::Duration;

use megaco::model::*;
use megaco_stack::engine::{Config, Event};
use megaco_stack::{build, tcp, udp, Encoding, Inbound};
use otp::{otp_available, start_otp_mgc, Transport};

/// The two codecs of each run: OTP's encoding module and ours.
#[derive(Clone, Copy)]
enum Codec {
    Text,
    Ber,
}

impl Codec {
    fn otp(self) -> &'static str {
        match self {
            Codec::Text => "compact",
            Codec::Ber => "ber",
        }
    }

    fn ours(self) -> Encoding {
        match self {
            Codec::Text => Encoding::compact(),
            Codec::Ber => Encoding::ber(),
        }
    }
}

/// (OTP's version, ours): v1 against v3, both ways.
const VERSIONS: [(u8, u8); 2] = [(1, 3), (3, 1)];

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn config(port: u16, codec: Codec, version: u8) -> Config {
    let mut c = Config::new(Mid::Ip4(Ip4Address {
        address: [127, 0, 0, 1],
        port: Some(port),
    }));
    c.encoding = codec.ours();
    c.version = version;
    c
}

fn notify(context: u32) -> ActionRequest {
    build::notify(
        ContextId(context),
        TerminationId::new("11111111/00000000/00000001"),
        3,
        "al/of",
    )
}

/// The ServiceChangeVersion of the ServiceChangeReply in `reply`.
fn reply_version(reply: &TransactionResult) -> Option<u8> {
    let TransactionResult::ActionReplies(a) = reply else {
        panic!("{reply:?}")
    };
    match &a[0].command_reply[..] {
        [CommandReply::ServiceChange(sc)] => match &sc.service_change_result {
            ServiceChangeResult::ServiceChangeResParms(p) => p.service_change_version,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// Our MG at `ours` registers with an OTP MGC at `theirs`, then notifies.
fn our_mg_registers_with_otp_mgc(theirs: u8, ours: u8, codec: Codec, transport: Transport) {
    let what = format!(
        "OTP MGC v{theirs}, our MG v{ours}, {}, {transport:?}",
        codec.otp()
    );
    let agreed = theirs.min(ours);
    let mgc = start_otp_mgc(codec.otp(), theirs, transport, "negotiate");
    rt().block_on(async {
        let remote: SocketAddr = ([127, 0, 0, 1], mgc.port).into();
        let config = config(2945, codec, ours);
        let (conn, mut incoming) = match transport {
            Transport::Udp => udp::connect("127.0.0.1:0".parse().unwrap(), remote, config).await,
            Transport::Tcp => tcp::connect(remote, config).await,
        }
        .unwrap();
        let sc = build::service_change(
            TerminationId::root(),
            ServiceChangeMethod::Restart,
            "901 mg col boot",
        );
        let reply = tokio::time::timeout(Duration::from_secs(20), conn.request(vec![sc]))
            .await
            .expect("no reply from OTP")
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(reply_version(&reply), Some(agreed), "{what}");
        let negotiated = loop {
            match tokio::time::timeout(Duration::from_secs(5), incoming.recv()).await {
                Ok(Some(Inbound::Event {
                    event: Event::VersionNegotiated { version },
                    ..
                })) => break version,
                Ok(Some(_)) => continue,
                other => panic!("{what}: no negotiated version: {other:?}"),
            }
        };
        assert_eq!(negotiated, agreed, "{what}");

        // The Notify goes out in the agreed version, which OTP takes.
        let reply = tokio::time::timeout(Duration::from_secs(20), conn.request(vec![notify(17)]))
            .await
            .expect("no reply from OTP")
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let TransactionResult::ActionReplies(a) = reply else {
            panic!("{what}: {reply:?}")
        };
        assert_eq!(a[0].context_id, ContextId(17), "{what}");
        assert!(
            matches!(&a[0].command_reply[..], [CommandReply::Notify(_)]),
            "{what}: {a:?}"
        );
        conn.close().await;
    });
    // What OTP saw: the registration in our version, the switch, the
    // Notify in the agreed version.
    let mut seen = Vec::new();
    while let Ok(line) = mgc.lines.recv_timeout(Duration::from_secs(10)) {
        seen.push(line);
        if seen.iter().any(|l| l == "notify") {
            break;
        }
    }
    let versions: Vec<&str> = seen
        .iter()
        .filter(|l| l.starts_with("version ") || l.starts_with("negotiated "))
        .map(String::as_str)
        .collect();
    assert_eq!(
        versions,
        [
            format!("version {ours}"),
            format!("negotiated {agreed}"),
            format!("version {agreed}")
        ],
        "{what}: {seen:?}"
    );
}

/// An OTP MG at `theirs` registers with our MGC at `ours`, then notifies.
fn otp_mg_registers_with_our_mgc(theirs: u8, ours: u8, codec: Codec, transport: Transport) {
    let what = format!(
        "OTP MG v{theirs}, our MGC v{ours}, {}, {transport:?}",
        codec.otp()
    );
    let agreed = theirs.min(ours);
    let rt = rt();
    let config = config(2944, codec, ours);
    let (seen_tx, seen_rx) = mpsc::channel();
    let serve = |mut incoming: megaco_stack::Incoming| async move {
        while let Some(inbound) = incoming.recv().await {
            match inbound {
                Inbound::Request(req) => {
                    let _ = seen_tx.send(format!("request v{}", req.version()));
                    let result = build::default_replies(req.actions());
                    req.reply(result).await.unwrap();
                }
                Inbound::Event {
                    event: Event::VersionNegotiated { version },
                    ..
                } => {
                    let _ = seen_tx.send(format!("negotiated {version}"));
                }
                _ => {}
            }
        }
    };
    let any: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let port = match transport {
        Transport::Udp => {
            let (endpoint, incoming) = rt.block_on(udp::bind(any, config)).unwrap();
            let port = endpoint.local_addr().port();
            rt.spawn(async move {
                let _endpoint = endpoint;
                serve(incoming).await
            });
            port
        }
        Transport::Tcp => {
            let listener = rt.block_on(tcp::Listener::bind(any, config)).unwrap();
            let port = listener.local_addr().unwrap().port();
            rt.spawn(async move {
                let (_conn, incoming) = listener.accept().await.unwrap();
                serve(incoming).await
            });
            port
        }
    };
    let stdout = otp::run_otp_mg_process(port, codec.otp(), theirs, transport, "negotiate");
    // OTP took our version from the reply, and megaco:call/3 returned
    // {AgreedVersion, {ok, ActionReplies}} for the Notify.
    assert_eq!(
        otp::line(&stdout, "negotiated "),
        format!("negotiated {agreed}"),
        "{what}"
    );
    let notify = otp::line(&stdout, "notify ");
    assert!(
        notify.starts_with(&format!("notify {{{agreed},{{ok,[{{'ActionReply',5,")),
        "{what}: {notify}"
    );
    assert!(notify.contains("notifyReply"), "{what}: {notify}");
    let seen: Vec<String> = seen_rx.try_iter().collect();
    assert_eq!(
        seen,
        [
            format!("request v{theirs}"),
            format!("negotiated {agreed}"),
            format!("request v{agreed}")
        ],
        "{what}"
    );
}

fn each(run: fn(u8, u8, Codec, Transport), transport: Transport) {
    if !otp_available() {
        return;
    }
    for (theirs, ours) in VERSIONS {
        for codec in [Codec::Text, Codec::Ber] {
            run(theirs, ours, codec, transport);
        }
    }
}

#[test]
fn our_mg_negotiates_with_otp_mgc_over_udp() {
    each(our_mg_registers_with_otp_mgc, Transport::Udp);
}

#[test]
fn our_mg_negotiates_with_otp_mgc_over_tcp() {
    each(our_mg_registers_with_otp_mgc, Transport::Tcp);
}

#[test]
fn otp_mg_negotiates_with_our_mgc_over_udp() {
    each(otp_mg_registers_with_our_mgc, Transport::Udp);
}

#[test]
fn otp_mg_negotiates_with_our_mgc_over_tcp() {
    each(otp_mg_registers_with_our_mgc, Transport::Tcp);
}

/// An OTP MGC that does not negotiate (its user leaves the connection at
/// its v1; OTP's default) answers our v3 registration in v3 without a
/// ServiceChangeVersion, so our MG keeps v3, and then refuses the Notify
/// with the message-level error 406 "Not negotiated version": the request
/// fails with that error at once, not after resends and a time-out.
#[test]
fn otp_refusal_of_our_version_is_an_error() {
    if !otp_available() {
        return;
    }
    for transport in [Transport::Udp, Transport::Tcp] {
        let mgc = start_otp_mgc("compact", 1, transport, "plain");
        rt().block_on(async {
            let remote: SocketAddr = ([127, 0, 0, 1], mgc.port).into();
            let config = config(2945, Codec::Text, 3);
            let (conn, _incoming) = match transport {
                Transport::Udp => {
                    udp::connect("127.0.0.1:0".parse().unwrap(), remote, config).await
                }
                Transport::Tcp => tcp::connect(remote, config).await,
            }
            .unwrap();
            let sc = build::service_change(
                TerminationId::root(),
                ServiceChangeMethod::Restart,
                "901 mg col boot",
            );
            let reply = conn.request(vec![sc]).await.unwrap();
            assert_eq!(reply_version(&reply), None);
            let answer =
                tokio::time::timeout(Duration::from_secs(20), conn.request(vec![notify(17)]))
                    .await
                    .expect("no answer from OTP");
            match answer {
                Err(megaco_stack::Error::MessageError(e)) => {
                    assert_eq!(e.error_code, 406, "{e:?}");
                    assert!(
                        e.error_text
                            .as_deref()
                            .is_some_and(|t| t.starts_with("Not negotiated version")),
                        "{e:?}"
                    );
                }
                other => panic!("{transport:?}: {other:?}"),
            }
        });
    }
}
