{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the map recovery rebuilds after a crash, at the level of
-- pages — `RecoveredNamed`
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
--                    is that map (`crash-normal-GM` from
--                    `recU-crash-mapBI`, SCFTL.Impl.UnsyncedBase; then
--                    `recgm-l2p`, below)
--   SM, RMc, sm-stab, rmc-named, kept-sm, maps-rmc, mk-rmc, RegU, reg-kept,
--   px-maps, px-rmc
--                    (thirty-fourth session: the maps themselves, for
--                    SCFTL.Impl.SpaceRecFit) the map a recovery rebuilds
--                    is one of a state X0's stable maps (`SM`: its stable
--                    L2P or an unsynced epoch's), or X0's volatile L2P
--                    (`RMc`, a flush's or a barrier's crash points); the
--                    pages it names are then X0's (`rmc-named`); an
--                    operation's end state's maps are the state's or its
--                    volatile L2P (`px-maps`, from OneModelBlocksNamed's
--                    `Kept` and `MapsOf`; `px-stab` reads pages off it)
--   Cut, cut-sm, cut-stab, cut-named
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
--   Plain, plain-crlm, flush-plain-named
--                    the crash points inside a flush of the chain phase
--                    that are P's flush's (before its SYNC, after it,
--                    inside its full checkpoint; after the consolidation
--                    page): recovery rebuilds the stable or the volatile
--                    L2P the flush started from (B over P's `flush-maps`;
--                    PL's walk finds no record there), so it names only
--                    pages the state before the flush named
--   chain-crlm, free-crlm, ril-crlm, AgainL, again-crlm, crlm-l2p,
--   chain-again-stab, end-again-named,
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
--   ChainPt, FlushPt, CmtEnd, chainpt-crL, chainpt-crlm, chainpt-rmc,
--   chainpt-reg-sm, chainpt-named
--                    every crash point of a step into the chain phase (PX's
--                    `crL` itself): a write's, a relocation's, an erase's;
--                    a flush's and a barrier's from the chain phase before
--                    the consolidation page's SYNC, P's own after it
--                    (`Plain`; after an in-page / OOB commit, `CmtEnd` and
--                    `fp-crlm` below), the lazy commit's.  PL's crash
--                    lemmas there now name their map (`CRLS`,
--                    SCFTL.Impl.LazyChainCrash; `pl-wr-crls`,
--                    `pl-rl-crls`, `pl-es-crls`, `kons-crash-CRLM`,
--                    `pl-lazy-crls`, `pl-fi2-crash-CRLM`), so recovery,
--                    after any number of crashed recoveries, rebuilds the
--                    stable or the volatile L2P of the state before the
--                    step, and names only pages it named
--   pu-w-sm, pu-rl-sm, pu-es-sm, pu-sy-sm
--                    in PUSBic's phase, a crash after any command of a
--                    write, a GC relocation or a GC erase is a power cut
--                    of the step's end state with its ghost (before a
--                    tentative page's append with one erased page on top,
--                    which recovery skips: `op-cmd-img`, `tent-back-M`,
--                    SCFTL.Impl.UnsyncedCommands), or of the state itself
--                    when the step does nothing: recovery rebuilds a
--                    stable map of the state before the step (`SM`; a
--                    SYNC's the same)
--   FlEndPt, pu-flend-rmc, bar-rmc, pu-barcmd-rmc, pu-fck-rmc, pu-fi-rmc,
--   pu-flcmd-rmc, pu-fl-rmc, pu-ba-rmc
--                    a flush's crash points after its SYNC and at the end
--                    of its checkpoint (power cuts of its end states), a
--                    barrier's or a flush's before its SYNC (the
--                    barrier's end state `sB`, its committed page
--                    appended or, missing, its epoch dropped:
--                    `drop-pad-M`; `ms-barrier`, `bar-rmc`), a flush's inside its
--                    checkpoint (`ck-G-M`: the flushed L2P): every crash
--                    point of a barrier and of a flush of PUSBic's phase,
--                    and the in-page / OOB commit's (`FiCrash`): a stable
--                    map of the state, or its volatile L2P (`RMc`)
--   recgm-l2p, recgm-crash, AgainX, again-l2p, gm-sm, pu-cut-gm,
--   pu-again-sm, pu-again-stab, chain-again-sm
--                    crashed recoveries in PUSBic's phase: PU's crash
--                    relation with its map named (`RecGM`,
--                    `crash-normal-GM`, `rec-ck-M`: SCFTL.Impl.UnsyncedModel;
--                    `recC-crash-M`: SCFTL.Impl.UnsyncedSyncInPage) holds
--                    after those crash points and is kept by every crash
--                    of PUSBic's recovery, so recovery after any number of
--                    them rebuilds the map the first would have
--   Cov, cov-rmc, cov-named, cov-crash, cov-reg, reg-sm, cov-pu-barrier,
--   cutOp, orig-split, orig-named, reg-recovered-named
--                    `RecoveredNamed` for every crash state whose cut is
--                    one of these points, with any crashed recoveries
--                    after it; every crash of a write, a relocation or an
--                    erase, in either phase, and of a barrier into
--                    PUSBic's phase (`cov-kbar`: from the chain phase
--                    after its consolidation step) is one, so
--                    `RecoveredNamed` holds for every run cut in one of
--                    them
--
--   fp-crlm, cmt-all
--                    every crash point of P's flush, the in-page / OOB
--                    commit's before its checkpoint with a chain too
--                    (`ck1-fi3-CRLM`, `fiK-CRLM`, `free-fi2-M`:
--                    SCFTL.Impl.LazyChainCrashKons / LazyChainCrashSteps),
--                    so `FlushPt` is PL's flush crash relation and
--                    `ChainPt` is `crL`
--   cov-any, recovered-named, reach-RI, recovered-named-all
--                    every crash of PX is a `Cov` cut, so
--                    `RecoveredNamed` holds (SCFTL.Impl.OneModelBlocksFull:
--                    Theorem 1 and SC1B for the block layer over PX with
--                    the physical read)
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelRecMaps (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥)
open import Data.List.Base using (List; []; _∷_; map; length; _++_)
open import Data.Maybe.Base using (just)
open import Data.Nat.Base using (_≤_; _<_; zero)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (tt)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)
open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; module RI; RecTo; recto; crash-RI; crashC-eq)
open import SCFTL.Impl.Recovery Data d0 amax wmax kmax _≟D_ using (recMap-syncAll)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (AR-tOf; tOf; rdS; ri-dok; dok-crash)
open import SCFTL.Impl.Flush Data d0 amax wmax kmax _≟D_ using (flush-crash; fl3-RI; fi4-RI; tF)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_ using (mid-crash; es-mid; before; after; padW; fl-mid; runs; run; apR; cmt; CkCmd)
open import SCFTL.Impl.UnsyncedCommands Data d0 amax wmax kmax umax _≟D_ using (op-cmd-img; fs; fe; fb; fck; fck-img; FlCmd; ghF; crashPUc; sB; ghC; rec-cmd-ck; tent-back-M; BarCmd; drop-pad-M; skip-top; ghost-sB; ntop; runs-dr)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (FlOk; RecGM; crash-normal-GM; rec-ck-M; choice; RecCk; SU; ck-G-M; fl-A)
open import SCFTL.Impl.UnsyncedSyncInPage Data d0 amax wmax kmax umax _≟D_ using (recC-crash-M; crash-Fi-M; FiMap; InPO)
open import SCFTL.Impl.UnsyncedSyncInPageCommands Data d0 amax wmax kmax umax _≟D_ using (FiCmd; ghFi; fi-crfi)
open import SCFTL.Impl.BlocksPhys Data d0 amax wmax kmax _≟D_ zb using (flush-maps; Maps)
open import SCFTL.Impl.LazyChainCrashKons Data d0 amax wmax kmax _≟D_ kc using (fl2-walk; ck1-walk; ck2-walk; ck3-walk; kons-S-RI; pl-rec-crash-M; crlm-of; lkc-of; walk-k0; kc-split; ck1-fi3-CRLM; fiK-CRLM; CmtSrc; kons-crash-CRLM; pl-wr-crls; pl-rl-crls)
open import SCFTL.Impl.LazyChainCrashSteps Data d0 amax wmax kmax _≟D_ kc using (free-reg-crls; free-kons-crls; pl-es-crls; pl-lazy-crls; free-lazy-ph; free-fi2-crash-M; pl-fi2-crash-CRLM; free-fi2-landed-M; free-fi2-M)
open import SCFTL.Impl.LazyChainCrashLazy Data d0 amax wmax kmax _≟D_ kc using (pl-fi2-landed-M)
open import SCFTL.Impl.LazyChain Data d0 amax wmax kmax _≟D_ using (rv)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (walkG; virt; okPL; crashPL)
open import SCFTL.Impl.LazyChainPhase Data d0 amax wmax kmax _≟D_ kc using (Phase; ph-rs)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (CRLM; CRLS; crls-of; phase-crash-CRLM; free-crash-CRLM)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (EraseGuard; konsS; konsI; konsS-maps; Lazy)
open import SCFTL.Impl.LazyChainP Data d0 amax wmax kmax _≟D_ using (fiL)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (all-sync)
open import SCFTL.Impl.LazyChainKons Data d0 amax wmax kmax _≟D_ kc using (konsS-free; ri-chain-free)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues; flB; epE)
open import SCFTL.Impl.UnsyncedCrashes Data d0 amax wmax kmax umax _≟D_ using (pre-sync; preT)
open import Data.Nat.Properties using (≤-refl)
open import Data.List.Relation.Unary.All using (_∷_)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (⟦_,_⟧; su; gh; ghostN; shpN; prN)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (parse-unique; shapes)
open import SCFTL.Impl.UnsyncedRecStep Data d0 amax wmax kmax umax _≟D_ using (recM)
open import SCFTL.Impl.UnsyncedRecovery Data d0 amax wmax kmax umax _≟D_ using (ParseS)
open import SCFTL.Impl.UnsyncedEpochs Data d0 amax wmax kmax _≟D_ using (lay)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (okX; crashX; ARX)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_ using (syS)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (syBU)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX)
open import SCFTL.Impl.UnsyncedImages Data d0 amax wmax kmax umax _≟D_ using (mapAt)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX; lzS; okL; crL; konsU; rix-kons)
open import SCFTL.Impl.LazyChainBarrier Data d0 amax wmax kmax umax _≟D_ kc using (PLD)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; module OPX; ril-of)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb
  using (uesX; Named; NSub; rec-named; Orig; cut; again;
         RecoveredNamed; ReachNX; firstX; afterX; stepX; OrigNew; fresh; again-new; sm-w; sm-rl;
         MapsOf; Kept; MK; maps-smu; maps-es; maps-sy; maps-barrier; maps-flush; ms-barrier; ms-keep)
open import SCFTL.Spec Data d0 amax wmax using (recover; State; ⟨_,_,_⟩; use; flush; w; rl; es; crashS) renaming (reg to regop)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module PXm = SB.Model PX

-- the pages a state's stable L2P or an unsynced epoch's map names (j = 0
-- the stable L2P): what a recovery may rebuild
Stab : XS → ℕ → Set
Stab X p = Σ ℕ λ a → a ≤ amax × Σ ℕ λ j → mapAt (smap (stX X)) (uesX X) j a ≡ just p

-- The maps themselves (thirty-fourth session; SCFTL.Impl.SpaceRecFit
-- counts the blocks they name): recovery after a crash point of an
-- operation from X0 rebuilds one of X0's stable maps (`SM`: k = 0 the
-- stable L2P, k an unsynced epoch's), or, after a flush's or a
-- barrier's, X0's volatile L2P (`RMc`); the pages it names are then
-- pages X0 names (`rmc-named`, `sm-stab`)
SM : XS → XS → Set
SM X0 X = Σ ℕ λ k → ∀ a → a ≤ amax → l2p (stX X) a ≡ mapAt (smap (stX X0)) (uesX X0) k a

RMc : XS → XS → Set
RMc X0 X = SM X0 X ⊎ (∀ a → a ≤ amax → l2p (stX X) a ≡ l2p (stX X0) a)

