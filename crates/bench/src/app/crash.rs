//! `scftl bench app-crash`: kill -9 of `scftl serve` under ext4 and SQLite
//! (issue 12, deliverable 5). For each stack and cut: a fresh image is
//! served, attached (nbdfuse, direct-I/O loop device), made ext4 and
//! mounted; the driver's `crash` workload runs SQLite transactions, each
//! followed by a small fsynced file; at a seeded instant the server gets
//! SIGKILL (the FTL loses what it held in RAM; what it put on the image
//! stays); the broken mount is torn down; the server restarts on the same
//! image (recovery); the journal is replayed (`e2fsck -E journal_only`,
//! what a mount would do), `e2fsck -fn` must find the file system clean,
//! and after a mount the driver's check must find a consistent database
//! (`PRAGMA integrity_check`, no torn transaction) and files that form a
//! prefix no later than the transactions (see `driver.py`, `crash_check`).
//!
//! What it claims and what it does not: consistency only. Without barriers
//! ext4 never asks for a flush, so no fsync is durable; the report shows
//! how much of the acknowledged work survived, never as a verdict.
//!
//! With `--cut power` the cut is a simulated power cut instead: the
//! server runs a RAM device with `--power-cut-signal` and gets SIGUSR2,
//! which also settles at random every flash program and erase not yet
//! synced (lost, applied or torn, `flash::CrashFlash`'s model) before the
//! FTL recovers; the harness tears down the broken mount, attaches to the
//! same still-running server and runs the same checks. A kill only loses
//! the FTL's RAM, and an FTL that programmed everything else in order
//! survives it by accident; a power cut also reorders what the flash had
//! not made durable, which is what the order-preserving FTL is for.
//!
//! Invariants: a cut the harness could not run (a tool failed before the
//! kill) is counted as a harness error, never as a clean or a failed cut;
//! every mount, loop device, nbdfuse and server a cut starts is gone when
//! the cut ends, whatever happened (the stack guard's `Drop`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use serde::Serialize;

use super::mounted::Ext4Stack;
use super::proc::{self, Daemon};
use super::stack::{by_names, Launcher, StackSpec, TOOL_LIMIT};
use super::{scftl_exe, Driver, Workdir};
use crate::args::CommonArgs;
use crate::report::{Header, Table};
use crate::workload::BResult;

/// `app-crash`: kill -9 of the server under ext4 + SQLite, N cuts per stack.
#[derive(clap::Args, Debug, Clone)]
pub struct AppCrashArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// ext4 stacks to cut, comma-separated (any ext4 stack of `bench app`).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAMES",
        default_value = "ext4-nobarrier/optr,ext4-nobarrier/async",
        value_parser = ext4_stack_name
    )]
    pub stacks: Vec<String>,
    /// Cuts per stack (default 20; --quick 2).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub cuts: Option<u32>,
    /// Timing model of the device (`scftl serve --timing`); `none` runs at
    /// the speed of the image file.
    #[arg(long, default_value = super::DEFAULT_TIMING, value_name = "MODEL")]
    pub timing: String,
    /// Geometry preset of every image; `--quick` uses `small`.
    #[arg(long, default_value = "medium", value_parser = preset)]
    pub geometry: String,
    /// Earliest kill, milliseconds after the workload started (default
    /// 500; --quick 200).
    #[arg(long, value_name = "MS")]
    pub min_ms: Option<u64>,
    /// Latest kill, milliseconds after the workload started (default
    /// 10000; --quick 1500).
    #[arg(long, value_name = "MS")]
    pub max_ms: Option<u64>,
    /// A device flush (fsync of the loop device, which reaches the FTL even
    /// under `nobarrier`) every this many milliseconds while the workload
    /// runs; what was acknowledged before a completed one must survive.
    /// 0: never.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub flush_ms: u64,
    /// The `scftl` executable to serve with (as for `bench app`).
    #[arg(long, value_name = "PATH")]
    pub scftl: Option<PathBuf>,
    /// Python 3 interpreter that runs the workload driver.
    #[arg(long, default_value = "python3", value_name = "PATH")]
    pub python: PathBuf,
    /// Directory for images and mount points (default: a temporary
    /// directory, removed afterwards).
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// How the device is cut: `kill` (SIGKILL of a server on an image
    /// file) or `power` (a simulated power cut of a RAM device: SIGUSR2 to
    /// `scftl serve --power-cut-signal`, which also loses, applies or tears
    /// flash programs not yet synced).
    #[arg(long, value_enum, default_value_t = CutMode::Kill, value_name = "MODE")]
    pub cut: CutMode,
}

