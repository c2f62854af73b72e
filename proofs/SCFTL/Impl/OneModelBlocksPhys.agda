{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: BXone with the physical read as its read (`BXφ`), Theorem
-- 1 and SC1B for it given ONE lemma about recovery, stated here as a
-- proposition (`RecoveredLocated`).
--
-- SCFTL.Impl.OneModelBlocksRead proves that the code's read through the
-- physical pages (`rdBX`) is PX's wherever every page the L2P maps is
-- located (`LocX`, `read-physical`), and that every operation but
-- recovery keeps `LocX` (`loc-ok`).  What it leaves is recovery, which
-- replaces the L2P by the map it rebuilds from flash.  Here:
--
--   ReachN, ReachC    the normal and the crash states reachable from a
--                     new disk (ReachC: the crash states other than a
--                     new disk itself)
--   RecoveredLocated  every recovery from a reachable crash state (not
--                     a new disk) ends with every mapped page located:
--                     the one lemma still missing (proofs/README.md,
--                     "Blocks in the one model")
--   first-located     it holds for the first recovery of a new disk:
--                     after any recovery every mapped page holds a
--                     sector (`mapped-sector`, from PX's invariants in
--                     both phases: PUSBic's `GcI.oobI`, P's `vOK`;
--                     `rec-pv`: recovery keeps every page's content and
--                     empties the merge buffer), so a crash state in
--                     which every page holding a sector is located
--                     (`SecLoc`) recovers to LocX (`secloc-rec`), and a
--                     new disk holds no sector at all
--   obligationsφ, theorem1-BXφ, BXφ-snapshot-consistent :
--                     given RecoveredLocated, the §4.4 obligations of
--                     BXφ against SB (BXone's relations with LocX in
--                     normal states and reachability), Theorem 1, SC1B
--
-- SCFTL.Impl.OneModelBlocksNamed derives RecoveredLocated from a lemma
-- about PX alone (`RecoveredNamed`: recovery names only pages the
-- crashed run's last normal state named), proving the block side;
-- SCFTL.Impl.OneModelRecMaps proves that lemma, and
-- SCFTL.Impl.OneModelBlocksFull states Theorem 1 and SC1B for BXφ
-- without it.
--
-- Why `SecLoc` is not the invariant that would prove RecoveredLocated:
-- it fails in reachable crash states.  A P page whose erase (PX's erase
-- step, inside a whole-block erase) has not been SYNCed may come back
-- with its old sector after a crash (P's `CrashD`), while its block was
-- erased and its physical page possibly reprogrammed: a page holding a
-- sector that is not located.  Recovery never maps such a page (the
-- two-phase GC erases only pages no recoverable map names), but saying
-- so needs every map recovery can return — the stable map, each
-- unsynced epoch's, the chain's — tracked as located, which is what
-- remains.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelBlocksPhys (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                     (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (true; false)
open import Data.Empty using (⊥-elim)
open import Data.Maybe.Base using (just)
open import Data.Nat.Base using (_≤_)
open import Data.Nat.Properties using (<-irrefl)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (l2p; dat; pv; oob; cur; nxt; Cell; dcell; erased; junk; dlt; cpt)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (module RI)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; GcI; module GcI)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb
  using (stX; BXone; obligationsBXone; module OPX)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LocX; InR; rdBX; read-physical; loc-ok; lt-nxt)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb using (here; forget; here-forget; inr-forget)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module M  = SB.Model BXone
  module OB = SB.ForwardSimulation.Obligations obligationsBXone

------------------------------------------------------------------------
-- The model: BXone whose read is the read through the physical pages

BXφ : SB.Model
BXφ = record { State = M.State ; New = M.New ; read = λ Y → rdBX (proj₁ Y) (proj₂ Y)
             ; ok = M.ok ; crash = M.crash }

LocY : M.State → Set
LocY Y = LocX (proj₁ Y) (proj₂ Y)

------------------------------------------------------------------------
-- Reachable states

data ReachN : M.State → Set
data ReachC : M.State → Set

data ReachN where
  first : ∀ {Y Y'} → M.New Y → M.ok SB.recover Y Y' → ReachN Y'
  after : ∀ {Y Y'} → ReachC Y → M.ok SB.recover Y Y' → ReachN Y'
  step  : ∀ u {Y Y'} → ReachN Y → M.ok (SB.use u) Y Y' → ReachN Y'

data ReachC where
  crashed    : ∀ u {Y Y'} → ReachN Y → M.crash (SB.use u) Y Y' → ReachC Y'
  crashed-new : ∀ {Y Y'} → M.New Y → M.crash SB.recover Y Y' → ReachC Y'
  crashed-rec : ∀ {Y Y'} → ReachC Y → M.crash SB.recover Y Y' → ReachC Y'

-- the lemma still missing
RecoveredLocated : Set
RecoveredLocated = ∀ {Y Y'} → ReachC Y → M.ok SB.recover Y Y' → LocY Y'

------------------------------------------------------------------------
-- After a recovery every mapped page holds a sector

IsSector : Cell → Set
IsSector c = Σ Data λ d → Σ ℕ λ a → c ≡ dcell d a

private
  oob-sector : ∀ c a → oob c ≡ a → a ≤ amax → IsSector c
  oob-sector (dcell d b) a e le = d , b , refl
  oob-sector erased a e le = ⊥-elim (<-irrefl refl (subst (_≤ amax) (sym e) le))
  oob-sector junk a e le = ⊥-elim (<-irrefl refl (subst (_≤ amax) (sym e) le))
  oob-sector (dlt _ _ _ _ _) a e le = ⊥-elim (<-irrefl refl (subst (_≤ amax) (sym e) le))
  oob-sector (cpt _ _) a e le = ⊥-elim (<-irrefl refl (subst (_≤ amax) (sym e) le))

-- in every normal state of PX a mapped page holds a sector of its address
mapped-sector : ∀ {X} → OPX.RI X → ∀ a p → a ≤ amax → l2p (stX X) a ≡ just p → oob (pv (stX X) p) ≡ a
mapped-sector {false , S} (t , ar , _) a p le e = GcI.oobI gc a p le e
  where
    gc : GcI (stX (false , S))
    gc = proj₁ (proj₁ (proj₂ (proj₁ (ivX {S} {t} ar))))
mapped-sector {true , S} (_ , inj₁ ri) a p le e = cong oob (proj₂ (proj₂ (RI.vOK ri a p le e)))
mapped-sector {true , S} (_ , inj₂ (_ , ri , _)) a p le e = cong oob (proj₂ (proj₂ (RI.vOK ri a p le e)))

-- recovery keeps every data page's content and empties the merge buffer
rec-pv : ∀ {X bl X' bl'} → M.ok SB.recover (X , bl) (X' , bl') → ∀ p → pv (stX X') p ≡ cur (dat (stX X) p)
rec-pv {false , S} ((refl , inj₁ ((b , g , C , _ , T , es' , _ , _ , e) , _ , _)) , _) p = cong (λ s → pv s p) e
rec-pv {false , S} ((refl , inj₂ ((b , g , C , _ , T , es' , _ , _ , _ , _ , e) , _ , _)) , _) p = cong (λ s → pv s p) e
rec-pv {true , S} ((refl , _ , s' , e , (b , g , C , _ , e')) , _) p =
  trans (cong (λ z → pv (st (su z)) p) e) (cong (λ s → pv s p) e')

------------------------------------------------------------------------
-- A crash state whose every page holding a sector is located recovers
-- to LocX; a new disk is one

SecLoc : M.State → Set
SecLoc (X , bl) = ∀ p → IsSector (cur (dat (stX X) p)) → here bl p ≡ true × InR bl p

secloc-rec : ∀ {Y Y'} → OB.CI Y → SecLoc Y → M.ok SB.recover Y Y' → LocY Y'
secloc-rec {X , bl} {X' , .(forget (nxt (stX X')) bl)} ci sl o@(o′ , refl) a p le e =
  here-forget bl (nxt (stX X')) p (proj₁ L) lt , inr-forget bl (nxt (stX X')) p (proj₁ L) (proj₂ L) lt
  where
    ri = proj₁ (OB.B-rec {X , bl} {X' , forget (nxt (stX X')) bl} ci o)
    lt = lt-nxt {X'} ri a p le e
    L = sl p (subst IsSector (rec-pv {X} {bl} {X'} {forget (nxt (stX X')) bl} o p)
              (oob-sector (pv (stX X') p) a (mapped-sector {X'} ri a p le e) le))

new-secloc : ∀ {Y} → M.New Y → SecLoc Y
new-secloc {X , bl} (_ , _ , er) p (d , a , e) with trans (sym (cong cur (er p))) e
... | ()

first-located : ∀ {Y Y'} → M.New Y → M.ok SB.recover Y Y' → LocY Y'
first-located {Y} n o = secloc-rec {Y} (OB.init-CI {Y} n) (new-secloc {Y} n) o

------------------------------------------------------------------------
-- The obligations of §4.4 for BXφ, given RecoveredLocated

ARφ : M.State → SB.State → Set
ARφ Y t = OB.AR Y t × LocY Y

RIφ CIφ : M.State → Set
RIφ Y = OB.RI Y × LocY Y × ReachN Y
CIφ Y = OB.CI Y × (M.New Y ⊎ ReachC Y)

module FBφ = SB.ForwardSimulation BXφ SB.SB

module _ (rl : RecoveredLocated) where

  private
    rec-loc : ∀ {Y Y'} → (M.New Y ⊎ ReachC Y) → M.ok SB.recover Y Y' → LocY Y'
    rec-loc {Y} (inj₁ n) o = first-located {Y} n o
    rec-loc (inj₂ r) o = rl r o

    rec-reach : ∀ {Y Y'} → (M.New Y ⊎ ReachC Y) → M.ok SB.recover Y Y' → ReachN Y'
    rec-reach (inj₁ n) o = first n o
    rec-reach (inj₂ r) o = after r o

    recᶜ-reach : ∀ {Y Y'} → (M.New Y ⊎ ReachC Y) → M.crash SB.recover Y Y' → ReachC Y'
    recᶜ-reach (inj₁ n) c = crashed-new n c
    recᶜ-reach (inj₂ r) c = crashed-rec r c

  obligationsφ : FBφ.Obligations
  obligationsφ = record
    { AR = ARφ ; CR = OB.CR ; RI = RIφ ; CI = CIφ
    ; AR⇒≈ = λ {Y} {t} ar a le → trans (read-physical {proj₁ Y} {proj₂ Y} (proj₂ ar) a le) (OB.AR⇒≈ {Y} {t} (proj₁ ar) a le)
    ; init-CR = λ {Y} {t} n nt → OB.init-CR {Y} {t} n nt
    ; init-CI = λ {Y} n → OB.init-CI {Y} n , inj₁ n
    ; A-ok = λ u {Y} {t} {Y'} ar ri o →
        let r = OB.A-ok u {Y} {t} {Y'} (proj₁ ar) (proj₁ ri) o in
        proj₁ r , proj₁ (proj₂ r) , proj₂ (proj₂ r) ,
        loc-ok u {proj₁ Y} {proj₁ Y'} {proj₂ Y} {proj₂ Y'} (proj₁ (proj₁ ri)) (proj₂ ar) o
    ; A-crash = λ u {Y} {t} {Y'} ar ri c → OB.A-crash u {Y} {t} {Y'} (proj₁ ar) (proj₁ ri) c
    ; A-rec = λ {Y} {t} {Y'} cr ci o →
        let r = OB.A-rec {Y} {t} {Y'} cr (proj₁ ci) o in
        proj₁ r , proj₁ (proj₂ r) , proj₂ (proj₂ r) , rec-loc {Y} {Y'} (proj₂ ci) o
    ; A-recᶜ = λ {Y} {t} {Y'} cr ci c → OB.A-recᶜ {Y} {t} {Y'} cr (proj₁ ci) c
    ; B-ok = λ u {Y} {Y'} ri o →
        OB.B-ok u {Y} {Y'} (proj₁ ri) o ,
        loc-ok u {proj₁ Y} {proj₁ Y'} {proj₂ Y} {proj₂ Y'} (proj₁ (proj₁ ri)) (proj₁ (proj₂ ri)) o ,
        step u (proj₂ (proj₂ ri)) o
    ; B-crash = λ u {Y} {Y'} ri c → OB.B-crash u {Y} {Y'} (proj₁ ri) c , inj₂ (crashed u (proj₂ (proj₂ ri)) c)
    ; B-rec = λ {Y} {Y'} ci o → OB.B-rec {Y} {Y'} (proj₁ ci) o , rec-loc {Y} {Y'} (proj₂ ci) o , rec-reach (proj₂ ci) o
    ; B-recᶜ = λ {Y} {Y'} ci c → OB.B-recᶜ {Y} {Y'} (proj₁ ci) c , inj₂ (recᶜ-reach (proj₂ ci) c)
    }

  -- Theorem 1 for BXone with physical reads, and SC1B, given the lemma
  theorem1-BXφ : SB.CorrespondenceB.BehaviourallyCorrect BXφ SB.SB
  theorem1-BXφ = SB.theorem1-SB BXφ obligationsφ

  BXφ-snapshot-consistent : SB.SnapshotConsistentB BXφ
  BXφ-snapshot-consistent = SB.obligations⇒SCB BXφ obligationsφ
