{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 45 (issue 39): after a flush (or a recovery) the code checks
-- only that the commit page fit, and goes on in the region while one
-- page is left, instead of taking a full checkpoint when fewer than
-- epoch_pages_max + 1 pages remain (flush.rs `after_commit`; the rule
-- `Room` of SCFTL.Impl.SpaceRegion).  The other rules (`Tent`: a
-- tentative page only when the delta buffer fills; `Kons`/`RoomK` after
-- an in-page or OOB commit) and P's steps are SpaceRegion's, unchanged.
--
-- Mutant of the region rules in P's state (check.sh:
-- MUTANTS_OF_REGION): `not-region-fits : ¬ RegionFits Pmut` — a run
-- from format whose state holds more region pages than the region has.
--
-- The configuration: one logical sector (amax = 0), W = 2 (wmax = 1),
-- K = 1, one pair per delta page, D = 8 region pages: epoch_pages_max =
-- (2 + 1)/1 + 1 = 4, and the code's (4), 2 * 4 <= 8, holds.  The run:
-- format, recovery (a full checkpoint: the region empty), seven flushes,
-- each committing in the region (the mutant's rule lets the seventh
-- through: 7 + 1 <= 8; the code's rule, pages + 5 <= 8, takes a full
-- checkpoint at the fourth), then two writes, each filling the delta
-- buffer and so programming a tentative page: nine pages.  Under the
-- code's rule the same configuration commits in the region three times
-- and writes (`code-run`, `code-room`: not vacuous), and refuses the
-- fourth region commit (`fourth-refused`).
------------------------------------------------------------------------
module SCFTL.Mutants.RegionCommitPageOnly where

open import Data.Nat.Base using (ℕ; suc; _≤_)
open import Data.Nat.Properties using (≤ᵇ⇒≤; ≤⇒≤ᵇ)
open import Data.Bool.Base using (true; false)
open import Data.Unit.Base using (⊤; tt)
open import Data.Unit.Properties using () renaming (_≟_ to _≟⊤_)
open import Data.List.Base using ([])
open import Data.Maybe.Base using (nothing)
open import Data.Product using (_,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.Model ⊤ tt 0 1 0 _≟⊤_
open import SCFTL.Impl.SpaceRegion ⊤ tt 0 1 0 _≟⊤_ 0 8 public
import SCFTL.Spec ⊤ tt 0 1 as Sp
open Sp using (use; flush; recover; w) renaming (reg to regop)

-- the mutant's rule: room for the commit page only
Pmut : St → Set
Pmut x = suc (drL x) ≤ 8

-- the code's bound here: epoch_pages_max = 4
epm-4 : epm ≡ 4
epm-4 = refl

-- format's state (NewP: the empty checkpoint of generation 0, the other
-- slot erased, the region empty; the memory anything, here empty)
s0 : St
s0 = record
  { dat = λ _ → syn erased ; cpL = syn (cpt 0 unmapped) ; cpO = syn erased ; dr = []
  ; rcd = λ _ → syn erased ; gen = 0 ; l2p = unmapped ; mb = λ _ → nothing
  ; dbuf = [] ; ept = [] ; ep = 0 ; nxt = 0 ; lnk = nothing
  ; inv = λ _ → false ; ers = λ _ → false ; wcnt = 0 ; gcnt = 0 ; smap = unmapped }

new0 : NewP s0
new0 = refl , refl , refl , λ _ → refl

-- recovery: the checkpoint of generation 0, then a full checkpoint
s1 : St
s1 = ck3 (rec0 true 0 unmapped s0)

rec1 : okPSw Pmut recover s0 s1
rec1 = (true , 0 , unmapped , refl , inj₁ refl) , ≤ᵇ⇒≤ _ _ tt

-- seven flushes committing in the region
s8 : St
s8 = fl3 (fl3 (fl3 (fl3 (fl3 (fl3 (fl3 s1))))))

