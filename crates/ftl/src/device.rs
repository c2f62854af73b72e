//! The block-device contract every FTL implements.
//!
//! Addresses are logical sectors ([`Lba`]); buffers are whole sectors.
//! Every caller mistake is an [`FtlError`] value and changes nothing: an
//! out-of-range address, a buffer that is not a whole number of sectors, or
//! a write that does not fit the current epoch. Never-written (and trimmed)
//! sectors read as zeros.

use flash::FlashError;
use thiserror::Error;

/// A logical sector address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lba(pub u64);

/// Which FTL a device was formatted with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FtlKind {
    /// Snapshot-consistent: after a crash the device holds exactly what it
    /// held at the last completed flush.
    Scftl,
    /// Asynchronous-disk contract: flushed data is durable; each sector written
    /// since the last flush may hold its old value or any value written since.
    Async,
    /// Synchronous-disk contract: every completed write is durable.
    Sync,
    /// Order-preserving (OPTR): after a crash the device holds the state
    /// after some prefix of the acknowledged requests that includes every
    /// request before the last completed flush; each request is atomic.
    Optr,
}

impl FtlKind {
    pub const ALL: [FtlKind; 4] = [FtlKind::Scftl, FtlKind::Async, FtlKind::Sync, FtlKind::Optr];

    pub fn name(self) -> &'static str {
        match self {
            FtlKind::Scftl => "scftl",
            FtlKind::Async => "async",
            FtlKind::Sync => "sync",
            FtlKind::Optr => "optr",
        }
    }

    /// Parses `scftl`, `async`, `sync` or `optr`.
    pub fn parse(s: &str) -> Result<FtlKind, FtlError> {
        FtlKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                FtlError::BadArgument(format!(
                    "unknown FTL `{s}` (use scftl, async, sync or optr)"
                ))
            })
    }

    /// Code stored in the device label.
    pub fn code(self) -> u32 {
        match self {
            FtlKind::Scftl => 1,
            FtlKind::Async => 2,
            FtlKind::Sync => 3,
            FtlKind::Optr => 4,
        }
    }

    pub fn from_code(code: u32) -> Option<FtlKind> {
        FtlKind::ALL.into_iter().find(|k| k.code() == code)
    }
}

