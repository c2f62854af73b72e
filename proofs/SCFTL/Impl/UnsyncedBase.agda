{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: the part of P's representation invariant
-- that recovery over the unsynced epochs needs, for PU.  P's RI has
-- every committed region page synced (`regEq`) and the committed part
-- replaying to the stable L2P (`cmX`) with nothing pending of the
-- current epoch (`cmP`).  With unsynced epochs only the part below them,
-- the pages the last SYNC left, is durable; `BI` says of it what `cmX`
-- and `cmP` say of P's committed part:
--
--   BI           the live checkpoint slot holds (generation, C); the
--                region is the open epoch's tentative pages on the
--                unsynced epochs (`lay`) on the durable part prM
--                (LayM with its durable part named); replaying prM from
--                C gives the stable L2P (`rx`), with no pending page of
--                the first unsynced epoch's id (or of the open epoch's,
--                if none) on top (`rf`)
--   bi-ok        every normal-operation step of PU keeps BI (with VM of
--                SCFTL.Impl.UnsyncedImages): write and GC leave it
--                alone, the barrier without SYNC appends its epoch above
--                the durable part, and every flush of P (one-SYNC commit,
--                with or without the full checkpoint, in-page and OOB
--                commits with their consolidation page) makes the whole
--                region durable, which then replays to the new stable
--                L2P (`commit-replay`: the region's replay is the stable
--                L2P, each unsynced epoch's map, the open epoch's pairs,
--                the committed page's)
--   bi-base      BI gives UnsyncedImages' `Base` for the durable part
--                and the checkpoint's map
--   recU-crash-mapBI
--                for such a crash, the one parse of the crashed region and
--                the map its replay rebuilds: the k-th unsynced epoch's
--                (k = 0 the stable L2P), at the level of pages
--   recU-crash-readsBI
--                so, for every state of PU's normal operation with the
--                invariants (BI, GhAll), a crash and then recovery from
--                the live checkpoint's map: recovery accepts k unsynced
--                epochs as written, `candAt t k` is one of SB's
--                candidates `stable ∷ pend`, and the L2P it rebuilds
--                reads it on the crashed data pages — formula (4) for the
--                barrier without SYNC, with no assumption left
--
-- NOT proven here: that recovery picks that checkpoint slot (P's RI's
-- `slotO`, the older shadow slot) and finds the split at the last SYNC
-- (the after-sync flag, not modelled: `ParseS` takes it as given), the
-- in-page/OOB record walk on top of the accepted region (`chn`), the
-- state recovery builds and the full checkpoint it writes (a recovery
-- STEP of PU), CR, type B, Theorem 1 and SC1B for PU.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBase (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                               (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (<⇒≱)
open import Data.Empty using (⊥) renaming (⊥-elim to ⊥-elim′)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; take; concat)
open import Data.List.Properties using (++-assoc; map-++-commute)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (_≐_)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp; lay; rpE; rp-++; rp-lay)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_
  using (E; ue; tents; CrashEs)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; okU; flB; epE; flushOp; LayM; ARU; Syn; all-sync; lay-bar;
         cur-uns; lay-++; crashL-++; crashL-syn; crashRs; crashRs-++; crashEs)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_
  using (nth-∈; candAt; recRS; ParseS; tents-skip)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_
  using (eM; eid; rbase-same; ue-rp; tents-rp; rstep-c; apply-≐; eM-≐; lastMap; VM; GhU; Fresh; Base;
         GhAll; A-ghostAll; rpE-map; mapAt-≐; mapAt; crash-ver; crashRead; stable-crash; crashOOB; stable-oob; VerK)
open import SCFTL.Impl.BarrierOps Data d0 amax wmax umax using (oS)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The invariant

-- the id whose pending pages must not sit on top of the durable part:
-- the first unsynced epoch's, else the open epoch's
fid : List E → ℕ → ℕ
fid []      x = x
fid (e ∷ _) x = eid e

