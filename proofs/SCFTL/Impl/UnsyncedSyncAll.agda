{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: PUSBic, every mechanism of the PU family in
-- ONE model — PUSic (the barrier without SYNC, the forced barrier, the
-- flush with or without its full checkpoint, the SYNC outside a commit,
-- P's in-page and OOB commits where no epoch is unsynced, recovery with
-- or without the full checkpoint, every flash command boundary of every
-- operation a crash point) with PUSB's SYNC that proves only the oldest
-- unsynced epochs (the sync behind and detached flush's ticket,
-- `note_ticket_sync`; SCFTL.Impl.UnsyncedSyncBehind) beside the full one.
--
--   okX, crashX   PUSic's steps and crashes; SB's `sy` is PUSic's full
--                 SYNC or PUSB's partial one (`PartSy`, `PartSyᶜ`)
--   ARX           PUSic's AR (ARS with RcS) and OobA (OobU for every
--                 prefix of the epochs, which the partial SYNC needs):
--                 every step of PUSic keeps it (`oobA-ok` for PU's own
--                 steps; no epoch unsynced after the others, `oobA-nil`)
--   theorem1-PUSBic, PUSBic-snapshot-consistent: Theorem 1 against SB
--                 and SC1B
--
-- Still beside it: PL's lazy chain (SCFTL.Impl.LazyChainModel), and P's
-- own model for the paths without barriers (SCFTL.Impl.Theorem).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedSyncAll (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                  (_≟D_ : DecidableEquality Data) where

open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; length)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; cong)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (SyI; OobA; oobA⇒U; oobA-nil; oobA-ok)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_
  using (SU; ⟦_,_⟧; su; gh; ghostN; NewPU; okM⇒okU; ARP; CRP; crash-normal-G)
open import SCFTL.Impl.UnsyncedSyncInPage Data d0 amax wmax kmax umax _≟D_ using (okSi; FiOk)
open import SCFTL.Impl.UnsyncedSyncInPageCommands Data d0 amax wmax kmax umax _≟D_
  using (crashSic; ARSi; obligationsSic)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_
  using (syBU; PartSy; PartSyᶜ; tB; syB-SB; syncB-Inv; syncB-GenR; syncB-OobA; syncB-crash)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The model

okX : SB.Op → SU → SU → Set
okX (SB.use (SB.reg (SB.op SB.sy))) S S' = okSi (SB.use (SB.reg (SB.op SB.sy))) S S' ⊎ PartSy S S'
okX o = okSi o

crashX : SB.Op → SU → SU → Set
crashX (SB.use (SB.reg (SB.op SB.sy))) S S' =
  crashSic (SB.use (SB.reg (SB.op SB.sy))) S S' ⊎ (PartSyᶜ S S' × ues (su S') ≡ [])
crashX o = crashSic o

PUSBic : SB.Model
PUSBic = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okX ; crash = crashX }

open SB.ForwardSimulation PUSBic SB.SB using () renaming (Obligations to ObligationsX)

ARX : SU → SB.State → Set
ARX S t = ARSi S t × OobA (su S)

