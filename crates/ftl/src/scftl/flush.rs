//! Flush (delta checkpoint) and full checkpoint.
//!
//! Flush: run any GC the epoch still owes (so that at the end either fewer
//! than U superblocks are used or K relocations ran — what the space
//! argument of the constraints needs), pad and program the merge buffer
//! (both streams' with hot/cold separation, `streams.rs`),
//! program the committed delta page carrying the epoch digest, then — for a
//! durable flush — sync once. That sync is the commit point: data, tentative
//! pages and the committed page become durable together, and recovery tells
//! a committed page whose epoch did not fully reach the media by its digest
//! (docs/FORMAT.md §4.3). Then the epoch's invalid superblocks become
//! erasable, and if the delta region cannot hold another whole epoch a full
//! checkpoint compacts it.
//!
//! In-page and OOB commits prove only host-stream pages: an epoch whose
//! cold stream programmed a page commits in the delta region.
//!
//! In-page commit (docs/FORMAT.md §4.8): when the epoch's only data page
//! is the padded merge buffer at the position the last commit linked to,
//! the commit record goes into that page's last (padding) sector slot
//! instead of a committed delta page, so the flush programs one page and
//! syncs once. Everything before that page is made durable first (it
//! usually already is: the previous durable flush synced), because a
//! valid record proves every earlier epoch durable.
//!
//! OOB commit (docs/FORMAT.md §4.9): when the epoch's data pages run from
//! the link to the merge buffer's page (a full buffer is held back for
//! this) and its pairs are exactly their sectors, the merge buffer's OOB
//! gets a marker and a CRC over the records of all those pages instead,
//! and recovery rebuilds the pairs from the pages' logical sector records.
//!
//! An *ordered* flush (an epoch barrier: the epoch is full and the client
//! did not ask for durability) writes the same pages without the sync, as
//! kind [`format::KIND_ORDERED`]. Order is all it needs: a host power cut
//! then keeps every durable flush and a prefix of the ordered epochs after
//! it. Two rules keep that true: no superblock is erased while an ordered
//! epoch is unsynced (`open_active` syncs first, since a state a crash may
//! return to can still point into it), and at most
//! [`MAX_UNSYNCED_EPOCHS`] epochs stay unsynced, which bounds what recovery
//! re-reads.
//!
//! Full checkpoint (shadow): write the L2P into the *other* slot with the
//! next generation and commit it; only then erase the old slot and the
//! delta region. A crash at any step leaves one committed checkpoint whose
//! generation's delta pages (if any) yield the same L2P.

use flash::Flash;

use crate::device::{FlushStep, FlushTicket, FtlError, Result};
use crate::mutant::Mutant;

use super::checkpoint;
use super::format;
use super::layout::{Psa, Sb};
use super::Scftl;

/// An ordered flush syncs anyway (and is then durable) when this many
/// epochs before it are unsynced, so recovery re-reads at most this many
/// epochs' data (plus the last one).
pub(crate) const MAX_UNSYNCED_EPOCHS: u32 = 4;

/// A flush whose epoch is programmed ([`Scftl::flush_begin`]) and whose
/// commit waits for [`Scftl::flush_end`]: the sync it owes (if any), then
/// the bookkeeping of a committed epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PendingCommit {
    digest: u32,
    /// The flush is durable: its sync is the commit point.
    sync: bool,
}

impl PendingCommit {
    /// Whether the flush still owes its sync.
    pub(crate) fn owes_sync(&self) -> bool {
        self.sync
    }
}