/// How `app-crash` cuts the device.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CutMode {
    Kill,
    Power,
}

fn ext4_stack_name(s: &str) -> Result<String, String> {
    let all: Vec<StackSpec> = StackSpec::selectable()
        .into_iter()
        .filter(|st| st.fs.ext4_options().is_some())
        .collect();
    if all.iter().any(|st| st.name() == s) {
        return Ok(s.to_string());
    }
    let names: Vec<String> = all.iter().map(StackSpec::name).collect();
    Err(format!("unknown ext4 stack; stacks: {}", names.join(", ")))
}

fn preset(s: &str) -> Result<String, String> {
    flash::Geometry::preset(s)
        .map(|_| s.to_string())
        .map_err(|e| e.to_string())
}

/// What one cut found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Cut {
    pub stack: String,
    pub cut: u32,
    /// When the server was killed, ms after the workload started.
    pub kill_ms: u64,
    /// Iterations (transaction + fsynced file) the driver had finished.
    pub acked: u64,
    /// Iterations finished before the last device flush that completed
    /// before the kill: these must survive.
    pub durable: u64,
    /// `--cut power`: the server's line on the cut (commands in flight,
    /// how the pages settled, recovery time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_cut: Option<String>,
    /// Server recovery time after the restart, as it printed it.
    pub recovery: Option<String>,
    /// `clean`, or what `e2fsck -fn` reported.
    pub e2fsck: Option<String>,
    /// `ok`, what `PRAGMA integrity_check` said, or `absent`.
    pub integrity: Option<String>,
    /// Rows (committed transactions) that survived.
    pub rows: Option<u64>,
    /// Complete files f0..f(n-1) that survived.
    pub complete_files: Option<u64>,
    /// Every rule the surviving state broke (empty: consistent).
    pub violations: Vec<String>,
    /// Set when the cut could not be run (no verdict).
    pub harness_error: Option<String>,
}

impl Cut {
    fn e2fsck_clean(&self) -> bool {
        self.e2fsck.as_deref() == Some("clean")
    }
    fn integrity_ok(&self) -> bool {
        matches!(self.integrity.as_deref(), Some("ok") | Some("absent"))
    }
    /// A cut with a verdict that found nothing wrong.
    pub fn passed(&self) -> bool {
        self.harness_error.is_none()
            && self.e2fsck_clean()
            && self.integrity_ok()
            && self.violations.is_empty()
    }
}

/// Per-stack totals.
#[derive(Clone, Debug, Serialize)]
pub struct StackSummary {
    pub stack: String,
    pub cuts: u32,
    pub harness_errors: u32,
    pub e2fsck_clean: u32,
    pub integrity_ok: u32,
    /// Cuts whose whole check passed (e2fsck, integrity and the order rules).
    pub consistent: u32,
    pub median_acked: u64,
    pub median_durable: u64,
    pub median_rows: u64,
    /// Up to three failed cuts, one line each.
    pub failures: Vec<String>,
}

/// The report of `app-crash`.
#[derive(Clone, Debug, Serialize)]
pub struct CrashReport {
    pub bench: String,
    pub timing: String,
    pub geometry: String,
    pub logical_bytes: u64,
    pub seed: u64,
    pub cut_mode: CutMode,
    pub kill_window_ms: (u64, u64),
    /// Device flush period, ms (0: none).
    pub flush_ms: u64,
    pub commit: String,
    pub scftl: String,
    pub kernel: String,
    pub notes: Vec<String>,
    pub summary: Vec<StackSummary>,
    pub cuts: Vec<Cut>,
}

impl CrashReport {
    /// Cuts that failed their check or could not run.
    pub fn failed(&self) -> Vec<&Cut> {
        self.cuts.iter().filter(|c| !c.passed()).collect()
    }
}

/// The instant of cut `cut`: the same for every stack, so the stacks are
/// cut at the same points of the same workload.
fn kill_ms(seed: u64, cut: u32, lo: u64, hi: u64) -> u64 {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed ^ (u64::from(cut) << 32));
    rng.gen_range(lo..=hi)
}

