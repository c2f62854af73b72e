{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 48 (issue 39): the data-superblock layer of the one model
-- (SCFTL.Impl.SpaceLayer) without GC's timing: writes, epoch barriers
-- and flushes go on whether or not GC is needed (gc.rs `gc_needed`
-- ignored: the layer's timing `λ _ _ → ⊤` for `Sp.NotNeeded c`).  The
-- block layer, P and every other guard are unchanged.
--
-- Mutant of the layer, not of P (check.sh: MUTANTS_OF_LAYER):
-- `Pmut : LayerPolicy` and `not-layer-progress : ¬ LayerProgress Pmut`,
-- by a configuration that passes the code's constraints (`valid`) with
-- the model's geometry, a new disk, its first recovery, and a run of the
-- mutated layer to a state where a wanted write finds no block.
--
-- The instance: one logical sector (amax = 0), one write per epoch
-- (wmax = 0), blocks of one page (Z = 1), four unsynced epochs at most
-- (umax = 4).  The configuration: W = 1, K = 1, U = 2, L = 1 (N = 0),
-- S = 1, P = 4, no padding, one pair per delta page, D = 4: (1) 1 <= 1,
-- (2) 2 + 1 + 1 <= 4, (3) 1 + 0 <= 1, (4) 2 * 2 <= 4.
--
-- The run: recovery of the new disk; then four times a write of sector
-- 0 and an epoch barrier — the first write into block 0 (the open one),
-- each later one opening the next free block (0 is full after one page)
-- and retiring the full one among the used.  The third write is the one
-- the code refuses: two used blocks (U = 2) and no victim taken in the
-- epoch (K = 1), so GC is needed first (`code-refuses`); GC would take a
-- used block, every one of which holds no valid sector (N = 0), and its
-- erase would free it.  The mutant writes on: after the fourth barrier
-- blocks 0-3 are full, none is free or erasable, and the epoch's one
-- write finds no block (`no-block`).
------------------------------------------------------------------------
module SCFTL.Mutants.LayerIgnoresGcTiming where

open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (nothing; just)
open import Data.Nat.Base using (ℕ; zero; suc; _≤ᵇ_; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (≤ᵇ⇒≤; ≤-step; <-irrefl; n<1+n)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (ε; _◅_)
open import Relation.Nullary using (¬_)

open import SCFTL.Impl.Model Bool false 0 0 0 _≟B_ using (_[_≔_])
open import SCFTL.Impl.UnsyncedBarrier Bool false 0 0 0 4 _≟B_ using (StU)
open import SCFTL.Impl.BlocksOver Bool false 0 0 0 4 _≟B_ 0 using (BL; own; balloc; Fresh; own-balloc)
open import SCFTL.Impl.SpaceSim Bool false 0 0 0 4 _≟B_ 2 0 using (Gh; us; es; cv; BlockFor)
open import SCFTL.Impl.SpaceLayer Bool false 0 0 0 4 _≟B_ 2 0
  using (LStepT; lw; lwa; lbar; G0; endEp; usedOf)
open import SCFTL.Impl.SpaceLayerStart Bool false 0 0 0 4 _≟B_ 2 0
  using (LayerPolicy; LayerProgress) public
open import SCFTL.Impl.SpaceLayerStart Bool false 0 0 0 4 _≟B_ 2 0 using (code-policy; layer-progress)
open import SCFTL.Impl.SpaceLayerGcExample
  using (cfgG; valid; mk; X; u1; u2; u3; u4; u5; wU; bU; n1; bl1; bl2; bl4; new0; rec1; Ga; Gb; Gc)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Bool false 0 0 4 as SB

------------------------------------------------------------------------
-- The configuration and the mutated policy

-- the configuration of SCFTL.Impl.SpaceLayerGcExample, which passes the
-- code's constraints (`valid`); its new disk, first recovery and first
-- four states are the example's too
cfgM : Sp.Config
cfgM = cfgG

private
  le : ∀ m n → {T (m ≤ᵇ n)} → m ≤ n
  le m n {t} = ≤ᵇ⇒≤ m n t

Pmut : LayerPolicy
Pmut = record { cfg = cfgM ; timing = λ _ _ → ⊤ }

-- the code's timing on the same configuration has space progress
code-has-it : LayerProgress (code-policy cfgM)
code-has-it = layer-progress cfgM valid refl refl refl

------------------------------------------------------------------------
-- Writes of sector 0 and epoch barriers past the example's fourth state

u6 u7 u8 u9 : StU
u6 = wU u5
u7 = bU u6
u8 = wU u7
u9 = bU u8

-- every physical page holds an incarnation below n: P's page n is fresh
Below : BL → ℕ → Set
Below bl n = ∀ k o q → own bl k o ≡ just q → q < n

private
  fresh : ∀ {bl n} → Below bl n → Fresh bl n
  fresh b k o e = <-irrefl refl (b k o _ e)

  below-balloc : ∀ {bl n} k → Below bl n → Below (balloc k n bl) (suc n)
  below-balloc {bl} {n} k b kp op q e with own-balloc bl k n kp op q e
  ... | inj₁ refl = n<1+n q
  ... | inj₂ e′ = ≤-step (b kp op q e′)

  below1 : ∀ n → Below bl1 n
  below1 n k o q ()

-- the block bookkeeping: blocks 0, 1 (the example's bl2, bl4), 2, 3
-- taken in turn
bl6 bl8 : BL
bl6 = balloc 2 (suc (suc n1)) bl4
bl8 = balloc 3 (suc (suc (suc n1))) bl6

private
  b2 : Below bl2 (suc n1)
  b2 = below-balloc {bl1} {n1} 0 (below1 n1)
  b4 : Below bl4 (suc (suc n1))
  b4 = below-balloc {bl2} {suc n1} 1 b2
  b6 : Below bl6 (suc (suc (suc n1)))
  b6 = below-balloc {bl4} {suc (suc n1)} 2 b4

-- the ghost along the run (Ga, Gb, Gc the example's)
Gd Ge Gf Gg : Gh
Gd = record Gc { us = us Gc [ 1 ≔ true ] }
Ge = endEp Gd
Gf = record Ge { us = us Ge [ 2 ≔ true ] }
Gg = endEp Gf

------------------------------------------------------------------------
-- The run of the mutated layer

step1 : LStepT cfgM (λ _ _ → ⊤) (G0 , X u1 , bl1) (G0 , X u2 , bl2)
step1 = lw ((inj₁ (refl , mk u1 , refl , ((inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl)))
           , inj₁ (refl , 0 , (inj₁ refl , s≤s z≤n , refl , fresh {bl1} {n1} (below1 n1)) , refl))
           refl refl tt (inj₁ (refl , refl , refl))

step2 : LStepT cfgM (λ _ _ → ⊤) (G0 , X u2 , bl2) (Ga , X u3 , bl2)
step2 = lbar (inj₁ (refl , mk u2 , refl , (inj₁ (le 1 4 , refl) , refl)) , refl) refl tt

step3 : LStepT cfgM (λ _ _ → ⊤) (Ga , X u3 , bl2) (Gb , X u4 , bl4)
step3 = lwa ((inj₁ (refl , mk u3 , refl , ((inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl)))
            , inj₁ (refl , 1 , (inj₂ refl , s≤s z≤n , refl , fresh {bl2} {suc n1} b2) , refl))
            (λ ()) (le 2 4) refl refl tt (refl , refl , refl)

step4 : LStepT cfgM (λ _ _ → ⊤) (Gb , X u4 , bl4) (Gc , X u5 , bl4)
step4 = lbar (inj₁ (refl , mk u4 , refl , (inj₁ (le 2 4 , refl) , refl)) , refl) refl tt

step5 : LStepT cfgM (λ _ _ → ⊤) (Gc , X u5 , bl4) (Gd , X u6 , bl6)
step5 = lwa ((inj₁ (refl , mk u5 , refl , ((inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl)))
            , inj₁ (refl , 2 , (inj₂ refl , s≤s z≤n , refl , fresh {bl4} {suc (suc n1)} b4) , refl))
            (λ ()) (le 3 4) refl refl tt (refl , refl , refl)

step6 : LStepT cfgM (λ _ _ → ⊤) (Gd , X u6 , bl6) (Ge , X u7 , bl6)
step6 = lbar (inj₁ (refl , mk u6 , refl , (inj₁ (le 3 4 , refl) , refl)) , refl) refl tt

step7 : LStepT cfgM (λ _ _ → ⊤) (Ge , X u7 , bl6) (Gf , X u8 , bl8)
step7 = lwa ((inj₁ (refl , mk u7 , refl , ((inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl)))
            , inj₁ (refl , 3 , (inj₂ refl , s≤s z≤n , refl , fresh {bl6} {suc (suc (suc n1))} b6) , refl))
            (λ ()) (le 4 4) refl refl tt (refl , refl , refl)

step8 : LStepT cfgM (λ _ _ → ⊤) (Gf , X u8 , bl8) (Gg , X u9 , bl8)
step8 = lbar (inj₁ (refl , mk u8 , refl , (inj₁ (le 4 4 , refl) , refl)) , refl) refl tt

-- the code refuses the third write: GC is needed (two used blocks, no
-- victim taken in the epoch)
code-refuses : ¬ Sp.NotNeeded cfgM 0 (0 ∷ usedOf cfgM Gc (X u5) bl4)
code-refuses (inj₁ ())
code-refuses (inj₂ (s≤s (s≤s ())))

-- at the end a wanted write finds no block: the open one is full, and
-- blocks 0-3 are neither free nor erasable
no-block : ¬ BlockFor cfgM Gg bl8
no-block (inj₁ (s≤s ()))
no-block (inj₂ (0 , _ , inj₁ ()))
no-block (inj₂ (0 , _ , inj₂ ()))
no-block (inj₂ (1 , _ , inj₁ ()))
no-block (inj₂ (1 , _ , inj₂ ()))
no-block (inj₂ (2 , _ , inj₁ ()))
no-block (inj₂ (2 , _ , inj₂ ()))
no-block (inj₂ (3 , _ , inj₁ ()))
no-block (inj₂ (3 , _ , inj₂ ()))
no-block (inj₂ (suc (suc (suc (suc k))) , s≤s (s≤s (s≤s (s≤s ()))) , _))

not-layer-progress : ¬ LayerProgress Pmut
not-layer-progress lp =
  no-block (lp new0 rec1 (le 1 4)
              (step1 ◅ step2 ◅ step3 ◅ step4 ◅ step5 ◅ step6 ◅ step7 ◅ step8 ◅ ε)
              refl (s≤s z≤n))
