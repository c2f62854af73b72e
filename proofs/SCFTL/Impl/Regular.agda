{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Per-operation correctness (types A and B) of the regular operations of
-- the SCFTL model: write, gc_rl (relocate), gc_es (erase), together with
-- the optional merge-buffer program and tentative delta page they may do.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.Regular (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl; ≤-step; _≟_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥-elim)
open import Data.Unit.Base using (tt)
open import Data.List.Base using (List; []; _∷_; map; concat)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (State; ⟨_,_,_⟩; volatile; stable; okS; use; w; rl; es)
  renaming (reg to regop)

just≡ : ∀ {A : Set} {x y : A} → just x ≡ just y → x ≡ y
just≡ refl = refl

------------------------------------------------------------------------
-- The merge-buffer program and the tentative delta page

cur-progm : ∀ mp m → cur (progm mp m) ≡ pvm mp (cur m)
cur-progm (just (d , a)) m = refl
cur-progm nothing        m = refl

pv-progMB : ∀ s p → pv (progMB s) p ≡ pv s p
pv-progMB s p = cur-progm (mb s p) (dat s p)

progMB-RI : ∀ {s} → RI s → RI (progMB s)
progMB-RI {s} r = record
  { C = C ; tents = tents ; comm = comm ; slotL = slotL ; slotO = slotO ; regEq = regEq
  ; tNC = tNC ; gle = gle ; cmX = cmX ; cmP = cmP ; vm = vm
  ; vOK = λ a p le e → let (lt , d , ed) = vOK a p le e in lt , d , trans (pv-progMB s p) ed
  ; sOK = λ a p le e → let (lt , mbn , d , dd) = sOK a p le e in
            lt , refl , d , trans (cong (λ x → progm x (dat s p)) mbn) dd
  ; iOK = iOK ; eOK = eOK ; tEq = tEq
  ; cmV = cmv-mono (λ p d a le sm e → let (_ , mbn , _) = sOK a p le sm in
                      trans (cong (λ x → progm x (dat s p)) mbn) e) comm cmV ; rcOK = rcOK ; lkOK = lkOK ; rcN = rcN ; rcL = rcL }
  where open RI r

rdm-progMB : ∀ s mp → rdm (progMB s) mp ≡ rdm s mp
rdm-progMB s nothing  = refl
rdm-progMB s (just p) = cong cellD (pv-progMB s p)

progMB-AR : ∀ {s t} → RI s → AR s t → AR (progMB s) t
progMB-AR {s} {t} r (ar v st c) =
  ar (λ a le → trans (rdm-progMB s (l2p s a)) (v a le))
     (λ a le → trans (go a le (smap s a) refl) (st a le)) c
  where
    go : ∀ a → a ≤ amax → ∀ mp → smap s a ≡ mp → rdS (progMB s) mp ≡ rdS s mp
    go a le nothing  _ = refl
    go a le (just p) e with RI.sOK r a p le e
    ... | _ , mbn , _ = cong (λ x → cellD (cur (progm x (dat s p)))) mbn

emitT-RI : ∀ {s} → RI s → RI (emitT s)
emitT-RI {s} r = record
  { C = C ; tents = uns erased (dlt (gen s) (ep s) (dbuf s) false ε) ∷ tents ; comm = comm
  ; slotL = slotL ; slotO = slotO ; regEq = cong (_ ∷_) regEq
  ; tNC = (tt , inj₂ refl) ∷ tNC ; gle = (tt , ≤-refl) ∷ gle ; cmX = cmX ; cmP = cmP
  ; vm = λ a → trans (vm a) (cong (λ f → f a) (sym (apply-++ (dbuf s) (concat (ept s)) (smap s))))
  ; vOK = vOK ; sOK = sOK ; iOK = iOK ; eOK = eOK ; tEq = cong (_ ∷_) tEq ; cmV = cmV ; rcOK = rcOK ; lkOK = lkOK ; rcN = rcN ; rcL = rcL }
  where open RI r

emitT-AR : ∀ {s t} → AR s t → AR (emitT s) t
emitT-AR (ar v st c) = ar v st c

opt-RI : ∀ f1 f2 {s} → RI s → RI (opt f1 f2 s)
opt-RI true  true  r = emitT-RI (progMB-RI r)
opt-RI true  false r = progMB-RI r
opt-RI false true  r = emitT-RI r
opt-RI false false r = r

opt-AR : ∀ f1 f2 {s t} → RI s → AR s t → AR (opt f1 f2 s) t
opt-AR true  true  r a = emitT-AR (progMB-AR r a)
opt-AR true  false r a = progMB-AR r a
opt-AR false true  r a = emitT-AR a
opt-AR false false r a = a

------------------------------------------------------------------------
-- Placing a sector at the active pointer (write and relocation)

pv-place : ∀ a d s p → p ≢ nxt s → pv (place a d s) p ≡ pv s p
pv-place a d s p ne = cong (λ x → pvm x (cur (dat s p))) (upd-other (mb s) (just (d , a)) ne)

pv-place-here : ∀ a d s → pv (place a d s) (nxt s) ≡ dcell d a
pv-place-here a d s = cong (λ x → pvm x (cur (dat s (nxt s)))) (upd-here (mb s) (nxt s) (just (d , a)))

place-RI : ∀ {s} a d → a ≤ amax → RI s → RI (place a d s)
place-RI {s} a d ale r = record
  { C = C ; tents = tents ; comm = comm ; slotL = slotL ; slotO = slotO ; regEq = regEq
  ; tNC = tNC ; gle = gle ; cmX = cmX ; cmP = cmP
  ; vm = ≐-upd a (just (nxt s)) vm
  ; vOK = vOK' ; sOK = sOK' ; iOK = iOK' ; eOK = eOK' ; tEq = tEq ; cmV = cmV ; rcOK = rcOK ; lkOK = lkOK
  ; rcN = λ p le → rcN p (Data.Nat.Properties.<⇒≤ le) ; rcL = rcL }
  where
    open RI r
    n = nxt s
    l2p' = l2p s [ a ≔ just n ]
    vOK' : ∀ b p → b ≤ amax → l2p' b ≡ just p → p < suc n × Σ Data λ d' → pv (place a d s) p ≡ dcell d' b
    vOK' b p le e with b ≟ a
    ... | yes refl with just≡ (trans (sym (upd-here (l2p s) a (just n))) e)
    ...   | refl = ≤-refl , d , pv-place-here a d s
    vOK' b p le e | no ne with vOK b p le (trans (sym (upd-other (l2p s) (just n) ne)) e)
    ...   | lt , d' , ed = ≤-step lt , d' , trans (pv-place a d s p (<⇒≢ lt)) ed
    sOK' : ∀ b p → b ≤ amax → smap s b ≡ just p →
           p < suc n × mb (place a d s) p ≡ nothing × Σ Data λ d' → dat s p ≡ syn (dcell d' b)
    sOK' b p le e with sOK b p le e
    ... | lt , mbn , dd = ≤-step lt , trans (upd-other (mb s) (just (d , a)) (<⇒≢ lt)) mbn , dd
    notp : ∀ p → p < n → (∀ b → b ≤ amax → l2p s b ≢ just p) → ∀ b → b ≤ amax → l2p' b ≢ just p
    notp p lt nl b le eq with b ≟ a
    ... | yes refl = <⇒≢ lt (sym (just≡ (trans (sym (upd-here (l2p s) a (just n))) eq)))
    ... | no ne    = nl b le (trans (sym (upd-other (l2p s) (just n) ne)) eq)
    iOK' : ∀ p → inv s p ≡ true → p < suc n × (∀ b → b ≤ amax → l2p' b ≢ just p)
    iOK' p e with iOK p e
    ... | lt , nl = ≤-step lt , notp p lt nl
    eOK' : ∀ p → ers s p ≡ true → p < suc n × (∀ b → b ≤ amax → l2p' b ≢ just p)
                                          × (∀ b → b ≤ amax → smap s b ≢ just p)
    eOK' p e with eOK p e
    ... | lt , nl , ns = ≤-step lt , notp p lt nl , ns

