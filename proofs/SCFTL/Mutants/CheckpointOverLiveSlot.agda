{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 44 (issue 39), of the checkpoint slots in the model's state
-- (SCFTL.Impl.SlotOver): the full checkpoint written over the LIVE slot
-- (erase it, program the new L2P pages and record there), the other
-- slot left alone — the Rust's `Mutant::FullCheckpointOverLiveSlot`,
-- and at the level of the two slots what mutant 8 (CheckpointInPlace)
-- is for P's one cell.
--
-- Mutant of the slot layer (check.sh: MUTANTS_OF_SLOT_LAYER): `Pmut :
-- CkProtocol` and `not-slot-covered : ¬ SlotCovered Pmut` — some crash
-- of this protocol is no outcome of any of P's checkpoint crash points
-- (`ck1`, `ck2`, `ck3`) read through the slots.
--
-- The run (instance SCFTL.Impl.CheckpointSlotExample: two L2P pages,
-- from P's formatted state: the live slot holds the checkpoint of
-- generation 0, the other slot is erased): the checkpoint of
-- generation 1 starts by erasing the live slot's commit record and
-- crashes with that erase landed.  Neither slot parses: the disk holds
-- no checkpoint.  Every point of P's checkpoint keeps one cell holding
-- a checkpoint (the live one at `ck1`, the new one, synced, at `ck2`
-- and `ck3`), so none of them has an outcome the slots stand for.
-- (In P, mutant 8 has no snapshot-consistency counterexample, only an
-- unrecoverable state; here the same bug is refuted by the slot layer's
-- own statement, which the code's protocol proves: `slot-covered`.)
------------------------------------------------------------------------
module SCFTL.Mutants.CheckpointOverLiveSlot where

open import Data.Nat.Base using (ℕ; zero; suc)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Bool.Base using (Bool; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.CheckpointSlotExample
  using (Img; img; Slot; Reach; start; e-rc; exec; erR; durS; CrashS; bad-rec; erased; newPg; newRc; erasing;
         Valid; split2; join2; join-split2; module Statement)
open Statement Valid using (Abs; NoParse)
import SCFTL.Impl.Model Bool false 1 2 0 _≟B_ as P
open import SCFTL.Impl.Example using (module Enabled)
open Enabled Bool false 1 2 0 _≟B_ using (img-exists)
open import SCFTL.Mutants.Common using (s0)
open import SCFTL.Impl.CellFree Bool false 1 2 0 1 _≟B_ using (With)
open import SCFTL.Impl.SlotOver Bool false 1 2 0 1 _≟B_ 1 (Maybe ℕ) split2 join2 join-split2
  using (CkProtocol; SlotCovered; Stands; Older; CovB; newImg; erasedImg; new-stands; erased-stands)

-- MUTATED: the new checkpoint (g, C) written over the live slot (any
-- prefix of the code's protocol there), the other slot untouched.
data InPlace (oL0 oO0 : Img) (g : ℕ) (C : ℕ → Maybe ℕ) : Slot → Slot → Set where
  over-live : ∀ {ph sL} → Reach g C (durS oL0) ph sL → InPlace oL0 oO0 g C sL (durS oO0)

Pmut : CkProtocol
Pmut = InPlace

-- format's slots: the empty checkpoint of generation 0, an erased slot
oL0 oO0 : Img
oL0 = newImg 0 P.unmapped
oO0 = erasedImg

st0 : Stands s0 oL0 oO0
st0 = new-stands 0 P.unmapped , inj₁ erased-stands

-- the live slot's record erased (issued), nothing else
sL : Slot
sL = exec 1 P.unmapped erR (durS oL0)

r : Reach 1 P.unmapped (durS oL0) erasing sL
r = e-rc start

-- the crash: that erase landed; the pages as they were
oL : Img
oL = img (newPg 0 P.unmapped) erased

cL : CrashS sL oL
cL = (λ i → refl) , inj₂ (inj₁ refl)

cO : CrashS (durS oO0) oO0
cO = (λ i → refl) , refl

private
  npL : NoParse oL
  npL g C v = bad-rec {oL} (inj₁ refl) v

  npO : NoParse oO0
  npO g C v = bad-rec {oO0} (inj₁ refl) v

  no-cpt : ∀ {o c g C} → NoParse o → Abs o c → c ≡ P.cpt g C → ⊥
  no-cpt np (inj₁ (g' , C' , e , v)) _ = np g' C' v
  no-cpt np (inj₂ (nc , _)) e = nc _ _ e

  syn-inj : ∀ {a b} → P.syn a ≡ P.syn b → a ≡ b
  syn-inj refl = refl

  -- neither slot parses, so neither cell may hold a checkpoint
  -- (the other slot may also stand for a cell without a checkpoint by
  -- an older one: `Older`; then that cell holds none)
  no-cpt′ : ∀ {o c1 c g C} → NoParse o → Older c1 o c → c ≡ P.cpt g C → ⊥
  no-cpt′ np (inj₁ a) e = no-cpt np a e
  no-cpt′ np (inj₂ (nc , _)) e = nc _ _ e

  both : ∀ {z c1 c2 g C} → (Stands (With z c1 c2) oL oO0 ⊎ Stands (With z c1 c2) oO0 oL)
       → (c1 ≡ P.cpt g C ⊎ c2 ≡ P.cpt g C) → ⊥
  both (inj₁ (a1 , a2)) (inj₁ e) = no-cpt npL a1 e
  both (inj₁ (a1 , a2)) (inj₂ e) = no-cpt′ npO a2 e
  both (inj₂ (a1 , a2)) (inj₁ e) = no-cpt npO a1 e
  both (inj₂ (a1 , a2)) (inj₂ e) = no-cpt′ npL a2 e

  -- ck1: the live cell still holds generation 0
  at1 : CovB (P.ck1 s0) (P.syncAll (P.ck1 s0)) oL oO0 → ⊥
  at1 (c1 , c2 , (_ , l , _ , _ , _) , sd) = both {P.syncAll (P.ck1 s0)} sd (inj₁ (syn-inj l))

  -- ck2: the other cell holds generation 1, synced
  at2 : CovB (P.ck2 s0) (P.syncAll (P.ck2 s0)) oL oO0 → ⊥
  at2 (c1 , c2 , (_ , _ , o , _ , _) , sd) = both {P.syncAll (P.ck2 s0)} sd (inj₂ (syn-inj o))

  -- ck3: the slots swapped, the live cell holds generation 1
  at3 : CovB (P.ck3 s0) (P.syncAll (P.ck3 s0)) oL oO0 → ⊥
  at3 (c1 , c2 , (_ , l , _ , _ , _) , sd) = both {P.syncAll (P.ck3 s0)} sd (inj₁ (syn-inj l))

  go : (Σ P.St λ m → P.CkPt s0 m × ∀ z → P.Img m z → CovB m z oL oO0) → ⊥
  go (_ , inj₁ refl , f)        = at1 (f (P.syncAll (P.ck1 s0)) (img-exists (P.ck1 s0)))
  go (_ , inj₂ (inj₁ refl) , f) = at2 (f (P.syncAll (P.ck2 s0)) (img-exists (P.ck2 s0)))
  go (_ , inj₂ (inj₂ refl) , f) = at3 (f (P.syncAll (P.ck3 s0)) (img-exists (P.ck3 s0)))

not-slot-covered : ¬ SlotCovered Pmut
not-slot-covered h = go (h {s0} {oL0} {oO0} {sL} {durS oO0} {cL = P.cpt 0 P.unmapped} {cO = P.erased} refl refl st0 (over-live r) cL cO)
