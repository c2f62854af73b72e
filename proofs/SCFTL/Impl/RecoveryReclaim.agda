{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, space across a crash: what every recovery of the one model
-- reclaims, page by page and block by block.
--
-- P's recovery makes erasable every page below its next page that the
-- recovered L2P does not name (`reclaim`, SCFTL.Impl.Model; blocks.rs
-- `rebuild`, per page).  Here:
--
--   `Reclaimed s`      : the erasable queue of s IS `reclaim` of its L2P
--                        and next page — so, with SCFTL.Impl.Recovery's
--                        `rec0-eOK`, exactly the pages below the next
--                        one that the L2P does not name (`reclaimed-iff`);
--   `rec0-reclaimed`, `ck3-rec0-reclaimed`, `recU-reclaimed`,
--   `recR-reclaimed`, `rec0L-reclaimed` : every recovery the one model
--                        has leaves such a state: P's with and without the
--                        full checkpoint, PU's over unsynced epochs with
--                        and without it, PL's walking the lazy chain;
--   `placed-reclaimed`, **`owners-reclaimed`** : the block layer
--                        (SCFTL.Impl.BlocksOver) keeps, at a recovery, the
--                        placements below P's new next page only
--                        (`forget`), so every page placed in a block that
--                        the recovered L2P does not name is erasable: a
--                        block none of whose pages the recovered map names
--                        has every page of its erase (`owners`) on P's
--                        erasable queue — what a block erase of the block
--                        layer erases page by page (`EsRunM`);
--   `px-rec-reclaimed`, **`bx-rec-owners`** : every recovery of the one
--                        model PX, in both phases, leaves `Reclaimed`, so
--                        at a recovery of the block layer over it (BXone)
--                        a block none of whose pages the recovered L2P
--                        names has every page of its erase erasable;
--   **`bx-rec-erase`** : and right after the recovery such a block (the
--                        open one too, holding a page) can be erased: its
--                        pages are distinct (`OwnLoc`), PUSBic's erase asks
--                        only the queue, PL's guard holds while the region
--                        is empty (`guard-clear`; PL's recovery ends in a
--                        full checkpoint), so the block erase is a step of
--                        BXone — blocks.rs `rebuild` making the superblock
--                        erasable and `activate_next` erasing it;
--   `NoCommitX`, `es-step`, `es-run`, `es-runN` : PX's erase page by page
--                        where no cell of the region is a commit (weaker
--                        than an empty region, `Clear`, since the
--                        thirty-ninth session: SCFTL.Impl.SpaceChainWalk's
--                        erase in the middle of GC's walk uses it);
--   **`bx-rec-reuse`** : so every block that the
--                        recovered L2P does not name is free right after
--                        the recovery (a vacant one, which BlocksOver's
--                        `forget` frees since the thirty-first session) or
--                        one block erase from it.
--
-- What was open for space across a crash when this module was written
-- (such an erase later in the run, the open block retired at recovery,
-- the data-superblock layer's invariant after a recovery) is done since
-- (SpaceRecLayer, SpaceRecGc, SpaceChainErase, SpaceChainWalk;
-- proofs/README.md, "Not done", item 1).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.RecoveryReclaim (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; not; _∧_; _∨_; T)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≡ᵇ_; _<ᵇ_; s≤s)
open import Data.Nat.Properties using (<⇒<ᵇ; ≤-refl; ≤-step; n≤0⇒n≡0; m≤n⇒m<n∨m≡n)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (reclaim-ok; ≡ᵇ-sound)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recU)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (rec0L)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; own; wp; fr; loc; forget; forget-below; owners; ownersB; consM; OwnLoc; ownloc-forget; berase; upd-ne;
         forget-owners; forget-vacant)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; ues; ⟪_,_⟫)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su; gh; okPU; ⟦_,_⟧; ghostN)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; okPX; lzS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone; EsM; EsRunM; one; _∷_)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (EraseGuard)
open import SCFTL.Impl.SpaceChainQuiet Data d0 amax wmax kmax _≟D_ kc using (isCommit; NoCommit; guard-nc; nc-esF)
open import Data.List.Relation.Unary.AllPairs using (AllPairs; []; _∷_)
import Data.List.Relation.Unary.All as All
open import Data.Nat.Properties using (<-irrefl)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The queue recovery leaves

