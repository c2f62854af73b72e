//! Seeded bugs ("mutants") for the crash checker's self-test.
//!
//! A checker that cannot fail proves nothing: each mutant below breaks one
//! mechanism the crash contract rests on, and `crashcheck` must catch every
//! one of them. Production code paths pass [`Mutant::None`]; a mutant is
//! chosen only through the `*_with_mutant` constructors of each FTL, never
//! persisted, and never reachable from the CLI except `scftl crashtest
//! --mutant`.

/// A deliberately broken behaviour an FTL can be built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Mutant {
    /// The real thing.
    #[default]
    None,
    /// SCFTL: a durable flush does not sync after its committed delta page,
    /// so it returns before the epoch is durable. (The name is historical:
    /// the flush used to sync before and after the committed page.)
    SkipSyncBeforeCommit,
    /// SCFTL: GC erases a victim as soon as it is relocated, instead of
    /// waiting for the next flush (two-phase GC broken).
    EraseVictimBeforeFlush,
    /// SCFTL: recovery applies tentative delta pages that no committed page
    /// activated.
    HonourTentativeDeltas,
    /// SCFTL: a full checkpoint is written over the live slot instead of the
    /// shadow slot.
    FullCheckpointOverLiveSlot,
    /// SCFTL: trim changes the volatile L2P but records no delta.
    ForgetTrimDelta,
    /// SCFTL: recovery does not verify metadata checksums / sequence numbers.
    SkipCrcCheck,
    /// SCFTL: a flush makes the epoch's GC victims erasable when it starts,
    /// before its commit, so a program in the flush that needs a new
    /// superblock (a pad page after a failed program) may erase a victim
    /// the stable L2P still points into (an independent audit's bug).
    VictimsErasableBeforeCommit,
    /// SCFTL: an in-page or OOB commit syncs first only when more than one
    /// epoch is unsynced, so a commit right after one barrier claims an
    /// unsynced epoch durable (an independent audit's bug).
    InpageSyncPastOneEpoch,
    /// SCFTL: recovery's scan of the delta region takes a delta page
    /// without checking its CRC (an independent audit's bug), so a page a
    /// power cut tore after its header reads as a page of pairs.
    DeltaScanSkipsCrc,
    /// Async: GC erases a victim before the relocated data is synced.
    AsyncEraseBeforeSync,
    /// Sync: a write returns before its page program is synced (and the merge
    /// buffer is kept in volatile RAM, not the battery-backed buffer).
    SyncSkipSync,
    /// SCFTL: recovery applies the epochs that may not be durable without
    /// checking their data against the committed page's epoch digest.
    AcceptEpochDigestMismatch,
    /// SCFTL: after falling back past an epoch whose digest failed, recovery
    /// does not start a new generation, so the dropped epoch's pages stay in
    /// the delta region's chain.
    SkipFallbackCheckpoint,
    // Mutants of the crash checker's blind spots (issue 16): each is caught
    // only by one of the checks added for it.
    /// SCFTL: trim unmaps a sector but leaves its superblock's valid count
    /// as it was (caught by `check_invariants` between operations).
    TrimForgetsValidCount,
    /// SCFTL: a write past the epoch bound applies the sectors that fit and
    /// only then reports `EpochFull` (Fig. 4 says a refused write changes
    /// nothing).
    PartialWritePastEpochBound,
    /// SCFTL: recovery resumes the epoch id of a crashed epoch, so the
    /// crashed epoch's tentative delta pages are carried into the next
    /// epoch and its commit covers them (needs a second crash to show).
    RecoveryReusesCrashedEpoch,
    /// SCFTL: opening a new active superblock never syncs before erasing
    /// one, even when epochs ended by barriers are not durable yet and a
    /// crash may fall back to a state that still points into it.
    EraseWithoutSyncAfterBarrier,
    /// SCFTL: recovery accepts an in-page commit record whose data CRC does
    /// not match the page's data and OOB (a page torn or reordered below
    /// its record).
    AcceptCommitWithBadDataCrc,
    /// SCFTL: the in-page commit record's data CRC covers the page's data
    /// but not its sectors' OOB records (writer and reader alike), so a
    /// page whose data landed and whose OOB did not is committed, and its
    /// sectors then fail their own checks (an independent audit's bug).
    InpageCrcOmitsOob,
    /// SCFTL: the data path erases a superblock to reuse it without
    /// checking its blocks' bad marks, trusting the device to refuse a bad
    /// one. NAND that refuses bad blocks hides it; silent bad blocks
    /// (`--silent-bad-blocks`) do not.
    EraseMarkedBadBlock,
    /// SCFTL: recovery's chain walk accepts an in-page record of another
    /// generation or epoch at a link (a stale page: an older life of the
    /// page, left by an unsynced erase a crash undid).
    AcceptStaleInpageRecord,
    /// SCFTL: an in-page or OOB commit is programmed without syncing first
    /// while earlier epochs (ended by barriers) are not durable, though its
    /// record claims they are.
    InpageCommitBeforeSync,
    /// SCFTL: recovery accepts the last OOB commit of a chain (docs/FORMAT.md
    /// §4.9) without reading its epoch's sectors back, so a data write the
    /// power cut lost below intact OOB records goes unnoticed.
    AcceptOobCommitWithTornData,
    /// SCFTL: `open` on an image file (where a lost program can come back)
    /// keeps the recovered generation instead of starting a new one, so
    /// the places the crashed run programmed without a sync are programmed
    /// again under identities recovery accepts.
    KeepGenerationOnImageOpen,
    /// SCFTL: `open` leaves epochs it applied only because they verified
    /// (two or more) unproven on flash, so the FTL may erase sectors the
    /// earlier ones cover and the next recovery falls back past them.
    KeepVerifiedEpochsUnproven,
    /// SCFTL: an OOB commit record covers only its own page's records, and
    /// recovery's walk passes over earlier pages of the epoch whose records
    /// are missing (a chain followed past a lost or torn page).
    OobCommitPastMissingPage,
    /// SCFTL: a data page program that the flash failed is taken as done
    /// (the page's sectors stay mapped to the consumed page).
    IgnoreProgramFailure,
    /// SCFTL: a run of whole pages programmed in one command
    /// (`program_many`, the data path's direct writes) that the flash
    /// failed is mapped as if every page were programmed (an independent
    /// audit's bug; `ignore-program-failure` is the one-page path's).
    IgnoreRunProgramFailure,
    /// SCFTL: after a program failure the erase block is not retired on the
    /// device (`Flash::mark_bad` skipped), so once reopened the FTL fills
    /// it again (the bad-block table is not persisted).
    ForgetBadBlockMark,
    /// SCFTL: when a failed program broke the delta region and the epoch
    /// commits by a full checkpoint (docs/FORMAT.md §4.10), the pairs left
    /// in the delta buffer stay there, so the next epoch's first page
    /// carries stale pairs of the checkpointed one.
    BrokenRegionKeepsPairs,
    /// SCFTL: a full checkpoint that rotates the metadata (docs/FORMAT.md
    /// §4.5) erases the old delta region with the fresh superblocks, before
    /// its commit point, so a cut before the commit loses the epochs the
    /// old checkpoint's deltas held.
    RotationErasesOldDeltaEarly,
    /// SCFTL with two write streams: the flush pads and programs only the
    /// host stream's merge buffer, so the epoch commits with relocated
    /// sectors still in the cold stream's buffer in RAM.
    FlushSkipsColdBuffer,
    /// SCFTL: `open` leaves the epochs it recovered from in-page and OOB
    /// records to the next commit's consolidation page even when their
    /// superblock holds no mapped sector, and without the erase hold
    /// that keeps every superblock until that page (so it may be erased
    /// first). Either guard alone keeps the records; the mutant drops both.
    LazyConsolidationOfEmptyChain,
    /// Async and sync with two write streams: a collected GC victim is
    /// erased without waiting for the GC buffer's page that holds its last
    /// relocated sectors (at the next sync, or at once for the sync FTL),
    /// so a cut loses them.
    ReleaseBeforeGcPage,
    /// OPTR: recovery ignores the coalescing records, so a request whose
    /// sector was coalesced in the cache looks incomplete (and Algorithm 1
    /// may keep it without the request that overwrote it).
    OptrIgnoreCoalescingRecords,
    /// OPTR: GC may collect segments written after the latest checkpoint,
    /// erasing stale pages recovery counts to decide completeness.
    OptrGcErasesAfterCheckpoint,
    /// OPTR: recovery counts a request complete with one page missing.
    OptrRequestCompleteWithMissingPage,
    /// OPTR: GC collects its victims without flushing first.
    OptrSkipInternalFlushBeforeGc,
    /// OPTR: GC's relocations are left out of the next incremental
    /// checkpoint, so after a crash the L2P points into erased victims.
    OptrIncrementalOmitsRelocations,
    // Mutants of internal state only (issue 39): no read shows them at
    // first; the refinement oracle (`--oracle refine`) catches each at the
    // operation that makes it.
    /// SCFTL: a GC victim joins the erasable queue as soon as its sectors
    /// are relocated, instead of at the next commit (two-phase GC broken;
    /// it is erased only when allocation reaches it in the queue, so for a
    /// while nothing a read or a recovery sees is wrong).
    VictimErasableAtOnce,
    /// SCFTL: retiring a full active superblock counts one valid sector
    /// too many in it (the sectors are all there; only the count is off,
    /// until GC picks it and a debug assertion fires at the next commit).
    ValidCountOffByOne,
    /// SCFTL: after a commit the region is continued while
    /// epoch_pages_max pages remain, one fewer than `after_commit`'s rule
    /// (epoch_pages_max + 1: the next epoch may write a consolidation page
    /// besides its own). After a region commit that one page is slack; after
    /// an in-page or OOB commit, whose consolidation page is still owed, the
    /// next epoch may need one page more than the region has, which the
    /// region's own check reports only in an epoch that writes its full
    /// epoch_pages_max. The proofs' mutant 45 (`RegionCommitPageOnly`) is
    /// the same rule weakened further.
    RegionRoomOffByOne,
    /// SCFTL: a full checkpoint writes the first mapped sector of the L2P
    /// as unmapped into its slot, while the L2P in memory keeps it: the
    /// device reads right until a recovery starts from that checkpoint.
    /// The proofs' slot relation (`Stands` of `SCFTL.Impl.SlotOver`: the
    /// live slot parses to P's checkpoint cell) fails at once.
    CheckpointDropsEntry,
    /// SCFTL: recovery leaves the first superblock the recovered L2P does
    /// not reference in use (Used, valid count 0) instead of erasable
    /// (blocks.rs `rebuild`): nothing reads it, and GC takes it back as a
    /// victim later, so no read shows it, but the space the recovery
    /// should have reclaimed is gone until then. The proofs' recovery
    /// reclaims every page the recovered L2P does not name (`reclaim`,
    /// `SCFTL.Impl.Model`); the refinement oracle checks the rebuild
    /// against it at every recovery.
    RebuildKeepsUnreferenced,
    /// SCFTL: when a detached flush's sync returns (a flush ticket,
    /// `BlockDevice::finish_flush`), the next region page is flagged as
    /// written after a sync even though epochs ended while the sync ran,
    /// so recovery takes those unsynced epochs as proven durable and
    /// applies them without checking their data.
    TicketProvesLaterEpochs,
    /// SCFTL: a detached flush commits in-page or in the OOB when no
    /// earlier epoch is unsynced, so its pairs may reach the region in a
    /// consolidation page (which recovery takes as proven) before its sync
    /// returns: recovery then maps sectors whose data never landed. (The
    /// concurrent crash test found this in the first version of the
    /// write pipeline.)
    DetachedFlushCommitsInline,
    /// SCFTL: an in-page or OOB commit is taken although the epoch already
    /// programmed a tentative delta page (its buffer overflowed): the
    /// record names only the pairs still in the buffer, and the tentative
    /// page's epoch never gets a committed region page, so a recovery
    /// loses the sectors only it maps. P's guards `InP`/`OobP` require
    /// `ept s ≡ []` (the Agda mutant 15, `OobCommitWithTentativePage`, is
    /// the same bug in the model).
    ChainCommitWithTentativePage,
    /// SCFTL: the erase ahead runs when a sync behind barriers *starts*,
    /// not when it returns, and takes superblocks the barriers' unsynced
    /// epochs freed: a power cut before the sync lands may return to a
    /// barrier whose L2P still maps into an erased superblock.
    EraseAheadBeforeSync,
    /// SCFTL: pointing a logical sector at a physical one leaves the
    /// shared reads' checksum cache (`CrcCache`) as it was, so a sector
    /// placed where an erased one had been read keeps that sector's
    /// checksum, and a shared read of it fails its check.
    StaleChecksumCache,
    /// SCFTL: recovery takes an unreferenced superblock whose first page
    /// reads erased as erased (free, not erasable), so `activate_next`
    /// programs it without erasing it; a power cut that caught its erase
    /// before a sync may have left other pages of it holding their old
    /// sectors. The proofs' block layer over PX erases a block taken at
    /// write pointer 0 for this reason (`act`, SCFTL.Impl.BlocksOver; the
    /// concrete run SCFTL.Impl.OneModelBlocksReuse).
    TrustErasedFirstPage,
    /// SCFTL: the erase hold is ignored (`Scftl::erase_bound`): while a
    /// chain of in-page or OOB commits waits for its consolidation page,
    /// a superblock freed by one of them, or after a reopen that kept the
    /// chain's tail any erasable one, may be erased, and with it a page
    /// that the region's newest commit names. The code's recovery survives
    /// that (it takes that commit as proven by the chain's first record),
    /// so no read ever shows it; it is a step outside the proven model
    /// (PL's `EraseGuard`), which the refinement oracle reports. Random
    /// runs reach it at the first write after such a reopen that needs a
    /// superblock.
    EraseHeldSuperblock,
    /// SCFTL: the erase hold's way out (`Scftl::release_hold`) programs
    /// the chain's consolidation page but does not sync it before the
    /// erase that needed it, so a power cut can keep the erase and lose the
    /// page (the proofs' two steps, `release` then `release-erase`, in one
    /// with the order lost). The code's recovery survives it as it
    /// survives `erase-held-superblock`; the refinement oracle finds the
    /// erase before the sync in the flash's own command log
    /// (`crashcheck::exec`, `release_synced`).
    ReleaseHoldSkipsSync,
}

