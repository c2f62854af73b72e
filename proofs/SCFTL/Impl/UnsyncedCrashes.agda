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
-- made it durable) such that recovery picks the live checkpoint slot
-- (P's `pick`), replays from its map over the crashed region, accepts k
-- unsynced epochs, and the L2P it rebuilds reads `candAt t' k`, one of
-- t''s candidates `stable ∷ pend` (`RecTo`).
--
--   Inv            ARU, GhAll, BI (UnsyncedImages, UnsyncedBase) and
--                  SlO (the shadow slot holds nothing newer: P's
--                  `slotO`), kept by every normal step (`A-Inv`)
--   crash-normal   a crash of any state with Inv: `recU-crash-readsBI`,
--                  with the live slot surviving the crash
--   pre-sync       the flash a flush leaves before its SYNC is the flash
--                  of `flB`: a state with one more unsynced epoch and
--                  SB's image appended to the pending ones, with Inv
--   CrashPt, crash-covered
--                  the crash points above, each against SB's crash
--                  outcome of its operation
--   init-Inv       every state with P's RI and AR (a durable point, as
--                  P's Theorem 1 keeps them) is a PU state with no
--                  unsynced epoch satisfying Inv
--   Run, RunSB, run-Inv, formula4-PU
--                  from such a state, every run of PU's normal operations
--                  is matched by a run of SB keeping Inv, and a crash at
--                  a covered point of the next operation, then recovery,
--                  reads a candidate of SB's crash outcome
--
-- NOT covered: the flush's crash points inside a full checkpoint
-- (`ck1`, `ck2`), the in-page/OOB commit's (`fi2`, `fiK`, the
-- checkpoint after `fi3`), crashes of recovery; the split at the last
-- SYNC (given, `ParseS`), the record walk;
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
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD; RI; AR)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (PM; PM-sync; Older; pick-first; pend; ≡ᵇ-false)
open import SCFTL.Impl.BarrierOps Data d0 amax wmax umax using (oS; toS)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (tents)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Nat.Properties using (<⇒≢)
open import Data.Unit.Base using (tt)
open import Data.Bool.Base using (true; false)
open import Data.Maybe.Base using (just)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; okU; regcU; flB; epE; flushOp; ARU; rd-flB; rdS-flB; GcI; SmI; Syn; len-mis₁; len-mis₂)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_
  using (candAt; recRS; ParseS)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_
  using (GhAll; GhL; DgL; SyI; gh-flB; dg-flB; sy-flB; sm-flB; gc-flB)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_
  using (BI; bi; bi-flB; recU-crash-readsBI; A-PU)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The invariants, and what recovery reads after a crash

