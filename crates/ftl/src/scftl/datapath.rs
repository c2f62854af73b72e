//! The data path: write, read and trim, the merge buffer and the active
//! superblock.
//!
//! A written sector goes into the page-sized merge buffer at the active
//! pointer (superblock, page, slot); the L2P is remapped and a delta pair
//! appended; a full merge buffer is programmed when the next sector needs
//! its room, or by the flush (which may commit in its OOB, docs/FORMAT.md
//! §4.9). A write that covers
//! a whole page while the merge buffer is empty skips it: the page is
//! programmed straight from the caller's buffer (the same page, OOB and
//! pairs, one copy fewer). Reads look in the merge buffer first. Nothing
//! here allocates; the one hash per sector is the data checksum
//! (docs/FORMAT.md §4.7): computed once when a user sector is placed,
//! checked on every read from flash, and copied
//! verbatim (not recomputed) by GC, so damage on flash is never laundered
//! into a valid-looking sector.
//!
//! Invariants: see `mod.rs` (merge buffer) and `blocks.rs` (queues). A
//! request is checked whole (range, length, epoch budget) before anything
//! changes, so every caller error leaves the device untouched.

use flash::{BlockId, Flash, FlashError};

use crate::device::{check_range, check_request, FtlError, Lba, Result};
use crate::mutant::Mutant;
use crate::wear;

use super::format::{self, data_crc, data_oob, DATA_OOB_LEN};
use super::layout::{La, Psa};
use super::{Active, Scftl, Stream};

/// Most bytes of whole pages one [`Scftl::program_run_direct`] hands the
/// flash (the image backend's `GATHER_BYTES`: larger runs gain nothing).
const RUN_BYTES: usize = 2 << 20;

impl<F: Flash> Scftl<F> {
    pub(super) fn write_impl(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        let ss = self.layout.sector_size;
        let n = check_request(lba, data.len(), ss, self.config.logical_sectors)?;
        self.check_not_worn_out()?;
        let mut refused = None;
        let mut fits = n;
        if let Err(e) = self.check_epoch_budget(n) {
            if self.mutant != Mutant::PartialWritePastEpochBound {
                return Err(e);
            }
            fits = u64::from(self.config.write_bound) - self.updates;
            refused = Some(e);
        }
        let page_bytes = self.layout.spp as usize * ss;
        let data = &data[..fits as usize * ss];
        self.admitted = fits;
        let mut done = 0;
        while done < data.len() {
            let first = lba.0 + (done / ss) as u64;
            self.gc_if_needed()?;
            self.settle_full_buffer()?;
            let rest = &data[done..];
            if self.mb_fill == 0 && rest.len() >= page_bytes {
                // A whole page at a page boundary: programmed straight from
                // the caller's buffer, unless opening the page made GC due
                // (then the sector path below lets it run after this
                // sector, exactly as for any other sector).
                let a = self.open_active()?;
                if !self.gc_needed() {
                    // Every whole page the active superblock still has room
                    // for goes in one run: programming within the active
                    // superblock changes nothing GC depends on.
                    let room = (self.layout.pages_per_sb - a.next_page) as usize;
                    let k = (rest.len() / page_bytes)
                        .min(room)
                        .min((RUN_BYTES / page_bytes).max(1));
                    let k = k.max(1);
                    match self.program_run_direct(a, first, &rest[..k * page_bytes])? {
                        None => done += k * page_bytes,
                        // Nothing of the run was mapped: retire the
                        // superblock and write the run again elsewhere.
                        Some(block) => self.abandon_active(block)?,
                    }
                    continue;
                }
            }
            let la = La(first as u32);
            let sector = &rest[..ss];
            let (psa, crc) = self.append_sector(la, sector)?;
            self.note_written(la, psa, crc)?;
            done += ss;
        }
        self.admitted = 0;
        self.stats.user_sectors_written += fits;
        refused.map_or(Ok(()), Err)
    }

    /// Maps a user sector just placed at `psa` (checksum `crc`): L2P, epoch
    /// count, digest and delta pair.
    #[inline]
    fn note_written(&mut self, la: La, psa: Psa, crc: u32) -> Result<()> {
        self.remap(la, psa, crc);
        self.updates += 1;
        self.admitted = self.admitted.saturating_sub(1);
        self.delta.note_sector(la, psa, crc);
        self.delta.push(&mut self.flash, &self.layout, la, psa)
    }

