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

open import Data.Nat.Base using (zero; suc; _≤_; _<_; s≤s; z≤n)
open import Data.Nat.Properties using (≤-refl; ≤-step; ≤-trans; <⇒≢)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; _++_; map; concat)
open import Data.List.Properties using (++-cancelˡ; ++-assoc)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ as Lm
open Lm using (CmV; lkTop; pend; cmv-mono; Ent; map-cur-sync) renaming (All to AllL; [] to []L; _∷_ to _∷L_)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (LkHd)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (E; ue; tents)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (lay)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; okU; okReg; flB; epE; lay-bar; SmI; flushOp)
open import SCFTL.Impl.BarrierOps Data d0 amax wmax umax using (oS)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; fid; fid-snoc; DrEq)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (Ok; GhL; GhU; VM; eM; eid; ddOf; lastMap)
open import Data.Unit.Base using (⊤; tt)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedBridge Data d0 amax wmax kmax umax _≟D_
  using (RIx; RIxU; biOf; rix-okU; oob-dcell; slot-unique)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (GcI; cur-uns)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rc-sync; rc-step; rc-cur)
open import SCFTL.Impl.Regular Data d0 amax wmax kmax _≟D_ using (cur-progm)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (Tp; verT-T; digD-ent; lkTop-hd; just-snd)
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

