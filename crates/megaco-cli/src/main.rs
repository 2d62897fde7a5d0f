//! The `megaco` command-line tool: convert between encodings, check
//! messages, transform a corpus, run the benchmark comparison, and talk
//! to peers over UDP or TCP (`mgc`, `mg`, `send`).
#![forbid(unsafe_code)]

mod codec;
mod net;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use codec::{BinaryOptions, InputFormat, OutputFormat};

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
    /// encoding given by --to to OUT (or standard output).
    Convert {
        /// The input encoding; `auto` sniffs it from the bytes.
        #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
        from: InputFormat,
        /// The output encoding.
        #[arg(long, value_enum)]
        to: OutputFormat,
        /// Where to write (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The input message (default or `-`: standard input).
        file: Option<PathBuf>,
        #[command(flatten)]
        binary: BinaryOptions,
    },
    /// Decode every FILE and report those that fail.
    ///
    /// Each file holds one message in any encoding, or is an OTP corpus
    /// term file (`{Codec, [{Name, <<"...">>}]}.`) whose messages are each
    /// checked. Prints one `file:line:col: message` line per failure (for
    /// binary input `file:offset: message`), then the input around the
    /// error with a caret under it (the line for text, a 16-byte hex dump
    /// for binary), and exits 1 if any failed.
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
    Transform(megaco_bench::TransformArgs),
    /// Measure the codecs on a corpus, side by side with Erlang/OTP's.
    ///
    /// Without a subcommand: a quick comparison on the bundled corpus,
    /// including OTP's codecs when `escript` and OTP's megaco are found.
    /// `meas` mirrors OTP's megaco_codec_meas (table, TSV, JSON, charts),
    /// `mstone` its MStone throughput test.
    Bench(megaco_bench::BenchArgs),
    /// Run a controller (MGC) that answers every request.
    ///
    /// Listens on UDP and TCP, on the text port (2944) and the binary port
    /// (2945, BER) at once (--listen, --encoding, --tcp, --udp to choose).
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Convert {
            from,
            to,
            output,
            file,
            binary,
        } => convert(from, to, &binary, output.as_deref(), file.as_deref())
            .map(|()| ExitCode::SUCCESS),
        Command::Check {
            files,
            verbose,
            binary,
        } => check(&files, verbose, &binary),
        Command::Transform(args) => megaco_bench::run_transform(&args).map(|()| ExitCode::SUCCESS),
        Command::Bench(args) => megaco_bench::run_bench(&args).map(|()| ExitCode::SUCCESS),
        Command::Mgc(args) => net::mgc(args),
        Command::Mg(args) => net::mg(args),
        Command::Send(args) => net::send(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("megaco: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn read_input(file: Option<&Path>) -> Result<(String, Vec<u8>)> {
    match file {
        None => read_stdin(),
        Some(p) if p == Path::new("-") => read_stdin(),
        Some(p) => {
            let bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
            Ok((p.display().to_string(), bytes))
        }
    }
}

fn read_stdin() -> Result<(String, Vec<u8>)> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("reading standard input")?;
    Ok(("<stdin>".to_string(), bytes))
}

fn convert(
    from: InputFormat,
    to: OutputFormat,
    binary: &BinaryOptions,
    output: Option<&Path>,
    file: Option<&Path>,
) -> Result<()> {
    let cfg = binary.configs()?;
    let (name, bytes) = read_input(file)?;
    let (msg, _) = codec::decode(&bytes, from, &cfg).map_err(|e| anyhow::anyhow!("{name}:{e}"))?;
    let out =
        codec::encode(&msg, to, &cfg).with_context(|| format!("encoding {name} as {to:?}"))?;
    match output {
        Some(p) => std::fs::write(p, &out).with_context(|| format!("writing {}", p.display()))?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(&out)?;
            if to.is_text() && !out.ends_with(b"\n") && std::io::IsTerminal::is_terminal(&stdout) {
                stdout.write_all(b"\n")?;
            }
            stdout.flush()?;
        }
    }
    Ok(())
}

fn check(files: &[PathBuf], verbose: bool, binary: &BinaryOptions) -> Result<ExitCode> {
    let cfg = binary.configs()?;
    let mut failed = 0usize;
    let mut total = 0usize;
    for path in files {
        let (name, bytes) = read_input(Some(path))?;
        let messages: Vec<(String, Vec<u8>)> = if codec::looks_like_term_file(&bytes) {
            match megaco::corpus::parse_term_file(&bytes) {
                Ok(c) => c
                    .messages
                    .into_iter()
                    .map(|m| (format!("{name}[{}]", m.name), m.bytes))
                    .collect(),
                Err(e) => {
                    println!("{name}: not a corpus term file: {e}");
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
            match codec::decode(&bytes, InputFormat::Auto, &cfg) {
                Ok((_, kind)) if verbose => println!("{label}: ok ({kind})"),
                Ok(_) => {}
                Err(e) => {
                    failed += 1;
                    println!("{label}:{e}");
                    print!("{}", e.snippet(&bytes));
                }
            }
        }
    }
    if verbose || failed > 0 {
        eprintln!("{} of {total} messages decoded", total - failed);
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
