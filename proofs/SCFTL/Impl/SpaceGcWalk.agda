{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks in the one model: GC of every victim
-- ends.
--
-- SCFTL.Impl.SpaceGcBound showed P's relocation guard holds while the
-- victim has a page to go, and that a dead page's relocation (P's `rlX`,
-- which places nothing) is a step.  A valid page's relocation (P's
-- `rl0`) places the sector again, so the block layer must allocate a
-- page for it (`AllocOK`: the open block or a free one, below its end,
-- its next physical page erased, P's next page on no physical page),
-- and where the only room is a block the layer holds erasable, that
-- block must be erased first.  Here:
--
--   `Above`       : above a started block's write pointer no physical page
--                   holds an incarnation (a block's first placement clears
--                   the rest, `act`; an erase sets the pointer to 0);
--                   `above-step`, `above-start`;
--   `alloc-ok`    : so the open block with room, and every free block, is
--                   an allocation the block layer allows (its next
--                   physical page reads erased);
--   `Target`      : where the layer's policy lets a relocation go: the
--                   open block with room while it is in none of the
--                   ghost's classes, or a free block below P once the open
--                   one is full or may be left (`Leave`: in a class, as
--                   after a recovery, or free); `target-guard`: so the
--                   placement is guarded; `target-of`: a block
--                   `layer-reloc` finds, free or the open one with room,
--                   gives one;
--   **`valid-walk`** : P's relocation of a valid page of the victim that
--                   GC has not been through, into a target, is a step of
--                   the layer (`lrl` into the open block, `lrla` or
--                   `lrlr` into a free one, by whether the open block is
--                   in one of the ghost's classes), in either phase; the
--                   victim's count of queued pages one up;
--   `Owned`       : every block not free holds a placed page
--                   (`owned-step`), and a block the layer holds erasable
--                   is not free (`es-taken`), so it has pages to erase;
--   `queued-unnamed`, `all-queued-vc0` : a page on one of P's queues is
--                   named by no L2P entry (PUSBic's `GcI`, P's RI), so a
--                   victim whose every page is queued holds no valid
--                   sector (`ldone`'s guards both met);
--   `WalkFacts`, `Eraser`, `Walking.walk-ends` : the walk over any set
--                   of states closed under a step relation that takes the
--                   walk's steps of the layer (`lift`), with the facts it
--                   uses (BXone's invariant, the GC invariants, `Above`,
--                   `Owned`, no placement into an erasable block or a
--                   victim, where a valid page may go), and a way to erase
--                   a block the layer holds erasable in the phase the
--                   walk runs in (`Eraser`; PUSBic's, `sync-eraser`: the
--                   SYNC, then the erase) — the runs without a crash here
--                   (`reach-facts`), the runs through power cuts in
--                   SCFTL.Impl.SpaceRecGc (`victim-ends-crash`), the layer
--                   under a policy, in the chain phase too, in
--                   SCFTL.Impl.SpaceChainWalk (thirty-ninth session;
--                   `restrict`: the facts of a subset closed under a finer
--                   step);
--   **`victim-ends`** : in every state the layer reaches from the first
--                   recovery of a new disk in PUSBic's phase, for every
--                   configuration passing the code's constraints with
--                   K · Z ≤ kmax + 1, a victim GC has taken is ended by a
--                   run of the layer: each page not yet queued relocated
--                   (`rlX` if dead; `rl0` into the open block or a free
--                   one, and where Space's progress offers only a block
--                   the layer holds erasable, that block erased first,
--                   after the SYNC that releases its pages: SpaceQueued's
--                   `sync-erase`), then `ldone`.
--
-- Not here: the chain phase's erase in the middle of the walk (PL's
-- `EraseGuard`; the layer may not flush while a victim is in progress,
-- so SCFTL.Impl.SpaceChainErase's flush with a full checkpoint is no way
-- out there), so `victim-ends` stays in PUSBic's phase; the chain phase's
-- eraser, under a policy on lazy commits, is SCFTL.Impl.SpaceChainWalk's.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceGcWalk (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; _∨_)
open import Data.Bool.Properties using (∨-identityʳ)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (zero; suc; _+_; _*_; _<_; _≤_; z≤n; s≤s)
open import Data.Nat.Properties using (≤-refl; ≤-trans; <-irrefl; <⇒≤; m≤n⇒m<n∨m≡n; _≤?_; +-suc; +-monoˡ-≤; +-identityʳ; m≤n+m) renaming (_≟_ to _≟ℕ_)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Nullary using (¬_; Dec; yes; no)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (St; l2p; inv; ers; esF; nxt; rl0; p2l; Valid; cur; erased; _[_≔_])
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI; module RI)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; ues; ⟪_,_⟫; GcI; module GcI)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su; gh; ⟦_,_⟧; ghostN)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; lzS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; Place; BXone; module OPX; EsRunM; one; _∷_)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (LocX; _∈_)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; own; wp; ab; fr; loc; act; hereM; consM; cellOf; phys; berase; balloc; owners; ownersB; Opens; AllocOK; OwnLoc; upd-self; upd-ne)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb using (FreshAbove; fresh-next; fresh-rec)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb using (vc; inBlk)
open import SCFTL.Impl.SpaceUsed using (tot-pos; ≡ᵇ-T)
open import SCFTL.Impl.SpaceLayerStart Data d0 amax wmax kmax umax _≟D_ kc zb using (new-start)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; us; es; vi; cv; Abs; module Abs; FromVictim; nothing≢just; vc-pos; t→¬f)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone; qd; Walk; Classed; Unclassed; Leave; Guard;
         Run; module Run; Fresh; module Fresh; Retired; module Retired; LInv; ri-of; Start; module Start;
         G0; start-inv; layer-inv; layer-reloc)
open import SCFTL.Impl.SpaceQueued Data d0 amax wmax kmax umax _≟D_ kc zb
  using (px-queued; place-other; Apart; Taken; apart-at; taken-run; taken-ret; run-queued; mem-own; sync-erase; layer-queued; einv-star;
         EInv; QInv)
open import SCFTL.Impl.SpaceGcBound Data d0 amax wmax kmax umax _≟D_ kc zb
  using (GB; done; cntQ; cnt-inc; cnt<; inv-qd; qd-inv; gc-budget; gb-star; gb-start; dead-walk; done-keep; pending?)
import SCFTL.Impl.Space as Spc
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

------------------------------------------------------------------------
-- Above a started block's write pointer, nothing

Above : BL → Set
Above bl = ∀ k o → 0 < wp bl k → wp bl k ≤ o → own bl k o ≡ nothing

