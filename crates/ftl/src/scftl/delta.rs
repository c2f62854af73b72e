//! The delta log: the page-sized delta buffer and the delta region.
//!
//! Every change of the volatile L2P appends a (la, pa) pair. A full buffer
//! is programmed as a *tentative* page; `flush` programs the rest as the
//! *committed* page of the epoch. Each page names its checkpoint generation
//! and its epoch; recovery applies a page only if its generation is the
//! committed checkpoint's and a committed page of the same epoch follows it
//! (docs/FORMAT.md §4.3). Epoch ids only grow within a generation: after a
//! crash, recovery resumes past every id it saw, so stale tentative pages of
//! a crashed epoch are never activated by a later commit.
//!
//! Every committed page also carries the *epoch digest* (docs/FORMAT.md
//! §4.3): a CRC32C chained from the previous committed epoch of the
//! generation through this epoch's id and the data CRC of every sector the
//! epoch leaves mapped (its pairs that no later pair of the epoch
//! overrides: the sectors its snapshot needs, which nothing may erase
//! before a later epoch is durable). Data, delta pages and the committed page can then share one sync:
//! recovery recomputes the digest of every epoch that may not be durable and
//! drops the first one that does not match, with everything after it.
//!
//! In-page commits (docs/FORMAT.md §4.8): a flush may instead seal the
//! epoch's pairs into a record in the last data page it programs
//! ([`DeltaLog::seal_inpage`]). Those pairs then wait in the *backlog*,
//! and the first page the region receives after them is a consolidation
//! page holding them all, so the region stays a complete log and a
//! superblock holding in-page records can be erased once that page is
//! durable. OOB commits (§4.9) put an epoch's pairs in the backlog the
//! same way ([`DeltaLog::move_to_backlog`]).
//!
//! A failed program (docs/FORMAT.md §4.10): on an image whose regions can
//! move (configuration version 7), a region page the flash fails to
//! program *breaks* the region: its erase block is marked bad, no page is
//! programmed there again, pairs are dropped as they come, and the epoch
//! commits by a full checkpoint that moves the region off the bad block
//! (`flush.rs`). The failed page reads as a torn one, so a crash before that
//! checkpoint recovers exactly as after a power cut at the region's end.
//!
//! Invariants:
//! - `backlog.len() <= pairs_per_page`, and it is empty right after a
//!   region page was programmed;
//! - `wp <= region_pages`; pages `wp..` of the region are erased;
//! - `mapped` lists every pair with a mapped physical sector pushed in this
//!   epoch, with the sector's data CRC; `chain` is the digest of the last
//!   committed epoch of generation `gen` (0 before the first);
//! - `npairs < pairs_per_page` between calls; the buffer's pair area past
//!   `npairs` is zero whenever a page is sealed;
//! - `epoch_pages` counts the pages written in the current epoch.

use flash::Flash;

use crate::device::{FtlError, Result};

use super::format::{self, MetaHeader};
use super::layout::{La, Layout, Psa, Sb};

pub(crate) struct DeltaLog {
    /// Generation of the committed full checkpoint these pages extend.
    pub gen: u64,
    /// Id of the current epoch.
    pub epoch: u64,
    /// Next region page to program.
    pub wp: u32,
    pub region_pages: u32,
    pub pairs_per_page: u32,
    pub npairs: u32,
    /// Pages programmed in the current epoch.
    pub epoch_pages: u32,
    pub buf: Vec<u8>,
    /// Metadata pages programmed since open (statistics).
    pub pages_written: u64,
    /// Region page programs the flash failed (statistics).
    pub failed_programs: u64,
    /// Digest of the last committed epoch of this generation (0: none).
    pub chain: u32,
    /// The epoch's pairs with a mapped physical sector, with its data CRC.
    pub mapped: Vec<(La, Psa, u32)>,
    /// The flash was synced after the last page was programmed: the next
    /// page carries [`format::KIND_AFTER_SYNC`].
    pub after_sync: bool,
    /// The largest epoch id of a page programmed with the after-sync flag
    /// (or of an in-page or OOB commit, `flush.rs`): once it is durable,
    /// every epoch below it is proven durable.
    pub flagged_epoch: u64,
    /// Pairs of the epochs committed in-page since the last region page,
    /// in order; the next region page is preceded by their consolidation.
    pub backlog: Vec<(La, Psa)>,
    /// Epochs in the backlog, and the id of the last one.
    pub backlog_epochs: u32,
    pub backlog_last_epoch: u64,
    /// The superblocks holding the backlog's in-page or OOB records
    /// (recovery follows them until the consolidation page is durable).
    pub backlog_sbs: Vec<Sb>,
    /// The erase hold (docs/FORMAT.md §4.3): while the backlog is not
    /// empty, no superblock that became erasable at this epoch or later is
    /// erased — the backlog's first epoch, or 0 after a recovery that kept
    /// a tail as the backlog (every erasable superblock held). The
    /// backlog's consolidation page, durable, releases them.
    pub hold_from: u64,
    /// A failed program may break the region instead of failing (the
    /// image's regions can move: configuration version 7).
    pub movable: bool,
    /// The region takes no more pages in this generation and the epoch
    /// commits by a full checkpoint (`flush.rs`): a region page failed
    /// (or an erase of the region), and the checkpoint moves it; or the
    /// data page carrying the epoch's in-page or OOB commit failed.
    pub broken: bool,
    /// Page buffer of the consolidation page.
    cons_buf: Vec<u8>,
    /// Ghost (debug builds): the pairs of the tentative pages programmed in
    /// the current epoch, in order; with the buffer's, what the refinement
    /// oracle checks against the L2P ([`DeltaLog::epoch_pairs`]).
    #[cfg(debug_assertions)]
    tentative_pairs: Vec<(La, Psa)>,
}

