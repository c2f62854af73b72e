{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, barriers in P: PU's flush with a FULL CHECKPOINT, its crash
-- points inside the checkpoint (`ck1`: the new slot programmed, no
-- SYNC; `ck2`: the new slot synced, the old slot and the region erased,
-- no SYNC), against SB's crash outcome of the flush (SB made the image
-- durable).  Recovery picks the old slot (the new one did not land) and
-- replays as after the flush's SYNC, or picks the new slot, of the next
-- generation, over a region with no page of that generation: either way
-- the L2P it rebuilds reads SB's stable image.
--
--   GenR, genR-ok  every region page is of the live generation or older
--                  (P's RI `gle`), kept by every normal step of PU
--   RecTo′         what recovery reads, the slot it picks being either
--   ck-points      the two crash points inside the flush's checkpoint
--   CrashPt′, crash-covered′, formula4-PU′
--                  UnsyncedCrashes' crash points and these, for a flush
--                  and for the forced barrier; from every state with P's
--                  RI and AR, a run of PU and a crash at any of them
--                  recovers a candidate of SB's crash outcome
--
-- NOT covered: the in-page/OOB commit's crash points (`fi2`, `fiK`, the
-- checkpoint after `fi3`) and crashed recoveries; no recovery step of PU.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedCheckpoint (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                     (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_; _≡ᵇ_)
open import Data.Nat.Properties using (≤-refl; <-irrefl; <⇒≱)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥) renaming (⊥-elim to ⊥-elim′)
open import Data.Unit.Base using (tt)
open import Data.List.Base using (List; []; _∷_; _++_; map; length)
open import Data.List.Relation.Unary.All using (All; []; _∷_)
open import Data.List.Relation.Unary.Any using (here)
open import Data.List.Membership.Propositional using (_∈_)
open import Data.Maybe.Base using (just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality
  using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (GenLe; Older; PM; PM-cur; ≡ᵇ-false; pick-second)
import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ as L
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (rdD; RI; AR)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (UEp; lay)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_
  using (StU; ⟪_,_⟫; st; ues; okU; flB; flushOp; all-sync; crashL-syn; len-mis₂)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_
  using (candAt; recRS; ParseS)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (stable-crash; stable-oob)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI)
open import SCFTL.Impl.UnsyncedCrashes Data d0 amax wmax kmax umax _≟D_
  using (Inv; RecTo; CrashPt; crash-covered; crash-normal; A-Inv; init-Inv; Run; RunSB; []; step)
open import SCFTL.Impl.BarrierOps Data d0 amax wmax umax using (oS; toS)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- Region pages of the live generation or older

GenR : St → Set
GenR s = All (GenLe (gen s)) (map cur (dr s))

