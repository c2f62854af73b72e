{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 46 (issue 39): the barrier is durable only with `umax`
-- unsynced epochs — PU's barrier as it was before the twenty-sixth
-- session, and the code's before its `commit_leaves_region_short`:
-- below `umax` the barrier is `flB` alone.  With the region rules of
-- SCFTL.Impl.SpaceRegionBarrier (a barrier leaves epoch_pages_max + 1
-- region pages, else it ends in a full checkpoint), a barrier whose
-- `flB` would leave the region short then has no step the rule allows:
-- `not-barrier-lifts : ¬ BarrierLifts Pmut` (check.sh:
-- MUTANTS_OF_REGION_BARRIER), where the model's barrier, durable at any
-- count, has one (`barrier-lifts`: the durable commit with the full
-- checkpoint).
--
-- The configuration is mutant 45's (one logical sector, W = 2, K = 1,
-- one pair per delta page, D = 8 region pages, epoch_pages_max = 4),
-- with umax = 3.  The state: format, recovery, three flushes committing
-- in the region (a run of the code's rules, so the invariant holds),
-- no epoch unsynced; a barrier there (`flB`: the fourth region page)
-- would leave 4 pages, fewer than 5.
------------------------------------------------------------------------
module SCFTL.Mutants.BarrierDurableOnlyAtUmax where

open import Data.Nat.Base using (ℕ; suc; _≤_; _<_; s≤s; z≤n)
open import Data.Nat.Properties using (≤ᵇ⇒≤; ≤⇒≤ᵇ)
open import Data.Unit.Base using (⊤; tt)
open import Data.Unit.Properties using () renaming (_≟_ to _≟⊤_)
open import Data.List.Base using (List; []; _∷_; _++_; length)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.Model ⊤ tt 0 1 0 _≟⊤_ using (St; fl3; ck3)
open import SCFTL.Impl.SpaceRegion ⊤ tt 0 1 0 _≟⊤_ 0 8
  using (RInv; Room; Run; done; step; run-inv; rec-inv; okPS; drL)
import SCFTL.Spec ⊤ tt 0 1 as Sp
open import SCFTL.Mutants.RegionCommitPageOnly using (s0; s1; s4; rec1-code)
open import SCFTL.Impl.UnsyncedBarrier ⊤ tt 0 1 0 3 _≟⊤_ using (StU; ⟪_,_⟫; st; ues; flB; epE)
open import SCFTL.Impl.UnsyncedModel ⊤ tt 0 1 0 3 _≟⊤_ using (SU; ⟦_,_⟧; su; ghostN; FlOk; okM)
open import SCFTL.Impl.SpaceRegionBarrier ⊤ tt 0 1 0 3 _≟⊤_ 0 8
  using (BarrierLifts; barrier-lifts; RInvS) public
import SCFTL.SpecBarrier ⊤ tt 0 1 3 as SB

-- the mutant's barrier: `flB` below umax, durable only at umax
Pmut : StU → StU → Set
Pmut s s' = (length (ues s) < 3 × s' ≡ ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫)
          ⊎ (3 ≤ length (ues s) × FlOk s s')

-- three flushes committing in the region, from the recovery after format
run3 : Run Room s1 s4
run3 = step Sp.flush (inj₁ refl , inj₁ (≤ᵇ⇒≤ _ _ tt))
       (step Sp.flush (inj₁ refl , inj₁ (≤ᵇ⇒≤ _ _ tt))
       (step Sp.flush (inj₁ refl , inj₁ (≤ᵇ⇒≤ _ _ tt)) done))

S : SU
S = ⟦ ⟪ s4 , [] ⟫ , ghostN ⟪ s4 , [] ⟫ ⟧

inv-S : RInvS S
inv-S = run-inv (rec-inv {s0} {s1} rec1-code) run3

-- the barrier without SYNC from S (no epoch unsynced)
S' : SU
S' = ⟦ ⟪ flB s4 , epE s4 ∷ [] ⟫ , ghostN ⟪ flB s4 , epE s4 ∷ [] ⟫ ⟧

bar : okM (SB.reg SB.barrier) (su S) (su S') × ghostN (su S') ≡ ghostN (su S')
bar = inj₁ (s≤s z≤n , refl) , refl

-- it would leave 4 region pages, and the rule asks for 5
short : ¬ Room (flB s4)
short r = ≤⇒≤ᵇ r

not-barrier-lifts : ¬ BarrierLifts Pmut
not-barrier-lifts lifts with lifts {S} {S'} inv-S bar
... | _ , inj₁ (_ , refl) , r = short r
... | _ , inj₂ (() , _) , _

-- the model's barrier, durable at any count, has the step: the durable
-- commit with the full checkpoint (4 + 1 <= 8)
code-lifts : BarrierLifts (okM (SB.reg SB.barrier))
code-lifts {X} {X'} = barrier-lifts (≤ᵇ⇒≤ 5 8 tt) {X} {X'}
