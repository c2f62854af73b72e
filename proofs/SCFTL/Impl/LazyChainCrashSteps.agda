{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the lazy chain: crashes at the end of PL's steps in the
-- chain phase, in PL's crash relation `CRL` (SCFTL.Impl.LazyChainCrash).
--
-- For each kind of PL step that writes no region page, a crash from its
-- end state (the crash point of `crashPL` that is the step itself, then
-- `Img`) is in `CRL` with the S state S's crash of that operation
-- allows, given the chain phase (`Phase`), AR and P's RI on the
-- virtually consolidated state before the step:
--
--   * `pl-es-crash`: GC's guarded erase;
--   * `pl-wr-crash`, `pl-rl-crash`: a write or relocation, unless it
--     wrote a tentative page after the consolidation page (then its
--     end state is returned, with the crash outcome), or the crash is
--     at the consolidation page's own crash point (`optLK`, returned);
--   * `pl-lazy-crash`: the lazy commit's end state (S's flush landed),
--     given P's `vOK` on the state before it (`VOKn`);
--   * `pl-fi2-crash-CRL`: the lazy commit's crash point before its
--     SYNC, when the walk does not take the crashed record (when it
--     does: P's `CRm` on the flash with the chain before the step,
--     returned, not moved to `CRL`).
--
-- Without a chain (P's RI): `free-reg-crash`: every crash point of PL's
-- write, relocation and erase (the consolidation page's included: there
-- is none) is the end state of one of P's, so its crashes are in `CRL`;
-- `free-kons-crash`: a flush's crash point before the consolidation
-- page's SYNC; `free-lazy-crash`: the lazy commit's crash points (the
-- chain phase started by `phase-start⁺`), but for the record taken by
-- the walk before the SYNC; `free-fi2-landed`: that one too
-- (`recto-follow` with its hypotheses derived on the crashed flash), so
-- `free-lazy-crash-CRL`: every crash point of the lazy commit from a
-- state with P's RI is in `CRL`.
--
-- The consolidation page's crash point with a chain: some hypotheses of
-- `recto-dead`/`recto-kons` derived on the crashed flash (`kons-exK`,
-- `kons-ex-virt`: the walks from the chain's last link take nothing;
-- `top-okC`, `kons-ea`: the newest record, without tentative pages, is
-- accepted, so is the virtual region as a whole; `recto-dead-nt`: the
-- torn page's second digest check from the first; `kons-recs`: `Recs`;
-- `kons-rp`: the region's replay ends with no pending epoch;
-- `recto-kons-crash`, `recto-dead-crash`: `recto-kons`, `recto-dead`
-- with all of them; `kons-img`: the crash outcome split into one of the
-- state before the page and the page's cell).
--
-- Not proven here: the lazy commit's crash point with the record taken
-- by the walk over a nonempty chain (SCFTL.Impl.LazyChainCrashLazy:
-- `pl-fi2-landed`, `pl-lazy-crash-CRL`), the consolidation page's crash point
-- with a chain in `CRL` (the other hypotheses of `recto-dead`/`recto-kons`), the
-- end state of a step that writes a tentative page after a nonempty
-- chain's consolidation page, P's own crash points inside a flush,
-- recovery's own crashes, and the assembly of Theorem 1 for PL.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ; zero; suc; _≤_; _<_; _≡ᵇ_)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.LazyChainCrashSteps (Data : Set) (d0 : Data) (amax wmax kmax : ℕ)
                                      (_≟D_ : DecidableEquality Data) (kc : ℕ) where

open import Data.Bool.Base using (Bool; true; false; _∧_)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂; [_,_]′)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; AR; DOKs)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (tF)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (reg-stable; reg-sim; reg-crashS)
open import SCFTL.Impl.LazyChainKons Data d0 amax wmax kmax _≟D_ kc using (ri-chain-free; konsS-free)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (free-crash-CRL)
open import Data.Empty using (⊥-elim)
open import Data.Nat.Properties using (<⇒≤; ≤-trans; ≤-refl)
open import Relation.Binary.PropositionalEquality using (_≢_)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (recto-follow)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (recto-dead; Dead)
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_ using (CInv)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (Ver; _∷_)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (Recs; []; LayP; end; rec∷)
open import Data.Unit.Base using (tt)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (kons)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (recto-kons)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (acc-top)
open import SCFTL.Impl.LazyChainRegion Data d0 amax wmax kmax _≟D_ kc using (ri-crash-acc)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (ver-crash)
open import SCFTL.Impl.LazyChainSteps Data d0 amax wmax kmax _≟D_ kc using (lay-last)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (map-cur-++)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (recto; RecTo)
open import SCFTL.Impl.LazyChainRegion Data d0 amax wmax kmax _≟D_ kc using (RInv; crashL-syn)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (map-cur-syn; upd-other; seek-none; <⇒≢)
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_ using (ch-abv; ch-enx; ch-rdu)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (rv)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (fiL)
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_ using (VOKn)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainStable Data d0 amax wmax kmax _≟D_ kc using (rv-snoc)
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc
open import SCFTL.Impl.LazyChainVirtual Data d0 amax wmax kmax _≟D_ kc using (virt-es; virt-wr; virt-rl; virt-lazy; ar-virt)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (CRL; phase-crash-CRL; img-virt)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc
  using (CRLS; crls⇒crl; crls-of; crls-stable; crls-≐; phase-crash-CRLM; free-crash-CRLM; CRLM; crlm⇒crl)
open import SCFTL.Impl.LazyChainVirtual Data d0 amax wmax kmax _≟D_ kc using (rec-virt)
open import SCFTL.Impl.LazyChainInv Data d0 amax wmax kmax _≟D_ using (cinv-fi2-crash)
open import SCFTL.Impl.LazyChainSteps Data d0 amax wmax kmax _≟D_ kc using (lazy-pos; lazy-room)
open import SCFTL.Impl.LazyChainRegion Data d0 amax wmax kmax _≟D_ kc using (ri-acc; ri-fi2-acc)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (follow; fol)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (Rof; Dof)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (fi2-crash⁺; CRm; CRm⇒CR)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (CR; crashC-eq)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (pick-slot; crashC-PM)
open import Data.Unit.Base using (tt)
open import Data.Maybe.Base using (Maybe; just; nothing)
import SCFTL.Spec Data d0 amax wmax as Sp
open Sp using (State; Addr; stable; volatile; crashS; use; flush; w; rl; es) renaming (reg to regop)

------------------------------------------------------------------------
-- Helpers

