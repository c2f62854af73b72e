{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks across a crash, third part: the layer
-- with power cuts and recoveries, and space progress in every state it
-- reaches.
--
-- `LStepR c` is the layer of SCFTL.Impl.SpaceLayer (`ls`: every step of
-- `LStep c`) with one step more:
--
--   `lrec` : a power cut at any crash point of an operation the layer
--            may take (SpaceRecFit's `LayerOp`: any flash command
--            boundary of a write, a relocation, an erase, a SYNC, a flush
--            or a barrier where the layer may take it), any number of
--            crashed recoveries (`AgainX`), and the block layer's
--            recovery; the ghost becomes the code's rebuild
--            (SpaceRecInv's `recGh`).  It asks one fact of the code: the
--            crashed operation took a data block (`ab` below P: the code
--            allocates only those, as `lwa`'s and `lwr`'s guards say).
--
-- Its invariant `CInv`: the layer's (`LInvR`: SpaceLayer's `LInv`, or
-- SpaceRecErase's `Erasing` after a recovery that left no free block),
-- every map a recovery may return to fits (`RecFit`), and the block
-- layer's state is reachable (OneModelBlocksPhys's `ReachN`, whose
-- recoveries leave every mapped page located: OneModelBlocksFull's
-- `recovered-located-all`).
--
--   `reachN-step`  : every step of the layer is a reachable state's;
--   `recovered-of` : what `lrec`'s recovery leaves is SpaceRecInv's
--                    `Recovered`: the recovered map fits (SpaceRecFit's
--                    `crash-fit-op′`), P's write counter is 0 (`wc-rec`),
--                    the open block is a data block, free blocks at
--                    write pointer 0 (`frwp-crash`, `forget-frwp`), every
--                    mapped page located, BXone's invariant (its crash
--                    obligations);
--   `free?`        : a free block below P is left, or none;
--   `stepR-inv`    : so every step keeps `CInv` (`lrec` by SpaceRecInv's
--                    `rec-inv`, a `Retired` state, where a free block is
--                    left, else SpaceRecErase's `rec-erasing`; a step
--                    from `Erasing` by `erasing-step`; after a recovery
--                    the maps are the recovered L2P alone, `rec-maps`);
--   **`layer-inv-crash`**, **`space-progress-crash`**, `reloc-crash`,
--   `victim-crash` : from the first recovery of a new disk, in every
--                    state the layer reaches through any number of power
--                    cuts and recoveries, a wanted write (P's write
--                    counter below W, no victim pending) finds a block, a
--                    pending relocation too, and where GC is needed a
--                    used block below P with at most N valid sectors
--                    exists.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRecLayer (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (true; false)
open import Data.Nat.Base using (zero; suc; _<_; _≤_; s≤s; z≤n)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Maybe.Base using (nothing; just)
open import Data.List.Base using (length)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (l2p; smap; nxt; wcnt)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (mapAt; mapAt-nil)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone; obligationsBXone)
open import SCFTL.Impl.OneModelBlocksPhys Data d0 amax wmax kmax umax _≟D_ kc zb
  using (ReachN; ReachC; first; after; step; crashed; crashed-rec)
open import SCFTL.Impl.OneModelBlocksFull Data d0 amax wmax kmax umax _≟D_ kc zb using (recovered-located-all)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb using (uesX; rec-maps)
open import SCFTL.Impl.OneModelRecMaps Data d0 amax wmax kmax umax _≟D_ kc zb using (AgainX; noneX; moreX)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb using (BL; Z; loc; ab; fr; forget; forget-frwp)
open import SCFTL.Impl.SpaceData using (StD; ReachD; data-victim)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; us; cv; gn; Abs; module Abs; FrWp; BlockFor; frwp-crash)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb using (vc)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone;
         Run; module Run; Fresh; module Fresh; Retired; module Retired; LInv; ri-of; step-inv; start-inv; G0; usedOf;
         layer-write; layer-reloc; layer-victim; used-mem)
open import SCFTL.Impl.SpaceLayerStart Data d0 amax wmax kmax umax _≟D_ kc zb using (new-start)
open import SCFTL.Impl.SpaceRecFit Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Fit; RecFit; NowFit; fit-same; fit-start; fit-step′; fit-now; fit-abs; LayerOp; crash-fit-op′)
open import SCFTL.Impl.SpaceRecInv Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Recovered; module Recovered; recGh; rec-inv; wc-rec)
open import SCFTL.Impl.SpaceRecErase Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Erasing; module Erasing; erasing-step; rec-erasing; placed-of; esOff)
open import SCFTL.Impl.SpaceUsed using (b2n; tot; tot-≥; tot-pos)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

