{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, route (c) of "Not done", item 1 (i): the code's erase hold
-- and its way out, in PL.
--
-- The code keeps PL's erase guard by a rule of its own, the erase hold
-- (docs/FORMAT.md §4.3; scftl/mod.rs `erase_bound`): while the lazy
-- chain waits for its consolidation page, no superblock that became
-- erasable at a commit of the chain is erased (and after a reopen that
-- kept the chain's tail, none at all).  When a superblock must be taken
-- and only held ones are left, the code writes the chain's consolidation
-- page and syncs it first (`release_hold`), then erases.  In PL that
-- consolidation is `konsS` alone, which PL has only inside a flush and
-- a tentative page (`optL`).  Here:
--
--   * `PLk`: PL whose erase may follow a standalone consolidation step
--     (`okPLk`; its crash points: before the consolidation page's SYNC,
--     after it, and the erase's);
--   * `kons-guard`: after the consolidation step of a nonempty chain,
--     PL's erase guard holds of every page (the region's newest commit
--     is the consolidation page, whose digest names no page, and the
--     chain is empty) — why the way out frees every held superblock;
--   * `theorem1-PLk`, `PLk-snapshot-consistent`: Theorem 1 and snapshot
--     consistency for PLk, the standalone consolidation a stutter of PL
--     (the state after it has P's RI, related to the same S state:
--     `kons-S-RI`, from `kS-recL` and `kS-cinv`).
--
-- Not proven here: that the hold itself implies `EraseGuard` on every
-- erase the code makes (the refinement oracle checks that argument's
-- premise after every commit: crashcheck's `PlGuard::premise`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainKonsErase (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                     (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.List.Base using (List; []; _∷_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; AR-tOf)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (AR⇒≈'; reg-crashS)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (rv)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (AvoidAll; Avoid; []; _∷_)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainSteps Data d0 amax wmax kmax _≟D_ kc using (konsS-kS; kS-acc; kS-chainOf)
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc using (Phase; ph-rs; ph-cinv; ph-y; ph-E)
open import SCFTL.Impl.LazyChainKons Data d0 amax wmax kmax _≟D_ kc using (ri-chain-free; konsS-free)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (CRL; free-crash-CRL; pl-rec-A; pl-rec-B)
open import SCFTL.Impl.LazyChainCrashSteps Data d0 amax wmax kmax _≟D_ kc using (konsI-free)
open import SCFTL.Impl.LazyChainCrashKons Data d0 amax wmax kmax _≟D_ kc
  using (ph-RL; kons-S-RI; kons-crash-CRL; pl-rec-crash)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc
  using (RIL; CIL; step-L; crash-L; init-CRL; init-CIL)
open import SCFTL.Impl.LazyChainTheorem Data d0 amax wmax kmax _≟D_ kc using (landed-ok)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (S; State; okS; crashS; use; flush; recover; w; rl; es; Model; Op; SnapshotConsistent;
               obligations⇒SC; new-disk)
  renaming (reg to regop)

------------------------------------------------------------------------
-- PLk: the erase may follow the chain's consolidation page, synced

okPLk : Op → St → St → Set
okPLk (use (regop (w a d))) = okPL EraseGuard (use (regop (w a d)))
okPLk (use (regop rl))      = okPL EraseGuard (use (regop rl))
okPLk (use (regop es)) s s' =
  okPL EraseGuard (use (regop es)) s s' ⊎ okPL EraseGuard (use (regop es)) (konsS s) s'
okPLk (use flush)           = okPL EraseGuard (use flush)
okPLk recover               = okPL EraseGuard recover

-- the way out's crash points: before the consolidation page's SYNC,
-- after it, and the erase's after it
crashPLk : Op → St → St → Set
crashPLk (use (regop (w a d))) = crashPL EraseGuard (use (regop (w a d)))
crashPLk (use (regop rl))      = crashPL EraseGuard (use (regop rl))
crashPLk (use (regop es)) s s' =
    crashPL EraseGuard (use (regop es)) s s'
  ⊎ (Σ St λ m → (m ≡ konsI s ⊎ m ≡ konsS s) × Img m s')
  ⊎ crashPL EraseGuard (use (regop es)) (konsS s) s'
crashPLk (use flush)           = crashPL EraseGuard (use flush)
crashPLk recover               = crashPL EraseGuard recover

PLk : Model
PLk = record { State = St ; New = NewP ; read = rd ; ok = okPLk ; crash = crashPLk }

------------------------------------------------------------------------
-- After the way out, the guard holds of every page

-- `kons-guard`: from the chain phase with a nonempty chain, PL's
-- consolidation step leaves the consolidation page as the region's
-- newest commit (no digest entry) and no chain
kons-guard : ∀ {s} (ph : Phase s) → ph-rs ph ≢ [] → ∀ p → EraseGuard (konsS s) p
kons-guard {s} ph ne p =
  subst (λ u → EraseGuard u p) (sym (konsS-kS (ph-cinv ph) (ph-RL ph) ne))
        (subst (AvoidAll p) (sym (kS-chainOf (ph-cinv ph) cs')) [] ,
         subst (λ cs → AvoidAll p (topOf cs)) (sym (kS-acc s (ph-y ph) (ph-E ph) cs')) ([] ∷ []))
  where
    cs' = rv (ph-rs ph)

------------------------------------------------------------------------
-- The consolidation step is a stutter: P's RI, the same S state

kons-RIL : ∀ {s t} → AR s t → RIL s → AR (konsS s) t × RI (konsS s)
kons-RIL {s} {t} arr (inj₁ r) =
  subst (λ u → AR u t × RI u) (sym (konsS-free {s} (ri-chain-free r))) (arr , r)
kons-RIL arr (inj₂ (ph , r , nt)) = kons-S-RI ph arr r nt

-- a crash before the consolidation page's SYNC
kons-crash : ∀ {s t s'} → AR s t → RIL s → Img (konsI s) s' → CRL s' t
kons-crash {s} {t} {s'} arr (inj₁ r) img =
  free-crash-CRL {s} {s'} {t} arr r (subst (λ u → Img u s') (konsI-free {s} (ri-chain-free r)) img)
kons-crash arr (inj₂ (ph , r , nt)) img = kons-crash-CRL ph arr r nt img

step-Lk : ∀ u {s t s'} → AR s t → RIL s → okPLk (use u) s s' →
          Σ State λ t' → okS (use u) t t' × AR s' t' × RIL s'
step-Lk (regop (w a d)) arr r st = step-L (regop (w a d)) arr r st
step-Lk (regop rl)      arr r st = step-L (regop rl) arr r st
step-Lk (regop es)      arr r (inj₁ st) = step-L (regop es) arr r st
step-Lk (regop es)      arr r (inj₂ st) with kons-RIL arr r
... | ar' , r' = step-L (regop es) ar' (inj₁ r') st
step-Lk flush           arr r st = step-L flush arr r st

crash-Lk : ∀ u {s t s'} → AR s t → RIL s → crashPLk (use u) s s' →
           Σ State λ t' → crashS (use u) t t' × CRL s' t'
crash-Lk (regop (w a d)) arr r c = crash-L landed-ok (regop (w a d)) arr r c
crash-Lk (regop rl)      arr r c = crash-L landed-ok (regop rl) arr r c
crash-Lk (regop es)      arr r (inj₁ c) = crash-L landed-ok (regop es) arr r c
crash-Lk (regop es) {s} {t} arr r (inj₂ (inj₁ (m , inj₁ refl , img))) = t , reg-crashS es t , kons-crash arr r img
crash-Lk (regop es) {s} {t} {s'} arr r (inj₂ (inj₁ (m , inj₂ refl , img))) with kons-RIL arr r
... | ar' , r' = t , reg-crashS es t , free-crash-CRL {konsS s} {s'} {t} ar' r' img
crash-Lk (regop es)      arr r (inj₂ (inj₂ c)) with kons-RIL arr r
... | ar' , r' = crash-L landed-ok (regop es) ar' (inj₁ r') c
crash-Lk flush           arr r c = crash-L landed-ok flush arr r c

------------------------------------------------------------------------
-- Theorem 1 and snapshot consistency for PLk

open Sp.ForwardSimulation PLk S using (Obligations; theorem1)

obligations-PLk : Obligations
obligations-PLk = record
  { AR = AR ; CR = CRL ; RI = RIL ; CI = CIL
  ; AR⇒≈    = AR⇒≈'
  ; init-CR = λ {s} {t} → init-CRL {s} {t}
  ; init-CI = λ {s} → init-CIL {s}
  ; A-ok    = λ u arr r st → let (t' , st' , ar' , _) = step-Lk u arr r st in t' , st' , ar'
  ; A-crash = crash-Lk
  ; A-rec   = λ {s} {t} {s'} cr _ st → pl-rec-A {EraseGuard} {s} {t} {s'} cr st
  ; A-recᶜ  = λ {s} {t} {s'} cr _ c → pl-rec-crash {EraseGuard} {s} {t} {s'} cr c
  ; B-ok    = λ u {s} r st → proj₂ (proj₂ (proj₂ (step-Lk u (AR-tOf s) r st)))
  ; B-crash = λ u {s} r c → let (t' , _ , cr) = crash-Lk u (AR-tOf s) r c in t' , cr
  ; B-rec   = λ {s} {s'} ci st → inj₁ (pl-rec-B {EraseGuard} {s} {proj₁ ci} {s'} (proj₂ ci) st)
  ; B-recᶜ  = λ {s} {s'} ci c → let (t' , _ , cr) = pl-rec-crash {EraseGuard} {s} {proj₁ ci} {s'} (proj₂ ci) c in t' , cr
  }

-- Theorem 1 for PLk: every behaviour of PL with the way out is one of S's
theorem1-PLk : Sp.Correspondence.BehaviourallyCorrect PLk S
theorem1-PLk = theorem1 obligations-PLk new-disk

-- PLk is snapshot-consistent
PLk-snapshot-consistent : SnapshotConsistent PLk
PLk-snapshot-consistent = obligations⇒SC PLk obligations-PLk
