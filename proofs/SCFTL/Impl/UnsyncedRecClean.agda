{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: PU's RECOVERY WITHOUT THE FULL CHECKPOINT.
--
-- The code's recovery writes a full checkpoint only when it must (it
-- dropped a commit, the region is tainted or unsettled, space); P's has
-- the branch too (`rec0` when `clean`), PUM's recovery always
-- checkpointed (`recU = ck3 (recR …)`).  Here the branch for PU: when
-- recovery accepts every unsynced epoch of the ghost's parse (`Clean`:
-- `accU` takes them all) and the other slot is older than the one it
-- picked, it SYNCs and goes on in the same region (`recR`: the
-- recovered L2P, the next epoch id above every id on the region, pages
-- allocated above every page the region names), no checkpoint.
--
--   recR-A       type A against SB's recovery and every invariant of PU
--                (`Inv′`) for the recovered state: the durable part is
--                the whole region, synced, and replays to the recovered
--                map (the open epoch's leftover pages are skipped,
--                `skip-fst`; nothing of the next id is pending,
--                `pend-top`)
--
-- The slot condition holds on every crash state PU's crash relation
-- reaches (the shadow slot is older, or the new slot is the one picked),
-- and PU's CR (`RecG`, SCFTL.Impl.UnsyncedModel) carries it, as P's
-- `RecTo` carries `so`: PUSi's recovery step (SCFTL.Impl.
-- UnsyncedSyncInPage, `RecC`) does not ask for it.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedRecClean (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                   (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _⊔_; s≤s)
open import Data.Nat.Properties using (≤-trans; m≤m⊔n; <⇒≢; ≤-refl)
open import Data.Bool.Base using (Bool; true; false; not)
open import Data.Unit.Base using (tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Relation.Unary.All using (All; []; _∷_) renaming (map to All-map)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (hi-bound; reclaim-ok; GenLe; Older; PM; pend; pend-top; rp-++; rbase-other; _≐_; NC; nc-fst; map-cur-sync)
open import SCFTL.Impl.Recovery Data d0 amax wmax kmax _≟D_ using (slot-sync)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp; lay; accU; rp-lay)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; ARU; SmI; GcI; all-sync)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_
  using (candAt; recRS; ParseS; Skip; Tent)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; bi)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (GenR; Inv′)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recM; recT)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR; pick-cell)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The condition

-- recovery's in-order check accepts every unsynced epoch of the parse
Clean : ℕ → Map → List Cell → List UEp → St → Set
Clean g C pr es' s = accU g (λ p → cur (dat s p)) pr es' ≡ lay es' pr

-- the other slot is older than the one picked
SlotOlder : Bool → ℕ → St → Set
SlotOlder b g s = Older g (cur (slot (not b) s))

------------------------------------------------------------------------
-- Lemmas

private
  -- the pages recovery skips change no committed map
  skip-nc : ∀ g c → Skip c → NC g c
  skip-nc g (dlt h x ps false d) _                = inj₂ refl
  skip-nc g (dlt h x ps true d)  (inj₁ ())
  skip-nc g (dlt h x ps true d)  (inj₂ (inj₁ ()))
  skip-nc g (dlt h x ps true d)  (inj₂ (inj₂ ()))
  skip-nc g erased               _                = tt
  skip-nc g junk                 _                = tt
  skip-nc g (dcell _ _)          _                = tt
  skip-nc g (cpt _ _)            _                = tt

  skip-fst : ∀ g T mt → All Skip T → proj₁ (rp g T mt) ≡ proj₁ mt
  skip-fst g []      mt []       = refl
  skip-fst g (c ∷ T) mt (x ∷ sk) = trans (nc-fst g c (rp g T mt) (skip-nc g c x)) (skip-fst g T mt sk)

  rbase-lt : ∀ x (R : RS) → pend R < x → rbase x R ≡ proj₁ R
  rbase-lt x R lt = rbase-other x R (λ e → <⇒≢ lt e)

