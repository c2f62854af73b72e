{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Imports every module of the development; `check.sh` type-checks this.
------------------------------------------------------------------------
module Everything where

-- §4.1–4.2: operations, models, fragments, snapshot consistency
import SCFTL.Framework
-- §4.3: behavioural correctness (statement of Theorem 1), Theorem 2
import SCFTL.Behaviour
-- §4.4: forward simulation, per-operation obligations ⇒ Theorem 1
import SCFTL.Simulation
-- Fig. 4 contract in the abstract: Lemma 1 and "no mixed epochs"
import SCFTL.FlushContract
-- Fig. 4: the model S, Lemma 1, Theorems 1 and 2 instantiated
import SCFTL.Spec
-- Beyond the paper: S with trim
import SCFTL.SpecTrim
-- Beyond the paper: a torn (non-atomic) flush does expose mixed epochs
import SCFTL.TornFlush
-- Issue 39: epoch barriers: SC with barriers (SC1B), the contract, Lemma 1,
-- Theorem 2; S with barriers (pending snapshots, MAX_UNSYNCED_EPOCHS)
import SCFTL.BarrierFramework
import SCFTL.BarrierBehaviour
import SCFTL.SpecBarrier
-- Issue 17: the model P of the SCFTL algorithm
import SCFTL.Impl.Model
import SCFTL.Impl.Lemmas
import SCFTL.Impl.Invariants
import SCFTL.Impl.Regular
import SCFTL.Impl.Flush
import SCFTL.Impl.Recovery
import SCFTL.Impl.RecoveryReclaim
import SCFTL.Impl.RecoveryReclaimExample
import SCFTL.Impl.RecoveryFreeExample
-- Issue 17: Theorem 1 and snapshot consistency for the SCFTL model P
import SCFTL.Impl.Theorem
-- Issue 39: a crash after any single flash command is covered by P's crash points
import SCFTL.Impl.CrashPoints
-- Issue 39: the epoch chain (barriers, MAX_UNSYNCED_EPOCHS, recovery over
-- several unsynced epochs): snapshot consistency with barriers, Theorem 1 w.r.t. SB
import SCFTL.Impl.EpochChain
import SCFTL.Impl.EpochChainTheorem
import SCFTL.Impl.EpochChainCrashPoints
import SCFTL.Impl.EpochChainExample
-- Issue 39: barriers in P: recovery over several unsynced epochs on P's region
import SCFTL.Impl.UnsyncedEpochs
import SCFTL.Impl.UnsyncedEpochsCrash
import SCFTL.Impl.UnsyncedEpochsExample
import SCFTL.Impl.UnsyncedBarrier
import SCFTL.Impl.UnsyncedRecovery
import SCFTL.Impl.UnsyncedImages
import SCFTL.Impl.UnsyncedBase
import SCFTL.Impl.UnsyncedCrashes
import SCFTL.Impl.UnsyncedCheckpoint
import SCFTL.Impl.UnsyncedRecStep
import SCFTL.Impl.UnsyncedRecCrash
import SCFTL.Impl.UnsyncedModel
import SCFTL.Impl.UnsyncedCommands
import SCFTL.Impl.UnsyncedSync
import SCFTL.Impl.UnsyncedSyncBehind
import SCFTL.Impl.UnsyncedSyncBehindExample
import SCFTL.Impl.UnsyncedSyncAll
import SCFTL.Impl.UnsyncedBridge
import SCFTL.Impl.UnsyncedBridgeNormal
import SCFTL.Impl.UnsyncedBridgeSync
import SCFTL.Impl.UnsyncedBridgeAll
import SCFTL.Impl.UnsyncedBridgeCrash
import SCFTL.Impl.UnsyncedBridgeCommands
import SCFTL.Impl.UnsyncedBridgeRecClean
import SCFTL.Impl.UnsyncedBridgeCmV
import SCFTL.Impl.UnsyncedBridgeCmVCrash
import SCFTL.Impl.UnsyncedBridgeCmVAll
import SCFTL.Impl.UnsyncedBridgeBack
import SCFTL.Impl.LazyChainBarrier
import SCFTL.Impl.OneModelSwitch
import SCFTL.Impl.OneModel
import SCFTL.Impl.OneModelHold
import SCFTL.Impl.OneModelCleanRec
import SCFTL.Impl.OneModelHoldCleanRec
import SCFTL.Impl.OneModelBlocks
import SCFTL.Impl.OneModelHoldBlocks
import SCFTL.Impl.OneModelBlocksRead
import SCFTL.Impl.OneModelBlocksPhys
import SCFTL.Impl.OneModelBlocksNamed
import SCFTL.Impl.OneModelBlocksLive
import SCFTL.Impl.OneModelBlocksReuse
import SCFTL.Impl.OneModelRecMaps
import SCFTL.Impl.OneModelBlocksFull
import SCFTL.Impl.CellFree
import SCFTL.Impl.SlotOver
import SCFTL.Impl.OneModelCellFree
import SCFTL.Impl.OneModelSlots
import SCFTL.Impl.UnsyncedRecCleanQuiet
import SCFTL.Impl.UnsyncedRecClean
import SCFTL.Impl.UnsyncedSyncInPage
import SCFTL.Impl.UnsyncedSyncInPageCommands
import SCFTL.Impl.Decide
import SCFTL.Impl.UnsyncedSyncExample
import SCFTL.Impl.UnsyncedModelExample
-- Issue 39: P over the operations with a barrier (the durable barrier): Theorem 1 w.r.t. SB, SC1B
import SCFTL.Impl.BarrierOps
import SCFTL.Impl.DurableBarrier
-- Issue 39: the lazy consolidation page: recovery's walk along a chain of
-- in-page/OOB records, its crash lemma, the consolidation page's replay
import SCFTL.Impl.LazyChain
import SCFTL.Impl.LazyChainP
import SCFTL.Impl.LazyChainInv
import SCFTL.Impl.LazyChainModel
import SCFTL.Impl.LazyChainSteps
import SCFTL.Impl.LazyChainStable
import SCFTL.Impl.LazyChainRegion
import SCFTL.Impl.LazyChainPhase
import SCFTL.Impl.LazyChainVirtual
import SCFTL.Impl.LazyChainKons
import SCFTL.Impl.LazyChainCrash
import SCFTL.Impl.LazyChainCrashSteps
import SCFTL.Impl.LazyChainCrashLazy
import SCFTL.Impl.LazyChainCrashKons
import SCFTL.Impl.LazyChainObligations
import SCFTL.Impl.LazyChainTheorem
import SCFTL.Impl.LazyChainKonsErase
import SCFTL.Impl.LazyChainHold
import SCFTL.Impl.LazyChainCleanRec
import SCFTL.Impl.LazyChainHoldBarrier
import SCFTL.Impl.LazyChainCommands
import SCFTL.Impl.LazyChainSameRec
import SCFTL.Impl.LazyChainExample
import SCFTL.Impl.LazyChainUnguarded
-- Issue 39: the code's multi-page checkpoint slot refines P's one-cell slot; rotation
import SCFTL.Impl.CheckpointSlot
import SCFTL.Impl.CheckpointSlotExample
-- Issue 39: blocks (whole-block erase, in-order programming, erase before
-- program, reuse): the block-level model B refines P; B is snapshot-consistent
import SCFTL.Impl.Blocks
import SCFTL.Impl.BlocksRead
import SCFTL.Impl.BlocksPhys
import SCFTL.Impl.BlocksExample
import SCFTL.Impl.BlocksOver
-- Issue 39: the space accounting (W/K/U bounds, delta region): space-progress
import SCFTL.Impl.Space
import SCFTL.Impl.SpaceStreams
import SCFTL.Impl.SpaceTwoStreams
import SCFTL.Impl.SpaceTwoStreamsTight
import SCFTL.Impl.SpaceRegion
import SCFTL.Impl.SpaceRegionBarrier
import SCFTL.Impl.SpaceRegionLazy
import SCFTL.Impl.SpaceRegionOne
import SCFTL.Impl.SpaceRegionBlocks
import SCFTL.Impl.SpaceRegionCrash
import SCFTL.Impl.SpaceUsed
import SCFTL.Impl.SpaceValid
import SCFTL.Impl.SpaceData
import SCFTL.Impl.SpaceSim
import SCFTL.Impl.SpaceLayer
import SCFTL.Impl.SpaceLayerStart
import SCFTL.Impl.SpaceLayerExample
import SCFTL.Impl.SpaceQueued
import SCFTL.Impl.SpaceGcBound
import SCFTL.Impl.SpaceGcWalk
import SCFTL.Impl.SpaceRecFit
import SCFTL.Impl.SpaceRecInv
import SCFTL.Impl.SpaceRecErase
import SCFTL.Impl.SpaceRecLayer
import SCFTL.Impl.SpaceRecGc
import SCFTL.Impl.SpaceChainErase
import SCFTL.Impl.SpaceChainEraseExample
import SCFTL.Impl.SpaceChainQuiet
import SCFTL.Impl.SpaceChainWalk
import SCFTL.Impl.SpaceChainWalkExample
import SCFTL.Impl.SpaceRecExample
import SCFTL.Impl.SpaceSimRetire
import SCFTL.Impl.SpaceLayerGcExample
-- Issue 17: the model is not vacuous (enabledness, a concrete run)
import SCFTL.Impl.Example
-- Issue 39: mutants of P that must fail (each is P with one deliberate
-- bug and a concrete counterexample; All collects the results)
import SCFTL.Mutants.Common
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
import SCFTL.Mutants.SpaceSecondStreamNotReserved
import SCFTL.Mutants.RegionCommitPageOnly
import SCFTL.Mutants.BarrierDurableOnlyAtUmax
import SCFTL.Mutants.LazyCommitForgetsOwedPage
import SCFTL.Mutants.LayerIgnoresGcTiming
import SCFTL.Mutants.RecoveryReclaimsMapped
import SCFTL.Mutants.RecoveryFreesNamedBlock
import SCFTL.Mutants.AllocReusesLivePage
import SCFTL.Mutants.ReadStaleLocation
import SCFTL.Mutants.BarrierNewestOnly
import SCFTL.Mutants.BarrierReleasesVictims
import SCFTL.Mutants.BarrierEpochUnrecorded
import SCFTL.Mutants.BarrierEpochsUnchained
import SCFTL.Mutants.LazyChainEraseUnguarded
import SCFTL.Mutants.LazyChainGuardMissesCommit
import SCFTL.Mutants.LazyChainSkipsHole
import SCFTL.Mutants.LazyConsolidationOmitsRecord
import SCFTL.Mutants.BarrierSplitLate
import SCFTL.Mutants.FlushTrustedBeforeSync
import SCFTL.Mutants.LazyChainWalksOneLink
import SCFTL.Mutants.SyncReleasesMappedVictim
import SCFTL.Mutants.TicketProvesLaterEpoch
import SCFTL.Mutants.BarrierSkipsConsolidation
import SCFTL.Mutants.BlockEraseOverPX
import SCFTL.Mutants.CheckpointOverLiveSlot
import SCFTL.Mutants.LazyChainOverMaxChain
import SCFTL.Mutants.LayerEndsVictimEarly
import SCFTL.Mutants.LayerWithoutRetire
import SCFTL.Mutants.LayerRelocatesAnyPage
import SCFTL.Mutants.LayerWritesAbandonedBlock
import SCFTL.Mutants.HoldForgetsChainCommit
import SCFTL.Mutants.CleanRecoveryPastRecords
import SCFTL.Mutants.All
