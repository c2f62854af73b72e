{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: the in-page and OOB commits after the SYNC
-- outside a commit, at EVERY FLASH COMMAND BOUNDARY.
--
-- PUSi (SCFTL.Impl.UnsyncedSyncInPage) takes P's in-page / OOB commit
-- from a state with no epoch unsynced, with P's operation-level crash
-- points (`CrFi`).  Here every command boundary of that flush is a
-- crash point, as PUSc (SCFTL.Impl.UnsyncedSync) has them for PU's other
-- operations (`PUMc`, SCFTL.Impl.UnsyncedCommands):
--
--   FiCmd s M x  x is the flash right after some command of the commit
--                in the record slot of page M (P's `LkCmd`, plus the
--                end of the checkpoint): any subset of the first batch
--                (the merge buffer's data pages and the record, any
--                order, repeated or not: `IssFi`), right after its SYNC
--                and every command of the full checkpoint (`CkCmd`) or
--                its end, the consolidation page before it is appended
--                and after (before its SYNC), and the end
--   ghFi         the ghost each leaves: the state's own before the
--                consolidation page is appended (the record is never
--                read by PU's recovery), the barrier's once it is (it
--                is the page `fl2` appends), the whole region inside
--                the checkpoint, the end states' own
--   fi-cmd-G     every crash outcome of such an x recovers, with that
--                ghost, to a candidate of SB's crashed flush: each is
--                an outcome of one of `CrFi`'s points (`fi-mid`,
--                `ck-mid`, `fk-mid`, `Mid-sync`: P's batches, with no
--                dead page on top), so `crash-Fi` applies
--   RcS          every record slot durable: what the first batch's
--                command-level picture needs of the record slot (P's
--                `RI.rcOK`); kept by every step of PUSi (`rcs-ok`,
--                `rcs-rec`: recovery syncs everything)
--   PUSic, obligationsSic, theorem1-PUSic, PUSic-snapshot-consistent
--                PUSi with every flash command boundary of every
--                operation a crash point (PUSc's for the others):
--                Theorem 1 against SB and SC1B
--   fi-point-in  not vacuous: PUSic's crashes of an in-page / OOB
--                flush include PUSi's (`CrFi`), given a list of pages
--                covering the merge buffer
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ; suc)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedSyncInPageCommands (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                             (_≟D_ : DecidableEquality Data) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Unit.Base using (⊤; tt)
open import Data.Empty using (⊥)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (IsSyn; []; _∷_) renaming (All to AllL; _∈_ to _∈L_)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_
  using (Cmd; pgO; pgL; pgR; pgI; DRun; before; after; IssFi; CkCmd; ck-new; ck-erase; ck-end;
         fi-mid; fk-mid; ck-mid; mid-crash; Mid-sync; runs; run; apR; fi2-all; ck1-all; ck2-all; fiK-all; mbCmds; ix)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues; flB)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_
  using (Gh; RecG; ghostN; SU; ⟦_,_⟧; su; gh; NewPU; CRP)
open import SCFTL.Impl.UnsyncedCommands Data d0 amax wmax kmax umax _≟D_
  using (sB; crashPUc; obligationsC; Img-same)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_
  using (syS; okS; crashS; ARS; module OU; AS-crash)
open import SCFTL.Impl.UnsyncedSyncInPage Data d0 amax wmax kmax umax _≟D_
  using (InPO; FiOk; CrFi; crash-Fi; okSi; RecCc; ASi-ok; ASi-rec; ASi-recᶜ)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The commands of the commit in the record slot of page M

data FiCmd (s : StU) (M : ℕ) : St → Set where
  -- the first batch: merge buffer pages and the record, no SYNC yet
  fb  : ∀ {x} → DRun (IssFi M (st s)) (st s) nothing x → FiCmd s M x
  -- after its SYNC: the full checkpoint's commands, and its end
  fck : ∀ {x} → CkCmd (fi3 M (st s)) x → FiCmd s M x
  fce : FiCmd s M (ck3 (fi3 M (st s)))
  -- or the consolidation page: not yet appended, or appended before its SYNC
  fk  : ∀ {x} → DRun (λ _ → ⊥) (fi3 M (st s)) (just (rec (st s))) x → FiCmd s M x
  -- and synced: the end
  fe  : FiCmd s M (fi4 M (st s))

ghFi : ∀ s M {x} → FiCmd s M x → St → Gh
ghFi s M (fb _)                 s'' = ghostN s
ghFi s M (fck _)                s'' = [] , map cur (dr s'')
ghFi s M fce                    s'' = ghostN ⟪ ck3 (fi3 M (st s)) , [] ⟫
ghFi s M (fk (before _ _))      s'' = ghostN s
ghFi s M (fk (after _ _ _ _))   s'' = ghostN (sB s)
ghFi s M fe                     s'' = ghostN ⟪ fi4 M (st s) , [] ⟫

-- every record slot durable
RcS : St → Set
RcS s = ∀ p → IsSyn (rcd s p)

------------------------------------------------------------------------
-- Every command boundary is one of `CrFi`'s points

fi-crfi : ∀ {s M x s''} → RcS (st s) →
  (r : FiCmd s M x) → Img x s'' → CrFi s M s'' (ghFi s M r s'')
-- the first batch: an outcome at `fi2`
fi-crfi {s} {M} {x} {s''} rs (fb (before cs is)) img =
  (inj₁ (proj₂ (proj₂ (mid-crash {x} {fi2 M (st s)} {s''} (fi-mid M (st s) (rs M) (before cs is)) img)) , refl))
-- the checkpoint: outcomes at its `ck1` and `ck2`
fi-crfi {s} {M} {_} {s''} rs (fck (ck-new cs is)) img =
  (inj₂ (inj₁ (inj₁ (proj₂ (proj₂ (mid-crash {runs cs u} {ck1 u} {s''}
      (proj₂ (proj₂ (ck-mid u (cur (cpO (st s)) , refl) (ck-new cs is)))) img))) , refl)))
  where u = fi3 M (st s)
fi-crfi {s} {M} {_} {s''} rs (fck (ck-erase cs is)) img =
  (inj₂ (inj₁ (inj₂ (proj₂ (proj₂ (mid-crash {runs cs (syncAll (ck1 u))} {ck2 u} {s''}
      (proj₂ (proj₂ (ck-mid u (cur (cpO (st s)) , refl) (ck-erase cs is)))) img))) , refl)))
  where u = fi3 M (st s)
fi-crfi {s} {M} {_} {s''} rs (fck ck-end) img =
  (inj₂ (inj₁ (inj₂ (proj₂ (proj₂ (mid-crash {syncAll (ck2 u)} {ck2 u} {s''} (Mid-sync (ck2 u)) img))) , refl)))
  where u = fi3 M (st s)
fi-crfi {s} {M} {_} {s''} rs fce img =
  (inj₂ (inj₂ (inj₁ (img , refl))))
-- right after the record's SYNC, the consolidation page not appended:
-- an outcome at `fi2` (every page of `fi3` is synced `fi2`)
fi-crfi {s} {M} {_} {s''} rs (fk (before [] [])) img =
  (inj₁ (proj₂ (proj₂ (mid-crash {fi3 M (st s)} {fi2 M (st s)} {s''} (Mid-sync (fi2 M (st s))) img)) , refl))
fi-crfi rs (fk (before (_ ∷ _) (() ∷ _))) img
-- the consolidation page appended, before its SYNC: an outcome at `fiK`
fi-crfi {s} {M} {x} {s''} rs (fk (after [] [] [] [])) img =
  (inj₂ (inj₂ (inj₂ (inj₁ (proj₂ (proj₂ (mid-crash {x} {fiK M (st s)} {s''}
      (fk-mid M (st s) (after [] [] [] [])) img)) , refl)))))
fi-crfi rs (fk (after (_ ∷ _) _ (() ∷ _) _)) img
fi-crfi rs (fk (after [] (_ ∷ _) [] (() ∷ _))) img
fi-crfi {s} {M} {_} {s''} rs fe img =
  (inj₂ (inj₂ (inj₂ (inj₂ (img , refl)))))

fi-cmd-G : ∀ {s t M x s''} → Inv′ s t → RcS (st s) → ues s ≡ [] → InPO (st s) M →
  (r : FiCmd s M x) → Img x s'' → Σ SB.State λ t' → t SB.─fbᶜ→ t' × RecG s'' (ghFi s M r s'') t'
fi-cmd-G {s} {t} {M} {x} {s''} iv rs eu po r img = crash-Fi {s} {t} {M} {s''} iv eu po (fi-crfi {s} {M} {x} {s''} rs r img)

------------------------------------------------------------------------
-- Every record slot stays durable

private
  rcs-opt : ∀ f1 f2 s → RcS s → RcS (opt f1 f2 s)
  rcs-opt true  true  s r = r
  rcs-opt true  false s r = r
  rcs-opt false true  s r = r
  rcs-opt false false s r = r

  rcs-eq : ∀ {s s'} → s' ≡ s → RcS s → RcS s'
  rcs-eq refl r = r

  -- PUM's flush: `fl3`, maybe its checkpoint; both sync every slot
  rcs-fl : ∀ {s s'} → (s' ≡ ⟪ fl3 (st s) , [] ⟫ ⊎ s' ≡ ⟪ ck3 (fl3 (st s)) , [] ⟫) → RcS (st s')
  rcs-fl (inj₁ refl) p = tt
  rcs-fl (inj₂ refl) p = tt

rcs-ok : ∀ u {S S'} → okSi (SB.use u) S S' → RcS (st (su S)) → RcS (st (su S'))
rcs-ok (SB.reg (SB.op (SB.w a d))) ((inj₁ (_ , f1 , f2 , e) , _) , _) r =
  rcs-eq e (rcs-opt f1 f2 _ r)
rcs-ok (SB.reg (SB.op (SB.w a d))) ((inj₂ (_ , e) , _) , _) r = rcs-eq e r
rcs-ok (SB.reg (SB.op SB.rl)) ((inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e)) , _) , _) r =
  rcs-eq e (rcs-opt f1 f2 _ r)
rcs-ok (SB.reg (SB.op SB.rl)) ((inj₁ (_ , p , _ , inj₂ (_ , e)) , _) , _) r = rcs-eq e r
rcs-ok (SB.reg (SB.op SB.rl)) ((inj₂ (_ , e) , _) , _) r = rcs-eq e r
rcs-ok (SB.reg (SB.op SB.es)) (((p , _ , e) , _) , _) r = rcs-eq e r
rcs-ok (SB.reg (SB.op SB.sy)) {S} {⟦ .(syS rl (su S)) , _ ⟧} (rl , _ , refl , _) r = r
rcs-ok (SB.reg SB.barrier) {S} {⟦ .(⟪ flB (st (su S)) , _ ⟫) , _ ⟧} (inj₁ (_ , refl) , _) r = r
rcs-ok (SB.reg SB.barrier) {S} {S'} (inj₂ f , _) r = rcs-fl {su S} {su S'} f
rcs-ok SB.flush {S} {S'} (inj₁ (f , _)) r = rcs-fl {su S} {su S'} f
rcs-ok SB.flush {S} {⟦ .(⟪ fi4 M (st (su S)) , [] ⟫) , _ ⟧} (inj₂ ((_ , M , _ , inj₁ refl) , _)) r p = tt
rcs-ok SB.flush {S} {⟦ .(⟪ ck3 (fi3 M (st (su S))) , [] ⟫) , _ ⟧} (inj₂ ((_ , M , _ , inj₂ refl) , _)) r p = tt

-- recovery syncs every page (with or without its checkpoint)
rcs-rec : ∀ {S S'} → okSi SB.recover S S' → RcS (st (su S'))
rcs-rec (inj₁ ((b , g , C , pk , T , es' , p , sh , e) , _)) = rcs-eq e (λ q → tt)
rcs-rec (inj₂ ((b , g , C , pk , T , es' , p , sh , cl , _ , e) , _)) = rcs-eq e (λ q → tt)

------------------------------------------------------------------------
-- PUSic

crashSic : SB.Op → SU → SU → Set
crashSic (SB.use SB.flush) S S' =
  crashPUc (SB.use SB.flush) S S'
  ⊎ ((Σ ℕ λ M → ues (su S) ≡ [] × InPO (st (su S)) M ×
       Σ St λ x → Σ (FiCmd (su S) M x) λ r → Img x (st (su S')) × gh S' ≡ ghFi (su S) M r (st (su S')))
     × ues (su S') ≡ [])
crashSic SB.recover S S' = crashPUc SB.recover S S' ⊎ (RecCc (st (su S)) (gh S) (st (su S')) (gh S') × ues (su S') ≡ [])
crashSic (SB.use (SB.reg (SB.op SB.sy))) S S' = crashS (SB.use (SB.reg (SB.op SB.sy))) S S'
crashSic o = crashPUc o

PUSic : SB.Model
PUSic = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okSi ; crash = crashSic }

open SB.ForwardSimulation PUSic SB.SB using () renaming (Obligations to ObligationsSic)

ARSi : SU → SB.State → Set
ARSi S t = ARS S t × RcS (st (su S))

private
  module OC = SB.ForwardSimulation.Obligations obligationsC

  ASic-ok : ∀ u {S t S'} → ARSi S t → ⊤ → okSi (SB.use u) S S' → Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARSi S' t'
  ASic-ok u {S} {t} {S'} (ar , rs) _ o =
    let A = ASi-ok u {S} {t} {S'} ar tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) , rcs-ok u {S} {S'} o rs

  fixG : ∀ {s'' g g' t'} → g ≡ g' → RecG s'' g' t' → RecG s'' g t'
  fixG refl r = r

  ASic-crash : ∀ u {S t S'} → ARSi S t → ⊤ → crashSic (SB.use u) S S' → Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRP S' t'
  ASic-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ((iv , _) , _) _ c = OC.A-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} iv tt c
  ASic-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} ((iv , _) , _) _ c = OC.A-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} iv tt c
  ASic-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} ((iv , _) , _) _ c = OC.A-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} iv tt c
  ASic-crash (SB.reg (SB.op SB.sy)) {S} {t} {S'} (ar , _) _ c = AS-crash (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar tt c
  ASic-crash (SB.reg SB.barrier) {S} {t} {S'} ((iv , _) , _) _ c = OC.A-crash (SB.reg SB.barrier) {S} {t} {S'} iv tt c
  ASic-crash SB.flush {S} {t} {S'} ((iv , _) , _) _ (inj₁ c) = OC.A-crash SB.flush {S} {t} {S'} iv tt c
  ASic-crash SB.flush {S} {t} {S'} ((iv , _) , rs) _ (inj₂ ((M , eu , po , x , r , img , e) , _)) =
    proj₁ F , proj₁ (proj₂ F) , fixG {st (su S')} {gh S'} {ghFi (su S) M r (st (su S'))} {proj₁ F} e (proj₂ (proj₂ F))
    where
      F = fi-cmd-G {su S} {t} {M} {x} {st (su S')} iv rs eu po r img

  ASic-rec : ∀ {S t S'} → CRP S t → ⊤ → okSi SB.recover S S' → Σ SB.State λ t' → SB.okSB SB.recover t t' × ARSi S' t'
  ASic-rec {S} {t} {S'} cr _ o =
    let A = ASi-rec {S} {t} {S'} cr tt o in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) , rcs-rec {S} {S'} o

  ASic-recᶜ : ∀ {S t S'} → CRP S t → ⊤ → crashSic SB.recover S S' → Σ SB.State λ t' → SB.crashSB SB.recover t t' × CRP S' t'
  ASic-recᶜ {S} {t} {S'} cr _ (inj₁ c) = OC.A-recᶜ {S} {t} {S'} cr tt c
  ASic-recᶜ {S} {t} {S'} cr _ (inj₂ c) = ASi-recᶜ {S} {t} {S'} cr tt (inj₂ c)

obligationsSic : ObligationsSic
obligationsSic = record
  { AR = ARSi ; CR = CRP ; RI = λ _ → ⊤ ; CI = λ _ → ⊤
  ; AR⇒≈ = λ {S} {t} ar → OU.AR⇒≈ {S} {t} (proj₁ (proj₁ ar))
  ; init-CR = λ {S} {t} n n′ → OU.init-CR {S} {t} n n′
  ; init-CI = λ _ → tt
  ; A-ok = ASic-ok ; A-crash = ASic-crash ; A-rec = λ {S} {t} {S'} → ASic-rec {S} {t} {S'}
  ; A-recᶜ = λ {S} {t} {S'} → ASic-recᶜ {S} {t} {S'}
  ; B-ok = λ _ _ _ → tt ; B-crash = λ _ _ _ → tt ; B-rec = λ _ _ → tt ; B-recᶜ = λ _ _ → tt
  }

-- Theorem 1 and SC1B for PU with the SYNC outside a commit, P's in-page
-- and OOB commits where no epoch is unsynced, recovery without the full
-- checkpoint where it accepts every unsynced epoch, and every flash
-- command boundary of every operation a crash point
theorem1-PUSic : SB.CorrespondenceB.BehaviourallyCorrect PUSic SB.SB
theorem1-PUSic = SB.theorem1-SB PUSic obligationsSic

PUSic-snapshot-consistent : SB.SnapshotConsistentB PUSic
PUSic-snapshot-consistent = SB.obligations⇒SCB PUSic obligationsSic

------------------------------------------------------------------------
-- Not vacuous: the command-level crashes include PUSi's crash points
-- (all of a batch's commands issued: P's `fi2-all`, `ck1-all`,
-- `ck2-all`, `fiK-all`), given a list of pages covering the merge buffer

fi-point-in : ∀ {s M s'' g} ps → (∀ q → mb (st s) q ≡ nothing ⊎ q ∈L ps) → CrFi s M s'' g →
  Σ St λ x → Σ (FiCmd s M x) λ r → Img x s'' × g ≡ ghFi s M r s''
fi-point-in {s} {M} {s''} ps cov (inj₁ (img , e)) =
  _ , fb (before cs (proj₁ F)) , Img-same {runs cs (st s)} {fi2 M (st s)} {s''} (proj₂ F) img , e
  where
    cs = mbCmds (st s) ps ++ pgI M (rec (st s)) ∷ []
    F = fi2-all M (st s) ps cov
fi-point-in {s} {M} {s''} ps cov (inj₂ (inj₁ (inj₁ img , e))) =
  _ , fck (ck-new k1 (proj₁ (ck1-all u))) , Img-same {runs k1 u} {ck1 u} {s''} (proj₂ (ck1-all u)) img , e
  where
    u = fi3 M (st s)
    k1 = pgO (cpt (suc (gen u)) (l2p u)) ∷ []
fi-point-in {s} {M} {s''} ps cov (inj₂ (inj₁ (inj₂ img , e))) =
  _ , fck (ck-erase k2 (proj₁ (ck2-all u))) , Img-same {runs k2 (syncAll (ck1 u))} {ck2 u} {s''} (proj₂ (ck2-all u)) img , e
  where
    u = fi3 M (st s)
    k2 = pgL erased ∷ map (λ i → pgR i erased) (ix (length (dr (syncAll (ck1 u)))))
fi-point-in ps cov (inj₂ (inj₂ (inj₁ (img , e)))) = _ , fce , img , e
fi-point-in {s} {M} {s''} ps cov (inj₂ (inj₂ (inj₂ (inj₁ (img , e))))) =
  _ , fk (after [] [] [] []) , Img-same {run (apR (rec (st s))) (fi3 M (st s))} {fiK M (st s)} {s''} (fiK-all M (st s)) img , e
fi-point-in ps cov (inj₂ (inj₂ (inj₂ (inj₂ (img , e))))) = _ , fe , img , e
