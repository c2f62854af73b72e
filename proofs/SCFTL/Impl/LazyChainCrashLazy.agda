{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: the lazy commit's crash point before its
-- SYNC with the crashed record taken by recovery's walk, over a chain
-- of any length, in PL's crash relation `CRL`
-- (SCFTL.Impl.LazyChainCrash).
--
-- `pl-fi2-crash-CRL` (SCFTL.Impl.LazyChainCrashSteps) puts the crash in
-- `CRL` when the walk does not take the crashed record; when it does,
-- it returns P's `CRm` on the flash with the chain before the step on
-- the region.  `recto-follow` moves P's `RecTo` from there to the flash
-- with the record on the region too, given (a) the virtual region
-- accepted as a whole, (b) the one-link walk from its top taking
-- exactly the record, (c) the record accepted over it, (d) nothing of
-- the generation past the record's link.  `free-fi2-landed` derived
-- them for an empty chain; here they are derived for any chain, from
-- `Phase`, P's RI on the virtually consolidated state and the crash
-- outcome:
--
--   * (a) `virt-acc`: the newest record of a nonempty chain is accepted
--     over what lies below it: its digest verifies on the crashed data
--     pages (`CInv`'s `Ver`, `ver-top`), its tentative pages' check
--     holds already in P's RI (`CmV`, `cmv-okC`; the region of the
--     virtual state is the chain over the region, `comm-eq`); an empty
--     chain: the region's newest commit (`ri-fi2-acc`);
--   * (b) `walk-last`: a walk that returns the chain laid out from L
--     with one record c more takes c from the chain's last link;
--     `lk-chain`: the virtual region's top links to that link;
--   * (c) from (b) (`extM-okR`, `okC-okR`: the lazy record has no
--     tentative pages);
--   * (d) the chain's invariant keeps nothing of the generation at or
--     past its last link, and the crash changes only page M's record
--     slot below the active pointer.
--
-- `pl-fi2-landed`: that case in `CRL`; `pl-lazy-crash-CRL`: every crash
-- point of the lazy commit (before its SYNC, at its end) from a state
-- of the chain phase is in `CRL`, the counterpart of
-- `free-lazy-crash-CRL` for a nonempty chain (`vokn-virt`: P's `vOK`
-- on the virtual state is the `VOKn` it needs at the end).  With or
-- without a chain (`LazyFrom`: P's RI, or the chain phase with P's RI on
-- the virtual state): `lazy-crash-CRL`, and `pl-flush-lazy-crash` for
-- `crashPL`'s crash points of a flush that are the lazy commit's.
--
-- Not proven here: the other crash points of PL's flush (the
-- consolidation page's before its SYNC with a chain, P's own inside the
-- flush after it), recovery's own crashes, the assembly of Theorem 1.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; _≡ᵇ_)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainCrashLazy (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                     (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Bool.Base using (Bool; true; false; _∧_; if_then_else_)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Unit.Base using (tt)
open import Data.Nat.Properties using (≤-refl; ≤-trans; <-transˡ)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; RecTo; recto; crashC-eq)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (CmV; pick-slot; crashC-PM; map-cur-++; map-cur-syn; seek-none; <⇒≢)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (CRm)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (LayP; end; rec∷; rc; rv; follow; fol; ext-rec; Ver; lay-agree)
  renaming ([] to []ᵛ; _∷_ to _∷ᵛ_)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (Rof; Dof; fiL; crash-oth; ver-crash; ver-old; durall-fi2)
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_ using (CInv; ch-lay; ch-abv; ch-ver; ch-dur; ch-fix; ch-rdu; ch-enx; VOKn)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (walkG; virt; Lazy)
open import SCFTL.Impl.LazyChainStable Data d0 amax wmax kmax _≟D_ kc using (rv-snoc)
open import SCFTL.Impl.LazyChainRegion Data d0 amax wmax kmax _≟D_ kc using (RInv; crashL-syn; ri-fi2-acc)
open import SCFTL.Impl.LazyChainSteps Data d0 amax wmax kmax _≟D_ kc using (lay-last; lazy-pos)
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (CRL; CRLM; crlm⇒crl; recto-follow)
open import SCFTL.Impl.LazyChainCrashSteps Data d0 amax wmax kmax _≟D_ kc
  using (follow-inv; extM-okR; okC-okR; lazy-et; pl-fi2-crash-CRL; pl-lazy-crash; free-lazy-crash-CRL)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (State; crashS; use; flush)

