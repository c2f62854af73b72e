{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the layer's recovery step is a step — a concrete run of the
-- data-superblock layer through a power cut (SCFTL.Impl.SpaceRecLayer),
-- so `layer-inv-crash` and `space-progress-crash` are not vacuous.
--
-- The run is SCFTL.Impl.RecoveryFreeExample's (Data = Bool, two
-- logical sectors, W = 3, blocks of one page): after format and the
-- first recovery, w(0,true) into block 0 (the layer's `lw`), then a
-- power cut inside w(1,true) after it placed page 1 in block 1, before
-- anything was committed, and PL's recovery (`lrec`).  The
-- configuration is one the code's constraints accept (`valid`: W = 3,
-- K = 3, U = 3, L = 2, S = 1, P = 7).  After the recovery:
--
--   `ghost-after`   : the rebuild's ghost holds no block used or
--                     erasable (the recovered map names nothing, and
--                     recovery freed both blocks, whose placements the
--                     crash cut);
--   `inv-after`     : the layer's invariant holds there (`CInv`), and it
--                     is the `Retired` form (a free block below P is
--                     left to stand for Space's open block);
--   `progress-after`: a wanted write finds a block;
--   `step3`, `inv-after-write` : the next write, into block 0 while
--                     block 1, the freed open block, is free, is the
--                     layer's `lwr` (`Leave`), and the invariant holds
--                     after it.
------------------------------------------------------------------------
module SCFTL.Impl.SpaceRecExample where

open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Empty using (⊥)
open import Data.Unit.Base using (⊤; tt)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Nat.Base using (ℕ; suc; _≤ᵇ_; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (≤ᵇ⇒≤)
open import Data.Product using (_×_; _,_; proj₁)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)

open import SCFTL.Mutants.Common using (A; W; K)
open import SCFTL.Impl.RecoveryFreeExample using (X0; X1; X2; X3; X5; X6; bl0; bl1; bl2; bl3; bl5; bl6; r1; w1; c1; r2; w-after)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 32 0 using (BXone)
open import SCFTL.Impl.OneModelRecMaps Bool false A W K 3 _≟B_ 32 0 using (noneX; reg-w)
open import SCFTL.Impl.SpaceSim Bool false A W K 3 _≟B_ 32 0 using (us; es; BlockFor)
open import SCFTL.Impl.SpaceLayer Bool false A W K 3 _≟B_ 32 0 using (LS; lw; lwr; G0)
open import SCFTL.Impl.SpaceRecInv Bool false A W K 3 _≟B_ 32 0 using (recGh)
open import SCFTL.Impl.SpaceRecLayer Bool false A W K 3 _≟B_ 32 0
  using (LStepR; ls; lrec; CInv; LInvR; layer-inv-crash; space-progress-crash)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Bool false A W 3 as SB

------------------------------------------------------------------------
-- A configuration the code accepts

cfgR : Sp.Config
cfgR = Sp.cfg 3 3 3 2 1 7 0 1 8

private
  le : ∀ m n → {T (m ≤ᵇ n)} → m ≤ n
  le m n {t} = ≤ᵇ⇒≤ m n t

valid : Sp.Valid cfgR
valid = record
  { U≥1 = le 1 3 ; ppp≥1 = le 1 1 ; pad<S = le 1 1
  ; c1 = le 3 3 ; c2 = le 7 7 ; c3 = le 3 3 ; c4 = le 8 8 }

------------------------------------------------------------------------
-- The run: a write, then a power cut inside the next one and the
-- recovery

new0 : SB.Model.New BXone (X0 , bl0)
new0 = (refl , ((refl , refl , refl , (λ _ → refl)) , refl , refl)) , ((λ _ _ → refl) , (λ _ → refl) , (λ _ → refl)) , (λ _ → refl)

G5 = recGh cfgR X5 bl5

step1 : LStepR cfgR (G0 , X1 , bl1) (G0 , X2 , bl2)
step1 = ls (lw w1 refl refl (inj₂ (s≤s z≤n)) (inj₁ (refl , refl , refl)))

step2 : LStepR cfgR (G0 , X2 , bl2) (G5 , X5 , bl5)
step2 = lrec (inj₁ (reg-w 1 true)) c1 (le 2 7) noneX (proj₁ r2)

run : Star (LStepR cfgR) (G0 , X1 , bl1) (G5 , X5 , bl5)
run = step1 ◅ step2 ◅ ε

------------------------------------------------------------------------
-- After the recovery

-- the recovered map names nothing and recovery freed both blocks: no
-- block used or erasable
ghost-after : us G5 0 ≡ false × us G5 1 ≡ false × es G5 0 ≡ false × es G5 1 ≡ false
ghost-after = refl , refl , refl , refl

-- the layer's invariant holds there, in the `Retired` form
inv-after : CInv cfgR (G5 , X5 , bl5)
inv-after = layer-inv-crash (Sp.needs valid) refl refl refl new0 r1 (le 1 7) run

IsRetired : ∀ {c s} → LInvR c s → Set
IsRetired (inj₁ (inj₂ (inj₂ _))) = ⊤
IsRetired _ = ⊥

retired-after : IsRetired (proj₁ inv-after)
retired-after = tt

-- and a wanted write finds a block
progress-after : BlockFor cfgR G5 bl5
progress-after = space-progress-crash valid refl refl refl new0 r1 (le 1 7) run refl (le 1 3)

-- the next write opens block 0 while block 1, the open block the
-- recovery freed, is free: the layer's `lwr` (the open block left while
-- free, `Leave`), and the invariant holds after it
step3 : LStepR cfgR (G5 , X5 , bl5) (G5 , X6 , bl6)
step3 = ls (lwr w-after (λ ()) (le 1 7) (inj₂ refl) refl (inj₂ (s≤s z≤n)))

inv-after-write : CInv cfgR (G5 , X6 , bl6)
inv-after-write = layer-inv-crash (Sp.needs valid) refl refl refl new0 r1 (le 1 7) (step1 ◅ step2 ◅ step3 ◅ ε)