/// The problem lines of an `e2fsck -fn` run (its pass headers, version and
/// summary lines removed).
fn e2fsck_problems(out: &proc::Output) -> String {
    let text = format!("{}\n{}", out.stdout, out.stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("Pass ")
                && !l.starts_with("e2fsck ")
                && !l.contains(" files (")
        })
        .collect();
    let mut s = lines
        .iter()
        .take(4)
        .copied()
        .collect::<Vec<_>>()
        .join(" / ");
    if lines.len() > 4 {
        s.push_str(&format!(" / ... ({} lines)", lines.len()));
    }
    s
}

struct Ctx<'a> {
    launcher: &'a Launcher,
    flush_every: Option<Duration>,
    python: &'a Path,
    script: &'a Path,
    seed: u64,
    mode: CutMode,
}

/// A flush of the whole device: fsync of the block device, which the block
/// layer turns into REQ_PREFLUSH whatever the file system's mount options
/// (so it reaches the FTL even under `nobarrier`: loop → fsync of the
/// nbdfuse file → NBD FLUSH).
fn device_flush(dev: &str) -> BResult<()> {
    std::fs::File::open(dev)
        .and_then(|f| f.sync_all())
        .map_err(|e| format!("fsync {dev} (device flush): {e}"))
}

fn last_acked(d: &mut Daemon) -> u64 {
    d.collect();
    d.log
        .iter()
        .filter_map(|l| l.strip_prefix("crash: acked ")?.trim().parse::<u64>().ok())
        .max()
        .unwrap_or(0)
}

/// Runs the workload on a mounted fresh stack, flushes the device every
/// `flush_every` (if any), and kills the server at `kill_at`. Returns the
/// iterations acknowledged before the kill and those acknowledged before
/// the last completed device flush.
fn run_and_kill(
    ctx: &Ctx<'_>,
    st: &mut Ext4Stack,
    kill_at: Duration,
    flush_every: Option<Duration>,
    seed: u64,
) -> BResult<(u64, u64, Option<String>)> {
    let dir = st.mnt.join("crash");
    std::fs::create_dir(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
    let mut c = Command::new(ctx.python);
    c.arg(ctx.script)
        .args(["run", "crash"])
        .arg(&dir)
        .args(["0", &seed.to_string()]);
    let mut d = Daemon::spawn("crash driver", c)?;
    d.wait_for("crash: ready", TOOL_LIMIT)?;
    let start = Instant::now();
    let mut durable = 0;
    let mut next_flush = flush_every;
    loop {
        let now = start.elapsed();
        if now >= kill_at {
            break;
        }
        let wake = next_flush.map_or(kill_at, |f| f.min(kill_at));
        if let Some(s) = d.wait_exit(wake.saturating_sub(now)) {
            return Err(format!(
                "the driver exited ({s}) before the cut: {}",
                d.log_tail()
            ));
        }
        if let (Some(f), Some(every)) = (next_flush, flush_every) {
            if start.elapsed() >= f && start.elapsed() < kill_at {
                // Iterations printed before the flush was issued had
                // completed before it: the flush makes them durable.
                let before = last_acked(&mut d);
                device_flush(st.dev())?;
                durable = before;
                next_flush = Some(f + every);
            }
        }
    }
    let power = match ctx.mode {
        CutMode::Kill => {
            st.kill_server();
            None
        }
        CutMode::Power => Some(st.power_cut_server()),
    };
    // The driver now gets I/O errors; what it printed before them was
    // acknowledged before the kill.
    if d.wait_exit(Duration::from_secs(10)).is_none() {
        d.kill();
    }
    Ok((last_acked(&mut d), durable, power.transpose()?))
}

/// Recovers the image after the cut and checks it; fills `cut`.
fn recover_and_check(
    ctx: &Ctx<'_>,
    spec: &StackSpec,
    image: &Path,
    dir: &Path,
    cut: &mut Cut,
) -> BResult<()> {
    let mut st = Ext4Stack::attach(ctx.launcher, image, spec.ftl, dir)?;
    cut.recovery = st.recovery_line();
    check(ctx, spec, &mut st, cut)?;
    st.shut()
}

/// Checks the recovered device attached in `st` (journal replay, e2fsck,
/// the driver's check); fills `cut`.
fn check(ctx: &Ctx<'_>, spec: &StackSpec, st: &mut Ext4Stack, cut: &mut Cut) -> BResult<()> {
    let dev = st.dev().to_string();
    // `e2fsck -n` does not replay the journal, and would check a state no
    // kernel ever mounts: replay first, as mount (or boot-time fsck) does.
    let replay = proc::run(
        Command::new("e2fsck").args(["-E", "journal_only", "-p", &dev]),
        TOOL_LIMIT,
    )?;
    let fsck = proc::run(Command::new("e2fsck").args(["-fn", &dev]), TOOL_LIMIT)?;
    cut.e2fsck = Some(if fsck.status.success() && replay.status.success() {
        "clean".into()
    } else if !replay.status.success() {
        format!(
            "journal replay failed ({}): {}",
            replay.status,
            replay.tail()
        )
    } else {
        format!("{}: {}", fsck.status, e2fsck_problems(&fsck))
    });
    if let Err(e) = st.mount(spec.fs.ext4_options().unwrap_or("data=ordered")) {
        cut.violations
            .push(format!("mount after recovery failed: {e}"));
        return Ok(());
    }
    let mut c = Command::new(ctx.python);
    c.arg(ctx.script)
        .args(["check", "crash"])
        .arg(st.mnt.join("crash"))
        .args(["0", &cut_seed(ctx.seed, cut.cut).to_string()]);
    let out = proc::run(&mut c, TOOL_LIMIT)?;
    let line = out
        .stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))
        .unwrap_or("");
    match serde_json::from_str::<serde_json::Value>(line) {
        Ok(v) => {
            cut.integrity = Some(if v["db"] == "absent" {
                "absent".into()
            } else {
                v["integrity"].as_str().unwrap_or("?").to_string()
            });
            cut.rows = v["rows"].as_u64();
            cut.complete_files = v["complete_files"].as_u64();
            if let Some(errs) = v["errors"].as_array() {
                cut.violations
                    .extend(errs.iter().map(|e| e.as_str().unwrap_or("?").to_string()));
            }
        }
        Err(e) => cut.violations.push(format!(
            "the check printed no verdict ({e}): {}",
            out.tail()
        )),
    }
    let kept = cut.rows.unwrap_or(0).min(cut.complete_files.unwrap_or(0));
    if kept < cut.durable {
        cut.violations.push(format!(
            "{} rows and {} complete files survived, but {} iterations were acknowledged before a completed device flush",
            cut.rows.unwrap_or(0),
            cut.complete_files.unwrap_or(0),
            cut.durable
        ));
    }
    if cut.rows.is_some_and(|r| r > cut.acked + 1) {
        cut.violations.push(format!(
            "{} rows survived but only {} transactions were acknowledged (+1 in flight)",
            cut.rows.unwrap_or(0),
            cut.acked
        ));
    }
    Ok(())
}

