{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 1 of P (issue 39): recovery applies TENTATIVE delta pages that
-- no committed page activates.
--
-- The one change: the part of the region recovery replays keeps the
-- tentative pages above the newest committed page that verifies (P's
-- `acc` drops them: they belong to an epoch whose commit never reached
-- the flash), and the recovered L2P is the second component of the
-- replay `rp` (every page replayed) instead of the first (committed
-- pages, and the tentative ones a commit activated).  (Taking the second
-- component alone changes nothing: below an accepted committed page
-- every tentative page is activated, so both components agree there.)
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true); flush;  w(0,false) whose merge buffer is programmed and
--   whose delta buffer becomes a tentative delta page; crash at the end
--   of that write with every program landed; recover.
-- SC allows only the image of the last flush (address 0 = true); the
-- mutant replays the tentative page and reads address 0 = false.
------------------------------------------------------------------------
module SCFTL.Mutants.TentativeReplayed where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; _⊔_)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common
import Data.List.Base

------------------------------------------------------------------------
-- The mutant

-- tentative pages (any generation: rp ignores the others anyway)
keepT : Cell → List Cell → List Cell
keepT c@(dlt _ _ _ false _) cs = c ∷ cs
keepT _                     cs = cs

acc′ : ℕ → (ℕ → Cell) → List Cell → List Cell
acc′ g D []       = []
acc′ g D (c ∷ cs) = if okC g D c cs then c ∷ cs
                    else keepT c (acc′ g D cs)   -- MUTATED (P: acc g D cs)

recMap′ : ℕ → Map → St → Map
recMap′ g C s =                                  -- MUTATED (P: proj₁, acc)
  proj₂ (proj₂ (rp g (chn g (λ p → cur (rcd s p)) (λ p → cur (dat s p))
                             (acc′ g (λ p → cur (dat s p)) (map cur (dr s)))) (st0 C)))

-- P's rec0 (SYNC, then rebuild) with the mutated recovered L2P
rec0′ : Bool → ℕ → Map → St → St
rec0′ b g C s = record (rec0 b g C s)
  { l2p = recMap′ g C (syncAll s) ; smap = recMap′ g C (syncAll s)
  ; nxt = hi (recMap′ g C (syncAll s)) A ⊔ hiR (map cur (dr s)) }

okM crashM : Op → St → St → Set
okM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  (s' ≡ ck3 (rec0′ b g C s)
   ⊎ clean g (λ p → cur (dat s p)) (map cur (dr s)) ≡ true × Quiet g s × s' ≡ rec0′ b g C s)
okM o = okP o
crashM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ St λ m → CkPt (rec0′ b g C s) m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 : St
s1 = ck3 (rec0′ true 0 unmapped s0)   -- recovery from the new disk
s2 = wr0 0 true s1                    -- w(0,true), kept in the merge buffer
s3 = fl3 s2                           -- flush (commit)
s4 = opt true true (wr0 0 false s3)   -- w(0,false): merge buffer programmed, tentative page
s5 = syncAll s4                       -- crash: every program landed
s6 = ck3 (rec0′ true 1 unmapped s5)   -- recovery (mutant)

open Fragments Pmut

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ [])) [] (regop (w 0 false)) 0 ∷ []) []

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

c1 : crashM (use (regop (w 0 false))) s3 s5
c1 = s4 , inj₁ ((z≤n , z≤n) , true , true , refl) , img-sync s4

r2 : okM recover s5 s6
r2 = true , 1 , unmapped , refl , inj₁ refl

F : MultiRec shape s0
F = multirec new-s0 [] r1 (onerec {t3c = s5} (flushed (w1 ∷ []) f1) [] c1 [] r2 ∷ done [])

-- the flushed image has address 0 = true, the recovered one false
flushed-read : rd s2 0 ≡ true
flushed-read = refl

recovered-read : rd s6 0 ≡ false
recovered-read = refl

-- P itself recovers the flushed image from the same crash state: the
-- tentative page is above the newest committed page that verifies, and
-- P's `acc` drops it
P-recovers-flushed : rd (ck3 (rec0 true 1 unmapped s5)) 0 ≡ true
P-recovers-flushed = refl

P-drops-tentative : acc 1 (λ p → cur (dat s5 p)) (map cur (dr s5))
                  ≡ Data.List.Base.drop 1 (map cur (dr s5))
P-drops-tentative = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
