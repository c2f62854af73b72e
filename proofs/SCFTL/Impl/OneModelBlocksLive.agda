{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the block layer over PX (BXone) keeps taking writes after a
-- crash that lost the open epoch's pages — a concrete run.
--
-- Blocks of 2 pages; PX's instance as mutant 43's (`umax` = 3, `kc` =
-- 32), data Bool, addresses 0 and 1:
--   format + recovery (generation 1); w(0,true) places P page 0 at
--   (block 0, offset 0), in the merge buffer; the write's crash point
--   at its end, with the allocation (the merge buffer is lost); PL's
--   recovery.  P's recovery restarts its next page past what the
--   recovered map and the region name: nothing, so P's next page is 0
--   again (`page-taken-again`).  w(0,true) again: P places page 0, and
--   BXone puts it at (0, 0) again (`write-after-crash`: since the
--   thirty-first session recovery frees block 0, whose only placement it
--   forgot, and the allocation erases it first, `act`; it was (0, 1)
--   before, the open block continued), by the general lemma
--   `bx-w-live` of SCFTL.Impl.OneModelBlocksNamed too
--   (`write-after-crash′`: P's next page is on no physical page in every
--   normal state of every run).  Before the twenty-first session BX's
--   allocation asked that P's page taken be on no physical page yet,
--   and recovery kept the placements: page 0 was still at (0, 0), so no
--   write that places a sector was possible after this crash
--   (`kept-placement-refuses`).
------------------------------------------------------------------------
module SCFTL.Impl.OneModelBlocksLive where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using ([])
open import Data.List.Relation.Unary.All using ([])
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32 using (rec0L)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (⟪_,_⟫)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (Gh; ⟦_,_⟧; ghostN)
open import SCFTL.Impl.OneModel Bool false A W K 3 _≟B_ 32 using (XS; lzS)
open import SCFTL.Impl.BlocksOver Bool false A W K 3 _≟B_ 1
  using (BL; own; balloc; forget; Fresh; forget-fresh)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 32 1 using (BXone; XB)
open import SCFTL.Impl.OneModelBlocksPhys Bool false A W K 3 _≟B_ 32 1
  using (ReachN; ReachC; first; after; crashed)
open import SCFTL.Impl.OneModelBlocksNamed Bool false A W K 3 _≟B_ 32 1 using (bx-w-live)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (use; reg; op; w; recover)

private
  module M = SB.Model BXone

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 : St
s1 = recU true 0 unmapped [] [] s0      -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                      -- w(0,true): P page 0, in the merge buffer
s3 = ck3 (rec0L true 1 unmapped s2)     -- PL's recovery from the crash at the write's end
s4 = wr0 0 true s3                      -- w(0,true) again: P page 0 again

g1 : Gh
g1 = ghostN ⟪ s1 , [] ⟫

bl0 bl1 bl2 bl3 bl4 : BL
bl0 = record { loc = λ _ → (0 , 2) ; own = λ _ _ → nothing ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }
bl1 = forget (nxt s1) bl0   -- the first recovery
bl2 = balloc 0 0 bl1          -- page 0 at (0,0)
bl3 = forget (nxt s3) bl2      -- recovery forgets the placements from P's next page on
bl4 = balloc 0 0 bl3          -- page 0 at (0,0), block 0 erased when taken

Y0 Y1 C2 Y3 Y4 : XB
Y0 = (false , ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧) , bl0
Y1 = (false , ⟦ ⟪ s1 , [] ⟫ , g1 ⟧) , bl1
C2 = (true , lzS s2 g1) , bl2
Y3 = (true , lzS s3 g1) , bl3
Y4 = (true , lzS s4 g1) , bl4

-- P takes page 0 again after the crash
page-taken-again : nxt s2 ≡ 1 × nxt s3 ≡ 0
page-taken-again = refl , refl

------------------------------------------------------------------------
-- The steps

private
  new-Y0 : M.New Y0
  new-Y0 = (refl , new-s0 , refl , refl) , ((λ k o → refl) , (λ k → refl) , (λ k → refl)) , (λ p → refl)

  r1 : M.ok recover Y0 Y1
  r1 = (refl , inj₁ ((true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)) , refl

  fresh0 : Fresh bl1 0
  fresh0 k o ()

  -- the write's crash point at its end: the merge buffer lost, every
  -- other page as it was; the allocation done
  c2 : M.crash (use (reg (op (w 0 true)))) (proj₁ Y1 , bl1) C2
  c2 = inj₂ (refl , refl , s2 , refl ,
             (s2 , inj₁ (inj₁ ((z≤n , z≤n) , false , false , refl)) ,
              (λ p → refl) , refl , refl , [] , (λ p → refl))) ,
       inj₂ (0 , (inj₁ refl , s≤s z≤n , refl , fresh0) , refl)

  r3 : M.ok recover C2 Y3
  r3 = (refl , refl , s3 , refl , (true , 1 , unmapped , refl , refl)) , refl

reach-Y1 : ReachN Y1
reach-Y1 = first new-Y0 r1

reach-C2 : ReachC C2
reach-C2 = crashed (reg (op (w 0 true))) reach-Y1 c2

reach-Y3 : ReachN Y3
reach-Y3 = after reach-C2 r3

-- the write after the crash: page 0 placed again, at (0,0)
write-after-crash : M.ok (use (reg (op (w 0 true)))) Y3 Y4
write-after-crash =
  inj₂ (refl , refl , s4 , refl , inj₁ ((z≤n , z≤n) , false , false , refl)) ,
  inj₁ (refl , 0 , (inj₁ refl , s≤s z≤n , refl , forget-fresh {bl2} 0 0 z≤n) , refl)

-- the same by the general lemma: any block offering an erased page at
-- its write pointer will do
write-after-crash′ : Σ BL λ bl' → M.ok (use (reg (op (w 0 true)))) Y3 (proj₁ Y4 , bl')
write-after-crash′ =
  bx-w-live 0 true {Y3} reach-Y3 (inj₂ (refl , refl , s4 , refl , inj₁ ((z≤n , z≤n) , false , false , refl)))
    (λ _ → 0 , inj₁ refl , s≤s z≤n , refl)

-- with the placements kept across recovery (BX before the twenty-first
-- session), P's page 0 would still be at (0,0): no allocation of it
kept-placement-refuses : ¬ Fresh bl2 (nxt s3)
kept-placement-refuses f = f 0 0 refl
