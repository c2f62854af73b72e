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
-- `not-layer-queued-crash : ¬ LayerQueuedR Pmut`, by a run with
-- two-page blocks under a configuration the code's constraints accept
-- (`valid`): after format and the first recovery, w(0,true) into block
-- 0 at its first page, with the delta buffer written out as a tentative
-- delta page (P's `emitT`, which names page 0); a power cut inside
-- w(1,true) before it placed its page; PL's recovery.  The tentative
-- page is no commit, so the recovered map names nothing, but P's next
-- page lies past every page a region record names (`rec0`'s `hiR`): page
-- 0 stays below it and is reclaimed, erasable (`reclaimed`).  Block 0,
-- the open block, keeps page 0 below its write pointer, so recovery does
-- not free it, and the code's rebuild (`recGh`) holds it erasable —
-- with room for one more page (`abandoned`).  The mutant's next write
-- places sector 1 there: block 0 is then erasable in the ghost while it
-- holds a page the L2P maps and that is on neither of P's queues
-- (`live`, `lost`), so the block the layer counts as reusable can never
-- be erased without losing sector 1.  The code's layer, at the same
-- point, leaves the abandoned block and opens a free one (`code-write`:
-- `lwr` into block 1, as `Leave` allows).
------------------------------------------------------------------------
module SCFTL.Mutants.LayerWritesAbandonedBlock where

open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using ([])
open import Data.List.Relation.Unary.All using ([])
open import Data.Maybe.Base using (just; nothing)
open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤ᵇ_; _≤_)
open import Data.Nat.Properties using (≤ᵇ⇒≤)
open import Data.Product using (_×_; _,_; proj₁)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)
open import Relation.Nullary using (¬_)

open import SCFTL.Mutants.Common using (A; W; K; s0; img-sync)
open import SCFTL.Impl.Model Bool false A W K _≟B_ using (St; wr0; syncAll; ck3; unmapped; nxt; l2p; inv; ers)
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32 using (rec0L; optL)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (⟪_,_⟫)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (⟦_,_⟧; ghostN) renaming (Gh to GhU)
open import SCFTL.Impl.OneModel Bool false A W K 3 _≟B_ 32 using (XS; lzS)
open import SCFTL.Impl.BlocksOver Bool false A W K 3 _≟B_ 1 using (BL; own; wp; ab; balloc; forget; Fresh)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 32 1 using (BXone)
open import SCFTL.Impl.OneModelRecMaps Bool false A W K 3 _≟B_ 32 1 using (noneX; reg-w)
open import SCFTL.Impl.SpaceSim Bool false A W K 3 _≟B_ 32 1 using (Gh; us; es; cv; gn)
open import SCFTL.Impl.SpaceLayer Bool false A W K 3 _≟B_ 32 1 using (LS; lw; lwr; G0; usedOf)
open import SCFTL.Impl.SpaceRecInv Bool false A W K 3 _≟B_ 32 1 using (recGh)
open import SCFTL.Impl.SpaceRecLayer Bool false A W K 3 _≟B_ 32 1 using (LStepR; ls; lrec)
open import SCFTL.Impl.SpaceQueued Bool false A W K 3 _≟B_ 32 1 using (QInv)
open import SCFTL.Impl.SpaceRecGc Bool false A W K 3 _≟B_ 32 1 using (LayerRelR) public
open import SCFTL.Impl.SpaceRecGc Bool false A W K 3 _≟B_ 32 1 using (LayerQueuedR) public
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Bool false A W 3 as SB

------------------------------------------------------------------------
-- A configuration the code accepts, with the geometry of the instance
-- (two logical sectors, W = 3, two sectors per block)

-- W = 3, K = 4, U = 2, L = 2, S = 2, P = 7, pad = 0, ppp = 1, D = 16
cfgM : Sp.Config
cfgM = Sp.cfg 3 4 2 2 2 7 0 1 16

private
  le : ∀ m n → {T (m ≤ᵇ n)} → m ≤ n
  le m n {t} = ≤ᵇ⇒≤ m n t

valid : Sp.Valid cfgM
valid = record
  { U≥1 = le 1 2 ; ppp≥1 = le 1 1 ; pad<S = le 1 2
  ; c1 = le 7 8 ; c2 = le 7 7 ; c3 = le 8 8 ; c4 = le 16 16 }

------------------------------------------------------------------------
-- The mutated layer: the code's steps, and a write into the open block
-- whatever the ghost holds it as

data StepM : LS → LS → Set where
  code : ∀ {s s'} → LStepR cfgM s s' → StepM s s'
  lwM  : ∀ {G X X' bl bl' a dd} → SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w a dd)))) (X , bl) (X' , bl') →
         ab bl' ≡ ab bl → cv G ≡ nothing → Sp.NotNeeded cfgM (gn G) (usedOf cfgM G X bl) →
         StepM (G , X , bl) (G , X' , bl')

Pmut : LayerRelR
Pmut = record { rcfg = cfgM ; rstep = StepM }

------------------------------------------------------------------------
-- The run

