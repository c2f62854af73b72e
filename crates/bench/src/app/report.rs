//! The application benchmark's report: header, one table per workload
//! (stacks × metric), the paper's ratios beside ours, JSON and a PNG chart.

use std::path::Path;

use super::stack::FsKind;
use super::{AppReport, AppRun, Ratio, Status};
use crate::chart::{self, BarGroup, BarPanel};
use crate::report::{Header, Table};
use crate::workload::BResult;

/// Workloads in the paper's order, with the ratios it states for them:
/// fs-group on SCFTL over fs-log on async (the artifact's "xv6/async"), and
/// fs-group on SCFTL as a fraction of ext4 with metadata journaling.
const PAPER: [(&str, f64, f64); 4] = [
    ("sqlite", 6.78, 0.66),
    ("smallfiles", 3.43, 0.52),
    ("largefile", 65.0, 0.62),
    ("mailbench", 7.74, 0.93),
];

/// The stack every ratio is about.
const GROUP: &str = "fs-group/scftl";

/// Formats a metric with a precision that suits its size.
pub fn fmt_metric(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() && x >= 100.0 => crate::report::fmt_int(x),
        Some(x) if x.is_finite() => format!("{x:.2}"),
        _ => "-".into(),
    }
}

fn metric_of(runs: &[AppRun], stack: &str, workload: &str) -> Option<f64> {
    runs.iter()
        .find(|r| r.stack == stack && r.workload == workload && r.status == Status::Measured)
        .and_then(|r| r.metric)
}

/// The ratios the paper states (and the ones it implies) for each workload
/// that ran.
pub fn ratios(runs: &[AppRun]) -> Vec<Ratio> {
    let mut out = Vec::new();
    let mut workloads: Vec<&str> = Vec::new();
    for r in runs {
        if !workloads.contains(&r.workload.as_str()) {
            workloads.push(&r.workload);
        }
    }
    let ran = |stack: &str| runs.iter().any(|r| r.stack == stack);
    for w in workloads {
        if ran(OPTR_NB) {
            out.extend(optr_ratios(runs, w));
        }
        if !ran(GROUP) {
            continue;
        }
        let paper = PAPER.iter().find(|p| p.0 == w);
        let group = metric_of(runs, GROUP, w);
        for (other, paper_value) in [
            ("fs-log/async", paper.map(|p| p.1)),
            ("fs-log/sync", None),
            ("ext4-ordered/async", paper.map(|p| p.2)),
            ("ext4-journal/async", None),
            ("ext4-ordered/scftl", None),
        ] {
            let measured = match (group, metric_of(runs, other, w)) {
                (Some(g), Some(o)) if o > 0.0 => Some(g / o),
                _ => None,
            };
            out.push(Ratio {
                workload: w.to_string(),
                name: format!("{GROUP} / {other}"),
                measured,
                paper: paper_value,
            });
        }
    }
    out
}

/// The OPTR stack every OPTR ratio is about: ext4 without barriers on the
/// order-preserving FTL (the paper's "OPTR-enabled no-barrier mode").
const OPTR_NB: &str = "ext4-nobarrier/optr";

/// The OPTR paper's SQLite figures (§6.2, Fig. 9), over unmodified SQLite
/// on ext4 with barriers on the baseline SSD (our async FTL): the
/// no-barrier mode on OPTR, 6.03x; ext4 without barriers on the baseline
/// (no consistency, the upper bound), 6.18x.
fn optr_ratios(runs: &[AppRun], w: &str) -> Vec<Ratio> {
    let sqlite = w == "sqlite";
    [
        (OPTR_NB, "ext4-ordered/async", sqlite.then_some(6.03)),
        (OPTR_NB, "ext4-ordered/optr", None),
        ("ext4-ordered/optr", "ext4-ordered/async", None),
        (
            "ext4-nobarrier/async",
            "ext4-ordered/async",
            sqlite.then_some(6.18),
        ),
    ]
    .into_iter()
    .map(|(a, b, paper)| Ratio {
        workload: w.to_string(),
        name: format!("{a} / {b}"),
        measured: match (metric_of(runs, a, w), metric_of(runs, b, w)) {
            (Some(x), Some(y)) if y > 0.0 => Some(x / y),
            _ => None,
        },
        paper,
    })
    .collect()
}

fn fmt_ratio(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.2}x"),
        _ => "-".into(),
    }
}

