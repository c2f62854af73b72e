//! `Store`: the device, the superblock, the buffer cache and the open
//! transaction step — block-level access for the layers above. Every block
//! number that comes from the disk is range-checked here before it reaches
//! the device, so a corrupt pointer is a `Corrupt` error, never a wild write.
//!
//! Invariants: see `cache.rs` (clean cache between steps); after a commit
//! failure `poisoned` is set and nothing is written again.

use ftl::{BlockDevice, Lba};

use crate::cache::{Cache, DataBuf, SectorMask, Trim, Tx};
use crate::error::{corrupt, FsError, Result};
use crate::layout::{Superblock, BLOCK_SIZE};
use crate::mode::{CommitMode, FsMutant};

/// What a transaction step may hold: dirty sectors (the device's epoch, for
/// `xlog` and `group`) and distinct blocks (the log's slots, for `log`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub sectors: u64,
    pub blocks: u64,
}

/// What a piece of a step may add to it (an upper bound).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    pub sectors: u64,
    pub blocks: u64,
}

impl Cost {
    pub const fn new(sectors: u64, blocks: u64) -> Cost {
        Cost { sectors, blocks }
    }
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, o: Cost) -> Cost {
        Cost::new(self.sectors + o.sectors, self.blocks + o.blocks)
    }
}

impl std::ops::Mul<u64> for Cost {
    type Output = Cost;
    fn mul(self, k: u64) -> Cost {
        Cost::new(self.sectors * k, self.blocks * k)
    }
}

/// Counters of what the file system did since mount (for benchmarks and
/// `scftl info`-style reports).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FsStats {
    /// Mutating calls completed.
    pub calls: u64,
    /// Transaction steps committed (a call is one or more steps).
    pub steps: u64,
    /// Device flushes issued.
    pub flushes: u64,
    /// Flushes `group` issued because the next step would not fit the epoch.
    pub epoch_flushes: u64,
    /// Sectors written in place.
    pub sectors_written: u64,
    /// Sectors trimmed (punch hole, zero range, fallocate).
    pub sectors_trimmed: u64,
    /// Blocks written to the log (`log` mode).
    pub log_blocks_written: u64,
    /// Metadata cache hits and misses.
    pub cache_hits: u64,
    pub cache_misses: u64,
}

/// Allocation counters, saved at each step start so an aborted step can put
/// them back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocState {
    pub free_blocks: u64,
    pub free_inodes: u64,
    pub block_rotor: u32,
    pub inode_rotor: u32,
}

pub struct Store<D> {
    pub dev: D,
    pub sb: Superblock,
    pub sector_size: usize,
    /// Sectors per block.
    pub spb: usize,
    pub cache: Cache,
    pub tx: Tx,
    pub mode: CommitMode,
    pub mutant: Option<FsMutant>,
    pub budget: Budget,
    /// Sequence number of the last commit record.
    pub log_seq: u64,
    /// `group`: steps written since the last flush.
    pub unflushed: bool,
    pub poisoned: Option<String>,
    pub stats: FsStats,
    /// Free counts and allocation rotors, now and at the start of the step.
    pub alloc: AllocState,
    pub alloc_at_step_start: AllocState,
    /// Whether blocks freed now are trimmed (set by punch hole and zero
    /// range; truncate and unlink leave freed blocks mapped on the device).
    pub trim_frees: bool,
}

impl<D: BlockDevice> Store<D> {
    /// A store over `dev` with an empty cache and step, before any block is
    /// read: what mount and fsck both start from.
    pub fn new(
        dev: D,
        sb: Superblock,
        cache_blocks: usize,
        mode: CommitMode,
        mutant: Option<FsMutant>,
        budget: Budget,
    ) -> Store<D> {
        let sector_size = dev.sector_size();
        Store {
            spb: crate::layout::BLOCK_SIZE / sector_size,
            sector_size,
            dev,
            sb,
            cache: Cache::new(cache_blocks),
            tx: Tx::default(),
            mode,
            mutant,
            budget,
            log_seq: 0,
            unflushed: false,
            poisoned: None,
            stats: FsStats::default(),
            alloc: AllocState::default(),
            alloc_at_step_start: AllocState::default(),
            trim_frees: false,
        }
    }

    /// The first sector of block `b`.
    pub fn lba(&self, b: u32) -> Lba {
        Lba(u64::from(b) * self.spb as u64)
    }

    /// Refuses block numbers outside the file system.
    pub fn check_block(&self, b: u32) -> Result<()> {
        if b >= self.sb.total_blocks {
            return Err(corrupt(format!(
                "block {b} is past the end of the file system ({} blocks)",
                self.sb.total_blocks
            )));
        }
        Ok(())
    }

    /// Refuses block numbers that cannot belong to a file (pointers).
    pub fn check_data_block(&self, b: u32) -> Result<()> {
        if !self.sb.is_data_block(b) {
            return Err(corrupt(format!(
                "block pointer {b} is outside the data region {}..{}",
                self.sb.data_start, self.sb.total_blocks
            )));
        }
        Ok(())
    }

    /// Reads whole blocks `b..b + buf.len() / 4096` from the device.
    pub fn dev_read(&mut self, b: u32, buf: &mut [u8]) -> Result<()> {
        let n = (buf.len() / BLOCK_SIZE) as u64;
        if u64::from(b) + n > u64::from(self.sb.total_blocks) {
            return Err(corrupt(format!("read of blocks {b}..+{n} past the end")));
        }
        let lba = self.lba(b);
        self.dev.read(lba, buf)?;
        Ok(())
    }

    /// Metadata block `b`, through the cache.
    pub fn meta(&mut self, b: u32) -> Result<&[u8]> {
        Ok(self.meta_load(b)?)
    }

