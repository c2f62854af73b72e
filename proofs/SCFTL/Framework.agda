{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Generic framework of §4.1–§4.2 of the SCFTL paper
-- ("Crash-safe flash translation layer ... snapshot consistency", OSDI'20):
-- disk models as transition systems, execution fragments, one-recovery
-- and multi-recovery fragments, and snapshot consistency.
--
-- Everything is parameterised by
--   Addr : addresses,  InA : "address within bounds" (a ≤ a_max),
--   Data : sector contents,  R : the regular operations (write, GC, ...).
-- Both the specification S and any implementation P are `Model`s over
-- the same parameters, so they share one set of operations.
------------------------------------------------------------------------
module SCFTL.Framework
  (Addr : Set) (InA : Addr → Set) (Data : Set) (R : Set) where

open import Data.Nat.Base using (ℕ; zero; suc)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong-app)

------------------------------------------------------------------------
-- Operations (Fig. 4 column headers)

-- Operations used while the disk is in normal use: regular ones
-- (write, GC relocate/erase, trim, ... given by R) and flush.
data UOp : Set where
  reg   : R → UOp
  flush : UOp

-- All operations that are transitions (read is a function, not a step).
data Op : Set where
  use     : UOp → Op
  recover : Op

-- A transition label: an operation, successful or crashed.
data Label : Set where
  okL crashL : Op → Label

------------------------------------------------------------------------
-- Observations and ≈ (§4.2): pointwise equality of reads on in-bound
-- addresses.  Stated on read functions so it relates states of two
-- different models.

Obs : (f g : Addr → Data) → Set
Obs f g = ∀ a → InA a → f a ≡ g a

Obs-refl : ∀ {f} → Obs f f
Obs-refl a _ = refl

Obs-sym : ∀ {f g} → Obs f g → Obs g f
Obs-sym e a i = sym (e a i)

Obs-trans : ∀ {f g h} → Obs f g → Obs g h → Obs f h
Obs-trans e e′ a i = trans (e a i) (e′ a i)

≡⇒Obs : ∀ {f g} → f ≡ g → Obs f g
≡⇒Obs e a _ = cong-app e a

------------------------------------------------------------------------
-- Disk models (§4.1): a state space, new-disk states N, read, and a
-- successful and a crashed transition relation per operation.

record Model : Set₁ where
  field
    State : Set
    New   : State → Set
    read  : State → Addr → Data
    ok    : Op → State → State → Set     -- t ─op→ t'
    crash : Op → State → State → Set     -- t ─opᶜ→ t'

  Step : Label → State → State → Set
  Step (okL o)    = ok o
  Step (crashL o) = crash o

------------------------------------------------------------------------
-- Shapes: the operation sequences of fragments.  Two fragments (one in
-- P, one in S) of the same shape perform the same operations.

-- One-recovery fragment  t1 ─a1..a(k-1)→ t2 ─a_k(=f),b1..bℓ→ t3 ─c,(rᶜ)^m,r→ t4
record Shape1 : Set where
  constructor shape1
  field
    pre : Maybe (List UOp)  -- nothing: k = 0;  just as: as = a1..a(k-1), a_k = f
    bs  : List R            -- b1..bℓ, successful regular operations
    c   : UOp               -- the crashed regular or flush operation
    m   : ℕ                 -- number of crashed recoveries

-- Multi-recovery fragment t0 ─(rᶜ)^ℓ,r→ t1 ⇝ t2 ⇝ ... ⇝ t(n+1) ─a1..am→ t(n+2)
record ShapeM : Set where
  constructor shapeM
  field
    ℓ     : ℕ             -- crashed recoveries from the new state
    ones  : List Shape1   -- the one-recovery sub-fragments
    trail : List UOp      -- trailing successful regular/flush operations

------------------------------------------------------------------------
-- Snapshot consistency of one one-recovery fragment, given the reads of
-- its states t2, t3, t4 (§4.2):
--   c regular crash  ⇒ t2 ≈ t4
--   c = fᶜ           ⇒ t2 ≈ t4 ∨ t3 ≈ t4

SC1 : UOp → (f2 f3 f4 : Addr → Data) → Set
SC1 (reg _) f2 f3 f4 = Obs f2 f4
SC1 flush   f2 f3 f4 = Obs f2 f4 ⊎ Obs f3 f4

-- SC1 only depends on observations, so it transfers along ≈.
SC1-transfer : ∀ c {f2 f3 f4 g2 g3 g4} →
  Obs f2 g2 → Obs f3 g3 → Obs f4 g4 → SC1 c g2 g3 g4 → SC1 c f2 f3 f4
SC1-transfer (reg _) e2 e3 e4 sc = Obs-trans e2 (Obs-trans sc (Obs-sym e4))
SC1-transfer flush e2 e3 e4 (inj₁ sc) = inj₁ (Obs-trans e2 (Obs-trans sc (Obs-sym e4)))
SC1-transfer flush e2 e3 e4 (inj₂ sc) = inj₂ (Obs-trans e3 (Obs-trans sc (Obs-sym e4)))

------------------------------------------------------------------------
-- Execution fragments of a model (§4.2)

module Fragments (M : Model) where
  open Model M

  -- General execution fragment t ─l1,...,ln→ t' (any labels).
  data Trace : State → State → Set where
    []   : ∀ {t} → Trace t t
    step : ∀ {t t' t''} (l : Label) → Step l t t' → Trace t' t'' → Trace t t''

  -- Sequences of successful regular/flush operations.
  data Path : List UOp → State → State → Set where
    []  : ∀ {t} → Path [] t t
    _∷_ : ∀ {u us t t' t''} → ok (use u) t t' → Path us t' t'' → Path (u ∷ us) t t''

  -- (rᶜ)^m
  data Retries : ℕ → State → State → Set where
    []  : ∀ {t} → Retries zero t t
    _∷_ : ∀ {m t t' t''} → crash recover t t' → Retries m t' t'' → Retries (suc m) t t''

  -- The part  t1 ─a1..a(k-1)→ t2 ─a_k(=f)→ u  (or t1 = t2 = u when k = 0).
  data Head : Maybe (List UOp) → State → State → State → Set where
    no-flush : ∀ {t} → Head nothing t t t
    flushed  : ∀ {as t1 t2 u} → Path as t1 t2 → ok (use flush) t2 u → Head (just as) t1 t2 u

  -- One-recovery fragment t1 ⇝ t4 with distinguished states t2, t3.
  data OneRec (sh : Shape1) (t1 t2 t3 t4 : State) : Set where
    onerec : ∀ {u t3c t3r}
      → Head (Shape1.pre sh) t1 t2 u
      → Path (map reg (Shape1.bs sh)) u t3     -- b1..bℓ
      → crash (use (Shape1.c sh)) t3 t3c        -- c
      → Retries (Shape1.m sh) t3c t3r           -- (rᶜ)^m
      → ok recover t3r t4                       -- r
      → OneRec sh t1 t2 t3 t4

  -- t1 ⇝ t2 ⇝ ... ⇝ t(n+1) ─a1..am→ t(n+2)
  data Chain : List Shape1 → List UOp → State → Set where
    done : ∀ {as t t'} → Path as t t' → Chain [] as t
    _∷_  : ∀ {sh shs as t1 t2 t3 t4} →
           OneRec sh t1 t2 t3 t4 → Chain shs as t4 → Chain (sh ∷ shs) as t1

  -- Multi-recovery fragment starting from a new state t0 ∈ N.
  data MultiRec (sh : ShapeM) (t0 : State) : Set where
    multirec : ∀ {t0' t1} → New t0
      → Retries (ShapeM.ℓ sh) t0 t0' → ok recover t0' t1
      → Chain (ShapeM.ones sh) (ShapeM.trail sh) t1
      → MultiRec sh t0

  -- Snapshot consistency of fragments.
  OneRecSC : ∀ {sh t1 t2 t3 t4} → OneRec sh t1 t2 t3 t4 → Set
  OneRecSC {sh} {t2 = t2} {t3} {t4} _ = SC1 (Shape1.c sh) (read t2) (read t3) (read t4)

  ChainSC : ∀ {shs as t} → Chain shs as t → Set
  ChainSC (done _)  = ⊤
  ChainSC (o ∷ ch) = OneRecSC o × ChainSC ch

  MultiRecSC : ∀ {sh t0} → MultiRec sh t0 → Set
  MultiRecSC (multirec _ _ _ ch) = ChainSC ch

-- A disk model is snapshot-consistent if every multi-recovery fragment is.
SnapshotConsistent : Model → Set
SnapshotConsistent M = ∀ {sh t0} (F : MultiRec sh t0) → MultiRecSC F
  where open Fragments M
