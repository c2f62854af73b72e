{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks across a crash, first part: every map
-- a recovery may return to leaves W + K*N sectors outside the blocks it
-- names.
--
-- Space's recovery (`rec`, SCFTL.Impl.Space) makes used exactly the
-- superblocks the recovered L2P names and asks that they leave the
-- epoch's need outside them: need + |ys|*S <= P*S (thirty-fourth
-- session; before, |ys| <= u, u the used and open blocks at the last
-- commit, which covers a recovery to the last commit only).  Over the
-- one model a recovery may return to the stable L2P or to any unsynced
-- epoch's map (SCFTL.Impl.OneModelRecMaps, `pu-cut-l2p`,
-- `chain-crash-l2p`), and GC may have shrunk the used blocks since that
-- epoch ended.  What holds, and is proven here, is that each of those
-- maps was checked when its epoch ended, and stays checked:
--
--   `nbk`, `Below`, `Fit` : the blocks below P a map names (its valid
--                     count there not 0, SpaceValid's `vcM`); need + that
--                     count * S <= P * S, and every page it names in a
--                     block below P (so the recovered used blocks hold
--                     every valid sector);
--   `RecFit`        : every map of a state (the stable L2P, k = 0, and
--                     each unsynced epoch's, `mapAt`) fits;
--   `fit-now`       : at a flush or a barrier (no victim pending, GC not
--                     needed) the volatile L2P fits: it names only the
--                     open block and used ones below P (`Placed`), and Space's
--                     flush checks need + (used + 1)*S <= P*S
--                     (`commit-recb`, the validator of `validate_after`);
--   `fit-step`      : every step of the layer keeps `RecFit`: a write,
--                     a relocation, an erase and a SYNC keep every map or
--                     drop some (SCFTL.Impl.OneModelBlocksNamed: `Kept`,
--                     `maps-smu`, `maps-es`, `maps-sy`) and move no page
--                     a map names (pages below P's next one stay where
--                     they were placed: `loc-keep`); a flush and a
--                     barrier add the volatile L2P as a map (`MapsOf`,
--                     `maps-flush`, `maps-barrier`), which `fit-now`
--                     gives;
--   **`rec-fit`**   : so in every state the layer reaches from the first
--                     recovery of a new disk, every map a recovery may
--                     return to fits (`fit-start`: there every map is
--                     empty);
--   `crash-fit`     : a power cut at such a state (OneModelRecMaps's
--                     `Cut`: the flash's crash image, in PUSBic's phase
--                     with the state's durable ghost) and the block
--                     layer's recovery rebuild an L2P that fits: it is one
--                     of the state's maps (`cut-sm`), its pages where
--                     they were (`forget` keeps `loc`; `fit-at`);
--   **`crash-fit-op`** : so does every crash point of every operation
--                     the layer may take from such a state (`LayerOp`:
--                     every write, relocation, erase and SYNC, a flush or
--                     a barrier where its guard holds), at any flash
--                     command boundary, with any number of crashed
--                     recoveries after it: the map rebuilt is a stable
--                     map of the state (OneModelRecMaps's `reg-sm`,
--                     `cov-rmc`) or, inside a flush or a barrier, its
--                     volatile L2P, which `fit-now` covers;
--   `rec-step`, `crash-rec`, **`crash-rec-op`** : so Space's recovery
--                     step (SpaceData's `rec`) goes from every state of
--                     Space's data half to the abstraction of what that
--                     recovery leaves: used, the blocks the recovered L2P
--                     names (`recUsed`), every other one erasable, a
--                     fresh open block.
--
-- The layer's recovery step and its invariant after it are
-- SCFTL.Impl.SpaceRecInv and SCFTL.Impl.SpaceRecLayer (thirty-fifth
-- session; `rec-at` below is Space's recovery step with the count of
-- erasable blocks they need).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRecFit (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; length; sum)
open import Data.Maybe.Base using (nothing; just)
open import Data.Nat.Base using (zero; suc; _+_; _*_; _∸_; _≤_; _<_; _≡ᵇ_; z≤n; s≤s)
open import Data.Nat.Properties
  using (≤-refl; ≤-trans; +-monoʳ-≤; +-monoˡ-≤; *-monoˡ-≤; m≤m+n; m≤n+m; <⇒≢; +-comm; +-suc; <-irrefl; ≮⇒≥; m∸n+n≡m; _<?_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)
open import Relation.Nullary using (yes; no)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (Map; nxt; l2p; smap)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (mapAt; mapAt-nil)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb
  using (stX; BXone; EsRunM; EsCrashM; one; _∷_; Place; Alloc; module OPX)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb
  using (uesX; named-ok; MapsOf; Kept; maps-smu; sm-w; sm-rl; maps-es; maps-sy; maps-flush; maps-barrier; es-run-mk; rec-maps)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; PPg; Z; loc; ab; berase; upd-ne)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb using (vcM; vc; vc-same≤; vc-sum; tot-one)
open import SCFTL.Impl.SpaceUsed using (b2n; tot; tot-mono; tot-+; tot-ext; tot-0; usedL; used-count; used-sum-le; b2n-eq)
open import SCFTL.Impl.SpaceData using (sd; StepD; rec; ReachD; reachD-lift; vsD; gcD; pendD)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; us; cv; gn; Abs; module Abs; pendOf; nothing≢just; vc-pos)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LStep; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone;
         usedOf; Placed; Run; module Run; Fresh; module Fresh; Retired; module Retired; LInv; ri-of; step-inv; G0; start-inv; layer-inv)
open import SCFTL.Impl.SpaceLayerStart Data d0 amax wmax kmax umax _≟D_ kc zb using (new-rec; new-start)
open import SCFTL.Impl.OneModelRecMaps Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Cut; cut-sm; SM; AgainX; RegU; reg-w; reg-rl; reg-es; reg-sy; reg-sm; cov-rmc; cov-any; kept-sm)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module PXm = SB.Model PX

