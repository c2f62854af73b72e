{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: the IN-PAGE AND OOB COMMITS after the SYNC
-- outside a commit.
--
-- While epochs are unsynced the code's flush issues a bare SYNC before
-- an in-page or OOB commit (`flush.rs`), so such a commit always starts
-- from a state with no epoch unsynced: PUS's state right after `sy`
-- (`SCFTL.Impl.UnsyncedSync`), or any state PU reaches with `ues = []`.
-- From there the flush may be P's in-page commit (`InP`, record in the
-- slot of the page at the link L) or OOB commit (`OobP`, record in the
-- slot of the run's last page M), with the consolidation page (`fi4`) or
-- a full checkpoint (`ck3 (fi3 M _)`) after it.
--
--   fi4-Inv, ck3-fi3-Inv   their end states are PUM's flush's (`fl3`,
--                `ck3 (fl3 _)`) but for the record slot, which nothing
--                PU checks or recovers reads (`inv-rcd`): type A
--                (`fi-A`) is the flush's
--   crash-Fi     every crash point P gives them (`FiPt`/`FoPt`): before
--                the SYNC (`fi2`: the merge buffer programmed, the record
--                in its slot, no region page) and inside the checkpoint
--                with the old slot (`ck1`, junk or old) the image before
--                the flush, read as the barrier's crash with its
--                committed page lost (`pad-case`: PU's barrier, `pre-sync`,
--                less its top epoch, `drop-pad`); with the new slot
--                (`ck1`, `ck2`) the flushed image (`new-slot-G`); at the
--                consolidation page before its SYNC (`fiK`) the barrier's
--                crash itself (the consolidation page is the page `fl2`
--                appends); at the ends the end states' own
--   PUSi         PUS with those flushes (`FiOk`) and their crash points
--                (`CrFi`), and recovery without the full checkpoint where
--                it accepts every unsynced epoch (`RecC`, `RecCc`:
--                `SCFTL.Impl.UnsyncedRecClean`'s `recR-A`, the choice
--                unified with the crash relation's, `rec-clean`):
--                `theorem1-PUSi`, `PUSi-snapshot-consistent`
--
-- Recovery never follows the record (PUM's recovery has no walk `chn`):
-- a crash after the record's SYNC and before the consolidation page's
-- or the checkpoint's recovers the image before the flush, which SB's
-- crashed flush allows.  PUSi's crash points are the operations', as
-- PUM's; every flash command boundary of these flushes is a crash point
-- of PUSic (SCFTL.Impl.UnsyncedSyncInPageCommands).  Left out: the lazy
-- chain (PL, a model beside).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedSyncInPage (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                     (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; drop)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (GenLe; Older; PM; PM-cur; map-cur-sync; pick-first; pick-second)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_ using (padW)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues; flB; epE)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (tents)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI)
open import SCFTL.Impl.UnsyncedCrashes Data d0 amax wmax kmax umax _≟D_ using (Inv; A-Inv; pre-sync; preT)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (GenR; Inv′; genR-ok)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_
  using (Gh; RecG; RecG-rcd; ghostN; shpN; prN; crash-normal-G; RecG-cpO; RecG-pr; new-slot-G;
         SU; ⟦_,_⟧; su; gh; okPU; crashPU; NewPU; CRP; choice; rgMap; RecGM; crash-normal-GM;
         RecG-rcd-M; RecG-cpO-M; RecG-pr-M; new-slot-GM; recgm-≐)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recM)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (mapAt-nil; mapAt)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_ using (ParseS)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR; shapes; parse-unique)
open import SCFTL.Impl.UnsyncedRecClean Data d0 amax wmax kmax umax _≟D_ using (Clean; recR-A)
open import SCFTL.Impl.UnsyncedCommands Data d0 amax wmax kmax umax _≟D_ using (sB; ntop; drop-pad; drop-pad-M; skip-top; ghost-sB)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (oob-nil)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_
  using (inv-rcd; ck3-fi3-Inv; okS; crashS; ARS; module OU; AS-ok; AS-crash; AS-rec)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- Crash outcomes: a crash of a synced page is one of the page

