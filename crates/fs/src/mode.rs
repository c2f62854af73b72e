//! Mount-time choices: the commit mode, its options, the clock that stamps
//! inode times, and the seeded bugs (mutants) the crash checker must catch.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ftl::FtlKind;
use serde::Serialize;

/// How a transaction step reaches the device (ARCHITECTURE.md "fs").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CommitMode {
    /// xv6's write-ahead log: log, flush, commit record, flush, install,
    /// flush, clear, flush. Crash safe on every FTL; every completed call is
    /// durable.
    Log,
    /// In place, then one flush per step. Every completed call is durable;
    /// crash safe only on a snapshot-consistent device.
    Xlog,
    /// In place, flushed when the next step would not fit the device's
    /// epoch, on fsync/sync/unmount, or when idle. Sequential crash
    /// consistency; only on a snapshot-consistent device.
    Group,
}

impl CommitMode {
    pub const ALL: [CommitMode; 3] = [CommitMode::Log, CommitMode::Xlog, CommitMode::Group];

    pub fn name(self) -> &'static str {
        match self {
            CommitMode::Log => "log",
            CommitMode::Xlog => "xlog",
            CommitMode::Group => "group",
        }
    }

    /// Parses `log`, `xlog` or `group`; the error says what is allowed.
    pub fn parse(s: &str) -> Result<CommitMode, String> {
        CommitMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown commit mode `{s}` (use log, xlog or group)"))
    }

    /// Whether the mode is crash safe on a device running `kind` (`None`:
    /// a device that does not say, treated as an asynchronous disk).
    pub fn allowed_on(self, kind: Option<FtlKind>) -> bool {
        self == CommitMode::Log || kind == Some(FtlKind::Scftl)
    }
}

impl fmt::Display for CommitMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Seeded bugs for the file-system crash checker's self-test. Chosen only
/// through [`crate::Fs::mount_with_mutant`]; each must be caught.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FsMutant {
    /// `group` does not flush before a step that overflows the epoch: the
    /// device refuses the write (`EpochFull`), the file system stops, and the
    /// calls since the last flush are lost although they completed.
    GroupForgetsEpochFlush,
    /// `log` replays a commit record whose slots do not match its slots
    /// CRC: format version 3 writes the slots and the record before one
    /// flush, so on an asynchronous disk a crash can keep the record but
    /// not all of its slots, and replay installs garbage.
    LogIgnoresSlotsCrc,
    /// `xlog` and `group` are allowed on any FTL (on the async FTL a crash
    /// can keep any subset of a step's in-place writes).
    AllowXlogOnAnyFtl,
    /// `log` trims the blocks a punch hole frees before the commit point
    /// instead of after it: a crash before the record is durable returns
    /// to a file that still maps them, and reads zeros where its data was.
    LogTrimsFreedEarly,
    /// A rename over an existing file is done as two steps: unlink the
    /// target (commit that step), then link the source under the name.
    /// A crash between them leaves neither the old file nor the renamed
    /// one at the name, where one atomic step was needed. `log` and `xlog`
    /// make the first step durable by themselves; `group` only when a flush
    /// falls between the steps (the crash checker forces one).
    RenameOverAsUnlinkLink,
    /// Create (and mknod, mkdir, symlink) commits the new directory entry
    /// and the inode bitmap in a step before the step that writes the
    /// inode: a crash between them leaves an entry naming an inode that
    /// was never written.
    CreateEntryBeforeInode,
}

impl FsMutant {
    pub const ALL: [FsMutant; 6] = [
        FsMutant::GroupForgetsEpochFlush,
        FsMutant::LogIgnoresSlotsCrc,
        FsMutant::AllowXlogOnAnyFtl,
        FsMutant::LogTrimsFreedEarly,
        FsMutant::RenameOverAsUnlinkLink,
        FsMutant::CreateEntryBeforeInode,
    ];

