{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 10 of P (issue 39): recovery without a full checkpoint RESUMES
-- THE CRASHED EPOCH'S ID (the Rust's Mutant::RecoveryReusesCrashedEpoch:
-- the next epoch id is taken above the committed pages only, not above
-- every page of the region).
--
-- The one change: `rec0` sets the epoch id one above the largest id of a
-- *committed* page on the region (P: of every delta page).  After a crash
-- whose epoch left only tentative pages, that is the crashed epoch's id.
--
-- Counterexample (a multi-recovery fragment after format + recovery):
--   (1) w(0,true); flush (commit, epoch 1); w(0,false) whose merge buffer
--       is programmed (page 1) and whose delta buffer becomes a tentative
--       page [0 ↦ 1] of epoch 2; crash at its end, everything landed;
--       recover without a full checkpoint (nothing committed dropped):
--       address 0 reads true, and the mutant resumes with epoch id 2;
--   (2) flush (commit of epoch 2, no pairs); w(1,true) crashing with
--       nothing programmed; recover.
-- The commit of (2) is of epoch 2, so recovery's replay lets it activate
-- the crashed epoch's tentative page [0 ↦ 1]: address 0 reads false.  SC
-- allows only the image of the flush of (2): address 0 = true.  P resumes
-- with epoch id 3 and the tentative page stays inert
-- (`P-leftover-inert`).
------------------------------------------------------------------------
module SCFTL.Mutants.RecoveryReusesCrashedEpoch where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _⊔_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Data.Unit.Base using (tt)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant

-- the largest epoch id of a committed page
topC : List Cell → ℕ
topC (dlt _ x _ true _ ∷ cs) = x ⊔ topC cs
topC (_ ∷ cs)                = topC cs
topC []                      = 0

rec0′ : Bool → ℕ → Map → St → St
rec0′ b g C s = record (rec0 b g C s)
  { ep = suc (topC (map cur (dr s))) }   -- MUTATED (P: suc (topE …), every delta page)

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

s1 s2 s3 m3 s4 s5 s6 m6 s7 s8 : St
s1 = ck3 (rec0′ true 0 unmapped s0)   -- recovery from the new disk (epoch id 1)
s2 = wr0 0 true s1                    -- (1) w(0,true) to page 0
s3 = fl3 s2                           --     flush: commit of epoch 1
m3 = opt true true (wr0 0 false s3)   --     w(0,false): page 1 programmed, tentative [0 ↦ 1] of epoch 2
s4 = syncAll m3                       --     crash: everything landed
s5 = rec0′ true 1 unmapped s4         --     recovery without a full checkpoint (mutant: epoch id 2)
s6 = fl3 s5                           -- (2) flush: commit of epoch 2
m6 = wr0 1 true s6                    --     w(1,true), merge buffer only
s7 = syncAll m6                       --     crash
s8 = ck3 (rec0′ true 1 unmapped s7)   --     recovery

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

c1 : crashM (use (regop (w 0 false))) s3 s4
c1 = m3 , inj₁ ((z≤n , z≤n) , true , true , refl) , img-sync m3

r2 : okM recover s4 s5
r2 = true , 1 , unmapped , refl , inj₂ (refl , ((λ x L e p le → tt) , (λ p le → tt)) , refl)

f2 : okM (use flush) s5 s6
f2 = inj₁ refl

c2 : crashM (use (regop (w 1 true))) s6 s7
c2 = m6 , inj₁ ((s≤s z≤n , z≤n) , false , false , refl) , img-sync m6

r3 : okM recover s7 s8
r3 = true , 1 , unmapped , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 ( shape1 (just (regop (w 0 true) ∷ [])) [] (regop (w 0 false)) 0
                 ∷ shape1 (just []) [] (regop (w 1 true)) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      ( onerec {t3c = s4} (flushed (w1 ∷ []) f1) [] c1 [] r2
      ∷ onerec {t3c = s7} (flushed [] f2) [] c2 [] r3
      ∷ done [])

-- the crashed epoch's tentative page is on the region, and the mutant
-- resumes with its id
crashed-epoch-left : Data.List.Base.head (dr s5) ≡ just (syn (dlt 1 2 ((0 , 1) ∷ []) false ε))
crashed-epoch-left = refl

resumes-crashed-epoch : ep s5 ≡ 2
resumes-crashed-epoch = refl

recovered : rd s5 0 ≡ true × rd s8 0 ≡ false
recovered = refl , refl

violation : ¬ MultiRecSC F
violation (_ , sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

------------------------------------------------------------------------
-- What P does instead: it resumes above every id on the region (3), the
-- commit of (2) is of epoch 3, and the tentative page stays inert.

P-resumes-above : ep (rec0 true 1 unmapped s4) ≡ 3
P-resumes-above = refl

P-leftover-inert :
  rd (ck3 (rec0 true 1 unmapped (syncAll (wr0 1 true (fl3 (rec0 true 1 unmapped s4)))))) 0 ≡ true
P-leftover-inert = refl
