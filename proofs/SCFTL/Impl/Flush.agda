{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Per-operation correctness (types A and B) of flush in the SCFTL
-- model, successful and crashed, including the full (shadow) checkpoint
-- a flush may end with.  The crashed flush is formula (4) of the paper,
-- partitioned by crash point as in §5.4.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)

module SCFTL.Impl.Flush (Data : Set) (d0 : Data) (amax wmax kmax : ℕ) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl)
open import Data.Bool.Base using (Bool; true; false; _∨_)
open import Data.Unit.Base using (tt)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax
open import SCFTL.Impl.Regular Data d0 amax wmax kmax
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (State; ⟨_,_,_⟩; volatile; stable; okS; crashS; use; flush)

∨-true : ∀ x y → (x ∨ y) ≡ true → x ≡ true ⊎ y ≡ true
∨-true true  y _ = inj₁ refl
∨-true false y e = inj₂ e

all-sync-IsSyn : ∀ xs → All IsSyn (map sync xs)
all-sync-IsSyn []       = []
all-sync-IsSyn (x ∷ xs) = tt ∷ all-sync-IsSyn xs

crashL-cons : ∀ {x xs ys} → CrashL (x ∷ xs) ys →
  Σ MC λ h → Σ (List MC) λ rest → ys ≡ h ∷ rest × CrashC x h × CrashL xs rest
crashL-cons (c ∷ cs) = _ , _ , refl , c , cs

-- the replay of an RI state's delta region
ri-R : ∀ {u} (r : RI u) →
  rp (gen u) (map cur (dr u)) (RI.C r , RI.C r)
  ≡ rp (gen u) (map cur (RI.tents r)) (rp (gen u) (RI.comm r) (RI.C r , RI.C r))
ri-R {u} r =
  trans (cong (λ l → rp (gen u) (map cur l) (C , C)) regEq)
  (trans (cong (λ l → rp (gen u) l (C , C))
           (trans (map-cur-++ tents (map syn comm)) (cong (map cur tents ++_) (map-cur-syn comm))))
         (rp-++ (gen u) (map cur tents) comm (C , C)))
  where open RI r

------------------------------------------------------------------------
-- The end of the commit (after the second SYNC)

