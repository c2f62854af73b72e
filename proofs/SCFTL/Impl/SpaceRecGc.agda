{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: GC's queue and budget invariants across power cuts.
--
-- SpaceQueued's `QInv`/`EInv` (every page of a block the layer holds
-- erasable, or of a victim whose GC ended, is on one of P's queues, and
-- named by no map a SYNC would make stable) and SpaceGcBound's `GB` (P's
-- relocation count within the victims' pages) were proven for the
-- layer's runs without a crash (`LStep`). Here they hold for the runs of
-- SpaceRecLayer's `LStepR`, power cuts and recoveries included:
--
--   er-taken, er-esv, er-cvv, er-vz : the facts SpaceQueued's and
--                   SpaceGcBound's step lemmas take of a state, for the
--                   fourth form of the invariant (`Erasing`: a recovery
--                   that left no free block);
--   qinv-rec, einv-rec, gb-rec : the recovered state with the rebuild's
--                   ghost (`recGh`: erasable, every non-free block below
--                   P the recovered map does not name) has them — P's
--                   recovery puts every page of such a block on its
--                   erasable queue (RecoveryReclaim's `bx-rec-owners`),
--                   the recovered map is the stable one (`rec-maps`), and
--                   P's relocation count is 0 (`gc-rec`); the write
--                   pointers stay within the block (`wpZ-crash`, and
--                   recovery's `forget` lowers them, `forget-wp≤`);
--   **gcR-step**, `gcR-star` : every step of `LStepR` keeps them;
--   **layer-queued-crash** : from the first recovery of a new disk,
--                   through any number of power cuts, every page of a
--                   block the layer holds erasable, or of an ended
--                   victim, is queued; `LayerRelR`, `LayerQueuedR`,
--                   `code-queued-crash`: the same as one statement about
--                   a layer with power cuts (mutant 54,
--                   SCFTL.Mutants.LayerWritesAbandonedBlock, the layer
--                   whose write takes the open block without `OpenOK`,
--                   loses it);
--   **layer-budget-crash** : and while GC's victim has a page on neither
--                   queue, P's relocation guard holds (`gcnt ≤ kmax`);
--   **synced-erase-crash**, **flushed-erase-crash** : and in PUSBic's
--                   phase a block the layer holds erasable is erased by
--                   a step of BXone after the layer's SYNC, or right
--                   after a flush (SpaceQueued's `synced-erase` and
--                   `flushed-erase`, across power cuts);
--   owned-forget, above-forget : recovery leaves every block that is not
--                   free with a page (it frees the vacant ones) and
--                   nothing above a write pointer;
--   **victim-ends-crash** : and in PUSBic's phase GC of every victim
--                   ends (SpaceGcWalk's walk, `Walking.walk-ends`, over
--                   the states `LStepR` reaches: where a recovery
--                   abandoned the open block, in a class and not full,
--                   a valid page goes to a free block, `lrlr`; from
--                   `Erasing`, the erasable block is erased first).
--
-- Not here: the chain phase's erase (PL's `EraseGuard`): after a flush
-- that ends in a full checkpoint, SCFTL.Impl.SpaceChainErase
-- (`cleared-erase-crash`, `chain-erase-crash`); in the middle of GC's
-- walk, proofs/README.md, "Not done", item 1.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRecGc (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (true; false; not; _∧_; _∨_)
open import Data.Bool.Properties using (∨-zeroʳ)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using ([])
open import Data.Maybe.Base using (nothing; just)
open import Data.Nat.Base using (zero; suc; _+_; _*_; _<_; _≤_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-trans; ≤-refl; <-irrefl) renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
open import Relation.Nullary using (yes; no)
import Data.List.Relation.Unary.All as All

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (l2p; smap; nxt; gcnt; ers; inv)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (∧-true)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (lastMap)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone; obligationsBXone)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (owners-mem; LocX)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb using (rec-maps; fresh-rec)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; own; wp; ab; fr; balloc; berase; owners; OwnLoc; Opens;
         forget; forgetO; vacant; below; forget-below; forget-owners; forget-vacant; upd-ne)
