{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: `bx-rec-erase` (SCFTL.Impl.RecoveryReclaim) is not vacuous —
-- a concrete run of the block layer over the one model (BXone) that
-- crashes, recovers, and then erases a block recovery reclaimed.
--
-- Instance: the mutants' (Data = Bool, two logical sectors, W = 2,
-- K = 0), blocks of two pages (zb = 1), umax = 3, kc = 32.  After
-- format and the first recovery (PU's, generation 1):
--   w(0,true) to page 0 = (block 0, offset 0); w(1,true) to page 1 =
--   (0, 1); flush (commit: 0 ↦ 0, 1 ↦ 1); w(0,false) to page 2 = (1, 0)
--   (block 0 full, block 1 opened); w(1,false) to page 3 = (1, 1);
--   flush (commit: 0 ↦ 2, 1 ↦ 3); w(0,true) crashing with nothing
--   programmed; recover (PL's: the chain phase).
-- Block 0 holds pages 0 and 1, which the recovered L2P (0 ↦ 2, 1 ↦ 3)
-- does not name, and is not the open block (1): recovery reclaims both
-- pages (`reclaimed-pages`), and erasing block 0 is a step of BXone
-- right there (`erase-block-0`, from `bx-rec-erase`) — the code's
-- `rebuild` making the superblock erasable, `activate_next` erasing it.
------------------------------------------------------------------------
module SCFTL.Impl.RecoveryReclaimExample where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using (List; []; _∷_)
open import Data.List.Relation.Unary.All using (All; [])
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0; img-sync)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32 using (rec0L)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (⟪_,_⟫)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (Gh; ⟦_,_⟧; ghostN)
open import SCFTL.Impl.OneModel Bool false A W K 3 _≟B_ 32 using (XS; lzS)
open import SCFTL.Impl.BlocksOver Bool false A W K 3 _≟B_ 1
  using (BL; own; ab; balloc; berase; forget; owners; Fresh; OwnLoc; NewBL; ownloc-new; ownloc-balloc; ownloc-forget)
open import SCFTL.Impl.OneModelBlocks Bool false A W K 3 _≟B_ 32 1 using (stX; BXone)
open import SCFTL.Impl.RecoveryReclaim Bool false A W K 3 _≟B_ 32 1 using (Unnamed; bx-rec-erase)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (use; reg; op; w; es)

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 s7 m8 s8 s9 : St
s1 = recU true 0 unmapped [] [] s0   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true): page 0
s3 = wr0 1 true s2                   -- w(1,true): page 1
s4 = fl3 s3                          -- flush: 0 ↦ 0, 1 ↦ 1
s5 = wr0 0 false s4                  -- w(0,false): page 2
s6 = wr0 1 false s5                  -- w(1,false): page 3
s7 = fl3 s6                          -- flush: 0 ↦ 2, 1 ↦ 3
m8 = wr0 0 true s7                   -- w(0,true), crashing: merge buffer only
s8 = syncAll m8
s9 = ck3 (rec0L true 1 unmapped s8)  -- PL's recovery

g1 : Gh
g1 = ghostN ⟪ s1 , [] ⟫

bl0 bl1 bl2 bl3 bl5 bl6 bl9 : BL
bl0 = record { loc = λ _ → (0 , 2) ; own = λ _ _ → nothing ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }
bl1 = forget (nxt s1) bl0   -- the first recovery
bl2 = balloc 0 0 bl1   -- page 0 at (0,0)
bl3 = balloc 0 1 bl2   -- page 1 at (0,1)
bl5 = balloc 1 2 bl3   -- page 2 at (1,0)
bl6 = balloc 1 3 bl5   -- page 3 at (1,1)
bl9 = forget (nxt s9) bl6

X0 X1 X2 X3 X4 X5 X6 X7 X8 X9 : XS
X0 = false , ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧
X1 = false , ⟦ ⟪ s1 , [] ⟫ , g1 ⟧
X2 = true , lzS s2 g1
X3 = true , lzS s3 g1
X4 = true , lzS s4 g1
X5 = true , lzS s5 g1
X6 = true , lzS s6 g1
X7 = true , lzS s7 g1
X8 = true , lzS s8 g1
X9 = true , lzS s9 g1

private
  nj : ∀ {n : ℕ} → nothing ≡ just n → ⊥
  nj ()

  new0 : NewBL bl0
  new0 = (λ k o → refl) , (λ k → refl) , (λ k → refl)

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

  ol6 : OwnLoc bl6
  ol6 = ownloc-balloc {bl5} (ownloc-balloc {bl3} (ownloc-balloc {bl2} (ownloc-balloc {bl1} (ownloc-forget {bl0} (nxt s1) (ownloc-new {bl0} new0)) fresh0) fresh1) fresh2) fresh3

