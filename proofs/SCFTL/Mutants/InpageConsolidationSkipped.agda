{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 13 of P (issue 39): an in-page commit whose epoch NEVER REACHES
-- THE DELTA REGION (no consolidation page, no full checkpoint).
--
-- An in-page commit (docs/FORMAT.md §4.8) leaves its pairs only in the
-- record, which recovery finds by following the link of the last
-- committed page of the region.  The next commit appended to the region
-- has a link of its own, so before it the in-page epoch must reach the
-- region: the consolidation page (kind 7; P: `fiK`, `fi4`) or a full
-- checkpoint.
--
-- The one change: the in-page flush ends right after its SYNC (`fi3`),
-- without its consolidation page or a checkpoint (P: `fi4` or
-- `ck3 (fi3 …)`).  Recovery is P's.
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; flush (committed page, epoch 1, link 1);
--   w(0,false) to page 1 (merge buffer); flush committing in page 1
--   (epoch 2); w(1,true) to page 2; flush (committed page of epoch 3 on
--   the region); w(1,false) crashing with nothing programmed; recover.
-- SC allows only the image of the last flush: (false,true).  Recovery
-- replays the region (epochs 1 and 3) and follows the link of epoch 3's
-- commit, which names no record: the in-page epoch is lost, address 0
-- reads true.
------------------------------------------------------------------------
module SCFTL.Mutants.InpageConsolidationSkipped where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant

okM crashM : Op → St → St → Set
okM (use flush) s s' = s' ≡ fl3 s ⊎ s' ≡ ck3 (fl3 s)
                     ⊎ Σ ℕ λ L → InP s L × s' ≡ fi3 L s   -- MUTATED (P: ck3 (fi3 L s) ⊎ fi4 L s)
okM o = okP o
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 s7 m7 s8 s9 : St
s1 = ck3 (rec0 true 0 unmapped s0)    -- recovery from the new disk
s2 = wr0 0 true s1                    -- w(0,true) to page 0
s3 = fl3 s2                           -- flush: commit [0 ↦ 0], epoch 1, link 1
s4 = wr0 0 false s3                   -- w(0,false) to page 1 (merge buffer)
s5 = fi3 1 s4                         -- in-page flush (epoch 2), no consolidation page
s6 = wr0 1 true s5                    -- w(1,true) to page 2
s7 = fl3 s6                           -- flush: commit [1 ↦ 2], epoch 3
m7 = wr0 1 false s7                   -- w(1,false), merge buffer only
s8 = syncAll m7                       -- crash
s9 = ck3 (rec0 true 1 unmapped s8)    -- recovery

in-page : InP s4 1
in-page = refl , refl , s≤s (s≤s z≤n) , only
  where
    only : ∀ p → 1 ≤ p → p < nxt s4 → Σ Bool λ d → Σ ℕ λ a → mb s4 p ≡ just (d , a)
    only (suc zero)    _ _                   = false , 0 , refl
    only (suc (suc p)) _ (s≤s (s≤s ()))

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

w2 : okM (use (regop (w 0 false))) s3 s4
w2 = inj₁ ((z≤n , z≤n) , false , false , refl)

f2 : okM (use flush) s4 s5
f2 = inj₂ (inj₂ (1 , in-page , refl))

w3 : okM (use (regop (w 1 true))) s5 s6
w3 = inj₁ ((s≤s z≤n , z≤n) , false , false , refl)

f3 : okM (use flush) s6 s7
f3 = inj₁ refl

c : crashM (use (regop (w 1 false))) s7 s8
c = m7 , inj₁ ((s≤s z≤n , z≤n) , false , false , refl) , img-sync m7

r2 : okM recover s8 s9
r2 = true , 1 , unmapped , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ flush ∷ regop (w 0 false) ∷ flush ∷ regop (w 1 true) ∷ []))
                         [] (regop (w 1 false)) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s8} (flushed (w1 ∷ f1 ∷ w2 ∷ f2 ∷ w3 ∷ []) f3) [] c [] r2 ∷ done [])

-- the last flush's image, and what recovery shows
at-last-flush : rd s6 0 ≡ false × rd s6 1 ≡ true
at-last-flush = refl , refl

recovered : rd s9 0 ≡ true × rd s9 1 ≡ true
recovered = refl , refl

-- the newest commit links to page 3, whose record slot is empty
follows-newest-link : rview 1 s8 ≡ map cur (dr s8)
follows-newest-link = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

------------------------------------------------------------------------
-- What P does instead: the in-page flush ends with its consolidation
-- page (or a full checkpoint), so epoch 2's pairs are on the region.

P-keeps-inpage-epoch :
  rd (ck3 (rec0 true 1 unmapped (syncAll (wr0 1 false (fl3 (wr0 1 true (fi4 1 s4))))))) 0 ≡ false
P-keeps-inpage-epoch = refl
