{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, space in the one model: no crash of any operation of PX, at
-- any flash command boundary, leaves more than D pages in the delta
-- region.
--
-- SCFTL.Impl.SpaceRegionBarrier bounds PUS's crash points
-- (`crash-roomS`), SCFTL.Impl.SpaceRegionLazy PL's (`crash-roomL`).
-- PUSBic, PX's PU half, crashes at every flash command boundary (PUSc,
-- PUSic: the write's, GC's, erase's, barrier's and flush's commands, the
-- in-page and OOB commit's batch, its consolidation page and its full
-- checkpoint, recovery's checkpoint) and inside the sync behind.  A
-- batch of commands programs pages in place and appends at most the one
-- region page the batch is for (`drun-len`: only `apR` lengthens the
-- region, and a batch has at most one), a full checkpoint's commands
-- never lengthen it (`ck-cmd-len`), so each command-level crash state
-- holds at most one region page more than the state before the
-- operation — which the room theorem has free.
--
--   `crash-roomX`, `recᶜ-roomX` : every command-level crash of PUSBic
--             from a state of SpaceRegion's invariant (every crash of a
--             recovery from a state within D pages) is within D pages;
--   `crash-roomPX`, `recᶜ-roomPX` : the same for PX, by the phase (PL's
--             crashes: `crash-roomL`; the barrier from the chain phase:
--             PUSBic's from the consolidated state, or PL's flush's);
--   `crash-fitsX` : along every run of PXR from format, every crash of a
--             step, and every crash of the recoveries after it, leaves
--             the region within its D pages.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRegionCrash (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc pp D : ℕ) where

open import Data.Nat.Base using (zero; suc; _≤_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-refl; ≤-trans; ≤-reflexive; n≤1+n)
open import Data.Unit.Base using (⊤; tt)
open import Data.Empty using (⊥)
open import Data.List.Base using (List; []; _∷_; map; length)
open import Data.List.Properties using (length-map)
open import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ using (All; []; _∷_)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (St; MC; dr; sync; syncAll; wr0; rl0; rlX; esF; fl3; ck1; ck2; ck3; fi3; fi4; Img; rd)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_
  using (Cmd; pgD; pgL; pgO; pgR; apR; pgI; run; runs; putAt; DRun; before; after; CkCmd; ck-new; ck-erase; ck-end;
         IssMB; IssW; IssE; IssFi; IssCk1; IssCk2; CmdCrash; cmt; all-map)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (syB)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh)
open import SCFTL.Impl.UnsyncedCommands Data d0 amax wmax kmax umax _≟D_ using (FlCmd; fb; fs; fck; fe)
open import SCFTL.Impl.UnsyncedSyncInPageCommands Data d0 amax wmax kmax umax _≟D_ using (FiCmd)
import SCFTL.Impl.UnsyncedSyncInPageCommands Data d0 amax wmax kmax umax _≟D_ as FC
open import Data.Bool.Base using (true; false)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (crashX)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (EraseGuard; crashPL)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL)
open import SCFTL.Impl.LazyChainBarrier Data d0 amax wmax kmax umax _≟D_ kc using (PLD)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc
  using (XS; konsU; lzS; crL; crashPX; NewX; RIQ; CIQ; obligationsPX)
open import SCFTL.Impl.SpaceRegion Data d0 amax wmax kmax _≟D_ pp D
  using (RInv; drL; room; len-img; len-fl3; len-fi3; len-fi4; len-ck2; new-len)
open import SCFTL.Impl.SpaceRegionBarrier Data d0 amax wmax kmax umax _≟D_ pp D using (RInvS; crash-roomS; len-syB)
open import SCFTL.Impl.SpaceRegionLazy Data d0 amax wmax kmax _≟D_ kc pp D
  using (RInvL; crash-roomL; recᶜ-roomL)
open import SCFTL.Impl.SpaceRegionOne Data d0 amax wmax kmax umax _≟D_ kc pp D
  using (RInvQ; Recov; recd; recᶜ; RunX; run-inv; recov-inv; ri-of; rinvL-of)
import SCFTL.Spec Data d0 amax wmax as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module OPX = SB.ForwardSimulation.Obligations obligationsPX

  ≡≤ : ∀ {a b c} → a ≡ b → b ≤ c → a ≤ c
  ≡≤ refl le = le

------------------------------------------------------------------------
-- Commands and the region's length

-- a command that programs in place (every command but `apR`)
NoAp : Cmd → Set
NoAp (apR _) = ⊥
NoAp _       = ⊤

