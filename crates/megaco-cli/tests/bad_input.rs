//! What a new user gives `megaco` by mistake, and the clear error each
//! gets: a path that says which file, or "not a Megaco message (looks
//! like …)", never a decoder's guess presented as the answer.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

fn megaco(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_megaco"))
        .args(args)
        .output()
        .expect("run megaco")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

/// `check` (exit 1, the error on standard output) and `convert` (exit 2,
/// on standard error) both say `expected` about `file`, after its name.
fn both_say(file: &str, expected: &str) {
    let check = megaco(&["check", file]);
    assert_eq!(check.status.code(), Some(1), "check {file}");
    let out = text(&check.stdout);
    assert!(
        out.starts_with(&format!("{file}:")) && out.contains(expected),
        "check {file}:\n{out}"
    );
    let convert = megaco(&["convert", "--to", "pretty", file]);
    assert_eq!(convert.status.code(), Some(2), "convert {file}");
    let err = text(&convert.stderr);
    assert!(
        err.starts_with(&format!("megaco: {file}:")) && err.contains(expected),
        "convert {file}:\n{err}"
    );
}

/// Bytes from a fixed generator (xorshift), the same in every run.
fn noise(len: usize, mut state: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

#[test]
fn transform_with_one_file_argument_names_it_and_says_what_to_do() {
    let term = corpus().join("time_test.msgs");
    let term = term.to_str().unwrap();
    let out = megaco(&["transform", term]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains(&format!("{term}: is a file")), "{err}");
    assert!(
        err.contains(&format!("megaco transform {term} OUTDIR")),
        "{err}"
    );
}

#[test]
fn random_bytes_are_not_a_megaco_message() {
    let dir = tempfile::tempdir().unwrap();
    // A first byte that no encoding starts with.
    let mut bytes = noise(300, 0x9E37_79B9_7F4A_7C15);
    bytes[0] = 0xEE;
    let file = write(dir.path(), "random.bin", &bytes);
    both_say(&file, "not a Megaco message (it starts ee ");
    // Bytes that start the way PER does (no other signature to go by):
    // said to be a guess, with the PER decoder's error.
    let mut per_like = noise(300, 7);
    per_like[..2].copy_from_slice(&[0x00, 0x80]);
    let file = write(dir.path(), "per-like.bin", &per_like);
    both_say(
        &file,
        "not a Megaco message? It has no text or BER signature",
    );
}

#[test]
fn a_byte_order_mark_before_valid_text_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(std::fs::read(corpus().join("vectors/pretty/msg03.txt")).unwrap());
    let file = write(dir.path(), "bom.txt", &bytes);
    both_say(
        &file,
        "not a Megaco message (it starts with a UTF-8 byte-order mark, EF BB BF",
    );
    both_say(
        &file,
        "the rest is a valid message: remove the first 3 bytes",
    );
}

#[test]
fn a_pcap_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    // A pcap global header (little-endian, Ethernet) and one empty record.
    let mut pcap = vec![0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0];
    pcap.extend([0; 8]);
    pcap.extend(65535u32.to_le_bytes());
    pcap.extend(1u32.to_le_bytes());
    pcap.extend([0; 16]);
    let file = write(dir.path(), "capture.pcap", &pcap);
    both_say(&file, "not a Megaco message (a pcap capture file)");
    let pcapng = write(
        dir.path(),
        "capture.pcapng",
        b"\x0A\x0D\x0D\x0A\x1c\x00\x00\x00",
    );
    both_say(&pcapng, "not a Megaco message (a pcapng capture file)");
}

#[test]
fn an_empty_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "empty.txt", b"\n");
    both_say(&file, "empty: not a Megaco message");
}