private
  land-D : ∀ x → CrashD x (sync x)
  land-D (syn c)   = refl
  land-D (uns o n) = n , refl

  land-C : ∀ x → CrashC x (sync x)
  land-C (syn c)   = refl
  land-C (uns o n) = inj₂ (inj₁ refl)

  crashD-sync : ∀ x {y} → CrashD (sync x) y → CrashD x y
  crashD-sync x refl = land-D x

  crashC-sync : ∀ x {y} → CrashC (sync x) y → CrashC x y
  crashC-sync x refl = land-C x

  crashL-sync : ∀ xs {ys} → CrashL (map sync xs) ys → CrashL xs ys
  crashL-sync []       []       = []
  crashL-sync (x ∷ xs) (c ∷ cl) = crashC-sync x c ∷ crashL-sync xs cl

  crashL-cur : ∀ xs {ys} → CrashL (map sync xs) ys → map cur ys ≡ map cur xs
  crashL-cur []       []          = refl
  crashL-cur (x ∷ xs) (refl ∷ cl) = cong (cur x ∷_) (crashL-cur xs cl)

  sync-idem : ∀ xs → map sync (map sync xs) ≡ map sync xs
  sync-idem []       = refl
  sync-idem (x ∷ xs) = cong (sync x ∷_) (sync-idem xs)

  -- the checkpoint's erase of the region: what is left keeps the generations
  crash-erase : ∀ {g} ms {ms'} → All (GenLe g) (map cur ms) → CrashL (map (put erased) (map sync ms)) ms' →
                All (GenLe g) (map cur ms')
  crash-erase []       []       []                          = []
  crash-erase (m ∷ ms) (x ∷ xs) (inj₁ refl ∷ cl)            = x  ∷ crash-erase ms xs cl
  crash-erase (m ∷ ms) (x ∷ xs) (inj₂ (inj₁ refl) ∷ cl)     = tt ∷ crash-erase ms xs cl
  crash-erase (m ∷ ms) (x ∷ xs) (inj₂ (inj₂ refl) ∷ cl)     = tt ∷ crash-erase ms xs cl

------------------------------------------------------------------------
-- The end states

fi4-dr : ∀ M s → dr (fi4 M s) ≡ dr (fl3 s)
fi4-dr M s = cong (syn (rec s) ∷_) (sync-idem (dr s))

fi4-Inv : ∀ {s t M} → Inv′ ⟪ fl3 s , [] ⟫ t → Inv′ ⟪ fi4 M s , [] ⟫ t
fi4-Inv {s} {t} {M} iv =
  subst (λ d → Inv′ ⟪ record (fi4 M s) { dr = d } , [] ⟫ t) (sym (fi4-dr M s))
        (inv-rcd {fl3 s} {[]} {t} {rcd (fi4 M s)} iv)

-- P's in-page commit at the link L, or OOB commit of the run ending at M
InPO : St → ℕ → Set
InPO s M = (Σ ℕ λ L → InP s L × M ≡ L) ⊎ (Σ ℕ λ L → OobP s L M)

InPO-ept : ∀ {s M} → InPO s M → ept s ≡ []
InPO-ept (inj₁ (L , (_ , et , _) , _)) = et
InPO-ept (inj₂ (L , (_ , et , _))) = et

-- the flush: from a state with no epoch unsynced, P's in-page or OOB
-- commit, with the consolidation page or a full checkpoint after it
FiOk : StU → StU → Set
FiOk s s' = ues s ≡ [] × Σ ℕ λ M → InPO (st s) M × (s' ≡ ⟪ fi4 M (st s) , [] ⟫ ⊎ s' ≡ ⟪ ck3 (fi3 M (st s)) , [] ⟫)

-- PUM's flush (`fl3`), and after it its checkpoint, as SB's flush
fl3-A : ∀ {s t} → Inv′ s t → Σ SB.State λ t' → SB.okSB (SB.use SB.flush) t t' × Inv′ ⟪ fl3 (st s) , [] ⟫ t'
fl3-A {s} {t} (iv , gr) =
  let A = A-Inv SB.flush {s} {t} {⟪ fl3 (st s) , [] ⟫} iv (inj₁ refl , refl) in
  proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) , genR-ok SB.flush {s} {⟪ fl3 (st s) , [] ⟫} (inj₁ refl , refl) gr

ck3-A : ∀ {s t} → Inv′ s t → Σ SB.State λ t' → SB.okSB (SB.use SB.flush) t t' × Inv′ ⟪ ck3 (fl3 (st s)) , [] ⟫ t'
ck3-A {s} {t} (iv , gr) =
  let A = A-Inv SB.flush {s} {t} {⟪ ck3 (fl3 (st s)) , [] ⟫} iv (inj₂ (inj₁ refl) , refl) in
  proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
  genR-ok SB.flush {s} {⟪ ck3 (fl3 (st s)) , [] ⟫} (inj₂ (inj₁ refl) , refl) gr

fi-A : ∀ {s t s'} → Inv′ s t → FiOk s s' → Σ SB.State λ t' → SB.okSB (SB.use SB.flush) t t' × Inv′ s' t'
fi-A {s} {t} iv (eu , M , po , inj₁ refl) =
  let A = fl3-A {s} {t} iv in proj₁ A , proj₁ (proj₂ A) , fi4-Inv {st s} {proj₁ A} {M} (proj₂ (proj₂ A))
fi-A {s} {t} iv (eu , M , po , inj₂ refl) =
  let A = ck3-A {s} {t} iv in proj₁ A , proj₁ (proj₂ A) , ck3-fi3-Inv {st s} {proj₁ A} {M} (proj₂ (proj₂ A))

------------------------------------------------------------------------
-- Crash points

-- P's crash points of the in-page / OOB flush (`FiPt`, `FoPt`), with the
-- ghost each leaves: the state's before the SYNC, the whole region as
-- durable part inside the checkpoint, the barrier's at the consolidation
-- page before its SYNC (it is the page `fl2` appends), the end states'
CrFi : StU → ℕ → St → Gh → Set
CrFi s M s'' g =
    (Img (fi2 M (st s)) s'' × g ≡ ghostN s)
  ⊎ ((Img (ck1 (fi3 M (st s))) s'' ⊎ Img (ck2 (fi3 M (st s))) s'') × g ≡ ([] , map cur (dr s'')))
  ⊎ (Img (ck3 (fi3 M (st s))) s'' × g ≡ ghostN ⟪ ck3 (fi3 M (st s)) , [] ⟫)
  ⊎ (Img (fiK M (st s)) s'' × g ≡ ghostN (sB s))
  ⊎ (Img (fi4 M (st s)) s'' × g ≡ ghostN ⟪ fi4 M (st s) , [] ⟫)

-- a crash whose flash is the barrier's with its committed page lost (the
-- record slots aside) recovers, with the state's own ghost, the image
-- before it: PU's barrier crash (`pre-sync`) less its top epoch
pad-case-M : ∀ {s t s4} → Inv′ s t → Img (flB (st s)) (padW (erased ∷ []) s4) → CrashL (dr (st s)) (dr s4) →
             Σ ℕ λ k → k ≤ length (ues s ++ epE (st s) ∷ []) ×
               RecGM s4 (ghostN s) (preT t) (mapAt (smap (flB (st s))) (ues s ++ epE (st s) ∷ []) k)
pad-case-M {s} {t} {s4} (iv , gr) img' cl =
  proj₁ G , proj₁ (proj₂ G) ,
  drop-pad-M {s4} {shpN s} {ntop s} {prN s} {preT t} {M} (proj₁ SK) (proj₁ (proj₂ SK))
           (proj₁ (proj₂ (proj₂ SK))) (proj₁ (proj₂ (proj₂ (proj₂ SK)))) (proj₁ (proj₂ (proj₂ (proj₂ (proj₂ SK)))))
           (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ SK)))))
           (subst (λ g → RecGM (padW (erased ∷ []) s4) g (preT t) M) (ghost-sB s) (proj₂ (proj₂ G)))
  where
    SK = skip-top {s} {s4} (proj₁ (proj₂ (proj₂ iv))) cl
    G  = crash-normal-GM {sB s} {preT t} {padW (erased ∷ []) s4} (pre-sync {s} {t} iv) (≤-refl ∷ gr) img'
    M  = mapAt (smap (flB (st s))) (ues s ++ epE (st s) ∷ []) (proj₁ G)

