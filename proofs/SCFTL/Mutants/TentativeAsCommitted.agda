{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 6 of P (issue 39): a TENTATIVE page written as COMMITTED.
--
-- The one change: when the delta buffer is full between flushes
-- (`emitT`), its page is programmed with the committed flag set (its
-- digest is still the tentative pages' empty `ε`, which recovery's
-- digest check accepts: nothing to verify).
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true); flush; w(0,false) whose merge buffer is programmed and
--   whose full delta buffer is written out (as a committed page); crash
--   at the end of that write with every program landed; recover.
-- SC allows only the flushed image (address 0 = true); P's own recovery
-- (digest check included) takes the page as the newest commit and reads
-- false.
------------------------------------------------------------------------
module SCFTL.Mutants.TentativeAsCommitted where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using ([]; _∷_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant

emitT′ : St → St
emitT′ s = record (emitT s)
  { dr = uns erased (dlt (gen s) (ep s) (dbuf s) true ε) ∷ dr s }   -- MUTATED (P: false)

optT′ : Bool → St → St
optT′ true  = emitT′
optT′ false = λ s → s

opt′ : Bool → Bool → St → St
opt′ f1 f2 s = optT′ f2 (optP f1 s)

-- write and relocation, as in P but with opt′
okM crashM : Op → St → St → Set
okM (use (regop (w a d))) s s' =
    (InB a s × Σ Bool λ f1 → Σ Bool λ f2 → s' ≡ opt′ f1 f2 (wr0 a d s))
  ⊎ (¬ InB a s × s' ≡ s)
okM (use (regop rl)) s s' =
    (gcnt s ≤ K × Σ ℕ λ p → p < nxt s ×
       ((Valid s p × Σ Bool λ f1 → Σ Bool λ f2 → s' ≡ opt′ f1 f2 (rl0 p s))
        ⊎ (¬ Valid s p × s' ≡ rlX p s)))
  ⊎ (¬ gcnt s ≤ K × s' ≡ s)
okM o = okP o
crashM (use (regop x)) s s' = Σ St λ m → okM (use (regop x)) s m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 : St
s1 = ck3 (rec0 true 0 unmapped s0)   -- recovery from the new disk
s2 = wr0 0 true s1                   -- w(0,true)
s3 = fl3 s2                          -- flush
s4 = opt′ true true (wr0 0 false s3) -- w(0,false): merge buffer programmed, delta page
s5 = syncAll s4                      -- crash: every program landed
s6 = ck3 (rec0 true 1 unmapped s5)   -- recovery

open Fragments Pmut

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

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ [])) [] (regop (w 0 false)) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1 (onerec {t3c = s5} (flushed (w1 ∷ []) f1) [] c1 [] r2 ∷ done [])

flushed-read : rd s2 0 ≡ true
flushed-read = refl

recovered-read : rd s6 0 ≡ false
recovered-read = refl

-- With P's tentative page the same crash recovers the flushed image
-- (this is SCFTL.Impl.Example's run).
P-recovers-flushed :
  rd (ck3 (rec0 true 1 unmapped (syncAll (opt true true (wr0 0 false s3))))) 0 ≡ true
P-recovers-flushed = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
