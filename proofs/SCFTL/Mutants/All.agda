{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the fifteen mutants of the model P (one-SYNC digest commit,
-- epoch ids, recovery with or without a full checkpoint, in-page and
-- OOB commits), each with exactly one deliberate bug, and what is proven
-- about each (see proofs/README.md, "Mutants that must fail").  Fourteen are not
-- snapshot-consistent, each by a concrete fragment whose recovered read
-- violates SC1.  One (checkpoint in place) has no SC counterexample in
-- P's crash model: it makes the disk unrecoverable instead (see its
-- module header).  Mutants 16 and 17 mutate the epoch chain PB
-- (SCFTL.Impl.EpochChain, barriers) and violate SC1B, snapshot
-- consistency with barriers (their `SnapshotConsistent` is
-- `SnapshotConsistentB`).
-- module header).  Two more for the full checkpoint: 18, a mutant of the
-- checkpoint slot's abstraction (SCFTL.Impl.CheckpointSlot), for which
-- that abstraction fails (`¬ SlotAbstraction`); 19, a mutant of P, not
-- snapshot-consistent.
-- module header).  Mutants 20 and 21 are mutants of the block-level
-- model B (SCFTL.Impl.Blocks), each with its own counterexample fragment.
-- Mutants 22 and 23 mutate the space constraints (SCFTL.Impl.Space):
-- their configurations do not always find a page (`¬ SpaceProgress`).
-- Mutant 30 mutates the constraints of the two-stream machine
-- (SCFTL.Impl.SpaceTwoStreams; `¬ SpaceProgress2`, which its module
-- names `SpaceProgress`).
-- Mutants 31 and 35 are mutants of PL (SCFTL.Impl.LazyChainModel, the
-- lazy chain as steps of a P-level model): not snapshot-consistent.
-- Mutants 32 and 33 mutate the lazy chain's layer (SCFTL.Impl.LazyChain:
-- recovery's walk along the chain of records, the consolidation page's
-- pairs): `¬ ChainSound`.
-- Mutant 40 mutates the SYNC outside a commit (PUS), mutant 41 the SYNC
-- that proves only the oldest epochs (PUSB): both violate SC1B.
-- Mutant 42 mutates the one model PX (SCFTL.Impl.OneModel): a barrier
-- from the chain phase without the consolidation page; it violates SC1B.
-- Mutant 43 mutates the block layer over PX (SCFTL.Impl.OneModelBlocks):
-- a block erased whole while it holds a live page; it violates SC1B.
-- Mutant 44 mutates the checkpoint slots in the model's state
-- (SCFTL.Impl.SlotOver): the full checkpoint written over the live
-- slot; a crash of it is no outcome of P's checkpoint read through the
-- slots (`¬ SlotCovered`).
-- Mutant 45 mutates the region rules in P's state (SCFTL.Impl.
-- SpaceRegion): the region continued while the commit page fits; a run
-- overflows the region (`¬ RegionFits`).
-- Mutant 46 mutates PU's barrier (SCFTL.Impl.SpaceRegionBarrier): the
-- barrier durable only at umax; a barrier the rules refuse
-- (`¬ BarrierLifts`).
-- Mutant 47 mutates the region rules over PL (SCFTL.Impl.
-- SpaceRegionLazy): a lazy commit forgets the page the chain owes; a run
-- leaves no region page for an epoch's commit (`¬ RoomsL`).
-- Mutant 48 mutates the data-superblock layer (SCFTL.Impl.SpaceLayer):
-- writes and epoch ends while GC is needed; a run from the first
-- recovery of a new disk leaves a wanted write no block
-- (`¬ LayerProgress`).
-- Mutant 49 mutates P's recovery (SCFTL.Impl.Model, `reclaim`): every
-- page below the next one erasable, the recovered map's included; it is
-- not snapshot-consistent.
-- Mutant 50 mutates the block layer's recovery (SCFTL.Impl.BlocksOver,
-- `forget`): every block but the open one freed, those holding a page
-- the recovered map names included; with the physical read (BXφ) it is
-- not snapshot-consistent.
-- Mutants 51, 52 and 53 mutate the data-superblock layer's GC
-- (SCFTL.Impl.SpaceLayer): 51 ends a victim before P relocated each of
-- its pages (`¬ LayerQueued`, SCFTL.Impl.SpaceQueued); 52 never retires
-- a full open block in the ghost, so GC takes no victim where it is
-- needed (`¬ GcLive`); 53 lets P's relocation take any dead page, and a
-- run spends the epoch's relocations with a page of the victim left
-- (`¬ LayerBudget`, SCFTL.Impl.SpaceGcBound).
------------------------------------------------------------------------
module SCFTL.Mutants.All where

