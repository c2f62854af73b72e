{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: the bridge back, from P's invariant RI to
-- PUSBic's, at a state with no epoch unsynced.
--
-- The code runs the lazy chain (PL) only with no epoch unsynced, and
-- the chain's consolidation page goes before the next region page (so
-- before any barrier's committed page).  A run therefore switches
-- between PUSBic's steps and PL's chain phase at states with no epoch
-- unsynced and an empty chain, where P's RI holds.  The forward bridge
-- (`ri-X`, SCFTL.Impl.UnsyncedBridgeAll) gives RI from PUSBic's
-- invariant there; this module gives the converse, so at those states
-- the two models' invariants are one:
--
--   liftT        S's state as SB's, with no image pending
--   inv-of-ri    RI and P's abstraction relation AR give PU's invariant
--                Inv′ of the state with no epoch unsynced: the volatile
--                and stable images (ARv, ARs), 2PGC's queues and the
--                data pages (GcI, SmI, SyI from RI's vOK/sOK/iOK/eOK),
--                the ghost (GhU: RI's vm; DgL: nothing pending), BI (RI's
--                checkpoint, its committed part as the durable part, the
--                replay fresh of the open epoch by RI's cmP), the other
--                checkpoint slot older (SlO) and the region's generations
--                (GenR)
--   riy-of-ri    the bridge's invariant RIy of that Inv′ (RIxG from RI's
--                fields, RIe of no unsynced epoch)
--   arx-of-ri    PUSBic's whole abstraction relation ARX, with any ghost
--                (OobU, the record slots durable RcS, OobA)
--   ri-round     and back: `ri-X` of the result is an RI of the same
--                state, naming the same checkpoint and committed part
--   ar-of-arx    ARX of a state with no epoch unsynced gives P's AR
--                against S's state of the same images
--
-- Used by SCFTL.Impl.OneModelSwitch (`L→up`) and so by the one model PX
-- (SCFTL.Impl.OneModel), where a step leaves PL's chain phase.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeBack (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                     (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (_≤_)
open import Data.Nat.Properties using (<⇒≢)
open import Data.Bool.Base using (false)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.List.Properties using (++-identityʳ)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Unit.Base using (tt)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (PM; GenLe; PM-cur; rbase-other; pend; IsSyn; _≐_; map-cur-syn)
  renaming (All to AllL; [] to []L; _∷_ to _∷L_)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; ar)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (tents)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; GcI; SmI; Syn)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (SyI; oob-nil; oobA-nil)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; bi)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; Gh)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (ARX)
open import SCFTL.Impl.UnsyncedBridge Data d0 amax wmax kmax umax _≟D_ using (RIx; ri-gives-x; ri-bi; biOf; tentsP)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_ using (RIy; rixg-x; rie-nil)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ri-X)
import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- S's state as SB's: the same images, nothing pending

liftT : Sp.State → SB.State
liftT t = SB.⟨ Sp.volatile t , Sp.stable t , [] , Sp.wcnt t ⟩

-- and SB's as S's (the pending images dropped)
lowerT : SB.State → Sp.State
lowerT t = Sp.⟨ SB.volatile t , SB.stable t , SB.wcnt t ⟩

------------------------------------------------------------------------
-- Lists

private
  syn-all : ∀ cs → All Syn (map syn cs)
  syn-all []       = []
  syn-all (c ∷ cs) = (c , refl) ∷ syn-all cs

  tents-uns : ∀ g x pss → map (uns erased) (tents g x pss) ≡ map (λ ps → uns erased (dlt g x ps false ε)) pss
  tents-uns g x []         = refl
  tents-uns g x (ps ∷ pss) = cong (uns erased (dlt g x ps false ε) ∷_) (tents-uns g x pss)

  -- Lemmas' All of PM P over the pages gives the standard All of P over
  -- their current contents
  all-cur : ∀ {P : Cell → Set} {ms} → AllL (PM P) ms → All P (map cur ms)
  all-cur {ms = []}     []L       = []
  all-cur {ms = m ∷ ms} (p ∷L ps) = PM-cur m p ∷ all-cur ps

  rix-same : ∀ {s C C' comm comm'} → C ≡ C' → comm ≡ comm' → RIx s C comm → RIx s C' comm'
  rix-same refl refl x = x

------------------------------------------------------------------------
-- The parts of PU's invariant, from RI

