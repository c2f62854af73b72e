//! The storage stacks of the application benchmark and how each is brought
//! up and torn down.
//!
//! A stack is a file system over an FTL: ext4 (`data=ordered`, or
//! `data=journal,journal_async_commit`) on an NBD export of `scftl serve`,
//! reached through nbdfuse and a loop device (no /dev/nbd needed), or our
//! own file system mounted by `scftl mount` in `log`, `xlog` or `group`
//! mode. Every command line that starts a stack is built by [`Launcher`],
//! so options such as the timing model are added in exactly one place.
//!
//! Invariants: a mounted stack is a guard whose `Drop` undoes every step
//! that succeeded, in reverse order (unmount, detach the loop device,
//! unmount nbdfuse, stop the server), on every exit path including errors
//! and panics; a stack whose tools are missing is never started, and
//! [`StackSpec::missing`] says why.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::proc::{self, Daemon};
use crate::workload::BResult;

/// How long a tool that sets up or tears down a stack may take.
const TOOL_LIMIT: Duration = Duration::from_secs(120);

/// The file system half of a stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsKind {
    /// ext4 `data=ordered` (the default: metadata journaling).
    Ext4Ordered,
    /// ext4 `data=journal,journal_async_commit` (full data journaling).
    Ext4Journal,
    /// Our file system (crate `fs`) in a commit mode: `log`, `xlog`, `group`.
    Ours(&'static str),
}

impl FsKind {
    /// Short name: `ext4-ordered`, `ext4-journal`, `fs-log`, ...
    pub fn name(self) -> String {
        match self {
            FsKind::Ext4Ordered => "ext4-ordered".into(),
            FsKind::Ext4Journal => "ext4-journal".into(),
            FsKind::Ours(m) => format!("fs-{m}"),
        }
    }

    /// The file systems in report order (the chart's x axis).
    pub const ALL: [FsKind; 5] = [
        FsKind::Ext4Ordered,
        FsKind::Ext4Journal,
        FsKind::Ours("log"),
        FsKind::Ours("xlog"),
        FsKind::Ours("group"),
    ];
}

/// One stack: a file system on an FTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackSpec {
    pub fs: FsKind,
    /// `scftl`, `async` or `sync` (`scftl format --ftl`).
    pub ftl: &'static str,
}

impl StackSpec {
    /// `ext4-ordered/async`, `fs-group/scftl`, ...
    pub fn name(&self) -> String {
        format!("{}/{}", self.fs.name(), self.ftl)
    }

    /// Every stack the paper's comparison needs: ext4 in both modes on all
    /// three FTLs; our file system in `log` mode on the two baselines (the
    /// only mode they can make crash safe) and in `xlog` and `group` mode
    /// on SCFTL (the modes only a snapshot-consistent FTL makes safe).
    pub fn all() -> Vec<StackSpec> {
        let mut v = Vec::new();
        for fs in [FsKind::Ext4Ordered, FsKind::Ext4Journal] {
            for ftl in ["async", "sync", "scftl"] {
                v.push(StackSpec { fs, ftl });
            }
        }
        for ftl in ["async", "sync"] {
            v.push(StackSpec {
                fs: FsKind::Ours("log"),
                ftl,
            });
        }
        for m in ["xlog", "group"] {
            v.push(StackSpec {
                fs: FsKind::Ours(m),
                ftl: "scftl",
            });
        }
        v
    }

