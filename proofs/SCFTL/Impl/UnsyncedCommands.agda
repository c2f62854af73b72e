{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: a crash after ANY flash command of PU's
-- barrier without SYNC is covered by PUM's crash points.
--
-- The barrier without SYNC (`flB`) issues one batch of commands and no
-- SYNC: a data page per merge-buffer sector and the committed page
-- appended on top of the delta region (P's flush before its SYNC,
-- `CrashPoints.IssMB`, `cmt`).  `BarCmd s x`: x is the flash after any
-- subset of that batch, in any order, repeated or not, the append at
-- most once (P's `DRun`).  PUM's one crash point of the barrier is the
-- flash right after all of it (`CrM`, `flB`'s flash: `fl2`'s).
--
--   barrier-cmd-point   every crash outcome s' of such an x is, with
--                 some dead pages on top of its region (`padW`, P's
--                 `SameRec`), a crash outcome at PUM's crash point of
--                 the barrier, with the barrier's ghost (`CrM`)
--   barrier-cmd-pad     so (with PUM's invariant) the padded state
--                 recovers, with the barrier's ghost, to a candidate of
--                 SB's crashed barrier (`RecG`)
--   barrier-cmd-G       without the pads: the crashed state ITSELF
--                 recovers to a candidate of SB's crashed barrier with
--                 the ghost `ghC`: the pre-barrier state's (`ghostN s`)
--                 while the committed page is not appended, the
--                 barrier's (`ghostN (sB s)`) once it is — the ghost
--                 follows the committed page.  The route (`cmd-core`):
--                 with the page appended the crash is one at PUM's point
--                 (`pad-after`: no pad); before it, one erased page on
--                 top (`pad-before`), and `drop-pad`: the parse with the
--                 barrier's ghost reads that page as the top epoch's
--                 committed page (`parse-unique` rules out any other
--                 parse), which fails the check (`accU-snoc-erased`), so
--                 the parse with the pre-barrier ghost (`ghost-sB`),
--                 whose open tentative pages recovery skips and whose
--                 epochs are as the crash left them (`skip-top`),
--                 rebuilds the same L2P
--   flush-cmd-G         PUM's flush and forced barrier (P's `fl3`, then
--                 maybe the full checkpoint): a crash after any command
--                 of its first batch (before its SYNC: `ghC` as for the
--                 barrier), right after the SYNC, after any command of
--                 the checkpoint (P's `CkCmd`, `ck-mid`) or at its end
--                 (`FlCmd`) recovers, with the ghost `ghF`, to a
--                 candidate of SB's crashed flush
--   write-cmd-G, rl-cmd-G, es-cmd-G
--                 PU's writes and GC steps: a crash after any command of
--                 their batch (P's `CmdCrash`: the merge buffer's data
--                 pages, a tentative delta page appended, an erase)
--                 recovers, with the ghost of the step's end (`ghW`,
--                 `ghR`, `ghE`), to a candidate of SB's crashed
--                 operation; before the tentative page is appended there
--                 is one erased page on top, which the end's parse reads
--                 as the top tentative page (`skip-top`) and recovery
--                 skips (`drop-tent`, `op-cmd-core`)
--   PUMc, obligationsC, theorem1-PUc, PUc-snapshot-consistent
--                 PUM with every flash command boundary of its normal
--                 operations as a crash point (`CrC`: P's `CmdCrash` for
--                 writes and GC, `BarCmd`/`FlCmd` for the barrier and
--                 the flush, `RecCrC` for recovery's checkpoint, with
--                 the ghosts above): Theorem 1 against SB and SC1B
--
--   RecCmd, RecCrC, rec-cmd-ck
--                 recovery's checkpoint at the command level (P's
--                 `CkCmd` after recovery's SYNC): every such crash is one
--                 at PUM's `ck1`/`ck2` (`ck-mid`), so PUMc's crashed
--                 recoveries are these
--   pr-no-sync, pr-barrier
--                 the ghost's durable part moves only at a SYNC: every
--                 step without one keeps it (what the code's after-sync
--                 flag marks: the region the last SYNC left)
--   barrier-point-in, flush-point-in, op-point-in, rec-point-in
--                 not vacuous: PUMc's crashes include PUM's crash points
--                 (P's `fl2-all`, `ck1-all`, `ck2-all`, `wr-all`,
--                 `es-all`: all of a batch's commands reach them), given
--                 lists of pages covering the merge buffers
--
-- Not here: the in-page/OOB commits' batches (PUM's flush never commits
-- so); a crash right after recovery's SYNC with the slots named the
-- other way round (P's `swp`: only naming, `ck-new []` covers the
-- flash);
-- the ghost is still set from the state, not read from flash.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedCommands (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                   (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (suc; _<_; _≤_)
open import Data.Unit.Base using (⊤; tt)
open import Data.Nat.Properties using (≤-refl)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; drop)
open import Data.List.Properties using (map-++-commute; ++-assoc)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.Maybe.Base using (just; nothing)
open import Data.Bool.Base using (Bool; true; false; not)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using ([]; _∷_; Older) renaming (All to AllL; _∈_ to _∈L_)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_
  using (DRun; before; after; IssMB; cmt; fl-mid; mid-crash; padW; Dead; runs; run; apR; pgD;
         CkCmd; ck-new; ck-erase; ck-end; ck-mid; IssW; apW; IssE; wr-mid; es-mid; CmdCrash;
         SameFlash; fl2-all; mbCmds; ck1-all; ck2-all; pgO; pgL; pgR; ix; wr-all; es-all; apRun; rec-synO)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; flB; epE; okU; crashL-++; crashL-syn; crashRs; crashRs-++; crashEs; lay-++)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp; lay; accU; accB)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (E; tents; ue; CrashRs; []; _∷_)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_ using (Skip; ParseS; tents-skip; recRS)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recU)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (shapes; crashEs-shape; parse-unique; recR)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_
  using (Gh; ghostN; shpN; prN; prN-BI; topN; RecG; CrM; crash-G; FFu; crash-F; crash-normal-G;
         SU; ⟦_,_⟧; su; gh; okPU; crashPU; NewPU; PUM; obligationsU; ARP; CRP; RecCk; rec-ck; RecCr; choice; RecGM; rgMap)
open import SCFTL.Impl.UnsyncedCrashes Data d0 amax wmax kmax umax _≟D_ using (pre-sync; preT; A-Inv)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
import SCFTL.Spec Data d0 amax wmax as Sp

------------------------------------------------------------------------
-- The barrier's commands

BarCmd : StU → St → Set
BarCmd s x = DRun (IssMB (st s)) (st s) (just (cmt (st s))) x

-- the state right after the barrier, and its ghost
sB : StU → StU
sB s = ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫

