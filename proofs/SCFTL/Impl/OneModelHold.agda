{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the erase hold in the one model.  PXh is PX (SCFTL.Impl.
-- OneModel: PUSBic's steps in its phase, PL's in the chain phase, the
-- barrier from the chain phase after PL's consolidation step) whose
-- chain-phase erase is the code's hold (SCFTL.Impl.LazyChainHold: a
-- page the hold leaves free) instead of PL's guard, with the hold in its
-- state: grown at a lazy commit by what it makes erasable, emptied by a
-- region commit, a consolidation page, PUSBic's steps and a recovery;
-- and with the code's way out from the chain phase.
--
--   toPX-ok, toPX-crash : every step and crash of PXh but the way out
--                 is PX's (in the
--                 chain phase the hold implies PL's guard, `HoldOK`;
--                 where a PL step starts from PUSBic's phase, P's RI of
--                 its state gives the guard of every page, `ri-guard`)
--   ih-ok, ih-rec : the hold's invariant (`HoldOK` in the chain phase)
--                 is kept by every step and recovery
--   outA, outB, outC, outBC : the way out (`release_hold`: the chain's
--                 consolidation page, synced, then the erase; nothing
--                 held after it; `Out`, `OutC`), a step PX itself does
--                 not have, as PLk's erase (SCFTL.Impl.
--                 LazyChainKonsErase) through DurableBarrier's lift of
--                 PLk's obligations (`LKO`: PL's AR, CR, RI and CI, so
--                 the chain phase's relations of PX); also in two steps
--                 (forty-fourth session): the consolidation page, synced,
--                 as a SYNC of the chain phase (SB's SYNC that makes no
--                 pending image durable; a stutter, `kons-RIL`; its crash
--                 points PLk's), after which nothing is held, then any
--                 erase (how the block layer over PXh takes the way out,
--                 SCFTL.Impl.OneModelHoldBlocks)
--   obligationsPXh, theorem1-PXh, PXh-snapshot-consistent :
--                 Theorem 1 against SB and SC1B, from PX's obligations
--                 with `Ih` beside PX's RI, and LKO's for the way out
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)
module SCFTL.Impl.OneModelHold (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                               (_≟D_ : DecidableEquality Data) (kc : ℕ) where
open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; [])
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (⊤; tt)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; rd; ers; esF; Img)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (okX; crashX)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX; ri-X)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (EraseGuard; okPL; crashPL; konsS; konsI)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (AR-tOf)
open import SCFTL.Impl.Theorem Data d0 amax wmax kmax _≟D_ using (reg-sim)
open import SCFTL.Impl.DurableBarrier Data d0 amax wmax kmax umax _≟D_ using (module Lift)
open import SCFTL.Impl.LazyChainKonsErase Data d0 amax wmax kmax _≟D_ kc using (PLk; obligations-PLk; kons-RIL)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (pl-rec-B)
open import SCFTL.Impl.LazyChainHold Data d0 amax wmax kmax _≟D_ kc
  using (Hold; none; HoldOK; hAfter; hold-L; ri-hold; hold-guard; ri-guard)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc
  using (XS; okL; crL; Pre; okPX; crashPX; PX; NewX; lzS; ARP; CRQ; RIQ; CIQ; obligationsPX)
import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
private
  module OX = SB.ForwardSimulation.Obligations obligationsPX
  -- PLk's obligations lifted to SB's operations (its erase has the way out)
  module LKO = SB.ForwardSimulation.Obligations (Lift.obligations PLk obligations-PLk)

------------------------------------------------------------------------
-- The model

XH : Set
XH = XS × Hold

-- the chain phase's steps with the hold as the erase rule
okLh : SB.UOp → St × Hold → St × Hold → Set
okLh (SB.reg (SB.op SB.es)) (s , H) (s' , H') =
  Σ ℕ λ p → ers s p ≡ true × H p ≡ false × s' ≡ esF p s × H' ≡ H
