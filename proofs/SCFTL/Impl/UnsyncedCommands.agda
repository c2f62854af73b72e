{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: a crash after ANY flash command of PU's
-- barrier without SYNC is covered by PUM's crash points.
--
-- The barrier without SYNC (`flB`) issues one batch of commands and no
-- SYNC: a data page per merge-buffer sector and the committed page
-- appended on top of the delta region (P's flush before its SYNC,
-- `CrashPoints.IssMB`, `cmt`).  `BarCmd s x`: x is the flash after any
-- subset of that batch, in any order, repeated or not, the append at
-- most once (P's `DRun`).  PUM's one crash point of the barrier is the
-- flash right after all of it (`CrM`, `flB`'s flash: `fl2`'s).
--
--   barrier-cmd-point   every crash outcome s' of such an x is, with
--                 some dead pages on top of its region (`padW`, P's
--                 `SameRec`), a crash outcome at PUM's crash point of
--                 the barrier, with the barrier's ghost (`CrM`)
--   barrier-cmd-pad     so (with PUM's invariant) the padded state
--                 recovers, with the barrier's ghost, to a candidate of
--                 SB's crashed barrier (`RecG`)
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedCommands (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                   (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (suc; _<_)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Maybe.Base using (just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using () renaming (All to AllL)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_
  using (DRun; before; after; IssMB; cmt; fl-mid; mid-crash; padW; Dead; runs; run; apR)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; flB; epE)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_
  using (Gh; ghostN; RecG; CrM; crash-G)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The barrier's commands

BarCmd : StU → St → Set
BarCmd s x = DRun (IssMB (st s)) (st s) (just (cmt (st s))) x

-- the state right after the barrier, and its ghost
sB : StU → StU
sB s = ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫

-- every crash outcome after some of the barrier's commands is, up to dead
-- pages on top of its region, a crash outcome at PUM's crash point
barrier-cmd-point : ∀ {s x s'} → length (ues s) < umax → BarCmd s x → Img x s' →
  Σ (List Cell) λ ds → AllL Dead ds × CrM (SB.reg SB.barrier) s (padW ds s') (ghostN (sB s))
barrier-cmd-point {s} {x} {s'} lt r img with mid-crash {x} {fl2 (st s)} {s'} (fl-mid (st s) {x} r) img
... | ds , dd , img' = ds , dd , _⊎_.inj₁ (lt , img' , refl)
  where open import Data.Sum.Base using (_⊎_)

-- and with PUM's invariant, it recovers to a candidate of SB's crashed
-- barrier with the barrier's ghost
barrier-cmd-pad : ∀ {s t x s'} → Inv′ s t → length (ues s) < umax → BarCmd s x → Img x s' →
  Σ SB.State λ t' → SB.crashSB (SB.use (SB.reg SB.barrier)) t t' ×
  Σ (List Cell) λ ds → AllL Dead ds × RecG (padW ds s') (ghostN (sB s)) t'
barrier-cmd-pad {s} {t} {x} {s'} iv lt r img with barrier-cmd-point {s} {x} {s'} lt r img
... | ds , dd , cr with crash-G (SB.reg SB.barrier) {s} {t} {padW ds s'} {ghostN (sB s)} iv cr
...   | t' , c , rg = t' , c , ds , dd , rg

-- the pads: none once the committed page is appended, one erased page before
pad-before : ∀ s cs (is : AllL (IssMB (st s)) cs) {s'} (img : Img (runs cs (st s)) s') →
  proj₁ (mid-crash {runs cs (st s)} {fl2 (st s)} {s'} (fl-mid (st s) (before {ap = just (cmt (st s))} cs is)) img) ≡ erased ∷ []
pad-before s cs is {s'} img = refl

pad-after : ∀ s cs₁ cs₂ (is₁ : AllL (IssMB (st s)) cs₁) (is₂ : AllL (IssMB (st s)) cs₂) {s'}
  (img : Img (runs cs₂ (run (apR (cmt (st s))) (runs cs₁ (st s)))) s') →
  proj₁ (mid-crash {runs cs₂ (run (apR (cmt (st s))) (runs cs₁ (st s)))} {fl2 (st s)} {s'} (fl-mid (st s) (after cs₁ cs₂ is₁ is₂)) img) ≡ []
pad-after s cs₁ cs₂ is₁ is₂ {s'} img = refl