private
  module OS = SB.ForwardSimulation.Obligations obligationsSic

  -- the stable L2P's pages durable, of an AR
  syI-of : ∀ {S t} → ARP S t → SyI (st (su S))
  syI-of iv = proj₂ (proj₂ (proj₂ (proj₂ (proj₁ (proj₂ (proj₁ iv))))))

  -- a flush of P's in-page or OOB commit leaves no epoch unsynced
  fi-nil : ∀ {s s'} → FiOk s s' → ues s' ≡ []
  fi-nil (_ , M , _ , inj₁ refl) = refl
  fi-nil (_ , M , _ , inj₂ refl) = refl

  -- OobA after one of PUSic's steps other than the SYNC
  oobA-si : ∀ u {S t S' t'} → ARP S t → ARP S' t' → okSi (SB.use u) S S' → OobA (su S) → OobA (su S')
  oobA-si (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} iv iv' o ob =
    oobA-ok (SB.reg (SB.op (SB.w a d))) {su S} {t} {su S'} (proj₁ (proj₂ (proj₁ iv))) (okM⇒okU (SB.reg (SB.op (SB.w a d))) {su S} {su S'} (proj₁ o)) ob
  oobA-si (SB.reg (SB.op SB.rl)) {S} {t} {S'} iv iv' o ob =
    oobA-ok (SB.reg (SB.op SB.rl)) {su S} {t} {su S'} (proj₁ (proj₂ (proj₁ iv))) (okM⇒okU (SB.reg (SB.op SB.rl)) {su S} {su S'} (proj₁ o)) ob
  oobA-si (SB.reg (SB.op SB.es)) {S} {t} {S'} iv iv' o ob =
    oobA-ok (SB.reg (SB.op SB.es)) {su S} {t} {su S'} (proj₁ (proj₂ (proj₁ iv))) (okM⇒okU (SB.reg (SB.op SB.es)) {su S} {su S'} (proj₁ o)) ob
  oobA-si (SB.reg (SB.op SB.sy)) {S} {t} {S'} iv iv' (r , rel , e , _) ob =
    oobA-nil (su S') (cong ues e) (syI-of {S'} iv')
  oobA-si (SB.reg SB.barrier) {S} {t} {S'} iv iv' o ob =
    oobA-ok (SB.reg SB.barrier) {su S} {t} {su S'} (proj₁ (proj₂ (proj₁ iv))) (okM⇒okU (SB.reg SB.barrier) {su S} {su S'} (proj₁ o)) ob
  oobA-si SB.flush {S} {t} {S'} iv iv' (inj₁ o) ob =
    oobA-ok SB.flush {su S} {t} {su S'} (proj₁ (proj₂ (proj₁ iv))) (okM⇒okU SB.flush {su S} {su S'} (proj₁ o)) ob
  oobA-si SB.flush {S} {t} {S'} iv iv' (inj₂ (f , _)) ob =
    oobA-nil (su S') (fi-nil {su S} {su S'} f) (syI-of {S'} iv')

  AX-ok : ∀ u {S t S'} → ARX S t → ⊤ → okX (SB.use u) S S' → Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARX S' t'
  AX-ok (SB.reg (SB.op SB.sy)) {⟦ ⟪ u , .(xs ++ ys) ⟫ , g0 ⟧} {t} {⟦ .(syBU xs ys l r ⟪ u , xs ++ ys ⟫) , g ⟧}
        ((((iv , gr) , _) , rs) , ob) _ (inj₂ (xs , ys , l , r , refl , ld , rel , refl , _)) =
    tB (length xs) t , syB-SB (length xs) t ,
    (((syncB-Inv {u} {t} {xs} {ys} {l} {r} iv ld rel ob , syncB-GenR {u} {xs} {ys} {l} {r} gr) ,
       oobA⇒U (syBU xs ys l r ⟪ u , xs ++ ys ⟫) (syncB-OobA {u} {xs} {ys} {l} {r} ob)) , rs) ,
    syncB-OobA {u} {xs} {ys} {l} {r} ob
  AX-ok (SB.reg (SB.op SB.sy)) {S} {t} {S'} (ar , ob) _ (inj₁ o) =
    let A = OS.A-ok (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
    oobA-si (SB.reg (SB.op SB.sy)) {S} {t} {S'} (proj₁ (proj₁ ar)) (proj₁ (proj₁ (proj₂ (proj₂ A)))) o ob
  AX-ok (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} (ar , ob) _ o =
    let A = OS.A-ok (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
    oobA-si (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} (proj₁ (proj₁ ar)) (proj₁ (proj₁ (proj₂ (proj₂ A)))) o ob
  AX-ok (SB.reg (SB.op SB.rl)) {S} {t} {S'} (ar , ob) _ o =
    let A = OS.A-ok (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
    oobA-si (SB.reg (SB.op SB.rl)) {S} {t} {S'} (proj₁ (proj₁ ar)) (proj₁ (proj₁ (proj₂ (proj₂ A)))) o ob
  AX-ok (SB.reg (SB.op SB.es)) {S} {t} {S'} (ar , ob) _ o =
    let A = OS.A-ok (SB.reg (SB.op SB.es)) {S} {t} {S'} ar tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
    oobA-si (SB.reg (SB.op SB.es)) {S} {t} {S'} (proj₁ (proj₁ ar)) (proj₁ (proj₁ (proj₂ (proj₂ A)))) o ob
  AX-ok (SB.reg SB.barrier) {S} {t} {S'} (ar , ob) _ o =
    let A = OS.A-ok (SB.reg SB.barrier) {S} {t} {S'} ar tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
    oobA-si (SB.reg SB.barrier) {S} {t} {S'} (proj₁ (proj₁ ar)) (proj₁ (proj₁ (proj₂ (proj₂ A)))) o ob
  AX-ok SB.flush {S} {t} {S'} (ar , ob) _ o =
    let A = OS.A-ok SB.flush {S} {t} {S'} ar tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
    oobA-si SB.flush {S} {t} {S'} (proj₁ (proj₁ ar)) (proj₁ (proj₁ (proj₂ (proj₂ A)))) o ob

  AX-crash : ∀ u {S t S'} → ARX S t → ⊤ → crashX (SB.use u) S S' → Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRP S' t'
  AX-crash (SB.reg (SB.op SB.sy)) {⟦ ⟪ u , .(xs ++ ys) ⟫ , g0 ⟧} {t} {⟦ s' , .(ghostN (syBU xs ys l r ⟪ u , xs ++ ys ⟫)) ⟧}
           ((((iv , gr) , _) , _) , ob) _ (inj₂ ((xs , ys , l , r , refl , ld , rel , img , refl) , _)) =
    tB (length xs) t , inj₂ (length xs , refl , refl) ,
    syncB-crash {u} {t} {xs} {ys} {l} {r} {st s'} iv gr ld rel ob img
  AX-crash (SB.reg (SB.op SB.sy)) {S} {t} {S'} (ar , _) _ (inj₁ c) = OS.A-crash (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar tt c
  AX-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} (ar , _) _ c = OS.A-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar tt c
  AX-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} (ar , _) _ c = OS.A-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar tt c
  AX-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} (ar , _) _ c = OS.A-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} ar tt c
  AX-crash (SB.reg SB.barrier) {S} {t} {S'} (ar , _) _ c = OS.A-crash (SB.reg SB.barrier) {S} {t} {S'} ar tt c
  AX-crash SB.flush {S} {t} {S'} (ar , _) _ c = OS.A-crash SB.flush {S} {t} {S'} ar tt c

  -- recovery leaves no epoch unsynced
  rec-nil : ∀ {S S'} → okSi SB.recover S S' → ues (su S') ≡ []
  rec-nil (inj₁ (_ , eu , _)) = eu
  rec-nil (inj₂ (_ , eu , _)) = eu

  AX-rec : ∀ {S t S'} → CRP S t → ⊤ → okX SB.recover S S' → Σ SB.State λ t' → SB.okSB SB.recover t t' × ARX S' t'
  AX-rec {S} {t} {S'} cr _ o =
    let A = OS.A-rec {S} {t} {S'} cr tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
    oobA-nil (su S') (rec-nil {S} {S'} o) (syI-of {S'} (proj₁ (proj₁ (proj₂ (proj₂ A)))))

obligationsX : ObligationsX
obligationsX = record
  { AR = ARX ; CR = CRP ; RI = λ _ → ⊤ ; CI = λ _ → ⊤
  ; AR⇒≈ = λ {S} {t} ar → OS.AR⇒≈ {S} {t} (proj₁ ar)
  ; init-CR = λ {S} {t} n n′ → OS.init-CR {S} {t} n n′
  ; init-CI = λ _ → tt
  ; A-ok = AX-ok ; A-crash = AX-crash ; A-rec = λ {S} {t} {S'} → AX-rec {S} {t} {S'}
  ; A-recᶜ = λ {S} {t} {S'} → OS.A-recᶜ {S} {t} {S'}
  ; B-ok = λ _ _ _ → tt ; B-crash = λ _ _ _ → tt ; B-rec = λ _ _ → tt ; B-recᶜ = λ _ _ → tt
  }

-- Theorem 1 and SC1B for PU with every mechanism of its family: the
-- barrier without SYNC, the flush, the full SYNC and the SYNC that
-- proves the oldest epochs, the in-page/OOB commit after the SYNC,
-- recovery with or without the full checkpoint, every flash command
-- boundary a crash point
theorem1-PUSBic : SB.CorrespondenceB.BehaviourallyCorrect PUSBic SB.SB
theorem1-PUSBic = SB.theorem1-SB PUSBic obligationsX

PUSBic-snapshot-consistent : SB.SnapshotConsistentB PUSBic
PUSBic-snapshot-consistent = SB.obligations⇒SCB PUSBic obligationsX
