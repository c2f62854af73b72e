{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, space in the one model: the delta region's room and the W/K
-- bounds over every step of PX (SCFTL.Impl.OneModel), by the phase, as
-- its obligations are.
--
-- PXR is PX with the code's region rules:
--
--   * PUSBic's steps (PX's own phase, and the barrier from the chain
--     phase after the consolidation step): SpaceRegionBarrier's `PolX`
--     (`Tent` for writes and relocations, `Room` after a barrier, flush
--     or recovery, else the full checkpoint; SpaceRegion's `Kons` rule
--     after an in-page or OOB commit);
--   * PL's steps (the chain phase): SpaceRegionLazy's `PolL` (a lazy
--     commit leaves `Room`, the page the chain then owes included).
--
-- The invariant, by the phase: SpaceRegion's `RInv` of P's state in
-- PUSBic's phase (SpaceRegionBarrier's `RInvS`), SpaceRegionLazy's
-- `RInvL` in the chain phase (the region with the page the chain owes).
-- The switches: a step of PL from PUSBic's phase starts from a state
-- with P's RI, so with no chain (`ri-chain-free`): RInv is RInvL there;
-- a barrier from the chain phase runs PUSBic's barrier on the
-- consolidated state `konsU`, whose RInv is RInvL of the state before.
--
-- Results:
--   `RInvQ`, `B-okR`, `B-recR` : the invariant kept by every step of PXR
--             and made by every recovery;
--   `roomX`  : in every such state a region page is free (in the chain
--             phase, past the page the chain owes);
--   `obligationsPXR`, `theorem1-PXR`, `PXR-snapshot-consistent` :
--             Theorem 1 against SB and SC1B for PXR (PX's obligations,
--             RI extended by RInvQ);
--   `RunX`, `region-roomX`, `region-fitsX` : along every run of PXR from
--             format (a recovery, then steps, and crashes of a step each
--             followed by a recovery; every recovery may crash and be
--             retried) a region page stays free in every state, and the
--             region never holds more than D pages;
--   `liftPX`, `liftPX-rec` : given (4) as epm + 1 <= D, the rules refuse
--             no operation of PX: every step of PX from a state of the
--             invariant has a step of PXR with the same operation (the
--             same step where it keeps the rule; a barrier, flush, lazy
--             commit or recovery that would leave the region short as
--             the one ending in a full checkpoint).
--
-- Not here: the crash points' bound for PUSBic's own crash points (the
-- in-page/OOB commit's commands, the sync behind: SpaceRegionBarrier's
-- `crash-roomS` covers PUS's; SpaceRegionLazy's `crash-roomL` covers
-- PL's), and the data superblocks (proofs/README.md, "Not done").
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRegionOne (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc pp D : ℕ) where

open import Data.Nat.Base using (suc; _≤_; s≤s)
open import Data.Nat.Properties using (≤-trans; n≤1+n)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using ([])
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; nxt)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX; ri-X)
open import SCFTL.Impl.UnsyncedBridgeCmVAll Data d0 amax wmax kmax umax _≟D_ using (obligationsX-RI)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (okPL; EraseGuard)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL)
open import SCFTL.Impl.LazyChainBarrier Data d0 amax wmax kmax umax _≟D_ kc using (PLD)
open import SCFTL.Impl.LazyChainKons Data d0 amax wmax kmax _≟D_ kc using (ri-chain-free)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc
  using (XS; konsU; lzS; okL; Pre; NewX; okPX; crashPX; PX; ARP; CRQ; RIQ; CIQ; obligationsPX)
open import SCFTL.Impl.SpaceRegion Data d0 amax wmax kmax _≟D_ pp D using (drL; epm; room)
open import SCFTL.Impl.SpaceRegionBarrier Data d0 amax wmax kmax umax _≟D_ pp D
  using (okXR; RInvS; ok-invX; rec-invX; liftX; liftX-rec; liftX-nxt-w; liftX-nxt-rl)
open import SCFTL.Impl.SpaceRegionLazy Data d0 amax wmax kmax _≟D_ kc pp D
  using (PolL; RInvL; ok-invL; rec-invL; roomL; kS-ge; free-inv; liftL; liftL-rec; liftL-nxt-w; liftL-nxt-rl)
