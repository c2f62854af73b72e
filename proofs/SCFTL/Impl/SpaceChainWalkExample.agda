{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the layer under SCFTL.Impl.SpaceChainWalk's policy runs in
-- PL's chain phase, takes a victim there and erases a block there.
--
-- SCFTL.Impl.SpaceLayerGcExample's run (its instance and configuration:
-- one logical sector, blocks of one page, W = 1, K = 1, U = 2, L = 1,
-- N = 0, S = 1, P = 4), with each epoch ended by the flush that ends in
-- a full checkpoint instead of a barrier, so that the run enters the
-- chain phase at the first flush and stays there:
--
--   1. a write of sector 0 into block 0 (`lw`, PUSBic's phase);
--   2. the flush with the full checkpoint (`ck-stepP`): the chain phase;
--   3. a write of sector 0 again, PL's write, opening block 1 (`lwa`);
--   4. the flush with the full checkpoint again;
--   5. block 1 retired in the ghost (`lret`), and GC takes block 0
--      (`lgcm`, no valid sector): a victim in progress in the chain
--      phase;
--   6. PL's relocation of its dead page (`rlX`), its GC ends (`ldone`);
--   7. the flush with the full checkpoint: block 0 erasable in the ghost;
--   8. the erase of block 0 in the chain phase (`lera`: PX's erase of
--      the page, PL's guard met by the empty region).
--
-- Every step is one of the layer under the policy (`LStepP`): the
-- flushes by `ck-stepP`, the others by `keepP` (no flush, no step into
-- the chain phase).
--
--   `run`       : the run;
--   `chain`     : the victim is in progress in the chain phase;
--   `walk-here` : so SpaceChainWalk's `victim-endsP` applies there, in its
--                 chain-phase case;
--   `policy-here` : at the end of the seventh step the policy holds with
--                 block 0 erasable (no commit on the region, its page
--                 on P's erasable queue);
--   `freed`     : block 0 is free again after the erase.
------------------------------------------------------------------------
module SCFTL.Impl.SpaceChainWalkExample where

open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (nothing; just)
open import Data.Nat.Base using (ℕ; zero; suc; _≤ᵇ_; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (≤ᵇ⇒≤)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)
open import Relation.Nullary using (¬_)

open import SCFTL.Impl.Model Bool false 0 0 0 _≟B_ using (St; wr0; rlX; esF; nxt; ers; Valid; _[_≔_])
open import SCFTL.Impl.UnsyncedBarrier Bool false 0 0 0 4 _≟B_ using (st)
open import SCFTL.Impl.UnsyncedModel Bool false 0 0 0 4 _≟B_ using (SU; su; gh)
open import SCFTL.Impl.OneModel Bool false 0 0 0 4 _≟B_ 2 using (lzS)
open import SCFTL.Impl.BlocksOver Bool false 0 0 0 4 _≟B_ 0 using (BL; own; wp; fr; balloc; berase; Fresh; own-balloc)
open import SCFTL.Impl.OneModelBlocks Bool false 0 0 0 4 _≟B_ 2 0 using (stX; one)
open import SCFTL.Impl.SpaceSim Bool false 0 0 0 4 _≟B_ 2 0 using (Gh; us; es; vi; cv; gn)
open import SCFTL.Impl.SpaceLayer Bool false 0 0 0 4 _≟B_ 2 0
  using (LS; LStep; lw; lwa; lret; lgcm; lrl; ldone; lera; G0; endEp)
open import SCFTL.Impl.SpaceChainErase Bool false 0 0 0 4 _≟B_ 2 0 using (ckF)
open import SCFTL.Impl.SpaceChainQuiet Bool false 0 0 0 _≟B_ 2 using (guard-nc)
open import SCFTL.Impl.RecoveryReclaim Bool false 0 0 0 4 _≟B_ 2 0 using (nc-empty)
open import SCFTL.Impl.SpaceChainWalk Bool false 0 0 0 4 _≟B_ 2 0
  using (Pol; LStepP; ReachP; keepP; ck-stepP; victim-endsP)
open import SCFTL.Impl.SpaceLayerGcExample
  using (cfgG; valid; new0; rec1; X; u1; u2; n1; bl1; bl2; bl4; bl9; Ga; Gb; Gc; Gd; Ge; Gf; Gg; Gh′; step1)
import SCFTL.Impl.Space as Sp

private
  le : ∀ m n → {T (m ≤ᵇ n)} → m ≤ n
  le m n {t} = ≤ᵇ⇒≤ m n t

RP : LS → Set
RP = ReachP valid refl refl refl (le 1 1) new0 rec1 (le 1 4)

------------------------------------------------------------------------
-- The states of the chain phase

-- after the first flush: P's state with the full checkpoint
Y2 : Bool × SU
Y2 = true , lzS (ckF (st (su (proj₂ (X u2))))) (gh (proj₂ (X u2)))

-- PL's write of sector 0 again
Y3 : Bool × SU
Y3 = true , lzS (wr0 0 true (stX Y2)) (gh (proj₂ Y2))

-- the second flush
Y4 : Bool × SU
Y4 = true , lzS (ckF (stX Y3)) (gh (proj₂ Y3))

-- PL's relocation of block 0's dead page
Y5 : Bool × SU
Y5 = true , lzS (rlX n1 (stX Y4)) (gh (proj₂ Y4))

-- the third flush
Y6 : Bool × SU
Y6 = true , lzS (ckF (stX Y5)) (gh (proj₂ Y5))

-- the erase of the page
Y7 : Bool × SU
Y7 = true , lzS (esF n1 (stX Y6)) (gh (proj₂ Y6))

------------------------------------------------------------------------
-- The run

private
  fresh2 : Fresh bl2 (suc n1)
  fresh2 k o e with own-balloc bl1 0 n1 k o (suc n1) e
  ... | inj₁ ()
  ... | inj₂ ()

  dead : ¬ Valid (stX Y4) n1
  dead (_ , ())

s1 : LStepP cfgG (G0 , X u1 , bl1) (G0 , X u2 , bl2)
s1 = keepP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) ε step1 (λ ()) (λ ())

r1 : RP (G0 , X u2 , bl2)
r1 = s1 ◅ ε

s2 : LStepP cfgG (G0 , X u2 , bl2) (Ga , Y2 , bl2)
s2 = ck-stepP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) r1 refl refl (inj₂ (s≤s z≤n))

r2 : RP (Ga , Y2 , bl2)
r2 = s1 ◅ s2 ◅ ε

st3 : LStep cfgG (Ga , Y2 , bl2) (Gb , Y3 , bl4)
st3 = lwa ((inj₂ (refl , refl , _ , refl , inj₁ ((z≤n , z≤n) , false , false , refl)))
          , inj₁ (refl , 1 , (inj₂ refl , s≤s z≤n , refl , fresh2) , refl))
          (λ ()) (le 2 4) refl refl (inj₂ (s≤s (s≤s z≤n))) (refl , refl , refl)

s3 : LStepP cfgG (Ga , Y2 , bl2) (Gb , Y3 , bl4)
s3 = keepP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) r2 st3 (λ ()) (λ _ → refl)