-- every crash outcome after some of the barrier's commands is, up to dead
-- pages on top of its region, a crash outcome at PUM's crash point
barrier-cmd-point : ∀ {s x s'} → length (ues s) < umax → BarCmd s x → Img x s' →
  Σ (List Cell) λ ds → AllL Dead ds × CrM (SB.reg SB.barrier) s (padW ds s') (ghostN (sB s))
barrier-cmd-point {s} {x} {s'} lt r img =
  let M = mid-crash {x} {fl2 (st s)} {s'} (fl-mid (st s) {x} r) img in
  proj₁ M , proj₁ (proj₂ M) , inj₁ (lt , proj₂ (proj₂ M) , refl)

-- and with PUM's invariant, it recovers to a candidate of SB's crashed
-- barrier with the barrier's ghost
barrier-cmd-pad : ∀ {s t x s'} → Inv′ s t → length (ues s) < umax → BarCmd s x → Img x s' →
  Σ SB.State λ t' → SB.crashSB (SB.use (SB.reg SB.barrier)) t t' ×
  Σ (List Cell) λ ds → AllL Dead ds × RecG (padW ds s') (ghostN (sB s)) t'
barrier-cmd-pad {s} {t} {x} {s'} iv lt r img =
  proj₁ G , proj₁ (proj₂ G) , ds , dd , proj₂ (proj₂ G)
  where
    BP = barrier-cmd-point {s} {x} {s'} lt r img
    ds = proj₁ BP
    dd = proj₁ (proj₂ BP)
    G = crash-G (SB.reg SB.barrier) {s} {t} {padW ds s'} {ghostN (sB s)} iv (proj₂ (proj₂ BP))

-- the pads: none once the committed page is appended, one erased page before
pad-before : ∀ s cs (is : AllL (IssMB (st s)) cs) {s'} (img : Img (runs cs (st s)) s') →
  proj₁ (mid-crash {runs cs (st s)} {fl2 (st s)} {s'} (fl-mid (st s) (before {ap = just (cmt (st s))} cs is)) img) ≡ erased ∷ []
pad-before s cs is {s'} img = refl

pad-after : ∀ s cs₁ cs₂ (is₁ : AllL (IssMB (st s)) cs₁) (is₂ : AllL (IssMB (st s)) cs₂) {s'}
  (img : Img (runs cs₂ (run (apR (cmt (st s))) (runs cs₁ (st s)))) s') →
  proj₁ (mid-crash {runs cs₂ (run (apR (cmt (st s))) (runs cs₁ (st s)))} {fl2 (st s)} {s'} (fl-mid (st s) (after cs₁ cs₂ is₁ is₂)) img) ≡ []
pad-after s cs₁ cs₂ is₁ is₂ {s'} img = refl

------------------------------------------------------------------------
-- Without the pads: before the committed page is appended, the crashed
-- region is the pre-barrier state's, and it recovers with the
-- PRE-BARRIER state's ghost (the barrier's less its top epoch, whose
-- committed page is missing: recovery's check fails there anyway)

-- the region on top of some epochs
lay-snoc : ∀ (es : List UEp) c ts pr → lay (es ++ (c , ts) ∷ []) pr ≡ c ∷ ts ++ lay es pr
lay-snoc []               c ts pr = refl
lay-snoc ((c0 , ts0) ∷ es) c ts pr = lay-snoc es c ts (c0 ∷ ts0 ++ pr)

-- an epoch whose committed page is erased fails recovery's check
accU-snoc-erased : ∀ g D pr (es : List UEp) ts → accU g D pr (es ++ (erased , ts) ∷ []) ≡ accU g D pr es
accU-snoc-erased g D pr []               ts = refl
accU-snoc-erased g D pr ((c , ts0) ∷ es) ts = go (okC g D c (ts0 ++ pr))
  where
    go : ∀ b → accB g D pr c ts0 (es ++ (erased , ts) ∷ []) b ≡ accB g D pr c ts0 es b
    go true  = accU-snoc-erased g D (c ∷ ts0 ++ pr) es ts
    go false = refl

private
  ∷-inj : ∀ {x y : Cell} {xs ys : List Cell} → _≡_ {A = List Cell} (x ∷ xs) (y ∷ ys) → x ≡ y × xs ≡ ys
  ∷-inj refl = refl , refl

  shapes-nil : ∀ (es : List UEp) → shapes es ≡ [] → es ≡ []
  shapes-nil [] _ = refl

  ℕ∷-inj : ∀ {x y : ℕ} {xs ys : List ℕ} → _≡_ {A = List ℕ} (x ∷ xs) (y ∷ ys) → x ≡ y × xs ≡ ys
  ℕ∷-inj refl = refl , refl

  snoc-view : ∀ (es : List UEp) shp n → shapes es ≡ shp ++ n ∷ [] →
    Σ (List UEp) λ es0 → Σ Cell λ c → Σ (List Cell) λ ts →
      es ≡ es0 ++ (c , ts) ∷ [] × shapes es0 ≡ shp × length ts ≡ n
  snoc-view ((c , ts) ∷ es) [] n e with ℕ∷-inj e
  ... | e1 , e2 with shapes-nil es e2
  ...   | refl = [] , c , ts , refl , refl , e1
  snoc-view ((c , ts) ∷ es) (x ∷ shp) n e with ℕ∷-inj e
  ... | e1 , e2 with snoc-view es shp n e2
  ...   | es0 , c′ , ts′ , refl , sh , ln = (c , ts) ∷ es0 , c′ , ts′ , refl , cong₂ _∷_ e1 sh , ln

  ++-split : ∀ (A ts : List Cell) {B L} → length A ≡ length ts → A ++ B ≡ ts ++ L → A ≡ ts × B ≡ L
  ++-split []      []       _  e = refl , e
  ++-split (a ∷ A) (t ∷ ts) ln e with ∷-inj e
  ... | refl , e2 with ++-split A ts (suc-inj ln) e2
    where
      suc-inj : ∀ {m n : ℕ} → suc m ≡ suc n → m ≡ n
      suc-inj refl = refl
  ...   | refl , e3 = refl , e3

-- padding the region leaves the slots
older-pad : ∀ {g} b ds s' → Older g (cur (slot b (padW ds s'))) → Older g (cur (slot b s'))
older-pad true  _ _ o = o
older-pad false _ _ o = o

-- recovery of the padded state, with the barrier's ghost, is recovery
-- of the state itself with that ghost less its top epoch, when the
-- region parses with the latter (its top pages A skipped, n of them: the
-- top epoch's tentative pages)
drop-pad-M : ∀ {s' shp n pr t M} A es1 → map cur (dr s') ≡ A ++ lay es1 pr → shapes es1 ≡ shp → All Skip A → length A ≡ n →
  RecGM (padW (erased ∷ []) s') (shp ++ n ∷ [] , pr) t M → RecGM s' (shp , pr) t M
drop-pad-M {s'} {shp} {n} {pr} {t} A es1 eM sh1 sA lA ((b , g , C , pk , so , (_ ∷ ga) , (c ∷ T) , es' , k , (e , (_ ∷ sk)) , sh , m , rd , ob) , _) =
  ⊥-elim (nil≢ (proj₁ (parse-unique [] (c ∷ T) (es1 ++ (erased , A) ∷ []) es' pr shE eqn)))
  where
    nil≢ : [] ≡ c ∷ T → ⊥
    nil≢ ()
    shE : shapes (es1 ++ (erased , A) ∷ []) ≡ shapes es'
    shE = trans (map-++-commute (λ e → length (proj₂ e)) es1 ((erased , A) ∷ []))
                (trans (cong₂ _++_ sh1 (cong (_∷ []) lA)) (sym sh))
    eqn : lay (es1 ++ (erased , A) ∷ []) pr ≡ (c ∷ T) ++ lay es' pr
    eqn = trans (lay-snoc es1 erased A pr) (trans (cong (erased ∷_) (sym eM)) e)
drop-pad-M {s'} {shp} {n} {pr} {t} A es1 eM sh1 sA lA ((b , g , C , pk , so , (_ ∷ ga) , [] , es' , k , (e , []) , sh , m , rd , ob) , em)
  with snoc-view es' shp n sh
... | es0 , c , ts , refl , sh0 , lt with ∷-inj (trans e (lay-snoc es0 c ts pr))
...   | refl , eL with ++-split A ts (trans lA (sym lt)) (trans (sym eM) eL)
...     | refl , _ =
  (b , g , C , pk , older-pad {g} (not b) (erased ∷ []) s' so , ga , A , es0 , k , (eL , sA) , sh0 , m ,
   (λ a le → trans (cong (λ z → rdD (dat s') (proj₁ (rp g z (st0 C)) a)) (sym (accU-snoc-erased g D pr es0 A))) (rd a le)) ,
   (λ a q le eq → ob a q le (trans (cong (λ z → proj₁ (rp g z (st0 C)) a) (accU-snoc-erased g D pr es0 A)) eq))) ,
  (λ a → trans (cong (λ z → proj₁ (rp g z (st0 C)) a) (sym (accU-snoc-erased g D pr es0 A))) (em a))
  where
    D = λ p → cur (dat s' p)

drop-pad : ∀ {s' shp n pr t} A es1 → map cur (dr s') ≡ A ++ lay es1 pr → shapes es1 ≡ shp → All Skip A → length A ≡ n →
  RecG (padW (erased ∷ []) s') (shp ++ n ∷ [] , pr) t → RecG s' (shp , pr) t
drop-pad {s'} {shp} {n} {pr} {t} A es1 eM sh1 sA lA rg =
  proj₁ (drop-pad-M {s'} {shp} {n} {pr} {t} {rgMap {padW (erased ∷ []) s'} {shp ++ n ∷ [] , pr} {t} rg} A es1 eM sh1 sA lA (rg , λ a → refl))

private
  crashRs-length : ∀ {cs cs'} → CrashRs cs cs' → length cs' ≡ length cs
  crashRs-length []       = refl
  crashRs-length (_ ∷ cr) = cong suc (crashRs-length cr)

-- the barrier's data programs leave the region alone
runs-dr : ∀ {u} cs → AllL (IssMB u) cs → ∀ x → dr (runs cs x) ≡ dr x
runs-dr []                       []                          x = refl
runs-dr {u} (.(pgD p (dcell d a)) ∷ cs) ((p , d , a , _ , refl) ∷ is) x = runs-dr {u} cs is (run (pgD p (dcell d a)) x)

-- the open epoch's tentative pages (the top epoch's, once committed) come
-- back as pages recovery skips
ntop : StU → ℕ
ntop s = length (tents (gen (st s)) (ep (st s)) (ept (st s)))

skip-top : ∀ {s s'} → BI (st s) (ues s) → CrashL (dr (st s)) (dr s') →
  Σ (List Cell) λ A → Σ (List UEp) λ es1 → map cur (dr s') ≡ A ++ lay es1 (prN s) × shapes es1 ≡ shpN s ×
    All Skip A × length A ≡ ntop s
skip-top {s} {s'} b cl =
  T′ , es1 ,
  trans (cong (map cur) d) (trans (map-++-commute cur A0 B0) (trans (cong (_++ map cur B0) d2)
    (trans (++-assoc T′ L′ (map cur B0))
      (cong (T′ ++_) (trans (cong₂ _++_ la (trans (cong (map cur) (crashL-syn (BI.sy b) cb)) (sym (prN-BI s b))))
                            (lay-++ es1 [] (prN s))))))) ,
  crashEs-shape ces ,
  tents-skip (gen (st s)) (ep (st s)) (ept (st s)) ct , crashRs-length ct
  where
    -- the crash lemmas' results, by projections (no `with` over this clause)
    X1 = crashL-++ (map (uns erased) (tents (gen (st s)) (ep (st s)) (ept (st s)) ++ lay (map (ue (gen (st s))) (ues s)) []))
                   (subst (λ w → CrashL w (dr s')) (BI.dre b) cl)
    A0 = proj₁ X1
    B0 = proj₁ (proj₂ X1)
    d  = proj₁ (proj₂ (proj₂ X1))
    ca = proj₁ (proj₂ (proj₂ (proj₂ X1)))
    cb = proj₂ (proj₂ (proj₂ (proj₂ X1)))
    X2 = crashRs-++ (tents (gen (st s)) (ep (st s)) (ept (st s)))
                    (crashRs (tents (gen (st s)) (ep (st s)) (ept (st s)) ++ lay (map (ue (gen (st s))) (ues s)) []) ca)
    T′ = proj₁ X2
    L′ = proj₁ (proj₂ X2)
    d2 = proj₁ (proj₂ (proj₂ X2))
    ct = proj₁ (proj₂ (proj₂ (proj₂ X2)))
    cL = proj₂ (proj₂ (proj₂ (proj₂ X2)))
    X3 = crashEs (gen (st s)) (ues s) cL
    es1 = proj₁ X3
    ces = proj₁ (proj₂ X3)
    la  = proj₂ (proj₂ X3)

-- the barrier's ghost is the pre-barrier state's with the committed epoch on top
ghost-sB : ∀ s → ghostN (sB s) ≡ (shpN s ++ ntop s ∷ [] , prN s)
ghost-sB s = cong₂ _,_ (map-++-commute (λ e → length (proj₂ (ue g e))) (ues s) (epE (st s) ∷ []))
                       (cong (λ n → map cur (drop n (dr (flB (st s))))) len)
  where
    g = gen (st s)
    len : length (topN (sB s)) ≡ suc (length (topN s))
    len = trans (cong (λ l → length (lay l [])) (map-++-commute (ue g) (ues s) (epE (st s) ∷ [])))
                (cong length (lay-snoc (map (ue g) (ues s)) (proj₁ (ue g (epE (st s)))) (proj₂ (ue g (epE (st s)))) []))

-- the ghost the crash leaves: the pre-barrier state's while the committed
-- page is not appended, the barrier's once it is (the ghost follows the
-- committed page, as the code's digest chain finds the epochs)
ghC : ∀ s {x} → BarCmd s x → Gh
ghC s (before _ _)      = ghostN s
ghC s (after _ _ _ _)   = ghostN (sB s)

-- The core: given that every crash at `fl2`'s flash recovers with the
-- barrier's ghost to a candidate of t', a crash after any of the batch's
-- commands recovers with `ghC` to a candidate of t'
cmd-core : ∀ {s t' x s'} → BI (st s) (ues s) → (r : BarCmd s x) → Img x s' →
  (∀ {s''} → Img (flB (st s)) s'' → RecG s'' (ghostN (sB s)) t') → RecG s' (ghC s r) t'
cmd-core {s} {t'} {_} {s'} b (after cs₁ cs₂ is₁ is₂) img f =
  f {s'} (proj₂ (proj₂ (mid-crash {runs cs₂ (run (apR (cmt (st s))) (runs cs₁ (st s)))} {fl2 (st s)} {s'}
                                  (fl-mid (st s) (after cs₁ cs₂ is₁ is₂)) img)))
cmd-core {s} {t'} {_} {s'} b (before cs is) img f =
  drop-pad {s'} {shpN s} {ntop s} {prN s} {t'} (proj₁ SK) (proj₁ (proj₂ SK))
           (proj₁ (proj₂ (proj₂ SK))) (proj₁ (proj₂ (proj₂ (proj₂ SK)))) (proj₁ (proj₂ (proj₂ (proj₂ (proj₂ SK)))))
           (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ SK)))))
           (subst (λ gh → RecG (padW (erased ∷ []) s') gh t') (ghost-sB s) (f {padW (erased ∷ []) s'} img'))
  where
    img' : Img (flB (st s)) (padW (erased ∷ []) s')
    img' = proj₂ (proj₂ (mid-crash {runs cs (st s)} {fl2 (st s)} {s'} (fl-mid (st s) (before {ap = just (cmt (st s))} cs is)) img))
    cl : CrashL (dr (st s)) (dr s')
    cl = subst (λ w → CrashL w (dr s')) (runs-dr {st s} cs is (st s)) (proj₁ (proj₂ (proj₂ (proj₂ img))))
    SK = skip-top {s} {s'} b cl

-- THE RESULT for the barrier: a crash after any of its commands (any
-- subset of its data programs, in any order, with or without its
-- committed page) recovers, with the ghost `ghC`, to a candidate of SB's
-- crashed barrier (its image left pending, `preT`): the crash obligation
-- (A-crash) at every command of it
barrier-cmd-G : ∀ {s t x s'} → Inv′ s t → (r : BarCmd s x) → Img x s' →
  Σ SB.State λ t' → SB.crashSB (SB.use (SB.reg SB.barrier)) t t' × RecG s' (ghC s r) t'
barrier-cmd-G {s} {t} {x} {s'} (iv , gr) r img =
  preT t , inj₁ (refl , refl) ,
  cmd-core {s} {preT t} {x} {s'} (proj₁ (proj₂ (proj₂ iv))) r img
    (λ {s''} i → crash-normal-G {sB s} {preT t} {s''} (pre-sync {s} {t} iv) (≤-refl ∷ gr) i)

------------------------------------------------------------------------
-- PUM's flush and forced barrier (P's one-SYNC commit `fl3`, then maybe
-- the full checkpoint): the first batch (the barrier's commands, then
-- SYNC), right after the SYNC, every command of the checkpoint (P's
-- `CkCmd`: the new slot, SYNC, the old slot and the region erased,
-- SYNC), and its end.  PUM's flush never commits in-page or OOB, so P's
-- `fi*`/`fo*` command batches are not among them.

data FlCmd (s : StU) : St → Set where
  fb  : ∀ {x} → BarCmd s x → FlCmd s x
  fs  : FlCmd s (fl3 (st s))
  fck : ∀ {x} → CkCmd (fl3 (st s)) x → FlCmd s x
  fe  : FlCmd s (ck3 (fl3 (st s)))

-- the ghost each leaves: `ghC` before the SYNC, the flushed state's after
-- it, the whole region as durable part inside the checkpoint (`CrF`'s),
-- the checkpointed state's at its end
ghF : ∀ s {x} → FlCmd s x → St → Gh
ghF s (fb r)  s' = ghC s r
ghF s fs      s' = ghostN ⟪ fl3 (st s) , [] ⟫
ghF s (fck _) s' = [] , map cur (dr s')
ghF s fe      s' = ghostN ⟪ ck3 (fl3 (st s)) , [] ⟫

-- a crash after any command of the flush's checkpoint: a crash outcome
-- of its first or second point
fck-img : ∀ {s x s'} → CkCmd (fl3 (st s)) x → Img x s' → Img (ck1 (fl3 (st s))) s' ⊎ Img (ck2 (fl3 (st s))) s'
fck-img {s} {_} {s'} (ck-new cs is) img =
  inj₁ (proj₂ (proj₂ (mid-crash {runs cs (fl3 (st s))} {ck1 (fl3 (st s))} {s'}
                (proj₂ (proj₂ (ck-mid (fl3 (st s)) (cur (cpO (fl2 (st s))) , refl) (ck-new cs is)))) img)))
fck-img {s} {_} {s'} (ck-erase cs is) img =
  inj₂ (proj₂ (proj₂ (mid-crash {runs cs (syncAll (ck1 (fl3 (st s))))} {ck2 (fl3 (st s))} {s'}
                (proj₂ (proj₂ (ck-mid (fl3 (st s)) (cur (cpO (fl2 (st s))) , refl) (ck-erase cs is)))) img)))
fck-img {s} {_} {s'} ck-end img =
  inj₂ (proj₂ (proj₂ (mid-crash {syncAll (ck2 (fl3 (st s)))} {ck2 (fl3 (st s))} {s'}
                (proj₂ (proj₂ (ck-mid (fl3 (st s)) (cur (cpO (fl2 (st s))) , refl) ck-end))) img)))

flush-cmd-G : ∀ u {s t x s'} → FFu u s → Inv′ s t → (r : FlCmd s x) → Img x s' →
  Σ SB.State λ t' → t SB.─fbᶜ→ t' × RecG s' (ghF s r s') t'
flush-cmd-G u {s} {t} {x} {s'} ff (iv , gr) (fb r) img =
  preT t , inj₁ (refl , refl) ,
  cmd-core {s} {preT t} {x} {s'} (proj₁ (proj₂ (proj₂ iv))) r img
    (λ {s''} i → crash-normal-G {sB s} {preT t} {s''} (pre-sync {s} {t} iv) (≤-refl ∷ gr) i)
flush-cmd-G u {s} {t} {_} {s'} ff iv fs img =
  crash-F u {s} {t} {s'} {ghostN ⟪ fl3 (st s) , [] ⟫} ff iv (inj₂ (inj₁ (img , refl)))
flush-cmd-G u {s} {t} {_} {s'} ff iv fe img =
  crash-F u {s} {t} {s'} {ghostN ⟪ ck3 (fl3 (st s)) , [] ⟫} ff iv (inj₂ (inj₂ (inj₂ (img , refl))))
flush-cmd-G u {s} {t} {x} {s'} ff iv (fck c) img =
  crash-F u {s} {t} {s'} {[] , map cur (dr s')} ff iv (inj₂ (inj₂ (inj₁ (fck-img {s} {x} {s'} c img , refl))))

------------------------------------------------------------------------
-- Writes and GC: a data batch with at most one tentative delta page
-- appended (P's `IssW`, `apW`); the crash point is the end of the step
-- (`opt f1 f2 u`).  Before the append, one erased page on top: the
-- crash point's parse reads it as the top of the open epoch's tentative
-- pages (`skip-top`), which recovery skips, so dropping it keeps the
-- parse, the ghost and the L2P (`drop-tent`).

drop-tent-M : ∀ {s' shp pr t M} A es1 → map cur (dr s') ≡ A ++ lay es1 pr → shapes es1 ≡ shp → All Skip A →
  RecGM (padW (erased ∷ []) s') (shp , pr) t M → RecGM s' (shp , pr) t M
drop-tent-M {s'} {shp} {pr} {t} {M} A es1 eM sh1 sA ((b , g , C , pk , so , (_ ∷ ga) , T , es' , k , (e , sk) , sh , m , rd , ob) , em)
  with parse-unique T (erased ∷ A) es' es1 pr (trans sh (sym sh1)) (trans (sym e) (cong (erased ∷_) eM))
... | refl , refl = (b , g , C , pk , older-pad {g} (not b) (erased ∷ []) s' so , ga , A , es1 , k , (eM , tl sk) , sh , m , rd , ob) , em
  where
    tl : ∀ {c cs} → All Skip (c ∷ cs) → All Skip cs
    tl (_ ∷ xs) = xs

drop-tent : ∀ {s' shp pr t} A es1 → map cur (dr s') ≡ A ++ lay es1 pr → shapes es1 ≡ shp → All Skip A →
  RecG (padW (erased ∷ []) s') (shp , pr) t → RecG s' (shp , pr) t
drop-tent {s'} {shp} {pr} {t} A es1 eM sh1 sA rg =
  proj₁ (drop-tent-M {s'} {shp} {pr} {t} {rgMap {padW (erased ∷ []) s'} {shp , pr} {t} rg} A es1 eM sh1 sA (rg , λ a → refl))

-- the tentative page not yet appended: one erased page on top, which
-- recovery skips (`tent-back-M`: the map it rebuilds is the same)
tent-back-M : ∀ f1 u us {s'' t' M} → BI (opt f1 true u) us → Img (opt f1 true u) (padW (erased ∷ []) s'') →
  RecGM (padW (erased ∷ []) s'') (ghostN ⟪ opt f1 true u , us ⟫) t' M → RecGM s'' (ghostN ⟪ opt f1 true u , us ⟫) t' M
tent-back-M f1 u us {s''} {t'} {M} b img' rg = back (skip-top {m} {padW (erased ∷ []) s''} b (proj₁ (proj₂ (proj₂ (proj₂ img')))))
  where
    m = ⟪ opt f1 true u , us ⟫
    back : (Σ (List Cell) λ A → Σ (List UEp) λ es1 → map cur (dr (padW (erased ∷ []) s'')) ≡ A ++ lay es1 (prN m) ×
              shapes es1 ≡ shpN m × All Skip A × length A ≡ ntop m) →
           RecGM s'' (ghostN m) t' M
    back (c ∷ A , es1 , e , sh1 , (_ ∷ sA) , _) with ∷-inj e
    ... | refl , eM = drop-tent-M {s''} {shpN m} {prN m} {t'} {M} A es1 eM sh1 sA rg

tent-case : ∀ f1 u us {s''} → BI (opt f1 true u) us → Img (opt f1 true u) (padW (erased ∷ []) s'') →
  Σ St λ z → Img (opt f1 true u) z × (∀ {t'} → RecG z (ghostN ⟪ opt f1 true u , us ⟫) t' → RecG s'' (ghostN ⟪ opt f1 true u , us ⟫) t')
tent-case f1 u us {s''} b img' =
  padW (erased ∷ []) s'' , img' ,
  λ {t'} rg → proj₁ (tent-back-M f1 u us {s''} {t'} {rgMap {padW (erased ∷ []) s''} {ghostN ⟪ opt f1 true u , us ⟫} {t'} rg} b img' (rg , λ a → refl))

-- the crash point of the batch: a crash outcome of the step's end state,
-- or, before the tentative page's append, of the end state with one
-- erased page on top (SCFTL.Impl.OneModelRecMaps: which map recovery
-- rebuilds there)
op-cmd-img : ∀ f1 f2 u {x s''} → DRun (IssW f1 u) u (apW f2 u) x → Img x s'' →
  Img (opt f1 f2 u) s'' ⊎ (f2 ≡ true × Img (opt f1 f2 u) (padW (erased ∷ []) s''))
op-cmd-img true  false u {x} {s''} r@(before cs is) img =
  inj₁ (proj₂ (proj₂ (mid-crash {x} {opt true false u} {s''} (wr-mid true false u r) img)))
op-cmd-img false false u {x} {s''} r@(before cs is) img =
  inj₁ (proj₂ (proj₂ (mid-crash {x} {opt false false u} {s''} (wr-mid false false u r) img)))
op-cmd-img true  true u {x} {s''} r@(after cs₁ cs₂ is₁ is₂) img =
  inj₁ (proj₂ (proj₂ (mid-crash {x} {opt true true u} {s''} (wr-mid true true u r) img)))
op-cmd-img false true u {x} {s''} r@(after cs₁ cs₂ is₁ is₂) img =
  inj₁ (proj₂ (proj₂ (mid-crash {x} {opt false true u} {s''} (wr-mid false true u r) img)))
op-cmd-img true true u {x} {s''} r@(before cs is) img =
  inj₂ (refl , proj₂ (proj₂ (mid-crash {x} {opt true true u} {s''} (wr-mid true true u r) img)))
op-cmd-img false true u {x} {s''} r@(before cs is) img =
  inj₂ (refl , proj₂ (proj₂ (mid-crash {x} {opt false true u} {s''} (wr-mid false true u r) img)))

-- and the way back from it
op-cmd-core : ∀ f1 f2 u us {x s''} → BI (opt f1 f2 u) us → DRun (IssW f1 u) u (apW f2 u) x → Img x s'' →
  Σ St λ z → Img (opt f1 f2 u) z × (∀ {t'} → RecG z (ghostN ⟪ opt f1 f2 u , us ⟫) t' → RecG s'' (ghostN ⟪ opt f1 f2 u , us ⟫) t')
op-cmd-core f1 f2 u us {x} {s''} b r img = from (op-cmd-img f1 f2 u {x} {s''} r img)
  where
    from : Img (opt f1 f2 u) s'' ⊎ (f2 ≡ true × Img (opt f1 f2 u) (padW (erased ∷ []) s'')) →
           Σ St λ z → Img (opt f1 f2 u) z × (∀ {t'} → RecG z (ghostN ⟪ opt f1 f2 u , us ⟫) t' → RecG s'' (ghostN ⟪ opt f1 f2 u , us ⟫) t')
    from (inj₁ i)        = s'' , i , λ rg → rg
    from (inj₂ (refl , i)) = tent-case f1 u us {s''} b i

-- the ghost each write/GC command crash leaves: the crash point's (the
-- end of the step), or the state's when the step does nothing
ghW : ∀ a d s {x} → CmdCrash (Sp.use (Sp.reg (Sp.w a d))) (st s) x → Gh
ghW a d s (inj₁ (_ , f1 , f2 , _)) = ghostN ⟪ opt f1 f2 (wr0 a d (st s)) , ues s ⟫
ghW a d s (inj₂ _)                 = ghostN s

ghR : ∀ s {x} → CmdCrash (Sp.use (Sp.reg Sp.rl)) (st s) x → Gh
ghR s (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , _))) = ghostN ⟪ opt f1 f2 (rl0 p (st s)) , ues s ⟫
ghR s (inj₁ (_ , p , _ , inj₂ _))                 = ghostN ⟪ rlX p (st s) , ues s ⟫
ghR s (inj₂ _)                                    = ghostN s

ghE : ∀ s {x} → CmdCrash (Sp.use (Sp.reg Sp.es)) (st s) x → Gh
ghE s (p , _ , _) = ghostN ⟪ esF p (st s) , ues s ⟫

private
  via-core : ∀ o {s t s''} f1 f2 u → Inv′ s t → okU (SB.reg (SB.op o)) s ⟪ opt f1 f2 u , ues s ⟫ →
    (Σ St λ z → Img (opt f1 f2 u) z × (∀ {t'} → RecG z (ghostN ⟪ opt f1 f2 u , ues s ⟫) t' → RecG s'' (ghostN ⟪ opt f1 f2 u , ues s ⟫) t')) →
    Σ SB.State λ t' → SB.crashSB (SB.use (SB.reg (SB.op o))) t t' × RecG s'' (ghostN ⟪ opt f1 f2 u , ues s ⟫) t'
  via-core o {s} {t} {s''} f1 f2 u iv ok (z , iz , back) =
    proj₁ G , proj₁ (proj₂ G) , back {proj₁ G} (proj₂ (proj₂ G))
    where
      G = crash-G (SB.reg (SB.op o)) {s} {t} {z} {ghostN ⟪ opt f1 f2 u , ues s ⟫} iv (⟪ opt f1 f2 u , ues s ⟫ , ok , iz , refl)

  bi-of : ∀ o {s t s1} → Inv′ s t → okU (SB.reg (SB.op o)) s s1 → BI (st s1) (ues s1)
  bi-of o {s} {t} {s1} iv ok = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ (A-Inv (SB.reg (SB.op o)) {s} {t} {s1} (proj₁ iv) ok)))))

-- a write: a crash after any of its commands
write-cmd-G : ∀ a d {s t x s''} → Inv′ s t → (r : CmdCrash (Sp.use (Sp.reg (Sp.w a d))) (st s) x) → Img x s'' →
  Σ SB.State λ t' → SB.crashSB (SB.use (SB.reg (SB.op (SB.w a d)))) t t' × RecG s'' (ghW a d s r) t'
write-cmd-G a d {s} {t} {x} {s''} iv (inj₁ (ib , f1 , f2 , r)) img =
  via-core (SB.w a d) {s} {t} {s''} f1 f2 u iv ok
    (op-cmd-core f1 f2 u (ues s) {x} {s''} (bi-of (SB.w a d) {s} {t} {⟪ opt f1 f2 u , ues s ⟫} iv ok) r img)
  where
    u = wr0 a d (st s)
    ok : okU (SB.reg (SB.op (SB.w a d))) s ⟪ opt f1 f2 u , ues s ⟫
    ok = inj₁ (ib , f1 , f2 , refl) , refl
write-cmd-G a d {s} {t} {_} {s''} iv (inj₂ (nb , refl)) img =
  crash-G (SB.reg (SB.op (SB.w a d))) {s} {t} {s''} {ghostN s} iv (s , (inj₂ (nb , refl) , refl) , img , refl)

-- a GC relocation
rl-cmd-G : ∀ {s t x s''} → Inv′ s t → (r : CmdCrash (Sp.use (Sp.reg Sp.rl)) (st s) x) → Img x s'' →
  Σ SB.State λ t' → SB.crashSB (SB.use (SB.reg (SB.op SB.rl))) t t' × RecG s'' (ghR s r) t'
rl-cmd-G {s} {t} {x} {s''} iv (inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , r))) img =
  via-core SB.rl {s} {t} {s''} f1 f2 u iv ok
    (op-cmd-core f1 f2 u (ues s) {x} {s''} (bi-of SB.rl {s} {t} {⟪ opt f1 f2 u , ues s ⟫} iv ok) r img)
  where
    u = rl0 p (st s)
    ok : okU (SB.reg (SB.op SB.rl)) s ⟪ opt f1 f2 u , ues s ⟫
    ok = inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , refl)) , refl
rl-cmd-G {s} {t} {_} {s''} iv (inj₁ (gk , p , lt , inj₂ (nv , refl))) img =
  crash-G (SB.reg (SB.op SB.rl)) {s} {t} {s''} {ghostN ⟪ rlX p (st s) , ues s ⟫} iv
    (⟪ rlX p (st s) , ues s ⟫ , (inj₁ (gk , p , lt , inj₂ (nv , refl)) , refl) , img , refl)
rl-cmd-G {s} {t} {_} {s''} iv (inj₂ (ng , refl)) img =
  crash-G (SB.reg (SB.op SB.rl)) {s} {t} {s''} {ghostN s} iv (s , (inj₂ (ng , refl) , refl) , img , refl)

-- a GC erase
es-cmd-G : ∀ {s t x s''} → Inv′ s t → (r : CmdCrash (Sp.use (Sp.reg Sp.es)) (st s) x) → Img x s'' →
  Σ SB.State λ t' → SB.crashSB (SB.use (SB.reg (SB.op SB.es))) t t' × RecG s'' (ghE s r) t'
es-cmd-G {s} {t} {x} {s''} iv (p , ep , r@(before cs is)) img =
  crash-G (SB.reg (SB.op SB.es)) {s} {t} {s''} {ghostN ⟪ esF p (st s) , ues s ⟫} iv
    (⟪ esF p (st s) , ues s ⟫ , ((p , ep , refl) , refl) ,
     proj₂ (proj₂ (mid-crash {x} {esF p (st s)} {s''} (es-mid p (st s) r) img)) , refl)

------------------------------------------------------------------------
-- PUM with EVERY flash command boundary as a crash point: `PUMc`, the
-- same states, steps and recovery as PUM, its crashes of a write, GC
-- step, barrier or flush any of P's `CmdCrash` (writes, GC) or
-- `BarCmd`/`FlCmd` with the ghost they leave (`ghW`, `ghR`, `ghE`,
-- `ghC`, `ghF`), its crashed recoveries any command of recovery's
-- checkpoint (`RecCrC`).  Theorem 1 and SC1B hold for it.

CrC : SB.UOp → StU → St → Gh → Set
CrC (SB.reg (SB.op (SB.w a d))) s s'' g = Σ St λ x → Σ (CmdCrash (Sp.use (Sp.reg (Sp.w a d))) (st s) x) λ r → Img x s'' × g ≡ ghW a d s r
CrC (SB.reg (SB.op SB.rl)) s s'' g = Σ St λ x → Σ (CmdCrash (Sp.use (Sp.reg Sp.rl)) (st s) x) λ r → Img x s'' × g ≡ ghR s r
CrC (SB.reg (SB.op SB.es)) s s'' g = Σ St λ x → Σ (CmdCrash (Sp.use (Sp.reg Sp.es)) (st s) x) λ r → Img x s'' × g ≡ ghE s r
CrC (SB.reg (SB.op SB.sy)) s s'' g = ⊥   -- PU issues no SYNC outside a commit
CrC (SB.reg SB.barrier) s s'' g =
    (length (ues s) < umax × Σ St λ x → Σ (BarCmd s x) λ r → Img x s'' × g ≡ ghC s r)
  ⊎ (Σ St λ x → Σ (FlCmd s x) λ r → Img x s'' × g ≡ ghF s r s'')
CrC SB.flush            s s'' g = Σ St λ x → Σ (FlCmd s x) λ r → Img x s'' × g ≡ ghF s r s''

-- recovery's checkpoint at the command level: after any command of it
-- (P's `CkCmd` from the state after recovery's SYNC, `recR`), with the
-- ghost PUM leaves at `ck1` (unchanged) and `ck2` (the whole region), or
-- at its end (the recovered state's)
ghK : ∀ {u x} → Gh → St → CkCmd u x → Gh
ghK g s3 (ck-new _ _)   = g
ghK g s3 (ck-erase _ _) = [] , map cur (dr s3)
ghK g s3 ck-end         = [] , map cur (dr s3)

RecCmd : Bool → ℕ → Map → List Cell → List UEp → St → Gh → St → Gh → Set
RecCmd b g C pr es' s gh s3 gh3 =
    (Σ St λ x → Σ (CkCmd (recR b g C pr es' s) x) λ c → Img x s3 × gh3 ≡ ghK gh s3 c)
  ⊎ (Img (ck3 (recR b g C pr es' s)) s3 × gh3 ≡ ghostN ⟪ recU b g C pr es' s , [] ⟫)

RecCrC : St → Gh → St → Gh → Set
RecCrC s gh s3 gh3 = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ (List Cell) λ T → Σ (List UEp) λ es' → ParseS (map cur (dr s)) T es' (proj₂ gh) × shapes es' ≡ proj₁ gh ×
  RecCmd b g C (proj₂ gh) es' s gh s3 gh3

-- every such crash is one at PUM's crash points of recovery
rec-cmd-ck : ∀ {b g C pr es' s gh s3 gh3} → RecCmd b g C pr es' s gh s3 gh3 → RecCk b g C pr es' s gh s3 gh3
rec-cmd-ck {b} {g} {C} {pr} {es'} {s} {gh} {s3} (inj₁ (x , ck-new cs is , img , e)) =
  inj₁ (proj₂ (proj₂ (mid-crash {x} {ck1 u} {s3} (proj₂ (proj₂ (ck-mid u (rec-synO b g C s) (ck-new cs is)))) img)) , e)
  where u = recR b g C pr es' s
rec-cmd-ck {b} {g} {C} {pr} {es'} {s} {gh} {s3} (inj₁ (x , ck-erase cs is , img , e)) =
  inj₂ (inj₁ (proj₂ (proj₂ (mid-crash {x} {ck2 u} {s3} (proj₂ (proj₂ (ck-mid u (rec-synO b g C s) (ck-erase cs is)))) img)) , e))
  where u = recR b g C pr es' s
rec-cmd-ck {b} {g} {C} {pr} {es'} {s} {gh} {s3} (inj₁ (x , ck-end , img , e)) =
  inj₂ (inj₁ (proj₂ (proj₂ (mid-crash {x} {ck2 u} {s3} (proj₂ (proj₂ (ck-mid u (rec-synO b g C s) ck-end))) img)) , e))
  where u = recR b g C pr es' s
rec-cmd-ck (inj₂ (img , e)) = inj₂ (inj₂ (img , e))

crashPUc : SB.Op → SU → SU → Set
crashPUc (SB.use u) S S' = CrC u (su S) (st (su S')) (gh S') × ues (su S') ≡ []
crashPUc SB.recover S S' = RecCrC (st (su S)) (gh S) (st (su S')) (gh S') × ues (su S') ≡ []

PUMc : SB.Model
PUMc = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okPU ; crash = crashPUc }

private
  module FU = SB.ForwardSimulation PUM SB.SB
  module OU = FU.Obligations obligationsU

  A-crashC : ∀ u {S t S'} → ARP S t → ⊤ → crashPUc (SB.use u) S S' →
             Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRP S' t'
  A-crashC (SB.reg (SB.op (SB.w a d))) {S} {t} {⟦ S1 , g ⟧} iv _ ((x , r , img , refl) , _) = write-cmd-G a d {su S} {t} {x} {st S1} iv r img
  A-crashC (SB.reg (SB.op SB.rl)) {S} {t} {⟦ S1 , g ⟧} iv _ ((x , r , img , refl) , _) = rl-cmd-G {su S} {t} {x} {st S1} iv r img
  A-crashC (SB.reg (SB.op SB.es)) {S} {t} {⟦ S1 , g ⟧} iv _ ((x , r , img , refl) , _) = es-cmd-G {su S} {t} {x} {st S1} iv r img
  A-crashC (SB.reg (SB.op SB.sy)) iv _ (() , _)
  A-crashC (SB.reg SB.barrier) {S} {t} {⟦ S1 , g ⟧} iv _ (inj₁ (lt , x , r , img , refl) , _) =
    barrier-cmd-G {su S} {t} {x} {st S1} iv r img
  A-crashC (SB.reg SB.barrier) {S} {t} {⟦ S1 , g ⟧} iv _ (inj₂ (x , r , img , refl) , _) =
    flush-cmd-G (SB.reg SB.barrier) {su S} {t} {x} {st S1} tt iv r img
  A-crashC SB.flush {S} {t} {⟦ S1 , g ⟧} iv _ ((x , r , img , refl) , _) =
    flush-cmd-G SB.flush {su S} {t} {x} {st S1} tt iv r img

  A-recᶜC : ∀ {S t S'} → CRP S t → ⊤ → crashPUc SB.recover S S' → Σ SB.State λ t' → SB.crashSB SB.recover t t' × CRP S' t'
  A-recᶜC {⟦ ⟪ s , us ⟫ , (shp , pr) ⟧} {t} {⟦ ⟪ s3 , us3 ⟫ , gh3 ⟧}
    (b , g , C , pk , so , ga , T , es' , k , p , sh , m , rd , ob) _ ((b2 , g2 , C2 , pk2 , T2 , es2 , p2 , sh2 , rc) , _) =
    rec-ck {s} {t} {b} {g} {C} {pr} {T} {es'} {k} {shp} {s3} {gh3} pk so ga p sh m rd ob
      (choice (λ b′ g′ C′ es″ → RecCk b′ g′ C′ pr es″ s (shp , pr) s3 gh3) (trans (sym pk2) pk)
              (proj₂ (parse-unique T2 T es2 es' pr (trans sh2 (sym sh)) (trans (sym (proj₁ p2)) (proj₁ p))))
              (rec-cmd-ck {b2} {g2} {C2} {pr} {es2} {s} {shp , pr} {s3} {gh3} rc))

open SB.ForwardSimulation PUMc SB.SB using () renaming (Obligations to ObligationsC)

obligationsC : ObligationsC
obligationsC = record
  { AR = ARP ; CR = CRP ; RI = λ _ → ⊤ ; CI = λ _ → ⊤
  ; AR⇒≈ = λ {S} {t} → OU.AR⇒≈ {S} {t}
  ; init-CR = λ {S} {t} → OU.init-CR {S} {t}
  ; init-CI = λ _ → tt
  ; A-ok = λ u {S} {t} {S'} → OU.A-ok u {S} {t} {S'} ; A-crash = A-crashC
  ; A-rec = λ {S} {t} {S'} → OU.A-rec {S} {t} {S'} ; A-recᶜ = λ {S} {t} {S'} → A-recᶜC {S} {t} {S'}
  ; B-ok = λ _ _ _ → tt ; B-crash = λ _ _ _ → tt ; B-rec = λ _ _ → tt ; B-recᶜ = λ _ _ → tt
  }

-- Theorem 1 and SC1B for PU with every command boundary of its barrier
-- and flush as a crash point
theorem1-PUc : SB.CorrespondenceB.BehaviourallyCorrect PUMc SB.SB
theorem1-PUc = SB.theorem1-SB PUMc obligationsC

PUc-snapshot-consistent : SB.SnapshotConsistentB PUMc
PUc-snapshot-consistent = SB.obligations⇒SCB PUMc obligationsC

------------------------------------------------------------------------
-- Not vacuous: PUMc's crashes of a barrier or flush include PUM's crash
-- points (all of a batch's commands issued: P's `fl2-all`, `ck1-all`,
-- `ck2-all`), given a list of pages covering the merge buffer

Img-same : ∀ {x m s''} → SameFlash x m → Img m s'' → Img x s''
Img-same {x} {m} {s''} (ed , el , eo , er , ei) (cd , cl , co , cr , ci) =
  (λ p → subst (λ z → CrashD z (dat s'' p)) (sym (ed p)) (cd p)) ,
  subst (λ z → CrashC z (cpL s'')) (sym el) cl , subst (λ z → CrashC z (cpO s'')) (sym eo) co ,
  subst (λ z → CrashL z (dr s'')) (sym er) cr , (λ p → subst (λ z → CrashC z (rcd s'' p)) (sym (ei p)) (ci p))

barrier-point-in : ∀ {s s'' g} ps → (∀ q → mb (st s) q ≡ nothing ⊎ q ∈L ps) →
  CrM (SB.reg SB.barrier) s s'' g → CrC (SB.reg SB.barrier) s s'' g
barrier-point-in {s} {s''} ps cov (inj₁ (lt , img , e)) =
  inj₁ (lt , _ , after (mbCmds (st s) ps) [] (proj₁ F) [] , Img-same {run (apR (cmt (st s))) (runs (mbCmds (st s) ps) (st s))} {fl2 (st s)} {s''} (proj₂ F) img , e)
  where
    F = fl2-all (st s) ps cov
barrier-point-in {s} {s''} ps cov (inj₂ (inj₁ (img , e))) =
  inj₂ (_ , fb (after (mbCmds (st s) ps) [] (proj₁ F) []) , Img-same {run (apR (cmt (st s))) (runs (mbCmds (st s) ps) (st s))} {fl2 (st s)} {s''} (proj₂ F) img , e)
  where
    F = fl2-all (st s) ps cov
barrier-point-in {s} {s''} ps cov (inj₂ (inj₂ (inj₁ (img , e)))) = inj₂ (_ , fs , img , e)
barrier-point-in {s} {s''} ps cov (inj₂ (inj₂ (inj₂ (inj₂ (img , e))))) = inj₂ (_ , fe , img , e)
barrier-point-in {s} {s''} ps cov (inj₂ (inj₂ (inj₂ (inj₁ (inj₁ img , e))))) =
  inj₂ (_ , fck (ck-new k1 (proj₁ (ck1-all u))) , Img-same {runs k1 u} {ck1 u} {s''} (proj₂ (ck1-all u)) img , e)
  where
    u = fl3 (st s)
    k1 = pgO (cpt (suc (gen u)) (l2p u)) ∷ []
barrier-point-in {s} {s''} ps cov (inj₂ (inj₂ (inj₂ (inj₁ (inj₂ img , e))))) =
  inj₂ (_ , fck (ck-erase k2 (proj₁ (ck2-all u))) , Img-same {runs k2 (syncAll (ck1 u))} {ck2 u} {s''} (proj₂ (ck2-all u)) img , e)
  where
    u = fl3 (st s)
    k2 = pgL erased ∷ map (λ i → pgR i erased) (ix (length (dr (syncAll (ck1 u)))))

-- and its crashes of a flush include PUM's crash points
flush-point-in : ∀ {s s'' g} ps → (∀ q → mb (st s) q ≡ nothing ⊎ q ∈L ps) →
  CrM SB.flush s s'' g → CrC SB.flush s s'' g
flush-point-in {s} {s''} ps cov (inj₁ (img , e)) =
  _ , fb (after (mbCmds (st s) ps) [] (proj₁ F) []) , Img-same {run (apR (cmt (st s))) (runs (mbCmds (st s) ps) (st s))} {fl2 (st s)} {s''} (proj₂ F) img , e
  where
    F = fl2-all (st s) ps cov
flush-point-in {s} {s''} ps cov (inj₂ (inj₁ (img , e))) = _ , fs , img , e
flush-point-in {s} {s''} ps cov (inj₂ (inj₂ (inj₂ (img , e)))) = _ , fe , img , e
flush-point-in {s} {s''} ps cov (inj₂ (inj₂ (inj₁ (inj₁ img , e)))) =
  _ , fck (ck-new k1 (proj₁ (ck1-all u))) , Img-same {runs k1 u} {ck1 u} {s''} (proj₂ (ck1-all u)) img , e
  where
    u = fl3 (st s)
    k1 = pgO (cpt (suc (gen u)) (l2p u)) ∷ []
flush-point-in {s} {s''} ps cov (inj₂ (inj₂ (inj₁ (inj₂ img , e)))) =
  _ , fck (ck-erase k2 (proj₁ (ck2-all u))) , Img-same {runs k2 (syncAll (ck1 u))} {ck2 u} {s''} (proj₂ (ck2-all u)) img , e
  where
    u = fl3 (st s)
    k2 = pgL erased ∷ map (λ i → pgR i erased) (ix (length (dr (syncAll (ck1 u)))))

-- and its crashes of a write or GC step include PUM's crash points (the
-- end of the step: P's `wr-all`, `es-all`), given covers of the merge
-- buffers
Cover : Set
Cover = ∀ (u : St) → Σ (List ℕ) λ ps → ∀ q → mb u q ≡ nothing ⊎ q ∈L ps

private
  mkD : ∀ f1 f2 u cs → AllL (IssW f1 u) cs → DRun (IssW f1 u) u (apW f2 u) (apRun (apW f2 u) (runs cs u))
  mkD f1 true  u cs is = after cs [] is []
  mkD f1 false u cs is = before cs is

op-point-in : ∀ o {s s'' g} → Cover → CrM (SB.reg (SB.op o)) s s'' g → CrC (SB.reg (SB.op o)) s s'' g
op-point-in (SB.w a d) {s} {s''} cv (⟪ _ , _ ⟫ , (inj₁ (ib , f1 , f2 , refl) , refl) , img , e) =
  apRun (apW f2 u) (runs cs u) , inj₁ (ib , f1 , f2 , mkD f1 f2 u cs (proj₁ (proj₂ W))) ,
  Img-same {apRun (apW f2 u) (runs cs u)} {opt f1 f2 u} {s''} (proj₂ (proj₂ W)) img , e
  where
    u = wr0 a d (st s)
    W = wr-all f1 f2 u (proj₁ (cv u)) (proj₂ (cv u))
    cs = proj₁ W
op-point-in (SB.w a d) {s} {s''} cv (⟪ _ , _ ⟫ , (inj₂ (nb , refl) , refl) , img , e) =
  st s , inj₂ (nb , refl) , img , e
op-point-in SB.rl {s} {s''} cv (⟪ _ , _ ⟫ , (inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , refl)) , refl) , img , e) =
  apRun (apW f2 u) (runs cs u) , inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , mkD f1 f2 u cs (proj₁ (proj₂ W)))) ,
  Img-same {apRun (apW f2 u) (runs cs u)} {opt f1 f2 u} {s''} (proj₂ (proj₂ W)) img , e
  where
    u = rl0 p (st s)
    W = wr-all f1 f2 u (proj₁ (cv u)) (proj₂ (cv u))
    cs = proj₁ W
op-point-in SB.rl {s} {s''} cv (⟪ _ , _ ⟫ , (inj₁ (gk , p , lt , inj₂ (nv , refl)) , refl) , img , e) =
  rlX p (st s) , inj₁ (gk , p , lt , inj₂ (nv , refl)) , img , e
op-point-in SB.rl {s} {s''} cv (⟪ _ , _ ⟫ , (inj₂ (ng , refl) , refl) , img , e) =
  st s , inj₂ (ng , refl) , img , e
op-point-in SB.es {s} {s''} cv (⟪ _ , _ ⟫ , ((p , ep , refl) , refl) , img , e) =
  runs (pgD p erased ∷ []) (st s) , (p , ep , before (pgD p erased ∷ []) (proj₁ (es-all p (st s)))) ,
  Img-same {runs (pgD p erased ∷ []) (st s)} {esF p (st s)} {s''} (proj₂ (es-all p (st s))) img , e

-- and its crashes of recovery include PUM's (`ck1`, `ck2`, `ck3` of
-- recovery's checkpoint: all of a batch's commands reach them)
rec-point-in : ∀ {s gh s3 gh3} → RecCr s gh s3 gh3 → RecCrC s gh s3 gh3
rec-point-in {s} {gh} {s3} (b , g , C , pk , T , es' , p , sh , inj₁ (img , e)) =
  b , g , C , pk , T , es' , p , sh ,
  inj₁ (runs k1 u , ck-new k1 (proj₁ (ck1-all u)) , Img-same {runs k1 u} {ck1 u} {s3} (proj₂ (ck1-all u)) img , e)
  where
    u = recR b g C (proj₂ gh) es' s
    k1 = pgO (cpt (suc (gen u)) (l2p u)) ∷ []
rec-point-in {s} {gh} {s3} (b , g , C , pk , T , es' , p , sh , inj₂ (inj₁ (img , e))) =
  b , g , C , pk , T , es' , p , sh ,
  inj₁ (runs k2 (syncAll (ck1 u)) , ck-erase k2 (proj₁ (ck2-all u)) ,
        Img-same {runs k2 (syncAll (ck1 u))} {ck2 u} {s3} (proj₂ (ck2-all u)) img , e)
  where
    u = recR b g C (proj₂ gh) es' s
    k2 = pgL erased ∷ map (λ i → pgR i erased) (ix (length (dr (syncAll (ck1 u)))))
rec-point-in (b , g , C , pk , T , es' , p , sh , inj₂ (inj₂ (img , e))) =
  b , g , C , pk , T , es' , p , sh , inj₂ (img , e)

------------------------------------------------------------------------
-- Toward the split read from flash: the ghost's durable part moves only
-- at a SYNC.  Every step without a SYNC (a write, a GC step, the barrier
-- without SYNC) keeps it (the barrier and a write that appends a
-- tentative page grow the region above it); so it is the region the
-- last SYNC left, whose top the code's after-sync flag marks (the first
-- region page programmed after a SYNC carries it).

private
  pr-opt : ∀ f1 f2 u us → prN ⟪ opt f1 f2 u , us ⟫ ≡ prN ⟪ u , us ⟫
  pr-opt true  true  u us = refl
  pr-opt true  false u us = refl
  pr-opt false true  u us = refl
  pr-opt false false u us = refl

pr-no-sync : ∀ o {s s'} → okU (SB.reg (SB.op o)) s s' → prN s' ≡ prN s
pr-no-sync (SB.w a d) {s} (inj₁ (_ , f1 , f2 , refl) , refl) = pr-opt f1 f2 (wr0 a d (st s)) (ues s)
pr-no-sync (SB.w a d) {s} (inj₂ (_ , refl) , refl) = refl
pr-no-sync SB.rl {s} (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , refl)) , refl) = pr-opt f1 f2 (rl0 p (st s)) (ues s)
pr-no-sync SB.rl {s} (inj₁ (_ , p , _ , inj₂ (_ , refl)) , refl) = refl
pr-no-sync SB.rl {s} (inj₂ (_ , refl) , refl) = refl
pr-no-sync SB.es {s} ((p , _ , refl) , refl) = refl

pr-barrier : ∀ s → prN (sB s) ≡ prN s
pr-barrier s = cong proj₂ (ghost-sB s)
