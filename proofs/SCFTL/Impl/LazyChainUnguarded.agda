{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: why P with the lazy chain needs a guard on
-- GC's erase (the finding of proofs/README.md, "What is abstracted",
-- item 6 (i)), as a snapshot-consistency counterexample.
--
-- `PLu`: P (instance SCFTL.Mutants.Common) with the lazy in-page commit
-- as one more flush (`fiL L s`, guard P's `InP s L`: the record in the
-- slot of page L, one SYNC, the link continues the chain, no
-- consolidation page) and recovery walking the chain (`recMapL`, K =
-- 32; always with a full checkpoint); every other step P's, GC's erase
-- (`esF`) included: any erasable page, also one a record of the
-- unconsolidated chain names.
--
-- Counterexample (multi-recovery fragment after format + recovery):
--   flush (empty epoch 1 on the region, link 0); w(0,true) to page 0;
--   lazy flush in page 0 (epoch 2, link 1); gc_rl of page 0 (its sector
--   to page 1, page 0 invalid); lazy flush in page 1 (epoch 3: page 0
--   erasable); gc_es of page 0 crashing at its end, the erase landed;
--   recover.
-- SC allows only the image of the last flush: address 0 reads true.
-- Recovery walks from the region's link to epoch 2's record, whose
-- digest names page 0, now erased: the chain ends there and epoch 3's
-- record, which holds address 0's only copy, is never reached; address
-- 0 reads false.  The code avoids this by superblocks (a chain stays in
-- the active superblock, never a GC victim, and is consolidated by the
-- region commit after it); P with the lazy chain needs it as a guard.
------------------------------------------------------------------------
module SCFTL.Impl.LazyChainUnguarded where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_; _⊔_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common
open import SCFTL.Impl.LazyChain Bool false A W K _≟B_ using (chnL)
open import SCFTL.Impl.LazyChainP Bool false A W K _≟B_ using (fiL; recMapL; Rof; digOf; Avoid; _∷_)

------------------------------------------------------------------------
-- The model

-- recovery's rebuilt state with the chain walk (P's `rec0` with
-- `recMapL` for `recMap`)
rec0L : Bool → ℕ → Map → St → St
rec0L b g C s = let u = rec0 b g C s in record u
  { l2p = recMapL 32 g C (syncAll s) ; smap = recMapL 32 g C (syncAll s)
  ; nxt = hi (recMapL 32 g C (syncAll s)) amax′ ⊔ hiR (map cur (dr s)) }
  where amax′ = A

okLu crashLu : Op → St → St → Set
okLu (use flush) s s' = okP (use flush) s s' ⊎ Σ ℕ λ L → InP s L × s' ≡ fiL L s
okLu recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) × s' ≡ ck3 (rec0L b g C s)
okLu o = okP o
crashLu (use flush) s s' = crashP (use flush) s s'
  ⊎ Σ ℕ λ L → InP s L × Σ St λ m → (m ≡ fi2 L s ⊎ m ≡ fiL L s) × Img m s'
crashLu recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ St λ m → CkPt (rec0L b g C s) m × Img m s'
crashLu o = crashP o

PLu : Model
PLu = record { State = St ; New = NewP ; read = rd ; ok = okLu ; crash = crashLu }

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

open Fragments PLu

r1 : okLu recover s0 s1
r1 = true , 0 , unmapped , refl , refl

f1 : okLu (use flush) s1 s2
f1 = inj₁ (inj₁ refl)

w1 : okLu (use (regop (w 0 true))) s2 s3
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f2 : okLu (use flush) s3 s4
f2 = inj₂ (0 , lazy1 , refl)

g1 : okLu (use (regop rl)) s4 s5
g1 = inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , false , false , refl))

f3 : okLu (use flush) s5 s6
f3 = inj₂ (1 , lazy2 , refl)

c : crashLu (use (regop es)) s6 s8
c = m7 , (0 , refl , refl) , img-sync m7

r2 : okLu recover s8 s9
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

unguarded-not-snapshot-consistent : ¬ SnapshotConsistent PLu
unguarded-not-snapshot-consistent sc = violation (sc F)

-- The guard (SCFTL.Impl.LazyChainP: `AvoidAll`, `erase-ver`) refuses
-- the run's erase: epoch 2's record, in page 0's slot, names page 0.
guard-refuses : ¬ Avoid 0 (digOf (Rof s6 0))
guard-refuses (ne ∷ _) = ne refl
