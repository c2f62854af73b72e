//! SCFTL: the snapshot-consistent flash translation layer of the SCFTL
//! paper (§3), with the additions listed in ARCHITECTURE.md (`## ftl`).
//!
//! Contract: after a crash at any instant (also inside `flush` or `open`),
//! `open` returns the device to exactly its contents at the last completed
//! `flush`, or — for a crash inside `flush` — to the contents that flush was
//! making durable, or to the contents at one of the epoch barriers
//! (`epoch_barrier`) after the last completed `flush`, in order: a host power
//! cut loses nothing a client flushed and a suffix of the epochs it did not
//! (docs/FORMAT.md §4.3). Never-written and trimmed sectors read as zeros. An epoch
//! (the time between two flushes) holds at most W sector updates; a request
//! that does not fit is refused whole with [`FtlError::EpochFull`].
//!
//! After any error from the flash (e.g. an injected power loss) the object
//! refuses further operations; drop it and `open` the flash again.
//!
//! Module map: `config` (W, K, U, sizes, constraints, the K/U search, label
//! encoding), `layout` (superblocks, regions, typed addresses), `map` (the
//! L2P, the valid map, and the P2L of version-3/4 images), `format` (metadata page layout and CRC), `blocks`
//! (superblock states and queues of two-phase GC, changed only through its
//! transitions), `delta` (delta buffer and region), `checkpoint` (full
//! checkpoints with shadow), `datapath` (write, read, trim, merge buffer),
//! `gc`, `flush`, `recovery` (read-only reconstruction of the stable L2P),
//! `invariants` (`check_invariants`, the §6.1 validators and the ghost
//! stable L2P).
//!
//! Invariants of the in-memory state (checked by `check_invariants`):
//! - `l2p[la]` is `UNMAPPED` or a sector of an active or used data
//!   superblock; the L2P is injective; `valid` has exactly the bits of the
//!   sectors the L2P maps to; where a P2L is kept (images of configuration
//!   version 3 and 4), `p2l[l2p[la]] == la`;
//! - the valid counts and block queues are as described in `blocks.rs`;
//! - the merge buffer holds `mb_fill <= sectors_per_page` sectors of the
//!   active superblock's page `next_page` (a full buffer is programmed when
//!   the next sector needs the room, or by the flush, which may commit in
//!   its OOB); with no active superblock it is empty;
//! - `updates <= W`, `gc_count <= K`;
//! - every data sector on flash carries, in its page's OOB, the CRC of its
//!   logical sector and data as written by the user; GC copies the CRC
//!   verbatim and never recomputes it, so a damaged sector stays damaged
//!   (and keeps failing reads) wherever it moves; on a version-5 image the
//!   OOB also carries the logical sector number, which GC relocates by;
//! - in debug builds with the `ghost` feature, the stable L2P that recovery
//!   would rebuild from flash equals the ghost copy of the L2P taken at the
//!   last flush.

mod blocks;
mod checkpoint;
pub mod config;
mod datapath;
mod delta;
pub mod features;
mod flush;
pub mod format;
mod gc;
mod invariants;
pub mod layout;
mod map;
mod recovery;
mod streams;
mod wear;

use flash::{BlockId, Flash, FlashError, Geometry};

use crate::device::{
    check_range, mapped_runs, BlockDevice, DeviceStats, FlushStep, FlushTicket, FtlError, FtlKind,
    Lba, Result,
};
use crate::label;
use crate::mutant::Mutant;
use crate::wear::{WearPolicy, WearStats};

pub use config::ScftlConfig;
pub use features::Features;
pub use layout::{La, Psa, Sb};

use blocks::Blocks;
pub use blocks::SbState;
use config::Derived;
use delta::DeltaLog;
use layout::{Address, Layout, MetaMap};
use map::{L2p, P2l, ValidMap};
use recovery::Reconstructed;
use streams::{Parked, Stream};

/// The superblock being filled and its next page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Active {
    pub sb: Sb,
    /// Next page (die-interleaved index) to program; `pages_per_sb` when
    /// full (it retires to `used` lazily, when the next page is needed).
    pub next_page: u32,
}

/// Counters reported through [`BlockDevice::stats`].
#[derive(Clone, Debug, Default)]
struct Counters {
    user_sectors_written: u64,
    user_sectors_read: u64,
    user_sectors_trimmed: u64,
    flushes: u64,
    gc_sectors_relocated: u64,
    gc_blocks_reclaimed: u64,
    gc_la_searches: u64,
    gc_victim_fallbacks: u64,
    full_checkpoints: u64,
    checkpoint_pages_written: u64,
    /// In-page and OOB commits.
    data_page_commits: u64,
    /// OOB commits (of `data_page_commits`).
    oob_page_commits: u64,
    /// Data page programs the flash failed, written again elsewhere.
    program_failures: u64,
    /// Erases the flash failed (the superblock retired).
    erase_failures: u64,
    /// Superblocks erased ahead of need (`Scftl::erase_ahead`).
    erased_ahead: u64,
    /// Consolidation pages written because every erasable superblock was
    /// held (`Scftl::release_hold`).
    hold_releases: u64,
    /// Checkpoint page programs the flash failed (the checkpoint was
    /// written again under a repaired map).
    meta_program_failures: u64,
}

