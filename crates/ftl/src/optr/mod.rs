//! OPTR: the order-preserving FTL of the OPTR paper (ATC'19, §3), the
//! fourth FTL. Contract: after a power cut and recovery the device equals
//! the state after some prefix of the acknowledged write and trim
//! requests, a prefix that includes every request acknowledged before the
//! last completed flush; each request (one `write` of up to
//! [`OptrConfig::max_request_sectors`] sectors, or one `trim`) is
//! all-or-nothing. There is no epoch bound.
//!
//! How: every request gets a write-request id (wid); every sector it puts
//! on flash carries a clue (wid, size, lpn, CRC; `clue.rs`); overwrites
//! coalesce in a DRAM write-back cache (`cache.rs`) and leave coalescing
//! records (`coalesce.rs`); checkpoints (incremental ones between full
//! ones) with a seal and segment summary pages (`checkpoint.rs`) bound
//! recovery, which rolls the log forward from
//! the seal and keeps the longest prefix of complete requests that splits
//! no coalesced group (`recovery.rs`, Algorithm 1). GC (`gc.rs`) never
//! collects a segment written after the latest checkpoint and flushes
//! before each batch of victims. Layout and segment states are the
//! log-structured baselines' (`crate::logstruct`).
//!
//! Invariants (checked by `check_invariants`, `invariants.rs`):
//! - `l2p[lpn]` is `UNMAPPED`, a physical sector `p` with `p2l[p] == lpn`,
//!   or `STAGE_BASE + i` with staging slot `i` holding `lpn`; the cache,
//!   when it holds `lpn`, holds its newest value;
//! - `segs.valid[s]` counts the logical sectors mapped into segment `s`;
//! - checkpoints and GC run only between requests, so a checkpoint never
//!   covers part of a request;
//! - every logical sector whose `l2p` entry changed since the latest
//!   checkpoint is in `ckpt_dirty` (so an incremental checkpoint of those
//!   entries brings the previous checkpoint's L2P up to date; the ghost
//!   copy of the checkpointed L2P checks it under the `ghost` feature);
//! - every wid on flash is below `next_wid`, every sequence number below
//!   `next_seqno`.
//!
//! Media failures (issue 14): a segment with a bad erase block (its wear
//! record, persisted, so recovery learns it too) is never filled or erased
//! again (`Retired`), and an erase the flash fails retires its segment;
//! any other failed program or erase turns the device read-only
//! (`FtlError::WornOut`): the request's sectors stay in the cache and the
//! staging page, so reads keep working, and recovery finds the log up to
//! the failed page (its clues do not check). A recovery whose fencing
//! checkpoint fails opens the device read-only.

pub mod cache;
pub mod checkpoint;
pub mod clue;
pub mod coalesce;
pub mod config;
mod gc;
mod invariants;
pub mod recovery;
pub mod stats;

use flash::{Flash, PageAddr};

use self::cache::Cache;
use self::checkpoint::{encode_summary, Seal};
use self::clue::{Clue, CLUE_SIZE, LPN_COALESCE, LPN_TRIM};
use self::coalesce::{encode_records, Coalesce};
pub use self::config::{OptrConfig, Plan};
pub use self::stats::OptrStats;
use crate::device::{
    check_range, check_request, BlockDevice, DeviceStats, FtlError, FtlKind, Lba, Result,
};
use crate::label;
use crate::logstruct::oob::encode_trim;
use crate::logstruct::segs::Segments;
use crate::logstruct::{Layout, Ppa, SegId, SegState};
use crate::mutant::Mutant;
use crate::UNMAPPED;

/// A sector waiting in the staging page for its program.
#[derive(Debug)]
struct Staged {
    clue: Clue,
    data: Box<[u8]>,
    /// The page GC read this sector from with a read for copy (the
    /// program must not start before that read's data arrived).
    from: Option<PageAddr>,
}

/// A victim page GC read ahead (with a read for copy) and has not staged
/// yet. A flash page does not change until its block is erased, and
/// `erase_segment` drops the reads of the segment it erases.
struct GcRead {
    victim: SegId,
    page: u32,
    data: Vec<u8>,
    oob: Vec<u8>,
}

