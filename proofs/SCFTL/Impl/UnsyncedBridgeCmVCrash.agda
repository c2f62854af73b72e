{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: `CvR` (SCFTL.Impl.UnsyncedBridgeRecClean:
-- the newest commit's digest on the map recovery without the checkpoint
-- rebuilds, for every choice it can make) at the crash points of PU's
-- operations and at every flash command of them.
--
--   cvr-step   after a step of PU (a normal state: `cvr-normal`)
--   cvr-post, cvr-pre
--              a crash whose region is the barrier's (its committed page
--              on top), read with the barrier's ghost (RIxG/RIe of `flB`
--              without the `umax` bound, `rixg-flB`), or the state's own
--              (the committed page not appended), read with its ghost;
--              the data pages the merge buffer programs are none of the
--              stable L2P's
--   cvr-flB, cvr-bar
--              the barrier's flash (the flush's before its SYNC) and
--              every command of its batch
--   cmv-new    a region of older generations holds no commit of the new
--              one: CmV holds vacuously
--   cvr-ck1g, cvr-ck2g, cvr-ckg
--              inside a full checkpoint from any state whose region is
--              durable: while the new slot may be lost, recovery reads the
--              region as it was or the new slot; once it is durable, the
--              new slot (for the flush's `fl3`: `cvr-ck`; the in-page
--              commit's `fi3`: `cvr-fick`; recovery's `recR`:
--              SCFTL.Impl.UnsyncedBridgeCmVAll)
--   cvr-fl, cvr-crC
--              every command of the flush (and the forced barrier), so
--              every command-level crash of PUMc's operations
--   cvr-crS, cvr-crB
--              before and after the SYNC outside a commit, full or
--              partial
--   cvr-fi2, cvr-fiK, cvr-fick, cvr-fi
--              every command of the in-page/OOB commit (PUSic's `FiCmd`)
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeCmVCrash (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                         (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl; 1+n≰n)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ as Lm
open Lm using (CmV; cmv-mono; GenLe; Older; PM; pick-first; pick-second; ≡ᵇ-false) renaming (All to AllL; [] to []L; _∷_ to _∷L_)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_
  using (CkCmd; ck-new; ck-erase; ck-end; ck-mid; mid-crash; fl-mid; wr-mid; es-mid; fi-mid; fk-mid; Mid-sync; runs; padW; DRun; before; after)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp; lay)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (CrashEs; ue; tents; []; _∷_)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; okU; flB; epE; crashL-syn; Syn)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; bi-flB)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_ using (ParseS)
open import SCFTL.Impl.UnsyncedRecClean Data d0 amax wmax kmax umax _≟D_ using (Clean)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (shapes; fg-inv; fg-crash)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh; ghostN; prN; prN-BI)
open import SCFTL.Impl.UnsyncedCommands Data d0 amax wmax kmax umax _≟D_
  using (BarCmd; sB; ghC; runs-dr; FlCmd; fb; fs; fck; fe; ghF; CrC)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_ using (syS; syU; crashS; tS; sync-Inv; sync-GenR)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (OobU; OobA)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (syB; syBU; PartSyᶜ; tB; syncB-Inv; syncB-GenR)
open import SCFTL.Impl.UnsyncedBridge Data d0 amax wmax kmax umax _≟D_ using (biOf)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_ using (RIxG; RIe; RIy; rixg-okU; rixg-flB)
open import SCFTL.Impl.UnsyncedBridgeSync Data d0 amax wmax kmax umax _≟D_ using (rixg-syS; rixg-syB)
open import SCFTL.Impl.UnsyncedBridgeCrash Data d0 amax wmax kmax umax _≟D_ using (ivOf)
open import SCFTL.Impl.UnsyncedBridgeRecClean Data d0 amax wmax kmax umax _≟D_ using (CmVR; CvR)
open import SCFTL.Impl.UnsyncedBridgeCmV Data d0 amax wmax kmax umax _≟D_
  using (cmvr-shapes; cmv-map; pick-crash; cvr-live; cvr-normal; cvr-mid; crash-dat; crash-syn; no-grow; soOf)
