{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks in the one model: GC's walk in the
-- chain phase, under a policy on lazy commits.
--
-- In PL's chain phase PX erases a page only under PL's guard
-- (`EraseGuard`: no record of the chain and not the region's newest
-- commit names it), and while a victim is in progress the layer may not
-- flush, so SCFTL.Impl.SpaceChainErase's flush with a full checkpoint
-- is no way to clear the guard in the middle of GC's walk.  The guard
-- holds of every page while no cell of the region is a commit
-- (SCFTL.Impl.SpaceChainQuiet's `guard-nc`).  So here a layer with a
-- policy that keeps it so whenever the walk may need an erase:
--
--   `OwnE`, `Pol`   : the policy of a state: in the chain phase, while
--                   the layer holds a block erasable, no commit on the
--                   region and every page of each such block on P's
--                   erasable queue;
--   `LStepP`        : the layer's step whose target meets the policy.
--                   Its runs are `LStep`'s, so every invariant of the
--                   layer holds of them; what it refuses: a flush of the
--                   chain phase that leaves a commit on the region while
--                   a block is erasable (a lazy commit, or a region
--                   commit without the checkpoint), and a step from
--                   PUSBic's phase into the chain phase while an
--                   erasable block has a page still on the invalid queue
--                   or the region holds a commit;
--   `w-chain`, `rl-chain`, `run-nc`, `run-ers` : P's write and
--                   relocation in the chain phase keep `NoCommit` and the
--                   erasable queue; a block erase keeps `NoCommit` and
--                   every other page erasable;
--   **`pol-step`**  : every step of the layer but a flush keeps the
--                   policy unless it enters the chain phase (a barrier
--                   always leaves it, `bar-pu`; no SYNC in it, `no-sy`) —
--                   so from a state that meets the policy `LStepP`
--                   refuses only those two kinds of step (`keepP`,
--                   `keepRP`: every other step is one); `pol-walk`: in
--                   particular every step GC's walk takes (no flush while
--                   a victim is in progress, the walk stays in its phase);
--   `chain-eraser`  : in the chain phase, a block the layer holds
--                   erasable is erased by one step of the layer (each
--                   page by PX's erase, RecoveryReclaim's `es-runN`, its
--                   guard met by `NoCommit`), from every set of states
--                   that meet the policy (SpaceGcWalk's `Eraser`);
--   **`victim-endsP`** : in every state `LStepP` reaches from the first
--                   recovery of a new disk, in either phase, for every
--                   configuration passing the code's constraints with
--                   K · Z ≤ kmax + 1, a victim GC has taken is ended by a
--                   run of `LStepP` (SCFTL.Impl.SpaceGcWalk's walk, the
--                   erase first where only an erasable block has room:
--                   PUSBic's after the SYNC, the chain phase's at once);
--   **`ck-stepP`**  : the policy never holds up a flush: from every state
--                   `LStepP` reaches with no epoch unsynced where the
--                   layer may flush, the flush that ends in a full
--                   checkpoint is a step of `LStepP`;
--   `LStepRP`, **`rec-stepRP`**, **`victim-endsRP`**, `ck-stepRP` : the
--                   same through any number of power cuts (SpaceRecLayer's
--                   `LStepR` under the policy): the policy never refuses
--                   a recovery (PL's recovery ends in a full checkpoint
--                   and leaves the invalid queue empty), and GC of every
--                   victim ends in either phase.
--
-- So PX's chain phase never deadlocks GC.  The policy is sufficient, not
-- the code's: the code keeps only the chain's superblock (`tail_sb`)
-- and, after a recovery, the verified epochs' ones (`recovery_avoid`)
-- from erase until the next commit, and takes the region's newest
-- commit as proven by the chain's first record, where PL's guard asks
-- that no page it names be erased (proofs/README.md, "Not done", item
-- 1).  Not proven: that a step into the chain phase the policy refuses
-- always has a counterpart that stays in PUSBic's phase.  Not vacuous:
-- SCFTL.Impl.SpaceChainWalkExample (a victim and an erase in the chain
-- phase under the policy).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceChainWalk (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (suc; _*_; _<_; _≤_)
open import Data.Nat.Properties using () renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
import Data.List.Relation.Unary.All as All

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; inv; ers; esF; rl0; wr0; optP; _[_≔_])
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (konsS; konsPg; optL)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su; gh)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX; lzS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone; EsRunM; one; _∷_; Place)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (_∈_)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; own; wp; ab; berase; owners; OwnLoc; upd-self; upd-ne)
open import SCFTL.Impl.SpaceChainQuiet Data d0 amax wmax kmax _≟D_ kc using (NoCommit; nc-wr; nc-rl; nc-rlX; nc-esF)
open import SCFTL.Impl.RecoveryReclaim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Clear; clear-nc; rec-clear; es-runN; ownersB-at; ownersB-distinct)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb using (Gh; es; cv; gn; nothing≢just; t→¬f)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone; endEp; qd; Guard;
         guard-open; guard-unc; guard-moved; G0; Start; usedOf)