/// Detached flushes (`BlockDevice::begin_flush`, `finish_flush`): the
/// write pipeline of `ftl::SharedDevice`.
///
/// A detached flush commits its epoch exactly as an epoch barrier does
/// (the pages, the committed page, the bookkeeping: its invalid
/// superblocks become erasable, the next epoch starts) but as kind 2,
/// and hands the sync to the caller as a ticket, to be waited on without
/// the device. Writes that arrive meanwhile belong to the next epoch.
/// Everything that makes barriers safe makes this safe: no superblock is
/// erased while an epoch is unsynced (`open_active` syncs first), and
/// recovery verifies every epoch after the last proven one by its digest
/// (kinds 2 and 5 alike). When the ticket's sync returns,
/// [`Scftl::note_ticket_sync`] records what it proved: the epochs ended
/// before it started, and the after-sync flags programmed before it. It
/// sets the after-sync flag for the next region page only when no epoch
/// ended since the sync started (that page would otherwise claim the
/// later, unsynced epochs proven). A detached flush never commits in-page
/// or in the OOB: those commits' pairs reach the region in a consolidation
/// page that recovery takes as proven, and the next epoch's writes may
/// program it before the sync returns.
impl<F: Flash> Scftl<F> {
    /// [`BlockDevice::begin_flush`](crate::BlockDevice::begin_flush).
    pub(super) fn flush_detached(&mut self) -> Result<FlushStep> {
        let owes = match self.flush_begin(true, true)? {
            Some(p) => {
                let owes = p.owes_sync();
                // A commit that leaves the region short ends in a full
                // checkpoint, which syncs: the flush syncs first, as a
                // durable one (one SYNC, then the checkpoint), rather than
                // leave its commit to the checkpoint's SYNC (the proofs'
                // forced barrier; a detached flush is otherwise a barrier).
                self.flush_end(PendingCommit {
                    sync: owes && self.region_short(),
                    ..p
                })?;
                owes
            }
            // Nothing to commit (perhaps earlier epochs to make durable),
            // or committed by a synced full checkpoint.
            None => true,
        };
        if !owes || self.unsynced_epochs == 0 {
            return Ok(FlushStep::Done);
        }
        match self.start_ticket() {
            None => {
                self.sync_flash()?;
                Ok(FlushStep::Done)
            }
            Some(t) => Ok(FlushStep::Ticket(t?)),
        }
    }

    /// A sync started without the device, with what it will prove: the
    /// epochs ended so far and the after-sync flags programmed so far
    /// ([`Scftl::note_ticket_sync`]). `None`: the flash cannot.
    fn start_ticket(&mut self) -> Option<Result<FlushTicket>> {
        let (epochs_ended, flagged_epoch) = (self.epochs_ended, self.delta.flagged_epoch);
        Some(
            self.flash
                .start_sync()?
                .map_err(Into::into)
                .map(|sync| FlushTicket {
                    sync,
                    epochs_ended,
                    flagged_epoch,
                }),
        )
    }

    /// [`BlockDevice::begin_sync_behind`](crate::BlockDevice::begin_sync_behind):
    /// a ticket for the epochs ended so far, when one is unsynced. Every
    /// page of an ended epoch is programmed (a barrier programs its merge
    /// buffer and region page before it returns), so a sync that starts
    /// now makes them durable; [`Scftl::note_ticket_sync`] records it as
    /// for a detached flush. Nothing is committed or ended here.
    pub(super) fn sync_behind_ticket(&mut self) -> Result<Option<FlushTicket>> {
        if self.unsynced_epochs == 0 {
            return Ok(None);
        }
        if self.mutant == Mutant::EraseAheadBeforeSync {
            self.erase_ahead()?;
        }
        self.start_ticket().transpose()
    }

    /// A flush ticket's sync returned: what it made durable is recorded
    /// (see the impl block's documentation).
    pub(super) fn note_ticket_sync(&mut self, t: &FlushTicket) {
        let since = self.epochs_ended - t.epochs_ended;
        self.unsynced_epochs = self
            .unsynced_epochs
            .min(u32::try_from(since).unwrap_or(u32::MAX));
        if since == 0 || self.mutant == Mutant::TicketProvesLaterEpochs {
            self.delta.after_sync = true;
        }
        self.proven_below = self.proven_below.max(t.flagged_epoch);
    }
}

impl<F: Flash> Scftl<F> {
    /// Ends the epoch: durably (`durable`, a client's flush) or only in
    /// order (an epoch barrier).
    pub(super) fn flush_impl(&mut self, durable: bool) -> Result<()> {
        match self.flush_begin(durable, false)? {
            None => Ok(()),
            Some(p) => self.flush_end(p),
        }
    }

