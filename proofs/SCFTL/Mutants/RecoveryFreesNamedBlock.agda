{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 50 (issue 39), of the block layer over the one model with the
-- physical read (BXφ, SCFTL.Impl.OneModelBlocksPhys): recovery FREES
-- EVERY BLOCK BUT THE OPEN ONE, the ones holding a page the recovered map
-- names included.
--
-- The one change: where BlocksOver's `forget` frees only a vacant block
-- (no page below P's next page placed below its write pointer), the
-- mutant's recovery sets every block other than the open one to write
-- pointer 0 and reusable.  (The Rust's counterpart: `rebuild` making a
-- superblock erasable although the recovered L2P references it.)
--
-- Counterexample (blocks of ONE page; PX's instance, `umax` = 3,
-- `kc` = 32; after format + recovery):
--   w(0,true) to page 0 = block 0; w(1,true) to page 1 = block 1 (the
--   open block now); flush (commit: 0 ↦ 0, 1 ↦ 1); w(0,false) crashing
--   with nothing placed; recover (PL's): the map 0 ↦ 0, 1 ↦ 1, block 0
--   freed by the mutant although page 0, address 0's only copy, is on
--   it; then w(1,false) crashing after it placed page 2 on block 0 (free,
--   at write pointer 0: erased when taken); recover.
-- SC1B of the second fragment allows only what the first recovery read:
-- address 0 = true.  The physical page of page 0 now holds page 2's
-- incarnation, which the second recovery forgets (past P's next page):
-- address 0 reads the erased page, false.  BlocksOver's recovery keeps
-- block 0 (`kept`: write pointer 1, not reusable), so no allocation
-- takes it.
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.RecoveryFreesNamedBlock where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≡ᵇ_)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using (List; []; _∷_)
open import Data.List.Relation.Unary.Any using (here; there)
open import Data.List.Relation.Unary.All using ([])
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0; img-sync)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32 using (rec0L)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (⟪_,_⟫)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (Gh; ⟦_,_⟧; ghostN)
open import SCFTL.Impl.OneModel Bool false A W K 3 _≟B_ 32 using (XS; lzS; okPX)
open import SCFTL.Impl.BlocksOver Bool false A W K 3 _≟B_ 0
  using (BL; own; wp; ab; fr; balloc; forget; forgetO; Fresh)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 32 0
  using (stX; XB; okBX; crashBX; NewBX)
open import SCFTL.Impl.OneModelBlocksRead Bool false A W K 3 _≟B_ 32 0 using (rdBX)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; UOp; use; reg; op; w)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

freeAll : ℕ → BL → BL
freeAll n bl = record (forgetO n bl)
  { wp = λ k → if k ≡ᵇ ab bl then wp bl k else 0                     -- MUTATED
  ; fr = λ k → if k ≡ᵇ ab bl then fr bl k else true }

okM : Op → XB → XB → Set
okM SB.recover (X , bl) (X' , bl') = okPX SB.recover X X' × bl' ≡ freeAll (nxt (stX X')) bl
okM o = okBX o

Pmut : Model
Pmut = record { State = XB ; New = NewBX ; read = λ Y → rdBX (proj₁ Y) (proj₂ Y) ; ok = okM ; crash = crashBX }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 m5 s5 s6 m7 s7 s8 : St
s1 = recU true 0 unmapped [] [] s0   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true): page 0
s3 = wr0 1 true s2                   -- w(1,true): page 1
s4 = fl3 s3                          -- flush: 0 ↦ 0, 1 ↦ 1
m5 = wr0 0 false s4                  -- w(0,false), crashing: merge buffer only
s5 = syncAll m5
s6 = ck3 (rec0L true 1 unmapped s5)  -- PL's recovery
m7 = wr0 1 false s6                  -- w(1,false), crashing: page 2
s7 = syncAll m7
s8 = ck3 (rec0L true 2 (l2p s6) s7)  -- PL's recovery

g1 : Gh
g1 = ghostN ⟪ s1 , [] ⟫

bl0 bl1 bl2 bl3 bl6 bl7 bl8 : BL
bl0 = record { loc = λ _ → (0 , 1) ; own = λ _ _ → nothing ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }
bl1 = freeAll (nxt s1) bl0   -- the first recovery
bl2 = balloc 0 0 bl1   -- page 0 on block 0
bl3 = balloc 1 1 bl2   -- page 1 on block 1
bl6 = freeAll (nxt s6) bl3
bl7 = balloc 0 (nxt s6) bl6   -- page 2 on block 0
bl8 = freeAll (nxt s8) bl7

Y0 Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 : XB
Y0 = (false , ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧) , bl0
Y1 = (false , ⟦ ⟪ s1 , [] ⟫ , g1 ⟧) , bl1
Y2 = (true , lzS s2 g1) , bl2
Y3 = (true , lzS s3 g1) , bl3
Y4 = (true , lzS s4 g1) , bl3
Y5 = (true , lzS s5 g1) , bl3
Y6 = (true , lzS s6 g1) , bl6
Y7 = (true , lzS s7 g1) , bl7
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

  fresh2 : Fresh bl6 2
  fresh2 zero          zero    ()
  fresh2 zero          (suc o) e = nj e
  fresh2 (suc zero)    zero    ()
  fresh2 (suc zero)    (suc o) e = nj e
  fresh2 (suc (suc k)) o       e = nj e

open FragmentsB Pmut

r1 : okM SB.recover Y0 Y1
r1 = (refl , inj₁ ((true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)) , refl

w1 : okM (use (reg (op (w 0 true)))) Y1 Y2
w1 = inj₂ (refl , refl , s2 , refl , inj₁ ((z≤n , z≤n) , false , false , refl)) ,
     inj₁ (refl , 0 , (inj₁ refl , s≤s z≤n , refl , fresh0) , refl)

w2 : okM (use (reg (op (w 1 true)))) Y2 Y3
w2 = inj₂ (refl , refl , s3 , refl , inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)) ,
     inj₁ (refl , 1 , (inj₂ refl , s≤s z≤n , refl , fresh1) , refl)

f1 : okM (use SB.flush) Y3 Y4
f1 = inj₂ (refl , refl , s4 , refl , inj₁ (inj₁ refl)) , refl

c1 : crashBX (use (reg (op (w 0 false)))) Y4 Y5
c1 = inj₂ (refl , refl , s5 , refl , (m5 , inj₁ (inj₁ ((z≤n , z≤n) , false , false , refl)) , img-sync m5)) , inj₁ refl

r2 : okM SB.recover Y5 Y6
r2 = (refl , refl , s6 , refl , (true , 1 , unmapped , refl , refl)) , refl

c2 : crashBX (use (reg (op (w 1 false)))) Y6 Y7
c2 = inj₂ (refl , refl , s7 , refl , (m7 , inj₁ (inj₁ ((s≤s z≤n , z≤n) , false , false , refl)) , img-sync m7)) ,
     inj₂ (0 , (inj₂ refl , s≤s z≤n , refl , fresh2) , refl)

r3 : okM SB.recover Y7 Y8
r3 = (refl , refl , s8 , refl , (true , 2 , l2p s6 , refl , refl)) , refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (reg (op (w 0 true)) ∷ reg (op (w 1 true)) ∷ [])) [] (reg (op (w 0 false))) 0 ∷
                  shape1 nothing [] (reg (op (w 1 false))) 0 ∷ []) []

