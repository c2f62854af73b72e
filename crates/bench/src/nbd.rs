//! `scftl bench nbd`: sequential and random bandwidth of `scftl serve`
//! beside two widely used NBD servers, `nbdkit file` and `qemu-nbd`
//! (writeback cache), measured by fio's `nbd` engine over Unix sockets,
//! with the exports' backing files in one directory (so on one disk).
//!
//! What it promises: every server runs the same fio jobs in the same order
//! on an export of the same size, each export first written sequentially
//! [`FILL_PASSES`] times (every server then starts in its steady state,
//! see the constant, and no read hits unwritten, zero-filled space, which scftl
//! answers without touching its image); a server whose tool is missing is
//! reported as skipped with the reason; the report prints each metric, the
//! scftl/nbdkit and scftl/qemu-nbd ratios, the directory's file system and
//! `scftl serve`'s peak RSS (VmHWM) per logical sector.
//!
//! What it must never do: leave a server running or a socket behind
//! (servers are [`Daemon`] guards), or reuse one server's backing file for
//! another.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::Serialize;

use crate::app::proc::{self, Daemon};
use crate::args::NbdArgs;
use crate::report::{fmt_int, git_commit, Header, Table};
use crate::workload::BResult;

/// Sequential passes over the whole export before the jobs. One pass is
/// enough for a file that is rewritten in place (`nbdkit file`,
/// `qemu-nbd`); a log-structured device writes to places it has never
/// written until its whole physical space (here about twice the export)
/// has been written once, and those first writes cost the host file system
/// block allocation and fresh page-cache pages that a rewrite does not (on
/// the reference VM a first 10 s sequential run after one pass measured
/// half of the second). Two passes put every server in its steady state.
pub const FILL_PASSES: u32 = 2;

/// How long a setup step (format, start, fill) may take.
const SETUP_LIMIT: Duration = Duration::from_secs(600);

/// The servers compared, in report order.
pub const SERVERS: [&str; 3] = ["scftl", "nbdkit", "qemu-nbd"];

/// One fio job of the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    pub name: &'static str,
    /// fio `--rw`.
    pub rw: &'static str,
    /// fio `--bs`, bytes.
    pub bs: u64,
    /// fio `--fsync` (a flush after this many writes; 0: none).
    pub fsync: u32,
    /// Reported as MB/s (true) or IOPS (false).
    pub bandwidth: bool,
    /// fio `--numjobs` (connections) and `--iodepth` (requests in flight
    /// per connection).
    pub numjobs: u32,
    pub iodepth: u32,
}

/// The jobs of the issue that motivated this benchmark (issue 19), plus a
/// sequential read, in run order.
pub const JOBS: [Job; 6] = [
    Job {
        name: "seq-write-1m",
        rw: "write",
        bs: 1 << 20,
        fsync: 0,
        bandwidth: true,
        numjobs: 1,
        iodepth: 1,
    },
    Job {
        name: "seq-write-1m-fsync-8m",
        rw: "write",
        bs: 1 << 20,
        fsync: 8,
        bandwidth: true,
        numjobs: 1,
        iodepth: 1,
    },
    Job {
        name: "rand-write-4k-fsync-256",
        rw: "randwrite",
        bs: 4096,
        fsync: 256,
        bandwidth: false,
        numjobs: 1,
        iodepth: 1,
    },
    Job {
        name: "rand-write-4k-fsync-256-4x16",
        rw: "randwrite",
        bs: 4096,
        fsync: 256,
        bandwidth: false,
        numjobs: 4,
        iodepth: 16,
    },
    Job {
        name: "rand-read-4k",
        rw: "randread",
        bs: 4096,
        fsync: 0,
        bandwidth: false,
        numjobs: 1,
        iodepth: 1,
    },
    Job {
        name: "seq-read-1m",
        rw: "read",
        bs: 1 << 20,
        fsync: 0,
        bandwidth: true,
        numjobs: 1,
        iodepth: 1,
    },
];

/// A scaling job: `rw` at 4 KiB, iodepth 16 per connection, `n`
/// connections (fio `--numjobs`); writes flush every 256.
const fn scaling(name: &'static str, rw: &'static str, n: u32) -> Job {
    Job {
        name,
        rw,
        bs: 4096,
        fsync: if matches!(rw.as_bytes(), b"randwrite") {
            256
        } else {
            0
        },
        bandwidth: false,
        numjobs: n,
        iodepth: 16,
    }
}

