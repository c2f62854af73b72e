//! Benchmarks that reproduce the evaluation of the SCFTL paper ("Determinizing
//! Crash Behavior with a Verified Snapshot-Consistent Flash Translation
//! Layer", §7.2): random 4 KiB writes with periodic flushes (Fig. 5), boot
//! time (Fig. 6), the CPU and RAM cost of each FTL, and the application
//! workloads of §7.3 (Fig. 7/8) as real programs on real mounts (`app`).
//!
//! What it is: the `scftl bench` subcommands ([`BenchCommand`], [`run`]) and
//! the workloads, reports and charts behind them. The FTLs run unchanged on
//! the flash model's `TimedFlash` (simulated device time) over
//! `DatalessFlash` (so large devices fit in RAM), or on `MemFlash` for CPU
//! measurements. `app` instead drives the `scftl` executable (serve,
//! mount) and external tools as child processes.
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

pub mod all;
pub mod app;
pub mod args;
pub mod boot;
pub mod chart;
pub mod cpu;
pub mod keepmeta;
pub mod memory;
pub mod nbd;
pub mod optr;
pub mod output;
pub mod probe;
pub mod randwr;
pub mod report;
pub mod stack;
pub mod targets;
pub mod waf;
pub mod wear;
pub mod workload;

pub use args::{
    AllArgs, AppArgs, BootArgs, CommonArgs, CpuArgs, MemoryArgs, NbdArgs, OptrArgs, RandwrArgs,
    WafArgs, WearArgs,
};
pub use report::{Report, Row};

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
    /// The paper's application workloads (SQLite, smallfiles, largefile,
    /// mailbench-like) on ext4 over `scftl serve` and on our file system
    /// through `scftl mount`, each checked for correctness (Fig. 7/8).
    App(AppArgs),
    /// kill -9 of `scftl serve` under ext4 and SQLite, N seeded cuts per
    /// stack: e2fsck and integrity_check after each recovery (issue 12).
    AppCrash(app::crash::AppCrashArgs),
    /// Peak RSS of `scftl serve` per logical sector, for several export
    /// sizes (runs the `scftl` executable).
    Memory(MemoryArgs),
    /// The async FTL's write amplification under uniform random writes
    /// against the analytical greedy-GC curve, at three over-provisioning
    /// levels (fails beyond --within).
    Waf(WafArgs),
    /// Erase-count spread, write amplification and projected lifetime of
    /// every FTL under 80/20 and Zipf writes, wear leveling off and on
    /// (issue 14).
    Wear(WearArgs),
    /// Regenerates every report in crates/bench/results/ but `app`'s
    /// (refuses a dirty tree unless --allow-dirty).
    All(AllArgs),
    /// Sequential and random bandwidth of `scftl serve` beside `nbdkit
    /// file` and `qemu-nbd`, measured with fio's nbd engine.
    Nbd(NbdArgs),
    /// The OPTR paper's FTL analyses (§7): extra page programs, GC
    /// constraints, throughput against async over the locality / request
    /// size / flush interval sweep, memory overhead, recovery time.
    Optr(OptrArgs),
}

/// Runs a benchmark command other than `app` and `all`: its rows and the
/// report it printed.
pub fn run_report(cmd: &BenchCommand) -> Result<Report, String> {
    match cmd {
        BenchCommand::Randwr(a) => randwr::run_report(a),
        BenchCommand::Boot(a) => boot::run_report(a),
        BenchCommand::Cpu(a) => cpu::run_report(a),
        BenchCommand::Memory(a) => memory::run_report(a),
        BenchCommand::Waf(a) => waf::run_report(a),
        BenchCommand::Wear(a) => wear::run_report(a),
        BenchCommand::Optr(a) => optr::run_report(a),
        BenchCommand::App(_)
        | BenchCommand::AppCrash(_)
        | BenchCommand::All(_)
        | BenchCommand::Nbd(_) => Err(
            "`app`, `app-crash`, `nbd` and `all` make reports of their own shape; run them with run_rows".into(),
        ),
    }
}

/// Runs a benchmark command and returns its rows (the report is printed).
pub fn run_rows(cmd: &BenchCommand) -> Result<Vec<Row>, String> {
    match cmd {
        BenchCommand::Randwr(a) => randwr::run(a),
        BenchCommand::Boot(a) => boot::run(a),
        BenchCommand::Cpu(a) => cpu::run(a),
        BenchCommand::Memory(a) => memory::run(a),
        BenchCommand::Waf(a) => waf::run(a),
        BenchCommand::Wear(a) => wear::run(a),
        BenchCommand::Optr(a) => optr::run(a),
        BenchCommand::All(a) => Ok(all::run(a)?.into_iter().flat_map(|r| r.rows).collect()),
        BenchCommand::Nbd(a) => {
            let rep = nbd::run(a)?;
            let failed: Vec<String> = rep
                .runs
                .iter()
                .filter(|r| r.status == "failed")
                .map(|r| format!("{} {}", r.server, r.job))
                .collect();
            if failed.is_empty() {
                Ok(Vec::new())
            } else {
                Err(format!(
                    "{} run(s) failed: {}",
                    failed.len(),
                    failed.join(", ")
                ))
            }
        }
        BenchCommand::AppCrash(a) => {
            let rep = app::crash::run(a)?;
            let failed = rep.failed();
            if failed.is_empty() {
                Ok(Vec::new())
            } else {
                Err(format!(
                    "{} of {} cut(s) failed their check or could not run (see the report)",
                    failed.len(),
                    rep.cuts.len()
                ))
            }
        }
        BenchCommand::App(a) => {
            let rep = app::run(a)?;
            let failed = rep.failures();
            if failed.is_empty() {
                Ok(app::rows(&rep))
            } else {
                let list: Vec<String> = failed
                    .iter()
                    .map(|r| format!("{} {}", r.stack, r.workload))
                    .collect();
                Err(format!(
                    "{} run(s) failed: {}",
                    failed.len(),
                    list.join(", ")
                ))
            }
        }
    }
}

/// Runs a benchmark command: prints the report (stdout), progress and
/// errors (stderr). The parser has already refused bad argument values
/// (exit 2), so an error here is a failed run (exit 1); `--json` prints
/// JSON instead of the table, and `--json-out` / `--png` write files when
/// given.
pub fn run(cmd: &BenchCommand) -> ExitCode {
    match run_rows(cmd) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