putAt-len : ∀ i c (ms : List MC) → length (putAt i c ms) ≡ length ms
putAt-len i       c []       = refl
putAt-len zero    c (m ∷ ms) = refl
putAt-len (suc i) c (m ∷ ms) = cong suc (putAt-len i c ms)

run-len : ∀ k s → NoAp k → drL (run k s) ≡ drL s
run-len (pgD p c) s _ = refl
run-len (pgL c)   s _ = refl
run-len (pgO c)   s _ = refl
run-len (pgR i c) s _ = putAt-len i c (dr s)
run-len (pgI p c) s _ = refl

runs-len : ∀ cs s → All NoAp cs → drL (runs cs s) ≡ drL s
runs-len []       s []       = refl
runs-len (k ∷ ks) s (n ∷ ns) = trans (runs-len ks (run k s) ns) (run-len k s n)

-- a batch appends at most its one region page
drun-len : ∀ {I u ap x} → (∀ k → I k → NoAp k) → DRun I u ap x → drL x ≤ suc (drL u)
drun-len {u = u} na (before cs is) = ≤-trans (≤-reflexive (runs-len cs u (all-map na is))) (n≤1+n _)
drun-len {u = u} na (after {c} cs₁ cs₂ is₁ is₂) =
  ≤-reflexive (trans (runs-len cs₂ _ (all-map na is₂)) (cong suc (runs-len cs₁ u (all-map na is₁))))

-- a full checkpoint's commands never lengthen the region
ck-cmd-len : ∀ {u x} → CkCmd u x → drL x ≤ drL u
ck-cmd-len {u} (ck-new cs is) = ≤-reflexive (runs-len cs u (all-map na1 is))
  where
  na1 : ∀ k → IssCk1 u k → NoAp k
  na1 _ refl = tt
ck-cmd-len {u} (ck-erase cs is) =
  ≤-reflexive (trans (runs-len cs _ (all-map na2 is)) (length-map sync (dr (ck1 u))))
  where
  na2 : ∀ k → IssCk2 k → NoAp k
  na2 _ (inj₁ refl) = tt
  na2 _ (inj₂ (i , refl)) = tt
ck-cmd-len {u} ck-end = ≤-reflexive (trans (length-map sync (dr (ck2 u))) (len-ck2 u))

private
  na-MB : ∀ u k → IssMB u k → NoAp k
  na-MB u _ (p , d , a , _ , refl) = tt

  na-W : ∀ f u k → IssW f u k → NoAp k
  na-W f u k (_ , i) = na-MB u k i

  na-E : ∀ p k → IssE p k → NoAp k
  na-E p _ refl = tt

  na-Fi : ∀ M u k → IssFi M u k → NoAp k
  na-Fi M u k (inj₁ i) = na-MB u k i
  na-Fi M u _ (inj₂ refl) = tt

  na-⊥ : ∀ (k : Cmd) → ⊥ → NoAp k
  na-⊥ k ()

------------------------------------------------------------------------
-- Each command-level crash state: at most one region page more

cmd-len : ∀ o {s x} → CmdCrash (Sp.use (Sp.reg o)) s x → drL x ≤ suc (drL s)
cmd-len (Sp.w a d) {s} (inj₁ (ib , f1 , f2 , r)) = drun-len (na-W f1 (wr0 a d s)) r
cmd-len (Sp.w a d) (inj₂ (_ , refl)) = n≤1+n _
cmd-len Sp.rl {s} (inj₁ (gk , p , lt , inj₁ (v , f1 , f2 , r))) = drun-len (na-W f1 (rl0 p s)) r
cmd-len Sp.rl (inj₁ (gk , p , lt , inj₂ (nv , refl))) = n≤1+n _
cmd-len Sp.rl (inj₂ (_ , refl)) = n≤1+n _
cmd-len Sp.es {s} (p , ep , r) = drun-len (na-E p) r

fl-cmd-len : ∀ {S x} → FlCmd S x → drL x ≤ suc (drL (st S))
fl-cmd-len {S} (fb r) = drun-len (na-MB (st S)) r
fl-cmd-len {S} fs = ≤-reflexive (len-fl3 (st S))
fl-cmd-len {S} (fck c) = ≤-trans (ck-cmd-len c) (≤-reflexive (len-fl3 (st S)))
fl-cmd-len fe = z≤n

