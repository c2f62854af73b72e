{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- §4.3: behavioural correctness of a model P with respect to a model S
-- (the statement of Theorem 1) and Theorem 2: a behaviourally correct
-- model inherits snapshot consistency.
------------------------------------------------------------------------
module SCFTL.Behaviour
  (Addr : Set) (InA : Addr → Set) (Data : Set) (R : Set) where

open import Data.List.Base using (List; []; _∷_)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Unit.Base using (⊤; tt)

open import SCFTL.Framework Addr InA Data R

module Correspondence (P S : Model) where
  private
    module P  = Model P
    module S  = Model S
    module FP = Fragments P
    module FS = Fragments S

  -- s ≈ t across the two models
  _≈_ : P.State → S.State → Set
  s ≈ t = Obs (P.read s) (S.read t)

  -- Corresponding normal states (targets of successful operations) of two
  -- fragments with the same operations are related by ≈.  Abnormal states
  -- (targets of crashed operations) are unconstrained.

  PathCorr : ∀ {us s s' t t'} → FP.Path us s s' → FS.Path us t t' → Set
  PathCorr FP.[] FS.[] = ⊤
  PathCorr (FP._∷_ {t' = s'} _ p) (FS._∷_ {t' = t'} _ q) = (s' ≈ t') × PathCorr p q

  HeadCorr : ∀ {pre s1 s2 su t1 t2 tu} → FP.Head pre s1 s2 su → FS.Head pre t1 t2 tu → Set
  HeadCorr FP.no-flush FS.no-flush = ⊤
  HeadCorr (FP.flushed {u = su} p _) (FS.flushed {u = tu} q _) = PathCorr p q × (su ≈ tu)

  OneRecCorr : ∀ {sh s1 s2 s3 s4 t1 t2 t3 t4} →
    FP.OneRec sh s1 s2 s3 s4 → FS.OneRec sh t1 t2 t3 t4 → Set
  OneRecCorr {s4 = s4} {t4 = t4} (FP.onerec h b _ _ _) (FS.onerec h' b' _ _ _) =
    HeadCorr h h' × PathCorr b b' × (s4 ≈ t4)

  ChainCorr : ∀ {shs as s t} → FP.Chain shs as s → FS.Chain shs as t → Set
  ChainCorr (FP.done p) (FS.done q) = PathCorr p q
  ChainCorr (o FP.∷ ch) (o' FS.∷ ch') = OneRecCorr o o' × ChainCorr ch ch'

  MultiRecCorr : ∀ {sh s0 t0} → FP.MultiRec sh s0 → FS.MultiRec sh t0 → Set
  MultiRecCorr (FP.multirec {t1 = s1} _ _ _ ch) (FS.multirec {t1 = t1} _ _ _ ch') =
    (s1 ≈ t1) × ChainCorr ch ch'

  -- Theorem 1's statement: for every multi-recovery fragment in P there is
  -- one in S with the same operation sequence (same shape) whose
  -- corresponding normal states are ≈-related.
  BehaviourallyCorrect : Set
  BehaviourallyCorrect = ∀ {sh s0} (F : FP.MultiRec sh s0) →
    Σ S.State λ t0 → Σ (FS.MultiRec sh t0) λ G → MultiRecCorr F G

  ----------------------------------------------------------------------
  -- Theorem 2

  path-end : ∀ {us s s' t t'} (p : FP.Path us s s') (q : FS.Path us t t') →
    s ≈ t → PathCorr p q → s' ≈ t'
  path-end FP.[] FS.[] e _ = e
  path-end (_ FP.∷ p) (_ FS.∷ q) _ (e , c) = path-end p q e c

  head-ends : ∀ {pre s1 s2 su t1 t2 tu}
    (h : FP.Head pre s1 s2 su) (h' : FS.Head pre t1 t2 tu) →
    s1 ≈ t1 → HeadCorr h h' → (s2 ≈ t2) × (su ≈ tu)
  head-ends FP.no-flush FS.no-flush e _ = e , e
  head-ends (FP.flushed p _) (FS.flushed q _) e (c , eu) = path-end p q e c , eu

  chain-sc : ∀ {shs as s1 t1} (ch : FP.Chain shs as s1) (ch' : FS.Chain shs as t1) →
    s1 ≈ t1 → ChainCorr ch ch' → FS.ChainSC ch' → FP.ChainSC ch
  chain-sc (FP.done _) (FS.done _) _ _ _ = tt
  chain-sc (FP.onerec {u = su} h b x rs r FP.∷ ch) (FS.onerec {u = tu} h' b' x' rs' r' FS.∷ ch')
           e1 ((hc , bc , e4) , cc) (sc , scs)
    with head-ends h h' e1 hc
  ... | e2 , eu =
    SC1-transfer _ e2 (path-end b b' eu bc) e4 sc ,
    chain-sc ch ch' e4 cc scs

  theorem2 : BehaviourallyCorrect → SnapshotConsistent S → SnapshotConsistent P
  theorem2 bc scS F@(FP.multirec _ _ _ ch) with bc F
  ... | t0 , G@(FS.multirec _ _ _ ch') , (e1 , cc) = chain-sc ch ch' e1 cc (scS G)
