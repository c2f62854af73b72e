{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 53 (issue 39): the data-superblock layer of the one model
-- (SCFTL.Impl.SpaceLayer) whose GC may pass P's relocation of any dead
-- page (`anyRl`: P's `rlX` of a page outside the victim, which changes
-- no L2P entry, so `FromVictim` holds) — the layer's `lrl` as it was
-- until the thirty-third session, without `Walk`.  The block layer, P
-- and every other step are the code's.
--
-- Mutant of GC's budget (check.sh: MUTANTS_OF_GC_BUDGET):
-- `Pmut : LayerRel` and `not-budget : ¬ LayerBudget Pmut`
-- (SCFTL.Impl.SpaceGcBound), by the run of
-- SCFTL.Impl.SpaceLayerGcExample to its end (block 0 erased and free,
-- block 1 used, holding sector 0), then a second round: a write of
-- sector 0 opening block 2 (block 1's page now dead), an epoch barrier,
-- block 2 retired in the ghost, GC of block 1, and the mutant's
-- relocation of the erased block 0's page (`rlX`).  That spends the
-- epoch's one relocation (kmax = 0; K · Z = 1 = kmax + 1, so the code's
-- layer has the budget), while block 1's page is on neither of P's
-- queues: P's relocation is a no-op from there on, so the page can
-- never reach the queues, the victim never ends (`ldone` asks every page
-- queued), and no flush or barrier ends the epoch (both ask no victim
-- pending) — the layer is stuck.  The code's layer relocates block 1's
-- page there (`Walk` allows only pages of the victim not yet queued).
------------------------------------------------------------------------
module SCFTL.Mutants.LayerRelocatesAnyPage where

open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using ([]; _∷_)
open import Data.Maybe.Base using (just)
open import Data.Nat.Base using (suc; z≤n; s≤s; _≤_; _≤ᵇ_)
open import Data.Nat.Properties using (≤ᵇ⇒≤)
open import Data.Product using (_,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
open import Relation.Nullary using (¬_)

open import SCFTL.Impl.Model Bool false 0 0 0 _≟B_ using (rlX; Valid; _[_≔_])
open import SCFTL.Impl.UnsyncedBarrier Bool false 0 0 0 4 _≟B_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.BlocksOver Bool false 0 0 0 4 _≟B_ 0 using (BL; balloc; Fresh; own-balloc)
open import SCFTL.Impl.OneModelBlocks Bool false 0 0 0 4 _≟B_ 2 0 using (BXone)
open import SCFTL.Impl.SpaceSim Bool false 0 0 0 4 _≟B_ 2 0 using (Gh; us; vi; cv; gn; FromVictim)
open import SCFTL.Impl.SpaceLayer Bool false 0 0 0 4 _≟B_ 2 0 using (LS; LStep; lwr; lbar; lret; lgcm; endEp; G0)
open import SCFTL.Impl.SpaceQueued Bool false 0 0 0 4 _≟B_ 2 0 using (LayerRel)
open import SCFTL.Impl.SpaceGcBound Bool false 0 0 0 4 _≟B_ 2 0 using (LayerBudget) public
open import SCFTL.Impl.SpaceLayerGcExample
  using (cfgG; X; mk; n1; u1; u8; bl1; bl2; bl9; Gh′; wU; bU; start1; gc-run)
import SCFTL.SpecBarrier Bool false 0 0 4 as SB

------------------------------------------------------------------------
-- The mutated layer: the code's steps, and P's relocation of any page
-- while a victim is pending (no `Walk`)

data StepM : LS → LS → Set where
  code  : ∀ {s s'} → LStep cfgG s s' → StepM s s'
  anyRl : ∀ {G X X' bl k} → cv G ≡ just k → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , bl) →
          FromVictim k X bl X' → StepM (G , X , bl) (G , X' , bl)

Pmut : LayerRel
Pmut = record { cfg = cfgG ; step = StepM }

------------------------------------------------------------------------
-- The second round, after the example's run

private
  le : ∀ m n → {T (m ≤ᵇ n)} → m ≤ n
  le m n {t} = ≤ᵇ⇒≤ m n t

u9 u10 u11 : StU
u9  = wU u8                                -- sector 0 again, into block 2
u10 = bU u9                                -- an epoch barrier
u11 = ⟪ rlX n1 (st u10) , ues u10 ⟫         -- P's relocation of block 0's erased page

bl10 : BL
bl10 = balloc 2 (suc (suc n1)) bl9

Gi Gj Gk : Gh
Gi = endEp Gh′
Gj = record Gi { us = us Gi [ 2 ≔ true ] }
Gk = record Gj { us = us Gj [ 1 ≔ false ] ; vi = vi Gj [ 1 ≔ true ] ; cv = just 1 ; gn = suc (gn Gj) }

private
  -- P's next page is on no physical page
  fresh9 : Fresh bl9 (suc (suc n1))
  fresh9 k o e with own-balloc bl2 1 (suc n1) k o (suc (suc n1)) e
  ... | inj₁ ()
  ... | inj₂ e′ with own-balloc bl1 0 n1 k o (suc (suc n1)) e′
  ...   | inj₁ ()
  ...   | inj₂ ()

  -- block 0's page, erased, holds no valid sector: sector 0 is mapped
  -- to the third page
  dead0 : ¬ Valid (st u10) n1
  dead0 (_ , ())

-- a write of sector 0 opening block 2 (block 1, full, is used)
step11 : StepM (Gh′ , X u8 , bl9) (Gh′ , X u9 , bl10)
step11 = code (lwr ((inj₁ (refl , mk u8 , refl , ((inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl)))
                   , inj₁ (refl , 2 , (inj₂ refl , s≤s z≤n , refl , fresh9) , refl))
                   (λ ()) (le 3 4) (inj₁ (inj₁ refl)) refl (inj₂ (s≤s (s≤s z≤n))))

-- an epoch barrier
step12 : StepM (Gh′ , X u9 , bl10) (Gi , X u10 , bl10)
step12 = code (lbar (inj₁ (refl , mk u9 , refl , (inj₁ (le 1 4 , refl) , refl)) , refl) refl (inj₂ (s≤s (s≤s z≤n))))

-- block 2 is full: retired in the ghost, Space opens block 3
step13 : StepM (Gi , X u10 , bl10) (Gj , X u10 , bl10)
step13 = code (lret {kn = 3} refl (refl , refl , refl) refl (le 4 4))

-- GC is needed (blocks 1 and 2 used): block 1, whose page is dead
step14 : StepM (Gj , X u10 , bl10) (Gk , X u10 , bl10)
step14 = code (lgcm refl refl (le 2 4) (le 1 1) (le 2 2) z≤n)

-- the mutant: P's relocation of block 0's page, not the victim's
step15 : StepM (Gk , X u10 , bl10) (Gk , X u11 , bl10)
step15 = anyRl refl ((inj₁ (refl , mk u10 , refl , ((inj₁ (z≤n , n1 , le 1 3 , inj₂ (dead0 , refl)) , refl) , refl)))
                    , inj₂ (refl , refl))
               (λ b _ ne → ⊥-elim′ (ne refl))
  where
  ⊥-elim′ : ∀ {A : Set} → ⊥ → A
  ⊥-elim′ ()

run : Star StepM (G0 , X u1 , bl1) (Gk , X u11 , bl10)
run = gmap gc-run ◅◅ (step11 ◅ step12 ◅ step13 ◅ step14 ◅ step15 ◅ ε)
  where
  gmap : ∀ {s s'} → Star (LStep cfgG) s s' → Star StepM s s'
  gmap ε        = ε
  gmap (x ◅ xs) = code x ◅ gmap xs

-- block 1's page is on neither of P's queues, while P's relocation
-- count (1) is past kmax (0): P relocates nothing more this epoch
not-budget : ¬ LayerBudget Pmut
not-budget B with B start1 run refl (s≤s z≤n) refl refl
... | ()