/// The text report.
pub fn render(rep: &AppReport) -> String {
    let mut h = Header::new("app: application workloads on real mounts (paper §7.3, Fig. 7/8)");
    h.add("timing model", rep.timing.clone());
    h.add(
        "device",
        match rep.device.as_str() {
            "memory" => "a fresh RAM device per run (serve/mount --memory)".to_string(),
            d => format!("{d} (an image file on the host disk; flushes also fdatasync it)"),
        },
    );
    if rep.timing_applied.is_empty() && rep.timing != "none" {
        h.add(
            "timing applied",
            "(no stack printed a line about its timing model)",
        );
    }
    for l in &rep.timing_applied {
        h.add("timing applied", l.clone());
    }
    h.add(
        "geometry",
        format!(
            "{}{}, every image {} MiB logical (SCFTL's default L, for all FTLs)",
            rep.geometry,
            if rep.quick { " (--quick)" } else { "" },
            rep.logical_bytes >> 20
        ),
    );
    for c in &rep.ftl_configs {
        let (ftl, c) = (&c.ftl, &c.info);
        let text = match c["config"].as_object() {
            Some(m) => m
                .iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), str::to_string)))
                .collect::<Vec<_>>()
                .join(", "),
            None => c.to_string(),
        };
        h.add(&format!("ftl {ftl}"), text);
    }
    for w in &rep.workloads {
        h.add(&w.name, w.description.clone());
    }
    h.add("seed", rep.seed.to_string());
    h.add("commit", rep.commit.clone());
    h.add("scftl", rep.scftl.clone());
    h.add("kernel", rep.kernel.clone());
    for (i, n) in rep.notes.iter().enumerate() {
        h.add(&format!("note {}", i + 1), n.clone());
    }
    let mut s = h.render();

    for w in rep.workloads.iter().map(|w| &w.name) {
        let runs: Vec<&AppRun> = rep.runs.iter().filter(|r| &r.workload == w).collect();
        let unit = runs.first().map_or("", |r| r.unit.as_str());
        let mut t = Table::new(&[
            "stack",
            unit,
            "seconds",
            "ops",
            "flushes/op",
            "KiB written/op",
            "pages/op",
            "check",
        ]);
        for r in runs {
            let (metric, check) = match r.status {
                Status::Measured => (fmt_metric(r.metric), "passed".to_string()),
                Status::Skipped => ("skipped".into(), "-".into()),
                Status::Failed => (
                    fmt_metric(r.metric),
                    if r.metric.is_some() {
                        "FAILED"
                    } else {
                        "did not run"
                    }
                    .into(),
                ),
            };
            t.push(vec![
                r.stack.clone(),
                metric,
                r.seconds.map_or("-".into(), |x| format!("{x:.2}")),
                r.ops.map_or("-".into(), |x| x.to_string()),
                r.flushes_per_op.map_or("n/a".into(), |x| format!("{x:.2}")),
                r.dev_kib_per_op.map_or("n/a".into(), |x| format!("{x:.1}")),
                r.pages_per_op.map_or("n/a".into(), |x| format!("{x:.2}")),
                check,
            ]);
        }
        s.push_str(&format!("\n## {w}\n\n{}", t.render()));
    }

    let mut reasons: Vec<String> = Vec::new();
    for r in &rep.runs {
        if r.status != Status::Measured {
            let line = format!(
                "- {} {}: {}",
                r.stack,
                match r.status {
                    Status::Skipped => "skipped",
                    _ => "FAILED",
                },
                r.reason.as_deref().unwrap_or("")
            );
            let line = if r.status == Status::Failed {
                format!("{line} ({})", r.workload)
            } else {
                line
            };
            if !reasons.contains(&line) {
                reasons.push(line);
            }
        }
    }
    if !reasons.is_empty() {
        s.push_str("\nNot measured:\n");
        for l in reasons {
            s.push_str(&l);
            s.push('\n');
        }
    }

    let table = |optr: bool| {
        let mut t = Table::new(&["workload", "ratio", "measured", "paper"]);
        for r in rep
            .ratios
            .iter()
            .filter(|r| r.name.starts_with(GROUP) != optr)
        {
            t.push(vec![
                r.workload.clone(),
                r.name.clone(),
                fmt_ratio(r.measured),
                fmt_ratio(r.paper),
            ]);
        }
        t
    };
    let scftl = table(false);
    if !scftl.rows.is_empty() {
        s.push_str(&format!(
            "\n## ratios (paper: fs-group/scftl over xv6 on async, and as a fraction of ext4 data=ordered)\n\n{}",
            scftl.render()
        ));
    }
    let optr = table(true);
    if !optr.rows.is_empty() {
        s.push_str(&format!(
            "\n## OPTR ratios (OPTR paper §6.2, Fig. 9: SQLite over ext4 with barriers on the baseline SSD, here async)\n\n{}",
            optr.render()
        ));
    }
    s
}

