{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the one model's crash relations leave P's two checkpoint
-- cells free (SCFTL.Impl.CellFree), layer by layer:
--
--   PL, PLD      the lazy chain's crashes (every one `Σ m. … × Img m z`)
--   PUMc         PU's crashes at every command boundary (`CrC`, `RecCrC`;
--                the ghosts they leave read the region, never the cells:
--                `ghF-with`, `ghK-with`)
--   PUSic        its in-page/OOB commits (`ghFi-with`) and recovery
--                without a checkpoint (`RecCc`)
--   PUSBic       the SYNC outside a commit (whole or partial)
--   PX           both phases (`free-PX`)
--   BXone, BXφ   the block layer over PX (its bookkeeping reads the
--                pre-state only; a crashed block erase is M's erase
--                steps then one crashed erase: `free-esc`)
--
-- so `free-BXφ : FreeM BXφ …`, and with SCFTL.Impl.SlotOver's
-- `cellfree-of` the slot layer's coverage over the one model with
-- blocks has no hypothesis left (SCFTL.Impl.OneModelSlots).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelCellFree (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                   (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥)
open import Data.List.Base using (List)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl; sym; trans; cong)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; Cell; syn; cpL; cpO; CrashC; Img; ck3)
open import SCFTL.Impl.UnsyncedRecCrash Data d0 amax wmax kmax umax _≟D_ using (recR)
open import SCFTL.Impl.UnsyncedSync Data d0 amax wmax kmax umax _≟D_ using (syS)
open import SCFTL.Impl.UnsyncedSyncBehind Data d0 amax wmax kmax umax _≟D_ using (syB)
open import SCFTL.Impl.CrashPoints Data d0 amax wmax kmax _≟D_ using (CkCmd; ck-new; ck-erase; ck-end; before; after)
open import SCFTL.Impl.CellFree Data d0 amax wmax kmax umax _≟D_
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (SU; ⟦_,_⟧; su; gh; Gh)
open import SCFTL.Impl.UnsyncedCommands Data d0 amax wmax kmax umax _≟D_
  using (CrC; RecCrC; crashPUc; ghF; ghK; FlCmd; fb; fs; fck; fe)
import SCFTL.Impl.UnsyncedSyncInPageCommands Data d0 amax wmax kmax umax _≟D_ as IC
open IC using (crashSic; ghFi; FiCmd)
open import SCFTL.Impl.UnsyncedSyncAll Data d0 amax wmax kmax umax _≟D_ using (crashX; PUSBic)
open import SCFTL.Impl.LazyChainBarrier Data d0 amax wmax kmax umax _≟D_ kc using (PLD)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX; lzS; crL)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone)
open import SCFTL.Impl.OneModelBlocksPhys Data d0 amax wmax kmax umax _≟D_ kc zb using (BXφ)
import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb as BO
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

private
  module PLDm = SB.Model PLD

