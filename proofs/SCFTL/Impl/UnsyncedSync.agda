{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: the SYNC OUTSIDE A COMMIT as a step of PU.
--
-- The code issues a bare SYNC while epochs are unsynced in three places:
-- before an erase (`datapath.rs`: any erase while epochs are unsynced
-- syncs first), as a sync behind barriers (`SharedDevice::sync_behind`),
-- and inside a flush before an in-page or OOB commit.  After it, no
-- epoch is unsynced (`note_sync`), and GC may erase the superblocks the
-- barriers' epochs freed.  SB's matching operation is `sy`: every
-- pending image durable, the last one stable (`SCFTL.SpecBarrier`).
--
-- The step on PU's state (`syU`, `syS`):
--   * every data page durable as it is now (`dat := sync ∘ dat`);
--   * the unsynced epochs' region pages durable: every region page below
--     the open epoch's tentative pages (`landR`); those stay unsynced as
--     PU keeps them (a crash may still lose them, and recovery ignores
--     them: no committed page names the open epoch);
--   * the last barrier's map is the stable L2P (`lastMap`), and the link
--     its committed page carries the state's (`lastLnk`: the code's
--     `chain_link`, where an in-page or OOB commit may go next);
--   * invalid pages the new stable L2P does not map may be released to
--     the erasable queue (`r`, guarded by `Rel`): the pages GC freed
--     before the last barrier, which the code's erase after its SYNC
--     reclaims (`r = λ _ → false`, no release, always qualifies);
--   * no epoch unsynced.
--
--   sync-A       type A against SB's `sy`, every invariant of PU's normal
--                operation kept (`Inv`: ARU, GcI, SmI, the ghost
--                invariant, the digests, SyI, BI, SlO), given `OobU`,
--                which it keeps too (`sync-OobU`)
--   sync-GenR    and GenR
--   sync-crash   so a crash right after the SYNC (or any later crash
--                point, by PU's existing lemmas from the new state)
--                recovers, with the new state's ghost, to a candidate of
--                SB after `sy`: the last barrier's image
--   no-release   the guard holds without a release
--
-- `OobU` (`SCFTL.Impl.UnsyncedImages`): every page the last barrier's
-- map names holds, in its OOB, the address it is mapped at — what SyI
-- needs of the new stable L2P.  Every normal step of PU keeps it
-- (`oobU-ok`: a barrier's map is the volatile L2P, whose pages carry
-- their address, `GcI.oobI`; writes, GC and erases leave the pages the
-- map names alone), and with no epoch unsynced it is SyI's (`oob-nil`).
--
--   PUS          PUM with the step (`okS`, `crashS`: a crash before the
--                SYNC or after it, each with its state's ghost; a crash
--                while it runs leaves each page landed or not, one of the
--                crash outcomes of the state before it), AR with `OobU`:
--                `theorem1-PUS`, `PUS-snapshot-consistent`
--   PUSc         the same over PUMc (every flash command boundary of the
--                other operations a crash point; the SYNC's own two are
--                PUS's): `theorem1-PUSc`, `PUSc-snapshot-consistent`
--
-- PU's own `okU` has no `sy` step (`SCFTL.Impl.UnsyncedBarrier`): PUS
-- and PUSc add it beside PUM and PUMc.  Left out: the in-page/OOB commit
-- right after the SYNC (PUS's flush is PUM's `fl3`), and a sync behind
-- that returns after later programs (the code's detached sync proves
-- only what was programmed when it started; here the SYNC is one step).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedSync (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                               (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false; not; _∧_; _∨_)
open import Data.Empty using (⊥)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; take; drop)
open import Data.List.Properties using (++-identityʳ; map-++-commute)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Relation.Unary.All.Properties using (++⁺)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (_≐_; rp-++; GenLe; map-cur-++; map-cur-syn)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD; rdS)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (lay; rpE; rp-lay)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (E; ue; tents)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; ARv; ARs; ARU; GcI; SmI; Free; Syn)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_
  using (Ok; GhL; GhU; VM; GhAll; DgL; SyI; OobU; oob-nil; oobU-ok; last-ok; lastMap; eM; eM-≐; ue-rp; rbase-same; Fresh; fresh-next)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; bi; fid; fresh-of)
