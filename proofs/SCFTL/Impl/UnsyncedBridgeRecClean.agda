{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: the bridge across recovery WITHOUT the
-- checkpoint (PUSi's `RecC`, SCFTL.Impl.UnsyncedSyncInPage), reduced to
-- one condition on the crashed state.
--
-- After it the committed part is the crashed region, synced, and the
-- stable L2P the map recovery rebuilt.  RI's fields then ask:
--
--   Quiet      (P's condition for recovery without a checkpoint,
--              SCFTL.Impl.Model) no record of the generation at or past
--              the newest commit's link, nor at or past the region's
--              highest page: RI's `rcL` and `rcN`.  `RecC` asks it since
--              this session, as P's recovery and the Rust transcription
--              (`steps::recover`) do: without it `rcN` fails after a crash
--              inside an in-page commit's batch (its record durable, its
--              data page lost, the record's page at or past the recovered
--              active pointer)
--   CmVR       the newest commit's digest holds on the recovered map and
--              the synced pages: RI's `cmV` (the content part follows from
--              recovery's digest check; the map part is what `Dig` says of
--              each unsynced epoch before the crash, which PU's crash
--              relation does not carry yet)
--
--   rixg-recR  with RoG, Quiet and CmVR, the state recovery builds without
--              the checkpoint has RIxG (the pending epoch below the new
--              epoch id, `pend-top`; the record slots from RoG; no link)
--   CvR        CmVR for every choice recovery can make on a crashed state
--   rixg-recC  so PUSi's recovery without the checkpoint keeps RIy given
--              CvR (RoG holds at every crash point: `rog-crashX`; CvR at
--              the crash of a normal state and at the flush's and the
--              barrier's commands: SCFTL.Impl.UnsyncedBridgeCmV)
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeRecClean (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                         (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; s≤s; _⊔_)
open import Data.Nat.Properties using (≤-trans; m≤n⊔m)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (CmV; lkTop; pend; pend-top; acc-lk; map-cur-sync)
open import SCFTL.Impl.Recovery Data d0 amax wmax kmax _≟D_ using (slot-sync)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh; Gh)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_ using (ParseS)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recM)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR; pick-cell; shapes)
open import SCFTL.Impl.UnsyncedRecClean Data d0 amax wmax kmax umax _≟D_ using (Clean)
open import SCFTL.Impl.UnsyncedSyncInPage Data d0 amax wmax kmax umax _≟D_ using (RecC)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_ using (RIxG; RIy; hold-to; rie-nil)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (RoG)

------------------------------------------------------------------------
-- The condition the crash relation does not carry yet

CmVR : ℕ → Map → List Cell → List UEp → St → Set
CmVR g C pr es' s = CmV g (recM g C pr es' s) (λ p → sync (dat s p)) (map cur (dr s))

-- for every choice recovery without the checkpoint can make on a crashed
-- state with a ghost: the slot `pick` returns, a parse with the ghost's
-- shapes and durable part that recovery accepts whole
CvR : St → Gh → Set
CvR s gh = ∀ b g C T es' → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
  ParseS (map cur (dr s)) T es' (proj₂ gh) → shapes es' ≡ proj₁ gh → Clean g C (proj₂ gh) es' s → CmVR g C (proj₂ gh) es' s

private
  syn-cur : ∀ {m c} → sync m ≡ syn c → cur m ≡ c
  syn-cur refl = refl

------------------------------------------------------------------------
-- The state recovery builds without the checkpoint

rixg-recR : ∀ {b g C pr es' s} → (∀ p → RLt (suc g) (cur (rcd s p))) → Quiet g s → CmVR g C pr es' s →
            RIxG (recR b g C pr es' s) [] C (map cur (map sync (dr s)))
rixg-recR {b} {g} {C} {pr} {es'} {s} ro (qL , qN) cv = record
  { cmP  = subst (λ cs → pend (rp g cs (st0 C)) < suc (topE (map cur (dr s)))) (sym (map-cur-sync (dr s)))
                 (s≤s (pend-top g (map cur (dr s)) C))
  ; cmV  = subst (CmV g (recM g C pr es' s) (λ p → sync (dat s p))) (sym (map-cur-sync (dr s))) cv
  ; rcOK = λ p → cur (rcd s p) , refl , ro p
  ; rcN  = λ p le → qN p (≤-trans (m≤n⊔m (hi (recM g C pr es' s) amax) (hiR (map cur (dr s)))) le)
  ; rcL  = λ x L e → qL x L (trans (acc-lk (λ p → cur (dat s p)) (λ p c h → syn-cur {dat s p} h) (map cur (dr s)) cv)
                                   (subst (λ cs → lkTop g cs ≡ just (x , L)) (map-cur-sync (dr s)) e))
  ; lkOK = λ L ()
  }

------------------------------------------------------------------------
-- PUSi's recovery without the checkpoint

rixg-recC : ∀ {S S' t'} → RecC (st (su S)) (gh S) (st (su S')) → ues (su S') ≡ [] → RoG (st (su S)) →
            CvR (st (su S)) (gh S) →
            (iv' : Inv′ (su S') t') → RIy iv'
rixg-recC {⟦ ⟪ s , es ⟫ , g0 ⟧} {⟦ ⟪ .(recR b g C (proj₂ g0) es' s) , .[] ⟫ , g1 ⟧} {t'}
          (b , g , C , pk , T , es' , ps , sh , cl , q , refl) refl ro cv iv' =
  hold-to {⟪ recR b g C (proj₂ g0) es' s , [] ⟫} {t'} {C} {map sync (dr s)}
          (trans (slot-sync b s) (cong syn (pick-cell b s pk)) , refl ,
           rixg-recR {b} {g} {C} {proj₂ g0} {es'} {s} (ro b g C pk) q (cv b g C T es' pk ps sh cl)) iv' ,
  rie-nil (recR b g C (proj₂ g0) es' s)
