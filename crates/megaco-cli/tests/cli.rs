//! The `megaco` binary, run as a user runs it.
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

fn megaco(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_megaco"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run megaco");
    {
        let mut pipe = child.stdin.take().unwrap();
        if let Some(input) = stdin {
            pipe.write_all(input).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

/// `megaco ARGS`'s standard output, after checking that it succeeded
/// (`what` names the case in a failure, with megaco's standard error).
fn output_of(args: &[&str], stdin: Option<&[u8]>, what: &str) -> Vec<u8> {
    let out = megaco(args, stdin);
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn vector(codec: &str, name: &str) -> Vec<u8> {
    std::fs::read(corpus().join(format!("vectors/{codec}/{name}.txt"))).unwrap()
}

#[test]
fn convert_pretty_to_compact_matches_otp_from_stdin_to_stdout() {
    for name in ["msg01a", "msg10", "msg72b01", "msg81a01"] {
        let out = megaco(
            &["convert", "--exact", "--to", "compact"],
            Some(&vector("pretty", name)),
        );
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, vector("compact", name), "{name}");
    }
}

#[test]
fn convert_compact_file_to_pretty_file_matches_otp() {
    let dir = std::env::temp_dir().join(format!("megaco-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_file = dir.join("msg12.txt");
    let input = corpus().join("vectors/compact/msg12.txt");
    let out = megaco(
        &[
            "convert",
            "--exact",
            "--from",
            "compact",
            "--to",
            "pretty",
            "-o",
            out_file.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read(&out_file).unwrap(), vector("pretty", "msg12"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn convert_to_json_prints_the_model() {
    let out = megaco(
        &["convert", "--to", "json", "-"],
        Some(&vector("pretty", "msg03")),
    );
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["megaco_json"], 1);
    let v = &v["message"];
    assert_eq!(v["mess"]["version"], 1);
    assert_eq!(v["mess"]["mid"], "[124.124.124.222]:55555");
}

#[test]
fn check_passes_the_whole_bundled_corpus() {
    let term = corpus().join("time_test.msgs");
    let compact = corpus().join("vectors/compact/msg01a.txt");
    let out = megaco(
        &["check", term.to_str().unwrap(), compact.to_str().unwrap()],
        None,
    );
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn check_reports_file_line_column_and_fails() {
    let dir = std::env::temp_dir().join(format!("megaco-check-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.txt");
    let bad = dir.join("bad.txt");
    std::fs::write(&good, vector("pretty", "msg03")).unwrap();
    // msg03 with its last closing brace removed: the error is at the end.
    let mut broken = vector("pretty", "msg03");
    let last = broken.iter().rposition(|&b| b == b'}').unwrap();
    broken.truncate(last);
    std::fs::write(&bad, &broken).unwrap();
    let out = megaco(
        &["check", good.to_str().unwrap(), bad.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    // The error line, then the offending line and a caret under the column.
    assert_eq!(lines.len(), 3, "{stdout}");
    let prefix = format!("{}:", bad.display());
    assert!(lines[0].starts_with(&prefix), "{stdout}");
    // file:line:col: message, the line being the last of the input.
    let rest = &lines[0][prefix.len()..];
    let mut parts = rest.splitn(3, ':');
    let line: usize = parts.next().unwrap().parse().unwrap();
    let col: usize = parts.next().unwrap().parse().unwrap();
    assert!(!parts.next().unwrap().trim().is_empty());
    assert_eq!(line, broken.split(|&b| b == b'\n').count());
    let text_line = broken.split(|&b| b == b'\n').nth(line - 1).unwrap();
    let shown: String = text_line
        .iter()
        .map(|&b| if b == b'\t' { ' ' } else { char::from(b) })
        .collect();
    assert_eq!(lines[1], format!("    | {shown}"), "{stdout}");
    assert_eq!(
        lines[2],
        format!("    | {}^", " ".repeat(col - 1)),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unreadable_input_is_an_error_not_a_panic() {
    let out = megaco(&["convert", "--to", "pretty", "/nonexistent/file"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/file"));
}

fn binary_vector(codec: &str, name: &str) -> Vec<u8> {
    std::fs::read(corpus().join(format!("vectors/{codec}/{name}.{codec}"))).unwrap()
}

#[test]
fn convert_text_to_otp_ber_and_per_matches_otp() {
    for name in ["msg01a", "msg55", "msg72b01", "msg81a01"] {
        let ber = megaco(
            &["convert", "--to", "ber", "--dialect", "otp"],
            Some(&vector("pretty", name)),
        );
        assert!(
            ber.status.success(),
            "{}",
            String::from_utf8_lossy(&ber.stderr)
        );
        assert_eq!(ber.stdout, binary_vector("ber", name), "{name} ber");
        let per = megaco(&["convert", "--to", "per"], Some(&vector("compact", name)));
        assert!(
            per.status.success(),
            "{}",
            String::from_utf8_lossy(&per.stderr)
        );
        assert_eq!(per.stdout, binary_vector("per", name), "{name} per");
    }
}

#[test]
fn convert_detects_ber_and_per_input() {
    for (codec, name) in [("ber", "msg12"), ("per", "msg12"), ("per", "msg80a01")] {
        let out = megaco(
            &["convert", "--dialect", "otp", "--to", "compact"],
            Some(&binary_vector(codec, name)),
        );
        assert!(
            out.status.success(),
            "{codec} {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = megaco(
            &["convert", "--to", "compact"],
            Some(&vector("pretty", name)),
        );
        assert_eq!(out.stdout, text.stdout, "{codec} {name}");
    }
}

#[test]
fn check_accepts_every_encoding_and_reports_binary_offsets() {
    let ber_dir = corpus().join("vectors/ber");
    let per_dir = corpus().join("vectors/per");
    let mut files: Vec<String> = Vec::new();
    for dir in [&ber_dir, &per_dir] {
        for e in std::fs::read_dir(dir).unwrap() {
            files.push(e.unwrap().path().display().to_string());
        }
    }
    let args: Vec<&str> = std::iter::once("check")
        .chain(["--dialect", "otp"])
        .chain(files.iter().map(String::as_str))
        .collect();
    let out = megaco(&args, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let dir = std::env::temp_dir().join(format!("megaco-check-bin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("cut.ber");
    let whole = binary_vector("ber", "msg10");
    std::fs::write(&bad, &whole[..whole.len() / 2]).unwrap();
    let out = megaco(&["check", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rest = stdout
        .trim_end()
        .strip_prefix(&format!("{}:", bad.display()))
        .unwrap_or_else(|| panic!("{stdout}"));
    let mut lines = rest.lines();
    let (offset, message) = lines.next().unwrap().split_once(':').unwrap();
    let offset: usize = offset.parse().unwrap();
    assert!(offset <= whole.len() / 2, "{stdout}");
    assert!(message.contains("BER"), "{stdout}");
    // A hex dump of up to 16 bytes around the offset, a caret under it.
    let cut = &whole[..whole.len() / 2];
    let start = offset.saturating_sub(8).min(cut.len().saturating_sub(16));
    let dump: Vec<String> = cut[start..(start + 16).min(cut.len())]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        lines.next().unwrap(),
        format!("    | {start:06x}: {}", dump.join(" ")),
        "{stdout}"
    );
    let caret = lines.next().unwrap();
    let pad = 6 + 8 + 3 * (offset - start);
    assert_eq!(
        &caret[..pad],
        format!("    |{}", " ".repeat(pad - 5)),
        "{stdout}"
    );
    assert!(caret[pad..].starts_with("^^"), "{stdout}");
    assert_eq!(lines.next(), None, "{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn transform_writes_one_directory_per_encoding_matching_otp() {
    let dir = std::env::temp_dir().join(format!("megaco-transform-{}", std::process::id()));
    let term = corpus().join("time_test.msgs");
    let out = megaco(
        &[
            "transform",
            term.to_str().unwrap(),
            dir.to_str().unwrap(),
            "--codec",
            "compact",
            "--codec",
            "per",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (sub, codec, ext) in [("compact", "compact", "txt"), ("per", "per", "per")] {
        let files = std::fs::read_dir(dir.join(sub)).unwrap().count();
        assert_eq!(files, 149, "{sub}");
        // OTP's vectors are the byte target (msg79a01 aside: OTP's text
        // parser reverses its audit tokens).
        for name in ["msg01a", "msg30d", "msg81b03"] {
            let ours = std::fs::read(dir.join(sub).join(format!("{name}.{ext}"))).unwrap();
            let otp =
                std::fs::read(corpus().join(format!("vectors/{codec}/{name}.{ext}"))).unwrap();
            assert_eq!(ours, otp, "{sub}/{name}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bench_meas_writes_tables_and_charts() {
    let dir = std::env::temp_dir().join(format!("megaco-bench-{}", std::process::id()));
    let out = megaco(
        &[
            "bench",
            "--no-progress",
            "--limit",
            "2",
            "--codec",
            "ber",
            "--codec",
            "native",
            "meas",
            "--factor",
            "0.001",
            "--out",
            dir.to_str().unwrap(),
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("Codec and config"), "{stdout}");
    for f in ["meas.tsv", "meas.json", "summary.md", "floor.txt"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    // The distance table: one row per codec against its floor.
    let floor = std::fs::read_to_string(dir.join("floor.txt")).unwrap();
    assert!(
        floor.contains("TLV walk") && floor.contains("byte scan"),
        "{floor}"
    );
    let tsv = std::fs::read_to_string(dir.join("meas.tsv")).unwrap();
    // A header and one row per message and codec.
    assert_eq!(tsv.lines().count(), 1 + 2 * 2, "{tsv}");
    let charts = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            let p = e.as_ref().unwrap().path();
            matches!(p.extension().and_then(|x| x.to_str()), Some("png" | "svg"))
        })
        .count();
    assert_eq!(charts, 8, "four charts, PNG and SVG");
    std::fs::remove_dir_all(&dir).ok();
}

/// Text output ends with a newline (as text tools' output does), to a
/// pipe and to a file alike; `--exact` writes the encoder's bytes.
#[test]
fn text_output_ends_with_a_newline_unless_exact() {
    let dir = tempfile::tempdir().unwrap();
    for to in ["pretty", "compact", "json"] {
        let out = megaco(&["convert", "--to", to], Some(&vector("pretty", "msg03")));
        assert!(out.status.success());
        assert!(out.stdout.ends_with(b"\n"), "{to}");
        assert!(!out.stdout.ends_with(b"\n\n"), "{to}");
        let file = dir.path().join(format!("{to}.out"));
        let out = megaco(
            &["convert", "--to", to, "-o", file.to_str().unwrap(), "-"],
            Some(&vector("pretty", "msg03")),
        );
        assert!(out.status.success());
        assert!(std::fs::read(&file).unwrap().ends_with(b"}\n"), "{to}");
    }
    let exact = megaco(
        &["convert", "--exact", "--to", "compact"],
        Some(&vector("pretty", "msg03")),
    );
    assert_eq!(exact.stdout, vector("compact", "msg03"));
    // The newline is white space after the message: it reads back.
    let with_newline = megaco(
        &["convert", "--to", "compact"],
        Some(&vector("pretty", "msg03")),
    );
    let back = megaco(
        &["convert", "--exact", "--to", "compact"],
        Some(&with_newline.stdout),
    );
    assert_eq!(back.stdout, vector("compact", "msg03"));
}

/// `--to native[-compact][-compressed]` writes the native format, and
/// `--from native` (or auto) reads it back, whichever configuration its
/// header names.
#[test]
fn convert_writes_and_reads_the_native_format() {
    let pretty = vector("pretty", "msg72b01");
    for to in [
        "native",
        "native-compact",
        "native-compressed",
        "native-compact-compressed",
    ] {
        let native = megaco(&["convert", "--to", to], Some(&pretty));
        assert!(native.status.success(), "{to}");
        assert_eq!(native.stdout[0] & 0xF0, 0xA0, "{to}: the header byte");
        for from in ["auto", "native", to] {
            let back = output_of(
                &["convert", "--exact", "--from", from, "--to", "pretty"],
                Some(&native.stdout),
                &format!("{to} --from {from}"),
            );
            assert_eq!(back, pretty, "{to} --from {from}");
        }
    }
}

/// `check` recognises native files by their header and names their
/// configuration, rather than reading them as PER.
#[test]
fn check_reads_native_files_as_native() {
    let dir = tempfile::tempdir().unwrap();
    let out = megaco(
        &[
            "transform",
            corpus().join("time_test.msgs").to_str().unwrap(),
            dir.path().to_str().unwrap(),
            "--codec",
            "native-compact",
        ],
        None,
    );
    assert!(out.status.success());
    let files: Vec<String> = std::fs::read_dir(dir.path().join("native-compact"))
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    assert_eq!(files.len(), 149);
    let mut args = vec!["check", "-v"];
    args.extend(files.iter().map(String::as_str));
    let out = megaco(&args, None);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout.matches(": ok (native [compact])").count(),
        149,
        "{stdout}"
    );
}

/// What `convert --to json` writes reads back without `--from`: auto
/// recognises JSON by its opening `{"` (a corpus term file opens with an
/// atom), from a file and from standard input; `check` reads it too.
#[test]
fn json_output_reads_back_without_from() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["msg03", "msg72b01"] {
        let pretty = vector("pretty", name);
        let json = megaco(&["convert", "--to", "json"], Some(&pretty));
        assert!(json.status.success(), "{name}");
        assert!(json.stdout.starts_with(b"{\n  \""), "{name}");
        let file = dir.path().join(format!("{name}.json"));
        std::fs::write(&file, &json.stdout).unwrap();
        let file = file.to_str().unwrap();

        let from_file = output_of(&["convert", "--exact", "--to", "pretty", file], None, name);
        assert_eq!(from_file, pretty, "{name} from a file");

        let from_stdin = output_of(
            &["convert", "--exact", "--to", "pretty"],
            Some(&json.stdout),
            name,
        );
        assert_eq!(from_stdin, pretty, "{name} from standard input");

        let check = megaco(&["check", "-v", file], None);
        assert!(check.status.success(), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&check.stdout),
            format!("{file}: ok (json)\n")
        );
    }
    // JSON that is no message is a JSON error, not "a corpus term file".
    let out = megaco(
        &["convert", "--to", "compact"],
        Some(b" {\"megaco_json\": 1}"),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("megaco: <stdin>:1:") && err.contains("JSON: missing field `message`"),
        "{err}"
    );
    // A value of the wrong type deep in a message: the error says where.
    let doc = br#"{"megaco_json": 1, "message": {"auth_header": null, "mess": {"version": 1,
        "mid": "<mg>", "body": {"transactions": [{"pending": {"transaction_id": "x"}}]}}}}"#;
    let out = megaco(&["convert", "--to", "compact"], Some(doc));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("megaco: <stdin>:2:")
            && err.contains(
                "JSON: at message.mess.body.transactions[0].pending.transaction_id: invalid type"
            ),
        "{err}"
    );
}

/// The help lists every name `--from` takes, json included.
#[test]
fn convert_help_lists_json_among_from_encodings() {
    let out = megaco(&["convert", "--help"], None);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let from = help
        .split("--from <ENCODING>")
        .nth(1)
        .and_then(|rest| rest.split("--to <ENCODING>").next())
        .unwrap();
    for name in ["auto", "text", "json", "pretty", "ber-otp", "native"] {
        assert!(from.contains(name), "{name} missing from:\n{from}");
    }
}

/// A file `check` cannot read is one more failure: it is named, the files
/// after it are still checked, and the exit status is 1 as for any
/// failure.
#[test]
fn check_goes_on_after_an_unreadable_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nosuch.txt");
    let good = dir.path().join("msg03.txt");
    std::fs::write(&good, vector("pretty", "msg03")).unwrap();
    let (missing, good) = (missing.to_str().unwrap(), good.to_str().unwrap());
    let out = megaco(&["check", "-v", missing, good], None);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with(&format!("{missing}: cannot read: ")),
        "{stdout}"
    );
    assert_eq!(lines[1], format!("{good}: ok (pretty)"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 of 2 messages decoded"));
}
