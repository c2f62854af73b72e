{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 15 of P (issue 39): an OOB commit whose pairs are NOT EXACTLY
-- ITS RUN'S SECTORS — the epoch wrote a tentative delta page.
--
-- P's OOB commit (docs/FORMAT.md §4.9; `OobP`) requires the epoch's pairs
-- to be exactly the sectors of the pages from the link to the merge
-- buffer's page, in order, with no tentative delta page (`ept s ≡ []`,
-- `runP`; the Rust's `n == (pages - 1) * spp + mb_fill` and the pairs
-- `Psa(link + k)`): the record then carries every pair of the epoch, and
-- recovery, which follows the link to the record, needs nothing else.
-- The tempting shortcut: "the run is contiguous and within reach, so the
-- OOB record can commit it" — but pairs that went to a tentative delta
-- page are not in the record, and recovery, which drops a region page
-- above the newest commit it accepts, never activates them.
--
-- The one change: the OOB guard (`OobP′`) drops `ept s ≡ []` and `runP`.
-- The commit steps and recovery are P's.
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; flush (committed page, epoch 1, link 1);
--   w(0,false) to page 1, programming the merge buffer and emitting a
--   tentative delta page [0 ↦ 1]; w(1,true) to page 2 (merge buffer);
--   flush committing in the OOB of page 2 (run: pages 1, 2; the record's
--   pairs: [1 ↦ 2]), crashing right before its one SYNC with everything
--   landed; recover.
-- SC allows the image of the last flush (0,1 = true,false) or the one at
-- this flush (false,true).  Recovery accepts the record (its digest
-- verifies) but not the tentative page above the region's newest commit:
-- address 0 reads page 0 (true), address 1 page 2 (true): (true,true), a
-- mixed image.  P refuses the OOB commit there (`P-refuses`): the flush
-- commits in a delta page whose digest names the tentative page.
------------------------------------------------------------------------
module SCFTL.Mutants.OobCommitWithTentativePage where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_; _+_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant: P's OOB commit under a weaker guard.

OobP′ : St → ℕ → ℕ → Set
OobP′ s L M = lnk s ≡ just L × L < nxt s × nxt s ≤ L + omax    -- MUTATED (P: also ept s ≡ [] and runP)
            × L < M × M < nxt s
            × (∀ p → L ≤ p → p < M → mb s p ≡ nothing)
            × (∀ p → M ≤ p → p < nxt s → Σ Bool λ d → Σ ℕ λ a → mb s p ≡ just (d , a))

FoPt′ : St → St → Set
FoPt′ s m = Σ ℕ λ L → Σ ℕ λ M → OobP′ s L M × (m ≡ fi2 M s ⊎ CkPt (fi3 M s) m ⊎ m ≡ fiK M s ⊎ m ≡ fi4 M s)

FlPt′ : St → St → Set
FlPt′ s m = m ≡ fl2 s ⊎ m ≡ fl3 s ⊎ CkPt (fl3 s) m ⊎ FiPt s m ⊎ FoPt′ s m

okM crashM : Op → St → St → Set
okM (use flush) s s' = s' ≡ fl3 s ⊎ s' ≡ ck3 (fl3 s)
                      ⊎ (Σ ℕ λ L → InP s L × (s' ≡ ck3 (fi3 L s) ⊎ s' ≡ fi4 L s))
                      ⊎ (Σ ℕ λ L → Σ ℕ λ M → OobP′ s L M × (s' ≡ ck3 (fi3 M s) ⊎ s' ≡ fi4 M s))
okM o = okP o
crashM (use flush) s s' = Σ St λ m → FlPt′ s m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 m5 s6 s7 : St
s1 = ck3 (rec0 true 0 unmapped s0)    -- recovery from the new disk
s2 = wr0 0 true s1                    -- w(0,true) to page 0
s3 = fl3 s2                           -- flush: commit [0 ↦ 0], epoch 1, link 1
s4 = opt true true (wr0 0 false s3)   -- w(0,false) to page 1, merge buffer programmed, tentative page [0 ↦ 1]
s5 = wr0 1 true s4                    -- w(1,true) to page 2 (merge buffer)
m5 = fi2 2 s5                         -- OOB flush (record in page 2), crash point right before the one SYNC
s6 = syncAll m5                       -- crash: everything landed
s7 = ck3 (rec0 true 1 unmapped s6)    -- recovery (P's)

oob′ : OobP′ s5 1 2
oob′ = refl , s≤s (s≤s z≤n) , s≤s (s≤s (s≤s z≤n)) , s≤s (s≤s z≤n) , s≤s (s≤s (s≤s z≤n)) , before , last
  where
    before : ∀ p → 1 ≤ p → p < 2 → mb s5 p ≡ nothing
    before (suc zero)    _ _ = refl
    before (suc (suc p)) _ (s≤s (s≤s ()))
    last : ∀ p → 2 ≤ p → p < nxt s5 → Σ Bool λ d → Σ ℕ λ a → mb s5 p ≡ just (d , a)
    last (suc (suc zero))    _ _                        = true , 1 , refl
    last (suc (suc (suc p))) _ (s≤s (s≤s (s≤s ())))
    last (suc zero)          (s≤s ()) _
    last zero                () _

-- P refuses the OOB commit here: the epoch wrote a tentative page
P-refuses : ∀ M → ¬ OobP s5 1 M
P-refuses M (_ , () , _)

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

w2 : okM (use (regop (w 0 false))) s3 s4
w2 = inj₁ ((z≤n , z≤n) , true , true , refl)

w3 : okM (use (regop (w 1 true))) s4 s5
w3 = inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)

c5 : crashM (use flush) s5 s6
c5 = m5 , inj₂ (inj₂ (inj₂ (inj₂ (1 , 2 , oob′ , inj₁ refl)))) , img-sync m5

r2 : okM recover s6 s7
r2 = true , 1 , unmapped , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ [])) (w 0 false ∷ w 1 true ∷ []) flush 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s6} (flushed (w1 ∷ []) f1) (w2 ∷ w3 ∷ []) c5 [] r2 ∷ done [])

-- at the last flush: (true,false); at this flush: (false,true);
-- recovered: (true,true)
at-last-flush : rd s2 0 ≡ true × rd s2 1 ≡ false
at-last-flush = refl , refl

at-this-flush : rd s5 0 ≡ false × rd s5 1 ≡ true
at-this-flush = refl , refl

recovered : rd s7 0 ≡ true × rd s7 1 ≡ true
recovered = refl , refl

-- recovery walks from the link to the record and replays it over the
-- region's committed page; the tentative page above it is dropped
record-without-tentative : rview 1 s6 ≡ rec s5 ∷ Data.List.Base.drop 1 (map cur (dr s6))
record-without-tentative = refl

violation : ¬ MultiRecSC F
violation (inj₁ sc , _) with sc 1 (s≤s z≤n)
... | ()
violation (inj₂ sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
