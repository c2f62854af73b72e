//! `PageStates`: the NAND page bookkeeping of every backend that stores
//! pages (`MemFlash`, `DatalessFlash`, `FileFlash`). It owns which pages are
//! programmed, each block's next programmable page, the reset an erase
//! makes, each block's wear record (the rules of wearing out are
//! `wear.rs`'), and the command counters, and so it is the one place that
//! applies the NAND rules of the crate contract: program only an erased
//! page, in increasing order within its block, and erase whole blocks; and
//! decides which programs and erases fail. Backends keep only the bytes;
//! `FileFlash` also persists the state of each page and the wear record of
//! each block in its image (docs/FORMAT.md §2), loading them through
//! [`PageStates::from_parts`].
//!
//! Invariants:
//! - `programmed[i]` is set exactly for the programmed pages, by dense page
//!   index (`Geometry::page_index`);
//! - `next_page[b]` is one past the highest programmed page of block `b`,
//!   and 0 when none is;
//! - counters count only commands that took effect: a backend records a
//!   command after its checks and its writes succeeded.
//!
//! RAM: one byte per page and twelve per block. DatalessFlash relies on this
//! staying small at 256 GiB raw.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::wear::{BlockWear, WearModel};
use crate::{BlockId, FlashCounters, FlashError, Geometry, PageAddr, Result};

/// Programmed/erased state of every page, the next programmable page of
/// every block, and the command counters of one device.
pub(crate) struct PageStates {
    geometry: Geometry,
    programmed: Vec<bool>,
    next_page: Vec<u32>,
    counters: FlashCounters,
    /// Reads issued with shared access ([`crate::Flash::read_shared`]),
    /// added to `counters` when reported.
    shared: SharedCounts,
    /// How blocks wear out, and each block's wear record.
    model: WearModel,
    wear: Vec<BlockWear>,
}

/// The counters the shared-access commands move (atomically: several
/// readers count at once).
#[derive(Default)]
struct SharedCounts {
    reads: AtomicU64,
    bytes_read: AtomicU64,
}

impl PageStates {
    /// A fully erased new device with zeroed counters, wearing out as
    /// `model` says (its factory bad blocks are bad from the start).
    pub(crate) fn new(geometry: Geometry, model: WearModel) -> PageStates {
        PageStates {
            geometry,
            programmed: vec![false; geometry.total_pages() as usize],
            next_page: vec![0; geometry.total_blocks() as usize],
            counters: FlashCounters::default(),
            shared: SharedCounts::default(),
            model,
            wear: model.new_device(&geometry),
        }
    }

    /// The states of a device whose page `i` is programmed when
    /// `programmed[i]` is and whose blocks have the wear records `wear` (as
    /// loaded from a persistent copy); the next programmable pages follow
    /// from them. `programmed` has one entry per page, `wear` one per block.
    pub(crate) fn from_parts(
        geometry: Geometry,
        programmed: Vec<bool>,
        model: WearModel,
        wear: Vec<BlockWear>,
    ) -> PageStates {
        debug_assert_eq!(programmed.len() as u64, geometry.total_pages());
        debug_assert_eq!(wear.len() as u64, u64::from(geometry.total_blocks()));
        let mut states = PageStates {
            geometry,
            programmed,
            next_page: vec![0; geometry.total_blocks() as usize],
            counters: FlashCounters::default(),
            shared: SharedCounts::default(),
            model,
            wear,
        };
        for b in 0..geometry.total_blocks() {
            states.recompute_next(BlockId(b));
        }
        states
    }

    /// The same page states and wear records with zeroed counters and the
    /// unlimited wear model: what copying the pages and wear records onto
    /// a fresh device gives (`MemFlash::fork_copy`).
    pub(crate) fn fork_copy(&self) -> PageStates {
        PageStates::from_parts(
            self.geometry,
            self.programmed.clone(),
            WearModel::UNLIMITED,
            self.wear.clone(),
        )
    }

    fn index(&self, page: PageAddr) -> usize {
        self.geometry.page_index(page) as usize
    }

    /// The pages of `block`, as a range of dense page indices.
    fn block_range(&self, block: BlockId) -> std::ops::Range<usize> {
        let ppb = self.geometry.pages_per_block as usize;
        let first = block.0 as usize * ppb;
        first..first + ppb
    }

    /// Whether `page` is programmed; `page` must be in range.
    pub(crate) fn is_programmed(&self, page: PageAddr) -> bool {
        self.programmed[self.index(page)]
    }

    /// Whether `page` is erased (and may be programmed if in order).
    pub(crate) fn is_erased(&self, page: PageAddr) -> Result<bool> {
        self.geometry.check_page(page)?;
        Ok(!self.is_programmed(page))
    }