impl Mutant {
    /// Every mutant, in a fixed order.
    pub const ALL: [Mutant; 19] = [
        Mutant::SkipSyncBeforeCommit,
        Mutant::EraseVictimBeforeFlush,
        Mutant::HonourTentativeDeltas,
        Mutant::FullCheckpointOverLiveSlot,
        Mutant::ForgetTrimDelta,
        Mutant::SkipCrcCheck,
        Mutant::AsyncEraseBeforeSync,
        Mutant::SyncSkipSync,
        Mutant::AcceptEpochDigestMismatch,
        Mutant::SkipFallbackCheckpoint,
        Mutant::TrimForgetsValidCount,
        Mutant::PartialWritePastEpochBound,
        Mutant::RecoveryReusesCrashedEpoch,
        Mutant::OobCommitPastMissingPage,
        Mutant::OptrIgnoreCoalescingRecords,
        Mutant::OptrGcErasesAfterCheckpoint,
        Mutant::OptrRequestCompleteWithMissingPage,
        Mutant::OptrSkipInternalFlushBeforeGc,
        Mutant::OptrIncrementalOmitsRelocations,
    ];

    /// Mutants only random mode is known to catch (not in [`Mutant::ALL`],
    /// which exhaustive mode must catch every one of): exhaustive mode
    /// does not issue epoch barriers yet, the in-page ones need states its
    /// windows do not reach, and the image ones need the image backend's
    /// power-cut model, the media-failure ones need a program failure,
    /// which only random mode injects (`--inject-failures`), and the
    /// rotation one needs wear leveling, which exhaustive mode's mutant
    /// runs do not turn on; `inpage-crc-omits-oob` needs a page torn in its
    /// OOB only, which only random mode's split tears make (`--split-tears`),
    /// and `erase-marked-bad-block` needs silent bad blocks and injected
    /// failures (`--silent-bad-blocks`; see the test files). Each has its test in
    /// `crates/crashcheck/tests/inpage_mutants.rs`, `oob_commit_mutants.rs`,
    /// `failure_mutants.rs` or `rotation_mutants.rs`. The bugs of an
    /// independent audit (`victims-erasable-before-commit`,
    /// `inpage-sync-past-one-epoch`, `delta-scan-skips-crc`,
    /// `ignore-run-program-failure`) are in `audit_mutants.rs`.
    ///
    /// Exhaustive configurations reach some of them (issue 42; the
    /// campaign checks each): `inpage-sync-past-one-epoch` and
    /// `inpage-commit-before-sync` with the defaults (the barrier run's
    /// window at a data-page commit after one barrier),
    /// `forget-bad-block-mark` with the defaults too (the failure run's
    /// invariant checks), `inpage-crc-omits-oob` with `--split-tears`,
    /// `delta-scan-skips-crc` with `--split-tears --split-unit 64`,
    /// `ignore-program-failure` and `ignore-run-program-failure` with
    /// `--spare-superblocks 2`, and `victims-erasable-before-commit` with
    /// `--spare-superblocks 2` on seed 2 (the failure-pair run). They stay out of [`Mutant::ALL`], whose
    /// members the exhaustive defaults must catch on seeds 2 and 3 in a
    /// debug test run, because their runs cost minutes there.
    ///
    /// `erase-without-sync-after-barrier` needs an erase of a superblock
    /// that an epoch ended by a barrier freed while that epoch is still
    /// unsynced. The erasable queue is FIFO and holds, on healthy flash,
    /// more superblocks than the at most three unsynced epochs free, so the
    /// erase takes an older one; bad superblocks (`--spare-superblocks`
    /// with `--inject-failures`) shorten the queue until it does not, and
    /// aimed cycles (`--aimed`) cut right after such erases
    /// (`failure_mutants.rs`).
    ///
    /// `trust-erased-first-page` needs a power cut while a superblock's
    /// erase is in flight, a recovery, and that superblock activated
    /// again (`blocks_mutants.rs`).
    pub const RANDOM_ONLY: [Mutant; 17] = [
        Mutant::EraseWithoutSyncAfterBarrier,
        Mutant::VictimsErasableBeforeCommit,
        Mutant::InpageSyncPastOneEpoch,
        Mutant::DeltaScanSkipsCrc,
        Mutant::IgnoreRunProgramFailure,
        Mutant::RotationErasesOldDeltaEarly,
        Mutant::KeepGenerationOnImageOpen,
        Mutant::AcceptOobCommitWithTornData,
        Mutant::AcceptStaleInpageRecord,
        Mutant::AcceptCommitWithBadDataCrc,
        Mutant::InpageCrcOmitsOob,
        Mutant::InpageCommitBeforeSync,
        Mutant::IgnoreProgramFailure,
        Mutant::ForgetBadBlockMark,
        Mutant::BrokenRegionKeepsPairs,
        Mutant::EraseMarkedBadBlock,
        Mutant::TrustErasedFirstPage,
    ];

