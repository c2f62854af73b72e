{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 43 (issue 39), of the block layer over the one model (BXone,
-- SCFTL.Impl.OneModelBlocks): a block ERASED WHILE IT HOLDS A LIVE PAGE.
--
-- The one change: erasing block k checks only that the page at offset 0
-- of the block is erasable, and then erases every page placed in the
-- block at once (`esAll`), where BXone runs PX's own erase step for
-- each of them (`EsRunM`: PX's guard, erasable and, in the chain phase,
-- clear of the lazy chain, for every page).  (The Rust's counterpart: a
-- superblock erased because one of its pages was relocated, not because
-- its valid count reached 0 and the epoch that freed it is durable.)
-- As mutant 20 for B over P, now over PX, in its chain phase (PL's
-- steps).
--
-- Counterexample (blocks of 2 pages; PX's instance, `umax` = 3,
-- `kc` = 32; after format + recovery):
--   w(0,true) to page 0 = (block 0, offset 0); w(1,true) to page 1 =
--   (0, 1); flush (commit: 0 ↦ 0, 1 ↦ 1); gc_rl with victim page 0 (copy
--   to page 2 = (1, 0): block 0 is full, block 1, erased, is opened);
--   flush (commit: 0 ↦ 2; page 0 erasable); gc_es erasing block 0 (its
--   first page is erasable, its second page, address 1's only copy, is
--   not), crashing at its end with everything landed; recover (PL's).
-- SC1B allows only the image of the last flush: address 1 = true.  The
-- recovered L2P maps address 1 to page 1 (the first commit's pair, not
-- overridden), which is erased: address 1 reads false.  BXone refuses
-- that erase: page 1 is not erasable (`BX-refuses`), so no erase step of
-- PX takes it.
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.BlockEraseOverPX where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using (List; []; _∷_)
open import Data.List.Relation.Unary.Any using (here; there)
open import Data.List.Relation.Unary.All using (All; [])
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32 using (rec0L)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (Gh; SU; ⟦_,_⟧; su; gh; ghostN)
open import SCFTL.Impl.OneModel Bool false A W K 3 _≟B_ 32 using (XS; lzS)
open import SCFTL.Impl.BlocksOver Bool false A W K 3 _≟B_ 1
  using (BL; own; wp; ab; fr; loc; balloc; berase; forget; owners; Fresh)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 32 1
  using (stX; XB; okBX; crashBX; NewBX)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; UOp; use; reg; op; barrier; w; rl; es)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

esAll : List ℕ → St → St
esAll []       s = s
esAll (p ∷ ps) s = esAll ps (esF p s)

-- the crash outcome with every pending command landed
landX : XB → XB
landX ((b , ⟦ ⟪ s , us ⟫ , g ⟧) , bl) = (b , ⟦ ⟪ syncAll s , us ⟫ , g ⟧) , bl

okM crashM : Op → XB → XB → Set
okM (use (reg (op es))) ((b , S) , bl) Y' =                                -- MUTATED
  Σ ℕ λ k → ¬ (k ≡ ab bl) × (Σ ℕ λ q → own bl k 0 ≡ just q × ers (st (su S)) q ≡ true) ×
  Y' ≡ ((b , ⟦ ⟪ esAll (owners bl k) (st (su S)) , ues (su S) ⟫ , gh S ⟧) , berase k bl)
okM o = okBX o
crashM (use (reg (op es))) Y Y' = Σ XB λ m → okM (use (reg (op es))) Y m × Y' ≡ landX m
crashM o = crashBX o

Pmut : Model
Pmut = record { State = XB ; New = NewBX ; read = λ Y → rd (stX (proj₁ Y)) ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 s7 s8 : St
s1 = recU true 0 unmapped [] [] s0   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true): page 0
s3 = wr0 1 true s2                   -- w(1,true): page 1
s4 = fl3 s3                          -- flush: 0 ↦ 0, 1 ↦ 1
s5 = rl0 0 s4                        -- gc_rl: page 0 → page 2
s6 = fl3 s5                          -- flush: 0 ↦ 2, page 0 erasable
s7 = syncAll (esAll (1 ∷ 0 ∷ []) s6)  -- block 0 erased, landed
s8 = ck3 (rec0L true 1 unmapped s7)  -- PL's recovery

g1 : Gh
g1 = ghostN ⟪ s1 , [] ⟫

-- format: nothing placed, every block reusable
bl0 bl1 bl2 bl3 bl5 bl7 bl8 : BL
bl0 = record { loc = λ _ → (0 , 2) ; own = λ _ _ → nothing ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }
bl1 = forget (nxt s1) bl0   -- the first recovery
bl2 = balloc 0 0 bl1   -- page 0 at (0,0)
bl3 = balloc 0 1 bl2   -- page 1 at (0,1)
bl5 = balloc 1 2 bl3   -- page 2 at (1,0)
bl7 = berase 0 bl5
bl8 = forget (nxt s8) bl7   -- recovery forgets placements from P's next page on

Y0 Y1 Y2 Y3 Y4 Y5 Y6 m7 Y7 Y8 : XB
Y0 = (false , ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧) , bl0
Y1 = (false , ⟦ ⟪ s1 , [] ⟫ , g1 ⟧) , bl1
Y2 = (true , lzS s2 g1) , bl2
Y3 = (true , lzS s3 g1) , bl3
Y4 = (true , lzS s4 g1) , bl3
Y5 = (true , lzS s5 g1) , bl5
Y6 = (true , lzS s6 g1) , bl5
m7 = (true , ⟦ ⟪ esAll (owners bl5 0) s6 , [] ⟫ , g1 ⟧) , bl7
Y7 = landX m7
Y8 = (true , lzS s8 g1) , bl8

new-Y0 : NewBX Y0
new-Y0 = (refl , new-s0 , refl , refl) , ((λ k o → refl) , (λ k → refl) , (λ k → refl)) , (λ p → refl)

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

open FragmentsB Pmut

r1 : okM SB.recover Y0 Y1
r1 = (refl , inj₁ ((true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)) , refl

w1 : okM (use (reg (op (w 0 true)))) Y1 Y2
w1 = inj₂ (refl , refl , s2 , refl , inj₁ ((z≤n , z≤n) , false , false , refl)) ,
     inj₁ (refl , 0 , (inj₁ refl , s≤s z≤n , refl , fresh0) , refl)

w2 : okM (use (reg (op (w 1 true)))) Y2 Y3
w2 = inj₂ (refl , refl , s3 , refl , inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)) ,
     inj₁ (refl , 0 , (inj₁ refl , s≤s (s≤s z≤n) , refl , fresh1) , refl)

f1 : okM (use SB.flush) Y3 Y4
f1 = inj₂ (refl , refl , s4 , refl , inj₁ (inj₁ refl)) , refl

g1′ : okM (use (reg (op rl))) Y4 Y5
g1′ = inj₂ (refl , refl , s5 , refl , inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , false , false , refl))) ,
      inj₁ (refl , 1 , (inj₂ refl , s≤s z≤n , refl , fresh2) , refl)

