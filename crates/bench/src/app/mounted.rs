//! A mounted stack as a guard: bring-up of ext4 over `scftl serve`
//! (server → nbdfuse → loop device → mkfs.ext4 → mount) and of our file
//! system (`scftl mkfs` → `scftl mount`), the block-layer counters the
//! ext4 stacks expose, and teardown.
//!
//! Invariant: every step that succeeded is undone by `Drop`, in reverse
//! order (unmount, detach the loop device, unmount nbdfuse, stop the server
//! with SIGTERM so it flushes), on every exit path including errors and
//! panics; an explicit [`Mounted::down`] also reports a teardown step that
//! may have lost data.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::proc::{self, Daemon};
use super::stack::{FsKind, Launcher, StackSpec, TOOL_LIMIT};
use crate::workload::BResult;

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
        if !l.memory {
            proc::run_ok(&mut l.format(&image, spec.ftl), TOOL_LIMIT)?;
        }
        match spec.fs.ext4_options() {
            Some(options) => {
                let mut st = Ext4Stack::attach(l, &image, spec.ftl, dir)?;
                st.mkfs()?;
                st.mount(options)?;
                Ok(Mounted::Ext4(st))
            }
            None => {
                let FsKind::Ours(mode) = spec.fs else {
                    unreachable!("every kind but ours is ext4")
                };
                Ok(Mounted::Ours(OursStack::up(
                    l, &image, spec.ftl, dir, mode,
                )?))
            }
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

    /// The device's counters so far, from the stats line `scftl serve` /
    /// `scftl mount` prints on SIGUSR1.
    pub fn counters(&mut self) -> BResult<DevCounters> {
        let d = match self {
            Mounted::Ext4(s) => s.server.as_mut(),
            Mounted::Ours(s) => s.mount.as_mut(),
        };
        let d = d.ok_or("the device's process is gone")?;
        let line = d.stats(TOOL_LIMIT)?;
        DevCounters::parse(&line)
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

/// What the scftl device below a file system counted (the FTL's own
/// counters, so every stack is measured at the same layer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DevCounters {
    /// FTL flushes: asked by the host, or issued because an epoch was full.
    pub flushes: u64,
    /// Bytes the host wrote to the device.
    pub bytes_written: u64,
    /// Flash pages programmed (data, delta, checkpoint and GC pages).
    pub pages_programmed: u64,
}

impl DevCounters {
    /// Reads a `scftl: stats: key=value ...` line.
    pub fn parse(line: &str) -> BResult<DevCounters> {
        let get = |key: &str| -> BResult<u64> {
            line.split_whitespace()
                .find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
                .ok_or_else(|| format!("no `{key}=` in the stats line `{line}`"))?
                .parse()
                .map_err(|e| format!("`{key}=` in the stats line `{line}`: {e}"))
        };
        Ok(DevCounters {
            flushes: get("flushes")?,
            bytes_written: get("sectors_written")? * get("sector_bytes")?,
            pages_programmed: get("pages_programmed")?,
        })
    }
}

/// Where the per-operation device counters come from.
pub const COUNTER_NOTE: &str = "flushes/op, KiB written/op and pages/op: the scftl device's own counters (FTL flushes asked by the file system or forced by a full epoch; host bytes written; flash pages programmed, metadata and GC included), sampled before and after the timed phase with SIGUSR1 (`scftl: stats:` line)";

/// ext4 on `scftl serve`, through nbdfuse and a direct-I/O loop device.
///
/// The loop device is attached with `--direct-io=on`, and bring-up fails if
/// the kernel fell back to buffered I/O (it does so silently): through the
/// page cache of the nbdfuse file, a write would complete to ext4 before
/// the server had seen it and reach the server later in writeback order,
/// so neither a flush-less ordering argument (ext4 `nobarrier` on OPTR) nor
/// a kill of the server would mean anything. With direct I/O, a write
/// completes to ext4 only after nbdfuse got the server's reply, and the
/// server replies only after the FTL accepted the write.
pub struct Ext4Stack {
    pub mnt: PathBuf,
    fuse_dir: PathBuf,
    dir: PathBuf,
    server: Option<Daemon>,
    nbdfuse: Option<Daemon>,
    loopdev: Option<String>,
    mounted: bool,
    /// The server's address (kept for re-attaching after a power cut).
    uri: String,
}

impl Ext4Stack {
    /// Serves `image` (or a RAM device) and attaches it as a loop device,
    /// without making or mounting a file system.
    pub fn attach(l: &Launcher, image: &Path, ftl: &str, dir: &Path) -> BResult<Ext4Stack> {
        Ext4Stack::attach_with(l, image, ftl, dir, &[])
    }

    /// [`Ext4Stack::attach`] with `extra` arguments to `scftl serve`.
    pub fn attach_with(
        l: &Launcher,
        image: &Path,
        ftl: &str,
        dir: &Path,
        extra: &[&str],
    ) -> BResult<Ext4Stack> {
        let mut st = Ext4Stack {
            mnt: dir.join("mnt"),
            fuse_dir: dir.join("nbdfuse"),
            dir: dir.to_path_buf(),
            server: None,
            nbdfuse: None,
            loopdev: None,
            mounted: false,
            uri: String::new(),
        };
        for d in [&st.mnt, &st.fuse_dir] {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        let mut serve = l.serve(image, ftl);
        serve.args(extra);
        let server = st.server.insert(Daemon::spawn("scftl serve", serve)?);
        let line = server.wait_for("nbd://127.0.0.1:", TOOL_LIMIT)?;
        let port: String = line
            .split("nbd://127.0.0.1:")
            .nth(1)
            .unwrap_or("")
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        st.uri = format!("nbd://127.0.0.1:{port}");
        st.attach_client()?;
        Ok(st)
    }

    /// Attaches nbdfuse to the server and a direct-I/O loop device to the
    /// nbdfuse file.
    fn attach_client(&mut self) -> BResult<()> {
        let st = self;
        let dir = st.dir.clone();
        let uri = st.uri.clone();
        // nbdfuse writes its pid file once the FUSE file is ready.
        let pidfile = dir.join("nbdfuse.pid");
        let _ = std::fs::remove_file(&pidfile);
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
                .args(["-f", "--show", "--direct-io=on"])
                .arg(st.fuse_dir.join("disk")),
            TOOL_LIMIT,
        )?;
        let dev = out.trim().to_string();
        st.loopdev = Some(dev.clone());
        let name = dev.trim_start_matches("/dev/");
        let dio = std::fs::read_to_string(format!("/sys/block/{name}/loop/dio"))
            .map_err(|e| format!("{dev}: cannot read its dio flag: {e}"))?;
        if dio.trim() != "1" {
            return Err(format!(
                "{dev}: the kernel attached it with buffered I/O despite --direct-io=on \
                 (the nbdfuse file refused O_DIRECT), so writes would reach the server \
                 in page-cache writeback order"
            ));
        }
        Ok(())
    }

    /// The loop device.
    pub fn dev(&self) -> &str {
        self.loopdev.as_deref().unwrap_or("")
    }

    /// `mkfs.ext4` on the device.
    pub fn mkfs(&mut self) -> BResult<()> {
        // The export is freshly formatted: discarding it is wasted time.
        proc::run_ok(
            Command::new("mkfs.ext4").args(["-q", "-F", "-E", "nodiscard", self.dev()]),
            TOOL_LIMIT,
        )?;
        Ok(())
    }

    /// Mounts the device at `mnt` with `mount -o options`.
    pub fn mount(&mut self, options: &str) -> BResult<()> {
        proc::run_ok(
            Command::new("mount")
                .args(["-t", "ext4", "-o", options, self.dev()])
                .arg(&self.mnt),
            TOOL_LIMIT,
        )?;
        self.mounted = true;
        Ok(())
    }

    /// Unmounts (cleanly) if mounted.
    pub fn umount(&mut self) -> BResult<()> {
        if self.mounted {
            self.mounted = false;
            let mnt = self.mnt.to_string_lossy().into_owned();
            if let Err(e) = proc::run_ok(Command::new("umount").arg(&mnt), TOOL_LIMIT) {
                let _ = proc::run(Command::new("umount").args(["-l", &mnt]), TOOL_LIMIT);
                return Err(e);
            }
        }
        Ok(())
    }

    /// The line the server printed about recovering its image.
    pub fn recovery_line(&self) -> Option<String> {
        let s = self.server.as_ref()?;
        s.log
            .iter()
            .find(|l| l.contains("recovered"))
            .map(|l| l.trim_start_matches("scftl: ").to_string())
    }

    /// The power cut: SIGKILL to `scftl serve`, so whatever it had not put
    /// on the image is lost (the image file itself stays as the process
    /// left it). The file system above sees I/O errors from then on.
    pub fn kill_server(&mut self) {
        if let Some(mut s) = self.server.take() {
            s.kill();
        }
    }

    /// The simulated power cut of a server started with
    /// `--power-cut-signal`: SIGUSR2, then wait for the line saying the
    /// server recovered (returned, without its `scftl: ` prefix). The
    /// server keeps running; the clients above it see I/O errors.
    pub fn power_cut_server(&mut self) -> BResult<String> {
        let s = self.server.as_mut().ok_or("no server to cut")?;
        let pid = s.pid().ok_or("the server has exited")?.to_string();
        proc::run_ok(Command::new("kill").args(["-USR2", &pid]), TOOL_LIMIT)?;
        let line = s.wait_for("scftl: power cut:", TOOL_LIMIT)?;
        Ok(line.trim_start_matches("scftl: ").to_string())
    }

    /// After [`Ext4Stack::power_cut_server`] and [`Ext4Stack::wreck`]:
    /// attaches nbdfuse and a loop device to the same server again.
    pub fn reattach(&mut self) -> BResult<()> {
        self.attach_client()
    }

    /// Tears down what is left above a killed server: lazy unmount (the
    /// file system has I/O errors and cannot be unmounted cleanly), detach
    /// the loop device, unmount nbdfuse. Errors are expected and ignored;
    /// what must hold is that nothing stays attached, which the caller
    /// checks by attaching again.
    /// A server still running (after a simulated power cut) is kept.
    pub fn wreck(&mut self) {
        if self.mounted {
            self.mounted = false;
            let mnt = self.mnt.to_string_lossy().into_owned();
            let _ = proc::run(Command::new("umount").args(["-l", &mnt]), TOOL_LIMIT);
        }
        let _ = self.down_clients();
    }

    fn down(&mut self) -> BResult<()> {
        let mut errors = Vec::new();
        if let Err(e) = self.down_clients() {
            errors.push(e);
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

    /// Unmounts, detaches the loop device and unmounts nbdfuse; the server
    /// stays.
    fn down_clients(&mut self) -> BResult<()> {
        let mut errors = Vec::new();
        if let Err(e) = self.umount() {
            errors.push(e);
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
        let _ = std::fs::remove_file(self.dir.join("nbdfuse.pid"));
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("; "))
        }
    }

    /// Tears the stack down cleanly (see [`Mounted::down`]).
    pub fn shut(mut self) -> BResult<()> {
        self.down()
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
    fn up(l: &Launcher, image: &Path, ftl: &str, dir: &Path, mode: &str) -> BResult<OursStack> {
        if !l.memory {
            proc::run_ok(&mut l.mkfs(image), TOOL_LIMIT)?;
        }
        let mnt = dir.join("mnt");
        std::fs::create_dir_all(&mnt).map_err(|e| format!("{}: {e}", mnt.display()))?;
        let mut st = OursStack {
            mnt: mnt.clone(),
            mount: None,
        };
        let d = st.mount.insert(Daemon::spawn(
            "scftl mount",
            l.mount(image, ftl, &mnt, mode),
        )?);
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