------------------------------------------------------------------------
-- Lists

-- (Model's `CrashL` has a constructor `_∷_` too)
cons : Cell → List Cell → List Cell
cons c cs = c ∷ cs

hd-eq : ∀ {x y : Cell} {xs ys : List Cell} → _≡_ {A = List Cell} (x ∷ xs) (y ∷ ys) → x ≡ y
hd-eq refl = refl

tl-eq : ∀ {x y : Cell} {xs ys : List Cell} → _≡_ {A = List Cell} (x ∷ xs) (y ∷ ys) → xs ≡ ys
tl-eq refl = refl

snoc-inj : ∀ (xs ys : List Cell) {r : Cell} → xs ++ r ∷ [] ≡ ys ++ r ∷ [] → xs ≡ ys
snoc-inj []       []           e = refl
snoc-inj []       (y ∷ [])     ()
snoc-inj []       (y ∷ _ ∷ _)  ()
snoc-inj (x ∷ [])    []        ()
snoc-inj (x ∷ _ ∷ _) []        ()
snoc-inj (x ∷ xs) (y ∷ ys) e = cong₂ cons (hd-eq e) (snoc-inj xs ys (tl-eq e))

rv-snoc≢[] : ∀ rs (c : Cell) → rv (rs ++ c ∷ []) ≢ []
rv-snoc≢[] rs c e with trans (sym (rv-snoc rs c)) e
... | ()

map-nil : ∀ {A B : Set} (f : A → B) {xs : List A} → xs ≡ [] → map f xs ≡ []
map-nil f refl = refl

------------------------------------------------------------------------
-- (b) The walk's last step

-- `walk-last`: a walk from L that returns the chain laid out from L with
-- one record c more took c from the chain's last link E
-- (the walk's step over a laid-out record: SCFTL.Impl.LazyChain's `ext-rec`; the
-- accepted / rejected cases by `wl-step`, without `rewrite` or `with`
-- over the walk)
walk-last : ∀ k {g R D x L rs y E c} → LayP g R x L rs y E →
            follow k g R D (just (x , L)) ≡ rv (rs ++ c ∷ []) → extM g R D (just (y , E)) ≡ c ∷ []
wl-step : ∀ k {g R D x L' rs y E c ps dd dt} (b : Bool) → LayP g R (suc x) L' rs y E →
          fol k g R D (if b then rc g (suc x) ps dd dt L' ∷ [] else []) ≡ rv ((rc g (suc x) ps dd dt L' ∷ rs) ++ c ∷ []) →
          extM g R D (just (y , E)) ≡ c ∷ []
walk-last k {g} {R} {D} {x} {L} {c = c} end e = follow-inv k g R D (just (x , L)) c e
walk-last zero {c = c} (rec∷ {ps = ps} {dd} {dt} {L'} {rs} sk eq lt lay) e =
  ⊥-elim (rv-snoc≢[] (rc _ _ ps dd dt L' ∷ rs) c (sym e))
walk-last (suc k) {g} {R} {D} {x} {L} {c = c} (rec∷ {q = q} {ps} {dd} {dt} {L'} {rs} sk eq lt lay) e =
  wl-step k {ps = ps} {dd} {dt} (okR g (suc x) D (rc g (suc x) ps dd dt L')) lay
          (trans (cong (fol k g R D) (sym (ext-rec g R D x L q (rc g (suc x) ps dd dt L') sk eq))) e)
wl-step k {g} {R} {D} {x} {L'} {rs} {c = c} {ps} {dd} {dt} false lay e =
  ⊥-elim (rv-snoc≢[] (rc g (suc x) ps dd dt L' ∷ rs) c (sym e))
wl-step k {g} {R} {D} {x} {L'} {rs} {c = c} true lay e =
  walk-last k lay (snoc-inj (follow k g R D (just (suc x , L'))) (rv (rs ++ c ∷ [])) e)

-- `lk-chain`: the region with the chain's records on top links to the
-- chain's last link
lk-chain : ∀ {g R x L rs y E} (c : Cell) rest → LayP g R x L rs y E → lkOf (c ∷ rest) ≡ just (x , L) →
           lkOf (rv rs ++ c ∷ rest) ≡ just (y , E)
lk-chain c rest end                    e = e
lk-chain c rest lay@(rec∷ _ _ _ _) e = lay-last lay (λ ()) (c ∷ rest)

------------------------------------------------------------------------
-- (a) The virtual region accepted as a whole

-- `ver-top`: the newest record of a verified chain verifies
ver-top : ∀ {g D x} rs {v vs} → Ver g D x rs → rv rs ≡ v ∷ vs → Σ ℕ λ x' → okR g x' D v ≡ true
ver-top [] []ᵛ ()
ver-top {g} {D} (r ∷ rs) (o ∷ᵛ vr) e with rv rs in er
... | []     = _ , subst (λ c → okR g _ D c ≡ true) (hd-eq e) o
... | w ∷ ws = ver-top rs vr (trans er (cong (λ u → cons u ws) (hd-eq e)))

-- a committed page whose digest verifies and whose tentative pages' check
-- holds is accepted
okC-vt : ∀ g D x h y ps dd dt E cs → okR g x D (dlt h y ps true (dd , dt , E)) ≡ true → verT g y dt cs ≡ true →
         okC g D (dlt h y ps true (dd , dt , E)) cs ≡ true
okC-vt g D x h y ps dd dt E cs o vt with h ≡ᵇ g | y ≡ᵇ x | verD D dd
... | true  | true  | true  = vt
... | true  | true  | false = o
... | true  | false | _     = ⊥-elim (f≢t o)
  where
    f≢t : false ≡ true → ⊥
    f≢t ()
... | false | _     | _     = o

-- `cmv-okC`: the top of a committed part (P's `CmV`) whose digest
-- verifies on other data pages is accepted there
cmv-okC : ∀ {g sm DD} D x v tl → CmV g sm DD (v ∷ tl) → okR g x D v ≡ true → okC g D v tl ≡ true
cmv-okC {g} D x .(dlt g x' ps (true) (dd , dt , E)) tl (inj₂ (x' , ps , (dd , dt , E) , refl , _ , vt)) o =
  okC-vt g D x g x' ps dd dt E tl o vt
cmv-okC {g} D x (dlt h y ps true (dd , dt , E)) tl (inj₁ (nc , _)) o with h ≡ᵇ g
... | true  = ⊥-elim (t≢f nc)
  where
    t≢f : true ≡ false → ⊥
    t≢f ()
... | false = ⊥-elim (f≢t o)
  where
    f≢t : false ≡ true → ⊥
    f≢t ()
cmv-okC D x (dlt h y ps false _) tl (inj₁ _) ()
cmv-okC D x erased               tl (inj₁ _) ()
cmv-okC D x junk                 tl (inj₁ _) ()
cmv-okC D x (dcell _ _)          tl (inj₁ _) ()
cmv-okC D x (cpt _ _)            tl (inj₁ _) ()

acc-ok : ∀ g D c cs → okC g D c cs ≡ true → acc g D (c ∷ cs) ≡ c ∷ cs
acc-ok g D c cs o rewrite o = refl

-- the durable region after a crash
reg-crash : ∀ {m s' c rest} → dr m ≡ map syn (c ∷ rest) → CrashL (dr m) (dr s') → map cur (dr s') ≡ c ∷ rest
reg-crash {m} {s'} {c} {rest} e cR =
  trans (cong (map cur) (crashL-syn (c ∷ rest) (subst (λ l → CrashL l (dr s')) e cR))) (map-cur-syn (c ∷ rest))

-- `comm-eq`: P's RI on the virtually consolidated state of the lazy
-- commit (no tentative pages): its committed part is the chain's
-- records over the region
comm-eq : ∀ {vs s c rest M} (r : RI (virt vs s)) → Lazy s M → dr s ≡ map syn (c ∷ rest) → RI.comm r ≡ vs ++ c ∷ rest
comm-eq {vs} {s} {c} {rest} {M} r lz de =
  trans (sym (map-cur-syn (RI.comm r)))
        (trans (cong (map cur) (sym e1))
               (trans (map-cur-++ (map syn vs) (dr s))
                      (cong₂ _++_ (map-cur-syn vs) (trans (cong (map cur) de) (map-cur-syn (c ∷ rest))))))
  where
    t0 : RI.tents r ≡ []
    t0 = trans (RI.tEq r) (map-nil _ (lazy-et {s} {M} lz))
    e1 : map syn vs ++ dr s ≡ map syn (RI.comm r)
    e1 = trans (RI.regEq r) (cong (_++ map syn (RI.comm r)) t0)

-- `virt-acc`: on a crash outcome of the lazy commit's crash point, the
-- chain's records over the region are accepted as a whole
virt-acc : ∀ {s s' M c rest} vs (r : RI (virt vs s)) → Lazy s M → RInv s c rest → Img (fi2 M s) s' →
           (∀ v vs' → vs ≡ v ∷ vs' → Σ ℕ λ x' → okR (gen s) x' (Dof s') v ≡ true) →
           acc (gen s) (Dof s') (vs ++ c ∷ rest) ≡ vs ++ c ∷ rest
virt-acc {s} {s'} {M} {c} {rest} [] r lz ri img@(_ , _ , _ , cR , _) top =
  subst (λ l → acc (gen s) (Dof s') l ≡ c ∷ rest) (reg-crash {fi2 M s} {s'} (RInv.r-eq ri) cR) (ri-fi2-acc {s} {s'} {c} {rest} M ri img)
virt-acc {s} {s'} {M} {c} {rest} (v ∷ vs') r lz ri img top with top v vs' refl
... | x' , o = acc-ok (gen s) (Dof s') v (vs' ++ c ∷ rest) (cmv-okC (Dof s') x' v (vs' ++ c ∷ rest) cm o)
  where
    cm : CmV (gen s) (smap s) (dat s) (v ∷ vs' ++ c ∷ rest)
    cm = subst (CmV (gen s) (smap s) (dat s)) (comm-eq {v ∷ vs'} {s} {c} {rest} {M} r lz (RInv.r-eq ri)) (RI.cmV r)

------------------------------------------------------------------------
-- The record taken by the walk over a chain of any length

-- `pl-fi2-landed`: the lazy commit's crash point before its SYNC from a
-- state of the chain phase, the record taken by the walk: P's `CRm` on
-- the flash with the chain before the step on the region
-- (`pl-fi2-crash-CRL`) moved to the flash with the whole walked chain
-- on the region (`recto-follow`, its hypotheses derived)
-- (`pl-fi2-landed-M`: with the map named, CRm's; `pl-fi2-landed` forgets it)
pl-fi2-landed-M : ∀ {s s' M t'} (ph : Phase s) → RI (virt (rv (ph-rs ph)) s) → Lazy s M → Img (fi2 M s) s' →
                  walkG (gen s) s' ≡ rec s ∷ rv (ph-rs ph) →
                  (cm : CRm (virt (rv (ph-rs ph)) s) (virt (rv (ph-rs ph)) s') t') → CRLM s' t' (proj₁ cm)
pl-fi2-landed-M {s} {s'} {M} {t'} (phase C0 x L y E rs rest c M0 z ci si ri lk rpe) r lz img@(cD , cL , cO , cR , cI) wk
              (M' , _ , recto b g C pk sl so rsy rg mx dm ro , dk)
  with trans (sym pk) (pick-slot true s' (gen s) (RI.C r) (crashC-eq (RI.slotL r) cL) (crashC-PM tt cO (RI.slotO r)))
... | refl =
  true , gen s , RI.C r , pk ,
  subst (λ us → RecTo (virt us s') M') (sym wk)
        (recto-follow {rv rs} {s'} {M'} {rec s} (recto true (gen s) (RI.C r) pk sl so rsy rg mx dm ro) ea ex ok ex' ≤-refl) ,
  dk
  where
    G = gen s
    D' = Dof s'
    R' = Rof s'
    pos = lazy-pos {s} {M} ci lz
    X≡ : map cur (dr s') ≡ c ∷ rest
    X≡ = reg-crash {fi2 M s} {s'} (RInv.r-eq ri) cR
    Y = map cur (dr (virt (rv rs) s'))
    Y≡ : Y ≡ rv rs ++ c ∷ rest
    Y≡ = trans (map-cur-++ (map syn (rv rs)) (dr s')) (cong₂ _++_ (map-cur-syn (rv rs)) X≡)
    -- (a)
    v' : Ver G D' x rs
    v' = ver-crash (dat (fi2 M s)) (dat s') cD (durall-fi2 {s} {M} (ch-fix ci) (ch-dur ci)) (ver-old {s} {M} (ch-fix ci) (ch-ver ci))
    ea : acc G D' Y ≡ Y
    ea = subst (λ l → acc G D' l ≡ l) (sym Y≡)
               (virt-acc {s} {s'} {M} {c} {rest} (rv rs) r lz ri img (λ v vs' e → ver-top rs v' e))
    -- (b)
    top : walkG G s' ≡ follow kc G R' D' (just (x , L))
    top = cong (follow kc G R' D') (trans (cong lkOf (ri-fi2-acc {s} {s'} {c} {rest} M ri img)) lk)
    wk' : follow kc G R' D' (just (x , L)) ≡ rv (rs ++ rec s ∷ [])
    wk' = trans (sym top) (trans wk (sym (rv-snoc rs (rec s))))
    lay' : LayP G R' x L rs y E
    lay' = lay-agree (ch-lay ci) (λ p pe → sym (crash-oth {s} {s'} {M} (ch-rdu ci) cI p (<⇒≢ (<-transˡ pe (proj₁ pos)))))
    exY : extM G R' D' (just (y , E)) ≡ rec s ∷ []
    exY = walk-last kc lay' wk'
    ex : extM G R' D' (lkOf Y) ≡ rec s ∷ []
    ex = trans (cong (λ l → extM G R' D' (lkOf l)) Y≡) (trans (cong (extM G R' D') (lk-chain c rest (ch-lay ci) lk)) exY)
    -- (c)
    okr : okR G (suc y) D' (rec s) ≡ true
    okr = extM-okR G R' D' y E (rec s) exY
    ok : okC G D' (rec s) Y ≡ true
    ok = okC-okR G D' (gen s) (ep s) (dbuf s) (proj₁ (dgOf s)) (ept s) (nxt s) (suc y) Y (lazy-et {s} {M} lz) okr
    -- (d)
    mn : M < nxt s
    mn = proj₂ (proj₂ pos)
    ab : Above G R' (nxt s)
    ab p le = subst (RLt G) (sym (crash-oth {s} {s'} {M} (ch-rdu ci) cI p (λ e → <⇒≢ (≤-trans mn le) (sym e))))
                    (ch-abv ci p (≤-trans (ch-enx ci) le))
    ex' : extM G R' D' (lkOf (rec s ∷ Y)) ≡ []
    ex' = cong (extS G R' D' (ep s)) (seek-none G omax R' (nxt s) ab)

pl-fi2-landed : ∀ {s s' M t'} (ph : Phase s) → RI (virt (rv (ph-rs ph)) s) → Lazy s M → Img (fi2 M s) s' →
                walkG (gen s) s' ≡ rec s ∷ rv (ph-rs ph) →
                CRm (virt (rv (ph-rs ph)) s) (virt (rv (ph-rs ph)) s') t' → CRL s' t'
pl-fi2-landed {s} {s'} {M} {t'} ph r lz img wk cm = crlm⇒crl {s'} {t'} {proj₁ cm} (pl-fi2-landed-M {s} {s'} {M} {t'} ph r lz img wk cm)


-- P's `vOK` on the virtually consolidated state is `VOKn` of the state
-- itself (`virt` changes the region only)
vokn-virt : ∀ {vs s} → RI (virt vs s) → VOKn s
vokn-virt r = RI.vOK r

-- `pl-lazy-crash-CRL`: every crash point of the lazy commit from a state
-- of the chain phase (P's RI on its virtually consolidated state) is in
-- `CRL`: before its SYNC (the record taken by the walk or not) and at
-- its end (S's flush landed)
pl-lazy-crash-CRL : ∀ {s t s' M m} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → Lazy s M →
                    (m ≡ fi2 M s ⊎ m ≡ fiL M s) → Img m s' →
                    Σ State λ t' → crashS (use flush) t t' × CRL s' t'
pl-lazy-crash-CRL {s} {t} {s'} {M} ph arr r lz (inj₁ refl) img with pl-fi2-crash-CRL {s} {t} {s'} {M} ph arr r lz img
... | inj₁ x                  = x
... | inj₂ (wk , t' , c , cm) = t' , c , pl-fi2-landed {s} {s'} {M} {t'} ph r lz img wk cm
pl-lazy-crash-CRL {s} {t} {s'} {M} ph arr r lz (inj₂ refl) img =
  pl-lazy-crash {s} {t} {s'} {M} ph arr r (vokn-virt {rv (ph-rs ph)} {s} r) lz refl img

------------------------------------------------------------------------
-- With or without a chain

-- the states PL's lazy commit starts from: P's RI (no chain), or the
-- chain phase with P's RI on its virtually consolidated state
LazyFrom : St → Set
LazyFrom s = RI s ⊎ (Σ (Phase s) λ ph → RI (virt (rv (ph-rs ph)) s))

-- `lazy-crash-CRL`: every crash point of the lazy commit from either is
-- in `CRL`
lazy-crash-CRL : ∀ {s t s' M m} → AR s t → LazyFrom s → Lazy s M → (m ≡ fi2 M s ⊎ m ≡ fiL M s) → Img m s' →
                 Σ State λ t' → crashS (use flush) t t' × CRL s' t'
lazy-crash-CRL {s} {t} {s'} {M} arr (inj₁ r)         lz pt img = free-lazy-crash-CRL {s} {t} {s'} {M} arr r (RI.vOK r) lz pt img
lazy-crash-CRL {s} {t} {s'} {M} arr (inj₂ (ph , r)) lz pt img = pl-lazy-crash-CRL {s} {t} {s'} {M} ph arr r lz pt img

-- `pl-flush-lazy-crash`: PL's crash points of a flush that are the lazy
-- commit's (`crashPL`'s third kind), from either, are in `CRL`
pl-flush-lazy-crash : ∀ {s t s' m} → AR s t → LazyFrom s →
                      (Σ ℕ λ M → Lazy s M × (m ≡ fi2 M s ⊎ m ≡ fiL M s)) → Img m s' →
                      Σ State λ t' → crashS (use flush) t t' × CRL s' t'
pl-flush-lazy-crash {s} {t} {s'} arr fr (M , lz , pt) img = lazy-crash-CRL {s} {t} {s'} {M} arr fr lz pt img
