{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the erase hold with the durable barrier.  PLh (PL with the
-- code's erase hold as its erase rule and PLk's way out, SCFTL.Impl.
-- LazyChainHold) lifted to SB's operations as PL is (SCFTL.Impl.
-- LazyChainBarrier: `liftB`, a barrier is the flush, so it may commit
-- lazily):
--
--   PLhD                     liftB PLh
--   obligationsPLhD          ForwardSimulation.Obligations PLhD SB
--   theorem1-PLhD            Theorem 1 against SB (any umax)
--   PLhD-snapshot-consistent SC1B
--
-- So a run of the code in which every barrier is durable (as with
-- MAX_UNSYNCED_EPOCHS = 1) and whose erases in the chain phase follow
-- the hold is inside a proven model.  Not here: the one model PX with
-- the hold (its chain phase takes PLD's steps, whose erase is PL's
-- guarded one).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)
module SCFTL.Impl.LazyChainHoldBarrier (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                       (_≟D_ : DecidableEquality Data) (kc : ℕ) where
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
open import SCFTL.Impl.DurableBarrier Data d0 amax wmax kmax umax _≟D_ using (liftB; module Lift)
open import SCFTL.Impl.LazyChainHold Data d0 amax wmax kmax _≟D_ kc using (PLh; obligations-PLh)

PLhD : SB.Model
PLhD = liftB PLh

obligationsPLhD : SB.ForwardSimulation.Obligations PLhD SB.SB
obligationsPLhD = Lift.obligations PLh obligations-PLh

theorem1-PLhD : SB.CorrespondenceB.BehaviourallyCorrect PLhD SB.SB
theorem1-PLhD = SB.theorem1-SB PLhD obligationsPLhD

PLhD-snapshot-consistent : SB.SnapshotConsistentB PLhD
PLhD-snapshot-consistent = SB.obligations⇒SCB PLhD obligationsPLhD
