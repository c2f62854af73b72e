{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 55 (issue 39, the code's erase hold, SCFTL.Impl.LazyChainHold):
-- a hold that forgets what a commit of the chain makes erasable.  PLh
-- erases a page only when the hold leaves it free, and a lazy (in-page
-- or OOB) commit adds what it makes erasable to the hold (`growInv`:
-- the code's `hold_from`, scftl/mod.rs `erase_bound`).  The mutant
-- `Pmut = PLhWith (λ _ H → H)` adds nothing there, so nothing is ever
-- held: its erase is mutant 31's, any erasable page.
--
-- The run is mutant 31's (SCFTL.Mutants.LazyChainEraseUnguarded), the
-- hold empty throughout: recovery from the new disk; flush (empty epoch
-- 1, link 0); w(0,true) to page 0; lazy flush in page 0 (epoch 2); gc_rl
-- of page 0 (its sector to page 1); lazy flush in page 1 (epoch 3: page
-- 0 erasable, held by PLh, not by the mutant); gc_es of page 0 crashing
-- at its end, the erase landed; recover.  Recovery's walk stops at epoch
-- 2's record, whose digest names the erased page 0, so epoch 3's record,
-- address 0's only copy, is never reached: address 0 reads false where
-- SC allows only true.  PLh's hold has page 0 after the lazy flush
-- (`held`), so PLh refuses the erase.
------------------------------------------------------------------------
module SCFTL.Mutants.HoldForgetsChainCommit where

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
open import SCFTL.Impl.LazyChainP Bool false A W K _≟B_ using (fiL)
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32 using (rec0L)
open import SCFTL.Impl.LazyChainHold Bool false A W K _≟B_ 32
  using (Hold; none; HSt; PLhWith; okPLhW; crashPLh; growInv; hAfter)
open import SCFTL.Mutants.LazyChainEraseUnguarded
  using (s1; s2; s3; s4; s5; s6; m7; s8; s9; lazy1; lazy2)

-- the mutant: a lazy commit adds nothing to the hold
keep : St → Hold → Hold
keep _ H = H

Pmut : Model
Pmut = PLhWith keep

------------------------------------------------------------------------
-- The run, the hold empty throughout

open Fragments Pmut

r1 : okPLhW keep recover (s0 , none) (s1 , none)
r1 = (true , 0 , unmapped , refl , refl) , refl

f1 : okPLhW keep (use flush) (s1 , none) (s2 , none)
f1 = inj₁ (inj₁ refl) , refl

w1 : okPLhW keep (use (regop (w 0 true))) (s2 , none) (s3 , none)
w1 = inj₁ ((z≤n , z≤n) , false , false , refl) , refl

f2 : okPLhW keep (use flush) (s3 , none) (s4 , none)
f2 = inj₂ (0 , (s≤s z≤n , inj₁ lazy1) , refl) , refl

g1 : okPLhW keep (use (regop rl)) (s4 , none) (s5 , none)
g1 = inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , false , false , refl)) , refl

f3 : okPLhW keep (use flush) (s5 , none) (s6 , none)
f3 = inj₂ (1 , (s≤s (s≤s z≤n) , inj₁ lazy2) , refl) , refl

c : crashPLh (use (regop es)) (s6 , none) (s8 , none)
c = inj₁ (m7 , (0 , refl , refl , refl) , img-sync m7)

r2 : okPLhW keep recover (s8 , none) (s9 , none)
r2 = (true , 1 , unmapped , refl , refl) , refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (flush ∷ regop (w 0 true) ∷ flush ∷ regop rl ∷ [])) [] (regop es) 0 ∷ []) []

F : MultiRec shape (s0 , none)
F = multirec new-s0 [] r1
      (onerec {t3c = s8 , none} (flushed (f1 ∷ w1 ∷ f2 ∷ g1 ∷ []) f3) [] c [] r2 ∷ done [])

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

-- PLh's hold (`growInv`) has page 0 after the second lazy flush, so the
-- run's erase is not PLh's
held : growInv s5 none 0 ≡ true
held = refl