s1 s2 m3 s3 s5 s6 s7 : St
s1 = recU true 0 unmapped [] [] s0          -- recovery from the new disk (generation 1)
s2 = optL false true (wr0 0 true s1)        -- w(0,true): page 0, and a tentative delta page
m3 = wr0 1 true s2                          -- w(1,true), crashing: merge buffer only
s3 = syncAll m3
s5 = ck3 (rec0L true 1 unmapped s3)         -- PL's recovery
s6 = wr0 1 true s5                          -- w(1,true) after it: page 1
s7 = s6                                     -- (the code's write: the same P step)

g1 : GhU
g1 = ghostN ⟪ s1 , [] ⟫

bl0 bl1 bl2 bl5 bl6 bl7 : BL
bl0 = record { loc = λ _ → (0 , 2) ; own = λ _ _ → nothing ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }
bl1 = forget (nxt s1) bl0   -- the first recovery
bl2 = balloc 0 0 bl1        -- page 0 at (0,0)
bl5 = forget (nxt s5) bl2   -- the recovery after the power cut
bl6 = balloc 0 (nxt s5) bl5 -- the mutant's write: page 1 at (0,1), the abandoned block
bl7 = balloc 1 (nxt s5) bl5 -- the code's write: page 1 at (1,0), a free block

X0 X1 X2 X3 X5 X6 X7 : XS
X0 = false , ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧
X1 = false , ⟦ ⟪ s1 , [] ⟫ , g1 ⟧
X2 = true , lzS s2 g1
X3 = true , lzS s3 g1
X5 = true , lzS s5 g1
X6 = true , lzS s6 g1
X7 = true , lzS s7 g1

G5 : Gh
G5 = recGh cfgM X5 bl5

private
  nj : ∀ {n : ℕ} → nothing ≡ just n → ⊥
  nj ()

  fresh0 : Fresh bl1 0
  fresh0 k o e = nj e

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

w-mut : SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w 1 true)))) (X5 , bl5) (X6 , bl6)
w-mut = inj₂ (refl , refl , s6 , refl , inj₁ ((s≤s z≤n , z≤n) , false , false , refl)) ,
        inj₁ (refl , 0 , (inj₁ refl , s≤s (s≤s z≤n) , refl , fresh5) , refl)

w-code : SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w 1 true)))) (X5 , bl5) (X7 , bl7)
w-code = inj₂ (refl , refl , s7 , refl , inj₁ ((s≤s z≤n , z≤n) , false , false , refl)) ,
         inj₁ (refl , 1 , (inj₂ refl , s≤s z≤n , refl , fresh5) , refl)

-- the layer's steps: the code's write, the power cut and recovery, the
-- mutant's write
step1 : StepM (G0 , X1 , bl1) (G0 , X2 , bl2)
step1 = code (ls (lw w1 refl refl (inj₂ (s≤s z≤n)) (inj₁ (refl , refl , refl))))

step2 : StepM (G0 , X2 , bl2) (G5 , X5 , bl5)
step2 = code (lrec (inj₁ (reg-w 1 true)) c1 (s≤s z≤n) noneX (proj₁ r2))

step3 : StepM (G5 , X5 , bl5) (G5 , X6 , bl6)
step3 = lwM w-mut refl refl (inj₂ (s≤s z≤n))

run : Star StepM (G0 , X1 , bl1) (G5 , X6 , bl6)
run = step1 ◅ step2 ◅ step3 ◅ ε

------------------------------------------------------------------------
-- What the recovery left, and what the mutant's write does

-- the tentative page's data page is kept: P's next page past it, the
-- page reclaimed (erasable), nothing mapped
reclaimed : nxt s5 ≡ 1 × ers s5 0 ≡ true × l2p s5 0 ≡ nothing × l2p s5 1 ≡ nothing
reclaimed = refl , refl , refl , refl

-- block 0, the open block, keeps page 0 with room for one more, and the
-- rebuild holds it erasable
abandoned : ab bl5 ≡ 0 × wp bl5 0 ≡ 1 × own bl5 0 0 ≡ just 0 × es G5 0 ≡ true × us G5 0 ≡ false
abandoned = refl , refl , refl , refl , refl

-- after the mutant's write block 0 holds page 1, mapped, on neither of
-- P's queues
live : own bl6 0 1 ≡ just 1 × l2p s6 1 ≡ just 1 × inv s6 1 ≡ false × ers s6 1 ≡ false
live = refl , refl , refl , refl

lost : ¬ QInv (G5 , X6 , bl6)
lost Q with Q 0 (inj₁ refl) 1 1 (s≤s (s≤s z≤n)) refl
... | ()

not-layer-queued-crash : ¬ LayerQueuedR Pmut
not-layer-queued-crash lq = lost (lq new0 r1 (s≤s z≤n) run)

-- the code's layer at the same point leaves the abandoned block for a
-- free one (`lwr`: the open block is in a class, `Leave`)
code-write : LStepR cfgM (G5 , X5 , bl5) (G5 , X7 , bl7)
code-write = ls (lwr w-code (λ ()) (s≤s (s≤s z≤n)) (inj₁ (inj₂ (inj₂ refl))) refl (inj₂ (s≤s z≤n)))
