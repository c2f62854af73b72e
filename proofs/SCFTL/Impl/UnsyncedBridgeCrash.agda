{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: the record slots' bound `RoG`
-- (SCFTL.Impl.UnsyncedBridgeAll) at the crash points of PU's
-- operations, so that a crash and recovery with the full checkpoint
-- keep the bridge's invariant.
--
-- RoG of a crashed state asks that its record slots hold nothing newer
-- than the generation recovery picks (P's `RecTo.ro`).  It follows from
-- a property of the state the crash hit (`RcX u G`): every record slot,
-- with both its old and its new content if unsynced, holds nothing newer
-- than G, and one checkpoint slot holds, durably, a checkpoint of
-- generation G or newer, so that `pick` (the newer of the two) returns
-- at least G on every outcome (`rcx-img`).
--
--   rcx-inv    a state of PU's normal operation with RIy has RcX at its
--              generation (RIxG's `rcOK`, BI's live slot)
--   rcx-fl2, rcx-fl3, rcx-ck1, rcx-ck2, rcx-ck3
--              the flush's crash points inside it: before its SYNC, and
--              inside a full checkpoint (the new slot, durable after
--              ck1's SYNC, is the one that counts from ck2 on)
--   rog-crM    every crash point of PUM's operations (`CrM`: after a
--              write or GC, after a barrier without SYNC, and the flush's
--              and the forced barrier's: before the SYNC, after it, inside
--              and after the checkpoint) leaves RoG
--   rixg-crash-rec
--              so a crash at any of them, then recovery with the full
--              checkpoint, gives RIy (`rixg-rec`)
--   rog-recCr  a crash inside recovery's own checkpoint leaves RoG again
--              (the slot it picked stays live until the new one is
--              durable): crashes during recovery do not lose it
--   rog-crS, rog-crB
--              the SYNC outside a commit (PUS's full one, PUSB's partial
--              one) writes neither kind of slot: a crash before or after
--              it leaves RoG
--
-- Left: the command-level crash points (PUSic's `crashPUc`) and the
-- in-page commit's (PUSi's `CrFi`), and recovery without the checkpoint
-- (PUSi's `RecC`, `RecCc`).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeCrash (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                      (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≤ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-refl; ≤-trans; ≤-step; ≤⇒≤ᵇ; ≰⇒>; <⇒≤; ≤ᵇ⇒≤)
open import Data.Bool.Base using (Bool; true; false; T; if_then_else_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues; okU; flB; epE)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI)
open import SCFTL.Impl.UnsyncedCrashes Data d0 amax wmax kmax umax _≟D_ using (A-Inv)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′; genR-ok)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh; okPU; CrM; CrF; RecCr)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR; pick-cell)
open import SCFTL.Impl.Recovery Data d0 amax wmax kmax _≟D_ using (slot-sync)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_ using (syU; syS; crashS)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (syB; PartSyᶜ)
open import SCFTL.Impl.UnsyncedBridge Data d0 amax wmax kmax umax _≟D_ using (biOf)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_ using (RIxG; RIy; rixg-okU)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (RoG; rixg-rec)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- What a crash needs of the state it hits

-- a page's every crash outcome holds nothing of generation g or newer
RLtM : ℕ → MC → Set
RLtM g (syn c)   = RLt g c
RLtM g (uns o n) = RLt g o × RLt g n

RcX : St → ℕ → Set
RcX u G = (∀ p → RLtM (suc G) (rcd u p)) ×
          (Σ Bool λ b → Σ ℕ λ G′ → Σ Map λ C′ → slot b u ≡ syn (cpt G′ C′) × G ≤ G′)