f2 : okM (use SB.flush) Y5 Y6
f2 = inj₂ (refl , refl , s6 , refl , inj₁ (inj₁ refl)) , refl

c1 : crashM (use (reg (op es))) Y6 Y7
c1 = m7 , (0 , (λ ()) , (0 , refl , refl) , refl) , refl

r2 : okM SB.recover Y7 Y8
r2 = (refl , refl , s8 , refl , (true , 1 , unmapped , refl , refl)) , refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (reg (op (w 0 true)) ∷ reg (op (w 1 true)) ∷ SB.flush ∷ reg (op rl) ∷ [])) []
                         (reg (op es)) 0 ∷ []) []

F : MultiRec shape Y0
F = multirec {t0' = Y0} {t1 = Y1} new-Y0 [] r1
      (_∷_ {t1 = Y1} {t2 = Y5} {t3 = Y6} {t4 = Y8}
        (onerec {u = Y6} {t3c = Y7} {t3r = Y7} (flushed {t1 = Y1} {t2 = Y5} {u = Y6} (w1 ∷ w2 ∷ f1 ∷ g1′ ∷ []) f2) [] c1 [] r2)
        (done {t = Y8} {t' = Y8} []))

-- the block holds page 0 (erasable) and page 1 (address 1's only copy)
block-0-pages : owners bl5 0 ≡ 1 ∷ 0 ∷ []
block-0-pages = refl

flushed-read : rd s6 1 ≡ true
flushed-read = refl

recovered-read : rd s8 1 ≡ false
recovered-read = refl

-- BXone refuses that erase: page 1, placed in block 0, is not erasable,
-- so no erase step of PX erases it
BX-refuses : ers s6 1 ≡ false
BX-refuses = refl

violation : ¬ MultiRecSCB F
violation (here o , _) with o 1 (s≤s z≤n)
... | ()
violation (there () , _)

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