    /// Mutants caught with a second write stream (hot/cold separation,
    /// `--hot-cold`), which the presets' default configurations of `tiny`
    /// and `small` do not have: SCFTL's and the baselines' own (random and
    /// exhaustive mode) and a recovery bug first reached there (random
    /// mode with `--wear-leveling`); see
    /// `crates/crashcheck/tests/hot_cold_mutants.rs`.
    ///
    /// `keep-verified-epochs-unproven` needs two clean reopens around
    /// writes that erase a superblock holding sectors of an epoch a reopen
    /// applied only because it verified (the scenario itself is
    /// `crates/ftl/tests/scftl_reopen.rs`); with two write streams an
    /// epoch's sectors spread over two superblocks, and random mode
    /// reaches it there.
    pub const HOT_COLD: [Mutant; 4] = [
        Mutant::KeepVerifiedEpochsUnproven,
        Mutant::FlushSkipsColdBuffer,
        Mutant::LazyConsolidationOfEmptyChain,
        Mutant::ReleaseBeforeGcPage,
    ];

    /// Mutants of internal state only (issue 39), which the refinement
    /// oracle (`--oracle refine`) catches at the operation that makes them,
    /// while at that operation every other check still passes
    /// (`crates/crashcheck/tests/refine_oracle.rs`).
    pub const REFINE_ONLY: [Mutant; 7] = [
        Mutant::VictimErasableAtOnce,
        Mutant::ValidCountOffByOne,
        Mutant::RegionRoomOffByOne,
        Mutant::CheckpointDropsEntry,
        Mutant::RebuildKeepsUnreferenced,
        Mutant::EraseHeldSuperblock,
        Mutant::ReleaseHoldSkipsSync,
    ];

