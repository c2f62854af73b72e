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

open import Data.Nat.Base using (zero; suc; _≤_; _<_; s≤s; z≤n; _≡ᵇ_)
open import Data.Bool.Base using (Bool; true; false; not; _∧_)
open import Data.Empty using (⊥-elim)
open import Data.Nat.Properties using (≤-trans; m≤m⊔n; m≤n⊔m)
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
open Sp using (State; ⟨_,_,_⟩; volatile; stable; recover)

dok-just : ∀ {D mp a x p} → mp ≡ just p → DOK D mp a x → D p ≡ syn (dcell x a)
dok-just refl e = e

rdm-rec0 : ∀ b g C s mp → rdm (rec0 b g C s) mp ≡ rdD (dat s) mp
rdm-rec0 b g C s nothing  = refl
rdm-rec0 b g C s (just p) = refl

rdS-rec0 : ∀ b g C s mp → rdS (rec0 b g C s) mp ≡ rdD (dat s) mp
rdS-rec0 b g C s nothing  = refl
rdS-rec0 b g C s (just p) = refl

-- Recovery's SYNC changes nothing it reads.
rview-syncAll : ∀ g s → rview g (syncAll s) ≡ rview g s
rview-syncAll g s = cong (λ l → chn g (λ p → cur (rcd s p)) (λ p → cur (dat s p)) (acc g (λ p → cur (dat s p)) l))
                         (map-cur-sync (dr s))

recMap-syncAll : ∀ g C s → recMap g C (syncAll s) ≡ recMap g C s
recMap-syncAll g C s = cong (λ l → proj₁ (rp g l (st0 C))) (rview-syncAll g s)

-- the record slots recovery leaves: durable, nothing newer than g
rec0-rsy : ∀ b g C s → (∀ p → RLt (suc g) (cur (rcd s p))) →
  ∀ p → Σ Cell λ c → rcd (rec0 b g C s) p ≡ syn c × RLt (suc g) c
rec0-rsy b g C s ro p = cur (rcd s p) , refl , ro p

-- what recovery makes erasable (`reclaim`): below its next page, named by
-- neither L2P (both are the recovered map)
rec0-eOK : ∀ b g C s p → ers (rec0 b g C s) p ≡ true →
  p < nxt (rec0 b g C s) × (∀ a → a ≤ amax → l2p (rec0 b g C s) a ≢ just p)
                         × (∀ a → a ≤ amax → smap (rec0 b g C s) a ≢ just p)
rec0-eOK b g C s p e with reclaim-ok (recMap g C (syncAll s)) (nxt (rec0 b g C s)) p e
... | lt , un = lt , un , un

slot-sync : ∀ b s → slot b (syncAll s) ≡ sync (slot b s)
slot-sync true  s = refl
slot-sync false s = refl

-- A successful recovery from a state that recovers to M, whose pages
-- hold X, reaches a normal state reading X, with stable = volatile.
rec-sim : ∀ {s M X b g C} → RecTo s M → DOKs (dat s) M X →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
  AR (ck3 (rec0 b g C s)) ⟨ X , X , 0 ⟩ × RI (ck3 (rec0 b g C s))