/// The OPTR FTL.
pub struct Optr<F: Flash> {
    flash: F,
    config: OptrConfig,
    plan: Plan,
    layout: Layout,
    mutant: Mutant,
    logical: u64,
    /// The `l2p` value of staging slot 0.
    stage_base: u32,
    l2p: Vec<u32>,
    /// Physical sector → logical sector programmed there (`UNMAPPED` if
    /// none or metadata).
    p2l: Vec<u32>,
    segs: Segments,
    /// Sequence number of each data segment (0: none).
    seg_seqno: Vec<u64>,
    cache: Cache,
    /// Coalescing records not yet committed.
    records: Vec<Coalesce>,
    records_per_sector: usize,
    /// The page being assembled (at most `sectors_per_page` sectors).
    stage: Vec<Staged>,
    active: Option<(SegId, u32)>,
    next_wid: u64,
    next_seqno: u64,
    /// The latest checkpoint's seal (full or incremental) and the slot
    /// holding the latest full checkpoint.
    seal: Seal,
    seal_slot: u32,
    /// The next free page of the incremental region.
    incremental_next: u32,
    /// Logical sectors whose L2P entry changed since the latest checkpoint
    /// (a bitmap and the list of its set bits).
    ckpt_dirty: Vec<u64>,
    ckpt_dirty_list: Vec<u32>,
    /// Ghost (`ghost` feature, debug builds): the L2P the latest checkpoint
    /// recorded.
    ckpt_ghost: Vec<u32>,
    segments_since_checkpoint: u32,
    /// Logical sectors that read as data (mapped or cached).
    mapped: u64,
    stats: DeviceStats,
    optr_stats: OptrStats,
    opened_counters: flash::FlashCounters,
    /// Why the device is read-only, once it is (`FtlError::WornOut`).
    worn_out: Option<String>,
    /// Paced GC (gc.rs): the victim being relocated and the next page of
    /// it to scan, and the victim pages owed to the host's writes so far.
    pace: Option<(SegId, u32)>,
    pace_owed: f64,
    /// `log_pages` at which the victim in progress must be done: one
    /// segment's pages after it started, fewer when the free space above
    /// the floor is smaller.
    pace_end: u64,
    /// Log pages programmed since the device was opened (host data,
    /// records and relocations alike): paced GC's clock.
    log_pages: u64,
    /// A released victim's erase is not yet covered by a sync (one comes
    /// before the next segment is opened).
    erase_unsynced: bool,
    /// GC's reads ahead, in page order, and the next page of that victim
    /// to read (gc.rs, `gc_read_ahead`).
    gc_ahead: std::collections::VecDeque<GcRead>,
    gc_ahead_next: Option<(SegId, u32)>,
}

impl<F: Flash> Optr<F> {
    fn empty(flash: F, config: OptrConfig, mutant: Mutant) -> Result<Self> {
        match mutant {
            Mutant::None
            | Mutant::OptrIgnoreCoalescingRecords
            | Mutant::OptrGcErasesAfterCheckpoint
            | Mutant::OptrRequestCompleteWithMissingPage
            | Mutant::OptrSkipInternalFlushBeforeGc
            | Mutant::OptrIncrementalOmitsRelocations => {}
            m => {
                return Err(FtlError::BadArgument(format!(
                    "mutant `{}` does not apply to the optr FTL; pick one of its own mutants",
                    m.name()
                )))
            }
        }
        let g = *flash.geometry();
        let plan = config.validate(&g)?;
        let layout = plan.layout;
        let logical = config.logical_sectors;
        let mut segs = Segments::new(layout.segments);
        for s in 1..plan.first_data_segment {
            segs.set(SegId(s), SegState::Reserved);
        }
        segs.free.retain(|s| s.0 >= plan.first_data_segment);
        let opened_counters = flash.counters();
        Ok(Optr {
            stage_base: layout.physical_sectors,
            l2p: vec![UNMAPPED; logical as usize],
            p2l: vec![UNMAPPED; layout.physical_sectors as usize],
            segs,
            seg_seqno: vec![0; layout.segments as usize],
            cache: Cache::new(plan.cache_sectors as usize),
            records: Vec::new(),
            records_per_sector: config::records_per_sector(layout.sector_size),
            stage: Vec::new(),
            active: None,
            next_wid: 1,
            next_seqno: 1,
            seal: Seal {
                generation: 0,
                latest_wid: 0,
                log_segment: None,
                log_page: 0,
                log_seqno: 0,
            },
            seal_slot: 1,
            incremental_next: 0,
            ckpt_dirty: vec![0; (logical as usize).div_ceil(64)],
            ckpt_dirty_list: Vec::new(),
            ckpt_ghost: Vec::new(),
            segments_since_checkpoint: 0,
            mapped: 0,
            stats: DeviceStats {
                kind: Some(FtlKind::Optr),
                ..DeviceStats::default()
            },
            optr_stats: OptrStats::default(),
            opened_counters,
            worn_out: None,
            pace: None,
            pace_owed: 0.0,
            pace_end: 0,
            log_pages: 0,
            erase_unsynced: false,
            gc_ahead: std::collections::VecDeque::new(),
            gc_ahead_next: None,
            flash,
            config,
            plan,
            layout,
            mutant,
            logical,
        })
    }