DrEq : St → List E → List MC → Set
DrEq s es prM = dr s ≡ map (uns erased) (tents (gen s) (ep s) (ept s) ++ lay (map (ue (gen s)) es) []) ++ prM

record BI (s : St) (es : List E) : Set where
  constructor bi
  field
    C   : Map
    prM : List MC
    slt : cpL s ≡ syn (cpt (gen s) C)
    dre : DrEq s es prM
    sy  : All Syn prM
    rx  : proj₁ (rp (gen s) (map cur prM) (st0 C)) ≐ smap s
    rf  : rbase (fid es (ep s)) (rp (gen s) (map cur prM) (st0 C)) ≡ proj₁ (rp (gen s) (map cur prM) (st0 C))

bi-lay : ∀ {s es} → BI s es → LayM s es
bi-lay (bi C prM slt dre sy rx rf) = prM , dre , sy

fresh-of : ∀ es x R → rbase (fid es x) R ≡ proj₁ R → Fresh es R
fresh-of []      x R _ = tt
fresh-of (e ∷ _) x R h = h

-- BI gives the base UnsyncedImages assumes
bi-base : ∀ {s} (b : BI (st s) (ues s)) → Base s (map cur (BI.prM b)) (st0 (BI.C b))
bi-base {s} (bi C prM slt dre sy rx rf) = rx , fresh-of (ues s) (ep (st s)) _ rf

------------------------------------------------------------------------
-- Steps that leave the checkpoint, the durable part and the stable L2P

