//! `scftl crashtest` before the CLI binary exists:
//! `cargo run --release -p crashcheck --example crashtest -- --ftl scftl --seconds 10`.

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "crashtest",
    about = "Crash-consistency campaign (same arguments as `scftl crashtest`)"
)]
struct Cli {
    #[command(flatten)]
    args: crashcheck::CrashtestArgs,
}

fn main() -> std::process::ExitCode {
    crashcheck::run(&Cli::parse().args)
}
