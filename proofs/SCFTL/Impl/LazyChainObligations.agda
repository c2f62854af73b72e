{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: the obligations of Theorem 1 for PL, all but
-- one crash point.
--
-- PL's invariant `RIL s`: P's RI (no chain), or the chain phase
-- (`Phase`) with P's RI on the virtually consolidated state and `TopNT`
-- (SCFTL.Impl.LazyChainCrashKons); PL's AR is P's; its crash relation
-- `CRL` (SCFTL.Impl.LazyChainCrash); its crash invariant `CIL s`: `CRL`
-- with some S state.  Every obligation of the forward simulation holds
-- (`step-L`: type A and B of every operation; `crash-L`: every crash
-- point of every operation; recovery: `pl-rec-A`, `pl-rec-B`,
-- `pl-rec-crash`), given `LandedOK`: the one crash point not proven,
-- the lazy commit's before its SYNC with its record taken by the walk
-- over a nonempty chain (`pl-fi2-crash-CRL` returns P's `CRm` on the
-- flash with the chain before the step there; over an empty chain
-- `free-fi2-landed` moves it).  So `theorem1-PL-if` and
-- `PL-snapshot-consistent-if`: Theorem 1 and snapshot consistency for
-- PL from `LandedOK`.  Theorem 1 for PL itself needs `LandedOK` proven.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainObligations (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                       (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (_≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; CR; RecTo; AR-tOf; CI⇒CR)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (tF; CRm)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (reg-sim; AR⇒≈'; init-CR'; init-CI')
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (rv)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (fiL)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainStable Data d0 amax wmax kmax _≟D_ kc using (rv-snoc)
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainVirtual Data d0 amax wmax kmax _≟D_ kc using (ar-virt; ar-unvirt; virt-es; virt-lazy)
open import SCFTL.Impl.LazyChainKons Data d0 amax wmax kmax _≟D_ kc using (ri-chain-free; konsS-free; pl-flush-free)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (CRL; pl-rec-A; pl-rec-B)
open import SCFTL.Impl.LazyChainCrashSteps Data d0 amax wmax kmax _≟D_ kc
  using (pl-es-crash; pl-lazy-crash; pl-fi2-crash-CRL; free-reg-crash; free-kons-crash; free-lazy-crash-CRL; free-lazy-ph;
         free-fi2-landed; snoc≢[])
open import SCFTL.Impl.LazyChainCrashKons Data d0 amax wmax kmax _≟D_ kc
  using (TopNT; nt-es; nt-lazy; wr-phase; rl-phase; rlX-phase; kons-emitT-RI; pl-flush-phase;
         pl-wr-crash-all; pl-rl-crash-all; pl-kons-flush-crash; pl-flush-crash-phase; free-flush-crash-CRL;
         pl-rec-crash; crl-of; walk-nodr)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (S; State; ⟨_,_,_⟩; stable; okS; crashS; use; flush; recover; w; rl; es; SnapshotConsistent;
               obligations⇒SC; new-disk)
  renaming (reg to regop; New to NewS)

------------------------------------------------------------------------
-- PL's invariants

RIL : St → Set
RIL s = RI s ⊎ (Σ (Phase s) λ ph → RI (virt (rv (ph-rs ph)) s) × TopNT (ph-rs ph))

CIL : St → Set
CIL s = Σ State λ t → CRL s t

-- the one crash point not proven here (for an empty chain it is,
-- `free-fi2-landed`)
LandedOK : Set
LandedOK = ∀ {s t s' M} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) → ph-rs ph ≢ [] →
           Lazy s M → Img (fi2 M s) s' →
           walkG (gen s) s' ≡ rec s ∷ rv (ph-rs ph) →
           (Σ State λ t' → crashS (use flush) t t' × CRm (virt (rv (ph-rs ph)) s) (virt (rv (ph-rs ph)) s') t') →
           Σ State λ t' → crashS (use flush) t t' × CRL s' t'

------------------------------------------------------------------------
-- Type A and B of every operation

-- P's step on the virtually consolidated state
wr-sim : ∀ {vs s t a d} f1 → AR s t → RI (virt vs s) → InB a s →
         Σ State λ t' → okS (use (regop (w a d))) t t' × AR (optP f1 (wr0 a d s)) t' × RI (virt vs (optP f1 (wr0 a d s)))
wr-sim {vs} {s} {t} {a} {d} true arr r ib with reg-sim (w a d) {virt vs s} (ar-virt arr) r (inj₁ (ib , true , false , refl))
... | t' , st , ar' , r' = t' , st , ar-unvirt ar' , r'
wr-sim {vs} {s} {t} {a} {d} false arr r ib with reg-sim (w a d) {virt vs s} (ar-virt arr) r (inj₁ (ib , false , false , refl))
... | t' , st , ar' , r' = t' , st , ar-unvirt ar' , r'

rl-sim : ∀ {vs s t p} f1 → AR s t → RI (virt vs s) → gcnt s ≤ kmax → p < nxt s → Valid s p →
         Σ State λ t' → okS (use (regop rl)) t t' × AR (optP f1 (rl0 p s)) t' × RI (virt vs (optP f1 (rl0 p s)))
rl-sim {vs} {s} {t} {p} true arr r k lt v with reg-sim rl {virt vs s} (ar-virt arr) r (inj₁ (k , p , lt , inj₁ (v , true , false , refl)))
... | t' , st , ar' , r' = t' , st , ar-unvirt ar' , r'
rl-sim {vs} {s} {t} {p} false arr r k lt v with reg-sim rl {virt vs s} (ar-virt arr) r (inj₁ (k , p , lt , inj₁ (v , false , false , refl)))
... | t' , st , ar' , r' = t' , st , ar-unvirt ar' , r'

-- a step that leaves the chain phase with a tentative page after the
-- consolidation page
tent : ∀ {m0 t'} (ph : Phase m0) → AR m0 t' → RI (virt (rv (ph-rs ph)) m0) → TopNT (ph-rs ph) →
       AR (emitT (konsS m0)) t' × RIL (emitT (konsS m0))
tent ph ar r nt with kons-emitT-RI ph ar r nt
... | ar' , r' = ar' , inj₁ r'

-- the lazy commit from the chain phase
lazy-step : ∀ {s t M} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → Lazy s M →
            Σ State λ t' → okS (use flush) t t' × AR (fiL M s) t' × RIL (fiL M s)
lazy-step {s} {t} {M} ph arr r lz with virt-lazy {rv (ph-rs ph)} {s} {t} {M} arr r lz
... | ar' , r' =
  tF t , (refl , refl , refl) , ar' ,
  inj₂ (phase-lazy (RI.vOK r) ph lz ,
        subst (λ vs → RI (virt vs (fiL M s))) (sym (rv-snoc (ph-rs ph) (rec s))) r' , nt-lazy (RI.vOK r) ph lz)

step-L : ∀ u {s t s'} → AR s t → RIL s → okPL EraseGuard (use u) s s' →
         Σ State λ t' → okS (use u) t t' × AR s' t' × RIL s'
-- without a chain: P's steps
step-L (regop (w a d)) arr (inj₁ r) (inj₁ (ib , f1 , false , refl)) with reg-sim (w a d) arr r (inj₁ (ib , f1 , false , refl))
... | t' , st , ar' , r' = t' , st , ar' , inj₁ r'
step-L (regop (w a d)) {s} arr (inj₁ r) (inj₁ (ib , f1 , true , refl))
  with reg-sim (w a d) arr r (inj₁ (ib , f1 , true , cong emitT (konsS-free {optP f1 (wr0 a d s)} (ri-chain-free r1))))
  where r1 = proj₂ (proj₂ (proj₂ (reg-sim (w a d) arr r (inj₁ (ib , f1 , false , refl)))))
... | t' , st , ar' , r' = t' , st , ar' , inj₁ r'
step-L (regop (w a d)) arr (inj₁ r) (inj₂ (nb , refl)) with reg-sim (w a d) arr r (inj₂ (nb , refl))
... | t' , st , ar' , r' = t' , st , ar' , inj₁ r'
step-L (regop rl) arr (inj₁ r) (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl)))
  with reg-sim rl arr r (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl)))
... | t' , st , ar' , r' = t' , st , ar' , inj₁ r'
step-L (regop rl) {s} arr (inj₁ r) (inj₁ (k , p , lt , inj₁ (v , f1 , true , refl)))
  with reg-sim rl arr r (inj₁ (k , p , lt , inj₁ (v , f1 , true , cong emitT (konsS-free {optP f1 (rl0 p s)} (ri-chain-free r1)))))
  where r1 = proj₂ (proj₂ (proj₂ (reg-sim rl arr r (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl))))))
... | t' , st , ar' , r' = t' , st , ar' , inj₁ r'
step-L (regop rl) arr (inj₁ r) (inj₁ (k , p , lt , inj₂ (nv , refl))) with reg-sim rl arr r (inj₁ (k , p , lt , inj₂ (nv , refl)))
... | t' , st , ar' , r' = t' , st , ar' , inj₁ r'
step-L (regop rl) arr (inj₁ r) (inj₂ (nk , refl)) with reg-sim rl arr r (inj₂ (nk , refl))
... | t' , st , ar' , r' = t' , st , ar' , inj₁ r'
step-L (regop es) arr (inj₁ r) (p , e , _ , refl) with reg-sim es arr r (p , e , refl)
... | t' , st , ar' , r' = t' , st , ar' , inj₁ r'
step-L flush arr (inj₁ r) (inj₁ st) with pl-flush-free arr r st
... | t' , st' , ar' , r' = t' , st' , ar' , inj₁ r'
step-L flush {s} arr (inj₁ r) (inj₂ (M , lz , refl)) with free-lazy-ph {s} {M} r lz
... | ph , e = lazy-step ph arr (subst (λ rs → RI (virt (rv rs) s)) (sym e) r) lz
-- the chain phase
step-L (regop (w a d)) {s} arr (inj₂ (ph , r , nt)) (inj₁ (ib , f1 , false , refl))
  with wr-sim {rv (ph-rs ph)} {s} {_} {a} {d} f1 arr r ib
... | t' , st , ar' , r' = t' , st , ar' , inj₂ (wr-phase f1 ph , r' , nt)
step-L (regop (w a d)) {s} arr (inj₂ (ph , r , nt)) (inj₁ (ib , f1 , true , refl))
  with wr-sim {rv (ph-rs ph)} {s} {_} {a} {d} f1 arr r ib
... | t' , st , ar' , r' with tent (wr-phase {s} {a} {d} f1 ph) ar' r' nt
...   | ar'' , r'' = t' , st , ar'' , r''
step-L (regop (w a d)) {s} arr (inj₂ (ph , r , nt)) (inj₂ (nb , refl))
  with reg-sim (w a d) {virt (rv (ph-rs ph)) s} (ar-virt arr) r (inj₂ (nb , refl))
... | t' , st , ar' , r' = t' , st , ar-unvirt ar' , inj₂ (ph , r' , nt)
step-L (regop rl) {s} arr (inj₂ (ph , r , nt)) (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl)))
  with rl-sim {rv (ph-rs ph)} {s} {_} {p} f1 arr r k lt v
