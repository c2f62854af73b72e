{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 12 of P (issue 39): recovery applies an in-page commit record
-- and then KEEPS THE REGION AS IT IS, without writing the record's
-- pairs where later recoveries read them.
--
-- An in-page commit (docs/FORMAT.md §4.8) leaves its pairs only in the
-- record, found by following the link of the last committed page of the
-- region.  Once a later commit is appended to the region, recovery
-- follows that commit's link instead, so the record's epoch must first
-- reach the region (the Rust's consolidation page, written by `open` for
-- epochs recovered from records) or a full checkpoint.  P, which
-- writes the consolidation page at once, recovers without a full
-- checkpoint only when the link it follows leads to no record of the
-- generation (`Quiet`).
--
-- The one change: recovery may skip the full checkpoint whenever it
-- dropped no committed page (`clean`), even with a record of the
-- generation where recovery followed the link (P: `clean` and `Quiet`).
--
-- Counterexample (two one-recovery fragments after format + recovery):
--   (1) w(0,true) to page 0; flush (committed page, epoch 1, link 1);
--       w(0,false) to page 1 (merge buffer); flush committing in page 1,
--       crashing right before its one SYNC with everything landed;
--       recover without a full checkpoint: the record is followed and
--       applied, address 0 reads false;
--   (2) w(1,true) to page 2; flush (committed page of epoch 2 on the
--       region, above epoch 1's); w(1,false) crashing with nothing
--       programmed; recover.
-- SC allows, in (2), only the image of (2)'s flush: (false,true).
-- Recovery replays the region (epochs 1 and 2) and follows the link of
-- epoch 2's commit, which names no record: the in-page epoch is lost,
-- address 0 reads true.  (P writes a full checkpoint in (1).)
------------------------------------------------------------------------
module SCFTL.Mutants.InpageRecordNotConsolidated where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant

okM crashM : Op → St → St → Set
okM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  (s' ≡ ck3 (rec0 b g C s)
   ⊎ clean g (λ p → cur (dat s p)) (map cur (dr s)) ≡ true × s' ≡ rec0 b g C s)   -- MUTATED (P: × Quiet g s)
okM o = okP o
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 m4 s5 s6 s7 s8 m8 s9 s10 : St
s1 = ck3 (rec0 true 0 unmapped s0)    -- recovery from the new disk
s2 = wr0 0 true s1                    -- (1) w(0,true) to page 0
s3 = fl3 s2                           --     flush: commit [0 ↦ 0], epoch 1, link 1
s4 = wr0 0 false s3                   --     w(0,false) to page 1 (merge buffer)
m4 = fi2 1 s4                         --     in-page flush, right before its SYNC
s5 = syncAll m4                       --     crash: everything landed
s6 = rec0 true 1 unmapped s5          --     recovery without a full checkpoint (mutant)
s7 = wr0 1 true s6                    -- (2) w(1,true) to page 2
s8 = fl3 s7                           --     flush: commit [1 ↦ 2], epoch 2
m8 = wr0 1 false s8                   --     w(1,false), merge buffer only
s9 = syncAll m8                       --     crash
s10 = ck3 (rec0 true 1 unmapped s9)   --     recovery

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

c1 : crashM (use flush) s4 s5
c1 = m4 , inj₂ (inj₂ (inj₂ (inj₁ (1 , in-page , inj₁ refl)))) , img-sync m4

r2 : okM recover s5 s6
r2 = true , 1 , unmapped , refl , inj₂ (refl , refl)

w3 : okM (use (regop (w 1 true))) s6 s7
w3 = inj₁ ((s≤s z≤n , z≤n) , false , false , refl)

f2 : okM (use flush) s7 s8
f2 = inj₁ refl

c2 : crashM (use (regop (w 1 false))) s8 s9
c2 = m8 , inj₁ ((s≤s z≤n , z≤n) , false , false , refl) , img-sync m8

r3 : okM recover s9 s10
r3 = true , 1 , unmapped , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 ( shape1 (just (regop (w 0 true) ∷ [])) (w 0 false ∷ []) flush 0
                 ∷ shape1 (just (regop (w 1 true) ∷ [])) [] (regop (w 1 false)) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      ( onerec {t3c = s5} (flushed (w1 ∷ []) f1) (w2 ∷ []) c1 [] r2
      ∷ onerec {t3c = s9} (flushed (w3 ∷ []) f2) [] c2 [] r3
      ∷ done [])

-- (1) recovery followed the link and applied the record
record-applied : rd s6 0 ≡ false
record-applied = refl

-- (2) the flush's image, and what recovery shows
at-flush : rd s8 0 ≡ false × rd s8 1 ≡ true
at-flush = refl , refl

recovered : rd s10 0 ≡ true × rd s10 1 ≡ true
recovered = refl , refl

violation : ¬ MultiRecSC F
violation (_ , sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

------------------------------------------------------------------------
-- What P does instead: the record of generation 1 is on flash, so
-- recovery in (1) must write a full checkpoint (generation 2), which
-- holds the in-page epoch's pairs; after (2) address 0 reads false.

P-must-checkpoint : ¬ Quiet 1 s5
P-must-checkpoint (q , _) = absurd (q 1 1 refl 1 (s≤s z≤n))
  where
    absurd : RLt 1 (cur (rcd s5 1)) → ⊥
    absurd (s≤s ())

P-keeps-inpage-epoch :
  rd (ck3 (rec0 true 2 (l2p s4) (syncAll (wr0 1 false (fl3 (wr0 1 true (ck3 (rec0 true 1 unmapped s5)))))))) 0 ≡ false
P-keeps-inpage-epoch = refl
