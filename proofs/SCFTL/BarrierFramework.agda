{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: snapshot consistency with EPOCH BARRIERS (docs/FORMAT.md
-- §4.3, "Detached syncs", "What a host power cut may lose").
--
-- A barrier ends an epoch without making it durable: a later crash may
-- return the disk to its contents at the last completed flush or at ANY
-- barrier after it (a prefix of the barrier epochs, never a mix).  The
-- framework of SCFTL.Framework is reused unchanged, with the regular
-- operations R extended by one operation `barrier` (`RB`); only the
-- snapshot-consistency clause changes:
--
--   SC1B c:  the recovered image t4 is (up to ≈) one of
--            t2 (the image at the last flush before the crash),
--            the image at each barrier between that flush and the crash
--              (in order: `bsnaps`), and,
--            when c is a flush or a barrier, t3 (the image when c began).
--
-- Without barriers in the fragment it is SC1 (`SC1B⇒SC1`).
-- `BarrierContract` generalises SCFTL.FlushContract: a model gives, for
-- each state, the list of images a recovery may return (`cands`), and
-- each operation moves that list as a flush or a barrier must;
-- `lemma1B` proves snapshot consistency for every model that meets it.
------------------------------------------------------------------------
module SCFTL.BarrierFramework
  (Addr : Set) (InA : Addr → Set) (Data : Set) (R : Set) where

open import Data.Nat.Base using (ℕ)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.List.Relation.Unary.Any using (Any; here; there)
import Data.List.Relation.Unary.Any as Any
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong-app; subst)

-- The regular operations with barriers.
data RB : Set where
  op      : R → RB      -- an operation of R (write, GC, ...)
  barrier : RB          -- end the epoch, no durability

open import SCFTL.Framework Addr InA Data RB public

Arr : Set
Arr = Addr → Data

------------------------------------------------------------------------
-- The images SC1B allows

Allowed : UOp → Arr → List Arr → Arr → List Arr
Allowed (reg (op _))   f2 bs f3 = f2 ∷ bs
Allowed (reg barrier)  f2 bs f3 = f2 ∷ (bs ++ f3 ∷ [])
Allowed flush          f2 bs f3 = f2 ∷ (bs ++ f3 ∷ [])

SC1B : UOp → (f2 : Arr) → (bs : List Arr) → (f3 f4 : Arr) → Set
SC1B c f2 bs f3 f4 = Any (λ g → Obs g f4) (Allowed c f2 bs f3)

-- Conservative: without a barrier after the last flush, SC1B is SC1.
SC1B⇒SC1 : ∀ c {f2 f3 f4} → SC1B (reg (op c)) f2 [] f3 f4 → SC1 (reg (op c)) f2 f3 f4
SC1B⇒SC1 c (here o) = o

SC1B⇒SC1-flush : ∀ {f2 f3 f4} → SC1B flush f2 [] f3 f4 → SC1 flush f2 f3 f4
SC1B⇒SC1-flush (here o) = inj₁ o
SC1B⇒SC1-flush (there (here o)) = inj₂ o

------------------------------------------------------------------------
-- Snapshot consistency of fragments with barriers

