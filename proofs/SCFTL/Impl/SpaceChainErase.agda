{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks in the one model: the erase in the
-- chain phase.
--
-- In PUSBic's phase PX erases any page on P's erasable queue, and
-- SCFTL.Impl.SpaceQueued showed that a flush (`flushed-erase`), or the
-- SYNC after an epoch barrier (`synced-erase`), lets the block layer
-- erase every block the layer holds erasable.  In PL's chain phase the
-- erase is guarded as well (`EraseGuard`: no record of the chain and
-- not the region's newest commit names the page), and a flush that
-- commits lazily, or in the region, leaves a chain or a newest commit
-- that may name a page of such a block (a victim can end in the epoch
-- that wrote its pages).  What always clears the guard is a flush that
-- ends in a full checkpoint: it consolidates the chain, commits, writes
-- the checkpoint and erases the region, and with no region there is
-- neither a chain nor a newest commit (RecoveryReclaim's `guard-clear`;
-- `Clear`: the chain phase with nothing unsynced and an empty region).
-- P's flush may end in one at any time (the code forces one when the
-- region runs short, `after_commit`), so:
--
--   `inv-flush-any` : every flush of PX, in either phase and by every
--                   commit path (lazy, in-page, OOB, in the region, with
--                   the checkpoint), leaves P's invalid queue empty;
--   `clear-erase`   : in a clear state with the invalid queue empty,
--                   every block the layer holds erasable and that holds
--                   a page has its block erase as a step of BXone (P's
--                   erase of each page, RecoveryReclaim's `es-run`, its
--                   guard met by the empty region);
--   `ckF`, `ck-flush`, `ck-clear` : the flush that ends in a full
--                   checkpoint (the chain's consolidation page, P's
--                   region commit, the checkpoint) is a step of PX from
--                   every state with no epoch unsynced, in either phase,
--                   and leaves the state clear in the chain phase;
--   **`cleared-erase`** : after every flush of the layer that leaves the
--                   state clear (any flush that stays in PUSBic's phase,
--                   as `flushed-erase`; in the chain phase, one that
--                   ends in a full checkpoint), in every run from the
--                   first recovery of a new disk, each block the layer
--                   then holds erasable and that holds a page is erased
--                   by a step of the model;
--   **`chain-erase`** : and from every state the layer reaches with no
--                   epoch unsynced (every state of the chain phase:
--                   `chain-ues`) where it may flush (no victim in
--                   progress, GC not needed), that flush is a step of
--                   the layer, and after it every block the layer holds
--                   erasable and that holds a page is erased by a step
--                   of the model;
--   **`cleared-erase-crash`**, **`chain-erase-crash`** : the same for the
--                   runs through any number of power cuts and recoveries
--                   (SpaceRecLayer's `LStepR`, SpaceRecGc's invariants).
--
-- So the chain phase never holds up an erase the layer needs: at worst
-- the layer pays a full checkpoint.  Not here: the code's finer rule,
-- which erases without a checkpoint and keeps only the chain's
-- superblock (`tail_sb`) and, after a recovery, the verified epochs'
-- ones (`recovery_avoid`) from erase until the next commit — PL's guard
-- is stricter than the code's on the region's newest commit, whose pages
-- the code takes as proven by the chain's first record (proofs/README.md,
-- "Not done", item 1).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceChainErase (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; _∨_)
open import Data.List.Base using ([])
open import Data.Maybe.Base using (nothing; just)
open import Data.Nat.Base using (suc; _<_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
import Data.List.Relation.Unary.All as All

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; inv; ers; fl3; ck3)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (konsS)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su; gh)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX; lzS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; own; wp; ab; berase; owners; OwnLoc)
open import SCFTL.Impl.RecoveryReclaim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Clear; clear-nc; es-run; ownersB-at; ownersB-distinct)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb using (Gh; es; cv; gn)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; lfl; endEp; qd; G0; Start; usedOf; LInv; ri-of; layer-inv)
open import SCFTL.Impl.SpaceQueued Data d0 amax wmax kmax umax _≟D_ kc zb
  using (QInv; layer-queued; inv-flush; qd-ers)
open import SCFTL.Impl.SpaceRecLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LStepR; ls; LInvR; riR; layer-inv-crash)
open import SCFTL.Impl.SpaceRecGc Data d0 amax wmax kmax umax _≟D_ kc zb using (gc-inv-crash)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module PXm = SB.Model PX

------------------------------------------------------------------------
-- Every flush empties P's invalid queue