    /// Mutants the refinement oracle catches at the commit that breaks P's
    /// guard of the in-page and OOB commits (`InP`, `OobP`), which the
    /// contract catches only after a crash lands on their records
    /// (`crates/crashcheck/tests/refine_oracle.rs`).
    pub const CHAIN_GUARD: [Mutant; 1] = [Mutant::ChainCommitWithTentativePage];

    /// Mutants of the write pipeline (detached flushes, issue 38), which
    /// only a device shared by threads reaches. The concurrent crash test
    /// under shuttle's scheduler catches each and replays its schedule
    /// (`crates/crashcheck/tests/concurrent_shuttle.rs`); with OS threads
    /// (`scftl crashtest --concurrent`) `detached-flush-commits-inline`
    /// needs a barrier's region page between an inline commit and its
    /// sync's return and turns up about once in 16,000 rounds (seed 3,
    /// 4,000 rounds of 3 threads: round 3,882).
    pub const CONCURRENT_ONLY: [Mutant; 1] = [Mutant::DetachedFlushCommitsInline];

    /// Mutants of a sync behind whose ticket is held while a later barrier
    /// ends its epoch (the ticket proves only the epochs before it,
    /// `note_ticket_sync`; the proofs' PUSB and mutant 41). The concurrent
    /// crash test catches `ticket-proves-later-epochs` at seed 1 (under
    /// shuttle and with OS threads, `tests/concurrent.rs`, the CI
    /// campaign); the sequential checker reaches it with `--sync-behind`,
    /// whose every other ticket is held until the next barrier, and the
    /// contract catches it after a recovery (seeds 3–5 of `tiny` within
    /// 6,000 operations; `crates/crashcheck/tests/barrier.rs`).
    pub const HELD_SYNC_BEHIND: [Mutant; 1] = [Mutant::TicketProvesLaterEpochs];

