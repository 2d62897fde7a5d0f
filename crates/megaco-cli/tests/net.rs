//! `megaco mgc`, `megaco mg` and `megaco send` as separate processes
//! talking over real sockets on the loopback interface.
mod support;

use std::process::{Command, Stdio};

use support::*;

#[test]
fn mg_registers_and_notifies_over_udp_in_text() {
    let mgc = Mgc::start(&["--count", "3"]);
    let addr = mgc.addr.clone();
    let out = megaco(&[
        "mg",
        "--mgc",
        &addr,
        "--timeout",
        "5",
        "--notify",
        "11111111/00000000/00000001",
        "--notify",
        "11111111/00000000/00000002",
    ]);
    assert_ok(&out);
    let lines: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert_eq!(
        lines,
        [
            format!("-> {addr} T=1{{C=-{{SC=root{{SV{{MT=RS,RE=\"901 mg col boot\"}}}}}}}}"),
            // The registration settles on the version offered (the
            // message's) and the controller's, the lower.
            format!("<- {addr} P=1{{C=-{{SC=root{{SV{{V=1,MG=<mgc>}}}}}}}}"),
            format!("-> {addr} T=2{{C=-{{N=11111111/00000000/00000001{{OE=1{{al/of}}}}}}}}"),
            format!("<- {addr} P=2{{C=-{{N=11111111/00000000/00000001}}}}"),
            format!("-> {addr} T=3{{C=-{{N=11111111/00000000/00000002{{OE=1{{al/of}}}}}}}}"),
            format!("<- {addr} P=3{{C=-{{N=11111111/00000000/00000002}}}}"),
        ]
    );

    // The controller saw the same transactions, from the gateway's port.
    let log = mgc.finish();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 6, "{log}");
    assert!(lines[0].starts_with("<- 127.0.0.1:"), "{log}");
    // The stack offered the gateway's version in the registration.
    assert!(
        lines[0].ends_with(" T=1{C=-{SC=root{SV{MT=RS,V=1,RE=\"901 mg col boot\"}}}}"),
        "{log}"
    );
    // The gateway's mid, from the message header, follows its address.
    assert!(lines[0].contains(" <mg> T=1{"), "{log}");
    assert!(lines[1].starts_with("-> 127.0.0.1:"), "{log}");
    assert!(lines[1].ends_with(" P=1{C=-{SC=root{SV{V=1,MG=<mgc>}}}}"));
    assert!(lines[5].ends_with(" P=3{C=-{N=11111111/00000000/00000002}}"));
}

#[test]
fn mg_registers_over_tcp_in_ber_with_mids_and_version() {
    let mgc = Mgc::start(&[
        "--count",
        "1",
        "--tcp",
        "--encoding",
        "ber",
        "--mid",
        "[10.0.0.9]:2945",
        "--version",
        "2",
    ]);
    let out = megaco(&[
        "mg",
        "--mgc",
        &mgc.addr,
        "--tcp",
        "--encoding",
        "ber",
        "--mid",
        "<mg7.example.net>",
        "--version",
        "2",
        "--timeout",
        "5",
        "--pretty",
    ]);
    assert_ok(&out);
    let text = stdout(&out);
    assert!(
        text.contains("Reply = 1 {\n\tContext = - {\n\t\tServiceChange = root {\n\t\t\tServices {\n\t\t\t\tVersion = 2,\n\t\t\t\tMgcIdToTry = [10.0.0.9]:2945\n"),
        "{text}"
    );
    let log = mgc.finish();
    let lines: Vec<&str> = log.lines().collect();
    assert!(lines[0].contains(" <mg7.example.net> T=1{"), "{log}");
    assert!(
        lines[1].ends_with(" P=1{C=-{SC=root{SV{V=2,MG=[10.0.0.9]:2945}}}}"),
        "{log}"
    );
}

#[test]
fn mg_registers_over_udp_in_per() {
    let mgc = Mgc::start(&["--count", "1", "--encoding", "per"]);
    let out = megaco(&[
        "mg",
        "--mgc",
        &mgc.addr,
        "--encoding",
        "per",
        "--timeout",
        "5",
    ]);
    assert_ok(&out);
    assert!(stdout(&out).contains(" P=1{C=-{SC=root{SV{V=1,MG=<mgc>}}}}"));
    mgc.finish();
}

