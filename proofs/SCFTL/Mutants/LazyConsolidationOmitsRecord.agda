{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 33 (issue 39, the lazy consolidation page): the consolidation
-- page written before the next region page holds the pairs of every
-- backlog record but the oldest (delta.rs: the page built from the
-- backlog, `move_to_backlog`, `backlog_epochs`, one record's pairs
-- dropped; the code's pairs are SCFTL.Impl.LazyChain's `cpairs`).
--
-- Mutant of the lazy chain's layer, not of P (check.sh:
-- MUTANTS_OF_LAZY_CHAIN): `Pmut : ChainModel` (only the consolidation
-- page's pairs changed) and `not-chain-sound : ¬ ChainSound Pmut`.
--
-- The run (instance SCFTL.Mutants.Common: Bool, addresses 0 and 1):
-- generation 0, nothing mapped; a backlog of two records, epoch 1's
-- (1 ↦ page 0) and epoch 2's (0 ↦ page 1).  Replaying the two records
-- maps address 1 to page 0 (`records-map`); the consolidation page of
-- epoch 2 that replaces them in the region leaves address 1 unmapped
-- (`kons-loses`): once it is on the region, the next region commit's
-- link no longer leads to the records, and recovery reads address 1 as
-- it was before epoch 1, under epoch 2's write — a mixed image.
------------------------------------------------------------------------
module SCFTL.Mutants.LazyConsolidationOmitsRecord where

open import Data.Nat.Base using (ℕ; zero; suc)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; _++_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁)
open import Data.Unit.Base using (tt)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; cong)

open import SCFTL.Mutants.Common using (A; W; K)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.LazyChain Bool false A W K _≟B_

-- MUTATED: the oldest backlog record's pairs (the last, newest first)
-- left out of the consolidation page.
kpM : List Cell → List (ℕ × ℕ)
kpM []            = []
kpM (c ∷ [])      = []
kpM (c ∷ c' ∷ cs) = pairsOf c ++ kpM (c' ∷ cs)

Pmut : ChainModel
Pmut = record { walk = follow ; kp = kpM }

-- the backlog, newest first
c1 c2 : Cell
c1 = rc 0 1 ((1 , 0) ∷ []) [] [] 1
c2 = rc 0 2 ((0 , 1) ∷ []) [] [] 2

backlog : List Cell
backlog = c2 ∷ c1 ∷ []

dg : Dg
dg = [] , [] , 2

records-map : proj₁ (rp 0 backlog (unmapped , 0 , unmapped)) 1 ≡ just 0
records-map = refl

kons-loses : proj₁ (rstep 0 (dlt 0 2 (kpM backlog) true dg) (unmapped , 0 , unmapped)) 1 ≡ nothing
kons-loses = refl

-- the code's consolidation page keeps it
code-kons : proj₁ (rstep 0 (kons 0 2 dg backlog) (unmapped , 0 , unmapped)) 1 ≡ just 0
code-kons = refl

not-chain-sound : ¬ ChainSound Pmut
not-chain-sound (_ , kons-ok) with cong (λ m → m 1) (kons-ok {0} {backlog} 2 dg unmapped 0 (tt ∷ tt ∷ []))
... | ()
