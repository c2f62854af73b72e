//! `scftl explore`: a program's crash recovery checked at every crash state
//! a snapshot, prefix or async disk allows (crate `explore`).
//!
//! Two ways in: `scftl explore TRACE --check CMD` explores a trace recorded
//! with `scftl serve --record`; `scftl explore --workload CMD --check CMD`
//! records one itself — it formats a fresh image, serves it, attaches it
//! through nbdfuse and a direct-I/O loop device, makes ext4 on it (or hands
//! the raw device over with `--fs none`), runs the optional `--setup`
//! unrecorded, then runs the workload under `serve --record`, unmounts, and
//! explores.
//!
//! Exit codes: 0 every state checked passed; 3 some state failed (the
//! report lists them); 1 the exploration itself failed; 2 bad usage.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use bench::app::mounted::Ext4Stack;
use bench::app::proc;
use bench::app::stack::Launcher;
use explore::check::{Checker, Fs};
use explore::run::{self, Options};
use explore::states::{Bounds, Contract, State};
use explore::trace::Trace;

use crate::error::CliError;

/// Exit code when some crash state failed its check.
pub const EXIT_STATES_FAILED: u8 = 3;

/// Test a program's crash recovery at every crash state a disk contract
/// allows.
///
/// Each state is an image file of the disk's content after a power cut:
/// `snapshot` (SCFTL: the state at each flush and internal epoch barrier),
/// `prefix` (an order-preserving disk: after each write), `async` (an
/// ordinary disk: the last flush plus any subset of the writes after it —
/// enumerated up to --async-enumerate writes per interval, sampled past
/// it). CMD gets the image as $1 and $SCFTL_IMAGE; with --fs ext4 it runs
/// in the mounted state ($SCFTL_MNT), and e2fsck -fn must pass after.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    scftl serve disk.img --record run.trace   # then run the program against it\n  \
    scftl explore run.trace --fs ext4 --check 'sqlite3 db \"pragma integrity_check\" | grep -qx ok'\n  \
    scftl explore --fs ext4 --workload 'sqlite3 db \"create table t(x); insert into t values(1)\"' \\\n      \
    --check 'test \"$(sqlite3 db \"select count(*) from t\")\" -le 1'\n\n\
    Exit codes: 0 every state passed, 3 some state failed, 1 the exploration failed, 2 bad usage.")]
pub struct ExploreArgs {
    /// A trace from `scftl serve --record` (omit with --workload).
    #[arg(required_unless_present = "workload", conflicts_with = "workload")]
    pub trace: Option<PathBuf>,
    /// The check: a shell command that exits 0 when the state is fine.
    #[arg(long, value_name = "CMD", required_unless_present = "count_only")]
    pub check: Option<String>,
    /// Contracts to explore: snapshot, prefix, async, or all (repeatable).
    #[arg(long, value_name = "C", default_value = "all")]
    pub contract: Vec<String>,
    /// What each state holds: `ext4` (mounted for the check, then fsck'd),
    /// `fs-log`, `fs-xlog`, `fs-group` (our file system in that mode:
    /// loaded into an scftl image, mounted, then `scftl fsck`'d) or `none`
    /// (the raw image).
    #[arg(long, default_value = "ext4", value_name = "FS")]
    pub fs: String,
    /// Skip `e2fsck -fn` after the check (--fs ext4).
    #[arg(long)]
    pub no_fsck: bool,
    /// `mount -o` options for the workload and for each state (--fs ext4),
    /// e.g. `noauto_da_alloc`.
    #[arg(long, value_name = "OPTS", default_value = "")]
    pub mount_options: String,
    /// Check one state only (an id from a report: UPTO or UPTO-D1,D2).
    #[arg(long, value_name = "ID")]
    pub state: Option<String>,
    /// With --state: also save the state's image to FILE.
    #[arg(long, value_name = "FILE", requires = "state")]
    pub keep: Option<PathBuf>,
    /// Print the number of states per contract without checking any.
    #[arg(long, conflicts_with = "state")]
    pub count_only: bool,
    /// Most distinct states checked per contract; beyond it a seeded sample.
    #[arg(long, default_value_t = 5000, value_name = "N")]
    pub max_states: usize,
    /// Async: enumerate every subset of an interval of at most this many
    /// writes (2^N states); larger intervals are sampled.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=20))]
    pub async_enumerate: u32,
    /// Async: random subsets per sampled interval (besides every prefix and
    /// every single dropped write).
    #[arg(long, default_value_t = 256, value_name = "K")]
    pub async_samples: usize,
    /// Seed of every sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Extra checks spent minimizing each failing interval (async).
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub minimize_budget: usize,
    /// Seconds one check may take before it counts as failed.
    #[arg(long, default_value_t = 60)]
    pub check_timeout: u64,
    /// Directory for images and mount points (default: a new one under
    /// /dev/shm, else the system's temporary directory; removed after).
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,