    /// The first part of [`Scftl::flush_impl`]: everything up to the sync
    /// that commits the epoch. `None`: the flush is over (nothing to commit,
    /// or it committed by a full checkpoint); otherwise the caller finishes
    /// it with [`Scftl::flush_end`] before anything else changes the device
    /// (a detached flush, [`Scftl::flush_detached`], ends it at once
    /// without the sync and leaves that to a ticket). `detached`: such a
    /// flush, which neither syncs for earlier unsynced epochs nor commits
    /// in-page or in the OOB.
    pub(super) fn flush_begin(
        &mut self,
        durable: bool,
        detached: bool,
    ) -> Result<Option<PendingCommit>> {
        // Refused exactly when writes are (a flush must not make durable
        // what a read-only device holds in RAM).
        self.check_not_worn_out()?;
        self.stats.flushes += 1;
        let dirty = self.updates > 0
            || self.gc_count > 0
            || self.mb_fill > 0
            || self.parked.mb_fill > 0
            || self.delta.npairs > 0
            || self.delta.epoch_pages > 0;
        if !dirty {
            if durable && self.unsynced_epochs > 0 && !detached {
                // Nothing new, but ordered epochs wait for durability.
                self.sync_flash()?;
            }
            return Ok(None);
        }
        if self.mutant == Mutant::VictimsErasableBeforeCommit {
            self.blocks.end_epoch(self.delta.epoch);
        }
        self.gc_if_needed()?;
        // The cold stream's relocated sectors reach the flash before the
        // commit, like the host stream's (a program failure there moves
        // them with new pairs, so this comes before the digest).
        self.pad_cold_buffer()?;
        if self.delta.broken {
            return self.commit_by_checkpoint().map(|()| None);
        }
        let mut durable = durable || self.unsynced_epochs + 1 >= MAX_UNSYNCED_EPOCHS;
        let l2p = &self.l2p;
        let mut digest = self.delta.digest(|la, pa| l2p[la] == pa);
        // A detached flush commits in the region: its in-page or OOB
        // record's pairs would go into the next consolidation page, which
        // recovery takes as proven, and that page may be programmed (by a
        // write or barrier of the next epoch) before this flush's sync
        // returns. The mutant lets it commit inline when nothing earlier
        // is unsynced (the concurrent crash test found that bug).
        let inline = durable
            && (!detached
                || (self.mutant == Mutant::DetachedFlushCommitsInline
                    && self.unsynced_epochs == 0));
        if !(inline && (self.commit_in_page(digest)? || self.commit_in_oob()?)) {
            let failures = self.stats.program_failures;
            self.pad_merge_buffer()?;
            if self.stats.program_failures != failures {
                // The padded page went elsewhere with new pairs.
                let l2p = &self.l2p;
                digest = self.delta.digest(|la, pa| l2p[la] == pa);
            }
            // A barrier whose commit would leave the region too short for
            // the next epoch ends in `after_commit`'s full checkpoint, which
            // makes its epochs durable anyway: it commits durably, as the
            // barrier at MAX_UNSYNCED_EPOCHS does (one SYNC, then the
            // checkpoint), not as an ordered commit the checkpoint then
            // syncs — the proofs' forced barrier (proofs/README.md, "What
            // is proven about which code path": epoch barriers).
            durable = durable || self.commit_leaves_region_short();
            let kind = if durable {
                format::KIND_COMMITTED
            } else {
                format::KIND_ORDERED
            };
            let link = self.next_link();
            self.delta
                .program(&mut self.flash, &self.layout, kind, digest, Some(link))?;
            if self.delta.broken {
                // The committed page (or the consolidation page before it)
                // failed: it reads as torn, and a checkpoint commits.
                return self.commit_by_checkpoint().map(|()| None);
            }
            self.chain_link = link;
        }
        // The next epoch's pages start at the link just written.
        self.oob_run.clear();
        self.oob_run_pages = 0;
        self.unsynced_epochs += 1;
        self.epochs_ended += 1;
        Ok(Some(PendingCommit {
            digest,
            sync: durable && self.mutant != Mutant::SkipSyncBeforeCommit,
        }))
    }

    /// The second part of [`Scftl::flush_impl`]: the sync `p` owes, then
    /// the epoch is committed.
    pub(super) fn flush_end(&mut self, p: PendingCommit) -> Result<()> {
        let digest = p.digest;
        if p.sync {
            self.sync_flash()?;
        }
        // Committed: the volatile L2P is the new stable L2P.
        self.blocks.end_epoch(self.delta.epoch);
        self.updates = 0;
        self.gc_count = 0;
        self.cold_programmed = false;
        self.delta.next_epoch(digest);
        self.ghost_commit();
        // The epoch is committed: a media failure from here on that SCFTL
        // cannot work around (the full checkpoint with nowhere to move,
        // a static move, too little space left by bad superblocks) leaves
        // the device read-only, but the flush did what it promised, so it
        // succeeds.
        let r = self.after_commit();
        self.worn_out_by(r).map(|_| ())
    }

