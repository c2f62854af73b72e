{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, space in the one model, second step: the delta region's
-- room and the W/K bounds over PL's steps (the lazy chain: in-page and
-- OOB commits whose consolidation page is written before the next
-- region page), as SCFTL.Impl.SpaceRegion proves them over P's and
-- SCFTL.Impl.SpaceRegionBarrier over PU's.
--
-- PLR is PL with the code's region rules (delta.rs, flush.rs
-- `after_commit`, mod.rs `open`):
--
--   * a write or relocation: SpaceRegion's `Tent` (a tentative page only
--     when the delta buffer fills, the buffer under a page); in PL the
--     tentative page follows the chain's consolidation page;
--   * a lazy commit: `Room` after it (epoch_pages_max + 1 region pages
--     left: the one more is the consolidation page the chain now owes;
--     the code's `after_commit` asks the same), else no lazy commit but
--     PL's flush ending in a full checkpoint;
--   * PL's other flush (the consolidation page, then P's flush): `Room`
--     after it, or, after P's in-page / OOB commit with its consolidation
--     page written at once, SpaceRegion's `Kons`/`RoomK`;
--   * a recovery: `Room` (PL's recovery always ends in a full
--     checkpoint, so it always has it, given (4)).
--
-- The invariant counts the page the chain owes.  `RInvL s` is
-- SpaceRegion's `RInv` of `konsS s`, the state with the chain's
-- consolidation page written: the region with the owed page (one page
-- when the chain has a record, `konsPg s`, none else) has room for the
-- rest of the epoch.  It is defined of the state, not of which proof of
-- PL's invariant `RIL` is at hand; where a step needs to know how the
-- owed page moves, it asks `RIL`:
--
--   * a write, relocation or erase that writes no region page keeps the
--     chain (`kp-wr`, `kp-rl`, `kp-rlX`, `kp-es`: the chain phase's
--     `ph-chainOf`; without a chain, P's RI after the step);
--   * a tentative page follows the consolidation page, and leaves no
--     chain (`chain-tw`, `chain-tr`: `kons-emitT-RI`, P's RI after it);
--   * P's flush after the consolidation page leaves no chain (P's RI
--     after it: `pl-flush-free`, `pl-flush-phase`);
--   * a lazy commit may leave a chain: `Room` pays for its page.
--
-- The steps of P move the fields RInv reads the same way on `konsX k s`
-- as on `s` (`wr-kX`, `rl-kX`, ...): the consolidation page touches
-- only the region and the flash's cells.
--
-- Results:
--   `ok-invL`, `rec-invL` : RInvL kept by every step of PLR (given PL's
--             invariant RIL), made by every recovery;
--   `roomL`  : a free region page after the owed one in every such state;
--   `crash-roomL`, `recᶜ-roomL` : no crash point of any operation puts
--             more than D pages in the region;
--   `RunL`, `RoomsL`, `region-roomL` : along every run from format
--             (crashes of steps, crashed recoveries) a region page past
--             the owed one stays free (mutant 47, SCFTL.Mutants.
--             LazyCommitForgetsOwedPage: the rule after a lazy commit
--             asking epoch_pages_max pages, `PolLw` takes the rule after
--             a flush as a parameter, leaves an epoch no page for its
--             commit);
--   `obligationsPLR`, `theorem1-PLR`, `PLR-snapshot-consistent` :
--             Theorem 1 and snapshot consistency for PLR (PL's
--             obligations, RI extended by RInvL, CI by the region's
--             length);
--   `liftL`, `liftL-rec` : given (4) as epm + 1 <= D, the rules refuse
--             no operation: every step of PL from a state of RInvL has a
--             step of PLR with the same operation (a lazy commit or
--             flush that would leave the region short as PL's flush
--             ending in a full checkpoint);
--   `toK`    : RInvL s is SpaceRegion's RInv of the consolidated state,
--             which a barrier from the chain phase starts from
--             (SCFTL.Impl.SpaceRegionOne).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRegionLazy (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc pp D : ℕ) where

open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-refl; ≤-trans; ≤-reflexive; n≤1+n; _≤?_; _≟_; ≤∧≢⇒<; +-suc; 1+n≰n)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Unit.Base using (⊤; tt)
open import Data.Empty using (⊥-elim)
open import Data.List.Base using (List; []; _∷_; map; length)
open import Data.List.Properties using (length-map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR-tOf)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (reg-sim)
open import SCFTL.Impl.SpaceRegion Data d0 amax wmax kmax _≟D_ pp D
  using (RInv; Tent; Full; Room; RoomK; Kons; Fresh; room-k; fresh-inv; flush-fresh; room; ok-inv; drL; epm; ppp;
         len-img; fl-len; ck-len; new-len; len-fi3; len-fi4)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (fiL)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc using (Phase; phase; ph-rs; phase-es)
open import SCFTL.Impl.LazyChainKons Data d0 amax wmax kmax _≟D_ kc using (ri-chain-free; konsS-free; pl-flush-free)
open import SCFTL.Impl.LazyChainCrashKons Data d0 amax wmax kmax _≟D_ kc
  using (ph-chainOf; wr-phase; rl-phase; rlX-phase; kons-emitT-RI; pl-flush-phase)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc
  using (RIL; wr-sim; rl-sim; obligations-PL)
