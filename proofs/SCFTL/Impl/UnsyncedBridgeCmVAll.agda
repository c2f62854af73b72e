{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: the bridge's invariant RIy across EVERY
-- recovery of PUSBic, with or without the checkpoint, after any crash
-- and any number of crashes inside recovery.
--
--   cvr-crashX     every crash of PUSBic from a state with RIy leaves CvR
--                  (SCFTL.Impl.UnsyncedBridgeCmVCrash: every flash command
--                  of every operation, the SYNC outside a commit, the
--                  in-page/OOB commit)
--   cvr-rck1       a crash inside recovery's checkpoint before the new
--                  slot is durable: recovery reads the crashed region as
--                  before (CvR carries over, the data pages and the region
--                  synced as they were), or the new slot (every page of
--                  the region older: `cmv-new`)
--   cvr-crashX-rec every crash inside recovery (its checkpoint's commands,
--                  its end, right after recovery without the checkpoint)
--                  keeps CvR, given PU's crash relation (CRP: the region of
--                  the picked generation or older) and RoG
--   Ch, ch-crash, ch-rec, ch-done
--                  so the pair RoG × CvR is an invariant of crashed states:
--                  a crash of a state with RIy gives it, a crash inside
--                  recovery keeps it, and recovery, both kinds, turns it
--                  into RIy of the recovered state (`rixg-rec`,
--                  `rixg-recC`); with no epoch unsynced RIy is P's RI
--                  (`ri-X`), where PL's chain phase starts
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeCmVAll (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                       (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_)
open import Data.Nat.Properties using (≤-refl)
open import Data.Bool.Base using (Bool; true; false; not)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.List.Relation.Unary.All using (All)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ as Lm
open Lm using (CmV; cmv-mono; GenLe; Older; pick-first; pick-second)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_
  using (CkCmd; ck-new; ck-erase; ck-end; ck-mid; mid-crash; runs; rec-synO)
open import SCFTL.Impl.Recovery Data d0 amax wmax kmax _≟D_ using (slot-sync)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_ using (ParseS; recRS)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR; pick-cell; accU-ext; recRS-ext; shapes)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recM; recU)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh; ghostN; CRP; okPU; NewPU)
open import SCFTL.Impl.UnsyncedCommands Data d0 amax wmax kmax umax _≟D_ using (RecCrC)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (crashX; okX; ARX; PUSBic; obligationsX)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_ using (RIy)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (RoG; rixg-rec; ivX; rixg-X)
open import SCFTL.Impl.UnsyncedBridgeCommands Data d0 amax wmax kmax umax _≟D_ using (rog-crashX; rog-crashX-rec)
open import SCFTL.Impl.UnsyncedBridgeRecClean Data d0 amax wmax kmax umax _≟D_ using (CmVR; CvR; rixg-recC)
open import SCFTL.Impl.UnsyncedBridgeCmV Data d0 amax wmax kmax umax _≟D_ using (cmv-map; cvr-normal; crash-syn)
open import SCFTL.Impl.UnsyncedBridgeCmVCrash Data d0 amax wmax kmax umax _≟D_
  using (cvr-crS; cvr-crB; cvr-crC; cvr-fi; cvr-ck2g; cmv-new; CvK; crash-of-sync)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- Every crash of PUSBic from a state with RIy