impl std::fmt::Display for FtlKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Errors of the FTL layer.
#[derive(Debug, Error)]
pub enum FtlError {
    #[error("sectors {lba}..{end} are out of range: the device has {num_sectors} sectors")]
    OutOfRange {
        lba: u64,
        end: u64,
        num_sectors: u64,
    },
    #[error("buffer of {len} bytes is not a non-zero whole number of {sector_size}-byte sectors")]
    BadLength { len: usize, sector_size: usize },
    #[error("epoch full: this request needs {needed} sector updates but only {remaining} remain before the write bound; flush first")]
    EpochFull { needed: u64, remaining: u64 },
    #[error("device out of space: {0}")]
    NoSpace(String),
    #[error("configuration rejected: {0}")]
    BadConfig(String),
    /// The flash is worn out (more blocks bad than the configuration can
    /// spare, or a metadata block failed): writes are refused, reads still
    /// work.
    #[error("the flash is worn out ({0}); writes are refused and reads still work: copy the data to another device")]
    WornOut(String),
    #[error("bad argument: {0}")]
    BadArgument(String),
    #[error("device is not formatted (no valid label in block 0); format it first")]
    NotFormatted,
    #[error("device holds a `{found}` FTL, not `{expected}`")]
    WrongKind { found: FtlKind, expected: FtlKind },
    #[error("metadata corrupt: {0}")]
    Corrupt(String),
    /// A data sector whose checksum does not match what the flash returned:
    /// the read fails rather than return different data. Only this sector
    /// is affected, and the device stays usable.
    #[error("logical sector {la}: the data on flash is damaged ({detail}); it reads as an error until it is overwritten or trimmed")]
    DamagedSector { la: u64, detail: String },
    #[error("flash: {0}")]
    Flash(#[from] FlashError),
}

impl FtlError {
    /// True when the error is an injected power loss from the flash below.
    pub fn is_power_loss(&self) -> bool {
        matches!(self, FtlError::Flash(e) if e.is_power_loss())
    }
}

/// Result alias for the FTL crate.
pub type Result<T, E = FtlError> = std::result::Result<T, E>;

/// Counters and occupancy an FTL reports (for `scftl info` and benchmarks).
/// Counters count since the device was opened or formatted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceStats {
    pub kind: Option<FtlKind>,
    pub user_sectors_written: u64,
    pub user_sectors_read: u64,
    pub user_sectors_trimmed: u64,
    pub flushes: u64,
    pub gc_sectors_relocated: u64,
    pub gc_blocks_reclaimed: u64,
    /// Baselines: GC victims collected (or finished) in one go while the
    /// host waited — every victim of the sync FTL; for the async FTL, whose
    /// GC is paced with host writes, only those collected when pacing fell
    /// behind (0 for the other FTLs).
    pub gc_burst_victims: u64,
    /// Baselines with two write streams: times GC padded and programmed
    /// the GC buffer's page to release waiting victims (free space ran
    /// low before the page filled); 0 otherwise.
    pub gc_forced_releases: u64,
    /// SCFTL (version-5 images): relocated sectors whose OOB logical sector
    /// record did not map back to them (damaged OOB), so GC searched the L2P
    /// for their logical sector instead. 0 on healthy flash.
    pub gc_la_searches: u64,
    /// SCFTL with two write streams: GC victims whose cost-benefit choice
    /// held more than N = floor(L/U) valid sectors, so the validator took
    /// the greedy choice instead (docs: `scftl/streams.rs`).
    pub gc_victim_fallbacks: u64,
    pub full_checkpoints: u64,
    pub meta_pages_written: u64,
    /// SCFTL: durable flushes that committed in a data page — an in-page
    /// record or an OOB commit (docs/FORMAT.md §4.8, §4.9) — instead of a
    /// committed delta page (0 for the other FTLs).
    pub data_page_commits: u64,
    /// SCFTL: of `data_page_commits`, those committed in the OOB of the
    /// epoch's last data page (§4.9); the rest are in-page records (§4.8).
    pub oob_page_commits: u64,
    /// Logical sectors currently mapped.
    pub valid_sectors: u64,
    /// The FTL's data blocks (SCFTL superblocks, baseline segments) by
    /// state; each is in exactly one, so the four sum to the data blocks
    /// (metadata and label blocks are not counted). Free: erased, ready to
    /// program.
    pub free_blocks: u64,
    /// Being filled or holding live data.
    pub used_blocks: u64,
    /// GC victims whose erase waits for the next flush (SCFTL only).
    pub invalid_blocks: u64,
    /// Holding only stale data; erased when next needed.
    pub erasable_blocks: u64,
    /// SCFTL: superblocks erased ahead of need, after a sync that left no
    /// epoch unsynced, so that later writes open them without waiting for
    /// a sync (`Scftl::erase_ahead`; they count among the flash's erases).
    pub erased_ahead: u64,
    /// SCFTL: consolidation pages written (and synced) because a
    /// superblock had to be activated and every erasable one was held by
    /// the chain of in-page and OOB commits (the erase hold,
    /// docs/FORMAT.md §4.3).
    pub hold_releases: u64,
    /// SCFTL: epochs ended by barriers (or detached flushes) whose sync is
    /// still owed — what the next sync behind would make durable; 0 for
    /// the others, whose barriers sync.
    pub unsynced_epochs: u64,
    /// Erases issued per FTL block since open: min, average, max.
    pub erases_min: u64,
    pub erases_avg: f64,
    pub erases_max: u64,
    /// Wall-clock nanoseconds the last `open` (recovery) took.
    pub last_recovery_ns: u64,
    /// The flash commands the FTL issued since it was opened or formatted
    /// (the backend's own counters: programs, reads, erases, syncs), so
    /// a front end can report pages programmed per host operation.
    pub flash: flash::FlashCounters,
    /// Counters particular to one kind of FTL, by name (empty for SCFTL): OPTR
    /// reports its `optr::OptrStats` here (`OptrStats::from_counters`
    /// reads them back); the baselines report `recovery_twin_erases`
    /// (segments their last recovery erased because they held a second
    /// copy of a winning sector) and `recovery_twin_segments_emptied`
    /// (segments that recovery left free by taking the twins of all their
    /// winners). The base type names no FTL.
    pub ftl_counters: Vec<(&'static str, u64)>,
    /// What wear leveling did (all zero while it is off).
    pub wear: crate::wear::WearStats,
    /// Programs the flash failed that the FTL wrote again elsewhere, and
    /// erases it failed (SCFTL; 0 for the others, which stop on them).
    pub program_failures: u64,
    pub erase_failures: u64,
    /// The FTL's blocks retired as bad (SCFTL superblocks with a bad erase
    /// block; not in the four states above).
    pub bad_blocks: u64,
}

impl DeviceStats {
    /// Sets `erases_min`, `erases_avg` and `erases_max` from the erase
    /// counts of the FTL's blocks (all zero when there are none).
    pub fn set_erase_counts(&mut self, per_block: &[u64]) {
        self.erases_min = per_block.iter().copied().min().unwrap_or(0);
        self.erases_max = per_block.iter().copied().max().unwrap_or(0);
        self.erases_avg = if per_block.is_empty() {
            0.0
        } else {
            per_block.iter().sum::<u64>() as f64 / per_block.len() as f64
        };
    }
}

/// Where [`BlockDevice::begin_flush`] left a flush.
#[derive(Debug)]
pub enum FlushStep {
    /// The flush is complete (it owed no sync, or made it itself).
    Done,
    /// The flush is committed in memory and on the flash, and owes the
    /// sync that makes it durable: call [`FlushTicket::wait`] without
    /// holding the device (other requests may use it meanwhile), then
    /// [`BlockDevice::finish_flush`].
    Ticket(FlushTicket),
}

/// The sync a begun flush owes ([`FlushStep::Ticket`]), and what the
/// device must know when it completes.
#[derive(Debug)]
pub struct FlushTicket {
    pub(crate) sync: flash::SyncTicket,
    /// Epochs the device had ended (committed or ordered) when the sync
    /// started: those are the ones it makes durable.
    pub(crate) epochs_ended: u64,
    /// The newest epoch id carried by a region page with the after-sync
    /// flag when the sync started (such a page is proven durable by it).
    pub(crate) flagged_epoch: u64,
}

impl FlushTicket {
    /// Waits for the sync (an `fdatasync` on an image). Call it without
    /// the device: other threads' reads, writes and flushes go on.
    pub fn wait(&mut self) -> Result<()> {
        self.sync.wait().map_err(FtlError::from)
    }
}

/// A block device: what a file system or the NBD server sees.
///
/// Shared access: the methods that take `&self` (`read_shared`, the
/// queries) may run on several threads at once while no
/// `&mut self` method runs (`ftl::SharedDevice` holds the device behind a
/// readers-writer lock on that contract).
pub trait BlockDevice {
    /// Bytes per logical sector.
    fn sector_size(&self) -> usize;

