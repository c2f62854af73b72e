{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 54 (issue 39): the data-superblock layer with power cuts
-- (SCFTL.Impl.SpaceRecLayer) whose write keeps placing into the open
-- block after a recovery abandoned it (`lwM`: the layer's `lw` without
-- `OpenOK`, the guard of the thirty-fifth session that lets `lw` take
-- the open block only while it is in none of the ghost's classes).  The
-- block layer, P and every other step are the code's.
--
-- Mutant of the layer's queues across power cuts (check.sh:
-- MUTANTS_OF_LAYER_QUEUE_CRASH): `Pmut : LayerRelR` and
-- `not-layer-queued-crash : ¬ LayerQueuedR Pmut`, by the run of
-- SCFTL.Impl.SpaceChainEraseExample (two-page blocks, a configuration
-- the code's constraints accept): w(0,true) into block 0 with a
-- tentative delta page, a power cut inside w(1,true), PL's recovery,
-- which leaves block 0, the open block, erasable in the rebuild's ghost
-- with room for one page (the example's `reclaimed`, `abandoned`).  The
-- mutant's next write places sector 1 there: block 0 is then erasable
-- in the ghost while it holds a page the L2P maps and that is on
-- neither of P's queues (`live`, `lost`), so the block the layer counts
-- as reusable can never be erased without losing sector 1.  The code's
-- layer, at the same point, leaves the abandoned block and opens a free
-- one (the example's `code-write`: `lwr` into block 1, as `Leave`
-- allows).
------------------------------------------------------------------------
module SCFTL.Mutants.LayerWritesAbandonedBlock where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Nat.Base using (zero; suc; z≤n; s≤s)
open import Data.Product using (_×_; _,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)
open import Relation.Nullary using (¬_)

open import SCFTL.Mutants.Common using (A; W; K)
open import SCFTL.Impl.Model Bool false A W K _≟B_ using (St; wr0; nxt; l2p; inv; ers)
open import SCFTL.Impl.OneModel Bool false A W K 3 _≟B_ 32 using (XS; lzS)
open import SCFTL.Impl.BlocksOver Bool false A W K 3 _≟B_ 1 using (BL; own; ab; balloc)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 32 1 using (BXone)
open import SCFTL.Impl.SpaceSim Bool false A W K 3 _≟B_ 32 1 using (cv; gn)
open import SCFTL.Impl.SpaceLayer Bool false A W K 3 _≟B_ 32 1 using (LS; G0; usedOf)
open import SCFTL.Impl.SpaceRecLayer Bool false A W K 3 _≟B_ 32 1 using (LStepR)
open import SCFTL.Impl.SpaceQueued Bool false A W K 3 _≟B_ 32 1 using (QInv)
open import SCFTL.Impl.SpaceRecGc Bool false A W K 3 _≟B_ 32 1 using (LayerRelR) public
open import SCFTL.Impl.SpaceRecGc Bool false A W K 3 _≟B_ 32 1 using (LayerQueuedR) public
open import SCFTL.Impl.SpaceChainEraseExample
  using (cfgA; g1; s5; X1; X5; bl1; bl5; G5; fresh5; new0; r1; step1; step2)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Bool false A W 3 as SB

------------------------------------------------------------------------
-- The mutated layer: the code's steps, and a write into the open block
-- whatever the ghost holds it as

data StepM : LS → LS → Set where
  code : ∀ {s s'} → LStepR cfgA s s' → StepM s s'
  lwM  : ∀ {G X X' bl bl' a dd} → SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w a dd)))) (X , bl) (X' , bl') →
         ab bl' ≡ ab bl → cv G ≡ nothing → Sp.NotNeeded cfgA (gn G) (usedOf cfgA G X bl) →
         StepM (G , X , bl) (G , X' , bl')

Pmut : LayerRelR
Pmut = record { rcfg = cfgA ; rstep = StepM }

------------------------------------------------------------------------
-- The run: the example's write, power cut and recovery, then the
-- mutant's write into block 0

s6 : St
s6 = wr0 1 true s5                          -- w(1,true): page 1

bl6 : BL
bl6 = balloc 0 (nxt s5) bl5                 -- page 1 at (0,1), the abandoned block

X6 : XS
X6 = true , lzS s6 g1

w-mut : SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w 1 true)))) (X5 , bl5) (X6 , bl6)
w-mut = inj₂ (refl , refl , s6 , refl , inj₁ ((s≤s z≤n , z≤n) , false , false , refl)) ,
        inj₁ (refl , 0 , (inj₁ refl , s≤s (s≤s z≤n) , refl , fresh5) , refl)

step3 : StepM (G5 , X5 , bl5) (G5 , X6 , bl6)
step3 = lwM w-mut refl refl (inj₂ (s≤s z≤n))

run : Star StepM (G0 , X1 , bl1) (G5 , X6 , bl6)
run = code step1 ◅ code step2 ◅ step3 ◅ ε

------------------------------------------------------------------------
-- What the mutant's write does

-- block 0 holds page 1, mapped, on neither of P's queues
live : own bl6 0 1 ≡ just 1 × l2p s6 1 ≡ just 1 × inv s6 1 ≡ false × ers s6 1 ≡ false
live = refl , refl , refl , refl

lost : ¬ QInv (G5 , X6 , bl6)
lost Q with Q 0 (inj₁ refl) 1 1 (s≤s (s≤s z≤n)) refl
... | ()

not-layer-queued-crash : ¬ LayerQueuedR Pmut
not-layer-queued-crash lq = lost (lq new0 r1 (s≤s z≤n) run)
