{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks in the one model: every page of a
-- block the layer holds erasable is on one of P's queues.
--
-- P erases a page only from its erasable queue (`ers`), and a page gets
-- there only through its invalid queue (`inv`: a relocation, `rl0` for
-- a valid page, `rlX` for a dead one) and the commit that releases it
-- (the flush's `ers ∨ inv`, the SYNC's release `r`), or at recovery
-- (`reclaim`).  The block layer erases a block as the erase of each of
-- its pages by P (`EsRunM`), so the layer of SCFTL.Impl.SpaceLayer can
-- erase a block it holds erasable only if every page placed in it since
-- its last erase went through P's relocation.  The layer's GC used to
-- end a victim when it held no valid sector; a dead page of it (a sector
-- the host rewrote) then never reached P's queues.  SpaceLayer's
-- `ldone` now asks that every page of the victim is on P's invalid
-- queue (the code's GC walks every page of the victim; P's `rlX` is the
-- step for a dead one), and here:
--
--   `qd s p`     : page p on P's invalid or erasable queue;
--   `px-queued`  : every operation of PX but a block erase and recovery
--                  keeps every queued page queued, in both phases (a
--                  write or the optional pages touch no queue, a
--                  relocation adds its page to `inv`, every commit path
--                  moves `inv` into `ers`, a barrier without SYNC keeps
--                  both, a SYNC releases pages from `inv` into `ers`);
--   `run-queued` : a block erase keeps queued every queued page that is
--                  not one of the block's;
--   `QInv`       : every page of a block the layer's ghost holds
--                  erasable, or of a victim of this epoch whose GC has
--                  ended, is queued;
--   `qinv-step`  : every step of the layer keeps `QInv`, from each of
--                  its three invariant states (before the first write,
--                  running, the open block retired in the ghost alone):
--                  `qinv-core`, given that an erasable block is no
--                  victim, BXone's `OwnLoc` (a page is placed in one
--                  block only), and that no block a placement may take
--                  is covered (the open and the free blocks, apart in
--                  the abstraction from the erasable ones and the
--                  victims);
--   **`layer-queued`** : so `QInv` holds in every state the layer
--                  reaches from the first recovery of a new disk;
--                  `LayerQueued`, `code-queued`: the same as one
--                  statement about a layer (mutant 51,
--                  SCFTL.Mutants.LayerEndsVictimEarly, the layer with the
--                  old `ldone`, loses it);
--   `inv-flush`  : every commit path of PUSBic's empties P's invalid
--                  queue;
--   `layer-erase`: in PUSBic's phase with the invalid queue empty, every
--                  block the layer holds erasable and that holds a page
--                  has its block erase as a step of BXone
--                  (RecoveryReclaim's `es-run`);
--   **`flushed-erase`** : so after every flush of the layer that stays in
--                  PUSBic's phase, in every run from the first recovery
--                  of a new disk, each such block is erased by a step of
--                  the model (SCFTL.Impl.SpaceLayerGcExample: one is);
--   `lastX`, `Gone`, `EInv`, `einv-core`, `einv-step`, `einv-star` :
--                  every page of a block the layer holds erasable is
--                  named neither by the volatile L2P nor by the map a
--                  full SYNC makes stable (the last unsynced epoch's), in
--                  every state the layer reaches (a write maps only P's
--                  next page, above every placed one, OneModelBlocksNamed's
--                  `FreshAbove`; a barrier's new map is the volatile L2P,
--                  `vm`; a victim ends with no valid sector, SpaceValid's
--                  `vc0-unnamed`);
--   `layer-erase-ers` : in PUSBic's phase a block with a page, all its
--                  pages on P's erasable queue, has its erase as a step;
--   **`synced-erase`** : so after an epoch barrier too — in every state
--                  the layer reaches in PUSBic's phase, for every block it
--                  holds erasable that holds a page, the layer's SYNC of
--                  every unsynced epoch, releasing every invalid page the
--                  map it makes stable does not name, leads to a state
--                  whose block erase is a step of BXone (the code's
--                  `sync_barriers` before it erases; the example's
--                  `after-barrier`); `sync-erase`, `erase-run`: the same
--                  from the layer's invariants at any state, the erase as
--                  P's erase of each page staying in PUSBic's phase
--                  (thirty-third session, for SCFTL.Impl.SpaceGcWalk).
--
-- Not here: the erase in the chain phase (PL's `EraseGuard`): after a
-- flush that ends in a full checkpoint, SCFTL.Impl.SpaceChainErase
-- (thirty-eighth session); in the middle of GC's walk, proofs/README.md,
-- "Not done", item 1; the bound on P's relocations
-- per epoch that ending every victim needs, and the end of every victim,
-- are SCFTL.Impl.SpaceGcBound and SCFTL.Impl.SpaceGcWalk (thirty-third
-- session), which use `sync-erase` and `erase-run` from here.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceQueued (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; _∨_; _∧_; not)
open import Data.Bool.Properties using (∨-zeroʳ; ∧-identityʳ)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Nullary using (¬_; yes; no)
open import Data.Nat.Properties using () renaming (_≟_ to _≟ℕ_)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (St; Map; inv; ers; esF; opt; optP; wr0; rl0; rlX; fl3; fi3; okP; l2p; smap; nxt; nmd; _[_≔_])
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (konsS; konsX; konsPg; optL)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (fiL)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; ues; ⟪_,_⟫; flB)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_ using (syU)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (okX)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (syB)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX; konsU)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb
  using (stX; EsRunM; EsM; Place; BXone; module OPX; one; _∷_)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; own; wp; ab; fr; balloc; berase; owners; ownersB; Opens; AllocOK; OwnLoc; upd-self; upd-ne)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (_∈_)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; es; vi; cv; gn; Abs; module Abs; t→¬f; f≢t; nothing≢just)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; LStepT; Unclassed; Guard; guard-open; guard-unc; guard-moved; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone; endEp; Relocated; qd;
         Run; module Run; Fresh; module Fresh; Retired; module Retired; LInv; ri-of; step-inv; G0; Start; start-inv;
         layer-inv; usedOf; Placed)
open import Data.List.Relation.Unary.Any using (Any) renaming (here to hd; there to tl)
open import Data.Nat.Base using (zero; suc; _<_; _≤_)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
open import Data.Unit.Base using (tt)
import Data.List.Relation.Unary.All as All
open import SCFTL.Impl.RecoveryReclaim Data d0 amax wmax kmax umax _≟D_ kc zb using (es-run; ownersB-at; ownersB-distinct; Unnamed; nmd-unnamed)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb
  using (FreshAbove; fresh-ok; fresh-rec; SmU; sm-w; sm-rl; kons-vm; ril-vm; flushP-maps)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (NewPg; Keep; shape-w; shape-rl)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (lastMap; eM; lastMap-snoc; GhAll)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (epE)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (konsS-maps)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (_≐_; nmd-false; ∧-true)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_ using (syS; lastMap-≐)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (lastMap-++)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (⟦_,_⟧; ghostN)
open import SCFTL.Impl.SpaceLayerStart Data d0 amax wmax kmax umax _≟D_ kc zb using (new-start)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb using (vc; vc0-unnamed)
open import Data.Nat.Properties using (≤-step; ≤-refl; n<1+n; <-irrefl)
import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.Impl.Space as Spc
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module PXm = SB.Model PX

------------------------------------------------------------------------
-- Queued pages

-- every page queued in s is queued in s'
Qs : St → St → Set
Qs s s' = ∀ p → qd s p ≡ true → qd s' p ≡ true

private
  -- a page queued before is queued after a commit (`ers ∨ inv`, `inv`
  -- emptied)
  ∨-swap : ∀ a b → a ∨ b ≡ true → false ∨ (b ∨ a) ≡ true
  ∨-swap true  true  _ = refl
  ∨-swap true  false _ = refl
  ∨-swap false true  _ = refl
  ∨-swap false false ()

  -- ... after a SYNC that releases the pages r names
  ∨-rel : ∀ a b r → a ∨ b ≡ true → (a ∧ not r) ∨ (b ∨ r) ≡ true
  ∨-rel true  b     false _ = refl
  ∨-rel true  true  true  _ = refl
  ∨-rel true  false true  _ = refl
  ∨-rel false true  r     _ = refl
  ∨-rel false false r     ()