-- a block's physical page at or above its write pointer holds no
-- incarnation once the block is taken (`act`)
act-above : ∀ bl k o → Above bl → wp bl k ≤ o → act bl k o ≡ nothing
act-above bl k o A le with wp bl k in e
... | zero  = refl
... | suc w = A k o (subst (0 <_) (sym e) (s≤s z≤n)) (subst (_≤ o) (sym e) le)

private
  ≤⇒≢ : ∀ {m n} → suc m ≤ n → n ≢ m
  ≤⇒≢ {m} le refl = <-irrefl refl le

  no< : ∀ {o} → o < 0 → ⊥
  no< ()

above-balloc : ∀ {bl} k n → Above bl → Above (balloc k n bl)
above-balloc {bl} k n A j o pos le with j ≟ℕ k
... | no ne = trans (cong (λ f → f o) (upd-ne (own bl) j k _ ne))
                    (A j o (subst (0 <_) (upd-ne (wp bl) j k _ ne) pos) (subst (_≤ o) (upd-ne (wp bl) j k _ ne) le))
... | yes refl = trans (cong (λ f → f o) (upd-self (own bl) j _))
                       (trans (upd-ne (act bl j) o (wp bl j) (just n) (≤⇒≢ le′)) (act-above bl j o A (<⇒≤ le′)))
  where
  le′ : suc (wp bl j) ≤ o
  le′ = subst (_≤ o) (upd-self (wp bl) j _) le

above-berase : ∀ {bl} k → Above bl → Above (berase k bl)
above-berase {bl} k A j o pos le with j ≟ℕ k
... | yes refl = ⊥-elim (<-irrefl refl (subst (0 <_) (upd-self (wp bl) j 0) pos))
... | no ne = A j o (subst (0 <_) (upd-ne (wp bl) j k 0 ne) pos) (subst (_≤ o) (upd-ne (wp bl) j k 0 ne) le)