#[test]
fn send_a_text_notify_over_udp_keeps_its_transaction_id() {
    let mgc = Mgc::start(&["--count", "1"]);
    let out = megaco(&[
        "send",
        "--to",
        &mgc.addr,
        "--timeout",
        "5",
        &vector("pretty/msg03.txt"),
    ]);
    assert_ok(&out);
    assert_eq!(
        stdout(&out),
        format!(
            "<- {} P=10000{{C=-{{N=11111111/00000000/00000000}}}}\n",
            mgc.addr
        )
    );
    let log = mgc.finish();
    assert!(
        log.lines().next().unwrap().ends_with(
            " T=10000{C=-{N=11111111/00000000/00000000{OE=2222{19990729T22000000:al/of}}}}"
        ),
        "{log}"
    );
}

#[test]
fn send_a_ber_service_change_over_tcp_as_json() {
    let mgc = Mgc::start(&["--count", "1", "--tcp", "--encoding", "ber"]);
    let out = megaco(&[
        "send",
        "--tcp",
        "--to",
        &mgc.addr,
        "--timeout",
        "5",
        "--json",
        &vector("ber/msg04.ber"),
    ]);
    assert_ok(&out);
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["event"], "reply_received");
    assert!(v["time"].as_str().unwrap().ends_with('Z'), "{v}");
    assert_eq!(v["peer"], mgc.addr.as_str());
    let t = &v["transaction"]["reply"];
    assert_eq!(t["transaction_id"], 9998);
    let reply = &t["result"]["action_replies"][0]["command_reply"][0]["service_change"];
    assert_eq!(
        reply["service_change_result"]["service_change_res_parms"]["service_change_mgc_id"],
        "<mgc>"
    );
    mgc.finish();
}

