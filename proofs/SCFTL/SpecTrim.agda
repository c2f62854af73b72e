{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Beyond the paper: S extended with a trim operation.
--
-- DECISION.  trim a is the write of the distinguished value `zero`
-- (the value a new disk holds, i.e. "unmapped"), and it IS counted
-- against wcnt:
--     t ─trim a→ t'  ≜  t ─w[ a , zero ]→ t'          (Fig. 4 write)
--     t ─trim aᶜ→ t' ≜  t'.stable = t.stable           (Fig. 4 crashed write)
-- Rationale: in an FTL a trim changes the L2P mapping (a ↦ unmapped)
-- exactly like a write does, so it consumes a delta-pair slot in the
-- mapping log between two flushes; wcnt/wcnt_max bounds exactly that
-- resource.  A trim beyond the bound is, like a write, the identity.
-- Because trim is literally an instance of write, every fact about
-- write (and every obligation discharged for it) carries over.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)

module SCFTL.SpecTrim (Data : Set) (zero : Data) (amax wmax : ℕ) where

open import Data.Nat.Base using (suc)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; cong)

import SCFTL.Spec Data zero amax wmax as Base
open Base public
  using ( Addr; InA; Arr; State; ⟨_,_,_⟩; volatile; stable; wcnt
        ; InBounds; New; read; _[_↦_]
        ; _─w[_,_]→_; _─gc→_; _─f→_; _─r→_
        ; _─wᶜ→_; _─gcᶜ→_; _─fᶜ→_; _─rᶜ→_
        ; new-disk; read-after-write; write-oob )

data RegOpT : Set where
  w     : Addr → Data → RegOpT
  trim  : Addr → RegOpT
  rl es : RegOpT

open import SCFTL.Framework Addr InA Data RegOpT public

_─trim[_]→_ : State → Addr → State → Set
t ─trim[ a ]→ t' = t ─w[ a , zero ]→ t'

_─trimᶜ→_ : State → State → Set
t ─trimᶜ→ t' = t ─wᶜ→ t'

okT : Op → State → State → Set
okT (use (reg (w a d)))  = _─w[ a , d ]→_
okT (use (reg (trim a))) = _─trim[ a ]→_
okT (use (reg rl))       = _─gc→_
okT (use (reg es))       = _─gc→_
okT (use flush)          = _─f→_
okT recover              = _─r→_

crashT : Op → State → State → Set
crashT (use (reg (w a d)))  = _─wᶜ→_
crashT (use (reg (trim a))) = _─trimᶜ→_
crashT (use (reg rl))       = _─gcᶜ→_
crashT (use (reg es))       = _─gcᶜ→_
crashT (use flush)          = _─fᶜ→_
crashT recover              = _─rᶜ→_

ST : Model
ST = record { State = State ; New = New ; read = read ; ok = okT ; crash = crashT }

------------------------------------------------------------------------
-- trim is the write of zero (definitionally), and S embeds in ST

trim-is-write : ∀ a t t' →
  okT (use (reg (trim a))) t t' ≡ Base.okS (Base.use (Base.reg (Base.w a zero))) t t'
trim-is-write a t t' = refl

trimᶜ-is-writeᶜ : ∀ a t t' →
  crashT (use (reg (trim a))) t t' ≡ Base.crashS (Base.use (Base.reg (Base.w a zero))) t t'
trimᶜ-is-writeᶜ a t t' = refl

-- every operation of S has the same meaning in ST
embed : Base.RegOp → RegOpT
embed (Base.w a d) = w a d
embed Base.rl = rl
embed Base.es = es

embed-ok : ∀ x t t' → okT (use (reg (embed x))) t t' ≡ Base.okS (Base.use (Base.reg x)) t t'
embed-ok (Base.w a d) t t' = refl
embed-ok Base.rl t t' = refl
embed-ok Base.es t t' = refl

embed-crash : ∀ x t t' → crashT (use (reg (embed x))) t t' ≡ Base.crashS (Base.use (Base.reg x)) t t'
embed-crash (Base.w a d) t t' = refl
embed-crash Base.rl t t' = refl
embed-crash Base.es t t' = refl

-- an in-bounds trim makes the address read as zero
read-after-trim : ∀ {t t' a} → InBounds a (wcnt t) → t ─trim[ a ]→ t' → read t' a ≡ zero
read-after-trim = read-after-write

-- an in-bounds trim is counted against wcnt
trim-counts : ∀ {t t' a} → InBounds a (wcnt t) → t ─trim[ a ]→ t' → wcnt t' ≡ suc (wcnt t)
trim-counts _ (inj₁ (_ , _ , _ , c)) = c
trim-counts ib (inj₂ (nib , _)) with nib ib
... | ()

------------------------------------------------------------------------
-- Lemma 1, no mixed epochs, Theorems 1 and 2 for ST

open import SCFTL.FlushContract Addr InA Data RegOpT public
  using (FlushContract; lemma1; no-mixed-epochs; no-mixed-pair; epochs; attempts; stable-epoch)

contractT : FlushContract ST
contractT = record
  { stable      = stable
  ; reg-ok      = reg-ok
  ; reg-crash   = reg-crash
  ; flush-ok    = λ f → proj₁ (proj₂ f)
  ; flush-crash = λ x → x
  ; rec-ok      = λ r → proj₁ r , proj₁ (proj₂ r)
  ; rec-crash   = λ x → x
  }
  where
    write-stable : ∀ {a d t t'} → t ─w[ a , d ]→ t' → stable t' ≡ stable t
    write-stable (inj₁ (_ , _ , e , _)) = e
    write-stable (inj₂ (_ , e)) = cong stable e

    reg-ok : ∀ x {t t'} → okT (use (reg x)) t t' → stable t' ≡ stable t
    reg-ok (w a d)  = write-stable
    reg-ok (trim a) = write-stable
    reg-ok rl e = cong stable e
    reg-ok es e = cong stable e

    reg-crash : ∀ x {t t'} → crashT (use (reg x)) t t' → stable t' ≡ stable t
    reg-crash (w a d)  e = e
    reg-crash (trim a) e = e
    reg-crash rl e = e
    reg-crash es e = e

-- The atomic flush contract rules out mixed epochs (for any execution of
-- ST from any state: after a successful recovery, one epoch explains
-- every address).
no-mixed-epochs-ST = no-mixed-epochs contractT
no-mixed-pair-ST   = no-mixed-pair contractT

-- Lemma 1 for S with trim.
lemma1-ST : SnapshotConsistent ST
lemma1-ST = lemma1 contractT

open import SCFTL.Behaviour Addr InA Data RegOpT public
open import SCFTL.Simulation Addr InA Data RegOpT public

module _ (P : Model) where
  open Correspondence P ST
  open ForwardSimulation P ST

  theorem2-ST : BehaviourallyCorrect → SnapshotConsistent P
  theorem2-ST bc = theorem2 bc lemma1-ST

  theorem1-ST : Obligations → BehaviourallyCorrect
  theorem1-ST O = theorem1 O new-disk

  obligations⇒SC-ST : Obligations → SnapshotConsistent P
  obligations⇒SC-ST O = theorem2-ST (theorem1-ST O)
