//! `scftl mount`: recover an image (or make a fresh RAM device and its file
//! system, `--memory`), mount its file system in a commit mode and serve it
//! through FUSE in the foreground until it is unmounted, optionally under a
//! real-time latency model (`--timing`).
//!
//! Invariants: a mode the device cannot make crash safe is refused before
//! anything is mounted; the image stays locked by this process while
//! mounted (a second mount fails on the lock); on unmount, SIGINT, SIGTERM
//! or SIGHUP the kernel mount is removed first (so no request can arrive
//! after), then the file system is unmounted (flushed) and the device
//! flushed before exit.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use fs::{CommitMode, MountOptions};
use fuser::{Config, MountOption, Session};

use crate::error::CliError;
use crate::fuse::{FuseFs, Shared};
use crate::image::{self, MemoryArgs, OpenOptions};
use crate::serve::OnOff;
use crate::timing::{self, TimingArg};

#[derive(clap::Args)]
#[command(
    override_usage = "scftl mount [OPTIONS] IMAGE MOUNTPOINT\n       scftl mount [OPTIONS] --memory MOUNTPOINT"
)]
pub struct MountArgs {
    /// Image holding a file system (made by `scftl mkfs`); omitted with
    /// --memory.
    #[arg(value_name = "IMAGE")]
    pub first: Option<PathBuf>,
    /// Empty directory to mount it on (see --nonempty).
    #[arg(value_name = "MOUNTPOINT")]
    pub second: Option<PathBuf>,
    /// Mount over a directory that holds files: they are hidden, not
    /// removed, until the file system is unmounted.
    #[arg(long)]
    pub nonempty: bool,
    /// Let users other than the one mounting use the file system (FUSE's
    /// allow_other; the kernel still checks every file's mode and owner).
    /// A user other than root needs `user_allow_other` in /etc/fuse.conf.
    #[arg(long)]
    pub allow_other: bool,
    /// --memory: a fresh RAM device with a new file system (mkfs runs
    /// first); the options after it describe the device as for `scftl
    /// format`. Nothing is saved.
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// Latency model the device runs under, in real time: `none`, `paper`
    /// (the FEMU-like model of the simulated benchmarks) or a JSON file of
    /// fields that replace paper's (docs/USAGE.md lists them).
    #[arg(long, default_value = "none", value_name = "MODEL", value_parser = timing::parse)]
    pub timing: TimingArg,
    /// Commit mode: log (write-ahead log; any FTL), xlog (no log, a flush per
    /// call; scftl FTL only) or group (calls grouped into the device's epoch;
    /// scftl FTL only). Default: group on an scftl image, log otherwise.
    #[arg(long, value_parser = parse_mode)]
    pub mode: Option<CommitMode>,
    /// group mode: flush after this many milliseconds without a change
    /// (0: only when the epoch fills, on fsync/sync and at unmount).
    /// Default 5000. Refused in the other modes, which flush every call.
    #[arg(long, value_name = "N")]
    pub idle_flush_ms: Option<u64>,
    /// Wear leveling: `on` (dynamic: a new superblock or segment is the
    /// least-worn free one, and SCFTL rotates its checkpoint slots and
    /// delta region onto less-worn superblocks; no data moves for wear, so
    /// the file system's groups keep the whole epoch; docs/USAGE.md "Wear
    /// leveling") or `off` (FIFO allocation, metadata in place).
    #[arg(long, value_enum, default_value_t = OnOff::On, value_name = "ON|OFF")]
    pub wear_leveling: OnOff,
    /// Record every write, trim and flush the file system sends to the
    /// device to TRACE (a new file; docs/FORMAT.md §9), for `scftl explore
    /// TRACE --fs fs-MODE`.
    #[arg(long, value_name = "TRACE")]
    pub record: Option<PathBuf>,
}

fn parse_mode(s: &str) -> Result<CommitMode, String> {
    CommitMode::parse(s).map_err(|e| e.to_string())
}

/// The device and mount point the positional arguments name.
struct Target {
    /// The image, or [`image::MEMORY_LABEL`].
    image: PathBuf,
    mountpoint: PathBuf,
}

fn target(a: &MountArgs) -> Result<Target, CliError> {
    let memory = PathBuf::from(image::MEMORY_LABEL);
    match (a.memory.memory, &a.first, &a.second) {
        (true, Some(m), None) => Ok(Target {
            image: memory,
            mountpoint: m.clone(),
        }),
        (true, Some(_), Some(_)) => Err(CliError::usage(
            "--memory mounts a fresh RAM device and conflicts with IMAGE: give only the MOUNTPOINT",
        )),
        (false, Some(i), Some(m)) => Ok(Target {
            image: i.clone(),
            mountpoint: m.clone(),
        }),
        _ => Err(CliError::usage(
            "expected IMAGE MOUNTPOINT (or --memory MOUNTPOINT)",
        )),
    }
}

