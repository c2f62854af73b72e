{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: ONE model.  PX runs PUSBic (every barrier, SYNC and commit
-- mechanism but the lazy chain: SCFTL.Impl.UnsyncedSyncAll) and PL's
-- chain phase (the lazy commits: SCFTL.Impl.LazyChainModel, over SB's
-- operations as PLD, SCFTL.Impl.LazyChainBarrier) as the code runs
-- them, one after the other, and is proven snapshot-consistent in SB's
-- sense (Theorem 1 against SB, SC1B).
--
-- A state of PX is a state of PUSBic (SU: the flash, the unsynced
-- epochs and the durable ghost) with its phase: `false` where PUSBic's
-- invariants hold, `true` in PL's chain phase (no epoch unsynced).  As
-- the code (flush.rs, delta.rs; the Rust oracle `model::oracle`):
--
--   * PUSBic's steps from its own phase (`Pre false`: nothing before);
--   * PL's steps but the barrier (`okL`: writes, GC, the flush, lazy or
--     after the consolidation page; PLD has no `sy` step, and the code
--     issues no SYNC outside a commit with no epoch unsynced) from either
--     phase with no epoch unsynced; they end in the chain phase;
--   * a barrier from the chain phase: PL's consolidation step, then
--     PUSBic's barrier (`Pre true`: `konsS` first, as the oracle's
--     `fl_b` runs `kons_s`); its crash points are those of PL's flush
--     (`konsI` among them: the consolidation page before its SYNC) and
--     PUSBic's barrier's from the consolidated state;
--   * recovery by the phase of the crash: PUSBic's (reading its ghost)
--     after a crash of a PUSBic step, PL's (walking the chain) after a
--     crash of a PL step.  The phase is ghost state, as PU's durable
--     ghost: the code finds it on flash (a chain's records past the
--     region's newest commit, or unsynced epochs above the durable part;
--     never both, since a barrier's committed page follows the
--     consolidation page).
--
--   obligationsPX : ForwardSimulation.Obligations PX SB  (by cases on the
--                   phase: PUSBic's `obligationsX-RI`, PLD's `Lift`, and
--                   the switches of SCFTL.Impl.OneModelSwitch where a step
--                   changes phase)
--   theorem1-PX   : CorrespondenceB.BehaviourallyCorrect PX SB (Theorem 1)
--   PX-snapshot-consistent : SnapshotConsistentB PX          (SC1B)
--
-- Modelling choices, as for the parts (proofs/README.md, "One model"):
-- the code's flush that SYNCs unsynced epochs and then commits lazily is
-- PX's SYNC step (PUSBic's `sy`) followed by its flush (PL's lazy
-- commit), two operations of SB with the effect of one flush; PL's
-- recovery always ends in a full checkpoint where the code may write a
-- consolidation page instead.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModel (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                           (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; rd; smap; wcnt)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (AR; ar; AR-tOf; rdS)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh; Gh; NewPU)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (okX; crashX; ARX; PUSBic)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX; ri-X)
open import SCFTL.Impl.UnsyncedBridgeCmVAll Data d0 amax wmax kmax umax _≟D_ using (obligationsX-RI)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (konsS)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL)
open import SCFTL.Impl.LazyChainBarrier Data d0 amax wmax kmax umax _≟D_ kc using (PLD)
open import SCFTL.Impl.OneModelSwitch Data d0 amax wmax kmax umax _≟D_ kc using (module LL; LAR; pend-nil; L→up)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module OXR = SB.ForwardSimulation.Obligations obligationsX-RI
  module LO  = SB.ForwardSimulation.Obligations LL.obligations
  module PLDm = SB.Model PLD

------------------------------------------------------------------------
-- The model

XS : Set
XS = Bool × SU

-- the state after PL's consolidation step, no epoch unsynced
konsU : SU → SU
konsU S = ⟦ ⟪ konsS (st (su S)) , [] ⟫ , gh S ⟧

-- a state of the chain phase
lzS : St → Gh → SU
lzS s g = ⟦ ⟪ s , [] ⟫ , g ⟧

