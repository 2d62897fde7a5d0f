//! `megaco pcap`: lines, JSON Lines, statistics and ladder diagrams of
//! captures, problems reported with exit status 1, and the README's
//! `## Captures` commands run as written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use megaco_pcap::write::{build, Writer};
use megaco_pcap::{LinkType, Timestamp};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_megaco")
}

fn megaco(args: &[&str], dir: &Path) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("megaco runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn generated_traffic_lines_json_stats_and_flow() {
    let dir = tmp("pcap-generated");
    let o = megaco(
        &[
            "pcap",
            "--generate",
            "g.pcapng",
            "--messages",
            "300",
            "--pcapng",
        ],
        &dir,
    );
    assert!(o.status.success(), "{o:?}");

    // One line per message: packet, time, src -> dst, transport, encoding, text.
    let o = megaco(&["pcap", "g.pcapng"], &dir);
    assert!(o.status.success(), "{o:?}");
    let lines = stdout(&o);
    assert_eq!(lines.lines().count(), 300);
    let first: Vec<&str> = lines.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        first[..7],
        [
            "1",
            "0.000000",
            "10.0.1.1:2944",
            "->",
            "10.0.0.1:2944",
            "udp",
            "text"
        ]
    );
    assert!(first[7].starts_with("!/"));

    // JSON Lines carry the model; each reads back with convert --from json
    // and gives the line's compact text.
    let o = megaco(&["pcap", "--json", "g.pcapng"], &dir);
    assert!(o.status.success());
    let json = stdout(&o);
    assert_eq!(json.lines().count(), 300);
    for (n, (j, line)) in json.lines().zip(lines.lines()).enumerate().step_by(37) {
        let v: serde_json::Value = serde_json::from_str(j).unwrap();
        assert_eq!(v["packet"], n as u64 + 1);
        assert_eq!(v["megaco_json"], 1);
        assert!(v["time"].as_f64().unwrap() > 1.7e9);
        let msg = megaco::json::from_str(j).unwrap();
        let compact = megaco::text::encode_compact(&msg).unwrap();
        let one_line = String::from_utf8(compact)
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let shown = line
            .split_whitespace()
            .skip(7)
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(one_line, shown);
    }

    // Statistics: every request answered.
    let o = megaco(&["pcap", "--stats", "g.pcapng"], &dir);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(
        text.contains("transactions: 150 requests, 150 answered, 0 unanswered"),
        "{text}"
    );
    let o = megaco(&["pcap", "--stats", "--json", "g.pcapng"], &dir);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["requests"].as_u64(), v["answered"].as_u64()),
        (Some(150), Some(150))
    );
    let all = v["response_ms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["command"] == "all")
        .unwrap();
    let (min, max) = (all["min"].as_f64().unwrap(), all["max"].as_f64().unwrap());
    assert!(
        (1.0..=5.0).contains(&min) && (min..=5.0).contains(&max),
        "{all}"
    );

    // The ladder diagram: one arrow per message.
    for name in ["flow.svg", "flow.html"] {
        let o = megaco(&["pcap", "--flow", name, "g.pcapng"], &dir);
        assert!(o.status.success(), "{o:?}");
        assert!(o.stdout.is_empty());
        let body = std::fs::read_to_string(dir.join(name)).unwrap();
        assert_eq!(body.matches("<polygon").count(), 300, "{name}");
        assert!(body.contains("T=1 ") && body.contains("R=1"));
    }
    let o = megaco(&["pcap", "--flow", "flow.png", "g.pcapng"], &dir);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn problems_and_undecodable_messages_are_listed_and_fail() {
    let dir = tmp("pcap-bad");
    let src = "10.0.0.1:2944".parse().unwrap();
    let dst = "10.0.0.2:2944".parse().unwrap();
    let mut w = Writer::pcap(Vec::new(), LinkType::ETHERNET).unwrap();
    let good = b"!/1 [10.0.0.1] T=1{C=-{AV=ROOT}}";
    w.packet(Timestamp(0), &build::ethernet(&build::udp(src, dst, good)))
        .unwrap();
    w.packet(
        Timestamp(1000),
        &build::ethernet(&build::udp(src, dst, b"!/1 [10.0.0.1] T=x{}")),
    )
    .unwrap();
    let mut file = w.into_inner();
    // The third record is cut short.
    file.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 100, 0, 0, 0, 1, 2]);
    std::fs::write(dir.join("bad.pcap"), &file).unwrap();
    let o = megaco(&["pcap", "bad.pcap"], &dir);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[1].trim_start().starts_with("2 ") && lines[1].contains("error at 1:18"),
        "{text}"
    );
    assert!(lines[2].contains("problem: file truncated"), "{text}");
    let o = megaco(&["pcap", "--json", "bad.pcap"], &dir);
    let objs: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs[1]["error"]["offset"], 17);
    assert_eq!(objs[1]["error"]["line"], 1);
    assert!(objs[2]["problem"].as_str().unwrap().contains("truncated"));
    // With --stats the problems go to standard error.
    let o = megaco(&["pcap", "--stats", "bad.pcap"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("truncated"));
    assert!(stdout(&o).contains("messages: 2 (1 did not decode)"));
    // Not a capture at all.
    std::fs::write(dir.join("x.pcap"), b"hello").unwrap();
    assert_eq!(megaco(&["pcap", "x.pcap"], &dir).status.code(), Some(2));
}