impl DeltaLog {
    /// A log at write pointer `wp` whose last committed epoch of generation
    /// `gen` has digest `chain`, continuing with epoch id `epoch`.
    pub fn new(layout: &Layout, gen: u64, epoch: u64, wp: u32, chain: u32) -> DeltaLog {
        DeltaLog {
            chain,
            mapped: Vec::new(),
            // Created right after format or recovery, both of which synced.
            after_sync: true,
            flagged_epoch: 0,
            gen,
            epoch,
            wp,
            region_pages: layout.delta_pages(),
            pairs_per_page: layout.delta_pairs_per_page,
            npairs: 0,
            epoch_pages: 0,
            buf: vec![0u8; layout.page_size],
            pages_written: 0,
            failed_programs: 0,
            backlog: Vec::new(),
            backlog_epochs: 0,
            backlog_last_epoch: 0,
            backlog_sbs: Vec::new(),
            hold_from: u64::MAX,
            #[cfg(debug_assertions)]
            tentative_pairs: Vec::new(),
            movable: false,
            broken: false,
            cons_buf: vec![0u8; layout.page_size],
        }
    }

    /// Notes a pair with a mapped physical sector and that sector's data
    /// CRC (a written or relocated sector), for the epoch digest.
    #[inline]
    pub fn note_sector(&mut self, la: La, pa: Psa, sector_crc: u32) {
        self.mapped.push((la, pa, sector_crc));
    }

    /// The current epoch's digest, given the L2P at its end (`live(la, pa)`:
    /// whether `la` still maps to `pa`).
    pub fn digest(&self, mut live: impl FnMut(La, Psa) -> bool) -> u32 {
        let mut d = format::digest_start(self.chain, self.epoch);
        for &(la, pa, crc) in &self.mapped {
            if live(la, pa) {
                d = format::digest_sector(d, crc);
            }
        }
        d
    }

    /// Appends a pair; programs a tentative page when the buffer fills.
    #[inline]
    pub fn push<F: Flash + ?Sized>(
        &mut self,
        flash: &mut F,
        layout: &Layout,
        la: La,
        pa: Psa,
    ) -> Result<()> {
        format::put_pair(&mut self.buf, self.npairs as usize, la, pa);
        self.npairs += 1;
        if self.npairs == self.pairs_per_page {
            self.program(flash, layout, format::KIND_TENTATIVE, 0, None)?;
        }
        Ok(())
    }

