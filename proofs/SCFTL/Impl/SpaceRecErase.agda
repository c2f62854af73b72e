{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks across a crash, fourth part: a
-- recovery that leaves no free block.
--
-- SCFTL.Impl.SpaceRecInv's `rec-inv` makes a recovered state `Retired`
-- where a free block below P is left to stand for Space's fresh open
-- block.  Where none is (every block below P holds a page the crash did
-- not cut), the code's first allocation erases an erasable superblock
-- and opens it (blocks.rs `activate_next`).  Here that state is a fourth
-- form of the layer's invariant:
--
--   `Erasing`   : Space's open block is an erasable block `ke` still to
--                 be erased — the abstraction is over the ghost with `ke`
--                 not erasable (`esOff`) and the block bookkeeping with
--                 `ke` erased and open (`erOpen`); no block below P is
--                 free, the open block is in a class, and the valid
--                 sectors lie in used blocks below P or the victim
--                 (`PlacedU`);
--   `rec-erasing` : a recovered state (SpaceRecInv's `Recovered`) with
--                 no free block below P is `Erasing`: Space's `rec` with
--                 one erasable block fewer, `ke` any block the rebuild
--                 holds erasable (there is one: the recovered map leaves
--                 a block for Space's open one, `fit-lt`);
--   `swap`      : Space's open block may be any erasable block once it
--                 is erased (its counts are the same);
--   **`erasing-step`** : every step of the layer from `Erasing` keeps it
--                 or reaches `Retired`: no placement is possible (no
--                 free block, the open block in a class: `OpenOK`); the
--                 erase of `ke` makes it Space's open block, free, with
--                 no step of Space; the erase of another erasable block
--                 makes that one Space's open block (`swap`); a flush,
--                 a barrier, a SYNC and GC's steps are Space's, as from
--                 `Retired`.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRecErase (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; not; _∧_; _∨_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; length)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; s≤s; z≤n)
open import Data.Nat.Properties using (+-identityʳ; suc-injective; <-irrefl; n<1+n) renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
open import Relation.Nullary using (yes; no)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (l2p; wcnt; nxt; _[_≔_])
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; BXone; obligationsBXone; module OPX)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (LocX; loc-ok)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; loc; wp; ab; fr; balloc; berase; upd-self; upd-ne)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb
  using (vc; vc-w; vc-rl; vc-flush; vc-barrier; vc-sy; vc-erase)
open import SCFTL.Impl.SpaceUsed using (b2n; tot; tot-ext; tot-+; tot-0; tot-1; tot-flip; tot-pos; used-ext)
open import SCFTL.Impl.SpaceData using (StD; sd; StepD; ReachD; gcD; vsD; pendD)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; us; es; vi; cv; gn; Abs; module Abs; FrWp; Opened; pendOf; t→¬f; f≢t; nothing≢just;
         kept; sim-fl; sim-barrier; sim-sy; sim-gcm; sim-done; frwp-ok; frwp-erase)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone; endEp;
         Classed; Unclassed; clash; guard-open; In; Placed; Retired; usedOf; cls-end; cls-gc)
open import SCFTL.Impl.SpaceRecFit Data d0 amax wmax kmax umax _≟D_ kc zb using (nz; recUsed; rec-at; fit-lt)
open import SCFTL.Impl.SpaceRecInv Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Recovered; module Recovered; recGh; belowP-lt; fr-vc; nz0; named-below; all-classes)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

module OBX = SB.ForwardSimulation.Obligations obligationsBXone

------------------------------------------------------------------------
-- The fourth form

-- the ghost with block ke not erasable, and the bookkeeping with ke
-- erased and open: what Space sees while ke is its open block
esOff : Gh → ℕ → Gh
esOff G ke = record G { es = es G [ ke ≔ false ] }

erOpen : BL → ℕ → BL
erOpen bl ke = Opened (berase ke bl) ke

-- every valid sector in a used block below P or the current victim
PlacedU : Sp.Config → Gh → XS → BL → Set
PlacedU c G X bl = ∀ j → vc X bl j ≡ 0 ⊎ (us G j ≡ true × j < Sp.P c) ⊎ cv G ≡ just j

record Erasing (c : Sp.Config) (s : LS) : Set where
  G = proj₁ s
  X = proj₁ (proj₂ s)
  bl = proj₂ (proj₂ s)
  field
    d      : StD
    reach  : ReachD c d
    ke     : ℕ
    keP    : ke < Sp.P c
    keE    : es G ke ≡ true
    keU    : us G ke ≡ false
    keV    : vi G ke ≡ false
    keZ    : vc X bl ke ≡ 0
    noFr   : ∀ k → k < Sp.P c → fr bl k ≡ false
    abs    : Abs c (esOff G ke) X (erOpen bl ke) d
    placed : PlacedU c G X bl
    abP    : ab bl < Sp.P c
    abC    : Classed G (ab bl)
    frwp   : FrWp bl
    locx   : LocX X bl
    ri     : OBX.RI (X , bl)