------------------------------------------------------------------------
-- The blocks a map names, and the validator's bound on them

nz : ℕ → Bool
nz zero    = false
nz (suc _) = true

-- the blocks below P in which the map names a page
nbk : Sp.Config → Map → (ℕ → PPg) → ℕ
nbk c M lc = tot (λ k → b2n (nz (vcM M lc k))) (Sp.P c)

-- every page it names lies in a block below P (the blocks recovery
-- finds are the data superblocks)
Below : Sp.Config → Map → (ℕ → PPg) → Set
Below c M lc = ∀ a q → a ≤ amax → M a ≡ just q → proj₁ (lc q) < Sp.P c

-- they leave the epoch's need (what the validator checks at a commit),
-- and lie below P
Fit : Sp.Config → Map → (ℕ → PPg) → Set
Fit c M lc = (Sp.need c + nbk c M lc * Sp.S c ≤ Sp.P c * Sp.S c) × Below c M lc

-- every map a recovery may return to fits: the stable L2P (k = 0) and
-- each unsynced epoch's
RecFit : Sp.Config → XS → BL → Set
RecFit c X bl = ∀ j → Fit c (mapAt (smap (stX X)) (uesX X) j) (loc bl)

-- the count depends only on the entries and on where their pages lie
fit-same : ∀ {c M M' lc lc'} → (∀ b → b ≤ amax → M' b ≡ M b) → (∀ b q → b ≤ amax → M b ≡ just q → lc' q ≡ lc q) →
           Fit c M lc → Fit c M' lc'
fit-same {c} {M} {M'} {lc} {lc'} em el (f , bw) =
  subst (λ n → Sp.need c + n * Sp.S c ≤ Sp.P c * Sp.S c)
        (sym (tot-ext _ _ (Sp.P c) (λ k _ → cong (λ v → b2n (nz v)) (vc-same≤ {M} {M'} {lc} {lc'} em el k)))) f ,
  λ a q le m → subst (λ l → proj₁ l < Sp.P c) (sym (el a q le (trans (sym (em a le)) m))) (bw a q le (trans (sym (em a le)) m))

------------------------------------------------------------------------
-- Counting

private
  no10 : 1 ≤ 0 → ⊥
  no10 ()

  b2n≤1 : ∀ b → b2n b ≤ 1
  b2n≤1 true  = ≤-refl
  b2n≤1 false = z≤n

-- a map that names only the open block and used ones names at most one
-- block more than are used
nbk-le : ∀ c M lc (u : ℕ → Bool) o → (∀ k → k < Sp.P c → vcM M lc k ≡ 0 ⊎ k ≡ o ⊎ u k ≡ true) →
         nbk c M lc ≤ suc (tot (λ k → b2n (u k)) (Sp.P c))
nbk-le c M lc u o h =
  ≤-trans (tot-mono _ (λ k → b2n (u k) + b2n (o ≡ᵇ k)) (Sp.P c) each)
    (subst (_≤ suc U) (sym (tot-+ (λ k → b2n (u k)) (λ k → b2n (o ≡ᵇ k)) (Sp.P c)))
      (subst (U + tot (λ k → b2n (o ≡ᵇ k)) (Sp.P c) ≤_) (+-comm U 1) (+-monoʳ-≤ U (tot-one o (Sp.P c)))))
  where
  U = tot (λ k → b2n (u k)) (Sp.P c)
  each : ∀ k → k < Sp.P c → b2n (nz (vcM M lc k)) ≤ b2n (u k) + b2n (o ≡ᵇ k)
  each k lt with h k lt
  ... | inj₁ z rewrite z = z≤n
  ... | inj₂ (inj₁ refl) rewrite b2n-eq k = ≤-trans (b2n≤1 (nz (vcM M lc k))) (m≤n+m 1 (b2n (u k)))
  ... | inj₂ (inj₂ t) rewrite t = ≤-trans (b2n≤1 (nz (vcM M lc k))) (m≤m+n 1 _)

