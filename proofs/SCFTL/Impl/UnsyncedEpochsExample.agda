{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: concrete runs of recovery's in-order check of the unsynced
-- epochs (`accU`, SCFTL.Impl.UnsyncedEpochs) on P's region, evaluated by
-- Agda.  Instance: Bool, d0 = false, amax = 1 (the mutants' P).
--
-- Two barrier epochs of generation 1 on an empty proven part: epoch 1
-- wrote sector 0 (true) to page 0, epoch 2 sector 1 (true) to page 1;
-- each has its committed page (digest: the page it wrote).  The images
-- SC1B allows after a crash: (false,false), (true,false), (true,true).
--   all-landed       everything landed: (true,true)
--   epoch2-lost      page 1 lost: epoch 2 dropped, (true,false)
--   commit2-lost     epoch 2's committed page lost: (true,false)
--   epoch1-lost      page 0 lost: recovery stops at epoch 1 although
--                    epoch 2 is intact, (false,false)
--   newest-only-mixes  P's `acc` on the same crash: (false,true), none
--                    of the three
------------------------------------------------------------------------
module SCFTL.Impl.UnsyncedEpochsExample where

open import Data.Nat.Base using (ℕ; zero; suc)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (_×_; _,_; proj₁)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.Model Bool false 1 2 0 _≟B_
open import SCFTL.Impl.UnsyncedEpochs Bool false 1 2 0 _≟B_

c₁ c₂ : Cell
c₁ = dlt 1 1 ((0 , 0) ∷ []) true (((0 , true , 0) ∷ []) , [] , 1)
c₂ = dlt 1 2 ((1 , 1) ∷ []) true (((1 , true , 1) ∷ []) , [] , 2)

es : List UEp
es = (c₁ , []) ∷ (c₂ , []) ∷ []

-- data pages: page 0 and page 1 as written, or lost (erased)
pages : Bool → Bool → ℕ → Cell
pages l0 l1 zero          = if0 l0 (dcell true 0)
  where if0 : Bool → Cell → Cell
        if0 true  c = c
        if0 false c = erased
pages l0 l1 (suc zero)    = if1 l1 (dcell true 1)
  where if1 : Bool → Cell → Cell
        if1 true  c = c
        if1 false c = erased
pages l0 l1 (suc (suc _)) = erased

-- what a recovered map reads on these pages
val : (ℕ → Cell) → Map → ℕ → Bool
val D m a = cellD (rview1 (m a))
  where rview1 : Maybe ℕ → Cell
        rview1 nothing  = erased
        rview1 (just p) = D p

img : (ℕ → Cell) → List UEp → ℕ → Bool
img D xs = val D (proj₁ (rp 1 (accU 1 D [] xs) (st0 unmapped)))

pair : (ℕ → Bool) → Bool × Bool
pair f = f 0 , f 1

all-landed : pair (img (pages true true) es) ≡ (true , true)
all-landed = refl

epoch2-lost : pair (img (pages true false) es) ≡ (true , false)
epoch2-lost = refl

commit2-lost : pair (img (pages true true) ((c₁ , []) ∷ (erased , []) ∷ [])) ≡ (true , false)
commit2-lost = refl

epoch1-lost : pair (img (pages false true) es) ≡ (false , false)
epoch1-lost = refl

newest-only-mixes :
  pair (val (pages false true) (proj₁ (rp 1 (acc 1 (pages false true) (lay es [])) (st0 unmapped))))
  ≡ (false , true)
newest-only-mixes = refl
