{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, space in the one model: the delta region's rules over the
-- top of the model stack, BXφ (blocks over PX, reads through the
-- physical pages: SCFTL.Impl.OneModelBlocksFull).
--
-- BXφR is BXφ whose steps keep the code's region rules: a step of BXφ
-- whose PX step is one of PXR (SCFTL.Impl.SpaceRegionOne); a block
-- erase (PX's erase steps, one per page of the block) asks nothing, as
-- PXR's erase does not.  Its invariant is BXφ's with PXR's region
-- invariant `RInvQ` of the PX state inside: every step keeps it (a
-- block erase page by page), every recovery makes it.
--
--   `obligationsBXφR`, `theorem1-BXφR`, `BXφR-snapshot-consistent` :
--             Theorem 1 against SB and SC1B for BXφR (BXφ's obligations,
--             RI extended by RInvQ);
--   `roomB`  : in every state of the invariant a region page is free
--             (in the chain phase, past the page the chain owes);
--   `crash-roomB`, `recᶜ-roomB` : no crash of a step from such a state
--             (a block erase's included), nor of a recovery from a state
--             within the region, leaves more than D pages in it
--             (SCFTL.Impl.SpaceRegionCrash);
--   `liftBφ`, `liftBφ-rec` : given (4) as epm + 1 <= D, the rules refuse no
--             operation of BXφ: every step of BXφ from a state of the
--             invariant has a step of BXφR with the same operation and
--             the same block bookkeeping (a write or relocation whose
--             tentative page the rule adds or drops takes the same data
--             page: `nxt` is the same), and every recovery has one.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRegionBlocks (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb pp D : ℕ) where

open import Data.Nat.Base using (suc; _+_; _≤_)
open import Data.Unit.Base using (⊤; tt)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; trans)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; nxt)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; okPX; RIQ)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb
  using (stX; module OPX; EsRunM; EsCrashM; one; _∷_; XB; Place)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb using (forget)
open import SCFTL.Impl.OneModelBlocksPhys Data d0 amax wmax kmax umax _≟D_ kc zb using (BXφ; obligationsφ)
open import SCFTL.Impl.OneModelBlocksFull Data d0 amax wmax kmax umax _≟D_ kc zb using (recovered-located-all)
open import SCFTL.Impl.SpaceRegion Data d0 amax wmax kmax _≟D_ pp D using (drL; epm)
open import SCFTL.Impl.SpaceRegionOne Data d0 amax wmax kmax umax _≟D_ kc pp D
  using (okPXR; RInvQ; B-okR; B-recR; roomX; fgt; fgt-rec; liftPX; liftPX-rec; liftPX-nxt-w; liftPX-nxt-rl)
open import SCFTL.Impl.SpaceRegionCrash Data d0 amax wmax kmax umax _≟D_ kc pp D using (crash-roomPX; recᶜ-roomPX)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module M  = SB.Model BXφ
  module Oφ = SB.ForwardSimulation.Obligations (obligationsφ recovered-located-all)

------------------------------------------------------------------------
-- The model

