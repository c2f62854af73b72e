{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: a concrete run of PUSB's partial SYNC (the
-- sync behind whose ticket proves only the oldest epochs; SCFTL.Impl.
-- UnsyncedSyncBehind), evaluated: the step is not vacuous for a ticket
-- that proves an epoch while a later one stays unsynced.
--
-- From format and recovery (two sectors, Bool data):
--   w(0,true) to page 0; barrier (epoch 1, no SYNC: page 0 programmed,
--   its link page 1); w(1,true) to page 1; barrier (epoch 2, no SYNC);
--   the SYNC of a ticket taken between the two barriers: it proves
--   epoch 1 only (`syB (e₁ ∷ []) (e₂ ∷ []) l none`, l landing page 0,
--   below epoch 1's link, as the guard `Land` asks), a step of PUSB
--   (`step`).
-- After it epoch 2 is still unsynced (`after`: one unsynced epoch, the
-- stable L2P epoch 1's, page 0 durable, page 1 not).
------------------------------------------------------------------------
module SCFTL.Impl.UnsyncedSyncBehindExample where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; length)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Unit.Base using (tt)
import Data.Empty
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.Lemmas Bool false A W K _≟B_ using (IsSyn)
open import SCFTL.Impl.UnsyncedEpochsCrash Bool false A W K _≟B_ using (E)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (⟪_,_⟫; st; ues; flB; epE; Syn)
open import SCFTL.Impl.UnsyncedImages Bool false A W K 3 _≟B_ using (lastMap)
open import SCFTL.Impl.UnsyncedSync Bool false A W K 3 _≟B_ using (lastLnk)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (SU; ⟦_,_⟧; su; ghostN)
open import SCFTL.Impl.UnsyncedSyncBehind Bool false A W K 3 _≟B_ using (syBU; okB)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (use; reg; op; sy)

s1 s2 s3 s4 s5 : St
s1 = recU true 0 unmapped [] [] s0   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = flB s2                          -- barrier: epoch 1, no SYNC
s4 = wr0 1 true s3                   -- w(1,true) to page 1
s5 = flB s4                          -- barrier: epoch 2, no SYNC

e₁ e₂ : E
e₁ = epE s2
e₂ = epE s4

-- the data pages the ticket's SYNC lands: page 0 (epoch 1's)
l : ℕ → Bool
l zero    = true
l (suc _) = false

none : ℕ → Bool
none _ = false

S5 S6 : SU
S5 = ⟦ ⟪ s5 , e₁ ∷ e₂ ∷ [] ⟫ , ghostN ⟪ s5 , e₁ ∷ e₂ ∷ [] ⟫ ⟧
S6 = ⟦ syBU (e₁ ∷ []) (e₂ ∷ []) l none ⟪ s5 , e₁ ∷ e₂ ∷ [] ⟫ ,
       ghostN (syBU (e₁ ∷ []) (e₂ ∷ []) l none ⟪ s5 , e₁ ∷ e₂ ∷ [] ⟫) ⟧

-- the SYNC that proves epoch 1 only is a step of PUSB: the guards hold
step : okB (use (reg (op sy))) S5 S6
step = inj₂ (e₁ ∷ [] , e₂ ∷ [] , l , none , refl , (stable-landed , below-link) , (λ p ()) , refl , refl)
  where
    -- epoch 1's map names page 0 only, which l lands
    stable-landed : ∀ a p → a ≤ A → lastMap (smap s5) (e₁ ∷ []) a ≡ just p → l p ≡ true ⊎ Syn (dat s5 p)
    stable-landed zero          .0 _ refl = inj₁ refl
    stable-landed (suc zero)    p  _ ()
    stable-landed (suc (suc a)) p  (s≤s ()) _
    -- page 0 lies below epoch 1's link (page 1)
    below-link : ∀ p → l p ≡ true → Σ ℕ λ L → lastLnk (e₁ ∷ []) nothing ≡ just L × p < L
    below-link zero    refl = 1 , refl , s≤s z≤n
    below-link (suc p) ()

-- after it: epoch 2 unsynced, epoch 1's map stable, page 0 durable, page 1 not
after : ues (su S6) ≡ e₂ ∷ [] × smap (st (su S6)) 0 ≡ just 0 × smap (st (su S6)) 1 ≡ nothing
        × IsSyn (dat (st (su S6)) 0) × (IsSyn (dat (st (su S6)) 1) → Data.Empty.⊥)
after = refl , refl , refl , tt , λ ()
