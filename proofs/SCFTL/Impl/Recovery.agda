{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Per-operation correctness (types A and B) of recovery in the SCFTL
-- model: successful recovery (checkpoint + committed deltas, rebuilt
-- memory state, new generation) and crashed recovery.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.Recovery (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false; not)
open import Data.Unit.Base using (tt)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (State; ⟨_,_,_⟩; volatile; stable)

dok-just : ∀ {D mp a x p} → mp ≡ just p → DOK D mp a x → D p ≡ syn (dcell x a)
dok-just refl e = e

rdm-rec0 : ∀ b g C s mp → rdm (rec0 b g C s) mp ≡ rdD (dat s) mp
rdm-rec0 b g C s nothing  = refl
rdm-rec0 b g C s (just p) = refl

rdS-rec0 : ∀ b g C s mp → rdS (rec0 b g C s) mp ≡ rdD (dat s) mp
rdS-rec0 b g C s nothing  = refl
rdS-rec0 b g C s (just p) = refl

-- Recovery's SYNC changes nothing it reads.
recMap-syncAll : ∀ g C s → recMap g C (syncAll s) ≡ recMap g C s
recMap-syncAll g C s = cong (λ l → proj₁ (rp g (acc g (λ p → cur (dat s p)) l) (C , C))) (map-cur-sync (dr s))

slot-sync : ∀ b s → slot b (syncAll s) ≡ sync (slot b s)
slot-sync true  s = refl
slot-sync false s = refl

-- A successful recovery from a state that recovers to M, whose pages
-- hold X, reaches a normal state reading X, with stable = volatile.
rec-sim : ∀ {s M X b g C} → RecTo s M → DOKs (dat s) M X →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
  AR (ck3 (rec0 b g C s)) ⟨ X , X , 0 ⟩ × RI (ck3 (rec0 b g C s))
rec-sim {s} {M} {X} (recto b g C pk₀ sl so rs rg mx) dk pk with trans (sym pk₀) pk
... | refl = ck3-AR {u = r0} (ar vol stb refl) ,
             ck3-RI {u = r0} vOK sOK (λ p ()) (λ p ()) (λ _ → refl) refl refl
  where
    r0 = rec0 b g C s
    M' = recMap g C (syncAll s)
    mx' : M' ≐ M
    mx' a = trans (cong (λ f → f a) (recMap-syncAll g C s)) (mx a)
    vol : ∀ a → a ≤ amax → rdm r0 (M' a) ≡ X a
    vol a le = trans (cong (rdm r0) (mx' a)) (trans (rdm-rec0 b g C s (M a)) (dok-rd (M a) (dk a le)))
    stb : ∀ a → a ≤ amax → rdS r0 (M' a) ≡ X a
    stb a le = trans (cong (rdS r0) (mx' a)) (trans (rdS-rec0 b g C s (M a)) (dok-rd (M a) (dk a le)))
    vOK : ∀ a p → a ≤ amax → M' a ≡ just p → p < hi M' amax × Σ Data λ d → pv r0 p ≡ dcell d a
    vOK a p le e = hi-bound M' amax a p le e , X a ,
      cong cur (dok-just (trans (sym (mx' a)) e) (dk a le))
    sOK : ∀ a p → a ≤ amax → M' a ≡ just p →
          p < hi M' amax × nothing ≡ nothing × Σ Data λ d → dat r0 p ≡ syn (dcell d a)
    sOK a p le e = hi-bound M' amax a p le e , refl , X a , cong sync (dok-just (trans (sym (mx' a)) e) (dk a le))

-- A crash during recovery (inside its full checkpoint) recovers to the
-- same L2P, with the same data.
rec-crash : ∀ {s s' m M X b g C} → RecTo s M → DOKs (dat s) M X →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
  CkPt (rec0 b g C s) m → Img m s' → RecTo s' M × DOKs (dat s') M X
rec-crash {s} {M = M} (recto b g C pk₀ sl so rs rg mx) dk pk ck img with trans (sym pk₀) pk
... | refl =
  ck-crash {u = rec0 b g C s} C (trans (slot-sync b s) (cong sync sl))
           (subst (PM (Older g)) (sym (slot-sync (not b) s)) (PM-sync (slot (not b) s) so))
           (all-sync-IsSyn (dr s)) (all-sync rg) (λ p → tt) mx' mx' ck img ,
  dok-crash (proj₁ img) (dok-ck {u = rec0 b g C s} (dok-sync dk) ck)
  where
    mx' : recMap g C (syncAll s) ≐ M
    mx' a = trans (cong (λ f → f a) (recMap-syncAll g C s)) (mx a)
