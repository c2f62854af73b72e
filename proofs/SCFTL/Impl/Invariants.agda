{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- RI, AR (normal states) and CI, CR (states right after a crash) for the
-- SCFTL model P, and the two crash lemmas every crashed operation uses:
--   crash-RI : a crash from a state satisfying RI recovers to its stable L2P
--   ck-crash : a crash during a full checkpoint recovers to the checkpointed L2P
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.Invariants (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl)
open import Data.Bool.Base using (Bool; true; false; not)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (Addr; State; ⟨_,_,_⟩; volatile; stable)

------------------------------------------------------------------------
-- Reading a data page array through a map entry

rdD : (ℕ → MC) → Maybe ℕ → Data
rdD D nothing  = d0
rdD D (just p) = cellD (cur (D p))

-- what the stable L2P reads on the flash
rdS : St → Maybe ℕ → Data
rdS s = rdD (dat s)

-- the committed part is headed by the last commit, of generation g and
-- epoch id e - 1, whose link is L (where an in-page commit may go next)
LkHd : ℕ → ℕ → ℕ → List Cell → Set
LkHd g e L comm = Σ ℕ λ x → Σ (List (Addr × ℕ)) λ ps → Σ (List (ℕ × Data × Addr)) λ dd →
  Σ (List (List (Addr × ℕ))) λ dt → Σ (List Cell) λ cs →
  comm ≡ dlt g x ps true (dd , dt , L) ∷ cs × suc x ≡ e

------------------------------------------------------------------------
-- Representation invariant of normal states

record RI (s : St) : Set where
  field
    -- checkpoint and delta region
    C     : Map                 -- the live checkpoint's L2P
    tents : List MC             -- tentative delta pages of this epoch
    comm  : List Cell           -- committed (durable) delta pages
    slotL : cpL s ≡ syn (cpt (gen s) C)
    slotO : PM (Older (gen s)) (cpO s)
    regEq : dr s ≡ tents ++ map syn comm
    tNC   : All (PM (NC (gen s))) tents
    gle   : All (PM (GenLe (gen s))) (dr s)
    cmX   : proj₁ (rp (gen s) comm (st0 C)) ≐ smap s
    -- epoch ids: nothing on the committed part is pending in this epoch
    -- (a recovered crash's tentative pages stay inert)
    cmP   : pend (rp (gen s) comm (st0 C)) < ep s
    -- volatile L2P = stable L2P + this epoch's tentative pages + delta buffer
    vm    : l2p s ≐ apply (dbuf s) (apply (concat (ept s)) (smap s))
    -- data pages
    vOK   : ∀ a p → a ≤ amax → l2p s a ≡ just p →
              p < nxt s × Σ Data λ d → pv s p ≡ dcell d a
    sOK   : ∀ a p → a ≤ amax → smap s a ≡ just p →
              p < nxt s × mb s p ≡ nothing × Σ Data λ d → dat s p ≡ syn (dcell d a)
    -- two-phase GC
    iOK   : ∀ p → inv s p ≡ true → p < nxt s × (∀ a → a ≤ amax → l2p s a ≢ just p)
    eOK   : ∀ p → ers s p ≡ true → p < nxt s × (∀ a → a ≤ amax → l2p s a ≢ just p)
                                            × (∀ a → a ≤ amax → smap s a ≢ just p)
    -- one-sync commit: the tentative pages are those of this epoch, and
    -- the newest committed page's digest holds on every crash outcome
    tEq   : tents ≡ map (λ ps → uns erased (dlt (gen s) (ep s) ps false ε)) (ept s)
    cmV   : CmV (gen s) (smap s) (dat s) comm
    -- in-page records: every record slot is durable and holds nothing
    -- newer than this generation; none at or past the active pointer,
    -- and none of this generation at or past where the last commit links
    -- to, where recovery's walk looks (a record that was applied sits
    -- below the link of a newer commit: its consolidation page)
    rcOK  : ∀ p → Σ Cell λ c → rcd s p ≡ syn c × RLt (suc (gen s)) c
    rcN   : ∀ p → nxt s ≤ p → RLt (gen s) (cur (rcd s p))
    rcL   : ∀ x L → lkTop (gen s) comm ≡ just (x , L) → Above (gen s) (λ p → cur (rcd s p)) L
    -- the link the next flush may commit in-page at is the last commit's
    lkOK  : ∀ L → lnk s ≡ just L → LkHd (gen s) (ep s) L comm

------------------------------------------------------------------------
-- Abstraction relation of normal states

record AR (s : St) (t : State) : Set where
  constructor ar
  field
    vol : ∀ a → a ≤ amax → rd s a ≡ volatile t a
    stb : ∀ a → a ≤ amax → rdS s (smap s a) ≡ stable t a
    cnt : wcnt s ≡ Sp.wcnt t

-- every P-state is abstracted by this S-state
tOf : St → State
tOf s = ⟨ rd s , (λ a → rdS s (smap s a)) , wcnt s ⟩

AR-tOf : ∀ s → AR s (tOf s)
AR-tOf s = ar (λ _ _ → refl) (λ _ _ → refl) refl

------------------------------------------------------------------------
-- Crash invariant and crash abstraction relation: recovery finds a
-- committed checkpoint and deltas yielding M, and the pages M maps are
-- durable data sectors of the right logical addresses.

record RecTo (s : St) (M : Map) : Set where
  constructor recto
  field
    b  : Bool
    g  : ℕ
    C  : Map
    pk : pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C)
    sl : slot b s ≡ syn (cpt g C)
    so : PM (Older g) (slot (not b) s)
    rs : All IsSyn (dr s)
    rg : All (PM (GenLe g)) (dr s)
    mx : recMap g C s ≐ M
    dm : DgM M (rview g s)
    ro : ∀ p → RLt (suc g) (cur (rcd s p))

