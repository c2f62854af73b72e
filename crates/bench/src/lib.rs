//! Benchmarks that reproduce the evaluation of the SCFTL paper ("Determinizing
//! Crash Behavior with a Verified Snapshot-Consistent Flash Translation
//! Layer", §7.2): random 4 KiB writes with periodic flushes (Fig. 5), boot
//! time (Fig. 6), and the CPU and RAM cost of each FTL.
//!
//! What it is: the `scftl bench` subcommands ([`BenchCommand`], [`run`]) and
//! the workloads, reports and charts behind them. The FTLs run unchanged on
//! the flash model's `TimedFlash` (simulated device time) over
//! `DatalessFlash` (so large devices fit in RAM), or on `MemFlash` for CPU
//! measurements.
//!
//! What it promises: every report states the geometry, timing model, FTL
//! configuration, seed and commit; one seed gives one workload; every run
//! reads back a sample of sectors and fails if the FTL returned anything
//! but what was written — a fast wrong FTL is not a result.
//!
//! What it must never do: assert on timings (performance is measured and
//! reported in docs/BENCHMARKS.md, never a test verdict), or change the
//! FTLs' behaviour to suit a benchmark.

use std::process::ExitCode;

pub mod args;
pub mod boot;
pub mod chart;
pub mod cpu;
pub mod probe;
pub mod randwr;
pub mod report;
pub mod stack;
pub mod targets;
pub mod workload;

pub use args::{BootArgs, CommonArgs, CpuArgs, RandwrArgs};
pub use report::Row;

/// `scftl bench <command>`.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum BenchCommand {
    /// Random 4 KiB writes with a flush every WI writes, for scftl, async
    /// and sync, in simulated device time (paper §7.2, Fig. 5).
    Randwr(RandwrArgs),
    /// SCFTL recovery time vs delta-region fill and device size (Fig. 6).
    Boot(BootArgs),
    /// CPU ns per write and RAM bytes per logical sector (no timing model).
    Cpu(CpuArgs),
}

/// Runs a benchmark command and returns its rows (the report is printed).
pub fn run_rows(cmd: &BenchCommand) -> Result<Vec<Row>, String> {
    match cmd {
        BenchCommand::Randwr(a) => randwr::run(a),
        BenchCommand::Boot(a) => boot::run(a),
        BenchCommand::Cpu(a) => cpu::run(a),
    }
}

/// Runs a benchmark command: prints the report (stdout), progress and
/// errors (stderr); writes `--json` / `--png` when given.
pub fn run(cmd: &BenchCommand) -> ExitCode {
    match run_rows(cmd) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