private
  cur-sync : ∀ xs → map cur (map sync xs) ≡ map cur xs
  cur-sync []       = refl
  cur-sync (x ∷ xs) = cong (cur x ∷_) (cur-sync xs)

  genR-opt : ∀ f1 f2 u → GenR u → GenR (opt f1 f2 u)
  genR-opt false false u x = x
  genR-opt true  false u x = x
  genR-opt false true  u x = ≤-refl ∷ x
  genR-opt true  true  u x = ≤-refl ∷ x

  genR-flush : ∀ {s s'} → okP (oS flushOp) s s' → GenR s → GenR s'
  genR-flush {s} (inj₁ refl) x =
    subst (All (GenLe (gen s))) (sym (cur-sync (uns erased (dlt (gen s) (ep s) (dbuf s) true (dgOf s)) ∷ dr s))) (≤-refl ∷ x)
  genR-flush (inj₂ (inj₁ refl)) x = []
  genR-flush (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) x = []
  genR-flush {s} (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) x =
    subst (All (GenLe (gen s))) (sym (trans (cur-sync (uns erased (rec s) ∷ map sync (dr s))) (cong (rec s ∷_) (cur-sync (dr s)))))
          (≤-refl ∷ x)
  genR-flush (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) x = []
  genR-flush {s} (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) x =
    subst (All (GenLe (gen s))) (sym (trans (cur-sync (uns erased (rec s) ∷ map sync (dr s))) (cong (rec s ∷_) (cur-sync (dr s)))))
          (≤-refl ∷ x)

genR-ok : ∀ u {s s'} → okU u s s' → GenR (st s) → GenR (st s')
genR-ok (SB.reg (SB.op (SB.w a d))) {s} (inj₁ (_ , f1 , f2 , e) , _) x = subst GenR (sym e) (genR-opt f1 f2 (wr0 a d (st s)) x)
genR-ok (SB.reg (SB.op (SB.w a d))) (inj₂ (_ , e) , _) x = subst GenR (sym e) x
genR-ok (SB.reg (SB.op SB.rl)) {s} (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , e)) , _) x = subst GenR (sym e) (genR-opt f1 f2 (rl0 p (st s)) x)
genR-ok (SB.reg (SB.op SB.rl)) (inj₁ (_ , p , _ , inj₂ (_ , e)) , _) x = subst GenR (sym e) x
genR-ok (SB.reg (SB.op SB.rl)) (inj₂ (_ , e) , _) x = subst GenR (sym e) x
genR-ok (SB.reg (SB.op SB.es)) ((p , _ , e) , _) x = subst GenR (sym e) x
genR-ok (SB.reg SB.barrier) (inj₁ (_ , refl)) x = ≤-refl ∷ x
genR-ok (SB.reg SB.barrier) (inj₂ (o , _)) x = genR-flush o x
genR-ok SB.flush (o , _) x = genR-flush o x

-- the replay with the next generation ignores the region
rstep-old : ∀ g c mt → GenLe g c → rstep (suc g) c mt ≡ mt
rstep-old g erased            mt _  = refl
rstep-old g junk              mt _  = refl
rstep-old g (dcell _ _)       mt _  = refl
rstep-old g (cpt _ _)         mt _  = refl
rstep-old g (dlt h x ps b d)  mt le rewrite ≡ᵇ-false h (suc g) (λ e → <-irrefl refl (subst (_≤ g) e le)) = refl

rp-old : ∀ g cs mt → All (GenLe g) cs → rp (suc g) cs mt ≡ mt
rp-old g []       mt []       = refl
rp-old g (c ∷ cs) mt (x ∷ xs) = trans (cong (rstep (suc g) c) (rp-old g cs mt xs)) (rstep-old g c mt x)

------------------------------------------------------------------------
-- What recovery reads, the slot it picks being either

RecTo′ : St → SB.State → Set
RecTo′ s' t = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s')) (cur (cpO s')) ≡ just (b , g , C) ×
  Σ (List Cell) λ pr → Σ (List Cell) λ T → Σ (List UEp) λ es' → Σ ℕ λ k →
    ParseS (map cur (dr s')) T es' pr × candAt t k ∈ SB.stable t ∷ SB.pend t ×
    (∀ a → a ≤ amax → rdD (dat s') (proj₁ (recRS g (λ p → cur (dat s' p)) es' pr (st0 C)) a) ≡ candAt t k a) ×
    (∀ a p → a ≤ amax → proj₁ (recRS g (λ p → cur (dat s' p)) es' pr (st0 C)) a ≡ just p → oob (cur (dat s' p)) ≡ a)

RecTo⇒′ : ∀ {s' t} → RecTo s' t → RecTo′ s' t
RecTo⇒′ (g , C , _ , pk , rest) = true , g , C , pk , rest

Inv′ : StU → SB.State → Set
Inv′ s t = Inv s t × GenR (st s)

------------------------------------------------------------------------
-- The crash points inside the flush's full checkpoint

private
  crash-syn : ∀ {m m' c} → m ≡ syn c → CrashC m m' → m' ≡ syn c
  crash-syn refl e = e

  crash-erase : ∀ {g} ms {ms'} → All (GenLe g) (map cur ms) → CrashL (map (put erased) (map sync ms)) ms' →
                All (GenLe g) (map cur ms')
  crash-erase []       []       []                          = []
  crash-erase (m ∷ ms) (x ∷ xs) (inj₁ refl ∷ cl)            = x  ∷ crash-erase ms xs cl
  crash-erase (m ∷ ms) (x ∷ xs) (inj₂ (inj₁ refl) ∷ cl)     = tt ∷ crash-erase ms xs cl
  crash-erase (m ∷ ms) (x ∷ xs) (inj₂ (inj₂ refl) ∷ cl)     = tt ∷ crash-erase ms xs cl

-- recovery picks the slot of the next generation: the region holds
-- nothing of it, the map is the stable L2P, which reads SB's stable image
new-slot : ∀ {u t s''} → Inv u t → (∀ p → CrashD (dat (st u) p) (dat s'' p)) →
           All (GenLe (gen (st u))) (map cur (dr s'')) →
           pick (cur (cpL s'')) (cur (cpO s'')) ≡ just (false , suc (gen (st u)) , smap (st u)) → RecTo′ s'' t
new-slot {u} {t} {s''} (ar , (g , sm , gh , dl , sy) , b , so) cd gr pk =
  false , suc (gen (st u)) , smap (st u) , pk , map cur (dr s'') , [] , [] , 0 , (refl , []) , here refl ,
  (λ a le → trans (cong (λ r → rdD (dat s'') (proj₁ r a)) (rp-old (gen (st u)) (map cur (dr s'')) (st0 (smap (st u))) gr))
                  (stable-crash {u} {t} (dat s'') (proj₂ ar) sy cd a le)) ,
  (λ a q le e → stable-oob {st u} (dat s'') sy cd a q le
                  (trans (sym (cong (λ r → proj₁ r a) (rp-old (gen (st u)) (map cur (dr s'')) (st0 (smap (st u))) gr))) e))

ck-points : ∀ {s t m s''} → Inv′ ⟪ fl3 (st s) , [] ⟫ t →
            (m ≡ ck1 (fl3 (st s)) ⊎ m ≡ ck2 (fl3 (st s))) → Img m s'' → RecTo′ s'' t
ck-points {s} {t} {m} {s''} (iv , gr) (inj₁ refl) (cd , cL , cO , cl , cr) = go cO
  where
    x = fl3 (st s)
    b = proj₁ (proj₂ (proj₂ iv))
    sl : cpL s'' ≡ syn (cpt (gen x) (BI.C b))
    sl = crash-syn (BI.slt b) cL
    s‴ : St
    s‴ = record s'' { cpO = cpO x }
    old : RecTo s‴ t
    old = crash-normal {⟪ x , [] ⟫} {t} {s‴} iv (cd , cL , refl , cl , cr)
    go : CrashC (put (cpt (suc (gen x)) (l2p x)) (cpO x)) (cpO s'') → RecTo′ s'' t
    go (inj₁ e) with old
    ... | g , C , _ , pk , rest = true , g , C , trans (cong (λ q → pick (cur (cpL s'')) (cur q)) e) pk , rest
    go (inj₂ (inj₂ e)) with old
    ... | g , C , sl′ , pk , rest =
      true , g , C , trans (cong (λ c → pick (cur c) (cur (cpO s''))) sl′) (cong (λ q → pick (cpt g C) (cur q)) e) , rest
    go (inj₂ (inj₁ e)) =
      new-slot {⟪ x , [] ⟫} {t} {s''} iv cd
        (subst (λ z → All (GenLe (gen x)) (map cur z)) (sym (crashL-syn (all-sync (dr (fl2 (st s)))) cl)) gr)
        (trans (cong (λ q → pick (cur (cpL s'')) (cur q)) e)
          (trans (cong (λ c → pick (cur c) (cpt (suc (gen x)) (l2p x))) sl)
                 (pick-second (suc (gen x)) (l2p x) (cpt (gen x) (BI.C b)) ≤-refl)))
ck-points {s} {t} {m} {s''} (iv , gr) (inj₂ refl) (cd , cL , cO , cl , cr) =
  new-slot {⟪ x , [] ⟫} {t} {s''} iv cd (crash-erase (dr x) gr cl)
    (trans (cong (λ q → pick (cur (cpL s'')) (cur q)) cO)
           (pick-second (suc (gen x)) (l2p x) (cur (cpL s'')) (older cL)))
  where
    x = fl3 (st s)
    b = proj₁ (proj₂ (proj₂ iv))
    older : CrashC (put erased (sync (cpL x))) (cpL s'') → Older (suc (gen x)) (cur (cpL s''))
    older (inj₁ e) = subst (λ c → Older (suc (gen x)) c) (sym (trans (cong cur e) (cong cur (BI.slt b)))) ≤-refl
    older (inj₂ (inj₁ e)) = subst (λ c → Older (suc (gen x)) c) (sym (cong cur e)) tt
    older (inj₂ (inj₂ e)) = subst (λ c → Older (suc (gen x)) c) (sym (cong cur e)) tt

------------------------------------------------------------------------
-- All crash points of a flush (the one-SYNC commit, with or without the
-- full checkpoint) and of the forced barrier

FF : SB.UOp → StU → Set
FF (SB.reg (SB.op _))  s = ⊥
FF (SB.reg SB.barrier) s = Data.Unit.Base.⊤
FF SB.flush            s = Data.Unit.Base.⊤

CrashPt′ : SB.UOp → StU → St → Set
CrashPt′ u s m = CrashPt u s m ⊎ (FF u s × (m ≡ ck1 (fl3 (st s)) ⊎ m ≡ ck2 (fl3 (st s))))

crash-covered′ : ∀ u {s t m s''} → Inv′ s t → CrashPt′ u s m → Img m s'' →
  Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × RecTo′ s'' t'
crash-covered′ u {s} {t} {m} {s''} (iv , gr) (inj₁ cp) img with crash-covered u {s} {t} {m} {s''} iv cp img
... | t' , c , r = t' , c , RecTo⇒′ {s''} {t'} r
crash-covered′ (SB.reg (SB.op _)) (iv , gr) (inj₂ (() , _)) img
crash-covered′ SB.flush {s} {t} {m} {s''} (iv , gr) (inj₂ (_ , ck)) img
  = proj₁ A , inj₂ (proj₁ (proj₂ (proj₁ (proj₂ A))) , proj₁ (proj₂ (proj₂ (proj₁ (proj₂ A))))) ,
    ck-points {s} {proj₁ A} {m} {s''} (proj₂ (proj₂ A) , genR-flush {st s} {fl3 (st s)} (inj₁ refl) gr) ck img
  where A = A-Inv SB.flush {s} {t} {⟪ fl3 (st s) , [] ⟫} iv (inj₁ refl , refl)
crash-covered′ (SB.reg SB.barrier) {s} {t} {m} {s''} (iv , gr) (inj₂ (_ , ck)) img
  with A-Inv (SB.reg SB.barrier) {s} {t} {⟪ fl3 (st s) , [] ⟫} iv (inj₂ (inj₁ refl , refl))
... | t' , (_ , _ , inj₂ (e1 , e2)) , iv' =
  t' , inj₂ (e1 , e2) , ck-points {s} {t'} {m} {s''} (iv' , genR-flush {st s} {fl3 (st s)} (inj₁ refl) gr) ck img
... | t' , (_ , _ , inj₁ (_ , _ , ep)) , iv' =
  ⊥-elim′ (len-mis₂ (ues ⟪ fl3 (st s) , [] ⟫) (SB.pend t) (SB.volatile t) refl (trans (proj₂ (proj₂ (proj₁ (proj₁ iv')))) (cong length ep)))

------------------------------------------------------------------------
-- From P's durable points: runs, and a crash at any of these points

private
  gle⇒ : ∀ {g} ms → L.All (PM (GenLe g)) ms → All (GenLe g) (map cur ms)
  gle⇒ []       L.[]         = []
  gle⇒ (m ∷ ms) (p L.∷ ps)   = PM-cur m p ∷ gle⇒ ms ps

init-Inv′ : ∀ {s t} → RI s → AR s (toS t) → SB.pend t ≡ [] → Inv′ ⟪ s , [] ⟫ t
init-Inv′ {s} r ar e = init-Inv r ar e , gle⇒ (dr s) (RI.gle r)

run-Inv′ : ∀ {s t s'} → Inv′ s t → Run s s' → Σ SB.State λ t' → RunSB t t' × Inv′ s' t'
run-Inv′ iv [] = _ , [] , iv
run-Inv′ {s} {t} (iv , gr) (step u {s1 = s1} o r) =
  let A = A-Inv u {s} {t} {s1} iv o ; R = run-Inv′ (proj₂ (proj₂ A) , genR-ok u {s} {s1} o gr) r in
  proj₁ R , step u (proj₁ (proj₂ A)) (proj₁ (proj₂ R)) , proj₂ (proj₂ R)

-- formula (4) for PU, with the flush's checkpoint: P's durable point, a
-- run of PU, a crash at any covered point of the next operation, recovery
formula4-PU′ : ∀ {s t s1 u m s''} → RI s → AR s (toS t) → SB.pend t ≡ [] →
  Run ⟪ s , [] ⟫ s1 → CrashPt′ u s1 m → Img m s'' →
  Σ SB.State λ t1 → Σ SB.State λ t' → RunSB t t1 × SB.crashSB (SB.use u) t1 t' × RecTo′ s'' t'
formula4-PU′ {s} {t} {s1} {u} {m} {s''} r ar e run cp img =
  let R = run-Inv′ (init-Inv′ {s} {t} r ar e) run
      C = crash-covered′ u {s1} {proj₁ R} {m} {s''} (proj₂ (proj₂ R)) cp img in
  proj₁ R , proj₁ C , proj₁ (proj₂ R) , proj₁ (proj₂ C) , proj₂ (proj₂ C)
