{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: Theorem 1 for PL, the P-level model of the lazy
-- consolidation chain, with no hypothesis left.
--
-- `SCFTL.Impl.LazyChainObligations` assembles every obligation of
-- Theorem 1 for PL but one crash point, stated as `LandedOK`: the lazy
-- commit's crash point before its SYNC, with the crashed record taken by
-- recovery's walk over a nonempty chain.  `SCFTL.Impl.LazyChainCrashLazy`
-- proves that crash point in `CRL` for a chain of any length
-- (`pl-fi2-landed`).  `landed-ok` fits the one to the other, so
-- `theorem1-PL` and `PL-snapshot-consistent` hold unconditionally.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainTheorem (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                   (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Product using (_,_)

open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (PL)
open import SCFTL.Impl.LazyChainCrashLazy Data d0 amax wmax kmax _≟D_ kc using (pl-fi2-landed)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc
  using (LandedOK; theorem1-PL-if; PL-snapshot-consistent-if)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (S; SnapshotConsistent)

-- `landed-ok`: the crash point `LandedOK` states, proven (the chain's
-- newest record without tentative pages and the chain nonempty are not
-- needed: `pl-fi2-landed` holds for any chain)
landed-ok : LandedOK
landed-ok {s} {t} {s'} {M} ph _ r _ _ lz img wk (t' , c , cm) =
  t' , c , pl-fi2-landed {s} {s'} {M} {t'} ph r lz img wk cm

-- Theorem 1 for PL: every behaviour of PL is one of S's
theorem1-PL : Sp.Correspondence.BehaviourallyCorrect PL S
theorem1-PL = theorem1-PL-if landed-ok

-- PL is snapshot-consistent
PL-snapshot-consistent : SnapshotConsistent PL
PL-snapshot-consistent = PL-snapshot-consistent-if landed-ok
