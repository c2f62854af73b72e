{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks in the one model: GC's relocation of a
-- valid page is a step of the layer.
--
-- SCFTL.Impl.SpaceGcBound showed P's relocation guard holds while the
-- victim has a page to go, and that a dead page's relocation (P's `rlX`,
-- which places nothing) is a step.  A valid page's relocation (P's
-- `rl0`) places the sector again, so the block layer must allocate a
-- page for it (`AllocOK`: the open block or a free one, below its end,
-- its next physical page erased, P's next page on no physical page).
-- Here:
--
--   `Above`       : above a started block's write pointer no physical page
--                   holds an incarnation (a block's first placement clears
--                   the rest, `act`; an erase sets the pointer to 0);
--                   `above-step`: every step of the layer keeps it,
--                   `above-start`: the start has it;
--   `alloc-ok`    : so the open block with room, and every free block, is
--                   an allocation the block layer allows (its next
--                   physical page reads erased);
--   `Target`      : where the layer's policy lets a relocation go: the
--                   open block with room, or a free block below P once the
--                   open one is full; `target-of`: a block `layer-reloc`
--                   finds, free or the open one with room, gives one;
--   **`valid-walk`** : P's relocation of a valid page of the victim that
--                   GC has not been through, into a target, is a step of
--                   the layer (`lrl` into the open block, `lrla` or
--                   `lrlr` into a free one, by whether the full open block
--                   is in one of the ghost's classes), in either phase;
--                   the victim's count of queued pages one up.
--
-- Not here: an erasable block as the only room (the erase first, in
-- PUSBic's phase SCFTL.Impl.SpaceQueued's `layer-erase`/`synced-erase`),
-- and the whole walk as one run (proofs/README.md, "Not done", item 1).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceGcWalk (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using ([]; _∷_)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (zero; suc; _*_; _<_; _≤_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-refl; <-irrefl; m≤n⇒m<n∨m≡n) renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Nullary using (¬_; yes; no)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (St; l2p; inv; ers; nxt; rl0; p2l; Valid; cur; erased; _[_≔_])
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; ues; ⟪_,_⟫)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su; gh; ⟦_,_⟧; ghostN)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; lzS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; Place; BXone)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; own; wp; ab; fr; loc; act; actB-below; cellOf; phys; berase; balloc; owners; ownersB; Opens; AllocOK; OwnLoc; upd-self; upd-ne)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb using (FreshAbove; fresh-next)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; us; es; vi; cv; Abs; module Abs; FrWp; FromVictim; nothing≢just) renaming (t→¬f to t→¬f′; gn to gn′)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone; qd; Walk; Classed;
         Run; module Run; Fresh; module Fresh; Retired; module Retired; LInv; ri-of; Start; module Start)
open import SCFTL.Impl.SpaceQueued Data d0 amax wmax kmax umax _≟D_ kc zb
  using (QX; px-queued; place-other; taken-run; taken-ret)
open import SCFTL.Impl.SpaceGcBound Data d0 amax wmax kmax umax _≟D_ kc zb
  using (GB; done; cntQ; cnt-inc; inv-qd; gc-budget)
import SCFTL.Impl.Space as Spc
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- Above a started block's write pointer, nothing

Above : BL → Set
Above bl = ∀ k o → 0 < wp bl k → wp bl k ≤ o → own bl k o ≡ nothing

-- a block's physical page at or above its write pointer holds no
-- incarnation once the block is taken (`act`)
act-above : ∀ bl k o → Above bl → wp bl k ≤ o → act bl k o ≡ nothing
act-above bl k o A le with wp bl k in e
... | zero  = refl
... | suc w = A k o (subst (0 <_) (sym e) (s≤s z≤n)) (subst (_≤ o) (sym e) le)

private
  ≤⇒≢ : ∀ {m n} → suc m ≤ n → n ≢ m
  ≤⇒≢ {m} le refl = <-irrefl refl le

above-balloc : ∀ {bl} k n → Above bl → Above (balloc k n bl)
above-balloc {bl} k n A j o pos le with j ≟ℕ k
... | no ne = trans (cong (λ f → f o) (upd-ne (own bl) j k _ ne))
                    (A j o (subst (0 <_) (upd-ne (wp bl) j k _ ne) pos) (subst (_≤ o) (upd-ne (wp bl) j k _ ne) le))
