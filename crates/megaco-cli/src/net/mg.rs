//! `megaco mg`: a gateway that registers, notifies, runs a scenario
//! script, and answers the controller's requests meanwhile (or stays up
//! answering them with `--stay`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use megaco::codec::Encoding;
use megaco::model::*;
use megaco_stack::endpoint::CloseReason;
use megaco_stack::engine::Event;
use megaco_stack::scenario::{Next, Role, Script, TermIdStyle};
use megaco_stack::{build, Inbound, Incoming};
use serde_json::json;
use tokio::sync::mpsc;

use super::client::{self, Client, ClientArgs, Outcome};
use super::log::{addr, Log, LogArgs};
use super::serve::Server;
use super::{
    config, domain, resolve, runtime, stop_signal, Common, EngineArgs, Tally, WireEncoding,
    MID_HELP,
};

/// `megaco mg`.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("mid", |a| a.help(MID_HELP.to_string() + " [default: <mg>]")))]
pub struct MgArgs {
    /// The controller: `HOST[:PORT]` or `IP[:PORT]` [port default: 2944
    /// for text, 2945 for binary].
    #[arg(long, value_name = "ADDR")]
    pub mgc: String,
    /// After registering, send a Notify of this termination (repeatable).
    #[arg(long, value_name = "TERMID")]
    pub notify: Vec<String>,
    /// The event each Notify reports.
    #[arg(long, value_name = "NAME", default_value = "al/of")]
    pub event: String,
    /// Run this scenario file's steps after registering, and answer the
    /// controller by its rules (see the README); the exit status tells
    /// whether every step passed.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// After the requests (and script), stay up answering the
    /// controller's requests until SIGINT or SIGTERM.
    #[arg(long)]
    pub stay: bool,
    #[command(flatten)]
    pub client: ClientArgs,
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub log: LogArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Refuses `--notify` and `--event` values that cannot be sent in
/// `encoding`, before anything is: found after registering, they would
/// leave the controller with a gateway that never reports.
fn check_notifies(args: &MgArgs, mid: &Mid, version: u8, encoding: &Encoding) -> Result<()> {
    for t in &args.notify {
        let n = build::notify(
            ContextId::NULL,
            TerminationId::new(t.as_str()),
            1,
            &args.event,
        );
        let msg = MegacoMessage {
            auth_header: None,
            mess: Message {
                version,
                mid: mid.clone(),
                body: MessageBody::Transactions(
                    vec![Transaction::Request(TransactionRequest {
                        transaction_id: 1,
                        actions: vec![n].into(),
                    })]
                    .into(),
                ),
            },
        };
        if let Err(e) = encoding.encode(&msg) {
            anyhow::bail!(
                "--notify {t:?} --event {:?}: cannot be sent in {encoding}: {e}",
                args.event
            );
        }
    }
    Ok(())
}

/// Runs `megaco mg`.
pub fn mg(args: MgArgs) -> Result<ExitCode> {
    runtime()?.block_on(run(args))
}

async fn run(args: MgArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let c = &args.common;
    let scenario = super::scenario(args.scenario.as_ref())?;
    let encoding = c.encoding.unwrap_or(WireEncoding::Pretty);
    let remote = resolve(&args.mgc, encoding.default_port()).await?;
    let mid = c.mid.clone().unwrap_or_else(|| domain("mg"));
    let version = c.version.unwrap_or(1);
    check_notifies(&args, &mid, version, &encoding.encoding(c.dialect))?;
    let config = config(mid, version, encoding.encoding(c.dialect), &args.engine)?;
    let (log, writer) = Log::start(&args.log)?;
    let tally = Arc::new(Tally::default());
    let stop = stop_signal().context("installing the signal handlers")?;
    tokio::pin!(stop);
    let opened = client::open_unless_stopped(
        "mg",
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
    let style = if encoding.is_binary() {
        TermIdStyle::Binary
    } else {
        TermIdStyle::Text
    };
    let server = Server::new(
        log.clone(),
        tally.clone(),
        Role::Mg,
        scenario.rules.clone(),
        64,
    );
    let (requests_tx, mut requests) = mpsc::channel(64);
    let every = args.engine.report_interval.0.max(Duration::from_millis(1));
    let mut answering = tokio::spawn(answer(incoming, server, style, every, errors, requests_tx));

    let mut script = Script::new(scenario.steps.clone()).repeat(scenario.mg.repeat);
    let work = async {
        if scenario.mg.register || args.scenario.is_none() {
            let sc = build::service_change(
                TerminationId::root(),
                ServiceChangeMethod::Restart,
                &scenario.mg.reason,
            );
            let outcome = call(&mut client, "registration", vec![sc]).await.0;
            if outcome != Outcome::Replied {
                client.warn(format!("megaco: registration with {remote} failed"));
                return outcome;
            }
        }
        for t in &args.notify {
            let n = build::notify(
                ContextId::NULL,
                TerminationId::new(t.as_str()),
                1,
                &args.event,
            );
            let outcome = call(&mut client, "notify", vec![n]).await.0;
            if outcome != Outcome::Replied {
                return outcome;
            }
        }
        run_script(&mut client, &mut script, &mut requests).await
    };
    let (outcome, ended) = tokio::select! {
        sig = &mut stop => (Outcome::Failed, format!("mg: stopped by {sig}")),
        outcome = work => {
            let how = if outcome == Outcome::Replied { "done" } else { "failed" };
            (outcome, format!("mg: {how}"))
        }
    };
    let ended = if args.stay && outcome == Outcome::Replied {
        log.notice(
            "staying",
            || "mg: answering the controller until SIGINT or SIGTERM".into(),
            || json!({}),
        );
        tokio::select! {
            sig = &mut stop => format!("mg: stopped by {sig}"),
            _ = &mut answering => "mg: the connection closed".to_string(),
        }
    } else {
        ended
    };
    // TCP: what we wrote last (acks, SegmentReplies) reaches the peer
    // before the connection closes.
    let _ = tokio::time::timeout(Duration::from_secs(5), client.conn.close()).await;
    answering.abort();
    tally.summary(&log, &ended, started);
    writer.finish(log, Duration::from_secs(1));
    Ok(outcome.exit_code())
}

/// Sends one request and waits for its reply.
async fn call(
    client: &mut Client,
    what: &str,
    actions: Vec<ActionRequest>,
) -> (Outcome, Option<TransactionResult>) {
    match client.send(what, actions).await {
        Ok(request) => client.finish(request).await,
        Err(outcome) => (outcome, None),
    }
}

/// Runs the scenario's steps; the outcome of the first that fails.
async fn run_script(
    client: &mut Client,
    script: &mut Script,
    requests: &mut mpsc::Receiver<Vec<ActionRequest>>,
) -> Outcome {
    let default_wait = Duration::from_secs(30);
    loop {
        let next = match script.next_step() {
            Ok(n) => n,
            Err(f) => return failed(client, &f, Outcome::Failed),
        };
        match next {
            Next::Done => return Outcome::Replied,
            Next::Wait(d) => tokio::time::sleep(d).await,
            Next::Send { actions, timeout } => {
                let call = call(client, "step", actions);
                let result = match timeout {
                    Some(t) => tokio::time::timeout(t, call)
                        .await
                        .unwrap_or((Outcome::NoReply, None)),
                    None => call.await,
                };
                let checked = match result {
                    (_, Some(result)) => script
                        .replied(&result)
                        .map_err(|f| (f, Outcome::ErrorReply)),
                    (outcome, None) => script.no_reply(&format!("{outcome:?}")).map_err(|f| {
                        (
                            f,
                            if outcome == Outcome::Failed {
                                Outcome::Failed
                            } else {
                                Outcome::NoReply
                            },
                        )
                    }),
                };
                if let Err((f, outcome)) = checked {
                    return failed(client, &f, outcome);
                }
            }
            Next::Receive { timeout } => {
                let wait = timeout.unwrap_or(default_wait);
                let deadline = tokio::time::Instant::now() + wait;
                loop {
                    match tokio::time::timeout_at(deadline, requests.recv()).await {
                        Ok(Some(actions)) => {
                            if script.received(&actions) {
                                break;
                            }
                        }
                        Ok(None) | Err(_) => {
                            let f = script.receive_timed_out();
                            return failed(client, &f, Outcome::NoReply);
                        }
                    }
                }
            }
        }
    }
}

fn failed(client: &Client, f: &megaco_stack::scenario::Failure, outcome: Outcome) -> Outcome {
    client.warn(format!("megaco: scenario failed at {f}"));
    outcome
}

/// Answers the controller's requests and logs events (what was not
/// logged is reported once `every`); hands message-level errors to the
/// requesting side and requests to the script.
async fn answer(
    mut incoming: Incoming,
    mut server: Server,
    style: TermIdStyle,
    every: Duration,
    errors: mpsc::Sender<ErrorDescriptor>,
    requests: mpsc::Sender<Vec<ActionRequest>>,
) {
    let (log, _) = server.parts();
    let mut report = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        let item = tokio::select! {
            item = incoming.recv() => match item {
                Some(item) => item,
                None => break,
            },
            _ = report.tick() => {
                server.report(every);
                continue;
            }
        };
        match item {
            Inbound::Request(req) => {
                let _ = requests.try_send(req.actions().to_vec());
                server.request(req, style);
            }
            Inbound::Event { peer, event } => {
                server.event(peer.addr, &event);
                if let Event::MessageError { error } = event {
                    let _ = errors.try_send(error);
                }
            }
            Inbound::Endpoint(ev) => server.endpoint(&ev),
            // We closed it ourselves, at the end of the run.
            Inbound::Closed {
                error: Some(CloseReason::Requested),
                ..
            } => break,
            Inbound::Closed { peer, error } => {
                let why = error.as_ref().map(|e| format!(": {e}")).unwrap_or_default();
                log.warn(
                    "closed",
                    || format!("megaco: {peer} closed the connection{why}"),
                    || match &error {
                        Some(r) => json!({ "peer": addr(peer.addr), "reason": r.to_string() }),
                        None => json!({ "peer": addr(peer.addr) }),
                    },
                );
                break;
            }
            _ => {}
        }
    }
    server.drain(Duration::from_secs(5)).await;
}
