{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Per-operation correctness (types A and B) of flush in the SCFTL
-- model, successful and crashed, including the full (shadow) checkpoint
-- a flush may end with.  The crashed flush is formula (4) of the paper,
-- partitioned by crash point; the flush is the one-sync commit of
-- docs/FORMAT.md §4.3, so the core is a crash right before its SYNC
-- (`fl2-crash`): the epoch's committed page landed and its digest
-- verifies, or recovery falls back to the previous committed page.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.Flush (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≤ᵇ_; _≡ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-refl; ≤ᵇ⇒≤)
open import Data.Bool.Base using (Bool; true; false; _∨_; _∧_; T; if_then_else_)
open import Data.Unit.Base using (tt)
open import Data.Empty using (⊥-elim)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Regular Data d0 amax wmax kmax _≟D_
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (Addr; State; ⟨_,_,_⟩; volatile; stable; okS; crashS; use; flush)

∨-true : ∀ x y → (x ∨ y) ≡ true → x ≡ true ⊎ y ≡ true
∨-true true  y _ = inj₁ refl
∨-true false y e = inj₂ e

all-sync-IsSyn : ∀ xs → All IsSyn (map sync xs)
all-sync-IsSyn []       = []
all-sync-IsSyn (x ∷ xs) = tt ∷ all-sync-IsSyn xs

crashL-cons : ∀ {x xs ys} → CrashL (x ∷ xs) ys →
  Σ MC λ h → Σ (List MC) λ rest → ys ≡ h ∷ rest × CrashC x h × CrashL xs rest
crashL-cons (c ∷ cs) = _ , _ , refl , c , cs

------------------------------------------------------------------------
-- Lists of tentative pages, and the digest

T≡ : ∀ {b} → b ≡ true → T b
T≡ refl = _

map-sync-syn : ∀ xs → map sync xs ≡ map syn (map cur xs)
map-sync-syn []       = refl
map-sync-syn (x ∷ xs) = cong (syn (cur x) ∷_) (map-sync-syn xs)

-- a tentative page of generation g and epoch e, as emitT writes it
Tp : ℕ → ℕ → List (Addr × ℕ) → Cell
Tp g e ps = dlt g e ps false ε

map-cur-T : ∀ g e pss → map cur (map (λ ps → uns erased (Tp g e ps)) pss) ≡ map (Tp g e) pss
map-cur-T g e []         = refl
map-cur-T g e (ps ∷ pss) = cong (Tp g e ps ∷_) (map-cur-T g e pss)

verT-T : ∀ g e pss cs → verT g e pss (map (Tp g e) pss ++ cs) ≡ true
verT-T g e []         cs = refl
verT-T g e (ps ∷ pss) cs rewrite isT-refl g e ps ε = verT-T g e pss cs

-- replaying an epoch's tentative pages over a replay state with nothing
-- pending in that epoch only applies their pairs to the committed L2P
rp-T : ∀ g e pss R → pend R ≢ e → rbase e (rp g (map (Tp g e) pss) R) ≡ apply (concat pss) (proj₁ R)
rp-T g e []         R ne = rbase-other e R ne
rp-T g e (ps ∷ pss) R ne =
  trans (cong (rbase e) (rstep-tent g e ps {ε} (rp g (map (Tp g e) pss) R)))
  (trans (rbase-same e _ _)
  (trans (cong (apply ps) (rp-T g e pss R ne)) (sym (apply-++ ps (concat pss) (proj₁ R)))))

apply-cong : ∀ ps {m m'} → m ≐ m' → apply ps m ≐ apply ps m'
apply-cong []             e = e
apply-cong ((a , p) ∷ ps) e = ≐-upd a (just p) (apply-cong ps e)

isAt-sound : ∀ mp p → isAt mp p ≡ true → mp ≡ just p
isAt-sound (just q) p e = cong just (≡ᵇ-sound q p e)

isAt-refl : ∀ p → isAt (just p) p ≡ true
isAt-refl p = ≡ᵇ-refl p

-- every entry of the digest: a data page the volatile L2P maps, with the
-- sector it holds
digD-ent : ∀ s (D : ℕ → MC) → (∀ a p → a ≤ amax → l2p s a ≡ just p → D p ≡ syn (dcell (cellD (pv s p)) a)) →
  ∀ ps → All (Ent (l2p s) D) (digD s ps)
digD-ent s D f []             = []
digD-ent s D f ((a , p) ∷ ps) with (a ≤ᵇ amax) ∧ isAt (l2p s a) p in e
... | true  = let (e1 , e2) = ∧-true (a ≤ᵇ amax) _ e
                  le = ≤ᵇ⇒≤ a amax (T≡ e1)
                  lm = isAt-sound (l2p s a) p e2 in
              (le , lm , f a p le lm) ∷ digD-ent s D f ps
... | false = digD-ent s D f ps

digD-entM : ∀ s ps → All (EntM (l2p s)) (digD s ps)
digD-entM s []             = []
digD-entM s ((a , p) ∷ ps) with (a ≤ᵇ amax) ∧ isAt (l2p s a) p in e
... | true  = let (e1 , e2) = ∧-true (a ≤ᵇ amax) _ e in
              (≤ᵇ⇒≤ a amax (T≡ e1) , isAt-sound (l2p s a) p e2) ∷ digD-entM s ps
... | false = digD-entM s ps

≤⇒≤ᵇ' : ∀ m n → m ≤ n → (m ≤ᵇ n) ≡ true
≤⇒≤ᵇ' m n le = T⇒≡ (m ≤ᵇ n) (Data.Nat.Properties.≤⇒≤ᵇ le)

-- a pair the epoch leaves in place is in the digest
digD-mem : ∀ s a p ps → (a , p) ∈ ps → a ≤ amax → l2p s a ≡ just p → (p , cellD (pv s p) , a) ∈ digD s ps
digD-mem s a p ((b , q) ∷ ps) here le lm rewrite ≤⇒≤ᵇ' a amax le | lm | isAt-refl p = here
digD-mem s a p ((b , q) ∷ ps) (there i) le lm with (b ≤ᵇ amax) ∧ isAt (l2p s b) q
... | true  = there (digD-mem s a p ps i le lm)
... | false = digD-mem s a p ps i le lm

verD-mem : ∀ D dd p d a → verD D dd ≡ true → (p , d , a) ∈ dd → holds (D p) d a ≡ true
verD-mem D ((q , e , b) ∷ dd) p d a v here      = proj₁ (∧-true (holds (D q) e b) _ v)
verD-mem D ((q , e , b) ∷ dd) p d a v (there i) = verD-mem D dd p d a (proj₂ (∧-true (holds (D q) e b) _ v)) i

crashD-syn' : ∀ {m m'} → CrashD m m' → m' ≡ syn (cur m')
crashD-syn' {syn c}   refl      = refl
crashD-syn' {uns o n} (c , refl) = refl

------------------------------------------------------------------------
-- The end of the commit (after the SYNC)

-- The epoch's committed page over its tentative pages activates exactly
-- the volatile L2P: nothing below is pending in this epoch (cmP).
fresh-epoch : ∀ {s} (r : RI s) → ∀ a →
  apply (dbuf s) (rbase (ep s) (rp (gen s) (map cur (RI.tents r) ++ RI.comm r) (st0 (RI.C r)))) a ≡ l2p s a
fresh-epoch {s} r a =
  trans (cong (λ x → apply (dbuf s) (rbase (ep s) x) a) (rp-++ g (map cur tents) comm (st0 C)))
  (trans (cong (λ l → apply (dbuf s) (rbase (ep s) (rp g l (rp g comm (st0 C)))) a) tcur)
  (trans (cong (λ x → apply (dbuf s) x a) (rp-T g (ep s) (ept s) (rp g comm (st0 C)) (<⇒≢ cmP)))
  (trans (apply-cong (dbuf s) (apply-cong (concat (ept s)) cmX) a) (sym (vm a)))))
  where
    open RI r
    g = gen s
    tcur : map cur tents ≡ map (Tp g (ep s)) (ept s)
    tcur = trans (cong (map cur) tEq) (map-cur-T g (ep s) (ept s))

fl3-RI : ∀ {s} → RI s → RI (fl3 s)
fl3-RI {s} r = record
  { C = C ; tents = [] ; comm = comm'
  ; slotL = cong sync slotL
  ; slotO = PM-sync {P = Older (gen s)} (cpO s) slotO
  ; regEq = cong (syn (dlt g (ep s) (dbuf s) true (dgOf s)) ∷_)
      (trans (map-sync-syn (dr s)) (cong (map syn)
        (trans (cong (map cur) regEq)
          (trans (map-cur-++ tents (map syn comm)) (cong (map cur tents ++_) (map-cur-syn comm))))))
  ; tNC = [] ; gle = ≤-refl ∷ all-sync gle
  ; cmX = λ a → trans (cong (λ x → proj₁ x a) (rstep-commit g (ep s) (dbuf s) {dgOf s} R')) (new a)
  ; cmP = subst (λ x → pend x < suc (ep s)) (sym (rstep-commit g (ep s) (dbuf s) {dgOf s} R')) ≤-refl
  ; vm = λ a → refl
  ; vOK = λ a p le e → let (lt , d , ed) = vOK a p le e in
            lt , d , trans (cur-progm (mb s p) (dat s p)) ed
  ; sOK = λ a p le e → let (lt , d , ed) = vOK a p le e in
            lt , refl , d , cong syn (trans (cur-progm (mb s p) (dat s p)) ed)
  ; iOK = λ p ()
  ; eOK = eOK'
  ; tEq = refl
  ; cmV = inj₂ (ep s , dbuf s , dgOf s , refl , digD-ent s (dat (fl3 s)) ent (dbuf s ++ concat (ept s)) ,
          subst (λ l → verT g (ep s) (ept s) (l ++ comm) ≡ true) (sym tcur) (verT-T g (ep s) (ept s) comm)) }
  where
    open RI r
    g = gen s
    comm' = dlt g (ep s) (dbuf s) true (dgOf s) ∷ (map cur tents ++ comm)
    R' = rp g (map cur tents ++ comm) (st0 C)
    tcur : map cur tents ≡ map (Tp g (ep s)) (ept s)
    tcur = trans (cong (map cur) tEq) (map-cur-T g (ep s) (ept s))
    new : ∀ a → apply (dbuf s) (rbase (ep s) R') a ≡ l2p s a
    new = fresh-epoch r
    ent : ∀ a p → a ≤ amax → l2p s a ≡ just p → dat (fl3 s) p ≡ syn (dcell (cellD (pv s p)) a)
    ent a p le e with vOK a p le e
    ... | _ , d , ed = cong syn (trans (cur-progm (mb s p) (dat s p)) (trans ed (cong (λ x → dcell x a) (sym (cong cellD ed)))))
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
  → smap u ≐ l2p u → dbuf u ≡ [] → ept u ≡ [] → 0 < ep u → RI (ck3 u)
ck3-RI {u} vOK sOK iOK eOK sm db et e0 = record
  { C = l2p u ; tents = [] ; comm = []
  ; slotL = refl ; slotO = tt ; regEq = refl ; tNC = [] ; gle = []
  ; cmX = λ a → sym (sm a) ; cmP = e0
  ; vm = λ a → trans (sym (sm a)) (cong₂ (λ d e → apply d (apply (concat e) (smap u)) a) (sym db) (sym et))
  ; vOK = vOK
  ; sOK = λ a p le e → let (lt , mbn , d , dd) = sOK a p le e in
            lt , mbn , d , cong (λ m → sync (sync m)) dd
  ; iOK = iOK ; eOK = eOK
  ; tEq = cong (map (λ ps → uns erased (dlt (suc (gen u)) (ep u) ps false ε))) (sym et)
  ; cmV = tt }

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
fl3-ck-RI {s} r = ck3-RI {u = fl3 s} vOK sOK iOK eOK (λ _ → refl) refl refl (s≤s z≤n)
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

-- The tentative pages' part of a digest that verifies: they all landed.
verT-crash : ∀ g e pss {xs'} cs → CrashL (map (λ ps → uns erased (Tp g e ps)) pss) xs' →
  verT g e pss (map cur xs' ++ cs) ≡ true → map cur xs' ≡ map (Tp g e) pss
verT-crash g e []         cs []       _ = refl
verT-crash g e (ps ∷ pss) cs (inj₁ refl ∷ cx) ()
verT-crash g e (ps ∷ pss) cs (inj₂ (inj₂ refl) ∷ cx) ()
verT-crash g e (ps ∷ pss) {_ ∷ xs'} cs (inj₂ (inj₁ refl) ∷ cx) v
  rewrite isT-refl g e ps ε = cong (Tp g e ps ∷_) (verT-crash g e pss cs cx v)

-- The core of the one-sync commit: a crash right before the SYNC.  The
-- committed page landed and every page its digest covers holds what the
-- epoch wrote ⇒ recovery yields the volatile L2P (stable' = volatile);
-- otherwise it yields the stable one (stable' = stable).
fl2-crash : ∀ {s t s'} → AR s t → (r : RI s) → Img (fl2 s) s' →
  Σ State λ t' → crashS (use flush) t t' × CR s' t'
fl2-crash {s} {t} {s'} arr r (cD , cL , cO , cR) with crashL-cons cR
... | h , rest , drEq , c0 , cR' with crashL-++ (RI.tents r) (subst (λ l → CrashL l rest) (RI.regEq r) cR')
...   | xs' , ys' , restEq , cx , cy = go c0
  where
    open RI r
    g = gen s
    D' = λ p → cur (dat s' p)
    sl' = crashC-eq slotL cL
    so' = crashC-PM {P = Older g} tt cO slotO
    rs = crashL-syn cR
    rg = crashL-PM tt cR ((tt , ≤-refl) ∷ gle)
    pk = pick-slot true s' g C sl' so'
    L' = map cur xs' ++ comm
    ys≡ : ys' ≡ map syn comm
    ys≡ = crashL-id (all-map-syn comm) cy
    view : map cur (dr s') ≡ cur h ∷ L'
    view = trans (cong (map cur) (trans drEq (cong (h ∷_) (trans restEq (cong (xs' ++_) ys≡)))))
                 (cong (cur h ∷_) (trans (map-cur-++ xs' (map syn comm)) (cong (map cur xs' ++_) (map-cur-syn comm))))
    r1 = progMB-RI r
    fD : ∀ p c → dat (progMB s) p ≡ syn c → D' p ≡ c
    fD p c e = cong cur (crashD-eq e (cD p))
    accNC : acc g D' L' ≡ acc g D' comm
    accNC = acc-nc g D' (map cur xs') comm (all-cur (crashL-PM tt cx tNC))
    recOld : acc g D' (map cur (dr s')) ≡ acc g D' L' → recMap g C s' ≐ smap s
    recOld e a = trans (cong (λ l → proj₁ (rp g l (st0 C)) a) (trans e accNC))
                       (trans (cong (λ f → f a) (acc-cmv D' fD comm (st0 C) (RI.cmV r1))) (cmX a))
    dmOld : acc g D' (map cur (dr s')) ≡ acc g D' L' → DgM (smap s) (acc g D' (map cur (dr s')))
    dmOld e = subst (DgM (smap s)) (sym (trans e accNC)) (cmv-dgm D' fD comm (RI.cmV r1))
    dOld : DOKs (dat s') (smap s) (stable t)
    dOld = dok-crash cD (ri-dok r1 (AR.stb (progMB-AR r arr)))
    old : acc g D' (map cur (dr s')) ≡ acc g D' L' → Σ State λ t' → crashS (use flush) t t' × CR s' t'
    old e = t , inj₂ refl , smap s , recto true g C pk sl' so' rs rg (recOld e) (dmOld e) , dOld
    -- the commit verified
    tcur : map cur tents ≡ map (Tp g (ep s)) (ept s)
    tcur = trans (cong (map cur) tEq) (map-cur-T g (ep s) (ept s))
    -- where the volatile L2P's pages come from: this epoch's pairs or the stable L2P
    src : ∀ a p → l2p s a ≡ just p → (a , p) ∈ (dbuf s ++ concat (ept s)) ⊎ smap s a ≡ just p
    src a p e = apply-src (dbuf s ++ concat (ept s)) (smap s) a p (trans (sym chain) e)
      where
        chain : l2p s a ≡ apply (dbuf s ++ concat (ept s)) (smap s) a
        chain = trans (vm a) (sym (cong (λ f → f a) (apply-++ (dbuf s) (concat (ept s)) (smap s))))
    vol : ∀ a p → a ≤ amax → l2p s a ≡ just p → volatile t a ≡ cellD (pv s p)
    vol a p le e = trans (sym (AR.vol arr a le)) (cong (rdm s) e)
    dNew : verD D' (digD s (dbuf s ++ concat (ept s))) ≡ true → DOKs (dat s') (l2p s) (volatile t)
    dNew v a le = go' (l2p s a) refl
      where
        go' : ∀ mp → l2p s a ≡ mp → DOK (dat s') mp a (volatile t a)
        go' nothing  e = trans (sym (AR.vol arr a le)) (cong (rdm s) e)
        go' (just p) e with src a p e
        ... | inj₁ i = trans (crashD-syn' (cD p))
                         (cong syn (trans (holds-sound (D' p) _ a
                                             (verD-mem D' _ p _ a v (digD-mem s a p _ i le e)))
                                          (cong (λ x → dcell x a) (sym (vol a p le e)))))
        ... | inj₂ sm with sOK a p le sm
        ...   | _ , mbn , d , dd =
          trans (crashD-eq (trans (cong (λ x → progm x (dat s p)) mbn) dd) (cD p))
                (cong (λ x → syn (dcell x a))
                  (sym (trans (vol a p le e)
                     (trans (cong (λ m → cellD (pvm m (cur (dat s p)))) mbn) (cong (λ m → cellD (cur m)) dd)))))
    newC : ∀ dg → dg ≡ dgOf s → h ≡ syn (dlt g (ep s) (dbuf s) true dg) →
      verD D' (proj₁ dg) ∧ verT g (ep s) (proj₂ dg) L' ≡ true → Σ State λ t' → crashS (use flush) t t' × CR s' t'
    newC .(dgOf s) refl refl v with ∧-true (verD D' (proj₁ (dgOf s))) _ v
    ... | vd , vt = tF t , inj₁ refl , l2p s , recto true g C pk sl' so' rs rg mx dm , dNew vd
      where
        xs≡ : map cur xs' ≡ map (Tp g (ep s)) (ept s)
        xs≡ = verT-crash g (ep s) (ept s) comm (subst (λ l → CrashL l xs') tEq cx) vt
        accN : acc g D' (map cur (dr s')) ≡ cur h ∷ L'
        accN rewrite view | ≡ᵇ-refl g | v = refl
        mx : recMap g C s' ≐ l2p s
        mx a = trans (cong (λ l → proj₁ (rp g l (st0 C)) a) accN)
          (trans (cong (λ x → proj₁ x a) (rstep-commit g (ep s) (dbuf s) {dgOf s} (rp g L' (st0 C))))
          (trans (cong (λ l → apply (dbuf s) (rbase (ep s) (rp g (l ++ comm) (st0 C))) a) (trans xs≡ (sym tcur)))
                 (fresh-epoch r a)))
        dm : DgM (l2p s) (acc g D' (map cur (dr s')))
        dm = subst (DgM (l2p s)) (sym accN) (digD-entM s (dbuf s ++ concat (ept s)))
    go : CrashC (uns erased (dlt g (ep s) (dbuf s) true (dgOf s))) h → Σ State λ t' → crashS (use flush) t t' × CR s' t'
    go (inj₁ refl) = old (cong (acc g D') view)
    go (inj₂ (inj₂ refl)) = old (cong (acc g D') view)
    go (inj₂ (inj₁ refl)) with verD D' (proj₁ (dgOf s)) ∧ verT g (ep s) (ept s) L' in v
    ... | true  = newC (dgOf s) refl refl v
    ... | false = old accF
      where
        accF : acc g D' (map cur (dr s')) ≡ acc g D' L'
        accF rewrite view | ≡ᵇ-refl g | v = refl

flush-crash : ∀ {s t s'} → AR s t → RI s → crashP (use flush) s s' →
  Σ State λ t' → crashS (use flush) t t' × CR s' t'
-- before the SYNC
flush-crash arr r (m , inj₁ refl , img) = fl2-crash arr r img
-- after the commit
flush-crash {s} {t} arr r (m , inj₂ (inj₁ refl) , img) =
  tF t , inj₁ refl , l2p s , crash-RI (fl3-RI r) img ,
  dok-crash (proj₁ img) (ri-dok (fl3-RI r) (AR.stb (fl3-AR arr)))
-- during the full checkpoint
flush-crash {s} {t} arr r (m , inj₂ (inj₂ ck) , img) =
  tF t , inj₁ refl , l2p s ,
  ck-crash {u = fl3 s} (RI.C r3) (RI.slotL r3) (RI.slotO r3) (all-sync-IsSyn (dr (fl2 s))) (RI.gle r3)
           (λ p → tt) (ri-rec r3) (λ _ → refl) (ri-dgm r3) ck img ,
  dok-crash (proj₁ img) (dok-ck {u = fl3 s} (ri-dok r3 (AR.stb (fl3-AR arr))) ck)
  where r3 = fl3-RI r
