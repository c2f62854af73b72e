{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the one model with blocks, physical reads AND the code's
-- multi-page checkpoint slots in its state — Theorem 1 and snapshot
-- consistency.
--
-- SCFTL.Impl.SlotOver's layer (`Over`: the two slots' L2P pages and
-- commit records, recovery choosing from them by the code's rule) over
-- BXφ (SCFTL.Impl.OneModelBlocksPhys: the block layer over PX, reads
-- through the physical pages; its obligations with `RecoveredLocated`
-- proven, SCFTL.Impl.OneModelBlocksFull).  `stX` reads P's state (whose
-- cells the slots stand for) out of BXφ's.
--
--   BXφS                          the model
--   obligationsBXφS               §4.4 obligations against SB
--   theorem1-BXφS                 Theorem 1
--   BXφS-snapshot-consistent      SC1B
--   BXφS-lift-ok                  every step of BXφ is one of BXφS
--   BXφS-crash-reads-slots        after a crash, recovery's checkpoint
--                                 is the code's rule on the slots' pages
--   BXφS-cellfree, BXφS-lift-crash  every crash of BXφ with the code's
--                                 slots at any crash outcome of states
--                                 the crash point's cells model (and
--                                 any roles) is a crash of BXφS
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ; _≤_)
open import Data.Fin.Base using (Fin)
open import Data.Maybe.Base using (Maybe)
open import Relation.Binary.Definitions using (DecidableEquality)
open import Relation.Binary.PropositionalEquality using (_≡_)

module SCFTL.Impl.OneModelSlots
  (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ) (_≟D_ : DecidableEquality Data) (kc zb : ℕ)
  (n : ℕ) (Ch : Set)
  (split : (ℕ → Maybe ℕ) → Fin (ℕ.suc n) → Ch)
  (join  : (Fin (ℕ.suc n) → Ch) → ℕ → Maybe ℕ)
  (join-split : ∀ C a → a ≤ amax → join (split C) a ≡ C a)
  where

open import Data.Product using (proj₁)

open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX)
open import SCFTL.Impl.OneModelBlocksPhys Data d0 amax wmax kmax umax _≟D_ kc zb using (BXφ; obligationsφ)
open import SCFTL.Impl.OneModelBlocksFull Data d0 amax wmax kmax umax _≟D_ kc zb using (recovered-located-all)
open import SCFTL.Impl.SlotOver Data d0 amax wmax kmax umax _≟D_ n Ch split join join-split using (module Over)
open import SCFTL.Impl.OneModelCellFree Data d0 amax wmax kmax umax _≟D_ kc zb using (setBX; setBX-law; free-BXφ)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module OS = Over BXφ (λ Y → stX (proj₁ Y))

BXφS : SB.Model
BXφS = OS.SX

obligationsBXφS : SB.ForwardSimulation.Obligations BXφS SB.SB
obligationsBXφS = OS.obligationsS (obligationsφ recovered-located-all)

theorem1-BXφS : SB.CorrespondenceB.BehaviourallyCorrect BXφS SB.SB
theorem1-BXφS = SB.theorem1-SB BXφS obligationsBXφS

BXφS-snapshot-consistent : SB.SnapshotConsistentB BXφS
BXφS-snapshot-consistent = SB.obligations⇒SCB BXφS obligationsBXφS

-- coverage: BXφ's crashes leave P's checkpoint cells free
-- (SCFTL.Impl.OneModelCellFree), so every crash of BXφ, with the code's
-- slots in any states the crash point's cells model and any crash
-- outcomes of them, is a crash of BXφS whose slots are those outcomes
BXφS-cellfree : OS.CellFree
BXφS-cellfree = OS.cellfree-of setBX setBX-law free-BXφ

BXφS-lift-crash = OS.lift-crash BXφS-cellfree

open OS public using () renaming (lift-ok to BXφS-lift-ok; lift-new to BXφS-lift-new;
                                  crash-reads-slots to BXφS-crash-reads-slots)