-- the shadow slot holds nothing newer than the live one (P's RI `slotO`)
SlO : St → Set
SlO s = PM (Older (gen s)) (cpO s)

Inv : StU → SB.State → Set
Inv s t = ARU s t × GhAll s t × BI (st s) (ues s) × SlO (st s)

private
  slo-opt : ∀ f1 f2 u → SlO u → SlO (opt f1 f2 u)
  slo-opt false false u x = x
  slo-opt true  false u x = x
  slo-opt false true  u x = x
  slo-opt true  true  u x = x

  slo-flush : ∀ {s s'} → okP (oS flushOp) s s' → SlO s → SlO s'
  slo-flush {s} (inj₁ refl) x = PM-sync {Older (gen s)} (cpO s) x
  slo-flush (inj₂ (inj₁ refl)) x = tt
  slo-flush (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) x = tt
  slo-flush {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) x = PM-sync {Older (gen s)} (sync (cpO s)) (PM-sync {Older (gen s)} (cpO s) x)
  slo-flush (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) x = tt
  slo-flush {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) x = PM-sync {Older (gen s)} (sync (cpO s)) (PM-sync {Older (gen s)} (cpO s) x)

-- every normal-operation step of PU keeps SlO
slo-ok : ∀ u {s s'} → okU u s s' → SlO (st s) → SlO (st s')
slo-ok (SB.reg (SB.op (SB.w a d))) {s} (inj₁ (_ , f1 , f2 , e) , _) x = subst SlO (sym e) (slo-opt f1 f2 (wr0 a d (st s)) x)
slo-ok (SB.reg (SB.op (SB.w a d))) (inj₂ (_ , e) , _) x = subst SlO (sym e) x
slo-ok (SB.reg (SB.op SB.rl)) {s} (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e)) , _) x = subst SlO (sym e) (slo-opt f1 f2 (rl0 p (st s)) x)
slo-ok (SB.reg (SB.op SB.rl)) (inj₁ (_ , p , _ , inj₂ (_ , e)) , _) x = subst SlO (sym e) x
slo-ok (SB.reg (SB.op SB.rl)) (inj₂ (_ , e) , _) x = subst SlO (sym e) x
slo-ok (SB.reg (SB.op SB.es)) ((p , _ , e) , _) x = subst SlO (sym e) x
slo-ok (SB.reg SB.barrier) (inj₁ (_ , refl)) x = x
slo-ok (SB.reg SB.barrier) (inj₂ (o , _)) x = slo-flush o x
slo-ok SB.flush (o , _) x = slo-flush o x

-- the live slot holds (g, C); recovery, replaying from C over the region
-- (skipped top pages T, the unsynced epochs es' in order, the durable
-- part pr), accepts k epochs and rebuilds an L2P that reads SB's k-th
-- candidate
RecTo : St → SB.State → Set
RecTo s' t = Σ ℕ λ g → Σ Map λ C → cpL s' ≡ syn (cpt g C) ×
  pick (cur (cpL s')) (cur (cpO s')) ≡ just (true , g , C) ×
  Σ (List Cell) λ pr → Σ (List Cell) λ T → Σ (List UEp) λ es' → Σ ℕ λ k →
    ParseS (map cur (dr s')) T es' pr × candAt t k ∈ SB.stable t ∷ SB.pend t ×
    (∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS g (λ p → cur (dat s' p)) es' pr (st0 C)) a) ≡ candAt t k a) ×
    (∀ a p → a ≤ amax → proj₁ (recRS g (λ p → cur (dat s' p)) es' pr (st0 C)) a ≡ just p → oob (cur (dat s' p)) ≡ a)

private
  crash-syn : ∀ {m m' c} → m ≡ syn c → CrashC m m' → m' ≡ syn c
  crash-syn refl e = e

  crash-older : ∀ {g} m {m'} → PM (Older g) m → CrashC m m' → Older g (cur m')
  crash-older (syn c)   x refl                = x
  crash-older (uns o n) (x , _) (inj₁ refl)        = x
  crash-older (uns o n) (_ , y) (inj₂ (inj₁ refl)) = y
  crash-older (uns o n) _ (inj₂ (inj₂ refl))       = tt

crash-normal : ∀ {s t s'} → Inv s t → Img (st s) s' → RecTo s' t
crash-normal {s} {t} {s'} (ar , ga , b , so) img =
  gen (st s) , BI.C b , sl ,
  trans (cong (λ c → pick (cur c) (cur (cpO s'))) sl)
        (pick-first (gen (st s)) (BI.C b) (cur (cpO s')) (crash-older (cpO (st s)) so (proj₁ (proj₂ (proj₂ img))))) ,
  map cur (BI.prM b) , proj₁ R , proj₁ R1 , proj₁ R2 , proj₁ R4 , proj₁ R6 , proj₁ R7 , proj₂ R7
  where
    R  = recU-crash-readsBI {s} {t} {s'} b ar ga img
    R1 = proj₂ R
    R2 = proj₂ R1
    R4 = proj₂ (proj₂ R2)
    R6 = proj₂ (proj₂ R4)
    R7 = proj₂ R6
    sl : cpL s' ≡ syn (cpt (gen (st s)) (BI.C b))
    sl = crash-syn (BI.slt b) (proj₁ (proj₂ img))

------------------------------------------------------------------------
-- Right before a flush's SYNC: the flash of a barrier's programs

preT : SB.State → SB.State
preT t = SB.⟨ SB.volatile t , SB.stable t , SB.pend t ++ SB.volatile t ∷ [] , 0 ⟩

pre-sync : ∀ {s t} → Inv s t → Inv ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫ (preT t)
pre-sync {s} {t} (((v , c , n) , sa) , (g , sm , gh , dl , sy) , b , so) =
  ( ( (λ a le → trans (rd-flB (st s) a) (v a le)) , refl
    , trans (length-++ (ues s)) (trans (cong (_+ 1) n) (sym (length-++ (SB.pend t)))) )
  , (λ a le → trans (rdS-flB (st s) sm a le) (sa a le)) ) ,
  ( gc-flB (st s) g , sm-flB (st s) sm
  , gh-flB {s} {t} {preT t} (v , c , n) g gh refl , dg-flB {s} {t} {preT t} (v , c , n) gh dl refl
  , sy-flB (st s) sm sy ) ,
  bi-flB (st s) (ues s) b , so

------------------------------------------------------------------------
-- The crash points covered, and SB's crash outcomes

CrashPt : SB.UOp → StU → St → Set
CrashPt (SB.reg (SB.op x))  s m = Σ StU λ s' → okU (SB.reg (SB.op x)) s s' × m ≡ st s'
CrashPt (SB.reg SB.barrier) s m = (length (ues s) < umax × m ≡ flB (st s))
                                ⊎ (m ≡ fl2 (st s) ⊎ m ≡ fl3 (st s))
CrashPt SB.flush            s m = m ≡ fl2 (st s) ⊎ m ≡ fl3 (st s)

private

  flushOk : ∀ {s} → okU SB.flush s ⟪ fl3 (st s) , [] ⟫
  flushOk = inj₁ refl , refl

crash-covered : ∀ u {s t m s''} → Inv s t → CrashPt u s m → Img m s'' →
  Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × RecTo s'' t'
crash-covered (SB.reg (SB.op x)) {s} {t} {_} {s''} (ar , ga , b , so) (s' , o , refl) img
  = proj₁ A , regcU x (proj₁ o) (proj₁ (proj₂ A)) ,
    crash-normal {s'} {proj₁ A} {s''} (proj₁ I , proj₁ (proj₂ I) , proj₂ (proj₂ I) , slo-ok (SB.reg (SB.op x)) {s} {s'} o so) img
  where
    A = A-PU (SB.reg (SB.op x)) {s} {t} {s'} ar ga b o
    I = proj₂ (proj₂ A)
crash-covered (SB.reg SB.barrier) {s} {t} {_} {s''} (ar , ga , b , so) (inj₁ (lt , refl)) img
  with A-PU (SB.reg SB.barrier) {s} {t} {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} ar ga b (inj₁ (lt , refl))
... | t' , (_ , _ , inj₁ (_ , e1 , e2)) , ar' , ga' , b' =
  t' , inj₁ (e1 , e2) , crash-normal {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {t'} {s''} (ar' , ga' , b' , so) img
... | t' , (_ , _ , inj₂ (_ , ep)) , ar' , _ =
  ⊥-elim′ (len-mis₁ (ues s) (epE (st s)) (SB.pend t') (proj₂ (proj₂ (proj₁ ar'))) ep)
crash-covered (SB.reg SB.barrier) {s} {t} {_} {s''} iv (inj₂ (inj₁ refl)) img =
  preT t , inj₁ (refl , refl) , crash-normal {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {preT t} {s''} (pre-sync {s} {t} iv) img
crash-covered (SB.reg SB.barrier) {s} {t} {_} {s''} (ar , ga , b , so) (inj₂ (inj₂ refl)) img
  with A-PU (SB.reg SB.barrier) {s} {t} {⟪ fl3 (st s) , [] ⟫} ar ga b (inj₂ (inj₁ refl , refl))
... | t' , (_ , _ , inj₂ (e1 , e2)) , ar' , ga' , b' =
  t' , inj₂ (e1 , e2) , crash-normal {⟪ fl3 (st s) , [] ⟫} {t'} {s''} (ar' , ga' , b' , slo-flush {st s} {fl3 (st s)} (inj₁ refl) so) img
... | t' , (_ , _ , inj₁ (_ , _ , ep)) , ar' , _ =
  ⊥-elim′ (len-mis₂ (ues ⟪ fl3 (st s) , [] ⟫) (SB.pend t) (SB.volatile t) refl (trans (proj₂ (proj₂ (proj₁ ar'))) (cong length ep)))
crash-covered SB.flush {s} {t} {_} {s''} iv (inj₁ refl) img =
  preT t , inj₁ (refl , refl) , crash-normal {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {preT t} {s''} (pre-sync {s} {t} iv) img
crash-covered SB.flush {s} {t} {_} {s''} (ar , ga , b , so) (inj₂ refl) img
  = proj₁ A , inj₂ (proj₁ (proj₂ (proj₁ (proj₂ A))) , proj₁ (proj₂ (proj₂ (proj₁ (proj₂ A))))) ,
    crash-normal {⟪ fl3 (st s) , [] ⟫} {proj₁ A} {s''} (proj₁ I , proj₁ (proj₂ I) , proj₂ (proj₂ I) , slo-flush {st s} {fl3 (st s)} (inj₁ refl) so) img
  where
    A = A-PU SB.flush {s} {t} {⟪ fl3 (st s) , [] ⟫} ar ga b (flushOk {s})
    I = proj₂ (proj₂ A)

------------------------------------------------------------------------
-- Every normal-operation step of PU keeps Inv, type A against SB

A-Inv : ∀ u {s t s'} → Inv s t → okU u s s' → Σ SB.State λ t' → SB.okSB (SB.use u) t t' × Inv s' t'
A-Inv u {s} {t} {s'} (ar , ga , b , so) o =
  proj₁ A , proj₁ (proj₂ A) , proj₁ I , proj₁ (proj₂ I) , proj₂ (proj₂ I) , slo-ok u {s} {s'} o so
  where
    A = A-PU u {s} {t} {s'} ar ga b o
    I = proj₂ (proj₂ A)

------------------------------------------------------------------------
-- Where Inv starts: every state with P's representation invariant and
-- abstraction relation (every state P's Theorem 1 reaches by normal
-- operation, a durable point) is a PU state with no unsynced epoch
-- satisfying Inv against SB's state with no pending image

private
  tmap : ∀ g x pss → map (λ ps → uns erased (dlt g x ps false ε)) pss ≡ map (uns erased) (tents g x pss ++ [])
  tmap g x []         = refl
  tmap g x (ps ∷ pss) = cong (uns erased (dlt g x ps false ε) ∷_) (tmap g x pss)

  cur-syn : ∀ cs → map cur (map syn cs) ≡ cs
  cur-syn []       = refl
  cur-syn (c ∷ cs) = cong (c ∷_) (cur-syn cs)

  all-syn : ∀ cs → All Syn (map syn cs)
  all-syn []       = []
  all-syn (c ∷ cs) = (c , refl) ∷ all-syn cs

  rbase-lt : ∀ x (R : RS) → pend R < x → rbase x R ≡ proj₁ R
  rbase-lt x R lt rewrite ≡ᵇ-false x (pend R) (λ e → <⇒≢ lt (sym e)) = refl

init-Inv : ∀ {s t} → RI s → AR s (toS t) → SB.pend t ≡ [] → Inv ⟪ s , [] ⟫ t
init-Inv {s} {t} r ar e =
  ( ((λ a le → AR.vol ar a le) , AR.cnt ar , sym (cong length e)) , (λ a le → AR.stb ar a le) ) ,
  ( gci , smi , (subst (GhL s (smap s) []) (sym e) tt , RI.vm r) , subst (DgL (smap s) []) (sym e) tt , syi ) ,
  bi (RI.C r) (map syn (RI.comm r)) (RI.slotL r)
     (trans (RI.regEq r) (cong (_++ map syn (RI.comm r)) (trans (RI.tEq r) (tmap (gen s) (ep s) (ept s)))))
     (all-syn (RI.comm r))
     (λ a → trans (cong (λ z → proj₁ (rp (gen s) z (st0 (RI.C r))) a) (cur-syn (RI.comm r))) (RI.cmX r a))
     (subst (λ z → rbase (ep s) (rp (gen s) z (st0 (RI.C r))) ≡ proj₁ (rp (gen s) z (st0 (RI.C r))))
            (sym (cur-syn (RI.comm r)))
            (rbase-lt (ep s) (rp (gen s) (RI.comm r) (st0 (RI.C r))) (RI.cmP r))) ,
  RI.slotO r
  where
    gci : GcI s
    gci = record
      { blw  = λ b p le q → proj₁ (RI.vOK r b p le q)
      ; oobI = λ b p le q → cong oob (proj₂ (proj₂ (RI.vOK r b p le q)))
      ; ersI = λ p q → proj₁ (RI.eOK r p q) , proj₁ (proj₂ (RI.eOK r p q))
      ; invI = λ p q → RI.iOK r p q
      }
    smi : SmI s
    smi a p le q = proj₁ (RI.sOK r a p le q) , proj₁ (proj₂ (RI.sOK r a p le q)) ,
                   λ x → proj₂ (proj₂ (RI.eOK r p x)) a le q
    syi : SyI s
    syi a p le q = dcell (proj₁ (proj₂ (proj₂ (RI.sOK r a p le q)))) a , proj₂ (proj₂ (proj₂ (RI.sOK r a p le q))) , refl

------------------------------------------------------------------------
-- Runs: from any state with P's RI and AR (a durable point), every run
-- of PU's normal operations (barriers without SYNC included) is matched
-- by a run of SB, and a crash at a covered crash point of the next
-- operation recovers to a candidate of SB's crash outcome

data Run : StU → StU → Set where
  []   : ∀ {s} → Run s s
  step : ∀ u {s s1 s2} → okU u s s1 → Run s1 s2 → Run s s2

data RunSB : SB.State → SB.State → Set where
  []   : ∀ {t} → RunSB t t
  step : ∀ u {t t1 t2} → SB.okSB (SB.use u) t t1 → RunSB t1 t2 → RunSB t t2

run-Inv : ∀ {s t s'} → Inv s t → Run s s' → Σ SB.State λ t' → RunSB t t' × Inv s' t'
run-Inv iv [] = _ , [] , iv
run-Inv {s} {t} iv (step u {s1 = s1} o r) =
  let A = A-Inv u {s} {t} {s1} iv o ; R = run-Inv (proj₂ (proj₂ A)) r in
  proj₁ R , step u (proj₁ (proj₂ A)) (proj₁ (proj₂ R)) , proj₂ (proj₂ R)

-- formula (4) for PU: P's durable point, a run of PU, a crash, recovery
formula4-PU : ∀ {s t s1 u m s''} → RI s → AR s (toS t) → SB.pend t ≡ [] →
  Run ⟪ s , [] ⟫ s1 → CrashPt u s1 m → Img m s'' →
  Σ SB.State λ t1 → Σ SB.State λ t' → RunSB t t1 × SB.crashSB (SB.use u) t1 t' × RecTo s'' t'
formula4-PU {s} {t} {s1} {u} {m} {s''} r ar e run cp img =
  let R = run-Inv (init-Inv {s} {t} r ar e) run
      C = crash-covered u {s1} {proj₁ R} {m} {s''} (proj₂ (proj₂ R)) cp img in
  proj₁ R , proj₁ C , proj₁ (proj₂ R) , proj₁ (proj₂ C) , proj₂ (proj₂ C)