    /// Why this stack cannot run here (missing tools or permissions), or
    /// None if it can.
    pub fn missing(&self, launcher: &Launcher) -> Option<String> {
        if !launcher.scftl.is_file() {
            return Some(format!(
                "the scftl executable {} does not exist (build it with `cargo build -p cli`, or pass --scftl)",
                launcher.scftl.display()
            ));
        }
        if !Path::new("/dev/fuse").exists() {
            return Some("/dev/fuse is missing (FUSE is needed by nbdfuse and scftl mount)".into());
        }
        let tools: &[&str] = match self.fs {
            FsKind::Ext4Ordered | FsKind::Ext4Journal => &[
                "nbdfuse",
                "losetup",
                "mkfs.ext4",
                "mount",
                "umount",
                "fusermount3",
            ],
            FsKind::Ours(_) => &["fusermount3"],
        };
        let absent: Vec<&str> = tools
            .iter()
            .copied()
            .filter(|t| !proc::have_tool(t))
            .collect();
        if !absent.is_empty() {
            return Some(format!(
                "not installed: {} (Debian: nbdfuse, mount, e2fsprogs, fuse3)",
                absent.join(", ")
            ));
        }
        if matches!(self.fs, FsKind::Ext4Ordered | FsKind::Ext4Journal) && !proc::is_root() {
            return Some("needs root (loop devices and mount)".into());
        }
        None
    }
}

/// Builds every command line that creates, serves or mounts a stack.
#[derive(Clone, Debug)]
pub struct Launcher {
    pub scftl: PathBuf,
    /// `--timing MODEL` for serve and mount; `none` leaves the flag out.
    pub timing: String,
    pub geometry: String,
    /// Logical size of every image, bytes: the same for every FTL, so each
    /// file system is made with the same layout (see [`Launcher::new`]).
    pub size_bytes: u64,
}

impl Launcher {
    /// A launcher whose images all expose SCFTL's default logical size on
    /// `geometry` (half the raw capacity; the baselines would otherwise
    /// expose more, and ext4 would lay itself out differently on them).
    pub fn new(scftl: PathBuf, timing: &str, geometry: &str) -> BResult<Launcher> {
        let g = flash::Geometry::preset(geometry).map_err(|e| format!("--geometry: {e}"))?;
        Ok(Launcher {
            scftl,
            timing: timing.to_string(),
            geometry: geometry.to_string(),
            size_bytes: g.raw_bytes() / 2,
        })
    }

    fn scftl(&self) -> Command {
        Command::new(&self.scftl)
    }

    fn timing_args(&self) -> Vec<String> {
        if self.timing == "none" {
            Vec::new()
        } else {
            vec!["--timing".into(), self.timing.clone()]
        }
    }

    /// Fails with a clear message if a timing model is requested but this
    /// `scftl` has no `--timing` option on `serve` or `mount` (instead of
    /// every stack failing the same way).
    pub fn check_timing_supported(&self) -> BResult<()> {
        if self.timing == "none" || !self.scftl.is_file() {
            return Ok(());
        }
        for sub in ["serve", "mount"] {
            let out = proc::run_ok(self.scftl().args([sub, "--help"]), TOOL_LIMIT)?;
            if !out.contains("--timing") {
                return Err(format!(
                    "{} {sub} has no --timing option, so timing model `{}` cannot be applied; \
                     pass --timing none (the device then runs at the speed of its image file) \
                     or use an scftl that has it",
                    self.scftl.display(),
                    self.timing
                ));
            }
        }
        Ok(())
    }

    /// `scftl format IMAGE --geometry G --size BYTES --ftl FTL --force`.
    pub fn format(&self, image: &Path, ftl: &str) -> Command {
        let mut c = self.scftl();
        c.arg("format").arg(image).args([
            "--geometry",
            &self.geometry,
            "--size",
            &self.size_bytes.to_string(),
            "--ftl",
            ftl,
            "--force",
        ]);
        c
    }

    /// `scftl info --json IMAGE` (the FTL configuration for the report).
    pub fn info(&self, image: &Path) -> Command {
        let mut c = self.scftl();
        c.arg("info").arg(image).arg("--json");
        c
    }

    /// `scftl mkfs IMAGE`.
    pub fn mkfs(&self, image: &Path) -> Command {
        let mut c = self.scftl();
        c.arg("mkfs").arg(image);
        c
    }

    /// `scftl serve IMAGE --listen 127.0.0.1:0 --quiet [--timing MODEL]`.
    pub fn serve(&self, image: &Path) -> Command {
        let mut c = self.scftl();
        c.arg("serve")
            .arg(image)
            .args(["--listen", "127.0.0.1:0", "--quiet"])
            .args(self.timing_args());
        c
    }

