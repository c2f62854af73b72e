{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: the IMAGES of PU's unsynced epochs.  The
-- replay state recovery reaches after k accepted epochs (UnsyncedRecovery:
-- `recU-cand`, k naming SB's k-th candidate by position) READS SB's k-th
-- candidate image, on a state of PU's normal operation.
--
--   eM, mapAt      the committed L2P an epoch leaves (its tentative
--                  pages' pairs, then its committed page's, over the map
--                  below it), and the one after the first k epochs
--   ue-rp, rpE-map the replay of an epoch as P writes it (`ue`) is that
--                  map; the replay of the first k epochs ends in
--                  `mapAt … k` (given `Fresh`: no pending tentative page
--                  of the first epoch's id below it)
--   GhD, GhL, VM, GhU
--                  the ghost invariant: SB's pending images ARE the ghost
--                  images of the unsynced epochs: the i-th map `mapAt`
--                  names pages below the active pointer, not in the merge
--                  buffer, not erasable, which hold SB's i-th pending
--                  image (`GhL`), and the volatile L2P is the last such
--                  map with the open epoch's pairs (`VM`)
--   gh-ok, A-ghost every normal-operation step of PU keeps GhU: type A
--                  against SB with ARU and GhU (ARU extended by SB's
--                  pending images), on top of `A-full`
--   read-at        the map after k epochs reads SB's k-th candidate
--                  (`candAt t k`: the stable image for k = 0)
--   recU-reads     so recovery from a state of PU's normal operation
--                  (`LayM`) accepts k epochs, k ≤ the number of SB's
--                  pending images, and, given the base (the part below
--                  the unsynced epochs replays to the stable L2P and is
--                  `Fresh`: in P that is RI's `cmX` and `cmP`, not proven
--                  for PU), its replay state's L2P reads SB's k-th
--                  candidate
--   DgI, DgL, SyI, digD-∈, dg-ok, syI-ok
--                  every pair an unsynced epoch's map keeps is in that
--                  epoch's digest with SB's image at its barrier (fixed
--                  at the barrier: P's `digD` lists every pair the
--                  volatile L2P keeps); the stable L2P's pages are
--                  durable; both kept by every normal step
--   crashRead, stable-crash, acc-ver, crash-ver
--                  after a crash the data pages of unsynced epochs hold
--                  anything, but an accepted epoch's digest verified, so
--                  the map after k ACCEPTED epochs reads SB's k-th
--                  candidate on the crashed pages
--   recU-crash-reads
--                  a crash of ANY normal PU state (open tentative pages
--                  included), then recovery: it accepts k epochs as
--                  written, k names one of SB's candidates, and (given
--                  the base) the L2P it rebuilds reads that candidate on
--                  the crashed flash: formula (4) for the barrier without
--                  SYNC, data pages included
--   GhAll, A-ghostAll
--                  all invariants together, type A for every normal step
--
-- NOT proven here: the base as an invariant of PU (P's RI with
-- unsynced epochs: the region below them replays to the stable L2P,
-- `cmX`, and holds no pending page of the next epoch's id, `cmP`), PU's
-- recovery as a step of its model (the map rebuilt, the checkpoint it
-- writes, the in-page/OOB records' walk, `Quiet`), CR, type B, Theorem 1
-- and SC1B for PU.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedImages (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                 (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≡ᵇ_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-step; <⇒≢; <⇒≱; _≟_; ≡ᵇ⇒≡)
open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Empty using (⊥) renaming (⊥-elim to ⊥-elim′)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; take; concat)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (Dec; does; yes; no)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (_≐_; ≐-upd; apply-++; ≡ᵇ-refl; upd-other; apply-src)
  renaming (_∈_ to _∈L_; here to hereL; there to thereL)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD; rdS)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_
  using (UEp; rpE; rp-++; accU; accB; ∧-fst; ∧-snd)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_
  using (E; ue; tents; CrashR; CrashRs; CrashEs; acc-epoch; ∧-r; []; _∷_)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; okU; flB; epE; flushOp; LayM; ARv; ARs; ARU; A-full;
         GcI; SmI; Free; len-mis₁; len-mis₂)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_
  using (nth; nth-∈; candAt; recRS; Parse; ParseS; recU-cand; recU-crash-open)
open import SCFTL.Impl.BarrierOps Data d0 amax wmax umax using (oS)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
import SCFTL.Impl.Regular Data d0 amax wmax kmax _≟D_ as Rg

------------------------------------------------------------------------
-- The replay of epochs as P writes them

-- the committed L2P an epoch leaves over the map M below it
eM : E → Map → Map
eM (x , ps , dd , pss , L) M = apply ps (apply (concat pss) M)

eid : E → ℕ
eid (x , _ , _ , _ , _) = x

-- the map after the first k epochs
mapAt : Map → List E → ℕ → Map
mapAt M es       zero    = M
mapAt M []       (suc k) = M
mapAt M (e ∷ es) (suc k) = mapAt (eM e M) es k

rbase-same : ∀ y M x → rbase y (M , x , M) ≡ M
rbase-same y M x with y ≡ᵇ x
... | true  = refl
... | false = refl

rbase-x : ∀ x M T → rbase x (M , x , T) ≡ T
rbase-x x M T rewrite ≡ᵇ-refl x = refl

rstep-t : ∀ g x ps d r → rstep g (dlt g x ps false d) r ≡ (proj₁ r , x , apply ps (rbase x r))
rstep-t g x ps d r rewrite ≡ᵇ-refl g = refl

rstep-c : ∀ g x ps d r → rstep g (dlt g x ps true d) r ≡ (apply ps (rbase x r) , x , apply ps (rbase x r))
rstep-c g x ps d r rewrite ≡ᵇ-refl g = refl

-- the tentative pages extend the pending map from the committed one
tents-rp : ∀ g x pss mt → proj₁ (rp g (tents g x pss) mt) ≡ proj₁ mt
                         × rbase x (rp g (tents g x pss) mt) ≡ apply (concat pss) (rbase x mt)
tents-rp g x []         mt = refl , refl
tents-rp g x (ps ∷ pss) mt with tents-rp g x pss mt
... | e1 , e2 =
  trans (cong proj₁ (rstep-t g x ps ε r)) e1 ,
  trans (cong (rbase x) (rstep-t g x ps ε r))
   (trans (rbase-x x (proj₁ r) (apply ps (rbase x r)))
    (trans (cong (apply ps) e2) (sym (apply-++ ps (concat pss) (rbase x mt)))))
  where r = rp g (tents g x pss) mt

-- an epoch as written replays to the map it leaves
ue-rp : ∀ g e mt → rp g (proj₁ (ue g e) ∷ proj₂ (ue g e)) mt ≡ (eM e (rbase (eid e) mt) , eid e , eM e (rbase (eid e) mt))
ue-rp g (x , ps , dd , pss , L) mt =
  trans (rstep-c g x ps (dd , pss , L) (rp g (tents g x pss) mt))
        (cong (λ M → (apply ps M , x , apply ps M)) (proj₂ (tents-rp g x pss mt)))

-- no pending tentative page of the first epoch's id below the epochs
Fresh : List E → RS → Set
Fresh []      mt = ⊤
Fresh (e ∷ _) mt = rbase (eid e) mt ≡ proj₁ mt

fresh-next : ∀ es M x → Fresh es (M , x , M)
fresh-next []      M x = tt
fresh-next (e ∷ _) M x = rbase-same (eid e) M x

-- the replay of the first k epochs ends in the map after them
rpE-map : ∀ g es mt → Fresh es mt → ∀ k → proj₁ (rpE g (take k (map (ue g) es)) mt) ≡ mapAt (proj₁ mt) es k
rpE-map g es       mt f zero    = refl
rpE-map g []       mt f (suc k) = refl
rpE-map g ((x , ps , dd , pss , L) ∷ es) mt f (suc k) =
  trans (cong (λ r → proj₁ (rpE g (take k (map (ue g) es)) r)) (ue-rp g e mt))
   (trans (rpE-map g es (M′ , x , M′) (fresh-next es M′ x) k)
          (cong (λ M → mapAt (eM e M) es k) f))
  where
    e = (x , ps , dd , pss , L)
    M′ = eM e (rbase x mt)

apply-≐ : ∀ ps {M M'} → M ≐ M' → apply ps M ≐ apply ps M'
apply-≐ []             e = e
apply-≐ ((a , p) ∷ ps) e = ≐-upd a (just p) (apply-≐ ps e)

eM-≐ : ∀ e {M M'} → M ≐ M' → eM e M ≐ eM e M'
eM-≐ (x , ps , dd , pss , L) e = apply-≐ ps (apply-≐ (concat pss) e)

mapAt-≐ : ∀ {M M'} → M ≐ M' → ∀ es k → mapAt M es k ≐ mapAt M' es k
mapAt-≐ e es       zero    = e
mapAt-≐ e []       (suc k) = e
mapAt-≐ e (x ∷ es) (suc k) = mapAt-≐ (eM-≐ x e) es k

------------------------------------------------------------------------
-- The ghost invariant: SB's pending images are the images the maps of
-- the unsynced epochs read

Arr : Set
Arr = ℕ → Data

-- a page a ghost map may name: below the active pointer, not in the
-- merge buffer, not erasable
Ok : St → ℕ → Set
Ok s p = p < nxt s × mb s p ≡ nothing × (ers s p ≡ true → ⊥)

-- the map M reads the image X on the flash of s
GhD : St → Map → Arr → Set
GhD s M X = ∀ a → a ≤ amax → rdD (dat s) (M a) ≡ X a × (∀ p → M a ≡ just p → Ok s p)

-- the i-th unsynced epoch's map reads the i-th image
GhL : St → Map → List E → List Arr → Set
GhL s M []       []       = ⊤
GhL s M (e ∷ es) (X ∷ xs) = GhD s (eM e M) X × GhL s (eM e M) es xs
GhL s M []       (_ ∷ _)  = ⊥
GhL s M (_ ∷ _)  []       = ⊥

lastMap : Map → List E → Map
lastMap M []       = M
lastMap M (e ∷ es) = lastMap (eM e M) es

-- the volatile L2P: the last epoch's map with the open epoch's pairs
VM : St → List E → Set
VM s es = l2p s ≐ apply (dbuf s) (apply (concat (ept s)) (lastMap (smap s) es))

-- PU's ghost invariant against SB's state
GhU : StU → SB.State → Set
GhU s t = GhL (st s) (smap (st s)) (ues s) (SB.pend t) × VM (st s) (ues s)

------------------------------------------------------------------------
-- Steps that keep every page a ghost map may name

record Keep (s s' : St) : Set where
  constructor kp
  field kf : ∀ p → Ok s p → Ok s' p × cur (dat s' p) ≡ cur (dat s p)
open Keep

keep-trans : ∀ {s u v} → Keep s u → Keep u v → Keep s v
keep-trans (kp k1) (kp k2) = kp λ p o → proj₁ (k2 p (proj₁ (k1 p o))) , trans (proj₂ (k2 p (proj₁ (k1 p o)))) (proj₂ (k1 p o))

GhD-keep : ∀ {s s' M X} → Keep s s' → GhD s M X → GhD s' M X
GhD-keep {s} {s'} {M} {X} k g a le = trans (rdk (M a) refl) (proj₁ (g a le)) , λ p e → proj₁ (kf k p (proj₂ (g a le) p e))
  where
    rdk : ∀ mp → M a ≡ mp → rdD (dat s') mp ≡ rdD (dat s) mp
    rdk nothing  _ = refl
    rdk (just p) e = cong cellD (proj₂ (kf k p (proj₂ (g a le) p e)))

GhL-keep : ∀ {s s'} → Keep s s' → ∀ M es xs → GhL s M es xs → GhL s' M es xs
GhL-keep k M []       []       _       = tt
GhL-keep k M (e ∷ es) (X ∷ xs) (d , l) = GhD-keep k d , GhL-keep k (eM e M) es xs l
GhL-keep k M []       (_ ∷ _)  ()
GhL-keep k M (_ ∷ _)  []       ()

GhD-≐ : ∀ {s M M' X} → M ≐ M' → GhD s M' X → GhD s M X
GhD-≐ {s} {M} {M'} {X} e g a le =
  trans (cong (rdD (dat s)) (e a)) (proj₁ (g a le)) , λ p e′ → proj₂ (g a le) p (trans (sym (e a)) e′)

private
  keep-place : ∀ a d s → Keep s (place a d s)
  keep-place a d s = kp λ { p (lt , mbn , ne) →
    (≤-step lt , trans (upd-other (mb s) (just (d , a)) (<⇒≢ lt)) mbn , ne) , refl }

  keep-wr0 : ∀ a d s → Keep s (wr0 a d s)
  keep-wr0 a d s = kp (kf (keep-place a d s))

  keep-rl0 : ∀ p s → Keep s (rl0 p s)
  keep-rl0 p s = kp (kf (keep-place (p2l s p) (cellD (pv s p)) s))

  keep-progMB : ∀ s → Keep s (progMB s)
  keep-progMB s = kp λ { p (lt , mbn , ne) → (lt , refl , ne) , cong (λ m → cur (progm m (dat s p))) mbn }

  keep-flB : ∀ s → Keep s (flB s)
  keep-flB s = kp (kf (keep-progMB s))

  keep-id : ∀ {s s'} → dat s' ≡ dat s → nxt s' ≡ nxt s → mb s' ≡ mb s → ers s' ≡ ers s → Keep s s'
  keep-id refl refl refl refl = kp λ p o → o , refl

  keep-opt : ∀ f1 f2 s → Keep s (opt f1 f2 s)
  keep-opt false false s = keep-id refl refl refl refl
  keep-opt true  false s = keep-progMB s
  keep-opt false true  s = keep-id refl refl refl refl
  keep-opt true  true  s = keep-trans {s} {progMB s} {emitT (progMB s)} (keep-progMB s) (keep-id refl refl refl refl)

  keep-esF : ∀ q s → ers s q ≡ true → Keep s (esF q s)
  keep-esF q s eq = kp go
    where
    go : ∀ p → Ok s p → Ok (esF q s) p × cur (dat (esF q s) p) ≡ cur (dat s p)
    go p (lt , mbn , ne) with p ≟ q
    ... | yes refl = ⊥-elim′ (ne eq)
    ... | no n = (lt , mbn , λ x → ne (trans (sym (upd-other (ers s) false n)) x)) ,
                 cong cur (upd-other (dat s) (put erased (dat s q)) n)

  smap-opt : ∀ f1 f2 u → smap (opt f1 f2 u) ≡ smap u
  smap-opt false false u = refl
  smap-opt true  false u = refl
  smap-opt false true  u = refl
  smap-opt true  true  u = refl

------------------------------------------------------------------------
-- The volatile L2P across the steps

private
  vm-place : ∀ a d s es → VM s es → VM (place a d s) es
  vm-place a d s es v = ≐-upd a (just (nxt s)) v

  vm-emitT : ∀ s es → VM s es → VM (emitT s) es
  vm-emitT s es v b = trans (v b) (sym (cong (λ f → f b) (apply-++ (dbuf s) (concat (ept s)) (lastMap (smap s) es))))

  vm-opt : ∀ f1 f2 s es → VM s es → VM (opt f1 f2 s) es
  vm-opt false false s es v = v
  vm-opt true  false s es v = v
  vm-opt false true  s es v = vm-emitT s es v
  vm-opt true  true  s es v = vm-emitT (progMB s) es v

lastMap-snoc : ∀ M es e → lastMap M (es ++ e ∷ []) ≡ eM e (lastMap M es)
lastMap-snoc M []       e = refl
lastMap-snoc M (x ∷ es) e = lastMap-snoc (eM x M) es e

vm-flB : ∀ s es → VM s es → VM (flB s) (es ++ epE s ∷ [])
vm-flB s es v b = trans (v b) (sym (cong (λ f → f b) (lastMap-snoc (smap s) es (epE s))))

-- every flush of P: the volatile L2P is the stable one, no open pairs
vm-flush : ∀ {s s'} → okP (oS flushOp) s s' → VM s' []
vm-flush (inj₁ refl) b = refl
vm-flush (inj₂ (inj₁ refl)) b = refl
vm-flush (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) b = refl
vm-flush (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) b = refl
vm-flush (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) b = refl
vm-flush (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) b = refl

------------------------------------------------------------------------
-- The barrier without SYNC appends its map and SB's image

GhL-snoc : ∀ {s} M es xs e X → GhL s M es xs → GhD s (eM e (lastMap M es)) X →
           GhL s M (es ++ e ∷ []) (xs ++ X ∷ [])
GhL-snoc M []        []        e X _        d = d , tt
GhL-snoc M (e′ ∷ es) (X′ ∷ xs) e X (d′ , l) d = d′ , GhL-snoc (eM e′ M) es xs e X l d
GhL-snoc M []        (_ ∷ _)   e X ()       d
GhL-snoc M (_ ∷ _)   []        e X ()       d

-- the volatile L2P, right after the barrier's programs, reads the image
-- read before it
GhD-flB : ∀ s X → GcI s → (∀ a → a ≤ amax → rd s a ≡ X a) → GhD (flB s) (l2p s) X
GhD-flB s X g v a le = trans (rdf (l2p s a)) (v a le) , ok
  where
    rdf : ∀ mp → rdD (dat (flB s)) mp ≡ rdm s mp
    rdf nothing  = refl
    rdf (just p) = cong cellD (Rg.cur-progm (mb s p) (dat s p))
    ok : ∀ p → l2p s a ≡ just p → Ok (flB s) p
    ok p e = GcI.blw g a p le e , refl , λ x → proj₂ (GcI.ersI g p x) a le e

------------------------------------------------------------------------
-- Every normal-operation step of PU keeps GhU: type A against SB with
-- the pending images

private
  ghu-keep : ∀ {s s' t t'} → Keep (st s) (st s') → smap (st s') ≡ smap (st s) → ues s' ≡ ues s →
             SB.pend t' ≡ SB.pend t → VM (st s') (ues s) → GhU s t → GhU s' t'
  ghu-keep {s} {s'} {t} {t'} k es eu ep v (l , _) =
    subst (λ z → GhL (st s') (smap (st s')) z (SB.pend t')) (sym eu)
      (subst (GhL (st s') (smap (st s')) (ues s)) (sym ep)
        (subst (λ z → GhL (st s') z (ues s) (SB.pend t)) (sym es)
          (GhL-keep k (smap (st s)) (ues s) (SB.pend t) l))) ,
    subst (VM (st s')) (sym eu) v

  vm-sm : ∀ {s s' es} → smap s' ≡ smap s → l2p s' ≐ apply (dbuf s') (apply (concat (ept s')) (lastMap (smap s) es)) → VM s' es
  vm-sm {s} {s'} {es} e v = subst (λ z → l2p s' ≐ apply (dbuf s') (apply (concat (ept s')) (lastMap z es))) (sym e) v

  wpend : ∀ a d {t t'} → SB.okSB (SB.use (SB.reg (SB.op (SB.w a d)))) t t' → SB.pend t' ≡ SB.pend t
  wpend a d (inj₁ (_ , _ , _ , e , _)) = e
  wpend a d (inj₂ (_ , refl)) = refl

  ghu-sync : ∀ {s s' t'} → okP (oS flushOp) (st s) (st s') → ues s' ≡ [] → SB.pend t' ≡ [] → GhU s' t'
  ghu-sync {s} {s'} {t'} o eu ep =
    subst (λ z → GhL (st s') (smap (st s')) z (SB.pend t')) (sym eu)
      (subst (GhL (st s') (smap (st s')) []) (sym ep) tt) ,
    subst (VM (st s')) (sym eu) (vm-flush o)

gh-ok : ∀ u {s t s' t'} → ARv s t → GcI (st s) → GhU s t → okU u s s' → SB.okSB (SB.use u) t t' →
        length (ues s') ≡ length (SB.pend t') → GhU s' t'
gh-ok (SB.reg (SB.op (SB.w a d))) {s} {t} {s'} {t'} av g gh (inj₁ (_ , f1 , f2 , e) , eu) x n' =
  ghu-keep {s} {s'} {t} {t'}
    (subst (Keep (st s)) (sym e) (keep-trans {st s} {wr0 a d (st s)} (keep-wr0 a d (st s)) (keep-opt f1 f2 (wr0 a d (st s)))))
    (trans (cong smap e) (smap-opt f1 f2 (wr0 a d (st s)))) eu (wpend a d x)
    (subst (λ z → VM z (ues s)) (sym e) (vm-opt f1 f2 (wr0 a d (st s)) (ues s) (vm-place a d (st s) (ues s) (proj₂ gh)))) gh
gh-ok (SB.reg (SB.op (SB.w a d))) {s} {t} {s'} {t'} av g gh (inj₂ (_ , e) , eu) x n' =
  ghu-keep {s} {s'} {t} {t'} (subst (Keep (st s)) (sym e) (keep-id refl refl refl refl)) (cong smap e) eu (wpend a d x)
    (subst (λ z → VM z (ues s)) (sym e) (proj₂ gh)) gh
gh-ok (SB.reg (SB.op SB.rl)) {s} {t} {s'} {.t} av g gh (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e)) , eu) refl n' =
  ghu-keep {s} {s'} {t} {t}
    (subst (Keep (st s)) (sym e) (keep-trans {st s} {rl0 p (st s)} (keep-rl0 p (st s))
                                                                     (keep-opt f1 f2 (rl0 p (st s)))))
    (trans (cong smap e) (smap-opt f1 f2 (rl0 p (st s)))) eu refl
    (subst (λ z → VM z (ues s)) (sym e)
      (vm-opt f1 f2 (rl0 p (st s)) (ues s) (vm-place (p2l (st s) p) (cellD (pv (st s) p)) (st s) (ues s) (proj₂ gh)))) gh
gh-ok (SB.reg (SB.op SB.rl)) {s} {t} {s'} {.t} av g gh (inj₁ (_ , p , _ , inj₂ (_ , e)) , eu) refl n' =
  ghu-keep {s} {s'} {t} {t} (subst (Keep (st s)) (sym e) (keep-id refl refl refl refl)) (cong smap e) eu refl
    (subst (λ z → VM z (ues s)) (sym e) (proj₂ gh)) gh
gh-ok (SB.reg (SB.op SB.rl)) {s} {t} {s'} {.t} av g gh (inj₂ (_ , e) , eu) refl n' =
  ghu-keep {s} {s'} {t} {t} (subst (Keep (st s)) (sym e) (keep-id refl refl refl refl)) (cong smap e) eu refl
    (subst (λ z → VM z (ues s)) (sym e) (proj₂ gh)) gh
gh-ok (SB.reg (SB.op SB.es)) {s} {t} {s'} {.t} av g gh ((p , ep , e) , eu) refl n' =
  ghu-keep {s} {s'} {t} {t} (subst (Keep (st s)) (sym e) (keep-esF p (st s) ep)) (cong smap e) eu refl
    (subst (λ z → VM z (ues s)) (sym e) (proj₂ gh)) gh
gh-ok (SB.reg SB.barrier) {s} {t} {s'} {t'} (v , c , n) g (l , vm) (inj₁ (lt , refl)) (_ , _ , inj₁ (_ , _ , ep)) n' =
  subst (GhL (flB (st s)) (smap (st s)) (ues s ++ epE (st s) ∷ [])) (sym ep)
    (GhL-snoc (smap (st s)) (ues s) (SB.pend t) (epE (st s)) (SB.volatile t)
      (GhL-keep (keep-flB (st s)) (smap (st s)) (ues s) (SB.pend t) l)
      (GhD-≐ {flB (st s)} (λ b → sym (vm b)) (GhD-flB (st s) (SB.volatile t) g v))) ,
  vm-flB (st s) (ues s) vm
gh-ok (SB.reg SB.barrier) {s} {t} {s'} {t'} (v , c , n) g gh (inj₁ (lt , refl)) (_ , _ , inj₂ (_ , ep)) n' =
  ⊥-elim′ (len-mis₁ (ues s) (epE (st s)) (SB.pend t') n' ep)
gh-ok (SB.reg SB.barrier) {s} {t} {s'} {t'} av g gh (inj₂ (o , eu)) (_ , _ , inj₂ (_ , ep)) n' =
  ghu-sync {s} {s'} {t'} o eu ep
gh-ok (SB.reg SB.barrier) {s} {t} {s'} {t'} (v , c , n) g gh (inj₂ (o , eu)) (_ , _ , inj₁ (_ , _ , ep)) n' =
  ⊥-elim′ (len-mis₂ (ues s') (SB.pend t) (SB.volatile t) eu (trans n' (cong length ep)))
gh-ok SB.flush {s} {t} {s'} {t'} av g gh (o , eu) (_ , _ , ep , _) _ = ghu-sync {s} {s'} {t'} o eu ep

-- type A for every normal operation of PU against SB, with SB's pending
-- images related to the flash (`GhU`) on top of ARU
A-ghost : ∀ u {s t s'} → ARU s t → GcI (st s) → SmI (st s) → GhU s t → okU u s s' →
          Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARU s' t' × GcI (st s') × SmI (st s') × GhU s' t'
A-ghost u {s} {t} {s'} ar g sm gh o =
  proj₁ F , proj₁ F1 , proj₁ (proj₂ F1) , proj₁ (proj₂ (proj₂ F1)) , proj₂ (proj₂ (proj₂ F1)) ,
  gh-ok u {s} {t} {s'} {proj₁ F} (proj₁ ar) g gh o (proj₁ F1) (proj₂ (proj₂ (proj₁ (proj₁ (proj₂ F1)))))
  where
    F  = A-full u {s} {t} {s'} ar g sm o
    F1 = proj₂ F

------------------------------------------------------------------------
-- The map after k epochs reads SB's k-th candidate

readL : ∀ s M es xs (X0 : Arr) → (∀ a → a ≤ amax → rdD (dat s) (M a) ≡ X0 a) → GhL s M es xs →
        ∀ k → k ≤ length xs → ∀ a → a ≤ amax → rdD (dat s) (mapAt M es k a) ≡ nth X0 xs k a
readL s M es       xs       X0 h l zero    _        a le = h a le
readL s M []       []       X0 h l (suc k) ()
readL s M (e ∷ es) (X ∷ xs) X0 h (d , l) (suc k) (s≤s kl) a le =
  readL s (eM e M) es xs X (λ b lb → proj₁ (d b lb)) l k kl a le
readL s M []       (_ ∷ _)  X0 h () (suc k) _ a le
readL s M (_ ∷ _)  []       X0 h () (suc k) _ a le

read-at : ∀ {s t} → ARs s t → GhU s t → ∀ k → k ≤ length (SB.pend t) →
          ∀ a → a ≤ amax → rdD (dat (st s)) (mapAt (smap (st s)) (ues s) k a) ≡ candAt t k a
read-at {s} {t} sa (l , _) k kl = readL (st s) (smap (st s)) (ues s) (SB.pend t) (SB.stable t) sa l k kl

-- the part of the region below the unsynced epochs replays to the
-- stable L2P, with no pending tentative page of the first epoch's id
-- (in P: RI's `cmX` and `cmP`; an assumption here)
Base : StU → List Cell → RS → Set
Base s pr mt = proj₁ (rp (gen (st s)) pr mt) ≐ smap (st s) × Fresh (ues s) (rp (gen (st s)) pr mt)

-- recovery from a state of PU's normal operation accepts the first k
-- unsynced epochs, k names SB's k-th candidate, and (given the base)
-- the L2P it rebuilds reads that candidate
recU-reads : ∀ {s t} → LayM (st s) (ues s) → ARU s t → GhU s t → ∀ D mt →
  let g = gen (st s) ; es = map (ue g) (ues s) in
  Σ (List Cell) λ pr → Σ ℕ λ k →
    Parse (map cur (dr (st s))) (tents g (ep (st s)) (ept (st s))) es pr ×
    k ≤ length (SB.pend t) ×
    candAt t k ∈ SB.stable t ∷ SB.pend t ×
    (Base s pr mt → ∀ a → a ≤ amax → rdD (dat (st s)) (proj₁ (recRS g D es pr mt) a) ≡ candAt t k a)
recU-reads {s} {t} l (av , sa) gh D mt = pr , k , p , kl , m , rd′
  where
    R  = recU-cand {s} {t} l av D mt
    pr = proj₁ R
    k  = proj₁ (proj₂ R)
    p  = proj₁ (proj₂ (proj₂ R))
    kl = proj₁ (proj₂ (proj₂ (proj₂ R)))
    e  = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ R))))
    m  = proj₂ (proj₂ (proj₂ (proj₂ (proj₂ R))))
    g = gen (st s)
    rd′ : Base s pr mt → ∀ a → a ≤ amax → rdD (dat (st s)) (proj₁ (recRS g D (map (ue g) (ues s)) pr mt) a) ≡ candAt t k a
    rd′ (bx , fr) a le =
      trans (cong (λ M → rdD (dat (st s)) (M a))
                  (trans (cong proj₁ e) (rpE-map g (ues s) (rp g pr mt) fr k)))
       (trans (cong (rdD (dat (st s))) (mapAt-≐ bx (ues s) k a))
              (read-at {s} {t} sa gh k kl a le))

------------------------------------------------------------------------
-- After a CRASH.  The data pages of the unsynced epochs may hold
-- anything after a crash (P's `CrashD`); recovery accepts an epoch only
-- if its digest verifies on them (`verD`).  What makes that enough: every
-- pair of an epoch that its map keeps is in its digest with the image at
-- its barrier (`DgL`, fixed when the barrier is taken), and the stable
-- L2P's pages are durable (`SyI`).

-- the pairs an epoch wrote (committed page, then tentative pages) and
-- its digest's data entries
pairsOf : E → List (ℕ × ℕ)
pairsOf (x , ps , dd , pss , L) = ps ++ concat pss

ddOf : E → List (ℕ × Data × ℕ)
ddOf (x , ps , dd , pss , L) = dd

-- every pair the epoch's map keeps is in its digest, with the image
DgI : E → Map → Arr → Set
DgI e M X = ∀ a p → a ≤ amax → (a , p) ∈L pairsOf e → eM e M a ≡ just p → (p , X a , a) ∈L ddOf e

DgL : Map → List E → List Arr → Set
DgL M []       []       = ⊤
DgL M (e ∷ es) (X ∷ xs) = DgI e M X × DgL (eM e M) es xs
DgL M []       (_ ∷ _)  = ⊥
DgL M (_ ∷ _)  []       = ⊥

-- the stable L2P's pages are durable
SyI : St → Set
SyI s = ∀ a p → a ≤ amax → smap s a ≡ just p → Σ Cell λ c → dat s p ≡ syn c × oob c ≡ a

private
  ≤ᵇ-true : ∀ m n → m ≤ n → (m Data.Nat.Base.≤ᵇ n) ≡ true
  ≤ᵇ-true zero    n       z≤n       = refl
  ≤ᵇ-true (suc m) (suc n) (s≤s le)  = ≤ᵇ-suc m n le
    where
      ≤ᵇ-suc : ∀ m n → m ≤ n → (suc m Data.Nat.Base.≤ᵇ suc n) ≡ true
      ≤ᵇ-suc zero    n       _         = refl
      ≤ᵇ-suc (suc m) zero    ()
      ≤ᵇ-suc (suc m) (suc n) (s≤s le′) = ≤ᵇ-suc m n le′

-- the digest P computes lists every pair the volatile L2P keeps
digD-∈ : ∀ s ps a p → (a , p) ∈L ps → a ≤ amax → l2p s a ≡ just p → (p , cellD (pv s p) , a) ∈L digD s ps
digD-∈ s ((b , q) ∷ ps) a p hereL le e
  rewrite ≤ᵇ-true a amax le | e | ≡ᵇ-refl p = hereL
digD-∈ s ((b , q) ∷ ps) a p (thereL i) le e with (b Data.Nat.Base.≤ᵇ amax) Data.Bool.Base.∧ isAt (l2p s b) q
... | true  = thereL (digD-∈ s ps a p i le e)
... | false = digD-∈ s ps a p i le e

DgL-snoc : ∀ M es xs e X → DgL M es xs → DgI e (lastMap M es) X → DgL M (es ++ e ∷ []) (xs ++ X ∷ [])
DgL-snoc M []        []        e X _        d = d , tt
DgL-snoc M (e′ ∷ es) (X′ ∷ xs) e X (d′ , l) d = d′ , DgL-snoc (eM e′ M) es xs e X l d
DgL-snoc M []        (_ ∷ _)   e X ()       d
DgL-snoc M (_ ∷ _)   []        e X ()       d

-- the barrier's epoch: its digest is P's `digD` at the barrier
DgI-flB : ∀ s es X → VM s es → (∀ a → a ≤ amax → rd s a ≡ X a) → DgI (epE s) (lastMap (smap s) es) X
DgI-flB s es X vm v a p le i e =
  subst (λ d → (p , d , a) ∈L digD s (dbuf s ++ concat (ept s)))
        (trans (sym (cong (rdm s) el)) (v a le))
        (digD-∈ s (dbuf s ++ concat (ept s)) a p i le el)
  where
    el : l2p s a ≡ just p
    el = trans (vm a) e

------------------------------------------------------------------------
-- Every normal step keeps DgL and SyI

private
  syI-opt : ∀ f1 f2 u → SmI u → SyI u → SyI (opt f1 f2 u)
  syI-opt false false u sm sy = sy
  syI-opt true  false u sm sy a p le e with sy a p le e
  ... | c , d , o = c , trans (cong (λ m → progm m (dat u p)) (proj₁ (proj₂ (sm a p le e)))) d , o
  syI-opt false true  u sm sy = sy
  syI-opt true  true  u sm sy a p le e with sy a p le e
  ... | c , d , o = c , trans (cong (λ m → progm m (dat u p)) (proj₁ (proj₂ (sm a p le e)))) d , o

  -- the page the volatile L2P names carries the address in its OOB
  oobF : ∀ {s} → GcI s → ∀ a p → a ≤ amax → l2p s a ≡ just p → oob (cur (progm (mb s p) (dat s p))) ≡ a
  oobF {s} g a p le e = trans (cong oob (Rg.cur-progm (mb s p) (dat s p))) (GcI.oobI g a p le e)

  syI-flush : ∀ {s s'} → GcI s → okP (oS flushOp) s s' → SyI s'
  syI-flush g (inj₁ refl) a p le e = _ , refl , oobF g a p le e
  syI-flush g (inj₂ (inj₁ refl)) a p le e = _ , refl , oobF g a p le e
  syI-flush g (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) a p le e = _ , refl , oobF g a p le e
  syI-flush g (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) a p le e = _ , refl , oobF g a p le e
  syI-flush g (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) a p le e = _ , refl , oobF g a p le e
  syI-flush g (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) a p le e = _ , refl , oobF g a p le e

  -- place keeps the stable L2P and the data pages
  syI-place : ∀ a d u → SyI u → SyI (place a d u)
  syI-place a d u sy = sy

  wr0-smI : ∀ a d u → SmI u → SmI (wr0 a d u)
  wr0-smI a d u sm b p le e with sm b p le e
  ... | lt , mbn , ne = ≤-step lt , trans (upd-other (mb u) (just (d , a)) (<⇒≢ lt)) mbn , ne

  rl0-smI : ∀ q u → SmI u → SmI (rl0 q u)
  rl0-smI q u sm b p le e with sm b p le e
  ... | lt , mbn , ne = ≤-step lt , trans (upd-other (mb u) (just (cellD (pv u q) , p2l u q)) (<⇒≢ lt)) mbn , ne

syI-ok : ∀ u {s s'} → GcI (st s) → SmI (st s) → SyI (st s) → okU u s s' → SyI (st s')
syI-ok (SB.reg (SB.op (SB.w a d))) {s} g sm sy (inj₁ (_ , f1 , f2 , e) , _) =
  subst SyI (sym e) (syI-opt f1 f2 (wr0 a d (st s)) (wr0-smI a d (st s) sm) sy)
syI-ok (SB.reg (SB.op (SB.w a d))) g sm sy (inj₂ (_ , e) , _) = subst SyI (sym e) sy
syI-ok (SB.reg (SB.op SB.rl)) {s} g sm sy (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e)) , _) =
  subst SyI (sym e) (syI-opt f1 f2 (rl0 p (st s)) (rl0-smI p (st s) sm) sy)
syI-ok (SB.reg (SB.op SB.rl)) g sm sy (inj₁ (_ , p , _ , inj₂ (_ , e)) , _) = subst SyI (sym e) sy
syI-ok (SB.reg (SB.op SB.rl)) g sm sy (inj₂ (_ , e) , _) = subst SyI (sym e) sy
syI-ok (SB.reg (SB.op SB.es)) {s} g sm sy ((q , eq , e) , _) = subst SyI (sym e) go
  where
    go : SyI (esF q (st s))
    go a p le e′ with p ≟ q
    ... | yes refl = ⊥-elim′ (proj₂ (proj₂ (sm a p le e′)) eq)
    ... | no n = proj₁ (sy a p le e′) , trans (upd-other (dat (st s)) (put erased (dat (st s) q)) n) (proj₁ (proj₂ (sy a p le e′))) ,
                 proj₂ (proj₂ (sy a p le e′))
syI-ok (SB.reg SB.barrier) {s} g sm sy (inj₁ (_ , refl)) a p le e with sy a p le e
... | c , d , o = c , trans (cong (λ m → progm m (dat (st s) p)) (proj₁ (proj₂ (sm a p le e)))) d , o
syI-ok (SB.reg SB.barrier) g sm sy (inj₂ (o , _)) = syI-flush g o
syI-ok SB.flush g sm sy (o , _) = syI-flush g o

------------------------------------------------------------------------
-- The last unsynced epoch's map names pages that carry their address in
-- the OOB (what a SYNC outside a commit needs to make that map the
-- stable L2P with SyI: `SCFTL.Impl.UnsyncedSync`); kept by every normal
-- step, and SyI's own when no epoch is unsynced

-- the pages the last map names are below the active pointer, not in the
-- merge buffer, not erasable
last-ok : ∀ s M es xs → (∀ a p → a ≤ amax → M a ≡ just p → Ok s p) → GhL s M es xs →
          ∀ a p → a ≤ amax → lastMap M es a ≡ just p → Ok s p
last-ok s M []       []        h _         = h
last-ok s M (e ∷ es) (X′ ∷ xs) h (gd , gl) = last-ok s (eM e M) es xs (λ a p le q → proj₂ (gd a le) p q) gl
last-ok s M []       (_ ∷ _)   h ()
last-ok s M (_ ∷ _)  []        h ()

OobU : StU → Set
OobU s = ∀ a p → a ≤ amax → lastMap (smap (st s)) (ues s) a ≡ just p → oob (cur (dat (st s) p)) ≡ a

oob-nil : ∀ s → ues s ≡ [] → SyI (st s) → OobU s
oob-nil s e sy a p le q with sy a p le (subst (λ z → lastMap (smap (st s)) z a ≡ just p) e q)
... | c , d , o = trans (cong (λ m → oob (cur m)) d) o

private
  oob-keep : ∀ {s s'} → Keep (st s) (st s') → smap (st s') ≡ smap (st s) → ues s' ≡ ues s →
             (∀ a p → a ≤ amax → lastMap (smap (st s)) (ues s) a ≡ just p → Ok (st s) p) → OobU s → OobU s'
  oob-keep {s} {s'} (kp k) es eu ok o a p le q =
    trans (cong oob (proj₂ (k p (ok a p le q′)))) (o a p le q′)
    where
      q′ : lastMap (smap (st s)) (ues s) a ≡ just p
      q′ = subst (λ xs → lastMap (smap (st s)) xs a ≡ just p) eu
             (subst (λ M → lastMap M (ues s') a ≡ just p) es q)

  oobU-go : ∀ u {s s'} → GcI (st s) → SmI (st s) → SyI (st s) → VM (st s) (ues s) →
            (∀ a p → a ≤ amax → lastMap (smap (st s)) (ues s) a ≡ just p → Ok (st s) p) →
            okU u s s' → OobU s → OobU s'
  oobU-go (SB.reg (SB.op (SB.w a d))) {s} {s'} g sm sy vm lok (inj₁ (_ , f1 , f2 , e) , eu) ob =
    oob-keep {s} {s'}
      (subst (Keep (st s)) (sym e) (keep-trans {st s} {wr0 a d (st s)} (keep-wr0 a d (st s)) (keep-opt f1 f2 (wr0 a d (st s)))))
      (trans (cong smap e) (smap-opt f1 f2 (wr0 a d (st s)))) eu lok ob
  oobU-go (SB.reg (SB.op (SB.w a d))) {s} {s'} g sm sy vm lok (inj₂ (_ , e) , eu) ob =
    oob-keep {s} {s'} (subst (Keep (st s)) (sym e) (keep-id refl refl refl refl)) (cong smap e) eu lok ob
  oobU-go (SB.reg (SB.op SB.rl)) {s} {s'} g sm sy vm lok (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e)) , eu) ob =
    oob-keep {s} {s'}
      (subst (Keep (st s)) (sym e) (keep-trans {st s} {rl0 p (st s)} (keep-rl0 p (st s)) (keep-opt f1 f2 (rl0 p (st s)))))
      (trans (cong smap e) (smap-opt f1 f2 (rl0 p (st s)))) eu lok ob
  oobU-go (SB.reg (SB.op SB.rl)) {s} {s'} g sm sy vm lok (inj₁ (_ , p , _ , inj₂ (_ , e)) , eu) ob =
    oob-keep {s} {s'} (subst (Keep (st s)) (sym e) (keep-id refl refl refl refl)) (cong smap e) eu lok ob
  oobU-go (SB.reg (SB.op SB.rl)) {s} {s'} g sm sy vm lok (inj₂ (_ , e) , eu) ob =
    oob-keep {s} {s'} (subst (Keep (st s)) (sym e) (keep-id refl refl refl refl)) (cong smap e) eu lok ob
  oobU-go (SB.reg (SB.op SB.es)) {s} {s'} g sm sy vm lok ((p , ep , e) , eu) ob =
    oob-keep {s} {s'} (subst (Keep (st s)) (sym e) (keep-esF p (st s) ep)) (cong smap e) eu lok ob
  oobU-go (SB.reg (SB.op SB.sy)) g sm sy vm lok (() , _) ob
  oobU-go (SB.reg SB.barrier) {s} g sm sy vm lok (inj₁ (_ , refl)) ob a p le q =
    oobF g a p le (trans (vm a) (trans (cong (λ f → f a) (sym (lastMap-snoc (smap (st s)) (ues s) (epE (st s))))) q))
  oobU-go (SB.reg SB.barrier) {s} {s'} g sm sy vm lok o@(inj₂ (_ , eu)) ob =
    oob-nil s' eu (syI-ok (SB.reg SB.barrier) {s} {s'} g sm sy o)
  oobU-go SB.flush {s} {s'} g sm sy vm lok o@(_ , eu) ob =
    oob-nil s' eu (syI-ok SB.flush {s} {s'} g sm sy o)


private
  dg-keep : ∀ {s s' : StU} {t t' : SB.State} → smap (st s') ≡ smap (st s) → ues s' ≡ ues s → SB.pend t' ≡ SB.pend t →
            DgL (smap (st s)) (ues s) (SB.pend t) → DgL (smap (st s')) (ues s') (SB.pend t')
  dg-keep e1 e2 e3 d rewrite e1 | e2 | e3 = d

  dg-sync : ∀ {s' : StU} {t' : SB.State} → ues s' ≡ [] → SB.pend t' ≡ [] → DgL (smap (st s')) (ues s') (SB.pend t')
  dg-sync e1 e2 rewrite e1 | e2 = tt

dg-ok : ∀ u {s t s' t'} → ARv s t → GhU s t → DgL (smap (st s)) (ues s) (SB.pend t) →
        okU u s s' → SB.okSB (SB.use u) t t' → length (ues s') ≡ length (SB.pend t') →
        DgL (smap (st s')) (ues s') (SB.pend t')
dg-ok (SB.reg (SB.op (SB.w a d))) {s} {t} {s'} {t'} av gh dl (inj₁ (_ , f1 , f2 , e) , eu) x n' =
  dg-keep {s} {s'} {t} {t'} (trans (cong smap e) (smap-opt f1 f2 (wr0 a d (st s)))) eu (wpend a d x) dl
dg-ok (SB.reg (SB.op (SB.w a d))) {s} {t} {s'} {t'} av gh dl (inj₂ (_ , e) , eu) x n' =
  dg-keep {s} {s'} {t} {t'} (cong smap e) eu (wpend a d x) dl
dg-ok (SB.reg (SB.op SB.rl)) {s} {t} {s'} {.t} av gh dl (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e)) , eu) refl n' =
  dg-keep {s} {s'} {t} {t} (trans (cong smap e) (smap-opt f1 f2 (rl0 p (st s)))) eu refl dl
dg-ok (SB.reg (SB.op SB.rl)) {s} {t} {s'} {.t} av gh dl (inj₁ (_ , p , _ , inj₂ (_ , e)) , eu) refl n' =
  dg-keep {s} {s'} {t} {t} (cong smap e) eu refl dl
dg-ok (SB.reg (SB.op SB.rl)) {s} {t} {s'} {.t} av gh dl (inj₂ (_ , e) , eu) refl n' =
  dg-keep {s} {s'} {t} {t} (cong smap e) eu refl dl
dg-ok (SB.reg (SB.op SB.es)) {s} {t} {s'} {.t} av gh dl ((p , ep , e) , eu) refl n' =
  dg-keep {s} {s'} {t} {t} (cong smap e) eu refl dl
dg-ok (SB.reg SB.barrier) {s} {t} {s'} {t'} (v , c , n) (_ , vm) dl (inj₁ (lt , refl)) (_ , _ , inj₁ (_ , _ , ep)) n' =
  subst (DgL (smap (st s)) (ues s ++ epE (st s) ∷ [])) (sym ep)
    (DgL-snoc (smap (st s)) (ues s) (SB.pend t) (epE (st s)) (SB.volatile t) dl
      (DgI-flB (st s) (ues s) (SB.volatile t) vm v))
dg-ok (SB.reg SB.barrier) {s} {t} {s'} {t'} (v , c , n) gh dl (inj₁ (lt , refl)) (_ , _ , inj₂ (_ , ep)) n' =
  ⊥-elim′ (len-mis₁ (ues s) (epE (st s)) (SB.pend t') n' ep)
dg-ok (SB.reg SB.barrier) {s} {t} {s'} {t'} av gh dl (inj₂ (o , eu)) (_ , _ , inj₂ (_ , ep)) n' =
  dg-sync {s'} {t'} eu ep
dg-ok (SB.reg SB.barrier) {s} {t} {s'} {t'} (v , c , n) gh dl (inj₂ (o , eu)) (_ , _ , inj₁ (_ , _ , ep)) n' =
  ⊥-elim′ (len-mis₂ (ues s') (SB.pend t) (SB.volatile t) eu (trans n' (cong length ep)))
dg-ok SB.flush {s} {t} {s'} {t'} av gh dl (o , eu) (_ , _ , ep , _) _ = dg-sync {s'} {t'} eu ep

------------------------------------------------------------------------
-- Reading after a crash: the map after k ACCEPTED epochs reads SB's k-th
-- candidate on the crashed data pages

private
  holds-cellD : ∀ c d a → holds c d a ≡ true → cellD c ≡ d
  holds-cellD (dcell e b) d a h = go (e ≟D d) h
    where
      go : (q : Dec (e ≡ d)) → (does q Data.Bool.Base.∧ (b ≡ᵇ a)) ≡ true → e ≡ d
      go (yes q) _ = q
      go (no _) ()
  holds-cellD erased            d a ()
  holds-cellD junk              d a ()
  holds-cellD (dlt _ _ _ _ _)   d a ()
  holds-cellD (cpt _ _)         d a ()

  verD-mem : ∀ D dd p d a → (p , d , a) ∈L dd → verD D dd ≡ true → holds (D p) d a ≡ true
  verD-mem D (x ∷ xs)           p d a hereL      v = ∧-fst (holds (D p) d a) (verD D xs) v
  verD-mem D ((q , e , b) ∷ xs) p d a (thereL i) v = verD-mem D xs p d a i (∧-snd (holds (D q) e b) (verD D xs) v)

  eM-app : ∀ e M b → apply (pairsOf e) M b ≡ eM e M b
  eM-app (x , ps , dd , pss , L) M b = cong (λ f → f b) (apply-++ ps (concat pss) M)

-- the first k epochs' digests verify on the data pages D
VerK : (ℕ → Cell) → List E → ℕ → Set
VerK D es k = All (λ e → verD D (ddOf e) ≡ true) (take k es)

crashRead : ∀ s (D' : ℕ → MC) M es xs (X0 : Arr) →
  (∀ a → a ≤ amax → rdD (dat s) (M a) ≡ X0 a) → (∀ a → a ≤ amax → rdD D' (M a) ≡ X0 a) →
  GhL s M es xs → DgL M es xs → ∀ k → k ≤ length xs → VerK (λ p → cur (D' p)) es k →
  ∀ a → a ≤ amax → rdD D' (mapAt M es k a) ≡ nth X0 xs k a
crashRead s D' M es       xs       X0 h0 h0' gl dl zero    _ _ a le = h0' a le
crashRead s D' M []       []       X0 h0 h0' gl dl (suc k) () 
crashRead s D' M []       (_ ∷ _)  X0 h0 h0' () dl (suc k) _ _ a le
crashRead s D' M (_ ∷ _)  []       X0 h0 h0' () dl (suc k) _ _ a le
crashRead s D' M (e ∷ es) (X ∷ xs) X0 h0 h0' (d , gl) (dg , dl) (suc k) (s≤s kl) (v ∷ vs) a le =
  crashRead s D' (eM e M) es xs X (λ b lb → proj₁ (d b lb)) h1 gl dl k kl vs a le
  where
    h1 : ∀ b → b ≤ amax → rdD D' (eM e M b) ≡ X b
    h1 b lb = go (eM e M b) refl
      where
        go : ∀ mp → eM e M b ≡ mp → rdD D' mp ≡ X b
        go nothing  q = trans (cong (rdD (dat s)) (sym q)) (proj₁ (d b lb))
        go (just p) q with apply-src (pairsOf e) M b p (trans (eM-app e M b) q)
        ... | inj₁ i = holds-cellD (cur (D' p)) (X b) b
                         (verD-mem (λ p → cur (D' p)) (ddOf e) p (X b) b (dg b p lb i q) v)
        ... | inj₂ m = trans (cong (rdD D') (sym m))
                        (trans (h0' b lb) (trans (sym (h0 b lb))
                         (trans (cong (rdD (dat s)) (trans m (sym q))) (proj₁ (d b lb)))))

-- the stable L2P reads SB's stable image after a crash too (its pages
-- are durable)
stable-crash : ∀ {s t} (D' : ℕ → MC) → ARs s t → SyI (st s) → (∀ p → CrashD (dat (st s) p) (D' p)) →
               ∀ a → a ≤ amax → rdD D' (smap (st s) a) ≡ SB.stable t a
stable-crash {s} {t} D' sa sy cd a le = go (smap (st s) a) refl
  where
    dsyn : ∀ {m m' c} → m ≡ syn c → CrashD m m' → m' ≡ m
    dsyn refl e = e
    go : ∀ mp → smap (st s) a ≡ mp → rdD D' mp ≡ SB.stable t a
    go nothing  e = trans (cong (rdD (dat (st s))) (sym e)) (sa a le)
    go (just p) e =
      trans (cong (λ m → cellD (cur m)) (dsyn (proj₁ (proj₂ (sy a p le e))) (cd p)))
            (trans (cong (rdD (dat (st s))) (sym e)) (sa a le))

-- the OOB of the page the map after k ACCEPTED epochs names is the
-- address (the digest's check includes it; the stable pages carry it)
private
  holds-oob : ∀ c d a → holds c d a ≡ true → oob c ≡ a
  holds-oob (dcell e b) d a h = ≡ᵇ⇒≡ b a (subst T (sym (∧-snd (does (e ≟D d)) (b ≡ᵇ a) h)) tt)
  holds-oob erased            d a ()
  holds-oob junk              d a ()
  holds-oob (dlt _ _ _ _ _)   d a ()
  holds-oob (cpt _ _)         d a ()

crashOOB : ∀ (D' : ℕ → MC) M es xs → (∀ a p → a ≤ amax → M a ≡ just p → oob (cur (D' p)) ≡ a) → DgL M es xs →
  ∀ k → VerK (λ p → cur (D' p)) es k → ∀ a p → a ≤ amax → mapAt M es k a ≡ just p → oob (cur (D' p)) ≡ a
crashOOB D' M es       xs       h dl       zero    _        = h
crashOOB D' M []       xs       h dl       (suc k) _        = h
crashOOB D' M (e ∷ es) []       h ()       (suc k) _
crashOOB D' M (e ∷ es) (X ∷ xs) h (dg , dl) (suc k) (v ∷ vs) = crashOOB D' (eM e M) es xs h1 dl k vs
  where
    h1 : ∀ a p → a ≤ amax → eM e M a ≡ just p → oob (cur (D' p)) ≡ a
    h1 a p le q with apply-src (pairsOf e) M a p (trans (eM-app e M a) q)
    ... | inj₁ i = holds-oob (cur (D' p)) (X a) a (verD-mem (λ p → cur (D' p)) (ddOf e) p (X a) a (dg a p le i q) v)
    ... | inj₂ mq = h a p le mq

stable-oob : ∀ {s : St} (D' : ℕ → MC) → SyI s → (∀ p → CrashD (dat s p) (D' p)) →
             ∀ a p → a ≤ amax → smap s a ≡ just p → oob (cur (D' p)) ≡ a
stable-oob {s} D' sy cd a p le e = trans (cong (λ m → oob (cur m)) (dsyn (proj₁ (proj₂ (sy a p le e))) (cd p))) (proj₂ (proj₂ (sy a p le e)))
  where
    dsyn : ∀ {m m' c} → m ≡ syn c → CrashD m m' → m' ≡ syn c
    dsyn refl e′ = e′

-- an accepted epoch's committed page is the one written, so its digest
-- verified
acc-ver : ∀ g D e c' rest → CrashR (proj₁ (ue g e)) c' → okC g D c' rest ≡ true → verD D (ddOf e) ≡ true
acc-ver g D (x , ps , dd , pss , L) c' rest (inj₁ refl) ok = ∧-fst (verD D dd) _ (∧-r (g ≡ᵇ g) _ ok)
acc-ver g D (x , ps , dd , pss , L) c' rest (inj₂ (inj₁ refl)) ()
acc-ver g D (x , ps , dd , pss , L) c' rest (inj₂ (inj₂ refl)) ()

-- recovery after a crash replays the first k epochs as written, each of
-- whose digests verified (`crash-prefix` with the digests)
crash-ver : ∀ g D es es' pr pr' → CrashEs g es es' → (∀ mt → rp g pr' mt ≡ rp g pr mt) → ∀ mt →
  Σ ℕ λ k → k ≤ length es × rp g (accU g D pr' es') mt ≡ rpE g (take k (map (ue g) es)) (rp g pr mt)
          × VerK D es k
crash-ver g D [] [] pr pr' [] h mt = 0 , z≤n , h mt , []
crash-ver g D (e ∷ es) ((c' , ts') ∷ es') pr pr' ((cr , crs) ∷ ces) h mt = go (okC g D c' (ts' ++ pr')) refl
  where
    c  = proj₁ (ue g e)
    ts = proj₂ (ue g e)
    go : ∀ b → okC g D c' (ts' ++ pr') ≡ b →
         Σ ℕ λ k → k ≤ length (e ∷ es) × rp g (accB g D pr' c' ts' es' b) mt ≡ rpE g (take k (map (ue g) (e ∷ es))) (rp g pr mt)
                 × VerK D (e ∷ es) k
    go false _ = 0 , z≤n , h mt , []
    go true  e′ with crash-ver g D es es' (c ∷ ts ++ pr) (c' ∷ ts' ++ pr') ces h′ mt
      where
        h′ : ∀ mt′ → rp g (c' ∷ ts' ++ pr') mt′ ≡ rp g (c ∷ ts ++ pr) mt′
        h′ mt′ = trans (rp-++ g (c' ∷ ts') pr' mt′)
                 (trans (acc-epoch g D e c' ts' pr' cr crs e′ (rp g pr' mt′))
                 (trans (cong (rp g (c ∷ ts)) (h mt′))
                        (sym (rp-++ g (c ∷ ts) pr mt′))))
    ... | k , kl , r , vs =
      suc k , s≤s kl , trans r (cong (rpE g (take k (map (ue g) es))) (rp-++ g (c ∷ ts) pr mt)) ,
      acc-ver g D e c' (ts' ++ pr') cr e′ ∷ vs

-- A crash of any state of PU's normal operation (open tentative pages
-- included), then recovery: it accepts the first k unsynced epochs as
-- written, k names SB's k-th candidate, and (given the base) the L2P it
-- rebuilds reads that candidate on the CRASHED data pages
recU-crash-reads : ∀ {s t s'} → LayM (st s) (ues s) → ARU s t → GhU s t → DgL (smap (st s)) (ues s) (SB.pend t) →
  SyI (st s) → Img (st s) s' → ∀ mt →
  let g = gen (st s) ; D = λ p → cur (dat s' p) in
  Σ (List Cell) λ pr → Σ (List Cell) λ T → Σ (List UEp) λ es' → Σ ℕ λ k →
    CrashEs g (ues s) es' × ParseS (map cur (dr s')) T es' pr ×
    k ≤ length (SB.pend t) × candAt t k ∈ SB.stable t ∷ SB.pend t ×
    (Base s pr mt → ∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS g D es' pr mt) a) ≡ candAt t k a)
recU-crash-reads {s} {t} {s'} l (av , sa) (gl , vm) dl sy img mt =
  pr , Tp , es' , k , ces , pa , kle , nth-∈ (SB.stable t) (SB.pend t) k kle , rd′
  where
    RO = recU-crash-open {st s} {s'} (ues s) l img (λ p → cur (dat s' p)) mt
    pr = proj₁ RO
    Tp = proj₁ (proj₂ RO)
    es' = proj₁ (proj₂ (proj₂ RO))
    ces = proj₁ (proj₂ (proj₂ (proj₂ RO)))
    pa = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ RO))))
    RV = crash-ver (gen (st s)) (λ p → cur (dat s' p)) (ues s) es' pr pr ces (λ _ → refl) mt
    k = proj₁ RV
    kl = proj₁ (proj₂ RV)
    r = proj₁ (proj₂ (proj₂ RV))
    vs = proj₂ (proj₂ (proj₂ RV))
    g = gen (st s)
    kle : k ≤ length (SB.pend t)
    kle = subst (k ≤_) (proj₂ (proj₂ av)) kl
    rd′ : Base s pr mt → ∀ a → a ≤ amax →
          rdD (dat s') (proj₁ (recRS g (λ p → cur (dat s' p)) es' pr mt) a) ≡ candAt t k a
    rd′ (bx , fr) a le =
      trans (cong (λ M → rdD (dat s') (M a)) (trans (cong proj₁ r) (rpE-map g (ues s) (rp g pr mt) fr k)))
       (trans (cong (rdD (dat s')) (mapAt-≐ bx (ues s) k a))
              (crashRead (st s) (dat s') (smap (st s)) (ues s) (SB.pend t) (SB.stable t) sa
                 (stable-crash {s} {t} (dat s') sa sy (proj₁ img)) gl dl k kle vs a le))

------------------------------------------------------------------------
-- All of it as one invariant of PU's normal operation against SB

GhAll : StU → SB.State → Set
GhAll s t = GcI (st s) × SmI (st s) × GhU s t × DgL (smap (st s)) (ues s) (SB.pend t) × SyI (st s)

A-ghostAll : ∀ u {s t s'} → ARU s t → GhAll s t → okU u s s' →
             Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARU s' t' × GhAll s' t'
A-ghostAll u {s} {t} {s'} ar (g , sm , gh , dl , sy) o =
  proj₁ G , proj₁ G1 , proj₁ G2 , proj₁ G3 , proj₁ G4 , proj₂ G4 ,
  dg-ok u {s} {t} {s'} {proj₁ G} (proj₁ ar) gh dl o (proj₁ G1) (proj₂ (proj₂ (proj₁ (proj₁ G2)))) , syI-ok u {s} {s'} g sm sy o
  where
    G  = A-ghost u {s} {t} {s'} ar g sm gh o
    G1 = proj₂ G
    G2 = proj₂ G1
    G3 = proj₂ G2
    G4 = proj₂ G3

------------------------------------------------------------------------
-- The state right after a barrier's programs (`flB`) as a state with one
-- more unsynced epoch and SB's image appended, whatever the bound: also
-- the flash a flush leaves right before its SYNC (`fl2`, same flash)

gh-flB : ∀ {s t t'} → ARv s t → GcI (st s) → GhU s t → SB.pend t' ≡ SB.pend t ++ SB.volatile t ∷ [] →
         GhU ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫ t'
gh-flB {s} {t} {t'} (v , c , n) g (l , vm) ep =
  subst (GhL (flB (st s)) (smap (st s)) (ues s ++ epE (st s) ∷ [])) (sym ep)
    (GhL-snoc (smap (st s)) (ues s) (SB.pend t) (epE (st s)) (SB.volatile t)
      (GhL-keep (keep-flB (st s)) (smap (st s)) (ues s) (SB.pend t) l)
      (GhD-≐ {flB (st s)} (λ b → sym (vm b)) (GhD-flB (st s) (SB.volatile t) g v))) ,
  vm-flB (st s) (ues s) vm

dg-flB : ∀ {s t t'} → ARv s t → GhU s t → DgL (smap (st s)) (ues s) (SB.pend t) →
         SB.pend t' ≡ SB.pend t ++ SB.volatile t ∷ [] →
         DgL (smap (st s)) (ues s ++ epE (st s) ∷ []) (SB.pend t')
dg-flB {s} {t} {t'} (v , c , n) (_ , vm) dl ep =
  subst (DgL (smap (st s)) (ues s ++ epE (st s) ∷ [])) (sym ep)
    (DgL-snoc (smap (st s)) (ues s) (SB.pend t) (epE (st s)) (SB.volatile t) dl
      (DgI-flB (st s) (ues s) (SB.volatile t) vm v))

sy-flB : ∀ s → SmI s → SyI s → SyI (flB s)
sy-flB s sm sy a p le e with sy a p le e
... | c , d , o = c , trans (cong (λ m → progm m (dat s p)) (proj₁ (proj₂ (sm a p le e)))) d , o

sm-flB : ∀ s → SmI s → SmI (flB s)
sm-flB s sm b p le e with sm b p le e
... | lt , _ , ne = lt , refl , ne

gc-flB : ∀ s → GcI s → GcI (flB s)
gc-flB s g = record
  { blw  = GcI.blw g
  ; oobI = λ b p le e → trans (cong oob (Rg.pv-progMB s p)) (GcI.oobI g b p le e)
  ; ersI = GcI.ersI g
  ; invI = GcI.invI g
  }

-- OobU is kept by every normal step
oobU-ok : ∀ u {s t s'} → GhAll s t → okU u s s' → OobU s → OobU s'
oobU-ok u {s} {t} {s'} (g , sm , gh , dl , sy) o ob =
  oobU-go u {s} {s'} g sm sy (proj₂ gh) (last-ok (st s) (smap (st s)) (ues s) (SB.pend t) sm (proj₁ gh)) o ob

------------------------------------------------------------------------
-- OobA: OobU for every prefix of the unsynced epochs — the pages the
-- stable L2P and each unsynced epoch's map name carry their address.
-- A SYNC that proves only the oldest epochs (`SCFTL.Impl.UnsyncedSyncBehind`)
-- makes one of these maps the stable L2P, whose pages SyI asks it of.

OobA : StU → Set
OobA s = ∀ j a p → a ≤ amax → mapAt (smap (st s)) (ues s) j a ≡ just p → oob (cur (dat (st s) p)) ≡ a

mapAt-len : ∀ M es → mapAt M es (length es) ≡ lastMap M es
mapAt-len M []       = refl
mapAt-len M (e ∷ es) = mapAt-len (eM e M) es

mapAt-nil : ∀ M j → mapAt M [] j ≡ M
mapAt-nil M zero    = refl
mapAt-nil M (suc j) = refl

-- after one more epoch, a prefix's map is an old one or the new last one
mapAt-snoc : ∀ M es e j → mapAt M (es ++ e ∷ []) j ≡ mapAt M es j ⊎ mapAt M (es ++ e ∷ []) j ≡ eM e (lastMap M es)
mapAt-snoc M es       e zero    = inj₁ refl
mapAt-snoc M []       e (suc j) = inj₂ (mapAt-nil (eM e M) j)
mapAt-snoc M (x ∷ es) e (suc j) = mapAt-snoc (eM x M) es e j

oobA⇒U : ∀ s → OobA s → OobU s
oobA⇒U s o a p le q = o (length (ues s)) a p le (trans (cong (λ f → f a) (mapAt-len (smap (st s)) (ues s))) q)

oobA-nil : ∀ s → ues s ≡ [] → SyI (st s) → OobA s
oobA-nil s e sy j a p le q with sy a p le (trans (sym (cong (λ f → f a) (mapAt-nil (smap (st s)) j)))
                                               (subst (λ z → mapAt (smap (st s)) z j a ≡ just p) e q))
... | c , d , o = trans (cong (λ m → oob (cur m)) d) o

-- every page a prefix's map names is Ok
mapAt-ok : ∀ s M es xs → (∀ a p → a ≤ amax → M a ≡ just p → Ok s p) → GhL s M es xs →
           ∀ j a p → a ≤ amax → mapAt M es j a ≡ just p → Ok s p
mapAt-ok s M es       xs        h gl        zero    = h
mapAt-ok s M []       []        h _         (suc j) = h
mapAt-ok s M (e ∷ es) (X′ ∷ xs) h (gd , gl) (suc j) = mapAt-ok s (eM e M) es xs (λ a p le q → proj₂ (gd a le) p q) gl j
mapAt-ok s M []       (_ ∷ _)   h ()        (suc j)
mapAt-ok s M (_ ∷ _)  []        h ()        (suc j)

private
  oobA-keep : ∀ {s s'} → Keep (st s) (st s') → smap (st s') ≡ smap (st s) → ues s' ≡ ues s →
              (∀ j a p → a ≤ amax → mapAt (smap (st s)) (ues s) j a ≡ just p → Ok (st s) p) → OobA s → OobA s'
  oobA-keep {s} {s'} (kp k) es eu ok o j a p le q =
    trans (cong oob (proj₂ (k p (ok j a p le q′)))) (o j a p le q′)
    where
      q′ : mapAt (smap (st s)) (ues s) j a ≡ just p
      q′ = subst (λ xs → mapAt (smap (st s)) xs j a ≡ just p) eu
             (subst (λ M → mapAt M (ues s') j a ≡ just p) es q)

  oobA-go : ∀ u {s s'} → GcI (st s) → SmI (st s) → SyI (st s) → VM (st s) (ues s) →
            (∀ j a p → a ≤ amax → mapAt (smap (st s)) (ues s) j a ≡ just p → Ok (st s) p) →
            okU u s s' → OobA s → OobA s'
  oobA-go (SB.reg (SB.op (SB.w a d))) {s} {s'} g sm sy vm lok (inj₁ (_ , f1 , f2 , e) , eu) ob =
    oobA-keep {s} {s'}
      (subst (Keep (st s)) (sym e) (keep-trans {st s} {wr0 a d (st s)} (keep-wr0 a d (st s)) (keep-opt f1 f2 (wr0 a d (st s)))))
      (trans (cong smap e) (smap-opt f1 f2 (wr0 a d (st s)))) eu lok ob
  oobA-go (SB.reg (SB.op (SB.w a d))) {s} {s'} g sm sy vm lok (inj₂ (_ , e) , eu) ob =
    oobA-keep {s} {s'} (subst (Keep (st s)) (sym e) (keep-id refl refl refl refl)) (cong smap e) eu lok ob
  oobA-go (SB.reg (SB.op SB.rl)) {s} {s'} g sm sy vm lok (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e)) , eu) ob =
    oobA-keep {s} {s'}
      (subst (Keep (st s)) (sym e) (keep-trans {st s} {rl0 p (st s)} (keep-rl0 p (st s)) (keep-opt f1 f2 (rl0 p (st s)))))
      (trans (cong smap e) (smap-opt f1 f2 (rl0 p (st s)))) eu lok ob
  oobA-go (SB.reg (SB.op SB.rl)) {s} {s'} g sm sy vm lok (inj₁ (_ , p , _ , inj₂ (_ , e)) , eu) ob =
    oobA-keep {s} {s'} (subst (Keep (st s)) (sym e) (keep-id refl refl refl refl)) (cong smap e) eu lok ob
  oobA-go (SB.reg (SB.op SB.rl)) {s} {s'} g sm sy vm lok (inj₂ (_ , e) , eu) ob =
    oobA-keep {s} {s'} (subst (Keep (st s)) (sym e) (keep-id refl refl refl refl)) (cong smap e) eu lok ob
  oobA-go (SB.reg (SB.op SB.es)) {s} {s'} g sm sy vm lok ((p , ep , e) , eu) ob =
    oobA-keep {s} {s'} (subst (Keep (st s)) (sym e) (keep-esF p (st s) ep)) (cong smap e) eu lok ob
  oobA-go (SB.reg (SB.op SB.sy)) g sm sy vm lok (() , _) ob
  oobA-go (SB.reg SB.barrier) {s} g sm sy vm lok (inj₁ (_ , refl)) ob j a p le q
    with mapAt-snoc (smap (st s)) (ues s) (epE (st s)) j
  ... | inj₁ e = trans (cong oob (proj₂ (kf (keep-flB (st s)) p (lok j a p le q′)))) (ob j a p le q′)
    where
      q′ : mapAt (smap (st s)) (ues s) j a ≡ just p
      q′ = trans (sym (cong (λ f → f a) e)) q
  ... | inj₂ e = oobF g a p le (trans (vm a) (trans (cong (λ f → f a) (sym e)) q))
  oobA-go (SB.reg SB.barrier) {s} {s'} g sm sy vm lok o@(inj₂ (_ , eu)) ob =
    oobA-nil s' eu (syI-ok (SB.reg SB.barrier) {s} {s'} g sm sy o)
  oobA-go SB.flush {s} {s'} g sm sy vm lok o@(_ , eu) ob =
    oobA-nil s' eu (syI-ok SB.flush {s} {s'} g sm sy o)

-- OobA is kept by every normal step
oobA-ok : ∀ u {s t s'} → GhAll s t → okU u s s' → OobA s → OobA s'
oobA-ok u {s} {t} {s'} (g , sm , gh , dl , sy) o ob =
  oobA-go u {s} {s'} g sm sy (proj₂ gh) (mapAt-ok (st s) (smap (st s)) (ues s) (SB.pend t) sm (proj₁ gh)) o ob
