//! The `megaco` command-line tool: convert between encodings, check
//! messages, transform a corpus, run the benchmark comparison, and talk
//! to peers over UDP or TCP (`mgc`, `mg`, `send`).
#![forbid(unsafe_code)]

mod codec;
mod fanout;
mod load;
mod net;
mod pcap;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use codec::{BinaryOptions, Input, Output};

/// Megaco/H.248 messages: convert, check, transform and benchmark; act as a
/// controller or gateway, or send a message to a peer.
#[derive(Parser)]
#[command(name = "megaco", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Convert one message from one encoding to another.
    ///
    /// Reads FILE (or standard input) and writes the message in the
    /// encoding given by --to to OUT (or standard output). Text output
    /// (pretty, compact, json) ends with a newline, as text tools' output
    /// does; --exact writes the encoder's bytes alone (what Erlang/OTP's
    /// encoders write, without the newline). Binary output is not written
    /// to a terminal unless --force.
    #[command(
        mut_arg("from", |a| a.help(format!(
            "The input encoding: auto (recognised by its signature; JSON by its opening `{{\"`), \
             text, json (the model, as --to json writes it), or one of: {}",
            encoding_names()
        ))),
        mut_arg("to", |a| a.help(format!(
            "The output encoding: json (the decoded model), or one of: {}",
            encoding_names()
        ))),
    )]
    Convert {
        #[arg(long, value_name = "ENCODING", default_value = "auto")]
        from: Input,
        #[arg(long, value_name = "ENCODING")]
        to: Output,
        /// Where to write (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Write the encoder's bytes exactly: no newline after text.
        #[arg(long)]
        exact: bool,
        /// Write binary output to a terminal anyway.
        #[arg(short, long)]
        force: bool,
        /// The input message (default or `-`: standard input).
        file: Option<PathBuf>,
        #[command(flatten)]
        binary: BinaryOptions,
    },
    /// Decode every FILE and report those that fail.
    ///
    /// Each file holds one message in any encoding (text, BER, PER or the
    /// native format, recognised by their signatures, or the JSON form
    /// `convert --to json` writes), or is an OTP corpus
    /// term file (`{Codec, [{Name, <<"...">>}]}.`) whose messages are each
    /// checked. Prints one `file:line:col: message` line per failure (for
    /// binary input `file:offset: message`), then the input around the
    /// error with a caret under it (the line for text, a 16-byte hex dump
    /// for binary), and exits 1 if any failed (a file that cannot be read
    /// fails too: `file: cannot read: why`).
    Check {
        /// The files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one line per message that decodes, too.
        #[arg(short, long)]
        verbose: bool,
        #[command(flatten)]
        binary: BinaryOptions,
    },
    /// Encode a corpus with every codec config: one directory per
    /// encoding, one file per message.
    ///
    /// With one argument, OUTDIR, the bundled corpus (Erlang/OTP's
    /// time_test.msgs, 149 messages) is written. Messages that do not
    /// decode, or that an encoder refuses, are named and left out; the
    /// exit status is then 1.
    #[command(override_usage = "megaco transform [OPTIONS] [CORPUS] <OUTDIR>")]
    Transform(megaco_bench::TransformArgs),
    /// Measure the codecs on a corpus, side by side with Erlang/OTP's.
    ///
    /// Without a subcommand: a quick comparison (about 12 s) on the
    /// bundled corpus, including OTP's codecs when `escript` and OTP's
    /// megaco are found.
    /// `meas` mirrors OTP's megaco_codec_meas (table, TSV, JSON, charts),
    /// `mstone` its MStone throughput test.
    Bench(load::BenchArgs),
    /// Run a controller (MGC) that answers every request.
    ///
    /// Listens on UDP and TCP, on the text port (2944) and the binary port
    /// (2945, BER and PER) at once, each peer answered in its own encoding
    /// and its request's version (--listen, --encoding, --tcp, --udp to
    /// choose).
    /// Answers every command of H.248.1 sensibly (a ServiceChange with this
    /// controller's mid as MgcId, an Add on context `$` with a new context
    /// and termination ids, ...), or as a --scenario file's rules say.
    /// Logs `listening on udp|tcp ADDR KIND` for each socket, then each
    /// request received (`<-`, the sender's address and mid) and reply sent
    /// (`->`), one timestamped compact line each (or --pretty, --json).
    /// Runs until SIGINT, SIGTERM or --count requests, then prints a
    /// summary of counters on standard error.
    Mgc(net::MgcArgs),
    /// Run a gateway (MG): register with a controller, notify, run a script.
    ///
    /// Sends a ServiceChange (Restart, "901 mg col boot") on ROOT, then one
    /// Notify per --notify, then the steps of a --scenario file, one at a
    /// time, printing each request (`->`) and reply (`<-`), and answers the
    /// controller's requests meanwhile (--stay: until SIGINT or SIGTERM).
    /// Exits 0 when all are answered without error (and every step
    /// passed), 1 on an error reply or a failed step, 3 on no reply
    /// (timeout, connection refused).
    Mg(net::MgArgs),
    /// Send the transaction requests of a message file to a peer.
    ///
    /// FILE holds one message in any encoding `convert` reads. Each of its
    /// transaction requests is sent as one request, all at once, in file
    /// order; other transactions are skipped. The stack numbers requests
    /// itself: from the first request's transaction id up, so a file with
    /// one request keeps its id; a request sent under another id is named
    /// on standard error. The message's mid and version are used
    /// unless --mid/--version say otherwise, its encoding unless
    /// --encoding does. Prints each reply (`<-`) in file order; exits 0 when all are
    /// answered without error, 1 if a reply carries an error descriptor, 3
    /// if one got no reply, 2 for a file without requests.
    Send(net::SendArgs),
    /// Read the H.248 messages of packet captures (pcap, pcapng).
    ///
    /// UDP, TCP (reassembled, TPKT framed) and SCTP (PPID 7), over IPv4
    /// and IPv6 (fragments reassembled); H.248 is found on ports 2944,
    /// 2945 and --port, and by its signature elsewhere. Prints one line
    /// per message (packet, time, source -> destination, transport,
    /// encoding, compact text), or JSON Lines (--json), or the
    /// transaction summary (--stats); --flow draws the ladder diagram.
    /// Messages that do not decode and packets that cannot be read are
    /// listed with their packet number. Exits 1 if there were any.
    Pcap(pcap::PcapArgs),
    /// Load a controller with simulated gateways (or gateways with a
    /// controller), sipp-style: live progress, throughput, latency
    /// percentiles, charts.
    ///
    /// N gateways, each with its own socket and mid, register with the
    /// controller at --mgc and run calls (by default Add, Modify, Notify,
    /// Subtract) at --rate transactions per second in all, or as fast as
    /// answers come, for --duration seconds. Prints sent, answered,
    /// failed and timed-out transactions, throughput and latency
    /// p50/p90/p99/p99.9/max; --out writes charts and JSON. Loopback
    /// targets only, unless --allow-remote. Exit status 3 when nothing was
    /// answered.
    Load(load::LoadArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Convert {
            from,
            to,
            output,
            exact,
            force,
            file,
            binary,
        } => convert(
            &from,
            &to,
            &binary,
            &Destination {
                path: output.as_deref(),
                exact,
                force,
            },
            file.as_deref(),
        )
        .map(|()| ExitCode::SUCCESS),
        Command::Check {
            files,
            verbose,
            binary,
        } => check(&files, verbose, &binary),
        Command::Transform(args) => megaco_bench::run_transform(&args).map(|left_out| {
            if left_out == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }),
        Command::Bench(args) => load::run_bench(args),
        Command::Mgc(args) => net::mgc(args),
        Command::Mg(args) => net::mg(args),
        Command::Send(args) => net::send(args),
        Command::Pcap(args) => pcap::run(args),
        Command::Load(args) => load::run_load(args),
    };
    finish(result)
}