open import SCFTL.Impl.UnsyncedSyncInPage Data d0 amax wmax kmax umax _≟D_ using (InPO; InPO-ept)
open import SCFTL.Impl.UnsyncedSyncInPageCommands Data d0 amax wmax kmax umax _≟D_ using (FiCmd; ghFi; RcS)
import SCFTL.Impl.UnsyncedSyncInPageCommands Data d0 amax wmax kmax umax _≟D_ as IC
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (fiOk⇒okU)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- After a step of PU, and the barrier's flash

cvr-step : ∀ u {s t s' z} (iv : Inv′ s t) → RIy iv → okU u s s' → Img (st s') z → CvR z (ghostN s')
cvr-step u {s} {t} {s'} {z} iv y o img =
  let (t' , iv') = ivOf u {s} {t} {s'} iv o in cvr-normal {s'} {t'} {z} iv' (rixg-okU u iv y o iv') img

-- a crash whose region is the barrier's (its committed page on top of the
-- state's region) and whose data pages keep the merge buffer programs'
-- stable pages: recovery reads it with the barrier's ghost
cvr-post : ∀ {s t z} (iv : Inv′ s t) → RIy iv →
  pick (cur (cpL z)) (cur (cpO z)) ≡ just (true , gen (st s) , BI.C (biOf iv)) →
  (∀ p {c} → dat (fl2 (st s)) p ≡ syn c → dat z p ≡ syn c) → CrashL (dr (flB (st s))) (dr z) → CvR z (ghostN (sB s))
cvr-post {s} {t} {z} iv y pk keep crl = cvr-live {z} {gen (st s)} {BI.C b} {ghostN (sB s)} pk f
  where
    b  = biOf iv
    b' = bi-flB (st s) (ues s) b
    H  = rixg-flB iv y
    f : ∀ T es' → ParseS (map cur (dr z)) T es' (prN (sB s)) → shapes es' ≡ proj₁ (ghostN (sB s)) →
        Clean (gen (st s)) (BI.C b) (prN (sB s)) es' z → CmVR (gen (st s)) (BI.C b) (prN (sB s)) es' z
    f T es' p sh cl rewrite prN-BI (sB s) b' =
      cmvr-shapes {flB (st s)} {ues s ++ epE (st s) ∷ []} {z} b' (dat (fl2 (st s))) (RIxG.cmV (proj₂ (proj₂ (proj₁ H))))
        keep (RIe.dig (proj₂ H)) crl T es' p sh cl

-- the same, with the state's own ghost, for a crash whose region is the
-- state's (the committed page not appended)
cvr-pre : ∀ {s t z} (iv : Inv′ s t) → RIy iv →
  pick (cur (cpL z)) (cur (cpO z)) ≡ just (true , gen (st s) , BI.C (biOf iv)) →
  (∀ p {c} → dat (fl2 (st s)) p ≡ syn c → dat z p ≡ syn c) → CrashL (dr (st s)) (dr z) → CvR z (ghostN s)
cvr-pre {s} {t} {z} iv y pk keep crl = cvr-live {z} {gen (st s)} {BI.C b} {ghostN s} pk f
  where
    b = biOf iv
    H = rixg-flB iv y
    f : ∀ T es' → ParseS (map cur (dr z)) T es' (prN s) → shapes es' ≡ proj₁ (ghostN s) →
        Clean (gen (st s)) (BI.C b) (prN s) es' z → CmVR (gen (st s)) (BI.C b) (prN s) es' z
    f T es' p sh cl rewrite prN-BI s b =
      cmvr-shapes {st s} {ues s} {z} b (dat (fl2 (st s))) (RIxG.cmV (proj₂ (proj₂ (proj₁ H)))) keep (RIe.dig (proj₂ y)) crl T es' p sh cl

-- the barrier's flash
cvr-flB : ∀ {s t z} (iv : Inv′ s t) → RIy iv → Img (fl2 (st s)) z → CvR z (ghostN (sB s))
cvr-flB {s} {t} {z} iv y img =
  cvr-post {s} {t} {z} iv y (pick-crash {fl2 (st s)} {z} {BI.C (biOf iv)} (BI.slt (biOf iv)) (soOf iv) img)
    (λ q de → crash-dat de (proj₁ img q)) (proj₁ (proj₂ (proj₂ (proj₂ img))))

------------------------------------------------------------------------
-- The barrier's commands

cvr-bar : ∀ {s t x z} (iv : Inv′ s t) → RIy iv → (r : BarCmd s x) → Img x z → CvR z (ghC s r)
cvr-bar {s} {t} {x} {z} iv y r@(after cs₁ cs₂ is₁ is₂) img =
  cvr-mid {x} {fl2 (st s)} {z} {ghostN (sB s)} (fl-mid (st s) r) img (λ {z′} i → cvr-flB {s} {t} {z′} iv y i)
cvr-bar {s} {t} {x} {z} iv y r@(before cs is) img =
  cvr-pre {s} {t} {z} iv y (pick-crash {fl2 (st s)} {padW ds z} {BI.C (biOf iv)} (BI.slt (biOf iv)) (soOf iv) img')
    (λ q de → crash-dat de (proj₁ img' q))
    -- the batch's data programs leave the region alone
    (subst (λ w → CrashL w (dr z)) (runs-dr {st s} cs is (st s)) (proj₁ (proj₂ (proj₂ (proj₂ img)))))
  where
    M = mid-crash {x} {fl2 (st s)} {z} (fl-mid (st s) r) img
    ds = proj₁ M
    img' : Img (fl2 (st s)) (padW ds z)
    img' = proj₂ (proj₂ M)

------------------------------------------------------------------------
-- Inside a full checkpoint

private
  -- the parse of a region that is all durable part has nothing above it
  top-nil : ∀ (T cs : List Cell) → cs ≡ T ++ cs → T ≡ []
  top-nil []      cs _ = refl
  top-nil (t ∷ T) cs e = ⊥-elim (no-grow [] t T cs e)

-- every page of an older generation: no commit of this one
cmv-new : ∀ {g sm D} cs → All (GenLe g) cs → CmV (suc g) sm D cs
cmv-new []       []       = tt
cmv-new {g} (c ∷ cs) (x ∷ xs) = inj₁ (nc c x , cmv-new cs xs)
  where
    nc : ∀ c → GenLe g c → isC (suc g) c ≡ false
    nc erased                  _  = refl
    nc junk                    _  = refl
    nc (dcell _ _)             _  = refl
    nc (cpt _ _)               _  = refl
    nc (dlt h _ _ false _)     _  = refl
    nc (dlt h _ _ true _)      le = ≡ᵇ-false h (suc g) (λ e → 1+n≰n (subst (_≤ g) e le))

-- the region's pages erased by the checkpoint: old (of the generation or
-- older), erased or junk after a crash
ck2-gen : ∀ {g} ms {ms'} → All (GenLe g) (map cur ms) → CrashL (map (put erased) (map sync ms)) ms' → All (GenLe g) (map cur ms')
ck2-gen []       []       []                         = []
ck2-gen (m ∷ ms) (x ∷ xs) (inj₁ refl ∷ cl)           = x ∷ ck2-gen ms xs cl
ck2-gen (m ∷ ms) (x ∷ xs) (inj₂ (inj₁ refl) ∷ cl)    = tt ∷ ck2-gen ms xs cl
ck2-gen (m ∷ ms) (x ∷ xs) (inj₂ (inj₂ refl) ∷ cl)    = tt ∷ ck2-gen ms xs cl

-- the ghost inside a checkpoint: no epoch, the whole region durable
CvK : St → Set
CvK z = CvR z ([] , map cur (dr z))

-- after the new slot's program (not synced): recovery picks the live slot
-- and reads the region as it was (durable, its content pr, replaying to
-- the map M its digest holds on), or the new slot
cvr-ck1g : ∀ {u z C0 M pr} (D0 : ℕ → MC) → cpL u ≡ syn (cpt (gen u) C0) → PM (Older (gen u)) (cpO u) →
  (∀ {ms'} → CrashL (dr u) ms' → map cur ms' ≡ pr) → All (GenLe (gen u)) pr →
  (∀ a → proj₁ (rp (gen u) pr (st0 C0)) a ≡ M a) → CmV (gen u) M D0 pr → (∀ p {c} → D0 p ≡ syn c → dat u p ≡ syn c) →
  Img (ck1 u) z → CvK z
cvr-ck1g {u} {z} {C0} {M} {pr} D0 sl0 so rg ga rx cv keep img b g C T [] pk ps sh cln
  with top-nil T (map cur (dr z)) (proj₁ ps)
... | refl = go (proj₁ (proj₂ (proj₂ img)))
  where
    sl : cpL z ≡ syn (cpt (gen u) C0)
    sl = crash-syn sl0 (proj₁ (proj₂ img))
    dz : map cur (dr z) ≡ pr
    dz = rg (proj₁ (proj₂ (proj₂ (proj₂ img))))
    -- the live slot: the region as it was, its durable digest
    old : pick (cur (cpL z)) (cur (cpO z)) ≡ just (true , gen u , C0) → CmVR g C (map cur (dr z)) [] z
    old e with trans (sym pk) e
    ... | refl =
      subst (λ cs → CmV (gen u) (proj₁ (rp (gen u) cs (st0 C0))) (λ p → sync (dat z p)) cs) (sym dz)
        (cmv-map (λ a → sym (rx a)) pr (cmv-mono (λ p d a le sm de → cong sync (crash-dat (keep p de) (proj₁ img p))) pr cv))
    go : CrashC (put (cpt (suc (gen u)) (l2p u)) (cpO u)) (cpO z) → CmVR g C (map cur (dr z)) [] z
    go (inj₁ e) = old (trans (cong (λ c → pick (cur c) (cur (cpO z))) sl)
                             (trans (cong (λ c → pick (cpt (gen u) C0) (cur c)) e)
                                    (pick-first (gen u) C0 _ (Lm.PM-dur (cpO u) so))))
    go (inj₂ (inj₂ e)) = old (trans (cong (λ c → pick (cur c) (cur (cpO z))) sl)
                                    (cong (λ c → pick (cpt (gen u) C0) (cur c)) e))
    go (inj₂ (inj₁ e)) with trans (sym pk) (trans (cong (λ c → pick (cur c) (cur (cpO z))) sl)
                                 (trans (cong (λ c → pick (cpt (gen u) C0) (cur c)) e)
                                        (pick-second (suc (gen u)) (l2p u) (cpt (gen u) C0) ≤-refl)))
    ... | refl = cmv-new (map cur (dr z)) (subst (All (GenLe (gen u))) (sym dz) ga)
cvr-ck1g D0 sl0 so rg ga rx cv keep img b g C T (_ ∷ _) pk ps () cln

-- after the new slot's SYNC: recovery picks it, every page of the region
-- is older
cvr-ck2g : ∀ {u z C0} → cpL u ≡ syn (cpt (gen u) C0) → All (GenLe (gen u)) (map cur (dr u)) → Img (ck2 u) z → CvK z
cvr-ck2g {u} {z} {C0} sl0 ga img b g C T es' pk ps sh cln with trans (sym pk) pk2
  where
    ol : Older (suc (gen u)) (cur (cpL z))
    ol with proj₁ (proj₂ img)
    ... | inj₁ e        = subst (Older (suc (gen u))) (sym (trans (cong cur e) (cong cur sl0))) ≤-refl
    ... | inj₂ (inj₁ e) = subst (Older (suc (gen u))) (sym (cong cur e)) tt
    ... | inj₂ (inj₂ e) = subst (Older (suc (gen u))) (sym (cong cur e)) tt
    pk2 : pick (cur (cpL z)) (cur (cpO z)) ≡ just (false , suc (gen u) , l2p u)
    pk2 = trans (cong (λ c → pick (cur (cpL z)) (cur c)) (proj₁ (proj₂ (proj₂ img))))
                (pick-second (suc (gen u)) (l2p u) (cur (cpL z)) ol)
... | refl = cmv-new (map cur (dr z)) (ck2-gen (dr u) ga (proj₁ (proj₂ (proj₂ (proj₂ img)))))

-- at any command of it
cvr-ckg : ∀ {u x z C0 M pr} (D0 : ℕ → MC) → cpL u ≡ syn (cpt (gen u) C0) → PM (Older (gen u)) (cpO u) →
  (∀ {ms'} → CrashL (dr u) ms' → map cur ms' ≡ pr) → All (GenLe (gen u)) pr → All (GenLe (gen u)) (map cur (dr u)) →
  (∀ a → proj₁ (rp (gen u) pr (st0 C0)) a ≡ M a) → CmV (gen u) M D0 pr → (∀ p {c} → D0 p ≡ syn c → dat u p ≡ syn c) →
  (Σ Cell λ a → cpO u ≡ syn a) → CkCmd u x → Img x z → CvK z
cvr-ckg {u} {_} {z} {C0} {M} {pr} D0 sl0 so rg ga gu rx cv keep co (ck-new cs is) img =
  cvr-ck1g {u} {z} {C0} {M} {pr} D0 sl0 so rg ga rx cv keep
    (proj₂ (proj₂ (mid-crash {runs cs u} {ck1 u} {z} (proj₂ (proj₂ (ck-mid u co (ck-new cs is)))) img)))
cvr-ckg {u} {_} {z} {C0} D0 sl0 so rg ga gu rx cv keep co (ck-erase cs is) img =
  cvr-ck2g {u} {z} {C0} sl0 gu
    (proj₂ (proj₂ (mid-crash {runs cs (syncAll (ck1 u))} {ck2 u} {z} (proj₂ (proj₂ (ck-mid u co (ck-erase cs is)))) img)))
cvr-ckg {u} {_} {z} {C0} D0 sl0 so rg ga gu rx cv keep co ck-end img =
  cvr-ck2g {u} {z} {C0} sl0 gu (proj₂ (proj₂ (mid-crash {syncAll (ck2 u)} {ck2 u} {z} (proj₂ (proj₂ (ck-mid u co ck-end))) img)))

-- from a normal state with no epoch unsynced and no open tentative page
cvr-ck : ∀ {u t x z} (iv : Inv′ ⟪ u , [] ⟫ t) → RIy iv → dr u ≡ BI.prM (biOf iv) → (Σ Cell λ a → cpO u ≡ syn a) →
         CkCmd u x → Img x z → CvK z
cvr-ck {u} {t} {x} {z} iv (rx , _) de co c img =
  cvr-ckg {u} {x} {z} {BI.C b} {smap u} {map cur (BI.prM b)} (dat u) (BI.slt b) (soOf iv)
    (λ cl → cong (map cur) (crashL-syn (BI.sy b) (subst (λ w → CrashL w _) de cl)))
    (subst (λ w → All (GenLe (gen u)) (map cur w)) de (proj₂ iv)) (proj₂ iv)
    (BI.rx b) (RIxG.cmV rx) (λ p e → e) co c img
  where b = biOf iv

------------------------------------------------------------------------
-- The flush's commands (and the forced barrier's)

cvr-fl : ∀ {s t x z} (iv : Inv′ s t) → RIy iv → (r : FlCmd s x) → Img x z → CvR z (ghF s r z)
cvr-fl {s} {t} {x} {z} iv y (fb r) img = cvr-bar {s} {t} {x} {z} iv y r img
cvr-fl {s} {t} {_} {z} iv y fs img = cvr-step SB.flush {s} {t} {⟪ fl3 (st s) , [] ⟫} {z} iv y (inj₁ refl , refl) img
cvr-fl {s} {t} {_} {z} iv y fe img = cvr-step SB.flush {s} {t} {⟪ ck3 (fl3 (st s)) , [] ⟫} {z} iv y (inj₂ (inj₁ refl) , refl) img
cvr-fl {s} {t} {x} {z} iv y (fck c) img =
  cvr-ck {fl3 (st s)} {proj₁ I} {x} {z} (proj₂ I) (rixg-okU SB.flush iv y (inj₁ refl , refl) (proj₂ I))
         (BI.dre (biOf (proj₂ I))) (cur (cpO (fl2 (st s))) , refl) c img
  where I = ivOf SB.flush {s} {t} {⟪ fl3 (st s) , [] ⟫} iv (inj₁ refl , refl)

------------------------------------------------------------------------
-- Every command-level crash of PUMc's operations

cvr-crC : ∀ u {s t z g} (iv : Inv′ s t) → RIy iv → CrC u s z g → CvR z g
cvr-crC (SB.reg (SB.op (SB.w a d))) {s} {t} {z} iv y (x , inj₁ (ib , f1 , f2 , r) , img , refl) =
  cvr-mid {x} {opt f1 f2 (wr0 a d (st s))} {z} (wr-mid f1 f2 (wr0 a d (st s)) r) img
    (λ {z′} → cvr-step (SB.reg (SB.op (SB.w a d))) {s} {t} {⟪ opt f1 f2 (wr0 a d (st s)) , ues s ⟫} {z′} iv y (inj₁ (ib , f1 , f2 , refl) , refl))
cvr-crC (SB.reg (SB.op (SB.w a d))) {s} {t} {z} iv y (x , inj₂ (_ , refl) , img , refl) = cvr-normal {s} {t} {z} iv y img
cvr-crC (SB.reg (SB.op SB.rl)) {s} {t} {z} iv y (x , inj₁ (le , p , lt , inj₁ (v , f1 , f2 , r)) , img , refl) =
  cvr-mid {x} {opt f1 f2 (rl0 p (st s))} {z} (wr-mid f1 f2 (rl0 p (st s)) r) img
    (λ {z′} → cvr-step (SB.reg (SB.op SB.rl)) {s} {t} {⟪ opt f1 f2 (rl0 p (st s)) , ues s ⟫} {z′} iv y
              (inj₁ (le , p , lt , inj₁ (v , f1 , f2 , refl)) , refl))
cvr-crC (SB.reg (SB.op SB.rl)) {s} {t} {z} iv y (x , inj₁ (le , p , lt , inj₂ (nv , refl)) , img , refl) =
  cvr-step (SB.reg (SB.op SB.rl)) {s} {t} {⟪ rlX p (st s) , ues s ⟫} {z} iv y (inj₁ (le , p , lt , inj₂ (nv , refl)) , refl) img
cvr-crC (SB.reg (SB.op SB.rl)) {s} {t} {z} iv y (x , inj₂ (_ , refl) , img , refl) = cvr-normal {s} {t} {z} iv y img
cvr-crC (SB.reg (SB.op SB.es)) {s} {t} {z} iv y (x , (p , er , r) , img , refl) =
  cvr-mid {x} {esF p (st s)} {z} (es-mid p (st s) r) img
    (λ {z′} → cvr-step (SB.reg (SB.op SB.es)) {s} {t} {⟪ esF p (st s) , ues s ⟫} {z′} iv y ((p , er , refl) , refl))
cvr-crC (SB.reg (SB.op SB.sy)) iv y ()
cvr-crC (SB.reg SB.barrier) {s} {t} {z} iv y (inj₁ (_ , x , r , img , refl)) = cvr-bar {s} {t} {x} {z} iv y r img
cvr-crC (SB.reg SB.barrier) {s} {t} {z} iv y (inj₂ (x , r , img , refl)) = cvr-fl {s} {t} {x} {z} iv y r img
cvr-crC SB.flush {s} {t} {z} iv y (x , r , img , refl) = cvr-fl {s} {t} {x} {z} iv y r img

------------------------------------------------------------------------
-- The SYNC outside a commit: before it (a normal state) or after it

cvr-crS : ∀ {S t S'} (iv : Inv′ (su S) t) → RIy iv → OobU (su S) →
          crashS (SB.use (SB.reg (SB.op SB.sy))) S S' → CvR (st (su S')) (gh S')
cvr-crS {⟦ s , g0 ⟧} {t} {⟦ s' , .(ghostN s) ⟧} iv y lo (inj₁ (img , refl) , _) = cvr-normal {s} {t} {st s'} iv y img
cvr-crS {⟦ s , g0 ⟧} {t} {⟦ s' , .(ghostN (syS r s)) ⟧} iv y lo (inj₂ (r , rel , img , refl) , _) =
  cvr-normal {syS r s} {tS t} {st s'} iv' (rixg-syS {s} {t} {r} {tS t} iv y iv') img
  where
    iv' : Inv′ (syS r s) (tS t)
    iv' = sync-Inv {s} {t} {r} (proj₁ iv) rel lo , sync-GenR {s} {r} (proj₂ iv)

-- after PUSB's partial SYNC
cvr-crB : ∀ {S t S'} (iv : Inv′ (su S) t) → RIy iv → OobA (su S) → PartSyᶜ S S' → CvR (st (su S')) (gh S')
cvr-crB {⟦ ⟪ u , .(xs ++ ys) ⟫ , g0 ⟧} {t} {⟦ s' , .(ghostN (syBU xs ys l r ⟪ u , xs ++ ys ⟫)) ⟧} iv y ob
        (xs , ys , l , r , refl , ld , rel , img , refl) =
  cvr-normal {syBU xs ys l r ⟪ u , xs ++ ys ⟫} {tB (length xs) t} {st s'} iv'
    (rixg-syB {u} {t} {xs} {ys} {l} {r} {tB (length xs) t} iv y ld iv') img
  where
    iv' : Inv′ (syBU xs ys l r ⟪ u , xs ++ ys ⟫) (tB (length xs) t)
    iv' = syncB-Inv {u} {t} {xs} {ys} {l} {r} (proj₁ iv) ld rel ob , syncB-GenR {u} {xs} {ys} {l} {r} (proj₂ iv)

------------------------------------------------------------------------
-- The in-page and OOB commit's commands (PUSic's `FiCmd`), from a state
-- with no epoch unsynced and no open tentative page: its region is its
-- durable part

-- a synced region comes back as it was
crash-of-sync : ∀ ms {ms'} → CrashL (map sync ms) ms' → map cur ms' ≡ map cur ms
crash-of-sync []       []          = refl
crash-of-sync (m ∷ ms) (refl ∷ cl) = cong (cur m ∷_) (crash-of-sync ms cl)

private
  sync-all : ∀ {ms} → All Syn ms → map sync ms ≡ ms
  sync-all []              = refl
  sync-all ((c , refl) ∷ xs) = cong (syn c ∷_) (sync-all xs)

module _ {s t M} (iv : Inv′ s t) (y : RIy iv) (eu : ues s ≡ []) (po : InPO (st s) M) where
  private
    b  = biOf iv
    g  = gen (st s)
    H  = rixg-flB iv y
    -- the region is the durable part
    drs : dr (st s) ≡ BI.prM b
    drs = trans (BI.dre b) (cong₂ (λ e x → map (uns erased) (tents g (ep (st s)) x ++ lay (map (ue g) e) []) ++ BI.prM b)
                                  eu (InPO-ept {st s} {M} po))
    gr : All (GenLe g) (map cur (dr (st s)))
    gr = proj₂ iv

  -- before the record's SYNC: the region and the stable pages as they were
  cvr-fi2 : ∀ {z} → Img (fi2 M (st s)) z → CvR z (ghostN s)
  cvr-fi2 {z} img =
    cvr-pre {s} {t} {z} iv y (pick-crash {fi2 M (st s)} {z} {BI.C b} (BI.slt b) (soOf iv) img)
      (λ q de → crash-dat de (proj₁ img q)) (proj₁ (proj₂ (proj₂ (proj₂ img))))

  -- the consolidation page appended: the barrier's region, synced below it
  cvr-fiK : ∀ {z} → Img (fiK M (st s)) z → CvR z (ghostN (sB s))
  cvr-fiK {z} img =
    cvr-post {s} {t} {z} iv y
      (pick-crash {fiK M (st s)} {z} {BI.C b} (cong sync (BI.slt b)) (Lm.PM-sync (cpO (st s)) (soOf iv)) img)
      (λ q de → crash-dat (cong sync de) (proj₁ img q))
      (subst (λ w → CrashL (uns erased (rec (st s)) ∷ w) (dr z))
             (trans (cong (map sync) drs) (trans (sync-all (BI.sy b)) (sym drs)))
             (proj₁ (proj₂ (proj₂ (proj₂ img)))))

  -- inside the full checkpoint after the record's SYNC: the region as it
  -- was, the stable L2P's pages as they were
  cvr-fick : ∀ {x z} → CkCmd (fi3 M (st s)) x → Img x z → CvK z
  cvr-fick {x} {z} c img =
    cvr-ckg {fi3 M (st s)} {x} {z} {BI.C b} {smap (st s)} {map cur (BI.prM b)} (dat (fl2 (st s)))
      (cong sync (BI.slt b)) (Lm.PM-sync (cpO (st s)) (soOf iv))
      (λ cl → trans (crash-of-sync (dr (st s)) cl) (cong (map cur) drs))
      (subst (λ w → All (GenLe g) (map cur w)) drs gr)
      (subst (All (GenLe g)) (sym (Lm.map-cur-sync (dr (st s)))) gr)
      (BI.rx b) (RIxG.cmV (proj₂ (proj₂ (proj₁ H)))) (λ p e → cong sync e) (cur (cpO (st s)) , refl) c img

  cvr-fi : ∀ {x z} → RcS (st s) → (r : FiCmd s M x) → Img x z → CvR z (ghFi s M r z)
  cvr-fi {x} {z} rs (IC.fb r) img =
    cvr-mid {x} {fi2 M (st s)} {z} {ghostN s} (fi-mid M (st s) (rs M) r) img (λ {z′} i → cvr-fi2 {z′} i)
  cvr-fi {x} {z} rs (IC.fck c) img = cvr-fick {x} {z} c img
  cvr-fi {_} {z} rs IC.fce img =
    cvr-step SB.flush {s} {t} {⟪ ck3 (fi3 M (st s)) , [] ⟫} {z} iv y (fiOk⇒okU (eu , M , po , inj₂ refl)) img
  cvr-fi {_} {z} rs (IC.fk (before [] []L)) img =
    cvr-mid {fi3 M (st s)} {fi2 M (st s)} {z} {ghostN s} (Mid-sync (fi2 M (st s))) img (λ {z′} i → cvr-fi2 {z′} i)
  cvr-fi rs (IC.fk (before (_ ∷ _) (() ∷L _))) img
  cvr-fi {x} {z} rs (IC.fk r@(after [] [] []L []L)) img =
    cvr-mid {x} {fiK M (st s)} {z} {ghostN (sB s)} (fk-mid M (st s) r) img (λ {z′} i → cvr-fiK {z′} i)
  cvr-fi rs (IC.fk (after (_ ∷ _) _ (() ∷L _) _)) img
  cvr-fi rs (IC.fk (after [] (_ ∷ _) []L (() ∷L _))) img
  cvr-fi {_} {z} rs IC.fe img =
    cvr-step SB.flush {s} {t} {⟪ fi4 M (st s) , [] ⟫} {z} iv y (fiOk⇒okU (eu , M , po , inj₁ refl)) img