    /// Mutants of the erase ahead after a sync behind barriers
    /// (`Scftl::erase_ahead`), which only runs with syncs behind: the
    /// sequential checker reaches it with `--sync-behind`, and the
    /// refinement oracle catches it at the erase, by P's rule that a page
    /// GC freed may be erased only once its commit is durable (PU's `GcI`;
    /// `crates/crashcheck/tests/barrier.rs`, the CI campaign).
    pub const SYNC_BEHIND: [Mutant; 1] = [Mutant::EraseAheadBeforeSync];

    /// Mutants of the shared reads' checksum cache, which only reads with
    /// shared access use (`SharedDevice`, `scftl serve`): the concurrent
    /// crash test with a background writer (GC erases and reuses
    /// superblocks) catches it (`crates/crashcheck/tests/concurrent.rs`,
    /// the CI campaign).
    pub const SHARED_READS: [Mutant; 1] = [Mutant::StaleChecksumCache];

    /// Kebab-case name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mutant::None => "none",
            Mutant::VictimErasableAtOnce => "victim-erasable-at-once",
            Mutant::ValidCountOffByOne => "valid-count-off-by-one",
            Mutant::RegionRoomOffByOne => "region-room-off-by-one",
            Mutant::CheckpointDropsEntry => "checkpoint-drops-entry",
            Mutant::RebuildKeepsUnreferenced => "rebuild-keeps-unreferenced",
            Mutant::TicketProvesLaterEpochs => "ticket-proves-later-epochs",
            Mutant::DetachedFlushCommitsInline => "detached-flush-commits-inline",
            Mutant::ChainCommitWithTentativePage => "chain-commit-with-tentative-page",
            Mutant::EraseAheadBeforeSync => "erase-ahead-before-sync",
            Mutant::StaleChecksumCache => "stale-checksum-cache",
            Mutant::TrustErasedFirstPage => "trust-erased-first-page",
            Mutant::EraseHeldSuperblock => "erase-held-superblock",
            Mutant::ReleaseHoldSkipsSync => "release-hold-skips-sync",
            Mutant::SkipSyncBeforeCommit => "skip-sync-before-commit",
            Mutant::EraseVictimBeforeFlush => "erase-victim-before-flush",
            Mutant::HonourTentativeDeltas => "honour-tentative-deltas",
            Mutant::FullCheckpointOverLiveSlot => "full-checkpoint-over-live-slot",
            Mutant::ForgetTrimDelta => "forget-trim-delta",
            Mutant::SkipCrcCheck => "skip-crc-check",
            Mutant::AsyncEraseBeforeSync => "async-erase-before-sync",
            Mutant::SyncSkipSync => "sync-skip-sync",
            Mutant::AcceptEpochDigestMismatch => "accept-epoch-digest-mismatch",
            Mutant::SkipFallbackCheckpoint => "skip-fallback-checkpoint",
            Mutant::TrimForgetsValidCount => "trim-forgets-valid-count",
            Mutant::PartialWritePastEpochBound => "partial-write-past-epoch-bound",
            Mutant::RecoveryReusesCrashedEpoch => "recovery-reuses-crashed-epoch",
            Mutant::EraseWithoutSyncAfterBarrier => "erase-without-sync-after-barrier",
            Mutant::AcceptCommitWithBadDataCrc => "accept-commit-with-bad-data-crc",
            Mutant::InpageCrcOmitsOob => "inpage-crc-omits-oob",
            Mutant::VictimsErasableBeforeCommit => "victims-erasable-before-commit",
            Mutant::InpageSyncPastOneEpoch => "inpage-sync-past-one-epoch",
            Mutant::DeltaScanSkipsCrc => "delta-scan-skips-crc",
            Mutant::EraseMarkedBadBlock => "erase-marked-bad-block",
            Mutant::InpageCommitBeforeSync => "inpage-commit-before-sync",
            Mutant::AcceptStaleInpageRecord => "accept-stale-inpage-record",
            Mutant::AcceptOobCommitWithTornData => "accept-oob-commit-with-torn-data",
            Mutant::KeepGenerationOnImageOpen => "keep-generation-on-image-open",
            Mutant::KeepVerifiedEpochsUnproven => "keep-verified-epochs-unproven",
            Mutant::OobCommitPastMissingPage => "oob-commit-past-missing-page",
            Mutant::IgnoreProgramFailure => "ignore-program-failure",
            Mutant::IgnoreRunProgramFailure => "ignore-run-program-failure",
            Mutant::ForgetBadBlockMark => "forget-bad-block-mark",
            Mutant::BrokenRegionKeepsPairs => "broken-region-keeps-pairs",
            Mutant::RotationErasesOldDeltaEarly => "rotation-erases-old-delta-early",
            Mutant::FlushSkipsColdBuffer => "flush-skips-cold-buffer",
            Mutant::LazyConsolidationOfEmptyChain => "lazy-consolidation-of-empty-chain",
            Mutant::ReleaseBeforeGcPage => "release-before-gc-page",
            Mutant::OptrIgnoreCoalescingRecords => "optr-ignore-coalescing-records",
            Mutant::OptrGcErasesAfterCheckpoint => "optr-gc-erases-after-checkpoint",
            Mutant::OptrRequestCompleteWithMissingPage => "optr-request-complete-with-missing-page",
            Mutant::OptrSkipInternalFlushBeforeGc => "optr-skip-internal-flush-before-gc",
            Mutant::OptrIncrementalOmitsRelocations => "optr-incremental-omits-relocations",
        }
    }

    /// Every mutant of every list above (not [`Mutant::None`]).
    pub fn every() -> impl Iterator<Item = Mutant> {
        Mutant::ALL
            .into_iter()
            .chain(Mutant::RANDOM_ONLY)
            .chain(Mutant::HOT_COLD)
            .chain(Mutant::REFINE_ONLY)
            .chain(Mutant::CHAIN_GUARD)
            .chain(Mutant::CONCURRENT_ONLY)
            .chain(Mutant::HELD_SYNC_BEHIND)
            .chain(Mutant::SYNC_BEHIND)
            .chain(Mutant::SHARED_READS)
    }

    /// Parses a name from [`Mutant::name`].
    pub fn parse(s: &str) -> Option<Mutant> {
        std::iter::once(Mutant::None)
            .chain(Mutant::every())
            .find(|m| m.name() == s)
    }
}