/// Debug builds: the L2P changes of the current and the last epoch (8 bytes
/// each, for the validators), and with the `ghost` feature (which the crash
/// checker's builds enable) a ghost copy of the stable L2P (4 bytes per
/// logical sector), so `check_invariants` can compare it with what recovery
/// would rebuild. The copy is checker-only state: a server does not pay it.
#[cfg(debug_assertions)]
#[derive(Clone, Debug)]
struct Ghost {
    #[cfg(feature = "ghost")]
    stable: L2p,
    /// L2P changes of the current epoch, in order.
    pending: Vec<(La, Psa)>,
    /// L2P changes of the epoch that committed last (for the validator).
    last: Vec<(La, Psa)>,
    /// The moves among `pending` (GC's relocations, wear leveling's and
    /// the emptying of superblocks with a bad block), in order; and those
    /// of the epoch that committed last. The refinement oracle places in P
    /// a move that a later change of the same sector within the same
    /// operation overrides, which the L2P at the operation's end does not
    /// show (`crate::refine::RefineView::moves`). Each as (logical
    /// sector, the page it moved from, the page it moved to).
    moves: Vec<(La, Psa, Psa)>,
    last_moves: Vec<(La, Psa, Psa)>,
    /// The block table's erase counts at the last commit (or format or
    /// open), so the refinement oracle can tell an operation's erases
    /// before its commit from those after (`crate::refine`).
    erases_at_commit: Vec<u64>,
    /// Sectors static wear leveling and the emptying of superblocks with a
    /// bad block moved in the current epoch, each charged to its updates
    /// (`wear.rs`): what the refinement oracle adds to P's write counter,
    /// whose relocations are not charged.
    moves_charged: u64,
    /// Sectors placed again after a failed program of their merge buffer
    /// page (`datapath.rs` `reprogram_elsewhere`), each charged to the
    /// epoch's updates, since the device was formatted or opened; and
    /// that count at the last commit. For the refinement oracle, each is
    /// P's write of the same content.
    replaced: u64,
    replaced_at_commit: u64,
    /// Data pages whose program the flash failed (the physical sector of
    /// each page's first slot), oldest first, since the device was
    /// formatted or opened, whatever SCFTL then did about it: their
    /// content is garbage, which the refinement oracle tells P.
    failed_programs: Vec<Psa>,
    /// In-page and OOB commits (docs/FORMAT.md §4.8–4.9) since the device
    /// was formatted or opened, and what the last one saw when it
    /// programmed its record: the refinement oracle checks those facts
    /// against P's guards `InP` and `OobP` (`crate::refine::ChainCommit`).
    chain_commits: u64,
    last_chain: Option<crate::refine::ChainCommit>,
    /// Per superblock: the commits (`Scftl::commits`) durable when it was
    /// last erased by allocation (`crate::refine::RefineView::
    /// erase_durable`).
    erase_durable: Vec<u64>,
    /// The consolidation page the erase hold's way out last programmed
    /// (`crate::refine::RefineView::release_page`).
    release_page: Option<flash::PageAddr>,
}

/// A snapshot-consistent FTL over a flash device.
pub struct Scftl<F: Flash> {
    flash: F,
    config: ScftlConfig,
    layout: Layout,
    derived: Derived,
    /// U and K as GC uses them: the configuration's, adjusted for the bad
    /// data superblocks (`bad_superblocks_changed`).
    gc_threshold: u32,
    gc_bound: u32,
    /// Data superblocks that may go bad before writes are refused
    /// (`ScftlConfig::spare_superblocks`).
    spare: u64,
    mutant: Mutant,
    l2p: L2p,
    /// Which physical sectors the L2P points to.
    valid: ValidMap,
    /// Physical → logical, kept only for images of configuration version 3
    /// and 4, whose data OOB has no logical sector numbers; `None` on
    /// version 5, where GC reads them from the OOB.
    p2l: Option<P2l>,
    blocks: Blocks,
    /// How superblocks are chosen and data moved for wear (scftl/wear.rs).
    wear: WearPolicy,
    wear_stats: WearStats,
    /// The superblock static wear leveling is emptying, if any.
    wear_target: Option<Sb>,
    /// Used superblocks with a bad erase block, to be emptied (oldest
    /// first) and then retired (scftl/wear.rs).
    evacuate: Vec<Sb>,
    /// The pool superblocks the full checkpoint being written took into
    /// its map (retired if its attempt fails on them: `wear.rs`).
    attempted: Vec<Sb>,
    /// Until the first full checkpoint after recovery: superblocks holding
    /// sectors of the epochs recovery verified by their digests, which a
    /// checkpoint must not erase before its commit (`wear.rs` `repair_map`).
    recovery_avoid: Vec<Sb>,
    /// Every epoch with a smaller id is proven durable on flash (a synced
    /// page carries the after-sync flag past it, or a full checkpoint
    /// holds it): wear leveling may erase superblocks freed before it out
    /// of FIFO order (`Blocks::is_settled`).
    proven_below: u64,
    /// The loaded write stream's active superblock, merge buffer, its OOB
    /// and fill (`streams.rs`: outside relocation, the host stream's).
    active: Option<Active>,
    mb: Vec<u8>,
    /// The OOB of the merge buffer's page: one data-sector CRC per filled
    /// slot, 0xFF elsewhere (docs/FORMAT.md §4.7).
    mb_oob: Vec<u8>,
    mb_fill: u32,
    /// Two write streams, host and cold (configuration version 8 with
    /// `gc_streams` = 2; `streams.rs`).
    two_streams: bool,
    /// Which stream `active` and the merge buffer belong to.
    stream: Stream,
    /// The other stream (unused with one stream).
    parked: Parked,
    /// The cold stream programmed a page in this epoch: the epoch commits
    /// in the delta region.
    cold_programmed: bool,
    /// A run of whole pages written straight from the caller's buffer
    /// (`datapath.rs` `program_run_direct`): their addresses and their OOB
    /// areas (`mb_oob.len()` bytes each), at most `RUN_PAGES` of them.
    run_pages: Vec<flash::PageAddr>,
    run_oob: Vec<u8>,
    /// The data-sector CRCs of one page, read back from flash.
    oob_scratch: Vec<u8>,
    delta: DeltaLog,
    live_slot: usize,
    /// Sector updates (written + trimmed sectors) in this epoch.
    updates: u64,
    /// Sectors of the write in progress admitted against W but not yet
    /// counted in `updates` (a program failure mid-request may only
    /// charge what is left after them).
    admitted: u64,
    /// GC relocations (victims) in this epoch.
    gc_count: u32,
    /// Commits since format or open (for the refinement oracle,
    /// `crate::refine`).
    commits: u64,
    /// Epochs committed by ordered flushes since the last sync.
    unsynced_epochs: u32,
    /// What the image's configuration version has on flash (decoded once
    /// from the label; `Features::CURRENT` after format): among others,
    /// whether the metadata regions may rotate (`movable_metadata`,
    /// version 7, docs/FORMAT.md §4.5).
    features: Features,
    /// Flushes may commit in-page (docs/FORMAT.md §4.8): the label has
    /// configuration version 4 and the OOB has room for the marker.
    inpage: bool,
    /// Flushes may commit in the OOB of the epoch's last data page
    /// (docs/FORMAT.md §4.9): the label has configuration version 6.
    oob_commit: bool,
    /// The link of the last commit: slot 0 of the data page where the
    /// current epoch's first data page goes if an in-page or OOB commit is
    /// to follow (`UNMAPPED`: nowhere).
    chain_link: Psa,
    /// The records ([`format::push_page_records`]) of the data pages
    /// programmed since the last commit, in order, for an OOB commit's CRC;
    /// at most [`format::MAX_OOB_EPOCH_PAGES`] pages (`oob_run_pages`
    /// counts them all).
    oob_run: Vec<u8>,
    oob_run_pages: u32,
    scratch: Vec<u8>,
    stats: Counters,
    /// Set after a failed flash command: `Some(true)` for a power loss.
    poisoned: Option<bool>,
    /// Epochs ended (committed or ordered) since format or open: a flush
    /// ticket's sync makes durable the ones ended before it started
    /// (`flush.rs`, [`Scftl::note_ticket_sync`]).
    epochs_ended: u64,
    /// Sectors read with shared access ([`BlockDevice::read_shared`]),
    /// added to `stats.user_sectors_read` when reported.
    shared_sectors_read: std::sync::atomic::AtomicU64,
    /// The data checksums of mapped sectors, so that shared reads need no
    /// OOB read (`map.rs` `CrcCache`: its coherence argument).
    crc_cache: map::CrcCache,
    /// Set after a media failure SCFTL could not work around: writes,
    /// trims and flushes are refused, reads work.
    worn_out: Option<String>,
    #[cfg(debug_assertions)]
    /// Boxed: it grows with what the checker's oracles read, and keeps
    /// `AnyFtl`'s variants of similar size.
    ghost: Box<Ghost>,
}

