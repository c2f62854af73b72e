{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: SCFTL.Impl.CheckpointSlot is not vacuous.  An instance
-- (the mutants' P: Data = Bool, amax = 1; a checkpoint of two L2P
-- pages, one entry each) in which the code's order of commands
-- (checkpoint.rs `write`: erase the record and both pages, SYNC, program
-- page 0 and page 1, SYNC, the record, SYNC) runs to the end from a
-- formatted (erased) shadow slot, which stands for P's erased `cpO`;
-- the end parses to the new checkpoint, and a crash outcome of each
-- phase is computed.  Mutant 18 uses this instance.  Last, rotation: the
-- rule of versions 3–6 (only the initial map's two slots) is not
-- invariant under moving a slot (`fixed-places-not-invariant`), where
-- P's rule `Newest` is (`newest-rotation`, `P-finds-rotated`).
------------------------------------------------------------------------
module SCFTL.Impl.CheckpointSlotExample where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; s≤s; z≤n)
open import Relation.Nullary using (¬_)
open import Data.Fin.Base using (Fin) renaming (zero to fz; suc to fs)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Bool.Base using (Bool; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

-- Two L2P pages of one entry each.
split2 : (ℕ → Maybe ℕ) → Fin 2 → Maybe ℕ
split2 C fz     = C 0
split2 C (fs _) = C 1

join2 : (Fin 2 → Maybe ℕ) → ℕ → Maybe ℕ
join2 ch zero    = ch fz
join2 ch (suc _) = ch (fs fz)

join-split2 : ∀ C a → a ≤ 1 → join2 (split2 C) a ≡ C a
join-split2 C zero          _             = refl
join-split2 C (suc zero)    _             = refl
join-split2 C (suc (suc a)) (s≤s ())

open import SCFTL.Impl.CheckpointSlot Bool false 1 2 0 _≟B_ 1 (Maybe ℕ) split2 join2 join-split2 public
import SCFTL.Impl.Model Bool false 1 2 0 _≟B_ as P

-- A formatted shadow slot: everything erased; it stands for P's `cpO`.
o-fmt : Img
o-fmt = img (λ _ → erased) erased

fmt-abs : Statement.Abs Valid o-fmt P.erased
fmt-abs = inj₂ ((λ g C ()) , λ g C v → bad-rec (inj₁ refl) v)

-- The new checkpoint: generation 1, address 0 on page 7, address 1 unmapped.
C1 : ℕ → Maybe ℕ
C1 zero    = just 7
C1 (suc _) = nothing

-- The code's order, run to the end.
code-order : Reach 1 C1 (durS o-fmt) done _
code-order =
  r-sync (r-rc (p-sync (p-pg (fs fz) (p-pg fz
    (e-sync (e-pg (fs fz) (e-pg fz (e-rc start)))
            (λ { fz → refl ; (fs fz) → refl }) refl)))
    (λ { fz → refl ; (fs fz) → refl })))
    refl

-- It ends with the new checkpoint in the slot.
ends-new : Valid (img (λ i → newPg 1 C1 i) (newRc 1 C1)) 1 C1
ends-new = split2 C1 , refl , (λ i → refl) , join-split2 C1

-- A crash right before the record's SYNC with the record lost (junk):
-- no checkpoint in the slot (P: the cell's junk outcome), recovery
-- takes the live slot.
record-lost : Statement.NoParse Valid (img (λ i → newPg 1 C1 i) junk)
record-lost g C v = bad-rec (inj₂ refl) v

------------------------------------------------------------------------
-- Rotation with a recovery that reads fixed places.
--
-- Before the rotation place 0 holds the checkpoint of generation 1
-- (0 ↦ page 0) and place 1 the newer one of generation 2 (C1: 0 ↦ page
-- 7); the rotation moves slot 1 to place 2 (a superblock taken from the
-- data pool) and its old place 1 becomes data (erased).  Both devices
-- hold the same checkpoints; the fixed-place rule finds generation 2 on
-- the first and, on the second, only generation 1 — the older
-- checkpoint, which configuration 7 keeps until the next checkpoint
-- erases it, without the epochs the newer one holds.

-- A recovery that reads only the initial map's two places (places 0
-- and 1: the rule of configuration versions 3–6, `commit_candidates`
-- without `scan`) on a device whose metadata rotated.
Fixed : (ℕ → P.Cell) → ℕ → (ℕ → Maybe ℕ) → Set
Fixed f g C = Newest (two (f 0) (f 1)) g C

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

-- So that rule is not invariant under moving a slot: a rotated slot
-- would not be the same cell for P.
fixed-places-not-invariant : ¬ RotationInvariant Fixed
fixed-places-not-invariant inv = lost-after (inv before after 2 C1 same found-before)