rec-sim {s} {M} {X} (recto b g C pk₀ sl so rs rg mx dm ro) dk pk with trans (sym pk₀) pk
... | refl = ck3-AR {u = r0} (ar vol stb refl) ,
             ck3-RI {u = r0} vOK sOK (λ p ()) (rec0-eOK b g C s) (λ _ → refl) refl refl (s≤s z≤n) (rec0-rsy b g C s ro)
  where
    r0 = rec0 b g C s
    M' = recMap g C (syncAll s)
    mx' : M' ≐ M
    mx' a = trans (cong (λ f → f a) (recMap-syncAll g C s)) (mx a)
    vol : ∀ a → a ≤ amax → rdm r0 (M' a) ≡ X a
    vol a le = trans (cong (rdm r0) (mx' a)) (trans (rdm-rec0 b g C s (M a)) (dok-rd (M a) (dk a le)))
    stb : ∀ a → a ≤ amax → rdS r0 (M' a) ≡ X a
    stb a le = trans (cong (rdS r0) (mx' a)) (trans (rdS-rec0 b g C s (M a)) (dok-rd (M a) (dk a le)))
    vOK : ∀ a p → a ≤ amax → M' a ≡ just p → p < nxt r0 × Σ Data λ d → pv r0 p ≡ dcell d a
    vOK a p le e = ≤-trans (hi-bound M' amax a p le e) (m≤m⊔n _ _) , X a ,
      cong cur (dok-just (trans (sym (mx' a)) e) (dk a le))
    sOK : ∀ a p → a ≤ amax → M' a ≡ just p →
          p < nxt r0 × nothing ≡ nothing × Σ Data λ d → dat r0 p ≡ syn (dcell d a)
    sOK a p le e = ≤-trans (hi-bound M' amax a p le e) (m≤m⊔n _ _) , refl , X a , cong sync (dok-just (trans (sym (mx' a)) e) (dk a le))

-- A crash during recovery (inside its full checkpoint) recovers to the
-- same L2P, with the same data.
rec-crash : ∀ {s s' m M X b g C} → RecTo s M → DOKs (dat s) M X →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
  CkPt (rec0 b g C s) m → Img m s' → RecTo s' M × DOKs (dat s') M X
rec-crash {s} {M = M} (recto b g C pk₀ sl so rs rg mx dm ro) dk pk ck img with trans (sym pk₀) pk
... | refl =
  ck-crash {u = rec0 b g C s} C (trans (slot-sync b s) (cong sync sl))
           (subst (PM (Older g)) (sym (slot-sync (not b) s)) (PM-sync (slot (not b) s) so))
           (all-sync-IsSyn (dr s)) (all-sync rg) (λ p → tt) (rec0-rsy b g C s ro) mx' mx'
           (subst (DgM M) (sym (rview-syncAll g s)) dm) ck img ,
  dok-crash (proj₁ img) (dok-ck {u = rec0 b g C s} (dok-sync dk) ck)
  where
    mx' : recMap g C (syncAll s) ≐ M
    mx' a = trans (cong (λ f → f a) (recMap-syncAll g C s)) (mx a)

------------------------------------------------------------------------
-- Recovery without a full checkpoint (it dropped no committed page):
-- the region stays as it is, the epoch id goes above every id on it.

-- the recovered region's committed part: what recovery dropped does not
-- commit, and the newest committed page it accepted has a digest that
-- verified and names pages the recovered L2P maps
cmv-rec : ∀ g (D : ℕ → Cell) {sm DD} → (∀ p c → D p ≡ c → DD p ≡ syn c) →
  ∀ cs → clean g D cs ≡ true → DgM sm (acc g D cs) → CmV g sm DD cs
cmv-rec g D f []       _  _  = tt
cmv-rec g D {sm} {DD} f (c ∷ cs) cl dg with okC g D c cs in ok
... | false with isC g c in ic
...   | true  = ⊥-elim (ff cl)
  where ff : false ≡ true → Data.Empty.⊥
        ff ()
...   | false = inj₁ (refl , cmv-rec g D f cs cl dg)
cmv-rec g D {sm} {DD} f (dlt h x ps true (dd , dt , L) ∷ cs) cl dg | true
  with ∧-true (h ≡ᵇ g) _ ok
... | e1 , e2 with ∧-true (verD D dd) _ e2
...   | vd , vt with ≡ᵇ-sound h g e1
...     | refl = inj₂ (x , ps , (dd , dt , L) , refl , go dd vd dg , vt)
  where
    go : ∀ xs → verD D xs ≡ true → All (EntM sm) xs → All (Ent sm DD) xs
    go [] _ [] = []
    go ((p , d , a) ∷ xs) v ((le , e) ∷ es) with ∧-true (holds (D p) d a) _ v
    ... | v1 , v2 = (le , e , f p _ (holds-sound (D p) d a v1)) ∷ go xs v2 es
cmv-rec g D f (erased ∷ cs) cl dg | true with () <- ok
cmv-rec g D f (junk ∷ cs) cl dg | true with () <- ok
cmv-rec g D f (dcell _ _ ∷ cs) cl dg | true with () <- ok
cmv-rec g D f (cpt _ _ ∷ cs) cl dg | true with () <- ok
cmv-rec g D f (dlt _ _ _ false _ ∷ cs) cl dg | true with () <- ok

rec0-sim : ∀ {s M X b g C} → RecTo s M → DOKs (dat s) M X →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
  clean g (λ p → cur (dat s p)) (map cur (dr s)) ≡ true → Quiet g s →
  AR (rec0 b g C s) ⟨ X , X , 0 ⟩ × RI (rec0 b g C s)
rec0-sim {s} {M} {X} (recto b g C pk₀ sl so rs rg mx dm ro) dk pk cl (q1 , q2) with trans (sym pk₀) pk
... | refl = ar vol stb refl , record
  { C = C ; tents = [] ; comm = map cur (dr s)
  ; slotL = trans (slot-sync b s) (cong sync sl)
  ; slotO = subst (PM (Older g)) (sym (slot-sync (not b) s)) (PM-sync (slot (not b) s) so)
  ; regEq = map-sync-syn (dr s)
  ; tNC = [] ; gle = all-sync rg
  ; cmX = λ a → sym (trans (cong (λ f → f a) (recMap-syncAll g C s))
                     (trans (cong (λ l → proj₁ (rp g l (st0 C)) a) rn)
                            (cong (λ f → f a) (acc-clean g D (map cur (dr s)) (st0 C) cl))))
  ; cmP = s≤s (pend-top g (map cur (dr s)) C)
  ; vm = λ a → refl
  ; vOK = vOK ; sOK = sOK ; iOK = λ p () ; eOK = rec0-eOK b g C s
  ; tEq = refl
  ; cmV = cv
  ; rcOK = λ p → cur (rcd s p) , refl , ro p
  ; lkOK = λ L ()
  ; rcN = λ p le → q2 p (≤-trans (m≤n⊔m (hi (recMap g C (syncAll s)) amax) (hiR (map cur (dr s)))) le)
  ; rcL = λ x L e → q1 x L (trans (acc-lk D (λ p c e' → cong cur e') (map cur (dr s)) cv) e) }
  where
    D = λ p → cur (dat s p)
    rn : rview g s ≡ acc g D (map cur (dr s))
    rn = chn-quiet g (λ p → cur (rcd s p)) D _ q1
    r0 = rec0 b g C s
    M' = recMap g C (syncAll s)
    mx' : M' ≐ M
    mx' a = trans (cong (λ f → f a) (recMap-syncAll g C s)) (mx a)
    vol : ∀ a → a ≤ amax → rdm r0 (M' a) ≡ X a
    vol a le = trans (cong (rdm r0) (mx' a)) (trans (rdm-rec0 b g C s (M a)) (dok-rd (M a) (dk a le)))
    stb : ∀ a → a ≤ amax → rdS r0 (M' a) ≡ X a
    stb a le = trans (cong (rdS r0) (mx' a)) (trans (rdS-rec0 b g C s (M a)) (dok-rd (M a) (dk a le)))
    vOK : ∀ a p → a ≤ amax → M' a ≡ just p → p < nxt r0 × Σ Data λ d → pv r0 p ≡ dcell d a
    vOK a p le e = ≤-trans (hi-bound M' amax a p le e) (m≤m⊔n _ _) , X a ,
      cong cur (dok-just (trans (sym (mx' a)) e) (dk a le))
    sOK : ∀ a p → a ≤ amax → M' a ≡ just p →
          p < nxt r0 × nothing ≡ nothing × Σ Data λ d → dat r0 p ≡ syn (dcell d a)
    sOK a p le e = ≤-trans (hi-bound M' amax a p le e) (m≤m⊔n _ _) , refl , X a , cong sync (dok-just (trans (sym (mx' a)) e) (dk a le))
    cv : CmV g (recMap g C (syncAll s)) (λ p → sync (dat s p)) (map cur (dr s))
    cv = cmv-rec g D (λ p c e → cong syn e) (map cur (dr s)) cl
           (DgM-≐ (λ a → sym (mx' a)) (acc g D (map cur (dr s))) (subst (DgM M) rn dm))

-- either way
recover-sim : ∀ {s M X s'} → RecTo s M → DOKs (dat s) M X → okP recover s s' →
  AR s' ⟨ X , X , 0 ⟩ × RI s'
recover-sim rt dk (b , g , C , pk , inj₁ refl)         = rec-sim rt dk pk
recover-sim rt dk (b , g , C , pk , inj₂ (cl , qt , refl)) = rec0-sim rt dk pk cl qt
