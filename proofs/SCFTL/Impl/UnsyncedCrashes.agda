{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: PU's crashes against SB's crash outcomes.
-- For the crash points of PU's operations that leave no checkpoint or
-- record half written — the end of a write or GC step, the barrier
-- without SYNC right after its programs, a flush (or the forced
-- barrier) right before its SYNC (`fl2`) and right after it (`fl3`) —
-- there is an SB crash outcome t' of that operation (`crashSB`: a
-- crashed regular operation keeps SB's stable and pending images, a
-- crashed barrier or flush appends its image to the pending ones or
-- made it durable) such that recovery, replaying from the live
-- checkpoint over the crashed region, accepts k unsynced epochs and the
-- L2P it rebuilds reads `candAt t' k`, one of t''s candidates
-- `stable ∷ pend` (`RecTo`).
--
--   Inv            ARU, GhAll, BI (UnsyncedImages, UnsyncedBase)
--   crash-normal   a crash of any state with Inv: `recU-crash-readsBI`,
--                  with the live slot surviving the crash
--   pre-sync       the flash a flush leaves before its SYNC is the flash
--                  of `flB`: a state with one more unsynced epoch and
--                  SB's image appended to the pending ones, with Inv
--   CrashPt, crash-covered
--                  the crash points above, each against SB's crash
--                  outcome of its operation
--
-- NOT covered: the flush's crash points inside a full checkpoint
-- (`ck1`, `ck2`), the in-page/OOB commit's (`fi2`, `fiK`, the
-- checkpoint after `fi3`), crashes of recovery; which slot recovery
-- picks, the split at the last SYNC (given, `ParseS`), the record walk;
-- the state recovery builds (no recovery step of PU), so no CR/CI,
-- type B, Theorem 1 or SC1B for PU.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedCrashes (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _+_)
open import Data.Nat.Properties using (<⇒≱)
open import Data.Empty using (⊥) renaming (⊥-elim to ⊥-elim′)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Properties using (length-++)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; okU; flB; epE; ARU; rd-flB; rdS-flB)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_
  using (candAt; recRS; ParseS)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_
  using (GhAll; gh-flB; dg-flB; sy-flB; sm-flB; gc-flB)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_
  using (BI; bi-flB; recU-crash-readsBI; A-PU)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The invariants, and what recovery reads after a crash

Inv : StU → SB.State → Set
Inv s t = ARU s t × GhAll s t × BI (st s) (ues s)