open import SCFTL.Impl.LazyChainTheorem Data d0 amax wmax kmax _≟D_ kc using (landed-ok)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (Op; use; flush; recover; w; rl; es; S; SnapshotConsistent; obligations⇒SC; new-disk)
  renaming (reg to regop)

------------------------------------------------------------------------
-- The rules

-- the rule after a flush: `Room`, or SpaceRegion's rule after P's
-- in-page or OOB commit with its consolidation page at once
FlR : St → St → Set
FlR s s' = Room s' ⊎ (Kons (konsS s) s' × RoomK s')

-- the rules, with the one after a flush given (`F`: the code's is `FlR`;
-- mutant 47, SCFTL.Mutants.LazyCommitForgetsOwedPage, lets a lazy
-- commit through with epoch_pages_max pages left, forgetting the page
-- the chain then owes)
PolLw : (St → St → Set) → Op → St → St → Set
PolLw F (use (regop (w a d))) s s' = Tent s s'
PolLw F (use (regop rl))      s s' = Tent s s'
PolLw F (use (regop es))      s s' = ⊤
PolLw F (use flush)           s s' = F s s'
PolLw F recover               s s' = Room s'

okPLRw : (St → St → Set) → Op → St → St → Set
okPLRw F o s s' = okPL EraseGuard o s s' × PolLw F o s s'

PolL : Op → St → St → Set
PolL = PolLw FlR

okPLR : Op → St → St → Set
okPLR = okPLRw FlR

PLR : Sp.Model
PLR = record { State = St ; New = NewP ; read = rd ; ok = okPLR ; crash = crashPL EraseGuard }

-- the invariant: SpaceRegion's, of the state with the page the chain
-- owes written
RInvL : St → Set
RInvL s = RInv (konsS s)

------------------------------------------------------------------------
-- The consolidation page moves only the region

private
  ≡≤ : ∀ {a b c} → a ≡ b → b ≤ c → a ≤ c
  ≡≤ refl le = le

  ≤≡ : ∀ {a b c} → a ≤ b → b ≡ c → a ≤ c
  ≤≡ le refl = le

  -- RInv of a state whose fields are another's, its region no longer
  mv : ∀ {x y} → wcnt y ≡ wcnt x → gcnt y ≡ gcnt x → ept y ≡ ept x → dbuf y ≡ dbuf x → drL y ≤ drL x →
       RInv x → RInv y
  mv {x} {y} refl refl refl refl le I = record
    { wB = RInv.wB I ; gB = RInv.gB I ; fB = RInv.fB I ; bB = RInv.bB I ; pB = RInv.pB I
    ; rB = ≤-trans (Data.Nat.Properties.+-monoˡ-≤ epm le) (RInv.rB I) }

kS-e : ∀ x → ept (konsS x) ≡ ept x
kS-e x with konsPg x
... | nothing = refl
... | just c  = refl

kS-b : ∀ x → dbuf (konsS x) ≡ dbuf x
kS-b x with konsPg x
... | nothing = refl
... | just c  = refl

-- the region grows by the owed page at most
kX-len : ∀ k x → drL (konsX k x) ≤ suc (drL x)
kX-len nothing  x = n≤1+n _
kX-len (just c) x = s≤s (≤-reflexive (length-map sync (dr x)))

kX-ge : ∀ k x → drL x ≤ drL (konsX k x)
kX-ge nothing  x = ≤-refl
kX-ge (just c) x = ≤-trans (n≤1+n _) (s≤s (≤-reflexive (sym (length-map sync (dr x)))))

kS-ge : ∀ x → drL x ≤ drL (konsS x)
kS-ge x = kX-ge (konsPg x) x

-- the page programmed, before its SYNC, as long as synced
kP-len : ∀ k x → drL (konsP k x) ≡ drL (konsX k x)
kP-len nothing  x = refl
kP-len (just c) x = sym (length-map sync (uns erased c ∷ dr x))

kX-dr : ∀ k {x y} → dr x ≡ dr y → drL (konsX k x) ≡ drL (konsX k y)
kX-dr nothing  e = cong length e
kX-dr (just c) e = cong (λ l → length (map sync (uns erased c ∷ l))) e

dr-optP : ∀ f y → dr (optP f y) ≡ dr y
dr-optP true  y = refl
dr-optP false y = refl

ept-optP : ∀ f y → ept (optP f y) ≡ ept y
ept-optP true  y = refl
ept-optP false y = refl

dbuf-optP : ∀ f y → dbuf (optP f y) ≡ dbuf y
dbuf-optP true  y = refl
dbuf-optP false y = refl

-- the consolidation page and a write's optional pages take no page of P's
kS-nxt : ∀ x → nxt (konsS x) ≡ nxt x
kS-nxt x with konsPg x
... | nothing = refl
... | just c  = refl

optL-nxt : ∀ f1 f2 y → nxt (optL f1 f2 y) ≡ nxt y
optL-nxt true  false y = refl
optL-nxt false false y = refl
optL-nxt true  true  y = kS-nxt (optP true y)
optL-nxt false true  y = kS-nxt (optP false y)

-- RInvL is SpaceRegion's RInv of the consolidated state
toK : ∀ {s} → RInvL s → RInv (konsS s)
toK I = I