    fn meta_load(&mut self, b: u32) -> Result<&mut [u8]> {
        self.check_block(b)?;
        if self.cache.contains(b) {
            return Ok(self.cache.get_mut(b).expect("present"));
        }
        let mut buf = vec![0u8; BLOCK_SIZE].into_boxed_slice();
        self.dev_read(b, &mut buf)?;
        let dirty = &self.tx.meta;
        self.cache.shrink(|b| dirty.contains_key(&b));
        Ok(self.cache.insert(b, buf))
    }

    /// Metadata block `b` for modification of bytes `off..off + len`: those
    /// sectors join the step. Returns the whole block.
    pub fn meta_mut(&mut self, b: u32, off: usize, len: usize) -> Result<&mut [u8]> {
        debug_assert!(len > 0 && off + len <= BLOCK_SIZE);
        self.check_block(b)?;
        let (first, end) = (
            off / self.sector_size,
            (off + len).div_ceil(self.sector_size),
        );
        self.tx.mark_meta(b, first, end);
        self.meta_load(b)
    }

    /// Edits metadata block `b` with `f`, which returns the byte range
    /// `(start, end)` it changed; those sectors join the step.
    pub fn meta_edit(&mut self, b: u32, f: impl FnOnce(&mut [u8]) -> (usize, usize)) -> Result<()> {
        let (start, end) = f(self.meta_load(b)?);
        debug_assert!(start < end && end <= BLOCK_SIZE);
        self.tx
            .mark_meta(b, start / self.sector_size, end.div_ceil(self.sector_size));
        Ok(())
    }

    /// A freshly allocated metadata block, zeroed; all of it joins the step
    /// (its old content on the device is garbage, so it is written whole).
    pub fn meta_new(&mut self, b: u32) -> Result<&mut [u8]> {
        self.check_block(b)?;
        self.tx.forget(b);
        self.tx.mark_meta(b, 0, self.spb);
        Ok(self
            .cache
            .insert(b, vec![0u8; BLOCK_SIZE].into_boxed_slice()))
    }

    /// Block `b` was freed: drop it from the cache and the step.
    pub fn forget(&mut self, b: u32) {
        self.cache.remove(b);
        self.tx.forget(b);
    }

    /// Data block `b` for writing bytes `off..off + len`. `fresh`: the block
    /// was just allocated (zero-filled, written whole). Otherwise the block
    /// is read first unless the range covers whole sectors (and the mode
    /// does not log whole block images).
    pub fn data_mut(&mut self, b: u32, off: usize, len: usize, fresh: bool) -> Result<&mut [u8]> {
        debug_assert!(len > 0 && off + len <= BLOCK_SIZE);
        self.check_data_block(b)?;
        // A block this step zeroes by a trim still holds its old bytes on
        // the device: it is a fresh block of zeros, written whole instead.
        let fresh = fresh || self.tx.trims.get(&b) == Some(&Trim::Zero);
        if fresh {
            self.tx.untrim(b, self.spb);
        }
        let ss = self.sector_size;
        let aligned = off % ss == 0 && len % ss == 0;
        let need_full = !aligned || self.mode == CommitMode::Log;
        if fresh {
            self.forget(b);
            self.tx.data.insert(
                b,
                DataBuf {
                    buf: vec![0u8; BLOCK_SIZE].into_boxed_slice(),
                    mask: SectorMask::full(self.spb),
                    full: true,
                },
            );
            self.tx.sectors += self.spb as u64;
        } else {
            let have = self.tx.data.get(&b).map(|d| d.full);
            if have.is_none() {
                let mut buf = vec![0u8; BLOCK_SIZE].into_boxed_slice();
                if need_full {
                    self.dev_read(b, &mut buf)?;
                }
                self.tx.data.insert(
                    b,
                    DataBuf {
                        buf,
                        mask: SectorMask::default(),
                        full: need_full,
                    },
                );
            } else if have == Some(false) && need_full {
                let mut disk = vec![0u8; BLOCK_SIZE];
                self.dev_read(b, &mut disk)?;
                let d = self.tx.data.get_mut(&b).expect("present");
                for s in 0..self.spb {
                    if !d.mask.contains(s) {
                        d.buf[s * ss..(s + 1) * ss].copy_from_slice(&disk[s * ss..(s + 1) * ss]);
                    }
                }
                d.full = true;
            }
            let d = self.tx.data.get_mut(&b).expect("present");
            self.tx.sectors += d.mask.set_range(off / ss, (off + len).div_ceil(ss));
        }
        Ok(&mut self.tx.data.get_mut(&b).expect("present").buf)
    }

    /// Whether the step can take `c` more.
    pub fn fits(&self, c: Cost) -> bool {
        self.tx.sectors + c.sectors <= self.budget.sectors
            && self.tx.blocks() + c.blocks <= self.budget.blocks
    }

    /// Throws the open step away: its metadata blocks leave the cache (the
    /// device still holds their state before the step) and its data
    /// buffers are dropped.
    pub fn abort_step(&mut self) {
        let blocks: Vec<u32> = self.tx.meta.keys().copied().collect();
        for b in blocks {
            self.cache.remove(b);
        }
        self.tx.clear();
        self.alloc = self.alloc_at_step_start;
    }

    /// Stops the file system after a failed commit.
    pub fn poison(&mut self, why: &FsError) {
        if self.poisoned.is_none() {
            self.poisoned = Some(why.to_string());
        }
    }

    pub fn check_poisoned(&self) -> Result<()> {
        match &self.poisoned {
            Some(p) => Err(FsError::Poisoned(p.clone())),
            None => Ok(()),
        }
    }
}