open import SCFTL.Impl.BarrierOps Data d0 amax wmax umax using (oS)
import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module PLDm = SB.Model PLD
  module OXR = SB.ForwardSimulation.Obligations obligationsX-RI
  module OPX = SB.ForwardSimulation.Obligations obligationsPX

------------------------------------------------------------------------
-- The model

okPXR : SB.Op → XS → XS → Set
okPXR (SB.use u) (b , S) (b' , S') =
    (b' ≡ false × Σ SU λ S0 → Pre b u S S0 × okXR (SB.use u) S0 S')
  ⊎ (b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × okL u (st (su S)) s' × PolL (oS (SB.use u)) (st (su S)) s')
okPXR SB.recover (false , S) (b' , S') = b' ≡ false × okXR SB.recover S S'
okPXR SB.recover (true , S) (b' , S') =
  b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × PLDm.ok SB.recover (st (su S)) s' × PolL Sp.recover (st (su S)) s'

PXR : SB.Model
PXR = record { State = XS ; New = NewX ; read = SB.Model.read PX ; ok = okPXR ; crash = crashPX }

-- PXR's steps are PX's
fgt : ∀ u {X X'} → okPXR (SB.use u) X X' → okPX (SB.use u) X X'
fgt u (inj₁ (e , S0 , p , o)) = inj₁ (e , S0 , p , proj₁ o)
fgt u (inj₂ (e , eu , s' , eS , o , _)) = inj₂ (e , eu , s' , eS , o)

fgt-rec : ∀ {X X'} → okPXR SB.recover X X' → okPX SB.recover X X'
fgt-rec {false , S} (e , o) = e , proj₁ o
fgt-rec {true , S} (e , eu , s' , eS , o , _) = e , eu , s' , eS , o

------------------------------------------------------------------------
-- The invariant, by the phase

RInvQ : XS → Set
RInvQ (false , S) = RInvS S
RInvQ (true , S) = RInvL (st (su S))

-- P's RI of a PUSBic state with no epoch unsynced (OneModel's `ril-rix`)
ri-of : ∀ {s g} → OXR.RI ⟦ ⟪ s , [] ⟫ , g ⟧ → RI s
ri-of {s} {g} (t , a , y) = ri-X (ivX {⟦ ⟪ s , [] ⟫ , g ⟧} {t} a) y

-- such a state has no chain, so its RInv is RInvL (a PL step from
-- PUSBic's phase)
rinvL-of : ∀ {s g} → OXR.RI ⟦ ⟪ s , [] ⟫ , g ⟧ → RInvS ⟦ ⟪ s , [] ⟫ , g ⟧ → RInvL s
rinvL-of {s} {g} r I = free-inv {s} (ri-chain-free (ri-of {s} {g} r)) I

private

  -- PL's steps under SB's operations (no barrier, no SYNC outside a
  -- commit in the chain phase)
  stepL : ∀ u {s s'} → RIL s → RInvL s → okL u s s' → PolL (oS (SB.use u)) s s' → RInvL s'
  stepL (SB.reg (SB.op (SB.w a d))) ril I o pol = ok-invL (Sp.reg (Sp.w a d)) ril I (o , pol)
  stepL (SB.reg (SB.op SB.rl)) ril I o pol = ok-invL (Sp.reg Sp.rl) ril I (o , pol)
  stepL (SB.reg (SB.op SB.es)) ril I o pol = ok-invL (Sp.reg Sp.es) ril I (o , pol)
  stepL (SB.reg (SB.op SB.sy)) ril I () pol
  stepL (SB.reg SB.barrier) ril I () pol
  stepL SB.flush ril I o pol = ok-invL Sp.flush ril I (o , pol)

B-okR : ∀ u {X X'} → RIQ X × RInvQ X → okPXR (SB.use u) X X' → RInvQ X'
B-okR u {false , S} {.false , S'} (_ , I) (inj₁ (refl , .S , refl , o)) = ok-invX u {S} {S'} I o
B-okR (SB.reg SB.barrier) {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.false , S'} ((refl , _) , I) (inj₁ (refl , ._ , refl , o)) =
  ok-invX (SB.reg SB.barrier) {konsU (lzS s g)} {S'} I o
B-okR (SB.reg (SB.op _)) {true , _} _ (inj₁ (_ , _ , () , _))
B-okR SB.flush {true , _} _ (inj₁ (_ , _ , () , _))
B-okR u {false , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} (r , I) (inj₂ (refl , refl , s' , refl , o , pol)) =
  stepL u (inj₁ (ri-of {s} {g} r)) (rinvL-of {s} {g} r I) o pol
B-okR u {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} ((refl , ril) , I) (inj₂ (refl , refl , s' , refl , o , pol)) =
  stepL u ril I o pol

B-recR : ∀ {X X'} → okPXR SB.recover X X' → RInvQ X'
B-recR {false , S} {.false , S'} (refl , o) = rec-invX {S} {S'} o
B-recR {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} (refl , refl , s' , refl , o , pol) = rec-invL {s} {s'} (o , pol)

-- **The room theorem** in PX's states: a free region page for the next
-- page (in the chain phase, past the page the chain owes)
roomX : ∀ X → RInvQ X → suc (drL (st (su (proj₂ X)))) ≤ D
roomX (false , S) I = room I
roomX (true , S) I = ≤-trans (s≤s (kS-ge (st (su S)))) (roomL {st (su S)} I)

------------------------------------------------------------------------
-- The obligations, Theorem 1 and snapshot consistency for PXR

open SB.ForwardSimulation PXR SB.SB using () renaming (Obligations to ObligationsPXR)

obligationsPXR : ObligationsPXR
obligationsPXR = record
  { AR = ARP ; CR = CRQ
  ; RI = λ X → RIQ X × RInvQ X
  ; CI = CIQ
  ; AR⇒≈ = λ {X} {t} a → OPX.AR⇒≈ {X} {t} a
  ; init-CR = λ {X} {t} → OPX.init-CR {X} {t}
  ; init-CI = λ {X} → OPX.init-CI {X}
  ; A-ok = λ u ar ri k → OPX.A-ok u ar (proj₁ ri) (fgt u k)
  ; A-crash = λ u ar ri c → OPX.A-crash u ar (proj₁ ri) c
  ; A-rec = λ {X} {t} {X'} cr ci k → OPX.A-rec {X} {t} {X'} cr ci (fgt-rec {X} {X'} k)
  ; A-recᶜ = λ {X} {t} {X'} cr ci c → OPX.A-recᶜ {X} {t} {X'} cr ci c
  ; B-ok = λ u ri k → OPX.B-ok u (proj₁ ri) (fgt u k) , B-okR u ri k
  ; B-crash = λ u ri c → OPX.B-crash u (proj₁ ri) c
  ; B-rec = λ {X} {X'} ci k → OPX.B-rec {X} {X'} ci (fgt-rec {X} {X'} k) , B-recR {X} {X'} k
  ; B-recᶜ = λ {X} {X'} ci c → OPX.B-recᶜ {X} {X'} ci c
  }

theorem1-PXR : SB.CorrespondenceB.BehaviourallyCorrect PXR SB.SB
theorem1-PXR = SB.theorem1-SB PXR obligationsPXR

PXR-snapshot-consistent : SB.SnapshotConsistentB PXR
PXR-snapshot-consistent = SB.obligations⇒SCB PXR obligationsPXR

------------------------------------------------------------------------
-- The region never overflows, along every run

-- a recovery after a crash: crashes of recoveries, then one that ends
data Recov : XS → XS → Set where
  recd : ∀ {Z X1} → okPXR SB.recover Z X1 → Recov Z X1
  recᶜ : ∀ {Z Z' X1} → crashPX SB.recover Z Z' → Recov Z' X1 → Recov Z X1

-- a run after format's recovery: steps, and crashes of a step each
-- followed by a recovery
data RunX : XS → XS → Set where
  done  : ∀ {X} → RunX X X
  step  : ∀ u {X X1 X'} → okPXR (SB.use u) X X1 → RunX X1 X' → RunX X X'
  crash : ∀ u {X Z X1 X'} → crashPX (SB.use u) X Z → Recov Z X1 → RunX X1 X' → RunX X X'

recov-inv : ∀ {Z X1} → CIQ Z → Recov Z X1 → RIQ X1 × RInvQ X1
recov-inv {Z} {X1} ci (recd k) = OPX.B-rec {Z} {X1} ci (fgt-rec {Z} {X1} k) , B-recR {Z} {X1} k
recov-inv {Z} ci (recᶜ {Z' = Z'} c r) = recov-inv (OPX.B-recᶜ {Z} {Z'} ci c) r

run-inv : ∀ {X X'} → RIQ X × RInvQ X → RunX X X' → RIQ X' × RInvQ X'
run-inv ri done = ri
run-inv ri (step u k r) = run-inv (OPX.B-ok u (proj₁ ri) (fgt u k) , B-okR u ri k) r
run-inv ri (crash u c rc r) = run-inv (recov-inv (OPX.B-crash u (proj₁ ri) c) rc) r

-- the code's rules: a page to spare in every state of every run from
-- format (whose first recovery may crash too)
region-roomX : ∀ {X0 X1 X} → NewX X0 → Recov X0 X1 → RunX X1 X → suc (drL (st (su (proj₂ X)))) ≤ D
region-roomX {X0} {X1} {X} n k r = roomX X (proj₂ (run-inv (recov-inv (OPX.init-CI {X0} n) k) r))

region-fitsX : ∀ {X0 X1 X} → NewX X0 → Recov X0 X1 → RunX X1 X → drL (st (su (proj₂ X))) ≤ D
region-fitsX n k r = ≤-trans (n≤1+n _) (region-roomX n k r)

------------------------------------------------------------------------
-- The rules refuse no operation

module _ (c4 : suc epm ≤ D) where

  private
    liftLB : ∀ u {s s'} → RInvL s → okL u s s' → Σ St λ s'' → okL u s s'' × PolL (oS (SB.use u)) s s''
    liftLB (SB.reg (SB.op (SB.w a d))) I o with liftL c4 (Sp.reg (Sp.w a d)) I o
    ... | s'' , o' , pol = s'' , o' , pol
    liftLB (SB.reg (SB.op SB.rl)) I o with liftL c4 (Sp.reg Sp.rl) I o
    ... | s'' , o' , pol = s'' , o' , pol
    liftLB (SB.reg (SB.op SB.es)) I o with liftL c4 (Sp.reg Sp.es) I o
    ... | s'' , o' , pol = s'' , o' , pol
    liftLB (SB.reg (SB.op SB.sy)) I ()
    liftLB (SB.reg SB.barrier) I ()
    liftLB SB.flush I o with liftL c4 Sp.flush I o
    ... | s'' , o' , pol = s'' , o' , pol

  -- for every step of PX from a state of the invariant there is a step
  -- of PXR with the same operation (SpaceRegionBarrier's `liftX` in
  -- PUSBic's phase and for the barrier from the chain phase,
  -- SpaceRegionLazy's `liftL` for PL's steps)
  liftPX : ∀ u {X X'} → RIQ X → RInvQ X → okPX (SB.use u) X X' → Σ XS λ X'' → okPXR (SB.use u) X X''
  liftPX u {false , S} {.false , S'} r I (inj₁ (refl , .S , refl , o)) with liftX c4 u {S} {S'} I o
  ... | S'' , k = (false , S'') , inj₁ (refl , S , refl , k)
  liftPX (SB.reg SB.barrier) {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.false , S'} (refl , _) I (inj₁ (refl , ._ , refl , o))
    with liftX c4 (SB.reg SB.barrier) {konsU (lzS s g)} {S'} I o
  ... | S'' , k = (false , S'') , inj₁ (refl , konsU (lzS s g) , refl , k)
  liftPX (SB.reg (SB.op _)) {true , _} _ _ (inj₁ (_ , _ , () , _))
  liftPX SB.flush {true , _} _ _ (inj₁ (_ , _ , () , _))
  liftPX u {false , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} r I (inj₂ (refl , refl , s' , refl , o))
    with liftLB u (rinvL-of {s} {g} r I) o
  ... | s'' , o' , pol = (true , lzS s'' g) , inj₂ (refl , refl , s'' , refl , o' , pol)
  liftPX u {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} r I (inj₂ (refl , refl , s' , refl , o)) with liftLB u I o
  ... | s'' , o' , pol = (true , lzS s'' g) , inj₂ (refl , refl , s'' , refl , o' , pol)

  -- every recovery of PX has one of PXR from the same state
  liftPX-rec : ∀ {X X'} → okPX SB.recover X X' → Σ XS λ X'' → okPXR SB.recover X X''
  liftPX-rec {false , S} {.false , S'} (refl , o) with liftX-rec c4 {S} {S'} o
  ... | S'' , k = (false , S'') , refl , k
  liftPX-rec {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} (refl , refl , s' , refl , o) with liftL-rec c4 {s} {s'} o
  ... | o' , pol = (true , lzS s' g) , refl , refl , s' , refl , o' , pol

  -- a write or relocation lifted takes the same next page (the block
  -- layer's placement reads only `nxt`: SCFTL.Impl.SpaceRegionBlocks)
  private
    liftLB-nxt-w : ∀ a d {s s'} (I : RInvL s) (o : okL (SB.reg (SB.op (SB.w a d))) s s') →
                   nxt (proj₁ (liftLB (SB.reg (SB.op (SB.w a d))) {s} {s'} I o)) ≡ nxt s'
    liftLB-nxt-w a d {s} {s'} I o with liftL c4 (Sp.reg (Sp.w a d)) {s} {s'} I o | liftL-nxt-w c4 a d {s} {s'} I o
    ... | s'' , o' , pol | e = e

    liftLB-nxt-rl : ∀ {s s'} (I : RInvL s) (o : okL (SB.reg (SB.op SB.rl)) s s') →
                    nxt (proj₁ (liftLB (SB.reg (SB.op SB.rl)) {s} {s'} I o)) ≡ nxt s'
    liftLB-nxt-rl {s} {s'} I o with liftL c4 (Sp.reg Sp.rl) {s} {s'} I o | liftL-nxt-rl c4 {s} {s'} I o
    ... | s'' , o' , pol | e = e

  liftPX-nxt-w : ∀ a d {X X'} (r : RIQ X) (I : RInvQ X) (k : okPX (SB.use (SB.reg (SB.op (SB.w a d)))) X X') →
                 nxt (st (su (proj₂ (proj₁ (liftPX (SB.reg (SB.op (SB.w a d))) {X} {X'} r I k))))) ≡ nxt (st (su (proj₂ X')))
  liftPX-nxt-w a d {false , S} {.false , S'} r I (inj₁ (refl , .S , refl , o))
    with liftX c4 (SB.reg (SB.op (SB.w a d))) {S} {S'} I o | liftX-nxt-w c4 a d {S} {S'} I o
  ... | S'' , k | e = e
  liftPX-nxt-w a d {true , _} _ _ (inj₁ (_ , _ , () , _))
  liftPX-nxt-w a d {false , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} r I (inj₂ (refl , refl , s' , refl , o))
    with liftLB (SB.reg (SB.op (SB.w a d))) (rinvL-of {s} {g} r I) o
       | liftLB-nxt-w a d (rinvL-of {s} {g} r I) o
  ... | s'' , o' , pol | e = e
  liftPX-nxt-w a d {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} r I (inj₂ (refl , refl , s' , refl , o))
    with liftLB (SB.reg (SB.op (SB.w a d))) I o | liftLB-nxt-w a d I o
  ... | s'' , o' , pol | e = e

  liftPX-nxt-rl : ∀ {X X'} (r : RIQ X) (I : RInvQ X) (k : okPX (SB.use (SB.reg (SB.op SB.rl))) X X') →
                  nxt (st (su (proj₂ (proj₁ (liftPX (SB.reg (SB.op SB.rl)) {X} {X'} r I k))))) ≡ nxt (st (su (proj₂ X')))
  liftPX-nxt-rl {false , S} {.false , S'} r I (inj₁ (refl , .S , refl , o))
    with liftX c4 (SB.reg (SB.op SB.rl)) {S} {S'} I o | liftX-nxt-rl c4 {S} {S'} I o
  ... | S'' , k | e = e
  liftPX-nxt-rl {true , _} _ _ (inj₁ (_ , _ , () , _))
  liftPX-nxt-rl {false , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} r I (inj₂ (refl , refl , s' , refl , o))
    with liftLB (SB.reg (SB.op SB.rl)) (rinvL-of {s} {g} r I) o
       | liftLB-nxt-rl (rinvL-of {s} {g} r I) o
  ... | s'' , o' , pol | e = e
  liftPX-nxt-rl {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} r I (inj₂ (refl , refl , s' , refl , o))
    with liftLB (SB.reg (SB.op SB.rl)) I o | liftLB-nxt-rl I o
  ... | s'' , o' , pol | e = e
