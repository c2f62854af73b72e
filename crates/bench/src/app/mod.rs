//! `scftl bench app`: the paper's application benchmarks (§7.3, Fig. 7 and
//! 8) — SQLite, smallfiles, largefile and a mailbench-like delivery — run
//! as real programs (a Python driver) on real mounts: ext4 over
//! `scftl serve` and our file system through `scftl mount`, on the async,
//! sync and SCFTL FTLs.
//!
//! What it promises: every (stack, workload) pair of the selection appears
//! in the report as measured, skipped (with the reason: a missing tool,
//! no root, no Python) or failed (with the error); a run is measured only
//! when its correctness check passed after it, with the kernel's clean
//! caches dropped so the check reads through the stack; every report states
//! the timing model, geometry, FTL configurations, seed and commit.
//!
//! What it must never do: leave a mount, loop device or server behind
//! (stacks are guards, see `stack.rs`), or pass `--timing` to the stacks
//! when the model is `none`.

pub mod crash;
pub mod mounted;
pub mod proc;
pub mod report;
pub mod result;
pub mod stack;
pub mod workloads;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::args::{AppArgs, WorkloadArg};
use crate::workload::BResult;
use mounted::Mounted;
use stack::{Launcher, StackSpec};
use workloads::{Driver, Workload};

pub use result::{rows, AppReport, AppRun, FtlConfig, Ratio, Status, WorkloadInfo};

pub use crate::args::DEFAULT_TIMING;

/// Set by SIGINT/SIGTERM/SIGHUP: finish the current run, tear its stack
/// down, report the rest as skipped. (Without this a Ctrl-C would end the
/// harness before its guards could unmount and detach.)
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The `scftl` executable to drive: `--scftl`, else this process when it
/// is `scftl`, else `scftl` beside it (or beside its directory, for test
/// binaries in `target/*/deps`).
pub fn scftl_exe(given: Option<&Path>) -> PathBuf {
    if let Some(p) = given {
        return p.to_path_buf();
    }
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("scftl"));
    if exe.file_name().is_some_and(|n| n == "scftl") {
        return exe;
    }
    let mut dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    for _ in 0..2 {
        let cand = dir.join("scftl");
        if cand.is_file() {
            return cand;
        }
        dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
    }
    PathBuf::from("scftl")
}

fn workload_list(a: &AppArgs) -> Vec<Workload> {
    let q = a.common.quick;
    let pick = |v: Option<u64>, full: u64, quick: u64| v.unwrap_or(if q { quick } else { full });
    a.workloads
        .iter()
        .map(|&kind| {
            let count = match kind {
                WorkloadArg::Sqlite => pick(a.sqlite_txns, 1000, 50),
                WorkloadArg::Smallfiles => pick(a.files, 2000, 100),
                WorkloadArg::Largefile => pick(a.large_mib, 64, 4),
                WorkloadArg::Mailbench => pick(a.messages, 1000, 100),
            };
            Workload { kind, count }
        })
        .collect()
}

/// A benchmark's working directory: `--workdir`, or a temporary one that
/// lives as long as this value; the workload driver is written into it.
pub(crate) struct Workdir {
    _tmp: Option<tempfile::TempDir>,
    pub path: PathBuf,
    /// The driver script (`workloads::DRIVER`).
    pub script: PathBuf,
}

impl Workdir {
    pub(crate) fn prepare(given: Option<&Path>, prefix: &str) -> BResult<Workdir> {
        let (tmp, path) = match given {
            Some(d) => {
                std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
                (None, d.to_path_buf())
            }
            None => {
                let t = tempfile::Builder::new()
                    .prefix(prefix)
                    .tempdir()
                    .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
                let p = t.path().to_path_buf();
                (Some(t), p)
            }
        };
        let script = path.join("driver.py");
        std::fs::write(&script, workloads::DRIVER)
            .map_err(|e| format!("{}: {e}", script.display()))?;
        Ok(Workdir {
            _tmp: tmp,
            path,
            script,
        })
    }
}