    /// [`crate::Flash::probe_erased`] for a backend whose page states are
    /// exact: answered from the state, counted as a read.
    pub(crate) fn probe_erased(&mut self, page: PageAddr) -> Result<bool> {
        let erased = self.is_erased(page)?;
        self.counters.reads += 1;
        Ok(erased)
    }

    /// Whether no page of `block` is programmed.
    pub(crate) fn block_is_erased(&self, block: BlockId) -> bool {
        self.next_page[block.0 as usize] == 0
    }

    /// Checks the NAND rules for a program of `page` (in range): the page
    /// must be erased, and at or after its block's next programmable page.
    pub(crate) fn check_program(&self, page: PageAddr) -> Result<()> {
        if self.is_programmed(page) {
            return Err(FlashError::ProgramNotErased {
                block: page.block.0,
                page: page.page,
            });
        }
        let next = self.next_page[page.block.0 as usize];
        if page.page < next {
            return Err(FlashError::ProgramOutOfOrder {
                block: page.block.0,
                page: page.page,
                next,
            });
        }
        Ok(())
    }

    /// Records a program of `bytes` bytes (data and OOB) that took effect;
    /// [`PageStates::check_program`] allowed it.
    pub(crate) fn record_program(&mut self, page: PageAddr, bytes: usize) {
        let i = self.index(page);
        self.programmed[i] = true;
        self.next_page[page.block.0 as usize] = page.page + 1;
        self.counters.programs += 1;
        self.counters.bytes_programmed += bytes as u64;
    }

    /// Whether a program of `page` (which the rules allow) fails: its block
    /// is bad, or the wear model fails it with age.
    pub(crate) fn program_fails(&self, page: PageAddr) -> bool {
        let w = self.wear[page.block.0 as usize];
        w.is_bad() || self.model.program_fails(&self.geometry, page, w.erases)
    }

    /// Records a program of `page` that failed: the page is consumed
    /// (programmed, with unspecified content), nothing else changes.
    pub(crate) fn record_failed_program(&mut self, page: PageAddr) {
        let i = self.index(page);
        self.programmed[i] = true;
        self.next_page[page.block.0 as usize] = page.page + 1;
        self.counters.failed_programs += 1;
    }

    /// What an erase of `block` (in range) does to its wear record: the new
    /// record, and whether the erase succeeds. Changes nothing; the caller
    /// applies it with [`PageStates::record_erase`] or
    /// [`PageStates::record_failed_erase`].
    pub(crate) fn erase_outcome(&self, block: BlockId) -> (BlockWear, bool) {
        self.model.after_erase(block, self.wear[block.0 as usize])
    }

    /// Records an erase of `block` that failed, with its new wear record
    /// (from [`PageStates::erase_outcome`]); its pages are unchanged.
    pub(crate) fn record_failed_erase(&mut self, block: BlockId, wear: BlockWear) {
        self.wear[block.0 as usize] = wear;
        self.counters.failed_erases += 1;
    }

    /// A block's wear record; `block` must be in range.
    pub(crate) fn wear(&self, block: BlockId) -> BlockWear {
        self.wear[block.0 as usize]
    }

    /// [`crate::Flash::block_wear`]: a block's wear record, range checked.
    pub(crate) fn block_wear(&self, block: BlockId) -> Result<BlockWear> {
        self.geometry.check_block(block)?;
        Ok(self.wear(block))
    }

    /// `block`'s wear record once retired by the FTL (in range).
    pub(crate) fn retired(&self, block: BlockId) -> BlockWear {
        BlockWear {
            health: crate::BlockHealth::Retired,
            ..self.wear(block)
        }
    }

    /// Replaces a block's wear record (for
    /// [`crate::RawFlash::set_block_wear`]); `block` must be in range.
    pub(crate) fn set_wear(&mut self, block: BlockId, wear: BlockWear) {
        self.wear[block.0 as usize] = wear;
    }

    /// Records an erase of `block` (in range) that took effect, with its new
    /// wear record (from [`PageStates::erase_outcome`]).
    pub(crate) fn record_erase(&mut self, block: BlockId, wear: BlockWear) {
        self.wear[block.0 as usize] = wear;
        let range = self.block_range(block);
        self.programmed[range].fill(false);
        self.next_page[block.0 as usize] = 0;
        self.counters.erases += 1;
    }

    /// Records a read command transferring `bytes` bytes.
    pub(crate) fn record_read(&mut self, bytes: usize) {
        self.counters.reads += 1;
        self.counters.bytes_read += bytes as u64;
    }

