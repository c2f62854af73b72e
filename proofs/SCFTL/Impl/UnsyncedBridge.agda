{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: what a state of the PU family with no
-- epoch unsynced lacks of P's representation invariant RI.
--
-- The lazy chain (PL, SCFTL.Impl.LazyChainModel) starts from states
-- with P's RI; the code starts chains after barriers too (a durable
-- flush SYNCs, then commits lazily in a record slot), from states of
-- the PU family, whose invariant is Inv′ (ARU, GcI, SmI, the ghost
-- invariant, BI, SlO, GenR), not RI.  In the other direction P's RI
-- gives PU's (`init-Inv′`, SCFTL.Impl.UnsyncedCheckpoint).  This module
-- is the bridge's first half:
--
--   RIx        the fields of RI that PU's invariants do not give: the
--              committed part's pending epoch below the open one
--              (`cmP`), the pages the volatile and the stable L2P name
--              holding data cells (`vD`, `sD`: GcI and SyI give only
--              their OOB address), the newest commit's digest on every
--              crash outcome (`cmV`), and the record slots' bounds and
--              the link (`rcOK`, `rcN`, `rcL`, `lkOK`)
--   ri-of-pu   Inv′ of a PU state with no epoch unsynced, and RIx,
--              give P's RI, with the live checkpoint and the durable
--              part of BI as RI's checkpoint and committed part: every
--              other field of RI (the slots, the region as tentative
--              pages on synced committed ones, generations, the replay
--              to the stable L2P, the volatile L2P, 2PGC's queues)
--              comes from PU's invariants
--   ri-gives-x RI gives RIx (its fields), so, with `init-Inv′`, a PU
--              state with no epoch unsynced has RI exactly when it has
--              RIx
--
-- Left for the bridge's second half: that every step of the PU family
-- keeps RIx of its states with no epoch unsynced (with a form of it
-- for states with unsynced epochs, the barriers' pages on top of the
-- durable part); then PL's chain phase can start from PUSBic's states.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridge (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                 (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl; <-irrefl)
open import Data.Empty using (⊥-elim)
open import Data.Unit.Base using (⊤; tt)
open import Data.Bool.Base using (true; false)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.List.Properties using (++-identityʳ; map-++-commute; ++-cancelˡ; ∷-injectiveˡ; ∷-injectiveʳ)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Relation.Unary.All.Properties using (++⁻ʳ)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (PM; NC; GenLe; IsSyn; CmV; pend; lkTop; all-syn-eq; all-++)
  renaming (All to AllL; [] to []L; _∷_ to _∷L_)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; LkHd)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (tents)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; GcI; SmI; Syn)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (SyI)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; bi)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (okU)