DOK : (ℕ → MC) → Maybe ℕ → Addr → Data → Set
DOK D nothing  a x = x ≡ d0
DOK D (just p) a x = D p ≡ syn (dcell x a)

DOKs : (ℕ → MC) → Map → (Addr → Data) → Set
DOKs D M X = ∀ a → a ≤ amax → DOK D (M a) a (X a)

CI : St → Set
CI s = Σ Map λ M → Σ (Addr → Data) λ X → RecTo s M × DOKs (dat s) M X

CR : St → State → Set
CR s t = Σ Map λ M → RecTo s M × DOKs (dat s) M (stable t)

CR⇒CI : ∀ {s t} → CR s t → CI s
CR⇒CI {t = t} (M , rt , dk) = M , stable t , rt , dk

CI⇒CR : ∀ {s} (ci : CI s) → CR s ⟨ proj₁ (proj₂ ci) , proj₁ (proj₂ ci) , 0 ⟩
CI⇒CR (M , X , rt , dk) = M , rt , dk

------------------------------------------------------------------------
-- Data pages

crashC-eq : ∀ {m c m'} → m ≡ syn c → CrashC m m' → m' ≡ syn c
crashC-eq refl e = e

crashD-eq : ∀ {m c m'} → m ≡ syn c → CrashD m m' → m' ≡ syn c
crashD-eq refl e = e

dok-crash : ∀ {D D' M X} → (∀ p → CrashD (D p) (D' p)) → DOKs D M X → DOKs D' M X
dok-crash {D} {D'} {M} {X} cd dk a le = go (M a) (dk a le)
  where
    go : ∀ mp → DOK D mp a (X a) → DOK D' mp a (X a)
    go nothing  e = e
    go (just p) e = crashD-eq e (cd p)

dok-sync : ∀ {D M X} → DOKs D M X → DOKs (λ p → sync (D p)) M X
dok-sync {D} {M} {X} dk a le = go (M a) (dk a le)
  where
    go : ∀ mp → DOK D mp a (X a) → DOK (λ p → sync (D p)) mp a (X a)
    go nothing  e = e
    go (just p) e = cong sync e

dok-rd : ∀ {D} mp {a x} → DOK D mp a x → rdD D mp ≡ x
dok-rd nothing  e = sym e
dok-rd {D} (just p) {a} {x} e = cong (λ m → cellD (cur m)) e

-- the stable L2P of an RI state reads what AR says, from durable pages
ri-dok : ∀ {m X} → RI m → (∀ a → a ≤ amax → rdS m (smap m a) ≡ X a) → DOKs (dat m) (smap m) X
ri-dok {m} {X} r st a le = go (smap m a) refl (st a le)
  where
    go : ∀ mp → smap m a ≡ mp → rdS m mp ≡ X a → DOK (dat m) mp a (X a)
    go nothing  _  e2 = sym e2
    go (just p) e1 e2 with RI.sOK r a p le e1
    ... | _ , _ , d , ed =
      trans ed (cong (λ x → syn (dcell x a)) (trans (cong (λ c → cellD (cur c)) (sym ed)) e2))

dok-ck : ∀ {u m M X} → DOKs (dat u) M X → CkPt u m → DOKs (dat m) M X
dok-ck dk (inj₁ refl)        = dk
dok-ck dk (inj₂ (inj₁ refl)) = dok-sync dk
dok-ck dk (inj₂ (inj₂ refl)) = dok-sync (dok-sync dk)

------------------------------------------------------------------------
-- Recovery's view of the delta region

rview-dr : ∀ g {s s'} → dr s' ≡ dr s → (∀ p → cur (dat s' p) ≡ cur (dat s p)) →
  (∀ p → cur (rcd s' p) ≡ cur (rcd s p)) → rview g s' ≡ rview g s
rview-dr g {s} {s'} e d r =
  trans (chn-ext {λ p → cur (rcd s' p)} {λ p → cur (rcd s p)} {λ p → cur (dat s' p)} {λ p → cur (dat s p)} r d g
                 (acc g (λ p → cur (dat s' p)) (map cur (dr s'))))
        (cong (chn g (λ p → cur (rcd s p)) (λ p → cur (dat s p)))
              (trans (acc-ext d g (map cur (dr s'))) (cong (λ l → acc g (λ p → cur (dat s p)) (map cur l)) e)))

recMap-dr : ∀ g C {s s'} → dr s' ≡ dr s → (∀ p → cur (dat s' p) ≡ cur (dat s p)) →
  (∀ p → cur (rcd s' p) ≡ cur (rcd s p)) → recMap g C s' ≐ recMap g C s
recMap-dr g C {s} {s'} e d r a = cong (λ l → proj₁ (rp g l (st0 C)) a) (rview-dr g {s} {s'} e d r)

-- with no record of the generation, recovery replays the region alone
rview-none : ∀ g s → (∀ p → RLt g (cur (rcd s p))) →
  rview g s ≡ acc g (λ p → cur (dat s p)) (map cur (dr s))
rview-none g s f = chn-none g _ _ f _

rc-cur : ∀ {s g} → (∀ p → Σ Cell λ c → rcd s p ≡ syn c × RLt g c) → ∀ p → RLt g (cur (rcd s p))
rc-cur f p with f p
... | c , e , lt rewrite e = lt

rc-crash : ∀ {m s' g} → (∀ p → Σ Cell λ c → rcd m p ≡ syn c × RLt g c) →
  (∀ p → CrashC (rcd m p) (rcd s' p)) → ∀ p → Σ Cell λ c → rcd s' p ≡ syn c × RLt g c
rc-crash {m} f cr p with f p
... | c , e , lt = c , crashC-eq' e (cr p) , lt
  where
    crashC-eq' : ∀ {x c y} → x ≡ syn c → CrashC x y → y ≡ syn c
    crashC-eq' refl e = e

rc-sync : ∀ {f : ℕ → MC} {g} → (∀ p → Σ Cell λ c → f p ≡ syn c × RLt g c) →
  ∀ p → Σ Cell λ c → sync (f p) ≡ syn c × RLt g c
rc-sync h p with h p
... | c , e , lt = c , cong sync e , lt

acc-split : ∀ g D tents comm → All (PM (NC g)) tents →
  acc g D (map cur (tents ++ map syn comm)) ≡ acc g D comm
acc-split g D tents comm nc rewrite map-cur-++ tents (map syn comm) | map-cur-syn comm =
  acc-nc g D (map cur tents) comm (all-cur nc)

-- at and past the link of the newest commit recovery accepts lies no record of
-- the generation: recovery replays the region alone
rview-q : ∀ g s {sm DD} comm →
  acc g (λ p → cur (dat s p)) (map cur (dr s)) ≡ acc g (λ p → cur (dat s p)) comm →
  CmV g sm DD comm → (∀ p c → DD p ≡ syn c → cur (dat s p) ≡ c) →
  (∀ x L → lkTop g comm ≡ just (x , L) → Above g (λ p → cur (rcd s p)) L) →
  rview g s ≡ acc g (λ p → cur (dat s p)) (map cur (dr s))
rview-q g s comm ea cv f q =
  chn-quiet g (λ p → cur (rcd s p)) (λ p → cur (dat s p)) _
    (λ x L e → q x L (trans (sym (acc-lk (λ p → cur (dat s p)) f comm cv)) (trans (cong lkOf (sym ea)) e)))

-- record slots keep their content through a crash where they are durable
rcur-crash : ∀ {m s' g} → (∀ p → Σ Cell λ c → rcd m p ≡ syn c × RLt g c) →
  (∀ p → CrashC (rcd m p) (rcd s' p)) → ∀ p → cur (rcd s' p) ≡ cur (rcd m p)
rcur-crash f cr p with f p
... | c , e , _ = trans (cong cur (crashC-eq e (cr p))) (sym (cong cur e))

rc-step : ∀ {s g} → (∀ p → Σ Cell λ c → rcd s p ≡ syn c × RLt g c) → ∀ p → Σ Cell λ c → rcd s p ≡ syn c × RLt (suc g) c
rc-step f p with f p
... | c , e , lt = c , e , RLt-step c lt

-- tentative pages are never accepted as a commit, and the committed part
-- of a normal state's region is accepted whole
rec-split : ∀ g C D {sm DD} tents comm → All (PM (NC g)) tents → CmV g sm DD comm →
  (∀ p c → DD p ≡ syn c → D p ≡ c) →
  proj₁ (rp g (acc g D (map cur (tents ++ map syn comm))) (st0 C)) ≡ proj₁ (rp g comm (st0 C))
rec-split g C D tents comm nc cv f
  rewrite map-cur-++ tents (map syn comm) | map-cur-syn comm
        | acc-nc g D (map cur tents) comm (all-cur nc)
  = acc-cmv D f comm (st0 C) cv

dgm-split : ∀ g D {sm DD} tents comm → All (PM (NC g)) tents → CmV g sm DD comm →
  (∀ p c → DD p ≡ syn c → D p ≡ c) → DgM sm (acc g D (map cur (tents ++ map syn comm)))
dgm-split g D tents comm nc cv f
  rewrite map-cur-++ tents (map syn comm) | map-cur-syn comm
        | acc-nc g D (map cur tents) comm (all-cur nc)
  = cmv-dgm D f comm cv

ri-quiet : ∀ {u} (r : RI u) → rview (gen u) u ≡ acc (gen u) (λ p → cur (dat u p)) (map cur (dr u))
ri-quiet {u} r =
  rview-q (gen u) u (RI.comm r)
    (trans (cong (λ l → acc (gen u) (λ p → cur (dat u p)) (map cur l)) (RI.regEq r))
           (acc-split (gen u) _ (RI.tents r) (RI.comm r) (RI.tNC r)))
    (RI.cmV r) (λ p c e → cong cur e) (RI.rcL r)

ri-rec : ∀ {u} (r : RI u) → recMap (gen u) (RI.C r) u ≐ smap u
ri-rec {u} r a =
  trans (cong (λ l → proj₁ (rp (gen u) l (st0 (RI.C r))) a) (ri-quiet r)) (
  trans (cong (λ f → f a)
    (trans (cong (λ l → proj₁ (rp (gen u) (acc (gen u) (λ p → cur (dat u p)) (map cur l)) (st0 (RI.C r))))
                 (RI.regEq r))
           (rec-split (gen u) (RI.C r) (λ p → cur (dat u p)) (RI.tents r) (RI.comm r) (RI.tNC r)
                      (RI.cmV r) (λ p c e → cong cur e))))
    (RI.cmX r a))

ri-dgm : ∀ {u} (r : RI u) → DgM (smap u) (rview (gen u) u)
ri-dgm {u} r =
  subst (DgM (smap u)) (sym (ri-quiet r)) (
  subst (λ l → DgM (smap u) (acc (gen u) (λ p → cur (dat u p)) (map cur l))) (sym (RI.regEq r))
    (dgm-split (gen u) (λ p → cur (dat u p)) (RI.tents r) (RI.comm r) (RI.tNC r) (RI.cmV r) (λ p c e → cong cur e)))

------------------------------------------------------------------------
-- A crash from a normal (RI) state: recovery yields its stable L2P.

crash-RI : ∀ {m s'} → (r : RI m) → Img m s' → RecTo s' (smap m)
crash-RI {m} {s'} r img@(_ , cL , cO , cR , cI) with
  crashL-++ (RI.tents r) (subst (λ l → CrashL l (dr s')) (RI.regEq r) cR)
... | xs' , ys' , eq , cx , cy =
  recto true g C (pick-slot true s' g C sl' so') sl' so'
        (crashL-syn cR) (crashL-PM tt cR (RI.gle r)) mx dm (rc-cur {s'} (rc-crash {m} {s'} (RI.rcOK r) cI))
  where
    g = gen m
    C = RI.C r
    sl' = crashC-eq (RI.slotL r) cL
    so' = crashC-PM tt cO (RI.slotO r)
    ys≡ : ys' ≡ map syn (RI.comm r)
    ys≡ = crashL-id (all-map-syn (RI.comm r)) cy
    D' = λ p → cur (dat s' p)
    rn = rview-q g s' (RI.comm r)
           (trans (cong (λ l → acc g D' (map cur l)) (trans eq (cong (xs' ++_) ys≡)))
                  (acc-split g D' xs' (RI.comm r) (crashL-PM tt cx (RI.tNC r))))
           (RI.cmV r) (λ p c e → cong cur (crashD-eq e (proj₁ img p)))
           (λ x L e p le → subst (RLt g) (sym (rcur-crash {m} {s'} (RI.rcOK r) cI p)) (RI.rcL r x L e p le))
    mx : recMap g C s' ≐ smap m
    mx a = trans (cong (λ l → proj₁ (rp g l (st0 C)) a) rn) (trans (cong (λ f → f a)
      (trans (cong (λ l → proj₁ (rp g (acc g D' (map cur l)) (st0 C)))
                   (trans eq (cong (xs' ++_) ys≡)))
             (rec-split g C D' xs' (RI.comm r) (crashL-PM tt cx (RI.tNC r)) (RI.cmV r)
                        (λ p c e → cong cur (crashD-eq e (proj₁ img p))))))
      (RI.cmX r a))
    dm : DgM (smap m) (rview g s')
    dm = subst (DgM (smap m)) (sym rn) (subst (λ l → DgM (smap m) (acc g D' (map cur l))) (sym (trans eq (cong (xs' ++_) ys≡)))
           (dgm-split g D' xs' (RI.comm r) (crashL-PM tt cx (RI.tNC r)) (RI.cmV r)
                      (λ p c e → cong cur (crashD-eq e (proj₁ img p)))))

------------------------------------------------------------------------
-- A crash during a full checkpoint of L2P M (from generation g to g+1).

older-er : ∀ {h c m'} → Older h c → CrashC (uns c erased) m' → PM (Older h) m'
older-er o (inj₁ refl)        = o
older-er o (inj₂ (inj₁ refl)) = tt
older-er o (inj₂ (inj₂ refl)) = tt

crashL-nil : ∀ {ys} → CrashL [] ys → ys ≡ []
crashL-nil [] = refl

syn-crashD : ∀ {m m'} → IsSyn m → CrashD m m' → m' ≡ m
syn-crashD {syn c} _ e = e

ck-crash : ∀ {u m s' M} (C : Map)
  → cpL u ≡ syn (cpt (gen u) C) → PM (Older (gen u)) (cpO u)
  → All IsSyn (dr u) → All (PM (GenLe (gen u))) (dr u) → (∀ p → IsSyn (dat u p))
  → (∀ p → Σ Cell λ c → rcd u p ≡ syn c × RLt (suc (gen u)) c)
  → recMap (gen u) C u ≐ M → l2p u ≐ M
  → DgM M (rview (gen u) u)
  → CkPt u m → Img m s' → RecTo s' M
-- crash before the first SYNC: the new checkpoint may or may not be there
ck-crash {u} {s' = s'} {M} C sl so rs rg ds rsy mx lm dm (inj₁ refl) (cD , cL , cO , cR , cI) = go cO
  where
    g = gen u
    L = l2p u
    sl' = crashC-eq sl cL
    drEq : dr s' ≡ dr u
    drEq = crashL-id rs cR
    rs' = subst (All IsSyn) (sym drEq) rs
    rg' = subst (All (PM (GenLe g))) (sym drEq) rg
    rsy' = rc-crash {u} {s'} rsy cI
    rEq : ∀ p → cur (rcd s' p) ≡ cur (rcd u p)
    rEq p with rsy p
    ... | c , e , _ = trans (cong cur (crashC-eq e (cI p))) (sym (cong cur e))
    vEq = rview-dr g {u} {s'} drEq (λ p → cong cur (syn-crashD (ds p) (cD p))) rEq
    mxOld : recMap g C s' ≐ M
    mxOld a = trans (recMap-dr g C {u} {s'} drEq (λ p → cong cur (syn-crashD (ds p) (cD p))) rEq a) (mx a)
    soNew : PM (Older (suc g)) (cpL s')
    soNew = subst (PM (Older (suc g))) (sym sl') ≤-refl
    mxNew : recMap (suc g) L s' ≐ M
    mxNew a = trans (cong (λ l → proj₁ (rp (suc g) (chn (suc g) (λ p → cur (rcd s' p)) (λ p → cur (dat s' p)) l) (st0 L)) a)
                          (acc-gen g _ (map cur (dr s')) (all-cur rg'))) (lm a)
    go : CrashC (put (cpt (suc g) L) (cpO u)) (cpO s') → RecTo s' M
    dmOld : DgM M (rview g s')
    dmOld = subst (DgM M) (sym vEq) dm
    dmNew : DgM M (rview (suc g) s')
    dmNew = subst (λ l → DgM M (chn (suc g) (λ p → cur (rcd s' p)) (λ p → cur (dat s' p)) l))
                  (sym (acc-gen g _ (map cur (dr s')) (all-cur rg'))) tt
    ro1 = rc-cur {s'} rsy'
    go (inj₁ e) = recto true g C (pick-slot true s' g C sl' so') sl' so' rs' rg' mxOld dmOld ro1
      where so' = subst (PM (Older g)) (sym e) (PM-dur (cpO u) so)
    go (inj₂ (inj₁ e)) =
      recto false (suc g) L (pick-slot false s' (suc g) L e soNew) e soNew rs'
            (all-GenLe-step rg') mxNew dmNew (rc-cur {s'} (rc-step {s'} rsy'))
    go (inj₂ (inj₂ e)) = recto true g C (pick-slot true s' g C sl' so') sl' so' rs' rg' mxOld dmOld ro1
      where so' = subst (PM (Older g)) (sym e) tt
-- crash before the second SYNC: the new checkpoint is durable
ck-crash {u} {s' = s'} {M} C sl so rs rg ds rsy mx lm dm (inj₂ (inj₁ refl)) (_ , cL , cO , cR , cI) =
  recto false (suc g) L (pick-slot false s' (suc g) L cO so') cO so' (crashL-syn cR)
        (all-GenLe-step rg2) mx'
        (subst (λ l → DgM M (chn (suc g) (λ p → cur (rcd s' p)) (λ p → cur (dat s' p)) l))
               (sym (acc-gen g _ (map cur (dr s')) (all-cur rg2))) tt)
        (rc-cur {s'} (rc-step {s'} (rc-crash {ck2 u} {s'} (rc-sync {rcd u} rsy) cI)))
  where
    g = gen u
    L = l2p u
    so' : PM (Older (suc g)) (cpL s')
    so' = older-er (subst (Older (suc g)) (sym (cong cur sl)) ≤-refl) cL
    rg2 : All (PM (GenLe g)) (dr s')
    rg2 = crashL-PM tt cR (all-put erased tt (all-sync rg))
    mx' : recMap (suc g) L s' ≐ M
    mx' a = trans (cong (λ l → proj₁ (rp (suc g) (chn (suc g) (λ p → cur (rcd s' p)) (λ p → cur (dat s' p)) l) (st0 L)) a)
                        (acc-gen g _ (map cur (dr s')) (all-cur rg2))) (lm a)
-- crash at the end: old slot and delta region erased
ck-crash {u} {s' = s'} {M} C sl so rs rg ds rsy mx lm dm (inj₂ (inj₂ refl)) (_ , cL , cO , cR , cI) =
  recto true (suc g) L (pick-slot true s' (suc g) L cL so') cL so'
        (subst (All IsSyn) (sym drE) []) (subst (All (PM (GenLe (suc g)))) (sym drE) []) mx'
        (subst (λ l → DgM M (chn (suc g) (λ p → cur (rcd s' p)) (λ p → cur (dat s' p))
                                 (acc (suc g) (λ p → cur (dat s' p)) (map cur l)))) (sym drE) tt)
        (rc-cur {s'} (rc-step {s'} (rc-crash {ck3 u} {s'} (rc-sync {λ p → sync (rcd u p)} (rc-sync {rcd u} rsy)) cI)))
  where
    g = gen u
    L = l2p u
    drE = crashL-nil cR
    so' = subst (PM (Older (suc g))) (sym cO) tt
    mx' : recMap (suc g) L s' ≐ M
    mx' a = trans (cong (λ l → proj₁ (rp (suc g) (chn (suc g) (λ p → cur (rcd s' p)) (λ p → cur (dat s' p))
                                                    (acc (suc g) (λ p → cur (dat s' p)) (map cur l))) (st0 L)) a) drE) (lm a)
