{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: PL's recovery without a full checkpoint, where P's may go
-- without one.
--
-- PL's recovery (SCFTL.Impl.LazyChainModel, `okPL recover`) always ends
-- in a full checkpoint (`ck3 (rec0L b g C s)`).  P's recovery may go on
-- in the same generation, with no checkpoint, when it dropped no
-- committed page (`clean`) and no record of the generation lies where
-- its walk looks, at or past the link of the newest commit it accepts,
-- nor at or past the pages the region names (`Quiet`): the second branch
-- of `okP recover`.  The code does that in the chain phase too
-- (scftl/mod.rs `settle_recovery`, `recovery_needs_checkpoint`: a
-- checkpoint only for a fall-back, a tainted image, unsettled verified
-- epochs, a region short of room, or a record found past the newest
-- commit, applied or not), so a crash after a lazy commit and the
-- consolidation page that ended its chain recovers without one.  Here:
--
--   * `PLq`: PL whose recovery may also be P's clean one (`CleanRec`:
--     `okP recover`'s second branch on the flash as it is);
--   * `quiet-walk`: where `Quiet` holds, recovery's walk along the chain
--     finds no record, so PL's virtually consolidated flash is the flash
--     itself and PL's crash relation is P's (`CRL` gives `CR s t`), and
--     PL's rebuilt state is P's (`rec0L-quiet`: so the crash points of
--     the recovery without a checkpoint are PL's recovery's first one,
--     as in P: SCFTL.Impl.CrashPoints);
--   * `pl-clean-A`, `pl-clean-B`: type A and B of the clean recovery (P's
--     `rec-A`, `rec-B` on its second branch);
--   * `theorem1-PLq`, `PLq-snapshot-consistent`: Theorem 1 and snapshot
--     consistency for PLq.
--
-- PLq's other steps, its crash points and its invariants are PL's; the
-- one model with this recovery in its chain phase is SCFTL.Impl.
-- OneModelCleanRec (PXq).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainCleanRec (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                    (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (zero; suc)
open import Data.Bool.Base using (Bool; true)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (seek-none)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; CR; CR⇒CI; AR-tOf)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (AR⇒≈'; rec-A; rec-B)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (follow)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (Rof; Dof)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (CRL; pl-rec-A; pl-rec-B)
open import SCFTL.Impl.LazyChainCrashKons Data d0 amax wmax kmax _≟D_ kc using (pl-rec-crash)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc
  using (RIL; CIL; step-L; crash-L; init-CRL; init-CIL)
open import SCFTL.Impl.LazyChainTheorem Data d0 amax wmax kmax _≟D_ kc using (landed-ok)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (S; State; okS; use; recover; Model; Op; SnapshotConsistent; obligations⇒SC; new-disk)

------------------------------------------------------------------------
-- PLq: PL whose recovery may also be P's clean one

-- P's recovery without the full checkpoint (`okP recover`'s second
-- branch): no committed page dropped, no record where the walk looks
CleanRec : St → St → Set
CleanRec s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  clean g (λ p → cur (dat s p)) (map cur (dr s)) ≡ true × Quiet g s × s' ≡ rec0 b g C s

okPLq : Op → St → St → Set
okPLq (use u)  = okPL EraseGuard (use u)
okPLq recover s s' = okPL EraseGuard recover s s' ⊎ CleanRec s s'

-- the crash points are PL's (the clean recovery issues nothing after
-- its first SYNC, whose crash `rec0L-quiet` makes PL's recovery's first)
crashPLq : Op → St → St → Set
crashPLq = crashPL EraseGuard

PLq : Model
PLq = record { State = St ; New = NewP ; read = rd ; ok = okPLq ; crash = crashPLq }

------------------------------------------------------------------------
-- Where Quiet holds, the walk finds nothing

private
  fol-nothing : ∀ k g R D → follow k g R D nothing ≡ []
  fol-nothing zero    g R D = refl
  fol-nothing (suc k) g R D = refl

  fol-none : ∀ k g R D x L → seek g omax R L ≡ nothing → follow k g R D (just (x , L)) ≡ []
  fol-none zero    g R D x L e = refl
  fol-none (suc k) g R D x L e rewrite e = refl

-- `quiet-walk`: recovery's walk along the chain applies no record
quiet-walk : ∀ {g s} → Quiet g s → walkG g s ≡ []
quiet-walk {g} {s} (q , _) = go (lkOf (acc g (Dof s) (map cur (dr s)))) refl
  where
    go : ∀ m → lkOf (acc g (Dof s) (map cur (dr s))) ≡ m → follow kc g (Rof s) (Dof s) m ≡ []
    go nothing        _ = fol-nothing kc g (Rof s) (Dof s)
    go (just (x , L)) e = fol-none kc g (Rof s) (Dof s) x L (seek-none g omax (Rof s) L (q x L e))

-- with no record walked, PL's rebuilt state is P's
rec0L-quiet : ∀ b g C s → walkG g s ≡ [] → rec0L b g C s ≡ rec0 b g C s
rec0L-quiet b g C s e = cong (λ vs → record (rec0 b g C (virt vs s)) { dr = map sync (dr s) }) e

-- and PL's crash relation is P's on the flash as it is
crl-quiet : ∀ {s t g} → walkG g s ≡ [] → CR (virt (walkG g s) s) t → CR s t
crl-quiet {s} {t} e cr = subst (λ vs → CR (virt vs s) t) e cr

------------------------------------------------------------------------
-- Type A and B of the clean recovery

pl-clean-A : ∀ {s t s'} → CRL s t → CleanRec s s' → Σ State λ t' → okS recover t t' × AR s' t'
pl-clean-A {s} {t} (b , g , C , pk , cr) (b' , g' , C' , pk' , cl , q , refl) with trans (sym pk) pk'
... | refl = rec-A {s} {t} {rec0 b g C s} (crl-quiet {s} {t} {g} (quiet-walk {g} {s} q) cr)
                   (b , g , C , pk , inj₂ (cl , q , refl))

pl-clean-B : ∀ {s t s'} → CRL s t → CleanRec s s' → RI s'
pl-clean-B {s} {t} (b , g , C , pk , cr) (b' , g' , C' , pk' , cl , q , refl) with trans (sym pk) pk'
... | refl = rec-B {s} {rec0 b g C s} (CR⇒CI {t = t} (crl-quiet {s} {t} {g} (quiet-walk {g} {s} q) cr))
                   (b , g , C , pk , inj₂ (cl , q , refl))

rec-Aq : ∀ {s t s'} → CRL s t → okPLq recover s s' → Σ State λ t' → okS recover t t' × AR s' t'
rec-Aq {s} {t} {s'} cr (inj₁ st) = pl-rec-A {EraseGuard} {s} {t} {s'} cr st
rec-Aq {s} {t} {s'} cr (inj₂ st) = pl-clean-A {s} {t} {s'} cr st

rec-Bq : ∀ {s s'} → CIL s → okPLq recover s s' → RIL s'
rec-Bq {s} {s'} (t , cr) (inj₁ st) = inj₁ (pl-rec-B {EraseGuard} {s} {t} {s'} cr st)
rec-Bq {s} {s'} (t , cr) (inj₂ st) = inj₁ (pl-clean-B {s} {t} {s'} cr st)

------------------------------------------------------------------------
-- Theorem 1 and snapshot consistency for PLq

open Sp.ForwardSimulation PLq S using (Obligations; theorem1)

obligations-PLq : Obligations
obligations-PLq = record
  { AR = AR ; CR = CRL ; RI = RIL ; CI = CIL
  ; AR⇒≈    = AR⇒≈'
  ; init-CR = λ {s} {t} → init-CRL {s} {t}
  ; init-CI = λ {s} → init-CIL {s}
  ; A-ok    = λ u arr r st → let (t' , st' , ar' , _) = step-L u arr r st in t' , st' , ar'
  ; A-crash = crash-L landed-ok
  ; A-rec   = λ {s} {t} {s'} cr _ st → rec-Aq {s} {t} {s'} cr st
  ; A-recᶜ  = λ {s} {t} {s'} cr _ c → pl-rec-crash {EraseGuard} {s} {t} {s'} cr c
  ; B-ok    = λ u {s} r st → proj₂ (proj₂ (proj₂ (step-L u (AR-tOf s) r st)))
  ; B-crash = λ u {s} r c → let (t' , _ , cr) = crash-L landed-ok u (AR-tOf s) r c in t' , cr
  ; B-rec   = λ {s} {s'} ci st → rec-Bq {s} {s'} ci st
  ; B-recᶜ  = λ {s} {s'} ci c → let (t' , _ , cr) = pl-rec-crash {EraseGuard} {s} {proj₁ ci} {s'} (proj₂ ci) c in t' , cr
  }

-- Theorem 1 for PLq: every behaviour of PL with the clean recovery is one of S's
theorem1-PLq : Sp.Correspondence.BehaviourallyCorrect PLq S
theorem1-PLq = theorem1 obligations-PLq new-disk

-- PLq is snapshot-consistent
PLq-snapshot-consistent : SnapshotConsistent PLq
PLq-snapshot-consistent = obligations⇒SC PLq obligations-PLq
