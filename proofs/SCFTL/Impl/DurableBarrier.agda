{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P, second step: P over the operations WITH a
-- barrier (RB), the barrier being the DURABLE one (the code's barrier
-- when MAX_UNSYNCED_EPOCHS earlier epochs are unsynced, flush.rs
-- `flush_begin`: kind 2, one SYNC — P's flush, every one of its
-- commits and crash points), proven against the spec with barriers SB
-- (for EVERY umax, the code's 3 included) in the SC1B sense:
--
--   liftB, Lift   any model Q over S's operations becomes a model over RB
--                 whose barrier is Q's flush (`liftB`), and obligations
--                 of Q against S become obligations of it against SB
--   PD            P with that barrier
--   obligationsD  : ForwardSimulation.Obligations PD SB
--   theorem1-PD   : Correspondence.BehaviourallyCorrect PD SB   (Theorem 1)
--   PD-snapshot-consistent : SnapshotConsistentB PD             (SC1B)
--   barrier-crashes  PD's crashed barrier is P's crashed flush, so
--                 `command-crashes-covered` covers it:
--   barrier-command-crashes-covered
--   BlocksD.BD, BD-snapshot-consistent: the same for the block-level
--                 model B (`Lift` applied to `obligationsB`)
--
-- A barrier that syncs is SB's durable barrier (SB's barrier may be
-- durable at any count of pending images, and must be at umax).
-- AR(s,t): P's AR against S's state (volatile, newest candidate, wcnt);
-- CR(s,t): P's CR against S's state with SOME candidate of t as its
-- stable image (a crashed flush or barrier that did not commit leaves
-- P's stable image, the old newest candidate, while SB appends the
-- crashed image; SB's recovery may choose any candidate, P's is one).
--
-- What this is NOT: the barrier without SYNC (several unsynced epochs).
-- P's recovery checks only the newest committed page, which is unsound
-- for it (mutant 24, `BarrierNewestOnly`); `SCFTL.Impl.UnsyncedEpochs`
-- has the recovery check that is needed.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.DurableBarrier (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                 (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (z≤n)
open import Data.Nat.Properties using (_<?_; ≮⇒≥)
open import Data.List.Base using (List; []; _∷_; _++_; length)
open import Data.List.Relation.Unary.Any using (here; there)
open import Relation.Nullary using (yes; no)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The operations with a barrier, read as S's (a barrier is a flush)

open import SCFTL.Impl.BarrierOps Data d0 amax wmax umax public

-- A model of S lifted to SB's operations: a barrier is its flush, and it
-- issues no SYNC outside a commit (nothing is ever pending after its
-- barriers, so `sy` would have nothing to do): no `sy` step, no crash in
-- one.
liftB : Sp.Model → SB.Model
liftB Q = record { State = Q.State ; New = Q.New ; read = Q.read
                 ; ok = okL ; crash = crL }
  where
    module Q = Sp.Model Q
    okL crL : SB.Op → Q.State → Q.State → Set
    okL (SB.use (SB.reg (SB.op SB.sy))) _ _ = ⊥
    okL o = Q.ok (oS o)
    crL (SB.use (SB.reg (SB.op SB.sy))) _ _ = ⊥
    crL o = Q.crash (oS o)


------------------------------------------------------------------------
-- Obligations against S become obligations against SB (any umax)

-- the newest candidate: the image at the last barrier, else the stable one
lastA : SB.Arr → List SB.Arr → SB.Arr
lastA x []       = x
lastA x (y ∷ ys) = lastA y ys

lastA-∈ : ∀ x ys → lastA x ys SB.∈ (x ∷ ys)
lastA-∈ x []       = here refl
lastA-∈ x (y ∷ ys) = there (lastA-∈ y ys)

lastA-snoc : ∀ x ys z → lastA x (ys ++ z ∷ []) ≡ z
lastA-snoc x []       z = refl
lastA-snoc x (y ∷ ys) z = lastA-snoc y ys z

-- S's state of t whose stable image is x
at : SB.State → SB.Arr → Sp.State
at t x = Sp.⟨ SB.volatile t , x , SB.wcnt t ⟩

module Lift (Q : Sp.Model) (O : Sp.ForwardSimulation.Obligations Q Sp.S) where
  private
    module Q = Sp.Model Q
    module O = Sp.ForwardSimulation.Obligations O
  open SB.ForwardSimulation (liftB Q) SB.SB using (Obligations)

  -- AR: Q's AR against S's state whose stable image is the newest candidate
  AR′ : Q.State → SB.State → Set
  AR′ s t = O.AR s (at t (lastA (SB.stable t) (SB.pend t)))

  -- CR: Q's CR against S's state with one of the candidates as stable image
  CR′ : Q.State → SB.State → Set
  CR′ s t = Σ SB.Arr λ x → x SB.∈ (SB.stable t ∷ SB.pend t) × O.CR s (at t x)

  private
    -- t's flash part with u's memory part
    keep : SB.State → Sp.State → SB.State
    keep t u = SB.⟨ Sp.volatile u , SB.stable t , SB.pend t , Sp.wcnt u ⟩

    -- u is S's state of (keep t u) with x for its stable image
    re : ∀ (u : Sp.State) {x} → Sp.stable u ≡ x → u ≡ Sp.⟨ Sp.volatile u , x , Sp.wcnt u ⟩
    re u refl = refl

    A-ok′ : ∀ u {s t s'} → AR′ s t → O.RI s → SB.Model.ok (liftB Q) (SB.use u) s s' →
            Σ SB.State λ t' → SB.okSB (SB.use u) t t' × AR′ s' t'
    A-ok′ (SB.reg (SB.op (SB.w a d))) {t = t} {s' = s'} ar ri x with O.A-ok (Sp.reg (Sp.w a d)) ar ri x
    ... | u' , inj₁ (ib , v , st , wc) , ar' =
      keep t u' , inj₁ (ib , v , refl , refl , wc) , subst (O.AR s') (re u' st) ar'
    ... | u' , inj₂ (nib , e) , ar' = t , inj₂ (nib , refl) , subst (O.AR s') e ar'
    A-ok′ (SB.reg (SB.op SB.rl)) {t = t} {s' = s'} ar ri x with O.A-ok (Sp.reg Sp.rl) ar ri x
    ... | u' , e , ar' = t , refl , subst (O.AR s') e ar'
    A-ok′ (SB.reg (SB.op SB.es)) {t = t} {s' = s'} ar ri x with O.A-ok (Sp.reg Sp.es) ar ri x
    ... | u' , e , ar' = t , refl , subst (O.AR s') e ar'
    A-ok′ (SB.reg SB.barrier) {t = t} {s' = s'} ar ri x with O.A-ok Sp.flush ar ri x
    ... | u' , (v , st , wc) , ar' = fromS [] u' , (v , wc , inj₂ (st , refl)) , ar'
    A-ok′ (SB.reg (SB.op SB.sy)) ar ri ()
    A-ok′ SB.flush ar ri x with O.A-ok Sp.flush ar ri x
    ... | u' , (v , st , wc) , ar' = fromS [] u' , (v , st , refl , wc) , ar'

    regc : ∀ {s' t} → (Σ Sp.State λ u' → Sp.stable u' ≡ lastA (SB.stable t) (SB.pend t) × O.CR s' u') →
           Σ SB.State λ t' → (SB.stable t' ≡ SB.stable t × SB.pend t' ≡ SB.pend t) × CR′ s' t'
    regc {s'} {t} (u' , e , cr) =
      keep t u' , (refl , refl) , lastA (SB.stable t) (SB.pend t) , lastA-∈ (SB.stable t) (SB.pend t)
      , subst (O.CR s') (re u' e) cr

    A-crash′ : ∀ u {s t s'} → AR′ s t → O.RI s → SB.Model.crash (liftB Q) (SB.use u) s s' →
               Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CR′ s' t'
    A-crash′ (SB.reg (SB.op (SB.w a d))) {t = t} ar ri c = regc {t = t} (O.A-crash (Sp.reg (Sp.w a d)) ar ri c)
    A-crash′ (SB.reg (SB.op SB.rl))      {t = t} ar ri c = regc {t = t} (O.A-crash (Sp.reg Sp.rl) ar ri c)
    A-crash′ (SB.reg (SB.op SB.es))      {t = t} ar ri c = regc {t = t} (O.A-crash (Sp.reg Sp.es) ar ri c)
    A-crash′ (SB.reg SB.barrier) {t = t} ar ri c with O.A-crash Sp.flush ar ri c
    ... | u' , y , cr = fb {t = t} u' y cr
      where
        fb : ∀ {s' t} (u' : Sp.State) → Sp._─fᶜ→_ (at t (lastA (SB.stable t) (SB.pend t))) u' → O.CR s' u' →
             Σ SB.State λ t' → SB._─fbᶜ→_ t t' × CR′ s' t'
        fb u' (inj₁ e) cr = fromS [] u' , inj₂ (e , refl) , Sp.stable u' , here refl , cr
        fb {s'} {t} u' (inj₂ e) cr =
          SB.⟨ Sp.volatile u' , SB.stable t , SB.pend t ++ SB.volatile t ∷ [] , Sp.wcnt u' ⟩ , inj₁ (refl , refl) ,
          lastA (SB.stable t) (SB.pend t) , SB.∈-++ˡ (SB.stable t ∷ SB.pend t) (lastA-∈ (SB.stable t) (SB.pend t)) ,
          subst (O.CR s') (re u' e) cr
    A-crash′ (SB.reg (SB.op SB.sy)) ar ri ()
    A-crash′ SB.flush {t = t} ar ri c with O.A-crash Sp.flush ar ri c
    ... | u' , y , cr = fb {t = t} u' y cr
      where
        fb : ∀ {s' t} (u' : Sp.State) → Sp._─fᶜ→_ (at t (lastA (SB.stable t) (SB.pend t))) u' → O.CR s' u' →
             Σ SB.State λ t' → SB._─fbᶜ→_ t t' × CR′ s' t'
        fb u' (inj₁ e) cr = fromS [] u' , inj₂ (e , refl) , Sp.stable u' , here refl , cr
        fb {s'} {t} u' (inj₂ e) cr =
          SB.⟨ Sp.volatile u' , SB.stable t , SB.pend t ++ SB.volatile t ∷ [] , Sp.wcnt u' ⟩ , inj₁ (refl , refl) ,
          lastA (SB.stable t) (SB.pend t) , SB.∈-++ˡ (SB.stable t ∷ SB.pend t) (lastA-∈ (SB.stable t) (SB.pend t)) ,
          subst (O.CR s') (re u' e) cr

    A-rec′ : ∀ {s t s'} → CR′ s t → O.CI s → Q.ok Sp.recover s s' →
             Σ SB.State λ t' → SB.okSB SB.recover t t' × AR′ s' t'
    A-rec′ (x , m , cr) ci r with O.A-rec cr ci r
    ... | u' , (v , st , wc) , ar' = fromS [] u' , (x , m , v , st , refl , wc) , ar'

    A-recᶜ′ : ∀ {s t s'} → CR′ s t → O.CI s → Q.crash Sp.recover s s' →
              Σ SB.State λ t' → SB.crashSB SB.recover t t' × CR′ s' t'
    A-recᶜ′ {t = t} {s' = s'} (x , m , cr) ci c with O.A-recᶜ cr ci c
    ... | u' , e , cr' = keep t u' , inj₁ (refl , refl) , x , m , subst (O.CR s') (re u' e) cr'

    B-ok′ : ∀ u {s s'} → O.RI s → SB.Model.ok (liftB Q) (SB.use u) s s' → O.RI s'
    B-ok′ (SB.reg (SB.op SB.sy)) ri ()
    B-ok′ (SB.reg (SB.op (SB.w a d))) = O.B-ok (Sp.reg (Sp.w a d))
    B-ok′ (SB.reg (SB.op SB.rl)) = O.B-ok (Sp.reg Sp.rl)
    B-ok′ (SB.reg (SB.op SB.es)) = O.B-ok (Sp.reg Sp.es)
    B-ok′ (SB.reg SB.barrier) = O.B-ok Sp.flush
    B-ok′ SB.flush = O.B-ok Sp.flush

    B-crash′ : ∀ u {s s'} → O.RI s → SB.Model.crash (liftB Q) (SB.use u) s s' → O.CI s'
    B-crash′ (SB.reg (SB.op SB.sy)) ri ()
    B-crash′ (SB.reg (SB.op (SB.w a d))) = O.B-crash (Sp.reg (Sp.w a d))
    B-crash′ (SB.reg (SB.op SB.rl)) = O.B-crash (Sp.reg Sp.rl)
    B-crash′ (SB.reg (SB.op SB.es)) = O.B-crash (Sp.reg Sp.es)
    B-crash′ (SB.reg SB.barrier) = O.B-crash Sp.flush
    B-crash′ SB.flush = O.B-crash Sp.flush

  obligations : Obligations
  obligations = record
    { AR = AR′ ; CR = CR′ ; RI = O.RI ; CI = O.CI
    ; AR⇒≈ = O.AR⇒≈
    ; init-CR = λ {_} {t} n n′ → SB.stable t , here refl , O.init-CR n (proj₁ n′)
    ; init-CI = O.init-CI
    ; A-ok = A-ok′ ; A-crash = A-crash′ ; A-rec = A-rec′ ; A-recᶜ = A-recᶜ′
    ; B-ok = B-ok′ ; B-crash = B-crash′
    ; B-rec = O.B-rec ; B-recᶜ = O.B-recᶜ
    }

------------------------------------------------------------------------
-- P with the durable barrier

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (P)
import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ as T

PD : SB.Model
PD = liftB P

obligationsD : SB.ForwardSimulation.Obligations PD SB.SB
obligationsD = Lift.obligations P T.obligations

theorem1-PD : SB.CorrespondenceB.BehaviourallyCorrect PD SB.SB
theorem1-PD = SB.theorem1-SB PD obligationsD

PD-snapshot-consistent : SB.SnapshotConsistentB PD
PD-snapshot-consistent = SB.obligations⇒SCB PD obligationsD

-- PD's barrier steps and crashes are P's flush's
barrier-ok : ∀ {s s'} → SB.Model.ok PD (SB.use (SB.reg SB.barrier)) s s' ≡ Sp.Model.ok P (Sp.use Sp.flush) s s'
barrier-ok = refl

barrier-crashes : ∀ {s s'} → SB.Model.crash PD (SB.use (SB.reg SB.barrier)) s s' ≡ Sp.Model.crash P (Sp.use Sp.flush) s s'
barrier-crashes = refl

-- crash points: a crash after any single flash command of the barrier
-- (the flush's commands) recovers as one of PD's crashed barriers does
import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_ as CP
open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; Img)

barrier-command-crashes-covered : ∀ {s x s'} → CP.CmdCrash (Sp.use Sp.flush) s x → Img x s' →
  Σ St λ s'' → SB.Model.crash PD (SB.use (SB.reg SB.barrier)) s s'' × CP.SameRec s' s''
barrier-command-crashes-covered = CP.command-crashes-covered (Sp.use Sp.flush)

------------------------------------------------------------------------
-- The same for the block-level model B (blocks of zb pages): B with the
-- durable barrier, against SB, snapshot-consistent in the SC1B sense

module BlocksD (zb : ℕ) where
  import SCFTL.Impl.Blocks Data d0 amax wmax kmax _≟D_ zb as Bl

  BD : SB.Model
  BD = liftB Bl.B

  obligationsBD : SB.ForwardSimulation.Obligations BD SB.SB
  obligationsBD = Lift.obligations Bl.B Bl.obligationsB

  BD-snapshot-consistent : SB.SnapshotConsistentB BD
  BD-snapshot-consistent = SB.obligations⇒SCB BD obligationsBD
