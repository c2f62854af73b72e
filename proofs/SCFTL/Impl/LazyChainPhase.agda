{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: PL's chain phase from P's RI.
--
-- `Phase s`: the chain's invariant (`CInv`), the stable image
-- (`SInv`) and the region's part (`RInv`) together, for the region's
-- newest commit c (epoch x, link L) and the checkpoint's L2P C.
--
--   * `phase-start`: a state with P's invariant RI whose next flush may
--     commit lazily (a link L, no tentative page, L ≤ nxt) is in the
--     chain phase with an empty chain;
--   * PL's steps that write no region page keep it: `phase-wr`,
--     `phase-rl` (unless a tentative page follows the consolidation
--     page), `phase-es` (PL's guarded erase), `phase-lazy` (the lazy
--     commit, given P's `vOK`);
--   * formula (4): `phase-crash` (every crash outcome: recovery's L2P
--     from C is the stable image), `phase-fi2-crash` (right before the
--     lazy commit's SYNC: the stable image or the flush's).
--
-- Not proven: P's `vOK` across the chain phase (a hypothesis of
-- `phase-lazy`), the consolidation step's crash and P's flush after it,
-- recovery (which checkpoint the crashed flash's `pick` returns), and
-- Theorem 1 for PL.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainPhase (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                 (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≡ᵇ_; z≤n)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥-elim)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (All; Ent; CmV; verD-ent; _≐_; lkTop)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; LkHd)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainSteps Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainStable Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainRegion Data d0 amax wmax kmax _≟D_ kc
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (use; w; rl; es) renaming (reg to regop)

record Phase (s : St) : Set where
  constructor phase
  field
    ph-C    : Map
    ph-x ph-L ph-y ph-E : ℕ
    ph-rs ph-rest : List Cell
    ph-c    : Cell
    ph-M0   : Map
    ph-z    : ℕ
    ph-cinv : CInv kc s ph-x ph-L ph-rs ph-y ph-E
    ph-sinv : SInv s ph-M0 ph-rs
    ph-rinv : RInv s ph-c ph-rest
    ph-lk   : lkOf (ph-c ∷ ph-rest) ≡ just (ph-x , ph-L)
    ph-rp   : rp (gen s) (ph-c ∷ ph-rest) (st0 ph-C) ≡ (ph-M0 , ph-z , ph-M0)
open Phase public

------------------------------------------------------------------------
-- The start: P's RI at a link

private
  entB : ∀ {s} → RI s → ∀ dd → All (Ent (smap s) (dat s)) dd → BelowD (nxt s) dd
  entB r []                 All.[]                   = []
  entB r ((p , d , a) ∷ dd) ((le , e , _) All.∷ ess) = proj₁ (RI.sOK r a p le e) ∷ entB r dd ess

  entF : ∀ {s} → RI s → ∀ dd → All (Ent (smap s) (dat s)) dd → FixDig s dd
  entF r []                 All.[]                   = []
  entF r ((p , d , a) ∷ dd) ((le , e , _) All.∷ ess) = proj₁ (proj₂ (RI.sOK r a p le e)) ∷ entF r dd ess

  rdu-RI : ∀ {s} → RI s → ∀ p → rcd s p ≡ syn (cur (rcd s p))
  rdu-RI {s} r p with RI.rcOK r p
  ... | c , e , _ rewrite e = refl

  false≢true : false ≡ true → ∀ {A : Set} → A
  false≢true ()

  dgOf′ : Cell → Dg
  dgOf′ (dlt _ _ _ _ d) = d
  dgOf′ _               = ε

phase-start⁺ : ∀ {s L} → RI s → lnk s ≡ just L → ept s ≡ [] → L ≤ nxt s → Σ (Phase s) λ ph → ph-rs ph ≡ []
phase-start⁺ {s} {L} r ln et le with RI.lkOK r L ln
... | x , ps , dd , dt , cs , ce , ex = go (RI.comm r) ce (RI.cmV r) (RI.cmX r) (RI.rcL r) (RI.regEq r)
  where
    g = gen s
    go : ∀ comm → comm ≡ dlt g x ps true (dd , dt , L) ∷ cs → CmV g (smap s) (dat s) comm →
         proj₁ (rp g comm (st0 (RI.C r))) ≐ smap s →
         (∀ x' L' → lkTop g comm ≡ just (x' , L') → Above g (λ p → cur (rcd s p)) L') →
         dr s ≡ RI.tents r ++ map syn comm → Σ (Phase s) λ ph → ph-rs ph ≡ []
    go _ refl (inj₁ (nc , _)) _ _ _ = false≢true (trans (sym nc) (eqb-refl g))
    go _ refl (inj₂ (x' , _ , dg' , ce' , ess' , vt')) cx hrl re =
      phase (RI.C r) x L x L [] cs c0 _ _
        (cinv end (hrl x L (lt1 g)) [] [] [] [] (rdu-RI r) z≤n ln (sym ex) le)
        (sinv (λ a → sym (cx a)) (RI.vm r))
        (rinv deq ok (ent-dur dd ess) (entB r dd ess) (entF r dd ess))
        refl (rp1 g) , refl
      where
        c0 = dlt g x ps true (dd , dt , L)
        dgE : (dd , dt , L) ≡ dg'
        dgE = cong dgOf′ ce'
        xE : x ≡ x'
        xE = cong epOf ce'
        ess : All (Ent (smap s) (dat s)) dd
        ess = subst (λ d → All (Ent (smap s) (dat s)) (proj₁ d)) (sym dgE) ess'
        vt : verT g x dt cs ≡ true
        vt = subst (λ d → verT g x (proj₁ (proj₂ d)) cs ≡ true) (sym dgE)
                   (subst (λ y → verT g y (proj₁ (proj₂ dg')) cs ≡ true) (sym xE) vt')
        lt1 : ∀ g → lkTop g (dlt g x ps true (dd , dt , L) ∷ cs) ≡ just (x , L)
        lt1 g rewrite eqb-refl g = refl
        ok : okC g (Dof s) c0 cs ≡ true
        ok rewrite eqb-refl g | verD-ent (Dof s) (λ p c e → cong cur e) dd ess | vt = refl
        deq : dr s ≡ map syn (c0 ∷ cs)
        deq = trans re (cong (_++ map syn (c0 ∷ cs)) (trans (RI.tEq r) (cong (map _) et)))
        rp1 : ∀ g → rp g (dlt g x ps true (dd , dt , L) ∷ cs) (st0 (RI.C r))
                    ≡ (proj₁ (rp g (dlt g x ps true (dd , dt , L) ∷ cs) (st0 (RI.C r))) , x ,
                       proj₁ (rp g (dlt g x ps true (dd , dt , L) ∷ cs) (st0 (RI.C r))))
        rp1 g rewrite eqb-refl g = refl

phase-start : ∀ {s L} → RI s → lnk s ≡ just L → ept s ≡ [] → L ≤ nxt s → Phase s
phase-start r ln et le = proj₁ (phase-start⁺ r ln et le)

-- `phase-start-rs`: the chain phase starts with an empty chain
phase-start-rs : ∀ {s L} (r : RI s) (ln : lnk s ≡ just L) (et : ept s ≡ []) (le : L ≤ nxt s) →
                 ph-rs (phase-start r ln et le) ≡ []
phase-start-rs r ln et le = proj₂ (phase-start⁺ r ln et le)

------------------------------------------------------------------------
-- PL's steps that write no region page

gen-optP : ∀ f s → gen (optP f s) ≡ gen s
gen-optP true  s = refl
gen-optP false s = refl

mkP : ∀ {s s' C x L y E rs rest c M0 z} → gen s' ≡ gen s → CInv kc s' x L rs y E → SInv s' M0 rs → RInv s' c rest →
      lkOf (c ∷ rest) ≡ just (x , L) → rp (gen s) (c ∷ rest) (st0 C) ≡ (M0 , z , M0) → Phase s'
mkP {C = C} {x} {L} {y} {E} {rs} {rest} {c} {M0} {z} eg ci si ri lk e =
  phase C x L y E rs rest c M0 z ci si ri lk (subst (λ g → rp g (c ∷ rest) (st0 C) ≡ (M0 , z , M0)) (sym eg) e)

phase-wr : ∀ {G s s' a d} → Phase s → okPL G (use (regop (w a d))) s s' →
           Phase s' ⊎ (Σ Bool λ f1 → s' ≡ emitT (konsS (optP f1 (wr0 a d s))))
phase-wr {s = s} {a = a} {d} (phase C x L y E rs rest c M0 z ci si ri lk e) (inj₁ (_ , f1 , false , refl)) =
  inj₁ (mkP {s} (gen-optP f1 (wr0 a d s)) (cinv-optP f1 (cinv-wr0 a d ci)) (si-optP f1 (si-wr0 a d si))
              (ri-optP f1 (ri-wr0 a d ri)) lk e)
phase-wr ph (inj₁ (_ , f1 , true , refl)) = inj₂ (f1 , refl)
phase-wr ph (inj₂ (_ , refl))             = inj₁ ph

phase-rl : ∀ {G s s'} → Phase s → okPL G (use (regop rl)) s s' →
           Phase s' ⊎ (Σ ℕ λ p → Σ Bool λ f1 → s' ≡ emitT (konsS (optP f1 (rl0 p s))))
phase-rl {s = s} (phase C x L y E rs rest c M0 z ci si ri lk e) (inj₁ (_ , p , _ , inj₁ (_ , f1 , false , refl))) =
  inj₁ (mkP {s} (gen-optP f1 (rl0 p s)) (cinv-optP f1 (cinv-rl0 p ci)) (si-optP f1 (si-rl0 p si))
              (ri-optP f1 (ri-rl0 p ri)) lk e)
phase-rl ph (inj₁ (_ , p , _ , inj₁ (_ , f1 , true , refl))) = inj₂ (p , f1 , refl)
phase-rl (phase C x L y E rs rest c M0 z ci si ri lk e) (inj₁ (_ , p , _ , inj₂ (_ , refl))) =
  inj₁ (phase C x L y E rs rest c M0 z (cinv-rlX p ci) (si-rlX p si) (ri-rlX p ri) lk e)
phase-rl ph (inj₂ (_ , refl)) = inj₁ ph

phase-es : ∀ {s s'} → Phase s → okPL EraseGuard (use (regop es)) s s' → Phase s'
phase-es {s} (phase C x L y E rs rest c M0 z ci si ri lk e) st@(p , _ , _ , refl) =
  phase C x L y E rs rest c M0 z (pl-es ci (trans (cong lkOf (ri-acc ri)) lk) st) (si-esF p si) (pl-es-R ri st) lk e

phase-lazy : ∀ {s M} → VOKn s → Phase s → Lazy s M → Phase (fiL M s)
phase-lazy {s} {M} vo (phase C x L y E rs rest c M0 z ci si ri lk e) lz =
  phase C x L (suc y) (nxt s) (rs ++ rec s ∷ []) rest c M0 z
        (pl-lazy vo ci (trans (cong lkOf (ri-acc ri)) lk) lz) (si-fiL {s} {M} lz si) (ri-fiL M ri) lk e

------------------------------------------------------------------------
-- Formula (4)

phase-crash : ∀ {s s'} (ph : Phase s) → Img s s' → ∀ a → recMapL kc (gen s) (ph-C ph) s' a ≡ smap s a
phase-crash {s} {s'} (phase C x L y E rs rest c M0 z ci si ri lk e) img = pl-stable-R {s} {s'} C z ci si ri lk e img

phase-fi2-crash : ∀ {s s' M} (ph : Phase s) → Lazy s M → Img (fi2 M s) s' →
                  (∀ a → recMapL kc (gen s) (ph-C ph) s' a ≡ smap s a) ⊎ (∀ a → recMapL kc (gen s) (ph-C ph) s' a ≡ l2p s a)
phase-fi2-crash {s} {s'} {M} (phase C x L y E rs rest c M0 z ci si ri lk e) lz img =
  pl-fi2-stable-R {s} {s'} {M} C z ci si ri lk e lz img
