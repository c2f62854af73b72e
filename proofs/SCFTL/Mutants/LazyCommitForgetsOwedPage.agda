{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 47 (issue 39): a lazy commit (an in-page or OOB commit that
-- leaves its consolidation page owed) goes through with epoch_pages_max
-- region pages left, forgetting the page the chain then owes — where
-- the code's `after_commit` asks epoch_pages_max + 1 (SCFTL.Impl.
-- SpaceRegionLazy's rule `FlR`: `Room` after a lazy commit).  Every
-- other rule (`Tent`; `Room` after P's region commit and a recovery;
-- `Kons`/`RoomK` after P's in-page commit with its consolidation page
-- at once) and PL's steps are unchanged.
--
-- Mutant of the region rules over PL (check.sh: MUTANTS_OF_REGION_LAZY):
-- `not-rooms : ¬ RoomsL Pmut` — a run from format to a state with no
-- free region page for the next page (the commit page its epoch needs).
--
-- The configuration: one logical sector (amax = 0), W = 2 (wmax = 1),
-- K = 1, two pairs per delta page (pp = 1), D = 4 region pages,
-- MAX_CHAIN = 4: epoch_pages_max = (2 + 1)/2 + 1 = 2, and (4), 2 + 1 <=
-- 4, holds.  The run: format, recovery (a full checkpoint: the region
-- empty), a region commit (1 page), a write and an in-page commit with
-- its consolidation page at once (2 pages; 2 + 2 <= 4), a write and a
-- lazy commit (the mutant's rule: 2 + 2 <= 4; the code's, 2 + 3 <= 4,
-- refuses it: `lazy-refused`), then two writes: the second fills the
-- delta buffer, so the chain's consolidation page and a tentative page
-- are programmed: 4 pages, and the epoch's commit page has none.
------------------------------------------------------------------------
module SCFTL.Mutants.LazyCommitForgetsOwedPage where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (≤ᵇ⇒≤; ≤⇒≤ᵇ)
open import Data.Bool.Base using (true; false)
open import Data.Unit.Base using (⊤; tt)
open import Data.Unit.Properties using () renaming (_≟_ to _≟⊤_)
open import Data.List.Base using ([]; length)
open import Data.Maybe.Base using (nothing; just)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.Model ⊤ tt 0 1 0 _≟⊤_
open import SCFTL.Impl.LazyChainP ⊤ tt 0 1 0 _≟⊤_ using (fiL)
open import SCFTL.Impl.LazyChainModel ⊤ tt 0 1 0 _≟⊤_ 4 using (konsS; Lazy; chainOf; rec0L)
open import SCFTL.Impl.SpaceRegion ⊤ tt 0 1 0 _≟⊤_ 1 4 using (drL; epm; Room; RoomK)
open import SCFTL.Impl.SpaceRegionLazy ⊤ tt 0 1 0 _≟⊤_ 4 1 4 public
import SCFTL.Spec ⊤ tt 0 1 as Sp
open Sp using (use; flush; recover; w) renaming (reg to regop)

-- the mutant's rule after a flush: the code's, or a lazy commit with
-- epoch_pages_max pages left
Pmut : St → St → Set
Pmut s s' = FlR s s' ⊎ (Σ ℕ λ M → Lazy s M × s' ≡ fiL M s × RoomK s')

-- the code's bound here: epoch_pages_max = 2
epm-2 : epm ≡ 2
epm-2 = refl

-- format's state
s0 : St
s0 = record
  { dat = λ _ → syn erased ; cpL = syn (cpt 0 unmapped) ; cpO = syn erased ; dr = []
  ; rcd = λ _ → syn erased ; gen = 0 ; l2p = unmapped ; mb = λ _ → nothing
  ; dbuf = [] ; ept = [] ; ep = 0 ; nxt = 0 ; lnk = nothing
  ; inv = λ _ → false ; ers = λ _ → false ; wcnt = 0 ; gcnt = 0 ; smap = unmapped }

new0 : NewP s0
new0 = refl , refl , refl , λ _ → refl

-- recovery (a full checkpoint); a region commit (page 0 of the region,
-- link 0); a write to page 0 and the in-page commit there, its
-- consolidation page at once (link 1); a write to page 1 and the lazy
-- commit there (link 2); two writes, the second with the consolidation
-- page of the chain (its one record) and a tentative page
s1 s2 s3 s4 s5 s6 s7 s8 : St
s1 = ck3 (rec0L true 0 unmapped s0)
s2 = fl3 (konsS s1)
s3 = wr0 0 tt s2
s4 = fi4 0 (konsS s3)
s5 = wr0 0 tt s4
s6 = fiL 1 s5
s7 = wr0 0 tt s6
s8 = emitT (konsS (wr0 0 tt s7))

-- the merge buffer holds page L (the in-page commit's condition, L = nxt - 1)
mb-at : ∀ {x} L → nxt x ≡ suc L → mb x L ≡ just (tt , 0) →
        ∀ p → L ≤ p → p < nxt x → Σ ⊤ λ d → Σ ℕ λ a → mb x p ≡ just (d , a)
mb-at {x} L en e p le lt with p Data.Nat.Properties.≟ L
... | Relation.Nullary.yes refl = tt , 0 , e
... | Relation.Nullary.no ne =
  Data.Empty.⊥-elim (ne (Data.Nat.Properties.≤-antisym
    (Data.Nat.Properties.≤-pred (Data.Nat.Properties.≤-trans lt (Data.Nat.Properties.≤-reflexive en))) le))
  where import Data.Empty

ib : ∀ {x} → wcnt x ≤ 1 → InB 0 x
ib le = z≤n , le

run : RunL Pmut s1 s8
run =
  step flush (inj₁ (inj₁ refl) , inj₁ (inj₁ (≤ᵇ⇒≤ _ _ tt)))
  (step (regop (w 0 tt)) (inj₁ (ib {s2} z≤n , false , false , refl) , inj₁ refl , ≤ᵇ⇒≤ _ _ tt)
  (step flush (inj₁ (inj₂ (inj₂ (inj₁ (0 , inp3 , inj₂ refl)))) ,
               inj₁ (inj₂ ((0 , inj₁ (inp3 , refl)) , ≤ᵇ⇒≤ _ _ tt)))
  (step (regop (w 0 tt)) (inj₁ (ib {s4} z≤n , false , false , refl) , inj₁ refl , ≤ᵇ⇒≤ _ _ tt)
  (step flush (inj₂ (1 , lz5 , refl) , inj₂ (1 , lz5 , refl , ≤ᵇ⇒≤ _ _ tt))
  (step (regop (w 0 tt)) (inj₁ (ib {s6} z≤n , false , false , refl) , inj₁ refl , ≤ᵇ⇒≤ _ _ tt)
  (step (regop (w 0 tt)) (inj₁ (ib {s7} (s≤s z≤n) , false , true , refl) , inj₂ (_ , refl , refl) , s≤s z≤n)
   done))))))
  where
  inp3 : InP (konsS s3) 0
  inp3 = refl , refl , ≤ᵇ⇒≤ _ _ tt , mb-at {konsS s3} 0 refl refl
  lz5 : Lazy s5 1
  lz5 = ≤ᵇ⇒≤ _ _ tt , inj₁ (refl , refl , ≤ᵇ⇒≤ _ _ tt , mb-at {s5} 1 refl refl)

rc : RecovL Pmut s0 s1
rc = recd ((true , 0 , unmapped , refl , refl) , ≤ᵇ⇒≤ _ _ tt)

-- the region full: four pages, the chain's consolidation page written,
-- and the epoch still to commit
full : drL s8 ≡ 4 × drL (konsS s8) ≡ 4 × length (chainOf s7) ≡ 1
full = refl , refl , refl

not-rooms : ¬ RoomsL Pmut
not-rooms rooms = ≤⇒≤ᵇ (rooms {s0} {s1} {s8} new0 rc run)

-- the code's rules keep a page free in every state of every run
-- (SpaceRegionLazy), and refuse the lazy commit the mutant let through:
-- there the flush commits in the region with the consolidation page and
-- takes its full checkpoint
code-rooms : RoomsL FlR
code-rooms = region-roomL

lazy-refused : ¬ FlR s5 s6
lazy-refused (inj₁ r) = ≤⇒≤ᵇ r
lazy-refused (inj₂ (kn , _)) = lazy-not-kons {s5} {s6} {1} refl kn