------------------------------------------------------------------------
-- What RI will ask of an unsynced epoch once a SYNC makes it durable:
-- its digest's entries are in its map and on their pages (`Dig`), the
-- next epoch's id is its own plus one (`EpC`), no record at or past
-- its link (`AbC`: recovery's walk and an in-page commit go there)

Dig : St → Map → List E → Set
Dig s M []       = ⊤
Dig s M (e ∷ es) = AllL (Ent (eM e M) (λ p → sync (dat s p))) (ddOf e) × Dig s (eM e M) es

EpC : List E → ℕ → Set
EpC []       y = ⊤
EpC (e ∷ es) y = fid es y ≡ suc (eid e) × EpC es y

lkE : E → ℕ
lkE (_ , _ , _ , _ , L) = L

AbC : ℕ → (ℕ → Cell) → List E → Set
AbC g R []       = ⊤
AbC g R (e ∷ es) = Above g R (lkE e) × AbC g R es

record RIe (s : St) (es : List E) : Set where
  constructor rie
  field
    dig : Dig s (smap s) es
    epc : EpC es (ep s)
    abc : AbC (gen s) (λ p → cur (rcd s p)) es

rie-nil : ∀ s → RIe s []
rie-nil s = rie tt tt tt

dig-snoc : ∀ s M es e → Dig s M es → AllL (Ent (eM e (lastMap M es)) (λ p → sync (dat s p))) (ddOf e) →
           Dig s M (es ++ e ∷ [])
dig-snoc s M []       e tt       n = n , tt
dig-snoc s M (x ∷ es) e (d , r)  n = d , dig-snoc s (eM x M) es e r n

epc-snoc : ∀ es e → EpC es (eid e) → EpC (es ++ e ∷ []) (suc (eid e))
epc-snoc []        e tt      = refl , tt
epc-snoc (e′ ∷ es) e (h , c) = trans (fid-snoc es e (suc (eid e))) h , epc-snoc es e c

abc-snoc : ∀ g R es e → AbC g R es → Above g R (lkE e) → AbC g R (es ++ e ∷ [])
abc-snoc g R []       e tt      a = a , tt
abc-snoc g R (x ∷ es) e (h , c) a = h , abc-snoc g R es e c a

-- a step that keeps the pages every unsynced epoch's map names
dig-keep : ∀ {s s'} M es xs → GhL s M es xs → (∀ p → Ok s p → dat s' p ≡ dat s p) → Dig s M es → Dig s' M es
dig-keep M []       []       _         k tt       = tt
dig-keep {s} {s'} M (e ∷ es) (X ∷ xs) (gd , gl) k (ds , dg) = ents (ddOf e) ds , dig-keep (eM e M) es xs gl k dg
  where
    ents : ∀ dd → AllL (Ent (eM e M) (λ p → sync (dat s p))) dd → AllL (Ent (eM e M) (λ p → sync (dat s' p))) dd
    ents []                 []L               = []L
    ents ((p , d , a) ∷ dd) ((le , me , de) ∷L r) =
      (le , me , trans (cong sync (k p (proj₂ (gd a le) p me))) de) ∷L ents dd r
dig-keep M []       (_ ∷ _)  () k _
dig-keep M (_ ∷ _)  []       () k _

Hold : St → List E → Map → List MC → Set
Hold s es C prM = cpL s ≡ syn (cpt (gen s) C) × DrEq s es prM × RIxG s es C (map cur prM)

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
-- Steps between states with no epoch unsynced

private
  smI : ∀ {s t} → Inv′ s t → SmI (st s)
  smI iv = proj₁ (proj₂ (proj₁ (proj₂ (proj₁ iv))))

  ues-eq : ∀ {s s' : StU} {C prM} → ues s' ≡ ues s → Hold (st s') (ues s) C prM → Hold (st s') (ues s') C prM
  ues-eq {s} {s'} {C} {prM} e h = subst (λ z → Hold (st s') z C prM) (sym e) h

-- from no epoch unsynced to none: P's step (`rix-okU`)
rixg-P : ∀ u {s t s' t'} (iv : Inv′ s t) → RIxGU iv → okU u s s' → ues s ≡ [] → ues s' ≡ [] →
         (iv' : Inv′ s' t') → RIxGU iv'
rixg-P u {⟪ s , .[] ⟫} {t} {⟪ s' , .[] ⟫} iv x o refl refl iv' = rixg-x (rix-okU u iv (x-rixg x) o iv')

------------------------------------------------------------------------
-- The flush from unsynced epochs: the barriers' pages become durable
-- under the flush's committed page; what RI asks of the new committed
-- part is about its top page (the new commit: its digest over the
-- volatile L2P's pages, now durable, its check of the open epoch's
-- tentative pages right below it, its link at the active pointer), so
-- the barriers' pages below need nothing but their place.  No in-page or
-- OOB commit: a barrier drops the link (`lkOK`).

-- the tentative pages an epoch lays out are the ones emitT writes
tents-T : ∀ g x pss → tents g x pss ≡ map (Tp g x) pss
tents-T g x []         = refl
tents-T g x (ps ∷ pss) = cong (Tp g x ps ∷_) (tents-T g x pss)

private
  -- the region under the flush's page starts with the open epoch's
  -- tentative pages
  region-T : ∀ {s es prM} → DrEq s es prM →
             map cur (dr s) ≡ map (Tp (gen s) (ep s)) (ept s) ++ (lay (map (ue (gen s)) es) [] ++ map cur prM)
  region-T {s} {es} {prM} d =
    trans (cong (map cur) d)
     (trans (cur-uns (T ++ L) prM)
      (trans (++-assoc T L (map cur prM))
             (cong (_++ (L ++ map cur prM)) (tents-T (gen s) (ep s) (ept s)))))
    where
      T = tents (gen s) (ep s) (ept s)
      L = lay (map (ue (gen s)) es) []

  -- the volatile L2P's pages, durable after the commit's SYNC
  ent-fl3 : ∀ {s} → GcI s → ∀ a p → a ≤ amax → l2p s a ≡ just p → dat (fl3 s) p ≡ syn (dcell (cellD (pv s p)) a)
  ent-fl3 {s} g a p le e = cong syn (trans (cur-progm (mb s p) (dat s p)) (oob-dcell (pv s p) le (GcI.oobI g a p le e)))

rix-fl3 : ∀ {s es C prM} → GcI s → DrEq s es prM → RIxG s es C (map cur prM) →
          RIx (fl3 s) C (map cur (dr (fl3 s)))
rix-fl3 {s} {es} {C} {prM} gi d x = record
  { cmP  = subst (λ z → pend z < suc (ep s)) (sym (Lm.rstep-commit g (ep s) (dbuf s) {dgOf s} R')) ≤-refl
  ; cmV  = inj₂ (ep s , dbuf s , dgOf s , refl ,
                 digD-ent s (dat (fl3 s)) (ent-fl3 {s} gi) (dbuf s ++ concat (ept s)) ,
                 subst (λ l → verT g (ep s) (ept s) l ≡ true) (sym (trans (map-cur-sync (dr s)) (region-T {s} {es} d)))
                       (verT-T g (ep s) (ept s) _))
  ; rcOK = rc-sync {rcd s} (RIxG.rcOK x)
  ; rcN  = RIxG.rcN x
  ; rcL  = λ y L e p le → RIxG.rcN x p (subst (_≤ p)
              (sym (just-snd (trans (sym (lkTop-hd g (ep s) (dbuf s) (digD s (dbuf s ++ concat (ept s))) (ept s) (nxt s) rest)) e)))
              le)
  ; lkOK = λ { L refl → ep s , dbuf s , digD s (dbuf s ++ concat (ept s)) , ept s , rest , refl , refl }
  }
  where
    g = gen s
    rest = map cur (map sync (dr s))
    R' = rp g rest (st0 C)

-- ... and with the full checkpoint after it: the new slot holds the
-- volatile L2P, the region is empty
rix-ck3fl3 : ∀ {s es C comm} → RIxG s es C comm → RIx (ck3 (fl3 s)) (l2p s) []
rix-ck3fl3 {s} x = record
  { cmP  = s≤s z≤n
  ; cmV  = _
  ; rcOK = rc-step {ck3 u} (rc-sync {λ p → sync (rcd u p)} (rc-sync {rcd u} rsy))
  ; rcN  = λ p _ → rc-cur {ck3 u} (rc-sync {λ p → sync (rcd u p)} (rc-sync {rcd u} rsy)) p
  ; rcL  = λ y L ()
  ; lkOK = λ L ()
  }
  where
    u = fl3 s
    rsy = rc-sync {rcd s} (RIxG.rcOK x)

private
  gcI : ∀ {s t} → Inv′ s t → GcI (st s)
  gcI iv = proj₁ (proj₁ (proj₂ (proj₁ iv)))

  -- a link only with no epoch unsynced
  no-link : ∀ {s es C comm L} → RIxG s es C comm → (es ≡ [] → ⊥) → lnk s ≡ just L → ⊥
  no-link x ne e = ne (proj₁ (RIxG.lkOK x _ e))

-- P's flush from a state with unsynced epochs keeps RIxG (RIx: none
-- is left)
hold-flush : ∀ {s s' es C prM} → GcI s → (es ≡ [] → ⊥) → okP (oS flushOp) s s' → Hold s es C prM →
             Σ Map λ C' → Σ (List MC) λ prM' → Hold s' [] C' prM'
hold-flush {s} gi ne (inj₁ refl) (slt , d , x) =
  _ , dr (fl3 s) , cong sync slt , refl , rixg-x (rix-fl3 gi d x)
hold-flush {s} gi ne (inj₂ (inj₁ refl)) (slt , d , x) =
  l2p s , [] , refl , refl , rixg-x (rix-ck3fl3 x)
hold-flush gi ne (inj₂ (inj₂ (inj₁ (L , (lk , _) , _)))) (_ , _ , x) = ⊥-elim (no-link x ne lk)
hold-flush gi ne (inj₂ (inj₂ (inj₂ (L , M , (lk , _) , _)))) (_ , _ , x) = ⊥-elim (no-link x ne lk)

------------------------------------------------------------------------
-- RIe across normal operation

private
  Eqs : St → St → Set
  Eqs s s' = gen s' ≡ gen s × ep s' ≡ ep s × smap s' ≡ smap s × (∀ p → rcd s' p ≡ rcd s p) ×
             (∀ p → Ok s p → dat s' p ≡ dat s p)

  eqs-opt : ∀ f1 f2 {s} u → gen u ≡ gen s → ep u ≡ ep s → smap u ≡ smap s → (∀ p → rcd u p ≡ rcd s p) →
            dat u ≡ dat s → (∀ p → Ok s p → mb u p ≡ nothing) → Eqs s (opt f1 f2 u)
  eqs-opt false false u eg ee es′ er refl mn = eg , ee , es′ , er , λ _ _ → refl
  eqs-opt true  false u eg ee es′ er refl mn = eg , ee , es′ , er , λ p o → cong (λ m → progm m (dat u p)) (mn p o)
  eqs-opt false true  u eg ee es′ er refl mn = eg , ee , es′ , er , λ _ _ → refl
  eqs-opt true  true  u eg ee es′ er refl mn = eg , ee , es′ , er , λ p o → cong (λ m → progm m (dat u p)) (mn p o)

  mb-pl : ∀ a d s p → Ok s p → mb (place a d s) p ≡ nothing
  mb-pl a d s p (lt , mbn , _) = trans (Lm.upd-other (mb s) (just (d , a)) (<⇒≢ lt)) mbn

  eqs-reg : ∀ x {s s'} → okReg x s s' → Eqs s s'
  eqs-reg (SB.w a d) {s} (inj₁ (_ , f1 , f2 , refl)) =
    eqs-opt f1 f2 {s} (wr0 a d s) refl refl refl (λ _ → refl) refl (mb-pl a d s)
  eqs-reg (SB.w a d) (inj₂ (_ , refl)) = refl , refl , refl , (λ _ → refl) , λ _ _ → refl
  eqs-reg SB.rl {s} (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , refl))) =
    eqs-opt f1 f2 {s} (rl0 p s) refl refl refl (λ _ → refl) refl (mb-pl (p2l s p) (cellD (pv s p)) s)
  eqs-reg SB.rl (inj₁ (_ , p , _ , inj₂ (_ , refl))) = refl , refl , refl , (λ _ → refl) , λ _ _ → refl
  eqs-reg SB.rl (inj₂ (_ , refl)) = refl , refl , refl , (λ _ → refl) , λ _ _ → refl
  eqs-reg SB.es {s} (q , er , refl) = refl , refl , refl , (λ _ → refl) , dd
    where
      dd : ∀ p → Ok s p → dat (esF q s) p ≡ dat s p
      dd p (_ , _ , ne) = Lm.upd-other (dat s) (put erased (dat s q))
                            (λ pq → ne (subst (λ z → ers s z ≡ true) (sym pq) er))
  eqs-reg SB.sy ()

  abc-ext : ∀ {g R R'} es → (∀ p → R' p ≡ R p) → AbC g R es → AbC g R' es
  abc-ext []       e tt      = tt
  abc-ext {g} (x ∷ es) e (h , c) = (λ p le → subst (RLt g) (sym (e p)) (h p le)) , abc-ext es e c

rie-reg : ∀ x {s s' es xs} → GhL s (smap s) es xs → okReg x s s' → RIe s es → RIe s' es
rie-reg x {s} {s'} {es} {xs} gl o (rie dg ec ab) with eqs-reg x o
... | eg , ee , esm , er , ed =
  rie (subst (λ M → Dig s' M es) (sym esm) (dig-keep (smap s) es xs gl ed dg))
      (subst (EpC es) (sym ee) ec)
      (subst (λ g → AbC g (λ p → cur (rcd s' p)) es) (sym eg) (abc-ext es (λ p → cong cur (er p)) ab))

rie-flB : ∀ {s es xs C comm} → GcI s → GhL s (smap s) es xs → VM s es → RIxG s es C comm → RIe s es →
          RIe (flB s) (es ++ epE s ∷ [])
rie-flB {s} {es} {xs} gi gl vm x (rie dg ec ab) =
  rie (dig-snoc (flB s) (smap s) es (epE s)
        (dig-keep (smap s) es xs gl (λ p o → cong (λ m → progm m (dat s p)) (proj₁ (proj₂ o))) dg)
        (conv (digD s (dbuf s ++ concat (ept s)))
              (digD-ent s (λ p → sync (dat (flB s) p)) (ent-fl3 {s} gi) (dbuf s ++ concat (ept s)))))
      (epc-snoc es (epE s) ec)
      (abc-snoc (gen s) (λ p → cur (rcd s p)) es (epE s) ab (RIxG.rcN x))
  where
    -- the epoch's map is the volatile L2P (VM)
    conv : ∀ dd → AllL (Ent (l2p s) (λ p → sync (dat (flB s) p))) dd →
           AllL (Ent (eM (epE s) (lastMap (smap s) es)) (λ p → sync (dat (flB s) p))) dd
    conv []                 []L                   = []L
    conv ((p , d , a) ∷ dd) ((le , me , de) ∷L r) = (le , trans (sym (vm a)) me , de) ∷L conv dd r

------------------------------------------------------------------------
-- Every step of PU keeps RIxG

-- RIxG with the unsynced epochs' part
RIy : ∀ {s t} → Inv′ s t → Set
RIy {s} iv = RIxGU iv × RIe (st s) (ues s)

private
  ghL : ∀ {s t} → Inv′ s t → GhL (st s) (smap (st s)) (ues s) (SB.pend t)
  ghL iv = proj₁ (proj₁ (proj₂ (proj₂ (proj₁ (proj₂ (proj₁ iv))))))

  vmI : ∀ {s t} → Inv′ s t → VM (st s) (ues s)
  vmI iv = proj₂ (proj₁ (proj₂ (proj₂ (proj₁ (proj₂ (proj₁ iv))))))

rixg-okU : ∀ u {s t s' t'} (iv : Inv′ s t) → RIy iv → okU u s s' → (iv' : Inv′ s' t') → RIy iv'
rixg-okU (SB.reg (SB.op x)) {s} {t} {s'} iv (rx , re) (o , eu) iv' =
  hold-to (ues-eq {s} {s'} eu (hold-reg x (smI iv) o (hold-of iv rx))) iv' ,
  subst (RIe (st s')) (sym eu) (rie-reg x (ghL iv) o re)
rixg-okU (SB.reg SB.barrier) iv (rx , re) (inj₁ (_ , refl)) iv' =
  hold-to (hold-flB (smI iv) (hold-of iv rx)) iv' , rie-flB (gcI iv) (ghL iv) (vmI iv) rx re
rixg-okU (SB.reg SB.barrier) {⟪ s , [] ⟫} {t} {⟪ s' , es' ⟫} iv (rx , _) o@(inj₂ (_ , refl)) iv' =
  rixg-P (SB.reg SB.barrier) iv rx o refl refl iv' , rie-nil s'
rixg-okU (SB.reg SB.barrier) {⟪ s , e ∷ es ⟫} {t} {⟪ s' , es' ⟫} iv (rx , _) (inj₂ (fo , refl)) iv' =
  (let (_ , _ , h) = hold-flush (gcI iv) (λ ()) fo (hold-of iv rx) in hold-to h iv') , rie-nil s'
rixg-okU SB.flush {⟪ s , [] ⟫} {t} {⟪ s' , es' ⟫} iv (rx , _) o@(_ , refl) iv' =
  rixg-P SB.flush iv rx o refl refl iv' , rie-nil s'
rixg-okU SB.flush {⟪ s , e ∷ es ⟫} {t} {⟪ s' , es' ⟫} iv (rx , _) (fo , refl) iv' =
  (let (_ , _ , h) = hold-flush (gcI iv) (λ ()) fo (hold-of iv rx) in hold-to h iv') , rie-nil s'

-- the barrier's flash, with or without the bound on unsynced epochs (the
-- flush's flash before its SYNC is the barrier's): RIxG and RIe of it
rixg-flB : ∀ {s t} (iv : Inv′ s t) → RIy iv →
  Hold (flB (st s)) (ues s ++ epE (st s) ∷ []) (BI.C (biOf iv)) (BI.prM (biOf iv)) × RIe (flB (st s)) (ues s ++ epE (st s) ∷ [])
rixg-flB iv (rx , re) = hold-flB (smI iv) (hold-of iv rx) , rie-flB (gcI iv) (ghL iv) (vmI iv) rx re
