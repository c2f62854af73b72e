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
--                  the model (SCFTL.Impl.SpaceLayerGcExample: one is).
--
-- Not here (proofs/README.md, "Not done", item 1): the erase after an
-- epoch barrier (the victims' pages stay on P's invalid queue until a
-- SYNC releases them: the code's `sync_barriers` before it erases) and
-- in the chain phase (PL's `EraseGuard`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceQueued (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; _∨_; _∧_; not)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Nullary using (¬_; yes; no)
open import Data.Nat.Properties using () renaming (_≟_ to _≟ℕ_)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (St; inv; ers; esF; opt; optP; wr0; rl0; rlX; fl3; fi3; okP; _[_≔_])
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (konsS; konsX; konsPg; optL)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (fiL)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; ues; ⟪_,_⟫; flB)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_ using (syU)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (okX)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (syB)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX; konsU)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb
  using (stX; EsRunM; EsM; Place; BXone; one; _∷_)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; own; wp; ab; fr; balloc; berase; owners; ownersB; Opens; AllocOK; OwnLoc; upd-self; upd-ne)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (_∈_)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; es; vi; cv; gn; Abs; module Abs; t→¬f; nothing≢just)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; LStepT; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone; endEp; Relocated;
         Run; module Run; Fresh; module Fresh; Retired; module Retired; LInv; step-inv; G0; Start; start-inv;
         layer-inv; usedOf)
open import Data.List.Relation.Unary.Any using (Any) renaming (here to hd; there to tl)
open import Data.Nat.Base using (suc; _<_)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
open import Data.Unit.Base using (tt)
import Data.List.Relation.Unary.All as All
open import SCFTL.Impl.RecoveryReclaim Data d0 amax wmax kmax umax _≟D_ kc zb using (es-run; ownersB-at; ownersB-distinct)
open import Data.Nat.Properties using (≤-step; n<1+n; <-irrefl)
import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.Impl.Space as Spc
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module PXm = SB.Model PX

------------------------------------------------------------------------
-- Queued pages

qd : St → ℕ → Bool
qd s p = inv s p ∨ ers s p

-- every page queued in s is queued in s'
Qs : St → St → Set
Qs s s' = ∀ p → qd s p ≡ true → qd s' p ≡ true

private
  t≢f : true ≢ false
  t≢f ()

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
mem-own : ∀ bl k n p → p ∈ ownersB bl k n → Σ ℕ λ o → o < n × own bl k o ≡ just p
mem-own bl k (suc n) p i with own bl k n in e
... | nothing = let (o , lt , eo) = mem-own bl k n p i in o , ≤-step lt , eo
... | just q with i
...   | hd refl = n , n<1+n n , e
...   | tl i′ = let (o , lt , eo) = mem-own bl k n p i′ in o , ≤-step lt , eo

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