-- the placement of Retired and of Space's view from `PlacedU`
placed-of : ∀ {c G X bl} → PlacedU c G X bl → ∀ {G' k} → (∀ j → us G' j ≡ us G j) → cv G' ≡ cv G → Placed c G' X (erOpen bl k)
placed-of {c} {G} pu {G'} eu ec j with pu j
... | inj₁ z = inj₁ z
... | inj₂ (inj₁ (u , lt)) = inj₂ (inj₂ (inj₁ (trans (eu j) u , lt)))
... | inj₂ (inj₂ e) = inj₂ (inj₂ (inj₂ (trans ec e)))

------------------------------------------------------------------------
-- Abs over equal ghosts, and the swap of Space's open block

private
  upd-back : ∀ (f : ℕ → Bool) x → f x ≡ false → ∀ j → ((f [ x ≔ true ]) [ x ≔ false ]) j ≡ f j
  upd-back f x fx j with j ≟ℕ x
  ... | yes refl = trans (upd-self (f [ j ≔ true ]) j false) (sym fx)
  ... | no ne = trans (upd-ne (f [ x ≔ true ]) j x false ne) (upd-ne f j x true ne)

  -- a flag true at one place, false after it is cleared there
  off-ne : ∀ (f : ℕ → Bool) {x j} → (f [ x ≔ false ]) j ≡ true → j ≢ x
  off-ne f {x} e refl = f≢t (trans (sym (upd-self f x false)) e)

  off-at : ∀ (f : ℕ → Bool) {x j} → j ≢ x → (f [ x ≔ false ]) j ≡ f j
  off-at f {x} {j} ne = upd-ne f j x false ne

abs-eq : ∀ {c G G' X bl d} → (∀ k → us G' k ≡ us G k) → (∀ k → es G' k ≡ es G k) → (∀ k → vi G' k ≡ vi G k) →
         cv G' ≡ cv G → gn G' ≡ gn G → Abs c G X bl d → Abs c G' X bl d
abs-eq {c} {G} {G'} {X} {bl} {d} eu ee ev ec en I = record
  { vsA = trans (Abs.vsA I) (sym (used-ext (us G) (us G') (vc X bl) (Sp.P c) (λ j _ → eu j)))
  ; vaA = Abs.vaA I ; roomA = Abs.roomA I ; wcA = Abs.wcA I
  ; abU = trans (eu (ab bl)) (Abs.abU I) ; abP = Abs.abP I ; frA = Abs.frA I ; abF = Abs.abF I
  ; frU = λ k f → trans (eu k) (Abs.frU I k f)
  ; erA = trans (Abs.erA I) (tot-ext _ _ (Sp.P c) (λ k _ → cong b2n (sym (ee k))))
  ; invA = trans (Abs.invA I) (tot-ext _ _ (Sp.P c) (λ k _ → cong b2n (sym (ev k))))
  ; pdA = trans (Abs.pdA I) (cong (pendOf X bl) (sym ec)) ; gcA = trans (Abs.gcA I) (sym en)
  ; abE = trans (ee (ab bl)) (Abs.abE I) ; abV = trans (ev (ab bl)) (Abs.abV I)
  ; frE = λ k f → trans (ee k) (Abs.frE I k f) ; frV = λ k f → trans (ev k) (Abs.frV I k f)
  ; usE = λ k u → trans (ee k) (Abs.usE I k (trans (sym (eu k)) u))
  ; usV = λ k u → trans (ev k) (Abs.usV I k (trans (sym (eu k)) u))
  ; esV = λ k e → trans (ev k) (Abs.esV I k (trans (sym (ee k)) e))
  ; cvV = λ k e → trans (ev k) (Abs.cvV I k (trans (sym ec) e)) }

-- **Space's open block may be any erasable block once it is erased**:
-- the counts are the same, one erasable block (`ke` or `k`) being the
-- open one
swap : ∀ {c G X bl d ke k} → Abs c (esOff G ke) X (erOpen bl ke) d → ke ≢ k → es G k ≡ true → k < Sp.P c →
       es G ke ≡ true → ke < Sp.P c → us G ke ≡ false → vi G ke ≡ false → fr bl ke ≡ false → fr bl k ≡ false →
       vc X bl ke ≡ 0 → vc X bl k ≡ 0 → Abs c (esOff G k) X (erOpen bl k) d
swap {c} {G} {X} {bl} {d} {ke} {k} I ne esk kP eske keP uke vke fke fk zke zk = record
  { vsA = Abs.vsA I
  ; vaA = trans (Abs.vaA I) (trans zke (sym zk))
  ; roomA = trans (cong (roomD′ +_) (trans (upd-self (wp bl) k 0) (sym (upd-self (wp bl) ke 0)))) (Abs.roomA I)
  ; wcA = Abs.wcA I
  ; abU = usk
  ; abP = kP
  ; frA = trans (Abs.frA I) (tot-ext _ _ (Sp.P c) (λ j _ → cong b2n (trans (upd-back (fr bl) ke fke j) (sym (upd-back (fr bl) k fk j)))))
  ; abF = upd-self (fr bl [ k ≔ true ]) k false
  ; frU = λ j f → Abs.frU I j (fr* j f)
  ; erA = trans (Abs.erA I) (suc-injective (trans (sym (flip ke keP eske)) (flip k kP esk)))
  ; invA = Abs.invA I ; pdA = trans (Abs.pdA I) (pend-eq (cv G)) ; gcA = Abs.gcA I
  ; abE = upd-self (es G) k false
  ; abV = Abs.esV I k (trans (off-at (es G) (λ e → ne (sym e))) esk)
  ; frE = frE′ ; frV = λ j f → Abs.frV I j (fr* j f)
  ; usE = usE′ ; usV = Abs.usV I ; esV = esV′ ; cvV = Abs.cvV I }
  where
  roomD′ = SCFTL.Impl.SpaceData.roomD d
  pend-eq : ∀ m → pendOf X (erOpen bl ke) m ≡ pendOf X (erOpen bl k) m
  pend-eq nothing  = refl
  pend-eq (just j) = refl
  -- a free block of Space's new view is free in its old one
  fr* : ∀ j → fr (erOpen bl k) j ≡ true → fr (erOpen bl ke) j ≡ true
  fr* j f = trans (upd-back (fr bl) ke fke j) (trans (sym (upd-back (fr bl) k fk j)) f)
  flip : ∀ x → x < Sp.P c → es G x ≡ true → tot (λ j → b2n (es G j)) (Sp.P c) ≡ suc (tot (λ j → b2n ((es G [ x ≔ false ]) j)) (Sp.P c))
  flip x lt e = tot-flip (es G) (es G [ x ≔ false ]) x (Sp.P c) lt e (upd-self (es G) x false) (λ j _ jx → upd-ne (es G) j x false jx)
  usk : us G k ≡ false
  usk with us G k in eu
  ... | false = refl
  ... | true = ⊥-elim (f≢t (trans (sym (Abs.usE I k eu)) (trans (off-at (es G) (λ e → ne (sym e))) esk)))
  frE′ : ∀ j → fr (erOpen bl k) j ≡ true → (es G [ k ≔ false ]) j ≡ false
  frE′ j f with j ≟ℕ k
  ... | yes refl = upd-self (es G) j false
  ... | no jk with j ≟ℕ ke
  ...   | yes refl = ⊥-elim (f≢t (trans (sym (upd-self (fr bl [ j ≔ true ]) j false)) (fr* j f)))
  ...   | no jke = trans (off-at (es G) jk) (trans (sym (off-at (es G) jke)) (Abs.frE I j (fr* j f)))
  usE′ : ∀ j → us G j ≡ true → (es G [ k ≔ false ]) j ≡ false
  usE′ j u with j ≟ℕ k
  ... | yes refl = upd-self (es G) j false
  ... | no jk with j ≟ℕ ke
  ...   | yes refl = ⊥-elim (f≢t (trans (sym uke) u))
  ...   | no jke = trans (off-at (es G) jk) (trans (sym (off-at (es G) jke)) (Abs.usE I j u))
  esV′ : ∀ j → (es G [ k ≔ false ]) j ≡ true → vi G j ≡ false
  esV′ j e with j ≟ℕ ke
  ... | yes refl = vke
  ... | no jke = Abs.esV I j (trans (off-at (es G) jke) (trans (sym (off-at (es G) (off-ne (es G) e))) e))

------------------------------------------------------------------------
-- Every step from `Erasing`

LInvE : Sp.Config → LS → Set
LInvE c s = Retired c s ⊎ Erasing c s

private
  grow1 : ∀ {c d d'} → ReachD c d → StepD c d d' → ReachD c d'
  grow1 r st = r ◅◅ (st ◅ ε)

  just-inj : ∀ {a b : ℕ} → just a ≡ just b → a ≡ b
  just-inj refl = refl

  -- GC's guard on Space's view
  nnA : ∀ {c G X bl d ke} → Abs c (esOff G ke) X (erOpen bl ke) d → Sp.NotNeeded c (gn G) (usedOf c G X bl) →
        Sp.NotNeeded c (gcD d) (vsD d)
  nnA {c} I (inj₁ k) = inj₁ (subst (Sp.K c ≤_) (sym (Abs.gcA I)) k)
  nnA {c} I (inj₂ u) = inj₂ (subst (λ l → length l < Sp.U c) (sym (Abs.vsA I)) u)

  -- the classes at an erase (SpaceLayer's `cls-end`, `cls-gc` for an
  -- epoch's end and GC's choice)
  cls-off : ∀ {G k j} → Classed G j → j ≢ k → Classed (esOff G k) j
  cls-off (inj₁ u) _ = inj₁ u
  cls-off (inj₂ (inj₁ v)) _ = inj₂ (inj₁ v)
  cls-off {G} {k} {j} (inj₂ (inj₂ e)) ne = inj₂ (inj₂ (trans (off-at (es G) ne) e))

  -- an epoch's end over Space's view: the ghost with ke not erasable
  end-off : ∀ (G : Gh) ke → vi G ke ≡ false →
            ∀ k → ((λ j → es G j ∨ vi G j) [ ke ≔ false ]) k ≡ ((es G [ ke ≔ false ]) k ∨ vi G k)
  end-off G ke v k with k ≟ℕ ke
  ... | yes refl = trans (upd-self (λ j → es G j ∨ vi G j) k false) (sym (trans (cong (_∨ vi G k) (upd-self (es G) k false)) v))
  ... | no ne = trans (upd-ne (λ j → es G j ∨ vi G j) k ke false ne) (cong (_∨ vi G k) (sym (upd-ne (es G) k ke false ne)))

  placedU-keep : ∀ {c G G' X X' bl bl'} → PlacedU c G X bl → (∀ j → vc X' bl' j ≡ vc X bl j) →
                 (∀ j → us G' j ≡ us G j) → cv G' ≡ cv G → PlacedU c G' X' bl'
  placedU-keep pu keep eu ec j with pu j
  ... | inj₁ z = inj₁ (trans (keep j) z)
  ... | inj₂ (inj₁ (u , lt)) = inj₂ (inj₁ (trans (eu j) u , lt))
  ... | inj₂ (inj₂ e) = inj₂ (inj₂ (trans ec e))

module _ {c : Sp.Config} where

  private
    -- a step that keeps the ghost and the bookkeeping, Space's view given
    keepE : ∀ {G X X' bl} (E : Erasing c (G , X , bl)) → Abs c (esOff G (Erasing.ke E)) X' (erOpen bl (Erasing.ke E)) (Erasing.d E) →
            (∀ j → vc X' bl j ≡ vc X bl j) → LocX X' bl → OBX.RI (X' , bl) → Erasing c (G , X' , bl)
    keepE {G} {X} {X'} {bl} E I keep lx r = record
      { d = Erasing.d E ; reach = Erasing.reach E ; ke = Erasing.ke E ; keP = Erasing.keP E
      ; keE = Erasing.keE E ; keU = Erasing.keU E ; keV = Erasing.keV E
      ; keZ = trans (keep (Erasing.ke E)) (Erasing.keZ E) ; noFr = Erasing.noFr E ; abs = I
      ; placed = placedU-keep {c} {G} {G} {X} {X'} {bl} {bl} (Erasing.placed E) keep (λ _ → refl) refl
      ; abP = Erasing.abP E ; abC = Erasing.abC E ; frwp = Erasing.frwp E ; locx = lx ; ri = r }

    -- no placement from `Erasing`: the open block is in a class, and no
    -- block below P is free
    no-open : ∀ {G X bl k'} (E : Erasing c (G , X , bl)) → Unclassed G k' → k' ≡ ab bl → ⊥
    no-open {G} {X} {bl} E u refl = clash {G} {ab bl} (Erasing.abC E) u

    no-free : ∀ {G X bl k'} (E : Erasing c (G , X , bl)) → fr bl k' ≡ true → k' < Sp.P c → ⊥
    no-free E f lt = f≢t (trans (sym (Erasing.noFr E _ lt)) f)

    -- the erase of a block from `Erasing`: `Retired`, Space's open block
    -- the erased one, with no step of Space
    to-ret : ∀ {G X X' bl k} (E : Erasing c (G , X , bl)) →
             Abs c (esOff G k) X' (erOpen bl k) (Erasing.d E) → PlacedU c G X' bl → k < Sp.P c →
             LocX X' (berase k bl) → OBX.RI (X' , berase k bl) → Retired c (esOff G k , X' , berase k bl)
    to-ret {G} {X} {X'} {bl} {k} E I pu kP lx r = record
      { d = Erasing.d E ; reach = Erasing.reach E ; kn = k ; knFr = upd-self (fr bl) k true
      ; abs = I ; placed = placed-of {c} {G} {X'} {bl} pu {esOff G k} {k} (λ _ → refl) refl
      ; abP = Erasing.abP E ; abC = abC′
      ; frwp = frwp-erase {bl} k (Erasing.frwp E) ; locx = lx ; ri = r }
      where
      abC′ : fr (berase k bl) (ab bl) ≡ true ⊎ Classed (esOff G k) (ab bl)
      abC′ with ab bl ≟ℕ k
      ... | yes e = inj₁ (subst (λ z → (fr bl [ k ≔ true ]) z ≡ true) (sym e) (upd-self (fr bl) k true))
      ... | no ne = inj₂ (cls-off {G} {k} (Erasing.abC E) ne)

  -- **every step of the layer from `Erasing`**
  erasing-step : ∀ {s s'} → Erasing c s → LStep c s s' → LInvE c s'
  erasing-step {G , X , bl} E (lw {X' = X'} {bl' = bl'} {a} {dd} o stay nocv nn ok) with vc-w a dd {X} {X'} (proj₁ (Erasing.ri E)) o
  ... | inj₁ (refl , wc , keep) = inj₂ (keepE E (kept (Erasing.abs E) keep wc) keep
          (loc-ok (SB.reg (SB.op (SB.w a dd))) (proj₁ (Erasing.ri E)) (Erasing.locx E) o) (OBX.B-ok (SB.reg (SB.op (SB.w a dd))) (Erasing.ri E) o))
  ... | inj₂ ((b , le , _ , k' , refl , opens , wlt , mv) , wc , wb) =
    ⊥-elim (no-open E (guard-open {X} {G} {bl} ok k' refl stay) stay)
  erasing-step E (lwa o moved kP full nocv nn uncl) = ⊥-elim (no-open E uncl refl)
  erasing-step E (lret full uncl frk kP) = ⊥-elim (no-open E uncl refl)
  erasing-step {G , X , bl} E (lwr {X' = X'} {bl' = bl'} {a} {dd} o moved kP cls nocv nn) with vc-w a dd {X} {X'} (proj₁ (Erasing.ri E)) o
  ... | inj₁ (refl , _ , _) = ⊥-elim (moved refl)
  ... | inj₂ ((b , le , _ , k' , refl , inj₁ e , _) , _) = ⊥-elim (moved e)
  ... | inj₂ ((b , le , _ , k' , refl , inj₂ frk , _) , _) = ⊥-elim (no-free E frk kP)
  erasing-step {G , X , bl} E (lfl {X' = X'} (o , refl) nocv nn) = inj₂ record
    { d = proj₁ S0 ; reach = grow1 (Erasing.reach E) (proj₁ (proj₂ S0)) ; ke = ke ; keP = Erasing.keP E
    ; keE = cong (_∨ vi G ke) (Erasing.keE E) ; keU = Erasing.keU E ; keV = refl
    ; keZ = trans (keep ke) (Erasing.keZ E) ; noFr = Erasing.noFr E
    ; abs = abs-eq (λ _ → refl) (end-off G ke (Erasing.keV E)) (λ _ → refl) refl refl (proj₂ (proj₂ S0))
    ; placed = placedU-keep {c} {G} {endEp G} {X} {X'} {bl} {bl} (Erasing.placed E) keep (λ _ → refl) refl
    ; abP = Erasing.abP E ; abC = cls-end {G} (Erasing.abC E)
    ; frwp = Erasing.frwp E ; locx = loc-ok SB.flush {X} {X'} {bl} {bl} (proj₁ (Erasing.ri E)) (Erasing.locx E) (o , refl)
    ; ri = OBX.B-ok SB.flush {X , bl} {X' , bl} (Erasing.ri E) (o , refl) }
    where
    ke = Erasing.ke E
    keep = vc-flush {X} {X'} {bl} {bl} (o , refl)
    S0 = sim-fl {c} {esOff G ke} {X} {X'} {erOpen bl ke} {erOpen bl ke} (Erasing.abs E) nocv
           (nnA {c} {G} {X} {bl} (Erasing.abs E) nn) (o , refl)
  erasing-step {G , X , bl} E (lbar {X' = X'} (o , refl) nocv nn) = inj₂ record
    { d = proj₁ S0 ; reach = grow1 (Erasing.reach E) (proj₁ (proj₂ S0)) ; ke = ke ; keP = Erasing.keP E
    ; keE = cong (_∨ vi G ke) (Erasing.keE E) ; keU = Erasing.keU E ; keV = refl
    ; keZ = trans (keep ke) (Erasing.keZ E) ; noFr = Erasing.noFr E
    ; abs = abs-eq (λ _ → refl) (end-off G ke (Erasing.keV E)) (λ _ → refl) refl refl (proj₂ (proj₂ S0))
    ; placed = placedU-keep {c} {G} {endEp G} {X} {X'} {bl} {bl} (Erasing.placed E) keep (λ _ → refl) refl
    ; abP = Erasing.abP E ; abC = cls-end {G} (Erasing.abC E)
    ; frwp = Erasing.frwp E ; locx = loc-ok (SB.reg SB.barrier) {X} {X'} {bl} {bl} (proj₁ (Erasing.ri E)) (Erasing.locx E) (o , refl)
    ; ri = OBX.B-ok (SB.reg SB.barrier) {X , bl} {X' , bl} (Erasing.ri E) (o , refl) }
    where
    ke = Erasing.ke E
    keep = vc-barrier {X} {X'} {bl} {bl} (o , refl)
    S0 = sim-barrier {c} {esOff G ke} {X} {X'} {erOpen bl ke} {erOpen bl ke} (Erasing.abs E) nocv
           (nnA {c} {G} {X} {bl} (Erasing.abs E) nn) (o , refl)
  erasing-step {G , X , bl} E (lsy {X' = X'} (o , refl)) =
    inj₂ (keepE E (sim-sy {c} {esOff G (Erasing.ke E)} {X} {X'} {erOpen bl (Erasing.ke E)} {erOpen bl (Erasing.ke E)} (Erasing.abs E) (o , refl))
            (vc-sy {X} {X'} {bl} {bl} (o , refl))
            (loc-ok (SB.reg (SB.op SB.sy)) {X} {X'} {bl} {bl} (proj₁ (Erasing.ri E)) (Erasing.locx E) (o , refl))
            (OBX.B-ok (SB.reg (SB.op SB.sy)) {X , bl} {X' , bl} (Erasing.ri E) (o , refl)))
  erasing-step {G , X , bl} E (lera {X' = X'} {bl' = .(berase k bl)} (k , rn , refl) esk kP) with k ≟ℕ Erasing.ke E
  ... | yes refl = inj₁ (to-ret E (kept (Erasing.abs E) keep wc) (placedU-keep {c} {G} {G} {X} {X'} {bl} {bl} (Erasing.placed E) keep (λ _ → refl) refl) kP lx r)
    where
    o : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , berase k bl)
    o = k , rn , refl
    V = vc-erase {X} {X'} {bl} {berase k bl} (proj₁ (Erasing.ri E)) (Erasing.locx E) o
    keep : ∀ j → vc X' bl j ≡ vc X bl j
    keep = proj₁ (proj₂ (proj₂ (proj₂ V)))
    wc = proj₂ (proj₂ (proj₂ (proj₂ V)))
    lx = loc-ok (SB.reg (SB.op SB.es)) (proj₁ (Erasing.ri E)) (Erasing.locx E) o
    r = OBX.B-ok (SB.reg (SB.op SB.es)) (Erasing.ri E) o
  ... | no ne = inj₁ (to-ret E I′ (placedU-keep {c} {G} {G} {X} {X'} {bl} {bl} (Erasing.placed E) keep (λ _ → refl) refl) kP lx r)
    where
    ke = Erasing.ke E
    o : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , berase k bl)
    o = k , rn , refl
    V = vc-erase {X} {X'} {bl} {berase k bl} (proj₁ (Erasing.ri E)) (Erasing.locx E) o
    keep : ∀ j → vc X' bl j ≡ vc X bl j
    keep = proj₁ (proj₂ (proj₂ (proj₂ V)))
    wc = proj₂ (proj₂ (proj₂ (proj₂ V)))
    lx = loc-ok (SB.reg (SB.op SB.es)) (proj₁ (Erasing.ri E)) (Erasing.locx E) o
    r = OBX.B-ok (SB.reg (SB.op SB.es)) (Erasing.ri E) o
    I′ : Abs c (esOff G k) X' (erOpen bl k) (Erasing.d E)
    I′ = swap {c} {G} {X'} {bl} {Erasing.d E} {ke} {k} (kept (Erasing.abs E) keep wc) (λ e → ne (sym e)) esk kP
           (Erasing.keE E) (Erasing.keP E) (Erasing.keU E) (Erasing.keV E)
           (Erasing.noFr E ke (Erasing.keP E)) (Erasing.noFr E k kP)
           (trans (keep ke) (Erasing.keZ E)) (trans (keep k) (proj₁ (proj₂ (proj₂ V))))
  erasing-step {G , X , bl} E (lgcm {k = k} nocv usk kP gk uL vN) = inj₂ record
    { d = proj₁ S0 ; reach = grow1 (Erasing.reach E) (proj₁ (proj₂ S0)) ; ke = ke ; keP = Erasing.keP E
    ; keE = Erasing.keE E ; keU = keU′ ; keV = trans (upd-ne (vi G) ke k true ke≢k) (Erasing.keV E)
    ; keZ = Erasing.keZ E ; noFr = Erasing.noFr E
    ; abs = proj₂ (proj₂ S0)
    ; placed = pu
    ; abP = Erasing.abP E ; abC = cls-gc {G} {k} (Erasing.abC E)
    ; frwp = Erasing.frwp E ; locx = Erasing.locx E ; ri = Erasing.ri E }
    where
    ke = Erasing.ke E
    I = Erasing.abs E
    S0 = sim-gcm {c} {esOff G ke} {X} {erOpen bl ke} {Erasing.d E} {k} I nocv usk kP (subst (_< Sp.K c) (sym (Abs.gcA I)) gk)
           (subst (λ l → Sp.U c ≤ length l) (sym (Abs.vsA I)) uL) vN
    ke≢k : ke ≢ k
    ke≢k e = f≢t (trans (sym (Erasing.keU E)) (subst (λ z → us G z ≡ true) (sym e) usk))
    keU′ : (us G [ k ≔ false ]) ke ≡ false
    keU′ = trans (upd-ne (us G) ke k false ke≢k) (Erasing.keU E)
    pu : PlacedU c (record G { us = us G [ k ≔ false ] ; vi = vi G [ k ≔ true ] ; cv = just k ; gn = suc (gn G) }) X bl
    pu j with Erasing.placed E j
    ... | inj₁ z = inj₁ z
    ... | inj₂ (inj₂ e) = ⊥-elim (nothing≢just (trans (sym nocv) e))
    ... | inj₂ (inj₁ (u , lt)) with j ≟ℕ k
    ...   | yes refl = inj₂ (inj₂ refl)
    ...   | no jk = inj₂ (inj₁ (trans (upd-ne (us G) j k false jk) u , lt))
  erasing-step {G , X , bl} E (lrl {X' = X'} {bl' = bl'} {k} cvk o stay pol w ok) with vc-rl {X} {X'} (proj₁ (Erasing.ri E)) o
  ... | inj₁ (refl , wc , keep) = inj₂ (keepE E (kept (Erasing.abs E) keep wc) keep
          (loc-ok (SB.reg (SB.op SB.rl)) (proj₁ (Erasing.ri E)) (Erasing.locx E) o) (OBX.B-ok (SB.reg (SB.op SB.rl)) (Erasing.ri E) o))
  ... | inj₂ ((b , le , eb , k' , refl , opens , wlt , mv) , wc) =
    ⊥-elim (no-open E (guard-open {X} {G} {bl} ok k' refl stay) stay)
  erasing-step E (lrla cvk o moved kP full pol w uncl) = ⊥-elim (no-open E uncl refl)
  erasing-step {G , X , bl} E (lrlr {X' = X'} {bl' = bl'} {k} cvk o moved kP pol w cls) with vc-rl {X} {X'} (proj₁ (Erasing.ri E)) o
  ... | inj₁ (refl , _ , _) = ⊥-elim (moved refl)
  ... | inj₂ ((b , le , _ , k' , refl , inj₁ e , _) , _) = ⊥-elim (moved e)
  ... | inj₂ ((b , le , _ , k' , refl , inj₂ frk , _) , _) = ⊥-elim (no-free E frk kP)
  erasing-step {G , X , bl} E (ldone {k = k} cvk z rel) = inj₂ record
    { d = Erasing.d E ; reach = Erasing.reach E ; ke = Erasing.ke E ; keP = Erasing.keP E
    ; keE = Erasing.keE E ; keU = Erasing.keU E ; keV = Erasing.keV E
    ; keZ = Erasing.keZ E ; noFr = Erasing.noFr E
    ; abs = sim-done {c} {esOff G (Erasing.ke E)} {X} {erOpen bl (Erasing.ke E)} {Erasing.d E} {k} (Erasing.abs E) cvk
              (trans (Abs.pdA (Erasing.abs E)) (trans (cong (pendOf X (erOpen bl (Erasing.ke E))) cvk) z))
    ; placed = pu
    ; abP = Erasing.abP E ; abC = Erasing.abC E
    ; frwp = Erasing.frwp E ; locx = Erasing.locx E ; ri = Erasing.ri E }
    where
    pu : PlacedU c (record G { cv = nothing }) X bl
    pu j with Erasing.placed E j
    ... | inj₁ z = inj₁ z
    ... | inj₂ (inj₁ x) = inj₂ (inj₁ x)
    ... | inj₂ (inj₂ e) with just-inj (trans (sym cvk) e)
    ...   | refl = inj₁ z

------------------------------------------------------------------------
-- A recovery that leaves no free block below P

private
  nz-0 : ∀ n → nz n ≡ false → n ≡ 0
  nz-0 zero    _ = refl
  nz-0 (suc _) ()

-- **a recovered state with no free block below P is `Erasing`**: Space's
-- recovery with one erasable block fewer than the rebuild holds, `ke`
-- (any of them) standing for Space's fresh open block
rec-erasing : ∀ {c X bl d} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → ReachD c d → Recovered c X bl →
              (∀ k → k < Sp.P c → fr bl k ≡ false) → Erasing c (recGh c X bl , X , bl)
rec-erasing {c} {X} {bl} {d} eL eW r R nf = record
  { d = d′ ; reach = r ◅◅ (rec-at {c} {X} {bl} eL (Recovered.fit R) E′ cnt d ◅ ε)
  ; ke = ke ; keP = keP ; keE = keE ; keU = es-nz ke keE ; keV = refl
  ; keZ = zke ; noFr = nf ; abs = abs1 ; placed = placed1
  ; abP = Recovered.abP R ; abC = abC1
  ; frwp = fw ; locx = lx ; ri = Recovered.ri R }
  where
  G = recGh c X bl
  fw = Recovered.frwp R
  lx = Recovered.locx R
  ys = recUsed c X bl
  U = tot (λ k → b2n (us G k)) (Sp.P c)
  E = tot (λ k → b2n (es G k)) (Sp.P c)
  fr0 : tot (λ k → b2n (fr bl k)) (Sp.P c) ≡ 0
  fr0 = trans (tot-ext _ (λ _ → 0) (Sp.P c) (λ k lt → cong b2n (nf k lt))) (tot-0 (Sp.P c))
  EU : E + U ≡ Sp.P c
  EU = trans (cong (_+ (E + U)) (sym fr0)) (all-classes {c} {X} {bl} fw lx)
  nU : length ys ≡ U
  nU = SCFTL.Impl.SpaceUsed.used-count (us G) (vc X bl) (Sp.P c)
  n1 : 1 ≤ Sp.need c
  n1 = Data.Nat.Properties.≤-trans (subst (1 ≤_) (sym eW) (s≤s z≤n)) (Data.Nat.Properties.m≤m+n (Sp.W c) _)
  U<P : U < Sp.P c
  U<P = fit-lt {c} {U} n1 (proj₁ (Recovered.fit R))
  -- an erasable block: the recovered map leaves one for Space's open one
  E≥1 : 1 ≤ E
  E≥1 with E in eE
  ... | suc _ = s≤s z≤n
  ... | zero = ⊥-elim (<-irrefl (sym (trans (sym EU) (cong (_+ U) eE))) U<P)
  W = tot-pos (λ k → es G k) (Sp.P c) E≥1
  ke = proj₁ W
  keP = proj₁ (proj₂ W)
  keE = proj₂ (proj₂ W)
  E′ = tot (λ k → b2n (es (esOff G ke) k)) (Sp.P c)
  flipE : E ≡ suc E′
  flipE = tot-flip (es G) (es G [ ke ≔ false ]) ke (Sp.P c) keP keE (upd-self (es G) ke false) (λ j _ jk → upd-ne (es G) j ke false jk)
  cnt : suc (E′ + length ys) ≡ Sp.P c
  cnt = trans (cong (λ m → suc (E′ + m)) nU) (trans (cong (_+ U) (sym flipE)) EU)
  d′ = sd 0 E′ 0 ys (Sp.S c) 0 0 0 0 (length ys)
  -- an erasable block holds no valid sector
  es-nz : ∀ k → es G k ≡ true → nz (vc X bl k) ≡ false
  es-nz k e with fr bl k | nz (vc X bl k) | e
  ... | false | false | _ = refl
  ... | false | true  | ()
  ... | true  | _     | ()
  zke : vc X bl ke ≡ 0
  zke = nz-0 _ (es-nz ke keE)
  fke : fr bl ke ≡ false
  fke = nf ke keP
  back : ∀ j → fr (erOpen bl ke) j ≡ fr bl j
  back = upd-back (fr bl) ke fke
  es-fr : ∀ j → fr bl j ≡ true → es G j ≡ false
  es-fr j f rewrite f = refl
  abs1 : Abs c (esOff G ke) X (erOpen bl ke) d′
  abs1 = record
    { vsA = refl ; vaA = sym zke
    ; roomA = trans (cong (Sp.S c +_) (upd-self (wp bl) ke 0)) (+-identityʳ (Sp.S c))
    ; wcA = sym (Recovered.wc0 R)
    ; abU = es-nz ke keE ; abP = keP
    ; frA = sym (trans (tot-ext _ _ (Sp.P c) (λ j _ → cong b2n (back j))) fr0)
    ; abF = upd-self (fr bl [ ke ≔ true ]) ke false
    ; frU = λ j f → nz0 (fr-vc {X} {bl} {j} fw lx (trans (sym (back j)) f))
    ; erA = refl ; invA = sym (tot-0 (Sp.P c)) ; pdA = refl ; gcA = refl
    ; abE = upd-self (es G) ke false ; abV = refl
    ; frE = frE′ ; frV = λ _ _ → refl
    ; usE = usE′ ; usV = λ _ _ → refl ; esV = λ _ _ → refl
    ; cvV = λ _ () }
    where
    frE′ : ∀ j → fr (erOpen bl ke) j ≡ true → (es G [ ke ≔ false ]) j ≡ false
    frE′ j f with j ≟ℕ ke
    ... | yes refl = upd-self (es G) j false
    ... | no ne = trans (off-at (es G) ne) (es-fr j (trans (sym (back j)) f))
    usE′ : ∀ j → us G j ≡ true → (es G [ ke ≔ false ]) j ≡ false
    usE′ j u with j ≟ℕ ke
    ... | yes refl = upd-self (es G) j false
    ... | no ne = trans (off-at (es G) ne) (us-es u)
      where
      us-es : nz (vc X bl j) ≡ true → es G j ≡ false
      us-es e rewrite e with fr bl j
      ... | true  = refl
      ... | false = refl
  placed1 : PlacedU c G X bl
  placed1 j with vc X bl j in e
  ... | zero  = inj₁ refl
  ... | suc m = inj₂ (inj₁ (refl , named-below {c} {X} {bl} {j} R (subst (1 ≤_) (sym e) (s≤s z≤n))))
  abC1 : Classed G (ab bl)
  abC1 with fr bl (ab bl) in ef
  ... | true = ⊥-elim (f≢t (trans (sym (nf (ab bl) (Recovered.abP R))) ef))
  ... | false with nz (vc X bl (ab bl)) in ev
  ...   | true  = inj₁ refl
  ...   | false = inj₂ (inj₂ (belowP-lt c (ab bl) (Recovered.abP R)))