-- it bounds the region itself too
forgetK : ∀ {s} → RInvL s → RInv s
forgetK {s} I = mv (sym (kw s)) (sym (kg s)) (sym (kS-e s)) (sym (kS-b s)) (kS-ge s) I
  where
  kw : ∀ x → wcnt (konsS x) ≡ wcnt x
  kw x with konsPg x
  ... | nothing = refl
  ... | just c  = refl
  kg : ∀ x → gcnt (konsS x) ≡ gcnt x
  kg x with konsPg x
  ... | nothing = refl
  ... | just c  = refl

-- with no chain, RInvL is RInv
free-inv : ∀ {s} → chainOf s ≡ [] → RInv s → RInvL s
free-inv {s} e I = subst RInv (sym (konsS-free {s} e)) I

-- a new epoch with room for it and the owed page
room-L : ∀ x → Fresh x → Room x → RInvL x
room-L x fr rm with konsPg x
... | nothing = fresh-inv {x} fr (room-k {x} rm)
... | just c  = fresh-inv {konsX (just c) x} fr
                  (≡≤ (trans (cong (λ n → suc n + epm) (length-map sync (dr x))) (sym (+-suc (drL x) epm))) rm)

------------------------------------------------------------------------
-- P's steps on the consolidated state

wr-kX : ∀ k f1 a d s → InB a s → Tent s (optP f1 (wr0 a d s)) → RInv (konsX k s) →
        RInv (konsX k (optP f1 (wr0 a d s)))
wr-kX nothing  f1    a d s ib tn I = ok-inv (regop (w a d)) I (inj₁ (ib , f1 , false , refl) , tn)
wr-kX (just c) true  a d s ib tn I =
  mv refl refl refl refl ≤-refl (ok-inv (regop (w a d)) {konsX (just c) s} I (inj₁ (ib , true , false , refl) , tn))
wr-kX (just c) false a d s ib tn I =
  mv refl refl refl refl ≤-refl (ok-inv (regop (w a d)) {konsX (just c) s} I (inj₁ (ib , false , false , refl) , tn))

wrT-kX : ∀ k f1 a d s → InB a s → Tent s (emitT (konsX k (optP f1 (wr0 a d s)))) → RInv (konsX k s) →
         RInv (emitT (konsX k (optP f1 (wr0 a d s))))
wrT-kX nothing  f1    a d s ib tn I = ok-inv (regop (w a d)) I (inj₁ (ib , f1 , true , refl) , tn)
wrT-kX (just c) true  a d s ib tn I =
  mv refl refl refl refl ≤-refl (ok-inv (regop (w a d)) {konsX (just c) s} I (inj₁ (ib , true , true , refl) , tn))
wrT-kX (just c) false a d s ib tn I =
  mv refl refl refl refl ≤-refl (ok-inv (regop (w a d)) {konsX (just c) s} I (inj₁ (ib , false , true , refl) , tn))

rl-kX : ∀ k f1 p s → gcnt s ≤ kmax → p < nxt s → Valid s p → Tent s (optP f1 (rl0 p s)) → RInv (konsX k s) →
        RInv (konsX k (optP f1 (rl0 p s)))
rl-kX nothing  f1    p s gl lt v tn I = ok-inv (regop rl) I (inj₁ (gl , p , lt , inj₁ (v , f1 , false , refl)) , tn)
rl-kX (just c) true  p s gl lt v tn I =
  mv refl refl refl refl ≤-refl (ok-inv (regop rl) {konsX (just c) s} I (inj₁ (gl , p , lt , inj₁ (v , true , false , refl)) , tn))
rl-kX (just c) false p s gl lt v tn I =
  mv refl refl refl refl ≤-refl (ok-inv (regop rl) {konsX (just c) s} I (inj₁ (gl , p , lt , inj₁ (v , false , false , refl)) , tn))

rlT-kX : ∀ k f1 p s → gcnt s ≤ kmax → p < nxt s → Valid s p → Tent s (emitT (konsX k (optP f1 (rl0 p s)))) →
         RInv (konsX k s) → RInv (emitT (konsX k (optP f1 (rl0 p s))))
rlT-kX nothing  f1    p s gl lt v tn I = ok-inv (regop rl) I (inj₁ (gl , p , lt , inj₁ (v , f1 , true , refl)) , tn)
rlT-kX (just c) true  p s gl lt v tn I =
  mv refl refl refl refl ≤-refl (ok-inv (regop rl) {konsX (just c) s} I (inj₁ (gl , p , lt , inj₁ (v , true , true , refl)) , tn))
rlT-kX (just c) false p s gl lt v tn I =
  mv refl refl refl refl ≤-refl (ok-inv (regop rl) {konsX (just c) s} I (inj₁ (gl , p , lt , inj₁ (v , false , true , refl)) , tn))

rlX-kX : ∀ k p s → gcnt s ≤ kmax → p < nxt s → ¬ Valid s p → RInv (konsX k s) → RInv (konsX k (rlX p s))
rlX-kX nothing  p s gl lt nv I = ok-inv (regop rl) I (inj₁ (gl , p , lt , inj₂ (nv , refl)) , inj₁ refl , RInv.bB I)
rlX-kX (just c) p s gl lt nv I =
  mv refl refl refl refl ≤-refl (ok-inv (regop rl) {konsX (just c) s} I (inj₁ (gl , p , lt , inj₂ (nv , refl)) , inj₁ refl , RInv.bB I))

