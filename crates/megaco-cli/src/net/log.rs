//! The output of `mgc`, `mg` and `send`: every line timestamped, written by
//! a thread of its own behind a bounded queue, so that a slow, full or
//! closed output never holds up the stack. A line that finds the queue
//! full, or an output that is gone (a closed pipe), is dropped and
//! counted; replies never wait for the log.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use clap::Args;
use serde_json::{json, Value};

/// Output options shared by `mgc`, `mg` and `send`.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Output")]
pub struct LogArgs {
    /// Write the message and event lines to FILE (appending) instead of
    /// standard output.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// No message lines: only warnings, errors and the summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// One JSON object per line (`time`, `event`, and the event's fields;
    /// messages carry the model's transaction).
    #[arg(long)]
    pub json: bool,
    /// Print messages in pretty text rather than one compact line each.
    #[arg(long, conflicts_with = "json")]
    pub pretty: bool,
    /// How many lines may wait for the output; beyond, lines are dropped
    /// and counted.
    #[arg(long, value_name = "LINES", default_value_t = 4096,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub log_queue: u64,
}

/// Where a line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    /// Messages and events: standard output or the log file.
    Main,
    /// Warnings, errors and the summary: standard error (and the log
    /// file, if any).
    Diag,
}

enum Entry {
    /// A line and its sequence number.
    Line(u64, String),
    Flush(mpsc::Sender<()>),
}

#[derive(Debug, Default)]
struct Shared {
    dropped: AtomicU64,
    /// The sequence number of the next line.
    next: AtomicU64,
    /// Lines queued and not yet taken by their writer.
    queued: AtomicU64,
    /// Lines taken by the writers and not yet flushed to their output.
    in_flight: AtomicU64,
    /// Lines numbered below this are abandoned: counted as dropped when
    /// abandoned, skipped by the writers ([`Log::abandon_queued`]).
    abandoned_below: AtomicU64,
}

/// One output and the thread that writes it.
struct Output {
    tx: SyncSender<Entry>,
    thread: JoinHandle<()>,
}

impl Output {
    fn start(
        name: &str,
        out: Box<dyn Write + Send>,
        cap: usize,
        shared: Arc<Shared>,
    ) -> Result<Output> {
        let (tx, rx) = mpsc::sync_channel(cap);
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || write_lines(rx, out, &shared))
            .context("starting the log writer")?;
        Ok(Output { tx, thread })
    }
}

/// A handle to the output; cheap to clone.
#[derive(Clone)]
pub struct Log {
    main: SyncSender<Entry>,
    diag: SyncSender<Entry>,
    /// Warnings are copied into the log file.
    to_file: bool,
    shared: Arc<Shared>,
    /// JSON lines.
    pub json: bool,
    /// No message lines.
    pub quiet: bool,
    /// Pretty text.
    pub pretty: bool,
}

/// The writer threads, let go at the end.
pub struct Writer {
    threads: Vec<JoinHandle<()>>,
}

impl Log {
    /// Opens the outputs and starts a writer thread for each, so that a
    /// stuck standard output does not hold up warnings.
    pub fn start(args: &LogArgs) -> Result<(Log, Writer)> {
        let file = match &args.log {
            Some(p) => Some(
                File::options()
                    .create(true)
                    .append(true)
                    .open(p)
                    .with_context(|| format!("opening the log file {}", p.display()))?,
            ),
            None => None,
        };
        let to_file = file.is_some();
        let main_out: Box<dyn Write + Send> = match file {
            Some(f) => Box::new(BufWriter::new(f)),
            None => Box::new(BufWriter::new(io::stdout())),
        };
        let diag_out = Box::new(BufWriter::new(io::stderr()));
        let cap = usize::try_from(args.log_queue).unwrap_or(usize::MAX);
        let (mut log, writer) = Log::with_outputs(main_out, diag_out, cap)?;
        log.to_file = to_file;
        log.json = args.json;
        log.quiet = args.quiet;
        log.pretty = args.pretty;
        Ok((log, writer))
    }

    /// A log writing to `main` and `diag`, `cap` lines queued at most for
    /// each.
    fn with_outputs(
        main: Box<dyn Write + Send>,
        diag: Box<dyn Write + Send>,
        cap: usize,
    ) -> Result<(Log, Writer)> {
        let shared = Arc::new(Shared::default());
        let main = Output::start("megaco-log", main, cap, shared.clone())?;
        let diag = Output::start("megaco-log-err", diag, cap, shared.clone())?;
        Ok((
            Log {
                main: main.tx,
                diag: diag.tx,
                to_file: false,
                shared,
                json: false,
                quiet: false,
                pretty: false,
            },
            Writer {
                threads: vec![main.thread, diag.thread],
            },
        ))
    }