open import SCFTL.Impl.BarrierOps Data d0 amax wmax umax using (uS)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (B-ok')
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- What PU's invariants do not give

record RIx (s : St) (C : Map) (comm : List Cell) : Set where
  field
    cmP  : pend (rp (gen s) comm (st0 C)) < ep s
    cmV  : CmV (gen s) (smap s) (dat s) comm
    rcOK : ∀ p → Σ Cell λ c → rcd s p ≡ syn c × RLt (suc (gen s)) c
    rcN  : ∀ p → nxt s ≤ p → RLt (gen s) (cur (rcd s p))
    rcL  : ∀ x L → lkTop (gen s) comm ≡ just (x , L) → Above (gen s) (λ p → cur (rcd s p)) L
    lkOK : ∀ L → lnk s ≡ just L → LkHd (gen s) (ep s) L comm

------------------------------------------------------------------------
-- The data cells behind the L2Ps come from PU's invariants: a page whose
-- OOB names an address in range holds a data sector of that address
-- (`oob` of any other cell is `suc amax`, out of range: an erased page's
-- OOB area names no sector)

oob-dcell : ∀ c {a} → a ≤ amax → oob c ≡ a → c ≡ dcell (cellD c) a
oob-dcell erased          le refl = ⊥-elim (<-irrefl refl le)
oob-dcell junk            le refl = ⊥-elim (<-irrefl refl le)
oob-dcell (dcell d b)     le refl = refl
oob-dcell (dlt _ _ _ _ _) le refl = ⊥-elim (<-irrefl refl le)
oob-dcell (cpt _ _)       le refl = ⊥-elim (<-irrefl refl le)

-- the volatile L2P's pages hold data cells of their addresses (GcI)
vD : ∀ {s} → GcI s → ∀ a p → a ≤ amax → l2p s a ≡ just p → Σ Data λ d → pv s p ≡ dcell d a
vD {s} g a p le e = cellD (pv s p) , oob-dcell (pv s p) le (GcI.oobI g a p le e)

-- the stable L2P's pages hold durable data cells of their addresses (SyI)
sD : ∀ {s} → SyI s → ∀ a p → a ≤ amax → smap s a ≡ just p → Σ Data λ d → dat s p ≡ syn (dcell d a)
sD y a p le e with y a p le e
... | c , dp , ob = cellD c , trans dp (cong syn (oob-dcell c le ob))

------------------------------------------------------------------------
-- The region of a PU state with no epoch unsynced

-- P's tentative pages of the open epoch
tentsP : St → List MC
tentsP s = map (λ ps → uns erased (dlt (gen s) (ep s) ps false ε)) (ept s)

private
  tents-uns : ∀ g x pss → map (uns erased) (tents g x pss) ≡ map (λ ps → uns erased (dlt g x ps false ε)) pss
  tents-uns g x []         = refl
  tents-uns g x (ps ∷ pss) = cong (uns erased (dlt g x ps false ε) ∷_) (tents-uns g x pss)

  syn-is : ∀ {ms} → All Syn ms → AllL IsSyn ms
  syn-is []              = []L
  syn-is ((c , refl) ∷ a) = tt ∷L syn-is a

  tents-NC : ∀ g x pss → AllL (PM (NC g)) (map (λ ps → uns erased (dlt g x ps false ε)) pss)
  tents-NC g x []         = []L
  tents-NC g x (ps ∷ pss) = (tt , inj₂ refl) ∷L tents-NC g x pss

  tents-GenLe : ∀ g x pss → AllL (PM (GenLe g)) (map (λ ps → uns erased (dlt g x ps false ε)) pss)
  tents-GenLe g x []         = []L
  tents-GenLe g x (ps ∷ pss) = (tt , ≤-refl) ∷L tents-GenLe g x pss

  syn-GenLe : ∀ {g} cs → All (GenLe g) cs → AllL (PM (GenLe g)) (map syn cs)
  syn-GenLe []       []       = []L
  syn-GenLe (c ∷ cs) (p ∷ ps) = p ∷L syn-GenLe cs ps

  cur-tentsP : ∀ g x pss → map cur (map (λ ps → uns erased (dlt g x ps false ε)) pss) ≡ map (λ ps → dlt g x ps false ε) pss
  cur-tentsP g x []         = refl
  cur-tentsP g x (ps ∷ pss) = cong (dlt g x ps false ε ∷_) (cur-tentsP g x pss)

  cur-syn : ∀ cs → map cur (map syn cs) ≡ cs
  cur-syn []       = refl
  cur-syn (c ∷ cs) = cong (c ∷_) (cur-syn cs)

-- the region: the open epoch's tentative pages over the durable part,
-- every page of which is synced
region-pu : ∀ {s} (b : BI s []) → dr s ≡ tentsP s ++ map syn (map cur (BI.prM b))
region-pu {s} (bi C prM slt dre sy rx rf) =
  trans dre
   (trans (cong (λ z → map (uns erased) z ++ prM) (++-identityʳ (tents (gen s) (ep s) (ept s))))
          (cong₂′ (tents-uns (gen s) (ep s) (ept s)) (all-syn-eq (syn-is sy))))
  where
    cong₂′ : ∀ {a a' : List MC} {b b' : List MC} → a ≡ a' → b ≡ b' → a ++ b ≡ a' ++ b'
    cong₂′ refl refl = refl

------------------------------------------------------------------------
-- The bridge's first half

ri-of-pu : ∀ {s t} (iv : Inv′ ⟪ s , [] ⟫ t) →
           RIx s (BI.C (proj₁ (proj₂ (proj₂ (proj₁ iv))))) (map cur (BI.prM (proj₁ (proj₂ (proj₂ (proj₁ iv)))))) → RI s
ri-of-pu {s} {t} (((ar , (g , sm , (gl , vm) , dl , sy) , b , so) , gr)) x = record
  { C     = BI.C b
  ; tents = tentsP s
  ; comm  = comm
  ; slotL = BI.slt b
  ; slotO = so
  ; regEq = reg
  ; tNC   = tents-NC (gen s) (ep s) (ept s)
  ; gle   = subst (AllL (PM (GenLe (gen s)))) (sym reg)
              (all-++ (tents-GenLe (gen s) (ep s) (ept s)) (syn-GenLe comm commG))
  ; cmX   = BI.rx b
  ; cmP   = RIx.cmP x
  ; vm    = vm
  ; vOK   = λ a p le e → GcI.blw g a p le e , vD {s} g a p le e
  ; sOK   = λ a p le e → proj₁ (sm a p le e) , proj₁ (proj₂ (sm a p le e)) , sD {s} sy a p le e
  ; iOK   = GcI.invI g
  ; eOK   = λ p e → proj₁ (GcI.ersI g p e) , proj₂ (GcI.ersI g p e) ,
                    (λ a le q → proj₂ (proj₂ (sm a p le q)) e)
  ; tEq   = refl
  ; cmV   = RIx.cmV x
  ; rcOK  = RIx.rcOK x
  ; rcN   = RIx.rcN x
  ; rcL   = RIx.rcL x
  ; lkOK  = RIx.lkOK x
  }
  where
    comm = map cur (BI.prM b)
    reg : dr s ≡ tentsP s ++ map syn comm
    reg = region-pu {s} b
    -- the committed part's generations, from GenR of the whole region
    commG : All (GenLe (gen s)) comm
    commG = ++⁻ʳ (map (λ ps → dlt (gen s) (ep s) ps false ε) (ept s))
              (subst (All (GenLe (gen s)))
                     (trans (cong (map cur) reg)
                       (trans (map-++-commute cur (tentsP s) (map syn comm))
                              (cong₂″ (cur-tentsP (gen s) (ep s) (ept s)) (cur-syn comm))))
                     gr)
      where
        cong₂″ : ∀ {a a' b b' : List Cell} → a ≡ a' → b ≡ b' → a ++ b ≡ a' ++ b'
        cong₂″ refl refl = refl

-- and RI gives RIx: with `init-Inv′`, RIx is exactly what PU's
-- invariants lack of RI
ri-gives-x : ∀ {s} (r : RI s) → RIx s (RI.C r) (RI.comm r)
ri-gives-x r = record
  { cmP  = RI.cmP r
  ; cmV  = RI.cmV r
  ; rcOK = RI.rcOK r
  ; rcN  = RI.rcN r
  ; rcL  = RI.rcL r
  ; lkOK = RI.lkOK r
  }

------------------------------------------------------------------------
-- The bridge's second half, first part: the steps between states with
-- no epoch unsynced are P's (write, GC, the flush: one-SYNC, with or
-- without the full checkpoint, in-page, OOB), and they keep RIx