------------------------------------------------------------------------
-- At a flush or a barrier the volatile L2P fits

-- Space's flush: the used blocks and the open one leave the need
recb-now : ∀ {c s} → Sp.Needs c → Sp.Inv c s → Sp.pend s ≡ 0 → Sp.NotNeeded c (Sp.gc s) (Sp.vs s) →
           Sp.need c + suc (length (Sp.vs s)) * Sp.S c ≤ Sp.P c * Sp.S c
recb-now {c} {Sp.st f e i xs r a w g q rm t b p u} V I refl nn = Sp.commit-recb {c} {d = 0} {r = r} V I nn

fit-abs : ∀ {c G X bl d} → Sp.Needs c → ReachD c d → Abs c G X bl d → Placed c G X bl → cv G ≡ nothing →
          Sp.NotNeeded c (gn G) (usedOf c G X bl) → Fit c (l2p (stX X)) (loc bl)
fit-abs {c} {G} {X} {bl} {d} V rd A pl nocv nn with reachD-lift V rd
... | s , rs , eq =
  ≤-trans (+-monoʳ-≤ (Sp.need c) (*-monoˡ-≤ (Sp.S c) bound)) (recb-now {c} {s} V (Sp.reach-inv V rs) pend0 nn′) ,
  below
  where
  below : Below c (l2p (stX X)) (loc bl)
  below a q le m with pl (proj₁ (loc bl q))
  ... | inj₁ z = ⊥-elim (no10 (subst (1 ≤_) z (vc-pos X bl a q le m)))
  ... | inj₂ (inj₁ e) = subst (_< Sp.P c) (sym e) (Abs.abP A)
  ... | inj₂ (inj₂ (inj₁ (_ , lt))) = lt
  ... | inj₂ (inj₂ (inj₂ cvk)) = ⊥-elim (nothing≢just (trans (sym nocv) cvk))
  vsE : Sp.vs s ≡ usedOf c G X bl
  vsE = trans (cong vsD eq) (Abs.vsA A)
  pend0 : Sp.pend s ≡ 0
  pend0 = trans (cong pendD eq) (trans (Abs.pdA A) (cong (pendOf X bl) nocv))
  nn′ : Sp.NotNeeded c (Sp.gc s) (Sp.vs s)
  nn′ = subst (λ g → Sp.NotNeeded c g (Sp.vs s)) (sym (trans (cong gcD eq) (Abs.gcA A)))
          (subst (Sp.NotNeeded c (gn G)) (sym vsE) nn)
  h : ∀ k → k < Sp.P c → vc X bl k ≡ 0 ⊎ k ≡ ab bl ⊎ us G k ≡ true
  h k _ with pl k
  ... | inj₁ z = inj₁ z
  ... | inj₂ (inj₁ e) = inj₂ (inj₁ e)
  ... | inj₂ (inj₂ (inj₁ (u , _))) = inj₂ (inj₂ u)
  ... | inj₂ (inj₂ (inj₂ cvk)) = ⊥-elim (nothing≢just (trans (sym nocv) cvk))
  bound : nbk c (l2p (stX X)) (loc bl) ≤ suc (length (Sp.vs s))
  bound = subst (λ n → nbk c (l2p (stX X)) (loc bl) ≤ suc n)
            (sym (trans (cong length vsE) (used-count (us G) (vc X bl) (Sp.P c))))
            (nbk-le c (l2p (stX X)) (loc bl) (us G) (ab bl) h)

-- a flush's or a barrier's guard (no victim pending, GC not needed) in
-- a state of the layer: its volatile L2P names only the open block and
-- used ones, which Space's flush checks
fit-now : ∀ {c G X bl} → Sp.Needs c → LInv c (G , X , bl) → cv G ≡ nothing →
          Sp.NotNeeded c (gn G) (usedOf c G X bl) → Fit c (l2p (stX X)) (loc bl)
fit-now V (inj₁ F) nocv nn = fit-abs V (Fresh.reach F) (Fresh.abs F) (λ j → inj₁ (Fresh.none F j)) nocv nn
fit-now V (inj₂ (inj₁ R)) nocv nn = fit-abs V (Run.reach R) (Run.abs R) (Run.placed R) nocv nn
fit-now V (inj₂ (inj₂ R)) nocv nn = fit-abs V (Retired.reach R) (Retired.abs R) (Retired.placed R) nocv nn