    /// Commits the epoch with a full checkpoint instead of a delta page:
    /// the delta region took a failed program (`delta.rs`), so the
    /// checkpoint moves it (and its target slot) off the bad block
    /// ([`Scftl::full_checkpoint_rotating`]). The checkpoint's commit
    /// record is the epoch's commit point, and it is durable: data pages
    /// and everything before are synced under it. If no checkpoint can be
    /// written, the flush fails and the device turns read-only; a crash
    /// then recovers the last committed epoch, the failed page reading as
    /// a torn one.
    fn commit_by_checkpoint(&mut self) -> Result<()> {
        self.pad_merge_buffer()?;
        let epoch = self.delta.epoch;
        self.oob_run.clear();
        self.oob_run_pages = 0;
        // The checkpoint records the next epoch's id (as after a commit).
        self.delta.next_epoch(0);
        self.epochs_ended += 1;
        let stale = self.delta.npairs;
        if let Err(e) = self.full_checkpoint_rotating(true) {
            return Err(match e {
                FtlError::Flash(e) if e.is_media_failure() => self.read_only(e.to_string()),
                FtlError::WornOut(why) => self.read_only(why),
                e => e,
            });
        }
        if self.mutant == Mutant::BrokenRegionKeepsPairs {
            self.delta.npairs = stale;
        }
        self.blocks.end_epoch(epoch);
        self.updates = 0;
        self.gc_count = 0;
        self.cold_programmed = false;
        self.ghost_commit();
        let r = self.after_commit();
        self.worn_out_by(r).map(|_| ())
    }

    /// An in-page or OOB commit syncs first when more epochs than this are
    /// unsynced: 0 (its record proves every earlier epoch durable), except
    /// in the mutants that skip or relax that sync.
    fn inpage_sync_threshold(&self) -> u32 {
        match self.mutant {
            Mutant::InpageCommitBeforeSync => u32::MAX,
            Mutant::InpageSyncPastOneEpoch => 1,
            _ => 0,
        }
    }

    /// The delta region pages a commit must leave for the next epoch, or
    /// a full checkpoint follows it ([`Scftl::after_commit`]): the next
    /// epoch's pages, and a consolidation page it may write besides.
    fn region_reserve(&self) -> u64 {
        if self.mutant == Mutant::RegionRoomOffByOne {
            self.derived.epoch_pages_max
        } else {
            self.derived.epoch_pages_max + 1
        }
    }

    /// Whether the commit page about to be programmed (after the
    /// consolidation page owed, if any) leaves the region fewer pages than
    /// [`Scftl::region_reserve`], so that a full checkpoint follows the
    /// commit. Called with the epoch's tentative pages programmed.
    fn commit_leaves_region_short(&self) -> bool {
        let pages = 1 + u64::from(!self.delta.backlog.is_empty());
        u64::from(self.delta.remaining_pages()) < pages + self.region_reserve()
    }

    /// Whether the region has fewer pages left than
    /// [`Scftl::region_reserve`]: a commit then ends in a full checkpoint.
    fn region_short(&self) -> bool {
        u64::from(self.delta.remaining_pages()) < self.region_reserve()
    }

    /// What a flush does once its epoch is committed.
    fn after_commit(&mut self) -> Result<()> {
        if self.region_short() {
            // Every commit that ends here synced first (`flush_begin` made
            // it durable): a checkpoint after an unsynced commit is a step
            // the proofs' model does not have.
            debug_assert!(
                self.unsynced_epochs == 0 || self.mutant != Mutant::None,
                "a full checkpoint after an unsynced commit ({} epochs unsynced)",
                self.unsynced_epochs
            );
            self.full_checkpoint_rotating(true)?;
        }
        self.validate_after("flush")?;
        // Static wear leveling starts the next epoch (scftl/wear.rs).
        self.wear_level_step()
    }

    /// Where the next epoch's first data page goes (the link of a commit,
    /// docs/FORMAT.md §4.8): the active superblock's next page, or
    /// `UNMAPPED` when there is none (no active superblock, or it is full,
    /// so the next data page opens another one).
    fn next_link(&self) -> Psa {
        match self.active {
            Some(a) if a.next_page < self.layout.pages_per_sb => {
                self.layout.psa(a.sb, a.next_page, 0)
            }
            _ => Psa::UNMAPPED,
        }
    }

