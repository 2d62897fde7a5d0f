//! Memory beside time: a controller's resident set size with 1, 1,000 and
//! 10,000 registered gateways, ours (`megaco_stack`'s UDP endpoint, as
//! `megaco mgc` runs it, in a process of its own) and Erlang/OTP's (the
//! escript's controller), each a fresh process per count.

use megaco::codec::Encoding;
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context as _};
use megaco::model::Mid;
use megaco_stack::engine::Config;
use serde::Serialize;

use crate::farm::{Farm, FarmConfig};
use crate::otp::{self, OtpNode};

/// RSS at one number of registered gateways.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct MemoryRow {
    /// Registered gateways.
    pub mgs: usize,
    /// Our controller's RSS, bytes.
    pub ours_bytes: u64,
    /// OTP's, bytes (when measured).
    pub otp_bytes: Option<u64>,
}

/// RSS rows and the growth per gateway.
#[derive(Debug, Clone, Serialize)]
pub struct Memory {
    /// One row per count.
    pub rows: Vec<MemoryRow>,
    /// (RSS at the most − RSS at the fewest) / (most − fewest), ours.
    pub ours_bytes_per_mg: f64,
    /// The same, OTP's.
    pub otp_bytes_per_mg: Option<f64>,
}

/// Serves registrations with `megaco_stack`'s UDP endpoint on an
/// ephemeral loopback port: prints `port N`, answers every request (as
/// [`crate::msg::Gateway`] does: every command of H.248.1), and
/// stops when standard input ends or after ten minutes. Room for 20,000
/// peers.
pub fn serve_stack_mgc(wire: Encoding, version: u8) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let mut config = Config::new(Mid::Device("mgc".into()));
        config.encoding = wire;
        config.version = version;
        config.transport.max_peers = 20_000;
        config.transport.inbound_queue = 16_384;
        let (endpoint, incoming) =
            megaco_stack::udp::bind(SocketAddr::from(([127, 0, 0, 1], 0)), config).await?;
        println!("port\t{}", endpoint.local_addr().port());
        std::io::stdout().flush()?;
        let stdin_closed = tokio::task::spawn_blocking(|| {
            let mut s = String::new();
            while std::io::stdin()
                .read_line(&mut s)
                .map(|n| n > 0)
                .unwrap_or(false)
            {
                s.clear();
            }
        });
        // Every command answered (Add on `$` gets a new context), as a
        // gateway would: the controller's side of a load run.
        let answers = std::sync::Mutex::new(crate::msg::Gateway::new(crate::farm::PREFIX, 1));
        let serve = incoming.serve(move |_, actions| {
            let result = match answers.lock() {
                Ok(mut g) => g.answer(&actions),
                Err(_) => megaco_stack::build::default_replies(&actions),
            };
            async move { result }
        });
        tokio::select! {
            _ = stdin_closed => {}
            () = serve => {}
            () = tokio::time::sleep(Duration::from_secs(600)) => {}
        }
        drop(endpoint);
        Ok(())
    })
}

/// Measures RSS at each of `counts` registered gateways. `ours` is the
/// command that runs [`serve_stack_mgc`] (program and arguments); with
/// `otp`, OTP's controller too.
pub fn measure(
    ours: (&Path, &[&str]),
    counts: &[usize],
    wire: Encoding,
    version: u8,
    otp: bool,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<Memory> {
    let mut rows = Vec::new();
    for &n in counts {
        progress(&format!("memory: our controller with {n} gateways"));
        let ours_bytes = ours_rss(ours, n, wire.clone(), version)?;
        let otp_bytes = if otp {
            progress(&format!("memory: OTP's controller with {n} gateways"));
            let node = OtpNode::mgc(
                0,
                false,
                crate::otp_codec(&wire)?,
                version,
                Duration::from_secs(300),
            )?;
            let to = SocketAddr::from(([127, 0, 0, 1], node.port));
            register(to, n, wire.clone(), version)?;
            node.rss()
        } else {
            None
        };
        rows.push(MemoryRow {
            mgs: n,
            ours_bytes,
            otp_bytes,
        });
    }
    let per = |f: &dyn Fn(&MemoryRow) -> Option<u64>| -> Option<f64> {
        let (a, b) = (rows.first()?, rows.last()?);
        (b.mgs > a.mgs).then_some(())?;
        Some((f(b)? as f64 - f(a)? as f64) / (b.mgs - a.mgs) as f64)
    };
    Ok(Memory {
        ours_bytes_per_mg: per(&|r| Some(r.ours_bytes)).unwrap_or(0.0),
        otp_bytes_per_mg: per(&|r| r.otp_bytes),
        rows,
    })
}

fn ours_rss(cmd: (&Path, &[&str]), n: usize, wire: Encoding, version: u8) -> anyhow::Result<u64> {
    let mut child = Command::new(cmd.0)
        .args(cmd.1)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("running {}", cmd.0.display()))?;
    let result = (|| {
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().context("stdout")?).read_line(&mut line)?;
        let port: u16 = line
            .trim()
            .strip_prefix("port\t")
            .context("our controller did not say its port")?
            .parse()?;
        register(
            SocketAddr::from(([127, 0, 0, 1], port)),
            n,
            wire.clone(),
            version,
        )?;
        otp::rss(child.id()).context("reading the controller's RSS")
    })();
    drop(child.stdin.take());
    std::thread::sleep(Duration::from_millis(50));
    let _ = child.kill();
    let _ = child.wait();
    result
}

/// Registers `n` simulated gateways with `to` and leaves time for the
/// controller to settle.
fn register(to: SocketAddr, n: usize, wire: Encoding, version: u8) -> anyhow::Result<()> {
    let farm = Farm::start(FarmConfig {
        mgs: n,
        threads: 1,
        wire,
        version,
        register_to: vec![to],
        ..FarmConfig::default()
    })?;
    let ok = farm.wait_registered(Duration::from_secs(30) + Duration::from_millis(2 * n as u64));
    let got = farm.registered();
    std::thread::sleep(Duration::from_millis(300));
    if !ok {
        bail!("only {got} of {n} gateways registered with {to}");
    }
    // The farm stays until the measurement is read by the caller's next
    // step; dropping it here only closes our sockets, not the peers'
    // state in the controller.
    farm.stop();
    Ok(())
}
