{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: the bridge's second half for normal
-- operation.  `RIx` (SCFTL.Impl.UnsyncedBridge) is what a PU state with
-- no epoch unsynced lacks of P's RI; `RIxG` is its form for any list of
-- unsynced epochs, against the durable part below them (BI's checkpoint
-- and `prM`):
--
--   RIxG       the durable part's pending epoch below the FIRST unsynced
--              epoch's id (`fid`; the open epoch's with none), its newest
--              commit's digest on every crash outcome, the record slots,
--              and the link: a link only with no epoch unsynced (a
--              barrier drops it), the last commit's; with no epoch
--              unsynced it is RIx (`rixg-x`, `x-rixg`)
--   hold-reg   write and GC (P's steps, `ues` kept) keep it, over any
--              number of unsynced epochs
--   hold-flB   the barrier without SYNC keeps it: its epoch goes above
--              the durable part (the first unsynced epoch's id stays
--              the bound), its link is dropped
--   rixg-okU   so every step of PU keeps RIxG of the BI its invariant
--              names (`RIxGU`), except the one from unsynced epochs to
--              none (a flush or a forced barrier after barriers without
--              SYNC: its new committed part is the barriers' pages with
--              the flush's commit on top); from no epoch unsynced the
--              flush is P's (`rix-okU`)
--
-- Left: that flush from unsynced epochs, PUS's SYNC outside a commit,
-- PUSB's partial SYNC, the in-page/OOB commit after a SYNC and recovery
-- (PUSBic's other steps).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeNormal (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                       (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl; ≤-step; ≤-trans; <⇒≢)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.List.Properties using (++-cancelˡ)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ as Lm
open Lm using (CmV; lkTop; pend; cmv-mono)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (LkHd)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (E; ue; tents)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (lay)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; okU; okReg; flB; epE; lay-bar; SmI)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; fid; fid-snoc; DrEq)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedBridge Data d0 amax wmax kmax umax _≟D_
  using (RIx; RIxU; biOf; rix-okU)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- RIx over unsynced epochs

record RIxG (s : St) (es : List E) (C : Map) (comm : List Cell) : Set where
  field
    cmP  : pend (rp (gen s) comm (st0 C)) < fid es (ep s)
    cmV  : CmV (gen s) (smap s) (dat s) comm
    rcOK : ∀ p → Σ Cell λ c → rcd s p ≡ syn c × RLt (suc (gen s)) c
    rcN  : ∀ p → nxt s ≤ p → RLt (gen s) (cur (rcd s p))
    rcL  : ∀ x L → lkTop (gen s) comm ≡ just (x , L) → Above (gen s) (λ p → cur (rcd s p)) L
    lkOK : ∀ L → lnk s ≡ just L → es ≡ [] × LkHd (gen s) (ep s) L comm

rixg-x : ∀ {s C comm} → RIx s C comm → RIxG s [] C comm
rixg-x x = record
  { cmP = RIx.cmP x ; cmV = RIx.cmV x ; rcOK = RIx.rcOK x ; rcN = RIx.rcN x ; rcL = RIx.rcL x
  ; lkOK = λ L e → refl , RIx.lkOK x L e }

x-rixg : ∀ {s C comm} → RIxG s [] C comm → RIx s C comm
x-rixg x = record
  { cmP = RIxG.cmP x ; cmV = RIxG.cmV x ; rcOK = RIxG.rcOK x ; rcN = RIxG.rcN x ; rcL = RIxG.rcL x
  ; lkOK = λ L e → proj₂ (RIxG.lkOK x L e) }

-- against the checkpoint and the durable part a PU state's BI names
RIxGU : ∀ {s t} → Inv′ s t → Set
RIxGU {s} iv = RIxG (st s) (ues s) (BI.C (biOf iv)) (map cur (BI.prM (biOf iv)))

------------------------------------------------------------------------
-- The checkpoint and the durable part are determined by the state

Hold : St → List E → Map → List MC → Set
Hold s es C prM = cpL s ≡ syn (cpt (gen s) C) × DrEq s es prM × RIxG s es C (map cur prM)

private
  cptM : Cell → Map
  cptM (cpt _ C) = C
  cptM _         = λ _ → nothing

slot-unique : ∀ {s g g' C C'} → cpL s ≡ syn (cpt g C) → cpL s ≡ syn (cpt g' C') → C ≡ C'
slot-unique e e' = cong (λ m → cptM (cur m)) (trans (sym e) e')

