{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 26 (issue 39, blocks): allocation REUSES A PHYSICAL PAGE THAT
-- STILL HOLDS A LIVE P PAGE.  A mutant of the block-level model B
-- (SCFTL.Impl.Blocks) whose reads are physical (`rdB`,
-- SCFTL.Impl.BlocksRead: the L2P entry, then the merge buffer or the
-- physical page where B's location map places the P page), not P's.
--
-- The one change: allocation (`ballocM`, for writes and relocations)
-- places the next P page at the write pointer of the block but does not
-- advance the write pointer.  Its guard is B's (`AllocOK`: the physical
-- page is erased, checked on the physical page), which does not stop
-- it: a second sector placed before the merge buffer is programmed finds
-- the same physical page still erased.  (The Rust's counterpart: the
-- allocator's cursor not advanced after a placement, so two buffered
-- sectors get the same physical sector address in the L2P and in the
-- delta pairs.)
--
-- Counterexample (blocks of 2 pages; after format + recovery):
--   w(0,true): page 0 at (block 0, offset 0); w(1,false): page 1 at
--   (0, 0) too (the write pointer stayed 0, the physical page is still
--   erased: only the merge buffer holds page 0); flush: the physical page
--   (0, 0) is programmed with its last incarnation, page 1's sector
--   (false, address 1); the commit maps 0 ↦ page 0, 1 ↦ page 1; a
--   write of address 0 (placed in block 1) crashes at its end with
--   everything landed; recover.
-- SC allows only the image of the flush: address 0 = true.  The
-- recovered L2P maps address 0 to page 0, located at (0, 0), which holds
-- address 1's sector: address 0 reads false.  (P's own read, through
-- P's page 0, still says true: the bug is in the location map alone.)
------------------------------------------------------------------------
module SCFTL.Mutants.AllocReusesLivePage where

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
  { ab = k ; fr = fr b [ k ≔ false ]
  ; loc = loc b [ nxt (st b) ≔ (k , wp b k) ]
  ; own = own b [ k ≔ own b k [ wp b k ≔ nxt (st b) ] ] }   -- MUTATED: wp not advanced

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
-- reusable, no P page located anywhere (offset 2 is past every block)
b0 : Bk
b0 = record { st = s0 ; pf = λ _ _ → syn erased ; loc = λ _ → (0 , 2) ; own = λ _ _ → 0
            ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }

new-b0 : NewB b0
new-b0 = new-s0 , (λ k o → refl) , (λ k → refl) , (λ k → refl)

b1 b2 b3 b4 m5 b5 b6 : Bk
b1 = record b0 { st = ck3 (rec0 true 0 unmapped s0) ; pf = psync (pf b0) }   -- recovery
b2 = bopt false false (bP (wr0 0 true) (ballocM 0 b1))    -- w(0,true): page 0 at (0,0)
b3 = bopt false false (bP (wr0 1 false) (ballocM 0 b2))   -- w(1,false): page 1 at (0,0)
b4 = record b3 { st = fl3 (st b3) ; pf = psync (pprog b3) }   -- flush
m5 = bopt false false (bP (wr0 0 true) (ballocM 1 b4))    -- w(0,true): page 2 at (1,0)
b5 = bland m5                                             -- crash: everything landed
b6 = record b5 { st = ck3 (rec0 true 1 unmapped (st b5)) ; pf = psync (pf b5) }   -- recovery

open Fragments Pmut

r1 : okM recover b0 b1
r1 = _ , (true , 0 , unmapped , refl , inj₁ refl) , refl

w1 : okM (use (regop (w 0 true))) b1 b2
w1 = inj₁ ((z≤n , z≤n) , 0 , (inj₁ refl , s≤s z≤n , refl) , false , false , refl)

w2 : okM (use (regop (w 1 false))) b2 b3
w2 = inj₁ ((s≤s z≤n , s≤s z≤n) , 0 , (inj₁ refl , s≤s z≤n , refl) , false , false , refl)

f1 : okM (use flush) b3 b4
f1 = _ , inj₁ refl , refl

c1 : crashM (use (regop (w 0 true))) b4 b5
c1 = m5 , inj₁ ((z≤n , z≤n) , 1 , (inj₂ refl , s≤s z≤n , refl) , false , false , refl) , bland-img m5

r2 : okM recover b5 b6
r2 = _ , (true , 1 , unmapped , refl , inj₁ refl) , refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (regop (w 0 true) ∷ regop (w 1 false) ∷ [])) []
                         (regop (w 0 true)) 0 ∷ []) []

F : MultiRec shape b0
F = multirec new-b0 [] r1 (onerec {t3c = b5} (flushed (w1 ∷ w2 ∷ []) f1) [] c1 [] r2 ∷ done [])

-- both P pages at one physical page; its last incarnation is page 1
same-place : loc b3 0 ≡ (0 , 0) × loc b3 1 ≡ (0 , 0)
same-place = refl , refl

flushed-read : rdB b4 0 ≡ false
flushed-read = refl

-- P's read (through P's page 0) is still right; the physical one is not
P-read : rd (st b6) 0 ≡ true
P-read = refl

recovered-read : rdB b6 0 ≡ false
recovered-read = refl

-- B advances the write pointer: the second sector goes to (0, 1)
B-places-apart : loc (bP (wr0 1 false) (balloc 0 (bP (wr0 0 true) (balloc 0 b1)))) 1 ≡ (0 , 1)
B-places-apart = refl

violation : ¬ MultiRecSC F
violation (sc , _) with sc 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
