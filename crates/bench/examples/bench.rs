//! Standalone runner of the benchmarks, parsing exactly what `scftl bench`
//! parses: `cargo run -p bench --example bench --profile bench-fast -- randwr --quick`.

use std::process::ExitCode;

use clap::Parser;

/// scftl benchmarks (the `scftl bench` subcommands).
#[derive(Parser)]
#[command(name = "bench")]
struct Cli {
    #[command(subcommand)]
    cmd: bench::BenchCommand,
}

fn main() -> ExitCode {
    bench::run(&Cli::parse().cmd)
}