private
  RLt-mono : ∀ {g h} c → g ≤ h → RLt g c → RLt h c
  RLt-mono erased          le _  = tt
  RLt-mono junk            le _  = tt
  RLt-mono (dcell _ _)     le _  = tt
  RLt-mono (dlt _ _ _ _ _) le lt = ≤-trans lt le
  RLt-mono (cpt _ _)       le _  = tt

  rlt-crash : ∀ {g} m {m'} → RLtM g m → CrashC m m' → RLt g (cur m')
  rlt-crash (syn c)   r refl                = r
  rlt-crash (uns o n) r (inj₁ refl)         = proj₁ r
  rlt-crash (uns o n) r (inj₂ (inj₁ refl))  = proj₂ r
  rlt-crash (uns o n) r (inj₂ (inj₂ refl))  = tt

  crash-syn : ∀ {m m' c} → m ≡ syn c → CrashC m m' → m' ≡ syn c
  crash-syn refl e = e

  just-g : ∀ {b b′ : Bool} {g g′ : ℕ} {C C′ : Map} → just (b , g , C) ≡ just (b′ , g′ , C′) → g ≡ g′
  just-g refl = refl

  ≤ᵇ-false : ∀ h g → (h ≤ᵇ g) ≡ false → g ≤ h
  ≤ᵇ-false h g e = <⇒≤ (≰⇒> (λ le → subst T e (≤⇒≤ᵇ le)))

  ≤ᵇ-true : ∀ h g → (h ≤ᵇ g) ≡ true → h ≤ g
  ≤ᵇ-true h g e = ≤ᵇ⇒≤ h g (subst T (sym e) tt)

-- `pick` returns the newer checkpoint: at least the generation of a
-- checkpoint in either slot
pick-geL : ∀ G C c {b x M} → pick (cpt G C) c ≡ just (b , x , M) → G ≤ x
pick-geL G C erased          e = subst (G ≤_) (just-g e) ≤-refl
pick-geL G C junk            e = subst (G ≤_) (just-g e) ≤-refl
pick-geL G C (dcell _ _)     e = subst (G ≤_) (just-g e) ≤-refl
pick-geL G C (dlt _ _ _ _ _) e = subst (G ≤_) (just-g e) ≤-refl
pick-geL G C (cpt h D) {b} {x} {M} e = aux (h ≤ᵇ G) refl e
  where
    aux : ∀ bb → (h ≤ᵇ G) ≡ bb → (if bb then just (true , G , C) else just (false , h , D)) ≡ just (b , x , M) → G ≤ x
    aux true  _  e′ = subst (G ≤_) (just-g e′) ≤-refl
    aux false eq e′ = subst (G ≤_) (just-g e′) (≤ᵇ-false h G eq)

pick-geR : ∀ c H D {b x M} → pick c (cpt H D) ≡ just (b , x , M) → H ≤ x
pick-geR erased          H D e = subst (H ≤_) (just-g e) ≤-refl
pick-geR junk            H D e = subst (H ≤_) (just-g e) ≤-refl
pick-geR (dcell _ _)     H D e = subst (H ≤_) (just-g e) ≤-refl
pick-geR (dlt _ _ _ _ _) H D e = subst (H ≤_) (just-g e) ≤-refl
pick-geR (cpt g C) H D {b} {x} {M} e = aux (H ≤ᵇ g) refl e
  where
    aux : ∀ bb → (H ≤ᵇ g) ≡ bb → (if bb then just (true , g , C) else just (false , H , D)) ≡ just (b , x , M) → H ≤ x
    aux true  eq e′ = subst (H ≤_) (just-g e′) (≤ᵇ-true H g eq)
    aux false _  e′ = subst (H ≤_) (just-g e′) ≤-refl

-- a crash of a state with RcX leaves RoG
rcx-img : ∀ {u s'' G} → RcX u G → Img u s'' → RoG s''
rcx-img {u} {s''} {G} (rr , b , G′ , C′ , sl , le) (cd , cL , cO , cl , cr) b2 g C pk p =
  RLt-mono (cur (rcd s'' p)) (s≤s (≤-trans le (ge b sl))) (rlt-crash (rcd u p) (rr p) (cr p))
  where
    ge : ∀ b → slot b u ≡ syn (cpt G′ C′) → G′ ≤ g
    ge true  e = pick-geL G′ C′ (cur (cpO s''))
                   (subst (λ m → pick (cur m) (cur (cpO s'')) ≡ just (b2 , g , C)) (crash-syn e cL) pk)
    ge false e = pick-geR (cur (cpL s'')) G′ C′
                   (subst (λ m → pick (cur (cpL s'')) (cur m) ≡ just (b2 , g , C)) (crash-syn e cO) pk)

------------------------------------------------------------------------
-- The states PU's crash points hit

-- a state of normal operation with RIy
rcx-inv : ∀ {s t} (iv : Inv′ s t) → RIy iv → RcX (st s) (gen (st s))
rcx-inv {s} iv (x , _) = rr , true , gen (st s) , BI.C (biOf iv) , BI.slt (biOf iv) , ≤-refl
  where
    rr : ∀ p → RLtM (suc (gen (st s))) (rcd (st s) p)
    rr p with RIxG.rcOK x p
    ... | c , e , lt = subst (RLtM (suc (gen (st s)))) (sym e) lt

-- a SYNC keeps the bound
rltM-sync : ∀ {g} m → RLtM g m → RLtM g (sync m)
rltM-sync (syn c)   r = r
rltM-sync (uns o n) r = proj₂ r

-- inside the flush, before its SYNC: the record slots and the
-- checkpoint slots are the state's
-- a state with the same record and checkpoint slots
rcx-same : ∀ {u u' G} → rcd u' ≡ rcd u → cpL u' ≡ cpL u → cpO u' ≡ cpO u → RcX u G → RcX u' G
rcx-same {u} {u'} er el eo (rr , b , G′ , C′ , sl , le) =
  (λ p → subst (λ f → RLtM _ (f p)) (sym er) (rr p)) , b , G′ , C′ , trans (sl′ b) sl , le
  where
    sl′ : ∀ b → slot b u' ≡ slot b u
    sl′ true  = el
    sl′ false = eo

rcx-fl2 : ∀ {s G} → RcX s G → RcX (fl2 s) G
rcx-fl2 {s} = rcx-same {s} {fl2 s} refl refl refl

-- a full checkpoint (the flush's, recovery's): the new slot written
-- (ck1), then synced with the old one erased (ck2), then the slots swap
-- (ck3); from a state whose live slot is the one RcX names
Live : St → ℕ → Set
Live u G = Σ ℕ λ G′ → Σ Map λ C′ → cpL u ≡ syn (cpt G′ C′) × G ≤ G′

rcx-ck1 : ∀ {u G} → RcX u G → Live u G → RcX (ck1 u) G
rcx-ck1 (rr , _) (G′ , C′ , sl , le) = rr , true , G′ , C′ , sl , le

rcx-ck2 : ∀ {u G} → RcX u G → gen u ≡ G → RcX (ck2 u) G
rcx-ck2 {u} (rr , _) refl =
  (λ p → rltM-sync (rcd u p) (rr p)) , false , suc (gen u) , l2p u , refl , ≤-step ≤-refl

rcx-ck3 : ∀ {u G} → RcX u G → gen u ≡ G → RcX (ck3 u) G
rcx-ck3 {u} (rr , _) refl =
  (λ p → rltM-sync (sync (rcd u p)) (rltM-sync (rcd u p) (rr p))) , true , suc (gen u) , l2p u , refl , ≤-step ≤-refl

-- after the flush's SYNC
rcx-fl3 : ∀ {s G} → RcX s G → Live s G → RcX (fl3 s) G × Live (fl3 s) G
rcx-fl3 {s} (rr , _) (G′ , C′ , sl , le) =
  ((λ p → rltM-sync (rcd s p) (rr p)) , true , G′ , C′ , cong sync sl , le) , (G′ , C′ , cong sync sl , le)

------------------------------------------------------------------------
-- Every crash point of PUM's operations

-- the invariant after a step of PU
ivOf : ∀ u {s t s'} → Inv′ s t → okU u s s' → Σ SB.State λ t' → Inv′ s' t'
ivOf u {s} {t} {s'} (iv , gr) o = let A = A-Inv u {s} {t} {s'} iv o in proj₁ A , proj₂ (proj₂ A) , genR-ok u {s} {s'} o gr

-- the state after a step of PU with RIy
rcx-step : ∀ u {s t s'} (iv : Inv′ s t) → RIy iv → okU u s s' → RcX (st s') (gen (st s'))
rcx-step u {s} {t} {s'} iv y o =
  let (t' , iv') = ivOf u {s} {t} {s'} iv o in rcx-inv {s'} {t'} iv' (rixg-okU u iv y o iv')

-- its live slot
live : ∀ {s t} (iv : Inv′ s t) → Live (st s) (gen (st s))
live {s} iv = gen (st s) , BI.C (biOf iv) , BI.slt (biOf iv) , ≤-refl

rog-crF : ∀ {s t s'' gh} (iv : Inv′ s t) → RIy iv → CrF s s'' gh → RoG s''
rog-crF {s} {t} {s''} iv y (inj₁ (img , _)) = rcx-img {fl2 (st s)} {s''} {gen (st s)} (rcx-fl2 {st s} (rcx-inv iv y)) img
rog-crF {s} {t} {s''} iv y (inj₂ (inj₁ (img , _))) =
  rcx-img {fl3 (st s)} {s''} {gen (st s)} (rcx-step SB.flush {s} {_} {⟪ fl3 (st s) , [] ⟫} iv y (inj₁ refl , refl)) img
rog-crF {s} {t} {s''} iv y (inj₂ (inj₂ (inj₁ (inj₁ img , _)))) =
  let (x , l) = rcx-fl3 {st s} (rcx-inv iv y) (live iv) in
  rcx-img {ck1 (fl3 (st s))} {s''} {gen (st s)} (rcx-ck1 {fl3 (st s)} x l) img
rog-crF {s} {t} {s''} iv y (inj₂ (inj₂ (inj₁ (inj₂ img , _)))) =
  rcx-img {ck2 (fl3 (st s))} {s''} {gen (st s)} (rcx-ck2 {fl3 (st s)} (proj₁ (rcx-fl3 {st s} (rcx-inv iv y) (live iv))) refl) img
rog-crF {s} {t} {s''} iv y (inj₂ (inj₂ (inj₂ (img , _)))) =
  rcx-img {ck3 (fl3 (st s))} {s''} {suc (gen (st s))} (rcx-step SB.flush {s} {_} {⟪ ck3 (fl3 (st s)) , [] ⟫} iv y (inj₂ (inj₁ refl) , refl)) img

rog-crM : ∀ u {s t s'' gh} (iv : Inv′ s t) → RIy iv → CrM u s s'' gh → RoG s''
rog-crM (SB.reg (SB.op x)) {s} {t} {s''} iv y (s' , o , img , _) = rcx-img {st s'} {s''} {gen (st s')} (rcx-step (SB.reg (SB.op x)) {s} {_} {s'} iv y o) img
rog-crM (SB.reg SB.barrier) {s} {t} {s''} iv y (inj₁ (lt , img , _)) =
  rcx-img {flB (st s)} {s''} {gen (st s)} (rcx-step (SB.reg SB.barrier) {s} {_} {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} iv y (inj₁ (lt , refl))) img
rog-crM (SB.reg SB.barrier) {s} {t} {s''} iv y (inj₂ c) = rog-crF {s} {t} {s''} iv y c
rog-crM SB.flush {s} {t} {s''} iv y c = rog-crF {s} {t} {s''} iv y c

------------------------------------------------------------------------
-- A crash at any of them, then recovery with the full checkpoint

rixg-crash-rec : ∀ u {S t S'' S3 t3} (iv : Inv′ (su S) t) → RIy iv →
                 CrM u (su S) (st (su S'')) (gh S'') → okPU SB.recover S'' S3 → (iv3 : Inv′ (su S3) t3) → RIy iv3
rixg-crash-rec u {S} {t} {S''} iv y c r iv3 = rixg-rec {S''} r (rog-crM u iv y c) iv3

------------------------------------------------------------------------
-- Crashes inside recovery's full checkpoint: RoG carries over

-- the state recovery builds before its checkpoint: the record slots
-- synced as they were, the slot it picked live
rcx-recR : ∀ {b g C pr es' s} → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
           (∀ p → RLt (suc g) (cur (rcd s p))) → RcX (recR b g C pr es' s) g × Live (recR b g C pr es' s) g
rcx-recR {b} {g} {C} {pr} {es'} {s} pk ro =
  (ro , true , g , C , sl , ≤-refl) , (g , C , sl , ≤-refl)
  where
    sl : slot b (syncAll s) ≡ syn (cpt g C)
    sl = trans (slot-sync b s) (cong syn (pick-cell b s pk))

rog-recCr : ∀ {s gh s3 gh3} → RoG s → RecCr s gh s3 gh3 → RoG s3
rog-recCr {s} {gh} {s3} ro (b , g , C , pk , T , es' , _ , _ , inj₁ (img , _)) =
  let (x , l) = rcx-recR {b} {g} {C} {proj₂ gh} {es'} {s} pk (ro b g C pk) in
  rcx-img {ck1 (recR b g C (proj₂ gh) es' s)} {s3} {g} (rcx-ck1 {recR b g C (proj₂ gh) es' s} x l) img
rog-recCr {s} {gh} {s3} ro (b , g , C , pk , T , es' , _ , _ , inj₂ (inj₁ (img , _))) =
  rcx-img {ck2 (recR b g C (proj₂ gh) es' s)} {s3} {g}
    (rcx-ck2 {recR b g C (proj₂ gh) es' s} (proj₁ (rcx-recR {b} {g} {C} {proj₂ gh} {es'} {s} pk (ro b g C pk))) refl) img
rog-recCr {s} {gh} {s3} ro (b , g , C , pk , T , es' , _ , _ , inj₂ (inj₂ (img , _))) =
  rcx-img {ck3 (recR b g C (proj₂ gh) es' s)} {s3} {g}
    (rcx-ck3 {recR b g C (proj₂ gh) es' s} (proj₁ (rcx-recR {b} {g} {C} {proj₂ gh} {es'} {s} pk (ro b g C pk))) refl) img

------------------------------------------------------------------------
-- The SYNC outside a commit, full or partial: it writes no record or
-- checkpoint slot

rcx-syU : ∀ {s es r G} → RcX s G → RcX (syU es r s) G
rcx-syU {s} {es} {r} = rcx-same {s} {syU es r s} refl refl refl

rcx-syB : ∀ {s xs ys l r G} → RcX s G → RcX (syB xs ys l r s) G
rcx-syB {s} {xs} {ys} {l} {r} = rcx-same {s} {syB xs ys l r s} refl refl refl

-- a crash before PUS's SYNC or after it
rog-crS : ∀ {S t S'} (iv : Inv′ (su S) t) → RIy iv → crashS (SB.use (SB.reg (SB.op SB.sy))) S S' → RoG (st (su S'))
rog-crS {S} {t} {S'} iv y (inj₁ (img , _) , _) = rcx-img {st (su S)} {st (su S')} {gen (st (su S))} (rcx-inv iv y) img
rog-crS {S} {t} {S'} iv y (inj₂ (r , _ , img , _) , _) =
  rcx-img {syU (ues (su S)) r (st (su S))} {st (su S')} {gen (st (su S))}
    (rcx-syU {st (su S)} {ues (su S)} {r} (rcx-inv iv y)) img

-- a crash after PUSB's partial SYNC
rog-crB : ∀ {S t S'} (iv : Inv′ (su S) t) → RIy iv → PartSyᶜ S S' → RoG (st (su S'))
rog-crB {S} {t} {S'} iv y (xs , ys , l , r , _ , _ , _ , img , _) =
  rcx-img {syB xs ys l r (st (su S))} {st (su S')} {gen (st (su S))}
    (rcx-syB {st (su S)} {xs} {ys} {l} {r} (rcx-inv iv y)) img
