{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- The abstract disk model S of Fig. 4 (§4.1), Lemma 1, and the
-- instantiation of Theorem 2 and of the §4.4 reduction (Theorem 1) to S.
--
-- Parameters: Data (sector contents), d0 (the default value a new disk's
-- stable array holds), amax and wmax (the bounds a_max, wcnt_max).
-- Addresses are natural numbers; InBounds(a, wcnt) = a ≤ amax ∧ wcnt ≤ wmax.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)

module SCFTL.Spec (Data : Set) (d0 : Data) (amax wmax : ℕ) where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _≡ᵇ_)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong)

------------------------------------------------------------------------
-- States

Addr : Set
Addr = ℕ

InA : Addr → Set
InA a = a ≤ amax

Arr : Set
Arr = Addr → Data

-- t.volatile[a ↦ d]
_[_↦_] : Arr → Addr → Data → Arr
(f [ a ↦ d ]) b = if b ≡ᵇ a then d else f b

record State : Set where
  constructor ⟨_,_,_⟩
  field
    volatile : Arr
    stable   : Arr
    wcnt     : ℕ
open State public

InBounds : Addr → ℕ → Set
InBounds a n = (a ≤ amax) × (n ≤ wmax)

-- New disks N_S: only the stable array is initialised (to d0).
New : State → Set
New t = stable t ≡ λ _ → d0

read : State → Addr → Data
read t a = volatile t a

------------------------------------------------------------------------
-- Fig. 4, successful operations

