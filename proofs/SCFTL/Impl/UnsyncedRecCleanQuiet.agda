{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: why PU's recovery without the checkpoint asks `Quiet`
-- (SCFTL.Impl.UnsyncedSyncInPage's `RecC`), by a concrete run.
--
-- In the run of SCFTL.Impl.UnsyncedSyncExample, right after the SYNC
-- (`s5`: epoch 1 durable, the link at page 1), the in-page commit's
-- batch (`fi2 1 s5`: the merge buffer's page 1 and the record in page
-- 1's slot, not yet synced) is cut by a crash that keeps the record and
-- loses the data page.  Recovery accepts the region (no epoch unsynced:
-- `Clean`) and, without a checkpoint, leaves the record of its own
-- generation at page 1, which is its new active pointer: P's RI (`rcN`)
-- fails there, so the state cannot be where P's chain phase starts.
-- `Quiet` is what rules it out (`not-quiet`): with it, recovery writes
-- a full checkpoint, a new generation.
------------------------------------------------------------------------
module SCFTL.Impl.UnsyncedRecCleanQuiet where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Nat.Properties using (<-irrefl)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; img-sync)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.UnsyncedRecCrash Bool false A W K 3 _≟B_ using (recR)
open import SCFTL.Impl.UnsyncedRecClean Bool false A W K 3 _≟B_ using (Clean)
open import SCFTL.Impl.UnsyncedSyncExample using (s5)

-- the batch of the in-page commit at page 1
x : St
x = fi2 1 s5

-- a crash of it: the record durable, data page 1 lost, the rest as it was
c : St
c = record x { dat = λ p → dat′ p ; cpL = sync (cpL x) ; cpO = sync (cpO x) ; dr = map sync (dr x) ; rcd = λ p → sync (rcd x p) }
  where
    dat′ : ℕ → MC
    dat′ (suc zero) = syn erased
    dat′ p          = sync (dat x p)

crash : Img x c
crash = dd , proj₂ (img-sync x)
  where
    dd : ∀ p → CrashD (dat x p) (dat c p)
    dd zero          = proj₁ (img-sync x) zero
    dd (suc zero)    = erased , refl
    dd (suc (suc p)) = proj₁ (img-sync x) (suc (suc p))

-- recovery picks generation 1's checkpoint, accepts the region (no
-- epoch unsynced), and without a checkpoint goes on from page 1
picked : pick (cur (cpL c)) (cur (cpO c)) ≡ just (true , 1 , unmapped)
picked = refl

accepts : Clean 1 unmapped (map cur (dr c)) [] c
accepts = refl

r : St
r = recR true 1 unmapped (map cur (dr c)) [] c

at-1 : nxt r ≡ 1
at-1 = refl

-- the record of generation 1 at page 1, at the active pointer: P's RI
-- (`rcN`) fails
no-rcN : ¬ (∀ p → nxt r ≤ p → RLt (gen r) (cur (rcd r p)))
no-rcN h = <-irrefl refl (h 1 (s≤s z≤n))

-- and `Quiet` fails of the crashed state: RecC, which asks it, does not
-- take this recovery (a full checkpoint does)
not-quiet : ¬ Quiet 1 c
not-quiet q = <-irrefl refl (proj₂ q 1 (s≤s z≤n))
