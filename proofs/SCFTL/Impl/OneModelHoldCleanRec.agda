{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, fifty-first session: the chain phase's clean recovery in the
-- one model with the erase hold, and over blocks.
--
-- The fiftieth session proved PX's chain phase may recover as P does,
-- without a full checkpoint, where nothing is dropped and no record lies
-- where the walk looks (PXq, SCFTL.Impl.OneModelCleanRec; the code's
-- `open` checks that since 5cc0082, `record_past_chain`).  But the code
-- also erases by the hold (PXh, SCFTL.Impl.OneModelHold) and by whole
-- superblocks (BXh, SCFTL.Impl.OneModelHoldBlocks), whose recovery was
-- still PX's.  PXhq is PXh whose recovery is PXq's (nothing held after
-- it, as after every recovery); BXhq is the block layer over PXhq.
--
--   ih-recq          : after either recovery of the chain phase nothing
--                      needs holding (P's RI of the recovered state)
--   obligationsPXhq  : PXh's obligations, the recovery's from PXq's
--   theorem1-PXhq, PXhq-snapshot-consistent  (SC1B)
--   pxh-clean        : the clean recovery is a step of PXhq (not vacuous)
--   obligationsBXhq, theorem1-BXhq, BXhq-snapshot-consistent :
--                      the block layer over PXhq (BlocksOver's `Over`)
--   bxh-clean        : the clean recovery is a step of BXhq
--   es-hq, block-erase-safehq, run-holdq : BXhq's block erase is BXh's
--                      (the same erase steps), so it keeps every mapped
--                      page and, from the chain phase, erases only pages
--                      free in the hold or after the way out
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelHoldCleanRec (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                       (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Nat.Base using (_≤_)
open import Data.List.Base using (List; [])
open import Data.List.Relation.Unary.All using (All)
open import Data.Maybe.Base using (just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (tt)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; l2p; dat; nxt)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (⟦_,_⟧; su; gh)
open import SCFTL.Impl.LazyChainHold Data d0 amax wmax kmax _≟D_ kc using (Hold; none; ri-hold)
open import SCFTL.Impl.LazyChainCleanRec Data d0 amax wmax kmax _≟D_ kc using (CleanRec; pl-clean-B)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (RIQ; CIQ; lzS)
open import SCFTL.Impl.OneModelCleanRec Data d0 amax wmax kmax umax _≟D_ kc
  using (okPXq; obligationsPXq; px-clean)
open import SCFTL.Impl.OneModelHold Data d0 amax wmax kmax umax _≟D_ kc
  using (XH; PXh; okPXh; crashPXh; Ih; ih-rec; obligationsPXh)
import SCFTL.Impl.OneModelHoldBlocks Data d0 amax wmax kmax umax _≟D_ kc zb as HB
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb using (module Over; BL; forget; owners; berase)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module OXh = SB.ForwardSimulation.Obligations obligationsPXh
  module OXq = SB.ForwardSimulation.Obligations obligationsPXq

------------------------------------------------------------------------
-- The model: PXh's steps, PXq's recovery, nothing held after it

okPXhq : SB.Op → XH → XH → Set
okPXhq (SB.use u) = okPXh (SB.use u)
okPXhq SB.recover ((b , S) , _) ((b' , S') , H') = okPXq SB.recover (b , S) (b' , S') × H' ≡ none

PXhq : SB.Model
PXhq = record { State = XH ; New = SB.Model.New PXh ; read = SB.Model.read PXh
              ; ok = okPXhq ; crash = crashPXh }

------------------------------------------------------------------------
-- The hold's invariant after a recovery

-- PX's recovery: OneModelHold's `ih-rec`; P's clean one: the recovered
-- state has P's RI (`pl-clean-B`), so the empty hold meets `HoldOK`
ih-recq : ∀ {x x'} → CIQ (proj₁ x) → okPXhq SB.recover x x' → Ih x'
ih-recq {(false , S) , H} {x'} ci o = ih-rec {(false , S) , H} {x'} ci o
ih-recq {(true , S) , H} {x'} ci (inj₁ o , e) = ih-rec {(true , S) , H} {x'} ci (o , e)
ih-recq {(true , ⟦ ⟪ s , .[] ⟫ , g ⟧) , H} {(.true , ._) , .none} (_ , ci)
        (inj₂ (refl , refl , s' , refl , c) , refl) =
  ri-hold none (pl-clean-B {s} {proj₁ ci} {s'} (proj₂ ci) c)

------------------------------------------------------------------------
-- Theorem 1 and SC1B for PXhq

open SB.ForwardSimulation PXhq SB.SB using () renaming (Obligations to ObligationsPXhq)

obligationsPXhq : ObligationsPXhq
obligationsPXhq = record
  { AR = OXh.AR ; CR = OXh.CR ; RI = OXh.RI ; CI = OXh.CI
  ; AR⇒≈ = λ {x} {t} a → OXh.AR⇒≈ {x} {t} a
  ; init-CR = λ {x} {t} n n′ → OXh.init-CR {x} {t} n n′
  ; init-CI = λ {x} n → OXh.init-CI {x} n
  ; A-ok = OXh.A-ok ; A-crash = OXh.A-crash
  ; A-rec = λ {x} {t} {x'} cr ci o → OXq.A-rec {proj₁ x} {t} {proj₁ x'} cr ci (proj₁ o)
  ; A-recᶜ = λ {x} {t} {x'} cr ci c → OXh.A-recᶜ {x} {t} {x'} cr ci c
  ; B-ok = OXh.B-ok ; B-crash = OXh.B-crash
  ; B-rec = λ {x} {x'} ci o → OXq.B-rec {proj₁ x} {proj₁ x'} ci (proj₁ o) , ih-recq {x} {x'} ci o
  ; B-recᶜ = λ {x} {x'} ci c → OXh.B-recᶜ {x} {x'} ci c
  }

-- Theorem 1: every behaviour of the one model with the code's hold and
-- the clean recovery in its chain phase is one of SB's
theorem1-PXhq : SB.CorrespondenceB.BehaviourallyCorrect PXhq SB.SB
theorem1-PXhq = SB.theorem1-SB PXhq obligationsPXhq

PXhq-snapshot-consistent : SB.SnapshotConsistentB PXhq
PXhq-snapshot-consistent = SB.obligations⇒SCB PXhq obligationsPXhq

-- Not vacuous: from the chain phase, with any hold, P's clean recovery
-- is a step of PXhq
pxh-clean : ∀ {s s' g H} → CleanRec s s' →
            okPXhq SB.recover ((true , lzS s g) , H) ((true , lzS s' g) , none)
pxh-clean {s} {s'} {g} c = px-clean {s} {s'} {g} c , refl

------------------------------------------------------------------------
-- The block layer over PXhq

module BQ = Over PXhq HB.stXh

BXhq : SB.Model
BXhq = BQ.BX

obligationsBXhq : SB.ForwardSimulation.Obligations BXhq SB.SB
obligationsBXhq = BQ.obligationsBX obligationsPXhq

theorem1-BXhq : SB.CorrespondenceB.BehaviourallyCorrect BXhq SB.SB
theorem1-BXhq = BQ.theorem1-BX obligationsPXhq

BXhq-snapshot-consistent : SB.SnapshotConsistentB BXhq
BXhq-snapshot-consistent = BQ.BX-snapshot-consistent obligationsPXhq

-- Not vacuous: the clean recovery is a step of the block layer too
-- (its blocks forget what lies past the recovered state's next page)
bxh-clean : ∀ {s s' g H bl} → CleanRec s s' →
            SB.Model.ok BXhq SB.recover (((true , lzS s g) , H) , bl)
                        (((true , lzS s' g) , none) , forget (nxt (HB.stXh ((true , lzS s' g) , none))) bl)
bxh-clean {s} {s'} {g} {H} c = pxh-clean {s} {s'} {g} {H} c , refl

-- BXhq's block erase is BXh's: the same erase steps of PXh
es-hq : ∀ {x ps x'} → BQ.EsRunM x ps x' → HB.EsRunM x ps x'
es-hq (BQ.one e) = HB.one e
es-hq (e BQ.∷ r) = e HB.∷ es-hq r

-- so it keeps every mapped page and what it holds (BXh's lemmas)
block-erase-safehq : ∀ {Y Y'} → RIQ (proj₁ (proj₁ Y)) → Ih (proj₁ Y) →
                     SB.Model.ok BXhq (SB.use (SB.reg (SB.op SB.es))) Y Y' →
                     (∀ a → l2p (HB.stXh (proj₁ Y')) a ≡ l2p (HB.stXh (proj₁ Y)) a)
                   × (∀ a q → a ≤ amax → l2p (HB.stXh (proj₁ Y)) a ≡ just q →
                        dat (HB.stXh (proj₁ Y')) q ≡ dat (HB.stXh (proj₁ Y)) q)
block-erase-safehq {Y} {Y'} r ih (k , rn , e) =
  HB.block-erase-safeh {Y} {Y'} r ih (k , es-hq rn , e)

run-holdq : ∀ {x ps x'} → RIQ (proj₁ x) → Ih x → proj₁ (proj₁ x) ≡ true → BQ.EsRunM x ps x' →
            (All (λ p → proj₂ x p ≡ false) ps × proj₂ x' ≡ proj₂ x) ⊎ proj₂ x' ≡ none
run-holdq {x} r ih c rn = HB.run-hold {x} r ih c (es-hq rn)
