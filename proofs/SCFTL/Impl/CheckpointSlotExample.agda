{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: SCFTL.Impl.CheckpointSlot is not vacuous.  An instance
-- (the mutants' P: Data = Bool, amax = 1; a checkpoint of two L2P
-- pages, one entry each) in which the code's order of commands
-- (checkpoint.rs `write`: erase the record and both pages, SYNC, program
-- page 0 and page 1, SYNC, the record, SYNC) runs to the end from a
-- formatted (erased) shadow slot, which stands for P's erased `cpO`;
-- the end parses to the new checkpoint, and a crash outcome of each
-- phase is computed.  The checkpoint mutants (18, 19) use this instance.
------------------------------------------------------------------------
module SCFTL.Impl.CheckpointSlotExample where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; s≤s; z≤n)
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
