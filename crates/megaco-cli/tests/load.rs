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
    assert_eq!(width, 15);
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
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &json["ours"];
    let n = |k: &str| r[k].as_u64().unwrap();
    assert_eq!(n("sent"), n("answered") + n("failed") + n("timed_out"));
    assert_eq!(n("registered"), 3);
    assert!(n("answered") > 0);
    for k in ["p50_us", "p90_us", "p99_us", "p999_us", "max_us"] {
        assert!(r["latency"][k].is_u64(), "{k}");
    }
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
