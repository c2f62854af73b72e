{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the block layer over PX (BXone) takes a block again after a
-- crash cut its erase and lost P's erase steps — a concrete run.
--
-- Blocks of 2 pages; PX's instance as mutant 43's (`umax` = 3, `kc` =
-- 32), data Bool, addresses 0 and 1 (kmax = 0: one relocation per
-- epoch):
--   format + recovery; w(0,true) to P page 0 at (block 0, offset 0);
--   w(1,true) to page 1 at (0, 1); flush; gc_rl of page 0 to page 2 at
--   (1, 0) (block 0 is full, block 1 reusable); flush (page 0
--   erasable); gc_rl of page 1 to page 3 at (1, 1); flush (page 1
--   erasable); gc_es of block 0: PX's erase of page 1, then of page 0,
--   which crashes with nothing of the erases landed (`lose`: every
--   page's durable content, as P allows for an erase not yet SYNCed);
--   PL's recovery.  Block 0's pages hold their old sectors again
--   (`old-sector`) under a write pointer at 0.  w(0,false): P places
--   its next page, and BXone puts it at (0, 0) (`write-into-block-0`),
--   the block erased when it is taken (`act`), as the general lemma
--   `erase-crash-offers` of SCFTL.Impl.OneModelBlocksNamed says.  Before
--   the twenty-second session BX's allocation asked the page at the
--   write pointer to be erased as it stood, which (0, 0) was not
--   (`old-allocation-refuses`), and block 0, with no page below its
--   write pointer, could not be erased again.
------------------------------------------------------------------------
module SCFTL.Impl.OneModelBlocksReuse where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Nat.Properties using (≤-refl)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.List.Relation.Unary.All using ([])
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32 using (rec0L)
open import SCFTL.Impl.LazyChainP Bool false A W K _≟B_ using (_∷_; [])
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (⟪_,_⟫)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (Gh; ⟦_,_⟧; ghostN)
open import SCFTL.Impl.OneModel Bool false A W K 3 _≟B_ 32 using (XS; lzS; PX)
open import SCFTL.Impl.BlocksOver Bool false A W K 3 _≟B_ 1
  using (BL; loc; own; wp; ab; fr; balloc; berase; forget; owners; Fresh; forget-fresh; cell; settle-crash)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 32 1 using (BXone; XB; EsM; one; _∷_)
open import SCFTL.Impl.OneModelBlocksPhys Bool false A W K 3 _≟B_ 32 1
  using (ReachN; ReachC; first; after; step; crashed)
open import SCFTL.Impl.OneModelBlocksNamed Bool false A W K 3 _≟B_ 32 1 using (Offers; erase-crash-offers)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (use; reg; op; w; rl; es; flush; recover)

private
  module M = SB.Model BXone

------------------------------------------------------------------------
-- A crash that keeps nothing unsynced: every cell its durable content

settle : MC → MC
settle m = syn (dur m)

lose : St → St
lose m = record m { dat = λ p → settle (dat m p) ; cpL = settle (cpL m) ; cpO = settle (cpO m)
                  ; dr = map settle (dr m) ; rcd = λ p → settle (rcd m p) }

private
  settleC : ∀ m → CrashC m (settle m)
  settleC (syn c)   = refl
  settleC (uns o n) = inj₁ refl

  settleL : ∀ ms → CrashL ms (map settle ms)
  settleL []       = []
  settleL (m ∷ ms) = settleC m ∷ settleL ms

img-lose : ∀ m → Img m (lose m)
img-lose m = (λ p → settle-crash (dat m p)) , settleC (cpL m) , settleC (cpO m) , settleL (dr m) , (λ p → settleC (rcd m p))

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 s7 s8 s9 m10 m11 c11 s12 s13 : St
s1  = recU true 0 unmapped [] [] s0       -- recovery from the new disk (generation 1)
s2  = wr0 0 true s1                       -- w(0,true): page 0
s3  = wr0 1 true s2                       -- w(1,true): page 1
s4  = fl3 s3                              -- flush: 0 ↦ 0, 1 ↦ 1
s5  = rl0 0 s4                            -- gc_rl: page 0 → page 2
s6  = fl3 s5                              -- flush: page 0 erasable
s7  = rl0 1 s6                            -- gc_rl: page 1 → page 3
s8  = fl3 s7                              -- flush: page 1 erasable
s9  = s8
m10 = esF 1 s9                            -- block 0's erase: page 1
m11 = esF 0 m10                           -- and page 0, which crashes
c11 = lose m11                            -- nothing of the erases landed
s12 = ck3 (rec0L true 1 unmapped c11)     -- PL's recovery
s13 = wr0 0 false s12                     -- w(0,false): P's next page

g1 : Gh
g1 = ghostN ⟪ s1 , [] ⟫

bl0 bl1 bl2 bl3 bl5 bl7 bl11 bl12 bl13 : BL
bl0  = record { loc = λ _ → (0 , 2) ; own = λ _ _ → nothing ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }
bl1 = forget (nxt s1) bl0   -- the first recovery
bl2  = balloc 0 0 bl1              -- page 0 at (0,0)
bl3  = balloc 0 1 bl2              -- page 1 at (0,1)
bl5  = balloc 1 2 bl3              -- page 2 at (1,0)
bl7  = balloc 1 3 bl5              -- page 3 at (1,1)
bl11 = berase 0 bl7                -- block 0 erased in the bookkeeping
bl12 = forget (nxt s12) bl11       -- recovery
bl13 = balloc 0 (nxt s12) bl12     -- P's next page at (0,0)

X : St → XS
X s = true , lzS s g1

Y0 Y1 : XB
Y0 = (false , ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧) , bl0
Y1 = (false , ⟦ ⟪ s1 , [] ⟫ , g1 ⟧) , bl1

block-0-pages : owners bl7 0 ≡ 1 ∷ 0 ∷ []
block-0-pages = refl

-- the recovered state: block 0's pages hold their old sectors, its
-- write pointer is 0
old-sector : cur (cell s12 bl12 0 0) ≡ dcell true 0 × cur (cell s12 bl12 0 1) ≡ dcell true 1 × wp bl12 0 ≡ 0
old-sector = refl , refl , refl

------------------------------------------------------------------------
-- The steps

private
  nj : ∀ {n : ℕ} → nothing ≡ just n → ⊥
  nj ()

  fresh0 : Fresh bl1 0
  fresh0 k o e = nj e

  fresh1 : Fresh bl2 1
  fresh1 zero    zero    ()
  fresh1 zero    (suc o) e = nj e
  fresh1 (suc k) o       e = nj e

  fresh2 : Fresh bl3 2
  fresh2 zero    zero          ()
  fresh2 zero    (suc zero)    ()
  fresh2 zero    (suc (suc o)) e = nj e
  fresh2 (suc k) o             e = nj e

  fresh3 : Fresh bl5 3
  fresh3 zero          zero          ()
  fresh3 zero          (suc zero)    ()
  fresh3 zero          (suc (suc o)) e = nj e
  fresh3 (suc zero)    zero          ()
  fresh3 (suc zero)    (suc o)       e = nj e
  fresh3 (suc (suc k)) o             e = nj e

  new-Y0 : M.New Y0
  new-Y0 = (refl , new-s0 , refl , refl) , ((λ k o → refl) , (λ k → refl) , (λ k → refl)) , (λ p → refl)

  r1 : M.ok recover Y0 Y1
  r1 = (refl , inj₁ ((true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)) , refl

  w1 : M.ok (use (reg (op (w 0 true)))) Y1 (X s2 , bl2)
  w1 = inj₂ (refl , refl , s2 , refl , inj₁ ((z≤n , z≤n) , false , false , refl)) ,
       inj₁ (refl , 0 , (inj₁ refl , s≤s z≤n , refl , fresh0) , refl)

  w2 : M.ok (use (reg (op (w 1 true)))) (X s2 , bl2) (X s3 , bl3)
  w2 = inj₂ (refl , refl , s3 , refl , inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)) ,
       inj₁ (refl , 0 , (inj₁ refl , s≤s (s≤s z≤n) , refl , fresh1) , refl)

  f1 : M.ok (use flush) (X s3 , bl3) (X s4 , bl3)
  f1 = inj₂ (refl , refl , s4 , refl , inj₁ (inj₁ refl)) , refl

  g1′ : M.ok (use (reg (op rl))) (X s4 , bl3) (X s5 , bl5)
  g1′ = inj₂ (refl , refl , s5 , refl , inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , false , false , refl))) ,
        inj₁ (refl , 1 , (inj₂ refl , s≤s z≤n , refl , fresh2) , refl)

  f2 : M.ok (use flush) (X s5 , bl5) (X s6 , bl5)
  f2 = inj₂ (refl , refl , s6 , refl , inj₁ (inj₁ refl)) , refl

  g2′ : M.ok (use (reg (op rl))) (X s6 , bl5) (X s7 , bl7)
  g2′ = inj₂ (refl , refl , s7 , refl , inj₁ (z≤n , 1 , s≤s (s≤s z≤n) , inj₁ ((s≤s z≤n , refl) , false , false , refl))) ,
        inj₁ (refl , 1 , (inj₁ refl , s≤s (s≤s z≤n) , refl , fresh3) , refl)

  f3 : M.ok (use flush) (X s7 , bl7) (X s8 , bl7)
  f3 = inj₂ (refl , refl , s8 , refl , inj₁ (inj₁ refl)) , refl

  -- PL's erase guard: the chain is empty, the region's newest commit
  -- names neither page of block 0
  es1 : EsM (X s8) 1 (X m10)
  es1 = inj₂ (refl , refl , m10 , refl , (1 , refl , ([] , (((λ ()) ∷ []) ∷ [])) , refl)) , refl

  es0 : EsM (X m10) 0 (X m11)
  es0 = inj₂ (refl , refl , m11 , refl , (0 , refl , ([] , (((λ ()) ∷ []) ∷ [])) , refl)) , refl

  c0 : SB.Model.crash PX (use (reg (op es))) (X m10) (X c11)
  c0 = inj₂ (refl , refl , c11 , refl , (m11 , (0 , refl , ([] , (((λ ()) ∷ []) ∷ [])) , refl) , img-lose m11))

  -- the block erase, crashed in its last page's erase
  ce : M.crash (use (reg (op es))) (X s8 , bl7) (X c11 , bl11)
  ce = 0 , (X m11 , es1 ∷ one es0) , es1 ∷ one c0 , refl

  r12 : M.ok recover (X c11 , bl11) (X s12 , bl12)
  r12 = (refl , refl , s12 , refl , (true , 1 , unmapped , refl , refl)) , refl

