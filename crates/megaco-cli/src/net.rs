//! Talking to peers through the transaction stack (`megaco-stack`): the
//! `mgc`, `mg` and `send` subcommands.
//!
//! Every message sent or received is printed on standard output, one line
//! each: `->` for what we send, `<-` for what we receive, the peer's
//! address (for requests `mgc` receives, followed by the sender's mid from
//! the message header), then the transaction in compact text (line breaks
//! inside it, e.g. in SDP, shown as spaces). `--pretty` prints the
//! transaction in pretty text under the `->`/`<-` line instead.
//! Diagnostics go to standard error.
//!
//! `send` sends all the file's requests at once and prints the replies in
//! the file's order.
//!
//! Exit status of `mg` and `send`: 0 when every request got a reply
//! without an error descriptor, 1 when a reply carried one, 3 when a
//! request got no reply (timeout, connection refused or closed), 2 for
//! anything else (bad arguments, unreadable file, ...).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use megaco::model::*;
use megaco::MegacoMessage;
use megaco_stack::engine::{Config, RequestTimer};
use megaco_stack::{build, tcp, udp, Connection, Encoding, Inbound, IncomingRequest};
use tokio::sync::mpsc;

use megaco::codec::Kind;

use crate::codec::{self, BinaryOptions, Input};

/// Exit status when a reply carried an error descriptor.
const EXIT_ERROR_REPLY: u8 = 1;
/// Exit status for local failures (encoding, bad input).
const EXIT_FAILED: u8 = 2;
/// Exit status when a request got no reply.
const EXIT_NO_REPLY: u8 = 3;

/// The encodings spoken on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WireEncoding {
    /// Pretty text.
    Pretty,
    /// Compact text.
    Compact,
    /// BER, as Erlang/OTP's megaco_ber_encoder writes it.
    Ber,
    /// Aligned PER.
    Per,
}

impl WireEncoding {
    fn encoding(self) -> Encoding {
        match self {
            WireEncoding::Pretty => Encoding::pretty(),
            WireEncoding::Compact => Encoding::compact(),
            WireEncoding::Ber => Encoding::ber(),
            WireEncoding::Per => Encoding::per(),
        }
    }

    /// RFC 3525 D.1/D.2: port 2944 for text, 2945 for binary.
    fn default_port(self) -> u16 {
        match self {
            WireEncoding::Pretty | WireEncoding::Compact => 2944,
            WireEncoding::Ber | WireEncoding::Per => 2945,
        }
    }

    fn name(self) -> &'static str {
        match self {
            WireEncoding::Pretty => "pretty",
            WireEncoding::Compact => "compact",
            WireEncoding::Ber => "ber",
            WireEncoding::Per => "per",
        }
    }
}

const MID_HELP: &str =
    "Our message identifier in text form, e.g. `[10.0.0.1]:2944` or `<mg.example.net>`";

/// Transport, encoding and identity options shared by `mgc`, `mg` and
/// `send`.
#[derive(Debug, Clone, Args)]
pub struct Common {
    /// Use TCP with TPKT framing instead of UDP.
    #[arg(long)]
    pub tcp: bool,
    /// The wire encoding [default: pretty].
    #[arg(long, value_enum)]
    pub encoding: Option<WireEncoding>,
    /// Our message identifier in text form, e.g. `[10.0.0.1]:2944` or
    /// `<mg.example.net>`.
    #[arg(long, value_parser = parse_mid)]
    pub mid: Option<Mid>,
    /// The protocol version of the messages we send, 1 to 3 [default: 1].
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub version: Option<u8>,
    /// Print messages in pretty text rather than one compact line each.
    #[arg(long)]
    pub pretty: bool,
}

/// Request timer options of `mg` and `send`.
#[derive(Debug, Clone, Args)]
pub struct Timers {
    /// Give up on a request after SECS seconds without a reply (fractions
    /// allowed); a TransactionPending from the peer starts the same wait
    /// again [default: 105, Erlang/OTP's 7 s doubling with 3 resends, and
    /// 60 s after a pending].
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    pub timeout: Option<Duration>,
    /// How many times a request is resent over UDP before giving up; with
    /// --timeout the resends are evenly spaced within it [default: 3].
    #[arg(long, value_name = "N")]
    pub resends: Option<u32>,
}

