//! `Fs`: a mounted file system — mount (checks, log replay, orphan
//! cleanup), the call wrapper that makes every mutating call a transaction,
//! open counts and orphans, and the durability calls (sync, fsync, tick,
//! unmount).
//!
//! Invariants between calls: the open step is empty and the cache clean
//! (so the device, read back, *is* the file system — in `group` mode
//! including the steps not yet flushed); `open` holds a positive count for
//! every inode the caller has opened and not released, `lookups` one for
//! every inode the caller holds by [`Fs::hold`] and has not forgotten; an
//! inode with `nlink` 0 is allocated only while it is open or held (or,
//! after a crash, until the next mount frees it).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ftl::{BlockDevice, Lba};

use crate::attr::{Attr, StatFs};
use crate::store::AllocState;

use crate::dirindex::DirIndexes;
use crate::error::{corrupt, FsError, Result};
use crate::fsck::{fsck, FsckReport};
use crate::inode::{FileType, Inode};
use crate::inode::{I_RESERVED, I_TINDIRECT};
use crate::layout::{Superblock, BLOCK_SIZE, FS_VERSION, MIN_LOG_SLOTS, ROOT_INO, SB_LEN};
use crate::mode::{Clock, CommitMode, FsMutant, MountOptions};
use crate::store::{Budget, Cost, FsStats, Store};

/// Most hard links to one inode (and subdirectories of one directory).
pub const LINK_MAX: u32 = 65_000;

/// A failed mount or unmount: the error, and the device back.
pub struct MountError<D> {
    pub error: FsError,
    pub device: D,
}

impl<D> fmt::Debug for MountError<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MountError")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<D> fmt::Display for MountError<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl<D> std::error::Error for MountError<D> {}

/// Fewest sectors a step must be allowed to hold in `xlog` and `group`: the
/// largest call that cannot be split (a symlink: target block, inode,
/// inode bitmap, block bitmap, directory entry over up to three sectors,
/// parent inode) plus one.
pub fn min_step_sectors(spb: usize) -> u64 {
    spb as u64 + 8
}

/// Fewest blocks a step must be allowed to hold in `log` (the largest call
/// that cannot be split touches at most six distinct blocks).
pub const MIN_STEP_BLOCKS: u64 = MIN_LOG_SLOTS as u64;

/// A mounted file system over a block device `D`.
pub struct Fs<D: BlockDevice> {
    pub(crate) st: Store<D>,
    pub(crate) clock: Arc<dyn Clock>,
    idle_flush: Option<Duration>,
    /// Open count per inode.
    pub(crate) open: HashMap<u32, u32>,
    /// Lookup count per inode (FUSE's `nlookup`), if the caller keeps one.
    lookups: HashMap<u32, u64>,
    /// When the last step was written without a flush after it.
    last_change: Option<Instant>,
    /// In-memory directory indexes (derived; see `dirindex.rs`).
    pub(crate) dirs: DirIndexes,
}

/// The wear policy a device under the file system may run with
/// (`scftl mount`, and the file-system crash checker's `--wear-leveling`):
/// dynamic leveling, so SCFTL also rotates its metadata regions, but no
/// static moves, which take up to a quarter of the next epoch after a flush
/// while group mode sizes its groups by the epoch it measured at mount.
pub const WEAR_POLICY: ftl::WearPolicy = ftl::WearPolicy::DYNAMIC;

impl<D: BlockDevice> Fs<D> {
    /// Mounts the file system on `dev` with `opts`. Refuses (changing
    /// nothing) a device without a valid superblock and `xlog`/`group` on a
    /// device that is not snapshot-consistent; then replays a committed log
    /// step and frees orphans (inodes with no links left by a crash).
    pub fn mount(dev: D, opts: MountOptions) -> Result<Fs<D>, MountError<D>> {
        Self::mount_inner(dev, opts, None)
    }

    /// [`Fs::mount`] with a seeded bug, for the crash checker's self-test.
    pub fn mount_with_mutant(
        dev: D,
        opts: MountOptions,
        mutant: FsMutant,
    ) -> Result<Fs<D>, MountError<D>> {
        Self::mount_inner(dev, opts, Some(mutant))
    }

