//! `megaco send`: the transaction requests of a message file, sent at once
//! through the stack, the replies printed in the file's order.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use megaco::model::*;
use megaco_stack::engine::Event;
use megaco_stack::{Inbound, Incoming};
use serde_json::json;
use tokio::sync::mpsc;

use super::client::{self, ClientArgs, Outcome};
use super::log::{Log, LogArgs};
use super::serve;
use super::show::describe;
use super::{
    config, resolve, runtime, stop_signal, Common, EngineArgs, Tally, WireEncoding, MID_HELP,
};
use megaco::codec::Kind;

use crate::codec::{self, BinaryOptions, Input};

/// `megaco send`.
#[derive(Debug, Clone, Args)]
#[command(
    mut_arg("mid", |a| a.help(MID_HELP.to_string() + " [default: the file's]")),
    mut_arg("version", |a| a.help(
        "The protocol version of the messages we send, 1 to 3 [default: the file's]"
    )),
    mut_arg("encoding", |a| a.help("The wire encoding [default: the file's]")),
)]
pub struct SendArgs {
    /// The peer: `HOST[:PORT]` or `IP[:PORT]` [port default: 2944 for
    /// text, 2945 for binary].
    #[arg(long, value_name = "ADDR")]
    pub to: String,
    /// The message to send (any encoding `convert` reads; `-` for
    /// standard input).
    pub file: PathBuf,
    #[command(flatten)]
    pub client: ClientArgs,
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub log: LogArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Runs `megaco send`.
pub fn send(args: SendArgs) -> Result<ExitCode> {
    runtime()?.block_on(run(args))
}

/// The first transaction id the stack gives `send`'s requests.
fn first_id(requests: &[TransactionRequest]) -> u32 {
    let first = requests[0].transaction_id;
    let n = requests.len() as u32;
    if first == 0 || first > u32::MAX - (n - 1) {
        1
    } else {
        first
    }
}

/// Whether text starts like compact text (`!/` rather than `MEGACO/`).
fn is_compact(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    loop {
        match rest.first() {
            Some(b) if b.is_ascii_whitespace() => rest = &rest[1..],
            Some(b';') => {
                let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                rest = &rest[end..];
            }
            Some(b'!') => return true,
            _ => return false,
        }
    }
}

async fn run(args: SendArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let (name, bytes) = crate::read_input(Some(&args.file))?;
    if codec::looks_like_term_file(&bytes) {
        bail!(
            "{name}: a corpus term file (many messages), not one message: \
             `megaco transform {name} OUTDIR` writes one file per message to send"
        );
    }
    let (msg, detected) = codec::read_message(&bytes, &Input::Auto, &BinaryOptions::default())
        .map_err(|e| anyhow!("{}", e.located(&name)))?;
    let mut requests = Vec::new();
    let mut others = 0usize;
    match msg.mess.body {
        MessageBody::Error(e) => bail!(
            "{name}: nothing to send: the message holds a message-level {}, not transaction requests",
            describe(&e)
        ),
        MessageBody::Transactions(ts) => {
            for t in ts {
                match t {
                    Transaction::Request(r) => requests.push(r),
                    _ => others += 1,
                }
            }
        }
    }
    if requests.is_empty() {
        bail!(
            "{name}: nothing to send: the message holds no transaction requests \
             (only replies, pendings or acks)"
        );
    }
    let (log, writer) = Log::start(&args.log)?;
    if others > 0 {
        log.warn(
            "skipped",
            || format!("megaco: {name}: {others} transactions that are not requests are not sent"),
            || json!({ "file": name, "skipped": others }),
        );
    }

    let c = &args.common;
    let encoding = match (c.encoding, detected.kind()) {
        (Some(e), _) => e,
        (None, Kind::Text) if is_compact(&bytes) => WireEncoding::Compact,
        (None, Kind::Text) => WireEncoding::Pretty,
        (None, Kind::Ber) => WireEncoding::Ber,
        (None, Kind::Per) => WireEncoding::Per,
        (None, _) => bail!("{name}: {detected} is no wire encoding: choose one with --encoding"),
    };
    let remote = resolve(&args.to, encoding.default_port()).await?;
    let mid = c.mid.clone().unwrap_or(msg.mess.mid);
    let version = c.version.unwrap_or(msg.mess.version);
    let mut config = config(mid, version, encoding.encoding(c.dialect), &args.engine)?;
    // On a fresh connection the stack numbers requests from min_trans_id
    // up: the file's first id, when the rest fit after it.
    config.min_trans_id = first_id(&requests);
    let tally = Arc::new(Tally::default());
    let stop = stop_signal().context("installing the signal handlers")?;
    tokio::pin!(stop);
    let opened = client::open_unless_stopped(
        "send",
        stop.as_mut(),
        &args.client,
        remote,
        config,
        &log,
        &tally,
        started,
    )
    .await;
    let (mut client, incoming, errors) = match opened {
        Ok(opened) => opened,
        Err(outcome) => {
            writer.finish(log, Duration::from_secs(1));
            return Ok(outcome.exit_code());
        }
    };
    client.log_requests = false;
    let watcher = tokio::spawn(watch(incoming, log.clone(), tally.clone(), errors));
    let work = async {
        // All the requests go out at once; the replies are taken in the
        // file's order.
        let mut sent = Vec::with_capacity(requests.len());
        for r in requests {
            let what = format!("transaction {} of {name}", r.transaction_id);
            let request = client.send(&what, r.actions.into_vec()).await;
            if let Ok(request) = &request {
                let id = request.transaction_id();
                if id != r.transaction_id {
                    let text = format!("megaco: {what} is sent as transaction {id}");
                    log.warn("renumbered", || text.clone(), || json!({ "detail": text }));
                }
            }
            sent.push(request);
        }
        let mut worst = Outcome::Replied;
        for request in sent {
            let outcome = match request {
                Ok(request) => client.finish(request).await.0,
                Err(outcome) => outcome,
            };
            worst = worst.max(outcome);
        }
        worst
    };
    let (worst, ended) = tokio::select! {
        sig = &mut stop => (Outcome::Failed, format!("send: stopped by {sig}")),
        worst = work => {
            let how = if worst == Outcome::Replied { "done" } else { "failed" };
            (worst, format!("send: {how}"))
        }
    };
    // TCP: the SegmentReplies and acks we wrote last reach the peer before
    // the connection closes.
    let _ = tokio::time::timeout(Duration::from_secs(5), client.conn.close()).await;
    watcher.abort();
    tally.summary(&log, &ended, started);
    writer.finish(log, Duration::from_secs(1));
    Ok(worst.exit_code())
}

/// Logs what arrives besides the replies: pendings (as `mg` shows them)
/// and warnings; of the other events, which `send` does not show, none.
/// Requests from the peer get error 501 as the stack answers when nobody
/// serves.
async fn watch(
    mut incoming: Incoming,
    log: Log,
    tally: Arc<Tally>,
    errors: mpsc::Sender<ErrorDescriptor>,
) {
    let mut quiet = log.clone();
    quiet.quiet = true;
    while let Some(item) = incoming.recv().await {
        match item {
            Inbound::Event { peer, event } => {
                let shown = if matches!(event, Event::PendingReceived { .. }) {
                    &log
                } else {
                    &quiet
                };
                serve::event(shown, &tally, peer.addr, &event);
                if let Event::MessageError { error } = event {
                    let _ = errors.try_send(error);
                }
            }
            Inbound::Endpoint(ev) => serve::endpoint_event(&quiet, &ev),
            Inbound::Closed { .. } => break,
            _ => {}
        }
    }
}