/// `megaco mgc`.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("mid", |a| a.help(MID_HELP.to_string() + " [default: <mgc>]")))]
pub struct MgcArgs {
    /// The address to listen on [default: 0.0.0.0:2944 for text,
    /// 0.0.0.0:2945 for binary].
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// Exit after answering N requests.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,
    /// Send v3 replies longer than BYTES as segments, each message
    /// within BYTES (one action reply per segment at least).
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pdu_size: Option<u64>,
    #[command(flatten)]
    pub common: Common,
}

/// `megaco mg`.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("mid", |a| a.help(MID_HELP.to_string() + " [default: <mg>]")))]
pub struct MgArgs {
    /// The controller: `HOST[:PORT]` or `IP[:PORT]` [port default: 2944
    /// for text, 2945 for binary].
    #[arg(long, value_name = "ADDR")]
    pub mgc: String,
    /// Our UDP address [default: any address, an ephemeral port].
    #[arg(long, value_name = "ADDR")]
    pub local: Option<SocketAddr>,
    /// After registering, send a Notify of this termination (repeatable).
    #[arg(long, value_name = "TERMID")]
    pub notify: Vec<String>,
    /// The event each Notify reports.
    #[arg(long, value_name = "NAME", default_value = "al/of")]
    pub event: String,
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub timers: Timers,
}

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
    /// Our UDP address [default: any address, an ephemeral port].
    #[arg(long, value_name = "ADDR")]
    pub local: Option<SocketAddr>,
    /// Print each reply as one line of JSON (the model's
    /// TransactionReply, with the peer's address).
    #[arg(long, conflicts_with = "pretty")]
    pub json: bool,
    /// The message to send (any encoding `convert` reads; `-` for
    /// standard input).
    pub file: PathBuf,
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub timers: Timers,
}

/// Parses a message identifier as the text grammar reads it.
fn parse_mid(s: &str) -> Result<Mid, String> {
    s.parse().map_err(|e| {
        format!(
            "{s:?} is not a message identifier ({e}); try `[10.0.0.1]:2944` or `<mg.example.net>`"
        )
    })
}

