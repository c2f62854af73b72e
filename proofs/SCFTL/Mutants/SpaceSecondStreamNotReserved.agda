{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 30 (issue 39): constraint (2) with two write streams computed
-- as for one, u + 1 + ceil(need/s) <= p: neither the second stream's
-- superblock of the `+ t` nor the (t-1)*(pad + s) inside the code's
-- ceiling (config.rs `Space::broken`: u + t + ceil((need + (t-1)*(pad
-- + s))/s) <= p), while (1), (3) and (4) keep their t = 2 form.  The
-- steps are SCFTL.Impl.SpaceTwoStreams's, unchanged.
--
-- Mutant of the space accounting, not of P (check.sh: MUTANTS_OF_SPACE):
-- `Pmut` is a `SpaceModel2` and `SpaceProgress` is `SpaceProgress2`
-- (renamed below, as mutants 16 and 17 rename `SnapshotConsistentB`),
-- `not-space-progress : ¬ SpaceProgress Pmut`, by a configuration that
-- passes the mutated constraints (`ok`, and not the code's:
-- `not-valid`) and a run of the two-stream machine from format to a
-- state where a pending relocation finds no page.
--
-- One of (2)'s two terms suffices (SCFTL.Impl.SpaceTwoStreams, `Needs2`:
-- u + 2 + ceil(need/s) <= p); this mutant drops both.
--
-- The configuration: W = 1, K = 4, U = 1, L = 1 (N = 1), S = 5 sectors
-- per superblock, P = 3 data superblocks, no padding, five pairs per
-- delta page, a region of 40 pages.  (1) 5 <= 20, (2') 1 + 1 + 1 <= 3,
-- (3) 5 + slack(2, 0, 5) = 18 <= 20, (4) 2 * 2 <= 40; the code's (2) is
-- 1 + 2 + ceil(10/5) <= 3, false.
--
-- The run (73 steps, found by a breadth-first search of the machine with
-- the code's padding and recovery: the flush pads nothing, recovery
-- makes used exactly the superblocks holding committed data): a write of
-- the only logical sector into the host stream; commit; a crash
-- (recovery: that superblock used, both streams' superblocks opened, no
-- erasable one left); GC (used = 1 >= U) relocates the sector into the
-- cold stream.  Then, five times: the host stream's superblock is filled
-- by one write per epoch (each over the sector's last copy) and retired,
-- taking the one erasable superblock, and GC relocates its one valid
-- sector into the cold stream, whose superblock fills a sector per
-- round; the flush makes the victim erasable.  In the fifth round the
-- cold stream's superblock is full when the relocation comes: the host
-- stream took the last erasable superblock, the victim is erasable only
-- at the commit, and the relocation finds no page (`no-page`).  Two
-- active superblocks and the one spare are all the data superblocks
-- there are: the second stream needs its superblock in (2).
------------------------------------------------------------------------
module SCFTL.Mutants.SpaceSecondStreamNotReserved where

open import Data.Nat using (ℕ; zero; suc; _+_; _*_; _≤_; _<_; z≤n; s≤s; _≤?_)
open import Data.List using (List; []; _∷_)
open import Data.Sum using (inj₁; inj₂)
open import Data.Product using (_,_)
open import Data.Unit using (tt)
open import Relation.Nullary using (¬_)
open import Relation.Nullary.Decidable using (True; toWitness)
open import Relation.Binary.PropositionalEquality using (refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (ε; _◅_)

open import SCFTL.Impl.Space
  using (Config; cfg; W; K; U; L; S; P; pad; ppp; D; N; need; epm; ⌈_/_⌉; slack)
open import SCFTL.Impl.SpaceTwoStreams
  renaming (SpaceModel2 to SpaceModel; SpaceProgress2 to SpaceProgress)

private
  lit : ∀ {m n} {w : True (m ≤? n)} → m ≤ n
  lit {w = w} = toWitness w

-- `Valid2` with (2) as for one stream.
record Valid′ (c : Config) : Set where
  field
    U≥1   : 1 ≤ U c
    ppp≥1 : 1 ≤ ppp c
    pad<S : pad c < S c
    c1    : need c ≤ K c * S c
    c2    : U c + 1 + ⌈ need c / S c ⌉ ≤ P c
    c3    : need c + slack 2 (pad c) (S c) ≤ K c * S c
    c4    : 2 * epm c ≤ D c

Pmut : SpaceModel
Pmut = record { Ok = Valid′ }

-- W K U L S P pad ppp D
c : Config
c = cfg 1 4 1 1 5 3 0 5 40

ok : Valid′ c
ok = record { U≥1 = lit ; ppp≥1 = lit ; pad<S = lit ; c1 = lit ; c2 = lit ; c3 = lit ; c4 = lit }

-- The code's constraints reject it: its (2) is 5 <= 3.
not-valid : ¬ Valid2 c
not-valid v with Valid2.c2 v
... | s≤s (s≤s (s≤s ()))

stuck : St2
stuck = st2 0 0 1 [] 5 0 0 0 1 1 1 15 0 1 1 2

run : Reach2 c stuck
run =
   wrN lit (inj₂ lit) lit lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ rec {e' = 0} {ys = (1 ∷ [])} refl lit lit (inj₁ (refl , lit))
  ◅ gcm {xs = []} {v = 1} {ys = []} lit lit (inj₁ lit)
  ◅ rl lit
  ◅ wrC lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ era
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ actH
  ◅ gcm {xs = []} {v = 1} {ys = []} lit lit (inj₁ lit)
  ◅ rl lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrC lit (inj₂ lit) lit
  ◅ era
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ actH
  ◅ gcm {xs = []} {v = 1} {ys = []} lit lit (inj₁ lit)
  ◅ rl lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrC lit (inj₂ lit) lit
  ◅ era
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ actH
  ◅ gcm {xs = []} {v = 1} {ys = []} lit lit (inj₁ lit)
  ◅ rl lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrC lit (inj₂ lit) lit
  ◅ era
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ actH
  ◅ gcm {xs = []} {v = 1} {ys = []} lit lit (inj₁ lit)
  ◅ rl lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrC lit (inj₂ lit) lit
  ◅ era
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ flK {dh = 0} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ wrH lit (inj₂ lit) lit
  ◅ actH
  ◅ gcm {xs = []} {v = 1} {ys = []} lit lit (inj₁ lit) 
  ◅ ε

-- The pending relocation (pend = 1) finds no page in the cold stream: its
-- superblock is full, nothing is free or erasable.
no-page : ¬ FindsC c stuck
no-page (inj₁ ())
no-page (inj₂ (_ , ()))

not-space-progress : ¬ SpaceProgress Pmut
not-space-progress sp = no-page (Progress2.reloc-finds (sp c ok run) lit)