-- the steps (BXone's own, each with its block bookkeeping)
r1 : SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1)
r1 = (refl , inj₁ ((true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)) , refl

w1 : SB.Model.ok BXone (use (reg (op (w 0 true)))) (X1 , bl1) (X2 , bl2)
w1 = inj₂ (refl , refl , s2 , refl , inj₁ ((z≤n , z≤n) , false , false , refl)) ,
     inj₁ (refl , 0 , (inj₁ refl , s≤s z≤n , refl , fresh0) , refl)

w2 : SB.Model.ok BXone (use (reg (op (w 1 true)))) (X2 , bl2) (X3 , bl3)
w2 = inj₂ (refl , refl , s3 , refl , inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)) ,
     inj₁ (refl , 0 , (inj₁ refl , s≤s (s≤s z≤n) , refl , fresh1) , refl)

f1 : SB.Model.ok BXone (use SB.flush) (X3 , bl3) (X4 , bl3)
f1 = inj₂ (refl , refl , s4 , refl , inj₁ (inj₁ refl)) , refl

w3 : SB.Model.ok BXone (use (reg (op (w 0 false)))) (X4 , bl3) (X5 , bl5)
w3 = inj₂ (refl , refl , s5 , refl , inj₁ ((z≤n , z≤n) , false , false , refl)) ,
     inj₁ (refl , 1 , (inj₂ refl , s≤s z≤n , refl , fresh2) , refl)

w4 : SB.Model.ok BXone (use (reg (op (w 1 false)))) (X5 , bl5) (X6 , bl6)
w4 = inj₂ (refl , refl , s6 , refl , inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)) ,
     inj₁ (refl , 1 , (inj₁ refl , s≤s (s≤s z≤n) , refl , fresh3) , refl)

f2 : SB.Model.ok BXone (use SB.flush) (X6 , bl6) (X7 , bl6)
f2 = inj₂ (refl , refl , s7 , refl , inj₁ (inj₁ refl)) , refl

c1 : SB.Model.crash BXone (use (reg (op (w 0 true)))) (X7 , bl6) (X8 , bl6)
c1 = inj₂ (refl , refl , s8 , refl , (m8 , inj₁ (inj₁ ((z≤n , z≤n) , false , false , refl)) , img-sync m8)) , inj₁ refl

r2 : SB.Model.ok BXone SB.recover (X8 , bl6) (X9 , bl9)
r2 = (refl , refl , s9 , refl , (true , 1 , unmapped , refl , refl)) , refl

------------------------------------------------------------------------
-- What recovery left, and the erase

recovered : l2p s9 0 ≡ just 2 × l2p s9 1 ≡ just 3 × nxt s9 ≡ 4 × ab bl9 ≡ 1 × owners bl9 0 ≡ 1 ∷ 0 ∷ []
recovered = refl , refl , refl , refl , refl

reclaimed-pages : ers s9 0 ≡ true × ers s9 1 ≡ true × ers s9 2 ≡ false × ers s9 3 ≡ false
reclaimed-pages = refl , refl , refl , refl

private
  just-inj : ∀ {a b : ℕ} → just a ≡ just b → b ≡ a
  just-inj refl = refl

  -- the recovered L2P names pages 2 and 3 only
  unnamed : ∀ q → q ≢ 2 → q ≢ 3 → Unnamed (l2p s9) q
  unnamed q n2 n3 zero          _        e = n2 (just-inj e)
  unnamed q n2 n3 (suc zero)    _        e = n3 (just-inj e)
  unnamed q n2 n3 (suc (suc a)) (s≤s ()) e

  block-0 : ∀ o q → own bl9 0 o ≡ just q → Unnamed (l2p (stX X9)) q
  block-0 zero          q refl = unnamed 0 (λ ()) (λ ())
  block-0 (suc zero)    q refl = unnamed 1 (λ ()) (λ ())
  block-0 (suc (suc o)) q ()

-- the block erase of block 0 is a step of BXone right after the recovery
erase-block-0 : Σ XS λ X10 → SB.Model.ok BXone (use (reg (op es))) (X9 , bl9) (X10 , berase 0 bl9)
erase-block-0 = bx-rec-erase {X8} {bl6} {X9} ol6 r2 0 (λ ()) block-0
