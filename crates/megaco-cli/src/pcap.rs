//! `megaco pcap`: the H.248 messages of packet captures.
//!
//! By default one line per message on standard output:
//!
//! ```text
//!  packet        time  source -> destination  transport encoding  message
//!      12    0.004512  10.0.0.1:2944 -> 10.0.0.2:2944 udp text !/1 [10.0.0.1]:2944 T=9{…}
//! ```
//!
//! (time in seconds from the file's first packet, the message in compact
//! text with its line breaks shown as spaces). A message that does not
//! decode shows the decoder's error and where; a packet that cannot be
//! read (truncated, cut by the snapshot length, a TCP stream with a hole)
//! shows a `problem:` line. `--json` prints JSON Lines instead, one object
//! per message or problem: `packet`, `time` (seconds since the epoch),
//! `src`, `dst`, `transport`, `encoding`, then `megaco_json` and `message`
//! (the envelope of `megaco::json`, so a line reads back with `convert
//! --from json`) or `error` (`message`, `offset`, and `line`/`column` for
//! text); a problem has `problem` instead. `--stats` prints the transaction summary
//! instead of the messages; `--flow` writes the ladder diagram.
//!
//! Exit status: 0 when every message decoded and nothing was wrong, 1
//! when a message did not decode, a packet had a problem or one of the
//! files cannot be read (it is reported and the others are read), 2 when
//! none of the files can be read.

use std::fs::{self, File};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use megaco::ber::BerConfig;
use megaco::codec::Encoding;
use megaco::per::PerConfig;
use megaco_pcap::flow::Ladder;
use megaco_pcap::stats::{error_name, Report, Stats};
use megaco_pcap::{Capture, Event, Options, Problem, Record, Timestamp};
use serde_json::{json, Value};

use crate::codec::BinaryOptions;

mod generate;

/// Arguments of `megaco pcap`.
#[derive(Debug, Args)]
pub struct PcapArgs {
    /// Capture files, pcap or pcapng (`-` for standard input).
    #[arg(required_unless_present = "generate")]
    pub files: Vec<PathBuf>,
    /// Instead of reading: write a capture of generated traffic to OUT
    /// (`-` for standard output; 16 gateways sending the corpus requests
    /// to a controller that answers each 1 to 5 ms later), for trying and
    /// measuring.
    #[arg(long, value_name = "OUT", conflicts_with_all = ["files", "json", "stats", "flow"])]
    pub generate: Option<PathBuf>,
    /// With --generate: how many messages, requests and replies together
    /// (an even number: each request is written with its reply)
    /// [default: 10000].
    #[arg(long, requires = "generate")]
    pub messages: Option<u64>,
    /// With --generate: the encodings [default: mix].
    #[arg(long, value_enum, requires = "generate")]
    pub encodings: Option<generate::Traffic>,
    /// With --generate: TCP with TPKT framing instead of UDP.
    #[arg(long, requires = "generate")]
    pub tcp: bool,
    /// With --generate: write pcapng instead of pcap.
    #[arg(long, requires = "generate")]
    pub pcapng: bool,
    /// JSON Lines: one object per message (the model's JSON) or problem;
    /// with --stats, the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Pair the transactions and print the summary (response times per
    /// command, error codes, unanswered requests) instead of the messages.
    #[arg(long)]
    pub stats: bool,
    /// Write the ladder diagram of the transactions to OUT (`.svg`, or
    /// `.html` for a page with the diagram and the messages).
    #[arg(long, value_name = "OUT.svg|OUT.html")]
    pub flow: Option<PathBuf>,
    /// Most messages drawn in the ladder diagram.
    #[arg(long, default_value_t = 2000, value_name = "N")]
    pub flow_limit: usize,
    /// Another port that carries H.248 (besides 2944 and 2945); repeat
    /// for more.
    #[arg(long = "port", value_name = "PORT", value_parser = clap::value_parser!(u16).range(1..))]
    pub ports: Vec<u16>,
    /// Only the ports: do not pick up H.248 elsewhere by its signature.
    #[arg(long)]
    pub no_sniff: bool,
    /// No progress on standard error.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub binary: BinaryOptions,
}