impl<F: Flash> Scftl<F> {
    /// Formats `flash` as an SCFTL device and returns it, empty.
    pub fn format(flash: F, config: ScftlConfig) -> Result<Self> {
        Self::format_with_mutant(flash, config, Mutant::None)
    }

    /// [`Scftl::format`] with a seeded bug (for the crash checker).
    pub fn format_with_mutant(mut flash: F, config: ScftlConfig, mutant: Mutant) -> Result<Self> {
        let g = *flash.geometry();
        config.validate(&g)?;
        let mut layout = Layout::new(&g, &config);
        if flash.block_wear(label::LABEL_BLOCK)?.is_bad() {
            return Err(FtlError::BadConfig(
                "erase block 0 (the label block) is bad; the device cannot be formatted".into(),
            ));
        }
        // The metadata regions go on the first superblocks with no bad
        // erase block (the initial map, unless some of those are bad).
        let mut good = Vec::new();
        for sb in 1..layout.num_sbs {
            let mut ok = true;
            for b in layout.erase_blocks(Sb(sb)) {
                ok &= !flash.block_wear(b)?.is_bad();
            }
            if ok {
                good.push(Sb(sb));
            }
        }
        let (c, d) = (layout.slot_sbs as usize, layout.delta_sbs as usize);
        if good.len() < 2 * c + d {
            return Err(FtlError::BadConfig(format!(
                "only {} superblocks have no bad erase block; the metadata regions need {}",
                good.len(),
                2 * c + d
            )));
        }
        layout.set_meta(MetaMap {
            slots: [good[..c].to_vec(), good[c..2 * c].to_vec()],
            delta: good[2 * c..2 * c + d].to_vec(),
        });
        label::clear_label(&mut flash)?;
        layout.erase_list(&mut flash, &layout.meta().slots[1])?;
        layout.erase_list(&mut flash, &layout.meta().delta)?;
        flash.sync()?;
        let l2p = L2p::unmapped(config.logical_sectors as usize);
        let mut page = vec![0u8; layout.page_size];
        let first_gen = 1;
        let first_epoch = 1;
        let ckpt_pages = checkpoint::write(
            &mut flash,
            &layout,
            layout.meta(),
            0,
            first_gen,
            first_epoch,
            l2p.as_slice(),
            &mut page,
            &[],
        )?;
        label::write_label(&mut flash, FtlKind::Scftl, &config.encode())?;
        let blocks = Blocks::all_erasable(layout.meta_flags());
        let delta = DeltaLog::new(&layout, first_gen, first_epoch, 0, 0);
        let mut me = Self::assemble(
            flash,
            config,
            layout,
            mutant,
            l2p,
            blocks,
            delta,
            0,
            Features::CURRENT,
        );
        me.inpage = me.inpage_possible();
        me.oob_commit = true;
        me.stats.checkpoint_pages_written = ckpt_pages;
        me.rebuild_maps()?;
        me.check_not_worn_out()?;
        Ok(me)
    }

    /// Opens a formatted device: runs recovery.
    pub fn open(flash: F) -> Result<Self> {
        Self::open_with_mutant(flash, Mutant::None)
    }

    /// [`Scftl::open`] with a seeded bug (for the crash checker).
    pub fn open_with_mutant(mut flash: F, mutant: Mutant) -> Result<Self> {
        let (config, features) = Self::read_label_config(&mut flash)?;
        let g = *flash.geometry();
        let mut layout = Layout::new(&g, &config);
        // What an earlier process wrote but did not sync may be readable now
        // (a killed process leaves it in the page cache) and still lost by a
        // later power cut: make it durable before building on it.
        flash.sync()?;
        let mut page = vec![0u8; layout.page_size];
        let mut rec = recovery::reconstruct(
            &mut flash,
            &layout,
            config.logical_sectors as usize,
            mutant,
            &mut page,
            features,
        )?;
        layout.set_meta(rec.map.clone());
        let blocks = Blocks::all_erasable(layout.meta_flags());
        let delta = DeltaLog::new(&layout, rec.gen, rec.next_epoch, rec.delta_wp, rec.chain);
        let l2p = std::mem::replace(&mut rec.l2p, L2p::unmapped(0));
        let mut me = Self::assemble(
            flash, config, layout, mutant, l2p, blocks, delta, rec.slot, features,
        );
        me.rebuild_maps()?;
        me.recovery_avoid = rec.verified_sbs.clone();
        me.recovery_avoid.extend(rec.tail_sb);
        let repair = me.note_bad_metadata(rec.slot);
        // A version-3 image keeps its format: an older build must still
        // read it, and it knows no in-page records.
        me.inpage = features.inpage_commits && me.inpage_possible();
        // Likewise a version-5 image gets no OOB commit records, which
        // its build's recovery would not follow.
        me.oob_commit = features.oob_commits;
        if let Err(FtlError::WornOut(why)) = me.check_not_worn_out() {
            me.worn_out = Some(why);
        }
        if me.worn_out.is_some() {
            // Read-only: nothing below may write a bad metadata block, and
            // no epoch has the space the constraints promise.
            return Ok(me);
        }
        if me.settle_recovery(rec, repair)? {
            return Ok(me);
        }
        match me.validate_after("recovery") {
            // Too little space left by bad superblocks: read-only.
            Err(FtlError::WornOut(_)) | Ok(()) => Ok(me),
            Err(e) => Err(e),
        }
    }

