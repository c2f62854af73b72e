{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the data-superblock layer is not vacuous.
--
-- A configuration that passes the code's constraints with the one
-- model's geometry (two logical sectors, W = 3, three sectors per block,
-- five data blocks), a new disk of the block layer over PX (PU's new
-- disk, SCFTL.Impl.UnsyncedModelExample, every block free at write
-- pointer 0, block 0 open), its first recovery (`new-start`: a state of
-- the layer's `Start`), the layer's invariant there (`start-inv`), and
-- one step of the layer — a write of sector 0 into the open block, under
-- every guard of `lw` — after which a wanted write finds room
-- (`space-progress-one`).
------------------------------------------------------------------------
module SCFTL.Impl.SpaceLayerExample where

open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Maybe.Base using (nothing)
open import Data.Nat.Base using (ℕ; zero; suc; _≤ᵇ_; _≤_; z≤n; s≤s)
open import Data.Nat.Properties using (≤ᵇ⇒≤)
open import Data.Product using (_,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Data.Unit.Base using (tt)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (ε; _◅_)

open import SCFTL.Mutants.Common using (A; W; K)
open import SCFTL.Impl.UnsyncedModelExample using (S0; S1; S2; new; r1; w1)
open import SCFTL.Impl.BlocksOver Bool false A W K 3 _≟B_ 2 using (BL; forget; balloc)
open import SCFTL.Impl.Model Bool false A W K _≟B_ using (nxt)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 0 2 using (stX; BXone)
open import SCFTL.Impl.SpaceSim Bool false A W K 3 _≟B_ 0 2 using (BlockFor)
open import SCFTL.Impl.SpaceLayer Bool false A W K 3 _≟B_ 0 2 using (LInv; LStep; lw; Start; G0; start-inv)
open import SCFTL.Impl.SpaceLayerStart Bool false A W K 3 _≟B_ 0 2 using (new-start; space-progress-one)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Bool false A W 3 as SB

-- W = 3, K = 3, U = 2, L = 2, S = 3, P = 5, pad = 0, ppp = 1, D = 14
cfgL : Sp.Config
cfgL = Sp.cfg 3 3 2 2 3 5 0 1 14

private
  le : ∀ m n → {T (m ≤ᵇ n)} → m ≤ n
  le m n {t} = ≤ᵇ⇒≤ m n t

valid : Sp.Valid cfgL
valid = record
  { U≥1 = le 1 2 ; ppp≥1 = le 1 1 ; pad<S = le 1 3
  ; c1 = le 6 9 ; c2 = le 5 5 ; c3 = le 8 9 ; c4 = le 14 14 }

-- a new disk: every block free, at write pointer 0, nothing on it; block
-- 0 open
bl0 : BL
bl0 = record { loc = λ _ → (0 , 0) ; own = λ _ _ → nothing ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }

new0 : SB.Model.New BXone ((false , S0) , bl0)
new0 = (refl , new) , ((λ _ _ → refl) , (λ _ → refl) , (λ _ → refl)) , (λ _ → refl)

bl1 : BL
bl1 = forget (nxt (stX (false , S1))) bl0

rec1 : SB.Model.ok BXone SB.recover ((false , S0) , bl0) ((false , S1) , bl1)
rec1 = (refl , inj₁ r1) , refl

start1 : Start cfgL (false , S1) bl1
start1 = new-start new0 rec1 (s≤s z≤n)

inv1 : LInv cfgL (G0 , (false , S1) , bl1)
inv1 = start-inv start1

-- the first write: sector 0 into block 0, the open one, at its first page
bl2 : BL
bl2 = balloc 0 (nxt (stX (false , S1))) bl1

write1 : SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w 0 true)))) ((false , S1) , bl1) ((false , S2) , bl2)
write1 = inj₁ (refl , S1 , refl , w1) , inj₁ (refl , 0 , (inj₁ refl , s≤s z≤n , refl , λ _ _ ())  , refl)

step1 : LStep cfgL (G0 , (false , S1) , bl1) (G0 , (false , S2) , bl2)
step1 = lw write1 refl refl (inj₂ (s≤s z≤n)) (inj₁ (refl , refl , refl))

-- and there a wanted write finds room
finds2 : BlockFor cfgL G0 bl2
finds2 = space-progress-one valid refl refl refl new0 rec1 (s≤s z≤n) (step1 ◅ ε) refl (s≤s (s≤s z≤n))
