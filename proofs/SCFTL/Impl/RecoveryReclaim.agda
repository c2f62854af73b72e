{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, space across a crash: what every recovery of the one model
-- reclaims, page by page and block by block.
--
-- P's recovery makes erasable every page below its next page that the
-- recovered L2P does not name (`reclaim`, SCFTL.Impl.Model; blocks.rs
-- `rebuild`, per page).  Here:
--
--   `Reclaimed s`      : the erasable queue of s IS `reclaim` of its L2P
--                        and next page — so, with SCFTL.Impl.Recovery's
--                        `rec0-eOK`, exactly the pages below the next
--                        one that the L2P does not name (`reclaimed-iff`);
--   `rec0-reclaimed`, `ck3-rec0-reclaimed`, `recU-reclaimed`,
--   `recR-reclaimed`, `rec0L-reclaimed` : every recovery the one model
--                        has leaves such a state: P's with and without the
--                        full checkpoint, PU's over unsynced epochs with
--                        and without it, PL's walking the lazy chain;
--   `placed-reclaimed`, **`owners-reclaimed`** : the block layer
--                        (SCFTL.Impl.BlocksOver) keeps, at a recovery, the
--                        placements below P's new next page only
--                        (`forget`), so every page placed in a block that
--                        the recovered L2P does not name is erasable: a
--                        block none of whose pages the recovered map names
--                        has every page of its erase (`owners`) on P's
--                        erasable queue — what a block erase of the block
--                        layer erases page by page (`EsRunM`);
--   `px-rec-reclaimed`, **`bx-rec-owners`** : every recovery of the one
--                        model PX, in both phases, leaves `Reclaimed`, so
--                        at a recovery of the block layer over it (BXone)
--                        a block none of whose pages the recovered L2P
--                        names has every page of its erase erasable.
--
-- What is still open for space across a crash (proofs/README.md, "Not
-- done", item 1): the erase steps of PX's two phases for those pages
-- (PU's and PL's guards besides the queue), an erase of a block with no
-- owner, the open block retired at recovery, and the data-superblock
-- layer's invariant after a recovery.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.RecoveryReclaim (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; not; _∧_; _∨_; T)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≡ᵇ_; _<ᵇ_; s≤s)
open import Data.Nat.Properties using (<⇒<ᵇ; ≡ᵇ⇒≡; ≤-refl; ≤-step; n≤0⇒n≡0; m≤n⇒m<n∨m≡n)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (tt)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (reclaim-ok)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recU)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (rec0L)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; own; wp; forget; forget-below; owners; ownersB; consM)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su; gh; okPU)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; okPX)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The queue recovery leaves

-- no address names page p
Unnamed : Map → ℕ → Set
Unnamed m p = ∀ a → a ≤ amax → m a ≢ just p

Reclaimed : St → Set
Reclaimed s = ∀ p → ers s p ≡ reclaim (l2p s) (nxt s) p

private
  isAt-named : ∀ mp p → isAt mp p ≡ true → mp ≡ just p
  isAt-named (just q) p e = cong just (≡ᵇ⇒≡ q p (subst T (sym e) tt))
  isAt-named nothing  p ()

  T→≡ : ∀ {b} → T b → b ≡ true
  T→≡ {true} _ = refl

  nmd-unnamed : ∀ m k p → (∀ a → a ≤ k → m a ≢ just p) → nmd m k p ≡ false
  nmd-unnamed m zero p un with isAt (m zero) p in e
  ... | true  = ⊥-elim (un zero ≤-refl (isAt-named (m zero) p e))
  ... | false = refl
  nmd-unnamed m (suc k) p un with isAt (m (suc k)) p in e
  ... | true  = ⊥-elim (un (suc k) ≤-refl (isAt-named (m (suc k)) p e))
  ... | false = nmd-unnamed m k p (λ a le → un a (≤-step le))

-- `reclaim` takes every page below the next one that no address names
reclaim-complete : ∀ m n p → p < n → Unnamed m p → reclaim m n p ≡ true
reclaim-complete m n p lt un rewrite T→≡ (<⇒<ᵇ lt) | nmd-unnamed m amax p un = refl

-- so a state with `Reclaimed` has on its erasable queue exactly the
-- pages below its next page that its L2P does not name
reclaimed-iff : ∀ {s} → Reclaimed s → ∀ p →
  (ers s p ≡ true → p < nxt s × Unnamed (l2p s) p) × (p < nxt s → Unnamed (l2p s) p → ers s p ≡ true)
reclaimed-iff {s} r p =
  (λ e → reclaim-ok (l2p s) (nxt s) p (trans (sym (r p)) e)) ,
  (λ lt un → trans (r p) (reclaim-complete (l2p s) (nxt s) p lt un))