    /// Record this workload first: a shell command run in the mounted file
    /// system ($SCFTL_MNT), or given the device ($SCFTL_DEV) with --fs none.
    #[arg(long, value_name = "CMD")]
    pub workload: Option<String>,
    /// With --workload: a command run before recording (same environment),
    /// e.g. to create the files the workload changes.
    #[arg(long, value_name = "CMD", requires = "workload")]
    pub setup: Option<String>,
    /// With --workload: also keep the trace at TRACE.
    #[arg(long, value_name = "TRACE", requires = "workload")]
    pub save_trace: Option<PathBuf>,
    /// With --workload: the FTL recorded on (its internal barriers are the
    /// snapshot contract's extra states).
    #[arg(long, default_value = "scftl", requires = "workload")]
    pub ftl: String,
    /// The flash geometry of the recorded device (--workload), and of the
    /// image each state is loaded into (--fs fs-MODE).
    #[arg(long, default_value = "small")]
    pub geometry: String,
    /// With --workload: the disk's size (default: half the geometry's raw
    /// capacity).
    #[arg(long, value_parser = crate::size::parse_size, requires = "workload")]
    pub size: Option<u64>,
}

/// A temporary directory removed on drop (unless the user gave it).
struct WorkDir {
    path: PathBuf,
    remove: bool,
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

fn workdir(a: &ExploreArgs) -> Result<WorkDir, CliError> {
    if let Some(d) = &a.workdir {
        std::fs::create_dir_all(d)
            .map_err(|e| CliError::runtime(format!("--workdir {}: {e}", d.display())))?;
        return Ok(WorkDir {
            path: d.clone(),
            remove: false,
        });
    }
    let shm = Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let path = base.join(format!("scftl-explore-{}", std::process::id()));
    std::fs::create_dir_all(&path)
        .map_err(|e| CliError::runtime(format!("{}: {e}", path.display())))?;
    Ok(WorkDir { path, remove: true })
}

fn contracts(a: &ExploreArgs) -> Result<Vec<Contract>, CliError> {
    let mut out = Vec::new();
    for c in &a.contract {
        if c == "all" {
            out.extend(Contract::ALL);
        } else {
            out.push(Contract::parse(c).map_err(CliError::usage)?);
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

pub fn run(a: &ExploreArgs) -> ExitCode {
    match go(a) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("scftl explore: error: {e}");
            ExitCode::from(e.code)
        }
    }
}

/// Our file system's mode, for `--fs fs-MODE`.
fn ours_mode(fs: &str) -> Option<&str> {
    fs.strip_prefix("fs-")
        .filter(|m| ["log", "xlog", "group"].contains(m))
}

fn go(a: &ExploreArgs) -> Result<u8, CliError> {
    let ours = ours_mode(&a.fs);
    let fs = match ours {
        Some(_) => Fs::None,
        None => Fs::parse(&a.fs)
            .map_err(|e| CliError::usage(format!("{e}; or fs-log, fs-xlog, fs-group")))?,
    };
    let contracts = contracts(a)?;
    if a.no_fsck && fs == Fs::None && ours.is_none() {
        return Err(CliError::usage(
            "--no-fsck applies only with --fs ext4 or fs-MODE",
        ));
    }
    let wd = workdir(a)?;
    let exe = std::env::current_exe()
        .map_err(|e| CliError::runtime(format!("cannot find scftl itself: {e}")))?;
    let trace_path = match (&a.workload, ours) {
        (Some(w), Some(mode)) => {
            let trace = a
                .save_trace
                .clone()
                .unwrap_or_else(|| wd.path.join("workload.trace"));
            // Every FTL gets SCFTL's default size on the geometry (half
            // the raw capacity), so each state fits the scftl image it is
            // checked on.
            let g = flash::Geometry::preset(&a.geometry)
                .map_err(|e| CliError::usage(format!("--geometry: {e}")))?;
            let req = crate::image::FormatRequest {
                size: Some(a.size.unwrap_or(g.raw_bytes() / 2)),
                geometry: Some(a.geometry.clone()),
                kind: Some(crate::parse_kind(&a.ftl).map_err(CliError::usage)?),
                force: true,
                ..Default::default()
            };
            let root = wd.path.to_string_lossy().into_owned();
            let run = |what: &str, cmd: &str, mnt: &Path| {
                let m = mnt.to_string_lossy().into_owned();
                sh(
                    what,
                    cmd,
                    mnt,
                    &[("SCFTL_MNT", &m), ("SCFTL_WORKDIR", &root)],
                )
            };
            crate::explore_fs::record(
                &exe,
                &wd.path,
                &req,
                mode,
                a.setup.as_deref(),
                w,
                &trace,
                &run,
            )?;
            trace
        }
        (Some(w), None) => record(a, fs, w, &wd.path)?,
        (None, _) => a
            .trace
            .clone()
            .expect("clap requires TRACE without --workload"),
    };
    let trace = Trace::read(&trace_path).map_err(CliError::runtime)?;
    if let Some((bytes, why)) = &trace.ignored_tail {
        eprintln!(
            "scftl explore: the trace's last {bytes} bytes were ignored ({why}): the recorder was \
             cut off; states after its last complete record are not in it"
        );
    } else if !trace.ended {
        eprintln!("scftl explore: the trace has no END record: the recorder was cut off after its last record");
    }
    let checker = Checker {
        cmd: a.check.clone().unwrap_or_default(),
        fs,
        mnt: wd.path.join("mnt"),
        mount_options: a.mount_options.clone(),
        fsck: !a.no_fsck,
        timeout: Duration::from_secs(a.check_timeout),
    };
    if fs == Fs::Ext4 && !a.count_only {
        need_root("--fs ext4 mounts each state (a loop mount)")?;
    }
    let ours_check = match ours {
        Some(mode) => {
            let g = flash::Geometry::preset(&a.geometry)
                .map_err(|e| CliError::usage(format!("--geometry: {e}")))?;
            if g.sector_size as usize != trace.sector_size {
                return Err(CliError::usage(format!(
                    "--geometry {} has {}-byte sectors, the trace {}-byte ones; name the geometry it was recorded on",
                    a.geometry, g.sector_size, trace.sector_size
                )));
            }
            Some(crate::explore_fs::OursCheck {
                exe: exe.clone(),
                mode: mode.to_string(),
                geometry: a.geometry.clone(),
                bytes: trace.device_bytes(),
                dir: wd.path.clone(),
                cmd: crate::explore_fs::command_checker(&checker.cmd, checker.timeout, &wd.path),
                fsck: !a.no_fsck,
            })
        }
        None => None,
    };
    let check: &dyn explore::check::Check = match &ours_check {
        Some(c) => c,
        None => &checker,
    };
    if let Some(id) = &a.state {
        let st = State::parse(id, &trace).map_err(CliError::usage)?;
        let v = run::replay(&trace, check, &st, &wd.path, a.keep.as_deref())
            .map_err(CliError::runtime)?;
        print!("{}", v.output);
        if v.ok {
            println!("state {id}: passed");
            return Ok(0);
        }
        println!("state {id}: FAILED: {}", v.why);
        return Ok(EXIT_STATES_FAILED);
    }
    let bounds = Bounds {
        enumerate_bits: a.async_enumerate,
        samples: a.async_samples,
        seed: a.seed,
    };
    if a.count_only {
        return count_only(&trace, &contracts, bounds, a.json);
    }
    let opt = Options {
        contracts,
        bounds,
        max_states: a.max_states.max(1),
        minimize_budget: a.minimize_budget,
        workdir: wd.path.clone(),
        progress: !a.json,
        stop: Some(stop_flag()),
    };
    let report = explore::run::explore(&trace, check, &opt).map_err(CliError::runtime)?;
    let shown_trace = match (&a.workload, &a.save_trace) {
        (Some(_), Some(p)) => p.display().to_string(),
        (Some(_), None) => "TRACE (rerun with --save-trace TRACE to keep it)".into(),
        (None, _) => trace_path.display().to_string(),
    };
    let replay = |id: &str| {
        let mut c = format!(
            "scftl explore {} --state {id} --fs {} --check {}",
            shown_trace,
            a.fs,
            shell_quote(&checker.cmd)
        );
        if ours.is_some() {
            c.push_str(&format!(" --geometry {}", a.geometry));
        }
        if !a.mount_options.is_empty() {
            c.push_str(&format!(
                " --mount-options {}",
                shell_quote(&a.mount_options)
            ));
        }
        c.push_str(" --keep state.img");
        c
    };
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| CliError::runtime(e.to_string()))?
        );
    } else {
        print!("{}", run::render(&report, &replay));
    }
    Ok(if report.failed() {
        EXIT_STATES_FAILED
    } else {
        0
    })
}

