{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: a recovery that abandons the open block with room, and
-- `chain-erase-crash` (SCFTL.Impl.SpaceChainErase) is not vacuous — a
-- concrete run of the data-superblock layer with power cuts
-- (SCFTL.Impl.SpaceRecLayer) in PL's chain phase.
--
-- Instance: the mutants' (Data = Bool, two logical sectors), blocks of
-- two pages (zb = 1), umax = 3, MAX_CHAIN = 32, under a configuration
-- the code's constraints accept (`valid`: W = 3, K = 4, U = 2, L = 2,
-- S = 2, P = 7, pad = 0, one pair per delta page, D = 16).  After
-- format and the first recovery: w(0,true) into block 0 at its first
-- page, with the delta buffer written out as a tentative delta page
-- (P's `emitT`, which names page 0; `step1`, the layer's `lw`); a power
-- cut inside w(1,true) before it placed its page, everything programmed
-- landed; PL's recovery (`step2`, the layer's `lrec`).
--
--   `reclaimed`  : the tentative page is no commit, so the recovered map
--                  names nothing, but P's next page lies past every page
--                  a region record names (`rec0`'s `hiR`): page 0 stays
--                  below it and is reclaimed, erasable;
--   `abandoned`  : block 0, the open block, keeps page 0 below its write
--                  pointer, so recovery does not free it, and the
--                  rebuild's ghost holds it erasable, with room for one
--                  more page;
--   `code-write` : the next write leaves it for a free block (`lwr`, the
--                  open block in a class: `Leave`) — mutant 54
--                  (SCFTL.Mutants.LayerWritesAbandonedBlock) writes into
--                  it instead;
--   `erase-after`: and, from the recovered state, the flush that ends in
--                  a full checkpoint is a step of the layer, after which
--                  block 0 is erased by a step of the block layer
--                  (`chain-erase-crash`).
------------------------------------------------------------------------
module SCFTL.Impl.SpaceChainEraseExample where

open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using ([])
open import Data.List.Relation.Unary.All using ([])
open import Data.Maybe.Base using (just; nothing)
open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤ᵇ_; _≤_)
open import Data.Nat.Properties using (≤ᵇ⇒≤)
open import Data.Product using (Σ; _×_; _,_; proj₁)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)

open import SCFTL.Mutants.Common using (A; W; K; s0; img-sync)
open import SCFTL.Impl.Model Bool false A W K _≟B_ using (St; wr0; syncAll; ck3; unmapped; nxt; l2p; ers)
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32 using (rec0L; optL)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (⟪_,_⟫)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (⟦_,_⟧; ghostN) renaming (Gh to GhU)
open import SCFTL.Impl.OneModel Bool false A W K 3 _≟B_ 32 using (XS; lzS)
open import SCFTL.Impl.BlocksOver Bool false A W K 3 _≟B_ 1 using (BL; own; wp; ab; balloc; berase; forget; Fresh)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 32 1 using (BXone)
open import SCFTL.Impl.OneModelRecMaps Bool false A W K 3 _≟B_ 32 1 using (noneX; reg-w)
open import SCFTL.Impl.SpaceSim Bool false A W K 3 _≟B_ 32 1 using (Gh; us; es)
open import SCFTL.Impl.SpaceLayer Bool false A W K 3 _≟B_ 32 1 using (lw; lwr; G0; endEp)
open import SCFTL.Impl.SpaceRecInv Bool false A W K 3 _≟B_ 32 1 using (recGh)
open import SCFTL.Impl.SpaceRecLayer Bool false A W K 3 _≟B_ 32 1 using (LStepR; ls; lrec)
open import SCFTL.Impl.SpaceChainErase Bool false A W K 3 _≟B_ 32 1 using (ckF; chain-erase-crash)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Bool false A W 3 as SB

------------------------------------------------------------------------
-- A configuration the code accepts, with the geometry of the instance
-- (two logical sectors, W = 3, two sectors per block)

-- W = 3, K = 4, U = 2, L = 2, S = 2, P = 7, pad = 0, ppp = 1, D = 16
cfgA : Sp.Config
cfgA = Sp.cfg 3 4 2 2 2 7 0 1 16

private
  le : ∀ m n → {T (m ≤ᵇ n)} → m ≤ n
  le m n {t} = ≤ᵇ⇒≤ m n t

valid : Sp.Valid cfgA
valid = record
  { U≥1 = le 1 2 ; ppp≥1 = le 1 1 ; pad<S = le 1 2
  ; c1 = le 7 8 ; c2 = le 7 7 ; c3 = le 8 8 ; c4 = le 16 16 }

------------------------------------------------------------------------
-- The run

s1 s2 m3 s3 s5 s7 : St
s1 = recU true 0 unmapped [] [] s0          -- recovery from the new disk (generation 1)
s2 = optL false true (wr0 0 true s1)        -- w(0,true): page 0, and a tentative delta page
m3 = wr0 1 true s2                          -- w(1,true), crashing: merge buffer only
s3 = syncAll m3
s5 = ck3 (rec0L true 1 unmapped s3)         -- PL's recovery
s7 = wr0 1 true s5                          -- w(1,true) after it: page 1

