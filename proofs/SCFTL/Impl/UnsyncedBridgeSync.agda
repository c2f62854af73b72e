{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: the bridge's second half for the SYNC
-- outside a commit (PUS's step `syS`, SCFTL.Impl.UnsyncedSync).
--
-- After it no epoch is unsynced: the barriers' pages are durable, the
-- last barrier's map is the stable L2P and its committed page's link
-- the state's.  So RI's fields about the committed part are about the
-- LAST barrier's committed page, which RIe (SCFTL.Impl.UnsyncedBridgeNormal)
-- kept since that barrier:
--
--   cmP    the replay ends at that page: its epoch id pending, one below
--          the open epoch's (`EpC`)
--   cmV    its digest: every entry in the last barrier's map, the new
--          stable L2P, and on its page, now durable (`Dig`); its check of
--          its epoch's tentative pages right below it
--   rcL    no record at or past its link (`AbC`)
--   lkOK   the state's link is its link, and it heads the committed part
--
--   hold-syU   RIxG and RIe before the SYNC give RIxG after it, against
--              the durable part BI names after it (`bi-sync`)
--   rixg-syS   so PUS's SYNC keeps `RIy` (RIxG with RIe) of the state's
--              own invariant: with `rixg-okU`, every step of PUS's normal
--              operation keeps it
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeSync (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                     (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.List.Properties using (++-assoc)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ as Lm
open Lm using (CmV; lkTop; pend; cmv-mono; Ent; rstep-commit; map-cur-++; map-cur-syn)
  renaming (All to AllL)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (E; ue; tents)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (lay)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; fid)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (eM; eid; ddOf; lastMap)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_ using (syU; syS; lastLnk; bi-sync; Rel)
open import SCFTL.Impl.UnsyncedBridge Data d0 amax wmax kmax umax _≟D_ using (biOf)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_
  using (RIxG; RIe; rie; rie-nil; Dig; EpC; AbC; lkE; Hold; hold-to; RIy)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (Tp; verT-T; lkTop-hd; just-snd)

------------------------------------------------------------------------
-- The last unsynced epoch

lastE : E → List E → E
lastE e []        = e
lastE e (e′ ∷ es) = lastE e′ es

private
  tents-T : ∀ g x pss → tents g x pss ≡ map (Tp g x) pss
  tents-T g x []         = refl
  tents-T g x (ps ∷ pss) = cong (Tp g x ps ∷_) (tents-T g x pss)

-- the region the epochs lay out has the last one's committed page on
-- top, its tentative pages right below
lay-top : ∀ g e es pr → Σ (List Cell) λ rest →
          lay (map (ue g) (e ∷ es)) pr ≡ proj₁ (ue g (lastE e es)) ∷ (proj₂ (ue g (lastE e es)) ++ rest)
lay-top g e []        pr = pr , refl
lay-top g e (e′ ∷ es) pr = lay-top g e′ es (proj₁ (ue g e) ∷ proj₂ (ue g e) ++ pr)

-- its digest's entries, in its map (the last one), on their pages
dig-last : ∀ {s} M e es → Dig s M (e ∷ es) →
           AllL (Ent (lastMap M (e ∷ es)) (λ p → sync (dat s p))) (ddOf (lastE e es))
dig-last M e []        (d , _) = d
dig-last M e (e′ ∷ es) (_ , r) = dig-last (eM e M) e′ es r

-- the open epoch's id is one above its id
epc-last : ∀ e es y → EpC (e ∷ es) y → y ≡ suc (eid (lastE e es))
epc-last e []        y (h , _) = h
epc-last e (e′ ∷ es) y (_ , c) = epc-last e′ es y c

-- no record at or past its link
abc-last : ∀ g R e es → AbC g R (e ∷ es) → Above g R (lkE (lastE e es))
abc-last g R e []        (h , _) = h
abc-last g R e (e′ ∷ es) (_ , c) = abc-last g R e′ es c

-- the state's link after the SYNC is its link
lnk-last : ∀ e es k → lastLnk (e ∷ es) k ≡ just (lkE (lastE e es))
lnk-last (x , ps , dd , pss , L) []        k = refl
lnk-last (x , ps , dd , pss , L) (e′ ∷ es) k = lnk-last e′ es (just L)

------------------------------------------------------------------------
-- RIxG after the SYNC

private
  just-inj : ∀ {A : Set} {x y : A} → just x ≡ just y → x ≡ y
  just-inj refl = refl

-- with epochs: the committed part is headed by the last barrier's page
rixg-sy-cons : ∀ {s r C} e es prM → RIxG s (e ∷ es) C (map cur prM) → RIe s (e ∷ es) →
               RIxG (syU (e ∷ es) r s) [] C (lay (map (ue (gen s)) (e ∷ es)) [] ++ map cur prM)
rixg-sy-cons {s} {r} {C} e es prM x (rie dg ec ab) = go (lastE e es) refl (lay-top g e es [])
  where
    g = gen s
    s′ = syU (e ∷ es) r s
    go : ∀ l → lastE e es ≡ l → (Σ (List Cell) λ rest → lay (map (ue g) (e ∷ es)) [] ≡ proj₁ (ue g (lastE e es)) ∷ (proj₂ (ue g (lastE e es)) ++ rest)) →
         RIxG s′ [] C (lay (map (ue g) (e ∷ es)) [] ++ map cur prM)
    go (y , ps , dd , pss , L) el (rest , lt) = subst (λ z → RIxG s′ [] C (z ++ map cur prM)) (sym lt′) (record
      { cmP  = subst (λ z → pend z < ep s) (sym (rstep-commit g y ps {dd , pss , L} R')) y<
      ; cmV  = inj₂ (y , ps , (dd , pss , L) , refl ,
                     subst (λ l → AllL (Ent (lastMap (smap s) (e ∷ es)) (λ p → sync (dat s p))) (ddOf l)) el
                           (dig-last (smap s) e es dg) ,
                     subst (λ z → verT g y pss z ≡ true)
                           (trans (cong (_++ (rest ++ map cur prM)) (sym (tents-T g y pss)))
                                  (sym (++-assoc (tents g y pss) rest (map cur prM))))
                           (verT-T g y pss (rest ++ map cur prM)))
      ; rcOK = RIxG.rcOK x
      ; rcN  = RIxG.rcN x
      ; rcL  = λ y′ L′ e′ → subst (Above g (λ p → cur (rcd s p)))
                 (just-snd (trans (sym (lkTop-hd g y ps dd pss L TM)) e′))
                 (subst (λ l → Above g (λ p → cur (rcd s p)) (lkE l)) el (abc-last g (λ p → cur (rcd s p)) e es ab))
      ; lkOK = λ L′ e′ → refl , (y , ps , dd , pss , TM ,
                                cong (λ K → dlt g y ps true (dd , pss , K) ∷ TM)
                                     (just-inj (trans (sym (trans (lnk-last e es (lnk s)) (cong (λ l → just (lkE l)) el))) e′)) ,
                                sym (trans (epc-last e es (ep s) ec) (cong (λ l → suc (eid l)) el)))
      })
      where
        lt′ : lay (map (ue g) (e ∷ es)) [] ≡ dlt g y ps true (dd , pss , L) ∷ (tents g y pss ++ rest)
        lt′ = trans lt (cong (λ l → proj₁ (ue g l) ∷ (proj₂ (ue g l) ++ rest)) el)
        TM = (tents g y pss ++ rest) ++ map cur prM
        R' = rp g TM (st0 C)
        y< : y < ep s
        y< = subst (y <_) (sym (trans (epc-last e es (ep s) ec) (cong (λ l → suc (eid l)) el))) ≤-refl

-- with no epoch: the SYNC lands the data pages; nothing RI asks changes
rixg-sy-nil : ∀ {s r C comm} → RIxG s [] C comm → RIxG (syU [] r s) [] C comm
rixg-sy-nil {s} {r} {C} {comm} x = record
  { cmP  = RIxG.cmP x
  ; cmV  = cmv-mono (λ p d a le sm de → cong sync de) comm (RIxG.cmV x)
  ; rcOK = RIxG.rcOK x
  ; rcN  = RIxG.rcN x
  ; rcL  = RIxG.rcL x
  ; lkOK = RIxG.lkOK x
  }

hold-syU : ∀ {s es r} (b : BI s es) → RIxG s es (BI.C b) (map cur (BI.prM b)) → RIe s es →
           Hold (syU es r s) [] (BI.C b) (BI.prM (bi-sync {s} {es} {r} b))
hold-syU {s} {[]}     {r} b x _  = BI.slt b , BI.dre (bi-sync {s} {[]} {r} b) , rixg-sy-nil x
hold-syU {s} {e ∷ es} {r} b x re =
  BI.slt b , BI.dre (bi-sync {s} {e ∷ es} {r} b) ,
  subst (RIxG (syU (e ∷ es) r s) [] (BI.C b)) (sym cur-eq) (rixg-sy-cons e es (BI.prM b) x re)
  where
    L = lay (map (ue (gen s)) (e ∷ es)) []
    cur-eq : map cur (map syn L ++ BI.prM b) ≡ L ++ map cur (BI.prM b)
    cur-eq = trans (map-cur-++ (map syn L) (BI.prM b)) (cong (_++ map cur (BI.prM b)) (map-cur-syn L))

------------------------------------------------------------------------
-- PUS's SYNC keeps RIy

rixg-syS : ∀ {s t r t'} (iv : Inv′ s t) → RIy iv → (iv' : Inv′ (syS r s) t') → RIy iv'
rixg-syS {s} {t} {r} iv (x , re) iv' =
  hold-to {syS r s} (hold-syU {st s} {ues s} {r} (biOf iv) x re) iv' , rie-nil (syU (ues s) r (st s))
