{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: formula (4) for PL's chain phase.  The
-- stable image (P's ghost `smap`, the image at the last SYNC) of a state
-- with a chain is the region's replay M0 with every record's pairs on
-- top (`SInv`, with P's `vm`: the volatile L2P is the stable one with
-- the epoch's pairs).  PL's steps keep it (`si-wr0`, `si-rl0`, `si-rlX`,
-- `si-progMB`, `si-esF`, `si-emitT`; the lazy commit `si-fiL`: the
-- chain with its record is the flush's image; the consolidation step
-- `si-kS`: the page's replay is the new region's), and
--
--   * `pl-stable`: every crash outcome of a state with `CInv` and
--     `SInv` (its region still replaying to M0) recovers exactly the
--     stable image: recovery's L2P (`recMapL`) is `smap`;
--   * `pl-fi2-stable`: a crash right before the lazy commit's SYNC
--     recovers the stable image or the flush's (the volatile L2P):
--     formula (4) for the lazy commit.
--
-- Hypotheses not proven for PL (P's RI gives them for P): the region's
-- replay after a crash is the one before (`AccTop … M0`), and its newest
-- commit's link (`RLg`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainStable (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                  (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (suc)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.Maybe.Base using (just)
open import Data.Bool.Base using (true; false)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (_≐_; ≐-upd; apply-++)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainSteps Data d0 amax wmax kmax _≟D_ kc

apply-≐ : ∀ ps {M M'} → M ≐ M' → apply ps M ≐ apply ps M'
apply-≐ []             e = e
apply-≐ ((a , p) ∷ ps) e = ≐-upd a (just p) (apply-≐ ps e)

rv-snoc : ∀ (rs : List Cell) c → rv (rs ++ c ∷ []) ≡ c ∷ rv rs
rv-snoc []       c = refl
rv-snoc (r ∷ rs) c = cong (_++ (r ∷ [])) (rv-snoc rs c)

------------------------------------------------------------------------
-- The stable image of a state with a chain

record SInv (s : St) (M0 : Map) (rs : List Cell) : Set where
  constructor sinv
  field
    si-smap : smap s ≐ apply (cpairs (rv rs)) M0
    si-vm   : l2p s ≐ apply (dbuf s) (apply (concat (ept s)) (smap s))
open SInv public

si-wr0 : ∀ {s M0 rs} a d → SInv s M0 rs → SInv (wr0 a d s) M0 rs
si-wr0 {s} a d (sinv sm vm) = sinv sm (≐-upd a (just (nxt s)) vm)

si-rl0 : ∀ {s M0 rs} p → SInv s M0 rs → SInv (rl0 p s) M0 rs
si-rl0 {s} p (sinv sm vm) = sinv sm (≐-upd (p2l s p) (just (nxt s)) vm)

si-rlX : ∀ {s M0 rs} p → SInv s M0 rs → SInv (rlX p s) M0 rs
si-rlX p (sinv sm vm) = sinv sm vm

si-progMB : ∀ {s M0 rs} → SInv s M0 rs → SInv (progMB s) M0 rs
si-progMB (sinv sm vm) = sinv sm vm

si-optP : ∀ {s M0 rs} f → SInv s M0 rs → SInv (optP f s) M0 rs
si-optP true  si = si-progMB si
si-optP false si = si

si-esF : ∀ {s M0 rs} p → SInv s M0 rs → SInv (esF p s) M0 rs
si-esF p (sinv sm vm) = sinv sm vm

si-emitT : ∀ {s M0 rs} → SInv s M0 rs → SInv (emitT s) M0 rs
si-emitT {s} (sinv sm vm) = sinv sm (λ a → trans (vm a) (cong (λ f → f a) (sym (apply-++ (dbuf s) (concat (ept s)) (smap s)))))

-- the flush's image (the volatile L2P of an epoch without tentative
-- pages) is the stable image with the chain and the epoch's record
flush-image : ∀ {s M0 rs} → ept s ≡ [] → SInv s M0 rs → l2p s ≐ apply (cpairs (rv (rs ++ rec s ∷ []))) M0
flush-image {s} {M0} {rs} et (sinv sm vm) a =
  trans (vm a)
    (trans (cong (λ l → apply (dbuf s) (apply (concat l) (smap s)) a) et)
      (trans (apply-≐ (dbuf s) sm a)
        (trans (cong (λ f → f a) (sym (apply-++ (dbuf s) (cpairs (rv rs)) M0)))
               (cong (λ l → apply (cpairs l) M0 a) (sym (rv-snoc rs (rec s)))))))

lazy-ept : ∀ {s M} → Lazy s M → ept s ≡ []
lazy-ept (_ , inj₁ (_ , et , _))             = et
lazy-ept (_ , inj₂ (_ , (_ , et , _)))       = et

-- `si-fiL`: after the lazy commit the stable image is the flush's
si-fiL : ∀ {s M M0 rs} → Lazy s M → SInv s M0 rs → SInv (fiL M s) M0 (rs ++ rec s ∷ [])
si-fiL {s} {M} lz si = sinv (flush-image {s} (lazy-ept {s} {M} lz) si) (λ a → refl)

-- `si-kS`: after the consolidation step the chain is empty and the
-- region's replay is M0 with the chain's pairs
si-kS : ∀ {s M0 rs} K → SInv s M0 rs → SInv (kS s K) (apply (cpairs (rv rs)) M0) []
si-kS K (sinv sm vm) = sinv sm vm

------------------------------------------------------------------------
-- Formula (4) for PL's chain phase

-- `pl-stable`: a crash recovers the stable image
pl-stable : ∀ {s s' x L rs y E M0} C → CInv kc s x L rs y E → SInv s M0 rs → Img s s' →
            RLg (gen s) s' x L → ∀ z → AccTop (gen s) C s' M0 z → ∀ a → recMapL kc (gen s) C s' a ≡ smap s a
pl-stable {s} {s'} C ci si img hr' z e a =
  trans (cong (λ f → f a) (pl-crash {s} {s'} C ci img hr' _ z e)) (sym (si-smap si a))

-- `pl-fi2-stable`: a crash right before the lazy commit's SYNC
-- recovers the stable image or the flush's
pl-fi2-stable : ∀ {s s' M x L rs y E M0} C → CInv kc s x L rs y E → SInv s M0 rs → RL s x L → Lazy s M →
                Img (fi2 M s) s' → RLg (gen s) s' x L → ∀ z → AccTop (gen s) C s' M0 z →
                (∀ a → recMapL kc (gen s) C s' a ≡ smap s a) ⊎ (∀ a → recMapL kc (gen s) C s' a ≡ l2p s a)
pl-fi2-stable {s} {s'} {M} C ci si hr lz img hr' z e with pl-fi2-crash {s} {s'} {M} C ci hr lz img hr' _ z e
... | inj₁ q = inj₁ (λ a → trans (cong (λ f → f a) q) (sym (si-smap si a)))
... | inj₂ q = inj₂ (λ a → trans (cong (λ f → f a) q) (sym (flush-image {s} (lazy-ept {s} {M} lz) si a)))