fn count_only(
    trace: &Trace,
    contracts: &[Contract],
    b: Bounds,
    json: bool,
) -> Result<u8, CliError> {
    let fps = explore::states::Fingerprints::new(trace);
    let mut rows = Vec::new();
    for &c in contracts {
        let p = explore::states::plan(trace, &fps, c, b);
        rows.push(serde_json::json!({
            "contract": c.name(),
            "possible": p.possible,
            "distinct": p.states.len(),
            "sampled": p.sampled,
        }));
        if !json {
            println!(
                "{:<9} {:>14} allowed, {:>7} distinct{}",
                c.name(),
                run::fmt_possible(p.possible),
                p.states.len(),
                if p.sampled {
                    " (async intervals sampled)"
                } else {
                    ""
                }
            );
        }
    }
    if json {
        println!("{}", serde_json::Value::Array(rows));
    }
    Ok(0)
}

fn need_root(why: &str) -> Result<(), CliError> {
    if !proc::is_root() {
        return Err(CliError::usage(format!(
            "{why}, which needs root; run as root or use --fs none"
        )));
    }
    Ok(())
}

/// A flag Ctrl-C (or SIGTERM) sets: the exploration stops after the state
/// being checked, so no state is left mounted and the work directory is
/// removed.
fn stop_flag() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let f = std::sync::Arc::clone(&flag);
    if let Err(e) = ctrlc::set_handler(move || f.store(true, std::sync::atomic::Ordering::SeqCst)) {
        eprintln!(
            "scftl explore: cannot handle Ctrl-C ({e}): an interrupt may leave a state mounted"
        );
    }
    flag
}