open import SCFTL.Impl.RecoveryReclaim Data d0 amax wmax kmax umax _≟D_ kc zb using (bx-rec-owners)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb using (vc; vc0-unnamed)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; es; vi; cv; gn; Abs; module Abs; t→¬f; f≢t)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; lfl; endEp; Unclassed; clash; qd; G0; Start; usedOf; layer-reloc)
open import SCFTL.Impl.SpaceLayerStart Data d0 amax wmax kmax umax _≟D_ kc zb using (new-start)
open import SCFTL.Impl.SpaceQueued Data d0 amax wmax kmax umax _≟D_ kc zb
  using (QInv; EInv; Cov; Taken; Apart; lastX; qinv-core; qinv-step; einv-core; einv-step; layer-queued;
         sync-erase; layer-erase; inv-flush)
open import SCFTL.Impl.SpaceGcBound Data d0 amax wmax kmax umax _≟D_ kc zb
  using (GB; gb-core; gb-step; gb-start; gc-budget; alloc-wpZ; erase-wpZ)
open import SCFTL.Impl.SpaceRecFit Data d0 amax wmax kmax umax _≟D_ kc zb using (nz)
open import SCFTL.Impl.SpaceRecInv Data d0 amax wmax kmax umax _≟D_ kc zb using (Recovered; module Recovered; recGh; belowP)
open import SCFTL.Impl.SpaceGcWalk Data d0 amax wmax kmax umax _≟D_ kc zb
  using (WalkFacts; module Walking; sync-eraser; Target; target-of; Owned; owned-balloc; owned-berase; owned-start; es-taken; esv-of; cvv-of;
         apart-of; locx-of; Above; above-start; above-balloc; above-berase; bl-step)
open import SCFTL.Impl.SpaceRecErase Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Erasing; module Erasing; erOpen)
open import SCFTL.Impl.SpaceRecLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LStepR; ls; lrec; recBL; LInvR; riR; CInv; recovered-of; stepR-inv; layer-inv-crash)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

module OBX = SB.ForwardSimulation.Obligations obligationsBXone
private
  module PXm = SB.Model PX

------------------------------------------------------------------------
-- From `Erasing`: Space's open block is the erasable block `ke`, the
-- code's open block is in a class, and no block below P is free

module _ {c : Sp.Config} {G : Gh} {X : XS} {bl : BL} (E : Erasing c (G , X , bl)) where
  private
    I = Erasing.abs E
    ke = Erasing.ke E

    -- a free block other than `ke` is free in Space's view too
    fr-er : ∀ k → k ≢ ke → fr bl k ≡ true → fr (erOpen bl ke) k ≡ true
    fr-er k ne f = trans (upd-ne (fr (berase ke bl)) k ke false ne) (trans (upd-ne (fr bl) k ke true ne) f)

  -- an erasable block is no victim
  er-esv : ∀ k → es G k ≡ true → vi G k ≡ false
  er-esv k e with k ≟ℕ ke
  ... | yes refl = Erasing.keV E
  ... | no ne = Abs.esV I k (trans (upd-ne (es G) k ke false ne) e)

  -- the current victim is one
  er-cvv : ∀ j → cv G ≡ just j → vi G j ≡ true
  er-cvv = Abs.cvV I

  -- a victim whose GC ended holds no valid sector
  er-vz : ∀ j → vi G j ≡ true → cv G ≢ just j → vc X bl j ≡ 0
  er-vz j v nc with Erasing.placed E j
  ... | inj₁ z = z
  ... | inj₂ (inj₁ (u , _)) = ⊥-elim (t→¬f v (Abs.usV I j u))
  ... | inj₂ (inj₂ e) = ⊥-elim (nc e)

  -- no placement takes an erasable block or a victim: the open block is
  -- in a class, so a guarded placement leaves it; a free block is above P
  -- and neither
  er-taken : Apart G X bl (Taken G)
  er-taken j tj k (opens , _) gd = go opens
    where
    ctk : Taken G k → es G k ≡ false → vi G k ≡ false → ⊥
    ctk (inj₁ e) ne nv = t→¬f e ne
    ctk (inj₂ v) ne nv = t→¬f v nv
    go : Opens bl k → k ≢ j
    go (inj₁ e) _ = clash {G} {ab bl} (Erasing.abC E) (subst (Unclassed G) e (gd e))
    go (inj₂ f) refl with k ≟ℕ ke
    ... | yes refl = f≢t (trans (sym (Erasing.noFr E k (Erasing.keP E))) f)
    ... | no ne = ctk tj (trans (sym (upd-ne (es G) k ke false ne)) (Abs.frE I k (fr-er k ne f))) (Abs.frV I k (fr-er k ne f))

  -- an erasable block is not free
  er-nf : ∀ k → es G k ≡ true → fr bl k ≡ false
  er-nf k e with fr bl k in ef | k ≟ℕ ke
  ... | false | _ = refl
  ... | true | yes refl = ⊥-elim (f≢t (trans (sym (Erasing.noFr E k (Erasing.keP E))) ef))
  ... | true | no ne = ⊥-elim (t→¬f e (trans (sym (upd-ne (es G) k ke false ne)) (Abs.frE I k (fr-er k ne ef))))