fn stack_list(a: &AppArgs) -> BResult<Vec<StackSpec>> {
    if a.stacks.is_empty() {
        return Ok(StackSpec::all());
    }
    stack::by_names(&a.stacks)
}

/// Makes what the workload wrote reach the stack and drops the kernel's
/// clean caches (root only), so the check reads through the stack.
fn settle() {
    let _ = proc::run(
        &mut std::process::Command::new("sync"),
        Duration::from_secs(120),
    );
    let _ = std::fs::write("/proc/sys/vm/drop_caches", "3");
}

/// Runs one workload in `m` (timed); the result is checked later by
/// [`check_one`].
fn run_one(spec: &StackSpec, w: &Workload, m: &mut Mounted, d: &Driver<'_>) -> AppRun {
    let fail = |e: String| AppRun::new(spec, w, Status::Failed, Some(e));
    let dir = m.root().join(w.name());
    if let Err(e) = std::fs::create_dir(&dir) {
        return fail(format!("mkdir {}: {e}", dir.display()));
    }
    let c0 = match m.counters() {
        Ok(c) => c,
        Err(e) => return fail(format!("device counters before the run: {e}")),
    };
    let out = match d.run(w, &dir) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let c1 = match m.counters() {
        Ok(c) => c,
        Err(e) => return fail(format!("device counters after the run: {e}")),
    };
    let mut r = AppRun::new(spec, w, Status::Measured, None);
    r.metric = Some(w.metric(&out));
    r.ops = Some(out.ops);
    r.seconds = Some(out.seconds);
    r.bytes = Some(out.bytes);
    let ops = out.ops.max(1) as f64;
    let per_op = |a: u64, b: u64| b.saturating_sub(a) as f64 / ops;
    r.flushes_per_op = Some(per_op(c0.flushes, c1.flushes));
    r.dev_kib_per_op = Some(per_op(c0.bytes_written, c1.bytes_written) / 1024.0);
    r.pages_per_op = Some(per_op(c0.pages_programmed, c1.pages_programmed));
    r
}

/// Checks what a measured run left in `m`; a failed check fails the run.
fn check_one(r: &mut AppRun, w: &Workload, m: &Mounted, d: &Driver<'_>) {
    if r.status != Status::Measured {
        return;
    }
    match d.check(w, &m.root().join(w.name())) {
        Ok(()) => r.check = Some("passed".into()),
        Err(e) => {
            r.status = Status::Failed;
            r.reason = Some(e);
        }
    }
}

/// Brings `spec` up in `dir`, runs the `group` of workloads in it, settles,
/// checks each, and tears the stack down (a failed teardown fails every run
/// of the group). Returns the runs and the lines the stack printed about
/// its timing model.
fn run_group(
    spec: &StackSpec,
    group: &[Workload],
    launcher: &Launcher,
    driver: &Driver<'_>,
    dir: &Path,
    log: &dyn Fn(String),
) -> (Vec<AppRun>, Vec<String>) {
    let name = spec.name();
    let mut m = match Mounted::up(spec, launcher, dir) {
        Ok(m) => m,
        Err(e) => {
            log(format!("{name}: cannot bring the stack up: {e}"));
            let runs = group
                .iter()
                .map(|w| AppRun::new(spec, w, Status::Failed, Some(e.clone())))
                .collect();
            return (runs, Vec::new());
        }
    };
    let timing: Vec<String> = m
        .timing_lines()
        .into_iter()
        .map(|l| format!("{name}: {l}"))
        .collect();
    let mut runs: Vec<AppRun> = group
        .iter()
        .map(|w| run_one(spec, w, &mut m, driver))
        .collect();
    // One settle per mount: dropping caches is global and slows everything
    // else on the machine.
    settle();
    for (r, w) in runs.iter_mut().zip(group) {
        check_one(r, w, &m, driver);
        log(match r.status {
            Status::Measured => format!(
                "{name} {}: {} {} in {:.2} s, check passed",
                w.name(),
                report::fmt_metric(r.metric),
                w.unit(),
                r.seconds.unwrap_or(0.0)
            ),
            _ => format!(
                "{name} {}: FAILED: {}",
                w.name(),
                r.reason.clone().unwrap_or_default()
            ),
        });
    }
    if let Err(e) = m.down() {
        log(format!("{name}: teardown failed: {e}"));
        for r in &mut runs {
            r.status = Status::Failed;
            let prev = r.reason.take().map_or(String::new(), |p| format!("{p}; "));
            r.reason = Some(format!("{prev}teardown: {e}"));
        }
    }
    (runs, timing)
}

