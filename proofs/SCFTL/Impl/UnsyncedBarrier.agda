{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P, fourth step: the barrier WITHOUT SYNC as a
-- real step of a P-level model, NORMAL OPERATION ONLY.
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
--                  appended to `ues`.  With `umax` unsynced: P's flush
--                  (the forced SYNC; `ues := []`)
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
--
-- NOT proven here: PU's recovery (P's `rview`/`recMap` built on `accU`),
-- the crash part of formula (4) on PU's states (the step from P's `Img`
-- of `lay` to `UnsyncedEpochsCrash.CrashEs`), the abstraction relation
-- against SB's candidates and the type-A/B obligations, Theorem 1 and
-- SC1B for PU.  See proofs/README.md, "Epoch barriers".
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBarrier (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-trans; ≤-refl)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Properties using (map-++-commute; length-++; ++-assoc)
open import Data.Bool.Base using (true; false)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_
  using (UEp; lay; accU; rsAt; rec-prefixP)
open import Data.List.Membership.Propositional using (_∈_)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_
  using (E; ue; tents)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
open import SCFTL.Impl.DurableBarrier Data d0 amax wmax kmax umax _≟D_ using (oS)

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

okU : SB.UOp → StU → StU → Set
okU (SB.reg (SB.op x)) s s' = okP (oS (SB.use (SB.reg (SB.op x)))) (st s) (st s') × ues s' ≡ ues s
okU (SB.reg SB.barrier) s s' =
    (length (ues s) < umax × s' ≡ ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫)
  ⊎ (umax ≤ length (ues s) × okP (oS flushOp) (st s) (st s') × ues s' ≡ [])
okU SB.flush s s' = okP (oS flushOp) (st s) (st s') × ues s' ≡ []

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
ues-bound (SB.reg SB.barrier) b (inj₂ (_ , _ , e)) = subst (λ z → length z ≤ umax) (sym e) z≤n
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
-- The delta region of a PU state: the open epoch's tentative pages on
-- the unsynced epochs (`lay`), each page unsynced, on the pages below

LayM : St → List E → Set
LayM s es = Σ (List MC) λ prM →
  dr s ≡ map (uns erased) (tents (gen s) (ep s) (ept s) ++ lay (map (ue (gen s)) es) []) ++ prM

lay-snoc : ∀ (es : List UEp) x pr → lay (es ++ x ∷ []) pr ≡ lay (x ∷ []) (lay es pr)
lay-snoc []              x pr = refl
lay-snoc ((c , ts) ∷ es) x pr = lay-snoc es x (c ∷ ts ++ pr)

lay-bar : ∀ g es e → lay (map (ue g) (es ++ e ∷ [])) [] ≡ proj₁ (ue g e) ∷ proj₂ (ue g e) ++ lay (map (ue g) es) []
lay-bar g es e = trans (cong (λ z → lay z []) (map-++-commute (ue g) es (e ∷ [])))
                       (lay-snoc (map (ue g) es) (ue g e) [])

-- steps that leave the region and the epoch alone
lay-same : ∀ {s s' es} → dr s' ≡ dr s → gen s' ≡ gen s → ep s' ≡ ep s → ept s' ≡ ept s →
           LayM s es → LayM s' es
lay-same {s} {s'} {es} e1 e2 e3 e4 (prM , e) =
  prM , trans e1 (subst (λ z → dr s ≡ map (uns erased) (tents (gen s') (ep s') z ++ lay (map (ue (gen s')) es) []) ++ prM) (sym e4)
                   (subst (λ z → dr s ≡ map (uns erased) (tents (gen s') z (ept s) ++ lay (map (ue (gen s')) es) []) ++ prM) (sym e3)
                     (subst (λ z → dr s ≡ map (uns erased) (tents z (ep s) (ept s) ++ lay (map (ue z) es) []) ++ prM) (sym e2) e)))

lay-emitT : ∀ {s es} → LayM s es → LayM (emitT s) es
lay-emitT {s} (prM , e) = prM , cong (uns erased (dlt (gen s) (ep s) (dbuf s) false ε) ∷_) e

lay-opt : ∀ f1 f2 {s es} → LayM s es → LayM (opt f1 f2 s) es
lay-opt false false l = l
lay-opt true  false {s} {es} l = lay-same {s} {progMB s} {es} refl refl refl refl l
lay-opt false true  {s} {es} l = lay-emitT {s} {es} l
lay-opt true  true  {s} {es} l = lay-emitT {progMB s} {es} (lay-same {s} {progMB s} {es} refl refl refl refl l)

-- the barrier without SYNC appends its epoch
lay-flB : ∀ {s es} → LayM s es → LayM (flB s) (es ++ epE s ∷ [])
lay-flB {s} {es} (prM , e) =
  prM , trans (cong (uns erased (proj₁ (ue (gen s) (epE s))) ∷_) e)
              (cong (λ z → map (uns erased) z ++ prM) (sym (lay-bar (gen s) es (epE s))))

-- a durable point (nothing unsynced, no open tentative page)
lay-durable : ∀ s → ept s ≡ [] → LayM s []
lay-durable s e = dr s , subst (λ z → dr s ≡ map (uns erased) (tents (gen s) (ep s) z ++ []) ++ dr s) (sym e) refl

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
lay-ok (SB.reg SB.barrier) {s} l (inj₁ (_ , refl)) = lay-flB {st s} {ues s} l
lay-ok (SB.reg SB.barrier) {s} {s'} l (inj₂ (_ , o , e)) =
  subst (LayM (st s')) (sym e) (lay-durable (st s') (flush-ept o))
lay-ok SB.flush {s} {s'} l (o , e) =
  subst (LayM (st s')) (sym e) (lay-durable (st s') (flush-ept o))

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
region-lay {s} {es} (prM , e) z =
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