/// One panel per workload: the file systems of the report on the x axis,
/// one bar per FTL of the report (log scale; a missing bar was not
/// measured).
pub fn chart(path: &Path, rep: &AppReport) -> BResult<()> {
    let cats: Vec<String> = FsKind::ALL
        .iter()
        .map(|f| f.name())
        .filter(|c| rep.runs.iter().any(|r| &r.fs == c))
        .collect();
    let ftls: Vec<&str> = ["async", "sync", "scftl", "optr"]
        .into_iter()
        .filter(|f| rep.runs.iter().any(|r| r.ftl == *f))
        .collect();
    let panels: Vec<BarPanel> = rep
        .workloads
        .iter()
        .map(|w| {
            let w = &w.name;
            let runs: Vec<&AppRun> = rep.runs.iter().filter(|r| &r.workload == w).collect();
            let unit = runs.first().map_or(String::new(), |r| r.unit.clone());
            let groups = ftls
                .iter()
                .map(|ftl| BarGroup {
                    label: ftl.to_string(),
                    color: chart::ftl_color(ftl),
                    values: cats
                        .iter()
                        .map(|c| {
                            runs.iter()
                                .find(|r| {
                                    r.ftl == *ftl && r.fs == *c && r.status == Status::Measured
                                })
                                .and_then(|r| r.metric)
                        })
                        .collect(),
                })
                .collect();
            BarPanel {
                title: w.clone(),
                x_label: "file system".into(),
                y_label: unit,
                log_y: true,
                categories: cats.clone(),
                groups,
            }
        })
        .collect();
    chart::draw_bars(
        path,
        &format!(
            "scftl bench app (timing {}, geometry {}, commit {})",
            rep.timing, rep.geometry, rep.commit
        ),
        &panels,
        2,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stack: &str, workload: &str, metric: Option<f64>, status: Status) -> AppRun {
        let (fs, ftl) = stack.split_once('/').unwrap();
        AppRun {
            stack: stack.into(),
            fs: fs.into(),
            ftl: ftl.into(),
            workload: workload.into(),
            status,
            reason: (status != Status::Measured).then(|| "why".into()),
            metric,
            unit: "txn/s".into(),
            ops: Some(10),
            seconds: Some(1.0),
            bytes: Some(0),
            flushes_per_op: None,
            dev_kib_per_op: None,
            pages_per_op: None,
            check: (status == Status::Measured).then(|| "passed".into()),
        }
    }

    fn report(runs: Vec<AppRun>) -> AppReport {
        AppReport {
            bench: "app".into(),
            timing: "none".into(),
            device: "image".into(),
            timing_applied: Vec::new(),
            geometry: "small".into(),
            logical_bytes: 32 << 20,
            quick: true,
            seed: 1,
            commit: "test".into(),
            scftl: "scftl".into(),
            kernel: "k".into(),
            ftl_configs: Vec::new(),
            workloads: vec![super::super::WorkloadInfo {
                name: "sqlite".into(),
                count: 10,
                description: "d".into(),
            }],
            notes: Vec::new(),
            ratios: ratios(&runs),
            runs,
        }
    }

    #[test]
    fn ratios_use_measured_runs_only_and_carry_the_paper_figures() {
        let rep = report(vec![
            run("fs-group/scftl", "sqlite", Some(300.0), Status::Measured),
            run("fs-log/async", "sqlite", Some(50.0), Status::Measured),
            run(
                "ext4-ordered/async",
                "sqlite",
                Some(600.0),
                Status::Measured,
            ),
            run("fs-log/sync", "sqlite", Some(10.0), Status::Failed),
        ]);
        let get = |n: &str| rep.ratios.iter().find(|r| r.name.ends_with(n)).unwrap();
        assert_eq!(get("/ fs-log/async").measured, Some(6.0));
        assert_eq!(get("/ fs-log/async").paper, Some(6.78));
        assert_eq!(get("/ ext4-ordered/async").measured, Some(0.5));
        assert_eq!(get("/ ext4-ordered/async").paper, Some(0.66));
        assert_eq!(
            get("/ fs-log/sync").measured,
            None,
            "a failed run is no baseline"
        );
        let text = render(&rep);
        assert!(text.contains("| fs-log/sync "), "{text}");
        assert!(text.contains("FAILED"), "{text}");
    }

    #[test]
    fn optr_ratios_appear_with_the_optr_stacks_only() {
        let rep = report(vec![
            run(
                "ext4-ordered/async",
                "sqlite",
                Some(300.0),
                Status::Measured,
            ),
            run("ext4-ordered/optr", "sqlite", Some(250.0), Status::Measured),
            run(
                "ext4-nobarrier/optr",
                "sqlite",
                Some(900.0),
                Status::Measured,
            ),
        ]);
        assert!(rep.ratios.iter().all(|r| !r.name.starts_with(GROUP)));
        let r = rep
            .ratios
            .iter()
            .find(|r| r.name == "ext4-nobarrier/optr / ext4-ordered/async")
            .unwrap();
        assert_eq!((r.measured, r.paper), (Some(3.0), Some(6.03)));
        let text = render(&rep);
        assert!(
            text.contains("## OPTR ratios") && !text.contains("## ratios"),
            "{text}"
        );
        let none = report(vec![run(
            "ext4-ordered/async",
            "sqlite",
            Some(1.0),
            Status::Measured,
        )]);
        assert!(none.ratios.is_empty());
    }

    #[test]
    fn bar_chart_is_a_png() {
        let rep = report(vec![
            run("fs-group/scftl", "sqlite", Some(300.0), Status::Measured),
            run("ext4-ordered/sync", "sqlite", Some(200.0), Status::Measured),
            run("fs-log/async", "sqlite", None, Status::Skipped),
        ]);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.png");
        chart(&p, &rep).unwrap();
        let b = std::fs::read(&p).unwrap();
        assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
    }
}
