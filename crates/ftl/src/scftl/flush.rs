//! Flush (delta checkpoint) and full checkpoint.
//!
//! Flush: run any GC the epoch still owes (so that at the end either fewer
//! than U superblocks are used or K relocations ran — what the space
//! argument of the constraints needs), pad and program the merge buffer,
//! sync (data and tentative delta pages durable), program the committed
//! delta page, sync. That second sync is the commit point. Then the
//! epoch's invalid superblocks become erasable, and if the delta region
//! cannot hold another whole epoch a full checkpoint compacts it.
//!
//! Full checkpoint (shadow): write the L2P into the *other* slot with the
//! next generation and commit it; only then erase the old slot and the
//! delta region. A crash at any step leaves one committed checkpoint whose
//! generation's delta pages (if any) yield the same L2P.

use flash::Flash;

use crate::device::Result;
use crate::mutant::Mutant;

use super::checkpoint;
use super::format;
use super::Scftl;

impl<F: Flash> Scftl<F> {
    pub(super) fn flush_impl(&mut self) -> Result<()> {
        self.stats.flushes += 1;
        let dirty = self.updates > 0
            || self.gc_count > 0
            || self.mb_fill > 0
            || self.delta.npairs > 0
            || self.delta.epoch_pages > 0;
        if !dirty {
            return Ok(());
        }
        self.gc_if_needed()?;
        self.pad_merge_buffer()?;
        if self.mutant != Mutant::SkipSyncBeforeCommit {
            self.flash.sync()?;
        }
        self.delta
            .program(&mut self.flash, &self.layout, format::KIND_COMMITTED)?;
        self.flash.sync()?;
        // Committed: the volatile L2P is the new stable L2P.
        self.blocks.end_epoch();
        self.updates = 0;
        self.gc_count = 0;
        self.delta.next_epoch();
        self.ghost_commit();
        if u64::from(self.delta.remaining_pages()) < self.derived.epoch_pages_max {
            self.full_checkpoint()?;
        }
        self.validate_after("flush")
    }

    /// Writes a full checkpoint of the (stable = volatile) L2P and clears
    /// the delta region. Only called right after a commit or in recovery.
    pub(super) fn full_checkpoint(&mut self) -> Result<()> {
        let old = self.live_slot;
        let target = if self.mutant == Mutant::FullCheckpointOverLiveSlot {
            old
        } else {
            1 - old
        };
        let gen = self.delta.gen + 1;
        let pages = checkpoint::write(
            &mut self.flash,
            &self.layout,
            target,
            gen,
            self.delta.epoch,
            self.l2p.as_slice(),
            &mut self.scratch,
        )?;
        // The new checkpoint is committed; the old one and the deltas on
        // top of it are now redundant.
        if target != old {
            let first = self.layout.slot_first[old];
            self.layout
                .erase_sbs(&mut self.flash, first, self.layout.slot_sbs)?;
        }
        let (first, n) = (self.layout.delta_first, self.layout.delta_sbs);
        self.layout.erase_sbs(&mut self.flash, first, n)?;
        self.flash.sync()?;
        self.live_slot = target;
        self.delta.gen = gen;
        self.delta.wp = 0;
        self.stats.full_checkpoints += 1;
        self.stats.checkpoint_pages_written += pages;
        Ok(())
    }
}
