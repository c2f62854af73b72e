{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: PU (the barrier WITHOUT SYNC) as a `Model`
-- over SB's operations, with its recovery step reading the region's
-- split from a DURABLE GHOST, and Theorem 1 and SC1B for it.
--
-- The ghost (`Gh`): the unsynced epochs' shapes (each epoch's number of
-- tentative pages) and the durable part of the region (the pages the
-- last SYNC left under the unsynced epochs) — what the code finds on
-- flash by the after-sync flag (the durable part's top) and the digest
-- chain (each committed page names its epoch's tentative pages).  Every
-- normal step sets it to the state's (`ghostN`: the durable part is the
-- region below the open epoch's tentative pages and the unsynced
-- epochs); a crash sets it to the ghost of the crash point's state;
-- recovery READS it: it checks, in order, the epochs of the one parse
-- of the crashed region (`ParseS`) that has those shapes over that
-- durable part (`parse-unique`: there is at most one), so recovery is a
-- step of the model, determined by the crashed flash and the ghost.
--
--   PUM          the model: normal steps `okM` (PU's write and GC,
--                the barrier without SYNC `flB`, the forced barrier and
--                the flush: P's one-SYNC commit `fl3`, with or without
--                the full checkpoint after it; "the forced barrier" is
--                the durable barrier, the only barrier step at `umax`
--                unsynced epochs and, since the twenty-sixth session, a
--                barrier step at any count), crashes `CrM` (the end of
--                a write or GC step, the barrier right after its
--                programs, a flush or the forced barrier before its
--                SYNC, after it, at `ck1`/`ck2` of its checkpoint and at
--                its end), recovery `RecOk` (`recU` with the ghost's
--                parse: SYNC, the in-order check over the unsynced
--                epochs, the full checkpoint), crashed recovery `RecCr`
--                (`ck1`, `ck2`, `ck3` of it)
--   RecG         CR: recovery's slot (the other slot older than it, as
--                P's `RecTo` has `so`) and a parse with the ghost's
--                shapes and durable part, which reads a candidate of SB
--   crash-normal-G   a crash of any normal PU state gives RecG with the
--                state's ghost
--   RecG⇒″       CR is `RecTo″` with the parse the ghost names
--   rec-det      recovery is determined by the crashed flash and the ghost
--   rec-total    from every CR state recovery can step (not vacuous)
--   obligationsU : ForwardSimulation.Obligations PUM SB
--   theorem1-PU  : CorrespondenceB.BehaviourallyCorrect PUM SB (Theorem 1)
--   PU-snapshot-consistent : SnapshotConsistentB PUM          (SC1B)
--
-- What PUM leaves out (honestly): its flush never commits in-page or
-- OOB (P's `fi*`/`fo*` paths, their crash points and the record walk
-- `chn` are not part of PUM); recovery always ends in a full checkpoint
-- (P's `clean`/`Quiet` branch is not modelled); the ghost is set from
-- the state (the code finds the split by the after-sync flag and the
-- shapes by the committed pages, not modelled as flash reads); a crash
-- of recovery before its SYNC is, as in P, not a crash point of its own.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedModel (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl; <⇒≱)
open import Data.Bool.Base using (Bool; true; false; not)
open import Data.Empty renaming (⊥-elim to ⊥-elim′)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length; drop)
open import Data.List.Relation.Unary.All using (All; []; _∷_) renaming (map to All-map)
open import Data.List.Relation.Unary.Any using (here)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (GenLe; GenLe-step; Older; PM; pick-first; pick-second)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp; lay)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (E; tents; ue)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; okU; regcU; flB; epE; len-mis₁; len-mis₂)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_ using (candAt; recRS; ParseS)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; recU-crash-readsBI; recU-crash-mapBI)
open import SCFTL.Impl.UnsyncedCrashes Data d0 amax wmax kmax umax _≟D_ using (Inv; A-Inv; pre-sync; preT)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′; GenR; genR-ok; rp-old)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (stable-crash; stable-oob; mapAt; mapAt-nil)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recM; recU; recU-A; recT)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_
  using (RecTo″; recR; shapes; crashEs-shape; parse-unique; pick-top; pick-cell; new-slot-any;
         rec-crash-ck2-any; recRS-ext; rdD-ext; fg-inv; fg-crash; recRS-newgen)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- The durable ghost: the unsynced epochs' shapes and the durable part

Gh : Set
Gh = List ℕ × List Cell

-- the open epoch's tentative pages and the unsynced epochs' pages: the
-- region above the durable part
topN : StU → List Cell
topN s = tents (gen (st s)) (ep (st s)) (ept (st s)) ++ lay (map (ue (gen (st s))) (ues s)) []

shpN : StU → List ℕ
shpN s = map (λ e → length (proj₂ (ue (gen (st s)) e))) (ues s)

prN : StU → List Cell
prN s = map cur (drop (length (topN s)) (dr (st s)))

ghostN : StU → Gh
ghostN s = shpN s , prN s

private
  drop-map-++ : ∀ {A B : Set} (f : A → B) (xs : List A) (ys : List B) → drop (length xs) (map f xs ++ ys) ≡ ys
  drop-map-++ f []       ys = refl
  drop-map-++ f (x ∷ xs) ys = drop-map-++ f xs ys

-- on a state with BI, the ghost's durable part is BI's
prN-BI : ∀ s (b : BI (st s) (ues s)) → prN s ≡ map cur (BI.prM b)
prN-BI s b = cong (map cur) (trans (cong (drop (length (topN s))) (BI.dre b))
                                   (drop-map-++ (uns erased) (topN s) (BI.prM b)))

------------------------------------------------------------------------
-- CR: what recovery reads with the ghost's parse