------------------------------------------------------------------------
-- Every recovery of the one model leaves it

-- P's, without and with the full checkpoint (which keeps the queue, the
-- L2P and the next page)
rec0-reclaimed : ∀ b g C s → Reclaimed (rec0 b g C s)
rec0-reclaimed b g C s p = refl

ck3-reclaimed : ∀ {s} → Reclaimed s → Reclaimed (ck3 s)
ck3-reclaimed r = r

ck3-rec0-reclaimed : ∀ b g C s → Reclaimed (ck3 (rec0 b g C s))
ck3-rec0-reclaimed b g C s = ck3-reclaimed {rec0 b g C s} (rec0-reclaimed b g C s)

-- PU's, over the unsynced epochs the ghost names, with the full
-- checkpoint and without it
recU-reclaimed : ∀ b g C pr (es' : List UEp) s → Reclaimed (recU b g C pr es' s)
recU-reclaimed b g C pr es' s p = refl

recR-reclaimed : ∀ b g C pr (es' : List UEp) s → Reclaimed (recR b g C pr es' s)
recR-reclaimed b g C pr es' s p = refl

-- PL's, walking the lazy chain (always with the full checkpoint)
rec0L-reclaimed : ∀ b g C s → Reclaimed (ck3 (rec0L b g C s))
rec0L-reclaimed b g C s p = refl

------------------------------------------------------------------------
-- Blocks: every page the block layer still places after a recovery lies
-- below P's next page, so a page placed in a block that the recovered
-- L2P does not name is erasable

placed-reclaimed : ∀ {s} → Reclaimed s → ∀ bl k o q → own (forget (nxt s) bl) k o ≡ just q →
                   Unnamed (l2p s) q → ers s q ≡ true
placed-reclaimed {s} r bl k o q e un = proj₂ (reclaimed-iff {s} r q) (forget-below {bl} (nxt s) k o q e) un

private
  ownersB-all : ∀ {s} → Reclaimed s → ∀ bl k n →
                (∀ o q → own (forget (nxt s) bl) k o ≡ just q → Unnamed (l2p s) q) →
                All (λ q → ers s q ≡ true) (ownersB (forget (nxt s) bl) k n)
  ownersB-all r bl k zero un = []
  ownersB-all {s} r bl k (suc o) un with own (forget (nxt s) bl) k o in e
  ... | nothing = ownersB-all {s} r bl k o un
  ... | just q  = placed-reclaimed {s} r bl k o q e (un o q e) ∷ ownersB-all {s} r bl k o un

-- a block none of whose pages the recovered L2P names: every page its
-- erase erases is on P's erasable queue
owners-reclaimed : ∀ {s} → Reclaimed s → ∀ bl k →
                   (∀ o q → own (forget (nxt s) bl) k o ≡ just q → Unnamed (l2p s) q) →
                   All (λ q → ers s q ≡ true) (owners (forget (nxt s) bl) k)
owners-reclaimed {s} r bl k un = ownersB-all {s} r bl k (wp (forget (nxt s) bl) k) un

------------------------------------------------------------------------
-- The one model: every recovery of PX, in both phases, leaves
-- `Reclaimed`; so at a recovery of the block layer over it (BXone) a
-- block none of whose pages the recovered L2P names has every page of
-- its erase on P's erasable queue

private
  pu-rec : ∀ {S S'} → okPU SB.recover S S' → Reclaimed (st (su S'))
  pu-rec {S} ((b , g , C , pk , T , es' , p , sh , e) , _) =
    subst Reclaimed (sym e) (recU-reclaimed b g C (proj₂ (gh S)) es' (st (su S)))

px-rec-reclaimed : ∀ {X X'} → okPX SB.recover X X' → Reclaimed (stX X')
px-rec-reclaimed {false , S} {.false , S'} (refl , inj₁ o) = pu-rec {S} {S'} o
px-rec-reclaimed {false , S} {.false , S'} (refl , inj₂ ((b , g , C , pk , T , es' , p , sh , cl , qt , e) , _)) =
  subst Reclaimed (sym e) (recR-reclaimed b g C (proj₂ (gh S)) es' (st (su S)))
px-rec-reclaimed {true , S} {.true , ._} (refl , _ , s' , refl , (b , g , C , pk , refl)) = rec0L-reclaimed b g C (st (su S))

bx-rec-owners : ∀ {X bl X' bl'} → SB.Model.ok BXone SB.recover (X , bl) (X' , bl') → ∀ k →
                (∀ o q → own bl' k o ≡ just q → Unnamed (l2p (stX X')) q) →
                All (λ q → ers (stX X') q ≡ true) (owners bl' k)
bx-rec-owners {X} {bl} {X'} (o , refl) k un = owners-reclaimed {stX X'} (px-rec-reclaimed {X} {X'} o) bl k un