-- RIx against the checkpoint and the durable part the state's BI names
biOf : ∀ {s t} → Inv′ s t → BI (st s) (ues s)
biOf iv = proj₁ (proj₂ (proj₂ (proj₁ iv)))

RIxU : ∀ {s t} → Inv′ s t → Set
RIxU {s} iv = RIx (st s) (BI.C (biOf iv)) (map cur (BI.prM (biOf iv)))

private
  cptM : Cell → Map
  cptM (cpt _ C) = C
  cptM _         = λ _ → nothing

-- the live slot names one checkpoint
slot-unique : ∀ {s g g' C C'} → cpL s ≡ syn (cpt g C) → cpL s ≡ syn (cpt g' C') → C ≡ C'
slot-unique e e' = cong (λ m → cptM (cur m)) (trans (sym e) e')

private
  syn-inj : ∀ {c c'} → syn c ≡ syn c' → c ≡ c'
  syn-inj refl = refl

  map-syn-inj : ∀ xs ys → map syn xs ≡ map syn ys → xs ≡ ys
  map-syn-inj []       []       _ = refl
  map-syn-inj (x ∷ xs) (y ∷ ys) e = cong₂′ (syn-inj (∷-injectiveˡ e)) (map-syn-inj xs ys (∷-injectiveʳ e))
    where
      cong₂′ : ∀ {x y : Cell} {xs ys} → x ≡ y → xs ≡ ys → x ∷ xs ≡ y ∷ ys
      cong₂′ refl refl = refl
  map-syn-inj []       (_ ∷ _)  ()
  map-syn-inj (_ ∷ _)  []       ()

  rix-same : ∀ {s C C' comm comm'} → C ≡ C' → comm ≡ comm' → RIx s C comm → RIx s C' comm'
  rix-same refl refl x = x

-- RI names the checkpoint and the committed part BI names: both are
-- determined by the state (the live slot, the region under the open
-- epoch's tentative pages)
ri-bi : ∀ {s} (r : RI s) (b : BI s []) → RI.C r ≡ BI.C b × RI.comm r ≡ map cur (BI.prM b)
ri-bi {s} r b =
  slot-unique {s} (RI.slotL r) (BI.slt b) ,
  map-syn-inj (RI.comm r) (map cur (BI.prM b))
    (++-cancelˡ (tentsP s)
      (trans (sym (trans (RI.regEq r) (cong (_++ map syn (RI.comm r)) (RI.tEq r)))) (region-pu {s} b)))

-- a step that keeps RI keeps RIx
rix-P : ∀ {s t s' t'} (iv : Inv′ ⟪ s , [] ⟫ t) → RIxU iv → (RI s → RI s') →
        (iv' : Inv′ ⟪ s' , [] ⟫ t') → RIxU iv'
rix-P iv x step iv' =
  let r' = step (ri-of-pu iv x) ; e = ri-bi r' (biOf iv') in
  rix-same (proj₁ e) (proj₂ e) (ri-gives-x r')

-- every step of PU from a state with no epoch unsynced to one with none
-- keeps RIx (the barrier without SYNC leaves an epoch unsynced)
rix-okU : ∀ u {s t s' t'} (iv : Inv′ ⟪ s , [] ⟫ t) → RIxU iv → okU u ⟪ s , [] ⟫ ⟪ s' , [] ⟫ →
          (iv' : Inv′ ⟪ s' , [] ⟫ t') → RIxU iv'
rix-okU (SB.reg (SB.op (SB.w a d))) iv x (o , _) = rix-P iv x (λ r → B-ok' (uS (SB.reg (SB.op (SB.w a d)))) r o)
rix-okU (SB.reg (SB.op SB.rl))      iv x (o , _) = rix-P iv x (λ r → B-ok' (uS (SB.reg (SB.op SB.rl))) r o)
rix-okU (SB.reg (SB.op SB.es))      iv x (o , _) = rix-P iv x (λ r → B-ok' (uS (SB.reg (SB.op SB.es))) r o)
rix-okU (SB.reg (SB.op SB.sy))      iv x (() , _)
rix-okU (SB.reg SB.barrier)         iv x (inj₁ (_ , ()))
rix-okU (SB.reg SB.barrier)         iv x (inj₂ (o , _)) = rix-P iv x (λ r → B-ok' (uS SB.flush) r o)
rix-okU SB.flush                    iv x (o , _) = rix-P iv x (λ r → B-ok' (uS SB.flush) r o)