fn cut_seed(seed: u64, cut: u32) -> u64 {
    seed.wrapping_add(u64::from(cut))
}

/// One cut of `spec`, in `dir` (removed afterwards).
fn one_cut(ctx: &Ctx<'_>, spec: &StackSpec, cut_no: u32, kill: u64, dir: &Path) -> Cut {
    let mut cut = Cut {
        stack: spec.name(),
        cut: cut_no,
        kill_ms: kill,
        ..Cut::default()
    };
    if ctx.mode == CutMode::Power {
        return one_power_cut(ctx, spec, cut, kill, dir);
    }
    let image = dir.join("disk.img");
    let before = (|| -> BResult<(u64, u64, Option<String>)> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        proc::run_ok(&mut ctx.launcher.format(&image, spec.ftl), TOOL_LIMIT)?;
        let mut st = Ext4Stack::attach(ctx.launcher, &image, spec.ftl, dir)?;
        st.mkfs()?;
        st.mount(spec.fs.ext4_options().unwrap_or("data=ordered"))?;
        let acked = run_and_kill(
            ctx,
            &mut st,
            Duration::from_millis(kill),
            ctx.flush_every,
            cut_seed(ctx.seed, cut_no),
        );
        st.wreck();
        acked
    })();
    match before {
        Ok((a, d, _)) => {
            cut.acked = a;
            cut.durable = d;
        }
        Err(e) => {
            cut.harness_error = Some(e);
            let _ = std::fs::remove_dir_all(dir);
            return cut;
        }
    }
    if let Err(e) = recover_and_check(ctx, spec, &image, dir, &mut cut) {
        cut.harness_error = Some(format!("after the cut: {e}"));
    }
    let _ = std::fs::remove_dir_all(dir);
    cut
}

