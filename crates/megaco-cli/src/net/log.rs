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
use std::time::{Duration, SystemTime};

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
    /// Warnings and errors: standard error (and the log file, if any).
    Diag,
}

enum Entry {
    Line(Stream, String),
    Flush(mpsc::Sender<()>),
}

#[derive(Debug, Default)]
struct Shared {
    dropped: AtomicU64,
}

/// A handle to the output; cheap to clone.
#[derive(Clone)]
pub struct Log {
    tx: SyncSender<Entry>,
    shared: Arc<Shared>,
    /// JSON lines.
    pub json: bool,
    /// No message lines.
    pub quiet: bool,
    /// Pretty text.
    pub pretty: bool,
}

/// The writer thread, joined at the end.
pub struct Writer {
    thread: Option<JoinHandle<()>>,
}

impl Log {
    /// Opens the output and starts the writer.
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
        let cap = usize::try_from(args.log_queue).unwrap_or(usize::MAX);
        let (tx, rx) = mpsc::sync_channel(cap);
        let shared = Arc::new(Shared::default());
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("megaco-log".into())
            .spawn(move || write_lines(rx, file, &s))
            .context("starting the log writer")?;
        Ok((
            Log {
                tx,
                shared,
                json: args.json,
                quiet: args.quiet,
                pretty: args.pretty,
            },
            Writer {
                thread: Some(thread),
            },
        ))
    }

    /// Lines dropped so far (queue full, or output gone).
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    fn put(&self, stream: Stream, line: String) {
        match self.tx.try_send(Entry::Line(stream, line)) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.shared.dropped.fetch_add(1, Ordering::Relaxed);
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

    /// Waits (at most `wait`) until every line queued so far is written.
    pub fn flush(&self, wait: Duration) {
        let (tx, rx) = mpsc::channel();
        if self.tx.send_timeout_compat(Entry::Flush(tx), wait) {
            let _ = rx.recv_timeout(wait);
        }
    }
}

trait SendTimeout {
    fn send_timeout_compat(&self, e: Entry, wait: Duration) -> bool;
}

impl SendTimeout for SyncSender<Entry> {
    /// `try_send`, retried for up to `wait`.
    fn send_timeout_compat(&self, mut e: Entry, wait: Duration) -> bool {
        let end = std::time::Instant::now() + wait;
        loop {
            match self.try_send(e) {
                Ok(()) => return true,
                Err(TrySendError::Disconnected(_)) => return false,
                Err(TrySendError::Full(back)) => {
                    if std::time::Instant::now() >= end {
                        return false;
                    }
                    e = back;
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
    }
}

impl Writer {
    /// Writes what is queued, waiting at most `wait` (a stuck output is
    /// left behind: the process ends anyway).
    pub fn finish(mut self, log: Log, wait: Duration) {
        log.flush(wait);
        drop(log);
        if let Some(t) = self.thread.take() {
            if t.is_finished() {
                let _ = t.join();
            }
        }
    }
}

/// The writer thread: each line to its stream, flushed when the queue is
/// empty; a stream that fails (closed pipe) is given up and its lines
/// counted as dropped.
fn write_lines(rx: Receiver<Entry>, file: Option<File>, shared: &Shared) {
    // Warnings go to the log file too, when there is one.
    let to_file = file.is_some();
    let mut main: Box<dyn Write> = match file {
        Some(f) => Box::new(BufWriter::new(f)),
        None => Box::new(BufWriter::new(io::stdout())),
    };
    let mut diag = BufWriter::new(io::stderr());
    let (mut main_ok, mut diag_ok) = (true, true);
    let drop_one = || {
        shared.dropped.fetch_add(1, Ordering::Relaxed);
    };
    let mut pending_flush: Vec<mpsc::Sender<()>> = Vec::new();
    loop {
        let entry = match rx.try_recv() {
            Ok(e) => e,
            Err(mpsc::TryRecvError::Empty) => {
                main_ok &= main.flush().is_ok();
                diag_ok &= diag.flush().is_ok();
                for f in pending_flush.drain(..) {
                    let _ = f.send(());
                }
                match rx.recv() {
                    Ok(e) => e,
                    Err(_) => return,
                }
            }
            Err(mpsc::TryRecvError::Disconnected) => {
                let _ = main.flush();
                let _ = diag.flush();
                for f in pending_flush.drain(..) {
                    let _ = f.send(());
                }
                return;
            }
        };
        match entry {
            Entry::Flush(f) => pending_flush.push(f),
            Entry::Line(Stream::Main, line) => {
                if main_ok {
                    main_ok = writeln!(main, "{line}").is_ok();
                }
                if !main_ok {
                    drop_one();
                }
            }
            Entry::Line(Stream::Diag, line) => {
                if to_file && main_ok {
                    main_ok = writeln!(main, "{line}").is_ok();
                }
                if diag_ok {
                    diag_ok = writeln!(diag, "{line}").is_ok();
                }
                if !diag_ok {
                    drop_one();
                }
            }
        }
    }
}

/// JSON for a socket address.
pub fn addr(a: SocketAddr) -> Value {
    Value::String(a.to_string())
}