#[test]
fn other_ports_by_option() {
    let dir = tmp("pcap-port");
    let src = "10.0.0.1:5000".parse().unwrap();
    let dst = "10.0.0.2:5001".parse().unwrap();
    let per = megaco::codec::Encoding::per()
        .encode(&megaco::text::decode(b"!/2 [10.0.0.1] T=1{C=-{AV=ROOT}}").unwrap())
        .unwrap();
    let mut w = Writer::pcap(Vec::new(), LinkType::ETHERNET).unwrap();
    w.packet(Timestamp(0), &build::ethernet(&build::udp(src, dst, &per)))
        .unwrap();
    // Random bytes on the same ports.
    w.packet(
        Timestamp(1),
        &build::ethernet(&build::udp(src, dst, &[0x00, 0x80, 0xff, 0xff, 0x12])),
    )
    .unwrap();
    std::fs::write(dir.join("p.pcap"), w.into_inner()).unwrap();
    // Sniffed: the PER message decodes and is shown, the junk is not.
    let o = megaco(&["pcap", "p.pcap"], &dir);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().count(), 1);
    assert!(stdout(&o).contains(" per "));
    // Only the ports, not these: nothing.
    let o = megaco(&["pcap", "--no-sniff", "p.pcap"], &dir);
    assert!(stdout(&o).is_empty());
    // --port: everything on it is H.248, the junk shows its decode error.
    let o = megaco(&["pcap", "--no-sniff", "--port", "5001", "p.pcap"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o).lines().count(), 2);
    assert!(stdout(&o).lines().nth(1).unwrap().contains("error at byte"));
}

#[test]
fn times_count_from_the_first_packet_of_the_file() {
    let dir = tmp("pcap-first");
    let (a, b) = (
        "10.0.0.1:2944".parse().unwrap(),
        "10.0.0.2:2944".parse().unwrap(),
    );
    let s = 1_700_000_000_000_000_000u64;
    let mut w = Writer::pcap(Vec::new(), LinkType::ETHERNET).unwrap();
    // An ARP request, then a DNS query, then H.248.
    let mut arp = vec![0xFF; 6];
    arp.extend_from_slice(&[0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    w.packet(Timestamp(s), &arp).unwrap();
    let dns = build::udp(
        "10.0.0.1:53".parse().unwrap(),
        "10.0.0.2:53".parse().unwrap(),
        &[0; 12],
    );
    w.packet(Timestamp(s + 1_500_000_000), &build::ethernet(&dns))
        .unwrap();
    let req = b"!/1 [10.0.0.1]:2944 T=1{C=-{AV=ROOT}}";
    let rep = b"!/1 [10.0.0.2]:2944 P=1{C=-{AV=ROOT}}";
    w.packet(
        Timestamp(s + 2_250_000_000),
        &build::ethernet(&build::udp(a, b, req)),
    )
    .unwrap();
    w.packet(
        Timestamp(s + 2_500_000_000),
        &build::ethernet(&build::udp(b, a, rep)),
    )
    .unwrap();
    std::fs::write(dir.join("first.pcap"), w.into_inner()).unwrap();
    let o = megaco(&["pcap", "first.pcap"], &dir);
    assert!(o.status.success(), "{o:?}");
    // Packet and time as tshark gives them (frame.time_relative).
    let columns: Vec<(String, String)> = stdout(&o)
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), f[1].to_string())
        })
        .collect();
    assert_eq!(
        columns,
        [
            ("3".to_string(), "2.250000".to_string()),
            ("4".to_string(), "2.500000".to_string())
        ]
    );
}