    fn mount_inner(
        mut dev: D,
        opts: MountOptions,
        mutant: Option<FsMutant>,
    ) -> Result<Fs<D>, MountError<D>> {
        let (sb, budget) = match Self::check_device(&mut dev, &opts, mutant) {
            Ok(v) => v,
            Err(error) => return Err(MountError { error, device: dev }),
        };
        let st = Store::new(dev, sb, opts.cache_blocks, opts.mode, mutant, budget);
        let mut fs = Fs {
            st,
            clock: opts.clock,
            idle_flush: opts.idle_flush,
            open: HashMap::new(),
            lookups: HashMap::new(),
            last_change: None,
            dirs: DirIndexes::default(),
        };
        match fs.recover() {
            Ok(()) => Ok(fs),
            Err(error) => Err(MountError {
                error,
                device: fs.st.dev,
            }),
        }
    }

    /// Everything a mount checks before it writes anything.
    fn check_device(
        dev: &mut D,
        opts: &MountOptions,
        mutant: Option<FsMutant>,
    ) -> Result<(Superblock, Budget)> {
        let ss = dev.sector_size();
        if ss == 0 || ss > BLOCK_SIZE || BLOCK_SIZE % ss != 0 {
            return Err(FsError::Unsupported(format!(
                "sector size {ss}: the file system needs sectors that divide {BLOCK_SIZE} bytes"
            )));
        }
        let spb = BLOCK_SIZE / ss;
        if dev.num_sectors() < spb as u64 {
            return Err(FsError::NotFormatted(
                "the device is smaller than one block".into(),
            ));
        }
        let mut b0 = vec![0u8; BLOCK_SIZE];
        dev.read(Lba(0), &mut b0)?;
        let sb = Superblock::decode(&b0)?;
        if u64::from(sb.total_blocks) * spb as u64 > dev.num_sectors() {
            return Err(corrupt(format!(
                "the file system has {} blocks but the device only {}",
                sb.total_blocks,
                dev.num_sectors() / spb as u64
            )));
        }
        let kind = dev.stats().kind;
        if !opts.mode.allowed_on(kind) && mutant != Some(FsMutant::AllowXlogOnAnyFtl) {
            return Err(FsError::ModeNotAllowed {
                mode: opts.mode,
                ftl: kind.map_or_else(|| "unknown".to_string(), |k| k.name().to_string()),
            });
        }
        // Start from an empty epoch, so its size is the whole bound W.
        dev.flush()?;
        let epoch = dev.epoch_remaining();
        let budget = match opts.mode {
            CommitMode::Log => {
                let slots = u64::from(sb.log_slots());
                let blocks = epoch.map_or(slots, |w| slots.min(w / spb as u64));
                if blocks < MIN_STEP_BLOCKS {
                    return Err(FsError::StepTooSmall {
                        mode: opts.mode,
                        needed: MIN_STEP_BLOCKS,
                        available: blocks,
                        unit: "blocks",
                        hint: "the device's epoch cannot hold that many log slots; use xlog or group, or a larger write bound",
                    });
                }
                Budget {
                    sectors: u64::MAX,
                    blocks,
                }
            }
            CommitMode::Xlog | CommitMode::Group => {
                let sectors = epoch.unwrap_or(u64::MAX);
                if sectors < min_step_sectors(spb) {
                    return Err(FsError::StepTooSmall {
                        mode: opts.mode,
                        needed: min_step_sectors(spb),
                        available: sectors,
                        unit: "sectors",
                        hint: "format the device with a larger write bound",
                    });
                }
                Budget {
                    sectors,
                    blocks: u64::MAX,
                }
            }
        };
        Ok((sb, budget))
    }

    /// Log replay, free counts, root check, orphan cleanup.
    fn recover(&mut self) -> Result<()> {
        self.st.replay_log()?;
        let sb = self.st.sb.clone();
        let free_blocks = self
            .st
            .count_clear(sb.block_bitmap_start, u64::from(sb.total_blocks))?;
        let free_inodes = self
            .st
            .count_clear(sb.inode_bitmap_start, u64::from(sb.inode_count))?;
        self.st.alloc = AllocState {
            free_blocks,
            free_inodes,
            block_rotor: sb.data_start,
            inode_rotor: ROOT_INO + 1,
        };
        self.st.alloc_at_step_start = self.st.alloc;
        if !self.st.inode_allocated(ROOT_INO)? || !self.st.iget(ROOT_INO)?.is_dir() {
            return Err(corrupt("the root inode is not an allocated directory"));
        }
        for ino in self.orphans()? {
            self.call(|fs| fs.free_inode(ino))?;
        }
        Ok(())
    }