okLh (SB.reg (SB.op (SB.w a d))) (s , H) (s' , H') =
  Σ (okL (SB.reg (SB.op (SB.w a d))) s s') λ o → H' ≡ hAfter (Sp.reg (Sp.w a d)) o H
okLh (SB.reg (SB.op SB.rl)) (s , H) (s' , H') =
  Σ (okL (SB.reg (SB.op SB.rl)) s s') λ o → H' ≡ hAfter (Sp.reg Sp.rl) o H
okLh (SB.reg (SB.op SB.sy)) _ _ = ⊥
okLh (SB.reg SB.barrier) _ _ = ⊥
okLh SB.flush (s , H) (s' , H') =
  Σ (okL SB.flush s s') λ o → H' ≡ hAfter Sp.flush o H

-- their crash points: PX's, the erase's from an erase the hold allows
crLh : Bool → SB.UOp → St × Hold → St → Set
crLh b (SB.reg (SB.op SB.es)) (s , H) s' =
  Σ St λ m → (Σ ℕ λ p → ers s p ≡ true × H p ≡ false × m ≡ esF p s) × Img m s'
crLh b (SB.reg (SB.op (SB.w a d))) (s , _) s' = crL b (SB.reg (SB.op (SB.w a d))) s s'
crLh b (SB.reg (SB.op SB.rl)) (s , _) s' = crL b (SB.reg (SB.op SB.rl)) s s'
crLh b (SB.reg (SB.op SB.sy)) (s , _) s' = crL b (SB.reg (SB.op SB.sy)) s s'
crLh b (SB.reg SB.barrier) (s , _) s' = crL b (SB.reg SB.barrier) s s'
crLh b SB.flush (s , _) s' = crL b SB.flush s s'

-- the way out, an erase from the chain phase: the consolidation page,
-- synced, then any erasable page; nothing held after it
Out : SB.UOp → Bool → SU → XH → Set
Out (SB.reg (SB.op SB.es)) true S ((b' , S') , H') =
  b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) ×
  Σ ℕ λ p → ers (konsS (st (su S))) p ≡ true × s' ≡ esF p (konsS (st (su S))) × H' ≡ none
-- the way out in two steps: the consolidation page, synced, as a SYNC
-- (a stutter: `kons-RIL`), then any erase, nothing held
Out (SB.reg (SB.op SB.sy)) true S ((b' , S') , H') =
  b' ≡ true × ues (su S) ≡ [] × S' ≡ lzS (konsS (st (su S))) (gh S) × H' ≡ none
Out _ _ _ _ = ⊥

-- its crash points: before the consolidation page's SYNC, after it, and
-- the erase's (PLk's)
OutC : SB.UOp → Bool → SU → XS → Set
OutC (SB.reg (SB.op SB.es)) true S (b' , S') =
  b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) ×
  ((Σ St λ m → (m ≡ konsI (st (su S)) ⊎ m ≡ konsS (st (su S))) × Img m s')
   ⊎ crashPL EraseGuard (Sp.use (Sp.reg Sp.es)) (konsS (st (su S))) s')
OutC (SB.reg (SB.op SB.sy)) true S (b' , S') =
  b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) ×
  Σ St λ m → (m ≡ konsI (st (su S)) ⊎ m ≡ konsS (st (su S))) × Img m s'
OutC _ _ _ _ = ⊥

okPXh : SB.Op → XH → XH → Set
okPXh (SB.use u) ((b , S) , H) ((b' , S') , H') =
    (b' ≡ false × (Σ SU λ S0 → Pre b u S S0 × okX (SB.use u) S0 S') × H' ≡ none)
  ⊎ (b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × okLh u (st (su S) , H) (s' , H'))
  ⊎ Out u b S ((b' , S') , H')
okPXh SB.recover ((b , S) , _) ((b' , S') , H') = okPX SB.recover (b , S) (b' , S') × H' ≡ none

crashPXh : SB.Op → XH → XH → Set
crashPXh (SB.use u) ((b , S) , H) ((b' , S') , _) =
    (b' ≡ false × Σ SU λ S0 → Pre b u S S0 × crashX (SB.use u) S0 S')
  ⊎ (b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × crLh b u (st (su S) , H) s')
  ⊎ OutC u b S (b' , S')
crashPXh SB.recover ((b , S) , _) ((b' , S') , _) = crashPX SB.recover (b , S) (b' , S')

PXh : SB.Model
PXh = record { State = XH ; New = λ x → NewX (proj₁ x) ; read = λ x → rd (st (su (proj₂ (proj₁ x))))
             ; ok = okPXh ; crash = crashPXh }

------------------------------------------------------------------------
-- The hold's invariant

Ih : XH → Set
Ih ((false , _) , _) = ⊤
Ih ((true , S) , H)  = HoldOK (st (su S)) H

-- where a PL step starts (no epoch unsynced): PL's invariant and the hold
holdAt : ∀ {b S H} → RIQ (b , S) → Ih ((b , S) , H) → ues (su S) ≡ [] → RIL (st (su S)) × HoldOK (st (su S)) H
holdAt {true}  (_ , r) ih _ = r , ih
holdAt {false} {⟦ ⟪ s , .[] ⟫ , g ⟧} {H} (t , a , y) _ refl =
  let r = ri-X (ivX {⟦ ⟪ s , [] ⟫ , g ⟧} {t} a) y in inj₁ r , ri-hold H r

-- the chain phase's steps of PXh are PX's
toL : ∀ u {s H s' H'} → HoldOK s H → okLh u (s , H) (s' , H') → okL u s s'
toL (SB.reg (SB.op SB.es)) {s} ho (p , e , h , refl , _) = p , e , hold-guard {s} ho e h , refl
toL (SB.reg (SB.op (SB.w a d))) ho (o , _) = o
toL (SB.reg (SB.op SB.rl)) ho (o , _) = o
toL (SB.reg (SB.op SB.sy)) ho ()
toL (SB.reg SB.barrier) ho ()
toL SB.flush ho (o , _) = o

toLc : ∀ b u {s H s'} → HoldOK s H → crLh b u (s , H) s' → crL b u s s'
toLc false (SB.reg (SB.op SB.es)) {s} ho (m , (p , e , h , refl) , img) = m , (p , e , hold-guard {s} ho e h , refl) , img
toLc true  (SB.reg (SB.op SB.es)) {s} ho (m , (p , e , h , refl) , img) = m , (p , e , hold-guard {s} ho e h , refl) , img
toLc b (SB.reg (SB.op (SB.w a d))) ho c = c
toLc b (SB.reg (SB.op SB.rl)) ho c = c
toLc b (SB.reg (SB.op SB.sy)) ho c = c
toLc b (SB.reg SB.barrier) ho c = c
toLc b SB.flush ho c = c

-- PXh's steps but the way out (`Stay`) and their crashes (`StayC`)
Stay : SB.UOp → XH → XH → Set
Stay u ((b , S) , H) ((b' , S') , H') =
    (b' ≡ false × (Σ SU λ S0 → Pre b u S S0 × okX (SB.use u) S0 S') × H' ≡ none)
  ⊎ (b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × okLh u (st (su S) , H) (s' , H'))

StayC : SB.UOp → XH → XH → Set
StayC u ((b , S) , H) ((b' , S') , _) =
    (b' ≡ false × Σ SU λ S0 → Pre b u S S0 × crashX (SB.use u) S0 S')
  ⊎ (b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × crLh b u (st (su S) , H) s')

toPX-ok : ∀ u {x x'} → RIQ (proj₁ x) → Ih x → Stay u x x' → okPX (SB.use u) (proj₁ x) (proj₁ x')
toPX-ok u {(b , S) , H} {(.false , S') , H'} r ih (inj₁ (refl , o , _)) = inj₁ (refl , o)
toPX-ok u {(b , S) , H} {(.true , S') , H'} r ih (inj₂ (refl , ue , s' , e , o)) =
  inj₂ (refl , ue , s' , e , toL u (proj₂ (holdAt {b} {S} {H} r ih ue)) o)

toPX-crash : ∀ u {x x'} → RIQ (proj₁ x) → Ih x → StayC u x x' → crashPX (SB.use u) (proj₁ x) (proj₁ x')
toPX-crash u {(b , S) , H} {(.false , S') , H'} r ih (inj₁ (refl , c)) = inj₁ (refl , c)
toPX-crash u {(b , S) , H} {(.true , S') , H'} r ih (inj₂ (refl , ue , s' , e , c)) =
  inj₂ (refl , ue , s' , e , toLc b u (proj₂ (holdAt {b} {S} {H} r ih ue)) c)

-- the way out: PLk's erase from the chain phase, over PLk's lifted
-- obligations (whose AR, CR, RI and CI are PL's)
private
  wo : ∀ {s p} → RIL s → ers (konsS s) p ≡ true →
       Sp.Model.ok PLk (Sp.use (Sp.reg Sp.es)) s (esF p (konsS s))
  wo {s} r e = inj₂ (_ , e , ri-guard (proj₂ (kons-RIL (AR-tOf s) r)) e , refl)

outA : ∀ u b {S t y'} → ARP (b , S) t → RIQ (b , S) → Out u b S y' →
       Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARP (proj₁ y') t'
outA (SB.reg (SB.op SB.es)) true {⟦ ⟪ s , .[] ⟫ , g ⟧} {t} (_ , pe , la) (_ , r)
     (refl , refl , ._ , refl , p , e , refl , refl)
  with LKO.A-ok (SB.reg (SB.op SB.es)) {s} {t} {esF p (konsS s)} la r (wo r e)
... | .t , refl , la' = t , refl , refl , pe , la'
outA (SB.reg (SB.op SB.es)) false _ _ ()
outA (SB.reg (SB.op (SB.w a d))) _ _ _ ()
outA (SB.reg (SB.op SB.rl)) _ _ _ ()
outA (SB.reg (SB.op SB.sy)) true {⟦ ⟪ s , .[] ⟫ , g ⟧} {t} (_ , pe , la) (_ , r) (refl , refl , refl , refl) =
  t , (0 , refl , refl , refl , refl) , refl , pe , proj₁ (kons-RIL la r)
outA (SB.reg (SB.op SB.sy)) false _ _ ()
outA (SB.reg SB.barrier) _ _ _ ()
outA SB.flush _ _ _ ()

outB : ∀ u b {S y'} → RIQ (b , S) → Out u b S y' → RIQ (proj₁ y') × Ih y'
outB (SB.reg (SB.op SB.es)) true {⟦ ⟪ s , .[] ⟫ , g ⟧} (_ , r) (refl , refl , ._ , refl , p , e , refl , refl) =
  (refl , LKO.B-ok (SB.reg (SB.op SB.es)) {s} {esF p (konsS s)} r (wo r e)) ,
  ri-hold none (proj₂ (proj₂ (proj₂ (reg-sim Sp.es (AR-tOf (konsS s)) (proj₂ (kons-RIL (AR-tOf s) r)) (p , e , refl)))))
outB (SB.reg (SB.op SB.es)) false _ ()
outB (SB.reg (SB.op (SB.w a d))) _ _ ()
outB (SB.reg (SB.op SB.rl)) _ _ ()
outB (SB.reg (SB.op SB.sy)) true {⟦ ⟪ s , .[] ⟫ , g ⟧} (_ , r) (refl , refl , refl , refl) =
  (refl , inj₁ (proj₂ (kons-RIL (AR-tOf s) r))) , ri-hold none (proj₂ (kons-RIL (AR-tOf s) r))
outB (SB.reg (SB.op SB.sy)) false _ ()
outB (SB.reg SB.barrier) _ _ ()
outB SB.flush _ _ ()

outC : ∀ u b {S t y'} → ARP (b , S) t → RIQ (b , S) → OutC u b S y' →
       Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRQ y' t'
outC (SB.reg (SB.op SB.es)) true {⟦ ⟪ s , .[] ⟫ , g ⟧} {t} (_ , pe , la) (_ , r) (refl , refl , s' , refl , c)
  with LKO.A-crash (SB.reg (SB.op SB.es)) {s} {t} {s'} la r (inj₂ c)
... | t' , sc , cr = t' , sc , refl , cr
outC (SB.reg (SB.op SB.es)) false _ _ ()
outC (SB.reg (SB.op (SB.w a d))) _ _ _ ()
outC (SB.reg (SB.op SB.rl)) _ _ _ ()
outC (SB.reg (SB.op SB.sy)) true {⟦ ⟪ s , .[] ⟫ , g ⟧} {t} (_ , pe , la) (_ , r) (refl , refl , s' , refl , m , e , img)
  with LKO.A-crash (SB.reg (SB.op SB.es)) {s} {t} {s'} la r (inj₂ (inj₁ (m , e , img)))
... | t' , sc , cr = t' , inj₁ sc , refl , cr
outC (SB.reg (SB.op SB.sy)) false _ _ ()
outC (SB.reg SB.barrier) _ _ _ ()
outC SB.flush _ _ _ ()

outBC : ∀ u b {S y'} → RIQ (b , S) → OutC u b S y' → CIQ y'
outBC (SB.reg (SB.op SB.es)) true {⟦ ⟪ s , .[] ⟫ , g ⟧} (_ , r) (refl , refl , s' , refl , c) =
  refl , LKO.B-crash (SB.reg (SB.op SB.es)) {s} {s'} r (inj₂ c)
outBC (SB.reg (SB.op SB.es)) false _ ()
outBC (SB.reg (SB.op (SB.w a d))) _ _ ()
outBC (SB.reg (SB.op SB.rl)) _ _ ()
outBC (SB.reg (SB.op SB.sy)) true {⟦ ⟪ s , .[] ⟫ , g ⟧} (_ , r) (refl , refl , s' , refl , m , e , img) =
  refl , LKO.B-crash (SB.reg (SB.op SB.es)) {s} {s'} r (inj₂ (inj₁ (m , e , img)))
outBC (SB.reg (SB.op SB.sy)) false _ ()
outBC (SB.reg SB.barrier) _ _ ()
outBC SB.flush _ _ ()

-- the chain phase's steps keep the hold's invariant (`hold-L`)
ihL : ∀ u {s H s' H'} → RIL s → HoldOK s H → okLh u (s , H) (s' , H') → HoldOK s' H'
ihL (SB.reg (SB.op SB.es)) {s} r ho (p , e , h , refl , refl) =
  hold-L (Sp.reg Sp.es) r ho (p , e , hold-guard {s} ho e h , refl)
ihL (SB.reg (SB.op (SB.w a d))) r ho (o , refl) = hold-L (Sp.reg (Sp.w a d)) r ho o
ihL (SB.reg (SB.op SB.rl)) r ho (o , refl) = hold-L (Sp.reg Sp.rl) r ho o
ihL (SB.reg (SB.op SB.sy)) r ho ()
ihL (SB.reg SB.barrier) r ho ()
ihL SB.flush r ho (o , refl) = hold-L Sp.flush r ho o

ih-ok : ∀ u {x x'} → RIQ (proj₁ x) → Ih x → Stay u x x' → Ih x'
ih-ok u {(b , S) , H} {(.false , S') , H'} r ih (inj₁ (refl , _)) = tt
ih-ok u {(b , S) , H} {(.true , ._) , H'} r ih (inj₂ (refl , ue , s' , refl , o)) =
  let (rl , ho) = holdAt {b} {S} {H} r ih ue in ihL u rl ho o

-- after a recovery of the chain phase nothing needs holding (P's RI)
ih-rec : ∀ {x x'} → CIQ (proj₁ x) → okPXh SB.recover x x' → Ih x'
ih-rec {(false , S) , H} {(.false , S') , H'} ci ((refl , _) , _) = tt
ih-rec {(true , S) , H} {(.true , ._) , .none} (_ , ci) ((refl , _ , s' , refl , o) , refl) =
  ri-hold none (pl-rec-B {EraseGuard} {st (su S)} {proj₁ ci} (proj₂ ci) o)

------------------------------------------------------------------------
-- Theorem 1 and SC1B for PXh

open SB.ForwardSimulation PXh SB.SB using () renaming (Obligations to ObligationsPXh)

obligationsPXh : ObligationsPXh
obligationsPXh = record
  { AR = λ x t → ARP (proj₁ x) t ; CR = λ x t → CRQ (proj₁ x) t
  ; RI = λ x → RIQ (proj₁ x) × Ih x ; CI = λ x → CIQ (proj₁ x)
  ; AR⇒≈ = λ {x} {t} a → OX.AR⇒≈ {proj₁ x} {t} a
  ; init-CR = λ {x} {t} n n′ → OX.init-CR {proj₁ x} {t} n n′
  ; init-CI = λ {x} n → OX.init-CI {proj₁ x} n
  ; A-ok = A-okh ; A-crash = A-crashh
  ; A-rec = λ {x} {t} {x'} cr ci o → OX.A-rec {proj₁ x} {t} {proj₁ x'} cr ci (proj₁ o)
  ; A-recᶜ = λ {x} {t} {x'} cr ci c → OX.A-recᶜ {proj₁ x} {t} {proj₁ x'} cr ci c
  ; B-ok = B-okh ; B-crash = B-crashh
  ; B-rec = λ {x} {x'} ci o → OX.B-rec {proj₁ x} {proj₁ x'} ci (proj₁ o) , ih-rec {x} {x'} ci o
  ; B-recᶜ = λ {x} {x'} ci c → OX.B-recᶜ {proj₁ x} {proj₁ x'} ci c
  }
  where
    A-okh : ∀ u {x t x'} → ARP (proj₁ x) t → RIQ (proj₁ x) × Ih x → okPXh (SB.use u) x x' →
            Σ SB.State λ t' → SB.okSB (SB.use u) t t' × ARP (proj₁ x') t'
    A-okh u {(b , S) , H} {t} {x'} a (r , ih) (inj₂ (inj₂ o)) = outA u b {S} {t} {x'} a r o
    A-okh u {x} {t} {(b' , S') , H'} a (r , ih) (inj₁ o) =
      OX.A-ok u {proj₁ x} {t} {b' , S'} a r (toPX-ok u {x} {(b' , S') , H'} r ih (inj₁ o))
    A-okh u {x} {t} {(b' , S') , H'} a (r , ih) (inj₂ (inj₁ o)) =
      OX.A-ok u {proj₁ x} {t} {b' , S'} a r (toPX-ok u {x} {(b' , S') , H'} r ih (inj₂ o))
    A-crashh : ∀ u {x t x'} → ARP (proj₁ x) t → RIQ (proj₁ x) × Ih x → crashPXh (SB.use u) x x' →
               Σ SB.State λ t' → SB.crashSB (SB.use u) t t' × CRQ (proj₁ x') t'
    A-crashh u {(b , S) , H} {t} {(b' , S') , H'} a (r , ih) (inj₂ (inj₂ c)) = outC u b {S} {t} {b' , S'} a r c
    A-crashh u {x} {t} {(b' , S') , H'} a (r , ih) (inj₁ c) =
      OX.A-crash u {proj₁ x} {t} {b' , S'} a r (toPX-crash u {x} {(b' , S') , H'} r ih (inj₁ c))
    A-crashh u {x} {t} {(b' , S') , H'} a (r , ih) (inj₂ (inj₁ c)) =
      OX.A-crash u {proj₁ x} {t} {b' , S'} a r (toPX-crash u {x} {(b' , S') , H'} r ih (inj₂ c))
    B-okh : ∀ u {x x'} → RIQ (proj₁ x) × Ih x → okPXh (SB.use u) x x' → RIQ (proj₁ x') × Ih x'
    B-okh u {(b , S) , H} {x'} (r , ih) (inj₂ (inj₂ o)) = outB u b {S} {x'} r o
    B-okh u {x} {(b' , S') , H'} (r , ih) (inj₁ o) =
      OX.B-ok u {proj₁ x} {b' , S'} r (toPX-ok u {x} {(b' , S') , H'} r ih (inj₁ o)) ,
      ih-ok u {x} {(b' , S') , H'} r ih (inj₁ o)
    B-okh u {x} {(b' , S') , H'} (r , ih) (inj₂ (inj₁ o)) =
      OX.B-ok u {proj₁ x} {b' , S'} r (toPX-ok u {x} {(b' , S') , H'} r ih (inj₂ o)) ,
      ih-ok u {x} {(b' , S') , H'} r ih (inj₂ o)
    B-crashh : ∀ u {x x'} → RIQ (proj₁ x) × Ih x → crashPXh (SB.use u) x x' → CIQ (proj₁ x')
    B-crashh u {(b , S) , H} {(b' , S') , H'} (r , ih) (inj₂ (inj₂ c)) = outBC u b {S} {b' , S'} r c
    B-crashh u {x} {(b' , S') , H'} (r , ih) (inj₁ c) =
      OX.B-crash u {proj₁ x} {b' , S'} r (toPX-crash u {x} {(b' , S') , H'} r ih (inj₁ c))
    B-crashh u {x} {(b' , S') , H'} (r , ih) (inj₂ (inj₁ c)) =
      OX.B-crash u {proj₁ x} {b' , S'} r (toPX-crash u {x} {(b' , S') , H'} r ih (inj₂ c))

-- Theorem 1: every behaviour of the one model with the code's hold as
-- its chain-phase erase rule is one of SB's
theorem1-PXh : SB.CorrespondenceB.BehaviourallyCorrect PXh SB.SB
theorem1-PXh = SB.theorem1-SB PXh obligationsPXh

-- SC1B for it
PXh-snapshot-consistent : SB.SnapshotConsistentB PXh
PXh-snapshot-consistent = SB.obligations⇒SCB PXh obligationsPXh
