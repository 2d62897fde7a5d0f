//! `megaco load` and `megaco bench fanout` from the command line: the
//! outputs' form (tables, TSV, JSON, charts), the counts adding up, and
//! the loopback rule. Small and short: no timings are checked.
use std::path::Path;
use std::process::Command;

fn megaco() -> Command {
    Command::new(env!("CARGO_BIN_EXE_megaco"))
}

#[test]
fn fanout_writes_tables_tsv_json_and_charts() {
    let dir = tempfile::tempdir().unwrap();
    let out = megaco()
        .args([
            "bench",
            "fanout",
            "--max",
            "11",
            "--step",
            "5",
            "--passes",
            "1",
            "--no-stack",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("| Destinations | Time (µs) | Time per destination (µs) |"));
    assert!(stdout.contains("| Terminations | Time (µs) | Time per termination (µs) |"));
    assert!(stdout.contains("template/trusted/single"));
    // TSV: a header, then one row per setup and N, every field there.
    let tsv = std::fs::read_to_string(dir.path().join("fanout.tsv")).unwrap();
    let lines: Vec<&str> = tsv.lines().collect();
    let width = lines[0].split('\t').count();
    assert_eq!(width, 17);
    // 8 setups and the wildcard table, N = 1, 6, 11.
    assert_eq!(lines.len(), 1 + 9 * 3);
    for l in &lines[1..] {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f.len(), width, "{l}");
        let (sent, answered): (u64, u64) = (f[11].parse().unwrap(), f[12].parse().unwrap());
        assert_eq!(sent, answered, "every destination answered: {l}");
        assert_eq!(f[14], "0", "no errors: {l}");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("fanout.json")).unwrap()).unwrap();
    assert_eq!(json["fanout"]["setups"].as_array().unwrap().len(), 8);
    assert_eq!(json["fanout"]["setups"][0]["rows"][2]["destinations"], 11);
    // The build measured (this test is built like the binary it runs).
    assert_eq!(json["build"], megaco_bench::build());
    for chart in ["fanout.svg", "fanout.png", "wildcard.svg", "wildcard.png"] {
        assert!(
            std::fs::metadata(dir.path().join(chart)).unwrap().len() > 0,
            "{chart}"
        );
    }
}

