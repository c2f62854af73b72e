{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the one model with P's clean recovery in its chain phase.
--
-- PX (SCFTL.Impl.OneModel) recovers by the phase of the crash: PUSBic's
-- recovery, which may go without a full checkpoint, or PL's, which
-- always writes one.  The code decides by what it finds on flash, and
-- after the chain phase's consolidation page (no record past the
-- region's newest commit) it recovers as P does, without a checkpoint
-- where nothing was dropped.  PXq is PX whose recovery from the chain
-- phase may also be P's clean one (SCFTL.Impl.LazyChainCleanRec,
-- `CleanRec`); every other step and every crash point is PX's.
--
--   obligationsPXq : ForwardSimulation.Obligations PXq SB (PX's, with
--                    the chain phase's recovery by PLq lifted to SB's
--                    operations: `Lift PLq`)
--   theorem1-PXq   : CorrespondenceB.BehaviourallyCorrect PXq SB
--   PXq-snapshot-consistent : SnapshotConsistentB PXq      (SC1B)
--   px-clean       : the clean recovery is a step of PXq from the chain
--                    phase (not vacuous)
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelCleanRec (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                   (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; [])
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; rd)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh)
open import SCFTL.Impl.DurableBarrier Data d0 amax wmax kmax umax _≟D_ using (module Lift)
open import SCFTL.Impl.LazyChainCleanRec Data d0 amax wmax kmax _≟D_ kc using (PLq; obligations-PLq; CleanRec; rec-Bq)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc
  using (XS; PX; okPX; crashPX; lzS; ARP; CRQ; RIQ; CIQ; obligationsPX)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module OX = SB.ForwardSimulation.Obligations obligationsPX
  module LQ = SB.ForwardSimulation.Obligations (Lift.obligations PLq obligations-PLq)

------------------------------------------------------------------------
-- The model

okPXq : SB.Op → XS → XS → Set
okPXq (SB.use u) = okPX (SB.use u)
okPXq SB.recover (false , S) X' = okPX SB.recover (false , S) X'
okPXq SB.recover (true , S) (b' , S') =
    okPX SB.recover (true , S) (b' , S')
  ⊎ (b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × CleanRec (st (su S)) s')

PXq : SB.Model
PXq = record { State = XS ; New = SB.Model.New PX ; read = SB.Model.read PX ; ok = okPXq ; crash = crashPX }

------------------------------------------------------------------------
-- The chain phase's recovery: PX's, or P's clean one (PLq's, lifted)

private
  pend-rec : ∀ {t t'} → SB.okSB SB.recover t t' → SB.pend t' ≡ []
  pend-rec (_ , _ , _ , _ , e , _) = e

A-recXq : ∀ {X t X'} → CRQ X t → CIQ X → okPXq SB.recover X X' →
          Σ SB.State λ t' → SB.okSB SB.recover t t' × ARP X' t'
A-recXq {false , S} {t} {X'} cr ci o = OX.A-rec {false , S} {t} {X'} cr ci o
A-recXq {true , S} {t} {X'} cr ci (inj₁ o) = OX.A-rec {true , S} {t} {X'} cr ci o
A-recXq {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {t} {.true , ._} (refl , cr) (_ , ci) (inj₂ (refl , refl , s' , refl , o)) =
  proj₁ A , proj₁ (proj₂ A) , refl , pend-rec {t} {proj₁ A} (proj₁ (proj₂ A)) , proj₂ (proj₂ A)
  where A = LQ.A-rec {s} {t} {s'} cr ci (inj₂ o)

B-recXq : ∀ {X X'} → CIQ X → okPXq SB.recover X X' → RIQ X'
B-recXq {false , S} {X'} ci o = OX.B-rec {false , S} {X'} ci o
B-recXq {true , S} {X'} ci (inj₁ o) = OX.B-rec {true , S} {X'} ci o
B-recXq {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} (refl , ci) (inj₂ (refl , refl , s' , refl , o)) =
  refl , rec-Bq {s} {s'} ci (inj₂ o)

------------------------------------------------------------------------
-- Theorem 1 and SC1B for PXq

open SB.ForwardSimulation PXq SB.SB using () renaming (Obligations to ObligationsPXq)

obligationsPXq : ObligationsPXq
obligationsPXq = record
  { AR = ARP ; CR = CRQ ; RI = RIQ ; CI = CIQ
  ; AR⇒≈ = OX.AR⇒≈
  ; init-CR = OX.init-CR
  ; init-CI = OX.init-CI
  ; A-ok = OX.A-ok ; A-crash = OX.A-crash ; A-rec = A-recXq ; A-recᶜ = OX.A-recᶜ
  ; B-ok = OX.B-ok ; B-crash = OX.B-crash ; B-rec = B-recXq ; B-recᶜ = OX.B-recᶜ
  }

-- Theorem 1: every behaviour of the one model with the clean recovery
-- in its chain phase is one of SB's
theorem1-PXq : SB.CorrespondenceB.BehaviourallyCorrect PXq SB.SB
theorem1-PXq = SB.theorem1-SB PXq obligationsPXq

-- SC1B
PXq-snapshot-consistent : SB.SnapshotConsistentB PXq
PXq-snapshot-consistent = SB.obligations⇒SCB PXq obligationsPXq

-- Not vacuous: P's clean recovery is a step of PXq from the chain phase
px-clean : ∀ {s s' g} → CleanRec s s' → okPXq SB.recover (true , lzS s g) (true , lzS s' g)
px-clean {s' = s'} c = inj₂ (refl , refl , s' , refl , c)
