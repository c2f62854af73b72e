{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain as steps of a P-level model: PL.
--
-- PL is P (SCFTL.Impl.Model) with the protocol the code runs for
-- in-page and OOB commits (docs/FORMAT.md §4.8–4.9; flush.rs
-- `commit_in_page`, `commit_in_oob`; delta.rs `backlog`, `consolidate`;
-- recovery.rs `follow_chain`, `MAX_CHAIN`):
--
--   * the lazy commit `fiL` (SCFTL.Impl.LazyChainP: P's `fi3`, the
--     record in the record slot of the link's page or the OOB run's last
--     page, one SYNC, the link continuing the chain, no consolidation
--     page), allowed while the chain holds fewer than kc (MAX_CHAIN)
--     records (delta.rs `oob_fits`: `backlog_epochs + 1 < MAX_CHAIN`);
--   * the chain (`chainOf`: the records recovery's walk applies from the
--     link of the region's newest commit, newest first) is the backlog;
--     the next region page (a tentative page of a write or relocation,
--     or any region commit or checkpoint of a flush) is preceded by its
--     consolidation page (`konsPg`: the pairs of every record, the epoch
--     id and link of the newest); PL SYNCs the consolidation page before
--     that region page (`konsS`; the code programs both and SYNCs once,
--     relying on its scan rule for a torn consolidation page under a
--     landed commit: SCFTL.Impl.LazyChainP `scan-torn-kons`);
--   * recovery walks the chain, at most kc records (`walkG`), and
--     rebuilds the state as P's recovery on the flash with those
--     records on the region (`rec0L`, `virt`), always with a full
--     checkpoint (the code writes their consolidation page instead);
--   * GC's erase is guarded: no record of the chain names the page
--     (`AvoidAll p (chainOf s)`; the code's rule is coarser: the chain
--     stays in the active superblock, never a GC victim), nor does the
--     region's newest commit (recovery checks that commit's digest
--     before following the chain; the code instead takes it as proven by
--     the chain's first record).
--
-- `PLwith G` is PL with the erase guard G; `PL = PLwith EraseGuard`.
-- Mutant 31 (SCFTL.Mutants.LazyChainEraseUnguarded) is
-- `PLwith (λ _ _ → ⊤)`, mutant 35 (SCFTL.Mutants.LazyChainGuardMissesCommit)
-- `PLwith ChainGuard`: neither is snapshot-consistent.
--
-- Not proven here: Theorem 1 for PL (its invariant: SCFTL.Impl.
-- LazyChainInv, `CInv`, for the chain; P's RI does not hold with a
-- chain, see proofs/README.md, "What is abstracted", item 6).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainModel (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                 (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (suc; _≤_; _<_; _⊔_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤)
open import Data.Empty using (⊥)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; trans; cong)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (follow; kons)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (fiL; recMapL; Rof; Dof; AvoidAll)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (Model; Op; use; recover; flush; w; rl; es) renaming (reg to regop)

------------------------------------------------------------------------
-- The chain and its consolidation page

-- the records recovery's walk applies on a flash in generation g,
-- newest first
walkG : ℕ → St → List Cell
walkG g s = follow kc g (Rof s) (Dof s) (lkOf (acc g (Dof s) (map cur (dr s))))

-- the records recovery's walk applies now (the backlog)
chainOf : St → List Cell
chainOf s = walkG (gen s) s

-- the state with records `vs` (newest first) on the delta region as
-- synced pages: the chain virtually consolidated, as if each in-page /
-- OOB commit had appended its consolidation page at once (P's `fi4`)
virt : List Cell → St → St
virt vs s = record s { dr = map syn vs ++ dr s }

-- the consolidation page of a chain: every record's pairs (newest
-- first), the newest record's epoch id and link, no digest entries
konsFor : ℕ → List Cell → Maybe Cell
konsFor g cs with lkOf cs
... | just (y , E) = just (kons g y ([] , [] , E) cs)
... | nothing      = nothing

konsPg : St → Maybe Cell
konsPg s = konsFor (gen s) (chainOf s)

-- the consolidation page programmed (crash point before its SYNC) and
-- synced; nothing if the chain is empty
konsP : Maybe Cell → St → St
konsP nothing  s = s
konsP (just c) s = record s { dr = uns erased c ∷ dr s }

konsX : Maybe Cell → St → St
konsX nothing  s = s
konsX (just c) s = syncAll (konsP (just c) s)

konsI konsS : St → St
konsI s = konsP (konsPg s) s
konsS s = konsX (konsPg s) s

-- a write's or relocation's optional pages: the merge buffer, then a
-- tentative page after the consolidation page
optL : Bool → Bool → St → St
optL f1 true  s = emitT (konsS (optP f1 s))
optL f1 false s = optP f1 s

-- the consolidation page and the optional pages keep the maps: the
-- volatile L2P and the stable one (SCFTL.Impl.OneModelBlocksNamed,
-- SCFTL.Impl.OneModelRecMaps: which pages a recovery names)
konsS-maps : ∀ s → (∀ a → l2p (konsS s) a ≡ l2p s a) × (∀ a → smap (konsS s) a ≡ smap s a)
konsS-maps s with konsPg s
... | nothing = (λ a → refl) , (λ a → refl)
... | just c  = (λ a → refl) , (λ a → refl)

smap-optP : ∀ f s → smap (optP f s) ≡ smap s
smap-optP true  s = refl
smap-optP false s = refl

smap-opt : ∀ f1 f2 s → smap (opt f1 f2 s) ≡ smap s
smap-opt f1 true  s = smap-optP f1 s
smap-opt f1 false s = smap-optP f1 s

smap-optL : ∀ f1 f2 s a → smap (optL f1 f2 s) a ≡ smap s a
smap-optL f1 true  s a = trans (proj₂ (konsS-maps (optP f1 s)) a) (cong (λ f → f a) (smap-optP f1 s))
smap-optL f1 false s a = cong (λ f → f a) (smap-optP f1 s)

-- the crash point inside: before the consolidation page's SYNC
optLK : Bool → Bool → St → St → Set
optLK f1 true  s m = m ≡ konsI (optP f1 s)
optLK f1 false s m = ⊥

------------------------------------------------------------------------
-- Steps

-- the region's newest commit recovery accepts (as a list: nothing or it)
topOf : List Cell → List Cell
topOf []      = []
topOf (c ∷ _) = c ∷ []

regTop : St → List Cell
regTop s = topOf (acc (gen s) (Dof s) (map cur (dr s)))

-- the erase guard of the chain alone: no record of the chain names the
-- page (mutant 35 has only this)
ChainGuard : St → ℕ → Set
ChainGuard s p = AvoidAll p (chainOf s)

-- the erase guard of PL: no record of the chain names the page, nor
-- does the region's newest commit, whose digest recovery checks before
-- it follows the chain (the code accepts that commit unchecked when a
-- valid record follows it: recovery.rs `apply_chain`; without a chain,
-- P's RI already keeps that commit's pages: they are the stable L2P's)
EraseGuard : St → ℕ → Set
EraseGuard s p = ChainGuard s p × AvoidAll p (regTop s)

-- the lazy commit (in-page at the link L, or OOB with its record in the
-- run's last page M), while the chain has room
Lazy : St → ℕ → Set
Lazy s M = length (chainOf s) < kc × ((InP s M) ⊎ (Σ ℕ λ L → OobP s L M))

-- recovery's rebuilt state: P's `rec0` on the flash with the records
-- the walk applies put on the region (so the L2P is the region's with
-- the chain, the next page past every page they name and the next
-- epoch id past theirs: recovery.rs `apply_chain`), the region itself
-- as it is on the flash (the full checkpoint then erases it)
rec0L : Bool → ℕ → Map → St → St
rec0L b g C s = record (rec0 b g C (virt (walkG g s) s)) { dr = map sync (dr s) }

module _ (G : St → ℕ → Set) where

  okPL : Op → St → St → Set
  okPL (use (regop (w a d))) s s' =
      (InB a s × Σ Bool λ f1 → Σ Bool λ f2 → s' ≡ optL f1 f2 (wr0 a d s))
    ⊎ (¬ InB a s × s' ≡ s)
  okPL (use (regop rl)) s s' =
      (gcnt s ≤ kmax × Σ ℕ λ p → p < nxt s ×
         ((Valid s p × Σ Bool λ f1 → Σ Bool λ f2 → s' ≡ optL f1 f2 (rl0 p s))
          ⊎ (¬ Valid s p × s' ≡ rlX p s)))
    ⊎ (¬ gcnt s ≤ kmax × s' ≡ s)
  okPL (use (regop es)) s s' = Σ ℕ λ p → ers s p ≡ true × G s p × s' ≡ esF p s
  -- a flush: P's flush after the chain's consolidation page, or the
  -- lazy commit
  okPL (use flush) s s' = okP (use flush) (konsS s) s' ⊎ (Σ ℕ λ M → Lazy s M × s' ≡ fiL M s)
  okPL recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
    pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) × s' ≡ ck3 (rec0L b g C s)

  -- crash points: P's, those before the consolidation page's SYNC, and
  -- the lazy commit's (before its SYNC, at its end)
  crashPL : Op → St → St → Set
  crashPL (use (regop (w a d))) s s' = Σ St λ m →
    (okPL (use (regop (w a d))) s m ⊎ (InB a s × Σ Bool λ f1 → Σ Bool λ f2 → optLK f1 f2 (wr0 a d s) m)) × Img m s'
  crashPL (use (regop rl)) s s' = Σ St λ m →
    (okPL (use (regop rl)) s m
     ⊎ (gcnt s ≤ kmax × Σ ℕ λ p → p < nxt s × Valid s p × Σ Bool λ f1 → Σ Bool λ f2 → optLK f1 f2 (rl0 p s) m))
    × Img m s'
  crashPL (use (regop es)) s s' = Σ St λ m → okPL (use (regop es)) s m × Img m s'
  crashPL (use flush) s s' = Σ St λ m →
    (m ≡ konsI s ⊎ FlPt (konsS s) m ⊎ (Σ ℕ λ M → Lazy s M × (m ≡ fi2 M s ⊎ m ≡ fiL M s))) × Img m s'
  crashPL recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
    pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
    Σ St λ m → CkPt (rec0L b g C s) m × Img m s'

  PLwith : Model
  PLwith = record { State = St ; New = NewP ; read = rd ; ok = okPL ; crash = crashPL }

-- PL: the erase guarded by the chain
PL : Model
PL = PLwith EraseGuard