    /// Programs the buffer as a page of `kind` at the write pointer.
    /// `digest` goes into a committed page (0 for a tentative one), and so
    /// does `link` (docs/FORMAT.md §4.8). A consolidation page of the
    /// backlog goes first, if there is one.
    pub fn program<F: Flash + ?Sized>(
        &mut self,
        flash: &mut F,
        layout: &Layout,
        kind: u16,
        digest: u32,
        link: Option<Psa>,
    ) -> Result<()> {
        self.consolidate(flash, layout)?;
        if self.broken {
            // The pairs are in the L2P, which the checkpoint that
            // commits this epoch holds.
            self.npairs = 0;
            return Ok(());
        }
        self.check_room()?;
        let mut used = format::delta_crc_len(self.npairs);
        self.buf[used..].fill(0);
        if let Some(link) = link {
            self.buf[used..used + format::LINK_LEN].copy_from_slice(&link.0.to_le_bytes());
            used += format::LINK_LEN;
        }
        let flag = if self.after_sync {
            self.flagged_epoch = self.flagged_epoch.max(self.epoch);
            format::KIND_AFTER_SYNC
        } else {
            0
        };
        let h = MetaHeader {
            kind: kind | flag,
            gen: self.gen,
            epoch: self.epoch,
            index: self.wp,
            count: self.npairs,
            aux: self.epoch_pages,
            aux2: digest,
        };
        format::seal_prefix(&mut self.buf, &h, used);
        let programmed = flash.program(layout.delta_page(self.wp), &self.buf, &[]);
        if self.break_on(flash, programmed)? {
            self.npairs = 0;
            return Ok(());
        }
        #[cfg(debug_assertions)]
        if kind == format::KIND_TENTATIVE {
            for k in 0..self.npairs as usize {
                self.tentative_pairs.push(format::get_pair(&self.buf, k));
            }
        }
        self.wp += 1;
        self.after_sync = false;
        self.epoch_pages += 1;
        self.npairs = 0;
        self.pages_written += 1;
        Ok(())
    }

    /// The current epoch's pairs, in order: those of its tentative pages
    /// and those still in the buffer; `None` once the region is broken
    /// (the pairs are then only in the L2P, which the checkpoint that
    /// commits the epoch holds). Debug builds.
    #[cfg(debug_assertions)]
    pub fn epoch_pairs(&self) -> Option<Vec<(La, Psa)>> {
        if self.broken {
            return None;
        }
        let mut v = self.tentative_pairs.clone();
        v.extend((0..self.npairs as usize).map(|k| format::get_pair(&self.buf, k)));
        Some(v)
    }

    fn check_room(&self) -> Result<()> {
        if self.wp >= self.region_pages {
            return Err(FtlError::NoSpace(format!(
                "the delta region's {} pages are full; the epoch bounds should have prevented this (bug)",
                self.region_pages
            )));
        }
        Ok(())
    }

    /// Programs the backlog, if any, as a consolidation page: the pairs of
    /// the epochs committed in-page since the last region page, under the
    /// id and digest of the last of them. Those epochs are durable (each
    /// in-page commit synced), so recovery applies the page as it finds it.
    pub fn consolidate<F: Flash + ?Sized>(&mut self, flash: &mut F, layout: &Layout) -> Result<()> {
        if self.backlog.is_empty() || self.broken {
            return Ok(());
        }
        self.check_room()?;
        let n = self.backlog.len() as u32;
        let used = format::delta_crc_len(n);
        for (k, &(la, pa)) in self.backlog.iter().enumerate() {
            format::put_pair(&mut self.cons_buf, k, la, pa);
        }
        self.cons_buf[used..].fill(0);
        let flag = if self.after_sync {
            self.flagged_epoch = self.flagged_epoch.max(self.backlog_last_epoch);
            format::KIND_AFTER_SYNC
        } else {
            0
        };
        let h = MetaHeader {
            kind: format::KIND_CONSOLIDATED | flag,
            gen: self.gen,
            epoch: self.backlog_last_epoch,
            index: self.wp,
            count: n,
            aux: self.backlog_epochs,
            // The backlog's last epoch is the last committed one.
            aux2: self.chain,
        };
        format::seal_prefix(&mut self.cons_buf, &h, used);
        let programmed = flash.program(layout.delta_page(self.wp), &self.cons_buf, &[]);
        if self.break_on(flash, programmed)? {
            // The backlog stays: its records are still what recovery
            // follows until the checkpoint.
            return Ok(());
        }
        self.wp += 1;
        self.after_sync = false;
        self.pages_written += 1;
        self.backlog.clear();
        self.backlog_epochs = 0;
        self.backlog_sbs.clear();
        self.hold_from = u64::MAX;
        Ok(())
    }