------------------------------------------------------------------------
-- Reachable, and the write after it

reach-Y8 : ReachN (X s8 , bl7)
reach-Y8 = step flush (step (reg (op rl)) (step flush (step (reg (op rl)) (step flush
             (step (reg (op (w 1 true))) (step (reg (op (w 0 true))) (first new-Y0 r1) w1) w2) f1) g1′) f2) g2′) f3

reach-C11 : ReachC (X c11 , bl11)
reach-C11 = crashed (reg (op es)) reach-Y8 ce

reach-Y12 : ReachN (X s12 , bl12)
reach-Y12 = after reach-C11 r12

-- P takes its next page, 4 (the recovered map names pages 2 and 3)
next-page : nxt s12 ≡ 4
next-page = refl

-- BXone places it at (0, 0): block 0 is taken again, erased first
write-into-block-0 : M.ok (use (reg (op (w 0 false)))) (X s12 , bl12) (X s13 , bl13)
write-into-block-0 =
  inj₂ (refl , refl , s13 , refl , inj₁ ((z≤n , z≤n) , false , false , refl)) ,
  inj₁ (refl , 0 , (inj₂ refl , s≤s z≤n , refl , forget-fresh {bl11} 4 4 ≤-refl) , refl)

placed-at : loc bl13 4 ≡ (0 , 0) × own bl13 0 0 ≡ just 4 × own bl13 0 1 ≡ nothing
placed-at = refl , refl , refl

reach-Y13 : ReachN (X s13 , bl13)
reach-Y13 = step (reg (op (w 0 false))) reach-Y12 write-into-block-0

-- the general lemma says the same of this crash
offers : Offers (X s12) bl12 0
offers = erase-crash-offers {X s8} {bl7} ce r12

-- BX's allocation before the twenty-second session asked the page at
-- the write pointer to be erased as it stood: (0, 0) holds address 0's
-- old sector
old-allocation-refuses : ¬ (cur (cell s12 bl12 0 (wp bl12 0)) ≡ erased)
old-allocation-refuses ()
