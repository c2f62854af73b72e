{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- The flush contract of Fig. 4, abstracted: any model whose states have
-- a stable array, whose read is the volatile array, and whose operations
-- affect the stable array as in Fig. 4.  We prove, once and for all,
--   * Lemma 1 (snapshot consistency) for every such model, and
--   * "no mixed epochs": after any recovery, on ANY execution from a new
--     disk, the whole disk reads as ONE flushed snapshot (the stable
--     contents of the new disk, or the volatile contents at some flush
--     attempt) — never a mix of two.
-- The S of Fig. 4 and its trim extension are instances (SCFTL.Spec,
-- SCFTL.SpecTrim).
------------------------------------------------------------------------
module SCFTL.FlushContract
  (Addr : Set) (InA : Addr → Set) (Data : Set) (R : Set) where

open import Data.List.Base using (List; []; _∷_)
open import Data.List.Relation.Unary.Any using (Any; here; there)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong-app; subst)

open import SCFTL.Framework Addr InA Data R

Arr : Set
Arr = Addr → Data

------------------------------------------------------------------------
-- Epochs of an execution: they only depend on the model and on which
-- part of the state is "stable", so they are defined for any model
-- (SCFTL.TornFlush uses them for a model violating the contract).

_∈_ : Arr → List Arr → Set
x ∈ xs = Any (x ≡_) xs