... | yes refl = trans (cong (λ f → f o) (upd-self (own bl) j _))
                       (trans (upd-ne (act bl j) o (wp bl j) (just n) (≤⇒≢ le′)) (act-above bl j o A (≤-trans′ le′)))
  where
  le′ : suc (wp bl j) ≤ o
  le′ = subst (_≤ o) (upd-self (wp bl) j _) le
  ≤-trans′ : ∀ {m n} → suc m ≤ n → m ≤ n
  ≤-trans′ {zero} _ = z≤n
  ≤-trans′ {suc m} (s≤s le) = s≤s (≤-trans′ le)

above-berase : ∀ {bl} k → Above bl → Above (berase k bl)
above-berase {bl} k A j o pos le with j ≟ℕ k
... | yes refl = ⊥-elim (zero< (subst (0 <_) (upd-self (wp bl) j 0) pos))
  where
  zero< : 0 < 0 → ⊥
  zero< ()
... | no ne = A j o (subst (0 <_) (upd-ne (wp bl) j k 0 ne) pos) (subst (_≤ o) (upd-ne (wp bl) j k 0 ne) le)

above-place : ∀ {X X' bl bl'} → Place X X' bl bl' → Above bl → Above bl'
above-place {X} {bl = bl} (inj₁ (_ , k , _ , refl)) A = above-balloc {bl} k (nxt (stX X)) A
above-place (inj₂ (_ , refl)) A = A