    /// Allocated inodes with no links (orphans). Inodes that do not decode
    /// are skipped here (fsck reports them).
    pub(crate) fn orphans(&mut self) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        for ino in 1..self.st.sb.inode_count {
            if self.st.inode_allocated(ino)? {
                if let Ok(i) = self.st.iget(ino) {
                    if i.nlink == 0 {
                        out.push(ino);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Runs one mutating call as a transaction: its last step is committed
    /// when it succeeds, and its open step thrown away when it fails.
    pub(crate) fn call<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.st.check_poisoned()?;
        debug_assert!(self.st.tx.is_empty());
        match f(self) {
            Ok(v) => {
                self.st.commit_step()?;
                self.st.stats.calls += 1;
                if self.st.unflushed {
                    self.last_change = Some(Instant::now());
                }
                Ok(v)
            }
            Err(e) => {
                // The aborted step's directory changes are undone in the
                // cache; the indexes may still hold them. A step with no
                // changes (a call that failed its checks) has none to undo.
                if !self.st.tx.is_empty() {
                    self.dirs.clear();
                }
                self.st.abort_step();
                Err(e)
            }
        }
    }

    /// The current time by the mount's clock.
    pub(crate) fn now(&self) -> i128 {
        self.clock.now_ns()
    }

    /// Converts a caller's inode number.
    pub(crate) fn ino32(ino: u64) -> Result<u32> {
        u32::try_from(ino).map_err(|_| FsError::NotFound)
    }

    /// An allocated inode by the caller's number (`ENOENT` otherwise).
    pub(crate) fn inode(&mut self, ino: u64) -> Result<(u32, Inode, FileType)> {
        self.st.check_poisoned()?;
        let ino = Self::ino32(ino)?;
        if !self.st.inode_allocated(ino)? {
            return Err(FsError::NotFound);
        }
        let i = self.st.iget(ino)?;
        let kind = i.file_type()?;
        Ok((ino, i, kind))
    }

    /// An allocated directory (`ENOTDIR` for another kind).
    pub(crate) fn dir_inode(&mut self, ino: u64) -> Result<(u32, Inode)> {
        let (ino, i, kind) = self.inode(ino)?;
        if kind != FileType::Directory {
            return Err(FsError::NotDir);
        }
        Ok((ino, i))
    }

    /// Whether the caller still holds `ino` (open, or by lookup count).
    pub(crate) fn is_open(&self, ino: u32) -> bool {
        self.open.get(&ino).is_some_and(|&c| c > 0)
            || self.lookups.get(&ino).is_some_and(|&c| c > 0)
    }

    /// Frees `ino` if nothing holds it any more and it has no links.
    fn free_if_unused(&mut self, ino: u32) -> Result<()> {
        if !self.is_open(ino) && self.st.inode_allocated(ino)? && self.st.iget(ino)?.nlink == 0 {
            self.call(|fs| fs.free_inode(ino))?;
        }
        Ok(())
    }

    /// Frees inode `ino` and its blocks, in as many steps as needed (each
    /// leaves an orphan with fewer blocks, which a later mount finishes).
    pub(crate) fn free_inode(&mut self, ino: u32) -> Result<()> {
        self.dirs.forget(ino);
        let mut inode = self.st.iget(ino)?;
        let target = 0;
        self.st.free_from(ino, &mut inode, 0, target)?;
        inode.size = 0;
        self.st.boundary(ino, &inode, Cost::new(3, 3))?;
        self.free_xattrs(&mut inode)?;
        self.st.free_inode_bit(ino)?;
        self.st.iput(ino, &Inode::free(inode.generation))
    }

    /// Counts an open of `ino` (any kind): an inode unlinked while open keeps
    /// its blocks until the last [`Fs::release`]. Returns its attributes.
    pub fn open(&mut self, ino: u64) -> Result<Attr> {
        let (ino32, i, kind) = self.inode(ino)?;
        *self.open.entry(ino32).or_insert(0) += 1;
        Ok(Attr::from_inode(ino32, &i, kind))
    }

    /// Ends one open of `ino`; the last release of an unlinked inode frees
    /// it.
    pub fn release(&mut self, ino: u64) -> Result<()> {
        self.st.check_poisoned()?;
        let ino32 = Self::ino32(ino)?;
        let Some(c) = self.open.get_mut(&ino32) else {
            return Err(FsError::Invalid(format!(
                "release of inode {ino}, which is not open"
            )));
        };
        *c -= 1;
        if *c > 0 {
            return Ok(());
        }
        self.open.remove(&ino32);
        self.free_if_unused(ino32)
    }

    /// Adds `n` to the caller's lookup count of `ino`. A FUSE layer that
    /// calls this for every entry it returns to the kernel (lookup, create,
    /// mknod, mkdir, symlink, link), and [`Fs::forget`] when the kernel
    /// forgets, keeps inode numbers from being reused while the kernel
    /// still knows them: an inode unlinked while held stays (as an orphan)
    /// until it is forgotten and released.
    pub fn hold(&mut self, ino: u64, n: u64) -> Result<()> {
        let (ino, ..) = self.inode(ino)?;
        *self.lookups.entry(ino).or_insert(0) += n;
        Ok(())
    }

    /// Drops `n` of the caller's lookup count of `ino` (FUSE `forget`);
    /// frees it if that was the last hold on an unlinked inode. Unknown
    /// inodes are ignored.
    pub fn forget(&mut self, ino: u64, n: u64) -> Result<()> {
        self.st.check_poisoned()?;
        let Ok(ino) = Self::ino32(ino) else {
            return Ok(());
        };
        let Some(c) = self.lookups.get_mut(&ino) else {
            return Ok(());
        };
        *c = c.saturating_sub(n);
        if *c > 0 {
            return Ok(());
        }
        self.lookups.remove(&ino);
        self.free_if_unused(ino)
    }

    /// Makes every completed call durable: in `group` mode, flushes the
    /// device if a step was written since the last flush; `log` and `xlog`
    /// calls are durable when they return.
    pub fn sync(&mut self) -> Result<()> {
        self.st.check_poisoned()?;
        if self.st.unflushed {
            if let Err(e) = self.st.flush() {
                self.st.poison(&e);
                return Err(e);
            }
        }
        self.last_change = None;
        Ok(())
    }

    /// `fsync`/`fdatasync` of `ino`: the file system has one transaction
    /// stream, so this is [`Fs::sync`] (after checking `ino` exists).
    pub fn fsync(&mut self, ino: u64, datasync: bool) -> Result<()> {
        let _ = datasync;
        self.inode(ino)?;
        self.sync()
    }

    /// `fsyncdir`: as [`Fs::fsync`], for a directory.
    pub fn fsyncdir(&mut self, ino: u64, datasync: bool) -> Result<()> {
        let _ = datasync;
        self.dir_inode(ino)?;
        self.sync()
    }

    /// The FUSE layer calls this from a timer: in `group` mode, flushes when
    /// steps are unflushed and no call changed anything for the idle time.
    /// Returns whether it flushed.
    pub fn tick(&mut self, now: Instant) -> Result<bool> {
        let (Some(idle), Some(since)) = (self.idle_flush, self.last_change) else {
            return Ok(false);
        };
        if !self.st.unflushed || now.saturating_duration_since(since) < idle {
            return Ok(false);
        }
        self.sync()?;
        Ok(true)
    }

    /// Whether a `group` step is written but not yet flushed.
    pub fn has_unflushed(&self) -> bool {
        self.st.unflushed
    }

    /// Frees inodes still open or held but unlinked, flushes everything, and gives
    /// the device back — also when that fails (after a device error the
    /// device comes back unflushed with the error).
    pub fn unmount(mut self) -> Result<D, MountError<D>> {
        match self.close() {
            Ok(()) => Ok(self.st.dev),
            Err(error) => Err(MountError {
                error,
                device: self.st.dev,
            }),
        }
    }

    fn close(&mut self) -> Result<()> {
        self.st.check_poisoned()?;
        let mut held: Vec<u32> = self
            .open
            .keys()
            .chain(self.lookups.keys())
            .copied()
            .collect();
        held.sort_unstable();
        held.dedup();
        self.open.clear();
        self.lookups.clear();
        for ino in held {
            self.free_if_unused(ino)?;
        }
        self.sync()
    }

    /// Gives the device back without flushing (after a device failure, or
    /// to simulate a crash in tests).
    pub fn into_device(self) -> D {
        self.st.dev
    }

    /// The device (for statistics).
    pub fn device(&self) -> &D {
        &self.st.dev
    }

    /// The commit mode of this mount.
    pub fn mode(&self) -> CommitMode {
        self.st.mode
    }

    /// The superblock.
    pub fn superblock(&self) -> &Superblock {
        &self.st.sb
    }

    /// What a transaction step may hold on this mount.
    pub fn step_budget(&self) -> Budget {
        self.st.budget
    }

    /// Counters since mount.
    pub fn stats(&self) -> FsStats {
        let mut s = self.st.stats.clone();
        s.cache_hits = self.st.cache.hits;
        s.cache_misses = self.st.cache.misses;
        s
    }

    /// `statfs`.
    pub fn statfs(&mut self) -> Result<StatFs> {
        self.st.check_poisoned()?;
        let a = self.st.alloc;
        Ok(StatFs::new(
            u64::from(self.st.sb.data_blocks()),
            a.free_blocks,
            u64::from(self.st.sb.inode_count - 1),
            a.free_inodes,
        ))
    }

    /// Upgrades a version-1 or -2 file system to the version this build
    /// writes (3: the triple-indirect pointer, files to about 4 TiB; the
    /// xattr block and 96-bit times); false when it already is. From
    /// version 1, first every allocated inode whose bytes 120..252
    /// (reserved in version 1, never cleared by version 1's `mkfs`) are not
    /// all zero is written back with them zero, and everything is made
    /// durable (version 2 writes those bytes zero, so from version 2 there
    /// is nothing to rewrite: every pointer reads 0 and every high word
    /// 0); then the superblock's first sector is rewritten with the
    /// new version and CRC, and flushed. A power cut before that write
    /// leaves the old version (with some inodes rewritten
    /// unchanged); the write is one sector, which every FTL here keeps
    /// whole or not at all (scftl: the flush is a snapshot; async: a
    /// sector whose CRC fails is ignored and the old copy read; sync: the
    /// battery-backed log), so a cut during it leaves the old version or
    /// the new one.
    pub fn upgrade(&mut self) -> Result<bool> {
        if self.st.sb.version >= FS_VERSION {
            return Ok(false);
        }
        // Version 2 wrote those bytes zero: nothing to rewrite from it.
        let from_v1 = self.st.sb.version < 2;
        for ino in (1..self.st.sb.inode_count).filter(|_| from_v1) {
            if !self.st.inode_allocated(ino)? {
                continue;
            }
            let (b, off) = self.st.sb.inode_location(ino);
            // The new pointers, high words and reserved bytes after them.
            let word = &self.st.meta(b)?[off + I_TINDIRECT.offset..off + I_RESERVED.end()];
            if word.iter().any(|&x| x != 0) {
                self.call(|fs| {
                    let i = fs.st.iget(ino)?;
                    fs.st.iput(ino, &i)
                })?;
            }
        }
        self.sync()?;
        let mut sb = self.st.sb.clone();
        sb.version = FS_VERSION;
        let bytes = sb.encode();
        let len = SB_LEN.next_multiple_of(self.st.sector_size);
        self.st.dev.write(Lba(0), &bytes[..len])?;
        self.st.flush()?;
        self.st.sb = sb;
        Ok(true)
    }

    /// Runs [`fsck`] on the mounted device (between calls the device holds
    /// the whole file system, unflushed `group` steps included). Inodes open
    /// but unlinked show up as orphans.
    pub fn fsck(&mut self) -> Result<FsckReport> {
        self.st.check_poisoned()?;
        fsck(&mut self.st.dev)
    }
}