    /// Formats `flash` with `config`.
    pub fn format(flash: F, config: OptrConfig) -> Result<Self> {
        Self::format_with_mutant(flash, config, Mutant::None)
    }

    /// Formats with a seeded bug (crash-checker self-tests only).
    pub fn format_with_mutant(flash: F, config: OptrConfig, mutant: Mutant) -> Result<Self> {
        let mut f = Self::empty(flash, config, mutant)?;
        label::clear_label(&mut f.flash)?;
        checkpoint::erase_slots(&mut f.flash, &f.plan)?;
        f.segs.free.clear();
        for s in f.plan.first_data_segment..f.layout.segments {
            if f.erase_segment(SegId(s))? {
                f.segs.set(SegId(s), SegState::Free);
                f.segs.free.push_back(SegId(s));
            }
        }
        f.segs.erases.fill(0);
        f.flash.sync()?;
        f.write_full_checkpoint()?;
        label::write_label(&mut f.flash, FtlKind::Optr, &f.config.encode())?;
        f.opened_counters = f.flash.counters();
        Ok(f)
    }

    /// Opens a formatted device, recovering after a crash.
    pub fn open(flash: F) -> Result<Self> {
        Self::open_with_mutant(flash, Mutant::None)
    }

    /// Opens with a seeded bug (crash-checker self-tests only).
    pub fn open_with_mutant(mut flash: F, mutant: Mutant) -> Result<Self> {
        let start = std::time::Instant::now();
        let (kind, cfg) = label::read_label(&mut flash)?;
        if kind != FtlKind::Optr {
            return Err(FtlError::WrongKind {
                found: kind,
                expected: FtlKind::Optr,
            });
        }
        let config = OptrConfig::decode(&cfg)?;
        let mut f = Self::empty(flash, config, mutant)?;
        f.recover()?;
        f.stats.last_recovery_ns = start.elapsed().as_nanos() as u64;
        f.opened_counters = f.flash.counters();
        Ok(f)
    }

    pub fn config(&self) -> &OptrConfig {
        &self.config
    }

    pub fn into_flash(self) -> F {
        self.flash
    }

    /// The flash device, for [`flash::Flash::submit`] between requests
    /// (`AnyFtl` ends every request with it); commands that change pages
    /// through it bypass the FTL's state.
    pub fn flash_mut(&mut self) -> &mut F {
        &mut self.flash
    }

    /// The largest write request this device accepts, in sectors.
    pub fn max_request_sectors(&self) -> u64 {
        u64::from(self.config.max_request_sectors)
    }

    fn stage_slot(&self, loc: u32) -> Option<usize> {
        (loc != UNMAPPED && loc >= self.stage_base).then(|| (loc - self.stage_base) as usize)
    }

    /// Records that `lpn`'s L2P entry changed since the latest checkpoint.
    fn mark_changed(&mut self, lpn: u32) {
        let (w, b) = (lpn as usize / 64, lpn % 64);
        if self.ckpt_dirty[w] & (1 << b) == 0 {
            self.ckpt_dirty[w] |= 1 << b;
            self.ckpt_dirty_list.push(lpn);
        }
    }

    /// Drops the flash mapping of `lpn` (the caller sets a new one).
    fn unmap_flash(&mut self, lpn: u32) {
        self.mark_changed(lpn);
        let loc = self.l2p[lpn as usize];
        if loc != UNMAPPED && loc < self.stage_base {
            self.segs.valid[self.layout.seg_of(Ppa(loc)).0 as usize] -= 1;
        }
        self.l2p[lpn as usize] = UNMAPPED;
    }