    /// Lines dropped so far (queue full, or output gone).
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Gives up on the lines still queued (an output stuck, at the end
    /// of a run): they are counted as dropped now and never written.
    /// Lines put afterwards (the summary) are written as usual.
    pub fn abandon_queued(&self) {
        let shared = &self.shared;
        shared
            .abandoned_below
            .store(shared.next.load(Ordering::SeqCst), Ordering::SeqCst);
        let lost =
            shared.queued.swap(0, Ordering::SeqCst) + shared.in_flight.swap(0, Ordering::SeqCst);
        shared.dropped.fetch_add(lost, Ordering::Relaxed);
    }

    fn put(&self, stream: Stream, line: String) {
        let send = |tx: &SyncSender<Entry>, line: String| {
            let seq = self.shared.next.fetch_add(1, Ordering::SeqCst);
            self.shared.queued.fetch_add(1, Ordering::SeqCst);
            if tx.try_send(Entry::Line(seq, line)).is_err() {
                self.shared.dropped.fetch_add(1, Ordering::Relaxed);
                untake(&self.shared);
            }
        };
        match stream {
            Stream::Main => send(&self.main, line),
            Stream::Diag => {
                if self.to_file {
                    send(&self.main, line.clone());
                }
                send(&self.diag, line);
            }
        }
    }

    /// A message or event line (skipped with `--quiet`): `text` for text
    /// output, `fields` for JSON (with `event`).
    pub fn info(&self, event: &str, text: impl FnOnce() -> String, fields: impl FnOnce() -> Value) {
        if self.quiet {
            return;
        }
        self.emit(Stream::Main, event, text, fields);
    }

    /// A line shown even with `--quiet` (listening addresses, results).
    pub fn notice(
        &self,
        event: &str,
        text: impl FnOnce() -> String,
        fields: impl FnOnce() -> Value,
    ) {
        self.emit(Stream::Main, event, text, fields);
    }

    /// A warning, error or summary: on standard error (and the log file).
    pub fn warn(&self, event: &str, text: impl FnOnce() -> String, fields: impl FnOnce() -> Value) {
        self.emit(Stream::Diag, event, text, fields);
    }

    fn emit(
        &self,
        stream: Stream,
        event: &str,
        text: impl FnOnce() -> String,
        fields: impl FnOnce() -> Value,
    ) {
        let time = humantime::format_rfc3339_millis(SystemTime::now());
        let line = if self.json {
            let mut v = json!({ "time": time.to_string(), "event": event });
            if let (Value::Object(m), Value::Object(f)) = (&mut v, fields()) {
                m.extend(f);
            }
            v.to_string()
        } else {
            format!("{time} {}", text())
        };
        self.put(stream, line);
    }

    /// Waits, at most `wait` in all, until every line queued so far is
    /// written (an output that stays stuck is given up on).
    pub fn flush(&self, wait: Duration) {
        let end = Instant::now() + wait;
        let mut acks = Vec::new();
        for tx in [&self.main, &self.diag] {
            let (ack, rx) = mpsc::channel();
            if send_until(tx, Entry::Flush(ack), end) {
                acks.push(rx);
            }
        }
        for rx in acks {
            let _ = rx.recv_timeout(end.saturating_duration_since(Instant::now()));
        }
    }
}

/// One queued line fewer (never below zero: [`Log::abandon_queued`]
/// may have counted it already).
fn untake(shared: &Shared) {
    sub(&shared.queued, 1);
}

/// `n` fewer, never below zero.
fn sub(counter: &AtomicU64, n: u64) {
    let _ = counter.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| {
        Some(c.saturating_sub(n))
    });
}