-- PLD's normal steps but the barrier (a barrier is PUSBic's)
okL : SB.UOp → St → St → Set
okL (SB.reg SB.barrier) _ _ = ⊥
okL u = PLDm.ok (SB.use u)

-- their crash points; from the chain phase, the barrier's consolidation
-- step's too (PL's flush's crash points)
crL : Bool → SB.UOp → St → St → Set
crL false (SB.reg SB.barrier) _ _ = ⊥
crL true  (SB.reg SB.barrier) s s' = PLDm.crash (SB.use (SB.reg SB.barrier)) s s'
crL _ u = PLDm.crash (SB.use u)

-- what comes before PUSBic's step: nothing in its own phase; the
-- consolidation step before a barrier from the chain phase
Pre : Bool → SB.UOp → SU → SU → Set
Pre false u S S0 = S0 ≡ S
Pre true (SB.reg SB.barrier) S S0 = S0 ≡ konsU S
Pre true _ _ _ = ⊥

NewX : XS → Set
NewX (b , S) = b ≡ false × NewPU S

-- PX with the steps before PUSBic's given (`PXwith Pre` is PX; mutant
-- 42, SCFTL.Mutants.BarrierSkipsConsolidation, is PX without the
-- consolidation step before a barrier from the chain phase)
module _ (Pr : Bool → SB.UOp → SU → SU → Set) where
  okPXw : SB.Op → XS → XS → Set
  okPXw (SB.use u) (b , S) (b' , S') =
      (b' ≡ false × Σ SU λ S0 → Pr b u S S0 × okX (SB.use u) S0 S')
    ⊎ (b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × okL u (st (su S)) s')
  okPXw SB.recover (false , S) (b' , S') = b' ≡ false × okX SB.recover S S'
  okPXw SB.recover (true , S) (b' , S') =
    b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × PLDm.ok SB.recover (st (su S)) s'

  crashPXw : SB.Op → XS → XS → Set
  crashPXw (SB.use u) (b , S) (b' , S') =
      (b' ≡ false × Σ SU λ S0 → Pr b u S S0 × crashX (SB.use u) S0 S')
    ⊎ (b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × crL b u (st (su S)) s')
  crashPXw SB.recover (false , S) (b' , S') = b' ≡ false × crashX SB.recover S S'
  crashPXw SB.recover (true , S) (b' , S') =
    b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × PLDm.crash SB.recover (st (su S)) s'

  PXwith : SB.Model
  PXwith = record { State = XS ; New = NewX ; read = λ X → rd (st (su (proj₂ X))) ; ok = okPXw ; crash = crashPXw }

okPX crashPX : SB.Op → XS → XS → Set
okPX = okPXw Pre
crashPX = crashPXw Pre

PX : SB.Model
PX = PXwith Pre

------------------------------------------------------------------------
-- The relations, by phase

ARP : XS → SB.State → Set
ARP (false , S) t = ARX S t
ARP (true , S) t = ues (su S) ≡ [] × SB.pend t ≡ [] × LAR (st (su S)) t

CRQ : XS → SB.State → Set
CRQ (false , S) t = OXR.CR S t
CRQ (true , S) t = ues (su S) ≡ [] × LO.CR (st (su S)) t

RIQ : XS → Set
RIQ (false , S) = OXR.RI S
RIQ (true , S) = ues (su S) ≡ [] × RIL (st (su S))

CIQ : XS → Set
CIQ (false , S) = OXR.CI S
CIQ (true , S) = ues (su S) ≡ [] × LO.CI (st (su S))

------------------------------------------------------------------------
-- Lemmas

private
  okL⇒ : ∀ u {s s'} → okL u s s' → PLDm.ok (SB.use u) s s'
  okL⇒ (SB.reg (SB.op x)) o = o
  okL⇒ (SB.reg SB.barrier) ()
  okL⇒ SB.flush o = o

  crL⇒ : ∀ b u {s s'} → crL b u s s' → PLDm.crash (SB.use u) s s'
  crL⇒ false (SB.reg (SB.op x)) c = c
  crL⇒ true  (SB.reg (SB.op x)) c = c
  crL⇒ false (SB.reg SB.barrier) ()
  crL⇒ true  (SB.reg SB.barrier) c = c
  crL⇒ false SB.flush c = c
  crL⇒ true  SB.flush c = c

  -- PL's steps but the barrier pend nothing in SB
  pend-ok : ∀ u {s s' t t'} → okL u s s' → SB.okSB (SB.use u) t t' → SB.pend t ≡ [] → SB.pend t' ≡ []
  pend-ok (SB.reg (SB.op (SB.w a d))) _ (inj₁ (_ , _ , _ , e , _)) p = trans e p
  pend-ok (SB.reg (SB.op (SB.w a d))) _ (inj₂ (_ , refl)) p = p
  pend-ok (SB.reg (SB.op SB.rl)) _ refl p = p
  pend-ok (SB.reg (SB.op SB.es)) _ refl p = p
  pend-ok (SB.reg (SB.op SB.sy)) () _ _
  pend-ok (SB.reg SB.barrier) () _ _
  pend-ok SB.flush _ (_ , _ , e , _) _ = e

  pend-rec : ∀ {t t'} → SB.okSB SB.recover t t' → SB.pend t' ≡ []
  pend-rec (_ , _ , _ , _ , e , _) = e

  -- PLD's AR of a PUSBic state with no epoch unsynced
  lar-arx : ∀ {s g} t → ARX ⟦ ⟪ s , [] ⟫ , g ⟧ t → LAR s t
  lar-arx {s} {g} SB.⟨ v , x , p , w ⟩ a with pend-nil {s} {g} {SB.⟨ v , x , p , w ⟩} a
  lar-arx {s} {g} SB.⟨ v , x , .[] , w ⟩ (((((((vo , c , _) , sa) , _) , _) , _) , _) , _) | refl = ar vo sa c

  -- PL's invariant of a PUSBic state with no epoch unsynced
  ril-rix : ∀ {s g} → OXR.RI ⟦ ⟪ s , [] ⟫ , g ⟧ → RIL s
  ril-rix {s} {g} (t , a , y) = inj₁ (ri-X (ivX {⟦ ⟪ s , [] ⟫ , g ⟧} {t} a) y)


-- PUSBic's invariant after the consolidation step, from PL's
-- (SCFTL.Impl.OneModelRecMaps: a barrier's crash from the chain phase)
rix-kons : ∀ {s} g → RIL s → OXR.RI ⟦ ⟪ konsS s , [] ⟫ , g ⟧
rix-kons {s} g r =
  let k = L→up {s} {rd s} {λ a → rdS s (smap s a)} {wcnt s} g (AR-tOf s) r in
  SB.⟨ rd s , (λ a → rdS s (smap s a)) , [] , wcnt s ⟩ , proj₁ k , proj₂ k

------------------------------------------------------------------------
-- Type A

A-okX : ∀ u {X t X'} → ARP X t → RIQ X → okPX (SB.use u) X X' → Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARP X' t'
A-okX u {false , S} {t} {.false , S'} a r (inj₁ (refl , .S , refl , o)) = OXR.A-ok u {S} {t} {S'} a r o
A-okX (SB.reg SB.barrier) {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {SB.⟨ v , x , .[] , w ⟩} {.false , S'}
      (refl , refl , la) (_ , r) (inj₁ (refl , ._ , refl , o)) =
  OXR.A-ok (SB.reg SB.barrier) {⟦ ⟪ konsS s , [] ⟫ , g ⟧} {SB.⟨ v , x , [] , w ⟩} {S'}
           (proj₁ k) (SB.⟨ v , x , [] , w ⟩ , proj₁ k , proj₂ k) o
  where k = L→up {s} {v} {x} {w} g la r
A-okX (SB.reg (SB.op _)) {true , _} (_ , _ , _) _ (inj₁ (_ , _ , () , _))
A-okX SB.flush {true , _} (_ , _ , _) _ (inj₁ (_ , _ , () , _))
A-okX u {false , ⟦ ⟪ s , .[] ⟫ , g ⟧} {t} {.true , ._} a r (inj₂ (refl , refl , s' , refl , o)) =
  proj₁ A , proj₁ (proj₂ A) , refl , pend-ok u o (proj₁ (proj₂ A)) (pend-nil {s} {g} {t} a) , proj₂ (proj₂ A)
  where A = LO.A-ok u {s} {t} {s'} (lar-arx {s} {g} t a) (ril-rix {s} {g} r) (okL⇒ u o)
A-okX u {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {t} {.true , ._} (refl , p , la) (_ , r) (inj₂ (refl , refl , s' , refl , o)) =
  proj₁ A , proj₁ (proj₂ A) , refl , pend-ok u o (proj₁ (proj₂ A)) p , proj₂ (proj₂ A)
  where A = LO.A-ok u {s} {t} {s'} la r (okL⇒ u o)

A-crashX : ∀ u {X t X'} → ARP X t → RIQ X → crashPX (SB.use u) X X' → Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRQ X' t'
A-crashX u {false , S} {t} {.false , S'} a r (inj₁ (refl , .S , refl , c)) = OXR.A-crash u {S} {t} {S'} a r c
A-crashX (SB.reg SB.barrier) {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {SB.⟨ v , x , .[] , w ⟩} {.false , S'}
         (refl , refl , la) (_ , r) (inj₁ (refl , ._ , refl , c)) =
  OXR.A-crash (SB.reg SB.barrier) {⟦ ⟪ konsS s , [] ⟫ , g ⟧} {SB.⟨ v , x , [] , w ⟩} {S'}
              (proj₁ k) (SB.⟨ v , x , [] , w ⟩ , proj₁ k , proj₂ k) c
  where k = L→up {s} {v} {x} {w} g la r
A-crashX (SB.reg (SB.op _)) {true , _} (_ , _ , _) _ (inj₁ (_ , _ , () , _))
A-crashX SB.flush {true , _} (_ , _ , _) _ (inj₁ (_ , _ , () , _))
A-crashX u {false , ⟦ ⟪ s , .[] ⟫ , g ⟧} {t} {.true , ._} a r (inj₂ (refl , refl , s' , refl , c)) =
  proj₁ A , proj₁ (proj₂ A) , refl , proj₂ (proj₂ A)
  where A = LO.A-crash u {s} {t} {s'} (lar-arx {s} {g} t a) (ril-rix {s} {g} r) (crL⇒ false u c)
A-crashX u {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {t} {.true , ._} (refl , p , la) (_ , r) (inj₂ (refl , refl , s' , refl , c)) =
  proj₁ A , proj₁ (proj₂ A) , refl , proj₂ (proj₂ A)
  where A = LO.A-crash u {s} {t} {s'} la r (crL⇒ true u c)

A-recX : ∀ {X t X'} → CRQ X t → CIQ X → okPX SB.recover X X' → Σ SB.State λ t' → SB.okSB SB.recover t t' × ARP X' t'
A-recX {false , S} {t} {.false , S'} cr ci (refl , o) = OXR.A-rec {S} {t} {S'} cr ci o
A-recX {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {t} {.true , ._} (refl , cr) (_ , ci) (refl , refl , s' , refl , o) =
  proj₁ A , proj₁ (proj₂ A) , refl , pend-rec {t} {proj₁ A} (proj₁ (proj₂ A)) , proj₂ (proj₂ A)
  where A = LO.A-rec {s} {t} {s'} cr ci o

A-recᶜX : ∀ {X t X'} → CRQ X t → CIQ X → crashPX SB.recover X X' → Σ SB.State λ t' → SB.crashSB SB.recover t t' × CRQ X' t'
A-recᶜX {false , S} {t} {.false , S'} cr ci (refl , c) = OXR.A-recᶜ {S} {t} {S'} cr ci c
A-recᶜX {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {t} {.true , ._} (refl , cr) (_ , ci) (refl , refl , s' , refl , c) =
  proj₁ A , proj₁ (proj₂ A) , refl , proj₂ (proj₂ A)
  where A = LO.A-recᶜ {s} {t} {s'} cr ci c

------------------------------------------------------------------------
-- Type B

B-okX : ∀ u {X X'} → RIQ X → okPX (SB.use u) X X' → RIQ X'
B-okX u {false , S} {.false , S'} r (inj₁ (refl , .S , refl , o)) = OXR.B-ok u {S} {S'} r o
B-okX (SB.reg SB.barrier) {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.false , S'} (refl , r) (inj₁ (refl , ._ , refl , o)) =
  OXR.B-ok (SB.reg SB.barrier) {⟦ ⟪ konsS s , [] ⟫ , g ⟧} {S'} (rix-kons {s} g r) o
B-okX (SB.reg (SB.op _)) {true , _} _ (inj₁ (_ , _ , () , _))
B-okX SB.flush {true , _} _ (inj₁ (_ , _ , () , _))
B-okX u {false , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} r (inj₂ (refl , refl , s' , refl , o)) =
  refl , LO.B-ok u {s} {s'} (ril-rix {s} {g} r) (okL⇒ u o)
B-okX u {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} (refl , r) (inj₂ (refl , refl , s' , refl , o)) =
  refl , LO.B-ok u {s} {s'} r (okL⇒ u o)

B-crashX : ∀ u {X X'} → RIQ X → crashPX (SB.use u) X X' → CIQ X'
B-crashX u {false , S} {.false , S'} r (inj₁ (refl , .S , refl , c)) = OXR.B-crash u {S} {S'} r c
B-crashX (SB.reg SB.barrier) {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.false , S'} (refl , r) (inj₁ (refl , ._ , refl , c)) =
  OXR.B-crash (SB.reg SB.barrier) {⟦ ⟪ konsS s , [] ⟫ , g ⟧} {S'} (rix-kons {s} g r) c
B-crashX (SB.reg (SB.op _)) {true , _} _ (inj₁ (_ , _ , () , _))
B-crashX SB.flush {true , _} _ (inj₁ (_ , _ , () , _))
B-crashX u {false , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} r (inj₂ (refl , refl , s' , refl , c)) =
  refl , LO.B-crash u {s} {s'} (ril-rix {s} {g} r) (crL⇒ false u c)
B-crashX u {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} (refl , r) (inj₂ (refl , refl , s' , refl , c)) =
  refl , LO.B-crash u {s} {s'} r (crL⇒ true u c)

B-recX : ∀ {X X'} → CIQ X → okPX SB.recover X X' → RIQ X'
B-recX {false , S} {.false , S'} ci (refl , o) = OXR.B-rec {S} {S'} ci o
B-recX {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} (refl , ci) (refl , refl , s' , refl , o) = refl , LO.B-rec {s} {s'} ci o

B-recᶜX : ∀ {X X'} → CIQ X → crashPX SB.recover X X' → CIQ X'
B-recᶜX {false , S} {.false , S'} ci (refl , c) = OXR.B-recᶜ {S} {S'} ci c
B-recᶜX {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} (refl , ci) (refl , refl , s' , refl , c) = refl , LO.B-recᶜ {s} {s'} ci c

------------------------------------------------------------------------
-- Theorem 1 for the one model

AR⇒≈X : ∀ {X t} → ARP X t → SB.Obs (rd (st (su (proj₂ X)))) (SB.read t)
AR⇒≈X {false , S} {t} a = OXR.AR⇒≈ {S} {t} a
AR⇒≈X {true , S} {t} (_ , _ , la) = LO.AR⇒≈ {st (su S)} {t} la

open SB.ForwardSimulation PX SB.SB using () renaming (Obligations to ObligationsPX)

obligationsPX : ObligationsPX
obligationsPX = record
  { AR = ARP ; CR = CRQ ; RI = RIQ ; CI = CIQ
  ; AR⇒≈ = λ {X} {t} a → AR⇒≈X {X} {t} a
  ; init-CR = λ { {false , S} {t} (refl , n) n′ → OXR.init-CR {S} {t} n n′ }
  ; init-CI = λ { {false , S} (refl , n) → OXR.init-CI {S} n }
  ; A-ok = A-okX ; A-crash = A-crashX ; A-rec = A-recX ; A-recᶜ = A-recᶜX
  ; B-ok = B-okX ; B-crash = B-crashX ; B-rec = B-recX ; B-recᶜ = B-recᶜX
  }

-- Theorem 1: every behaviour of the one model is one of SB's
theorem1-PX : SB.CorrespondenceB.BehaviourallyCorrect PX SB.SB
theorem1-PX = SB.theorem1-SB PX obligationsPX

-- SC1B: the one model is snapshot-consistent in SB's sense
PX-snapshot-consistent : SB.SnapshotConsistentB PX
PX-snapshot-consistent = SB.obligations⇒SCB PX obligationsPX

------------------------------------------------------------------------
-- Not vacuous: PX takes every step of PUSBic (in its phase) and every
-- step of PLD but the barrier (with no epoch unsynced), their crashes
-- and recoveries, and the barrier from the chain phase after the
-- consolidation step

pu-ok : ∀ o {S S'} → okX o S S' → okPX o (false , S) (false , S')
pu-ok (SB.use u) {S} o = inj₁ (refl , S , refl , o)
pu-ok SB.recover     o = refl , o

pu-crash : ∀ o {S S'} → crashX o S S' → crashPX o (false , S) (false , S')
pu-crash (SB.use u) {S} c = inj₁ (refl , S , refl , c)
pu-crash SB.recover     c = refl , c

pl-ok : ∀ u {b s s' g} → okL u s s' → okPX (SB.use u) (b , lzS s g) (true , lzS s' g)
pl-ok u {s' = s'} o = inj₂ (refl , refl , s' , refl , o)

pl-crash : ∀ u {b s s' g} → crL b u s s' → crashPX (SB.use u) (b , lzS s g) (true , lzS s' g)
pl-crash u {s' = s'} c = inj₂ (refl , refl , s' , refl , c)

pl-rec : ∀ {s s' g} → PLDm.ok SB.recover s s' → okPX SB.recover (true , lzS s g) (true , lzS s' g)
pl-rec {s' = s'} o = refl , refl , s' , refl , o

pl-recᶜ : ∀ {s s' g} → PLDm.crash SB.recover s s' → crashPX SB.recover (true , lzS s g) (true , lzS s' g)
pl-recᶜ {s' = s'} c = refl , refl , s' , refl , c

-- the barrier from the chain phase: the consolidation step, then
-- PUSBic's barrier (without SYNC, or the forced one)
kons-barrier : ∀ {s g S'} → okX (SB.use (SB.reg SB.barrier)) (konsU (lzS s g)) S' →
               okPX (SB.use (SB.reg SB.barrier)) (true , lzS s g) (false , S')
kons-barrier {s} {g} o = inj₁ (refl , konsU (lzS s g) , refl , o)

-- a crash inside the consolidation step (PL's flush's crash points:
-- `konsI`, the page before its SYNC) or after it, inside the barrier
kons-barrier-crash : ∀ {s g s'} → PLDm.crash (SB.use (SB.reg SB.barrier)) s s' →
                     crashPX (SB.use (SB.reg SB.barrier)) (true , lzS s g) (true , lzS s' g)
kons-barrier-crash {s' = s'} c = inj₂ (refl , refl , s' , refl , c)

barrier-crash-after-kons : ∀ {s g S'} → crashX (SB.use (SB.reg SB.barrier)) (konsU (lzS s g)) S' →
                           crashPX (SB.use (SB.reg SB.barrier)) (true , lzS s g) (false , S')
barrier-crash-after-kons {s} {g} c = inj₁ (refl , konsU (lzS s g) , refl , c)