#[test]
fn load_in_the_controller_role_reports_json_that_adds_up() {
    let dir = tempfile::tempdir().unwrap();
    let out = megaco()
        .args([
            "load",
            "--role",
            "mgc",
            "--mgc",
            "127.0.0.1:0",
            "--mgs",
            "3",
            "--duration",
            "1",
            "--rate",
            "300",
            "--json",
            "--quiet",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --quiet: the gateways are simulated here, so nobody needs the address.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("listening on"), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &json["ours"];
    let n = |k: &str| r[k].as_u64().unwrap();
    assert_eq!(n("sent"), n("answered") + n("failed") + n("timed_out"));
    assert_eq!(n("registered"), 3);
    assert!(n("answered") > 0);
    for k in ["p50_us", "p90_us", "p99_us", "p999_us", "max_us"] {
        assert!(r["latency"][k].is_u64(), "{k}");
    }
    // The generator's longest stall: within the run (one second of calls,
    // then at most the timeout for the last replies).
    let stall = r["generator_stall_ms"].as_f64().unwrap();
    assert!((0.0..4_000.0).contains(&stall), "{stall}");
    assert!(Path::new(&dir.path().join("load.json")).exists());
    for chart in [
        "latency.svg",
        "latency.png",
        "throughput.svg",
        "throughput.png",
    ] {
        assert!(dir.path().join(chart).exists(), "{chart}");
    }
}

#[test]
fn load_refuses_a_remote_target() {
    let out = megaco()
        .args(["load", "--mgc", "192.0.2.1:2944", "--duration", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a loopback address"));
}

#[test]
fn bounds_are_checked() {
    for args in [
        &["load", "--mgc", "127.0.0.1:9", "--rate", "0"][..],
        &[
            "load",
            "--mgc",
            "127.0.0.1:9",
            "--mgs",
            "20000",
            "--duration",
            "1",
        ],
        &["load", "--mgc", "127.0.0.1:9", "--duration", "7200"],
        &["bench", "fanout", "--max", "20000"],
        &["bench", "fanout", "--ns", "1,20000"],
        &["bench", "fanout", "--ns", "0,5"],
        &["bench", "fanout", "--shards", "500"],
    ] {
        let out = megaco().args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// What could only fail after a run is refused before it: no load starts
/// (its first note, `== ours`, never shows), and the error says why.
#[test]
fn refusals_come_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let under_file = file.join("out");
    let under_file = under_file.to_str().unwrap();
    let load = [
        "load",
        "--mgc",
        "127.0.0.1:9",
        "--mgs",
        "1",
        "--duration",
        "1",
    ];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--resends", "4294967295"], "--resends"),
        (vec!["--resends", "101"], "--resends"),
        (vec!["--sweep", "1:1:1", "--knee-p99=-1"], "--knee-p99"),
        (vec!["--sweep", "1:1:1", "--knee-p99", "1e30"], "--knee-p99"),
        (vec!["--sweep", "100:150:1"], "at most 50 steps"),
        (vec!["--out", under_file], "creating"),
        (vec!["--vs-otp", "--encoding", "per"], "OTP's side"),
        (
            vec!["--concurrency", "0"],
            "--concurrency must be 1 to 4096",
        ),
        (
            vec!["--concurrency", "5000"],
            "--concurrency must be 1 to 4096",
        ),
        (vec!["--mgc-pid", "4000000000"], "no such process"),
    ];
    for (extra, why) in cases {
        let out = megaco().args(load).args(&extra).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(why), "{extra:?}: {err}");
        assert!(!err.contains("== ours"), "{extra:?} ran first: {err}");
    }
    // A sweep is an hour of load at most, its steps together.
    let out = megaco()
        .args(["load", "--mgc", "127.0.0.1:9", "--mgs", "1"])
        .args(["--sweep", "1:10:1", "--duration", "3600"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("more than an hour"), "{err}");
    // The codec benchmarks' options are refused by fanout, not ignored.
    let fanout = ["bench", "fanout", "--ns", "1", "--passes", "1"];
    let out = megaco()
        .args(fanout)
        .args(["--step", "0"])
        .output()
        .unwrap();
    assert!(stderr_of(&out).contains("--step"), "{}", stderr_of(&out));
    for flag in [&["--quick"][..], &["--limit", "3"], &["--codec", "pretty"]] {
        let out = megaco().args(fanout).args(flag).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag:?}: {err}");
        assert!(err.contains("does not take it"), "{flag:?}: {err}");
        assert!(!err.contains("== registering"), "{flag:?} ran: {err}");
    }
    let out = megaco()
        .args(fanout)
        .args(["--out", under_file])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("creating") && !err.contains("== registering"),
        "{err}"
    );
}

/// A `megaco mgc` on a free UDP port of 127.0.0.1, with the extra
/// arguments; stopped when dropped.
struct Mgc(std::process::Child, std::net::SocketAddr);

impl Mgc {
    fn start(extra: &[&str]) -> Mgc {
        use std::io::BufRead;
        let mut child = megaco()
            .args(["mgc", "--listen", "127.0.0.1:0", "--udp", "--quiet"])
            .args(extra)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let line = lines.next().unwrap().unwrap();
        // `TIME listening on udp ADDR KIND`
        let addr = line
            .split_whitespace()
            .skip_while(|w| *w != "udp")
            .nth(1)
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .parse()
            .unwrap();
        Mgc(child, addr)
    }
}

impl Drop for Mgc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The `ours` report of a `megaco load --json` run that succeeded.
fn our_report(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["ours"].clone()
}

fn repo_file(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
        .display()
        .to_string()
}

#[test]
fn the_readme_call_scenario_runs_under_load_against_mgc() {
    let mgc = Mgc::start(&[]);
    let out = megaco()
        .args(["load", "--mgc", &mgc.1.to_string(), "--mgs", "3"])
        .args(["--duration", "1", "--json", "--quiet"])
        .args(["--scenario", &repo_file("examples/scenarios/mg-call.toml")])
        .output()
        .unwrap();
    let r = &our_report(&out);
    let n = |k: &str| r[k].as_u64().unwrap();
    assert_eq!(n("registered"), 3);
    assert_eq!(n("sent"), n("answered") + n("failed") + n("timed_out"));
    // Every step's check passed: the Add's context and rtp termination
    // were saved and used by the Modify, Notify and Subtract.
    assert_eq!((n("failed"), n("timed_out")), (0, 0), "{r:#}");
    assert!(r["failures"].as_array().unwrap().is_empty(), "{r:#}");
    // Four requests a call; calls under way at the end are not counted.
    assert!(n("calls") > 0);
    assert!(n("answered") >= 4 * n("calls"), "{r:#}");
}

/// The built-in `call` scenario with several calls in flight per gateway:
/// each call Adds its own termination, so none is refused as already in a
/// context (433) by `megaco mgc`, which keeps one gateway's terminations.
#[test]
fn concurrent_built_in_calls_of_one_gateway_add_different_terminations() {
    let mgc = Mgc::start(&[]);
    let out = megaco()
        .args(["load", "--mgc", &mgc.1.to_string(), "--mgs", "2"])
        .args(["--concurrency", "8", "--scenario", "call"])
        .args(["--duration", "1", "--json", "--quiet"])
        .output()
        .unwrap();
    let r = &our_report(&out);
    let n = |k: &str| r[k].as_u64().unwrap();
    assert_eq!(n("registered"), 2);
    assert_eq!(n("sent"), n("answered") + n("failed") + n("timed_out"));
    assert_eq!((n("failed"), n("timed_out")), (0, 0), "{r:#}");
    assert!(n("calls") > 0, "{r:#}");
}

#[test]
fn a_failing_scenario_step_is_counted_with_its_reason() {
    let mgc = Mgc::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    // The controller answers a Modify in a context it never made
    // with error 411, and this step expects none.
    std::fs::write(
        &file,
        "[[step]]\nname = \"stray\"\nsend = \"Context = 4711 { Subtract = tdm/1 }\"\n",
    )
    .unwrap();
    let out = megaco()
        .args([
            "load",
            "--mgc",
            &mgc.1.to_string(),
            "--mgs",
            "2",
            "--rate",
            "20",
        ])
        .args(["--duration", "1", "--json", "--quiet", "--scenario"])
        .arg(&file)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &json["ours"];
    let n = |k: &str| r[k].as_u64().unwrap();
    assert!(n("failed") > 0, "{r:#}");
    assert_eq!(n("answered"), 0, "{r:#}");
    assert_eq!(n("sent"), n("answered") + n("failed") + n("timed_out"));
    let why = r["failures"][0][0].as_str().unwrap();
    assert!(why.contains("stray") && why.contains("411"), "{why}");
}

#[test]
fn encodings_are_named_as_in_the_codec_registry() {
    // The registry's names and slugs are read; the native format is no
    // wire encoding; an unknown name lists the known ones.
    let mgc = Mgc::start(&[]);
    for (encoding, ok) in [("ber-otp", true), ("ber [otp]", true), ("compact", true)] {
        let out = megaco()
            .args([
                "load",
                "--mgc",
                &mgc.1.to_string(),
                "--mgs",
                "1",
                "--rate",
                "20",
            ])
            .args([
                "--scenario",
                "audit",
                "--duration",
                "0.3",
                "--json",
                "--quiet",
            ])
            .args(["--encoding", encoding])
            .output()
            .unwrap();
        assert_eq!(out.status.success(), ok, "{encoding}");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(json["ours"]["answered"].as_u64().unwrap() > 0, "{encoding}");
    }
    let native = megaco()
        .args(["load", "--mgc", "127.0.0.1:9", "--encoding", "native"])
        .output()
        .unwrap();
    assert_eq!(native.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&native.stderr).contains("ber-otp, per, not native"));
    let bogus = megaco()
        .args(["bench", "fanout", "--encoding", "bogus"])
        .output()
        .unwrap();
    assert_eq!(bogus.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bogus.stderr).contains("ber-otp"));
}

