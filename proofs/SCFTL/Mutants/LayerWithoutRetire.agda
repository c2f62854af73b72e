{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 52 (issue 39): the data-superblock layer of the one model
-- (SCFTL.Impl.SpaceLayer) without the ghost retirement of a full open
-- block (`lret`) and the writes and relocations from there (`lwr`,
-- `lrlr`) — the layer as it was until the thirty-second session.  The
-- block layer, P and every other step are the code's.
--
-- Mutant of GC's liveness (check.sh: MUTANTS_OF_GC): `Pmut : GcPolicy`
-- and `not-gc-live : ¬ GcLive Pmut`, by the run of
-- SCFTL.Impl.SpaceLayerGcExample up to its fourth step (w(0) into block
-- 0, a barrier, w(0) opening block 1, a barrier): block 1 is full, GC is
-- needed before the next block opens (two used blocks with it, no victim
-- this epoch), block 2 is free — and no two steps of the mutated layer
-- take a victim: a write that opens a block is refused (GC first), and
-- GC finds one used block where it asks for two (`first`, `no-gc`); the
-- code's layer retires block 1 and takes block 0 (`gc-live`, the
-- example's `live-here`).
------------------------------------------------------------------------
module SCFTL.Mutants.LayerWithoutRetire where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; length)
open import Data.Maybe.Base using (just; nothing)
open import Data.Nat.Base using (ℕ; z≤n; s≤s)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; subst; cong)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)
open import Relation.Nullary using (¬_)

open import SCFTL.Impl.SpaceSim Bool false 0 0 0 4 _≟B_ 2 0 using (Gh; us; es; cv; gn; t→¬f; nothing≢just)
open import SCFTL.Impl.SpaceValid Bool false 0 0 0 4 _≟B_ 2 0 using (vc)
open import SCFTL.Impl.SpaceUsed using (used-len)
open import SCFTL.Impl.SpaceLayer Bool false 0 0 0 4 _≟B_ 2 0
  using (LS; LStep; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone; G0; endEp; usedOf)
open import SCFTL.Impl.SpaceLayerStart Bool false 0 0 0 4 _≟B_ 2 0 using (GcPolicy)
open import SCFTL.Impl.SpaceLayerStart Bool false 0 0 0 4 _≟B_ 2 0 using (GcLive) public
open import SCFTL.Impl.SpaceLayerGcExample
  using (cfgG; X; u1; u5; bl1; bl4; new0; rec1; step1; step2; step3; step4; Gc)
import SCFTL.Impl.Space as Sp

------------------------------------------------------------------------
-- The mutated layer: the code's steps but `lret`, `lwr`, `lrlr`

