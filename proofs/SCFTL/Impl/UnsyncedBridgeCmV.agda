{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: `CmVR` (SCFTL.Impl.UnsyncedBridgeRecClean)
-- at the crash of a state of PU's normal operation, so that recovery
-- WITHOUT the checkpoint keeps the bridge's invariant after it.
--
-- CmVR asks that the newest commit of the crashed region have its
-- digest entries in the map recovery rebuilds and on their pages.  When
-- recovery goes on without the checkpoint it accepted every unsynced
-- epoch of the parse (`Clean`), and then:
--
--   written     every crashed epoch it accepts is the epoch as written
--               (an erased or junk committed page fails `okC`, so does a
--               tentative page the crash changed)
--   acc-last    the last epoch's digest verified on the crashed pages:
--               the content half of each entry
--   cmvr-bi     the map half: the recovered map is the last epoch's map
--               (`rpE-last`, BI's `rx`), where `Dig` puts the last
--               digest's entries before the crash (`dig-last`); with no
--               epoch unsynced, the durable part's `cmV` survives (its
--               pages are synced)
--   cmvr-shapes the same for any parse with the epochs' shapes (they fix
--               the parse, `parse-unique`), of any state with BI, the
--               durable part's CmV and Dig (not only a normal state: the
--               flush's crash before its SYNC is a barrier's)
--   cvr-normal  so `CvR` (SCFTL.Impl.UnsyncedBridgeRecClean: CmVR for
--               every choice recovery without the checkpoint can make) of
--               a crash of a normal state with RIy
--   cvr-pad, cvr-mid
--               dead pages on top of the region change no choice of
--               recovery's, so every state between two crash points
--               (`Mid`, SCFTL.Impl.CrashPoints) has CvR where the crash
--               point has it
--   rixg-crash-normal-recC
--               a crash of a normal state, then PUSi's recovery without
--               the checkpoint, gives RIy
--
-- The other crash points: SCFTL.Impl.UnsyncedBridgeCmVCrash (every flash
-- command of PU's operations), SCFTL.Impl.UnsyncedBridgeCmVAll (PUSBic,
-- crashes inside recovery, the invariant of crashed states).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeCmV (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                    (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; s≤s; _≡ᵇ_)
open import Data.Nat.Properties using (≤-refl; ≤-step; <-irrefl)
open import Data.Bool.Base using (Bool; true; false; _∧_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Properties using (map-++-commute; ++-assoc)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ as Lm
open Lm using (CmV; cmv-mono; Ent; _≐_; ∧-true; holds-sound; PM; Older; pick-first) renaming (All to AllL; [] to []L; _∷_ to _∷L_)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (lay; accU; rp-lay)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (E; ue; tents; CrashRs; CrashEs; []; _∷_)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues; lay-++)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; bi-lay; fresh-of; lastMap-≐)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (ddOf; lastMap)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_ using (rpE-last)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_ using (ParseS; Skip; recU-crash-openL)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (shapes; parse-unique; crashEs-shape)
open import SCFTL.Impl.UnsyncedRecClean Data d0 amax wmax kmax umax _≟D_ using (Clean)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh; ghostN; prN; prN-BI; crash-normal-G)
open import SCFTL.Impl.UnsyncedSyncInPage Data d0 amax wmax kmax umax _≟D_ using (RecC)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (verT-T)
open import SCFTL.Impl.UnsyncedBridge Data d0 amax wmax kmax umax _≟D_ using (biOf)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_ using (RIxG; RIe; Dig; RIy; tents-T)
open import SCFTL.Impl.UnsyncedBridgeSync Data d0 amax wmax kmax umax _≟D_ using (lastE; lay-top; dig-last)
open import SCFTL.Impl.UnsyncedBridgeCrash Data d0 amax wmax kmax umax _≟D_ using (rcx-img; rcx-inv)
open import SCFTL.Impl.UnsyncedBridgeRecClean Data d0 amax wmax kmax umax _≟D_ using (CmVR; CvR; rixg-recC)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recM)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_ using (Dead; padW; Mid; mid-crash)