#[test]
fn the_controller_role_drives_gateways_started_by_megaco_mg_stay() {
    use std::io::BufRead;
    use std::process::Stdio;
    let mut load = megaco()
        .args([
            "load",
            "--role",
            "mgc",
            "--mgc",
            "127.0.0.1:0",
            "--external",
        ])
        .args(["--mgs", "3", "--scenario", "call", "--concurrency", "1"])
        .args(["--duration", "1", "--json", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut errors = std::io::BufReader::new(load.stderr.take().unwrap()).lines();
    // `listening on udp ADDR`
    let line = errors.next().unwrap().unwrap();
    let addr = line.rsplit(' ').next().unwrap().to_string();
    let drain = std::thread::spawn(move || errors.map_while(Result::ok).collect::<Vec<_>>());
    let mut mgs: Vec<_> = (0..3)
        .map(|_| {
            megaco()
                .args(["mg", "--mgc", &addr, "--stay", "--quiet"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let out = load.wait_with_output().unwrap();
    for mg in &mut mgs {
        let _ = mg.kill();
        let _ = mg.wait();
    }
    let stderr = drain.join().unwrap().join("\n");
    assert!(out.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &json["ours"];
    let n = |k: &str| r[k].as_u64().unwrap();
    assert_eq!(n("registered"), 3, "{r:#}");
    assert_eq!(n("sent"), n("answered") + n("failed") + n("timed_out"));
    // Add, Modify, Notify and Subtract, each answered by a gateway.
    assert_eq!((n("failed"), n("timed_out")), (0, 0), "{r:#}");
    assert!(n("calls") >= 3, "{r:#}");
}
