//! The application benchmark's results: one [`AppRun`] per (stack,
//! workload), the paper's [`Ratio`]s, and the [`AppReport`] that holds them
//! with the run's provenance (also the `--json` document).
//!
//! Invariant: a run is [`Status::Measured`] only with its check passed
//! (`check` = "passed"); otherwise `reason` says why it was skipped or
//! failed.

use serde::Serialize;

use super::stack::StackSpec;
use super::workloads::Workload;

/// Outcome of one (stack, workload) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Ran, and its correctness check passed.
    Measured,
    /// Could not run here; `reason` says why.
    Skipped,
    /// Ran (or tried to) and failed, or its check failed; `reason` says how.
    Failed,
}

/// One (stack, workload) result.
#[derive(Clone, Debug, Serialize)]
pub struct AppRun {
    pub stack: String,
    pub fs: String,
    pub ftl: String,
    pub workload: String,
    pub status: Status,
    pub reason: Option<String>,
    /// Headline metric in `unit` (ops/s, or MB/s for largefile).
    pub metric: Option<f64>,
    pub unit: String,
    /// Operations timed (transactions, files, MiB, messages).
    pub ops: Option<u64>,
    pub seconds: Option<f64>,
    pub bytes: Option<u64>,
    /// Device flushes during the timed phase, per operation.
    pub flushes_per_op: Option<f64>,
    /// KiB the file system wrote to the device during the timed phase, per
    /// operation (journal and metadata included).
    pub dev_kib_per_op: Option<f64>,
    /// Flash pages programmed during the timed phase, per operation.
    pub pages_per_op: Option<f64>,
    /// "passed" once the correctness check passed.
    pub check: Option<String>,
}

impl AppRun {
    pub(super) fn new(
        spec: &StackSpec,
        w: &Workload,
        status: Status,
        reason: Option<String>,
    ) -> AppRun {
        AppRun {
            stack: spec.name(),
            fs: spec.fs.name(),
            ftl: spec.ftl.to_string(),
            workload: w.name().to_string(),
            status,
            reason,
            metric: None,
            unit: w.unit().to_string(),
            ops: None,
            seconds: None,
            bytes: None,
            flushes_per_op: None,
            dev_kib_per_op: None,
            pages_per_op: None,
            check: None,
        }
    }
}

/// A paper ratio and what we measured.
#[derive(Clone, Debug, Serialize)]
pub struct Ratio {
    pub workload: String,
    /// `fs-group/scftl / fs-log/async`, ...
    pub name: String,
    pub measured: Option<f64>,
    /// The paper's figure, where it states one.
    pub paper: Option<f64>,
}

/// One FTL's configuration as `scftl info --json` states it.
#[derive(Clone, Debug, Serialize)]
pub struct FtlConfig {
    pub ftl: String,
    /// `config`, `logical_bytes` and `geometry` of the info, or `error`.
    pub info: serde_json::Value,
}

/// A workload of the run: its name, size and what one operation does.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadInfo {
    pub name: String,
    pub count: u64,
    pub description: String,
}

/// The whole report (also the `--json` document).
#[derive(Clone, Debug, Serialize)]
pub struct AppReport {
    pub bench: String,
    pub timing: String,
    /// `memory` (RAM devices) or `image` (image files on the host disk).
    pub device: String,
    /// What each stack printed about the timing model it applied.
    pub timing_applied: Vec<String>,
    pub geometry: String,
    /// Logical size of every image (all FTLs alike).
    pub logical_bytes: u64,
    pub quick: bool,
    pub seed: u64,
    pub commit: String,
    pub scftl: String,
    pub kernel: String,
    /// Each FTL's configuration, from `scftl info --json` of an image.
    pub ftl_configs: Vec<FtlConfig>,
    pub workloads: Vec<WorkloadInfo>,
    pub notes: Vec<String>,
    pub runs: Vec<AppRun>,
    pub ratios: Vec<Ratio>,
}

impl AppReport {
    /// Runs that failed (or whose check failed).
    pub fn failures(&self) -> Vec<&AppRun> {
        self.runs
            .iter()
            .filter(|r| r.status == Status::Failed)
            .collect()
    }
}

/// Converts the report to the crate's common rows (one per run).
pub fn rows(rep: &AppReport) -> Vec<crate::Row> {
    rep.runs
        .iter()
        .map(|r| crate::Row {
            bench: "app".into(),
            ftl: r.ftl.clone(),
            iops: match (r.ops, r.seconds) {
                (Some(o), Some(s)) if s > 0.0 => Some(o as f64 / s),
                _ => None,
            },
            geometry: rep.geometry.clone(),
            seed: rep.seed,
            commit: rep.commit.clone(),
            writes: r.ops,
            note: Some(format!(
                "{} {} {:?}{}",
                r.stack,
                r.workload,
                r.status,
                r.reason
                    .as_ref()
                    .map_or(String::new(), |x| format!(": {x}"))
            )),
            ..crate::Row::default()
        })
        .collect()
}
