{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks in the one model: GC's relocations fit
-- in P's budget per epoch.
--
-- P counts the relocations of an epoch (`gcnt`, raised by `rl0` and
-- `rlX`, emptied by every commit and barrier) and relocates nothing once
-- the count passes kmax: its `rl` is then a step that changes nothing.
-- The layer of SCFTL.Impl.SpaceLayer takes at most K victims per epoch
-- (gc.rs's count, `gn`), and a victim ends only once every page placed
-- in it is on one of P's queues (`ldone`, `Relocated`).  So the layer
-- can end every victim it takes only if P's relocation guard holds as
-- long as a page of the current victim is left: K victims of Z pages
-- each must fit in P's kmax + 1 relocations, and each relocation must be
-- of a page of the victim not yet relocated.  The second is the layer's
-- `Walk` guard (thirty-third session; before, `lrl` let P's `rlX` take
-- any dead page, and mutant 53, SCFTL.Mutants.LayerRelocatesAnyPage,
-- spends the budget on a page of another block and leaves the victim's
-- page with P's relocation a no-op).  Here:
--
--   `gx-w`, `gx-rl`, `gx-sy`, `gx-barrier`, `gx-flush`, `gx-esrun` : how
--                 each operation of PX moves P's relocation count (a
--                 write, a SYNC, an erase keep it; a relocation raises it
--                 by one or changes nothing; a barrier and every commit
--                 path empty it), in both phases;
--   `done X bl k` : the pages of block k, below its write pointer, on one
--                 of P's queues (`cntQ`; `cnt≤`, `cnt<`, `cnt-mono`,
--                 `cnt-inc`);
--   `GB`        : the layer's budget invariant: at most K victims this
--                 epoch, every write pointer at most Z, and P's count at
--                 most Z per victim taken before the current one plus the
--                 pages of the current one GC has been through
--                 (`gcnt + Z ≤ gn · Z + done` while GC moves a victim,
--                 `gcnt ≤ gn · Z` otherwise);
--   `gb-core`, `gb-step` : every step of the layer keeps it, from each of
--                 its three invariant states;
--   **`layer-budget`** : so in every state the layer reaches from the
--                 first recovery of a new disk, for a configuration with
--                 K · Z ≤ kmax + 1, while the current victim holds a page
--                 on neither of P's queues, P's relocation guard holds
--                 (`gcnt ≤ kmax`): the relocation of that page is a step
--                 of P that moves it to the invalid queue, not a no-op;
--                 `LayerBudget`, `code-budget`: the same as one statement
--                 about a layer (mutant 53 loses it);
--   `dead-walk` : so P's relocation of a dead page of the victim that GC
--                 has not been through (`rlX`) is a step of the layer, in
--                 either phase, and one more of the victim's pages is on
--                 P's queues after it;
--   **`dead-victim-ends`**, `layer-dead-victim-ends` : a victim with no
--                 valid sector (all a victim of the code's greedy choice
--                 holds once its valid sectors moved) is ended by the
--                 layer: from every state the layer reaches from the
--                 first recovery of a new disk, a run of `lrl` steps, one
--                 per page not yet queued, then `ldone`.
--
-- Not here: that the relocation of a valid page is a step of the block
-- layer too (it needs a block whose next physical page is erased:
-- SpaceLayer's `layer-reloc` finds the block, not the step), and the
-- layer across a crash (proofs/README.md, "Not done", item 1).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceGcBound (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; _∨_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.List.Base using ([])
open import Data.Nat.Base using (zero; suc; _+_; _*_; _<_; _≤_; z≤n; s≤s)
open import Data.Nat.Properties
  using (≤-refl; ≤-trans; ≤-step; n<1+n; ≤∧≢⇒<; <-irrefl; +-suc; +-comm; +-mono-≤; +-monoʳ-≤; +-cancelʳ-≤; +-monoˡ-≤; m≤m+n; *-monoˡ-≤; +-identityʳ)
  renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst; subst₂)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)
open import Relation.Nullary using (¬_; yes; no)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (St; gcnt; inv; ers; opt; optP; emitT; wr0; rl0; rlX; Valid; okP; _[_≔_])
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (konsS; konsPg; optL)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; ues; ⟪_,_⟫)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su; gh; ⟦_,_⟧; ghostN)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (okX)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX; konsU; lzS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb
  using (stX; EsRunM; Place; Alloc; BXone; module OPX; one; _∷_)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; own; wp; ab; berase; balloc; owners; AllocOK; OwnLoc; upd-self; upd-ne)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (_∈_)
open import SCFTL.Impl.SpaceUsed using (b2n)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; us; es; vi; cv; gn; Abs; module Abs; t→¬f; nothing≢just; vc-pos)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone; qd; Guard; guard-open; guard-unc; guard-moved;
         Run; module Run; Fresh; module Fresh; Retired; module Retired; LInv; ri-of; step-inv; G0; Start; module Start; start-inv;
         layer-inv)
open import SCFTL.Impl.SpaceQueued Data d0 amax wmax kmax umax _≟D_ kc zb
  using (QX; px-queued; run-queued; mem-own; place-other; Apart; apart-at; Taken; taken-run; taken-ret; LayerRel; cfg; step; einv-star)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb using (vc)
open import SCFTL.Impl.SpaceLayerStart Data d0 amax wmax kmax umax _≟D_ kc zb using (new-start)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb using (FreshAbove; fresh-ok; fresh-rec)
import SCFTL.Impl.Space as Spc
import SCFTL.Spec Data d0 amax wmax as Sp0
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module PXm = SB.Model PX

------------------------------------------------------------------------
-- How each operation of PX moves P's relocation count