fi-cmd-len : ∀ {S M x} → FiCmd S M x → drL x ≤ suc (drL (st S))
fi-cmd-len {S} {M} (FC.fb r) = drun-len (na-Fi M (st S)) r
fi-cmd-len {S} {M} (FC.fck c) = ≤-trans (ck-cmd-len c) (≤-trans (≤-reflexive (len-fi3 M (st S))) (n≤1+n _))
fi-cmd-len FC.fce = z≤n
fi-cmd-len {S} {M} (FC.fk r) = ≤-trans (drun-len na-⊥ r) (s≤s (≤-reflexive (len-fi3 M (st S))))
fi-cmd-len {S} {M} FC.fe = ≤-reflexive (len-fi4 M (st S))

------------------------------------------------------------------------
-- PUSBic

private
  -- a crash image of a state at most one page past the state before
  img-room : ∀ {s x s'} → RInv s → drL x ≤ suc (drL s) → Img x s' → drL s' ≤ D
  img-room {s} {x} {s'} I le img = ≡≤ (len-img {x} {s'} img) (≤-trans le (room I))

crash-roomX : ∀ u {S S'} → RInvS S → crashX (SB.use u) S S' → drL (st (su S')) ≤ D
crash-roomX (SB.reg (SB.op (SB.w a d))) {S} {S'} I (((x , r , img , _) , _)) =
  img-room {st (su S)} {x} {st (su S')} I (cmd-len (Sp.w a d) {st (su S)} {x} r) img
crash-roomX (SB.reg (SB.op SB.rl)) {S} {S'} I (((x , r , img , _) , _)) =
  img-room {st (su S)} {x} {st (su S')} I (cmd-len Sp.rl {st (su S)} {x} r) img
crash-roomX (SB.reg (SB.op SB.es)) {S} {S'} I (((x , r , img , _) , _)) =
  img-room {st (su S)} {x} {st (su S')} I (cmd-len Sp.es {st (su S)} {x} r) img
crash-roomX (SB.reg (SB.op SB.sy)) {S} {S'} I (inj₁ c) = crash-roomS (SB.reg (SB.op SB.sy)) {S} {S'} I c
crash-roomX (SB.reg (SB.op SB.sy)) {S} {S'} I (inj₂ ((xs , ys , l , r , _ , _ , _ , img , _) , _)) =
  img-room {st (su S)} {syB xs ys l r (st (su S))} {st (su S')} I
    (≤-trans (≤-reflexive (len-syB xs ys l r (st (su S)))) (n≤1+n _)) img
crash-roomX (SB.reg SB.barrier) {S} {S'} I ((inj₁ (_ , x , r , img , _) , _)) =
  img-room {st (su S)} {x} {st (su S')} I (drun-len {IssMB (st (su S))} {st (su S)} {just (cmt (st (su S)))} {x} (na-MB (st (su S))) r) img
crash-roomX (SB.reg SB.barrier) {S} {S'} I ((inj₂ (x , r , img , _) , _)) =
  img-room {st (su S)} {x} {st (su S')} I (fl-cmd-len {su S} {x} r) img
crash-roomX SB.flush {S} {S'} I (inj₁ ((x , r , img , _) , _)) =
  img-room {st (su S)} {x} {st (su S')} I (fl-cmd-len {su S} {x} r) img
crash-roomX SB.flush {S} {S'} I (inj₂ ((M , _ , _ , x , r , img , _) , _)) =
  img-room {st (su S)} {x} {st (su S')} I (fi-cmd-len {su S} {M} {x} r) img

-- a crash of a recovery (from a state within the region) keeps it there
recᶜ-roomX : ∀ {S S'} → drL (st (su S)) ≤ D → crashX SB.recover S S' → drL (st (su S')) ≤ D
recᶜ-roomX {S} {S'} le (inj₁ ((b , g , C , _ , T , es' , _ , _ , inj₁ (x , c , img , _)) , _)) =
  ≡≤ (len-img {x} {st (su S')} img)
     (≤-trans (ck-cmd-len {recR b g C (proj₂ (gh S)) es' (st (su S))} {x} c) (≡≤ (length-map sync (dr (st (su S)))) le))
recᶜ-roomX {S} {S'} le (inj₁ ((b , g , C , _ , T , es' , _ , _ , inj₂ (img , _)) , _)) =
  ≡≤ (len-img {ck3 (recR b g C (proj₂ (gh S)) es' (st (su S)))} {st (su S')} img) z≤n
recᶜ-roomX {S} {S'} le (inj₂ ((b , g , C , _ , T , es' , _ , _ , _ , _ , img , _) , _)) =
  ≡≤ (len-img {recR b g C (proj₂ (gh S)) es' (st (su S))} {st (su S')} img) (≡≤ (length-map sync (dr (st (su S)))) le)

------------------------------------------------------------------------
-- PX, by the phase

private
  module PLDm = SB.Model PLD

  -- PL's crashes under SB's operations
  crashL : ∀ b u {s s'} → RIL s → RInvL s → crL b u s s' → drL s' ≤ D
  crashL false (SB.reg (SB.op (SB.w a d))) {s} {s'} ril I c = crash-roomL (Sp.reg (Sp.w a d)) {s} {s'} ril I c
  crashL true (SB.reg (SB.op (SB.w a d))) {s} {s'} ril I c = crash-roomL (Sp.reg (Sp.w a d)) {s} {s'} ril I c
  crashL false (SB.reg (SB.op SB.rl)) {s} {s'} ril I c = crash-roomL (Sp.reg Sp.rl) {s} {s'} ril I c
  crashL true (SB.reg (SB.op SB.rl)) {s} {s'} ril I c = crash-roomL (Sp.reg Sp.rl) {s} {s'} ril I c
  crashL false (SB.reg (SB.op SB.es)) {s} {s'} ril I c = crash-roomL (Sp.reg Sp.es) {s} {s'} ril I c
  crashL true (SB.reg (SB.op SB.es)) {s} {s'} ril I c = crash-roomL (Sp.reg Sp.es) {s} {s'} ril I c
  crashL false (SB.reg (SB.op SB.sy)) ril I ()
  crashL true  (SB.reg (SB.op SB.sy)) ril I ()
  crashL false (SB.reg SB.barrier) ril I ()
  crashL true (SB.reg SB.barrier) {s} {s'} ril I c = crash-roomL Sp.flush {s} {s'} ril I c
  crashL false SB.flush {s} {s'} ril I c = crash-roomL Sp.flush {s} {s'} ril I c
  crashL true SB.flush {s} {s'} ril I c = crash-roomL Sp.flush {s} {s'} ril I c

-- every crash of every operation of PX from a state of the invariant:
-- PUSBic's in its phase, and the barrier's from the chain phase after the
-- consolidation step (RInvS of `konsU` is RInvL); PL's in the chain phase
crash-roomPX : ∀ u {X X'} → RIQ X → RInvQ X → crashPX (SB.use u) X X' → drL (st (su (proj₂ X'))) ≤ D
crash-roomPX u {false , S} {.false , S'} r I (inj₁ (refl , .S , refl , c)) = crash-roomX u {S} {S'} I c
crash-roomPX (SB.reg SB.barrier) {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.false , S'} (refl , _) I (inj₁ (refl , ._ , refl , c)) =
  crash-roomX (SB.reg SB.barrier) {konsU (lzS s g)} {S'} I c
crash-roomPX (SB.reg (SB.op _)) {true , _} _ _ (inj₁ (_ , _ , () , _))
crash-roomPX SB.flush {true , _} _ _ (inj₁ (_ , _ , () , _))
crash-roomPX u {false , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} r I (inj₂ (refl , refl , s' , refl , c)) =
  crashL false u (inj₁ (ri-of {s} {g} r)) (rinvL-of {s} {g} r I) c
crash-roomPX u {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} (refl , ril) I (inj₂ (refl , refl , s' , refl , c)) =
  crashL true u ril I c

-- and every crash of a recovery from a state within the region
recᶜ-roomPX : ∀ {X X'} → drL (st (su (proj₂ X))) ≤ D → crashPX SB.recover X X' → drL (st (su (proj₂ X'))) ≤ D
recᶜ-roomPX {false , S} {.false , S'} le (refl , c) = recᶜ-roomX {S} {S'} le c
recᶜ-roomPX {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} {.true , ._} le (refl , refl , s' , refl , c) = recᶜ-roomL {s} {s'} le c

-- **Along every run of PXR from format**, every crash of a step leaves
-- the region within its D pages, and so does every crash of the
-- recoveries after it (`recᶜ-roomPX`, from there)
crash-fitsX : ∀ u {X0 X1 X Z} → NewX X0 → Recov X0 X1 → RunX X1 X → crashPX (SB.use u) X Z → drL (st (su (proj₂ Z))) ≤ D
crash-fitsX u {X0} n k r c with run-inv (recov-inv (OPX.init-CI {X0} n) k) r
... | ri , I = crash-roomPX u ri I c

-- format's disk holds an empty region, and so do its recoveries' crashes
new-fitsX : ∀ {X0} → NewX X0 → drL (st (su (proj₂ X0))) ≤ D
new-fitsX {false , S} (refl , n , _) = new-len {st (su S)} n
