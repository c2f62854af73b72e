{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 2 of P (issue 39): a commit WITHOUT the SYNC before it.
--
-- The one change: the flush programs its committed delta page right
-- after programming the merge buffer (fl2′ = fl2 without `syncAll`), so
-- the commit record may be durable while the data pages it maps are
-- not.  The end of the flush (one SYNC, epoch end) is as in P.
-- (P's protocol is the paper's two-SYNC one; once P is retargeted to
-- the one-SYNC digest protocol this mutant is to be restated there.)
--
-- Counterexample (one-recovery fragment, k = 0, right after the
-- recovery from the new disk):
--   w(0,true); w(1,true) (both in the merge buffer); flush, crashing at
--   its only SYNC with the commit page and page 0 landed, page 1 not
--   (still erased); recover.
-- SC allows the image before the flush (0,1 = false,false) or at the
-- flush (true,true); the mutant reads (true,false).
------------------------------------------------------------------------
module SCFTL.Mutants.CommitWithoutSync where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false; _∨_)
open import Data.List.Base using ([]; _∷_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant

fl2′ fl3′ : St → St
fl2′ s = let u = fl1 s in                         -- MUTATED (P: syncAll (fl1 s))
         record u { dr = uns erased (dlt (gen s) (dbuf s) true) ∷ dr u }
fl3′ s = let u = syncAll (fl2′ s) in
         record u { smap = l2p u ; dbuf = [] ; ers = λ p → ers u p ∨ inv u p
                  ; inv = λ _ → false ; wcnt = 0 ; gcnt = 0 }

FlPt′ : St → St → Set
FlPt′ s m = m ≡ fl1 s ⊎ m ≡ fl2′ s ⊎ m ≡ fl3′ s ⊎ CkPt (fl3′ s) m

okM crashM : Op → St → St → Set
okM (use flush) s s' = s' ≡ fl3′ s ⊎ s' ≡ ck3 (fl3′ s)
okM o = okP o
crashM (use flush) s s' = Σ St λ m → FlPt′ s m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 m3 s4 s5 : St
s1 = ck3 (rec0 true 0 unmapped s0)   -- recovery from the new disk
s2 = wr0 0 true s1                   -- w(0,true) to page 0 (merge buffer)
s3 = wr0 1 true s2                   -- w(1,true) to page 1 (merge buffer)
m3 = fl2′ s3                         -- crash point: pages 0, 1 and the commit unsynced
s4 = record (syncAll m3)             -- crash: page 1 did not land
       { dat = dat (syncAll m3) [ 1 ≔ syn erased ] }
s5 = ck3 (rec0 true 1 unmapped s4)   -- recovery

img4 : Img m3 s4
img4 = dd , land-C (cpL m3) , land-C (cpO m3) , land-L (dr m3)
  where
    dd : ∀ p → CrashD (dat m3 p) (dat s4 p)
    dd zero          = land-D (dat m3 0)
    dd (suc zero)    = erased , refl
    dd (suc (suc p)) = land-D (dat m3 (suc (suc p)))

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

w2 : okM (use (regop (w 1 true))) s2 s3
w2 = inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)

c3 : crashM (use flush) s3 s4
c3 = m3 , inj₂ (inj₁ refl) , img4

r2 : okM recover s4 s5
r2 = true , 1 , unmapped , refl , refl

shape : ShapeM
shape = shapeM 0 (shape1 nothing (w 0 true ∷ w 1 true ∷ []) flush 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1 (onerec {t3c = s4} no-flush (w1 ∷ w2 ∷ []) c3 [] r2 ∷ done [])

-- before the flush: (false,false); at the flush: (true,true);
-- recovered: (true,false)
before : rd s1 0 ≡ false × rd s1 1 ≡ false
before = refl , refl

at-flush : rd s3 0 ≡ true × rd s3 1 ≡ true
at-flush = refl , refl

recovered : rd s5 0 ≡ true × rd s5 1 ≡ false
recovered = refl , refl

-- In P the data pages are durable before the commit page is programmed.
P-data-durable : dat (fl2 s3) 1 ≡ syn (dcell true 1)
P-data-durable = refl

violation : ¬ MultiRecSC F
violation (inj₁ sc , _) with sc 0 z≤n
... | ()
violation (inj₂ sc , _) with sc 1 (s≤s z≤n)
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
