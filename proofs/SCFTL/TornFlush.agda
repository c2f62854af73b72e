{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- The flush contract is needed: a counterexample.
--
-- TS is S (Fig. 4) except that a crashed flush may be TORN: each
-- address of the stable array independently takes its new (volatile)
-- or its old (stable) value.  We exhibit an execution from a new disk,
-- ending in a successful recovery, after which address 0 shows the
-- epoch of the flush attempt and address 1 shows epoch 0 — a state
-- mixing two epochs, which no single epoch explains.  Contrast with
-- SCFTL.FlushContract.no-mixed-epochs, which rules this out for every
-- model satisfying the (atomic) flush contract, in particular S.
--
-- Concrete instance: Data = Bool, d0 = false, a_max = 1, wcnt_max = 5.
------------------------------------------------------------------------
module SCFTL.TornFlush where

open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.Nat.Base using (ℕ; zero; suc; _≤_; z≤n; s≤s; _≡ᵇ_)
open import Data.List.Base using (List; []; _∷_)
open import Data.List.Relation.Unary.Any using (here; there)
open import Data.Empty using (⊥)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Relation.Nullary using (¬_)

open import SCFTL.Spec Bool false 1 5
  hiding (epochs; attempts; stable-epoch; no-mixed-epochs; no-mixed-pair)
open import SCFTL.FlushContract Addr InA Bool RegOp using (module Epochs; _∈_)

-- torn crashed flush
_─fᵗ→_ : State → State → Set
t ─fᵗ→ t' = ∀ a → stable t' a ≡ volatile t a ⊎ stable t' a ≡ stable t a

crashTorn : Op → State → State → Set
crashTorn (use flush) = _─fᵗ→_
crashTorn o           = crashS o

TS : Model
TS = record { State = State ; New = New ; read = read ; ok = okS ; crash = crashTorn }

open Fragments TS
open Epochs TS stable

-- The execution:  t0 ─w(0,true)→ t1 ─w(1,true)→ t2 ─fᵗ(crash)→ t3 ─r→ t4
old new mix : Arr
old _ = false
new = (old [ 0 ↦ true ]) [ 1 ↦ true ]
mix a = if a ≡ᵇ 0 then true else false

t0 t1 t2 t3 t4 : State
t0 = ⟨ old , old , 0 ⟩
t1 = ⟨ old [ 0 ↦ true ] , old , 1 ⟩
t2 = ⟨ new , old , 2 ⟩
t3 = ⟨ old , mix , 0 ⟩      -- volatile contents lost in the crash
t4 = ⟨ mix , mix , 0 ⟩

t0-new : New t0
t0-new = refl

torn : t2 ─fᵗ→ t3
torn zero          = inj₁ refl
torn (suc zero)    = inj₂ refl
torn (suc (suc _)) = inj₂ refl

run : Trace t0 t3
run = step (okL (use (reg (w 0 true)))) (inj₁ ((z≤n , z≤n) , refl , refl , refl))
    ( step (okL (use (reg (w 1 true)))) (inj₁ ((s≤s z≤n , s≤s z≤n) , refl , refl , refl))
    ( step (crashL (use flush)) torn [] ))

recovered : okS recover t3 t4
recovered = refl , refl , refl

-- The epochs of this run are exactly: the new disk, and the flush attempt.
epochs-run : epochs run ≡ old ∷ new ∷ []
epochs-run = refl

-- After recovery, address 0 reads the flush attempt's value and
-- address 1 reads epoch 0's value, and the two epochs disagree there:
mixed : read t4 0 ≡ new 0 × read t4 1 ≡ old 1 × ¬ (new 0 ≡ old 0) × ¬ (new 1 ≡ old 1)
mixed = refl , refl , (λ ()) , (λ ())

-- ... so no single epoch explains the two in-bound addresses 0 and 1.
torn-mixes : ¬ (Σ Arr λ e → e ∈ epochs run × read t4 0 ≡ e 0 × read t4 1 ≡ e 1)
torn-mixes (_ , here refl , () , _)
torn-mixes (_ , there (here refl) , _ , ())
torn-mixes (_ , there (there ()) , _)
