{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: crash relations that leave P's two checkpoint cells free.
--
-- Every crash relation of our models reaches the flash through P's
-- `Img x z` at some crash point x (z: the flash after every unsynced
-- page settled), with conditions on the rest (the ghost, the phase, the
-- block bookkeeping) that do not read the checkpoint cells of z.  Then
-- the same crash with the two cells replaced by any other crash outcomes
-- of x's cells is a crash too: the relation is `FreeOn` the cells.
-- SCFTL.Impl.SlotOver needs this of a model to show that every crash
-- outcome of the code's multi-page slots is a crash of its slot layer
-- (`lift-crash`); SCFTL.Impl.OneModelCellFree proves it for the one
-- model with blocks (BXφ).
--
--   With z c1 c2     z with its live cell `syn c1` and other cell `syn c2`
--   img-with         an image of x stays one with the cells replaced by
--                    crash outcomes of x's cells
--   FreeOn, FreeM    the property, for a relation and for every crash
--                    relation of an SB model (given how to set the cells
--                    of its states)
--   free-Σ           a relation `Σ m. Q m × Img m z` is free
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.CellFree (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ) (_≟D_ : DecidableEquality Data) where

open import Data.Product using (Σ; _×_; _,_)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; Cell; syn; cpL; cpO; CrashC; Img)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

With : St → Cell → Cell → St
With z cL cO = record z { cpL = syn cL ; cpO = syn cO }

img-with : ∀ x z c1 c2 → Img x z → CrashC (cpL x) (syn c1) → CrashC (cpO x) (syn c2) → Img x (With z c1 c2)
img-with x z c1 c2 (d , _ , _ , r , k) e1 e2 = d , e1 , e2 , r , k

-- a crash relation whose outcomes are images of a point x, and stay
-- outcomes with the cells replaced by any crash outcomes of x's cells
FreeOn : {A : Set} → (A → St) → (A → Cell → Cell → A) → (A → A → Set) → Set
FreeOn stOf set R = ∀ {X X'} → R X X' → Σ St λ x → Img x (stOf X') ×
  ∀ c1 c2 → CrashC (cpL x) (syn c1) → CrashC (cpO x) (syn c2) → R X (set X' c1 c2)

FreeM : (M : SB.Model) → (SB.Model.State M → St) → (SB.Model.State M → Cell → Cell → SB.Model.State M) → Set
FreeM M stOf set = ∀ o → FreeOn stOf set (SB.Model.crash M o)

-- the common shape: some point m with a property, and an image of it
free-Σ : ∀ {Q : St → Set} z → (Σ St λ m → Q m × Img m z) → Σ St λ x → Img x z ×
  ∀ c1 c2 → CrashC (cpL x) (syn c1) → CrashC (cpO x) (syn c2) → Σ St λ m → Q m × Img m (With z c1 c2)
free-Σ z (m , q , i) = m , i , λ c1 c2 e1 e2 → m , q , img-with m z c1 c2 i e1 e2
