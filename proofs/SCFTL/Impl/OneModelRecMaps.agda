{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the map recovery rebuilds after a crash, at the level of
-- pages — first pieces of `RecoveredNamed`
-- (SCFTL.Impl.OneModelBlocksNamed), the lemma of PX that the block
-- layer's physical reads still take as given.
--
-- The crash relations of PX (PUSBic's `RecG`, PL's `CRL`) say what the
-- map recovery rebuilds *reads*; `RecoveredNamed` needs which pages it
-- *names*.  Here, for a power cut at a normal state of PX (the state's
-- flash crash image; in PUSBic's phase with the state's durable ghost),
-- which is the crash point at the end of every operation:
--
--   pl-rec-l2p       PL's recovery step rebuilds exactly the map P's
--                    `RecTo` names on the virtually consolidated flash
--                    (the walk in the generation recovery picks; as B
--                    over P used P's `RecTo`: SCFTL.Impl.BlocksPhys)
--   chain-crash-l2p, free-crash-l2p
--                    a power cut of a state with PL's invariant (the
--                    chain phase, or P's RI with no chain): any recovery
--                    rebuilds its stable L2P (through `CRLM`, below)
--   pu-cut-l2p       a power cut of a normal state of PUSBic's phase:
--                    any recovery (with the full checkpoint or without)
--                    rebuilds the map of the k-th unsynced epoch for some
--                    k (k = 0: the stable L2P) — the crash's parse is the
--                    one recovery reads (`parse-unique`), and its replay
--                    is that map (`recU-crash-mapBI`, SCFTL.Impl.UnsyncedBase)
--   Cut, cut-stab, cut-named
--                    so a recovery after a power cut at a normal state X
--                    names only pages X's stable L2P or an unsynced
--                    epoch's map names (`Stab`), hence only pages X named
--   px-stab          after any operation of PX those maps name only pages
--                    the state before it named (a write's or relocation's
--                    new page is in the volatile L2P alone; a flush makes
--                    the volatile L2P stable; a barrier adds it as an
--                    epoch's map)
--   end-named        `RecoveredNamed` for the crash point at the end of
--                    every operation: recovery after it names only pages
--                    the state before the operation named
--   pl-end           not vacuous: in the chain phase every crash at the
--                    end of PL's steps is such a crash point
--   Plain, plain-l2p, flush-plain-named
--                    the crash points inside a flush of the chain phase
--                    that are P's flush's (before its SYNC, after it,
--                    inside its full checkpoint; after the consolidation
--                    page): recovery rebuilds the stable or the volatile
--                    L2P the flush started from (B over P's `flush-maps`;
--                    PL's walk finds no record there), so it names only
--                    pages the state before the flush named
--   chain-crlm, free-crlm, ril-crlm, AgainL, again-crlm, crlm-l2p,
--   chain-again-stab (chain-cut-named: none of them), end-again-named,
--   again-of
--                    crashed recoveries in the chain phase: PL's crash
--                    relation with the map named (`CRLM`,
--                    SCFTL.Impl.LazyChainCrashKons) holds after a power
--                    cut at a normal state and is kept by every crash of
--                    PL's recovery (`pl-rec-crash-M`), so recovery after
--                    any number of them rebuilds the map the first would
--                    have; `RecoveredNamed` for the crash point at the end
--                    of every operation into the chain phase followed by
--                    any number of crashed recoveries (`again-of`: every
--                    crash of PX's recovery in the chain phase is one)
--
-- What `RecoveredNamed` still needs (proofs/README.md, "Blocks in the one
-- model"): the other crash points inside PX's operations (the chain
-- phase's consolidation page before its SYNC, the in-page/OOB and lazy
-- commits' records; in PUSBic's phase the flush's, the barrier's and the
-- partial SYNC's), and crashed recoveries in PUSBic's phase.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelRecMaps (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (true; false)
open import Data.List.Base using (List; []; map; length; _++_)
open import Data.Maybe.Base using (just)
open import Data.Nat.Base using (_≤_; zero)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (tt)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; module RI; RecTo; recto; crash-RI; crashC-eq)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (pick-slot; crashC-PM)
open import SCFTL.Impl.Recovery Data d0 amax wmax kmax _≟D_ using (recMap-syncAll)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (AR-tOf; rdS; ri-dok; dok-crash)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (flush-crash; fl3-RI)
open import SCFTL.Impl.BlocksPhys Data d0 amax wmax kmax _≟D_ zb using (flush-maps; Maps)
open import SCFTL.Impl.LazyChainCrashKons Data d0 amax wmax kmax _≟D_ kc using (fl2-walk; ck1-walk; ck2-walk; ck3-walk; kons-S-RI; CRLM; pl-rec-crash-M)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (rv)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (walkG; virt; okPL; crashPL)
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc using (Phase; ph-rs)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (img-virt; phase-walk-crash; walk-free-crash)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (EraseGuard; konsS)
open import SCFTL.Impl.LazyChainKons Data d0 amax wmax kmax _≟D_ kc using (konsS-free; ri-chain-free)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (⟦_,_⟧; su; gh; ghostN; prN; shpN; prN-BI; crash-normal-G)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI; module BI; recU-crash-mapBI)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (parse-unique; crashEs-shape; shapes)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recM)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_ using (ParseS)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (lay)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (okX)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (mapAt; mapAt-nil; mapAt-≐)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX; lzS; okL)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; module OPX; ril-of)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb
  using (uesX; Named; NSub; rec-named; SmU; sm-w; sm-rl; named-es; named-sy; named-barrier; named-flush; konsS-maps)
open import SCFTL.Spec Data d0 amax wmax using (recover; State; ⟨_,_,_⟩)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module PXm = SB.Model PX

-- the pages a state's stable L2P or an unsynced epoch's map names (j = 0
-- the stable L2P): what a recovery may rebuild
Stab : XS → ℕ → Set
Stab X p = Σ ℕ λ a → a ≤ amax × Σ ℕ λ j → mapAt (smap (stX X)) (uesX X) j a ≡ just p

------------------------------------------------------------------------
-- PL's recovery rebuilds the map P's RecTo names

pl-rec-l2p : ∀ {G s' x b0 g C0 M} → pick (cur (cpL s')) (cur (cpO s')) ≡ just (b0 , g , C0) →
             RecTo (virt (walkG g s') s') M → okPL G recover s' x → ∀ a → l2p x a ≡ M a
pl-rec-l2p {s' = s'} pk0 (recto b₁ g₁ C₁ pk₁ _ _ _ _ mx _ _) (b , g' , C' , pk' , refl) a
  with trans (sym pk0) pk' | trans (sym pk₁) pk'
... | refl | refl = trans (cong (λ f → f a) (recMap-syncAll g' C' (virt (walkG g' s') s'))) (mx a)

------------------------------------------------------------------------
-- A power cut of a normal state with PL's invariant, then any number of
-- crashed recoveries: recovery rebuilds the state's stable L2P (PL's
-- crash relation with the map named, `CRLM`, holds after the cut and is
-- kept by a crash of recovery: `pl-rec-crash-M`,
-- SCFTL.Impl.LazyChainCrashKons)

-- a state whose abstract stable image is what map M reads on the flash
-- (only the map matters here)
private
  tAt : St → Map → State
  tAt u M = ⟨ (λ a → rdS u (M a)) , (λ a → rdS u (M a)) , 0 ⟩

-- a power cut of a state with PL's invariant: CRLM with its stable L2P
chain-crlm : ∀ {s s'} (ph : Phase s) → RI (virt (rv (ph-rs ph)) s) → Img s s' →
             Σ State λ t → CRLM s' t (smap s)
chain-crlm {s} {s'} ph r img@(cD , cL , cO , cR , cI) =
  tAt (virt (rv (ph-rs ph)) s) (smap s) ,
  true , gen s , RI.C r , pick-slot true s' (gen s) (RI.C r) sl' so' ,
  subst (λ vs → RecTo (virt vs s') (smap s)) (sym (phase-walk-crash {s} {s'} ph img))
        (crash-RI r (img-virt (rv (ph-rs ph)) {s} {s'} img)) ,
  dok-crash cD (ri-dok r (λ a le → refl))
  where
    sl' = crashC-eq (RI.slotL r) cL
    so' = crashC-PM tt cO (RI.slotO r)

free-crlm : ∀ {m s'} → RI m → Img m s' → Σ State λ t → CRLM s' t (smap m)
free-crlm {m} {s'} r img@(cD , cL , cO , cR , cI) =
  tAt m (smap m) ,
  true , gen m , RI.C r , pick-slot true s' (gen m) (RI.C r) sl' so' ,
  subst (λ vs → RecTo (virt vs s') (smap m)) (sym (walk-free-crash {m} {s'} r img)) (crash-RI r img) ,
  dok-crash cD (ri-dok r (λ a le → refl))
  where
    sl' = crashC-eq (RI.slotL r) cL
    so' = crashC-PM tt cO (RI.slotO r)

ril-crlm : ∀ {s s'} → RIL s → Img s s' → Σ State λ t → CRLM s' t (smap s)
ril-crlm (inj₁ r) img = free-crlm r img
ril-crlm (inj₂ (ph , r , _)) img = chain-crlm ph r img

-- any number of crashed recoveries of PL after a crash state s0
data AgainL (s0 : St) : St → Set where
  none : AgainL s0 s0
  more : ∀ {s s'} → AgainL s0 s → crashPL EraseGuard recover s s' → AgainL s0 s'

again-crlm : ∀ {s0 s t M} → CRLM s0 t M → AgainL s0 s → CRLM s t M
again-crlm c none       = c
again-crlm {s0} {s'} {t} {M} c (more {s} a x) = pl-rec-crash-M {EraseGuard} {s} {t} {s'} {M} (again-crlm {s0} {s} {t} {M} c a) x

-- so recovery after them rebuilds the map
crlm-l2p : ∀ {G s t M x} → CRLM s t M → okPL G recover s x → ∀ a → l2p x a ≡ M a
crlm-l2p {G} {s} {t} {M} {x} (b , g , C , pk , rt , dk) o = pl-rec-l2p {G} {s} {x} pk rt o


-- with no crashed recovery
chain-crash-l2p : ∀ {G s s' x} (ph : Phase s) → RI (virt (rv (ph-rs ph)) s) → Img s s' →
                  okPL G recover s' x → ∀ a → l2p x a ≡ smap s a
chain-crash-l2p {G} {s} {s'} {x} ph r img o = crlm-l2p {G} {s'} {proj₁ C} {smap s} {x} (proj₂ C) o
  where C = chain-crlm {s} {s'} ph r img

free-crash-l2p : ∀ {G m s' x} → RI m → Img m s' → okPL G recover s' x → ∀ a → l2p x a ≡ smap m a
free-crash-l2p {G} {m} {s'} {x} r img o = crlm-l2p {G} {s'} {proj₁ C} {smap m} {x} (proj₂ C) o
  where C = free-crlm {m} {s'} r img

------------------------------------------------------------------------
-- In PX: a recovery in the chain phase after a power cut of a normal
-- state with no epoch unsynced, and any crashed recoveries, names only
-- pages that state named (its stable L2P's)

private
  ril-X : ∀ {X} → OPX.RI X → uesX X ≡ [] → RIL (stX X)
  ril-X {false , ⟦ ⟪ s , [] ⟫ , g ⟧} r refl = ril-of {s} {g} r
  ril-X {true , S} (_ , r) _ = r

-- in PX: a power cut at a normal state X with no epoch unsynced, then
-- any number of crashed recoveries of the chain phase: recovery names
-- only pages X's stable L2P names
chain-again-stab : ∀ {X s0 s g X'} → OPX.RI X → uesX X ≡ [] → Img (stX X) s0 → AgainL s0 s →
                   PXm.ok SB.recover (true , lzS s g) X' → ∀ p → Named X' p → Stab X p
chain-again-stab {X} {s0} {s} {g} {X'} r eu img ag o@(refl , refl , x , refl , ok) p y
  with rec-named {true , lzS s g} {X'} o p y
... | a , le , q =
  a , le , 0 , subst (λ es → mapAt (smap (stX X)) es 0 a ≡ just p) (sym eu)
                 (trans (cong (λ f → f a) (mapAt-nil (smap (stX X)) 0))
                        (trans (sym (crlm-l2p {EraseGuard} {s} {t0} {smap (stX X)} {x}
                                        (again-crlm {s0} {s} {t0} {smap (stX X)} (proj₂ C0) ag) ok a)) q))
  where
    C0 = ril-crlm {stX X} {s0} (ril-X {X} r eu) img
    t0 = proj₁ C0

-- with no crashed recovery
chain-cut-named : ∀ {X s' g X'} → OPX.RI X → uesX X ≡ [] → Img (stX X) s' →
                  PXm.ok SB.recover (true , lzS s' g) X' → ∀ p → Named X' p → Stab X p
chain-cut-named {X} {s'} {g} {X'} r eu img = chain-again-stab {X} {s'} {s'} {g} {X'} r eu img none

------------------------------------------------------------------------
-- In PUSBic's phase: a recovery after a power cut of a normal state
-- (the crash leaving that state's durable ghost) rebuilds the map of
-- the k-th unsynced epoch for some k (k = 0: the stable L2P), whichever
-- of PUSBic's recoveries (with the full checkpoint or without, `RecC`)

pu-cut-l2p : ∀ {S u' s' S'} → OPX.RI (false , S) → Img (st (su S)) s' →
             okX SB.recover ⟦ ⟪ s' , u' ⟫ , ghostN (su S) ⟧ S' →
             Σ ℕ λ k → k ≤ length (ues (su S)) × (∀ a → l2p (st (su S')) a ≡ mapAt (smap (st (su S))) (ues (su S)) k a)
pu-cut-l2p {S} {u'} {s'} {S'} (t , ar , y) img o = k , kl , from o
  where
    iv  = ivX {S} {t} ar
    b   = proj₁ (proj₂ (proj₂ (proj₁ iv)))
    R   = recU-crash-mapBI {su S} {s'} b img
    T′  = proj₁ R
    es' = proj₁ (proj₂ R)
    k   = proj₁ (proj₂ (proj₂ R))
    R1  = proj₂ (proj₂ (proj₂ R))
    ces = proj₁ R1
    prs = proj₁ (proj₂ R1)
    kl  = proj₁ (proj₂ (proj₂ R1))
    eqM = proj₂ (proj₂ (proj₂ (proj₂ R1)))
    G   = crash-normal-G {su S} {t} {s'} (proj₁ iv) (proj₂ iv) img
    pk  = proj₁ (proj₂ (proj₂ (proj₂ G)))
    pr  = map cur (BI.prM b)
    -- recovery's choice is the crash's: the slot `pick` chooses, and the
    -- one parse with the ghost's shapes over the ghost's durable part
    same : ∀ {b₂ g₂ C₂ T₂ es₂} → pick (cur (cpL s')) (cur (cpO s')) ≡ just (b₂ , g₂ , C₂) →
           ParseS (map cur (dr s')) T₂ es₂ (prN (su S)) → shapes es₂ ≡ shpN (su S) →
           ∀ a → recM g₂ C₂ (prN (su S)) es₂ s' a ≡ mapAt (smap (st (su S))) (ues (su S)) k a
    same {b₂} {g₂} {C₂} {T₂} {es₂} pk₂ p₂ sh₂ a with trans (sym pk) pk₂
    ... | refl = trans (cong (λ z → recM g₂ C₂ z es₂ s' a) (prN-BI (su S) b))
                       (trans (cong (λ es → recM g₂ C₂ pr es s' a) es-eq) (eqM a))
      where
        p₂′ : map cur (dr s') ≡ T₂ ++ lay es₂ pr
        p₂′ = subst (λ z → map cur (dr s') ≡ T₂ ++ lay es₂ z) (prN-BI (su S) b) (proj₁ p₂)
        es-eq : es₂ ≡ es'
        es-eq = proj₂ (parse-unique T₂ T′ es₂ es' pr (trans sh₂ (sym (crashEs-shape ces))) (trans (sym p₂′) (proj₁ prs)))
    from : okX SB.recover ⟦ ⟪ s' , u' ⟫ , ghostN (su S) ⟧ S' →
           ∀ a → l2p (st (su S')) a ≡ mapAt (smap (st (su S))) (ues (su S)) k a
    from (inj₁ ((b₂ , g₂ , C₂ , pk₂ , T₂ , es₂ , p₂ , sh₂ , e) , _ , _)) a =
      trans (cong (λ z → l2p z a) e) (same pk₂ p₂ sh₂ a)
    from (inj₂ ((b₂ , g₂ , C₂ , pk₂ , T₂ , es₂ , p₂ , sh₂ , _ , _ , e) , _ , _)) a =
      trans (cong (λ z → l2p z a) e) (same pk₂ p₂ sh₂ a)

-- so, in PX: a recovery in PUSBic's phase after a power cut of a normal
-- state of that phase names only pages that state named
pu-cut-named : ∀ {S u' s' X'} → OPX.RI (false , S) → Img (st (su S)) s' →
               PXm.ok SB.recover (false , ⟦ ⟪ s' , u' ⟫ , ghostN (su S) ⟧) X' → ∀ p → Named X' p → Stab (false , S) p
pu-cut-named {S} {u'} {s'} {false , S'} r img o@(refl , ok) p x = a , le , (k , trans (sym (eq a)) m)
  where
    R  = rec-named {false , ⟦ ⟪ s' , u' ⟫ , ghostN (su S) ⟧} {false , S'} o p x
    a  = proj₁ R
    le = proj₁ (proj₂ R)
    m  = proj₂ (proj₂ R)
    L  = pu-cut-l2p {S} {u'} {s'} {S'} r img ok
    k  = proj₁ L
    eq = proj₂ (proj₂ L)

------------------------------------------------------------------------
-- A power cut at a normal state X of PX, in either phase: recovery
-- names only pages X named

-- C is what a power cut leaves of the normal state X: its flash's crash
-- image, with X's durable ghost in PUSBic's phase, or in the chain
-- phase with no epoch unsynced
data Cut (X : XS) : XS → Set where
  cut-pu    : ∀ {S u' s'} → X ≡ (false , S) → Img (st (su S)) s' → Cut X (false , ⟦ ⟪ s' , u' ⟫ , ghostN (su S) ⟧)
  cut-chain : ∀ {s' g} → uesX X ≡ [] → Img (stX X) s' → Cut X (true , lzS s' g)

cut-stab : ∀ {X C X'} → OPX.RI X → Cut X C → PXm.ok SB.recover C X' → ∀ p → Named X' p → Stab X p
cut-stab {X} {X' = X'} r (cut-pu {S} {u'} {s'} refl img) o = pu-cut-named {S} {u'} {s'} {X'} r img o
cut-stab {X} {X' = X'} r (cut-chain {s'} {g} eu img) o = chain-cut-named {X} {s'} {g} {X'} r eu img o

cut-named : ∀ {X C X'} → OPX.RI X → Cut X C → PXm.ok SB.recover C X' → NSub X X'
cut-named {X} {C} {X'} r c o p x with cut-stab {X} {C} {X'} r c o p x
... | a , le , j , m = a , le , inj₂ (j , m)

------------------------------------------------------------------------
-- The power cut right after an operation completes: recovery names only
-- pages the state before the operation named

private
  stab-keep : ∀ {X X'} → SmU X X' → ∀ p → Stab X' p → Stab X p
  stab-keep {X} {X'} (ks , eu) p (a , le , j , m) =
    a , le , j , trans (sym (mapAt-≐ ks (uesX X) j a)) (subst (λ es → mapAt (smap (stX X')) es j a ≡ just p) eu m)

  stab-named : ∀ {X p} → Stab X p → Named X p
  stab-named (a , le , j , m) = a , le , inj₂ (j , m)

-- the stable L2P and the epochs' maps after any operation of PX name
-- only pages the state before it named (a write's or relocation's new
-- page is only in the volatile L2P)
px-stab : ∀ u {X X'} → OPX.RI X → PXm.ok (SB.use u) X X' → ∀ p → Stab X' p → Named X p
px-stab (SB.reg (SB.op (SB.w a d))) {X} {X'} r o p x = stab-named {X} (stab-keep {X} {X'} (sm-w a d {X} {X'} o) p x)
px-stab (SB.reg (SB.op SB.rl)) {X} {X'} r o p x = stab-named {X} (stab-keep {X} {X'} (sm-rl {X} {X'} o) p x)
px-stab (SB.reg (SB.op SB.es)) {X} {X'} r o p x = named-es {X} {X'} o p (stab-named {X'} x)
px-stab (SB.reg (SB.op SB.sy)) {X} {X'} r o p x = named-sy {X} {X'} o p (stab-named {X'} x)
px-stab (SB.reg SB.barrier) {X} {X'} r o p x = named-barrier {X} {X'} r o p (stab-named {X'} x)
px-stab SB.flush {X} {X'} r o p x = named-flush {X} {X'} o p (stab-named {X'} x)

-- `RecoveredNamed` for the crash point at the end of every operation
end-named : ∀ u {X0 X1 C X} → OPX.RI X0 → PXm.ok (SB.use u) X0 X1 → Cut X1 C → PXm.ok SB.recover C X → NSub X0 X
end-named u {X0} {X1} {C} {X} r o c rec p x =
  px-stab u {X0} {X1} r o p (cut-stab {X1} {C} {X} (OPX.B-ok u r o) c rec p x)

-- not vacuous: in the chain phase, the crash point at the end of any of
-- PL's steps (the step's state crashed, PL's `crashPL`) is a `Cut` of
-- the state after the step, which is a step of PX
pl-end : ∀ u {b S s' m} → ues (su S) ≡ [] → okL u (st (su S)) m → Img m s' →
         PXm.ok (SB.use u) (b , S) (true , lzS m (gh S)) × Cut (true , lzS m (gh S)) (true , lzS s' (gh S))
pl-end u {b} {S} {s'} {m} eu o img = inj₂ (refl , eu , m , refl , o) , cut-chain refl img

------------------------------------------------------------------------
-- Crash points inside a flush of P (no lazy commit): before its SYNC,
-- after it, inside its full checkpoint.  Recovery rebuilds the stable or
-- the volatile L2P the flush started from (B over P's `flush-maps`, P's
-- own recovery there being PL's: the walk finds no record)

Plain : St → St → Set
Plain u m = m ≡ fl2 u ⊎ m ≡ fl3 u ⊎ CkPt (fl3 u) m

private
  plain-fl : ∀ {u m} → Plain u m → FlPt u m
  plain-fl (inj₁ e)         = inj₁ e
  plain-fl (inj₂ (inj₁ e))  = inj₂ (inj₁ e)
  plain-fl (inj₂ (inj₂ ck)) = inj₂ (inj₂ (inj₁ ck))

  -- P's recovery on the crashed flash, where PL's walk finds nothing
  plain-walk : ∀ {u m s' M} → RI u → m ≡ fl2 u ⊎ CkPt (fl3 u) m → Img m s' → (rt : RecTo s' M) → walkG (RecTo.g rt) s' ≡ []
  plain-walk r (inj₁ refl) img rt = fl2-walk r img rt
  plain-walk r (inj₂ (inj₁ refl)) img rt = ck1-walk r img rt
  plain-walk {u} r (inj₂ (inj₂ (inj₁ refl))) img rt = ck2-walk {fl3 u} (RI.slotL (fl3-RI r)) (RI.gle (fl3-RI r)) img rt
  plain-walk {u} r (inj₂ (inj₂ (inj₂ refl))) img rt = ck3-walk {fl3 u} img rt

  plain-of : ∀ {u m} → m ≡ fl2 u ⊎ CkPt (fl3 u) m → Plain u m
  plain-of (inj₁ e)  = inj₁ e
  plain-of (inj₂ ck) = inj₂ (inj₂ ck)

private
  plain-via : ∀ {G u m s' x} → RI u → m ≡ fl2 u ⊎ CkPt (fl3 u) m → Img m s' → okPL G recover s' x → Maps u (l2p x)
  plain-via {G} {u} {m} {s'} {x} r pt img o = out (flush-maps r (plain-fl (plain-of pt)) img rt)
    where
      CR′ = proj₂ (proj₂ (flush-crash (AR-tOf u) r (m , plain-fl (plain-of pt) , img)))
      M   = proj₁ CR′
      rt  = proj₁ (proj₂ CR′)
      rt′ : RecTo (virt (walkG (RecTo.g rt) s') s') M
      rt′ = subst (λ vs → RecTo (virt vs s') M) (sym (plain-walk r pt img rt)) rt
      eq : ∀ a → l2p x a ≡ M a
      eq = pl-rec-l2p {G} {s'} {x} (RecTo.pk rt) rt′ o
      out : Maps u M → Maps u (l2p x)
      out (inj₁ f) = inj₁ (λ a le → trans (eq a) (f a le))
      out (inj₂ f) = inj₂ (λ a le → trans (eq a) (f a le))

plain-l2p : ∀ {G u m s' x} → RI u → Plain u m → Img m s' → okPL G recover s' x → Maps u (l2p x)
plain-l2p {G} {u} {m} {s'} {x} r (inj₂ (inj₁ refl)) img o = inj₂ (λ a _ → free-crash-l2p {G} {fl3 u} {s'} {x} (fl3-RI r) img o a)
plain-l2p {G} {u} {m} {s'} {x} r (inj₁ e) img o = plain-via {G} {u} {m} {s'} {x} r (inj₁ e) img o
plain-l2p {G} {u} {m} {s'} {x} r (inj₂ (inj₂ ck)) img o = plain-via {G} {u} {m} {s'} {x} r (inj₂ ck) img o

private
  kons-RI : ∀ {s} → RIL s → RI (konsS s)
  kons-RI {s} (inj₁ r) = subst RI (sym (konsS-free {s} (ri-chain-free r))) r
  kons-RI {s} (inj₂ (ph , r , nt)) = proj₂ (kons-S-RI ph (AR-tOf s) r nt)


-- in PX: a recovery after a crash inside a flush of the chain phase
-- (after its consolidation page, P's flush: before its SYNC, after it,
-- inside its checkpoint) names only pages the state before the flush
-- named
flush-plain-named : ∀ {b S m s' X} → OPX.RI (b , S) → ues (su S) ≡ [] → Plain (konsS (st (su S))) m → Img m s' →
                    PXm.ok SB.recover (true , lzS s' (gh S)) X → NSub (b , S) X
flush-plain-named {b} {S} {m} {s'} {X} r eu pl img o@(refl , refl , x , refl , ok) p y with rec-named {true , lzS s' (gh S)} {X} o p y
... | a , le , q with plain-l2p {EraseGuard} {konsS (st (su S))} {m} {s'} {x} (kons-RI (ril-X {b , S} r eu)) pl img ok
...   | inj₁ f = a , le , inj₂ (0 , subst (λ es → mapAt (smap (st (su S))) es 0 a ≡ just p) (sym eu)
                                  (trans (cong (λ g → g a) (mapAt-nil (smap (st (su S))) 0))
                                         (trans (sym (proj₂ (konsS-maps (st (su S))) a)) (trans (sym (f a le)) q))))
...   | inj₂ f = a , le , inj₁ (trans (sym (proj₁ (konsS-maps (st (su S))) a)) (trans (sym (f a le)) q))

------------------------------------------------------------------------
-- `RecoveredNamed` for the crash point at the end of every operation
-- into the chain phase, followed by any number of crashed recoveries
end-again-named : ∀ u {X0 X1 s0 s g X} → OPX.RI X0 → PXm.ok (SB.use u) X0 X1 → uesX X1 ≡ [] →
                  Img (stX X1) s0 → AgainL s0 s → PXm.ok SB.recover (true , lzS s g) X → NSub X0 X
end-again-named u {X0} {X1} {s0} {s} {g} {X} r o eu img ag rec p x =
  px-stab u {X0} {X1} r o p (chain-again-stab {X1} {s0} {s} {g} {X} (OPX.B-ok u r o) eu img ag rec p x)

-- not vacuous: every crash of PX's recovery in the chain phase is a step
-- of `AgainL`
again-of : ∀ {s0 S S'} → AgainL s0 (st (su S)) → PXm.crash SB.recover (true , S) (true , S') → AgainL s0 (st (su S'))
again-of a (refl , eu , s' , refl , c) = more a c