module Epochs (M : Model) (stable : Model.State M → Arr) where
  open Model M
  open Fragments M

  -- The snapshots a trace tries to make durable: the volatile array at
  -- every flush attempt, successful or crashed.
  attempts : ∀ {t t'} → Trace t t' → List Arr
  attempts [] = []
  attempts {t} (step (okL (use flush))    _ tr) = read t ∷ attempts tr
  attempts {t} (step (crashL (use flush)) _ tr) = read t ∷ attempts tr
  attempts (step (okL (use (reg _)))    _ tr) = attempts tr
  attempts (step (crashL (use (reg _))) _ tr) = attempts tr
  attempts (step (okL recover)          _ tr) = attempts tr
  attempts (step (crashL recover)       _ tr) = attempts tr

  -- Epochs of a trace from t0: epoch 0 is the stable contents of t0,
  -- then one epoch per flush attempt.
  epochs : ∀ {t0 t} → Trace t0 t → List Arr
  epochs {t0} tr = stable t0 ∷ attempts tr

record FlushContract (M : Model) : Set₁ where
  open Model M
  field
    stable : State → Arr
    -- (read t is the volatile array)
    reg-ok      : ∀ x {t t'} → ok    (use (reg x)) t t' → stable t' ≡ stable t
    reg-crash   : ∀ x {t t'} → crash (use (reg x)) t t' → stable t' ≡ stable t
    flush-ok    : ∀ {t t'} → ok    (use flush) t t' → stable t' ≡ read t
    flush-crash : ∀ {t t'} → crash (use flush) t t' → stable t' ≡ read t ⊎ stable t' ≡ stable t
    rec-ok      : ∀ {t t'} → ok    recover t t' → read t' ≡ stable t × stable t' ≡ stable t
    rec-crash   : ∀ {t t'} → crash recover t t' → stable t' ≡ stable t

module _ {M : Model} (C : FlushContract M) where
  open Model M
  open FlushContract C
  open Fragments M
  open Epochs M stable public

  ----------------------------------------------------------------------
  -- Lemma 1

  -- read = stable: holds right after a successful recovery
  Synced : State → Set
  Synced t = read t ≡ stable t

  private
    path-reg : ∀ bs {u t} → Path (Data.List.Base.map reg bs) u t → stable t ≡ stable u
    path-reg [] [] = refl
    path-reg (x ∷ bs) (st ∷ p) = trans (path-reg bs p) (reg-ok x st)

    retries : ∀ {m t t'} → Retries m t t' → stable t' ≡ stable t
    retries [] = refl
    retries (x ∷ rs) = trans (retries rs) (rec-crash x)

    head : ∀ {pre t1 t2 u} → Synced t1 → Head pre t1 t2 u → stable u ≡ read t2
    head s no-flush = sym s
    head _ (flushed _ f) = flush-ok f

    crashed : ∀ c {t2 t3 t3c} → stable t3 ≡ read t2 → crash (use c) t3 t3c →
      SC1 c (read t2) (read t3) (stable t3c)
    crashed (reg x) e cr = ≡⇒Obs (sym (trans (reg-crash x cr) e))
    crashed flush e cr with flush-crash cr
    ... | inj₁ e′ = inj₂ (≡⇒Obs (sym e′))
    ... | inj₂ e′ = inj₁ (≡⇒Obs (sym (trans e′ e)))

    SC1-cong : ∀ c {f2 f3 g h} → g ≡ h → SC1 c f2 f3 g → SC1 c f2 f3 h
    SC1-cong c refl sc = sc

    one : ∀ {sh t1 t2 t3 t4} → Synced t1 → (o : OneRec sh t1 t2 t3 t4) →
      OneRecSC o × Synced t4
    one {shape1 pre bs c m} s1 (onerec h b x rs r) =
      SC1-cong c (sym r4) (crashed c (trans (path-reg bs b) (head s1 h)) x) ,
      trans (proj₁ (rec-ok r)) (sym (proj₂ (rec-ok r)))
      where
        r4 = trans (proj₁ (rec-ok r)) (retries rs)   -- read t4 ≡ stable t3c

    chain : ∀ {shs as t} → Synced t → (ch : Chain shs as t) → ChainSC ch
    chain _ (done _) = tt
    chain s (o ∷ ch) with one s o
    ... | sc , s4 = sc , chain s4 ch

  lemma1 : SnapshotConsistent M
  lemma1 (multirec _ rs r ch) = chain (trans (proj₁ (rec-ok r)) (sym (proj₂ (rec-ok r)))) ch

  ----------------------------------------------------------------------
  -- No mixed epochs

  private
    swap-head : ∀ {x y z : Arr} {xs} → x ≡ y → z ∈ (x ∷ xs) → z ∈ (y ∷ xs)
    swap-head refl m = m

    flushed-in : ∀ {x y z w : Arr} {xs} → y ≡ w → z ∈ (y ∷ xs) → z ∈ (x ∷ w ∷ xs)
    flushed-in e (here e′) = there (here (trans e′ e))
    flushed-in _ (there m) = there (there m)

    kept-in : ∀ {x y z w : Arr} {xs} → y ≡ x → z ∈ (y ∷ xs) → z ∈ (x ∷ w ∷ xs)
    kept-in e (here e′) = here (trans e′ e)
    kept-in _ (there m) = there (there m)

  -- Invariant: the stable array is always one of the epochs.
  stable-epoch : ∀ {t0 t} (tr : Trace t0 t) → stable t ∈ epochs tr
  stable-epoch [] = here refl
  stable-epoch (step (okL (use flush)) f tr) = flushed-in (flush-ok f) (stable-epoch tr)
  stable-epoch (step (crashL (use flush)) f tr) with flush-crash f
  ... | inj₁ e = flushed-in e (stable-epoch tr)
  ... | inj₂ e = kept-in e (stable-epoch tr)
  stable-epoch (step (okL (use (reg x))) st tr) = swap-head (reg-ok x st) (stable-epoch tr)
  stable-epoch (step (crashL (use (reg x))) st tr) = swap-head (reg-crash x st) (stable-epoch tr)
  stable-epoch (step (okL recover) st tr) = swap-head (proj₂ (rec-ok st)) (stable-epoch tr)
  stable-epoch (step (crashL recover) st tr) = swap-head (rec-crash st) (stable-epoch tr)

  -- After a successful recovery that ends an arbitrary trace, there is
  -- ONE epoch e such that every address reads its value in e.
  no-mixed-epochs : ∀ {t0 t t'} (tr : Trace t0 t) → ok recover t t' →
    Σ Arr λ e → e ∈ epochs tr × (∀ a → read t' a ≡ e a)
  no-mixed-epochs {t = t} tr r =
    stable t , stable-epoch tr , cong-app (proj₁ (rec-ok r))

  -- Pairwise form: no two addresses a, b are read from different epochs;
  -- a single epoch explains both reads.
  no-mixed-pair : ∀ {t0 t t'} (tr : Trace t0 t) → ok recover t t' → ∀ a b →
    Σ Arr λ e → e ∈ epochs tr × read t' a ≡ e a × read t' b ≡ e b
  no-mixed-pair tr r a b with no-mixed-epochs tr r
  ... | e , m , f = e , m , f a , f b