private
  just-inj : ∀ {a b : ℕ} → just a ≡ just b → a ≡ b
  just-inj refl = refl

  inv⇒qd : ∀ s p → inv s p ≡ true → qd s p ≡ true
  inv⇒qd s p e rewrite e = refl

  ownq-keep : ∀ {X X' bl bl' j} → QX X X' → wp bl' j ≡ wp bl j → (∀ o → own bl' j o ≡ own bl j o) →
              OwnQ X bl j → OwnQ X' bl' j
  ownq-keep q ew eo f o p lt e = q p (f o p (subst (o <_) ew lt) (trans (sym (eo o)) e))

  -- a write or relocation places its sector in the open block or a free
  -- one, and leaves every other block's pages and pointer as they were
  place-other : ∀ {X X' bl bl' j} → Place X X' bl bl' → (∀ k → AllocOK (stX X) bl k → k ≢ j) →
                wp bl' j ≡ wp bl j × (∀ o → own bl' j o ≡ own bl j o)
  place-other {X} {bl = bl} {j = j} (inj₁ (_ , k , aok , refl)) f =
    upd-ne (wp bl) j k _ (λ e → f k aok (sym e)) ,
    λ o → cong (λ g → g o) (upd-ne (own bl) j k _ (λ e → f k aok (sym e)))
  place-other (inj₂ (_ , refl)) f = refl , λ _ → refl

  -- the open and the free blocks are neither erasable nor victims
  cov-open : ∀ {c G X bl d j} → Abs c G X bl d → Cov G j → ∀ k → Opens bl k → k ≢ j
  cov-open I (inj₁ ej) k (inj₁ refl) refl = t→¬f ej (Abs.abE I)
  cov-open I (inj₂ (vj , _)) k (inj₁ refl) refl = t→¬f vj (Abs.abV I)
  cov-open I (inj₁ ej) k (inj₂ fk) refl = t→¬f ej (Abs.frE I k fk)
  cov-open I (inj₂ (vj , _)) k (inj₂ fk) refl = t→¬f vj (Abs.frV I k fk)

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
            (∀ j → Cov G j → ∀ k → AllocOK (stX X) bl k → k ≢ j) →
            QInv (G , X , bl) → LStep c (G , X , bl) s' → QInv s'
