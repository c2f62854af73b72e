{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: Theorem 2 with epoch barriers.  Behavioural correctness
-- (SCFTL.Behaviour, instantiated with the operations RB of
-- SCFTL.BarrierFramework) carries snapshot consistency with barriers
-- (SC1B) from a spec to an implementation:
--
--   theorem2B : BehaviourallyCorrect → SnapshotConsistentB S → SnapshotConsistentB P
--
-- The images at the barriers of corresponding paths correspond
-- (`bsnaps-corr`: a barrier's image is the read of the state the step
-- starts from, the start of the path or the target of the step before,
-- both related by ≈), hence so do the lists SC1B allows.
------------------------------------------------------------------------
module SCFTL.BarrierBehaviour
  (Addr : Set) (InA : Addr → Set) (Data : Set) (R : Set) where

open import Data.List.Base using (List; []; _∷_; _++_)
open import Data.List.Relation.Unary.Any using (Any; here; there)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Unit.Base using (⊤; tt)

open import SCFTL.BarrierFramework Addr InA Data R
open import SCFTL.Behaviour Addr InA Data RB public

module CorrespondenceB (P S : Model) where
  private
    module P  = Model P
    module S  = Model S
    module FP = FragmentsB P
    module FS = FragmentsB S
  open Correspondence P S public

  -- two image lists, position by position ≈
  data ObsL : List Arr → List Arr → Set where
    []  : ObsL [] []
    _∷_ : ∀ {f g fs gs} → Obs f g → ObsL fs gs → ObsL (f ∷ fs) (g ∷ gs)

  ObsL-++ : ∀ {fs gs hs ks} → ObsL fs gs → ObsL hs ks → ObsL (fs ++ hs) (gs ++ ks)
  ObsL-++ [] e = e
  ObsL-++ (o ∷ os) e = o ∷ ObsL-++ os e

  bsnaps-corr : ∀ {us s s' t t'} (p : FP.Path us s s') (q : FS.Path us t t') →
    s ≈ t → PathCorr p q → ObsL (FP.bsnaps p) (FS.bsnaps q)
  bsnaps-corr FP.[] FS.[] _ _ = []
  bsnaps-corr {reg barrier ∷ _} (_ FP.∷ p) (_ FS.∷ q) e (e′ , c) = e ∷ bsnaps-corr p q e′ c
  bsnaps-corr {reg (op _) ∷ _}  (_ FP.∷ p) (_ FS.∷ q) e (e′ , c) = bsnaps-corr p q e′ c
  bsnaps-corr {flush ∷ _}       (_ FP.∷ p) (_ FS.∷ q) e (e′ , c) = bsnaps-corr p q e′ c

  allowed-corr : ∀ c {f2 g2 fs gs f3 g3} → Obs f2 g2 → ObsL fs gs → Obs f3 g3 →
    ObsL (Allowed c f2 fs f3) (Allowed c g2 gs g3)
  allowed-corr (reg (op _))  e2 es e3 = e2 ∷ es
  allowed-corr (reg barrier) e2 es e3 = e2 ∷ ObsL-++ es (e3 ∷ [])
  allowed-corr flush         e2 es e3 = e2 ∷ ObsL-++ es (e3 ∷ [])

  SC1B-transfer : ∀ {fs gs f4 g4} → ObsL fs gs → Obs f4 g4 →
    Any (λ g → Obs g g4) gs → Any (λ g → Obs g f4) fs
  SC1B-transfer (e ∷ _) e4 (here o) = here (Obs-trans e (Obs-trans o (Obs-sym e4)))
  SC1B-transfer (_ ∷ es) e4 (there m) = there (SC1B-transfer es e4 m)

  chain-scB : ∀ {shs as s1 t1} (ch : FP.Chain shs as s1) (ch' : FS.Chain shs as t1) →
    s1 ≈ t1 → ChainCorr ch ch' → FS.ChainSCB ch' → FP.ChainSCB ch
  chain-scB (FP.done _) (FS.done _) _ _ _ = tt
  chain-scB {shape1 pre bs c m ∷ _}
            (FP.onerec {u = su} h b x rs r FP.∷ ch) (FS.onerec {u = tu} h' b' x' rs' r' FS.∷ ch')
            e1 ((hc , bc , e4) , cc) (sc , scs)
    with head-ends h h' e1 hc
  ... | e2 , eu =
    SC1B-transfer (allowed-corr c e2 (bsnaps-corr b b' eu bc) (path-end b b' eu bc)) e4 sc ,
    chain-scB ch ch' e4 cc scs

  theorem2B : BehaviourallyCorrect → SnapshotConsistentB S → SnapshotConsistentB P
  theorem2B bc scS F@(FP.multirec _ _ _ ch) with bc F
  ... | t0 , G@(FS.multirec _ _ _ ch') , (e1 , cc) = chain-scB ch ch' e1 cc (scS G)