    /// Number of logical sectors.
    fn num_sectors(&self) -> u64;

    /// Reads `buf.len() / sector_size` sectors starting at `lba`.
    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> Result<()>;

    /// Writes `data.len() / sector_size` sectors starting at `lba`. For a
    /// bounded FTL the whole request must fit the current epoch, else it is
    /// refused with [`FtlError::EpochFull`] and nothing is written.
    fn write(&mut self, lba: Lba, data: &[u8]) -> Result<()>;

    /// Unmaps `count` sectors starting at `lba`; they then read as zeros.
    /// Counts against the epoch like a write of `count` sectors.
    fn trim(&mut self, lba: Lba, count: u64) -> Result<()>;

    /// Makes everything written so far durable (for SCFTL: takes the
    /// snapshot a crash returns to).
    fn flush(&mut self) -> Result<()>;

    /// [`Self::read`] with shared access only, so reads run in parallel
    /// with each other and with a flush's sync. `None`: this device cannot
    /// read now without exclusive access (its FTL or its flash does not
    /// offer it, or an earlier failure must be reported by `read`); the
    /// caller then calls `read`. The default is `None`.
    fn read_shared(&self, lba: Lba, buf: &mut [u8]) -> Option<Result<()>> {
        let _ = (lba, buf);
        None
    }

    /// Which sectors of `lba..lba + count` are mapped (hold data written
    /// and not trimmed since; the rest read as zeros), with shared access
    /// only, as [`Self::read_shared`]: consecutive runs `(sectors,
    /// mapped)` in order, covering the range. `None` where the device
    /// cannot tell (the default): a frontend then reports every sector as
    /// allocated, which is always safe. A range past the end is an error.
    /// (NBD's `base:allocation` block status, `scftl serve`.)
    fn allocation(&self, lba: Lba, count: u64) -> Option<Result<Vec<(u64, bool)>>> {
        let _ = (lba, count);
        None
    }