    /// Programs whole pages of user data (the next `run.len() / page_bytes`
    /// pages of the active superblock `a`, logical sectors `first..`)
    /// straight from the caller's buffer: the merge buffer is empty, so it
    /// would only have been a staging copy. They go to the flash as one
    /// [`Flash::program_many`], which the image backend writes straight
    /// from `run` (with detached writes on and another thread's run not
    /// yet written, it copies `run` and hands the copy over like a gather).
    /// Each sector's checksum is computed once, into its page's
    /// OOB; then the pages are noted and mapped in order, as if programmed
    /// one by one (the tentative delta pages that mapping may program come
    /// after the run's data pages instead of between them: nothing is
    /// synced in between, so a crash could already land any subset of
    /// them).
    fn program_run_direct(&mut self, a: Active, first: u64, run: &[u8]) -> Result<Option<BlockId>> {
        debug_assert_eq!(self.mb_fill, 0);
        let ss = self.layout.sector_size;
        let spp = self.layout.spp;
        let page_bytes = spp as usize * ss;
        let mut pages = std::mem::take(&mut self.run_pages);
        let mut oobs = std::mem::take(&mut self.run_oob);
        pages.clear();
        oobs.clear();
        for (i, page) in run.chunks_exact(page_bytes).enumerate() {
            let sector_first = first + (i * spp as usize) as u64;
            for (slot, sector) in page.chunks_exact(ss).enumerate() {
                let la = La((sector_first + slot as u64) as u32);
                data_oob::CRC
                    .at(slot * DATA_OOB_LEN)
                    .put_u32(&mut self.mb_oob, data_crc(la, sector));
                self.put_oob_la(slot as u32, la);
            }
            oobs.extend_from_slice(&self.mb_oob);
            self.mb_oob.fill(0xFF);
            pages.push(self.layout.page_addr(a.sb, a.next_page + i as u32));
        }
        // A program failure maps nothing: `Ok(Some(block))`, and the
        // caller writes the run again elsewhere; the pages before it hold
        // data nothing points to. A failure while mapping (a delta page)
        // is an error like any other: the run's sectors are mapped by then.
        let result = match self.flash.program_many(&pages, run, &oobs) {
            Ok(()) => self.map_run(a, first, &oobs).map(|()| None),
            Err(FlashError::ProgramFailed { .. })
                if self.mutant == Mutant::IgnoreRunProgramFailure =>
            {
                self.map_run(a, first, &oobs).map(|()| None)
            }
            Err(FlashError::ProgramFailed { block, .. }) => Ok(Some(BlockId(block))),
            Err(e) => Err(e.into()),
        };
        self.mb_oob.fill(0xFF);
        self.run_pages = pages;
        self.run_oob = oobs;
        result
    }

    /// Notes and maps the pages of a run just programmed (their OOB areas
    /// `oobs`, `mb_oob.len()` bytes each) in order, as
    /// `program_merge_buffer` does for one page: each OOB goes back into the
    /// merge buffer's place, where `note_run_page` reads a programmed
    /// page's records (the caller refills it with 0xFF).
    fn map_run(&mut self, a: Active, first: u64, oobs: &[u8]) -> Result<()> {
        let spp = self.layout.spp;
        for (i, oob) in oobs.chunks_exact(self.mb_oob.len()).enumerate() {
            self.mb_oob.copy_from_slice(oob);
            self.note_run_page();
            let j = a.next_page + i as u32;
            self.active = Some(Active {
                sb: a.sb,
                next_page: j + 1,
            });
            let sector_first = first + u64::from(i as u32 * spp);
            for slot in 0..spp {
                let la = La((sector_first + u64::from(slot)) as u32);
                let psa = self.layout.psa(a.sb, j, slot);
                let crc = data_oob::CRC
                    .at(slot as usize * DATA_OOB_LEN)
                    .get_u32(&self.mb_oob);
                self.note_written(la, psa, crc)?;
            }
        }
        Ok(())
    }

    /// The lookups of a read: checks the request, fills the sectors that
    /// are unmapped (zeros) or still in a merge buffer, and returns the
    /// flash reads left, each the run of following sectors stored right
    /// after one another in one page (read with one data read and the
    /// page's OOB records).
    fn plan_read(&self, lba: Lba, buf: &mut [u8]) -> Result<Vec<FlashRun>> {
        let ss = self.layout.sector_size;
        let n = check_request(lba, buf.len(), ss, self.config.logical_sectors)?;
        let open_base = self.merge_buffer_base();
        let count = n as usize;
        let la_at = |i: usize| La((lba.0 + i as u64) as u32);
        let mut runs = Vec::new();
        let mut i = 0;
        while i < count {
            let psa = self.l2p[la_at(i)];
            let out = &mut buf[i * ss..(i + 1) * ss];
            if !psa.is_mapped() {
                out.fill(0);
                i += 1;
                continue;
            }
            if let Some(base) = open_base.filter(|&b| psa >= b && psa.0 < b.0 + self.mb_fill) {
                let slot = (psa.0 - base.0) as usize;
                out.copy_from_slice(&self.mb[slot * ss..(slot + 1) * ss]);
                i += 1;
                continue;
            }
            if let Some(sector) = self.parked_sector(psa) {
                out.copy_from_slice(sector);
                i += 1;
                continue;
            }
            let (page, slot) = self.layout.locate(psa);
            let mut run = 1;
            while i + run < count
                && slot + (run as u32) < self.layout.spp
                && self.l2p[la_at(i + run)] == Psa(psa.0 + run as u32)
            {
                run += 1;
            }
            runs.push(FlashRun {
                first: i,
                sectors: run,
                la: la_at(i),
                psa,
                page,
                slot,
            });
            i += run;
        }
        Ok(runs)
    }

