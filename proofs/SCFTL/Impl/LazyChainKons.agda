{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: the consolidation step against P's RI.
--
-- With P's RI on the virtually consolidated state (SCFTL.Impl.
-- LazyChainVirtual: the chain's records `vs` on the region), the state
-- after PL's consolidation step (`kS`: the consolidation page of `vs`
-- programmed on the region and synced) satisfies P's RI itself
-- (`kons-RI`: the consolidation page replaces the records as the
-- region's newest commit, its replay theirs) and P's AR (`kons-AR`).
-- Hence type A and B of PL's flush that ends a chain (`kons-flush`:
-- P's flush after the consolidation page, by P's `flush-sim`) and of a
-- write's or relocation's tentative page after it (`kons-emitT`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainKons (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Base using () renaming (ℕ to Nat)
open import Data.Nat.Properties using (≤-refl)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (All; PM; GenLe; Older; PM-sync; all-sync; map-cur-syn; map-cur-++; rstep-commit; pend; lkTop)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; ar; LkHd; rdD)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (map-sync-syn; lkTop-hd; just-snd; flush-sim; tF)
open import SCFTL.Impl.Regular Data d0 amax wmax kmax _≟D_ using (emitT-RI)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (kons; Recs; kons-replay; cpairs; follow; follow-lay; rv; LayP; end)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (chainOf; konsS; konsX; konsFor; virt)
open import SCFTL.Impl.LazyChainSteps Data d0 amax wmax kmax _≟D_ kc using (kS; pre-nil)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (State; okS; use; flush)

private
  headC : List Cell → Cell
  headC []      = junk
  headC (c ∷ _) = c

  all-suffix : ∀ {A : Set} {P : A → Set} xs {ys} → All P (xs ++ ys) → All P ys
  all-suffix []       a              = a
  all-suffix (x ∷ xs) (All._∷_ _ a) = all-suffix xs a

  just-inj : ∀ {A : Set} {a b : A} → just a ≡ just b → a ≡ b
  just-inj refl = refl

-- `kons-RI`: P's RI after the consolidation step
kons-RI : ∀ {s vs y ps dd dt E vs' M z} → (r : RI (virt vs s)) → ept s ≡ [] → lnk s ≡ just E →
          vs ≡ dlt (gen s) y ps true (dd , dt , E) ∷ vs' → Recs (gen s) vs →
          rp (gen s) (map cur (dr s)) (st0 (RI.C r)) ≡ (M , z , M) →
          RI (kS s (kons (gen s) y ([] , [] , E) vs))
kons-RI {s} {vs} {y} {ps} {dd} {dt} {E} {vs'} {M} {z} r et ln ev rc hz = record
  { C = C ; tents = [] ; comm = K ∷ c0
  ; slotL = cong sync slotL
  ; slotO = PM-sync {P = Older g} (cpO s) slotO
  ; regEq = cong (syn K ∷_) (map-sync-syn (dr s))
  ; tNC = All.[]
  ; gle = All._∷_ ≤-refl (all-sync (all-suffix (map syn vs) gle))
  ; cmX = λ a → trans (cong (λ f → f a) (kons-replay g y ([] , [] , E) vs c0 (st0 C) M z rc hz))
                     (subst (λ l → proj₁ (rp g l (st0 C)) a ≡ smap s a) commEq (cmX a))
  ; cmP = subst (λ x → pend x < ep s) (sym (rstep-commit g y (cpairs vs) {([] , [] , E)} (rp g c0 (st0 C))))
                (subst (y <_) (sym epEq) ≤-refl)
  ; vm = vm
  ; vOK = vOK
  ; sOK = λ a p le e → let (lt , m , d , de) = sOK a p le e in lt , m , d , cong sync de
  ; iOK = iOK ; eOK = eOK
  ; tEq = sym (cong (map (λ ps → uns erased (dlt (gen s) (ep s) ps false ε))) et)
  ; cmV = inj₂ (y , cpairs vs , ([] , [] , E) , refl , All.[] , refl)
  ; rcOK = λ p → let (c , e , lt) = rcOK p in c , cong sync e , lt
  ; rcN = rcN
  ; rcL = λ x' L' e → subst (Above g (λ p → cur (rcd s p))) (just-snd (trans (sym (lkTop-hd g y (cpairs vs) [] [] E c0)) e))
                            (rcL y E (subst (λ l → lkTop g l ≡ just (y , E)) (sym (trans commEq (cong (_++ c0) ev)))
                                            (lkTop-hd g y ps dd dt E (vs' ++ c0))))
  ; lkOK = λ L' ln' → subst (λ L'' → LkHd g (ep s) L'' (K ∷ c0)) (just-inj (trans (sym ln) ln'))
                            (y , cpairs vs , [] , [] , c0 , refl , sym epEq)
  }
  where
    open RI r
    g = gen s
    K = kons g y ([] , [] , E) vs
    c0 = map cur (dr s)
    tnil : tents ≡ []
    tnil = trans tEq (cong (map (λ ps → uns erased (dlt (gen s) (ep s) ps false ε))) et)
    re' : map syn vs ++ dr s ≡ map syn comm
    re' = trans regEq (cong (_++ map syn comm) tnil)
    commEq : comm ≡ vs ++ c0
    commEq = trans (sym (map-cur-syn comm))
               (trans (cong (map cur) (sym re'))
                 (trans (map-cur-++ (map syn vs) (dr s)) (cong (_++ c0) (map-cur-syn vs))))
    epEq : ep s ≡ suc y
    epEq with lkOK E ln
    ... | x' , _ , _ , _ , _ , ce , ex =
      trans (sym ex) (cong suc (trans (sym (cong (λ l → epOf (headC l)) ce))
                                      (cong (λ l → epOf (headC l)) (trans commEq (cong (_++ c0) ev)))))

-- `kons-AR`: the step reads as before
rdMD-sync : ∀ M (D : ℕ → MC) mp → rdMD M (λ p → sync (D p)) mp ≡ rdMD M D mp
rdMD-sync M D nothing  = refl
rdMD-sync M D (just p) = refl

rdD-sync : ∀ (D : ℕ → MC) mp → rdD (λ p → sync (D p)) mp ≡ rdD D mp
rdD-sync D nothing  = refl
rdD-sync D (just p) = refl

kons-AR : ∀ {s t K} → AR s t → AR (kS s K) t
kons-AR {s} (ar v st c) =
  ar (λ a le → trans (rdMD-sync (mb s) (dat s) (l2p s a)) (v a le))
     (λ a le → trans (rdD-sync (dat s) (smap s a)) (st a le)) c

-- `kons-flush`: PL's flush that ends a chain (P's flush after the
-- consolidation page): type A and B against S
kons-flush : ∀ {s vs y ps dd dt E vs' M z t s'} → AR s t → (r : RI (virt vs s)) → ept s ≡ [] → lnk s ≡ just E →
             vs ≡ dlt (gen s) y ps true (dd , dt , E) ∷ vs' → Recs (gen s) vs →
             rp (gen s) (map cur (dr s)) (st0 (RI.C r)) ≡ (M , z , M) →
             okP (use flush) (kS s (kons (gen s) y ([] , [] , E) vs)) s' →
             Σ State λ t' → okS (use flush) t t' × AR s' t' × RI s'
kons-flush arr r et ln ev rc hz st = flush-sim (kons-AR arr) (kons-RI r et ln ev rc hz) st

-- `kons-emitT`: a tentative page after the consolidation page: P's RI
-- and the same reads
kons-emitT : ∀ {s vs y ps dd dt E vs' M z t} → AR s t → (r : RI (virt vs s)) → ept s ≡ [] → lnk s ≡ just E →
             vs ≡ dlt (gen s) y ps true (dd , dt , E) ∷ vs' → Recs (gen s) vs →
             rp (gen s) (map cur (dr s)) (st0 (RI.C r)) ≡ (M , z , M) →
             let s' = emitT (kS s (kons (gen s) y ([] , [] , E) vs)) in AR s' t × RI s'
kons-emitT {s} {vs} {y} {E = E} {t = t} arr r et ln ev rc hz with kons-AR {s} {t} {kons (gen s) y ([] , [] , E) vs} arr
... | ar v st c = ar v st c , emitT-RI (kons-RI r et ln ev rc hz)

------------------------------------------------------------------------
-- Without a chain PL's steps are P's

-- `ri-chain-free`: in a state with P's RI the walk finds no record (RI's
-- `rcL`: nothing of the generation past the region's link)
ri-chain-free : ∀ {s} → RI s → chainOf s ≡ []
ri-chain-free {s} r = go (lkTop g (RI.comm r)) refl
  where
    open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (acc-lk)
    open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (acc-split)
    g = gen s
    D = λ p → cur (dat s p)
    R = λ p → cur (rcd s p)
    lkEq : lkOf (acc g D (map cur (dr s))) ≡ lkTop g (RI.comm r)
    lkEq = trans (cong (λ l → lkOf (acc g D (map cur l))) (RI.regEq r))
             (trans (cong lkOf (acc-split g D (RI.tents r) (RI.comm r) (RI.tNC r)))
                    (acc-lk D (λ p c e → cong cur e) (RI.comm r) (RI.cmV r)))
    fnil : ∀ k → follow k g R D nothing ≡ []
    fnil zero    = refl
    fnil (suc k) = refl
    go : ∀ m → lkTop g (RI.comm r) ≡ m → chainOf s ≡ []
    go nothing e = trans (cong (follow kc g R D) (trans lkEq e)) (fnil kc)
    go (just (x , L)) e =
      trans (cong (follow kc g R D) (trans lkEq e))
            (trans (follow-lay kc D end (RI.rcL r x L e)) (cong rv (pre-nil g D kc x)))

-- `konsS-free`: without a chain the consolidation step does nothing
konsS-free : ∀ {s} → chainOf s ≡ [] → konsS s ≡ s
konsS-free {s} e = cong (λ cs → konsX (konsFor (gen s) cs) s) e

-- `pl-flush-free`: PL's (non-lazy) flush from a state with P's RI is
-- P's flush: type A and B by P's `flush-sim`
pl-flush-free : ∀ {s t s'} → AR s t → RI s → okP (use flush) (konsS s) s' →
                Σ State λ t' → okS (use flush) t t' × AR s' t' × RI s'
pl-flush-free {s} {t} {s'} arr r st =
  flush-sim arr r (subst (λ u → okP (use flush) u s') (konsS-free {s} (ri-chain-free r)) st)
