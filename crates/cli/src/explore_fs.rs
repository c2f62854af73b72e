//! `scftl explore --fs fs-MODE`: crash states of our own file system.
//!
//! A state is a raw image of the device's logical content; our file
//! system mounts an FTL image. So each state is loaded into a fresh scftl
//! image (`--geometry`, the trace's size), mounted with `scftl mount
//! --mode MODE` (which runs the mode's own recovery, as after a reboot),
//! the check runs in the mount point, and after unmounting `scftl fsck`
//! must find the image clean. Recording is `scftl mount --record` on a
//! formatted image with a fresh file system.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use bench::app::proc::{self, Daemon};
use explore::check::{self, Check, Checker, Fs, Verdict};
use ftl::{BlockDevice, FtlKind, Lba};

use crate::error::CliError;
use crate::image::{self, FormatRequest, OpenOptions};

/// How long mounting or unmounting may take.
const LIMIT: Duration = Duration::from_secs(120);

/// Checks states of our file system (see the module docs).
pub struct OursCheck {
    pub exe: PathBuf,
    pub mode: String,
    pub geometry: String,
    pub bytes: u64,
    pub dir: PathBuf,
    pub cmd: Checker,
    pub fsck: bool,
}

/// Writes the non-zero sectors of the raw image `raw` into `dev`, flushing
/// whenever the next piece would not fit the epoch.
fn load(raw: &Path, dev: &mut dyn BlockDevice) -> Result<(), String> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open(raw).map_err(|e| format!("{}: {e}", raw.display()))?;
    let ss = dev.sector_size();
    let n = dev.num_sectors();
    const PIECE: u64 = 32;
    let mut buf = vec![0u8; PIECE as usize * ss];
    let mut lba = 0;
    while lba < n {
        let c = PIECE.min(n - lba);
        let b = &mut buf[..c as usize * ss];
        f.read_exact_at(b, lba * ss as u64)
            .map_err(|e| format!("{}: {e}", raw.display()))?;
        if b.iter().any(|&x| x != 0) {
            if dev.epoch_remaining().is_some_and(|r| r < c) {
                dev.flush().map_err(|e| e.to_string())?;
            }
            dev.write(Lba(lba), b).map_err(|e| e.to_string())?;
        }
        lba += c;
    }
    dev.flush().map_err(|e| e.to_string())
}

/// `scftl mount IMAGE MNT --mode MODE [--record TRACE]`, up.
pub fn mount(
    exe: &Path,
    image: &Path,
    mnt: &Path,
    mode: &str,
    record: Option<&Path>,
) -> Result<Daemon, String> {
    std::fs::create_dir_all(mnt).map_err(|e| format!("{}: {e}", mnt.display()))?;
    let mut c = Command::new(exe);
    c.arg("mount").arg(image).arg(mnt).args(["--mode", mode]);
    if let Some(t) = record {
        c.arg("--record").arg(t);
    }
    let mut d = Daemon::spawn("scftl mount", c)?;
    d.wait_for("scftl: mounted", LIMIT)
        .map_err(|e| format!("{e}: {}", d.log_tail()))?;
    Ok(d)
}

/// Unmounts and waits for `scftl mount` to flush and exit.
pub fn unmount(mut d: Daemon, mnt: &Path) -> Result<(), String> {
    let out = proc::run(Command::new("fusermount3").arg("-u").arg(mnt), LIMIT)?;
    match d
        .wait_exit(LIMIT)
        .or_else(|| d.stop(Duration::from_secs(10)))
    {
        Some(s) if s.success() => Ok(()),
        other => {
            let _ = proc::run(
                Command::new("fusermount3").args(["-u", "-z"]).arg(mnt),
                LIMIT,
            );
            Err(format!(
                "scftl mount did not exit cleanly ({other:?}; fusermount3: {}): {}",
                out.tail(),
                d.log_tail()
            ))
        }
    }
}

impl Check for OursCheck {
    fn check(&self, raw: &Path, id: &str) -> Result<Verdict, String> {
        let img = self.dir.join("state-ftl.img");
        let _ = std::fs::remove_file(&img);
        let req = FormatRequest {
            size: Some(self.bytes),
            geometry: Some(self.geometry.clone()),
            kind: Some(FtlKind::Scftl),
            force: true,
            ..FormatRequest::default()
        };
        image::format(&img, &req).map_err(|e| format!("loading state {id}: {e}"))?;
        {
            let mut o = image::open_with(&img, &OpenOptions::default())
                .map_err(|e| format!("loading state {id}: {e}"))?;
            load(raw, o.device.as_mut()).map_err(|e| format!("loading state {id}: {e}"))?;
        }
        let mnt = self.dir.join("fs-mnt");
        let d = match mount(&self.exe, &img, &mnt, &self.mode, None) {
            Ok(d) => d,
            Err(e) => {
                return Ok(Verdict::fail(format!(
                    "scftl mount: {}",
                    check::tail(&e, 300)
                )))
            }
        };
        let v = self.cmd.command(raw, id, Some(&mnt));
        unmount(d, &mnt)?;
        let v = v?;
        if !v.ok || !self.fsck {
            return Ok(v);
        }
        let (status, out) = check::run(Command::new(&self.exe).arg("fsck").arg(&img), LIMIT)?;
        Ok(match status {
            None => v,
            Some(s) => Verdict {
                output: v.output,
                ..Verdict::fail(format!("scftl fsck: {s}: {}", check::tail(&out, 300)))
            },
        })
    }
}

/// The command half of a check for our file system.
pub fn command_checker(cmd: &str, timeout: Duration, dir: &Path) -> Checker {
    Checker {
        cmd: cmd.to_string(),
        fs: Fs::None,
        mnt: dir.join("fs-mnt"),
        mount_options: String::new(),
        fsck: false,
        timeout,
    }
}

/// Records `workload` on our file system in `mode`: a fresh image and file
/// system, `setup` unrecorded, then the workload under `mount --record`.
#[allow(clippy::too_many_arguments)]
pub fn record(
    exe: &Path,
    dir: &Path,
    req: &FormatRequest,
    mode: &str,
    setup: Option<&str>,
    workload: &str,
    trace: &Path,
    sh: &dyn Fn(&str, &str, &Path) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let img = dir.join("disk.img");
    image::format(&img, req)?;
    proc::run_ok(Command::new(exe).arg("mkfs").arg(&img), LIMIT).map_err(CliError::runtime)?;
    let mnt = dir.join("mnt");
    if let Some(s) = setup {
        let d = mount(exe, &img, &mnt, mode, None).map_err(CliError::runtime)?;
        let r = sh("--setup", s, &mnt);
        unmount(d, &mnt).map_err(CliError::runtime)?;
        r?;
    }
    let d = mount(exe, &img, &mnt, mode, Some(trace)).map_err(CliError::runtime)?;
    eprintln!(
        "scftl explore: recording the workload to {}",
        trace.display()
    );
    let r = sh("--workload", workload, &mnt);
    unmount(d, &mnt).map_err(CliError::runtime)?;
    r
}
