{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 9 of P (issue 39): a digest that OMITS THE EPOCH'S TENTATIVE
-- PAGES.
--
-- The committed page of P's one-SYNC flush carries the epoch digest:
-- the data pages the epoch leaves in place, with their sectors, and the
-- pairs of the epoch's tentative delta pages, which recovery requires
-- right below the committed page (`verT`).  This is the model's
-- analogue of issue 39's "an in-page commit whose digest omits the last
-- page", and finding (a) of the proof of P (proofs/README.md, "What is
-- abstracted", item 6).
--
-- The one change: the flush's digest has an empty tentative part
-- (`dgOf′`: P's data part, `[]` for the tentative pages), so recovery
-- checks the data pages only.  Recovery itself is P's.
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; flush; w(0,false) to page 1, whose merge
--   buffer is programmed and whose delta buffer becomes a tentative
--   delta page [0 ↦ 1]; w(1,true) to page 2 (merge buffer); flush,
--   crashing right before its one SYNC with the committed page [1 ↦ 2]
--   and every data page landed but the tentative page torn (junk);
--   recover.
-- SC allows the image of the last flush (0,1 = true,false) or the one
-- at this flush (false,true).  The digest's data part still verifies
-- (pages 1 and 2 landed), the mutant's digest does not ask for the
-- tentative page, so recovery accepts the commit, which activates the
-- tentative pages below it (there are none left: the torn page is not
-- one) and its own pair: (true,true), a mixed image.
------------------------------------------------------------------------
module SCFTL.Mutants.DigestOmitsTentative where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false; _∨_)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant: P's flush (fl2, fl3, FlPt) with the mutated digest.

dgOf′ : St → Dg
dgOf′ s = digD s (dbuf s ++ concat (ept s)) , [] , nxt s   -- MUTATED (P: , ept s , nxt s)

fl2′ fl3′ : St → St
fl2′ s = let u = fl1 s in
         record u { dr = uns erased (dlt (gen s) (ep s) (dbuf s) true (dgOf′ s)) ∷ dr u }
fl3′ s = let u = syncAll (fl2′ s) in
         record u { smap = l2p u ; dbuf = [] ; ept = [] ; ers = λ p → ers u p ∨ inv u p
                  ; inv = λ _ → false ; wcnt = 0 ; gcnt = 0 }

FlPt′ : St → St → Set
FlPt′ s m = m ≡ fl2′ s ⊎ m ≡ fl3′ s ⊎ CkPt (fl3′ s) m

okM crashM : Op → St → St → Set
okM (use flush) s s' = s' ≡ fl3′ s ⊎ s' ≡ ck3 (fl3′ s)
okM o = okP o
crashM (use flush) s s' = Σ St λ m → FlPt′ s m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

-- the second page of the delta region torn
torn2 : List MC → List MC
torn2 (x ∷ _ ∷ xs) = x ∷ syn junk ∷ xs
torn2 xs           = xs

s1 s2 s3 s4 s5 m5 s6 s7 : St
s1 = ck3 (rec0 true 0 unmapped s0)    -- recovery from the new disk
s2 = wr0 0 true s1                    -- w(0,true) to page 0
s3 = fl3′ s2                          -- flush: commit [0 ↦ 0]
s4 = opt true true (wr0 0 false s3)   -- w(0,false) to page 1: programmed, tentative page
s5 = wr0 1 true s4                    -- w(1,true) to page 2 (merge buffer)
m5 = fl2′ s5                          -- flush, crash point right before the one SYNC
s6 = record (syncAll m5)              -- crash: everything landed but the tentative page
       { dr = torn2 (dr (syncAll m5)) }
s7 = ck3 (rec0 true 1 unmapped s6)    -- recovery (P's)

img6 : Img m5 s6
img6 = (λ p → land-D (dat m5 p)) , land-C (cpL m5) , land-C (cpO m5)
     , (inj₂ (inj₁ refl) ∷ inj₂ (inj₂ refl) ∷ refl ∷ []) , (λ p → land-C (rcd m5 p))

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
c5 = m5 , inj₁ refl , img6

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

-- The mutant's digest: the data pages 2 and 1, no tentative page.
-- P's digest of the same epoch also lists the tentative page [0 ↦ 1].
digest : dgOf′ s5 ≡ (((2 , true , 1) ∷ (1 , false , 0) ∷ []) , [] , 3)
digest = refl

P-digest : dgOf s5 ≡ (((2 , true , 1) ∷ (1 , false , 0) ∷ []) , (((0 , 1) ∷ []) ∷ []) , 3)
P-digest = refl

-- With P's flush the same crash (tentative page torn) fails the digest
-- check and recovery shows the image of the last flush.
s6P : St
s6P = record (syncAll (fl2 s5)) { dr = torn2 (dr (syncAll (fl2 s5))) }

img6P : Img (fl2 s5) s6P
img6P = (λ p → land-D (dat (fl2 s5) p)) , land-C (cpL (fl2 s5)) , land-C (cpO (fl2 s5))
      , (inj₂ (inj₁ refl) ∷ inj₂ (inj₂ refl) ∷ refl ∷ []) , (λ p → land-C (rcd (fl2 s5) p))

P-recovers-last-flush : rd (ck3 (rec0 true 1 unmapped s6P)) 0 ≡ true
                      × rd (ck3 (rec0 true 1 unmapped s6P)) 1 ≡ false
P-recovers-last-flush = refl , refl

violation : ¬ MultiRecSC F
violation (inj₁ sc , _) with sc 1 (s≤s z≤n)
... | ()
violation (inj₂ sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