------------------------------------------------------------------------
-- Type A for the recovery without the checkpoint

recR-A : ∀ {s'' t b g C pr T es' k} →
  pick (cur (cpL s'')) (cur (cpO s'')) ≡ just (b , g , C) → All (GenLe g) (map cur (dr s'')) →
  ParseS (map cur (dr s'')) T es' pr → candAt t k ∈ SB.stable t ∷ SB.pend t →
  (∀ a → a ≤ amax → rdD (dat s'') (proj₁ (recRS g (λ p → cur (dat s'' p)) es' pr (st0 C)) a) ≡ candAt t k a) →
  (∀ a p → a ≤ amax → proj₁ (recRS g (λ p → cur (dat s'' p)) es' pr (st0 C)) a ≡ just p → oob (cur (dat s'' p)) ≡ a) →
  Clean g C pr es' s'' → SlotOlder b g s'' →
  Σ SB.State λ t'' → SB.okSB SB.recover t t'' × Inv′ ⟪ recR b g C pr es' s'' , [] ⟫ t''
recR-A {s''} {t} {b} {g} {C} {pr} {T} {es'} {k} pk ga p m rd′ ob cl so =
  recT (candAt t k) , (candAt t k , m , refl , refl , refl , refl) ,
  ( ( (((λ a le → trans (rdx (M a)) (rd′ a le)) , refl , refl) , (λ a le → trans (rdx′ (M a)) (rd′ a le)))
    , ( gci , smi , (tt , λ a → refl) , tt , (λ a q le e → _ , refl , ob a q le e) )
    , bi C (map sync (dr s'')) slt refl (all-sync (dr s'')) rx rf
    , subst (PM (Older g)) (sym (slot-sync (not b) s'')) so )
  , subst (All (GenLe g)) (sym (map-cur-sync (dr s''))) ga )
  where
    M = recM g C pr es' s''
    s‴ = recR b g C pr es' s''
    rdx : ∀ mp → rdm s‴ mp ≡ rdD (dat s'') mp
    rdx nothing  = refl
    rdx (just q) = refl
    rdx′ : ∀ mp → rdD (dat s‴) mp ≡ rdD (dat s'') mp
    rdx′ nothing  = refl
    rdx′ (just q) = refl
    below : ∀ a q → a ≤ amax → M a ≡ just q → q < nxt s‴
    below a q le e = ≤-trans (hi-bound M amax a q le e) (m≤m⊔n (hi M amax) (hiR (map cur (dr s''))))
    gci : GcI s‴
    gci = record { blw = below ; oobI = ob ; ersI = λ q e → reclaim-ok M (nxt s‴) q e ; invI = λ q () }
    smi : SmI s‴
    smi a q le e = below a q le e , refl , λ er → proj₂ (reclaim-ok M (nxt s‴) q er) a le e
    slt : cpL s‴ ≡ syn (cpt g C)
    slt = trans (slot-sync b s'') (cong syn (pick-cell b s'' pk))
    -- the whole region, synced, replays to the recovered map
    R = rp g (map cur (map sync (dr s''))) (st0 C)
    req : R ≡ rp g (T ++ lay es' pr) (st0 C)
    req = cong (λ z → rp g z (st0 C)) (trans (map-cur-sync (dr s'')) (proj₁ p))
    rx : proj₁ R ≐ M
    rx a = cong (λ f → f a)
      (trans (cong proj₁ req)
       (trans (cong proj₁ (rp-++ g T (lay es' pr) (st0 C)))
        (trans (skip-fst g T (rp g (lay es' pr) (st0 C)) (proj₂ p))
               (cong (λ z → proj₁ (rp g z (st0 C))) (sym cl)))))
    rf : rbase (ep s‴) R ≡ proj₁ R
    rf = rbase-lt (ep s‴) R (s≤s (subst (λ z → pend R ≤ topE z) (map-cur-sync (dr s''))
                                        (pend-top g (map cur (map sync (dr s''))) C)))
