{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, space in the one model, first step: the delta region's room
-- and the W/K bounds over PU's steps (PUS: the barrier without SYNC,
-- the durable barrier, the SYNC outside a commit), as
-- SCFTL.Impl.SpaceRegion proves them over P's.
--
-- PUSR is PUS with the code's region rules (delta.rs, flush.rs
-- `after_commit`, `commit_leaves_region_short`, mod.rs `open`):
--
--   * a write or relocation: SpaceRegion's `Tent` (a tentative page only
--     when the delta buffer fills, the buffer under a page);
--   * a barrier, a flush and a recovery: `Room` after it (epoch_pages_max
--     + 1 region pages left), else it ends in a full checkpoint;
--   * an erase, the SYNC outside a commit: nothing (neither moves the
--     region's length nor the epoch's fields).
--
-- The barrier is where PU's steps go beyond P's: a barrier without SYNC
-- (`flB`) ends the epoch with a committed page in the region and no
-- SYNC, so the region holds it until a later SYNC and checkpoint.  When
-- `flB` would leave the region short, the code's barrier commits durably
-- and takes the full checkpoint (the twenty-sixth session's change);
-- PU's barrier may be that durable barrier at any count of unsynced
-- epochs (`FlOk`: `ck3 (fl3 _)`), so the rules refuse no barrier
-- (`lift`).  Before that change PU's durable barrier was guarded by
-- `umax ≤ length ues`, and below `umax` a barrier whose `flB` leaves the
-- region short had no step the rule allows.
--
-- Results:
--   `RInvS`, `ok-invS`, `rec-invS` : SpaceRegion's `RInv` of P's state
--             inside PU's, kept by every step of PUSR and made by every
--             recovery;
--   `roomS`  : a free region page in every such state;
--   `crash-roomS` : no crash point of a normal operation (write, GC,
--             erase, SYNC, the barrier with and without SYNC, the flush
--             and its full checkpoint) puts more than D pages in the
--             region;
--   `obligationsSR`, `theorem1-PUSR`, `PUSR-snapshot-consistent` :
--             Theorem 1 against SB and SC1B for PUSR (PUS's obligations,
--             RI extended by `RInvS`);
--   `lift`, `lift-rec`, `barrier-lifts` : given (4) as epm + 1 <= D,
--             for every step of
--             PUS from a state of the invariant there is a step of PUSR
--             with the same operation (the same step where it keeps the
--             rule; a barrier or flush that would leave the region short
--             as the durable commit with the full checkpoint), and every
--             recovery of PUS keeps the rule; mutant 46
--             (SCFTL.Mutants.BarrierDurableOnlyAtUmax): with the durable
--             barrier only at `umax` (`BarrierLifts`) a barrier is refused.
--
--   `PUSBicR`, `ok-invX`, `rec-invX`, `obligationsXR`,
--             `theorem1-PUSBicR`, `PUSBicR-snapshot-consistent`, `liftX`,
--             `liftX-rec` : the same over PUSBic, PX's PU half — with
--             the in-page and OOB commits (SpaceRegion's rule for them:
--             epoch_pages_max left in P's state, whose consolidation
--             page P writes at once; else the commit with the full
--             checkpoint), recovery without the checkpoint (`Room`, else
--             the recovery with it from the same slot and parse), and the
--             sync behind (no region page).
--
-- Not here: the lazy chain's steps (PL: the lazy commit, the
-- consolidation page owed before the next region page), and so not yet
-- PX; `crash-roomS` for PUSBic's own crash points (the in-page/OOB
-- commit's commands, the sync behind); the data superblocks.  See
-- proofs/README.md, "Space over PU's barrier".
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRegionBarrier (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (pp D : ℕ) where

open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-refl; ≤-trans; ≤-reflexive; n≤1+n; _≤?_)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; take; drop)
open import Data.List.Properties using (length-map)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (yes; no)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (St; MC; wcnt; gcnt; ept; dbuf; dr; gen; ep; fl2; fl3; ck1; ck2; ck3; fi3; fi4; FlPt; CkPt; Img; sync; okP; rd; nxt)
open import SCFTL.Impl.SpaceRegion Data d0 amax wmax kmax _≟D_ pp D
  using (RInv; Tent; Room; RoomK; room-k; fresh-inv; room; ok-inv; drL; epm; len-img; reg-len; fl-len)
  renaming (Fresh to FreshR; lift to liftP; lift-nxt-w to liftP-nxt-w; lift-nxt-rl to liftP-nxt-rl)