    /// A region page's program returned `programmed`: on a media failure
    /// of a movable region, marks the page's erase block bad, breaks the
    /// region and returns `true`; other errors are returned.
    fn break_on<F: Flash + ?Sized>(
        &mut self,
        flash: &mut F,
        programmed: flash::Result<()>,
    ) -> Result<bool> {
        match programmed {
            Ok(()) => Ok(false),
            Err(flash::FlashError::ProgramFailed { block, .. }) if self.movable => {
                flash.mark_bad(flash::BlockId(block))?;
                self.broken = true;
                self.failed_programs += 1;
                Ok(true)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Whether an in-page record can take the current epoch's pairs: no
    /// tentative page was written in this epoch, they fit in one sector,
    /// and the backlog can still absorb them. (`tentative_ok`: only the
    /// mutant `chain-commit-with-tentative-page` passes `true`.)
    pub fn inpage_fits(&self, sector_size: usize, tentative_ok: bool) -> bool {
        self.oob_fits(tentative_ok) && self.npairs <= format::inpage_capacity(sector_size)
    }

    /// Seals the current epoch's pairs as an in-page commit record into
    /// `record` (the last sector of the data page about to be programmed)
    /// and moves them to the backlog. Returns the record's header CRC (for
    /// the page's OOB marker).
    pub fn seal_inpage(
        &mut self,
        record: &mut [u8],
        link: Psa,
        fill: u32,
        digest: u32,
        data_crc: u32,
    ) -> u32 {
        let n = self.npairs;
        let pairs_end = format::delta_crc_len(n);
        record[format::HEADER_LEN..pairs_end]
            .copy_from_slice(&self.buf[format::HEADER_LEN..pairs_end]);
        let mut off = pairs_end;
        record[off..off + format::LINK_LEN].copy_from_slice(&link.0.to_le_bytes());
        off += format::LINK_LEN;
        record[off..off + format::INPAGE_DATA_CRC_LEN].copy_from_slice(&data_crc.to_le_bytes());
        off += format::INPAGE_DATA_CRC_LEN;
        record[off..].fill(0);
        let h = MetaHeader {
            // Programmed only after everything before it is durable.
            kind: format::KIND_INPAGE | format::KIND_AFTER_SYNC,
            gen: self.gen,
            epoch: self.epoch,
            index: 0,
            count: n,
            aux: fill,
            aux2: digest,
        };
        format::seal_prefix(record, &h, off);
        self.move_to_backlog();
        format::page_crc(&record[..off])
    }

    /// Whether an OOB commit (docs/FORMAT.md §4.9) can take the current
    /// epoch: no tentative page was written in this epoch, and the backlog
    /// can still absorb its pairs. (`tentative_ok` as for `inpage_fits`.)
    pub fn oob_fits(&self, tentative_ok: bool) -> bool {
        (self.epoch_pages == 0 || tentative_ok)
            && self.backlog_epochs + 1 < super::recovery::MAX_CHAIN
            && self.backlog.len() + self.npairs as usize <= self.pairs_per_page as usize
    }

    /// The current epoch was committed in-page or in the OOB of its last
    /// data page: its pairs wait in the backlog for the next region page.
    pub fn move_to_backlog(&mut self) {
        if self.backlog.is_empty() {
            // The chain starts: what this epoch's commit frees is held.
            self.hold_from = self.epoch;
        }
        for k in 0..self.npairs as usize {
            self.backlog.push(format::get_pair(&self.buf, k));
        }
        self.backlog_epochs += 1;
        self.backlog_last_epoch = self.epoch;
        self.npairs = 0;
        self.after_sync = false;
    }

    /// Starts the next epoch after its predecessor committed with `digest`.
    pub fn next_epoch(&mut self, digest: u32) {
        self.chain = digest;
        self.epoch += 1;
        self.epoch_pages = 0;
        self.mapped.clear();
        #[cfg(debug_assertions)]
        self.tentative_pairs.clear();
    }

    /// A full checkpoint started generation `gen` with an empty region: the
    /// digest chain starts again.
    pub fn new_generation(&mut self, gen: u64) {
        self.gen = gen;
        self.wp = 0;
        self.chain = 0;
        self.after_sync = true;
        // The full checkpoint holds what the backlog did.
        self.backlog.clear();
        self.backlog_epochs = 0;
        self.backlog_sbs.clear();
        self.hold_from = u64::MAX;
        // ...and the region it starts is whole (until an erase of it
        // fails: `flush.rs`). Pairs a broken region left in the buffer
        // are in the checkpoint too: the next epoch starts with none.
        self.broken = false;
        self.npairs = 0;
    }

    pub fn remaining_pages(&self) -> u32 {
        self.region_pages - self.wp
    }
}
