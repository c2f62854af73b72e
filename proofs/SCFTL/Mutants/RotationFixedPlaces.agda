{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 19 (issue 39): after metadata rotation, recovery still looks
-- for the checkpoint only in the initial map's two slots (places 0 and
-- 1: the rule of configuration versions 3–6, `commit_candidates`
-- without `scan`) instead of scanning every place.  Everything else is
-- SCFTL.Impl.CheckpointSlot's (P's parse `Valid` included).
--
-- Mutant of the slot abstraction, not of P (check.sh:
-- MUTANTS_OF_CHECKPOINT_SLOT): `Pmut : SlotModel` and
-- `not-slot-abstraction : ¬ SlotAbstraction Pmut`: its rule is not
-- invariant under moving a slot, so a rotated slot is not the same cell
-- for P any more.
--
-- The run: before the rotation, place 0 holds the checkpoint of
-- generation 1 (0 ↦ page 0) and place 1 the newer one of generation 2
-- (0 ↦ page 7); the rotation moves slot 1 to place 2 (a superblock taken
-- from the data pool) and its old place 1 becomes data (erased).  Both
-- devices hold the same checkpoints; the mutant finds generation 2 on
-- the first and not on the second, where it finds generation 1 — the
-- older checkpoint, which configuration 7 keeps until the next
-- checkpoint erases it, without the epochs the newer one holds.  P's
-- rule (`Newest`) finds generation 2 on both (`P-finds-rotated`).
------------------------------------------------------------------------
module SCFTL.Mutants.RotationFixedPlaces where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; z≤n; s≤s)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Bool.Base using (Bool; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Empty using (⊥)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.CheckpointSlotExample
import SCFTL.Impl.Model Bool false 1 2 0 _≟B_ as P

-- MUTATED: only the initial map's two places are read.
Fixed : (ℕ → P.Cell) → ℕ → (ℕ → Maybe ℕ) → Set
Fixed f g C = Newest (two (f 0) (f 1)) g C

Pmut : SlotModel
Pmut = record { Parse = Valid ; Find = Fixed }

D0 : ℕ → Maybe ℕ
D0 _ = just 0

-- Before the rotation: generation 1 at place 0, generation 2 (C1) at 1.
before : ℕ → P.Cell
before = two (P.cpt 1 D0) (P.cpt 2 C1)

-- After it: slot 1 at place 2, place 1 erased.
after : ℕ → P.Cell
after zero                = P.cpt 1 D0
after (suc zero)          = P.erased
after (suc (suc zero))    = P.cpt 2 C1
after (suc (suc (suc _))) = P.junk

same : SameCands before after
same = fw , bw
  where
  fw : ∀ q h D → before q ≡ P.cpt h D → Σ ℕ λ q' → after q' ≡ P.cpt h D
  fw zero          h D e = 0 , e
  fw (suc zero)    h D e = 2 , e
  fw (suc (suc q)) h D ()
  bw : ∀ q h D → after q ≡ P.cpt h D → Σ ℕ λ q' → before q' ≡ P.cpt h D
  bw zero                h D e = 0 , e
  bw (suc zero)          h D ()
  bw (suc (suc zero))    h D e = 1 , e
  bw (suc (suc (suc q))) h D ()

-- Before the rotation the mutant finds generation 2 …
found-before : Fixed before 2 C1
found-before = (1 , refl) , top
  where
  top : ∀ q h D → two (P.cpt 1 D0) (P.cpt 2 C1) q ≡ P.cpt h D → h ≤ 2
  top zero          h D refl = s≤s z≤n
  top (suc zero)    h D refl = s≤s (s≤s z≤n)
  top (suc (suc q)) h D ()

-- … after it, not.
lost-after : ¬ Fixed after 2 C1
lost-after ((zero , ()) , _)
lost-after ((suc zero , ()) , _)
lost-after ((suc (suc q) , ()) , _)

-- … but the older generation 1.
finds-older : Fixed after 1 D0
finds-older = (0 , refl) , top
  where
  top : ∀ q h D → two (P.cpt 1 D0) P.erased q ≡ P.cpt h D → h ≤ 1
  top zero          h D refl = s≤s z≤n
  top (suc zero)    h D ()
  top (suc (suc q)) h D ()

-- P's rule finds generation 2 after the rotation.
P-finds-rotated : Newest after 2 C1
P-finds-rotated = newest-rotation before after 2 C1 same found-before

not-slot-abstraction : ¬ SlotAbstraction Pmut
not-slot-abstraction (_ , inv) = lost-after (inv before after 2 C1 same found-before)
