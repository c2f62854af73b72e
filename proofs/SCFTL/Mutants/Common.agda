{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Shared setting of the mutants of P (issue 39): the instance of the
-- model P they all mutate, a new disk, and the crash outcome "every
-- pending program and erase landed".
--
-- Instance (as SCFTL.Impl.Example): Data = Bool, d0 = false, two logical
-- sectors (amax = 1), wmax = 2, kmax = 0 (one relocation per epoch), and
-- Bool's decidable equality for the digest check.
-- This module defines no mutant; check.sh exempts it (with All) from the
-- `not-snapshot-consistent` rule.
------------------------------------------------------------------------
module SCFTL.Mutants.Common where

open import Data.Nat.Base using (ℕ)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (nothing)
open import Data.Product using (_,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

A W K : ℕ
A = 1   -- amax
W = 2   -- wmax
K = 0   -- kmax

open import SCFTL.Impl.Model Bool false A W K _≟B_ public
import SCFTL.Spec Bool false A W as Sp
open Sp public
  using ( Model; SnapshotConsistent; module Fragments; Obs; SC1; Label; okL; crashL
        ; UOp; Op; use; recover; flush; RegOp; w; rl; es
        ; Shape1; shape1; ShapeM; shapeM )
  renaming (reg to regop)

-- A freshly formatted disk (the state SCFTL.Impl.Example starts from).
s0 : St
s0 = record
  { dat = λ _ → syn erased ; cpL = syn (cpt 0 unmapped) ; cpO = syn erased ; dr = [] ; rcd = λ _ → syn erased
  ; gen = 0 ; l2p = unmapped ; mb = λ _ → nothing ; dbuf = [] ; ept = [] ; nxt = 0
  ; inv = λ _ → false ; ers = λ _ → false ; wcnt = 0 ; gcnt = 0 ; smap = unmapped ; ep = 0 ; lnk = nothing }

new-s0 : NewP s0
new-s0 = refl , refl , refl , (λ p → refl)

-- Crash outcomes where a page lands on its new content.
land-D : ∀ x → CrashD x (sync x)
land-D (syn c)   = refl
land-D (uns o n) = n , refl

land-C : ∀ x → CrashC x (sync x)
land-C (syn c)   = refl
land-C (uns o n) = inj₂ (inj₁ refl)

land-L : ∀ xs → CrashL xs (map sync xs)
land-L []       = []
land-L (x ∷ xs) = land-C x ∷ land-L xs

-- Every pending program and erase landed.
img-sync : ∀ m → Img m (syncAll m)
img-sync m = (λ p → land-D (dat m p)) , land-C (cpL m) , land-C (cpO m) , land-L (dr m) , (λ p → land-C (rcd m p))