    /// `scftl mount IMAGE DIR --mode MODE [--timing MODEL]`.
    pub fn mount(&self, image: &Path, dir: &Path, mode: &str) -> Command {
        let mut c = self.scftl();
        c.arg("mount")
            .arg(image)
            .arg(dir)
            .args(["--mode", mode])
            .args(self.timing_args());
        c
    }
}

/// A mounted stack. Dropping it tears everything down.
pub enum Mounted {
    Ext4(Ext4Stack),
    Ours(OursStack),
}

impl Mounted {
    /// Formats a fresh image for `spec` under `dir` and mounts it.
    pub fn up(spec: &StackSpec, l: &Launcher, dir: &Path) -> BResult<Mounted> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let image = dir.join("disk.img");
        proc::run_ok(&mut l.format(&image, spec.ftl), TOOL_LIMIT)?;
        match spec.fs {
            FsKind::Ext4Ordered => Ok(Mounted::Ext4(Ext4Stack::up(
                l,
                &image,
                dir,
                "data=ordered",
            )?)),
            FsKind::Ext4Journal => Ok(Mounted::Ext4(Ext4Stack::up(
                l,
                &image,
                dir,
                "data=journal,journal_async_commit",
            )?)),
            FsKind::Ours(mode) => Ok(Mounted::Ours(OursStack::up(l, &image, dir, mode)?)),
        }
    }

    /// The directory the workloads run in.
    pub fn root(&self) -> &Path {
        match self {
            Mounted::Ext4(s) => &s.mnt,
            Mounted::Ours(s) => &s.mnt,
        }
    }

    /// The lines `scftl serve` / `scftl mount` printed about the timing
    /// model they applied (the report shows them beside the requested one).
    pub fn timing_lines(&mut self) -> Vec<String> {
        let d = match self {
            Mounted::Ext4(s) => s.server.as_mut(),
            Mounted::Ours(s) => s.mount.as_mut(),
        };
        let Some(d) = d else { return Vec::new() };
        d.collect();
        d.log
            .iter()
            .filter(|l| l.to_ascii_lowercase().contains("timing"))
            .cloned()
            .collect()
    }

    /// Block-layer counters of the device so far, when the stack can
    /// count them.
    pub fn counters(&self) -> Option<DevCounters> {
        match self {
            Mounted::Ext4(s) => s.loop_counters(),
            Mounted::Ours(_) => None,
        }
    }

    /// Tears the stack down; fails if a step reports that data may have
    /// been lost (a failed unmount or final flush).
    pub fn down(self) -> BResult<()> {
        match self {
            Mounted::Ext4(mut s) => s.down(),
            Mounted::Ours(mut s) => s.down(),
        }
    }
}

/// What the block layer below a file system counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DevCounters {
    /// Completed flush requests.
    pub flushes: u64,
    /// 512-byte sectors written.
    pub sectors_written: u64,
}

/// Where `flushes/op` and `KiB written/op` come from for a stack, or why
/// they are not available.
pub fn counter_note(fs: FsKind) -> &'static str {
    match fs {
        FsKind::Ext4Ordered | FsKind::Ext4Journal => {
            "flushes and KiB written: the loop device's completed flush requests and sectors written (/sys/block/loopN/stat); nbdfuse forwards each flush to the server as an NBD flush"
        }
        FsKind::Ours(_) => {
            "flushes and KiB written: n/a for fs-*, `scftl mount` exposes no counters (it prints no statistics on exit)"
        }
    }
}

/// Why `pages/op` is not available.
pub const PAGES_NOTE: &str = "pages programmed: n/a, neither `scftl serve` nor `scftl mount` reports flash counters, and `scftl info` on the image shows only erase counts";

/// ext4 on `scftl serve`, through nbdfuse and a loop device.
pub struct Ext4Stack {
    pub mnt: PathBuf,
    fuse_dir: PathBuf,
    server: Option<Daemon>,
    nbdfuse: Option<Daemon>,
    loopdev: Option<String>,
    mounted: bool,
}

