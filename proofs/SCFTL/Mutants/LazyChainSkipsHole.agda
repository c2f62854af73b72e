{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 32 (issue 39, the lazy consolidation page): recovery's walk
-- along the chain of in-page/OOB records passes over a record that
-- fails its check (wrong epoch id, generation or digest) and goes on
-- from that record's link, instead of ending the chain there
-- (recovery.rs `follow_chain`: `None => break`; the code's walk is
-- SCFTL.Impl.LazyChain's `follow`).
--
-- Mutant of the lazy chain's layer, not of P (check.sh:
-- MUTANTS_OF_LAZY_CHAIN): `Pmut : ChainModel` (the walk and the
-- consolidation page's pairs; only the walk changed) and
-- `not-chain-sound : ¬ ChainSound Pmut`.
--
-- The run (instance SCFTL.Mutants.Common: Bool, addresses 0 and 1):
-- generation 0, the region's last commit of epoch 0 links to page 0.
-- Two lazily chained records: epoch 1's in the record slot of page 0
-- (pairs 1 ↦ page 0, digest: page 0 holds (true, address 1), link 1)
-- and epoch 2's in the record slot of page 1 (pairs 0 ↦ page 1, an empty
-- digest, link 2); nothing past page 1.  Page 0's sector is torn
-- (reads erased): epoch 1's record fails its digest.  The code's walk
-- ends there (`code-stops`: nothing applied, the state of epoch 0); the
-- mutant's walk passes over it and applies epoch 2's record alone
-- (`mutant-skips`): address 0 ↦ page 1 with address 1 unmapped —
-- epoch 2 without epoch 1, which no prefix of the chain is
-- (`not-a-prefix`).  In P's crash model this layout needs a durable
-- record whose page no longer verifies: a record is SYNC'd before the
-- next is written, so a crash alone leaves at most the newest one
-- unverified (`crash-chain`); the prefix property holds for any data
-- pages, which is what makes the walk safe without that argument.
------------------------------------------------------------------------
module SCFTL.Mutants.LazyChainSkipsHole where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; _++_; take)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Unit.Base using (tt)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.LazyChain Bool false A W K _≟B_

-- MUTATED: a found record that fails its check does not end the walk;
-- the walk goes on from its link (with its epoch id).
followS : ℕ → ℕ → (ℕ → Cell) → (ℕ → Cell) → Maybe (ℕ × ℕ) → List Cell
followS zero    g R D l              = []
followS (suc k) g R D nothing        = []
followS (suc k) g R D (just (x , L)) = at (seek g omax R L)
  where
    at : Maybe ℕ → List Cell
    at nothing  = []
    at (just q) = if okR g (suc x) D (R q)
                  then followS k g R D (lkOf (R q ∷ [])) ++ R q ∷ []
                  else followS k g R D (lkOf (R q ∷ []))

Pmut : ChainModel
Pmut = record { walk = followS ; kp = cpairs }

-- the chain: epoch 1's record at page 0, epoch 2's at page 1
c1 c2 : Cell
c1 = rc 0 1 ((1 , 0) ∷ []) ((0 , true , 1) ∷ []) [] 1
c2 = rc 0 2 ((0 , 1) ∷ []) [] [] 2

R : ℕ → Cell
R zero          = c1
R (suc zero)    = c2
R (suc (suc _)) = erased

-- page 0 torn
D : ℕ → Cell
D _ = erased

lay : LayP 0 R 0 0 (c1 ∷ c2 ∷ []) 2 2
lay = rec∷ refl refl (s≤s z≤n) (rec∷ refl refl (s≤s (s≤s z≤n)) end)

ab : Above 0 R 2
ab zero          ()
ab (suc zero)    (s≤s ())
ab (suc (suc p)) _ = tt

code-stops : follow 2 0 R D (just (0 , 0)) ≡ []
code-stops = refl

mutant-skips : followS 2 0 R D (just (0 , 0)) ≡ c2 ∷ []
mutant-skips = refl

not-a-prefix : ∀ j → ¬ (c2 ∷ [] ≡ rv (take j (c1 ∷ c2 ∷ [])))
not-a-prefix zero                ()
not-a-prefix (suc zero)          ()
not-a-prefix (suc (suc zero))    ()
not-a-prefix (suc (suc (suc zero)))    ()
not-a-prefix (suc (suc (suc (suc j)))) ()

not-chain-sound : ¬ ChainSound Pmut
not-chain-sound (walk-prefix , _) with walk-prefix 2 D lay ab
... | j , e = not-a-prefix j e