    /// Adds a sector to the staging page, programming the page when full.
    fn stage_push(&mut self, clue: Clue, data: &[u8]) -> Result<()> {
        self.stage_push_from(clue, data, None)
    }

    /// [`Self::stage_push`] of a sector GC read from page `from`.
    fn stage_push_from(&mut self, clue: Clue, data: &[u8], from: Option<PageAddr>) -> Result<()> {
        if (clue.lpn as u64) < self.logical {
            self.unmap_flash(clue.lpn);
            self.l2p[clue.lpn as usize] = self.stage_base + self.stage.len() as u32;
        }
        self.stage.push(Staged {
            clue,
            data: data.into(),
            from,
        });
        if self.stage.len() == self.layout.sectors_per_page as usize {
            self.program_stage()?;
        }
        Ok(())
    }

    /// Opens the next log segment: erases it if it holds stale content and
    /// programs its summary page.
    fn open_segment(&mut self) -> Result<(SegId, u32)> {
        let seg = loop {
            let seg = self
                .segs
                .take_free(&self.flash, &self.layout)
                .ok_or_else(|| {
                    FtlError::NoSpace(
                        "no free segment for the data log; GC could not keep up".into(),
                    )
                })?;
            if self.segs.state(seg) == SegState::Dirty
                || Segments::has_bad_block(&self.flash, &self.layout, seg)
            {
                // Synced before the summary page goes in: a power cut leaves
                // each page of an unsynced erase old or erased independently,
                // so stale pages with valid clues could reappear behind a new
                // summary and be rolled forward as part of the new log.
                if !self.erase_segment(seg)? {
                    continue;
                }
                self.flash.sync()?;
            }
            // A victim released by paced GC may still be erasing: the
            // erase is synced before the summary page goes in (see above).
            if self.erase_unsynced {
                self.flash.sync()?;
                self.erase_unsynced = false;
            }
            let seqno = self.next_seqno;
            self.next_seqno += 1;
            let mut page = vec![0u8; self.layout.geometry.page_size()];
            encode_summary(&mut page, seg, seqno);
            let addr = self.layout.page_addr(seg, 0);
            match self.flash.program(addr, &page, &[]) {
                Ok(()) => break (seg, seqno),
                Err(e) if e.is_media_failure() => {
                    // Nothing of the log is in this segment yet: its block
                    // is marked bad, the segment retired, and the log goes
                    // on in the next one under the same sequence number
                    // (recovery follows numbers one more each, so none may
                    // be skipped; the failed page holds no valid summary).
                    self.stats.program_failures += 1;
                    self.flash.mark_bad(addr.block)?;
                    self.next_seqno -= 1;
                    self.segs.set(seg, SegState::Retired);
                }
                Err(e) => return Err(e.into()),
            }
        };
        let (seg, seqno) = seg;
        self.stats.meta_pages_written += 1;
        self.optr_stats.summary_pages_programmed += 1;
        self.seg_seqno[seg.0 as usize] = seqno;
        self.segs.set(seg, SegState::Active);
        self.segments_since_checkpoint += 1;
        self.active = Some((seg, 1));
        Ok((seg, 1))
    }

    /// Erases a segment (true), or retires it (false) when it has a bad
    /// block or the flash fails the erase: it is never filled again.
    fn erase_segment(&mut self, seg: SegId) -> Result<bool> {
        // Reads GC made ahead of this segment's pages go stale now.
        self.gc_ahead.retain(|r| r.victim != seg);
        if self.gc_ahead_next.is_some_and(|(v, _)| v == seg) {
            self.gc_ahead_next = None;
        }
        let base = self.layout.seg_base(seg) as usize;
        self.p2l[base..base + self.layout.sectors_per_segment as usize].fill(UNMAPPED);
        self.seg_seqno[seg.0 as usize] = 0;
        if Segments::has_bad_block(&self.flash, &self.layout, seg) {
            self.segs.set(seg, SegState::Retired);
            return Ok(false);
        }
        for m in 0..self.layout.stripe {
            match self.flash.erase(self.layout.member_block(seg, m)) {
                Ok(()) => {}
                Err(e) if e.is_media_failure() => {
                    self.stats.erase_failures += 1;
                    self.segs.erases[seg.0 as usize] += 1;
                    self.segs.set(seg, SegState::Retired);
                    return Ok(false);
                }
                Err(e) => return Err(e.into()),
            }
        }
        self.segs.erases[seg.0 as usize] += 1;
        Ok(true)
    }

