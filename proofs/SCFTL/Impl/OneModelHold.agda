{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the erase hold in the one model.  PXh is PX (SCFTL.Impl.
-- OneModel: PUSBic's steps in its phase, PL's in the chain phase, the
-- barrier from the chain phase after PL's consolidation step) whose
-- chain-phase erase is the code's hold (SCFTL.Impl.LazyChainHold: a
-- page the hold leaves free) instead of PL's guard, with the hold in its
-- state: grown at a lazy commit by what it makes erasable, emptied by a
-- region commit, a consolidation page, PUSBic's steps and a recovery.
--
--   toPX-ok, toPX-crash : every step and crash of PXh is PX's (in the
--                 chain phase the hold implies PL's guard, `HoldOK`;
--                 where a PL step starts from PUSBic's phase, P's RI of
--                 its state gives the guard of every page, `ri-guard`)
--   ih-ok, ih-rec : the hold's invariant (`HoldOK` in the chain phase)
--                 is kept by every step and recovery
--   obligationsPXh, theorem1-PXh, PXh-snapshot-consistent :
--                 Theorem 1 against SB and SC1B, from PX's obligations
--                 with `Ih` beside PX's RI
--
-- Not here: PLk's way out (`release_hold`: the consolidation page, then
-- the erase) inside PX; PL and PLh have it (SCFTL.Impl.LazyChainKonsErase,
-- LazyChainHold), PX's chain phase does not.
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
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (EraseGuard; okPL)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL)
open import SCFTL.Impl.LazyChainCrash Data d0 amax wmax kmax _≟D_ kc using (pl-rec-B)
open import SCFTL.Impl.LazyChainHold Data d0 amax wmax kmax _≟D_ kc
  using (Hold; none; HoldOK; hAfter; hold-L; ri-hold; hold-guard)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc
  using (XS; okL; crL; Pre; okPX; crashPX; PX; NewX; lzS; ARP; CRQ; RIQ; CIQ; obligationsPX)
import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
private
  module OX = SB.ForwardSimulation.Obligations obligationsPX

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

okPXh : SB.Op → XH → XH → Set
okPXh (SB.use u) ((b , S) , H) ((b' , S') , H') =
    (b' ≡ false × (Σ SU λ S0 → Pre b u S S0 × okX (SB.use u) S0 S') × H' ≡ none)
  ⊎ (b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × okLh u (st (su S) , H) (s' , H'))
okPXh SB.recover ((b , S) , _) ((b' , S') , H') = okPX SB.recover (b , S) (b' , S') × H' ≡ none

crashPXh : SB.Op → XH → XH → Set
crashPXh (SB.use u) ((b , S) , H) ((b' , S') , _) =
    (b' ≡ false × Σ SU λ S0 → Pre b u S S0 × crashX (SB.use u) S0 S')
  ⊎ (b' ≡ true × ues (su S) ≡ [] × Σ St λ s' → S' ≡ lzS s' (gh S) × crLh b u (st (su S) , H) s')
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

toPX-ok : ∀ u {x x'} → RIQ (proj₁ x) → Ih x → okPXh (SB.use u) x x' → okPX (SB.use u) (proj₁ x) (proj₁ x')
toPX-ok u {(b , S) , H} {(.false , S') , H'} r ih (inj₁ (refl , o , _)) = inj₁ (refl , o)
toPX-ok u {(b , S) , H} {(.true , S') , H'} r ih (inj₂ (refl , ue , s' , e , o)) =
  inj₂ (refl , ue , s' , e , toL u (proj₂ (holdAt {b} {S} {H} r ih ue)) o)

toPX-crash : ∀ u {x x'} → RIQ (proj₁ x) → Ih x → crashPXh (SB.use u) x x' → crashPX (SB.use u) (proj₁ x) (proj₁ x')
toPX-crash u {(b , S) , H} {(.false , S') , H'} r ih (inj₁ (refl , c)) = inj₁ (refl , c)
toPX-crash u {(b , S) , H} {(.true , S') , H'} r ih (inj₂ (refl , ue , s' , e , c)) =
  inj₂ (refl , ue , s' , e , toLc b u (proj₂ (holdAt {b} {S} {H} r ih ue)) c)

-- the chain phase's steps keep the hold's invariant (`hold-L`)
ihL : ∀ u {s H s' H'} → RIL s → HoldOK s H → okLh u (s , H) (s' , H') → HoldOK s' H'
ihL (SB.reg (SB.op SB.es)) {s} r ho (p , e , h , refl , refl) =
  hold-L (Sp.reg Sp.es) r ho (p , e , hold-guard {s} ho e h , refl)
ihL (SB.reg (SB.op (SB.w a d))) r ho (o , refl) = hold-L (Sp.reg (Sp.w a d)) r ho o
ihL (SB.reg (SB.op SB.rl)) r ho (o , refl) = hold-L (Sp.reg Sp.rl) r ho o
ihL (SB.reg (SB.op SB.sy)) r ho ()
ihL (SB.reg SB.barrier) r ho ()
ihL SB.flush r ho (o , refl) = hold-L Sp.flush r ho o

ih-ok : ∀ u {x x'} → RIQ (proj₁ x) → Ih x → okPXh (SB.use u) x x' → Ih x'
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
  ; A-ok = λ u {x} {t} {x'} a r o → OX.A-ok u {proj₁ x} {t} {proj₁ x'} a (proj₁ r) (toPX-ok u {x} {x'} (proj₁ r) (proj₂ r) o)
  ; A-crash = λ u {x} {t} {x'} a r c → OX.A-crash u {proj₁ x} {t} {proj₁ x'} a (proj₁ r) (toPX-crash u {x} {x'} (proj₁ r) (proj₂ r) c)
  ; A-rec = λ {x} {t} {x'} cr ci o → OX.A-rec {proj₁ x} {t} {proj₁ x'} cr ci (proj₁ o)
  ; A-recᶜ = λ {x} {t} {x'} cr ci c → OX.A-recᶜ {proj₁ x} {t} {proj₁ x'} cr ci c
  ; B-ok = λ u {x} {x'} r o → OX.B-ok u {proj₁ x} {proj₁ x'} (proj₁ r) (toPX-ok u {x} {x'} (proj₁ r) (proj₂ r) o) ,
                              ih-ok u {x} {x'} (proj₁ r) (proj₂ r) o
  ; B-crash = λ u {x} {x'} r c → OX.B-crash u {proj₁ x} {proj₁ x'} (proj₁ r) (toPX-crash u {x} {x'} (proj₁ r) (proj₂ r) c)
  ; B-rec = λ {x} {x'} ci o → OX.B-rec {proj₁ x} {proj₁ x'} ci (proj₁ o) , ih-rec {x} {x'} ci o
  ; B-recᶜ = λ {x} {x'} ci c → OX.B-recᶜ {proj₁ x} {proj₁ x'} ci c
  }

-- Theorem 1: every behaviour of the one model with the code's hold as
-- its chain-phase erase rule is one of SB's
theorem1-PXh : SB.CorrespondenceB.BehaviourallyCorrect PXh SB.SB
theorem1-PXh = SB.theorem1-SB PXh obligationsPXh

-- SC1B for it
PXh-snapshot-consistent : SB.SnapshotConsistentB PXh
PXh-snapshot-consistent = SB.obligations⇒SCB PXh obligationsPXh