/// Runs `megaco pcap` (a reader that stops reading, `| head`, ends the
/// run quietly: see `finish` in `main.rs`).
pub fn run(args: PcapArgs) -> Result<ExitCode> {
    if let Some(out) = &args.generate {
        let messages = args.messages.unwrap_or(10_000);
        if messages % 2 != 0 {
            bail!(
                "--messages {messages}: the count must be even (each request is written with its reply)"
            );
        }
        let plan = generate::Plan {
            messages,
            mix: args.encodings.unwrap_or(generate::Traffic::Mix),
            tcp: args.tcp,
            pcapng: args.pcapng,
        };
        if out == Path::new("-") {
            let stdout = io::stdout().lock();
            if stdout.is_terminal() {
                bail!("not writing a capture to a terminal: redirect standard output");
            }
            generate::generate(stdout, &plan)?;
        } else {
            let file = File::create(out).with_context(|| format!("creating {}", out.display()))?;
            generate::generate(file, &plan)?;
        }
        if !args.quiet {
            let name = match out.to_str() {
                Some("-") => "standard output".into(),
                _ => out.display().to_string(),
            };
            eprintln!("{name}: {messages} messages");
        }
        return Ok(ExitCode::SUCCESS);
    }
    // clap does not enforce `requires` on options with a default.
    if args.messages.is_some() || args.encodings.is_some() || args.tcp || args.pcapng {
        bail!("--messages, --encodings, --tcp and --pcapng go with --generate");
    }
    // Refused before reading anything, not after reading it all.
    let flow_html = match &args.flow {
        None => false,
        Some(path) => match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("html" | "htm") => true,
            Some("svg") => false,
            _ => bail!(
                "--flow {}: the name must end in .svg or .html",
                path.display()
            ),
        },
    };
    if args.files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        bail!("`-` (standard input) can be read once");
    }
    let options = options(&args)?;
    let stdout = io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 16, stdout);
    let mut stats = args.stats.then(Stats::default);
    let mut ladder = args.flow.as_ref().map(|_| Ladder::new(args.flow_limit));
    let lines = !args.stats && args.flow.is_none();
    let mut progress = Progress::new(!args.quiet && io::stderr().is_terminal());
    let mut bad = 0u64;
    let mut unreadable = 0usize;
    let many = args.files.len() > 1;
    for path in &args.files {
        let name = path.display().to_string();
        let capture = if name == "-" {
            Capture::new(io::stdin(), options.clone())
        } else {
            Capture::open_with(path, options.clone())
        };
        let mut capture = match capture {
            Ok(c) => c,
            Err(e) => {
                // The other files are still read, and what they hold is
                // still shown.
                progress.clear();
                eprintln!("megaco: {name}: cannot read the capture: {e}");
                unreadable += 1;
                continue;
            }
        };
        while let Some(event) = capture.next() {
            progress.tick(&capture);
            // Times count from the file's first packet, whatever it carried.
            let t0 = capture.first_time().unwrap_or_default();
            match event {
                Event::Message(m) => {
                    if m.message.is_err() {
                        bad += 1;
                    }
                    if lines {
                        let file = many.then_some(name.as_str());
                        if args.json {
                            writeln!(out, "{}", message_json(&m, file))?;
                        } else {
                            message_line(&mut out, &m, t0, file)?;
                        }
                    }
                    if let Some(s) = stats.as_mut() {
                        s.add(&m);
                    }
                    if let Some(l) = ladder.as_mut() {
                        l.add(&m);
                    }
                }
                Event::Problem(p) => {
                    bad += 1;
                    let file = many.then_some(name.as_str());
                    if lines && args.json {
                        writeln!(out, "{}", problem_json(&p, file))?;
                    } else if lines {
                        problem_line(&mut out, &p, t0, file)?;
                    } else {
                        // The summary goes to standard output: problems to
                        // standard error, so they are not lost.
                        progress.clear();
                        eprintln!("{}packet {}: {}", prefix(file), p.packet, p.kind);
                    }
                }
            }
        }
        progress.file_done(&name, &capture);
    }
    progress.clear();
    if let Some(s) = stats {
        let report = s.finish();
        if args.json {
            writeln!(out, "{}", report_json(&report))?;
        } else {
            write!(out, "{report}")?;
        }
    }
    out.flush()?;
    if let (Some(l), Some(path)) = (ladder, &args.flow) {
        let body = if flow_html {
            l.html(&format!(
                "H.248 flow: {}",
                args.files
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        } else {
            l.svg()
        };
        fs::write(path, body).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(if unreadable == args.files.len() {
        ExitCode::from(2)
    } else if bad == 0 && unreadable == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The capture options from the arguments.
fn options(args: &PcapArgs) -> Result<Options> {
    let mut o = Options::default();
    o.ports.extend(&args.ports);
    o.sniff = !args.no_sniff;
    // The capture's BER and PER with the user's binary options applied.
    if let Encoding::Ber(c) = args.binary.apply(Encoding::Ber(BerConfig::default()))? {
        o.ber = c;
    }
    if let Encoding::Per(c) = args.binary.apply(Encoding::Per(PerConfig::default()))? {
        o.per = c;
    }
    Ok(o)
}

fn prefix(file: Option<&str>) -> String {
    file.map(|f| format!("{f}: ")).unwrap_or_default()
}

/// One message as text on one line: line breaks (SDP, the header) as
/// spaces.
pub fn one_line(text: &[u8]) -> String {
    let mut s = String::with_capacity(text.len());
    let mut space = false;
    for c in String::from_utf8_lossy(text).chars() {
        if c == '\n' || c == '\r' || c == '\t' {
            space = true;
        } else {
            if space && !s.is_empty() {
                s.push(' ');
            }
            space = false;
            s.push(c);
        }
    }
    s
}

fn message_line(out: &mut impl Write, m: &Record, t0: Timestamp, file: Option<&str>) -> Result<()> {
    write!(
        out,
        "{}{:>7} {:>11.6}  {} -> {} {} {}  ",
        prefix(file),
        m.packet,
        m.time.since(t0) as f64 / 1e9,
        m.src,
        m.dst,
        m.transport,
        m.encoding
    )?;
    match &m.message {
        Ok(msg) => match megaco::text::encode_compact(msg) {
            Ok(text) => writeln!(out, "{}", one_line(&text))?,
            Err(e) => writeln!(out, "(decoded, but not writable as text: {e})")?,
        },
        Err(e) => match e.line_column() {
            Some((line, col)) => writeln!(out, "error at {line}:{col}: {e}")?,
            None => writeln!(out, "error at byte {}: {e}", e.offset())?,
        },
    }
    Ok(())
}

fn problem_line(
    out: &mut impl Write,
    p: &Problem,
    t0: Timestamp,
    file: Option<&str>,
) -> Result<()> {
    write!(
        out,
        "{}{:>7} {:>11.6}  ",
        prefix(file),
        p.packet,
        p.time.since(t0) as f64 / 1e9
    )?;
    if let Some((src, dst, t)) = p.flow {
        write!(out, "{src} -> {dst} {t}  ")?;
    }
    writeln!(out, "problem: {}", p.kind)?;
    Ok(())
}

fn base_json(packet: u64, time: Timestamp, file: Option<&str>) -> serde_json::Map<String, Value> {
    let mut o = serde_json::Map::new();
    if let Some(f) = file {
        o.insert("file".into(), f.into());
    }
    o.insert("packet".into(), packet.into());
    o.insert("time".into(), json!(time.as_secs_f64()));
    o
}

/// One message as a JSON object.
pub fn message_json(m: &Record, file: Option<&str>) -> Value {
    let mut o = base_json(m.packet, m.time, file);
    o.insert("src".into(), m.src.to_string().into());
    o.insert("dst".into(), m.dst.to_string().into());
    o.insert("transport".into(), m.transport.as_str().into());
    o.insert("encoding".into(), m.encoding.to_string().into());
    match &m.message {
        Ok(msg) => {
            // The envelope's two fields, so the line reads back with
            // `megaco::json` (`convert --from json`).
            o.insert(
                megaco::json::VERSION_KEY.into(),
                megaco::json::FORMAT_VERSION.into(),
            );
            o.insert(
                "message".into(),
                megaco::json::message_to_value(msg).unwrap_or(Value::Null),
            );
        }
        Err(e) => {
            let mut err = serde_json::Map::new();
            err.insert("message".into(), e.to_string().into());
            err.insert("offset".into(), e.offset().into());
            if let Some((line, column)) = e.line_column() {
                err.insert("line".into(), line.into());
                err.insert("column".into(), column.into());
            }
            o.insert("error".into(), err.into());
        }
    }
    Value::Object(o)
}

fn problem_json(p: &Problem, file: Option<&str>) -> Value {
    let mut o = base_json(p.packet, p.time, file);
    if let Some((src, dst, t)) = p.flow {
        o.insert("src".into(), src.to_string().into());
        o.insert("dst".into(), dst.to_string().into());
        o.insert("transport".into(), t.as_str().into());
    }
    o.insert("problem".into(), p.kind.to_string().into());
    Value::Object(o)
}

fn report_json(r: &Report) -> Value {
    json!({
        "messages": r.messages,
        "decode_errors": r.decode_errors,
        "encodings": r.encodings.iter().map(|(t, e, n)| json!({
            "transport": t.as_str(), "encoding": e, "messages": n,
        })).collect::<Vec<_>>(),
        "requests": r.requests,
        "answered": r.answered,
        "unanswered": r.unanswered,
        "resends": r.resends,
        "pendings": r.pendings,
        "reply_resends": r.reply_resends,
        "orphan_replies": r.orphan_replies,
        "reply_segments": r.reply_segments,
        "segment_replies": r.segment_replies,
        "acks": r.acks,
        "response_ms": r.commands.iter().map(|c| json!({
            "command": c.name, "count": c.count, "min": c.min_ms, "p50": c.p50_ms,
            "p90": c.p90_ms, "p99": c.p99_ms, "max": c.max_ms, "mean": c.mean_ms,
        })).collect::<Vec<_>>(),
        "errors": r.errors.iter().map(|(code, n)| json!({
            "code": code, "count": n, "name": error_name(*code),
        })).collect::<Vec<_>>(),
        "unanswered_list": r.unanswered_list.iter().map(|u| json!({
            "packet": u.packet, "time": u.time.as_secs_f64(), "src": u.src.to_string(),
            "dst": u.dst.to_string(), "transport": u.transport.as_str(),
            "transaction_id": u.transaction_id, "commands": u.commands,
        })).collect::<Vec<_>>(),
    })
}

/// Progress on standard error (a terminal only): after the first second,
/// once a second.
struct Progress {
    on: bool,
    start: Instant,
    last: Instant,
    shown: bool,
    ticks: u32,
}

impl Progress {
    fn new(on: bool) -> Self {
        let now = Instant::now();
        Progress {
            on,
            start: now,
            last: now,
            shown: false,
            ticks: 0,
        }
    }

    fn tick(&mut self, c: &Capture<'_>) {
        self.ticks = self.ticks.wrapping_add(1);
        if !self.on || self.ticks % 4096 != 0 {
            return;
        }
        let now = Instant::now();
        if now - self.last < Duration::from_secs(1) {
            return;
        }
        self.last = now;
        let secs = (now - self.start).as_secs_f64();
        let mb = c.offset() as f64 / 1e6;
        eprint!(
            "\r{} packets, {mb:.0} MB read, {:.0} MB/s   ",
            c.packets(),
            mb / secs
        );
        self.shown = true;
    }

    fn file_done(&mut self, name: &str, c: &Capture<'_>) {
        if self.shown {
            self.clear();
            eprintln!(
                "{name}: {} packets, {:.0} MB in {:.1} s",
                c.packets(),
                c.offset() as f64 / 1e6,
                self.start.elapsed().as_secs_f64()
            );
        }
    }

    fn clear(&mut self) {
        if self.shown {
            eprint!("\r{:60}\r", "");
            self.shown = false;
        }
    }
}
