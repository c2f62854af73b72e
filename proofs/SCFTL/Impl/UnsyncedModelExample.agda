{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: concrete runs of PU as a `Model` (`PUM`,
-- SCFTL.Impl.UnsyncedModel), evaluated: the model is not vacuous, and
-- its recovery returns an image SB keeps PENDING (a barrier's, not the
-- last durable one) when the barrier's epoch survives, and the durable
-- image when a data page of the epoch is lost.
--
-- From format and recovery (two sectors, Bool data):
--   w(0,true) to page 0; w(1,true) to page 1; barrier (epoch 1, no SYNC,
--   `flB`); w(0,false) to page 2 (merge buffer), crashing at its end,
--   everything on flash landed; PUM's recovery (the ghost's parse: epoch
--   1 over an empty durable part) accepts epoch 1: (true,true), the
--   barrier's image (`recovers-barrier`), while the last durable image
--   is (false,false).
--   The same run, the barrier crashing right after its programs with
--   data page 1 lost: PUM's recovery checks epoch 1, page 1 fails its
--   digest, and it recovers (false,false) (`recovers-durable`; mutant 34
--   on that crash recovers the mix (true,false)).
-- Every step below is a step of PUM (`okPU`, `crashPU`).
------------------------------------------------------------------------
module SCFTL.Impl.UnsyncedModelExample where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.List.Relation.Unary.All using (All; [])
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0; land-D; land-C; land-L; img-sync)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.UnsyncedEpochsCrash Bool false A W K _≟B_ using (ue)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (⟪_,_⟫; flB; epE)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_
  using (SU; ⟦_,_⟧; ghostN; okPU; crashPU; NewPU)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (use; reg; op; barrier; w)

s1 s2 s3 s4 s5 : St
s1 = recU true 0 unmapped [] [] s0   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = wr0 1 true s2                   -- w(1,true) to page 1
s4 = flB s3                          -- barrier: epoch 1, no SYNC
s5 = wr0 0 false s4                  -- w(0,false) to page 2 (merge buffer)

c₁ : Cell
c₁ = proj₁ (ue 1 (epE s3))

S0 S1 S2 S3 S4 S5 : SU
S0 = ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧
S1 = ⟦ ⟪ s1 , [] ⟫ , ghostN ⟪ s1 , [] ⟫ ⟧
S2 = ⟦ ⟪ s2 , [] ⟫ , ghostN ⟪ s2 , [] ⟫ ⟧
S3 = ⟦ ⟪ s3 , [] ⟫ , ghostN ⟪ s3 , [] ⟫ ⟧
S4 = ⟦ ⟪ s4 , epE s3 ∷ [] ⟫ , ghostN ⟪ s4 , epE s3 ∷ [] ⟫ ⟧
S5 = ⟦ ⟪ s5 , epE s3 ∷ [] ⟫ , ghostN ⟪ s5 , epE s3 ∷ [] ⟫ ⟧

new : NewPU S0
new = new-s0 , refl , refl

r1 : okPU SB.recover S0 S1
r1 = (true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl

w1 : okPU (use (reg (op (w 0 true)))) S1 S2
w1 = (inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl

w2 : okPU (use (reg (op (w 1 true)))) S2 S3
w2 = (inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl) , refl) , refl

b1 : okPU (use (reg barrier)) S3 S4
b1 = inj₁ (s≤s z≤n , refl) , refl

w3 : okPU (use (reg (op (w 0 false)))) S4 S5
w3 = (inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl

------------------------------------------------------------------------
-- A crash at the end of w(0,false), everything on flash landed

s6 s7 : St
s6 = syncAll s5
s7 = recU true 1 unmapped [] ((c₁ , []) ∷ []) s6

S6 S7 : SU
S6 = ⟦ ⟪ s6 , [] ⟫ , ghostN ⟪ s5 , epE s3 ∷ [] ⟫ ⟧
S7 = ⟦ ⟪ s7 , [] ⟫ , ghostN ⟪ s7 , [] ⟫ ⟧

c1 : crashPU (use (reg (op (w 0 false)))) S4 S6
c1 = (⟪ s5 , epE s3 ∷ [] ⟫ , (inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , img-sync s5 , refl) , refl

r2 : okPU SB.recover S6 S7
r2 = (true , 1 , unmapped , refl , [] , (c₁ , []) ∷ [] , (refl , []) , refl , refl) , refl , refl

-- the barrier's image, which SB keeps pending; the durable one is (false,false)
recovers-barrier : rd s7 0 ≡ true × rd s7 1 ≡ true
recovers-barrier = refl , refl

durable-image : rd s1 0 ≡ false × rd s1 1 ≡ false
durable-image = refl , refl

------------------------------------------------------------------------
-- The barrier crashing right after its programs, data page 1 lost

lose1 : (ℕ → MC) → ℕ → MC
lose1 D (suc zero) = syn junk
lose1 D p          = sync (D p)

s8 s9 : St
s8 = record (syncAll s4) { dat = lose1 (dat s4) }
s9 = recU true 1 unmapped [] ((c₁ , []) ∷ []) s8

crD : ∀ p → CrashD (dat s4 p) (dat s8 p)
crD zero          = land-D (dat s4 0)
crD (suc zero)    = junk , refl
crD (suc (suc p)) = land-D (dat s4 (suc (suc p)))

S8 S9 : SU
S8 = ⟦ ⟪ s8 , [] ⟫ , ghostN ⟪ s4 , epE s3 ∷ [] ⟫ ⟧
S9 = ⟦ ⟪ s9 , [] ⟫ , ghostN ⟪ s9 , [] ⟫ ⟧

c2 : crashPU (use (reg barrier)) S3 S8
c2 = inj₁ (s≤s z≤n , (crD , land-C (cpL s4) , land-C (cpO s4) , land-L (dr s4) , (λ p → land-C (rcd s4 p))) , refl) , refl

r3 : okPU SB.recover S8 S9
r3 = (true , 1 , unmapped , refl , [] , (c₁ , []) ∷ [] , (refl , []) , refl , refl) , refl , refl

recovers-durable : rd s9 0 ≡ false × rd s9 1 ≡ false
recovers-durable = refl , refl
