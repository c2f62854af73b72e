{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: a crash in PL's chain phase as a crash of
-- P on the virtually consolidated flash.
--
-- `walkG g s`: the records recovery's walk applies on the flash of s in
-- generation g (PL's `chainOf` with the generation recovery picks).
-- `phase-virt-crash`: a crash of a state of the chain phase (`Phase`,
-- with P's RI on the virtually consolidated state) leaves a flash whose
-- walk finds the whole chain and which, with those records put on the
-- region, is a crash state of P abstracting the same S state (P's `CR`,
-- by P's `crash-RI`).  This is the crash obligation of PL for the
-- crash relation `CR (virt (walkG g s') s')`, once PL's recovery is
-- P's on that flash.
--
-- Not proven: PL's recovery as P's on the virtually consolidated flash
-- (PL's `rec0L` computes the next page and epoch id from the region
-- alone), the crash points inside steps (the lazy commit's before its
-- SYNC with the record landed, the consolidation page's), recovery's
-- own crashes; so no Theorem 1 for PL.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainCrash (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                 (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_
  using (RI; AR; CR; CR⇒CI; DOKs; crash-RI; dok-crash; ri-dok; crashC-eq; crashD-eq; rcur-crash; acc-split; RecTo; recto)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (crashL-++; crashL-id; crashL-PM; crashC-PM; all-map-syn; acc-lk; lkTop; pick-slot; All; PM; GenLe; Older; DgM;
         okC-gen; map-cur-++; map-cur-syn; rp-++)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (follow-lay; end; kons; Recs; kons-replay)
open import SCFTL.Impl.LazyChainSteps Data d0 amax wmax kmax _≟D_ kc using (pre-nil; okC-kons)
open import Data.Nat.Properties using (≤-refl)
open import Data.Nat.Base using (zero; suc)
open import Data.Unit.Base using (tt)
open import Data.Bool.Base using (true; false; not)
open import Data.Maybe.Base using (nothing)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (follow; rv)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (Rof; Dof)
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_ using (cinv-crash)
open import SCFTL.Impl.LazyChainRegion Data d0 amax wmax kmax _≟D_ kc using (ri-crash-acc)
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainVirtual Data d0 amax wmax kmax _≟D_ kc using (ar-virt)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (walkG; virt; rec0L; okPL)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (rec-A; rec-B)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (recover)
open import Data.Bool.Base using (Bool)
open import Data.Maybe.Base using (just)
open import Data.Sum.Base using (inj₁; inj₂)


crashL-pre : ∀ vs {xs ys} → CrashL xs ys → CrashL (map syn vs ++ xs) (map syn vs ++ ys)
crashL-pre []       c = c
crashL-pre (v ∷ vs) c = refl ∷ crashL-pre vs c

img-virt : ∀ vs {s s'} → Img s s' → Img (virt vs s) (virt vs s')
img-virt vs (d , l , o , r , i) = d , l , o , crashL-pre vs r , i

-- `virt-crash`: P's crash relation for the virtually consolidated crashed flash
virt-crash : ∀ {vs s s' t} → AR s t → RI (virt vs s) → Img s s' → CR (virt vs s') t
virt-crash {vs} {s} {s'} {t} arr r img =
  smap s , crash-RI r (img-virt vs {s} {s'} img) , dok-crash (proj₁ img) (ri-dok r (AR.stb (ar-virt {vs} {s} {t} arr)))

-- `phase-walk-crash`: the crashed flash's walk finds the whole chain
phase-walk-crash : ∀ {s s'} (ph : Phase s) → Img s s' → walkG (gen s) s' ≡ rv (ph-rs ph)
phase-walk-crash {s} {s'} (phase C x L y E rs rest c M0 z ci si ri lk e) img =
  trans (cong (follow kc (gen s) (Rof s') (Dof s')) (trans (cong lkOf (ri-crash-acc {s} {s'} ri img)) lk))
        (cinv-crash {kc} {s} {s'} ci img)

-- `phase-virt-crash`: a crash of the chain phase is a crash state of P
-- on the flash with the records the walk finds put on the region
phase-virt-crash : ∀ {s s' t} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → Img s s' →
                   walkG (gen s) s' ≡ rv (ph-rs ph) × CR (virt (walkG (gen s) s') s') t
phase-virt-crash {s} {s'} {t} ph arr r img =
  phase-walk-crash {s} {s'} ph img ,
  subst (λ vs → CR (virt vs s') t) (sym (phase-walk-crash {s} {s'} ph img)) (virt-crash {rv (ph-rs ph)} {s} {s'} arr r img)

------------------------------------------------------------------------
-- Recovery: PL's is P's on the virtually consolidated flash

-- PL's crash relation: P's for the flash with the records the walk
-- applies (in the generation recovery picks) put on the region
CRL : St → Sp.State → Set
CRL s t = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
          CR (virt (walkG g s) s) t

-- `CRLM`: PL's crash relation with the map recovery rebuilds named
-- (SCFTL.Impl.OneModelRecMaps: which pages a recovery names; a crash of
-- recovery keeps it, `pl-rec-crash-M` in SCFTL.Impl.LazyChainCrashKons)
CRLM : St → Sp.State → Map → Set
CRLM s t M = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
             RecTo (virt (walkG g s) s) M × DOKs (dat (virt (walkG g s) s)) M (Sp.stable t)

crlm⇒crl : ∀ {s t M} → CRLM s t M → CRL s t
crlm⇒crl {M = M} (b , g , C , pk , rt , dk) = b , g , C , pk , M , rt , dk

-- `CRLS s t u`: `CRLM` with the map u's stable L2P (at every address)
CRLS : St → Sp.State → St → Set
CRLS s t u = Σ Map λ M → CRLM s t M × (∀ a → M a ≡ smap u a)

crls⇒crl : ∀ {s t u} → CRLS s t u → CRL s t
crls⇒crl {s} {t} (M , c , _) = crlm⇒crl {s} {t} {M} c

crls-of : ∀ {s t u} → CRLM s t (smap u) → CRLS s t u
crls-of {u = u} c = smap u , c , λ a → refl

-- it depends on the S state through its stable image only
crls-stable : ∀ {s t t' u} → Sp.stable t ≡ Sp.stable t' → CRLS s t u → CRLS s t' u
crls-stable {s} e (M , (b , g , C , pk , rt , dk) , q) =
  M , (b , g , C , pk , rt , subst (DOKs (dat (virt (walkG g s) s)) M) e dk) , q

-- and on u through its stable L2P only
crls-≐ : ∀ {s t u v} → (∀ a → smap u a ≡ smap v a) → CRLS s t u → CRLS s t v
crls-≐ e (M , c , q) = M , c , λ a → trans (q a) (e a)

-- `pl-rec`: PL's recovery is P's (with its full checkpoint) on that flash
pl-rec : ∀ b g C s → ck3 (rec0L b g C s) ≡ ck3 (rec0 b g C (virt (walkG g s) s))
pl-rec b g C s = refl

-- `pl-rec-A`, `pl-rec-B`: type A and B of PL's recovery (P's `rec-A`,
-- `rec-B` on the virtually consolidated flash)
pl-rec-A : ∀ {G s t s'} → CRL s t → okPL G recover s s' → Σ Sp.State λ t' → Sp.okS recover t t' × AR s' t'
pl-rec-A {s = s} {t} (b , g , C , pk , cr) (b' , g' , C' , pk' , refl) with trans (sym pk) pk'
... | refl = rec-A {virt (walkG g s) s} {t} {ck3 (rec0L b g C s)} cr (b , g , C , pk , inj₁ refl)

pl-rec-B : ∀ {G s t s'} → CRL s t → okPL G recover s s' → RI s'
pl-rec-B {s = s} {t} (b , g , C , pk , cr) (b' , g' , C' , pk' , refl) with trans (sym pk) pk'
... | refl = rec-B {virt (walkG g s) s} {ck3 (rec0L b g C s)} (CR⇒CI {t = t} cr) (b , g , C , pk , inj₁ refl)

------------------------------------------------------------------------
-- A crash without a chain: PL's crash relation is P's

-- `walk-free-crash`: the walk on any crash outcome of a state with P's
-- RI finds no record
walk-free-crash : ∀ {m s'} → (r : RI m) → Img m s' → walkG (gen m) s' ≡ []
walk-free-crash {m} {s'} r img@(_ , cL , cO , cR , cI)
  with crashL-++ (RI.tents r) (subst (λ l → CrashL l (dr s')) (RI.regEq r) cR)
... | xs' , ys' , eq , cx , cy = go (lkTop g (RI.comm r)) refl
  where
    g = gen m
    D' = λ p → cur (dat s' p)
    R' = λ p → cur (rcd s' p)
    ys≡ : ys' ≡ map syn (RI.comm r)
    ys≡ = crashL-id (all-map-syn (RI.comm r)) cy
    lkEq : lkOf (acc g D' (map cur (dr s'))) ≡ lkTop g (RI.comm r)
    lkEq = trans (cong (λ l → lkOf (acc g D' (map cur l))) (trans eq (cong (xs' ++_) ys≡)))
             (trans (cong lkOf (acc-split g D' xs' (RI.comm r) (crashL-PM tt cx (RI.tNC r))))
                    (acc-lk D' (λ p c e → cong cur (crashD-eq e (proj₁ img p))) (RI.comm r) (RI.cmV r)))
    fnil : ∀ k → follow k g R' D' nothing ≡ []
    fnil zero    = refl
    fnil (suc k) = refl
    go : ∀ mx → lkTop g (RI.comm r) ≡ mx → walkG g s' ≡ []
    go nothing e = trans (cong (follow kc g R' D') (trans lkEq e)) (fnil kc)
    go (just (x , L)) e =
      trans (cong (follow kc g R' D') (trans lkEq e))
            (trans (follow-lay kc D' end ab) (cong rv (pre-nil g D' kc x)))
      where
        ab : Above g R' L
        ab p le = subst (RLt g) (sym (rcur-crash {m} {s'} (RI.rcOK r) cI p)) (RI.rcL r x L e p le)

-- `free-crash-CRLM`, `free-crash-CRL`: a crash of a state with P's RI
-- and AR is in PL's crash relation (P's, the walk finding nothing),
-- recovery rebuilding the state's stable L2P
free-crash-CRLM : ∀ {m s' t} → AR m t → RI m → Img m s' → CRLM s' t (smap m)
free-crash-CRLM {m} {s'} {t} arr r img@(cD , cL , cO , cR , cI) =
  true , gen m , RI.C r , pick-slot true s' (gen m) (RI.C r) sl' so' ,
  subst (λ vs → RecTo (virt vs s') (smap m)) (sym (walk-free-crash {m} {s'} r img)) (crash-RI r img) ,
  dok-crash cD (ri-dok r (AR.stb arr))
  where
    sl' = crashC-eq (RI.slotL r) cL
    so' = crashC-PM tt cO (RI.slotO r)

free-crash-CRL : ∀ {m s' t} → AR m t → RI m → Img m s' → CRL s' t
free-crash-CRL {m} {s'} {t} arr r img = crlm⇒crl {s'} {t} {smap m} (free-crash-CRLM {m} {s'} {t} arr r img)

-- `phase-crash-CRLM`, `phase-crash-CRL`: a crash of a state of the
-- chain phase (P's RI on its virtually consolidated state) is in PL's
-- crash relation, recovery rebuilding the state's stable L2P
phase-crash-CRLM : ∀ {s s' t} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → Img s s' → CRLM s' t (smap s)
phase-crash-CRLM {s} {s'} {t} ph arr r img@(cD , cL , cO , cR , cI) =
  true , gen s , RI.C r , pick-slot true s' (gen s) (RI.C r) sl' so' ,
  subst (λ vs → RecTo (virt vs s') (smap s)) (sym (phase-walk-crash {s} {s'} ph img))
        (crash-RI r (img-virt (rv (ph-rs ph)) {s} {s'} img)) ,
  dok-crash cD (ri-dok r (AR.stb (ar-virt {rv (ph-rs ph)} {s} {t} arr)))
  where
    sl' = crashC-eq (RI.slotL r) cL
    so' = crashC-PM tt cO (RI.slotO r)

phase-crash-CRL : ∀ {s s' t} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → Img s s' → CRL s' t
phase-crash-CRL {s} {s'} {t} ph arr r img = crlm⇒crl {s'} {t} {smap s} (phase-crash-CRLM {s} {s'} {t} ph arr r img)

------------------------------------------------------------------------
-- Moving P's `RecTo` from a flash whose one-link walk takes a record c
-- to the flash with c on the region (what the crash points inside the
-- lazy commit need: a record landed before its SYNC)

slot-virt : ∀ b vs vs' s → slot b (virt vs s) ≡ slot b (virt vs' s)
slot-virt true  vs vs' s = refl
slot-virt false vs vs' s = refl

-- the region's top accepted (stated once; used instead of `rewrite`
-- over recovery's view)
acc-hd : ∀ g D c cs → okC g D c cs ≡ true → acc g D (c ∷ cs) ≡ c ∷ cs
acc-hd g D c cs o rewrite o = refl

-- `recto-follow`: recovery replays the same list either way
recto-follow : ∀ {vs s M c} → (rt : RecTo (virt vs s) M) →
  acc (RecTo.g rt) (Dof s) (map cur (dr (virt vs s))) ≡ map cur (dr (virt vs s)) →
  extM (RecTo.g rt) (Rof s) (Dof s) (lkOf (map cur (dr (virt vs s)))) ≡ c ∷ [] →
  okC (RecTo.g rt) (Dof s) c (map cur (dr (virt vs s))) ≡ true →
  extM (RecTo.g rt) (Rof s) (Dof s) (lkOf (c ∷ map cur (dr (virt vs s)))) ≡ [] →
  GenLe (RecTo.g rt) c →
  RecTo (virt (c ∷ vs) s) M
recto-follow {vs} {s} {M} {c} (recto b g C pk sl so rs rg mx dm ro) ea ex ok ex' ge =
  recto b g C pk (trans (slot-virt b (c ∷ vs) vs s) sl)
        (subst (PM (Older g)) (slot-virt (not b) vs (c ∷ vs) s) so)
        (All._∷_ tt rs) (All._∷_ ge rg)
        (λ a → trans (cong (λ l → proj₁ (rp g l (st0 C)) a) same) (mx a))
        (subst (DgM M) (sym same) dm) ro
  where
    X = map cur (dr (virt vs s))
    D = Dof s
    R = Rof s
    rv1 : rview g (virt (c ∷ vs) s) ≡ c ∷ X
    rv1 = trans (cong (chn g R D) (acc-hd g D c X ok)) (cong (_++ c ∷ X) ex')
    rv0 : rview g (virt vs s) ≡ c ∷ X
    rv0 = trans (cong (λ l → extM g R D (lkOf l) ++ l) ea) (cong (_++ X) ex)
    same : rview g (virt (c ∷ vs) s) ≡ rview g (virt vs s)
    same = trans rv1 (sym rv0)

------------------------------------------------------------------------
-- Pages of an older generation on top of the region do not matter to a
-- recovery of the next one (what recovery's own crashes need: the
-- virtual records under a checkpoint of the next generation)

acc-skip : ∀ g D vs cs → All (GenLe g) vs → acc (suc g) D (vs ++ cs) ≡ acc (suc g) D cs
acc-skip g D []       cs All.[]         = refl
acc-skip g D (v ∷ vs) cs (All._∷_ ge a) rewrite okC-gen g D v (vs ++ cs) ge = acc-skip g D vs cs a

all-suffix : ∀ {A : Set} {P : A → Set} xs {ys} → All P (xs ++ ys) → All P ys
all-suffix []       a              = a
all-suffix (x ∷ xs) (All._∷_ _ a) = all-suffix xs a

-- `recto-old`: `RecTo` without the older generation's pages
recto-old : ∀ {vs s M g0} → (rt : RecTo (virt vs s) M) → RecTo.g rt ≡ suc g0 → All (GenLe g0) vs → RecTo s M
recto-old {vs} {s} {M} {g0} (recto b g C pk sl so rs rg mx dm ro) refl ga =
  recto b g C pk (trans (slot-virt b [] vs s) sl) (subst (PM (Older g)) (slot-virt (not b) vs [] s) so)
        (all-suffix (map syn vs) rs) (all-suffix (map syn vs) rg)
        (λ a → trans (cong (λ l → proj₁ (rp g l (st0 C)) a) same) (mx a))
        (subst (DgM M) (sym same) dm) ro
  where
    D = Dof s
    R = Rof s
    X = map cur (dr s)
    accEq : acc g D (map cur (map syn vs ++ dr s)) ≡ acc g D X
    accEq = trans (cong (acc g D) (trans (map-cur-++ (map syn vs) (dr s)) (cong (_++ X) (map-cur-syn vs))))
                  (acc-skip g0 D vs X ga)
    same : rview g s ≡ rview g (virt vs s)
    same = cong (chn g R D) (sym accEq)

------------------------------------------------------------------------
-- The consolidation page in place of the records (what the
-- consolidation step's crash point needs, the page landed)

slot-dr : ∀ b s d1 d2 → slot b (record s { dr = d1 }) ≡ slot b (record s { dr = d2 })
slot-dr true  s d1 d2 = refl
slot-dr false s d1 d2 = refl

-- `recto-kons`: the records on the region (accepted as a whole, nothing
-- past their link) replaced by their consolidation page
recto-kons : ∀ {vs s M y E M' z} → (rt : RecTo (virt vs s) M) →
  acc (RecTo.g rt) (Dof s) (map cur (dr (virt vs s))) ≡ map cur (dr (virt vs s)) →
  extM (RecTo.g rt) (Rof s) (Dof s) (lkOf (map cur (dr (virt vs s)))) ≡ [] →
  extM (RecTo.g rt) (Rof s) (Dof s) (just (y , E)) ≡ [] →
  Recs (RecTo.g rt) vs → rp (RecTo.g rt) (map cur (dr s)) (st0 (RecTo.C rt)) ≡ (M' , z , M') →
  RecTo (record s { dr = syn (kons (RecTo.g rt) y ([] , [] , E) vs) ∷ dr s }) M
recto-kons {vs} {s} {M} {y} {E} {M'} {z} (recto b g C pk sl so rs rg mx dm ro) ea ex exK rc e =
  recto b g C pk (trans (slot-dr b s _ _) sl) (subst (PM (Older g)) (slot-dr (not b) s _ _) so)
        (All._∷_ tt (all-suffix (map syn vs) rs)) (All._∷_ ≤-refl (all-suffix (map syn vs) rg))
        (λ a → trans (cong (λ f → f a) replay) (mx a)) (subst (DgM M) (sym rvK) All.[]) ro
  where
    D = Dof s
    R = Rof s
    X = map cur (dr s)
    K = kons g y ([] , [] , E) vs
    Y≡ : map cur (dr (virt vs s)) ≡ vs ++ X
    Y≡ = trans (map-cur-++ (map syn vs) (dr s)) (cong (_++ X) (map-cur-syn vs))
    rv0 : rview g (virt vs s) ≡ vs ++ X
    rv0 = trans (trans (cong (λ l → extM g R D (lkOf l) ++ l) ea) (cong (_++ map cur (dr (virt vs s))) ex)) Y≡
    rvK : rview g (record s { dr = syn K ∷ dr s }) ≡ K ∷ X
    rvK = trans (cong (chn g R D) (acc-hd g D K X (okC-kons g y E vs D X))) (cong (_++ K ∷ X) exK)
    replay : proj₁ (rp g (rview g (record s { dr = syn K ∷ dr s })) (st0 C)) ≡ proj₁ (rp g (rview g (virt vs s)) (st0 C))
    replay = trans (cong (λ l → proj₁ (rp g l (st0 C))) rvK)
               (trans (kons-replay g y ([] , [] , E) vs X (st0 C) M' z rc e)
                      (cong (λ l → proj₁ (rp g l (st0 C))) (sym rv0)))

------------------------------------------------------------------------
-- A torn or erased page under the records (what the consolidation
-- step's crash point needs, the page not landed)

all-insert : ∀ {A : Set} {P : A → Set} xs {x ys} → All P (xs ++ ys) → P x → All P (xs ++ x ∷ ys)
all-insert []       a              p = All._∷_ p a
all-insert (x ∷ xs) (All._∷_ q a) p = All._∷_ q (all-insert xs a p)

lk-hd : ∀ c (xs ys : List Cell) → lkOf (c ∷ xs) ≡ lkOf (c ∷ ys)
lk-hd (dlt _ _ _ true (_ , _ , _)) xs ys = refl
lk-hd (dlt _ _ _ false _)          xs ys = refl
lk-hd erased      xs ys = refl
lk-hd junk        xs ys = refl
lk-hd (dcell _ _) xs ys = refl
lk-hd (cpt _ _)   xs ys = refl

dgm-hd : ∀ M c (xs ys : List Cell) → DgM M (c ∷ xs) → DgM M (c ∷ ys)
dgm-hd M (dlt _ _ _ true (_ , _)) xs ys d = d
dgm-hd M (dlt _ _ _ false _)      xs ys d = d
dgm-hd M erased      xs ys d = d
dgm-hd M junk        xs ys d = d
dgm-hd M (dcell _ _) xs ys d = d
dgm-hd M (cpt _ _)   xs ys d = d

Dead : Cell → Set
Dead j = (j ≡ junk) Data.Sum.Base.⊎ (j ≡ erased)

rstep-dead : ∀ g j mt → Dead j → rstep g j mt ≡ mt
rstep-dead g .junk   mt (inj₁ refl) = refl
rstep-dead g .erased mt (inj₂ refl) = refl

genle-dead : ∀ g j → Dead j → GenLe g j
genle-dead g .junk   (inj₁ refl) = tt
genle-dead g .erased (inj₂ refl) = tt

-- `recto-dead`: the records (the newest accepted over what is below it)
-- over a dead page over the region
recto-dead : ∀ {v vs s M j} → (rt : RecTo (virt (v ∷ vs) s) M) → Dead j →
  okC (RecTo.g rt) (Dof s) v (vs ++ map cur (dr s)) ≡ true →
  okC (RecTo.g rt) (Dof s) v (vs ++ j ∷ map cur (dr s)) ≡ true →
  RecTo (virt (v ∷ vs) (record s { dr = syn j ∷ dr s })) M
recto-dead {v} {vs} {s} {M} {j} (recto b g C pk sl so rs rg mx dm ro) dj ok0 ok1 =
  recto b g C pk (trans (slot-dr b s _ _) sl) (subst (PM (Older g)) (slot-dr (not b) s _ _) so)
        (all-insert (map syn (v ∷ vs)) rs tt) (all-insert (map syn (v ∷ vs)) rg (genle-dead g j dj))
        (λ a → trans (cong (λ f → f a) replay) (mx a)) dm' ro
  where
    D = Dof s
    R = Rof s
    X = map cur (dr s)
    Y0 = map cur (map syn vs ++ dr s)
    Y1 = map cur (map syn vs ++ syn j ∷ dr s)
    y0 : Y0 ≡ vs ++ X
    y0 = trans (map-cur-++ (map syn vs) (dr s)) (cong (_++ X) (map-cur-syn vs))
    y1 : Y1 ≡ vs ++ j ∷ X
    y1 = trans (map-cur-++ (map syn vs) (syn j ∷ dr s)) (cong (_++ j ∷ X) (map-cur-syn vs))
    E = extM g R D (lkOf (v ∷ vs ++ X))
    rv0 : rview g (virt (v ∷ vs) s) ≡ E ++ v ∷ vs ++ X
    rv0 = cong (chn g R D) (trans (cong (λ l → acc g D (v ∷ l)) y0) (acc-hd g D v (vs ++ X) ok0))
    rv1 : rview g (virt (v ∷ vs) (record s { dr = syn j ∷ dr s })) ≡ E ++ v ∷ vs ++ j ∷ X
    rv1 = trans (cong (chn g R D) (trans (cong (λ l → acc g D (v ∷ l)) y1) (acc-hd g D v (vs ++ j ∷ X) ok1)))
                (cong (λ l → extM g R D l ++ v ∷ vs ++ j ∷ X) (lk-hd v (vs ++ j ∷ X) (vs ++ X)))
    rpj : ∀ st → rp g (v ∷ vs ++ j ∷ X) st ≡ rp g (v ∷ vs ++ X) st
    rpj st = trans (rp-++ g (v ∷ vs) (j ∷ X) st) (trans (cong (rp g (v ∷ vs)) (rstep-dead g j (rp g X st) dj))
                   (sym (rp-++ g (v ∷ vs) X st)))
    replay : proj₁ (rp g (rview g (virt (v ∷ vs) (record s { dr = syn j ∷ dr s }))) (st0 C))
           ≡ proj₁ (rp g (rview g (virt (v ∷ vs) s)) (st0 C))
    replay = trans (cong (λ l → proj₁ (rp g l (st0 C))) rv1)
               (trans (cong proj₁ (trans (rp-++ g E (v ∷ vs ++ j ∷ X) (st0 C))
                                         (trans (cong (rp g E) (rpj (st0 C))) (sym (rp-++ g E (v ∷ vs ++ X) (st0 C))))))
                      (cong (λ l → proj₁ (rp g l (st0 C))) (sym rv0)))
    dmE : ∀ es → DgM M (es ++ v ∷ vs ++ X) → DgM M (es ++ v ∷ vs ++ j ∷ X)
    dmE []       d = dgm-hd M v (vs ++ X) (vs ++ j ∷ X) d
    dmE (e ∷ es) d = dgm-hd M e (es ++ v ∷ vs ++ X) (es ++ v ∷ vs ++ j ∷ X) d
    dm' : DgM M (rview g (virt (v ∷ vs) (record s { dr = syn j ∷ dr s })))
    dm' = subst (DgM M) (sym rv1) (dmE E (subst (DgM M) rv0 dm))