/// One `--cut power` cut: the same server (a RAM device) before and after.
fn one_power_cut(ctx: &Ctx<'_>, spec: &StackSpec, mut cut: Cut, kill: u64, dir: &Path) -> Cut {
    let seed = cut_seed(ctx.seed, cut.cut).to_string();
    let r = (|| -> BResult<()> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let extra = ["--power-cut-signal", "--seed", &seed];
        let image = dir.join("disk.img");
        let mut st = Ext4Stack::attach_with(ctx.launcher, &image, spec.ftl, dir, &extra)?;
        st.mkfs()?;
        st.mount(spec.fs.ext4_options().unwrap_or("data=ordered"))?;
        let ran = run_and_kill(
            ctx,
            &mut st,
            Duration::from_millis(kill),
            ctx.flush_every,
            cut_seed(ctx.seed, cut.cut),
        );
        st.wreck();
        let (a, d, line) = ran?;
        cut.acked = a;
        cut.durable = d;
        cut.recovery = line.clone();
        cut.power_cut = line;
        st.reattach()
            .map_err(|e| format!("after the cut: re-attach: {e}"))?;
        check(ctx, spec, &mut st, &mut cut).map_err(|e| format!("after the cut: {e}"))?;
        st.shut().map_err(|e| format!("after the cut: {e}"))
    })();
    if let Err(e) = r {
        cut.harness_error = Some(e);
    }
    let _ = std::fs::remove_dir_all(dir);
    cut
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

fn summarize(stack: &str, cuts: &[Cut]) -> StackSummary {
    let mine: Vec<&Cut> = cuts.iter().filter(|c| c.stack == stack).collect();
    let judged: Vec<&&Cut> = mine.iter().filter(|c| c.harness_error.is_none()).collect();
    let count = |f: &dyn Fn(&Cut) -> bool| judged.iter().filter(|c| f(c)).count() as u32;
    StackSummary {
        stack: stack.to_string(),
        cuts: mine.len() as u32,
        harness_errors: (mine.len() - judged.len()) as u32,
        e2fsck_clean: count(&Cut::e2fsck_clean),
        integrity_ok: count(&Cut::integrity_ok),
        consistent: count(&Cut::passed),
        median_acked: median(judged.iter().map(|c| c.acked).collect()),
        median_durable: median(judged.iter().map(|c| c.durable).collect()),
        median_rows: median(judged.iter().filter_map(|c| c.rows).collect()),
        failures: mine
            .iter()
            .filter(|c| !c.passed())
            .take(3)
            .map(|c| describe_failure(c))
            .collect(),
    }
}

fn describe_failure(c: &Cut) -> String {
    let what = if let Some(e) = &c.harness_error {
        format!("harness error: {e}")
    } else {
        let mut v = Vec::new();
        if !c.e2fsck_clean() {
            v.push(format!("e2fsck: {}", c.e2fsck.as_deref().unwrap_or("-")));
        }
        if !c.integrity_ok() {
            v.push(format!(
                "integrity_check: {}",
                c.integrity.as_deref().unwrap_or("-")
            ));
        }
        v.extend(c.violations.iter().cloned());
        v.join("; ")
    };
    format!("cut {} (kill at {} ms): {what}", c.cut, c.kill_ms)
}