    /// Records a sync.
    pub(crate) fn record_sync(&mut self) {
        self.counters.syncs += 1;
    }

    /// Records a read issued with shared access.
    pub(crate) fn record_read_shared(&self, bytes: usize) {
        self.shared.reads.fetch_add(1, Ordering::Relaxed);
        self.shared
            .bytes_read
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// Sets a page's state outside the NAND rules (for
    /// [`crate::RawFlash::set_page_image`]); the block's next programmable
    /// page becomes the one after its highest programmed page. Counts nothing.
    pub(crate) fn set_raw(&mut self, page: PageAddr, programmed: bool) {
        let i = self.index(page);
        self.programmed[i] = programmed;
        self.recompute_next(page.block);
    }

    fn recompute_next(&mut self, block: BlockId) {
        let range = self.block_range(block);
        self.next_page[block.0 as usize] = self.programmed[range]
            .iter()
            .rposition(|&p| p)
            .map_or(0, |p| p as u32 + 1);
    }

    /// The counters since the device was created or opened.
    pub(crate) fn counters(&self) -> FlashCounters {
        let mut c = self.counters;
        c.reads += self.shared.reads.load(Ordering::Relaxed);
        c.bytes_read += self.shared.bytes_read.load(Ordering::Relaxed);
        c
    }

    /// Heap bytes of the page and block tables.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.programmed.capacity() * std::mem::size_of::<bool>()
            + self.next_page.capacity() * std::mem::size_of::<u32>()
            + self.wear.capacity() * std::mem::size_of::<BlockWear>()
    }
}

