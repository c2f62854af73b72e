{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the space accounting of SCFTL (paper §3.4; the code's
-- crates/ftl/src/scftl/config.rs, blocks.rs, gc.rs, delta.rs, flush.rs).
--
-- P and B leave space unbounded (README, "What is abstracted", item 3).
-- This module models the accounting the code's constraints (1)-(4) are
-- for, at the level of superblocks and counts, for every configuration
-- that passes them (`Valid`, stated with the code's names), and proves
-- that an epoch never runs out of space:
--
--   * data superblocks in the states of blocks.rs: free (`fre`),
--     erasable (`ers`), used (one valid count per used superblock, `vs`),
--     invalid (this epoch's GC victims, `inv`) and the active one (its
--     room `room` in sectors, its valid count `va`); S sectors each;
--   * the epoch's counters: sector updates `wc` (at most W), GC
--     relocations `gc` (victims, at most K), and the victim's sectors
--     still to be relocated `pend`;
--   * the delta region: pages left `rem`, the epoch's tentative pages
--     `tp`, the pairs in the delta buffer `buf` (a page holds `ppp`),
--     the epoch's pairs `pr`.
--
-- Steps (`Step`): a write (`wrU`: its old copy was in a used superblock;
-- `wrA`: in the active one; `wrN`: none, a new logical sector) consumes
-- one sector of the active superblock and pushes a pair; it is allowed
-- only when GC is not needed (`gc_if_needed` runs before every sector:
-- `gc_needed` is gc < K and used >= U); GC (`gcm`) takes a victim, the
-- greedy one (fewest valid sectors) or any with at most N valid sectors
-- (the two-stream cost-benefit choice with its fallback, gc.rs
-- `pick_victim`), which becomes invalid; `rl` relocates one of its
-- sectors like a write; `dpg` programs a full delta buffer as a
-- tentative region page; `act` retires the active superblock (used;
-- its count anywhere in the list: the list's order means nothing) and
-- opens a free one; `era` erases an erasable one (free); a flush
-- (`flK`, `flC`) pads the active superblock's page (at most
-- sectors_per_page - 1 sectors), programs its commit page in the region,
-- turns the epoch's victims erasable (2PGC: only now) and starts the
-- next epoch, with a full checkpoint (fresh region, `flC`: forced when
-- fewer than epoch_pages_max + 1 pages remain, flush.rs `after_commit`,
-- or taken for another reason) or without (`flK`); a crash and recovery
-- (`rec`, `open` with blocks.rs `rebuild`) leaves used exactly the
-- superblocks the recovered L2P references — at most those that held
-- committed data at the last commit (the ghost `cu`: the used ones and
-- the open one, whose unwritten tail is abandoned) — and every other one
-- erasable, opens one, and continues the region if it has the budget,
-- else writes a full checkpoint.
--
-- Main results:
--   `step-inv`, `reach-inv`: the invariant `Inv` (the validator of
--   invariants.rs `validate_after`, "available >= W + K*N", generalised
--   to every point inside an epoch, plus the delta region's budget and
--   what a recovery leaves, `recb`) holds in every state reachable from
--   format, crashes and recoveries included;
--   `progress`, **`space-progress`**: in every reachable state a wanted
--   write and a pending relocation find a page (`Finds`: room in the
--   active superblock, or a free or erasable superblock to open;
--   `finds-page`: then a page is reached by at most an erase and an
--   activation), a needed GC finds a victim with at most N valid sectors
--   (`gc-victim`, by pigeonhole, `victim-bound`), and the delta region
--   has room for the next page and one more (`2 <= rem`: the tentative
--   or commit page, and the consolidation page flush.rs budgets);
--   `victim-bound`: the greedy victim among at least U used superblocks
--   holding at most L valid sectors has at most N = floor(L/U);
--   `gc-victim`: when GC is needed one exists (`min-split`).
--
-- What the proof needs (a finding, machine-checked): `Needs`, weaker
-- than `Valid` (`needs`), and `space-progress-needs`: (1) (in the flush
-- with K victims: they give back K*S >= W + K*N), (2) without its `+ t`
-- (in the flush with fewer than U used superblocks, and at format), (4)
-- only as epoch_pages_max + 1 <= delta_pages (which it implies, since
-- epoch_pages_max >= 1; its factor 2 beyond that spaces full checkpoints
-- out; mutant 23: one epoch's pages is too few), U >= 1, pairs per page
-- >= 1 and S >= 1.  Nothing of (3): in this model (one write stream, GC
-- checked before every write) its padding and abandoned-tail terms and
-- (2)'s `+ t` are slack, crashes included: the flush's bound
-- (`commit-space`) leaves W + K*N sectors outside the open superblock,
-- so abandoning its tail costs nothing (`recb`).  What the model leaves
-- out (two streams, the code's GC timing: a used superblock more at the
-- commit than the model allows, the validator's padding term) is where
-- the code may need them (not proven here).
--
-- Not modelled: two write streams (t = 2; the model is t = 1), trims
-- (they count toward W and consume no space), bad superblocks and the
-- spares of `with_bad_superblocks`, static wear leveling, metadata
-- rotation taking data superblocks, the OOB and in-page commits (no
-- region page) and the lazy consolidation page (only its reserve,
-- `2 <= rem`), the code's GC timing (here GC is re-checked after a
-- write opens a page, before that write, and the flush's padding never
-- retires the active superblock; the code lets that one sector through
-- first, and its padding may fill the active superblock after the flush's
-- GC check), which
-- superblocks the recovered L2P references (any `ys` within `cu`), and
-- the unsynced epochs of barriers (a recovery returns to the last
-- commit).  The link to P is by name only:
-- P's write guard `InB` (wcnt <= wmax) is `wc < W` with W = wmax + 1,
-- P's relocation guard (gcnt <= kmax) is `gc < K` with K = kmax + 1 and
-- one sector per victim (P's erase unit is a page, N <= S = 1).
--
-- Mutants: 22 (SCFTL.Mutants.SpaceVictimsNotCounted: W + K*N counted as
-- W, a wanted write finds no page) and 23 (SCFTL.Mutants.
-- SpaceRegionOneEpoch: (4) as epoch_pages_max <= delta_pages, the
-- region's reserve lost), each `¬ SpaceProgress Pmut`.  Non-vacuity:
-- `example-valid` (a configuration with N = 1 that `Valid` accepts) and
-- `example-run` (commit, crash and recovery, forced checkpoint, GC).
------------------------------------------------------------------------
module SCFTL.Impl.Space where

open import Data.Nat using (ℕ; zero; suc; _+_; _*_; _∸_; _≤_; _<_; z≤n; s≤s; _≤?_)
open import Data.Nat.DivMod using (_/_; _%_; m≡m%n+[m/n]*n; m%n<n; m*n/n≡m; /-monoˡ-≤)
open import Data.Nat.Properties
open import Data.List using (List; []; _∷_; _++_; length; sum)
open import Data.List.Properties using (length-++; sum-++-commute)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Relation.Unary.All.Properties using (++⁺)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥; ⊥-elim)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Nullary.Decidable using (True; toWitness)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive
  using (Star; ε; _◅_)
open import Data.Nat.Solver using (module +-*-Solver)
open +-*-Solver using (solve; _:+_; _:*_; _:=_; con)

------------------------------------------------------------------------
-- Arithmetic as the code computes it

-- `u64 / u64::from(x.max(1))` for N; for the others the divisor is >= 1.
_div_ : ℕ → ℕ → ℕ
m div zero    = m
m div (suc n) = m / suc n

-- `m.div_ceil(s)` (s >= 1).
⌈_/_⌉ : ℕ → ℕ → ℕ
⌈ m / s ⌉ = (m + (s ∸ 1)) div s

-- config.rs `slack(t, pad, s)`.
slack : ℕ → ℕ → ℕ → ℕ
slack t pad s = t * pad + t * (s ∸ 1) + (t ∸ 1) * s

------------------------------------------------------------------------
-- Configuration (config.rs `Space`, `Derived`), one write stream (t = 1)

record Config : Set where
  constructor cfg
  field
    W   : ℕ   -- write_bound
    K   : ℕ   -- gc_bound
    U   : ℕ   -- gc_threshold
    L   : ℕ   -- logical_sectors
    S   : ℕ   -- sectors_per_sb
    P   : ℕ   -- data_sbs
    pad : ℕ   -- sectors_per_page - 1 (flush padding at most)
    ppp : ℕ   -- delta_pairs_per_page
    D   : ℕ   -- delta_pages (delta_region_superblocks * pages_per_sb)
open Config public

N : Config → ℕ                 -- n = floor(L / U)
N c = L c div U c

need : Config → ℕ              -- epoch_pairs_max = W + K*N
need c = W c + K c * N c

epm : Config → ℕ               -- epoch_pages_max = epoch_pairs_max / ppp + 1
epm c = need c div ppp c + 1

-- The code's constraints (`validate`, `Space::broken`) with t = 1.
record Valid (c : Config) : Set where
  field
    U≥1   : 1 ≤ U c                       -- "gc_threshold (U) must be at least 1"
    ppp≥1 : 1 ≤ ppp c                     -- "delta_pairs_per_page must be at least 1"
    pad<S : pad c < S c                   -- sectors_per_page <= S (geometry)
    c1    : need c ≤ K c * S c            -- (1) W + K*N <= K*S
    c2    : U c + 1 + ⌈ need c / S c ⌉ ≤ P c
                                          -- (2) u + t + ceil(need/s) <= p
    c3    : need c + slack 1 (pad c) (S c) ≤ K c * S c
                                          -- (3) need + slack(t, pad, s) <= k*s
    c4    : 2 * epm c ≤ D c               -- (4) 2 * epoch_pages_max <= delta_pages

-- What the proof below needs (a finding): (1), (2) without its `+ t`,
-- and (4) only as epoch_pages_max + 1 <= delta_pages; nothing of (3).
record Needs (c : Config) : Set where
  field
    U≥1   : 1 ≤ U c
    ppp≥1 : 1 ≤ ppp c
    S≥1   : 1 ≤ S c
    c1    : need c ≤ K c * S c
    c2    : U c + ⌈ need c / S c ⌉ ≤ P c
    c4    : suc (epm c) ≤ D c

------------------------------------------------------------------------
-- State and steps

record St : Set where
  constructor st
  field
    fre ers inv : ℕ
    vs          : List ℕ
    room va     : ℕ
    wc gc pend  : ℕ
    rem tp buf pr : ℕ
    cu          : ℕ   -- ghost: superblocks holding committed data at the
                      -- last commit (used ones and the open one)
open St public

-- Sectors available to the epoch (invariants.rs `available_sectors`).
avail : Config → St → ℕ
avail c s = (fre s + ers s) * S c + room s

-- GC is not needed (gc.rs `gc_needed` is false).
NotNeeded : Config → ℕ → List ℕ → Set
NotNeeded c g xs = K c ≤ g ⊎ length xs < U c

-- The victim `v` between `xs` and `ys`: the greedy choice, or one with at
-- most N valid sectors (the cost-benefit choice gc.rs accepts).
Victim : Config → List ℕ → ℕ → List ℕ → Set
Victim c xs v ys = v ≤ N c ⊎ (All (v ≤_) xs × All (v ≤_) ys)

data Step (c : Config) : St → St → Set where
  wrU : ∀ {f e i xs x ys r a w g rm t b p u} →
        w < W c → NotNeeded c g (xs ++ suc x ∷ ys) → b < ppp c →
        Step c (st f e i (xs ++ suc x ∷ ys) (suc r) a w g 0 rm t b p u)
               (st f e i (xs ++ x ∷ ys) r (suc a) (suc w) g 0 rm t (suc b) (suc p) u)
  wrA : ∀ {f e i xs r a w g rm t b p u} →
        w < W c → NotNeeded c g xs → b < ppp c →
        Step c (st f e i xs (suc r) (suc a) w g 0 rm t b p u)
               (st f e i xs r (suc a) (suc w) g 0 rm t (suc b) (suc p) u)
  wrN : ∀ {f e i xs r a w g rm t b p u} →
        w < W c → NotNeeded c g xs → b < ppp c → sum xs + a < L c →
        Step c (st f e i xs (suc r) a w g 0 rm t b p u)
               (st f e i xs r (suc a) (suc w) g 0 rm t (suc b) (suc p) u)
  gcm : ∀ {f e i xs v ys r a w g rm t b p u} →
        g < K c → U c ≤ length (xs ++ v ∷ ys) → Victim c xs v ys →
        Step c (st f e i (xs ++ v ∷ ys) r a w g 0 rm t b p u)
               (st f e (suc i) (xs ++ ys) r a w (suc g) v rm t b p u)
  rl  : ∀ {f e i xs r a w g q rm t b p u} →
        b < ppp c →
        Step c (st f e i xs (suc r) a w g (suc q) rm t b p u)
               (st f e i xs r (suc a) w g q rm t (suc b) (suc p) u)
  dpg : ∀ {f e i xs r a w g q rm t p u} →
        Step c (st f e i xs r a w g q (suc rm) t (ppp c) p u)
               (st f e i xs r a w g q rm (suc t) 0 p u)
  act : ∀ {f e i xs ys a w g q rm t b p u} →
        Step c (st (suc f) e i (xs ++ ys) 0 a w g q rm t b p u)
               (st f e i (xs ++ a ∷ ys) (S c) 0 w g q rm t b p u)
  era : ∀ {f e i xs r a w g q rm t b p u} →
        Step c (st f (suc e) i xs r a w g q rm t b p u)
               (st (suc f) e i xs r a w g q rm t b p u)
  flK : ∀ {f e i xs d r a w g rm t b p u} →
        NotNeeded c g xs → d ≤ pad c → b ≤ ppp c → suc (epm c) ≤ rm →
        Step c (st f e i xs (d + r) a w g 0 (suc rm) t b p u)
               (st f (e + i) 0 xs r a 0 0 0 rm 0 0 0 (suc (length xs)))
  flC : ∀ {f e i xs d r a w g rm t b p u} →
        NotNeeded c g xs → d ≤ pad c → b ≤ ppp c →
        Step c (st f e i xs (d + r) a w g 0 (suc rm) t b p u)
               (st f (e + i) 0 xs r a 0 0 0 (D c) 0 0 0 (suc (length xs)))
  -- A crash and recovery (`open`, blocks.rs `rebuild`): the superblocks
  -- the recovered L2P references (`ys`) are used, every other one
  -- erasable (one of them opened; the active superblock's unwritten tail
  -- is abandoned with it), the epoch's counters reset; the region is
  -- continued if it has the budget, else (or by choice) recovery writes a
  -- full checkpoint.  The recovered superblocks leave W + K*N sectors
  -- outside them (`need + |ys|*S <= P*S`): what the validator checked at
  -- the end of the epoch recovery returns to, whose map names at most
  -- the superblocks used or open then.  A recovery to the last commit
  -- has it from `recb` (`rec-last`: |ys| <= cu); one to an older epoch
  -- ended by a barrier (the code's unsynced epochs, whose superblocks
  -- are not erased before a SYNC makes a later epoch durable) from that
  -- epoch's end, which this model does not keep (until the thirty-fourth
  -- session `rec` asked |ys| <= u, so it covered the last commit only).
  rec : ∀ {f e i xs r a w g q rm t b p u e' ys rm'} →
        suc (e' + length ys) ≡ P c → need c + length ys * S c ≤ P c * S c → sum ys ≤ L c →
        (rm' ≡ rm × suc (epm c) ≤ rm) ⊎ rm' ≡ D c →
        Step c (st f e i xs r a w g q rm t b p u)
               (st 0 e' 0 ys (S c) 0 0 0 0 rm' 0 0 0 (length ys))

-- After format: every data superblock but the open one erasable (blocks.rs
-- `rebuild`: none free), the region empty.
init : Config → St
init c = st 0 (P c ∸ 1) 0 [] (S c) 0 0 0 0 (D c) 0 0 0 0

Reach : Config → St → Set
Reach c s = Star (Step c) (init c) s

------------------------------------------------------------------------
-- What progress means

-- A page for the next sector: room in the active superblock, or a free or
-- erasable superblock to open.
Finds : Config → St → Set
Finds c s = 1 ≤ room s ⊎ (room s ≡ 0 × 1 ≤ fre s + ers s)

record Progress (c : Config) (s : St) : Set where
  field
    write-finds : wc s < W c → pend s ≡ 0 → Finds c s
    reloc-finds : 1 ≤ pend s → Finds c s
    delta-room  : 2 ≤ rem s

record SpaceModel : Set₁ where
  field
    Ok : Config → Set          -- the constraints a configuration must pass

SpaceProgress : SpaceModel → Set
SpaceProgress M = ∀ c → SpaceModel.Ok M c → ∀ {s} → Reach c s → Progress c s

code : SpaceModel
code = record { Ok = Valid }

------------------------------------------------------------------------
-- Arithmetic lemmas

private
  ≤≡ : ∀ {a b d} → a ≤ b → b ≡ d → a ≤ d
  ≤≡ le refl = le

  ≡≤ : ∀ {a b d} → a ≡ b → b ≤ d → a ≤ d
  ≡≤ refl le = le

pos-suc : ∀ {n} → 1 ≤ n → n ≡ suc (n ∸ 1)
pos-suc {suc n} _ = refl

-- L < (N + 1) * U
div-lt : ∀ L u → L < suc (L div suc u) * suc u
div-lt L u = ≤≡ (s≤s (≡≤ (m≡m%n+[m/n]*n L u)
                   (+-monoˡ-≤ ((L / suc u) * suc u) (≤-pred (m%n<n L u))))) refl

-- m <= ceil(m/s) * s
ceil-ge : ∀ m s → 1 ≤ s → m ≤ ⌈ m / s ⌉ * s
ceil-ge m (suc s) _ = +-cancelʳ-≤ m (q * suc s) (≤≡ h (+-comm s (q * suc s)))
  where
  q = (m + s) / suc s
  h : m + s ≤ s + q * suc s
  h = ≡≤ (m≡m%n+[m/n]*n (m + s) s) (+-monoˡ-≤ (q * suc s) (≤-pred (m%n<n (m + s) s)))

-- t * p <= m  ->  t <= m div p   (p >= 1)
div-ge : ∀ t m p → 1 ≤ p → t * p ≤ m → t ≤ m div p
div-ge t m (suc p) _ le = ≡≤ (sym (m*n/n≡m t (suc p))) (/-monoˡ-≤ le)

-- k <= every element  ->  length * k <= sum
all-sum : ∀ {k} xs → All (k ≤_) xs → length xs * k ≤ sum xs
all-sum [] [] = z≤n
all-sum (x ∷ xs) (kx ∷ ks) = +-mono-≤ kx (all-sum xs ks)

sum-mid : ∀ xs {v ys} → sum (xs ++ v ∷ ys) ≡ v + sum (xs ++ ys)
sum-mid [] = refl
sum-mid (x ∷ xs) {v} {ys} =
  trans (cong (x +_) (sum-mid xs)) (solve 3 (λ x v r → x :+ (v :+ r) := v :+ (x :+ r)) refl x v (sum (xs ++ ys)))

len-mid : ∀ (xs : List ℕ) {v ys} → length (xs ++ v ∷ ys) ≡ suc (length (xs ++ ys))
len-mid [] = refl
len-mid (x ∷ xs) = cong suc (len-mid xs)

len-swap : ∀ (xs : List ℕ) {v u ys} → length (xs ++ v ∷ ys) ≡ length (xs ++ u ∷ ys)
len-swap xs {v} {u} {ys} = trans (len-mid xs {v} {ys}) (sym (len-mid xs {u} {ys}))

sum-dec : ∀ xs {x ys} → sum (xs ++ suc x ∷ ys) ≡ suc (sum (xs ++ x ∷ ys))
sum-dec xs {x} {ys} = trans (sum-mid xs {suc x} {ys}) (cong suc (sym (sum-mid xs {x} {ys})))

-- Pigeonhole: the greedy victim among at least U used superblocks holding
-- at most L valid sectors has at most N = floor(L/U).
victim-bound : ∀ c xs v ys → 1 ≤ U c → U c ≤ length (xs ++ v ∷ ys) →
               sum (xs ++ v ∷ ys) ≤ L c →
               All (v ≤_) xs → All (v ≤_) ys → v ≤ N c
victim-bound c xs v ys u1 uL sL ax ay with v ≤? N c
... | yes ok = ok
... | no nk = ⊥-elim (<⇒≱ (div-lt (L c) u) big)
  where
  u = U c ∸ 1
  U≡ : U c ≡ suc u
  U≡ = pos-suc u1
  allv : All (suc (N c) ≤_) (xs ++ v ∷ ys)
  allv = ++⁺ (mono ax) (≰⇒> nk ∷ mono ay)
    where
    mono : ∀ {zs} → All (v ≤_) zs → All (suc (N c) ≤_) zs
    mono [] = []
    mono (p ∷ ps) = ≤-trans (≰⇒> nk) p ∷ mono ps
  ndiv : N c ≡ L c div suc u
  ndiv = cong (L c div_) U≡
  big : suc (L c div suc u) * suc u ≤ L c
  big = ≤-trans (≡≤ (*-comm (suc (L c div suc u)) (suc u))
                 (≤-trans (*-mono-≤ (≡≤ (sym U≡) uL) (≡≤ (cong suc (sym ndiv)) ≤-refl))
                          (all-sum (xs ++ v ∷ ys) allv))) sL

pos-mul : ∀ n m → 1 ≤ n * m → 1 ≤ n
pos-mul zero m ()
pos-mul (suc n) m _ = s≤s z≤n

pos : ∀ A x y → y < x → x ≤ A + y → 1 ≤ A
pos zero x y lt le = ⊥-elim (<⇒≱ lt le)
pos (suc A) x y lt le = s≤s z≤n

two : ∀ x → suc (x + 1) ≤ 2 * (x + 1)
two x = ≡≤ (+-comm 1 (x + 1))
          (+-monoʳ-≤ (x + 1) (≤≡ (m≤n+m 1 x) (sym (+-identityʳ (x + 1)))))

-- With fewer than U used superblocks, (2) leaves ceil(need/S) others.
room-sb : ∀ {a l u q p} → l < u → u + q ≤ p → suc (a + l) ≡ p → q ≤ a
room-sb {a} {l} {u} {q} {p} lt c2 eq =
  +-cancelʳ-≤ q a
    (≤-pred (≡≤ (solve 2 (λ l q → con 1 :+ (q :+ l) := (con 1 :+ l) :+ q) refl l q)
                (≤-trans (+-monoˡ-≤ q lt) (≤≡ c2 (sym eq)))))

------------------------------------------------------------------------
-- The invariant: the validator inside an epoch, and the region's budget

record Inv (c : Config) (s : St) : Set where
  field
    cons : suc (fre s + ers s + inv s + length (vs s)) ≡ P c
    i≡g  : inv s ≡ gc s
    sumL : sum (vs s) + va s + pend s ≤ L c
    wcW  : wc s ≤ W c
    gcK  : gc s ≤ K c
    pot  : need c + pend s ≤ avail c s + wc s + gc s * N c
    prq  : pr s ≡ tp s * ppp c + buf s
    bufp : buf s ≤ ppp c
    prb  : pr s + pend s ≤ wc s + gc s * N c
    remb : suc (epm c) ≤ rem s + tp s
    recb : need c + cu s * S c ≤ P c * S c   -- a recovery leaves W + K*N

needs : ∀ {c} → Valid c → Needs c
needs {c} V = record
  { U≥1 = Valid.U≥1 V ; ppp≥1 = Valid.ppp≥1 V
  ; S≥1 = ≤-trans (s≤s z≤n) (Valid.pad<S V)
  ; c1 = Valid.c1 V
  ; c2 = ≤-trans (+-monoˡ-≤ ⌈ need c / S c ⌉ (m≤m+n (U c) 1)) (Valid.c2 V)
  ; c4 = ≤-trans (two _) (Valid.c4 V) }

init-inv : ∀ {c} → Needs c → Inv c (init c)
init-inv {c} V = record
  { cons = trans (cong suc (trans (+-identityʳ _) (+-identityʳ _))) (sym (pos-suc P1))
  ; i≡g = refl ; sumL = z≤n ; wcW = z≤n ; gcK = z≤n
  ; pot = ≡≤ (+-identityʳ (need c))
           (≤-trans (≤-trans (ceil-ge (need c) (S c) (Needs.S≥1 V)) (*-monoˡ-≤ (S c) q≤))
             (≤-trans (m≤m+n _ (S c)) (≤-trans (m≤m+n _ 0) (m≤m+n _ 0))))
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = ≤≡ (Needs.c4 V) (sym (+-identityʳ (D c)))
  ; recb = ≡≤ (+-identityʳ (need c))
             (≤-trans (≤-trans (ceil-ge (need c) (S c) (Needs.S≥1 V)) (*-monoˡ-≤ (S c) q≤))
               (≤≡ (m≤n+m _ (S c)) (cong (_* S c) (sym (pos-suc P1))))) }
  where
  q = ⌈ need c / S c ⌉
  sq : suc q ≤ P c
  sq = ≤-trans (+-monoˡ-≤ q (Needs.U≥1 V)) (Needs.c2 V)
  P1 : 1 ≤ P c
  P1 = ≤-trans (s≤s z≤n) sq
  q≤ : q ≤ P c ∸ 1
  q≤ = ≤-pred (≤≡ sq (pos-suc P1))

-- The flush: what the epoch's victims give back covers the next epoch.
-- (Not even the active superblock's room is needed: a crash may abandon
-- it.)
commit-space : ∀ {c f e i xs d r a w g p t b rm u} → Needs c →
  Inv c (st f e i xs (d + r) a w g 0 rm t b p u) → NotNeeded c g xs →
  need c ≤ (f + (e + i)) * S c
commit-space {c} {f} {e} {i} {xs} {d} {r} {a} {w} {g} V I (inj₁ K≤g) =
  ≤-trans (Needs.c1 V)
    (≡≤ (cong (_* S c) (sym (trans (Inv.i≡g I) (≤-antisym (Inv.gcK I) K≤g))))
        (*-monoˡ-≤ (S c) (≤-stepsˡ f (m≤n+m i e))))
commit-space {c} {f} {e} {i} {xs} {d} {r} V I (inj₂ lt) =
  ≤-trans (ceil-ge (need c) (S c) (Needs.S≥1 V))
    (*-monoˡ-≤ (S c) (≤≡ (room-sb lt (Needs.c2 V) (Inv.cons I)) (+-assoc f e i)))

commit-recb : ∀ {c f e i xs d r a w g p t b rm u} → Needs c →
  Inv c (st f e i xs (d + r) a w g 0 rm t b p u) → NotNeeded c g xs →
  need c + suc (length xs) * S c ≤ P c * S c
commit-recb {c} {f} {e} {i} {xs} {d} {r} V I nn =
  ≤≡ (+-monoˡ-≤ (suc (length xs) * S c) (commit-space {d = d} {r = r} V I nn))
     (trans (solve 5 (λ f e i n s → (f :+ (e :+ i)) :* s :+ (con 1 :+ n) :* s := (con 1 :+ (f :+ e :+ i :+ n)) :* s)
                     refl f e i (length xs) (S c))
            (cong (_* S c) (Inv.cons I)))

private
  pot-w : ∀ n A r w G → n ≤ A + suc r + w + G → n ≤ A + r + suc w + G
  pot-w n A r w G le = ≤≡ le (solve 4 (λ A r w G → A :+ (con 1 :+ r) :+ w :+ G := A :+ r :+ (con 1 :+ w) :+ G) refl A r w G)

  pot-g : ∀ n v N AR w G → v ≤ N → n + 0 ≤ AR + w + G → n + v ≤ AR + w + (N + G)
  pot-g n v N AR w G vN le =
    ≤-trans (+-mono-≤ (m≤m+n n 0) vN)
      (≤≡ (+-monoˡ-≤ N le) (solve 4 (λ AR w G N → AR :+ w :+ G :+ N := AR :+ w :+ (N :+ G)) refl AR w G N))

  pot-r : ∀ n q A r w G → n + suc q ≤ A + suc r + w + G → n + q ≤ A + r + w + G
  pot-r n q A r w G le =
    ≤-pred (≡≤ (sym (+-suc n q))
      (≤≡ le (solve 4 (λ A r w G → A :+ (con 1 :+ r) :+ w :+ G := con 1 :+ (A :+ r :+ w :+ G)) refl A r w G)))

  prq-w : ∀ p t k b → p ≡ t * k + b → suc p ≡ t * k + suc b
  prq-w p t k b eq = trans (cong suc eq) (sym (+-suc (t * k) b))

  wsum : ∀ z a → z + suc a + 0 ≡ suc z + a + 0
  wsum z a = solve 2 (λ z a → z :+ (con 1 :+ a) :+ con 0 := (con 1 :+ z) :+ a :+ con 0) refl z a

victim-ok : ∀ {c} xs v ys → Needs c → U c ≤ length (xs ++ v ∷ ys) →
            sum (xs ++ v ∷ ys) ≤ L c → Victim c xs v ys → v ≤ N c
victim-ok xs v ys V uL sL (inj₁ ok) = ok
victim-ok {c} xs v ys V uL sL (inj₂ (ax , ay)) = victim-bound c xs v ys (Needs.U≥1 V) uL sL ax ay

step-inv : ∀ {c s s'} → Needs c → Inv c s → Step c s s' → Inv c s'
step-inv {c} V I (wrU {f} {e} {i} {xs} {x} {ys} {r} {a} {w} {g} {rm} {t} {b} {p} lt nn bl) = record
  { cons = trans (cong (λ n → suc (f + e + i + n)) (len-swap xs {x} {suc x} {ys})) (Inv.cons I)
  ; i≡g = Inv.i≡g I
  ; sumL = ≡≤ (wsum (sum (xs ++ x ∷ ys)) a) (≡≤ (cong (λ n → n + a + 0) (sym (sum-dec xs {x} {ys}))) (Inv.sumL I))
  ; wcW = lt ; gcK = Inv.gcK I
  ; pot = pot-w _ ((f + e) * S c) r w (g * N c) (Inv.pot I)
  ; prq = prq-w p t (ppp c) b (Inv.prq I) ; bufp = bl ; prb = s≤s (Inv.prb I) ; remb = Inv.remb I ; recb = Inv.recb I }
step-inv {c} V I (wrA {f} {e} {i} {xs} {r} {a} {w} {g} {rm} {t} {b} {p} lt nn bl) = record
  { cons = Inv.cons I ; i≡g = Inv.i≡g I ; sumL = Inv.sumL I ; wcW = lt ; gcK = Inv.gcK I
  ; pot = pot-w _ ((f + e) * S c) r w (g * N c) (Inv.pot I)
  ; prq = prq-w p t (ppp c) b (Inv.prq I) ; bufp = bl ; prb = s≤s (Inv.prb I) ; remb = Inv.remb I ; recb = Inv.recb I }
step-inv {c} V I (wrN {f} {e} {i} {xs} {r} {a} {w} {g} {rm} {t} {b} {p} lt nn bl sl) = record
  { cons = Inv.cons I ; i≡g = Inv.i≡g I
  ; sumL = ≡≤ (solve 2 (λ z a → z :+ (con 1 :+ a) :+ con 0 := con 1 :+ (z :+ a)) refl (sum xs) a) sl
  ; wcW = lt ; gcK = Inv.gcK I
  ; pot = pot-w _ ((f + e) * S c) r w (g * N c) (Inv.pot I)
  ; prq = prq-w p t (ppp c) b (Inv.prq I) ; bufp = bl ; prb = s≤s (Inv.prb I) ; remb = Inv.remb I ; recb = Inv.recb I }
step-inv {c} V I (gcm {f} {e} {i} {xs} {v} {ys} {r} {a} {w} {g} {rm} {t} {b} {p} gk uL vic) = record
  { cons = trans (cong suc (solve 4 (λ f e i n → f :+ e :+ (con 1 :+ i) :+ n := f :+ e :+ i :+ (con 1 :+ n)) refl f e i (length (xs ++ ys))))
                 (trans (cong (λ m → suc (f + e + i + m)) (sym (len-mid xs {v} {ys}))) (Inv.cons I))
  ; i≡g = cong suc (Inv.i≡g I)
  ; sumL = ≡≤ (solve 3 (λ z a v → z :+ a :+ v := v :+ z :+ a :+ con 0) refl (sum (xs ++ ys)) a v)
              (≡≤ (cong (λ m → m + a + 0) (sym (sum-mid xs {v} {ys}))) (Inv.sumL I))
  ; wcW = Inv.wcW I ; gcK = gk
  ; pot = pot-g (need c) v (N c) ((f + e) * S c + r) w (g * N c) vN (Inv.pot I)
  ; prq = Inv.prq I ; bufp = Inv.bufp I
  ; prb = pot-g p v (N c) 0 w (g * N c) vN (Inv.prb I)
  ; remb = Inv.remb I ; recb = Inv.recb I }
  where
  vN : v ≤ N c
  vN = victim-ok xs v ys V uL (≤-trans (m≤m+n _ a) (≤-trans (m≤m+n _ 0) (Inv.sumL I))) vic
step-inv {c} V I (rl {f} {e} {i} {xs} {r} {a} {w} {g} {q} {rm} {t} {b} {p} bl) = record
  { cons = Inv.cons I ; i≡g = Inv.i≡g I
  ; sumL = ≡≤ (solve 3 (λ z a q → z :+ (con 1 :+ a) :+ q := z :+ a :+ (con 1 :+ q)) refl (sum xs) a q) (Inv.sumL I)
  ; wcW = Inv.wcW I ; gcK = Inv.gcK I
  ; pot = pot-r (need c) q ((f + e) * S c) r w (g * N c) (Inv.pot I)
  ; prq = prq-w p t (ppp c) b (Inv.prq I) ; bufp = bl
  ; prb = ≡≤ (sym (+-suc p q)) (Inv.prb I) ; remb = Inv.remb I ; recb = Inv.recb I }
step-inv {c} V I (dpg {f} {e} {i} {xs} {r} {a} {w} {g} {q} {rm} {t} {p}) = record
  { cons = Inv.cons I ; i≡g = Inv.i≡g I ; sumL = Inv.sumL I ; wcW = Inv.wcW I ; gcK = Inv.gcK I
  ; pot = Inv.pot I
  ; prq = trans (Inv.prq I) (solve 2 (λ t k → t :* k :+ k := (con 1 :+ t) :* k :+ con 0) refl t (ppp c))
  ; bufp = z≤n ; prb = Inv.prb I
  ; remb = ≤≡ (Inv.remb I) (sym (+-suc rm t)) ; recb = Inv.recb I }
step-inv {c} V I (act {f} {e} {i} {xs} {ys} {a} {w} {g} {q} {rm} {t} {b} {p}) = record
  { cons = trans (cong (λ n → suc (f + e + i + n)) (len-mid xs {a} {ys}))
             (trans (cong suc (solve 4 (λ f e i n → f :+ e :+ i :+ (con 1 :+ n) := (con 1 :+ f) :+ e :+ i :+ n) refl f e i (length (xs ++ ys)))) (Inv.cons I))
  ; i≡g = Inv.i≡g I
  ; sumL = ≡≤ (trans (cong (λ z → z + 0 + q) (sum-mid xs {a} {ys}))
                     (solve 3 (λ z a q → a :+ z :+ con 0 :+ q := z :+ a :+ q) refl (sum (xs ++ ys)) a q)) (Inv.sumL I)
  ; wcW = Inv.wcW I ; gcK = Inv.gcK I
  ; pot = ≤≡ (Inv.pot I) (solve 5 (λ f e s w G → (con 1 :+ f :+ e) :* s :+ con 0 :+ w :+ G := (f :+ e) :* s :+ s :+ w :+ G) refl f e (S c) w (g * N c))
  ; prq = Inv.prq I ; bufp = Inv.bufp I ; prb = Inv.prb I ; remb = Inv.remb I ; recb = Inv.recb I }
step-inv {c} V I (era {f} {e} {i} {xs} {r} {a} {w} {g} {q} {rm} {t} {b} {p}) = record
  { cons = trans (cong suc (solve 4 (λ f e i n → (con 1 :+ f) :+ e :+ i :+ n := f :+ (con 1 :+ e) :+ i :+ n) refl f e i (length xs))) (Inv.cons I)
  ; i≡g = Inv.i≡g I ; sumL = Inv.sumL I ; wcW = Inv.wcW I ; gcK = Inv.gcK I
  ; pot = ≤≡ (Inv.pot I) (solve 6 (λ f e s r w G → (f :+ (con 1 :+ e)) :* s :+ r :+ w :+ G := (con 1 :+ f :+ e) :* s :+ r :+ w :+ G) refl f e (S c) r w (g * N c))
  ; prq = Inv.prq I ; bufp = Inv.bufp I ; prb = Inv.prb I ; remb = Inv.remb I ; recb = Inv.recb I }
step-inv {c} V I (flK {f} {e} {i} {xs} {d} {r} {a} {w} {g} {rm} {t} {b} {p} nn dp bb rk) = record
  { cons = trans (cong suc (solve 4 (λ f e i n → f :+ (e :+ i) :+ con 0 :+ n := f :+ e :+ i :+ n) refl f e i (length xs))) (Inv.cons I)
  ; i≡g = refl ; sumL = Inv.sumL I ; wcW = z≤n ; gcK = z≤n
  ; pot = ≡≤ (+-identityʳ (need c)) (≤≡ (≤-trans (commit-space {d = d} {r = r} V I nn) (m≤m+n _ r)) (sym (trans (+-identityʳ _) (+-identityʳ _))))
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = ≤≡ rk (sym (+-identityʳ rm)) ; recb = commit-recb {d = d} {r = r} V I nn }
step-inv {c} V I (flC {f} {e} {i} {xs} {d} {r} {a} {w} {g} {rm} {t} {b} {p} nn dp bb) = record
  { cons = trans (cong suc (solve 4 (λ f e i n → f :+ (e :+ i) :+ con 0 :+ n := f :+ e :+ i :+ n) refl f e i (length xs))) (Inv.cons I)
  ; i≡g = refl ; sumL = Inv.sumL I ; wcW = z≤n ; gcK = z≤n
  ; pot = ≡≤ (+-identityʳ (need c)) (≤≡ (≤-trans (commit-space {d = d} {r = r} V I nn) (m≤m+n _ r)) (sym (trans (+-identityʳ _) (+-identityʳ _))))
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = ≤≡ (Needs.c4 V) (sym (+-identityʳ (D c))) ; recb = commit-recb {d = d} {r = r} V I nn }
step-inv {c} V I (rec {f} {e} {i} {xs} {r} {a} {w} {g} {q} {rm} {t} {b} {p} {u} {e'} {ys} {rm'} eq lu sl reg) = record
  { cons = trans (cong (λ z → suc (z + length ys)) (+-identityʳ e')) eq
  ; i≡g = refl ; sumL = ≡≤ (trans (+-identityʳ _) (+-identityʳ _)) sl ; wcW = z≤n ; gcK = z≤n
  ; pot = ≡≤ (+-identityʳ (need c))
            (≤≡ (+-cancelʳ-≤ (need c) (e' * S c + S c)
                  (≤≡ lu
                      (trans (cong (_* S c) (sym eq))
                        (solve 3 (λ e n s → (con 1 :+ (e :+ n)) :* s := e :* s :+ s :+ n :* s) refl e' (length ys) (S c)))))
                (sym (trans (+-identityʳ _) (+-identityʳ _))))
  ; prq = refl ; bufp = z≤n ; prb = z≤n
  ; remb = remb′ reg
  ; recb = lu }
  where
  remb′ : (rm' ≡ rm × suc (epm c) ≤ rm) ⊎ rm' ≡ D c → suc (epm c) ≤ rm' + 0
  remb′ (inj₁ (refl , le)) = ≤≡ le (sym (+-identityʳ rm))
  remb′ (inj₂ refl) = ≤≡ (Needs.c4 V) (sym (+-identityʳ (D c)))

-- A recovery to the last commit: the superblocks its map references are
-- at most those used or open at that commit (`cu`), which left W + K*N
-- sectors outside them (`recb`).
rec-last : ∀ {c s} {ys : List ℕ} → Inv c s → length ys ≤ cu s → need c + length ys * S c ≤ P c * S c
rec-last {c} {s} I le = ≤-trans (+-monoʳ-≤ (need c) (*-monoˡ-≤ (S c) le)) (Inv.recb {c} {s} I)

star-inv : ∀ {c s s'} → Needs c → Inv c s → Star (Step c) s s' → Inv c s'
star-inv V I ε = I
star-inv V I (x ◅ xs) = star-inv V (step-inv V I x) xs

reach-inv : ∀ {c s} → Needs c → Reach c s → Inv c s
reach-inv V r = star-inv V (init-inv V) r

------------------------------------------------------------------------
-- Progress

finds-of : ∀ c s → 1 ≤ avail c s → Finds c s
finds-of c (st f e i xs (suc r) a w g q rm t b p u) _ = inj₁ (s≤s z≤n)
finds-of c (st f e i xs zero a w g q rm t b p u) le =
  inj₂ (refl , pos-mul (f + e) (S c) (≤≡ le (+-identityʳ _)))

progress : ∀ {c s} → Needs c → Inv c s → Progress c s
progress {c} {s} V I = record
  { write-finds = λ lt _ → finds-of c s (pos (avail c s) (need c) y
      (+-mono-<-≤ lt (*-monoˡ-≤ (N c) (Inv.gcK I)))
      (≤-trans (m≤m+n _ (pend s)) (≤≡ (Inv.pot I) (+-assoc (avail c s) (wc s) _))))
  ; reloc-finds = λ p1 → finds-of c s (pos (avail c s) (need c + pend s) y
      (<-transʳ y≤ (≡≤ (+-comm 1 (need c)) (+-monoʳ-≤ (need c) p1)))
      (≤≡ (Inv.pot I) (+-assoc (avail c s) (wc s) _)))
  ; delta-room = +-cancelʳ-≤ 2 (rem s)
      (≡≤ (solve 1 (λ d → con 2 :+ d := con 1 :+ (d :+ con 1)) refl d)
        (≤-trans (Inv.remb I) (+-monoʳ-≤ (rem s) tp≤)))
  }
  where
  y = wc s + gc s * N c
  y≤ : y ≤ need c
  y≤ = +-mono-≤ (Inv.wcW I) (*-monoˡ-≤ (N c) (Inv.gcK I))
  d = need c div ppp c
  tp≤ : tp s ≤ d
  tp≤ = div-ge (tp s) (need c) (ppp c) (Needs.ppp≥1 V)
          (≤-trans (m≤m+n _ (buf s)) (≡≤ (sym (Inv.prq I))
            (≤-trans (m≤m+n _ (pend s)) (≤-trans (Inv.prb I) y≤))))

-- **The space theorem**: under the code's constraints, for every
-- configuration, every state an execution reaches from format finds a
-- page for a wanted write and for a pending relocation, and room in the
-- delta region.
space-progress : SpaceProgress code
space-progress c V r = progress (needs V) (reach-inv (needs V) r)

-- The same for the weaker constraints the proof needs (`Needs`).
needed : SpaceModel
needed = record { Ok = Needs }

space-progress-needs : SpaceProgress needed
space-progress-needs c V r = progress V (reach-inv V r)

-- A found page is reached by at most an erase and an activation.
finds-page : ∀ c s → 1 ≤ S c → Finds c s →
             Σ St (λ s' → Star (Step c) s s' × 1 ≤ room s')
finds-page c s S1 (inj₁ r1) = s , ε , r1
finds-page c (st (suc f) e i xs .0 a w g q rm t b p u) S1 (inj₂ (refl , _)) = _ , act {xs = []} ◅ ε , S1
finds-page c (st zero (suc e) i xs .0 a w g q rm t b p u) S1 (inj₂ (refl , _)) = _ , era ◅ act {xs = []} ◅ ε , S1
finds-page c (st zero zero i xs .0 a w g q rm t b p u) S1 (inj₂ (refl , ()))

-- A needed GC finds a victim: the greedy one (fewest valid sectors), with
-- at most N valid sectors.
all-mono : ∀ {a b} {zs : List ℕ} → a ≤ b → All (b ≤_) zs → All (a ≤_) zs
all-mono a≤b [] = []
all-mono a≤b (p ∷ ps) = ≤-trans a≤b p ∷ all-mono a≤b ps

min-split : ∀ x xs → Σ (List ℕ) λ as → Σ ℕ λ v → Σ (List ℕ) λ bs →
            (x ∷ xs ≡ as ++ v ∷ bs) × All (v ≤_) as × All (v ≤_) bs
min-split x [] = [] , x , [] , refl , [] , []
min-split x (y ∷ ys) with min-split y ys
... | as , v , bs , eq , pa , pb with x ≤? v
...   | yes x≤v = [] , x , y ∷ ys , refl , [] ,
                  subst (All (x ≤_)) (sym eq) (++⁺ (all-mono x≤v pa) (x≤v ∷ all-mono x≤v pb))
...   | no x≰v = x ∷ as , v , bs , cong (x ∷_) eq , (<⇒≤ (≰⇒> x≰v) ∷ pa) , pb

gc-victim : ∀ {c f e i xs r a w g q rm t b p u} → Needs c →
  Inv c (st f e i xs r a w g q rm t b p u) → U c ≤ length xs →
  Σ (List ℕ) λ as → Σ ℕ λ v → Σ (List ℕ) λ bs →
  (xs ≡ as ++ v ∷ bs) × Victim c as v bs × v ≤ N c
gc-victim {c} {xs = []} V I uL = ⊥-elim (<⇒≱ (Needs.U≥1 V) uL)
gc-victim {c} {xs = x ∷ xs} {a = a} {q = q} V I uL with min-split x xs
... | as , v , bs , eq , pa , pb =
  as , v , bs , eq , inj₂ (pa , pb) ,
  victim-bound c as v bs (Needs.U≥1 V) (≤≡ uL (cong length eq))
    (≡≤ (cong sum (sym eq)) (≤-trans (m≤m+n _ a) (≤-trans (m≤m+n _ q) (Inv.sumL I)))) pa pb

-- Not vacuous: a configuration the code's constraints accept, with
-- victims that may carry valid sectors (N = 1): W = 2, K = 2, U = 2,
-- L = 2, S = 3, P = 5, no padding, one pair per delta page, D = 10
-- (need = 4 <= 6, 2 + 1 + 2 <= 5, 4 + 2 <= 6, 2 * 5 <= 10).
example : Config
example = cfg 2 2 2 2 3 5 0 1 10

example-valid : Valid example
example-valid = record
  { U≥1 = s≤s z≤n ; ppp≥1 = s≤s z≤n ; pad<S = s≤s z≤n
  ; c1 = s≤s (s≤s (s≤s (s≤s z≤n)))
  ; c2 = ≤-refl
  ; c3 = ≤-refl
  ; c4 = ≤-refl }

example-N : N example ≡ 1
example-N = refl

-- A run of `example` that writes, commits, crashes and recovers (the
-- open superblock, with the two committed sectors, stays used), writes
-- over a sector, takes the forced full checkpoint (flK's guard fails:
-- 5 region pages left < 6), opens a superblock after an erase, and runs
-- GC on a greedy victim with one valid sector, relocating it.
private
  -- a closed inequality, decided
  lit : ∀ {m n} {w : True (m ≤? n)} → m ≤ n
  lit {w = w} = toWitness w

example-end : St
example-end = st 0 2 1 (1 ∷ []) 2 1 1 1 0 8 2 0 2 2

example-run : Reach example example-end
example-run =
    wrN (s≤s z≤n) (inj₂ (s≤s z≤n)) (s≤s z≤n) (s≤s z≤n)
  ◅ dpg
  ◅ wrN (s≤s (s≤s z≤n)) (inj₂ (s≤s z≤n)) (s≤s z≤n) (s≤s (s≤s z≤n))
  ◅ dpg
  ◅ flK {d = 0} (inj₂ (s≤s z≤n)) z≤n z≤n (s≤s (s≤s (s≤s (s≤s (s≤s (s≤s z≤n))))))
  ◅ rec {e' = 3} {ys = 2 ∷ []} refl lit (s≤s (s≤s z≤n))
        (inj₁ (refl , s≤s (s≤s (s≤s (s≤s (s≤s (s≤s z≤n)))))))
  ◅ wrU {xs = []} {x = 1} {ys = []} (s≤s z≤n) (inj₂ (s≤s (s≤s z≤n))) (s≤s z≤n)
  ◅ dpg
  ◅ wrA (s≤s (s≤s z≤n)) (inj₂ (s≤s (s≤s z≤n))) (s≤s z≤n)
  ◅ dpg
  ◅ flC {d = 0} (inj₂ (s≤s (s≤s z≤n))) z≤n z≤n
  ◅ wrA (s≤s z≤n) (inj₂ (s≤s (s≤s z≤n))) (s≤s z≤n)
  ◅ dpg
  ◅ era
  ◅ act {xs = []}
  ◅ gcm {xs = []} {v = 1} {ys = 1 ∷ []} (s≤s z≤n) (s≤s (s≤s z≤n))
        (inj₂ ([] , (s≤s z≤n ∷ [])))
  ◅ rl (s≤s z≤n)
  ◅ dpg
  ◅ ε

-- There the epoch's second write finds a page.
example-finds : Finds example example-end
example-finds = Progress.write-finds (space-progress example example-valid example-run) (s≤s (s≤s z≤n)) refl