/// The exit status of a command's result. A reader that stops reading
/// our output (`| head`) ends the command quietly, as it ends `cat`.
fn finish(result: Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("megaco: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Whether `e` comes from writing to a pipe whose reader has gone.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The most a file given to `convert`, `check` or `send` may hold: a
/// message is at most 4 MiB (the decoders' default limit), a corpus term
/// file of many messages or a JSON document may be larger. Reading stops
/// here, so that `/dev/zero` or a runaway pipe is refused rather than
/// read until memory runs out.
const MAX_INPUT: u64 = 64 << 20;

fn read_input(file: Option<&Path>) -> Result<(String, Vec<u8>)> {
    match file {
        None => read_stdin(),
        Some(p) if p == Path::new("-") => read_stdin(),
        Some(p) => {
            let name = p.display().to_string();
            let f = std::fs::File::open(p).with_context(|| format!("reading {name}"))?;
            let bytes = read_bounded(f, &name).with_context(|| format!("reading {name}"))?;
            Ok((name, bytes))
        }
    }
}

fn read_stdin() -> Result<(String, Vec<u8>)> {
    let name = "<stdin>".to_string();
    let bytes = read_bounded(std::io::stdin().lock(), &name).context("reading standard input")?;
    Ok((name, bytes))
}

/// All of `r`, if it holds at most [`MAX_INPUT`] bytes.
fn read_bounded(r: impl Read, name: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    r.take(MAX_INPUT + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT {
        anyhow::bail!(
            "{name} holds more than {} MiB: not a message or corpus file",
            MAX_INPUT >> 20
        );
    }
    Ok(bytes)
}

/// The names `--from` and `--to` take, for the help.
fn encoding_names() -> String {
    let slugs: Vec<&str> = megaco::codec::Encoding::named()
        .iter()
        .filter_map(|e| e.slug())
        .collect();
    slugs.join(", ")
}

/// Where `convert` writes, and how.
struct Destination<'a> {
    /// A file, or standard output.
    path: Option<&'a Path>,
    /// No newline after text.
    exact: bool,
    /// Binary to a terminal.
    force: bool,
}

fn convert(
    from: &Input,
    to: &Output,
    binary: &BinaryOptions,
    dest: &Destination,
    file: Option<&Path>,
) -> Result<()> {
    let to = match to {
        Output::Wire(e) => Output::Wire(binary.apply(e.clone())?),
        Output::Json => Output::Json,
    };
    let (name, bytes) = read_input(file)?;
    if codec::looks_like_term_file(&bytes) && matches!(from, Input::Auto) {
        anyhow::bail!(
            "{name}: a corpus term file (many messages), not one message: \
             `megaco check {name}` checks each, `megaco transform {name} OUTDIR` converts them all"
        );
    }
    let (msg, _) = codec::read_message(&bytes, from, binary)
        .map_err(|e| anyhow::anyhow!("{}", e.located(&name)))?;
    let mut out =
        codec::write_message(&msg, &to).with_context(|| format!("encoding {name} as {to}"))?;
    if to.is_text() && !dest.exact && !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    match dest.path {
        Some(p) => std::fs::write(p, &out).with_context(|| format!("writing {}", p.display()))?,
        None => {
            let mut stdout = std::io::stdout().lock();
            if !to.is_text() && !dest.force && std::io::IsTerminal::is_terminal(&stdout) {
                anyhow::bail!(
                    "not writing binary {to} to a terminal: use -o FILE or redirect \
                     standard output (--force writes it anyway)"
                );
            }
            stdout
                .write_all(&out)
                .and_then(|()| stdout.flush())
                .context("writing standard output")?;
        }
    }
    Ok(())
}

fn check(files: &[PathBuf], verbose: bool, binary: &BinaryOptions) -> Result<ExitCode> {
    // Written through a handle, so that a closed pipe is an error that
    // ends the run (see `finish`), not a panic.
    let mut out = std::io::stdout().lock();
    let mut failed = 0usize;
    let mut total = 0usize;
    for path in files {
        // A file that cannot be read fails like one that does not decode;
        // the others are still checked.
        let (name, bytes) = match read_input(Some(path)) {
            Ok(input) => input,
            Err(e) => {
                writeln!(out, "{}: cannot read: {}", path.display(), e.root_cause())?;
                failed += 1;
                total += 1;
                continue;
            }
        };
        let messages: Vec<(String, Vec<u8>)> = if codec::looks_like_term_file(&bytes) {
            match megaco::corpus::parse_term_file(&bytes) {
                Ok(c) => c
                    .messages
                    .into_iter()
                    .map(|m| (format!("{name}[{}]", m.name), m.bytes))
                    .collect(),
                Err(e) => {
                    writeln!(out, "{name}: not a corpus term file: {e}")?;
                    failed += 1;
                    total += 1;
                    continue;
                }
            }
        } else {
            vec![(name, bytes)]
        };
        for (label, bytes) in messages {
            total += 1;
            match codec::read_message(&bytes, &Input::Auto, binary) {
                Ok((_, encoding)) if verbose => {
                    // JSON is read as the model; no wire encoding to name.
                    if codec::looks_like_json(&bytes) {
                        writeln!(out, "{label}: ok (json)")?;
                    } else {
                        writeln!(out, "{label}: ok ({encoding})")?;
                    }
                }
                Ok(_) => {}
                Err(codec::ReadError::Input(e)) => {
                    failed += 1;
                    writeln!(out, "{}", e.located(&label))?;
                    write!(out, "{}", e.snippet(&bytes))?;
                }
                Err(e) => return Err(anyhow::anyhow!("{}", e.located(&label))),
            }
        }
    }
    out.flush()?;
    if verbose || failed > 0 {
        eprintln!("{} of {total} messages decoded", total - failed);
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