-- the region rules on the PX step inside a step of BXφ (a block erase
-- asks nothing)
RuleB : SB.Op → XB → XB → Set
RuleB (SB.use (SB.reg (SB.op SB.es))) _ _ = ⊤
RuleB o (X , _) (X' , _) = okPXR o X X'

okBφR : SB.Op → XB → XB → Set
okBφR o Y Y' = M.ok o Y Y' × RuleB o Y Y'

BXφR : SB.Model
BXφR = record { State = XB ; New = M.New ; read = M.read ; ok = okBφR ; crash = M.crash }

------------------------------------------------------------------------
-- The invariant

private
  -- PX's erase step keeps the rules (PXR's erase asks nothing)
  es-R : ∀ {X X'} → okPX (SB.use (SB.reg (SB.op SB.es))) X X' → okPXR (SB.use (SB.reg (SB.op SB.es))) X X'
  es-R (inj₁ (e , S0 , p , o)) = inj₁ (e , S0 , p , o , tt)
  es-R (inj₂ (e , eu , s' , eS , o)) = inj₂ (e , eu , s' , eS , o , tt)

  -- a block erase, page by page
  es-run : ∀ {X ps X'} → RIQ X → RInvQ X → EsRunM X ps X' → RInvQ X'
  es-run r I (one (o , _)) = B-okR (SB.reg (SB.op SB.es)) (r , I) (es-R o)
  es-run r I ((o , _) ∷ rs) =
    es-run (OPX.B-ok (SB.reg (SB.op SB.es)) r o) (B-okR (SB.reg (SB.op SB.es)) (r , I) (es-R o)) rs

  -- PX's invariant inside BXφ's
  riq : ∀ {Y} → Oφ.RI Y → RIQ (proj₁ Y)
  riq ri = proj₁ (proj₁ ri)

B-okB : ∀ u {Y Y'} → Oφ.RI Y → RInvQ (proj₁ Y) → okBφR (SB.use u) Y Y' → RInvQ (proj₁ Y')
B-okB (SB.reg (SB.op (SB.w a d))) ri I (_ , k) = B-okR (SB.reg (SB.op (SB.w a d))) (riq ri , I) k
B-okB (SB.reg (SB.op SB.rl)) ri I (_ , k) = B-okR (SB.reg (SB.op SB.rl)) (riq ri , I) k
B-okB (SB.reg (SB.op SB.es)) ri I ((_ , r , _) , _) = es-run (riq ri) I r
B-okB (SB.reg (SB.op SB.sy)) ri I (_ , k) = B-okR (SB.reg (SB.op SB.sy)) (riq ri , I) k
B-okB (SB.reg SB.barrier) ri I (_ , k) = B-okR (SB.reg SB.barrier) (riq ri , I) k
B-okB SB.flush ri I (_ , k) = B-okR SB.flush (riq ri , I) k

B-recB : ∀ {Y Y'} → okBφR SB.recover Y Y' → RInvQ (proj₁ Y')
B-recB {X , _} {X' , _} (_ , k) = B-recR {X} {X'} k

-- **The room theorem** in BXφ's states
roomB : ∀ (Y : XB) → RInvQ (proj₁ Y) → suc (drL (stX (proj₁ Y))) ≤ D
roomB Y I = roomX (proj₁ Y) I

-- **No crash of BXφ leaves more than D pages in the region**: every
-- crash of a step from a state of the invariant (PX's crash under it;
-- a block erase's: PX's erase steps, then a crashed one), and every
-- crash of a recovery from a state within the region
private
  es-crash : ∀ {X ps X'} → RIQ X → RInvQ X → EsCrashM X ps X' → drL (stX X') ≤ D
  es-crash r I (one c) = crash-roomPX (SB.reg (SB.op SB.es)) r I c
  es-crash r I ((o , _) ∷ cs) =
    es-crash (OPX.B-ok (SB.reg (SB.op SB.es)) r o) (B-okR (SB.reg (SB.op SB.es)) (r , I) (es-R o)) cs

crash-roomB : ∀ u {Y Y'} → Oφ.RI Y → RInvQ (proj₁ Y) → M.crash (SB.use u) Y Y' → drL (stX (proj₁ Y')) ≤ D
crash-roomB (SB.reg (SB.op (SB.w a d))) ri I (c , _) = crash-roomPX (SB.reg (SB.op (SB.w a d))) (riq ri) I c
crash-roomB (SB.reg (SB.op SB.rl)) ri I (c , _) = crash-roomPX (SB.reg (SB.op SB.rl)) (riq ri) I c
crash-roomB (SB.reg (SB.op SB.es)) ri I (_ , _ , c , _) = es-crash (riq ri) I c
crash-roomB (SB.reg (SB.op SB.sy)) ri I (c , _) = crash-roomPX (SB.reg (SB.op SB.sy)) (riq ri) I c
crash-roomB (SB.reg SB.barrier) ri I (c , _) = crash-roomPX (SB.reg SB.barrier) (riq ri) I c
crash-roomB SB.flush ri I (c , _) = crash-roomPX SB.flush (riq ri) I c

recᶜ-roomB : ∀ {Y Y'} → drL (stX (proj₁ Y)) ≤ D → M.crash SB.recover Y Y' → drL (stX (proj₁ Y')) ≤ D
recᶜ-roomB {X , _} {X' , _} le (c , _) = recᶜ-roomPX {X} {X'} le c

------------------------------------------------------------------------
-- The obligations, Theorem 1 and snapshot consistency for BXφR

open SB.ForwardSimulation BXφR SB.SB using () renaming (Obligations to ObligationsBXφR)

obligationsBXφR : ObligationsBXφR
obligationsBXφR = record
  { AR = Oφ.AR ; CR = Oφ.CR
  ; RI = λ Y → Oφ.RI Y × RInvQ (proj₁ Y)
  ; CI = Oφ.CI
  ; AR⇒≈ = λ {Y} {t} a → Oφ.AR⇒≈ {Y} {t} a
  ; init-CR = λ {Y} {t} → Oφ.init-CR {Y} {t}
  ; init-CI = λ {Y} → Oφ.init-CI {Y}
  ; A-ok = λ u ar ri k → Oφ.A-ok u ar (proj₁ ri) (proj₁ k)
  ; A-crash = λ u ar ri c → Oφ.A-crash u ar (proj₁ ri) c
  ; A-rec = λ {Y} {t} {Y'} cr ci k → Oφ.A-rec {Y} {t} {Y'} cr ci (proj₁ k)
  ; A-recᶜ = λ {Y} {t} {Y'} cr ci c → Oφ.A-recᶜ {Y} {t} {Y'} cr ci c
  ; B-ok = λ u ri k → Oφ.B-ok u (proj₁ ri) (proj₁ k) , B-okB u (proj₁ ri) (proj₂ ri) k
  ; B-crash = λ u ri c → Oφ.B-crash u (proj₁ ri) c
  ; B-rec = λ {Y} {Y'} ci k → Oφ.B-rec {Y} {Y'} ci (proj₁ k) , B-recB {Y} {Y'} k
  ; B-recᶜ = λ {Y} {Y'} ci c → Oφ.B-recᶜ {Y} {Y'} ci c
  }

theorem1-BXφR : SB.CorrespondenceB.BehaviourallyCorrect BXφR SB.SB
theorem1-BXφR = SB.theorem1-SB BXφR obligationsBXφR

BXφR-snapshot-consistent : SB.SnapshotConsistentB BXφR
BXφR-snapshot-consistent = SB.obligations⇒SCB BXφR obligationsBXφR

------------------------------------------------------------------------
-- The rules refuse no operation

private
  -- a placement read off the next page alone
  place-nxt : ∀ {X X' X'' bl bl'} → nxt (stX X'') ≡ nxt (stX X') → Place X X' bl bl' → Place X X'' bl bl'
  place-nxt eq (inj₁ (e , a)) = inj₁ (trans eq e , a)
  place-nxt eq (inj₂ (e , b)) = inj₂ (trans eq e , b)

module _ (c4 : suc epm ≤ D) where

  -- for every step of BXφ from a state of the invariant there is a step
  -- of BXφR with the same operation: PXR's step for the PX step inside
  -- (SpaceRegionOne's `liftPX`) with the same block bookkeeping — a
  -- write or relocation takes the same next page (`liftPX-nxt-w`,
  -- `liftPX-nxt-rl`), so the same allocation; a block erase as it is
  liftBφ : ∀ u {Y Y'} → Oφ.RI Y → RInvQ (proj₁ Y) → M.ok (SB.use u) Y Y' → Σ XB λ Y'' → okBφR (SB.use u) Y Y''
  liftBφ (SB.reg (SB.op (SB.w a d))) {X , bl} {X' , bl'} ri I (o , pl) =
    (proj₁ L , bl') , (fgt u (proj₂ L) , place-nxt {X} {X'} {proj₁ L} (liftPX-nxt-w c4 a d {X} {X'} (riq ri) I o) pl) , proj₂ L
    where
    u = SB.reg (SB.op (SB.w a d))
    L = liftPX c4 u {X} {X'} (riq ri) I o
  liftBφ (SB.reg (SB.op SB.rl)) {X , bl} {X' , bl'} ri I (o , pl) =
    (proj₁ L , bl') , (fgt u (proj₂ L) , place-nxt {X} {X'} {proj₁ L} (liftPX-nxt-rl c4 {X} {X'} (riq ri) I o) pl) , proj₂ L
    where
    u = SB.reg (SB.op SB.rl)
    L = liftPX c4 u {X} {X'} (riq ri) I o
  liftBφ (SB.reg (SB.op SB.es)) {Y} {Y'} ri I o = Y' , o , tt
  liftBφ (SB.reg (SB.op SB.sy)) {X , bl} {X' , .bl} ri I (o , refl) =
    (proj₁ L , bl) , (fgt _ (proj₂ L) , refl) , proj₂ L
    where L = liftPX c4 (SB.reg (SB.op SB.sy)) {X} {X'} (riq ri) I o
  liftBφ (SB.reg SB.barrier) {X , bl} {X' , .bl} ri I (o , refl) =
    (proj₁ L , bl) , (fgt _ (proj₂ L) , refl) , proj₂ L
    where L = liftPX c4 (SB.reg SB.barrier) {X} {X'} (riq ri) I o
  liftBφ SB.flush {X , bl} {X' , .bl} ri I (o , refl) =
    (proj₁ L , bl) , (fgt _ (proj₂ L) , refl) , proj₂ L
    where L = liftPX c4 SB.flush {X} {X'} (riq ri) I o

  -- every recovery of BXφ has one of BXφR from the same state (the block
  -- bookkeeping forgets what the recovered state does not hold)
  liftBφ-rec : ∀ {Y Y'} → M.ok SB.recover Y Y' → Σ XB λ Y'' → okBφR SB.recover Y Y''
  liftBφ-rec {X , bl} {X' , _} (o , refl) =
    (proj₁ L , forget (nxt (stX (proj₁ L))) bl) , (fgt-rec {X} {proj₁ L} (proj₂ L) , refl) , proj₂ L
    where L = liftPX-rec c4 {X} {X'} o
