{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 35 (issue 39, the lazy chain as steps of PL): GC's erase
-- guarded by the chain's records only.  PL (SCFTL.Impl.LazyChainModel)
-- also keeps, while there is a chain, the pages the region's newest
-- commit names (`EraseGuard`): recovery checks that commit's digest
-- (P's `acc`) before it follows the chain from its link.  The mutant
-- `Pmut = PLwith ChainGuard` erases a page that commit names once a
-- lazy epoch relocated it.
--
-- The run (instance SCFTL.Mutants.Common, MAX_CHAIN = 32), a
-- multi-recovery fragment after format + recovery:
--   w(0,true) to page 0; flush (region commit of epoch 1, its digest
--   naming page 0, link 1); gc_rl of page 0 (its sector to page 1, page
--   0 invalid); lazy flush in page 1 (epoch 2's record names page 1 only;
--   page 0 erasable); gc_es of page 0 (the chain's guard allows it)
--   crashing at its end, the erase landed; recover.
-- SC allows only the image of the last flush: address 0 reads true.
-- Recovery finds the region's commit of epoch 1 failing its digest
-- (page 0 erased), accepts no commit, follows no chain: address 0
-- reads false (`recovered`).  PL's guard refuses the erase
-- (`guard-refuses`).  The code takes a region commit followed by a valid
-- record as proven (recovery.rs `apply_chain`), which P's recovery does
-- not; PL keeps that commit's pages instead.
------------------------------------------------------------------------
module SCFTL.Mutants.LazyChainGuardMissesCommit where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common
open import SCFTL.Impl.LazyChainP Bool false A W K _≟B_ using (fiL; Avoid; AvoidAll; _∷_; [])
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32
  using (PLwith; okPL; crashPL; rec0L; chainOf; ChainGuard; EraseGuard)

Pmut : Model
Pmut = PLwith ChainGuard

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 m6 s7 s8 : St
s1 = ck3 (rec0L true 0 unmapped s0)   -- recovery from the new disk
s2 = wr0 0 true s1                    -- w(0,true) to page 0
s3 = fl3 s2                           -- flush: region commit of epoch 1, link 1
s4 = rl0 0 s3                         -- gc_rl: page 0's sector to page 1
s5 = fiL 1 s4                         -- lazy flush in page 1 (epoch 2, link 2)
m6 = esF 0 s5                         -- gc_es of page 0 (erasable)
s7 = syncAll m6                       -- crash, the erase landed
s8 = ck3 (rec0L true 1 unmapped s7)   -- recovery

lazy1 : InP s4 1
lazy1 = refl , refl , s≤s (s≤s z≤n) , only
  where
    only : ∀ p → 1 ≤ p → p < nxt s4 → Σ Bool λ d → Σ ℕ λ a → mb s4 p ≡ just (d , a)
    only (suc zero)    _ _                   = true , 0 , refl
    only (suc (suc p)) _ (s≤s (s≤s ()))

open Fragments Pmut

r1 : okPL ChainGuard recover s0 s1
r1 = true , 0 , unmapped , refl , refl

w1 : okPL ChainGuard (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okPL ChainGuard (use flush) s2 s3
f1 = inj₁ (inj₁ refl)

g1 : okPL ChainGuard (use (regop rl)) s3 s4
g1 = inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , false , false , refl))

f2 : okPL ChainGuard (use flush) s4 s5
f2 = inj₂ (1 , (s≤s z≤n , inj₁ lazy1) , refl)

-- the chain's guard allows the erase: epoch 2's record names page 1
allowed : ChainGuard s5 0
allowed = ((λ ()) ∷ []) ∷ []

c : crashPL ChainGuard (use (regop es)) s5 s7
c = m6 , (0 , refl , allowed , refl) , img-sync m6

r2 : okPL ChainGuard recover s7 s8
r2 = true , 1 , unmapped , refl , refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ flush ∷ regop rl ∷ [])) [] (regop es) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s7} (flushed (w1 ∷ f1 ∷ g1 ∷ []) f2) [] c [] r2 ∷ done [])

-- the last flush's image, and what recovery shows
at-last-flush : rd s5 0 ≡ true
at-last-flush = refl

recovered : rd s8 0 ≡ false
recovered = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

-- PL's guard refuses the run's erase: the region's newest commit (epoch
-- 1) names page 0
guard-refuses : ¬ EraseGuard s5 0
guard-refuses (_ , ((ne ∷ _) ∷ _)) = ne refl