import SCFTL.Spec Data d0 amax wmax as Sp
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; flB)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recU)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_
  using (SU; ⟦_,_⟧; su; gh; ghostN; okPU; crashPU; NewPU; okM; CrM; CrF; FlOk; RecOk)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_
  using (okS; crashS; PUS; syS; syU; landR; obligationsS)
open import SCFTL.Impl.UnsyncedSyncInPage Data d0 amax wmax kmax umax _≟D_ using (okSi; FiOk; RecC)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (PartSy; syB; syBU)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (okX; crashX; PUSBic; obligationsX)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (lay)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (tents; ue)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The rules

PolU : SB.Op → SU → SU → Set
PolU (SB.use (SB.reg (SB.op (SB.w a d)))) S S' = Tent (st (su S)) (st (su S'))
PolU (SB.use (SB.reg (SB.op SB.rl)))      S S' = Tent (st (su S)) (st (su S'))
PolU (SB.use (SB.reg (SB.op SB.es)))      S S' = ⊤
PolU (SB.use (SB.reg (SB.op SB.sy)))      S S' = ⊤
PolU (SB.use (SB.reg SB.barrier))         S S' = Room (st (su S'))
PolU (SB.use SB.flush)                    S S' = Room (st (su S'))
PolU SB.recover                           S S' = Room (st (su S'))

okSR : SB.Op → SU → SU → Set
okSR o S S' = okS o S S' × PolU o S S'

PUSR : SB.Model
PUSR = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okSR ; crash = crashS }

RInvS : SU → Set
RInvS S = RInv (st (su S))

------------------------------------------------------------------------
-- How PU's own steps move the fields

-- the SYNC outside a commit keeps the region's length
len-landR : ∀ n (ms : List MC) → length (landR n ms) ≡ length ms
len-landR zero    ms       = length-map sync ms
len-landR (suc n) []       = refl
len-landR (suc n) (m ∷ ms) = cong suc (len-landR n ms)

len-syU : ∀ es r x → drL (syU es r x) ≡ drL x
len-syU es r x = len-landR (length (ept x)) (dr x)

-- the barrier without SYNC: one page more, a new epoch
len-flB : ∀ x → drL (flB x) ≡ suc (drL x)
len-flB x = refl

fresh-flB : ∀ x → FreshR (flB x)
fresh-flB x = refl , refl , refl , refl