open import SCFTL.Impl.SpaceLayerStart Data d0 amax wmax kmax umax _≟D_ kc zb using (new-start)
open import SCFTL.Impl.SpaceQueued Data d0 amax wmax kmax umax _≟D_ kc zb
  using (QInv; Apart; Taken; apart-at; place-other; mem-own; run-queued; layer-queued; qd-ers; ∉-hd; ∉-tl)
open import SCFTL.Impl.SpaceGcWalk Data d0 amax wmax kmax umax _≟D_ kc zb
  using (WalkFacts; module WalkFacts; Eraser; sync-eraser; restrict; module Walking; run-unqueued; reach-facts)
open import SCFTL.Impl.SpaceChainErase Data d0 amax wmax kmax umax _≟D_ kc zb using (ckF; ck-flush; ck-clear; inv-flush-any)
open import SCFTL.Impl.SpaceRecLayer Data d0 amax wmax kmax umax _≟D_ kc zb using (LStepR; ls; lrec; recBL)
open import SCFTL.Impl.SpaceRecGc Data d0 amax wmax kmax umax _≟D_ kc zb using (gc-inv-crash; reach-factsR)
open import SCFTL.Impl.SpaceRecFit Data d0 amax wmax kmax umax _≟D_ kc zb using (LayerOp)
open import SCFTL.Impl.SpaceRecInv Data d0 amax wmax kmax umax _≟D_ kc zb using (recGh)
open import SCFTL.Impl.OneModelRecMaps Data d0 amax wmax kmax umax _≟D_ kc zb using (AgainX)
import SCFTL.Impl.Space as Spc
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module PXm = SB.Model PX

------------------------------------------------------------------------
-- The policy

-- every page placed in block j since its last erase is on P's erasable
-- queue
OwnE : XS → BL → ℕ → Set
OwnE X bl j = ∀ o p → o < wp bl j → own bl j o ≡ just p → ers (stX X) p ≡ true

-- in the chain phase, while the layer holds a block erasable: no commit
-- on the region, and the block's pages erasable in P
Pol : LS → Set
Pol (G , X , bl) = proj₁ X ≡ true → ∀ j → es G j ≡ true → NoCommit (stX X) × OwnE X bl j

-- a step relation under the policy: a step whose target meets it
WithPol : (LS → LS → Set) → LS → LS → Set
WithPol T s s' = T s s' × Pol s'

-- the layer under the policy; the same through power cuts (SpaceRecLayer)
LStepP LStepRP : Spc.Config → LS → LS → Set
LStepP c = WithPol (LStep c)
LStepRP c = WithPol (LStepR c)

