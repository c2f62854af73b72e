//! Result rows, the report header, text tables and JSON output.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::args::CommonArgs;
use crate::workload::BResult;

/// One result row. The first fields are present in every row of every
/// benchmark (null where they do not apply), so scripts can read any report
/// the same way; the rest are omitted when not measured. Reports read back
/// (the document test) fill what they lack with defaults.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Row {
    /// `randwr`, `boot` or `cpu`.
    pub bench: String,
    pub ftl: String,
    /// Writes per flush.
    pub wi: Option<u64>,
    /// User writes per second: simulated for `randwr`, wall clock for `cpu`.
    pub iops: Option<f64>,
    /// Simulated flush latency, µs.
    pub flush_lat_avg_us: Option<f64>,
    pub flush_lat_max_us: Option<f64>,
    /// Write amplification: flash sectors programmed (whole pages, metadata
    /// and padding included) per user sector written.
    pub waf: Option<f64>,
    /// Wall-clock ns of CPU per user write (single thread).
    pub cpu_ns_per_write: Option<f64>,

    pub geometry: String,
    pub seed: u64,
    /// The commit built, `git describe --always --dirty` style (see
    /// [`Provenance`]).
    pub commit: String,
    /// The sources differed from `commit` (also the `-dirty` suffix).
    pub dirty: bool,

    /// Host threads issuing the workload (`randwr --threads`; one when
    /// absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flushes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forced_flushes: Option<u64>,
    /// Flash page programs per user write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub programs_per_write: Option<f64>,
    /// Flash read commands (page, partial-page or OOB) per user write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reads_per_write: Option<f64>,
    /// Block erases per user write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub erases_per_write: Option<f64>,
    /// GC relocated sectors per user write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_relocations_per_write: Option<f64>,
    /// Metadata pages (delta, checkpoint, ...) programmed per flush.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_pages_per_flush: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_checkpoints: Option<u64>,
    /// Host time spent waiting for a device-queue slot, fraction of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stall_fraction: Option<f64>,
    /// Host time spent waiting for reads to complete, fraction of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_wait_fraction: Option<f64>,
    /// Host time spent in `sync` waiting for outstanding commands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync_wait_fraction: Option<f64>,
    /// Host time charged per request (`--host-request-ns`), fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_fraction: Option<f64>,
    /// Mean over dies of the fraction of the run each die was busy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub die_busy_fraction: Option<f64>,
    /// The busiest die's busy time, fraction of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub die_busy_max_fraction: Option<f64>,
    /// Mean over channels of the fraction of the run each was transferring.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel_busy_fraction: Option<f64>,
    /// The die-time bound: writes per second if the run had taken only as
    /// long as its busiest die was busy (no schedule of the same flash
    /// commands can be faster).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub die_bound_iops: Option<f64>,
    /// scftl IOPS divided by this row's WI async / sync IOPS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scftl_over_async: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scftl_over_sync: Option<f64>,
    /// (bucket end in simulated s, kIOPS).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline_kiops: Vec<(f64, f64)>,

    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_gib: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logical_gib: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_fill_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_pages: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_sim_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_wall_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_reads: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ram_bytes_per_sector: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ram_source: Option<String>,
    /// Peak resident set of a process (`VmHWM`), bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// Resident set when measured (`VmRSS`), bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logical_sectors: Option<u64>,
    /// Raw sectors over logical sectors, minus one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_provisioning: Option<f64>,
    /// `waf`: physical sectors of the log (used and active segments) over
    /// logical sectors, the analytical model's parameter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_over_logical: Option<f64>,
    /// `wear`: the workload (`80/20` or `zipf`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    /// `wear`: whether wear leveling was on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wear_leveling: Option<bool>,
    /// `wear`: the leveling setting by name (`off`, `dynamic`, `on`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wear_policy: Option<String>,
    /// `wear`: erase counts of all erase blocks of the device (metadata
    /// included): min, average, max, and max over average.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub erases_min: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub erases_avg: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub erases_max: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub erase_max_over_avg: Option<f64>,
    /// `wear`: the same ratio over the data blocks only (the FTL's fixed
    /// metadata blocks left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_erase_max_over_avg: Option<f64>,
    /// `wear`: blocks bad at the end (factory and worn out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bad_blocks: Option<u64>,
    /// `wear`: full-device writes until the most-worn block reaches the
    /// endurance, at the measured rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lifetime_device_writes: Option<f64>,
    /// `wear`: sectors static wear leveling moved per user write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wear_moves_per_write: Option<f64>,
    /// `wear`: full checkpoints that moved SCFTL's metadata regions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_rotations: Option<u64>,
    /// `wear`: SCFTL's write streams (1: relocations share the host's
    /// active superblock; 2: hot/cold separation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_streams: Option<u32>,
    /// `wear` (wear-out runs): programs and erases the flash failed that
    /// the FTL handled, and the error that ended the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program_failures: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub erase_failures: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_error: Option<String>,
    /// `wear` (wear-out runs): every flushed sector read back after a
    /// reopen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flushed_intact: Option<bool>,
    /// `wear`: the erase-count histogram (count, blocks) at the end.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub erase_histogram: Vec<(u64, u64)>,
    /// `waf`: the analytical model's write amplification.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_waf: Option<f64>,
    /// `waf`: measured / model - 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_error: Option<f64>,
    /// `optr`: the sweep point and OPTR's own measures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optr: Option<OptrPoint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The OPTR benchmark's own fields of a result row.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct OptrPoint {
    /// `sweep`, `recovery` or `memory`.
    pub part: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locality_mib: Option<u64>,
    /// `16k`, `1m` or `hybrid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// Host data over simulated time, MB/s (10^6 B).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mb_per_s: Option<f64>,
    /// 1 - this / async at the same point, % (positive: slower).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overhead_pct: Option<f64>,
    /// Data pages programmed (host sectors written back / sectors per page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_pages: Option<f64>,
    /// Record, checkpoint, summary and trim pages, % of data pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_pct: Option<f64>,
    /// Padding sectors (in pages), % of data pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub padding_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coalescing_records: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub internal_flushes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_selections: Option<u64>,
    /// Summed over GC selections: segments written after the latest
    /// checkpoint, % of the data segments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_constrained_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_victims_displaced: Option<u64>,
    /// `memory`: what the bytes are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
}