above-step : ∀ {c G X bl G' X' bl'} → Above bl → LStep c (G , X , bl) (G' , X' , bl') → Above bl'
above-step {X = X} {X' = X'} A (lw (_ , pl) _ _ _) = above-place {X} {X'} pl A
above-step {X = X} {X' = X'} A (lwa (_ , pl) _ _ _ _ _ _) = above-place {X} {X'} pl A
above-step {X = X} {X' = X'} A (lret _ _ _ _) = A
above-step {X = X} {X' = X'} A (lwr (_ , pl) _ _ _ _ _ _) = above-place {X} {X'} pl A
above-step {X = X} {X' = X'} A (lfl (_ , refl) _ _) = A
above-step {X = X} {X' = X'} A (lbar (_ , refl) _ _) = A
above-step {X = X} {X' = X'} A (lsy (_ , refl)) = A
above-step {bl = bl} A (lera (k , _ , refl) _ _) = above-berase {bl} k A
above-step {X = X} {X' = X'} A (lgcm _ _ _ _ _ _) = A
above-step {X = X} {X' = X'} A (lrl _ (_ , pl) _ _ _) = above-place {X} {X'} pl A
above-step {X = X} {X' = X'} A (lrla _ (_ , pl) _ _ _ _ _ _) = above-place {X} {X'} pl A
above-step {X = X} {X' = X'} A (lrlr _ (_ , pl) _ _ _ _ _ _) = above-place {X} {X'} pl A
above-step {X = X} {X' = X'} A (ldone _ _ _) = A

above-start : ∀ {c X bl} → Start c X bl → Above bl
above-start st k o pos _ = ⊥-elim (zero< (subst (0 <_) (Start.allWp st k) pos))
  where
  zero< : 0 < 0 → ⊥
  zero< ()

-- the open block with room, or a free block: an allocation the block
-- layer allows
alloc-ok : ∀ {X bl k} → FreshAbove X bl → Above bl → Opens bl k → wp bl k < Z → AllocOK (stX X) bl k
alloc-ok {X} {bl} {k} fa A op lt =
  op , lt , cong (λ m → cur (cellOf (phys (stX X)) m)) (act-above bl k (wp bl k) A ≤-refl) , fresh-next {X} {bl} fa

------------------------------------------------------------------------
-- Where a relocation may go

-- the open block with room, or a free block below P once the open one is
-- full (the layer's `lrl`, and `lrla`/`lrlr`)
Target : Spc.Config → BL → ℕ → Set
Target c bl kb = Opens bl kb × wp bl kb < Z × (kb ≡ ab bl ⊎ (kb < Spc.P c × wp bl (ab bl) ≡ Z))

private
  frwp-of : ∀ {c G X bl} → LInv c (G , X , bl) → FrWp bl
  frwp-of (inj₁ F) = Fresh.frwp F
  frwp-of (inj₂ (inj₁ R)) = Run.frwp R
  frwp-of (inj₂ (inj₂ Rt)) = Retired.frwp Rt

  0<Z : 0 < Z
  0<Z = s≤s z≤n

-- a block for the sector that is the open one with room or free below P
-- gives a target
target-of : ∀ {c G X bl} → Spc.S c ≡ Z → LInv c (G , X , bl) → (∀ k → wp bl k ≤ Z) →
            wp bl (ab bl) < Spc.S c ⊎ (Σ ℕ λ k → k < Spc.P c × fr bl k ≡ true) → Σ ℕ λ kb → Target c bl kb
target-of {c} {G} {X} {bl} eS L wz (inj₁ room) = ab bl , inj₁ refl , subst (wp bl (ab bl) <_) eS room , inj₁ refl
target-of {c} {G} {X} {bl} eS L wz (inj₂ (k , kP , frk)) with k ≟ℕ ab bl
... | yes refl = k , inj₁ refl , subst (_< Z) (sym (frwp-of L k frk)) 0<Z , inj₁ refl
... | no ne with m≤n⇒m<n∨m≡n (wz (ab bl))
...   | inj₁ room = ab bl , inj₁ refl , room , inj₁ refl
...   | inj₂ full = k , inj₂ frk , subst (_< Z) (sym (frwp-of L k frk)) 0<Z , inj₂ (kP , full)

------------------------------------------------------------------------
-- The relocation of a valid page is a step

private
  -- the victim is no allocation target
  victim-apart : ∀ {c G X bl k} → LInv c (G , X , bl) → cv G ≡ just k → ∀ kk → AllocOK (stX X) bl kk → kk ≢ k
  victim-apart (inj₁ F) cvk = ⊥-elim (nothing≢just (trans (sym (Fresh.noCv F)) cvk))
  victim-apart {k = k} (inj₂ (inj₁ R)) cvk = taken-run R k (inj₂ (Abs.cvV (Run.abs R) k cvk))
  victim-apart {k = k} (inj₂ (inj₂ Rt)) cvk = taken-ret Rt k (inj₂ (Abs.cvV (Retired.abs Rt) k cvk))

  -- P's `rl0` of a valid page of victim k changes only the entry of the
  -- page's sector, which names a page of k
  fv-rl0 : ∀ {s bl k o p} → OwnLoc bl → own bl k o ≡ just p → Valid s p →
           ∀ b → b ≤ amax → l2p (rl0 p s) b ≢ l2p s b → Σ ℕ λ q → l2p s b ≡ just q × proj₁ (loc bl q) ≡ k
  fv-rl0 {s} {bl} {k} {o} {p} ol eo (le , m) b _ ne with b ≟ℕ p2l s p
  ... | yes refl = p , m , cong proj₁ (ol k o p eo)
  ... | no nb = ⊥-elim (ne (upd-ne (l2p s) b (p2l s p) _ nb))

  -- the layer's step for a relocation into a target: `lrl` into the open
  -- block, else `lrla` or `lrlr` by whether the full open block is in
  -- one of the ghost's classes
  step-of : ∀ {c G X X' bl k kb} → cv G ≡ just k →
            SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , balloc kb (nxt (stX X)) bl) →
            FromVictim k X bl X' → Walk k X bl X' → Target c bl kb →
            Σ Gh λ G' → LStep c (G , X , bl) (G' , X' , balloc kb (nxt (stX X)) bl) × cv G' ≡ cv G
  step-of cvk okr fv wk (_ , _ , inj₁ refl) = _ , lrl cvk okr refl fv wk , refl
  step-of {c} {G} {X} {X'} {bl} {k} {kb} cvk okr fv wk (_ , _ , inj₂ (kP , full)) with kb ≟ℕ ab bl
  ... | yes refl = _ , lrl cvk okr refl fv wk , refl
  ... | no ne with us G (ab bl) in eu | vi G (ab bl) in ev | es G (ab bl) in ee
  ...   | true  | _     | _     = _ , lrlr cvk okr ne kP full fv wk (inj₁ eu) , refl
  ...   | false | true  | _     = _ , lrlr cvk okr ne kP full fv wk (inj₂ (inj₁ ev)) , refl
  ...   | false | false | true  = _ , lrlr cvk okr ne kP full fv wk (inj₂ (inj₂ ee)) , refl
  ...   | false | false | false = _ , lrla cvk okr ne kP full fv wk (eu , ev , ee) , refl

-- **P's relocation of a valid page of the victim that GC has not been
-- through, into a target, is a step of the layer**, in either phase
-- (P's `rl0` with no optional page), and the victim's count of pages on
-- P's queues rises by one
valid-walk : ∀ {c G X bl k o p kb} → Spc.K c * Z ≤ suc kmax → LInv c (G , X , bl) → GB c (G , X , bl) →
             FreshAbove X bl → Above bl → cv G ≡ just k → o < wp bl k → own bl k o ≡ just p →
             qd (stX X) p ≡ false → Valid (stX X) p → Target c bl kb →
             Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' →
               LStep c (G , X , bl) (G' , X' , bl') × cv G' ≡ cv G × suc (done X bl k) ≤ done X' bl' k
valid-walk {c} {G} {false , S} {bl} {k} {o} {p} {kb} KZ L B fa A cvk lt eo qf vp tg =
  proj₁ SO , X′ , balloc kb n bl , proj₁ (proj₂ SO) , proj₂ (proj₂ SO) , inc
  where
  s = st (su S)
  n = nxt s
  u′ = ⟪ rl0 p s , ues (su S) ⟫
  X′ : XS
  X′ = false , ⟦ u′ , ghostN u′ ⟧
  gk = gc-budget {c} {G} {false , S} {bl} KZ B cvk lt eo qf
  aok = alloc-ok {false , S} {bl} {kb} fa A (proj₁ tg) (proj₁ (proj₂ tg))
  okr : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) ((false , S) , bl) (X′ , balloc kb n bl)
  okr = inj₁ (refl , S , refl , ((inj₁ (gk , p , fa k o p eo , inj₁ (vp , false , false , refl)) , refl) , refl)) ,
        inj₁ (refl , kb , aok , refl)
  SO = step-of {c} {G} {false , S} {X′} {bl} {k} {kb} cvk okr (fv-rl0 {s} {bl} {k} {o} {p} (proj₂ (ri-of L)) eo vp)
         (o , p , lt , eo , qf , upd-self (inv s) p true) tg
  P = place-other {false , S} {X′} {bl} {balloc kb n bl} {k} (proj₂ okr) (victim-apart L cvk)
  inc : suc (done (false , S) bl k) ≤ done X′ (balloc kb n bl) k
  inc = subst (λ m → suc (cntQ s bl k (wp bl k)) ≤ cntQ (rl0 p s) (balloc kb n bl) k m) (sym (proj₁ P))
          (cnt-inc s (rl0 p s) bl (balloc kb n bl) k (wp bl k) o p (λ o′ _ → proj₂ P o′)
                   (λ o′ p′ _ _ x → px-queued (SB.reg (SB.op SB.rl)) {false , S} {X′} (λ ()) (proj₁ okr) p′ x)
                   lt eo qf (inv-qd (rl0 p s) p (upd-self (inv s) p true)))
valid-walk {c} {G} {true , S} {bl} {k} {o} {p} {kb} KZ L B fa A cvk lt eo qf vp tg =
  proj₁ SO , X′ , balloc kb n bl , proj₁ (proj₂ SO) , proj₂ (proj₂ SO) , inc
  where
  s = st (su S)
  n = nxt s
  X′ : XS
  X′ = true , lzS (rl0 p s) (gh S)
  gk = gc-budget {c} {G} {true , S} {bl} KZ B cvk lt eo qf
  eu : ues (su S) ≡ []
  eu = proj₁ (proj₁ (ri-of L))
  aok = alloc-ok {true , S} {bl} {kb} fa A (proj₁ tg) (proj₁ (proj₂ tg))
  okr : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) ((true , S) , bl) (X′ , balloc kb n bl)
  okr = inj₂ (refl , eu , rl0 p s , refl , inj₁ (gk , p , fa k o p eo , inj₁ (vp , false , false , refl))) ,
        inj₁ (refl , kb , aok , refl)
  SO = step-of {c} {G} {true , S} {X′} {bl} {k} {kb} cvk okr (fv-rl0 {s} {bl} {k} {o} {p} (proj₂ (ri-of L)) eo vp)
         (o , p , lt , eo , qf , upd-self (inv s) p true) tg
  P = place-other {true , S} {X′} {bl} {balloc kb n bl} {k} (proj₂ okr) (victim-apart L cvk)
  inc : suc (done (true , S) bl k) ≤ done X′ (balloc kb n bl) k
  inc = subst (λ m → suc (cntQ s bl k (wp bl k)) ≤ cntQ (rl0 p s) (balloc kb n bl) k m) (sym (proj₁ P))
          (cnt-inc s (rl0 p s) bl (balloc kb n bl) k (wp bl k) o p (λ o′ _ → proj₂ P o′)
                   (λ o′ p′ _ _ x → px-queued (SB.reg (SB.op SB.rl)) {true , S} {X′} (λ ()) (proj₁ okr) p′ x)
                   lt eo qf (inv-qd (rl0 p s) p (upd-self (inv s) p true)))

------------------------------------------------------------------------
-- Two more facts of the layer's blocks: every page below a write pointer
-- holds an incarnation, and every block in one of the ghost's classes is
-- full

Dense : BL → Set
Dense bl = ∀ k o → o < wp bl k → Σ ℕ λ p → own bl k o ≡ just p

dense-balloc : ∀ {bl} k n → Dense bl → Dense (balloc k n bl)
dense-balloc {bl} k n D j o lt with j ≟ℕ k
... | no ne = subst (λ m → Σ ℕ λ p → m ≡ just p) (sym (cong (λ f → f o) (upd-ne (own bl) j k _ ne)))
                    (D j o (subst (o <_) (upd-ne (wp bl) j k _ ne) lt))
... | yes refl with o ≟ℕ wp bl j
...   | yes refl = n , trans (cong (λ f → f o) (upd-self (own bl) j _)) (upd-self (act bl j) o (just n))
...   | no no′ = subst (λ m → Σ ℕ λ p → m ≡ just p)
                       (sym (trans (cong (λ f → f o) (upd-self (own bl) j _))
                                   (trans (upd-ne (act bl j) o (wp bl j) (just n) no′) (actB-below (wp bl j) (own bl j) o lt′))))
                       (D j o lt′)
  where
  lt″ : o < suc (wp bl j)
  lt″ = subst (o <_) (upd-self (wp bl) j _) lt
  lt′ : o < wp bl j
  lt′ = below lt″ no′
    where
    below : ∀ {o w} → o < suc w → o ≢ w → o < w
    below {zero} {zero} _ ne = ⊥-elim (ne refl)
    below {zero} {suc w} _ _ = s≤s z≤n
    below {suc o} {zero} (s≤s ()) _
    below {suc o} {suc w} (s≤s le) ne = s≤s (below le (λ e → ne (cong suc e)))

dense-berase : ∀ {bl} k → Dense bl → Dense (berase k bl)
dense-berase {bl} k D j o lt with j ≟ℕ k
... | yes refl = ⊥-elim (no< (subst (o <_) (upd-self (wp bl) j 0) lt))
  where
  no< : ∀ {o} → o < 0 → ⊥
  no< ()
... | no ne = D j o (subst (o <_) (upd-ne (wp bl) j k 0 ne) lt)

dense-place : ∀ {X X' bl bl'} → Place X X' bl bl' → Dense bl → Dense bl'
dense-place {X} {bl = bl} (inj₁ (_ , k , _ , refl)) D = dense-balloc {bl} k (nxt (stX X)) D
dense-place (inj₂ (_ , refl)) D = D

dense-step : ∀ {c G X bl G' X' bl'} → Dense bl → LStep c (G , X , bl) (G' , X' , bl') → Dense bl'
dense-step {X = X} {X' = X'} D (lw (_ , pl) _ _ _) = dense-place {X} {X'} pl D
dense-step {X = X} {X' = X'} D (lwa (_ , pl) _ _ _ _ _ _) = dense-place {X} {X'} pl D
dense-step D (lret _ _ _ _) = D
dense-step {X = X} {X' = X'} D (lwr (_ , pl) _ _ _ _ _ _) = dense-place {X} {X'} pl D
dense-step D (lfl (_ , refl) _ _) = D
dense-step D (lbar (_ , refl) _ _) = D
dense-step D (lsy (_ , refl)) = D
dense-step {bl = bl} D (lera (k , _ , refl) _ _) = dense-berase {bl} k D
dense-step D (lgcm _ _ _ _ _ _) = D
dense-step {X = X} {X' = X'} D (lrl _ (_ , pl) _ _ _) = dense-place {X} {X'} pl D
dense-step {X = X} {X' = X'} D (lrla _ (_ , pl) _ _ _ _ _ _) = dense-place {X} {X'} pl D
dense-step {X = X} {X' = X'} D (lrlr _ (_ , pl) _ _ _ _ _ _) = dense-place {X} {X'} pl D
dense-step D (ldone _ _ _) = D

dense-start : ∀ {c X bl} → Start c X bl → Dense bl
dense-start st k o lt = ⊥-elim (no< (subst (o <_) (Start.allWp st k) lt))
  where
  no< : ∀ {o} → o < 0 → ⊥
  no< ()

-- a block in one of the ghost's classes is full
FullC : Gh → BL → Set
FullC G bl = ∀ k → Classed G k → wp bl k ≡ Z

private
  -- a placement takes a block below its end, so never a full one
  full-apart : ∀ {X bl j} → wp bl j ≡ Z → ∀ kb → AllocOK (stX X) bl kb → kb ≢ j
  full-apart {bl = bl} f kb (_ , lt , _) refl = <-irrefl f lt

  fullc-place : ∀ {G X X' bl bl'} → Place X X' bl bl' → FullC G bl → FullC G bl'
  fullc-place {G} {X} {X'} {bl} {bl'} pl F j cj =
    trans (proj₁ (place-other {X} {X'} {bl} {bl'} {j} pl (full-apart {X} {bl} {j} (F j cj)))) (F j cj)

  -- the classes after a block joins the used ones
  cl-us : ∀ {G j k} → Classed (record G { us = us G [ k ≔ true ] }) j → j ≡ k ⊎ Classed G j
  cl-us {G} {j} {k} (inj₁ u) with j ≟ℕ k
  ... | yes e = inj₁ e
  ... | no ne = inj₂ (inj₁ (trans (sym (upd-ne (us G) j k true ne)) u))
  cl-us (inj₂ x) = inj₂ (inj₂ x)

  fullc-us : ∀ {G bl k} → wp bl k ≡ Z → FullC G bl → FullC (record G { us = us G [ k ≔ true ] }) bl
  fullc-us {G} {bl} {k} full F j cj with cl-us {G} {j} {k} cj
  ... | inj₁ refl = full
  ... | inj₂ c = F j c

  ∨-split : ∀ {x y} → (x Data.Bool.Base.∨ y) ≡ true → x ≡ true ⊎ y ≡ true
  ∨-split {true} _ = inj₁ refl
  ∨-split {false} e = inj₂ e

-- every step of the layer keeps it, given that a used block and a victim
-- are not erasable (the abstraction's disjoint classes)
fullc-core : ∀ {c G X bl G' X' bl'} → (∀ k → es G k ≡ true → us G k ≡ false × vi G k ≡ false) →
             FullC G bl → LStep c (G , X , bl) (G' , X' , bl') → FullC G' bl'
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lw (_ , pl) _ _ _) = fullc-place {G} {X} {X'} pl F
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lwa {bl' = bl'} (_ , pl) moved kP full _ _ _) =
  fullc-us {G} {bl'} {ab bl} (trans (proj₁ (place-other {X} {X'} {bl} {bl'} {ab bl} pl (full-apart {X} {bl} {ab bl} full))) full)
    (fullc-place {G} {X} {X'} pl F)
fullc-core {G = G} {X} {bl} ue F (lret full _ _ _) = fullc-us {G} {bl} {ab bl} full F
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lwr (_ , pl) _ _ _ _ _ _) = fullc-place {G} {X} {X'} pl F
fullc-core {G = G} ue F (lfl (_ , refl) _ _) j (inj₁ u) = F j (inj₁ u)
fullc-core {G = G} ue F (lfl (_ , refl) _ _) j (inj₂ (inj₁ ()))
fullc-core {G = G} ue F (lfl (_ , refl) _ _) j (inj₂ (inj₂ e)) with ∨-split {es G j} e
... | inj₁ x = F j (inj₂ (inj₂ x))
... | inj₂ v = F j (inj₂ (inj₁ v))
fullc-core {G = G} ue F (lbar (_ , refl) _ _) j (inj₁ u) = F j (inj₁ u)
fullc-core {G = G} ue F (lbar (_ , refl) _ _) j (inj₂ (inj₁ ()))
fullc-core {G = G} ue F (lbar (_ , refl) _ _) j (inj₂ (inj₂ e)) with ∨-split {es G j} e
... | inj₁ x = F j (inj₂ (inj₂ x))
... | inj₂ v = F j (inj₂ (inj₁ v))
fullc-core ue F (lsy (_ , refl)) = F
fullc-core {G = G} {bl = bl} ue F (lera (k , _ , refl) esk _) j cj with j ≟ℕ k
... | yes refl = ⊥-elim (gone cj)
  where
  gone : Classed (record G { es = es G [ j ≔ false ] }) j → ⊥
  gone (inj₁ u) = t→¬f′ u (proj₁ (ue j esk))
  gone (inj₂ (inj₁ v)) = t→¬f′ v (proj₂ (ue j esk))
  gone (inj₂ (inj₂ e)) = t→¬f′ e (upd-self (es G) j false)
... | no ne = trans (upd-ne (wp bl) j k 0 ne) (F j (back cj))
  where
  back : Classed (record G { es = es G [ k ≔ false ] }) j → Classed G j
  back (inj₁ u) = inj₁ u
  back (inj₂ (inj₁ v)) = inj₂ (inj₁ v)
  back (inj₂ (inj₂ e)) = inj₂ (inj₂ (trans (sym (upd-ne (es G) j k false ne)) e))
fullc-core {G = G} ue F (lgcm {k = k} _ usk _ _ _ _) j cj with j ≟ℕ k
... | yes refl = F j (inj₁ usk)
... | no ne = F j (back cj)
  where
  back : Classed (record G { us = us G [ k ≔ false ] ; vi = vi G [ k ≔ true ] ; cv = just k ; gn = suc (gn′ G) }) j → Classed G j
  back (inj₁ u) = inj₁ (trans (sym (upd-ne (us G) j k false ne)) u)
  back (inj₂ (inj₁ v)) = inj₂ (inj₁ (trans (sym (upd-ne (vi G) j k true ne)) v))
  back (inj₂ (inj₂ e)) = inj₂ (inj₂ e)
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lrl _ (_ , pl) _ _ _) = fullc-place {G} {X} {X'} pl F
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lrla {bl' = bl'} _ (_ , pl) moved kP full _ _ _) =
  fullc-us {G} {bl'} {ab bl} (trans (proj₁ (place-other {X} {X'} {bl} {bl'} {ab bl} pl (full-apart {X} {bl} {ab bl} full))) full)
    (fullc-place {G} {X} {X'} pl F)
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lrlr _ (_ , pl) _ _ _ _ _ _) = fullc-place {G} {X} {X'} pl F
fullc-core ue F (ldone _ _ _) = F

fullc-step : ∀ {c G X bl G' X' bl'} → LInv c (G , X , bl) → FullC G bl → LStep c (G , X , bl) (G' , X' , bl') → FullC G' bl'
fullc-step (inj₁ F′) = fullc-core (λ k e → ⊥-elim (t→¬f′ e (Fresh.noEs F′ k)))
fullc-step (inj₂ (inj₁ R)) = fullc-core (λ k e → ue (Abs.usE (Run.abs R) k) e , Abs.esV (Run.abs R) k e)
  where
  ue : ∀ {u e} → (u ≡ true → e ≡ false) → e ≡ true → u ≡ false
  ue {false} f _ = refl
  ue {true} f e = ⊥-elim (t→¬f′ e (f refl))
fullc-step (inj₂ (inj₂ Rt)) = fullc-core (λ k e → ue (Abs.usE (Retired.abs Rt) k) e , Abs.esV (Retired.abs Rt) k e)
  where
  ue : ∀ {u e} → (u ≡ true → e ≡ false) → e ≡ true → u ≡ false
  ue {false} f _ = refl
  ue {true} f e = ⊥-elim (t→¬f′ e (f refl))

-- a full block has pages to erase
owners-ne : ∀ {bl k} → Dense bl → wp bl k ≡ Z → owners bl k ≢ []
owners-ne {bl} {k} D full e with D k zb (subst (zb <_) (sym full) ≤-refl)
... | p , eo = nil (subst (λ w → ownersB bl k w ≡ []) full e)
  where
  nil : ownersB bl k Z ≢ []
  nil n rewrite eo = cons≢ n
    where
    cons≢ : ∀ {A : Set} {x : A} {xs} → x ∷ xs ≢ []
    cons≢ ()