    /// The SCFTL configuration in the device's label and the features of
    /// its version, checked against the device.
    fn read_label_config(flash: &mut F) -> Result<(ScftlConfig, Features)> {
        let (kind, bytes) = label::read_label(flash)?;
        if kind != FtlKind::Scftl {
            return Err(FtlError::WrongKind {
                found: kind,
                expected: FtlKind::Scftl,
            });
        }
        let config = ScftlConfig::decode(&bytes)?;
        let features = Features::of(config::label_version(&bytes))?;
        if let Err(e) = config.validate_for(flash.geometry(), features) {
            return Err(FtlError::Corrupt(format!(
                "the label's SCFTL configuration does not fit this device: {e}"
            )));
        }
        Ok((config, features))
    }

    /// After recovery: a bad metadata block (a crash came before the full
    /// checkpoint that was to move it, docs/FORMAT.md §4.10). Where the
    /// regions can move, returns `true`: the checkpoint that moves them is
    /// to be written (and the region counts as broken); elsewhere no epoch
    /// can commit any more and the device turns read-only (reads still
    /// work). The live slot (`slot`) is read, never written, so it may
    /// keep one until it is the target of a checkpoint.
    fn note_bad_metadata(&mut self, slot: usize) -> bool {
        let live = &self.layout.meta().slots[slot];
        let bad_meta: Vec<Sb> = self
            .layout
            .meta()
            .all()
            .filter(|sb| (!self.delta.movable || !live.contains(sb)) && self.has_bad_block(*sb))
            .collect();
        if bad_meta.is_empty() {
            return false;
        }
        if !self.delta.movable {
            self.worn_out = Some(format!(
                "superblock {} of the metadata regions has a bad erase block",
                bad_meta[0]
            ));
            return false;
        }
        self.delta.broken = true;
        true
    }