rdm-place : ∀ {s} a d → RI s → ∀ b → b ≤ amax → ∀ mp → l2p s b ≡ mp → rdm (place a d s) mp ≡ rdm s mp
rdm-place a d r b le nothing  _ = refl
rdm-place {s} a d r b le (just p) e with RI.vOK r b p le e
... | lt , _ = cong cellD (pv-place a d s p (<⇒≢ lt))

place-rd-here : ∀ a d s → rd (place a d s) a ≡ d
place-rd-here a d s =
  trans (cong (rdm (place a d s)) (upd-here (l2p s) a (just (nxt s)))) (cong cellD (pv-place-here a d s))

place-rd-other : ∀ {s} a d → RI s → ∀ b → b ≤ amax → b ≢ a → rd (place a d s) b ≡ rd s b
place-rd-other {s} a d r b le ne =
  trans (cong (rdm (place a d s)) (upd-other (l2p s) (just (nxt s)) ne))
        (rdm-place a d r b le (l2p s b) refl)

------------------------------------------------------------------------
-- write

wr0-RI : ∀ {s} a d → a ≤ amax → RI s → RI (wr0 a d s)
wr0-RI {s} a d ale r = record
  { C = C ; tents = tents ; comm = comm ; slotL = slotL ; slotO = slotO ; regEq = regEq
  ; tNC = tNC ; gle = gle ; cmX = cmX ; cmP = cmP ; vm = vm
  ; vOK = vOK ; sOK = sOK ; iOK = iOK ; eOK = eOK ; tEq = tEq ; cmV = cmV ; rcOK = rcOK ; lkOK = lkOK ; rcN = rcN ; rcL = rcL }
  where open RI (place-RI a d ale r)