qinv-core {c} {G} {X} {bl} esv ol cp Q (lw {X' = X'} {bl' = bl'} {a} {dd} (o , pl) stay nocv nn) j cj =
  ownq-keep {X} {X'} {bl} {bl'} {j} (px-queued _ {X} {X'} (w≢es a dd) o) (proj₁ P) (proj₂ P) (Q j cj)
  where P = place-other {X} {X'} {bl} {bl'} {j} pl (cp j cj)
qinv-core {c} {G} {X} {bl} esv ol cp Q (lwa {X' = X'} {bl' = bl'} {a} {dd} (o , pl) moved kP full nocv nn _) j cj =
  ownq-keep {X} {X'} {bl} {bl'} {j} (px-queued _ {X} {X'} (w≢es a dd) o) (proj₁ P) (proj₂ P) (Q j cj)
  where P = place-other {X} {X'} {bl} {bl'} {j} pl (cp j cj)
qinv-core {c} {G} {X} {bl} esv ol cp Q (lwr {X' = X'} {bl' = bl'} {a} {dd} (o , pl) moved kP full cls nocv nn) j cj =
  ownq-keep {X} {X'} {bl} {bl'} {j} (px-queued _ {X} {X'} (w≢es a dd) o) (proj₁ P) (proj₂ P) (Q j cj)
  where P = place-other {X} {X'} {bl} {bl'} {j} pl (cp j cj)
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
qinv-core {c} {G} {X} {bl} esv ol cp Q (lrl {X' = X'} {bl' = bl'} cvk (o , pl) stay pol) j cj =
  ownq-keep {X} {X'} {bl} {bl'} {j} (px-queued _ {X} {X'} rl≢es o) (proj₁ P) (proj₂ P) (Q j cj)
  where P = place-other {X} {X'} {bl} {bl'} {j} pl (cp j cj)
qinv-core {c} {G} {X} {bl} esv ol cp Q (lrla {X' = X'} {bl' = bl'} cvk (o , pl) moved kP full pol _) j cj =
  ownq-keep {X} {X'} {bl} {bl'} {j} (px-queued _ {X} {X'} rl≢es o) (proj₁ P) (proj₂ P) (Q j cj)
  where P = place-other {X} {X'} {bl} {bl'} {j} pl (cp j cj)
qinv-core {c} {G} {X} {bl} esv ol cp Q (lrlr {X' = X'} {bl' = bl'} cvk (o , pl) moved kP full pol cls) j cj =
  ownq-keep {X} {X'} {bl} {bl'} {j} (px-queued _ {X} {X'} rl≢es o) (proj₁ P) (proj₂ P) (Q j cj)
  where P = place-other {X} {X'} {bl} {bl'} {j} pl (cp j cj)
qinv-core {c} {G} {X} {bl} esv ol cp Q (ldone {k = k} cvk z rel) j (inj₁ e) = Q j (inj₁ e)
qinv-core {c} {G} {X} {bl} esv ol cp Q (ldone {k = k} cvk z rel) j (inj₂ (v , nc)) with j ≟ℕ k
... | yes refl = λ o p lt e → inv⇒qd (stX X) p (rel o p lt e)
... | no ne = Q j (inj₂ (v , λ x → ne (just-inj (trans (sym x) cvk))))

private
  -- where a placement may go from a running state: the open block or a
  -- free one, neither erasable nor a victim
  cov-run : ∀ {c G X bl} → Run c (G , X , bl) → ∀ j → Cov G j → ∀ k → AllocOK (stX X) bl k → k ≢ j
  cov-run {c} {G} {X} {bl} R j cj k aok = cov-open {c} {G} {X} {bl} (Run.abs R) cj k (proj₁ aok)

  -- ... from a retired state: a free block (the old open block only once
  -- erased, `abNo`), free in Space's abstraction or the block it opened
  cov-ret : ∀ {c G X bl} → Retired c (G , X , bl) → ∀ j → Cov G j → ∀ k → AllocOK (stX X) bl k → k ≢ j
  cov-ret {c} {G} {X} {bl} Rt j cj k (opens , wlt , _) = go (free opens)
    where
    I = Retired.abs Rt
    kn = Retired.kn Rt
    free : Opens bl k → fr bl k ≡ true
    free (inj₂ f) = f
    free (inj₁ refl) with Retired.abNo Rt
    ... | inj₁ full = ⊥-elim (<-irrefl full wlt)
    ... | inj₂ f = f
    ccov : Cov G k → es G k ≡ false → vi G k ≡ false → ⊥
    ccov (inj₁ e) ne nv = t→¬f e ne
    ccov (inj₂ (v , _)) ne nv = t→¬f v nv
    go : fr bl k ≡ true → k ≢ j
    go f refl with k ≟ℕ kn
    ... | yes refl = ccov cj (Abs.abE I) (Abs.abV I)
    ... | no ne = ccov cj (Abs.frE I k (trans (upd-ne (fr bl) k kn false ne) f))
                         (Abs.frV I k (trans (upd-ne (fr bl) k kn false ne) f))

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

private
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

-- in PUSBic's phase, with no page on P's invalid queue, every block the
-- layer holds erasable and that holds a page has its block erase as a
-- step of BXone (RecoveryReclaim's `es-run`: P's erase of each page)
layer-erase : ∀ {G X bl k} → proj₁ X ≡ false → OwnLoc bl → QInv (G , X , bl) →
              (∀ p → inv (stX X) p ≡ false) → es G k ≡ true → owners bl k ≢ [] →
              Σ XS λ X' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , berase k bl)
layer-erase {G} {false , S} {bl} {k} refl ol Q noinv esk ne = proj₁ R , k , proj₂ R , refl
  where
  ers-of : ∀ {r} → (Σ ℕ λ o → o < wp bl k × own bl k o ≡ just r) → ers (stX (false , S)) r ≡ true
  ers-of {r} (o , lt , e) = qd-ers (stX (false , S)) r (Q k (inj₁ esk) o r lt e) (noinv r)
  R = es-run (false , S) (owners bl k) tt (All.map ers-of (ownersB-at bl k (wp bl k)))
             (ownersB-distinct bl k (wp bl k) ol) ne

private
  ownloc-of : ∀ {c G X bl} → LInv c (G , X , bl) → OwnLoc bl
  ownloc-of (inj₁ F) = proj₂ (Fresh.ri F)
  ownloc-of (inj₂ (inj₁ R)) = proj₂ (Run.ri R)
  ownloc-of (inj₂ (inj₂ Rt)) = proj₂ (Retired.ri Rt)

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