    /// Commits the epoch in the last sector slot of the merge buffer's page
    /// (docs/FORMAT.md §4.8), if it can: the in-page format is enabled, the
    /// page is the only data page the epoch programs and sits where the
    /// last commit's link points, it has a free slot, and the record holds
    /// the epoch's pairs. Then programs that page — after a sync if
    /// anything before it is not durable yet, since the record proves every
    /// earlier epoch durable — and returns `true`; otherwise changes
    /// nothing and returns `false`.
    fn commit_in_page(&mut self, digest: u32) -> Result<bool> {
        let spp = self.layout.spp;
        let Some(a) = self.active else {
            return Ok(false);
        };
        if !self.inpage
            || self.delta.broken
            || self.cold_programmed
            || self.mb_fill == 0
            || self.mb_fill >= spp
            || a.next_page >= self.layout.pages_per_sb
            || self.layout.psa(a.sb, a.next_page, 0) != self.chain_link
            || !self.delta.inpage_fits(
                self.layout.sector_size,
                self.mutant == Mutant::ChainCommitWithTentativePage,
            )
        {
            return Ok(false);
        }
        if self.unsynced_epochs > self.inpage_sync_threshold() {
            self.sync_flash()?;
        }
        self.ghost_chain_commit(false, self.layout.psa(a.sb, a.next_page, 0));
        let ss = self.layout.sector_size;
        let fill = self.mb_fill as usize;
        self.mb[fill * ss..].fill(0);
        let oob_records = if self.mutant == Mutant::InpageCrcOmitsOob {
            &[][..]
        } else {
            &self.mb_oob[..fill * format::DATA_OOB_LEN]
        };
        let data_crc = format::inpage_data_crc(&self.mb[..fill * ss], oob_records);
        let link = if a.next_page + 1 < self.layout.pages_per_sb {
            self.layout.psa(a.sb, a.next_page + 1, 0)
        } else {
            Psa::UNMAPPED
        };
        let record = &mut self.mb[(spp as usize - 1) * ss..];
        let record_crc = self
            .delta
            .seal_inpage(record, link, fill as u32, digest, data_crc);
        self.put_marker(&format::INPAGE_MAGIC, record_crc);
        self.delta.backlog_sbs.push(a.sb);
        self.program_merge_buffer_as(true)?;
        if self.delta.broken {
            // The page failed and moved: a full checkpoint commits.
            return Ok(false);
        }
        self.note_chain_commit();
        self.chain_link = link;
        self.stats.data_page_commits += 1;
        Ok(true)
    }

    /// Commits the epoch in the OOB of its last data page, the merge
    /// buffer's (docs/FORMAT.md §4.9), if it can: the format allows it, the
    /// epoch's data pages run from the last commit's link to that page in
    /// one superblock (at most `Features::max_oob_epoch_pages` of them), its
    /// pairs are exactly their sectors in order (so recovery can rebuild
    /// them from the pages' logical sector records: no trim, no tentative
    /// delta page), and the backlog can take them. Then writes the marker
    /// and the record's CRC over the pages' records into the buffer's OOB,
    /// programs it — after a sync if an earlier epoch is not durable yet,
    /// since the record proves them durable — and returns `true`; otherwise
    /// changes nothing and returns `false`.
    /// (The record carries no digest: recovery recomputes it from the
    /// pages' CRC records, exactly as [`super::delta::DeltaLog::digest`].)
    fn commit_in_oob(&mut self) -> Result<bool> {
        let (spp, link) = (self.layout.spp, self.chain_link);
        let Some(a) = self.active else {
            return Ok(false);
        };
        if !self.oob_commit
            || self.delta.broken
            || self.cold_programmed
            || self.mb_fill == 0
            || !link.is_mapped()
            || a.next_page >= self.layout.pages_per_sb
            || self.layout.sb_of(link) != a.sb
            || !self
                .delta
                .oob_fits(self.mutant == Mutant::ChainCommitWithTentativePage)
        {
            return Ok(false);
        }
        let first = (link.0 - self.layout.psa(a.sb, 0, 0).0) / spp;
        if first > a.next_page {
            return Ok(false);
        }
        let pages = a.next_page - first + 1;
        let n = self.delta.npairs;
        if pages > self.features.max_oob_epoch_pages()
            || self.oob_run_pages != pages - 1
            || n != (pages - 1) * spp + self.mb_fill
            || (0..n).any(|k| format::get_pair(&self.delta.buf, k as usize).1 != Psa(link.0 + k))
        {
            return Ok(false);
        }
        if self.unsynced_epochs > self.inpage_sync_threshold() {
            self.sync_flash()?;
        }
        self.ghost_chain_commit(true, self.layout.psa(a.sb, a.next_page, 0));
        let ss = self.layout.sector_size;
        self.mb[self.mb_fill as usize * ss..].fill(0);
        if self.mutant == Mutant::OobCommitPastMissingPage {
            self.oob_run.clear();
        }
        format::push_page_records(&mut self.oob_run, spp, &self.mb_oob);
        let crc = format::oob_commit_crc(self.delta.gen, self.delta.epoch, &self.oob_run, spp);
        self.put_marker(&format::OOB_COMMIT_MAGIC, crc);
        self.delta.move_to_backlog();
        self.delta.backlog_sbs.push(a.sb);
        self.program_merge_buffer_as(true)?;
        if self.delta.broken {
            // The page failed and moved: a full checkpoint commits.
            return Ok(false);
        }
        self.note_chain_commit();
        self.chain_link = if a.next_page + 1 < self.layout.pages_per_sb {
            self.layout.psa(a.sb, a.next_page + 1, 0)
        } else {
            Psa::UNMAPPED
        };
        self.stats.data_page_commits += 1;
        self.stats.oob_page_commits += 1;
        Ok(true)
    }