RecG : St → Gh → SB.State → Set
RecG s' gh t = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s')) (cur (cpO s')) ≡ just (b , g , C) ×
  Older g (cur (slot (not b) s')) ×
  All (GenLe g) (map cur (dr s')) ×
  Σ (List Cell) λ T → Σ (List UEp) λ es' → Σ ℕ λ k →
    ParseS (map cur (dr s')) T es' (proj₂ gh) × shapes es' ≡ proj₁ gh × candAt t k ∈ SB.stable t ∷ SB.pend t ×
    (∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS g (λ p → cur (dat s' p)) es' (proj₂ gh) (st0 C)) a) ≡ candAt t k a) ×
    (∀ a p → a ≤ amax → proj₁ (recRS g (λ p → cur (dat s' p)) es' (proj₂ gh) (st0 C)) a ≡ just p → oob (cur (dat s' p)) ≡ a)

-- CR is `RecTo″` (UnsyncedRecCrash) with the parse the ghost names
RecG⇒″ : ∀ {s gh t} → RecG s gh t → RecTo″ s t
RecG⇒″ {gh = gh} (b , g , C , pk , _ , ga , T , es' , k , p , sh , m , rd , ob) =
  b , g , C , pk , ga , proj₂ gh , T , es' , k , p , m , rd , ob

-- the map recovery rebuilds from a crash state in RecG, and RecG with
-- that map named (which pages a recovery names: SCFTL.Impl.OneModelRecMaps)
rgMap : ∀ {s' gh t} → RecG s' gh t → Map
rgMap {s'} {gh} (b , g , C , _ , _ , _ , T , es' , _) = recM g C (proj₂ gh) es' s'

RecGM : St → Gh → SB.State → Map → Set
RecGM s' gh t M = Σ (RecG s' gh t) λ rg → ∀ a → rgMap {s'} {gh} {t} rg a ≡ M a

private
  crash-syn : ∀ {m m' c} → m ≡ syn c → CrashC m m' → m' ≡ syn c
  crash-syn refl e = e

  crash-older : ∀ {g} m {m'} → PM (Older g) m → CrashC m m' → Older g (cur m')
  crash-older (syn c)   x refl                = x
  crash-older (uns o n) (x , _) (inj₁ refl)        = x
  crash-older (uns o n) (_ , y) (inj₂ (inj₁ refl)) = y
  crash-older (uns o n) _ (inj₂ (inj₂ refl))       = tt

-- a crash of any normal PU state (with its invariants): RecG with the
-- state's ghost; the parse the crash lemmas build has the ghost's shapes
-- (`crashEs-shape`) and durable part (`prN-BI`)
crash-normal-G : ∀ {s t s'} → Inv s t → GenR (st s) → Img (st s) s' → RecG s' (ghostN s) t
crash-normal-G {s} {t} {s'} (ar , ga , b , so) gr img =
  true , gen (st s) , BI.C b ,
  trans (cong (λ c → pick (cur c) (cur (cpO s'))) (crash-syn (BI.slt b) (proj₁ (proj₂ img))))
        (pick-first (gen (st s)) (BI.C b) (cur (cpO s')) (crash-older (cpO (st s)) so (proj₁ (proj₂ (proj₂ img))))) ,
  crash-older (cpO (st s)) so (proj₁ (proj₂ (proj₂ img))) ,
  proj₂ (fg-crash {st s} {s'} {gen (st s)} (fg-inv {s} {t} (ar , ga , b , so) gr) img) ,
  T , es' , k ,
  subst (ParseS (map cur (dr s')) T es') (sym e) p , crashEs-shape ces , m ,
  subst (λ z → ∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS g D es' z mt) a) ≡ candAt t k a) (sym e) r ,
  subst (λ z → ∀ a q → a ≤ amax → proj₁ (recRS g D es' z mt) a ≡ just q → oob (cur (dat s' q)) ≡ a) (sym e) ob
  where
    g = gen (st s)
    D = λ p → cur (dat s' p)
    mt = st0 (BI.C b)
    e = prN-BI s b
    R  = recU-crash-readsBI {s} {t} {s'} b ar ga img
    T  = proj₁ R
    R1 = proj₂ R
    es' = proj₁ R1
    R2 = proj₂ R1
    k  = proj₁ R2
    R3 = proj₂ R2
    ces = proj₁ R3
    R4 = proj₂ R3
    p  = proj₁ R4
    R5 = proj₂ R4
    R6 = proj₂ R5
    m  = proj₁ R6
    R7 = proj₂ R6
    r  = proj₁ R7
    ob = proj₂ R7

-- (`crash-normal-GM`: with the map named, the k-th unsynced epoch's;
-- `recU-crash-mapBI`)
crash-normal-GM : ∀ {s t s'} → Inv s t → GenR (st s) → Img (st s) s' →
                  Σ ℕ λ k → k ≤ length (ues s) × RecGM s' (ghostN s) t (mapAt (smap (st s)) (ues s) k)
crash-normal-GM {s} {t} {s'} iv gr img =
  k , proj₁ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ R))))) , crash-normal-G {s} {t} {s'} iv gr img ,
  λ a → trans (cong (λ z → proj₁ (recRS (gen (st s)) (λ q → cur (dat s' q)) es' z (st0 (BI.C b))) a) (prN-BI s b)) (eqM a)
  where
    b   = proj₁ (proj₂ (proj₂ iv))
    R   = recU-crash-mapBI {s} {s'} b img
    es' = proj₁ (proj₂ R)
    k   = proj₁ (proj₂ (proj₂ R))
    eqM = proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ R))))))

------------------------------------------------------------------------
-- The model

-- PU's flush as PUM runs it: P's one-SYNC commit (`fl3`), with or
-- without the full checkpoint after it (`ck3 (fl3 _)`)
FlOk : StU → StU → Set
FlOk s s' = s' ≡ ⟪ fl3 (st s) , [] ⟫ ⊎ s' ≡ ⟪ ck3 (fl3 (st s)) , [] ⟫

okM : SB.UOp → StU → StU → Set
okM (SB.reg (SB.op x))  s s' = okU (SB.reg (SB.op x)) s s'
okM (SB.reg SB.barrier) s s' = (length (ues s) < umax × s' ≡ ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫)
                             ⊎ FlOk s s'
okM SB.flush            s s' = FlOk s s'

okM⇒okU : ∀ u {s s'} → okM u s s' → okU u s s'
okM⇒okU (SB.reg (SB.op x))  o                          = o
okM⇒okU (SB.reg SB.barrier) (inj₁ x)                   = inj₁ x
okM⇒okU (SB.reg SB.barrier) (inj₂ (inj₁ refl))    = inj₂ (inj₁ refl , refl)
okM⇒okU (SB.reg SB.barrier) (inj₂ (inj₂ refl))    = inj₂ (inj₂ (inj₁ refl) , refl)
okM⇒okU SB.flush            (inj₁ refl)                = inj₁ refl , refl
okM⇒okU SB.flush            (inj₂ refl)                = inj₂ (inj₁ refl) , refl

-- the crash points of a flush (or the forced barrier), with the ghost
-- they leave: before the SYNC the flash is a barrier's (one more
-- unsynced epoch); after it the flushed state's; inside the full
-- checkpoint (`ck1`, `ck2`) the whole region as durable part (no
-- unsynced epoch is left; with the new slot picked every parse reads
-- the same); at its end (`ck3`) the checkpointed state's
CrF : StU → St → Gh → Set
CrF s s'' gh = (Img (fl2 (st s)) s'' × gh ≡ ghostN ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫)
             ⊎ (Img (fl3 (st s)) s'' × gh ≡ ghostN ⟪ fl3 (st s) , [] ⟫)
             ⊎ ((Img (ck1 (fl3 (st s))) s'' ⊎ Img (ck2 (fl3 (st s))) s'') × gh ≡ ([] , map cur (dr s'')))
             ⊎ (Img (ck3 (fl3 (st s))) s'' × gh ≡ ghostN ⟪ ck3 (fl3 (st s)) , [] ⟫)

CrM : SB.UOp → StU → St → Gh → Set
CrM (SB.reg (SB.op x))  s s'' gh = Σ StU λ s' → okU (SB.reg (SB.op x)) s s' × Img (st s') s'' × gh ≡ ghostN s'
CrM (SB.reg SB.barrier) s s'' gh =
    (length (ues s) < umax × Img (flB (st s)) s'' × gh ≡ ghostN ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫)
  ⊎ CrF s s'' gh
CrM SB.flush            s s'' gh = CrF s s'' gh

record SU : Set where
  constructor ⟦_,_⟧
  field
    su : StU
    gh : Gh
open SU public

-- recovery: the slot `pick` chooses, the parse with the ghost's shapes
-- and durable part, `recU` (the in-order check, the full checkpoint)
RecOk : St → Gh → St → Set
RecOk s gh s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ (List Cell) λ T → Σ (List UEp) λ es' → ParseS (map cur (dr s)) T es' (proj₂ gh) × shapes es' ≡ proj₁ gh ×
  s' ≡ recU b g C (proj₂ gh) es' s

-- recovery's choice (the slot `pick` chooses, the parse with the
-- ghost's shapes) is unique: what holds of one choice holds of another
-- (a transport through two small equations, not a `with` on `refl`
-- over the whole clause)
choice : ∀ {b g C b2 g2 C2} {es' es2 : List UEp} (P : Bool → ℕ → Map → List UEp → Set) →
  _≡_ {A = Maybe (Bool × ℕ × Map)} (just (b , g , C)) (just (b2 , g2 , C2)) → es' ≡ es2 → P b g C es' → P b2 g2 C2 es2
choice P refl refl x = x

-- recovery is determined by the crashed flash and the ghost
rec-det : ∀ {s gh s1 s2} → RecOk s gh s1 → RecOk s gh s2 → s1 ≡ s2
rec-det {s} {shp , pr} {s1} (b , g , C , pk , T , es' , p , sh , e1) (b2 , g2 , C2 , pk2 , T2 , es2 , p2 , sh2 , e2) =
  trans (choice (λ b′ g′ C′ es″ → s1 ≡ recU b′ g′ C′ pr es″ s) (trans (sym pk) pk2)
                (proj₂ (parse-unique T T2 es' es2 pr (trans sh (sym sh2)) (trans (sym (proj₁ p)) (proj₁ p2)))) e1)
        (sym e2)

-- a crash at `ck1`, `ck2`, `ck3` of that recovery, with the ghost it
-- leaves: unchanged at `ck1` (the region is as it was), the whole
-- (erased or old) region as durable part at `ck2` (recovery then picks
-- the new slot, whose generation makes every parse read the same,
-- `new-slot-any`), the recovered state's at `ck3`
RecCk : Bool → ℕ → Map → List Cell → List UEp → St → Gh → St → Gh → Set
RecCk b g C pr es' s gh s3 gh3 =
    (Img (ck1 (recR b g C pr es' s)) s3 × gh3 ≡ gh)
  ⊎ (Img (ck2 (recR b g C pr es' s)) s3 × gh3 ≡ ([] , map cur (dr s3)))
  ⊎ (Img (ck3 (recR b g C pr es' s)) s3 × gh3 ≡ ghostN ⟪ recU b g C pr es' s , [] ⟫)

RecCr : St → Gh → St → Gh → Set
RecCr s gh s3 gh3 = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ (List Cell) λ T → Σ (List UEp) λ es' → ParseS (map cur (dr s)) T es' (proj₂ gh) × shapes es' ≡ proj₁ gh ×
  RecCk b g C (proj₂ gh) es' s gh s3 gh3

okPU : SB.Op → SU → SU → Set
okPU (SB.use u) S S' = okM u (su S) (su S') × gh S' ≡ ghostN (su S')
okPU SB.recover S S' = RecOk (st (su S)) (gh S) (st (su S')) × ues (su S') ≡ [] × gh S' ≡ ghostN (su S')

crashPU : SB.Op → SU → SU → Set
crashPU (SB.use u) S S' = CrM u (su S) (st (su S')) (gh S') × ues (su S') ≡ []
crashPU SB.recover S S' = RecCr (st (su S)) (gh S) (st (su S')) (gh S') × ues (su S') ≡ []

-- a new disk: P's (empty checkpoint of generation 0, empty region)
NewPU : SU → Set
NewPU S = NewP (st (su S)) × ues (su S) ≡ [] × gh S ≡ ([] , [])

PUM : SB.Model
PUM = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okPU ; crash = crashPU }

-- not vacuous: from every CR state recovery steps
rec-total : ∀ {S t} → RecG (st (su S)) (gh S) t → Σ SU λ S' → okPU SB.recover S S'
rec-total {⟦ ⟪ s , us ⟫ , gh ⟧} (b , g , C , pk , _ , ga , T , es' , k , p , sh , _) =
  ⟦ ⟪ recU b g C (proj₂ gh) es' s , [] ⟫ , ghostN ⟪ recU b g C (proj₂ gh) es' s , [] ⟫ ⟧ ,
  (b , g , C , pk , T , es' , p , sh , refl) , refl , refl

------------------------------------------------------------------------
-- Type A for crashes of normal operations

private
  slot-sync : ∀ b s → slot b (syncAll s) ≡ sync (slot b s)
  slot-sync true  s = refl
  slot-sync false s = refl

  cur-sync : ∀ xs → map cur (map sync xs) ≡ map cur xs
  cur-sync []       = refl
  cur-sync (x ∷ xs) = cong (cur x ∷_) (cur-sync xs)

  crashL-sync : ∀ ms {ms'} → CrashL (map sync ms) ms' → map cur ms' ≡ map cur ms
  crashL-sync []       []          = refl
  crashL-sync (m ∷ ms) (refl ∷ cl) = cong (cur m ∷_) (crashL-sync ms cl)

  crash-erase : ∀ {g} ms {ms'} → All (GenLe g) (map cur ms) → CrashL (map (put erased) (map sync ms)) ms' →
                All (GenLe g) (map cur ms')
  crash-erase []       []       []                          = []
  crash-erase (m ∷ ms) (x ∷ xs) (inj₁ refl ∷ cl)            = x  ∷ crash-erase ms xs cl
  crash-erase (m ∷ ms) (x ∷ xs) (inj₂ (inj₁ refl) ∷ cl)     = tt ∷ crash-erase ms xs cl
  crash-erase (m ∷ ms) (x ∷ xs) (inj₂ (inj₂ refl) ∷ cl)     = tt ∷ crash-erase ms xs cl

private

  lenU : ∀ {s t} → Inv s t → length (ues s) ≡ length (SB.pend t)
  lenU iv = proj₂ (proj₂ (proj₁ (proj₁ iv)))

-- the flush's checkpoint points: recovery picks the old slot (the
-- flushed state's crash, no unsynced epoch) or the new one, of the next
-- generation, holding the stable L2P over a region it ignores
-- the other slot's order survives a crash that keeps its content or
-- leaves junk
older-cpO : ∀ {s'' : St} {c g} b → (cur c ≡ cur (cpO s'') ⊎ cur (cpO s'') ≡ junk) →
  Older g (cur (slot b (record s'' { cpO = c }))) → Older g (cur (slot b s''))
older-cpO true  _        o = o
older-cpO {g = g} false (inj₁ e) o = subst (Older g) e o
older-cpO {g = g} false (inj₂ e) o = subst (Older g) (sym e) tt

RecG-cpO : ∀ {s'' : St} {c gh t} →
  (∀ {b g C} → pick (cur (cpL s'')) (cur c) ≡ just (b , g , C) → pick (cur (cpL s'')) (cur (cpO s'')) ≡ just (b , g , C)) →
  (cur c ≡ cur (cpO s'') ⊎ cur (cpO s'') ≡ junk) →
  RecG (record s'' { cpO = c }) gh t → RecG s'' gh t
RecG-cpO {s''} {c} f w (b , g , C , pk , so , rest) = b , g , C , f pk , older-cpO {s''} {c} {g} (not b) w so , rest

-- RecG does not read the record slots
RecG-rcd : ∀ {s'' : St} {r gh t} → RecG (record s'' { rcd = r }) gh t → RecG s'' gh t
RecG-rcd {s''} {r} (b , g , C , pk , so , rest) = b , g , C , pk , orc (not b) so , rest
  where
    orc : ∀ {g} b′ → Older g (cur (slot b′ (record s'' { rcd = r }))) → Older g (cur (slot b′ s''))
    orc true  o = o
    orc false o = o

RecG-pr : ∀ {s shp pr pr' t} → pr ≡ pr' → RecG s (shp , pr) t → RecG s (shp , pr') t
RecG-pr refl r = r

new-slot-G : ∀ {u t s''} → Inv u t → (∀ p → CrashD (dat (st u) p) (dat s'' p)) →
  All (GenLe (gen (st u))) (map cur (dr s'')) →
  pick (cur (cpL s'')) (cur (cpO s'')) ≡ just (false , suc (gen (st u)) , smap (st u)) →
  Older (suc (gen (st u))) (cur (cpL s'')) → RecG s'' ([] , map cur (dr s'')) t
new-slot-G {u} {t} {s''} iv cd gr pk so =
  false , suc (gen (st u)) , smap (st u) , pk , so , All-map (λ {c} → GenLe-step c) gr , [] , [] , 0 , (refl , []) , refl , here refl ,
  (λ a le → trans (cong (λ r → rdD (dat s'') (proj₁ r a)) (rp-old (gen (st u)) (map cur (dr s'')) (st0 (smap (st u))) gr))
                  (stable-crash {u} {t} (dat s'') (proj₂ (proj₁ iv)) sy cd a le)) ,
  (λ a q le e → stable-oob {st u} (dat s'') sy cd a q le
                  (trans (sym (cong (λ r → proj₁ r a) (rp-old (gen (st u)) (map cur (dr s'')) (st0 (smap (st u))) gr))) e))
  where
    sy = proj₂ (proj₂ (proj₂ (proj₂ (proj₁ (proj₂ iv)))))

-- (with the map named: the ones above keep it, `new-slot-GM` names the
-- new slot's; `ck-G-M`: recovery after a crash inside a flush's
-- checkpoint rebuilds the flushed L2P)
recgm-≐ : ∀ {s gh t M M'} → (∀ a → M a ≡ M' a) → RecGM s gh t M → RecGM s gh t M'
recgm-≐ e (rg , em) = rg , λ a → trans (em a) (e a)

RecG-cpO-M : ∀ {s'' : St} {c gh t M} →
  (∀ {b g C} → pick (cur (cpL s'')) (cur c) ≡ just (b , g , C) → pick (cur (cpL s'')) (cur (cpO s'')) ≡ just (b , g , C)) →
  (cur c ≡ cur (cpO s'') ⊎ cur (cpO s'') ≡ junk) →
  RecGM (record s'' { cpO = c }) gh t M → RecGM s'' gh t M
RecG-cpO-M {s''} {c} {gh} {t} f w (rg , em) = RecG-cpO {s''} {c} {gh} {t} f w rg , em

RecG-rcd-M : ∀ {s'' : St} {r gh t M} → RecGM (record s'' { rcd = r }) gh t M → RecGM s'' gh t M
RecG-rcd-M {s''} {r} {gh} {t} (rg , em) = RecG-rcd {s''} {r} {gh} {t} rg , em

RecG-pr-M : ∀ {s shp pr pr' t M} → pr ≡ pr' → RecGM s (shp , pr) t M → RecGM s (shp , pr') t M
RecG-pr-M refl r = r

new-slot-GM : ∀ {u t s''} (iv : Inv u t) (cd : ∀ p → CrashD (dat (st u) p) (dat s'' p)) →
  (gr : All (GenLe (gen (st u))) (map cur (dr s''))) →
  (pk : pick (cur (cpL s'')) (cur (cpO s'')) ≡ just (false , suc (gen (st u)) , smap (st u))) →
  (so : Older (suc (gen (st u))) (cur (cpL s''))) → RecGM s'' ([] , map cur (dr s'')) t (smap (st u))
new-slot-GM {u} {t} {s''} iv cd gr pk so =
  new-slot-G {u} {t} {s''} iv cd gr pk so ,
  λ a → cong (λ r → proj₁ r a) (rp-old (gen (st u)) (map cur (dr s'')) (st0 (smap (st u))) gr)

ck-G-M : ∀ {s t s''} → Inv′ ⟪ fl3 (st s) , [] ⟫ t →
         (Img (ck1 (fl3 (st s))) s'' ⊎ Img (ck2 (fl3 (st s))) s'') → RecGM s'' ([] , map cur (dr s'')) t (smap (fl3 (st s)))
ck-G-M {s} {t} {s''} (iv , gr) (inj₁ (cd , cL , cO , cl , cr)) = go cO
  where
    x = fl3 (st s)
    b = proj₁ (proj₂ (proj₂ iv))
    so = proj₂ (proj₂ (proj₂ iv))
    sl : cpL s'' ≡ syn (cpt (gen x) (BI.C b))
    sl = crash-syn (BI.slt b) cL
    dre : map cur (dr s'') ≡ map cur (dr x)
    dre = trans (crashL-sync (dr (fl2 (st s))) cl) (sym (cur-sync (dr (fl2 (st s)))))
    pk0 : pick (cur (cpL s'')) (cur (cpO x)) ≡ just (true , gen x , BI.C b)
    pk0 = trans (cong (λ c → pick (cur c) (cur (cpO x))) sl) (pick-first (gen x) (BI.C b) (cur (cpO x)) so)
    G0 = crash-normal-GM {⟪ x , [] ⟫} {t} {record s'' { cpO = cpO x }} iv gr (cd , cL , refl , cl , cr)
    old : RecGM (record s'' { cpO = cpO x }) ([] , map cur (dr s'')) t (smap x)
    old = RecG-pr-M {record s'' { cpO = cpO x }} {[]} {map cur (dr x)} {map cur (dr s'')} {t} {smap x} (sym dre)
            (recgm-≐ {record s'' { cpO = cpO x }} {ghostN ⟪ x , [] ⟫} {t} {mapAt (smap x) [] (proj₁ G0)} {smap x}
                     (λ a → cong (λ f → f a) (mapAt-nil (smap x) (proj₁ G0))) (proj₂ (proj₂ G0)))
    go : CrashC (put (cpt (suc (gen x)) (l2p x)) (cpO x)) (cpO s'') → RecGM s'' ([] , map cur (dr s'')) t (smap x)
    go (inj₁ e) = RecG-cpO-M {s''} {cpO x} {[] , map cur (dr s'')} {t} (λ pk → trans (cong (λ q → pick (cur (cpL s'')) (cur q)) e) pk)
                    (inj₁ (sym (cong cur e))) old
    go (inj₂ (inj₂ e)) = RecG-cpO-M {s''} {cpO x} {[] , map cur (dr s'')} {t} f (inj₂ (cong cur e)) old
      where
        f : ∀ {b′ g C} → pick (cur (cpL s'')) (cur (cpO x)) ≡ just (b′ , g , C) →
            pick (cur (cpL s'')) (cur (cpO s'')) ≡ just (b′ , g , C)
        f pk with trans (sym pk) pk0
        ... | refl = trans (cong (λ q → pick (cur (cpL s'')) (cur q)) e) (cong (λ c → pick (cur c) junk) sl)
    go (inj₂ (inj₁ e)) =
      new-slot-GM {⟪ x , [] ⟫} {t} {s''} iv cd
        (subst (All (GenLe (gen x))) (sym dre) gr)
        (trans (cong (λ q → pick (cur (cpL s'')) (cur q)) e)
          (trans (cong (λ c → pick (cur c) (cpt (suc (gen x)) (l2p x))) sl)
                 (pick-second (suc (gen x)) (l2p x) (cpt (gen x) (BI.C b)) ≤-refl)))
        (subst (Older (suc (gen x))) (sym (cong cur sl)) ≤-refl)
ck-G-M {s} {t} {s''} (iv , gr) (inj₂ (cd , cL , cO , cl , cr)) =
  new-slot-GM {⟪ x , [] ⟫} {t} {s''} iv cd (crash-erase (dr x) gr cl)
    (trans (cong (λ q → pick (cur (cpL s'')) (cur q)) cO)
           (pick-second (suc (gen x)) (l2p x) (cur (cpL s'')) (older cL)))
    (older cL)
  where
    x = fl3 (st s)
    b = proj₁ (proj₂ (proj₂ iv))
    older : CrashC (put erased (sync (cpL x))) (cpL s'') → Older (suc (gen x)) (cur (cpL s''))
    older (inj₁ e) = subst (λ c → Older (suc (gen x)) c) (sym (trans (cong cur e) (cong cur (BI.slt b)))) ≤-refl
    older (inj₂ (inj₁ e)) = subst (λ c → Older (suc (gen x)) c) (sym (cong cur e)) tt
    older (inj₂ (inj₂ e)) = subst (λ c → Older (suc (gen x)) c) (sym (cong cur e)) tt

ck-G : ∀ {s t s''} → Inv′ ⟪ fl3 (st s) , [] ⟫ t →
       (Img (ck1 (fl3 (st s))) s'' ⊎ Img (ck2 (fl3 (st s))) s'') → RecG s'' ([] , map cur (dr s'')) t
ck-G {s} {t} {s''} iv c = proj₁ (ck-G-M {s} {t} {s''} iv c)

-- a flush, or the forced barrier
FFu : SB.UOp → StU → Set
FFu (SB.reg (SB.op _))  s = ⊥
FFu (SB.reg SB.barrier) s = ⊤
FFu SB.flush            s = ⊤

fl-A : ∀ u {s t s'} → FFu u s → Inv′ s t → FlOk s s' →
       Σ SB.State λ t' → (SB.stable t' ≡ SB.volatile t × SB.pend t' ≡ []) × Inv′ s' t'
fl-A (SB.reg (SB.op _)) () _ _
fl-A (SB.reg SB.barrier) {s} {t} {s'} _ (iv , gr) f
  with A-Inv (SB.reg SB.barrier) {s} {t} {s'} iv (okM⇒okU (SB.reg SB.barrier) {s} {s'} (inj₂ f))
... | t' , (_ , _ , inj₂ (e1 , e2)) , iv' =
  t' , (e1 , e2) , iv' , genR-ok (SB.reg SB.barrier) {s} {s'} (okM⇒okU (SB.reg SB.barrier) {s} {s'} (inj₂ f)) gr
... | t' , (_ , _ , inj₁ (_ , _ , ep)) , iv' =
  ⊥-elim′ (len-mis₂ (ues s') (SB.pend t) (SB.volatile t) (fl-nil {s} {s'} f) (trans (lenU {s'} {t'} iv') (cong length ep)))
  where
    fl-nil : ∀ {s s'} → FlOk s s' → ues s' ≡ []
    fl-nil (inj₁ refl) = refl
    fl-nil (inj₂ refl) = refl
fl-A SB.flush {s} {t} {s'} _ (iv , gr) f with A-Inv SB.flush {s} {t} {s'} iv (okM⇒okU SB.flush {s} {s'} f)
... | t' , (_ , e1 , e2 , _) , iv' = t' , (e1 , e2) , iv' , genR-ok SB.flush {s} {s'} (okM⇒okU SB.flush {s} {s'} f) gr

crash-F : ∀ u {s t s'' gh} → FFu u s → Inv′ s t → CrF s s'' gh → Σ SB.State λ t' → t SB.─fbᶜ→ t' × RecG s'' gh t'
crash-F u {s} {t} {s''} ff (iv , gr) (inj₁ (img , refl)) =
  preT t , inj₁ (refl , refl) ,
  crash-normal-G {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {preT t} {s''} (pre-sync {s} {t} iv) (≤-refl ∷ gr) img
crash-F u {s} {t} {s''} ff iv (inj₂ (inj₁ (img , refl))) =
  let F = fl-A u {s} {t} {⟪ fl3 (st s) , [] ⟫} ff iv (inj₁ refl) in
  proj₁ F , inj₂ (proj₁ (proj₂ F)) ,
  crash-normal-G {⟪ fl3 (st s) , [] ⟫} {proj₁ F} {s''} (proj₁ (proj₂ (proj₂ F))) (proj₂ (proj₂ (proj₂ F))) img
crash-F u {s} {t} {s''} ff iv (inj₂ (inj₂ (inj₁ (ck , refl)))) =
  let F = fl-A u {s} {t} {⟪ fl3 (st s) , [] ⟫} ff iv (inj₁ refl) in
  proj₁ F , inj₂ (proj₁ (proj₂ F)) , ck-G {s} {proj₁ F} {s''} (proj₂ (proj₂ F)) ck
crash-F u {s} {t} {s''} ff iv (inj₂ (inj₂ (inj₂ (img , refl)))) =
  let F = fl-A u {s} {t} {⟪ ck3 (fl3 (st s)) , [] ⟫} ff iv (inj₂ refl) in
  proj₁ F , inj₂ (proj₁ (proj₂ F)) ,
  crash-normal-G {⟪ ck3 (fl3 (st s)) , [] ⟫} {proj₁ F} {s''} (proj₁ (proj₂ (proj₂ F))) (proj₂ (proj₂ (proj₂ F))) img

crash-G : ∀ u {s t s'' gh} → Inv′ s t → CrM u s s'' gh → Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × RecG s'' gh t'
crash-G (SB.reg (SB.op x)) {s} {t} {s''} (iv , gr) (s' , o , img , refl) =
  let A = A-Inv (SB.reg (SB.op x)) {s} {t} {s'} iv o in
  proj₁ A , regcU x (proj₁ o) (proj₁ (proj₂ A)) ,
  crash-normal-G {s'} {proj₁ A} {s''} (proj₂ (proj₂ A)) (genR-ok (SB.reg (SB.op x)) {s} {s'} o gr) img
crash-G (SB.reg SB.barrier) {s} {t} {s''} (iv , gr) (inj₁ (lt , img , refl))
  with A-Inv (SB.reg SB.barrier) {s} {t} {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} iv (inj₁ (lt , refl))
... | t' , (_ , _ , inj₁ (_ , e1 , e2)) , iv' =
  t' , inj₁ (e1 , e2) , crash-normal-G {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {t'} {s''} iv' (≤-refl ∷ gr) img
... | t' , (_ , _ , inj₂ (_ , ep)) , iv' =
  ⊥-elim′ (len-mis₁ (ues s) (epE (st s)) (SB.pend t') (lenU {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {t'} iv') ep)
crash-G (SB.reg SB.barrier) {s} {t} {s''} iv (inj₂ c) = crash-F (SB.reg SB.barrier) {s} {t} {s''} tt iv c
crash-G SB.flush {s} {t} {s''} iv c = crash-F SB.flush {s} {t} {s''} tt iv c

------------------------------------------------------------------------
-- Crashed recovery

-- (`rec-ck-M`: with the map named — the one the crashed recovery was
-- rebuilding; `rec-ck` forgets it)
rec-ck-M : ∀ {s t b g C pr T es' k shp s3 gh3 M} →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) → Older g (cur (slot (not b) s)) → All (GenLe g) (map cur (dr s)) →
  ParseS (map cur (dr s)) T es' pr → shapes es' ≡ shp → candAt t k ∈ SB.stable t ∷ SB.pend t →
  (∀ a → a ≤ amax → rdD (dat s) (proj₁ (recRS g (λ p → cur (dat s p)) es' pr (st0 C)) a) ≡ candAt t k a) →
  (∀ a p → a ≤ amax → proj₁ (recRS g (λ p → cur (dat s p)) es' pr (st0 C)) a ≡ just p → oob (cur (dat s p)) ≡ a) →
  (∀ a → recM g C pr es' s a ≡ M a) →
  RecCk b g C pr es' s (shp , pr) s3 gh3 →
  Σ SB.State λ t' → SB.crashSB SB.recover t t' × RecGM s3 gh3 t' M
-- ck1: the new slot programmed, not synced; the region as it was
rec-ck-M {s} {t} {b} {g} {C} {pr} {T} {es'} {k} {shp} {s3} {M = M₀} pk so ga p sh m rd ob em (inj₁ ((cd , cL , cO , cl , cr) , refl)) =
  t , inj₁ (refl , refl) , go cO
  where
    M = recM g C pr es' s
    de : ∀ q → cur (dat s3 q) ≡ cur (dat s q)
    de q = cong cur (cd q)
    sl : cpL s3 ≡ syn (cur (slot b s))
    sl = crash-syn (slot-sync b s) cL
    dre : map cur (dr s3) ≡ map cur (dr s)
    dre = crashL-sync (dr s) cl
    ga3 : All (GenLe g) (map cur (dr s3))
    ga3 = subst (All (GenLe g)) (sym dre) ga
    p3 : ParseS (map cur (dr s3)) T es' pr
    p3 = subst (λ z → ParseS z T es' pr) (sym dre) p
    rsx : recRS g (λ q → cur (dat s3 q)) es' pr (st0 C) ≡ recRS g (λ q → cur (dat s q)) es' pr (st0 C)
    rsx = recRS-ext de g es' pr (st0 C)
    pk′ : cur (cpO s3) ≡ cur (slot (not b) s) ⊎ cur (cpO s3) ≡ junk →
          pick (cur (cpL s3)) (cur (cpO s3)) ≡ just (true , g , C)
    pk′ (inj₁ e) = trans (cong₂ pick (cong cur sl) e) (pick-top b s pk)
    pk′ (inj₂ e) = trans (cong₂ pick (trans (cong cur sl) (pick-cell b s pk)) e) refl
    same : cur (cpO s3) ≡ cur (slot (not b) s) ⊎ cur (cpO s3) ≡ junk → RecGM s3 (shp , pr) t M₀
    so3 : cur (cpO s3) ≡ cur (slot (not b) s) ⊎ cur (cpO s3) ≡ junk → Older g (cur (cpO s3))
    so3 (inj₁ e) = subst (Older g) (sym e) so
    so3 (inj₂ e) = subst (Older g) (sym e) tt
    same w = (true , g , C , pk′ w , so3 w , ga3 , T , es' , k , p3 , sh , m ,
      (λ a le → trans (cong (λ r → rdD (dat s3) (proj₁ r a)) rsx) (trans (rdD-ext de (M a)) (rd a le))) ,
      (λ a q le e → trans (cong oob (de q)) (ob a q le (trans (sym (cong (λ r → proj₁ r a) rsx)) e)))) ,
      λ a → trans (cong (λ r → proj₁ r a) rsx) (em a)
    go : CrashC (put (cpt (suc g) M) (slot (not b) (syncAll s))) (cpO s3) → RecGM s3 (shp , pr) t M₀
    go (inj₁ e) = same (inj₁ (trans (cong cur e) (cong dur (slot-sync (not b) s))))
    go (inj₂ (inj₂ e)) = same (inj₂ (cong cur e))
    go (inj₂ (inj₁ e)) =
      (false , suc g , M ,
      trans (cong (λ q → pick (cur (cpL s3)) (cur q)) e)
            (pick-second (suc g) M (cur (cpL s3))
               (subst (Older (suc g)) (sym (trans (cong cur sl) (pick-cell b s pk))) ≤-refl)) ,
      subst (Older (suc g)) (sym (trans (cong cur sl) (pick-cell b s pk))) ≤-refl ,
      All-map (λ {c} → GenLe-step c) ga3 , T , es' , k , p3 , sh , m ,
      proj₁ NA , proj₂ NA) ,
      λ a → trans (cong (λ r → proj₁ r a) (recRS-newgen g (λ q → cur (dat s3 q)) T es' pr (st0 M) (subst (All (GenLe g)) (proj₁ p3) ga3)))
                  (em a)
      where
        NA = new-slot-any {s} {s3} {t} {g} {C} {pr} {es'} {k} ga3 de rd ob T es' pr p3
-- ck2: the new slot synced, the old slot and the region erased, not synced
rec-ck-M {s} {t} {b} {g} {C} {pr} {T} {es'} {k} {shp} {s3} pk so ga p sh m rd ob em (inj₂ (inj₁ (img , refl))) =
  t , inj₁ (refl , refl) ,
  (false , suc g , recM g C pr es' s , proj₁ X , proj₁ (proj₂ X) ,
  All-map (λ {c} → GenLe-step c) G3 ,
  [] , [] , k , (refl , []) , refl , m , proj₁ Y , proj₂ Y) ,
  λ a → trans (cong (λ r → proj₁ r a) (recRS-newgen g (λ q → cur (dat s3 q)) [] [] (map cur (dr s3)) (st0 (recM g C pr es' s)) G3)) (em a)
  where
    X = rec-crash-ck2-any {s} {t} {b} {g} {C} {pr} {es'} {k} pk ga rd ob {s3} img
    Y = proj₂ (proj₂ X) [] [] (map cur (dr s3)) (refl , [])
    G3 : All (GenLe g) (map cur (dr s3))
    G3 = crash-erase (map sync (dr s)) (subst (All (GenLe g)) (sym (cur-sync (dr s))) ga) (proj₁ (proj₂ (proj₂ (proj₂ img))))
-- ck3: recovery done (SB chose), then a crash of the recovered state
rec-ck-M {s} {t} {b} {g} {C} {pr} {T} {es'} {k} {shp} {s3} pk so ga p sh m rd ob em (inj₂ (inj₂ (img , refl))) =
  recT (candAt t k) , inj₂ (candAt t k , m , refl , refl) ,
  proj₁ G , λ a → trans (proj₂ G a) (trans (cong (λ f → f a) (mapAt-nil (recM g C pr es' s) k′)) (em a))
  where
    IV = proj₂ (proj₂ (proj₂ (proj₂ (recU-A {s} {t} (b , g , C , pk , pr , T , es' , k , p , m , rd , ob)))))
    GM = crash-normal-GM {⟪ recU b g C pr es' s , [] ⟫} {recT (candAt t k)} {s3} (proj₁ IV) (proj₂ IV) img
    k′ = proj₁ GM
    G  = proj₂ (proj₂ GM)

rec-ck : ∀ {s t b g C pr T es' k shp s3 gh3} →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) → Older g (cur (slot (not b) s)) → All (GenLe g) (map cur (dr s)) →
  ParseS (map cur (dr s)) T es' pr → shapes es' ≡ shp → candAt t k ∈ SB.stable t ∷ SB.pend t →
  (∀ a → a ≤ amax → rdD (dat s) (proj₁ (recRS g (λ p → cur (dat s p)) es' pr (st0 C)) a) ≡ candAt t k a) →
  (∀ a p → a ≤ amax → proj₁ (recRS g (λ p → cur (dat s p)) es' pr (st0 C)) a ≡ just p → oob (cur (dat s p)) ≡ a) →
  RecCk b g C pr es' s (shp , pr) s3 gh3 →
  Σ SB.State λ t' → SB.crashSB SB.recover t t' × RecG s3 gh3 t'
rec-ck {s} {t} {b} {g} {C} {pr} {T} {es'} {k} {shp} {s3} {gh3} pk so ga p sh m rd ob c =
  let R = rec-ck-M {s} {t} {b} {g} {C} {pr} {T} {es'} {k} {shp} {s3} {gh3} {recM g C pr es' s} pk so ga p sh m rd ob (λ a → refl) c
  in proj₁ R , proj₁ (proj₂ R) , proj₁ (proj₂ (proj₂ R))

------------------------------------------------------------------------
-- The obligations against SB

open SB.ForwardSimulation PUM SB.SB using (Obligations)

ARP : SU → SB.State → Set
ARP S t = Inv′ (su S) t

CRP : SU → SB.State → Set
CRP S t = RecG (st (su S)) (gh S) t

private
  A-ok′ : ∀ u {S t S'} → ARP S t → ⊤ → okPU (SB.use u) S S' → Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARP S' t'
  A-ok′ u {S} {t} {S'} (iv , gr) _ (o , _) =
    let A = A-Inv u {su S} {t} {su S'} iv (okM⇒okU u o) in
    proj₁ A , proj₁ (proj₂ A) , proj₂ (proj₂ A) , genR-ok u {su S} {su S'} (okM⇒okU u o) gr

  A-crash′ : ∀ u {S t S'} → ARP S t → ⊤ → crashPU (SB.use u) S S' → Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRP S' t'
  A-crash′ u {S} {t} {S'} iv _ (c , _) = crash-G u {su S} {t} {st (su S')} {gh S'} iv c

  A-rec′ : ∀ {S t S'} → CRP S t → ⊤ → okPU SB.recover S S' → Σ SB.State λ t' → SB.okSB SB.recover t t' × ARP S' t'
  A-rec′ {⟦ ⟪ s , us ⟫ , (shp , pr) ⟧} {t} {⟦ ⟪ s' , us' ⟫ , gh' ⟧}
    (b , g , C , pk , so , ga , T , es' , k , p , sh , m , rd , ob) _ ((b2 , g2 , C2 , pk2 , T2 , es2 , p2 , sh2 , refl) , refl , _) =
    choice (λ b′ g′ C′ es″ → Σ SB.State λ t' → SB.okSB SB.recover t t' × Inv′ ⟪ recU b′ g′ C′ pr es″ s , [] ⟫ t')
           (trans (sym pk) pk2)
           (sym (proj₂ (parse-unique T2 T es2 es' pr (trans sh2 (sym sh)) (trans (sym (proj₁ p2)) (proj₁ p)))))
           (proj₁ (proj₂ (proj₂ R)) , proj₁ (proj₂ (proj₂ (proj₂ R))) , proj₂ (proj₂ (proj₂ (proj₂ R))))
    where
      R = recU-A {s} {t} (b , g , C , pk , pr , T , es' , k , p , m , rd , ob)

  A-recᶜ′ : ∀ {S t S'} → CRP S t → ⊤ → crashPU SB.recover S S' → Σ SB.State λ t' → SB.crashSB SB.recover t t' × CRP S' t'
  A-recᶜ′ {⟦ ⟪ s , us ⟫ , (shp , pr) ⟧} {t} {⟦ ⟪ s3 , us3 ⟫ , gh3 ⟧}
    (b , g , C , pk , so , ga , T , es' , k , p , sh , m , rd , ob) _ ((b2 , g2 , C2 , pk2 , T2 , es2 , p2 , sh2 , ck) , _) =
    rec-ck {s} {t} {b} {g} {C} {pr} {T} {es'} {k} {shp} {s3} {gh3} pk so ga p sh m rd ob
      (choice (λ b′ g′ C′ es″ → RecCk b′ g′ C′ pr es″ s (shp , pr) s3 gh3) (trans (sym pk2) pk)
              (proj₂ (parse-unique T2 T es2 es' pr (trans sh2 (sym sh)) (trans (sym (proj₁ p2)) (proj₁ p)))) ck)

  init-CR′ : ∀ {S t} → NewPU S → SB.New t → CRP S t
  init-CR′ {⟦ ⟪ s , us ⟫ , gh ⟧} {t} ((cL , cO , d0r , _) , _ , refl) (ns , _) =
    true , 0 , unmapped ,
    trans (cong₂ (λ x y → pick (cur x) (cur y)) cL cO) refl ,
    subst (λ z → Older 0 (cur z)) (sym cO) tt ,
    subst (λ z → All (GenLe 0) (map cur z)) (sym d0r) [] ,
    [] , [] , 0 , (cong (map cur) d0r , []) , refl , here refl ,
    (λ a le → rz a) , (λ a q le ())
    where
      rz : ∀ a → rdD (dat s) (proj₁ (recRS 0 (λ p → cur (dat s p)) [] [] (st0 unmapped)) a) ≡ SB.stable t a
      rz a = sym (cong (λ f → f a) ns)

obligationsU : Obligations
obligationsU = record
  { AR = ARP ; CR = CRP ; RI = λ _ → ⊤ ; CI = λ _ → ⊤
  ; AR⇒≈ = λ iv a i → proj₁ (proj₁ (proj₁ (proj₁ iv))) a i
  ; init-CR = λ {S} {t} n n′ → init-CR′ {S} {t} n n′
  ; init-CI = λ _ → tt
  ; A-ok = A-ok′ ; A-crash = A-crash′ ; A-rec = λ {S} {t} {S'} → A-rec′ {S} {t} {S'}
  ; A-recᶜ = λ {S} {t} {S'} → A-recᶜ′ {S} {t} {S'}
  ; B-ok = λ _ _ _ → tt ; B-crash = λ _ _ _ → tt ; B-rec = λ _ _ → tt ; B-recᶜ = λ _ _ → tt
  }

-- Theorem 1 for PU against SB, and snapshot consistency with barriers
theorem1-PU : SB.CorrespondenceB.BehaviourallyCorrect PUM SB.SB
theorem1-PU = SB.theorem1-SB PUM obligationsU

PU-snapshot-consistent : SB.SnapshotConsistentB PUM
PU-snapshot-consistent = SB.obligations⇒SCB PUM obligationsU
