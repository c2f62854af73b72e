{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the code's multi-page checkpoint slots IN the model's state.
--
-- SCFTL.Impl.CheckpointSlot proved that P's one-cell slot is a sound
-- abstraction of the code's slot (n+1 L2P pages and a commit record,
-- written by checkpoint.rs `write`: erase, SYNC, program the pages,
-- SYNC, program the record, SYNC), but kept the slot out of the models
-- the theorems are about.  Here the slots are put in, as the block layer
-- was (SCFTL.Impl.BlocksOver): `Over M stOf` adds to a model M of SB's
-- operations (with `stOf` reading P's state out of M's) the two slots'
-- pages, one image per role (the live checkpoint's, P's `cpL`; the
-- other, P's `cpO`), and ties them to P's cells:
--
--   * `Stands s oL oO`: the live slot's pages parse (checkpoint.rs
--     `read_commit_at`, `read_l2p`: `Valid`) to the checkpoint P's cell
--     holds, or to none where it holds none (CheckpointSlot's `Abs`);
--     the other slot's likewise, or (`Older`) it holds a checkpoint
--     older than the live one where P's cell holds none — configuration
--     version 7 on keeps the old slot after the commit point
--     (docs/FORMAT.md §4.5) where P's `ck2` erases it; it holds after
--     every step and every crash of the layer;
--   * a step leaves each slot as it was, erased, or holding a new
--     checkpoint as the code's protocol leaves it (`Moved`: `newImg`,
--     `erasedImg`), the roles kept or swapped (P's `ck3` swaps them; the
--     places do not matter to recovery: CheckpointSlot's
--     `newest-rotation`);
--   * a crash leaves each slot at a crash outcome of some prefix of the
--     code's protocol from where it was (`SlotCrash`: `Reach` then
--     `CrashS`, page by page old / new / junk), the roles kept or
--     swapped;
--   * recovery therefore chooses from the slots' pages: what M's recovery
--     picks from P's cells (`pick`) is the code's rule on the images
--     (`load_newest`: `CodeNewest`), `rec-reads-slots`, `rec-none`.
--
-- Results:
--   obligationsS, theorem1-SX, SX-snapshot-consistent : the §4.4
--       obligations of `Over M stOf` against SB from M's, Theorem 1 and
--       SC1B for it (instantiated over the block layer over PX with
--       physical reads in SCFTL.Impl.OneModelSlots);
--   lift-ok, lift-new : the layer takes every step of M;
--   models-out, cover : coverage at the level of P's crash images (as
--       BlocksOver's `cover` for the physical pages): at any crash point
--       x of P whose cells model the code's slots (`Models`: idle, being
--       written, written, being erased, erased, kept where P erases —
--       the states the code's protocol passes through), every crash
--       outcome of the code's slots is, cell by cell, a crash outcome of
--       x (`Img x z'`) whose cells the slots' images stand for;
--   lift-crash, cellfree-of : the same for every crash of M whose
--       relation leaves the cells free (SCFTL.Impl.CellFree; proven for
--       the one model with blocks in SCFTL.Impl.OneModelCellFree): it is
--       a crash of the layer whose slots are the code's outcomes;
--   ck-models, slot-covered (versions 3–6: `CkCode`, the new slot
--       written, then the old one erased), ck-models-7, slot-covered-7
--       (version 7 on: `CkCode7`, the old slot kept) : the crash points
--       of P's full checkpoint (`ck1`, `ck2`, `ck3`: `CkPt`) model every
--       state of the code's two-slot sequence, so every crash of it with
--       the rest of the flash at the matching point's image is a crash
--       of P at that point read through the slots (`SlotCovered`; mutant
--       44, the checkpoint written over the live slot, has no such point);
--   crashP-pt, cover-P : every crash of P (operation or recovery) is an
--       image of one of its crash points (`PtP`), and the slots' crash
--       outcomes at that point give crashes of P again;
--   ck3-moved, ck3-kept : the normal checkpoint is a step of the layer
--       (the new slot written, the old one erased or kept, roles swapped).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ; _≤_)
open import Data.Fin.Base using (Fin)
open import Data.Maybe.Base using (Maybe)
open import Relation.Binary.Definitions using (DecidableEquality)
open import Relation.Binary.PropositionalEquality using (_≡_)

module SCFTL.Impl.SlotOver
  (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ) (_≟D_ : DecidableEquality Data)
  (n : ℕ) (Ch : Set)
  (split : (ℕ → Maybe ℕ) → Fin (ℕ.suc n) → Ch)
  (join  : (Fin (ℕ.suc n) → Ch) → ℕ → Maybe ℕ)
  (join-split : ∀ C a → a ≤ amax → join (split C) a ≡ C a)
  where

open import Data.Nat.Base using (zero; suc; _≤ᵇ_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-refl; ≤-trans; n≤1+n)
open import Data.Bool.Base using (Bool; true; false; if_then_else_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥; ⊥-elim)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (refl; sym; trans; cong; subst)

import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ as P
open P using (St; MC; Map)
import SCFTL.Impl.CheckpointSlot Data d0 amax wmax kmax _≟D_ n Ch split join join-split as CS
open CS using (Img; img; Slot; Reach; CrashS; CrashM; durS; Valid; Valid-≐; Valid-gen; newPg; newRc;
               Phase; erasing; done; exec; SYNC; Inv; reach-inv; oe-out; all-or-one; bad-rec; bad-page;
               NotCpt; CodeNewest; pick-code; new-valid)
open CS.Img using (ip; ir)
open CS.Slot using (pg; rc)
open CS.Statement Valid using (Abs; NoParse)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
import SCFTL.Spec Data d0 amax wmax as Sp
open import SCFTL.Impl.CellFree Data d0 amax wmax kmax umax _≟D_ using (With; FreeM; img-with)

private
  Abs-≐ = CS.SV.Abs-≐

_≐_ = CS._≐_