pad-case : ∀ {s t s4} → Inv′ s t → Img (flB (st s)) (padW (erased ∷ []) s4) → CrashL (dr (st s)) (dr s4) →
           RecG s4 (ghostN s) (preT t)
pad-case {s} {t} {s4} iv img' cl = proj₁ (proj₂ (proj₂ (pad-case-M {s} {t} {s4} iv img' cl)))

-- before the SYNC: the merge buffer programmed and the record in its
-- slot, no region page — the barrier's flash with its committed page lost
fi2-flB : ∀ M s {s''} → Img (fi2 M s) s'' →
          Img (flB s) (padW (erased ∷ []) (record s'' { rcd = λ p → sync (rcd s p) }))
fi2-flB M s (cd , cL , cO , cl , cr) = cd , cL , cO , (inj₁ refl ∷ cl) , (λ p → land-C (rcd s p))

-- the consolidation page before its SYNC: the barrier's flash, synced
fiK-flB : ∀ M s {s''} → Img (fiK M s) s'' → Img (flB s) (record s'' { rcd = λ p → sync (rcd s p) })
fiK-flB M s (cd , cL , cO , c ∷ cl , cr) =
  (λ p → crashD-sync (progm (mb s p) (dat s p)) (cd p)) , crashC-sync (cpL s) cL , crashC-sync (cpO s) cO ,
  (c ∷ crashL-sync (dr s) cl) , (λ p → land-C (rcd s p))

-- with no epoch unsynced and no tentative page, the state's ghost is
-- the whole region as durable part
ghost-nil : ∀ {u} → ept u ≡ [] → ghostN ⟪ u , [] ⟫ ≡ ([] , map cur (dr u))
ghost-nil {u} et = cong (λ e → [] , map cur (drop (length (tents (gen u) (ep u) e ++ [])) (dr u))) et