    /// Runs a request that changes the device (see the module
    /// documentation's media failures): refused once read-only; a media
    /// failure, or a lack of space once segments are retired, makes it so.
    fn guarded(&mut self, op: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        if let Some(why) = &self.worn_out {
            return Err(FtlError::WornOut(why.clone()));
        }
        let r = op(self);
        if let Err(FtlError::Flash(flash::FlashError::ProgramFailed { .. })) = &r {
            self.stats.program_failures += 1;
        }
        self.segs.read_only_after(r, &mut self.worn_out)
    }

    /// Programs the staging page (padding it) at the log head.
    fn program_stage(&mut self) -> Result<()> {
        if self.stage.is_empty() {
            return Ok(());
        }
        let (seg, page) = match self.active {
            Some(a) => a,
            None => self.open_segment()?,
        };
        let ss = self.layout.sector_size;
        let mut data = vec![0xFFu8; self.layout.geometry.page_size()];
        let mut oob = vec![0xFFu8; self.layout.geometry.oob_size as usize];
        let to = self.layout.page_addr(seg, page);
        for (i, s) in self.stage.iter().enumerate() {
            data[i * ss..(i + 1) * ss].copy_from_slice(&s.data);
            s.clue
                .encode(&mut oob[i * CLUE_SIZE..(i + 1) * CLUE_SIZE], &s.data);
            if let Some(from) = s.from {
                self.flash.copy_into(from, to);
            }
        }
        self.flash.program(to, &data, &oob)?;
        self.log_pages += 1;
        self.optr_stats.padding_sectors_programmed +=
            u64::from(self.layout.sectors_per_page) - self.stage.len() as u64;
        for (i, s) in std::mem::take(&mut self.stage).into_iter().enumerate() {
            let lpn = s.clue.lpn;
            if (lpn as u64) < self.logical {
                let ppa = self.layout.ppa(seg, page, i as u32).0;
                self.p2l[ppa as usize] = lpn;
                if self.l2p[lpn as usize] == self.stage_base + i as u32 {
                    self.l2p[lpn as usize] = ppa;
                    self.segs.valid[seg.0 as usize] += 1;
                }
            }
        }
        if page + 1 == self.layout.pages_per_segment {
            self.segs.set(seg, SegState::Used);
            self.active = None;
        } else {
            self.active = Some((seg, page + 1));
        }
        Ok(())
    }

    /// Commits the buffered coalescing records as one record sector.
    fn commit_records(&mut self) -> Result<()> {
        if self.records.is_empty() {
            return Ok(());
        }
        let mut sector = vec![0u8; self.layout.sector_size];
        encode_records(&mut sector, &self.records);
        let clue = Clue {
            lpn: LPN_COALESCE,
            wid: self.records.iter().map(|r| r.y).max().unwrap_or(0),
            size: self.records.len() as u16,
        };
        self.records.clear();
        self.stats.meta_pages_written += 1;
        self.optr_stats.record_sectors_programmed += 1;
        self.stage_push(clue, &sector)
    }

    fn add_record(&mut self, r: Coalesce) -> Result<()> {
        self.optr_stats.coalescing_records += 1;
        self.records.push(r);
        if self.records.len() >= self.records_per_sector {
            self.commit_records()?;
        }
        Ok(())
    }

    /// Writes a dirty cache entry to the staging page.
    fn write_back(&mut self, lpn: u32, wid: u64, size: u16, data: &[u8]) -> Result<()> {
        self.optr_stats.data_sectors_programmed += 1;
        self.stage_push(Clue { lpn, wid, size }, data)
    }