------------------------------------------------------------------------
-- The slots' images and P's cells

-- A slot holding checkpoint (g, C) as the code's protocol leaves it.
newImg : ℕ → Map → Img
newImg g C = img (newPg g C) (newRc g C)

-- An erased slot (format's second slot; the old slot after a
-- checkpoint's erase).
erasedImg : Img
erasedImg = img (λ _ → CS.erased) CS.erased

new-stands : ∀ g C → Abs (newImg g C) (P.cpt g C)
new-stands g C = inj₁ (g , C , refl , new-valid (λ i → refl) refl)

-- A cell with no checkpoint: erased or junk.
erased-nc : NotCpt P.erased
erased-nc g C ()

junk-nc : NotCpt P.junk
junk-nc g C ()

-- An erased slot stands for every cell without a checkpoint.
nc-img : ∀ c → NotCpt c → Abs erasedImg c
nc-img c nc = inj₂ (nc , λ g C v → bad-rec {erasedImg} (inj₁ refl) v)

erased-stands : Abs erasedImg P.erased
erased-stands = nc-img P.erased erased-nc

-- The generation of the checkpoint a cell holds (0: none).
genOf : P.Cell → ℕ
genOf (P.cpt g _)       = g
genOf P.erased          = 0
genOf P.junk            = 0
genOf (P.dcell _ _)     = 0
genOf (P.dlt _ _ _ _ _) = 0

-- From configuration version 7 on the old slot is not erased after the
-- commit point (docs/FORMAT.md §4.5): it keeps a checkpoint older than
-- the live one where P's cell (erased by `ck2`) holds none.  `AbsR gL o
-- c`: o stands for c, or c holds no checkpoint and o one of a
-- generation below gL (recovery's rule passes over it: `pick-older`).
AbsR : ℕ → Img → P.Cell → Set
AbsR gL o c = Abs o c ⊎ (NotCpt c × Σ ℕ λ h → Σ Map λ D → Valid o h D × h < gL)

-- `Older c1 o c`: o stands for c, or c holds no checkpoint and o holds
-- one older than the checkpoint the live cell c1 holds (`AbsR` with the
-- bound stated by the live cell, not as a number: Agda 2.6.3 fails with
-- an internal error on `genOf (cur (cpL (With z c1 c2)))` in a type).
Older : P.Cell → Img → P.Cell → Set
Older c1 o c = Abs o c ⊎ (NotCpt c × Σ ℕ λ h → Σ Map λ D → Valid o h D ×
                          Σ ℕ λ g → Σ Map λ C → c1 ≡ P.cpt g C × h < g)

-- Both slots stand for P's two cells: the live one exactly, the other
-- one possibly an older checkpoint where P's cell holds none.
Stands : St → Img → Img → Set
Stands s oL oO = Abs oL (P.cur (P.cpL s)) × Older (P.cur (P.cpL s)) oO (P.cur (P.cpO s))

AbsR-≐ : ∀ {g o o' c} → o ≐ o' → AbsR g o c → AbsR g o' c
AbsR-≐ e (inj₁ a) = inj₁ (Abs-≐ e a)
AbsR-≐ e (inj₂ (nc , h , D , v , lt)) = inj₂ (nc , h , D , Valid-≐ e v , lt)

AbsR0 : ∀ {o c} → AbsR 0 o c → Abs o c
AbsR0 (inj₁ a) = a
AbsR0 (inj₂ (_ , _ , _ , _ , ()))

-- What an operation leaves in a slot: as it was, erased, or a new
-- checkpoint (each one the end of a complete run of the code's
-- commands: `erase-img`, `done-img`).
Moved : Img → Img → Set
Moved o o' = o' ≡ o ⊎ o' ≡ erasedImg ⊎ Σ ℕ λ g → Σ Map λ C → o' ≡ newImg g C

-- What a crash leaves in a slot: an outcome of a prefix of the code's
-- protocol from where it was (the empty prefix: the slot as it was).
SlotCrash : Img → Img → Set
SlotCrash o o' = Σ ℕ λ g → Σ Map λ C → Σ Phase λ ph → Σ Slot λ s → Reach g C (durS o) ph s × CrashS s o'

-- The two slots, in their roles or swapped.
Both : (Img → Img → Set) → Img → Img → Img → Img → Set
Both R oL oO oL' oO' = (R oL oL' × R oO oO') ⊎ (R oO oL' × R oL oO')

-- The image a slot's pages hold.
imgOf : Slot → Img
imgOf s = img (λ i → CS.cur (pg s i)) (CS.cur (rc s))

-- A complete run of the protocol leaves the new checkpoint.
done-img : ∀ {g C o s} → Reach g C (durS o) done s → imgOf s ≐ newImg g C
done-img r with reach-inv r
... | hp , hr = (λ i → cong CS.cur (hp i)) , cong CS.cur hr

-- The erases of the protocol, once all issued, leave an erased slot.
erase-img : ∀ {s} → (∀ i → CS.cur (pg s i) ≡ CS.erased) → CS.cur (rc s) ≡ CS.erased → imgOf s ≐ erasedImg
erase-img ep er = ep , er

stand-any : ∀ c → Σ Img λ o → Abs o c × ∀ o0 → Moved o0 o
stand-any (P.cpt g C)       = newImg g C , new-stands g C , λ _ → inj₂ (inj₂ (g , C , refl))
stand-any P.erased          = erasedImg , erased-stands , λ _ → inj₂ (inj₁ refl)
stand-any P.junk            = erasedImg , nc-img _ junk-nc , λ _ → inj₂ (inj₁ refl)
stand-any (P.dcell _ _)     = erasedImg , nc-img _ (λ g C ()) , λ _ → inj₂ (inj₁ refl)
stand-any (P.dlt _ _ _ _ _) = erasedImg , nc-img _ (λ g C ()) , λ _ → inj₂ (inj₁ refl)

------------------------------------------------------------------------
-- Recovery reads the slots: P's `pick` on cells the images stand for is
-- the code's rule on the images.

just≢nothing : ∀ {A : Set} {x : A} → ¬ just x ≡ nothing
just≢nothing ()

pick-nc : ∀ c1 c2 → P.pick c1 c2 ≡ nothing → NotCpt c1 × NotCpt c2
pick-nc c1 c2 e = (λ g C e1 → one g C c2 (subst (λ c → P.pick c c2 ≡ nothing) e1 e))
                , (λ g C e2 → two g C c1 (subst (λ c → P.pick c1 c ≡ nothing) e2 e))
  where
    one : ∀ g C c2 → ¬ P.pick (P.cpt g C) c2 ≡ nothing
    one g C P.erased ()
    one g C P.junk ()
    one g C (P.dcell _ _) ()
    one g C (P.dlt _ _ _ _ _) ()
    one g C (P.cpt h D) e with h ≤ᵇ g
    ... | true  = just≢nothing e
    ... | false = just≢nothing e
    two : ∀ g C c1 → ¬ P.pick c1 (P.cpt g C) ≡ nothing
    two g C P.erased ()
    two g C P.junk ()
    two g C (P.dcell _ _) ()
    two g C (P.dlt _ _ _ _ _) ()
    two g C (P.cpt h D) = one h D (P.cpt g C)

noparse : ∀ {o c} → Abs o c → NotCpt c → NoParse o
noparse (inj₁ (g , C , e , v)) nc = ⊥-elim (nc g C e)
noparse (inj₂ (_ , np)) nc = np

-- When P's recovery finds a checkpoint (g, C), the code's rule on the
-- slots' pages finds it too (a committed checkpoint of the highest
-- generation); when P's finds none, no slot parses.
private
  cpt-inj : ∀ {g C h D} → P.cpt g C ≡ P.cpt h D → g ≡ h × C ≡ D
  cpt-inj refl = refl , refl

  -- with a second cell that holds no checkpoint, P picks the first one
  pick-first-nc : ∀ c1 c2 {b g C} → NotCpt c2 → P.pick c1 c2 ≡ just (b , g , C) → c1 ≡ P.cpt g C
  pick-first-nc (P.cpt h D) P.erased          nc refl = refl
  pick-first-nc (P.cpt h D) P.junk            nc refl = refl
  pick-first-nc (P.cpt h D) (P.dcell _ _)     nc refl = refl
  pick-first-nc (P.cpt h D) (P.dlt _ _ _ _ _) nc refl = refl
  pick-first-nc c1 (P.cpt h D) nc e = ⊥-elim (nc h D refl)
  pick-first-nc P.erased          P.erased          nc ()
  pick-first-nc P.erased          P.junk            nc ()
  pick-first-nc P.erased          (P.dcell _ _)     nc ()
  pick-first-nc P.erased          (P.dlt _ _ _ _ _) nc ()
  pick-first-nc P.junk            P.erased          nc ()
  pick-first-nc P.junk            P.junk            nc ()
  pick-first-nc P.junk            (P.dcell _ _)     nc ()
  pick-first-nc P.junk            (P.dlt _ _ _ _ _) nc ()
  pick-first-nc (P.dcell _ _)     P.erased          nc ()
  pick-first-nc (P.dcell _ _)     P.junk            nc ()
  pick-first-nc (P.dcell _ _)     (P.dcell _ _)     nc ()
  pick-first-nc (P.dcell _ _)     (P.dlt _ _ _ _ _) nc ()
  pick-first-nc (P.dlt _ _ _ _ _) P.erased          nc ()
  pick-first-nc (P.dlt _ _ _ _ _) P.junk            nc ()
  pick-first-nc (P.dlt _ _ _ _ _) (P.dcell _ _)     nc ()
  pick-first-nc (P.dlt _ _ _ _ _) (P.dlt _ _ _ _ _) nc ()

  valid-at : ∀ {o c g C} → Abs o c → c ≡ P.cpt g C → Valid o g C
  valid-at (inj₁ (g' , C' , e' , v)) e with cpt-inj (trans (sym e') e)
  ... | refl , refl = v
  valid-at (inj₂ (nc , _)) e = ⊥-elim (nc _ _ e)

rec-reads-slots : ∀ {s oL oO b g C} → Stands s oL oO →
  P.pick (P.cur (P.cpL s)) (P.cur (P.cpO s)) ≡ just (b , g , C) → CodeNewest oL oO g C
rec-reads-slots (aL , inj₁ aO) e = pick-code aL aO e
rec-reads-slots {s} {oL} {oO} {g = g} {C} (aL , inj₂ (nc , h , D , v , g' , C' , e' , lt)) e =
  inj₁ vL , λ { h' D' (inj₁ v') → ≤-reflexive′ (Valid-gen v' vL) ; h' D' (inj₂ v') → lt′ (Valid-gen v' v) }
  where
    e1 : P.cur (P.cpL s) ≡ P.cpt g C
    e1 = pick-first-nc (P.cur (P.cpL s)) (P.cur (P.cpO s)) nc e
    vL : Valid oL g C
    vL = valid-at aL e1
    ≤-reflexive′ : ∀ {a b} → a ≡ b → a ≤ b
    ≤-reflexive′ refl = ≤-refl
    gg : g' ≡ g
    gg = proj₁ (cpt-inj (trans (sym e') e1))
    lt′ : ∀ {h'} → h' ≡ h → h' ≤ g
    lt′ refl = ≤-trans (n≤1+n h) (subst (λ x → suc h ≤ x) gg lt)

rec-none : ∀ {s oL oO} → Stands s oL oO →
  P.pick (P.cur (P.cpL s)) (P.cur (P.cpO s)) ≡ nothing → NoParse oL × NoParse oO
rec-none {s} {oL} {oO} (aL , aO) e = noparse aL ncL , noparse (older-nc aO) ncO
  where
    ncL = proj₁ (pick-nc (P.cur (P.cpL s)) (P.cur (P.cpO s)) e)
    ncO = proj₂ (pick-nc (P.cur (P.cpL s)) (P.cur (P.cpO s)) e)
    older-nc : Older (P.cur (P.cpL s)) oO (P.cur (P.cpO s)) → Abs oO (P.cur (P.cpO s))
    older-nc (inj₁ a) = a
    older-nc (inj₂ (_ , _ , _ , _ , g , C , e1 , _)) = ⊥-elim (ncL g C e1)

------------------------------------------------------------------------
-- Coverage: the code's slot outcomes are crash outcomes of P's cells

-- The code's slot, at a crash, in a state that P's cell m models; o0 is
-- the slot's image before the operation, which stands for P's cell up
-- to an older checkpoint than generation g0 (`AbsR`; g0 = 0: exactly).
data Models (g0 : ℕ) (o0 : Img) : MC → Slot → Set where
  -- not touched: P's cell as it was
  idle    : ∀ {c} → AbsR g0 o0 c → Models g0 o0 (P.syn c) (durS o0)
  -- any prefix of the protocol writing (g, C): P's program of the cell
  -- (`ck1`), not yet synced
  writing : ∀ {c0 g C ph s} → AbsR g0 o0 c0 → Reach g C (durS o0) ph s → Models g0 o0 (P.uns c0 (P.cpt g C)) s
  -- the protocol complete: P's cell synced
  written : ∀ {g C s} → Reach g C (durS o0) done s → Models g0 o0 (P.syn (P.cpt g C)) s
  -- the old slot's erases, any prefix (`ck2`'s erase of the old cell;
  -- configuration versions 3–6)
  wiping  : ∀ {c0 g C s} → AbsR g0 o0 c0 → Reach g C (durS o0) erasing s → Models g0 o0 (P.uns c0 P.erased) s
  -- the erases all issued and synced (`ck3`)
  wiped   : ∀ {g C s} → Reach g C (durS o0) erasing s
          → (∀ i → CS.cur (pg s i) ≡ CS.erased) → CS.cur (rc s) ≡ CS.erased
          → Models g0 o0 (P.syn P.erased) (exec g C SYNC s)
  -- the old slot kept where P erases its cell (`ck2`; configuration
  -- version 7 on): P's crash outcome "old"
  kept    : ∀ {c0} → AbsR g0 o0 c0 → Models g0 o0 (P.uns c0 P.erased) (durS o0)

private
  -- The erase phase, read as any change of P's cell c0: old, or no
  -- checkpoint.
  erasing-cell : ∀ {g0 o0 c0 n g C s o} → AbsR g0 o0 c0 → Inv g C o0 erasing s → CrashS s o
               → Σ P.Cell λ c → P.CrashC (P.uns c0 n) (P.syn c) × AbsR g0 o c
  erasing-cell {o = o} a0 (hp , hr) (cp , cr) with oe-out hr cr | all-or-one (λ i → oe-out (hp i) (cp i))
  ... | inj₂ b | _            = P.junk , inj₂ (inj₂ refl) , inj₁ (inj₂ (junk-nc , λ g C v → bad-rec {o} b v))
  ... | inj₁ _ | inj₂ (i , b) = P.junk , inj₂ (inj₂ refl) , inj₁ (inj₂ (junk-nc , λ g C v → bad-page {o} i b v))
  ... | inj₁ e | inj₁ es      = _ , inj₁ refl , AbsR-≐ ((λ i → sym (es i)) , sym e) a0

  out-R : ∀ {g0 m o} → (Σ P.Cell λ c → P.CrashC m (P.syn c) × Abs o c) → Σ P.Cell λ c → P.CrashC m (P.syn c) × AbsR g0 o c
  out-R (c , e , a) = c , e , inj₁ a

  -- CheckpointSlot's `refines`, from a slot that may hold an older
  -- checkpoint (only the erase phase reads the slot before)
  writing-cell : ∀ {g0 o0 c0 g C ph s o} → AbsR g0 o0 c0 → Reach g C (durS o0) ph s → CrashS s o
               → Σ P.Cell λ c → P.CrashC (P.uns c0 (P.cpt g C)) (P.syn c) × AbsR g0 o c
  writing-cell {g0} {o0} {c0} {g} {C} {ph} {s} {o} a0 r cs = go ph (reach-inv r)
    where
      go : ∀ ph → Inv g C o0 ph s → Σ P.Cell λ c → P.CrashC (P.uns c0 (P.cpt g C)) (P.syn c) × AbsR g0 o c
      go erasing i = erasing-cell {n = P.cpt g C} {g = g} {C = C} {s = s} {o = o} a0 i cs
      go CS.programming (hp , hr) =
        P.junk , inj₂ (inj₂ refl) , inj₁ (inj₂ (junk-nc , λ g' C' v → bad-rec {o} (inj₁ (subst (λ m → CrashM m (ir o)) hr (proj₂ cs))) v))
      go CS.recording (hp , hr) = out-R (CS.SV.pages-new-out {c0} hp hr cs)
      go done (hp , hr) = out-R (CS.SV.done-out {c0} hp hr cs)

-- Every crash outcome of a slot that P's cell m models stands for a
-- crash outcome of m.
models-out : ∀ {g0 o0 m s o} → Models g0 o0 m s → CrashS s o → Σ P.Cell λ c → P.CrashC m (P.syn c) × AbsR g0 o c
models-out (idle {c} a0) (cp , cr) = c , refl , AbsR-≐ ((λ i → sym (cp i)) , sym cr) a0
models-out (writing a0 r) cs = writing-cell a0 r cs
models-out {o = o} (written {g} {C} r) (cp , cr) with reach-inv r
... | hp , hr = P.cpt g C , refl ,
                inj₁ (inj₁ (g , C , refl , new-valid (λ i → subst (λ m → CrashM m (ip o i)) (hp i) (cp i))
                                                     (subst (λ m → CrashM m (ir o)) hr cr)))
models-out {o = o} (wiping {g = g} {C} {s} a0 r) cs = erasing-cell {n = P.erased} {g = g} {C = C} {s = s} {o = o} a0 (reach-inv r) cs
models-out {o = o} (wiped r ep er) (cp , cr) =
  P.erased , refl , inj₁ (inj₂ (erased-nc , λ g C v → bad-rec {o} (inj₁ (trans cr er)) v))
models-out (kept {c0} a0) (cp , cr) = c0 , inj₁ refl , AbsR-≐ ((λ i → sym (cp i)) , sym cr) a0

-- an outcome of crash point m: z with cells that the images stand for
-- (in their roles: `Cov`; in either order: `CovB`)
Cov CovB : St → St → Img → Img → Set
Cov m z oL oO = Σ P.Cell λ c1 → Σ P.Cell λ c2 → P.Img m (With z c1 c2) × Stands (With z c1 c2) oL oO
CovB m z oL oO = Σ P.Cell λ c1 → Σ P.Cell λ c2 →
  P.Img m (With z c1 c2) × (Stands (With z c1 c2) oL oO ⊎ Stands (With z c1 c2) oO oL)

private
  as-is : ∀ {m z oL oO} → Cov m z oL oO → CovB m z oL oO
  as-is (c1 , c2 , i , sd) = c1 , c2 , i , inj₁ sd

  swapped : ∀ {m z oL oO} → Cov m z oO oL → CovB m z oL oO
  swapped (c1 , c2 , i , sd) = c1 , c2 , i , inj₂ sd

-- The other slot's bound is at most the generation of every crash
-- outcome of the live cell (it holds a checkpoint at least that new).
Below : ℕ → MC → Set
Below g m = ∀ c1 → P.CrashC m (P.syn c1) → g ≡ 0 ⊎ Σ ℕ λ g' → Σ Map λ C → c1 ≡ P.cpt g' C × g ≤ g'

below-0 : ∀ m → Below 0 m
below-0 m c1 e = inj₁ refl

absR : ∀ {c1 o c} → Older c1 o c → AbsR (genOf c1) o c
absR (inj₁ a) = inj₁ a
absR (inj₂ (nc , h , D , v , g , C , refl , lt)) = inj₂ (nc , h , D , v , lt)

below′ : ∀ c → Below (genOf c) (P.syn c)
below′ (P.cpt g C)       c1 refl = inj₂ (g , C , refl , ≤-refl)
below′ P.erased          c1 refl = inj₁ refl
below′ P.junk            c1 refl = inj₁ refl
below′ (P.dcell _ _)     c1 refl = inj₁ refl
below′ (P.dlt _ _ _ _ _) c1 refl = inj₁ refl

older-of : ∀ {g m c1 o c} → Below g m → P.CrashC m (P.syn c1) → AbsR g o c → Older c1 o c
older-of bl e (inj₁ a) = inj₁ a
older-of {c1 = c1} bl e (inj₂ (nc , h , D , v , lt)) with bl c1 e
... | inj₁ refl = ⊥-elim (n≮0′ lt)
  where
    n≮0′ : ∀ {k} → ¬ k < 0
    n≮0′ ()
... | inj₂ (g' , C , e' , le) = inj₂ (nc , h , D , v , g' , C , e' , ≤-trans lt le)

-- At a crash point x of P whose cells model the code's slots, every
-- crash outcome of the slots is, with the rest of the flash as any
-- outcome z of x, an outcome of x whose cells the slots stand for.
cover : ∀ {x z g oL0 oO0 sL sO oL oO} → P.Img x z
      → Models 0 oL0 (P.cpL x) sL → Models g oO0 (P.cpO x) sO → Below g (P.cpL x)
      → CrashS sL oL → CrashS sO oO
      → Cov x z oL oO
cover {x} {z} {g} {oL = oL} {oO} i mL mO bl cL cO = go (models-out mL cL) (models-out mO cO)
  where
    go : (Σ P.Cell λ c → P.CrashC (P.cpL x) (P.syn c) × AbsR 0 oL c) →
         (Σ P.Cell λ c → P.CrashC (P.cpO x) (P.syn c) × AbsR g oO c) → Cov x z oL oO
    go (cl , el , al) (co , eo , ao) = cl , co , img-with x z cl co i el eo , AbsR0 al , older-of bl el ao

-- A slot P's cell models was reached by a prefix of the code's
-- protocol, so its crash outcomes are the layer's `SlotCrash`.
models-slotcrash : ∀ {g0 o0 m s o} → Models g0 o0 m s → CrashS s o → SlotCrash o0 o
models-slotcrash (idle _) cs              = 0 , P.unmapped , erasing , _ , CS.start , cs
models-slotcrash (writing {g = g} {C} {ph} _ r) cs = g , C , ph , _ , r , cs
models-slotcrash (written {g} {C} r) cs   = g , C , done , _ , r , cs
models-slotcrash (wiping {g = g} {C} _ r) cs = g , C , erasing , _ , r , cs
models-slotcrash (wiped {g} {C} r ep er) cs = g , C , CS.programming , _ , CS.e-sync r ep er , cs
models-slotcrash (kept _) cs              = 0 , P.unmapped , erasing , _ , CS.start , cs

------------------------------------------------------------------------
-- P's full checkpoint and the code's two slots

-- Where the code is in its full checkpoint from slots oL0 (live) and
-- oO0 (other), writing (g, C): the new checkpoint into the other slot
-- (any prefix), then the old slot's erases (any prefix), then done
-- (configuration versions 3–6).
data CkCode (oL0 oO0 : Img) (g : ℕ) (C : Map) : Slot → Slot → Set where
  new-slot : ∀ {ph sO} → Reach g C (durS oO0) ph sO → CkCode oL0 oO0 g C (durS oL0) sO
  old-wipe : ∀ {sO g' C' sL} → Reach g C (durS oO0) done sO → Reach g' C' (durS oL0) erasing sL
           → CkCode oL0 oO0 g C sL sO
  finished : ∀ {sO g' C' sL} → Reach g C (durS oO0) done sO → Reach g' C' (durS oL0) erasing sL
           → (∀ i → CS.cur (pg sL i) ≡ CS.erased) → CS.cur (rc sL) ≡ CS.erased
           → CkCode oL0 oO0 g C (exec g' C' SYNC sL) sO

-- From configuration version 7: the new checkpoint into the other slot
-- (any prefix; its first step erases that slot, which may hold an older
-- checkpoint), then nothing more: the old slot is kept.
data CkCode7 (oL0 oO0 : Img) (g : ℕ) (C : Map) : Slot → Slot → Set where
  new-slot : ∀ {ph sO} → Reach g C (durS oO0) ph sO → CkCode7 oL0 oO0 g C (durS oL0) sO
  old-kept : ∀ {sO} → Reach g C (durS oO0) done sO → CkCode7 oL0 oO0 g C (durS oL0) sO

-- The statement for any protocol of the full checkpoint over the two
-- slots (the states, live slot and other slot, it passes through from
-- images oL0 and oO0 writing (g, C)): every state of it has a crash
-- point m of P's checkpoint such that every crash outcome of the slots,
-- with the rest of the flash at any outcome z of m, is an outcome of m
-- (z with its two cells replaced) whose cells the slots' outcomes stand
-- for (the roles swapped at `ck3`'s point).  The code's protocols have
-- it (`slot-covered`, `slot-covered-7`).  A protocol that writes the
-- new checkpoint over the live slot does not
-- (SCFTL/Mutants/CheckpointOverLiveSlot, mutant 44).
CkProtocol : Set₁
CkProtocol = Img → Img → ℕ → Map → Slot → Slot → Set

SlotCovered : CkProtocol → Set
SlotCovered K = ∀ {s oL0 oO0 sL sO cL cO oL oO} → P.cpL s ≡ P.syn cL → P.cpO s ≡ P.syn cO → Stands s oL0 oO0
  → K oL0 oO0 (suc (P.gen s)) (P.l2p s) sL sO → CrashS sL oL → CrashS sO oO
  → Σ St λ m → P.CkPt s m × ∀ z → P.Img m z → CovB m z oL oO

-- The cells of a crash point m model the code's slots (the live one
-- exactly, the other one up to an older checkpoint than the live cell's).
CkM : St → Img → Img → Slot → Slot → Set
CkM m oL0 oO0 sL sO = Σ ℕ λ g → Models 0 oL0 (P.cpL m) sL × Models g oO0 (P.cpO m) sO × Below g (P.cpL m)

-- Each state of the code's checkpoint is modelled by one of P's three
-- crash points of the checkpoint (`ck3` with the roles swapped: its live
-- cell is the new slot).
ck-models : ∀ {s oL0 oO0 sL sO cL cO} → P.cpL s ≡ P.syn cL → P.cpO s ≡ P.syn cO → Stands s oL0 oO0
  → CkCode oL0 oO0 (suc (P.gen s)) (P.l2p s) sL sO
  → CkM (P.ck1 s) oL0 oO0 sL sO ⊎ CkM (P.ck2 s) oL0 oO0 sL sO ⊎ CkM (P.ck3 s) oO0 oL0 sO sL
ck-models eL eO (aL , aO) (new-slot r) rewrite eL | eO = inj₁ (_ , idle (inj₁ aL) , writing (absR aO) r , below′ _)
ck-models eL eO (aL , aO) (old-wipe r w) rewrite eL | eO = inj₂ (inj₁ (0 , wiping (inj₁ aL) w , written r , below-0 _))
ck-models eL eO (aL , aO) (finished r w ep er) rewrite eL | eO = inj₂ (inj₂ (0 , written r , wiped w ep er , below-0 _))

ck-models-7 : ∀ {s oL0 oO0 sL sO cL cO} → P.cpL s ≡ P.syn cL → P.cpO s ≡ P.syn cO → Stands s oL0 oO0
  → CkCode7 oL0 oO0 (suc (P.gen s)) (P.l2p s) sL sO
  → CkM (P.ck1 s) oL0 oO0 sL sO ⊎ CkM (P.ck2 s) oL0 oO0 sL sO
ck-models-7 eL eO (aL , aO) (new-slot r) rewrite eL | eO = inj₁ (_ , idle (inj₁ aL) , writing (absR aO) r , below′ _)
ck-models-7 eL eO (aL , aO) (old-kept r) rewrite eL | eO = inj₂ (0 , kept (inj₁ aL) , written r , below-0 _)

private
  cov-at : ∀ {m oL0 oO0 sL sO oL oO} → CkM m oL0 oO0 sL sO → CrashS sL oL → CrashS sO oO →
           ∀ z → P.Img m z → Cov m z oL oO
  cov-at {m} (g , mL , mO , bl) cL cO z i = cover {m} {z} {g} i mL mO bl cL cO

slot-covered : SlotCovered CkCode
slot-covered {s} {oL0} {oO0} {sL} {sO} {oL = oL} {oO} eL eO st k cL cO with ck-models {s} eL eO st k
... | inj₁ c = P.ck1 s , inj₁ refl , λ z i → as-is {P.ck1 s} {z} {oL} {oO} (cov-at {P.ck1 s} {oL0} {oO0} {sL} {sO} c cL cO z i)
... | inj₂ (inj₁ c) = P.ck2 s , inj₂ (inj₁ refl) , λ z i → as-is {P.ck2 s} {z} {oL} {oO} (cov-at {P.ck2 s} {oL0} {oO0} {sL} {sO} c cL cO z i)
... | inj₂ (inj₂ c) = P.ck3 s , inj₂ (inj₂ refl) , λ z i → swapped {P.ck3 s} {z} {oL} {oO} (cov-at {P.ck3 s} {oO0} {oL0} {sO} {sL} c cO cL z i)

slot-covered-7 : SlotCovered CkCode7
slot-covered-7 {s} {oL0} {oO0} {sL} {sO} {oL = oL} {oO} eL eO st k cL cO with ck-models-7 {s} eL eO st k
... | inj₁ c = P.ck1 s , inj₁ refl , λ z i → as-is {P.ck1 s} {z} {oL} {oO} (cov-at {P.ck1 s} {oL0} {oO0} {sL} {sO} c cL cO z i)
... | inj₂ c = P.ck2 s , inj₂ (inj₁ refl) , λ z i → as-is {P.ck2 s} {z} {oL} {oO} (cov-at {P.ck2 s} {oL0} {oO0} {sL} {sO} c cL cO z i)

-- The normal checkpoint is a step of the layer: the other slot holds the
-- new checkpoint, the live one is erased (versions 3–6) or kept
-- (version 7 on: it stands for P's erased cell as the older
-- checkpoint), and the roles swap.
ck3-moved : ∀ {s oL oO} → Both Moved oL oO (newImg (suc (P.gen s)) (P.l2p s)) erasedImg
                        × Stands (P.ck3 s) (newImg (suc (P.gen s)) (P.l2p s)) erasedImg
ck3-moved {s} = inj₂ (inj₂ (inj₂ (_ , _ , refl)) , inj₂ (inj₁ refl)) , new-stands _ _ , inj₁ erased-stands

ck3-kept : ∀ {s oL oO h D} → Abs oL (P.cpt h D) → h ≤ P.gen s →
  Both Moved oL oO (newImg (suc (P.gen s)) (P.l2p s)) oL × Stands (P.ck3 s) (newImg (suc (P.gen s)) (P.l2p s)) oL
ck3-kept {s} a le = inj₂ (inj₂ (inj₂ (_ , _ , refl)) , inj₁ refl) , new-stands _ _ ,
  inj₂ (erased-nc , _ , _ , valid-at a refl , _ , _ , refl , s≤s le)

------------------------------------------------------------------------
-- Every crash of P is an image of a crash point; the slots' outcomes
-- there give crashes of P.

-- m is a crash point of operation o from s: every image of m is a crash
-- of o.
PtP : Sp.Op → St → St → Set
PtP o s m = ∀ z → P.Img m z → P.crashP o s z

crashP-pt : ∀ o {s z} → P.crashP o s z → Σ St λ m → PtP o s m × P.Img m z
crashP-pt (Sp.use (Sp.reg x)) (m , ok , i) = m , (λ z i' → m , ok , i') , i
crashP-pt (Sp.use Sp.flush) (m , pt , i) = m , (λ z i' → m , pt , i') , i
crashP-pt Sp.recover (b , g , C , e , m , pt , i) = m , (λ z i' → b , g , C , e , m , pt , i') , i

cover-P : ∀ {o s m z g oL0 oO0 sL sO oL oO} → PtP o s m → P.Img m z
  → Models 0 oL0 (P.cpL m) sL → Models g oO0 (P.cpO m) sO → Below g (P.cpL m) → CrashS sL oL → CrashS sO oO
  → Σ St λ z' → P.crashP o s z' × Stands z' oL oO
cover-P {m = m} {z} pt i mL mO bl cL cO with cover {m} {z} i mL mO bl cL cO
... | cl , co , i' , sd = With z cl co , pt _ i' , sd

------------------------------------------------------------------------
-- The layer over a model M of SB's operations

module Over (M : SB.Model) (stOf : SB.Model.State M → St) where
  private
    module M = SB.Model M

  XS : Set
  XS = M.State × Img × Img

  okS : SB.Op → XS → XS → Set
  okS o (X , oL , oO) (X' , oL' , oO') = M.ok o X X' × Both Moved oL oO oL' oO' × Stands (stOf X') oL' oO'

  crashS : SB.Op → XS → XS → Set
  crashS o (X , oL , oO) (X' , oL' , oO') = M.crash o X X' × Both SlotCrash oL oO oL' oO' × Stands (stOf X') oL' oO'

  -- format: the live slot holds the empty checkpoint of generation 0,
  -- the other is erased (P's `NewP`)
  NewS : XS → Set
  NewS (X , oL , oO) = M.New X × oL ≡ newImg 0 P.unmapped × oO ≡ erasedImg × Stands (stOf X) oL oO

  SX : SB.Model
  SX = record { State = XS ; New = NewS ; read = λ Y → M.read (proj₁ Y) ; ok = okS ; crash = crashS }

  -- format's slots stand for P's new cells
  new-stands-P : ∀ {X} → P.NewP (stOf X) → Stands (stOf X) (newImg 0 P.unmapped) erasedImg
  new-stands-P {X} (eL , eO , _) =
    subst (λ m → Abs (newImg 0 P.unmapped) (P.cur m)) (sym eL) (new-stands 0 P.unmapped) ,
    inj₁ (subst (λ m → Abs erasedImg (P.cur m)) (sym eO) erased-stands)

  -- the layer restricts no step of M: every step has slots to go with
  -- it, and format's slots go with every new state of P
  lift-ok : ∀ {o X X'} → M.ok o X X' → ∀ oL oO → Σ Img λ oL' → Σ Img λ oO' → okS o (X , oL , oO) (X' , oL' , oO')
  lift-ok {X' = X'} k oL oO with stand-any (P.cur (P.cpL (stOf X'))) | stand-any (P.cur (P.cpO (stOf X')))
  ... | oL' , aL , mL | oO' , aO , mO = oL' , oO' , k , inj₁ (mL oL , mO oO) , aL , inj₁ aO

  lift-new : ∀ {X} → M.New X → P.NewP (stOf X) → NewS (X , newImg 0 P.unmapped , erasedImg)
  lift-new {X} n np = n , refl , refl , new-stands-P {X} np

  -- Coverage over M.  `CellFree`: every crash of M is an image of a
  -- point x of P (`Img x`), and the same crash with P's two checkpoint
  -- cells replaced by any crash outcomes of x's cells is a crash of M too
  -- (M's crash relation asks nothing else of the cells).  Then every
  -- crash of M, with the code's slots in any states x's cells model
  -- (in their roles or swapped) and any crash outcomes of them, is a
  -- crash of the layer whose slots are those outcomes (`lift-crash`).
  CellFree : Set
  CellFree = ∀ o {X X'} → M.crash o X X' → Σ St λ x → P.Img x (stOf X') ×
    ∀ c1 c2 → P.CrashC (P.cpL x) (P.syn c1) → P.CrashC (P.cpO x) (P.syn c2) →
      Σ M.State λ X'' → M.crash o X X'' × stOf X'' ≡ With (stOf X') c1 c2

  -- from `FreeM` and a way to set the cells of M's states
  cellfree-of : (set : M.State → P.Cell → P.Cell → M.State) → (∀ X c1 c2 → stOf (set X c1 c2) ≡ With (stOf X) c1 c2) →
                FreeM M stOf set → CellFree
  cellfree-of set law fm o c with fm o c
  ... | x , i , f = x , i , λ c1 c2 e1 e2 → set _ c1 c2 , f c1 c2 e1 e2 , law _ c1 c2

  Roles : Img → Img → Img → Img → Set
  Roles p1 p2 oL0 oO0 = (p1 ≡ oL0 × p2 ≡ oO0) ⊎ (p1 ≡ oO0 × p2 ≡ oL0)

  lift-crash : CellFree → ∀ o {X X'} → M.crash o X X' → Σ St λ x → P.Img x (stOf X') ×
    ∀ {g oL0 oO0 p1 p2 s1 s2 o1 o2} → Roles p1 p2 oL0 oO0 → Models 0 p1 (P.cpL x) s1 → Models g p2 (P.cpO x) s2 →
      Below g (P.cpL x) → CrashS s1 o1 → CrashS s2 o2 → Σ M.State λ X'' → crashS o (X , oL0 , oO0) (X'' , o1 , o2)
  lift-crash cf o c with cf o c
  ... | x , i , f = x , i , go
    where
      go : ∀ {g oL0 oO0 p1 p2 s1 s2 o1 o2} → Roles p1 p2 oL0 oO0 → Models 0 p1 (P.cpL x) s1 → Models g p2 (P.cpO x) s2 →
           Below g (P.cpL x) → CrashS s1 o1 → CrashS s2 o2 → Σ M.State λ X'' → crashS o (_ , oL0 , oO0) (X'' , o1 , o2)
      go {o1 = o1} {o2} rl m1 m2 bl cs1 cs2 with models-out m1 cs1 | models-out m2 cs2
      ... | c1 , e1 , a1 | c2 , e2 , a2 with f c1 c2 e1 e2
      ...   | X'' , c'' , eq = X'' , c'' , both rl ,
                subst (λ z → Stands z o1 o2) (sym eq) (AbsR0 a1 , older-of bl e1 a2)
        where
          both : Roles _ _ _ _ → Both SlotCrash _ _ o1 o2
          both (inj₁ (refl , refl)) = inj₁ (models-slotcrash m1 cs1 , models-slotcrash m2 cs2)
          both (inj₂ (refl , refl)) = inj₂ (models-slotcrash m1 cs1 , models-slotcrash m2 cs2)

  module _ (O : SB.ForwardSimulation.Obligations M SB.SB) where
    private
      module O = SB.ForwardSimulation.Obligations O

    obligationsS : SB.ForwardSimulation.Obligations SX SB.SB
    obligationsS = record
      { AR = λ Y t → O.AR (proj₁ Y) t ; CR = λ Y t → O.CR (proj₁ Y) t
      ; RI = λ Y → O.RI (proj₁ Y) ; CI = λ Y → O.CI (proj₁ Y)
      ; AR⇒≈ = O.AR⇒≈
      ; init-CR = λ n nt → O.init-CR (proj₁ n) nt
      ; init-CI = λ n → O.init-CI (proj₁ n)
      ; A-ok = λ u ar ri o → O.A-ok u ar ri (proj₁ o)
      ; A-crash = λ u ar ri c → O.A-crash u ar ri (proj₁ c)
      ; A-rec = λ cr ci o → O.A-rec cr ci (proj₁ o)
      ; A-recᶜ = λ cr ci c → O.A-recᶜ cr ci (proj₁ c)
      ; B-ok = λ u ri o → O.B-ok u ri (proj₁ o)
      ; B-crash = λ u ri c → O.B-crash u ri (proj₁ c)
      ; B-rec = λ ci o → O.B-rec ci (proj₁ o)
      ; B-recᶜ = λ ci c → O.B-recᶜ ci (proj₁ c)
      }

    theorem1-SX : SB.CorrespondenceB.BehaviourallyCorrect SX SB.SB
    theorem1-SX = SB.theorem1-SB SX obligationsS

    SX-snapshot-consistent : SB.SnapshotConsistentB SX
    SX-snapshot-consistent = SB.obligations⇒SCB SX obligationsS

  -- after a crash of the layer, recovery reads the slots
  crash-reads-slots : ∀ {o Y Y' b g C} → crashS o Y Y' →
    P.pick (P.cur (P.cpL (stOf (proj₁ Y')))) (P.cur (P.cpO (stOf (proj₁ Y')))) ≡ just (b , g , C) →
    CodeNewest (proj₁ (proj₂ Y')) (proj₂ (proj₂ Y')) g C
  crash-reads-slots {Y' = Y'} (_ , _ , st) e = rec-reads-slots {stOf (proj₁ Y')} st e