private
  optP-gcnt : ∀ f s → gcnt (optP f s) ≡ gcnt s
  optP-gcnt true  s = refl
  optP-gcnt false s = refl

  opt-gcnt : ∀ f1 f2 s → gcnt (opt f1 f2 s) ≡ gcnt s
  opt-gcnt f1 true  s = optP-gcnt f1 s
  opt-gcnt f1 false s = optP-gcnt f1 s

  konsS-gcnt : ∀ s → gcnt (konsS s) ≡ gcnt s
  konsS-gcnt s with konsPg s
  ... | nothing = refl
  ... | just _  = refl

  optL-gcnt : ∀ f1 f2 s → gcnt (optL f1 f2 s) ≡ gcnt s
  optL-gcnt f1 true  s = trans (konsS-gcnt (optP f1 s)) (optP-gcnt f1 s)
  optL-gcnt f1 false s = optP-gcnt f1 s

  -- every commit path of P empties the count
  flushP-gcnt : ∀ {s s'} → okP (Sp0.use Sp0.flush) s s' → gcnt s' ≡ 0
  flushP-gcnt (inj₁ refl) = refl
  flushP-gcnt (inj₂ (inj₁ refl)) = refl
  flushP-gcnt (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) = refl
  flushP-gcnt (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) = refl
  flushP-gcnt (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) = refl
  flushP-gcnt (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) = refl

gx-w : ∀ a d {X X'} → PXm.ok (SB.use (SB.reg (SB.op (SB.w a d)))) X X' → gcnt (stX X') ≡ gcnt (stX X)
gx-w a d {false , S} (inj₁ (refl , S0 , refl , ((inj₁ (_ , f1 , f2 , e) , ue) , _))) =
  trans (cong gcnt e) (opt-gcnt f1 f2 (wr0 a d (st (su S))))
gx-w a d {false , S} (inj₁ (refl , S0 , refl , ((inj₂ (_ , e) , ue) , _))) = cong gcnt e
gx-w a d {true , S} (inj₁ (refl , S0 , () , _))
gx-w a d {b , S} (inj₂ (refl , eu , s' , refl , inj₁ (_ , f1 , f2 , refl))) = optL-gcnt f1 f2 (wr0 a d (st (su S)))
gx-w a d {b , S} (inj₂ (refl , eu , s' , refl , inj₂ (_ , refl))) = refl

-- a relocation raises the count by one, or is P's step that changes
-- nothing (the count past kmax)
gx-rl : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.rl))) X X' → gcnt (stX X') ≡ suc (gcnt (stX X)) ⊎ stX X' ≡ stX X
gx-rl {false , S} (inj₁ (refl , S0 , refl , ((inj₁ (_ , q , _ , inj₁ (_ , f1 , f2 , e)) , ue) , _))) =
  inj₁ (trans (cong gcnt e) (opt-gcnt f1 f2 (rl0 q (st (su S)))))
gx-rl {false , S} (inj₁ (refl , S0 , refl , ((inj₁ (_ , q , _ , inj₂ (_ , e)) , ue) , _))) = inj₁ (cong gcnt e)
gx-rl {false , S} (inj₁ (refl , S0 , refl , ((inj₂ (_ , e) , ue) , _))) = inj₂ e
gx-rl {true , S} (inj₁ (refl , S0 , () , _))
gx-rl {b , S} (inj₂ (refl , eu , s' , refl , inj₁ (_ , q , _ , inj₁ (_ , f1 , f2 , refl)))) =
  inj₁ (optL-gcnt f1 f2 (rl0 q (st (su S))))
gx-rl {b , S} (inj₂ (refl , eu , s' , refl , inj₁ (_ , q , _ , inj₂ (_ , refl)))) = inj₁ refl
gx-rl {b , S} (inj₂ (refl , eu , s' , refl , inj₂ (_ , refl))) = inj₂ refl

gx-sy : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.sy))) X X' → gcnt (stX X') ≡ gcnt (stX X)
gx-sy {false , S} (inj₁ (refl , .S , refl , inj₁ (r , _ , e , _))) = cong (λ z → gcnt (st z)) e
gx-sy {false , S} (inj₁ (refl , .S , refl , inj₂ (xs , ys , l , r , ex , _ , _ , e , _))) = cong (λ z → gcnt (st z)) e
gx-sy {true , S} (inj₁ (refl , S0 , () , _))
gx-sy (inj₂ (refl , _ , s' , _ , ()))

private
  gx-bar-PU : ∀ {S S'} → okX (SB.use (SB.reg SB.barrier)) S S' → gcnt (st (su S')) ≡ 0
  gx-bar-PU (inj₁ (_ , e) , _) = cong (λ z → gcnt (st z)) e
  gx-bar-PU (inj₂ (inj₁ e) , _) = cong (λ z → gcnt (st z)) e
  gx-bar-PU (inj₂ (inj₂ e) , _) = cong (λ z → gcnt (st z)) e

gx-barrier : ∀ {X X'} → PXm.ok (SB.use (SB.reg SB.barrier)) X X' → gcnt (stX X') ≡ 0
gx-barrier {false , S} {_ , S'} (inj₁ (refl , .S , refl , o)) = gx-bar-PU {S} {S'} o
gx-barrier {true , S} {_ , S'} (inj₁ (refl , _ , refl , o)) = gx-bar-PU {konsU S} {S'} o
gx-barrier (inj₂ (refl , _ , s' , _ , ()))

gx-flush : ∀ {X X'} → PXm.ok (SB.use SB.flush) X X' → gcnt (stX X') ≡ 0
gx-flush {false , S} (inj₁ (_ , _ , refl , inj₁ (inj₁ e , _))) = cong (λ z → gcnt (st z)) e
gx-flush {false , S} (inj₁ (_ , _ , refl , inj₁ (inj₂ e , _))) = cong (λ z → gcnt (st z)) e
gx-flush {false , S} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₁ e) , _))) = cong (λ z → gcnt (st z)) e
gx-flush {false , S} (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₂ e) , _))) = cong (λ z → gcnt (st z)) e
gx-flush {true , S} (inj₁ (_ , _ , () , _))
gx-flush {b , S} (inj₂ (refl , eu , s' , refl , inj₁ o)) = flushP-gcnt o
gx-flush {b , S} (inj₂ (refl , eu , s' , refl , inj₂ (M , _ , refl))) = refl

-- a block erase: P's erase of each page keeps the count
gx-esrun : ∀ {X ps X'} → EsRunM X ps X' → gcnt (stX X') ≡ gcnt (stX X)
gx-esrun (one (_ , e)) = cong gcnt e
gx-esrun (_∷_ (_ , e) rn) = trans (gx-esrun rn) (cong gcnt e)

------------------------------------------------------------------------
-- The pages of a block GC has been through

-- a physical page's owner on one of P's queues (1) or not (0)
qdAt : St → Maybe ℕ → ℕ
qdAt s nothing  = 0
qdAt s (just p) = b2n (qd s p)

-- block k's pages below offset n on one of P's queues
cntQ : St → BL → ℕ → ℕ → ℕ
cntQ s bl k zero    = 0
cntQ s bl k (suc n) = qdAt s (own bl k n) + cntQ s bl k n

done : XS → BL → ℕ → ℕ
done X bl k = cntQ (stX X) bl k (wp bl k)

private
  qdAt≤1 : ∀ s m → qdAt s m ≤ 1
  qdAt≤1 s nothing = z≤n
  qdAt≤1 s (just p) with qd s p
  ... | true  = ≤-refl
  ... | false = z≤n

  -- a page queued before is queued after
  at-mono : ∀ s s' m → (∀ p → m ≡ just p → qd s p ≡ true → qd s' p ≡ true) → qdAt s m ≤ qdAt s' m
  at-mono s s' nothing f = z≤n
  at-mono s s' (just p) f with qd s p in e
  ... | false = z≤n
  ... | true  = subst (λ b → 1 ≤ b2n b) (sym (f p refl e)) ≤-refl

cnt≤ : ∀ s bl k n → cntQ s bl k n ≤ n
cnt≤ s bl k zero    = z≤n
cnt≤ s bl k (suc n) = +-mono-≤ (qdAt≤1 s (own bl k n)) (cnt≤ s bl k n)

-- a page below n on neither queue: the count misses it
cnt< : ∀ s bl k n o p → o < n → own bl k o ≡ just p → qd s p ≡ false → suc (cntQ s bl k n) ≤ n
cnt< s bl k (suc n) o p (s≤s le) e f with o ≟ℕ n
... | yes refl = subst (λ x → suc (x + cntQ s bl k n) ≤ suc n) (sym (trans (cong (qdAt s) e) (cong b2n f)))
                       (s≤s (cnt≤ s bl k n))
... | no ne = subst (_≤ suc n) (+-suc (qdAt s (own bl k n)) (cntQ s bl k n))
                    (+-mono-≤ (qdAt≤1 s (own bl k n)) (cnt< s bl k n o p (≤∧≢⇒< le ne) e f))

-- the same pages, each queued one still queued: the count does not fall
cnt-mono : ∀ s s' bl bl' k n → (∀ o → o < n → own bl' k o ≡ own bl k o) →
           (∀ o p → o < n → own bl k o ≡ just p → qd s p ≡ true → qd s' p ≡ true) →
           cntQ s bl k n ≤ cntQ s' bl' k n
cnt-mono s s' bl bl' k zero    eo q = z≤n
cnt-mono s s' bl bl' k (suc n) eo q =
  +-mono-≤ (subst (λ m → qdAt s (own bl k n) ≤ qdAt s' m) (sym (eo n (n<1+n n)))
                  (at-mono s s' (own bl k n) (λ p e → q n p (n<1+n n) e)))
           (cnt-mono s s' bl bl' k n (λ o lt → eo o (≤-step lt)) (λ o p lt → q o p (≤-step lt)))

-- ... and one more queued: it rises
cnt-inc : ∀ s s' bl bl' k n o p → (∀ o → o < n → own bl' k o ≡ own bl k o) →
          (∀ o p → o < n → own bl k o ≡ just p → qd s p ≡ true → qd s' p ≡ true) →
          o < n → own bl k o ≡ just p → qd s p ≡ false → qd s' p ≡ true →
          suc (cntQ s bl k n) ≤ cntQ s' bl' k n
cnt-inc s s' bl bl' k (suc n) o p eo q (s≤s le) e f t with o ≟ℕ n
... | yes refl =
  subst₂ (λ x y → suc (x + cntQ s bl k n) ≤ y + cntQ s' bl' k n)
         (sym (trans (cong (qdAt s) e) (cong b2n f)))
         (sym (trans (cong (qdAt s') (trans (eo o (n<1+n o)) e)) (cong b2n t)))
         (s≤s (cnt-mono s s' bl bl' k o (λ o′ lt → eo o′ (≤-step lt)) (λ o′ p′ lt → q o′ p′ (≤-step lt))))
... | no ne =
  subst (_≤ qdAt s' (own bl' k n) + cntQ s' bl' k n) (+-suc (qdAt s (own bl k n)) (cntQ s bl k n))
        (+-mono-≤ (subst (λ m → qdAt s (own bl k n) ≤ qdAt s' m) (sym (eo n (n<1+n n)))
                         (at-mono s s' (own bl k n) (λ p′ e′ → q n p′ (n<1+n n) e′)))
                  (cnt-inc s s' bl bl' k n o p (λ o′ lt → eo o′ (≤-step lt)) (λ o′ p′ lt → q o′ p′ (≤-step lt))
                           (≤∧≢⇒< le ne) e f t))

------------------------------------------------------------------------
-- The budget invariant

zOf : Maybe ℕ → ℕ
zOf nothing  = 0
zOf (just _) = Z

dOf : XS → BL → Maybe ℕ → ℕ
dOf X bl nothing  = 0
dOf X bl (just k) = done X bl k

-- P's relocations this epoch: at most Z for each victim taken before the
-- current one, and the current one's pages GC has been through
Bnd : Gh → XS → BL → Set
Bnd G X bl = gcnt (stX X) + zOf (cv G) ≤ gn G * Z + dOf X bl (cv G)

GB : Spc.Config → LS → Set
GB c (G , X , bl) = gn G ≤ Spc.K c × (∀ k → wp bl k ≤ Z) × Bnd G X bl

-- a page on neither queue is not invalid; an invalid page is on one
qd-inv : ∀ s p → qd s p ≡ false → inv s p ≡ false
qd-inv s p e with inv s p
... | true  = e
... | false = refl

inv-qd : ∀ s p → inv s p ≡ true → qd s p ≡ true
inv-qd s p e rewrite e = refl

-- a block's count over the same pages, with P's queues only growing
done-keep : ∀ {X X' bl bl' j} → wp bl' j ≡ wp bl j → (∀ o → own bl' j o ≡ own bl j o) →
            (∀ o p → o < wp bl j → own bl j o ≡ just p → qd (stX X) p ≡ true → qd (stX X') p ≡ true) →
            done X bl j ≤ done X' bl' j
done-keep {X} {X'} {bl} {bl'} {j} ew eo q =
  subst (λ n → cntQ (stX X) bl j (wp bl j) ≤ cntQ (stX X') bl' j n) (sym ew)
        (cnt-mono (stX X) (stX X') bl bl' j (wp bl j) (λ o _ → eo o) q)

-- every write pointer within its block: an allocation takes a block
-- below Z and leaves the others as they were (SpaceRecGc: across a
-- crash too), as a placement does; an erase sets one to 0
alloc-wpZ : ∀ {s bl bl'} → Alloc s bl bl' → (∀ k → wp bl k ≤ Z) → ∀ k → wp bl' k ≤ Z
alloc-wpZ {bl = bl} (k , (_ , wlt , _) , refl) wz j with j ≟ℕ k
... | yes refl = subst (_≤ Z) (sym (upd-self (wp bl) j _)) wlt
... | no ne    = subst (_≤ Z) (sym (upd-ne (wp bl) j k _ ne)) (wz j)

place-wpZ : ∀ {X X' bl bl'} → Place X X' bl bl' → (∀ k → wp bl k ≤ Z) → ∀ k → wp bl' k ≤ Z
place-wpZ {X} (inj₁ (_ , al)) = alloc-wpZ {stX X} al
place-wpZ (inj₂ (_ , refl)) wz = wz

erase-wpZ : ∀ {bl} k → (∀ j → wp bl j ≤ Z) → ∀ j → wp (berase k bl) j ≤ Z
erase-wpZ {bl} k wz j with j ≟ℕ k
... | yes refl = subst (_≤ Z) (sym (upd-self (wp bl) j 0)) z≤n
... | no ne    = subst (_≤ Z) (sym (upd-ne (wp bl) j k 0 ne)) (wz j)

private
  dOf-mono : ∀ {X X' bl bl'} m → (∀ j → m ≡ just j → done X bl j ≤ done X' bl' j) → dOf X bl m ≤ dOf X' bl' m
  dOf-mono nothing  f = z≤n
  dOf-mono (just j) f = f j refl

  bnd-keep : ∀ {G G' X X' bl bl'} → gcnt (stX X') ≡ gcnt (stX X) → cv G' ≡ cv G → gn G' ≡ gn G →
             (∀ j → cv G ≡ just j → done X bl j ≤ done X' bl' j) → Bnd G X bl → Bnd G' X' bl'
  bnd-keep {G} {G'} {X} {X'} {bl} {bl'} eg ec en f b rewrite eg | ec | en =
    ≤-trans b (+-monoʳ-≤ (gn G * Z) (dOf-mono {X} {X'} {bl} {bl'} (cv G) f))


  just-inj : ∀ {a b : ℕ} → just a ≡ just b → a ≡ b
  just-inj refl = refl

  -- a write: the count kept, the victim's pages where they were
  gb-place : ∀ {G G' X X' bl bl'} → Guard X G bl bl' → Apart G X bl (λ j → cv G ≡ just j) →
             gcnt (stX X') ≡ gcnt (stX X) → cv G' ≡ cv G → gn G' ≡ gn G → QX X X' → Place X X' bl bl' →
             (∀ k → wp bl k ≤ Z) × Bnd G X bl → (∀ k → wp bl' k ≤ Z) × Bnd G' X' bl'
  gb-place {G} {G'} {X} {X'} {bl} {bl'} gd cp eg ec en q pl (wz , b) =
    place-wpZ {X} {X'} {bl} {bl'} pl wz ,
    bnd-keep {G} {G'} {X} {X'} {bl} {bl'} eg ec en
      (λ j cj → let P = place-other {X} {X'} {bl} {bl'} {j} pl (apart-at {G} {X} {bl} {bl'} gd cp j cj) in
                done-keep {X} {X'} {bl} {bl'} {j} (proj₁ P) (proj₂ P) (λ o p _ _ x → q p x)) b

  -- a relocation of a page of the victim GC has not been through: the
  -- count and the victim's pages on the queues both one up
  gb-walk : ∀ {G G' X X' bl bl' k} → Guard X G bl bl' → Apart G X bl (λ j → cv G ≡ just j) →
            cv G ≡ just k → cv G' ≡ cv G → gn G' ≡ gn G →
            PXm.ok (SB.use (SB.reg (SB.op SB.rl))) X X' → Place X X' bl bl' →
            (Σ ℕ λ o → Σ ℕ λ p → o < wp bl k × own bl k o ≡ just p × qd (stX X) p ≡ false × inv (stX X') p ≡ true) →
            (∀ k → wp bl k ≤ Z) × Bnd G X bl → (∀ k → wp bl' k ≤ Z) × Bnd G' X' bl'
  gb-walk {G} {G'} {X} {X'} {bl} {bl'} {k} gd cp cvk ec en o pl (ow , p , lt , eo , qf , it) (wz , b) =
    place-wpZ {X} {X'} {bl} {bl'} pl wz , bnd
    where
    P = place-other {X} {X'} {bl} {bl'} {k} pl (apart-at {G} {X} {bl} {bl'} gd cp k cvk)
    q = px-queued _ {X} {X'} (λ ()) o
    eg : gcnt (stX X') ≡ suc (gcnt (stX X))
    eg with gx-rl {X} {X'} o
    ... | inj₁ e = e
    ... | inj₂ e = ⊥-elim (t→¬f (trans (sym (cong (λ s → inv s p) e)) it) (qd-inv (stX X) p qf))
    inc : suc (done X bl k) ≤ done X' bl' k
    inc = subst (λ n → suc (cntQ (stX X) bl k (wp bl k)) ≤ cntQ (stX X') bl' k n) (sym (proj₁ P))
            (cnt-inc (stX X) (stX X') bl bl' k (wp bl k) ow p (λ o _ → proj₂ P o) (λ o′ p′ _ _ x → q p′ x)
                     lt eo qf (inv-qd (stX X') p it))
    b′ : gcnt (stX X) + Z ≤ gn G * Z + done X bl k
    b′ = subst (λ m → gcnt (stX X) + zOf m ≤ gn G * Z + dOf X bl m) cvk b
    bnd : Bnd G' X' bl'
    bnd rewrite eg | ec | en | cvk =
      ≤-trans (s≤s b′) (subst (_≤ gn G * Z + done X' bl' k) (+-suc (gn G * Z) (done X bl k)) (+-monoʳ-≤ (gn G * Z) inc))

-- every step of the layer keeps the budget invariant, given three facts
-- of the state it steps from: the current victim is a victim, an
-- erasable block none, and no placement takes a victim or an erasable
-- block; and BXone's `OwnLoc` (a page is placed in one block only)
gb-core : ∀ {c G X bl s'} → (∀ j → cv G ≡ just j → vi G j ≡ true) → (∀ k → es G k ≡ true → vi G k ≡ false) →
          Apart G X bl (Taken G) → OwnLoc bl →
          GB c (G , X , bl) → LStep c (G , X , bl) s' → GB c s'
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , I) (lw {X' = X'} {bl' = bl'} {a} {dd} (o , pl) stay nocv nn ok) =
  gk , gb-place {G} {G} {X} {X'} {bl} {bl'} (guard-open {X} {G} {bl} ok) (λ j cj → tk j (inj₂ (cvv j cj))) (gx-w a dd {X} {X'} o) refl refl
         (px-queued _ {X} {X'} (λ ()) o) pl I
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , I) (lwa {X' = X'} {bl' = bl'} {a} {dd} (o , pl) moved kP full nocv nn uncl) =
  gk , gb-place {G} {record G { us = us G [ ab bl ≔ true ] }} {X} {X'} {bl} {bl'} (guard-unc {X} {G} {bl} uncl) (λ j cj → tk j (inj₂ (cvv j cj))) (gx-w a dd {X} {X'} o) refl refl
         (px-queued _ {X} {X'} (λ ()) o) pl I
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , I) (lwr {X' = X'} {bl' = bl'} {a} {dd} (o , pl) moved kP cls nocv nn) =
  gk , gb-place {G} {G} {X} {X'} {bl} {bl'} (guard-moved {X} {G} {bl} moved) (λ j cj → tk j (inj₂ (cvv j cj))) (gx-w a dd {X} {X'} o) refl refl
         (px-queued _ {X} {X'} (λ ()) o) pl I
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , wz , b) (lret full uncl frk kP) = gk , wz , b
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , wz , b) (lfl {X' = X'} (o , refl) nocv nn) =
  z≤n , wz , bnd
  where
  bnd : gcnt (stX X') + zOf (cv G) ≤ 0 + dOf X' bl (cv G)
  bnd rewrite gx-flush {X} {X'} o | nocv = z≤n
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , wz , b) (lbar {X' = X'} (o , refl) nocv nn) =
  z≤n , wz , bnd
  where
  bnd : gcnt (stX X') + zOf (cv G) ≤ 0 + dOf X' bl (cv G)
  bnd rewrite gx-barrier {X} {X'} o | nocv = z≤n
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , wz , b) (lsy {X' = X'} (o , refl)) =
  gk , wz , bnd-keep {G} {G} {X} {X'} {bl} {bl} (gx-sy {X} {X'} o) refl refl
              (λ j _ → done-keep {X} {X'} {bl} {bl} {j} refl (λ _ → refl) (λ o′ p _ _ x → px-queued _ {X} {X'} (λ ()) o p x)) b
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , wz , b) (lera {X' = X'} (k , rn , refl) esk kP) =
  gk , erase-wpZ {bl} k wz , bnd-keep {G} {record G { es = es G [ k ≔ false ] }} {X} {X'} {bl} {berase k bl} (gx-esrun rn) refl refl keep b
  where
  keep : ∀ j → cv G ≡ just j → done X bl j ≤ done X' (berase k bl) j
  keep j cj = done-keep {X} {X'} {bl} {berase k bl} {j} (upd-ne (wp bl) j k 0 ne) (λ _ → refl)
                (λ o p _ e x → run-queued rn p (off o p e) x)
    where
    ne : j ≢ k
    ne refl = t→¬f (cvv j cj) (esv j esk)
    off : ∀ o p → own bl j o ≡ just p → ¬ (p ∈ owners bl k)
    off o p e i with mem-own bl k (wp bl k) p i
    ... | o′ , _ , e′ = ne (cong proj₁ (trans (sym (ol j o p e)) (ol k o′ p e′)))
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , wz , b) (lgcm {k = k} nocv usk kP gn<K uL vN) =
  gn<K , wz , bnd
  where
  b0 : gcnt (stX X) ≤ gn G * Z
  b0 = subst₂ _≤_ (+-identityʳ (gcnt (stX X))) (+-identityʳ (gn G * Z))
         (subst (λ m → gcnt (stX X) + zOf m ≤ gn G * Z + dOf X bl m) nocv b)
  bnd : gcnt (stX X) + Z ≤ (Z + gn G * Z) + done X bl k
  bnd = ≤-trans (subst (_≤ Z + gn G * Z) (+-comm Z (gcnt (stX X))) (+-monoʳ-≤ Z b0))
                (m≤m+n (Z + gn G * Z) (done X bl k))
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , I) (lrl {X' = X'} {bl' = bl'} {k} cvk (o , pl) stay pol w ok) =
  gk , gb-walk {G} {G} {X} {X'} {bl} {bl'} {k} (guard-open {X} {G} {bl} ok) (λ j cj → tk j (inj₂ (cvv j cj))) cvk refl refl o pl w I
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , I) (lrla {X' = X'} {bl' = bl'} {k} cvk (o , pl) moved kP full pol w uncl) =
  gk , gb-walk {G} {record G { us = us G [ ab bl ≔ true ] }} {X} {X'} {bl} {bl'} {k} (guard-unc {X} {G} {bl} uncl) (λ j cj → tk j (inj₂ (cvv j cj))) cvk refl refl o pl w I
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , I) (lrlr {X' = X'} {bl' = bl'} {k} cvk (o , pl) moved kP pol w cls) =
  gk , gb-walk {G} {G} {X} {X'} {bl} {bl'} {k} (guard-moved {X} {G} {bl} moved) (λ j cj → tk j (inj₂ (cvv j cj))) cvk refl refl o pl w I
gb-core {c} {G} {X} {bl} cvv esv tk ol (gk , wz , b) (ldone {k = k} cvk z rel) =
  gk , wz , subst₂ _≤_ (sym (+-identityʳ (gcnt (stX X)))) (sym (+-identityʳ (gn G * Z))) b0
  where
  b′ : gcnt (stX X) + Z ≤ gn G * Z + done X bl k
  b′ = subst (λ m → gcnt (stX X) + zOf m ≤ gn G * Z + dOf X bl m) cvk b
  b0 : gcnt (stX X) ≤ gn G * Z
  b0 = +-cancelʳ-≤ (gcnt (stX X)) (gn G * Z)
         (≤-trans b′ (+-monoʳ-≤ (gn G * Z) (≤-trans (cnt≤ (stX X) bl k (wp bl k)) (wz k))))

gb-step : ∀ {c s s'} → LInv c s → GB c s → LStep c s s' → GB c s'
gb-step {c} {G , X , bl} (inj₁ F) =
  gb-core (λ j e → ⊥-elim (nothing≢just (trans (sym (Fresh.noCv F)) e))) (λ k e → t→¬f e (Fresh.noEs F k))
    (λ j tj → ⊥-elim (none tj)) (proj₂ (Fresh.ri F))
  where
  none : ∀ {j} → Taken G j → ⊥
  none {j} (inj₁ e) = t→¬f e (Fresh.noEs F j)
  none {j} (inj₂ v) = t→¬f v (Fresh.noVi F j)
gb-step {c} {G , X , bl} (inj₂ (inj₁ R)) =
  gb-core (Abs.cvV (Run.abs R)) (Abs.esV (Run.abs R)) (taken-run R) (proj₂ (Run.ri R))
gb-step {c} {G , X , bl} (inj₂ (inj₂ Rt)) =
  gb-core (Abs.cvV (Retired.abs Rt)) (Abs.esV (Retired.abs Rt)) (taken-ret Rt) (proj₂ (Retired.ri Rt))

-- the first recovery of a new disk: no victim, no relocation, every
-- block at write pointer 0
gb-start : ∀ {c X bl} → Start c X bl → GB c (G0 , X , bl)
gb-start {c} {X} {bl} st =
  z≤n , (λ k → subst (_≤ Z) (sym (Start.allWp st k)) z≤n) ,
  subst (λ g → g + 0 ≤ 0) (sym (Start.gc0 st)) z≤n

module _ {c : Spc.Config} (eL : Spc.L c ≡ suc amax) (eW : Spc.W c ≡ suc wmax) (eS : Spc.S c ≡ Z) where

  gb-star : ∀ {s s'} → LInv c s → GB c s → Star (LStep c) s s' → GB c s'
  gb-star i B ε        = B
  gb-star i B (st ◅ r) = gb-star (step-inv eL eW eS i st) (gb-step i B st) r

------------------------------------------------------------------------
-- The budget

-- a state of the invariant where GC moves victim k, a page of which is
-- on neither of P's queues: with K victims of Z pages within kmax + 1
-- relocations, P's relocation guard holds
gc-budget : ∀ {c G X bl k o p} → Spc.K c * Z ≤ suc kmax → GB c (G , X , bl) → cv G ≡ just k →
            o < wp bl k → own bl k o ≡ just p → qd (stX X) p ≡ false → gcnt (stX X) ≤ kmax
gc-budget {c} {G} {X} {bl} {k} {o} {p} KZ (gk , wz , b) cvk lt e f = pred≤ (≤-trans lt1 (≤-trans (*-monoˡ-≤ Z gk) KZ))
  where
  b′ : gcnt (stX X) + Z ≤ gn G * Z + done X bl k
  b′ = subst (λ m → gcnt (stX X) + zOf m ≤ gn G * Z + dOf X bl m) cvk b
  -- the victim's count misses the page, so it is below Z
  dz : suc (done X bl k) ≤ Z
  dz = ≤-trans (cnt< (stX X) bl k (wp bl k) o p lt e f) (wz k)
  lt1 : suc (gcnt (stX X)) ≤ gn G * Z
  lt1 = +-cancelʳ-≤ (suc (gcnt (stX X))) (gn G * Z)
          (≤-trans (s≤s b′) (subst (_≤ gn G * Z + Z) (+-suc (gn G * Z) (done X bl k)) (+-monoʳ-≤ (gn G * Z) dz)))
  pred≤ : ∀ {m n} → suc m ≤ suc n → m ≤ n
  pred≤ (s≤s le) = le

-- **in every state the layer reaches from the first recovery of a new
-- disk, while the victim GC moves holds a page on neither of P's queues,
-- P's relocation guard holds** (for a configuration with K · Z ≤ kmax + 1)
layer-budget : ∀ {c X bl G X' bl' k o p} → Spc.L c ≡ suc amax → Spc.W c ≡ suc wmax → Spc.S c ≡ Z →
               Spc.K c * Z ≤ suc kmax → Start c X bl → Star (LStep c) (G0 , X , bl) (G , X' , bl') →
               cv G ≡ just k → o < wp bl' k → own bl' k o ≡ just p → qd (stX X') p ≡ false → gcnt (stX X') ≤ kmax
layer-budget {c} {X} {bl} {G} {X'} {bl'} eL eW eS KZ st r = gc-budget {c} {G} {X'} {bl'} KZ (gb-star eL eW eS (start-inv st) (gb-start st) r)

-- the same as one statement about a layer (mutant 53,
-- SCFTL.Mutants.LayerRelocatesAnyPage, is a layer without it)
LayerBudget : LayerRel → Set
LayerBudget L = ∀ {X bl G X' bl' k o p} → Start (cfg L) X bl → Star (step L) (G0 , X , bl) (G , X' , bl') →
                cv G ≡ just k → o < wp bl' k → own bl' k o ≡ just p → qd (stX X') p ≡ false → gcnt (stX X') ≤ kmax

code-budget : ∀ c → Spc.L c ≡ suc amax → Spc.W c ≡ suc wmax → Spc.S c ≡ Z → Spc.K c * Z ≤ suc kmax →
              LayerBudget (record { cfg = c ; step = LStep c })
code-budget c eL eW eS KZ st r = layer-budget {c} eL eW eS KZ st r

------------------------------------------------------------------------
-- GC's walk over a victim with no valid sector is never stuck

private
  -- a page of a block with no valid sector holds none
  dead-of : ∀ {X bl k o p} → OwnLoc bl → vc X bl k ≡ 0 → own bl k o ≡ just p → ¬ Valid (stX X) p
  dead-of {X} {bl} {k} {o} {p} ol z e (le , m) =
    no1≤0 (subst (1 ≤_) z (subst (λ j → 1 ≤ vc X bl j) (cong proj₁ (ol k o p e)) (vc-pos X bl _ p le m)))
    where
    no1≤0 : 1 ≤ 0 → ⊥
    no1≤0 ()

-- block k's pages below n: one on neither of P's queues, or every one
-- on one of them
pending? : ∀ s bl k n → (Σ ℕ λ o → Σ ℕ λ p → o < n × own bl k o ≡ just p × qd s p ≡ false)
                      ⊎ (∀ o p → o < n → own bl k o ≡ just p → qd s p ≡ true)
pending? s bl k zero = inj₂ (λ o p ())
pending? s bl k (suc n) with pending? s bl k n
... | inj₁ (o , p , lt , e , f) = inj₁ (o , p , ≤-step lt , e , f)
... | inj₂ all with own bl k n in e
...   | nothing = inj₂ λ o p lt e′ → last all lt (λ eo → nothing≢just (trans (sym e) (subst (λ x → own bl k x ≡ just p) eo e′))) e′
  where
  last : ∀ {o p} → (∀ o p → o < n → own bl k o ≡ just p → qd s p ≡ true) → o < suc n → o ≢ n →
         own bl k o ≡ just p → qd s p ≡ true
  last {o} {p} f (s≤s le) ne e″ = f o p (≤∧≢⇒< le ne) e″
...   | just q with qd s q in f
...     | false = inj₁ (n , q , n<1+n n , e , f)
...     | true  = inj₂ λ o p lt e′ → pick o p lt e′
  where
  pick : ∀ o p → o < suc n → own bl k o ≡ just p → qd s p ≡ true
  pick o p (s≤s le) e′ with o ≟ℕ n
  ... | yes refl = subst (λ x → qd s x ≡ true) (just-inj (trans (sym e) e′)) f
  ... | no ne = all o p (≤∧≢⇒< le ne) e′

-- P's relocation of a dead page of the victim that GC has not been
-- through is a step of the layer (P's `rlX`, in either phase): BXone's
-- relocation, no L2P entry changed, and the victim's count of pages on
-- P's queues one up
dead-walk : ∀ {c G X bl k o p} → Spc.K c * Z ≤ suc kmax → OPX.RI X → GB c (G , X , bl) → FreshAbove X bl →
            cv G ≡ just k → o < wp bl k → own bl k o ≡ just p → qd (stX X) p ≡ false → ¬ Valid (stX X) p →
            Σ XS λ X' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , bl) ×
                        LStep c (G , X , bl) (G , X' , bl) × (∀ j → vc X' bl j ≡ vc X bl j) × suc (done X bl k) ≤ done X' bl k ×
                        proj₁ X' ≡ proj₁ X
dead-walk {c} {G} {false , S} {bl} {k} {o} {p} KZ ri B fa cvk lt eo qf nv =
  X′ , okr , lrl cvk okr refl (λ b _ ne → ⊥-elim (ne refl)) wk (inj₂ refl) , (λ _ → refl) , inc , refl
  where
  s = st (su S)
  u′ = ⟪ rlX p s , ues (su S) ⟫
  X′ : XS
  X′ = false , ⟦ u′ , ghostN u′ ⟧
  gk = gc-budget {c} {G} {false , S} {bl} KZ B cvk lt eo qf
  okr : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) ((false , S) , bl) (X′ , bl)
  okr = inj₁ (refl , S , refl , ((inj₁ (gk , p , fa k o p eo , inj₂ (nv , refl)) , refl) , refl)) , inj₂ (refl , refl)
  wk = o , p , lt , eo , qf , upd-self (inv s) p true
  inc : suc (done (false , S) bl k) ≤ done X′ bl k
  inc = cnt-inc s (rlX p s) bl bl k (wp bl k) o p (λ _ _ → refl)
          (λ o′ p′ _ _ x → px-queued (SB.reg (SB.op SB.rl)) {false , S} {X′} (λ ()) (proj₁ okr) p′ x) lt eo qf (inv-qd (rlX p s) p (upd-self (inv s) p true))
dead-walk {c} {G} {true , S} {bl} {k} {o} {p} KZ ri B fa cvk lt eo qf nv =
  X′ , okr , lrl cvk okr refl (λ b _ ne → ⊥-elim (ne refl)) wk (inj₂ refl) , (λ _ → refl) , inc , refl
  where
  s = st (su S)
  X′ : XS
  X′ = true , lzS (rlX p s) (gh S)
  gk = gc-budget {c} {G} {true , S} {bl} KZ B cvk lt eo qf
  eu : ues (su S) ≡ []
  eu = proj₁ ri
  okr : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) ((true , S) , bl) (X′ , bl)
  okr = inj₂ (refl , eu , rlX p s , refl , inj₁ (gk , p , fa k o p eo , inj₂ (nv , refl))) , inj₂ (refl , refl)
  wk = o , p , lt , eo , qf , upd-self (inv s) p true
  inc : suc (done (true , S) bl k) ≤ done X′ bl k
  inc = cnt-inc s (rlX p s) bl bl k (wp bl k) o p (λ _ _ → refl)
          (λ o′ p′ _ _ x → px-queued (SB.reg (SB.op SB.rl)) {true , S} {X′} (λ ()) (proj₁ okr) p′ x) lt eo qf (inv-qd (rlX p s) p (upd-self (inv s) p true))

module _ {c : Spc.Config} (eL : Spc.L c ≡ suc amax) (eW : Spc.W c ≡ suc wmax) (eS : Spc.S c ≡ Z)
         (KZ : Spc.K c * Z ≤ suc kmax) where

  private
    -- by the victim's pages not yet queued (at most `m`)
    walk : ∀ m {G X bl k} → LInv c (G , X , bl) → GB c (G , X , bl) → FreshAbove X bl → cv G ≡ just k →
           vc X bl k ≡ 0 → wp bl k ≤ done X bl k + m →
           Σ XS λ X' → Star (LStep c) (G , X , bl) (record G { cv = nothing } , X' , bl)
    walk m {G} {X} {bl} {k} L B fa cvk z fuel with pending? (stX X) bl k (wp bl k)
    ... | inj₂ all = X , ldone cvk z all ◅ ε
    ... | inj₁ (o , p , lt , e , f) with dead-walk {c} {G} {X} {bl} {k} {o} {p} KZ (proj₁ (ri-of L)) B fa cvk lt e f
                                           (dead-of {X} {bl} {k} {o} {p} (proj₂ (ri-of L)) z e) | m
    ...   | X1 , ok1 , st1 , vq , inc , _ | zero =
      ⊥-elim (<-irrefl refl (≤-trans (cnt< (stX X) bl k (wp bl k) o p lt e f) (subst (wp bl k ≤_) (+-identityʳ (done X bl k)) fuel)))
    ...   | X1 , ok1 , st1 , vq , inc , _ | suc m′ with
      walk m′ {G} {X1} {bl} {k} (step-inv eL eW eS L st1) (gb-step L B st1)
           (fresh-ok (SB.reg (SB.op SB.rl)) {X} {X1} {bl} {bl} fa ok1) cvk (trans (vq k) z)
           (≤-trans fuel (subst (_≤ done X1 bl k + m′) (sym (+-suc (done X bl k) m′)) (+-monoˡ-≤ m′ inc)))
    ...     | X′ , r = X′ , st1 ◅ r

  -- **a victim with no valid sector: in every state of the layer with
  -- the budget invariant, GC goes through each of its pages (P's `rlX`)
  -- and ends it** — the walk mutant 53 gets stuck in
  dead-victim-ends : ∀ {G X bl k} → LInv c (G , X , bl) → GB c (G , X , bl) → FreshAbove X bl → cv G ≡ just k →
                     vc X bl k ≡ 0 → Σ XS λ X' → Star (LStep c) (G , X , bl) (record G { cv = nothing } , X' , bl)
  dead-victim-ends {G} {X} {bl} {k} L B fa cvk z =
    walk (wp bl k) L B fa cvk z (subst (wp bl k ≤_) (+-comm (wp bl k) (done X bl k)) (m≤m+n (wp bl k) (done X bl k)))

-- so in every state the layer reaches from the first recovery of a new
-- disk where GC moves a victim with no valid sector, the layer can end it
layer-dead-victim-ends : ∀ {c X0 bl0 X1 bl1 G X bl k} → Spc.L c ≡ suc amax → Spc.W c ≡ suc wmax → Spc.S c ≡ Z →
                         Spc.K c * Z ≤ suc kmax →
                         SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Spc.P c →
                         Star (LStep c) (G0 , X1 , bl1) (G , X , bl) → cv G ≡ just k → vc X bl k ≡ 0 →
                         Σ XS λ X' → Star (LStep c) (G , X , bl) (record G { cv = nothing } , X' , bl)
layer-dead-victim-ends {c} {X0} {bl0} {X1} {bl1} eL eW eS KZ new rec abP run cvk z =
  dead-victim-ends eL eW eS KZ (layer-inv eL eW eS st0 run) (gb-star eL eW eS (start-inv st0) (gb-start st0) run)
    (proj₁ (einv-star eL eW eS (start-inv st0) (fresh-rec {X0} {X1} {bl0} {bl1} rec , λ j e → ⊥-elim (t→¬f e refl)) run)) cvk z
  where
  st0 = new-start new rec abP