/// The device to mount: the image recovered, or a fresh RAM device with a
/// new file system.
fn open_device(a: &MountArgs, t: &Target) -> Result<image::Opened, CliError> {
    if !a.memory.memory {
        let o = OpenOptions {
            timing: a.timing.clone(),
            ..OpenOptions::default()
        };
        return image::open_with(&t.image, &o);
    }
    let mut opened = image::create_memory(&a.memory.request(), &a.timing)?;
    fs::mkfs(opened.device.as_mut(), &fs::MkfsOptions::default())
        .map_err(|e| CliError::runtime(format!("mkfs on the RAM device failed: {e}")))?;
    opened
        .device
        .flush()
        .map_err(|e| CliError::runtime(format!("flush after mkfs failed: {e}")))?;
    Ok(opened)
}

/// Refuses a mount point that holds entries (unless `nonempty`): mounting
/// over them hides them, which looks like data loss to whoever finds the
/// directory emptied.
fn check_empty(dir: &std::path::Path, nonempty: bool) -> Result<(), CliError> {
    if nonempty {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| CliError::runtime(format!("{}: cannot list: {e}", dir.display())))?;
    let n = entries.count();
    if n == 0 {
        return Ok(());
    }
    Err(CliError::usage(format!(
        "{}: the mount point is not empty ({n} entries, hidden while mounted); choose an empty \
         directory, or pass --nonempty to mount over them",
        dir.display()
    )))
}

/// The idle flush of group mode, in milliseconds.
const DEFAULT_IDLE_FLUSH_MS: u64 = 5000;

impl MountArgs {
    fn idle_flush_ms(&self) -> u64 {
        self.idle_flush_ms.unwrap_or(DEFAULT_IDLE_FLUSH_MS)
    }

    /// Refuses `--idle-flush-ms` with a mode that has no idle flush.
    fn check_idle_flush(&self, mode: CommitMode) -> Result<(), CliError> {
        if self.idle_flush_ms.is_none() || mode == CommitMode::Group {
            return Ok(());
        }
        Err(CliError::usage(format!(
            "--idle-flush-ms applies only to --mode group: {mode} mode flushes at every call"
        )))
    }
}

pub fn run(a: &MountArgs) -> Result<(), CliError> {
    a.memory.check_applies()?;
    if let Some(m) = a.mode {
        a.check_idle_flush(m)?;
    }
    let t = target(a)?;
    match std::fs::metadata(&t.mountpoint) {
        Ok(m) if m.is_dir() => check_empty(&t.mountpoint, a.nonempty)?,
        // ENOTCONN: a FUSE mount whose process died.
        Err(e) if e.raw_os_error() == Some(107) => {
            return Err(CliError::runtime(format!(
                "{}: a dead FUSE mount is still there ({e}); remove it with `fusermount3 -u {}`",
                t.mountpoint.display(),
                t.mountpoint.display()
            )))
        }
        _ => {
            return Err(CliError::usage(format!(
                "{}: the mount point must be an existing directory",
                t.mountpoint.display()
            )))
        }
    }
    let mut opened = open_device(a, &t)?;
    if a.wear_leveling == OnOff::On {
        opened
            .device
            .set_wear_policy(fs::WEAR_POLICY)
            .map_err(|e| CliError::runtime(format!("--wear-leveling on: {e}")))?;
    }
    eprintln!("scftl: timing: {}", opened.timing);
    let pacing = opened.pacing.clone();
    let ftl_kind = opened.summary.kind;
    let mode = a
        .mode
        .unwrap_or(if CommitMode::Group.allowed_on(Some(ftl_kind)) {
            CommitMode::Group
        } else {
            CommitMode::Log
        });
    a.check_idle_flush(mode)?;
    let mut opts = MountOptions::new(mode);
    let idle = a.idle_flush_ms();
    opts.idle_flush = (idle > 0).then(|| Duration::from_millis(idle));
    let (device, closer) = crate::explorecmd::recording(opened.device, a.record.as_deref())?;
    let fs = fs::Fs::mount(device, opts).map_err(|e| {
        let msg = format!("{}: cannot mount: {}", t.image.display(), e.error);
        // The device comes back unchanged; dropping it releases the lock.
        drop(e.device);
        match e.error {
            fs::FsError::ModeNotAllowed { .. } | fs::FsError::StepTooSmall { .. } => {
                CliError::usage(msg)
            }
            fs::FsError::NotFormatted(_) => CliError::runtime(format!(
                "{msg} (make one with `scftl mkfs {}`)",
                t.image.display()
            )),
            _ => CliError::runtime(msg),
        }
    })?;
    // Recovery, mkfs and the file system's own recovery ran untimed; the
    // model applies from here on.
    pacing.start();
    let shared = Shared::new(fs);

    let mut config = Config::default();
    config.mount_options = vec![
        MountOption::FSName(format!("scftl:{}", t.image.display())),
        MountOption::Subtype("scftl".into()),
        MountOption::DefaultPermissions,
        MountOption::RW,
    ];
    if a.allow_other {
        // fuser passes `allow_other` to the kernel for this ACL, and lets
        // every user's requests through.
        config.acl = fuser::SessionACL::All;
    }
    let session = match Session::new(FuseFs::new(shared.clone()), &t.mountpoint, &config) {
        Ok(s) => s,
        Err(e) => {
            let flushed = unmount_fs(&shared, &t.image);
            let hint = if a.allow_other {
                " (--allow-other: a user other than root needs `user_allow_other` in \
                 /etc/fuse.conf)"
            } else {
                ""
            };
            return Err(CliError::runtime(format!(
                "cannot mount on {}: {e}{hint}{}",
                t.mountpoint.display(),
                flushed.err().map_or(String::new(), |f| format!("; {f}"))
            )));
        }
    };
    serve(session, &shared, a, &t, mode)?;
    unmount_fs(&shared, &t.image)?;
    if let Some(c) = closer {
        c.finish()
            .map_err(|e| CliError::runtime(format!("closing the trace: {e}")))?;
    }
    if let Some(r) = pacing.report() {
        eprintln!("scftl: timing: {r}");
    }
    eprintln!("scftl: unmounted and flushed {}", t.image.display());
    Ok(())
}