/// Where a report's numbers come from: the commit the benchmark binary was
/// built from and whether its sources differed from that commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// Full hash of the commit built (empty outside a git checkout).
    pub commit: String,
    /// The sources differed from `commit`: when the binary was built, or
    /// now (the checkout it was built from has changed since, or HEAD
    /// moved without a rebuild).
    pub dirty: bool,
    /// Why the tree counts as dirty (empty when clean).
    pub why: String,
}

impl Provenance {
    /// `git describe --always --dirty` style: 12 hex digits of the commit,
    /// `-dirty` appended when the tree was dirty; "unknown" outside git.
    pub fn describe(&self) -> String {
        if self.commit.is_empty() {
            return "unknown".into();
        }
        let short = &self.commit[..self.commit.len().min(12)];
        if self.dirty {
            format!("{short}-dirty")
        } else {
            short.to_string()
        }
    }
}

/// Runs git in `dir`; `None` when git fails or is missing.
fn git_in(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The provenance of this process's benchmarks, computed once (so files a
/// run writes into the checkout do not make its later reports dirty): the
/// commit recorded at build time (`build.rs`), dirty if the tree was dirty
/// then, or if the checkout the binary was built from (`CARGO_MANIFEST_DIR`,
/// not the current directory) now has changes or another HEAD.
pub fn provenance() -> &'static Provenance {
    static P: std::sync::OnceLock<Provenance> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        let commit = env!("SCFTL_BUILD_COMMIT").to_string();
        let mut why = Vec::new();
        if env!("SCFTL_BUILD_DIRTY") == "1" {
            why.push("the sources had uncommitted changes when the binary was built".to_string());
        }
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        match git_in(dir, &["rev-parse", "HEAD"]) {
            Some(head) if !commit.is_empty() && head != commit => why.push(format!(
                "the binary was built from {} but {} is now at {}",
                &commit[..commit.len().min(12)],
                dir.display(),
                &head[..head.len().min(12)]
            )),
            _ => {}
        }
        if let Some(st) = git_in(dir, &["status", "--porcelain", "--untracked-files=normal"]) {
            if !st.is_empty() {
                let top = git_in(dir, &["rev-parse", "--show-toplevel"]).unwrap_or_default();
                why.push(format!(
                    "{} file(s) in the checkout {top} differ from the commit (git status)",
                    st.lines().count()
                ));
            }
        }
        Provenance {
            dirty: !why.is_empty(),
            why: why.join("; "),
            commit,
        }
    })
}

/// The commit of the report, `git describe --always --dirty` style.
pub fn git_commit() -> String {
    provenance().describe()
}

pub use crate::args::results_dir;

/// True when `path` would land in a `crates/bench/results` directory (this
/// checkout's or another's).
pub fn is_results_path(path: &Path) -> bool {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let parent = abs.parent().unwrap_or(Path::new(""));
    let parent = parent
        .canonicalize()
        .unwrap_or_else(|_| parent.to_path_buf());
    let own = results_dir()
        .canonicalize()
        .unwrap_or_else(|_| results_dir());
    parent == own || parent.ends_with("crates/bench/results")
}