-- a property of the block bookkeeping that every allocation and every
-- block erase keeps is kept by every step of the layer
module _ (Q : BL → Set) (qa : ∀ {bl} k n → Q bl → Q (balloc k n bl)) (qe : ∀ {bl} k → Q bl → Q (berase k bl)) where
  private
    place-keeps : ∀ {X X' bl bl'} → Place X X' bl bl' → Q bl → Q bl'
    place-keeps {X} {bl = bl} (inj₁ (_ , k , _ , refl)) q = qa {bl} k (nxt (stX X)) q
    place-keeps (inj₂ (_ , refl)) q = q

  bl-step : ∀ {c G X bl G' X' bl'} → Q bl → LStep c (G , X , bl) (G' , X' , bl') → Q bl'
  bl-step {X = X} {X' = X'} q (lw (_ , pl) _ _ _ _) = place-keeps {X} {X'} pl q
  bl-step {X = X} {X' = X'} q (lwa (_ , pl) _ _ _ _ _ _) = place-keeps {X} {X'} pl q
  bl-step q (lret _ _ _ _) = q
  bl-step {X = X} {X' = X'} q (lwr (_ , pl) _ _ _ _ _) = place-keeps {X} {X'} pl q
  bl-step q (lfl (_ , refl) _ _) = q
  bl-step q (lbar (_ , refl) _ _) = q
  bl-step q (lsy (_ , refl)) = q
  bl-step {bl = bl} q (lera (k , _ , refl) _ _) = qe {bl} k q
  bl-step q (lgcm _ _ _ _ _ _) = q
  bl-step {X = X} {X' = X'} q (lrl _ (_ , pl) _ _ _ _) = place-keeps {X} {X'} pl q
  bl-step {X = X} {X' = X'} q (lrla _ (_ , pl) _ _ _ _ _ _) = place-keeps {X} {X'} pl q
  bl-step {X = X} {X' = X'} q (lrlr _ (_ , pl) _ _ _ _ _) = place-keeps {X} {X'} pl q
  bl-step q (ldone _ _ _) = q

  bl-star : ∀ {c s s'} → Q (proj₂ (proj₂ s)) → Star (LStep c) s s' → Q (proj₂ (proj₂ s'))
  bl-star q ε = q
  bl-star {c} {G , X , bl} q (_◅_ {j = G′ , X′ , bl′} st r) = bl-star (bl-step {c} {G} {X} {bl} {G′} {X′} {bl′} q st) r

above-step : ∀ {c G X bl G' X' bl'} → Above bl → LStep c (G , X , bl) (G' , X' , bl') → Above bl'
above-step {c} {G} {X} {bl} {G'} {X'} {bl'} = bl-step Above (λ {bl} k n → above-balloc {bl} k n) (λ {bl} k → above-berase {bl} k) {c} {G} {X} {bl} {G'} {X'} {bl'}

above-start : ∀ {c X bl} → Start c X bl → Above bl
above-start st k o pos _ = ⊥-elim (<-irrefl refl (subst (0 <_) (Start.allWp st k) pos))

-- the open block with room, or a free block: an allocation the block
-- layer allows
alloc-ok : ∀ {X bl k} → FreshAbove X bl → Above bl → Opens bl k → wp bl k < Z → AllocOK (stX X) bl k
alloc-ok {X} {bl} {k} fa A op lt =
  op , lt , cong (λ m → cur (cellOf (phys (stX X)) m)) (act-above bl k (wp bl k) A ≤-refl) , fresh-next {X} {bl} fa

------------------------------------------------------------------------
-- Where a relocation may go

-- the open block with room while it is in none of the ghost's classes
-- (the layer's `lrl`), or another block below P, free, once the open one
-- is full (`lrla`, or `lrlr` where it is in a class) or may be left
-- (`lrlr`: in a class, or free; after a recovery, SpaceRecWalk)
Target : Spc.Config → Gh → BL → ℕ → Set
Target c G bl kb = Opens bl kb × wp bl kb < Z ×
                   ((kb ≡ ab bl × Unclassed G kb) ⊎ (kb ≢ ab bl × kb < Spc.P c × (wp bl (ab bl) ≡ Z ⊎ Leave G bl)))

-- a placement into a target is guarded (the open block only while in
-- none of the classes)
target-guard : ∀ {c G X bl kb} → Target c G bl kb → Guard X G bl (balloc kb (nxt (stX X)) bl)
target-guard {G = G} (_ , _ , inj₁ (refl , u)) k e refl = subst (Unclassed G) (cong ab e) u
target-guard (_ , _ , inj₂ (ne , _)) k e refl = ⊥-elim (ne (cong ab e))

private
  0<Z : 0 < Z
  0<Z = s≤s z≤n

-- a block for the sector, the open one with room or a free one below P
-- (Space's progress, SpaceLayer's `layer-reloc`), gives a target: from a
-- running state the open block while it has room (in none of the
-- classes: it is Space's open block), else the free block; from a
-- retired state the block Space opened (`kn`), the old open block left
-- (in a class, or free)
target-of : ∀ {c G X bl} → Spc.S c ≡ Z → LInv c (G , X , bl) → (∀ k → wp bl k ≤ Z) →
            wp bl (ab bl) < Spc.S c ⊎ (Σ ℕ λ k → k < Spc.P c × fr bl k ≡ true) → Σ ℕ λ kb → Target c G bl kb
target-of {c} {G} {X} {bl} eS (inj₁ F) wz _ =
  ab bl , inj₁ refl , subst (_< Z) (sym (Fresh.abWp F)) 0<Z , inj₁ (refl , Fresh.noUs F (ab bl) , Fresh.noVi F (ab bl) , Fresh.noEs F (ab bl))
target-of {c} {G} {X} {bl} eS (inj₂ (inj₁ R)) wz (inj₁ room) =
  ab bl , inj₁ refl , subst (wp bl (ab bl) <_) eS room , inj₁ (refl , Abs.abU I , Abs.abV I , Abs.abE I)
  where I = Run.abs R
target-of {c} {G} {X} {bl} eS (inj₂ (inj₁ R)) wz (inj₂ (k , kP , frk)) with m≤n⇒m<n∨m≡n (wz (ab bl))
... | inj₁ room = ab bl , inj₁ refl , room , inj₁ (refl , Abs.abU (Run.abs R) , Abs.abV (Run.abs R) , Abs.abE (Run.abs R))
... | inj₂ full = k , inj₂ frk , subst (_< Z) (sym (Run.frwp R k frk)) 0<Z , inj₂ (ne , kP , inj₁ full)
  where
  ne : k ≢ ab bl
  ne refl = t→¬f frk (Abs.abF (Run.abs R))
target-of {c} {G} {X} {bl} eS (inj₂ (inj₂ Rt)) wz _ =
  kn , inj₂ (Retired.knFr Rt) , subst (_< Z) (sym (Retired.frwp Rt kn (Retired.knFr Rt))) 0<Z , cls (kn ≟ℕ ab bl)
  where
  I = Retired.abs Rt
  kn = Retired.kn Rt
  cls : Dec (kn ≡ ab bl) → (kn ≡ ab bl × Unclassed G kn) ⊎ (kn ≢ ab bl × kn < Spc.P c × (wp bl (ab bl) ≡ Z ⊎ Leave G bl))
  cls (yes e) = inj₁ (e , Abs.abU I , Abs.abV I , Abs.abE I)
  cls (no ne) = inj₂ (ne , Abs.abP I , inj₂ (leave (Retired.abC Rt)))
    where
    leave : fr bl (ab bl) ≡ true ⊎ Classed G (ab bl) → Leave G bl
    leave (inj₁ f) = inj₂ f
    leave (inj₂ cl) = inj₁ cl

------------------------------------------------------------------------
-- The relocation of a valid page is a step

private
  -- P's `rl0` of a valid page of victim k changes only the entry of the
  -- page's sector, which names a page of k
  fv-rl0 : ∀ {s bl k o p} → OwnLoc bl → own bl k o ≡ just p → Valid s p →
           ∀ b → b ≤ amax → l2p (rl0 p s) b ≢ l2p s b → Σ ℕ λ q → l2p s b ≡ just q × proj₁ (loc bl q) ≡ k
  fv-rl0 {s} {bl} {k} {o} {p} ol eo (le , m) b _ ne with b ≟ℕ p2l s p
  ... | yes refl = p , m , cong proj₁ (ol k o p eo)
  ... | no nb = ⊥-elim (ne (upd-ne (l2p s) b (p2l s p) _ nb))

  -- the layer's step for a relocation into a target: `lrl` into the open
  -- block, else `lrla` or `lrlr` by whether the full open block is in
  -- one of the ghost's classes, `lrlr` where it may be left
  step-of : ∀ {c G X X' bl k kb} → cv G ≡ just k →
            SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , balloc kb (nxt (stX X)) bl) →
            FromVictim k X bl X' → Walk k X bl X' → Target c G bl kb →
            Σ Gh λ G' → LStep c (G , X , bl) (G' , X' , balloc kb (nxt (stX X)) bl) × cv G' ≡ cv G
  step-of cvk okr fv wk (_ , _ , inj₁ (refl , u)) = _ , lrl cvk okr refl fv wk (inj₁ u) , refl
  step-of cvk okr fv wk (_ , _ , inj₂ (ne , kP , inj₂ lv)) = _ , lrlr cvk okr ne kP fv wk lv , refl
  step-of {G = G} {bl = bl} cvk okr fv wk (_ , _ , inj₂ (ne , kP , inj₁ full))
    with us G (ab bl) in eu | vi G (ab bl) in ev | es G (ab bl) in ee
  ... | true  | _     | _     = _ , lrlr cvk okr ne kP fv wk (inj₁ (inj₁ eu)) , refl
  ... | false | true  | _     = _ , lrlr cvk okr ne kP fv wk (inj₁ (inj₂ (inj₁ ev))) , refl
  ... | false | false | true  = _ , lrlr cvk okr ne kP fv wk (inj₁ (inj₂ (inj₂ ee))) , refl
  ... | false | false | false = _ , lrla cvk okr ne kP full fv wk (eu , ev , ee) , refl

-- **P's relocation of a valid page of the victim that GC has not been
-- through, into a target, is a step of the layer**, in either phase
-- (P's `rl0` with no optional page), and the victim's count of pages on
-- P's queues rises by one; of the state it asks BXone's invariant, the
-- budget invariant, and that no placement takes an erasable block or a
-- victim (SpaceQueued's `Apart`)
valid-walk : ∀ {c G X bl k o p kb} → Spc.K c * Z ≤ suc kmax → OPX.RI X × OwnLoc bl → Apart G X bl (Taken G) →
             GB c (G , X , bl) → FreshAbove X bl → Above bl → cv G ≡ just k → vi G k ≡ true →
             o < wp bl k → own bl k o ≡ just p →
             qd (stX X) p ≡ false → Valid (stX X) p → Target c G bl kb →
             Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' →
               LStep c (G , X , bl) (G' , X' , bl') × cv G' ≡ cv G × suc (done X bl k) ≤ done X' bl' k ×
               proj₁ X' ≡ proj₁ X
valid-walk {c} {G} {false , S} {bl} {k} {o} {p} {kb} KZ ri tk B fa A cvk vk lt eo qf vp tg =
  proj₁ SO , X′ , balloc kb n bl , proj₁ (proj₂ SO) , proj₂ (proj₂ SO) , inc , refl
  where
  s = st (su S)
  n = nxt s
  u′ = ⟪ rl0 p s , ues (su S) ⟫
  X′ : XS
  X′ = false , ⟦ u′ , ghostN u′ ⟧
  gk = gc-budget {c} {G} {false , S} {bl} KZ B cvk lt eo qf
  aok = alloc-ok {false , S} {bl} {kb} fa A (proj₁ tg) (proj₁ (proj₂ tg))
  okr : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) ((false , S) , bl) (X′ , balloc kb n bl)
  okr = inj₁ (refl , S , refl , ((inj₁ (gk , p , fa k o p eo , inj₁ (vp , false , false , refl)) , refl) , refl)) ,
        inj₁ (refl , kb , aok , refl)
  SO = step-of {c} {G} {false , S} {X′} {bl} {k} {kb} cvk okr (fv-rl0 {s} {bl} {k} {o} {p} (proj₂ ri) eo vp)
         (o , p , lt , eo , qf , upd-self (inv s) p true) tg
  P = place-other {false , S} {X′} {bl} {balloc kb n bl} {k} (proj₂ okr)
        (apart-at {G} {false , S} {bl} {balloc kb n bl} (target-guard {c} {G} {false , S} {bl} {kb} tg) tk k (inj₂ vk))
  inc : suc (done (false , S) bl k) ≤ done X′ (balloc kb n bl) k
  inc = subst (λ m → suc (cntQ s bl k (wp bl k)) ≤ cntQ (rl0 p s) (balloc kb n bl) k m) (sym (proj₁ P))
          (cnt-inc s (rl0 p s) bl (balloc kb n bl) k (wp bl k) o p (λ o′ _ → proj₂ P o′)
                   (λ o′ p′ _ _ x → px-queued (SB.reg (SB.op SB.rl)) {false , S} {X′} (λ ()) (proj₁ okr) p′ x)
                   lt eo qf (inv-qd (rl0 p s) p (upd-self (inv s) p true)))
valid-walk {c} {G} {true , S} {bl} {k} {o} {p} {kb} KZ ri tk B fa A cvk vk lt eo qf vp tg =
  proj₁ SO , X′ , balloc kb n bl , proj₁ (proj₂ SO) , proj₂ (proj₂ SO) , inc , refl
  where
  s = st (su S)
  n = nxt s
  X′ : XS
  X′ = true , lzS (rl0 p s) (gh S)
  gk = gc-budget {c} {G} {true , S} {bl} KZ B cvk lt eo qf
  eu : ues (su S) ≡ []
  eu = proj₁ (proj₁ ri)
  aok = alloc-ok {true , S} {bl} {kb} fa A (proj₁ tg) (proj₁ (proj₂ tg))
  okr : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) ((true , S) , bl) (X′ , balloc kb n bl)
  okr = inj₂ (refl , eu , rl0 p s , refl , inj₁ (gk , p , fa k o p eo , inj₁ (vp , false , false , refl))) ,
        inj₁ (refl , kb , aok , refl)
  SO = step-of {c} {G} {true , S} {X′} {bl} {k} {kb} cvk okr (fv-rl0 {s} {bl} {k} {o} {p} (proj₂ ri) eo vp)
         (o , p , lt , eo , qf , upd-self (inv s) p true) tg
  P = place-other {true , S} {X′} {bl} {balloc kb n bl} {k} (proj₂ okr)
        (apart-at {G} {true , S} {bl} {balloc kb n bl} (target-guard {c} {G} {true , S} {bl} {kb} tg) tk k (inj₂ vk))
  inc : suc (done (true , S) bl k) ≤ done X′ (balloc kb n bl) k
  inc = subst (λ m → suc (cntQ s bl k (wp bl k)) ≤ cntQ (rl0 p s) (balloc kb n bl) k m) (sym (proj₁ P))
          (cnt-inc s (rl0 p s) bl (balloc kb n bl) k (wp bl k) o p (λ o′ _ → proj₂ P o′)
                   (λ o′ p′ _ _ x → px-queued (SB.reg (SB.op SB.rl)) {true , S} {X′} (λ ()) (proj₁ okr) p′ x)
                   lt eo qf (inv-qd (rl0 p s) p (upd-self (inv s) p true)))

------------------------------------------------------------------------
-- A block the layer holds erasable has a page to erase

-- every block not free holds a placed page: a block is taken by its first
-- placement, an erase frees it, and recovery frees a block it leaves with
-- none (`forget`, SCFTL.Impl.SpaceRecWalk); so SpaceQueued's `sync-erase`
-- finds a page to erase in every block the layer holds erasable, which is
-- not free (`es-taken`). (Before the thirty-sixth session: every page below
-- a write pointer held one and every block in a class was full, which a
-- recovery breaks: `forget` leaves holes, and the abandoned open block is
-- in a class and not full.)
Owned : BL → Set
Owned bl = ∀ k → fr bl k ≡ false → owners bl k ≢ []

private
  consM-ne : ∀ (m : Maybe ℕ) xs q → m ≡ just q → consM m xs ≢ []
  consM-ne .(just q) xs q refl ()

  -- a block's pages below a pointer, over equal rows
  ownersB-row : ∀ bl bl' k → (∀ o → own bl' k o ≡ own bl k o) → ∀ n → ownersB bl' k n ≡ ownersB bl k n
  ownersB-row bl bl' k e zero    = refl
  ownersB-row bl bl' k e (suc n) = trans (cong (λ m → consM m (ownersB bl' k n)) (e n)) (cong (consM (own bl k n)) (ownersB-row bl bl' k e n))

owned-balloc : ∀ {bl} k n → Owned bl → Owned (balloc k n bl)
owned-balloc {bl} k n O j nf with j ≟ℕ k
... | yes refl = λ e → consM-ne _ _ n top (subst (λ w → ownersB (balloc j n bl) j w ≡ []) (upd-self (wp bl) j _) e)
  where
  top : own (balloc j n bl) j (wp bl j) ≡ just n
  top = trans (cong (λ f → f (wp bl j)) (upd-self (own bl) j _)) (upd-self (act bl j) (wp bl j) (just n))
... | no ne = λ e → O j (trans (sym (upd-ne (fr bl) j k false ne)) nf)
                      (trans (sym (ownersB-row bl (balloc k n bl) j (λ o → cong (λ f → f o) (upd-ne (own bl) j k _ ne)) (wp bl j)))
                             (subst (λ w → ownersB (balloc k n bl) j w ≡ []) (upd-ne (wp bl) j k _ ne) e))

owned-berase : ∀ {bl} k → Owned bl → Owned (berase k bl)
owned-berase {bl} k O j nf with j ≟ℕ k
... | yes refl = ⊥-elim (t→¬f (upd-self (fr bl) j true) nf)
... | no ne = λ e → O j (trans (sym (upd-ne (fr bl) j k true ne)) nf)
                      (trans (sym (ownersB-row bl (berase k bl) j (λ _ → refl) (wp bl j)))
                             (subst (λ w → ownersB (berase k bl) j w ≡ []) (upd-ne (wp bl) j k 0 ne) e))

owned-step : ∀ {c G X bl G' X' bl'} → Owned bl → LStep c (G , X , bl) (G' , X' , bl') → Owned bl'
owned-step {c} {G} {X} {bl} {G'} {X'} {bl'} = bl-step Owned (λ {bl} k n → owned-balloc {bl} k n) (λ {bl} k → owned-berase {bl} k) {c} {G} {X} {bl} {G'} {X'} {bl'}

owned-start : ∀ {c X bl} → Start c X bl → Owned bl
owned-start st k nf = ⊥-elim (t→¬f (Start.allFr st k) nf)

-- a block the layer holds erasable is not free
es-taken : ∀ {c G X bl k} → LInv c (G , X , bl) → es G k ≡ true → fr bl k ≡ false
es-taken {k = k} (inj₁ F) e = ⊥-elim (t→¬f e (Fresh.noEs F k))
es-taken {bl = bl} {k} (inj₂ (inj₁ R)) e with fr bl k in ef
... | true  = ⊥-elim (t→¬f e (Abs.frE (Run.abs R) k ef))
... | false = refl
es-taken {G = G} {bl = bl} {k} (inj₂ (inj₂ Rt)) e with fr bl k in ef | k ≟ℕ Retired.kn Rt
... | false | _ = refl
... | true | yes refl = ⊥-elim (t→¬f e (Abs.abE (Retired.abs Rt)))
... | true | no ne = ⊥-elim (t→¬f e (Abs.frE (Retired.abs Rt) k (trans (upd-ne (fr bl) k (Retired.kn Rt) false ne) ef)))

-- the facts the walk takes of a state of the layer's invariant
esv-of : ∀ {c G X bl k} → LInv c (G , X , bl) → es G k ≡ true → vi G k ≡ false
esv-of {k = k} (inj₁ F) e = ⊥-elim (t→¬f e (Fresh.noEs F k))
esv-of {k = k} (inj₂ (inj₁ R)) e = Abs.esV (Run.abs R) k e
esv-of {k = k} (inj₂ (inj₂ Rt)) e = Abs.esV (Retired.abs Rt) k e

cvv-of : ∀ {c G X bl k} → LInv c (G , X , bl) → cv G ≡ just k → vi G k ≡ true
cvv-of (inj₁ F) cvk = ⊥-elim (nothing≢just (trans (sym (Fresh.noCv F)) cvk))
cvv-of {k = k} (inj₂ (inj₁ R)) cvk = Abs.cvV (Run.abs R) k cvk
cvv-of {k = k} (inj₂ (inj₂ Rt)) cvk = Abs.cvV (Retired.abs Rt) k cvk

apart-of : ∀ {c G X bl} → LInv c (G , X , bl) → Apart G X bl (Taken G)
apart-of (inj₁ F) j (inj₁ e) = ⊥-elim (t→¬f e (Fresh.noEs F j))
apart-of (inj₁ F) j (inj₂ v) = ⊥-elim (t→¬f v (Fresh.noVi F j))
apart-of (inj₂ (inj₁ R)) = taken-run R
apart-of (inj₂ (inj₂ Rt)) = taken-ret Rt

locx-of : ∀ {c G X bl} → LInv c (G , X , bl) → LocX X bl
locx-of (inj₁ F) = Fresh.locx F
locx-of (inj₂ (inj₁ R)) = Run.locx R
locx-of (inj₂ (inj₂ Rt)) = Retired.locx Rt

------------------------------------------------------------------------
-- A victim whose every page is queued holds no valid sector

private
  hereM-just : ∀ m p → hereM m p ≡ true → m ≡ just p
  hereM-just nothing  p ()
  hereM-just (just q) p h = cong just (≡ᵇ-T h)


-- a page on one of P's queues is named by no L2P entry (PUSBic's `GcI`
-- in its phase, P's RI in the chain phase)
queued-unnamed : ∀ {X} → OPX.RI X → ∀ p → qd (stX X) p ≡ true → ∀ a → a ≤ amax → l2p (stX X) a ≢ just p
queued-unnamed {false , S} (t , ar , _) p q with inv (st (su S)) p in ei
... | true  = proj₂ (GcI.invI (proj₁ (proj₁ (proj₂ (proj₁ (ivX {S} {t} ar))))) p ei)
... | false = proj₂ (GcI.ersI (proj₁ (proj₁ (proj₂ (proj₁ (ivX {S} {t} ar))))) p q)
queued-unnamed {true , S} (_ , inj₁ r) p q with inv (st (su S)) p in ei
... | true  = proj₂ (RI.iOK r p ei)
... | false = proj₁ (proj₂ (RI.eOK r p q))
queued-unnamed {true , S} (_ , inj₂ (_ , r , _)) p q with inv (st (su S)) p in ei
... | true  = proj₂ (RI.iOK r p ei)
... | false = proj₁ (proj₂ (RI.eOK r p q))

all-queued-vc0 : ∀ {X bl k} → OPX.RI X → LocX X bl →
                 (∀ o p → o < wp bl k → own bl k o ≡ just p → qd (stX X) p ≡ true) → vc X bl k ≡ 0
all-queued-vc0 {X} {bl} {k} r lx all with vc X bl k in e
... | zero  = refl
... | suc n with tot-pos (λ a → inBlk (loc bl) k (l2p (stX X) a)) (suc amax) (subst (1 ≤_) (sym e) (s≤s z≤n))
...   | a , s≤s le , ib with l2p (stX X) a in em
...     | just q = ⊥-elim (queued-unnamed {X} r q (all (proj₂ (loc bl q)) q lt own-q) a le em)
  where
  ek : proj₁ (loc bl q) ≡ k
  ek = ≡ᵇ-T ib
  h = lx a q le em
  own-q : own bl k (proj₂ (loc bl q)) ≡ just q
  own-q = subst (λ j → own bl j (proj₂ (loc bl q)) ≡ just q) ek (hereM-just _ q (proj₁ h))
  lt : proj₂ (loc bl q) < wp bl k
  lt = subst (λ j → proj₂ (loc bl q) < wp bl j) ek (proj₂ h)

------------------------------------------------------------------------
-- The whole walk

unq-esF : ∀ q s p → qd s p ≡ false → qd (esF q s) p ≡ false
unq-esF q s p f with p ≟ℕ q
... | yes refl = subst (λ b → (inv s p ∨ b) ≡ false) (sym (upd-self (ers s) p false)) (trans (∨-identityʳ (inv s p)) (qd-inv s p f))
... | no ne = subst (λ b → (inv s p ∨ b) ≡ false) (sym (upd-ne (ers s) p q false ne)) f

-- a block erase puts no page on a queue
run-unqueued : ∀ {X ps X' p} → EsRunM X ps X' → qd (stX X) p ≡ false → qd (stX X') p ≡ false
run-unqueued {X} {p = p} (one {p = q} (_ , e)) f = subst (λ s′ → qd s′ p ≡ false) (sym e) (unq-esF q (stX X) p f)
run-unqueued {X} {p = p} (_∷_ {p = q} (_ , e) rn) f =
  run-unqueued rn (subst (λ s′ → qd s′ p ≡ false) (sym e) (unq-esF q (stX X) p f))

private
  valid? : ∀ s p → Valid s p ⊎ ¬ Valid s p
  valid? s p with p2l s p ≤? amax
  ... | no nle = inj₂ (λ v → nle (proj₁ v))
  ... | yes le = go (l2p s (p2l s p)) refl
    where
    just-inj′ : ∀ {a b : ℕ} → just a ≡ just b → a ≡ b
    just-inj′ refl = refl
    go : ∀ m → l2p s (p2l s p) ≡ m → Valid s p ⊎ ¬ Valid s p
    go nothing e = inj₂ (λ v → nothing≢just (trans (sym e) (proj₂ v)))
    go (just q) e with q ≟ℕ p
    ... | yes refl = inj₁ (le , e)
    ... | no ne = inj₂ (λ v → ne (just-inj′ (trans (sym e) (proj₂ v))))


-- what the walk asks of the states it runs through: a set `R` of states
-- closed under a step relation `Step` that takes every step of the
-- layer the walk takes (a relocation, an erase, the SYNC before it,
-- `ldone`: while a victim is in progress and in the phase of the state
-- it leaves; `LStep` itself, or thirty-ninth session a layer with a
-- policy on top, SCFTL.Impl.SpaceChainWalk), and of each state of `R`
-- BXone's invariant, the placed pages located, the GC invariants
-- (SpaceGcBound's `GB`, SpaceQueued's `EInv` and `QInv`), nothing above
-- a write pointer, a page in every block the layer holds erasable, an
-- erasable block no victim and the current victim one, no placement into
-- an erasable block or a victim, and where a valid page of the victim
-- may go: a target, or an erasable block below P to erase first (after
-- which the erased block is a target). Here: the runs without a crash
-- (`victim-ends` below); SCFTL.Impl.SpaceRecGc: the runs through power
-- cuts.
record WalkFacts (c : Spc.Config) (Step : LS → LS → Set) (R : LS → Set) : Set where
  field
    next   : ∀ {s s'} → R s → Step s s' → R s'
    lift   : ∀ {G X bl G' X' bl' k} → R (G , X , bl) → cv G ≡ just k → proj₁ X' ≡ proj₁ X →
             LStep c (G , X , bl) (G' , X' , bl') → Step (G , X , bl) (G' , X' , bl')
    riR    : ∀ {G X bl} → R (G , X , bl) → OPX.RI X × OwnLoc bl
    locxR  : ∀ {G X bl} → R (G , X , bl) → LocX X bl
    gbR    : ∀ {G X bl} → R (G , X , bl) → GB c (G , X , bl)
    einvR  : ∀ {G X bl} → R (G , X , bl) → EInv (G , X , bl)
    qinvR  : ∀ {G X bl} → R (G , X , bl) → QInv (G , X , bl)
    aboveR : ∀ {G X bl} → R (G , X , bl) → Above bl
    ownedR : ∀ {G X bl k} → R (G , X , bl) → es G k ≡ true → owners bl k ≢ []
    esvR   : ∀ {G X bl k} → R (G , X , bl) → es G k ≡ true → vi G k ≡ false
    cvvR   : ∀ {G X bl k} → R (G , X , bl) → cv G ≡ just k → vi G k ≡ true
    apartR : ∀ {G X bl} → R (G , X , bl) → Apart G X bl (Taken G)
    whereR : ∀ {G X bl k} → R (G , X , bl) → cv G ≡ just k → 1 ≤ vc X bl k →
             (Σ ℕ λ kb → Target c G bl kb) ⊎ (Σ ℕ λ k′ → k′ < Spc.P c × es G k′ ≡ true)
    freeR  : ∀ {G X bl k} → R (G , X , bl) → k < Spc.P c → fr bl k ≡ true → Σ ℕ λ kb → Target c G bl kb

-- how the walk erases a block the layer holds erasable, from a state of
-- `R` in phase `b` while a victim is in progress: a run of `Step` that
-- ends with the block erased (the ghost's class dropped), in the same
-- phase, every queued page not the block's still queued and no page
-- queued anew (PUSBic's: `sync-eraser` below; the chain phase's:
-- SCFTL.Impl.SpaceChainWalk)
Eraser : Spc.Config → (LS → LS → Set) → (LS → Set) → Bool → Set
Eraser c Step R b =
  ∀ {G X bl k k′} → R (G , X , bl) → proj₁ X ≡ b → cv G ≡ just k → es G k′ ≡ true → k′ < Spc.P c →
  Σ XS λ X″ → Star Step (G , X , bl) (record G { es = es G [ k′ ≔ false ] } , X″ , berase k′ bl) × proj₁ X″ ≡ b ×
    (∀ p → ¬ (p ∈ owners bl k′) → qd (stX X) p ≡ true → qd (stX X″) p ≡ true) ×
    (∀ p → qd (stX X) p ≡ false → qd (stX X″) p ≡ false)

-- PUSBic's: the SYNC that releases the block's pages (SpaceQueued's
-- `sync-erase`), then the block erase
sync-eraser : ∀ {c Step R} → WalkFacts c Step R → Eraser c Step R false
sync-eraser {c} {Step} {R} W {G} {false , S} {bl} {k} {k′} r refl cvk esk′ k′P
  with sync-erase {c} {G} {S} {bl} {k′} (proj₂ (riR r)) (qinvR r) (einvR r) esk′ (ownedR r esk′)
  where open WalkFacts W
... | X′ , st1 , ph1 , unq , qx , X″ , rn , ph2 =
  X″ , s1 ◅ lift (next r s1) cvk (trans ph2 (sym ph1)) (lera (k′ , rn , refl) esk′ k′P) ◅ ε , ph2 ,
  (λ p ni x → run-queued rn p ni (qx p x)) , (λ p f → run-unqueued rn (unq p f))
  where
  open WalkFacts W
  s1 : Step (G , (false , S) , bl) (G , X′ , bl)
  s1 = lift r cvk ph1 st1

module Walking {c : Spc.Config} {Step : LS → LS → Set} {R : LS → Set} (W : WalkFacts c Step R)
               {b : Bool} (E : Eraser c Step R b) (KZ : Spc.K c * Z ≤ suc kmax) where
  open WalkFacts W

  private
    -- one page of the victim through P's relocation (`rlX` or `rl0`),
    -- into a block with room the caller names for a valid page
    page-step : ∀ {G X bl k o p} → R (G , X , bl) → cv G ≡ just k → o < wp bl k → own bl k o ≡ just p →
                qd (stX X) p ≡ false → (Valid (stX X) p → Σ ℕ λ kb → Target c G bl kb) →
                Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' →
                  LStep c (G , X , bl) (G' , X' , bl') × cv G' ≡ cv G × suc (done X bl k) ≤ done X' bl' k × proj₁ X' ≡ proj₁ X
    page-step {G} {X} {bl} {k} {o} {p} r cvk lt eo qf tgt with valid? (stX X) p
    ... | inj₁ vp = valid-walk {c} {G} {X} {bl} {k} {o} {p} {proj₁ (tgt vp)} KZ (riR r) (apartR r) (gbR r) (proj₁ (einvR r)) (aboveR r)
                      cvk (cvvR r cvk) lt eo qf vp (proj₂ (tgt vp))
    ... | inj₂ nv with dead-walk {c} {G} {X} {bl} {k} {o} {p} KZ (proj₁ (riR r)) (gbR r) (proj₁ (einvR r)) cvk lt eo qf nv
    ...   | X′ , _ , st′ , _ , inc , ph = G , X′ , bl , st′ , refl , inc , ph

    Res : Gh → XS → BL → Set
    Res G X bl = Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' → Star Step (G , X , bl) (G' , X' , bl') × cv G' ≡ nothing

    Step1 : Gh → XS → BL → ℕ → Set
    Step1 G X bl k = Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' →
                       LStep c (G , X , bl) (G' , X' , bl') × cv G' ≡ cv G × suc (done X bl k) ≤ done X' bl' k × proj₁ X' ≡ proj₁ X

    nexts : ∀ {s s'} → R s → Star Step s s' → R s'
    nexts r ε = r
    nexts r (st ◅ rn) = nexts (next r st) rn

  mutual
    -- by the pages of the victim still to go (`Z ≤ done + m`)
    ends : ∀ m {G X bl k} → R (G , X , bl) → proj₁ X ≡ b → cv G ≡ just k → Z ≤ done X bl k + m → Res G X bl
    ends m {G} {X} {bl} {k} r ph cvk fuel with pending? (stX X) bl k (wp bl k)
    ... | inj₂ all =
      _ , _ , _ , lift r cvk refl (ldone cvk (all-queued-vc0 {X} {bl} {k} (proj₁ (riR r)) (locxR r) all) all) ◅ ε , refl
    ... | inj₁ (o , p , lt , eo , qf) with m
    ...   | zero = ⊥-elim (<-irrefl refl (≤-trans (cnt< (stX X) bl k (wp bl k) o p lt eo qf)
                                            (≤-trans (proj₁ (proj₂ (gbR r)) k) (subst (Z ≤_) (+-identityʳ (done X bl k)) fuel))))
    ...   | suc m′ with valid? (stX X) p
    ...     | inj₂ nv = cont m′ r ph cvk fuel (page-step r cvk lt eo qf (λ vp → ⊥-elim (nv vp)))
    ...     | inj₁ vp with whereR r cvk
                          (subst (λ j → 1 ≤ vc X bl j) (cong proj₁ (proj₂ (riR r) k o p eo))
                                 (vc-pos X bl _ p (proj₁ vp) (proj₂ vp)))
    ...       | inj₁ tg = cont m′ r ph cvk fuel (page-step r cvk lt eo qf (λ _ → tg))
    ...       | inj₂ (k′ , k′P , esk′) with E r ph cvk esk′ k′P
    ...         | X″ , run , ph2 , qk , uk =
      proj₁ R′ , proj₁ (proj₂ R′) , proj₁ (proj₂ (proj₂ R′)) , run ◅◅ proj₁ (proj₂ (proj₂ (proj₂ R′))) , proj₂ (proj₂ (proj₂ (proj₂ R′)))
      where
        G2 = record G { es = es G [ k′ ≔ false ] }
        bl2 = berase k′ bl
        r2 = nexts r run
        ne : k ≢ k′
        ne = λ e → t→¬f (cvvR r cvk) (subst (λ j → vi G j ≡ false) (sym e) (esvR r esk′))
        off : ∀ o′ p′ → own bl k o′ ≡ just p′ → ¬ (p′ ∈ owners bl k′)
        off o′ p′ e i with mem-own bl k′ (wp bl k′) p′ i
        ... | o″ , _ , e′ = ne (cong proj₁ (trans (sym (proj₂ (riR r) k o′ p′ e)) (proj₂ (riR r) k′ o″ p′ e′)))
        mono : done X bl k ≤ done X″ bl2 k
        mono = done-keep {X} {X″} {bl} {bl2} {k} (upd-ne (wp bl) k k′ 0 ne) (λ _ → refl)
                 (λ o′ p′ _ e x → qk p′ (off o′ p′ e) x)
        fr2 : fr bl2 k′ ≡ true
        fr2 = upd-self (fr bl) k′ true
        R′ = cont m′ {G2} {X″} {bl2} {k} r2 ph2 cvk (≤-trans fuel (+-monoˡ-≤ (suc m′) mono))
               (page-step r2 cvk (subst (o <_) (sym (upd-ne (wp bl) k k′ 0 ne)) lt) eo (uk p qf)
                  (λ _ → freeR r2 k′P fr2))

    cont : ∀ m′ {G X bl k} → R (G , X , bl) → proj₁ X ≡ b → cv G ≡ just k → Z ≤ done X bl k + suc m′ →
           Step1 G X bl k → Res G X bl
    cont m′ {G} {X} {bl} {k} r ph cvk fuel (G′ , X′ , bl′ , st′ , ec , inc , ph′) with
      ends m′ {G′} {X′} {bl′} {k} (next r (lift r cvk ph′ st′)) (trans ph′ ph) (trans ec cvk)
           (≤-trans fuel (subst (_≤ done X′ bl′ k + m′) (sym (+-suc (done X bl k) m′)) (+-monoˡ-≤ m′ inc)))
    ... | G″ , X″ , bl″ , run′ , nocv = G″ , X″ , bl″ , lift r cvk ph′ st′ ◅ run′ , nocv

  -- **GC of a victim ends** from every state of `R` in phase `b`
  walk-ends : ∀ {G X bl k} → R (G , X , bl) → proj₁ X ≡ b → cv G ≡ just k →
              Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' → Star Step (G , X , bl) (G' , X' , bl') × cv G' ≡ nothing
  walk-ends {G} {X} {bl} {k} r ph cvk = ends Z r ph cvk (m≤n+m Z (done X bl k))

-- the same facts of a set of states inside `R` closed under a finer step
-- relation that takes the walk's steps
restrict : ∀ {c Step R} {Step' : LS → LS → Set} {R' : LS → Set} → WalkFacts c Step R → (∀ {s} → R' s → R s) →
           (∀ {s s'} → R' s → Step' s s' → R' s') →
           (∀ {G X bl G' X' bl' k} → R' (G , X , bl) → cv G ≡ just k → proj₁ X' ≡ proj₁ X →
              LStep c (G , X , bl) (G' , X' , bl') → Step' (G , X , bl) (G' , X' , bl')) →
           WalkFacts c Step' R'
restrict W emb nx lf = record
  { next   = nx
  ; lift   = lf
  ; riR    = λ r → riR (emb r)
  ; locxR  = λ r → locxR (emb r)
  ; gbR    = λ r → gbR (emb r)
  ; einvR  = λ r → einvR (emb r)
  ; qinvR  = λ r → qinvR (emb r)
  ; aboveR = λ r → aboveR (emb r)
  ; ownedR = λ r esk → ownedR (emb r) esk
  ; esvR   = λ r esk → esvR (emb r) esk
  ; cvvR   = λ r cvk → cvvR (emb r) cvk
  ; apartR = λ r → apartR (emb r)
  ; whereR = λ r cvk p1 → whereR (emb r) cvk p1
  ; freeR  = λ r kP frk → freeR (emb r) kP frk }
  where open WalkFacts W

module _ {c : Spc.Config} (V : Spc.Valid c) (eL : Spc.L c ≡ suc amax) (eW : Spc.W c ≡ suc wmax) (eS : Spc.S c ≡ Z)
         (KZ : Spc.K c * Z ≤ suc kmax) {X0 bl0 X1 bl1} (new : SB.Model.New BXone (X0 , bl0))
         (rec : SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1)) (abP : ab bl0 < Spc.P c) where

  private
    st0 : Start c X1 bl1
    st0 = new-start {c} new rec abP

    -- what a state the layer reaches has
    Reach : LS → Set
    Reach s = Star (LStep c) (G0 , X1 , bl1) s

    inv-at : ∀ {G X bl} → Reach (G , X , bl) → LInv c (G , X , bl)
    inv-at r = layer-inv eL eW eS st0 r

    gb-at : ∀ {G X bl} → Reach (G , X , bl) → GB c (G , X , bl)
    gb-at r = gb-star eL eW eS (start-inv st0) (gb-start st0) r

    owned-at : ∀ {G X bl} → Reach (G , X , bl) → Owned bl
    owned-at r = bl-star Owned (λ {bl} k n → owned-balloc {bl} k n) (λ {bl} k → owned-berase {bl} k) (owned-start st0) r

    facts : WalkFacts c (LStep c) Reach
    facts = record
      { next   = λ r st → r ◅◅ (st ◅ ε)
      ; lift   = λ _ _ _ st → st
      ; riR    = λ r → ri-of (inv-at r)
      ; locxR  = λ r → locx-of (inv-at r)
      ; gbR    = gb-at
      ; einvR  = einv-star eL eW eS (start-inv st0) (fresh-rec {X0} {X1} {bl0} {bl1} rec , λ j e → ⊥-elim (t→¬f e refl))
      ; qinvR  = layer-queued eL eW eS st0
      ; aboveR = bl-star Above (λ {bl} k n → above-balloc {bl} k n) (λ {bl} k → above-berase {bl} k) (above-start st0)
      ; ownedR = λ {G} {X} {bl} {k} r esk → owned-at r k (es-taken (inv-at r) esk)
      ; esvR   = λ r → esv-of (inv-at r)
      ; cvvR   = λ r → cvv-of (inv-at r)
      ; apartR = λ r → apart-of (inv-at r)
      ; whereR = where′
      ; freeR  = λ r kP frk → target-of eS (inv-at r) (proj₁ (proj₂ (gb-at r))) (inj₂ (_ , kP , frk)) }
      where
      where′ : ∀ {G X bl k} → Reach (G , X , bl) → cv G ≡ just k → 1 ≤ vc X bl k →
               (Σ ℕ λ kb → Target c G bl kb) ⊎ (Σ ℕ λ k′ → k′ < Spc.P c × es G k′ ≡ true)
      where′ r cvk p1 with layer-reloc V (inv-at r) cvk p1
      ... | inj₁ room = inj₁ (target-of eS (inv-at r) (proj₁ (proj₂ (gb-at r))) (inj₁ room))
      ... | inj₂ (k′ , k′P , inj₁ frk) = inj₁ (target-of eS (inv-at r) (proj₁ (proj₂ (gb-at r))) (inj₂ (k′ , k′P , frk)))
      ... | inj₂ (k′ , k′P , inj₂ esk′) = inj₂ (k′ , k′P , esk′)

  -- the walk's facts of every state the layer reaches from the first
  -- recovery of a new disk (SCFTL.Impl.SpaceChainWalk restricts them to a
  -- layer with a policy)
  reach-facts : WalkFacts c (LStep c) (λ s → Star (LStep c) (G0 , X1 , bl1) s)
  reach-facts = facts

  -- **GC of every victim ends**: in every state the layer reaches from
  -- the first recovery of a new disk in PUSBic's phase, while GC moves a
  -- victim, a run of the layer relocates each of its pages not yet on
  -- P's queues (P's `rlX` for a dead one; `rl0` for a valid one, into the
  -- open block or a free one, a block the layer holds erasable erased
  -- first after the SYNC that releases its pages) and ends the victim
  victim-ends : ∀ {G X bl k} → Star (LStep c) (G0 , X1 , bl1) (G , X , bl) → proj₁ X ≡ false → cv G ≡ just k →
                Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' → Star (LStep c) (G , X , bl) (G' , X' , bl') × cv G' ≡ nothing
  victim-ends = Walking.walk-ends facts (sync-eraser facts) KZ
