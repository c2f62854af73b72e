{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 23 (issue 39): constraint (4) asks the delta region to hold one
-- epoch's delta pages, `epoch_pages_max <= delta_pages`, instead of two
-- (`2 * epoch_pages_max <= delta_pages`, config.rs `Space::broken`).
-- (1)-(3) and the steps are SCFTL.Impl.Space's, unchanged.
--
-- Mutant of the space accounting (check.sh: MUTANTS_OF_SPACE):
-- `not-space-progress : ¬ SpaceProgress Pmut`.  What fails is
-- `delta-room` (2 <= rem): the region's room for the next page and the
-- consolidation page flush.rs budgets (`after_commit` takes a full
-- checkpoint when fewer than epoch_pages_max + 1 pages remain: "the next
-- epoch may write a consolidation page besides its own").  Right after
-- the checkpoint the region has D = epoch_pages_max pages, and an epoch
-- of epoch_pages_max - 1 tentative pages leaves one: its commit page
-- fits, the consolidation page the code reserves does not (in the code:
-- `check_room`'s "the delta region's pages are full" after an in-page
-- commit; the consolidation page itself is not modelled here).
--
-- The configuration: W = 1, K = 1, U = 2, L = 1 (N = 0), S = 1, P = 4,
-- no padding, one pair per delta page, D = 2 region pages:
-- epoch_pages_max = 1/1 + 1 = 2.  The code's (1)-(3) hold (`ok`), (4) is
-- 4 <= 2 (`not-valid`).  The run: from format (region of 2 pages), one
-- write, whose pair fills the delta buffer, programmed as a tentative
-- page: one page left.
------------------------------------------------------------------------
module SCFTL.Mutants.SpaceRegionOneEpoch where

open import Data.Nat using (ℕ; zero; suc; _+_; _*_; _≤_; _<_; z≤n; s≤s)
open import Data.List using (List; []; _∷_)
open import Data.Sum using (inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (ε; _◅_)

open import SCFTL.Impl.Space

-- `Valid` with (4) weakened to one epoch's pages.
record Valid′ (c : Config) : Set where
  field
    U≥1   : 1 ≤ U c
    ppp≥1 : 1 ≤ ppp c
    pad<S : pad c < S c
    c1    : need c ≤ K c * S c
    c2    : U c + 1 + ⌈ need c / S c ⌉ ≤ P c
    c3    : need c + slack 1 (pad c) (S c) ≤ K c * S c
    c4    : epm c ≤ D c

Pmut : SpaceModel
Pmut = record { Ok = Valid′ }

-- W K U L S P pad ppp D
c : Config
c = cfg 1 1 2 1 1 4 0 1 2

ok : Valid′ c
ok = record
  { U≥1 = s≤s z≤n ; ppp≥1 = s≤s z≤n ; pad<S = s≤s z≤n
  ; c1 = s≤s z≤n
  ; c2 = s≤s (s≤s (s≤s (s≤s z≤n)))
  ; c3 = s≤s z≤n
  ; c4 = s≤s (s≤s z≤n) }

-- The code's (4) rejects it: 4 <= 2.
not-valid : ¬ Valid c
not-valid v with Valid.c4 v
... | s≤s (s≤s ())

-- fre ers inv vs room va wc gc pend rem tp buf pr cu
short : St
short = st 0 3 0 [] 0 1 1 0 0 1 1 0 1 0

run : Reach c short
run = wrN (s≤s z≤n) (inj₂ (s≤s z≤n)) (s≤s z≤n) (s≤s z≤n)
    ◅ dpg
    ◅ ε

not-space-progress : ¬ SpaceProgress Pmut
not-space-progress sp with Progress.delta-room (sp c ok run)
... | s≤s ()