module FragmentsB (M : Model) where
  open Model M
  open Fragments M public

  -- the image at each barrier of a path, in order
  bsnaps : ∀ {us t t'} → Path us t t' → List Arr
  bsnaps [] = []
  bsnaps {reg barrier ∷ _} {t} (_ ∷ p) = read t ∷ bsnaps p
  bsnaps {reg (op _) ∷ _} (_ ∷ p) = bsnaps p
  bsnaps {flush ∷ _} (_ ∷ p) = bsnaps p

  OneRecSCB : ∀ {sh t1 t2 t3 t4} → OneRec sh t1 t2 t3 t4 → Set
  OneRecSCB {sh} {t2 = t2} {t3} {t4} (onerec _ b _ _ _) =
    SC1B (Shape1.c sh) (read t2) (bsnaps b) (read t3) (read t4)

  ChainSCB : ∀ {shs as t} → Chain shs as t → Set
  ChainSCB (done _)  = ⊤
  ChainSCB (o ∷ ch) = OneRecSCB o × ChainSCB ch

  MultiRecSCB : ∀ {sh t0} → MultiRec sh t0 → Set
  MultiRecSCB (multirec _ _ _ ch) = ChainSCB ch

-- A disk model with barriers is snapshot-consistent if every
-- multi-recovery fragment is, in the sense of SC1B.
SnapshotConsistentB : Model → Set
SnapshotConsistentB M = ∀ {sh t0} (F : MultiRec sh t0) → MultiRecSCB F
  where open FragmentsB M

------------------------------------------------------------------------
-- Membership and inclusion of image lists

infix 4 _∈_ _⊆_
_∈_ : Arr → List Arr → Set
x ∈ xs = Any (x ≡_) xs

_⊆_ : List Arr → List Arr → Set
xs ⊆ ys = ∀ {x} → x ∈ xs → x ∈ ys

⊆-refl : ∀ {xs} → xs ⊆ xs
⊆-refl m = m

⊆-trans : ∀ {xs ys zs} → xs ⊆ ys → ys ⊆ zs → xs ⊆ zs
⊆-trans a b m = b (a m)

∈-++ˡ : ∀ {x} xs {ys} → x ∈ xs → x ∈ xs ++ ys
∈-++ˡ (_ ∷ _) (here e) = here e
∈-++ˡ (_ ∷ xs) (there m) = there (∈-++ˡ xs m)

∈-++ʳ : ∀ {x} xs {ys} → x ∈ ys → x ∈ xs ++ ys
∈-++ʳ [] m = m
∈-++ʳ (_ ∷ xs) m = there (∈-++ʳ xs m)

∈-++⁻ : ∀ {x} xs {ys} → x ∈ xs ++ ys → x ∈ xs ⊎ x ∈ ys
∈-++⁻ [] m = inj₂ m
∈-++⁻ (_ ∷ xs) (here e) = inj₁ (here e)
∈-++⁻ (_ ∷ xs) (there m) with ∈-++⁻ xs m
... | inj₁ m′ = inj₁ (there m′)
... | inj₂ m′ = inj₂ m′

-- xs ⊆ A  ⇒  xs ++ [y] ⊆ A ++ [y]
⊆-snoc : ∀ {xs} A {y} → xs ⊆ A → xs ++ y ∷ [] ⊆ A ++ y ∷ []
⊆-snoc {xs} A s m with ∈-++⁻ xs m
... | inj₁ m′ = ∈-++ˡ A (s m′)
... | inj₂ m′ = ∈-++ʳ A m′

-- (A ++ [y]) ++ B ⊆ A ++ (y ∷ B)
⊆-shift : ∀ A {y B} → (A ++ y ∷ []) ++ B ⊆ A ++ (y ∷ B)
⊆-shift A {y} {B} m with ∈-++⁻ (A ++ y ∷ []) m
... | inj₂ m′ = ∈-++ʳ A (there m′)
... | inj₁ m′ with ∈-++⁻ A m′
...   | inj₁ m″ = ∈-++ˡ A m″
...   | inj₂ (here e) = ∈-++ʳ A (here e)

------------------------------------------------------------------------
-- The barrier contract and Lemma 1 for every model that meets it

record BarrierContract (M : Model) : Set₁ where
  open Model M
  field
    -- the images a recovery from this state may return
    cands       : State → List Arr
    reg-ok      : ∀ x {t t'} → ok    (use (reg (op x))) t t' → cands t' ⊆ cands t
    reg-crash   : ∀ x {t t'} → crash (use (reg (op x))) t t' → cands t' ⊆ cands t
    bar-ok      : ∀ {t t'} → ok    (use (reg barrier)) t t' → cands t' ⊆ cands t ++ read t ∷ []
    bar-crash   : ∀ {t t'} → crash (use (reg barrier)) t t' → cands t' ⊆ cands t ++ read t ∷ []
    flush-ok    : ∀ {t t'} → ok    (use flush) t t' → cands t' ⊆ read t ∷ []
    flush-crash : ∀ {t t'} → crash (use flush) t t' → cands t' ⊆ cands t ++ read t ∷ []
    rec-ok      : ∀ {t t'} → ok recover t t' → read t' ∈ cands t × cands t' ⊆ read t' ∷ []
    rec-crash   : ∀ {t t'} → crash recover t t' → cands t' ⊆ cands t

module _ {M : Model} (C : BarrierContract M) where
  open Model M
  open BarrierContract C
  open FragmentsB M

  private
    path : ∀ bs {u t A} (p : Path (map reg bs) u t) → cands u ⊆ A →
      cands t ⊆ A ++ bsnaps p
    path [] [] s {x} m = ∈-++ˡ _ {[]} (s m)
    path (op x ∷ bs) (st ∷ p) s = path bs p (⊆-trans (reg-ok x st) s)
    path (barrier ∷ bs) {u} {A = A} (st ∷ p) s =
      ⊆-trans (path bs p (⊆-trans (bar-ok st) (⊆-snoc A s))) (⊆-shift A)

    retries : ∀ {m t t'} → Retries m t t' → cands t' ⊆ cands t
    retries [] = ⊆-refl
    retries (x ∷ rs) = ⊆-trans (retries rs) (rec-crash x)

    head : ∀ {pre t1 t2 u} → cands t1 ⊆ read t1 ∷ [] → Head pre t1 t2 u →
      cands u ⊆ read t2 ∷ []
    head s no-flush = s
    head _ (flushed _ f) = flush-ok f

    crashed : ∀ c {f2 bs t3 t3c} → cands t3 ⊆ f2 ∷ bs → crash (use c) t3 t3c →
      cands t3c ⊆ Allowed c f2 bs (read t3)
    crashed (reg (op x)) s cr = ⊆-trans (reg-crash x cr) s
    crashed (reg barrier) {f2} {bs} s cr = ⊆-trans (bar-crash cr) (⊆-snoc (f2 ∷ bs) s)
    crashed flush {f2} {bs} s cr = ⊆-trans (flush-crash cr) (⊆-snoc (f2 ∷ bs) s)

    to-obs : ∀ {xs f} → f ∈ xs → Any (λ g → Obs g f) xs
    to-obs (here e) = here (≡⇒Obs (sym e))
    to-obs (there m) = there (to-obs m)

    one : ∀ {sh t1 t2 t3 t4} → cands t1 ⊆ read t1 ∷ [] →
      (o : OneRec sh t1 t2 t3 t4) → OneRecSCB o × cands t4 ⊆ read t4 ∷ []
    one {shape1 pre bs c m} s1 (onerec h b x rs r) =
      to-obs (crashed c (path bs b (head s1 h)) x (retries rs (proj₁ (rec-ok r)))) ,
      proj₂ (rec-ok r)

    chain : ∀ {shs as t} → cands t ⊆ read t ∷ [] → (ch : Chain shs as t) → ChainSCB ch
    chain _ (done _) = tt
    chain s (o ∷ ch) with one s o
    ... | sc , s4 = sc , chain s4 ch

  lemma1B : SnapshotConsistentB M
  lemma1B (multirec _ rs r ch) = chain (proj₂ (rec-ok r)) ch

  ----------------------------------------------------------------------
  -- No mixed epochs with barriers: on ANY execution (any operations,
  -- successful or crashed, nested crashes included) a successful
  -- recovery returns ONE whole image: one recovery could return from
  -- the start, or the image at some flush or barrier attempt.

  -- the image at every flush and barrier attempt, successful or crashed
  attemptsB : ∀ {t t'} → Trace t t' → List Arr
  attemptsB [] = []
  attemptsB {t} (step (okL (use flush))          _ tr) = read t ∷ attemptsB tr
  attemptsB {t} (step (crashL (use flush))       _ tr) = read t ∷ attemptsB tr
  attemptsB {t} (step (okL (use (reg barrier)))    _ tr) = read t ∷ attemptsB tr
  attemptsB {t} (step (crashL (use (reg barrier))) _ tr) = read t ∷ attemptsB tr
  attemptsB (step (okL (use (reg (op _))))    _ tr) = attemptsB tr
  attemptsB (step (crashL (use (reg (op _)))) _ tr) = attemptsB tr
  attemptsB (step (okL recover)    _ tr) = attemptsB tr
  attemptsB (step (crashL recover) _ tr) = attemptsB tr

  private
    ++-mono : ∀ {xs ys} zs → xs ⊆ ys → xs ++ zs ⊆ ys ++ zs
    ++-mono {xs} {ys} zs s m with ∈-++⁻ xs m
    ... | inj₁ m′ = ∈-++ˡ ys (s m′)
    ... | inj₂ m′ = ∈-++ʳ ys m′

    kept : ∀ {t1 t'} (tr : Trace t1 t') A → cands t1 ⊆ A →
      cands t' ⊆ cands t1 ++ attemptsB tr → cands t' ⊆ A ++ attemptsB tr
    kept tr A s ih = ⊆-trans ih (++-mono (attemptsB tr) s)

    attempt : ∀ {t1 t'} (tr : Trace t1 t') A {y} → cands t1 ⊆ A ++ y ∷ [] →
      cands t' ⊆ cands t1 ++ attemptsB tr → cands t' ⊆ A ++ y ∷ attemptsB tr
    attempt tr A {y} s ih = ⊆-trans (kept tr (A ++ y ∷ []) s ih) (⊆-shift A)

  cands-epoch : ∀ {t0 t} (tr : Trace t0 t) → cands t ⊆ cands t0 ++ attemptsB tr
  cands-epoch [] m = ∈-++ˡ _ {[]} m
  cands-epoch {t0} (step (okL (use flush)) st tr) =
    attempt tr (cands t0) (λ m → ∈-++ʳ (cands t0) (flush-ok st m)) (cands-epoch tr)
  cands-epoch {t0} (step (crashL (use flush)) st tr) =
    attempt tr (cands t0) (flush-crash st) (cands-epoch tr)
  cands-epoch {t0} (step (okL (use (reg barrier))) st tr) =
    attempt tr (cands t0) (bar-ok st) (cands-epoch tr)
  cands-epoch {t0} (step (crashL (use (reg barrier))) st tr) =
    attempt tr (cands t0) (bar-crash st) (cands-epoch tr)
  cands-epoch {t0} (step (okL (use (reg (op x)))) st tr) =
    kept tr (cands t0) (reg-ok x st) (cands-epoch tr)
  cands-epoch {t0} (step (crashL (use (reg (op x)))) st tr) =
    kept tr (cands t0) (reg-crash x st) (cands-epoch tr)
  cands-epoch {t0} (step {t' = t1} (okL recover) st tr) =
    kept tr (cands t0) (λ { m → one-in (proj₂ (rec-ok st) m) }) (cands-epoch tr)
    where
      one-in : ∀ {x} → x ∈ read t1 ∷ [] → x ∈ cands t0
      one-in (here refl) = proj₁ (rec-ok st)
  cands-epoch {t0} (step (crashL recover) st tr) =
    kept tr (cands t0) (rec-crash st) (cands-epoch tr)

  no-mixed-epochsB : ∀ {t0 t t'} (tr : Trace t0 t) → ok recover t t' →
    Σ Arr λ e → e ∈ cands t0 ++ attemptsB tr × (∀ a → read t' a ≡ e a)
  no-mixed-epochsB {t = t} {t'} tr r =
    read t' , cands-epoch tr (proj₁ (rec-ok r)) , λ a → refl
