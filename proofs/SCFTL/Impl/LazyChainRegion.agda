{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: the region's part of PL's invariant in the
-- chain phase, and formula (4) for that phase without hypotheses on the
-- crashed flash.
--
-- `RInv s c rest`: the delta region is durable and is the newest commit
-- c over the pages below it (`rest`), c's digest verifies (`okC`) on
-- durable pages below the active pointer that are not in the merge
-- buffer.  (In the chain phase PL writes no region page: the next one
-- follows the consolidation page.)  Kept by writes, relocations,
-- programs of the merge buffer, PL's guarded erase (`ri-esF`: the guard
-- keeps the pages the region's newest commit names) and the lazy commit
-- (`ri-fiL`); on PL's steps `pl-es-R` (with `pl-es` of
-- SCFTL.Impl.LazyChainSteps).  Then recovery accepts c on the flash and
-- on every crash outcome (`ri-acc`, `ri-crash-acc`, `ri-fi2-acc`), so
--
--   * `pl-stable-R`: every crash outcome of a state with `CInv`, `SInv`
--     and `RInv` recovers exactly the stable image;
--   * `pl-fi2-stable-R`: a crash right before the lazy commit's SYNC
--     recovers the stable image or the flush's.
--
-- Not proven: that PL's chain phase starts in these invariants (from
-- P's RI after a region commit) and the steps that end it (the
-- consolidation step's crash, P's flush after it), nor Theorem 1 for PL.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainRegion (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                  (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (n≤1+n)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (map-cur-syn; upd-here; upd-other)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainSteps Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainStable Data d0 amax wmax kmax _≟D_ kc
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (use; es) renaming (reg to regop)

------------------------------------------------------------------------
-- Digest checks

verD-ext : ∀ {D D'} → (∀ p → D p ≡ D' p) → ∀ dd → verD D dd ≡ verD D' dd
verD-ext e []                 = refl
verD-ext e ((p , d , a) ∷ dd) rewrite e p | verD-ext e dd = refl

okC-ver : ∀ g D D' c cs → verD D (digOf c) ≡ verD D' (digOf c) → okC g D c cs ≡ okC g D' c cs
okC-ver g D D' (dlt h x ps true (dd , dt , L)) cs e rewrite e = refl
okC-ver g D D' (dlt h x ps false _) cs e = refl
okC-ver g D D' erased      cs e = refl
okC-ver g D D' junk        cs e = refl
okC-ver g D D' (dcell _ _) cs e = refl
okC-ver g D D' (cpt _ _)   cs e = refl

map-sync-syn' : ∀ xs → map sync (map syn xs) ≡ map syn xs
map-sync-syn' []       = refl
map-sync-syn' (x ∷ xs) = cong (syn x ∷_) (map-sync-syn' xs)

crashL-syn : ∀ xs {ys} → CrashL (map syn xs) ys → ys ≡ map syn xs
crashL-syn []       []       = refl
crashL-syn (x ∷ xs) (e ∷ cr) = trans (cong (_∷ _) e) (cong (syn x ∷_) (crashL-syn xs cr))

------------------------------------------------------------------------
-- The invariant

record RInv (s : St) (c : Cell) (rest : List Cell) : Set where
  constructor rinv
  field
    r-eq  : dr s ≡ map syn (c ∷ rest)
    r-ok  : okC (gen s) (Dof s) c rest ≡ true
    r-dur : DurDig (dat s) (digOf c)
    r-blw : BelowD (nxt s) (digOf c)
    r-fix : FixDig s (digOf c)
open RInv public

-- recovery accepts c over the pages below it
ri-acc : ∀ {s c rest} → RInv s c rest → acc (gen s) (Dof s) (map cur (dr s)) ≡ c ∷ rest
ri-acc {s} {c} {rest} ri rewrite r-eq ri | map-cur-syn rest | r-ok ri = refl

ri-wr0 : ∀ {s c rest} a d → RInv s c rest → RInv (wr0 a d s) c rest
ri-wr0 {s} a d (rinv e o du bl fx) =
  rinv e o du (belowD-mono (n≤1+n (nxt s)) bl) (fixD-place (just (d , a)) (λ _ → refl) bl fx)

ri-rl0 : ∀ {s c rest} p → RInv s c rest → RInv (rl0 p s) c rest
ri-rl0 {s} p (rinv e o du bl fx) =
  rinv e o du (belowD-mono (n≤1+n (nxt s)) bl) (fixD-place (just (cellD (pv s p) , p2l s p)) (λ _ → refl) bl fx)

ri-rlX : ∀ {s c rest} p → RInv s c rest → RInv (rlX p s) c rest
ri-rlX p (rinv e o du bl fx) = rinv e o du bl (fixD-tr (λ _ m → m) fx)

ri-progMB : ∀ {s c rest} → RInv s c rest → RInv (progMB s) c rest
ri-progMB {s} {c} {rest} (rinv e o du bl fx) =
  rinv e (trans (okC-ver (gen s) _ (Dof s) c rest (verD-fix {s} {0} (digOf c) fx)) o)
       (durD-prog (digOf c) fx du) bl (fixD-none (λ _ → refl) (digOf c))

ri-optP : ∀ {s c rest} f → RInv s c rest → RInv (optP f s) c rest
ri-optP true  ri = ri-progMB ri
ri-optP false ri = ri

-- `ri-esF`: an erase of a page c does not name
ri-esF : ∀ {s c rest} p → Avoid p (digOf c) → RInv s c rest → RInv (esF p s) c rest
ri-esF {s} {c} {rest} p av (rinv e o du bl fx) =
  rinv e (trans (okC-ver (gen s) _ (Dof s) c rest
                  (trans (sym (verD-ext (upd-cur (dat s) p (put erased (dat s p))) (digOf c)))
                         (verD-avoid (Dof s) p erased (digOf c) av))) o)
       (durD-avoid p (put erased (dat s p)) (digOf c) av du) bl (fixD-tr (λ _ m → m) fx)

-- `ri-fiL`: the lazy commit (no region page; every page synced)
ri-fiL : ∀ {s c rest} M → RInv s c rest → RInv (fiL M s) c rest
ri-fiL {s} {c} {rest} M (rinv e o du bl fx) =
  rinv (trans (cong (map sync) e) (map-sync-syn' (c ∷ rest)))
       (trans (okC-ver (gen s) _ (Dof s) c rest (verD-fix {s} {M} (digOf c) fx)) o)
       (dur-fix {s} {M} (digOf c) fx) bl (fixD-none (λ _ → refl) (digOf c))

-- PL's guarded erase
pl-es-R : ∀ {s s' c rest} → RInv s c rest → okPL EraseGuard (use (regop es)) s s' → RInv s' c rest
pl-es-R {s} {c = c} {rest} ri (p , _ , (_ , g) , refl) = ri-esF p (av (subst (AvoidAll p) (cong topOf (ri-acc ri)) g)) ri
  where
    av : AvoidAll p (c ∷ []) → Avoid p (digOf c)
    av (a ∷ []) = a

------------------------------------------------------------------------
-- Crashes: the region as it was

ri-crash-acc : ∀ {s s' c rest} → RInv s c rest → Img s s' → acc (gen s) (Dof s') (map cur (dr s')) ≡ c ∷ rest
ri-crash-acc {s} {s'} {c} {rest} (rinv e o du bl fx) (crD , _ , _ , crL , _)
  rewrite crashL-syn (c ∷ rest) (subst (λ l → CrashL l (dr s')) e crL) | map-cur-syn rest
        | okC-ver (gen s) (Dof s') (Dof s) c rest (verD-dur (dat s) (dat s') crD (digOf c) du) | o = refl

-- at the lazy commit's crash point (the merge buffer programmed, the
-- record not yet synced): c's pages are as they were
ri-fi2-acc : ∀ {s s' c rest} M → RInv s c rest → Img (fi2 M s) s' → acc (gen s) (Dof s') (map cur (dr s')) ≡ c ∷ rest
ri-fi2-acc {s} {s'} {c} {rest} M (rinv e o du bl fx) (crD , _ , _ , crL , _)
  rewrite crashL-syn (c ∷ rest) (subst (λ l → CrashL l (dr s')) e crL) | map-cur-syn rest
        | okC-ver (gen s) (Dof s') (Dof s) c rest
            (trans (verD-dur (dat (fi2 M s)) (dat s') crD (digOf c) (durD-prog (digOf c) fx du))
                   (verD-fix {s} {M} (digOf c) fx)) | o = refl

------------------------------------------------------------------------
-- Formula (4) for the chain phase

-- `pl-stable-R`: every crash outcome recovers the stable image
pl-stable-R : ∀ {s s' x L rs y E M0 c rest} C z → CInv kc s x L rs y E → SInv s M0 rs → RInv s c rest →
              lkOf (c ∷ rest) ≡ just (x , L) → rp (gen s) (c ∷ rest) (st0 C) ≡ (M0 , z , M0) →
              Img s s' → ∀ a → recMapL kc (gen s) C s' a ≡ smap s a
pl-stable-R {s} {s'} C z ci si ri lk e img =
  pl-stable {s} {s'} C ci si img (trans (cong lkOf (ri-crash-acc {s} {s'} ri img)) lk) z
            (subst (λ l → rp (gen s) l (st0 C) ≡ _) (sym (ri-crash-acc {s} {s'} ri img)) e)

-- `pl-fi2-stable-R`: a crash right before the lazy commit's SYNC
-- recovers the stable image or the flush's
pl-fi2-stable-R : ∀ {s s' M x L rs y E M0 c rest} C z → CInv kc s x L rs y E → SInv s M0 rs → RInv s c rest →
                  lkOf (c ∷ rest) ≡ just (x , L) → rp (gen s) (c ∷ rest) (st0 C) ≡ (M0 , z , M0) →
                  Lazy s M → Img (fi2 M s) s' →
                  (∀ a → recMapL kc (gen s) C s' a ≡ smap s a) ⊎ (∀ a → recMapL kc (gen s) C s' a ≡ l2p s a)
pl-fi2-stable-R {s} {s'} {M} C z ci si ri lk e lz img =
  pl-fi2-stable {s} {s'} {M} C ci si (trans (cong lkOf (ri-acc ri)) lk) lz img
                (trans (cong lkOf (ri-fi2-acc {s} {s'} M ri img)) lk) z
                (subst (λ l → rp (gen s) l (st0 C) ≡ _) (sym (ri-fi2-acc {s} {s'} M ri img)) e)
