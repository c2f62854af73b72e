{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: a crash after ANY flash command of an epoch-chain step is
-- covered by the step's crash points (`crashB`):
--
--   command-crashes-covered-PB : CmdCrash o s x → Img x y → Covered o s y
--
-- where `Covered o s y`: some crash outcome y′ of o from s (crashB)
-- from which recovery returns the same image as from y, and which allows
-- at least the images y allows (cands y ⊆ cands y′).
--
-- The commands (`CmdCrash o s x`: x is the flash right after some of
-- them): a write programs a page of the open epoch (no flash state of
-- PB sees it); gc is the identity on PB; a barrier or flush programs its
-- data pages and its committed page, in any order, any subset (`Batch`:
-- the new epoch's slot not there yet, or there with any pages and its
-- committed page absent or complete), then — a flush, or a barrier with
-- umax unsynced epochs — SYNCs; recovery SYNCs, then writes its
-- checkpoint.  The one case that is not literally a crash point is a
-- crash before the barrier's or flush's slot exists: it recovers as the
-- crash point right before the SYNC with that slot dead (`dead`, never
-- verified: recovery stops there), which returns the same image and
-- allows at least the same images (`recImg-dead`, `imgs-dead`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.EpochChainCrashPoints
  (Data : Set) (d0 : Data) (amax wmax umax : ℕ) (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (ℕ; _≤_)
open import Data.List.Base using (List; []; _∷_; _++_; length; map)
open import Data.List.Relation.Unary.Any using (Any; here; there)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.EpochChain Data d0 amax wmax umax _≟D_

------------------------------------------------------------------------
-- The commands of each step

-- after some programs of a barrier's or flush's batch, before its SYNC
Batch : St → St → Set
Batch s x = base x ≡ base s × opn x ≡ [] ×
  (  eps x ≡ eps s
   ⊎ Σ (List (Maybe Sec)) λ pg′ → Σ (Maybe (List Sec)) λ c →
       (c ≡ nothing ⊎ c ≡ just (opn s)) × eps x ≡ eps s ++ ep pg′ c ∷ [])

CmdCrash : Op → St → St → Set
CmdCrash (use (reg (op (w a d)))) s x = x ≡ s ⊎ x ≡ wr a d s
CmdCrash (use (reg (op _)))       s x = x ≡ s
CmdCrash (use (reg barrier))      s x = Batch s x ⊎ (umax ≤ length (eps s) × x ≡ syncF s)
CmdCrash (use flush)              s x = Batch s x ⊎ x ≡ syncF s
CmdCrash recover                  s x = x ≡ s ⊎ x ≡ recS s

-- the barrier's end state is one of its batch's states
barU-batch : ∀ s → Batch s (barU s)
barU-batch s = refl , refl , inj₂ (map just (opn s) , just (opn s) , inj₂ refl , refl)

------------------------------------------------------------------------
-- Lemmas on the crash image

dead : Ep
dead = ep [] nothing

EpsImg-snoc : ∀ {es es′ e e′} → EpsImg es es′ → (cm e′ ≡ cm e ⊎ cm e′ ≡ nothing) →
  EpsImg (es ++ e ∷ []) (es′ ++ e′ ∷ [])
EpsImg-snoc [] h = h ∷ []
EpsImg-snoc (c ∷ ei) h = c ∷ EpsImg-snoc ei h

-- the last slot: a committed page absent or complete is one of commit's outcomes
EpsImg-last : ∀ es {es′ pg′ c ds} → (c ≡ nothing ⊎ c ≡ just ds) →
  EpsImg (es ++ ep pg′ c ∷ []) es′ → EpsImg (es ++ commit ds ∷ []) es′
EpsImg-last [] (inj₁ refl) (inj₁ e ∷ []) = inj₂ e ∷ []
EpsImg-last [] (inj₁ refl) (inj₂ e ∷ []) = inj₂ e ∷ []
EpsImg-last [] (inj₂ refl) (h ∷ []) = h ∷ []
EpsImg-last (_ ∷ es) cc (h ∷ ei) = h ∷ EpsImg-last es cc ei

recImg-dead : ∀ b es → recImg b (es ++ dead ∷ []) ≡ recImg b es
recImg-dead b [] = refl
recImg-dead b (e ∷ es) = more (chk e)
  where
    more : ∀ c → recM b c (es ++ dead ∷ []) ≡ recM b c es
    more nothing   = refl
    more (just xs) = recImg-dead (apply b xs) es

imgs-dead : ∀ b es → imgs b es ⊆ imgs b (es ++ dead ∷ [])
imgs-dead b [] m = m
imgs-dead b (e ∷ es) (here x) = here x
imgs-dead b (e ∷ es) (there m) = there (more (cm e) m)
  where
    more : ∀ c → imgsM b c es ⊆ imgsM b c (es ++ dead ∷ [])
    more nothing ()
    more (just dg) m′ = imgs-dead (apply b dg) es m′

------------------------------------------------------------------------
-- Coverage

Covered : Op → St → St → Set
Covered o s y = Σ St λ y′ → crashB o s y′ ×
  recImg (base y) (eps y) ≡ recImg (base y′) (eps y′) × cands y ⊆ cands y′

private
  same : ∀ o s y → crashB o s y → Covered o s y
  same o s y c = y , c , refl , ⊆-refl

  -- a crash during a barrier's or flush's batch: as right before its SYNC
  batch : ∀ {s x y} → Batch s x → Img x y →
    Σ St λ y′ → Img (barU s) y′ ×
      recImg (base y) (eps y) ≡ recImg (base y′) (eps y′) × cands y ⊆ cands y′
  batch {s} {x} {y} (eb , _ , inj₁ ee) (ib , ei , io) =
    record y { eps = eps y ++ dead ∷ [] } ,
    (trans ib eb , EpsImg-snoc (subst (λ z → EpsImg z (eps y)) ee ei) (inj₂ refl) , io) ,
    sym (recImg-dead (base y) (eps y)) ,
    imgs-dead (base y) (eps y)
  batch {s} {x} {y} (eb , _ , inj₂ (pg′ , c , cc , ee)) (ib , ei , io) =
    y ,
    (trans ib eb , EpsImg-last (eps s) cc (subst (λ z → EpsImg z (eps y)) ee ei) , io) ,
    refl , ⊆-refl

command-crashes-covered-PB : ∀ o {s x y} → CmdCrash o s x → Img x y → Covered o s y
command-crashes-covered-PB o@(use (reg (op (w a d)))) {s} {y = y} (inj₁ refl) i = same o s y i
command-crashes-covered-PB o@(use (reg (op (w a d)))) {s} {y = y} (inj₂ refl) i = same o s y i
command-crashes-covered-PB o@(use (reg (op rl))) {s} {y = y} refl i = same o s y i
command-crashes-covered-PB o@(use (reg (op esOp))) {s} {y = y} refl i = same o s y i
command-crashes-covered-PB o@(use (reg (op sy))) {s} {y = y} refl i = same o s y i
command-crashes-covered-PB (use (reg barrier)) {s} {x} {y} (inj₁ bt) i with batch {s} {x} {y} bt i
... | y′ , i′ , r , c = y′ , inj₁ i′ , r , c
command-crashes-covered-PB o@(use (reg barrier)) {s} {y = y} (inj₂ (ge , refl)) i = same o s y (inj₂ (ge , i))
command-crashes-covered-PB (use flush) {s} {x} {y} (inj₁ bt) i with batch {s} {x} {y} bt i
... | y′ , i′ , r , c = y′ , inj₁ i′ , r , c
command-crashes-covered-PB o@(use flush) {s} {y = y} (inj₂ refl) i = same o s y (inj₂ i)
command-crashes-covered-PB o@recover {s} {y = y} (inj₁ refl) i = same o s y (inj₁ i)
command-crashes-covered-PB o@recover {s} {y = y} (inj₂ refl) i = same o s y (inj₂ i)