/// Quotes `s` for a POSIX shell.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Runs `cmd` with `sh -c` in `cwd` with `env`, failing with its output.
fn sh(what: &str, cmd: &str, cwd: &Path, env: &[(&str, &str)]) -> Result<(), CliError> {
    let mut c = Command::new("sh");
    c.arg("-c").arg(cmd).current_dir(cwd);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = proc::run(&mut c, Duration::from_secs(3600)).map_err(CliError::runtime)?;
    if !out.status.success() {
        let text = format!("{}{}", out.stdout, out.stderr);
        return Err(CliError::runtime(format!(
            "{what} failed ({}): {}",
            out.status,
            text.trim()
        )));
    }
    Ok(())
}

/// The recording phase of `--workload`: returns the trace's path.
fn record(a: &ExploreArgs, fs: Fs, workload: &str, dir: &Path) -> Result<PathBuf, CliError> {
    need_root("--workload attaches a loop device")?;
    for tool in ["nbdfuse", "losetup", "fusermount3"] {
        if !proc::have_tool(tool) {
            return Err(CliError::runtime(format!(
                "--workload needs `{tool}` (Debian: apt-get install nbdfuse util-linux fuse3)"
            )));
        }
    }
    let exe = std::env::current_exe()
        .map_err(|e| CliError::runtime(format!("cannot find scftl itself: {e}")))?;
    let mut l = Launcher::new(exe, "none", &a.geometry).map_err(CliError::usage)?;
    if let Some(s) = a.size {
        l.size_bytes = s;
    }
    let image = dir.join("disk.img");
    let limit = Duration::from_secs(600);
    proc::run_ok(&mut l.format(&image, &a.ftl), limit).map_err(CliError::usage)?;
    let options = if a.mount_options.is_empty() {
        "defaults".to_string()
    } else {
        a.mount_options.clone()
    };
    // Setup, unrecorded: the file system and the program's starting files.
    {
        let mut st =
            Ext4Stack::attach(&l, &image, &a.ftl, &dir.join("setup")).map_err(CliError::runtime)?;
        let dev = st.dev().to_string();
        if fs == Fs::Ext4 {
            // Inode tables and the journal written now, not by a kernel
            // thread during the recording.
            proc::run_ok(
                Command::new("mkfs.ext4").args([
                    "-q",
                    "-F",
                    "-E",
                    "nodiscard,lazy_itable_init=0,lazy_journal_init=0",
                    &dev,
                ]),
                limit,
            )
            .map_err(CliError::runtime)?;
        }
        if let Some(setup) = &a.setup {
            run_in(&mut st, fs, &options, ("--setup", setup), dir)?;
        }
        st.shut().map_err(CliError::runtime)?;
    }
    let trace = match &a.save_trace {
        Some(p) => p.clone(),
        None => dir.join("workload.trace"),
    };
    let t = trace.to_string_lossy().into_owned();
    let mut st = Ext4Stack::attach_with(&l, &image, &a.ftl, &dir.join("run"), &["--record", &t])
        .map_err(CliError::runtime)?;
    eprintln!("scftl explore: recording the workload to {t}");
    run_in(&mut st, fs, &options, ("--workload", workload), dir)?;
    st.shut().map_err(CliError::runtime)?;
    Ok(trace)
}