    /// [`Self::flush`] in parts, so a frontend can let other requests run
    /// during the sync: commits everything written so far (the snapshot a
    /// crash may return to from now on) and, if the commit still has to
    /// be made durable, returns the sync as a ticket
    /// ([`FlushStep::Ticket`]); the flush is complete once
    /// [`Self::finish_flush`] accepted it. Writes issued after this call
    /// belong to the next epoch. The default flushes whole and answers
    /// [`FlushStep::Done`].
    fn begin_flush(&mut self) -> Result<FlushStep> {
        self.flush().map(|()| FlushStep::Done)
    }

    /// Completes a flush [`Self::begin_flush`] left owing its sync:
    /// `waited` is what [`FlushTicket::wait`] answered. On success the
    /// flush's epoch is durable; an error fails the flush (and the device,
    /// as a failed `flush` would). The default, for devices that never
    /// return a ticket, refuses.
    fn finish_flush(&mut self, ticket: FlushTicket, waited: Result<()>) -> Result<()> {
        let _ = (ticket, waited);
        Err(FtlError::BadArgument(
            "this device gave no flush ticket to finish".into(),
        ))
    }

    /// Starts a sync that makes durable the epochs ended so far (by
    /// [`Self::epoch_barrier`]s or detached flushes whose sync is still
    /// owed), without ending the current one: the *sync behind* of
    /// `SharedDevice::sync_behind`. `None`: nothing is owed, or the device
    /// cannot sync detached. Wait for the ticket without the device and
    /// hand it to [`Self::finish_flush`], as for a flush; it promises the
    /// caller nothing about the current epoch. The default answers `None`.
    fn begin_sync_behind(&mut self) -> Result<Option<FlushTicket>> {
        Ok(None)
    }

    /// Turns on the flash's detached writes ([`flash::Flash::detach_submits`])
    /// for a frontend that releases its lock before the writes of a
    /// request's programs ([`crate::SharedDevice`]): each request then
    /// leaves them for [`Self::take_detached`]. Returns whether the device
    /// does; the default does not.
    fn detach_submits(&mut self) -> bool {
        false
    }

    /// The write of the programs the requests since the last call handed
    /// over, to run without the device ([`flash::DetachedWrite`]).
    fn take_detached(&mut self) -> Option<flash::DetachedWrite> {
        None
    }

    /// Ends the current epoch without asking for durability, so that more
    /// writes fit: what was written before it is ordered before what is
    /// written after it, and a power cut keeps a prefix of those epochs
    /// (and everything flushed). For frontends whose client did not ask for
    /// a flush (an epoch filled up). The default is a durable [`Self::flush`].
    fn epoch_barrier(&mut self) -> Result<()> {
        self.flush()
    }

    /// Sector updates (written or trimmed sectors) that still fit the current
    /// epoch, or `None` for an FTL with no epoch bound.
    fn epoch_remaining(&self) -> Option<u64>;

    /// The largest write request, in sectors, the device accepts and keeps
    /// atomic (OPTR), or `None` when requests have no size limit of their
    /// own. A frontend advertises it (NBD: the maximum block size).
    fn max_request_sectors(&self) -> Option<u64> {
        None
    }

    /// Sets how the device levels wear ([`crate::wear`]). The default
    /// refuses: a device without wear leveling says so rather than ignore
    /// the request.
    fn set_wear_policy(&mut self, policy: crate::wear::WearPolicy) -> Result<()> {
        let _ = policy;
        Err(FtlError::BadArgument(
            "this device has no wear leveling".into(),
        ))
    }

    /// Names who issues the calls that follow (a frontend's connection
    /// number), for a wrapper that records them (`explore::trace`). The
    /// default ignores it: an FTL does not care who writes.
    fn set_origin(&mut self, _origin: u64) {}

    /// Counters and occupancy.
    fn stats(&self) -> DeviceStats;

    /// Checks every internal invariant, returning a description of the first
    /// broken one. Cheap enough for tests to call after every operation on
    /// small devices; not meant for large ones.
    fn check_invariants(&mut self) -> Result<(), String>;