_─w[_,_]→_ : State → Addr → Data → State → Set
t ─w[ a , d ]→ t' =
    (InBounds a (wcnt t) × volatile t' ≡ volatile t [ a ↦ d ]
                         × stable t' ≡ stable t × wcnt t' ≡ suc (wcnt t))
  ⊎ (¬ InBounds a (wcnt t) × t' ≡ t)

_─gc→_ : State → State → Set          -- rl and es
t ─gc→ t' = t' ≡ t

_─f→_ : State → State → Set
t ─f→ t' = volatile t' ≡ volatile t × stable t' ≡ volatile t × wcnt t' ≡ 0

_─r→_ : State → State → Set
t ─r→ t' = volatile t' ≡ stable t × stable t' ≡ stable t × wcnt t' ≡ 0

------------------------------------------------------------------------
-- Fig. 4, crashed operations: only the stable part is constrained;
-- the volatile part and wcnt are arbitrary.

_─wᶜ→_ : State → State → Set         -- w_{a,d}ᶜ (for any a, d)
t ─wᶜ→ t' = stable t' ≡ stable t

_─gcᶜ→_ : State → State → Set        -- rlᶜ, esᶜ
t ─gcᶜ→ t' = stable t' ≡ stable t

_─fᶜ→_ : State → State → Set
t ─fᶜ→ t' = stable t' ≡ volatile t ⊎ stable t' ≡ stable t

_─rᶜ→_ : State → State → Set
t ─rᶜ→ t' = stable t' ≡ stable t

------------------------------------------------------------------------
-- The operations of S

data RegOp : Set where
  w     : Addr → Data → RegOp   -- w_{a,d}
  rl es : RegOp                 -- GC relocate / erase

open import SCFTL.Framework Addr InA Data RegOp public

okS : Op → State → State → Set
okS (use (reg (w a d))) = _─w[ a , d ]→_
okS (use (reg rl))      = _─gc→_
okS (use (reg es))      = _─gc→_
okS (use flush)         = _─f→_
okS recover             = _─r→_

crashS : Op → State → State → Set
crashS (use (reg (w a d))) = _─wᶜ→_
crashS (use (reg rl))      = _─gcᶜ→_
crashS (use (reg es))      = _─gcᶜ→_
crashS (use flush)         = _─fᶜ→_
crashS recover             = _─rᶜ→_

S : Model
S = record { State = State ; New = New ; read = read ; ok = okS ; crash = crashS }

------------------------------------------------------------------------
-- Sanity properties of Fig. 4

≡ᵇ-refl : ∀ n → (n ≡ᵇ n) ≡ true
≡ᵇ-refl zero    = refl
≡ᵇ-refl (suc n) = ≡ᵇ-refl n

upd-here : ∀ (f : Arr) a d → (f [ a ↦ d ]) a ≡ d
upd-here f a d rewrite ≡ᵇ-refl a = refl

-- an in-bounds write is visible to read
read-after-write : ∀ {t t' a d} → InBounds a (wcnt t) → t ─w[ a , d ]→ t' → read t' a ≡ d
read-after-write {t} {a = a} {d} _ (inj₁ (_ , v , _ , _)) = trans (cong (λ f → f a) v) (upd-here (volatile t) a d)
read-after-write ib (inj₂ (nib , _)) with nib ib
... | ()

-- an out-of-bounds write is the identity
write-oob : ∀ {t t' a d} → ¬ InBounds a (wcnt t) → t ─w[ a , d ]→ t' → t' ≡ t
write-oob nib (inj₁ (ib , _)) with nib ib
... | ()
write-oob _ (inj₂ (_ , e)) = e

-- a new disk exists
new-disk : Σ State New
new-disk = ⟨ (λ _ → d0) , (λ _ → d0) , 0 ⟩ , refl

------------------------------------------------------------------------
-- S satisfies the flush contract, hence Lemma 1 and "no mixed epochs"

open import SCFTL.FlushContract Addr InA Data RegOp public
  using (FlushContract; lemma1; no-mixed-epochs; no-mixed-pair; epochs; attempts; stable-epoch)

contract : FlushContract S
contract = record
  { stable      = stable
  ; reg-ok      = reg-ok
  ; reg-crash   = reg-crash
  ; flush-ok    = proj₁ ∘ proj₂
  ; flush-crash = λ x → x
  ; rec-ok      = λ r → proj₁ r , proj₁ (proj₂ r)
  ; rec-crash   = λ x → x
  }
  where
    _∘_ : ∀ {A B C : Set} → (B → C) → (A → B) → A → C
    (g ∘ f) x = g (f x)

    reg-ok : ∀ x {t t'} → okS (use (reg x)) t t' → stable t' ≡ stable t
    reg-ok (w a d) (inj₁ (_ , _ , e , _)) = e
    reg-ok (w a d) (inj₂ (_ , e)) = cong stable e
    reg-ok rl e = cong stable e
    reg-ok es e = cong stable e

    reg-crash : ∀ x {t t'} → crashS (use (reg x)) t t' → stable t' ≡ stable t
    reg-crash (w a d) e = e
    reg-crash rl e = e
    reg-crash es e = e

-- The atomic flush contract rules out mixed epochs (for any execution of
-- S from any state: after a successful recovery, one epoch explains
-- every address).
no-mixed-epochs-S = no-mixed-epochs contract
no-mixed-pair-S   = no-mixed-pair contract

-- Lemma 1: S is snapshot-consistent.
lemma1-S : SnapshotConsistent S
lemma1-S = lemma1 contract

------------------------------------------------------------------------
-- Theorems 1 and 2 for S

open import SCFTL.Behaviour Addr InA Data RegOp public
open import SCFTL.Simulation Addr InA Data RegOp public

module _ (P : Model) where
  open Correspondence P S
  open ForwardSimulation P S

  -- Theorem 2: a model behaviourally correct w.r.t. S is snapshot-consistent.
  theorem2-S : BehaviourallyCorrect → SnapshotConsistent P
  theorem2-S bc = theorem2 bc lemma1-S

  -- Theorem 1 via §4.4: the per-operation obligations imply behavioural
  -- correctness w.r.t. S.
  theorem1-S : Obligations → BehaviourallyCorrect
  theorem1-S O = theorem1 O new-disk

  -- The whole pipeline of §4: per-operation correctness ⇒ snapshot consistency.
  obligations⇒SC : Obligations → SnapshotConsistent P
  obligations⇒SC O = theorem2-S (theorem1-S O)