fl3-RI : ∀ {s} → RI s → RI (fl3 s)
fl3-RI {s} r = record
  { C = C ; tents = [] ; comm = comm'
  ; slotL = cong (λ m → sync (sync m)) slotL
  ; slotO = PM-sync {P = Older (gen s)} (sync (cpO s)) (PM-sync (cpO s) slotO)
  ; regEq = cong (syn (dlt g (dbuf s) true) ∷_)
      (trans (map-sync-sync (dr s)) (cong (map syn)
        (trans (cong (map cur) regEq)
          (trans (map-cur-++ tents (map syn comm)) (cong (map cur tents ++_) (map-cur-syn comm))))))
  ; tNC = [] ; gle = ≤-refl ∷ all-sync (all-sync gle)
  ; cmX = λ a → trans (cong (λ x → proj₁ x a) (rstep-commit g (dbuf s) R')) (new a)
  ; cmT = λ a → trans (cong (λ x → proj₂ x a) (rstep-commit g (dbuf s) R')) (new a)
  ; vm = λ a → sym (trans (cong (λ x → proj₂ x a) (rstep-commit g (dbuf s) R')) (new a))
  ; vOK = λ a p le e → let (lt , d , ed) = vOK a p le e in
            lt , d , trans (cur-progm (mb s p) (dat s p)) ed
  ; sOK = λ a p le e → let (lt , d , ed) = vOK a p le e in
            lt , refl , d , cong syn (trans (cur-progm (mb s p) (dat s p)) ed)
  ; iOK = λ p ()
  ; eOK = eOK' }
  where
    open RI r
    g = gen s
    comm' = dlt g (dbuf s) true ∷ (map cur tents ++ comm)
    R' = rp g (map cur tents ++ comm) (C , C)
    new : ∀ a → apply (dbuf s) (proj₂ R') a ≡ l2p s a
    new a = trans (cong (λ x → apply (dbuf s) (proj₂ x) a) (rp-++ g (map cur tents) comm (C , C)))
                  (sym (vm a))
    eOK' : ∀ p → (ers s p ∨ inv s p) ≡ true → p < nxt s × (∀ a → a ≤ amax → l2p s a ≢ just p)
                                              × (∀ a → a ≤ amax → l2p s a ≢ just p)
    eOK' p e with ∨-true (ers s p) (inv s p) e
    ... | inj₁ e1 = let (lt , nl , _) = eOK p e1 in lt , nl , nl
    ... | inj₂ e2 = let (lt , nl) = iOK p e2 in lt , nl , nl

rdm-fl3 : ∀ s mp → rdm (fl3 s) mp ≡ rdm s mp
rdm-fl3 s nothing  = refl
rdm-fl3 s (just p) = cong cellD (cur-progm (mb s p) (dat s p))

rdD-fl3 : ∀ s mp → rdD (dat (fl3 s)) mp ≡ rdm s mp
rdD-fl3 s nothing  = refl
rdD-fl3 s (just p) = cong cellD (cur-progm (mb s p) (dat s p))

tF : State → State
tF t = ⟨ volatile t , volatile t , 0 ⟩

fl3-AR : ∀ {s t} → AR s t → AR (fl3 s) (tF t)
fl3-AR {s} (ar v st c) =
  ar (λ a le → trans (rdm-fl3 s (l2p s a)) (v a le))
     (λ a le → trans (rdD-fl3 s (l2p s a)) (v a le)) refl

------------------------------------------------------------------------
-- The full checkpoint (also used by recovery)

ck3-RI : ∀ {u}
  → (∀ a p → a ≤ amax → l2p u a ≡ just p → p < nxt u × Σ Data λ d → pv u p ≡ dcell d a)
  → (∀ a p → a ≤ amax → smap u a ≡ just p →
       p < nxt u × mb u p ≡ nothing × Σ Data λ d → dat u p ≡ syn (dcell d a))
  → (∀ p → inv u p ≡ true → p < nxt u × (∀ a → a ≤ amax → l2p u a ≢ just p))
  → (∀ p → ers u p ≡ true → p < nxt u × (∀ a → a ≤ amax → l2p u a ≢ just p)
                                      × (∀ a → a ≤ amax → smap u a ≢ just p))
  → smap u ≐ l2p u → dbuf u ≡ [] → RI (ck3 u)
ck3-RI {u} vOK sOK iOK eOK sm db = record
  { C = l2p u ; tents = [] ; comm = []
  ; slotL = refl ; slotO = tt ; regEq = refl ; tNC = [] ; gle = []
  ; cmX = λ a → sym (sm a) ; cmT = λ a → sym (sm a)
  ; vm = λ a → cong (λ ps → apply ps (l2p u) a) (sym db)
  ; vOK = vOK
  ; sOK = λ a p le e → let (lt , mbn , d , dd) = sOK a p le e in
            lt , mbn , d , cong (λ m → sync (sync m)) dd
  ; iOK = iOK ; eOK = eOK }

rdm-ck3 : ∀ u mp → rdm (ck3 u) mp ≡ rdm u mp
rdm-ck3 u nothing  = refl
rdm-ck3 u (just p) = refl

rdS-ck3 : ∀ u mp → rdS (ck3 u) mp ≡ rdS u mp
rdS-ck3 u nothing  = refl
rdS-ck3 u (just p) = refl

ck3-AR : ∀ {u t} → AR u t → AR (ck3 u) t
ck3-AR {u} (ar v st c) =
  ar (λ a le → trans (rdm-ck3 u (l2p u a)) (v a le))
     (λ a le → trans (rdS-ck3 u (smap u a)) (st a le)) c

fl3-ck-RI : ∀ {s} → RI s → RI (ck3 (fl3 s))
fl3-ck-RI {s} r = ck3-RI {u = fl3 s} vOK sOK iOK eOK (λ _ → refl) refl
  where open RI (fl3-RI r)

------------------------------------------------------------------------
-- Successful flush

flush-sim : ∀ {s t s'} → AR s t → RI s → okP (use flush) s s' →
  Σ State λ t' → okS (use flush) t t' × AR s' t' × RI s'
flush-sim {t = t} arr r (inj₁ refl) = tF t , (refl , refl , refl) , fl3-AR arr , fl3-RI r
flush-sim {t = t} arr r (inj₂ refl) =
  tF t , (refl , refl , refl) , ck3-AR (fl3-AR arr) , fl3-ck-RI r

------------------------------------------------------------------------
-- Crashed flush

-- crash between the two SYNCs: the commit record is old, new or junk
fl2-crash : ∀ {s t s'} → AR s t → (r : RI s) → Img (fl2 s) s' →
  Σ State λ t' → crashS (use flush) t t' × CR s' t'
fl2-crash {s} {t} {s'} arr r (cD , cL , cO , cR) with crashL-cons cR
... | h , rest , drEq , c0 , cR' = go c0
  where
    open RI r
    g = gen s
    R = rp g (map cur (dr s)) (C , C)
    sl' = crashC-eq (cong sync slotL) cL
    so' = crashC-PM {P = Older g} tt cO (PM-sync (cpO s) slotO)
    rs = crashL-syn cR
    rg = crashL-PM tt cR ((tt , ≤-refl) ∷ all-sync gle)
    restEq : rest ≡ map sync (dr s)
    restEq = crashL-id (all-sync-IsSyn (dr s)) cR'
    view : recMap g C s' ≡ proj₁ (rstep g (cur h) R)
    view = trans (cong (λ l → proj₁ (rp g (map cur l) (C , C))) (trans drEq (cong (h ∷_) restEq)))
                 (cong (λ l → proj₁ (rstep g (cur h) (rp g l (C , C)))) (map-cur-sync (dr s)))
    pk = pick-slot true s' g C sl' so'
    dOld : DOKs (dat s') (smap s) (stable t)
    dOld = dok-crash cD (dok-sync (ri-dok (progMB-RI r) (AR.stb (progMB-AR r arr))))
    dNew : DOKs (dat s') (l2p s) (volatile t)
    dNew = dok-crash cD (ri-dok (fl3-RI r) (AR.stb (fl3-AR arr)))
    old : proj₁ R ≐ smap s
    old = ri-rec r
    new : apply (dbuf s) (proj₂ R) ≐ l2p s
    new a = trans (cong (λ x → apply (dbuf s) (proj₂ x) a) (ri-R r)) (sym (vm a))
    go : CrashC (uns erased (dlt g (dbuf s) true)) h → Σ State λ t' → crashS (use flush) t t' × CR s' t'
    go (inj₁ refl) =
      t , inj₂ refl , smap s , recto true g C pk sl' so' rs rg (λ a → trans (cong (λ f → f a) view) (old a)) , dOld
    go (inj₂ (inj₁ refl)) =
      tF t , inj₁ refl , l2p s ,
      recto true g C pk sl' so' rs rg
        (λ a → trans (cong (λ f → f a) view)
                 (trans (cong (λ x → proj₁ x a) (rstep-commit g (dbuf s) R)) (new a))) ,
      dNew
    go (inj₂ (inj₂ refl)) =
      t , inj₂ refl , smap s , recto true g C pk sl' so' rs rg (λ a → trans (cong (λ f → f a) view) (old a)) , dOld

flush-crash : ∀ {s t s'} → AR s t → RI s → crashP (use flush) s s' →
  Σ State λ t' → crashS (use flush) t t' × CR s' t'
-- before the first SYNC: nothing committed
flush-crash {s} {t} arr r (m , inj₁ refl , img) =
  t , inj₂ refl , smap s , crash-RI (progMB-RI r) img ,
  dok-crash (proj₁ img) (ri-dok (progMB-RI r) (AR.stb (progMB-AR r arr)))
-- between the SYNCs
flush-crash arr r (m , inj₂ (inj₁ refl) , img) = fl2-crash arr r img
-- after the commit
flush-crash {s} {t} arr r (m , inj₂ (inj₂ (inj₁ refl)) , img) =
  tF t , inj₁ refl , l2p s , crash-RI (fl3-RI r) img ,
  dok-crash (proj₁ img) (ri-dok (fl3-RI r) (AR.stb (fl3-AR arr)))
-- during the full checkpoint
flush-crash {s} {t} arr r (m , inj₂ (inj₂ (inj₂ ck)) , img) =
  tF t , inj₁ refl , l2p s ,
  ck-crash {u = fl3 s} (RI.C r3) (RI.slotL r3) (RI.slotO r3) (all-sync-IsSyn (dr (fl2 s))) (RI.gle r3)
           (ri-rec r3) (λ _ → refl) ck img ,
  dok-crash (proj₁ img) (dok-ck {u = fl3 s} (ri-dok r3 (AR.stb (fl3-AR arr))) ck)
  where r3 = fl3-RI r
