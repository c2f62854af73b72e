//! Result rows, the report header, text tables and JSON output.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use serde::Serialize;

use crate::workload::BResult;

/// One result row. The first fields are present in every row of every
/// benchmark (null where they do not apply), so scripts can read any report
/// the same way; the rest are omitted when not measured.
#[derive(Clone, Debug, Default, Serialize)]
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
    pub commit: String,

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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The short commit hash of the checkout this crate was built from, or
/// "unknown". Asked of git in that checkout, not the working directory, so
/// a run from anywhere else still names its commit.
pub fn git_commit() -> String {
    let out = Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "rev-parse",
            "--short",
            "HEAD",
        ])
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let s = String::from_utf8_lossy(&o.stdout).trim().to_string();
            if s.is_empty() {
                "unknown".into()
            } else {
                s
            }
        }
        _ => "unknown".into(),
    }
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

/// Writes a report (the rows, or `app`'s whole report) as pretty-printed JSON.
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