sm-stab : ∀ {X0 C X} → PXm.ok SB.recover C X → SM X0 X → ∀ p → Named X p → Stab X0 p
sm-stab {X0} {C} {X} o (k , e) p x with rec-named {C} {X} o p x
... | a , le , m = a , le , k , trans (sym (e a le)) m

rmc-named : ∀ {X0 C X} → PXm.ok SB.recover C X → RMc X0 X → NSub X0 X
rmc-named {X0} {C} {X} o (inj₁ sm) p x with sm-stab {X0} {C} {X} o sm p x
... | a , le , k , m = a , le , inj₂ (k , m)
rmc-named {X0} {C} {X} o (inj₂ e) p x with rec-named {C} {X} o p x
... | a , le , m = a , le , inj₁ (trans (sym (e a le)) m)

-- X1's stable maps are X0's (a write, a relocation, an erase, a SYNC)
kept-sm : ∀ {X0 X1 X} → Kept X0 X1 → SM X1 X → SM X0 X
kept-sm k (j , e) = proj₁ (k j) , λ a le → trans (e a le) (proj₂ (k j) a)

-- ... or X0's volatile L2P (a flush, a barrier)
maps-rmc : ∀ {X0 X1 X} → MapsOf X0 X1 → SM X1 X → RMc X0 X
maps-rmc mo (j , e) with mo j
... | inj₁ (j' , e') = inj₁ (j' , λ a le → trans (e a le) (e' a))
... | inj₂ e'        = inj₂ (λ a le → trans (e a le) (e' a))

mk-rmc : ∀ {X0 X1 X} → MK X0 X1 → RMc X1 X → RMc X0 X
mk-rmc {X0} {X1} {X} (kl , k) (inj₁ sm) = inj₁ (kept-sm {X0} {X1} {X} k sm)
mk-rmc (kl , k) (inj₂ e) = inj₂ (λ a le → trans (e a le) (kl a))

-- the operations that keep every map: a write, a relocation, an erase,
-- a SYNC
data RegU : SB.UOp → Set where
  reg-w  : ∀ a d → RegU (SB.reg (SB.op (SB.w a d)))
  reg-rl : RegU (SB.reg (SB.op SB.rl))
  reg-es : RegU (SB.reg (SB.op SB.es))
  reg-sy : RegU (SB.reg (SB.op SB.sy))

reg-kept : ∀ {u} → RegU u → ∀ {X0 X1} → PXm.ok (SB.use u) X0 X1 → Kept X0 X1
reg-kept (reg-w a d) {X0} {X1} o = maps-smu {X0} {X1} (sm-w a d {X0} {X1} o)
reg-kept reg-rl {X0} {X1} o = maps-smu {X0} {X1} (sm-rl {X0} {X1} o)
reg-kept reg-es {X0} {X1} o = proj₂ (maps-es {X0} {X1} o)
reg-kept reg-sy {X0} {X1} o = proj₂ (maps-sy {X0} {X1} o)

-- every operation of PX: its end state's maps are the state's, or (a
-- flush, a barrier) its volatile L2P
px-maps : ∀ u {X0 X1} → OPX.RI X0 → PXm.ok (SB.use u) X0 X1 → MapsOf X0 X1
px-maps (SB.reg (SB.op (SB.w a d))) {X0} {X1} r o j = inj₁ (reg-kept (reg-w a d) {X0} {X1} o j)
px-maps (SB.reg (SB.op SB.rl)) {X0} {X1} r o j = inj₁ (reg-kept reg-rl {X0} {X1} o j)
px-maps (SB.reg (SB.op SB.es)) {X0} {X1} r o j = inj₁ (reg-kept reg-es {X0} {X1} o j)
px-maps (SB.reg (SB.op SB.sy)) {X0} {X1} r o j = inj₁ (reg-kept reg-sy {X0} {X1} o j)
px-maps (SB.reg SB.barrier) {X0} {X1} r o = proj₂ (maps-barrier {X0} {X1} r o)
px-maps SB.flush {X0} {X1} r o = proj₂ (maps-flush {X0} {X1} o)

px-rmc : ∀ u {X0 X1 X} → OPX.RI X0 → PXm.ok (SB.use u) X0 X1 → SM X1 X → RMc X0 X
px-rmc u {X0} {X1} {X} r o = maps-rmc {X0} {X1} {X} (px-maps u {X0} {X1} r o)

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

