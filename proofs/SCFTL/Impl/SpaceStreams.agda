{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the space constraints with t write streams (config.rs with
-- `gc_streams`: t = 2 when hot/cold separation is on, each stream with
-- its own active superblock).
--
-- SCFTL.Impl.Space models one write stream (t = 1) and proves
-- `space-progress` for every configuration passing the code's
-- constraints with t = 1.  This module states the constraints for any
-- number of streams t >= 1 (`ValidT`, with (2)'s `+ t` and (3)'s
-- `slack(t, pad, s)` as config.rs computes them) and proves, at the level
-- of counts, what they give a t-stream accounting:
--
--   * `validT⇒valid`: a configuration that passes them for t >= 1 passes
--     them for t = 1, so the one-stream model's theorem applies to it
--     (`space-progress-t`: a t-stream configuration run as one stream);
--   * `streams-fit` (from (3)): t streams whose demands add up to at most
--     W + K*N sectors need, each rounded up to whole superblocks (a
--     stream opens superblocks of its own), at most K superblocks, the
--     K victims an epoch gives back; `pools` is the arithmetic
--     (each stream loses at most s - 1 sectors to rounding);
--   * `stranded`: without the per-stream rounding term the sector count
--     does not suffice: two streams needing one sector each, one
--     superblock of two sectors (enough sectors, too few superblocks);
--   * `actives-fit` (from (2)): with fewer than U used superblocks and t
--     active ones, the others number at least ceil(need/s) + 1;
--   * `two-streams-room` (the flush's case with fewer than U used
--     superblocks, t = 2): those others cover the next epoch's two
--     streams, each rounded up to whole superblocks, for any split of the
--     W + K*N sectors (`ceil-two`: two streams lose at most one
--     superblock to rounding against the pooled count, which (2)'s `+ t`
--     pays for); `no-t-short`: without the `+ t` it fails (numbers).
--
-- Not proven here: a t-stream state machine (one active superblock per
-- stream, writes and relocations choosing a stream) with its invariant
-- and `space-progress`; the lemmas above are the steps where t enters
-- (the flush's bound `commit-space` of SCFTL.Impl.Space, per stream).
-- For t = 2 that machine is SCFTL.Impl.SpaceTwoStreams
-- (`space-progress-2`, under the code's constraints `Valid2`, whose (2)
-- has the (t-1)*(pad + s) inside the ceiling that `ValidT` leaves out:
-- `valid2⇒validT`).
------------------------------------------------------------------------
module SCFTL.Impl.SpaceStreams where

open import Data.Nat using (ℕ; zero; suc; _+_; _*_; _∸_; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.DivMod using (_/_; m/n*n≤m; /-monoˡ-≤)
open import Data.Nat.Properties
open import Data.List using (List; []; _∷_; length; sum; map)
open import Data.Product using (_×_; _,_)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)
open import Data.Nat.Solver using (module +-*-Solver)
open +-*-Solver using (solve; _:+_; _:*_; _:=_; con)

open import SCFTL.Impl.Space

private
  ≡≤ : ∀ {a b c} → a ≡ b → b ≤ c → a ≤ c
  ≡≤ refl le = le
  ≤≡ : ∀ {a b c} → a ≤ b → b ≡ c → a ≤ c
  ≤≡ le refl = le

------------------------------------------------------------------------
-- The code's constraints with t streams (`validate`, `Space::broken`)

record ValidT (t : ℕ) (c : Config) : Set where
  field
    U≥1   : 1 ≤ U c
    ppp≥1 : 1 ≤ ppp c
    pad<S : pad c < S c
    c1    : need c ≤ K c * S c                      -- (1)
    c2    : U c + t + ⌈ need c / S c ⌉ ≤ P c        -- (2) u + t + ceil(need/s) <= p
    c3    : need c + slack t (pad c) (S c) ≤ K c * S c
                                                    -- (3) need + slack(t, pad, s) <= k*s
    c4    : 2 * epm c ≤ D c                         -- (4)

-- slack is monotone in t >= 1: slack(1) <= slack(t).
slack-mono : ∀ t p s → slack 1 p s ≤ slack (suc t) p s
slack-mono t p s =
  ≤≡ (m≤m+n (slack 1 p s) (t * p + t * (s ∸ 1) + t * s))
     (solve 4 (λ t p m s → (con 1 :* p :+ con 1 :* m :+ con 0 :* s) :+ (t :* p :+ t :* m :+ t :* s)
                          := (con 1 :+ t) :* p :+ (con 1 :+ t) :* m :+ t :* s) refl t p (s ∸ 1) s)

validT⇒valid : ∀ {t c} → ValidT (suc t) c → Valid c
validT⇒valid {t} {c} V = record
  { U≥1 = ValidT.U≥1 V ; ppp≥1 = ValidT.ppp≥1 V ; pad<S = ValidT.pad<S V
  ; c1 = ValidT.c1 V
  ; c2 = ≤-trans (+-monoˡ-≤ ⌈ need c / S c ⌉ (+-monoʳ-≤ (U c) (s≤s z≤n))) (ValidT.c2 V)
  ; c3 = ≤-trans (+-monoʳ-≤ (need c) (slack-mono t (pad c) (S c))) (ValidT.c3 V)
  ; c4 = ValidT.c4 V }

validT : ℕ → SpaceModel
validT t = record { Ok = ValidT (suc t) }

-- The one-stream model's theorem for every configuration that passes the
-- constraints with any number of streams.
space-progress-t : ∀ t → SpaceProgress (validT t)
space-progress-t t c V r = space-progress c (validT⇒valid V) r

------------------------------------------------------------------------
-- Rounding to whole superblocks, per stream

-- ceil(a/s) * s <= a + (s - 1)
ceil-le : ∀ a s → ⌈ a / suc s ⌉ * suc s ≤ a + s
ceil-le a s = m/n*n≤m (a + s) (suc s)

ceils : ℕ → List ℕ → ℕ
ceils s as = sum (map (λ a → ⌈ a / suc s ⌉) as)

ceils-le : ∀ s as → ceils s as * suc s ≤ sum as + length as * s
ceils-le s [] = z≤n
ceils-le s (a ∷ as) =
  ≡≤ (*-distribʳ-+ (suc s) ⌈ a / suc s ⌉ (ceils s as))
     (≤≡ (+-mono-≤ (ceil-le a s) (ceils-le s as))
         (solve 4 (λ a s z n → a :+ s :+ (z :+ n :* s) := a :+ z :+ (con 1 :+ n) :* s)
                refl a s (sum as) (length as)))

-- Streams whose demands, each rounded up to whole superblocks of s + 1
-- sectors, fit in F superblocks when the sectors plus one rounding loss
-- per stream do.
pools : ∀ s as F → sum as + length as * s ≤ F * suc s → ceils s as ≤ F
pools s as F le = *-cancelʳ-≤ (ceils s as) F s (≤-trans (ceils-le s as) le)

-- (3) in the flush: t streams sharing the epoch's W + K*N sectors need at
-- most K superblocks, the K victims given back at the commit.
streams-fit : ∀ {t c} s as → S c ≡ suc s → ValidT t c → length as ≡ t →
              sum as ≤ need c → ceils s as ≤ K c
streams-fit {t} {c} s as refl V refl le =
  pools s as (K c)
    (≤-trans (+-mono-≤ le (≤-trans (m≤n+m (t * s) (t * pad c)) (m≤m+n _ ((t ∸ 1) * suc s))))
             (ValidT.c3 V))

-- Without the per-stream rounding term the sectors suffice and the
-- superblocks do not: two streams needing a sector each, one superblock
-- of two sectors.
stranded : (1 + 1 ≤ 1 * 2) × ¬ (ceils 1 (1 ∷ 1 ∷ []) ≤ 1)
stranded = s≤s (s≤s z≤n) , λ { (s≤s ()) }

-- (2): with l < U used superblocks and t active ones, the f others (free,
-- erasable, this epoch's victims) number at least ceil(need/s) + 1.
actives-fit : ∀ {t c} f l → ValidT t c → l < U c → f + l + t ≡ P c →
              suc ⌈ need c / S c ⌉ ≤ f
actives-fit {t} {c} f l V lu eq = +-cancelʳ-≤ (suc q) f h
  where
  q = ⌈ need c / S c ⌉
  h : suc q + (l + t) ≤ f + (l + t)
  h = ≡≤ (solve 3 (λ q l t → (con 1 :+ q) :+ (l :+ t) := (con 1 :+ l) :+ t :+ q) refl q l t)
        (≤-trans (+-monoˡ-≤ q (+-monoˡ-≤ t lu))
          (≤-trans (ValidT.c2 V) (≡≤ (sym eq) (≤-reflexive (+-assoc f l t)))))

-- Two streams lose at most one superblock to rounding against the pooled
-- count: ceil(a/s) + ceil(b/s) <= ceil((a+b)/s) + 1.
ceil-two : ∀ s a b → ⌈ a / suc s ⌉ + ⌈ b / suc s ⌉ ≤ suc ⌈ (a + b) / suc s ⌉
ceil-two s a b = ≤-pred (*-cancelʳ-< (⌈ a / suc s ⌉ + ⌈ b / suc s ⌉) (suc (suc y)) st2)
  where
  y = ⌈ (a + b) / suc s ⌉
  st1 : (⌈ a / suc s ⌉ + ⌈ b / suc s ⌉) * suc s ≤ y * suc s + s + s
  st1 = ≡≤ (*-distribʳ-+ (suc s) ⌈ a / suc s ⌉ ⌈ b / suc s ⌉)
          (≤-trans (+-mono-≤ (ceil-le a s) (ceil-le b s))
            (≡≤ (solve 3 (λ a b s → a :+ s :+ (b :+ s) := a :+ b :+ s :+ s) refl a b s)
              (+-monoˡ-≤ s (+-monoˡ-≤ s (ceil-ge (a + b) (suc s) (s≤s z≤n))))))
  st2 : suc ((⌈ a / suc s ⌉ + ⌈ b / suc s ⌉) * suc s) ≤ suc (suc y) * suc s
  st2 = ≤-trans (s≤s st1)
          (≤≡ (m≤m+n (suc (y * suc s + s + s)) 1)
              (solve 2 (λ y s → (con 1 :+ (y :* (con 1 :+ s) :+ s :+ s)) :+ con 1 := (con 2 :+ y) :* (con 1 :+ s)) refl y s))

-- The flush with fewer than U used superblocks, two streams (t = 2): the
-- superblocks outside the used and the two active ones cover the next
-- epoch's two streams, each rounded up to whole superblocks, whatever
-- their split of the W + K*N sectors ((2) with its `+ t`).
two-streams-room : ∀ {c} s f l a b → S c ≡ suc s → ValidT 2 c → l < U c →
                   f + l + 2 ≡ P c → a + b ≤ need c →
                   ⌈ a / suc s ⌉ + ⌈ b / suc s ⌉ ≤ f
two-streams-room {c} s f l a b refl V lu eq ab =
  ≤-trans (ceil-two s a b)
    (≤-trans (s≤s (/-monoˡ-≤ (+-monoˡ-≤ s ab))) (actives-fit f l V lu eq))

-- Without the `+ t` ((2) as for one stream) the flush's case fails for two
-- streams: U = 1, no used superblock, two active ones, S = 2, need = 2,
-- P = 3 (1 + 1 + ceil(2/2) <= 3); the one other superblock does not hold
-- two streams of one sector each.
no-t-short : (1 + 1 + ⌈ 2 / 2 ⌉ ≤ 3) × (1 + 0 + 2 ≡ 3) × (1 + 1 ≤ 2) ×
             ¬ (⌈ 1 / 2 ⌉ + ⌈ 1 / 2 ⌉ ≤ 1)
no-t-short = ≤-refl , refl , ≤-refl , λ { (s≤s ()) }

------------------------------------------------------------------------
-- Not vacuous: a configuration passing the constraints with t = 2 (N = 1):
-- W = 2, K = 5, U = 2, L = 2, S = 3, P = 7, no padding, one pair per
-- delta page, D = 16 (need = 7 <= 15; 2 + 2 + 3 <= 7; 7 + 7 <= 15;
-- 2 * 8 <= 16).
example2 : Config
example2 = cfg 2 5 2 2 3 7 0 1 16

example2-valid : ValidT 2 example2
example2-valid = record
  { U≥1 = s≤s z≤n ; ppp≥1 = s≤s z≤n ; pad<S = s≤s z≤n
  ; c1 = m≤m+n 7 8
  ; c2 = ≤-refl
  ; c3 = n≤1+n 14
  ; c4 = ≤-refl }
