{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 22 (issue 39): the space constraints leave the GC victims'
-- valid sectors out of an epoch's consumption: `epoch_pairs_max` is W
-- instead of W + K*N (config.rs `Derived`, `Space::need`), so (1)-(4)
-- are checked with W alone ("K counts victims, not the sectors they
-- carry").  The steps are SCFTL.Impl.Space's, unchanged.
--
-- Mutant of the space accounting, not of P (check.sh:
-- MUTANTS_OF_SPACE): `Pmut : SpaceModel` and
-- `not-space-progress : ¬ SpaceProgress Pmut`, by a configuration that
-- passes the mutated constraints (`ok`, and not the code's: `not-valid`)
-- and a run from format to a state where a wanted write finds no page.
--
-- The configuration: W = 1, K = 2, U = 1, L = 1 (N = 1), S = 1 sector
-- per superblock, P = 3 data superblocks, no padding, one pair per delta
-- page, a region of 4 pages.  (1') 1 <= 2, (2') 1 + 1 + 1 <= 3,
-- (3') 1 + 0 <= 2, (4') 2 * 2 <= 4; the code's (1) is 1 + 2 * 1 <= 2,
-- false.
--
-- The run: the open superblock takes the write of the only logical
-- sector (its pair fills a delta page); both erasable superblocks are
-- erased; flush (a full checkpoint: the region is short).  Next epoch:
-- the active superblock is retired (used = 1 >= U), a free one opened;
-- GC takes the used one (1 valid sector = N) and relocates its sector
-- into the new active superblock, which is then full; the last free one
-- is opened, retiring it; GC runs again (gc = 1 < K = 2, used = 1 >= U)
-- and relocates that sector.  Now both victims are invalid (erasable
-- only at the next commit), nothing is free or erasable, the active
-- superblock is full, and the epoch has written nothing: its one write
-- finds no page.  The epoch consumed W + K*N = 3 sectors of the 2 its
-- victims give back.
------------------------------------------------------------------------
module SCFTL.Mutants.SpaceVictimsNotCounted where

open import Data.Nat using (ℕ; zero; suc; _+_; _*_; _≤_; _<_; z≤n; s≤s)
open import Data.List using (List; []; _∷_)
open import Data.Sum using (inj₁; inj₂)
open import Data.Product using (_,_)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (ε; _◅_)

open import SCFTL.Impl.Space

-- The mutated derivation: an epoch's pairs counted as W alone.
need′ : Config → ℕ
need′ c = W c

epm′ : Config → ℕ
epm′ c = need′ c div ppp c + 1

-- `Valid` with `need′` for `need`.
record Valid′ (c : Config) : Set where
  field
    U≥1   : 1 ≤ U c
    ppp≥1 : 1 ≤ ppp c
    pad<S : pad c < S c
    c1    : need′ c ≤ K c * S c
    c2    : U c + 1 + ⌈ need′ c / S c ⌉ ≤ P c
    c3    : need′ c + slack 1 (pad c) (S c) ≤ K c * S c
    c4    : 2 * epm′ c ≤ D c

Pmut : SpaceModel
Pmut = record { Ok = Valid′ }

-- W K U L S P pad ppp D
c : Config
c = cfg 1 2 1 1 1 3 0 1 4

ok : Valid′ c
ok = record
  { U≥1 = s≤s z≤n ; ppp≥1 = s≤s z≤n ; pad<S = s≤s z≤n
  ; c1 = s≤s z≤n
  ; c2 = s≤s (s≤s (s≤s z≤n))
  ; c3 = s≤s z≤n
  ; c4 = s≤s (s≤s (s≤s (s≤s z≤n))) }

-- The code's constraints reject it: (1) is 3 <= 2.
not-valid : ¬ Valid c
not-valid v with Valid.c1 v
... | s≤s (s≤s ())

-- fre ers inv vs room va wc gc pend rem tp buf pr cu
stuck : St
stuck = st 0 0 2 [] 0 1 0 2 0 3 1 1 2 1

run : Reach c stuck
run = wrN (s≤s z≤n) (inj₂ (s≤s z≤n)) (s≤s z≤n) (s≤s z≤n)
    ◅ dpg
    ◅ era
    ◅ era
    ◅ flC {d = 0} (inj₂ (s≤s z≤n)) z≤n z≤n
    ◅ act {xs = []}
    ◅ gcm {xs = []} {v = 1} {ys = []} (s≤s z≤n) (s≤s z≤n) (inj₁ (s≤s z≤n))
    ◅ rl (s≤s z≤n)
    ◅ dpg
    ◅ act {xs = []}
    ◅ gcm {xs = []} {v = 1} {ys = []} (s≤s (s≤s z≤n)) (s≤s z≤n) (inj₁ (s≤s z≤n))
    ◅ rl (s≤s z≤n)
    ◅ ε

-- The write the epoch still admits (wc = 0 < W) finds no page.
no-page : ¬ Finds c stuck
no-page (inj₁ ())
no-page (inj₂ (_ , ()))

not-space-progress : ¬ SpaceProgress Pmut
not-space-progress sp = no-page (Progress.write-finds (sp c ok run) (s≤s z≤n) refl)