-- no address names page p
Unnamed : Map → ℕ → Set
Unnamed m p = ∀ a → a ≤ amax → m a ≢ just p

Reclaimed : St → Set
Reclaimed s = ∀ p → ers s p ≡ reclaim (l2p s) (nxt s) p

private
  isAt-named : ∀ mp p → isAt mp p ≡ true → mp ≡ just p
  isAt-named (just q) p e = cong just (≡ᵇ-sound q p e)
  isAt-named nothing  p ()

  T→≡ : ∀ {b} → T b → b ≡ true
  T→≡ {true} _ = refl


-- a page no entry up to k names: P's Boolean test says so too (public:
-- SCFTL.Impl.SpaceQueued's SYNC release uses it)
nmd-unnamed : ∀ m k p → (∀ a → a ≤ k → m a ≢ just p) → nmd m k p ≡ false
nmd-unnamed m zero p un with isAt (m zero) p in e
... | true  = ⊥-elim (un zero ≤-refl (isAt-named (m zero) p e))
... | false = refl
nmd-unnamed m (suc k) p un with isAt (m (suc k)) p in e
... | true  = ⊥-elim (un (suc k) ≤-refl (isAt-named (m (suc k)) p e))
... | false = nmd-unnamed m k p (λ a le → un a (≤-step le))

-- `reclaim` takes every page below the next one that no address names
reclaim-complete : ∀ m n p → p < n → Unnamed m p → reclaim m n p ≡ true
reclaim-complete m n p lt un rewrite T→≡ (<⇒<ᵇ lt) | nmd-unnamed m amax p un = refl

-- so a state with `Reclaimed` has on its erasable queue exactly the
-- pages below its next page that its L2P does not name
reclaimed-iff : ∀ {s} → Reclaimed s → ∀ p →
  (ers s p ≡ true → p < nxt s × Unnamed (l2p s) p) × (p < nxt s → Unnamed (l2p s) p → ers s p ≡ true)
reclaimed-iff {s} r p =
  (λ e → reclaim-ok (l2p s) (nxt s) p (trans (sym (r p)) e)) ,
  (λ lt un → trans (r p) (reclaim-complete (l2p s) (nxt s) p lt un))

------------------------------------------------------------------------
-- Every recovery of the one model leaves it

-- P's, without and with the full checkpoint (which keeps the queue, the
-- L2P and the next page)
rec0-reclaimed : ∀ b g C s → Reclaimed (rec0 b g C s)
rec0-reclaimed b g C s p = refl

ck3-reclaimed : ∀ {s} → Reclaimed s → Reclaimed (ck3 s)
ck3-reclaimed r = r

ck3-rec0-reclaimed : ∀ b g C s → Reclaimed (ck3 (rec0 b g C s))
ck3-rec0-reclaimed b g C s = ck3-reclaimed {rec0 b g C s} (rec0-reclaimed b g C s)

-- PU's, over the unsynced epochs the ghost names, with the full
-- checkpoint and without it
recU-reclaimed : ∀ b g C pr (es' : List UEp) s → Reclaimed (recU b g C pr es' s)
recU-reclaimed b g C pr es' s p = refl

recR-reclaimed : ∀ b g C pr (es' : List UEp) s → Reclaimed (recR b g C pr es' s)
recR-reclaimed b g C pr es' s p = refl

-- PL's, walking the lazy chain (always with the full checkpoint)
rec0L-reclaimed : ∀ b g C s → Reclaimed (ck3 (rec0L b g C s))
rec0L-reclaimed b g C s p = refl

------------------------------------------------------------------------
-- Blocks: every page the block layer still places after a recovery lies
-- below P's next page, so a page placed in a block that the recovered
-- L2P does not name is erasable

placed-reclaimed : ∀ {s} → Reclaimed s → ∀ bl k o q → own (forget (nxt s) bl) k o ≡ just q →
                   Unnamed (l2p s) q → ers s q ≡ true