wr0-AR : ∀ {s t} a d → a ≤ amax → RI s → AR s t →
  AR (wr0 a d s) ⟨ volatile t Sp.[ a ↦ d ] , stable t , suc (Sp.wcnt t) ⟩
wr0-AR {s} {t} a d ale r (ar v st c) = ar vol st (cong suc c)
  where
    vol : ∀ b → b ≤ amax → rd (wr0 a d s) b ≡ (volatile t Sp.[ a ↦ d ]) b
    vol b le with b ≟ a
    ... | yes refl = trans (place-rd-here a d s) (sym (Sp.upd-here (volatile t) a d))
    ... | no ne    = trans (place-rd-other a d r b le ne)
                       (trans (v b le) (sym (upd-other (volatile t) d ne)))

write-sim : ∀ a d {s t s'} → AR s t → RI s → okP (use (regop (w a d))) s s' →
  Σ State λ t' → okS (use (regop (w a d))) t t' × AR s' t' × RI s'
write-sim a d {s} {t} arr r (inj₁ ((ale , wle) , f1 , f2 , refl)) =
  ⟨ volatile t Sp.[ a ↦ d ] , stable t , suc (Sp.wcnt t) ⟩ ,
  inj₁ ((ale , subst (_≤ wmax) (AR.cnt arr) wle) , refl , refl , refl) ,
  opt-AR f1 f2 (wr0-RI a d ale r) (wr0-AR a d ale r arr) ,
  opt-RI f1 f2 (wr0-RI a d ale r)
write-sim a d {s} {t} arr r (inj₂ (nib , refl)) =
  t , inj₂ ((λ { (ale , wle) → nib (ale , subst (_≤ wmax) (sym (AR.cnt arr)) wle) }) , refl) ,
  arr , r

------------------------------------------------------------------------
-- gc_rl

rl0-RI : ∀ {s} p → p < nxt s → Valid s p → RI s → RI (rl0 p s)
rl0-RI {s} p lt (ale , la) r = record
  { C = C ; tents = tents ; comm = comm ; slotL = slotL ; slotO = slotO ; regEq = regEq
  ; tNC = tNC ; gle = gle ; cmX = cmX ; cmP = cmP ; vm = vm
  ; vOK = vOK ; sOK = sOK ; iOK = iOK' ; eOK = eOK ; tEq = tEq ; cmV = cmV ; rcOK = rcOK ; lkOK = lkOK ; rcN = rcN ; rcL = rcL }
  where
    a = p2l s p
    d = cellD (pv s p)
    r' = place-RI a d ale r
    open RI r'
    n = nxt s
    l2p' = l2p s [ a ≔ just n ]
    gone : ∀ b → b ≤ amax → l2p' b ≢ just p
    gone b le eq with b ≟ a
    ... | yes refl = <⇒≢ lt (sym (just≡ (trans (sym (upd-here (l2p s) a (just n))) eq)))
    ... | no ne with RI.vOK r b p le (trans (sym (upd-other (l2p s) (just n) ne)) eq)
    ...   | _ , d' , ed = ne (sym (cong oob ed))
    iOK' : ∀ q → (inv s [ p ≔ true ]) q ≡ true → q < suc n × (∀ b → b ≤ amax → l2p' b ≢ just q)
    iOK' q e with q ≟ p
    ... | yes refl = ≤-step lt , gone
    ... | no ne    = iOK q (trans (sym (upd-other (inv s) true ne)) e)

rl0-AR : ∀ {s t} p → Valid s p → RI s → AR s t → AR (rl0 p s) t
rl0-AR {s} {t} p (ale , la) r (ar v st c) = ar vol st c
  where
    a = p2l s p
    vol : ∀ b → b ≤ amax → rd (rl0 p s) b ≡ volatile t b
    vol b le with b ≟ a
    ... | yes refl = trans (place-rd-here a (cellD (pv s p)) s)
                       (trans (sym (cong (rdm s) la)) (v a ale))
    ... | no ne    = trans (place-rd-other a (cellD (pv s p)) r b le ne) (v b le)

rlX-RI : ∀ {s} p → p < nxt s → ¬ Valid s p → RI s → RI (rlX p s)
rlX-RI {s} p lt nv r = record
  { C = C ; tents = tents ; comm = comm ; slotL = slotL ; slotO = slotO ; regEq = regEq
  ; tNC = tNC ; gle = gle ; cmX = cmX ; cmP = cmP ; vm = vm
  ; vOK = vOK ; sOK = sOK ; iOK = iOK' ; eOK = eOK ; tEq = tEq ; cmV = cmV ; rcOK = rcOK ; lkOK = lkOK ; rcN = rcN ; rcL = rcL }
  where
    open RI r
    gone : ∀ b → b ≤ amax → l2p s b ≢ just p
    gone b le eq with vOK b p le eq
    ... | _ , d' , ed =
      nv (subst (_≤ amax) (sym (cong oob ed)) le ,
          subst (λ x → l2p s x ≡ just p) (sym (cong oob ed)) eq)
    iOK' : ∀ q → (inv s [ p ≔ true ]) q ≡ true → q < nxt s × (∀ b → b ≤ amax → l2p s b ≢ just q)
    iOK' q e with q ≟ p
    ... | yes refl = lt , gone
    ... | no ne    = iOK q (trans (sym (upd-other (inv s) true ne)) e)

rl-sim : ∀ {s t s'} → AR s t → RI s → okP (use (regop rl)) s s' →
  Σ State λ t' → okS (use (regop rl)) t t' × AR s' t' × RI s'
rl-sim {t = t} arr r (inj₂ (_ , refl)) = t , refl , arr , r
rl-sim {t = t} arr r (inj₁ (_ , p , lt , inj₁ (val , f1 , f2 , refl))) =
  t , refl , opt-AR f1 f2 (rl0-RI p lt val r) (rl0-AR p val r arr) , opt-RI f1 f2 (rl0-RI p lt val r)
rl-sim {t = t} (ar v st c) r (inj₁ (_ , p , lt , inj₂ (nv , refl))) =
  t , refl , ar v st c , rlX-RI p lt nv r

------------------------------------------------------------------------
-- gc_es

esF-RI : ∀ {s} p → ers s p ≡ true → RI s → RI (esF p s)
esF-RI {s} p ep r = record
  { C = C ; tents = tents ; comm = comm ; slotL = slotL ; slotO = slotO ; regEq = regEq
  ; tNC = tNC ; gle = gle ; cmX = cmX ; cmP = cmP ; vm = vm
  ; vOK = vOK' ; sOK = sOK' ; iOK = iOK ; eOK = eOK' ; tEq = tEq
  ; cmV = cmv-mono (λ q d b le sm e → trans (upd-other (dat s) _ (λ { refl → proj₂ (proj₂ (eOK p ep)) b le sm })) e)
                   comm cmV ; rcOK = rcOK ; lkOK = lkOK ; rcN = rcN ; rcL = rcL }
  where
    open RI r
    D' = dat s [ p ≔ put erased (dat s p) ]
    nl = proj₁ (proj₂ (eOK p ep))
    ns = proj₂ (proj₂ (eOK p ep))
    vOK' : ∀ b q → b ≤ amax → l2p s b ≡ just q → q < nxt s × Σ Data λ d → pv (esF p s) q ≡ dcell d b
    vOK' b q le e with vOK b q le e
    ... | lt , d , ed = lt , d ,
      trans (cong (λ m → pvm (mb s q) (cur m)) (upd-other (dat s) _ (λ { refl → nl b le e }))) ed
    sOK' : ∀ b q → b ≤ amax → smap s b ≡ just q →
           q < nxt s × mb s q ≡ nothing × Σ Data λ d → D' q ≡ syn (dcell d b)
    sOK' b q le e with sOK b q le e
    ... | lt , mbn , d , dd = lt , mbn , d , trans (upd-other (dat s) _ (λ { refl → ns b le e })) dd
    eOK' : ∀ q → (ers s [ p ≔ false ]) q ≡ true → q < nxt s × (∀ b → b ≤ amax → l2p s b ≢ just q)
                                                  × (∀ b → b ≤ amax → smap s b ≢ just q)
    eOK' q e with q ≟ p
    ... | yes refl with trans (sym (upd-here (ers s) p false)) e
    ...   | ()
    eOK' q e | no ne = eOK q (trans (sym (upd-other (ers s) false ne)) e)

esF-AR : ∀ {s t} p → ers s p ≡ true → RI s → AR s t → AR (esF p s) t
esF-AR {s} {t} p ep r (ar v st c) =
  ar (λ b le → trans (gv b le (l2p s b) refl) (v b le))
     (λ b le → trans (gs b le (smap s b) refl) (st b le)) c
  where
    nl = proj₁ (proj₂ (RI.eOK r p ep))
    ns = proj₂ (proj₂ (RI.eOK r p ep))
    gv : ∀ b → b ≤ amax → ∀ mp → l2p s b ≡ mp → rdm (esF p s) mp ≡ rdm s mp
    gv b le nothing  _ = refl
    gv b le (just q) e =
      cong (λ m → cellD (pvm (mb s q) (cur m))) (upd-other (dat s) _ (λ { refl → nl b le e }))
    gs : ∀ b → b ≤ amax → ∀ mp → smap s b ≡ mp → rdS (esF p s) mp ≡ rdS s mp
    gs b le nothing  _ = refl
    gs b le (just q) e = cong (λ m → cellD (cur m)) (upd-other (dat s) _ (λ { refl → ns b le e }))

es-sim : ∀ {s t s'} → AR s t → RI s → okP (use (regop es)) s s' →
  Σ State λ t' → okS (use (regop es)) t t' × AR s' t' × RI s'
es-sim {t = t} arr r (p , ep , refl) = t , refl , esF-AR p ep r arr , esF-RI p ep r