/// The FTL configuration each image gets, from `scftl info --json`.
fn ftl_configs(l: &Launcher, ftls: &[&str], work: &Path) -> Vec<FtlConfig> {
    let limit = Duration::from_secs(120);
    ftls.iter()
        .map(|ftl| {
            let img = work.join(format!("probe-{ftl}.img"));
            let v = proc::run_ok(&mut l.format(&img, ftl), limit)
                .and_then(|_| proc::run_ok(&mut l.info(&img), limit))
                .and_then(|s| {
                    serde_json::from_str::<serde_json::Value>(&s).map_err(|e| e.to_string())
                })
                .map(|v| {
                    serde_json::json!({
                        "config": v["config"],
                        "logical_bytes": v["logical_bytes"],
                        "geometry": v["geometry"],
                    })
                })
                .unwrap_or_else(|e| serde_json::json!({ "error": e }));
            let _ = std::fs::remove_file(&img);
            FtlConfig {
                ftl: ftl.to_string(),
                info: v,
            }
        })
        .collect()
}

/// The commit of the working directory, or else of the source tree this
/// crate was built from (the harness is often run from a scratch directory).
fn commit() -> String {
    let c = crate::report::git_commit();
    if c != "unknown" {
        return c;
    }
    std::process::Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "rev-parse",
            "--short",
            "HEAD",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .map_or(c, |s| format!("{s} (source tree of the build)"))
}