/// Runs `cmd` (named `what`) on an attached stack: in its mount point
/// (mounted with `options`, then unmounted) for ext4, else in `dir` with
/// the device as `$SCFTL_DEV`.
fn run_in(
    st: &mut Ext4Stack,
    fs: Fs,
    options: &str,
    (what, cmd): (&str, &str),
    dir: &Path,
) -> Result<(), CliError> {
    let dev = st.dev().to_string();
    if fs != Fs::Ext4 {
        let root = dir.to_string_lossy().into_owned();
        return sh(
            what,
            cmd,
            dir,
            &[("SCFTL_DEV", &dev), ("SCFTL_WORKDIR", &root)],
        );
    }
    st.mount(options).map_err(CliError::runtime)?;
    let mnt = st.mnt.to_string_lossy().into_owned();
    let r = sh(
        what,
        cmd,
        &st.mnt,
        &[("SCFTL_MNT", &mnt), ("SCFTL_DEV", &dev)],
    );
    st.umount().map_err(CliError::runtime)?;
    r
}

/// Wraps `device` in a [`explore::trace::Recorder`] writing to `path`
/// (`serve --record`, `mount --record`); returns what closes the trace.
pub fn recording(
    device: Box<dyn ftl::BlockDevice + Send + Sync>,
    path: Option<&Path>,
) -> Result<
    (
        Box<dyn ftl::BlockDevice + Send + Sync>,
        Option<explore::trace::Closer>,
    ),
    CliError,
> {
    let Some(path) = path else {
        return Ok((device, None));
    };
    let r = explore::trace::Recorder::create(device, path).map_err(CliError::runtime)?;
    let closer = r.closer();
    eprintln!(
        "scftl: recording every change and flush to {}",
        path.display()
    );
    Ok((Box::new(r), Some(closer)))
}
