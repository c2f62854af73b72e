{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks in the one model: the abstraction of a
-- layer state whose full open block is retired in the ghost only.
--
-- Space retires a full active superblock and opens a free one in one
-- step (`act`), and checks GC before the next write; the code's block
-- layer (BlocksOver) opens a block only when it places a sector in it
-- (`balloc`).  So between the two the layer of SCFTL.Impl.SpaceLayer
-- keeps a state whose open block is full and already counted used in
-- the ghost, while Space has opened a free block (`Opened bl kn`,
-- SpaceSim's `activate`); the block the next placement takes may be any
-- free block.  Here the lemmas that abstraction needs:
--
--   `abs-fr`  : Abs depends on the reusable flags only pointwise;
--   `abs-us`  : ... and on the ghost's used flags only pointwise;
--   `reopen`  : any free block below P may stand for Space's open block
--               (every free block is empty and at write pointer 0);
--   `old-ret` : with no victim pending, every mapped page lies in a used
--               block (the open one Space has is empty).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceSimRetire (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (suc; _≤_; _<_)
open import Data.Nat.Properties using (suc-injective) renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Nullary using (¬_; yes; no)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (l2p; _[_≔_])
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (LocX)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; loc; wp; ab; fr; upd-self; upd-ne)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb using (vc; vc-empty)
open import SCFTL.Impl.SpaceUsed using (b2n; tot; tot-ext; tot-flip; usedL; used-ext)
open import SCFTL.Impl.SpaceData using (StD; freD; vaD; roomD)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; us; es; vi; cv; Abs; module Abs; OldIn; FrWp; Opened; pendOf; vc-pos; f≢t; nothing≢just)
import SCFTL.Impl.Space as Sp

private
  pend-same : ∀ X bl bl' → (∀ j → vc X bl' j ≡ vc X bl j) → ∀ m → pendOf X bl' m ≡ pendOf X bl m
  pend-same X bl bl' e nothing  = refl
  pend-same X bl bl' e (just j) = e j


-- the reusable flags count only pointwise
abs-fr : ∀ {c G X bl d} (f : ℕ → Bool) → (∀ j → f j ≡ fr bl j) → Abs c G X bl d → Abs c G X (record bl { fr = f }) d
abs-fr {c} {G} {X} {bl} {d} f e I = record
  { vsA = Abs.vsA I ; vaA = Abs.vaA I ; roomA = Abs.roomA I ; wcA = Abs.wcA I
  ; abU = Abs.abU I ; abP = Abs.abP I
  ; frA = trans (Abs.frA I) (tot-ext _ _ (Sp.P c) (λ a _ → cong b2n (sym (e a))))
  ; abF = trans (e (ab bl)) (Abs.abF I)
  ; frU = λ k x → Abs.frU I k (trans (sym (e k)) x)
  ; erA = Abs.erA I ; invA = Abs.invA I
  ; pdA = trans (Abs.pdA I) (sym (pend-same X bl (record bl { fr = f }) (λ _ → refl) (cv G))) ; gcA = Abs.gcA I
  ; abE = Abs.abE I ; abV = Abs.abV I
  ; frE = λ k x → Abs.frE I k (trans (sym (e k)) x) ; frV = λ k x → Abs.frV I k (trans (sym (e k)) x)
  ; usE = Abs.usE I ; usV = Abs.usV I ; esV = Abs.esV I ; cvV = Abs.cvV I }

-- ... and so do the ghost's used flags
abs-us : ∀ {c G X bl d} (u : ℕ → Bool) → (∀ j → u j ≡ us G j) → Abs c G X bl d → Abs c (record G { us = u }) X bl d
abs-us {c} {G} {X} {bl} {d} u e I = record
  { vsA = trans (Abs.vsA I) (sym (used-ext (us G) u (vc X bl) (Sp.P c) (λ j _ → e j)))
  ; vaA = Abs.vaA I ; roomA = Abs.roomA I ; wcA = Abs.wcA I
  ; abU = trans (e (ab bl)) (Abs.abU I) ; abP = Abs.abP I ; frA = Abs.frA I ; abF = Abs.abF I
  ; frU = λ k x → trans (e k) (Abs.frU I k x)
  ; erA = Abs.erA I ; invA = Abs.invA I ; pdA = Abs.pdA I ; gcA = Abs.gcA I
  ; abE = Abs.abE I ; abV = Abs.abV I ; frE = Abs.frE I ; frV = Abs.frV I
  ; usE = λ k x → Abs.usE I k (trans (sym (e k)) x) ; usV = λ k x → Abs.usV I k (trans (sym (e k)) x)
  ; esV = Abs.esV I ; cvV = Abs.cvV I }