drEq-unique : ∀ {s es prM prM'} → DrEq s es prM → DrEq s es prM' → prM ≡ prM'
drEq-unique {s} {es} d d' =
  ++-cancelˡ (map (uns erased) (tents (gen s) (ep s) (ept s) ++ lay (map (ue (gen s)) es) [])) (trans (sym d) d')

hold-of : ∀ {s t} (iv : Inv′ s t) → RIxGU iv → Hold (st s) (ues s) (BI.C (biOf iv)) (BI.prM (biOf iv))
hold-of iv x = BI.slt (biOf iv) , BI.dre (biOf iv) , x

hold-to : ∀ {s t C prM} → Hold (st s) (ues s) C prM → (iv : Inv′ s t) → RIxGU iv
hold-to {s} (slt , dre , x) iv =
  go (slot-unique {st s} slt (BI.slt (biOf iv))) (drEq-unique {st s} {ues s} dre (BI.dre (biOf iv))) x
  where
    go : ∀ {C C' prM prM'} → C ≡ C' → prM ≡ prM' → RIxG (st s) (ues s) C (map cur prM) →
         RIxG (st s) (ues s) C' (map cur prM')
    go refl refl y = y

------------------------------------------------------------------------
-- A step that leaves the generation, the epoch, the stable L2P, the
-- record slots and the link, moves the active pointer up, and leaves the
-- stable L2P's pages alone

SmP : St → ℕ → Set
SmP s p = Σ ℕ λ a → a ≤ amax × smap s a ≡ just p

rixg-mono : ∀ {s s' es C comm} → gen s' ≡ gen s → ep s' ≡ ep s → smap s' ≡ smap s →
            (∀ p → rcd s' p ≡ rcd s p) → lnk s' ≡ lnk s → nxt s ≤ nxt s' →
            (∀ p → SmP s p → dat s' p ≡ dat s p) → RIxG s es C comm → RIxG s' es C comm
rixg-mono {s} {s'} {es} {C} {comm} eg ee es′ er el le dd x = record
  { cmP = cmP′ ; cmV = cmV′ ; rcOK = rcOK′ ; rcN = rcN′ ; rcL = rcL′ ; lkOK = lkOK′ }
  where
    cmP′ : pend (rp (gen s') comm (st0 C)) < fid es (ep s')
    cmP′ rewrite eg | ee = RIxG.cmP x
    cmV′ : CmV (gen s') (smap s') (dat s') comm
    cmV′ rewrite eg | es′ =
      cmv-mono (λ p d a le sm de → trans (dd p (a , le , sm)) de) comm (RIxG.cmV x)
    rcOK′ : ∀ p → Σ Cell λ c → rcd s' p ≡ syn c × RLt (suc (gen s')) c
    rcOK′ p with RIxG.rcOK x p
    ... | c , e , lt rewrite eg = c , trans (er p) e , lt
    rcN′ : ∀ p → nxt s' ≤ p → RLt (gen s') (cur (rcd s' p))
    rcN′ p le' rewrite eg | er p = RIxG.rcN x p (≤-trans le le')
    rcL′ : ∀ y L → lkTop (gen s') comm ≡ just (y , L) → Above (gen s') (λ p → cur (rcd s' p)) L
    rcL′ y L e q le' rewrite eg | er q = RIxG.rcL x y L e q le'
    lkOK′ : ∀ L → lnk s' ≡ just L → es ≡ [] × LkHd (gen s') (ep s') L comm
    lkOK′ L e rewrite eg | ee = RIxG.lkOK x L (trans (sym el) e)

hold-mono : ∀ {s s' es C prM} → cpL s' ≡ cpL s → gen s' ≡ gen s → ep s' ≡ ep s → smap s' ≡ smap s →
            (∀ p → rcd s' p ≡ rcd s p) → lnk s' ≡ lnk s → nxt s ≤ nxt s' →
            (∀ p → SmP s p → dat s' p ≡ dat s p) → (DrEq s es prM → DrEq s' es prM) →
            Hold s es C prM → Hold s' es C prM
hold-mono {s} {s'} {es} {C} ec eg ee es′ er el le dd hd (slt , dre , x) =
  trans ec (trans slt (cong (λ g → syn (cpt g C)) (sym eg))) , hd dre , rixg-mono eg ee es′ er el le dd x

------------------------------------------------------------------------
-- Write and GC

-- the stable L2P's pages are out of the merge buffer
MbOK : St → Set
MbOK s = ∀ p → SmP s p → mb s p ≡ nothing

mbOK-sm : ∀ {s} → SmI s → MbOK s
mbOK-sm sm p (a , le , e) = proj₁ (proj₂ (sm a p le e))

private
  dat-progMB : ∀ {s} → MbOK s → ∀ p → SmP s p → dat (progMB s) p ≡ dat s p
  dat-progMB {s} ok p sp = cong (λ m → progm m (dat s p)) (ok p sp)

hold-opt : ∀ f1 f2 {u es C prM} → MbOK u → Hold u es C prM → Hold (opt f1 f2 u) es C prM
hold-opt false false ok h = h
hold-opt true  false {u} ok h = hold-mono refl refl refl refl (λ _ → refl) refl ≤-refl (dat-progMB {u} ok) (λ d → d) h
hold-opt false true {u} ok h =
  hold-mono refl refl refl refl (λ _ → refl) refl ≤-refl (λ _ _ → refl)
            (cong (uns erased (dlt (gen u) (ep u) (dbuf u) false ε) ∷_)) h
hold-opt true  true {u} ok h =
  hold-mono refl refl refl refl (λ _ → refl) refl ≤-refl (dat-progMB {u} ok)
            (cong (uns erased (dlt (gen u) (ep u) (dbuf u) false ε) ∷_)) h

private
  -- place: a new page at the active pointer, above every page the stable
  -- L2P names
  mb-place : ∀ a d {s} → SmI s → MbOK (place a d s)
  mb-place a d {s} sm p (b , le , e) with sm b p le e
  ... | lt , mbn , _ = trans (Lm.upd-other (mb s) (just (d , a)) (<⇒≢ lt)) mbn

hold-reg : ∀ x {s s' es C prM} → SmI s → okReg x s s' → Hold s es C prM → Hold s' es C prM
hold-reg (SB.w a d) {s} sm (inj₁ (_ , f1 , f2 , refl)) h =
  hold-opt f1 f2 (mb-place a d {s} sm)
    (hold-mono refl refl refl refl (λ _ → refl) refl (≤-step ≤-refl) (λ _ _ → refl) (λ d → d) h)
hold-reg (SB.w a d) sm (inj₂ (_ , refl)) h = h
hold-reg SB.rl {s} sm (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , refl))) h =
  hold-opt f1 f2 (mb-place (p2l s p) (cellD (pv s p)) {s} sm)
    (hold-mono refl refl refl refl (λ _ → refl) refl (≤-step ≤-refl) (λ _ _ → refl) (λ d → d) h)
hold-reg SB.rl sm (inj₁ (_ , p , _ , inj₂ (_ , refl))) h =
  hold-mono refl refl refl refl (λ _ → refl) refl ≤-refl (λ _ _ → refl) (λ d → d) h
hold-reg SB.rl sm (inj₂ (_ , refl)) h = h
hold-reg SB.es {s} sm (p , er , refl) h =
  hold-mono refl refl refl refl (λ _ → refl) refl ≤-refl dd (λ d → d) h
  where
    -- the erased page is erasable; no page of the stable L2P is
    dd : ∀ q → SmP s q → dat (esF p s) q ≡ dat s q
    dd q (a , le , e) = Lm.upd-other (dat s) (put erased (dat s p))
                          (λ qp → proj₂ (proj₂ (sm a q le e)) (subst (λ z → ers s z ≡ true) (sym qp) er))
hold-reg SB.sy sm () h

------------------------------------------------------------------------
-- The barrier without SYNC

hold-flB : ∀ {s es C prM} → SmI s → Hold s es C prM → Hold (flB s) (es ++ epE s ∷ []) C prM
hold-flB {s} {es} {C} {prM} sm (slt , dre , x) = slt , dre′ , record
  { cmP  = subst (λ z → pend (rp (gen s) (map cur prM) (st0 C)) < z) (sym (fid-snoc es (epE s) (suc (ep s))))
                 (RIxG.cmP x)
  ; cmV  = cmv-mono (λ p d a le e de → trans (dat-progMB {s} (mbOK-sm {s} sm) p (a , le , e)) de)
                    (map cur prM) (RIxG.cmV x)
  ; rcOK = RIxG.rcOK x
  ; rcN  = RIxG.rcN x
  ; rcL  = RIxG.rcL x
  ; lkOK = λ L () }
  where
    dre′ : DrEq (flB s) (es ++ epE s ∷ []) prM
    dre′ = trans (cong (uns erased (proj₁ (ue (gen s) (epE s))) ∷_) dre)
                 (cong (λ z → map (uns erased) z ++ prM) (sym (lay-bar (gen s) es (epE s))))

------------------------------------------------------------------------
-- Every step of PU but the one from unsynced epochs to none

private
  smI : ∀ {s t} → Inv′ s t → SmI (st s)
  smI iv = proj₁ (proj₂ (proj₁ (proj₂ (proj₁ iv))))

  ues-eq : ∀ {s s' : StU} {C prM} → ues s' ≡ ues s → Hold (st s') (ues s) C prM → Hold (st s') (ues s') C prM
  ues-eq {s} {s'} {C} {prM} e h = subst (λ z → Hold (st s') z C prM) (sym e) h

-- from no epoch unsynced to none: P's step (`rix-okU`)
rixg-P : ∀ u {s t s' t'} (iv : Inv′ s t) → RIxGU iv → okU u s s' → ues s ≡ [] → ues s' ≡ [] →
         (iv' : Inv′ s' t') → RIxGU iv'
rixg-P u {⟪ s , .[] ⟫} {t} {⟪ s' , .[] ⟫} iv x o refl refl iv' = rixg-x (rix-okU u iv (x-rixg x) o iv')

rixg-okU : ∀ u {s t s' t'} (iv : Inv′ s t) → RIxGU iv → okU u s s' → (ues s ≡ [] ⊎ (ues s' ≡ [] → ⊥)) →
           (iv' : Inv′ s' t') → RIxGU iv'
rixg-okU (SB.reg (SB.op x)) {s} {t} {s'} iv rx (o , eu) _ iv' =
  hold-to (ues-eq {s} {s'} eu (hold-reg x (smI iv) o (hold-of iv rx))) iv'
rixg-okU (SB.reg SB.barrier) {s} iv rx (inj₁ (_ , refl)) _ iv' =
  hold-to (hold-flB (smI iv) (hold-of iv rx)) iv'
rixg-okU (SB.reg SB.barrier) iv rx o@(inj₂ (_ , _ , eu)) (inj₁ e0) iv' = rixg-P (SB.reg SB.barrier) iv rx o e0 eu iv'
rixg-okU (SB.reg SB.barrier) iv rx (inj₂ (_ , _ , eu)) (inj₂ ne) iv' = ⊥-elim (ne eu)
rixg-okU SB.flush iv rx o@(_ , eu) (inj₁ e0) iv' = rixg-P SB.flush iv rx o e0 eu iv'
rixg-okU SB.flush iv rx (_ , eu) (inj₂ ne) iv' = ⊥-elim (ne eu)
