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
--   rixg-top   a SYNC that proves the epochs e ∷ es below ys (the new
--              stable L2P their last map, each page it names durable):
--              RIxG over ys with the proven epochs' pages on the durable
--              part (the link: their last one's when ys is empty)
--   hold-syU   RIxG and RIe before the SYNC give RIxG after it, against
--              the durable part BI names after it (`bi-sync`)
--   rixg-syS   so PUS's SYNC keeps `RIy` (RIxG with RIe) of the state's
--              own invariant: with `rixg-okU`, every step of PUS's normal
--              operation keeps it
--   hold-part, rixg-syB
--              PUSB's partial SYNC keeps RIy too: the proven epochs'
--              part of RIe becomes RIxG's, the rest stays RIe over ys
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeSync (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                     (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Unit.Base using (⊤; tt)
open import Data.Empty using (⊥; ⊥-elim)
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
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (lnkB; landD; syB; syBU; Land; RelB; bi-part; landD-true; landD-syn)
open import Data.List.Properties using (++-identityʳ)
open import SCFTL.Impl.UnsyncedBridge Data d0 amax wmax kmax umax _≟D_ using (biOf)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_
  using (RIxG; RIe; rie; rie-nil; Dig; EpC; AbC; lkE; Hold; hold-to; RIy; tents-T)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (Tp; verT-T; lkTop-hd; just-snd)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (LkHd)
open import SCFTL.Impl.Regular Data d0 amax wmax kmax _≟D_ using (just≡)

------------------------------------------------------------------------
-- The last unsynced epoch

lastE : E → List E → E
lastE e []        = e
lastE e (e′ ∷ es) = lastE e′ es

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

-- the unsynced epochs split at the ones a SYNC proves
dig-split : ∀ {s} M xs ys → Dig s M (xs ++ ys) → Dig s M xs × Dig s (lastMap M xs) ys
dig-split M []       ys d       = tt , d
dig-split M (x ∷ xs) ys (h , d) = (h , proj₁ (dig-split (eM x M) xs ys d)) , proj₂ (dig-split (eM x M) xs ys d)

fid-++ : ∀ xs ys y → fid (xs ++ ys) y ≡ fid xs (fid ys y)
fid-++ []      ys y = refl
fid-++ (x ∷ _) ys y = refl

epc-split : ∀ xs ys y → EpC (xs ++ ys) y → EpC xs (fid ys y) × EpC ys y
epc-split []       ys y c       = tt , c
epc-split (x ∷ xs) ys y (h , c) = (trans (sym (fid-++ xs ys y)) h , proj₁ (epc-split xs ys y c)) , proj₂ (epc-split xs ys y c)

abc-split : ∀ g R xs ys → AbC g R (xs ++ ys) → AbC g R xs × AbC g R ys
abc-split g R []       ys c       = tt , c
abc-split g R (x ∷ xs) ys (h , c) = (h , proj₁ (abc-split g R xs ys c)) , proj₂ (abc-split g R xs ys c)

-- the state after a SYNC that proves the epochs xs: their last map
-- stable, the link `lnkB`, the data pages D, any region and queues
upd : St → (ℕ → MC) → List MC → (ℕ → Bool) → (ℕ → Bool) → Map → Maybe ℕ → St
upd s D R E I M k = record s { dat = D ; dr = R ; ers = E ; inv = I ; smap = M ; lnk = k }

private
  cons-nil : ∀ {A : Set} {x : A} {xs : List A} → _≡_ {A = List A} (x ∷ xs) [] → ⊥
  cons-nil ()

-- a SYNC that proves the epochs e ∷ es below ys (every page the new
-- stable L2P names durable as it is): the committed part is headed by
-- the last proven epoch's page
rixg-top : ∀ {s C} D R E I e es ys prM →
           (∀ a p c → a ≤ amax → lastMap (smap s) (e ∷ es) a ≡ just p → sync (dat s p) ≡ syn c → D p ≡ syn c) →
           RIxG s ((e ∷ es) ++ ys) C (map cur prM) → RIe s ((e ∷ es) ++ ys) →
           RIxG (upd s D R E I (lastMap (smap s) (e ∷ es)) (lnkB (e ∷ es) ys (lnk s))) ys C
                (lay (map (ue (gen s)) (e ∷ es)) [] ++ map cur prM)
rixg-top {s} {C} D R E I e es ys prM dl x (rie dg ec ab) = go (lastE e es) refl (lay-top g e es [])
  where
    g = gen s
    s′ = upd s D R E I (lastMap (smap s) (e ∷ es)) (lnkB (e ∷ es) ys (lnk s))
    Rc = λ p → cur (rcd s p)
    ecx = proj₁ (epc-split (e ∷ es) ys (ep s) ec)
    go : ∀ l → lastE e es ≡ l →
         (Σ (List Cell) λ rest → lay (map (ue g) (e ∷ es)) [] ≡ proj₁ (ue g (lastE e es)) ∷ (proj₂ (ue g (lastE e es)) ++ rest)) →
         RIxG s′ ys C (lay (map (ue g) (e ∷ es)) [] ++ map cur prM)
    go (y , ps , dd , pss , L) el (rest , lt) = subst (λ z → RIxG s′ ys C (z ++ map cur prM)) (sym lt′) (record
      { cmP  = subst (λ z → pend z < fid ys (ep s)) (sym (rstep-commit g y ps {dd , pss , L} R')) y<
      ; cmV  = inj₂ (y , ps , (dd , pss , L) , refl ,
                     ents dd (subst (λ l → AllL (Ent (lastMap (smap s) (e ∷ es)) (λ p → sync (dat s p))) (ddOf l)) el
                                    (dig-last (smap s) e es (proj₁ (dig-split (smap s) (e ∷ es) ys dg)))) ,
                     subst (λ z → verT g y pss z ≡ true)
                           (trans (cong (_++ (rest ++ map cur prM)) (sym (tents-T g y pss)))
                                  (sym (++-assoc (tents g y pss) rest (map cur prM))))
                           (verT-T g y pss (rest ++ map cur prM)))
      ; rcOK = RIxG.rcOK x
      ; rcN  = RIxG.rcN x
      ; rcL  = λ y′ L′ e′ → subst (Above g Rc)
                 (just-snd (trans (sym (lkTop-hd g y ps dd pss L TM)) e′))
                 (subst (λ l → Above g Rc (lkE l)) el (abc-last g Rc e es (proj₁ (abc-split g Rc (e ∷ es) ys ab))))
      ; lkOK = lk ys x ep≡
      })
      where
        lt′ : lay (map (ue g) (e ∷ es)) [] ≡ dlt g y ps true (dd , pss , L) ∷ (tents g y pss ++ rest)
        lt′ = trans lt (cong (λ l → proj₁ (ue g l) ∷ (proj₂ (ue g l) ++ rest)) el)
        TM = (tents g y pss ++ rest) ++ map cur prM
        R' = rp g TM (st0 C)
        ep≡ : fid ys (ep s) ≡ suc y
        ep≡ = trans (epc-last e es (fid ys (ep s)) ecx) (cong (λ l → suc (eid l)) el)
        y< : y < fid ys (ep s)
        y< = subst (y <_) (sym ep≡) ≤-refl
        ents : ∀ dd′ → AllL (Ent (lastMap (smap s) (e ∷ es)) (λ p → sync (dat s p))) dd′ →
               AllL (Ent (lastMap (smap s) (e ∷ es)) D) dd′
        ents []                  Lm.[]                 = Lm.[]
        ents ((p , d , a) ∷ dd′) ((le , me , de) Lm.∷ r) = (le , me , dl a p (dcell d a) le me de) Lm.∷ ents dd′ r
        lk : ∀ zs → RIxG s ((e ∷ es) ++ zs) C (map cur prM) → fid zs (ep s) ≡ suc y → ∀ L′ →
             lnkB (e ∷ es) zs (lnk s) ≡ just L′ → zs ≡ [] × LkHd g (ep s) L′ (dlt g y ps true (dd , pss , L) ∷ TM)
        lk []       _  eq L′ e′ =
          refl , (y , ps , dd , pss , TM ,
                  cong (λ K → dlt g y ps true (dd , pss , K) ∷ TM)
                       (just≡ (trans (sym (trans (lnk-last e es (lnk s)) (cong (λ l → just (lkE l)) el))) e′)) ,
                  sym eq)
        lk (z ∷ zs) x′ eq L′ e′ = ⊥-elim (cons-nil (proj₁ (RIxG.lkOK x′ L′ e′)))

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
  subst (RIxG (syU (e ∷ es) r s) [] (BI.C b)) (sym cur-eq)
    (rixg-top (λ p → sync (dat s p)) _ _ _ e es [] (BI.prM b) (λ a p c le me h → h)
              (subst (λ z → RIxG s z (BI.C b) (map cur (BI.prM b))) (sym (++-identityʳ (e ∷ es))) x)
              (subst (RIe s) (sym (++-identityʳ (e ∷ es))) re))
  where
    L = lay (map (ue (gen s)) (e ∷ es)) []
    cur-eq : map cur (map syn L ++ BI.prM b) ≡ L ++ map cur (BI.prM b)
    cur-eq = trans (map-cur-++ (map syn L) (BI.prM b)) (cong (_++ map cur (BI.prM b)) (map-cur-syn L))

------------------------------------------------------------------------
-- PUS's SYNC keeps RIy

rixg-syS : ∀ {s t r t'} (iv : Inv′ s t) → RIy iv → (iv' : Inv′ (syS r s) t') → RIy iv'
rixg-syS {s} {t} {r} iv (x , re) iv' =
  hold-to {syS r s} (hold-syU {st s} {ues s} {r} (biOf iv) x re) iv' , rie-nil (syU (ues s) r (st s))

------------------------------------------------------------------------
-- PUSB's partial SYNC (`syB xs ys l r`, SCFTL.Impl.UnsyncedSyncBehind):
-- xs's last barrier heads the new committed part, ys stay unsynced with
-- their part of RIe

private
  sync-landD : ∀ b m → sync (landD b m) ≡ sync m
  sync-landD true  m = refl
  sync-landD false m = refl

  lnkB-nil : ∀ ys k → lnkB [] ys k ≡ k
  lnkB-nil []      k = refl
  lnkB-nil (_ ∷ _) k = refl

  -- a SYNC that changes no page's content as a SYNC would see it
  dig-sync : ∀ {s s'} M es → (∀ p → sync (dat s' p) ≡ sync (dat s p)) → Dig s M es → Dig s' M es
  dig-sync M []       k tt       = tt
  dig-sync {s} {s'} M (e ∷ es) k (ds , dg) = ents (ddOf e) ds , dig-sync (eM e M) es k dg
    where
      ents : ∀ dd → AllL (Ent (eM e M) (λ p → sync (dat s p))) dd → AllL (Ent (eM e M) (λ p → sync (dat s' p))) dd
      ents []                 Lm.[]                   = Lm.[]
      ents ((p , d , a) ∷ dd) ((le , me , de) Lm.∷ r) = (le , me , trans (k p) de) Lm.∷ ents dd r

-- xs empty: the SYNC proves nothing new; the pages it lands keep what they hold
rixg-part-nil : ∀ {s C comm} ys l r → RIxG s ys C comm → RIxG (syB [] ys l r s) ys C comm
rixg-part-nil {s} {C} {comm} ys l r x = record
  { cmP  = RIxG.cmP x
  ; cmV  = cmv-mono (λ p d a le sm de → landD-syn (l p) (dat s p) (dcell d a) de) comm (RIxG.cmV x)
  ; rcOK = RIxG.rcOK x
  ; rcN  = RIxG.rcN x
  ; rcL  = RIxG.rcL x
  ; lkOK = λ L e → RIxG.lkOK x L (trans (sym (lnkB-nil ys (lnk s))) e)
  }

hold-part : ∀ {s xs ys l r} (b : BI s (xs ++ ys)) → Land s xs l →
            RIxG s (xs ++ ys) (BI.C b) (map cur (BI.prM b)) → RIe s (xs ++ ys) →
            Hold (syB xs ys l r s) ys (BI.C b) (BI.prM (bi-part {s} {xs} {ys} {l} {r} b)) × RIe (syB xs ys l r s) ys
hold-part {s} {[]} {ys} {l} {r} b ld x (rie dg ec ab) =
  (BI.slt b , BI.dre (bi-part {s} {[]} {ys} {l} {r} b) , rixg-part-nil ys l r x) ,
  rie (dig-sync (smap s) ys (λ p → sync-landD (l p) (dat s p)) dg) ec ab
hold-part {s} {e ∷ es} {ys} {l} {r} b ld x (rie dg ec ab) =
  (BI.slt b , BI.dre (bi-part {s} {e ∷ es} {ys} {l} {r} b) ,
   subst (RIxG (syB (e ∷ es) ys l r s) ys (BI.C b)) (sym cur-eq)
     (rixg-top (λ p → landD (l p) (dat s p)) _ _ _ e es ys (BI.prM b) dl x (rie dg ec ab))) ,
  rie (dig-sync (lastMap (smap s) (e ∷ es)) ys (λ p → sync-landD (l p) (dat s p))
                (proj₂ (dig-split (smap s) (e ∷ es) ys dg)))
      (proj₂ (epc-split (e ∷ es) ys (ep s) ec))
      (proj₂ (abc-split (gen s) (λ p → cur (rcd s p)) (e ∷ es) ys ab))
  where
    L = lay (map (ue (gen s)) (e ∷ es)) []
    cur-eq : map cur (map syn L ++ BI.prM b) ≡ L ++ map cur (BI.prM b)
    cur-eq = trans (map-cur-++ (map syn L) (BI.prM b)) (cong (_++ map cur (BI.prM b)) (map-cur-syn L))
    -- every page the new stable L2P names is landed or durable already (Land)
    dl : ∀ a p c → a ≤ amax → lastMap (smap s) (e ∷ es) a ≡ just p → sync (dat s p) ≡ syn c → landD (l p) (dat s p) ≡ syn c
    dl a p c le me h with proj₁ ld a p le me
    ... | inj₁ lp        = trans (landD-true (l p) (dat s p) lp) h
    ... | inj₂ (c′ , e′) = trans (landD-syn (l p) (dat s p) c′ e′) (trans (sym (cong sync e′)) h)

rixg-syB : ∀ {u t xs ys l r t'} (iv : Inv′ ⟪ u , xs ++ ys ⟫ t) → RIy iv → Land u xs l →
           (iv' : Inv′ (syBU xs ys l r ⟪ u , xs ++ ys ⟫) t') → RIy iv'
rixg-syB {u} {t} {xs} {ys} {l} {r} iv (x , re) ld iv' =
  let (h , re′) = hold-part {u} {xs} {ys} {l} {r} (biOf iv) ld x re in
  hold-to {syBU xs ys l r ⟪ u , xs ++ ys ⟫} h iv' , re′
