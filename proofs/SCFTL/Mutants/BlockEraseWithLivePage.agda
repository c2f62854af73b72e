{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 20 (issue 39, blocks): a block ERASED WHILE IT HOLDS A LIVE
-- PAGE.  A mutant of the block-level model B (SCFTL.Impl.Blocks), not
-- of P: B with its whole-block erase's guard weakened.
--
-- The one change: erasing block k checks only that the page at offset 0
-- of the block is erasable (in P's `ers`), not every page located in it
-- (B's `EsRun`); the block is then erased whole, every P page located in
-- it through `esF` (`esAll`).  (The Rust's counterpart: a superblock
-- erased because one of its pages was relocated, not because its valid
-- count reached 0 and the epoch that freed it is durable.)
--
-- Counterexample (blocks of 2 pages; after format + recovery):
--   w(0,true) to page 0 = (block 0, offset 0); w(1,true) to page 1 =
--   (0, 1); flush (commit: 0 ↦ 0, 1 ↦ 1); gc_rl with victim page 0 (copy
--   to page 2 = (1, 0): block 0 is full, block 1, erased, is opened);
--   flush (commit: 0 ↦ 2; page 0 erasable); gc_es erasing block 0 (its
--   first page is erasable, its second page, address 1's only copy, is
--   not), crashing at its end with everything landed; recover.
-- SC allows only the image of the last flush: address 1 = true.  The
-- recovered L2P maps address 1 to page 1 (the first commit's pair, not
-- overridden), which is erased: address 1 reads false.
------------------------------------------------------------------------
module SCFTL.Mutants.BlockEraseWithLivePage where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common hiding (land-D; land-C; land-L)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import SCFTL.Impl.Blocks Bool false A W K _≟B_ 1   -- blocks of Z = 2 pages

------------------------------------------------------------------------
-- The mutant

esAll : List ℕ → St → St
esAll []       s = s
esAll (p ∷ ps) s = esAll ps (esF p s)

okM crashM : Op → Bk → Bk → Set
okM (use (regop es)) b b' =                                       -- MUTATED
  Σ ℕ λ k → ¬ (k ≡ ab b) × ers (st b) (own b k 0) ≡ true × b' ≡ berase k (esAll (owners b k) (st b)) b
okM o = okB o
crashM (use (regop es)) b b' = Σ Bk λ m → okM (use (regop es)) b m × BImg m b'
crashM o = crashB o

Pmut : Model
Pmut = record { State = Bk ; New = NewB ; read = λ b → rd (st b) ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

-- format: P's new disk, every physical page erased, every block
-- reusable, no P page located anywhere (offset 2 is past every block)
b0 : Bk
b0 = record { st = s0 ; pf = λ _ _ → syn erased ; loc = λ _ → (0 , 2) ; own = λ _ _ → 0
            ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }

new-b0 : NewB b0
new-b0 = new-s0 , (λ k o → refl) , (λ k → refl) , (λ k → refl)

b1 b2 b3 b4 b5 b6 m7 b7 b8 : Bk
b1 = record b0 { st = ck3 (rec0 true 0 unmapped s0) ; pf = psync (pf b0) }   -- recovery
b2 = bopt false false (bP (wr0 0 true) (balloc 0 b1))   -- w(0,true): page 0 at (0,0)
b3 = bopt false false (bP (wr0 1 true) (balloc 0 b2))   -- w(1,true): page 1 at (0,1)
b4 = record b3 { st = fl3 (st b3) ; pf = psync (pprog b3) }   -- flush
b5 = bopt false false (bP (rl0 0) (balloc 1 b4))        -- gc_rl: page 0 → page 2 at (1,0)
b6 = record b5 { st = fl3 (st b5) ; pf = psync (pprog b5) }   -- flush: page 0 erasable
m7 = berase 0 (esAll (owners b6 0) (st b6)) b6          -- erase block 0 (pages 1, 0)
b7 = bland m7                                           -- crash: everything landed
b8 = record b7 { st = ck3 (rec0 true 1 unmapped (st b7)) ; pf = psync (pf b7) }   -- recovery

open Fragments Pmut

r1 : okM recover b0 b1
r1 = _ , (true , 0 , unmapped , refl , inj₁ refl) , refl

w1 : okM (use (regop (w 0 true))) b1 b2
w1 = inj₁ ((z≤n , z≤n) , 0 , (inj₁ refl , s≤s z≤n , refl) , false , false , refl)

w2 : okM (use (regop (w 1 true))) b2 b3
w2 = inj₁ ((s≤s z≤n , s≤s z≤n) , 0 , (inj₁ refl , s≤s (s≤s z≤n) , refl) , false , false , refl)

f1 : okM (use flush) b3 b4
f1 = _ , inj₁ refl , refl

g1 : okM (use (regop rl)) b4 b5
g1 = inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , 1 , (inj₂ refl , s≤s z≤n , refl) , false , false , refl))

f2 : okM (use flush) b5 b6
f2 = _ , inj₁ refl , refl

c1 : crashM (use (regop es)) b6 b7
c1 = m7 , (0 , (λ ()) , refl , refl) , bland-img m7

r2 : okM recover b7 b8
r2 = _ , (true , 1 , unmapped , refl , inj₁ refl) , refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ regop (w 1 true) ∷ flush ∷ regop rl ∷ [])) []
                         (regop es) 0 ∷ []) []

F : MultiRec shape b0
F = multirec new-b0 [] r1 (onerec {t3c = b7} (flushed (w1 ∷ w2 ∷ f1 ∷ g1 ∷ []) f2) [] c1 [] r2 ∷ done [])

-- reuse happened in the run: block 1 was opened from the erased blocks
opened-block-1 : ab b5 ≡ 1
opened-block-1 = refl

page-2-at : loc b5 2 ≡ (1 , 0)
page-2-at = refl

-- the block holds page 0 (erasable) and page 1 (address 1's only copy)
block-0-pages : owners b6 0 ≡ 1 ∷ 0 ∷ []
block-0-pages = refl

flushed-read : rd (st b6) 1 ≡ true
flushed-read = refl

recovered-read : rd (st b8) 1 ≡ false
recovered-read = refl

-- B refuses that erase: page 1, located in block 0, is not erasable
B-refuses : ers (st b6) 1 ≡ false
B-refuses = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 1 (s≤s z≤n)
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