-- the live slot holds (g, C); recovery, replaying from C over the region
-- (skipped top pages T, the unsynced epochs es' in order, the durable
-- part pr), accepts k epochs and rebuilds an L2P that reads SB's k-th
-- candidate
RecTo : St → SB.State → Set
RecTo s' t = Σ ℕ λ g → Σ Map λ C → cpL s' ≡ syn (cpt g C) ×
  Σ (List Cell) λ pr → Σ (List Cell) λ T → Σ (List UEp) λ es' → Σ ℕ λ k →
    ParseS (map cur (dr s')) T es' pr × candAt t k ∈ SB.stable t ∷ SB.pend t ×
    (∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS g (λ p → cur (dat s' p)) es' pr (st0 C)) a) ≡ candAt t k a)

private
  crash-syn : ∀ {m m' c} → m ≡ syn c → CrashC m m' → m' ≡ syn c
  crash-syn refl e = e

crash-normal : ∀ {s t s'} → Inv s t → Img (st s) s' → RecTo s' t
crash-normal {s} {t} {s'} (ar , ga , b) img with recU-crash-readsBI {s} {t} {s'} b ar ga img
... | T , es' , k , ces , p , kl , m , r =
  gen (st s) , BI.C b , crash-syn (BI.slt b) (proj₁ (proj₂ img)) , map cur (BI.prM b) , T , es' , k , p , m , r

------------------------------------------------------------------------
-- Right before a flush's SYNC: the flash of a barrier's programs

preT : SB.State → SB.State
preT t = SB.⟨ SB.volatile t , SB.stable t , SB.pend t ++ SB.volatile t ∷ [] , 0 ⟩

pre-sync : ∀ {s t} → Inv s t → Inv ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫ (preT t)
pre-sync {s} {t} (((v , c , n) , sa) , (g , sm , gh , dl , sy) , b) =
  ( ( (λ a le → trans (rd-flB (st s) a) (v a le)) , refl
    , trans (length-++ (ues s)) (trans (cong (_+ 1) n) (sym (length-++ (SB.pend t)))) )
  , (λ a le → trans (rdS-flB (st s) sm a le) (sa a le)) ) ,
  ( gc-flB (st s) g , sm-flB (st s) sm
  , gh-flB {s} {t} {preT t} (v , c , n) g gh refl , dg-flB {s} {t} {preT t} (v , c , n) gh dl refl
  , sy-flB (st s) sm sy ) ,
  bi-flB (st s) (ues s) b

------------------------------------------------------------------------
-- The crash points covered, and SB's crash outcomes

CrashPt : SB.UOp → StU → St → Set
CrashPt (SB.reg (SB.op x))  s m = Σ StU λ s' → okU (SB.reg (SB.op x)) s s' × m ≡ st s'
CrashPt (SB.reg SB.barrier) s m = (length (ues s) < umax × m ≡ flB (st s))
                                ⊎ (umax ≤ length (ues s) × (m ≡ fl2 (st s) ⊎ m ≡ fl3 (st s)))
CrashPt SB.flush            s m = m ≡ fl2 (st s) ⊎ m ≡ fl3 (st s)

private
  regc : ∀ x {t t'} → SB.okSB (SB.use (SB.reg (SB.op x))) t t' → SB.stable t' ≡ SB.stable t × SB.pend t' ≡ SB.pend t
  regc (SB.w a d) (inj₁ (_ , _ , e1 , e2 , _)) = e1 , e2
  regc (SB.w a d) (inj₂ (_ , refl)) = refl , refl
  regc SB.rl refl = refl , refl
  regc SB.es refl = refl , refl

  flushOk : ∀ {s} → okU SB.flush s ⟪ fl3 (st s) , [] ⟫
  flushOk = inj₁ refl , refl

crash-covered : ∀ u {s t m s''} → Inv s t → CrashPt u s m → Img m s'' →
  Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × RecTo s'' t'
crash-covered (SB.reg (SB.op x)) {s} {t} {_} {s''} (ar , ga , b) (s' , o , refl) img
  with A-PU (SB.reg (SB.op x)) {s} {t} {s'} ar ga b o
... | t' , y , ar' , ga' , b' = t' , regc x y , crash-normal {s'} {t'} {s''} (ar' , ga' , b') img
crash-covered (SB.reg SB.barrier) {s} {t} {_} {s''} (ar , ga , b) (inj₁ (lt , refl)) img
  with A-PU (SB.reg SB.barrier) {s} {t} {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} ar ga b (inj₁ (lt , refl))
... | t' , (_ , _ , inj₁ (_ , e1 , e2)) , ar' , ga' , b' =
  t' , inj₁ (e1 , e2) , crash-normal {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {t'} {s''} (ar' , ga' , b') img
... | t' , (_ , _ , inj₂ (ge , _ , _)) , _ =
  ⊥-elim′ (<⇒≱ lt (subst (umax ≤_) (sym (proj₂ (proj₂ (proj₁ ar)))) ge))
crash-covered (SB.reg SB.barrier) {s} {t} {_} {s''} iv (inj₂ (ge , inj₁ refl)) img =
  preT t , inj₁ (refl , refl) , crash-normal {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {preT t} {s''} (pre-sync {s} {t} iv) img
crash-covered (SB.reg SB.barrier) {s} {t} {_} {s''} (ar , ga , b) (inj₂ (ge , inj₂ refl)) img
  with A-PU (SB.reg SB.barrier) {s} {t} {⟪ fl3 (st s) , [] ⟫} ar ga b (inj₂ (ge , inj₁ refl , refl))
... | t' , (_ , _ , inj₂ (_ , e1 , e2)) , ar' , ga' , b' =
  t' , inj₂ (e1 , e2) , crash-normal {⟪ fl3 (st s) , [] ⟫} {t'} {s''} (ar' , ga' , b') img
... | t' , (_ , _ , inj₁ (lt , _ , _)) , _ =
  ⊥-elim′ (<⇒≱ lt (subst (umax ≤_) (proj₂ (proj₂ (proj₁ ar))) ge))
crash-covered SB.flush {s} {t} {_} {s''} iv (inj₁ refl) img =
  preT t , inj₁ (refl , refl) , crash-normal {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {preT t} {s''} (pre-sync {s} {t} iv) img
crash-covered SB.flush {s} {t} {_} {s''} (ar , ga , b) (inj₂ refl) img
  with A-PU SB.flush {s} {t} {⟪ fl3 (st s) , [] ⟫} ar ga b (flushOk {s})
... | t' , (_ , e1 , e2 , _) , ar' , ga' , b' =
  t' , inj₂ (e1 , e2) , crash-normal {⟪ fl3 (st s) , [] ⟫} {t'} {s''} (ar' , ga' , b') img