-- in either phase, by every commit path: PUSBic's (SpaceQueued's
-- `inv-flush`), and PL's (P's flush after the consolidation page: the
-- region commit, with or without the checkpoint, the in-page and the
-- OOB commit; the lazy commit)
inv-flush-any : ∀ {X X'} → PXm.ok (SB.use SB.flush) X X' → ∀ p → inv (stX X') p ≡ false
inv-flush-any {false , S} {X′} (inj₁ x) p = inv-flush {false , S} {X′} (inj₁ x) (proj₁ x) p
inv-flush-any {true , S} (inj₁ (_ , _ , () , _))
inv-flush-any (inj₂ (refl , _ , _ , refl , inj₁ (inj₁ refl))) p = refl
inv-flush-any (inj₂ (refl , _ , _ , refl , inj₁ (inj₂ (inj₁ refl)))) p = refl
inv-flush-any (inj₂ (refl , _ , _ , refl , inj₁ (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))))) p = refl
inv-flush-any (inj₂ (refl , _ , _ , refl , inj₁ (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))))) p = refl
inv-flush-any (inj₂ (refl , _ , _ , refl , inj₁ (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))))) p = refl
inv-flush-any (inj₂ (refl , _ , _ , refl , inj₁ (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))))) p = refl
inv-flush-any (inj₂ (refl , _ , _ , refl , inj₂ (M , _ , refl))) p = refl

------------------------------------------------------------------------
-- In a clear state, every block the layer holds erasable is erased

clear-erase : ∀ {G X bl k} → Clear X → OwnLoc bl → QInv (G , X , bl) →
              (∀ p → inv (stX X) p ≡ false) → es G k ≡ true → owners bl k ≢ [] →
              Σ XS λ X' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , berase k bl)
clear-erase {G} {X} {bl} {k} c ol Q noinv esk ne = proj₁ R , k , proj₁ (proj₂ R) , refl
  where
  ers-of : ∀ {r} → (Σ ℕ λ o → o < wp bl k × own bl k o ≡ just r) → ers (stX X) r ≡ true
  ers-of {r} (o , lt , e) = qd-ers (stX X) r (Q k (inj₁ esk) o r lt e) (noinv r)
  R = es-run X (owners bl k) (clear-nc X c) (All.map ers-of (ownersB-at bl k (wp bl k)))
             (ownersB-distinct bl k (wp bl k) ol) ne

------------------------------------------------------------------------
-- The flush that ends in a full checkpoint

-- the chain's consolidation page (if any), P's region commit, the full
-- checkpoint (which erases the region)
ckF : St → St
ckF s = ck3 (fl3 (konsS s))

-- a step of PX from every state with no epoch unsynced, in either phase
ck-flush : ∀ b S → ues (su S) ≡ [] → PXm.ok (SB.use SB.flush) (b , S) (true , lzS (ckF (st (su S))) (gh S))
ck-flush b S ue = inj₂ (refl , ue , _ , refl , inj₁ (inj₂ (inj₁ refl)))

-- ... that leaves the state clear
ck-clear : ∀ s g → Clear (true , lzS (ckF s) g)
ck-clear s g = refl , refl