------------------------------------------------------------------------
-- Every step keeps RecFit

-- a write or relocation places P's next page: every page below it stays
loc-place : ∀ {X X' bl bl'} → Place X X' bl bl' → ∀ p → p < nxt (stX X) → loc bl' p ≡ loc bl p
loc-place {X} {bl = bl} (inj₁ (_ , k , _ , refl)) p lt = upd-ne (loc bl) p (nxt (stX X)) _ (<⇒≢ lt)
loc-place (inj₂ (_ , refl)) p lt = refl

-- a map that is one of X's (on the addresses in range), its pages where
-- they were, fits
fit-at : ∀ {c X bl bl' M} → OPX.RI X → (∀ p → p < nxt (stX X) → loc bl' p ≡ loc bl p) → RecFit c X bl →
         ∀ j' → (∀ a → a ≤ amax → M a ≡ mapAt (smap (stX X)) (uesX X) j' a) → Fit c M (loc bl')
fit-at {c} {X} {bl} {bl'} {M} r lk rf j' e = fit-same {c} e el (rf j')
  where
  el : ∀ b q → b ≤ amax → mapAt (smap (stX X)) (uesX X) j' b ≡ just q → loc bl' q ≡ loc bl q
  el b q le m = lk q (proj₁ (named-ok {X} r q (b , le , inj₂ (j' , m))))

private

  fit-kept : ∀ {c X X' bl bl'} → OPX.RI X → Kept X X' → (∀ p → p < nxt (stX X) → loc bl' p ≡ loc bl p) →
             RecFit c X bl → RecFit c X' bl'
  fit-kept {c} {X} {X'} {bl} {bl'} r k lk rf j = fit-at {c} {X} {bl} {bl'} r lk rf (proj₁ (k j)) (λ a _ → proj₂ (k j) a)

  fit-maps : ∀ {c X X' bl} → OPX.RI X → MapsOf X X' → RecFit c X bl → Fit c (l2p (stX X)) (loc bl) → RecFit c X' bl
  fit-maps {c} {X} {X'} {bl} r mo rf fv j with mo j
  ... | inj₁ (j' , e) = fit-at {c} {X} {bl} {bl} r (λ _ _ → refl) rf j' (λ a _ → e a)
  ... | inj₂ e        = fit-same {c} (λ b _ → e b) (λ _ _ _ _ → refl) fv

-- a state's volatile L2P fits at a flush's or a barrier's guard
NowFit : Sp.Config → Gh → XS → BL → Set
NowFit c G X bl = cv G ≡ nothing → Sp.NotNeeded c (gn G) (usedOf c G X bl) → Fit c (l2p (stX X)) (loc bl)

-- every step keeps it, given the one model's invariant and the fit of
-- the volatile L2P at a flush's or a barrier's guard (`fit-now`)
fit-step′ : ∀ {c s s'} → OPX.RI (proj₁ (proj₂ s)) → NowFit c (proj₁ s) (proj₁ (proj₂ s)) (proj₂ (proj₂ s)) → LStep c s s' →
            RecFit c (proj₁ (proj₂ s)) (proj₂ (proj₂ s)) → RecFit c (proj₁ (proj₂ s')) (proj₂ (proj₂ s'))
fit-step′ {c} r now (lw {X = X} {X'} {bl} {bl'} {a} {dd} (o , pl) _ _ _ _) rf =
  fit-kept {c} {X} {X'} {bl} {bl'} r (maps-smu {X} {X'} (sm-w a dd {X} {X'} o)) (loc-place {X} {X'} {bl} {bl'} pl) rf
fit-step′ {c} r now (lwa {X = X} {X'} {bl} {bl'} {a} {dd} (o , pl) _ _ _ _ _ _) rf =
  fit-kept {c} {X} {X'} {bl} {bl'} r (maps-smu {X} {X'} (sm-w a dd {X} {X'} o)) (loc-place {X} {X'} {bl} {bl'} pl) rf
fit-step′ {c} r now (lwr {X = X} {X'} {bl} {bl'} {a} {dd} (o , pl) _ _ _ _ _) rf =
  fit-kept {c} {X} {X'} {bl} {bl'} r (maps-smu {X} {X'} (sm-w a dd {X} {X'} o)) (loc-place {X} {X'} {bl} {bl'} pl) rf
fit-step′ {c} r now (lrl {X = X} {X'} {bl} {bl'} _ (o , pl) _ _ _ _) rf =
  fit-kept {c} {X} {X'} {bl} {bl'} r (maps-smu {X} {X'} (sm-rl {X} {X'} o)) (loc-place {X} {X'} {bl} {bl'} pl) rf
fit-step′ {c} r now (lrla {X = X} {X'} {bl} {bl'} _ (o , pl) _ _ _ _ _ _) rf =
  fit-kept {c} {X} {X'} {bl} {bl'} r (maps-smu {X} {X'} (sm-rl {X} {X'} o)) (loc-place {X} {X'} {bl} {bl'} pl) rf
fit-step′ {c} r now (lrlr {X = X} {X'} {bl} {bl'} _ (o , pl) _ _ _ _ _) rf =
  fit-kept {c} {X} {X'} {bl} {bl'} r (maps-smu {X} {X'} (sm-rl {X} {X'} o)) (loc-place {X} {X'} {bl} {bl'} pl) rf
fit-step′ r now (lret _ _ _ _) rf = rf
fit-step′ r now (lgcm _ _ _ _ _ _) rf = rf
fit-step′ r now (ldone _ _ _) rf = rf
fit-step′ {c} r now (lsy {X = X} {X'} {bl} (o , refl)) rf =
  fit-kept {c} {X} {X'} {bl} {bl} r (proj₂ (maps-sy {X} {X'} o)) (λ _ _ → refl) rf
fit-step′ {c} r now (lera {X = X} {X'} {bl} (k , rn , refl) _ _) rf =
  fit-kept {c} {X} {X'} {bl} {berase k bl} r (proj₂ (es-run-mk rn)) (λ _ _ → refl) rf
fit-step′ {c} r now (lfl {G = G} {X} {X'} {bl} (o , refl) nocv nn) rf =
  fit-maps {c} {X} {X'} {bl} r (proj₂ (maps-flush {X} {X'} o)) rf (now nocv nn)
fit-step′ {c} r now (lbar {G = G} {X} {X'} {bl} (o , refl) nocv nn) rf =
  fit-maps {c} {X} {X'} {bl} r (proj₂ (maps-barrier {X} {X'} r o)) rf (now nocv nn)

fit-step : ∀ {c s s'} → Sp.Needs c → LInv c s → LStep c s s' →
           RecFit c (proj₁ (proj₂ s)) (proj₂ (proj₂ s)) → RecFit c (proj₁ (proj₂ s')) (proj₂ (proj₂ s'))
fit-step {c} V L st rf = fit-step′ {c} (proj₁ (ri-of L)) (fit-now V L) st rf

------------------------------------------------------------------------
-- From the first recovery of a new disk

-- the empty map names no block: the need alone, which format leaves
fit-empty : ∀ {c lc} → Sp.Needs c → Fit c (λ _ → nothing) lc
fit-empty {c} {lc} V =
  subst (λ n → Sp.need c + n * Sp.S c ≤ Sp.P c * Sp.S c) (sym nb0) (Sp.Inv.recb (Sp.init-inv {c} V)) , λ a q le ()
  where
  nb0 : nbk c (λ _ → nothing) lc ≡ 0
  nb0 = trans (tot-ext _ (λ _ → 0) (Sp.P c) (λ k _ → cong (λ v → b2n (nz v)) (tot-0 (suc amax)))) (tot-0 (Sp.P c))

-- the first recovery of a new disk: every map is the empty L2P
fit-start : ∀ {c X0 bl0 X bl} → Sp.Needs c → SB.Model.New BXone (X0 , bl0) →
            SB.Model.ok BXone SB.recover (X0 , bl0) (X , bl) → RecFit c X bl
fit-start {c} {X0} {bl0} {X} {bl} V (nx , _ , _) (o , _) j = fit-same {c} {λ _ → nothing} {_} {loc bl} {loc bl} (λ b _ → e b) (λ _ _ _ ()) (fit-empty {c} {loc bl} V)
  where
  e : ∀ b → mapAt (smap (stX X)) (uesX X) j b ≡ nothing
  e b = trans (cong (λ z → mapAt (smap (stX X)) z j b) (proj₂ (rec-maps {X0} {X} o)))
              (trans (cong (λ f → f b) (mapAt-nil (smap (stX X)) j))
                     (trans (proj₁ (rec-maps {X0} {X} o) b) (proj₁ (new-rec nx o) b)))

-- **Every map a recovery may return to fits**: in every state the layer
-- reaches from the first recovery of a new disk, the stable L2P and each
-- unsynced epoch's map name blocks that leave the epoch's need
rec-fit : ∀ {c X0 bl0 X1 bl1 G X bl} → Sp.Needs c →
          Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
          SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
          Star (LStep c) (G0 , X1 , bl1) (G , X , bl) → RecFit c X bl
rec-fit {c} {X0} {bl0} {X1} {bl1} V eL eW eS new r abP run =
  go (start-inv (new-start {c} {X0} {bl0} {X1} {bl1} new r abP)) (fit-start {c} {X0} {bl0} {X1} {bl1} V new r) run
  where
  go : ∀ {s s'} → LInv c s → RecFit c (proj₁ (proj₂ s)) (proj₂ (proj₂ s)) → Star (LStep c) s s' →
       RecFit c (proj₁ (proj₂ s')) (proj₂ (proj₂ s'))
  go L f ε        = f
  go L f (x ◅ xs) = go (step-inv eL eW eS L x) (fit-step V L x f) xs

-- **A recovery after a power cut rebuilds a map that fits**: at any state
-- the layer reaches from the first recovery of a new disk, a power cut
-- (the flash's crash image; in PUSBic's phase with the state's durable
-- ghost: OneModelRecMaps's `Cut`) and the block layer's recovery rebuild
-- an L2P (one of the state's maps, `cut-sm`) whose blocks leave the
-- epoch's need: Space's `rec` premise, for the counts of those blocks
crash-fit : ∀ {c X0 bl0 X1 bl1 G X bl C X' bl'} → Sp.Needs c →
            Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
            SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
            Star (LStep c) (G0 , X1 , bl1) (G , X , bl) →
            Cut X C → SB.Model.ok BXone SB.recover (C , bl) (X' , bl') → Fit c (l2p (stX X')) (loc bl')
crash-fit {c} {X0} {bl0} {X1} {bl1} {G} {X} {bl} {C} {X'} V eL eW eS new r abP run ct (o , refl)
  with cut-sm {X} {C} {X'} (proj₁ (ri-of (layer-inv eL eW eS (new-start {c} {X0} {bl0} {X1} {bl1} new r abP) run))) ct o
... | k , e = fit-at {c} {X} {bl} {bl} (proj₁ (ri-of (layer-inv eL eW eS (new-start {c} {X0} {bl0} {X1} {bl1} new r abP) run)))
                (λ _ _ → refl) (rec-fit {c} {X0} {bl0} {X1} {bl1} V eL eW eS new r abP run) k e

------------------------------------------------------------------------
-- Space's recovery step, enabled

-- the blocks below P the L2P names, as Space's list of used valid counts
recUsed : Sp.Config → XS → BL → List ℕ
recUsed c X bl = usedL (λ k → nz (vc X bl k)) (vc X bl) (Sp.P c)

-- a fitting map leaves a block for Space's open one (W ≥ 1)
fit-lt : ∀ {c n} → 1 ≤ Sp.need c → Sp.need c + n * Sp.S c ≤ Sp.P c * Sp.S c → n < Sp.P c
fit-lt {c} {n} n1 f with n <? Sp.P c
... | yes lt = lt
... | no nlt = ⊥-elim (<-irrefl refl
      (≤-trans (+-monoˡ-≤ (Sp.P c * Sp.S c) n1) (≤-trans (+-monoʳ-≤ (Sp.need c) (*-monoˡ-≤ (Sp.S c) (≮⇒≥ nlt))) f)))

-- Space's recovery step to a fitting map's blocks, with e' erasable
-- blocks (the rest but Space's fresh open block)
rec-at : ∀ {c X' bl'} → Sp.L c ≡ suc amax → Fit c (l2p (stX X')) (loc bl') →
         ∀ e' → suc (e' + length (recUsed c X' bl')) ≡ Sp.P c →
         ∀ d → StepD c d (sd 0 e' 0 (recUsed c X' bl') (Sp.S c) 0 0 0 0 (length (recUsed c X' bl')))
rec-at {c} {X'} {bl'} eL f e' cnt d = rec cnt fit′ sumL
  where
  ys = recUsed c X' bl'
  len : length ys ≡ nbk c (l2p (stX X')) (loc bl')
  len = used-count (λ k → nz (vc X' bl' k)) (vc X' bl') (Sp.P c)
  fit′ : Sp.need c + length ys * Sp.S c ≤ Sp.P c * Sp.S c
  fit′ = subst (λ m → Sp.need c + m * Sp.S c ≤ Sp.P c * Sp.S c) (sym len) (proj₁ f)
  sumL : sum ys ≤ Sp.L c
  sumL = ≤-trans (used-sum-le (λ k → nz (vc X' bl' k)) (vc X' bl') (Sp.P c))
                 (subst (tot (vc X' bl') (Sp.P c) ≤_) (sym eL) (vc-sum X' bl' (Sp.P c)))

-- **Space's recovery step, from every state of its data half**, to the
-- abstraction of a block-layer state whose L2P fits: the blocks it names
-- used (`recUsed`), every other one erasable, a fresh open block
-- (SpaceData's `rec`: its bound is the fit, the count of the blocks;
-- their valid sectors at most L, SpaceValid's `vc-sum`; W ≥ 1)
rec-step : ∀ {c X' bl'} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Fit c (l2p (stX X')) (loc bl') →
           ∀ d → Σ ℕ λ e' → StepD c d (sd 0 e' 0 (recUsed c X' bl') (Sp.S c) 0 0 0 0 (length (recUsed c X' bl')))
rec-step {c} {X'} {bl'} eL eW f d = Sp.P c ∸ suc n , rec-at {c} {X'} {bl'} eL f (Sp.P c ∸ suc n) cnt d
  where
  n = length (recUsed c X' bl')
  fit′ : Sp.need c + n * Sp.S c ≤ Sp.P c * Sp.S c
  fit′ = subst (λ m → Sp.need c + m * Sp.S c ≤ Sp.P c * Sp.S c)
               (sym (used-count (λ k → nz (vc X' bl' k)) (vc X' bl') (Sp.P c))) (proj₁ f)
  n1 : 1 ≤ Sp.need c
  n1 = ≤-trans (subst (1 ≤_) (sym eW) (s≤s z≤n)) (m≤m+n (Sp.W c) _)
  cnt : suc (Sp.P c ∸ suc n + n) ≡ Sp.P c
  cnt = trans (sym (+-suc (Sp.P c ∸ suc n) n)) (m∸n+n≡m (fit-lt {c} {n} n1 fit′))

-- so after a power cut at a state the layer reaches
crash-rec : ∀ {c X0 bl0 X1 bl1 G X bl C X' bl'} → Sp.Needs c →
            (eL : Sp.L c ≡ suc amax) → (eW : Sp.W c ≡ suc wmax) → Sp.S c ≡ Z →
            SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
            Star (LStep c) (G0 , X1 , bl1) (G , X , bl) →
            Cut X C → SB.Model.ok BXone SB.recover (C , bl) (X' , bl') →
            ∀ d → Σ ℕ λ e' → StepD c d (sd 0 e' 0 (recUsed c X' bl') (Sp.S c) 0 0 0 0 (length (recUsed c X' bl')))
crash-rec {c} {X0} {bl0} {X1} {bl1} {G} {X} {bl} {C} {X'} {bl'} V eL eW eS new r abP run ct o =
  rec-step {c} {X'} {bl'} eL eW (crash-fit {c} {X0} {bl0} {X1} {bl1} {G} {X} {bl} {C} {X'} {bl'} V eL eW eS new r abP run ct o)

------------------------------------------------------------------------
-- Every crash point of an operation the layer may take

-- the operations whose crash points the layer covers from a state: every
-- write, relocation, erase and SYNC, and a flush or a barrier where the
-- layer may take it (no victim pending, GC not needed: `lfl`'s, `lbar`'s
-- guard)
LayerOp : Sp.Config → Gh → XS → BL → SB.UOp → Set
LayerOp c G X bl u =
  RegU u ⊎ ((u ≡ SB.flush ⊎ u ≡ SB.reg SB.barrier) × cv G ≡ nothing × Sp.NotNeeded c (gn G) (usedOf c G X bl))

private
  -- a crash of a write or relocation places at most P's next page
  loc-alloc : ∀ {X bl blc} → (blc ≡ bl ⊎ Alloc (stX X) bl blc) → ∀ p → p < nxt (stX X) → loc blc p ≡ loc bl p
  loc-alloc (inj₁ refl) p lt = refl
  loc-alloc {X} {bl} (inj₂ (k , _ , refl)) p lt = upd-ne (loc bl) p (nxt (stX X)) _ (<⇒≢ lt)

  -- a crashed block erase: PX's erase steps keep every map, then a crash
  es-crash-sm : ∀ {X ps C0 C X'} → OPX.RI X → EsCrashM X ps C0 → AgainX C0 C → PXm.ok SB.recover C X' → SM X X'
  es-crash-sm r (one c) ag rc = reg-sm reg-es r c ag rc
  es-crash-sm {X} {_} {C0} {C} {X'} r (_∷_ {X1 = X1} (o , _) rest) ag rc =
    kept-sm {X} {X1} {X'} (proj₂ (maps-es {X} {X1} o))
      (es-crash-sm {X1} {_} {C0} {C} {X'} (OPX.B-ok (SB.reg (SB.op SB.es)) {X} {X1} r o) rest ag rc)

-- **every crash point of every operation the layer may take, from every
-- state it reaches** (any flash command boundary: OneModelRecMaps's
-- `reg-sm`, `cov-rmc`), then any number of crashed recoveries and the
-- recovery: the rebuilt L2P fits — a stable map of the state (`rec-fit`)
-- or, inside a flush or a barrier, its volatile L2P (`fit-now`)
crash-fit-op′ : ∀ {c G X bl u C0 blc C X'} → OPX.RI X → NowFit c G X bl → RecFit c X bl → LayerOp c G X bl u →
               SB.Model.crash BXone (SB.use u) (X , bl) (C0 , blc) → AgainX C0 C → PXm.ok SB.recover C X' →
               Fit c (l2p (stX X')) (loc blc)
crash-fit-op′ {c} {G} {X} {bl} {u} {C0} {blc} {C} {X'} r now rf lo cr ag rc = go lo cr
  where
  sm-fit : ∀ {blc′} → (∀ p → p < nxt (stX X) → loc blc′ p ≡ loc bl p) → SM X X' → Fit c (l2p (stX X')) (loc blc′)
  sm-fit {blc′} lk (k , e) = fit-at {c} {X} {bl} {blc′} r lk rf k e
  go : ∀ {u blc} → LayerOp c G X bl u → SB.Model.crash BXone (SB.use u) (X , bl) (C0 , blc) → Fit c (l2p (stX X')) (loc blc)
  go {blc = blq} (inj₁ (reg-w a d)) (c0 , bq) = sm-fit {blq} (loc-alloc {X} {bl} bq) (reg-sm {_} {X} {C0} {C} {X'} (reg-w a d) r c0 ag rc)
  go {blc = blq} (inj₁ reg-rl) (c0 , bq) = sm-fit {blq} (loc-alloc {X} {bl} bq) (reg-sm {_} {X} {C0} {C} {X'} reg-rl r c0 ag rc)
  go (inj₁ reg-es) (k , _ , ec , refl) = sm-fit {berase k bl} (λ _ _ → refl) (es-crash-sm {X} {_} {C0} {C} {X'} r ec ag rc)
  go (inj₁ reg-sy) (c0 , refl) = sm-fit {bl} (λ _ _ → refl) (reg-sm {_} {X} {C0} {C} {X'} reg-sy r c0 ag rc)
  go (inj₂ (inj₁ refl , nocv , nn)) (c0 , refl) with cov-rmc {X} {C0} {C} {X'} r (cov-any SB.flush c0) ag rc
  ... | inj₁ sm = sm-fit {bl} (λ _ _ → refl) sm
  ... | inj₂ e  = fit-same {c} e (λ _ _ _ _ → refl) (now nocv nn)
  go (inj₂ (inj₂ refl , nocv , nn)) (c0 , refl) with cov-rmc {X} {C0} {C} {X'} r (cov-any (SB.reg SB.barrier) c0) ag rc
  ... | inj₁ sm = sm-fit {bl} (λ _ _ → refl) sm
  ... | inj₂ e  = fit-same {c} e (λ _ _ _ _ → refl) (now nocv nn)

crash-fit-op : ∀ {c G X bl u C0 blc C X'} → Sp.Needs c → LInv c (G , X , bl) → RecFit c X bl → LayerOp c G X bl u →
               SB.Model.crash BXone (SB.use u) (X , bl) (C0 , blc) → AgainX C0 C → PXm.ok SB.recover C X' →
               Fit c (l2p (stX X')) (loc blc)
crash-fit-op {c} {G} {X} {bl} V L = crash-fit-op′ {c} {G} {X} {bl} (proj₁ (ri-of L)) (fit-now V L)

-- so, from the first recovery of a new disk, Space's recovery step goes
-- to the abstraction of what every such crash and the block layer's
-- recovery leave (its `forget` keeps `loc`)
crash-rec-op : ∀ {c X0 bl0 X1 bl1 G X bl u C0 blc C X' bl'} → Sp.Needs c →
               (eL : Sp.L c ≡ suc amax) → (eW : Sp.W c ≡ suc wmax) → Sp.S c ≡ Z →
               SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
               Star (LStep c) (G0 , X1 , bl1) (G , X , bl) → LayerOp c G X bl u →
               SB.Model.crash BXone (SB.use u) (X , bl) (C0 , blc) → AgainX C0 C → SB.Model.ok BXone SB.recover (C , blc) (X' , bl') →
               ∀ d → Σ ℕ λ e' → StepD c d (sd 0 e' 0 (recUsed c X' bl') (Sp.S c) 0 0 0 0 (length (recUsed c X' bl')))
crash-rec-op {c} {X0} {bl0} {X1} {bl1} {G} {X} {bl} {u} {C0} {blc} {C} {X'} {bl'} V eL eW eS new r abP run lo cr ag (o , refl) =
  rec-step {c} {X'} {bl'} eL eW
    (crash-fit-op {c} {G} {X} {bl} {u} {C0} {blc} {C} {X'} V L (rec-fit {c} {X0} {bl0} {X1} {bl1} V eL eW eS new r abP run) lo cr ag o)
  where L = layer-inv eL eW eS (new-start {c} {X0} {bl0} {X1} {bl1} new r abP) run
