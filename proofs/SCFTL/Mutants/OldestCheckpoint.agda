{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 5 of P (issue 39): recovery picks the OLDEST checkpoint.
--
-- The one change: when both slots hold a checkpoint, `pick` takes the
-- one of the lower generation (P: the higher).
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; flush (commit: 0 ↦ 0); flush with a full
--   checkpoint, crashing at the checkpoint's second SYNC point (new
--   checkpoint of generation 2 durable; the old slot's erase and the
--   delta region's erase pending), where the delta region's erase
--   landed but the old slot's did not; recover.
-- Both slots then hold a checkpoint: generation 1 mapping nothing (its
-- deltas are gone) and generation 2 mapping 0 ↦ 0.  SC allows only
-- (address 0 =) true; the mutant picks generation 1 and reads false.
------------------------------------------------------------------------
module SCFTL.Mutants.OldestCheckpoint where

open import Data.Nat.Base using (ℕ; zero; suc; _≤ᵇ_; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.List.Base using ([]; _∷_; map)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant

pick′ : Cell → Cell → Maybe (Bool × ℕ × Map)
pick′ (cpt g C) (cpt h D) =      -- MUTATED (P: the higher generation)
  if h ≤ᵇ g then just (false , h , D) else just (true , g , C)
pick′ x y = pick x y

okM crashM : Op → St → St → Set
okM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick′ (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  (s' ≡ ck3 (rec0 b g C s)
   ⊎ clean g (λ p → cur (dat s p)) (map cur (dr s)) ≡ true × Quiet g s × s' ≡ rec0 b g C s)
okM o = okP o
crashM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick′ (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ St λ m → CkPt (rec0 b g C s) m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 m3 s4 s5 : St
s1 = ck3 (rec0 true 0 unmapped s0)   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = fl3 s2                          -- flush: commit [0 ↦ 0]
m3 = ck2 (fl3 s3)                    -- flush + checkpoint (generation 2), second SYNC point
s4 = record (syncAll m3)             -- crash: the old slot's erase did not land
       { cpL = syn (cpt 1 unmapped) }
s5 = ck3 (rec0 true 1 unmapped s4)   -- recovery from the generation-1 checkpoint

img4 : Img m3 s4
img4 = (λ p → land-D (dat m3 p)) , inj₁ refl , land-C (cpO m3) , land-L (dr m3) , (λ p → land-C (rcd m3 p))

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

c3 : crashM (use flush) s3 s4
c3 = m3 , inj₂ (inj₂ (inj₁ (inj₂ (inj₁ refl)))) , img4

r2 : okM recover s4 s5
r2 = true , 1 , unmapped , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ [])) [] flush 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1 (onerec {t3c = s4} (flushed (w1 ∷ []) f1) [] c3 [] r2 ∷ done [])

flushed-read : rd s2 0 ≡ true × rd s3 0 ≡ true
flushed-read = refl , refl

recovered-read : rd s5 0 ≡ false
recovered-read = refl

-- P picks generation 2 and recovers the flushed image.
P-recovers-newest : pick (cur (cpL s4)) (cur (cpO s4)) ≡ just (false , 2 , l2p s3)
                  × rd (ck3 (rec0 false 2 (l2p s3) s4)) 0 ≡ true
P-recovers-newest = refl , refl

violation : ¬ MultiRecSC F
violation (inj₁ sc , _) with sc 0 z≤n
... | ()
violation (inj₂ sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