/// The connection counts `--jobs` may ask for.
pub const SCALING_COUNTS: [u32; 5] = [1, 2, 4, 8, 16];

/// The scaling jobs (issue 38): random read and random write (a flush
/// every 256 writes) at 4 KiB, iodepth 16 per connection, for each count
/// of [`SCALING_COUNTS`], in run order.
pub const SCALING: [Job; 10] = [
    scaling("rand-read-4k-j1", "randread", 1),
    scaling("rand-read-4k-j2", "randread", 2),
    scaling("rand-read-4k-j4", "randread", 4),
    scaling("rand-read-4k-j8", "randread", 8),
    scaling("rand-read-4k-j16", "randread", 16),
    scaling("rand-write-4k-fsync-256-j1", "randwrite", 1),
    scaling("rand-write-4k-fsync-256-j2", "randwrite", 2),
    scaling("rand-write-4k-fsync-256-j4", "randwrite", 4),
    scaling("rand-write-4k-fsync-256-j8", "randwrite", 8),
    scaling("rand-write-4k-fsync-256-j16", "randwrite", 16),
];

/// The jobs a run measures: the comparison's [`JOBS`] (unless
/// `scaling_only`), then the scaling jobs of the counts in `counts`.
pub fn jobs(counts: &[u32], scaling_only: bool) -> Vec<Job> {
    let base = if scaling_only { &[][..] } else { &JOBS[..] };
    base.iter()
        .copied()
        .chain(
            SCALING
                .iter()
                .copied()
                .filter(|j| counts.contains(&j.numjobs)),
        )
        .collect()
}

impl Job {
    fn describe(&self) -> String {
        let bs = if self.bs >= 1 << 20 {
            format!("{} MiB", self.bs >> 20)
        } else {
            format!("{} KiB", self.bs >> 10)
        };
        let flush = match self.fsync {
            0 => String::new(),
            n => format!(", fsync every {n} writes"),
        };
        let jobs = match self.numjobs {
            1 => String::new(),
            n => format!("{n} jobs (connections) x "),
        };
        format!(
            "fio {} bs {bs}{flush}, {jobs}iodepth {}",
            self.rw, self.iodepth
        )
    }
}

/// One measured (server, job) pair.
#[derive(Clone, Debug, Serialize)]
pub struct NbdRun {
    pub server: String,
    pub job: String,
    pub status: String,
    /// MB/s (10^6 bytes) for bandwidth jobs, IOPS otherwise.
    pub value: Option<f64>,
    pub unit: String,
    pub bytes: Option<u64>,
    pub flushes: Option<u64>,
    pub seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The whole report (the `--json` document).
#[derive(Clone, Debug, Serialize)]
pub struct NbdReport {
    pub bench: String,
    pub commit: String,
    pub dir: String,
    pub dir_fs: String,
    pub export_bytes: u64,
    pub runtime_s: u64,
    /// CPUs of the machine measured (`available_parallelism`): the scaling
    /// jobs' figures mean nothing without it.
    pub cores: usize,
    pub scftl_ftl: String,
    /// The scftl export was served with `--mmap-reads`.
    pub scftl_mmap_reads: bool,
    pub fio: String,
    pub versions: Vec<(String, String)>,
    pub runs: Vec<NbdRun>,
    /// `scftl serve`'s peak resident set (VmHWM), bytes, and per logical
    /// sector of the export.
    pub scftl_peak_rss_bytes: Option<u64>,
    pub scftl_rss_bytes_per_sector: Option<f64>,
    pub scftl_sector_bytes: Option<u64>,
    pub ratios: Vec<(String, String, Option<f64>)>,
}

/// A running server with its socket.
struct Served {
    daemon: Daemon,
    socket: PathBuf,
}

impl Served {
    fn uri(&self) -> String {
        format!("nbd+unix:///?socket={}", self.socket.display())
    }
}

fn tool_for(server: &str) -> &'static str {
    match server {
        "nbdkit" => "nbdkit",
        "qemu-nbd" => "qemu-nbd",
        _ => "scftl",
    }
}