    pub(super) fn read_impl(&mut self, lba: Lba, buf: &mut [u8]) -> Result<()> {
        let ss = self.layout.sector_size;
        for r in self.plan_read(lba, buf)? {
            let data = &mut buf[r.first * ss..(r.first + r.sectors) * ss];
            self.flash.read(r.page, r.slot, data)?;
            self.check_data_crcs(r.la, r.psa, r.page, r.slot, data)?;
        }
        self.stats.user_sectors_read += (buf.len() / ss) as u64;
        Ok(())
    }

    /// [`Scftl::read_impl`] with shared access (`BlockDevice::read_shared`):
    /// the same lookups, each page run read in one shared read command —
    /// its data alone when the checksums of all its sectors are in the
    /// cache (`map.rs` `CrcCache`), else its data with its OOB records,
    /// whose checksums, once verified, go into the cache. `None` when the
    /// flash cannot read with shared access, or a flash command failed
    /// (the caller reads again with exclusive access, which reports the
    /// failure as `read` does).
    pub(super) fn read_shared_impl(&self, lba: Lba, buf: &mut [u8]) -> Option<Result<()>> {
        let ss = self.layout.sector_size;
        let runs = match self.plan_read(lba, buf) {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let phys = self.layout.num_sbs as usize * self.layout.sectors_per_sb as usize;
        // Each run's cached checksums (one per sector of the request, at
        // the run's place), filled while the reads are built; a run that
        // missed any reads its OOB records up to its last slot, in one
        // buffer of `spp` records per run, and a run that hit reads none
        // (so an empty `oob` below marks a hit: a miss reads at least one
        // record).
        let mut crcs = vec![0u32; buf.len() / ss];
        let rec_bytes = self.layout.spp as usize * DATA_OOB_LEN;
        let mut records = vec![0u8; runs.len() * rec_bytes];
        let mut reads = Vec::with_capacity(runs.len());
        let (mut rest, mut at) = (&mut buf[..], 0);
        for (r, recs) in runs.iter().zip(records.chunks_exact_mut(rec_bytes)) {
            let hit = self
                .crc_cache
                .get_run(phys, r.psa, &mut crcs[r.first..r.first + r.sectors]);
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(r.first * ss - at);
            let (data, tail) = tail.split_at_mut(r.sectors * ss);
            rest = tail;
            at = (r.first + r.sectors) * ss;
            let oob_len = if hit {
                0
            } else {
                (r.slot as usize + r.sectors) * DATA_OOB_LEN
            };
            reads.push(flash::PageRead {
                page: r.page,
                first_sector: r.slot,
                data,
                oob: &mut recs[..oob_len],
            });
        }
        if self.flash.read_shared(&mut reads)?.is_err() {
            return None;
        }
        for (r, read) in runs.iter().zip(&reads) {
            let hit = read.oob.is_empty();
            let checked = if hit {
                let cached = &crcs[r.first..r.first + r.sectors];
                verify_sectors(r.la, r.psa, r.page, r.slot, read.data, ss, |k| cached[k])
            } else {
                verify_data_crcs(r.la, r.psa, r.page, r.slot, read.data, read.oob, ss)
            };
            if let Err(e) = checked {
                return Some(Err(e));
            }
            if !hit {
                for k in 0..r.sectors {
                    let rec = (r.slot as usize + k) * DATA_OOB_LEN;
                    let crc = data_oob::CRC.at(rec).get_u32(read.oob);
                    self.crc_cache.fill(Psa(r.psa.0 + k as u32), crc);
                }
            }
        }
        self.shared_sectors_read.fetch_add(
            (buf.len() / ss) as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        Some(Ok(()))
    }

    pub(super) fn trim_impl(&mut self, lba: Lba, count: u64) -> Result<()> {
        check_range(lba, count, self.config.logical_sectors)?;
        self.check_not_worn_out()?;
        self.check_epoch_budget(count)?;
        for la in lba.0..lba.0 + count {
            let la = La(la as u32);
            let old = self.l2p[la];
            if !old.is_mapped() {
                continue;
            }
            if self.mutant != Mutant::TrimForgetsValidCount {
                self.blocks.remove_valid(self.layout.sb_of(old));
            }
            self.valid.clear(old);
            self.l2p[la] = Psa::UNMAPPED;
            #[cfg(debug_assertions)]
            self.ghost.pending.push((la, Psa::UNMAPPED));
            if self.mutant != Mutant::ForgetTrimDelta {
                self.delta
                    .push(&mut self.flash, &self.layout, la, Psa::UNMAPPED)?;
            }
        }
        self.updates += count;
        self.stats.user_sectors_trimmed += count;
        Ok(())
    }

    /// Verifies sectors read from flash — logical sectors `la`, `la + 1`,
    /// ... stored at `psa`, `psa + 1`, ... from slot `slot` of `page` on —
    /// against the CRCs in the page's OOB. Only the OOB prefix up to the
    /// last slot's record is read: the page was just sensed, so this costs a
    /// short transfer, not another array read.
    fn check_data_crcs(
        &mut self,
        la: La,
        psa: Psa,
        page: flash::PageAddr,
        slot: u32,
        data: &[u8],
    ) -> Result<()> {
        let ss = self.layout.sector_size;
        let run = data.len() / ss;
        let end = (slot as usize + run) * DATA_OOB_LEN;
        let oob = &mut self.oob_scratch[..end];
        self.flash.read_oob(page, oob)?;
        verify_data_crcs(la, psa, page, slot, data, oob, ss)
    }
    fn check_epoch_budget(&self, needed: u64) -> Result<()> {
        let remaining = u64::from(self.config.write_bound).saturating_sub(self.updates);
        if needed > remaining {
            return Err(FtlError::EpochFull { needed, remaining });
        }
        Ok(())
    }

    /// Physical sector of slot 0 of the merge buffer, if a page is open.
    fn merge_buffer_base(&self) -> Option<Psa> {
        let a = self.active?;
        (a.next_page < self.layout.pages_per_sb).then(|| self.layout.psa(a.sb, a.next_page, 0))
    }

    /// Writes `la` into the merge buffer's OOB as slot `slot`'s logical
    /// sector record (version-5 images; older ones keep a P2L instead).
    #[inline]
    fn put_oob_la(&mut self, slot: u32, la: La) {
        if self.p2l.is_none() {
            let at = format::data_la_offset(self.layout.spp, slot);
            self.mb_oob[at..at + format::DATA_LA_LEN].copy_from_slice(&la.0.to_le_bytes());
        }
    }

    /// Points `la` at `psa` in the L2P, the valid map (and P2L) and fixes
    /// the valid counts; `crc` is the data checksum the sector's OOB
    /// record holds (kept for shared reads: `map.rs` `CrcCache`).
    #[inline]
    pub(super) fn remap(&mut self, la: La, psa: Psa, crc: u32) {
        let old = self.l2p[la];
        if old.is_mapped() {
            self.blocks.remove_valid(self.layout.sb_of(old));
            self.valid.clear(old);
        }
        self.l2p[la] = psa;
        if self.mutant != Mutant::StaleChecksumCache {
            self.crc_cache.set(psa, crc);
        }
        self.valid.set(psa);
        if let Some(p2l) = &mut self.p2l {
            p2l[psa] = la;
        }
        self.blocks.add_valid(self.layout.sb_of(psa));
        #[cfg(debug_assertions)]
        self.ghost.pending.push((la, psa));
    }

    /// Copies one sector of logical sector `la` into the merge buffer at the
    /// active pointer with its checksum, computed here once, and returns its
    /// physical address and that checksum; programs the buffer when it
    /// fills.
    #[inline]
    fn append_sector(&mut self, la: La, sector: &[u8]) -> Result<(Psa, u32)> {
        self.settle_full_buffer()?;
        let a = self.open_active()?;
        let ss = self.layout.sector_size;
        let slot = self.mb_fill;
        let psa = self.layout.psa(a.sb, a.next_page, slot);
        self.mb[slot as usize * ss..(slot as usize + 1) * ss].copy_from_slice(sector);
        let crc = data_crc(la, sector);
        data_oob::CRC
            .at(slot as usize * DATA_OOB_LEN)
            .put_u32(&mut self.mb_oob, crc);
        self.put_oob_la(slot, la);
        self.mb_fill += 1;
        Ok((psa, crc))
    }

    /// Like [`Self::append_sector`], for GC relocation of logical sector
    /// `la`: `sector` was read from page `from` by a read for copy issued
    /// ahead (gc.rs), so the device is told the merge buffer's page carries
    /// it; its checksum is `crc`, the one its old page's OOB holds, copied
    /// unchecked: if the data was damaged the copy fails its reads too.
    pub(super) fn append_relocated(
        &mut self,
        from: flash::PageAddr,
        la: La,
        sector: &[u8],
        crc: u32,
    ) -> Result<Psa> {
        self.settle_full_buffer()?;
        let a = self.open_active()?;
        let ss = self.layout.sector_size;
        let fill = self.mb_fill;
        let psa = self.layout.psa(a.sb, a.next_page, fill);
        let to = self.layout.page_addr(a.sb, a.next_page);
        self.flash.copy_into(from, to);
        self.mb[fill as usize * ss..(fill as usize + 1) * ss].copy_from_slice(sector);
        data_oob::CRC
            .at(fill as usize * DATA_OOB_LEN)
            .put_u32(&mut self.mb_oob, crc);
        self.put_oob_la(fill, la);
        self.mb_fill += 1;
        Ok(psa)
    }

    /// Programs the merge buffer if it is full. A full buffer is held back
    /// until the next sector needs its room (here) or the flush, so that a
    /// flush whose epoch ends on a page boundary can still commit in that
    /// page's OOB (docs/FORMAT.md §4.9).
    #[inline]
    pub(super) fn settle_full_buffer(&mut self) -> Result<()> {
        if self.mb_fill == self.layout.spp {
            self.program_merge_buffer()?;
        }
        Ok(())
    }

    /// Notes the records of the data page just programmed from `mb_oob`
    /// for the CRC of an OOB commit of the current epoch.
    #[inline]
    fn note_run_page(&mut self) {
        if self.oob_commit && self.oob_run_pages < self.features.max_oob_epoch_pages() {
            format::push_page_records(&mut self.oob_run, self.layout.spp, &self.mb_oob);
        }
        self.oob_run_pages = self.oob_run_pages.saturating_add(1);
    }

    /// Pads the merge buffer with zeros and programs it (flush).
    pub(super) fn pad_merge_buffer(&mut self) -> Result<()> {
        if self.mb_fill == 0 {
            return Ok(());
        }
        let ss = self.layout.sector_size;
        self.mb[self.mb_fill as usize * ss..].fill(0);
        self.program_merge_buffer()
    }

    /// Programs the merge buffer at the active pointer. If the flash fails
    /// the program ([`FlashError::ProgramFailed`]), the active superblock
    /// is abandoned and retired ([`Self::abandon_active`]) and the page is
    /// programmed at the next active pointer instead, its sectors mapped
    /// there with new delta pairs (charged to the epoch's updates, so the
    /// delta budget holds; if the epoch has no room left, the error is
    /// returned). Only plain data pages move: a page carrying a commit
    /// record (`commit` true) cannot, since its place is what the last
    /// commit's link names.
    pub(super) fn program_merge_buffer(&mut self) -> Result<()> {
        self.program_merge_buffer_as(false)
    }

    pub(super) fn program_merge_buffer_as(&mut self, commit: bool) -> Result<()> {
        let Some(a) = self.active else {
            return Err(FtlError::Corrupt(
                "merge buffer holds data but no superblock is active (bug)".into(),
            ));
        };
        let addr = self.layout.page_addr(a.sb, a.next_page);
        if self.stream == Stream::Cold {
            self.cold_programmed = true;
        }
        let programmed = self.flash.program(addr, &self.mb, &self.mb_oob);
        #[cfg(debug_assertions)]
        if let Err(FlashError::ProgramFailed { .. }) = programmed {
            self.ghost
                .failed_programs
                .push(self.layout.psa(a.sb, a.next_page, 0));
        }
        match programmed {
            Ok(()) => {}
            Err(FlashError::ProgramFailed { block, .. })
                if !commit && self.mutant != Mutant::IgnoreProgramFailure =>
            {
                return self.reprogram_elsewhere(a, BlockId(block));
            }
            // The seeded bug: carry on as if the page had been programmed.
            Err(FlashError::ProgramFailed { .. }) if !commit => {}
            // A page carrying a commit record cannot move (the last
            // commit's link names its place, and the failed page reads as
            // torn, so the chain ends before it): its sectors move as a
            // plain page's, and the epoch commits by a full checkpoint
            // instead (docs/FORMAT.md §4.10).
            Err(FlashError::ProgramFailed { block, .. }) if self.delta.movable => {
                let ss = self.layout.sector_size;
                self.mb[self.mb_fill as usize * ss..].fill(0);
                let m = self.layout.spp as usize * format::DATA_OOB_LEN;
                self.mb_oob[m..m + format::INPAGE_MARKER_LEN].fill(0xFF);
                self.delta.broken = true;
                return self.reprogram_elsewhere(a, BlockId(block));
            }
            Err(e) => return Err(e.into()),
        }
        self.note_run_page();
        // Padding slots of the next page keep 0xFF, like unprogrammed OOB.
        self.mb_oob.fill(0xFF);
        self.active = Some(Active {
            sb: a.sb,
            next_page: a.next_page + 1,
        });
        self.mb_fill = 0;
        Ok(())
    }

    /// A program failed in erase block `block` of the active superblock
    /// `a` at its next page: retire the block on the device
    /// ([`Flash::mark_bad`]), abandon the superblock (its programmed pages
    /// keep their data until it is emptied, scftl/wear.rs), then program
    /// the merge buffer at a fresh active pointer and map its sectors there
    /// with new delta pairs (a later pair of a logical sector overrides an
    /// earlier one of the same epoch, in the digest and in recovery).
    fn reprogram_elsewhere(&mut self, a: Active, block: BlockId) -> Result<()> {
        let fill = self.mb_fill;
        let left = u64::from(self.config.write_bound).saturating_sub(self.updates + self.admitted);
        if left < u64::from(fill) {
            return Err(FtlError::Flash(FlashError::ProgramFailed {
                block: block.0,
                page: a.next_page,
            }));
        }
        let mut failed = block;
        let placed = loop {
            if let Err(e) = self.abandon_active(failed) {
                break Err(e);
            }
            let b = match self.open_active() {
                Ok(b) => b,
                Err(e) => break Err(e),
            };
            let addr = self.layout.page_addr(b.sb, b.next_page);
            match self.flash.program(addr, &self.mb, &self.mb_oob) {
                Ok(()) => break Ok(b),
                // Another failure: once more, elsewhere (each retires a
                // block; the sectors still map into `a`'s page).
                Err(FlashError::ProgramFailed { block, .. }) => {
                    failed = BlockId(block);
                    #[cfg(debug_assertions)]
                    self.ghost
                        .failed_programs
                        .push(self.layout.psa(b.sb, b.next_page, 0));
                }
                Err(e) => break Err(e.into()),
            }
        };
        let b = match placed {
            Ok(b) => b,
            Err(e) => {
                // Nowhere left to put the page (the device turns
                // read-only): its sectors still map into `a`'s page, so
                // the buffer answers their reads from `a`'s place, as
                // before the failure (the crash checker found them read
                // as the failed page's zeros).
                self.active = Some(a);
                return Err(e);
            }
        };
        self.stats.program_failures += 1;
        for slot in 0..fill {
            let old = self.layout.psa(a.sb, a.next_page, slot);
            let la = self.la_in_buffer(old, slot);
            if self.l2p[la] != old {
                // Only a sector still mapped to the failed page moves.
                continue;
            }
            let psa = self.layout.psa(b.sb, b.next_page, slot);
            let crc = data_oob::CRC
                .at(slot as usize * DATA_OOB_LEN)
                .get_u32(&self.mb_oob);
            self.remap(la, psa, crc);
            self.updates += 1;
            #[cfg(debug_assertions)]
            {
                self.ghost.replaced += 1;
            }
            self.delta.note_sector(la, psa, crc);
            self.delta.push(&mut self.flash, &self.layout, la, psa)?;
        }
        self.mb_oob.fill(0xFF);
        self.active = Some(Active {
            sb: b.sb,
            next_page: b.next_page + 1,
        });
        self.mb_fill = 0;
        Ok(())
    }

    /// The logical sector in slot `slot` of the merge buffer, placed at
    /// `psa`: its logical sector record, or the P2L on images without them.
    fn la_in_buffer(&self, psa: Psa, slot: u32) -> La {
        match &self.p2l {
            Some(p2l) => p2l[psa],
            None => {
                let at = format::data_la_offset(self.layout.spp, slot);
                La(u32::from_le_bytes(
                    self.mb_oob[at..at + format::DATA_LA_LEN]
                        .try_into()
                        .expect("a logical sector record is 4 bytes"),
                ))
            }
        }
    }

    /// Retires erase block `block` on the device and abandons the active
    /// superblock: it becomes used with what it holds and is emptied,
    /// oldest first, by the moves after each flush (scftl/wear.rs), then
    /// retired; the next sector opens another superblock.
    pub(super) fn abandon_active(&mut self, block: BlockId) -> Result<()> {
        if self.mutant != Mutant::ForgetBadBlockMark {
            self.flash.mark_bad(block)?;
        }
        if let Some(a) = self.active.take() {
            self.blocks.retire_active(a.sb);
            if !self.evacuate.contains(&a.sb) {
                self.evacuate.push(a.sb);
                self.bad_superblocks_changed_in_epoch();
            }
        }
        // The run of pages an OOB commit would cover is broken.
        self.oob_run_pages = format::MAX_OOB_EPOCH_PAGES.saturating_add(1);
        Ok(())
    }

    /// The active superblock with room for a sector: retires a full one to
    /// `used` and opens a free one, erasing an erasable one if none is free.
    fn open_active(&mut self) -> Result<Active> {
        if let Some(a) = self.active {
            if a.next_page < self.layout.pages_per_sb {
                return Ok(a);
            }
            self.blocks.retire_active(a.sb);
            if self.mutant == Mutant::ValidCountOffByOne {
                self.blocks.miscount_valid(a.sb);
            }
            self.active = None;
        }
        // Erasable blocks hold nothing the stable L2P points to, so erasing
        // one can be cut by a crash without harm — once every epoch since
        // the last sync is durable. After epoch barriers (ordered, not
        // synced) a crash may fall back to the state at the last sync or at
        // any barrier since, and such a state may still point into the
        // block, or the erase may destroy data an unsynced epoch's digest
        // covers. So any erase while epochs are unsynced syncs first. (A
        // relaxed rule that skipped the sync for blocks freed before the
        // last sync or activated since it lost flushed data under the crash
        // checker's barriers. The `erase-without-sync-after-barrier` mutant
        // drops the sync; healthy flash rarely exposes it, because the FIFO
        // queue's front was freed before the last sync, so the checker
        // catches it with bad superblocks: `Mutant::RANDOM_ONLY` says how.)
        // The erase hold's way out (`Scftl::erase_bound`): only held
        // superblocks are left, so the chain's consolidation page goes
        // first. If the region is broken and cannot take it, a held one is
        // erased after all (the code's recovery still survives it: it
        // takes the region's newest commit as proven by the chain's first
        // record), and the flush commits by a full checkpoint.
        if self.blocks.only_held_left(self.held_from()) {
            self.release_hold()?;
        }
        let held_from = if self.delta.broken {
            u64::MAX
        } else {
            self.held_from()
        };
        let sb = loop {
            let choice = self.wear_choice();
            let (layout, flash) = (&self.layout, &mut self.flash);
            let must_sync =
                self.unsynced_epochs > 0 && self.mutant != Mutant::EraseWithoutSyncAfterBarrier;
            let mut synced = false;
            let mut erasing = None;
            let proven = self.proven_below;
            let refuse_bad = self.mutant != Mutant::EraseMarkedBadBlock;
            // For the refinement oracle: the commits durable at the erase.
            #[cfg(debug_assertions)]
            let (commits, unsynced, erase_durable) = (
                self.commits,
                u64::from(self.unsynced_epochs),
                &mut self.ghost.erase_durable,
            );
            let next =
                self.blocks
                    .activate_next(choice, proven, held_from, &mut self.wear_stats, |sb| {
                        if must_sync {
                            flash.sync()?;
                            synced = true;
                        }
                        #[cfg(debug_assertions)]
                        {
                            erase_durable[sb.0 as usize] =
                                if synced { commits } else { commits - unsynced };
                        }
                        erasing = Some(sb);
                        layout.erase_sbs_checked(flash, sb, 1, refuse_bad)
                    });
            if synced {
                self.note_sync();
            }
            match next {
                Ok(next) => break next,
                // The erase failed: the block is bad now (the device says
                // so from here on); retire the superblock, take another.
                Err(FlashError::EraseFailed { .. }) if erasing.is_some() => {
                    self.retire_failed_erase(erasing.expect("checked"));
                }
                Err(e) => return Err(e.into()),
            }
        };
        let Some(sb) = sb else {
            let bad = self.lost_superblocks();
            if bad > 0 {
                // Superblocks lost within an epoch are beyond what its
                // constraints planned for: the flash is worn out.
                let why = format!(
                    "no free or erasable superblock left after {bad} superblocks went bad (the last within an epoch)"
                );
                return Err(self.read_only(why));
            }
            return Err(FtlError::NoSpace(format!(
                "no free or erasable superblock left ({} used, {} invalid); the configuration constraints should prevent this (bug)",
                self.blocks.used(),
                self.blocks.invalid_count()
            )));
        };
        // Nothing maps here (the block was erasable), so its valid bits are
        // clear already (`check_invariants` counts them per superblock);
        // stale P2L entries are reset.
        if let Some(p2l) = &mut self.p2l {
            p2l.fill(self.layout.sectors_of(sb), La::NONE);
        }
        let a = Active { sb, next_page: 0 };
        self.active = Some(a);
        Ok(a)
    }
}

impl<F: Flash> Scftl<F> {
    /// An erase of `sb` failed (it has left its queue): the block is bad
    /// now (the device says so from here on), so the superblock retires
    /// and the space constraints are fitted to the superblocks left.
    fn retire_failed_erase(&mut self, sb: super::layout::Sb) {
        self.blocks.retire(sb);
        self.stats.erase_failures += 1;
        self.bad_superblocks_changed_in_epoch();
    }

    /// The *erase ahead* (docs/FORMAT.md §4.3, "Detached syncs"): after a
    /// sync that left no epoch unsynced — a detached flush's or a sync
    /// behind barriers, recorded by `note_ticket_sync` — erases settled
    /// erasable superblocks into the free pool, up to what the next
    /// epochs can fill (see below), so that their writes open superblocks
    /// without an erase, and so without the sync an erase needs while an
    /// epoch is unsynced
    /// (`open_active`). The rule is `open_active`'s: no epoch unsynced,
    /// and the superblock settled (`Blocks::is_settled`). Nothing it does
    /// changes what a recovery finds: an erasable superblock holds nothing
    /// the stable L2P or any unsynced epoch needs, and recovery treats
    /// every unreferenced superblock as erasable, erased or not.
    ///
    /// How many: a sync behind returns while the epoch after the one it
    /// synced is being written, and the next sync behind starts only at
    /// that epoch's end, so the pool must last for the rest of this
    /// epoch and for the next one until its sync returns: two epochs of
    /// W sectors, plus one superblock per write stream (the partly filled
    /// active ones).
    pub(super) fn erase_ahead(&mut self) -> Result<()> {
        let early = self.mutant == Mutant::EraseAheadBeforeSync;
        if (self.unsynced_epochs > 0 && !early) || self.worn_out.is_some() {
            return Ok(());
        }
        let per_sb = u64::from(self.layout.spp) * u64::from(self.layout.pages_per_sb);
        let target = (2 * u64::from(self.config.write_bound)).div_ceil(per_sb.max(1))
            + u64::from(self.config.gc_streams.max(1));
        let refuse_bad = self.mutant != Mutant::EraseMarkedBadBlock;
        while (early || (self.blocks.free_count() as u64) < target) && self.worn_out.is_none() {
            let proven = if early { u64::MAX } else { self.erase_bound() };
            let choice = if early {
                self.blocks.newest_erasable()
            } else if self.wear.dynamic {
                wear::least_worn(self.blocks.settled_erasable(proven), |sb| {
                    self.blocks.wear(sb)
                })
            } else {
                None
            };
            let (layout, flash) = (&self.layout, &mut self.flash);
            let mut erasing = None;
            let erased = self.blocks.erase_ahead(choice, proven, |sb| {
                erasing = Some(sb);
                layout.erase_sbs_checked(flash, sb, 1, refuse_bad)
            });
            match erased {
                Ok(Some(_sb)) => {
                    self.stats.erased_ahead += 1;
                    // For the refinement oracle: the commits durable now
                    // (all of them, but for the mutant).
                    #[cfg(debug_assertions)]
                    {
                        self.ghost.erase_durable[_sb.0 as usize] =
                            self.commits - u64::from(self.unsynced_epochs);
                    }
                    if early {
                        break;
                    }
                }
                Ok(None) => break,
                Err(FlashError::EraseFailed { .. }) if erasing.is_some() => {
                    self.retire_failed_erase(erasing.expect("checked"));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }
}

/// Checks sectors read from flash — logical sectors `la`, `la + 1`, ...
/// stored at `psa`, `psa + 1`, ... from slot `slot` of `page` on — against
/// the CRCs in `oob`, the page's OOB records up to the run's last slot.
fn verify_data_crcs(
    la: La,
    psa: Psa,
    page: flash::PageAddr,
    slot: u32,
    data: &[u8],
    oob: &[u8],
    ss: usize,
) -> Result<()> {
    verify_sectors(la, psa, page, slot, data, ss, |k| {
        data_oob::CRC
            .at((slot as usize + k) * DATA_OOB_LEN)
            .get_u32(oob)
    })
}

/// [`verify_data_crcs`] with the stored checksum of the run's `k`-th
/// sector given by `stored(k)`.
fn verify_sectors(
    la: La,
    psa: Psa,
    page: flash::PageAddr,
    slot: u32,
    data: &[u8],
    ss: usize,
    stored: impl Fn(usize) -> u32,
) -> Result<()> {
    for (k, sector) in data.chunks_exact(ss).enumerate() {
        let s = slot + k as u32;
        let stored = stored(k);
        let la = La(la.0 + k as u32);
        let computed = data_crc(la, sector);
        if stored != computed {
            return Err(FtlError::DamagedSector {
                la: u64::from(la.0),
                detail: format!(
                    "checksum mismatch at physical sector {} ({page}, slot {s}): stored {stored:#010x}, computed {computed:#010x}",
                    psa.0 + k as u32
                ),
            });
        }
    }
    Ok(())
}

/// One flash read of a read request ([`Scftl::plan_read`]): `sectors`
/// sectors of the request from its sector `first` on (logical sector `la`
/// on), stored at `psa`, `psa + 1`, ... from slot `slot` of `page`.
struct FlashRun {
    first: usize,
    sectors: usize,
    la: La,
    psa: Psa,
    page: flash::PageAddr,
    slot: u32,
}
