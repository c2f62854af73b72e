//! What the crash checker's refinement oracle (`scftl crashtest --oracle
//! refine`, `crashcheck::model::refine`) reads of an FTL's internal state
//! between operations: the concrete state its abstraction function maps to
//! a state of the proven model P (proofs/SCFTL/Impl/Model.agda).
//!
//! Only SCFTL has one ([`crate::BlockDevice::refine_view`]); the baselines
//! and builds without debug assertions return `None`. A view is a copy,
//! taken between operations, so the oracle never holds a borrow of the
//! device; on `tiny` it is a few kilobytes.

/// A superblock's state, as the block table of two-phase GC has it
/// (SCFTL's own type, `scftl::blocks`).
pub use crate::scftl::SbState as SbKind;

/// The full checkpoints on the flash as recovery reads them
/// ([`crate::BlockDevice::refine_checkpoints`]): every one whose commit
/// record and L2P pages are intact, newest first, with its generation and
/// its L2P (logical sector ↦ physical sector or [`crate::UNMAPPED`]).
/// The refinement oracle checks the proofs' slot relation on it (`Stands`
/// of `SCFTL.Impl.SlotOver`): the newest is P's live checkpoint cell (its
/// generation and map), every other one older.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointView {
    pub committed: Vec<(u64, Vec<u32>)>,
}

/// SCFTL's internal state between two operations (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefineView {
    /// Physical sectors per superblock: sector `psa` lies in superblock
    /// `psa / sectors_per_sb`.
    pub sectors_per_sb: u32,
    /// The volatile L2P: logical sector ↦ physical sector, or
    /// [`crate::UNMAPPED`].
    pub l2p: Vec<u32>,
    /// The ghost stable L2P (the L2P at the last commit), in builds with
    /// the `ghost` feature and debug assertions; `None` elsewhere.
    pub stable: Option<Vec<u32>>,
    /// The physical sectors the write streams' merge buffers hold (placed,
    /// not programmed yet).
    pub buffered: Vec<u32>,
    /// Each superblock's state.
    pub states: Vec<SbKind>,
    /// Each superblock's valid count (logical sectors the volatile L2P
    /// maps into it, as the block table counts them).
    pub valid: Vec<u32>,
    /// Erases of each superblock since the device was formatted or
    /// opened (an erase shows as a step up).
    pub erases: Vec<u64>,
    /// `erases` as they were at the last commit (or at format or open):
    /// an operation that commits erased before its commit what this shows
    /// over the previous view, after it what `erases` shows over this.
    pub erases_at_commit: Vec<u64>,
    /// Sector updates charged to the current epoch (`W -
    /// epoch_remaining()`).
    pub updates: u64,
    /// Commits since the device was formatted or opened: durable flushes,
    /// epoch barriers and checkpoint commits, one each.
    pub commits: u64,
    /// The live checkpoint's generation.
    pub generation: u64,
    /// Sectors static wear leveling and the emptying of superblocks with a
    /// bad block moved in this epoch: they are charged to `updates`, as
    /// writes are, but P's relocations (`rl0`) do not count in its `wcnt`.
    pub moves_charged: u64,
    /// The moves of the current epoch (GC's relocations, wear leveling's
    /// and the emptying of superblocks with a bad block), in order, as
    /// `(logical sector, physical sector it left, physical sector it went
    /// to)`; and those of the epoch that committed last, as they were at
    /// its commit. A move that a later change of the same sector in the
    /// same operation overrides (a write of the request, another move, a
    /// placement again after a failed program) is not in the L2P at the
    /// operation's end, but its page may be where the epoch's chain commit
    /// starts; and the page it left tells whether it moved the sector's
    /// old copy or one the same request had just written.
    pub moves: Vec<(u32, u32, u32)>,
    pub moves_before_commit: Vec<(u32, u32, u32)>,
    /// Sectors placed again after a failed program of their merge buffer
    /// page (each charged to `updates`, with a new delta pair), since the
    /// device was formatted or opened; and that count at the last commit
    /// (as `erases_at_commit`). Each is P's `wr0` of the same content.
    pub replaced: u64,
    pub replaced_at_commit: u64,
    /// Data pages whose program the flash failed, by the physical sector
    /// of their first slot, oldest first, since the device was formatted
    /// or opened (whatever SCFTL did about it): each holds garbage.
    pub failed_programs: Vec<u32>,
    /// Physical sectors per flash page.
    pub sectors_per_page: u32,
    /// The delta pairs of the current epoch, in order — those of its
    /// tentative delta pages and those still in the delta buffer —
    /// `(logical sector, physical sector or UNMAPPED for a trim)`; `None`
    /// while the delta region is broken (the epoch then commits by a full
    /// checkpoint of the L2P).
    pub epoch_pairs: Option<Vec<(u32, u32)>>,
    /// The used superblock static wear leveling is emptying, over several
    /// epochs: it holds sectors already moved out (invalid, then erasable
    /// in P) beside those still mapped.
    pub moving: Option<usize>,
    /// Used superblocks with a bad erase block (a program failed there, or
    /// the device reports one) that SCFTL is emptying, after each flush,
    /// before it retires them (`Bad`); like `moving`, each holds sectors
    /// already moved out beside those still mapped.
    pub evacuating: Vec<usize>,
    /// The device turned read-only after a media failure.
    pub read_only: bool,
    /// The link the last commit wrote (docs/FORMAT.md §4.8: where the next
    /// epoch's first data page goes, the page an in-page or OOB commit of
    /// the next epoch must start at), or [`crate::UNMAPPED`] where it
    /// wrote none (a full checkpoint, or no data page left in the active
    /// superblock): P's `lnk`.
    pub chain_link: u32,
    /// In-page and OOB commits since the device was formatted or opened,
    /// and the facts of the last one (an operation commits at most once).
    pub chain_commits: u64,
    pub last_chain: Option<ChainCommit>,
    /// Consolidation pages written (and synced) since the device was
    /// formatted or opened because a superblock had to be activated and
    /// the erase hold kept every erasable one (`Scftl::release_hold`,
    /// docs/FORMAT.md §4.3): an operation where it grew wrote that page
    /// before any erase.
    pub hold_releases: u64,
    /// The consolidation page the last of those programmed (`None`: none
    /// yet, or the region was broken and took none). The checker looks
    /// in the flash's own command log for a sync through it before the
    /// next erase (the proofs' way out in two steps: `release`, a SYNC,
    /// then `release-erase`).
    pub release_page: Option<flash::PageAddr>,
    /// Per superblock: how many of the `commits` were durable (synced)
    /// when allocation last erased it. A superblock GC freed at a commit
    /// may be erased only once that commit is durable (a crash may return
    /// to any state since the last sync, and one before the freeing commit
    /// still maps into it): P's invariant `GcI` across epoch barriers.
    pub erase_durable: Vec<u64>,
    /// The delta region's pages, `None` while it is broken (the epoch then
    /// commits by a full checkpoint).
    pub region: Option<RegionView>,
}

