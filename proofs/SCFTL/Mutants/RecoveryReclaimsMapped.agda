{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 49 of P (issue 39): RECOVERY RECLAIMS a page the recovered L2P
-- still maps.
--
-- P's recovery makes erasable every page below its next page that the
-- recovered map does not name (`reclaim`, blocks.rs `rebuild`: every
-- superblock the recovered L2P does not reference is erasable).  The one
-- change: it forgets the second half and makes every page below the next
-- one erasable (a rebuild that counts a superblock's valid sectors wrong
-- and finds it empty).
--
-- Counterexample (two one-recovery fragments after format + recovery):
--   (1) w(0,true) to page 0; flush (commit: 0 ↦ 0); w(1,true), crashing
--       at its end with nothing programmed; recover: 0 ↦ page 0, and the
--       mutant's erasable queue holds page 0.
--   (2) GC erases page 0; w(1,false), crashing at its end with the
--       erase landed; recover.
-- In (2) no flush happened, so SC allows only the image right after the
-- recovery that started it (address 0 = true); the recovered read of
-- address 0 is false (page 0 erased).  P's recovery leaves page 0 off
-- the queue (`P-keeps-page-0`), so P's erase step cannot take it.
------------------------------------------------------------------------
module SCFTL.Mutants.RecoveryReclaimsMapped where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _<ᵇ_)
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
rec0′ b g C s = record (rec0 b g C s)
  { ers = λ p → p <ᵇ nxt (rec0 b g C s) }   -- MUTATED (P: reclaim (recMap g C (syncAll s)) (nxt …))

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
s1 = ck3 (rec0′ true 0 unmapped s0)   -- recovery from the new disk
s2 = wr0 0 true s1                    -- (1) w(0,true) to page 0
s3 = fl3 s2                           --     flush
m3 = wr0 1 true s3                    --     w(1,true), merge buffer only
s4 = syncAll m3                       --     crash
s5 = ck3 (rec0′ true 1 unmapped s4)   --     recovery: 0 ↦ page 0, page 0 erasable
s6 = esF 0 s5                         -- (2) GC erases page 0
m6 = wr0 1 false s6                   --     w(1,false), merge buffer only
s7 = syncAll m6                       --     crash: the erase landed
s8 = ck3 (rec0′ true 2 (l2p s5) s7)   --     recovery

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

e1 : okM (use (regop es)) s5 s6
e1 = 0 , refl , refl

c2 : crashM (use (regop (w 1 false))) s6 s7
c2 = m6 , inj₁ ((s≤s z≤n , z≤n) , false , false , refl) , img-sync m6

r3 : okM recover s7 s8
r3 = true , 2 , l2p s5 , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 ( shape1 (just (regop (w 0 true) ∷ [])) [] (regop (w 1 true)) 0
                 ∷ shape1 nothing (es ∷ []) (regop (w 1 false)) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      ( onerec {t3c = s4} (flushed (w1 ∷ []) f1) [] c1 [] r2
      ∷ onerec {t3c = s7} no-flush (e1 ∷ []) c2 [] r3
      ∷ done [])

recovered-1 : rd s5 0 ≡ true × l2p s5 0 ≡ just 0 × ers s5 0 ≡ true
recovered-1 = refl , refl , refl

recovered-2 : rd s8 0 ≡ false
recovered-2 = refl

-- P's recovery from the same flash keeps page 0 off the erasable queue
-- (the recovered map names it) and reclaims nothing else below its next
-- page.
P-keeps-page-0 : ers (ck3 (rec0 true 1 unmapped s4)) 0 ≡ false × nxt (ck3 (rec0 true 1 unmapped s4)) ≡ 1
P-keeps-page-0 = refl , refl

violation : ¬ MultiRecSC F
violation (_ , sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