#[test]
fn an_unreadable_file_is_reported_and_the_others_are_read() {
    let dir = tmp("pcap-unreadable");
    let (a, b) = (
        "10.0.0.1:2944".parse().unwrap(),
        "10.0.0.2:2944".parse().unwrap(),
    );
    let mut w = Writer::pcap(Vec::new(), LinkType::ETHERNET).unwrap();
    let req = b"!/1 [10.0.0.1]:2944 T=1{C=-{AV=ROOT}}";
    let rep = b"!/1 [10.0.0.2]:2944 P=1{C=-{AV=ROOT}}";
    w.packet(Timestamp(0), &build::ethernet(&build::udp(a, b, req)))
        .unwrap();
    w.packet(Timestamp(1000), &build::ethernet(&build::udp(b, a, rep)))
        .unwrap();
    std::fs::write(dir.join("ok.pcap"), w.into_inner()).unwrap();
    std::fs::create_dir(dir.join("adir")).unwrap();
    std::fs::write(dir.join("x.pcap"), b"hello").unwrap();

    // The summary of what could be read, the others named on standard
    // error, exit status 1.
    let o = megaco(
        &[
            "pcap",
            "--stats",
            "ok.pcap",
            "nofile.pcap",
            "adir",
            "x.pcap",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(stdout(&o).contains("1 requests, 1 answered"), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("nofile.pcap: cannot read the capture"),
        "{err}"
    );
    assert!(
        err.contains("adir: cannot read the capture: read error: is a directory"),
        "{err}"
    );
    assert!(
        err.contains("x.pcap: cannot read the capture: not a pcap"),
        "{err}"
    );
    // The lines of the readable file are all there, in any order of files.
    let o = megaco(&["pcap", "nofile.pcap", "ok.pcap"], &dir);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(stdout(&o).lines().count(), 2, "{o:?}");
    // Nothing readable at all: 2.
    let o = megaco(&["pcap", "nofile.pcap", "adir"], &dir);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}

#[test]
fn options_that_cannot_be_honoured_are_refused_up_front() {
    let dir = tmp("pcap-refused");
    let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
    // The diagram's name is checked before any capture is read (this one
    // does not even exist).
    let o = megaco(&["pcap", "--flow", "x.png", "nofile.pcap"], &dir);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        stderr(&o).contains("--flow x.png: the name must end in .svg or .html"),
        "{o:?}"
    );
    assert!(!stderr(&o).contains("nofile.pcap"), "{o:?}");
    // Generating reads no capture: files beside it are refused.
    let o = megaco(&["pcap", "--generate", "g.pcap", "other.pcap"], &dir);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(stderr(&o).contains("cannot be used with"), "{o:?}");
    assert!(!dir.join("g.pcap").exists());
    // Requests are written with their replies: an odd count cannot be.
    for n in ["1", "301"] {
        let o = megaco(&["pcap", "--generate", "g.pcap", "--messages", n], &dir);
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        assert!(stderr(&o).contains("must be even"), "{o:?}");
        assert!(!dir.join("g.pcap").exists());
    }
    let o = megaco(&["pcap", "--generate", "g.pcap", "--messages", "2"], &dir);
    assert!(o.status.success(), "{o:?}");
    let o = megaco(&["pcap", "g.pcap"], &dir);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o).lines().count(), 2);
    // Standard input cannot be read twice.
    let o = megaco(&["pcap", "-", "-"], &dir);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(stderr(&o).contains("can be read once"), "{o:?}");
    // The diagram's extension in any case.
    let o = megaco(&["pcap", "--flow", "ladder.SVG", "g.pcap"], &dir);
    assert!(o.status.success(), "{o:?}");
    assert!(dir.join("ladder.SVG").exists());
    // The options of --generate are refused without it, not ignored.
    for opt in [
        &["--tcp"][..],
        &["--pcapng"],
        &["--messages", "4"],
        &["--encodings", "ber"],
    ] {
        let o = megaco(&[&["pcap"][..], opt, &["g.pcap"]].concat(), &dir);
        assert_eq!(o.status.code(), Some(2), "{opt:?}: {o:?}");
        assert!(stderr(&o).contains("go with --generate"), "{opt:?}: {o:?}");
    }
}

#[test]
fn generate_writes_to_standard_output_for_a_dash() {
    let dir = tmp("pcap-generate-stdout");
    let o = megaco(
        &["pcap", "--generate", "-", "--messages", "4", "--pcapng"],
        &dir,
    );
    assert!(o.status.success(), "{o:?}");
    assert!(!dir.join("-").exists(), "wrote a file named -");
    std::fs::write(dir.join("g.pcapng"), &o.stdout).unwrap();
    let o = megaco(&["pcap", "g.pcapng"], &dir);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o).lines().count(), 4);
}

/// The `sh` block of the README's `## Captures` section, run line by line
/// in a scratch directory with `megaco` on the path.
#[test]
fn readme_capture_commands_run() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let section = readme
        .split("\n## Captures\n")
        .nth(1)
        .expect("a ## Captures section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let dir = tmp("pcap-readme");
    let path = format!(
        "{}:{}",
        Path::new(bin()).parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let o = Command::new("sh")
            .args(["-c", &format!("set -e; {line}")])
            .env("PATH", &path)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 5);
    assert!(dir.join("calls.html").is_file());
    // The sample listing is what `megaco pcap calls.pcap | head -3` prints.
    let sample = section
        .split("Each line shows the packet number")
        .nth(1)
        .and_then(|s| s.split("```text\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("the sample listing");
    let o = megaco(&["pcap", "calls.pcap"], &dir);
    let listing = stdout(&o);
    let head: Vec<&str> = listing.lines().take(3).collect();
    assert_eq!(sample.lines().collect::<Vec<_>>(), head);
}
