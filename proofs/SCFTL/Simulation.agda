{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- §4.4: per-operation correctness and the forward-simulation argument.
-- From abstraction relations AR/CR, representation invariants RI/CI,
-- the initial-state obligations and the type A / type B per-operation
-- obligations we derive behavioural correctness (Theorem 1).
------------------------------------------------------------------------
module SCFTL.Simulation
  (Addr : Set) (InA : Addr → Set) (Data : Set) (R : Set) where

open import Data.List.Base using (List; []; _∷_)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Unit.Base using (⊤; tt)

open import SCFTL.Framework Addr InA Data R
open import SCFTL.Behaviour Addr InA Data R

module ForwardSimulation (P S : Model) where
  private
    module P  = Model P
    module S  = Model S
    module FP = Fragments P
    module FS = Fragments S
  open Correspondence P S

  record Obligations : Set₁ where
    field
      AR CR : P.State → S.State → Set   -- abstraction / crash abstraction relation
      RI CI : P.State → Set             -- representation / crash invariant

      -- (i) AR(s,t) ⇒ s ≈ t   (correctness of read)
      AR⇒≈ : ∀ {s t} → AR s t → s ≈ t

      -- (ii) initial states
      init-CR : ∀ {s t} → P.New s → S.New t → CR s t
      init-CI : ∀ {s} → P.New s → CI s

      -- (iii) type A per-operation correctness
      A-ok    : ∀ u {s t s'} → AR s t → RI s → P.ok (use u) s s' →
                Σ S.State λ t' → S.ok (use u) t t' × AR s' t'
      A-crash : ∀ u {s t s'} → AR s t → RI s → P.crash (use u) s s' →
                Σ S.State λ t' → S.crash (use u) t t' × CR s' t'
      A-rec   : ∀ {s t s'} → CR s t → CI s → P.ok recover s s' →
                Σ S.State λ t' → S.ok recover t t' × AR s' t'
      A-recᶜ  : ∀ {s t s'} → CR s t → CI s → P.crash recover s s' →
                Σ S.State λ t' → S.crash recover t t' × CR s' t'

      -- (iii) type B per-operation correctness
      B-ok    : ∀ u {s s'} → RI s → P.ok (use u) s s' → RI s'
      B-crash : ∀ u {s s'} → RI s → P.crash (use u) s s' → CI s'
      B-rec   : ∀ {s s'} → CI s → P.ok recover s s' → RI s'
      B-recᶜ  : ∀ {s s'} → CI s → P.crash recover s s' → CI s'

  module _ (O : Obligations) where
    open Obligations O

    sim-path : ∀ {us s s' t} → AR s t → RI s → (p : FP.Path us s s') →
      Σ S.State λ t' → Σ (FS.Path us t t') λ q → PathCorr p q × AR s' t' × RI s'
    sim-path ar ri FP.[] = _ , FS.[] , tt , ar , ri
    sim-path ar ri (FP._∷_ {u = u} x p) with A-ok u ar ri x
    ... | t1 , y , ar1 with sim-path ar1 (B-ok u ri x) p
    ...   | t' , q , pc , ar' , ri' = t' , y FS.∷ q , (AR⇒≈ ar1 , pc) , ar' , ri'

    sim-retries : ∀ {m s s' t} → CR s t → CI s → FP.Retries m s s' →
      Σ S.State λ t' → FS.Retries m t t' × CR s' t' × CI s'
    sim-retries cr ci FP.[] = _ , FS.[] , cr , ci
    sim-retries cr ci (x FP.∷ rs) with A-recᶜ cr ci x
    ... | t1 , y , cr1 with sim-retries cr1 (B-recᶜ ci x) rs
    ...   | t' , rs' , cr' , ci' = t' , y FS.∷ rs' , cr' , ci'

    sim-head : ∀ {pre s1 s2 su t1} → AR s1 t1 → RI s1 → (h : FP.Head pre s1 s2 su) →
      Σ S.State λ t2 → Σ S.State λ tu → Σ (FS.Head pre t1 t2 tu) λ h' →
        HeadCorr h h' × AR su tu × RI su
    sim-head ar ri FP.no-flush = _ , _ , FS.no-flush , tt , ar , ri
    sim-head ar ri (FP.flushed p x) with sim-path ar ri p
    ... | t2 , q , pc , ar2 , ri2 with A-ok flush ar2 ri2 x
    ...   | tu , y , aru = t2 , tu , FS.flushed q y , (pc , AR⇒≈ aru) , aru , B-ok flush ri2 x

    sim-one : ∀ {sh s1 s2 s3 s4 t1} → AR s1 t1 → RI s1 → (o : FP.OneRec sh s1 s2 s3 s4) →
      Σ S.State λ t2 → Σ S.State λ t3 → Σ S.State λ t4 →
        Σ (FS.OneRec sh t1 t2 t3 t4) λ o' → OneRecCorr o o' × AR s4 t4 × RI s4
    sim-one {sh} ar ri (FP.onerec h b x rs r)
      with sim-head ar ri h
    ... | t2 , tu , h' , hc , aru , riu
      with sim-path aru riu b
    ... | t3 , b' , bc , ar3 , ri3
      with A-crash (Shape1.c sh) ar3 ri3 x
    ... | t3c , x' , cr3c
      with sim-retries cr3c (B-crash (Shape1.c sh) ri3 x) rs
    ... | t3r , rs' , cr3r , ci3r
      with A-rec cr3r ci3r r
    ... | t4 , r' , ar4 =
      t2 , t3 , t4 , FS.onerec h' b' x' rs' r' , (hc , bc , AR⇒≈ ar4) , ar4 , B-rec ci3r r

    sim-chain : ∀ {shs as s1 t1} → AR s1 t1 → RI s1 → (ch : FP.Chain shs as s1) →
      Σ (FS.Chain shs as t1) λ ch' → ChainCorr ch ch'
    sim-chain ar ri (FP.done p) with sim-path ar ri p
    ... | _ , q , pc , _ = FS.done q , pc
    sim-chain ar ri (o FP.∷ ch) with sim-one ar ri o
    ... | _ , _ , _ , o' , oc , ar4 , ri4 with sim-chain ar4 ri4 ch
    ...   | ch' , cc = o' FS.∷ ch' , oc , cc

    -- Theorem 1 (behavioural correctness), given that N_S is inhabited.
    theorem1 : Σ S.State S.New → BehaviourallyCorrect
    theorem1 (t0 , n0) (FP.multirec n rs r ch)
      with sim-retries (init-CR n n0) (init-CI n) rs
    ... | t0' , rs' , cr , ci with A-rec cr ci r
    ...   | t1 , r' , ar1 with sim-chain ar1 (B-rec ci r) ch
    ...     | ch' , cc = t0 , FS.multirec n0 rs' r' ch' , AR⇒≈ ar1 , cc