private
  cov-taken : ∀ {G j} → Cov G j → Taken G j
  cov-taken (inj₁ e) = inj₁ e
  cov-taken (inj₂ (v , _)) = inj₂ v

  er-cov : ∀ {c G X bl} → Erasing c (G , X , bl) → Apart G X bl (Cov G)
  er-cov {G = G} E j cj = er-taken E j (cov-taken {G} {j} cj)

------------------------------------------------------------------------
-- After a recovery

-- a recovery starts P's relocation count at 0, in either phase (as
-- SpaceRecInv's `wc-rec` its write count)
gc-rec : ∀ {X X'} → SB.Model.ok PX SB.recover X X' → gcnt (stX X') ≡ 0
gc-rec {false , S} {.false , S'} (refl , inj₁ ((_ , _ , _ , _ , _ , _ , _ , _ , e) , _)) = cong gcnt e
gc-rec {false , S} {.false , S'} (refl , inj₂ ((_ , _ , _ , _ , _ , _ , _ , _ , _ , _ , e) , _)) = cong gcnt e
gc-rec {true , S} {.true , S'} (refl , _ , s' , e , (_ , _ , _ , _ , e2)) = trans (cong (λ z → gcnt (st (su z))) e) (cong gcnt e2)

-- recovery's freeing lowers write pointers (a vacant block to 0)
forget-wp≤ : ∀ {bl} n k → wp (forget n bl) k ≤ wp bl k
forget-wp≤ {bl} n k with vacant (forgetO n bl) k
... | true  = z≤n
... | false = ≤-refl

-- every write pointer within its block, across the crash of an operation
wpZ-crash : ∀ u {X X' bl bl'} → (∀ k → wp bl k ≤ Z) → SB.Model.crash BXone (SB.use u) (X , bl) (X' , bl') → ∀ k → wp bl' k ≤ Z
wpZ-crash (SB.reg (SB.op (SB.w a d))) wz (_ , inj₁ refl) = wz
wpZ-crash (SB.reg (SB.op (SB.w a d))) {X} wz (_ , inj₂ al) = alloc-wpZ {stX X} al wz
wpZ-crash (SB.reg (SB.op SB.rl)) wz (_ , inj₁ refl) = wz
wpZ-crash (SB.reg (SB.op SB.rl)) {X} wz (_ , inj₂ al) = alloc-wpZ {stX X} al wz
wpZ-crash (SB.reg (SB.op SB.es)) {bl = bl} wz (k , _ , _ , refl) = erase-wpZ {bl} k wz
wpZ-crash (SB.reg (SB.op SB.sy)) wz (_ , refl) = wz
wpZ-crash (SB.reg SB.barrier) wz (_ , refl) = wz
wpZ-crash SB.flush wz (_ , refl) = wz

-- a block the rebuild's ghost holds erasable holds no valid sector
es-vc0 : ∀ {c X bl} j → es (recGh c X bl) j ≡ true → vc X bl j ≡ 0
es-vc0 {c} {X} {bl} j e
  with vc X bl j | proj₁ (∧-true (not (nz (vc X bl j))) (belowP c j) (proj₂ (∧-true (not (fr bl j)) (not (nz (vc X bl j)) ∧ belowP c j) e)))
... | zero  | _ = refl
... | suc _ | ()

private
  qd-ers : ∀ {s p} → ers s p ≡ true → qd s p ≡ true
  qd-ers {s} {p} e rewrite e = ∨-zeroʳ (inv s p)

module _ {c : Sp.Config} {C X' blc} (o : PXm.ok SB.recover C X') (ol : OwnLoc (recBL X' blc)) where
  private
    bl' = recBL X' blc
    G' = recGh c X' bl'

    -- a page of such a block: named by no entry of the recovered map
    un : ∀ j → es G' j ≡ true → ∀ o′ q → own bl' j o′ ≡ just q → ∀ a → a ≤ amax → l2p (stX X') a ≢ just q
    un j e = vc0-unnamed {X'} {bl'} ol j (es-vc0 {c} {X'} {bl'} j e)

  -- **every page of a block the rebuild holds erasable is on P's
  -- erasable queue** (P's recovery reclaims it); there is no victim
  qinv-rec : QInv (G' , X' , bl')
  qinv-rec j (inj₁ e) o′ p lt e′ =
    qd-ers {stX X'} {p} (All.lookup (bx-rec-owners {C} {blc} {X'} (o , refl) j (un j e)) (owners-mem bl' j (wp bl' j) o′ p lt e′))
  qinv-rec j (inj₂ (() , _))

  -- ... and named by neither the recovered map nor the stable one (the
  -- same map after a recovery); every placed page is below P's next one
  einv-rec : EInv (G' , X' , bl')
  einv-rec = (λ k o′ q e → forget-below {blc} (nxt (stX X')) k o′ q e) ,
             λ j e o′ p _ e′ → un j e o′ p e′ , λ b le m → un j e o′ p e′ b le (trans (sym (last b)) m)
    where
    last : ∀ b → lastX X' b ≡ l2p (stX X') b
    last b = trans (cong (λ z → lastMap (smap (stX X')) z b) (proj₂ (rec-maps {C} {X'} o))) (proj₁ (rec-maps {C} {X'} o) b)

  -- **no relocation yet, no victim**, and the write pointers within
  -- their blocks
  gb-rec : (∀ k → wp blc k ≤ Z) → GB c (G' , X' , bl')
  gb-rec wz = z≤n , (λ k → ≤-trans (forget-wp≤ {blc} (nxt (stX X')) k) (wz k)) ,
              subst (λ g → g + 0 ≤ 0) (sym (gc-rec {C} {X'} o)) z≤n

------------------------------------------------------------------------
-- Every step of the layer, a power cut and recovery included

GcInv : Sp.Config → LS → Set
GcInv c s = QInv s × EInv s × GB c s

module _ {c : Sp.Config} (V : Sp.Needs c) (eL : Sp.L c ≡ suc amax) (eW : Sp.W c ≡ suc wmax) (eS : Sp.S c ≡ Z) where

  gcR-step : ∀ {s s'} → CInv c s → GcInv c s → LStepR c s s' → GcInv c s'
  gcR-step (inj₁ L , _) (Q , En , B) (ls st) = qinv-step L Q st , einv-step L En st , gb-step L B st
  gcR-step {G , X , bl} (inj₂ E , _) (Q , En , B) (ls st) =
    qinv-core (er-esv E) ol (er-cov E) Q st ,
    einv-core (proj₁ (Erasing.ri E)) ol (er-cov E) (er-vz E) En st ,
    gb-core (er-cvv E) (er-esv E) (er-taken E) ol B st
    where ol = proj₂ (Erasing.ri E)
  gcR-step {G , X , bl} (L , rf , r) (_ , _ , (_ , wz , _)) (lrec {u = u} {C0} {blc} {C} {X'} lo cr abP ag o) =
    qinv-rec {c} {C} {X'} {blc} o ol , einv-rec {c} {C} {X'} {blc} o ol , gb-rec {c} {C} {X'} {blc} o ol (wpZ-crash u {X} {C0} {bl} {blc} wz cr)
    where
    ol = proj₂ (Recovered.ri (recovered-of {c} {G} {X} {bl} {u} {C0} {blc} {C} {X'} V L rf r lo cr abP ag o))

  gcR-star : ∀ {s s'} → CInv c s → GcInv c s → Star (LStepR c) s s' → GcInv c s'
  gcR-star i g ε = g
  gcR-star i g (st ◅ r) = gcR-star (stepR-inv V eL eW eS i st) (gcR-step i g st) r

-- **from the first recovery of a new disk, through any number of power
-- cuts and recoveries**
gc-inv-crash : ∀ {c X0 bl0 X1 bl1 s} → Sp.Needs c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
               SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
               Star (LStepR c) (G0 , X1 , bl1) s → GcInv c s
gc-inv-crash {c} {X0} {bl0} {X1} {bl1} V eL eW eS new r abP run =
  gcR-star V eL eW eS (layer-inv-crash V eL eW eS new r abP ε)
    (layer-queued eL eW eS st0 ε , (fresh-rec {X0} {X1} {bl0} {bl1} r , λ j e → ⊥-elim (f≢t e)) , gb-start st0) run
  where st0 = new-start {c} new r abP

-- **every page of a block the layer holds erasable, or of a victim whose
-- GC ended, is on P's invalid or erasable queue**
layer-queued-crash : ∀ {c X0 bl0 X1 bl1 s} → Sp.Needs c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                     SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
                     Star (LStepR c) (G0 , X1 , bl1) s → QInv s
layer-queued-crash V eL eW eS new r abP run = proj₁ (gc-inv-crash V eL eW eS new r abP run)

-- a layer with power cuts: a configuration and steps on the layer's
-- states (SpaceQueued's `LayerRel` for runs with power cuts)
record LayerRelR : Set₁ where
  field
    rcfg  : Sp.Config
    rstep : LS → LS → Set
open LayerRelR public

-- from the first recovery of a new disk every state it reaches, through
-- power cuts and recoveries, has every page of a block it holds
-- erasable, or of an ended victim, on P's invalid or erasable queue
LayerQueuedR : LayerRelR → Set
LayerQueuedR L = ∀ {X0 bl0 X1 bl1 s} → SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) →
                 ab bl0 < Sp.P (rcfg L) → Star (rstep L) (G0 , X1 , bl1) s → QInv s

-- the code's layer has it (for the one model's geometry; mutant 54,
-- SCFTL.Mutants.LayerWritesAbandonedBlock, a layer that writes into the
-- open block a recovery abandoned, loses it)
code-queued-crash : ∀ c → Sp.Needs c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                    LayerQueuedR (record { rcfg = c ; rstep = LStepR c })
code-queued-crash c V eL eW eS = layer-queued-crash V eL eW eS

-- **P's relocation guard holds while GC's victim has a page on neither
-- queue** (with K·Z ≤ kmax + 1, as SpaceGcBound's `layer-budget`)
layer-budget-crash : ∀ {c X0 bl0 X1 bl1 G X bl k o p} → Sp.Needs c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                     Sp.K c * Z ≤ suc kmax →
                     SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
                     Star (LStepR c) (G0 , X1 , bl1) (G , X , bl) →
                     cv G ≡ just k → o < wp bl k → own bl k o ≡ just p → qd (stX X) p ≡ false → gcnt (stX X) ≤ kmax
layer-budget-crash {c} {G = G} {X} {bl} V eL eW eS KZ new r abP run =
  gc-budget {c} {G} {X} {bl} KZ (proj₂ (proj₂ (gc-inv-crash V eL eW eS new r abP run)))

-- **after the layer's SYNC, a block it holds erasable is erased by a step
-- of BXone** (in PUSBic's phase; SpaceQueued's `synced-erase`)
synced-erase-crash : ∀ {c X0 bl0 X1 bl1 G X bl k} → Sp.Needs c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                     SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
                     Star (LStepR c) (G0 , X1 , bl1) (G , X , bl) → proj₁ X ≡ false → es G k ≡ true → owners bl k ≢ [] →
                     Σ XS λ X' → LStep c (G , X , bl) (G , X' , bl) × proj₁ X' ≡ false ×
                     Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl) (X'' , berase k bl)
synced-erase-crash {c} {X0} {bl0} {X1} {bl1} {G} {false , S} {bl} {k} V eL eW eS new r abP run refl esk ne
  with sync-erase {c} {G} {S} {bl} {k} (proj₂ (riR {c} (proj₁ (layer-inv-crash V eL eW eS new r abP run))))
         (proj₁ gi) (proj₁ (proj₂ gi)) esk ne
  where gi = gc-inv-crash V eL eW eS new r abP run
... | X′ , st′ , ph , _ , _ , X″ , rn , _ = X′ , st′ , ph , X″ , k , rn , refl

-- **right after a flush that stays in PUSBic's phase, a block the layer
-- then holds erasable is erased by a step of BXone** (SpaceQueued's
-- `flushed-erase`)
flushed-erase-crash : ∀ {c X0 bl0 X1 bl1 G X bl X' k} → Sp.Needs c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                      SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
                      Star (LStepR c) (G0 , X1 , bl1) (G , X , bl) →
                      (o : SB.Model.ok BXone (SB.use SB.flush) (X , bl) (X' , bl)) → cv G ≡ nothing →
                      Sp.NotNeeded c (gn G) (usedOf c G X bl) → proj₁ X' ≡ false →
                      es (endEp G) k ≡ true → owners bl k ≢ [] →
                      Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl) (X'' , berase k bl)
flushed-erase-crash {c} {X0} {bl0} {X1} {bl1} {G} {X} {bl} {X'} {k} V eL eW eS new r abP run o nocv nn ph esk ne =
  layer-erase {endEp G} {X'} {bl} {k} ph (proj₂ (riR {c} (proj₁ (layer-inv-crash V eL eW eS new r abP run′))))
    (proj₁ (gc-inv-crash V eL eW eS new r abP run′)) (inv-flush (proj₁ o) ph) esk ne
  where
  run′ : Star (LStepR c) (G0 , X1 , bl1) (endEp G , X' , bl)
  run′ = run ◅◅ (ls (lfl o nocv nn) ◅ ε)

------------------------------------------------------------------------
-- GC of every victim ends, across power cuts

-- a property of the block bookkeeping that every allocation and every
-- block erase keeps holds after the crash of an operation
module _ (Q : BL → Set) (qa : ∀ {bl} k n → Q bl → Q (balloc k n bl)) (qe : ∀ {bl} k → Q bl → Q (berase k bl)) where
  bl-crash : ∀ u {X X' bl bl'} → Q bl → SB.Model.crash BXone (SB.use u) (X , bl) (X' , bl') → Q bl'
  bl-crash (SB.reg (SB.op (SB.w a d))) q (_ , inj₁ refl) = q
  bl-crash (SB.reg (SB.op (SB.w a d))) {X} {bl = bl} q (_ , inj₂ (k , _ , refl)) = qa {bl} k (nxt (stX X)) q
  bl-crash (SB.reg (SB.op SB.rl)) q (_ , inj₁ refl) = q
  bl-crash (SB.reg (SB.op SB.rl)) {X} {bl = bl} q (_ , inj₂ (k , _ , refl)) = qa {bl} k (nxt (stX X)) q
  bl-crash (SB.reg (SB.op SB.es)) {bl = bl} q (k , _ , _ , refl) = qe {bl} k q
  bl-crash (SB.reg (SB.op SB.sy)) q (_ , refl) = q
  bl-crash (SB.reg SB.barrier) q (_ , refl) = q
  bl-crash SB.flush q (_ , refl) = q

-- recovery leaves no block taken without a page (it frees the vacant
-- ones), and nothing above a write pointer
owned-forget : ∀ {bl} n → Owned (forget n bl)
owned-forget {bl} n k nf e = t→¬f (proj₂ (forget-vacant {bl} n k (trans (sym (forget-owners {bl} n k)) e))) nf

above-forget : ∀ {bl} n → Above bl → Above (forget n bl)
above-forget {bl} n A k o pos le with vacant (forgetO n bl) k
... | true  = ⊥-elim (<-irrefl refl pos)
... | false = cong (below n) (A k o pos le)

private
  -- the facts of either form of the invariant
  locx-R : ∀ {c G X bl} → LInvR c (G , X , bl) → LocX X bl
  locx-R (inj₁ L) = locx-of L
  locx-R (inj₂ E) = Erasing.locx E

  nf-R : ∀ {c G X bl k} → LInvR c (G , X , bl) → es G k ≡ true → fr bl k ≡ false
  nf-R (inj₁ L) = es-taken L
  nf-R {k = k} (inj₂ E) = er-nf E k

  esv-R : ∀ {c G X bl k} → LInvR c (G , X , bl) → es G k ≡ true → vi G k ≡ false
  esv-R (inj₁ L) = esv-of L
  esv-R {k = k} (inj₂ E) = er-esv E k

  cvv-R : ∀ {c G X bl k} → LInvR c (G , X , bl) → cv G ≡ just k → vi G k ≡ true
  cvv-R (inj₁ L) = cvv-of L
  cvv-R {k = k} (inj₂ E) = er-cvv E k

  apart-R : ∀ {c G X bl} → LInvR c (G , X , bl) → Apart G X bl (Taken G)
  apart-R (inj₁ L) = apart-of L
  apart-R (inj₂ E) = er-taken E

-- a property of the block bookkeeping that every allocation, every block
-- erase and recovery's `forget` keep is kept by every step of `LStepR`
module _ (Q : BL → Set) (qa : ∀ {bl} k n → Q bl → Q (balloc k n bl)) (qe : ∀ {bl} k → Q bl → Q (berase k bl))
         (qf : ∀ {bl} n → Q bl → Q (forget n bl)) where
  blR-step : ∀ {c G X bl G' X' bl'} → Q bl → LStepR c (G , X , bl) (G' , X' , bl') → Q bl'
  blR-step {c} {G} {X} {bl} {G'} {X'} {bl'} q (ls st) = bl-step Q qa qe {c} {G} {X} {bl} {G'} {X'} {bl'} q st
  blR-step q (lrec {u = u} {blc = blc} {X' = X'} _ cr _ _ _) = qf {blc} (nxt (stX X')) (bl-crash Q qa qe u q cr)

  blR-star : ∀ {c s s'} → Q (proj₂ (proj₂ s)) → Star (LStepR c) s s' → Q (proj₂ (proj₂ s'))
  blR-star q ε = q
  blR-star {c} {G , X , bl} q (_◅_ {j = G′ , X′ , bl′} st r) = blR-star (blR-step {c} {G} {X} {bl} {G′} {X′} {bl′} q st) r

module _ {c : Sp.Config} (V : Sp.Valid c) (eL : Sp.L c ≡ suc amax) (eW : Sp.W c ≡ suc wmax) (eS : Sp.S c ≡ Z)
         (KZ : Sp.K c * Z ≤ suc kmax) {X0 bl0 X1 bl1} (new : SB.Model.New BXone (X0 , bl0))
         (rec : SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1)) (abP : ab bl0 < Sp.P c) where

  private
    st0 : Start c X1 bl1
    st0 = new-start {c} new rec abP

    ReachR : LS → Set
    ReachR s = Star (LStepR c) (G0 , X1 , bl1) s

    inv-at : ∀ {s} → ReachR s → LInvR c s
    inv-at r = proj₁ (layer-inv-crash (Sp.needs V) eL eW eS new rec abP r)

    gc-at : ∀ {s} → ReachR s → GcInv c s
    gc-at r = gc-inv-crash (Sp.needs V) eL eW eS new rec abP r

    wz-at : ∀ {G X bl} → ReachR (G , X , bl) → ∀ k → wp bl k ≤ Z
    wz-at r = proj₁ (proj₂ (proj₂ (proj₂ (gc-at r))))

    owned-at : ∀ {G X bl} → ReachR (G , X , bl) → Owned bl
    owned-at r = blR-star Owned (λ {bl} k n → owned-balloc {bl} k n) (λ {bl} k → owned-berase {bl} k) (λ {bl} n _ → owned-forget {bl} n)
                   (owned-start st0) r

    facts : WalkFacts c (LStep c) ReachR
    facts = record
      { next   = λ r st → r ◅◅ (ls st ◅ ε)
      ; lift   = λ _ _ _ st → st
      ; riR    = λ r → riR (inv-at r)
      ; locxR  = λ r → locx-R (inv-at r)
      ; gbR    = λ r → proj₂ (proj₂ (gc-at r))
      ; einvR  = λ r → proj₁ (proj₂ (gc-at r))
      ; qinvR  = λ r → proj₁ (gc-at r)
      ; aboveR = blR-star Above (λ {bl} k n → above-balloc {bl} k n) (λ {bl} k → above-berase {bl} k) (λ {bl} n → above-forget {bl} n)
                   (above-start st0)
      ; ownedR = λ {G} {X} {bl} {k} r esk → owned-at r k (nf-R (inv-at r) esk)
      ; esvR   = λ r → esv-R (inv-at r)
      ; cvvR   = λ r → cvv-R (inv-at r)
      ; apartR = λ r → apart-R (inv-at r)
      ; whereR = where′
      ; freeR  = free′ }
      where
      where′ : ∀ {G X bl k} → ReachR (G , X , bl) → cv G ≡ just k → 1 ≤ vc X bl k →
               (Σ ℕ λ kb → Target c G bl kb) ⊎ (Σ ℕ λ k′ → k′ < Sp.P c × es G k′ ≡ true)
      where′ r cvk p1 with inv-at r
      ... | inj₂ E = inj₂ (Erasing.ke E , Erasing.keP E , Erasing.keE E)
      ... | inj₁ L with layer-reloc V L cvk p1
      ...   | inj₁ room = inj₁ (target-of eS L (wz-at r) (inj₁ room))
      ...   | inj₂ (k′ , k′P , inj₁ frk) = inj₁ (target-of eS L (wz-at r) (inj₂ (k′ , k′P , frk)))
      ...   | inj₂ (k′ , k′P , inj₂ esk′) = inj₂ (k′ , k′P , esk′)
      free′ : ∀ {G X bl k} → ReachR (G , X , bl) → k < Sp.P c → fr bl k ≡ true → Σ ℕ λ kb → Target c G bl kb
      free′ {k = k} r kP frk with inv-at r
      ... | inj₁ L = target-of eS L (wz-at r) (inj₂ (k , kP , frk))
      ... | inj₂ E = ⊥-elim (f≢t (trans (sym (Erasing.noFr E k kP)) frk))

  -- the walk's facts of every state the layer reaches through power cuts
  -- (SCFTL.Impl.SpaceChainWalk restricts them to the layer with a policy)
  reach-factsR : WalkFacts c (LStep c) (λ s → Star (LStepR c) (G0 , X1 , bl1) s)
  reach-factsR = facts

  -- **GC of every victim ends, across power cuts**: in every state the
  -- layer reaches from the first recovery of a new disk through any
  -- number of power cuts and recoveries, in PUSBic's phase, while GC
  -- moves a victim, a run of the layer ends it (SpaceGcWalk's walk:
  -- each page not yet queued relocated, into a free block where the open
  -- one was abandoned by a recovery, a block the layer holds erasable
  -- erased first)
  victim-ends-crash : ∀ {G X bl k} → Star (LStepR c) (G0 , X1 , bl1) (G , X , bl) → proj₁ X ≡ false → cv G ≡ just k →
                      Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' → Star (LStep c) (G , X , bl) (G' , X' , bl') × cv G' ≡ nothing
  victim-ends-crash = Walking.walk-ends facts (sync-eraser facts) KZ