    /// Kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            FsMutant::GroupForgetsEpochFlush => "group-forgets-epoch-flush",
            FsMutant::LogIgnoresSlotsCrc => "log-ignores-slots-crc",
            FsMutant::AllowXlogOnAnyFtl => "allow-xlog-on-any-ftl",
            FsMutant::LogTrimsFreedEarly => "log-trims-freed-early",
            FsMutant::RenameOverAsUnlinkLink => "rename-over-as-unlink-link",
            FsMutant::CreateEntryBeforeInode => "create-entry-before-inode",
        }
    }

    pub fn parse(s: &str) -> Result<FsMutant, String> {
        FsMutant::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown file-system mutant `{s}`"))
    }
}

/// The source of inode timestamps (nanoseconds since the Unix epoch).
pub trait Clock: Send + Sync {
    fn now_ns(&self) -> i128;
}

/// The system's wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ns(&self) -> i128 {
        system_time_ns(SystemTime::now())
    }
}

/// A clock that always says the same time (deterministic tests and images).
#[derive(Clone, Copy, Debug)]
pub struct FixedClock(pub i64);

impl Clock for FixedClock {
    fn now_ns(&self) -> i128 {
        i128::from(self.0)
    }
}

/// Nanoseconds since the Unix epoch (negative before it). Exact: every
/// `SystemTime` fits an `i128` of nanoseconds.
pub fn system_time_ns(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// The `SystemTime` of a timestamp; one the platform cannot represent
/// (only a corrupt or foreign image holds one) saturates at the nearest
/// time it can.
pub fn ns_to_system_time(ns: i128) -> SystemTime {
    let secs = ns.div_euclid(1_000_000_000);
    let nanos = ns.rem_euclid(1_000_000_000) as u32;
    let far = |forward: bool| {
        // Halve the step until it fits: the platform's bound is not known.
        let mut step = u64::MAX;
        let mut t = UNIX_EPOCH;
        while step > 0 {
            let next = if forward {
                t.checked_add(Duration::from_secs(step))
            } else {
                t.checked_sub(Duration::from_secs(step))
            };
            match next {
                Some(n) => t = n,
                None => step /= 2,
            }
        }
        t
    };
    if secs >= 0 {
        u64::try_from(secs)
            .ok()
            .and_then(|s| UNIX_EPOCH.checked_add(Duration::new(s, nanos)))
            .unwrap_or_else(|| far(true))
    } else {
        // ns = secs * 1e9 + nanos with secs < 0: go back -secs, then on.
        u64::try_from(-secs)
            .ok()
            .and_then(|s| UNIX_EPOCH.checked_sub(Duration::from_secs(s)))
            .and_then(|t| t.checked_add(Duration::from_nanos(u64::from(nanos))))
            .unwrap_or_else(|| far(false))
    }
}

/// How to mount.
#[derive(Clone)]
pub struct MountOptions {
    pub mode: CommitMode,
    /// `group`: flush when no call changed anything for this long (checked
    /// by [`crate::Fs::tick`]); `None` never flushes for idleness.
    pub idle_flush: Option<Duration>,
    /// Metadata blocks the buffer cache keeps (4 KiB each).
    pub cache_blocks: usize,
    /// Stamps inode times.
    pub clock: Arc<dyn Clock>,
}

impl MountOptions {
    /// Defaults for `mode`: 5 s idle flush, a 16 MiB cache, the system clock.
    pub fn new(mode: CommitMode) -> MountOptions {
        MountOptions {
            mode,
            idle_flush: Some(Duration::from_secs(5)),
            cache_blocks: 4096,
            clock: Arc::new(SystemClock),
        }
    }
}

impl Default for MountOptions {
    fn default() -> Self {
        MountOptions::new(CommitMode::Log)
    }
}

impl fmt::Debug for MountOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MountOptions")
            .field("mode", &self.mode)
            .field("idle_flush", &self.idle_flush)
            .field("cache_blocks", &self.cache_blocks)
            .finish_non_exhaustive()
    }
}
