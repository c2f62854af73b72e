{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 14 of P (issue 39): an OOB commit ACCEPTED WITH A PAGE MISSING
-- FROM ITS COUNT.
--
-- P's OOB commit (docs/FORMAT.md §4.9; `OobP`, the steps `fi2` ...)
-- commits an epoch whose data pages run from the last commit's link L to
-- the merge buffer's page; its record CRC covers every page of the run
-- (the count n and each page's CRC and logical-sector records), so
-- recovery checks every sector the epoch leaves in place, including the
-- pages programmed by the epoch's writes before the flush.  The tempting
-- shortcut: "the marker sits in the last page, so count only the page
-- the flush programs" — but the earlier pages of the run were programmed
-- without a SYNC too, and may not have landed.
--
-- The one change: the OOB record's digest covers only the merge buffer's
-- pages (`rec″`: P's `rec` with the entries of pages already programmed
-- before the flush dropped).  In-page commits and recovery are P's.
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; flush (committed page, epoch 1, link 1);
--   w(1,true) to page 1, the merge buffer programmed (page 1 on flash,
--   not synced); w(0,false) to page 2, in the merge buffer; flush
--   committing in the OOB (run: pages 1 and 2), crashing right before
--   its one SYNC with the record and page 2 landed but page 1 not; recover.
-- SC allows the image of the last flush (0,1 = true,false) or the one at
-- this flush (false,true).  The mutant's record names page 2 only, which
-- holds its sector, so recovery accepts it: address 0 reads page 2
-- (false) and address 1 reads the lost page 1 (false): (false,false), a
-- mixed image.  P's record also names page 1, fails, and recovery shows
-- (true,false).
------------------------------------------------------------------------
module SCFTL.Mutants.OobCommitPastMissingPage where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≡ᵇ_; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false; _∨_; if_then_else_; not)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (tt)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant: P's OOB commit (fi2, fi3, fiK, fi4 under OobP) with the
-- mutated record.

inMB : Maybe (Bool × ℕ) → Bool
inMB (just _) = true
inMB nothing  = false

-- only the entries of pages still in the merge buffer
lastOnly : St → List (ℕ × Bool × ℕ) → List (ℕ × Bool × ℕ)
lastOnly s []                  = []
lastOnly s ((p , d , a) ∷ xs) = if inMB (mb s p) then (p , d , a) ∷ lastOnly s xs else lastOnly s xs

rec″ : St → Cell
rec″ s = dlt (gen s) (ep s) (dbuf s) true
             (lastOnly s (digD s (dbuf s ++ concat (ept s))) , ept s , nxt s)   -- MUTATED (P: no lastOnly)

fo2 fo3 : ℕ → St → St
fo2 L s = let u = fl1 s in record u { rcd = rcd u [ L ≔ put (rec″ s) (rcd u L) ] }
fo3 L s = let u = syncAll (fo2 L s) in
          record u { smap = l2p u ; dbuf = [] ; ept = [] ; ers = λ p → ers u p ∨ inv u p
                   ; inv = λ _ → false ; wcnt = 0 ; gcnt = 0 ; ep = suc (ep s) ; lnk = nothing }

foK fo4 : ℕ → St → St
foK L s = let u = fo3 L s in record u { dr = uns erased (rec″ s) ∷ dr u ; lnk = just (nxt s) }
fo4 L s = syncAll (foK L s)

FoPt′ : St → St → Set
FoPt′ s m = Σ ℕ λ L → Σ ℕ λ M → OobP s L M × (m ≡ fo2 M s ⊎ CkPt (fo3 M s) m ⊎ m ≡ foK M s ⊎ m ≡ fo4 M s)

FlPt′ : St → St → Set
FlPt′ s m = m ≡ fl2 s ⊎ m ≡ fl3 s ⊎ CkPt (fl3 s) m ⊎ FiPt s m ⊎ FoPt′ s m

okM crashM : Op → St → St → Set
okM (use flush) s s' = s' ≡ fl3 s ⊎ s' ≡ ck3 (fl3 s)
                      ⊎ (Σ ℕ λ L → InP s L × (s' ≡ ck3 (fi3 L s) ⊎ s' ≡ fi4 L s))
                      ⊎ (Σ ℕ λ L → Σ ℕ λ M → OobP s L M × (s' ≡ ck3 (fo3 M s) ⊎ s' ≡ fo4 M s))
okM o = okP o
crashM (use flush) s s' = Σ St λ m → FlPt′ s m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

-- page 1 lost (junk), everything else landed
lose1 : St → St
lose1 m = record (syncAll m) { dat = λ p → if p ≡ᵇ 1 then syn junk else dat (syncAll m) p }

s1 s2 s3 s4 s5 m5 s6 s7 : St
s1 = ck3 (rec0 true 0 unmapped s0)    -- recovery from the new disk
s2 = wr0 0 true s1                    -- w(0,true) to page 0
s3 = fl3 s2                           -- flush: commit [0 ↦ 0], epoch 1, link 1
s4 = opt true false (wr0 1 true s3)   -- w(1,true) to page 1, merge buffer programmed
s5 = wr0 0 false s4                   -- w(0,false) to page 2 (merge buffer)
m5 = fo2 2 s5                         -- OOB flush (marker in page 2), crash point right before the one SYNC
s6 = lose1 m5                         -- crash: page 1 did not land
s7 = ck3 (rec0 true 1 unmapped s6)    -- recovery (P's)

oob-ok : OobP s5 1 2
oob-ok = refl , refl , s≤s (s≤s z≤n) , s≤s (s≤s (s≤s z≤n)) , (refl , refl , tt)
    , s≤s (s≤s z≤n) , s≤s (s≤s (s≤s z≤n)) , before , last
  where
    before : ∀ p → 1 ≤ p → p < 2 → mb s5 p ≡ nothing
    before (suc zero)    _ _ = refl
    before (suc (suc p)) _ (s≤s (s≤s ()))
    last : ∀ p → 2 ≤ p → p < nxt s5 → Σ Bool λ d → Σ ℕ λ a → mb s5 p ≡ just (d , a)
    last (suc (suc zero))    _ _                        = false , 0 , refl
    last (suc (suc (suc p))) _ (s≤s (s≤s (s≤s ())))
    last (suc zero)          (s≤s ()) _
    last zero                () _

img6 : Img m5 s6
img6 = dd , land-C (cpL m5) , land-C (cpO m5) , land-L (dr m5) , (λ p → land-C (rcd m5 p))
  where
    dd : ∀ p → CrashD (dat m5 p) (dat s6 p)
    dd zero          = land-D (dat m5 zero)
    dd (suc zero)    = junk , refl
    dd (suc (suc p)) = land-D (dat m5 (suc (suc p)))

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

w2 : okM (use (regop (w 1 true))) s3 s4
w2 = inj₁ ((s≤s z≤n , z≤n) , true , false , refl)

w3 : okM (use (regop (w 0 false))) s4 s5
w3 = inj₁ ((z≤n , s≤s z≤n) , false , false , refl)

c5 : crashM (use flush) s5 s6
c5 = m5 , inj₂ (inj₂ (inj₂ (inj₂ (1 , 2 , oob-ok , inj₁ refl)))) , img6

r2 : okM recover s6 s7
r2 = true , 1 , unmapped , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ [])) (w 1 true ∷ w 0 false ∷ []) flush 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s6} (flushed (w1 ∷ []) f1) (w2 ∷ w3 ∷ []) c5 [] r2 ∷ done [])

