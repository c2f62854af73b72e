{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: CRASHED RECOVERIES of PU.  PU's recovery
-- step (`recU`, SCFTL.Impl.UnsyncedRecStep: SYNC, the L2P rebuilt by
-- the in-order check over the unsynced epochs, then the full
-- checkpoint `ck3`) has P's crash points of recovery (`CkPt`: `ck1`,
-- the new slot programmed after recovery's SYNC; `ck2`, the new slot
-- synced, the old slot and the region erased; `ck3`, the end).  A crash
-- at any of them leaves a flash recovery reads again to one of SB's
-- candidates after SB's crashed recovery: nothing chosen yet (`ck1`,
-- `ck2`: the old slot over the same region, or the new slot of the next
-- generation over a region it ignores, both reading the candidate the
-- crashed recovery was rebuilding), or chosen (`ck3`: the recovered
-- state's invariants, `recU-A`, then a crash of a normal state).
--
--   RecTo″       what recovery reads (`RecTo′`) and the GenLe fact the
--                new slot needs: every region page is of the picked
--                slot's generation or older
--   RecTo″⇒′     it is RecTo′ (so `recU-A` applies)
--   recR         recovery's state right before its checkpoint
--                (`ck3 (recR …) = recU …`)
--   accU-ext, recRS-ext   the check reads the data pages pointwise
--   pick-top, pick-cell   the slot recovery picked, re-read
--   recU-crashed    a crash at `ck1`/`ck2`/`ck3` of PU's recovery (with
--                the parse RecTo″ gives), from a state with RecTo″ t:
--                SB's crashed recovery t ─rᶜ→ t' and RecTo″ t' again
--   FG, fg-pt, crash-covered″
--                every crash point of `CrashPt′` gives RecTo″
--   recRS-newgen the next generation's replay ignores the region under
--                every parse of it
--   parse-unique, parse-crash-unique
--                the parse of a crashed region is fixed by the epochs'
--                shapes (`crashEs-shape`) and the durable part
--   crash-normal-any
--                a crash of any normal PU state: recovery reading ANY
--                parse with the epochs as the crash left them, over the
--                durable part, reads one of SB's candidates
--   new-slot-any, rec-crash-ck2-any
--                with the next generation's slot picked (`ck1` with the
--                new slot landed, `ck2`), ANY parse of the crashed
--                region reads the candidate being rebuilt
--
-- NOT proven here: the split found from flash (or a durable ghost of
-- it that the crash relation sets and recovery reads; parse-unique is
-- the fact such a ghost needs), PU as a `Model`.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedRecCrash (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                   (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _⊔_; _≤ᵇ_; _≡ᵇ_)
open import Data.Nat.Properties using (≤-refl; ≤-trans; ≤⇒≤ᵇ; ≤ᵇ⇒≤; ≰⇒≥; <-irrefl)
import Data.List.Relation.Unary.All.Properties
open import Data.Bool.Base using (Bool; true; false; not; T; _∧_)
open import Data.Unit.Base using (tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Relation.Unary.All using (All; []; _∷_) renaming (map to All-map)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (GenLe; GenLe-step; Older; pick-second; T⇒≡; ≡ᵇ-false)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp; accU; accB; lay)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues; flB; epE; Syn)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_ using (candAt; recRS; ParseS)
open import SCFTL.Impl.UnsyncedCrashes Data d0 amax wmax kmax umax _≟D_
  using (RecTo; crash-normal; Inv; A-Inv; pre-sync; preT)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_
  using (RecTo′; Inv′; GenR; rp-old; genR-ok; CrashPt′; crash-covered′)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; recU-crash-readsBI)
open import SCFTL.Impl.UnsyncedEpochsCrash Data d0 amax wmax kmax _≟D_ using (tents; ue; CrashRs; CrashEs; []; _∷_)
import Data.List.Properties
import Data.Nat.Properties
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recM; recU; recU-A; recT)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- What recovery reads, with the region's generations