    /// An internal flush (paper §3.2, §3.4): commits the coalescing
    /// records, writes back every dirty cache entry, programs the staging
    /// page and syncs. Afterwards every acknowledged request is complete
    /// on flash.
    fn internal_flush(&mut self) -> Result<()> {
        // Victims paced GC finished before this flush may be erased after
        // it (gc.rs, `release_collected`).
        let ready = self.segs.collected.len();
        self.commit_records()?;
        for lpn in self.cache.dirty_lpns() {
            let (wid, size, data) = {
                let e = self.cache.get(lpn).expect("dirty entry");
                (e.wid, e.size, e.data.clone())
            };
            self.write_back(lpn, wid, size, &data)?;
            self.cache.mark_clean(lpn);
        }
        self.program_stage()?;
        self.flash.sync()?;
        self.erase_unsynced = false;
        self.release_collected(ready)
    }

    /// Takes a checkpoint (after an internal flush, so it covers every
    /// acknowledged request): incremental while the region has room for
    /// the changed entries and they take fewer pages than the L2P image,
    /// full otherwise.
    fn checkpoint(&mut self) -> Result<()> {
        self.optr_stats.internal_flushes += 1;
        self.internal_flush()?;
        let pages = self
            .plan
            .incremental_checkpoint_pages(self.ckpt_dirty_list.len() as u64);
        let room = u64::from(self.plan.incremental_pages - self.incremental_next);
        if pages <= room && pages <= u64::from(self.plan.l2p_pages) {
            self.write_incremental_checkpoint()
        } else {
            self.write_full_checkpoint()
        }
    }

    /// The seal of a checkpoint taken now.
    fn next_seal(&self) -> Seal {
        debug_assert!(self.stage.is_empty());
        let (log_segment, log_page, log_seqno) = match self.active {
            Some((seg, page)) => (Some(seg), page, self.seg_seqno[seg.0 as usize]),
            None => (None, 0, self.next_seqno - 1),
        };
        Seal {
            generation: self.seal.generation + 1,
            latest_wid: self.next_wid - 1,
            log_segment,
            log_page,
            log_seqno,
        }
    }

    /// The latest checkpoint is now `seal`: nothing has changed since.
    fn checkpointed(&mut self, seal: Seal) {
        for lpn in std::mem::take(&mut self.ckpt_dirty_list) {
            self.ckpt_dirty[lpn as usize / 64] = 0;
        }
        #[cfg(all(debug_assertions, feature = "ghost"))]
        self.ckpt_ghost.clone_from(&self.l2p);
        self.seal = seal;
        self.segments_since_checkpoint = 0;
    }

    /// Writes the changed L2P entries as an incremental checkpoint.
    fn write_incremental_checkpoint(&mut self) -> Result<()> {
        let seal = self.next_seal();
        self.ckpt_dirty_list.sort_unstable();
        let entries: Vec<(u32, u32)> = self
            .ckpt_dirty_list
            .iter()
            .map(|&l| (l, self.l2p[l as usize]))
            .collect();
        let pages = checkpoint::write_incremental(
            &mut self.flash,
            &self.plan,
            self.incremental_next,
            &entries,
            &seal,
        )?;
        self.incremental_next += pages;
        self.optr_stats.incremental_checkpoints += 1;
        self.optr_stats.incremental_pages_programmed += u64::from(pages);
        self.stats.meta_pages_written += u64::from(pages);
        self.checkpointed(seal);
        Ok(())
    }

    /// Writes the whole L2P into the shadow slot, then empties the
    /// incremental region.
    fn write_full_checkpoint(&mut self) -> Result<()> {
        let seal = self.next_seal();
        let slot = 1 - self.seal_slot;
        checkpoint::write_checkpoint(&mut self.flash, &self.plan, slot, &self.l2p, &seal)?;
        if self.plan.incremental_pages > 0 && self.incremental_next > 0 {
            checkpoint::erase_region(&mut self.flash, &self.plan)?;
        }
        self.incremental_next = 0;
        self.stats.full_checkpoints += 1;
        self.stats.meta_pages_written += u64::from(self.plan.l2p_pages) + 1;
        self.optr_stats.checkpoint_pages_programmed += u64::from(self.plan.l2p_pages) + 1;
        self.seal_slot = slot;
        self.checkpointed(seal);
        Ok(())
    }

