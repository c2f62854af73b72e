{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 3 of P (issue 39): a GC victim made ERASABLE AT ONCE.
--
-- The one change: relocating a valid victim puts the victim straight
-- into the erasable queue `ers` instead of the invalid queue `inv` (the
-- two-phase GC's first phase is skipped), so it may be erased before a
-- commit makes the relocated copy durable and mapped by the stable L2P.
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; flush (commit: 0 ↦ page 0); gc_rl with victim
--   page 0 (copy to page 1, still in the merge buffer); gc_es erasing
--   page 0, crashing at its end with the erase landed; recover.
-- SC allows only the flushed image (address 0 = true).  The flush's
-- committed page names page 0 in its digest; recovery finds page 0
-- erased, the digest fails, and it falls back to the checkpoint below
-- (generation 1, nothing mapped): address 0 reads false.  (Without the
-- digest check it would map address 0 to the erased page 0 and read
-- false as well.)
------------------------------------------------------------------------
module SCFTL.Mutants.GcEraseAtOnce where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; z≤n; s≤s)
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

rl0′ : ℕ → St → St
rl0′ p s = record (rl0 p s) { inv = inv s ; ers = ers s [ p ≔ true ] }   -- MUTATED

okM crashM : Op → St → St → Set
okM (use (regop rl)) s s' =
    (gcnt s ≤ K × Σ ℕ λ p → p < nxt s ×
       ((Valid s p × Σ Bool λ f1 → Σ Bool λ f2 → s' ≡ opt f1 f2 (rl0′ p s))
        ⊎ (¬ Valid s p × s' ≡ rlX p s)))
  ⊎ (¬ gcnt s ≤ K × s' ≡ s)
okM o = okP o
crashM (use (regop x)) s s' = Σ St λ m → okM (use (regop x)) s m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 m4 s5 s6 : St
s1 = ck3 (rec0 true 0 unmapped s0)   -- recovery from the new disk
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = fl3 s2                          -- flush: page 0 durable, committed
s4 = rl0′ 0 s3                       -- gc_rl: victim page 0, copy to page 1
m4 = esF 0 s4                        -- gc_es on page 0
s5 = syncAll m4                      -- crash: the erase landed
s6 = ck3 (rec0 true 1 unmapped s5)   -- recovery

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

g1 : okM (use (regop rl)) s3 s4
g1 = inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , false , false , refl))

c1 : crashM (use (regop es)) s4 s5
c1 = m4 , (0 , refl , refl) , img-sync m4

r2 : okM recover s5 s6
r2 = true , 1 , unmapped , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ [])) (rl ∷ []) (regop es) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1 (onerec {t3c = s5} (flushed (w1 ∷ []) f1) (g1 ∷ []) c1 [] r2 ∷ done [])

flushed-read : rd s2 0 ≡ true
flushed-read = refl

recovered-read : rd s6 0 ≡ false
recovered-read = refl

-- The committed page is dropped: its digest names the erased page 0.
commit-dropped : acc 1 (λ p → cur (dat s5 p)) (map cur (dr s5)) ≡ []
commit-dropped = refl

-- In P the victim is only invalid until the next commit: not erasable.
P-not-erasable : ers (rl0 0 s3) 0 ≡ false
P-not-erasable = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