    /// An in-page or OOB commit of the current epoch was programmed, after
    /// every earlier epoch was durable: recovery takes such a record as
    /// proof of every epoch before it (`recovery::apply_chain`), so once
    /// it is durable (the next sync) they are proven.
    fn note_chain_commit(&mut self) {
        self.delta.flagged_epoch = self.delta.flagged_epoch.max(self.delta.epoch);
        #[cfg(debug_assertions)]
        {
            self.ghost.chain_commits += 1;
        }
    }

    /// Writes the commit marker (docs/FORMAT.md §4.7: `magic` of an in-page
    /// record or an OOB commit, and its CRC) into the merge buffer's OOB.
    fn put_marker(&mut self, magic: &[u8; 4], crc: u32) {
        let m = self.layout.spp as usize * format::DATA_OOB_LEN;
        format::inpage_marker::MAGIC
            .at(m)
            .put_bytes(&mut self.mb_oob, magic);
        format::inpage_marker::RECORD_CRC
            .at(m)
            .put_u32(&mut self.mb_oob, crc);
    }

    /// Syncs the flash: everything written so far is durable, which the
    /// next delta page records ([`format::KIND_AFTER_SYNC`]).
    pub(super) fn sync_flash(&mut self) -> Result<()> {
        self.flash.sync()?;
        self.note_sync();
        Ok(())
    }

    /// After a sync: the next delta page records it, and every page
    /// programmed with the after-sync flag is durable now, proving the
    /// epochs before it.
    pub(super) fn note_sync(&mut self) {
        self.delta.after_sync = true;
        self.unsynced_epochs = 0;
        self.proven_below = self.proven_below.max(self.delta.flagged_epoch);
    }

    /// [`Scftl::full_checkpoint_rotating`] without rotation (recovery).
    pub(super) fn full_checkpoint(&mut self) -> Result<()> {
        self.full_checkpoint_rotating(false)
    }

