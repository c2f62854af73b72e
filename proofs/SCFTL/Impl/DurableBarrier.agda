{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P, second step: P over the operations WITH a
-- barrier (RB), the barrier being the DURABLE one (the code's barrier
-- when MAX_UNSYNCED_EPOCHS earlier epochs are unsynced, flush.rs
-- `flush_begin`: kind 2, one SYNC — P's flush, every one of its
-- commits and crash points), proven against the spec with barriers SB
-- in the SC1B sense:
--
--   lift          any model Q over S's operations becomes a model over RB
--                 whose barrier is Q's flush (`liftB`), and obligations
--                 of Q against S become obligations of it against SB
--                 with umax = 0 (every barrier syncs)
--   PD            P with that barrier
--   obligationsD  : ForwardSimulation.Obligations PD SB₀
--   theorem1-PD   : Correspondence.BehaviourallyCorrect PD SB₀   (Theorem 1)
--   PD-snapshot-consistent : SnapshotConsistentB PD              (SC1B)
--   barrier-crashes  PD's crashed barrier is P's crashed flush, so
--                 `command-crashes-covered` covers it:
--   barrier-command-crashes-covered
--
-- AR(s,t): P's AR against S's state of t (volatile, stable, wcnt) and
-- nothing pending; CR(s,t): P's CR against it (a crashed barrier that
-- did not commit leaves its image pending in SB, which the recovery
-- after it drops, choosing the stable image, as P's does).
--
-- What this is NOT: the barrier without SYNC (several unsynced epochs,
-- SB with umax = 3).  P's recovery checks only the newest committed
-- page, which is unsound for it (mutant 24, `BarrierNewestOnly`);
-- `SCFTL.Impl.UnsyncedEpochs` has the recovery check that is needed.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.DurableBarrier (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                 (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (z≤n)
open import Data.List.Base using (List; []; _∷_; _++_)
open import Data.List.Relation.Unary.Any using (here)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; subst)

import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.SpecBarrier Data d0 amax wmax 0 as SB

------------------------------------------------------------------------
-- The operations with a barrier, read as S's (a barrier is a flush)

opS : SB.RegOp → Sp.RegOp
opS (SB.w a d) = Sp.w a d
opS SB.rl      = Sp.rl
opS SB.es      = Sp.es

uS : SB.UOp → Sp.UOp
uS (SB.reg (SB.op x))  = Sp.reg (opS x)
uS (SB.reg SB.barrier) = Sp.flush
uS SB.flush            = Sp.flush

oS : SB.Op → Sp.Op
oS (SB.use u)  = Sp.use (uS u)
oS SB.recover  = Sp.recover

liftB : Sp.Model → SB.Model
liftB Q = record { State = Q.State ; New = Q.New ; read = Q.read
                 ; ok = λ o → Q.ok (oS o) ; crash = λ o → Q.crash (oS o) }
  where module Q = Sp.Model Q

-- SB's state as S's (pending snapshots dropped), and back
toS : SB.State → Sp.State
toS t = Sp.⟨ SB.volatile t , SB.stable t , SB.wcnt t ⟩

fromS : List SB.Arr → Sp.State → SB.State
fromS p u = SB.⟨ Sp.volatile u , Sp.stable u , p , Sp.wcnt u ⟩

------------------------------------------------------------------------
-- Obligations against S become obligations against SB (umax = 0)

module Lift (Q : Sp.Model) (O : Sp.ForwardSimulation.Obligations Q Sp.S) where
  private
    module Q = Sp.Model Q
    module O = Sp.ForwardSimulation.Obligations O
  open SB.ForwardSimulation (liftB Q) SB.SB using (Obligations)

  AR′ : Q.State → SB.State → Set
  AR′ s t = O.AR s (toS t) × SB.pend t ≡ []

  CR′ : Q.State → SB.State → Set
  CR′ s t = O.CR s (toS t)

  private
    A-ok′ : ∀ u {s t s'} → AR′ s t → O.RI s → Q.ok (Sp.use (uS u)) s s' →
            Σ SB.State λ t' → SB.okSB (SB.use u) t t' × AR′ s' t'
    A-ok′ (SB.reg (SB.op (SB.w a d))) {t = t} (ar , ep) ri x with O.A-ok (Sp.reg (Sp.w a d)) ar ri x
    ... | u' , inj₁ (ib , v , st , wc) , ar' = fromS [] u' , inj₁ (ib , v , st , sym ep , wc) , ar' , refl
    ... | u' , inj₂ (nib , e) , ar' = t , inj₂ (nib , refl) , subst (λ z → O.AR _ z) e ar' , ep
    A-ok′ (SB.reg (SB.op SB.rl)) {t = t} (ar , ep) ri x with O.A-ok (Sp.reg Sp.rl) ar ri x
    ... | u' , e , ar' = t , refl , subst (λ z → O.AR _ z) e ar' , ep
    A-ok′ (SB.reg (SB.op SB.es)) {t = t} (ar , ep) ri x with O.A-ok (Sp.reg Sp.es) ar ri x
    ... | u' , e , ar' = t , refl , subst (λ z → O.AR _ z) e ar' , ep
    A-ok′ (SB.reg SB.barrier) (ar , ep) ri x with O.A-ok Sp.flush ar ri x
    ... | u' , (v , st , wc) , ar' = fromS [] u' , (v , wc , inj₂ (z≤n , st , refl)) , ar' , refl
    A-ok′ SB.flush (ar , ep) ri x with O.A-ok Sp.flush ar ri x
    ... | u' , (v , st , wc) , ar' = fromS [] u' , (v , st , refl , wc) , ar' , refl

    -- a crashed flush or barrier: durable, or its image left pending
    fb : ∀ {s' t} (u' : Sp.State) → Sp._─fᶜ→_ (toS t) u' → O.CR s' u' →
         Σ SB.State λ t' → SB._─fbᶜ→_ t t' × CR′ s' t'
    fb {t = t} u' (inj₁ e) cr = fromS [] u' , inj₂ (e , refl) , cr
    fb {t = t} u' (inj₂ e) cr = fromS (SB.pend t ++ SB.volatile t ∷ []) u' , inj₁ (e , refl) , cr

    A-crash′ : ∀ u {s t s'} → AR′ s t → O.RI s → Q.crash (Sp.use (uS u)) s s' →
               Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CR′ s' t'
    A-crash′ (SB.reg (SB.op x)) {t = t} (ar , ep) ri c with O.A-crash (Sp.reg (opS x)) ar ri c
    A-crash′ (SB.reg (SB.op (SB.w a d))) {t = t} (ar , ep) ri c | u' , e , cr = fromS (SB.pend t) u' , (e , refl) , cr
    A-crash′ (SB.reg (SB.op SB.rl))      {t = t} (ar , ep) ri c | u' , e , cr = fromS (SB.pend t) u' , (e , refl) , cr
    A-crash′ (SB.reg (SB.op SB.es))      {t = t} (ar , ep) ri c | u' , e , cr = fromS (SB.pend t) u' , (e , refl) , cr
    A-crash′ (SB.reg SB.barrier) {t = t} (ar , ep) ri c with O.A-crash Sp.flush ar ri c
    ... | u' , y , cr = fb {t = t} u' y cr
    A-crash′ SB.flush {t = t} (ar , ep) ri c with O.A-crash Sp.flush ar ri c
    ... | u' , y , cr = fb {t = t} u' y cr

    A-rec′ : ∀ {s t s'} → CR′ s t → O.CI s → Q.ok Sp.recover s s' →
             Σ SB.State λ t' → SB.okSB SB.recover t t' × AR′ s' t'
    A-rec′ {t = t} cr ci r with O.A-rec cr ci r
    ... | u' , (v , st , wc) , ar' =
      fromS [] u' , (SB.stable t , here refl , v , st , refl , wc) , ar' , refl

    A-recᶜ′ : ∀ {s t s'} → CR′ s t → O.CI s → Q.crash Sp.recover s s' →
              Σ SB.State λ t' → SB.crashSB SB.recover t t' × CR′ s' t'
    A-recᶜ′ {t = t} cr ci c with O.A-recᶜ cr ci c
    ... | u' , e , cr' = fromS (SB.pend t) u' , inj₁ (e , refl) , cr'

  obligations : Obligations
  obligations = record
    { AR = AR′ ; CR = CR′ ; RI = O.RI ; CI = O.CI
    ; AR⇒≈ = λ ar → O.AR⇒≈ (proj₁ ar)
    ; init-CR = λ n n′ → O.init-CR n (proj₁ n′)
    ; init-CI = O.init-CI
    ; A-ok = A-ok′ ; A-crash = A-crash′ ; A-rec = A-rec′ ; A-recᶜ = A-recᶜ′
    ; B-ok = λ u → O.B-ok (uS u) ; B-crash = λ u → O.B-crash (uS u)
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