/// Starts `server` on a fresh backing file in `dir`.
fn start(a: &Ctx, server: &str) -> BResult<Served> {
    let socket = a.dir.join(format!("{server}.sock"));
    let _ = std::fs::remove_file(&socket);
    let image = a.dir.join(format!("{server}.img"));
    let _ = std::fs::remove_file(&image);
    let mut cmd;
    match server {
        "scftl" => {
            let size = a.size.to_string();
            proc::run_ok(
                Command::new(&a.scftl)
                    .arg("format")
                    .arg(&image)
                    .args(["--size", &size, "--ftl", &a.ftl]),
                SETUP_LIMIT,
            )?;
            cmd = Command::new(&a.scftl);
            cmd.arg("serve")
                .arg(&image)
                .arg("--unix")
                .arg(&socket)
                .arg("--quiet");
            if a.mmap_reads {
                cmd.arg("--mmap-reads");
            }
        }
        _ => {
            let f = std::fs::File::create(&image)
                .map_err(|e| format!("cannot create {}: {e}", image.display()))?;
            f.set_len(a.size)
                .map_err(|e| format!("cannot size {}: {e}", image.display()))?;
            if server == "nbdkit" {
                cmd = Command::new("nbdkit");
                cmd.arg("-f").arg("-U").arg(&socket).arg("file");
                cmd.arg(format!("file={}", image.display()));
            } else {
                cmd = Command::new("qemu-nbd");
                cmd.args(["-f", "raw", "--cache=writeback", "--persistent", "-k"])
                    .arg(&socket)
                    .arg(&image);
            }
        }
    }
    let mut daemon = Daemon::spawn(server, cmd)?;
    let deadline = std::time::Instant::now() + SETUP_LIMIT;
    while !socket.exists() {
        if let Some(s) = daemon.wait_exit(Duration::from_millis(20)) {
            return Err(format!("{server} exited ({s}): {}", daemon.log_tail()));
        }
        if std::time::Instant::now() > deadline {
            return Err(format!("{server} did not create {}", socket.display()));
        }
    }
    Ok(Served { daemon, socket })
}

/// What a fio run measured.
#[derive(Debug)]
struct FioOut {
    bytes: u64,
    ios: u64,
    flushes: u64,
    seconds: f64,
}

/// Runs one fio job against `uri`; `runtime` None runs it over the whole
/// export once (the fill), else time-based for that many seconds.
fn fio(uri: &str, job: &Job, size: u64, runtime: Option<u64>) -> BResult<FioOut> {
    let mut c = Command::new("fio");
    c.arg(format!("--name={}", job.name))
        .args([
            "--ioengine=nbd",
            "--output-format=json",
            "--group_reporting",
        ])
        .arg(format!("--iodepth={}", job.iodepth))
        .arg(format!("--numjobs={}", job.numjobs))
        .arg(format!("--uri={uri}"))
        .arg(format!("--rw={}", job.rw))
        .arg(format!("--bs={}", job.bs))
        .arg(format!("--size={size}"))
        .arg("--randseed=42");
    if job.fsync > 0 {
        c.arg(format!("--fsync={}", job.fsync));
    }
    if let Some(t) = runtime {
        c.args(["--time_based", &format!("--runtime={t}")]);
    }
    let limit = Duration::from_secs(runtime.unwrap_or(0) + SETUP_LIMIT.as_secs());
    let out = proc::run_ok(&mut c, limit)?;
    parse_fio(&out).map_err(|e| format!("{}: {e}", proc::describe(&c)))
}

/// Reads fio's JSON (after any lines fio printed before it).
fn parse_fio(out: &str) -> BResult<FioOut> {
    let start = out.find('{').ok_or("no JSON in fio's output")?;
    let v: serde_json::Value =
        serde_json::from_str(&out[start..]).map_err(|e| format!("fio JSON: {e}"))?;
    let j = &v["jobs"][0];
    if j["error"].as_u64().unwrap_or(0) != 0 {
        return Err(format!("fio job error {}", j["error"]));
    }
    let side = if j["read"]["io_bytes"].as_u64().unwrap_or(0) > 0 {
        &j["read"]
    } else {
        &j["write"]
    };
    let bytes = side["io_bytes"].as_u64().ok_or("no io_bytes")?;
    let ios = side["total_ios"].as_u64().unwrap_or(0);
    let ms = side["runtime"].as_u64().ok_or("no runtime")?;
    Ok(FioOut {
        bytes,
        ios,
        flushes: j["sync"]["total_ios"].as_u64().unwrap_or(0),
        seconds: ms as f64 / 1e3,
    })
}

