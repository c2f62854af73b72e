{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 27 (issue 39, blocks): a READ THROUGH A STALE LOCATION.  A
-- mutant of the block-level model B (SCFTL.Impl.Blocks) whose reads are
-- physical (`rdB`, SCFTL.Impl.BlocksRead: the L2P entry, then the merge
-- buffer or the physical page where B's location map places the P page).
--
-- The one change: allocation (`ballocM`, for writes and relocations)
-- records the placed page as the physical page's incarnation (`own`)
-- and advances the write pointer, but does not record where the page
-- went (`loc` keeps its stale entry).  (The Rust's counterpart: the L2P
-- entry, or a delta pair, written with a stale physical sector address
-- instead of the one the sector was programmed at.)
--
-- Counterexample (blocks of 2 pages; after format + recovery; the
-- format's location map places every P page at (0, 2), past the block):
--   w(0,true): page 0 placed at (block 0, offset 0), its location still
--   (0, 2); flush: the merge buffer's program writes only physical pages
--   whose incarnation is located there, so (0, 0) stays erased, and
--   address 0 reads through the stale location (0, 2), erased; a write
--   of address 0 (placed at (0, 1)) crashes at its end with everything
--   landed; recover.
-- SC allows only the image of the flush: address 0 = true.  The
-- recovered L2P maps address 0 to page 0, read at (0, 2): false (d0).
-- (P's own read, through P's page 0, still says true.)
------------------------------------------------------------------------
module SCFTL.Mutants.ReadStaleLocation where

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
open import SCFTL.Impl.BlocksRead Bool false A W K _≟B_ 1 using (rdB)

------------------------------------------------------------------------
-- The mutant

ballocM : ℕ → Bk → Bk
ballocM k b = record b
  { ab = k ; fr = fr b [ k ≔ false ]                       -- MUTATED: loc not updated
  ; own = own b [ k ≔ own b k [ wp b k ≔ nxt (st b) ] ]
  ; wp = wp b [ k ≔ suc (wp b k) ] }

okM crashM : Op → Bk → Bk → Set
okM (use (regop (w a d))) b b' =
    (InB a (st b) × Σ ℕ λ k → AllocOK b k ×
       Σ Bool λ f1 → Σ Bool λ f2 → b' ≡ bopt f1 f2 (bP (wr0 a d) (ballocM k b)))
  ⊎ (¬ InB a (st b) × b' ≡ b)
okM (use (regop rl)) b b' =
    (gcnt (st b) ≤ K × Σ ℕ λ p → p < nxt (st b) ×
       ((Valid (st b) p × Σ ℕ λ k → AllocOK b k ×
           Σ Bool λ f1 → Σ Bool λ f2 → b' ≡ bopt f1 f2 (bP (rl0 p) (ballocM k b)))
        ⊎ (¬ Valid (st b) p × b' ≡ bP (rlX p) b)))
  ⊎ (¬ gcnt (st b) ≤ K × b' ≡ b)
okM o = okB o
crashM (use (regop x)) b b' = Σ Bk λ m → okM (use (regop x)) b m × BImg m b'
crashM o = crashB o

Pmut : Model
Pmut = record { State = Bk ; New = NewB ; read = rdB ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

-- format: P's new disk, every physical page erased, every block
-- reusable; every P page's location is (0, 2), past the block, and every
-- physical page's incarnation is page 7, which the run never places
b0 : Bk
b0 = record { st = s0 ; pf = λ _ _ → syn erased ; loc = λ _ → (0 , 2) ; own = λ _ _ → 7
            ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }

new-b0 : NewB b0
new-b0 = new-s0 , (λ k o → refl) , (λ k → refl) , (λ k → refl)

b1 b2 b3 m4 b4 b5 : Bk
b1 = record b0 { st = ck3 (rec0 true 0 unmapped s0) ; pf = psync (pf b0) }   -- recovery
b2 = bopt false false (bP (wr0 0 true) (ballocM 0 b1))    -- w(0,true): page 0 at (0,0), loc stale
b3 = record b2 { st = fl3 (st b2) ; pf = psync (pprog b2) }   -- flush
m4 = bopt false false (bP (wr0 0 true) (ballocM 0 b3))    -- w(0,true): page 1 at (0,1)
b4 = bland m4                                             -- crash: everything landed
b5 = record b4 { st = ck3 (rec0 true 1 unmapped (st b4)) ; pf = psync (pf b4) }   -- recovery

open Fragments Pmut

r1 : okM recover b0 b1
r1 = _ , (true , 0 , unmapped , refl , inj₁ refl) , refl

w1 : okM (use (regop (w 0 true))) b1 b2
w1 = inj₁ ((z≤n , z≤n) , 0 , (inj₁ refl , s≤s z≤n , refl) , false , false , refl)

f1 : okM (use flush) b2 b3
f1 = _ , inj₁ refl , refl

c1 : crashM (use (regop (w 0 true))) b3 b4
c1 = m4 , inj₁ ((z≤n , z≤n) , 0 , (inj₁ refl , s≤s (s≤s z≤n) , refl) , false , false , refl) , bland-img m4

r2 : okM recover b4 b5
r2 = _ , (true , 1 , unmapped , refl , inj₁ refl) , refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ [])) [] (regop (w 0 true)) 0 ∷ []) []

F : MultiRec shape b0
F = multirec new-b0 [] r1 (onerec {t3c = b4} (flushed (w1 ∷ []) f1) [] c1 [] r2 ∷ done [])

-- page 0 was placed at (0, 0), but its location is stale
stale : own b2 0 0 ≡ 0 × loc b2 0 ≡ (0 , 2)
stale = refl , refl

-- P's read (through P's page 0) is right; the physical one is not
P-read : rd (st b5) 0 ≡ true
P-read = refl

recovered-read : rdB b5 0 ≡ false
recovered-read = refl

-- B records the location
B-locates : loc (bP (wr0 0 true) (balloc 0 b1)) 0 ≡ (0 , 0)
B-locates = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