... | t' , st , ar' , r' = t' , st , ar' , inj₂ (rl-phase p f1 ph , r' , nt)
step-L (regop rl) {s} arr (inj₂ (ph , r , nt)) (inj₁ (k , p , lt , inj₁ (v , f1 , true , refl)))
  with rl-sim {rv (ph-rs ph)} {s} {_} {p} f1 arr r k lt v
... | t' , st , ar' , r' with tent (rl-phase p f1 ph) ar' r' nt
...   | ar'' , r'' = t' , st , ar'' , r''
step-L (regop rl) {s} arr (inj₂ (ph , r , nt)) (inj₁ (k , p , lt , inj₂ (nv , refl)))
  with reg-sim rl {virt (rv (ph-rs ph)) s} (ar-virt arr) r (inj₁ (k , p , lt , inj₂ (nv , refl)))
... | t' , st , ar' , r' = t' , st , ar-unvirt ar' , inj₂ (rlX-phase p ph , r' , nt)
step-L (regop rl) {s} arr (inj₂ (ph , r , nt)) (inj₂ (nk , refl))
  with reg-sim rl {virt (rv (ph-rs ph)) s} (ar-virt arr) r (inj₂ (nk , refl))
... | t' , st , ar' , r' = t' , st , ar-unvirt ar' , inj₂ (ph , r' , nt)
step-L (regop es) {s} arr (inj₂ (ph , r , nt)) okm@(p , e , _ , refl) with virt-es {rv (ph-rs ph)} {s} arr r okm
... | t' , st , ar' , r' = t' , st , ar' , inj₂ (phase-es ph okm , r' , nt-es ph okm nt)
step-L flush arr (inj₂ (ph , r , nt)) (inj₁ st) with pl-flush-phase ph arr r nt st
... | t' , st' , ar' , r' = t' , st' , ar' , inj₁ r'
step-L flush arr (inj₂ (ph , r , nt)) (inj₂ (M , lz , refl)) = lazy-step ph arr r lz