open import SCFTL.Impl.UnsyncedCrashes Data d0 amax wmax kmax umax _≟D_ using (Inv; SlO)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (GenR; Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_
  using (RecG; ghostN; crash-normal-G; SU; ⟦_,_⟧; su; gh; okPU; crashPU; NewPU; okM⇒okU; obligationsU; ARP; CRP)
open import SCFTL.Impl.UnsyncedCommands Data d0 amax wmax kmax umax _≟D_ using (crashPUc; obligationsC)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The step

-- the region with its first n pages (the open epoch's tentative pages)
-- as they are and every page below them durable
landR : ℕ → List MC → List MC
landR n ms = take n ms ++ map sync (drop n ms)

-- the SYNC on P's state with the unsynced epochs es, releasing the
-- pages r names
-- the link the last unsynced epoch's committed page carries (`epE`'s
-- last component, the page its epoch's writes would go to next), else
-- the state's: the code's `chain_link` after the barrier that ended it
lastLnk : List E → Maybe ℕ → Maybe ℕ
lastLnk []                        k = k
lastLnk ((x , ps , dd , pss , L) ∷ es) k = lastLnk es (just L)

syU : List E → (ℕ → Bool) → St → St
syU es r s = record s
  { dat  = λ p → sync (dat s p)
  ; dr   = landR (length (ept s)) (dr s)
  ; smap = lastMap (smap s) es
  ; ers  = λ p → ers s p ∨ r p
  ; inv  = λ p → inv s p ∧ not (r p)
  ; lnk  = lastLnk es (lnk s)
  }

-- ... on PU's state: no epoch unsynced after it
syS : (ℕ → Bool) → StU → StU
syS r s = ⟪ syU (ues s) r (st s) , [] ⟫

-- the guard: only invalid pages the new stable L2P does not map
Rel : StU → (ℕ → Bool) → Set
Rel s r = ∀ p → r p ≡ true → inv (st s) p ≡ true × (∀ a → a ≤ amax → lastMap (smap (st s)) (ues s) a ≢ just p)

no-release : ∀ s → Rel s (λ _ → false)
no-release s p ()

-- SB after `sy`
tS : SB.State → SB.State
tS t = SB.⟨ SB.volatile t , SB.lastA (SB.stable t) (SB.pend t) , [] , SB.wcnt t ⟩

-- (SB's `sy` with k the number of pending images: every one durable)
take-len : ∀ {A : Set} (xs : List A) → take (length xs) xs ≡ xs
take-len []       = refl
take-len (x ∷ xs) = cong (x ∷_) (take-len xs)

drop-len : ∀ {A : Set} (xs : List A) → drop (length xs) xs ≡ []
drop-len []       = refl
drop-len (x ∷ xs) = drop-len xs

sy-all : ∀ t → SB.stable (tS t) ≡ SB.lastA (SB.stable t) (take (length (SB.pend t)) (SB.pend t))
               × SB.pend (tS t) ≡ drop (length (SB.pend t)) (SB.pend t)
sy-all t = cong (SB.lastA (SB.stable t)) (sym (take-len (SB.pend t))) , sym (drop-len (SB.pend t))

sy-SB : ∀ t → SB.okSB (SB.use (SB.reg (SB.op SB.sy))) t (tS t)
sy-SB t = length (SB.pend t) , refl , proj₁ (sy-all t) , proj₂ (sy-all t) , refl

------------------------------------------------------------------------
-- Reads: a SYNC changes no page's current content

private
  rdMD-sy : ∀ M (D : ℕ → MC) mp → rdMD M (λ p → sync (D p)) mp ≡ rdMD M D mp
  rdMD-sy M D nothing  = refl
  rdMD-sy M D (just p) = refl

  rdD-sy : ∀ (D : ℕ → MC) mp → rdD (λ p → sync (D p)) mp ≡ rdD D mp
  rdD-sy D nothing  = refl
  rdD-sy D (just p) = refl

-- (the queues after a release: also PUSB's)
∨-split : ∀ x y → (x ∨ y) ≡ true → x ≡ true ⊎ y ≡ true
∨-split true  y e = inj₁ refl
∨-split false y e = inj₂ e

∧-fst : ∀ x y → (x ∧ y) ≡ true → x ≡ true
∧-fst true y e = refl

------------------------------------------------------------------------
-- The last barrier's map: what it reads, which pages it names

-- it reads SB's newest candidate
last-reads : ∀ s M es xs X → (∀ a → a ≤ amax → rdD (dat s) (M a) ≡ X a) → GhL s M es xs →
             ∀ a → a ≤ amax → rdD (dat s) (lastMap M es a) ≡ SB.lastA X xs a
last-reads s M []       []        X h _         = h
last-reads s M (e ∷ es) (X′ ∷ xs) X h (gd , gl) = last-reads s (eM e M) es xs X′ (λ a le → proj₁ (gd a le)) gl
last-reads s M []       (_ ∷ _)   X h ()
last-reads s M (_ ∷ _)  []        X h ()

lastMap-≐ : ∀ {M M'} → M ≐ M' → ∀ es → lastMap M es ≐ lastMap M' es
lastMap-≐ e []       = e
lastMap-≐ e (x ∷ es) = lastMap-≐ (eM-≐ x e) es

------------------------------------------------------------------------
-- The replay of the unsynced epochs as laid out: the last barrier's map

-- given Fresh (nothing of the first epoch's id pending below it)
rpE-last : ∀ g es R → Fresh es R → proj₁ (rpE g (map (ue g) es) R) ≡ lastMap (proj₁ R) es
rpE-last g []                        R f = refl
rpE-last g ((x , ps , dd , pss , L) ∷ es) R f =
  trans (cong (λ r → proj₁ (rpE g (map (ue g) es) r)) (ue-rp g e R))
   (trans (rpE-last g es (M′ , x , M′) (fresh-next es M′ x))
          (cong (λ M → lastMap (eM e M) es) f))
  where
    e = (x , ps , dd , pss , L)
    M′ = eM e (rbase x R)

-- after at least one epoch the replay has nothing pending beyond its map
rpE-form : ∀ g e es R → Σ Map λ M → Σ ℕ λ x → rpE g (map (ue g) (e ∷ es)) R ≡ (M , x , M)
rpE-form g (x , ps , dd , pss , L) []       R = _ , _ , ue-rp g (x , ps , dd , pss , L) R
rpE-form g (x , ps , dd , pss , L) (e′ ∷ es) R =
  rpE-form g e′ es (rp g (proj₁ (ue g (x , ps , dd , pss , L)) ∷ proj₂ (ue g (x , ps , dd , pss , L))) R)

------------------------------------------------------------------------
-- The region after the SYNC

private
  length-tents : ∀ g x pss → length (tents g x pss) ≡ length pss
  length-tents g x []         = refl
  length-tents g x (ps ∷ pss) = cong suc (length-tents g x pss)

  sync-syn : ∀ ms → All Syn ms → map sync ms ≡ ms
  sync-syn []       []              = refl
  sync-syn (m ∷ ms) ((c , refl) ∷ a) = cong (syn c ∷_) (sync-syn ms a)

  sync-uns : ∀ cs → map sync (map (uns erased) cs) ≡ map syn cs
  sync-uns []       = refl
  sync-uns (c ∷ cs) = cong (syn c ∷_) (sync-uns cs)


  cur-syn-++ : ∀ cs ms → map cur (map syn cs ++ ms) ≡ cs ++ map cur ms
  cur-syn-++ cs ms = trans (map-cur-++ (map syn cs) ms) (cong (_++ map cur ms) (map-cur-syn cs))

-- (the region's landing: also PUSB's)
all-syn : ∀ cs → All Syn (map syn cs)
all-syn []       = []
all-syn (c ∷ cs) = (c , refl) ∷ all-syn cs

cur-landR : ∀ n ms → map cur (landR n ms) ≡ map cur ms
cur-landR zero    []       = refl
cur-landR zero    (m ∷ ms) = cong (cur m ∷_) (cur-landR zero ms)
cur-landR (suc n) []       = refl
cur-landR (suc n) (m ∷ ms) = cong (cur m ∷_) (cur-landR n ms)

-- the open epoch's tentative pages on top, the epochs and the durable
-- part below them durable
landR-eq : ∀ T L prM → All Syn prM →
           landR (length T) (map (uns erased) (T ++ L) ++ prM) ≡ map (uns erased) T ++ (map syn L ++ prM)
landR-eq []      L prM a =
  trans (map-++-commute sync (map (uns erased) L) prM) (cong₂ _++_ (sync-uns L) (sync-syn prM a))
landR-eq (c ∷ T) L prM a = cong (uns erased c ∷_) (landR-eq T L prM a)

-- the region below the open epoch after the SYNC replays as the epochs
-- over the old durable part
rp-laid : ∀ g es prM C → rp g (map cur (map syn (lay (map (ue g) es) []) ++ prM)) (st0 C)
                        ≡ rpE g (map (ue g) es) (rp g (map cur prM) (st0 C))
rp-laid g es prM C =
  trans (cong (λ z → rp g z (st0 C)) (cur-syn-++ L prM))
   (trans (rp-++ g L (map cur prM) (st0 C)) (rp-lay g (map (ue g) es) [] (rp g (map cur prM) (st0 C))))
  where L = lay (map (ue g) es) []

-- BI's `rf` after the SYNC: with no epoch, the old one; with epochs, the
-- replay ends at a committed page, nothing pending beyond its map
rf-sync : ∀ g x es prM C → rbase (fid es x) (rp g (map cur prM) (st0 C)) ≡ proj₁ (rp g (map cur prM) (st0 C)) →
          rbase x (rp g (map cur (map syn (lay (map (ue g) es) []) ++ prM)) (st0 C))
            ≡ proj₁ (rp g (map cur (map syn (lay (map (ue g) es) []) ++ prM)) (st0 C))
rf-sync g x []       prM C rf = rf
rf-sync g x (e ∷ es) prM C rf =
  trans (cong (rbase x) q) (trans (rbase-same x M y) (sym (cong proj₁ q)))
  where
    F = rpE-form g e es (rp g (map cur prM) (st0 C))
    M = proj₁ F
    y = proj₁ (proj₂ F)
    q = trans (rp-laid g (e ∷ es) prM C) (proj₂ (proj₂ F))

-- BI after the SYNC: the durable part is the old one with the epochs on
-- top, and it replays to the last barrier's map
bi-sync : ∀ {s es r} → BI s es → BI (syU es r s) []
bi-sync {s} {es} {r} (bi C prM slt dre sy rx rf) =
  bi C prM′ slt dre′ sy′ rx′ (rf-sync g (ep s) es prM C rf)
  where
    g = gen s
    T = tents g (ep s) (ept s)
    L = lay (map (ue g) es) []
    prM′ = map syn L ++ prM
    R = rp g (map cur prM) (st0 C)

    dre′ : landR (length (ept s)) (dr s) ≡ map (uns erased) (T ++ []) ++ prM′
    dre′ = trans (cong₂ landR (sym (length-tents g (ep s) (ept s))) dre)
            (trans (landR-eq T L prM sy)
                   (cong (λ z → map (uns erased) z ++ prM′) (sym (++-identityʳ T))))

    sy′ : All Syn prM′
    sy′ = ++⁺ (all-syn L) sy

    rx′ : proj₁ (rp g (map cur prM′) (st0 C)) ≐ lastMap (smap s) es
    rx′ a = trans (cong (λ z → proj₁ z a) (rp-laid g es prM C))
             (trans (cong (λ M → M a) (rpE-last g es R (fresh-of es (ep s) R rf)))
                    (lastMap-≐ rx es a))

------------------------------------------------------------------------
-- Type A against SB's `sy`, every invariant kept

sync-Inv : ∀ {s t r} → Inv s t → Rel s r → OobU s → Inv (syS r s) (tS t)
sync-Inv {s} {t} {r} ((av , sa) , (g , sm , gh , dl , sy) , b , so) rel lo =
  (arv , ars) , (gci , smi , (tt , proj₂ gh) , tt , syi) , bi-sync {st s} {ues s} {r} b , so
  where
    u  = st s
    es = ues s
    LM = lastMap (smap u) es

    arv : ARv (syS r s) (tS t)
    arv = (λ a le → trans (rdMD-sy (mb u) (dat u) (l2p u a)) (proj₁ av a le)) , proj₁ (proj₂ av) , refl

    ars : ARs (syS r s) (tS t)
    ars a le = trans (rdD-sy (dat u) (LM a)) (last-reads u (smap u) es (SB.pend t) (SB.stable t) sa (proj₁ gh) a le)

    gci : GcI (syU es r u)
    gci = record
      { blw  = GcI.blw g
      ; oobI = GcI.oobI g
      ; ersI = λ p e → ers′ p (∨-split (ers u p) (r p) e)
      ; invI = λ p e → GcI.invI g p (∧-fst (inv u p) (not (r p)) e)
      }
      where
        ers′ : ∀ p → ers u p ≡ true ⊎ r p ≡ true → Free u p
        ers′ p (inj₁ e) = GcI.ersI g p e
        ers′ p (inj₂ e) = GcI.invI g p (proj₁ (rel p e))

    smi : SmI (syU es r u)
    smi a p le q with last-ok u (smap u) es (SB.pend t) sm (proj₁ gh) a p le q
    ... | lt , mbn , ne = lt , mbn , λ e → no (∨-split (ers u p) (r p) e)
      where
        no : ers u p ≡ true ⊎ r p ≡ true → ⊥
        no (inj₁ x) = ne x
        no (inj₂ y) = proj₂ (rel p y) a le q

    syi : SyI (syU es r u)
    syi a p le q = cur (dat u p) , refl , lo a p le q

sync-A : ∀ {s t r} → Inv s t → Rel s r → OobU s →
         Σ SB.State λ t' → SB.okSB (SB.use (SB.reg (SB.op SB.sy))) t t' × Inv (syS r s) t'
sync-A {s} {t} {r} iv rel lo = tS t , sy-SB t , sync-Inv {s} {t} {r} iv rel lo

sync-GenR : ∀ {s r} → GenR (st s) → GenR (st (syS r s))
sync-GenR {s} gr = subst (All (GenLe (gen (st s)))) (sym (cur-landR (length (ept (st s))) (dr (st s)))) gr

-- a crash right after the SYNC: recovery, with the new state's ghost (no
-- unsynced epoch, the whole region below the open epoch durable), reads
-- a candidate of SB after `sy`, whose only candidate is the last
-- barrier's image
sync-crash : ∀ {s t r s''} → Inv s t → GenR (st s) → Rel s r → OobU s → Img (st (syS r s)) s'' →
             RecG s'' (ghostN (syS r s)) (tS t)
sync-crash {s} {t} {r} {s''} iv gr rel lo img =
  crash-normal-G {syS r s} {tS t} {s''} (sync-Inv {s} {t} {r} iv rel lo) (sync-GenR {s} {r} gr) img

-- SB after `sy` has one candidate: the newest image of SB before it
sy-cands : ∀ t → SB.cands (tS t) ≡ SB.lastA (SB.stable t) (SB.pend t) ∷ []
sy-cands t = refl

-- and OobU after it: no epoch unsynced, SyI
sync-OobU : ∀ {s t r} → Inv s t → Rel s r → OobU s → OobU (syS r s)
sync-OobU {s} {t} {r} iv rel lo =
  oob-nil (syS r s) refl (proj₂ (proj₂ (proj₂ (proj₂ (proj₁ (proj₂ (sync-Inv {s} {t} {r} iv rel lo)))))))

------------------------------------------------------------------------
-- PUS: PUM with the SYNC outside a commit, Theorem 1 and SC1B
--
-- PUM's states, steps, crashes and recovery, and `sy`: the SYNC with a
-- release the guard allows (`syS`, the ghost set to the new state's:
-- no unsynced epoch, the whole region below the open epoch durable); a
-- crash in it is a crash before the SYNC (the state's own flash and
-- ghost) or after it (the synced state's).  Its AR is PUM's with `OobU`.

okS : SB.Op → SU → SU → Set
okS (SB.use (SB.reg (SB.op SB.sy))) S S' =
  Σ (ℕ → Bool) λ r → Rel (su S) r × su S' ≡ syS r (su S) × gh S' ≡ ghostN (su S')
okS o = okPU o

crashS : SB.Op → SU → SU → Set
crashS (SB.use (SB.reg (SB.op SB.sy))) S S' =
  ( (Img (st (su S)) (st (su S')) × gh S' ≡ ghostN (su S))
  ⊎ (Σ (ℕ → Bool) λ r → Rel (su S) r × Img (st (syS r (su S))) (st (su S')) × gh S' ≡ ghostN (syS r (su S))))
  × ues (su S') ≡ []
crashS o = crashPU o

PUS : SB.Model
PUS = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okS ; crash = crashS }

-- not vacuous: from every PU state the SYNC can step (releasing nothing)
sync-total : ∀ S → Σ SU λ S' → okS (SB.use (SB.reg (SB.op SB.sy))) S S'
sync-total S = ⟦ syS (λ _ → false) (su S) , ghostN (syS (λ _ → false) (su S)) ⟧ ,
               (λ _ → false) , no-release (su S) , refl , refl

open SB.ForwardSimulation PUS SB.SB using () renaming (Obligations to ObligationsS)

ARS : SU → SB.State → Set
ARS S t = ARP S t × OobU (su S)

module OU = SB.ForwardSimulation.Obligations obligationsU

-- PUM's type A with OobU kept
lift-ok : ∀ u {S t S'} → ARS S t → okPU (SB.use u) S S' → Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARS S' t'
lift-ok u {S} {t} {S'} (iv , ob) o =
  let A = OU.A-ok u {S} {t} {S'} iv tt o in
  proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
  oobU-ok u {su S} {t} {su S'} (proj₁ (proj₂ (proj₁ iv))) (okM⇒okU u {su S} {su S'} (proj₁ o)) ob

AS-ok : ∀ u {S t S'} → ARS S t → ⊤ → okS (SB.use u) S S' → Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARS S' t'
AS-ok (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar _ o = lift-ok (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar o
AS-ok (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar _ o = lift-ok (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar o
AS-ok (SB.reg (SB.op SB.es)) {S} {t} {S'} ar _ o = lift-ok (SB.reg (SB.op SB.es)) {S} {t} {S'} ar o
AS-ok (SB.reg SB.barrier) {S} {t} {S'} ar _ o = lift-ok (SB.reg SB.barrier) {S} {t} {S'} ar o
AS-ok SB.flush {S} {t} {S'} ar _ o = lift-ok SB.flush {S} {t} {S'} ar o
AS-ok (SB.reg (SB.op SB.sy)) {S} {t} {⟦ .(syS r (su S)) , g ⟧} ((iv , gr) , ob) _ (r , rel , refl , _) =
  tS t , sy-SB t , (sync-Inv {su S} {t} {r} iv rel ob , sync-GenR {su S} {r} gr) , sync-OobU {su S} {t} {r} iv rel ob

AS-crash : ∀ u {S t S'} → ARS S t → ⊤ → crashS (SB.use u) S S' → Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRP S' t'
AS-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} (iv , _) _ c = OU.A-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} iv tt c
AS-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} (iv , _) _ c = OU.A-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} iv tt c
AS-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} (iv , _) _ c = OU.A-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} iv tt c
AS-crash (SB.reg SB.barrier) {S} {t} {S'} (iv , _) _ c = OU.A-crash (SB.reg SB.barrier) {S} {t} {S'} iv tt c
AS-crash SB.flush {S} {t} {S'} (iv , _) _ c = OU.A-crash SB.flush {S} {t} {S'} iv tt c
AS-crash (SB.reg (SB.op SB.sy)) {S} {t} {⟦ s' , .(ghostN (su S)) ⟧} ((iv , gr) , ob) _ (inj₁ (img , refl) , _) =
  t , inj₁ (refl , refl) , crash-normal-G {su S} {t} {st s'} iv gr img
AS-crash (SB.reg (SB.op SB.sy)) {S} {t} {⟦ s' , .(ghostN (syS r (su S))) ⟧} ((iv , gr) , ob) _ (inj₂ (r , rel , img , refl) , _) =
  tS t , inj₂ (length (SB.pend t) , sy-all t) , sync-crash {su S} {t} {r} {st s'} iv gr rel ob img

AS-rec : ∀ {S t S'} → CRP S t → ⊤ → okS SB.recover S S' → Σ SB.State λ t' → SB.okSB SB.recover t t' × ARS S' t'
AS-rec {S} {t} {S'} cr _ o@(_ , eu , _) =
  let A = OU.A-rec {S} {t} {S'} cr tt o in
  proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
  oob-nil (su S') eu (proj₂ (proj₂ (proj₂ (proj₂ (proj₁ (proj₂ (proj₁ (proj₂ (proj₂ A)))))))))

obligationsS : ObligationsS
obligationsS = record
  { AR = ARS ; CR = CRP ; RI = λ _ → ⊤ ; CI = λ _ → ⊤
  ; AR⇒≈ = λ {S} {t} ar → OU.AR⇒≈ {S} {t} (proj₁ ar)
  ; init-CR = λ {S} {t} n n′ → OU.init-CR {S} {t} n n′
  ; init-CI = λ _ → tt
  ; A-ok = AS-ok ; A-crash = AS-crash ; A-rec = λ {S} {t} {S'} → AS-rec {S} {t} {S'}
  ; A-recᶜ = λ {S} {t} {S'} → OU.A-recᶜ {S} {t} {S'}
  ; B-ok = λ _ _ _ → tt ; B-crash = λ _ _ _ → tt ; B-rec = λ _ _ → tt ; B-recᶜ = λ _ _ → tt
  }

-- Theorem 1 for PU with the SYNC outside a commit, against SB, and
-- snapshot consistency with barriers
theorem1-PUS : SB.CorrespondenceB.BehaviourallyCorrect PUS SB.SB
theorem1-PUS = SB.theorem1-SB PUS obligationsS

PUS-snapshot-consistent : SB.SnapshotConsistentB PUS
PUS-snapshot-consistent = SB.obligations⇒SCB PUS obligationsS

------------------------------------------------------------------------
-- PUSc: PUMc (every flash command boundary of PU's operations and of
-- recovery's checkpoint a crash point) with the SYNC outside a commit,
-- whose only command is the SYNC: its crash points are the two
-- boundaries, before it and after it, as in PUS

crashSc : SB.Op → SU → SU → Set
crashSc (SB.use (SB.reg (SB.op SB.sy))) S S' = crashS (SB.use (SB.reg (SB.op SB.sy))) S S'
crashSc o = crashPUc o

PUSc : SB.Model
PUSc = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okS ; crash = crashSc }

open SB.ForwardSimulation PUSc SB.SB using () renaming (Obligations to ObligationsSc)

private
  module OC = SB.ForwardSimulation.Obligations obligationsC

  ASc-crash : ∀ u {S t S'} → ARS S t → ⊤ → crashSc (SB.use u) S S' → Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRP S' t'
  ASc-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} (iv , _) _ c = OC.A-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} iv tt c
  ASc-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} (iv , _) _ c = OC.A-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} iv tt c
  ASc-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} (iv , _) _ c = OC.A-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} iv tt c
  ASc-crash (SB.reg SB.barrier) {S} {t} {S'} (iv , _) _ c = OC.A-crash (SB.reg SB.barrier) {S} {t} {S'} iv tt c
  ASc-crash SB.flush {S} {t} {S'} (iv , _) _ c = OC.A-crash SB.flush {S} {t} {S'} iv tt c
  ASc-crash (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar _ c = AS-crash (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar tt c

obligationsSc : ObligationsSc
obligationsSc = record
  { AR = ARS ; CR = CRP ; RI = λ _ → ⊤ ; CI = λ _ → ⊤
  ; AR⇒≈ = λ {S} {t} ar → OU.AR⇒≈ {S} {t} (proj₁ ar)
  ; init-CR = λ {S} {t} n n′ → OU.init-CR {S} {t} n n′
  ; init-CI = λ _ → tt
  ; A-ok = AS-ok ; A-crash = ASc-crash ; A-rec = λ {S} {t} {S'} → AS-rec {S} {t} {S'}
  ; A-recᶜ = λ {S} {t} {S'} → OC.A-recᶜ {S} {t} {S'}
  ; B-ok = λ _ _ _ → tt ; B-crash = λ _ _ _ → tt ; B-rec = λ _ _ → tt ; B-recᶜ = λ _ _ → tt
  }

-- Theorem 1 and SC1B for PU with the SYNC outside a commit and every
-- flash command boundary a crash point
theorem1-PUSc : SB.CorrespondenceB.BehaviourallyCorrect PUSc SB.SB
theorem1-PUSc = SB.theorem1-SB PUSc obligationsSc

PUSc-snapshot-consistent : SB.SnapshotConsistentB PUSc
PUSc-snapshot-consistent = SB.obligations⇒SCB PUSc obligationsSc

------------------------------------------------------------------------
-- P's in-page and OOB commits from a state with no unsynced epoch (the
-- code's flush right after its bare SYNC): their end states are PUM's
-- flush's but for the record slot, which nothing PU checks or recovers
-- reads

-- PU's invariants are blind to the record slots (the record invariants
-- `GcI` and `BI` rebuilt field by field, the rest as they are)
gci-rcd : ∀ {u R} → GcI u → GcI (record u { rcd = R })
gci-rcd g = record { blw = GcI.blw g ; oobI = GcI.oobI g ; ersI = GcI.ersI g ; invI = GcI.invI g }

bi-rcd : ∀ {u es R} → BI u es → BI (record u { rcd = R }) es
bi-rcd (bi C prM slt dre sy rx rf) = bi C prM slt dre sy rx rf

ghl-rcd : ∀ {u R} M es xs → GhL u M es xs → GhL (record u { rcd = R }) M es xs
ghl-rcd M []       []       _       = tt
ghl-rcd M (e ∷ es) (X ∷ xs) (d , l) = d , ghl-rcd (eM e M) es xs l
ghl-rcd M []       (_ ∷ _)  ()
ghl-rcd M (_ ∷ _)  []       ()

inv-rcd : ∀ {u us t R} → Inv′ ⟪ u , us ⟫ t → Inv′ ⟪ record u { rcd = R } , us ⟫ t
inv-rcd {u} {us} {t} ((ar , (g , sm , (l , vm) , dl , sy) , b , so) , gr) =
  (ar , (gci-rcd g , sm , (ghl-rcd (smap u) us (SB.pend t) l , vm) , dl , sy) , bi-rcd b , so) , gr

ck3-fi3-Inv : ∀ {s t M} → Inv′ ⟪ ck3 (fl3 s) , [] ⟫ t → Inv′ ⟪ ck3 (fi3 M s) , [] ⟫ t
ck3-fi3-Inv {s} {t} {M} iv = inv-rcd {ck3 (fl3 s)} {[]} {t} {rcd (ck3 (fi3 M s))} iv