fresh-fl : ∀ {s s'} → FlOk s s' → FreshR (st s')
fresh-fl (inj₁ refl) = refl , refl , refl , refl
fresh-fl (inj₂ refl) = refl , refl , refl , refl

fresh-recU : ∀ b g C pr es' x → FreshR (recU b g C pr es' x)
fresh-recU b g C pr es' x = refl , refl , refl , refl

private
  ≡≤ : ∀ {a b c} → a ≡ b → b ≤ c → a ≤ c
  ≡≤ refl le = le

  -- a step that moves none of the fields RInv reads but maybe the
  -- region's pages (not their number)
  same : ∀ {s x} → wcnt x ≡ wcnt s → gcnt x ≡ gcnt s → ept x ≡ ept s → dbuf x ≡ dbuf s → drL x ≡ drL s →
         RInv s → RInv x
  same {s} {x} refl refl refl refl eq I = record
    { wB = RInv.wB I ; gB = RInv.gB I ; fB = RInv.fB I ; bB = RInv.bB I ; pB = RInv.pB I
    ; rB = ≡≤ (cong (_+ epm) eq) (RInv.rB I) }

  sy-inv : ∀ {es r x} → RInv x → RInv (syU es r x)
  sy-inv {es} {r} {x} I = same {x} {syU es r x} refl refl refl refl (len-syU es r x) I

------------------------------------------------------------------------
-- Preservation

ok-invS : ∀ u {S S'} → RInvS S → okSR (SB.use u) S S' → RInvS S'
ok-invS (SB.reg (SB.op (SB.w a d))) I (((k , _) , _) , tn) = ok-inv (Sp.reg (Sp.w a d)) I (k , tn)
ok-invS (SB.reg (SB.op SB.rl)) I (((k , _) , _) , tn) = ok-inv (Sp.reg Sp.rl) I (k , tn)
ok-invS (SB.reg (SB.op SB.es)) I (((k , _) , _) , _) = ok-inv (Sp.reg Sp.es) I (k , tt)
ok-invS (SB.reg (SB.op SB.sy)) {⟦ ⟪ s , es ⟫ , g ⟧} {⟦ .(syS r ⟪ s , es ⟫) , g' ⟧} I ((r , _ , refl , _) , _) =
  sy-inv {es} {r} {s} I
ok-invS (SB.reg SB.barrier) {S} {⟦ ⟪ .(flB (st (su S))) , _ ⟫ , _ ⟧} I ((inj₁ (_ , refl) , _) , rm) =
  fresh-inv {flB (st (su S))} (fresh-flB (st (su S))) (room-k {flB (st (su S))} rm)
ok-invS (SB.reg SB.barrier) {S} {S'} I ((inj₂ f , _) , rm) =
  fresh-inv {st (su S')} (fresh-fl {su S} {su S'} f) (room-k {st (su S')} rm)
ok-invS SB.flush {S} {S'} I ((f , _) , rm) =
  fresh-inv {st (su S')} (fresh-fl {su S} {su S'} f) (room-k {st (su S')} rm)

-- a recovery, from any state, starts an epoch with room
rec-invS : ∀ {S S'} → okSR SB.recover S S' → RInvS S'
rec-invS {S} {⟦ ⟪ .(recU b g C (proj₂ (gh S)) es' (st (su S))) , _ ⟫ , _ ⟧}
  (((b , g , C , _ , T , es' , _ , _ , refl) , _) , rm) =
  fresh-inv {recU b g C (proj₂ (gh S)) es' (st (su S))} (fresh-recU b g C (proj₂ (gh S)) es' (st (su S)))
    (room-k {recU b g C (proj₂ (gh S)) es' (st (su S))} rm)

-- **The room theorem** in PU's states: a free region page for the next
-- page
roomS : ∀ {S} → RInvS S → suc (drL (st (su S))) ≤ D
roomS I = room I

------------------------------------------------------------------------
-- Crash points of normal operations: at most one region page more

private
  -- PUM's flush crash points are P's flush crash points
  crF-pt : ∀ {s s'' gh} → CrF s s'' gh → Σ St λ m → FlPt (st s) m × Img m s''
  crF-pt {s} (inj₁ (img , _)) = fl2 (st s) , inj₁ refl , img
  crF-pt {s} (inj₂ (inj₁ (img , _))) = fl3 (st s) , inj₂ (inj₁ refl) , img
  crF-pt {s} (inj₂ (inj₂ (inj₁ (inj₁ img , _)))) = ck1 (fl3 (st s)) , inj₂ (inj₂ (inj₁ (inj₁ refl))) , img
  crF-pt {s} (inj₂ (inj₂ (inj₁ (inj₂ img , _)))) = ck2 (fl3 (st s)) , inj₂ (inj₂ (inj₁ (inj₂ (inj₁ refl)))) , img
  crF-pt {s} (inj₂ (inj₂ (inj₂ (img , _)))) = ck3 (fl3 (st s)) , inj₂ (inj₂ (inj₁ (inj₂ (inj₂ refl)))) , img

  crF-room : ∀ {s s'' gh} → RInv (st s) → CrF s s'' gh → drL s'' ≤ D
  crF-room {s} {s''} I c with crF-pt {s} {s''} c
  ... | m , pt , img = ≡≤ (len-img {m} {s''} img) (≤-trans (fl-len {st s} {m} pt) (room I))

crash-roomS : ∀ u {S S'} → RInvS S → crashS (SB.use u) S S' → drL (st (su S')) ≤ D
crash-roomS (SB.reg (SB.op (SB.w a d))) {S} {S'} I ((s' , (k , _) , img , _) , _) =
  ≡≤ (len-img {st s'} {st (su S')} img) (≤-trans (reg-len (Sp.w a d) {st (su S)} {st s'} k) (room I))
crash-roomS (SB.reg (SB.op SB.rl)) {S} {S'} I ((s' , (k , _) , img , _) , _) =
  ≡≤ (len-img {st s'} {st (su S')} img) (≤-trans (reg-len Sp.rl {st (su S)} {st s'} k) (room I))
crash-roomS (SB.reg (SB.op SB.es)) {S} {S'} I ((s' , (k , _) , img , _) , _) =
  ≡≤ (len-img {st s'} {st (su S')} img) (≤-trans (reg-len Sp.es {st (su S)} {st s'} k) (room I))
crash-roomS (SB.reg (SB.op SB.sy)) {S} {S'} I (inj₁ (img , _) , _) =
  ≡≤ (len-img {st (su S)} {st (su S')} img) (≤-trans (n≤1+n _) (room I))
crash-roomS (SB.reg (SB.op SB.sy)) {S} {S'} I (inj₂ (r , _ , img , _) , _) =
  ≡≤ (len-img {st (syS r (su S))} {st (su S')} img)
     (≡≤ (len-syU (ues (su S)) r (st (su S))) (≤-trans (n≤1+n _) (room I)))
crash-roomS (SB.reg SB.barrier) {S} {S'} I (inj₁ (_ , img , _) , _) =
  ≡≤ (len-img {flB (st (su S))} {st (su S')} img) (room I)
crash-roomS (SB.reg SB.barrier) {S} {S'} I (inj₂ c , _) = crF-room {su S} {st (su S')} I c
crash-roomS SB.flush {S} {S'} I (c , _) = crF-room {su S} {st (su S')} I c

------------------------------------------------------------------------
-- Theorem 1 and SC1B for PUSR

private
  module OS = SB.ForwardSimulation.Obligations obligationsS

open SB.ForwardSimulation PUSR SB.SB using () renaming (Obligations to ObligationsSR)

obligationsSR : ObligationsSR
obligationsSR = record
  { AR = OS.AR ; CR = OS.CR
  ; RI = RInvS
  ; CI = λ _ → ⊤
  ; AR⇒≈ = λ {S} {t} → OS.AR⇒≈ {S} {t}
  ; init-CR = λ {S} {t} → OS.init-CR {S} {t}
  ; init-CI = λ _ → tt
  ; A-ok = λ u ar ri k → OS.A-ok u ar tt (proj₁ k)
  ; A-crash = λ u ar ri c → OS.A-crash u ar tt c
  ; A-rec = λ {S} {t} {S'} cr ci k → OS.A-rec {S} {t} {S'} cr tt (proj₁ k)
  ; A-recᶜ = λ {S} {t} {S'} cr ci c → OS.A-recᶜ {S} {t} {S'} cr tt c
  ; B-ok = λ u ri k → ok-invS u ri k
  ; B-crash = λ _ _ _ → tt
  ; B-rec = λ {S} {S'} _ k → rec-invS {S} {S'} k
  ; B-recᶜ = λ _ _ → tt
  }

theorem1-PUSR : SB.CorrespondenceB.BehaviourallyCorrect PUSR SB.SB
theorem1-PUSR = SB.theorem1-SB PUSR obligationsSR

PUSR-snapshot-consistent : SB.SnapshotConsistentB PUSR
PUSR-snapshot-consistent = SB.obligations⇒SCB PUSR obligationsSR

------------------------------------------------------------------------
-- The rules refuse no operation

BarrierLifts : (StU → StU → Set) → Set
BarrierLifts Bm = ∀ {S S'} → RInvS S → okS (SB.use (SB.reg SB.barrier)) S S' →
  Σ StU λ s'' → Bm (su S) s'' × Room (st s'')

module _ (c4 : suc epm ≤ D) where

  -- the durable barrier or flush with the full checkpoint: an empty
  -- region (the checkpoint's), so room by (4)
  ck-step : ∀ S → SU
  ck-step S = ⟦ ⟪ ck3 (fl3 (st (su S))) , [] ⟫ , ghostN ⟪ ck3 (fl3 (st (su S))) , [] ⟫ ⟧

  ck-room : ∀ S → Room (st (su (ck-step S)))
  ck-room S = c4

  -- every step of PUS from a state of the invariant has a step of PUSR
  -- with the same operation: the same step where it keeps the rule; a
  -- barrier or a flush that would leave the region short as the durable
  -- commit with the full checkpoint — for a barrier below `umax` the
  -- durable barrier the code takes since the twenty-sixth session
  -- (`commit_leaves_region_short`)
  lift : ∀ u {S S'} → RInvS S → okS (SB.use u) S S' → Σ SU λ S'' → okSR (SB.use u) S S''
  lift (SB.reg (SB.op (SB.w a d))) {⟦ ⟪ s , es ⟫ , g ⟧} I ((k , refl) , _)
    with liftP c4 (Sp.reg (Sp.w a d)) {s} I k
  ... | s'' , k' , tn = ⟦ ⟪ s'' , es ⟫ , ghostN ⟪ s'' , es ⟫ ⟧ , ((k' , refl) , refl) , tn
  lift (SB.reg (SB.op SB.rl)) {⟦ ⟪ s , es ⟫ , g ⟧} I ((k , refl) , _)
    with liftP c4 (Sp.reg Sp.rl) {s} I k
  ... | s'' , k' , tn = ⟦ ⟪ s'' , es ⟫ , ghostN ⟪ s'' , es ⟫ ⟧ , ((k' , refl) , refl) , tn
  lift (SB.reg (SB.op SB.es)) {S} {S'} I o = S' , o , tt
  lift (SB.reg (SB.op SB.sy)) {S} {S'} I o = S' , o , tt
  lift (SB.reg SB.barrier) {S} {S'} I o with drL (st (su S')) + suc epm ≤? D
  ... | yes r = S' , o , r
  ... | no _  = ck-step S , (inj₂ (inj₂ refl) , refl) , ck-room S
  lift SB.flush {S} {S'} I o with drL (st (su S')) + suc epm ≤? D
  ... | yes r = S' , o , r
  ... | no _  = ck-step S , (inj₂ refl , refl) , ck-room S

  -- a write or relocation lifted takes the same next page
  lift-nxt-w : ∀ a d {S S'} (I : RInvS S) (o : okS (SB.use (SB.reg (SB.op (SB.w a d)))) S S') →
               nxt (st (su (proj₁ (lift (SB.reg (SB.op (SB.w a d))) {S} {S'} I o)))) ≡ nxt (st (su S'))
  lift-nxt-w a d {⟦ ⟪ s , es ⟫ , g ⟧} I ((k , refl) , _)
    with liftP c4 (Sp.reg (Sp.w a d)) {s} I k | liftP-nxt-w c4 a d {s} I k
  ... | s'' , k' , tn | e = e

  lift-nxt-rl : ∀ {S S'} (I : RInvS S) (o : okS (SB.use (SB.reg (SB.op SB.rl))) S S') →
                nxt (st (su (proj₁ (lift (SB.reg (SB.op SB.rl)) {S} {S'} I o)))) ≡ nxt (st (su S'))
  lift-nxt-rl {⟦ ⟪ s , es ⟫ , g ⟧} I ((k , refl) , _)
    with liftP c4 (Sp.reg Sp.rl) {s} I k | liftP-nxt-rl c4 {s} I k
  ... | s'' , k' , tn | e = e

  -- the barrier's case as a property of PU's barrier relation: every
  -- barrier of PUS from a state of the invariant has a step of `Bm`
  -- that keeps the rule (mutant 46, SCFTL.Mutants.BarrierDurableOnlyAtUmax:
  -- the durable barrier only at `umax`, as before the twenty-sixth
  -- session, does not)
  barrier-lifts : BarrierLifts (okM (SB.reg SB.barrier))
  barrier-lifts {S} {S'} I o with lift (SB.reg SB.barrier) {S} {S'} I o
  ... | S'' , (k , _) , rm = su S'' , k , rm

  -- every recovery of PUS keeps the rule: it ends in a full checkpoint
  lift-rec : ∀ {S S'} → okS SB.recover S S' → okSR SB.recover S S'
  lift-rec {S} {⟦ ⟪ .(recU b g C (proj₂ (gh S)) es' (st (su S))) , _ ⟫ , _ ⟧}
    o@((b , g , C , _ , T , es' , _ , _ , refl) , _) = o , c4

------------------------------------------------------------------------
-- PUSBicR: the same rules over PUSBic (PUS with the in-page and OOB
-- commits where no epoch is unsynced, recovery without the checkpoint
-- where it accepts every unsynced epoch, and the sync behind): the PU
-- half of PX
--
-- The in-page or OOB commit's consolidation page P writes at once,
-- where the code writes it lazily inside the pages its `after_commit`
-- asks for: after it the rule leaves epoch_pages_max in P's state
-- (SpaceRegion's `Kons`/`RoomK`); recovery without the checkpoint keeps
-- the region and must leave `Room`, else it checkpoints.

PolX : SB.Op → SU → SU → Set
PolX (SB.use SB.flush) S S' = Room (st (su S')) ⊎ (FiOk (su S) (su S') × RoomK (st (su S')))
PolX o S S' = PolU o S S'

okXR : SB.Op → SU → SU → Set
okXR o S S' = okX o S S' × PolX o S S'

PUSBicR : SB.Model
PUSBicR = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okXR ; crash = crashX }

-- the sync behind keeps the region's length
len-syB : ∀ xs ys l r x → drL (syB xs ys l r x) ≡ drL x
len-syB xs ys l r x = len-landR (length (tents (gen x) (ep x) (ept x) ++ lay (map (ue (gen x)) ys) [])) (dr x)

private
  fresh-fi : ∀ {s s'} → FiOk s s' → FreshR (st s')
  fresh-fi (_ , M , _ , inj₁ refl) = refl , refl , refl , refl
  fresh-fi (_ , M , _ , inj₂ refl) = refl , refl , refl , refl

  fresh-flX : ∀ {S S'} → okX (SB.use SB.flush) S S' → FreshR (st (su S'))
  fresh-flX {S} {S'} (inj₁ (f , _)) = fresh-fl {su S} {su S'} f
  fresh-flX {S} {S'} (inj₂ (f , _)) = fresh-fi {su S} {su S'} f

  rk-flX : ∀ {S S'} → PolX (SB.use SB.flush) S S' → RoomK (st (su S'))
  rk-flX {S} {S'} (inj₁ rm) = room-k {st (su S')} rm
  rk-flX (inj₂ (_ , rk)) = rk

ok-invX : ∀ u {S S'} → RInvS S → okXR (SB.use u) S S' → RInvS S'
ok-invX (SB.reg (SB.op (SB.w a d))) {S} {S'} I o = ok-invS (SB.reg (SB.op (SB.w a d))) {S} {S'} I o
ok-invX (SB.reg (SB.op SB.rl)) {S} {S'} I o = ok-invS (SB.reg (SB.op SB.rl)) {S} {S'} I o
ok-invX (SB.reg (SB.op SB.es)) {S} {S'} I o = ok-invS (SB.reg (SB.op SB.es)) {S} {S'} I o
ok-invX (SB.reg (SB.op SB.sy)) {S} {S'} I (inj₁ o , p) = ok-invS (SB.reg (SB.op SB.sy)) {S} {S'} I (o , p)
ok-invX (SB.reg (SB.op SB.sy)) {⟦ ⟪ s , .(xs ++ ys) ⟫ , g ⟧} {⟦ .(syBU xs ys l r ⟪ s , xs ++ ys ⟫) , g' ⟧} I
  (inj₂ (xs , ys , l , r , refl , _ , _ , refl , _) , _) =
  same {s} {syB xs ys l r s} refl refl refl refl (len-syB xs ys l r s) I
ok-invX (SB.reg SB.barrier) {S} {S'} I o = ok-invS (SB.reg SB.barrier) {S} {S'} I o
ok-invX SB.flush {S} {S'} I (o , p) =
  fresh-inv {st (su S')} (fresh-flX {S} {S'} o) (rk-flX {S} {S'} p)

rec-invX : ∀ {S S'} → okXR SB.recover S S' → RInvS S'
rec-invX {S} {S'} (inj₁ o , rm) = rec-invS {S} {S'} (o , rm)
rec-invX {S} {⟦ ⟪ .(recR b g C (proj₂ (gh S)) es' (st (su S))) , _ ⟫ , _ ⟧}
  (inj₂ ((b , g , C , _ , T , es' , _ , _ , _ , _ , refl) , _) , rm) =
  fresh-inv {recR b g C (proj₂ (gh S)) es' (st (su S))} (refl , refl , refl , refl)
    (room-k {recR b g C (proj₂ (gh S)) es' (st (su S))} rm)

private
  module OX = SB.ForwardSimulation.Obligations obligationsX

open SB.ForwardSimulation PUSBicR SB.SB using () renaming (Obligations to ObligationsXR)

obligationsXR : ObligationsXR
obligationsXR = record
  { AR = OX.AR ; CR = OX.CR
  ; RI = RInvS
  ; CI = λ _ → ⊤
  ; AR⇒≈ = λ {S} {t} → OX.AR⇒≈ {S} {t}
  ; init-CR = λ {S} {t} → OX.init-CR {S} {t}
  ; init-CI = λ _ → tt
  ; A-ok = λ u ar ri k → OX.A-ok u ar tt (proj₁ k)
  ; A-crash = λ u ar ri c → OX.A-crash u ar tt c
  ; A-rec = λ {S} {t} {S'} cr ci k → OX.A-rec {S} {t} {S'} cr tt (proj₁ k)
  ; A-recᶜ = λ {S} {t} {S'} cr ci c → OX.A-recᶜ {S} {t} {S'} cr tt c
  ; B-ok = λ u ri k → ok-invX u ri k
  ; B-crash = λ _ _ _ → tt
  ; B-rec = λ {S} {S'} _ k → rec-invX {S} {S'} k
  ; B-recᶜ = λ _ _ → tt
  }

theorem1-PUSBicR : SB.CorrespondenceB.BehaviourallyCorrect PUSBicR SB.SB
theorem1-PUSBicR = SB.theorem1-SB PUSBicR obligationsXR

PUSBicR-snapshot-consistent : SB.SnapshotConsistentB PUSBicR
PUSBicR-snapshot-consistent = SB.obligations⇒SCB PUSBicR obligationsXR

module _ (c4 : suc epm ≤ D) where

  private
    lift′ = lift c4
    lift-rec′ = lift-rec c4

  -- every step of PUSBic from a state of the invariant has a step of
  -- PUSBicR with the same operation (an in-page or OOB commit that would
  -- leave the region short as the same commit with the full checkpoint;
  -- a recovery without the checkpoint that would, as the recovery with
  -- it from the same slot and parse)
  liftX : ∀ u {S S'} → RInvS S → okX (SB.use u) S S' → Σ SU λ S'' → okXR (SB.use u) S S''
  liftX (SB.reg (SB.op (SB.w a d))) {S} {S'} I o = lift′ (SB.reg (SB.op (SB.w a d))) {S} {S'} I o
  liftX (SB.reg (SB.op SB.rl)) {S} {S'} I o = lift′ (SB.reg (SB.op SB.rl)) {S} {S'} I o
  liftX (SB.reg (SB.op SB.es)) {S} {S'} I o = lift′ (SB.reg (SB.op SB.es)) {S} {S'} I o
  liftX (SB.reg (SB.op SB.sy)) {S} {S'} I o = S' , o , tt
  liftX (SB.reg SB.barrier) {S} {S'} I o = lift′ (SB.reg SB.barrier) {S} {S'} I o
  liftX SB.flush {S} {S'} I (inj₁ o) with lift′ SB.flush {S} {S'} I o
  ... | S'' , k , rm = S'' , inj₁ k , inj₁ rm
  liftX SB.flush {S} {S'} I (inj₂ (f@(e , M , ip , inj₁ refl) , g)) with drL (st (su S')) + epm ≤? D
  ... | yes rk = S' , inj₂ (f , g) , inj₂ (f , rk)
  ... | no _  = ⟦ ⟪ ck3 (fi3 M (st (su S))) , [] ⟫ , ghostN ⟪ ck3 (fi3 M (st (su S))) , [] ⟫ ⟧ ,
                inj₂ ((e , M , ip , inj₂ refl) , refl) , inj₁ c4
  liftX SB.flush {S} {S'} I (inj₂ (f@(e , M , ip , inj₂ refl) , g)) = S' , inj₂ (f , g) , inj₁ c4

  -- every recovery of PUSBic has one of PUSBicR from the same state
  liftX-rec : ∀ {S S'} → okX SB.recover S S' → Σ SU λ S'' → okXR SB.recover S S''
  liftX-rec {S} {S'} (inj₁ o) = S' , inj₁ o , proj₂ (lift-rec′ {S} {S'} o)
  liftX-rec {S} {S'} (inj₂ r@((b , g , C , pk , T , es' , p , sh , _ , _ , e) , eu , eg))
    with drL (st (su S')) + suc epm ≤? D
  ... | yes rm = S' , inj₂ r , rm
  ... | no _  = ⟦ ⟪ recU b g C (proj₂ (gh S)) es' (st (su S)) , [] ⟫ , ghostN ⟪ recU b g C (proj₂ (gh S)) es' (st (su S)) , [] ⟫ ⟧ ,
                inj₁ ((b , g , C , pk , T , es' , p , sh , refl) , refl , refl) , c4

  -- a write or relocation lifted takes the same next page (the block
  -- layer's placement reads only `nxt`: SCFTL.Impl.SpaceRegionBlocks)
  liftX-nxt-w : ∀ a d {S S'} (I : RInvS S) (o : okX (SB.use (SB.reg (SB.op (SB.w a d)))) S S') →
                nxt (st (su (proj₁ (liftX (SB.reg (SB.op (SB.w a d))) {S} {S'} I o)))) ≡ nxt (st (su S'))
  liftX-nxt-w a d {S} {S'} I o = lift-nxt-w c4 a d {S} {S'} I o

  liftX-nxt-rl : ∀ {S S'} (I : RInvS S) (o : okX (SB.use (SB.reg (SB.op SB.rl))) S S') →
                 nxt (st (su (proj₁ (liftX (SB.reg (SB.op SB.rl)) {S} {S'} I o)))) ≡ nxt (st (su S'))
  liftX-nxt-rl {S} {S'} I o = lift-nxt-rl c4 {S} {S'} I o