-- any free block below P may stand for the block Space opened: every
-- free block is empty and at write pointer 0
reopen : ∀ {c G X bl d kn k'} → LocX X bl → FrWp bl → fr bl kn ≡ true → fr bl k' ≡ true → k' < Sp.P c →
         Abs c G X (Opened bl kn) d → Abs c G X (Opened bl k') d
reopen {c} {G} {X} {bl} {d} {kn} {k'} lx fw frn frk kP I = record
  { vsA = Abs.vsA I
  ; vaA = trans (Abs.vaA I) (trans (vc-empty {X} {bl} {kn} lx (fw kn frn)) (sym (vc-empty {X} {bl} {k'} lx (fw k' frk))))
  ; roomA = trans (cong (roomD d Data.Nat.Base.+_) (trans (fw k' frk) (sym (fw kn frn)))) (Abs.roomA I)
  ; wcA = Abs.wcA I
  ; abU = at' (λ k → us G k ≡ false) (Abs.abU I) (Abs.frU I)
  ; abP = kP
  ; frA = trans (Abs.frA I) (suc-injective (trans (sym (flip kn frn (Abs.abP I))) (flip k' frk kP)))
  ; abF = upd-self (fr bl) k' false
  ; frU = λ k x → other (λ k → us G k ≡ false) (Abs.abU I) (Abs.frU I) k x
  ; erA = Abs.erA I ; invA = Abs.invA I
  ; pdA = trans (Abs.pdA I) (pend-same X (Opened bl k') (Opened bl kn) (λ _ → refl) (cv G)) ; gcA = Abs.gcA I
  ; abE = at' (λ k → es G k ≡ false) (Abs.abE I) (Abs.frE I)
  ; abV = at' (λ k → vi G k ≡ false) (Abs.abV I) (Abs.frV I)
  ; frE = λ k x → other (λ k → es G k ≡ false) (Abs.abE I) (Abs.frE I) k x
  ; frV = λ k x → other (λ k → vi G k ≡ false) (Abs.abV I) (Abs.frV I) k x
  ; usE = Abs.usE I ; usV = Abs.usV I ; esV = Abs.esV I ; cvV = Abs.cvV I }
  where
  flip : ∀ k → fr bl k ≡ true → k < Sp.P c →
         tot (λ j → b2n (fr bl j)) (Sp.P c) ≡ suc (tot (λ j → b2n ((fr bl [ k ≔ false ]) j)) (Sp.P c))
  flip k e lt = tot-flip (fr bl) (fr bl [ k ≔ false ]) k (Sp.P c) lt e (upd-self (fr bl) k false)
                  (λ j _ jn → upd-ne (fr bl) j k false jn)
  -- a property of every block free in bl: kn's from the open block of
  -- `Opened bl kn`, every other's from its flag
  at' : (Q : ℕ → Set) → Q kn → (∀ k → (fr bl [ kn ≔ false ]) k ≡ true → Q k) → Q k'
  at' Q qn qf with k' ≟ℕ kn
  ... | yes refl = qn
  ... | no ne = qf k' (trans (upd-ne (fr bl) k' kn false ne) frk)
  other : (Q : ℕ → Set) → Q kn → (∀ k → (fr bl [ kn ≔ false ]) k ≡ true → Q k) →
          ∀ k → (fr bl [ k' ≔ false ]) k ≡ true → Q k
  other Q qn qf k x with k ≟ℕ k'
  ... | yes refl = ⊥-elim (f≢t (trans (sym (upd-self (fr bl) k false)) x))
  ... | no nk' with k ≟ℕ kn
  ...   | yes refl = qn
  ...   | no nkn = qf k (trans (upd-ne (fr bl) k kn false nkn) (trans (sym (upd-ne (fr bl) k k' false nk')) x))

-- with no victim pending, a mapped page lies in a used block below P:
-- not in the block Space opened, which is empty
old-ret : ∀ {c G X bl kn k'} → LocX X bl → FrWp bl → fr bl kn ≡ true →
          OldIn c (us G) X (Opened bl kn) → OldIn c (us G) X (Opened bl k')
old-ret {c} {G} {X} {bl} {kn} {k'} lx fw frn old b q le e with old b q le e
... | inj₂ u = inj₂ u
... | inj₁ e0 = ⊥-elim (no1 (subst (1 ≤_) (trans (cong (vc X bl) e0) (vc-empty {X} {bl} {kn} lx (fw kn frn)))
                                  (vc-pos X bl b q le e)))
  where
  no1 : 1 ≤ 0 → ⊥
  no1 ()