    /// Between requests, before one of `sectors` sectors: takes a due
    /// checkpoint, paces GC with the host's writes, and runs whole GC
    /// batches when fewer than the headroom's segments are free.
    fn prepare(&mut self, sectors: u64) -> Result<()> {
        if self.segments_since_checkpoint >= self.config.checkpoint_interval_segments {
            self.checkpoint()?;
        }
        if self.segs.free_count() >= self.plan.headroom_segments {
            self.pace_gc(sectors)?;
        }
        if self.segs.free_count() < self.plan.headroom_segments {
            // A victim part-relocated stays an ordinary used segment (its
            // relocated sectors simply left it).
            self.pace = None;
            self.run_gc()?;
            if self.segs.free_count() < self.plan.headroom_segments {
                return Err(FtlError::NoSpace(format!(
                    "only {} free segments after GC, {} needed for a request",
                    self.segs.free_count(),
                    self.plan.headroom_segments
                )));
            }
        }
        Ok(())
    }

    fn take_wid(&mut self) -> Result<u64> {
        if self.next_wid > clue::WID_MAX {
            return Err(FtlError::NoSpace("write-request ids exhausted".into()));
        }
        let w = self.next_wid;
        self.next_wid += 1;
        Ok(w)
    }

    /// Caches one sector of request `wid`.
    fn cache_sector(&mut self, lpn: u32, data: &[u8], wid: u64, size: u16) -> Result<()> {
        // Counted once the sector is in the cache: an eviction whose write
        // back fails (a media failure) leaves it out, and uncounted.
        let newly_mapped = !self.cache.contains(lpn) && self.l2p[lpn as usize] == UNMAPPED;
        if !self.cache.contains(lpn) && self.cache.is_full() {
            if let Some((victim, e)) = self.cache.pop_lru() {
                if e.dirty {
                    self.write_back(victim, e.wid, e.size, &e.data)?;
                }
            }
        }
        let put = self.cache.put(lpn, data, wid, size);
        if newly_mapped {
            self.mapped += 1;
        }
        if let Some((true, x, x_size)) = put {
            self.add_record(Coalesce {
                x,
                y: wid,
                x_size: u32::from(x_size),
            })?;
        }
        Ok(())
    }
}

impl<F: Flash> Optr<F> {
    fn write_impl(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        let ss = self.layout.sector_size;
        let n = check_request(lba, data.len(), ss, self.logical)?;
        if n > self.max_request_sectors() {
            return Err(FtlError::BadArgument(format!(
                "a write of {n} sectors exceeds this device's maximum request of {} sectors (each request is atomic)",
                self.max_request_sectors()
            )));
        }
        self.prepare(n)?;
        let wid = self.take_wid()?;
        for i in 0..n as usize {
            self.cache_sector(
                lba.0 as u32 + i as u32,
                &data[i * ss..(i + 1) * ss],
                wid,
                n as u16,
            )?;
        }
        self.stats.user_sectors_written += n;
        Ok(())
    }

    fn trim_impl(&mut self, lba: Lba, count: u64) -> Result<()> {
        check_range(lba, count, self.logical)?;
        self.stats.user_sectors_trimmed += count;
        let (start, end) = (lba.0 as u32, (lba.0 + count) as u32);
        let live = (start..end).any(|l| self.cache.contains(l) || self.l2p[l as usize] != UNMAPPED);
        if !live {
            // Nothing to change in any prefix state: no wid is spent.
            return Ok(());
        }
        self.prepare(1)?;
        let wid = self.take_wid()?;
        for lpn in start..end {
            let cached = self.cache.remove(lpn);
            // Uncounted and unmapped before the coalescing record, whose
            // program may fail (a media failure turns the device
            // read-only): the sector then reads as trimmed, and counted as
            // such. Counting it after the record left a sector counted
            // mapped that was neither cached nor mapped (`scftl crashtest
            // --ftl optr --contract prefix --geometry tiny --seed 9610
            // --ops 388048 --inject-failures 0.1`).
            if cached.is_some() || self.l2p[lpn as usize] != UNMAPPED {
                self.mapped -= 1;
            }
            self.unmap_flash(lpn);
            if let Some(e) = &cached {
                if e.dirty {
                    self.add_record(Coalesce {
                        x: e.wid,
                        y: wid,
                        x_size: u32::from(e.size),
                    })?;
                }
            }
        }
        let mut sector = vec![0u8; self.layout.sector_size];
        encode_trim(&mut sector, lba.0, count);
        self.stats.meta_pages_written += 1;
        self.optr_stats.trim_sectors_programmed += 1;
        self.stage_push(
            Clue {
                lpn: LPN_TRIM,
                wid,
                size: 1,
            },
            &sector,
        )
    }
}