g1 : GhU
g1 = ghostN ⟪ s1 , [] ⟫

bl0 bl1 bl2 bl5 bl7 : BL
bl0 = record { loc = λ _ → (0 , 2) ; own = λ _ _ → nothing ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }
bl1 = forget (nxt s1) bl0   -- the first recovery
bl2 = balloc 0 0 bl1        -- page 0 at (0,0)
bl5 = forget (nxt s5) bl2   -- the recovery after the power cut
bl7 = balloc 1 (nxt s5) bl5 -- the code's next write: page 1 at (1,0), a free block

X0 X1 X2 X3 X5 X7 : XS
X0 = false , ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧
X1 = false , ⟦ ⟪ s1 , [] ⟫ , g1 ⟧
X2 = true , lzS s2 g1
X3 = true , lzS s3 g1
X5 = true , lzS s5 g1
X7 = true , lzS s7 g1

G5 : Gh
G5 = recGh cfgA X5 bl5

private
  nj : ∀ {n : ℕ} → nothing ≡ just n → ⊥
  nj ()

  fresh0 : Fresh bl1 0
  fresh0 k o e = nj e

-- after the recovery no physical page holds page 1
fresh5 : Fresh bl5 1
fresh5 zero    zero    ()
fresh5 zero    (suc o) e = nj e
fresh5 (suc k) o       e = nj e

new0 : SB.Model.New BXone (X0 , bl0)
new0 = (refl , ((refl , refl , refl , (λ _ → refl)) , refl , refl)) , ((λ _ _ → refl) , (λ _ → refl) , (λ _ → refl)) , (λ _ → refl)

-- the block layer's steps
r1 : SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1)
r1 = (refl , inj₁ ((true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)) , refl

w1 : SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w 0 true)))) (X1 , bl1) (X2 , bl2)
w1 = inj₂ (refl , refl , s2 , refl , inj₁ ((z≤n , z≤n) , false , true , refl)) ,
     inj₁ (refl , 0 , (inj₁ refl , s≤s z≤n , refl , fresh0) , refl)

c1 : SB.Model.crash BXone (SB.use (SB.reg (SB.op (SB.w 1 true)))) (X2 , bl2) (X3 , bl2)
c1 = inj₂ (refl , refl , s3 , refl , (m3 , inj₁ (inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)) , img-sync m3)) , inj₁ refl

r2 : SB.Model.ok BXone SB.recover (X3 , bl2) (X5 , bl5)
r2 = (refl , refl , s5 , refl , (true , 1 , unmapped , refl , refl)) , refl

w-code : SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w 1 true)))) (X5 , bl5) (X7 , bl7)
w-code = inj₂ (refl , refl , s7 , refl , inj₁ ((s≤s z≤n , z≤n) , false , false , refl)) ,
         inj₁ (refl , 1 , (inj₂ refl , s≤s z≤n , refl , fresh5) , refl)

-- the layer's steps: the write, the power cut and the recovery
step1 : LStepR cfgA (G0 , X1 , bl1) (G0 , X2 , bl2)
step1 = ls (lw w1 refl refl (inj₂ (s≤s z≤n)) (inj₁ (refl , refl , refl)))

step2 : LStepR cfgA (G0 , X2 , bl2) (G5 , X5 , bl5)
step2 = lrec (inj₁ (reg-w 1 true)) c1 (s≤s z≤n) noneX (proj₁ r2)

run : Star (LStepR cfgA) (G0 , X1 , bl1) (G5 , X5 , bl5)
run = step1 ◅ step2 ◅ ε

------------------------------------------------------------------------
-- What the recovery left

-- the tentative page's data page is kept: P's next page past it, the
-- page reclaimed (erasable), nothing mapped
reclaimed : nxt s5 ≡ 1 × ers s5 0 ≡ true × l2p s5 0 ≡ nothing × l2p s5 1 ≡ nothing
reclaimed = refl , refl , refl , refl

-- block 0, the open block, keeps page 0 with room for one more, and the
-- rebuild holds it erasable
abandoned : ab bl5 ≡ 0 × wp bl5 0 ≡ 1 × own bl5 0 0 ≡ just 0 × es G5 0 ≡ true × us G5 0 ≡ false
abandoned = refl , refl , refl , refl , refl

-- the code's layer leaves the abandoned block for a free one (`lwr`: the
-- open block is in a class, `Leave`)
code-write : LStepR cfgA (G5 , X5 , bl5) (G5 , X7 , bl7)
code-write = ls (lwr w-code (λ ()) (s≤s (s≤s z≤n)) (inj₁ (inj₂ (inj₂ refl))) refl (inj₂ (s≤s z≤n)))

-- and the flush that ends in a full checkpoint is a step of the layer,
-- after which block 0 is erased by a step of the block layer
erase-after : LStepR cfgA (G5 , X5 , bl5) (endEp G5 , (true , lzS (ckF s5) g1) , bl5) ×
              Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) ((true , lzS (ckF s5) g1) , bl5) (X'' , berase 0 bl5)
erase-after with chain-erase-crash (Sp.needs valid) refl refl refl new0 r1 (s≤s z≤n) run refl refl (inj₂ (s≤s z≤n))
... | st , er = st , er 0 refl (λ ())
