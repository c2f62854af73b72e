{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: where PUSBic and PL's chain phase meet.
--
-- The code runs lazy commits only with no epoch unsynced, and puts the
-- chain's consolidation page before the next region page: before a
-- barrier's committed page too (the Rust oracle: `fl_b` runs `kons_s`
-- first).  So a run is a sequence of PUSBic's steps and PLD's steps
-- (SCFTL.Impl.LazyChainBarrier: PL over SB's operations), switching
--
--   * from PUSBic to PL at a state with no epoch unsynced (`up→L`):
--     PUSBic's abstraction relation ARX and the bridge's invariant RIy
--     give PLD's (Lift's AR′ of P's AR, against SB's state, whose
--     pending list is then empty) and PL's invariant RIL (P's RI, by
--     the forward bridge `ri-X`);
--   * from PL to PUSBic through the consolidation step (`L→up`): PLD's
--     AR′ and RIL, with nothing pending in SB's state (PL's steps in the
--     chain phase pend nothing: only a barrier without SYNC does, which
--     is PUSBic's step), give ARX and RIy of the consolidated state
--     with no epoch unsynced and any ghost (PL's `kons-S-RI`: P's RI
--     after the consolidation page, or the state itself where the chain
--     is empty; then the bridge back, SCFTL.Impl.UnsyncedBridgeBack).
--
-- The one model PX (SCFTL.Impl.OneModel) takes its obligations by cases
-- on the phase and these switches where a step changes it.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelSwitch (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                 (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (zero; suc)
open import Data.List.Base using (List; []; _∷_; length)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; ar)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; Gh)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (ARX)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_ using (RIy)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX; ri-X)
open import SCFTL.Impl.UnsyncedBridgeBack Data d0 amax wmax kmax umax _≟D_ using (arx-of-ri; riy-of-ri; inv-of-ri)
open import SCFTL.Impl.DurableBarrier Data d0 amax wmax kmax umax _≟D_ using (module Lift)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (PL; konsS)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL; obligations-PL)
open import SCFTL.Impl.LazyChainTheorem Data d0 amax wmax kmax _≟D_ kc using (landed-ok)
open import SCFTL.Impl.LazyChainKonsErase Data d0 amax wmax kmax _≟D_ kc using (kons-RIL)
import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

-- PLD's abstraction relation (DurableBarrier's Lift of PL's obligations)
module LL = Lift PL (obligations-PL landed-ok)

LAR : St → SB.State → Set
LAR = LL.AR′

private
  len0 : ∀ {A : Set} (xs : List A) → 0 ≡ length xs → xs ≡ []
  len0 []       _  = refl
  len0 (_ ∷ _)  ()

------------------------------------------------------------------------
-- From PUSBic to PL, at no epoch unsynced

-- SB's state of a PUSBic state with no epoch unsynced pends nothing
pend-nil : ∀ {s g t} → ARX ⟦ ⟪ s , [] ⟫ , g ⟧ t → SB.pend t ≡ []
pend-nil (((((((_ , _ , n) , _) , _) , _) , _) , _) , _) = len0 _ n

up→L : ∀ {s g v x p w} (a : ARX ⟦ ⟪ s , [] ⟫ , g ⟧ SB.⟨ v , x , p , w ⟩) → RIy (ivX {⟦ ⟪ s , [] ⟫ , g ⟧} a) →
       LAR s SB.⟨ v , x , p , w ⟩ × RIL s
up→L {s} {g} {v} {x} {p} {w} a y with pend-nil {s} {g} {SB.⟨ v , x , p , w ⟩} a
up→L {s} {g} {v} {x} {.[]} {w} a@(((((((vo , c , _) , sa) , _) , _) , _) , _) , _) y | refl =
  ar vo sa c , inj₁ (ri-X (ivX {⟦ ⟪ s , [] ⟫ , g ⟧} a) y)

------------------------------------------------------------------------
-- From PL to PUSBic, through the consolidation step

-- PL's invariant gives P's RI and AR after the consolidation step (the
-- state itself where no chain is open): LazyChainKonsErase's `kons-RIL`

L→up : ∀ {s v x w} (g : Gh) → LAR s SB.⟨ v , x , [] , w ⟩ → RIL s →
       Σ (ARX ⟦ ⟪ konsS s , [] ⟫ , g ⟧ SB.⟨ v , x , [] , w ⟩) λ a → RIy (ivX {⟦ ⟪ konsS s , [] ⟫ , g ⟧} a)
L→up {s} g a r =
  arx-of-ri g (proj₂ k) (proj₁ k) , riy-of-ri (proj₂ k) (proj₁ k)
  where
    k = kons-RIL a r