r3 : RP (Gb , Y3 , bl4)
r3 = s1 ◅ s2 ◅ s3 ◅ ε

s4 : LStepP cfgG (Gb , Y3 , bl4) (Gc , Y4 , bl4)
s4 = ck-stepP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) r3 refl refl (inj₂ (s≤s (s≤s z≤n)))

r4 : RP (Gc , Y4 , bl4)
r4 = s1 ◅ s2 ◅ s3 ◅ s4 ◅ ε

s5 : LStepP cfgG (Gc , Y4 , bl4) (Gd , Y4 , bl4)
s5 = keepP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) r4 (lret {kn = 2} refl (refl , refl , refl) refl (le 3 4)) (λ ()) (λ _ → refl)

r5 : RP (Gd , Y4 , bl4)
r5 = s1 ◅ s2 ◅ s3 ◅ s4 ◅ s5 ◅ ε

s6 : LStepP cfgG (Gd , Y4 , bl4) (Ge , Y4 , bl4)
s6 = keepP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) r5 (lgcm refl refl (le 1 4) (le 1 1) (le 2 2) z≤n) (λ ()) (λ _ → refl)

r6 : RP (Ge , Y4 , bl4)
r6 = s1 ◅ s2 ◅ s3 ◅ s4 ◅ s5 ◅ s6 ◅ ε