fn kernel() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// Runs the selected stacks × workloads and returns the report (also
/// printed, and written to `--json` / `--png` when given). Failed runs are
/// in the report, not an error; an error means the harness itself could
/// not start (bad arguments, no work directory).
pub fn run(a: &AppArgs) -> BResult<AppReport> {
    let quick = a.common.quick;
    let geometry = if quick {
        "small".to_string()
    } else {
        a.geometry.clone()
    };
    let specs = stack_list(a)?;
    let wls = workload_list(a);
    if wls.is_empty() {
        return Err("no workload selected".into());
    }
    let mut launcher = Launcher::new(scftl_exe(a.scftl.as_deref()), &a.timing, &geometry)?;
    launcher.memory = a.device == crate::args::AppDevice::Memory;
    launcher.check_timing_supported()?;
    // The temporary directory (when no --workdir) lives until the end.
    let wd = Workdir::prepare(a.workdir.as_deref(), "scftl-bench-app-")?;
    let (work, script) = (wd.path.clone(), wd.script.clone());
    let driver = Driver {
        python: &a.python,
        script: &script,
        seed: a.common.seed,
        limit: Duration::from_secs(a.run_timeout_s),
    };
    let no_python = Driver::unavailable(&a.python);
    let log = |s: String| {
        if !a.common.silent {
            eprintln!("app: {s}");
        }
    };

    let mut ftls: Vec<&str> = Vec::new();
    for s in &specs {
        if !ftls.contains(&s.ftl) && no_python.is_none() && s.missing(&launcher).is_none() {
            ftls.push(s.ftl);
        }
    }
    let configs = ftl_configs(&launcher, &ftls, &work);

    // Fails only if a handler is already installed (a second run in one
    // process): that one sets the same flag.
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    let mut runs = Vec::new();
    let mut applied: Vec<String> = Vec::new();
    for (si, spec) in specs.iter().enumerate() {
        let name = spec.name();
        let skip = if INTERRUPTED.load(Ordering::SeqCst) {
            Some("interrupted (SIGINT/SIGTERM) before this stack ran".to_string())
        } else {
            no_python.clone().or_else(|| spec.missing(&launcher))
        };
        if let Some(why) = skip {
            log(format!("{name}: skipped: {why}"));
            for w in &wls {
                runs.push(AppRun::new(spec, w, Status::Skipped, Some(why.clone())));
            }
            continue;
        }
        // --quick mounts each stack once for all workloads (each in its own
        // directory); a full run gives every workload a fresh image.
        let groups: Vec<Vec<Workload>> = if quick {
            vec![wls.clone()]
        } else {
            wls.iter().map(|w| vec![*w]).collect()
        };
        for (gi, group) in groups.iter().enumerate() {
            if INTERRUPTED.load(Ordering::SeqCst) {
                for w in group {
                    let why = "interrupted (SIGINT/SIGTERM) before this run".to_string();
                    runs.push(AppRun::new(spec, w, Status::Skipped, Some(why)));
                }
                continue;
            }
            let dir = work.join(format!("s{si}-g{gi}"));
            let names: Vec<&str> = group.iter().map(Workload::name).collect();
            log(format!("{name}: running {}", names.join(", ")));
            let (done, timing) = run_group(spec, group, &launcher, &driver, &dir, &log);
            for l in timing {
                if !applied.contains(&l) {
                    applied.push(l);
                }
            }
            runs.extend(done);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    let notes: Vec<String> = vec![
        mounted::COUNTER_NOTE.into(),
        "checks run after `sync` and dropping the kernel's clean caches (root), so they read through the stack"
            .into(),
    ];

    let mut rep = AppReport {
        bench: "app".into(),
        timing: a.timing.clone(),
        device: if launcher.memory { "memory" } else { "image" }.into(),
        timing_applied: applied,
        geometry,
        logical_bytes: launcher.size_bytes,
        quick,
        seed: a.common.seed,
        commit: commit(),
        scftl: launcher.scftl.display().to_string(),
        kernel: kernel(),
        ftl_configs: configs,
        workloads: wls
            .iter()
            .map(|w| WorkloadInfo {
                name: w.name().to_string(),
                count: w.count,
                description: w.describe(),
            })
            .collect(),
        notes,
        runs,
        ratios: Vec::new(),
    };
    rep.ratios = report::ratios(&rep.runs);
    crate::output::emit(&a.common, &report::render(&rep), &rep)?;
    if let Some(p) = &a.common.png {
        report::chart(p, &rep)?;
    }
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        a: AppArgs,
    }

    fn args(argv: &[&str]) -> AppArgs {
        let mut v = vec!["app"];
        v.extend_from_slice(argv);
        Cli::try_parse_from(v).unwrap().a
    }

    #[test]
    fn stacks_select_by_name_and_unknown_names_list_the_valid_ones() {
        let a = args(&["--stacks", "fs-group/scftl,ext4-journal/sync"]);
        let names: Vec<String> = stack_list(&a)
            .unwrap()
            .iter()
            .map(StackSpec::name)
            .collect();
        assert_eq!(names, ["fs-group/scftl", "ext4-journal/sync"]);
        // An unknown name is refused by the parser (a usage error, exit 2).
        let e = Cli::try_parse_from(["app", "--stacks", "ext4/nvme"])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("ext4/nvme") && e.contains("fs-log/async"), "{e}");
        assert_eq!(stack_list(&args(&[])).unwrap().len(), 10);
    }

    #[test]
    fn sizes_default_to_the_paper_and_quick_is_small() {
        let full: Vec<u64> = workload_list(&args(&[])).iter().map(|w| w.count).collect();
        assert_eq!(full, [1000, 2000, 64, 1000]);
        let quick = workload_list(&args(&["--quick", "--files", "7"]));
        assert!(quick.iter().all(|w| w.count <= 100));
        assert_eq!(quick[1].count, 7, "an explicit size wins over --quick");
        assert_eq!(args(&[]).timing, DEFAULT_TIMING);
    }
}