------------------------------------------------------------------------
-- The lazy chain (PL over SB's operations)

setS : St → Cell → Cell → St
setS = With

free-PLD : FreeM PLD (λ s → s) setS
free-PLD (SB.use (SB.reg (SB.op (SB.w a d)))) {X' = z} c = free-Σ z c
free-PLD (SB.use (SB.reg (SB.op SB.rl))) {X' = z} c = free-Σ z c
free-PLD (SB.use (SB.reg (SB.op SB.es))) {X' = z} c = free-Σ z c
free-PLD (SB.use (SB.reg (SB.op SB.sy))) ()
free-PLD (SB.use (SB.reg SB.barrier)) {X' = z} c = free-Σ z c
free-PLD (SB.use SB.flush) {X' = z} c = free-Σ z c
free-PLD SB.recover {X' = z} (b , g , C , pk , c) with free-Σ z c
... | x , i , f = x , i , λ c1 c2 e1 e2 → b , g , C , pk , f c1 c2 e1 e2

------------------------------------------------------------------------
-- PU at every command boundary

setU : SU → Cell → Cell → SU
setU S c1 c2 = ⟦ ⟪ With (st (su S)) c1 c2 , ues (su S) ⟫ , gh S ⟧

stU : SU → St
stU S = st (su S)

-- the ghosts a crash leaves read the region, not the cells
ghF-with : ∀ s {x} (r : FlCmd s x) z c1 c2 → ghF s r (With z c1 c2) ≡ ghF s r z
ghF-with s (fb _)  z c1 c2 = refl
ghF-with s fs      z c1 c2 = refl
ghF-with s (fck _) z c1 c2 = refl
ghF-with s fe      z c1 c2 = refl

ghK-with : ∀ {u x} (g : Gh) (c : CkCmd u x) z c1 c2 → ghK g (With z c1 c2) c ≡ ghK g z c
ghK-with g (ck-new _ _)   z c1 c2 = refl
ghK-with g (ck-erase _ _) z c1 c2 = refl
ghK-with g ck-end         z c1 c2 = refl

ghFi-with : ∀ s M {x} (r : FiCmd s M x) z c1 c2 → ghFi s M r (With z c1 c2) ≡ ghFi s M r z
ghFi-with s M (IC.fb _)               z c1 c2 = refl
ghFi-with s M (IC.fck _)              z c1 c2 = refl
ghFi-with s M IC.fce                  z c1 c2 = refl
ghFi-with s M (IC.fk (before _ _))    z c1 c2 = refl
ghFi-with s M (IC.fk (after _ _ _ _)) z c1 c2 = refl
ghFi-with s M IC.fe                   z c1 c2 = refl

free-CrC : ∀ u s {z g} → CrC u s z g → Σ St λ x → Img x z ×
  ∀ c1 c2 → CrashC (cpL x) (syn c1) → CrashC (cpO x) (syn c2) → CrC u s (With z c1 c2) g
free-CrC (SB.reg (SB.op (SB.w a d))) s {z} (x , r , i , e) = x , i , λ c1 c2 e1 e2 → x , r , img-with x z c1 c2 i e1 e2 , e
free-CrC (SB.reg (SB.op SB.rl)) s {z} (x , r , i , e) = x , i , λ c1 c2 e1 e2 → x , r , img-with x z c1 c2 i e1 e2 , e
free-CrC (SB.reg (SB.op SB.es)) s {z} (x , r , i , e) = x , i , λ c1 c2 e1 e2 → x , r , img-with x z c1 c2 i e1 e2 , e
free-CrC (SB.reg (SB.op SB.sy)) s ()
free-CrC (SB.reg SB.barrier) s {z} (inj₁ (lt , x , r , i , e)) =
  x , i , λ c1 c2 e1 e2 → inj₁ (lt , x , r , img-with (x) z c1 c2 i e1 e2 , e)
free-CrC (SB.reg SB.barrier) s {z} (inj₂ (x , r , i , e)) =
  x , i , λ c1 c2 e1 e2 → inj₂ (x , r , img-with (x) z c1 c2 i e1 e2 , trans e (sym (ghF-with s r z c1 c2)))
free-CrC SB.flush s {z} (x , r , i , e) =
  x , i , λ c1 c2 e1 e2 → x , r , img-with (x) z c1 c2 i e1 e2 , trans e (sym (ghF-with s r z c1 c2))

free-RecCrC : ∀ s g {z g3} → RecCrC s g z g3 → Σ St λ x → Img x z ×
  ∀ c1 c2 → CrashC (cpL x) (syn c1) → CrashC (cpO x) (syn c2) → RecCrC s g (With z c1 c2) g3
free-RecCrC s g {z} (b , g′ , C , pk , T , es' , ps , sh , inj₁ (x , c , i , e)) =
  x , i , λ c1 c2 e1 e2 → b , g′ , C , pk , T , es' , ps , sh ,
    inj₁ (x , c , img-with (x) z c1 c2 i e1 e2 , trans e (sym (ghK-with g c z c1 c2)))
free-RecCrC s g {z} (b , g′ , C , pk , T , es' , ps , sh , inj₂ (i , e)) =
  ck3 (recR b g′ C (proj₂ g) es' s) , i , λ c1 c2 e1 e2 → b , g′ , C , pk , T , es' , ps , sh , inj₂ (img-with (ck3 (recR b g′ C (proj₂ g) es' s)) z c1 c2 i e1 e2 , e)

free-PUc : ∀ o → FreeOn stU setU (crashPUc o)
free-PUc (SB.use u) {S} {S'} (c , ue) with free-CrC u (su S) {st (su S')} {gh S'} c
... | x , i , f = x , i , λ c1 c2 e1 e2 → f c1 c2 e1 e2 , ue
free-PUc SB.recover {S} {S'} (c , ue) with free-RecCrC (st (su S)) (gh S) {st (su S')} {gh S'} c
... | x , i , f = x , i , λ c1 c2 e1 e2 → f c1 c2 e1 e2 , ue

------------------------------------------------------------------------
-- PUSic and PUSBic

free-Sic : ∀ o → FreeOn stU setU (crashSic o)
free-Sic (SB.use SB.flush) {S} {S'} (inj₁ c) with free-PUc (SB.use SB.flush) {S} {S'} c
... | x , i , f = x , i , λ c1 c2 e1 e2 → inj₁ (f c1 c2 e1 e2)
free-Sic (SB.use SB.flush) {S} {S'} (inj₂ ((M , ue , ip , x , r , i , e) , ue')) =
  x , i , λ c1 c2 e1 e2 →
    inj₂ ((M , ue , ip , x , r , img-with (x) (st (su S')) c1 c2 i e1 e2 , trans e (sym (ghFi-with (su S) M r (st (su S')) c1 c2))) , ue')
free-Sic SB.recover {S} {S'} (inj₁ c) with free-PUc SB.recover {S} {S'} c
... | x , i , f = x , i , λ c1 c2 e1 e2 → inj₁ (f c1 c2 e1 e2)
free-Sic SB.recover {S} {S'} (inj₂ ((b , g′ , C , pk , T , es' , ps , sh , cl , q , i , e) , ue)) =
  recR b g′ C (proj₂ (gh S)) es' (st (su S)) , i , λ c1 c2 e1 e2 → inj₂ ((b , g′ , C , pk , T , es' , ps , sh , cl , q , img-with (recR b g′ C (proj₂ (gh S)) es' (st (su S))) (st (su S')) c1 c2 i e1 e2 , e) , ue)
free-Sic (SB.use (SB.reg (SB.op SB.sy))) {S} {S'} (inj₁ (i , e) , ue) =
  st (su S) , i , λ c1 c2 e1 e2 → inj₁ (img-with (st (su S)) (st (su S')) c1 c2 i e1 e2 , e) , ue
free-Sic (SB.use (SB.reg (SB.op SB.sy))) {S} {S'} (inj₂ (r , rl , i , e) , ue) =
  st (syS r (su S)) , i , λ c1 c2 e1 e2 → inj₂ (r , rl , img-with (st (syS r (su S))) (st (su S')) c1 c2 i e1 e2 , e) , ue
free-Sic (SB.use (SB.reg (SB.op (SB.w a d)))) {S} {S'} c = free-PUc (SB.use (SB.reg (SB.op (SB.w a d)))) {S} {S'} c
free-Sic (SB.use (SB.reg (SB.op SB.rl))) {S} {S'} c = free-PUc (SB.use (SB.reg (SB.op SB.rl))) {S} {S'} c
free-Sic (SB.use (SB.reg (SB.op SB.es))) {S} {S'} c = free-PUc (SB.use (SB.reg (SB.op SB.es))) {S} {S'} c
free-Sic (SB.use (SB.reg SB.barrier)) {S} {S'} c = free-PUc (SB.use (SB.reg SB.barrier)) {S} {S'} c

free-X : FreeM PUSBic stU setU
free-X (SB.use (SB.reg (SB.op SB.sy))) {S} {S'} (inj₁ c) with free-Sic (SB.use (SB.reg (SB.op SB.sy))) {S} {S'} c
... | x , i , f = x , i , λ c1 c2 e1 e2 → inj₁ (f c1 c2 e1 e2)
free-X (SB.use (SB.reg (SB.op SB.sy))) {S} {S'} (inj₂ ((xs , ys , l , r , eq , ld , rb , i , e) , ue)) =
  syB xs ys l r (st (su S)) , i , λ c1 c2 e1 e2 → inj₂ ((xs , ys , l , r , eq , ld , rb , img-with (syB xs ys l r (st (su S))) (st (su S')) c1 c2 i e1 e2 , e) , ue)
free-X (SB.use (SB.reg (SB.op (SB.w a d)))) {S} {S'} c = free-Sic (SB.use (SB.reg (SB.op (SB.w a d)))) {S} {S'} c
free-X (SB.use (SB.reg (SB.op SB.rl))) {S} {S'} c = free-Sic (SB.use (SB.reg (SB.op SB.rl))) {S} {S'} c
free-X (SB.use (SB.reg (SB.op SB.es))) {S} {S'} c = free-Sic (SB.use (SB.reg (SB.op SB.es))) {S} {S'} c
free-X (SB.use (SB.reg SB.barrier)) {S} {S'} c = free-Sic (SB.use (SB.reg SB.barrier)) {S} {S'} c
free-X (SB.use SB.flush) {S} {S'} c = free-Sic (SB.use SB.flush) {S} {S'} c
free-X SB.recover {S} {S'} c = free-Sic SB.recover {S} {S'} c



------------------------------------------------------------------------
-- PX

setX : XS → Cell → Cell → XS
setX (b , S) c1 c2 = b , setU S c1 c2

stXS : XS → St
stXS X = stU (proj₂ X)

free-crL : ∀ b u {s s'} → crL b u s s' → Σ St λ x → Img x s' ×
  ∀ c1 c2 → CrashC (cpL x) (syn c1) → CrashC (cpO x) (syn c2) → crL b u s (With s' c1 c2)
free-crL false (SB.reg SB.barrier) ()
free-crL true  (SB.reg SB.barrier) {s} {s'} c = free-PLD (SB.use (SB.reg SB.barrier)) {s} {s'} c
free-crL false (SB.reg (SB.op o)) {s} {s'} c = free-PLD (SB.use (SB.reg (SB.op o))) {s} {s'} c
free-crL true  (SB.reg (SB.op o)) {s} {s'} c = free-PLD (SB.use (SB.reg (SB.op o))) {s} {s'} c
free-crL false SB.flush {s} {s'} c = free-PLD (SB.use SB.flush) {s} {s'} c
free-crL true  SB.flush {s} {s'} c = free-PLD (SB.use SB.flush) {s} {s'} c

free-PX : FreeM PX stXS setX
free-PX (SB.use u) {b , S} {.false , S'} (inj₁ (refl , S0 , pr , c)) with free-X (SB.use u) {S0} {S'} c
... | x , i , f = x , i , λ c1 c2 e1 e2 → inj₁ (refl , S0 , pr , f c1 c2 e1 e2)
free-PX (SB.use u) {b , S} {.true , .(lzS s' (gh S))} (inj₂ (refl , ue , s' , refl , c))
  with free-crL b u {st (su S)} {s'} c
... | x , i , f = x , i , λ c1 c2 e1 e2 → inj₂ (refl , ue , With s' c1 c2 , refl , f c1 c2 e1 e2)
free-PX SB.recover {false , S} {.false , S'} (refl , c) with free-X SB.recover {S} {S'} c
... | x , i , f = x , i , λ c1 c2 e1 e2 → refl , f c1 c2 e1 e2
free-PX SB.recover {true , S} {.true , .(lzS s' (gh S))} (refl , ue , s' , refl , c)
  with free-PLD SB.recover {st (su S)} {s'} c
... | x , i , f = x , i , λ c1 c2 e1 e2 → refl , ue , With s' c1 c2 , refl , f c1 c2 e1 e2

------------------------------------------------------------------------
-- The block layer over a model whose crashes leave the cells free

module _ (M : SB.Model) (stOf : SB.Model.State M → St)
         (set : SB.Model.State M → Cell → Cell → SB.Model.State M) (fm : FreeM M stOf set) where
  open BO.Over M stOf using (XB; BX; EsCrashM; one; _∷_; esOp)

  setB : XB → Cell → Cell → XB
  setB (X , bl) c1 c2 = set X c1 c2 , bl

  free-esc : ∀ {X ps X'} → EsCrashM X ps X' → Σ St λ x → Img x (stOf X') ×
    ∀ c1 c2 → CrashC (cpL x) (syn c1) → CrashC (cpO x) (syn c2) → EsCrashM X ps (set X' c1 c2)
  free-esc {X} {_} {X'} (one c) with fm esOp {X} {X'} c
  ... | x , i , f = x , i , λ c1 c2 e1 e2 → one (f c1 c2 e1 e2)
  free-esc (e ∷ r) with free-esc r
  ... | x , i , f = x , i , λ c1 c2 e1 e2 → e ∷ f c1 c2 e1 e2

  free-BX : FreeM BX (λ Y → stOf (proj₁ Y)) setB
  free-BX (SB.use (SB.reg (SB.op (SB.w a d)))) {X , bl} {X' , bl'} (c , pl) with fm _ {X} {X'} c
  ... | x , i , f = x , i , λ c1 c2 e1 e2 → f c1 c2 e1 e2 , pl
  free-BX (SB.use (SB.reg (SB.op SB.rl))) {X , bl} {X' , bl'} (c , pl) with fm _ {X} {X'} c
  ... | x , i , f = x , i , λ c1 c2 e1 e2 → f c1 c2 e1 e2 , pl
  free-BX (SB.use (SB.reg (SB.op SB.es))) {X , bl} {X' , bl'} (k , run , ec , eb) with free-esc ec
  ... | x , i , f = x , i , λ c1 c2 e1 e2 → k , run , f c1 c2 e1 e2 , eb
  free-BX (SB.use (SB.reg (SB.op SB.sy))) {X , bl} {X' , bl'} (c , eb) with fm _ {X} {X'} c
  ... | x , i , f = x , i , λ c1 c2 e1 e2 → f c1 c2 e1 e2 , eb
  free-BX (SB.use (SB.reg SB.barrier)) {X , bl} {X' , bl'} (c , eb) with fm _ {X} {X'} c
  ... | x , i , f = x , i , λ c1 c2 e1 e2 → f c1 c2 e1 e2 , eb
  free-BX (SB.use SB.flush) {X , bl} {X' , bl'} (c , eb) with fm _ {X} {X'} c
  ... | x , i , f = x , i , λ c1 c2 e1 e2 → f c1 c2 e1 e2 , eb
  free-BX SB.recover {X , bl} {X' , bl'} (c , eb) with fm _ {X} {X'} c
  ... | x , i , f = x , i , λ c1 c2 e1 e2 → f c1 c2 e1 e2 , eb

------------------------------------------------------------------------
-- The one model with blocks, physical reads

setBX : SB.Model.State BXφ → Cell → Cell → SB.Model.State BXφ
setBX = setB PX stXS setX free-PX

free-BXφ : FreeM BXφ (λ Y → stX (proj₁ Y)) setBX
free-BXφ = free-BX PX stXS setX free-PX

setBX-law : ∀ Y c1 c2 → stX (proj₁ (setBX Y c1 c2)) ≡ With (stX (proj₁ Y)) c1 c2
setBX-law Y c1 c2 = refl