-- every state of the chain phase that the layer's invariant holds of has
-- no epoch unsynced (PX's `RIQ`)
chain-ues : ∀ {c G S bl} → LInv c (G , (true , S) , bl) → ues (su S) ≡ []
chain-ues L = proj₁ (proj₁ (ri-of L))

chainR-ues : ∀ {c G S bl} → LInvR c (G , (true , S) , bl) → ues (su S) ≡ []
chainR-ues L = proj₁ (proj₁ (riR L))

------------------------------------------------------------------------
-- Without a crash

private
  ownloc-of : ∀ {c G X bl} → LInv c (G , X , bl) → OwnLoc bl
  ownloc-of L = proj₂ (ri-of L)

-- **after a flush of the layer that leaves the state clear, every block
-- it holds erasable and that holds a page is erased by a step of the
-- model**, in every run from the first recovery of a new disk
cleared-erase : ∀ {c X0 bl0 G X bl X' k} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                Start c X0 bl0 → Star (LStep c) (G0 , X0 , bl0) (G , X , bl) →
                (o : SB.Model.ok BXone (SB.use SB.flush) (X , bl) (X' , bl)) → cv G ≡ nothing →
                Sp.NotNeeded c (gn G) (usedOf c G X bl) → Clear X' →
                es (endEp G) k ≡ true → owners bl k ≢ [] →
                Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl) (X'' , berase k bl)
cleared-erase {c} {X0} {bl0} {G} {X} {bl} {X'} {k} eL eW eS sa run o nocv nn cl esk ne =
  clear-erase {endEp G} {X'} {bl} {k} cl (ownloc-of {c} {endEp G} {X'} {bl} (layer-inv eL eW eS sa run′))
    (layer-queued eL eW eS sa run′) (inv-flush-any (proj₁ o)) esk ne
  where
  run′ : Star (LStep c) (G0 , X0 , bl0) (endEp G , X' , bl)
  run′ = run ◅◅ (lfl o nocv nn ◅ ε)

-- **from every state the layer reaches with no epoch unsynced where it
-- may flush, the flush with a full checkpoint is a step of the layer,
-- and after it every block the layer holds erasable and that holds a
-- page is erased by a step of the model**
chain-erase : ∀ {c X0 bl0 G b S bl} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
              Start c X0 bl0 → Star (LStep c) (G0 , X0 , bl0) (G , (b , S) , bl) →
              ues (su S) ≡ [] → cv G ≡ nothing → Sp.NotNeeded c (gn G) (usedOf c G (b , S) bl) →
              let X' = (true , lzS (ckF (st (su S))) (gh S)) in
              LStep c (G , (b , S) , bl) (endEp G , X' , bl) ×
              (∀ k → es (endEp G) k ≡ true → owners bl k ≢ [] →
                 Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl) (X'' , berase k bl))
chain-erase {c} {X0} {bl0} {G} {b} {S} {bl} eL eW eS sa run ue nocv nn =
  lfl o nocv nn ,
  λ k esk ne → cleared-erase {c} {X0} {bl0} {G} {b , S} {bl} {true , lzS (ckF (st (su S))) (gh S)} {k}
                 eL eW eS sa run o nocv nn (ck-clear (st (su S)) (gh S)) esk ne
  where
  o : SB.Model.ok BXone (SB.use SB.flush) ((b , S) , bl) ((true , lzS (ckF (st (su S))) (gh S)) , bl)
  o = ck-flush b S ue , refl

------------------------------------------------------------------------
-- Through power cuts

-- **after a flush of the layer that leaves the state clear, every block
-- it holds erasable and that holds a page is erased by a step of the
-- model**, from the first recovery of a new disk through any number of
-- power cuts and recoveries
cleared-erase-crash : ∀ {c X0 bl0 X1 bl1 G X bl X' k} → Sp.Needs c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                      SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
                      Star (LStepR c) (G0 , X1 , bl1) (G , X , bl) →
                      (o : SB.Model.ok BXone (SB.use SB.flush) (X , bl) (X' , bl)) → cv G ≡ nothing →
                      Sp.NotNeeded c (gn G) (usedOf c G X bl) → Clear X' →
                      es (endEp G) k ≡ true → owners bl k ≢ [] →
                      Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl) (X'' , berase k bl)
cleared-erase-crash {c} {X0} {bl0} {X1} {bl1} {G} {X} {bl} {X'} {k} V eL eW eS new r abP run o nocv nn cl esk ne =
  clear-erase {endEp G} {X'} {bl} {k} cl (proj₂ (riR {c} (proj₁ (layer-inv-crash V eL eW eS new r abP run′))))
    (proj₁ (gc-inv-crash V eL eW eS new r abP run′)) (inv-flush-any (proj₁ o)) esk ne
  where
  run′ : Star (LStepR c) (G0 , X1 , bl1) (endEp G , X' , bl)
  run′ = run ◅◅ (ls (lfl o nocv nn) ◅ ε)

-- **the same from every state the layer reaches through power cuts with
-- no epoch unsynced** (every state of the chain phase: `chainR-ues`)
chain-erase-crash : ∀ {c X0 bl0 X1 bl1 G b S bl} → Sp.Needs c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
                    SB.Model.New BXone (X0 , bl0) → SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1) → ab bl0 < Sp.P c →
                    Star (LStepR c) (G0 , X1 , bl1) (G , (b , S) , bl) →
                    ues (su S) ≡ [] → cv G ≡ nothing → Sp.NotNeeded c (gn G) (usedOf c G (b , S) bl) →
                    let X' = (true , lzS (ckF (st (su S))) (gh S)) in
                    LStepR c (G , (b , S) , bl) (endEp G , X' , bl) ×
                    (∀ k → es (endEp G) k ≡ true → owners bl k ≢ [] →
                       Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl) (X'' , berase k bl))
chain-erase-crash {c} {X0} {bl0} {X1} {bl1} {G} {b} {S} {bl} V eL eW eS new r abP run ue nocv nn =
  ls (lfl o nocv nn) ,
  λ k esk ne → cleared-erase-crash {c} {X0} {bl0} {X1} {bl1} {G} {b , S} {bl} {true , lzS (ckF (st (su S))) (gh S)} {k}
                 V eL eW eS new r abP run o nocv nn (ck-clear (st (su S)) (gh S)) esk ne
  where
  o : SB.Model.ok BXone (SB.use SB.flush) ((b , S) , bl) ((true , lzS (ckF (st (su S))) (gh S)) , bl)
  o = ck-flush b S ue , refl
