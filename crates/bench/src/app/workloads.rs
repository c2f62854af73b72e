//! The application workloads (paper §7.3, Fig. 7 and 8) and the Python
//! driver that runs them as real programs inside a mounted stack.
//!
//! The driver (`driver.py`, embedded with `include_str!` and written to the
//! work directory) has two actions per workload: `run` does the timed work
//! and prints one JSON line `{"workload", "ops", "seconds", "bytes"}`;
//! `check` recomputes every byte from the seed and verifies what `run`
//! left behind (SQLite `integrity_check`, row count and values; file
//! counts, sizes and contents). A run only counts when its check passes.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde::Deserialize;

use super::proc;
use crate::args::WorkloadArg;
use crate::workload::BResult;

/// The driver script, written to the work directory before the first run.
pub const DRIVER: &str = include_str!("driver.py");

/// One workload with its size.
#[derive(Clone, Copy, Debug)]
pub struct Workload {
    pub kind: WorkloadArg,
    /// Transactions per phase (sqlite), files, MiB (largefile) or messages.
    pub count: u64,
}

impl Workload {
    pub fn name(&self) -> &'static str {
        name(self.kind)
    }

    /// Unit of the headline metric.
    pub fn unit(&self) -> &'static str {
        match self.kind {
            WorkloadArg::Sqlite => "txn/s",
            WorkloadArg::Smallfiles => "files/s",
            WorkloadArg::Largefile => "MB/s",
            WorkloadArg::Mailbench => "msgs/s",
        }
    }

    /// What `count` means, for the report header.
    pub fn describe(&self) -> String {
        match self.kind {
            WorkloadArg::Sqlite => format!(
                "{} single-row INSERT transactions then {} UPDATE transactions (rollback journal, synchronous=FULL)",
                self.count, self.count
            ),
            WorkloadArg::Smallfiles => {
                format!("{} x (create, write 100 B, fsync, close)", self.count)
            }
            WorkloadArg::Largefile => format!(
                "{} MiB written sequentially, fsync after every MiB",
                self.count
            ),
            WorkloadArg::Mailbench => format!(
                "{} messages (1-4 KiB): write tmp file, fsync, rename into mailbox, fsync mailbox dir",
                self.count
            ),
        }
    }

    /// The headline metric of a run: operations (or MB) per second.
    pub fn metric(&self, r: &RunOutput) -> f64 {
        if r.seconds <= 0.0 {
            return f64::NAN;
        }
        match self.kind {
            WorkloadArg::Largefile => r.bytes as f64 / 1e6 / r.seconds,
            _ => r.ops as f64 / r.seconds,
        }
    }
}

/// The workload's name in reports and on the driver's command line.
pub fn name(k: WorkloadArg) -> &'static str {
    match k {
        WorkloadArg::Sqlite => "sqlite",
        WorkloadArg::Smallfiles => "smallfiles",
        WorkloadArg::Largefile => "largefile",
        WorkloadArg::Mailbench => "mailbench",
    }
}

/// What the driver's `run` action printed.
#[derive(Clone, Debug, Deserialize)]
pub struct RunOutput {
    pub ops: u64,
    pub seconds: f64,
    pub bytes: u64,
}

/// Runs the driver with Python `python` (script at `script`).
pub struct Driver<'a> {
    pub python: &'a Path,
    pub script: &'a Path,
    pub seed: u64,
    pub limit: Duration,
}

impl Driver<'_> {
    fn cmd(&self, action: &str, w: &Workload, dir: &Path) -> Command {
        let mut c = Command::new(self.python);
        c.arg(self.script)
            .arg(action)
            .arg(w.name())
            .arg(dir)
            .arg(w.count.to_string())
            .arg(self.seed.to_string());
        c
    }

    fn last_json_line(out: &str) -> &str {
        out.lines()
            .rev()
            .find(|l| l.trim_start().starts_with('{'))
            .unwrap_or("")
    }

    /// The timed run.
    pub fn run(&self, w: &Workload, dir: &Path) -> BResult<RunOutput> {
        let out = proc::run_ok(&mut self.cmd("run", w, dir), self.limit)?;
        serde_json::from_str(Self::last_json_line(&out))
            .map_err(|e| format!("{} run printed no result ({e}): {out}", w.name()))
    }

    /// The correctness check after the run.
    pub fn check(&self, w: &Workload, dir: &Path) -> BResult<()> {
        let out = proc::run(&mut self.cmd("check", w, dir), self.limit)?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("check failed ({}): {}", out.status, out.tail()))
        }
    }

    /// Why the driver cannot run here (no Python 3 with sqlite3), if so.
    pub fn unavailable(python: &Path) -> Option<String> {
        let out = proc::run(
            Command::new(python).args([
                "-c",
                "import sqlite3, sys; assert sys.version_info >= (3, 9)",
            ]),
            Duration::from_secs(30),
        );
        match out {
            Ok(o) if o.status.success() => None,
            Ok(o) => Some(format!(
                "{} lacks Python >= 3.9 with the sqlite3 module: {}",
                python.display(),
                o.tail()
            )),
            Err(e) => Some(format!("Python 3 is not available: {e}")),
        }
    }
}