/// `try_send`, retried until `end`.
fn send_until(tx: &SyncSender<Entry>, mut e: Entry, end: Instant) -> bool {
    loop {
        match tx.try_send(e) {
            Ok(()) => return true,
            Err(TrySendError::Disconnected(_)) => return false,
            Err(TrySendError::Full(back)) => {
                if Instant::now() >= end {
                    return false;
                }
                e = back;
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

impl Writer {
    /// Writes what is queued, waiting at most `wait`; a writer stuck on a
    /// full output is left behind (the process ends anyway).
    pub fn finish(self, log: Log, wait: Duration) {
        log.flush(wait);
        drop(log);
        for t in self.threads {
            if t.is_finished() {
                let _ = t.join();
            }
        }
    }
}

/// A writer thread: each line to its output, flushed when the queue is
/// empty; an output that fails (a closed pipe) is given up and its lines
/// counted as dropped.
fn write_lines(rx: Receiver<Entry>, mut out: Box<dyn Write + Send>, shared: &Shared) {
    let mut ok = true;
    // Lines written into the buffer since the last flush: lost with it
    // when the flush fails.
    let mut unflushed = 0u64;
    let mut acks: Vec<mpsc::Sender<()>> = Vec::new();
    loop {
        let entry = match rx.try_recv() {
            Ok(e) => e,
            Err(mpsc::TryRecvError::Empty) => {
                if ok && out.flush().is_err() {
                    ok = false;
                    shared.dropped.fetch_add(unflushed, Ordering::Relaxed);
                }
                sub(&shared.in_flight, unflushed);
                unflushed = 0;
                for a in acks.drain(..) {
                    let _ = a.send(());
                }
                match rx.recv() {
                    Ok(e) => e,
                    Err(_) => return,
                }
            }
            Err(mpsc::TryRecvError::Disconnected) => {
                let _ = out.flush();
                sub(&shared.in_flight, unflushed);
                for a in acks.drain(..) {
                    let _ = a.send(());
                }
                return;
            }
        };
        match entry {
            Entry::Flush(a) => acks.push(a),
            Entry::Line(seq, line) => {
                if seq < shared.abandoned_below.load(Ordering::SeqCst) {
                    // Counted when it was abandoned.
                    continue;
                }
                untake(shared);
                if !ok {
                    shared.dropped.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                unflushed += 1;
                shared.in_flight.fetch_add(1, Ordering::SeqCst);
                if writeln!(out, "{line}").is_err() {
                    ok = false;
                    shared.dropped.fetch_add(unflushed, Ordering::Relaxed);
                    sub(&shared.in_flight, unflushed);
                    unflushed = 0;
                }
            }
        }
    }
}

/// JSON for a socket address.
pub fn addr(a: SocketAddr) -> Value {
    Value::String(a.to_string())
}

/// A log whose message lines are kept in memory (warnings go nowhere),
/// for tests.
#[cfg(test)]
pub(crate) fn kept() -> (Log, Writer, Arc<std::sync::Mutex<Vec<u8>>>) {
    let kept = tests::Kept::default();
    let (log, writer) =
        Log::with_outputs(Box::new(kept.clone()), Box::new(io::sink()), 1 << 16).unwrap();
    (log, writer, kept.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// An output that fails every write, as a closed pipe does.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
    }

    /// An output that blocks until released, as a full pipe does.
    struct Stuck(Arc<Mutex<()>>);

    impl Write for Stuck {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            let _held = self.0.lock().unwrap();
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// An output that keeps what it is given.
    #[derive(Clone, Default)]
    pub(super) struct Kept(pub(super) Arc<Mutex<Vec<u8>>>);

    impl Write for Kept {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn line(log: &Log, n: usize) {
        log.info("test", || format!("line {n}"), || json!({ "n": n }));
    }

    #[test]
    fn a_closed_output_drops_and_counts_every_line() {
        let kept = Kept::default();
        let (log, writer) =
            Log::with_outputs(Box::new(Closed), Box::new(kept.clone()), 16).unwrap();
        for n in 0..5 {
            line(&log, n);
        }
        log.flush(Duration::from_secs(5));
        assert_eq!(log.dropped(), 5);
        // Warnings still reach their own output.
        log.warn("w", || "still here".into(), || json!({}));
        log.flush(Duration::from_secs(5));
        let text = String::from_utf8(kept.0.lock().unwrap().clone()).unwrap();
        assert!(text.ends_with(" still here\n"), "{text:?}");
        writer.finish(log, Duration::from_secs(1));
    }

    #[test]
    fn a_stuck_output_drops_what_does_not_fit_and_never_blocks() {
        let gate = Arc::new(Mutex::new(()));
        let held = gate.lock().unwrap();
        let kept = Kept::default();
        let (log, writer) =
            Log::with_outputs(Box::new(Stuck(gate.clone())), Box::new(kept.clone()), 4).unwrap();
        // The writer takes one line and blocks on it; four more wait; the
        // rest are dropped at once.
        for n in 0..100 {
            line(&log, n);
        }
        assert!(log.dropped() >= 95, "{}", log.dropped());
        log.warn("w", || "warned".into(), || json!({}));
        log.flush(Duration::from_millis(50));
        drop(held);
        log.flush(Duration::from_secs(5));
        assert!(String::from_utf8(kept.0.lock().unwrap().clone())
            .unwrap()
            .contains("warned"));
        writer.finish(log, Duration::from_secs(1));
    }

    #[test]
    fn lines_carry_a_timestamp_and_json_its_fields() {
        let kept = Kept::default();
        let (mut log, writer) =
            Log::with_outputs(Box::new(kept.clone()), Box::new(Closed), 16).unwrap();
        line(&log, 1);
        log.json = true;
        line(&log, 2);
        log.flush(Duration::from_secs(5));
        let text = String::from_utf8(kept.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let (time, rest) = lines[0].split_once(' ').unwrap();
        assert!(humantime::parse_rfc3339(time).is_ok(), "{time}");
        assert_eq!(rest, "line 1");
        let v: Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(v["event"], "test");
        assert_eq!(v["n"], 2);
        assert!(humantime::parse_rfc3339(v["time"].as_str().unwrap()).is_ok());
        writer.finish(log, Duration::from_secs(1));
    }
}