    /// What recovery leaves to write before the device takes requests: the
    /// erase of a region of an older generation, the tail of in-page
    /// epochs as the region's backlog (or its consolidation page now), and
    /// the full checkpoint when one is needed (`repair`, or
    /// [`Self::recovery_needs_checkpoint`]). Returns `true` when a media
    /// failure on the way turned the device read-only.
    fn settle_recovery(&mut self, mut rec: Reconstructed, mut repair: bool) -> Result<bool> {
        if rec.delta_needs_erase && !repair {
            let delta = self.layout.meta().delta.clone();
            let erased = self
                .layout
                .erase_list(&mut self.flash, &delta)
                .and_then(|()| self.flash.sync());
            match erased {
                // The checkpoint below moves the region off the bad block.
                Err(e) if e.is_media_failure() && self.delta.movable => {
                    self.stats.erase_failures += 1;
                    self.delta.broken = true;
                    repair = true;
                }
                r => {
                    if self.worn_out_by(r.map_err(FtlError::from))? {
                        return Ok(true);
                    }
                }
            }
            self.delta.wp = 0;
        }
        let checkpoint =
            repair || self.recovery_needs_checkpoint(&rec) || self.record_past_chain(&rec)?;
        if !checkpoint && !rec.tail.is_empty() && self.keep_tail_as_backlog(&mut rec)? {
            return Ok(true);
        }
        // (A region that broke on the consolidation page above needs the
        // checkpoint as well: the tail's superblock may be erased first.)
        if checkpoint || self.delta.broken {
            let written = self.full_checkpoint();
            if self.worn_out_by(written)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether what recovery found can only be settled by a full
    /// checkpoint (a new generation).
    fn recovery_needs_checkpoint(&self, rec: &Reconstructed) -> bool {
        // After a fall-back the dropped epochs' pages are still in the
        // region, and a later scan could take them for live ones: a new
        // generation makes them stale.
        let fell_back = rec.fell_back && self.mutant != Mutant::SkipFallbackCheckpoint;
        // Epochs recovered from in-page records that no consolidation page
        // holds yet: their records live in a data superblock that may be
        // erased, so the region must get their pairs first — as the next
        // page after the region's last when nothing of the generation
        // follows their chain, else (the consolidation page was lost in a crash
        // while later pages landed) only a full checkpoint keeps the order.
        // The region must also keep room for one more epoch (and its
        // consolidation page) after the one written here.
        let room = u64::from(self.delta.remaining_pages());
        let tail_page = u64::from(!rec.tail.is_empty());
        // (A tail longer than one page is not what this FTL writes; a full
        // checkpoint keeps even that safe.)
        // On a device where a lost program can come back (an image file),
        // the crashed run may have programmed region pages, records and a
        // checkpoint slot after its last sync that recovery saw as erased;
        // programming those places again in this generation could bring
        // one back later, self-consistent, under an identity recovery
        // would accept (docs/FORMAT.md §4.3, "Opening an image"). A new
        // generation makes all of them stale at once.
        let tainted = self.flash.lost_programs_can_return()
            && self.mutant != Mutant::KeepGenerationOnImageOpen;
        // Epochs applied because they verified stay unproven on flash, and
        // every later recovery verifies them again. All but the last may
        // cover sectors a later epoch overrode; those are not in the
        // recovered L2P, so their superblocks can be erased before any
        // page proves the epochs durable — and the next recovery would then
        // fail them and fall back past flushed data. A full checkpoint
        // settles them.
        let unsettled = rec.verified > 1 && self.mutant != Mutant::KeepVerifiedEpochsUnproven;
        fell_back
            || tainted
            || unsettled
            || rec.tail_out_of_order
            || rec.tail.len() > self.delta.pairs_per_page as usize
            || room < self.derived.epoch_pages_max + 1 + tail_page
    }

    /// Whether a commit record lies where recovery's walk along the chain
    /// ended (`Reconstructed::chain_end`) that the walk did not apply: an
    /// in-page commit whose record or data failed its check, or an OOB
    /// commit whose run did not verify (a crash before the commit's sync).
    /// A later recovery would walk to it again, so the generation must not
    /// go on: the proofs' recovery without a full checkpoint requires that
    /// no record of the generation lie where its walk looks (`Quiet`: P's
    /// `okP recover`, PLq's `CleanRec` in the chain phase, proofs/SCFTL/
    /// Impl/LazyChainCleanRec.agda). On NAND a torn in-page commit tears
    /// from the page's start (so its marker is lost too); a split tear, or
    /// an OOB commit whose last page landed while an earlier one of its run
    /// did not, leaves one, and the checker's random runs meet both.
    fn record_past_chain(&mut self, rec: &Reconstructed) -> Result<bool> {
        let Some(end) = rec.chain_end else {
            return Ok(false);
        };
        let run = self.features.max_oob_epoch_pages();
        recovery::record_in_window(&mut self.flash, &self.layout, end, run)
    }

    /// Keeps the recovered tail of in-page epochs (no full checkpoint
    /// needed) as the region's backlog, exactly as after in-page commits at
    /// run time: the region's next page (the next commit's, which comes
    /// before any erase their superblock could need) is their
    /// consolidation page, so opening a cleanly closed image writes
    /// nothing. Returns `true` when writing the consolidation page at once
    /// (see below) turned the device read-only.
    fn keep_tail_as_backlog(&mut self, rec: &mut Reconstructed) -> Result<bool> {
        self.delta.backlog = std::mem::take(&mut rec.tail);
        self.delta.backlog_epochs = rec.tail_epochs;
        self.delta.backlog_last_epoch = rec.tail_last_epoch;
        self.delta.backlog_sbs.extend(rec.tail_sb);
        // The erase hold (docs/FORMAT.md §4.3): the region's newest commit
        // before the tail may name pages the tail's epochs freed, and
        // which superblocks hold them is not tracked across a reopen, so
        // every superblock erasable now waits for the consolidation page.
        // That covers the records' own superblock too, which the empty
        // case below also consolidates at once; its mutant drops both.
        if !self.delta.backlog.is_empty() && self.mutant != Mutant::LazyConsolidationOfEmptyChain {
            self.delta.hold_from = 0;
        }
        // ...unless the records' superblock holds no sector the L2P maps:
        // then it is erasable at once, and the first superblock a write or
        // GC opens may be it, before any commit — which would lose the
        // tail's epochs and the proof its records give the epochs before
        // them (the crash checker found it with two write streams,
        // `--hot-cold --wear-leveling`, tiny, seed 6: a trim in the last
        // in-page epoch left the superblock empty, and the next recovery
        // fell back past a completed flush). So the consolidation page is
        // written and synced now.
        let empty = rec
            .tail_sb
            .is_some_and(|sb| self.blocks.valid_counts()[sb.0 as usize] == 0);
        if empty && self.mutant != Mutant::LazyConsolidationOfEmptyChain {
            let written = self
                .delta
                .consolidate(&mut self.flash, &self.layout)
                .and_then(|()| self.sync_flash());
            return self.worn_out_by(written);
        }
        Ok(false)
    }

    /// `r` failed on a media failure SCFTL could not work around (a
    /// metadata block wore out with nowhere to move it), or with
    /// `FtlError::WornOut`: the device goes read-only (`worn_out`) and
    /// this returns `true`; other errors are returned as they are.
    fn worn_out_by(&mut self, r: Result<()>) -> Result<bool> {
        match r {
            Ok(()) => Ok(false),
            Err(FtlError::Flash(e)) if e.is_media_failure() => {
                self.read_only(e.to_string());
                Ok(true)
            }
            // No superblock left to move metadata to (or too little space).
            Err(FtlError::WornOut(why)) => {
                self.read_only(why);
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }

    /// The device turns read-only for `why` (writes, trims and flushes
    /// refused from now on, reads work); returns the error that says so.
    fn read_only(&mut self, why: String) -> FtlError {
        self.worn_out = Some(why.clone());
        FtlError::WornOut(why)
    }

    #[allow(clippy::too_many_arguments)]
    fn assemble(
        flash: F,
        config: ScftlConfig,
        layout: Layout,
        mutant: Mutant,
        l2p: L2p,
        blocks: Blocks,
        delta: DeltaLog,
        live_slot: usize,
        features: Features,
    ) -> Self {
        let g = layout.geometry;
        let derived = config.derived(&g);
        let phys = layout.num_sbs as usize * layout.sectors_per_sb as usize;
        #[cfg(debug_assertions)]
        let ghost = Box::new(Ghost {
            #[cfg(feature = "ghost")]
            stable: l2p.clone(),
            pending: Vec::new(),
            last: Vec::new(),
            moves: Vec::new(),
            last_moves: Vec::new(),
            erases_at_commit: blocks.erase_counts().to_vec(),
            moves_charged: 0,
            replaced: 0,
            replaced_at_commit: 0,
            failed_programs: Vec::new(),
            chain_commits: 0,
            last_chain: None,
            erase_durable: vec![0; layout.num_sbs as usize],
            release_page: None,
        });
        let oob_len = if features.oob_logical_numbers {
            format::data_oob_len_v5(layout.spp)
        } else {
            (layout.spp as usize * format::DATA_OOB_LEN + format::INPAGE_MARKER_LEN)
                .min(g.oob_size as usize)
        };
        let two_streams = config.gc_streams >= 2;
        let parked = Parked {
            active: None,
            mb: vec![0u8; if two_streams { layout.page_size } else { 0 }],
            mb_oob: vec![0xFF; if two_streams { oob_len } else { 0 }],
            mb_fill: 0,
        };
        let mut delta = delta;
        delta.movable = features.movable_metadata;
        Scftl {
            flash,
            derived,
            gc_threshold: config.gc_threshold,
            gc_bound: config.gc_bound,
            spare: config.spare_superblocks(&g),
            mutant,
            l2p,
            valid: ValidMap::empty(phys),
            p2l: (!features.oob_logical_numbers).then(|| P2l::empty(phys)),
            blocks,
            wear: WearPolicy::OFF,
            wear_stats: WearStats::default(),
            wear_target: None,
            evacuate: Vec::new(),
            attempted: Vec::new(),
            recovery_avoid: Vec::new(),
            proven_below: delta.epoch,
            active: None,
            mb: vec![0u8; layout.page_size],
            mb_oob: vec![0xFF; oob_len],
            mb_fill: 0,
            two_streams,
            stream: Stream::Host,
            parked,
            cold_programmed: false,
            run_pages: Vec::new(),
            run_oob: Vec::new(),
            oob_scratch: vec![0xFF; layout.spp as usize * format::DATA_OOB_LEN],
            delta,
            live_slot,
            updates: 0,
            admitted: 0,
            gc_count: 0,
            commits: 0,
            unsynced_epochs: 0,
            inpage: false,
            features,
            oob_commit: false,
            chain_link: Psa::UNMAPPED,
            oob_run: Vec::new(),
            oob_run_pages: 0,
            scratch: vec![0u8; layout.page_size],
            stats: Counters::default(),
            poisoned: None,
            epochs_ended: 0,
            shared_sectors_read: std::sync::atomic::AtomicU64::new(0),
            crc_cache: map::CrcCache::new(),
            worn_out: None,
            layout,
            config,
            #[cfg(debug_assertions)]
            ghost,
        }
    }

    /// Selective persistence: valid map (and P2L), valid counts and queues
    /// from the L2P. Referenced superblocks are used; all others erasable
    /// (none free).
    fn rebuild_maps(&mut self) -> Result<()> {
        let mut valid = vec![0u32; self.layout.num_sbs as usize];
        for (la, pa) in self.l2p.iter() {
            if !pa.is_mapped() {
                continue;
            }
            if !self.layout.is_data_psa(pa) {
                return Err(FtlError::Corrupt(format!(
                    "logical sector {la} maps to physical sector {pa} outside the data region"
                )));
            }
            if self.valid.get(pa) {
                let prev = self
                    .l2p
                    .iter()
                    .find(|&(_, p)| p == pa)
                    .map_or(La::NONE, |(l, _)| l);
                return Err(FtlError::Corrupt(format!(
                    "logical sectors {prev} and {la} both map to physical sector {pa}"
                )));
            }
            self.valid.set(pa);
            if let Some(p2l) = &mut self.p2l {
                p2l[pa] = la;
            }
            valid[self.layout.sb_of(pa).index()] += 1;
        }
        // A superblock with a bad erase block (factory bad, worn out, or
        // retired after a program failed in it) is never filled again: bad
        // when it holds nothing, else emptied first (scftl/wear.rs).
        let bad: Vec<bool> = (0..self.layout.num_sbs)
            .map(|sb| !self.layout.is_meta_sb(Sb(sb)) && self.has_bad_block(Sb(sb)))
            .collect();
        self.evacuate = (0..self.layout.num_sbs)
            .filter(|&sb| bad[sb as usize] && valid[sb as usize] > 0)
            .map(Sb)
            .collect();
        self.blocks.rebuild(valid, &bad);
        if self.mutant == Mutant::RebuildKeepsUnreferenced {
            // The seeded bug: the first unreferenced superblock stays in use.
            if let Some(sb) = (0..self.layout.num_sbs)
                .map(Sb)
                .find(|&sb| self.blocks.state(sb) == SbState::Erasable)
            {
                self.blocks.keep_used(sb);
            }
        }
        if self.mutant == Mutant::TrustErasedFirstPage {
            // The seeded bug: an unreferenced superblock whose first page
            // reads erased is taken as erased whole.
            let erasable: Vec<Sb> = (0..self.layout.num_sbs)
                .map(Sb)
                .filter(|&sb| self.blocks.state(sb) == SbState::Erasable)
                .collect();
            for sb in erasable {
                if self.flash.probe_erased(self.layout.page_addr(sb, 0))? {
                    self.blocks.trust_erased(sb);
                }
            }
        }
        self.bad_superblocks_changed();
        let wear = (0..self.layout.num_sbs)
            .map(|sb| crate::wear::stripe_wear(&self.flash, self.layout.erase_blocks(Sb(sb))))
            .collect();
        self.blocks.set_wear_base(wear);
        Ok(())
    }

    /// After superblocks went bad: GC starts that many superblocks earlier
    /// (`ScftlConfig::with_bad_superblocks`), and the derived bounds
    /// follow, as long as the configuration can spare them. Once any
    /// superblock went bad, GC plans for one more than have (while the
    /// spare allows), so that a failure within an epoch finds room.
    fn bad_superblocks_changed(&mut self) {
        let bad = self.lost_superblocks();
        let assume = if bad > 0 && bad < self.spare {
            bad + 1
        } else {
            bad
        };
        if let Some(eff) = self
            .config
            .with_bad_superblocks(&self.layout.geometry, assume)
            .filter(|_| bad <= self.spare)
        {
            self.gc_threshold = eff.gc_threshold;
            self.gc_bound = eff.gc_bound;
            self.derived = eff.derived(&self.layout.geometry);
        }
    }

    /// [`Self::bad_superblocks_changed`] in the middle of an epoch (a
    /// superblock lost to a failed erase or program, or emptied for one).
    /// A lower U and a higher K may raise epoch_pages_max, and the region
    /// was kept for the old bound at the last commit: if it no longer has
    /// room for the rest of the epoch under the new one (the refinement
    /// oracle's region check, PS's `RInv.rB` of proofs/SCFTL/Impl/
    /// SpaceRegion.agda: pages used, a consolidation page owed and
    /// epoch_pages_max at most the region's pages and the epoch's own),
    /// the region takes no more pages and the epoch commits by a full
    /// checkpoint, as after a failed region page (`DeltaLog::broken`).
    pub(super) fn bad_superblocks_changed_in_epoch(&mut self) {
        self.bad_superblocks_changed();
        let d = &self.delta;
        let need =
            u64::from(d.wp) + u64::from(!d.backlog.is_empty()) + self.derived.epoch_pages_max;
        if !d.broken && need > u64::from(d.region_pages) + u64::from(d.epoch_pages) {
            self.delta.broken = true;
        }
    }

    /// Data superblocks lost to bad blocks: retired ones, and used ones
    /// being emptied before they retire (`evacuate`), which hold data
    /// but will never take more.
    fn lost_superblocks(&self) -> u64 {
        // (GC may have taken one off the list's superblocks: it stays
        // lost, and counts once when its erase fails and retires it.)
        let emptying = self
            .evacuate
            .iter()
            .filter(|&&sb| self.blocks.state(sb) != blocks::SbState::Bad)
            .count();
        self.blocks.bad_count() + emptying as u64
    }

    /// Refuses writes once more superblocks are bad than the constraints
    /// can spare: the device is worn out (reads still work).
    fn check_not_worn_out(&self) -> Result<()> {
        if let Some(why) = &self.worn_out {
            return Err(FtlError::WornOut(why.clone()));
        }
        let bad = self.lost_superblocks();
        if bad > self.spare {
            return Err(FtlError::WornOut(format!(
                "{bad} superblocks are bad and the configuration can spare {}",
                self.spare
            )));
        }
        Ok(())
    }

    /// The epoch bound for erases (`Blocks::is_settled`): a superblock is
    /// erased only if it became erasable before it. That is
    /// `proven_below` (every epoch before the one that freed it is proven
    /// durable), and while a chain of in-page or OOB commits waits for its
    /// consolidation page, no later than the chain's first epoch: *the
    /// erase hold* (docs/FORMAT.md §4.3). The region's newest commit names
    /// the pages it mapped, and such a page can become erasable only at a
    /// later commit, which in the chain is an in-page or OOB one; so the
    /// hold keeps every page that commit or a chain record names, which is
    /// the proofs' erase guard of the chain phase (PL's `EraseGuard`,
    /// proofs/README.md). `Scftl::release_hold` is the way out.
    pub(super) fn erase_bound(&self) -> u64 {
        self.proven_below.min(self.held_from())
    }

    /// The epoch from which `erase_bound` holds erasable superblocks
    /// (`u64::MAX`: none held).
    pub(super) fn held_from(&self) -> u64 {
        if self.delta.backlog.is_empty() || self.mutant == Mutant::EraseHeldSuperblock {
            u64::MAX
        } else {
            self.delta.hold_from
        }
    }

    /// The erase hold's way out, when a superblock must be activated and
    /// every erasable one is held (`Blocks::only_held_left`): the chain's
    /// consolidation page, then a sync, so the region's newest commit is
    /// that page, which names no page, and the chain is empty — the proofs'
    /// consolidation step followed by PL's erase (`SCFTL.Impl.
    /// LazyChainKonsErase`); over blocks, a SYNC of the chain phase after
    /// which nothing is held, then the superblock's erase (`SCFTL.Impl.
    /// OneModelHoldBlocks`: `release`, `release-erase`). A broken region
    /// takes no page; the backlog then stays and so does the hold (the
    /// caller erases anyway, see `open_active`).
    pub(super) fn release_hold(&mut self) -> Result<()> {
        #[cfg(debug_assertions)]
        let wp = self.delta.wp;
        self.delta.consolidate(&mut self.flash, &self.layout)?;
        #[cfg(debug_assertions)]
        {
            // None where a broken region took no page.
            self.ghost.release_page = (self.delta.wp > wp).then(|| self.layout.delta_page(wp));
        }
        if self.mutant != Mutant::ReleaseHoldSkipsSync {
            self.sync_flash()?;
        }
        self.stats.hold_releases += 1;
        Ok(())
    }

    /// Whether the geometry leaves room for in-page commits: a padding slot
    /// besides a data slot, the OOB marker, and a record of one pair.
    fn inpage_possible(&self) -> bool {
        self.layout.spp >= 2
            && self.mb_oob.len()
                >= self.layout.spp as usize * format::DATA_OOB_LEN + format::INPAGE_MARKER_LEN
            && format::inpage_capacity(self.layout.sector_size) >= 1
    }

    /// The configuration in the label.
    pub fn config(&self) -> &ScftlConfig {
        &self.config
    }

    /// What the image's configuration version holds on flash
    /// (`Features::CURRENT` for an image this build formatted).
    pub fn features(&self) -> Features {
        self.features
    }

    /// Every erase block that holds the label, the checkpoint slots or the
    /// delta region now.
    pub fn metadata_blocks_now(&self) -> Vec<BlockId> {
        self.layout.metadata_blocks()
    }

    /// Full checkpoints that moved the metadata regions (wear leveling),
    /// since open.
    pub fn metadata_rotations(&self) -> u64 {
        self.wear_stats.meta_rotations
    }

    /// Gives the flash back (unflushed data is lost, as in a crash).
    pub fn into_flash(self) -> F {
        self.flash
    }

    /// The flash device, for [`flash::Flash::submit`] between requests
    /// (`AnyFtl` ends every request with it); commands that change pages
    /// through it bypass the FTL's state.
    pub fn flash_mut(&mut self) -> &mut F {
        &mut self.flash
    }

    /// Every erase block that holds the label, the checkpoint slots or the
    /// delta region on a device formatted with `config` (no bad blocks),
    /// until wear leveling rotates the metadata regions (then
    /// [`Scftl::metadata_blocks_now`]).
    pub fn metadata_blocks(g: &Geometry, config: &ScftlConfig) -> Vec<BlockId> {
        Layout::new(g, config).metadata_blocks()
    }

    /// Runs `f` unless an earlier flash error poisoned the object; poisons
    /// it when `f` fails inside the flash or leaves state half-updated.
    fn guarded<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if let Some(power_loss) = self.poisoned {
            return Err(if power_loss {
                FtlError::Flash(FlashError::PowerLoss)
            } else {
                FtlError::Corrupt(
                    "an earlier flash command failed, so the in-memory state is undefined; drop this device and open the flash again".into(),
                )
            });
        }
        let r = f(self);
        match &r {
            // A program or erase the flash failed where SCFTL cannot move
            // (metadata: delta pages, checkpoints, their erases; or a data
            // page when the epoch had no room left): the volatile state is
            // still the one reads need, but no epoch can commit any more.
            Err(FtlError::Flash(e)) if e.is_media_failure() => {
                return Err(self.read_only(e.to_string()));
            }
            Err(FtlError::Flash(e)) => self.poisoned = Some(e.is_power_loss()),
            Err(FtlError::NoSpace(_)) | Err(FtlError::Corrupt(_)) => self.poisoned = Some(false),
            _ => {}
        }
        r
    }
}

impl<F: Flash> BlockDevice for Scftl<F> {
    fn sector_size(&self) -> usize {
        self.layout.sector_size
    }

    fn num_sectors(&self) -> u64 {
        self.config.logical_sectors
    }

    fn read(&mut self, lba: Lba, buf: &mut [u8]) -> Result<()> {
        // Reads change nothing a begun flush relies on.
        self.guarded(|s| s.read_impl(lba, buf))
    }

    fn write(&mut self, lba: Lba, data: &[u8]) -> Result<()> {
        self.guarded(|s| s.write_impl(lba, data))
    }

    fn trim(&mut self, lba: Lba, count: u64) -> Result<()> {
        self.guarded(|s| s.trim_impl(lba, count))
    }

    fn flush(&mut self) -> Result<()> {
        self.guarded(|s| s.flush_impl(true))
    }

    fn epoch_barrier(&mut self) -> Result<()> {
        self.guarded(|s| s.flush_impl(false))
    }

    fn read_shared(&self, lba: Lba, buf: &mut [u8]) -> Option<Result<()>> {
        if self.poisoned.is_some() {
            // The exclusive path gives the poisoned device's error.
            return None;
        }
        self.read_shared_impl(lba, buf)
    }

    /// From the volatile L2P: what a read now returns (an unmapped sector
    /// reads as zeros, `read_impl`).
    fn allocation(&self, lba: Lba, count: u64) -> Option<Result<Vec<(u64, bool)>>> {
        if self.poisoned.is_some() {
            return None;
        }
        if let Err(e) = check_range(lba, count, self.config.logical_sectors) {
            return Some(Err(e));
        }
        let mapped = (lba.0..lba.0 + count).map(|la| self.l2p[La(la as u32)].is_mapped());
        Some(Ok(mapped_runs(mapped)))
    }

    fn begin_flush(&mut self) -> Result<FlushStep> {
        self.guarded(|s| s.flush_detached())
    }

    fn begin_sync_behind(&mut self) -> Result<Option<FlushTicket>> {
        self.guarded(|s| s.sync_behind_ticket())
    }

    fn finish_flush(&mut self, ticket: FlushTicket, waited: Result<()>) -> Result<()> {
        self.guarded(|s| {
            waited?;
            s.flash.finish_sync(&ticket.sync)?;
            s.note_ticket_sync(&ticket);
            s.erase_ahead()
        })
    }

    fn epoch_remaining(&self) -> Option<u64> {
        Some(u64::from(self.config.write_bound).saturating_sub(self.updates))
    }

    fn set_wear_policy(&mut self, policy: crate::WearPolicy) -> Result<()> {
        Scftl::set_wear_policy(self, policy);
        Ok(())
    }

    fn stats(&self) -> DeviceStats {
        let b = &self.blocks;
        let n = b.state_counts();
        let mut stats = DeviceStats {
            kind: Some(FtlKind::Scftl),
            user_sectors_written: self.stats.user_sectors_written,
            user_sectors_read: self.stats.user_sectors_read
                + self
                    .shared_sectors_read
                    .load(std::sync::atomic::Ordering::Relaxed),
            user_sectors_trimmed: self.stats.user_sectors_trimmed,
            flushes: self.stats.flushes,
            gc_sectors_relocated: self.stats.gc_sectors_relocated,
            gc_blocks_reclaimed: self.stats.gc_blocks_reclaimed,
            gc_la_searches: self.stats.gc_la_searches,
            gc_victim_fallbacks: self.stats.gc_victim_fallbacks,
            full_checkpoints: self.stats.full_checkpoints,
            meta_pages_written: self.delta.pages_written + self.stats.checkpoint_pages_written,
            data_page_commits: self.stats.data_page_commits,
            oob_page_commits: self.stats.oob_page_commits,
            valid_sectors: b.valid_counts().iter().map(|&v| u64::from(v)).sum(),
            free_blocks: n.free,
            used_blocks: n.used + n.active,
            invalid_blocks: n.invalid,
            erasable_blocks: n.erasable,
            // The ftl crate reads no clocks; callers time `open` themselves.
            last_recovery_ns: 0,
            flash: self.flash.counters(),
            wear: self.wear_stats,
            program_failures: self.stats.program_failures
                + self.stats.meta_program_failures
                + self.delta.failed_programs,
            erase_failures: self.stats.erase_failures,
            erased_ahead: self.stats.erased_ahead,
            hold_releases: self.stats.hold_releases,
            unsynced_epochs: u64::from(self.unsynced_epochs),
            bad_blocks: n.bad,
            ..DeviceStats::default()
        };
        stats.set_erase_counts(&b.data_erase_counts());
        stats
    }

    fn check_invariants(&mut self) -> Result<(), String> {
        self.check_invariants_impl()
    }

    fn refine_view(&self) -> Option<crate::refine::RefineView> {
        self.refine_view_impl()
    }

    fn refine_checkpoints(&mut self) -> Option<Result<crate::refine::CheckpointView>> {
        self.refine_checkpoints_impl()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flash::MemFlash;

    /// `tiny`, two flushes filling the first data superblock and a region
    /// commit writing sector 40 into the next: that commit's link (the
    /// page an in-page commit of the next epoch would start at) is erased.
    fn after_a_region_commit() -> (Scftl<MemFlash>, Psa) {
        let g = Geometry::tiny();
        let mut d = Scftl::format(MemFlash::new(g).unwrap(), ScftlConfig::default_for(&g)).unwrap();
        let ss = d.sector_size();
        for (r, v) in [(0..16u64, 1u8), (16..32, 2), (40..41, 3)] {
            for la in r {
                d.write(Lba(la), &vec![v; ss]).unwrap();
            }
            d.flush().unwrap();
        }
        let link = d.chain_link;
        assert!(link.is_mapped(), "the region commit wrote a link");
        (d, link)
    }

    /// A commit record the walk does not apply, lying where it looks, makes
    /// `open` write a full checkpoint (the proofs' `Quiet`: recovery goes on
    /// in the generation only where no record lies there); without one,
    /// `open` writes nothing. The record is planted: the in-page marker in
    /// the link page's OOB over a page whose record does not parse, as a
    /// torn in-page commit leaves it.
    #[test]
    fn a_record_the_walk_rejected_makes_open_write_a_checkpoint() {
        let (d, _) = after_a_region_commit();
        let flash = d.into_flash();
        let programs = flash.counters().programs;
        let d = Scftl::open(flash).unwrap();
        let s = d.stats();
        assert_eq!(
            (s.full_checkpoints, s.flash.programs),
            (0, programs),
            "{s:?}"
        );

        let (d, link) = after_a_region_commit();
        let (addr, _) = d.layout.locate(link);
        let marker = d.layout.spp as usize * format::DATA_OOB_LEN;
        let mut flash = d.into_flash();
        let g = *flash.geometry();
        let mut oob = vec![0xFFu8; g.oob_size as usize];
        format::inpage_marker::MAGIC
            .at(marker)
            .put_bytes(&mut oob, &format::INPAGE_MAGIC);
        let data = vec![0x5Au8; g.page_size()];
        flash.program(addr, &data, &oob).unwrap();
        flash.sync().unwrap();
        let mut d = Scftl::open(flash).unwrap();
        let s = d.stats();
        assert_eq!(s.full_checkpoints, 1, "{s:?}");
        let mut buf = vec![0u8; d.sector_size()];
        for (la, v) in [(0u64, 1u8), (20, 2), (40, 3), (41, 0)] {
            d.read(Lba(la), &mut buf).unwrap();
            assert!(buf.iter().all(|&b| b == v), "sector {la}");
        }
    }
}
