{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 31 (issue 39, the lazy chain as steps of PL): GC's erase
-- without PL's guard.  PL (SCFTL.Impl.LazyChainModel: P with the lazy
-- in-page/OOB commit, the chain of up to MAX_CHAIN records as the
-- backlog, its consolidation page before the next region page, recovery
-- walking the chain) erases a page only if no record of the chain names
-- it (`EraseGuard`: the code keeps the chain in the active superblock,
-- never a GC victim).  The mutant `Pmut = PLwith (λ _ _ → ⊤)` erases any
-- erasable page.
--
-- The run (instance SCFTL.Mutants.Common, MAX_CHAIN = 32; the run of
-- SCFTL.Impl.LazyChainUnguarded on PL's own steps), a multi-recovery
-- fragment after format + recovery:
--   flush (empty epoch 1 on the region, link 0); w(0,true) to page 0;
--   lazy flush in page 0 (epoch 2, link 1); gc_rl of page 0 (its sector
--   to page 1, page 0 invalid); lazy flush in page 1 (epoch 3: page 0
--   erasable); gc_es of page 0 crashing at its end, the erase landed;
--   recover.
-- SC allows only the image of the last flush: address 0 reads true.
-- Recovery walks from the region's link to epoch 2's record, whose
-- digest names page 0, now erased: the chain ends there and epoch 3's
-- record, address 0's only copy, is never reached: address 0 reads
-- false.  PL's guard refuses the erase (`guard-refuses`).
------------------------------------------------------------------------
module SCFTL.Mutants.LazyChainEraseUnguarded where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common
open import SCFTL.Impl.LazyChainP Bool false A W K _≟B_ using (fiL; Avoid; AvoidAll; _∷_)
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32
  using (PLwith; okPL; crashPL; rec0L; chainOf; EraseGuard)

-- the mutant: PL with any erase allowed
Unguarded : St → ℕ → Set
Unguarded _ _ = ⊤

Pmut : Model
Pmut = PLwith Unguarded

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 m7 s8 s9 : St
s1 = ck3 (rec0L true 0 unmapped s0)   -- recovery from the new disk
s2 = fl3 s1                           -- flush: empty epoch 1, link 0
s3 = wr0 0 true s2                    -- w(0,true) to page 0
s4 = fiL 0 s3                         -- lazy flush in page 0 (epoch 2, link 1)
s5 = rl0 0 s4                         -- gc_rl: page 0's sector to page 1
s6 = fiL 1 s5                         -- lazy flush in page 1 (epoch 3, link 2)
m7 = esF 0 s6                         -- gc_es of page 0 (erasable)
s8 = syncAll m7                       -- crash, the erase landed
s9 = ck3 (rec0L true 1 unmapped s8)   -- recovery

lazy1 : InP s3 0
lazy1 = refl , refl , s≤s z≤n , only
  where
    only : ∀ p → 0 ≤ p → p < nxt s3 → Σ Bool λ d → Σ ℕ λ a → mb s3 p ≡ just (d , a)
    only zero    _ _ = true , 0 , refl
    only (suc p) _ (s≤s ())

lazy2 : InP s5 1
lazy2 = refl , refl , s≤s (s≤s z≤n) , only
  where
    only : ∀ p → 1 ≤ p → p < nxt s5 → Σ Bool λ d → Σ ℕ λ a → mb s5 p ≡ just (d , a)
    only (suc zero)    _ _                   = true , 0 , refl
    only (suc (suc p)) _ (s≤s (s≤s ()))

-- the chain before each lazy flush: empty, then epoch 2's record
chain3 : chainOf s3 ≡ []
chain3 = refl

open Fragments Pmut

r1 : okPL Unguarded recover s0 s1
r1 = true , 0 , unmapped , refl , refl

f1 : okPL Unguarded (use flush) s1 s2
f1 = inj₁ (inj₁ refl)

w1 : okPL Unguarded (use (regop (w 0 true))) s2 s3
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f2 : okPL Unguarded (use flush) s3 s4
f2 = inj₂ (0 , (s≤s z≤n , inj₁ lazy1) , refl)

g1 : okPL Unguarded (use (regop rl)) s4 s5
g1 = inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , false , false , refl))

f3 : okPL Unguarded (use flush) s5 s6
f3 = inj₂ (1 , (s≤s (s≤s z≤n) , inj₁ lazy2) , refl)

c : crashPL Unguarded (use (regop es)) s6 s8
c = m7 , (0 , refl , tt , refl) , img-sync m7

r2 : okPL Unguarded recover s8 s9
r2 = true , 1 , unmapped , refl , refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (flush ∷ regop (w 0 true) ∷ flush ∷ regop rl ∷ [])) [] (regop es) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s8} (flushed (f1 ∷ w1 ∷ f2 ∷ g1 ∷ []) f3) [] c [] r2 ∷ done [])

-- the last flush's image, and what recovery shows
at-last-flush : rd s6 0 ≡ true
at-last-flush = refl

recovered : rd s9 0 ≡ false
recovered = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

-- PL's guard refuses the run's erase: the chain at s6 is epoch 3's
-- record (page 1) over epoch 2's (in page 0's slot), which names page 0
guard-refuses : ¬ EraseGuard s6 0
guard-refuses ((_ ∷ ((ne ∷ _) ∷ _)) , _) = ne refl
