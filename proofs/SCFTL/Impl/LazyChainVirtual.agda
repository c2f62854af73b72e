{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: PL's chain phase as P's eager protocol on
-- the virtually consolidated state.
--
-- `virt vs s`: P's state s with the chain's records `vs` (newest first)
-- on the delta region as synced pages, as if each in-page/OOB commit had
-- appended its consolidation page at once (P's `fiK`/`fi4`).  Then
--
--   * `fiL-virt`: PL's lazy commit is P's eager commit: `virt (rec s ∷
--     vs) (fiL M s) ≡ fi4 M (virt vs s)`;
--   * type A and B for PL's steps of the chain phase against S, with
--     P's invariant RI on the virtual state: `virt-lazy` (the lazy
--     commit: S's flush, by P's `fi4-RI`), `virt-wr`, `virt-rl`
--     (writes and relocations that write no tentative page), `virt-es`
--     (PL's guarded erase), all by P's own lemmas (`reg-sim`).
--
-- Not proven: the crash obligations (recovery from a crash of the
-- real flash, where the records are in their record slots, against
-- P's on the virtual flash), the consolidation step (P's RI for the
-- state with the consolidation page), recovery; so no Theorem 1 for PL.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainVirtual (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                   (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; ar)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (fi4-RI; tF)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (reg-sim)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (fiL; fiL-AR)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (State; okS; use; flush; w; rl; es) renaming (reg to regop)


map-sync-syn++ : ∀ vs ys → map sync (map syn vs ++ ys) ≡ map syn vs ++ map sync ys
map-sync-syn++ []       ys = refl
map-sync-syn++ (v ∷ vs) ys = cong (syn v ∷_) (map-sync-syn++ vs ys)

map-sync2 : ∀ xs → map sync (map sync xs) ≡ map sync xs
map-sync2 []       = refl
map-sync2 (x ∷ xs) = cong (sync x ∷_) (map-sync2 xs)

-- the epoch's record does not read the region
digD-virt : ∀ vs s ps → digD (virt vs s) ps ≡ digD s ps
digD-virt vs s []             = refl
digD-virt vs s ((a , p) ∷ ps) rewrite digD-virt vs s ps = refl

rec-virt : ∀ vs s → rec (virt vs s) ≡ rec s
rec-virt vs s = cong (λ dd → dlt (gen s) (ep s) (dbuf s) true (dd , ept s , nxt s)) (digD-virt vs s (dbuf s ++ Data.List.Base.concat (ept s)))

-- `fiL-virt`: the lazy commit on the real state is P's eager in-page /
-- OOB commit on the virtual one
fiL-virt : ∀ vs M s → virt (rec s ∷ vs) (fiL M s) ≡ fi4 M (virt vs s)
fiL-virt vs M s = trans (cong G (sym e)) (cong F (sym (rec-virt vs s)))
  where
    -- P's eager commit with the record c in page M's slot and on the region
    F : Cell → St
    F c = record (fi4 M (virt vs s))
      { rcd = λ p → sync (sync ((rcd s [ M ≔ put c (rcd s M) ]) p))
      ; dr  = syn c ∷ map sync (map sync (map syn vs ++ dr s)) }
    G : List MC → St
    G d = record (F (rec s)) { dr = syn (rec s) ∷ d }
    e : map sync (map sync (map syn vs ++ dr s)) ≡ map syn vs ++ map sync (dr s)
    e = trans (map-sync2 (map syn vs ++ dr s)) (map-sync-syn++ vs (dr s))

-- the abstraction relation does not read the region
ar-virt : ∀ {vs s t} → AR s t → AR (virt vs s) t
ar-virt (ar v st c) = ar v st c

ar-unvirt : ∀ {vs s t} → AR (virt vs s) t → AR s t
ar-unvirt (ar v st c) = ar v st c

------------------------------------------------------------------------
-- Type A and B of the chain phase's steps

-- `virt-lazy`: the lazy commit is S's flush, P's RI on the virtual state
virt-lazy : ∀ {vs s t M} → AR s t → RI (virt vs s) → Lazy s M →
            AR (fiL M s) (tF t) × RI (virt (rec s ∷ vs) (fiL M s))
virt-lazy {vs} {s} {t} {M} arr r (_ , how) =
  fiL-AR {s} {t} {M} arr , subst RI (sym (fiL-virt vs M s)) (go how)
  where
    go : InP s M ⊎ (Σ ℕ λ L → OobP s L M) → RI (fi4 M (virt vs s))
    go (inj₁ ip)       = fi4-RI {virt vs s} {M} {M} r (InP⇒LkC {virt vs s} {M} ip)
    go (inj₂ (L , op)) = fi4-RI {virt vs s} {L} {M} r (OobP⇒LkC {virt vs s} {L} {M} op)

-- `virt-wr`: a write that writes no tentative page is P's write on the
-- virtual state
virt-wr : ∀ {G vs s s' t a d} → AR s t → RI (virt vs s) → okPL G (use (regop (w a d))) s s' →
          (Σ State λ t' → okS (use (regop (w a d))) t t' × AR s' t' × RI (virt vs s'))
        ⊎ (Σ Bool λ f1 → s' ≡ emitT (konsS (optP f1 (wr0 a d s))))
virt-wr {vs = vs} {s} {a = a} {d} arr r (inj₁ (ib , true , false , refl))
  with reg-sim (w a d) {virt vs s} (ar-virt arr) r (inj₁ (ib , true , false , refl))
... | t' , st , ar' , r' = inj₁ (t' , st , ar-unvirt ar' , r')
virt-wr {vs = vs} {s} {a = a} {d} arr r (inj₁ (ib , false , false , refl))
  with reg-sim (w a d) {virt vs s} (ar-virt arr) r (inj₁ (ib , false , false , refl))
... | t' , st , ar' , r' = inj₁ (t' , st , ar-unvirt ar' , r')
virt-wr arr r (inj₁ (_ , f1 , true , refl)) = inj₂ (f1 , refl)
virt-wr {vs = vs} {s} {a = a} {d} arr r (inj₂ (nb , refl))
  with reg-sim (w a d) {virt vs s} (ar-virt arr) r (inj₂ (nb , refl))
... | t' , st , ar' , r' = inj₁ (t' , st , ar-unvirt ar' , r')

-- `virt-rl`: a relocation that writes no tentative page
virt-rl : ∀ {G vs s s' t} → AR s t → RI (virt vs s) → okPL G (use (regop rl)) s s' →
          (Σ State λ t' → okS (use (regop rl)) t t' × AR s' t' × RI (virt vs s'))
        ⊎ (Σ ℕ λ p → Σ Bool λ f1 → s' ≡ emitT (konsS (optP f1 (rl0 p s))))
virt-rl {vs = vs} {s} arr r (inj₁ (k , p , lt , inj₁ (v , true , false , refl)))
  with reg-sim rl {virt vs s} (ar-virt arr) r (inj₁ (k , p , lt , inj₁ (v , true , false , refl)))
... | t' , st , ar' , r' = inj₁ (t' , st , ar-unvirt ar' , r')
virt-rl {vs = vs} {s} arr r (inj₁ (k , p , lt , inj₁ (v , false , false , refl)))
  with reg-sim rl {virt vs s} (ar-virt arr) r (inj₁ (k , p , lt , inj₁ (v , false , false , refl)))
... | t' , st , ar' , r' = inj₁ (t' , st , ar-unvirt ar' , r')
virt-rl arr r (inj₁ (_ , p , _ , inj₁ (_ , f1 , true , refl))) = inj₂ (p , f1 , refl)
virt-rl {vs = vs} {s} arr r (inj₁ (k , p , lt , inj₂ (nv , refl)))
  with reg-sim rl {virt vs s} (ar-virt arr) r (inj₁ (k , p , lt , inj₂ (nv , refl)))
... | t' , st , ar' , r' = inj₁ (t' , st , ar-unvirt ar' , r')
virt-rl {vs = vs} {s} arr r (inj₂ (nk , refl))
  with reg-sim rl {virt vs s} (ar-virt arr) r (inj₂ (nk , refl))
... | t' , st , ar' , r' = inj₁ (t' , st , ar-unvirt ar' , r')

-- `virt-es`: PL's guarded erase is P's erase
virt-es : ∀ {vs s s' t} → AR s t → RI (virt vs s) → okPL EraseGuard (use (regop es)) s s' →
          Σ State λ t' → okS (use (regop es)) t t' × AR s' t' × RI (virt vs s')
virt-es {vs} {s} arr r (p , e , _ , refl) with reg-sim es {virt vs s} (ar-virt arr) r (p , e , refl)
... | t' , st , ar' , r' = t' , st , ar-unvirt ar' , r'