placed-reclaimed {s} r bl k o q e un = proj₂ (reclaimed-iff {s} r q) (forget-below {bl} (nxt s) k o q e) un

private
  ownersB-all : ∀ {s} → Reclaimed s → ∀ bl k n →
                (∀ o q → own (forget (nxt s) bl) k o ≡ just q → Unnamed (l2p s) q) →
                All (λ q → ers s q ≡ true) (ownersB (forget (nxt s) bl) k n)
  ownersB-all r bl k zero un = []
  ownersB-all {s} r bl k (suc o) un with own (forget (nxt s) bl) k o in e
  ... | nothing = ownersB-all {s} r bl k o un
  ... | just q  = placed-reclaimed {s} r bl k o q e (un o q e) ∷ ownersB-all {s} r bl k o un

-- a block none of whose pages the recovered L2P names: every page its
-- erase erases is on P's erasable queue
owners-reclaimed : ∀ {s} → Reclaimed s → ∀ bl k →
                   (∀ o q → own (forget (nxt s) bl) k o ≡ just q → Unnamed (l2p s) q) →
                   All (λ q → ers s q ≡ true) (owners (forget (nxt s) bl) k)
owners-reclaimed {s} r bl k un = ownersB-all {s} r bl k (wp (forget (nxt s) bl) k) un

------------------------------------------------------------------------
-- The one model: every recovery of PX, in both phases, leaves
-- `Reclaimed`; so at a recovery of the block layer over it (BXone) a
-- block none of whose pages the recovered L2P names has every page of
-- its erase on P's erasable queue

