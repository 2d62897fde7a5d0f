//! The suite without the `megaco` binary:
//! `cargo run --release -p megaco-bench --example bench -- [meas|mstone] [OPTIONS]`
//! and `... --example bench -- transform [CORPUS] OUTDIR`.
use clap::{Parser, Subcommand};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Measurements (see `megaco bench`).
    Bench(megaco_bench::BenchArgs),
    /// The corpus in every encoding.
    Transform(megaco_bench::TransformArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Cmd::Bench(a) => megaco_bench::run_bench(&a),
        Cmd::Transform(a) => megaco_bench::run_transform(&a).map(|_| ()),
    }
}