/// Peak resident set of a process, from /proc/PID/status (VmHWM), bytes.
fn peak_rss(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn version(tool: &str, arg: &str) -> String {
    Command::new(tool)
        .arg(arg)
        .output()
        .ok()
        .and_then(|o| {
            let s = String::from_utf8_lossy(&o.stdout);
            s.lines().next().map(|l| l.trim().to_string())
        })
        .unwrap_or_else(|| "not installed".into())
}

fn dir_fs(dir: &Path) -> String {
    Command::new("stat")
        .args(["-f", "-c", "%T"])
        .arg(dir)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// The run's settings, after defaults.
struct Ctx {
    scftl: PathBuf,
    dir: PathBuf,
    size: u64,
    ftl: String,
    mmap_reads: bool,
}

/// Runs the comparison and returns the report (also printed, and written
/// as `--json` / `--json-out` ask).
pub fn run(a: &NbdArgs) -> BResult<NbdReport> {
    let quick = a.common.quick;
    let size = a
        .size_mib
        .unwrap_or(if quick { 256 } else { 2048 })
        .checked_mul(1 << 20)
        .ok_or("--size-mib: too large")?;
    let runtime = a.runtime.unwrap_or(if quick { 2 } else { 20 });
    let work = tempfile::Builder::new()
        .prefix("scftl-bench-nbd")
        .tempdir_in(&a.dir)
        .map_err(|e| format!("cannot make a work directory in {}: {e}", a.dir.display()))?;
    let ctx = Ctx {
        scftl: crate::app::scftl_exe(a.scftl.as_deref()),
        dir: work.path().to_path_buf(),
        size,
        ftl: a.ftl.clone(),
        mmap_reads: a.mmap_reads,
    };
    let log = |m: String| {
        if !a.common.silent {
            eprintln!("bench nbd: {m}");
        }
    };
    for n in &a.jobs {
        if !SCALING_COUNTS.contains(n) {
            return Err(format!(
                "--jobs {n}: use connection counts among 1, 2, 4, 8, 16"
            ));
        }
    }
    if a.scaling_only && a.jobs.is_empty() {
        return Err("--scaling-only needs --jobs (e.g. --jobs 1,2,4)".into());
    }
    let job_list = jobs(&a.jobs, a.scaling_only);
    let mut runs = Vec::new();
    let (mut rss, mut sector) = (None, None);
    for server in SERVERS {
        let missing: Vec<&str> = ["fio", tool_for(server)]
            .into_iter()
            .filter(|t| {
                if *t == "scftl" {
                    !ctx.scftl.is_file()
                } else {
                    !proc::have_tool(t)
                }
            })
            .collect();
        if !missing.is_empty() {
            let why = format!("not installed: {}", missing.join(", "));
            log(format!("{server}: skipped ({why})"));
            for j in &job_list {
                runs.push(skipped(server, j, &why));
            }
            continue;
        }
        log(format!("{server}: filling {} MiB", size >> 20));
        let mut served = match start(&ctx, server) {
            Ok(s) => s,
            Err(e) => {
                for j in &job_list {
                    runs.push(failed(server, j, &e));
                }
                continue;
            }
        };
        let filled =
            (0..FILL_PASSES).try_for_each(|_| fio(&served.uri(), &JOBS[0], size, None).map(|_| ()));
        if let Err(e) = filled {
            for j in &job_list {
                runs.push(failed(server, j, &format!("fill: {e}")));
            }
            continue;
        }
        for j in &job_list {
            log(format!("{server}: {} for {runtime} s", j.name));
            runs.push(match fio(&served.uri(), j, size, Some(runtime)) {
                Ok(o) => measured(server, j, &o),
                Err(e) => failed(server, j, &e),
            });
        }
        if server == "scftl" {
            if let Some(pid) = served.daemon.pid() {
                rss = peak_rss(pid);
            }
            if let Ok(line) = served.daemon.stats(SETUP_LIMIT) {
                sector = line
                    .split_whitespace()
                    .find_map(|f| f.strip_prefix("sector_bytes="))
                    .and_then(|v| v.parse::<u64>().ok());
            }
        }
        if served.daemon.stop(Duration::from_secs(120)).is_none() {
            log(format!("{server}: did not stop on SIGTERM; killed"));
        }
        let _ = std::fs::remove_file(&served.socket);
        let _ = std::fs::remove_file(ctx.dir.join(format!("{server}.img")));
    }
    let per_sector = match (rss, sector) {
        (Some(r), Some(s)) if s > 0 => Some(r as f64 / (size / s) as f64),
        _ => None,
    };
    let mut rep = NbdReport {
        bench: "nbd".into(),
        commit: git_commit(),
        dir: a.dir.display().to_string(),
        dir_fs: dir_fs(&a.dir),
        export_bytes: size,
        runtime_s: runtime,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        scftl_ftl: a.ftl.clone(),
        scftl_mmap_reads: a.mmap_reads,
        fio: version("fio", "--version"),
        versions: vec![
            ("nbdkit".into(), version("nbdkit", "--version")),
            ("qemu-nbd".into(), version("qemu-nbd", "--version")),
        ],
        runs,
        scftl_peak_rss_bytes: rss,
        scftl_rss_bytes_per_sector: per_sector,
        scftl_sector_bytes: sector,
        ratios: Vec::new(),
    };
    rep.ratios = ratios(&rep.runs);
    crate::output::emit(&a.common, &render(&rep), &rep)?;
    Ok(rep)
}

fn base(server: &str, j: &Job, status: &str) -> NbdRun {
    NbdRun {
        server: server.into(),
        job: j.name.into(),
        status: status.into(),
        value: None,
        unit: if j.bandwidth { "MB/s" } else { "IOPS" }.into(),
        bytes: None,
        flushes: None,
        seconds: None,
        reason: None,
    }
}

fn skipped(server: &str, j: &Job, why: &str) -> NbdRun {
    NbdRun {
        reason: Some(why.into()),
        ..base(server, j, "skipped")
    }
}

fn failed(server: &str, j: &Job, why: &str) -> NbdRun {
    NbdRun {
        reason: Some(why.into()),
        ..base(server, j, "failed")
    }
}

fn measured(server: &str, j: &Job, o: &FioOut) -> NbdRun {
    let secs = o.seconds.max(1e-9);
    let value = if j.bandwidth {
        o.bytes as f64 / 1e6 / secs
    } else {
        o.ios as f64 / secs
    };
    NbdRun {
        value: Some(value),
        bytes: Some(o.bytes),
        flushes: Some(o.flushes),
        seconds: Some(o.seconds),
        ..base(server, j, "measured")
    }
}

/// The jobs of [`JOBS`] and [`SCALING`] that `runs` holds, in table
/// order.
fn jobs_in(runs: &[NbdRun]) -> impl Iterator<Item = &'static Job> + '_ {
    JOBS.iter()
        .chain(SCALING.iter())
        .filter(|j| runs.iter().any(|r| r.job == j.name))
}

/// scftl's value over each other server's, per job.
pub fn ratios(runs: &[NbdRun]) -> Vec<(String, String, Option<f64>)> {
    let value = |s: &str, j: &str| {
        runs.iter()
            .find(|r| r.server == s && r.job == j)
            .and_then(|r| r.value)
    };
    let mut out = Vec::new();
    for j in jobs_in(runs) {
        for other in &SERVERS[1..] {
            let r = match (value("scftl", j.name), value(other, j.name)) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            };
            out.push((j.name.to_string(), format!("scftl/{other}"), r));
        }
    }
    out
}

/// The text report.
pub fn render(rep: &NbdReport) -> String {
    let mut h = Header::new("NBD bandwidth: scftl serve vs nbdkit file vs qemu-nbd");
    h.add(
        "exports",
        format!(
            "{} MiB each, backing files in {} ({}), Unix sockets",
            rep.export_bytes >> 20,
            rep.dir,
            rep.dir_fs
        ),
    );
    h.add(
        "jobs",
        format!(
            "fio {} nbd engine, {} s each after {} sequential passes over the export, same order on every server; a job with fsync and several connections flushes per connection",
            rep.fio, rep.runtime_s, FILL_PASSES
        ),
    );
    h.add(
        "scftl",
        format!(
            "--ftl {}{}",
            rep.scftl_ftl,
            if rep.scftl_mmap_reads {
                " --mmap-reads"
            } else {
                ""
            }
        ),
    );
    for (k, v) in &rep.versions {
        h.add(k, v.clone());
    }
    h.add(
        "qemu-nbd",
        "--cache=writeback (flushes reach the file with fdatasync)",
    );
    h.add("commit", rep.commit.clone());
    let mut head = vec!["job", "unit"];
    head.extend(SERVERS);
    head.extend(["scftl/nbdkit", "scftl/qemu-nbd"]);
    let mut t = Table::new(&head);
    for j in jobs_in(&rep.runs) {
        let mut row = vec![
            j.name.to_string(),
            if j.bandwidth { "MB/s" } else { "IOPS" }.to_string(),
        ];
        for s in SERVERS {
            let r = rep.runs.iter().find(|r| r.server == s && r.job == j.name);
            row.push(match r {
                Some(NbdRun { value: Some(v), .. }) => fmt_int(*v),
                Some(r) => r.status.clone(),
                None => "-".into(),
            });
        }
        for other in &SERVERS[1..] {
            let want = format!("scftl/{other}");
            let r = rep
                .ratios
                .iter()
                .find(|(jj, w, _)| jj == j.name && *w == want)
                .and_then(|x| x.2);
            row.push(r.map_or("n/a".into(), |x| format!("{x:.2}")));
        }
        t.push(row);
    }
    let mut s = h.render();
    s.push_str(&t.render());
    for j in jobs_in(&rep.runs) {
        s.push_str(&format!("  {}: {}\n", j.name, j.describe()));
    }
    s.push_str(&render_scaling(rep));
    match (rep.scftl_peak_rss_bytes, rep.scftl_rss_bytes_per_sector) {
        (Some(r), Some(p)) => s.push_str(&format!(
            "scftl serve peak RSS (VmHWM): {:.1} MiB = {p:.2} B per logical sector of {} B\n",
            r as f64 / (1 << 20) as f64,
            rep.scftl_sector_bytes.unwrap_or(0)
        )),
        _ => s.push_str("scftl serve peak RSS: not measured\n"),
    }
    for r in rep.runs.iter().filter(|r| r.reason.is_some()) {
        s.push_str(&format!(
            "{} {}: {} ({})\n",
            r.server,
            r.job,
            r.status,
            r.reason.as_deref().unwrap_or("")
        ));
    }
    s
}

/// Each server's scaling: its value with N connections over its value
/// with one, per scaling job measured (empty without `--jobs`).
fn render_scaling(rep: &NbdReport) -> String {
    let value = |server: &str, name: &str| {
        rep.runs
            .iter()
            .find(|r| r.server == server && r.job == name)
            .and_then(|r| r.value)
    };
    let mut s = String::new();
    for server in SERVERS {
        for pair in SCALING.chunks(SCALING_COUNTS.len()) {
            let Some(one) = value(server, pair[0].name).filter(|v| *v > 0.0) else {
                continue;
            };
            let parts: Vec<String> = pair[1..]
                .iter()
                .filter_map(|j| value(server, j.name).map(|v| (j.numjobs, v / one)))
                .map(|(n, x)| format!("{n} jobs {x:.2}x"))
                .collect();
            if !parts.is_empty() {
                let what = pair[0].name.trim_end_matches("-j1");
                s.push_str(&format!(
                    "scaling of {server} {what} over 1 job ({} cores): {}\n",
                    rep.cores,
                    parts.join(", ")
                ));
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_json_after_a_banner_line_parses() {
        let out = "fio: connected to NBD server\n{\"jobs\":[{\"error\":0,\
                   \"read\":{\"io_bytes\":0,\"total_ios\":0,\"runtime\":0},\
                   \"write\":{\"io_bytes\":4194304,\"total_ios\":4,\"runtime\":2000},\
                   \"sync\":{\"total_ios\":1}}]}";
        let o = parse_fio(out).unwrap();
        assert_eq!((o.bytes, o.ios, o.flushes), (4 << 20, 4, 1));
        assert!((o.seconds - 2.0).abs() < 1e-9);
        assert!(parse_fio("no json").is_err());
        let bad = "{\"jobs\":[{\"error\":5}]}";
        assert!(parse_fio(bad).unwrap_err().contains("error 5"));
    }

    #[test]
    fn ratios_divide_scftl_by_each_peer_and_skip_missing() {
        let j = &JOBS[0];
        let o = |b| FioOut {
            bytes: b,
            ios: 1,
            flushes: 0,
            seconds: 1.0,
        };
        let runs = vec![
            measured("scftl", j, &o(200_000_000)),
            measured("nbdkit", j, &o(400_000_000)),
            skipped("qemu-nbd", j, "not installed"),
        ];
        let r = ratios(&runs);
        let get = |w: &str| r.iter().find(|x| x.0 == j.name && x.1 == w).unwrap().2;
        assert_eq!(get("scftl/nbdkit"), Some(0.5));
        assert_eq!(get("scftl/qemu-nbd"), None);
    }
}