Kept : ∀ {s s'} → LStep cfgG s s' → Set
Kept (lret _ _ _ _) = ⊥
Kept (lwr _ _ _ _ _ _) = ⊥
Kept (lrlr _ _ _ _ _ _ _) = ⊥
Kept _ = ⊤

data StepM : LS → LS → Set where
  old : ∀ {s s'} (st : LStep cfgG s s') → Kept st → StepM s s'

Pmut : GcPolicy
Pmut = record { gcfg = cfgG ; step = StepM }

------------------------------------------------------------------------
-- The state after the example's fourth step

run4 : Star StepM (G0 , X u1 , bl1) (Gc , X u5 , bl4)
run4 = old step1 tt ◅ old step2 tt ◅ old step3 tt ◅ old step4 tt ◅ ε

private
  gc-needed : ¬ Sp.NotNeeded cfgG 0 (0 ∷ usedOf cfgG Gc (X u5) bl4)
  gc-needed (inj₁ ())
  gc-needed (inj₂ (s≤s (s≤s ())))

  -- a kept step from a state with one used block, no victim pending, no
  -- erasable block and GC needed for the next block keeps one used block
  -- and no victim
  first : ∀ {G X bl G1 X1 bl1} → cv G ≡ nothing → length (usedOf cfgG G X bl) ≡ 1 →
          ¬ Sp.NotNeeded cfgG (gn G) (0 ∷ usedOf cfgG G X bl) → (∀ j → es G j ≡ false) →
          (st : LStep cfgG (G , X , bl) (G1 , X1 , bl1)) → Kept st →
          cv G1 ≡ nothing × length (usedOf cfgG G1 X1 bl1) ≡ 1
  first {G} {X} {bl} {X1 = X1} {bl1 = bl1} nocv l1 gn′ ne (lw _ _ _ _ _) _ =
    nocv , trans (used-len (us G) (vc X1 bl1) (vc X bl) (Sp.P cfgG)) l1
  first nocv l1 gn′ ne (lwa _ _ _ _ _ nn _) _ = ⊥-elim (gn′ nn)
  first nocv l1 gn′ ne (lret _ _ _ _) ()
  first nocv l1 gn′ ne (lwr _ _ _ _ _ _) ()
  first {G} {X} {bl} {X1 = X1} {bl1 = bl1} nocv l1 gn′ ne (lfl _ _ _) _ =
    nocv , trans (used-len (us G) (vc X1 bl1) (vc X bl) (Sp.P cfgG)) l1
  first {G} {X} {bl} {X1 = X1} {bl1 = bl1} nocv l1 gn′ ne (lbar _ _ _) _ =
    nocv , trans (used-len (us G) (vc X1 bl1) (vc X bl) (Sp.P cfgG)) l1
  first {G} {X} {bl} {X1 = X1} {bl1 = bl1} nocv l1 gn′ ne (lsy _) _ =
    nocv , trans (used-len (us G) (vc X1 bl1) (vc X bl) (Sp.P cfgG)) l1
  first nocv l1 gn′ ne (lera o esk _) _ = t→¬f esk (ne _)
  first nocv l1 gn′ ne (lgcm _ _ _ _ uL _) _ with subst (Sp.U cfgG Data.Nat.Base.≤_) l1 uL
  ... | s≤s ()
  first nocv l1 gn′ ne (lrl cvk _ _ _ _ _) _ = ⊥-elim (nothing≢just (trans (sym nocv) cvk))
  first nocv l1 gn′ ne (lrla cvk _ _ _ _ _ _ _) _ = ⊥-elim (nothing≢just (trans (sym nocv) cvk))
  first nocv l1 gn′ ne (lrlr cvk _ _ _ _ _ _) _ = ⊥-elim (nothing≢just (trans (sym nocv) cvk))
  first nocv l1 gn′ ne (ldone cvk _ _) _ = ⊥-elim (nothing≢just (trans (sym nocv) cvk))

  -- ... and no step from such a state takes a victim
  no-gc : ∀ {G1 X1 bl1 G2 X2 bl2 k} → cv G1 ≡ nothing → length (usedOf cfgG G1 X1 bl1) ≡ 1 →
          LStep cfgG (G1 , X1 , bl1) (G2 , X2 , bl2) → cv G2 ≡ just k → ⊥
  no-gc nocv l1 (lw _ _ _ _ _) e = nothing≢just (trans (sym nocv) e)
  no-gc nocv l1 (lwa _ _ _ _ _ _ _) e = nothing≢just (trans (sym nocv) e)
  no-gc nocv l1 (lret _ _ _ _) e = nothing≢just (trans (sym nocv) e)
  no-gc nocv l1 (lwr _ _ _ _ _ _) e = nothing≢just (trans (sym nocv) e)
  no-gc nocv l1 (lfl _ _ _) e = nothing≢just (trans (sym nocv) e)
  no-gc nocv l1 (lbar _ _ _) e = nothing≢just (trans (sym nocv) e)
  no-gc nocv l1 (lsy _) e = nothing≢just (trans (sym nocv) e)
  no-gc nocv l1 (lera _ _ _) e = nothing≢just (trans (sym nocv) e)
  no-gc nocv l1 (lgcm _ _ _ _ uL _) e with subst (Sp.U cfgG Data.Nat.Base.≤_) l1 uL
  ... | s≤s ()
  no-gc nocv l1 (lrl cvk _ _ _ _ _) e = nothing≢just (trans (sym nocv) cvk)
  no-gc nocv l1 (lrla cvk _ _ _ _ _ _ _) e = nothing≢just (trans (sym nocv) cvk)
  no-gc nocv l1 (lrlr cvk _ _ _ _ _ _) e = nothing≢just (trans (sym nocv) cvk)
  no-gc nocv l1 (ldone _ _ _) ()

not-gc-live : ¬ GcLive Pmut
not-gc-live gl with gl {kn = 2} new0 rec1 (s≤s z≤n) run4 refl (refl , refl , refl) refl (s≤s (s≤s (s≤s z≤n))) refl (s≤s z≤n) gc-needed
... | G1 , G2 , k , old st1 k1 , old st2 _ , e with first {Gc} {X u5} {bl4} refl refl gc-needed (λ _ → refl) st1 k1
...   | nocv , l1 = no-gc nocv l1 st2 e