qs-refl : ∀ {s} → Qs s s
qs-refl p e = e

qs-trans : ∀ {s m s'} → Qs s m → Qs m s' → Qs s s'
qs-trans f g p e = g p (f p e)

qs-≡ : ∀ {s s'} → s' ≡ s → Qs s s'
qs-≡ {s} refl = qs-refl {s}

-- a write and its optional pages touch no queue
qs-opt : ∀ f1 f2 s → Qs s (opt f1 f2 s)
qs-opt true  true  s p e = e
qs-opt true  false s p e = e
qs-opt false true  s p e = e
qs-opt false false s p e = e

qs-konsX : ∀ c s → Qs s (konsX c s)
qs-konsX nothing  s p e = e
qs-konsX (just _) s p e = e

qs-konsS : ∀ s → Qs s (konsS s)
qs-konsS s = qs-konsX (konsPg s) s

qs-optL : ∀ f1 f2 s → Qs s (optL f1 f2 s)
qs-optL f1 true  s = qs-trans {s} {optP f1 s} {optL f1 true s} (λ p e → qs-opt f1 false s p e) (qs-konsS (optP f1 s))
qs-optL true  false s p e = e
qs-optL false false s p e = e

-- a relocation adds its page to the invalid queue
qs-inv : ∀ {s s'} q → inv s' ≡ inv s [ q ≔ true ] → ers s' ≡ ers s → Qs s s'
qs-inv {s} {s'} q ei ee p e with p ≟ℕ q
... | yes refl rewrite ei | ee | upd-self (inv s) p true = refl
... | no ne rewrite ei | ee | upd-ne (inv s) p q true ne = e

qs-rl0 : ∀ q s → Qs s (rl0 q s)
qs-rl0 q s = qs-inv {s} {rl0 q s} q refl refl

qs-rlX : ∀ q s → Qs s (rlX q s)
qs-rlX q s = qs-inv {s} {rlX q s} q refl refl

-- every commit path of P moves the invalid queue into the erasable one
qs-fl3 : ∀ s → Qs s (fl3 s)
qs-fl3 s p e = ∨-swap (inv s p) (ers s p) e

qs-fi3 : ∀ L s → Qs s (fi3 L s)
qs-fi3 L s p e = ∨-swap (inv s p) (ers s p) e

qs-flushP : ∀ {s s'} → okP (Sp.use Sp.flush) s s' → Qs s s'
qs-flushP {s} (inj₁ refl) = qs-fl3 s
qs-flushP {s} (inj₂ (inj₁ refl)) = qs-fl3 s
qs-flushP {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) = qs-fi3 L s
qs-flushP {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) = qs-fi3 L s
qs-flushP {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) = qs-fi3 M s
qs-flushP {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) = qs-fi3 M s

-- a SYNC releases pages from the invalid queue into the erasable one
qs-syU : ∀ es r s → Qs s (syU es r s)
qs-syU es r s p e = ∨-rel (inv s p) (ers s p) (r p) e

qs-syB : ∀ xs ys l r s → Qs s (syB xs ys l r s)
qs-syB xs ys l r s p e = ∨-rel (inv s p) (ers s p) (r p) e

------------------------------------------------------------------------
-- Every operation of PX but a block erase and recovery

QX : XS → XS → Set
QX X X' = Qs (stX X) (stX X')

qx-w : ∀ a d {X X'} → PXm.ok (SB.use (SB.reg (SB.op (SB.w a d)))) X X' → QX X X'
qx-w a d {false , S} (inj₁ (refl , S0 , refl , ((inj₁ (_ , f1 , f2 , e) , ue) , _))) p x =
  qs-≡ e p (qs-opt f1 f2 (wr0 a d (st (su S))) p x)
qx-w a d {false , S} (inj₁ (refl , S0 , refl , ((inj₂ (_ , e) , ue) , _))) p x = qs-≡ e p x
qx-w a d {true , S} (inj₁ (refl , S0 , () , _))
qx-w a d {b , S} (inj₂ (refl , eu , s' , refl , inj₁ (_ , f1 , f2 , refl))) p x = qs-optL f1 f2 (wr0 a d (st (su S))) p x
qx-w a d {b , S} (inj₂ (refl , eu , s' , refl , inj₂ (_ , refl))) p x = x

qx-rl : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.rl))) X X' → QX X X'
qx-rl {false , S} (inj₁ (refl , S0 , refl , ((inj₁ (_ , q , _ , inj₁ (_ , f1 , f2 , e)) , ue) , _))) p x =
  qs-≡ e p (qs-opt f1 f2 (rl0 q (st (su S))) p (qs-rl0 q (st (su S)) p x))
qx-rl {false , S} (inj₁ (refl , S0 , refl , ((inj₁ (_ , q , _ , inj₂ (_ , e)) , ue) , _))) p x =
  qs-≡ e p (qs-rlX q (st (su S)) p x)
qx-rl {false , S} (inj₁ (refl , S0 , refl , ((inj₂ (_ , e) , ue) , _))) p x = qs-≡ e p x
qx-rl {true , S} (inj₁ (refl , S0 , () , _))
qx-rl {b , S} (inj₂ (refl , eu , s' , refl , inj₁ (_ , q , _ , inj₁ (_ , f1 , f2 , refl)))) p x =
  qs-optL f1 f2 (rl0 q (st (su S))) p (qs-rl0 q (st (su S)) p x)
qx-rl {b , S} (inj₂ (refl , eu , s' , refl , inj₁ (_ , q , _ , inj₂ (_ , refl)))) p x = qs-rlX q (st (su S)) p x
qx-rl {b , S} (inj₂ (refl , eu , s' , refl , inj₂ (_ , refl))) p x = x

qx-sy : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.sy))) X X' → QX X X'
qx-sy {false , S} (inj₁ (refl , .S , refl , inj₁ (r , _ , e , _))) p x =
  subst (λ z → qd (st z) p ≡ true) (sym e) (qs-syU (ues (su S)) r (st (su S)) p x)
qx-sy {false , S} (inj₁ (refl , .S , refl , inj₂ (xs , ys , l , r , ex , _ , _ , e , _))) p x =
  subst (λ z → qd (st z) p ≡ true) (sym e) (qs-syB xs ys l r (st (su S)) p x)
qx-sy {true , S} (inj₁ (refl , S0 , () , _))
qx-sy (inj₂ (refl , _ , s' , _ , ()))

private
  -- PUSBic's barrier: the queues kept (`flB`), or the forced flush
  qx-bar-PU : ∀ {S S'} → okX (SB.use (SB.reg SB.barrier)) S S' → Qs (st (su S)) (st (su S'))
  qx-bar-PU {S} (inj₁ (_ , e) , _) p x = subst (λ z → qd (st z) p ≡ true) (sym e) x
  qx-bar-PU {S} (inj₂ (inj₁ e) , _) p x = subst (λ z → qd (st z) p ≡ true) (sym e) (qs-fl3 (st (su S)) p x)
  qx-bar-PU {S} (inj₂ (inj₂ e) , _) p x = subst (λ z → qd (st z) p ≡ true) (sym e) (qs-fl3 (st (su S)) p x)

qx-barrier : ∀ {X X'} → PXm.ok (SB.use (SB.reg SB.barrier)) X X' → QX X X'
qx-barrier {false , S} {_ , S'} (inj₁ (refl , .S , refl , o)) = qx-bar-PU {S} {S'} o
qx-barrier {true , S} {_ , S'} (inj₁ (refl , _ , refl , o)) p x = qx-bar-PU {konsU S} {S'} o p (qs-konsS (st (su S)) p x)
qx-barrier (inj₂ (refl , _ , s' , _ , ()))

qx-flush : ∀ {X X'} → PXm.ok (SB.use SB.flush) X X' → QX X X'
qx-flush {false , S} (inj₁ (_ , _ , refl , inj₁ (inj₁ e , _))) p x =
  subst (λ z → qd (st z) p ≡ true) (sym e) (qs-fl3 (st (su S)) p x)
qx-flush {false , S} (inj₁ (_ , _ , refl , inj₁ (inj₂ e , _))) p x =
  subst (λ z → qd (st z) p ≡ true) (sym e) (qs-fl3 (st (su S)) p x)
qx-flush {false , S} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₁ e) , _))) p x =
  subst (λ z → qd (st z) p ≡ true) (sym e) (qs-fi3 M (st (su S)) p x)
qx-flush {false , S} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₂ e) , _))) p x =
  subst (λ z → qd (st z) p ≡ true) (sym e) (qs-fi3 M (st (su S)) p x)
qx-flush {true , S} (inj₁ (_ , _ , () , _))
qx-flush {b , S} (inj₂ (refl , eu , s' , refl , inj₁ o)) p x = qs-flushP o p (qs-konsS (st (su S)) p x)
qx-flush {b , S} (inj₂ (refl , eu , s' , refl , inj₂ (M , _ , refl))) p x = qs-fi3 M (st (su S)) p x

-- every operation of PX but a block erase and recovery keeps every
-- queued page queued
px-queued : ∀ u {X X'} → u ≢ SB.reg (SB.op SB.es) → PXm.ok (SB.use u) X X' → QX X X'
px-queued (SB.reg (SB.op (SB.w a d))) _ o = qx-w a d o
px-queued (SB.reg (SB.op SB.rl)) _ o = qx-rl o
px-queued (SB.reg (SB.op SB.es)) ne o = ⊥-elim (ne refl)
px-queued (SB.reg (SB.op SB.sy)) _ o = qx-sy o
px-queued (SB.reg SB.barrier) _ o = qx-barrier o
px-queued SB.flush _ o = qx-flush o

------------------------------------------------------------------------
-- A block erase keeps queued every queued page not one of the block's

private
  qs-esF : ∀ q s p → p ≢ q → qd s p ≡ true → qd (esF q s) p ≡ true
  qs-esF q s p ne e rewrite upd-ne (ers s) p q false ne = e

-- a page not in a list is not its head, nor in its tail
∉-hd : ∀ {p q ps} → ¬ (p ∈ (q ∷ ps)) → p ≢ q
∉-hd ni e = ni (hd e)

∉-tl : ∀ {p q ps} → ¬ (p ∈ (q ∷ ps)) → ¬ (p ∈ ps)
∉-tl ni i = ni (tl i)

run-queued : ∀ {X ps X'} → EsRunM X ps X' → ∀ p → ¬ (p ∈ ps) → qd (stX X) p ≡ true → qd (stX X') p ≡ true
run-queued {X} (one {p = q} (_ , e)) p ni x =
  subst (λ z → qd z p ≡ true) (sym e) (qs-esF q (stX X) p (∉-hd ni) x)
run-queued {X} (_∷_ {p = q} (_ , e) rn) p ni x =
  run-queued rn p (∉-tl ni) (subst (λ z → qd z p ≡ true) (sym e) (qs-esF q (stX X) p (∉-hd ni) x))

-- a page of a block's owners is placed in the block, below its pointer
-- (RecoveryReclaim's `ownersB-at`, looked up)
mem-own : ∀ bl k n p → p ∈ ownersB bl k n → Σ ℕ λ o → o < n × own bl k o ≡ just p
mem-own bl k n p i = All.lookup (ownersB-at bl k n) i

------------------------------------------------------------------------
-- The layer: every page of a block it holds erasable, or of a victim
-- whose GC has ended, is queued

-- the blocks the invariant covers: erasable, or a victim of this epoch
-- that GC no longer works on
Cov : Gh → ℕ → Set
Cov G j = es G j ≡ true ⊎ (vi G j ≡ true × cv G ≢ just j)

-- every page placed in block j since its last erase is queued
OwnQ : XS → BL → ℕ → Set
OwnQ X bl j = ∀ o p → o < wp bl j → own bl j o ≡ just p → qd (stX X) p ≡ true

QInv : LS → Set
QInv (G , X , bl) = ∀ j → Cov G j → OwnQ X bl j

-- a block erasable or a victim of this epoch: no placement takes it
Taken : Gh → ℕ → Set
Taken G j = es G j ≡ true ⊎ vi G j ≡ true

-- a write or relocation places its sector in the open block or a free
-- one, and leaves every other block's pages and pointer as they were
place-other : ∀ {X X' bl bl' j} → Place X X' bl bl' →
              (∀ k → AllocOK (stX X) bl k → bl' ≡ balloc k (nxt (stX X)) bl → k ≢ j) →
              wp bl' j ≡ wp bl j × (∀ o → own bl' j o ≡ own bl j o)
place-other {X} {bl = bl} {j = j} (inj₁ (_ , k , aok , refl)) f =
  upd-ne (wp bl) j k _ (λ e → f k aok refl (sym e)) ,
  λ o → cong (λ g → g o) (upd-ne (own bl) j k _ (λ e → f k aok refl (sym e)))
place-other (inj₂ (_ , refl)) f = refl , λ _ → refl

-- the blocks a placement from a state may take are apart from the
-- blocks `Q` names: any block the block layer allows, the open block
-- only while it is in none of the ghost's classes (the layer's `Guard`;
-- after a recovery the open block may be one, thirty-fifth session)
Apart : Gh → XS → BL → (ℕ → Set) → Set
Apart G X bl Q = ∀ j → Q j → ∀ k → AllocOK (stX X) bl k → (k ≡ ab bl → Unclassed G k) → k ≢ j

-- ... so the block a guarded step took is apart from them
apart-at : ∀ {G X bl bl' Q} → Guard X G bl bl' → Apart G X bl Q →
           ∀ j → Q j → ∀ k → AllocOK (stX X) bl k → bl' ≡ balloc k (nxt (stX X)) bl → k ≢ j
apart-at g ap j qj k aok e = ap j qj k aok (g k e)

-- the open and the free blocks are neither erasable nor victims
taken-open : ∀ {c G X bl d j} → Abs c G X bl d → Taken G j → ∀ k → Opens bl k → k ≢ j
taken-open I (inj₁ ej) k (inj₁ refl) refl = t→¬f ej (Abs.abE I)
taken-open I (inj₂ vj) k (inj₁ refl) refl = t→¬f vj (Abs.abV I)
taken-open I (inj₁ ej) k (inj₂ fk) refl = t→¬f ej (Abs.frE I k fk)
taken-open I (inj₂ vj) k (inj₂ fk) refl = t→¬f vj (Abs.frV I k fk)

private
  just-inj : ∀ {a b : ℕ} → just a ≡ just b → a ≡ b
  just-inj refl = refl

  ownq-keep : ∀ {X X' bl bl' j} → QX X X' → wp bl' j ≡ wp bl j → (∀ o → own bl' j o ≡ own bl j o) →
              OwnQ X bl j → OwnQ X' bl' j
  ownq-keep q ew eo f o p lt e = q p (f o p (subst (o <_) ew lt) (trans (sym (eo o)) e))

  -- a write or relocation: the covered blocks' pages stay where they were
  qinv-place : ∀ {G X X' bl bl'} → QX X X' → Place X X' bl bl' → Guard X G bl bl' →
               Apart G X bl (Cov G) → QInv (G , X , bl) →
               ∀ j → Cov G j → OwnQ X' bl' j
  qinv-place {G} {X} {X'} {bl} {bl'} q pl gd cp Q j cj =
    ownq-keep {X} {X'} {bl} {bl'} {j} q (proj₁ P) (proj₂ P) (Q j cj)
    where P = place-other {X} {X'} {bl} {bl'} {j} pl (apart-at {G} {X} {bl} {bl'} gd cp j cj)

  cov-taken : ∀ {G j} → Cov G j → Taken G j
  cov-taken (inj₁ e) = inj₁ e
  cov-taken (inj₂ (v , _)) = inj₂ v

  -- an epoch's end: its victims erasable
  cov-end : ∀ {G j} → cv G ≡ nothing → Cov (endEp G) j → Cov G j
  cov-end {G} {j} nocv (inj₁ e) with es G j
  ... | true  = inj₁ refl
  ... | false = inj₂ (e , λ x → nothing≢just (trans (sym nocv) x))
  cov-end nocv (inj₂ (() , _))

  none-cov : ∀ {G} → (∀ j → es G j ≡ false) → (∀ j → vi G j ≡ false) → ∀ j → Cov G j → ⊥
  none-cov ne nv j (inj₁ e) = t→¬f e (ne j)
  none-cov ne nv j (inj₂ (v , _)) = t→¬f v (nv j)

  w≢es : ∀ a d → SB.reg (SB.op (SB.w a d)) ≢ SB.reg (SB.op SB.es)
  w≢es a d ()

  rl≢es : SB.reg (SB.op SB.rl) ≢ SB.reg (SB.op SB.es)
  rl≢es ()

-- every step of the layer keeps `QInv`, given three facts of the state
-- it steps from: an erasable block is no victim, each page is placed in
-- one block (BXone's `OwnLoc`), and no block a placement may take is
-- covered (the open block and the free ones are neither erasable nor
-- victims)
qinv-core : ∀ {c G X bl s'} → (∀ k → es G k ≡ true → vi G k ≡ false) → OwnLoc bl →
            Apart G X bl (Cov G) →
            QInv (G , X , bl) → LStep c (G , X , bl) s' → QInv s'
qinv-core {c} {G} {X} {bl} esv ol cp Q (lw {X' = X'} {bl' = bl'} {a} {dd} (o , pl) stay nocv nn uncl) j cj =
  qinv-place {G} {X} {X'} {bl} {bl'} (px-queued _ {X} {X'} (w≢es a dd) o) pl (guard-open {X} {G} {bl} uncl) cp Q j cj
qinv-core {c} {G} {X} {bl} esv ol cp Q (lwa {X' = X'} {bl' = bl'} {a} {dd} (o , pl) moved kP full nocv nn uncl) j cj =
  qinv-place {G} {X} {X'} {bl} {bl'} (px-queued _ {X} {X'} (w≢es a dd) o) pl (guard-unc {X} {G} {bl} uncl) cp Q j cj
qinv-core {c} {G} {X} {bl} esv ol cp Q (lwr {X' = X'} {bl' = bl'} {a} {dd} (o , pl) moved kP cls nocv nn) j cj =
  qinv-place {G} {X} {X'} {bl} {bl'} (px-queued _ {X} {X'} (w≢es a dd) o) pl (guard-moved {X} {G} {bl} moved) cp Q j cj
qinv-core {c} {G} {X} {bl} esv ol cp Q (lret full uncl frk kP) j cj = Q j cj
qinv-core {c} {G} {X} {bl} esv ol cp Q (lfl {X' = X'} (o , refl) nocv nn) j cj =
  ownq-keep {X} {X'} {bl} {bl} {j} (px-queued SB.flush {X} {X'} (λ ()) o) refl (λ _ → refl) (Q j (cov-end {G} {j} nocv cj))
qinv-core {c} {G} {X} {bl} esv ol cp Q (lbar {X' = X'} (o , refl) nocv nn) j cj =
  ownq-keep {X} {X'} {bl} {bl} {j} (px-queued _ {X} {X'} (λ ()) o) refl (λ _ → refl) (Q j (cov-end {G} {j} nocv cj))
qinv-core {c} {G} {X} {bl} esv ol cp Q (lsy {X' = X'} (o , refl)) j cj =
  ownq-keep {X} {X'} {bl} {bl} {j} (px-queued _ {X} {X'} (λ ()) o) refl (λ _ → refl) (Q j cj)
qinv-core {c} {G} {X} {bl} esv ol cp Q (lera {X' = X'} (k , rn , refl) esk kP) j cj with j ≟ℕ k
... | yes refl = ⊥-elim (gone cj)
  where
  gone : Cov (record G { es = es G [ j ≔ false ] }) j → ⊥
  gone (inj₁ e) = t→¬f e (upd-self (es G) j false)
  gone (inj₂ (v , _)) = t→¬f v (esv j esk)
... | no ne = λ o p lt e → run-queued rn p (off o p lt e) (Q j cj′ o p (subst (o <_) (upd-ne (wp bl) j k 0 ne) lt) e)
  where
  back : Cov (record G { es = es G [ k ≔ false ] }) j → Cov G j
  back (inj₁ e) = inj₁ (trans (sym (upd-ne (es G) j k false ne)) e)
  back (inj₂ v) = inj₂ v
  cj′ = back cj
  -- a page of block j is none of block k's (each page is placed in one block)
  off : ∀ o p → o < wp (berase k bl) j → own bl j o ≡ just p → ¬ (p ∈ owners bl k)
  off o p _ e i with mem-own bl k (wp bl k) p i
  ... | o′ , _ , e′ = ne (cong proj₁ (trans (sym (ol j o p e)) (ol k o′ p e′)))
qinv-core {c} {G} {X} {bl} esv ol cp Q (lgcm {k = k} nocv usk kP gk uL vN) j (inj₁ e) = Q j (inj₁ e)
qinv-core {c} {G} {X} {bl} esv ol cp Q (lgcm {k = k} nocv usk kP gk uL vN) j (inj₂ (v , nc)) with j ≟ℕ k
... | yes refl = ⊥-elim (nc refl)
... | no ne = Q j (inj₂ (trans (sym (upd-ne (vi G) j k true ne)) v , λ x → nothing≢just (trans (sym nocv) x)))
qinv-core {c} {G} {X} {bl} esv ol cp Q (lrl {X' = X'} {bl' = bl'} cvk (o , pl) stay pol _ uncl) j cj =
  qinv-place {G} {X} {X'} {bl} {bl'} (px-queued _ {X} {X'} rl≢es o) pl (guard-open {X} {G} {bl} uncl) cp Q j cj
qinv-core {c} {G} {X} {bl} esv ol cp Q (lrla {X' = X'} {bl' = bl'} cvk (o , pl) moved kP full pol _ uncl) j cj =
  qinv-place {G} {X} {X'} {bl} {bl'} (px-queued _ {X} {X'} rl≢es o) pl (guard-unc {X} {G} {bl} uncl) cp Q j cj
qinv-core {c} {G} {X} {bl} esv ol cp Q (lrlr {X' = X'} {bl' = bl'} cvk (o , pl) moved kP pol _ cls) j cj =
  qinv-place {G} {X} {X'} {bl} {bl'} (px-queued _ {X} {X'} rl≢es o) pl (guard-moved {X} {G} {bl} moved) cp Q j cj
qinv-core {c} {G} {X} {bl} esv ol cp Q (ldone {k = k} cvk z rel) j (inj₁ e) = Q j (inj₁ e)
qinv-core {c} {G} {X} {bl} esv ol cp Q (ldone {k = k} cvk z rel) j (inj₂ (v , nc)) with j ≟ℕ k
... | yes refl = rel
... | no ne = Q j (inj₂ (v , λ x → ne (just-inj (trans (sym x) cvk))))

-- where a placement may go from a running state: the open block or a
-- free one, neither erasable nor a victim
taken-run : ∀ {c G X bl} → Run c (G , X , bl) → Apart G X bl (Taken G)
taken-run {c} {G} {X} {bl} R j tj k aok _ = taken-open {c} {G} {X} {bl} (Run.abs R) tj k (proj₁ aok)

-- ... from a retired state: the old open block only while in none of
-- the ghost's classes, else a free block, free in Space's abstraction or
-- the block it opened
taken-ret : ∀ {c G X bl} → Retired c (G , X , bl) → Apart G X bl (Taken G)
taken-ret {c} {G} {X} {bl} Rt j tj k (opens , _ , _) gd = free opens
  where
  I = Retired.abs Rt
  kn = Retired.kn Rt
  ctk : Taken G k → es G k ≡ false → vi G k ≡ false → ⊥
  ctk (inj₁ e) ne nv = t→¬f e ne
  ctk (inj₂ v) ne nv = t→¬f v nv
  go : fr bl k ≡ true → k ≢ j
  go f refl with k ≟ℕ kn
  ... | yes refl = ctk tj (Abs.abE I) (Abs.abV I)
  ... | no ne = ctk tj (Abs.frE I k (trans (upd-ne (fr bl) k kn false ne) f))
                       (Abs.frV I k (trans (upd-ne (fr bl) k kn false ne) f))
  free : Opens bl k → k ≢ j
  free (inj₂ f) = go f
  free (inj₁ e) refl with gd e
  ... | (_ , nv , ne) = ctk tj ne nv

private
  cov-run : ∀ {c G X bl} → Run c (G , X , bl) → Apart G X bl (Cov G)
  cov-run {G = G} R j cj = taken-run R j (cov-taken {G} {j} cj)

  cov-ret : ∀ {c G X bl} → Retired c (G , X , bl) → Apart G X bl (Cov G)
  cov-ret {G = G} Rt j cj = taken-ret Rt j (cov-taken {G} {j} cj)

qinv-step : ∀ {c s s'} → LInv c s → QInv s → LStep c s s' → QInv s'
qinv-step {c} {G , X , bl} (inj₁ F) Q st =
  qinv-core (λ k e → t→¬f e (Fresh.noEs F k)) (proj₂ (Fresh.ri F))
    (λ j cj → ⊥-elim (none-cov {G} (Fresh.noEs F) (Fresh.noVi F) j cj)) Q st
qinv-step {c} {G , X , bl} (inj₂ (inj₁ R)) Q st =
  qinv-core (Abs.esV (Run.abs R)) (proj₂ (Run.ri R)) (cov-run R) Q st
qinv-step {c} {G , X , bl} (inj₂ (inj₂ Rt)) Q st =
  qinv-core (Abs.esV (Retired.abs Rt)) (proj₂ (Retired.ri Rt)) (cov-ret Rt) Q st

module _ {c : Spc.Config} (eL : Spc.L c ≡ suc amax) (eW : Spc.W c ≡ suc wmax) (eS : Spc.S c ≡ Z) where

  qinv-star : ∀ {s s'} → LInv c s → QInv s → Star (LStep c) s s' → QInv s'
  qinv-star i Q ε        = Q
  qinv-star i Q (st ◅ r) = qinv-star (step-inv eL eW eS i st) (qinv-step i Q st) r

-- **every state the layer reaches from the first recovery of a new disk
-- has every page of every block it holds erasable, and of every victim
-- whose GC has ended, on P's invalid or erasable queue**
layer-queued : ∀ {c X bl s} → Spc.L c ≡ suc amax → Spc.W c ≡ suc wmax → Spc.S c ≡ Z →
               Start c X bl → Star (LStep c) (G0 , X , bl) s → QInv s
layer-queued eL eW eS st r =
  qinv-star eL eW eS (start-inv st) (λ j cj → ⊥-elim (none-cov {G0} (λ _ → refl) (λ _ → refl) j cj)) r

------------------------------------------------------------------------
-- The property as one statement about a layer (mutant 51,
-- SCFTL.Mutants.LayerEndsVictimEarly, is a layer without it)

-- a layer: a configuration and steps on the layer's states
record LayerRel : Set₁ where
  field
    cfg  : Spc.Config
    step : LS → LS → Set
open LayerRel public

-- from the first recovery of a new disk every state it reaches has every
-- page of a block it holds erasable, or of a victim whose GC has ended,
-- on P's invalid or erasable queue
LayerQueued : LayerRel → Set
LayerQueued L = ∀ {X bl s} → Start (cfg L) X bl → Star (step L) (G0 , X , bl) s → QInv s

-- the code's layer has it (for the one model's geometry)
code-queued : ∀ c → Spc.L c ≡ suc amax → Spc.W c ≡ suc wmax → Spc.S c ≡ Z →
              LayerQueued (record { cfg = c ; step = LStep c })
code-queued c eL eW eS = layer-queued eL eW eS

------------------------------------------------------------------------
-- The erase: once its pages are through a commit, a block the layer
-- holds erasable is erased by a step of the model

-- a queued page with the invalid queue empty is erasable
qd-ers : ∀ s p → qd s p ≡ true → inv s p ≡ false → ers s p ≡ true
qd-ers s p q ni = subst (λ b → (b ∨ ers s p) ≡ true) ni q

-- every commit path of PUSBic's leaves no page on P's invalid queue
inv-flush : ∀ {X X'} → PXm.ok (SB.use SB.flush) X X' → proj₁ X' ≡ false → ∀ p → inv (stX X') p ≡ false
inv-flush {false , S} (inj₁ (_ , _ , refl , inj₁ (inj₁ e , _))) _ p = cong (λ z → inv (st z) p) e
inv-flush {false , S} (inj₁ (_ , _ , refl , inj₁ (inj₂ e , _))) _ p = cong (λ z → inv (st z) p) e
inv-flush {false , S} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₁ e) , _))) _ p = cong (λ z → inv (st z) p) e
inv-flush {false , S} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₂ e) , _))) _ p = cong (λ z → inv (st z) p) e
inv-flush {true , S} (inj₁ (_ , _ , () , _))
inv-flush (inj₂ (refl , _)) ()

-- in PUSBic's phase, a block that holds a page all of whose pages are on
-- P's erasable queue has its block erase as a step of BXone
-- (RecoveryReclaim's `es-run`: P's erase of each page); so, with no page
-- on P's invalid queue, has every block the layer holds erasable
-- ... as P's erase of each page, staying in PUSBic's phase
erase-run : ∀ {X bl k} → proj₁ X ≡ false → OwnLoc bl →
            (∀ o p → o < wp bl k → own bl k o ≡ just p → ers (stX X) p ≡ true) → owners bl k ≢ [] →
            Σ XS λ X' → EsRunM X (owners bl k) X' × proj₁ X' ≡ false
erase-run {false , S} {bl} {k} refl ol E ne = proj₁ R , proj₁ (proj₂ R) , proj₂ (proj₂ R)
  where
  ers-of : ∀ {r} → (Σ ℕ λ o → o < wp bl k × own bl k o ≡ just r) → ers (stX (false , S)) r ≡ true
  ers-of {r} (o , lt , e) = E o r lt e
  R = es-run (false , S) (owners bl k) tt (All.map ers-of (ownersB-at bl k (wp bl k)))
             (ownersB-distinct bl k (wp bl k) ol) ne

layer-erase-ers : ∀ {X bl k} → proj₁ X ≡ false → OwnLoc bl →
                  (∀ o p → o < wp bl k → own bl k o ≡ just p → ers (stX X) p ≡ true) → owners bl k ≢ [] →
                  Σ XS λ X' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , berase k bl)
layer-erase-ers {X} {bl} {k} ph ol E ne = proj₁ R , k , proj₁ (proj₂ R) , refl
  where R = erase-run {X} {bl} {k} ph ol E ne

layer-erase : ∀ {G X bl k} → proj₁ X ≡ false → OwnLoc bl → QInv (G , X , bl) →
              (∀ p → inv (stX X) p ≡ false) → es G k ≡ true → owners bl k ≢ [] →
              Σ XS λ X' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , berase k bl)
layer-erase {G} {X} {bl} {k} ph ol Q noinv esk ne =
  layer-erase-ers {X} {bl} {k} ph ol (λ o p lt e → qd-ers (stX X) p (Q k (inj₁ esk) o p lt e) (noinv p)) ne

private
  ownloc-of : ∀ {c G X bl} → LInv c (G , X , bl) → OwnLoc bl
  ownloc-of L = proj₂ (ri-of L)

-- **after a flush of the layer that stays in PUSBic's phase, every block
-- it holds erasable and that holds a page is erased by a step of the
-- model**, in every run from the first recovery of a new disk: the
-- victims' pages went through P's relocation (`ldone`) and the commit
-- moved them to P's erasable queue
flushed-erase : ∀ {c X0 bl0 G X bl X' k} → Spc.L c ≡ suc amax → Spc.W c ≡ suc wmax → Spc.S c ≡ Z →
                Start c X0 bl0 → Star (LStep c) (G0 , X0 , bl0) (G , X , bl) →
                (o : SB.Model.ok BXone (SB.use SB.flush) (X , bl) (X' , bl)) → cv G ≡ nothing →
                Spc.NotNeeded c (gn G) (usedOf c G X bl) → proj₁ X' ≡ false →
                es (endEp G) k ≡ true → owners bl k ≢ [] →
                Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl) (X'' , berase k bl)
flushed-erase {c} {X0} {bl0} {G} {X} {bl} {X'} {k} eL eW eS st run o nocv nn ph esk ne =
  layer-erase {endEp G} {X'} {bl} {k} ph (ownloc-of {c} {endEp G} {X'} {bl} (layer-inv eL eW eS st run′))
    (layer-queued eL eW eS st run′) (inv-flush (proj₁ o) ph) esk ne
  where
  run′ : Star (LStep c) (G0 , X0 , bl0) (endEp G , X' , bl)
  run′ = run ◅◅ (lfl o nocv nn ◅ ε)

------------------------------------------------------------------------
-- The erase after an epoch barrier: the SYNC that releases the pages

-- the map a full SYNC makes stable: the last unsynced epoch's (the stable
-- L2P where none is unsynced)
lastX : XS → Map
lastX X = lastMap (smap (stX X)) (ues (su (proj₂ X)))

-- neither the volatile L2P nor the map a full SYNC would make stable
-- names page p
Gone : XS → ℕ → Set
Gone X p = Unnamed (l2p (stX X)) p × Unnamed (lastX X) p

-- every placed page is below P's next one, and every page of a block the
-- layer holds erasable is gone
EInv : LS → Set
EInv (G , X , bl) = FreshAbove X bl × (∀ j → es G j ≡ true → ∀ o p → o < wp bl j → own bl j o ≡ just p → Gone X p)

private
  -- a step that keeps the volatile L2P and makes it the map a SYNC makes
  -- stable (a flush, a barrier) leaves gone every page the L2P did not name
  Fresh2 : XS → XS → Set
  Fresh2 X X' = (∀ b → l2p (stX X') b ≡ l2p (stX X) b) × (∀ b → lastX X' b ≡ l2p (stX X) b)

  gone-fresh2 : ∀ {X X' p} → Fresh2 X X' → Unnamed (l2p (stX X)) p → Gone X' p
  gone-fresh2 (el , eL) u = (λ b le m → u b le (trans (sym (el b)) m)) , (λ b le m → u b le (trans (sym (eL b)) m))

  -- a step that keeps the map a SYNC makes stable
  gone-keep : ∀ {X X' p} → (∀ b → lastX X' b ≡ lastX X b) → Unnamed (l2p (stX X')) p → Gone X p → Gone X' p
  gone-keep eL u' (_ , u2) = u' , λ b le m → u2 b le (trans (sym (eL b)) m)

  last-smu : ∀ {X X'} → SmU X X' → ∀ b → lastX X' b ≡ lastX X b
  last-smu {X} {X'} (es , eu) b =
    trans (cong (λ z → lastMap (smap (stX X')) z b) eu) (lastMap-≐ es (ues (su (proj₂ X))) b)

  -- writes and relocations map only P's next page anew
  l2p-new : ∀ {X X' p} → (NewPg (stX X) (stX X') ⊎ Keep (stX X) (stX X')) → p < nxt (stX X) →
            Unnamed (l2p (stX X)) p → Unnamed (l2p (stX X')) p
  l2p-new (inj₂ keep) lt u b le m = u b le (trans (sym (keep b)) m)
  l2p-new {X} {X'} {p} (inj₁ (_ , mp)) lt u b le m with mp b p m
  ... | inj₁ m0 = u b le m0
  ... | inj₂ e  = <-irrefl e lt

  -- PUSBic's barrier: the new last epoch's map is the volatile L2P (`vm`),
  -- or the forced flush makes it the stable one
  bar-PU2 : ∀ {S S'} → (∀ a → l2p (st (su S)) a ≡ eM (epE (st (su S))) (lastMap (smap (st (su S))) (ues (su S))) a) →
            okX (SB.use (SB.reg SB.barrier)) S S' → Fresh2 (false , S) (false , S')
  bar-PU2 {S} {S'} vm (inj₁ (_ , e) , _) =
    (λ b → cong (λ z → l2p (st z) b) e) ,
    (λ b → trans (cong (λ z → lastMap (smap (st z)) (ues z) b) e)
                 (trans (cong (λ f → f b) (lastMap-snoc (smap (st (su S))) (ues (su S)) (epE (st (su S))))) (sym (vm b))))
  bar-PU2 {S} {S'} vm (inj₂ (inj₁ e) , _) = (λ b → cong (λ z → l2p (st z) b) e) , (λ b → cong (λ z → lastMap (smap (st z)) (ues z) b) e)
  bar-PU2 {S} {S'} vm (inj₂ (inj₂ e) , _) = (λ b → cong (λ z → l2p (st z) b) e) , (λ b → cong (λ z → lastMap (smap (st z)) (ues z) b) e)

  fresh2-barrier : ∀ {X X'} → OPX.RI X → PXm.ok (SB.use (SB.reg SB.barrier)) X X' → Fresh2 X X'
  fresh2-barrier {false , S} {.false , S'} (t , ar , _) (inj₁ (refl , .S , refl , o)) = bar-PU2 {S} {S'} vm o
    where
    gall : GhAll (su S) t
    gall = proj₁ (proj₂ (proj₁ (ivX {S} {t} ar)))
    vm = proj₂ (proj₁ (proj₂ (proj₂ gall)))
  fresh2-barrier {true , S} {.false , S'} (eu , ril) (inj₁ (refl , _ , refl , o)) with bar-PU2 {konsU S} {S'} (kons-vm (st (su S)) (ril-vm ril)) o
  ... | el , eL = (λ b → trans (el b) (proj₁ (konsS-maps (st (su S))) b)) , (λ b → trans (eL b) (proj₁ (konsS-maps (st (su S))) b))
  fresh2-barrier _ (inj₂ (refl , _ , s' , _ , ()))

  fresh2-flush : ∀ {X X'} → PXm.ok (SB.use SB.flush) X X' → Fresh2 X X'
  fresh2-flush {false , S} (inj₁ (_ , _ , refl , inj₁ (inj₁ e , _))) =
    (λ b → cong (λ z → l2p (st z) b) e) , (λ b → cong (λ z → lastMap (smap (st z)) (ues z) b) e)
  fresh2-flush {false , S} (inj₁ (_ , _ , refl , inj₁ (inj₂ e , _))) =
    (λ b → cong (λ z → l2p (st z) b) e) , (λ b → cong (λ z → lastMap (smap (st z)) (ues z) b) e)
  fresh2-flush {false , S} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₁ e) , _))) =
    (λ b → cong (λ z → l2p (st z) b) e) , (λ b → cong (λ z → lastMap (smap (st z)) (ues z) b) e)
  fresh2-flush {false , S} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₂ e) , _))) =
    (λ b → cong (λ z → l2p (st z) b) e) , (λ b → cong (λ z → lastMap (smap (st z)) (ues z) b) e)
  fresh2-flush {true , S} (inj₁ (_ , _ , () , _))
  fresh2-flush {b , S} (inj₂ (refl , eu , s' , refl , inj₁ o)) =
    (λ a → trans (proj₁ (flushP-maps o) a) (proj₁ (konsS-maps (st (su S))) a)) ,
    (λ a → trans (proj₂ (flushP-maps o) a) (proj₁ (konsS-maps (st (su S))) a))
  fresh2-flush {b , S} (inj₂ (refl , eu , s' , refl , inj₂ (M , _ , refl))) = (λ a → refl) , (λ a → refl)

  -- a SYNC keeps the volatile L2P and the map a full SYNC makes stable
  gone-sy : ∀ {X X' p} → PXm.ok (SB.use (SB.reg (SB.op SB.sy))) X X' → Gone X p → Gone X' p
  gone-sy {false , S} {p = p} (inj₁ (refl , .S , refl , inj₁ (r , _ , e , _))) (u1 , u2) =
    (λ b le m → u1 b le (subst (λ z → l2p (st z) b ≡ just p) e m)) ,
    (λ b le m → u2 b le (subst (λ z → lastMap (smap (st z)) (ues z) b ≡ just p) e m))
  gone-sy {false , S} {p = p} (inj₁ (refl , .S , refl , inj₂ (xs , ys , l , r , ex , _ , _ , e , _))) (u1 , u2) =
    (λ b le m → u1 b le (subst (λ z → l2p (st z) b ≡ just p) e m)) ,
    (λ b le m → u2 b le (trans (cong (λ es → lastMap (smap (st (su S))) es b) ex)
                          (trans (cong (λ f → f b) (lastMap-++ (smap (st (su S))) xs ys))
                                 (subst (λ z → lastMap (smap (st z)) (ues z) b ≡ just p) e m))))
  gone-sy {true , S} (inj₁ (refl , S0 , () , _))
  gone-sy (inj₂ (refl , _ , s' , _ , ()))

  -- an erase step keeps every map and the epochs
  es-maps : ∀ {X X1} → PXm.ok (SB.use (SB.reg (SB.op SB.es))) X X1 → ues (su (proj₂ X1)) ≡ ues (su (proj₂ X))
  es-maps {false , S} (inj₁ (refl , .S , refl , (((p , ep , e) , ue) , _))) = ue
  es-maps {true , S} (inj₁ (_ , _ , () , _))
  es-maps {b , S} (inj₂ (refl , eu , s' , refl , _)) = sym eu

  gone-es : ∀ {X X1 q p} → PXm.ok (SB.use (SB.reg (SB.op SB.es))) X X1 → stX X1 ≡ esF q (stX X) → Gone X p → Gone X1 p
  gone-es {X} {X1} {q} {p} o e (u1 , u2) =
    (λ b le m → u1 b le (subst (λ z → l2p z b ≡ just p) e m)) ,
    (λ b le m → u2 b le (subst (λ z → lastMap (smap z) (ues (su (proj₂ X))) b ≡ just p) e
                          (subst (λ es → lastMap (smap (stX X1)) es b ≡ just p) (es-maps o) m)))

  gone-run : ∀ {X ps X' p} → EsRunM X ps X' → Gone X p → Gone X' p
  gone-run (one (o , e)) g = gone-es o e g
  gone-run (_∷_ (o , e) rn) g = gone-run rn (gone-es o e g)

private
  -- a write or relocation leaves every erasable block's pages where they
  -- were and gone (it maps only P's next page, above every placed one)
  einv-place : ∀ {G X X' bl bl'} → FreshAbove X bl → Guard X G bl bl' → Apart G X bl (λ j → es G j ≡ true) →
               Place X X' bl bl' → (NewPg (stX X) (stX X') ⊎ Keep (stX X) (stX X')) → SmU X X' →
               (∀ j → es G j ≡ true → ∀ o p → o < wp bl j → own bl j o ≡ just p → Gone X p) →
               ∀ j → es G j ≡ true → ∀ o p → o < wp bl' j → own bl' j o ≡ just p → Gone X' p
  einv-place {G} {X} {X'} {bl} {bl'} fa gd cp pl sh sm E j esj o p lt e =
    gone-keep {X} {X'} (last-smu {X} {X'} sm) (l2p-new {X} {X'} sh (fa j o p e′) (proj₁ g)) g
    where
    P = place-other {X} {X'} {bl} {bl'} {j} pl (apart-at {G} {X} {bl} {bl'} gd cp j esj)
    e′ : own bl j o ≡ just p
    e′ = trans (sym (proj₂ P o)) e
    g = E j esj o p (subst (o <_) (proj₁ P) lt) e′

  -- at an epoch's end a block becomes erasable: erasable before, or a
  -- victim whose GC ended, which holds no valid sector, so no entry of
  -- the volatile L2P names a page of it
  end-unnamed : ∀ {G X bl j} → OwnLoc bl → cv G ≡ nothing → (∀ j → vi G j ≡ true → cv G ≢ just j → vc X bl j ≡ 0) →
                (es G j ≡ true → ∀ o p → o < wp bl j → own bl j o ≡ just p → Gone X p) →
                (es G j ∨ vi G j) ≡ true → ∀ o p → o < wp bl j → own bl j o ≡ just p → Unnamed (l2p (stX X)) p
  end-unnamed {G} {X} {bl} {j} ol nocv vz E e o p lt ep with es G j
  ... | true  = proj₁ (E refl o p lt ep)
  ... | false = vc0-unnamed {X} {bl} ol j (vz j e (λ x → nothing≢just (trans (sym nocv) x))) o p ep

-- every step of the layer keeps `EInv`, given the state's invariant of
-- the one model (a barrier's map is the volatile L2P), BXone's `OwnLoc`,
-- the blocks a placement may take apart from the erasable ones, and that
-- a victim whose GC ended holds no valid sector
einv-core : ∀ {c G X bl s'} → OPX.RI X → OwnLoc bl →
            Apart G X bl (Cov G) →
            (∀ j → vi G j ≡ true → cv G ≢ just j → vc X bl j ≡ 0) →
            EInv (G , X , bl) → LStep c (G , X , bl) s' → EInv s'
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lw {X' = X'} {bl' = bl'} {a} {dd} (o , pl) stay nocv nn uncl) =
  fresh-ok (SB.reg (SB.op (SB.w a dd))) {X} {X'} {bl} {bl'} fa (o , pl) ,
  einv-place {G} {X} {X'} {bl} {bl'} fa (guard-open {X} {G} {bl} uncl) (λ j e → cp j (inj₁ e)) pl (shape-w a dd {X} {X'} o) (sm-w a dd {X} {X'} o) E
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lwa {X' = X'} {bl' = bl'} {a} {dd} (o , pl) moved kP full nocv nn uncl) =
  fresh-ok (SB.reg (SB.op (SB.w a dd))) {X} {X'} {bl} {bl'} fa (o , pl) ,
  einv-place {G} {X} {X'} {bl} {bl'} fa (guard-unc {X} {G} {bl} uncl) (λ j e → cp j (inj₁ e)) pl (shape-w a dd {X} {X'} o) (sm-w a dd {X} {X'} o) E
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lwr {X' = X'} {bl' = bl'} {a} {dd} (o , pl) moved kP cls nocv nn) =
  fresh-ok (SB.reg (SB.op (SB.w a dd))) {X} {X'} {bl} {bl'} fa (o , pl) ,
  einv-place {G} {X} {X'} {bl} {bl'} fa (guard-moved {X} {G} {bl} moved) (λ j e → cp j (inj₁ e)) pl (shape-w a dd {X} {X'} o) (sm-w a dd {X} {X'} o) E
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lret full uncl frk kP) = fa , E
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lfl {X' = X'} (o , refl) nocv nn) =
  fresh-ok SB.flush {X} {X'} {bl} {bl} fa (o , refl) ,
  λ j e o' p lt ep → gone-fresh2 {X} {X'} (fresh2-flush o) (end-unnamed {G} {X} {bl} {j} ol nocv vz (E j) e o' p lt ep)
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lbar {X' = X'} (o , refl) nocv nn) =
  fresh-ok (SB.reg SB.barrier) {X} {X'} {bl} {bl} fa (o , refl) ,
  λ j e o' p lt ep → gone-fresh2 {X} {X'} (fresh2-barrier r o) (end-unnamed {G} {X} {bl} {j} ol nocv vz (E j) e o' p lt ep)
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lsy {X' = X'} (o , refl)) =
  fresh-ok (SB.reg (SB.op SB.sy)) {X} {X'} {bl} {bl} fa (o , refl) ,
  λ j e o' p lt ep → gone-sy {X} {X'} o (E j e o' p lt ep)
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lera {X' = X'} (k , rn , refl) esk kP) =
  fresh-ok (SB.reg (SB.op SB.es)) {X} {X'} {bl} {berase k bl} fa (k , rn , refl) , E′
  where
  E′ : ∀ j → (es G [ k ≔ false ]) j ≡ true → ∀ o p → o < wp (berase k bl) j → own bl j o ≡ just p → Gone X' p
  E′ j e o p lt ep with j ≟ℕ k
  ... | yes refl = ⊥-elim (t→¬f e (upd-self (es G) j false))
  ... | no ne = gone-run rn (E j (trans (sym (upd-ne (es G) j k false ne)) e) o p (subst (o <_) (upd-ne (wp bl) j k 0 ne) lt) ep)
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lgcm nocv usk kP gk uL vN) = fa , E
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lrl {X' = X'} {bl' = bl'} cvk (o , pl) stay pol _ uncl) =
  fresh-ok (SB.reg (SB.op SB.rl)) {X} {X'} {bl} {bl'} fa (o , pl) ,
  einv-place {G} {X} {X'} {bl} {bl'} fa (guard-open {X} {G} {bl} uncl) (λ j e → cp j (inj₁ e)) pl (shape-rl {X} {X'} o) (sm-rl {X} {X'} o) E
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lrla {X' = X'} {bl' = bl'} cvk (o , pl) moved kP full pol _ uncl) =
  fresh-ok (SB.reg (SB.op SB.rl)) {X} {X'} {bl} {bl'} fa (o , pl) ,
  einv-place {G} {X} {X'} {bl} {bl'} fa (guard-unc {X} {G} {bl} uncl) (λ j e → cp j (inj₁ e)) pl (shape-rl {X} {X'} o) (sm-rl {X} {X'} o) E
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (lrlr {X' = X'} {bl' = bl'} cvk (o , pl) moved kP pol _ cls) =
  fresh-ok (SB.reg (SB.op SB.rl)) {X} {X'} {bl} {bl'} fa (o , pl) ,
  einv-place {G} {X} {X'} {bl} {bl'} fa (guard-moved {X} {G} {bl} moved) (λ j e → cp j (inj₁ e)) pl (shape-rl {X} {X'} o) (sm-rl {X} {X'} o) E
einv-core {c} {G} {X} {bl} r ol cp vz (fa , E) (ldone cvk z rel) = fa , E

private
  -- an ended victim holds no valid sector: where a valid sector may lie
  -- (`Placed`: the open block, a used one, the current victim) no ended
  -- victim is
  vz-in : ∀ {c G X bl' d} → Abs c G X bl' d → Placed c G X bl' →
          ∀ j → vi G j ≡ true → cv G ≢ just j → vc X bl' j ≡ 0
  vz-in {c} {G} {X} {bl'} I pl j v nc with pl j
  ... | inj₁ z = z
  ... | inj₂ (inj₁ e) = ⊥-elim (t→¬f v (subst (λ z → vi G z ≡ false) (sym e) (Abs.abV I)))
  ... | inj₂ (inj₂ (inj₁ (u , _))) = ⊥-elim (t→¬f v (Abs.usV I j u))
  ... | inj₂ (inj₂ (inj₂ e)) = ⊥-elim (nc e)

einv-step : ∀ {c s s'} → LInv c s → EInv s → LStep c s s' → EInv s'
einv-step {c} {G , X , bl} (inj₁ F) E st =
  einv-core (proj₁ (Fresh.ri F)) (proj₂ (Fresh.ri F))
    (λ j cj → ⊥-elim (none-cov {G} (Fresh.noEs F) (Fresh.noVi F) j cj))
    (λ j v _ → t→¬f v (Fresh.noVi F j)) E st
einv-step {c} {G , X , bl} (inj₂ (inj₁ R)) E st =
  einv-core (proj₁ (Run.ri R)) (proj₂ (Run.ri R)) (cov-run R) (vz-in (Run.abs R) (Run.placed R)) E st
einv-step {c} {G , X , bl} (inj₂ (inj₂ Rt)) E st =
  einv-core (proj₁ (Retired.ri Rt)) (proj₂ (Retired.ri Rt)) (cov-ret Rt) (vz-in (Retired.abs Rt) (Retired.placed Rt)) E st

module _ {c : Spc.Config} (eL : Spc.L c ≡ suc amax) (eW : Spc.W c ≡ suc wmax) (eS : Spc.S c ≡ Z) where

  einv-star : ∀ {s s'} → LInv c s → EInv s → Star (LStep c) s s' → EInv s'
  einv-star i E ε        = E
  einv-star i E (st ◅ r) = einv-star (step-inv eL eW eS i st) (einv-step i E st) r

private
  not-true : ∀ b → not b ≡ true → b ≡ false
  not-true false _ = refl

  -- after the release, a queued page the release names is erasable
  released : ∀ i e r → (i ∨ e) ≡ true → r ≡ i → (e ∨ r) ≡ true
  released true  e     .true  _ refl = ∨-zeroʳ e
  released false true  r     _ _ = refl

-- **after an epoch barrier, the SYNC that makes its epochs durable
-- releases the victims' pages, and the block erase follows**: in every
-- state of the layer's invariants in PUSBic's phase (each page placed in
-- one block, `OwnLoc`; `QInv`, `EInv`), for every block the
-- layer holds erasable that holds a page, a SYNC of the layer (`lsy`:
-- PU's SYNC of every unsynced epoch, releasing every invalid page the
-- map it makes stable does not name) leads to a state from which the
-- block erase is P's erase of each of its pages, in the same phase — the
-- code's `sync_barriers` before it erases.  The SYNC puts no page on a
-- queue that was on neither (it releases invalid pages only).
sync-erase : ∀ {c G S bl k} → OwnLoc bl → QInv (G , (false , S) , bl) → EInv (G , (false , S) , bl) →
             es G k ≡ true → owners bl k ≢ [] →
             Σ XS λ X' → LStep c (G , (false , S) , bl) (G , X' , bl) × proj₁ X' ≡ false ×
               (∀ p → qd (stX (false , S)) p ≡ false → qd (stX X') p ≡ false) × QX (false , S) X' ×
               Σ XS λ X'' → EsRunM X' (owners bl k) X'' × proj₁ X'' ≡ false
sync-erase {c} {G} {S} {bl} {k} ol Q E esk ne =
  X′ , lsy (sy , refl) , refl , unq , px-queued (SB.reg (SB.op SB.sy)) {false , S} {X′} (λ ()) sy , erase-run {X′} {bl} {k} refl ol ers′ ne
  where
  s = st (su S)
  M = lastX (false , S)
  r : ℕ → Bool
  r p = inv s p ∧ not (nmd M amax p)
  rel : ∀ p → r p ≡ true → inv s p ≡ true × (∀ a → a ≤ amax → lastMap (smap s) (ues (su S)) a ≢ just p)
  rel p e with ∧-true (inv s p) (not (nmd M amax p)) e
  ... | i , n = i , nmd-false M amax p (not-true (nmd M amax p) n)
  X′ : XS
  X′ = false , ⟦ syS r (su S) , ghostN (syS r (su S)) ⟧
  sy : PXm.ok (SB.use (SB.reg (SB.op SB.sy))) (false , S) X′
  sy = inj₁ (refl , S , refl , inj₁ (r , rel , refl , refl))
  ers′ : ∀ o p → o < wp bl k → own bl k o ≡ just p → ers (stX X′) p ≡ true
  ers′ o p lt e = released (inv s p) (ers s p) (r p) (Q k (inj₁ esk) o p lt e)
                    (subst (λ b → (inv s p ∧ not b) ≡ inv s p) (sym (nmd-unnamed M amax p (proj₂ (proj₂ E k esk o p lt e))))
                           (∧-identityʳ (inv s p)))
  unq : ∀ p → qd s p ≡ false → qd (stX X′) p ≡ false
  unq p q with inv s p | ers s p
  ... | false | false = refl
  ... | true  | _     = ⊥-elim (t→¬f refl q)
  ... | false | true  = ⊥-elim (t→¬f refl q)

-- the same from the first recovery of a new disk
synced-erase : ∀ {c X0 bl0 X1 bl1 G X bl k} → Spc.L c ≡ suc amax → Spc.W c ≡ suc wmax → Spc.S c ≡ Z →
               SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Spc.P c →
               Star (LStep c) (G0 , X1 , bl1) (G , X , bl) → proj₁ X ≡ false → es G k ≡ true → owners bl k ≢ [] →
               Σ XS λ X' → LStep c (G , X , bl) (G , X' , bl) × proj₁ X' ≡ false ×
               Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl) (X'' , berase k bl)
synced-erase {c} {X0} {bl0} {X1} {bl1} {G} {false , S} {bl} {k} eL eW eS new rec abP run refl esk ne
  with sync-erase {c} {G} {S} {bl} {k} (ownloc-of {c} {G} {false , S} {bl} (layer-inv eL eW eS st0 run)) (layer-queued eL eW eS st0 run)
         (einv-star eL eW eS (start-inv st0) (fresh-rec {X0} {X1} {bl0} {bl1} rec , λ j e → ⊥-elim (f≢t e)) run) esk ne
  where st0 = new-start new rec abP
... | X′ , st′ , ph , _ , _ , X″ , rn , _ = X′ , st′ , ph , X″ , k , rn , refl
