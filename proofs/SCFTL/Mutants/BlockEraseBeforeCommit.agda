{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 21 (issue 39, blocks): a block ERASED BEFORE THE COMMIT THAT
-- FREED IT.  A mutant of the block-level model B (SCFTL.Impl.Blocks).
--
-- The one change: the whole-block erase accepts a page that is only
-- invalid (`inv`: relocated in this epoch, whose commit has not happened)
-- as well as an erasable one (`ers`), page by page (`EsRun′`), where B
-- requires every page erasable.  (The Rust's counterpart: a superblock
-- erased while Invalid, before `Blocks::end_epoch` makes it Erasable
-- after the commit's sync — two-phase GC at the level of blocks.)
--
-- Counterexample (blocks of 2 pages; after format + recovery):
--   w(0,true) to page 0 = (block 0, offset 0); w(1,true) to page 1 =
--   (0, 1); flush; gc_rl with victim page 1 (copy to page 2 = (1, 0));
--   flush (page 1 erasable); gc_rl with victim page 0 (copy to page 3 =
--   (1, 1), in the merge buffer; page 0 invalid); gc_es erasing block 0,
--   crashing at its end with everything landed; recover.
-- SC allows only the image of the last flush: address 0 = true.  The
-- last commit maps address 0 to page 0 (the relocation to page 3 was
-- never committed), which is erased: address 0 reads false.
------------------------------------------------------------------------
module SCFTL.Mutants.BlockEraseBeforeCommit where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false; _∨_)
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

data EsRun′ : St → List ℕ → St → Set where                       -- MUTATED
  one : ∀ {s p} → (inv s p ∨ ers s p) ≡ true → EsRun′ s (p ∷ []) (esF p s)
  _∷_ : ∀ {s p ps s'} → (inv s p ∨ ers s p) ≡ true → EsRun′ (esF p s) ps s' → EsRun′ s (p ∷ ps) s'

okM crashM : Op → Bk → Bk → Set
okM (use (regop es)) b b' =
  Σ ℕ λ k → ¬ (k ≡ ab b) × Σ St λ s' → EsRun′ (st b) (owners b k) s' × b' ≡ berase k s' b
okM o = okB o
crashM (use (regop es)) b b' = Σ Bk λ m → okM (use (regop es)) b m × BImg m b'
crashM o = crashB o

Pmut : Model
Pmut = record { State = Bk ; New = NewB ; read = λ b → rd (st b) ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

b0 : Bk
b0 = record { st = s0 ; pf = λ _ _ → syn erased ; loc = λ _ → (0 , 2) ; own = λ _ _ → 0
            ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }

new-b0 : NewB b0
new-b0 = new-s0 , (λ k o → refl) , (λ k → refl) , (λ k → refl)

b1 b2 b3 b4 b5 b6 b7 m8 b8 b9 : Bk
b1 = record b0 { st = ck3 (rec0 true 0 unmapped s0) ; pf = psync (pf b0) }   -- recovery
b2 = bopt false false (bP (wr0 0 true) (balloc 0 b1))   -- w(0,true): page 0 at (0,0)
b3 = bopt false false (bP (wr0 1 true) (balloc 0 b2))   -- w(1,true): page 1 at (0,1)
b4 = record b3 { st = fl3 (st b3) ; pf = psync (pprog b3) }   -- flush
b5 = bopt false false (bP (rl0 1) (balloc 1 b4))        -- gc_rl: page 1 → page 2 at (1,0)
b6 = record b5 { st = fl3 (st b5) ; pf = psync (pprog b5) }   -- flush: page 1 erasable
b7 = bopt false false (bP (rl0 0) (balloc 1 b6))        -- gc_rl: page 0 → page 3 at (1,1)
m8 = berase 0 (esF 0 (esF 1 (st b7))) b7                -- erase block 0 (pages 1, 0)
b8 = bland m8                                           -- crash: everything landed
b9 = record b8 { st = ck3 (rec0 true 1 unmapped (st b8)) ; pf = psync (pf b8) }   -- recovery

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
g1 = inj₁ (z≤n , 1 , s≤s (s≤s z≤n) , inj₁ ((s≤s z≤n , refl) , 1 , (inj₂ refl , s≤s z≤n , refl) , false , false , refl))

f2 : okM (use flush) b5 b6
f2 = _ , inj₁ refl , refl

g2 : okM (use (regop rl)) b6 b7
g2 = inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , 1 , (inj₁ refl , s≤s (s≤s z≤n) , refl) , false , false , refl))

c1 : crashM (use (regop es)) b7 b8
c1 = m8 , (0 , (λ ()) , _ , (refl ∷ one refl) , refl) , bland-img m8

r2 : okM recover b8 b9
r2 = _ , (true , 1 , unmapped , refl , inj₁ refl) , refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ regop (w 1 true) ∷ flush ∷ regop rl ∷ [])) (rl ∷ [])
                         (regop es) 0 ∷ []) []

F : MultiRec shape b0
F = multirec new-b0 [] r1 (onerec {t3c = b8} (flushed (w1 ∷ w2 ∷ f1 ∷ g1 ∷ []) f2) (g2 ∷ []) c1 [] r2 ∷ done [])

block-0-pages : owners b7 0 ≡ 1 ∷ 0 ∷ []
block-0-pages = refl

flushed-read : rd (st b6) 0 ≡ true
flushed-read = refl

recovered-read : rd (st b9) 0 ≡ false
recovered-read = refl

-- B refuses that erase: page 0 is only invalid, not erasable
page-0-invalid : inv (st b7) 0 ≡ true
page-0-invalid = refl

B-refuses : ers (st b7) 0 ≡ false
B-refuses = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
