{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the block layer over the one model PX with the physical read
-- as the read — Theorem 1 and snapshot consistency, no lemma left.
--
-- SCFTL.Impl.OneModelBlocksPhys proved them given `RecoveredLocated`,
-- SCFTL.Impl.OneModelBlocksNamed reduced that to `RecoveredNamed`
-- (recovery names only pages the crashed run's last normal state named),
-- and SCFTL.Impl.OneModelRecMaps proves `RecoveredNamed` for every crash
-- point of every operation of PX, in either phase, followed by any number
-- of crashed recoveries (`recovered-named-all`).  Here:
--
--   recovered-located-all           `RecoveredLocated`
--   theorem1-BXφ-full               Theorem 1 for BXφ (blocks over PX,
--                                   reads through the physical pages)
--   BXφ-snapshot-consistent-full    SC1B for BXφ
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelBlocksFull (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                     (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import SCFTL.Impl.OneModelBlocksPhys Data d0 amax wmax kmax umax _≟D_ kc zb using (BXφ; RecoveredLocated)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb
  using (recovered-located; theorem1-BXφ′; BXφ-snapshot-consistent′)
open import SCFTL.Impl.OneModelRecMaps Data d0 amax wmax kmax umax _≟D_ kc zb using (recovered-named-all)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

recovered-located-all : RecoveredLocated
recovered-located-all = recovered-located recovered-named-all

theorem1-BXφ-full : SB.CorrespondenceB.BehaviourallyCorrect BXφ SB.SB
theorem1-BXφ-full = theorem1-BXφ′ recovered-named-all

BXφ-snapshot-consistent-full : SB.SnapshotConsistentB BXφ
BXφ-snapshot-consistent-full = BXφ-snapshot-consistent′ recovered-named-all