F : MultiRec shape Y0
F = multirec {t0' = Y0} {t1 = Y1} new-Y0 [] r1
      (_∷_ {t1 = Y1} {t2 = Y3} {t3 = Y4} {t4 = Y6}
        (onerec {u = Y4} {t3c = Y5} {t3r = Y5} (flushed {t1 = Y1} {t2 = Y3} {u = Y4} (w1 ∷ w2 ∷ []) f1) [] c1 [] r2)
        (_∷_ {t1 = Y6} {t2 = Y6} {t3 = Y6} {t4 = Y8}
          (onerec {u = Y6} {t3c = Y7} {t3r = Y7} no-flush [] c2 [] r3)
          (done {t = Y8} {t' = Y8} [])))

-- the mutant freed block 0 while page 0, address 0's only copy, is on it
freed-named : l2p s6 0 ≡ just 0 × own bl6 0 0 ≡ just 0 × wp bl6 0 ≡ 0 × fr bl6 0 ≡ true
freed-named = refl , refl , refl , refl

first-read : rdBX (proj₁ Y6) bl6 0 ≡ true
first-read = refl

recovered-read : rdBX (proj₁ Y8) bl8 0 ≡ false
recovered-read = refl

-- BlocksOver's recovery keeps block 0: write pointer 1, not reusable
kept : wp (forget (nxt s6) bl3) 0 ≡ 1 × fr (forget (nxt s6) bl3) 0 ≡ false
kept = refl , refl

violation : ¬ MultiRecSCB F
violation (_ , (here o , _)) with o 0 z≤n
... | ()
violation (_ , (there () , _))

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)