es-kX : ∀ k p s → RInv (konsX k s) → RInv (konsX k (esF p s))
es-kX nothing  p s I = mv refl refl refl refl ≤-refl I
es-kX (just c) p s I = mv refl refl refl refl ≤-refl I

------------------------------------------------------------------------
-- How the owed page moves, from PL's invariant

private
  kp-of : ∀ {x y} → gen y ≡ gen x → chainOf y ≡ chainOf x → konsPg y ≡ konsPg x
  kp-of {x} {y} eg ec = trans (cong (λ g → konsFor g (chainOf y)) eg) (cong (konsFor (gen x)) ec)

  free2 : ∀ {x y} → chainOf y ≡ [] → chainOf x ≡ [] → konsPg y ≡ konsPg x
  free2 {x} {y} ey ex = trans (cong (konsFor (gen y)) ey) (sym (cong (konsFor (gen x)) ex))

  gen-optP : ∀ f y → gen (optP f y) ≡ gen y
  gen-optP true  y = refl
  gen-optP false y = refl

kp-wr : ∀ {s a d} f1 → RIL s → InB a s → konsPg (optP f1 (wr0 a d s)) ≡ konsPg s
kp-wr {s} {a} {d} f1 (inj₁ r) ib =
  free2 {s} {optP f1 (wr0 a d s)} (ri-chain-free (proj₂ (proj₂ (proj₂ (reg-sim (w a d) (AR-tOf s) r (inj₁ (ib , f1 , false , refl))))))) (ri-chain-free r)
kp-wr {s} {a} {d} f1 (inj₂ (ph@(phase C x L y E rs rest c M0 z ci si ri lk e) , _)) ib =
  kp-of {s} {optP f1 (wr0 a d s)} (gen-optP f1 (wr0 a d s)) (trans (ph-chainOf (wr-phase {s} {a} {d} f1 ph)) (sym (ph-chainOf ph)))

kp-rl : ∀ {s p} f1 → RIL s → gcnt s ≤ kmax → p < nxt s → Valid s p → konsPg (optP f1 (rl0 p s)) ≡ konsPg s
kp-rl {s} {p} f1 (inj₁ r) gl lt v =
  free2 {s} {optP f1 (rl0 p s)} (ri-chain-free (proj₂ (proj₂ (proj₂ (reg-sim rl (AR-tOf s) r (inj₁ (gl , p , lt , inj₁ (v , f1 , false , refl)))))))) (ri-chain-free r)
kp-rl {s} {p} f1 (inj₂ (ph@(phase C x L y E rs rest c M0 z ci si ri lk e) , _)) gl lt v =
  kp-of {s} {optP f1 (rl0 p s)} (gen-optP f1 (rl0 p s)) (trans (ph-chainOf (rl-phase {s} p f1 ph)) (sym (ph-chainOf ph)))

kp-rlX : ∀ {s p} → RIL s → gcnt s ≤ kmax → p < nxt s → ¬ Valid s p → konsPg (rlX p s) ≡ konsPg s
kp-rlX {s} {p} (inj₁ r) gl lt nv =
  free2 {s} {rlX p s} (ri-chain-free (proj₂ (proj₂ (proj₂ (reg-sim rl (AR-tOf s) r (inj₁ (gl , p , lt , inj₂ (nv , refl)))))))) (ri-chain-free r)
kp-rlX {s} {p} (inj₂ (ph@(phase C x L y E rs rest c M0 z ci si ri lk e) , _)) gl lt nv =
  kp-of {s} {rlX p s} refl (trans (ph-chainOf (rlX-phase {s} p ph)) (sym (ph-chainOf ph)))

kp-es : ∀ {s s'} → RIL s → (k : okPL EraseGuard (use (regop es)) s s') → konsPg s' ≡ konsPg s
kp-es {s} (inj₁ r) (p , e , _ , refl) =
  free2 {s} {esF p s} (ri-chain-free (proj₂ (proj₂ (proj₂ (reg-sim es (AR-tOf s) r (p , e , refl)))))) (ri-chain-free r)
kp-es {s} (inj₂ (ph@(phase C x L y E rs rest c M0 z ci si ri lk e0) , _)) k@(p , e , _ , refl) =
  kp-of {s} {esF p s} refl (trans (ph-chainOf (phase-es ph k)) (sym (ph-chainOf ph)))

-- a tentative page after the consolidation page leaves no chain
chain-tw : ∀ {s a d} f1 → RIL s → InB a s → chainOf (emitT (konsS (optP f1 (wr0 a d s)))) ≡ []
chain-tw {s} {a} {d} f1 (inj₁ r) ib =
  ri-chain-free (proj₂ (proj₂ (proj₂ (reg-sim (w a d) (AR-tOf s) r
    (inj₁ (ib , f1 , true , cong emitT (konsS-free {optP f1 (wr0 a d s)} (ri-chain-free r1))))))))
  where r1 = proj₂ (proj₂ (proj₂ (reg-sim (w a d) (AR-tOf s) r (inj₁ (ib , f1 , false , refl)))))
chain-tw {s} {a} {d} f1 (inj₂ (ph , r , nt)) ib with wr-sim {_} {s} {_} {a} {d} f1 (AR-tOf s) r ib
... | t' , _ , ar' , r' = ri-chain-free (proj₂ (kons-emitT-RI (wr-phase {s} {a} {d} f1 ph) ar' r' nt))