fn parse_secs(s: &str) -> Result<Duration, String> {
    let secs: f64 = s.parse().map_err(|e| format!("{s:?}: {e}"))?;
    if !(secs > 0.0 && secs < 1e9) {
        return Err(format!("{s:?}: expected a positive number of seconds"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A message identifier in text form.
fn mid_text(mid: &Mid) -> String {
    mid.to_string()
}

fn message(version: u8, mid: Mid, body: MessageBody) -> MegacoMessage {
    MegacoMessage {
        auth_header: None,
        mess: Message { version, mid, body },
    }
}

#[cfg(test)]
fn error(code: u16, text: &str) -> ErrorDescriptor {
    ErrorDescriptor {
        error_code: code,
        error_text: (!text.is_empty()).then(|| text.into()),
    }
}

fn domain(name: &str) -> Mid {
    Mid::Domain(DomainName {
        name: name.to_string().into(),
        port: None,
    })
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// The engine configuration the options select.
fn config(mid: Mid, version: u8, encoding: WireEncoding, timers: Option<&Timers>) -> Config {
    let mut config = Config::new(mid);
    config.version = version;
    config.encoding = encoding.encoding();
    if let Some(t) = timers {
        let resends = t.resends.unwrap_or(config.request_timer.max_retries);
        match t.timeout {
            Some(total) => {
                let interval = total / resends.saturating_add(1);
                config.request_timer = RequestTimer {
                    initial: interval,
                    factor: 1,
                    max_interval: interval,
                    max_retries: resends,
                };
                config.long_request_timer = total;
            }
            None => config.request_timer.max_retries = resends,
        }
    }
    config
}

/// How long a request waits for its reply (without pendings).
fn total_wait(t: &RequestTimer) -> Duration {
    let mut interval = t.initial;
    let mut total = interval;
    for _ in 0..t.max_retries {
        interval = interval
            .checked_mul(t.factor)
            .unwrap_or(t.max_interval)
            .min(t.max_interval);
        total = total.saturating_add(interval);
    }
    total
}

/// Resolves `HOST[:PORT]`, `IP[:PORT]` or `[IPv6]:PORT`.
async fn resolve(s: &str, default_port: u16) -> Result<SocketAddr> {
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    let bare = s.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, default_port));
    }
    let target = if s.contains(':') {
        s.to_string()
    } else {
        format!("{s}:{default_port}")
    };
    let mut addrs = tokio::net::lookup_host(target.as_str())
        .await
        .with_context(|| format!("resolving {s}"))?;
    addrs.next().ok_or_else(|| anyhow!("{s}: no address"))
}

/// Any address of `remote`'s family, an ephemeral port.
fn any_local(remote: SocketAddr) -> SocketAddr {
    let ip = match remote {
        SocketAddr::V4(_) => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        SocketAddr::V6(_) => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
    };
    SocketAddr::new(ip, 0)
}

/// How messages are shown.
struct Printer {
    pretty: bool,
    version: u8,
}

impl Printer {
    /// One transaction in text, without the message header.
    fn text(&self, t: Transaction) -> String {
        let mid = domain("x");
        let msg = message(
            self.version,
            mid.clone(),
            MessageBody::Transactions(vec![t].into()),
        );
        let encode = |m: &MegacoMessage| {
            if self.pretty {
                megaco::text::encode_pretty(m)
            } else {
                megaco::text::encode_compact(m)
            }
        };
        // What does not fit the configured version is shown as v3.
        let bytes = match encode(&msg) {
            Ok(b) => b,
            Err(_) => {
                let mut v3 = msg.clone();
                v3.mess.version = 3;
                match encode(&v3) {
                    Ok(b) => b,
                    Err(e) => return format!("(not encodable as text: {e}) {msg:?}"),
                }
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        // The header is the first line.
        let body = text.split_once('\n').map_or(&*text, |(_, b)| b);
        if self.pretty {
            body.trim_end().to_string()
        } else {
            body.split(['\r', '\n'])
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    /// `who`: the peer's address, and maybe more about it.
    fn show(&self, arrow: &str, who: impl std::fmt::Display, t: Transaction) {
        let text = self.text(t);
        if self.pretty {
            println!("{arrow} {who}\n{text}");
        } else {
            println!("{arrow} {who} {text}");
        }
    }

    fn request(
        &self,
        arrow: &str,
        peer: impl std::fmt::Display,
        id: u32,
        actions: &[ActionRequest],
    ) {
        self.show(
            arrow,
            peer,
            Transaction::Request(TransactionRequest {
                transaction_id: id,
                actions: actions.to_vec().into(),
            }),
        );
    }

    fn reply(&self, arrow: &str, peer: SocketAddr, id: u32, result: &TransactionResult) {
        self.show(arrow, peer, Transaction::Reply(reply(id, result)));
    }
}

fn reply(id: u32, result: &TransactionResult) -> TransactionReply {
    TransactionReply {
        transaction_id: id,
        imm_ack_required: false,
        result: result.clone(),
        segment_number: None,
        segmentation_complete: false,
    }
}

/// Every error descriptor in a reply: of the transaction, of an action, of
/// a command, of an audited value.
fn reply_errors(result: &TransactionResult) -> Vec<&ErrorDescriptor> {
    let mut out = Vec::new();
    let replies = match result {
        TransactionResult::Error(e) => return vec![e],
        TransactionResult::ActionReplies(r) => r,
    };
    for a in replies {
        out.extend(&a.error_descriptor);
        for c in &a.command_reply {
            match c {
                CommandReply::Add(r)
                | CommandReply::Move(r)
                | CommandReply::Modify(r)
                | CommandReply::Subtract(r) => {
                    out.extend(audit_errors(r.termination_audit.as_deref().unwrap_or(&[])))
                }
                CommandReply::AuditCapability(r) | CommandReply::AuditValue(r) => match r {
                    AuditReply::Error(e) => out.push(e),
                    AuditReply::AuditResult(r) => {
                        out.extend(audit_errors(&r.termination_audit_result))
                    }
                    AuditReply::AuditResultTermList(r) => {
                        out.extend(audit_errors(&r.termination_audit_result))
                    }
                    _ => {}
                },
                CommandReply::Notify(r) => out.extend(&r.error_descriptor),
                CommandReply::ServiceChange(r) => {
                    if let ServiceChangeResult::ErrorDescriptor(e) = &r.service_change_result {
                        out.push(e);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

fn audit_errors(params: &[AuditReturnParameter]) -> impl Iterator<Item = &ErrorDescriptor> {
    params.iter().filter_map(|p| match p {
        AuditReturnParameter::Error(e) => Some(e),
        _ => None,
    })
}

fn describe(e: &ErrorDescriptor) -> String {
    match &e.error_text {
        Some(t) => format!("error {} ({t})", e.error_code),
        None => format!("error {}", e.error_code),
    }
}

/// The controller's answer: [`build::default_replies`], with our mid as
/// the ServiceChangeReply's MgcId, as Erlang/OTP's example controller
/// (megaco_simple_mgc) answers a registration.
fn mgc_replies(actions: &[ActionRequest], mid: &Mid) -> TransactionResult {
    let mut result = build::default_replies(actions);
    if let TransactionResult::ActionReplies(replies) = &mut result {
        for r in replies {
            for c in &mut r.command_reply {
                if let CommandReply::ServiceChange(r) = c {
                    if let ServiceChangeResult::ServiceChangeResParms(p) =
                        &mut r.service_change_result
                    {
                        p.service_change_mgc_id = Some(mid.clone());
                    }
                }
            }
        }
    }
    result
}

// ---------------------------------------------------------------- mgc

/// Runs `megaco mgc`.
pub fn mgc(args: MgcArgs) -> Result<ExitCode> {
    runtime()?.block_on(run_mgc(args))
}

async fn run_mgc(args: MgcArgs) -> Result<ExitCode> {
    let c = &args.common;
    let encoding = c.encoding.unwrap_or(WireEncoding::Pretty);
    let listen = args.listen.unwrap_or(SocketAddr::new(
        IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        encoding.default_port(),
    ));
    let mid = c.mid.clone().unwrap_or_else(|| domain("mgc"));
    let version = c.version.unwrap_or(1);
    let mut config = config(mid.clone(), version, encoding, None);
    config.max_pdu_size = args
        .max_pdu_size
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let printer = Printer {
        pretty: c.pretty,
        version,
    };
    // Installed before the first line is printed, so that a Ctrl-C
    // right after it is caught.
    let ctrl_c = interrupt().context("installing the Ctrl-C handler")?;
    let (tx, mut rx) = mpsc::unbounded_channel::<Inbound>();
    let transport;
    // Kept alive while serving.
    let mut _endpoint = None;
    if c.tcp {
        let listener = tcp::Listener::bind(listen, config)
            .await
            .with_context(|| format!("listening on tcp {listen}"))?;
        let local = listener.local_addr()?;
        transport = ("tcp", local);
        tokio::spawn(async move {
            loop {
                match listener.accept().await {
                    Ok((conn, incoming)) => {
                        eprintln!("{} connected", conn.peer_addr());
                        tokio::spawn(forward(incoming, tx.clone()));
                    }
                    Err(e) => {
                        eprintln!("megaco: accept: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
        });
    } else {
        let (endpoint, incoming) = udp::bind(listen, config)
            .await
            .with_context(|| format!("listening on udp {listen}"))?;
        transport = ("udp", endpoint.local_addr());
        _endpoint = Some(endpoint);
        tokio::spawn(forward(incoming, tx));
    }
    println!("listening on {} {}", transport.0, transport.1);
    eprintln!(
        "mid {}, {} v{version}; Ctrl-C to stop",
        mid_text(&mid),
        encoding.name()
    );

    let mut served: u64 = 0;
    tokio::pin!(ctrl_c);
    loop {
        tokio::select! {
            () = &mut ctrl_c => {
                eprintln!("interrupted after {served} requests");
                break;
            }
            item = rx.recv() => match item {
                None => break,
                Some(Inbound::Request(req)) => {
                    // Returns once the reply is on its way: the process
                    // may exit right after the last one.
                    answer(req, &mid, &printer).await;
                    served += 1;
                    if args.count == Some(served) {
                        break;
                    }
                }
                Some(Inbound::Event { peer, event }) => eprintln!("{peer}: {event:?}"),
                Some(Inbound::Closed { peer, error: None }) => eprintln!("{peer} closed"),
                Some(Inbound::Closed { peer, error: Some(e) }) => eprintln!("{peer} closed: {e}"),
                Some(_) => {}
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Resolves on Ctrl-C (SIGINT); the handler is in place on return.
fn interrupt() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut sigint = signal(SignalKind::interrupt())?;
        Ok(async move {
            sigint.recv().await;
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

async fn forward(mut incoming: megaco_stack::Incoming, tx: mpsc::UnboundedSender<Inbound>) {
    while let Some(item) = incoming.recv().await {
        if tx.send(item).is_err() {
            return;
        }
    }
}

async fn answer(req: IncomingRequest, mid: &Mid, printer: &Printer) {
    let (peer, id) = (req.peer(), req.transaction_id());
    let from = format!("{peer} {}", mid_text(req.mid()));
    printer.request("<-", from, id, req.actions());
    let result = mgc_replies(req.actions(), mid);
    printer.reply("->", peer, id, &result);
    if let Err(e) = req.reply(result).await {
        eprintln!("megaco: reply {id} to {peer}: {e}");
    }
}

// ---------------------------------------------------------------- mg, send

/// What came of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Replied,
    ErrorReply,
    Failed,
    NoReply,
}

impl Outcome {
    fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Replied => ExitCode::SUCCESS,
            Outcome::ErrorReply => ExitCode::from(EXIT_ERROR_REPLY),
            Outcome::Failed => ExitCode::from(EXIT_FAILED),
            Outcome::NoReply => ExitCode::from(EXIT_NO_REPLY),
        }
    }
}

/// A connection to the peer, and what is needed to report on it.
struct Client {
    conn: Connection,
    wait: Duration,
    transport: &'static str,
}

/// Connects over TCP, or binds a UDP socket towards `remote`.
async fn open(
    common: &Common,
    local: Option<SocketAddr>,
    remote: SocketAddr,
    config: Config,
) -> std::result::Result<Client, String> {
    let wait = total_wait(&config.request_timer);
    if common.tcp {
        match tcp::connect(remote, config).await {
            Ok((conn, _incoming)) => Ok(Client {
                conn,
                wait,
                transport: "tcp",
            }),
            Err(e) => Err(format!("cannot connect to {remote} over TCP: {e}")),
        }
    } else {
        let local = local.unwrap_or_else(|| any_local(remote));
        match udp::connect(local, remote, config).await {
            Ok((conn, _incoming)) => Ok(Client {
                conn,
                wait,
                transport: "udp",
            }),
            Err(e) => Err(format!("cannot bind udp {local}: {e}")),
        }
    }
}

impl Client {
    /// Sends a request; on failure reports it on stderr (`what` names the
    /// request) and says how it ended.
    async fn send(
        &self,
        what: &str,
        actions: Vec<ActionRequest>,
    ) -> std::result::Result<megaco_stack::OutgoingRequest, Outcome> {
        self.conn
            .send_request(actions)
            .await
            .map_err(|e| self.failed(what, e))
    }

    /// Waits for the reply to a request sent, prints it, reports errors
    /// on stderr.
    async fn finish(
        &self,
        request: megaco_stack::OutgoingRequest,
        printer: &Printer,
        json: bool,
    ) -> Outcome {
        let peer = self.conn.peer_addr();
        let id = request.transaction_id();
        match request.await {
            Ok(result) => {
                if json {
                    let line = serde_json::json!({
                        "peer": peer.to_string(),
                        "reply": reply(id, &result),
                    });
                    println!("{line}");
                } else {
                    printer.reply("<-", peer, id, &result);
                }
                let errors = reply_errors(&result);
                for e in &errors {
                    eprintln!("megaco: transaction {id}: {peer} answered {}", describe(e));
                }
                if errors.is_empty() {
                    Outcome::Replied
                } else {
                    Outcome::ErrorReply
                }
            }
            Err(e) => self.failed(&format!("transaction {id}"), e),
        }
    }

    /// Reports a request that got no reply.
    fn failed(&self, what: &str, e: megaco_stack::Error) -> Outcome {
        let peer = self.conn.peer_addr();
        match e {
            megaco_stack::Error::Timeout => {
                eprintln!(
                    "megaco: {what}: no reply from {peer} over {} within {:?} (timed out)",
                    self.transport, self.wait
                );
                Outcome::NoReply
            }
            megaco_stack::Error::Encode(e) => {
                eprintln!("megaco: {what}: cannot encode the request: {e}");
                Outcome::Failed
            }
            megaco_stack::Error::TooManyOutstanding(n) => {
                eprintln!("megaco: {what}: not sent, {n} requests already await a reply");
                Outcome::Failed
            }
            e => {
                eprintln!("megaco: {what}: no reply from {peer}: {e}");
                Outcome::NoReply
            }
        }
    }
}

/// Runs `megaco mg`.
pub fn mg(args: MgArgs) -> Result<ExitCode> {
    runtime()?.block_on(run_mg(args))
}

async fn run_mg(args: MgArgs) -> Result<ExitCode> {
    let c = &args.common;
    let encoding = c.encoding.unwrap_or(WireEncoding::Pretty);
    let remote = resolve(&args.mgc, encoding.default_port()).await?;
    let mid = c.mid.clone().unwrap_or_else(|| domain("mg"));
    let version = c.version.unwrap_or(1);
    let config = config(mid, version, encoding, Some(&args.timers));
    let printer = Printer {
        pretty: c.pretty,
        version,
    };
    let client = match open(c, args.local, remote, config).await {
        Ok(client) => client,
        Err(msg) => {
            eprintln!("megaco: {msg}");
            return Ok(Outcome::NoReply.exit_code());
        }
    };

    let mut requests = vec![build::service_change(
        TerminationId::root(),
        ServiceChangeMethod::Restart,
        "901 mg col boot",
    )];
    for t in &args.notify {
        requests.push(build::notify(
            ContextId::NULL,
            TerminationId::new(t),
            1,
            &args.event,
        ));
    }
    // One request at a time: each notify after the registration's reply.
    for (n, action) in requests.into_iter().enumerate() {
        let actions = vec![action];
        let outcome = match client.send("request", actions.clone()).await {
            Ok(request) => {
                printer.request("->", remote, request.transaction_id(), &actions);
                client.finish(request, &printer, false).await
            }
            Err(outcome) => outcome,
        };
        if outcome != Outcome::Replied {
            if n == 0 {
                eprintln!("megaco: registration with {remote} failed");
            }
            return Ok(outcome.exit_code());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `megaco send`.
pub fn send(args: SendArgs) -> Result<ExitCode> {
    runtime()?.block_on(run_send(args))
}

/// The first transaction id the stack gives `send`'s requests.
fn send_first_id(requests: &[TransactionRequest]) -> u32 {
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

async fn run_send(args: SendArgs) -> Result<ExitCode> {
    let (name, bytes) = crate::read_input(Some(&args.file))?;
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
    if others > 0 {
        eprintln!("megaco: {name}: {others} transactions that are not requests are not sent");
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
    let mut config = config(mid, version, encoding, Some(&args.timers));
    // On a fresh connection the stack numbers requests from min_trans_id
    // up: the file's first id, when the rest fit after it.
    config.min_trans_id = send_first_id(&requests);
    let printer = Printer {
        pretty: c.pretty,
        version,
    };
    let client = match open(c, args.local, remote, config).await {
        Ok(client) => client,
        Err(msg) => {
            eprintln!("megaco: {msg}");
            return Ok(Outcome::NoReply.exit_code());
        }
    };
    // All the requests go out at once; the replies are taken in the file's
    // order.
    let mut sent = Vec::with_capacity(requests.len());
    for r in requests {
        let what = format!("transaction {} of {name}", r.transaction_id);
        let request = client.send(&what, r.actions.to_vec()).await;
        if let Ok(request) = &request {
            let id = request.transaction_id();
            if id != r.transaction_id {
                eprintln!("megaco: {what} is sent as transaction {id}");
            }
        }
        sent.push(request);
    }
    let mut worst = Outcome::Replied;
    for request in sent {
        let outcome = match request {
            Ok(request) => client.finish(request, &printer, args.json).await,
            Err(outcome) => outcome,
        };
        worst = worst.max(outcome);
    }
    Ok(worst.exit_code())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mids_parse_as_text_writes_them() {
        let mid = parse_mid("[10.0.0.1]:2944").unwrap();
        assert_eq!(
            mid,
            Mid::Ip4(Ip4Address {
                address: [10, 0, 0, 1],
                port: Some(2944)
            })
        );
        assert_eq!(mid_text(&mid), "[10.0.0.1]:2944");
        assert_eq!(
            parse_mid("<mg.example.net>").unwrap(),
            domain("mg.example.net")
        );
        assert!(parse_mid("").is_err());
        assert!(parse_mid("[1.2.3.4] T=1{}").is_err());
        assert!(parse_mid("[1.2.3").is_err());
    }

    #[test]
    fn timeout_is_the_total_wait() {
        let t = Timers {
            timeout: Some(Duration::from_secs(2)),
            resends: Some(3),
        };
        let c = config(domain("mg"), 1, WireEncoding::Pretty, Some(&t));
        assert_eq!(c.request_timer.initial, Duration::from_millis(500));
        assert_eq!(total_wait(&c.request_timer), Duration::from_secs(2));
        assert_eq!(c.long_request_timer, Duration::from_secs(2));
        let default = config(domain("mg"), 1, WireEncoding::Pretty, None);
        assert_eq!(total_wait(&default.request_timer), Duration::from_secs(105));
    }

    #[test]
    fn mgc_names_itself_in_service_change_replies() {
        let sc = build::service_change(TerminationId::root(), ServiceChangeMethod::Restart, "901");
        let result = mgc_replies(&[sc], &domain("mgc"));
        assert!(reply_errors(&result).is_empty());
        let TransactionResult::ActionReplies(r) = &result else {
            panic!("{result:?}")
        };
        let CommandReply::ServiceChange(reply) = &r[0].command_reply[0] else {
            panic!("{r:?}")
        };
        let ServiceChangeResult::ServiceChangeResParms(p) = &reply.service_change_result else {
            panic!("{r:?}")
        };
        assert_eq!(p.service_change_mgc_id, Some(domain("mgc")));
    }

    #[test]
    fn errors_are_found_at_every_level() {
        let notify = build::notify(ContextId::NULL, TerminationId::root(), 1, "al/of");
        let ok = build::default_replies(&[notify]);
        assert!(reply_errors(&ok).is_empty());
        let codes = |r: &TransactionResult| -> Vec<u16> {
            reply_errors(r).iter().map(|e| e.error_code).collect()
        };

        // The transaction.
        assert_eq!(
            codes(&TransactionResult::Error(error(501, "Not Implemented"))),
            [501]
        );
        // An action, a command and an audited value.
        let mut action = build::notify_reply(ContextId(1), vec![TerminationId::root()]);
        action.error_descriptor = Some(error(422, ""));
        if let CommandReply::Notify(n) = &mut action.command_reply[0] {
            n.error_descriptor = Some(error(431, ""));
        }
        action
            .command_reply
            .push(CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                termination_ids: vec![TerminationId::root()].into(),
                service_change_result: ServiceChangeResult::ErrorDescriptor(error(502, "")),
            })));
        action.command_reply.push(CommandReply::Modify(AmmsReply {
            termination_ids: vec![TerminationId::root()].into(),
            termination_audit: Some(vec![AuditReturnParameter::Error(error(443, ""))]),
        }));
        action
            .command_reply
            .push(CommandReply::AuditValue(AuditReply::Error(error(410, ""))));
        let result = TransactionResult::ActionReplies(vec![action].into());
        assert_eq!(codes(&result), [422, 431, 502, 443, 410]);
    }

    #[test]
    fn compact_lines_have_no_header() {
        let p = Printer {
            pretty: false,
            version: 1,
        };
        let line = p.text(Transaction::Reply(reply(
            7,
            &TransactionResult::Error(error(501, "Not Implemented")),
        )));
        assert!(line.starts_with("P=7{"), "{line}");
        assert!(!line.contains('\n'));
    }
}