open import Relation.Nullary using (¬_)
open import SCFTL.Mutants.Common using (SnapshotConsistent)
open import SCFTL.Impl.CheckpointSlotExample using (SlotAbstraction)
open import SCFTL.Impl.Space using (SpaceProgress)
open import SCFTL.Impl.SpaceTwoStreams using (SpaceProgress2)
open import Data.Maybe.Base using (Maybe)
open import Data.Nat.Base using (ℕ)
open import SCFTL.Impl.CheckpointSlotExample using (split2; join2; join-split2)
open import Data.Bool.Base using (Bool; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import SCFTL.Mutants.Common using (A; W; K)
open import SCFTL.Impl.LazyChain Bool false A W K _≟B_ using (ChainSound)
open import SCFTL.Impl.SlotOver Bool false A W K 1 _≟B_ 1 (Maybe ℕ) split2 join2 join-split2 using (SlotCovered)

import SCFTL.Mutants.TentativeReplayed
import SCFTL.Mutants.DigestNotChecked
import SCFTL.Mutants.GcEraseAtOnce
import SCFTL.Mutants.GenerationIgnored
import SCFTL.Mutants.OldestCheckpoint
import SCFTL.Mutants.TentativeAsCommitted
import SCFTL.Mutants.AllocRestarts
import SCFTL.Mutants.CheckpointInPlace
import SCFTL.Mutants.DigestOmitsTentative
import SCFTL.Mutants.RecoveryReusesCrashedEpoch
import SCFTL.Mutants.InpageDigestOmitsPage
import SCFTL.Mutants.InpageRecordNotConsolidated
import SCFTL.Mutants.InpageConsolidationSkipped
import SCFTL.Mutants.OobCommitPastMissingPage
import SCFTL.Mutants.OobCommitWithTentativePage
import SCFTL.Mutants.BarrierEpochMix
import SCFTL.Mutants.BarrierVictimErasedBeforeSync
import SCFTL.Mutants.CheckpointPagesUnverified
import SCFTL.Mutants.CheckpointErasesRegionEarly
import SCFTL.Mutants.BlockEraseWithLivePage
import SCFTL.Mutants.BlockEraseBeforeCommit
import SCFTL.Mutants.SpaceVictimsNotCounted
import SCFTL.Mutants.SpaceRegionOneEpoch
import SCFTL.Mutants.AllocReusesLivePage
import SCFTL.Mutants.ReadStaleLocation
import SCFTL.Mutants.BarrierNewestOnly
import SCFTL.Mutants.BarrierReleasesVictims
import SCFTL.Mutants.BarrierEpochUnrecorded
import SCFTL.Mutants.BarrierEpochsUnchained
import SCFTL.Mutants.SpaceSecondStreamNotReserved
import SCFTL.Mutants.LazyChainSkipsHole
import SCFTL.Mutants.LazyChainEraseUnguarded
import SCFTL.Mutants.LazyChainGuardMissesCommit
import SCFTL.Mutants.LazyConsolidationOmitsRecord
import SCFTL.Mutants.BarrierSplitLate
import SCFTL.Mutants.FlushTrustedBeforeSync
import SCFTL.Mutants.LazyChainOverMaxChain
import SCFTL.Mutants.LazyChainWalksOneLink
import SCFTL.Mutants.SyncReleasesMappedVictim
import SCFTL.Mutants.TicketProvesLaterEpoch
import SCFTL.Mutants.BarrierSkipsConsolidation
import SCFTL.Mutants.BlockEraseOverPX
import SCFTL.Mutants.CheckpointOverLiveSlot
import SCFTL.Mutants.RegionCommitPageOnly
import SCFTL.Mutants.BarrierDurableOnlyAtUmax
import SCFTL.Mutants.LazyCommitForgetsOwedPage
import SCFTL.Mutants.LayerIgnoresGcTiming
import SCFTL.Mutants.RecoveryReclaimsMapped
import SCFTL.Mutants.RecoveryFreesNamedBlock
import SCFTL.Mutants.LayerEndsVictimEarly
import SCFTL.Mutants.LayerWithoutRetire
import SCFTL.Mutants.LayerRelocatesAnyPage
import SCFTL.Mutants.LayerWritesAbandonedBlock
import SCFTL.Mutants.HoldForgetsChainCommit
import SCFTL.Mutants.CleanRecoveryPastRecords

module M1 = SCFTL.Mutants.TentativeReplayed
module M2 = SCFTL.Mutants.DigestNotChecked
module M3 = SCFTL.Mutants.GcEraseAtOnce
module M4 = SCFTL.Mutants.GenerationIgnored
module M5 = SCFTL.Mutants.OldestCheckpoint
module M6 = SCFTL.Mutants.TentativeAsCommitted
module M7 = SCFTL.Mutants.AllocRestarts
module M8 = SCFTL.Mutants.CheckpointInPlace
module M9 = SCFTL.Mutants.DigestOmitsTentative
module M10 = SCFTL.Mutants.RecoveryReusesCrashedEpoch
module M11 = SCFTL.Mutants.InpageDigestOmitsPage
module M12 = SCFTL.Mutants.InpageRecordNotConsolidated
module M13 = SCFTL.Mutants.InpageConsolidationSkipped
module M14 = SCFTL.Mutants.OobCommitPastMissingPage
module M15 = SCFTL.Mutants.OobCommitWithTentativePage
module M16 = SCFTL.Mutants.BarrierEpochMix
module M17 = SCFTL.Mutants.BarrierVictimErasedBeforeSync
module M18 = SCFTL.Mutants.CheckpointPagesUnverified
module M19 = SCFTL.Mutants.CheckpointErasesRegionEarly
module M20 = SCFTL.Mutants.BlockEraseWithLivePage
module M21 = SCFTL.Mutants.BlockEraseBeforeCommit
module M22 = SCFTL.Mutants.SpaceVictimsNotCounted
module M23 = SCFTL.Mutants.SpaceRegionOneEpoch
module M26 = SCFTL.Mutants.AllocReusesLivePage
module M27 = SCFTL.Mutants.ReadStaleLocation
module M24 = SCFTL.Mutants.BarrierNewestOnly
module M25 = SCFTL.Mutants.BarrierReleasesVictims
module M28 = SCFTL.Mutants.BarrierEpochUnrecorded
module M29 = SCFTL.Mutants.BarrierEpochsUnchained
module M30 = SCFTL.Mutants.SpaceSecondStreamNotReserved
module M31 = SCFTL.Mutants.LazyChainEraseUnguarded
module M32 = SCFTL.Mutants.LazyChainSkipsHole
module M33 = SCFTL.Mutants.LazyConsolidationOmitsRecord
module M34 = SCFTL.Mutants.BarrierSplitLate
module M35 = SCFTL.Mutants.LazyChainGuardMissesCommit
module M36 = SCFTL.Mutants.FlushTrustedBeforeSync
module M37 = SCFTL.Mutants.LazyChainWalksOneLink
module M39 = SCFTL.Mutants.LazyChainOverMaxChain
module M40 = SCFTL.Mutants.SyncReleasesMappedVictim
module M41 = SCFTL.Mutants.TicketProvesLaterEpoch
module M42 = SCFTL.Mutants.BarrierSkipsConsolidation
module M43 = SCFTL.Mutants.BlockEraseOverPX
module M44 = SCFTL.Mutants.CheckpointOverLiveSlot
module M45 = SCFTL.Mutants.RegionCommitPageOnly
module M46 = SCFTL.Mutants.BarrierDurableOnlyAtUmax
module M47 = SCFTL.Mutants.LazyCommitForgetsOwedPage
module M48 = SCFTL.Mutants.LayerIgnoresGcTiming
module M49 = SCFTL.Mutants.RecoveryReclaimsMapped
module M50 = SCFTL.Mutants.RecoveryFreesNamedBlock
module M51 = SCFTL.Mutants.LayerEndsVictimEarly
module M52 = SCFTL.Mutants.LayerWithoutRetire
module M53 = SCFTL.Mutants.LayerRelocatesAnyPage
module M54 = SCFTL.Mutants.LayerWritesAbandonedBlock
module M55 = SCFTL.Mutants.HoldForgetsChainCommit
module M56 = SCFTL.Mutants.CleanRecoveryPastRecords

record MutantsFail : Set where
  field
    -- 1. recovery applies tentative delta pages
    tentative-replayed     : ¬ SnapshotConsistent M1.Pmut
    -- 2. recovery accepts a committed page without checking its digest
    digest-not-checked     : ¬ SnapshotConsistent M2.Pmut
    -- 3. a GC victim made erasable at once (inv skipped)
    gc-erase-at-once       : ¬ SnapshotConsistent M3.Pmut
    -- 4. delta pages of an older generation replayed
    generation-ignored     : ¬ SnapshotConsistent M4.Pmut
    -- 5. recovery picks the oldest checkpoint
    oldest-checkpoint      : ¬ SnapshotConsistent M5.Pmut
    -- 6. a tentative delta page written as committed
    tentative-as-committed : ¬ SnapshotConsistent M6.Pmut
    -- 7. allocation restarts at page 0 after recovery
    alloc-restarts         : ¬ SnapshotConsistent M7.Pmut
    -- 8. checkpoint written in place: NOT an SC violation in P's crash
    --    model; a reachable crash state from which no recovery exists
    checkpoint-in-place    : M8.Unrecoverable
    -- 9. the epoch digest omits the epoch's tentative pages
    digest-omits-tentative : ¬ SnapshotConsistent M9.Pmut
    -- 10. recovery without a full checkpoint resumes the crashed epoch's id
    recovery-reuses-crashed-epoch : ¬ SnapshotConsistent M10.Pmut
    -- 11. an in-page commit record whose digest omits its own data page
    inpage-digest-omits-page : ¬ SnapshotConsistent M11.Pmut
    -- 12. recovery applies an in-page record and keeps the region as it is
    inpage-record-not-consolidated : ¬ SnapshotConsistent M12.Pmut
    -- 13. an in-page commit ends without its consolidation page or a checkpoint
    inpage-consolidation-skipped : ¬ SnapshotConsistent M13.Pmut
    -- 14. an OOB commit accepted with a page of its run missing from its count
    oob-commit-past-missing-page : ¬ SnapshotConsistent M14.Pmut
    -- 15. an OOB commit of an epoch whose pairs are not exactly its run's (a tentative page)
    oob-commit-with-tentative-page : ¬ SnapshotConsistent M15.Pmut
    -- 16. (epoch chain, SC with barriers) recovery keeps a later verified
    --     barrier epoch after an earlier one failed: a mix
    barrier-epoch-mix : ¬ M16.SnapshotConsistent M16.Pmut
    -- 17. (epoch chain, SC with barriers) a page an unsynced epoch freed
    --     erased before a SYNC
    barrier-victim-erased-before-sync : ¬ M17.SnapshotConsistent M17.Pmut
    -- 18. (checkpoint slot) the L2P pages read without verifying them:
    --     the slot no longer refines P's one-cell slot
    checkpoint-pages-unverified : ¬ SlotAbstraction M18.Pmut
    -- 19. the full checkpoint erases the delta region before its commit point
    checkpoint-erases-region-early : ¬ SnapshotConsistent M19.Pmut
    -- 20. a block erased while it holds a page not yet erasable (a mutant of B)
    block-erase-with-live-page : ¬ SnapshotConsistent M20.Pmut
    -- 21. a block erased while a page of it is only invalid (before the commit that frees it; a mutant of B)
    block-erase-before-commit : ¬ SnapshotConsistent M21.Pmut
    -- 22. (space) the constraints leave the victims' valid sectors out of
    --     W + K*N: a wanted write finds no page
    space-victims-not-counted : ¬ SpaceProgress M22.Pmut
    -- 23. (space) constraint (4) with one epoch's pages in the delta
    --     region: no room for the consolidation page the code reserves
    space-region-one-epoch : ¬ SpaceProgress M23.Pmut
    -- 26. allocation does not advance the write pointer: a live P page's
    --     physical page reused (a mutant of B whose reads are physical)
    alloc-reuses-live-page : ¬ SnapshotConsistent M26.Pmut
    -- 27. allocation does not record where the page went: reads through a
    --     stale location (a mutant of B whose reads are physical)
    read-stale-location : ¬ SnapshotConsistent M27.Pmut
    -- 24. (P with a barrier, SC with barriers) the barrier without SYNC on
    --     P's recovery, which checks only the newest committed page: a mix
    barrier-newest-only : ¬ M24.SnapshotConsistent M24.Pmut
    -- 25. (P with a barrier, SC with barriers) the barrier without SYNC
    --     releases the epoch's GC victims: a page it freed erased before a SYNC
    barrier-releases-victims : ¬ M25.SnapshotConsistent M25.Pmut
    -- 28. (PU's barrier without SYNC, SC with barriers) the barrier does
    --     not record its epoch (no committed page): its pairs are lost
    barrier-epoch-unrecorded : ¬ M28.SnapshotConsistent M28.Pmut
    -- 29. (PU's unsynced epochs, SC with barriers) recovery finds the
    --     epochs by their committed pages, not checking that they follow
    --     one another: a lost committed page joins its neighbours, a mix
    barrier-epochs-unchained : ¬ M29.SnapshotConsistent M29.Pmut
    -- 30. (space, two write streams) constraint (2) as for one stream: a
    --     relocation into the cold stream finds no page
    space-second-stream-not-reserved : ¬ SpaceProgress2 M30.Pmut
    -- 31. (PL, the lazy chain as steps) GC's erase without PL's guard:
    --     a page a record of the chain names erased, the chain cut
    lazy-chain-erase-unguarded : ¬ SnapshotConsistent M31.Pmut
    -- 32. (lazy chain) recovery's walk passes over a record that fails
    --     its check and applies the next: not a prefix of the chain
    lazy-chain-skips-hole : ¬ ChainSound M32.Pmut
    -- 33. (lazy chain) the consolidation page omits the oldest backlog
    --     record's pairs
    lazy-consolidation-omits-record : ¬ ChainSound M33.Pmut
    -- 34. (PU as a Model, SC with barriers) recovery reads the split at
    --     the last SYNC one epoch too late: the oldest unsynced epoch is
    --     replayed as durable, unchecked, a lost data page of it a mix
    barrier-split-late : ¬ M34.SnapshotConsistent M34.Pmut
    -- 35. (PL, the lazy chain as steps) GC's erase guarded by the chain's
    --     records only: a page the region's newest commit names erased,
    --     that commit rejected, the chain not followed
    lazy-chain-guard-misses-commit : ¬ SnapshotConsistent M35.Pmut
    -- 36. (PU as a Model, SC with barriers) a crash of a flush before its
    --     SYNC leaves the flushed state's ghost: the flush's committed
    --     page trusted as durable, replayed unchecked, a lost data page
    --     of it a mix
    flush-trusted-before-sync : ¬ M36.SnapshotConsistent M36.Pmut
    -- 37. (PL, the lazy chain as steps) recovery follows one link (P's
    --     recovery) while the lazy commit chains up to MAX_CHAIN records:
    --     a SYNC'd record past the first is lost
    lazy-chain-walks-one-link : ¬ SnapshotConsistent M37.Pmut
    -- 39. (PL, the lazy chain as steps) the lazy commit without the
    --     chain's room check: a record past MAX_CHAIN never walked
    lazy-chain-over-max-chain : ¬ SnapshotConsistent M39.Pmut
    -- 40. (PUS, the SYNC outside a commit) the SYNC releases every invalid
    --     page, one the stable L2P still maps included: erased before
    --     the commit that stops mapping it
    sync-releases-mapped-victim : ¬ M40.SnapshotConsistent M40.Pmut
    -- 41. (PUSB, the sync behind barriers) a ticket's SYNC counts as
    --     proven an epoch ended after the ticket, whose pages it never
    --     landed
    ticket-proves-later-epoch : ¬ M41.SnapshotConsistent M41.Pmut
    -- 42. the one model PX with a barrier from the chain phase taken as
    --     PUSBic's barrier on the state as it is, without the chain's
    --     consolidation page first: PUSBic's recovery loses the chain's
    --     lazily committed epochs
    barrier-skips-consolidation : ¬ M42.SnapshotConsistent M42.Pmut
    -- 43. (of the block layer over PX; SC1B) a block erased while it
    --     holds a live page
    block-erase-over-px : ¬ M43.SnapshotConsistent M43.Pmut
    -- 44. (the checkpoint slots in the model's state) the full checkpoint
    --     written over the live slot: a crash leaves no slot that parses,
    --     which no point of P's checkpoint allows
    checkpoint-over-live-slot : ¬ SlotCovered M44.Pmut
    -- 45. (the region rules in P's state) after a flush the region is
    --     continued while the commit page fits: a run whose epoch's
    --     tentative pages overflow the region
    region-commit-page-only : ¬ M45.RegionFits M45.Pmut
    -- 46. (the region rules over PU's barrier) the barrier durable only
    --     with umax unsynced epochs: a barrier whose commit would leave
    --     the region short has no step the rule allows
    barrier-durable-only-at-umax : ¬ M46.BarrierLifts M46.Pmut
    -- 47. (the region rules over PL's lazy chain) a lazy commit goes
    --     through with epoch_pages_max pages left, forgetting the
    --     consolidation page the chain then owes: a run to a state whose
    --     epoch has no region page left for its commit
    lazy-commit-forgets-owed-page : ¬ M47.RoomsL M47.Pmut
    -- 48. (the data-superblock layer) writes and epoch ends while GC is
    --     needed: a run from the first recovery of a new disk to a state
    --     where a wanted write finds no block
    layer-ignores-gc-timing : ¬ M48.LayerProgress M48.Pmut
    -- 49. recovery makes erasable every page below its next page, the
    --     recovered map's included: GC erases a live page
    recovery-reclaims-mapped : ¬ SnapshotConsistent M49.Pmut
    -- 50. (the block layer over PX, physical reads) recovery frees every
    --     block but the open one, one holding a page the recovered map
    --     names included: a write reuses it and the page is lost
    recovery-frees-named-block : ¬ M50.SnapshotConsistent M50.Pmut
    -- 51. (the data-superblock layer) GC ends a victim with no valid
    --     sector without P's relocation of its dead pages: a run to a
    --     block the layer holds erasable that P cannot erase
    layer-ends-victim-early : ¬ M51.LayerQueued M51.Pmut
    -- 52. (the data-superblock layer) no ghost retirement of a full open
    --     block: where GC is needed before the next block opens, the
    --     layer can take no victim
    layer-without-retire : ¬ M52.GcLive M52.Pmut
    -- 53. (the data-superblock layer) P's relocation of any dead page
    --     while GC moves a victim: a run spends the epoch's relocations
    --     on another block's page, and the victim's page is left with
    --     P's relocation a no-op
    layer-relocates-any-page : ¬ M53.LayerBudget M53.Pmut
    -- 54. (the data-superblock layer across power cuts) a write places
    --     into the open block a recovery abandoned and the rebuild holds
    --     erasable: a valid page in a block the layer counts as reusable
    layer-writes-abandoned-block : ¬ M54.LayerQueuedR M54.Pmut
    -- 55. (the code's erase hold, PLh) a lazy commit adds nothing to the
    --     hold: the erase of a page the region's newest commit's chain
    --     still needs (mutant 31's run)
    hold-forgets-chain-commit : ¬ SnapshotConsistent M55.Pmut
    -- 56. (PL's recovery without a checkpoint, PLq) it skips the checkpoint
    --     where no committed page was dropped, records past the region's
    --     newest commit or not (`CleanRec` without `Quiet`)
    clean-recovery-past-records : ¬ SnapshotConsistent M56.Pmut

mutants-fail : MutantsFail
mutants-fail = record
  { tentative-replayed     = M1.not-snapshot-consistent
  ; digest-not-checked     = M2.not-snapshot-consistent
  ; gc-erase-at-once       = M3.not-snapshot-consistent
  ; generation-ignored     = M4.not-snapshot-consistent
  ; oldest-checkpoint      = M5.not-snapshot-consistent
  ; tentative-as-committed = M6.not-snapshot-consistent
  ; alloc-restarts         = M7.not-snapshot-consistent
  ; checkpoint-in-place    = M8.unrecoverable
  ; digest-omits-tentative = M9.not-snapshot-consistent
  ; recovery-reuses-crashed-epoch = M10.not-snapshot-consistent
  ; inpage-digest-omits-page = M11.not-snapshot-consistent
  ; inpage-record-not-consolidated = M12.not-snapshot-consistent
  ; inpage-consolidation-skipped = M13.not-snapshot-consistent
  ; oob-commit-past-missing-page = M14.not-snapshot-consistent
  ; oob-commit-with-tentative-page = M15.not-snapshot-consistent
  ; barrier-epoch-mix = M16.not-snapshot-consistent
  ; barrier-victim-erased-before-sync = M17.not-snapshot-consistent
  ; checkpoint-pages-unverified = M18.not-slot-abstraction
  ; checkpoint-erases-region-early = M19.not-snapshot-consistent
  ; block-erase-with-live-page = M20.not-snapshot-consistent
  ; block-erase-before-commit = M21.not-snapshot-consistent
  ; space-victims-not-counted = M22.not-space-progress
  ; space-region-one-epoch = M23.not-space-progress
  ; alloc-reuses-live-page = M26.not-snapshot-consistent
  ; read-stale-location = M27.not-snapshot-consistent
  ; barrier-newest-only = M24.not-snapshot-consistent
  ; barrier-releases-victims = M25.not-snapshot-consistent
  ; barrier-epoch-unrecorded = M28.not-snapshot-consistent
  ; barrier-epochs-unchained = M29.not-snapshot-consistent
  ; space-second-stream-not-reserved = M30.not-space-progress
  ; lazy-chain-erase-unguarded = M31.not-snapshot-consistent
  ; lazy-chain-skips-hole = M32.not-chain-sound
  ; lazy-consolidation-omits-record = M33.not-chain-sound
  ; barrier-split-late = M34.not-snapshot-consistent
  ; lazy-chain-guard-misses-commit = M35.not-snapshot-consistent
  ; flush-trusted-before-sync = M36.not-snapshot-consistent
  ; lazy-chain-walks-one-link = M37.not-snapshot-consistent
  ; lazy-chain-over-max-chain = M39.not-snapshot-consistent
  ; sync-releases-mapped-victim = M40.not-snapshot-consistent
  ; ticket-proves-later-epoch = M41.not-snapshot-consistent
  ; barrier-skips-consolidation = M42.not-snapshot-consistent
  ; block-erase-over-px = M43.not-snapshot-consistent
  ; checkpoint-over-live-slot = M44.not-slot-covered
  ; region-commit-page-only = M45.not-region-fits
  ; barrier-durable-only-at-umax = M46.not-barrier-lifts
  ; lazy-commit-forgets-owed-page = M47.not-rooms
  ; layer-ignores-gc-timing = M48.not-layer-progress
  ; recovery-reclaims-mapped = M49.not-snapshot-consistent
  ; recovery-frees-named-block = M50.not-snapshot-consistent
  ; layer-ends-victim-early = M51.not-layer-queued
  ; layer-without-retire = M52.not-gc-live
  ; layer-relocates-any-page = M53.not-budget
  ; layer-writes-abandoned-block = M54.not-layer-queued-crash
  ; hold-forgets-chain-commit = M55.not-snapshot-consistent
  ; clean-recovery-past-records = M56.not-snapshot-consistent
  }