bi-same : ∀ {s s' es} → cpL s' ≡ cpL s → gen s' ≡ gen s → smap s' ≡ smap s → ep s' ≡ ep s →
          (∀ prM → DrEq s es prM → DrEq s' es prM) → BI s es → BI s' es
bi-same {s} {s'} {es} e1 e2 e3 e4 hd (bi C prM slt dre sy rx rf) =
  bi C prM (trans e1 (trans slt (cong (λ g → syn (cpt g C)) (sym e2)))) (hd prM dre) sy
     (λ a → trans (cong (λ g → proj₁ (rp g (map cur prM) (st0 C)) a) e2) (trans (rx a) (cong (λ m → m a) (sym e3))))
     (rf′ e2 e4 rf)
  where
    rf′ : ∀ {g g' x x'} → g' ≡ g → x' ≡ x →
          rbase (fid es x) (rp g (map cur prM) (st0 C)) ≡ proj₁ (rp g (map cur prM) (st0 C)) →
          rbase (fid es x') (rp g' (map cur prM) (st0 C)) ≡ proj₁ (rp g' (map cur prM) (st0 C))
    rf′ refl refl h = h

private
  opt-eqs : ∀ f1 f2 u → cpL (opt f1 f2 u) ≡ cpL u × gen (opt f1 f2 u) ≡ gen u × smap (opt f1 f2 u) ≡ smap u × ep (opt f1 f2 u) ≡ ep u
  opt-eqs false false u = refl , refl , refl , refl
  opt-eqs true  false u = refl , refl , refl , refl
  opt-eqs false true  u = refl , refl , refl , refl
  opt-eqs true  true  u = refl , refl , refl , refl

  dre-opt : ∀ f1 f2 u es prM → DrEq u es prM → DrEq (opt f1 f2 u) es prM
  dre-opt false false u es prM d = d
  dre-opt true  false u es prM d = d
  dre-opt false true  u es prM d = cong (uns erased (dlt (gen u) (ep u) (dbuf u) false ε) ∷_) d
  dre-opt true  true  u es prM d = cong (uns erased (dlt (gen u) (ep u) (dbuf u) false ε) ∷_) d

  bi-opt : ∀ f1 f2 u es → BI u es → BI (opt f1 f2 u) es
  bi-opt f1 f2 u es b with opt-eqs f1 f2 u
  ... | e1 , e2 , e3 , e4 = bi-same e1 e2 e3 e4 (dre-opt f1 f2 u es) b

  -- a step whose state agrees with s on the checkpoint slots, the region,
  -- the generation, the stable L2P, the epoch and its tentative pages
  bi-id : ∀ {s s' es} → BI s es → (∀ prM → DrEq s es prM → DrEq s' es prM) →
          cpL s' ≡ cpL s → gen s' ≡ gen s → smap s' ≡ smap s → ep s' ≡ ep s → BI s' es
  bi-id b hd e1 e2 e3 e4 = bi-same e1 e2 e3 e4 hd b

fid-snoc : ∀ es e y → fid (es ++ e ∷ []) y ≡ fid es (eid e)
fid-snoc []       e y = refl
fid-snoc (e′ ∷ _) e y = refl

-- the barrier without SYNC: its epoch goes above the durable part
bi-flB : ∀ s es → BI s es → BI (flB s) (es ++ epE s ∷ [])
bi-flB s es (bi C prM slt dre sy rx rf) =
  bi C prM slt
     (trans (cong (uns erased (proj₁ (ue (gen s) (epE s))) ∷_) dre)
            (cong (λ z → map (uns erased) z ++ prM) (sym (lay-bar (gen s) es (epE s)))))
     sy rx
     (subst (λ z → rbase z (rp (gen s) (map cur prM) (st0 C)) ≡ proj₁ (rp (gen s) (map cur prM) (st0 C)))
            (sym (fid-snoc es (epE s) (suc (ep s)))) rf)

------------------------------------------------------------------------
-- A commit: the region with the committed page on top replays to the
-- volatile L2P

rpE-last : ∀ g es mt y → rbase (fid es y) mt ≡ proj₁ mt → rbase y (rpE g (map (ue g) es) mt) ≡ lastMap (proj₁ mt) es
rpE-last g []                            mt y h = h
rpE-last g ((x , ps , dd , pss , L) ∷ es) mt y h =
  trans (cong (λ r → rbase y (rpE g (map (ue g) es) r)) (ue-rp g e mt))
   (trans (rpE-last g es (M′ , x , M′) y (rbase-same (fid es y) M′ x))
          (cong (λ M → lastMap (eM e M) es) h))
  where
    e = (x , ps , dd , pss , L)
    M′ = eM e (rbase x mt)

lastMap-≐ : ∀ {M M'} → M ≐ M' → ∀ es → lastMap M es ≐ lastMap M' es
lastMap-≐ e []       = e
lastMap-≐ e (x ∷ es) = lastMap-≐ (eM-≐ x e) es

private
  region-eq : ∀ {s es} (b : BI s es) →
    map cur (dr s) ≡ tents (gen s) (ep s) (ept s) ++ lay (map (ue (gen s)) es) (map cur (BI.prM b))
  region-eq {s} {es} (bi C prM slt dre sy rx rf) =
    trans (cong (map cur) dre)
     (trans (cur-uns (T ++ L) prM)
      (trans (++-assoc T L (map cur prM))
             (cong (T ++_) (lay-++ (map (ue (gen s)) es) [] (map cur prM)))))
    where
      T = tents (gen s) (ep s) (ept s)
      L = lay (map (ue (gen s)) es) []

commit-replay : ∀ {s es} (b : BI s es) → VM s es → ∀ dg cs → cs ≡ dlt (gen s) (ep s) (dbuf s) true dg ∷ map cur (dr s) →
  (proj₁ (rp (gen s) cs (st0 (BI.C b))) ≐ l2p s) × (∀ y → rbase y (rp (gen s) cs (st0 (BI.C b))) ≡ proj₁ (rp (gen s) cs (st0 (BI.C b))))
commit-replay {s} {es} b@(bi C prM slt dre sy rx rf) vm dg cs refl =
  (λ a → trans (cong (λ r → proj₁ r a) eqR) (trans (cong (λ M → apply (dbuf s) M a) eqN) (sym (trans (vm a) (apply-≐ (dbuf s) (apply-≐ (concat (ept s)) (lastMap-≐ (λ b′ → sym (rx b′)) es)) a))))) ,
  (λ y → trans (cong (rbase y) eqR) (trans (rbase-same y N (ep s)) (sym (cong proj₁ eqR))))
  where
    g = gen s
    pr = map cur prM
    R0 = rp g pr (st0 C)
    R1 = rpE g (map (ue g) es) R0
    R2 = rp g (tents g (ep s) (ept s)) R1
    N = apply (dbuf s) (rbase (ep s) R2)
    eq2 : rp g (map cur (dr s)) (st0 C) ≡ R2
    eq2 = trans (cong (λ z → rp g z (st0 C)) (region-eq b))
           (trans (rp-++ g (tents g (ep s) (ept s)) (lay (map (ue g) es) pr) (st0 C))
                  (cong (rp g (tents g (ep s) (ept s))) (rp-lay g (map (ue g) es) pr (st0 C))))
    eqR : rp g (dlt g (ep s) (dbuf s) true dg ∷ map cur (dr s)) (st0 C) ≡ (N , ep s , N)
    eqR = trans (cong (rstep g (dlt g (ep s) (dbuf s) true dg)) eq2) (rstep-c g (ep s) (dbuf s) dg R2)
    eqN : rbase (ep s) R2 ≡ apply (concat (ept s)) (lastMap (proj₁ R0) es)
    eqN = trans (proj₂ (tents-rp g (ep s) (ept s) R1)) (cong (apply (concat (ept s))) (rpE-last g es R0 (ep s) rf))

private
  cur-sync : ∀ xs → map cur (map sync xs) ≡ map cur xs
  cur-sync []       = refl
  cur-sync (x ∷ xs) = cong (cur x ∷_) (cur-sync xs)

  -- a commit that leaves the region durable
  bi-commit : ∀ {s es s'} (b : BI s es) → VM s es → ∀ dg →
    (∀ c → cpL s ≡ syn c → cpL s' ≡ syn c) → gen s' ≡ gen s → smap s' ≡ l2p s → ept s' ≡ [] → All Syn (dr s') →
    map cur (dr s') ≡ dlt (gen s) (ep s) (dbuf s) true dg ∷ map cur (dr s) → BI s' []
  bi-commit {s} {es} {s'} b vm dg e1 e2 e3 e4 sy′ ec with commit-replay b vm dg (map cur (dr s')) ec
  ... | rx′ , rf′ =
    bi (BI.C b) (dr s') (trans (e1 _ (BI.slt b)) (cong (λ g → syn (cpt g (BI.C b))) (sym e2)))
       (cong (λ w → map (uns erased) (tents (gen s') (ep s') w ++ []) ++ dr s') (sym e4))
       sy′
       (λ a → trans (cong (λ g → proj₁ (rp g (map cur (dr s')) (st0 (BI.C b))) a) e2) (trans (rx′ a) (cong (λ m → m a) (sym e3))))
       (subst (λ g → rbase (ep s') (rp g (map cur (dr s')) (st0 (BI.C b))) ≡ proj₁ (rp g (map cur (dr s')) (st0 (BI.C b))))
              (sym e2) (rf′ (ep s')))

  -- a full checkpoint: an empty region over the checkpointed L2P
  bi-ck : ∀ x → smap x ≡ l2p x → ept x ≡ [] → BI (ck3 x) []
  bi-ck x e1 e2 =
    bi (l2p x) [] refl (cong (λ w → [] ≡ map (uns erased) (tents (suc (gen x)) (ep x) w ++ []) ++ []) e2 ⟨$⟩ refl) []
       (λ a → cong (λ m → m a) (sym e1)) (rbase-same (ep x) (l2p x) 0)
    where
      _⟨$⟩_ : ∀ {A B : Set} → A ≡ B → B → A
      refl ⟨$⟩ y = y

-- every flush of P (and the forced barrier) makes the region durable
bi-flush : ∀ {s s' es} → okP (oS flushOp) s s' → BI s es → VM s es → BI s' []
bi-flush {s} (inj₁ refl) b vm =
  bi-commit b vm (dgOf s) (λ c e → cong sync e) refl refl refl (all-sync (dr (fl2 s)))
    (cur-sync (dr (fl2 s)))
bi-flush {s} (inj₂ (inj₁ refl)) b vm = bi-ck (fl3 s) refl refl
bi-flush {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) b vm = bi-ck (fi3 L s) refl refl
bi-flush {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) b vm =
  bi-commit b vm (dgOf s) (λ c e → cong (λ m → sync (sync m)) e) refl refl refl (all-sync (dr (fiK L s)))
    (trans (cur-sync (dr (fiK L s))) (cong (rec s ∷_) (cur-sync (dr s))))
bi-flush {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) b vm = bi-ck (fi3 M s) refl refl
bi-flush {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) b vm =
  bi-commit b vm (dgOf s) (λ c e → cong (λ m → sync (sync m)) e) refl refl refl (all-sync (dr (fiK M s)))
    (trans (cur-sync (dr (fiK M s))) (cong (rec s ∷_) (cur-sync (dr s))))

------------------------------------------------------------------------
-- Every normal-operation step of PU keeps BI

private
  bi-ues : ∀ {s s' : StU} → ues s' ≡ ues s → BI (st s') (ues s) → BI (st s') (ues s')
  bi-ues {s} {s'} e b = subst (BI (st s')) (sym e) b

  bi-at : ∀ {u v : St} {es} → v ≡ u → BI u es → BI v es
  bi-at refl b = b

bi-ok : ∀ u {s t s'} → BI (st s) (ues s) → GhU s t → okU u s s' → BI (st s') (ues s')
bi-ok (SB.reg (SB.op (SB.w a d))) {s} {t} {s'} b gh (inj₁ (_ , f1 , f2 , e) , eu) =
  bi-ues {s} {s'} eu (bi-at e (bi-opt f1 f2 (wr0 a d (st s)) (ues s) (bi-id b (λ _ x → x) refl refl refl refl)))
bi-ok (SB.reg (SB.op (SB.w a d))) {s} {t} {s'} b gh (inj₂ (_ , e) , eu) =
  bi-ues {s} {s'} eu (bi-at e b)
bi-ok (SB.reg (SB.op SB.rl)) {s} {t} {s'} b gh (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e)) , eu) =
  bi-ues {s} {s'} eu (bi-at e (bi-opt f1 f2 (rl0 p (st s)) (ues s) (bi-id b (λ _ x → x) refl refl refl refl)))
bi-ok (SB.reg (SB.op SB.rl)) {s} {t} {s'} b gh (inj₁ (_ , p , _ , inj₂ (_ , e)) , eu) =
  bi-ues {s} {s'} eu (bi-at e (bi-id b (λ _ x → x) refl refl refl refl))
bi-ok (SB.reg (SB.op SB.rl)) {s} {t} {s'} b gh (inj₂ (_ , e) , eu) =
  bi-ues {s} {s'} eu (bi-at e b)
bi-ok (SB.reg (SB.op SB.es)) {s} {t} {s'} b gh ((p , _ , e) , eu) =
  bi-ues {s} {s'} eu (bi-at e (bi-id b (λ _ x → x) refl refl refl refl))
bi-ok (SB.reg SB.barrier) {s} b gh (inj₁ (_ , refl)) = bi-flB (st s) (ues s) b
bi-ok (SB.reg SB.barrier) {s} {t} {s'} b gh (inj₂ (o , eu)) =
  subst (BI (st s')) (sym eu) (bi-flush o b (proj₂ gh))
bi-ok SB.flush {s} {t} {s'} b gh (o , eu) =
  subst (BI (st s')) (sym eu) (bi-flush o b (proj₂ gh))

------------------------------------------------------------------------
-- Formula (4) for the barrier without SYNC, with no assumption left

-- a crash of a normal PU state with BI: the one parse of the crashed
-- region over the durable part, the number k of unsynced epochs it
-- accepts, and the map recovery replays from the live checkpoint: the
-- k-th unsynced epoch's map (`mapAt`; k = 0 the stable L2P), on every
-- address (at the level of pages, which SCFTL.Impl.OneModelRecMaps uses)
recU-crash-mapBI : ∀ {s s'} (b : BI (st s) (ues s)) → Img (st s) s' →
  let g = gen (st s) ; D = λ p → cur (dat s' p) ; pr = map cur (BI.prM b) ; mt = st0 (BI.C b) in
  Σ (List Cell) λ T → Σ (List UEp) λ es' → Σ ℕ λ k →
    CrashEs g (ues s) es' × ParseS (map cur (dr s')) T es' pr ×
    k ≤ length (ues s) × VerK D (ues s) k ×
    (∀ a → proj₁ (recRS g D es' pr mt) a ≡ mapAt (smap (st s)) (ues s) k a)
recU-crash-mapBI {s} {s'} b@(bi C prM slt dre sy rx rf) (cd , _ , _ , cl , _) =
  T′ , es' , k , ces ,
  (trans (cong (map cur) d)
    (trans (map-++-commute cur A B)
     (trans (cong₂ _++_ (trans d2 (cong (T′ ++_) la)) (cong (map cur) (crashL-syn sy cb)))
      (trans (++-assoc T′ (lay es' []) (map cur prM))
             (cong (T′ ++_) (lay-++ es' [] (map cur prM)))))) ,
   tents-skip (gen (st s)) (ep (st s)) (ept (st s)) ct) ,
  kl , vs , eqM
  where
    -- the crash lemmas' results, by projections (no `with` over this clause)
    X1 = crashL-++ (map (uns erased) (tents (gen (st s)) (ep (st s)) (ept (st s)) ++ lay (map (ue (gen (st s))) (ues s)) []))
                   (subst (λ w → CrashL w (dr s')) dre cl)
    A  = proj₁ X1
    B  = proj₁ (proj₂ X1)
    d  = proj₁ (proj₂ (proj₂ X1))
    ca = proj₁ (proj₂ (proj₂ (proj₂ X1)))
    cb = proj₂ (proj₂ (proj₂ (proj₂ X1)))
    X2 = crashRs-++ (tents (gen (st s)) (ep (st s)) (ept (st s)))
                    (crashRs (tents (gen (st s)) (ep (st s)) (ept (st s)) ++ lay (map (ue (gen (st s))) (ues s)) []) ca)
    T′ = proj₁ X2
    d2 = proj₁ (proj₂ (proj₂ X2))
    ct = proj₁ (proj₂ (proj₂ (proj₂ X2)))
    cL = proj₂ (proj₂ (proj₂ (proj₂ X2)))
    X3 = crashEs (gen (st s)) (ues s) cL
    es' = proj₁ X3
    ces = proj₁ (proj₂ X3)
    la  = proj₂ (proj₂ X3)
    X4 = crash-ver (gen (st s)) (λ p → cur (dat s' p)) (ues s) es' (map cur prM) (map cur prM) ces (λ _ → refl) (st0 C)
    k  = proj₁ X4
    kl = proj₁ (proj₂ X4)
    r  = proj₁ (proj₂ (proj₂ X4))
    vs = proj₂ (proj₂ (proj₂ X4))
    g = gen (st s)
    fr : Fresh (ues s) (rp g (map cur prM) (st0 C))
    fr = fresh-of (ues s) (ep (st s)) _ rf
    eqM : ∀ a → proj₁ (recRS g (λ p → cur (dat s' p)) es' (map cur prM) (st0 C)) a ≡ mapAt (smap (st s)) (ues s) k a
    eqM a = trans (cong (λ M → M a) (trans (cong proj₁ r) (rpE-map g (ues s) (rp g (map cur prM) (st0 C)) fr k)))
                  (mapAt-≐ rx (ues s) k a)

recU-crash-readsBI : ∀ {s t s'} (b : BI (st s) (ues s)) → ARU s t → GhAll s t → Img (st s) s' →
  let g = gen (st s) ; D = λ p → cur (dat s' p) ; pr = map cur (BI.prM b) ; mt = st0 (BI.C b) in
  Σ (List Cell) λ T → Σ (List UEp) λ es' → Σ ℕ λ k →
    CrashEs g (ues s) es' × ParseS (map cur (dr s')) T es' pr ×
    k ≤ length (SB.pend t) × candAt t k ∈ SB.stable t ∷ SB.pend t ×
    (∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS g D es' pr mt) a) ≡ candAt t k a) ×
    (∀ a p → a ≤ amax → proj₁ (recRS g D es' pr mt) a ≡ just p → oob (cur (dat s' p)) ≡ a)
recU-crash-readsBI {s} {t} {s'} b@(bi C prM slt dre sy rx rf) (av , sa) (gc , sm , (gl , vm) , dl , syi) img@(cd , _ , _ , cl , _) =
  T′ , es' , k , ces , prs , kle , nth-∈ (SB.stable t) (SB.pend t) k kle , rd′ , ob′
  where
    R   = recU-crash-mapBI {s} {s'} b img
    T′  = proj₁ R
    es' = proj₁ (proj₂ R)
    k   = proj₁ (proj₂ (proj₂ R))
    R1  = proj₂ (proj₂ (proj₂ R))
    ces = proj₁ R1
    prs = proj₁ (proj₂ R1)
    kl  = proj₁ (proj₂ (proj₂ R1))
    vs  = proj₁ (proj₂ (proj₂ (proj₂ R1)))
    eqM = proj₂ (proj₂ (proj₂ (proj₂ R1)))
    kle : k ≤ length (SB.pend t)
    kle = subst (k ≤_) (proj₂ (proj₂ av)) kl
    rd′ : ∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS (gen (st s)) (λ p → cur (dat s' p)) es' (map cur prM) (st0 C)) a) ≡ candAt t k a
    rd′ a le =
      trans (cong (rdD (dat s')) (eqM a))
            (crashRead (st s) (dat s') (smap (st s)) (ues s) (SB.pend t) (SB.stable t) sa
               (stable-crash {s} {t} (dat s') sa syi cd) gl dl k kle vs a le)
    ob′ : ∀ a p → a ≤ amax → proj₁ (recRS (gen (st s)) (λ p → cur (dat s' p)) es' (map cur prM) (st0 C)) a ≡ just p →
          oob (cur (dat s' p)) ≡ a
    ob′ a p le q = crashOOB (dat s') (smap (st s)) (ues s) (SB.pend t) (stable-oob {st s} (dat s') syi cd) dl k vs a p le
                     (trans (sym (eqM a)) q)

------------------------------------------------------------------------
-- Type A for every normal operation of PU against SB with all the
-- invariants: the abstraction relation ARU, the ghost images (GhAll)
-- and BI

A-PU : ∀ u {s t s'} → ARU s t → GhAll s t → BI (st s) (ues s) → okU u s s' →
       Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARU s' t' × GhAll s' t' × BI (st s') (ues s')
A-PU u {s} {t} {s'} ar ga b o =
  let G = A-ghostAll u {s} {t} {s'} ar ga o in
  proj₁ G , proj₁ (proj₂ G) , proj₁ (proj₂ (proj₂ G)) , proj₂ (proj₂ (proj₂ G)) , bi-ok u {s} {t} {s'} b (proj₁ (proj₂ (proj₂ ga))) o