/// The delta region as the refinement oracle checks it against the
/// region invariant of the proofs' PS (`RInv` of
/// proofs/SCFTL/Impl/SpaceRegion.agda: `length dr + epm <= D + length
/// ept`, the region with room for the rest of the epoch; tentative pages
/// full and the buffer under a page, `Tent`; at most epm - 1 tentative
/// pages, `tp-bound`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionView {
    /// Pages of the region (D).
    pub pages: u32,
    /// Pages programmed since its last full checkpoint (the write pointer).
    pub used: u32,
    /// Pages the current epoch programmed there (its tentative pages).
    pub epoch_pages: u32,
    /// A consolidation page is owed (epochs committed in-page or in the
    /// OOB since the last region page): written before the next region
    /// page. P writes it at the commit, so it counts in P's region.
    pub consolidation_owed: bool,
    /// The superblocks holding the records the owed consolidation page is
    /// for (delta.rs `backlog_sbs`: the active superblock's at run time,
    /// the recovered tail's, `tail_sb`, after an open), which recovery
    /// reads until that page is written.
    pub backlog_sbs: Vec<usize>,
    /// epoch_pages_max (config.rs): the most pages one epoch writes there,
    /// its commit page included.
    pub epoch_pages_max: u64,
    /// Delta pairs a page holds, and the pairs in the delta buffer now
    /// (not yet on a page).
    pub pairs_per_page: u32,
    pub buffered_pairs: u32,
}

/// What an in-page or OOB commit saw when it programmed the page holding
/// its record (docs/FORMAT.md §4.8–4.9): the facts P's guards `InP` and
/// `OobP` speak of (proofs/SCFTL/Impl/Model.agda).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainCommit {
    /// An OOB commit (§4.9); else in-page (§4.8).
    pub oob: bool,
    /// The first physical sector of the data page holding the record
    /// (P's `M`; for an in-page commit also `L`).
    pub page: u32,
    /// The link the commit started from (`L`: the last commit's link).
    pub link: u32,
    /// Tentative delta pages the epoch had programmed (P's `ept`).
    pub tentative_pages: u32,
    /// Earlier epochs not yet durable when the record was programmed (P
    /// has none: every commit of P syncs).
    pub unsynced_before: u32,
    /// The epoch's delta pairs the record commits, in order
    /// `(logical sector, physical sector)` (P's `dbuf`).
    pub pairs: Vec<(u32, u32)>,
}

impl RefineView {
    /// The superblock holding physical sector `psa`.
    pub fn sb_of(&self, psa: u32) -> usize {
        (psa / self.sectors_per_sb) as usize
    }
}
