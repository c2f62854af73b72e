{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: the chain's invariant `CInv` on P's states
-- and the steps of the lazy protocol that keep it (the model PL of
-- SCFTL.Impl.LazyChainModel), with the guarded erase.
--
-- `CInv k s x L rs y E`: from the link L of the region's newest commit
-- (epoch id x) the records rs (oldest first) lie where recovery's walk
-- finds them (`LayP`), nothing of the generation at or past the last
-- link E (`Above`), every record verifies on the data pages (`Ver`) and
-- names only durable pages (`DurAll`) below the active pointer
-- (`BelowAll`) that are not in the merge buffer (`FixAll`); every record
-- slot is durable; at most k records (MAX_CHAIN); the next flush's link
-- is E and its epoch id the next of the chain.
--
--   * kept by a write (`cinv-wr0`), a program of the merge buffer
--     (`cinv-progMB`), GC's relocation (`cinv-rl0`, `cinv-rlX`), the
--     erase *guarded* by the chain (`cinv-esF`: no record of the chain
--     names the page: `AvoidAll`), and the lazy commit (`cinv-fiL`:
--     one record more, given P's `vOK` on the data pages and room in
--     the chain); the region commit with the consolidation page
--     (`flK3`) starts an empty chain at its link (`cinv-flK3`);
--   * `cinv-crash`: a crash of any state with the invariant recovers
--     the whole chain (the walk returns every record: formula (4)'s
--     image of the last SYNC);
--   * `cinv-fi2-crash`: a crash right before the lazy commit's SYNC
--     recovers the whole chain, or the chain with the crashed record.
--
-- Not proven here: P's invariant RI for states with a chain (its
-- `rcL` forbids a record past the region's link), hence neither type A
-- nor type B of PL's steps as obligations, nor Theorem 1 for PL.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainInv (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                               (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-trans; <-transˡ; ≤-refl; n≤1+n; <⇒≤; ≤-step)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; concat)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Bool.Base using (true; false)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (yes; no)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (upd-here; upd-other; All; EntM; <⇒≢)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (digD-entM)
open import SCFTL.Spec Data d0 amax wmax using (Addr)

------------------------------------------------------------------------
-- The pages a record names lie below the active pointer

data BelowD (n : ℕ) : List (ℕ × Data × Addr) → Set where
  []  : BelowD n []
  _∷_ : ∀ {q d a dd} → q < n → BelowD n dd → BelowD n ((q , d , a) ∷ dd)

data BelowAll (n : ℕ) : List Cell → Set where
  []  : BelowAll n []
  _∷_ : ∀ {c cs} → BelowD n (digOf c) → BelowAll n cs → BelowAll n (c ∷ cs)

belowD-mono : ∀ {n n' dd} → n ≤ n' → BelowD n dd → BelowD n' dd
belowD-mono le []       = []
belowD-mono le (q ∷ bs) = <-transˡ q le ∷ belowD-mono le bs

below-mono : ∀ {n n' rs} → n ≤ n' → BelowAll n rs → BelowAll n' rs
below-mono le []       = []
below-mono le (b ∷ bs) = belowD-mono le b ∷ below-mono le bs

below-snoc : ∀ {n rs c} → BelowAll n rs → BelowD n (digOf c) → BelowAll n (rs ++ c ∷ [])
below-snoc []       b = b ∷ []
below-snoc (b' ∷ bs) b = b' ∷ below-snoc bs b

------------------------------------------------------------------------
-- Moving `FixAll` and `DurAll` between states

fixD-tr : ∀ {s s'} → (∀ q → mb s q ≡ nothing → mb s' q ≡ nothing) → ∀ {dd} → FixDig s dd → FixDig s' dd
fixD-tr f []       = []
fixD-tr f (m ∷ fs) = f _ m ∷ fixD-tr f fs

fix-tr : ∀ {s s'} → (∀ q → mb s q ≡ nothing → mb s' q ≡ nothing) → ∀ {rs} → FixAll s rs → FixAll s' rs
fix-tr f []       = []
fix-tr f (x ∷ xs) = fixD-tr f x ∷ fix-tr f xs

fixD-none : ∀ {s} → (∀ q → mb s q ≡ nothing) → ∀ dd → FixDig s dd
fixD-none n []                 = []
fixD-none n ((q , d , a) ∷ dd) = n q ∷ fixD-none n dd

fix-none : ∀ {s} → (∀ q → mb s q ≡ nothing) → ∀ rs → FixAll s rs
fix-none n []       = []
fix-none n (c ∷ cs) = fixD-none n (digOf c) ∷ fix-none n cs

-- a page below the active pointer keeps its merge-buffer entry when a
-- sector is placed at the active pointer
fixD-place : ∀ {s s'} v → (∀ q → mb s' q ≡ (mb s [ nxt s ≔ v ]) q) → ∀ {dd} → BelowD (nxt s) dd → FixDig s dd → FixDig s' dd
fixD-place v e []       []       = []
fixD-place {s} {s'} v e (lt ∷ bs) (m ∷ fs) =
  trans (e _) (trans (upd-other (mb s) v (<⇒≢ lt)) m) ∷ fixD-place v e bs fs

fix-place : ∀ {s s'} v → (∀ q → mb s' q ≡ (mb s [ nxt s ≔ v ]) q) → ∀ {rs} → BelowAll (nxt s) rs → FixAll s rs → FixAll s' rs
fix-place v e []       []       = []
fix-place v e (b ∷ bs) (f ∷ fs) = fixD-place v e b f ∷ fix-place v e bs fs

-- programming the merge buffer leaves the pages it does not hold as they are
durD-prog : ∀ {s} dd → FixDig s dd → DurDig (dat s) dd → DurDig (dat (progMB s)) dd
durD-prog []                 []       []       = []
durD-prog {s} ((q , d , a) ∷ dd) (m ∷ fs) (e ∷ ds) =
  subst (λ x → progm x (dat s q) ≡ syn (cur (progm x (dat s q)))) (sym m) e ∷ durD-prog dd fs ds

dur-prog : ∀ {s rs} → FixAll s rs → DurAll (dat s) rs → DurAll (dat (progMB s)) rs
dur-prog []       []       = []
dur-prog {s} {c ∷ _} (f ∷ fs) (d ∷ ds) = durD-prog (digOf c) f d ∷ dur-prog fs ds

-- the erase of a page no record names
durD-avoid : ∀ {D : ℕ → MC} p m dd → Avoid p dd → DurDig D dd → DurDig (D [ p ≔ m ]) dd
durD-avoid p m []                 []        []       = []
durD-avoid {D} p m ((q , d , a) ∷ dd) (ne ∷ av) (e ∷ ds) =
  trans (upd-other D m ne) (trans e (cong (λ x → syn (cur x)) (sym (upd-other D m ne)))) ∷ durD-avoid p m dd av ds

dur-avoid : ∀ {D : ℕ → MC} p m {rs} → AvoidAll p rs → DurAll D rs → DurAll (D [ p ≔ m ]) rs
dur-avoid p m []         []       = []
dur-avoid p m {c ∷ _} (a ∷ as) (d ∷ ds) = durD-avoid p m (digOf c) a d ∷ dur-avoid p m as ds

upd-cur : ∀ (D : ℕ → MC) p m q → ((λ r → cur (D r)) [ p ≔ cur m ]) q ≡ cur ((D [ p ≔ m ]) q)
upd-cur D p m q with q Data.Nat.Properties.≟ p
... | yes refl rewrite upd-here (λ r → cur (D r)) q (cur m) | upd-here D q m = refl
... | no ne rewrite upd-other (λ r → cur (D r)) (cur m) ne | upd-other D m ne = refl

length-snoc : ∀ (rs : List Cell) c → length (rs ++ c ∷ []) ≡ suc (length rs)
length-snoc []       c = refl
length-snoc (r ∷ rs) c = cong suc (length-snoc rs c)

------------------------------------------------------------------------
-- The invariant

record CInv (k : ℕ) (s : St) (x L : ℕ) (rs : List Cell) (y E : ℕ) : Set where
  constructor cinv
  field
    ch-lay : LayP (gen s) (Rof s) x L rs y E
    ch-abv : Above (gen s) (Rof s) E
    ch-ver : Ver (gen s) (Dof s) x rs
    ch-dur : DurAll (dat s) rs
    ch-blw : BelowAll (nxt s) rs
    ch-fix : FixAll s rs
    ch-rdu : ∀ p → rcd s p ≡ syn (cur (rcd s p))
    ch-bnd : length rs ≤ k
    ch-lnE : lnk s ≡ just E
    ch-epY : ep s ≡ suc y
    ch-enx : E ≤ nxt s
open CInv public

-- `cinv-crash`: any crash outcome recovers the whole chain
cinv-crash : ∀ {k s s' x L rs y E} → CInv k s x L rs y E → Img s s' →
             follow k (gen s) (Rof s') (Dof s') (just (x , L)) ≡ rv rs
cinv-crash {k} {s} {s'} ci img = crash-between {s} {s'} k img (ch-rdu ci) (ch-dur ci) (ch-lay ci) (ch-abv ci) (ch-ver ci) (ch-bnd ci)

------------------------------------------------------------------------
-- Steps that write no record and no region page

-- a write: a sector placed at the active pointer, in the merge buffer
cinv-wr0 : ∀ {k s x L rs y E} a d → CInv k s x L rs y E → CInv k (wr0 a d s) x L rs y E
cinv-wr0 {s = s} a d (cinv l ab v du bl fx rd bn ln ey en) =
  cinv l ab v du (below-mono (n≤1+n (nxt s)) bl) (fix-place (just (d , a)) (λ _ → refl) bl fx) rd bn ln ey (≤-trans en (n≤1+n (nxt s)))

-- GC's relocation of a valid sector: the same
cinv-rl0 : ∀ {k s x L rs y E} p → CInv k s x L rs y E → CInv k (rl0 p s) x L rs y E
cinv-rl0 {s = s} p (cinv l ab v du bl fx rd bn ln ey en) =
  cinv l ab v du (below-mono (n≤1+n (nxt s)) bl) (fix-place (just (cellD (pv s p) , p2l s p)) (λ _ → refl) bl fx) rd bn ln ey (≤-trans en (n≤1+n (nxt s)))

-- ... of an invalid one: nothing the chain reads
cinv-rlX : ∀ {k s x L rs y E} p → CInv k s x L rs y E → CInv k (rlX p s) x L rs y E
cinv-rlX p (cinv l ab v du bl fx rd bn ln ey en) = cinv l ab v du bl (fix-tr (λ _ m → m) fx) rd bn ln ey en

-- the merge buffer programmed (when it is full)
cinv-progMB : ∀ {k s x L rs y E} → CInv k s x L rs y E → CInv k (progMB s) x L rs y E
cinv-progMB {s = s} {rs = rs} (cinv l ab v du bl fx rd bn ln ey en) =
  cinv l ab (ver-old {s} {0} fx v) (dur-prog fx du) bl (fix-none (λ _ → refl) rs) rd bn ln ey en

-- a write or relocation and its optional program of the merge buffer
-- (a tentative page is a region page: PL writes the consolidation page
-- first, see SCFTL.Impl.LazyChainModel)
cinv-optP : ∀ {k s x L rs y E} f → CInv k s x L rs y E → CInv k (optP f s) x L rs y E
cinv-optP true  ci = cinv-progMB ci
cinv-optP false ci = ci

-- `cinv-esF`: GC's erase of a page no record of the chain names (the
-- guard): the chain keeps verifying on durable pages
cinv-esF : ∀ {k s x L rs y E} p → AvoidAll p rs → CInv k s x L rs y E → CInv k (esF p s) x L rs y E
cinv-esF {s = s} p av (cinv l ab v du bl fx rd bn ln ey en) =
  cinv l ab (ver-ext (upd-cur (dat s) p (put erased (dat s p))) (ver-erase p erased av v))
       (dur-avoid p (put erased (dat s p)) av du) bl (fix-tr (λ _ m → m) fx) rd bn ln ey en

------------------------------------------------------------------------
-- The lazy commit: one record more

-- P's `vOK` (RI): every page the volatile L2P maps lies below the
-- active pointer and holds a sector of that address
VOKn : St → Set
VOKn s = ∀ a p → a ≤ amax → l2p s a ≡ just p → p < nxt s × Σ Data λ d → pv s p ≡ dcell d a

vokn-vok : ∀ {s} → VOKn s → VOK s
vokn-vok v a p le e = proj₂ (v a p le e)

belowD-dig : ∀ {s} → VOKn s → ∀ dd → All (EntM (l2p s)) dd → BelowD (nxt s) dd
belowD-dig v []                 All.[]               = []
belowD-dig {s} v ((p , d , a) ∷ dd) ((le , e) All.∷ es) = proj₁ (v a p le e) ∷ belowD-dig {s} v dd es

-- `cinv-fiL`: the lazy commit with its record in page M (E ≤ M < E +
-- omax, below the active pointer; P's `LkC`) and room in the chain
-- (delta.rs `oob_fits`: fewer than MAX_CHAIN records): the chain with
-- the step's record, its link the active pointer
cinv-fiL : ∀ {k s x L rs y E M} → VOKn s → E ≤ M → M < E + omax → M < nxt s → length rs < k →
           CInv k s x L rs y E → CInv k (fiL M s) x L (rs ++ rec s ∷ []) (suc y) (nxt s)
cinv-fiL {k} {s} {x} {L} {rs} {y} {E} {M} vo le lt mn lk (cinv l ab v du bl fx rd bn ln ey en) =
  cinv (proj₁ lw) (proj₂ lw) (proj₁ vd) (proj₂ vd)
       (below-snoc bl (belowD-dig {s} vo _ (digD-entM s (dbuf s ++ concat (ept s)))))
       (fix-none (λ _ → refl) _) (λ p → refl)
       (subst (λ n → n ≤ k) (sym (length-snoc rs (rec s))) lk) refl (cong suc ey) ≤-refl
  where
    lw = fiL-lay {s} {x} {L} {rs} {y} {E} {M} le lt mn ey l ab
    vd = fiL-ver {s} {M} {x} {L} {rs} {y} {E} (vokn-vok {s} vo) ey l fx v

-- `cinv-fi2-crash`: a crash right before the lazy commit's SYNC: the
-- walk returns the whole chain, or the chain with the crashed record
cinv-fi2-crash : ∀ {k s s' x L rs y E M} → E ≤ M → M < E + omax → M < nxt s → length rs < k →
                 CInv k s x L rs y E → Img (fi2 M s) s' →
                 follow k (gen s) (Rof s') (Dof s') (just (x , L)) ≡ rv rs
               ⊎ follow k (gen s) (Rof s') (Dof s') (just (x , L)) ≡ rv (rs ++ rec s ∷ [])
cinv-fi2-crash {k} {s} {s'} {x} {L} {rs} {y} {E} {M} le lt mn lk (cinv l ab v du bl fx rd bn ln ey en) img@(crD , _ , _ , _ , crR) =
  go (fi2-crash-walk {s} {s'} {M} rd crR {x} {L} {rs} {y} {E} le lt mn ey l ab k)
  where
    v' : Ver (gen s) (Dof s') x rs
    v' = ver-crash (dat (fi2 M s)) (dat s') crD (durall-fi2 {s} {M} fx du) (ver-old {s} {M} fx v)
    F = follow k (gen s) (Rof s') (Dof s') (just (x , L))
    go : F ≡ rv (pre (gen s) (Dof s') k x rs) ⊎ F ≡ rv (pre (gen s) (Dof s') k x (rs ++ rec s ∷ [])) →
         F ≡ rv rs ⊎ F ≡ rv (rs ++ rec s ∷ [])
    go (inj₁ e) = inj₁ (trans e (cong rv (pre-all (gen s) (Dof s') k x rs v' (<⇒≤ lk))))
    go (inj₂ e) with pre-snoc (gen s) (Dof s') k x rs (rec s) v' lk
    ... | inj₁ e' = inj₁ (trans e (cong rv e'))
    ... | inj₂ e' = inj₂ (trans e (cong rv e'))

------------------------------------------------------------------------
-- The region commit with the consolidation page ends the chain: an
-- empty chain from its link (the active pointer)

above-mono : ∀ {g R E E'} → E ≤ E' → Above g R E → Above g R E'
above-mono le ab p le' = ab p (≤-trans le le')

cinv-flK3 : ∀ {k s x L rs y E} y' E' bk → CInv k s x L rs y E →
            CInv k (flK3 y' E' bk s) (ep s) (nxt s) [] (ep s) (nxt s)
cinv-flK3 {s = s} y' E' bk (cinv l ab v du bl fx rd bn ln ey en) =
  cinv end (above-mono en ab) [] [] [] [] (λ p → refl) z≤n refl refl ≤-refl
