{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 7 of P (issue 39): ALLOCATION RESTARTING after recovery.
--
-- The one change: the state rebuilt by recovery has its active pointer
-- at page 0 (P: `hi`, one past every mapped page), so the next write
-- programs a page the recovered L2P still maps.
--
-- Counterexample (multi-recovery fragment with two one-recovery
-- fragments after format + recovery):
--   (1) w(0,true) to page 0; flush (commit: 0 ↦ 0); w(1,true), crashing
--       at its end with nothing programmed; recover: 0 ↦ page 0, and the
--       mutant's active pointer is 0 again.
--   (2) w(1,false): placed at page 0 and the merge buffer programmed
--       (over address 0's durable sector); crash at the end of the
--       write with the program landed; recover.
-- In (2) no flush happened, so SC allows only the image right after the
-- recovery that started it (address 0 = true); the recovered read of
-- address 0 is false (page 0 now holds address 1's sector).
------------------------------------------------------------------------
module SCFTL.Mutants.AllocRestarts where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using ([]; _∷_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant

rec0′ : Bool → ℕ → Map → St → St
rec0′ b g C s = record (rec0 b g C s) { nxt = 0 }   -- MUTATED (P: hi (recMap g C (syncAll s)) amax)

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

s1 s2 s3 m3 s4 s5 m5 s6 s7 : St
s1 = ck3 (rec0′ true 0 unmapped s0)   -- recovery from the new disk
s2 = wr0 0 true s1                    -- (1) w(0,true) to page 0
s3 = fl3 s2                           --     flush
m3 = wr0 1 true s3                    --     w(1,true), merge buffer only
s4 = syncAll m3                       --     crash
s5 = ck3 (rec0′ true 1 unmapped s4)   --     recovery: 0 ↦ page 0, nxt = 0
m5 = opt true false (wr0 1 false s5)  -- (2) w(1,false) placed at page 0, programmed
s6 = syncAll m5                       --     crash: the program landed
s7 = ck3 (rec0′ true 2 (l2p s5) s6)   --     recovery

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

c1 : crashM (use (regop (w 1 true))) s3 s4
c1 = m3 , inj₁ ((s≤s z≤n , z≤n) , false , false , refl) , img-sync m3

r2 : okM recover s4 s5
r2 = true , 1 , unmapped , refl , inj₁ refl

c2 : crashM (use (regop (w 1 false))) s5 s6
c2 = m5 , inj₁ ((s≤s z≤n , z≤n) , true , false , refl) , img-sync m5

r3 : okM recover s6 s7
r3 = true , 2 , l2p s5 , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 ( shape1 (just (regop (w 0 true) ∷ [])) [] (regop (w 1 true)) 0
                 ∷ shape1 nothing [] (regop (w 1 false)) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      ( onerec {t3c = s4} (flushed (w1 ∷ []) f1) [] c1 [] r2
      ∷ onerec {t3c = s6} no-flush [] c2 [] r3
      ∷ done [])

recovered-1 : rd s5 0 ≡ true × nxt s5 ≡ 0
recovered-1 = refl , refl

recovered-2 : rd s7 0 ≡ false
recovered-2 = refl

-- P's recovery puts the active pointer past page 0.
P-fresh-pointer : nxt (rec0 true 1 unmapped s4) ≡ 1
P-fresh-pointer = refl

violation : ¬ MultiRecSC F
violation (_ , sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
