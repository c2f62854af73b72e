//! Two-phase garbage collection (paper §3.4).
//!
//! Relocation (gc_rl): when at least U superblocks are used and fewer than K
//! relocations ran in this epoch, the used superblock with the fewest valid
//! sectors is picked (greedy, so it holds at most N = floor(L/U) valid
//! sectors), its valid sectors are appended like writes (with delta pairs)
//! and it becomes *invalid*. Erasure (gc_es) waits: the stable L2P may still
//! point into the victim until the next flush commits, so flush turns
//! invalid into erasable and the victim is erased only when a block is
//! needed after that.
//!
//! A damaged sector (one failing its data checksum) is relocated like any
//! other, with its old CRC copied unchecked, so it keeps failing its reads
//! at the new place: GC neither stops on damage (which would leave the
//! device unable to write) nor launders it into a valid-looking sector.
//!
//! Invariant: after `gc_one` the victim has no valid sector.

use flash::Flash;

use crate::device::Result;
use crate::mutant::Mutant;

use super::format::{data_oob, DATA_OOB_LEN};
use super::layout::{La, Psa, Sb};
use super::Scftl;

impl<F: Flash> Scftl<F> {
    /// True when gc_rl is enabled and within the epoch's budget.
    #[inline]
    pub(super) fn gc_needed(&self) -> bool {
        self.gc_count < self.config.gc_bound && self.blocks.used() >= self.config.gc_threshold
    }

    /// Runs gc_rl until it is no longer needed or the budget is spent.
    #[inline]
    pub(super) fn gc_if_needed(&mut self) -> Result<()> {
        while self.gc_needed() {
            self.gc_one()?;
        }
        Ok(())
    }

    #[inline]
    fn is_valid(&self, psa: Psa) -> bool {
        let la = self.p2l[psa];
        la != La::NONE && self.l2p[la] == psa
    }

    /// One relocation: greedy victim, move its valid sectors, mark invalid.
    fn gc_one(&mut self) -> Result<()> {
        let Some(victim) = self.blocks.pick_victim() else {
            return Ok(());
        };
        self.blocks.mark_victim(victim);
        self.gc_count += 1;
        self.relocate(victim)?;
        self.stats.gc_blocks_reclaimed += 1;
        if self.mutant == Mutant::EraseVictimBeforeFlush {
            // The seeded bug: erase at once, although the stable L2P may
            // still point into the victim.
            let (layout, flash) = (&self.layout, &mut self.flash);
            self.blocks
                .reclaim_victim_early(victim, |sb| layout.erase_sbs(flash, sb, 1))?;
        }
        Ok(())
    }

    /// Moves every valid sector of `victim` to the active pointer. Each
    /// sector is read straight into its merge-buffer slot (no staging
    /// copy), which matters: copies dominate the write path's CPU cost.
    ///
    /// Pages are visited one stripe (one page per die) at a time, and each
    /// stripe's pages holding valid sectors are prefetched first, so the
    /// dies sense them in parallel instead of one after another.
    fn relocate(&mut self, victim: Sb) -> Result<()> {
        let spp = self.layout.spp;
        let dies = self.layout.geometry.dies();
        let mut stripe = Vec::with_capacity(dies as usize);
        for j in 0..self.layout.pages_per_sb {
            if j % dies == 0 {
                stripe.clear();
                for k in j..(j + dies).min(self.layout.pages_per_sb) {
                    if (0..spp).any(|s| self.is_valid(self.layout.psa(victim, k, s))) {
                        stripe.push(self.layout.page_addr(victim, k));
                    }
                }
                self.flash.prefetch(&stripe)?;
            }
            let page = self.layout.page_addr(victim, j);
            let mut oob_read = false;
            for s in 0..spp {
                let old = self.layout.psa(victim, j, s);
                if !self.is_valid(old) {
                    continue;
                }
                if !oob_read {
                    // The page's data-sector CRCs travel with the sectors.
                    self.flash.read_oob(page, &mut self.oob_scratch)?;
                    oob_read = true;
                }
                let crc = data_oob::CRC
                    .at(s as usize * DATA_OOB_LEN)
                    .get_u32(&self.oob_scratch);
                let la = self.p2l[old];
                let psa = self.append_from_flash(page, s, crc)?;
                self.remap(la, psa);
                self.delta.note_sector(la, psa, crc);
                self.delta.push(&mut self.flash, &self.layout, la, psa)?;
                self.stats.gc_sectors_relocated += 1;
            }
        }
        Ok(())
    }
}