/// Refuses to write a result into `crates/bench/results/` unless the
/// numbers are reproducible from a commit: the tree must be clean, or the
/// user must have said `--allow-dirty`.
pub fn check_output(path: &Path, allow_dirty: bool) -> BResult<()> {
    let p = provenance();
    if p.dirty && !allow_dirty && is_results_path(path) {
        return Err(format!(
            "refusing to write {} from a dirty tree ({}); commit first, or pass --allow-dirty",
            path.display(),
            p.why
        ));
    }
    Ok(())
}

/// Lines printed above every table: what was measured, on what.
#[derive(Clone, Debug, Default)]
pub struct Header {
    pub title: String,
    pub lines: Vec<(String, String)>,
}

impl Header {
    pub fn new(title: &str) -> Header {
        Header {
            title: title.to_string(),
            lines: Vec::new(),
        }
    }
    pub fn add(&mut self, key: &str, value: impl Into<String>) {
        self.lines.push((key.to_string(), value.into()));
    }
    /// The header, a blank line, then `table`: how every report starts.
    pub fn render_with(&self, table: &Table) -> String {
        let mut s = self.render();
        s.push('\n');
        s.push_str(&table.render());
        s
    }

    pub fn render(&self) -> String {
        let mut s = format!("# {}\n", self.title);
        let w = self.lines.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        for (k, v) in &self.lines {
            s.push_str(&format!("#   {k:<w$}  {v}\n"));
        }
        s
    }
}

/// A text table: a header row and rows of cells, right-aligned except the
/// first column.
pub struct Table {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(head: &[&str]) -> Table {
        Table {
            head: head.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }
    /// Renders as a Markdown table (readable as plain text too).
    pub fn render(&self) -> String {
        let cols = self.head.len();
        let mut w = vec![0; cols];
        for r in std::iter::once(&self.head).chain(&self.rows) {
            for (i, c) in r.iter().enumerate().take(cols) {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let line = |r: &Vec<String>| {
            let cells: Vec<String> = (0..cols)
                .map(|i| {
                    let c = r.get(i).map(String::as_str).unwrap_or("");
                    if i == 0 {
                        format!("{c:<width$}", width = w[i])
                    } else {
                        format!("{c:>width$}", width = w[i])
                    }
                })
                .collect();
            format!("| {} |\n", cells.join(" | "))
        };
        let mut s = line(&self.head);
        let sep: Vec<String> = (0..cols)
            .map(|i| {
                if i == 0 {
                    "-".repeat(w[i])
                } else {
                    format!("{}:", "-".repeat(w[i].saturating_sub(1)))
                }
            })
            .collect();
        s.push_str(&format!("| {} |\n", sep.join(" | ")));
        for r in &self.rows {
            s.push_str(&line(r));
        }
        s
    }
}

/// A count for a table cell, or nothing when there is none.
pub fn fmt_count<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// Formats an optional number with `prec` decimals ("-" when absent).
pub fn fmt_opt(v: Option<f64>, prec: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.prec$}"),
        _ => "-".into(),
    }
}

/// Formats a number with thousands separators.
pub fn fmt_int(v: f64) -> String {
    let n = v.round() as i128;
    let s = n.abs().to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A finished benchmark: its rows and the report it printed.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub rows: Vec<Row>,
    pub text: String,
}

/// Checks, before anything is measured, that the outputs asked for may be
/// written (see [`check_output`]).
pub fn check_outputs(c: &CommonArgs) -> BResult<()> {
    for p in c.json_out.iter().chain(&c.png) {
        check_output(p, c.allow_dirty)?;
    }
    Ok(())
}

/// The provenance lines of a report header: the commit, and why it is
/// dirty when it is.
pub fn add_provenance(h: &mut Header) {
    let p = provenance();
    h.add("commit", p.describe());
    if p.dirty {
        h.add("dirty", p.why.clone());
    }
}

/// Reads rows written by [`write_json`].
pub fn read_json(path: &Path) -> BResult<Vec<Row>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes a report (the rows, or a whole report of another shape) as
/// pretty-printed JSON.
pub fn write_json<T: serde::Serialize + ?Sized>(path: &Path, rows: &T) -> BResult<()> {
    let text = serde_json::to_string_pretty(rows).map_err(|e| format!("JSON: {e}"))?;
    let mut f = std::fs::File::create(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.write_all(b"\n"))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_and_ints_group() {
        let mut t = Table::new(&["ftl", "iops"]);
        t.push(vec!["scftl".into(), "12".into()]);
        let s = t.render();
        assert!(s.starts_with("| ftl   | iops |\n| ----- | ---: |\n"), "{s}");
        assert_eq!(fmt_int(1234567.0), "1,234,567");
        assert_eq!(fmt_int(999.0), "999");
        assert_eq!(fmt_opt(None, 2), "-");
    }
}