#[test]
fn native_files_read_as_another_encoding_say_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let native = dir.path().join("msg.bin");
    let out = megaco(&[
        "convert",
        "--to",
        "native-compressed",
        "-o",
        native.to_str().unwrap(),
        corpus().join("vectors/pretty/msg10.txt").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let native = native.to_str().unwrap();
    for from in ["per", "ber", "compact"] {
        let out = megaco(&["convert", "--from", from, "--to", "pretty", native]);
        assert_eq!(out.status.code(), Some(2));
        let err = text(&out.stderr);
        assert!(err.starts_with(&format!("megaco: {native}:")), "{err}");
        assert!(
            err.contains("the input looks like native [compressed]: try --from native-compressed"),
            "--from {from}: {err}"
        );
    }
    // A damaged native file: the native decoder's error, with its offset.
    let mut cut = std::fs::read(native).unwrap();
    cut.truncate(cut.len() / 2);
    let file = write(dir.path(), "cut.bin", &cut);
    let out = megaco(&["check", &file]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(&format!("{file}:")) && stdout.contains("native"),
        "{stdout}"
    );
}

#[test]
fn a_corpus_file_given_to_send_points_to_transform() {
    let term = corpus().join("time_test.msgs");
    let term = term.to_str().unwrap();
    let out = megaco(&["send", "--to", "127.0.0.1:9", "--timeout", "1", term]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("a corpus term file"), "{err}");
    assert!(
        err.contains(&format!("megaco transform {term} OUTDIR")),
        "{err}"
    );
}

#[test]
fn a_corpus_file_given_to_convert_points_to_check_and_transform() {
    let term = corpus().join("time_test.msgs");
    let term = term.to_str().unwrap();
    let out = megaco(&["convert", "--to", "compact", term]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("a corpus term file") && err.contains(&format!("megaco check {term}")),
        "{err}"
    );
}

#[test]
fn unknown_encoding_names_list_the_known_ones() {
    let out = megaco(&["convert", "--to", "xml", "-"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("unknown encoding \"xml\"") && err.contains("native-compact-compressed"),
        "{err}"
    );
}

/// Runs `megaco ARGS` with standard output on a terminal (`script` gives
/// it a pseudo-terminal); returns what the terminal showed and the exit
/// status.
fn on_terminal(args: &[&str]) -> Option<(Vec<u8>, Option<i32>)> {
    let mut line = shell_quote(env!("CARGO_BIN_EXE_megaco"));
    for a in args {
        line.push(' ');
        line.push_str(&shell_quote(a));
    }
    let out = match Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "`script` (util-linux) missing under CI: {e}"
            );
            eprintln!("`script` not found; skipped");
            return None;
        }
    };
    Some((out.stdout, out.status.code()))
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn binary_output_is_not_written_to_a_terminal() {
    let msg = corpus().join("vectors/pretty/msg03.txt");
    let msg = msg.to_str().unwrap();
    let Some((shown, code)) = on_terminal(&["convert", "--to", "ber", msg]) else {
        return;
    };
    let shown = text(&shown);
    assert_eq!(code, Some(2), "{shown}");
    assert!(
        shown.contains("not writing binary ber to a terminal: use -o FILE"),
        "{shown}"
    );
    // --force writes it; text goes to a terminal as it is, with its newline.
    let (forced, code) = on_terminal(&["convert", "--to", "ber", "--force", msg]).unwrap();
    assert_eq!(code, Some(0));
    assert_eq!(forced.first(), Some(&0x30), "BER bytes");
    let (compact, code) = on_terminal(&["convert", "--to", "compact", msg]).unwrap();
    assert_eq!(code, Some(0));
    assert!(compact.starts_with(b"!/1 ") && compact.ends_with(b"\r\n"));
}

/// `--to ber-otp --dialect standard` names two dialects: refused, with the
/// way to each, rather than standard BER written under the name ber-otp.
#[test]
fn levels_without_a_mapping_are_refused() {
    let msg = corpus().join("vectors/pretty/msg03.txt");
    let msg = msg.to_str().unwrap();
    for (args, says) in [
        (
            vec!["--to", "per-native", "--levels", "8,8,8"],
            "--levels contradicts per-native",
        ),
        (
            vec!["--to", "ber-native", "--levels", "8,8,8"],
            "--levels contradicts ber-native",
        ),
        (
            vec!["--to", "per", "--levels", "8,8,8", "--native"],
            "--levels and --native contradict each other",
        ),
    ] {
        let mut all = vec!["convert"];
        all.extend(&args);
        all.push(msg);
        let out = megaco(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // Levels with a mapped encoding, and --native alone (from BER, whose
    // ids then read in native form), are fine.
    let ber = corpus().join("vectors/ber/msg03.ber");
    let ber = ber.to_str().unwrap();
    for args in [
        vec!["--to", "per", "--levels", "8,8,8", msg],
        vec!["--to", "ber", "--levels", "8,8,8", msg],
        vec!["--from", "ber", "--to", "per", "--native", ber],
        vec!["--from", "ber", "--to", "per-native", "--native", ber],
    ] {
        let mut all = vec!["convert", "-o", "/dev/null"];
        all.extend(&args);
        let out = megaco(&all);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
}

#[test]
fn a_dialect_that_contradicts_the_encoding_name_is_refused() {
    let msg = corpus().join("vectors/pretty/msg03.txt");
    let msg = msg.to_str().unwrap();
    for name in ["ber-otp", "ber-native"] {
        let out = megaco(&["convert", "--to", name, "--dialect", "standard", msg]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty(), "{name}");
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!("--dialect standard contradicts {name}"))
                && err.contains("`ber`"),
            "{err}"
        );
    }
    // What the name says already, or `ber` with either dialect, is fine.
    for args in [
        ["--to", "ber-otp", "--dialect", "otp"],
        ["--to", "ber", "--dialect", "otp"],
        ["--to", "ber", "--dialect", "standard"],
    ] {
        let mut all = vec!["convert", "-o", "/dev/null"];
        all.extend(args);
        all.push(msg);
        let out = megaco(&all);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
}

/// Runs `megaco args` with its standard output a pipe whose reader has
/// already gone (as after `| head -1`): its exit status and standard
/// error.
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_megaco"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run megaco");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for megaco");
    (out.status.code(), text(&out.stderr))
}

