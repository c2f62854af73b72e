{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, route (c) of "Not done", item 1 (i), the part the forty-
-- first session left: the code's erase hold implies PL's erase guard.
--
-- The code erases a superblock only when no page of it is held
-- (docs/FORMAT.md §4.3, "The erase hold"; scftl/mod.rs `erase_bound`):
-- while a lazy chain waits for its consolidation page, what a commit of
-- the chain made erasable is held, and the hold ends with the chain
-- (the consolidation page, a region commit, a recovery).  PL's guard
-- (`EraseGuard`) asks instead that no record of the chain and not the
-- region's newest commit name the page.  Here, with the hold as a
-- ghost set of pages `H` beside PL's state:
--
--   * `ri-guard`: in a state with P's RI (every state of PL with no
--     chain on the flash: RIL's first branch) PL's guard holds of every
--     erasable page: the newest commit's digest names only pages its
--     stable map maps (`cmv-dgm`), and RI's `eOK` says no erasable page
--     is one of them.  So the hold is needed only while a chain exists;
--   * `HoldOK s H`: every erasable page not in H satisfies PL's guard;
--     `hold-L`: every step of PL keeps it, with H grown at a lazy commit
--     by what the commit makes erasable (`inv`, `hAfter`) and emptied
--     by a region commit or a consolidation page; the lazy commit's record names only pages the
--     volatile map maps (`digD-av`), and the erase, the writes and the
--     relocations of the chain phase keep the region's newest commit and
--     the chain (`hold-same`);
--   * `PLh`: PL whose erase is guarded by the hold (H p false) instead
--     of `EraseGuard`, with the way out of PLk (the consolidation page
--     first, after which nothing is held), H in its state;
--     `theorem1-PLh`, `PLh-snapshot-consistent`: every step of PLh is a
--     step of PLk (`hold-guard`; after the way out, `ri-guard` over P's
--     RI of the consolidated state), so Theorem 1 and snapshot
--     consistency carry over with `RIL × HoldOK` as the invariant.
--
-- The hold here is per page, as the refinement oracle's `PlGuard` keeps
-- it (crates/crashcheck/src/model/refine.rs); the code holds whole
-- superblocks, which holds at least those pages.  Not modelled: the
-- code's `hold_all` after a reopen that kept a chain (PL's recovery
-- consolidates, so its chain is empty after a recovery), and the
-- documented exceptions (a broken region, a metadata repair).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)
module SCFTL.Impl.LazyChainHold (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (_≤_; _<_; _≤ᵇ_; _≡ᵇ_)
open import Data.Nat.Properties using (≤ᵇ⇒≤; ≡ᵇ⇒≡; _≟_)
open import Data.Bool.Base using (Bool; true; false; _∨_; _∧_; T)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (tt)
open import Data.Empty using (⊥-elim)
open import Relation.Nullary using (yes; no)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (All; []; _∷_; EntM; DgM; cmv-dgm; upd-here; upd-other)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; AR-tOf; acc-split)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (reg-sim; AR⇒≈')
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (rv)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_
  using (fiL; Dof; AvoidAll; Avoid; []; _∷_; digOf)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainStable Data d0 amax wmax kmax _≟D_ kc using (rv-snoc)
open import SCFTL.Impl.LazyChainRegion Data d0 amax wmax kmax _≟D_ kc using (ri-acc)
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainKons Data d0 amax wmax kmax _≟D_ kc using (ri-chain-free; konsS-free; pl-flush-free)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (CRL; pl-rec-A; pl-rec-B)
open import SCFTL.Impl.LazyChainCrashSteps Data d0 amax wmax kmax _≟D_ kc using (free-lazy-ph)
open import SCFTL.Impl.LazyChainCrashKons Data d0 amax wmax kmax _≟D_ kc
  using (ph-chainOf; wr-phase; rl-phase; rlX-phase; kons-emitT-RI; pl-flush-phase; pl-rec-crash)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc
  using (RIL; CIL; wr-sim; rl-sim; step-L; init-CRL; init-CIL)
open import SCFTL.Impl.LazyChainKonsErase Data d0 amax wmax kmax _≟D_ kc
  using (okPLk; crashPLk; kons-RIL; step-Lk; crash-Lk)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (S; State; okS; crashS; use; flush; recover; w; rl; es; Model; Op; SnapshotConsistent;
               obligations⇒SC; new-disk)
  renaming (reg to regop)

------------------------------------------------------------------------
-- Without a chain every erasable page may go

-- a digest whose entries a map maps names no page the map does not map
ents-avoid : ∀ {sm p} dd → All (EntM sm) dd → (∀ a → a ≤ amax → sm a ≢ just p) → Avoid p dd
ents-avoid []                 []              u = []
ents-avoid {sm} {p} ((q , d , a) ∷ dd) ((le , e) ∷ ess) u =
  (λ qp → u a le (subst (λ z → sm a ≡ just z) qp e)) ∷ ents-avoid dd ess u

-- the newest commit recovery accepts, when every accepted digest entry
-- is mapped by sm
top-av : ∀ {sm p} g D cs → DgM sm (acc g D cs) → (∀ a → a ≤ amax → sm a ≢ just p) →
         AvoidAll p (topOf (acc g D cs))
top-av g D []                                  dm u = []
top-av g D (dlt h x ps true (dd , dt , L) ∷ cs) dm u with okC g D (dlt h x ps true (dd , dt , L)) cs
... | true  = ents-avoid dd dm u ∷ []
... | false = top-av g D cs dm u
top-av g D (dlt h x ps false dg ∷ cs)          dm u = top-av g D cs dm u
top-av g D (erased ∷ cs)                       dm u = top-av g D cs dm u
top-av g D (junk ∷ cs)                         dm u = top-av g D cs dm u
top-av g D (dcell d a ∷ cs)                    dm u = top-av g D cs dm u
top-av g D (cpt h m ∷ cs)                      dm u = top-av g D cs dm u

-- `ri-guard`: with P's RI, PL's guard holds of every erasable page
ri-guard : ∀ {s p} → RI s → ers s p ≡ true → EraseGuard s p
ri-guard {s} {p} r e = subst (AvoidAll p) (sym (ri-chain-free r)) [] , top
  where
    g = gen s
    unm : ∀ a → a ≤ amax → smap s a ≢ just p
    unm = proj₂ (proj₂ (RI.eOK r p e))
    eqA : acc g (Dof s) (map cur (dr s)) ≡ acc g (Dof s) (RI.comm r)
    eqA = trans (cong (λ d → acc g (Dof s) (map cur d)) (RI.regEq r))
                (acc-split g (Dof s) (RI.tents r) (RI.comm r) (RI.tNC r))
    dm : DgM (smap s) (acc g (Dof s) (RI.comm r))
    dm = cmv-dgm (Dof s) (λ q c e' → cong cur e') (RI.comm r) (RI.cmV r)
    top : AvoidAll p (regTop s)
    top = subst (λ A → AvoidAll p (topOf A)) (sym eqA) (top-av g (Dof s) (RI.comm r) dm unm)

------------------------------------------------------------------------
-- The hold

Hold : Set
Hold = ℕ → Bool

none : Hold
none _ = false

-- every erasable page the hold leaves free satisfies PL's guard
HoldOK : St → Hold → Set
HoldOK s H = ∀ p → ers s p ≡ true → H p ≡ false → EraseGuard s p

-- `hold-guard`: the code's rule is PL's: an erase the hold allows
hold-guard : ∀ {s H p} → HoldOK s H → ers s p ≡ true → H p ≡ false → EraseGuard s p
hold-guard ho e h = ho _ e h

ri-hold : ∀ {s} H → RI s → HoldOK s H
ri-hold H r p e _ = ri-guard r e

-- in the chain phase, the region's newest commit is the phase's
ph-top : ∀ {s} (ph : Phase s) → regTop s ≡ ph-c ph ∷ []
ph-top ph = cong topOf (ri-acc (ph-rinv ph))

-- a step of the chain phase that keeps the newest commit and the chain
-- keeps the guard of every page
guard-same : ∀ {s s' q} (ph : Phase s) (ph' : Phase s') → ph-c ph' ≡ ph-c ph → ph-rs ph' ≡ ph-rs ph →
             EraseGuard s q → EraseGuard s' q
guard-same {q = q} ph ph' ec er (gc , gt) =
  subst (AvoidAll q) (sym (trans (ph-chainOf ph') (cong rv er))) (subst (AvoidAll q) (ph-chainOf ph) gc) ,
  subst (AvoidAll q) (sym (trans (ph-top ph') (cong (_∷ []) ec))) (subst (AvoidAll q) (ph-top ph) gt)

hold-same : ∀ {s s' H} (ph : Phase s) (ph' : Phase s') → ph-c ph' ≡ ph-c ph → ph-rs ph' ≡ ph-rs ph →
            (∀ q → ers s' q ≡ true → ers s q ≡ true) → HoldOK s H → HoldOK s' H
hold-same ph ph' ec er ee ho q e h = guard-same ph ph' ec er (ho q (ee q e) h)

-- the lazy commit's record names only pages the volatile map maps
private
  ∧-l : ∀ {x y} → x ∧ y ≡ true → x ≡ true
  ∧-l {true} _ = refl
  ∧-r : ∀ {x y} → x ∧ y ≡ true → y ≡ true
  ∧-r {true} e = e
  ∨-l : ∀ {x y} → x ∨ y ≡ false → x ≡ false
  ∨-l {false} _ = refl
  ∨-r : ∀ {x y} → x ∨ y ≡ false → y ≡ false
  ∨-r {false} e = e
  ∨-f : ∀ {x y} → x ∨ y ≡ true → y ≡ false → x ≡ true
  ∨-f {true}  _ _ = refl
  ∨-f {false} e f = trans (sym f) e
  le-of : ∀ a → (a ≤ᵇ amax) ≡ true → a ≤ amax
  le-of a e = ≤ᵇ⇒≤ a amax (subst T (sym e) tt)
  at-of : ∀ m p → isAt m p ≡ true → m ≡ just p
  at-of (just r) p e = cong just (≡ᵇ⇒≡ r p (subst T (sym e) tt))
  true≢false : true ≡ false → ∀ {A : Set} → A
  true≢false ()

digD-av : ∀ s {q} → (∀ a → a ≤ amax → l2p s a ≢ just q) → ∀ ps → Avoid q (digD s ps)
digD-av s u []             = []
digD-av s {q} u ((a , p) ∷ ps) with (a ≤ᵇ amax) ∧ isAt (l2p s a) p in e
... | false = digD-av s u ps
... | true  = (λ pq → u a (le-of a (∧-l e)) (subst (λ z → l2p s a ≡ just z) pq (at-of (l2p s a) p (∧-r e))))
              ∷ digD-av s u ps

-- `hold-lazy`: the lazy commit; what it makes erasable joins the hold
hold-lazy : ∀ {s M H} (ph : Phase s) → RI (virt (rv (ph-rs ph)) s) → HoldOK s H → Lazy s M →
            HoldOK (fiL M s) (λ q → H q ∨ inv s q)
hold-lazy {s} {M} {H} ph r ho lz q e h =
  subst (AvoidAll q) (sym (trans (ph-chainOf ph') (rv-snoc (ph-rs ph) (rec s))))
        (digD-av s unm (dbuf s ++ Data.List.Base.concat (ept s)) ∷ subst (AvoidAll q) (ph-chainOf ph) gc) ,
  subst (AvoidAll q) (sym (ph-top ph')) (subst (AvoidAll q) (ph-top ph) gt)
  where
    ph' = phase-lazy (RI.vOK r) ph lz
    eq : ers s q ≡ true
    eq = ∨-f e (∨-r {H q} h)
    gc = proj₁ (ho q eq (∨-l h))
    gt = proj₂ (ho q eq (∨-l h))
    unm : ∀ a → a ≤ amax → l2p s a ≢ just q
    unm = proj₁ (proj₂ (RI.eOK r q eq))

------------------------------------------------------------------------
-- Every step of PL keeps it

-- the hold after a step: grown at a lazy commit (`grow`: what the
-- commit adds; the code's is `growInv`, mutant 55's adds nothing),
-- emptied by a region commit and by the consolidation page a write or
-- relocation writes before its tentative page (the code's `consolidate`,
-- `new_generation`)
hAfterW : (St → Hold → Hold) → ∀ u {s s'} → okPL EraseGuard (use u) s s' → Hold → Hold
hAfterW grow (regop (w a d)) (inj₁ (_ , _ , true , _))           H = none
hAfterW grow (regop rl)      (inj₁ (_ , _ , _ , inj₁ (_ , _ , true , _))) H = none
hAfterW grow (regop x)     _        H = H
hAfterW grow flush         (inj₁ _) H = none
hAfterW grow flush {s}     (inj₂ _) H = grow s H

growInv : St → Hold → Hold
growInv s H q = H q ∨ inv s q

hAfter : ∀ u {s s'} → okPL EraseGuard (use u) s s' → Hold → Hold
hAfter = hAfterW growInv

private
  ers-optP : ∀ f s q → ers (optP f s) q ≡ ers s q
  ers-optP true  s q = refl
  ers-optP false s q = refl
  ers-esF : ∀ p s q → ers (esF p s) q ≡ true → ers s q ≡ true
  ers-esF p s q e with q ≟ p
  ... | yes refl = true≢false (trans (sym e) (upd-here (ers s) p false))
  ... | no ne    = trans (sym (upd-other (ers s) false ne)) e

hold-L : ∀ u {s s' H} → RIL s → HoldOK s H → (st : okPL EraseGuard (use u) s s') → HoldOK s' (hAfter u st H)
-- without a chain: the state after is P's, with RI
hold-L (regop (w a d)) {s} (inj₁ r) ho (inj₁ (ib , f1 , false , refl)) =
  ri-hold _ (proj₂ (proj₂ (proj₂ (reg-sim (w a d) (AR-tOf s) r (inj₁ (ib , f1 , false , refl))))))
hold-L (regop (w a d)) {s} (inj₁ r) ho (inj₁ (ib , f1 , true , refl)) =
  ri-hold _ (proj₂ (proj₂ (proj₂ (reg-sim (w a d) (AR-tOf s) r
    (inj₁ (ib , f1 , true , cong emitT (konsS-free {optP f1 (wr0 a d s)} (ri-chain-free r1))))))))
  where r1 = proj₂ (proj₂ (proj₂ (reg-sim (w a d) (AR-tOf s) r (inj₁ (ib , f1 , false , refl)))))
hold-L (regop (w a d)) (inj₁ r) ho (inj₂ (nb , refl)) = ho
hold-L (regop rl) {s} (inj₁ r) ho (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl))) =
  ri-hold _ (proj₂ (proj₂ (proj₂ (reg-sim rl (AR-tOf s) r (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl)))))))
hold-L (regop rl) {s} (inj₁ r) ho (inj₁ (k , p , lt , inj₁ (v , f1 , true , refl))) =
  ri-hold _ (proj₂ (proj₂ (proj₂ (reg-sim rl (AR-tOf s) r
    (inj₁ (k , p , lt , inj₁ (v , f1 , true , cong emitT (konsS-free {optP f1 (rl0 p s)} (ri-chain-free r1)))))))))
  where r1 = proj₂ (proj₂ (proj₂ (reg-sim rl (AR-tOf s) r (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl))))))
hold-L (regop rl) {s} (inj₁ r) ho (inj₁ (k , p , lt , inj₂ (nv , refl))) =
  ri-hold _ (proj₂ (proj₂ (proj₂ (reg-sim rl (AR-tOf s) r (inj₁ (k , p , lt , inj₂ (nv , refl)))))))
hold-L (regop rl) (inj₁ r) ho (inj₂ (nk , refl)) = ho
hold-L (regop es) {s} (inj₁ r) ho (p , e , _ , refl) =
  ri-hold _ (proj₂ (proj₂ (proj₂ (reg-sim es (AR-tOf s) r (p , e , refl)))))
hold-L flush {s} (inj₁ r) ho (inj₁ st) = ri-hold _ (proj₂ (proj₂ (proj₂ (pl-flush-free (AR-tOf s) r st))))
hold-L flush {s} {H = H} (inj₁ r) ho (inj₂ (M , lz , refl)) with free-lazy-ph {s} {M} r lz
... | ph , e = hold-lazy ph (subst (λ rs → RI (virt (rv rs) s)) (sym e) r) (ri-hold H r) lz
-- the chain phase
hold-L (regop (w a d)) {s} (inj₂ (ph@(phase C x L y E rs rest c M0 z ci si ri lk e0) , r , nt)) ho
       (inj₁ (ib , f1 , false , refl)) =
  hold-same ph (wr-phase f1 ph) refl refl (λ q → subst (_≡ true) (ers-optP f1 (wr0 a d s) q)) ho
hold-L (regop (w a d)) {s} (inj₂ (ph@(phase C x L y E rs rest c M0 z ci si ri lk e0) , r , nt)) ho
       (inj₁ (ib , f1 , true , refl)) =
  ri-hold _ (proj₂ (kons-emitT-RI (wr-phase f1 ph) (proj₁ (proj₂ (proj₂ (wr-sim {d = d} f1 (AR-tOf s) r ib))))
                                  (proj₂ (proj₂ (proj₂ (wr-sim {d = d} f1 (AR-tOf s) r ib)))) nt))
hold-L (regop (w a d)) (inj₂ _) ho (inj₂ (nb , refl)) = ho
hold-L (regop rl) {s} (inj₂ (ph@(phase C x L y E rs rest c M0 z ci si ri lk e0) , r , nt)) ho
       (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl))) =
  hold-same ph (rl-phase p f1 ph) refl refl (λ q → subst (_≡ true) (ers-optP f1 (rl0 p s) q)) ho
hold-L (regop rl) {s} (inj₂ (ph@(phase C x L y E rs rest c M0 z ci si ri lk e0) , r , nt)) ho
       (inj₁ (k , p , lt , inj₁ (v , f1 , true , refl))) =
  ri-hold _ (proj₂ (kons-emitT-RI (rl-phase p f1 ph) (proj₁ (proj₂ (proj₂ (rl-sim {p = p} f1 (AR-tOf s) r k lt v))))
                                  (proj₂ (proj₂ (proj₂ (rl-sim {p = p} f1 (AR-tOf s) r k lt v)))) nt))
hold-L (regop rl) (inj₂ (ph@(phase C x L y E rs rest c M0 z ci si ri lk e0) , r , nt)) ho
       (inj₁ (k , p , lt , inj₂ (nv , refl))) =
  hold-same ph (rlX-phase p ph) refl refl (λ q e → e) ho
hold-L (regop rl) (inj₂ _) ho (inj₂ (nk , refl)) = ho
hold-L (regop es) {s} (inj₂ (ph@(phase C x L y E rs rest c M0 z ci si ri lk e0) , r , nt)) ho okm@(p , e , _ , refl) =
  hold-same ph (phase-es ph okm) refl refl (ers-esF p s) ho
hold-L flush {s} (inj₂ (ph , r , nt)) ho (inj₁ st) =
  ri-hold _ (proj₂ (proj₂ (proj₂ (pl-flush-phase ph (AR-tOf s) r nt st))))
hold-L flush (inj₂ (ph , r , nt)) ho (inj₂ (M , lz , refl)) = hold-lazy ph r ho lz

------------------------------------------------------------------------
-- PLh: PL with the hold as its erase rule, and PLk's way out

HSt : Set
HSt = St × Hold

-- an erase the hold allows, or the way out: the chain's consolidation
-- page, synced, then any erasable page (nothing is held after it)
EsH : HSt → HSt → Set
EsH (s , H) (s' , H') =
    (Σ ℕ λ p → ers s p ≡ true × H p ≡ false × s' ≡ esF p s × H' ≡ H)
  ⊎ (Σ ℕ λ p → ers (konsS s) p ≡ true × s' ≡ esF p (konsS s) × H' ≡ none)

-- crash points: PL's (PLk's for the way out); the erase's from a step
-- the hold allows
crashPLh : Op → HSt → HSt → Set
crashPLh (use (regop es)) (s , H) (s' , _) =
    (Σ St λ m → (Σ ℕ λ p → ers s p ≡ true × H p ≡ false × m ≡ esF p s) × Img m s')
  ⊎ (Σ St λ m → (m ≡ konsI s ⊎ m ≡ konsS s) × Img m s')
  ⊎ crashPL EraseGuard (use (regop es)) (konsS s) s'
crashPLh (use u) (s , _) (s' , _) = crashPLk (use u) s s'
crashPLh recover (s , _) (s' , _) = crashPLk recover s s'

module _ (grow : St → Hold → Hold) where
  okPLhW : Op → HSt → HSt → Set
  okPLhW (use (regop (w a d))) (s , H) (s' , H') =
    Σ (okPL EraseGuard (use (regop (w a d))) s s') λ st → H' ≡ hAfterW grow (regop (w a d)) st H
  okPLhW (use (regop rl)) (s , H) (s' , H') =
    Σ (okPL EraseGuard (use (regop rl)) s s') λ st → H' ≡ hAfterW grow (regop rl) st H
  okPLhW (use (regop es)) x x' = EsH x x'
  okPLhW (use flush) (s , H) (s' , H') =
    Σ (okPL EraseGuard (use flush) s s') λ st → H' ≡ hAfterW grow flush st H
  okPLhW recover (s , H) (s' , H') = okPL EraseGuard recover s s' × H' ≡ none

  PLhWith : Model
  PLhWith = record { State = HSt ; New = λ x → NewP (proj₁ x) ; read = λ x → rd (proj₁ x)
                   ; ok = okPLhW ; crash = crashPLh }

okPLh : Op → HSt → HSt → Set
okPLh = okPLhW growInv

PLh : Model
PLh = PLhWith growInv

RIh : HSt → Set
RIh (s , H) = RIL s × HoldOK s H

-- every step of PLh is one of PLk's
as-PLk : ∀ u {s H s' H'} → RIh (s , H) → okPLh (use u) (s , H) (s' , H') → okPLk (use u) s s'
as-PLk (regop (w a d)) _ (st , _) = st
as-PLk (regop rl)      _ (st , _) = st
as-PLk (regop es) {s} (_ , ho) (inj₁ (p , e , h , refl , _)) = inj₁ (p , e , hold-guard {s} ho e h , refl)
as-PLk (regop es) {s} (r , _) (inj₂ (p , e , refl , _)) =
  inj₂ (p , e , ri-guard (proj₂ (kons-RIL (AR-tOf s) r)) e , refl)
as-PLk flush           _ (st , _) = st

-- and keeps the hold's invariant
hold-h : ∀ u {s H s' H'} → RIh (s , H) → okPLh (use u) (s , H) (s' , H') → HoldOK s' H'
hold-h (regop (w a d)) (r , ho) (st , refl) = hold-L (regop (w a d)) r ho st
hold-h (regop rl)      (r , ho) (st , refl) = hold-L (regop rl) r ho st
hold-h (regop es) {s} (r , ho) (inj₁ (p , e , h , refl , refl)) = hold-L (regop es) r ho (p , e , hold-guard {s} ho e h , refl)
hold-h (regop es) {s} (r , ho) (inj₂ (p , e , refl , refl)) with kons-RIL (AR-tOf s) r
... | ar' , r' = ri-hold none (proj₂ (proj₂ (proj₂ (reg-sim es ar' r' (p , e , refl)))))
hold-h flush           (r , ho) (st , refl) = hold-L flush r ho st

step-h : ∀ u {s t s' H H'} → AR s t → RIh (s , H) → okPLh (use u) (s , H) (s' , H') →
         Σ State λ t' → okS (use u) t t' × AR s' t' × RIh (s' , H')
step-h u arr rh st with step-Lk u arr (proj₁ rh) (as-PLk u rh st)
... | t' , st' , ar' , r' = t' , st' , ar' , r' , hold-h u rh st

crash-h : ∀ u {s t s' H H'} → AR s t → RIh (s , H) → crashPLh (use u) (s , H) (s' , H') →
          Σ State λ t' → crashS (use u) t t' × CRL s' t'
crash-h (regop (w a d)) arr rh c = crash-Lk (regop (w a d)) arr (proj₁ rh) c
crash-h (regop rl)      arr rh c = crash-Lk (regop rl) arr (proj₁ rh) c
crash-h (regop es) {s} arr (r , ho) (inj₁ (m , (p , e , h , refl) , img)) =
  crash-Lk (regop es) arr r (inj₁ (m , (p , e , hold-guard {s} ho e h , refl) , img))
crash-h (regop es) arr (r , ho) (inj₂ c) = crash-Lk (regop es) arr r (inj₂ c)
crash-h flush           arr rh c = crash-Lk flush arr (proj₁ rh) c

------------------------------------------------------------------------
-- Theorem 1 and snapshot consistency for PLh

open Sp.ForwardSimulation PLh S using (Obligations; theorem1)

obligations-PLh : Obligations
obligations-PLh = record
  { AR = λ x t → AR (proj₁ x) t ; CR = λ x t → CRL (proj₁ x) t ; RI = RIh ; CI = λ x → CIL (proj₁ x)
  ; AR⇒≈    = AR⇒≈'
  ; init-CR = λ {x} {t} → init-CRL {proj₁ x} {t}
  ; init-CI = λ {x} → init-CIL {proj₁ x}
  ; A-ok    = λ u {x} {t} {x'} arr r st → let (t' , st' , ar' , _) = step-h u {proj₁ x} {t} {proj₁ x'} {proj₂ x} {proj₂ x'} arr r st
                                          in t' , st' , ar'
  ; A-crash = λ u {x} {t} {x'} arr r c → crash-h u {proj₁ x} {t} {proj₁ x'} {proj₂ x} {proj₂ x'} arr r c
  ; A-rec   = λ {x} {t} {x'} cr _ st → pl-rec-A {EraseGuard} {proj₁ x} {t} {proj₁ x'} cr (proj₁ st)
  ; A-recᶜ  = λ {x} {t} {x'} cr _ c → pl-rec-crash {EraseGuard} {proj₁ x} {t} {proj₁ x'} cr c
  ; B-ok    = λ u {x} {x'} r st → proj₂ (proj₂ (proj₂ (step-h u {proj₁ x} {_} {proj₁ x'} {proj₂ x} {proj₂ x'}
                                                             (AR-tOf (proj₁ x)) r st)))
  ; B-crash = λ u {x} {x'} r c → let (t' , _ , cr) = crash-h u {proj₁ x} {_} {proj₁ x'} {proj₂ x} {proj₂ x'}
                                                          (AR-tOf (proj₁ x)) r c in t' , cr
  ; B-rec   = λ {x} {x'} ci st → rec-h {proj₁ x} {proj₁ x'} {proj₂ x'} ci st
  ; B-recᶜ  = λ {x} {x'} ci c → let (t' , _ , cr) = pl-rec-crash {EraseGuard} {proj₁ x} {proj₁ ci} {proj₁ x'} (proj₂ ci) c
                                in t' , cr
  }
  where
    rec-h : ∀ {s s' H'} → CIL s → okPL EraseGuard recover s s' × H' ≡ none → RIh (s' , H')
    rec-h {s} ci (st , refl) = let r = pl-rec-B {EraseGuard} {s} {proj₁ ci} (proj₂ ci) st in inj₁ r , ri-hold none r

-- Theorem 1 for PLh: every behaviour of PL with the code's hold in place
-- of its erase guard (and the way out) is one of S's
theorem1-PLh : Sp.Correspondence.BehaviourallyCorrect PLh S
theorem1-PLh = theorem1 obligations-PLh new-disk

-- PLh is snapshot-consistent
PLh-snapshot-consistent : SnapshotConsistent PLh
PLh-snapshot-consistent = obligations⇒SC PLh obligations-PLh