RecTo″ : St → SB.State → Set
RecTo″ s' t = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s')) (cur (cpO s')) ≡ just (b , g , C) ×
  All (GenLe g) (map cur (dr s')) ×
  Σ (List Cell) λ pr → Σ (List Cell) λ T → Σ (List UEp) λ es' → Σ ℕ λ k →
    ParseS (map cur (dr s')) T es' pr × candAt t k ∈ SB.stable t ∷ SB.pend t ×
    (∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS g (λ p → cur (dat s' p)) es' pr (st0 C)) a) ≡ candAt t k a) ×
    (∀ a p → a ≤ amax → proj₁ (recRS g (λ p → cur (dat s' p)) es' pr (st0 C)) a ≡ just p → oob (cur (dat s' p)) ≡ a)

RecTo″⇒′ : ∀ {s' t} → RecTo″ s' t → RecTo′ s' t
RecTo″⇒′ (b , g , C , pk , _ , rest) = b , g , C , pk , rest

-- recovery's state right before its full checkpoint
recR : Bool → ℕ → Map → List Cell → List UEp → St → St
recR b g C pr es' s = record (rec0 b g C s)
  { l2p = recM g C pr es' s ; smap = recM g C pr es' s
  ; nxt = hi (recM g C pr es' s) amax ⊔ hiR (map cur (dr s))
  ; ers = reclaim (recM g C pr es' s) (hi (recM g C pr es' s) amax ⊔ hiR (map cur (dr s))) }

recR-ck3 : ∀ b g C pr es' s → ck3 (recR b g C pr es' s) ≡ recU b g C pr es' s
recR-ck3 b g C pr es' s = refl

------------------------------------------------------------------------
-- The check reads the data pages pointwise

verD-ext : ∀ {D D'} → (∀ p → D p ≡ D' p) → ∀ xs → verD D xs ≡ verD D' xs
verD-ext e []                 = refl
verD-ext {D} {D'} e ((p , d , a) ∷ xs) =
  cong₂ _∧_ (cong (λ c → holds c d a) (e p)) (verD-ext e xs)

okC-ext : ∀ {D D'} → (∀ p → D p ≡ D' p) → ∀ g c cs → okC g D c cs ≡ okC g D' c cs
okC-ext e g (dlt h x ps true (dd , dt , L)) cs =
  cong (λ v → (h ≡ᵇ g) ∧ v ∧ verT g x dt cs) (verD-ext e dd)
okC-ext e g (dlt h x ps false d) cs = refl
okC-ext e g erased      cs = refl
okC-ext e g junk        cs = refl
okC-ext e g (dcell _ _) cs = refl
okC-ext e g (cpt _ _)   cs = refl

accU-ext : ∀ {D D'} → (∀ p → D p ≡ D' p) → ∀ g pr es → accU g D pr es ≡ accU g D' pr es
accU-ext e g pr [] = refl
accU-ext {D} {D'} e g pr ((c , ts) ∷ es) =
  trans (cong (accB g D pr c ts es) (okC-ext e g c (ts ++ pr))) (go (okC g D' c (ts ++ pr)))
  where
    go : ∀ b → accB g D pr c ts es b ≡ accB g D' pr c ts es b
    go true  = accU-ext e g (c ∷ ts ++ pr) es
    go false = refl

recRS-ext : ∀ {D D'} → (∀ p → D p ≡ D' p) → ∀ g es pr mt → recRS g D es pr mt ≡ recRS g D' es pr mt
recRS-ext e g es pr mt = cong (λ z → rp g z mt) (accU-ext e g pr es)

rdD-ext : ∀ {D D'} → (∀ p → cur (D p) ≡ cur (D' p)) → ∀ mp → rdD D mp ≡ rdD D' mp
rdD-ext e nothing  = refl
rdD-ext e (just p) = cong cellD (e p)

------------------------------------------------------------------------
-- The slot recovery picked

private
  leb-flip : ∀ m n → (m ≤ᵇ n) ≡ false → (n ≤ᵇ m) ≡ true
  leb-flip m n q = T⇒≡ (n ≤ᵇ m) (≤⇒≤ᵇ {n} {m} (≰⇒≥ (λ (le : m ≤ n) → subst T q (≤⇒≤ᵇ {m} {n} le))))

pick-true : ∀ c1 c2 {g C} → pick c1 c2 ≡ just (true , g , C) → c1 ≡ cpt g C
pick-true (cpt g1 C1) (cpt h D) e with h ≤ᵇ g1
pick-true (cpt g1 C1) (cpt h D) refl | true = refl
pick-true (cpt g1 C1) (cpt h D) ()   | false
pick-true (cpt g1 C1) erased      refl = refl
pick-true (cpt g1 C1) junk        refl = refl
pick-true (cpt g1 C1) (dcell _ _) refl = refl
pick-true (cpt g1 C1) (dlt _ _ _ _ _) refl = refl
pick-true erased          (cpt h D) ()
pick-true junk            (cpt h D) ()
pick-true (dcell _ _)     (cpt h D) ()
pick-true (dlt _ _ _ _ _) (cpt h D) ()
pick-true erased          erased ()
pick-true erased          junk ()
pick-true erased          (dcell _ _) ()
pick-true erased          (dlt _ _ _ _ _) ()
pick-true junk            erased ()
pick-true junk            junk ()
pick-true junk            (dcell _ _) ()
pick-true junk            (dlt _ _ _ _ _) ()
pick-true (dcell _ _)     erased ()
pick-true (dcell _ _)     junk ()
pick-true (dcell _ _)     (dcell _ _) ()
pick-true (dcell _ _)     (dlt _ _ _ _ _) ()
pick-true (dlt _ _ _ _ _) erased ()
pick-true (dlt _ _ _ _ _) junk ()
pick-true (dlt _ _ _ _ _) (dcell _ _) ()
pick-true (dlt _ _ _ _ _) (dlt _ _ _ _ _) ()

pick-swap : ∀ c1 c2 {g C} → pick c1 c2 ≡ just (false , g , C) → pick c2 c1 ≡ just (true , g , C)
pick-swap (cpt g1 C1) (cpt h D) e with h ≤ᵇ g1 | leb-flip h g1
pick-swap (cpt g1 C1) (cpt h D) ()   | true  | _
pick-swap (cpt g1 C1) (cpt h D) refl | false | f rewrite f refl = refl
pick-swap (cpt g1 C1) erased ()
pick-swap (cpt g1 C1) junk ()
pick-swap (cpt g1 C1) (dcell _ _) ()
pick-swap (cpt g1 C1) (dlt _ _ _ _ _) ()
pick-swap erased          (cpt h D) refl = refl
pick-swap junk            (cpt h D) refl = refl
pick-swap (dcell _ _)     (cpt h D) refl = refl
pick-swap (dlt _ _ _ _ _) (cpt h D) refl = refl
pick-swap erased          erased ()
pick-swap erased          junk ()
pick-swap erased          (dcell _ _) ()
pick-swap erased          (dlt _ _ _ _ _) ()
pick-swap junk            erased ()
pick-swap junk            junk ()
pick-swap junk            (dcell _ _) ()
pick-swap junk            (dlt _ _ _ _ _) ()
pick-swap (dcell _ _)     erased ()
pick-swap (dcell _ _)     junk ()
pick-swap (dcell _ _)     (dcell _ _) ()
pick-swap (dcell _ _)     (dlt _ _ _ _ _) ()
pick-swap (dlt _ _ _ _ _) erased ()
pick-swap (dlt _ _ _ _ _) junk ()
pick-swap (dlt _ _ _ _ _) (dcell _ _) ()
pick-swap (dlt _ _ _ _ _) (dlt _ _ _ _ _) ()

-- the slot b holds the picked checkpoint; re-read with it first, it is
-- picked again
pick-top : ∀ b s {g C} → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
           pick (cur (slot b s)) (cur (slot (not b) s)) ≡ just (true , g , C)
pick-top true  s e = e
pick-top false s e = pick-swap (cur (cpL s)) (cur (cpO s)) e

pick-cell : ∀ b s {g C} → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) → cur (slot b s) ≡ cpt g C
pick-cell b s e = pick-true _ _ (pick-top b s e)

------------------------------------------------------------------------
-- Crash lemmas on synced and erased flash

private
  crash-syn : ∀ {m m' c} → m ≡ syn c → CrashC m m' → m' ≡ syn c
  crash-syn refl e = e

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

  crashL-nil : ∀ {ms} → CrashL [] ms → ms ≡ []
  crashL-nil [] = refl

  slot-sync : ∀ b s → slot b (syncAll s) ≡ sync (slot b s)
  slot-sync true  s = refl
  slot-sync false s = refl

  dat-ext : ∀ {s s3 : St} → (∀ p → dat s3 p ≡ syn (cur (dat s p))) → ∀ p → cur (dat s3 p) ≡ cur (dat s p)
  dat-ext e p = cong cur (e p)

------------------------------------------------------------------------
-- Recovery picks the new slot of the next generation, holding the map
-- the crashed recovery rebuilt; the region, all of generation g or
-- older, is ignored by the replay with the next generation

new-slot″ : ∀ {s s3 t g C pr es' k} →
  let M = recM g C pr es' s in
  cur (cpO s3) ≡ cpt (suc g) M → Older (suc g) (cur (cpL s3)) → All (GenLe g) (map cur (dr s3)) →
  (∀ p → cur (dat s3 p) ≡ cur (dat s p)) → candAt t k ∈ SB.stable t ∷ SB.pend t →
  (∀ a → a ≤ amax → rdD (dat s) (M a) ≡ candAt t k a) →
  (∀ a p → a ≤ amax → M a ≡ just p → oob (cur (dat s p)) ≡ a) → RecTo″ s3 t
new-slot″ {s} {s3} {t} {g} {C} {pr} {es'} {k} o ol gr de m rd ob =
  false , suc g , M , trans (cong (pick (cur (cpL s3))) o) (pick-second (suc g) M (cur (cpL s3)) ol) ,
  All-map (λ {c} → GenLe-step c) gr ,
  map cur (dr s3) , [] , [] , k , (refl , []) , m ,
  (λ a le → trans (cong (λ r → rdD (dat s3) (proj₁ r a)) (rp-old g (map cur (dr s3)) (st0 M) gr))
                  (trans (rdD-ext de (M a)) (rd a le))) ,
  (λ a q le e → trans (cong oob (de q))
                  (ob a q le (trans (sym (cong (λ r → proj₁ r a) (rp-old g (map cur (dr s3)) (st0 M) gr))) e)))
  where
    M = recM g C pr es' s

------------------------------------------------------------------------
-- A crash at any of the crash points of PU's recovery

recU-crashed : ∀ {s t b g C pr T es' k} →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) → All (GenLe g) (map cur (dr s)) →
  ParseS (map cur (dr s)) T es' pr → candAt t k ∈ SB.stable t ∷ SB.pend t →
  (∀ a → a ≤ amax → rdD (dat s) (proj₁ (recRS g (λ p → cur (dat s p)) es' pr (st0 C)) a) ≡ candAt t k a) →
  (∀ a p → a ≤ amax → proj₁ (recRS g (λ p → cur (dat s p)) es' pr (st0 C)) a ≡ just p → oob (cur (dat s p)) ≡ a) →
  ∀ {m s3} → CkPt (recR b g C pr es' s) m → Img m s3 →
  Σ SB.State λ t' → SB.crashSB SB.recover t t' × RecTo″ s3 t'
-- ck1: the new slot programmed, not synced
recU-crashed {s} {t} {b} {g} {C} {pr} {T} {es'} {k} pk gr p m rd ob {_} {s3} (inj₁ refl) (cd , cL , cO , cl , cr) =
  t , inj₁ (refl , refl) , go cO
  where
    M = recM g C pr es' s
    de : ∀ p → cur (dat s3 p) ≡ cur (dat s p)
    de p = dat-ext {s} {s3} cd p
    sl : cpL s3 ≡ syn (cur (slot b s))
    sl = crash-syn (slot-sync b s) cL
    dre : map cur (dr s3) ≡ map cur (dr s)
    dre = crashL-sync (dr s) cl
    rsx : recRS g (λ q → cur (dat s3 q)) es' pr (st0 C) ≡ recRS g (λ q → cur (dat s q)) es' pr (st0 C)
    rsx = recRS-ext de g es' pr (st0 C)
    same : cur (cpO s3) ≡ cur (slot (not b) s) ⊎ cur (cpO s3) ≡ junk → RecTo″ s3 t
    same w = true , g , C , pk′ w , subst (All (GenLe g)) (sym dre) gr ,
      pr , T , es' , k , subst (λ z → ParseS z T es' pr) (sym dre) p , m ,
      (λ a le → trans (cong (λ r → rdD (dat s3) (proj₁ r a)) rsx) (trans (rdD-ext de (M a)) (rd a le))) ,
      (λ a q le e → trans (cong oob (de q)) (ob a q le (trans (sym (cong (λ r → proj₁ r a) rsx)) e)))
      where
        pk′ : cur (cpO s3) ≡ cur (slot (not b) s) ⊎ cur (cpO s3) ≡ junk →
              pick (cur (cpL s3)) (cur (cpO s3)) ≡ just (true , g , C)
        pk′ (inj₁ e) = trans (cong₂ pick (cong cur sl) e) (pick-top b s pk)
        pk′ (inj₂ e) = trans (cong₂ pick (trans (cong cur sl) (pick-cell b s pk)) e) refl
    go : CrashC (put (cpt (suc g) M) (slot (not b) (syncAll s))) (cpO s3) → RecTo″ s3 t
    go (inj₁ e) = same (inj₁ (trans (cong cur e) (cong dur (slot-sync (not b) s))))
    go (inj₂ (inj₂ e)) = same (inj₂ (cong cur e))
    go (inj₂ (inj₁ e)) =
      new-slot″ {s} {s3} {t} {g} {C} {pr} {es'} {k} (cong cur e)
        (subst (Older (suc g)) (sym (trans (cong cur sl) (pick-cell b s pk))) ≤-refl)
        (subst (All (GenLe g)) (sym dre) gr) de m rd ob
-- ck2: the new slot synced, the old slot and the region erased, not synced
recU-crashed {s} {t} {b} {g} {C} {pr} {T} {es'} {k} pk gr p m rd ob {_} {s3} (inj₂ (inj₁ refl)) (cd , cL , cO , cl , cr) =
  t , inj₁ (refl , refl) ,
  new-slot″ {s} {s3} {t} {g} {C} {pr} {es'} {k} (cong cur cO) (older cL)
    (crash-erase (map sync (dr s)) (subst (All (GenLe g)) (sym (cur-sync (dr s))) gr) cl)
    (λ q → cong cur (cd q)) m rd ob
  where
    older : ∀ {c} → CrashC (put erased (sync (slot b (syncAll s)))) c → Older (suc g) (cur c)
    older (inj₁ e) = subst (Older (suc g))
      (sym (trans (cong cur e) (trans (cong (λ z → cur (sync z)) (slot-sync b s)) (pick-cell b s pk)))) ≤-refl
    older (inj₂ (inj₁ refl)) = tt
    older (inj₂ (inj₂ refl)) = tt
-- ck3: recovery done (SB chose), then a crash of the recovered state
recU-crashed {s} {t} {b} {g} {C} {pr} {T} {es'} {k} pk gr p m rd ob {_} {s3} (inj₂ (inj₂ refl)) img =
  recT (candAt t k) , inj₂ (candAt t k , m , refl , refl) , fin (crash-normal {⟪ recU b g C pr es' s , [] ⟫} {recT (candAt t k)} {s3} iv img)
  where
    iv = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ (recU-A {s} {t} (b , g , C , pk , pr , T , es' , k , p , m , rd , ob))))))
    fin : RecTo s3 (recT (candAt t k)) → RecTo″ s3 (recT (candAt t k))
    fin (g3 , C3 , _ , pk3 , rest) =
      true , g3 , C3 , pk3 , subst (λ z → All (GenLe g3) (map cur z)) (sym (crashL-nil (proj₁ (proj₂ (proj₂ (proj₂ img)))))) [] , rest

------------------------------------------------------------------------
-- Every covered crash of PU's normal operation gives RecTo″

-- generations on a flash: a slot holds a durable checkpoint of
-- generation gx, every region page, as programmed and as it was
-- before, is of gx or older
FG : St → ℕ → Set
FG m gx = (Σ Map λ Cx → cpL m ≡ syn (cpt gx Cx) ⊎ cpO m ≡ syn (cpt gx Cx))
        × All (GenLe gx) (map cur (dr m)) × All (GenLe gx) (map dur (dr m))

-- the same after a crash
FG′ : St → ℕ → Set
FG′ s gx = (Σ Map λ Cx → cur (cpL s) ≡ cpt gx Cx ⊎ cur (cpO s) ≡ cpt gx Cx) × All (GenLe gx) (map cur (dr s))

crashL-gen : ∀ {gx} ms {ms'} → All (GenLe gx) (map cur ms) → All (GenLe gx) (map dur ms) → CrashL ms ms' →
             All (GenLe gx) (map cur ms')
crashL-gen []             []       []       []                      = []
crashL-gen (syn c ∷ ms)   (x ∷ xs) (y ∷ ys) (refl ∷ cl)             = x  ∷ crashL-gen ms xs ys cl
crashL-gen (uns o n ∷ ms) (x ∷ xs) (y ∷ ys) (inj₁ refl ∷ cl)        = y  ∷ crashL-gen ms xs ys cl
crashL-gen (uns o n ∷ ms) (x ∷ xs) (y ∷ ys) (inj₂ (inj₁ refl) ∷ cl) = x  ∷ crashL-gen ms xs ys cl
crashL-gen (uns o n ∷ ms) (x ∷ xs) (y ∷ ys) (inj₂ (inj₂ refl) ∷ cl) = tt ∷ crashL-gen ms xs ys cl

fg-crash : ∀ {m s'' gx} → FG m gx → Img m s'' → FG′ s'' gx
fg-crash {m} ((Cx , inj₁ e) , gc , gd) (cd , cL , cO , cl , cr) =
  (Cx , inj₁ (cong cur (crash-syn e cL))) , crashL-gen (dr m) gc gd cl
fg-crash {m} ((Cx , inj₂ e) , gc , gd) (cd , cL , cO , cl , cr) =
  (Cx , inj₂ (cong cur (crash-syn e cO))) , crashL-gen (dr m) gc gd cl

GenLe-≤ : ∀ {h g} c → h ≤ g → GenLe h c → GenLe g c
GenLe-≤ erased          le x = tt
GenLe-≤ junk            le x = tt
GenLe-≤ (dcell _ _)     le x = tt
GenLe-≤ (dlt _ _ _ _ _) le x = ≤-trans x le
GenLe-≤ (cpt _ _)       le x = tt

-- recovery picks a checkpoint of a generation at least every slot's
pick-ge : ∀ c1 c2 {b g C gx Cx} → pick c1 c2 ≡ just (b , g , C) → (c1 ≡ cpt gx Cx ⊎ c2 ≡ cpt gx Cx) → gx ≤ g
pick-ge (cpt g1 C1) (cpt h D) e w with h ≤ᵇ g1 | ≤ᵇ⇒≤ h g1 | leb-flip h g1
pick-ge (cpt g1 C1) (cpt h D) refl (inj₁ refl) | true  | le | _ = ≤-refl
pick-ge (cpt g1 C1) (cpt h D) refl (inj₂ refl) | true  | le | _ = le tt
pick-ge (cpt g1 C1) (cpt h D) refl (inj₁ refl) | false | _  | f = ≤ᵇ⇒≤ g1 h (subst T (sym (f refl)) tt)
pick-ge (cpt g1 C1) (cpt h D) refl (inj₂ refl) | false | _  | f = ≤-refl

pick-ge (cpt g1 C1) erased refl (inj₁ refl) = ≤-refl
pick-ge (cpt g1 C1) erased refl (inj₂ ())
pick-ge (cpt g1 C1) junk refl (inj₁ refl) = ≤-refl
pick-ge (cpt g1 C1) junk refl (inj₂ ())
pick-ge (cpt g1 C1) (dcell _ _) refl (inj₁ refl) = ≤-refl
pick-ge (cpt g1 C1) (dcell _ _) refl (inj₂ ())
pick-ge (cpt g1 C1) (dlt _ _ _ _ _) refl (inj₁ refl) = ≤-refl
pick-ge (cpt g1 C1) (dlt _ _ _ _ _) refl (inj₂ ())
pick-ge erased (cpt h D) refl (inj₁ ())
pick-ge erased (cpt h D) refl (inj₂ refl) = ≤-refl
pick-ge junk (cpt h D) refl (inj₁ ())
pick-ge junk (cpt h D) refl (inj₂ refl) = ≤-refl
pick-ge (dcell _ _) (cpt h D) refl (inj₁ ())
pick-ge (dcell _ _) (cpt h D) refl (inj₂ refl) = ≤-refl
pick-ge (dlt _ _ _ _ _) (cpt h D) refl (inj₁ ())
pick-ge (dlt _ _ _ _ _) (cpt h D) refl (inj₂ refl) = ≤-refl
pick-ge erased erased () w
pick-ge erased junk () w
pick-ge erased (dcell _ _) () w
pick-ge erased (dlt _ _ _ _ _) () w
pick-ge junk erased () w
pick-ge junk junk () w
pick-ge junk (dcell _ _) () w
pick-ge junk (dlt _ _ _ _ _) () w
pick-ge (dcell _ _) erased () w
pick-ge (dcell _ _) junk () w
pick-ge (dcell _ _) (dcell _ _) () w
pick-ge (dcell _ _) (dlt _ _ _ _ _) () w
pick-ge (dlt _ _ _ _ _) erased () w
pick-ge (dlt _ _ _ _ _) junk () w
pick-ge (dlt _ _ _ _ _) (dcell _ _) () w
pick-ge (dlt _ _ _ _ _) (dlt _ _ _ _ _) () w

RecTo′⇒″ : ∀ {s t gx} → FG′ s gx → RecTo′ s t → RecTo″ s t
RecTo′⇒″ {s} ((Cx , w) , gr) (b , g , C , pk , rest) =
  b , g , C , pk , All-map (λ {c} → GenLe-≤ c (pick-ge (cur (cpL s)) (cur (cpO s)) pk w)) gr , rest

private
  dur-syn : ∀ {g} ms → All Syn ms → All (GenLe g) (map cur ms) → All (GenLe g) (map dur ms)
  dur-syn []       []             []       = []
  dur-syn (m ∷ ms) ((c , refl) ∷ sy) (x ∷ xs) = x ∷ dur-syn ms sy xs

  dur-gen : ∀ {g} X prM → All Syn prM → All (GenLe g) (map cur (map (uns erased) X ++ prM)) →
            All (GenLe g) (map dur (map (uns erased) X ++ prM))
  dur-gen []      prM sy gs       = dur-syn prM sy gs
  dur-gen (c ∷ X) prM sy (x ∷ xs) = tt ∷ dur-gen X prM sy xs

  ck2-cur : ∀ {g} ms → All (GenLe g) (map cur (map (put erased) (map sync ms)))
  ck2-cur []       = []
  ck2-cur (m ∷ ms) = tt ∷ ck2-cur ms

  ck2-dur : ∀ {g} ms → All (GenLe g) (map cur ms) → All (GenLe (suc g)) (map dur (map (put erased) (map sync ms)))
  ck2-dur []       []       = []
  ck2-dur (m ∷ ms) (x ∷ xs) = GenLe-step (cur m) x ∷ ck2-dur ms xs

-- a state of PU's normal operation with its invariants
fg-inv : ∀ {s t} → Inv s t → GenR (st s) → FG (st s) (gen (st s))
fg-inv {s} (_ , _ , b , _) gr =
  (BI.C b , inj₁ (BI.slt b)) , gr ,
  subst (λ z → All (GenLe (gen (st s))) (map dur z)) (sym (BI.dre b))
    (dur-gen X (BI.prM b) (BI.sy b) (subst (λ z → All (GenLe (gen (st s))) (map cur z)) (BI.dre b) gr))
  where
    X = tents (gen (st s)) (ep (st s)) (ept (st s)) ++ lay (map (ue (gen (st s))) (ues s)) []

-- the flushed state's checkpoint crash points
fg-ck : ∀ {s t m} → Inv ⟪ fl3 (st s) , [] ⟫ t → GenR (fl3 (st s)) →
        (m ≡ ck1 (fl3 (st s)) ⊎ m ≡ ck2 (fl3 (st s))) → Σ ℕ λ gx → FG m gx
fg-ck {s} {t} iv gr (inj₁ refl) =
  gen (fl3 (st s)) , (BI.C b , inj₁ (BI.slt b)) , proj₁ (proj₂ F) , proj₂ (proj₂ F)
  where
    b = proj₁ (proj₂ (proj₂ iv))
    F = fg-inv {⟪ fl3 (st s) , [] ⟫} {t} iv gr
fg-ck {s} {t} iv gr (inj₂ refl) =
  suc (gen x) , (l2p x , inj₂ refl) , ck2-cur (dr x) , ck2-dur (dr x) gr
  where x = fl3 (st s)

-- every crash point CrashPt′ covers
fg-pt : ∀ u {s t m} → Inv′ s t → CrashPt′ u s m → Σ ℕ λ gx → FG m gx
fg-pt (SB.reg (SB.op x)) {s} {t} (iv , gr) (inj₁ (s' , o , refl)) =
  let A = A-Inv (SB.reg (SB.op x)) {s} {t} {s'} iv o in
  gen (st s') , fg-inv {s'} {proj₁ A} (proj₂ (proj₂ A)) (genR-ok (SB.reg (SB.op x)) {s} {s'} o gr)
fg-pt (SB.reg SB.barrier) {s} {t} (iv , gr) (inj₁ (inj₁ (lt , refl))) =
  let A = A-Inv (SB.reg SB.barrier) {s} {t} {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} iv (inj₁ (lt , refl)) in
  gen (st s) , fg-inv {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {proj₁ A} (proj₂ (proj₂ A)) (≤-refl ∷ gr)
fg-pt (SB.reg SB.barrier) {s} {t} (iv , gr) (inj₁ (inj₂ (inj₁ refl))) =
  gen (st s) , fg-inv {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {preT t} (pre-sync {s} {t} iv) (≤-refl ∷ gr)
fg-pt (SB.reg SB.barrier) {s} {t} (iv , gr) (inj₁ (inj₂ (inj₂ refl))) =
  let A = A-Inv (SB.reg SB.barrier) {s} {t} {⟪ fl3 (st s) , [] ⟫} iv (inj₂ (inj₁ refl , refl)) in
  gen (fl3 (st s)) , fg-inv {⟪ fl3 (st s) , [] ⟫} {proj₁ A} (proj₂ (proj₂ A))
                       (genR-ok (SB.reg SB.barrier) {s} {⟪ fl3 (st s) , [] ⟫} (inj₂ (inj₁ refl , refl)) gr)
fg-pt SB.flush {s} {t} (iv , gr) (inj₁ (inj₁ refl)) =
  gen (st s) , fg-inv {⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫} {preT t} (pre-sync {s} {t} iv) (≤-refl ∷ gr)
fg-pt SB.flush {s} {t} (iv , gr) (inj₁ (inj₂ refl)) =
  let A = A-Inv SB.flush {s} {t} {⟪ fl3 (st s) , [] ⟫} iv (inj₁ refl , refl) in
  gen (fl3 (st s)) , fg-inv {⟪ fl3 (st s) , [] ⟫} {proj₁ A} (proj₂ (proj₂ A))
                       (genR-ok SB.flush {s} {⟪ fl3 (st s) , [] ⟫} (inj₁ refl , refl) gr)
fg-pt (SB.reg (SB.op x)) (iv , gr) (inj₂ (() , _))
fg-pt (SB.reg SB.barrier) {s} {t} (iv , gr) (inj₂ (ge , ck)) =
  let A = A-Inv (SB.reg SB.barrier) {s} {t} {⟪ fl3 (st s) , [] ⟫} iv (inj₂ (inj₁ refl , refl)) in
  fg-ck {s} {proj₁ A} (proj₂ (proj₂ A))
                       (genR-ok (SB.reg SB.barrier) {s} {⟪ fl3 (st s) , [] ⟫} (inj₂ (inj₁ refl , refl)) gr) ck
fg-pt SB.flush {s} {t} (iv , gr) (inj₂ (_ , ck)) =
  let A = A-Inv SB.flush {s} {t} {⟪ fl3 (st s) , [] ⟫} iv (inj₁ refl , refl) in
  fg-ck {s} {proj₁ A} (proj₂ (proj₂ A)) (genR-ok SB.flush {s} {⟪ fl3 (st s) , [] ⟫} (inj₁ refl , refl) gr) ck

-- formula (4)'s crash outcomes, with the region's generations: what
-- the crashed recoveries above need
crash-covered″ : ∀ u {s t m s''} → Inv′ s t → CrashPt′ u s m → Img m s'' →
  Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × RecTo″ s'' t'
crash-covered″ u {s} {t} {m} {s''} iv cp img =
  proj₁ CC , proj₁ (proj₂ CC) ,
  RecTo′⇒″ {s''} {proj₁ CC} {proj₁ FP} (fg-crash {m} {s''} {proj₁ FP} (proj₂ FP) img) (proj₂ (proj₂ CC))
  where
    CC = crash-covered′ u {s} {t} {m} {s''} iv cp img
    FP = fg-pt u {s} {t} {m} iv cp


------------------------------------------------------------------------
-- The next generation's replay ignores the region under EVERY parse of
-- it: once recovery's checkpoint has made a slot of generation suc g
-- durable over a region of generation g or older, which split of the
-- region recovery reads does not matter (so a durable ghost of the
-- split need not change at a crash inside recovery's checkpoint)

private
  lay-all : ∀ {P : Cell → Set} es X → All P (lay es X) → All P X
  lay-all []              X a = a
  lay-all {P} ((c , ts) ∷ es) X a with lay-all {P} es (c ∷ ts ++ X) a
  ... | _ ∷ r = Data.List.Relation.Unary.All.Properties.++⁻ʳ ts r

okC-old : ∀ g D c cs → GenLe g c → okC (suc g) D c cs ≡ false
okC-old g D (dlt h x ps true (dd , dt , L)) cs le
  rewrite ≡ᵇ-false h (suc g) (λ e → <-irrefl refl (subst (_≤ g) e le)) = refl
okC-old g D (dlt h x ps false d) cs le = refl
okC-old g D erased      cs le = refl
okC-old g D junk        cs le = refl
okC-old g D (dcell _ _) cs le = refl
okC-old g D (cpt _ _)   cs le = refl

recRS-newgen : ∀ g D T es' pr mt → All (GenLe g) (T ++ lay es' pr) → recRS (suc g) D es' pr mt ≡ mt
recRS-newgen g D T [] pr mt a = rp-old g pr mt (Data.List.Relation.Unary.All.Properties.++⁻ʳ T a)
recRS-newgen g D T ((c , ts) ∷ es) pr mt a with lay-all {GenLe g} es (c ∷ ts ++ pr) (Data.List.Relation.Unary.All.Properties.++⁻ʳ T a)
... | lc ∷ r =
  trans (cong (λ z → rp (suc g) z mt) (cong (accB (suc g) D pr c ts es) (okC-old g D c (ts ++ pr) lc)))
        (rp-old g pr mt (Data.List.Relation.Unary.All.Properties.++⁻ʳ ts r))

------------------------------------------------------------------------
-- The parse of a crashed region is unique: two parses T ++ lay es' pr
-- of the same region, over the same durable part pr, whose epochs are
-- the same written epochs as a crash left them (`CrashEs`: each epoch
-- keeps its number of pages), are equal.  So a durable ghost recording
-- the unsynced epochs' shapes and the durable part determines the split
-- recovery reads (what the code finds by the after-sync flag).

shapes : List UEp → List ℕ
shapes = map (λ e → length (proj₂ e))

private
  crashRs-length : ∀ {cs cs'} → CrashRs cs cs' → length cs' ≡ length cs
  crashRs-length []       = refl
  crashRs-length (_ ∷ cr) = cong suc (crashRs-length cr)

crashEs-shape : ∀ {g es es'} → CrashEs g es es' → shapes es' ≡ map (λ e → length (proj₂ (ue g e))) es
crashEs-shape []               = refl
crashEs-shape ((_ , cr) ∷ ces) = cong₂ _∷_ (crashRs-length cr) (crashEs-shape ces)

private
  suc-inj : ∀ {m n : ℕ} → suc m ≡ suc n → m ≡ n
  suc-inj refl = refl

  ∷-inj : ∀ {x y : Cell} {xs ys : List Cell} → _≡_ {A = List Cell} (x ∷ xs) (y ∷ ys) → x ≡ y × xs ≡ ys
  ∷-inj refl = refl , refl

  ++-split : ∀ (xs ys : List Cell) {as bs : List Cell} → length xs ≡ length ys → xs ++ as ≡ ys ++ bs → xs ≡ ys × as ≡ bs
  ++-split []       []       l e = refl , e
  ++-split []       (y ∷ ys) () e
  ++-split (x ∷ xs) []       () e
  ++-split (x ∷ xs) (y ∷ ys) l e with ∷-inj {x} {y} e
  ... | refl , e' with ++-split xs ys (suc-inj l) e'
  ...   | refl , e'' = refl , e''

  ∷-injℕ : ∀ {x y : ℕ} {xs ys : List ℕ} → _≡_ {A = List ℕ} (x ∷ xs) (y ∷ ys) → x ≡ y × xs ≡ ys
  ∷-injℕ refl = refl , refl

  lay-length : ∀ (es1 es2 : List UEp) (X1 X2 : List Cell) → shapes es1 ≡ shapes es2 → length X1 ≡ length X2 →
               length (lay es1 X1) ≡ length (lay es2 X2)
  lay-length []                []                X1 X2 s l = l
  lay-length []                (_ ∷ _)           X1 X2 () l
  lay-length (_ ∷ _)           []                X1 X2 () l
  lay-length ((c1 , ts1) ∷ es1) ((c2 , ts2) ∷ es2) X1 X2 s l =
    lay-length es1 es2 (c1 ∷ ts1 ++ X1) (c2 ∷ ts2 ++ X2) (proj₂ (∷-injℕ s))
      (cong suc (trans (Data.List.Properties.length-++ ts1)
                (trans (cong₂ Data.Nat.Base._+_ (proj₁ (∷-injℕ s)) l) (sym (Data.List.Properties.length-++ ts2)))))

  lay-inj : ∀ (es1 es2 : List UEp) (X1 X2 : List Cell) → shapes es1 ≡ shapes es2 → length X1 ≡ length X2 →
            lay es1 X1 ≡ lay es2 X2 → es1 ≡ es2 × X1 ≡ X2
  lay-inj []                []                X1 X2 s l e = refl , e
  lay-inj []                (_ ∷ _)           X1 X2 () l e
  lay-inj (_ ∷ _)           []                X1 X2 () l e
  lay-inj ((c1 , ts1) ∷ es1) ((c2 , ts2) ∷ es2) X1 X2 s l e =
    step (proj₁ (∷-injℕ s))
         (lay-inj es1 es2 (c1 ∷ ts1 ++ X1) (c2 ∷ ts2 ++ X2) (proj₂ (∷-injℕ s))
           (cong suc (trans (Data.List.Properties.length-++ ts1)
                     (trans (cong₂ Data.Nat.Base._+_ (proj₁ (∷-injℕ s)) l) (sym (Data.List.Properties.length-++ ts2))))) e)
    where
      step : length ts1 ≡ length ts2 → es1 ≡ es2 × (c1 ∷ ts1 ++ X1) ≡ (c2 ∷ ts2 ++ X2) →
             ((c1 , ts1) ∷ es1) ≡ ((c2 , ts2) ∷ es2) × X1 ≡ X2
      step lt (refl , e1) = step2 (∷-inj {c1} {c2} e1)
        where
          step2 : c1 ≡ c2 × ts1 ++ X1 ≡ ts2 ++ X2 → ((c1 , ts1) ∷ es1) ≡ ((c2 , ts2) ∷ es1) × X1 ≡ X2
          step2 (refl , e2) = step3 (++-split ts1 ts2 lt e2)
            where
              step3 : ts1 ≡ ts2 × X1 ≡ X2 → ((c1 , ts1) ∷ es1) ≡ ((c1 , ts2) ∷ es1) × X1 ≡ X2
              step3 (refl , e3) = refl , e3

  +-cancelʳ : ∀ m n k → m Data.Nat.Base.+ k ≡ n Data.Nat.Base.+ k → m ≡ n
  +-cancelʳ m n k e = Data.Nat.Properties.+-cancelʳ-≡ m n e

parse-unique : ∀ T1 T2 es1 es2 pr → shapes es1 ≡ shapes es2 →
  T1 ++ lay es1 pr ≡ T2 ++ lay es2 pr → T1 ≡ T2 × es1 ≡ es2
parse-unique T1 T2 es1 es2 pr s e with ++-split T1 T2 lt e
  where
    ll = lay-length es1 es2 pr pr s refl
    lt : length T1 ≡ length T2
    lt = +-cancelʳ (length T1) (length T2) (length (lay es1 pr))
           (trans (sym (Data.List.Properties.length-++ T1))
           (trans (cong length e) (trans (Data.List.Properties.length-++ T2) (cong (length T2 Data.Nat.Base.+_) (sym ll)))))
... | refl , e' = refl , proj₁ (lay-inj es1 es2 pr pr s refl e')

-- two parses of a crashed region with the epochs as the same crash of
-- the same written epochs left them, over the same durable part
parse-crash-unique : ∀ {g es T1 T2 es1 es2 pr cs} → CrashEs g es es1 → CrashEs g es es2 →
  ParseS cs T1 es1 pr → ParseS cs T2 es2 pr → T1 ≡ T2 × es1 ≡ es2
parse-crash-unique {T1 = T1} {T2} {es1} {es2} {pr} c1 c2 (e1 , _) (e2 , _) =
  parse-unique T1 T2 es1 es2 pr (trans (crashEs-shape c1) (sym (crashEs-shape c2))) (trans (sym e1) e2)

-- A crash of any normal PU state: recovery reading ANY parse of the
-- crashed region whose epochs are the written ones as the crash left
-- them (`CrashEs`), over the durable part, rebuilds an L2P that reads
-- one of SB's candidates.  So the split recovery reads may come from a
-- durable ghost of the epochs' shapes and the durable part: it is the
-- parse the crash lemmas build (`parse-crash-unique`).
crash-normal-any : ∀ {s t s'} (iv : Inv s t) → Img (st s) s' →
  ∀ T2 es2 → CrashEs (gen (st s)) (ues s) es2 →
  ParseS (map cur (dr s')) T2 es2 (map cur (BI.prM (proj₁ (proj₂ (proj₂ iv))))) →
  Σ ℕ λ k → candAt t k ∈ SB.stable t ∷ SB.pend t ×
    (∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS (gen (st s)) (λ p → cur (dat s' p)) es2
                                    (map cur (BI.prM (proj₁ (proj₂ (proj₂ iv))))) (st0 (BI.C (proj₁ (proj₂ (proj₂ iv)))))) a)
                      ≡ candAt t k a) ×
    (∀ a p → a ≤ amax → proj₁ (recRS (gen (st s)) (λ p → cur (dat s' p)) es2
                                    (map cur (BI.prM (proj₁ (proj₂ (proj₂ iv))))) (st0 (BI.C (proj₁ (proj₂ (proj₂ iv)))))) a
                        ≡ just p → oob (cur (dat s' p)) ≡ a)
crash-normal-any {s} {t} {s'} (ar , ga , b , so) img T2 es2 ces2 p2 =
  k , m ,
  subst (λ e → ∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS g D e pr mt) a) ≡ candAt t k a) eq r ,
  subst (λ e → ∀ a q → a ≤ amax → proj₁ (recRS g D e pr mt) a ≡ just q → oob (cur (dat s' q)) ≡ a) eq ob
  where
    g = gen (st s)
    D = λ q → cur (dat s' q)
    pr = map cur (BI.prM b)
    mt = st0 (BI.C b)
    X = recU-crash-readsBI {s} {t} {s'} b ar ga img
    k = proj₁ (proj₂ (proj₂ X))
    R3 = proj₂ (proj₂ (proj₂ X))
    m = proj₁ (proj₂ (proj₂ (proj₂ R3)))
    r = proj₁ (proj₂ (proj₂ (proj₂ (proj₂ R3))))
    ob = proj₂ (proj₂ (proj₂ (proj₂ (proj₂ R3))))
    eq = proj₂ (parse-crash-unique (proj₁ R3) ces2 (proj₁ (proj₂ R3)) p2)

-- Once a slot of the next generation holding the map being rebuilt is
-- what recovery picks (`ck1` with the new slot landed, `ck2`), recovery
-- reading ANY parse of the crashed region reads the candidate
new-slot-any : ∀ {s s3 t g C pr es' k} →
  let M = recM g C pr es' s in
  All (GenLe g) (map cur (dr s3)) → (∀ p → cur (dat s3 p) ≡ cur (dat s p)) →
  (∀ a → a ≤ amax → rdD (dat s) (M a) ≡ candAt t k a) →
  (∀ a p → a ≤ amax → M a ≡ just p → oob (cur (dat s p)) ≡ a) →
  ∀ T2 es2 pr2 → ParseS (map cur (dr s3)) T2 es2 pr2 →
  (∀ a → a ≤ amax → rdD (dat s3) (proj₁ (recRS (suc g) (λ p → cur (dat s3 p)) es2 pr2 (st0 M)) a) ≡ candAt t k a) ×
  (∀ a p → a ≤ amax → proj₁ (recRS (suc g) (λ p → cur (dat s3 p)) es2 pr2 (st0 M)) a ≡ just p → oob (cur (dat s3 p)) ≡ a)
new-slot-any {s} {s3} {t} {g} {C} {pr} {es'} {k} gr de rd ob T2 es2 pr2 (e , _) =
  (λ a le → trans (cong (λ r → rdD (dat s3) (proj₁ r a)) nz) (trans (rdD-ext de (M a)) (rd a le))) ,
  (λ a q le e′ → trans (cong oob (de q)) (ob a q le (trans (sym (cong (λ r → proj₁ r a) nz)) e′)))
  where
    M = recM g C pr es' s
    nz : recRS (suc g) (λ p → cur (dat s3 p)) es2 pr2 (st0 M) ≡ st0 M
    nz = recRS-newgen g (λ p → cur (dat s3 p)) T2 es2 pr2 (st0 M) (subst (All (GenLe g)) e gr)

-- a crash at `ck2` of PU's recovery: every parse of the crashed region
-- reads the candidate the crashed recovery was rebuilding, from the slot
-- recovery picks (the new one, of the next generation)
rec-crash-ck2-any : ∀ {s t b g C pr es' k} →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) → All (GenLe g) (map cur (dr s)) →
  (∀ a → a ≤ amax → rdD (dat s) (recM g C pr es' s a) ≡ candAt t k a) →
  (∀ a p → a ≤ amax → recM g C pr es' s a ≡ just p → oob (cur (dat s p)) ≡ a) →
  ∀ {s3} → Img (ck2 (recR b g C pr es' s)) s3 →
  pick (cur (cpL s3)) (cur (cpO s3)) ≡ just (false , suc g , recM g C pr es' s) × Older (suc g) (cur (cpL s3)) ×
  (∀ T2 es2 pr2 → ParseS (map cur (dr s3)) T2 es2 pr2 →
    (∀ a → a ≤ amax → rdD (dat s3) (proj₁ (recRS (suc g) (λ p → cur (dat s3 p)) es2 pr2 (st0 (recM g C pr es' s))) a) ≡ candAt t k a) ×
    (∀ a p → a ≤ amax → proj₁ (recRS (suc g) (λ p → cur (dat s3 p)) es2 pr2 (st0 (recM g C pr es' s))) a ≡ just p → oob (cur (dat s3 p)) ≡ a))
rec-crash-ck2-any {s} {t} {b} {g} {C} {pr} {es'} {k} pk gr rd ob {s3} (cd , cL , cO , cl , cr) =
  trans (cong (pick (cur (cpL s3))) (cong cur cO)) (pick-second (suc g) (recM g C pr es' s) (cur (cpL s3)) (older cL)) ,
  older cL ,
  new-slot-any {s} {s3} {t} {g} {C} {pr} {es'} {k}
    (crash-erase (map sync (dr s)) (subst (All (GenLe g)) (sym (cur-sync (dr s))) gr) cl)
    (λ q → cong cur (cd q)) rd ob
  where
    older : ∀ {c} → CrashC (put erased (sync (slot b (syncAll s)))) c → Older (suc g) (cur c)
    older (inj₁ e) = subst (Older (suc g))
      (sym (trans (cong cur e) (trans (cong (λ z → cur (sync z)) (slot-sync b s)) (pick-cell b s pk)))) ≤-refl
    older (inj₂ (inj₁ refl)) = tt
    older (inj₂ (inj₂ refl)) = tt
