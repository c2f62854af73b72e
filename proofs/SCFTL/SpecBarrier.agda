{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the spec S extended with EPOCH BARRIERS (SB), and Lemma 1
-- for it (`lemma1-SB : SnapshotConsistentB SB`).
--
-- S's state gains the PENDING SNAPSHOTS `pend`: the images at the
-- barriers since the last durable point, oldest first.  A barrier
-- appends the current image (no durability) while fewer than `umax`
-- snapshots are pending, or syncs like a flush (it is durable, kind 2):
-- at `umax` pending it must (MAX_UNSYNCED_EPOCHS = 3 in the code), below
-- it it may (the code's barrier whose commit would leave the delta region
-- short: a barrier promises order, and durability keeps that promise).  A flush makes the image
-- stable and clears `pend`.  A recovery returns ONE of `stable ∷ pend`
-- (the last durable image or the image at one of the barriers after it:
-- a prefix of the barrier epochs) and makes it stable.  A crashed flush
-- or barrier either made its image durable or left it pending after the
-- others (the recovery after it may still drop it, or any suffix).
-- Without barriers, SB is S: `pend` stays [] and every clause is S's.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)

module SCFTL.SpecBarrier (Data : Set) (d0 : Data) (amax wmax umax : ℕ) where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; _≡ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-refl; ≤-step; ≤-trans)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.List.Base using (List; []; _∷_; _++_; length; take; drop)
open import Data.List.Relation.Unary.Any using (Any; here; there)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

------------------------------------------------------------------------
-- States

Addr : Set
Addr = ℕ

InA : Addr → Set
InA a = a ≤ amax

data RegOp : Set where
  w     : Addr → Data → RegOp   -- w_{a,d}
  rl es : RegOp                 -- GC relocate / erase
  sy    : RegOp                 -- a SYNC outside a commit

open import SCFTL.BarrierFramework Addr InA Data RegOp public

_[_↦_] : Arr → Addr → Data → Arr
(f [ a ↦ d ]) b = if b ≡ᵇ a then d else f b

record State : Set where
  constructor ⟨_,_,_,_⟩
  field
    volatile : Arr
    stable   : Arr
    pend     : List Arr   -- images at the barriers since the last durable point
    wcnt     : ℕ
open State public

InBounds : Addr → ℕ → Set
InBounds a n = (a ≤ amax) × (n ≤ wmax)

New : State → Set
New t = stable t ≡ (λ _ → d0) × pend t ≡ []

read : State → Addr → Data
read t a = volatile t a

------------------------------------------------------------------------
-- Successful operations

