{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the operations with a barrier (SB) read as the operations of
-- the spec without one (S): a barrier is a flush.  Split out of
-- SCFTL.Impl.DurableBarrier, which uses them to lift models of S to SB,
-- so that the models with unsynced barriers (SCFTL.Impl.Unsynced*), which
-- need only these renamings, do not import DurableBarrier and, through
-- it, P's Theorem 1 and its crash points (a shorter chain of imports for
-- check.sh's parallel check; proofs/README.md, "Timing").
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)

module SCFTL.Impl.BarrierOps (Data : Set) (d0 : Data) (amax wmax umax : ℕ) where

open import Data.List.Base using (List)

import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

opS : SB.RegOp → Sp.RegOp
opS (SB.w a d) = Sp.w a d
opS SB.rl      = Sp.rl
opS SB.es      = Sp.es
opS SB.sy      = Sp.rl   -- never taken: a lifted model has no `sy` step (DurableBarrier.liftB)

uS : SB.UOp → Sp.UOp
uS (SB.reg (SB.op x))  = Sp.reg (opS x)
uS (SB.reg SB.barrier) = Sp.flush
uS SB.flush            = Sp.flush

oS : SB.Op → Sp.Op
oS (SB.use u)  = Sp.use (uS u)
oS SB.recover  = Sp.recover

-- SB's state as S's (pending snapshots dropped), and back
toS : SB.State → Sp.State
toS t = Sp.⟨ SB.volatile t , SB.stable t , SB.wcnt t ⟩

fromS : List SB.Arr → Sp.State → SB.State
fromS p u = SB.⟨ Sp.volatile u , Sp.stable u , p , Sp.wcnt u ⟩