/// The text report.
pub fn render(rep: &CrashReport) -> String {
    let title = match rep.cut_mode {
        CutMode::Kill => "app-crash: kill -9 of scftl serve under ext4 + SQLite (issue 12)",
        CutMode::Power => {
            "app-crash --cut power: simulated power cuts of the flash under ext4 + SQLite (issue 12)"
        }
    };
    let mut h = Header::new(title);
    h.add("timing model", rep.timing.clone());
    h.add(
        "geometry",
        format!(
            "{}, every image {} MiB logical, a fresh {} per cut",
            rep.geometry,
            rep.logical_bytes >> 20,
            match rep.cut_mode {
                CutMode::Kill => "image file",
                CutMode::Power => "RAM device",
            }
        ),
    );
    h.add(
        "kill instant",
        format!(
            "uniform in [{}, {}] ms after the workload started (seeded, the same instants for every stack)",
            rep.kill_window_ms.0, rep.kill_window_ms.1
        ),
    );
    h.add(
        "device flush",
        if rep.flush_ms == 0 {
            "none".to_string()
        } else {
            format!(
                "every {} ms (fsync of the loop device): what was acked before the last completed one must survive",
                rep.flush_ms
            )
        },
    );
    h.add("seed", rep.seed.to_string());
    h.add("commit", rep.commit.clone());
    h.add("scftl", rep.scftl.clone());
    h.add("kernel", rep.kernel.clone());
    for (i, n) in rep.notes.iter().enumerate() {
        h.add(&format!("note {}", i + 1), n.clone());
    }
    let mut t = Table::new(&[
        "stack",
        "cuts",
        "harness errors",
        "e2fsck clean",
        "integrity ok",
        "consistent",
        "median acked",
        "median durable",
        "median rows kept",
    ]);
    for s in &rep.summary {
        t.push(vec![
            s.stack.clone(),
            s.cuts.to_string(),
            s.harness_errors.to_string(),
            s.e2fsck_clean.to_string(),
            s.integrity_ok.to_string(),
            s.consistent.to_string(),
            s.median_acked.to_string(),
            s.median_durable.to_string(),
            s.median_rows.to_string(),
        ]);
    }
    let mut s = h.render_with(&t);
    for sm in &rep.summary {
        for f in &sm.failures {
            s.push_str(&format!("\n{}: {f}", sm.stack));
        }
    }
    if rep.summary.iter().any(|sm| !sm.failures.is_empty()) {
        s.push('\n');
    }
    let mut t = Table::new(&[
        "stack",
        "cut",
        "kill ms",
        "acked",
        "durable",
        "rows",
        "files",
        "e2fsck",
        "integrity",
        "verdict",
    ]);
    for c in &rep.cuts {
        let opt = |v: Option<u64>| v.map_or("-".to_string(), |x| x.to_string());
        t.push(vec![
            c.stack.clone(),
            c.cut.to_string(),
            c.kill_ms.to_string(),
            c.acked.to_string(),
            c.durable.to_string(),
            opt(c.rows),
            opt(c.complete_files),
            match c.e2fsck.as_deref() {
                Some("clean") => "clean".into(),
                Some(_) => "ERRORS".into(),
                None => "-".into(),
            },
            c.integrity.clone().unwrap_or_else(|| "-".into()),
            if c.harness_error.is_some() {
                "harness error".into()
            } else if c.passed() {
                "consistent".into()
            } else {
                "FAILED".into()
            },
        ]);
    }
    s.push_str(&format!("\n## every cut\n\n{}", t.render()));
    s
}