_─w[_,_]→_ : State → Addr → Data → State → Set
t ─w[ a , d ]→ t' =
    (InBounds a (wcnt t) × volatile t' ≡ volatile t [ a ↦ d ]
       × stable t' ≡ stable t × pend t' ≡ pend t × wcnt t' ≡ suc (wcnt t))
  ⊎ (¬ InBounds a (wcnt t) × t' ≡ t)

_─gc→_ : State → State → Set
t ─gc→ t' = t' ≡ t

-- the newest of the stable image and the pending ones
lastA : Arr → List Arr → Arr
lastA x []       = x
lastA x (y ∷ ys) = lastA y ys

-- a SYNC outside a commit: the oldest k pending images are durable, the
-- last of them stable, the others still pending (k ≥ length pend: every
-- pending image durable, as a SYNC that covers every barrier; smaller k:
-- a sync behind barriers that proves only the epochs ended before it
-- started); the image read and the write count are unchanged
_─sy→_ : State → State → Set
t ─sy→ t' = Σ ℕ λ k → volatile t' ≡ volatile t × stable t' ≡ lastA (stable t) (take k (pend t))
                        × pend t' ≡ drop k (pend t) × wcnt t' ≡ wcnt t

-- barrier: the image becomes pending (fewer than umax pending), or the
-- barrier syncs and is durable (with umax pending it must:
-- MAX_UNSYNCED_EPOCHS)
_─b→_ : State → State → Set
t ─b→ t' = volatile t' ≡ volatile t × wcnt t' ≡ 0 ×
  (  (length (pend t) < umax × stable t' ≡ stable t × pend t' ≡ pend t ++ volatile t ∷ [])
   ⊎ (stable t' ≡ volatile t × pend t' ≡ []))

_─f→_ : State → State → Set
t ─f→ t' = volatile t' ≡ volatile t × stable t' ≡ volatile t × pend t' ≡ [] × wcnt t' ≡ 0

-- recovery returns one of the stable image and the pending ones
_─r→_ : State → State → Set
t ─r→ t' = Σ Arr λ x → x ∈ (stable t ∷ pend t) ×
  volatile t' ≡ x × stable t' ≡ x × pend t' ≡ [] × wcnt t' ≡ 0

------------------------------------------------------------------------
-- Crashed operations (volatile and wcnt arbitrary)

_─regᶜ→_ : State → State → Set       -- wᶜ, rlᶜ, esᶜ
t ─regᶜ→ t' = stable t' ≡ stable t × pend t' ≡ pend t

-- fᶜ and bᶜ: the image became durable, or it is pending after the others
_─fbᶜ→_ : State → State → Set
t ─fbᶜ→ t' = (stable t' ≡ stable t × pend t' ≡ pend t ++ volatile t ∷ [])
           ⊎ (stable t' ≡ volatile t × pend t' ≡ [])

-- syᶜ: before the SYNC nothing changed; after it the oldest k pending
-- images are durable, the last of them stable
_─syᶜ→_ : State → State → Set
t ─syᶜ→ t' = (stable t' ≡ stable t × pend t' ≡ pend t)
           ⊎ (Σ ℕ λ k → stable t' ≡ lastA (stable t) (take k (pend t)) × pend t' ≡ drop k (pend t))

-- rᶜ: before recovery's SYNC nothing changed; after it the choice is made
_─rᶜ→_ : State → State → Set
t ─rᶜ→ t' = (stable t' ≡ stable t × pend t' ≡ pend t)
          ⊎ (Σ Arr λ x → x ∈ (stable t ∷ pend t) × stable t' ≡ x × pend t' ≡ [])

okSB : Op → State → State → Set
okSB (use (reg (op (w a d)))) = _─w[ a , d ]→_
okSB (use (reg (op rl)))      = _─gc→_
okSB (use (reg (op es)))      = _─gc→_
okSB (use (reg (op sy)))      = _─sy→_
okSB (use (reg barrier))      = _─b→_
okSB (use flush)              = _─f→_
okSB recover                  = _─r→_

crashSB : Op → State → State → Set
crashSB (use (reg (op (w _ _)))) = _─regᶜ→_
crashSB (use (reg (op rl)))   = _─regᶜ→_
crashSB (use (reg (op es)))   = _─regᶜ→_
crashSB (use (reg (op sy)))   = _─syᶜ→_
crashSB (use (reg barrier))   = _─fbᶜ→_
crashSB (use flush)           = _─fbᶜ→_
crashSB recover               = _─rᶜ→_

SB : Model
SB = record { State = State ; New = New ; read = read ; ok = okSB ; crash = crashSB }

new-disk : Σ State New
new-disk = ⟨ (λ _ → d0) , (λ _ → d0) , [] , 0 ⟩ , refl , refl

------------------------------------------------------------------------
-- SB meets the barrier contract; Lemma 1

cands : State → List Arr
cands t = stable t ∷ pend t

private
  same : ∀ t t' → stable t' ≡ stable t → pend t' ≡ pend t → cands t' ⊆ cands t
  same t t' e1 e2 m rewrite e1 | e2 = m

  pending : ∀ t t' → stable t' ≡ stable t → pend t' ≡ pend t ++ volatile t ∷ [] →
    cands t' ⊆ cands t ++ read t ∷ []
  pending t t' e1 e2 m rewrite e1 | e2 = m

  last-∈ : ∀ x ys → lastA x ys ∈ (x ∷ ys)
  last-∈ x []       = here refl
  last-∈ x (y ∷ ys) = there (last-∈ y ys)

  -- the last of the first k images, and the images after them
  last-take-∈ : ∀ k x ys → lastA x (take k ys) ∈ (x ∷ ys)
  last-take-∈ zero    x ys       = here refl
  last-take-∈ (suc k) x []       = here refl
  last-take-∈ (suc k) x (y ∷ ys) = there (last-take-∈ k y ys)

  drop-⊆ : ∀ k (ys : List Arr) {z} → z ∈ drop k ys → z ∈ ys
  drop-⊆ zero    ys       m = m
  drop-⊆ (suc k) []       ()
  drop-⊆ (suc k) (y ∷ ys) m = there (drop-⊆ k ys m)

  synced : ∀ t t' k → stable t' ≡ lastA (stable t) (take k (pend t)) → pend t' ≡ drop k (pend t) → cands t' ⊆ cands t
  synced t t' k e1 e2 {y} m rewrite e1 | e2 with m
  ... | here refl = last-take-∈ k (stable t) (pend t)
  ... | there m′  = there (drop-⊆ k (pend t) m′)

  durable : ∀ t t' X → stable t' ≡ volatile t → pend t' ≡ [] →
    cands t' ⊆ X ++ read t ∷ []
  durable t t' X e1 e2 m rewrite e1 | e2 = ∈-++ʳ X m

  fb : ∀ {t t'} → t ─fbᶜ→ t' → cands t' ⊆ cands t ++ read t ∷ []
  fb {t} {t'} (inj₁ (e1 , e2)) = pending t t' e1 e2
  fb {t} {t'} (inj₂ (e1 , e2)) = durable t t' (cands t) e1 e2

  reg-ok : ∀ x {t t'} → okSB (use (reg (op x))) t t' → cands t' ⊆ cands t
  reg-ok (w a d) {t} {t'} (inj₁ (_ , _ , e1 , e2 , _)) = same t t' e1 e2
  reg-ok (w a d) (inj₂ (_ , refl)) = ⊆-refl
  reg-ok rl refl = ⊆-refl
  reg-ok es refl = ⊆-refl
  reg-ok sy {t} {t'} (k , _ , e1 , e2 , _) = synced t t' k e1 e2

  reg-crash : ∀ x {t t'} → crashSB (use (reg (op x))) t t' → cands t' ⊆ cands t
  reg-crash (w a d) {t} {t'} (e1 , e2) = same t t' e1 e2
  reg-crash rl {t} {t'} (e1 , e2) = same t t' e1 e2
  reg-crash es {t} {t'} (e1 , e2) = same t t' e1 e2
  reg-crash sy {t} {t'} (inj₁ (e1 , e2)) = same t t' e1 e2
  reg-crash sy {t} {t'} (inj₂ (k , e1 , e2)) = synced t t' k e1 e2

  bar-ok : ∀ {t t'} → okSB (use (reg barrier)) t t' → cands t' ⊆ cands t ++ read t ∷ []
  bar-ok {t} {t'} (_ , _ , inj₁ (_ , e1 , e2)) = pending t t' e1 e2
  bar-ok {t} {t'} (_ , _ , inj₂ (e1 , e2)) = durable t t' (cands t) e1 e2

  flush-ok : ∀ {t t'} → okSB (use flush) t t' → cands t' ⊆ read t ∷ []
  flush-ok {t} {t'} (_ , e1 , e2 , _) = durable t t' [] e1 e2

  rec-ok : ∀ {t t'} → okSB recover t t' → read t' ∈ cands t × cands t' ⊆ read t' ∷ []
  rec-ok {t} {t'} (x , m , e0 , e1 , e2 , _) =
    subst (_∈ cands t) (sym e0) m , λ m′ → sub m′
    where
      sub : ∀ {y} → y ∈ cands t' → y ∈ read t' ∷ []
      sub m′ rewrite e1 | e2 | e0 = m′

  rec-crash : ∀ {t t'} → crashSB recover t t' → cands t' ⊆ cands t
  rec-crash {t} {t'} (inj₁ (e1 , e2)) = same t t' e1 e2
  rec-crash {t} {t'} (inj₂ (x , m , e1 , e2)) m′ = sub m′
    where
      sub : ∀ {y} → y ∈ cands t' → y ∈ cands t
      sub m″ rewrite e1 | e2 with m″
      ... | here refl = m

contract : BarrierContract SB
contract = record
  { cands       = cands
  ; reg-ok      = λ x {t} {t'} → reg-ok x {t} {t'}
  ; reg-crash   = λ x {t} {t'} → reg-crash x {t} {t'}
  ; bar-ok      = λ {t} {t'} → bar-ok {t} {t'}
  ; bar-crash   = λ {t} {t'} → fb {t} {t'}
  ; flush-ok    = λ {t} {t'} → flush-ok {t} {t'}
  ; flush-crash = λ {t} {t'} → fb {t} {t'}
  ; rec-ok      = λ {t} {t'} → rec-ok {t} {t'}
  ; rec-crash   = λ {t} {t'} → rec-crash {t} {t'}
  }

-- Lemma 1 with barriers: SB is snapshot-consistent in the sense of SC1B.
lemma1-SB : SnapshotConsistentB SB
lemma1-SB = lemma1B contract

-- No mixed epochs with barriers: after any execution, a recovery returns
-- one whole image (the start's, or one at a flush or barrier attempt).
no-mixed-epochs-SB = no-mixed-epochsB contract

------------------------------------------------------------------------
-- MAX_UNSYNCED_EPOCHS: no step takes SB past umax pending snapshots.

length-drop : ∀ k (xs : List Arr) → length (drop k xs) ≤ length xs
length-drop zero    xs       = ≤-refl
length-drop (suc k) []       = z≤n
length-drop (suc k) (x ∷ xs) = ≤-step (length-drop k xs)

length-snoc : ∀ (xs : List Arr) x → length (xs ++ x ∷ []) ≡ suc (length xs)
length-snoc [] x = refl
length-snoc (_ ∷ xs) x = cong suc (length-snoc xs x)

pend-bound-ok : ∀ o {t t'} → length (pend t) ≤ umax → okSB o t t' → length (pend t') ≤ umax
pend-bound-ok (use (reg (op (w a d)))) b (inj₁ (_ , _ , _ , e , _)) rewrite e = b
pend-bound-ok (use (reg (op (w a d)))) b (inj₂ (_ , refl)) = b
pend-bound-ok (use (reg (op rl))) b refl = b
pend-bound-ok (use (reg (op es))) b refl = b
pend-bound-ok (use (reg (op sy))) {t} b (k , _ , _ , e , _) rewrite e = ≤-trans (length-drop k (pend t)) b
pend-bound-ok (use (reg barrier)) {t} b (_ , _ , inj₁ (lt , _ , e)) rewrite e | length-snoc (pend t) (volatile t) = lt
pend-bound-ok (use (reg barrier)) b (_ , _ , inj₂ (_ , e)) rewrite e = z≤n
pend-bound-ok (use flush) b (_ , _ , e , _) rewrite e = z≤n
pend-bound-ok recover b (_ , _ , _ , _ , e , _) rewrite e = z≤n

------------------------------------------------------------------------
-- Theorems 1 and 2 with barriers, for SB

open import SCFTL.BarrierBehaviour Addr InA Data RegOp public
open import SCFTL.Simulation Addr InA Data RB public

module _ (P : Model) where
  open CorrespondenceB P SB
  open ForwardSimulation P SB

  -- Theorem 2: a model behaviourally correct w.r.t. SB is snapshot-
  -- consistent with barriers.
  theorem2-SB : BehaviourallyCorrect → SnapshotConsistentB P
  theorem2-SB bc = theorem2B bc lemma1-SB

  -- Theorem 1 via §4.4 (the forward simulation of SCFTL.Simulation,
  -- unchanged, over the operations RB).
  theorem1-SB : Obligations → BehaviourallyCorrect
  theorem1-SB O = theorem1 O new-disk

  obligations⇒SCB : Obligations → SnapshotConsistentB P
  obligations⇒SCB O = theorem2-SB (theorem1-SB O)