-- a power cut of a state with PL's invariant: CRLM with its stable L2P
-- (SCFTL.Impl.LazyChainCrash's `phase-crash-CRLM`, `free-crash-CRLM`)
chain-crlm : ∀ {s s'} (ph : Phase s) → RI (virt (rv (ph-rs ph)) s) → Img s s' →
             Σ State λ t → CRLM s' t (smap s)
chain-crlm {s} {s'} ph r img = tOf s , phase-crash-CRLM {s} {s'} {tOf s} ph (AR-tOf s) r img

free-crlm : ∀ {m s'} → RI m → Img m s' → Σ State λ t → CRLM s' t (smap m)
free-crlm {m} {s'} r img = tOf m , free-crash-CRLM {m} {s'} {tOf m} (AR-tOf m) r img

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

ril-X : ∀ {X} → OPX.RI X → uesX X ≡ [] → RIL (stX X)
ril-X {false , ⟦ ⟪ s , [] ⟫ , g ⟧} r refl = ril-of {s} {g} r
ril-X {true , S} (_ , r) _ = r

-- in PX: a power cut at a normal state X with no epoch unsynced, then
-- any number of crashed recoveries of the chain phase: recovery names
-- only pages X's stable L2P names
chain-again-sm : ∀ {X s0 s g X'} → OPX.RI X → uesX X ≡ [] → Img (stX X) s0 → AgainL s0 s →
                 PXm.ok SB.recover (true , lzS s g) X' → SM X X'
chain-again-sm {X} {s0} {s} {g} {X'} r eu img ag (refl , refl , x , refl , ok) =
  0 , λ a _ → crlm-l2p {EraseGuard} {s} {t0} {smap (stX X)} {x} (again-crlm {s0} {s} {t0} {smap (stX X)} (proj₂ C0) ag) ok a
  where
    C0 = ril-crlm {stX X} {s0} (ril-X {X} r eu) img
    t0 = proj₁ C0

chain-again-stab : ∀ {X s0 s g X'} → OPX.RI X → uesX X ≡ [] → Img (stX X) s0 → AgainL s0 s →
                   PXm.ok SB.recover (true , lzS s g) X' → ∀ p → Named X' p → Stab X p
chain-again-stab {X} {s0} {s} {g} {X'} r eu img ag o =
  sm-stab {X} {true , lzS s g} {X'} o (chain-again-sm {X} {s0} {s} {g} {X'} r eu img ag o)

------------------------------------------------------------------------
-- Crashed recoveries in PUSBic's phase: PU's crash relation with its map
-- named (`RecGM`, SCFTL.Impl.UnsyncedModel) holds after a power cut of a
-- normal state (`crash-normal-GM`) and is kept by every crash of
-- PUSBic's recovery (`rec-ck-M`: after any command of its checkpoint;
-- `recC-crash-M`: recovery without the checkpoint), so recovery after
-- any number of them rebuilds the map the first would have

-- recovery from a crash state in RecGM rebuilds its map
recgm-l2p : ∀ {s' gh t M u' S'} → RecGM s' gh t M → okX SB.recover ⟦ ⟪ s' , u' ⟫ , gh ⟧ S' →
            ∀ a → l2p (st (su S')) a ≡ M a
recgm-l2p {s'} {shp , pr} {t} {M} {u'} {S'} ((b , g , C , pk , so , ga , T , es' , k , p , sh , _) , em) o a = trans (from o) (em a)
  where
    same : ∀ {b₂ g₂ C₂ T₂ es₂} → pick (cur (cpL s')) (cur (cpO s')) ≡ just (b₂ , g₂ , C₂) →
           ParseS (map cur (dr s')) T₂ es₂ pr → shapes es₂ ≡ shp → recM g₂ C₂ pr es₂ s' a ≡ recM g C pr es' s' a
    same {b₂} {g₂} {C₂} {T₂} {es₂} pk₂ p₂ sh₂ =
      choice (λ b′ g′ C′ es″ → recM g′ C′ pr es″ s' a ≡ recM g C pr es' s' a) (trans (sym pk) pk₂)
             (proj₂ (parse-unique T T₂ es' es₂ pr (trans sh (sym sh₂)) (trans (sym (proj₁ p)) (proj₁ p₂)))) refl
    from : okX SB.recover ⟦ ⟪ s' , u' ⟫ , (shp , pr) ⟧ S' → l2p (st (su S')) a ≡ recM g C pr es' s' a
    from (inj₁ ((b₂ , g₂ , C₂ , pk₂ , T₂ , es₂ , p₂ , sh₂ , e) , _ , _)) = trans (cong (λ z → l2p z a) e) (same pk₂ p₂ sh₂)
    from (inj₂ ((b₂ , g₂ , C₂ , pk₂ , T₂ , es₂ , p₂ , sh₂ , _ , _ , e) , _ , _)) = trans (cong (λ z → l2p z a) e) (same pk₂ p₂ sh₂)

-- a crash of PUSBic's recovery keeps it
recgm-crash : ∀ {S t S' M} → RecGM (st (su S)) (gh S) t M → crashX SB.recover S S' → Σ SB.State λ t' → RecGM (st (su S')) (gh S') t' M
recgm-crash {⟦ ⟪ s , us ⟫ , (shp , pr) ⟧} {t} {⟦ ⟪ s3 , us3 ⟫ , gh3 ⟧} {M}
  ((b , g , C , pk , so , ga , T , es' , k , p , sh , m , rd , ob) , em) (inj₁ ((b2 , g2 , C2 , pk2 , T2 , es2 , p2 , sh2 , rc) , _)) =
  proj₁ R , proj₂ (proj₂ R)
  where
    R = rec-ck-M {s} {t} {b} {g} {C} {pr} {T} {es'} {k} {shp} {s3} {gh3} {M} pk so ga p sh m rd ob em
          (choice (λ b′ g′ C′ es″ → RecCk b′ g′ C′ pr es″ s (shp , pr) s3 gh3) (trans (sym pk2) pk)
                  (proj₂ (parse-unique T2 T es2 es' pr (trans sh2 (sym sh)) (trans (sym (proj₁ p2)) (proj₁ p))))
                  (rec-cmd-ck {b2} {g2} {C2} {pr} {es2} {s} {shp , pr} {s3} {gh3} rc))
recgm-crash {S} {t} {S'} {M} (rg , em) (inj₂ (c , _)) =
  let R = recC-crash-M {S} {t} {S'} {M} rg em c in proj₁ R , proj₂ (proj₂ R)

-- any number of crashed recoveries of PX after a crash state C0
data AgainX (C0 : XS) : XS → Set where
  noneX : AgainX C0 C0
  moreX : ∀ {C C'} → AgainX C0 C → PXm.crash SB.recover C C' → AgainX C0 C'

private
  again-gm : ∀ {S0 t M C} → RecGM (st (su S0)) (gh S0) t M → AgainX (false , S0) C →
             Σ SU λ S → Σ SB.State λ t' → C ≡ (false , S) × RecGM (st (su S)) (gh S) t' M
  again-gm {S0} {t} g noneX = S0 , t , refl , g
  again-gm {S0} {t} {M} g (moreX {C} {C'} ag c) with again-gm {S0} {t} {M} {C} g ag
  ... | S , t' , refl , g′ with C' | c
  ...   | (false , S″) | (refl , c′) with recgm-crash {S} {t'} {S″} {M} g′ c′
  ...     | t″ , g″ = S″ , t″ , refl , g″

  -- recovery after them rebuilds the map
  again-l2p : ∀ {S0 t M C X} → RecGM (st (su S0)) (gh S0) t M → AgainX (false , S0) C → PXm.ok SB.recover C X →
              ∀ a → l2p (stX X) a ≡ M a
  again-l2p {S0} {t} {M} {C} {X} g ag rec a with again-gm {S0} {t} {M} {C} g ag
  ... | S′ , t′ , refl , g′ with rec
  ...   | (refl , ok) = recgm-l2p {st (su S′)} {gh S′} {t′} {M} {ues (su S′)} {proj₂ X} g′ ok a

-- the map recovery rebuilds after them is a map of the state cut
gm-sm : ∀ {S1 s' u' t C X} →
        (Σ ℕ λ k → k ≤ length (ues (su S1)) × RecGM s' (ghostN (su S1)) t (mapAt (smap (st (su S1))) (ues (su S1)) k)) →
        AgainX (false , ⟦ ⟪ s' , u' ⟫ , ghostN (su S1) ⟧) C → PXm.ok SB.recover C X → SM (false , S1) X
gm-sm {S1} {s'} {u'} {t} {C} {X} (k , _ , g) ag rec =
  k , λ a _ → again-l2p {⟦ ⟪ s' , u' ⟫ , ghostN (su S1) ⟧} {t} {mapAt (smap (st (su S1))) (ues (su S1)) k} {C} {X} g ag rec a

------------------------------------------------------------------------
-- In PUSBic's phase: a recovery after a power cut of a normal state
-- (the crash leaving that state's durable ghost), and any number of
-- crashed recoveries, rebuilds the map of the k-th unsynced epoch for
-- some k (k = 0: the stable L2P), whichever of PUSBic's recoveries (with
-- the full checkpoint or without, `RecC`): the crash's parse is the one
-- recovery reads (`parse-unique`) and its replay that map
-- (`crash-normal-GM`, from `recU-crash-mapBI`)

pu-cut-gm : ∀ {S s' t} → ARX S t → Img (st (su S)) s' →
            Σ ℕ λ k → k ≤ length (ues (su S)) × RecGM s' (ghostN (su S)) t (mapAt (smap (st (su S))) (ues (su S)) k)
pu-cut-gm {S} {s'} {t} ar img = crash-normal-GM {su S} {t} {s'} (proj₁ (ivX {S} {t} ar)) (proj₂ (ivX {S} {t} ar)) img

pu-cut-l2p : ∀ {S u' s' S'} → OPX.RI (false , S) → Img (st (su S)) s' →
             okX SB.recover ⟦ ⟪ s' , u' ⟫ , ghostN (su S) ⟧ S' →
             Σ ℕ λ k → k ≤ length (ues (su S)) × (∀ a → l2p (st (su S')) a ≡ mapAt (smap (st (su S))) (ues (su S)) k a)
pu-cut-l2p {S} {u'} {s'} {S'} (t , ar , y) img o =
  proj₁ G , proj₁ (proj₂ G) , recgm-l2p {s'} {ghostN (su S)} {t} {mapAt (smap (st (su S))) (ues (su S)) (proj₁ G)} {u'} {S'} (proj₂ (proj₂ G)) o
  where G = pu-cut-gm {S} {s'} {t} ar img

-- a power cut at a normal state of PUSBic's phase, then any number of
-- crashed recoveries: recovery rebuilds the state's stable L2P or an
-- unsynced epoch's map, so names only pages they name
pu-again-sm : ∀ {S u' s' C X} → OPX.RI (false , S) → Img (st (su S)) s' → AgainX (false , ⟦ ⟪ s' , u' ⟫ , ghostN (su S) ⟧) C →
              PXm.ok SB.recover C X → SM (false , S) X
pu-again-sm {S} {u'} {s'} {C} {X} (t , ar , y) img = gm-sm {S} {s'} {u'} {t} {C} {X} (pu-cut-gm {S} {s'} {t} ar img)

pu-again-stab : ∀ {S u' s' C X} → OPX.RI (false , S) → Img (st (su S)) s' → AgainX (false , ⟦ ⟪ s' , u' ⟫ , ghostN (su S) ⟧) C →
                PXm.ok SB.recover C X → ∀ p → Named X p → Stab (false , S) p
pu-again-stab {S} {u'} {s'} {C} {X} r img ag rec = sm-stab {false , S} {C} {X} rec (pu-again-sm {S} {u'} {s'} {C} {X} r img ag rec)

------------------------------------------------------------------------
-- A power cut at a normal state X of PX, in either phase: recovery
-- names only pages X named

-- C is what a power cut leaves of the normal state X: its flash's crash
-- image, with X's durable ghost in PUSBic's phase, or in the chain
-- phase with no epoch unsynced
data Cut (X : XS) : XS → Set where
  cut-pu    : ∀ {S u' s'} → X ≡ (false , S) → Img (st (su S)) s' → Cut X (false , ⟦ ⟪ s' , u' ⟫ , ghostN (su S) ⟧)
  cut-chain : ∀ {s' g} → uesX X ≡ [] → Img (stX X) s' → Cut X (true , lzS s' g)

-- the map recovery rebuilds is one of X's, the stable L2P or an unsynced
-- epoch's (`cut-sm`, thirty-fourth session), so it names only pages
-- they name
cut-sm : ∀ {X C X'} → OPX.RI X → Cut X C → PXm.ok SB.recover C X' → SM X X'
cut-sm {X} {X' = X'} r (cut-pu {S} {u'} {s'} refl img) o = pu-again-sm {S} {u'} {s'} {_} {X'} r img noneX o
cut-sm {X} {X' = X'} r (cut-chain {s'} {g} eu img) o = chain-again-sm {X} {s'} {s'} {g} {X'} r eu img none o

cut-stab : ∀ {X C X'} → OPX.RI X → Cut X C → PXm.ok SB.recover C X' → ∀ p → Named X' p → Stab X p
cut-stab {X} {C} {X'} r c o = sm-stab {X} {C} {X'} o (cut-sm {X} {C} {X'} r c o)

cut-named : ∀ {X C X'} → OPX.RI X → Cut X C → PXm.ok SB.recover C X' → NSub X X'
cut-named {X} {C} {X'} r c o p x with cut-stab {X} {C} {X'} r c o p x
... | a , le , j , m = a , le , inj₂ (j , m)


------------------------------------------------------------------------
-- The power cut right after an operation completes: recovery names only
-- pages the state before the operation named

-- the stable L2P and the epochs' maps after any operation of PX name
-- only pages the state before it named (a write's or relocation's new
-- page is only in the volatile L2P)
px-stab : ∀ u {X X'} → OPX.RI X → PXm.ok (SB.use u) X X' → ∀ p → Stab X' p → Named X p
px-stab u {X} {X'} r o p (a , le , j , m) with px-maps u {X} {X'} r o j
... | inj₁ (j' , e) = a , le , inj₂ (j' , trans (sym (e a)) m)
... | inj₂ e        = a , le , inj₁ (trans (sym (e a)) m)

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

plain-fl : ∀ {u m} → Plain u m → FlPt u m
plain-fl (inj₁ e)         = inj₁ e
plain-fl (inj₂ (inj₁ e))  = inj₂ (inj₁ e)
plain-fl (inj₂ (inj₂ ck)) = inj₂ (inj₂ (inj₁ ck))

private
  -- P's recovery on the crashed flash, where PL's walk finds nothing
  plain-walk : ∀ {u m s' M} → RI u → m ≡ fl2 u ⊎ CkPt (fl3 u) m → Img m s' → (rt : RecTo s' M) → walkG (RecTo.g rt) s' ≡ []
  plain-walk r (inj₁ refl) img rt = fl2-walk r img rt
  plain-walk r (inj₂ (inj₁ refl)) img rt = ck1-walk r img rt
  plain-walk {u} r (inj₂ (inj₂ (inj₁ refl))) img rt = ck2-walk {fl3 u} (RI.slotL (fl3-RI r)) (RI.gle (fl3-RI r)) img rt
  plain-walk {u} r (inj₂ (inj₂ (inj₂ refl))) img rt = ck3-walk {fl3 u} img rt

  plain-of : ∀ {u m} → m ≡ fl2 u ⊎ CkPt (fl3 u) m → Plain u m
  plain-of (inj₁ e)  = inj₁ e
  plain-of (inj₂ ck) = inj₂ (inj₂ ck)

  -- P's crash relation at a crash point of P's flush (`flush-crash`) is
  -- PL's with its map named where the walk finds nothing
  via-P : ∀ {u m s'} → RI u → FlPt u m → Img m s' → (∀ {M} (rt : RecTo s' M) → walkG (RecTo.g rt) s' ≡ []) →
          Σ State λ t → Σ Map λ M → CRLM s' t M × Maps u M
  via-P {u} {m} {s'} r fp img wk = t' , M , crlm-of {s'} {t'} {M} rt dk (wk rt) , flush-maps r fp img rt
    where
      F  = flush-crash (AR-tOf u) r (m , fp , img)
      t' = proj₁ F
      M  = proj₁ (proj₂ (proj₂ F))
      rt = proj₁ (proj₂ (proj₂ (proj₂ F)))
      dk = proj₂ (proj₂ (proj₂ (proj₂ F)))

  plain-via : ∀ {u m s'} → RI u → m ≡ fl2 u ⊎ CkPt (fl3 u) m → Img m s' → Σ State λ t → Σ Map λ M → CRLM s' t M × Maps u M
  plain-via r pt img = via-P r (plain-fl (plain-of pt)) img (plain-walk r pt img)

-- a crash at P's crash points inside a flush: PL's crash relation with
-- the stable or the volatile L2P the flush started from
plain-crlm : ∀ {u m s'} → RI u → Plain u m → Img m s' → Σ State λ t → Σ Map λ M → CRLM s' t M × Maps u M
plain-crlm {u} {m} {s'} r (inj₂ (inj₁ refl)) img = proj₁ C , smap (fl3 u) , proj₂ C , inj₂ (λ a _ → refl)
  where C = free-crlm {fl3 u} {s'} (fl3-RI r) img
plain-crlm r (inj₁ e) img = plain-via r (inj₁ e) img
plain-crlm r (inj₂ (inj₂ ck)) img = plain-via r (inj₂ ck) img

-- the crash points after P's in-page / OOB commit inside a flush (the
-- checkpoint's second and third, the end without one): recovery
-- rebuilds the volatile L2P the flush started from
CmtEnd : St → St → Set
CmtEnd u m = Σ ℕ λ M → (InP u M ⊎ Σ ℕ λ L → OobP u L M) × (m ≡ ck2 (fi3 M u) ⊎ m ≡ ck3 (fi3 M u) ⊎ m ≡ fi4 M u)

cmt-fl : ∀ {u m} → CmtEnd u m → FlPt u m
cmt-fl {u} {m} (M , inj₁ ip , pt) = inj₂ (inj₂ (inj₂ (inj₁ (M , ip , cmt-pt {u} {m} M pt))))
  where
    cmt-pt : ∀ {u m} M → (m ≡ ck2 (fi3 M u) ⊎ m ≡ ck3 (fi3 M u) ⊎ m ≡ fi4 M u) →
             m ≡ fi2 M u ⊎ CkPt (fi3 M u) m ⊎ m ≡ fiK M u ⊎ m ≡ fi4 M u
    cmt-pt M (inj₁ e)         = inj₂ (inj₁ (inj₂ (inj₁ e)))
    cmt-pt M (inj₂ (inj₁ e))  = inj₂ (inj₁ (inj₂ (inj₂ e)))
    cmt-pt M (inj₂ (inj₂ e))  = inj₂ (inj₂ (inj₂ e))
cmt-fl {u} {m} (M , inj₂ (L , op) , pt) = inj₂ (inj₂ (inj₂ (inj₂ (L , M , op , cmt-pt {u} {m} M pt))))
  where
    cmt-pt : ∀ {u m} M → (m ≡ ck2 (fi3 M u) ⊎ m ≡ ck3 (fi3 M u) ⊎ m ≡ fi4 M u) →
             m ≡ fi2 M u ⊎ CkPt (fi3 M u) m ⊎ m ≡ fiK M u ⊎ m ≡ fi4 M u
    cmt-pt M (inj₁ e)         = inj₂ (inj₁ (inj₂ (inj₁ e)))
    cmt-pt M (inj₂ (inj₁ e))  = inj₂ (inj₁ (inj₂ (inj₂ e)))
    cmt-pt M (inj₂ (inj₂ e))  = inj₂ (inj₂ (inj₂ e))

cmt-crlm : ∀ {u m s'} → RI u → CmtEnd u m → Img m s' → Σ State λ t → Σ Map λ M → CRLM s' t M × Maps u M
cmt-crlm {u} r c@(M , io , inj₁ refl) img =
  via-P r (cmt-fl c) img (λ rt → ck2-walk {fi3 M u} (RI.slotL (fl3-RI r)) (all-sync (RI.gle r)) img rt)
cmt-crlm {u} r c@(M , io , inj₂ (inj₁ refl)) img = via-P r (cmt-fl c) img (λ rt → ck3-walk {fi3 M u} img rt)
cmt-crlm {u} {m} {s'} r (M , io , inj₂ (inj₂ refl)) img = proj₁ C , smap (fi4 M u) , proj₂ C , inj₂ (λ a _ → refl)
  where C = free-crlm {fi4 M u} {s'} (fi4-RI r (proj₂ (lkc-of {u} {M} io))) img

private
  -- P's crash relation of a commit's point before its SYNC: the stable or
  -- the volatile L2P
  crm-maps : ∀ {s M} → M ≡ smap s ⊎ M ≡ l2p s → Maps s M
  crm-maps (inj₁ e) = inj₁ (λ a _ → cong (λ f → f a) e)
  crm-maps (inj₂ e) = inj₂ (λ a _ → cong (λ f → f a) e)

-- every crash point of P's flush: the in-page / OOB commit's before its
-- checkpoint too, with a chain where the walk may take its record
-- (`free-fi2-M`, `ck1-fi3-CRLM`, `fiK-CRLM`: their map from P's crash
-- relation of the commit before its SYNC or from P's `RecTo`, `CmtSrc`)
private
  cmt-pos : ∀ {u m s'} M → RI u → (io : InP u M ⊎ Σ ℕ λ L → OobP u L M) → 0 < kc →
            (m ≡ fi2 M u ⊎ CkPt (fi3 M u) m ⊎ m ≡ fiK M u ⊎ m ≡ fi4 M u) → FlPt u m → Img m s' →
            Σ State λ t → Σ Map λ M' → CRLM s' t M' × Maps u M'
  cmt-pos {u} {m} {s'} M r io pos pt fp img = go pt
    where
      lz : Lazy u M
      lz = subst (λ cs → length cs < kc) (sym (ri-chain-free r)) pos , io
      src : ∀ {M'} → CmtSrc u s' M' → Maps u M'
      src (inj₁ e)  = crm-maps {u} e
      src (inj₂ rt) = flush-maps r fp img rt
      out : (Σ State λ t' → crashS (use flush) (tOf u) t' × Σ Map λ M' → CRLM s' t' M' × CmtSrc u s' M') →
            Σ State λ t → Σ Map λ M' → CRLM s' t M' × Maps u M'
      out (t' , _ , M' , cm , sc) = t' , M' , cm , src sc
      go : (m ≡ fi2 M u ⊎ CkPt (fi3 M u) m ⊎ m ≡ fiK M u ⊎ m ≡ fi4 M u) → Σ State λ t → Σ Map λ M' → CRLM s' t M' × Maps u M'
      go (inj₁ refl) with free-fi2-M {u} {tOf u} {s'} {M} (AR-tOf u) r lz img
      ... | t' , _ , M' , cm , e = t' , M' , cm , crm-maps {u} e
      go (inj₂ (inj₁ (inj₁ refl))) = out (ck1-fi3-CRLM {u} {tOf u} {s'} M (AR-tOf u) r io pos img)
      go (inj₂ (inj₁ (inj₂ (inj₁ refl)))) = cmt-crlm r (M , io , inj₁ refl) img
      go (inj₂ (inj₁ (inj₂ (inj₂ refl)))) = cmt-crlm r (M , io , inj₂ (inj₁ refl)) img
      go (inj₂ (inj₂ (inj₁ refl))) = out (fiK-CRLM {u} {tOf u} {s'} M (AR-tOf u) r io pos img)
      go (inj₂ (inj₂ (inj₂ refl))) = cmt-crlm r (M , io , inj₂ (inj₂ refl)) img

  cmt-all : ∀ {u m s'} M → RI u → (io : InP u M ⊎ Σ ℕ λ L → OobP u L M) →
            (m ≡ fi2 M u ⊎ CkPt (fi3 M u) m ⊎ m ≡ fiK M u ⊎ m ≡ fi4 M u) → FlPt u m → Img m s' →
            Σ State λ t → Σ Map λ M' → CRLM s' t M' × Maps u M'
  cmt-all {u} {m} {s'} M r io pt fp img =
    kc-split (λ k0 → via-P r fp img (λ rt → walk-k0 k0 (RecTo.g rt) s')) (λ pos → cmt-pos M r io pos pt fp img)

fp-crlm : ∀ {u m s'} → RI u → FlPt u m → Img m s' → Σ State λ t → Σ Map λ M → CRLM s' t M × Maps u M
fp-crlm r (inj₁ e) img = plain-crlm r (inj₁ e) img
fp-crlm r (inj₂ (inj₁ e)) img = plain-crlm r (inj₂ (inj₁ e)) img
fp-crlm r (inj₂ (inj₂ (inj₁ ck))) img = plain-crlm r (inj₂ (inj₂ ck)) img
fp-crlm r fp@(inj₂ (inj₂ (inj₂ (inj₁ (L , ip , pt))))) img = cmt-all L r (inj₁ ip) pt fp img
fp-crlm r fp@(inj₂ (inj₂ (inj₂ (inj₂ (L , M , op , pt))))) img = cmt-all M r (inj₂ (L , op)) pt fp img

kons-RI : ∀ {s} → RIL s → RI (konsS s)
kons-RI {s} (inj₁ r) = subst RI (sym (konsS-free {s} (ri-chain-free r))) r
kons-RI {s} (inj₂ (ph , r , nt)) = proj₂ (kons-S-RI ph (AR-tOf s) r nt)

------------------------------------------------------------------------
-- Every crash point of the chain phase: a write's, a relocation's, an
-- erase's; a flush's (a barrier's from the chain phase) before the
-- consolidation page's SYNC, P's own inside it (`fp-crlm`), the lazy
-- commit's.  Recovery, after any number of crashed recoveries, rebuilds
-- the stable or the volatile L2P of the state before the step.

private
  module PLDm = SB.Model PLD

-- the flush's crash points: PL's own (before the consolidation page's
-- SYNC, P's inside the flush after it, the lazy commit's)
FlushPt : St → St → Set
FlushPt = crashPL EraseGuard (use flush)

-- the crash points of PX's step u into the chain phase (b: the phase of
-- the state before it; a barrier goes to the chain phase only from it)
ChainPt : Bool → SB.UOp → St → St → Set
ChainPt b (SB.reg (SB.op x))   = crL b (SB.reg (SB.op x))
ChainPt false (SB.reg SB.barrier) _ _ = ⊥
ChainPt true (SB.reg SB.barrier) = FlushPt
ChainPt b SB.flush             = FlushPt

-- they are PX's own (`ChainPt` is `crL`)
chainpt-crL : ∀ b u {s s'} → ChainPt b u s s' → crL b u s s'
chainpt-crL b (SB.reg (SB.op x)) c = c
chainpt-crL true (SB.reg SB.barrier) c = c
chainpt-crL false SB.flush c = c
chainpt-crL true SB.flush c = c

private
  crls-sm : ∀ {s' t u} → CRLS s' t u → Σ State λ t' → Σ Map λ M → CRLM s' t' M × (∀ a → a ≤ amax → M a ≡ smap u a)
  crls-sm {t = t} (M , c , q) = t , M , c , (λ a _ → q a)

  crls-maps : ∀ {s' t u} → CRLS s' t u → Σ State λ t' → Σ Map λ M → CRLM s' t' M × Maps u M
  crls-maps {s'} {t} {u} c with crls-sm {s'} {t} {u} c
  ... | t' , M , cm , f = t' , M , cm , inj₁ f

  -- a write's, relocation's or erase's crash points: the stable L2P
  reg-crlm : ∀ x {s s'} → RIL s → crashPL EraseGuard (use (regop x)) s s' →
             Σ State λ t → Σ Map λ M → CRLM s' t M × (∀ a → a ≤ amax → M a ≡ smap s a)
  reg-crlm x {s} {s'} (inj₁ r) c = crls-sm {s'} {tOf s} {s} (free-reg-crls {EraseGuard} x (AR-tOf s) r c)
  reg-crlm (w a d) {s} {s'} (inj₂ (ph , r , nt)) c = crls-sm {s'} {tOf s} {s} (pl-wr-crls {EraseGuard} ph (AR-tOf s) r nt c)
  reg-crlm rl {s} {s'} (inj₂ (ph , r , nt)) c = crls-sm {s'} {tOf s} {s} (pl-rl-crls {EraseGuard} ph (AR-tOf s) r nt c)
  reg-crlm es {s} {s'} (inj₂ (ph , r , nt)) c = crls-sm {s'} {tOf s} {s} (pl-es-crls ph (AR-tOf s) r c)

  reg-maps : ∀ x {s s'} → RIL s → crashPL EraseGuard (use (regop x)) s s' → Σ State λ t → Σ Map λ M → CRLM s' t M × Maps s M
  reg-maps x {s} {s'} ri c with reg-crlm x {s} {s'} ri c
  ... | t , M , cm , f = t , M , cm , inj₁ f

  -- after a lazy commit the stable L2P is the volatile one before it
  crls-l2p : ∀ {s' t M s} → CRLS s' t (fiL M s) → Σ State λ t' → Σ Map λ M' → CRLM s' t' M' × Maps s M'
  crls-l2p {t = t} (M' , c , q) = t , M' , c , inj₂ (λ a _ → q a)

  kons-maps : ∀ {s M} → Maps (konsS s) M → Maps s M
  kons-maps {s} (inj₁ f) = inj₁ (λ a le → trans (f a le) (proj₂ (konsS-maps s) a))
  kons-maps {s} (inj₂ f) = inj₂ (λ a le → trans (f a le) (proj₁ (konsS-maps s) a))

  flush-crlm : ∀ {s s'} → RIL s → FlushPt s s' → Σ State λ t → Σ Map λ M → CRLM s' t M × Maps s M
  flush-crlm {s} {s'} (inj₁ r) (m , inj₁ e , img) = crls-maps {s'} {tOf s} {s} (free-kons-crls (AR-tOf s) r e img)
  flush-crlm {s} {s'} (inj₂ (ph , r , nt)) (m , inj₁ refl , img) =
    crls-maps {s'} {tOf s} {s} (crls-of {s'} {tOf s} {s} (kons-crash-CRLM ph (AR-tOf s) r nt img))
  flush-crlm {s} ri (m , inj₂ (inj₁ fp) , img) with fp-crlm (kons-RI ri) fp img
  ... | t , M , c , mp = t , M , c , kons-maps {s} {M} mp
  flush-crlm {s} {s'} (inj₁ r) (m , inj₂ (inj₂ (M , lz , inj₁ refl)) , img)
    with free-fi2-crash-M {s} {tOf s} {s'} {M} (AR-tOf s) r lz img
  ... | inj₁ (t' , _ , M' , cm , e) = t' , M' , cm , crm-maps {s} {M'} e
  ... | inj₂ (wk , t' , _ , cm) = t' , proj₁ cm , free-fi2-landed-M {s} {s'} {M} {t'} r lz img wk cm , crm-maps {s} {proj₁ cm} (proj₁ (proj₂ cm))
  flush-crlm {s} {s'} (inj₂ (ph , r , nt)) (m , inj₂ (inj₂ (M , lz , inj₁ refl)) , img)
    with pl-fi2-crash-CRLM {s} {tOf s} {s'} {M} ph (AR-tOf s) r lz img
  ... | inj₁ (t' , _ , M' , cm , e) = t' , M' , cm , crm-maps {s} {M'} e
  ... | inj₂ (wk , t' , _ , cm) = t' , proj₁ cm , pl-fi2-landed-M {s} {s'} {M} {t'} ph r lz img wk cm , crm-maps {s} {proj₁ cm} (proj₁ (proj₂ cm))
  flush-crlm {s} {s'} (inj₁ r) (m , inj₂ (inj₂ (M , lz , inj₂ e)) , img) with free-lazy-ph r lz
  ... | ph , eq = crls-l2p {s'} {tF (tOf s)} {M} {s}
                    (pl-lazy-crls ph (AR-tOf s) (subst (λ rs → RI (virt (rv rs) s)) (sym eq) r) (RI.vOK r) lz e img)
  flush-crlm {s} {s'} (inj₂ (ph , r , nt)) (m , inj₂ (inj₂ (M , lz , inj₂ e)) , img) =
    crls-l2p {s'} {tF (tOf s)} {M} {s} (pl-lazy-crls ph (AR-tOf s) r (RI.vOK r) lz e img)

chainpt-crlm : ∀ b u {s s'} → RIL s → ChainPt b u s s' → Σ State λ t → Σ Map λ M → CRLM s' t M × Maps s M
chainpt-crlm false (SB.reg (SB.op (SB.w a d))) ri c = reg-maps (w a d) ri c
chainpt-crlm true  (SB.reg (SB.op (SB.w a d))) ri c = reg-maps (w a d) ri c
chainpt-crlm false (SB.reg (SB.op SB.rl)) ri c = reg-maps rl ri c
chainpt-crlm true  (SB.reg (SB.op SB.rl)) ri c = reg-maps rl ri c
chainpt-crlm false (SB.reg (SB.op SB.es)) ri c = reg-maps es ri c
chainpt-crlm true  (SB.reg (SB.op SB.es)) ri c = reg-maps es ri c
chainpt-crlm false (SB.reg (SB.op SB.sy)) ri ()
chainpt-crlm true  (SB.reg (SB.op SB.sy)) ri ()
chainpt-crlm true (SB.reg SB.barrier) ri c = flush-crlm ri c
chainpt-crlm b SB.flush ri c = flush-crlm ri c

-- in PX: a crash of a step u into the chain phase, then any number of
-- crashed recoveries: recovery rebuilds the stable L2P of the state
-- before the step, or (a flush, a barrier) its volatile L2P
chainpt-rmc : ∀ u {b S s0 s g X} → OPX.RI (b , S) → ues (su S) ≡ [] → ChainPt b u (st (su S)) s0 → AgainL s0 s →
              PXm.ok SB.recover (true , lzS s g) X → RMc (b , S) X
chainpt-rmc u {b} {S} {s0} {s} {g} {X} r eu c ag (refl , refl , x , refl , ok)
  with chainpt-crlm b u {st (su S)} {s0} (ril-X {b , S} r eu) c
... | t , M , cm , inj₁ f = inj₁ (0 , λ a le → trans (crlm-l2p {EraseGuard} {s} {t} {M} {x} (again-crlm {s0} {s} {t} {M} cm ag) ok a) (f a le))
... | t , M , cm , inj₂ f = inj₂ (λ a le → trans (crlm-l2p {EraseGuard} {s} {t} {M} {x} (again-crlm {s0} {s} {t} {M} cm ag) ok a) (f a le))

-- ... a write's, relocation's or erase's: the stable L2P
chainpt-reg-sm : ∀ x {b S s0 s g X} → OPX.RI (b , S) → ues (su S) ≡ [] → crashPL EraseGuard (use (regop x)) (st (su S)) s0 →
                 AgainL s0 s → PXm.ok SB.recover (true , lzS s g) X → SM (b , S) X
chainpt-reg-sm x {b} {S} {s0} {s} {g} {X} r eu c ag (refl , refl , y , refl , ok)
  with reg-crlm x {st (su S)} {s0} (ril-X {b , S} r eu) c
... | t , M , cm , f = 0 , λ a le → trans (crlm-l2p {EraseGuard} {s} {t} {M} {y} (again-crlm {s0} {s} {t} {M} cm ag) ok a) (f a le)

chainpt-named : ∀ u {b S s0 s g X} → OPX.RI (b , S) → ues (su S) ≡ [] → ChainPt b u (st (su S)) s0 → AgainL s0 s →
                PXm.ok SB.recover (true , lzS s g) X → NSub (b , S) X
chainpt-named u {b} {S} {s0} {s} {g} {X} r eu c ag o =
  rmc-named {b , S} {true , lzS s g} {X} o (chainpt-rmc u {b} {S} {s0} {s} {g} {X} r eu c ag o)

-- in PX: a recovery after a crash inside a flush of the chain phase
-- (after its consolidation page, P's flush: before its SYNC, after it,
-- inside its checkpoint) names only pages the state before the flush
-- named
flush-plain-named : ∀ {b S m s' X} → OPX.RI (b , S) → ues (su S) ≡ [] → Plain (konsS (st (su S))) m → Img m s' →
                    PXm.ok SB.recover (true , lzS s' (gh S)) X → NSub (b , S) X
flush-plain-named {b} {S} {m} {s'} {X} r eu pl img o =
  chainpt-named SB.flush {b} {S} {s'} {s'} {gh S} {X} r eu (m , inj₂ (inj₁ (plain-fl pl)) , img) none o

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

------------------------------------------------------------------------
-- In PUSBic's phase, whose crash relation is per flash command: a crash
-- after any command of a write, a GC relocation or a GC erase leaves a
-- crash image of the step's end state (for a write or relocation before
-- its tentative page's append, of that state with one erased page on
-- top, `op-cmd-img`, which recovery skips, `tent-back-M`; for an erase,
-- its one data page's commands, `es-mid`, `mid-crash`) with that state's
-- ghost (`ghW`, `ghR`, `ghE`): a power cut of a normal state after the
-- step; a step that does nothing leaves a power cut of the state itself.
-- So recovery, after any number of crashed recoveries, names only pages
-- the state before the step named.

private
  -- the step u to the end state u1 (its ghost PUSBic's), the crash's
  -- ghost that state's, PU's crash relation with the map named at the
  -- crash state given the end state's invariant
  pu-step-gm : ∀ u {S S' C X} u1 → OPX.RI (false , S) → PXm.ok (SB.use u) (false , S) (false , ⟦ u1 , ghostN u1 ⟧) →
               gh S' ≡ ghostN u1 →
               (∀ {t} → ARX ⟦ u1 , ghostN u1 ⟧ t →
                  Σ ℕ λ k → k ≤ length (ues u1) × RecGM (st (su S')) (ghostN u1) t (mapAt (smap (st u1)) (ues u1) k)) →
               AgainX (false , S') C → PXm.ok SB.recover C X → SM (false , ⟦ u1 , ghostN u1 ⟧) X
  pu-step-gm u {S} {S'} {C} {X} u1 r o eg gm ag rec =
    gm-sm {⟦ u1 , ghostN u1 ⟧} {st (su S')} {ues (su S')} {proj₁ r1} {C} {X} (gm (proj₁ (proj₂ r1)))
          (subst (λ g → AgainX (false , ⟦ ⟪ st (su S') , ues (su S') ⟫ , g ⟧) C) eg ag) rec
    where r1 = OPX.B-ok u {false , S} {false , ⟦ u1 , ghostN u1 ⟧} r o

  -- ... a step that keeps every map: a map of the state before it
  pu-step-cut : ∀ u {S S' C X} u1 → RegU u → OPX.RI (false , S) → PXm.ok (SB.use u) (false , S) (false , ⟦ u1 , ghostN u1 ⟧) →
                gh S' ≡ ghostN u1 →
                (∀ {t} → ARX ⟦ u1 , ghostN u1 ⟧ t →
                   Σ ℕ λ k → k ≤ length (ues u1) × RecGM (st (su S')) (ghostN u1) t (mapAt (smap (st u1)) (ues u1) k)) →
                AgainX (false , S') C → PXm.ok SB.recover C X → SM (false , S) X
  pu-step-cut u {S} {S'} {C} {X} u1 ru r o eg gm ag rec =
    kept-sm {false , S} {false , ⟦ u1 , ghostN u1 ⟧} {X} (reg-kept ru {false , S} {false , ⟦ u1 , ghostN u1 ⟧} o)
      (pu-step-gm u {S} {S'} {C} {X} u1 r o eg gm ag rec)

  -- the crash of a step that does nothing: a power cut of the state itself
  pu-self-cut : ∀ {S S' C X} → OPX.RI (false , S) → gh S' ≡ ghostN (su S) → Img (st (su S)) (st (su S')) →
                AgainX (false , S') C → PXm.ok SB.recover C X → SM (false , S) X
  pu-self-cut {S} {S'} {C} {X} r eg img ag rec =
    pu-again-sm {S} {ues (su S')} {st (su S')} {C} {X} r img
      (subst (λ g → AgainX (false , ⟦ ⟪ st (su S') , ues (su S') ⟫ , g ⟧) C) eg ag) rec

  -- a write's or relocation's crash image, before its tentative page's
  -- append with one erased page on top
  opt-gm : ∀ f1 f2 u us {s'' t} → ARX ⟦ ⟪ opt f1 f2 u , us ⟫ , ghostN ⟪ opt f1 f2 u , us ⟫ ⟧ t →
           Img (opt f1 f2 u) s'' ⊎ (f2 ≡ true × Img (opt f1 f2 u) (padW (erased ∷ []) s'')) →
           Σ ℕ λ k → k ≤ length us × RecGM s'' (ghostN ⟪ opt f1 f2 u , us ⟫) t (mapAt (smap (opt f1 f2 u)) us k)
  opt-gm f1 f2 u us {s''} {t} ar (inj₁ img) = pu-cut-gm {⟦ ⟪ opt f1 f2 u , us ⟫ , ghostN ⟪ opt f1 f2 u , us ⟫ ⟧} {s''} {t} ar img
  opt-gm f1 .true u us {s''} {t} ar (inj₂ (refl , img)) =
    proj₁ G , proj₁ (proj₂ G) , tent-back-M f1 u us {s''} {t} b img (proj₂ (proj₂ G))
    where
      S1 = ⟦ ⟪ opt f1 true u , us ⟫ , ghostN ⟪ opt f1 true u , us ⟫ ⟧
      G = pu-cut-gm {S1} {padW (erased ∷ []) s''} {t} ar img
      b = proj₁ (proj₂ (proj₂ (proj₁ (ivX {S1} {t} ar))))

pu-w-sm : ∀ a d {S S' C X} → OPX.RI (false , S) → PXm.crash (SB.use (SB.reg (SB.op (SB.w a d)))) (false , S) (false , S') →
          AgainX (false , S') C → PXm.ok SB.recover C X → SM (false , S) X
pu-w-sm a d {S} {S'} {C} {X} r (inj₁ (refl , .S , refl , ((x , inj₁ (ib , f1 , f2 , rn) , img , eg) , _))) ag rec =
  pu-step-cut (SB.reg (SB.op (SB.w a d))) {S} {S'} {C} {X} u1 (reg-w a d) r o eg
    (λ ar → opt-gm f1 f2 (wr0 a d (st (su S))) (ues (su S)) ar (op-cmd-img f1 f2 (wr0 a d (st (su S))) {x} {st (su S')} rn img)) ag rec
  where
    u1 = ⟪ opt f1 f2 (wr0 a d (st (su S))) , ues (su S) ⟫
    o : PXm.ok (SB.use (SB.reg (SB.op (SB.w a d)))) (false , S) (false , ⟦ u1 , ghostN u1 ⟧)
    o = inj₁ (refl , S , refl , ((inj₁ (ib , f1 , f2 , refl) , refl) , refl))
pu-w-sm a d {S} {S'} {C} {X} r (inj₁ (refl , .S , refl , ((x , inj₂ (nb , refl) , img , eg) , _))) ag rec =
  pu-self-cut {S} {S'} {C} {X} r eg img ag rec
pu-w-sm a d r (inj₂ (() , _)) ag rec

pu-rl-sm : ∀ {S S' C X} → OPX.RI (false , S) → PXm.crash (SB.use (SB.reg (SB.op SB.rl))) (false , S) (false , S') →
           AgainX (false , S') C → PXm.ok SB.recover C X → SM (false , S) X
pu-rl-sm {S} {S'} {C} {X} r (inj₁ (refl , .S , refl , ((x , inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , rn)) , img , eg) , _))) ag rec =
  pu-step-cut (SB.reg (SB.op SB.rl)) {S} {S'} {C} {X} u1 reg-rl r
    (inj₁ (refl , S , refl , ((inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , refl)) , refl) , refl))) eg
    (λ ar → opt-gm f1 f2 (rl0 p (st (su S))) (ues (su S)) ar (op-cmd-img f1 f2 (rl0 p (st (su S))) {x} {st (su S')} rn img)) ag rec
  where u1 = ⟪ opt f1 f2 (rl0 p (st (su S))) , ues (su S) ⟫
pu-rl-sm {S} {S'} {C} {X} r (inj₁ (refl , .S , refl , ((x , inj₁ (gk , p , lt , inj₂ (nv , refl)) , img , eg) , _))) ag rec =
  pu-step-cut (SB.reg (SB.op SB.rl)) {S} {S'} {C} {X} u1 reg-rl r
    (inj₁ (refl , S , refl , ((inj₁ (gk , p , lt , inj₂ (nv , refl)) , refl) , refl))) eg
    (λ {t} ar → pu-cut-gm {⟦ u1 , ghostN u1 ⟧} {st (su S')} {t} ar img) ag rec
  where u1 = ⟪ rlX p (st (su S)) , ues (su S) ⟫
pu-rl-sm {S} {S'} {C} {X} r (inj₁ (refl , .S , refl , ((x , inj₂ (ng , refl) , img , eg) , _))) ag rec =
  pu-self-cut {S} {S'} {C} {X} r eg img ag rec
pu-rl-sm r (inj₂ (() , _)) ag rec

pu-es-sm : ∀ {S S' C X} → OPX.RI (false , S) → PXm.crash (SB.use (SB.reg (SB.op SB.es))) (false , S) (false , S') →
           AgainX (false , S') C → PXm.ok SB.recover C X → SM (false , S) X
pu-es-sm {S} {S'} {C} {X} r (inj₁ (refl , .S , refl , ((x , (p , ep , rr@(before cs is)) , img , eg) , _))) ag rec =
  pu-step-cut (SB.reg (SB.op SB.es)) {S} {S'} {C} {X} u1 reg-es r (inj₁ (refl , S , refl , (((p , ep , refl) , refl) , refl))) eg
    (λ {t} ar → pu-cut-gm {⟦ u1 , ghostN u1 ⟧} {st (su S')} {t} ar
                  (proj₂ (proj₂ (mid-crash {x} {esF p (st (su S))} {st (su S')} (es-mid p (st (su S)) rr) img)))) ag rec
  where u1 = ⟪ esF p (st (su S)) , ues (su S) ⟫
pu-es-sm r (inj₂ (() , _)) ag rec

-- a flush of PUSBic's phase: its crash points after the SYNC (`fs`) and
-- at the end of its checkpoint (`fe`) are power cuts of its end states
-- (`FlOk`) with their ghosts (`ghF`)
data FlEndPt (s : StU) : St → Set where
  fl-synced : FlEndPt s (fl3 (st s))
  fl-ckpt   : FlEndPt s (ck3 (fl3 (st s)))

pu-flend-rmc : ∀ {S S' C X m} → OPX.RI (false , S) → FlEndPt (su S) m → Img m (st (su S')) → gh S' ≡ ghostN ⟪ m , [] ⟫ →
               AgainX (false , S') C → PXm.ok SB.recover C X → RMc (false , S) X
pu-flend-rmc {S} {S'} {C} {X} {m} r pt img eg ag rec =
  px-rmc SB.flush {false , S} {false , ⟦ ⟪ m , [] ⟫ , ghostN ⟪ m , [] ⟫ ⟧} {X} r o
    (pu-step-gm SB.flush {S} {S'} {C} {X} ⟪ m , [] ⟫ r o eg
      (λ {t} ar → pu-cut-gm {⟦ ⟪ m , [] ⟫ , ghostN ⟪ m , [] ⟫ ⟧} {st (su S')} {t} ar img) ag rec)
  where
    fl : ∀ {m} → FlEndPt (su S) m → FlOk (su S) ⟪ m , [] ⟫
    fl fl-synced = inj₁ refl
    fl fl-ckpt   = inj₂ refl
    o : PXm.ok (SB.use SB.flush) (false , S) (false , ⟦ ⟪ m , [] ⟫ , ghostN ⟪ m , [] ⟫ ⟧)
    o = inj₁ (refl , S , refl , inj₁ (fl pt , refl))

-- a flush's crash points inside its checkpoint (`fck`, the ghost the
-- whole region as durable part): recovery rebuilds the flushed L2P — the
-- old slot with the region replayed, or the new slot (`ck-G-M`) — so the
-- volatile L2P the flush started from
pu-fck-rmc : ∀ {S S' C X x} → OPX.RI (false , S) → CkCmd (fl3 (st (su S))) x → Img x (st (su S')) →
             gh S' ≡ ([] , map cur (dr (st (su S')))) → AgainX (false , S') C → PXm.ok SB.recover C X → RMc (false , S) X
pu-fck-rmc {S} {S'} {C} {X} {x} (t , ar , y) c img eg ag rec =
  inj₂ (λ a _ → again-l2p {⟦ ⟪ st (su S') , ues (su S') ⟫ , ([] , map cur (dr (st (su S')))) ⟧} {proj₁ F} {smap (fl3 (st (su S)))} {C} {X} G
                  (subst (λ g → AgainX (false , ⟦ ⟪ st (su S') , ues (su S') ⟫ , g ⟧) C) eg ag) rec a)
  where
    F = fl-A SB.flush {su S} {t} {⟪ fl3 (st (su S)) , [] ⟫} tt (ivX {S} {t} ar) (inj₁ refl)
    G = ck-G-M {su S} {proj₁ F} {st (su S')} (proj₂ (proj₂ F)) (fck-img {su S} {x} {st (su S')} c img)

-- a barrier's or a flush's crash points before its SYNC (`BarCmd`): once
-- its committed page is appended, a power cut of the barrier's end state
-- (`sB`) with its ghost; before, that flash with one erased page on top,
-- read with the state's own ghost (`ghC`: the barrier's epoch, its
-- committed page missing, is dropped, `drop-pad-M`).  Either way recovery
-- rebuilds a map of the barrier's end state, whose new epoch's map is the
-- volatile L2P (`ms-barrier`, `bar-rmc`); the barrier's end state need not be a
-- normal state of PX (a flush, a forced barrier), its invariant is
-- PUSBic's `pre-sync`
private
  bar-gm : ∀ {S t s' x} → ARX S t → (r : BarCmd (su S) x) → Img x s' →
           Σ ℕ λ k → k ≤ length (ues (su S) ++ epE (st (su S)) ∷ []) ×
             RecGM s' (ghC (su S) r) (preT t) (mapAt (smap (flB (st (su S)))) (ues (su S) ++ epE (st (su S)) ∷ []) k)
  bar-gm {S} {t} {s'} ar (after cs₁ cs₂ is₁ is₂) img =
    crash-normal-GM {sB (su S)} {preT t} {s'} (pre-sync {su S} {t} (proj₁ iv)) (≤-refl ∷ proj₂ iv)
      (proj₂ (proj₂ (mid-crash {runs cs₂ (run (apR (cmt (st (su S)))) (runs cs₁ (st (su S))))} {fl2 (st (su S))} {s'}
                               (fl-mid (st (su S)) (after cs₁ cs₂ is₁ is₂)) img)))
    where iv = ivX {S} {t} ar
  bar-gm {S} {t} {s'} ar (before cs is) img =
    proj₁ G , proj₁ (proj₂ G) ,
    drop-pad-M {s'} {shpN s} {ntop s} {prN s} {preT t} {M} (proj₁ SK) (proj₁ (proj₂ SK))
      (proj₁ (proj₂ (proj₂ SK))) (proj₁ (proj₂ (proj₂ (proj₂ SK)))) (proj₁ (proj₂ (proj₂ (proj₂ (proj₂ SK)))))
      (proj₂ (proj₂ (proj₂ (proj₂ (proj₂ SK)))))
      (subst (λ gh → RecGM (padW (erased ∷ []) s') gh (preT t) M) (ghost-sB s) (proj₂ (proj₂ G)))
    where
      s  = su S
      iv = ivX {S} {t} ar
      img' : Img (flB (st s)) (padW (erased ∷ []) s')
      img' = proj₂ (proj₂ (mid-crash {runs cs (st s)} {fl2 (st s)} {s'} (fl-mid (st s) (before {ap = just (cmt (st s))} cs is)) img))
      G  = crash-normal-GM {sB s} {preT t} {padW (erased ∷ []) s'} (pre-sync {s} {t} (proj₁ iv)) (≤-refl ∷ proj₂ iv) img'
      M  = mapAt (smap (flB (st s))) (ues s ++ epE (st s) ∷ []) (proj₁ G)
      cl : CrashL (dr (st s)) (dr s')
      cl = subst (λ w → CrashL w (dr s')) (runs-dr {st s} cs is (st s)) (proj₁ (proj₂ (proj₂ (proj₂ img))))
      SK = skip-top {s} {s'} (proj₁ (proj₂ (proj₂ (proj₁ iv)))) cl

-- a map of the barrier's end state: a map of the state, or its volatile L2P
bar-rmc : ∀ {S t X} → ARX S t → ∀ k →
          (∀ a → a ≤ amax → l2p (stX X) a ≡ mapAt (smap (flB (st (su S)))) (ues (su S) ++ epE (st (su S)) ∷ []) k a) →
          RMc (false , S) X
bar-rmc {S} {t} {X} ar k e =
  maps-rmc {false , S} {false , ⟦ sB (su S) , ghostN (sB (su S)) ⟧} {X}
    (proj₂ (ms-barrier {false , S} {false , ⟦ sB (su S) , ghostN (sB (su S)) ⟧} (epE (st (su S))) (λ a → refl) (λ a → refl) refl vm))
    (k , e)
  where vm = proj₂ (proj₁ (proj₂ (proj₂ (proj₁ (proj₂ (proj₁ (ivX {S} {t} ar)))))))

pu-barcmd-rmc : ∀ {S S' C X x} → OPX.RI (false , S) → (r : BarCmd (su S) x) → Img x (st (su S')) → gh S' ≡ ghC (su S) r →
                AgainX (false , S') C → PXm.ok SB.recover C X → RMc (false , S) X
pu-barcmd-rmc {S} {S'} {C} {X} {x} (t , ar , y) r img eg ag rec =
  bar-rmc {S} {t} {X} ar (proj₁ G)
    (λ a _ → again-l2p {⟦ ⟪ st (su S') , ues (su S') ⟫ , ghC (su S) r ⟧} {preT t} {M} {C} {X} (proj₂ (proj₂ G))
               (subst (λ g → AgainX (false , ⟦ ⟪ st (su S') , ues (su S') ⟫ , g ⟧) C) eg ag) rec a)
  where
    G  = bar-gm {S} {t} {st (su S')} ar r img
    M  = mapAt (smap (flB (st (su S)))) (ues (su S) ++ epE (st (su S)) ∷ []) (proj₁ G)

-- an in-page / OOB commit of PUSBic's phase (no epoch unsynced): until
-- its SYNC the barrier's flash, after it the committed volatile L2P
-- (`crash-Fi-M`, SCFTL.Impl.UnsyncedSyncInPage; `fi-crfi`)
FiCrash : SU → SU → Set
FiCrash S S' = Σ ℕ λ M → ues (su S) ≡ [] × InPO (st (su S)) M ×
               Σ St λ x → Σ (FiCmd (su S) M x) λ r → Img x (st (su S')) × gh S' ≡ ghFi (su S) M r (st (su S'))

pu-fi-rmc : ∀ {S S' C X} → OPX.RI (false , S) → FiCrash S S' → AgainX (false , S') C →
            PXm.ok SB.recover C X → RMc (false , S) X
pu-fi-rmc {S} {S'} {C} {X} (t , ar , y) (M , eu , po , x , r , img , eg) ag rec = from (proj₂ (proj₂ F))
  where
    F  = crash-Fi-M {su S} {t} {M} {st (su S')} {ghFi (su S) M r (st (su S'))} (ivX {S} {t} ar) eu po
           (fi-crfi {su S} {M} {x} {st (su S')} (proj₂ (proj₁ ar)) r img)
    S0 = ⟦ ⟪ st (su S') , ues (su S') ⟫ , ghFi (su S) M r (st (su S')) ⟧
    ag′ : AgainX (false , S0) C
    ag′ = subst (λ g → AgainX (false , ⟦ ⟪ st (su S') , ues (su S') ⟫ , g ⟧) C) eg ag
    from : FiMap (su S) (st (su S')) (ghFi (su S) M r (st (su S'))) (proj₁ F) → RMc (false , S) X
    from (inj₁ (k , g)) =
      bar-rmc {S} {t} {X} ar k
        (λ a _ → again-l2p {S0} {proj₁ F} {mapAt (smap (flB (st (su S)))) (ues (su S) ++ epE (st (su S)) ∷ []) k} {C} {X} g ag′ rec a)
    from (inj₂ g) = inj₂ (λ a _ → again-l2p {S0} {proj₁ F} {l2p (st (su S))} {C} {X} g ag′ rec a)


-- a SYNC of PUSBic's phase (whole, or of a prefix of the unsynced
-- epochs, `PartSy`): a power cut of its state before (nothing landed) or
-- of its end state with that state's ghost
pu-sy-sm : ∀ {S S' C X} → OPX.RI (false , S) → crashX (SB.use (SB.reg (SB.op SB.sy))) S S' → AgainX (false , S') C →
           PXm.ok SB.recover C X → SM (false , S) X
pu-sy-sm {S} {S'} {C} {X} r (inj₁ (inj₁ (img , eg) , _)) ag rec = pu-self-cut {S} {S'} {C} {X} r eg img ag rec
pu-sy-sm {S} {S'} {C} {X} r (inj₁ (inj₂ (rr , rel , img , eg) , _)) ag rec =
  pu-step-cut (SB.reg (SB.op SB.sy)) {S} {S'} {C} {X} (syS rr (su S)) reg-sy r (inj₁ (refl , S , refl , inj₁ (rr , rel , refl , refl))) eg
    (λ {t} ar → pu-cut-gm {⟦ syS rr (su S) , ghostN (syS rr (su S)) ⟧} {st (su S')} {t} ar img) ag rec
pu-sy-sm {S} {S'} {C} {X} r (inj₂ ((xs , ys , l , rr , e , land , rel , img , eg) , _)) ag rec =
  pu-step-cut (SB.reg (SB.op SB.sy)) {S} {S'} {C} {X} (syBU xs ys l rr (su S)) reg-sy r
    (inj₁ (refl , S , refl , inj₂ (xs , ys , l , rr , e , land , rel , refl , refl))) eg
    (λ {t} ar → pu-cut-gm {⟦ syBU xs ys l rr (su S) , ghostN (syBU xs ys l rr (su S)) ⟧} {st (su S')} {t} ar img) ag rec

-- so every crash point of a flush of PUSBic's phase (but the in-page /
-- OOB commit's, `crashSic`'s other case) and of a barrier
pu-flcmd-rmc : ∀ {S S' C X x} → OPX.RI (false , S) → (r : FlCmd (su S) x) → Img x (st (su S')) →
               gh S' ≡ ghF (su S) r (st (su S')) → AgainX (false , S') C → PXm.ok SB.recover C X → RMc (false , S) X
pu-flcmd-rmc {S} {S'} {C} {X} r (fb rb) img eg ag rec = pu-barcmd-rmc {S} {S'} {C} {X} r rb img eg ag rec
pu-flcmd-rmc {S} {S'} {C} {X} r fs img eg ag rec = pu-flend-rmc {S} {S'} {C} {X} r fl-synced img eg ag rec
pu-flcmd-rmc {S} {S'} {C} {X} r (fck c) img eg ag rec = pu-fck-rmc {S} {S'} {C} {X} r c img eg ag rec
pu-flcmd-rmc {S} {S'} {C} {X} r fe img eg ag rec = pu-flend-rmc {S} {S'} {C} {X} r fl-ckpt img eg ag rec

pu-fl-rmc : ∀ {S S' C X} → OPX.RI (false , S) → crashPUc (SB.use SB.flush) S S' → AgainX (false , S') C →
            PXm.ok SB.recover C X → RMc (false , S) X
pu-fl-rmc {S} {S'} {C} {X} r ((x , rf , img , eg) , _) ag rec = pu-flcmd-rmc {S} {S'} {C} {X} r rf img eg ag rec

pu-ba-rmc : ∀ {S S' C X} → OPX.RI (false , S) → crashPUc (SB.use (SB.reg SB.barrier)) S S' → AgainX (false , S') C →
            PXm.ok SB.recover C X → RMc (false , S) X
pu-ba-rmc {S} {S'} {C} {X} r (inj₁ (lt , x , rb , img , eg) , _) ag rec = pu-barcmd-rmc {S} {S'} {C} {X} r rb img eg ag rec
pu-ba-rmc {S} {S'} {C} {X} r (inj₂ (x , rf , img , eg) , _) ag rec = pu-flcmd-rmc {S} {S'} {C} {X} r rf img eg ag rec

------------------------------------------------------------------------
-- `RecoveredNamed` for the crash states whose cut is one of the crash
-- points above (`Cov`), followed by any number of crashed recoveries
-- (`AgainX`): the end of any operation (`Cut`), the chain phase's
-- (`ChainPt`), and PUSBic's writes', relocations', erases', flushes'
-- after the SYNC and barriers' after the committed page

data Cov (X0 : XS) : XS → Set where
  cov-end   : ∀ u {X1 C} → PXm.ok (SB.use u) X0 X1 → Cut X1 C → Cov X0 C
  cov-chain : ∀ u {s0} → uesX X0 ≡ [] → ChainPt (proj₁ X0) u (stX X0) s0 → Cov X0 (true , lzS s0 (gh (proj₂ X0)))
  cov-w     : ∀ a d {S S'} → X0 ≡ (false , S) → PXm.crash (SB.use (SB.reg (SB.op (SB.w a d)))) (false , S) (false , S') →
              Cov X0 (false , S')
  cov-rl    : ∀ {S S'} → X0 ≡ (false , S) → PXm.crash (SB.use (SB.reg (SB.op SB.rl))) (false , S) (false , S') → Cov X0 (false , S')
  cov-es    : ∀ {S S'} → X0 ≡ (false , S) → PXm.crash (SB.use (SB.reg (SB.op SB.es))) (false , S) (false , S') → Cov X0 (false , S')
  cov-sy    : ∀ {S S'} → X0 ≡ (false , S) → crashX (SB.use (SB.reg (SB.op SB.sy))) S S' → Cov X0 (false , S')
  cov-fl    : ∀ {S S'} → X0 ≡ (false , S) → crashPUc (SB.use SB.flush) S S' → Cov X0 (false , S')
  cov-fi    : ∀ {S S'} → X0 ≡ (false , S) → FiCrash S S' → ues (su S') ≡ [] → Cov X0 (false , S')
  cov-ba    : ∀ {S S'} → X0 ≡ (false , S) → crashPUc (SB.use (SB.reg SB.barrier)) S S' → Cov X0 (false , S')
  -- a barrier's from the chain phase: after its consolidation step, one
  -- of PUSBic's
  cov-kbar  : ∀ {S S'} → X0 ≡ (true , S) → crashPUc (SB.use (SB.reg SB.barrier)) (konsU S) S' → Cov X0 (false , S')

private
  -- crashed recoveries of the chain phase are PL's (`AgainL`)
  againX-chain : ∀ {s0 g C} → AgainX (true , lzS s0 g) C → Σ St λ s → C ≡ (true , lzS s g) × AgainL s0 s
  againX-chain noneX = _ , refl , none
  againX-chain (moreX {C} {C'} ag c) with againX-chain ag
  ... | s , refl , al with C' | c
  ...   | (true , _) | (refl , _ , s' , refl , c') = s' , refl , more al c'

-- recovery after a covered crash point rebuilds a stable map of the
-- state before the operation, or (a flush, a barrier) its volatile L2P
cov-rmc : ∀ {X0 C0 C X} → OPX.RI X0 → Cov X0 C0 → AgainX C0 C → PXm.ok SB.recover C X → RMc X0 X
cov-rmc {X0} {C0} {C} {X} r (cov-end u {X1} o (cut-pu {S1} {u'} {s'} refl img)) ag rec =
  px-rmc u {X0} {X1} {X} r o (pu-again-sm {S1} {u'} {s'} {C} {X} (OPX.B-ok u r o) img ag rec)
cov-rmc {X0} {C0} {C} {X} r (cov-end u {X1} o (cut-chain {s0} {g} eu img)) ag rec with againX-chain ag
... | s , refl , al = px-rmc u {X0} {X1} {X} r o (chain-again-sm {X1} {s0} {s} {g} {X} (OPX.B-ok u r o) eu img al rec)
cov-rmc {b , S} {C0} {C} {X} r (cov-chain u {s0} eu c) ag rec with againX-chain ag
... | s , refl , al = chainpt-rmc u {b} {S} {s0} {s} {gh S} {X} r eu c al rec
cov-rmc r (cov-w a d refl c) ag rec = inj₁ (pu-w-sm a d r c ag rec)
cov-rmc r (cov-rl refl c) ag rec = inj₁ (pu-rl-sm r c ag rec)
cov-rmc r (cov-es refl c) ag rec = inj₁ (pu-es-sm r c ag rec)
cov-rmc {false , S} {C = C} {X} r (cov-sy refl c) ag rec = inj₁ (pu-sy-sm {S} {_} {C} {X} r c ag rec)
cov-rmc {false , S} {C = C} {X} r (cov-fl refl c) ag rec = pu-fl-rmc {S} {_} {C} {X} r c ag rec
cov-rmc {false , S} {C = C} {X} r (cov-fi refl c _) ag rec = pu-fi-rmc {S} {_} {C} {X} r c ag rec
cov-rmc {false , S} {C = C} {X} r (cov-ba refl c) ag rec = pu-ba-rmc {S} {_} {C} {X} r c ag rec
cov-rmc {true , S} {C0} {C} {X} (eu , ril) (cov-kbar refl c) ag rec =
  mk-rmc {true , S} {false , konsU S} {X}
    (ms-keep {true , S} {false , konsU S} (proj₁ (konsS-maps (st (su S)))) (proj₂ (konsS-maps (st (su S)))) (sym eu))
    (pu-ba-rmc {konsU S} {_} {C} {X} (rix-kons {st (su S)} (gh S) ril) c ag rec)

cov-named : ∀ {X0 C0 C X} → OPX.RI X0 → Cov X0 C0 → AgainX C0 C → PXm.ok SB.recover C X → NSub X0 X
cov-named {X0} {C0} {C} {X} r cv ag rec = rmc-named {X0} {C} {X} rec (cov-rmc {X0} {C0} {C} {X} r cv ag rec)

-- every crash of a write, relocation, erase or SYNC, in either phase, is one (`RegU`)

cov-reg : ∀ {u X0 C} → RegU u → PXm.crash (SB.use u) X0 C → Cov X0 C
cov-reg {X0 = false , S} {C = false , S'} (reg-w a d) c = cov-w a d refl c
cov-reg {X0 = false , S} {C = false , S'} reg-rl c = cov-rl refl c
cov-reg {X0 = false , S} {C = false , S'} reg-es c = cov-es refl c
cov-reg {X0 = false , S} {C = false , S'} reg-sy (inj₁ (refl , .S , refl , c)) = cov-sy refl c
cov-reg {X0 = true , S} {C = false , S'} reg-sy (inj₁ (refl , _ , () , _))
cov-reg {X0 = false , S} {C = true , S'} reg-sy (inj₂ (refl , eu , s0 , refl , ()))
cov-reg {X0 = true , S} {C = true , S'} reg-sy (inj₂ (refl , eu , s0 , refl , ()))
cov-reg {X0 = true , S} {C = false , S'} (reg-w a d) (inj₁ (refl , _ , () , _))
cov-reg {X0 = true , S} {C = false , S'} reg-rl (inj₁ (refl , _ , () , _))
cov-reg {X0 = true , S} {C = false , S'} reg-es (inj₁ (refl , _ , () , _))
cov-reg {X0 = b , S} {C = false , S'} ru (inj₂ (() , _))
cov-reg {X0 = b , S} {C = true , S'} ru (inj₁ (() , _))
cov-reg {X0 = b , S} {C = true , S'} (reg-w a d) (inj₂ (refl , eu , s0 , refl , c)) = cov-chain (SB.reg (SB.op (SB.w a d))) eu c
cov-reg {X0 = b , S} {C = true , S'} reg-rl (inj₂ (refl , eu , s0 , refl , c)) = cov-chain (SB.reg (SB.op SB.rl)) eu c
cov-reg {X0 = b , S} {C = true , S'} reg-es (inj₂ (refl , eu , s0 , refl , c)) = cov-chain (SB.reg (SB.op SB.es)) eu c

-- ... and recovery after such a crash point rebuilds a stable map of the
-- state before it (thirty-fourth session; never its volatile L2P)
reg-sm : ∀ {u X0 C0 C X} → RegU u → OPX.RI X0 → PXm.crash (SB.use u) X0 C0 → AgainX C0 C → PXm.ok SB.recover C X → SM X0 X
reg-sm {X0 = false , S} {C0 = false , S'} (reg-w a d) r c ag rec = pu-w-sm a d r c ag rec
reg-sm {X0 = false , S} {C0 = false , S'} reg-rl r c ag rec = pu-rl-sm r c ag rec
reg-sm {X0 = false , S} {C0 = false , S'} reg-es r c ag rec = pu-es-sm r c ag rec
reg-sm {X0 = false , S} {C0 = false , S'} {C} {X} reg-sy r (inj₁ (refl , .S , refl , c)) ag rec = pu-sy-sm {S} {S'} {C} {X} r c ag rec
reg-sm {X0 = true , S} {C0 = false , S'} reg-sy r (inj₁ (refl , _ , () , _)) ag rec
reg-sm {X0 = false , S} {C0 = true , S'} reg-sy r (inj₂ (refl , eu , s0 , refl , ())) ag rec
reg-sm {X0 = true , S} {C0 = true , S'} reg-sy r (inj₂ (refl , eu , s0 , refl , ())) ag rec
reg-sm {X0 = true , S} {C0 = false , S'} (reg-w a d) r (inj₁ (refl , _ , () , _)) ag rec
reg-sm {X0 = true , S} {C0 = false , S'} reg-rl r (inj₁ (refl , _ , () , _)) ag rec
reg-sm {X0 = true , S} {C0 = false , S'} reg-es r (inj₁ (refl , _ , () , _)) ag rec
reg-sm {X0 = b , S} {C0 = false , S'} ru r (inj₂ (() , _)) ag rec
reg-sm {X0 = b , S} {C0 = true , S'} ru r (inj₁ (() , _)) ag rec
reg-sm {X0 = false , S} {C0 = true , S'} {C} {X} (reg-w a d) r (inj₂ (refl , eu , s0 , refl , c)) ag rec with againX-chain ag
... | s , refl , al = chainpt-reg-sm (w a d) {false} {S} {s0} {s} {gh S} {X} r eu c al rec
reg-sm {X0 = false , S} {C0 = true , S'} {C} {X} reg-rl r (inj₂ (refl , eu , s0 , refl , c)) ag rec with againX-chain ag
... | s , refl , al = chainpt-reg-sm rl {false} {S} {s0} {s} {gh S} {X} r eu c al rec
reg-sm {X0 = false , S} {C0 = true , S'} {C} {X} reg-es r (inj₂ (refl , eu , s0 , refl , c)) ag rec with againX-chain ag
... | s , refl , al = chainpt-reg-sm es {false} {S} {s0} {s} {gh S} {X} r eu c al rec
reg-sm {X0 = true , S} {C0 = true , S'} {C} {X} (reg-w a d) r (inj₂ (refl , eu , s0 , refl , c)) ag rec with againX-chain ag
... | s , refl , al = chainpt-reg-sm (w a d) {true} {S} {s0} {s} {gh S} {X} r eu c al rec
reg-sm {X0 = true , S} {C0 = true , S'} {C} {X} reg-rl r (inj₂ (refl , eu , s0 , refl , c)) ag rec with againX-chain ag
... | s , refl , al = chainpt-reg-sm rl {true} {S} {s0} {s} {gh S} {X} r eu c al rec
reg-sm {X0 = true , S} {C0 = true , S'} {C} {X} reg-es r (inj₂ (refl , eu , s0 , refl , c)) ag rec with againX-chain ag
... | s , refl , al = chainpt-reg-sm es {true} {S} {s0} {s} {gh S} {X} r eu c al rec

-- the chain phase's and PUSBic's flush and barrier points covered are
-- crash points of PX
cov-crash : ∀ {X0 C} → Cov X0 C → (Σ SB.UOp λ u → Σ XS λ X1 → PXm.ok (SB.use u) X0 X1 × Cut X1 C) ⊎ (Σ SB.UOp λ u → PXm.crash (SB.use u) X0 C)
cov-crash (cov-end u o c) = inj₁ (u , _ , o , c)
cov-crash {b , S} (cov-chain u {s0} eu c) = inj₂ (u , inj₂ (refl , eu , s0 , refl , chainpt-crL b u c))
cov-crash (cov-w a d refl c) = inj₂ (SB.reg (SB.op (SB.w a d)) , c)
cov-crash (cov-rl refl c) = inj₂ (SB.reg (SB.op SB.rl) , c)
cov-crash (cov-es refl c) = inj₂ (SB.reg (SB.op SB.es) , c)
cov-crash (cov-sy {S} refl c) = inj₂ (SB.reg (SB.op SB.sy) , inj₁ (refl , S , refl , c))
cov-crash (cov-fl {S} refl c) = inj₂ (SB.flush , inj₁ (refl , S , refl , inj₁ c))
cov-crash (cov-fi {S} refl c eu) = inj₂ (SB.flush , inj₁ (refl , S , refl , inj₂ (c , eu)))
cov-crash (cov-ba {S} refl c) = inj₂ (SB.reg SB.barrier , inj₁ (refl , S , refl , c))
cov-crash (cov-kbar {S} refl c) = inj₂ (SB.reg SB.barrier , inj₁ (refl , konsU S , refl , c))

-- over `Orig`: the operation a crash state's run was cut in, and the
-- crashed recoveries after it
cutOp : ∀ {X0 C} → Orig X0 C → SB.UOp
cutOp (cut u _)   = u
cutOp (again o _) = cutOp o

orig-split : ∀ {X0 C} (o : Orig X0 C) → Σ XS λ C0 → PXm.crash (SB.use (cutOp o)) X0 C0 × AgainX C0 C
orig-split (cut u c)   = _ , c , noneX
orig-split (again o c) with orig-split o
... | C0 , cr , ag = C0 , cr , moreX ag c

-- `RecoveredNamed` for every run whose cut is covered
orig-named : ∀ {X0 C X} → OPX.RI X0 → (o : Orig X0 C) → Cov X0 (proj₁ (orig-split o)) → PXm.ok SB.recover C X → NSub X0 X
orig-named {X0} {C} {X} r o cv rec = cov-named {X0} {proj₁ (orig-split o)} {C} {X} r cv (proj₂ (proj₂ (orig-split o))) rec

-- so for every run cut in a write, a relocation or an erase, at any of
-- its crash points, in either phase, with any crashed recoveries after it
reg-recovered-named : ∀ {X0 C X} → OPX.RI X0 → (o : Orig X0 C) → RegU (cutOp o) → PXm.ok SB.recover C X → NSub X0 X
reg-recovered-named {X0} {C} {X} r o ru rec = orig-named {X0} {C} {X} r o (cov-reg ru (proj₁ (proj₂ (orig-split o)))) rec

-- every crash of a barrier into PUSBic's phase, from either phase, is one
cov-pu-barrier : ∀ {X0 S'} → PXm.crash (SB.use (SB.reg SB.barrier)) X0 (false , S') → Cov X0 (false , S')
cov-pu-barrier {false , S} (inj₁ (refl , .S , refl , c)) = cov-ba refl c
cov-pu-barrier {true , S} (inj₁ (refl , _ , refl , c)) = cov-kbar refl c
cov-pu-barrier (inj₂ (() , _))

-- every crash of a flush of PUSBic's phase is one
cov-pu-flush : ∀ {S S'} → PXm.crash (SB.use SB.flush) (false , S) (false , S') → Cov (false , S) (false , S')
cov-pu-flush {S} (inj₁ (refl , .S , refl , inj₁ c)) = cov-fl refl c
cov-pu-flush {S} (inj₁ (refl , .S , refl , inj₂ (c , eu))) = cov-fi refl c eu
cov-pu-flush (inj₂ (() , _))

-- every crash into PUSBic's phase, of any operation, is one
cov-into-pu : ∀ u {X0 S'} → PXm.crash (SB.use u) X0 (false , S') → Cov X0 (false , S')
cov-into-pu (SB.reg (SB.op (SB.w a d))) c = cov-reg (reg-w a d) c
cov-into-pu (SB.reg (SB.op SB.rl)) c = cov-reg reg-rl c
cov-into-pu (SB.reg (SB.op SB.es)) c = cov-reg reg-es c
cov-into-pu (SB.reg (SB.op SB.sy)) c = cov-reg reg-sy c
cov-into-pu (SB.reg SB.barrier) c = cov-pu-barrier c
cov-into-pu SB.flush {false , S} c = cov-pu-flush c
cov-into-pu SB.flush {true , S} (inj₁ (refl , _ , () , _))
cov-into-pu SB.flush {true , S} (inj₂ (() , _))

-- `RecoveredNamed` for every run whose cut left PX in PUSBic's phase
-- (any operation, any crash point, any crashed recoveries after it)
pu-recovered-named : ∀ {X0 C X} → OPX.RI X0 → (o : Orig X0 C) → proj₁ (proj₁ (orig-split o)) ≡ false →
                     PXm.ok SB.recover C X → NSub X0 X
pu-recovered-named {X0} {C} {X} r o e rec with orig-split o | e
... | (false , S') , cr , ag | refl = cov-named {X0} {false , S'} {C} {X} r (cov-into-pu (cutOp o) cr) ag rec

------------------------------------------------------------------------
-- Every crash of PX is covered, so `RecoveredNamed` holds

private
  chainpt-of : ∀ b u {s s'} → crL b u s s' → ChainPt b u s s'
  chainpt-of b (SB.reg (SB.op x)) c = c
  chainpt-of true (SB.reg SB.barrier) c = c
  chainpt-of false (SB.reg SB.barrier) ()
  chainpt-of false SB.flush c = c
  chainpt-of true SB.flush c = c

-- every crash of any operation, from either phase, into either phase
cov-any : ∀ u {X0 C} → PXm.crash (SB.use u) X0 C → Cov X0 C
cov-any u {X0} {false , S'} c = cov-into-pu u c
cov-any u {b , S} {true , S'} (inj₁ (() , _))
cov-any u {b , S} {true , S'} (inj₂ (refl , eu , s0 , refl , c)) = cov-chain u eu (chainpt-of b u c)

-- recovery after a crash of a state with PX's invariant, and any number
-- of crashed recoveries, names only pages that state named
recovered-named : ∀ {X0 C X} → OPX.RI X0 → Orig X0 C → PXm.ok SB.recover C X → NSub X0 X
recovered-named {X0} {C} {X} r o rec = orig-named {X0} {C} {X} r o (cov-any (cutOp o) (proj₁ (proj₂ (orig-split o)))) rec

-- every normal state a run reaches has PX's invariant
private
  orignew-CI : ∀ {C} → OrigNew C → OPX.CI C
  orignew-CI (fresh n)       = OPX.init-CI n
  orignew-CI (again-new o c) = OPX.B-recᶜ (orignew-CI o) c

  orig-CI : ∀ {X0 C} → OPX.RI X0 → Orig X0 C → OPX.CI C
  orig-CI r (cut u c)   = OPX.B-crash u r c
  orig-CI r (again o c) = OPX.B-recᶜ (orig-CI r o) c

reach-RI : ∀ {X} → ReachNX X → OPX.RI X
reach-RI (firstX on o)    = OPX.B-rec (orignew-CI on) o
reach-RI (afterX rx og o) = OPX.B-rec (orig-CI (reach-RI rx) og) o
reach-RI (stepX u rx o)   = OPX.B-ok u (reach-RI rx) o

-- **`RecoveredNamed`**, the one lemma of PX the block layer's physical
-- reads took as given (SCFTL.Impl.OneModelBlocksNamed)
recovered-named-all : RecoveredNamed
recovered-named-all {X0} {C} {X} rx og rec = recovered-named {X0} {C} {X} (reach-RI rx) og rec