-- two writes of sector 0, each filling the one-pair delta buffer
w1 w2 : St
w1 = opt false true (wr0 0 tt s8)
w2 = opt false true (wr0 0 tt w1)

fl : ∀ {x y} → Run Pmut (fl3 x) y → Pmut (fl3 x) → Run Pmut x y
fl r p = step flush (inj₁ refl , inj₁ p) r

run : Run Pmut s1 w2
run =
  fl (fl (fl (fl (fl (fl (fl
    (step (regop (w 0 tt)) (inj₁ ((≤ᵇ⇒≤ _ _ tt , ≤ᵇ⇒≤ _ _ tt) , false , true , refl) ,
                            inj₂ (_ , refl , refl) , ≤ᵇ⇒≤ _ _ tt)
    (step (regop (w 0 tt)) (inj₁ ((≤ᵇ⇒≤ _ _ tt , ≤ᵇ⇒≤ _ _ tt) , false , true , refl) ,
                            inj₂ (_ , refl , refl) , ≤ᵇ⇒≤ _ _ tt)
     done))
    (≤ᵇ⇒≤ _ _ tt)) (≤ᵇ⇒≤ _ _ tt)) (≤ᵇ⇒≤ _ _ tt)) (≤ᵇ⇒≤ _ _ tt)) (≤ᵇ⇒≤ _ _ tt)) (≤ᵇ⇒≤ _ _ tt)) (≤ᵇ⇒≤ _ _ tt)

-- nine region pages in a region of eight
nine : drL w2 ≡ 9
nine = refl

not-region-fits : ¬ RegionFits Pmut
not-region-fits fits = ≤⇒≤ᵇ (fits {s0} {s1} {w2} new0 rec1 run)

-- the code's rule keeps every run within the region (SpaceRegion)
code-fits : RegionFits Room
code-fits {s0} {s1} {s} = region-fits {s0} {s1} {s}

-- Not vacuous: the code's rule lets the same configuration commit in
-- the region three times (3 + 5 <= 8) and then write, each write
-- programming a tentative page; `region-room` then leaves a page free.
s4 : St
s4 = fl3 (fl3 (fl3 s1))

v1 v2 : St
v1 = opt false true (wr0 0 tt s4)
v2 = opt false true (wr0 0 tt v1)

rec1-code : okPS recover s0 s1
rec1-code = (true , 0 , unmapped , refl , inj₁ refl) , ≤ᵇ⇒≤ _ _ tt

code-run : Run Room s1 v2
code-run =
  step flush (inj₁ refl , inj₁ (≤ᵇ⇒≤ _ _ tt))
  (step flush (inj₁ refl , inj₁ (≤ᵇ⇒≤ _ _ tt))
  (step flush (inj₁ refl , inj₁ (≤ᵇ⇒≤ _ _ tt))
  (step (regop (w 0 tt)) (inj₁ ((≤ᵇ⇒≤ _ _ tt , ≤ᵇ⇒≤ _ _ tt) , false , true , refl) ,
                          inj₂ (_ , refl , refl) , ≤ᵇ⇒≤ _ _ tt)
  (step (regop (w 0 tt)) (inj₁ ((≤ᵇ⇒≤ _ _ tt , ≤ᵇ⇒≤ _ _ tt) , false , true , refl) ,
                          inj₂ (_ , refl , refl) , ≤ᵇ⇒≤ _ _ tt)
   done))))

-- five region pages, and a sixth free by the theorem
five : drL v2 ≡ 5
five = refl

code-room : suc (drL v2) ≤ 8
code-room = region-room {s0} {s1} {v2} new0 rec1-code code-run

-- the fourth region commit the mutant allowed is refused by the code's
-- rule (4 + 5 > 8): there the flush takes its full checkpoint
fourth-refused : ¬ Room (fl3 s4)
fourth-refused r = ≤⇒≤ᵇ r
