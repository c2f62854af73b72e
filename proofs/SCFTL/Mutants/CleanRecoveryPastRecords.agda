{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 56 (issue 39, PL's recovery without a full checkpoint,
-- SCFTL.Impl.LazyChainCleanRec): recovery skips the checkpoint where it
-- dropped no committed page (`clean`) although records lie where its
-- walk looks (PLq's `CleanRec` without `Quiet`): P's rebuilt state
-- follows the region's link once, so a chain of two records loses its
-- second, and nothing makes the records stale.  The code's rule is
-- PLq's (scftl/mod.rs `recovery_needs_checkpoint`: a record found past
-- the region's newest commit, applied or not, needs a checkpoint).
--
-- The run (instance SCFTL.Mutants.Common, mutant 37's), a multi-recovery
-- fragment after format + recovery:
--   flush (empty epoch 1 on the region, link 0); w(0,true) to page 0;
--   lazy flush in page 0 (epoch 2, link 1); w(1,true) to page 1; lazy
--   flush in page 1 (epoch 3, link 2); w(0,false) crashing at its end
--   (nothing of it durable); recover without a checkpoint.
-- SC allows only the last flush's image: (0,1) reads (true,true).  The
-- mutant's recovery applies epoch 2's record only: address 1 reads
-- false (`recovered`); `Quiet` fails on that flash (`not-quiet`), so
-- PLq's recovery writes the checkpoint there, after PL's walk applied
-- both records.
------------------------------------------------------------------------
module SCFTL.Mutants.CleanRecoveryPastRecords where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; length; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common
open import SCFTL.Impl.LazyChainP Bool false A W K _≟B_ using (fiL)
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32
  using (okPL; crashPL; rec0L; chainOf; EraseGuard)

-- the mutant: PL's steps and crashes; recovery PL's, or without a
-- checkpoint wherever no committed page was dropped
okM crashM : Op → St → St → Set
okM recover s s' = okPL EraseGuard recover s s' ⊎
  (Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
     clean g (λ p → cur (dat s p)) (map cur (dr s)) ≡ true × s' ≡ rec0 b g C s)
okM (use u) = okPL EraseGuard (use u)
crashM = crashPL EraseGuard

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 m7 s8 s9 : St
s1 = ck3 (rec0L true 0 unmapped s0)       -- recovery from the new disk
s2 = fl3 s1                               -- flush: empty epoch 1, link 0
s3 = wr0 0 true s2                        -- w(0,true) to page 0
s4 = fiL 0 s3                             -- lazy flush in page 0 (epoch 2, link 1)
s5 = wr0 1 true s4                        -- w(1,true) to page 1
s6 = fiL 1 s5                             -- lazy flush in page 1 (epoch 3, link 2)
m7 = wr0 0 false s6                       -- w(0,false), in the merge buffer
s8 = syncAll m7                           -- crash at its end
s9 = rec0 true 1 unmapped s8              -- recovery without a checkpoint

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
    only (suc zero)    _ _                   = true , 1 , refl
    only (suc (suc p)) _ (s≤s (s≤s ()))

-- the chain before the second lazy flush: epoch 2's record
chain5 : length (chainOf s5) ≡ 1
chain5 = refl

open Fragments Pmut

r1 : okM recover s0 s1
r1 = inj₁ (true , 0 , unmapped , refl , refl)

f1 : okM (use flush) s1 s2
f1 = inj₁ (inj₁ refl)

w1 : okM (use (regop (w 0 true))) s2 s3
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f2 : okM (use flush) s3 s4
f2 = inj₂ (0 , (s≤s z≤n , inj₁ lazy1) , refl)

w2 : okM (use (regop (w 1 true))) s4 s5
w2 = inj₁ ((s≤s z≤n , z≤n) , false , false , refl)

f3 : okM (use flush) s5 s6
f3 = inj₂ (1 , (s≤s (s≤s z≤n) , inj₁ lazy2) , refl)

c : crashM (use (regop (w 0 false))) s6 s8
c = m7 , inj₁ (inj₁ ((z≤n , z≤n) , false , false , refl)) , img-sync m7

r2 : okM recover s8 s9
r2 = inj₂ (true , 1 , unmapped , refl , refl , refl)

shape : ShapeM
shape = shapeM 0 (shape1 (just (flush ∷ regop (w 0 true) ∷ flush ∷ regop (w 1 true) ∷ [])) [] (regop (w 0 false)) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s8} (flushed (f1 ∷ w1 ∷ f2 ∷ w2 ∷ []) f3) [] c [] r2 ∷ done [])

-- the last flush's image, and what recovery shows
at-last-flush : rd s6 0 ≡ true × rd s6 1 ≡ true
at-last-flush = refl , refl

recovered : rd s9 0 ≡ true × rd s9 1 ≡ false
recovered = refl , refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 1 (s≤s z≤n)
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

-- `Quiet` fails there: epoch 2's record lies at the region commit's link
not-quiet : ¬ Quiet 1 s8
not-quiet (q , _) with q 1 0 refl 0 z≤n
... | s≤s ()

-- PL's recovery (the walk bounded by MAX_CHAIN, then the checkpoint)
-- applies both records
pl-walks-both : rd (ck3 (rec0L true 1 unmapped s8)) 1 ≡ true
pl-walks-both = refl
