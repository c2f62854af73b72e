{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward ONE model: the record slots' bound `RoG` at EVERY
-- crash point of PUSBic — after any flash command of any operation, the
-- in-page/OOB commit's included, and of recovery.
--
-- A state right after some flash command lies between two of the
-- modelled crash points (`Mid x m`, SCFTL.Impl.CrashPoints): each of its
-- pages' crash outcomes is one of m's, up to dead pages on top of the
-- region, which RoG does not look at (`rog-mid`, from `mid-crash`).  So
-- RcX of the crash point m (SCFTL.Impl.UnsyncedBridgeCrash) is enough:
--
--   rog-crC    PUMc's command-level crashes (`CrC`): write, GC
--              (relocation, erase), the barrier without SYNC, the flush
--              and the forced barrier (their batch before the SYNC, right
--              after it, every command of the full checkpoint, its end)
--   rcx-fi2..  the in-page/OOB commit's states: its batch with the
--              record (the record slot unsynced over a durable one, the
--              record of this generation), after its SYNC, the
--              consolidation page, the checkpoint after it
--   rog-fi     its command-level crashes (`FiCmd`)
--   rog-recCrC, rog-recCc
--              crashes inside recovery (command level: `rec-cmd-ck`
--              reduces them to PUM's), and right after recovery without
--              the checkpoint: RoG carries over from the crashed state
--   rog-crashX, rog-crashX-rec
--              every crash of PUSBic: from a state with RIy, or, inside
--              recovery, from a crashed state with RoG
--   rixg-crash-recX
--              a crash of PUSBic then recovery with the full checkpoint
--              (PUM's) gives RIy
--
-- Left: RIy after recovery WITHOUT the checkpoint (PUSi's `RecC`: its
-- committed part is the crashed region, whose digests' entries the crash
-- relation would have to carry).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.UnsyncedBridgeCommands (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                         (_≟D_ : DecidableEquality Data) where

open import Data.Nat.Base using (zero; suc; _≤_; _<_)
open import Data.Nat.Properties using (≤-refl; ≤-step; _≟_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.Unit.Base using (⊤; tt)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (yes; no)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
import SCFTL.Impl.Lemmas Data d0 amax wmax kmax _≟D_ as Lm
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_
  using (Mid; mid-crash; padW; DRun; before; after; CkCmd; ck-new; ck-erase; ck-end; ck-mid; CmdCrash;
         wr-mid; es-mid; fl-mid; fi-mid)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues; okU)
open import SCFTL.Impl.UnsyncedBase Data d0 amax wmax kmax umax _≟D_ using (BI)
open import SCFTL.Impl.UnsyncedCheckpoint Data d0 amax wmax kmax umax _≟D_ using (Inv′)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh; okPU)
open import SCFTL.Impl.UnsyncedCommands Data d0 amax wmax kmax umax _≟D_
  using (CrC; FlCmd; fb; fs; fck; fe; crashPUc; RecCrC; rec-cmd-ck)
open import SCFTL.Impl.UnsyncedSyncInPage Data d0 amax wmax kmax umax _≟D_ using (InPO; RecCc)
open import SCFTL.Impl.UnsyncedSyncInPageCommands Data d0 amax wmax kmax umax _≟D_ using (FiCmd; crashSic)
import SCFTL.Impl.UnsyncedSyncInPageCommands Data d0 amax wmax kmax umax _≟D_ as IC
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (crashX; ARX)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR)
open import SCFTL.Impl.UnsyncedBridgeNormal Data d0 amax wmax kmax umax _≟D_ using (RIxG; RIy)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (RoG; rixg-rec; ivX)
open import SCFTL.Impl.UnsyncedBridgeCrash Data d0 amax wmax kmax umax _≟D_
  using (RLtM; RcX; Live; rcx-img; rcx-inv; rcx-same; rcx-fl2; rcx-fl3; rcx-ck1; rcx-ck2; rcx-ck3; rcx-recR;
         rog-recCr; rog-crS; rog-crB; rcx-step; live; rltM-sync)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- A state between two crash points

rog-mid : ∀ {x m s' G} → RcX m G → Mid x m → Img x s' → RoG s'
rog-mid {x} {m} {s'} {G} rc mid img with mid-crash {x} {m} {s'} mid img
... | ds , _ , img′ = rcx-img {m} {padW ds s'} {G} rc img′

-- a full checkpoint from u, at any of its commands
rog-ck : ∀ {u x s' G} → RcX u G → Live u G → gen u ≡ G → (Σ Cell λ a → cpO u ≡ syn a) → CkCmd u x → Img x s' → RoG s'
rog-ck {u} {x} {s'} {G} rc lv eg co c img with ck-mid u co c
... | m , inj₁ refl , mid          = rog-mid {x} {ck1 u} {s'} {G} (rcx-ck1 {u} rc lv) mid img
... | m , inj₂ (inj₁ refl) , mid   = rog-mid {x} {ck2 u} {s'} {G} (rcx-ck2 {u} rc eg) mid img
... | m , inj₂ (inj₂ refl) , mid   = rog-mid {x} {ck3 u} {s'} {G} (rcx-ck3 {u} rc eg) mid img

------------------------------------------------------------------------
-- PUMc's command-level crashes

rog-fl : ∀ {s t x s''} (iv : Inv′ s t) → RIy iv → FlCmd s x → Img x s'' → RoG s''
rog-fl {s} {t} {x} {s''} iv y (fb r) img =
  rog-mid {x} {fl2 (st s)} {s''} {gen (st s)} (rcx-fl2 {st s} (rcx-inv iv y)) (fl-mid (st s) r) img
rog-fl {s} {t} {x} {s''} iv y fs img =
  rcx-img {fl3 (st s)} {s''} {gen (st s)} (proj₁ (rcx-fl3 {st s} (rcx-inv iv y) (live iv))) img
rog-fl {s} {t} {x} {s''} iv y (fck c) img =
  let (rc , lv) = rcx-fl3 {st s} (rcx-inv iv y) (live iv) in
  rog-ck {fl3 (st s)} {x} {s''} {gen (st s)} rc lv refl (cur (cpO (st s)) , refl) c img
rog-fl {s} {t} {x} {s''} iv y fe img =
  rcx-img {ck3 (fl3 (st s))} {s''} {gen (st s)} (rcx-ck3 {fl3 (st s)} (proj₁ (rcx-fl3 {st s} (rcx-inv iv y) (live iv))) refl) img

rog-crC : ∀ u {s t s'' g} (iv : Inv′ s t) → RIy iv → CrC u s s'' g → RoG s''
rog-crC (SB.reg (SB.op (SB.w a d))) {s} {t} {s''} iv y (x , inj₁ (ib , f1 , f2 , r) , img , _) =
  rog-mid {x} {opt f1 f2 (wr0 a d (st s))} {s''} {_}
    (rcx-step (SB.reg (SB.op (SB.w a d))) {s} {t} {⟪ opt f1 f2 (wr0 a d (st s)) , ues s ⟫} iv y (inj₁ (ib , f1 , f2 , refl) , refl))
    (wr-mid f1 f2 (wr0 a d (st s)) r) img
rog-crC (SB.reg (SB.op (SB.w a d))) {s} {t} {s''} iv y (x , inj₂ (_ , refl) , img , _) =
  rcx-img {st s} {s''} {gen (st s)} (rcx-inv iv y) img
rog-crC (SB.reg (SB.op SB.rl)) {s} {t} {s''} iv y (x , inj₁ (le , p , lt , inj₁ (v , f1 , f2 , r)) , img , _) =
  rog-mid {x} {opt f1 f2 (rl0 p (st s))} {s''} {_}
    (rcx-step (SB.reg (SB.op SB.rl)) {s} {t} {⟪ opt f1 f2 (rl0 p (st s)) , ues s ⟫} iv y
              (inj₁ (le , p , lt , inj₁ (v , f1 , f2 , refl)) , refl))
    (wr-mid f1 f2 (rl0 p (st s)) r) img
rog-crC (SB.reg (SB.op SB.rl)) {s} {t} {s''} iv y (x , inj₁ (le , p , lt , inj₂ (nv , refl)) , img , _) =
  rcx-img {rlX p (st s)} {s''} {_}
    (rcx-step (SB.reg (SB.op SB.rl)) {s} {t} {⟪ rlX p (st s) , ues s ⟫} iv y (inj₁ (le , p , lt , inj₂ (nv , refl)) , refl)) img
rog-crC (SB.reg (SB.op SB.rl)) {s} {t} {s''} iv y (x , inj₂ (_ , refl) , img , _) =
  rcx-img {st s} {s''} {gen (st s)} (rcx-inv iv y) img
rog-crC (SB.reg (SB.op SB.es)) {s} {t} {s''} iv y (x , (p , er , r) , img , _) =
  rog-mid {x} {esF p (st s)} {s''} {_}
    (rcx-step (SB.reg (SB.op SB.es)) {s} {t} {⟪ esF p (st s) , ues s ⟫} iv y ((p , er , refl) , refl))
    (es-mid p (st s) r) img
rog-crC (SB.reg (SB.op SB.sy)) iv y ()
rog-crC (SB.reg SB.barrier) {s} {t} {s''} iv y (inj₁ (_ , x , r , img , _)) =
  rog-mid {x} {fl2 (st s)} {s''} {gen (st s)} (rcx-fl2 {st s} (rcx-inv iv y)) (fl-mid (st s) r) img
rog-crC (SB.reg SB.barrier) {s} {t} {s''} iv y (inj₂ (x , r , img , _)) = rog-fl {s} {t} {x} {s''} iv y r img
rog-crC SB.flush {s} {t} {s''} iv y (x , r , img , _) = rog-fl {s} {t} {x} {s''} iv y r img

------------------------------------------------------------------------
-- The in-page/OOB commit's states

private
  rltM-put : ∀ {g} m c → RLtM g m → RLt g c → RLtM g (put c m)
  rltM-put (syn o)   c r rc = r , rc
  rltM-put (uns o n) c r rc = proj₁ r , rc

-- the batch with the record: the record slot of page M programmed with
-- the record, of this generation
rcx-fi2 : ∀ {s} M → RcX s (gen s) → Live s (gen s) → RcX (fi2 M s) (gen s) × Live (fi2 M s) (gen s)
rcx-fi2 {s} M (rr , _) (G′ , C′ , sl , le) = (rr′ , true , G′ , C′ , sl , le) , (G′ , C′ , sl , le)
  where
    rr′ : ∀ p → RLtM (suc (gen s)) (rcd (fi2 M s) p)
    rr′ p with p ≟ M
    ... | yes refl = subst (RLtM (suc (gen s))) (sym (Lm.upd-here (rcd s) p (put (rec s) (rcd s p))))
                           (rltM-put (rcd s p) (rec s) (rr p) ≤-refl)
    ... | no ne    = subst (RLtM (suc (gen s))) (sym (Lm.upd-other (rcd s) (put (rec s) (rcd s M)) ne)) (rr p)

-- after its SYNC
rcx-fi3 : ∀ {s} M → RcX s (gen s) → Live s (gen s) → RcX (fi3 M s) (gen s) × Live (fi3 M s) (gen s)
rcx-fi3 {s} M rc lv with rcx-fi2 {s} M rc lv
... | (rr , _) , (G′ , C′ , sl , le) =
  ((λ p → rltM-sync (rcd (fi2 M s) p) (rr p)) , true , G′ , C′ , cong sync sl , le) , (G′ , C′ , cong sync sl , le)

rog-fi : ∀ {s t M x s''} (iv : Inv′ s t) → RIy iv → FiCmd s M x → Img x s'' → RoG s''
rog-fi {s} {t} {M} {x} {s''} iv y (IC.fb r) img =
  rog-mid {x} {fi2 M (st s)} {s''} {gen (st s)} (proj₁ (rcx-fi2 {st s} M (rcx-inv iv y) (live iv)))
    (fi-mid M (st s) sy r) img
  where
    sy : Lm.IsSyn (rcd (st s) M)
    sy with RIxG.rcOK (proj₁ y) M
    ... | c , e , _ = subst Lm.IsSyn (sym e) tt
rog-fi {s} {t} {M} {x} {s''} iv y (IC.fck c) img =
  let (rc , lv) = rcx-fi3 {st s} M (rcx-inv iv y) (live iv) in
  rog-ck {fi3 M (st s)} {x} {s''} {gen (st s)} rc lv refl (cur (cpO (st s)) , refl) c img
rog-fi {s} {t} {M} {x} {s''} iv y IC.fce img =
  rcx-img {ck3 (fi3 M (st s))} {s''} {gen (st s)}
    (rcx-ck3 {fi3 M (st s)} (proj₁ (rcx-fi3 {st s} M (rcx-inv iv y) (live iv))) refl) img
-- the consolidation page not yet appended, or appended: no slot written
rog-fi {s} {t} {M} {x} {s''} iv y (IC.fk (before [] Lm.[])) img =
  rcx-img {fi3 M (st s)} {s''} {gen (st s)} (proj₁ (rcx-fi3 {st s} M (rcx-inv iv y) (live iv))) img
rog-fi iv y (IC.fk (before (_ ∷ _) (() Lm.∷ _))) img
rog-fi {s} {t} {M} {x} {s''} iv y (IC.fk (after [] [] Lm.[] Lm.[])) img =
  rcx-img {x} {s''} {gen (st s)}
    (rcx-same {fi3 M (st s)} {x} refl refl refl (proj₁ (rcx-fi3 {st s} M (rcx-inv iv y) (live iv)))) img
rog-fi iv y (IC.fk (after (_ ∷ _) _ (() Lm.∷ _) _)) img
rog-fi iv y (IC.fk (after [] (_ ∷ _) Lm.[] (() Lm.∷ _))) img
rog-fi {s} {t} {M} {x} {s''} iv y IC.fe img =
  rcx-img {fi4 M (st s)} {s''} {gen (st s)} (fi4′ (proj₁ (rcx-fi3 {st s} M (rcx-inv iv y) (live iv)))) img
  where
    fi4′ : RcX (fi3 M (st s)) (gen (st s)) → RcX (fi4 M (st s)) (gen (st s))
    fi4′ (rr , true  , G′ , C′ , sl , le) = (λ p → rltM-sync (rcd (fi3 M (st s)) p) (rr p)) , true  , G′ , C′ , cong sync sl , le
    fi4′ (rr , false , G′ , C′ , sl , le) = (λ p → rltM-sync (rcd (fi3 M (st s)) p) (rr p)) , false , G′ , C′ , cong sync sl , le

------------------------------------------------------------------------
-- Crashes inside recovery, and right after recovery without the
-- checkpoint

rog-recCrC : ∀ {s gh s3 gh3} → RoG s → RecCrC s gh s3 gh3 → RoG s3
rog-recCrC {s} {gh} {s3} {gh3} ro (b , g , C , pk , T , es' , ps , sh , rc) =
  rog-recCr {s} {gh} {s3} {gh3} ro
    (b , g , C , pk , T , es' , ps , sh , rec-cmd-ck {b} {g} {C} {proj₂ gh} {es'} {s} {gh} {s3} {gh3} rc)

rog-recCc : ∀ {s gh s3 gh3} → RoG s → RecCc s gh s3 gh3 → RoG s3
rog-recCc {s} {gh} {s3} ro (b , g , C , pk , T , es' , _ , _ , _ , _ , img , _) =
  rcx-img {recR b g C (proj₂ gh) es' s} {s3} {g} (proj₁ (rcx-recR {b} {g} {C} {proj₂ gh} {es'} {s} pk (ro b g C pk))) img

------------------------------------------------------------------------
-- Every crash of PUSBic

rog-crashX : ∀ u {S t S'} (ar : ARX S t) → RIy (ivX {S} {t} ar) → crashX (SB.use u) S S' → RoG (st (su S'))
rog-crashX (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar y (inj₁ c) = rog-crS {S} {t} {S'} (ivX {S} {t} ar) y c
rog-crashX (SB.reg (SB.op SB.sy)) {S} {t} {S'} ar y (inj₂ (c , _)) = rog-crB {S} {t} {S'} (ivX {S} {t} ar) y c
rog-crashX (SB.reg (SB.op (SB.w a d))) {S} {t} {S'} ar y (c , _) = rog-crC (SB.reg (SB.op (SB.w a d))) {su S} {t} {st (su S')} {gh S'} (ivX {S} {t} ar) y c
rog-crashX (SB.reg (SB.op SB.rl)) {S} {t} {S'} ar y (c , _) = rog-crC (SB.reg (SB.op SB.rl)) {su S} {t} {st (su S')} {gh S'} (ivX {S} {t} ar) y c
rog-crashX (SB.reg (SB.op SB.es)) {S} {t} {S'} ar y (c , _) = rog-crC (SB.reg (SB.op SB.es)) {su S} {t} {st (su S')} {gh S'} (ivX {S} {t} ar) y c
rog-crashX (SB.reg SB.barrier) {S} {t} {S'} ar y (c , _) = rog-crC (SB.reg SB.barrier) {su S} {t} {st (su S')} {gh S'} (ivX {S} {t} ar) y c
rog-crashX SB.flush {S} {t} {S'} ar y (inj₁ (c , _)) = rog-crC SB.flush {su S} {t} {st (su S')} {gh S'} (ivX {S} {t} ar) y c
rog-crashX SB.flush {S} {t} {S'} ar y (inj₂ ((M , _ , _ , x , r , img , _) , _)) = rog-fi {su S} {t} {M} {x} {st (su S')} (ivX {S} {t} ar) y r img

rog-crashX-rec : ∀ {S S'} → RoG (st (su S)) → crashX SB.recover S S' → RoG (st (su S'))
rog-crashX-rec {S} {S'} ro (inj₁ (c , _)) = rog-recCrC {st (su S)} {gh S} {st (su S')} {gh S'} ro c
rog-crashX-rec {S} {S'} ro (inj₂ (c , _)) = rog-recCc {st (su S)} {gh S} {st (su S')} {gh S'} ro c

-- a crash of PUSBic from a state with RIy, then recovery with the full
-- checkpoint: RIy again
rixg-crash-recX : ∀ u {S t S' S3 t3} (ar : ARX S t) → RIy (ivX {S} {t} ar) → crashX (SB.use u) S S' →
                  okPU SB.recover S' S3 → (iv3 : Inv′ (su S3) t3) → RIy iv3
rixg-crash-recX u {S} {t} {S'} ar y c r iv3 = rixg-rec {S'} r (rog-crashX u {S} {t} {S'} ar y c) iv3
