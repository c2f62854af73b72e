{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 19 of P (issue 39): the full checkpoint erases the delta
-- region in its first step, together with the target slot, before its
-- commit point — the model's counterpart of the Rust's
-- `Mutant::RotationErasesOldDeltaEarly` (a checkpoint that rotates the
-- metadata erases the old delta region's superblocks with the fresh
-- ones, before anything of the checkpoint is programmed).  The code
-- (and P) erase the region only after the commit point: "a crash before
-- the commit point leaves the old map in force, whose regions were not
-- touched" (docs/FORMAT.md §4.5, Rotation).
--
-- The one change: `ck1′` = `ck1` plus the erase of every delta page
-- (`ck2′`, `ck3′`, `CkPt′` are P's on top of it, and every use of the
-- checkpoint — flush, in-page and OOB flush, recovery — uses them).
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; flush (commit: 0 ↦ 0); flush with a full
--   checkpoint, crashing at the checkpoint's first SYNC point with the
--   region's erase landed and the new checkpoint not (the shadow slot
--   still erased); recover.
-- Recovery takes the old checkpoint (generation 1, mapping nothing),
-- whose deltas are gone: address 0 reads false; SC allows only true.
------------------------------------------------------------------------
module SCFTL.Mutants.CheckpointErasesRegionEarly where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using ([]; _∷_; map)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant

ck1′ ck2′ ck3′ : St → St
ck1′ s = record s { cpO = put (cpt (suc (gen s)) (l2p s)) (cpO s)
                  ; dr = map (put erased) (dr s) }     -- MUTATED (P: the region is erased in ck2)
ck2′ s = let u = syncAll (ck1′ s) in
         record u { cpL = put erased (cpL u) ; dr = map (put erased) (dr u) }
ck3′ s = let u = syncAll (ck2′ s) in
         record u { cpL = cpO u ; cpO = cpL u ; dr = [] ; gen = suc (gen s) ; lnk = nothing }

CkPt′ : St → St → Set
CkPt′ s m = m ≡ ck1′ s ⊎ m ≡ ck2′ s ⊎ m ≡ ck3′ s

FiPt′ FoPt′ FlPt′ : St → St → Set
FiPt′ s m = Σ ℕ λ L → InP s L × (m ≡ fi2 L s ⊎ CkPt′ (fi3 L s) m ⊎ m ≡ fiK L s ⊎ m ≡ fi4 L s)
FoPt′ s m = Σ ℕ λ L → Σ ℕ λ M → OobP s L M × (m ≡ fi2 M s ⊎ CkPt′ (fi3 M s) m ⊎ m ≡ fiK M s ⊎ m ≡ fi4 M s)
FlPt′ s m = m ≡ fl2 s ⊎ m ≡ fl3 s ⊎ CkPt′ (fl3 s) m ⊎ FiPt′ s m ⊎ FoPt′ s m

okM crashM : Op → St → St → Set
okM (use flush) s s' = s' ≡ fl3 s ⊎ s' ≡ ck3′ (fl3 s)
                     ⊎ (Σ ℕ λ L → InP s L × (s' ≡ ck3′ (fi3 L s) ⊎ s' ≡ fi4 L s))
                     ⊎ (Σ ℕ λ L → Σ ℕ λ M → OobP s L M × (s' ≡ ck3′ (fi3 M s) ⊎ s' ≡ fi4 M s))
okM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  (s' ≡ ck3′ (rec0 b g C s)
   ⊎ clean g (λ p → cur (dat s p)) (map cur (dr s)) ≡ true × Quiet g s × s' ≡ rec0 b g C s)
okM o = okP o
crashM (use flush) s s' = Σ St λ m → FlPt′ s m × Img m s'
crashM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ St λ m → CkPt′ (rec0 b g C s) m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 m3 s4 s5 : St
s1 = ck3′ (rec0 true 0 unmapped s0)  -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                    -- w(0,true) to page 0
s3 = fl3 s2                           -- flush: commit [0 ↦ 0]
m3 = ck1′ (fl3 s3)                    -- flush + checkpoint (generation 2), first SYNC point
s4 = record (syncAll m3)              -- crash: the region's erase landed, the new checkpoint not
       { cpO = syn erased }
s5 = ck3′ (rec0 true 1 unmapped s4)   -- recovery from the generation-1 checkpoint

img4 : Img m3 s4
img4 = (λ p → land-D (dat m3 p)) , land-C (cpL m3) , inj₁ refl , land-L (dr m3) , (λ p → land-C (rcd m3 p))

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

c3 : crashM (use flush) s3 s4
c3 = m3 , inj₂ (inj₂ (inj₁ (inj₁ refl))) , img4

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

-- P at the same crash point: the region is untouched, recovery replays
-- the commit over the old checkpoint and reads true.
P-keeps-region : rd (ck3 (rec0 true 1 unmapped (record (syncAll (ck1 (fl3 s3))) { cpO = syn erased }))) 0 ≡ true
P-keeps-region = refl

violation : ¬ MultiRecSC F
violation (inj₁ sc , _) with sc 0 z≤n
... | ()
violation (inj₂ sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