/// The `Flash` implementation shared by the RAM backends (`MemFlash`,
/// `DatalessFlash`): argument checks, then the NAND rules and counters of
/// their `pages: PageStates`, then their bytes. The two differ only in how
/// they keep bytes, so the type must provide `geometry: Geometry`,
/// `pages: PageStates` and `nvram: Vec<u8>` fields and these methods:
/// `copy_data(&self, page, first_sector, data)` and
/// `copy_oob(&self, page, oob)` (fill with 0xFF when the page is not
/// programmed), `store(&mut self, page, data, oob)` and
/// `free_block(&mut self, block)`. Commands take effect at once; power loss
/// is `CrashFlash`'s business.
macro_rules! ram_flash_impl {
    ($ty:ty) => {
        impl $crate::Flash for $ty {
            fn geometry(&self) -> &$crate::Geometry {
                &self.geometry
            }

            fn read(
                &mut self,
                page: $crate::PageAddr,
                first_sector: u32,
                data: &mut [u8],
            ) -> $crate::Result<()> {
                $crate::check_read(&self.geometry, page, first_sector, data.len())?;
                self.pages.record_read(data.len());
                self.copy_data(page, first_sector, data);
                Ok(())
            }

            fn read_oob(&mut self, page: $crate::PageAddr, oob: &mut [u8]) -> $crate::Result<()> {
                $crate::check_oob_read(&self.geometry, page, oob)?;
                self.pages.record_read(oob.len());
                self.copy_oob(page, oob);
                Ok(())
            }

            fn read_with_oob(
                &mut self,
                page: $crate::PageAddr,
                first_sector: u32,
                data: &mut [u8],
                oob: &mut [u8],
            ) -> $crate::Result<()> {
                // The same command, counted the same way.
                let mut one = [$crate::PageRead {
                    page,
                    first_sector,
                    data,
                    oob,
                }];
                $crate::Flash::read_shared(self, &mut one).unwrap_or(Ok(()))
            }

            fn read_shared(
                &self,
                reads: &mut [$crate::PageRead<'_>],
            ) -> Option<$crate::Result<()>> {
                for r in reads.iter_mut() {
                    if let Err(e) = r.check(&self.geometry) {
                        return Some(Err(e));
                    }
                    self.pages.record_read_shared(r.data.len() + r.oob.len());
                    self.copy_data(r.page, r.first_sector, r.data);
                    self.copy_oob(r.page, r.oob);
                }
                Some(Ok(()))
            }

            /// Nothing to wait for: a sync of this device only counts.
            fn start_sync(&mut self) -> Option<$crate::Result<$crate::SyncTicket>> {
                Some(Ok($crate::SyncTicket::ready(0)))
            }

            fn finish_sync(&mut self, _ticket: &$crate::SyncTicket) -> $crate::Result<()> {
                self.pages.record_sync();
                Ok(())
            }

            fn probe_erased(&mut self, page: $crate::PageAddr) -> $crate::Result<bool> {
                self.pages.probe_erased(page)
            }

            fn program(
                &mut self,
                page: $crate::PageAddr,
                data: &[u8],
                oob: &[u8],
            ) -> $crate::Result<()> {
                $crate::check_program(&self.geometry, page, data, oob)?;
                self.pages.check_program(page)?;
                if self.pages.program_fails(page) {
                    let zeros = vec![0u8; self.geometry.page_size()];
                    let oob_zeros = vec![0u8; self.geometry.oob_size as usize];
                    self.store(page, &zeros, &oob_zeros);
                    self.pages.record_failed_program(page);
                    return Err($crate::FlashError::ProgramFailed {
                        block: page.block.0,
                        page: page.page,
                    });
                }
                self.store(page, data, oob);
                self.pages.record_program(page, data.len() + oob.len());
                Ok(())
            }

            fn erase(&mut self, block: $crate::BlockId) -> $crate::Result<()> {
                self.geometry.check_block(block)?;
                let (wear, ok) = self.pages.erase_outcome(block);
                if !ok {
                    self.pages.record_failed_erase(block, wear);
                    return Err($crate::FlashError::EraseFailed { block: block.0 });
                }
                self.pages.record_erase(block, wear);
                self.free_block(block);
                Ok(())
            }

            fn sync(&mut self) -> $crate::Result<()> {
                self.pages.record_sync();
                Ok(())
            }

            fn submit(&mut self) -> $crate::Result<()> {
                Ok(())
            }

            fn nvram_size(&self) -> usize {
                self.nvram.len()
            }

            fn nvram_read(&mut self, offset: usize, buf: &mut [u8]) -> $crate::Result<()> {
                $crate::nvram_copy_out(&self.nvram, offset, buf)
            }

            fn nvram_write(&mut self, offset: usize, data: &[u8]) -> $crate::Result<()> {
                $crate::nvram_copy_in(&mut self.nvram, offset, data)
            }

            fn counters(&self) -> $crate::FlashCounters {
                self.pages.counters()
            }

            fn lost_programs_can_return(&self) -> bool {
                false
            }

            fn block_wear(&self, block: $crate::BlockId) -> $crate::Result<$crate::BlockWear> {
                self.pages.block_wear(block)
            }

            fn mark_bad(&mut self, block: $crate::BlockId) -> $crate::Result<()> {
                self.geometry.check_block(block)?;
                let w = self.pages.retired(block);
                self.pages.set_wear(block, w);
                Ok(())
            }
        }
    };
}
pub(crate) use ram_flash_impl;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_follow_programs_erases_and_raw_changes() {
        let g = Geometry::tiny();
        let mut s = PageStates::new(g, WearModel::UNLIMITED);
        let p = |b, p| PageAddr::new(b, p);
        s.check_program(p(1, 2)).unwrap();
        s.record_program(p(1, 2), 10);
        assert!(matches!(
            s.check_program(p(1, 2)),
            Err(FlashError::ProgramNotErased { block: 1, page: 2 })
        ));
        assert!(matches!(
            s.check_program(p(1, 1)),
            Err(FlashError::ProgramOutOfOrder {
                block: 1,
                page: 1,
                next: 3
            })
        ));
        s.check_program(p(1, 5)).unwrap();
        assert!(!s.block_is_erased(BlockId(1)));
        s.set_raw(p(1, 6), true);
        assert!(s.check_program(p(1, 5)).is_err());
        s.set_raw(p(1, 6), false);
        s.set_raw(p(1, 2), false);
        assert!(s.block_is_erased(BlockId(1)));
        s.record_program(p(1, 0), 10);
        let (w, ok) = s.erase_outcome(BlockId(1));
        assert!(ok && w.erases == 1);
        s.record_erase(BlockId(1), w);
        assert!(s.block_is_erased(BlockId(1)));
        assert!(s.is_erased(p(1, 0)).unwrap());
        let c = s.counters();
        assert_eq!((c.programs, c.erases, c.bytes_programmed), (2, 1, 20));
        assert!(s.is_erased(p(1, 99)).is_err());
    }

    #[test]
    fn loading_computes_next_pages() {
        let g = Geometry::tiny();
        let ppb = g.pages_per_block as usize;
        let mut flags = vec![false; g.total_pages() as usize];
        flags[ppb + 3] = true;
        let wear = WearModel::UNLIMITED.new_device(&g);
        let s = PageStates::from_parts(g, flags, WearModel::UNLIMITED, wear);
        assert!(s.block_is_erased(BlockId(0)));
        assert!(matches!(
            s.check_program(PageAddr::new(1, 2)),
            Err(FlashError::ProgramOutOfOrder { next: 4, .. })
        ));
        s.check_program(PageAddr::new(1, 4)).unwrap();
    }
}