/// Runs the cuts and returns the report (also printed, and written to
/// `--json-out` when given). Failed cuts are in the report, not an error.
pub fn run(a: &AppCrashArgs) -> BResult<CrashReport> {
    let quick = a.common.quick;
    if a.common.png.is_some() {
        return Err("app-crash draws no chart; drop --png".into());
    }
    let geometry = if quick { "small" } else { &a.geometry };
    let cuts = a.cuts.unwrap_or(if quick { 2 } else { 20 });
    let lo = a.min_ms.unwrap_or(if quick { 200 } else { 500 });
    let hi = a.max_ms.unwrap_or(if quick { 1500 } else { 10_000 });
    if lo > hi {
        return Err(format!("--min-ms {lo} is above --max-ms {hi}"));
    }
    let specs = by_names(&a.stacks)?;
    let mut launcher = Launcher::new(scftl_exe(a.scftl.as_deref()), &a.timing, geometry)?;
    // A power cut needs the crash model, which only RAM devices have.
    launcher.memory = a.cut == CutMode::Power;
    launcher.check_timing_supported()?;
    for s in &specs {
        if let Some(why) = s.missing(&launcher) {
            return Err(format!("{}: {why}", s.name()));
        }
    }
    if !proc::have_tool("e2fsck") {
        return Err("not installed: e2fsck (Debian: e2fsprogs)".into());
    }
    if let Some(why) = Driver::unavailable(&a.python) {
        return Err(why);
    }
    let wd = Workdir::prepare(a.workdir.as_deref(), "scftl-bench-app-crash-")?;
    let (work, script) = (wd.path.clone(), wd.script.clone());
    let ctx = Ctx {
        launcher: &launcher,
        flush_every: (a.flush_ms > 0).then(|| Duration::from_millis(a.flush_ms)),
        python: &a.python,
        script: &script,
        seed: a.common.seed,
        mode: a.cut,
    };
    let log = |s: String| {
        if !a.common.silent {
            eprintln!("app-crash: {s}");
        }
    };
    let mut all = Vec::new();
    for (si, spec) in specs.iter().enumerate() {
        for n in 0..cuts {
            let k = kill_ms(a.common.seed, n, lo, hi);
            let dir = work.join(format!("s{si}-c{n}"));
            let c = one_cut(&ctx, spec, n, k, &dir);
            log(format!(
                "{} cut {n} at {k} ms: acked {}, rows {}, {}",
                spec.name(),
                c.acked,
                c.rows.map_or("-".into(), |r| r.to_string()),
                if c.passed() {
                    "consistent".to_string()
                } else {
                    describe_failure(&c)
                }
            ));
            all.push(c);
        }
    }
    let summary = specs.iter().map(|s| summarize(&s.name(), &all)).collect();
    let rep = CrashReport {
        bench: "app-crash".into(),
        timing: a.timing.clone(),
        geometry: geometry.to_string(),
        logical_bytes: launcher.size_bytes,
        seed: a.common.seed,
        cut_mode: a.cut,
        kill_window_ms: (lo, hi),
        flush_ms: a.flush_ms,
        commit: super::commit(),
        scftl: launcher.scftl.display().to_string(),
        kernel: super::kernel(),
        notes: vec![
            match a.cut {
                CutMode::Kill => "device: an image file per cut (kill -9 keeps what the server wrote to it, loses what the FTL held in RAM); the loop device runs with direct I/O".into(),
                CutMode::Power => "device: a RAM device per cut, served with --power-cut-signal; the cut is SIGUSR2: the FTL's RAM is lost and every flash program or erase not yet synced is lost, applied or torn at random (seeded per cut), then the FTL recovers and the same server is re-attached; the loop device runs with direct I/O".into(),
            },
            "journal replayed with `e2fsck -E journal_only -p` before `e2fsck -fn` (which skips replay); clean = exit 0".into(),
            "consistent = e2fsck clean, integrity_check ok, the row count equals the transaction counter, rows and files hold their values, files form a prefix, and no file survives without the transaction committed before it".into(),
            "acked = iterations (transaction + fsynced file) finished before the kill; durable = those finished before the last device flush that completed before it; rows kept = committed transactions after recovery. Without barriers an fsync is not durable by itself: only `durable` is judged (rows and files kept >= durable)".into(),
        ],
        summary,
        cuts: all,
    };
    crate::output::emit(&a.common, &render(&rep), &rep)?;
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kill_instants_are_seeded_and_in_the_window() {
        for c in 0..50 {
            let k = kill_ms(7, c, 100, 200);
            assert!((100..=200).contains(&k));
            assert_eq!(k, kill_ms(7, c, 100, 200));
        }
        let a: Vec<u64> = (0..10).map(|c| kill_ms(1, c, 0, 1_000_000)).collect();
        let b: Vec<u64> = (0..10).map(|c| kill_ms(2, c, 0, 1_000_000)).collect();
        assert_ne!(a, b);
    }

    #[test]
    fn only_ext4_stacks_can_be_cut() {
        assert!(ext4_stack_name("ext4-nobarrier/optr").is_ok());
        let e = ext4_stack_name("fs-group/scftl").unwrap_err();
        assert!(e.contains("ext4-nobarrier/async"), "{e}");
    }

    #[test]
    fn a_cut_passes_only_with_a_clean_verdict() {
        let ok = Cut {
            e2fsck: Some("clean".into()),
            integrity: Some("ok".into()),
            ..Cut::default()
        };
        assert!(ok.passed());
        let mut bad = ok.clone();
        bad.violations.push("torn".into());
        assert!(!bad.passed());
        let mut fsck = ok.clone();
        fsck.e2fsck = Some("exit status: 4: ...".into());
        assert!(!fsck.passed());
        let mut harness = ok;
        harness.harness_error = Some("mkfs failed".into());
        assert!(!harness.passed());
        let s = summarize("", &[bad, fsck, harness]);
        assert_eq!((s.cuts, s.harness_errors, s.e2fsck_clean), (3, 1, 1));
        assert_eq!(s.consistent, 0);
    }
}
