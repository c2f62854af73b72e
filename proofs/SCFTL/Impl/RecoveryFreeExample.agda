{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: recovery frees a block all of whose placements the crash
-- cut (`forget`, SCFTL.Impl.BlocksOver; `bx-rec-reuse`,
-- SCFTL.Impl.RecoveryReclaim), and the next write takes it — a concrete
-- run of the block layer over the one model (BXone).
--
-- Instance: the mutants' (Data = Bool, two logical sectors, W = 2,
-- K = 0), blocks of ONE page (zb = 0), umax = 3, kc = 32.  After format
-- and the first recovery (PU's, generation 1):
--   w(0,true) to page 0 = (block 0, offset 0); w(1,true) crashing
--   after it placed page 1 = (1, 0) (block 0 full, block 1 opened),
--   before anything is committed; recover (PL's: the chain phase).
-- The recovered map names nothing, so P takes page numbers from 0 again
-- and recovery forgets both placements: block 0 holds no page below its
-- write pointer and is freed — write pointer 0, reusable
-- (`block-0-freed`) — and so is block 1, the open one (`block-1-freed`);
-- the next write, w(0,false), places its sector in block 0, the block
-- erased first (`w-after`: a step of BXone).  Before the thirty-first session recovery kept block 0 at
-- write pointer 1, not reusable, and with no page for a block erase to
-- erase (`erase-has-owner`): it was lost for good.  The code's `rebuild`
-- makes every superblock the recovered map does not reference erasable
-- and `activate_next` erases it when it takes it.
------------------------------------------------------------------------
module SCFTL.Impl.RecoveryFreeExample where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using ([])
open import Data.List.Relation.Unary.All using ([])
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; img-sync)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32 using (rec0L)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (⟪_,_⟫)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (Gh; ⟦_,_⟧; ghostN)
open import SCFTL.Impl.OneModel Bool false A W K 3 _≟B_ 32 using (XS; lzS)
open import SCFTL.Impl.BlocksOver Bool false A W K 3 _≟B_ 0
  using (BL; own; wp; fr; ab; balloc; forget; owners; Fresh)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 32 0 using (stX; BXone)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (use; reg; op; w)

------------------------------------------------------------------------
-- The run

s1 s2 m3 s3 s5 s6 : St
s1 = recU true 0 unmapped [] [] s0   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true): page 0
m3 = wr0 1 true s2                   -- w(1,true), crashing: page 1
s3 = syncAll m3
s5 = ck3 (rec0L true 1 unmapped s3)  -- PL's recovery
s6 = wr0 0 false s5                  -- w(0,false) after it

g1 : Gh
g1 = ghostN ⟪ s1 , [] ⟫

bl0 bl1 bl2 bl3 bl5 bl6 : BL
bl0 = record { loc = λ _ → (0 , 1) ; own = λ _ _ → nothing ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }
bl1 = forget (nxt s1) bl0   -- the first recovery
bl2 = balloc 0 0 bl1   -- page 0 at (0,0)
bl3 = balloc 1 1 bl2   -- page 1 at (1,0)
bl5 = forget (nxt s5) bl3
bl6 = balloc 0 (nxt s5) bl5

X0 X1 X2 X3 X5 X6 : XS
X0 = false , ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧
X1 = false , ⟦ ⟪ s1 , [] ⟫ , g1 ⟧
X2 = true , lzS s2 g1
X3 = true , lzS s3 g1
X5 = true , lzS s5 g1
X6 = true , lzS s6 g1

private
  nj : ∀ {n : ℕ} → nothing ≡ just n → ⊥
  nj ()

  fresh0 : Fresh bl1 0
  fresh0 k o e = nj e

  fresh1 : Fresh bl2 1
  fresh1 zero    zero    ()
  fresh1 zero    (suc o) e = nj e
  fresh1 (suc k) o       e = nj e

  -- after recovery no physical page holds a page at all
  fresh5 : Fresh bl5 0
  fresh5 zero          zero    ()
  fresh5 zero          (suc o) e = nj e
  fresh5 (suc zero)    zero    ()
  fresh5 (suc zero)    (suc o) e = nj e
  fresh5 (suc (suc k)) o       e = nj e

-- the steps (BXone's own, each with its block bookkeeping)
r1 : SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1)
r1 = (refl , inj₁ ((true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)) , refl

w1 : SB.Model.ok BXone (use (reg (op (w 0 true)))) (X1 , bl1) (X2 , bl2)
w1 = inj₂ (refl , refl , s2 , refl , inj₁ ((z≤n , z≤n) , false , false , refl)) ,
     inj₁ (refl , 0 , (inj₁ refl , s≤s z≤n , refl , fresh0) , refl)

c1 : SB.Model.crash BXone (use (reg (op (w 1 true)))) (X2 , bl2) (X3 , bl3)
c1 = inj₂ (refl , refl , s3 , refl , (m3 , inj₁ (inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)) , img-sync m3)) ,
     inj₂ (1 , (inj₂ refl , s≤s z≤n , refl , fresh1) , refl)

r2 : SB.Model.ok BXone SB.recover (X3 , bl3) (X5 , bl5)
r2 = (refl , refl , s5 , refl , (true , 1 , unmapped , refl , refl)) , refl

------------------------------------------------------------------------
-- What recovery left

-- nothing mapped, P's next page back at 0, block 1 still the open one
recovered : l2p s5 0 ≡ nothing × l2p s5 1 ≡ nothing × nxt s5 ≡ 0 × ab bl5 ≡ 1
recovered = refl , refl , refl , refl

-- before the recovery block 0 held page 0, at write pointer 1, in use;
-- after it, block 0 is free at write pointer 0 with nothing to erase
block-0-before : own bl3 0 0 ≡ just 0 × wp bl3 0 ≡ 1 × fr bl3 0 ≡ false
block-0-before = refl , refl , refl

block-0-freed : wp bl5 0 ≡ 0 × fr bl5 0 ≡ true × owners bl5 0 ≡ []
block-0-freed = refl , refl , refl

-- the open block held only page 1, which the crash cut: freed too
block-1-freed : wp bl3 1 ≡ 1 × wp bl5 1 ≡ 0 × fr bl5 1 ≡ true × owners bl5 1 ≡ []
block-1-freed = refl , refl , refl , refl

-- and the next write places its sector in block 0 (erased when taken)
w-after : SB.Model.ok BXone (use (reg (op (w 0 false)))) (X5 , bl5) (X6 , bl6)
w-after = inj₂ (refl , refl , s6 , refl , inj₁ ((z≤n , z≤n) , false , false , refl)) ,
          inj₁ (refl , 0 , (inj₂ refl , s≤s z≤n , refl , fresh5) , refl)