/// Runs the session until the kernel mount goes away, with the idle-flush
/// timer and the signal handler around it.
fn serve(
    mut session: Session<FuseFs>,
    shared: &Shared,
    a: &MountArgs,
    t: &Target,
    mode: CommitMode,
) -> Result<(), CliError> {
    let mut unmounter = session.unmount_callable();
    let mountpoint = t.mountpoint.clone();
    ctrlc::set_handler(move || {
        eprintln!("scftl: signal: unmounting {}", mountpoint.display());
        if let Err(e) = unmounter.unmount() {
            eprintln!(
                "scftl: cannot unmount {}: {e} (is it busy? retry or use `fusermount3 -u -z`)",
                mountpoint.display()
            );
        }
    })
    .map_err(|e| CliError::runtime(format!("cannot install the signal handler: {e}")))?;
    let sh = shared.clone();
    crate::stats::on_sigusr1(move || sh.print_stats())?;

    // The idle flush of group mode; harmless (a no-op tick) in the others.
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let timer = {
        let shared = shared.clone();
        let period = Duration::from_millis((a.idle_flush_ms() / 4).clamp(10, 250));
        std::thread::Builder::new()
            .name("idle-flush".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stop_rx.recv_timeout(period) {
                    if let Some(e) = shared.tick() {
                        eprintln!("scftl: idle flush failed: {e}");
                    }
                }
            })
            .map_err(|e| CliError::runtime(format!("cannot start the flush timer: {e}")))?
    };

    eprintln!(
        "scftl: mounted {} on {} ({} mode); unmount with `fusermount3 -u {}` or Ctrl-C",
        t.image.display(),
        t.mountpoint.display(),
        mode,
        t.mountpoint.display()
    );
    let result = session.run();
    drop(stop_tx);
    let _ = timer.join();
    result.map_err(|e| CliError::runtime(format!("the FUSE session failed: {e}")))
}

/// Unmounts the file system (freeing unlinked inodes still open, flushing)
/// and flushes the device; dropping it then releases the image lock.
fn unmount_fs(shared: &Shared, image: &Path) -> Result<(), CliError> {
    let Some(fs) = shared.take() else {
        return Ok(());
    };
    let fs_stats = fs.stats();
    let mut dev = fs.unmount().map_err(|e| {
        CliError::runtime(format!(
            "{}: final flush failed: {}; calls since the last flush may be lost",
            image.display(),
            e.error
        ))
    })?;
    dev.flush().map_err(|e| {
        CliError::runtime(format!(
            "{}: final device flush failed: {e}",
            image.display()
        ))
    })?;
    crate::stats::print(&dev, &crate::fuse::fs_fields(&fs_stats));
    Ok(())
}
