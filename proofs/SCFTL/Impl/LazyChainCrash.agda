{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: a crash in PL's chain phase as a crash of
-- P on the virtually consolidated flash.
--
-- `walkG g s`: the records recovery's walk applies on the flash of s in
-- generation g (PL's `chainOf` with the generation recovery picks).
-- `phase-virt-crash`: a crash of a state of the chain phase (`Phase`,
-- with P's RI on the virtually consolidated state) leaves a flash whose
-- walk finds the whole chain and which, with those records put on the
-- region, is a crash state of P abstracting the same S state (P's `CR`,
-- by P's `crash-RI`).  This is the crash obligation of PL for the
-- crash relation `CR (virt (walkG g s') s')`, once PL's recovery is
-- P's on that flash.
--
-- Not proven: PL's recovery as P's on the virtually consolidated flash
-- (PL's `rec0L` computes the next page and epoch id from the region
-- alone), the crash points inside steps (the lazy commit's before its
-- SYNC with the record landed, the consolidation page's), recovery's
-- own crashes; so no Theorem 1 for PL.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainCrash (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                 (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; CR; crash-RI; dok-crash; ri-dok)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (follow; rv)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (Rof; Dof)
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_ using (cinv-crash)
open import SCFTL.Impl.LazyChainRegion Data d0 amax wmax kmax _≟D_ kc using (ri-crash-acc)
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainVirtual Data d0 amax wmax kmax _≟D_ kc using (virt; ar-virt)

-- the records recovery's walk applies on a flash, in generation g
walkG : ℕ → St → List Cell
walkG g s = follow kc g (Rof s) (Dof s) (lkOf (acc g (Dof s) (map cur (dr s))))

crashL-pre : ∀ vs {xs ys} → CrashL xs ys → CrashL (map syn vs ++ xs) (map syn vs ++ ys)
crashL-pre []       c = c
crashL-pre (v ∷ vs) c = refl ∷ crashL-pre vs c

img-virt : ∀ vs {s s'} → Img s s' → Img (virt vs s) (virt vs s')
img-virt vs (d , l , o , r , i) = d , l , o , crashL-pre vs r , i

-- `virt-crash`: P's crash relation for the virtually consolidated crashed flash
virt-crash : ∀ {vs s s' t} → AR s t → RI (virt vs s) → Img s s' → CR (virt vs s') t
virt-crash {vs} {s} {s'} {t} arr r img =
  smap s , crash-RI r (img-virt vs {s} {s'} img) , dok-crash (proj₁ img) (ri-dok r (AR.stb (ar-virt {vs} {s} {t} arr)))

-- `phase-walk-crash`: the crashed flash's walk finds the whole chain
phase-walk-crash : ∀ {s s'} (ph : Phase s) → Img s s' → walkG (gen s) s' ≡ rv (ph-rs ph)
phase-walk-crash {s} {s'} (phase C x L y E rs rest c M0 z ci si ri lk e) img =
  trans (cong (follow kc (gen s) (Rof s') (Dof s')) (trans (cong lkOf (ri-crash-acc {s} {s'} ri img)) lk))
        (cinv-crash {kc} {s} {s'} ci img)

-- `phase-virt-crash`: a crash of the chain phase is a crash state of P
-- on the flash with the records the walk finds put on the region
phase-virt-crash : ∀ {s s' t} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → Img s s' →
                   walkG (gen s) s' ≡ rv (ph-rs ph) × CR (virt (walkG (gen s) s') s') t
phase-virt-crash {s} {s'} {t} ph arr r img =
  phase-walk-crash {s} {s'} ph img ,
  subst (λ vs → CR (virt vs s') t) (sym (phase-walk-crash {s} {s'} ph img)) (virt-crash {rv (ph-rs ph)} {s} {s'} arr r img)
