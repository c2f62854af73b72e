{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: PU's RECOVERY AS A STEP, with the region's
-- split at the last SYNC given.  Recovery (`recU`) is P's `rec0` (SYNC,
-- rebuild the memory) with the L2P rebuilt by the in-order check over
-- the unsynced epochs (`recRS`: the open epoch's tentative pages
-- skipped, `accU` on the epochs, the durable part replayed, from the
-- map of the slot `pick` chooses), then the full checkpoint (`ck3`).
-- `RecU s s'` is that step for a parse of the region (`ParseS`); the
-- parse is the split the code finds by the after-sync flag and reads by
-- its digest chain (not modelled: mutant 29 shows the epochs must be
-- the ones written), here given.
--
--   recU, RecU     the step
--   recU-A         from every crashed flash UnsyncedCheckpoint's
--                  `RecTo′` describes (every covered crash point, from
--                  every durable point of P: `formula4-PU′`), the
--                  recovery step with that parse ends in a state whose
--                  read image is SB's chosen candidate: SB's recovery
--                  step (type A for recovery against SB, at the level of
--                  `ARU`), and the recovered state satisfies ALL the
--                  invariants of PU's normal operation (`Inv′`: ARU,
--                  GcI — every page the L2P names holds its address in
--                  its OOB, `RecTo′`'s last part —, SmI, GhU, DgL, SyI,
--                  BI, SlO, GenR: type B), so PU's normal operation and
--                  its crashes go on from it
--
-- NOT proven here: recovery without the full
-- checkpoint (P's `clean`/`Quiet` branch), crashed recoveries, the
-- in-page/OOB commit's crash points, the split found from flash; so no
-- Theorem 1 and no SC1B for PU.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedRecStep (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                  (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _⊔_)
open import Data.Nat.Properties using (≤-trans; m≤m⊔n)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Unit.Base using (tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; trans)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (hi-bound; reclaim-ok)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; ARU; SmI; GcI)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_
  using (candAt; recRS; ParseS)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_
  using (GhU; DgL; SyI; rbase-same)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; bi)
open import SCFTL.Impl.UnsyncedCrashes Data d0 amax wmax kmax umax _≟D_ using (SlO)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (RecTo′; GenR; Inv′; CrashPt′; crash-covered′)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The step

-- the L2P recovery rebuilds: the in-order check over the unsynced
-- epochs, from the chosen slot's map
recM : ℕ → Map → List Cell → List UEp → St → Map
recM g C pr es' s = proj₁ (recRS g (λ p → cur (dat s p)) es' pr (st0 C))

recU : Bool → ℕ → Map → List Cell → List UEp → St → St
recU b g C pr es' s = ck3 (record (rec0 b g C s)
  { l2p = recM g C pr es' s ; smap = recM g C pr es' s
  ; nxt = hi (recM g C pr es' s) amax ⊔ hiR (map cur (dr s))
  ; ers = reclaim (recM g C pr es' s) (hi (recM g C pr es' s) amax ⊔ hiR (map cur (dr s))) })

RecU : St → St → Set
RecU s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ (List Cell) λ pr → Σ (List Cell) λ T → Σ (List UEp) λ es' →
    ParseS (map cur (dr s)) T es' pr × s' ≡ recU b g C pr es' s

------------------------------------------------------------------------
-- Type A and (all but GcI of) type B for it

-- SB's state after recovering the image x
recT : SB.Arr → SB.State
recT x = SB.⟨ x , x , [] , 0 ⟩

recU-A : ∀ {s'' t} → RecTo′ s'' t → Σ St λ s‴ → RecU s'' s‴ ×
  Σ SB.State λ t'' → SB.okSB SB.recover t t'' × Inv′ ⟪ s‴ , [] ⟫ t''
recU-A {s''} {t} (b , g , C , pk , pr , T , es' , k , p , m , rd′ , ob) =
  s‴ , (b , g , C , pk , pr , T , es' , p , refl) ,
  recT (candAt t k) , (candAt t k , m , refl , refl , refl , refl) ,
  ( ( (((λ a le → trans (rdx (M a)) (rd′ a le)) , refl , refl) , (λ a le → trans (rdy (M a)) (rd′ a le)))
    , ( gci , smi , (tt , λ a → refl) , tt , (λ a q le e → _ , refl , ob a q le e) )
    , bi M [] refl refl [] (λ a → refl) (rbase-same (ep s‴) M 0)
    , tt )
  , [] )
  where
    M = recM g C pr es' s''
    s‴ = recU b g C pr es' s''
    rdx : ∀ mp → rdm s‴ mp ≡ rdD (dat s'') mp
    rdx nothing  = refl
    rdx (just q) = refl
    rdy : ∀ mp → rdD (dat s‴) mp ≡ rdD (dat s'') mp
    rdy nothing  = refl
    rdy (just q) = refl
    below : ∀ a q → a ≤ amax → M a ≡ just q → q < nxt s‴
    below a q le e = ≤-trans (hi-bound M amax a q le e) (m≤m⊔n (hi M amax) (hiR (map cur (dr s''))))
    gci : GcI s‴
    gci = record { blw = below ; oobI = ob ; ersI = λ q e → reclaim-ok M (nxt s‴) q e ; invI = λ q () }
    smi : SmI s‴
    smi a q le e = below a q le e , refl , λ er → proj₂ (reclaim-ok M (nxt s‴) q er) a le e

------------------------------------------------------------------------
-- A crash at a covered point, then the recovery step: SB's crash
-- outcome, then SB's recovery, and PU's invariants again

crash-recover : ∀ u {s t m s''} → Inv′ s t → CrashPt′ u s m → Img m s'' →
  Σ SB.State λ t' → Σ St λ s‴ → Σ SB.State λ t'' →
    SB.crashSB (SB.use u) t t' × RecU s'' s‴ × SB.okSB SB.recover t' t'' × Inv′ ⟪ s‴ , [] ⟫ t''
crash-recover u {s} {t} {m} {s''} iv cp img =
  let C = crash-covered′ u {s} {t} {m} {s''} iv cp img
      R = recU-A {s''} {proj₁ C} (proj₂ (proj₂ C)) in
  proj₁ C , proj₁ R , proj₁ (proj₂ (proj₂ R)) , proj₁ (proj₂ C) , proj₁ (proj₂ R) ,
  proj₁ (proj₂ (proj₂ (proj₂ R))) , proj₂ (proj₂ (proj₂ (proj₂ R)))