#[test]
fn send_a_per_file_from_standard_input_over_udp() {
    let mgc = Mgc::start(&["--count", "1", "--encoding", "per"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_megaco"))
        .args(["send", "--to", &mgc.addr, "--timeout", "5", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let per = std::fs::read(vector("per/msg03.per")).unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &per).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_ok(&out);
    assert_eq!(
        stdout(&out),
        format!(
            "<- {} P=10000{{C=-{{N=11111111/00000000/00000000}}}}\n",
            mgc.addr
        )
    );
    mgc.finish();
}

#[test]
fn send_numbers_several_requests_from_the_first_id() {
    let dir = std::env::temp_dir().join(format!("megaco-send-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("two.txt");
    std::fs::write(
        &file,
        "!/1 [1.2.3.4]:2944\nT=5{C=-{N=a/1{OE=1{al/of}}}}\nP=4{C=-{N=a/1}}\nT=9{C=-{N=a/2{OE=1{al/on}}}}",
    )
    .unwrap();
    let mgc = Mgc::start(&["--count", "2", "--pretty"]);
    let out = megaco(&[
        "send",
        "--to",
        &mgc.addr,
        "--timeout",
        "5",
        file.to_str().unwrap(),
    ]);
    assert_ok(&out);
    assert_eq!(
        stdout(&out),
        format!(
            "<- {a} P=5{{C=-{{N=a/1}}}}\n<- {a} P=6{{C=-{{N=a/2}}}}\n",
            a = mgc.addr
        )
    );
    let err = stderr(&out);
    assert!(
        err.contains("1 transactions that are not requests are not sent"),
        "{err}"
    );
    assert!(err.contains("transaction 9 of "), "{err}");
    assert!(err.contains("is sent as transaction 6"), "{err}");
    // --pretty on the controller: each transaction under its arrow line.
    let log = mgc.finish();
    assert!(log.contains("Transaction = 6 {"), "{log}");
    assert!(log.contains("Reply = 6 {"), "{log}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn send_exits_1_when_the_reply_carries_an_error() {
    // A Modify: the controller's scenario answers error 501.
    let dir = std::env::temp_dir().join(format!("megaco-send-501-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = dir.join("501.toml");
    std::fs::write(
        &rules,
        "[[rule]]\ncommand = \"modify\"\nerror = 501\ntext = \"Not Implemented\"\nscope = \"context\"\n",
    )
    .unwrap();
    let mgc = Mgc::start(&["--count", "1", "--scenario", rules.to_str().unwrap()]);
    let out = megaco(&[
        "send",
        "--to",
        &mgc.addr,
        "--timeout",
        "5",
        &vector("compact/msg01a.txt"),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).ends_with(" P=9999{C=-{ER=501{\"Not Implemented\"}}}\n"));
    assert!(
        stderr(&out).contains("transaction 9999: ")
            && stderr(&out).contains("answered error 501 (Not Implemented)"),
        "{}",
        stderr(&out)
    );
    mgc.finish();
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn no_reply_over_udp_times_out_with_exit_3() {
    // A socket that reads nothing and answers nothing.
    let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let out = megaco(&["mg", "--mgc", &addr, "--timeout", "0.3", "--resends", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "transaction 1: no reply from {addr} over udp within 300ms (timed out)"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("registration with {addr} failed")),
        "{err}"
    );

    let out = megaco(&[
        "send",
        "--to",
        &addr,
        "--timeout",
        "0.2",
        &vector("pretty/msg03.txt"),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    assert!(stderr(&out).contains("transaction 10000: no reply from"));
    drop(silent);
}

#[test]
fn nothing_listening_over_tcp_exits_3() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let addr = format!("127.0.0.1:{port}");
    let out = megaco(&["mg", "--tcp", "--mgc", &addr, "--timeout", "0.3"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("cannot connect to {addr} over TCP")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_file_without_requests_is_refused() {
    // A reply: nothing is sent, nothing needs to listen.
    let out = megaco(&["send", "--to", "127.0.0.1:9", &vector("pretty/msg05.txt")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("msg05.txt: nothing to send: the message holds no transaction requests"),
        "{}",
        stderr(&out)
    );
    // A message-level error.
    let dir = std::env::temp_dir().join(format!("megaco-send-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("error.txt");
    std::fs::write(&file, "!/1 [1.2.3.4] ER=400{\"Syntax error\"}").unwrap();
    let out = megaco(&["send", "--to", "127.0.0.1:9", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("nothing to send: the message holds a message-level error 400"),
        "{}",
        stderr(&out)
    );
    // Not a message at all.
    std::fs::write(&file, "MEGACO/1 [1.2.3.4] Transaction = 1 {").unwrap();
    let out = megaco(&["send", "--to", "127.0.0.1:9", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("error.txt:1:"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_mid_is_a_usage_error() {
    let out = megaco(&["mg", "--mgc", "127.0.0.1:9", "--mid", "[1.2.3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("is not a message identifier"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn help_lists_the_network_subcommands() {
    let out = megaco(&["--help"]);
    assert_ok(&out);
    let text = stdout(&out);
    for sub in ["mgc", "mg", "send"] {
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with(&format!("{sub} "))),
            "{text}"
        );
    }
    let out = megaco(&["send", "--help"]);
    assert_ok(&out);
    for opt in [
        "--to",
        "--tcp",
        "--encoding",
        "--timeout",
        "--resends",
        "--json",
    ] {
        assert!(stdout(&out).contains(opt), "{opt}");
    }
    // Every engine timer and bound, with the engine's default.
    let out = megaco(&["mgc", "--help"]);
    let help = stdout(&out);
    for (flag, default) in [
        ("--reply-timer <SECS|auto>", "[default: auto]"),
        ("--pending-timer <SECS|none>", "[default: 30]"),
        ("--max-peers <N>", "[default: 4096]"),
        ("--tcp-idle-timeout <SECS|none>", "[default: 300]"),
        ("--error-rate-per-peer <RATE/BURST>", "[default: 5/10]"),
        ("--text-port <PORT>", "[default: 2944]"),
        ("--binary-port <PORT>", "[default: 2945]"),
    ] {
        let at = help
            .find(flag)
            .unwrap_or_else(|| panic!("{flag} in {help}"));
        let next = help[at..]
            .find("[default: ")
            .map(|i| &help[at + i..])
            .unwrap();
        assert!(
            next.starts_with(default),
            "{flag}: {}",
            &next[..30.min(next.len())]
        );
    }
}

#[test]
fn a_message_level_error_reply_is_reported_not_waited_out() {
    // A peer that answers every message with error 406, as OTP does a
    // version it does not speak.
    let peer = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = peer.local_addr().unwrap().to_string();
    let answer = std::thread::spawn(move || {
        peer.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let mut buf = [0u8; 4096];
        let (_, from) = peer.recv_from(&mut buf).unwrap();
        peer.send_to(b"!/1 [127.0.0.1]:9 ER=406{\"Version not supported\"}", from)
            .unwrap();
    });
    let out = megaco(&[
        "send",
        "--to",
        &addr,
        "--timeout",
        "5",
        &vector("pretty/msg03.txt"),
    ]);
    answer.join().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "transaction 10000: {addr} answered with a message-level error 406 (Version not supported)"
        )),
        "{}",
        stderr(&out)
    );
}

#[cfg(unix)]
#[test]
fn mgc_stops_on_sigint_and_sigterm_with_a_summary() {
    let mgc = Mgc::start(&["--tcp"]);
    let err = mgc.stop("-INT");
    assert!(
        err.contains("mgc: stopped by SIGINT after ")
            && err.contains(
                ": received 0, sent 0, replied 0, errors 0, dropped log lines 0, peers 0"
            ),
        "{err}"
    );

    let mgc = Mgc::start(&[]);
    let out = megaco(&["mg", "--mgc", &mgc.addr, "--timeout", "5"]);
    assert_ok(&out);
    let err = mgc.stop("-TERM");
    let summary = err.lines().last().unwrap();
    assert!(summary.contains("mgc: stopped by SIGTERM after "), "{err}");
    assert!(
        summary
            .ends_with(": received 1, sent 0, replied 1, errors 0, dropped log lines 0, peers 1"),
        "{err}"
    );
}

/// A burst beyond the queue to `megaco mgc` is refused with 503 by the
/// stack, and the controller says so on standard error: an operator
/// learns that it was behind, not only that errors went out.
#[cfg(unix)]
#[test]
fn mgc_says_when_it_was_behind() {
    let mgc = Mgc::start(&["--udp", "--inbound-queue", "2"]);
    // Four hundred requests in one datagram: the stack takes them in one
    // go, the queue to the controller's loop holds two.
    let body: String = (1..=400)
        .map(|id| format!("T={id}{{C=1{{N=t1{{OE=3{{al/on}}}}}}}}"))
        .collect();
    let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.send_to(format!("!/1 [127.0.0.9]:2944 {body}").as_bytes(), &mgc.addr)
        .unwrap();
    // Replies (or 503s) have come back once the controller has read it.
    sock.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut buf = [0u8; 65536];
    sock.recv_from(&mut buf).expect("an answer");
    let err = mgc.stop("-INT");
    let behind = err
        .lines()
        .find(|l| l.contains("mgc: behind in the last "))
        .unwrap_or_else(|| panic!("{err}"));
    let refused: u64 = behind
        .split(": ")
        .nth(2)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{behind}"));
    assert!((1..400).contains(&refused), "{behind}");
    assert!(behind.contains(" requests refused with 503 ("), "{behind}");
    assert!(
        err.lines()
            .last()
            .unwrap()
            .contains("mgc: stopped by SIGINT"),
        "{err}"
    );
}

#[test]
fn send_sends_all_requests_at_once_and_reports_their_ids() {
    let dir = std::env::temp_dir().join(format!("megaco-send-all-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("three.txt");
    std::fs::write(
        &file,
        "!/1 [1.2.3.4]:2944\nT=5{C=-{N=a/1{OE=1{al/of}}}}\nT=9{C=-{N=a/2{OE=1{al/on}}}}\nT=2{C=-{N=a/3{OE=1{al/of}}}}",
    )
    .unwrap();

    // A peer that answers nothing, and one resend: sent one after the
    // other, the first request and its resend would come before the
    // second; sent at once, both originals come first.
    let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let child = Command::new(env!("CARGO_BIN_EXE_megaco"))
        .args(["send", "--to", &addr, "--timeout", "1", "--resends", "1"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut buf = [0u8; 2048];
    let mut first = Vec::new();
    for _ in 0..3 {
        let (n, _) = silent.recv_from(&mut buf).unwrap();
        let text = String::from_utf8_lossy(&buf[..n]).to_string();
        first.push(text.split_once('\n').unwrap().1.to_string());
    }
    first.sort();
    assert_eq!(
        first,
        [
            "T=5{C=-{N=a/1{OE=1{al/of}}}}",
            "T=6{C=-{N=a/2{OE=1{al/on}}}}",
            "T=7{C=-{N=a/3{OE=1{al/of}}}}"
        ]
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("transaction 9 of "), "{err}");
    assert!(err.contains("is sent as transaction 6"), "{err}");
    assert!(err.contains("is sent as transaction 7"), "{err}");
    for id in [5, 6, 7] {
        assert!(
            err.contains(&format!("transaction {id}: no reply from {addr}")),
            "{err}"
        );
    }

    // Answered: the replies come in the file's order, with the ids sent.
    let mgc = Mgc::start(&["--count", "3"]);
    let out = megaco(&[
        "send",
        "--to",
        &mgc.addr,
        "--timeout",
        "5",
        file.to_str().unwrap(),
    ]);
    assert_ok(&out);
    assert_eq!(
        stdout(&out),
        format!(
            "<- {a} P=5{{C=-{{N=a/1}}}}\n<- {a} P=6{{C=-{{N=a/2}}}}\n<- {a} P=7{{C=-{{N=a/3}}}}\n",
            a = mgc.addr
        )
    );
    let log = mgc.finish();
    assert_eq!(log.lines().count(), 6, "{log}");
    assert!(
        log.lines()
            .all(|l| !l.starts_with("<- ") || l.contains(" [1.2.3.4]:2944 T=")),
        "{log}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn mgc_sends_a_long_v3_reply_in_segments() {
    const MAX: usize = 40;
    let max = MAX.to_string();
    let mgc = Mgc::start(&[
        "--version",
        "3",
        "--encoding",
        "compact",
        "--max-pdu-size",
        &max,
        "--count",
        "1",
    ]);
    let peer = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    peer.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let actions: Vec<String> = (1..=6)
        .map(|c| format!("C={c}{{N=t1{{OE=1{{al/of}}}}}}"))
        .collect();
    let request = format!("!/3 [127.0.0.1]:2944 T=7{{{}}}", actions.join(","));
    peer.send_to(request.as_bytes(), &mgc.addr).unwrap();
    // Each segment: `!/3 <mgc>` NEWLINE `P=7/n{C=..{N=t1},...}`, the last
    // marked complete (`/&`, compact for `/END`).
    let mut segments = Vec::new();
    let mut buf = [0u8; 2048];
    while !segments.last().is_some_and(|s: &String| s.contains("/&{")) {
        let (n, _) = peer
            .recv_from(&mut buf)
            .unwrap_or_else(|e| panic!("after {segments:?}: {e}"));
        assert!(n <= MAX, "a segment of {n} bytes");
        segments.push(String::from_utf8(buf[..n].to_vec()).unwrap());
    }
    assert!(segments.len() >= 3, "{segments:?}");
    let mut contexts = Vec::new();
    for (i, s) in segments.iter().enumerate() {
        let (head, body) = s.split_once('{').unwrap();
        assert!(
            head.ends_with(&format!("P=7/{}", i + 1))
                || head.ends_with(&format!("P=7/{}/&", i + 1)),
            "{s}"
        );
        for part in body.split("C=").skip(1) {
            contexts.push(part.split('{').next().unwrap().parse::<u32>().unwrap());
        }
    }
    assert_eq!(contexts, (1..=6).collect::<Vec<_>>(), "{segments:?}");
    mgc.finish();
}

/// `mgc --listen` and `--host` take host names, and `--listen` an address
/// without a port, as `mg --mgc` does; a --host with a port is refused
/// with the form it takes.
#[test]
fn mgc_takes_host_names_and_addresses_without_a_port() {
    let mgc = Mgc::start(&["--listen", "localhost:0", "--udp", "--count", "1"]);
    assert!(
        mgc.addr.starts_with("127.0.0.1:") || mgc.addr.starts_with("[::1]:"),
        "{}",
        mgc.addr
    );
    let out = megaco(&["mg", "--mgc", &mgc.addr, "--timeout", "5"]);
    assert_ok(&out);
    mgc.finish();

    let mut child = Command::new(env!("CARGO_BIN_EXE_megaco"))
        .args(["mgc", "--host", "localhost", "--text-port", "0"])
        .args(["--binary-port", "0", "--udp", "--quiet"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut first,
    )
    .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first.contains(" listening on udp "), "{first:?}");

    let out = megaco(&["mgc", "--host", "127.0.0.1:2944"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("expected an IP address or a host name without a port"),
        "{}",
        stderr(&out)
    );
}

/// A TCP listener whose accept queue is full: connecting to it never
/// completes (the kernel drops the SYNs). Kept alive by what it returns.
fn full_accept_queue() -> (
    tokio::runtime::Runtime,
    tokio::net::TcpListener,
    Vec<std::net::TcpStream>,
    String,
) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    let listener = rt.block_on(async {
        let s = tokio::net::TcpSocket::new_v4().unwrap();
        s.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        s.listen(0).unwrap()
    });
    let addr = listener.local_addr().unwrap();
    // Connections never accepted fill the queue (of one, with a backlog
    // of 0); the attempts that find it full are given up on.
    let queued = (0..3)
        .filter_map(|_| {
            std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_millis(200)).ok()
        })
        .collect();
    (rt, listener, queued, addr.to_string())
}

/// Runs `megaco` to completion, killed (and the test failed) if it is
/// still running after 30 s (a bound against hanging, not a timing).
fn megaco_bounded(args: &[&str]) -> std::process::Output {
    bounded(spawn_megaco(args))
}

/// `megaco` with `args` started, its output piped.
fn spawn_megaco(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_megaco"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn bounded(mut child: std::process::Child) -> std::process::Output {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("still running after 30 s; stderr:\n{}", stderr(&out));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_tcp_connect_that_never_completes_gives_up_after_the_timeout() {
    let (_rt, _listener, _queued, addr) = full_accept_queue();
    let out = megaco_bounded(&["mg", "--tcp", "--mgc", &addr, "--timeout", "0.5"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("cannot connect to {addr} over TCP")) && err.contains("(timed out)"),
        "{err}"
    );
    let out = megaco_bounded(&[
        "send",
        "--tcp",
        "--to",
        &addr,
        "--timeout",
        "0.5",
        &vector("pretty/msg03.txt"),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("(timed out)"), "{}", stderr(&out));
}

/// Waits until process `pid` catches SIGTERM (its handlers are in place).
#[cfg(target_os = "linux")]
fn catches_sigterm(pid: u32) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .map(|m| u64::from_str_radix(m.trim(), 16).unwrap())
            .unwrap();
        if caught & (1 << (15 - 1)) != 0 {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "no SIGTERM handler");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Runs megaco with `args`, sends it SIGTERM once its handlers are in
/// place, and returns what it printed and how it exited.
#[cfg(target_os = "linux")]
fn stopped_by_sigterm(args: &[&str]) -> std::process::Output {
    let child = spawn_megaco(args);
    catches_sigterm(child.id());
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    bounded(child)
}

#[cfg(target_os = "linux")]
#[test]
fn sigterm_stops_mg_and_send_while_they_connect() {
    let (_rt, _listener, _queued, addr) = full_accept_queue();
    let msg = vector("pretty/msg03.txt");
    for args in [
        vec!["mg", "--tcp", "--mgc", &addr, "--timeout", "60"],
        vec!["send", "--tcp", "--to", &addr, "--timeout", "60", &msg],
    ] {
        let out = stopped_by_sigterm(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(": stopped by SIGTERM after "), "{err}");
    }
}

/// `mg --tcp` closes the connection itself at the end: that is no
/// warning (one the controller closes still is).
#[test]
fn mg_over_tcp_ends_without_a_close_warning() {
    let mgc = Mgc::start(&["--tcp"]);
    let out = megaco_bounded(&[
        "mg",
        "--mgc",
        &mgc.addr,
        "--tcp",
        "--timeout",
        "5",
        "--notify",
        "tdm/1",
    ]);
    assert_ok(&out);
    let err = stderr(&out);
    assert!(!err.contains("closed the connection"), "{err}");
    assert!(err.contains("mg: done after "), "{err}");
}

/// A TCP peer's connection and its end are logged, as the README's Logs
/// section documents them: `connected` and `closed`, each with `peer`,
/// `closed` with a `reason` only when we closed it.
#[cfg(unix)]
#[test]
fn tcp_connections_are_logged_when_they_open_and_close() {
    let mgc = Mgc::start(&["--tcp"]);
    let out = megaco_bounded(&["mg", "--mgc", &mgc.addr, "--tcp", "--timeout", "5"]);
    assert_ok(&out);
    let log = bodies(&mgc.stop_with_log());
    let port = |l: &str| l.split_whitespace().nth(1).unwrap().to_string();
    let connected: Vec<&str> = log.lines().filter(|l| l.ends_with(" connected")).collect();
    let closed: Vec<&str> = log.lines().filter(|l| l.contains(" closed")).collect();
    assert_eq!(connected.len(), 1, "{log}");
    assert_eq!(closed.len(), 1, "{log}");
    assert_eq!(port(connected[0]), port(closed[0]), "{log}");
    assert!(closed[0].ends_with(" closed"), "the mg closed it: {log}");

    // The same in JSON (the address read from the first line).
    let mut child = Command::new(env!("CARGO_BIN_EXE_megaco"))
        .args(["mgc", "--host", "127.0.0.1", "--text-port", "0"])
        .args(["--encoding", "pretty", "--tcp", "--json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    let listening: serde_json::Value = serde_json::from_str(&first).unwrap();
    let at = listening["address"].as_str().unwrap().to_string();
    let out = megaco_bounded(&["mg", "--mgc", &at, "--tcp", "--timeout", "5"]);
    assert_ok(&out);
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let mut log = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut log).unwrap();
    assert!(child.wait().unwrap().success());
    let events: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |name: &str| {
        events
            .iter()
            .filter(|e| e["event"] == name)
            .cloned()
            .collect::<Vec<_>>()
    };
    let (connected, closed) = (of("connected"), of("closed"));
    assert_eq!(connected.len(), 1, "{log}");
    assert_eq!(closed.len(), 1, "{log}");
    assert_eq!(connected[0]["peer"], closed[0]["peer"], "{log}");
    assert!(closed[0].get("error").is_none(), "{log}");
    assert!(closed[0].get("reason").is_none(), "the mg closed it: {log}");
}

/// `send` shows the pendings it receives, as `mg` does, and ends with its
/// summary (exit status 2) when stopped by a signal while it waits.
#[cfg(target_os = "linux")]
#[test]
fn send_shows_pendings_and_stops_on_a_signal_with_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        "[[rule]]\ncommand = \"notify\"\npending = 0.2\n\n\
         [[rule]]\ncommand = \"auditvalue\"\nreply = \"none\"\n",
    )
    .unwrap();
    let mgc = Mgc::start(&["--udp", "--scenario", rules.to_str().unwrap()]);
    let notify = dir.path().join("notify.txt");
    std::fs::write(
        &notify,
        "!/1 [127.0.0.1]:5555 T=7{C=-{N=tdm/1{OE=1{al/of}}}}",
    )
    .unwrap();
    let out = megaco_bounded(&[
        "send",
        "--to",
        &mgc.addr,
        "--timeout",
        "10",
        notify.to_str().unwrap(),
    ]);
    assert_ok(&out);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].ends_with(" Pending=7"), "{text}");
    assert!(lines[1].contains(" P=7{"), "{text}");

    // A request the controller never answers: SIGTERM while waiting.
    let held = dir.path().join("held.txt");
    std::fs::write(&held, "!/1 [127.0.0.1]:5555 T=8{C=-{AV=tdm/1}}").unwrap();
    let held = held.to_str().unwrap();
    let out = stopped_by_sigterm(&["send", "--to", &mgc.addr, "--timeout", "60", held]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("send: stopped by SIGTERM after "), "{err}");
}