    /// The crash checker's view of the FTL's internal state between
    /// operations, for the refinement oracle (`crate::refine`); `None` for
    /// an FTL without one (every FTL but SCFTL) and in builds without
    /// debug assertions.
    fn refine_view(&self) -> Option<crate::refine::RefineView> {
        None
    }

    /// The committed checkpoints on the flash as recovery would read
    /// them, for the refinement oracle's slot check
    /// (`crate::refine::CheckpointView`); `None` where `refine_view` is.
    /// Reads the flash (no program, erase or sync).
    fn refine_checkpoints(&mut self) -> Option<Result<crate::refine::CheckpointView>> {
        None
    }
}

/// Runs of equal values, in order: `(how many, value)` for each run of
/// `mapped` (the form [`BlockDevice::allocation`] answers in).
pub fn mapped_runs(mapped: impl IntoIterator<Item = bool>) -> Vec<(u64, bool)> {
    let mut runs: Vec<(u64, bool)> = Vec::new();
    for m in mapped {
        match runs.last_mut() {
            Some((n, v)) if *v == m => *n += 1,
            _ => runs.push((1, m)),
        }
    }
    runs
}

/// Validates a request's range and buffer length; returns the sector count.
pub fn check_request(lba: Lba, len: usize, sector_size: usize, num_sectors: u64) -> Result<u64> {
    if len == 0 || !len.is_multiple_of(sector_size) {
        return Err(FtlError::BadLength { len, sector_size });
    }
    let n = (len / sector_size) as u64;
    check_range(lba, n, num_sectors)?;
    Ok(n)
}

/// Validates a range of sectors.
pub fn check_range(lba: Lba, count: u64, num_sectors: u64) -> Result<()> {
    match lba.0.checked_add(count) {
        Some(end) if end <= num_sectors => Ok(()),
        end => Err(FtlError::OutOfRange {
            lba: lba.0,
            end: end.unwrap_or(u64::MAX),
            num_sectors,
        }),
    }
}

impl<D: BlockDevice + ?Sized> BlockDevice for Box<D> {
    fn sector_size(&self) -> usize {
        (**self).sector_size()
    }
    fn num_sectors(&self) -> u64 {
        (**self).num_sectors()
    }
    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> Result<()> {
        (**self).read(lba, buf)
    }
    fn write(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        (**self).write(lba, data)
    }
    fn trim(&mut self, lba: Lba, count: u64) -> Result<()> {
        (**self).trim(lba, count)
    }
    fn flush(&mut self) -> Result<()> {
        (**self).flush()
    }
    fn epoch_barrier(&mut self) -> Result<()> {
        (**self).epoch_barrier()
    }
    fn read_shared(&self, lba: Lba, buf: &mut [u8]) -> Option<Result<()>> {
        (**self).read_shared(lba, buf)
    }
    fn allocation(&self, lba: Lba, count: u64) -> Option<Result<Vec<(u64, bool)>>> {
        (**self).allocation(lba, count)
    }
    fn begin_flush(&mut self) -> Result<FlushStep> {
        (**self).begin_flush()
    }
    fn finish_flush(&mut self, ticket: FlushTicket, waited: Result<()>) -> Result<()> {
        (**self).finish_flush(ticket, waited)
    }
    fn begin_sync_behind(&mut self) -> Result<Option<FlushTicket>> {
        (**self).begin_sync_behind()
    }
    fn detach_submits(&mut self) -> bool {
        (**self).detach_submits()
    }
    fn take_detached(&mut self) -> Option<flash::DetachedWrite> {
        (**self).take_detached()
    }
    fn epoch_remaining(&self) -> Option<u64> {
        (**self).epoch_remaining()
    }
    fn max_request_sectors(&self) -> Option<u64> {
        (**self).max_request_sectors()
    }
    fn set_wear_policy(&mut self, policy: crate::wear::WearPolicy) -> Result<()> {
        (**self).set_wear_policy(policy)
    }
    fn set_origin(&mut self, origin: u64) {
        (**self).set_origin(origin)
    }
    fn stats(&self) -> DeviceStats {
        (**self).stats()
    }
    fn check_invariants(&mut self) -> Result<(), String> {
        (**self).check_invariants()
    }
    fn refine_view(&self) -> Option<crate::refine::RefineView> {
        (**self).refine_view()
    }
    fn refine_checkpoints(&mut self) -> Option<Result<crate::refine::CheckpointView>> {
        (**self).refine_checkpoints()
    }
}