-- `CRL` depends on the S state through its stable image only
crl-stable : ∀ {s t t'} → stable t ≡ stable t' → CRL s t → CRL s t'
crl-stable {s} e (b , g , C , pk , M , rt , dk) =
  b , g , C , pk , M , rt , subst (DOKs (dat (virt (walkG g s) s)) M) e dk

-- a crash from a state of the chain phase with P's RI on its virtually
-- consolidated state, abstracting an S state with t's stable image
-- (`crash-end-M`: recovery rebuilding the state's stable L2P)
crash-end-M : ∀ {m s' t t'} (ph : Phase m) → AR m t' → RI (virt (rv (ph-rs ph)) m) → stable t' ≡ stable t →
              Img m s' → CRLS s' t m
crash-end-M {m} {s'} {t} {t'} ph arr r e img =
  crls-stable {s'} {t'} {t} {m} e (crls-of {s'} {t'} {m} (phase-crash-CRLM {m} {s'} {t'} ph arr r img))

crash-end : ∀ {m s' t t'} (ph : Phase m) → AR m t' → RI (virt (rv (ph-rs ph)) m) → stable t' ≡ stable t →
            Img m s' → CRL s' t
crash-end {m} {s'} {t} {t'} ph arr r e img = crls⇒crl {s'} {t} {m} (crash-end-M {m} {s'} {t} {t'} ph arr r e img)

------------------------------------------------------------------------
-- GC's guarded erase

-- (`pl-es-crls`: recovery rebuilding the stable L2P of the state
-- before the erase)
pl-es-crls : ∀ {s t s'} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) →
             crashPL EraseGuard (use (regop es)) s s' → CRLS s' t s
pl-es-crls {s} {t} {s'} ph arr r (m , okm@(p , e , gd , refl) , img)
  with virt-es {rv (ph-rs ph)} {s} {m} {t} arr r okm
... | t'' , st , ar'' , r'' = crash-end-M {m} {s'} {t} {t''} (phase-es ph okm) ar'' r'' (reg-stable es st) img

pl-es-crash : ∀ {s t s'} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) →
              crashPL EraseGuard (use (regop es)) s s' →
              Σ State λ t' → crashS (use (regop es)) t t' × CRL s' t'
pl-es-crash {s} {t} {s'} ph arr r c = t , refl , crls⇒crl {s'} {t} {s} (pl-es-crls {s} {t} {s'} ph arr r c)

------------------------------------------------------------------------
-- Writes and relocations

-- the chain phase after a write or relocation keeps its records
phase-wr-rs : ∀ {G s s' a d} (ph : Phase s) (st : okPL G (use (regop (w a d))) s s') →
              [ (λ (q : Phase s') → ph-rs q) , (λ _ → ph-rs ph) ]′ (phase-wr {G} {s} {s'} {a} {d} ph st) ≡ ph-rs ph
phase-wr-rs ph (inj₁ (_ , f1 , false , refl)) = refl
phase-wr-rs ph (inj₁ (_ , f1 , true , refl))  = refl
phase-wr-rs ph (inj₂ (_ , refl))              = refl

phase-rl-rs : ∀ {G s s'} (ph : Phase s) (st : okPL G (use (regop rl)) s s') →
              [ (λ (q : Phase s') → ph-rs q) , (λ _ → ph-rs ph) ]′ (phase-rl {G} {s} {s'} ph st) ≡ ph-rs ph
phase-rl-rs ph (inj₁ (_ , p , _ , inj₁ (_ , f1 , false , refl))) = refl
phase-rl-rs ph (inj₁ (_ , p , _ , inj₁ (_ , f1 , true , refl)))  = refl
phase-rl-rs ph (inj₁ (_ , p , _ , inj₂ (_ , refl)))              = refl
phase-rl-rs ph (inj₂ (_ , refl))                                 = refl

-- what is left of a write's crash points: its end state with a
-- tentative page after the consolidation page, or the consolidation
-- page's crash point before its SYNC
WrLeft : Addr → Data → St → St → Set
WrLeft a d s s' = Σ St λ m →
  ((Σ Bool λ f1 → m ≡ emitT (konsS (optP f1 (wr0 a d s))))
   ⊎ (Σ Bool λ f1 → Σ Bool λ f2 → optLK f1 f2 (wr0 a d s) m)) × Img m s'

RlLeft : St → St → Set
RlLeft s s' = Σ St λ m →
  ((Σ ℕ λ p → Σ Bool λ f1 → m ≡ emitT (konsS (optP f1 (rl0 p s))))
   ⊎ (Σ ℕ λ p → Σ Bool λ f1 → Σ Bool λ f2 → optLK f1 f2 (rl0 p s) m)) × Img m s'

-- `pl-wr-crash`: a crash of a write of the chain phase is in `CRL`, but
-- for the crash points left
pl-wr-crash : ∀ {G s t s' a d} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) →
              crashPL G (use (regop (w a d))) s s' →
              (Σ State λ t' → crashS (use (regop (w a d))) t t' × CRL s' t') ⊎ WrLeft a d s s'
pl-wr-crash {G} {s} {t} {s'} {a} {d} ph arr r (m , inj₁ okm , img)
  with virt-wr {G} {rv (ph-rs ph)} {s} {m} {t} arr r okm | phase-wr {G} {s} {m} {a} {d} ph okm | phase-wr-rs {G} {s} {m} {a} {d} ph okm
... | inj₂ e                       | _         | _  = inj₂ (m , inj₁ e , img)
... | inj₁ _                       | inj₂ e    | _  = inj₂ (m , inj₁ e , img)
... | inj₁ (t'' , st , ar'' , r'') | inj₁ ph'  | eq =
  inj₁ (t , refl , crash-end {m} {s'} {t} {t''} ph' ar''
                     (subst (λ rs → RI (virt (rv rs) m)) (sym eq) r'') (reg-stable (w a d) st) img)
pl-wr-crash ph arr r (m , inj₂ (_ , f1 , f2 , k) , img) = inj₂ (m , inj₂ (f1 , f2 , k) , img)

-- `pl-rl-crash`: a crash of a relocation of the chain phase
pl-rl-crash : ∀ {G s t s'} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) →
              crashPL G (use (regop rl)) s s' →
              (Σ State λ t' → crashS (use (regop rl)) t t' × CRL s' t') ⊎ RlLeft s s'
pl-rl-crash {G} {s} {t} {s'} ph arr r (m , inj₁ okm , img)
  with virt-rl {G} {rv (ph-rs ph)} {s} {m} {t} arr r okm | phase-rl {G} {s} {m} ph okm | phase-rl-rs {G} {s} {m} ph okm
... | inj₂ e                       | _         | _  = inj₂ (m , inj₁ e , img)
... | inj₁ _                       | inj₂ e    | _  = inj₂ (m , inj₁ e , img)
... | inj₁ (t'' , st , ar'' , r'') | inj₁ ph'  | eq =
  inj₁ (t , refl , crash-end {m} {s'} {t} {t''} ph' ar''
                     (subst (λ rs → RI (virt (rv rs) m)) (sym eq) r'') (reg-stable rl st) img)
pl-rl-crash ph arr r (m , inj₂ (_ , p , _ , _ , f1 , f2 , k) , img) = inj₂ (m , inj₂ (p , f1 , f2 , k) , img)

------------------------------------------------------------------------
-- The lazy commit's end state

-- `pl-lazy-crash`: a crash at the end of the lazy commit (its SYNC
-- done) is in `CRL` with S's flush landed
-- (`pl-lazy-crls`: recovery rebuilding the stable L2P after the commit)
pl-lazy-crls : ∀ {s t s' M m} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → VOKn s →
               Lazy s M → m ≡ fiL M s → Img m s' → CRLS s' (tF t) (fiL M s)
pl-lazy-crls {s} {t} {s'} {M} ph arr r vo lz refl img with virt-lazy {rv (ph-rs ph)} {s} {t} {M} arr r lz
... | ar' , r' =
  crash-end-M {fiL M s} {s'} {tF t} {tF t} (phase-lazy vo ph lz) ar'
              (subst (λ vs → RI (virt vs (fiL M s))) (sym (rv-snoc (ph-rs ph) (rec s))) r') refl img

pl-lazy-crash : ∀ {s t s' M m} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → VOKn s →
                Lazy s M → m ≡ fiL M s → Img m s' →
                Σ State λ t' → crashS (use flush) t t' × CRL s' t'
pl-lazy-crash {s} {t} {s'} {M} {m} ph arr r vo lz e img =
  tF t , inj₁ refl , crls⇒crl {s'} {tF t} {fiL M s} (pl-lazy-crls {s} {t} {s'} {M} {m} ph arr r vo lz e img)

------------------------------------------------------------------------
-- The lazy commit's crash point before its SYNC

-- P's `fi2` does not read the region
fi2-virt : ∀ vs M s → fi2 M (virt vs s) ≡ virt vs (fi2 M s)
fi2-virt vs M s = cong F (rec-virt vs s)
  where
    F : Cell → St
    F c = record (virt vs (fi2 M s)) { rcd = rcd s [ M ≔ put c (rcd s M) ] }

-- P's commit check for the lazy commit on the virtual state
lazy-LkC : ∀ {vs s M} → Lazy s M → Σ ℕ λ L → LkC (virt vs s) L M
lazy-LkC {vs} {s} {M} (_ , inj₁ ip)       = M , InP⇒LkC {virt vs s} {M} ip
lazy-LkC {vs} {s} {M} (_ , inj₂ (L , op)) = L , OobP⇒LkC {virt vs s} {L} {M} op

-- `phase-fi2-walk`: at the lazy commit's crash point the walk finds
-- the whole chain, or the chain with the crashed record
phase-fi2-walk : ∀ {s s' M} (ph : Phase s) → Lazy s M → Img (fi2 M s) s' →
                 walkG (gen s) s' ≡ rv (ph-rs ph) ⊎ walkG (gen s) s' ≡ rec s ∷ rv (ph-rs ph)
phase-fi2-walk {s} {s'} {M} (phase C x L y E rs rest c M0 z ci si ri lk e) lz img with lazy-pos ci lz
... | le , lt , mn = go (cinv-fi2-crash {kc} {s} {s'} {x} {L} {rs} {y} {E} {M} le lt mn (lazy-room ci hr lz) ci img)
  where
    hr = trans (cong lkOf (ri-acc ri)) lk
    F = follow kc (gen s) (Rof s') (Dof s')
    top : walkG (gen s) s' ≡ F (just (x , L))
    top = cong F (trans (cong lkOf (ri-fi2-acc {s} {s'} {c} {rest} M ri img)) lk)
    go : F (just (x , L)) ≡ rv rs ⊎ F (just (x , L)) ≡ rv (rs ++ rec s ∷ []) →
         walkG (gen s) s' ≡ rv rs ⊎ walkG (gen s) s' ≡ rec s ∷ rv rs
    go (inj₁ e') = inj₁ (trans top e')
    go (inj₂ e') = inj₂ (trans top (trans e' (rv-snoc rs (rec s))))

-- `pl-fi2-crash-CRL`: a crash right before the lazy commit's SYNC is in
-- `CRL` when the walk does not take the crashed record (its slot old or
-- junk, or its digest failing); otherwise the walk takes it and P's
-- crash relation holds on the flash with the chain before the step on
-- the region (P's `fi2-crash⁺` on the virtual state), what
-- `recto-follow` would move (its hypotheses not derived here)
-- (`pl-fi2-crash-CRLM`: with the map named, the stable or the volatile
-- L2P of the state before the commit, P's `CRm`)
pl-fi2-crash-CRLM : ∀ {s t s' M} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → Lazy s M →
                    Img (fi2 M s) s' →
                    (Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × (M' ≡ smap s ⊎ M' ≡ l2p s))
                  ⊎ (walkG (gen s) s' ≡ rec s ∷ rv (ph-rs ph) ×
                     (Σ State λ t' → crashS (use flush) t t' × CRm (virt (rv (ph-rs ph)) s) (virt (rv (ph-rs ph)) s') t'))
pl-fi2-crash-CRLM {s} {t} {s'} {M} ph arr r lz img@(cD , cL , cO , cR , cI) with lazy-LkC {rv (ph-rs ph)} {s} {M} lz
... | L , lkc with fi2-crash⁺ {virt (rv (ph-rs ph)) s} {t} {virt (rv (ph-rs ph)) s'} {L} {M} (ar-virt arr) r lkc
                     (subst (λ u → Img u (virt (rv (ph-rs ph)) s')) (sym (fi2-virt (rv (ph-rs ph)) M s))
                            (img-virt (rv (ph-rs ph)) {fi2 M s} {s'} img))
                 | phase-fi2-walk {s} {s'} {M} ph lz img
... | t' , c , (M' , e , rt , dk) | inj₁ wk =
  inj₁ (t' , c , M' , (true , gen s , RI.C r , pick-slot true s' (gen s) (RI.C r) sl' so' ,
                       subst (λ us → RecTo (virt us s') M') (sym wk) rt , dk) , e)
  where
    sl' = crashC-eq (RI.slotL r) cL
    so' = crashC-PM tt cO (RI.slotO r)
... | t' , c , cm | inj₂ wk = inj₂ (wk , t' , c , cm)

-- `pl-fi2-crash-CRL`: a crash right before the lazy commit's SYNC is in
-- `CRL` when the walk does not take the crashed record (its slot old or
-- junk, or its digest failing); otherwise the walk takes it and P's
-- crash relation holds on the flash with the chain before the step on
-- the region (P's `fi2-crash⁺` on the virtual state), what
-- `recto-follow` would move (its hypotheses not derived here)
pl-fi2-crash-CRL : ∀ {s t s' M} (ph : Phase s) → AR s t → RI (virt (rv (ph-rs ph)) s) → Lazy s M →
                   Img (fi2 M s) s' →
                   (Σ State λ t' → crashS (use flush) t t' × CRL s' t')
                 ⊎ (walkG (gen s) s' ≡ rec s ∷ rv (ph-rs ph) ×
                    (Σ State λ t' → crashS (use flush) t t' × CRm (virt (rv (ph-rs ph)) s) (virt (rv (ph-rs ph)) s') t'))
pl-fi2-crash-CRL {s} {t} {s'} {M} ph arr r lz img with pl-fi2-crash-CRLM {s} {t} {s'} {M} ph arr r lz img
... | inj₁ (t' , c , M' , cm , _) = inj₁ (t' , c , crlm⇒crl {s'} {t'} {M'} cm)
... | inj₂ x = inj₂ x

------------------------------------------------------------------------
-- Without a chain: every crash point of PL's write, relocation and
-- erase is the end state of one of P's, so its crashes are in `CRL`

-- `konsI-free`: without a chain the consolidation page's crash point is
-- the state itself
konsI-free : ∀ {s} → chainOf s ≡ [] → konsI s ≡ s
konsI-free {s} e = cong (λ cs → konsP (konsFor (gen s) cs) s) e

free-pt-w : ∀ {G s t m a d} → AR s t → RI s →
            (okPL G (use (regop (w a d))) s m ⊎ (InB a s × Σ Bool λ f1 → Σ Bool λ f2 → optLK f1 f2 (wr0 a d s) m)) →
            okP (use (regop (w a d))) s m
free-pt-w arr r (inj₁ (inj₁ (ib , f1 , false , refl))) = inj₁ (ib , f1 , false , refl)
free-pt-w {s = s} {a = a} {d} arr r (inj₁ (inj₁ (ib , f1 , true , refl)))
  with reg-sim (w a d) arr r (inj₁ (ib , f1 , false , refl))
... | _ , _ , _ , r1 = inj₁ (ib , f1 , true , cong emitT (konsS-free {optP f1 (wr0 a d s)} (ri-chain-free r1)))
free-pt-w arr r (inj₁ (inj₂ (nb , refl))) = inj₂ (nb , refl)
free-pt-w {s = s} {a = a} {d} arr r (inj₂ (ib , f1 , true , refl))
  with reg-sim (w a d) arr r (inj₁ (ib , f1 , false , refl))
... | _ , _ , _ , r1 = inj₁ (ib , f1 , false , konsI-free {optP f1 (wr0 a d s)} (ri-chain-free r1))
free-pt-w arr r (inj₂ (ib , f1 , false , ()))

free-pt-rl : ∀ {G s t m} → AR s t → RI s →
             (okPL G (use (regop rl)) s m
              ⊎ (gcnt s ≤ kmax × Σ ℕ λ p → p < nxt s × Valid s p × Σ Bool λ f1 → Σ Bool λ f2 → optLK f1 f2 (rl0 p s) m)) →
             okP (use (regop rl)) s m
free-pt-rl arr r (inj₁ (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl)))) = inj₁ (k , p , lt , inj₁ (v , f1 , false , refl))
free-pt-rl {s = s} arr r (inj₁ (inj₁ (k , p , lt , inj₁ (v , f1 , true , refl))))
  with reg-sim rl arr r (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl)))
... | _ , _ , _ , r1 = inj₁ (k , p , lt , inj₁ (v , f1 , true , cong emitT (konsS-free {optP f1 (rl0 p s)} (ri-chain-free r1))))
free-pt-rl arr r (inj₁ (inj₁ (k , p , lt , inj₂ (nv , refl)))) = inj₁ (k , p , lt , inj₂ (nv , refl))
free-pt-rl arr r (inj₁ (inj₂ (nk , refl))) = inj₂ (nk , refl)
free-pt-rl {s = s} arr r (inj₂ (k , p , lt , v , f1 , true , refl))
  with reg-sim rl arr r (inj₁ (k , p , lt , inj₁ (v , f1 , false , refl)))
... | _ , _ , _ , r1 = inj₁ (k , p , lt , inj₁ (v , f1 , false , konsI-free {optP f1 (rl0 p s)} (ri-chain-free r1)))
free-pt-rl arr r (inj₂ (k , p , lt , v , f1 , false , ()))

-- the crash point as the end state of P's operation
free-pt : ∀ {G} x {s t s'} → AR s t → RI s → crashPL G (use (regop x)) s s' →
          Σ St λ m → okP (use (regop x)) s m × Img m s'
free-pt {G} (w a d) {s} {t} arr r (m , pt , img) = m , free-pt-w {G} {s} {t} {m} arr r pt , img
free-pt {G} rl      {s} {t} arr r (m , pt , img) = m , free-pt-rl {G} {s} {t} {m} arr r pt , img
free-pt es      arr r (m , (p , e , _ , refl) , img) = m , (p , e , refl) , img

-- `free-reg-crash`: a crash of PL's write, relocation or erase from a
-- state with P's RI (no chain) is in `CRL`, S's state unchanged
-- (`free-reg-crls`: recovery rebuilding the stable L2P of the state
-- before the step, which P's steps but flush keep: `okP-smap`)
okP-smap : ∀ x {s m} → okP (use (regop x)) s m → ∀ a → smap m a ≡ smap s a
okP-smap (w a' d) {s} (inj₁ (_ , f1 , f2 , refl)) a = cong (λ f → f a) (smap-opt f1 f2 (wr0 a' d s))
okP-smap (w a' d) (inj₂ (_ , refl)) a = refl
okP-smap rl {s} (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , refl))) a = cong (λ f → f a) (smap-opt f1 f2 (rl0 p s))
okP-smap rl (inj₁ (_ , p , _ , inj₂ (_ , refl))) a = refl
okP-smap rl (inj₂ (_ , refl)) a = refl
okP-smap es (p , _ , refl) a = refl

free-reg-crls : ∀ {G} x {s t s'} → AR s t → RI s → crashPL G (use (regop x)) s s' → CRLS s' t s
free-reg-crls {G} x {s} {t} {s'} arr r c with free-pt {G} x arr r c
... | m , okm , img with reg-sim x arr r okm
...   | t'' , st , ar'' , r'' =
  crls-stable {s'} {t''} {t} {s} (reg-stable x st)
    (crls-≐ {s'} {t''} {m} {s} (okP-smap x okm) (crls-of {s'} {t''} {m} (free-crash-CRLM {m} {s'} {t''} ar'' r'' img)))

free-reg-crash : ∀ {G} x {s t s'} → AR s t → RI s → crashPL G (use (regop x)) s s' →
                 Σ State λ t' → crashS (use (regop x)) t t' × CRL s' t'
free-reg-crash {G} x {s} {t} {s'} arr r c = t , reg-crashS x t , crls⇒crl {s'} {t} {s} (free-reg-crls {G} x {s} {t} {s'} arr r c)

-- `free-kons-crash`: a flush's first crash point (before the
-- consolidation page's SYNC) from a state with P's RI: there is no page,
-- the crash is one of the state itself, S's flush not landed
free-kons-crls : ∀ {s t s' m} → AR s t → RI s → m ≡ konsI s → Img m s' → CRLS s' t s
free-kons-crls {s} {t} {s'} {m} arr r e img =
  crls-of {s'} {t} {s} (free-crash-CRLM {s} {s'} {t} arr r (subst (λ u → Img u s') (trans e (konsI-free {s} (ri-chain-free r))) img))

free-kons-crash : ∀ {s t s' m} → AR s t → RI s → m ≡ konsI s → Img m s' →
                  Σ State λ t' → crashS (use flush) t t' × CRL s' t'
free-kons-crash {s} {t} {s'} {m} arr r e img = t , inj₂ refl , crls⇒crl {s'} {t} {s} (free-kons-crls {s} {t} {s'} {m} arr r e img)

-- the lazy commit from a state with P's RI starts the chain phase with
-- an empty chain
free-lazy-ph : ∀ {s M} → RI s → Lazy s M → Σ (Phase s) λ ph → ph-rs ph ≡ []
free-lazy-ph r (_ , inj₁ (ln , et , lt , _)) = phase-start⁺ r ln et (<⇒≤ lt)
free-lazy-ph {s} {M} r (_ , inj₂ (L , op)) with OobP⇒LkC {s} {L} {M} op
... | ln , et , le , mn , _ = phase-start⁺ r ln et (≤-trans le (<⇒≤ mn))

-- (`free-fi2-crash-M`: the crash point before the SYNC with the map
-- named)
free-fi2-crash-M : ∀ {s t s' M} → AR s t → RI s → Lazy s M → Img (fi2 M s) s' →
                   (Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × (M' ≡ smap s ⊎ M' ≡ l2p s))
                 ⊎ (walkG (gen s) s' ≡ rec s ∷ [] × (Σ State λ t' → crashS (use flush) t t' × CRm s s' t'))
free-fi2-crash-M {s} {t} {s'} {M} arr r lz img with free-lazy-ph r lz
... | ph , e with pl-fi2-crash-CRLM ph arr (subst (λ rs → RI (virt (rv rs) s)) (sym e) r) lz img
...   | inj₁ x = inj₁ x
...   | inj₂ (wk , rest) =
  inj₂ (subst (λ rs → walkG (gen s) s' ≡ rec s ∷ rv rs) e wk ,
        subst (λ rs → Σ State λ t' → crashS (use flush) t t' × CRm (virt (rv rs) s) (virt (rv rs) s') t') e rest)

-- `free-lazy-crash`: the lazy commit's crash points from a state with
-- P's RI: in `CRL`, but for the record taken by the walk before the
-- SYNC (then the walk is that record alone, P's `CRm` on the flash)
free-lazy-crash : ∀ {s t s' M m} → AR s t → RI s → VOKn s → Lazy s M → (m ≡ fi2 M s ⊎ m ≡ fiL M s) → Img m s' →
                  (Σ State λ t' → crashS (use flush) t t' × CRL s' t')
                ⊎ (walkG (gen s) s' ≡ rec s ∷ [] × (Σ State λ t' → crashS (use flush) t t' × CRm s s' t'))
free-lazy-crash {s} {t} {s'} {M} arr r vo lz (inj₂ refl) img with free-lazy-ph r lz
... | ph , e = inj₁ (pl-lazy-crash ph arr (subst (λ rs → RI (virt (rv rs) s)) (sym e) r) vo lz refl img)
free-lazy-crash {s} {t} {s'} {M} arr r vo lz (inj₁ refl) img with free-fi2-crash-M {s} {t} {s'} {M} arr r lz img
... | inj₁ (t' , c , M' , cm , _) = inj₁ (t' , c , crlm⇒crl {s'} {t'} {M'} cm)
... | inj₂ x = inj₂ x

------------------------------------------------------------------------
-- The record taken by the walk, without a chain: `recto-follow`'s
-- hypotheses derived

++-single : ∀ (xs : List Cell) {c : Cell} {cs : List Cell} {r : Cell} → xs ++ c ∷ cs ≡ r ∷ [] → _≡_ {A = List Cell} (c ∷ cs) (r ∷ [])
++-single []           e  = e
++-single (x ∷ [])     ()
++-single (x ∷ y ∷ xs) ()

fol-inv : ∀ k g R D es r → fol k g R D es ≡ r ∷ [] → es ≡ r ∷ []
fol-inv k g R D []       r ()
fol-inv k g R D (c ∷ cs) r e = ++-single (follow k g R D (lkOf (c ∷ cs))) {c} {cs} {r} e

follow-inv : ∀ k g R D l r → follow k g R D l ≡ r ∷ [] → extM g R D l ≡ r ∷ []
follow-inv zero    g R D l r ()
follow-inv (suc k) g R D l r e = fol-inv k g R D (extM g R D l) r e

extM-okR : ∀ g R D x L c → extM g R D (just (x , L)) ≡ c ∷ [] → okR g (suc x) D c ≡ true
extM-okR g R D x L c e with seek g omax R L
... | nothing = ⊥-elim (nil≢ e)
  where
    nil≢ : [] ≡ c ∷ [] → Data.Empty.⊥
    nil≢ ()
... | just q with okR g (suc x) D (R q) in ok
...   | true  = subst (λ d → okR g (suc x) D d ≡ true) (cong hd e) ok
  where
    hd : List Cell → Cell
    hd []      = junk
    hd (d ∷ _) = d
...   | false = ⊥-elim (nil≢ e)
  where
    nil≢ : [] ≡ c ∷ [] → Data.Empty.⊥
    nil≢ ()

okC-okR : ∀ g D h y ps dd dt E z X → dt ≡ [] → ((h ≡ᵇ g) ∧ (y ≡ᵇ z) ∧ verD D dd) ≡ true →
          okC g D (dlt h y ps true (dd , dt , E)) X ≡ true
okC-okR g D h y ps dd .[] E z X refl e with h ≡ᵇ g | y ≡ᵇ z | verD D dd
... | true | true | true = refl
... | true | true | false = e
... | true | false | _ = ⊥-elim (f≢t e)
  where
    f≢t : false ≡ true → Data.Empty.⊥
    f≢t ()
... | false | _ | _ = ⊥-elim (f≢t e)
  where
    f≢t : false ≡ true → Data.Empty.⊥
    f≢t ()

lazy-et : ∀ {s M} → Lazy s M → ept s ≡ []
lazy-et (_ , inj₁ (_ , et , _))    = et
lazy-et {s} {M} (_ , inj₂ (L , op)) = proj₁ (proj₂ (OobP⇒LkC {s} {L} {M} op))

-- `free-fi2-landed`: the lazy commit's crash point before its SYNC from
-- a state with P's RI, the record taken by the walk: P's `CRm` moved to
-- the flash with the record on the region (`recto-follow`)
private
  pick-bg : ∀ {b g C b' g' C'} → _≡_ {A = Maybe (Bool × ℕ × Map)} (just (b , g , C)) (just (b' , g' , C')) → b ≡ b' × g ≡ g'
  pick-bg refl = refl , refl

-- `free-fi2-landed′`: the same, P's `RecTo` on the crashed flash in the
-- live slot and the state's generation
free-fi2-landed′ : ∀ {s s' M t' M'} → RI s → Lazy s M → Img (fi2 M s) s' → walkG (gen s) s' ≡ rec s ∷ [] →
                   (rt : RecTo s' M') → RecTo.b rt ≡ true → RecTo.g rt ≡ gen s → DOKs (dat s') M' (stable t') → CRLM s' t' M'
free-fi2-landed′ {s} {s'} {M} {t'} {M'} r lz img@(cD , cL , cO , cR , cI) wk (recto b g C pk sl so rs rg mx dm ro) refl refl dk =
  true , gen s , C , pk ,
  subst (λ vs → RecTo (virt vs s') M') (sym wk)
        (recto-follow {[]} {s'} {M'} {rec s} (recto true (gen s) C pk sl so rs rg mx dm ro) ea ex ok ex' ≤-refl) , dk
  where
    ph = proj₁ (free-lazy-ph r lz)
    ci = ph-cinv ph
    G = gen s
    D' = Dof s'
    R' = Rof s'
    X = map cur (dr s')
    X≡ : X ≡ ph-c ph ∷ ph-rest ph
    X≡ = trans (cong (map cur) (crashL-syn (ph-c ph ∷ ph-rest ph) (subst (λ l → CrashL l (dr s')) (RInv.r-eq (ph-rinv ph)) cR)))
               (map-cur-syn (ph-c ph ∷ ph-rest ph))
    ea : acc G D' X ≡ X
    ea = trans (ri-fi2-acc {s} {s'} {ph-c ph} {ph-rest ph} M (ph-rinv ph) img) (sym X≡)
    lkX : lkOf X ≡ just (ph-x ph , ph-L ph)
    lkX = trans (cong lkOf X≡) (ph-lk ph)
    ex : extM G R' D' (lkOf X) ≡ rec s ∷ []
    ex = follow-inv kc G R' D' (lkOf X) (rec s) (trans (cong (λ l → follow kc G R' D' (lkOf l)) (sym ea)) wk)
    okr : okR G (suc (ph-x ph)) D' (rec s) ≡ true
    okr = extM-okR G R' D' (ph-x ph) (ph-L ph) (rec s) (trans (cong (extM G R' D') (sym lkX)) ex)
    ok : okC G D' (rec s) X ≡ true
    ok = okC-okR G D' (gen s) (ep s) (dbuf s) (proj₁ (dgOf s)) (ept s) (nxt s) (suc (ph-x ph)) X (lazy-et {s} {M} lz) okr
    mn : M < nxt s
    mn = proj₂ (proj₂ (lazy-pos {s} {M} ci lz))
    cur-eq : ∀ p → nxt s ≤ p → cur (rcd s' p) ≡ cur (rcd s p)
    cur-eq p le = cong cur (crashC-eq (trans (upd-other (rcd s) (put (rec s) (rcd s M)) ne) (ch-rdu ci p)) (cI p))
      where
        ne : p ≢ M
        ne e = <⇒≢ (≤-trans mn le) (sym e)
    ab : Above G R' (nxt s)
    ab p le = subst (RLt G) (sym (cur-eq p le)) (ch-abv ci p (≤-trans (ch-enx ci) le))
    ex' : extM G R' D' (lkOf (rec s ∷ X)) ≡ []
    ex' = cong (extS G R' D' (ep s)) (seek-none G omax R' (nxt s) ab)

-- (`free-fi2-landed-M`: with the map named, CRm's)
free-fi2-landed-M : ∀ {s s' M t'} → RI s → Lazy s M → Img (fi2 M s) s' → walkG (gen s) s' ≡ rec s ∷ [] →
                    (cm : CRm s s' t') → CRLM s' t' (proj₁ cm)
free-fi2-landed-M {s} {s'} {M} {t'} r lz img@(cD , cL , cO , cR , cI) wk (M' , _ , rt , dk) =
  free-fi2-landed′ {s} {s'} {M} {t'} {M'} r lz img wk rt (proj₁ (pick-bg eq)) (proj₂ (pick-bg eq)) dk
  where
    eq = trans (sym (RecTo.pk rt)) (pick-slot true s' (gen s) (RI.C r) (crashC-eq (RI.slotL r) cL) (crashC-PM tt cO (RI.slotO r)))

free-fi2-landed : ∀ {s s' M t'} → RI s → Lazy s M → Img (fi2 M s) s' → walkG (gen s) s' ≡ rec s ∷ [] →
                  CRm s s' t' → CRL s' t'
free-fi2-landed {s} {s'} {M} {t'} r lz img wk cm = crlm⇒crl {s'} {t'} {proj₁ cm} (free-fi2-landed-M {s} {s'} {M} {t'} r lz img wk cm)

-- `free-fi2-M`: the lazy commit's crash point before its SYNC from a
-- state with P's RI, with the map named: the stable or the volatile L2P
free-fi2-M : ∀ {s t s' M} → AR s t → RI s → Lazy s M → Img (fi2 M s) s' →
             Σ State λ t' → crashS (use flush) t t' × Σ Map λ M' → CRLM s' t' M' × (M' ≡ smap s ⊎ M' ≡ l2p s)
free-fi2-M {s} {t} {s'} {M} arr r lz img with free-fi2-crash-M {s} {t} {s'} {M} arr r lz img
... | inj₁ x = x
... | inj₂ (wk , t' , c , cm) = t' , c , proj₁ cm , free-fi2-landed-M {s} {s'} {M} {t'} r lz img wk cm , proj₁ (proj₂ cm)

-- `free-lazy-crash-CRL`: every crash point of the lazy commit from a
-- state with P's RI is in `CRL`
free-lazy-crash-CRL : ∀ {s t s' M m} → AR s t → RI s → VOKn s → Lazy s M → (m ≡ fi2 M s ⊎ m ≡ fiL M s) → Img m s' →
                      Σ State λ t' → crashS (use flush) t t' × CRL s' t'
free-lazy-crash-CRL {s} {t} {s'} {M} arr r vo lz (inj₁ refl) img with free-fi2-M {s} {t} {s'} {M} arr r lz img
... | t' , c , M' , cm , _ = t' , c , crlm⇒crl {s'} {t'} {M'} cm
free-lazy-crash-CRL {s} {t} {s'} {M} arr r vo lz (inj₂ refl) img with free-lazy-ph r lz
... | ph , e = pl-lazy-crash ph arr (subst (λ rs → RI (virt (rv rs) s)) (sym e) r) vo lz refl img

------------------------------------------------------------------------
-- Hypotheses of `recto-dead` and `recto-kons` derived (the consolidation
-- page's crash point with a chain)

-- `okC-nt`: a committed page without tentative pages (the lazy commit's
-- record, `lazy-et`; the consolidation page, `kons`) is accepted or not
-- whatever lies below it
okC-nt : ∀ g D h x ps dd E cs cs' →
         okC g D (dlt h x ps true (dd , [] , E)) cs ≡ okC g D (dlt h x ps true (dd , [] , E)) cs'
okC-nt g D h x ps dd E cs cs' = refl

-- `rec-okC`: so is the lazy commit's record
rec-okC : ∀ {s M} → Lazy s M → ∀ g D cs cs' → okC g D (rec s) cs ≡ okC g D (rec s) cs'
rec-okC {s} {M} lz g D cs cs' rewrite lazy-et {s} {M} lz = refl

-- `recto-dead-nt`: `recto-dead` for a newest record without tentative
-- pages, its second hypothesis derived from the first
recto-dead-nt : ∀ {h x ps dd E vs s M j} →
  (rt : RecTo (virt (dlt h x ps true (dd , [] , E) ∷ vs) s) M) → Dead j →
  okC (RecTo.g rt) (Dof s) (dlt h x ps true (dd , [] , E)) (vs ++ map cur (dr s)) ≡ true →
  RecTo (virt (dlt h x ps true (dd , [] , E) ∷ vs) (record s { dr = syn j ∷ dr s })) M
recto-dead-nt {h} {x} {ps} {dd} {E} {vs} {s} {M} {j} rt dj ok0 =
  recto-dead {dlt h x ps true (dd , [] , E)} {vs} {s} {M} {j} rt dj ok0
    (trans (okC-nt (RecTo.g rt) (Dof s) h x ps dd E (vs ++ j ∷ map cur (dr s)) (vs ++ map cur (dr s))) ok0)

-- `abv-crash`: the chain's invariant keeps nothing of the generation at or
-- past its last link E on every crash outcome
abv-crash : ∀ {k s s' x L rs y E} → CInv k s x L rs y E → Img s s' → Above (gen s) (Rof s') E
abv-crash {s = s} {s'} ci (_ , _ , _ , _ , cI) p le =
  subst (RLt (gen s)) (sym (cong cur (crashC-eq (ch-rdu ci p) (cI p)))) (ch-abv ci p le)

-- `ext-above`: the walk from a link with nothing of the generation at or
-- past it takes no record
ext-above : ∀ g R D y E → Above g R E → extM g R D (just (y , E)) ≡ []
ext-above g R D y E ab = cong (extS g R D y) (seek-none g omax R E ab)

-- `kons-exK`: `recto-kons`'s hypothesis on the consolidation page's link
-- (the chain's last link E), on every crash outcome of a state with the
-- chain's invariant
kons-exK : ∀ {k s s' x L rs y E} D → CInv k s x L rs y E → Img s s' → ∀ y' →
           extM (gen s) (Rof s') D (just (y' , E)) ≡ []
kons-exK {k} {s} {s'} {x} {L} {rs} {y} {E} D ci img y' = ext-above (gen s) (Rof s') D y' E (abv-crash {k} {s} {s'} {x} {L} {rs} {y} {E} ci img)

-- `kons-ex`: `recto-kons`'s hypothesis on the newest record's link (the
-- walk from the top of the virtually consolidated region takes nothing):
-- the newest record links to E, the chain's last link
kons-ex : ∀ {k s s' x L rs y E} D → CInv k s x L rs y E → Img s s' → rs ≢ [] → ∀ zs →
          extM (gen s) (Rof s') D (lkOf (rv rs ++ zs)) ≡ []
kons-ex {k} {s} {s'} {x} {L} {rs} {y} {E} D ci img ne zs =
  trans (cong (extM (gen s) (Rof s') D) (lay-last (CInv.ch-lay ci) ne zs))
        (kons-exK {k} {s} {s'} {x} {L} {rs} {y} {E} D ci img y)

-- the same on the virtually consolidated crashed flash, as `recto-kons`
-- states it
kons-ex-virt : ∀ {k s s' x L rs y E} D → CInv k s x L rs y E → Img s s' → rs ≢ [] →
               extM (gen s) (Rof s') D (lkOf (map cur (dr (virt (rv rs) s')))) ≡ []
kons-ex-virt {k} {s} {s'} {x} {L} {rs} {y} {E} D ci img ne =
  trans (cong (λ l → extM (gen s) (Rof s') D (lkOf l))
              (trans (map-cur-++ (map syn (rv rs)) (dr s')) (cong (_++ map cur (dr s')) (map-cur-syn (rv rs)))))
        (kons-ex {k} {s} {s'} {x} {L} {rs} {y} {E} D ci img ne (map cur (dr s')))

-- `ver-last`: the newest record of a verified chain verifies
ver-last : ∀ {g D x} rs c → Ver g D x (rs ++ c ∷ []) → Σ ℕ λ x' → okR g x' D c ≡ true
ver-last []       c (o ∷ _) = _ , o
ver-last (r ∷ rs) c (_ ∷ v) = ver-last rs c v

-- `okR-okC`: a record without tentative pages that the walk takes is a
-- committed page whose digest verifies, whatever lies below it
okR-okC : ∀ g x D h y ps dd E cs → okR g x D (dlt h y ps true (dd , [] , E)) ≡ true →
          okC g D (dlt h y ps true (dd , [] , E)) cs ≡ true
okR-okC g x D h y ps dd E cs o with h ≡ᵇ g | y ≡ᵇ x | verD D dd
... | true  | true  | true  = refl
... | true  | true  | false = o
... | true  | false | _     = ⊥-elim (f≢t o)
  where
    f≢t : false ≡ true → Data.Empty.⊥
    f≢t ()
... | false | _     | _     = o

-- `top-okC`: on every crash outcome of a state with the chain's
-- invariant, the newest record (without tentative pages) is accepted over
-- whatever lies below it: `recto-dead`'s first hypothesis
top-okC : ∀ {k s s' x L rs0 h y' ps dd E' y E} →
          CInv k s x L (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) y E → Img s s' → ∀ cs →
          okC (gen s) (Dof s') (dlt h y' ps true (dd , [] , E')) cs ≡ true
top-okC {k} {s} {s'} {x} {L} {rs0} {h} {y'} {ps} {dd} {E'} ci (cD , _) cs
  with ver-last rs0 (dlt h y' ps true (dd , [] , E')) (ver-crash (dat s) (dat s') cD (CInv.ch-dur ci) (CInv.ch-ver ci))
... | x' , o = okR-okC (gen s) x' (Dof s') h y' ps dd E' cs o

-- a record the region's acceptance check passes heads what it accepts
acc-ok1 : ∀ g D c X → okC g D c X ≡ true → acc g D (c ∷ X) ≡ c ∷ X
acc-ok1 g D c X e rewrite e = refl

-- `kons-ea`: `recto-kons`'s first hypothesis: the virtually consolidated
-- crashed region is accepted as a whole
kons-ea : ∀ {k s s' x L rs0 h y' ps dd E' y E} →
          CInv k s x L (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) y E → Img s s' →
          let vs = rv (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) in
          acc (gen s) (Dof s') (map cur (dr (virt vs s'))) ≡ map cur (dr (virt vs s'))
kons-ea {k} {s} {s'} {x} {L} {rs0} {h} {y'} {ps} {dd} {E'} {y} {E} ci img =
  trans (cong (acc (gen s) (Dof s')) e)
        (trans (acc-ok1 (gen s) (Dof s') tp (rv rs0 ++ map cur (dr s'))
                        (top-okC {k} {s} {s'} {x} {L} {rs0} {h} {y'} {ps} {dd} {E'} {y} {E} ci img (rv rs0 ++ map cur (dr s'))))
               (sym e))
  where
    tp = dlt h y' ps true (dd , [] , E')
    e : map cur (dr (virt (rv (rs0 ++ tp ∷ [])) s')) ≡ tp ∷ (rv rs0 ++ map cur (dr s'))
    e = trans (map-cur-++ (map syn (rv (rs0 ++ tp ∷ []))) (dr s'))
              (trans (cong (_++ map cur (dr s')) (map-cur-syn (rv (rs0 ++ tp ∷ []))))
                     (cong (_++ map cur (dr s')) (rv-snoc rs0 tp)))

-- `recs-++`, `lay-recs`: the chain's records, newest first, are committed
-- pages of the generation
recs-++ : ∀ {g a b} → Recs g a → Recs g b → Recs g (a ++ b)
recs-++ []       rb = rb
recs-++ (t ∷ ra) rb = t ∷ recs-++ ra rb

lay-recs : ∀ {g R x L rs y E} → LayP g R x L rs y E → Recs g (rv rs)
lay-recs end              = []
lay-recs (rec∷ _ _ _ lay) = recs-++ (lay-recs lay) (tt ∷ [])

-- `kons-recs`: `recto-kons`'s hypothesis `Recs` from the chain's invariant
kons-recs : ∀ {k s x L rs y E} → CInv k s x L rs y E → Recs (gen s) (rv rs)
kons-recs ci = lay-recs (CInv.ch-lay ci)

-- `kons-rp`: `recto-kons`'s hypothesis on the region's replay: on every
-- crash outcome of a state with the region's invariant, the region's
-- replay ends with no pending epoch
kons-rp : ∀ {s s' c rest} C → RInv s c rest → Img s s' →
          Σ Map λ M' → Σ ℕ λ z → rp (gen s) (map cur (dr s')) (st0 C) ≡ (M' , z , M')
kons-rp {s} {s'} {c} {rest} C ri img@(_ , _ , _ , cR , _) with acc-top (gen s) (Dof s') (map cur (dr s')) C
... | M , z , e = M , z , subst (λ l → rp (gen s) l (st0 C) ≡ (M , z , M)) (trans (ri-crash-acc {s} {s'} {c} {rest} ri img) (sym X≡)) e
  where
    X≡ : map cur (dr s') ≡ c ∷ rest
    X≡ = trans (cong (map cur) (crashL-syn (c ∷ rest) (subst (λ l → CrashL l (dr s')) (RInv.r-eq ri) cR)))
               (map-cur-syn (c ∷ rest))

snoc≢[] : ∀ (rs : List Cell) c → rs ++ c ∷ [] ≢ []
snoc≢[] []      c ()
snoc≢[] (_ ∷ _) c ()

-- `recto-kons-crash`: `recto-kons` with its hypotheses derived: on a
-- crash outcome s' of a state with the chain's and the region's
-- invariants (the newest record without tentative pages), P's `RecTo`
-- on the virtually consolidated crashed flash, in the state's
-- generation, moves to the crashed flash with the consolidation page
-- landed on top of the region
recto-kons-crash : ∀ {k s s' x L rs0 h y' ps dd E' y E c rest M} →
  CInv k s x L (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) y E → RInv s c rest → Img s s' →
  (rt : RecTo (virt (rv (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ [])) s') M) → RecTo.g rt ≡ gen s →
  RecTo (record s' { dr = syn (kons (RecTo.g rt) y ([] , [] , E) (rv (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []))) ∷ dr s' }) M
recto-kons-crash {k} {s} {s'} {x} {L} {rs0} {h} {y'} {ps} {dd} {E'} {y} {E} {c} {rest} {M} ci ri img rt eq
  with kons-rp {s} {s'} {c} {rest} (RecTo.C rt) ri img
... | M' , z , e =
  recto-kons {rv RSn} {s'} {M} {y} {E} {M'} {z} rt
    (subst (λ g → acc g (Dof s') (map cur (dr (virt (rv RSn) s'))) ≡ map cur (dr (virt (rv RSn) s'))) (sym eq)
           (kons-ea {k} {s} {s'} {x} {L} {rs0} {h} {y'} {ps} {dd} {E'} {y} {E} ci img))
    (subst (λ g → extM g (Rof s') (Dof s') (lkOf (map cur (dr (virt (rv RSn) s')))) ≡ []) (sym eq)
           (kons-ex-virt {k} {s} {s'} {x} {L} {RSn} {y} {E} (Dof s') ci img (snoc≢[] rs0 _)))
    (subst (λ g → extM g (Rof s') (Dof s') (just (y , E)) ≡ []) (sym eq)
           (kons-exK {k} {s} {s'} {x} {L} {RSn} {y} {E} (Dof s') ci img y))
    (subst (λ g → Recs g (rv RSn)) (sym eq) (kons-recs {k} {s} {x} {L} {RSn} {y} {E} ci))
    (subst (λ g → rp g (map cur (dr s')) (st0 (RecTo.C rt)) ≡ (M' , z , M')) (sym eq) e)
  where
    RSn = rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []

-- `recto-dead-crash`: `recto-dead` with its hypotheses derived: on a
-- crash outcome s' of a state with the chain's invariant (the newest
-- record without tentative pages), P's `RecTo` on the virtually
-- consolidated crashed flash, in the state's generation, moves to the
-- crashed flash with a torn or erased page under the records
recto-dead-crash : ∀ {k s s' x L rs0 h y' ps dd E' y E M j} →
  CInv k s x L (rs0 ++ dlt h y' ps true (dd , [] , E') ∷ []) y E → Img s s' → Dead j →
  (rt : RecTo (virt (dlt h y' ps true (dd , [] , E') ∷ rv rs0) s') M) → RecTo.g rt ≡ gen s →
  RecTo (virt (dlt h y' ps true (dd , [] , E') ∷ rv rs0) (record s' { dr = syn j ∷ dr s' })) M
recto-dead-crash {k} {s} {s'} {x} {L} {rs0} {h} {y'} {ps} {dd} {E'} {y} {E} {M} {j} ci img dj rt eq =
  recto-dead-nt {h} {y'} {ps} {dd} {E'} {rv rs0} {s'} {M} {j} rt dj
    (subst (λ g → okC g (Dof s') (dlt h y' ps true (dd , [] , E')) (rv rs0 ++ map cur (dr s')) ≡ true) (sym eq)
       (top-okC {k} {s} {s'} {x} {L} {rs0} {h} {y'} {ps} {dd} {E'} {y} {E} ci img (rv rs0 ++ map cur (dr s'))))

-- `kons-img`: a crash outcome of the consolidation page's crash point
-- (the page programmed, not synced) is a crash outcome of the state
-- before it with the page landed, or torn or erased, on top of the region
kons-img : ∀ {s s' K} → Img (konsP (just K) s) s' →
           Σ MC λ m → Σ (List MC) λ ds → dr s' ≡ m ∷ ds × Img s (record s' { dr = ds }) ×
           (m ≡ syn K ⊎ Σ Cell λ j → m ≡ syn j × Dead j)
kons-img {s} {s'} {K} (cD , cL , cO , cR , cI) with dr s' | cR
... | m ∷ ds | c ∷ cr = m , ds , refl , (cD , cL , cO , cr , cI) , out c
  where
    out : CrashC (uns erased K) m → (m ≡ syn K ⊎ Σ Cell λ j → m ≡ syn j × Dead j)
    out (inj₁ e)        = inj₂ (erased , e , inj₂ refl)
    out (inj₂ (inj₁ e)) = inj₁ e
    out (inj₂ (inj₂ e)) = inj₂ (junk , e , inj₁ refl)
