{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks in the one model: a region with no
-- commit on it, and PL's erase guard.
--
-- Steps (1) and (2) of the plan for the chain phase's erase in the
-- middle of GC's walk (proofs/README.md, "Not done", item 1 (i)).  PL
-- erases a page only under its guard (`EraseGuard`: no record of the
-- chain names it, nor does the region's newest commit).  While no cell
-- of the delta region is a commit, recovery accepts no commit there
-- (`acc` is empty whatever the data pages hold), so there is no chain
-- and no newest commit, and the guard holds of every page:
--
--   `NoCommit`  : no cell of the region (as it reads now) is a commit;
--   `acc-nc`    : then `acc` accepts nothing, for every data view;
--   `chain-nc`, `top-nc`, **`guard-nc`** : so the chain and the newest
--                 commit are empty, and PL's guard holds of every page;
--   `nc-emitT`, `nc-konsS`, `nc-optL`, `nc-wr`, `nc-rl`, `nc-rlX`,
--   `nc-esF`    : a write or a relocation of PL (with its optional
--                 pages: with no chain the consolidation step adds
--                 nothing, and a tentative page is no commit), P's `rlX`
--                 and an erase keep it;
--   `nc-ck3`    : a full checkpoint makes it hold (it empties the
--                 region): so after PL's recovery and after the flush
--                 that ends in a full checkpoint (SCFTL.Impl.
--                 SpaceChainErase's `ckF`).
--
-- Not here: the layer with the policy that keeps `NoCommit` in the
-- chain phase while a block is erasable, and the walk over it (steps
-- (3)–(5) of the plan).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceChainQuiet (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Nat.Base using (zero; suc)
open import Data.Maybe.Base using (nothing)
open import Data.Product using (_×_; _,_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (follow)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (AvoidAll; Rof; Dof)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
  using (chainOf; walkG; regTop; topOf; EraseGuard; konsS; konsX; konsPg; konsFor; optL)

------------------------------------------------------------------------
-- No commit on the region

-- a cell that recovery never accepts as a commit
isCommit : Cell → Bool
isCommit (dlt _ _ _ true _) = true
isCommit _                  = false

NoCommit : St → Set
NoCommit s = All (λ c → isCommit c ≡ false) (map cur (dr s))

-- recovery accepts nothing from cells none of which is a commit
acc-nc : ∀ g D cs → All (λ c → isCommit c ≡ false) cs → acc g D cs ≡ []
acc-nc g D []                                   []       = refl
acc-nc g D (erased ∷ cs)                        (_ ∷ nc) = acc-nc g D cs nc
acc-nc g D (junk ∷ cs)                          (_ ∷ nc) = acc-nc g D cs nc
acc-nc g D (dcell _ _ ∷ cs)                     (_ ∷ nc) = acc-nc g D cs nc
acc-nc g D (dlt _ _ _ false _ ∷ cs)             (_ ∷ nc) = acc-nc g D cs nc
acc-nc g D (dlt _ _ _ true _ ∷ cs)              (() ∷ _)
acc-nc g D (cpt _ _ ∷ cs)                       (_ ∷ nc) = acc-nc g D cs nc

private
  follow-nothing : ∀ k g R D → follow k g R D nothing ≡ []
  follow-nothing zero    g R D = refl
  follow-nothing (suc k) g R D = refl

-- so no chain, no newest commit
chain-nc : ∀ s → NoCommit s → chainOf s ≡ []
chain-nc s nc =
  trans (cong (λ l → follow kc (gen s) (Rof s) (Dof s) (lkOf l)) (acc-nc (gen s) (Dof s) (map cur (dr s)) nc))
        (follow-nothing kc (gen s) (Rof s) (Dof s))

top-nc : ∀ s → NoCommit s → regTop s ≡ []
top-nc s nc = cong topOf (acc-nc (gen s) (Dof s) (map cur (dr s)) nc)

-- **and PL's erase guard holds of every page**
guard-nc : ∀ s p → NoCommit s → EraseGuard s p
guard-nc s p nc = subst (AvoidAll p) (sym (chain-nc s nc)) AvoidAll.[] , subst (AvoidAll p) (sym (top-nc s nc)) AvoidAll.[]

------------------------------------------------------------------------
-- What keeps it, and what makes it hold

-- a tentative page is no commit
nc-emitT : ∀ s → NoCommit s → NoCommit (emitT s)
nc-emitT s nc = refl ∷ nc

-- with no chain the consolidation step adds nothing
nc-konsS : ∀ s → NoCommit s → NoCommit (konsS s)
nc-konsS s nc = subst (λ m → NoCommit (konsX m s)) (sym kp) nc
  where
  kp : konsPg s ≡ nothing
  kp = cong (konsFor (gen s)) (chain-nc s nc)

private
  -- the merge buffer's pages and a placement leave the region alone
  nc-optP : ∀ f s → NoCommit s → NoCommit (optP f s)
  nc-optP true  s nc = nc
  nc-optP false s nc = nc

-- a write's or relocation's optional pages
nc-optL : ∀ f1 f2 s → NoCommit s → NoCommit (optL f1 f2 s)
nc-optL f1 true  s nc = nc-emitT (konsS (optP f1 s)) (nc-konsS (optP f1 s) (nc-optP f1 s nc))
nc-optL f1 false s nc = nc-optP f1 s nc

-- PL's write and relocation with their optional pages, P's `rlX`, an
-- erase
nc-wr : ∀ f1 f2 a d s → NoCommit s → NoCommit (optL f1 f2 (wr0 a d s))
nc-wr f1 f2 a d s nc = nc-optL f1 f2 (wr0 a d s) nc

nc-rl : ∀ f1 f2 p s → NoCommit s → NoCommit (optL f1 f2 (rl0 p s))
nc-rl f1 f2 p s nc = nc-optL f1 f2 (rl0 p s) nc

nc-rlX : ∀ p s → NoCommit s → NoCommit (rlX p s)
nc-rlX p s nc = nc

nc-esF : ∀ p s → NoCommit s → NoCommit (esF p s)
nc-esF p s nc = nc

-- a full checkpoint empties the region
nc-ck3 : ∀ s → NoCommit (ck3 s)
nc-ck3 s = []