impl Ext4Stack {
    fn up(l: &Launcher, image: &Path, dir: &Path, options: &str) -> BResult<Ext4Stack> {
        let mut st = Ext4Stack {
            mnt: dir.join("mnt"),
            fuse_dir: dir.join("nbdfuse"),
            server: None,
            nbdfuse: None,
            loopdev: None,
            mounted: false,
        };
        for d in [&st.mnt, &st.fuse_dir] {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        let server = st
            .server
            .insert(Daemon::spawn("scftl serve", l.serve(image))?);
        let line = server.wait_for("nbd://127.0.0.1:", TOOL_LIMIT)?;
        let port: String = line
            .split("nbd://127.0.0.1:")
            .nth(1)
            .unwrap_or("")
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let uri = format!("nbd://127.0.0.1:{port}");

        // nbdfuse writes its pid file once the FUSE file is ready.
        let pidfile = dir.join("nbdfuse.pid");
        let mut c = Command::new("nbdfuse");
        c.arg("-P")
            .arg(&pidfile)
            .arg(st.fuse_dir.join("disk"))
            .arg(&uri);
        st.nbdfuse = Some(Daemon::spawn("nbdfuse", c)?);
        let deadline = std::time::Instant::now() + TOOL_LIMIT;
        while !pidfile.exists() {
            if let Some(n) = st.nbdfuse.as_mut() {
                if let Some(s) = n.wait_exit(Duration::from_millis(20)) {
                    return Err(format!("nbdfuse exited ({s}): {}", n.log_tail()));
                }
            }
            if std::time::Instant::now() > deadline {
                return Err("nbdfuse did not become ready".into());
            }
        }
        let out = proc::run_ok(
            Command::new("losetup")
                .args(["-f", "--show"])
                .arg(st.fuse_dir.join("disk")),
            TOOL_LIMIT,
        )?;
        let dev = out.trim().to_string();
        st.loopdev = Some(dev.clone());
        // The export is freshly formatted: discarding it is wasted time.
        proc::run_ok(
            Command::new("mkfs.ext4").args(["-q", "-F", "-E", "nodiscard", &dev]),
            TOOL_LIMIT,
        )?;
        proc::run_ok(
            Command::new("mount")
                .args(["-t", "ext4", "-o", options, &dev])
                .arg(&st.mnt),
            TOOL_LIMIT,
        )?;
        st.mounted = true;
        Ok(st)
    }

    /// Sectors written (field 7) and completed flush requests (field 16;
    /// kernels since 5.5) of the loop device, from /sys/block/loopN/stat.
    fn loop_counters(&self) -> Option<DevCounters> {
        let dev = self.loopdev.as_ref()?;
        let name = Path::new(dev).file_name()?.to_string_lossy().into_owned();
        let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).ok()?;
        let f: Vec<&str> = stat.split_whitespace().collect();
        Some(DevCounters {
            sectors_written: f.get(6)?.parse().ok()?,
            flushes: f.get(15)?.parse().ok()?,
        })
    }

    fn down(&mut self) -> BResult<()> {
        let mut errors = Vec::new();
        if self.mounted {
            self.mounted = false;
            let mnt = self.mnt.to_string_lossy().into_owned();
            if let Err(e) = proc::run_ok(Command::new("umount").arg(&mnt), TOOL_LIMIT) {
                errors.push(e);
                let _ = proc::run(Command::new("umount").args(["-l", &mnt]), TOOL_LIMIT);
            }
        }
        if let Some(d) = self.loopdev.take() {
            if let Err(e) = proc::run_ok(Command::new("losetup").args(["-d", &d]), TOOL_LIMIT) {
                errors.push(e);
            }
        }
        if let Some(mut n) = self.nbdfuse.take() {
            let _ = proc::run(
                Command::new("fusermount3").arg("-u").arg(&self.fuse_dir),
                TOOL_LIMIT,
            );
            if n.wait_exit(Duration::from_secs(10)).is_none() {
                n.stop(Duration::from_secs(5));
            }
        }
        if let Some(mut s) = self.server.take() {
            // SIGTERM makes the server flush; anything else may lose data.
            match s.stop(Duration::from_secs(60)) {
                Some(st) if st.success() => {}
                Some(st) => errors.push(format!("scftl serve exited {st}: {}", s.log_tail())),
                None => errors.push("scftl serve ignored SIGTERM and was killed".into()),
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("; "))
        }
    }
}