#[test]
fn a_reader_that_stops_reading_ends_check_and_convert_quietly() {
    let corpus = corpus().join("time_test.msgs");
    let corpus = corpus.to_str().unwrap();
    let (code, err) = with_closed_stdout(&["check", "-v", corpus]);
    assert_eq!(code, Some(0), "check -v into a closed pipe:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    let msg = corpus_message("pretty");
    let (code, err) = with_closed_stdout(&["convert", "--to", "pretty", &msg]);
    assert_eq!(
        (code, err.as_str()),
        (Some(0), ""),
        "convert into a closed pipe"
    );
}

/// The first message of the bundled vectors in `codec`.
fn corpus_message(codec: &str) -> String {
    let dir = corpus().join("vectors").join(codec);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files[0].display().to_string()
}

#[test]
fn an_endless_input_is_refused_after_a_bound() {
    for args in [
        &["check", "/dev/zero"][..],
        &["convert", "--to", "compact", "/dev/zero"][..],
    ] {
        let out = megaco(args);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(
            matches!(out.status.code(), Some(1 | 2)),
            "{args:?}: {:?}",
            out.status
        );
        assert!(
            format!("{stdout}{stderr}").contains("/dev/zero holds more than 64 MiB"),
            "{args:?}:\n{stdout}{stderr}"
        );
    }
}

#[test]
fn benchmark_durations_that_are_not_usable_numbers_are_refused() {
    for args in [
        &["bench", "meas", "--factor", "nan"][..],
        &["bench", "meas", "--factor", "inf"][..],
        &["bench", "meas", "--factor=-1"][..],
        &["bench", "meas", "--factor", "1e30"][..],
        &["bench", "mstone", "--time", "nan"][..],
        &["bench", "mstone", "--time", "0"][..],
        &["bench", "mstone", "--factor", "0"][..],
    ] {
        let out = megaco(&[args, &["--codec", "compact", "--limit", "1"]].concat());
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}:\n{err}");
        assert!(err.contains("invalid value"), "{args:?}:\n{err}");
        assert!(out.stdout.is_empty(), "{args:?} measured anyway");
    }
}

#[test]
fn a_meas_output_directory_that_cannot_be_made_is_refused_before_the_run() {
    let out = megaco(&[
        "bench",
        "meas",
        "--quick",
        "--no-otp",
        "--codec",
        "compact",
        "--limit",
        "1",
        "--out",
        "/dev/null/x",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("creating /dev/null/x"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "measured before refusing:\n{}",
        text(&out.stdout)
    );
}

#[test]
fn transform_fails_when_messages_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let corpus_dir = dir.path().join("in");
    std::fs::create_dir(&corpus_dir).unwrap();
    let out_dir = dir.path().join("out");
    let (corpus_s, out_s) = (corpus_dir.to_str().unwrap(), out_dir.to_str().unwrap());
    // No message at all: an error.
    let out = megaco(&["transform", corpus_s, out_s]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no message of"));
    // One good message and one that does not decode: written, named, 1.
    write(&corpus_dir, "bad.txt", b"garbage");
    std::fs::copy(corpus_message("pretty"), corpus_dir.join("good.txt")).unwrap();
    let out = megaco(&["transform", "--codec", "compact", corpus_s, out_s]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("bad: text at line 1, column 1"), "{err}");
    assert_eq!(
        std::fs::read_dir(out_dir.join("compact")).unwrap().count(),
        1
    );
}

#[test]
fn an_mg_notify_that_cannot_be_sent_is_refused_before_registering() {
    // Nothing listens at the controller's address: registering would
    // fail first if the arguments were checked only when used.
    for (termination, event, why) in [
        ("bad{x", "al/of", "cannot appear in a name"),
        ("", "al/of", "empty"),
        ("a/b", "}}}", "is not package/item"),
    ] {
        let out = megaco(&[
            "mg",
            "--mgc",
            "127.0.0.1:9",
            "--timeout",
            "1",
            "--notify",
            termination,
            "--event",
            event,
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{termination:?}: {err}");
        assert!(
            err.contains(&format!("--notify {termination:?} --event {event:?}"))
                && err.contains(why),
            "{termination:?}: {err}"
        );
    }
}

#[test]
fn a_full_standard_output_is_named() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_megaco"))
        .args(["convert", "--to", "compact", &corpus_message("pretty")])
        .stdout(full)
        .output()
        .expect("run megaco");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("writing standard output: No space left"),
        "{err}"
    );
}

#[test]
fn peer_options_that_cannot_work_are_refused_up_front() {
    let msg = corpus_message("pretty");
    for (args, says) in [
        (
            &["mgc", "--min-trans-id", "10", "--max-trans-id", "5"][..],
            "--min-trans-id 10 is above --max-trans-id 5",
        ),
        (&["mgc", "--request-timer-factor", "0"], "invalid value '0'"),
        (
            &["send", "--to", "127.0.0.1:0", &msg],
            "port 0 is no peer's port",
        ),
        (&["mg", "--mgc", "127.0.0.1:0"], "port 0 is no peer's port"),
        (&["pcap", "--port", "0", &msg], "invalid value '0'"),
    ] {
        let out = megaco(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