module _ {s : St} (r : RI s) where

  -- the durable part: RI's committed pages, all synced
  prB : List MC
  prB = map syn (RI.comm r)

  private
    R0 = rp (gen s) (RI.comm r) (st0 (RI.C r))

  dre-ri : dr s ≡ map (uns erased) (tents (gen s) (ep s) (ept s) ++ []) ++ prB
  dre-ri = trans (RI.regEq r)
                 (cong (_++ prB)
                   (trans (RI.tEq r)
                     (sym (trans (cong (map (uns erased)) (++-identityʳ (tents (gen s) (ep s) (ept s))))
                                 (tents-uns (gen s) (ep s) (ept s))))))

  bi-ri : BI s []
  bi-ri = bi (RI.C r) prB (RI.slotL r) dre-ri (syn-all (RI.comm r))
             (subst (λ cs → proj₁ (rp (gen s) cs (st0 (RI.C r))) ≐ smap s) (sym (map-cur-syn (RI.comm r))) (RI.cmX r))
             (subst (λ cs → rbase (ep s) (rp (gen s) cs (st0 (RI.C r))) ≡ proj₁ (rp (gen s) cs (st0 (RI.C r))))
                    (sym (map-cur-syn (RI.comm r)))
                    (rbase-other (ep s) R0 (<⇒≢ (RI.cmP r))))

  gcI-ri : GcI s
  gcI-ri = record
    { blw  = λ a p le e → proj₁ (RI.vOK r a p le e)
    ; oobI = λ a p le e → cong oob (proj₂ (proj₂ (RI.vOK r a p le e)))
    ; ersI = λ p e → proj₁ (RI.eOK r p e) , proj₁ (proj₂ (RI.eOK r p e))
    ; invI = RI.iOK r
    }

  smI-ri : SmI s
  smI-ri a p le e = proj₁ (RI.sOK r a p le e) , proj₁ (proj₂ (RI.sOK r a p le e)) ,
                    (λ er → proj₂ (proj₂ (RI.eOK r p er)) a le e)

  -- every record slot durable (PUSic's RcS)
  rcS-ri : ∀ p → IsSyn (rcd s p)
  rcS-ri p = subst IsSyn (sym (proj₁ (proj₂ (RI.rcOK r p)))) tt

  syI-ri : SyI s
  syI-ri a p le e = dcell (proj₁ (proj₂ (proj₂ (RI.sOK r a p le e)))) a ,
                    proj₂ (proj₂ (proj₂ (RI.sOK r a p le e))) , refl

------------------------------------------------------------------------
-- The bridge back

inv-of-ri : ∀ {s t} → RI s → AR s t → Inv′ ⟪ s , [] ⟫ (liftT t)
inv-of-ri {s} {t} r a =
  ( ( ((AR.vol a , AR.cnt a , refl) , AR.stb a)
    , (gcI-ri r , smI-ri r , (tt , RI.vm r) , tt , syI-ri r)
    , bi-ri r
    , RI.slotO r )
  , all-cur (RI.gle r) )

riy-of-ri : ∀ {s t} (r : RI s) (a : AR s t) → RIy (inv-of-ri r a)
riy-of-ri {s} r a = rixg-x (rix-same refl (sym (map-cur-syn (RI.comm r))) (ri-gives-x r)) , rie-nil s

arx-of-ri : ∀ {s t} (g : Gh) → RI s → AR s t → ARX ⟦ ⟪ s , [] ⟫ , g ⟧ (liftT t)
arx-of-ri {s} g r a =
  ( ( (inv-of-ri r a , oob-nil ⟪ s , [] ⟫ refl (syI-ri r))
    , rcS-ri r )
  , oobA-nil ⟪ s , [] ⟫ refl (syI-ri r) )

-- the round trip: the forward bridge gives back an RI of the same state
-- with the same checkpoint and committed part
ri-round : ∀ {s t} (r : RI s) (a : AR s t) →
           RI.C (ri-X (inv-of-ri r a) (riy-of-ri r a)) ≡ RI.C r ×
           RI.comm (ri-X (inv-of-ri r a) (riy-of-ri r a)) ≡ RI.comm r
ri-round r a = let e = ri-bi (ri-X (inv-of-ri r a) (riy-of-ri r a)) (bi-ri r) in
  proj₁ e , trans (proj₂ e) (map-cur-syn (RI.comm r))

-- ARX of a state with no epoch unsynced gives P's AR against S's state
-- of the same volatile and stable images
ar-of-arx : ∀ {s g t} → ARX ⟦ ⟪ s , [] ⟫ , g ⟧ t → AR s (lowerT t)
ar-of-arx (((((((v , c , _) , sa) , _) , _) , _) , _) , _) = ar v sa c
