{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: the bridge over every step of PUSBic
-- (SCFTL.Impl.UnsyncedSyncAll: the PU family in one model).
--
--   rixg-X     every step of PUSBic but recovery keeps RIy (RIxG with
--              RIe) of the state's own invariant: write, GC, the barrier
--              with or without SYNC, the flush (one-SYNC, checkpoint,
--              in-page, OOB), the full SYNC and the partial one
--   rixg-recU  recovery with the full checkpoint (PUM's `recU`) gives
--              RIxG, given that the crashed state's record slots hold
--              nothing newer than the generation it picks (`RoG`, P's
--              `RecTo.ro`; PU's crash relation RecG does not carry it yet)
--   ri-X       so a state of PUSBic with no epoch unsynced and RIy has
--              P's RI (`ri-of-pu`): where PL's chain phase starts
--
-- Left: `RoG` at every crash point of PUSBic (RecG with P's `ro`), and
-- recovery without the checkpoint (PUSi's `RecC`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeAll (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                    (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; s≤s; z≤n)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; rc-sync; rc-step; rc-cur)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues; okU)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh; okPU; okM⇒okU)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recU)
open import SCFTL.Impl.UnsyncedSyncInPage Data d0 amax wmax kmax umax _≟D_ using (okSi; FiOk; InPO)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (okX; ARX)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_ using (syS)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (syBU; PartSy)
open import SCFTL.Impl.UnsyncedBridge Data d0 amax wmax kmax umax _≟D_ using (RIx; ri-of-pu; biOf)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_
  using (RIxG; RIy; rixg-okU; x-rixg; hold-to; rie-nil)
open import SCFTL.Impl.UnsyncedBridgeSync Data d0 amax wmax kmax umax _≟D_ using (rixg-syS; rixg-syB)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- PUSi's in-page/OOB commit is P's flush from a state with no epoch
-- unsynced

fiOk⇒okU : ∀ {s s'} → FiOk s s' → okU SB.flush s s'
fiOk⇒okU (_ , M , inj₁ (L , ip , refl) , inj₁ refl) = inj₂ (inj₂ (inj₁ (L , ip , inj₂ refl))) , refl
fiOk⇒okU (_ , M , inj₁ (L , ip , refl) , inj₂ refl) = inj₂ (inj₂ (inj₁ (L , ip , inj₁ refl))) , refl
fiOk⇒okU (_ , M , inj₂ (L , op) , inj₁ refl)       = inj₂ (inj₂ (inj₂ (L , M , op , inj₂ refl))) , refl
fiOk⇒okU (_ , M , inj₂ (L , op) , inj₂ refl)       = inj₂ (inj₂ (inj₂ (L , M , op , inj₁ refl))) , refl

------------------------------------------------------------------------
-- Every step of PUSBic but recovery

ivX : ∀ {S t} → ARX S t → Inv′ (su S) t
ivX ar = proj₁ (proj₁ (proj₁ ar))

rixg-X : ∀ u {S t S' t'} (ar : ARX S t) → RIy (ivX {S} {t} ar) → okX (SB.use u) S S' →
         (ar' : ARX S' t') → RIy (ivX {S'} {t'} ar')
rixg-X (SB.reg (SB.op SB.sy)) {⟦ ⟪ s , .(xs ++ ys) ⟫ , g0 ⟧} {t} {⟦ .(syBU xs ys l r ⟪ s , xs ++ ys ⟫) , g ⟧} {t'}
       ar y (inj₂ (xs , ys , l , r , refl , ld , rel , refl , _)) ar' =
  rixg-syB {s} {t} {xs} {ys} {l} {r} (ivX {⟦ ⟪ s , xs ++ ys ⟫ , g0 ⟧} {t} ar) y ld
           (ivX {⟦ syBU xs ys l r ⟪ s , xs ++ ys ⟫ , g ⟧} {t'} ar')
rixg-X (SB.reg (SB.op SB.sy)) {⟦ s , g0 ⟧} {t} {⟦ .(syS r s) , g ⟧} {t'} ar y (inj₁ (r , rel , refl , _)) ar' =
  rixg-syS {s} {t} {r} (ivX {⟦ s , g0 ⟧} {t} ar) y (ivX {⟦ syS r s , g ⟧} {t'} ar')
rixg-X (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} {t'} ar y (o , _) ar' =
  rixg-okU (SB.reg (SB.op (SB.w a d))) (ivX {S} {t} ar) y
           (okM⇒okU (SB.reg (SB.op (SB.w a d))) {su S} {su S'} o) (ivX {S'} {t'} ar')
rixg-X (SB.reg (SB.op SB.rl)) {S} {t} {S'} {t'} ar y (o , _) ar' =
  rixg-okU (SB.reg (SB.op SB.rl)) (ivX {S} {t} ar) y (okM⇒okU (SB.reg (SB.op SB.rl)) {su S} {su S'} o) (ivX {S'} {t'} ar')
rixg-X (SB.reg (SB.op SB.es)) {S} {t} {S'} {t'} ar y (o , _) ar' =
  rixg-okU (SB.reg (SB.op SB.es)) (ivX {S} {t} ar) y (okM⇒okU (SB.reg (SB.op SB.es)) {su S} {su S'} o) (ivX {S'} {t'} ar')
rixg-X (SB.reg SB.barrier) {S} {t} {S'} {t'} ar y (o , _) ar' =
  rixg-okU (SB.reg SB.barrier) (ivX {S} {t} ar) y (okM⇒okU (SB.reg SB.barrier) {su S} {su S'} o) (ivX {S'} {t'} ar')
rixg-X SB.flush {S} {t} {S'} {t'} ar y (inj₁ (o , _)) ar' =
  rixg-okU SB.flush (ivX {S} {t} ar) y (okM⇒okU SB.flush {su S} {su S'} o) (ivX {S'} {t'} ar')
rixg-X SB.flush {S} {t} {S'} {t'} ar y (inj₂ (f , _)) ar' =
  rixg-okU SB.flush (ivX {S} {t} ar) y (fiOk⇒okU {su S} {su S'} f) (ivX {S'} {t'} ar')

------------------------------------------------------------------------
-- Recovery with the full checkpoint

-- the crashed state's record slots hold nothing newer than the
-- generation recovery picks (P's `RecTo.ro`)
RoG : St → Set
RoG s = ∀ b g C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) → ∀ p → RLt (suc g) (cur (rcd s p))

rixg-recU : ∀ {b g C pr es' s} → (∀ p → RLt (suc g) (cur (rcd s p))) →
            RIxG (recU b g C pr es' s) [] (l2p (recR b g C pr es' s)) []
rixg-recU {b} {g} {C} {pr} {es'} {s} ro = record
  { cmP  = s≤s z≤n
  ; cmV  = tt
  ; rcOK = rc-step {ck3 u} (rc-sync {λ p → sync (rcd u p)} (rc-sync {rcd u} rsy))
  ; rcN  = λ p _ → rc-cur {ck3 u} (rc-sync {λ p → sync (rcd u p)} (rc-sync {rcd u} rsy)) p
  ; rcL  = λ y L ()
  ; lkOK = λ L ()
  }
  where
    u = recR b g C pr es' s
    rsy : ∀ p → Σ Cell λ c → rcd u p ≡ syn c × RLt (suc (gen u)) c
    rsy p = cur (rcd s p) , refl , ro p

-- PUM's recovery step keeps RIy, given RoG of the crashed state
rixg-rec : ∀ {S S' t'} → okPU SB.recover S S' → RoG (st (su S)) → (iv' : Inv′ (su S') t') → RIy iv'
rixg-rec {⟦ s , g0 ⟧} {⟦ ⟪ .(recU b g C (proj₂ g0) es' (st s)) , .[] ⟫ , g1 ⟧} {t'}
         ((b , g , C , pk , T , es' , ps , sh , refl) , refl , _) ro iv' =
  hold-to {⟪ recU b g C (proj₂ g0) es' (st s) , [] ⟫} {t'} {l2p (recR b g C (proj₂ g0) es' (st s))} {[]}
          (refl , refl , rixg-recU {b} {g} {C} {proj₂ g0} {es'} {st s} (ro b g C pk)) iv' ,
  rie-nil (recU b g C (proj₂ g0) es' (st s))

------------------------------------------------------------------------
-- Where PL's chain phase may start: no epoch unsynced and RIy give P's RI

ri-X : ∀ {s t} (iv : Inv′ ⟪ s , [] ⟫ t) → RIy iv → RI s
ri-X iv (x , _) = ri-of-pu iv (x-rixg x)