    /// Writes a full checkpoint of the (stable = volatile) L2P and clears
    /// the delta region. Only called right after a commit, in recovery, or
    /// as the commit of an epoch whose delta region broke
    /// ([`Scftl::commit_by_checkpoint`]). With `rotate` (run time, not
    /// recovery) it may move the target slot and the delta region onto
    /// less-worn superblocks (`wear.rs`).
    ///
    /// Media failures (docs/FORMAT.md §4.10): on an image whose regions
    /// can move, a member of the target slot or of the delta region with a
    /// bad erase block is replaced by a free superblock
    /// ([`Scftl::repair_map`]), and a program or erase the flash fails
    /// before the commit record is durable marks its block bad and starts
    /// the checkpoint again under a repaired map (the old checkpoint and
    /// region are untouched until the commit). An erase of the region that
    /// fails after the commit breaks the new region, so the next flush
    /// moves it. `FtlError::WornOut` when no superblock is left to move to.
    pub(super) fn full_checkpoint_rotating(&mut self, rotate: bool) -> Result<()> {
        // Each failed attempt retires at least one block of the map it
        // tried; the cap only guards against a flash that fails every
        // command.
        let mut attempts = 0;
        loop {
            match self.checkpoint_attempt(rotate) {
                Err(FtlError::Flash(e))
                    if e.is_media_failure() && self.delta.movable && attempts < 16 =>
                {
                    attempts += 1;
                    if let flash::FlashError::ProgramFailed { block, .. } = e {
                        self.flash.mark_bad(flash::BlockId(block))?;
                        self.stats.meta_program_failures += 1;
                    } else {
                        self.stats.erase_failures += 1;
                    }
                    self.retire_bad_candidates();
                }
                r => return r,
            }
        }
    }

    /// One attempt of [`Scftl::full_checkpoint_rotating`].
    fn checkpoint_attempt(&mut self, rotate: bool) -> Result<()> {
        let old = self.live_slot;
        let target = if self.mutant == Mutant::FullCheckpointOverLiveSlot {
            old
        } else {
            1 - old
        };
        let gen = self.delta.gen + 1;
        let wear_choice = if rotate && target != old {
            self.rotation_choice(target)
        } else {
            None
        };
        let now = self.layout.meta().clone();
        let (next, repaired) = self.repair_map(wear_choice, target)?;
        let map = next.clone().unwrap_or_else(|| now.clone());
        self.attempted = map
            .all()
            .filter(|sb| !now.all().any(|o| o == *sb))
            .collect();
        // The delta region's new superblocks are erased before the commit
        // point, those it keeps after it (their pages belong to the old
        // generation until then).
        let (kept, mut fresh): (Vec<Sb>, Vec<Sb>) =
            map.delta.iter().partition(|sb| now.delta.contains(sb));
        if next.is_some() && self.mutant == Mutant::RotationErasesOldDeltaEarly {
            fresh.extend_from_slice(&now.delta);
        }
        let mut dropped;
        let mut l2p = self.l2p.as_slice();
        if self.mutant == Mutant::CheckpointDropsEntry {
            dropped = l2p.to_vec();
            if let Some(e) = dropped.iter_mut().find(|e| **e != Psa::UNMAPPED) {
                *e = Psa::UNMAPPED;
            }
            l2p = &dropped;
        }
        let pages = checkpoint::write(
            &mut self.flash,
            &self.layout,
            &map,
            target,
            gen,
            self.delta.epoch,
            l2p,
            &mut self.scratch,
            &fresh,
        )?;
        self.attempted.clear();
        // The new checkpoint is committed; the old one and the deltas on
        // top of it are now redundant. Superblocks that left the map are
        // erased when next taken (or retired, if bad). The old slot is
        // erased at once only on images of configuration version 6 and
        // before (as they always were); from version 7 it waits for the
        // next checkpoint, whose target it is and which erases it first
        // anyway: its commit record has the lower generation, so recovery
        // never prefers it, and the slots wear half as fast.
        if target != old && !self.features.movable_metadata {
            let sbs = map.slots[old].clone();
            self.layout.erase_list(&mut self.flash, &sbs)?;
        }
        if let Some(next) = next {
            self.apply_rotation(next);
            if repaired {
                self.wear_stats.meta_repairs += 1;
            }
        }
        self.live_slot = target;
        // The checkpoint holds every epoch before the current one.
        self.proven_below = self.proven_below.max(self.delta.epoch);
        self.delta.new_generation(gen);
        self.recovery_avoid.clear();
        // The chain restarts with the generation's first committed page.
        self.chain_link = Psa::UNMAPPED;
        self.oob_run.clear();
        self.oob_run_pages = 0;
        self.stats.full_checkpoints += 1;
        self.stats.checkpoint_pages_written += pages;
        match self.layout.erase_list(&mut self.flash, &kept) {
            // The region cannot take pages: the next flush moves it.
            Err(e) if e.is_media_failure() && self.delta.movable => {
                self.stats.erase_failures += 1;
                self.delta.broken = true;
            }
            r => r?,
        }
        self.flash.sync()?;
        self.unsynced_epochs = 0;
        Ok(())
    }
}
