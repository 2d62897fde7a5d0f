//! The requesting side of `mg` and `send`: a connection to one peer,
//! requests logged and their outcomes reported.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use megaco::model::*;
use megaco_stack::engine::Config;
use megaco_stack::scenario::reply_errors;
use megaco_stack::{tcp, udp, Connection, Incoming, OutgoingRequest};
use serde_json::json;
use tokio::sync::mpsc;

use super::log::{addr, Log};
use super::show::{self, describe};
use super::{
    any_local, spread_timeout, total_wait, Tally, EXIT_ERROR_REPLY, EXIT_FAILED, EXIT_NO_REPLY,
};

/// What came of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    Replied,
    ErrorReply,
    Failed,
    NoReply,
}

impl Outcome {
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Replied => ExitCode::SUCCESS,
            Outcome::ErrorReply => ExitCode::from(EXIT_ERROR_REPLY),
            Outcome::Failed => ExitCode::from(EXIT_FAILED),
            Outcome::NoReply => ExitCode::from(EXIT_NO_REPLY),
        }
    }
}

/// A connection to the peer, and what is needed to report on it.
pub struct Client {
    pub conn: Connection,
    wait: Duration,
    transport: &'static str,
    pub log: Log,
    pub tally: Arc<Tally>,
    version: u8,
    /// Log each request sent (`send` logs only the replies).
    pub log_requests: bool,
    /// Message-level errors from the peer (e.g. 406, version not
    /// supported): they answer no transaction, so every request waiting
    /// fails with them.
    message_errors: mpsc::Receiver<ErrorDescriptor>,
}

/// How `mg` and `send` reach their peer.
#[derive(Debug, Clone, Args)]
pub struct ClientArgs {
    /// Our UDP address [default: any address, an ephemeral port].
    #[arg(long, value_name = "ADDR")]
    pub local: Option<SocketAddr>,
    /// Use TCP with TPKT framing instead of UDP.
    #[arg(long)]
    pub tcp: bool,
    /// Give up on a request after SECS seconds without a reply (fractions
    /// allowed), the resends spread evenly within; a TransactionPending
    /// starts the same wait again [default: the request timer's schedule,
    /// 105 s].
    #[arg(long, value_name = "SECS", value_parser = super::parse_secs)]
    pub timeout: Option<Duration>,
}

/// The client, the incoming side (requests from the peer and events), and
/// where the incoming side's message-level errors go.
pub type Opened = (Client, Incoming, mpsc::Sender<ErrorDescriptor>);

/// Connects over TCP, or binds a UDP socket towards `remote`, with
/// `--timeout` applied to `config`; says why not on the log.
pub async fn open(
    args: &ClientArgs,
    remote: SocketAddr,
    mut config: Config,
    log: Log,
    tally: Arc<Tally>,
) -> Option<Opened> {
    if let Some(t) = args.timeout {
        spread_timeout(&mut config, t);
    }
    match connect(args.tcp, args.local, remote, config, log.clone(), tally).await {
        Ok(opened) => Some(opened),
        Err(msg) => {
            log.warn(
                "error",
                || format!("megaco: {msg}"),
                || json!({ "error": msg }),
            );
            None
        }
    }
}

/// [`open`], unless a signal comes first (a TCP connect may take up to
/// `--timeout`): then the tally's summary says `who` was stopped by it.
/// `Err` is the outcome to exit with.
#[allow(clippy::too_many_arguments)]
pub async fn open_unless_stopped(
    who: &str,
    stop: std::pin::Pin<&mut impl std::future::Future<Output = &'static str>>,
    args: &ClientArgs,
    remote: SocketAddr,
    config: Config,
    log: &Log,
    tally: &Arc<Tally>,
    started: std::time::Instant,
) -> Result<Opened, Outcome> {
    tokio::select! {
        sig = stop => {
            tally.summary(log, &format!("{who}: stopped by {sig}"), started);
            Err(Outcome::Failed)
        }
        opened = open(args, remote, config, log.clone(), tally.clone()) => opened.ok_or(Outcome::NoReply),
    }
}