private
  pu-rec : ∀ {S S'} → okPU SB.recover S S' → Reclaimed (st (su S'))
  pu-rec {S} ((b , g , C , pk , T , es' , p , sh , e) , _) =
    subst Reclaimed (sym e) (recU-reclaimed b g C (proj₂ (gh S)) es' (st (su S)))

px-rec-reclaimed : ∀ {X X'} → okPX SB.recover X X' → Reclaimed (stX X')
px-rec-reclaimed {false , S} {.false , S'} (refl , inj₁ o) = pu-rec {S} {S'} o
px-rec-reclaimed {false , S} {.false , S'} (refl , inj₂ ((b , g , C , pk , T , es' , p , sh , cl , qt , e) , _)) =
  subst Reclaimed (sym e) (recR-reclaimed b g C (proj₂ (gh S)) es' (st (su S)))
px-rec-reclaimed {true , S} {.true , ._} (refl , _ , s' , refl , (b , g , C , pk , refl)) = rec0L-reclaimed b g C (st (su S))

bx-rec-owners : ∀ {X bl X' bl'} → SB.Model.ok BXone SB.recover (X , bl) (X' , bl') → ∀ k →
                (∀ o q → own bl' k o ≡ just q → Unnamed (l2p (stX X')) q) →
                All (λ q → ers (stX X') q ≡ true) (owners bl' k)
bx-rec-owners {X} {bl} {X'} (o , refl) k un = owners-reclaimed {stX X'} (px-rec-reclaimed {X} {X'} o) bl k un

------------------------------------------------------------------------
-- And such a block can be erased right after the recovery: its pages are
-- distinct (each placed once, `OwnLoc`), each erasable, and PX's erase
-- step asks nothing more there — PUSBic's only the queue, PL's its guard,
-- which an empty region meets (PL's recovery ends in a full checkpoint)

-- a clear state: PUSBic's phase, or the chain phase with nothing
-- unsynced and an empty region (what PL's recovery and the flush with a
-- full checkpoint leave)
Clear : XS → Set
Clear (false , S) = ⊤
Clear (true , S) = ues (su S) ≡ [] × dr (st (su S)) ≡ []

-- where PX's erase of any erasable page is a step: PUSBic's phase, or
-- the chain phase with nothing unsynced and no commit on the region
-- (thirty-ninth session, weaker than `Clear`: what the guard needs,
-- SpaceChainQuiet's `guard-nc`, and what an erase keeps, `nc-esF`)
NoCommitX : XS → Set
NoCommitX (false , S) = ⊤
NoCommitX (true , S) = ues (su S) ≡ [] × NoCommit (st (su S))

-- PL's guard holds of every page while the region is empty: no chain,
-- no newest commit (an empty region holds no commit: SpaceChainQuiet's
-- `guard-nc`)
nc-empty : ∀ s → dr s ≡ [] → NoCommit s
nc-empty s e = subst (λ l → All (λ c → isCommit c ≡ false) (map cur l)) (sym e) []

guard-clear : ∀ s p → dr s ≡ [] → EraseGuard s p
guard-clear s p e = guard-nc s p (nc-empty s e)

clear-nc : ∀ X → Clear X → NoCommitX X
clear-nc (false , S) _ = tt
clear-nc (true , S) (ue , e) = ue , nc-empty (st (su S)) e

-- one erase step of PX, keeping no commit and staying in its phase
es-step : ∀ X p → NoCommitX X → ers (stX X) p ≡ true → Σ XS λ X1 → EsM X p X1 × NoCommitX X1 × proj₁ X1 ≡ proj₁ X
es-step (false , ⟦ ⟪ s , us ⟫ , g ⟧) p _ ep =
  (false , ⟦ ⟪ esF p s , us ⟫ , ghostN ⟪ esF p s , us ⟫ ⟧) ,
  (inj₁ (refl , _ , refl , (((p , ep , refl) , refl) , refl)) , refl) , tt , refl
es-step (true , S) p (ue , nc) ep =
  (true , lzS (esF p (st (su S))) (gh S)) ,
  (inj₂ (refl , ue , esF p (st (su S)) , refl , (p , ep , guard-nc (st (su S)) p nc , refl)) , refl) ,
  (refl , nc-esF p (st (su S)) nc) , refl

-- a run of erase steps over distinct erasable pages (in the phase it
-- starts in; with no commit at its end)
es-runN : ∀ X ps → NoCommitX X → All (λ q → ers (stX X) q ≡ true) ps → AllPairs _≢_ ps → ps ≢ [] →
          Σ XS λ X' → EsRunM X ps X' × proj₁ X' ≡ proj₁ X × NoCommitX X'
es-runN X [] _ _ _ ne = ⊥-elim (ne refl)
es-runN X (p ∷ []) c (ep ∷ []) _ _ with es-step X p c ep
... | X1 , st1 , c1 , ph = X1 , one st1 , ph , c1
es-runN X (p ∷ q ∷ qs) c (ep ∷ eqs) (d ∷ ds) _ with es-step X p c ep
... | X1 , st1 , c1 , ph with proj₂ st1
...   | e1 = let R = es-runN X1 (q ∷ qs) c1 (still eqs d) ds (λ ()) in
             proj₁ R , st1 ∷ proj₁ (proj₂ R) , trans (proj₁ (proj₂ (proj₂ R))) ph , proj₂ (proj₂ (proj₂ R))
  where
    still : ∀ {rs} → All (λ r → ers (stX X) r ≡ true) rs → All (p ≢_) rs → All (λ r → ers (stX X1) r ≡ true) rs
    still [] [] = []
    still {r ∷ _} (er ∷ ers′) (ne ∷ nes) =
      trans (cong (λ z → ers z r) e1) (trans (upd-ne (ers (stX X)) r p false (λ eq → ne (sym eq))) er) ∷ still ers′ nes

es-run : ∀ X ps → NoCommitX X → All (λ q → ers (stX X) q ≡ true) ps → AllPairs _≢_ ps → ps ≢ [] →
         Σ XS λ X' → EsRunM X ps X' × proj₁ X' ≡ proj₁ X
es-run X ps c eps d ne with es-runN X ps c eps d ne
... | X' , rn , ph , _ = X' , rn , ph

-- the pages a block's erase erases: each placed in the block below its
-- pointer, and distinct (each was placed once; SCFTL.Impl.SpaceQueued's
-- `layer-erase` uses both too)
ownersB-at : ∀ bl k o → All (λ r → Σ ℕ λ o' → o' < o × own bl k o' ≡ just r) (ownersB bl k o)
ownersB-at bl k zero = []
ownersB-at bl k (suc o) with own bl k o in e
... | nothing = All.map (λ { (o' , lt , e') → o' , ≤-step lt , e' }) (ownersB-at bl k o)
... | just q  = (o , ≤-refl , e) ∷ All.map (λ { (o' , lt , e') → o' , ≤-step lt , e' }) (ownersB-at bl k o)

ownersB-distinct : ∀ bl k o → OwnLoc bl → AllPairs _≢_ (ownersB bl k o)
ownersB-distinct bl k zero ol = []
ownersB-distinct bl k (suc o) ol with own bl k o in e
... | nothing = ownersB-distinct bl k o ol
... | just q  = All.map apart (ownersB-at bl k o) ∷ ownersB-distinct bl k o ol
  where
    apart : ∀ {r} → (Σ ℕ λ o' → o' < o × own bl k o' ≡ just r) → q ≢ r
    apart (o' , lt , e') refl = <-irrefl (cong proj₂ (trans (sym (ol k o' q e')) (ol k o q e))) lt

-- PX's recovery leaves a clear state
rec-clear : ∀ {X X'} → okPX SB.recover X X' → Clear X'
rec-clear {false , S} {.false , S'} (refl , _) = tt
rec-clear {true , S} {.true , ._} (refl , _ , s' , refl , (b , g , C , pk , refl)) = refl , refl

-- **Right after a recovery of the block layer over PX, a block that
-- holds a page, none of whose pages the recovered L2P names, can be
-- erased: the block erase is a step of BXone** (the old open block too,
-- as the code may erase the old active superblock and take it again).
bx-rec-erase : ∀ {X bl X' bl'} → OwnLoc bl → SB.Model.ok BXone SB.recover (X , bl) (X' , bl') →
               ∀ k → owners bl' k ≢ [] →
               (∀ o q → own bl' k o ≡ just q → Unnamed (l2p (stX X')) q) →
               Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl') (X'' , berase k bl')
bx-rec-erase {X} {bl} {X'} ol (o , refl) k ne un =
  proj₁ R , k , proj₁ (proj₂ R) , refl
  where
    R = es-run X' (owners (forget (nxt (stX X')) bl) k) (clear-nc X' (rec-clear {X} {X'} o))
               (bx-rec-owners {X} {bl} {X'} (o , refl) k un)
               (ownersB-distinct (forget (nxt (stX X')) bl) k (wp (forget (nxt (stX X')) bl) k) (ownloc-forget {bl} (nxt (stX X')) ol)) ne

-- **So right after a recovery of the block layer over PX, every block
-- none of whose pages the recovered L2P names is free again, or one step
-- from it**: a block recovery left with no page
-- placed (all its placements cut by the crash: `forget` frees it, write
-- pointer 0 and reusable), or a block whose erase is a step of BXone
-- (which leaves it at write pointer 0 and reusable, `berase`) — blocks.rs
-- `rebuild` making every superblock the recovered map does not reference
-- erasable, `activate_next` erasing it when it is taken.
bx-rec-reuse : ∀ {X bl X' bl'} → OwnLoc bl → SB.Model.ok BXone SB.recover (X , bl) (X' , bl') →
               ∀ k →
               (∀ o q → own bl' k o ≡ just q → Unnamed (l2p (stX X')) q) →
               (wp bl' k ≡ 0 × fr bl' k ≡ true)
             ⊎ (Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl') (X'' , berase k bl'))
bx-rec-reuse {X} {bl} {X'} ol (o , refl) k un with owners (forget (nxt (stX X')) bl) k in e
... | []     = inj₁ (forget-vacant {bl} (nxt (stX X')) k
                       (trans {j = owners (forget (nxt (stX X')) bl) k} (sym (forget-owners {bl} (nxt (stX X')) k)) e))
... | q ∷ qs = inj₂ (bx-rec-erase {X} {bl} {X'} ol (o , refl) k
                       (λ e' → cons≢nil {q} {qs} (trans {j = owners (forget (nxt (stX X')) bl) k} (sym e) e')) un)
  where
    cons≢nil : ∀ {r : ℕ} {rs : List ℕ} → r ∷ rs ≢ []
    cons≢nil ()
