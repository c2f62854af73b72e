{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 51 (issue 39): the data-superblock layer of the one model
-- (SCFTL.Impl.SpaceLayer) whose GC ends a victim as soon as it holds no
-- valid sector (`done0`), without P's relocation of each of its pages —
-- the layer's `ldone` as it was until the thirty-second session.  The
-- block layer, P and every other step are the code's.
--
-- Mutant of the layer's queues (check.sh: MUTANTS_OF_LAYER_QUEUE):
-- `Pmut : LayerRel` and `not-layer-queued : ¬ LayerQueued Pmut`, by the
-- run of SCFTL.Impl.SpaceLayerGcExample up to GC's choice of block 0
-- (whose one page is dead: sector 0 was written again into block 1),
-- then the mutant's end of that victim, skipping P's relocation of the
-- dead page, and a flush.  Block 0 is then erasable in the ghost while
-- its page is on neither of P's queues (`lost`), and the model can erase
-- no block at all there (`no-erase`: every block erase is P's erase of
-- each page, which asks for the page on the erasable queue), so the
-- block the layer counts as reusable never is.  The code's layer, at the
-- same point, relocates the dead page first (`rlX`, the example's
-- `step7`) and erases the block after the flush (its `step10`).
------------------------------------------------------------------------
module SCFTL.Mutants.LayerEndsVictimEarly where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using ([])
open import Data.Maybe.Base using (just; nothing)
open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Product using (_×_; _,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)
open import Relation.Nullary using (¬_)

open import SCFTL.Impl.Model Bool false 0 0 0 _≟B_ using (fl3; ers)
open import SCFTL.Impl.UnsyncedBarrier Bool false 0 0 0 4 _≟B_ using (StU; ⟪_,_⟫; st)
open import SCFTL.Impl.OneModel Bool false 0 0 0 4 _≟B_ 2 using (PX)
open import SCFTL.Impl.OneModelBlocks Bool false 0 0 0 4 _≟B_ 2 0 using (BXone; EsRunM; one; _∷_)
open import SCFTL.Impl.SpaceValid Bool false 0 0 0 4 _≟B_ 2 0 using (vc)
open import SCFTL.Impl.SpaceSim Bool false 0 0 0 4 _≟B_ 2 0 using (Gh; cv; f≢t)
open import SCFTL.Impl.SpaceLayer Bool false 0 0 0 4 _≟B_ 2 0 using (LS; LStep; lfl; endEp; G0)
open import SCFTL.Impl.SpaceQueued Bool false 0 0 0 4 _≟B_ 2 0 using (QInv; LayerRel)
open import SCFTL.Impl.SpaceQueued Bool false 0 0 0 4 _≟B_ 2 0 using (LayerQueued) public
open import SCFTL.Impl.SpaceLayerGcExample
  using (cfgG; X; mk; u1; u5; n1; bl1; bl4; start1; step1; step2; step3; step4; step5; step6; Ge)
import SCFTL.SpecBarrier Bool false 0 0 4 as SB

------------------------------------------------------------------------
-- The mutated layer: the code's steps, and a victim's GC ended with no
-- valid sector left, its pages not relocated

data StepM : LS → LS → Set where
  code  : ∀ {s s'} → LStep cfgG s s' → StepM s s'
  done0 : ∀ {G X bl k} → cv G ≡ just k → vc X bl k ≡ 0 →
          StepM (G , X , bl) (record G { cv = nothing } , X , bl)

Pmut : LayerRel
Pmut = record { cfg = cfgG ; step = StepM }

------------------------------------------------------------------------
-- The run

um7 : StU
um7 = ⟪ fl3 (st u5) , [] ⟫

Gf Gg : Gh
Gf = record Ge { cv = nothing }
Gg = endEp Gf

-- GC of block 0 ends without P's relocation of its dead page
mstep7 : StepM (Ge , X u5 , bl4) (Gf , X u5 , bl4)
mstep7 = done0 refl refl

-- a flush: block 0 erasable in the ghost
mstep8 : StepM (Gf , X u5 , bl4) (Gg , X um7 , bl4)
mstep8 = code (lfl (inj₁ (refl , mk u5 , refl , inj₁ (inj₁ refl , refl)) , refl) refl (inj₁ (s≤s z≤n)))

run : Star StepM (G0 , X u1 , bl1) (Gg , X um7 , bl4)
run = code step1 ◅ code step2 ◅ code step3 ◅ code step4 ◅ code step5 ◅ code step6 ◅ mstep7 ◅ mstep8 ◅ ε

-- block 0's page is on neither queue
lost : ¬ QInv (Gg , X um7 , bl4)
lost Q with Q 0 (inj₁ refl) 0 n1 (s≤s z≤n) refl
... | ()

not-layer-queued : ¬ LayerQueued Pmut
not-layer-queued lq = lost (lq start1 run)

-- and no block erase is a step of the model there: P's erasable queue is
-- empty
private
  ers-none : ∀ p → ers (st um7) p ≡ false
  ers-none zero    = refl
  ers-none (suc p) = refl

  es-none : ∀ {Y} → SB.Model.ok PX (SB.use (SB.reg (SB.op SB.es))) (X um7) Y → ⊥
  es-none (inj₁ (refl , _ , refl , (((p , ep , _) , _) , _))) = f≢t (trans (sym (ers-none p)) ep)
  es-none (inj₂ (refl , _ , s' , _ , (p , ep , _ , _))) = f≢t (trans (sym (ers-none p)) ep)

  run-none : ∀ {ps Y} → EsRunM (X um7) ps Y → ⊥
  run-none (one (o , _)) = es-none o
  run-none ((o , _) ∷ _) = es-none o

no-erase : ∀ {Y} → ¬ SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X um7 , bl4) Y
no-erase (k , rn , _) = run-none rn