impl<F: Flash> BlockDevice for Optr<F> {
    fn sector_size(&self) -> usize {
        self.layout.sector_size
    }

    fn num_sectors(&self) -> u64 {
        self.logical
    }

    /// A sector is mapped when the cache holds it or the L2P maps it (an
    /// unmapped one reads as zeros, as in `read`).
    fn allocation(&self, lba: Lba, count: u64) -> Option<Result<Vec<(u64, bool)>>> {
        if let Err(e) = crate::device::check_range(lba, count, self.logical) {
            return Some(Err(e));
        }
        let mapped = (lba.0..lba.0 + count).map(|la| {
            let lpn = la as u32;
            self.cache.contains(lpn) || self.l2p[lpn as usize] != UNMAPPED
        });
        Some(Ok(crate::device::mapped_runs(mapped)))
    }

    fn read(&mut self, lba: Lba, out: &mut [u8]) -> Result<()> {
        let ss = self.layout.sector_size;
        let n = check_request(lba, out.len(), ss, self.logical)?;
        for i in 0..n as usize {
            let lpn = lba.0 as u32 + i as u32;
            let dst = &mut out[i * ss..(i + 1) * ss];
            if let Some(e) = self.cache.get(lpn) {
                dst.copy_from_slice(&e.data);
                continue;
            }
            let loc = self.l2p[lpn as usize];
            if loc == UNMAPPED {
                dst.fill(0);
            } else if let Some(slot) = self.stage_slot(loc) {
                dst.copy_from_slice(&self.stage[slot].data);
            } else {
                let (seg, page, slot) = self.layout.locate(Ppa(loc));
                let addr = self.layout.page_addr(seg, page);
                self.flash.read(addr, slot, dst)?;
                let mut oob = vec![0u8; (slot as usize + 1) * CLUE_SIZE];
                self.flash.read_oob(addr, &mut oob)?;
                match Clue::decode(&oob[slot as usize * CLUE_SIZE..], dst) {
                    Some(c) if c.lpn == lpn => {}
                    _ => {
                        return Err(FtlError::DamagedSector {
                            la: u64::from(lpn),
                            detail: format!(
                                "the clue at physical sector {loc} ({addr}, slot {slot}) does not match its data"
                            ),
                        })
                    }
                }
            }
        }
        self.stats.user_sectors_read += n;
        Ok(())
    }

    fn write(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        self.guarded(|f| f.write_impl(lba, data))
    }

    fn trim(&mut self, lba: Lba, count: u64) -> Result<()> {
        self.guarded(|f| f.trim_impl(lba, count))
    }

    fn flush(&mut self) -> Result<()> {
        self.guarded(|f| {
            f.internal_flush()?;
            f.stats.flushes += 1;
            Ok(())
        })
    }

    fn epoch_remaining(&self) -> Option<u64> {
        None
    }

    fn max_request_sectors(&self) -> Option<u64> {
        Some(Optr::max_request_sectors(self))
    }

    /// Dynamic wear leveling only (a static spread is refused).
    fn set_wear_policy(&mut self, policy: crate::WearPolicy) -> Result<()> {
        crate::wear::dynamic_only(policy, "optr")?;
        self.segs.wear = policy;
        Ok(())
    }

    fn stats(&self) -> DeviceStats {
        let mut s = self.stats.clone();
        s.valid_sectors = self.mapped;
        let data =
            (self.plan.first_data_segment..self.layout.segments).map(|i| self.segs.state(SegId(i)));
        for st in data {
            match st {
                SegState::Free | SegState::Dirty => s.free_blocks += 1,
                SegState::Active | SegState::Used => s.used_blocks += 1,
                SegState::Collected => s.invalid_blocks += 1,
                SegState::Retired => s.bad_blocks += 1,
                SegState::Reserved => {}
            }
        }
        s.set_erase_counts(&self.segs.erases[self.plan.first_data_segment as usize..]);
        s.flash = self.flash.counters().since(&self.opened_counters);
        s.ftl_counters = self.optr_stats.counters();
        s.wear = self.segs.wear_stats;
        s
    }

    fn check_invariants(&mut self) -> Result<(), String> {
        self.check()
    }
}
