{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, deliverable 5: P's guards DECIDED.
--
-- P's steps are guarded by propositions (`InB`, `Valid`, `InP`, `OobP`;
-- PL's `Lazy` and erase guard `EraseGuard`).  Here each is decided, with
-- its proof (`Dec`), so that the compiled model (proofs/ghc/
-- ModelDriver.agda) can print, after each step, which steps P allows
-- next, and the crash checker's transcription, whose guard functions
-- (`in_p`, `oob_p`, `valid`, `lazy`, `erase_guard`) choose the oracle's
-- steps, is compared with them too.
--
--   between?     a property of every page in a range [L, n), decided
--   InB?, Valid?, InP?, runP?, OobP?      P's guards
--   Avoid?, AvoidAll?, EraseGuard?, Room?  PL's (at chain bound kc)
--
-- (P's `Quiet` quantifies over every record slot past a page, which a
-- function from pages cannot decide: not here.)
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.Decide (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                         (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _+_; _∸_; z≤n; s≤s)
open import Data.Nat.Properties using (_≤?_; _<?_; ≤-step; ≤-refl) renaming (_≟_ to _≟ℕ_)
open import Data.List.Base using (List; []; _∷_; length)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Maybe.Properties using () renaming (≡-dec to ≡-decM)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (Dec; yes; no; ¬_)
open import Relation.Nullary.Product using (_×-dec_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; cong; subst; sym)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Spec Data d0 amax wmax using (Addr)

------------------------------------------------------------------------
-- A property of every page in [L, n)

private
  split : ∀ {p n} → p < suc n → p < n ⊎ p ≡ n
  split {zero}  {zero}  _          = inj₂ refl
  split {zero}  {suc n} _          = inj₁ (s≤s z≤n)
  split {suc p} {zero}  (s≤s ())
  split {suc p} {suc n} (s≤s lt) with split {p} {n} lt
  ... | inj₁ l = inj₁ (s≤s l)
  ... | inj₂ e = inj₂ (cong suc e)

between? : (P : ℕ → Set) → (∀ p → Dec (P p)) → ∀ L n → Dec (∀ p → L ≤ p → p < n → P p)
between? P P? L zero = yes (λ p _ ())
between? P P? L (suc n) with between? P P? L n
... | no ¬h = no (λ h → ¬h (λ p le lt → h p le (≤-step lt)))
... | yes h with L ≤? n
...   | no ¬le = yes go
  where
    go : ∀ p → L ≤ p → p < suc n → P p
    go p le lt with split lt
    ... | inj₁ l = h p le l
    ... | inj₂ refl = Data.Empty.⊥-elim (¬le le)
      where import Data.Empty
...   | yes le with P? n
...     | no ¬pn = no (λ h' → ¬pn (h' n le ≤-refl))
...     | yes pn = yes go
  where
    go : ∀ p → L ≤ p → p < suc n → P p
    go p le' lt with split lt
    ... | inj₁ l = h p le' l
    ... | inj₂ refl = pn

------------------------------------------------------------------------
-- P's guards

InB? : ∀ a s → Dec (InB a s)
InB? a s = (a ≤? amax) ×-dec (wcnt s ≤? wmax)

Valid? : ∀ s p → Dec (Valid s p)
Valid? s p = (p2l s p ≤? amax) ×-dec ≡-decM _≟ℕ_ (l2p s (p2l s p)) (just p)

private
  lnk? : ∀ s L → Dec (lnk s ≡ just L)
  lnk? s L = ≡-decM _≟ℕ_ (lnk s) (just L)

  ept? : ∀ s → Dec (ept s ≡ [])
  ept? s with ept s
  ... | []    = yes refl
  ... | _ ∷ _ = no (λ ())

  inMB? : ∀ s p → Dec (Σ Data λ d → Σ Addr λ a → mb s p ≡ just (d , a))
  inMB? s p with mb s p
  ... | just (d , a) = yes (d , a , refl)
  ... | nothing      = no (λ { (_ , _ , ()) })

  noMB? : ∀ s p → Dec (mb s p ≡ nothing)
  noMB? s p with mb s p
  ... | just _  = no (λ ())
  ... | nothing = yes refl

InP? : ∀ s L → Dec (InP s L)
InP? s L = lnk? s L ×-dec ept? s ×-dec (L <? nxt s) ×-dec between? _ (inMB? s) L (nxt s)

runP? : ∀ L k ps → Dec (runP L k ps)
runP? L zero    []             = yes _
runP? L zero    (_ ∷ _)        = no (λ ())
runP? L (suc k) []             = no (λ ())
runP? L (suc k) ((a , p) ∷ ps) = (p ≟ℕ (L + k)) ×-dec runP? L k ps

OobP? : ∀ s L M → Dec (OobP s L M)
OobP? s L M =
  lnk? s L ×-dec ept? s ×-dec (L <? nxt s) ×-dec (nxt s ≤? L + omax)
  ×-dec runP? L (nxt s ∸ L) (dbuf s)
  ×-dec (L <? M) ×-dec (M <? nxt s)
  ×-dec between? _ (noMB? s) L M
  ×-dec between? _ (inMB? s) M (nxt s)

------------------------------------------------------------------------
-- PL's guards, at the chain bound kc

open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (Avoid; AvoidAll; digOf)

Avoid? : ∀ p dd → Dec (Avoid p dd)
Avoid? p []              = yes Avoid.[]
Avoid? p ((q , d , a) ∷ dd) with q ≟ℕ p | Avoid? p dd
... | yes e | _      = no (λ { (ne Avoid.∷ _) → ne e })
... | no ne | yes av = yes (ne Avoid.∷ av)
... | no ne | no ¬av = no (λ { (_ Avoid.∷ av) → ¬av av })

AvoidAll? : ∀ p cs → Dec (AvoidAll p cs)
AvoidAll? p []       = yes AvoidAll.[]
AvoidAll? p (c ∷ cs) with Avoid? p (digOf c) | AvoidAll? p cs
... | no ¬a | _      = no (λ { (a AvoidAll.∷ _) → ¬a a })
... | yes a | yes as = yes (a AvoidAll.∷ as)
... | yes a | no ¬as = no (λ { (_ AvoidAll.∷ as) → ¬as as })

module PL (kc : ℕ) where
  open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (EraseGuard; chainOf; regTop)

  EraseGuard? : ∀ s p → Dec (EraseGuard s p)
  EraseGuard? s p = AvoidAll? p (chainOf s) ×-dec AvoidAll? p (regTop s)

  -- the chain has room for one more record (the first half of `Lazy`)
  Room? : ∀ s → Dec (length (chainOf s) < kc)
  Room? s = length (chainOf s) <? kc