async fn connect(
    tcp: bool,
    local: Option<SocketAddr>,
    remote: SocketAddr,
    config: Config,
    log: Log,
    tally: Arc<Tally>,
) -> Result<Opened, String> {
    let wait = total_wait(&config.request_timer);
    let version = config.version;
    let (conn, incoming, transport) = if tcp {
        match tcp::connect(remote, config).await {
            Ok((conn, incoming)) => (conn, incoming, "tcp"),
            Err(e) => return Err(format!("cannot connect to {remote} over TCP: {e}")),
        }
    } else {
        let local = local.unwrap_or_else(|| any_local(remote));
        match udp::connect(local, remote, config).await {
            Ok((conn, incoming)) => (conn, incoming, "udp"),
            Err(e) => return Err(format!("cannot bind udp {local}: {e}")),
        }
    };
    tally.peer(remote);
    let (tx, rx) = mpsc::channel(16);
    Ok((
        Client {
            conn,
            wait,
            transport,
            log,
            tally,
            version,
            log_requests: true,
            message_errors: rx,
        },
        incoming,
        tx,
    ))
}

impl Client {
    /// Sends a request, logging it; on failure reports it (`what` names
    /// the request) and says how it ended.
    pub async fn send(
        &self,
        what: &str,
        actions: Vec<ActionRequest>,
    ) -> Result<OutgoingRequest, Outcome> {
        let peer = self.conn.peer_addr();
        match self.conn.send_request(actions.clone()).await {
            Ok(request) => {
                Tally::bump(&self.tally.sent);
                let id = request.transaction_id();
                if self.log_requests {
                    show::message(
                        &self.log,
                        "->",
                        peer,
                        "",
                        self.version,
                        show::request(id, &actions),
                    );
                }
                Ok(request)
            }
            Err(e) => Err(self.failed(what, e)),
        }
    }

    /// Waits for the reply to a request sent (or a message-level error
    /// from the peer), logs it, reports errors; returns the result when
    /// there is one.
    pub async fn finish(
        &mut self,
        request: OutgoingRequest,
    ) -> (Outcome, Option<TransactionResult>) {
        let peer = self.conn.peer_addr();
        let id = request.transaction_id();
        let answer = tokio::select! {
            r = request => r,
            Some(e) = self.message_errors.recv() => {
                Tally::bump(&self.tally.errors);
                self.warn(format!("megaco: transaction {id}: {peer} answered with a message-level {}", describe(&e)));
                return (Outcome::ErrorReply, Some(TransactionResult::Error(e)));
            }
        };
        match answer {
            Ok(result) => {
                Tally::bump(&self.tally.received);
                show::message(
                    &self.log,
                    "<-",
                    peer,
                    "",
                    self.version,
                    show::reply(id, &result),
                );
                let errors = reply_errors(&result);
                for e in &errors {
                    self.warn(format!(
                        "megaco: transaction {id}: {peer} answered {}",
                        describe(e)
                    ));
                }
                if errors.is_empty() {
                    (Outcome::Replied, Some(result))
                } else {
                    Tally::bump(&self.tally.errors);
                    (Outcome::ErrorReply, Some(result))
                }
            }
            Err(e) => (self.failed(&format!("transaction {id}"), e), None),
        }
    }

    pub fn warn(&self, text: String) {
        self.log.warn(
            "error",
            || text.clone(),
            || json!({ "peer": addr(self.conn.peer_addr()), "detail": text }),
        );
    }

    /// Reports a request that got no reply.
    pub fn failed(&self, what: &str, e: megaco_stack::Error) -> Outcome {
        Tally::bump(&self.tally.errors);
        let peer = self.conn.peer_addr();
        match e {
            megaco_stack::Error::Timeout => {
                self.warn(format!(
                    "megaco: {what}: no reply from {peer} over {} within {:?} (timed out)",
                    self.transport, self.wait
                ));
                Outcome::NoReply
            }
            megaco_stack::Error::Encode(e) => {
                self.warn(format!("megaco: {what}: cannot encode the request: {e}"));
                Outcome::Failed
            }
            megaco_stack::Error::MessageError(e) => {
                self.warn(format!(
                    "megaco: {what}: {peer} answered with a message-level {}",
                    describe(&e)
                ));
                Outcome::ErrorReply
            }
            megaco_stack::Error::TooManyOutstanding(n) => {
                self.warn(format!(
                    "megaco: {what}: not sent, {n} requests already await a reply"
                ));
                Outcome::Failed
            }
            e => {
                self.warn(format!("megaco: {what}: no reply from {peer}: {e}"));
                Outcome::NoReply
            }
        }
    }
}