-- the victim is in progress in the chain phase
chain : proj₁ Y4 ≡ true × cv Ge ≡ just 0
chain = refl , refl

-- so `victim-endsP` applies there, in its chain-phase case
walk-here : Σ Gh λ G′ → Σ (Bool × SU) λ X′ → Σ BL λ bl′ → Star (LStepP cfgG) (Ge , Y4 , bl4) (G′ , X′ , bl′) × cv G′ ≡ nothing
walk-here = victim-endsP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) r6 refl

-- PL's relocation of the dead page, and the victim's end
st7 : LStep cfgG (Ge , Y4 , bl4) (Ge , Y5 , bl4)
st7 = lrl refl ((inj₂ (refl , refl , _ , refl , inj₁ (z≤n , n1 , le 1 2 , inj₂ (dead , refl)))) , inj₂ (refl , refl))
          refl (λ b _ ne → ⊥-elim (ne refl)) (0 , n1 , s≤s z≤n , refl , refl , refl) (inj₂ refl)

s7 : LStepP cfgG (Ge , Y4 , bl4) (Ge , Y5 , bl4)
s7 = keepP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) r6 st7 (λ ()) (λ _ → refl)

r7 : RP (Ge , Y5 , bl4)
r7 = s1 ◅ s2 ◅ s3 ◅ s4 ◅ s5 ◅ s6 ◅ s7 ◅ ε

st8 : LStep cfgG (Ge , Y5 , bl4) (Gf , Y5 , bl4)
st8 = ldone refl refl rel
  where
  rel : ∀ o p → o < wp bl4 0 → own bl4 0 o ≡ just p → _
  rel zero p _ refl = refl
  rel (suc o) p (s≤s ()) _

s8 : LStepP cfgG (Ge , Y5 , bl4) (Gf , Y5 , bl4)
s8 = keepP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) r7 st8 (λ ()) (λ _ → refl)

r8 : RP (Gf , Y5 , bl4)
r8 = s1 ◅ s2 ◅ s3 ◅ s4 ◅ s5 ◅ s6 ◅ s7 ◅ s8 ◅ ε

-- the flush: block 0 erasable in the ghost
s9 : LStepP cfgG (Gf , Y5 , bl4) (Gg , Y6 , bl4)
s9 = ck-stepP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) r8 refl refl (inj₁ (le 1 1))

r9 : RP (Gg , Y6 , bl4)
r9 = s1 ◅ s2 ◅ s3 ◅ s4 ◅ s5 ◅ s6 ◅ s7 ◅ s8 ◅ s9 ◅ ε

-- the policy holds there with block 0 erasable
policy-here : es Gg 0 ≡ true × Pol (Gg , Y6 , bl4)
policy-here = refl , proj₂ s9

-- the erase of block 0 in the chain phase: PX's erase of its one page,
-- PL's guard met by the empty region
st10 : LStep cfgG (Gg , Y6 , bl4) (Gh′ , Y7 , bl9)
st10 = lera (0 , one ((inj₂ (refl , refl , _ , refl , (n1 , refl , guard-nc (stX Y6) n1 (nc-empty (stX Y6) refl) , refl))) , refl) , refl)
            refl (le 1 4)

s10 : LStepP cfgG (Gg , Y6 , bl4) (Gh′ , Y7 , bl9)
s10 = keepP valid refl refl refl (le 1 1) new0 rec1 (le 1 4) r9 st10 (λ ()) (λ _ → refl)

run : RP (Gh′ , Y7 , bl9)
run = s1 ◅ s2 ◅ s3 ◅ s4 ◅ s5 ◅ s6 ◅ s7 ◅ s8 ◅ s9 ◅ s10 ◅ ε

-- block 0 is free again, at write pointer 0, in the chain phase
freed : fr bl9 0 ≡ true × wp bl9 0 ≡ 0 × proj₁ Y7 ≡ true
freed = refl , refl , refl