-- its runs are the layer's
unP : ∀ {T s s'} → Star (WithPol T) s s' → Star T s s'
unP ε = ε
unP (st ◅ r) = proj₁ st ◅ unP r

pol-star : ∀ {T s s'} → Pol s → Star (WithPol T) s s' → Pol s'
pol-star p ε = p
pol-star p (st ◅ r) = pol-star (proj₂ st) r

-- a new disk's first recovery: no block erasable
pol-G0 : ∀ {X bl} → Pol (G0 , X , bl)
pol-G0 _ j e = ⊥-elim (t→¬f e refl)

------------------------------------------------------------------------
-- What keeps it

-- the erasable queue through the optional pages of a write or relocation
ers-optP : ∀ f s → ers (optP f s) ≡ ers s
ers-optP true  s = refl
ers-optP false s = refl

ers-konsS : ∀ s → ers (konsS s) ≡ ers s
ers-konsS s with konsPg s
... | nothing = refl
... | just _  = refl

ers-optL : ∀ f1 f2 s → ers (optL f1 f2 s) ≡ ers s
ers-optL f1 true  s = trans (ers-konsS (optP f1 s)) (ers-optP f1 s)
ers-optL f1 false s = ers-optP f1 s

-- P's relocation in the chain phase (`rl0` with its optional pages, or
-- `rlX`, or none): no commit added, the erasable queue kept
rl-chain : ∀ {S X'} → PXm.ok (SB.use (SB.reg (SB.op SB.rl))) (true , S) X' →
           (NoCommit (st (su S)) → NoCommit (stX X')) × (∀ p → ers (stX X') p ≡ ers (st (su S)) p)
rl-chain (inj₁ (refl , _ , () , _))
rl-chain {S} (inj₂ (refl , _ , _ , refl , inj₁ (_ , q , _ , inj₁ (_ , f1 , f2 , refl)))) =
  nc-rl f1 f2 q (st (su S)) , λ p → cong (λ f → f p) (ers-optL f1 f2 (rl0 q (st (su S))))
rl-chain {S} (inj₂ (refl , _ , _ , refl , inj₁ (_ , q , _ , inj₂ (_ , refl)))) = nc-rlX q (st (su S)) , λ p → refl
rl-chain (inj₂ (refl , _ , _ , refl , inj₂ (_ , refl))) = (λ nc → nc) , λ p → refl

-- no SYNC in the chain phase
no-sy : ∀ {X X'} → PXm.ok (SB.use (SB.reg (SB.op SB.sy))) X X' → proj₁ X ≡ true → ⊥
no-sy {true , S} (inj₁ (refl , _ , () , _)) _
no-sy {false , S} (inj₁ _) ()
no-sy (inj₂ (refl , _ , _ , _ , ()))

-- a block erase: no commit added, every other page still erasable
run-nc : ∀ {X ps X'} → EsRunM X ps X' → NoCommit (stX X) → NoCommit (stX X')
run-nc {X} (one {p = q} (_ , e)) nc = subst NoCommit (sym e) (nc-esF q (stX X) nc)
run-nc {X} (_∷_ {p = q} (_ , e) rn) nc = run-nc rn (subst NoCommit (sym e) (nc-esF q (stX X) nc))

private
  ers-esF : ∀ q s p → ¬ (p ≡ q) → ers s p ≡ true → ers (esF q s) p ≡ true
  ers-esF q s p ne e = trans (upd-ne (ers s) p q false ne) e


run-ers : ∀ {X ps X'} → EsRunM X ps X' → ∀ p → ¬ (p ∈ ps) → ers (stX X) p ≡ true → ers (stX X') p ≡ true
run-ers {X} (one {p = q} (_ , e)) p ni x = subst (λ z → ers z p ≡ true) (sym e) (ers-esF q (stX X) p (∉-hd ni) x)
run-ers {X} (_∷_ {p = q} (_ , e) rn) p ni x =
  run-ers rn p (∉-tl ni) (subst (λ z → ers z p ≡ true) (sym e) (ers-esF q (stX X) p (∉-hd ni) x))

-- P's write in the chain phase (with its optional pages, or none): the
-- same
w-chain : ∀ {a d S X'} → PXm.ok (SB.use (SB.reg (SB.op (SB.w a d)))) (true , S) X' →
          (NoCommit (st (su S)) → NoCommit (stX X')) × (∀ p → ers (stX X') p ≡ ers (st (su S)) p)
w-chain (inj₁ (refl , _ , () , _))
w-chain {a} {d} {S} (inj₂ (refl , _ , _ , refl , inj₁ (_ , f1 , f2 , refl))) =
  nc-wr f1 f2 a d (st (su S)) , λ p → cong (λ f → f p) (ers-optL f1 f2 (wr0 a d (st (su S))))
w-chain (inj₂ (refl , _ , _ , refl , inj₂ (_ , refl))) = (λ nc → nc) , λ p → refl

-- a barrier always ends in PUSBic's phase
bar-pu : ∀ {X X'} → PXm.ok (SB.use (SB.reg SB.barrier)) X X' → proj₁ X' ≡ false
bar-pu {false , S} (inj₁ (refl , _ , refl , _)) = refl
bar-pu {true , S} (inj₁ (refl , _ , refl , _)) = refl
bar-pu (inj₂ (refl , _ , _ , _ , ()))

-- a step that does not enter the chain phase: it starts there, or ends
-- in PUSBic's phase
NoSwitch : XS → XS → Set
NoSwitch X X' = proj₁ X' ≡ true → proj₁ X ≡ true

private
  -- a write or relocation of the chain phase keeps the policy: the
  -- erasable blocks' pages stay where they were (no placement takes such
  -- a block), no commit added, the erasable queue kept
  pol-place : ∀ {G X bl X' bl'} → Pol (G , X , bl) → Apart G X bl (Taken G) → Place X X' bl bl' → Guard X G bl bl' →
              (∀ {S} → X ≡ (true , S) → (NoCommit (st (su S)) → NoCommit (stX X')) × (∀ p → ers (stX X') p ≡ ers (st (su S)) p)) →
              NoSwitch X X' → Pol (G , X' , bl')
  pol-place {G} {false , S} p ap pl gd f ns t = ⊥-elim (t→¬f (ns t) refl)
  pol-place {G} {true , S} {bl} {X'} {bl'} p ap pl gd f ns t j esj = proj₁ R (proj₁ pj) , oe
    where
    P = place-other {true , S} {X'} {bl} {bl'} {j} pl (apart-at {G} {true , S} {bl} {bl'} gd ap j (inj₁ esj))
    R = f refl
    pj = p refl j esj
    oe : OwnE X' bl' j
    oe o′ q lt e = trans (proj₂ R q) (proj₂ pj o′ q (subst (o′ <_) (proj₁ P) lt) (trans (sym (proj₂ P o′)) e))

  pol-w : ∀ {G X bl X' bl' a d} → Pol (G , X , bl) → Apart G X bl (Taken G) →
          PXm.ok (SB.use (SB.reg (SB.op (SB.w a d)))) X X' → Place X X' bl bl' → Guard X G bl bl' →
          NoSwitch X X' → Pol (G , X' , bl')
  pol-w {G} {X} {bl} {X'} {bl'} p ap o pl gd = pol-place {G} {X} {bl} {X'} {bl'} p ap pl gd (λ { refl → w-chain o })

  pol-rl : ∀ {G X bl X' bl'} → Pol (G , X , bl) → Apart G X bl (Taken G) →
           PXm.ok (SB.use (SB.reg (SB.op SB.rl))) X X' → Place X X' bl bl' → Guard X G bl bl' →
           NoSwitch X X' → Pol (G , X' , bl')
  pol-rl {G} {X} {bl} {X'} {bl'} p ap o pl gd = pol-place {G} {X} {bl} {X'} {bl'} p ap pl gd (λ { refl → rl-chain o })

  -- a block erase keeps it: the erased block leaves the class
  pol-era : ∀ {G X bl X' k} → Pol (G , X , bl) → OwnLoc bl → EsRunM X (owners bl k) X' →
            NoSwitch X X' → Pol (record G { es = es G [ k ≔ false ] } , X' , berase k bl)
  pol-era {G} {X} {bl} {X'} {k} p ol rn ns t j esj with j ≟ℕ k
  ... | yes refl = t→¬f esj (upd-self (es G) j false)
  ... | no ne = run-nc rn (proj₁ pj) , oe
    where
    pj = p (ns t) j (trans (sym (upd-ne (es G) j k false ne)) esj)
    off : ∀ o q → own bl j o ≡ just q → ¬ (q ∈ owners bl k)
    off o q e i with mem-own bl k (wp bl k) q i
    ... | o′ , _ , e′ = ne (cong proj₁ (trans (sym (ol j o q e)) (ol k o′ q e′)))
    oe : OwnE X' (berase k bl) j
    oe o q lt e = run-ers rn q (off o q e) (proj₂ pj o q (subst (o <_) (upd-ne (wp bl) j k 0 ne) lt) e)

-- the layer's flush
Flush : ∀ {c s s'} → LStep c s s' → Set
Flush (lfl _ _ _) = ⊤
Flush _           = ⊥

-- **every step of the layer but a flush keeps the policy, unless it
-- enters the chain phase**: so from a state that meets the policy,
-- `LStepP` refuses only a flush whose target does not meet it (one of
-- the chain phase that leaves a commit on the region while a block is
-- erasable) and a step into the chain phase whose target does not
pol-step : ∀ {c G X bl G' X' bl'} → Pol (G , X , bl) → OwnLoc bl → Apart G X bl (Taken G) →
           (st : LStep c (G , X , bl) (G' , X' , bl')) → ¬ Flush st → NoSwitch X X' → Pol (G' , X' , bl')
pol-step {G = G} {X} {bl} p ol ap (lw (o , pl) _ _ _ uncl) nf ns = pol-w {G} {X} {bl} p ap o pl (guard-open {X} {G} {bl} uncl) ns
pol-step {G = G} {X} {bl} p ol ap (lwa (o , pl) _ _ _ _ _ uncl) nf ns = pol-w {G} {X} {bl} p ap o pl (guard-unc {X} {G} {bl} uncl) ns
pol-step p ol ap (lret _ _ _ _) nf ns = p
pol-step {G = G} {X} {bl} p ol ap (lwr (o , pl) moved _ _ _ _) nf ns = pol-w {G} {X} {bl} p ap o pl (guard-moved {X} {G} {bl} moved) ns
pol-step p ol ap (lfl _ _ _) nf ns = ⊥-elim (nf _)
pol-step p ol ap (lbar (o , refl) _ _) nf ns t = ⊥-elim (t→¬f t (bar-pu o))
pol-step p ol ap (lsy (o , refl)) nf ns t = ⊥-elim (no-sy o (ns t))
pol-step {G = G} {X} {bl} p ol ap (lera (k , rn , refl) _ _) nf ns = pol-era {G} {X} {bl} {k = k} p ol rn ns
pol-step p ol ap (lgcm _ _ _ _ _ _) nf ns = p
pol-step {G = G} {X} {bl} p ol ap (lrl _ (o , pl) _ _ _ uncl) nf ns = pol-rl {G} {X} {bl} p ap o pl (guard-open {X} {G} {bl} uncl) ns
pol-step {G = G} {X} {bl} p ol ap (lrla _ (o , pl) _ _ _ _ _ uncl) nf ns = pol-rl {G} {X} {bl} p ap o pl (guard-unc {X} {G} {bl} uncl) ns
pol-step {G = G} {X} {bl} p ol ap (lrlr _ (o , pl) moved _ _ _ _) nf ns = pol-rl {G} {X} {bl} p ap o pl (guard-moved {X} {G} {bl} moved) ns
pol-step p ol ap (ldone _ _ _) nf ns = p

-- ... in particular every step the walk takes: while a victim is in
-- progress the layer does not flush, and the walk stays in its phase
pol-walk : ∀ {c G X bl G' X' bl' k} → Pol (G , X , bl) → OwnLoc bl → Apart G X bl (Taken G) →
           cv G ≡ just k → proj₁ X' ≡ proj₁ X → LStep c (G , X , bl) (G' , X' , bl') → Pol (G' , X' , bl')
pol-walk p ol ap cvk ph st = pol-step p ol ap st (nf st) (λ t → trans (sym ph) t)
  where
  nf : (st : LStep _ _ _) → ¬ Flush st
  nf (lfl _ nocv _) _ = nothing≢just (trans (sym nocv) cvk)
  nf (lw _ _ _ _ _) ()
  nf (lwa _ _ _ _ _ _ _) ()
  nf (lret _ _ _ _) ()
  nf (lwr _ _ _ _ _ _) ()
  nf (lbar _ _ _) ()
  nf (lsy _) ()
  nf (lera _ _ _) ()
  nf (lgcm _ _ _ _ _ _) ()
  nf (lrl _ _ _ _ _ _) ()
  nf (lrla _ _ _ _ _ _ _ _) ()
  nf (lrlr _ _ _ _ _ _ _) ()
  nf (ldone _ _ _) ()

------------------------------------------------------------------------
-- The walk under the policy

-- **in the chain phase a block the layer holds erasable is erased by a
-- step of the layer**, from every state of a set the walk runs through
-- whose states meet the policy: the block's pages erasable and the
-- region without a commit, so PL's guard holds of each (`guard-nc`) and
-- PX erases them one by one (RecoveryReclaim's `es-runN`)
chain-eraser : ∀ {c Step R} → (W : WalkFacts c Step R) → (∀ {s} → R s → Pol s) → Eraser c Step R true
chain-eraser {c} {Step} {R} W polR {G} {true , S} {bl} {k} {k′} r refl cvk esk′ k′P =
  X″ , lift r cvk ph2 (lera (k′ , rn , refl) esk′ k′P) ◅ ε , ph2 ,
  (λ p ni x → run-queued rn p ni x) , (λ p f → run-unqueued rn f)
  where
  open WalkFacts W
  pj = polR r refl k′ esk′
  ers-of : ∀ {q} → (Σ ℕ λ o → o < wp bl k′ × own bl k′ o ≡ just q) → ers (st (su S)) q ≡ true
  ers-of {q} (o , lt , e) = proj₂ pj o q lt e
  ri = riR r
  R′ = es-runN (true , S) (owners bl k′) (proj₁ (proj₁ ri) , proj₁ pj) (All.map ers-of (ownersB-at bl k′ (wp bl k′)))
              (ownersB-distinct bl k′ (wp bl k′) (proj₂ ri)) (ownedR r esk′)
  X″ = proj₁ R′
  rn = proj₁ (proj₂ R′)
  ph2 = proj₁ (proj₂ (proj₂ R′))

-- a clear state of the chain phase (what the flush with the full
-- checkpoint and PL's recovery leave) whose invalid queue is empty meets
-- the policy: no commit on the empty region, and every page of an
-- erasable block queued (`QInv`), so on the erasable queue
pol-clear : ∀ {G X bl} → Clear X → (∀ p → inv (stX X) p ≡ false) → QInv (G , X , bl) → Pol (G , X , bl)
pol-clear {G} {true , S} {bl} c noinv Q _ j esj =
  proj₂ (clear-nc (true , S) c) , λ o q lt e → qd-ers (stX (true , S)) q (Q j (inj₁ esj) o q lt e) (noinv q)
pol-clear {G} {false , S} c noinv Q ()

-- PL's recovery leaves the invalid queue empty
rec-noinv : ∀ {X X'} → PXm.ok SB.recover X X' → proj₁ X' ≡ true → ∀ p → inv (stX X') p ≡ false
rec-noinv {false , S} {.false , S'} (refl , _) ()
rec-noinv {true , S} {.true , ._} (refl , _ , s' , refl , (b , g , C , pk , refl)) _ p = refl

module _ {c : Spc.Config} (V : Spc.Valid c) (eL : Spc.L c ≡ suc amax) (eW : Spc.W c ≡ suc wmax) (eS : Spc.S c ≡ Z)
         (KZ : Spc.K c * Z ≤ suc kmax) {X0 bl0 X1 bl1} (new : SB.Model.New BXone (X0 , bl0))
         (rec : SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1)) (abP : ab bl0 < Spc.P c) where

  ----------------------------------------------------------------------
  -- Without a crash

  -- what the layer under the policy reaches
  ReachP : LS → Set
  ReachP s = Star (LStepP c) (G0 , X1 , bl1) s

  private
    F = reach-facts V eL eW eS KZ new rec abP
    module F = WalkFacts F

    pol-at : ∀ {s} → ReachP s → Pol s
    pol-at r = pol-star (pol-G0 {X1} {bl1}) r

  -- **the policy refuses no other step**: every step of the layer from a
  -- state it reaches, but a flush and a step into the chain phase, is
  -- one of `LStepP`
  keepP : ∀ {G X bl G' X' bl'} → ReachP (G , X , bl) → (st : LStep c (G , X , bl) (G' , X' , bl')) → ¬ Flush st →
          NoSwitch X X' → LStepP c (G , X , bl) (G' , X' , bl')
  keepP r st nf ns = st , pol-step (pol-at r) (proj₂ (F.riR (unP r))) (F.apartR (unP r)) st nf ns

  -- every step the walk takes is one of `LStepP`
  liftP : ∀ {G X bl G' X' bl' k} → ReachP (G , X , bl) → cv G ≡ just k → proj₁ X' ≡ proj₁ X →
          LStep c (G , X , bl) (G' , X' , bl') → LStepP c (G , X , bl) (G' , X' , bl')
  liftP r cvk ph st = st , pol-walk (pol-at r) (proj₂ (F.riR (unP r))) (F.apartR (unP r)) cvk ph st

  factsP : WalkFacts c (LStepP c) ReachP
  factsP = restrict F unP (λ r st → r ◅◅ (st ◅ ε)) liftP

  -- **GC of every victim ends under the policy, in either phase**: in
  -- every state the layer under the policy reaches from the first
  -- recovery of a new disk, while GC moves a victim, a run of it
  -- relocates each of the victim's pages not yet on P's queues and ends
  -- the victim — where only a block the layer holds erasable has room,
  -- that block erased first: after the SYNC that releases its pages in
  -- PUSBic's phase, at once in the chain phase
  victim-endsP : ∀ {G X bl k} → ReachP (G , X , bl) → cv G ≡ just k →
                 Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' → Star (LStepP c) (G , X , bl) (G' , X' , bl') × cv G' ≡ nothing
  victim-endsP {G} {false , S} r cvk = Walking.walk-ends factsP (sync-eraser factsP) KZ r refl cvk
  victim-endsP {G} {true , S} r cvk = Walking.walk-ends factsP (chain-eraser factsP pol-at) KZ r refl cvk

  -- **the policy never holds up a flush**: from every state the layer
  -- under the policy reaches with no epoch unsynced (every state of the
  -- chain phase) where the layer may flush, the flush that ends in a
  -- full checkpoint is a step of it (the region empty after it, and
  -- every page of a block then erasable on P's erasable queue: the flush
  -- emptied the invalid one)
  ck-stepP : ∀ {G b S bl} → ReachP (G , (b , S) , bl) → ues (su S) ≡ [] → cv G ≡ nothing →
             Spc.NotNeeded c (gn G) (usedOf c G (b , S) bl) →
             LStepP c (G , (b , S) , bl) (endEp G , (true , lzS (ckF (st (su S))) (gh S)) , bl)
  ck-stepP {G} {b} {S} {bl} r ue nocv nn = st′ , pol′
    where
    X′ = (true , lzS (ckF (st (su S))) (gh S))
    o : SB.Model.ok BXone (SB.use SB.flush) ((b , S) , bl) (X′ , bl)
    o = ck-flush b S ue , refl
    st′ : LStep c (G , (b , S) , bl) (endEp G , X′ , bl)
    st′ = lfl o nocv nn
    pol′ : Pol (endEp G , X′ , bl)
    pol′ = pol-clear {endEp G} {X′} {bl} (ck-clear (st (su S)) (gh S)) (inv-flush-any (proj₁ o))
             (layer-queued eL eW eS (new-start {c} new rec abP) (unP r ◅◅ (st′ ◅ ε)))

  ----------------------------------------------------------------------
  -- Through power cuts

  -- what the layer under the policy reaches through power cuts
  ReachRP : LS → Set
  ReachRP s = Star (LStepRP c) (G0 , X1 , bl1) s

  private
    FR = reach-factsR V eL eW eS KZ new rec abP
    module FR = WalkFacts FR

    pol-atR : ∀ {s} → ReachRP s → Pol s
    pol-atR r = pol-star (pol-G0 {X1} {bl1}) r

  -- **the policy never refuses a recovery**: after a power cut at any
  -- crash point of an operation the layer may take, crashed recoveries
  -- and the recovery, the state meets it (PL's recovery ends in a full
  -- checkpoint and leaves the invalid queue empty)
  rec-stepRP : ∀ {G X bl u C0 blc C X'} → ReachRP (G , X , bl) → (op : LayerOp c G X bl u) →
               (cr : SB.Model.crash BXone (SB.use u) (X , bl) (C0 , blc)) → (abc : ab blc < Spc.P c) →
               (ag : AgainX C0 C) → (o : PXm.ok SB.recover C X') →
               LStepRP c (G , X , bl) (recGh c X' (recBL X' blc) , X' , recBL X' blc)
  rec-stepRP {G} {X} {bl} {u} {C0} {blc} {C} {X'} r op cr abc ag o = st′ , pol′
    where
    st′ = lrec op cr abc ag o
    Q = proj₁ (gc-inv-crash (Spc.needs V) eL eW eS new rec abP (unP r ◅◅ (st′ ◅ ε)))
    pol′ : Pol (recGh c X' (recBL X' blc) , X' , recBL X' blc)
    pol′ t = pol-clear {recGh c X' (recBL X' blc)} {X'} {recBL X' blc} (rec-clear {C} {X'} o) (rec-noinv {C} {X'} o t) Q t

  keepRP : ∀ {G X bl G' X' bl'} → ReachRP (G , X , bl) → (st : LStep c (G , X , bl) (G' , X' , bl')) → ¬ Flush st →
           NoSwitch X X' → LStepRP c (G , X , bl) (G' , X' , bl')
  keepRP r st nf ns = ls st , pol-step (pol-atR r) (proj₂ (FR.riR (unP r))) (FR.apartR (unP r)) st nf ns

  liftRP : ∀ {G X bl G' X' bl' k} → ReachRP (G , X , bl) → cv G ≡ just k → proj₁ X' ≡ proj₁ X →
           LStep c (G , X , bl) (G' , X' , bl') → LStepRP c (G , X , bl) (G' , X' , bl')
  liftRP r cvk ph st = ls st , pol-walk (pol-atR r) (proj₂ (FR.riR (unP r))) (FR.apartR (unP r)) cvk ph st

  factsRP : WalkFacts c (LStepRP c) ReachRP
  factsRP = restrict FR unP (λ r st → r ◅◅ (st ◅ ε)) liftRP

  -- **GC of every victim ends under the policy, in either phase, across
  -- power cuts**
  victim-endsRP : ∀ {G X bl k} → ReachRP (G , X , bl) → cv G ≡ just k →
                  Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' → Star (LStepRP c) (G , X , bl) (G' , X' , bl') × cv G' ≡ nothing
  victim-endsRP {G} {false , S} r cvk = Walking.walk-ends factsRP (sync-eraser factsRP) KZ r refl cvk
  victim-endsRP {G} {true , S} r cvk = Walking.walk-ends factsRP (chain-eraser factsRP pol-atR) KZ r refl cvk

  -- **and the flush with the full checkpoint is never refused there
  -- either**
  ck-stepRP : ∀ {G b S bl} → ReachRP (G , (b , S) , bl) → ues (su S) ≡ [] → cv G ≡ nothing →
              Spc.NotNeeded c (gn G) (usedOf c G (b , S) bl) →
              LStepRP c (G , (b , S) , bl) (endEp G , (true , lzS (ckF (st (su S))) (gh S)) , bl)
  ck-stepRP {G} {b} {S} {bl} r ue nocv nn = ls st′ , pol′
    where
    X′ = (true , lzS (ckF (st (su S))) (gh S))
    o : SB.Model.ok BXone (SB.use SB.flush) ((b , S) , bl) (X′ , bl)
    o = ck-flush b S ue , refl
    st′ : LStep c (G , (b , S) , bl) (endEp G , X′ , bl)
    st′ = lfl o nocv nn
    pol′ : Pol (endEp G , X′ , bl)
    pol′ = pol-clear {endEp G} {X′} {bl} (ck-clear (st (su S)) (gh S)) (inv-flush-any (proj₁ o))
             (proj₁ (gc-inv-crash (Spc.needs V) eL eW eS new rec abP (unP r ◅◅ (ls st′ ◅ ε))))