module OBX = SB.ForwardSimulation.Obligations obligationsBXone
private
  module PXm = SB.Model PX

------------------------------------------------------------------------
-- The layer with power cuts

-- the block layer's state a recovery leaves
recBL : XS → BL → BL
recBL X' blc = forget (nxt (stX X')) blc

data LStepR (c : Sp.Config) : LS → LS → Set where
  ls   : ∀ {s s'} → LStep c s s' → LStepR c s s'
  -- a power cut at a crash point of an operation the layer may take,
  -- crashed recoveries, the recovery: the ghost of the code's rebuild
  lrec : ∀ {G X bl u C0 blc C X'} → LayerOp c G X bl u →
         SB.Model.crash BXone (SB.use u) (X , bl) (C0 , blc) → ab blc < Sp.P c →
         AgainX C0 C → PXm.ok SB.recover C X' →
         LStepR c (G , X , bl) (recGh c X' (recBL X' blc) , X' , recBL X' blc)

------------------------------------------------------------------------
-- Reachable states

reachN-step : ∀ {c G X bl G' X' bl'} → ReachN (X , bl) → LStep c (G , X , bl) (G' , X' , bl') → ReachN (X' , bl')
reachN-step r (lw {a = a} {dd} o _ _ _ _) = step (SB.reg (SB.op (SB.w a dd))) r o
reachN-step r (lwa {a = a} {dd} o _ _ _ _ _ _) = step (SB.reg (SB.op (SB.w a dd))) r o
reachN-step r (lret _ _ _ _) = r
reachN-step r (lwr {a = a} {dd} o _ _ _ _ _) = step (SB.reg (SB.op (SB.w a dd))) r o
reachN-step r (lfl o _ _) = step SB.flush r o
reachN-step r (lbar o _ _) = step (SB.reg SB.barrier) r o
reachN-step r (lsy o) = step (SB.reg (SB.op SB.sy)) r o
reachN-step r (lera o _ _) = step (SB.reg (SB.op SB.es)) r o
reachN-step r (lgcm _ _ _ _ _ _) = r
reachN-step r (lrl _ o _ _ _ _) = step (SB.reg (SB.op SB.rl)) r o
reachN-step r (lrla _ o _ _ _ _ _ _) = step (SB.reg (SB.op SB.rl)) r o
reachN-step r (lrlr _ o _ _ _ _ _) = step (SB.reg (SB.op SB.rl)) r o
reachN-step r (ldone _ _ _) = r

private
  -- crashed recoveries keep a crash state reachable, and BXone's crash
  -- invariant (the block bookkeeping kept)
  again-reach : ∀ {C0 C blc} → ReachC (C0 , blc) → AgainX C0 C → ReachC (C , blc)
  again-reach rc noneX = rc
  again-reach rc (moreX ag cr) = crashed-rec (again-reach rc ag) (cr , refl)

  again-ci : ∀ {C0 C blc} → OBX.CI (C0 , blc) → AgainX C0 C → OBX.CI (C , blc)
  again-ci ci noneX = ci
  again-ci {C0} {blc = blc} ci (moreX {C} {C'} ag cr) = OBX.B-recᶜ {C , blc} {C' , blc} (again-ci {blc = blc} ci ag) (cr , refl)

------------------------------------------------------------------------
-- The layer's invariant with the fourth form

LInvR : Sp.Config → LS → Set
LInvR c s = LInv c s ⊎ Erasing c s

-- BXone's invariant, in either form
riR : ∀ {c G X bl} → LInvR c (G , X , bl) → OBX.RI (X , bl)
riR (inj₁ L) = ri-of L
riR (inj₂ E) = Erasing.ri E

private
  frwp-of : ∀ {c s} → LInvR c s → FrWp (proj₂ (proj₂ s))
  frwp-of (inj₁ (inj₁ F)) = Fresh.frwp F
  frwp-of (inj₁ (inj₂ (inj₁ R))) = Run.frwp R
  frwp-of (inj₁ (inj₂ (inj₂ Rt))) = Retired.frwp Rt
  frwp-of (inj₂ E) = Erasing.frwp E

  reach-of : ∀ {c s} → LInvR c s → Σ StD (ReachD c)
  reach-of (inj₁ (inj₁ F)) = Fresh.d F , Fresh.reach F
  reach-of (inj₁ (inj₂ (inj₁ R))) = Run.d R , Run.reach R
  reach-of (inj₁ (inj₂ (inj₂ Rt))) = Retired.d Rt , Retired.reach Rt
  reach-of (inj₂ E) = Erasing.d E , Erasing.reach E

  -- the volatile L2P fits at a flush's or a barrier's guard
  nowR : ∀ {c G X bl} → Sp.Needs c → LInvR c (G , X , bl) → NowFit c G X bl
  nowR V (inj₁ L) = fit-now V L
  nowR {c} {G} {X} {bl} V (inj₂ E) nocv nn =
    fit-abs V (Erasing.reach E) (Erasing.abs E) (placed-of {c} {G} {X} {bl} (Erasing.placed E) {esOff G (Erasing.ke E)} {Erasing.ke E} (λ _ → refl) refl) nocv nn

  b2n≤0 : ∀ b → b2n b ≤ 0 → b ≡ false
  b2n≤0 false _ = refl
  b2n≤0 true ()

-- a recovery leaves a free block below P, or none
free? : ∀ c bl → (Σ ℕ λ k → k < Sp.P c × fr bl k ≡ true) ⊎ (∀ k → k < Sp.P c → fr bl k ≡ false)
free? c bl with tot (λ k → b2n (fr bl k)) (Sp.P c) in e
... | zero  = inj₂ (λ k lt → b2n≤0 (fr bl k) (subst (b2n (fr bl k) ≤_) e (tot-≥ (λ k → b2n (fr bl k)) (Sp.P c) k lt)))
... | suc _ = inj₁ (tot-pos (fr bl) (Sp.P c) (subst (1 ≤_) (sym e) (s≤s z≤n)))

------------------------------------------------------------------------
-- What `lrec`'s recovery leaves

recovered-of : ∀ {c G X bl u C0 blc C X'} → Sp.Needs c → LInvR c (G , X , bl) → RecFit c X bl → ReachN (X , bl) →
               LayerOp c G X bl u → SB.Model.crash BXone (SB.use u) (X , bl) (C0 , blc) → ab blc < Sp.P c →
               AgainX C0 C → PXm.ok SB.recover C X' → Recovered c X' (recBL X' blc)
recovered-of {c} {G} {X} {bl} {u} {C0} {blc} {C} {X'} V L rf r lo cr abP ag o = record
  { fit = crash-fit-op′ {c} {G} {X} {bl} {u} {C0} {blc} {C} {X'} (proj₁ (riR {c} L)) (nowR V L) rf lo cr ag o
  ; wc0 = wc-rec {C} {X'} o
  ; abP = abP
  ; frwp = λ k → forget-frwp {blc} (nxt (stX X')) k (frwp-crash u {X} {C0} {bl} {blc} (frwp-of {c} L) cr k)
  ; locx = recovered-located-all (again-reach (crashed u r cr) ag) (o , refl)
  ; ri = OBX.B-rec {C , blc} {X' , recBL X' blc} (again-ci {blc = blc} (OBX.B-crash u {X , bl} {C0 , blc} (riR {c} L) cr) ag) (o , refl) }

-- after a recovery every map a later recovery may return to is the
-- recovered L2P
fit-rec : ∀ {c C X' bl'} → PXm.ok SB.recover C X' → Fit c (l2p (stX X')) (loc bl') → RecFit c X' bl'
fit-rec {c} {C} {X'} {bl'} o f j = fit-same {c} {l2p (stX X')} (λ b _ → e b) (λ _ _ _ _ → refl) f
  where
  e : ∀ b → mapAt (smap (stX X')) (uesX X') j b ≡ l2p (stX X') b
  e b = trans (cong (λ z → mapAt (smap (stX X')) z j b) (proj₂ (rec-maps {C} {X'} o)))
              (trans (cong (λ f → f b) (mapAt-nil (smap (stX X')) j)) (proj₁ (rec-maps {C} {X'} o) b))

------------------------------------------------------------------------
-- The invariant

CInv : Sp.Config → LS → Set
CInv c (G , X , bl) = LInvR c (G , X , bl) × RecFit c X bl × ReachN (X , bl)

module _ {c : Sp.Config} (V : Sp.Needs c) (eL : Sp.L c ≡ suc amax) (eW : Sp.W c ≡ suc wmax) (eS : Sp.S c ≡ Z) where

  -- **every step keeps it**, a power cut and recovery included
  stepR-inv : ∀ {s s'} → CInv c s → LStepR c s s' → CInv c s'
  stepR-inv {G , X , bl} {G' , X' , bl'} (L , rf , r) (ls st) =
    inv′ L , fit-step′ {c} (proj₁ (riR {c} L)) (nowR V L) st rf , reachN-step {c} {G} {X} {bl} {G'} {X'} {bl'} r st
    where
    inv′ : LInvR c (G , X , bl) → LInvR c (G' , X' , bl')
    inv′ (inj₁ L′) = inj₁ (step-inv eL eW eS L′ st)
    inv′ (inj₂ E) with erasing-step E st
    ... | inj₁ Rt = inj₁ (inj₂ (inj₂ Rt))
    ... | inj₂ E′ = inj₂ E′
  stepR-inv {G , X , bl} (L , rf , r) (lrec {u = u} {C0} {blc} {C} {X'} lo cr abP ag o) =
    inv′ (free? c (recBL X' blc)) ,
    fit-rec {c} {C} {X'} {recBL X' blc} o (Recovered.fit R) ,
    after (again-reach (crashed u r cr) ag) (o , refl)
    where
    R = recovered-of {c} {G} {X} {bl} {u} {C0} {blc} {C} {X'} V L rf r lo cr abP ag o
    d = proj₁ (reach-of {c} L)
    inv′ : _ → LInvR c (recGh c X' (recBL X' blc) , X' , recBL X' blc)
    inv′ (inj₁ (kn , kP , frk)) = inj₁ (inj₂ (inj₂ (rec-inv {c} {X'} {recBL X' blc} {kn} {d} eL (proj₂ (reach-of {c} L)) R frk kP)))
    inv′ (inj₂ nf) = inj₂ (rec-erasing {c} {X'} {recBL X' blc} {d} eL eW (proj₂ (reach-of {c} L)) R nf)

  stepR-star : ∀ {s s'} → CInv c s → Star (LStepR c) s s' → CInv c s'
  stepR-star i ε = i
  stepR-star i (st ◅ r) = stepR-star (stepR-inv i st) r

-- **The layer's invariant across power cuts**: in every state the layer
-- reaches from the first recovery of a new disk, through any number of
-- power cuts and recoveries
layer-inv-crash : ∀ {c X0 bl0 X1 bl1 s} → Sp.Needs c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                  SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
                  Star (LStepR c) (G0 , X1 , bl1) s → CInv c s
layer-inv-crash {c} {X0} {bl0} {X1} {bl1} V eL eW eS new r abP run =
  stepR-star V eL eW eS (inj₁ (start-inv (new-start {c} new r abP)) , fit-start {c} {X0} {bl0} {X1} {bl1} V new r , first new r) run

-- **Space progress across power cuts**: for a configuration that passes
-- the code's constraints with the one model's geometry, in every such
-- state a wanted write finds a block — room in the open block, or a free
-- or erasable block below P
space-progress-crash : ∀ {c X0 bl0 X1 bl1 G X bl} → Sp.Valid c →
                       Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                       SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
                       Star (LStepR c) (G0 , X1 , bl1) (G , X , bl) →
                       cv G ≡ nothing → wcnt (stX X) < Sp.W c → BlockFor c G bl
space-progress-crash V eL eW eS new r abP run nocv wl with proj₁ (layer-inv-crash (Sp.needs V) eL eW eS new r abP run)
... | inj₁ L = layer-write V eS L nocv wl
... | inj₂ E = inj₂ (Erasing.ke E , Erasing.keP E , inj₂ (Erasing.keE E))

-- ... and a pending relocation finds one too, and where GC is needed a
-- victim with at most N valid sectors exists (SpaceLayer's
-- `layer-reloc`, `layer-victim`; from `Erasing`, Space's open block is
-- an erasable block below P, and Space's `data-victim` over its view)
reloc-crash : ∀ {c G X bl k} → Sp.Valid c → LInvR c (G , X , bl) → cv G ≡ just k → 1 ≤ vc X bl k → BlockFor c G bl
reloc-crash V (inj₁ L) cvk p1 = layer-reloc V L cvk p1
reloc-crash V (inj₂ E) cvk p1 = inj₂ (Erasing.ke E , Erasing.keP E , inj₂ (Erasing.keE E))

victim-crash : ∀ {c G X bl} → Sp.Valid c → LInvR c (G , X , bl) → Sp.U c ≤ length (usedOf c G X bl) →
               Σ ℕ λ k → k < Sp.P c × us G k ≡ true × vc X bl k ≤ Sp.N c
victim-crash V (inj₁ L) uL = layer-victim V L uL
victim-crash {c} {G} {X} {bl} V (inj₂ E) uL
  with data-victim c V (Erasing.reach E) (subst (λ l → Sp.U c ≤ length l) (sym (Abs.vsA (Erasing.abs E))) uL)
... | as , v , bs , e , _ , vN with used-mem (us G) (vc X bl) (Sp.P c) as v bs (trans (sym (Abs.vsA (Erasing.abs E))) e)
...   | k , lt , uk , refl = k , lt , uk , vN
