//! `megaco mgc` and `megaco mg` with Erlang/OTP megaco on the other side:
//! an OTP MG registering on every port of one `megaco mgc` at once, and
//! the README's scripted call run against an OTP MGC.
//!
//! Needs `erl` and `erlc` with the megaco application (Debian:
//! erlang-base, erlang-megaco, erlang-asn1). Without them the tests fail
//! when `CI=true` and are skipped, saying so, otherwise.
mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::time::Duration;

use support::*;

fn otp_available() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    let ok = *FOUND.get_or_init(|| {
        let quiet = |c: &mut Command| {
            c.stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        quiet(Command::new("erl").args(["-noshell", "-eval", "halt()."]))
            && Command::new("erlc")
                .arg("-help")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok()
    });
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "erl/erlc with Erlang/OTP megaco are required under CI (run scripts/setup.sh)"
        );
        eprintln!("SKIPPED: erl/erlc not installed (run scripts/setup.sh)");
    }
    ok
}

/// Compiles tests/otp/*.erl once per run into the target directory.
fn beams() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/otp");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("megaco-cli-otp");
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new("erlc")
            .arg("-o")
            .arg(&dir)
            .arg(src.join("peers_mg.erl"))
            .arg(src.join("peers_mgc.erl"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "erlc failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
    .clone()
}

/// An Erlang node running one of tests/otp/, its output lines on a
/// channel; killed when dropped.
struct Erl {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Erl {
    fn start(module: &str, args: &[&str]) -> Erl {
        let mut child = Command::new("erl")
            .arg("-noshell")
            .arg("-pa")
            .arg(beams())
            .args(["-s", module, "start"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Erl { child, lines }
    }

    fn line(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(30))
            .expect("no output from the Erlang node within 30 s")
    }
}

impl Drop for Erl {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn port_of(addr: &str) -> &str {
    port(addr)
}

fn port(addr: &str) -> &str {
    addr.rsplit(':').next().unwrap()
}

#[cfg(unix)]
#[test]
fn an_otp_mg_registers_on_every_port_of_one_mgc() {
    if !otp_available() {
        return;
    }
    // The binary port answers each peer in its BER dialect: OTP's here.
    let mgc = Mgc::start(&[]);
    let text = port(&mgc.addr_of("udp", "text")).to_string();
    let binary = port(&mgc.addr_of("udp", "binary")).to_string();
    assert_eq!(text, port(&mgc.addr_of("tcp", "text")));
    assert_eq!(binary, port(&mgc.addr_of("tcp", "binary")));
    let specs = [
        format!("udp:pretty:{text}"),
        format!("tcp:compact:{text}"),
        format!("udp:ber:{binary}"),
        format!("tcp:ber:{binary}"),
    ];
    let mut args = vec!["1"];
    args.extend(specs.iter().map(String::as_str));
    let otp = Erl::start("peers_mg", &args);
    let mut seen = Vec::new();
    loop {
        let line = otp.line();
        if line == "done" {
            break;
        }
        let mut words = line.splitn(3, ' ');
        let (tag, what, result) = (
            words.next().unwrap(),
            words.next().unwrap(),
            words.next().unwrap(),
        );
        // megaco:call/3 gives {Version, {ok, ActionReplies}} for a reply
        // without error.
        assert!(
            result.starts_with("{1,{ok,[{'ActionReply',0,asn1_NOVALUE,asn1_NOVALUE,"),
            "{line}"
        );
        seen.push(format!("{tag} {what}"));
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "tcp-ber notify",
            "tcp-ber servicechange",
            "tcp-compact notify",
            "tcp-compact servicechange",
            "udp-ber notify",
            "udp-ber servicechange",
            "udp-pretty notify",
            "udp-pretty servicechange",
        ]
    );
    let err = mgc.stop("-TERM");
    assert!(
        err.contains("received 8, sent 0, replied 8, errors 0"),
        "{err}"
    );
    assert!(err.trim_end().ends_with("peers 4"), "{err}");
}

fn free_tcp_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn the_readme_call_scenario_runs_against_an_otp_mgc() {
    if !otp_available() {
        return;
    }
    let call =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios/mg-call.toml");
    for (transport, encoding) in [("udp", "pretty"), ("tcp", "compact")] {
        let listen = if transport == "udp" {
            0
        } else {
            free_tcp_port()
        };
        let otp = Erl::start(
            "peers_mgc",
            &[&listen.to_string(), encoding, "1", transport],
        );
        let first = otp.line();
        let port = first
            .strip_prefix("port ")
            .unwrap_or_else(|| panic!("{first}"));
        let mut args = vec![
            "mg",
            "--mgc",
            "",
            "--encoding",
            encoding,
            "--timeout",
            "5",
            "--scenario",
        ];
        let addr = format!("127.0.0.1:{port}");
        args[2] = &addr;
        args.push(call.to_str().unwrap());
        if transport == "tcp" {
            args.push("--tcp");
        }
        let out = megaco(&args);
        assert_ok(&out);
        let log = stdout(&out);
        // OTP's controller chose the context and the RTP termination.
        assert!(
            log.contains(&format!("<- {addr} P=2{{C=1{{A=tdm/1,A=rtp/1}}}}")),
            "{log}"
        );
        assert!(
            log.contains(&format!("-> {addr} T=5{{C=1{{S=rtp/1,S=tdm/1}}}}")),
            "{log}"
        );
        let requests: Vec<String> = (0..5).map(|_| otp.line()).collect();
        assert_eq!(
            requests,
            [
                "request [serviceChangeReq]",
                "request [addReq,addReq]",
                "request [modReq]",
                "request [notifyReq]",
                "request [subtractReq,subtractReq]",
            ],
            "{transport} {encoding}"
        );
    }
}

#[test]
fn versions_are_negotiated_with_otp_both_ways() {
    if !otp_available() {
        return;
    }
    // Our gateway at v3, OTP's controller at v1: the registration settles
    // on v1, and the Notify after it goes out in v1.
    let otp = Erl::start("peers_mgc", &["0", "pretty", "1", "udp"]);
    let first = otp.line();
    let port = first
        .strip_prefix("port ")
        .unwrap_or_else(|| panic!("{first}"));
    let addr = format!("127.0.0.1:{port}");
    let out = megaco(&[
        "mg",
        "--mgc",
        &addr,
        "--version",
        "3",
        "--timeout",
        "5",
        "--notify",
        "a/1",
    ]);
    assert_ok(&out);
    let raw = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        raw.contains(&format!("-- {addr} negotiated version 1")),
        "{raw}"
    );
    assert_eq!(otp.line(), "request [serviceChangeReq]");
    assert_eq!(otp.line(), "request [notifyReq]");

    // OTP's gateway at v3, our controller at v1 (the reverse).
    let mgc = Mgc::start(&["--udp", "--encoding", "pretty", "--version", "1"]);
    let spec = format!("udp:pretty:{}", port_of(&mgc.addr));
    let otp = Erl::start("peers_mg", &["3", &spec]);
    let sc = otp.line();
    assert!(sc.starts_with("udp-pretty servicechange {3,{ok,"), "{sc}");
    let notify = otp.line();
    assert!(notify.starts_with("udp-pretty notify {1,{ok,"), "{notify}");
    assert_eq!(otp.line(), "done");
    let err = mgc.stop("-TERM");
    assert!(
        err.contains("received 2, sent 0, replied 2, errors 0"),
        "{err}"
    );
}
