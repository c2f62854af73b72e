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
-- The configuration: W = 1, K = 5, U = 2, L = 3 (N = 1), S = 6 sectors
-- per superblock (two pages of three sectors: padding up to 2), P = 4
-- data superblocks, seven pairs per delta page, a region of 40 pages.
-- (1) 6 <= 30, (2') 2 + 1 + ceil(6/6) <= 4, (3) 6 + slack(2, 2, 6) =
-- 26 <= 30, (4) 2 * 1 <= 40; the code's (2) is
-- 2 + 2 + ceil((6 + 2 + 6)/6) = 7 <= 4, false.
--
-- The run (24 steps, found by a breadth-first search of the machine
-- restricted to what the code does: GC whenever it is needed before a
-- write or a flush, the greedy victim, a superblock opened only by the
-- write or relocation that needs it and that write going first, the
-- flush padding each stream's partial page, recovery making used exactly
-- the superblocks that hold committed data): from format (both streams'
-- superblocks open, two erasable), a write into the host stream, a flush
-- (padding its page), a crash; again a write, a flush, a crash: now the
-- two superblocks holding the two sectors are used and both streams'
-- superblocks are fresh, nothing else is left (P = 4).  GC (used = 2 >=
-- U) takes one, relocates its sector into the cold stream; a write over
-- it; flush (both streams padded, the victim erasable).  A write and a
-- flush fill the host stream's superblock.  The next write erases the
-- erasable superblock and opens it for the host stream, retiring the
-- full one (used = 2 again); GC takes a used one and relocates its
-- sector into the cold stream; flush (both padded: the cold stream's
-- superblock is full now); a write and a flush fill the host stream's
-- superblock again, and the next write takes the last erasable
-- superblock for it.  GC is due (used = 2) and its victim's sector finds
-- no page: the cold stream's superblock is full, nothing is free or
-- erasable, the victim is erasable only at the commit (`no-page`).  Two
-- active superblocks and what one stream needs leave the second stream
-- without its superblock: (2) needs it.
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
c = cfg 1 5 2 3 6 4 2 7 40

ok : Valid′ c
ok = record { U≥1 = lit ; ppp≥1 = lit ; pad<S = lit ; c1 = lit ; c2 = lit ; c3 = lit ; c4 = lit }

-- The code's constraints reject it: its (2) is 7 <= 4.
not-valid : ¬ Valid2 c
not-valid v with Valid2.c2 v
... | s≤s (s≤s (s≤s (s≤s ())))

stuck : St2
stuck = st2 0 0 1 (1 ∷ []) 5 1 0 0 1 1 1 34 0 1 1 3

run : Reach2 c stuck
run =
   wrN lit lit lit
  ◅ flK {dh = 2} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ rec {e' = 1} {ys = (1 ∷ [])} refl lit lit (inj₁ (refl , lit))
  ◅ wrN lit lit lit
  ◅ flK {dh = 2} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ rec {e' = 0} {ys = (1 ∷ 1 ∷ [])} refl lit lit (inj₁ (refl , lit))
  ◅ gcm {xs = []} {v = 1} {ys = (1 ∷ [])} lit lit (inj₁ lit)
  ◅ rl lit
  ◅ wrC lit lit
  ◅ flK {dh = 2} {dc = 2} (inj₂ lit) lit lit lit lit
  ◅ wrH lit lit
  ◅ flK {dh = 2} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ era
  ◅ actH lit
  ◅ wrN lit lit lit
  ◅ gcm {xs = []} {v = 1} {ys = (1 ∷ [])} lit lit (inj₁ lit)
  ◅ rl lit
  ◅ flK {dh = 2} {dc = 2} (inj₂ lit) lit lit lit lit
  ◅ wrH lit lit
  ◅ flK {dh = 2} {dc = 0} (inj₂ lit) lit lit lit lit
  ◅ era
  ◅ actH lit
  ◅ wrC lit lit
  ◅ gcm {xs = []} {v = 1} {ys = (1 ∷ [])} lit lit (inj₁ lit) 
  ◅ ε

-- The pending relocation (pend = 1) finds no page in the cold stream: its
-- superblock is full, nothing is free or erasable.
no-page : ¬ FindsC c stuck
no-page (inj₁ ())
no-page (inj₂ (_ , ()))

not-space-progress : ¬ SpaceProgress Pmut
not-space-progress sp = no-page (Progress2.reloc-finds (sp c ok run) lit)