private
  crash-syn : ∀ {m m' c} → m ≡ syn c → CrashC m m' → m' ≡ syn c
  crash-syn refl e = e

  fl-fb : ∀ {t t'} → SB.okSB (SB.use SB.flush) t t' → SB.stable t' ≡ SB.volatile t × SB.pend t' ≡ []
  fl-fb (_ , e1 , e2 , _) = e1 , e2

-- (`crash-Fi-M`: with the map named — a map of the barrier's end state,
-- whose flash the commit's is until its SYNC, or the committed volatile
-- L2P; SCFTL.Impl.OneModelRecMaps)
FiMap : StU → St → Gh → SB.State → Set
FiMap s s'' g t' = (Σ ℕ λ k → RecGM s'' g t' (mapAt (smap (flB (st s))) (ues s ++ epE (st s) ∷ []) k)) ⊎ RecGM s'' g t' (l2p (st s))

crash-Fi-M : ∀ {s t M s'' g} → Inv′ s t → ues s ≡ [] → InPO (st s) M → CrFi s M s'' g →
             Σ SB.State λ t' → t SB.─fbᶜ→ t' × FiMap s s'' g t'
-- before the SYNC
crash-Fi-M {s} {t} {M} {s''} iv eu po (inj₁ (img , refl)) =
  preT t , inj₁ (refl , refl) ,
  inj₁ (proj₁ PC , RecG-rcd-M {s''} {λ p → sync (rcd (st s) p)} {ghostN s} {preT t} (proj₂ (proj₂ PC)))
  where PC = pad-case-M {s} {t} {record s'' { rcd = λ p → sync (rcd (st s) p) }} iv (fi2-flB M (st s) {s''} img) (proj₁ (proj₂ (proj₂ (proj₂ img))))
-- inside the checkpoint: the new slot programmed
crash-Fi-M {⟪ u , us ⟫} {t} {M} {s''} iv refl po (inj₂ (inj₁ (inj₁ (cd , cL , cO , cl , cr) , refl))) = go cO
  where
    b = proj₁ (proj₂ (proj₂ (proj₁ iv)))
    so = proj₂ (proj₂ (proj₂ (proj₁ iv)))
    F = fl3-A {⟪ u , [] ⟫} {t} iv
    sl : cpL s'' ≡ syn (cpt (gen u) (BI.C b))
    sl = crash-syn (cong sync (BI.slt b)) cL
    pk0 : ∀ c → Older (gen u) c → pick (cur (cpL s'')) c ≡ just (true , gen u , BI.C b)
    pk0 c o = trans (cong (λ m → pick (cur m) c) sl) (pick-first (gen u) (BI.C b) c o)
    s4 = record s'' { cpO = sync (cpO u) ; rcd = λ p → sync (rcd u p) }
    img4 : Img (flB u) (padW (erased ∷ []) s4)
    img4 = (λ p → crashD-sync (progm (mb u p) (dat u p)) (cd p)) , crashC-sync (cpL u) cL , land-C (cpO u) ,
           (inj₁ refl ∷ crashL-sync (dr u) cl) , (λ p → land-C (rcd u p))
    PC = pad-case-M {⟪ u , [] ⟫} {t} {s4} iv img4 (crashL-sync (dr u) cl)
    Bk = mapAt (smap (flB u)) ([] ++ epE u ∷ []) (proj₁ PC)
    old : RecGM s4 ([] , map cur (dr s'')) (preT t) Bk
    old = RecG-pr-M {s4} {[]} {map cur (dr u)} {map cur (dr s'')} {preT t} {Bk} (sym (crashL-cur (dr u) cl))
            (subst (λ g → RecGM s4 g (preT t) Bk) (ghost-nil {u} (InPO-ept {u} {M} po)) (proj₂ (proj₂ PC)))
    old′ : RecGM (record s'' { cpO = sync (cpO u) }) ([] , map cur (dr s'')) (preT t) Bk
    old′ = RecG-rcd-M {record s'' { cpO = sync (cpO u) }} {λ p → sync (rcd u p)} {[] , map cur (dr s'')} {preT t} {Bk} old
    go : CrashC (put (cpt (suc (gen u)) (l2p u)) (sync (cpO u))) (cpO s'') →
         Σ SB.State λ t' → t SB.─fbᶜ→ t' × FiMap ⟪ u , [] ⟫ s'' ([] , map cur (dr s'')) t'
    go (inj₁ e) =
      preT t , inj₁ (refl , refl) ,
      inj₁ (proj₁ PC , RecG-cpO-M {s''} {sync (cpO u)} {[] , map cur (dr s'')} {preT t} {Bk}
                        (λ pk → trans (cong (λ q → pick (cur (cpL s'')) (cur q)) e) pk) (inj₁ (sym (cong cur e))) old′)
    go (inj₂ (inj₂ e)) =
      preT t , inj₁ (refl , refl) ,
      inj₁ (proj₁ PC , RecG-cpO-M {s''} {sync (cpO u)} {[] , map cur (dr s'')} {preT t} {Bk} f (inj₂ (cong cur e)) old′)
      where
        f : ∀ {b′ g C} → pick (cur (cpL s'')) (cur (cpO u)) ≡ just (b′ , g , C) →
            pick (cur (cpL s'')) (cur (cpO s'')) ≡ just (b′ , g , C)
        f pk with trans (sym pk) (pk0 (cur (cpO u)) (PM-cur (cpO u) so))
        ... | refl = trans (cong (λ q → pick (cur (cpL s'')) (cur q)) e) (pk0 junk tt)
    go (inj₂ (inj₁ e)) =
      proj₁ F , inj₂ (fl-fb {t} {proj₁ F} (proj₁ (proj₂ F))) ,
      inj₂ (new-slot-GM {⟪ fl3 u , [] ⟫} {proj₁ F} {s''} (proj₁ (proj₂ (proj₂ F))) cd
        (subst (All (GenLe (gen u))) (sym (crashL-cur (dr u) cl)) (proj₂ iv))
        (trans (cong (λ q → pick (cur (cpL s'')) (cur q)) e)
          (trans (cong (λ c → pick (cur c) (cpt (suc (gen u)) (l2p u))) sl)
                 (pick-second (suc (gen u)) (l2p u) (cpt (gen u) (BI.C b)) ≤-refl)))
        (subst (Older (suc (gen u))) (sym (cong cur sl)) ≤-refl))
-- inside the checkpoint: the new slot durable, the old slot and the region erased
crash-Fi-M {⟪ u , us ⟫} {t} {M} {s''} iv refl po (inj₂ (inj₁ (inj₂ (cd , cL , cO , cl , cr) , refl))) =
  proj₁ F , inj₂ (fl-fb {t} {proj₁ F} (proj₁ (proj₂ F))) ,
  inj₂ (new-slot-GM {⟪ fl3 u , [] ⟫} {proj₁ F} {s''} (proj₁ (proj₂ (proj₂ F))) cd
    (crash-erase (map sync (dr u)) (subst (All (GenLe (gen u))) (sym (map-cur-sync (dr u))) (proj₂ iv)) cl)
    (trans (cong (λ q → pick (cur (cpL s'')) (cur q)) cO)
           (pick-second (suc (gen u)) (l2p u) (cur (cpL s'')) (older cL)))
    (older cL))
  where
    b = proj₁ (proj₂ (proj₂ (proj₁ iv)))
    F = fl3-A {⟪ u , [] ⟫} {t} iv
    older : CrashC (put erased (sync (sync (cpL u)))) (cpL s'') → Older (suc (gen u)) (cur (cpL s''))
    older (inj₁ e) = subst (Older (suc (gen u))) (sym (trans (cong cur e) (cong cur (BI.slt b)))) ≤-refl
    older (inj₂ (inj₁ e)) = subst (Older (suc (gen u))) (sym (cong cur e)) tt
    older (inj₂ (inj₂ e)) = subst (Older (suc (gen u))) (sym (cong cur e)) tt
-- the checkpoint's end
crash-Fi-M {s} {t} {M} {s''} iv eu po (inj₂ (inj₂ (inj₁ (img , refl)))) =
  proj₁ F , inj₂ (fl-fb {t} {proj₁ F} (proj₁ (proj₂ F))) ,
  inj₂ (recgm-≐ {s''} {ghostN ⟪ ck3 (fi3 M (st s)) , [] ⟫} {proj₁ F} {mapAt (smap (ck3 (fi3 M (st s)))) [] (proj₁ G)} {l2p (st s)}
          (λ a → cong (λ f → f a) (mapAt-nil (smap (ck3 (fi3 M (st s)))) (proj₁ G))) (proj₂ (proj₂ G)))
  where
    F = ck3-A {s} {t} iv
    I = ck3-fi3-Inv {st s} {proj₁ F} {M} (proj₂ (proj₂ F))
    G = crash-normal-GM {⟪ ck3 (fi3 M (st s)) , [] ⟫} {proj₁ F} {s''} (proj₁ I) (proj₂ I) img
-- the consolidation page before its SYNC: the barrier's crash
crash-Fi-M {s} {t} {M} {s''} iv eu po (inj₂ (inj₂ (inj₂ (inj₁ (img , refl))))) =
  preT t , inj₁ (refl , refl) ,
  inj₁ (proj₁ G , RecG-rcd-M {s''} {λ p → sync (rcd (st s) p)} {ghostN (sB s)} {preT t} (proj₂ (proj₂ G)))
  where
    G = crash-normal-GM {sB s} {preT t} {record s'' { rcd = λ p → sync (rcd (st s) p) }}
          (pre-sync {s} {t} (proj₁ iv)) (≤-refl ∷ proj₂ iv) (fiK-flB M (st s) {s''} img)
-- the end: the consolidation page durable
crash-Fi-M {s} {t} {M} {s''} iv eu po (inj₂ (inj₂ (inj₂ (inj₂ (img , refl))))) =
  proj₁ F , inj₂ (fl-fb {t} {proj₁ F} (proj₁ (proj₂ F))) ,
  inj₂ (recgm-≐ {s''} {ghostN ⟪ fi4 M (st s) , [] ⟫} {proj₁ F} {mapAt (smap (fi4 M (st s))) [] (proj₁ G)} {l2p (st s)}
          (λ a → cong (λ f → f a) (mapAt-nil (smap (fi4 M (st s))) (proj₁ G))) (proj₂ (proj₂ G)))
  where
    F = fl3-A {s} {t} iv
    I = fi4-Inv {st s} {proj₁ F} {M} (proj₂ (proj₂ F))
    G = crash-normal-GM {⟪ fi4 M (st s) , [] ⟫} {proj₁ F} {s''} (proj₁ I) (proj₂ I) img

crash-Fi : ∀ {s t M s'' g} → Inv′ s t → ues s ≡ [] → InPO (st s) M → CrFi s M s'' g →
           Σ SB.State λ t' → t SB.─fbᶜ→ t' × RecG s'' g t'
crash-Fi {s} {t} {M} {s''} {g} iv eu po c with crash-Fi-M {s} {t} {M} {s''} {g} iv eu po c
... | t' , f , inj₁ (_ , rg , _) = t' , f , rg
... | t' , f , inj₂ (rg , _) = t' , f , rg

------------------------------------------------------------------------
-- PUSi: PUS with P's in-page and OOB commits where no epoch is unsynced

-- recovery without the full checkpoint (`SCFTL.Impl.UnsyncedRecClean`):
-- the slot `pick` chooses, the ghost's parse, every unsynced epoch of it
-- accepted, no record of the generation where recovery's walk or
-- allocation will look (`Quiet`, as P's recovery without a checkpoint
-- and the Rust transcription ask: without it a record a crashed in-page
-- commit left durable lies at or past the recovered active pointer,
-- which P's RI forbids, SCFTL.Impl.UnsyncedBridgeRecClean), then `recR`
-- (SYNC, no checkpoint); that the other slot is older (`SlotOlder`,
-- which `recR-A` needs) is no guard of the step: the crash relation
-- carries it (RecG)
RecC : St → Gh → St → Set
RecC s g s' = Σ Bool λ b → Σ ℕ λ g′ → Σ Map λ C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g′ , C) ×
  Σ (List Cell) λ T → Σ (List UEp) λ es' → ParseS (map cur (dr s)) T es' (proj₂ g) × shapes es' ≡ proj₁ g ×
  Clean g′ C (proj₂ g) es' s × Quiet g′ s × s' ≡ recR b g′ C (proj₂ g) es' s

-- a crash after it: its SYNC made the recovered state's flash durable,
-- nothing else is programmed (a crash before the SYNC is, as for P and
-- PUM, no crash point of its own)
RecCc : St → Gh → St → Gh → Set
RecCc s g s3 g3 = Σ Bool λ b → Σ ℕ λ g′ → Σ Map λ C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g′ , C) ×
  Σ (List Cell) λ T → Σ (List UEp) λ es' → ParseS (map cur (dr s)) T es' (proj₂ g) × shapes es' ≡ proj₁ g ×
  Clean g′ C (proj₂ g) es' s × Quiet g′ s ×
  Img (recR b g′ C (proj₂ g) es' s) s3 × g3 ≡ ghostN ⟪ recR b g′ C (proj₂ g) es' s , [] ⟫

okSi : SB.Op → SU → SU → Set
okSi (SB.use SB.flush) S S' = okPU (SB.use SB.flush) S S' ⊎ (FiOk (su S) (su S') × gh S' ≡ ghostN (su S'))
okSi SB.recover S S' = okPU SB.recover S S' ⊎ (RecC (st (su S)) (gh S) (st (su S')) × ues (su S') ≡ [] × gh S' ≡ ghostN (su S'))
okSi o = okS o

crashSi : SB.Op → SU → SU → Set
crashSi (SB.use SB.flush) S S' =
  crashPU (SB.use SB.flush) S S'
  ⊎ ((Σ ℕ λ M → ues (su S) ≡ [] × InPO (st (su S)) M × CrFi (su S) M (st (su S')) (gh S')) × ues (su S') ≡ [])
crashSi SB.recover S S' = crashPU SB.recover S S' ⊎ (RecCc (st (su S)) (gh S) (st (su S')) (gh S') × ues (su S') ≡ [])
crashSi o = crashS o

PUSi : SB.Model
PUSi = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okSi ; crash = crashSi }

open SB.ForwardSimulation PUSi SB.SB using () renaming (Obligations to ObligationsSi)

ASi-ok : ∀ u {S t S'} → ARS S t → ⊤ → okSi (SB.use u) S S' → Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARS S' t'
ASi-ok (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar _ o = AS-ok (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar tt o
ASi-ok (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar _ o = AS-ok (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar tt o
ASi-ok (SB.reg (SB.op SB.es)) {S} {t} {S'} ar _ o = AS-ok (SB.reg (SB.op SB.es)) {S} {t} {S'} ar tt o
ASi-ok (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar _ o = AS-ok (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar tt o
ASi-ok (SB.reg SB.barrier) {S} {t} {S'} ar _ o = AS-ok (SB.reg SB.barrier) {S} {t} {S'} ar tt o
ASi-ok SB.flush {S} {t} {S'} ar _ (inj₁ o) = AS-ok SB.flush {S} {t} {S'} ar tt o
ASi-ok SB.flush {S} {t} {⟦ s' , g ⟧} (iv , ob) _ (inj₂ (f@(eu , M , po , e) , _)) =
  proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
  oob-nil s' (end-nil e) (proj₂ (proj₂ (proj₂ (proj₂ (proj₁ (proj₂ (proj₁ (proj₂ (proj₂ A)))))))))
  where
    A = fi-A {su S} {t} {s'} iv f
    end-nil : ∀ {x} → (x ≡ ⟪ fi4 M (st (su S)) , [] ⟫ ⊎ x ≡ ⟪ ck3 (fi3 M (st (su S))) , [] ⟫) → ues x ≡ []
    end-nil (inj₁ refl) = refl
    end-nil (inj₂ refl) = refl

ASi-crash : ∀ u {S t S'} → ARS S t → ⊤ → crashSi (SB.use u) S S' → Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRP S' t'
ASi-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar _ c = AS-crash (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar tt c
ASi-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar _ c = AS-crash (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar tt c
ASi-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} ar _ c = AS-crash (SB.reg (SB.op SB.es)) {S} {t} {S'} ar tt c
ASi-crash (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar _ c = AS-crash (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar tt c
ASi-crash (SB.reg SB.barrier) {S} {t} {S'} ar _ c = AS-crash (SB.reg SB.barrier) {S} {t} {S'} ar tt c
ASi-crash SB.flush {S} {t} {S'} ar _ (inj₁ c) = AS-crash SB.flush {S} {t} {S'} ar tt c
ASi-crash SB.flush {S} {t} {S'} (iv , _) _ (inj₂ ((M , eu , po , c) , _)) =
  crash-Fi {su S} {t} {M} {st (su S')} {gh S'} iv eu po c

-- the clean recovery, from PUM's CR: the choices agree (`choice`,
-- `parse-unique`), so the recovered state is `recR-A`'s
rec-clean : ∀ {s g t b2 g2 C2 T2 es2} → RecG s g t →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b2 , g2 , C2) → ParseS (map cur (dr s)) T2 es2 (proj₂ g) → shapes es2 ≡ proj₁ g →
  Clean g2 C2 (proj₂ g) es2 s →
  Σ SB.State λ t'' → SB.okSB SB.recover t t'' × Inv′ ⟪ recR b2 g2 C2 (proj₂ g) es2 s , [] ⟫ t''
rec-clean {s} {shp , pr} {t} {b2} {g2} {C2} {T2} {es2}
  (b , g , C , pk , so , ga , T , es' , k , p , sh , m , rd , ob) pk2 p2 sh2 cl =
  choice (λ b′ g′ C′ es″ → Σ SB.State λ t'' → SB.okSB SB.recover t t'' × Inv′ ⟪ recR b′ g′ C′ pr es″ s , [] ⟫ t'')
         (trans (sym pk) pk2) (sym ees)
         (recR-A {s} {t} {b} {g} {C} {pr} {T} {es'} {k} pk ga p m rd ob back so)
  where
    ees : es2 ≡ es'
    ees = proj₂ (parse-unique T2 T es2 es' pr (trans sh2 (sym sh)) (trans (sym (proj₁ p2)) (proj₁ p)))
    back : Clean g C pr es' s
    back = choice (λ b′ g′ C′ es″ → Clean g′ C′ pr es″ s) (trans (sym pk2) pk) ees cl

ASi-rec : ∀ {S t S'} → CRP S t → ⊤ → okSi SB.recover S S' → Σ SB.State λ t' → SB.okSB SB.recover t t' × ARS S' t'
ASi-rec {S} {t} {S'} cr _ (inj₁ o) = AS-rec {S} {t} {S'} cr tt o
ASi-rec {S} {t} {⟦ ⟪ x , us ⟫ , g' ⟧} cr _ (inj₂ ((b2 , g2 , C2 , pk2 , T2 , es2 , p2 , sh2 , cl , _ , refl) , refl , _)) =
  proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) ,
  oob-nil ⟪ x , [] ⟫ refl (proj₂ (proj₂ (proj₂ (proj₂ (proj₁ (proj₂ (proj₁ (proj₂ (proj₂ A)))))))))
  where
    A = rec-clean {st (su S)} {gh S} {t} {b2} {g2} {C2} {T2} {es2} cr pk2 p2 sh2 cl

-- a crash of recovery without the checkpoint (after its SYNC, the
-- recovered state's crash), with the map named: the one the crashed
-- recovery rebuilt (`recC-crash-M`; SCFTL.Impl.OneModelRecMaps)
recC-crash-M : ∀ {S t S' M} → (cr : CRP S t) → (∀ a → rgMap {st (su S)} {gh S} {t} cr a ≡ M a) →
               RecCc (st (su S)) (gh S) (st (su S')) (gh S') →
               Σ SB.State λ t' → SB.crashSB SB.recover t t' × RecGM (st (su S')) (gh S') t' M
recC-crash-M {S} {t} {⟦ ⟪ x , us ⟫ , .(ghostN ⟪ recR b2 g2 C2 (proj₂ (gh S)) es2 (st (su S)) , [] ⟫) ⟧} {M}
  cr@(b , g , C , pk , so , ga , T , es' , k , p , sh , _) em (b2 , g2 , C2 , pk2 , T2 , es2 , p2 , sh2 , cl , _ , img , refl) =
  proj₁ A , inj₂ (SB.stable (proj₁ A) , sx (proj₁ (proj₂ A)) , refl , px (proj₁ (proj₂ A))) ,
  proj₁ (proj₂ (proj₂ GM)) ,
  λ a → trans (proj₂ (proj₂ (proj₂ GM)) a) (trans (cong (λ f → f a) (mapAt-nil (recM g2 C2 pr es2 s) (proj₁ GM))) (trans (sym (ch a)) (em a)))
  where
    s  = st (su S)
    pr = proj₂ (gh S)
    A = rec-clean {st (su S)} {gh S} {t} {b2} {g2} {C2} {T2} {es2} cr pk2 p2 sh2 cl
    GM = crash-normal-GM {⟪ recR b2 g2 C2 pr es2 s , [] ⟫} {proj₁ A} {x} (proj₁ (proj₂ (proj₂ A))) (proj₂ (proj₂ (proj₂ A))) img
    ch : ∀ a → recM g C pr es' s a ≡ recM g2 C2 pr es2 s a
    ch a = choice (λ b′ g′ C′ es″ → recM g C pr es' s a ≡ recM g′ C′ pr es″ s a) (trans (sym pk) pk2)
                  (proj₂ (parse-unique T T2 es' es2 pr (trans sh (sym sh2)) (trans (sym (proj₁ p)) (proj₁ p2)))) refl
    sx : ∀ {t''} → SB.okSB SB.recover t t'' → SB.stable t'' SB.∈ (SB.stable t ∷ SB.pend t)
    sx (x , mx , _ , e1 , _) = subst (SB._∈ (SB.stable t ∷ SB.pend t)) (sym e1) mx
    px : ∀ {t''} → SB.okSB SB.recover t t'' → SB.pend t'' ≡ []
    px (_ , _ , _ , _ , e2 , _) = e2

ASi-recᶜ : ∀ {S t S'} → CRP S t → ⊤ → crashSi SB.recover S S' → Σ SB.State λ t' → SB.crashSB SB.recover t t' × CRP S' t'
ASi-recᶜ {S} {t} {S'} cr _ (inj₁ c) = OU.A-recᶜ {S} {t} {S'} cr tt c
ASi-recᶜ {S} {t} {S'} cr _ (inj₂ (c , _)) =
  let R = recC-crash-M {S} {t} {S'} {rgMap {st (su S)} {gh S} {t} cr} cr (λ a → refl) c
  in proj₁ R , proj₁ (proj₂ R) , proj₁ (proj₂ (proj₂ R))

obligationsSi : ObligationsSi
obligationsSi = record
  { AR = ARS ; CR = CRP ; RI = λ _ → ⊤ ; CI = λ _ → ⊤
  ; AR⇒≈ = λ {S} {t} ar → OU.AR⇒≈ {S} {t} (proj₁ ar)
  ; init-CR = λ {S} {t} n n′ → OU.init-CR {S} {t} n n′
  ; init-CI = λ _ → tt
  ; A-ok = ASi-ok ; A-crash = ASi-crash ; A-rec = λ {S} {t} {S'} → ASi-rec {S} {t} {S'}
  ; A-recᶜ = λ {S} {t} {S'} → ASi-recᶜ {S} {t} {S'}
  ; B-ok = λ _ _ _ → tt ; B-crash = λ _ _ _ → tt ; B-rec = λ _ _ → tt ; B-recᶜ = λ _ _ → tt
  }

-- Theorem 1 and SC1B for PU with the SYNC outside a commit, P's in-page
-- and OOB commits where no epoch is unsynced, and recovery without the
-- full checkpoint where it accepts every unsynced epoch
theorem1-PUSi : SB.CorrespondenceB.BehaviourallyCorrect PUSi SB.SB
theorem1-PUSi = SB.theorem1-SB PUSi obligationsSi

PUSi-snapshot-consistent : SB.SnapshotConsistentB PUSi
PUSi-snapshot-consistent = SB.obligations⇒SCB PUSi obligationsSi
