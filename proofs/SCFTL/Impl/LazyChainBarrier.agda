{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: the lazy chain under SB's operations, with
-- the durable barrier.
--
-- `SCFTL.Impl.DurableBarrier.Lift` turns any model over S's operations
-- with obligations against S into a model over SB's operations whose
-- barrier is its flush, with obligations against SB (for every umax).
-- Applied to PL (Theorem 1 for the lazy chain, `SCFTL.Impl.
-- LazyChainTheorem`):
--
--   PLD          PL with the durable barrier (`liftB PL`): a barrier is
--                PL's flush, so it may commit lazily (`fiL`), as the
--                code's forced barrier does (flush.rs: a durable flush
--                commits in a record slot where it can, `inline`)
--   obligationsPLD : ForwardSimulation.Obligations PLD SB
--   theorem1-PLD : CorrespondenceB.BehaviourallyCorrect PLD SB
--   PLD-snapshot-consistent : SnapshotConsistentB PLD (SC1B)
--   barrier-is-flush-L   PLD's barrier steps and crashes are PL's flush's
--
-- So a run of the code in which every barrier is durable (as with
-- MAX_UNSYNCED_EPOCHS = 1) is inside a proven model together with the
-- lazy chain.  The barrier WITHOUT SYNC together with the chain is the
-- one model PX (SCFTL.Impl.OneModel), whose chain phase takes PLD's
-- steps but the barrier (proofs/README.md, "One model").
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainBarrier (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                   (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Relation.Binary.PropositionalEquality using (_≡_; refl)

import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
open import SCFTL.Impl.DurableBarrier Data d0 amax wmax kmax umax _≟D_ using (liftB; module Lift)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (PL)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (obligations-PL)
open import SCFTL.Impl.LazyChainTheorem Data d0 amax wmax kmax _≟D_ kc using (landed-ok)

PLD : SB.Model
PLD = liftB PL

obligationsPLD : SB.ForwardSimulation.Obligations PLD SB.SB
obligationsPLD = Lift.obligations PL (obligations-PL landed-ok)

theorem1-PLD : SB.CorrespondenceB.BehaviourallyCorrect PLD SB.SB
theorem1-PLD = SB.theorem1-SB PLD obligationsPLD

PLD-snapshot-consistent : SB.SnapshotConsistentB PLD
PLD-snapshot-consistent = SB.obligations⇒SCB PLD obligationsPLD

-- PLD's barrier steps and crashes are PL's flush's (lazy commits included)
barrier-is-flush-L : ∀ {s s'} → SB.Model.ok PLD (SB.use (SB.reg SB.barrier)) s s' ≡ Sp.Model.ok PL (Sp.use Sp.flush) s s'
barrier-is-flush-L = refl

barrier-crash-is-flush-L : ∀ {s s'} → SB.Model.crash PLD (SB.use (SB.reg SB.barrier)) s s' ≡ Sp.Model.crash PL (Sp.use Sp.flush) s s'
barrier-crash-is-flush-L = refl