chain-tr : ∀ {s p} f1 → RIL s → gcnt s ≤ kmax → p < nxt s → Valid s p → chainOf (emitT (konsS (optP f1 (rl0 p s)))) ≡ []
chain-tr {s} {p} f1 (inj₁ r) gl lt v =
  ri-chain-free (proj₂ (proj₂ (proj₂ (reg-sim rl (AR-tOf s) r
    (inj₁ (gl , p , lt , inj₁ (v , f1 , true , cong emitT (konsS-free {optP f1 (rl0 p s)} (ri-chain-free r1)))))))))
  where r1 = proj₂ (proj₂ (proj₂ (reg-sim rl (AR-tOf s) r (inj₁ (gl , p , lt , inj₁ (v , f1 , false , refl))))))
chain-tr {s} {p} f1 (inj₂ (ph , r , nt)) gl lt v with rl-sim {_} {s} {_} {p} f1 (AR-tOf s) r gl lt v
... | t' , _ , ar' , r' = ri-chain-free (proj₂ (kons-emitT-RI (rl-phase p f1 ph) ar' r' nt))

-- P's flush after the consolidation page leaves no chain
chain-fl : ∀ {s s'} → RIL s → okP (use flush) (konsS s) s' → chainOf s' ≡ []
chain-fl {s} (inj₁ r) k = ri-chain-free (proj₂ (proj₂ (proj₂ (pl-flush-free (AR-tOf s) r k))))
chain-fl {s} (inj₂ (ph , r , nt)) k = ri-chain-free (proj₂ (proj₂ (proj₂ (pl-flush-phase ph (AR-tOf s) r nt k))))

------------------------------------------------------------------------
-- Preservation

-- a lazy commit is no commit with the consolidation page at once
lazy-not-kons : ∀ {s s' M} → s' ≡ fiL M s → Kons (konsS s) s' → ∀ {A : Set} → A
lazy-not-kons {s} {s'} {M} refl kn = ⊥-elim (1+n≰n (≤≡ (≤-trans (s≤s (kS-ge s)) (≤-reflexive (sym (len kn)))) (len-fi3 M s)))
  where
  len : Kons (konsS s) (fiL M s) → drL (fiL M s) ≡ suc (drL (konsS s))
  len (L , inj₁ (_ , e)) = trans (cong drL e) (len-fi4 L (konsS s))
  len (L , inj₂ (M' , _ , e)) = trans (cong drL e) (len-fi4 M' (konsS s))

ok-invL : ∀ u {s s'} → RIL s → RInvL s → okPLR (use u) s s' → RInvL s'
ok-invL (regop (w a d)) {s} ril I (inj₁ (ib , f1 , false , refl) , tn) =
  subst (λ k → RInv (konsX k (optP f1 (wr0 a d s)))) (sym (kp-wr f1 ril ib)) (wr-kX (konsPg s) f1 a d s ib tn I)
ok-invL (regop (w a d)) {s} ril I (inj₁ (ib , f1 , true , refl) , tn) =
  free-inv (chain-tw f1 ril ib)
    (subst (λ k → Tent s (emitT (konsX k m0)) → RInv (emitT (konsX k m0))) (sym (kp-wr f1 ril ib))
           (λ tn' → wrT-kX (konsPg s) f1 a d s ib tn' I) tn)
  where m0 = optP f1 (wr0 a d s)
ok-invL (regop (w a d)) ril I (inj₂ (_ , refl) , _) = I
ok-invL (regop rl) {s} ril I (inj₁ (gl , p , lt , inj₁ (v , f1 , false , refl)) , tn) =
  subst (λ k → RInv (konsX k (optP f1 (rl0 p s)))) (sym (kp-rl f1 ril gl lt v)) (rl-kX (konsPg s) f1 p s gl lt v tn I)
ok-invL (regop rl) {s} ril I (inj₁ (gl , p , lt , inj₁ (v , f1 , true , refl)) , tn) =
  free-inv (chain-tr f1 ril gl lt v)
    (subst (λ k → Tent s (emitT (konsX k m0)) → RInv (emitT (konsX k m0))) (sym (kp-rl f1 ril gl lt v))
           (λ tn' → rlT-kX (konsPg s) f1 p s gl lt v tn' I) tn)
  where m0 = optP f1 (rl0 p s)
ok-invL (regop rl) {s} ril I (inj₁ (gl , p , lt , inj₂ (nv , refl)) , _) =
  subst (λ k → RInv (konsX k (rlX p s))) (sym (kp-rlX ril gl lt nv)) (rlX-kX (konsPg s) p s gl lt nv I)
ok-invL (regop rl) ril I (inj₂ (_ , refl) , _) = I
ok-invL (regop es) {s} ril I (k@(p , _ , _ , refl) , _) =
  subst (λ k' → RInv (konsX k' (esF p s))) (sym (kp-es ril k)) (es-kX (konsPg s) p s I)
ok-invL flush {s} {s'} ril I (inj₁ k , inj₁ rm) = room-L s' (flush-fresh {konsS s} {s'} k) rm
ok-invL flush {s} {s'} ril I (inj₁ k , inj₂ (_ , rk)) =
  free-inv (chain-fl ril k) (fresh-inv {s'} (flush-fresh {konsS s} {s'} k) rk)
ok-invL flush {s} ril I (inj₂ (M , _ , refl) , inj₁ rm) = room-L (fiL M s) (refl , refl , refl , refl) rm
ok-invL flush {s} ril I (inj₂ (M , _ , e) , inj₂ (kn , _)) = lazy-not-kons {s} e kn

-- a recovery, from any state, starts an epoch with room
rec-invL : ∀ {s s'} → okPLR recover s s' → RInvL s'
rec-invL {s} ((b , g , C , _ , refl) , rm) = room-L (ck3 (rec0L b g C s)) (refl , refl , refl , refl) rm

-- **The room theorem** in PL's states: a free region page after the
-- page the chain owes
roomL : ∀ {s} → RInvL s → suc (drL (konsS s)) ≤ D
roomL I = room I

------------------------------------------------------------------------
-- Crash points: at most one region page past the owed one

private
  -- a write's or relocation's crash point (`y`: P's state after `wr0`
  -- or `rl0`, whose region is the state's), given that the step keeps
  -- the owed page
  opt-pt : ∀ {s y m} f1 f2 → dr y ≡ dr s → konsPg (optP f1 y) ≡ konsPg s → m ≡ optL f1 f2 y →
           drL m ≤ suc (drL (konsS s))
  opt-pt {s} {y} f1 false ey kp refl = ≤-trans (≤-reflexive (cong length (trans (dr-optP f1 y) ey))) (≤-trans (kS-ge s) (n≤1+n _))
  opt-pt {s} {y} f1 true  ey kp refl =
    s≤s (≤-reflexive (trans (cong (λ k → drL (konsX k (optP f1 y))) kp)
                            (kX-dr (konsPg s) (trans (dr-optP f1 y) ey))))

  optK-pt : ∀ {s y m} f1 f2 → dr y ≡ dr s → konsPg (optP f1 y) ≡ konsPg s → optLK f1 f2 y m →
            drL m ≤ suc (drL (konsS s))
  optK-pt {s} {y} f1 true ey kp refl =
    ≤-trans (≤-reflexive (trans (kP-len (konsPg (optP f1 y)) (optP f1 y))
                        (trans (cong (λ k → drL (konsX k (optP f1 y))) kp) (kX-dr (konsPg s) (trans (dr-optP f1 y) ey)))))
            (n≤1+n _)
  optK-pt f1 false ey kp ()

  wr-pt : ∀ {a d s m} → RIL s → okPL EraseGuard (use (regop (w a d))) s m → drL m ≤ suc (drL (konsS s))
  wr-pt {a} {d} {s} ril (inj₁ (ib , f1 , f2 , e)) = opt-pt {s} {wr0 a d s} f1 f2 refl (kp-wr f1 ril ib) e
  wr-pt {s = s} ril (inj₂ (_ , refl)) = ≤-trans (kS-ge s) (n≤1+n _)

  rl-pt : ∀ {s m} → RIL s → okPL EraseGuard (use (regop rl)) s m → drL m ≤ suc (drL (konsS s))
  rl-pt {s} ril (inj₁ (gl , p , lt , inj₁ (v , f1 , f2 , e))) = opt-pt {s} {rl0 p s} f1 f2 refl (kp-rl f1 ril gl lt v) e
  rl-pt {s} ril (inj₁ (gl , p , lt , inj₂ (nv , refl))) = ≤-trans (kS-ge s) (n≤1+n _)
  rl-pt {s} ril (inj₂ (_ , refl)) = ≤-trans (kS-ge s) (n≤1+n _)

  fl-pt : ∀ {s m} → (m ≡ konsI s ⊎ FlPt (konsS s) m ⊎ (Σ ℕ λ M → Lazy s M × (m ≡ fi2 M s ⊎ m ≡ fiL M s))) →
          drL m ≤ suc (drL (konsS s))
  fl-pt {s} (inj₁ refl) = ≤-trans (≤-reflexive (kP-len (konsPg s) s)) (n≤1+n _)
  fl-pt {s} {m} (inj₂ (inj₁ pt)) = fl-len {konsS s} {m} pt
  fl-pt {s} (inj₂ (inj₂ (M , _ , inj₁ refl))) = ≤-trans (kS-ge s) (n≤1+n _)
  fl-pt {s} (inj₂ (inj₂ (M , _ , inj₂ refl))) = ≤-trans (≤-reflexive (len-fi3 M s)) (≤-trans (kS-ge s) (n≤1+n _))

-- **The region never overflows**: every crash image of every operation
-- from a state of the invariant has the region within its D pages
crash-roomL : ∀ u {s s'} → RIL s → RInvL s → crashPL EraseGuard (use u) s s' → drL s' ≤ D
crash-roomL (regop (w a d)) {s} {s'} ril I (m , inj₁ k , img) =
  ≡≤ (len-img {m} {s'} img) (≤-trans (wr-pt ril k) (roomL {s} I))
crash-roomL (regop (w a d)) {s} {s'} ril I (m , inj₂ (ib , f1 , f2 , pt) , img) =
  ≡≤ (len-img {m} {s'} img) (≤-trans (optK-pt {s} {wr0 a d s} f1 f2 refl (kp-wr f1 ril ib) pt) (roomL {s} I))
crash-roomL (regop rl) {s} {s'} ril I (m , inj₁ k , img) =
  ≡≤ (len-img {m} {s'} img) (≤-trans (rl-pt ril k) (roomL {s} I))
crash-roomL (regop rl) {s} {s'} ril I (m , inj₂ (gl , p , lt , v , f1 , f2 , pt) , img) =
  ≡≤ (len-img {m} {s'} img) (≤-trans (optK-pt {s} {rl0 p s} f1 f2 refl (kp-rl f1 ril gl lt v) pt) (roomL {s} I))
crash-roomL (regop es) {s} {s'} ril I (m , (p , _ , _ , refl) , img) =
  ≡≤ (len-img {m} {s'} img) (≤-trans (≤-trans (kS-ge s) (n≤1+n _)) (roomL {s} I))
crash-roomL flush {s} {s'} ril I (m , pt , img) =
  ≡≤ (len-img {m} {s'} img) (≤-trans (fl-pt {s} {m} pt) (roomL {s} I))

-- and a recovery's crash keeps it there
recᶜ-roomL : ∀ {s s'} → drL s ≤ D → crashPL EraseGuard recover s s' → drL s' ≤ D
recᶜ-roomL {s} {s'} le (b , g , C , _ , m , ck , img) =
  ≡≤ (len-img {m} {s'} img) (≤-trans (ck-len {rec0L b g C s} {m} ck) (≡≤ (length-map sync (dr s)) le))

------------------------------------------------------------------------
-- The obligations, Theorem 1 and snapshot consistency for PLR

private
  module O = Sp.ForwardSimulation.Obligations (obligations-PL landed-ok)

open Sp.ForwardSimulation PLR S using () renaming (Obligations to ObligationsPLR; theorem1 to theorem1PLR)

obligationsPLR : ObligationsPLR
obligationsPLR = record
  { AR = O.AR ; CR = O.CR
  ; RI = λ s → RIL s × RInvL s
  ; CI = λ s → O.CI s × drL s ≤ D
  ; AR⇒≈ = λ {s} {t} → O.AR⇒≈ {s} {t}
  ; init-CR = λ {s} {t} → O.init-CR {s} {t}
  ; init-CI = λ {s} n → O.init-CI {s} n , new-len {s} n
  ; A-ok = λ u ar ri k → O.A-ok u ar (proj₁ ri) (proj₁ k)
  ; A-crash = λ u ar ri c → O.A-crash u ar (proj₁ ri) c
  ; A-rec = λ {s} {t} {s'} cr ci k → O.A-rec {s} {t} {s'} cr (proj₁ ci) (proj₁ k)
  ; A-recᶜ = λ {s} {t} {s'} cr ci c → O.A-recᶜ {s} {t} {s'} cr (proj₁ ci) c
  ; B-ok = λ u ri k → O.B-ok u (proj₁ ri) (proj₁ k) , ok-invL u (proj₁ ri) (proj₂ ri) k
  ; B-crash = λ u ri c → O.B-crash u (proj₁ ri) c , crash-roomL u (proj₁ ri) (proj₂ ri) c
  ; B-rec = λ {s} {s'} ci k → O.B-rec {s} {s'} (proj₁ ci) (proj₁ k) , rec-invL {s} {s'} k
  ; B-recᶜ = λ {s} {s'} ci c → O.B-recᶜ {s} {s'} (proj₁ ci) c , recᶜ-roomL {s} {s'} (proj₂ ci) c
  }

theorem1-PLR : Sp.Correspondence.BehaviourallyCorrect PLR S
theorem1-PLR = theorem1PLR obligationsPLR new-disk

PLR-snapshot-consistent : SnapshotConsistent PLR
PLR-snapshot-consistent = obligations⇒SC PLR obligationsPLR

------------------------------------------------------------------------
-- Room along every run

-- a recovery after a crash: crashes of recoveries, then one that ends
data RecovL (F : St → St → Set) : St → St → Set where
  recd : ∀ {z s1} → okPLRw F recover z s1 → RecovL F z s1
  recᶜ : ∀ {z z' s1} → crashPL EraseGuard recover z z' → RecovL F z' s1 → RecovL F z s1

-- a run: steps, and crashes of a step each followed by a recovery
data RunL (F : St → St → Set) : St → St → Set where
  done  : ∀ {s} → RunL F s s
  step  : ∀ u {s s1 s'} → okPLRw F (use u) s s1 → RunL F s1 s' → RunL F s s'
  crash : ∀ u {s z s1 s'} → crashPL EraseGuard (use u) s z → RecovL F z s1 → RunL F s1 s' → RunL F s s'

-- in every state of every run from format (whose first recovery may
-- crash too), a free region page past the page the chain owes
RoomsL : (St → St → Set) → Set
RoomsL F = ∀ {s0 s1 s} → NewP s0 → RecovL F s0 s1 → RunL F s1 s → suc (drL (konsS s)) ≤ D

private
  module OL = Sp.ForwardSimulation.Obligations obligationsPLR

  recov-inv : ∀ {z s1} → OL.CI z → RecovL FlR z s1 → OL.RI s1
  recov-inv {z} {s1} ci (recd k) = OL.B-rec {z} {s1} ci k
  recov-inv {z} ci (recᶜ {z' = z'} c r) = recov-inv (OL.B-recᶜ {z} {z'} ci c) r

  run-inv : ∀ {s s'} → OL.RI s → RunL FlR s s' → OL.RI s'
  run-inv ri done = ri
  run-inv ri (step u k r) = run-inv (OL.B-ok u ri k) r
  run-inv ri (crash u c rc r) = run-inv (recov-inv (OL.B-crash u ri c) rc) r

-- the code's rules
region-roomL : RoomsL FlR
region-roomL {s0} n k r = roomL (proj₂ (run-inv (recov-inv (OL.init-CI {s0} n) k) r))

------------------------------------------------------------------------
-- The rules refuse no operation

private
  -- a placing step (`y`: P's state after `wr0` or `rl0`): the tentative
  -- page, after the consolidation page, emitted exactly when the buffer
  -- fills
  place-tentL : ∀ f1 {s} y → ept y ≡ ept s → length (dbuf y) ≤ ppp → Σ Bool λ f2 → Tent s (optL f1 f2 y)
  place-tentL f1 {s} y e l with length (dbuf y) ≟ ppp
  ... | yes eq = true , inj₂ (dbuf (konsS m0) , cong (dbuf (konsS m0) ∷_) (trans (kS-e m0) (trans (ept-optP f1 y) e))
                              , trans (cong length (trans (kS-b m0) (dbuf-optP f1 y))) eq) , s≤s z≤n
    where m0 = optP f1 y
  ... | no ne  = false , inj₁ (trans (ept-optP f1 y) e) , subst (λ b → length b < ppp) (sym (dbuf-optP f1 y)) (≤∧≢⇒< l ne)

  bB-s : ∀ {s} → RInvL s → length (dbuf s) < ppp
  bB-s {s} I = subst (λ b → length b < ppp) (kS-b s) (RInv.bB I)

module _ (c4 : suc epm ≤ D) where

  -- for every step of PL from a state of the invariant there is a step
  -- of PLR with the same operation: the same branch, sector and victim
  -- for a write or relocation (the tentative page emitted when the
  -- buffer fills); a flush or lazy commit that would leave the region
  -- short as PL's flush ending in a full checkpoint
  liftL : ∀ u {s s'} → RInvL s → okPL EraseGuard (use u) s s' → Σ St λ s'' → okPLR (use u) s s''
  liftL (regop (w a d)) {s} I (inj₁ (ib , f1 , f2 , refl)) with place-tentL f1 {s} (wr0 a d s) refl (bB-s {s} I)
  ... | f2' , t = optL f1 f2' (wr0 a d s) , inj₁ (ib , f1 , f2' , refl) , t
  liftL (regop (w a d)) {s} I (inj₂ (nb , refl)) = s , inj₂ (nb , refl) , inj₁ refl , bB-s {s} I
  liftL (regop rl) {s} I (inj₁ (gl , p , lt , inj₁ (v , f1 , f2 , refl))) with place-tentL f1 {s} (rl0 p s) refl (bB-s {s} I)
  ... | f2' , t = optL f1 f2' (rl0 p s) , inj₁ (gl , p , lt , inj₁ (v , f1 , f2' , refl)) , t
  liftL (regop rl) {s} I (inj₁ (gl , p , lt , inj₂ (nv , refl))) =
    rlX p s , inj₁ (gl , p , lt , inj₂ (nv , refl)) , inj₁ refl , bB-s {s} I
  liftL (regop rl) {s} I (inj₂ (ng , refl)) = s , inj₂ (ng , refl) , inj₁ refl , bB-s {s} I
  liftL (regop es) I k = _ , k , tt
  liftL flush {s} {s'} I k with drL s' + suc epm ≤? D
  ... | yes r = s' , k , inj₁ r
  ... | no _  = ck3 (fl3 (konsS s)) , inj₁ (inj₂ (inj₁ refl)) , inj₁ c4

  -- PL's recovery always ends in a full checkpoint
  liftL-rec : ∀ {s s'} → okPL EraseGuard recover s s' → okPLR recover s s'
  liftL-rec k@(b , g , C , _ , refl) = k , c4

  -- a write or relocation lifted takes the same next page (the block
  -- layer's placement reads only `nxt`: SCFTL.Impl.SpaceRegionBlocks)
  liftL-nxt-w : ∀ a d {s s'} (I : RInvL s) (k : okPL EraseGuard (use (regop (w a d))) s s') →
                nxt (proj₁ (liftL (regop (w a d)) I k)) ≡ nxt s'
  liftL-nxt-w a d {s} I (inj₁ (ib , f1 , f2 , refl)) with place-tentL f1 {s} (wr0 a d s) refl (bB-s {s} I)
  ... | f2' , t = trans (optL-nxt f1 f2' (wr0 a d s)) (sym (optL-nxt f1 f2 (wr0 a d s)))
  liftL-nxt-w a d I (inj₂ (nb , refl)) = refl

  liftL-nxt-rl : ∀ {s s'} (I : RInvL s) (k : okPL EraseGuard (use (regop rl)) s s') →
                 nxt (proj₁ (liftL (regop rl) I k)) ≡ nxt s'
  liftL-nxt-rl {s} I (inj₁ (gl , p , lt , inj₁ (v , f1 , f2 , refl))) with place-tentL f1 {s} (rl0 p s) refl (bB-s {s} I)
  ... | f2' , t = trans (optL-nxt f1 f2' (rl0 p s)) (sym (optL-nxt f1 f2 (rl0 p s)))
  liftL-nxt-rl I (inj₁ (gl , p , lt , inj₂ (nv , refl))) = refl
  liftL-nxt-rl I (inj₂ (ng , refl)) = refl