------------------------------------------------------------------------
-- Lemmas

private
  len-le : ∀ {A : Set} (ys zs : List A) → length zs ≤ length (ys ++ zs)
  len-le []       zs = ≤-refl
  len-le (y ∷ ys) zs = ≤-step (len-le ys zs)

-- a list is not a proper suffix of itself
no-grow : ∀ {A : Set} (xs : List A) (x : A) (ys zs : List A) → zs ≡ xs ++ x ∷ ys ++ zs → ⊥
no-grow {A} xs x ys zs e = <-irrefl (cong length e) (lt xs)
  where
    lt : ∀ (ws : List A) → length zs < length (ws ++ x ∷ ys ++ zs)
    lt []       = s≤s (len-le ys zs)
    lt (_ ∷ ws) = ≤-step (lt ws)

-- a durable metadata page survives a crash; an older slot stays older
crash-syn : ∀ {m m' c} → m ≡ syn c → CrashC m m' → m' ≡ syn c
crash-syn refl e = e

crash-older : ∀ {g} m {m'} → PM (Older g) m → CrashC m m' → Older g (cur m')
crash-older (syn c)   x refl                = x
crash-older (uns o n) (x , _) (inj₁ refl)        = x
crash-older (uns o n) (_ , y) (inj₂ (inj₁ refl)) = y
crash-older (uns o n) _ (inj₂ (inj₂ refl))       = tt

private
  -- recovery's check dropping an epoch leaves the region short of it
  drop-short : ∀ es' c ts pr → pr ≡ lay es' (c ∷ ts ++ pr) → ⊥
  drop-short es' c ts pr e = no-grow (lay es' []) c ts pr (trans e (sym (lay-++ es' [] (c ∷ ts ++ pr))))

  ∧-l : ∀ a b → a ∧ b ≡ true → a ≡ true
  ∧-l a b e = proj₁ (∧-true a b e)

  ∧-r : ∀ a b → a ∧ b ≡ true → b ≡ true
  ∧-r a b e = proj₂ (∧-true a b e)

  contra : ∀ {A : Set} → false ≡ true → A
  contra ()

  skip-nc : ∀ g c → Skip c → isC g c ≡ false
  skip-nc g (dlt h x ps false dg) (inj₁ _)  = refl
  skip-nc g (dlt h x ps true dg)  (inj₁ ())
  skip-nc g erased                (inj₁ ())
  skip-nc g junk                  (inj₁ ())
  skip-nc g (dcell _ _)           (inj₁ ())
  skip-nc g (cpt _ _)             (inj₁ ())
  skip-nc g _                     (inj₂ (inj₁ refl)) = refl
  skip-nc g _                     (inj₂ (inj₂ refl)) = refl





-- a durable data page survives a crash
crash-dat : ∀ {m m' c} → m ≡ syn c → CrashD m m' → m' ≡ syn c
crash-dat refl e = e

-- the older checkpoint slot of a state with its invariants
soOf : ∀ {s t} → Inv′ s t → PM (Older (gen (st s))) (cpO (st s))
soOf iv = proj₂ (proj₂ (proj₂ (proj₁ iv)))

-- a tentative page that passes verT is the page written
verT-written : ∀ g x pss ts' rest → CrashRs (tents g x pss) ts' → verT g x pss (ts' ++ rest) ≡ true →
               ts' ≡ tents g x pss
verT-written g x []         []         rest []         v = refl
verT-written g x (ps ∷ pss) (t' ∷ ts') rest (inj₁ refl ∷ crs) v =
  cong (t' ∷_) (verT-written g x pss ts' rest crs (∧-r (isT g x ps t') _ v))
verT-written g x (ps ∷ pss) (t' ∷ ts') rest (inj₂ (inj₁ refl) ∷ crs) v = contra v
verT-written g x (ps ∷ pss) (t' ∷ ts') rest (inj₂ (inj₂ refl) ∷ crs) v = contra v

-- recovery's check accepting every crashed epoch: each is as written
written : ∀ g D pr es es' → CrashEs g es es' → accU g D pr es' ≡ lay es' pr → es' ≡ map (ue g) es
written g D pr []                        []               []                        _  = refl
written g D pr ((x , ps , dd , pss , L) ∷ es) ((c' , ts') ∷ es') ((inj₁ refl , crs) ∷ ces) cl
  with okC g D (dlt g x ps true (dd , pss , L)) (ts' ++ pr) in ok
... | false = ⊥-elim (drop-short es' c' ts' pr cl)
... | true with verT-written g x pss ts' pr crs (∧-r (verD D dd) _ (∧-r (g ≡ᵇ g) _ ok))
...   | refl = cong (_ ∷_) (written g D (c' ∷ ts' ++ pr) es es' ces cl)
written g D pr (e ∷ es) ((c' , ts') ∷ es') ((inj₂ (inj₁ refl) , crs) ∷ ces) cl = ⊥-elim (drop-short es' c' ts' pr cl)
written g D pr (e ∷ es) ((c' , ts') ∷ es') ((inj₂ (inj₂ refl) , crs) ∷ ces) cl = ⊥-elim (drop-short es' c' ts' pr cl)

-- and the last one's digest verified on the pages
acc-last : ∀ g D pr e es → accU g D pr (map (ue g) (e ∷ es)) ≡ lay (map (ue g) (e ∷ es)) pr →
           verD D (ddOf (lastE e es)) ≡ true
acc-last g D pr (x , ps , dd , pss , L) []
  with okC g D (dlt g x ps true (dd , pss , L)) (tents g x pss ++ pr) in ok
... | false = λ cl → ⊥-elim (drop-short [] (dlt g x ps true (dd , pss , L)) (tents g x pss) pr cl)
... | true  = λ _ → ∧-l (verD D dd) _ (∧-r (g ≡ᵇ g) _ ok)
acc-last g D pr (x , ps , dd , pss , L) (e′ ∷ es)
  with okC g D (dlt g x ps true (dd , pss , L)) (tents g x pss ++ pr) in ok
... | false = λ cl → ⊥-elim (drop-short (map (ue g) (e′ ∷ es)) (dlt g x ps true (dd , pss , L)) (tents g x pss) pr cl)
... | true  = acc-last g D (dlt g x ps true (dd , pss , L) ∷ tents g x pss ++ pr) e′ es

-- pages recovery skips above the region commit nothing
cmv-skip : ∀ {g sm D} T cs → All Skip T → CmV g sm D cs → CmV g sm D (T ++ cs)
cmv-skip {g} []      cs []        cv = cv
cmv-skip {g} (c ∷ T) cs (k ∷ ks) cv = inj₁ (skip-nc g c k , cmv-skip T cs ks cv)

-- CmV against a map that agrees pointwise
cmv-map : ∀ {g sm sm' D} → sm ≐ sm' → ∀ cs → CmV g sm D cs → CmV g sm' D cs
cmv-map e []       _                  = tt
cmv-map e (c ∷ cs) (inj₁ (nc , cv))   = inj₁ (nc , cmv-map e cs cv)
cmv-map {g} {sm} {sm'} {D} e (c ∷ cs) (inj₂ (x , ps , dg , ec , es , vt)) = inj₂ (x , ps , dg , ec , go (proj₁ dg) es , vt)
  where
    go : ∀ xs → AllL (Ent sm D) xs → AllL (Ent sm' D) xs
    go []                 []L                = []L
    go ((p , d , a) ∷ xs) ((le , q , de) ∷L ys) = (le , trans (sym (e a)) q , de) ∷L go xs ys

-- a digest entry: the map half from one map, the content half from the
-- digest check on the crashed pages
ents : ∀ {M R} {D0 : ℕ → MC} (D : ℕ → Cell) → (∀ a → R a ≡ M a) →
       ∀ dd → AllL (Ent M D0) dd → verD D dd ≡ true → AllL (Ent R (λ p → syn (D p))) dd
ents D rm []                 []L                _ = []L
ents D rm ((p , d , a) ∷ dd) ((le , q , _) ∷L r) v =
  (le , trans (rm a) q , cong syn (holds-sound (D p) d a (∧-l (holds (D p) d a) _ v))) ∷L
  ents D rm dd r (∧-r (holds (D p) d a) _ v)

-- the top of the region: the last epoch's committed page as written
top-cmv : ∀ {g R D'} (e : E) rest → AllL (Ent R D') (ddOf e) → CmV g R D' (proj₁ (ue g e) ∷ proj₂ (ue g e) ++ rest)
top-cmv {g} (x , ps , dd , pss , L) rest en =
  inj₂ (x , ps , (dd , pss , L) , refl , en ,
        subst (λ ts → verT g x pss (ts ++ rest) ≡ true) (sym (tents-T g x pss)) (verT-T g x pss rest))

------------------------------------------------------------------------
-- CmVR on a crashed region, for the parse the crash leaves

-- The state `u` names the checkpoint, the durable part and the epochs
-- (BI), their maps (Dig) and the durable part's digest (CmV, on the data
-- pages D0 before the crash: u's own, or those of a state whose commands
-- left u's stable pages alone); `keep`: the durable pages survive the
-- crash.
cmvr-bi : ∀ {u es s'} (b : BI u es) (D0 : ℕ → MC) → CmV (gen u) (smap u) D0 (map cur (BI.prM b)) →
  (∀ p {c} → D0 p ≡ syn c → dat s' p ≡ syn c) → Dig u (smap u) es →
  ∀ T es' → ParseS (map cur (dr s')) T es' (map cur (BI.prM b)) → CrashEs (gen u) es es' →
  Clean (gen u) (BI.C b) (map cur (BI.prM b)) es' s' → CmVR (gen u) (BI.C b) (map cur (BI.prM b)) es' s'
cmvr-bi {u} {es} {s'} b D0 cv keep dg T es' (pe , sk) ces cl
  with written (gen u) (λ p → cur (dat s' p)) (map cur (BI.prM b)) es es' ces cl
... | refl =
  subst (CmV g R D') (sym pe) (cmv-skip T (lay (map (ue g) es) pr) sk (main es dg rm cl))
  where
    g  = gen u
    pr = map cur (BI.prM b)
    C  = BI.C b
    D  = λ p → cur (dat s' p)
    D' = λ p → sync (dat s' p)
    M  = smap u
    R  = proj₁ (rp g (accU g D pr (map (ue g) es)) (st0 C))
    rm : ∀ a → R a ≡ lastMap M es a
    rm a = trans (cong (λ cs → proj₁ (rp g cs (st0 C)) a) cl)
            (trans (cong (λ r → proj₁ r a) (rp-lay g (map (ue g) es) pr (st0 C)))
             (trans (cong (λ m → m a) (rpE-last g es (rp g pr (st0 C)) (fresh-of es (ep u) _ (BI.rf b))))
                    (lastMap-≐ (BI.rx b) es a)))
    main : ∀ es₁ → Dig u M es₁ → (∀ a → R a ≡ lastMap M es₁ a) →
           accU g D pr (map (ue g) es₁) ≡ lay (map (ue g) es₁) pr → CmV g R D' (lay (map (ue g) es₁) pr)
    main [] _ rm′ _ =
      cmv-map (λ a → sym (rm′ a)) pr (cmv-mono (λ p d a le sm de → cong sync (keep p de)) pr cv)
    main (e ∷ es₀) dg′ rm′ cl′ =
      subst (CmV g R D') (sym (proj₂ (lay-top g e es₀ pr)))
        (top-cmv (lastE e es₀) (proj₁ (lay-top g e es₀ pr))
          (ents D rm′ (ddOf (lastE e es₀)) (dig-last M e es₀ dg′) (acc-last g D pr e es₀ cl′)))

-- for any parse with the epochs' shapes: it is the one the crash of the
-- region leaves
cmvr-shapes : ∀ {u es s'} (b : BI u es) (D0 : ℕ → MC) → CmV (gen u) (smap u) D0 (map cur (BI.prM b)) →
  (∀ p {c} → D0 p ≡ syn c → dat s' p ≡ syn c) → Dig u (smap u) es → CrashL (dr u) (dr s') →
  ∀ T es' → ParseS (map cur (dr s')) T es' (map cur (BI.prM b)) →
  shapes es' ≡ map (λ e → length (proj₂ (ue (gen u) e))) es →
  Clean (gen u) (BI.C b) (map cur (BI.prM b)) es' s' → CmVR (gen u) (BI.C b) (map cur (BI.prM b)) es' s'
cmvr-shapes {u} {es} {s'} b D0 cv keep dg crl T es' p sh cl =
  cmvr-bi {u} {es} {s'} b D0 cv keep dg T es' p (subst (CrashEs (gen u) es) (sym (proj₂ same)) ces) cl
  where
    R   = recU-crash-openL {u} {s'} es (BI.prM b , BI.dre b , BI.sy b) crl (λ p → cur (dat s' p)) (st0 (BI.C b))
    T0  = proj₁ (proj₂ R)
    es0 = proj₁ (proj₂ (proj₂ R))
    ces = proj₁ (proj₂ (proj₂ (proj₂ R)))
    p0  = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ R))))
    same = parse-unique T T0 es' es0 (map cur (BI.prM b)) (trans sh (sym (crashEs-shape ces))) (trans (sym (proj₁ p)) (proj₁ p0))

-- the slot recovery picks after a crash of a state whose live slot is
-- durable and whose other slot is older
pick-crash : ∀ {u s' C} → cpL u ≡ syn (cpt (gen u) C) → PM (Older (gen u)) (cpO u) → Img u s' →
  pick (cur (cpL s')) (cur (cpO s')) ≡ just (true , gen u , C)
pick-crash {u} {s'} {C} sl so (_ , cL , cO , _ , _) =
  trans (cong (λ c → pick (cur c) (cur (cpO s'))) (crash-syn sl cL))
        (pick-first (gen u) C (cur (cpO s')) (crash-older (cpO u) so cO))

-- recovery from it reads the live slot: CvR from CmVR for that slot
cvr-live : ∀ {s' g C gh} → pick (cur (cpL s')) (cur (cpO s')) ≡ just (true , g , C) →
  (∀ T es' → ParseS (map cur (dr s')) T es' (proj₂ gh) → shapes es' ≡ proj₁ gh →
     Clean g C (proj₂ gh) es' s' → CmVR g C (proj₂ gh) es' s') →
  CvR s' gh
cvr-live {s'} {g} {C} pk0 f b g′ C′ T es' pk ps sh cl with trans (sym pk) pk0
... | refl = f T es' ps sh cl

------------------------------------------------------------------------
-- The crash of a normal state

cvr-normal : ∀ {s t s'} (iv : Inv′ s t) → RIy iv → Img (st s) s' → CvR s' (ghostN s)
cvr-normal {s} {t} {s'} iv (x , ri) img =
  cvr-live {s'} {gen (st s)} {BI.C (biOf iv)} {ghostN s}
    (pick-crash {st s} {s'} {BI.C (biOf iv)} (BI.slt (biOf iv)) (soOf iv) img) go
  where
    go : ∀ T es' → ParseS (map cur (dr s')) T es' (prN s) → shapes es' ≡ proj₁ (ghostN s) →
         Clean (gen (st s)) (BI.C (biOf iv)) (prN s) es' s' → CmVR (gen (st s)) (BI.C (biOf iv)) (prN s) es' s'
    go T es' p sh cl rewrite prN-BI s (biOf iv) =
      cmvr-shapes {st s} {ues s} {s'} (biOf iv) (dat (st s)) (RIxG.cmV x) (λ q de → crash-dat de (proj₁ img q))
                  (RIe.dig ri) (proj₁ (proj₂ (proj₂ (proj₂ img)))) T es' p sh cl

------------------------------------------------------------------------
-- Dead pages on top of the region (the command level: `Mid`)

private
  dead-skip : ∀ {c} → Dead c → Skip c
  dead-skip {erased} _ = inj₂ (inj₁ refl)
  dead-skip {junk}   _ = inj₂ (inj₂ refl)

  all-dead : ∀ ds → AllL Dead ds → All Skip ds
  all-dead []       []L        = []
  all-dead (d ∷ ds) (x ∷L dd)  = dead-skip {d} x ∷ all-dead ds dd

  all-++ : ∀ {P : Cell → Set} xs {ys} → All P xs → All P ys → All P (xs ++ ys)
  all-++ []       []       q = q
  all-++ (x ∷ xs) (p ∷ ps) q = p ∷ all-++ xs ps q

  cur-syn : ∀ ds → map cur (map syn ds) ≡ ds
  cur-syn []       = refl
  cur-syn (d ∷ ds) = cong (d ∷_) (cur-syn ds)

  strip : ∀ {g sm D} ds cs → AllL Dead ds → CmV g sm D (ds ++ cs) → CmV g sm D cs
  strip []            cs []L         cv                          = cv
  strip (erased ∷ ds) cs (_ ∷L dd)   (inj₁ (_ , cv))             = strip ds cs dd cv
  strip (erased ∷ ds) cs (_ ∷L dd)   (inj₂ (_ , _ , _ , () , _))
  strip (junk ∷ ds)   cs (_ ∷L dd)   (inj₁ (_ , cv))             = strip ds cs dd cv
  strip (junk ∷ ds)   cs (_ ∷L dd)   (inj₂ (_ , _ , _ , () , _))
  strip (dcell _ _ ∷ ds) cs (() ∷L _) _
  strip (dlt _ _ _ _ _ ∷ ds) cs (() ∷L _) _
  strip (cpt _ _ ∷ ds) cs (() ∷L _) _

  pad-cur : ∀ ds s' → map cur (dr (padW ds s')) ≡ ds ++ map cur (dr s')
  pad-cur ds s' = trans (map-++-commute cur (map syn ds) (dr s')) (cong (_++ map cur (dr s')) (cur-syn ds))

-- dead pages on top change no choice of recovery's, nor its result
cvr-pad : ∀ {s' gh} ds → AllL Dead ds → CvR (padW ds s') gh → CvR s' gh
cvr-pad {s'} {gh} ds dd f b g C T es' pk (pe , sk) sh cl =
  strip ds (map cur (dr s')) dd
    (subst (CmV g (recM g C (proj₂ gh) es' s') (λ p → sync (dat s' p))) (pad-cur ds s')
      (f b g C (ds ++ T) es' pk (pe′ , all-++ ds (all-dead ds dd) sk) sh cl))
  where
    pe′ : map cur (dr (padW ds s')) ≡ (ds ++ T) ++ lay es' (proj₂ gh)
    pe′ = trans (pad-cur ds s') (trans (cong (ds ++_) pe) (sym (++-assoc ds T (lay es' (proj₂ gh)))))

-- so a crash after some of a batch's commands, given CvR at every crash of
-- the state at its end
cvr-mid : ∀ {x m s'' gh} → Mid x m → Img x s'' → (∀ {z} → Img m z → CvR z gh) → CvR s'' gh
cvr-mid {x} {m} {s''} {gh} md img f =
  let M = mid-crash {x} {m} {s''} md img in cvr-pad {s''} {gh} (proj₁ M) (proj₁ (proj₂ M)) (f {padW (proj₁ M) s''} (proj₂ (proj₂ M)))

------------------------------------------------------------------------
-- A crash of a normal state, then recovery without the checkpoint

rixg-crash-normal-recC : ∀ {s t S S' t'} (iv : Inv′ s t) → RIy iv → Img (st s) (st (su S)) → gh S ≡ ghostN s →
  RecC (st (su S)) (gh S) (st (su S')) → ues (su S') ≡ [] → (iv' : Inv′ (su S') t') → RIy iv'
rixg-crash-normal-recC {s} {t} {⟦ u , .(ghostN s) ⟧} {S'} {t'} iv y img refl rc e iv' =
  rixg-recC {⟦ u , ghostN s ⟧} {S'} {t'} rc e (rcx-img {st s} {st u} {gen (st s)} (rcx-inv iv y) img)
            (cvr-normal {s} {t} {st u} iv y img) iv'
