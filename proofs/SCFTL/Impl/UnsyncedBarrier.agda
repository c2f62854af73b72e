{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P, fourth step: the barrier WITHOUT SYNC as a
-- real step of a P-level model: normal operation, and the region after
-- a crash; no recovery step.
--
-- PU's state is P's state with the list of the committed unsynced
-- epochs (`ues`, oldest first, each as P wrote it: `E` of
-- SCFTL.Impl.UnsyncedEpochsCrash).  Steps over SB's operations (no
-- recovery yet, see below):
--
--   write, gc      P's, `ues` kept
--   barrier        with fewer than `umax` unsynced epochs: `flB`
--                  (flush.rs `epoch_barrier`, docs/FORMAT.md §4.3 kind 5):
--                  the merge buffer and the committed delta page are
--                  programmed, NO SYNC, the next epoch starts; the
--                  invalid and erasable queues are KEPT (released only at
--                  a SYNC), the ghost stable L2P `smap` kept, the epoch
--                  appended to `ues`.  Or, at any count, P's flush (the
--                  durable barrier; `ues := []`): with `umax` unsynced it
--                  is the only step (the forced SYNC), below it the code
--                  takes it when the commit would leave the delta region
--                  short (flush.rs `commit_leaves_region_short`)
--   flush          P's flush, `ues := []`
--
-- Proven:
--   ues-bound    no step takes `ues` past `umax` (MAX_UNSYNCED_EPOCHS)
--   rd-flB       the barrier without SYNC keeps the read image (SB's
--                barrier keeps `volatile`)
--   flB-queues   ... and the invalid/erasable queues, `smap`, the
--                checkpoint slots, the record slots
--   LayM, lay-ok the delta region of every PU state reached by normal
--                operation from a durable point is laid out as
--                `UnsyncedEpochs.lay` of `ues` (each page unsynced) over
--                the pages below the last SYNC, under the open epoch's
--                tentative pages
--   region-lay, rec-prefixU
--                with no open tentative page, the region recovery reads
--                is `lay (map (ue g) ues) pr`, and `accU` on it ends in
--                the replay state at the last SYNC or at one barrier of
--                `ues` (`rec-prefixP` on PU's states)
--   crashEs, crash-recU, barrier-crash-prefix
--                a crash (P's `Img`) of such a state — in particular right
--                after a barrier's programs — leaves a region that is
--                `lay` of the epochs as the crash left them (`CrashEs`)
--                over the durable pages, and `accU` on it ends at the
--                last SYNC or at one barrier of `ues` AS WRITTEN
--                (`crash-rec-prefix` on PU's crashed states)
--   ARv, barrier-A, len-mis₁, len-mis₂
--                a part of the abstraction relation against SB (read
--                image, write counter, as many unsynced epochs as pending
--                snapshots): PU's barrier without SYNC is SB's barrier
--                leaving the image pending, PU's durable barrier SB's
--                durable one; a PU and an SB barrier step that leave as
--                many unsynced epochs as pending images took the same
--                branch (`len-mis₁`, `len-mis₂`)
--   A-okU        type A at the level of ARv for write (`write-A`), GC
--                relocation (`rl-A`), flush (`flush-A`) and both
--                barriers (`barrier-A`, `barrier-sync-A`), with the
--                invariant `Below` (the L2P maps below the active
--                pointer)
--   GcI, gcI-ok, es-A, A-okG
--                the two-phase GC invariant with unsynced epochs (no page
--                in the invalid or erasable queue is mapped; the L2P's
--                pages name their address) is kept by every normal step,
--                the queues kept across `flB` and released at a SYNC;
--                with it gc_es keeps the read image, and type A at the
--                level of ARv holds for EVERY normal operation (`A-okG`)
--   SmI, smI-ok, rdS-flB, barrier-stable, flush-stable, ARU, A-full
--                the stable L2P's pages are below the active pointer, not
--                in the merge buffer, not erasable (kept by every normal
--                step); the barrier without SYNC keeps the stable image, a
--                flush makes the read image stable; so type A holds for
--                every normal operation against SB with ARU = ARv plus
--                "the stable L2P reads SB's stable image" (`A-full`)
--
-- (The pending images, the data pages after a crash and SB's crash
-- outcomes: SCFTL.Impl.UnsyncedImages, UnsyncedBase, UnsyncedCrashes,
-- UnsyncedCheckpoint.)
-- NOT proven here: PU's recovery step (P's `rview`/`recMap` built on
-- `accU`; which replay state it picks is `crash-recU`, but not the data
-- pages' content, `verD` with an invariant), a representation invariant
-- for PU (P's RI assumes every committed region page synced), the full
-- abstraction relation against SB's PENDING images (the images at the
-- barriers: ARU relates only the volatile and the stable image and the
-- number of pending snapshots), type B, the crash obligations, Theorem 1
-- and SC1B for PU.  See proofs/README.md, "Epoch barriers".
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBarrier (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-trans; ≤-refl; ≤-step; _≟_; <⇒≢; <⇒≱)
open import Relation.Nullary using (yes; no; ¬_)
import SCFTL.Impl.Regular
import SCFTL.Impl.Lemmas
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Properties using (map-++-commute; length-++; ++-assoc; ++-identityʳ)
open import Data.Bool.Base using (true; false)
open import Data.Empty using (⊥) renaming (⊥-elim to ⊥-elim′)
open import Data.Unit.Base using (⊤; tt)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_
  using (UEp; lay; accU; rsAt; rec-prefixP)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_

import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
open import SCFTL.Impl.BarrierOps Data d0 amax wmax umax using (oS)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdS; rdD)

------------------------------------------------------------------------
-- The barrier without SYNC

flB : St → St
flB s = let u = fl2 s in
        record u { dbuf = [] ; ept = [] ; wcnt = 0 ; gcnt = 0
                 ; ep = suc (ep s) ; lnk = nothing }

-- the epoch it commits, as UnsyncedEpochsCrash writes epochs
epE : St → E
epE s = ep s , dbuf s , proj₁ (dgOf s) , ept s , nxt s

-- its committed page is the one `ue` names
flB-page : ∀ s → dr (flB s) ≡ uns erased (proj₁ (ue (gen s) (epE s))) ∷ dr s
flB-page s = refl

------------------------------------------------------------------------
-- PU: P's state and the unsynced committed epochs

record StU : Set where
  constructor ⟪_,_⟫
  field
    st  : St
    ues : List E
open StU public

flushOp : SB.Op
flushOp = SB.use SB.flush

-- P's step for a regular operation; PU issues no SYNC outside a commit
-- (`SB.sy`: no step here; `SCFTL.Impl.UnsyncedSync` adds it)
okReg : SB.RegOp → St → St → Set
okReg SB.sy _ _ = ⊥
okReg x         = okP (oS (SB.use (SB.reg (SB.op x))))

okU : SB.UOp → StU → StU → Set
okU (SB.reg (SB.op x)) s s' = okReg x (st s) (st s') × ues s' ≡ ues s
okU (SB.reg SB.barrier) s s' =
    (length (ues s) < umax × s' ≡ ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫)
  ⊎ (okP (oS flushOp) (st s) (st s') × ues s' ≡ [])
okU SB.flush s s' = okP (oS flushOp) (st s) (st s') × ues s' ≡ []

-- a regular operation's SB step keeps SB's stable and pending images,
-- so it is one of SB's crashed outcomes of the operation too
regcU : ∀ x {m m' t t'} → okReg x m m' → SB.okSB (SB.use (SB.reg (SB.op x))) t t' →
        SB.crashSB (SB.use (SB.reg (SB.op x))) t t'
regcU (SB.w a d) _ (inj₁ (_ , _ , e1 , e2 , _)) = e1 , e2
regcU (SB.w a d) _ (inj₂ (_ , refl)) = refl , refl
regcU SB.rl _ refl = refl , refl
regcU SB.es _ refl = refl , refl
regcU SB.sy () _

------------------------------------------------------------------------
-- The bound: never more than umax unsynced epochs

ues-bound : ∀ u {s s'} → length (ues s) ≤ umax → okU u s s' → length (ues s') ≤ umax
ues-bound (SB.reg (SB.op x)) b (_ , e) = subst (λ z → length z ≤ umax) (sym e) b
ues-bound (SB.reg SB.barrier) {s} b (inj₁ (lt , refl)) =
  subst (_≤ umax) (sym (trans (length-++ (ues s)) (+-one (length (ues s))))) lt
  where
    +-one : ∀ n → n Data.Nat.Base.+ 1 ≡ suc n
    +-one zero    = refl
    +-one (suc n) = cong suc (+-one n)
ues-bound (SB.reg SB.barrier) b (inj₂ (_ , e)) = subst (λ z → length z ≤ umax) (sym e) z≤n
ues-bound SB.flush b (_ , e) = subst (λ z → length z ≤ umax) (sym e) z≤n

------------------------------------------------------------------------
-- The barrier without SYNC keeps the read image

rd-flB : ∀ s a → rd (flB s) a ≡ rd s a
rd-flB s a with l2p s a
... | nothing = refl
... | just p with mb s p
...   | nothing = refl
...   | just (d , b) = refl

-- ... and what only a SYNC may change
flB-queues : ∀ s → inv (flB s) ≡ inv s × ers (flB s) ≡ ers s × smap (flB s) ≡ smap s
                 × cpL (flB s) ≡ cpL s × cpO (flB s) ≡ cpO s × rcd (flB s) ≡ rcd s × gen (flB s) ≡ gen s
flB-queues s = refl , refl , refl , refl , refl , refl , refl

------------------------------------------------------------------------
-- A durable page
Syn : MC → Set
Syn m = Σ Cell λ c → m ≡ syn c

all-sync : ∀ xs → All Syn (map sync xs)
all-sync []       = []
all-sync (x ∷ xs) = (cur x , refl) ∷ all-sync xs

------------------------------------------------------------------------
-- The delta region of a PU state: the open epoch's tentative pages on
-- the unsynced epochs (`lay`), each page unsynced, on the pages below

LayM : St → List E → Set
LayM s es = Σ (List MC) λ prM →
  dr s ≡ map (uns erased) (tents (gen s) (ep s) (ept s) ++ lay (map (ue (gen s)) es) []) ++ prM
  × All Syn prM

lay-snoc : ∀ (es : List UEp) x pr → lay (es ++ x ∷ []) pr ≡ lay (x ∷ []) (lay es pr)
lay-snoc []              x pr = refl
lay-snoc ((c , ts) ∷ es) x pr = lay-snoc es x (c ∷ ts ++ pr)

lay-bar : ∀ g es e → lay (map (ue g) (es ++ e ∷ [])) [] ≡ proj₁ (ue g e) ∷ proj₂ (ue g e) ++ lay (map (ue g) es) []
lay-bar g es e = trans (cong (λ z → lay z []) (map-++-commute (ue g) es (e ∷ [])))
                       (lay-snoc (map (ue g) es) (ue g e) [])

-- steps that leave the region and the epoch alone
lay-same : ∀ {s s' es} → dr s' ≡ dr s → gen s' ≡ gen s → ep s' ≡ ep s → ept s' ≡ ept s →
           LayM s es → LayM s' es
lay-same {s} {s'} {es} e1 e2 e3 e4 (prM , e , sy) =
  prM , (λ q → q , sy) (trans e1 (subst (λ z → dr s ≡ map (uns erased) (tents (gen s') (ep s') z ++ lay (map (ue (gen s')) es) []) ++ prM) (sym e4)
                   (subst (λ z → dr s ≡ map (uns erased) (tents (gen s') z (ept s) ++ lay (map (ue (gen s')) es) []) ++ prM) (sym e3)
                     (subst (λ z → dr s ≡ map (uns erased) (tents z (ep s) (ept s) ++ lay (map (ue z) es) []) ++ prM) (sym e2) e))))

lay-emitT : ∀ {s es} → LayM s es → LayM (emitT s) es
lay-emitT {s} (prM , e , sy) = prM , cong (uns erased (dlt (gen s) (ep s) (dbuf s) false ε) ∷_) e , sy

lay-opt : ∀ f1 f2 {s es} → LayM s es → LayM (opt f1 f2 s) es
lay-opt false false l = l
lay-opt true  false {s} {es} l = lay-same {s} {progMB s} {es} refl refl refl refl l
lay-opt false true  {s} {es} l = lay-emitT {s} {es} l
lay-opt true  true  {s} {es} l = lay-emitT {progMB s} {es} (lay-same {s} {progMB s} {es} refl refl refl refl l)

-- the barrier without SYNC appends its epoch
lay-flB : ∀ {s es} → LayM s es → LayM (flB s) (es ++ epE s ∷ [])
lay-flB {s} {es} (prM , e , sy) =
  prM , (λ q → q , sy) (trans (cong (uns erased (proj₁ (ue (gen s) (epE s))) ∷_) e)
              (cong (λ z → map (uns erased) z ++ prM) (sym (lay-bar (gen s) es (epE s)))))

-- a durable point (nothing unsynced, no open tentative page)
lay-durable : ∀ s → ept s ≡ [] → All Syn (dr s) → LayM s []
lay-durable s e sy = dr s , subst (λ z → dr s ≡ map (uns erased) (tents (gen s) (ep s) z ++ []) ++ dr s) (sym e) refl , sy

-- every flush of P leaves its region durable
flush-syn : ∀ {s s'} → okP (oS flushOp) s s' → All Syn (dr s')
flush-syn {s} (inj₁ refl) = all-sync (dr (fl2 s))
flush-syn (inj₂ (inj₁ refl)) = []
flush-syn (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) = []
flush-syn {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) = all-sync (dr (fiK L s))
flush-syn (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) = []
flush-syn {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) = all-sync (dr (fiK M s))

-- every flush of P ends with no open tentative page
flush-ept : ∀ {s s'} → okP (oS flushOp) s s' → ept s' ≡ []
flush-ept (inj₁ refl) = refl
flush-ept (inj₂ (inj₁ refl)) = refl
flush-ept (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) = refl
flush-ept (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) = refl
flush-ept (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) = refl
flush-ept (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) = refl

private
  at : ∀ {s s' : St} {es} → s' ≡ s → LayM s es → LayM s' es
  at refl l = l

  ue-at : ∀ {s s' : StU} → ues s' ≡ ues s → LayM (st s') (ues s) → LayM (st s') (ues s')
  ue-at {s} {s'} e l = subst (LayM (st s')) (sym e) l

lay-w : ∀ a d {s s' es} → okP (oS (SB.use (SB.reg (SB.op (SB.w a d))))) s s' → LayM s es → LayM s' es
lay-w a d {s} {s'} {es} (inj₁ (_ , f1 , f2 , e)) l = at {es = es} e (lay-opt f1 f2 {wr0 a d s} {es} l)
lay-w a d {s} {s'} {es} (inj₂ (_ , e)) l = at {es = es} e l

lay-rl : ∀ {s s' es} → okP (oS (SB.use (SB.reg (SB.op SB.rl)))) s s' → LayM s es → LayM s' es
lay-rl {s} {s'} {es} (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e))) l = at {es = es} e (lay-opt f1 f2 {rl0 p s} {es} l)
lay-rl {s} {s'} {es} (inj₁ (_ , p , _ , inj₂ (_ , e))) l = at {es = es} e l
lay-rl {s} {s'} {es} (inj₂ (_ , e)) l = at {es = es} e l

lay-es : ∀ {s s' es} → okP (oS (SB.use (SB.reg (SB.op SB.es)))) s s' → LayM s es → LayM s' es
lay-es {s} {s'} {es} (p , _ , e) l = at {es = es} e l

-- the invariant: every normal-operation step of PU keeps the layout
lay-ok : ∀ u {s s'} → LayM (st s) (ues s) → okU u s s' → LayM (st s') (ues s')
lay-ok (SB.reg (SB.op (SB.w a d))) {s} {s'} l (o , e) = ue-at {s} {s'} e (lay-w a d {es = ues s} o l)
lay-ok (SB.reg (SB.op SB.rl)) {s} {s'} l (o , e) = ue-at {s} {s'} e (lay-rl {es = ues s} o l)
lay-ok (SB.reg (SB.op SB.es)) {s} {s'} l (o , e) = ue-at {s} {s'} e (lay-es {es = ues s} o l)
lay-ok (SB.reg (SB.op SB.sy)) l (() , _)
lay-ok (SB.reg SB.barrier) {s} l (inj₁ (_ , refl)) = lay-flB {st s} {ues s} l
lay-ok (SB.reg SB.barrier) {s} {s'} l (inj₂ (o , e)) =
  subst (LayM (st s')) (sym e) (lay-durable (st s') (flush-ept o) (flush-syn o))
lay-ok SB.flush {s} {s'} l (o , e) =
  subst (LayM (st s')) (sym e) (lay-durable (st s') (flush-ept o) (flush-syn o))

------------------------------------------------------------------------
-- What recovery reads: with no open tentative page, the region is
-- `lay` of the unsynced epochs over the pages below the last SYNC, and
-- the in-order check ends at the last SYNC or at one barrier

lay-++ : ∀ es X pr → lay es X ++ pr ≡ lay es (X ++ pr)
lay-++ []              X pr = refl
lay-++ ((c , ts) ∷ es) X pr =
  trans (lay-++ es (c ∷ ts ++ X) pr) (cong (λ z → lay es (c ∷ z)) (++-assoc ts X pr))

cur-uns : ∀ xs ms → map cur (map (uns erased) xs ++ ms) ≡ xs ++ map cur ms
cur-uns []       ms = refl
cur-uns (x ∷ xs) ms = cong (x ∷_) (cur-uns xs ms)

region-lay : ∀ {s es} → LayM s es → ept s ≡ [] →
             Σ (List Cell) λ pr → map cur (dr s) ≡ lay (map (ue (gen s)) es) pr
region-lay {s} {es} (prM , e , _) z =
  map cur prM ,
  trans (cong (map cur) e)
   (trans (cur-uns (tents (gen s) (ep s) (ept s) ++ lay (map (ue (gen s)) es) []) prM)
    (subst (λ w → (tents (gen s) (ep s) w ++ lay (map (ue (gen s)) es) []) ++ map cur prM
                  ≡ lay (map (ue (gen s)) es) (map cur prM)) (sym z)
           (lay-++ (map (ue (gen s)) es) [] (map cur prM))))

rec-prefixU : ∀ {s es} → LayM s es → ept s ≡ [] → ∀ D mt →
  Σ (List Cell) λ pr → map cur (dr s) ≡ lay (map (ue (gen s)) es) pr ×
     rp (gen s) (accU (gen s) D pr (map (ue (gen s)) es)) mt
       ∈ rsAt (gen s) (map (ue (gen s)) es) (rp (gen s) pr mt)
rec-prefixU {s} {es} l z D mt with region-lay {s} {es} l z
... | pr , e = pr , e , rec-prefixP (gen s) D pr (map (ue (gen s)) es) mt

------------------------------------------------------------------------
-- After a crash: a PU state with no open tentative page (e.g. right
-- after a barrier's programs) crashes into a region that is `lay` of
-- the epochs as the crash left them (`CrashEs`) over the durable pages,
-- so recovery's in-order check ends at the last SYNC or at one barrier
-- of `ues` AS WRITTEN (`crash-rec-prefix` on PU's crashed states)

-- (Not private: SCFTL.Impl.UnsyncedRecovery uses them too.)
module _ where
  crashL-++ : ∀ xs {ms ys} → CrashL (xs ++ ms) ys →
              Σ (List MC) λ A → Σ (List MC) λ B → ys ≡ A ++ B × CrashL xs A × CrashL ms B
  crashL-++ []       cl = [] , _ , refl , [] , cl
  crashL-++ (x ∷ xs) (c ∷ cl) with crashL-++ xs cl
  ... | A , B , refl , ca , cb = _ ∷ A , B , refl , c ∷ ca , cb

  crashL-syn : ∀ {ms ms'} → All Syn ms → CrashL ms ms' → ms' ≡ ms
  crashL-syn [] [] = refl
  crashL-syn ((c , refl) ∷ sy) (refl ∷ cl) = cong (syn c ∷_) (crashL-syn sy cl)

  crashR : ∀ {c m'} → CrashC (uns erased c) m' → CrashR c (cur m')
  crashR (inj₁ refl)        = inj₂ (inj₁ refl)
  crashR (inj₂ (inj₁ refl)) = inj₁ refl
  crashR (inj₂ (inj₂ refl)) = inj₂ (inj₂ refl)

  crashRs : ∀ xs {ys} → CrashL (map (uns erased) xs) ys → CrashRs xs (map cur ys)
  crashRs []       []       = []
  crashRs (x ∷ xs) (c ∷ cl) = crashR c ∷ crashRs xs cl

  crashRs-++ : ∀ xs {xs2 zs} → CrashRs (xs ++ xs2) zs →
               Σ (List Cell) λ A → Σ (List Cell) λ B → zs ≡ A ++ B × CrashRs xs A × CrashRs xs2 B
  crashRs-++ []       cr = [] , _ , refl , [] , cr
  crashRs-++ (x ∷ xs) (c ∷ cr) with crashRs-++ xs cr
  ... | A , B , refl , ca , cb = _ ∷ A , B , refl , c ∷ ca , cb

  crashRs-[] : ∀ {zs} → CrashRs [] zs → zs ≡ []
  crashRs-[] [] = refl

-- the crashed region pages of a run of epochs are a run of crashed epochs
crashEs : ∀ g es {ys} → CrashRs (lay (map (ue g) es) []) ys →
          Σ (List UEp) λ es' → CrashEs g es es' × ys ≡ lay es' []
crashEs g []       cr = [] , [] , crashRs-[] cr
crashEs g (e ∷ es) {ys} cr with
  crashRs-++ (lay (map (ue g) es) []) {xs2 = proj₁ (ue g e) ∷ proj₂ (ue g e)}
    (subst (CrashRs _) refl
      (subst (λ z → CrashRs z ys)
             (trans (sym (lay-++ (map (ue g) es) [] (proj₁ (ue g e) ∷ proj₂ (ue g e) ++ [])))
                    (cong (λ z → lay (map (ue g) es) [] ++ proj₁ (ue g e) ∷ z) (++-identityʳ (proj₂ (ue g e)))))
             cr))
... | A , ._ , refl , ca , (c′ ∷ cts) with crashEs g es ca
...   | es'' , ces , refl =
  (_ , _) ∷ es'' , (c′ , cts) ∷ ces ,
  trans (lay-++ es'' [] (_ ∷ _)) (cong (λ z → lay es'' (_ ∷ z)) (sym (++-identityʳ _)))

crash-recU : ∀ {m s' es} → LayM m es → ept m ≡ [] → Img m s' → ∀ D mt →
  Σ (List Cell) λ pr → Σ (List UEp) λ es' →
    CrashEs (gen m) es es' × map cur (dr s') ≡ lay es' pr ×
    rp (gen m) (accU (gen m) D pr es') mt ∈ rsAt (gen m) (map (ue (gen m)) es) (rp (gen m) pr mt)
crash-recU {m} {s'} {es} (prM , e , sy) z (_ , _ , _ , cl , _) D mt =
  map cur prM , es' , ces ,
  trans (cong (map cur) d)
   (trans (map-++-commute cur A B)
    (trans (cong₂ _++_ la (cong (map cur) (crashL-syn sy cb)))
           (lay-++ es' [] (map cur prM)))) ,
  crash-rec-prefix (gen m) D (map cur prM) es es' mt ces
  where
    -- the crash lemmas' results, by projections (no `with` over this clause)
    X1 = crashL-++ (map (uns erased) (lay (map (ue (gen m)) es) []))
           (subst (λ w → CrashL w (dr s'))
                  (trans e (cong (λ q → map (uns erased) (tents (gen m) (ep m) q ++ lay (map (ue (gen m)) es) []) ++ prM) z))
                  cl)
    A  = proj₁ X1
    B  = proj₁ (proj₂ X1)
    d  = proj₁ (proj₂ (proj₂ X1))
    ca = proj₁ (proj₂ (proj₂ (proj₂ X1)))
    cb = proj₂ (proj₂ (proj₂ (proj₂ X1)))
    X2 = crashEs (gen m) es (crashRs (lay (map (ue (gen m)) es) []) ca)
    es' = proj₁ X2
    ces = proj₁ (proj₂ X2)
    la  = proj₂ (proj₂ X2)

-- in particular a crash right after a barrier's programs (no SYNC)
barrier-crash-prefix : ∀ {s s' es} → LayM s es → Img (flB s) s' → ∀ D mt →
  Σ (List Cell) λ pr → Σ (List UEp) λ es' →
    CrashEs (gen s) (es ++ epE s ∷ []) es' × map cur (dr s') ≡ lay es' pr ×
    rp (gen s) (accU (gen s) D pr es') mt ∈ rsAt (gen s) (map (ue (gen s)) (es ++ epE s ∷ [])) (rp (gen s) pr mt)
barrier-crash-prefix {s} {s'} {es} l img = crash-recU {flB s} {s'} {es ++ epE s ∷ []} (lay-flB {s} {es} l) refl img

------------------------------------------------------------------------
-- The barrier without SYNC against SB's barrier, at the level of the
-- read image, the write counter and the number of unsynced epochs
-- (SB's pending snapshots): a PART of the abstraction relation (no
-- stable image, no candidates, no representation invariant)

ARv : StU → SB.State → Set
ARv s t = (∀ a → a ≤ amax → rd (st s) a ≡ SB.volatile t a)
        × wcnt (st s) ≡ SB.wcnt t × length (ues s) ≡ length (SB.pend t)

private
  len-snoc : ∀ {A B : Set} (xs : List A) (x : A) (ys : List B) (y : B) →
             length xs ≡ length ys → length (xs ++ x ∷ []) ≡ length (ys ++ y ∷ [])
  len-snoc xs x ys y e = trans (length-++ xs) (trans (cong (Data.Nat.Base._+ 1) e) (sym (length-++ ys)))

-- type A for the barrier without SYNC: SB's barrier leaves the image
-- pending (fewer than umax pending: as many as PU's unsynced epochs)
barrier-A : ∀ {s t s'} → ARv s t → length (ues s) < umax →
            s' ≡ ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫ →
            Σ SB.State λ t' → SB._─b→_ t t' × ARv s' t'
barrier-A {s} {t} (v , c , n) lt refl =
  SB.⟨ SB.volatile t , SB.stable t , SB.pend t ++ SB.volatile t ∷ [] , 0 ⟩ ,
  (refl , refl , inj₁ (subst (_< umax) n lt , refl , refl)) ,
  (λ a le → trans (rd-flB (st s) a) (v a le)) , refl ,
  len-snoc (ues s) (epE (st s)) (SB.pend t) (SB.volatile t) n

-- A barrier step of PU and one of SB with as many unsynced epochs as
-- pending snapshots after them took the same branch: one appended to
-- the list the other emptied would differ in length (`len-mis₁`,
-- `len-mis₂`)
len-mis₁ : ∀ {A B : Set} (xs : List A) (x : A) (ys : List B) → length (xs ++ x ∷ []) ≡ length ys → ys ≡ [] → ⊥
len-mis₁ []       x .[] () refl
len-mis₁ (_ ∷ xs) x .[] () refl

len-mis₂ : ∀ {A B : Set} (xs : List A) (ys : List B) (y : B) → xs ≡ [] → length xs ≡ length (ys ++ y ∷ []) → ⊥
len-mis₂ .[] []       y refl ()
len-mis₂ .[] (_ ∷ ys) y refl ()

------------------------------------------------------------------------
-- Type A for a write, at the level of ARv: no representation invariant
-- is needed beyond `Below` (the volatile L2P maps below the active
-- pointer), which every normal-operation step of PU keeps for writes and
-- barriers (`Below-w`, `Below-flB`)

Below : St → Set
Below s = ∀ b p → b ≤ amax → l2p s b ≡ just p → p < nxt s

private
  module Rg = SCFTL.Impl.Regular Data d0 amax wmax kmax _≟D_
  module Lm = SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_

  rd-opt : ∀ f1 f2 u b → rd (opt f1 f2 u) b ≡ rd u b
  rd-opt false false u b = refl
  rd-opt true  false u b = Rg.rdm-progMB u (l2p u b)
  rd-opt false true  u b = refl
  rd-opt true  true  u b = Rg.rdm-progMB u (l2p u b)

  wcnt-opt : ∀ f1 f2 u → wcnt (opt f1 f2 u) ≡ wcnt u
  wcnt-opt false false u = refl
  wcnt-opt true  false u = refl
  wcnt-opt false true  u = refl
  wcnt-opt true  true  u = refl

  Below-opt : ∀ f1 f2 {u} → Below u → Below (opt f1 f2 u)
  Below-opt false false bl = bl
  Below-opt true  false bl = bl
  Below-opt false true  bl = bl
  Below-opt true  true  bl = bl

  Below-wr0 : ∀ a d {s} → Below s → Below (wr0 a d s)
  Below-wr0 a d {s} bl b p le e with b ≟ a
  ... | yes refl with Rg.just≡ (trans (sym (Lm.upd-here (l2p s) a (just (nxt s)))) e)
  ...   | refl = ≤-refl
  Below-wr0 a d {s} bl b p le e | no ne = ≤-step (bl b p le (trans (sym (Lm.upd-other (l2p s) (just (nxt s)) ne)) e))

  rd-wr0 : ∀ a d {s} (v : ℕ → Data) → Below s → (∀ b → b ≤ amax → rd s b ≡ v b) →
           ∀ b → b ≤ amax → rd (wr0 a d s) b ≡ (v SB.[ a ↦ d ]) b
  rd-wr0 a d {s} v bl vv b le with b ≟ a
  ... | yes refl = trans (Rg.place-rd-here a d s) (sym (Lm.upd-here v a d))
  ... | no ne    =
    trans (cong (rdm (place a d s)) (Lm.upd-other (l2p s) (just (nxt s)) ne))
     (trans (rdm-pl (l2p s b) refl)
      (trans (vv b le) (sym (Lm.upd-other v d ne))))
    where
      rdm-pl : ∀ mp → l2p s b ≡ mp → rdm (place a d s) mp ≡ rdm s mp
      rdm-pl nothing  _ = refl
      rdm-pl (just p) e = cong cellD (Rg.pv-place a d s p (<⇒≢ (bl b p le e)))

Below-flB : ∀ {s} → Below s → Below (flB s)
Below-flB bl = bl

write-A : ∀ a d {s t s'} → ARv s t → Below (st s) → okU (SB.reg (SB.op (SB.w a d))) s s' →
          Σ SB.State λ t' → SB.okSB (SB.use (SB.reg (SB.op (SB.w a d)))) t t' × ARv s' t' × Below (st s')
write-A a d {s} {t} {s'} (v , c , n) bl (inj₁ ((ale , wle) , f1 , f2 , e) , eu) =
  SB.⟨ SB.volatile t SB.[ a ↦ d ] , SB.stable t , SB.pend t , suc (SB.wcnt t) ⟩ ,
  inj₁ ((ale , subst (_≤ wmax) c wle) , refl , refl , refl , refl) ,
  ( (λ b le → trans (cong (λ z → rd z b) e)
                (trans (rd-opt f1 f2 (wr0 a d (st s)) b) (rd-wr0 a d {st s} (SB.volatile t) bl v b le)))
  , trans (cong wcnt e) (trans (wcnt-opt f1 f2 (wr0 a d (st s))) (cong suc c))
  , trans (cong length eu) n ) ,
  subst Below (sym e) (Below-opt f1 f2 {wr0 a d (st s)} (Below-wr0 a d {st s} bl))
write-A a d {s} {t} {s'} (v , c , n) bl (inj₂ (nib , e) , eu) =
  t , inj₂ ((λ { (ale , wle) → nib (ale , subst (_≤ wmax) (sym c) wle) }) , refl) ,
  ( (λ b le → trans (cong (λ z → rd z b) e) (v b le))
  , trans (cong wcnt e) c
  , trans (cong length eu) n ) ,
  subst Below (sym e) bl

------------------------------------------------------------------------
-- Type A for GC relocation, a flush and the forced barrier, at the
-- level of ARv

private
  Below-place : ∀ a d {s} → Below s → Below (place a d s)
  Below-place a d {s} bl = Below-wr0 a d {s} bl

  rd-place-same : ∀ a d {s} → Below s → rd s a ≡ d → ∀ b → b ≤ amax → rd (place a d s) b ≡ rd s b
  rd-place-same a d {s} bl ea b le with b ≟ a
  ... | yes refl = trans (Rg.place-rd-here a d s) (sym ea)
  ... | no ne    =
    trans (cong (rdm (place a d s)) (Lm.upd-other (l2p s) (just (nxt s)) ne)) (rdm-pl (l2p s b) refl)
    where
      rdm-pl : ∀ mp → l2p s b ≡ mp → rdm (place a d s) mp ≡ rdm s mp
      rdm-pl nothing  _ = refl
      rdm-pl (just p) e = cong cellD (Rg.pv-place a d s p (<⇒≢ (bl b p le e)))

  -- the in-page/OOB commit's states read as the state before the flush
  rdm-fi3 : ∀ L s mp → rdm (fi3 L s) mp ≡ rdm s mp
  rdm-fi3 L s nothing  = refl
  rdm-fi3 L s (just p) = cong cellD (Rg.cur-progm (mb s p) (dat s p))

  rdm-ck3′ : ∀ u mp → rdm (ck3 u) mp ≡ rdm u mp
  rdm-ck3′ u nothing  = refl
  rdm-ck3′ u (just p) = refl

  rdm-fl3′ : ∀ s mp → rdm (fl3 s) mp ≡ rdm s mp
  rdm-fl3′ s nothing  = refl
  rdm-fl3′ s (just p) = cong cellD (Rg.cur-progm (mb s p) (dat s p))

-- every flush of P keeps the read image, the L2P and the active pointer,
-- and clears the write counter
private
  rdm-fi4 : ∀ L s mp → rdm (fi4 L s) mp ≡ rdm s mp
  rdm-fi4 L s nothing  = refl
  rdm-fi4 L s (just p) = cong cellD (Rg.cur-progm (mb s p) (dat s p))

flush-rd : ∀ {s s'} → okP (oS flushOp) s s' → ∀ b → rd s' b ≡ rd s b
flush-rd {s} (inj₁ refl) b = rdm-fl3′ s (l2p s b)
flush-rd {s} (inj₂ (inj₁ refl)) b = trans (rdm-ck3′ (fl3 s) (l2p s b)) (rdm-fl3′ s (l2p s b))
flush-rd {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) b = trans (rdm-ck3′ (fi3 L s) (l2p s b)) (rdm-fi3 L s (l2p s b))
flush-rd {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) b = rdm-fi4 L s (l2p s b)
flush-rd {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) b = trans (rdm-ck3′ (fi3 M s) (l2p s b)) (rdm-fi3 M s (l2p s b))
flush-rd {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) b = rdm-fi4 M s (l2p s b)

flush-wcnt : ∀ {s s'} → okP (oS flushOp) s s' → wcnt s' ≡ 0
flush-wcnt (inj₁ refl) = refl
flush-wcnt (inj₂ (inj₁ refl)) = refl
flush-wcnt (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) = refl
flush-wcnt (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) = refl
flush-wcnt (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) = refl
flush-wcnt (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) = refl

Below-flush : ∀ {s s'} → okP (oS flushOp) s s' → Below s → Below s'
Below-flush (inj₁ refl) bl = bl
Below-flush (inj₂ (inj₁ refl)) bl = bl
Below-flush (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) bl = bl
Below-flush (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) bl = bl
Below-flush (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) bl = bl
Below-flush (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) bl = bl

flush-A : ∀ {s t s'} → ARv s t → Below (st s) → okU SB.flush s s' →
          Σ SB.State λ t' → SB.okSB (SB.use SB.flush) t t' × ARv s' t' × Below (st s')
flush-A {s} {t} {s'} (v , c , n) bl (o , eu) =
  SB.⟨ SB.volatile t , SB.volatile t , [] , 0 ⟩ , (refl , refl , refl , refl) ,
  ((λ b le → trans (flush-rd o b) (v b le)) , flush-wcnt o , cong length eu) ,
  Below-flush o bl

-- the durable barrier (forced at umax unsynced epochs): SB's durable barrier
barrier-sync-A : ∀ {s t s'} → ARv s t → Below (st s) →
                 okP (oS flushOp) (st s) (st s') × ues s' ≡ [] →
                 Σ SB.State λ t' → SB._─b→_ t t' × ARv s' t' × Below (st s')
barrier-sync-A {s} {t} {s'} (v , c , n) bl (o , eu) =
  SB.⟨ SB.volatile t , SB.volatile t , [] , 0 ⟩ , (refl , refl , inj₂ (refl , refl)) ,
  ((λ b le → trans (flush-rd o b) (v b le)) , flush-wcnt o , cong length eu) ,
  Below-flush o bl

-- GC relocation: SB's gc is the identity
rl-A : ∀ {s t s'} → ARv s t → Below (st s) → okU (SB.reg (SB.op SB.rl)) s s' →
       Σ SB.State λ t' → SB.okSB (SB.use (SB.reg (SB.op SB.rl))) t t' × ARv s' t' × Below (st s')
rl-A {s} {t} {s'} (v , c , n) bl (inj₁ (_ , p , _ , inj₁ ((ale , val) , f1 , f2 , e)) , eu) =
  t , refl ,
  ( (λ b le → trans (cong (λ z → rd z b) e)
               (trans (rd-opt f1 f2 (rl0 p (st s)) b)
                (trans (rd-place-same (p2l (st s) p) (cellD (pv (st s) p)) {st s} bl (cong (rdm (st s)) val) b le)
                       (v b le))))
  , trans (cong wcnt e) (trans (wcnt-opt f1 f2 (rl0 p (st s))) c)
  , trans (cong length eu) n ) ,
  subst Below (sym e) (Below-opt f1 f2 {rl0 p (st s)} (Below-place (p2l (st s) p) (cellD (pv (st s) p)) {st s} bl))
rl-A {s} {t} {s'} (v , c , n) bl (inj₁ (_ , p , _ , inj₂ (_ , e)) , eu) =
  t , refl ,
  ((λ b le → trans (cong (λ z → rd z b) e) (v b le)) , trans (cong wcnt e) c , trans (cong length eu) n) ,
  subst Below (sym e) bl
rl-A {s} {t} {s'} (v , c , n) bl (inj₂ (_ , e) , eu) =
  t , refl ,
  ((λ b le → trans (cong (λ z → rd z b) e) (v b le)) , trans (cong wcnt e) c , trans (cong length eu) n) ,
  subst Below (sym e) bl

-- type A for every normal operation but gc_es (an erase, which needs the
-- two-phase GC invariant: see proofs/README.md), at the level of ARv
NotEs : SB.UOp → Set
NotEs (SB.reg (SB.op SB.es)) = ⊥
NotEs _                      = ⊤

A-okU : ∀ u → NotEs u → ∀ {s t s'} → ARv s t → Below (st s) → okU u s s' →
        Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARv s' t' × Below (st s')
A-okU (SB.reg (SB.op (SB.w a d))) _ = write-A a d
A-okU (SB.reg (SB.op SB.rl)) _ = rl-A
A-okU (SB.reg (SB.op SB.es)) ()
A-okU (SB.reg (SB.op SB.sy)) _ _ _ (() , _)
A-okU (SB.reg SB.barrier) _ {s} {t} ar bl (inj₁ (lt , refl)) =
  let G = barrier-A {s} {t} ar lt refl in
  proj₁ G , proj₁ (proj₂ G) , proj₂ (proj₂ G) , Below-flB {st s} bl
A-okU (SB.reg SB.barrier) _ {s} {t} {s'} ar bl (inj₂ x) = barrier-sync-A {s} {t} {s'} ar bl x
A-okU SB.flush _ {s} {t} {s'} ar bl o = flush-A {s} {t} {s'} ar bl o

------------------------------------------------------------------------
-- gc_es: the two-phase GC invariant with unsynced epochs.  `GcI`: the
-- L2P maps below the active pointer, to pages whose OOB names the
-- address, and no page in the invalid or erasable queue is mapped.  The
-- queues are kept across a barrier without SYNC (`flB`) and released
-- only at a SYNC; every normal-operation step keeps GcI, and gc_es
-- (the erase of an erasable page) keeps the read image (`es-A`).

Free : St → ℕ → Set
Free s p = p < nxt s × (∀ b → b ≤ amax → l2p s b ≢ just p)

record GcI (s : St) : Set where
  field
    blw  : Below s
    oobI : ∀ b p → b ≤ amax → l2p s b ≡ just p → p2l s p ≡ b
    ersI : ∀ p → ers s p ≡ true → Free s p
    invI : ∀ p → inv s p ≡ true → Free s p

private
  ∨-true′ : ∀ x y → (x Data.Bool.Base.∨ y) ≡ true → x ≡ true ⊎ y ≡ true
  ∨-true′ true  y e = inj₁ refl
  ∨-true′ false y e = inj₂ e

  f≢t : false ≡ true → ⊥
  f≢t ()

  -- a step that keeps the L2P, the active pointer and every page's view
  -- keeps GcI when its queues only lose pages or gain free ones
  keepI : ∀ {s s'} → GcI s → l2p s' ≡ l2p s → nxt s' ≡ nxt s →
          (∀ b p → b ≤ amax → l2p s b ≡ just p → pv s' p ≡ pv s p) →
          (∀ p → ers s' p ≡ true → Free s p) → (∀ p → inv s' p ≡ true → Free s p) → GcI s'
  keepI {s} {s'} g el en epv er ei = record
    { blw  = λ b p le e → subst (p <_) (sym en) (GcI.blw g b p le (trans (sym (cong (λ f → f b) el)) e))
    ; oobI = λ b p le e → trans (cong oob (epv b p le (trans (sym (cong (λ f → f b) el)) e)))
                                 (GcI.oobI g b p le (trans (sym (cong (λ f → f b) el)) e))
    ; ersI = λ p e → fr (er p e)
    ; invI = λ p e → fr (ei p e) }
    where
      fr : ∀ {p} → Free s p → Free s' p
      fr {p} (lt , nl) = subst (p <_) (sym en) lt , λ b le e → nl b le (trans (sym (cong (λ f → f b) el)) e)

  -- placing at the active pointer
  freeP : ∀ a d {s p} → Free s p → Free (place a d s) p
  freeP a d {s} {p} (lt , nl) = ≤-step lt , nf
    where
      nf : ∀ b → b ≤ amax → l2p (place a d s) b ≢ just p
      nf b le e with b ≟ a
      ... | yes refl = <⇒≢ lt (sym (Rg.just≡ (trans (sym (Lm.upd-here (l2p s) a (just (nxt s)))) e)))
      ... | no ne    = nl b le (trans (sym (Lm.upd-other (l2p s) (just (nxt s)) ne)) e)

  placeI : ∀ a d {s} → GcI s → GcI (place a d s)
  placeI a d {s} g = record
    { blw  = Below-place a d {s} (GcI.blw g)
    ; oobI = oo
    ; ersI = λ p e → freeP a d {s} (GcI.ersI g p e)
    ; invI = λ p e → freeP a d {s} (GcI.invI g p e) }
    where
      oo : ∀ b p → b ≤ amax → l2p (place a d s) b ≡ just p → p2l (place a d s) p ≡ b
      oo b p le e with b ≟ a
      ... | yes refl with Rg.just≡ (trans (sym (Lm.upd-here (l2p s) a (just (nxt s)))) e)
      ...   | refl = cong oob (Rg.pv-place-here a d s)
      oo b p le e | no ne with trans (sym (Lm.upd-other (l2p s) (just (nxt s)) ne)) e
      ...   | e′ = trans (cong oob (Rg.pv-place a d s p (<⇒≢ (GcI.blw g b p le e′)))) (GcI.oobI g b p le e′)

  progI : ∀ {s} → GcI s → GcI (progMB s)
  progI {s} g = keepI g refl refl (λ _ p _ _ → Rg.pv-progMB s p) (GcI.ersI g) (GcI.invI g)

  emitI : ∀ {s} → GcI s → GcI (emitT s)
  emitI {s} g = keepI g refl refl (λ _ _ _ _ → refl) (GcI.ersI g) (GcI.invI g)

  optI : ∀ f1 f2 {s} → GcI s → GcI (opt f1 f2 s)
  optI false false g = g
  optI true  false {s} g = progI {s} g
  optI false true  {s} g = emitI {s} g
  optI true  true  {s} g = emitI {progMB s} (progI {s} g)

  wr0I : ∀ a d {s} → GcI s → GcI (wr0 a d s)
  wr0I a d {s} g = keepI {place a d s} {wr0 a d s} (placeI a d {s} g) refl refl (λ _ _ _ _ → refl)
                     (GcI.ersI (placeI a d {s} g)) (GcI.invI (placeI a d {s} g))

  rl0I : ∀ p {s} → p < nxt s → Valid s p → GcI s → GcI (rl0 p s)
  rl0I p {s} lt (ale , val) g =
    keepI {place a′ d′ s} {rl0 p s} gp refl refl (λ _ _ _ _ → refl) (GcI.ersI gp) iv
    where
      a′ = p2l s p
      d′ = cellD (pv s p)
      gp = placeI a′ d′ {s} g
      iv : ∀ q → (inv s [ p ≔ true ]) q ≡ true → Free (place a′ d′ s) q
      iv q e with q ≟ p
      ... | no ne = freeP a′ d′ {s} (GcI.invI g q (trans (sym (Lm.upd-other (inv s) true ne)) e))
      ... | yes refl = ≤-step lt , nf
        where
          nf : ∀ b → b ≤ amax → l2p (place a′ d′ s) b ≢ just q
          nf b le e′ with b ≟ a′
          ... | yes refl = <⇒≢ lt (sym (Rg.just≡ (trans (sym (Lm.upd-here (l2p s) a′ (just (nxt s)))) e′)))
          ... | no ne′   = ne′ (sym (GcI.oobI g b q le (trans (sym (Lm.upd-other (l2p s) (just (nxt s)) ne′)) e′)))

  rlXI : ∀ p {s} → p < nxt s → ¬ Valid s p → GcI s → GcI (rlX p s)
  rlXI p {s} lt nv g = keepI {s} {rlX p s} g refl refl (λ _ _ _ _ → refl) (GcI.ersI g) iv
    where
      iv : ∀ q → (inv s [ p ≔ true ]) q ≡ true → Free s q
      iv q e with q ≟ p
      ... | no ne = GcI.invI g q (trans (sym (Lm.upd-other (inv s) true ne)) e)
      ... | yes refl = lt , λ b le e′ → nv (subst (_≤ amax) (sym (GcI.oobI g b q le e′)) le
                                          , subst (λ z → l2p s z ≡ just q) (sym (GcI.oobI g b q le e′)) e′)

  esFI : ∀ p {s} → ers s p ≡ true → GcI s → GcI (esF p s)
  esFI p {s} ep g = keepI {s} {esF p s} g refl refl pvq er (GcI.invI g)
    where
      pvq : ∀ b q → b ≤ amax → l2p s b ≡ just q → pv (esF p s) q ≡ pv s q
      pvq b q le e with q ≟ p
      ... | yes refl = ⊥-elim′ (proj₂ (GcI.ersI g q ep) b le e)
      ... | no ne = cong (λ x → pvm (mb s q) (cur x)) (Lm.upd-other (dat s) (put erased (dat s p)) ne)
      er : ∀ q → (ers s [ p ≔ false ]) q ≡ true → Free s q
      er q e with q ≟ p
      ... | yes refl = ⊥-elim′ (f≢t (trans (sym (Lm.upd-here (ers s) q false)) e))
      ... | no ne = GcI.ersI g q (trans (sym (Lm.upd-other (ers s) false ne)) e)

  flBI : ∀ {s} → GcI s → GcI (flB s)
  flBI {s} g = keepI {s} {flB s} g refl refl (λ _ p _ _ → Rg.pv-progMB s p) (GcI.ersI g) (GcI.invI g)

  flI : ∀ {s s'} → GcI s → l2p s' ≡ l2p s → nxt s' ≡ nxt s → (∀ q → pv s' q ≡ pv s q) →
        (∀ q → ers s' q ≡ (ers s q Data.Bool.Base.∨ inv s q)) → (∀ q → inv s' q ≡ false) → GcI s'
  flI {s} {s'} g el en epv er ei = keepI {s} {s'} g el en (λ _ q _ _ → epv q) er′ ei′
    where
      er′ : ∀ q → ers s' q ≡ true → Free s q
      er′ q e with ∨-true′ (ers s q) (inv s q) (trans (sym (er q)) e)
      ... | inj₁ e1 = GcI.ersI g q e1
      ... | inj₂ e2 = GcI.invI g q e2
      ei′ : ∀ q → inv s' q ≡ true → Free s q
      ei′ q e = ⊥-elim′ (f≢t (trans (sym (ei q)) e))

  flushI : ∀ {s s'} → okP (oS flushOp) s s' → GcI s → GcI s'
  flushI {s} (inj₁ refl) g = flI g refl refl (Rg.pv-progMB s) (λ _ → refl) (λ _ → refl)
  flushI {s} (inj₂ (inj₁ refl)) g = flI g refl refl (Rg.pv-progMB s) (λ _ → refl) (λ _ → refl)
  flushI {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) g = flI g refl refl (Rg.pv-progMB s) (λ _ → refl) (λ _ → refl)
  flushI {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) g = flI g refl refl (Rg.pv-progMB s) (λ _ → refl) (λ _ → refl)
  flushI {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) g = flI g refl refl (Rg.pv-progMB s) (λ _ → refl) (λ _ → refl)
  flushI {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) g = flI g refl refl (Rg.pv-progMB s) (λ _ → refl) (λ _ → refl)

-- every normal-operation step of PU keeps GcI (the queues released only
-- at a SYNC)
gcI-ok : ∀ u {s s'} → GcI (st s) → okU u s s' → GcI (st s')
gcI-ok (SB.reg (SB.op (SB.w a d))) {s} g (inj₁ (_ , f1 , f2 , e) , _) =
  subst GcI (sym e) (optI f1 f2 {wr0 a d (st s)} (wr0I a d {st s} g))
gcI-ok (SB.reg (SB.op (SB.w a d))) g (inj₂ (_ , e) , _) = subst GcI (sym e) g
gcI-ok (SB.reg (SB.op SB.rl)) {s} g (inj₁ (_ , p , lt , inj₁ (val , f1 , f2 , e)) , _) =
  subst GcI (sym e) (optI f1 f2 {rl0 p (st s)} (rl0I p {st s} lt val g))
gcI-ok (SB.reg (SB.op SB.rl)) {s} g (inj₁ (_ , p , lt , inj₂ (nv , e)) , _) =
  subst GcI (sym e) (rlXI p {st s} lt nv g)
gcI-ok (SB.reg (SB.op SB.rl)) g (inj₂ (_ , e) , _) = subst GcI (sym e) g
gcI-ok (SB.reg (SB.op SB.es)) {s} g ((p , ep , e) , _) = subst GcI (sym e) (esFI p {st s} ep g)
gcI-ok (SB.reg (SB.op SB.sy)) g (() , _)
gcI-ok (SB.reg SB.barrier) {s} g (inj₁ (_ , refl)) = flBI {st s} g
gcI-ok (SB.reg SB.barrier) g (inj₂ (o , _)) = flushI o g
gcI-ok SB.flush g (o , _) = flushI o g

-- type A for gc_es: the erase keeps the read image (SB's gc: identity)
es-A : ∀ {s t s'} → ARv s t → GcI (st s) → okU (SB.reg (SB.op SB.es)) s s' →
       Σ SB.State λ t' → SB.okSB (SB.use (SB.reg (SB.op SB.es))) t t' × ARv s' t'
es-A {s} {t} {s'} (v , c , n) g ((p , ep , e) , eu) =
  t , refl ,
  ((λ b le → trans (cong (λ z → rd z b) e) (trans (rdq b le (l2p (st s) b) refl) (v b le)))
  , trans (cong wcnt e) c , trans (cong length eu) n)
  where
    rdq : ∀ b → b ≤ amax → ∀ mp → l2p (st s) b ≡ mp → rdm (esF p (st s)) mp ≡ rdm (st s) mp
    rdq b le nothing  _ = refl
    rdq b le (just q) e′ with q ≟ p
    ... | yes refl = ⊥-elim′ (proj₂ (GcI.ersI g q ep) b le e′)
    ... | no ne = cong (λ x → cellD (pvm (mb (st s) q) (cur x))) (Lm.upd-other (dat (st s)) (put erased (dat (st s) p)) ne)

-- type A at the level of ARv for EVERY normal operation, with GcI as
-- the invariant
A-okG : ∀ u {s t s'} → ARv s t → GcI (st s) → okU u s s' →
        Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARv s' t' × GcI (st s')
A-okG (SB.reg (SB.op SB.es)) {s} {t} {s'} ar g o =
  let G = es-A {s} {t} {s'} ar g o in
  proj₁ G , proj₁ (proj₂ G) , proj₂ (proj₂ G) , gcI-ok (SB.reg (SB.op SB.es)) {s} {s'} g o
A-okG (SB.reg (SB.op (SB.w a d))) {s} {t} {s'} ar g o =
  let G = A-okU (SB.reg (SB.op (SB.w a d))) tt {s} {t} {s'} ar (GcI.blw g) o in
  proj₁ G , proj₁ (proj₂ G) , proj₁ (proj₂ (proj₂ G)) , gcI-ok (SB.reg (SB.op (SB.w a d))) {s} {s'} g o
A-okG (SB.reg (SB.op SB.rl)) {s} {t} {s'} ar g o =
  let G = A-okU (SB.reg (SB.op SB.rl)) tt {s} {t} {s'} ar (GcI.blw g) o in
  proj₁ G , proj₁ (proj₂ G) , proj₁ (proj₂ (proj₂ G)) , gcI-ok (SB.reg (SB.op SB.rl)) {s} {s'} g o
A-okG (SB.reg (SB.op SB.sy)) ar g (() , _)
A-okG (SB.reg SB.barrier) {s} {t} {s'} ar g o =
  let G = A-okU (SB.reg SB.barrier) tt {s} {t} {s'} ar (GcI.blw g) o in
  proj₁ G , proj₁ (proj₂ G) , proj₁ (proj₂ (proj₂ G)) , gcI-ok (SB.reg SB.barrier) {s} {s'} g o
A-okG SB.flush {s} {t} {s'} ar g o =
  let G = A-okU SB.flush tt {s} {t} {s'} ar (GcI.blw g) o in
  proj₁ G , proj₁ (proj₂ G) , proj₁ (proj₂ (proj₂ G)) , gcI-ok SB.flush {s} {s'} g o

------------------------------------------------------------------------
-- The stable image: the pages the stable L2P (`smap`) maps are below
-- the active pointer, not in the merge buffer, not erasable (`SmI`);
-- every normal step keeps SmI (with GcI), and the barrier without SYNC
-- keeps the stable image (SB's barrier keeps `stable`)

SmI : St → Set
SmI s = ∀ a p → a ≤ amax → smap s a ≡ just p → p < nxt s × mb s p ≡ nothing × (ers s p ≡ true → ⊥)

private
  smI-place : ∀ a d {s} → SmI s → SmI (place a d s)
  smI-place a d {s} sm b p le e with sm b p le e
  ... | lt , mbn , ne = ≤-step lt , trans (Lm.upd-other (mb s) (just (d , a)) (<⇒≢ lt)) mbn , ne

  smI-opt : ∀ f1 f2 {s} → SmI s → SmI (opt f1 f2 s)
  smI-opt false false sm = sm
  smI-opt true  false sm = λ b p le e → let (lt , _ , ne) = sm b p le e in lt , refl , ne
  smI-opt false true  sm = sm
  smI-opt true  true  sm = λ b p le e → let (lt , _ , ne) = sm b p le e in lt , refl , ne

  smI-flush : ∀ {s s'} → okP (oS flushOp) s s' → GcI s → SmI s'
  smI-flush {s} o g = go o
    where
      nfree : ∀ b p → b ≤ amax → l2p s b ≡ just p → (ers s p Data.Bool.Base.∨ inv s p) ≡ true → ⊥
      nfree b p le e x with ∨-true′ (ers s p) (inv s p) x
      ... | inj₁ e1 = proj₂ (GcI.ersI g p e1) b le e
      ... | inj₂ e2 = proj₂ (GcI.invI g p e2) b le e
      go : ∀ {s'} → okP (oS flushOp) s s' → SmI s'
      go (inj₁ refl) b p le e = GcI.blw g b p le e , refl , nfree b p le e
      go (inj₂ (inj₁ refl)) b p le e = GcI.blw g b p le e , refl , nfree b p le e
      go (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) b p le e = GcI.blw g b p le e , refl , nfree b p le e
      go (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) b p le e = GcI.blw g b p le e , refl , nfree b p le e
      go (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) b p le e = GcI.blw g b p le e , refl , nfree b p le e
      go (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) b p le e = GcI.blw g b p le e , refl , nfree b p le e

  smI-esF : ∀ p {s} → SmI s → SmI (esF p s)
  smI-esF p {s} sm b q le e with sm b q le e
  ... | lt , mbn , ne = lt , mbn , ne′
    where
      ne′ : (ers s [ p ≔ false ]) q ≡ true → ⊥
      ne′ x with q ≟ p
      ... | yes refl = f≢t (trans (sym (Lm.upd-here (ers s) q false)) x)
      ... | no n = ne (trans (sym (Lm.upd-other (ers s) false n)) x)

-- every normal-operation step of PU keeps SmI (given GcI)
smI-ok : ∀ u {s s'} → GcI (st s) → SmI (st s) → okU u s s' → SmI (st s')
smI-ok (SB.reg (SB.op (SB.w a d))) {s} g sm (inj₁ (_ , f1 , f2 , e) , _) =
  subst SmI (sym e) (smI-opt f1 f2 {wr0 a d (st s)} (smI-place a d {st s} sm))
smI-ok (SB.reg (SB.op (SB.w a d))) g sm (inj₂ (_ , e) , _) = subst SmI (sym e) sm
smI-ok (SB.reg (SB.op SB.rl)) {s} g sm (inj₁ (_ , p , lt , inj₁ (val , f1 , f2 , e)) , _) =
  subst SmI (sym e) (smI-opt f1 f2 {rl0 p (st s)} (smI-place (p2l (st s) p) (cellD (pv (st s) p)) {st s} sm))
smI-ok (SB.reg (SB.op SB.rl)) {s} g sm (inj₁ (_ , p , lt , inj₂ (nv , e)) , _) = subst SmI (sym e) sm
smI-ok (SB.reg (SB.op SB.rl)) g sm (inj₂ (_ , e) , _) = subst SmI (sym e) sm
smI-ok (SB.reg (SB.op SB.es)) {s} g sm ((p , ep , e) , _) = subst SmI (sym e) (smI-esF p {st s} sm)
smI-ok (SB.reg (SB.op SB.sy)) g sm (() , _)
smI-ok (SB.reg SB.barrier) {s} g sm (inj₁ (_ , refl)) = λ b p le e → let (lt , _ , ne) = sm b p le e in lt , refl , ne
smI-ok (SB.reg SB.barrier) g sm (inj₂ (o , _)) = smI-flush o g
smI-ok SB.flush g sm (o , _) = smI-flush o g

-- the barrier without SYNC keeps the stable image
rdS-flB : ∀ s → SmI s → ∀ a → a ≤ amax → rdS (flB s) (smap (flB s) a) ≡ rdS s (smap s a)
rdS-flB s sm a le = go (smap s a) refl
  where
    go : ∀ mp → smap s a ≡ mp → rdS (flB s) mp ≡ rdS s mp
    go nothing  _ = refl
    go (just p) e = cong cellD (trans (Rg.cur-progm (mb s p) (dat s p))
                                      (cong (λ x → pvm x (cur (dat s p))) (proj₁ (proj₂ (sm a p le e)))))

-- ... so PU's barrier without SYNC refines SB's barrier on the stable
-- image too (SB keeps `stable`)
barrier-stable : ∀ {s t s' t'} → SmI (st s) → (∀ a → a ≤ amax → rdS (st s) (smap (st s) a) ≡ SB.stable t a) →
                 s' ≡ ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫ → SB.stable t' ≡ SB.stable t →
                 ∀ a → a ≤ amax → rdS (st s') (smap (st s') a) ≡ SB.stable t' a
barrier-stable {s} sm sa refl et a le = trans (rdS-flB (st s) sm a le) (trans (sa a le) (cong (λ f → f a) (sym et)))

-- the stable part of the abstraction relation: P's stable L2P reads
-- SB's stable image
ARs : StU → SB.State → Set
ARs s t = ∀ a → a ≤ amax → rdS (st s) (smap (st s) a) ≡ SB.stable t a

private
  rdS-prog : ∀ u → SmI u → ∀ a → a ≤ amax → rdS (progMB u) (smap u a) ≡ rdS u (smap u a)
  rdS-prog u sm a le = go (smap u a) refl
    where
      go : ∀ mp → smap u a ≡ mp → rdS (progMB u) mp ≡ rdS u mp
      go nothing  _ = refl
      go (just p) e = cong cellD (trans (Rg.cur-progm (mb u p) (dat u p))
                                        (cong (λ x → pvm x (cur (dat u p))) (proj₁ (proj₂ (sm a p le e)))))

  rdS-opt : ∀ f1 f2 u → SmI u → ∀ a → a ≤ amax → rdS (opt f1 f2 u) (smap u a) ≡ rdS u (smap u a)
  rdS-opt false false u sm a le = refl
  rdS-opt true  false u sm a le = rdS-prog u sm a le
  rdS-opt false true  u sm a le = refl
  rdS-opt true  true  u sm a le = rdS-prog u sm a le

  rdS-esF : ∀ p u → ers u p ≡ true → SmI u → ∀ a → a ≤ amax → rdS (esF p u) (smap u a) ≡ rdS u (smap u a)
  rdS-esF p u ep sm a le = go (smap u a) refl
    where
      go : ∀ mp → smap u a ≡ mp → rdS (esF p u) mp ≡ rdS u mp
      go nothing  _ = refl
      go (just q) e with q ≟ p
      ... | yes refl = ⊥-elim′ (proj₂ (proj₂ (sm a q le e)) ep)
      ... | no ne = cong (λ x → cellD (cur x)) (Lm.upd-other (dat u) (put erased (dat u p)) ne)

-- a flush (and the forced barrier): the stable L2P reads the image read before
flush-stable : ∀ {s s'} → okP (oS flushOp) s s' → ∀ a → rdS s' (smap s' a) ≡ rd s a
flush-stable {s} o a = go o
  where
    dd′ : ∀ (D : ℕ → MC) → (∀ p → cur (D p) ≡ cur (progm (mb s p) (dat s p))) → ∀ mp → rdD D mp ≡ rdm s mp
    dd′ D h nothing  = refl
    dd′ D h (just p) = cong cellD (trans (h p) (Rg.cur-progm (mb s p) (dat s p)))
    dd : ∀ {D : ℕ → MC} → (∀ p → cur (D p) ≡ cur (progm (mb s p) (dat s p))) → ∀ mp → rdD D mp ≡ rdm s mp
    dd {D} = dd′ D
    go : ∀ {s'} → okP (oS flushOp) s s' → rdS s' (smap s' a) ≡ rd s a
    go (inj₁ refl) = dd (λ _ → refl) (l2p s a)
    go (inj₂ (inj₁ refl)) = dd (λ _ → refl) (l2p s a)
    go (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) = dd (λ _ → refl) (l2p s a)
    go (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) = dd (λ _ → refl) (l2p s a)
    go (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) = dd (λ _ → refl) (l2p s a)
    go (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) = dd (λ _ → refl) (l2p s a)

private
  smap-opt : ∀ f1 f2 u → smap (opt f1 f2 u) ≡ smap u
  smap-opt false false u = refl
  smap-opt true  false u = refl
  smap-opt false true  u = refl
  smap-opt true  true  u = refl

  rdS-opt′ : ∀ f1 f2 u → SmI u → ∀ a → a ≤ amax → rdS (opt f1 f2 u) (smap (opt f1 f2 u) a) ≡ rdS u (smap u a)
  rdS-opt′ f1 f2 u sm a le = trans (cong (λ f → rdS (opt f1 f2 u) (f a)) (smap-opt f1 f2 u)) (rdS-opt f1 f2 u sm a le)

  wstab : ∀ a d {t t'} → SB.okSB (SB.use (SB.reg (SB.op (SB.w a d)))) t t' → SB.stable t' ≡ SB.stable t
  wstab a d (inj₁ (_ , _ , e , _ , _)) = e
  wstab a d (inj₂ (_ , refl)) = refl

-- the abstraction relation of PU against SB, without the candidates:
-- the read image is SB's volatile, the stable L2P reads SB's stable
-- image, equal counters, as many unsynced epochs as pending snapshots
ARU : StU → SB.State → Set
ARU s t = ARv s t × ARs s t

A-full : ∀ u {s t s'} → ARU s t → GcI (st s) → SmI (st s) → okU u s s' →
         Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARU s' t' × GcI (st s') × SmI (st s')
A-full u {s} {t} {s'} (av , sa) g sm o =
  proj₁ G , proj₁ (proj₂ G) , (proj₁ (proj₂ (proj₂ G)) , stab u o (proj₁ (proj₂ G)) (proj₂ (proj₂ (proj₁ (proj₂ (proj₂ G)))))) , proj₂ (proj₂ (proj₂ G)) ,
  smI-ok u {s} {s'} g sm o
  where
    -- A-okG's result by projections; the lemmas below take SB's state as
    -- an argument (no `with` whose context carries this block)
    G = A-okG u {s} {t} {s'} av g o
    keep : ∀ {t'} → SB.stable t' ≡ SB.stable t → (∀ a → a ≤ amax → rdS (st s') (smap (st s') a) ≡ rdS (st s) (smap (st s) a)) →
           ARs s' t'
    keep et h a le = trans (h a le) (trans (sa a le) (cong (λ f → f a) (sym et)))
    syncS : ∀ {t'} → SB.stable t' ≡ SB.volatile t → okP (oS flushOp) (st s) (st s') → ARs s' t'
    syncS et fo a le = trans (flush-stable fo a) (trans (proj₁ av a le) (cong (λ f → f a) (sym et)))
    stab : ∀ {t'} u → okU u s s' → SB.okSB (SB.use u) t t' → length (ues s') ≡ length (SB.pend t') → ARs s' t'
    stab {t'} (SB.reg (SB.op (SB.w a d))) (inj₁ (_ , f1 , f2 , e) , _) x n' =
      keep {t'} (wstab a d x) (λ b le → trans (cong (λ z → rdS z (smap z b)) e)
                                    (rdS-opt′ f1 f2 (wr0 a d (st s)) (smI-place a d {st s} sm) b le))
    stab {t'} (SB.reg (SB.op (SB.w a d))) (inj₂ (_ , e) , _) x n' =
      keep {t'} (wstab a d x) (λ b le → cong (λ z → rdS z (smap z b)) e)
    stab {t'} (SB.reg (SB.op SB.rl)) (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e)) , _) refl n' =
      keep {t'} refl (λ b le → trans (cong (λ z → rdS z (smap z b)) e)
                          (rdS-opt′ f1 f2 (rl0 p (st s)) (smI-place (p2l (st s) p) (cellD (pv (st s) p)) {st s} sm) b le))
    stab {t'} (SB.reg (SB.op SB.rl)) (inj₁ (_ , p , _ , inj₂ (_ , e)) , _) refl n' =
      keep {t'} refl (λ b le → cong (λ z → rdS z (smap z b)) e)
    stab {t'} (SB.reg (SB.op SB.rl)) (inj₂ (_ , e) , _) refl n' =
      keep {t'} refl (λ b le → cong (λ z → rdS z (smap z b)) e)
    stab {t'} (SB.reg (SB.op SB.es)) ((p , ep , e) , _) refl n' =
      keep {t'} refl (λ b le → trans (cong (λ z → rdS z (smap z b)) e) (rdS-esF p (st s) ep sm b le))
    stab {t'} (SB.reg (SB.op SB.sy)) (() , _) _ _
    stab {t'} (SB.reg SB.barrier) (inj₁ (lt , refl)) (_ , _ , inj₁ (_ , et , _)) n' =
      keep {t'} et (rdS-flB (st s) sm)
    stab {t'} (SB.reg SB.barrier) (inj₁ (lt , refl)) (_ , _ , inj₂ (_ , ep)) n' =
      ⊥-elim′ (len-mis₁ (ues s) (epE (st s)) (SB.pend t') n' ep)
    stab {t'} (SB.reg SB.barrier) (inj₂ (fo , _)) (_ , _ , inj₂ (et , _)) n' = syncS {t'} et fo
    stab {t'} (SB.reg SB.barrier) (inj₂ (fo , eu)) (_ , _ , inj₁ (_ , _ , ep)) n' =
      ⊥-elim′ (len-mis₂ (ues s') (SB.pend t) (SB.volatile t) eu (trans n' (cong length ep)))
    stab {t'} SB.flush (fo , _) (_ , et , _ , _) _ = syncS {t'} et fo