impl Drop for Ext4Stack {
    fn drop(&mut self) {
        let _ = self.down();
    }
}

/// Our file system, mounted by `scftl mount` in the foreground.
pub struct OursStack {
    pub mnt: PathBuf,
    mount: Option<Daemon>,
}

impl OursStack {
    fn up(l: &Launcher, image: &Path, dir: &Path, mode: &str) -> BResult<OursStack> {
        proc::run_ok(&mut l.mkfs(image), TOOL_LIMIT)?;
        let mnt = dir.join("mnt");
        std::fs::create_dir_all(&mnt).map_err(|e| format!("{}: {e}", mnt.display()))?;
        let mut st = OursStack {
            mnt: mnt.clone(),
            mount: None,
        };
        let d = st
            .mount
            .insert(Daemon::spawn("scftl mount", l.mount(image, &mnt, mode))?);
        d.wait_for("scftl: mounted", TOOL_LIMIT)?;
        Ok(st)
    }

    fn down(&mut self) -> BResult<()> {
        let Some(mut d) = self.mount.take() else {
            return Ok(());
        };
        // Unmounting makes `scftl mount` flush and exit 0; a non-zero exit
        // means the final flush failed.
        let out = proc::run(
            Command::new("fusermount3").arg("-u").arg(&self.mnt),
            TOOL_LIMIT,
        );
        let status = d
            .wait_exit(Duration::from_secs(120))
            .or_else(|| d.stop(Duration::from_secs(30)));
        match status {
            Some(s) if s.success() => Ok(()),
            other => {
                let _ = proc::run(
                    Command::new("fusermount3")
                        .arg("-u")
                        .arg("-z")
                        .arg(&self.mnt),
                    TOOL_LIMIT,
                );
                let um = match out {
                    Ok(o) if !o.status.success() => format!("; fusermount3 -u: {}", o.tail()),
                    _ => String::new(),
                };
                Err(format!(
                    "scftl mount did not exit cleanly ({}){um}: {}",
                    other.map_or("killed".to_string(), |s| s.to_string()),
                    d.log_tail()
                ))
            }
        }
    }
}

impl Drop for OursStack {
    fn drop(&mut self) {
        let _ = self.down();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(c: &Command) -> Vec<String> {
        c.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn timing_flag_is_passed_only_for_a_model() {
        let mut l = Launcher::new("scftl".into(), "none", "small").unwrap();
        assert_eq!(l.size_bytes, 32 << 20);
        let (img, dir) = (Path::new("d.img"), Path::new("m"));
        assert!(!args(&l.serve(img)).contains(&"--timing".to_string()));
        assert!(!args(&l.mount(img, dir, "group")).contains(&"--timing".to_string()));
        l.timing = "paper".into();
        for c in [l.serve(img), l.mount(img, dir, "log")] {
            let a = args(&c);
            let i = a.iter().position(|x| x == "--timing").expect("--timing");
            assert_eq!(a[i + 1], "paper");
        }
    }

    #[test]
    fn ten_stacks_with_unique_names() {
        let names: Vec<String> = StackSpec::all().iter().map(StackSpec::name).collect();
        assert_eq!(names.len(), 10);
        for n in [
            "ext4-ordered/async",
            "ext4-journal/scftl",
            "fs-log/sync",
            "fs-group/scftl",
        ] {
            assert!(names.contains(&n.to_string()), "{n}");
        }
        let mut dedup = names.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), names.len());
    }
}