-- at the last flush: (true,false); at this flush: (false,true);
-- recovered: (false,false)
at-last-flush : rd s2 0 ≡ true × rd s2 1 ≡ false
at-last-flush = refl , refl

at-this-flush : rd s5 0 ≡ false × rd s5 1 ≡ true
at-this-flush = refl , refl

recovered : rd s7 0 ≡ false × rd s7 1 ≡ false
recovered = refl , refl

-- the record landed and recovery, walking from the link (page 1, no
-- marker) to page 2, accepted it; the mutant's record names
-- page 2 only (the merge buffer's), P's names pages 2 and 1
record-accepted : rview 1 s6 ≡ rec″ s5 ∷ map cur (dr s6)
record-accepted = refl

mutant-digest : rec″ s5 ≡ dlt 1 2 ((0 , 2) ∷ (1 , 1) ∷ []) true (((2 , false , 0) ∷ []) , [] , 3)
mutant-digest = refl

P-record : rec s5 ≡ dlt 1 2 ((0 , 2) ∷ (1 , 1) ∷ []) true (((2 , false , 0) ∷ (1 , true , 1) ∷ []) , [] , 3)
P-record = refl

-- With P's OOB commit the same crash fails the record's CRC and recovery
-- shows the image of the last flush.
s6P : St
s6P = lose1 (fi2 2 s5)

P-recovers-last-flush : rd (ck3 (rec0 true 1 unmapped s6P)) 0 ≡ true
                      × rd (ck3 (rec0 true 1 unmapped s6P)) 1 ≡ false
P-recovers-last-flush = refl , refl

violation : ¬ MultiRecSC F
violation (inj₁ sc , _) with sc 0 z≤n
... | ()
violation (inj₂ sc , _) with sc 1 (s≤s z≤n)
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