------------------------------------------------------------------------
-- Every crash point of every operation

crash-L : LandedOK → ∀ u {s t s'} → AR s t → RIL s → crashPL EraseGuard (use u) s s' →
          Σ State λ t' → crashS (use u) t t' × CRL s' t'
crash-L lo (regop x) arr (inj₁ r) c = free-reg-crash x arr r c
crash-L lo flush arr (inj₁ r) (m , inj₁ e , img) = free-kons-crash arr r e img
crash-L lo flush {s} arr (inj₁ r) (m , inj₂ (inj₁ fp) , img) =
  free-flush-crash-CRL arr r (subst (λ u → FlPt u m) (konsS-free {s} (ri-chain-free r)) fp) img
crash-L lo flush arr (inj₁ r) (m , inj₂ (inj₂ (M , lz , pt)) , img) = free-lazy-crash-CRL arr r (RI.vOK r) lz pt img
crash-L lo (regop (w a d)) arr (inj₂ (ph , r , nt)) c = pl-wr-crash-all {EraseGuard} ph arr r nt c
crash-L lo (regop rl) arr (inj₂ (ph , r , nt)) c = pl-rl-crash-all {EraseGuard} ph arr r nt c
crash-L lo (regop es) arr (inj₂ (ph , r , nt)) c = pl-es-crash ph arr r c
crash-L lo flush arr (inj₂ (ph , r , nt)) (m , inj₁ e , img) = pl-kons-flush-crash ph arr r nt e img
crash-L lo flush arr (inj₂ (ph , r , nt)) (m , inj₂ (inj₁ fp) , img) = pl-flush-crash-phase ph arr r nt fp img
crash-L lo flush arr (inj₂ (ph , r , nt)) (m , inj₂ (inj₂ (M , lz , inj₂ e)) , img) = pl-lazy-crash ph arr r (RI.vOK r) lz e img
crash-L lo flush {s} {t} {s'} arr (inj₂ (ph , r , nt)) (m , inj₂ (inj₂ (M , lz , inj₁ refl)) , img)
  with pl-fi2-crash-CRL ph arr r lz img
... | inj₁ x = x
... | inj₂ (wk , rest) = landed nt wk rest
  where
    landed : TopNT (ph-rs ph) → walkG (gen s) s' ≡ rec s ∷ rv (ph-rs ph) →
             (Σ State λ t' → crashS (use flush) t t' × CRm (virt (rv (ph-rs ph)) s) (virt (rv (ph-rs ph)) s') t') →
             Σ State λ t' → crashS (use flush) t t' × CRL s' t'
    landed (inj₂ (rs0 , h , y' , ps , dd , E' , e)) wk' rest' =
      lo ph arr r nt (λ e0 → snoc≢[] rs0 _ (trans (sym e) e0)) lz img wk' rest'
    landed (inj₁ e) wk' rest'
      with subst (λ rs → Σ State λ t' → crashS (use flush) t t' × CRm (virt (rv rs) s) (virt (rv rs) s') t') e rest'
    ... | t' , c , cm =
      t' , c , free-fi2-landed {s} {s'} {M} {t'} (subst (λ rs → RI (virt (rv rs) s)) e r) lz img
                               (trans wk' (cong (λ rs → rec s ∷ rv rs) e)) cm

------------------------------------------------------------------------
-- The obligations, Theorem 1 and snapshot consistency for PL, given
-- `LandedOK`

open Sp.ForwardSimulation PL S using (Obligations; theorem1)

init-CRL : ∀ {s t} → NewP s → NewS t → CRL s t
init-CRL {s} {t} n en with init-CR' {s} {t} n en
... | M , rt , dk = crl-of {s} {t} {M} rt dk (walk-nodr (RecTo.g rt) s (proj₁ (proj₂ (proj₂ n))))

init-CIL : ∀ {s} → NewP s → CIL s
init-CIL {s} n with init-CI' {s} n
... | M , X , rt , dk = ⟨ X , X , 0 ⟩ , crl-of {s} {⟨ X , X , 0 ⟩} {M} rt dk (walk-nodr (RecTo.g rt) s (proj₁ (proj₂ (proj₂ n))))

obligations-PL : LandedOK → Obligations
obligations-PL lo = record
  { AR = AR ; CR = CRL ; RI = RIL ; CI = CIL
  ; AR⇒≈    = AR⇒≈'
  ; init-CR = λ {s} {t} → init-CRL {s} {t}
  ; init-CI = λ {s} → init-CIL {s}
  ; A-ok    = λ u arr r st → let (t' , st' , ar' , _) = step-L u arr r st in t' , st' , ar'
  ; A-crash = crash-L lo
  ; A-rec   = λ {s} {t} {s'} cr _ st → pl-rec-A {EraseGuard} {s} {t} {s'} cr st
  ; A-recᶜ  = λ {s} {t} {s'} cr _ c → pl-rec-crash {EraseGuard} {s} {t} {s'} cr c
  ; B-ok    = λ u {s} r st → proj₂ (proj₂ (proj₂ (step-L u (AR-tOf s) r st)))
  ; B-crash = λ u {s} r c → let (t' , _ , cr) = crash-L lo u (AR-tOf s) r c in t' , cr
  ; B-rec   = λ {s} {s'} ci st → inj₁ (pl-rec-B {EraseGuard} {s} {proj₁ ci} {s'} (proj₂ ci) st)
  ; B-recᶜ  = λ {s} {s'} ci c → let (t' , _ , cr) = pl-rec-crash {EraseGuard} {s} {proj₁ ci} {s'} (proj₂ ci) c in t' , cr
  }

-- `theorem1-PL-if`: Theorem 1 for PL, given `LandedOK`
theorem1-PL-if : LandedOK → Sp.Correspondence.BehaviourallyCorrect PL S
theorem1-PL-if lo = theorem1 (obligations-PL lo) new-disk

-- `PL-snapshot-consistent-if`: PL is snapshot-consistent, given `LandedOK`
PL-snapshot-consistent-if : LandedOK → SnapshotConsistent PL
PL-snapshot-consistent-if lo = obligations⇒SC PL (obligations-PL lo)