cvr-crashX : ∀ u {S t S'} (ar : ARX S t) → RIy (ivX {S} {t} ar) → crashX (SB.use u) S S' → CvR (st (su S')) (gh S')
cvr-crashX (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar y (inj₁ c) = cvr-crS {S} {t} {S'} (ivX {S} {t} ar) y (proj₂ (proj₁ (proj₁ ar))) c
cvr-crashX (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar y (inj₂ (c , _)) = cvr-crB {S} {t} {S'} (ivX {S} {t} ar) y (proj₂ ar) c
cvr-crashX (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar y (c , _) =
  cvr-crC (SB.reg (SB.op (SB.w a d))) {su S} {t} {st (su S')} {gh S'} (ivX {S} {t} ar) y c
cvr-crashX (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar y (c , _) =
  cvr-crC (SB.reg (SB.op SB.rl)) {su S} {t} {st (su S')} {gh S'} (ivX {S} {t} ar) y c
cvr-crashX (SB.reg (SB.op SB.es)) {S} {t} {S'} ar y (c , _) =
  cvr-crC (SB.reg (SB.op SB.es)) {su S} {t} {st (su S')} {gh S'} (ivX {S} {t} ar) y c
cvr-crashX (SB.reg SB.barrier) {S} {t} {S'} ar y (c , _) =
  cvr-crC (SB.reg SB.barrier) {su S} {t} {st (su S')} {gh S'} (ivX {S} {t} ar) y c
cvr-crashX SB.flush {S} {t} {S'} ar y (inj₁ (c , _)) =
  cvr-crC SB.flush {su S} {t} {st (su S')} {gh S'} (ivX {S} {t} ar) y c
cvr-crashX SB.flush {S} {t} {⟦ s' , _ ⟧} ar y (inj₂ ((M , eu , po , x , r , img , refl) , _)) =
  cvr-fi {su S} {t} {M} (ivX {S} {t} ar) y eu po {x} {st s'} (proj₂ (proj₁ ar)) r img

------------------------------------------------------------------------
-- Crashes inside recovery

private
  cur-sync : ∀ {m m'} → CrashD (sync m) m' → cur m' ≡ cur m
  cur-sync refl = refl

-- the checkpoint's new slot programmed, not synced
cvr-rck1 : ∀ {s gh b g C es' z} → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) → Older g (cur (slot (not b) s)) →
  All (GenLe g) (map cur (dr s)) → CvR s gh → Img (ck1 (recR b g C (proj₂ gh) es' s)) z → CvR z gh
cvr-rck1 {s} {gh} {b} {g} {C} {es'} {z} pk so ga cv img b′ g′ C′ T′ es″ pk′ ps′ sh′ cln′ = go (proj₁ (proj₂ (proj₂ img)))
  where
    u  = recR b g C (proj₂ gh) es' s
    pr = proj₂ gh
    sl : cpL z ≡ syn (cpt g C)
    sl = crash-syn (trans (slot-sync b s) (cong syn (pick-cell b s pk))) (proj₁ (proj₂ img))
    dz : map cur (dr z) ≡ map cur (dr s)
    dz = crash-of-sync (dr s) (proj₁ (proj₂ (proj₂ (proj₂ img))))
    dd : ∀ p → cur (dat z p) ≡ cur (dat s p)
    dd p = cur-sync {dat s p} (proj₁ img p)
    -- the slot recovery picked before: every choice it makes now it made
    -- then, on the same region and data pages
    old : pick (cur (cpL z)) (cur (cpO z)) ≡ just (true , g , C) → CmVR g′ C′ pr es″ z
    old e with trans (sym pk′) e
    ... | refl =
      subst (CmV g (recM g C pr es″ z) (λ p → sync (dat z p))) (sym dz)
        (cmv-map (λ a → cong (λ r → proj₁ r a) (sym (recRS-ext dd g es″ pr (st0 C))))
          (map cur (dr s))
          (cmv-mono (λ p d a le sm de → trans (cong syn (dd p)) de) (map cur (dr s))
            (cv b g C T′ es″ pk (trans (sym dz) (proj₁ ps′) , proj₂ ps′) sh′
                (trans (sym (accU-ext dd g pr es″)) cln′))))
    go : CrashC (put (cpt (suc g) (l2p u)) (cpO u)) (cpO z) → CmVR g′ C′ pr es″ z
    go (inj₁ e) = old (trans (cong (λ c → pick (cur c) (cur (cpO z))) sl)
                             (trans (cong (λ c → pick (cpt g C) (cur c)) e)
                                    (pick-first g C _ (subst (Older g) (sym (cong dur (slot-sync (not b) s))) so))))
    go (inj₂ (inj₂ e)) = old (trans (cong (λ c → pick (cur c) (cur (cpO z))) sl)
                                    (cong (λ c → pick (cpt g C) (cur c)) e))
    go (inj₂ (inj₁ e)) with trans (sym pk′) (trans (cong (λ c → pick (cur c) (cur (cpO z))) sl)
                                 (trans (cong (λ c → pick (cpt g C) (cur c)) e)
                                        (pick-second (suc g) (l2p u) (cpt g C) ≤-refl)))
    ... | refl = cmv-new (map cur (dr z)) (subst (All (GenLe g)) (sym dz) ga)

-- every crash inside recovery, given PU's crash relation, RoG and CvR of
-- the crashed state it recovers, and AR of the states recovery reaches
cvr-crashX-rec : ∀ {S t S'} → CRP S t → RoG (st (su S)) → CvR (st (su S)) (gh S) →
  (∀ {S3} → okX SB.recover S S3 → Σ SB.State λ t3 → Inv′ (su S3) t3) →
  crashX SB.recover S S' → CvR (st (su S')) (gh S')
-- inside the checkpoint: the new slot programmed
cvr-crashX-rec {⟦ ⟪ s , us ⟫ , gh0 ⟧} {t} {⟦ ⟪ s3 , _ ⟫ , .gh0 ⟧}
  (b₀ , g₀ , C₀ , pk₀ , so₀ , ga₀ , _) ro cv ar
  (inj₁ ((b , g , C , pk , T , es' , ps , sh , inj₁ (x , ck-new cs is , img , refl)) , _))
  with trans (sym pk₀) pk
... | refl =
  cvr-rck1 {s} {gh0} {b} {g} {C} {es'} {s3} pk so₀ ga₀ cv
    (proj₂ (proj₂ (mid-crash {x} {ck1 u} {s3} (proj₂ (proj₂ (ck-mid u (rec-synO b g C s) (ck-new cs is)))) img)))
  where u = recR b g C (proj₂ gh0) es' s
-- the new slot synced, the old one and the region being erased
cvr-crashX-rec {⟦ ⟪ s , us ⟫ , gh0 ⟧} {t} {⟦ ⟪ s3 , _ ⟫ , .([] , map cur (dr s3)) ⟧}
  (b₀ , g₀ , C₀ , pk₀ , so₀ , ga₀ , _) ro cv ar
  (inj₁ ((b , g , C , pk , T , es' , ps , sh , inj₁ (x , ck-erase cs is , img , refl)) , _))
  with trans (sym pk₀) pk
... | refl =
  cvr-ck2g {u} {s3} {C} (trans (slot-sync b s) (cong syn (pick-cell b s pk)))
    (subst (All (GenLe g)) (sym (Lm.map-cur-sync (dr s))) ga₀)
    (proj₂ (proj₂ (mid-crash {x} {ck2 u} {s3} (proj₂ (proj₂ (ck-mid u (rec-synO b g C s) (ck-erase cs is)))) img)))
  where u = recR b g C (proj₂ gh0) es' s
cvr-crashX-rec {⟦ ⟪ s , us ⟫ , gh0 ⟧} {t} {⟦ ⟪ s3 , _ ⟫ , .([] , map cur (dr s3)) ⟧}
  (b₀ , g₀ , C₀ , pk₀ , so₀ , ga₀ , _) ro cv ar
  (inj₁ ((b , g , C , pk , T , es' , ps , sh , inj₁ (x , ck-end , img , refl)) , _))
  with trans (sym pk₀) pk
... | refl =
  cvr-ck2g {u} {s3} {C} (trans (slot-sync b s) (cong syn (pick-cell b s pk)))
    (subst (All (GenLe g)) (sym (Lm.map-cur-sync (dr s))) ga₀)
    (proj₂ (proj₂ (mid-crash {x} {ck2 u} {s3} (proj₂ (proj₂ (ck-mid u (rec-synO b g C s) ck-end))) img)))
  where u = recR b g C (proj₂ gh0) es' s
-- at its end: the recovered state's crash
cvr-crashX-rec {S} {t} {⟦ ⟪ s3 , _ ⟫ , _ ⟧} crp ro cv ar
  (inj₁ ((b , g , C , pk , T , es' , ps , sh , inj₂ (img , refl)) , _)) =
  cvr-normal {su S3} {proj₁ A} {s3} (proj₂ A) (rixg-rec {S} {S3} {proj₁ A} rk ro (proj₂ A)) img
  where
    S3 = ⟦ ⟪ recU b g C (proj₂ (gh S)) es' (st (su S)) , [] ⟫ , ghostN ⟪ recU b g C (proj₂ (gh S)) es' (st (su S)) , [] ⟫ ⟧
    rk : okPU SB.recover S S3
    rk = (b , g , C , pk , T , es' , ps , sh , refl) , refl , refl
    A = ar {S3} (inj₁ rk)
-- right after recovery without the checkpoint
cvr-crashX-rec {S} {t} {⟦ ⟪ s3 , _ ⟫ , _ ⟧} crp ro cv ar
  (inj₂ ((b , g , C , pk , T , es' , ps , sh , cl , q , img , refl) , _)) =
  cvr-normal {su S3} {proj₁ A} {s3} (proj₂ A) (rixg-recC {S} {S3} {proj₁ A} rc refl ro cv (proj₂ A)) img
  where
    S3 = ⟦ ⟪ recR b g C (proj₂ (gh S)) es' (st (su S)) , [] ⟫ , ghostN ⟪ recR b g C (proj₂ (gh S)) es' (st (su S)) , [] ⟫ ⟧
    rc = (b , g , C , pk , T , es' , ps , sh , cl , q , refl)
    A = ar {S3} (inj₂ (rc , refl , refl))

------------------------------------------------------------------------
-- The invariant of crashed states, and recovery

Ch : SU → Set
Ch S = RoG (st (su S)) × CvR (st (su S)) (gh S)

ch-crash : ∀ u {S t S'} (ar : ARX S t) → RIy (ivX {S} {t} ar) → crashX (SB.use u) S S' → Ch S'
ch-crash u {S} {t} {S'} ar y c = rog-crashX u {S} {t} {S'} ar y c , cvr-crashX u {S} {t} {S'} ar y c

ch-rec : ∀ {S t S'} → CRP S t → Ch S → (∀ {S3} → okX SB.recover S S3 → Σ SB.State λ t3 → Inv′ (su S3) t3) →
  crashX SB.recover S S' → Ch S'
ch-rec {S} {t} {S'} crp (ro , cv) ar c = rog-crashX-rec {S} {S'} ro c , cvr-crashX-rec {S} {t} {S'} crp ro cv ar c

ch-done : ∀ {S S3 t3} → Ch S → okX SB.recover S S3 → (iv3 : Inv′ (su S3) t3) → RIy iv3
ch-done {S} {S3} {t3} (ro , cv) (inj₁ r) iv3 = rixg-rec {S} {S3} {t3} r ro iv3
ch-done {S} {S3} {t3} (ro , cv) (inj₂ (rc , e , _)) iv3 = rixg-recC {S} {S3} {t3} rc e ro cv iv3

------------------------------------------------------------------------
-- PUSBic's forward simulation with the bridge's invariants as its
-- representation and crash invariants (the type B obligations, which
-- `obligationsX` discharges with ⊤): RIy of every normal state (P's RI
-- once no epoch is unsynced, `ri-X`), RoG × CvR of every crashed one

open SB.ForwardSimulation PUSBic SB.SB using () renaming (Obligations to ObligationsX)

private
  module OX = SB.ForwardSimulation.Obligations obligationsX

  RIX : SU → Set
  RIX S = Σ SB.State λ t → Σ (ARX S t) λ ar → RIy (ivX {S} {t} ar)

  CIX : SU → Set
  CIX S = Σ SB.State λ t → CRP S t × Ch S

  -- a new disk: nothing on the region, every record slot erased, the
  -- checkpoint of generation 0 live
  ch-new : ∀ {S} → NewPU S → Ch S
  ch-new {⟦ ⟪ s , _ ⟫ , .([] , []) ⟧} ((sl , so , dre , re) , _ , refl) = ro , cv
    where
      pk : pick (cur (cpL s)) (cur (cpO s)) ≡ just (true , 0 , unmapped)
      pk = trans (cong (λ c → pick (cur c) (cur (cpO s))) sl) (cong (λ c → pick (cpt 0 unmapped) (cur c)) so)
      ro : RoG s
      ro b g C _ p = subst (λ m → RLt (suc g) (cur m)) (sym (re p)) tt
      nil-++ : ∀ (T : List Cell) → [] ≡ T ++ [] → T ≡ []
      nil-++ [] _ = refl
      cv : CvR s ([] , [])
      cv b g C T [] pk′ (pe , _) sh cl with nil-++ T (trans (sym (cong (map cur) dre)) pe)
      ... | refl = subst (λ cs → CmV g (recM g C [] [] s) (λ p → sync (dat s p)) (map cur cs)) (sym dre) tt
      cv b g C T (_ ∷ _) pk′ ps () cl

obligationsX-RI : ObligationsX
obligationsX-RI = record
  { AR = ARX ; CR = CRP ; RI = RIX ; CI = CIX
  ; AR⇒≈ = λ {S} {t} ar → OX.AR⇒≈ {S} {t} ar
  ; init-CR = λ {S} {t} n n′ → OX.init-CR {S} {t} n n′
  ; init-CI = λ {S} n → SB.⟨ (λ _ → d0) , (λ _ → d0) , [] , 0 ⟩ , OX.init-CR {S} {SB.⟨ (λ _ → d0) , (λ _ → d0) , [] , 0 ⟩} n (refl , refl) , ch-new {S} n
  ; A-ok = λ u {S} {t} {S'} ar _ o → OX.A-ok u {S} {t} {S'} ar tt o
  ; A-crash = λ u {S} {t} {S'} ar _ c → OX.A-crash u {S} {t} {S'} ar tt c
  ; A-rec = λ {S} {t} {S'} cr _ o → OX.A-rec {S} {t} {S'} cr tt o
  ; A-recᶜ = λ {S} {t} {S'} cr _ c → OX.A-recᶜ {S} {t} {S'} cr tt c
  ; B-ok = λ u {S} {S'} (t , ar , y) o →
      let A = OX.A-ok u {S} {t} {S'} ar tt o in
      proj₁ A , proj₂ (proj₂ A) , rixg-X u {S} {t} {S'} {proj₁ A} ar y o (proj₂ (proj₂ A))
  ; B-crash = λ u {S} {S'} (t , ar , y) c →
      let A = OX.A-crash u {S} {t} {S'} ar tt c in
      proj₁ A , proj₂ (proj₂ A) , ch-crash u {S} {t} {S'} ar y c
  ; B-rec = λ {S} {S'} (t , cr , ch) o →
      let A = OX.A-rec {S} {t} {S'} cr tt o in
      proj₁ A , proj₂ (proj₂ A) , ch-done {S} {S'} {proj₁ A} ch o (ivX {S'} {proj₁ A} (proj₂ (proj₂ A)))
  ; B-recᶜ = λ {S} {S'} (t , cr , ch) c →
      let A = OX.A-recᶜ {S} {t} {S'} cr tt c in
      proj₁ A , proj₂ (proj₂ A) ,
      ch-rec {S} {t} {S'} cr ch (λ {S3} o3 → let R = OX.A-rec {S} {t} {S3} cr tt o3 in proj₁ R , ivX {S3} {proj₁ R} (proj₂ (proj₂ R))) c
  }

-- Theorem 1 for PUSBic again, now through the forward simulation whose
-- representation invariant is the bridge's
theorem1-PUSBic-RI : SB.CorrespondenceB.BehaviourallyCorrect PUSBic SB.SB
theorem1-PUSBic-RI = SB.theorem1-SB PUSBic obligationsX-RI
