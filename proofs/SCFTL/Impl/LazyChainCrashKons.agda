{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: the consolidation page's crash point with a
-- chain, and the tentative page after it, in PL's crash relation `CRL`
-- (SCFTL.Impl.LazyChainCrash).
--
-- `TopNT rs`: the chain is empty or its newest record has no tentative
-- pages (PL's lazy records have none: `lazy-et`; `CInv` does not record
-- it, so it is carried beside `Phase`: `nt-start`, `nt-wr`, `nt-rl`,
-- `nt-es`, `nt-lazy` keep it along PL's steps of the chain phase).
--
--   * `kons-crash-CRL`: every crash outcome of the consolidation page's
--     crash point `konsI s` (the page programmed, not SYNCed) of a
--     state of the chain phase is in `CRL`: with an empty chain there is
--     no page; otherwise the outcome is one of the state before the page
--     (`kons-img`), whose `RecTo` on the virtually consolidated flash
--     (`virt-crash`) moves to the flash with the page landed
--     (`recto-kons-crash`: the walk from its link takes nothing, `walk-kons`)
--     or torn / erased under the records (`recto-dead-crash`: the walk
--     passes over it, `walk-dead`);
--   * `kons-emitT-RI`: the end state of a write or relocation with a
--     tentative page after the consolidation page has P's RI and AR
--     (`kons-emitT`, its hypotheses derived from `Phase`: `ept-nil`,
--     `top-shape`, `rp-top`), so its crashes are in `CRL`
--     (`emitT-crash-CRL`, by `free-crash-CRL`);
--   * assembled: `pl-wr-crash-all`, `pl-rl-crash-all` (every crash point
--     of a write or relocation of the chain phase is in `CRL`, S's state
--     unchanged: this closes `WrLeft` / `RlLeft` of SCFTL.Impl.
--     LazyChainCrashSteps), `pl-kons-flush-crash` (a flush's crash point
--     before the consolidation page's SYNC);
--   * PL's non-lazy flush from the chain phase: P's RI and AR after the
--     consolidation step (`kons-S-RI`), type A and B (`pl-flush-phase`),
--     and every crash point of P's own inside it (`free-flush-crash-CRL`
--     from any state with P's RI and AR, `pl-flush-crash-phase` after a
--     chain's consolidation page): in `CRL` where the walk takes
--     nothing (`crl-of`; before the SYNC, `fl2-walk`; the checkpoint's,
--     `ck1-walk`, `ck2-walk`, `ck3-walk`; the end states by
--     `free-crash-CRL`), the in-page / OOB record before its SYNC by
--     `free-lazy-crash-CRL`, the checkpoint after that commit before its
--     first SYNC (`ck1-fi3-CRL`: the old checkpoint picked, the flash is
--     the commit's before its SYNC with everything landed, `img-syncd`,
--     `crl-cpO`) and the commit's consolidation page before its SYNC
--     (`fiK-CRL`: landed, the walk takes nothing; torn or erased, the
--     commit's crash before its SYNC under a dead page, `crl-dead`,
--     `recto-dead-top`, `recto-dead`);
--   * recovery's own crash points (its full checkpoint) from a state in
--     `CRL` are in `CRL` (`pl-rec-crash`: P's `rec-crash` on the
--     virtually consolidated flash; the old checkpoint picked, the walk
--     is the one before, `walk-eq`, `follow-ext`; the new one picked,
--     the virtual records of the old generation drop out, `recto-old`,
--     and the walk takes nothing, `walk-old`);
--   * `CRLM`, `pl-rec-crash-M`: the same with the map recovery rebuilds
--     named: a crash of recovery keeps it (the recovered map, at the
--     level of pages; SCFTL.Impl.OneModelRecMaps).
--
-- Not proven here: the lazy commit's crash point with the record taken
-- by the walk over a nonempty chain, and the assembly of Theorem 1 for
-- PL.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainCrashKons (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                     (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.List.Properties using (++-identityʳ)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Data.Empty using (⊥; ⊥-elim)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; ar; CR; RecTo; recto; crashC-eq)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (pick-slot; crashC-PM; map-cur-syn; upd-other; <⇒≢)
open import SCFTL.Impl.Regular Data d0 amax wmax kmax _≟D_ using (emitT-RI; progMB-RI)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (reg-sim; reg-stable; reg-crashS)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (follow; rv; kons; Recs; _∷_; acc-top)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (fiL; Rof; Dof)
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_ using (CInv; VOKn; cinv-wr0; cinv-rl0; cinv-rlX; cinv-optP)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainSteps Data d0 amax wmax kmax _≟D_ kc
  using (RL; cinv-chainOf; konsFor-just; lay-last; konsOfCh; kS; konsS-kS; acc-kons)
open import SCFTL.Impl.LazyChainStable Data d0 amax wmax kmax _≟D_ kc using (rv-snoc; si-wr0; si-rl0; si-rlX; si-optP)
open import SCFTL.Impl.LazyChainRegion Data d0 amax wmax kmax _≟D_ kc using (RInv; ri-acc; ri-wr0; ri-rl0; ri-rlX; ri-optP)
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainVirtual Data d0 amax wmax kmax _≟D_ kc using (ar-virt; ar-unvirt)
open import SCFTL.Impl.LazyChainKons Data d0 amax wmax kmax _≟D_ kc using (kons-emitT; konsS-free; kons-RI; kons-AR)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_
  using (flush-sim; flush-crash; lk-crash; crashL-cons; fl3-RI; fl3-AR; fi4-RI; fi4-AR; tF; all-sync-IsSyn)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (DOKs; older-er; crashL-nil; rcur-crash)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_
  using (All; PM; Older; GenLe; PM-dur; PM-cur; PM-sync; all-cur; all-sync; all-put; crashL-PM; crashL-id; acc-gen)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (walk-free-crash)
open import SCFTL.Impl.LazyChainCrashSteps Data d0 amax wmax kmax _≟D_ kc using (free-lazy-crash-CRL; free-fi2-M)
open import SCFTL.Impl.LazyChainKons Data d0 amax wmax kmax _≟D_ kc using (ri-chain-free)
open import SCFTL.Impl.Recovery Data d0 amax wmax kmax _≟D_ using (rec-crash; slot-sync)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (acc-ext; extM-ext; map-cur-sync; IsSyn)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (fol)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (recto-old; all-suffix)
open import Data.Nat.Base using (s≤s; z≤n)
open import Data.Nat.Properties using (≤-refl; <-transˡ)
open import Data.List.Base using (length)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc
  using (CRL; CRLM; crlm⇒crl; CRLS; crls⇒crl; crls-of; crls-stable; crls-≐; virt-crash; phase-walk-crash; phase-crash-CRL; phase-crash-CRLM; free-crash-CRL; free-crash-CRLM; Dead; recto-dead; slot-dr)
open import SCFTL.Impl.LazyChainCrashSteps Data d0 amax wmax kmax _≟D_ kc
  using (crl-stable; crash-end; crash-end-M; konsI-free; lazy-et; kons-img; kons-exK; kons-recs; recto-kons-crash; recto-dead-crash; ext-above;
         follow-inv; extM-okR; okR-okC; rec-okC; free-lazy-ph; phase-fi2-walk)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (State; Addr; stable; crashS; okS; use; flush; w; rl; es) renaming (reg to regop)

------------------------------------------------------------------------
-- The newest record without tentative pages

TopNT : List Cell → Set
TopNT rs = rs ≡ [] ⊎ (Σ (List Cell) λ rs0 → Σ ℕ λ h → Σ ℕ λ y' → Σ (List (Addr × ℕ)) λ ps →
                       Σ (List (ℕ × Data × Addr)) λ dd → Σ ℕ λ E' →
                       rs ≡ rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [])

-- the chain phase's region link and backlog
ph-RL : ∀ {s} (ph : Phase s) → RL s (ph-x ph) (ph-L ph)
ph-RL ph = trans (cong lkOf (ri-acc (ph-rinv ph))) (ph-lk ph)

ph-chainOf : ∀ {s} (ph : Phase s) → chainOf s ≡ rv (ph-rs ph)
ph-chainOf ph = cinv-chainOf (ph-cinv ph) (ph-RL ph)

-- `nt-start`: the chain phase starts with an empty chain
nt-start : ∀ {s L} (r : RI s) (ln : lnk s ≡ just L) (et : ept s ≡ []) (le : L ≤ nxt s) →
           TopNT (ph-rs (phase-start r ln et le))
nt-start r ln et le = inj₁ (phase-start-rs r ln et le)

-- `nt-wr`, `nt-rl`: writes and relocations keep the records
nt-wr : ∀ {G s s' a d} (ph : Phase s) (st : okPL G (use (regop (w a d))) s s') → TopNT (ph-rs ph) →
        Data.Sum.Base.[ (λ (q : Phase s') → TopNT (ph-rs q)) , (λ _ → ⊤) ]′ (phase-wr {G} {s} {s'} {a} {d} ph st)
nt-wr ph (inj₁ (_ , f1 , false , refl)) nt = nt
nt-wr ph (inj₁ (_ , f1 , true , refl))  nt = tt
nt-wr ph (inj₂ (_ , refl))              nt = nt

nt-rl : ∀ {G s s'} (ph : Phase s) (st : okPL G (use (regop rl)) s s') → TopNT (ph-rs ph) →
        Data.Sum.Base.[ (λ (q : Phase s') → TopNT (ph-rs q)) , (λ _ → ⊤) ]′ (phase-rl {G} {s} {s'} ph st)
nt-rl ph (inj₁ (_ , p , _ , inj₁ (_ , f1 , false , refl))) nt = nt
nt-rl ph (inj₁ (_ , p , _ , inj₁ (_ , f1 , true , refl)))  nt = tt
nt-rl ph (inj₁ (_ , p , _ , inj₂ (_ , refl)))              nt = nt
nt-rl ph (inj₂ (_ , refl))                                 nt = nt

-- `nt-es`: so does the guarded erase
nt-es : ∀ {s s'} (ph : Phase s) (st : okPL EraseGuard (use (regop es)) s s') → TopNT (ph-rs ph) →
        TopNT (ph-rs (phase-es ph st))
nt-es ph (p , _ , _ , refl) nt = nt

-- `nt-lazy`: the lazy commit's record has no tentative pages
nt-lazy : ∀ {s M} (vo : VOKn s) (ph : Phase s) (lz : Lazy s M) → TopNT (ph-rs (phase-lazy vo ph lz))
nt-lazy {s} {M} vo ph lz =
  inj₂ (ph-rs ph , gen s , ep s , dbuf s , proj₁ (dgOf s) , nxt s ,
        cong (λ dt → ph-rs ph ++ dlt (gen s) (ep s) (dbuf s) true (proj₁ (dgOf s) , dt , nxt s) ∷ [])
             (lazy-et {s} {M} lz))

------------------------------------------------------------------------
-- Helpers

st-dr : ∀ s {d} → dr s ≡ d → s ≡ record s { dr = d }
st-dr s refl = refl

follow-nil : ∀ k g R D l → extM g R D l ≡ [] → follow k g R D l ≡ []
follow-nil zero    g R D l e = refl
follow-nil (suc k) g R D l e rewrite e = refl

-- the consolidation page's crash point for a nonempty chain
konsI-kP : ∀ {s} (ph : Phase s) → ph-rs ph ≢ [] →
           konsI s ≡ konsP (just (konsOfCh (gen s) (ph-y ph) (ph-E ph) (ph-rs ph))) s
konsI-kP {s} ph ne =
  cong (λ m → konsP m s)
       (trans (cong (konsFor (gen s)) (ph-chainOf ph))
              (konsFor-just (gen s) (rv (ph-rs ph)) (ph-y ph) (ph-E ph)
                            (trans (cong lkOf (sym (++-identityʳ (rv (ph-rs ph))))) (lay-last (CInv.ch-lay (ph-cinv ph)) ne []))))

snoc≢[] : ∀ (rs : List Cell) c → rs ++ c ∷ [] ≢ []
snoc≢[] []      c ()
snoc≢[] (_ ∷ _) c ()

-- `walk-kons`: with the consolidation page landed the walk takes nothing
walk-kons : ∀ {k s s'' x L rs y E} → CInv k s x L rs y E → Img s s'' → ∀ ds →
            walkG (gen s) (record s'' { dr = syn (kons (gen s) y ([] , [] , E) (rv rs)) ∷ ds }) ≡ []
walk-kons {k} {s} {s''} {x} {L} {rs} {y} {E} ci img ds =
  trans (cong (λ l → follow kc (gen s) (Rof s'') (Dof s'') (lkOf l))
              (acc-kons (gen s) y E (rv rs) (Dof s'') (map cur ds)))
        (follow-nil kc (gen s) (Rof s'') (Dof s'') (just (y , E)) (kons-exK {k} {s} {s''} {x} {L} {rs} {y} {E} (Dof s'') ci img y))

-- `walk-dead`: a torn or erased page on top of the region is passed over
walk-dead : ∀ g s'' j ds → Dead j → walkG g (record s'' { dr = syn j ∷ ds }) ≡ walkG g (record s'' { dr = ds })
walk-dead g s'' .junk   ds (inj₁ refl) = refl
walk-dead g s'' .erased ds (inj₂ refl) = refl

g-subst : ∀ {vs vs' s M} (e : vs ≡ vs') (rt : RecTo (virt vs s) M) →
          RecTo.g (subst (λ us → RecTo (virt us s) M) e rt) ≡ RecTo.g rt
g-subst refl rt = refl

pick-g : ∀ {b g C b' g' C'} → _≡_ {A = Maybe (Bool × ℕ × Map)} (just (b , g , C)) (just (b' , g' , C')) → g ≡ g'
pick-g refl = refl

------------------------------------------------------------------------
-- The consolidation page's crash point

-- the page landed, or torn / erased, over a crash outcome of the state
-- before it (`kons-img`), with P's `RecTo` on that outcome virtually
-- consolidated (`virt-crash`)
kons-crash-ne₂ : ∀ {s t s' rs0 h y' ps dd E' x L y E c rest m ds} →
  CInv kc s x L (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) y E → RInv s c rest →
  RI (virt (rv (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [])) s) →
  Img (konsP (just (konsOfCh (gen s) y E (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []))) s) s' →
  dr s' ≡ m ∷ ds → Img s (record s' { dr = ds }) →
  walkG (gen s) (record s' { dr = ds }) ≡ rv (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) →
  (m ≡ syn (konsOfCh (gen s) y E (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [])) ⊎ Σ Cell λ j → m ≡ syn j × Dead j) →
  (cr : CR (virt (rv (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [])) (record s' { dr = ds })) t) → CRLM s' t (proj₁ cr)
kons-crash-ne₂ {s} {t} {s'} {rs0} {h} {y'} {ps} {dd} {E'} {x} {L} {y} {E} {c} {rest} {m} {ds} ci ri r img deq img'' wk'' out (M , rt , dk) =
  RecTo.b rt , RecTo.g rt , RecTo.C rt , RecTo.pk rt , land out , dk
  where
    RSn = rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []
    s'' = record s' { dr = ds }
    K = konsOfCh (gen s) y E RSn
    g = RecTo.g rt
    eqg : RecTo.g rt ≡ gen s
    eqg = pick-g (trans (sym (RecTo.pk rt)) (pick-slot true s' (gen s) (RI.C r) (crashC-eq (RI.slotL r) (proj₁ (proj₂ img)))
                                                       (crashC-PM tt (proj₁ (proj₂ (proj₂ img))) (RI.slotO r))))
    land : (m ≡ syn K ⊎ Σ Cell λ j → m ≡ syn j × Dead j) → RecTo (virt (walkG g s') s') M
    land (inj₁ refl) =
      subst (λ u → RecTo (virt (walkG g u) u) M) (sym (st-dr s' deq))
        (subst (λ vs → RecTo (virt vs (record s' { dr = syn K ∷ ds })) M)
               (sym (subst (λ g' → walkG g' (record s' { dr = syn K ∷ ds }) ≡ []) (sym eqg)
                           (walk-kons {kc} {s} {s''} {x} {L} {RSn} {y} {E} ci img'' ds)))
               (subst (λ g' → RecTo (record s'' { dr = syn (kons g' y ([] , [] , E) (rv RSn)) ∷ ds }) M) eqg
                      (recto-kons-crash {kc} {s} {s''} {x} {L} {rs0} {h} {y'} {ps} {dd} {E'} {y} {E} {c} {rest} {M}
                                        ci ri img'' rt eqg)))
    land (inj₂ (j , refl , dj)) =
      subst (λ u → RecTo (virt (walkG g u) u) M) (sym (st-dr s' deq))
        (subst (λ vs → RecTo (virt vs (record s' { dr = syn j ∷ ds })) M)
               (sym (trans (walk-dead g s' j ds dj)
                           (trans (subst (λ g' → walkG g' s'' ≡ rv RSn) (sym eqg) wk'') (rv-snoc rs0 _))))
               (recto-dead-crash {kc} {s} {s''} {x} {L} {rs0} {h} {y'} {ps} {dd} {E'} {y} {E} {M} {j} ci img'' dj
                  (subst (λ vs → RecTo (virt vs s'') M) (rv-snoc rs0 _) rt)
                  (trans (g-subst (rv-snoc rs0 (dlt h y' ps true (dd , [] , E'))) rt) eqg)))


kons-crash-ne₁ : ∀ {s t s' rs0 h y' ps dd E' x L y E c rest} →
  CInv kc s x L (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) y E → RInv s c rest → AR s t →
  RI (virt (rv (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [])) s) →
  Img (konsP (just (konsOfCh (gen s) y E (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []))) s) s' →
  (∀ {s2} → Img s s2 → walkG (gen s) s2 ≡ rv (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [])) →
  (Σ MC λ m → Σ (List MC) λ ds → dr s' ≡ m ∷ ds × Img s (record s' { dr = ds }) ×
     (m ≡ syn (konsOfCh (gen s) y E (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [])) ⊎ Σ Cell λ j → m ≡ syn j × Dead j)) →
  CRLM s' t (smap s)
kons-crash-ne₁ {s} {t} {s'} {rs0} {h} {y'} {ps} {dd} {E'} {x} {L} {y} {E} {c} {rest} ci ri arr r img wkf (m , ds , deq , img'' , out) =
  kons-crash-ne₂ {s} {t} {s'} {rs0} {h} {y'} {ps} {dd} {E'} {x} {L} {y} {E} {c} {rest} {m} {ds} ci ri r img deq img'' (wkf {record s' { dr = ds }} img'') out
    (virt-crash {rv (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [])} {s} {record s' { dr = ds }} {t} arr r img'')

kons-crash-ne : ∀ {s t s' rs0 h y' ps dd E'} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) →
                ph-rs ph ≡ rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [] →
                Img (konsP (just (konsOfCh (gen s) (ph-y ph) (ph-E ph) (ph-rs ph))) s) s' → CRLM s' t (smap s)
kons-crash-ne {s} {t} {s'} {rs0} {h} {y'} {ps} {dd} {E'} ph@(phase C x L y E .(rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) rest c M0 z ci si ri lk ep) arr r refl img =
  kons-crash-ne₁ {s} {t} {s'} {rs0} {h} {y'} {ps} {dd} {E'} {x} {L} {y} {E} {c} {rest} ci ri arr r img
    (λ {s2} i → phase-walk-crash {s} {s2} ph i)
    (kons-img {s} {s'} {konsOfCh (gen s) y E (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [])} img)

-- `kons-crash-CRLM`, `kons-crash-CRL`: every crash outcome of the
-- consolidation page's crash point of a state of the chain phase is in
-- `CRL`, recovery rebuilding the state's stable L2P
kons-crash-CRLM : ∀ {s t s'} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
                  Img (konsI s) s' → CRLM s' t (smap s)
kons-crash-CRLM {s} {t} {s'} ph arr r (inj₁ e) img =
  phase-crash-CRLM {s} {s'} {t} ph arr r (subst (λ u → Img u s') (konsI-free {s} (trans (ph-chainOf ph) (cong rv e))) img)
kons-crash-CRLM {s} {t} {s'} ph arr r (inj₂ (rs0 , h , y' , ps , dd , E' , e)) img =
  kons-crash-ne {s} {t} {s'} {rs0} {h} {y'} {ps} {dd} {E'} ph arr r e
    (subst (λ u → Img u s') (konsI-kP ph (λ e0 → snoc≢[] rs0 _ (trans (sym e) e0))) img)

kons-crash-CRL : ∀ {s t s'} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
                 Img (konsI s) s' → CRL s' t
kons-crash-CRL {s} {t} {s'} ph arr r nt img = crlm⇒crl {s'} {t} {smap s} (kons-crash-CRLM {s} {t} {s'} ph arr r nt img)

------------------------------------------------------------------------
-- A tentative page after the consolidation page: `kons-emitT`'s
-- hypotheses from `Phase`

private
  hdU : List MC → Set
  hdU (uns _ _ ∷ _) = ⊤
  hdU _             = ⊥

-- `ept-nil`: in the chain phase (the region durable) there is no
-- tentative page, also with P's RI on the virtually consolidated state
ept-nil : ∀ {vs s c rest} → (r : RI (virt vs s)) → dr s ≡ map syn (c ∷ rest) → ept s ≡ []
ept-nil {vs} {s} {c} {rest} r de = go (ept s) (RI.tEq r)
  where
    f : List (Addr × ℕ) → MC
    f ps = uns erased (dlt (gen s) (ep s) ps false ε)
    noU : ∀ us → hdU (map syn us ++ dr s) → ⊥
    noU []       h = subst hdU de h
    noU (u ∷ us) ()
    go : ∀ qs → RI.tents r ≡ map f qs → qs ≡ []
    go []       _  = refl
    go (q ∷ qs) te = ⊥-elim (noU vs (subst hdU (sym (trans (RI.regEq r) (cong (_++ map syn (RI.comm r)) te))) tt))

-- `top-shape`: the chain's newest record, in the generation, with the
-- chain's last epoch id and link
top-shape : ∀ {g rs0 h y' ps dd E' y E} → Recs g (dlt h y' ps true (dd , [] , E') ∷ rv rs0) →
            lkOf (dlt h y' ps true (dd , [] , E') ∷ rv rs0) ≡ just (y , E) →
            _≡_ {A = List Cell} (dlt h y' ps true (dd , [] , E') ∷ rv rs0) (dlt g y ps true (dd , [] , E) ∷ rv rs0)
top-shape (_ ∷ _) refl = refl

-- `rp-top`: the durable region's replay ends with no pending epoch
rp-top : ∀ {s c rest} C → RInv s c rest → Σ Map λ M → Σ ℕ λ z → rp (gen s) (map cur (dr s)) (st0 C) ≡ (M , z , M)
rp-top {s} {c} {rest} C ri with acc-top (gen s) (Dof s) (map cur (dr s)) C
... | M , z , e = M , z , subst (λ l → rp (gen s) l (st0 C) ≡ (M , z , M)) (trans (ri-acc ri) (sym X≡)) e
  where
    X≡ : map cur (dr s) ≡ c ∷ rest
    X≡ = trans (cong (map cur) (RInv.r-eq ri)) (map-cur-syn (c ∷ rest))

ar-emitT : ∀ {s t} → AR s t → AR (emitT s) t
ar-emitT (ar v st c) = ar v st c

-- `kons-emitT-RI`: the end state of a write or relocation with a
-- tentative page after the consolidation page has P's RI and AR
kons-emitT-RI : ∀ {s t} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
                AR (emitT (konsS s)) t × RI (emitT (konsS s))
kons-emitT-RI {s} {t} ph arr r (inj₁ e) =
  subst (λ u → AR (emitT u) t × RI (emitT u)) (sym (konsS-free {s} (trans (ph-chainOf ph) (cong rv e))))
        (ar-emitT arr , emitT-RI (subst (λ rs → RI (virt (rv rs) s)) e r))
kons-emitT-RI {s} {t} ph@(phase C x L y E .(rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) rest c M0 z ci si ri lk e0) arr r
              (inj₂ (rs0 , h , y' , ps , dd , E' , refl)) =
  subst (λ u → AR (emitT u) t × RI (emitT u)) (sym (konsS-kS ci (ph-RL ph) ne))
        (kons-emitT {s} {rv RSn} {y} {ps} {dd} {[]} {E} {rv rs0} {M} {z'} arr r
                    (ept-nil {rv RSn} {s} {c} {rest} r (RInv.r-eq ri)) (CInv.ch-lnE ci) ev (kons-recs ci) hz)
  where
    M = proj₁ (rp-top {s} {c} {rest} (RI.C r) ri)
    z' = proj₁ (proj₂ (rp-top {s} {c} {rest} (RI.C r) ri))
    hz = proj₂ (proj₂ (rp-top {s} {c} {rest} (RI.C r) ri))
    v = dlt h y' ps true (dd , [] , E')
    RSn = rs0 ++ v ∷ []
    ne : RSn ≢ []
    ne = snoc≢[] rs0 v
    lk' : lkOf (v ∷ rv rs0) ≡ just (y , E)
    lk' = trans (cong (λ l → lkOf (l ++ [])) (sym (rv-snoc rs0 v))) (lay-last (CInv.ch-lay ci) ne [])
    ev : rv RSn ≡ dlt (gen s) y ps true (dd , [] , E) ∷ rv rs0
    ev = trans (rv-snoc rs0 v) (top-shape {gen s} {rs0} (subst (Recs (gen s)) (rv-snoc rs0 v) (kons-recs ci)) lk')

-- `kons-S-RI`: the state after PL's consolidation step from the chain
-- phase (no page for an empty chain) has P's RI and AR (`kons-RI`,
-- `kons-AR`, their hypotheses derived as for `kons-emitT-RI`)
kons-S-RI : ∀ {s t} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
            AR (konsS s) t × RI (konsS s)
kons-S-RI {s} {t} ph arr r (inj₁ e) =
  subst (λ u → AR u t × RI u) (sym (konsS-free {s} (trans (ph-chainOf ph) (cong rv e))))
        (arr , subst (λ rs → RI (virt (rv rs) s)) e r)
kons-S-RI {s} {t} ph@(phase C x L y E .(rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) rest c M0 z ci si ri lk e0) arr r
          (inj₂ (rs0 , h , y' , ps , dd , E' , refl)) =
  subst (λ u → AR u t × RI u) (sym (konsS-kS ci (ph-RL ph) ne))
        (kons-AR arr ,
         kons-RI {s} {rv RSn} {y} {ps} {dd} {[]} {E} {rv rs0} {M} {z'} r
                 (ept-nil {rv RSn} {s} {c} {rest} r (RInv.r-eq ri)) (CInv.ch-lnE ci) ev (kons-recs ci) hz)
  where
    M = proj₁ (rp-top {s} {c} {rest} (RI.C r) ri)
    z' = proj₁ (proj₂ (rp-top {s} {c} {rest} (RI.C r) ri))
    hz = proj₂ (proj₂ (rp-top {s} {c} {rest} (RI.C r) ri))
    v = dlt h y' ps true (dd , [] , E')
    RSn = rs0 ++ v ∷ []
    ne : RSn ≢ []
    ne = snoc≢[] rs0 v
    lk' : lkOf (v ∷ rv rs0) ≡ just (y , E)
    lk' = trans (cong (λ l → lkOf (l ++ [])) (sym (rv-snoc rs0 v))) (lay-last (CInv.ch-lay ci) ne [])
    ev : rv RSn ≡ dlt (gen s) y ps true (dd , [] , E) ∷ rv rs0
    ev = trans (rv-snoc rs0 v) (top-shape {gen s} {rs0} (subst (Recs (gen s)) (rv-snoc rs0 v) (kons-recs ci)) lk')

-- `pl-flush-phase`: type A and B of PL's flush that is not lazy (P's
-- flush after the consolidation page) from the chain phase, by P's
-- `flush-sim` (`kons-flush` with its hypotheses derived)
pl-flush-phase : ∀ {s t s'} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
                 okP (use flush) (konsS s) s' → Σ State λ t' → okS (use flush) t t' × AR s' t' × RI s'
pl-flush-phase ph arr r nt st = flush-sim (proj₁ (kons-S-RI ph arr r nt)) (proj₂ (kons-S-RI ph arr r nt)) st

-- `emitT-crash-CRL`: so every crash from it is in `CRL`
emitT-crash-CRL : ∀ {s t s'} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
                  Img (emitT (konsS s)) s' → CRL s' t
emitT-crash-CRL {s} {t} {s'} ph arr r nt img =
  free-crash-CRL {emitT (konsS s)} {s'} {t} (proj₁ (kons-emitT-RI ph arr r nt)) (proj₂ (kons-emitT-RI ph arr r nt)) img

------------------------------------------------------------------------
-- Every crash point of a write or relocation of the chain phase

-- the chain phase after a write's or relocation's own pages (the state
-- before the consolidation page), the records kept
wr-phase : ∀ {s a d} f1 → Phase s → Phase (optP f1 (wr0 a d s))
wr-phase {s} {a} {d} f1 (phase C x L y E rs rest c M0 z ci si ri lk e) =
  mkP {s} (gen-optP f1 (wr0 a d s)) (cinv-optP f1 (cinv-wr0 a d ci)) (si-optP f1 (si-wr0 a d si)) (ri-optP f1 (ri-wr0 a d ri)) lk e

rl-phase : ∀ {s} p f1 → Phase s → Phase (optP f1 (rl0 p s))
rl-phase {s} p f1 (phase C x L y E rs rest c M0 z ci si ri lk e) =
  mkP {s} (gen-optP f1 (rl0 p s)) (cinv-optP f1 (cinv-rl0 p ci)) (si-optP f1 (si-rl0 p si)) (ri-optP f1 (ri-rl0 p ri)) lk e

rlX-phase : ∀ {s} p → Phase s → Phase (rlX p s)
rlX-phase p (phase C x L y E rs rest c M0 z ci si ri lk e) =
  phase C x L y E rs rest c M0 z (cinv-rlX p ci) (si-rlX p si) (ri-rlX p ri) lk e

-- P's step on the virtually consolidated state (P's `reg-sim`)
wr-virt : ∀ {vs s t a d} f1 → AR s t → RI (virt vs s) → InB a s →
          Σ State λ t' → stable t' ≡ stable t × AR (optP f1 (wr0 a d s)) t' × RI (virt vs (optP f1 (wr0 a d s)))
wr-virt {vs} {s} {t} {a} {d} true arr r ib with reg-sim (w a d) {virt vs s} (ar-virt arr) r (inj₁ (ib , true , false , refl))
... | t' , st , ar' , r' = t' , reg-stable (w a d) st , ar-unvirt ar' , r'
wr-virt {vs} {s} {t} {a} {d} false arr r ib with reg-sim (w a d) {virt vs s} (ar-virt arr) r (inj₁ (ib , false , false , refl))
... | t' , st , ar' , r' = t' , reg-stable (w a d) st , ar-unvirt ar' , r'

rl-virt : ∀ {vs s t p} f1 → AR s t → RI (virt vs s) → gcnt s ≤ kmax → p < nxt s → Valid s p →
          Σ State λ t' → stable t' ≡ stable t × AR (optP f1 (rl0 p s)) t' × RI (virt vs (optP f1 (rl0 p s)))
rl-virt {vs} {s} {t} {p} true arr r k lt v with reg-sim rl {virt vs s} (ar-virt arr) r (inj₁ (k , p , lt , inj₁ (v , true , false , refl)))
... | t' , st , ar' , r' = t' , reg-stable rl st , ar-unvirt ar' , r'
rl-virt {vs} {s} {t} {p} false arr r k lt v with reg-sim rl {virt vs s} (ar-virt arr) r (inj₁ (k , p , lt , inj₁ (v , false , false , refl)))
... | t' , st , ar' , r' = t' , reg-stable rl st , ar-unvirt ar' , r'

rlX-virt : ∀ {vs s t p} → AR s t → RI (virt vs s) → gcnt s ≤ kmax → p < nxt s → ¬ Valid s p →
           Σ State λ t' → stable t' ≡ stable t × AR (rlX p s) t' × RI (virt vs (rlX p s))
rlX-virt {vs} {s} {t} {p} arr r k lt nv with reg-sim rl {virt vs s} (ar-virt arr) r (inj₁ (k , p , lt , inj₂ (nv , refl)))
... | t' , st , ar' , r' = t' , reg-stable rl st , ar-unvirt ar' , r'

-- the three kinds of crash point after the step's own pages: its end
-- state without a tentative page, the consolidation page's crash point,
-- the end state with a tentative page after it
data Pt (m0 : St) : St → Set where
  pt-end  : Pt m0 m0
  pt-kons : Pt m0 (konsI m0)
  pt-tent : Pt m0 (emitT (konsS m0))

-- (the `…-crls` forms: recovery rebuilding the stable L2P of the state
-- before the step, which the step's own pages, the consolidation page
-- and the tentative page keep)
pt-CRLS : ∀ {m0 m s' t t'} (ph : Phase m0) → AR m0 t' → RI (virt (rv (ph-rs ph)) m0) → TopNT (ph-rs ph) →
          stable t' ≡ stable t → Pt m0 m → Img m s' → CRLS s' t m0
pt-CRLS {m0} {m} {s'} {t} {t'} ph arr r nt e pt-end  img = crash-end-M {m0} {s'} {t} {t'} ph arr r e img
pt-CRLS {m0} {m} {s'} {t} {t'} ph arr r nt e pt-kons img =
  crls-stable {s'} {t'} {t} {m0} e (crls-of {s'} {t'} {m0} (kons-crash-CRLM ph arr r nt img))
pt-CRLS {m0} {m} {s'} {t} {t'} ph arr r nt e pt-tent img =
  crls-stable {s'} {t'} {t} {m0} e
    (crls-≐ {s'} {t'} {emitT (konsS m0)} {m0} (proj₂ (konsS-maps m0))
       (crls-of {s'} {t'} {emitT (konsS m0)}
          (free-crash-CRLM {emitT (konsS m0)} {s'} {t'} (proj₁ (kons-emitT-RI ph arr r nt)) (proj₂ (kons-emitT-RI ph arr r nt)) img)))

wr-CRLS : ∀ {s t s' a d m} f1 (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) → InB a s →
          Pt (optP f1 (wr0 a d s)) m → Img m s' → CRLS s' t s
wr-CRLS {s} {t} {s'} {a} {d} {m} f1 ph arr r nt ib pt img with wr-virt {rv (ph-rs ph)} {s} {t} {a} {d} f1 arr r ib
... | t' , e , ar' , r' =
  crls-≐ {s'} {t} {optP f1 (wr0 a d s)} {s} (λ c → cong (λ f → f c) (smap-optP f1 (wr0 a d s)))
    (pt-CRLS {optP f1 (wr0 a d s)} {m} {s'} {t} {t'} (wr-phase f1 ph) ar' r' nt e pt img)

rl-CRLS : ∀ {s t s' p m} f1 (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
          gcnt s ≤ kmax → p < nxt s → Valid s p → Pt (optP f1 (rl0 p s)) m → Img m s' → CRLS s' t s
rl-CRLS {s} {t} {s'} {p} {m} f1 ph arr r nt k lt v pt img with rl-virt {rv (ph-rs ph)} {s} {t} {p} f1 arr r k lt v
... | t' , e , ar' , r' =
  crls-≐ {s'} {t} {optP f1 (rl0 p s)} {s} (λ c → cong (λ f → f c) (smap-optP f1 (rl0 p s)))
    (pt-CRLS {optP f1 (rl0 p s)} {m} {s'} {t} {t'} (rl-phase p f1 ph) ar' r' nt e pt img)

-- `pl-wr-crls`, `pl-wr-crash-all`: every crash point of a write of the
-- chain phase is in `CRL`, S's state unchanged
pl-wr-crls : ∀ {G s t s' a d} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
             crashPL G (use (regop (w a d))) s s' → CRLS s' t s
pl-wr-crls {G} {s} {t} {s'} {a} {d} ph arr r nt (m , inj₁ (inj₁ (ib , f1 , false , refl)) , img) =
  wr-CRLS f1 ph arr r nt ib pt-end img
pl-wr-crls {G} {s} {t} {s'} {a} {d} ph arr r nt (m , inj₁ (inj₁ (ib , f1 , true , refl)) , img) =
  wr-CRLS f1 ph arr r nt ib pt-tent img
pl-wr-crls {G} {s} {t} {s'} {a} {d} ph arr r nt (m , inj₁ (inj₂ (nb , refl)) , img) =
  crash-end-M {s} {s'} {t} {t} ph arr r refl img
pl-wr-crls {G} {s} {t} {s'} {a} {d} ph arr r nt (m , inj₂ (ib , f1 , true , refl) , img) =
  wr-CRLS f1 ph arr r nt ib pt-kons img
pl-wr-crls ph arr r nt (m , inj₂ (ib , f1 , false , ()) , img)

pl-wr-crash-all : ∀ {G s t s' a d} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
                  crashPL G (use (regop (w a d))) s s' → Σ State λ t' → crashS (use (regop (w a d))) t t' × CRL s' t'
pl-wr-crash-all {G} {s} {t} {s'} {a} {d} ph arr r nt c =
  t , reg-crashS (w a d) t , crls⇒crl {s'} {t} {s} (pl-wr-crls {G} {s} {t} {s'} {a} {d} ph arr r nt c)

-- `pl-rl-crls`, `pl-rl-crash-all`: every crash point of a relocation of
-- the chain phase is in `CRL`, S's state unchanged
pl-rl-crls : ∀ {G s t s'} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
             crashPL G (use (regop rl)) s s' → CRLS s' t s
pl-rl-crls {G} {s} {t} {s'} ph arr r nt (m , inj₁ (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl))) , img) =
  rl-CRLS f1 ph arr r nt k lt v pt-end img
pl-rl-crls {G} {s} {t} {s'} ph arr r nt (m , inj₁ (inj₁ (k , p , lt , inj₁ (v , f1 , true , refl))) , img) =
  rl-CRLS f1 ph arr r nt k lt v pt-tent img
pl-rl-crls {G} {s} {t} {s'} ph arr r nt (m , inj₁ (inj₁ (k , p , lt , inj₂ (nv , refl))) , img)
  with rlX-virt {rv (ph-rs ph)} {s} {t} {p} arr r k lt nv
... | t' , e , ar' , r' = crash-end-M {rlX p s} {s'} {t} {t'} (rlX-phase p ph) ar' r' e img
pl-rl-crls {G} {s} {t} {s'} ph arr r nt (m , inj₁ (inj₂ (nk , refl)) , img) =
  crash-end-M {s} {s'} {t} {t} ph arr r refl img
pl-rl-crls {G} {s} {t} {s'} ph arr r nt (m , inj₂ (k , p , lt , v , f1 , true , refl) , img) =
  rl-CRLS f1 ph arr r nt k lt v pt-kons img
pl-rl-crls ph arr r nt (m , inj₂ (k , p , lt , v , f1 , false , ()) , img)

pl-rl-crash-all : ∀ {G s t s'} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
                  crashPL G (use (regop rl)) s s' → Σ State λ t' → crashS (use (regop rl)) t t' × CRL s' t'
pl-rl-crash-all {G} {s} {t} {s'} ph arr r nt c =
  t , reg-crashS rl t , crls⇒crl {s'} {t} {s} (pl-rl-crls {G} {s} {t} {s'} ph arr r nt c)

-- `pl-kons-flush-crash`: a flush's crash point before the consolidation
-- page's SYNC, from a state of the chain phase: in `CRL`, S's flush not
-- landed
pl-kons-flush-crash : ∀ {s t s' m} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
                      m ≡ konsI s → Img m s' → Σ State λ t' → crashS (use flush) t t' × CRL s' t'
pl-kons-flush-crash {s} {t} {s'} ph arr r nt refl img = t , inj₂ refl , kons-crash-CRL ph arr r nt img

------------------------------------------------------------------------
-- P's own crash points inside a flush, from a state with P's RI (a
-- state without a chain, or after the consolidation page: `kons-S-RI`)

crlm-of : ∀ {s' t M} (rt : RecTo s' M) → DOKs (dat s') M (stable t) → walkG (RecTo.g rt) s' ≡ [] → CRLM s' t M
crlm-of {s'} {t} {M} rt dk wk =
  RecTo.b rt , RecTo.g rt , RecTo.C rt , RecTo.pk rt , subst (λ vs → RecTo (virt vs s') M) (sym wk) rt , dk

-- `crl-of`: P's `RecTo` on a crashed flash whose walk (in the
-- generation recovery picks) takes nothing is PL's
crl-of : ∀ {s' t M} (rt : RecTo s' M) → DOKs (dat s') M (stable t) → walkG (RecTo.g rt) s' ≡ [] → CRL s' t
crl-of {s'} {t} {M} rt dk wk = crlm⇒crl {s'} {t} {M} (crlm-of {s'} {t} {M} rt dk wk)

walk-nil-l : ∀ g s' → lkOf (acc g (Dof s') (map cur (dr s'))) ≡ nothing → walkG g s' ≡ []
walk-nil-l g s' e = trans (cong (follow kc g (Rof s') (Dof s')) e) (fnil kc)
  where
    fnil : ∀ k → follow k g (Rof s') (Dof s') nothing ≡ []
    fnil zero    = refl
    fnil (suc k) = refl

-- no region: nothing to walk from
walk-nodr : ∀ g s' → dr s' ≡ [] → walkG g s' ≡ []
walk-nodr g s' e = walk-nil-l g s' (cong (λ l → lkOf (acc g (Dof s') (map cur l))) e)

-- a region of older generations: recovery of the next one accepts none
walk-old : ∀ g s' → All (GenLe g) (map cur (dr s')) → walkG (suc g) s' ≡ []
walk-old g s' a = walk-nil-l (suc g) s' (cong lkOf (acc-gen g (Dof s') (map cur (dr s')) a))

-- no chain walk at all
walk-k0 : kc ≡ 0 → ∀ g s' → walkG g s' ≡ []
walk-k0 e g s' = subst (λ k → follow k g (Rof s') (Dof s') (lkOf (acc g (Dof s') (map cur (dr s')))) ≡ []) (sym e) refl

kc-cases : ∀ n → n ≡ 0 ⊎ 0 < n
kc-cases zero    = inj₁ refl
kc-cases (suc n) = inj₂ (s≤s z≤n)

-- the full checkpoint's crash points: after its first SYNC the new
-- checkpoint (generation g + 1) is picked over a region of generation
-- ≤ g; at its end the region is empty
ck2-walk : ∀ {x s' C M} → cpL x ≡ syn (cpt (gen x) C) → All (PM (GenLe (gen x))) (dr x) → Img (ck2 x) s' →
           (rt : RecTo s' M) → walkG (RecTo.g rt) s' ≡ []
ck2-walk {x} {s'} {C} sl rg (_ , cL , cO , cR , _) rt =
  subst (λ g' → walkG g' s' ≡ []) (sym eqg) (walk-old g s' (all-cur (crashL-PM tt cR (all-put erased tt (all-sync rg)))))
  where
    g = gen x
    so' : PM (Older (suc g)) (cpL s')
    so' = older-er (subst (Older (suc g)) (sym (cong cur sl)) ≤-refl) cL
    eqg : RecTo.g rt ≡ suc g
    eqg = pick-g (trans (sym (RecTo.pk rt)) (pick-slot false s' (suc g) (l2p x) cO so'))

ck3-walk : ∀ {x s' M} → Img (ck3 x) s' → (rt : RecTo s' M) → walkG (RecTo.g rt) s' ≡ []
ck3-walk {x} {s'} (_ , _ , _ , cR , _) rt = walk-nodr (RecTo.g rt) s' (crashL-nil cR)

-- before the checkpoint's first SYNC after P's flush (`fl3`, a state
-- with P's RI): the old checkpoint picked, the walk as on a crash of
-- `fl3`; the new one picked, as above
ck1-walk : ∀ {u s' M} → RI u → Img (ck1 (fl3 u)) s' → (rt : RecTo s' M) → walkG (RecTo.g rt) s' ≡ []
ck1-walk {u} {s'} r (cD , cL , cO , cR , cI) rt = go cO
  where
    x = fl3 u
    r3 = fl3-RI r
    g = gen x
    C = RI.C r3
    sl' = crashC-eq (RI.slotL r3) cL
    old : walkG g s' ≡ []
    old = walk-free-crash {x} {record s' { cpO = cpO x }} r3 (cD , cL , refl , cR , cI)
    oldG : ∀ so' → walkG (RecTo.g rt) s' ≡ []
    oldG so' = subst (λ g' → walkG g' s' ≡ []) (sym (pick-g (trans (sym (RecTo.pk rt)) (pick-slot true s' g C sl' so')))) old
    go : CrashC (put (cpt (suc g) (l2p x)) (cpO x)) (cpO s') → walkG (RecTo.g rt) s' ≡ []
    go (inj₁ e)        = oldG (subst (PM (Older g)) (sym e) (PM-dur {P = Older g} (cpO x) (RI.slotO r3)))
    go (inj₂ (inj₁ e)) =
      subst (λ g' → walkG g' s' ≡ []) (sym (pick-g (trans (sym (RecTo.pk rt))
                                        (pick-slot false s' (suc g) (l2p x) e (subst (PM (Older (suc g))) (sym sl') ≤-refl)))))
            (walk-old g s' (subst (λ l → All (GenLe g) (map cur l)) (sym (crashL-id (all-sync-IsSyn (dr (fl2 u))) cR))
                                  (all-cur (RI.gle r3))))
    go (inj₂ (inj₂ e)) = oldG (subst (PM (Older g)) (sym e) tt)

-- before the flush's SYNC: the committed page, if accepted, links to the
-- active pointer, past every record of the generation (RI's `rcN`);
-- otherwise the walk is that on a crash of the state with its merge
-- buffer programmed (`progMB-RI`, `walk-free-crash`)
bool-cases : ∀ (b : Bool) → b ≡ true ⊎ b ≡ false
bool-cases true  = inj₁ refl
bool-cases false = inj₂ refl

acc-rej : ∀ g D c X → okC g D c X ≡ false → acc g D (c ∷ X) ≡ acc g D X
acc-rej g D c X e rewrite e = refl

acc-ok : ∀ g D c X → okC g D c X ≡ true → acc g D (c ∷ X) ≡ c ∷ X
acc-ok g D c X e rewrite e = refl

fl2-walk : ∀ {u s' M} → RI u → Img (fl2 u) s' → (rt : RecTo s' M) → walkG (RecTo.g rt) s' ≡ []
fl2-walk {u} {s'} r (cD , cL , cO , cR , cI) rt with crashL-cons cR
... | h , rest , deq , c0 , cR' =
  subst (λ g' → walkG g' s' ≡ []) (sym eqg)
        (subst (λ v → walkG g v ≡ []) (sym (st-dr s' deq)) (top c0))
  where
    g = gen u
    C = RI.C r
    c = dlt (gen u) (ep u) (dbuf u) true (dgOf u)
    s'' = record s' { dr = rest }
    D' = Dof s'
    R' = Rof s'
    X = map cur rest
    sl' = crashC-eq (RI.slotL r) cL
    so' = crashC-PM {P = Older g} tt cO (RI.slotO r)
    eqg : RecTo.g rt ≡ g
    eqg = pick-g (trans (sym (RecTo.pk rt)) (pick-slot true s' g C sl' so'))
    w0 : walkG g s'' ≡ []
    w0 = walk-free-crash {progMB u} {s''} (progMB-RI r) (cD , cL , cO , cR' , cI)
    ab : Above g R' (nxt u)
    ab p le = subst (RLt g) (sym (rcur-crash {fl2 u} {s'} (RI.rcOK r) cI p)) (RI.rcN r p le)
    landed : (okC g D' c X ≡ true) ⊎ (okC g D' c X ≡ false) → walkG g (record s' { dr = syn c ∷ rest }) ≡ []
    landed (inj₁ e) = trans (cong (λ l → follow kc g R' D' (lkOf l)) (acc-ok g D' c X e))
                            (follow-nil kc g R' D' (just (ep u , nxt u)) (ext-above g R' D' (ep u) (nxt u) ab))
    landed (inj₂ e) = trans (cong (λ l → follow kc g R' D' (lkOf l)) (acc-rej g D' c X e)) w0
    top : CrashC (uns erased c) h → walkG g (record s' { dr = h ∷ rest }) ≡ []
    top (inj₁ refl)        = trans (walk-dead g s' erased rest (inj₂ refl)) w0
    top (inj₂ (inj₁ refl)) = landed (bool-cases (okC g D' c X))
    top (inj₂ (inj₂ refl)) = trans (walk-dead g s' junk rest (inj₁ refl)) w0

lkc-of : ∀ {u M} → (InP u M ⊎ Σ ℕ λ L' → OobP u L' M) → Σ ℕ λ L → LkC u L M
lkc-of {u} {M} (inj₁ ip)       = M , InP⇒LkC {u} {M} ip
lkc-of {u} {M} (inj₂ (L , op)) = L , OobP⇒LkC {u} {L} {M} op

-- `crl-via`, `crl-map`, `lk-CRL`, `kc-split`: the steps the proofs below
-- take after a lemma of P's or a case split, as functions (no `with`
-- over a large context)
crl-via : ∀ {t s'} → (∀ {M} (rt : RecTo s' M) → walkG (RecTo.g rt) s' ≡ []) →
          (Σ State λ t' → crashS (use flush) t t' × CR s' t') → Σ State λ t' → crashS (use flush) t t' × CRL s' t'
crl-via {s' = s'} wf (t' , c , M , rt , dk) = t' , c , crl-of {s'} {t'} {M} rt dk (wf rt)

crl-map : ∀ {t s1 s2} → (∀ {t'} → CRL s1 t' → CRL s2 t') →
          (Σ State λ t' → crashS (use flush) t t' × CRL s1 t') → Σ State λ t' → crashS (use flush) t t' × CRL s2 t'
crl-map f (t' , c , x) = t' , c , f {t'} x

-- (`lk-CRLM`: with the map named, and P's `RecTo` on the crashed flash)
lk-CRLM : ∀ {u t s' m} M → AR u t → RI u → (InP u M ⊎ Σ ℕ λ L' → OobP u L' M) →
          (m ≡ fi2 M u ⊎ CkPt (fi3 M u) m ⊎ m ≡ fiK M u ⊎ m ≡ fi4 M u) → Img m s' →
          (∀ {M'} (rt : RecTo s' M') → walkG (RecTo.g rt) s' ≡ []) →
          Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × RecTo s' M'
lk-CRLM {u} {t} {s'} {m} M arr r io pt img wf with lk-crash {u} {t} {s'} {m} (proj₁ (lkc-of {u} {M} io)) M arr r (proj₂ (lkc-of {u} {M} io)) pt img
... | t' , c , M' , rt , dk = t' , c , M' , crlm-of {s'} {t'} {M'} rt dk (wf rt) , rt

lk-CRL : ∀ {u t s' m} M → AR u t → RI u → (InP u M ⊎ Σ ℕ λ L' → OobP u L' M) →
         (m ≡ fi2 M u ⊎ CkPt (fi3 M u) m ⊎ m ≡ fiK M u ⊎ m ≡ fi4 M u) → Img m s' →
         (∀ {M'} (rt : RecTo s' M') → walkG (RecTo.g rt) s' ≡ []) →
         Σ State λ t' → crashS (use flush) t t' × CRL s' t'
lk-CRL {u} {t} {s'} {m} M arr r io pt img wf with lk-CRLM {u} {t} {s'} {m} M arr r io pt img wf
... | t' , c , M' , cm , _ = t' , c , crlm⇒crl {s'} {t'} {M'} cm

kc-split : ∀ {A : Set} → (kc ≡ 0 → A) → (0 < kc → A) → A
kc-split f h = Data.Sum.Base.[ f , h ]′ (kc-cases kc)

-- a synced page is a crash outcome of the page
crashC-sync : ∀ m → CrashC m (sync m)
crashC-sync (syn c)   = refl
crashC-sync (uns o n) = inj₂ (inj₁ refl)

crashD-sync : ∀ m → CrashD m (sync m)
crashD-sync (syn c)   = refl
crashD-sync (uns o n) = n , refl

crashL-sync : ∀ ms → CrashL ms (map sync ms)
crashL-sync []       = []
crashL-sync (m ∷ ms) = crashC-sync m ∷ crashL-sync ms

-- `img-syncd`: a crash outcome of a state's synced flash (any other
-- shadow checkpoint slot) is, with the shadow slot's content synced, a
-- crash outcome of the state itself
img-syncd : ∀ {x s'} → (∀ p → CrashD (sync (dat x p)) (dat s' p)) → CrashC (sync (cpL x)) (cpL s') →
            CrashL (map sync (dr x)) (dr s') → (∀ p → CrashC (sync (rcd x p)) (rcd s' p)) →
            Img x (record s' { cpO = sync (cpO x) })
img-syncd {x} {s'} cD cL cR cI =
  (λ p → subst (CrashD (dat x p)) (sym (cD p)) (crashD-sync (dat x p))) ,
  subst (CrashC (cpL x)) (sym cL) (crashC-sync (cpL x)) ,
  crashC-sync (cpO x) ,
  subst (CrashL (dr x)) (sym (crashL-id (all-sync-IsSyn (dr x)) cR)) (crashL-sync (dr x)) ,
  (λ p → subst (CrashC (rcd x p)) (sym (cI p)) (crashC-sync (rcd x p)))

-- `crl-cpO`: `CRL` with another shadow checkpoint slot, older than the
-- live one picked
crlm-cpO : ∀ {s1 t x M} → CRLM s1 t M →
           (∀ b g C → pick (cur (cpL s1)) (cur (cpO s1)) ≡ just (b , g , C) → b ≡ true × PM (Older g) x) →
           CRLM (record s1 { cpO = x }) t M
crlm-cpO {s1} {t} {x} {M} (b , g , C , pk , recto b' g' C' pk' sl so rs rg mx dm ro , dk) f with trans (sym pk) pk'
... | refl with f b g C pk
...   | refl , o =
  true , g , C , pick-slot true (record s1 { cpO = x }) g C sl o ,
  recto true g C (pick-slot true (virt (walkG g s1) (record s1 { cpO = x })) g C sl o) sl o rs rg mx dm ro , dk

crl-cpO : ∀ {s1 t x} → CRL s1 t →
          (∀ b g C → pick (cur (cpL s1)) (cur (cpO s1)) ≡ just (b , g , C) → b ≡ true × PM (Older g) x) →
          CRL (record s1 { cpO = x }) t
crl-cpO {s1} {t} {x} (b , g , C , pk , M , rt , dk) f =
  crlm⇒crl {record s1 { cpO = x }} {t} {M} (crlm-cpO {s1} {t} {x} {M} (b , g , C , pk , rt , dk) f)

pick-true : ∀ {b g' C' g C} {x : MC} → _≡_ {A = Maybe (Bool × ℕ × Map)} (just (b , g' , C')) (just (true , g , C)) →
            PM (Older g) x → b ≡ true × PM (Older g') x
pick-true refl o = refl , o

pick-b : ∀ {b g C b' g' C'} → _≡_ {A = Maybe (Bool × ℕ × Map)} (just (b , g , C)) (just (b' , g' , C')) → b ≡ b'
pick-b refl = refl

-- `ck1-fi3-CRL`: the checkpoint after P's in-page / OOB commit, before
-- its first SYNC: the new checkpoint picked, the walk takes nothing; the
-- old one picked, the flash is the commit's before its SYNC with
-- everything landed (`img-syncd`), in `CRL` by `free-lazy-crash-CRL`
-- (`crl-cpO`: the shadow slot as it is)
-- where the map recovery rebuilds comes from: P's crash relation of the
-- commit before its SYNC (the stable or the volatile L2P), or P's
-- `RecTo` on the crashed flash (SCFTL.Impl.OneModelRecMaps: B's
-- `flush-maps`)
CmtSrc : St → St → Map → Set
CmtSrc u s' M' = (M' ≡ smap u ⊎ M' ≡ l2p u) ⊎ RecTo s' M'

lk-src : ∀ {u t s'} → (Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × RecTo s' M') →
         Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × CmtSrc u s' M'
lk-src (t' , c , M' , cm , rt) = t' , c , M' , cm , inj₂ rt

ck1-fi3-CRLM : ∀ {u t s'} M → AR u t → RI u → (io : InP u M ⊎ Σ ℕ λ L' → OobP u L' M) → 0 < kc →
               Img (ck1 (fi3 M u)) s' → Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × CmtSrc u s' M'
ck1-fi3-CRLM {u} {t} {s'} M arr r io pos img@(cD , cL , cO , cR , cI) = go cO
  where
    g = gen u
    C = RI.C r
    x = fi2 M u
    sl' : cpL s' ≡ syn (cpt g C)
    sl' = crashC-eq (RI.slotL (fl3-RI r)) cL
    s'' = record s' { cpO = sync (cpO u) }
    img'' : Img x s''
    img'' = img-syncd {x} {s'} cD cL cR cI
    so'' : PM (Older g) (cpO s'')
    so'' = PM-sync {P = Older g} (cpO u) (RI.slotO r)
    lz : Lazy u M
    lz = subst (λ cs → length cs < kc) (sym (ri-chain-free r)) pos , io
    F2 = free-fi2-M {u} {t} {s''} {M} arr r lz img''
    viaFi2 : PM (Older g) (cpO s') → Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × CmtSrc u s' M'
    viaFi2 o = proj₁ F2 , proj₁ (proj₂ F2) , proj₁ (proj₂ (proj₂ F2)) ,
               crlm-cpO {s''} {proj₁ F2} {cpO s'} {proj₁ (proj₂ (proj₂ F2))} (proj₁ (proj₂ (proj₂ (proj₂ F2)))) f ,
               inj₁ (proj₂ (proj₂ (proj₂ (proj₂ F2))))
      where
        f : ∀ b g' C' → pick (cur (cpL s'')) (cur (cpO s'')) ≡ just (b , g' , C') → b ≡ true × PM (Older g') (cpO s')
        f b g' C' e = pick-true {x = cpO s'} (trans (sym e) (pick-slot true s'' g C sl' so'')) o
    go : CrashC (put (cpt (suc g) (l2p (fi3 M u))) (cpO (fi3 M u))) (cpO s') →
         Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × CmtSrc u s' M'
    go (inj₁ e)        = viaFi2 (subst (PM (Older g)) (sym e) (PM-cur {P = Older g} (cpO u) (RI.slotO r)))
    go (inj₂ (inj₂ e)) = viaFi2 (subst (PM (Older g)) (sym e) tt)
    go (inj₂ (inj₁ e)) =
      lk-src {u} {t} {s'} (lk-CRLM {u} {t} {s'} {ck1 (fi3 M u)} M arr r io (inj₂ (inj₁ (inj₁ refl))) img λ rt →
        subst (λ g' → walkG g' s' ≡ []) (sym (pick-g (trans (sym (RecTo.pk rt))
                                          (pick-slot false s' (suc g) (l2p (fi3 M u)) e (subst (PM (Older (suc g))) (sym sl') ≤-refl)))))
              (walk-old g s' (subst (λ l → All (GenLe g) (map cur l)) (sym (crashL-id (all-sync-IsSyn (dr u)) cR))
                                    (all-cur (all-sync (RI.gle r))))))

ck1-fi3-CRL : ∀ {u t s'} M → AR u t → RI u → (io : InP u M ⊎ Σ ℕ λ L' → OobP u L' M) → 0 < kc →
              Img (ck1 (fi3 M u)) s' → Σ State λ t' → crashS (use flush) t t' × CRL s' t'
ck1-fi3-CRL {u} {t} {s'} M arr r io pos img with ck1-fi3-CRLM {u} {t} {s'} M arr r io pos img
... | t' , c , M' , cm , _ = t' , c , crlm⇒crl {s'} {t'} {M'} cm

-- the commit's consolidation page before its SYNC (`fiK`): landed and
-- accepted, it links past every record of the generation; landed and
-- rejected, the record in its slot is rejected too; torn or erased, the
-- flash under it is the commit's before its SYNC with everything
-- landed, in `CRL` by `free-lazy-crash-CRL`, the dead page on top
-- changing nothing (`crl-dead`)
okR-okC' : ∀ g x D h y ps dd dt E cs → dt ≡ [] → okR g x D (dlt h y ps true (dd , dt , E)) ≡ true →
           okC g D (dlt h y ps true (dd , dt , E)) cs ≡ true
okR-okC' g x D h y ps dd .[] E cs refl o = okR-okC g x D h y ps dd E cs o

rec-okR-okC : ∀ {u M} → Lazy u M → ∀ g x D cs → okR g x D (rec u) ≡ true → okC g D (rec u) cs ≡ true
rec-okR-okC {u} {M} lz g x D cs o =
  okR-okC' g x D (gen u) (ep u) (dbuf u) (proj₁ (dgOf u)) (ept u) (nxt u) cs (lazy-et {u} {M} lz) o

walk-one-okR : ∀ g R D l c → follow kc g R D l ≡ c ∷ [] → Σ ℕ λ x → okR g x D c ≡ true
walk-one-okR g R D nothing c e with follow-inv kc g R D nothing c e
... | ()
walk-one-okR g R D (just (x , L)) c e = suc x , extM-okR g R D x L c (follow-inv kc g R D (just (x , L)) c e)

recto-dead-top : ∀ {s M j} → RecTo s M → Dead j → RecTo (record s { dr = syn j ∷ dr s }) M
recto-dead-top {s} (recto b g C pk sl so rs rg mx dm ro) (inj₁ refl) =
  recto b g C pk (trans (slot-dr b s _ _) sl) (subst (PM (Older g)) (slot-dr (Data.Bool.Base.not b) s _ _) so)
        (tt All.∷ rs) (tt All.∷ rg) mx dm ro
recto-dead-top {s} (recto b g C pk sl so rs rg mx dm ro) (inj₂ refl) =
  recto b g C pk (trans (slot-dr b s _ _) sl) (subst (PM (Older g)) (slot-dr (Data.Bool.Base.not b) s _ _) so)
        (tt All.∷ rs) (tt All.∷ rg) mx dm ro

st-dr-cpO : ∀ s {d o} → dr s ≡ d → cpO s ≡ o → s ≡ record s { dr = d ; cpO = o }
st-dr-cpO s refl refl = refl

fiK-CRLM′ : ∀ {u t s'} M → AR u t → RI u → (io : InP u M ⊎ Σ ℕ λ L' → OobP u L' M) → 0 < kc →
            Img (fiK M u) s' →
            (Σ MC λ h → Σ (List MC) λ rest → dr s' ≡ h ∷ rest × CrashC (uns erased (rec u)) h × CrashL (dr (fi3 M u)) rest) →
            Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × CmtSrc u s' M'
fiK-CRLM′ {u} {t} {s'} M arr r io pos img@(cD , cL , cO , cR , cI) (h , rest , deq , c0 , cR') = top c0
  where
    g = gen u
    C = RI.C r
    x = fi2 M u
    lz : Lazy u M
    lz = subst (λ cs → length cs < kc) (sym (ri-chain-free r)) pos , io
    s2 = record s' { dr = rest ; cpO = sync (cpO u) }
    img2 : Img x s2
    img2 = img-syncd {x} {record s' { dr = rest }} cD cL cR' cI
    phe = free-lazy-ph {u} {M} r lz
    wk2 : walkG g s2 ≡ [] ⊎ walkG g s2 ≡ rec u ∷ []
    wk2 = Data.Sum.Base.map (λ e → trans e (cong rv (proj₂ phe))) (λ e → trans e (cong (λ rs → rec u ∷ rv rs) (proj₂ phe)))
                            (phase-fi2-walk {u} {s2} {M} (proj₁ phe) lz img2)
    sl' : cpL s' ≡ syn (cpt g C)
    sl' = crashC-eq (RI.slotL (fl3-RI r)) cL
    so2 : PM (Older g) (sync (cpO u))
    so2 = PM-sync {P = Older g} (cpO u) (RI.slotO r)
    geq : ∀ {b g' C'} → pick (cur (cpL s')) (cur (sync (cpO u))) ≡ just (b , g' , C') → g' ≡ g
    geq e = pick-g (trans (sym e) (pick-slot true s2 g C sl' so2))
    D' = Dof s'
    R' = Rof s'
    X = map cur rest
    lkc = proj₂ (lkc-of {u} {M} io)
    mn : M < nxt u
    mn = proj₁ (proj₂ (proj₂ (proj₂ lkc)))
    -- P's crash relation, moved to `CRLM` where the walk takes nothing
    viaP : (∀ g' → g' ≡ g → walkG g' s' ≡ []) → Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × CmtSrc u s' M'
    viaP wk = lk-src {u} {t} {s'} (lk-CRLM {u} {t} {s'} {fiK M u} M arr r io (inj₂ (inj₂ (inj₁ refl))) img
                       (λ rt → wk (RecTo.g rt) (geq (subst (λ o → pick (cur (cpL s')) (cur o) ≡ just (RecTo.b rt , RecTo.g rt , RecTo.C rt))
                                                           cO (RecTo.pk rt)))))
    ab : Above g R' (nxt u)
    ab p le = subst (RLt g) (sym (trans (cong cur (cI p)) (cong cur (upd-other (rcd u) (put (rec u) (rcd u M)) ne))))
                    (RI.rcN r p le)
      where
        ne : p ≢ M
        ne e = <⇒≢ (<-transˡ mn le) (sym e)
    s'≡ : s' ≡ record s2 { dr = h ∷ rest }
    s'≡ = st-dr-cpO s' deq cO
    t≢f : true ≡ false → ⊥
    t≢f ()
    rejected : okC g D' (rec u) X ≡ false → walkG g s2 ≡ [] ⊎ walkG g s2 ≡ rec u ∷ [] →
               walkG g (record s2 { dr = syn (rec u) ∷ rest }) ≡ []
    rejected e (inj₁ wq) = trans (cong (λ l → follow kc g R' D' (lkOf l)) (acc-rej g D' (rec u) X e)) wq
    rejected e (inj₂ wq) =
      ⊥-elim (t≢f (trans (sym (rec-okR-okC {u} {M} lz g (proj₁ (walk-one-okR g R' D' (lkOf (acc g D' X)) (rec u) wq)) D' X
                                           (proj₂ (walk-one-okR g R' D' (lkOf (acc g D' X)) (rec u) wq)))) e))
    landed : (okC g D' (rec u) X ≡ true) ⊎ (okC g D' (rec u) X ≡ false) → ∀ g' → g' ≡ g →
             walkG g' (record s2 { dr = syn (rec u) ∷ rest }) ≡ []
    landed (inj₁ e) g' refl = trans (cong (λ l → follow kc g R' D' (lkOf l)) (acc-ok g D' (rec u) X e))
                                    (follow-nil kc g R' D' (just (ep u , nxt u)) (ext-above g R' D' (ep u) (nxt u) ab))
    landed (inj₂ e) g' refl = rejected e wk2
    crlm-dead : ∀ {t' M'} j → Dead j → CRLM s2 t' M' → CRLM (record s2 { dr = syn j ∷ rest }) t' M'
    crlm-dead {t'} {M'} j dj (b , g' , C' , pk , rt , dk) = cd g' pk rt (geq pk) wk2
      where
        s3 = record s2 { dr = syn j ∷ rest }
        cd : ∀ g'' → pick (cur (cpL s2)) (cur (cpO s2)) ≡ just (b , g'' , C') → RecTo (virt (walkG g'' s2) s2) M' → g'' ≡ g →
             walkG g s2 ≡ [] ⊎ walkG g s2 ≡ rec u ∷ [] → CRLM s3 t' M'
        cd .g pk' rt0 refl (inj₁ wq) = b , g , C' , pk' ,
                     subst (λ vs → RecTo (virt vs s3) M') (sym (trans (walk-dead g s2 j rest dj) wq))
                           (recto-dead-top {s2} {M'} {j} (subst (λ vs → RecTo (virt vs s2) M') wq rt0) dj) , dk
        cd .g pk' rt0 refl (inj₂ wq) = b , g , C' , pk' ,
                     subst (λ vs → RecTo (virt vs s3) M') (sym (trans (walk-dead g s2 j rest dj) wq))
                           (recto-dead {rec u} {[]} {s2} {M'} {j} rt' dj ok0 (trans (rec-okC {u} {M} lz _ _ _ _) ok0)) , dk
          where
            rt' : RecTo (virt (rec u ∷ []) s2) M'
            rt' = subst (λ vs → RecTo (virt vs s2) M') wq rt0
            eg : RecTo.g rt' ≡ g
            eg = geq (RecTo.pk rt')
            ok0 : okC (RecTo.g rt') (Dof s2) (rec u) ([] ++ map cur rest) ≡ true
            ok0 = subst (λ g'' → okC g'' (Dof s2) (rec u) X ≡ true) (sym eg)
                        (rec-okR-okC {u} {M} lz g (proj₁ (walk-one-okR g R' D' (lkOf (acc g D' X)) (rec u) wq)) D' X
                                     (proj₂ (walk-one-okR g R' D' (lkOf (acc g D' X)) (rec u) wq)))
    F2 = free-fi2-M {u} {t} {s2} {M} arr r lz img2
    dead : ∀ j → Dead j → h ≡ syn j → Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × CmtSrc u s' M'
    dead j dj hj =
      proj₁ F2 , proj₁ (proj₂ F2) , proj₁ (proj₂ (proj₂ F2)) ,
      subst (λ v → CRLM v (proj₁ F2) (proj₁ (proj₂ (proj₂ F2)))) (sym (trans s'≡ (cong (λ m → record s2 { dr = m ∷ rest }) hj)))
            (crlm-dead {proj₁ F2} {proj₁ (proj₂ (proj₂ F2))} j dj (proj₁ (proj₂ (proj₂ (proj₂ F2))))) ,
      inj₁ (proj₂ (proj₂ (proj₂ (proj₂ F2))))
    top : CrashC (uns erased (rec u)) h → Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × CmtSrc u s' M'
    top (inj₂ (inj₁ e)) = viaP (λ g' e' → subst (λ v → walkG g' v ≡ []) (sym (trans s'≡ (cong (λ m → record s2 { dr = m ∷ rest }) e)))
                                               (landed (bool-cases (okC g D' (rec u) X)) g' e'))
    top (inj₁ e)        = dead erased (inj₂ refl) e
    top (inj₂ (inj₂ e)) = dead junk (inj₁ refl) e

fiK-CRLM : ∀ {u t s'} M → AR u t → RI u → (io : InP u M ⊎ Σ ℕ λ L' → OobP u L' M) → 0 < kc →
           Img (fiK M u) s' → Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × CmtSrc u s' M'
fiK-CRLM {u} {t} {s'} M arr r io pos img@(cD , cL , cO , cR , cI) = fiK-CRLM′ {u} {t} {s'} M arr r io pos img (crashL-cons cR)

fiK-CRL : ∀ {u t s'} M → AR u t → RI u → (io : InP u M ⊎ Σ ℕ λ L' → OobP u L' M) → 0 < kc →
          Img (fiK M u) s' → Σ State λ t' → crashS (use flush) t t' × CRL s' t'
fiK-CRL {u} {t} {s'} M arr r io pos img with fiK-CRLM {u} {t} {s'} M arr r io pos img
... | t' , c , M' , cm , _ = t' , c , crlm⇒crl {s'} {t'} {M'} cm


-- `commit-crash`: the in-page / OOB commit's crash points inside P's
-- flush (record in page M's slot) from a state with P's RI and AR
commit-crash : ∀ {u t s' m} M → AR u t → RI u → (InP u M ⊎ Σ ℕ λ L' → OobP u L' M) →
               (m ≡ fi2 M u ⊎ CkPt (fi3 M u) m ⊎ m ≡ fiK M u ⊎ m ≡ fi4 M u) → Img m s' →
               Σ State λ t' → crashS (use flush) t t' × CRL s' t'
-- before its SYNC: the lazy commit's crash point from a state with P's RI
commit-crash {u} {t} {s'} {m} M arr r io (inj₁ refl) img =
  kc-split (λ k0 → lk-CRL {u} {t} {s'} M arr r io (inj₁ refl) img (λ rt → walk-k0 k0 (RecTo.g rt) s'))
           (λ pos → free-lazy-crash-CRL {u} {t} {s'} {M} arr r (RI.vOK r)
                      (subst (λ cs → length cs < kc) (sym (ri-chain-free r)) pos , io) (inj₁ refl) img)
-- the checkpoint after it
commit-crash {u} {t} {s'} {m} M arr r io (inj₂ (inj₁ (inj₁ refl))) img =
  kc-split (λ k0 → lk-CRL {u} {t} {s'} M arr r io (inj₂ (inj₁ (inj₁ refl))) img (λ rt → walk-k0 k0 (RecTo.g rt) s'))
           (λ pos → ck1-fi3-CRL {u} {t} {s'} M arr r io pos img)
commit-crash {u} {t} {s'} {m} M arr r io (inj₂ (inj₁ ck@(inj₂ (inj₁ refl)))) img =
  lk-CRL {u} {t} {s'} M arr r io (inj₂ (inj₁ ck)) img
         (λ rt → ck2-walk {fi3 M u} (RI.slotL (fl3-RI r)) (all-sync (RI.gle r)) img rt)
commit-crash {u} {t} {s'} {m} M arr r io (inj₂ (inj₁ ck@(inj₂ (inj₂ refl)))) img =
  lk-CRL {u} {t} {s'} M arr r io (inj₂ (inj₁ ck)) img (λ rt → ck3-walk {fi3 M u} img rt)
-- the consolidation page before its SYNC
commit-crash {u} {t} {s'} {m} M arr r io (inj₂ (inj₂ (inj₁ refl))) img =
  kc-split (λ k0 → lk-CRL {u} {t} {s'} M arr r io (inj₂ (inj₂ (inj₁ refl))) img (λ rt → walk-k0 k0 (RecTo.g rt) s'))
           (λ pos → fiK-CRL {u} {t} {s'} M arr r io pos img)
-- the end: P's RI
commit-crash {u} {t} {s'} {m} M arr r io (inj₂ (inj₂ (inj₂ refl))) img =
  tF t , inj₁ refl , free-crash-CRL {fi4 M u} {s'} {tF t} (fi4-AR {u} {t} {M} arr) (fi4-RI r (proj₂ (lkc-of {u} {M} io))) img

-- `free-flush-crash-CRL`: every crash point inside P's flush from a
-- state with P's RI and AR is in `CRL`
free-flush-crash-CRL : ∀ {u t s' m} → AR u t → RI u → FlPt u m → Img m s' →
                       Σ State λ t' → crashS (use flush) t t' × CRL s' t'
free-flush-crash-CRL {u} {t} {s'} {m} arr r fp@(inj₁ refl) img =
  crl-via {t} {s'} (λ rt → fl2-walk r img rt) (flush-crash arr r (m , fp , img))
free-flush-crash-CRL {u} {t} {s'} arr r (inj₂ (inj₁ refl)) img =
  tF t , inj₁ refl , free-crash-CRL {fl3 u} {s'} {tF t} (fl3-AR arr) (fl3-RI r) img
free-flush-crash-CRL {u} {t} {s'} {m} arr r fp@(inj₂ (inj₂ (inj₁ ck))) img =
  crl-via {t} {s'} (wk ck) (flush-crash arr r (m , fp , img))
  where
    r3 = fl3-RI r
    wk : CkPt (fl3 u) m → ∀ {M} (rt : RecTo s' M) → walkG (RecTo.g rt) s' ≡ []
    wk (inj₁ refl)        rt = ck1-walk r img rt
    wk (inj₂ (inj₁ refl)) rt = ck2-walk {fl3 u} (RI.slotL r3) (RI.gle r3) img rt
    wk (inj₂ (inj₂ refl)) rt = ck3-walk {fl3 u} img rt
free-flush-crash-CRL {u} {t} {s'} {m} arr r fp@(inj₂ (inj₂ (inj₂ (inj₁ (L , ip , pt))))) img =
  commit-crash L arr r (inj₁ ip) pt img
free-flush-crash-CRL {u} {t} {s'} {m} arr r fp@(inj₂ (inj₂ (inj₂ (inj₂ (L , M , op , pt))))) img =
  commit-crash M arr r (inj₂ (L , op)) pt img

-- `pl-flush-crash-phase`: so are P's crash points inside PL's flush
-- after a chain's consolidation page (`kons-S-RI`)
pl-flush-crash-phase : ∀ {s t s' m} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → TopNT (ph-rs ph) →
                       FlPt (konsS s) m → Img m s' →
                       Σ State λ t' → crashS (use flush) t t' × CRL s' t'
pl-flush-crash-phase ph arr r nt fp img =
  free-flush-crash-CRL (proj₁ (kons-S-RI ph arr r nt)) (proj₂ (kons-S-RI ph arr r nt)) fp img

------------------------------------------------------------------------
-- Recovery's own crash points (its full checkpoint) from a state in
-- `CRL`: P's `rec-crash` on the virtually consolidated flash; the old
-- checkpoint picked, the walk is the one before; the new one picked, the
-- virtual records (of the old generation) drop out (`recto-old`)

crashD-syncd : ∀ m {m'} → CrashD (sync m) m' → m' ≡ sync m × cur m' ≡ cur m
crashD-syncd m refl = refl , refl

mutual
  follow-ext : ∀ {R R' D D'} → (∀ p → R p ≡ R' p) → (∀ p → D p ≡ D' p) → ∀ k g l →
               follow k g R D l ≡ follow k g R' D' l
  follow-ext er ed zero    g l = refl
  follow-ext {R} {R'} {D} {D'} er ed (suc k) g l =
    trans (cong (fol k g R D) (extM-ext er ed g l)) (fol-ext er ed k g (extM g R' D' l))

  fol-ext : ∀ {R R' D D'} → (∀ p → R p ≡ R' p) → (∀ p → D p ≡ D' p) → ∀ k g cs →
            fol k g R D cs ≡ fol k g R' D' cs
  fol-ext er ed k g []       = refl
  fol-ext er ed k g (c ∷ cs) = cong (_++ c ∷ cs) (follow-ext er ed k g (lkOf (c ∷ cs)))

walk-eq : ∀ g s1 s2 → (∀ p → cur (rcd s1 p) ≡ cur (rcd s2 p)) → (∀ p → cur (dat s1 p) ≡ cur (dat s2 p)) →
          map cur (dr s1) ≡ map cur (dr s2) → walkG g s1 ≡ walkG g s2
walk-eq g s1 s2 er ed ex =
  trans (cong (follow kc g (Rof s1) (Dof s1)) (cong lkOf (trans (acc-ext ed g (map cur (dr s1))) (cong (acc g (Dof s2)) ex))))
        (follow-ext er ed kc g (lkOf (acc g (Dof s2) (map cur (dr s2)))))

all-prefix-syn : ∀ {P : Cell → Set} vs {ys} → All (PM P) (map syn vs ++ ys) → All P vs
all-prefix-syn []       a              = All.[]
all-prefix-syn (v ∷ vs) (All._∷_ p a) = All._∷_ p (all-prefix-syn vs a)

crashL-ck1 : ∀ vs {X ys} → CrashL (map sync X) ys → CrashL (map sync (map syn vs ++ X)) (map syn vs ++ ys)
crashL-ck1 []       c = c
crashL-ck1 (v ∷ vs) c = refl ∷ crashL-ck1 vs c

crashL-ck2 : ∀ vs {X ys} → CrashL (map (put erased) (map sync (map sync X))) ys →
             CrashL (map (put erased) (map sync (map sync (map syn vs ++ X)))) (map syn vs ++ ys)
crashL-ck2 []       c = c
crashL-ck2 (v ∷ vs) c = inj₁ refl ∷ crashL-ck2 vs c

-- `rec-newG`: the new checkpoint picked, the virtual records (of the old
-- generation) drop out (`recto-old`) and the walk takes nothing
rec-g-old : ∀ {vs s' g M} (rgv : All (GenLe g) vs) (r' : RecTo (virt vs s') M) (e' : RecTo.g r' ≡ suc g) →
            RecTo.g (recto-old {vs} {s'} {M} {g} r' e' rgv) ≡ RecTo.g r'
rec-g-old rgv (recto _ _ _ _ _ _ _ _ _ _ _) refl = refl

rec-newG : ∀ {vs s' t g M} → All (GenLe g) vs → (rt' : RecTo (virt vs s') M) → RecTo.g rt' ≡ suc g →
           DOKs (dat s') M (stable t) → All (GenLe g) (map cur (dr s')) → CRLM s' t M
rec-newG {vs} {s'} {t} {g} {M} rgv rt' e dk' ga =
  crlm-of {s'} {t} {M} (recto-old {vs} {s'} {M} {g} rt' e rgv) dk'
         (subst (λ g' → walkG g' s' ≡ []) (sym (trans (rec-g-old {vs} {s'} {g} {M} rgv rt' e) e)) (walk-old g s' ga))

-- the state recovery starts from: its live checkpoint slot and the other
rec-slR0 : ∀ {b g C} s → slot b (virt (walkG g s) s) ≡ syn (cpt g C) → cpL (rec0L b g C s) ≡ syn (cpt g C)
rec-slR0 {b} {g} {C} s sl1 = trans (slot-sync b (virt (walkG g s) s)) (cong sync sl1)

rec-soR0 : ∀ {b g C} s → PM (Older g) (slot (Data.Bool.Base.not b) (virt (walkG g s) s)) → PM (Older g) (cpO (rec0L b g C s))
rec-soR0 {b} {g} {C} s so1 =
  subst (PM (Older g)) (sym (slot-sync (Data.Bool.Base.not b) (virt (walkG g s) s)))
        (PM-sync {P = Older g} (slot (Data.Bool.Base.not b) (virt (walkG g s) s)) so1)

-- recovery's three crash points, from P's `RecTo` on the virtually
-- consolidated flash in the generation recovery picks
rec-ck1 : ∀ {s t s' b g C M} → (rt : RecTo (virt (walkG g s) s) M) → DOKs (dat (virt (walkG g s) s)) M (stable t) →
          pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
          slot b (virt (walkG g s) s) ≡ syn (cpt g C) → PM (Older g) (slot (Data.Bool.Base.not b) (virt (walkG g s) s)) →
          All (PM (GenLe g)) (dr (virt (walkG g s) s)) → Img (ck1 (rec0L b g C s)) s' → CRLM s' t M
rec-ck1 {s} {t} {s'} {b} {g} {C} {M} rt dk pk sl1 so1 rg1 (cD , cL , cO , cR , cI) =
  fin (rec-crash {virt vs s} {virt vs s'} rt dk pk (inj₁ refl) (cD , cL , cO , crashL-ck1 vs cR , cI))
  where
    vs = walkG g s
    R0 = rec0L b g C s
    sl' : cpL s' ≡ syn (cpt g C)
    sl' = crashC-eq (rec-slR0 {b} {g} {C} s sl1) cL
    drE : dr s' ≡ map sync (dr s)
    drE = crashL-id (all-sync-IsSyn (dr s)) cR
    wkE : walkG g s' ≡ vs
    wkE = walk-eq g s' s (λ p → cong cur (cI p)) (λ p → proj₂ (crashD-syncd (dat s p) (cD p)))
                  (trans (cong (map cur) drE) (map-cur-sync (dr s)))
    fin : RecTo (virt vs s') M × DOKs (dat (virt vs s')) M (stable t) → CRLM s' t M
    fin (rt' , dk') = pickCase cO
      where
        oldG : PM (Older g) (cpO s') → CRLM s' t M
        oldG so' = true , g , C , pick-slot true s' g C sl' so' ,
                   subst (λ us → RecTo (virt us s') M) (sym wkE) rt' , dk'
        pickCase : CrashC (put (cpt (suc g) (l2p R0)) (cpO R0)) (cpO s') → CRLM s' t M
        pickCase (inj₁ e)        = oldG (subst (PM (Older g)) (sym e) (PM-dur {P = Older g} (cpO R0) (rec-soR0 {b} {g} {C} s so1)))
        pickCase (inj₂ (inj₂ e)) = oldG (subst (PM (Older g)) (sym e) tt)
        pickCase (inj₂ (inj₁ e)) =
          rec-newG {vs} {s'} {t} {g} {M} (all-prefix-syn vs rg1) rt'
                   (pick-g (trans (sym (RecTo.pk rt')) (pick-slot false s' (suc g) (l2p R0) e (subst (PM (Older (suc g))) (sym sl') ≤-refl))))
                   dk' (subst (λ l → All (GenLe g) (map cur l)) (sym drE) (all-cur (all-sync (all-suffix (map syn vs) rg1))))

rec-ck2 : ∀ {s t s' b g C M} → (rt : RecTo (virt (walkG g s) s) M) → DOKs (dat (virt (walkG g s) s)) M (stable t) →
          pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
          slot b (virt (walkG g s) s) ≡ syn (cpt g C) →
          All (PM (GenLe g)) (dr (virt (walkG g s) s)) → Img (ck2 (rec0L b g C s)) s' → CRLM s' t M
rec-ck2 {s} {t} {s'} {b} {g} {C} {M} rt dk pk sl1 rg1 (cD , cL , cO , cR , cI) =
  fin (rec-crash {virt vs s} {virt vs s'} rt dk pk (inj₂ (inj₁ refl)) (cD , cL , cO , crashL-ck2 vs cR , cI))
  where
    vs = walkG g s
    so' : PM (Older (suc g)) (cpL s')
    so' = older-er (subst (Older (suc g)) (sym (cong cur (rec-slR0 {b} {g} {C} s sl1))) ≤-refl) cL
    fin : RecTo (virt vs s') M × DOKs (dat (virt vs s')) M (stable t) → CRLM s' t M
    fin (rt' , dk') =
      rec-newG {vs} {s'} {t} {g} {M} (all-prefix-syn vs rg1) rt'
               (pick-g (trans (sym (RecTo.pk rt')) (pick-slot false s' (suc g) (l2p (rec0L b g C s)) cO so')))
               dk' (all-cur (crashL-PM tt cR (all-put erased tt (all-sync (all-sync (all-suffix (map syn vs) rg1))))))

rec-ck3 : ∀ {s t s' b g C M} → (rt : RecTo (virt (walkG g s) s) M) → DOKs (dat (virt (walkG g s) s)) M (stable t) →
          pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) → Img (ck3 (rec0L b g C s)) s' → CRLM s' t M
rec-ck3 {s} {t} {s'} {b} {g} {C} {M} rt dk pk img3@(_ , _ , _ , cR , _) =
  fin (rec-crash {virt (walkG g s) s} {s'} rt dk pk (inj₂ (inj₂ refl)) img3)
  where
    fin : RecTo s' M × DOKs (dat s') M (stable t) → CRLM s' t M
    fin (rt' , dk') = crlm-of {s'} {t} {M} rt' dk' (walk-nodr (RecTo.g rt') s' (crashL-nil cR))

rec-go : ∀ {s t s' b g C M m} → (rt : RecTo (virt (walkG g s) s) M) → DOKs (dat (virt (walkG g s) s)) M (stable t) →
         pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) →
         slot b (virt (walkG g s) s) ≡ syn (cpt g C) → PM (Older g) (slot (Data.Bool.Base.not b) (virt (walkG g s) s)) →
         All (PM (GenLe g)) (dr (virt (walkG g s) s)) → CkPt (rec0L b g C s) m → Img m s' → CRLM s' t M
rec-go {s} {t} {s'} {b} {g} {C} {M} rt dk pk sl1 so1 rg1 (inj₁ refl) img =
  rec-ck1 {s} {t} {s'} {b} {g} {C} {M} rt dk pk sl1 so1 rg1 img
rec-go {s} {t} {s'} {b} {g} {C} {M} rt dk pk sl1 so1 rg1 (inj₂ (inj₁ refl)) img =
  rec-ck2 {s} {t} {s'} {b} {g} {C} {M} rt dk pk sl1 rg1 img
rec-go {s} {t} {s'} {b} {g} {C} {M} rt dk pk sl1 so1 rg1 (inj₂ (inj₂ refl)) img =
  rec-ck3 {s} {t} {s'} {b} {g} {C} {M} rt dk pk img

-- `pl-rec-crash-M`: a crash of PL's recovery keeps PL's crash relation
-- with the map named — recovery after a crashed recovery rebuilds the
-- map the first recovery would have
pl-rec-crash-M : ∀ {G s t s' M} → CRLM s t M → crashPL G Sp.recover s s' → CRLM s' t M
pl-rec-crash-M {G} {s} {t} {s'} {M} (b0 , g0 , C0 , pk0 , rt@(recto b1 g1 C1 pk1 sl1 so1 rs1 rg1 mx1 dm1 ro1) , dk)
               (b , g , C , pk , m , ck , img) with trans (sym pk0) pk | trans (sym pk1) pk
... | refl | refl = rec-go {s} {t} {s'} {b} {g} {C} {M} rt dk pk sl1 so1 rg1 ck img

-- `pl-rec-crash`: so a crash of PL's recovery from a state in `CRL` is
-- in `CRL`, S's state unchanged
pl-rec-crash : ∀ {G s t s'} → CRL s t → crashPL G Sp.recover s s' → Σ State λ t' → crashS Sp.recover t t' × CRL s' t'
pl-rec-crash {G} {s} {t} {s'} (b0 , g0 , C0 , pk0 , M , rt , dk) c =
  t , refl , crlm⇒crl {s'} {t} {M} (pl-rec-crash-M {G} {s} {t} {s'} {M} (b0 , g0 , C0 , pk0 , rt , dk) c)
