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
--                   open block with room, or a free block below P once the
--                   open one is full; `target-of`: a block `layer-reloc`
--                   finds, free or the open one with room, gives one;
--   **`valid-walk`** : P's relocation of a valid page of the victim that
--                   GC has not been through, into a target, is a step of
--                   the layer (`lrl` into the open block, `lrla` or
--                   `lrlr` into a free one, by whether the full open block
--                   is in one of the ghost's classes), in either phase;
--                   the victim's count of queued pages one up;
--   `Dense`, `FullC`, `owners-ne` : every page below a write pointer holds
--                   an incarnation, and every block in one of the ghost's
--                   classes is full, so a block the layer holds erasable
--                   has pages to erase (`dense-step`, `fullc-step`);
--   `queued-unnamed`, `all-queued-vc0` : a page on one of P's queues is
--                   named by no L2P entry (PUSBic's `GcI`, P's RI), so a
--                   victim whose every page is queued holds no valid
--                   sector (`ldone`'s guards both met);
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
-- Not here: the chain phase's erase (PL's `EraseGuard`, "Not done",
-- item 1), so the run stays in PUSBic's phase; the layer across a crash.
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
open import Data.Nat.Properties using (≤-refl; ≤-trans; <-irrefl; <⇒≤; ≤-pred; ≤∧≢⇒<; m≤n⇒m<n∨m≡n; _≤?_; +-suc; +-monoˡ-≤; +-identityʳ; m≤n+m) renaming (_≟_ to _≟ℕ_)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Nullary using (¬_; yes; no)

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
  using (BL; Z; own; wp; ab; fr; loc; act; actB-below; hereM; consM; cellOf; phys; berase; balloc; owners; ownersB; Opens; AllocOK; OwnLoc; upd-self; upd-ne)
open import SCFTL.Impl.OneModelBlocksNamed Data d0 amax wmax kmax umax _≟D_ kc zb using (FreshAbove; fresh-next; fresh-rec)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb using (vc; inBlk)
open import SCFTL.Impl.SpaceUsed using (tot-pos; ≡ᵇ-T)
open import SCFTL.Impl.SpaceLayerStart Data d0 amax wmax kmax umax _≟D_ kc zb using (new-start)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; us; es; vi; cv; gn; Abs; module Abs; FrWp; FromVictim; nothing≢just; vc-pos; t→¬f)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LS; LStep; lw; lwa; lret; lwr; lfl; lbar; lsy; lera; lgcm; lrl; lrla; lrlr; ldone; qd; Walk; Classed; Unclassed;
         Run; module Run; Fresh; module Fresh; Retired; module Retired; LInv; ri-of; Start; module Start;
         G0; step-inv; start-inv; layer-inv; layer-reloc)
open import SCFTL.Impl.SpaceQueued Data d0 amax wmax kmax umax _≟D_ kc zb
  using (QX; px-queued; place-other; taken-run; taken-ret; run-queued; mem-own; sync-erase; layer-queued; einv-star; EInv)
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

-- the open block with room, or a free block below P once the open one is
-- full (the layer's `lrl`, and `lrla`/`lrlr`)
Target : Spc.Config → BL → ℕ → Set
Target c bl kb = Opens bl kb × wp bl kb < Z × (kb ≡ ab bl ⊎ (kb < Spc.P c × wp bl (ab bl) ≡ Z))

private
  frwp-of : ∀ {c G X bl} → LInv c (G , X , bl) → FrWp bl
  frwp-of (inj₁ F) = Fresh.frwp F
  frwp-of (inj₂ (inj₁ R)) = Run.frwp R
  frwp-of (inj₂ (inj₂ Rt)) = Retired.frwp Rt

  0<Z : 0 < Z
  0<Z = s≤s z≤n

-- a block for the sector that is the open one with room or free below P
-- gives a target
target-of : ∀ {c G X bl} → Spc.S c ≡ Z → LInv c (G , X , bl) → (∀ k → wp bl k ≤ Z) →
            wp bl (ab bl) < Spc.S c ⊎ (Σ ℕ λ k → k < Spc.P c × fr bl k ≡ true) → Σ ℕ λ kb → Target c bl kb
target-of {c} {G} {X} {bl} eS L wz (inj₁ room) = ab bl , inj₁ refl , subst (wp bl (ab bl) <_) eS room , inj₁ refl
target-of {c} {G} {X} {bl} eS L wz (inj₂ (k , kP , frk)) with k ≟ℕ ab bl
... | yes refl = k , inj₁ refl , subst (_< Z) (sym (frwp-of L k frk)) 0<Z , inj₁ refl
... | no ne with m≤n⇒m<n∨m≡n (wz (ab bl))
...   | inj₁ room = ab bl , inj₁ refl , room , inj₁ refl
...   | inj₂ full = k , inj₂ frk , subst (_< Z) (sym (frwp-of L k frk)) 0<Z , inj₂ (kP , full)

------------------------------------------------------------------------
-- The relocation of a valid page is a step

-- a block in one of the ghost's classes is full (in a run without a
-- crash: a recovery's open block, abandoned, may be in one and not full)
FullC : Gh → BL → Set
FullC G bl = ∀ k → Classed G k → wp bl k ≡ Z

private
  -- a placement takes a block below its end, so never a full one
  full-apart : ∀ {X bl bl' j} → wp bl j ≡ Z → ∀ kb → AllocOK (stX X) bl kb → bl' ≡ balloc kb (nxt (stX X)) bl → kb ≢ j
  full-apart {bl = bl} f kb (_ , lt , _) _ refl = <-irrefl f lt

  -- the victim is no allocation target: a victim is full
  victim-apart : ∀ {c G X bl bl' k} → LInv c (G , X , bl) → FullC G bl → cv G ≡ just k →
                 ∀ kk → AllocOK (stX X) bl kk → bl' ≡ balloc kk (nxt (stX X)) bl → kk ≢ k
  victim-apart (inj₁ F) _ cvk = ⊥-elim (nothing≢just (trans (sym (Fresh.noCv F)) cvk))
  victim-apart {X = X} {bl} {bl'} {k} (inj₂ (inj₁ R)) F cvk = full-apart {X} {bl} {bl'} {k} (F k (inj₂ (inj₁ (Abs.cvV (Run.abs R) k cvk))))
  victim-apart {X = X} {bl} {bl'} {k} (inj₂ (inj₂ Rt)) F cvk = full-apart {X} {bl} {bl'} {k} (F k (inj₂ (inj₁ (Abs.cvV (Retired.abs Rt) k cvk))))

  -- an open block with room is in none of the classes
  unc-of : ∀ {G bl} → FullC G bl → wp bl (ab bl) < Z → Unclassed G (ab bl)
  unc-of {G} {bl} F lt with us G (ab bl) in eu | vi G (ab bl) in ev | es G (ab bl) in ee
  ... | true  | _     | _     = ⊥-elim (<-irrefl (F (ab bl) (inj₁ eu)) lt)
  ... | false | true  | _     = ⊥-elim (<-irrefl (F (ab bl) (inj₂ (inj₁ ev))) lt)
  ... | false | false | true  = ⊥-elim (<-irrefl (F (ab bl) (inj₂ (inj₂ ee))) lt)
  ... | false | false | false = refl , refl , refl

  -- P's `rl0` of a valid page of victim k changes only the entry of the
  -- page's sector, which names a page of k
  fv-rl0 : ∀ {s bl k o p} → OwnLoc bl → own bl k o ≡ just p → Valid s p →
           ∀ b → b ≤ amax → l2p (rl0 p s) b ≢ l2p s b → Σ ℕ λ q → l2p s b ≡ just q × proj₁ (loc bl q) ≡ k
  fv-rl0 {s} {bl} {k} {o} {p} ol eo (le , m) b _ ne with b ≟ℕ p2l s p
  ... | yes refl = p , m , cong proj₁ (ol k o p eo)
  ... | no nb = ⊥-elim (ne (upd-ne (l2p s) b (p2l s p) _ nb))

  -- the layer's step for a relocation into a target: `lrl` into the open
  -- block, else `lrla` or `lrlr` by whether the full open block is in
  -- one of the ghost's classes
  step-of : ∀ {c G X X' bl k kb} → FullC G bl → cv G ≡ just k →
            SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , balloc kb (nxt (stX X)) bl) →
            FromVictim k X bl X' → Walk k X bl X' → Target c bl kb →
            Σ Gh λ G' → LStep c (G , X , bl) (G' , X' , balloc kb (nxt (stX X)) bl) × cv G' ≡ cv G
  step-of {G = G} {bl = bl} F cvk okr fv wk (_ , lt , inj₁ refl) = _ , lrl cvk okr refl fv wk (inj₁ (unc-of {G} {bl} F lt)) , refl
  step-of {c} {G} {X} {X'} {bl} {k} {kb} F cvk okr fv wk (_ , lt , inj₂ (kP , full)) with kb ≟ℕ ab bl
  ... | yes refl = _ , lrl cvk okr refl fv wk (inj₁ (unc-of {G} {bl} F lt)) , refl
  ... | no ne with us G (ab bl) in eu | vi G (ab bl) in ev | es G (ab bl) in ee
  ...   | true  | _     | _     = _ , lrlr cvk okr ne kP fv wk (inj₁ (inj₁ eu)) , refl
  ...   | false | true  | _     = _ , lrlr cvk okr ne kP fv wk (inj₁ (inj₂ (inj₁ ev))) , refl
  ...   | false | false | true  = _ , lrlr cvk okr ne kP fv wk (inj₁ (inj₂ (inj₂ ee))) , refl
  ...   | false | false | false = _ , lrla cvk okr ne kP full fv wk (eu , ev , ee) , refl

-- **P's relocation of a valid page of the victim that GC has not been
-- through, into a target, is a step of the layer**, in either phase
-- (P's `rl0` with no optional page), and the victim's count of pages on
-- P's queues rises by one
valid-walk : ∀ {c G X bl k o p kb} → Spc.K c * Z ≤ suc kmax → LInv c (G , X , bl) → FullC G bl → GB c (G , X , bl) →
             FreshAbove X bl → Above bl → cv G ≡ just k → o < wp bl k → own bl k o ≡ just p →
             qd (stX X) p ≡ false → Valid (stX X) p → Target c bl kb →
             Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' →
               LStep c (G , X , bl) (G' , X' , bl') × cv G' ≡ cv G × suc (done X bl k) ≤ done X' bl' k ×
               proj₁ X' ≡ proj₁ X
valid-walk {c} {G} {false , S} {bl} {k} {o} {p} {kb} KZ L F B fa A cvk lt eo qf vp tg =
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
  SO = step-of {c} {G} {false , S} {X′} {bl} {k} {kb} F cvk okr (fv-rl0 {s} {bl} {k} {o} {p} (proj₂ (ri-of L)) eo vp)
         (o , p , lt , eo , qf , upd-self (inv s) p true) tg
  P = place-other {false , S} {X′} {bl} {balloc kb n bl} {k} (proj₂ okr) (victim-apart L F cvk)
  inc : suc (done (false , S) bl k) ≤ done X′ (balloc kb n bl) k
  inc = subst (λ m → suc (cntQ s bl k (wp bl k)) ≤ cntQ (rl0 p s) (balloc kb n bl) k m) (sym (proj₁ P))
          (cnt-inc s (rl0 p s) bl (balloc kb n bl) k (wp bl k) o p (λ o′ _ → proj₂ P o′)
                   (λ o′ p′ _ _ x → px-queued (SB.reg (SB.op SB.rl)) {false , S} {X′} (λ ()) (proj₁ okr) p′ x)
                   lt eo qf (inv-qd (rl0 p s) p (upd-self (inv s) p true)))
valid-walk {c} {G} {true , S} {bl} {k} {o} {p} {kb} KZ L F B fa A cvk lt eo qf vp tg =
  proj₁ SO , X′ , balloc kb n bl , proj₁ (proj₂ SO) , proj₂ (proj₂ SO) , inc , refl
  where
  s = st (su S)
  n = nxt s
  X′ : XS
  X′ = true , lzS (rl0 p s) (gh S)
  gk = gc-budget {c} {G} {true , S} {bl} KZ B cvk lt eo qf
  eu : ues (su S) ≡ []
  eu = proj₁ (proj₁ (ri-of L))
  aok = alloc-ok {true , S} {bl} {kb} fa A (proj₁ tg) (proj₁ (proj₂ tg))
  okr : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) ((true , S) , bl) (X′ , balloc kb n bl)
  okr = inj₂ (refl , eu , rl0 p s , refl , inj₁ (gk , p , fa k o p eo , inj₁ (vp , false , false , refl))) ,
        inj₁ (refl , kb , aok , refl)
  SO = step-of {c} {G} {true , S} {X′} {bl} {k} {kb} F cvk okr (fv-rl0 {s} {bl} {k} {o} {p} (proj₂ (ri-of L)) eo vp)
         (o , p , lt , eo , qf , upd-self (inv s) p true) tg
  P = place-other {true , S} {X′} {bl} {balloc kb n bl} {k} (proj₂ okr) (victim-apart L F cvk)
  inc : suc (done (true , S) bl k) ≤ done X′ (balloc kb n bl) k
  inc = subst (λ m → suc (cntQ s bl k (wp bl k)) ≤ cntQ (rl0 p s) (balloc kb n bl) k m) (sym (proj₁ P))
          (cnt-inc s (rl0 p s) bl (balloc kb n bl) k (wp bl k) o p (λ o′ _ → proj₂ P o′)
                   (λ o′ p′ _ _ x → px-queued (SB.reg (SB.op SB.rl)) {true , S} {X′} (λ ()) (proj₁ okr) p′ x)
                   lt eo qf (inv-qd (rl0 p s) p (upd-self (inv s) p true)))

------------------------------------------------------------------------
-- Two more facts of the layer's blocks: every page below a write pointer
-- holds an incarnation, and every block in one of the ghost's classes is
-- full

Dense : BL → Set
Dense bl = ∀ k o → o < wp bl k → Σ ℕ λ p → own bl k o ≡ just p

dense-balloc : ∀ {bl} k n → Dense bl → Dense (balloc k n bl)
dense-balloc {bl} k n D j o lt with j ≟ℕ k
... | no ne = subst (λ m → Σ ℕ λ p → m ≡ just p) (sym (cong (λ f → f o) (upd-ne (own bl) j k _ ne)))
                    (D j o (subst (o <_) (upd-ne (wp bl) j k _ ne) lt))
... | yes refl with o ≟ℕ wp bl j
...   | yes refl = n , trans (cong (λ f → f o) (upd-self (own bl) j _)) (upd-self (act bl j) o (just n))
...   | no no′ = subst (λ m → Σ ℕ λ p → m ≡ just p)
                       (sym (trans (cong (λ f → f o) (upd-self (own bl) j _))
                                   (trans (upd-ne (act bl j) o (wp bl j) (just n) no′) (actB-below (wp bl j) (own bl j) o lt′))))
                       (D j o lt′)
  where
  lt″ : o < suc (wp bl j)
  lt″ = subst (o <_) (upd-self (wp bl) j _) lt
  lt′ : o < wp bl j
  lt′ = ≤∧≢⇒< (≤-pred lt″) no′

dense-berase : ∀ {bl} k → Dense bl → Dense (berase k bl)
dense-berase {bl} k D j o lt with j ≟ℕ k
... | yes refl = ⊥-elim (no< (subst (o <_) (upd-self (wp bl) j 0) lt))
... | no ne = D j o (subst (o <_) (upd-ne (wp bl) j k 0 ne) lt)

dense-step : ∀ {c G X bl G' X' bl'} → Dense bl → LStep c (G , X , bl) (G' , X' , bl') → Dense bl'
dense-step {c} {G} {X} {bl} {G'} {X'} {bl'} = bl-step Dense (λ {bl} k n → dense-balloc {bl} k n) (λ {bl} k → dense-berase {bl} k) {c} {G} {X} {bl} {G'} {X'} {bl'}

dense-start : ∀ {c X bl} → Start c X bl → Dense bl
dense-start st k o lt = ⊥-elim (no< (subst (o <_) (Start.allWp st k) lt))

private
  fullc-place : ∀ {G X X' bl bl'} → Place X X' bl bl' → FullC G bl → FullC G bl'
  fullc-place {G} {X} {X'} {bl} {bl'} pl F j cj =
    trans (proj₁ (place-other {X} {X'} {bl} {bl'} {j} pl (full-apart {X} {bl} {bl'} {j} (F j cj)))) (F j cj)

  -- the classes after a block joins the used ones
  cl-us : ∀ {G j k} → Classed (record G { us = us G [ k ≔ true ] }) j → j ≡ k ⊎ Classed G j
  cl-us {G} {j} {k} (inj₁ u) with j ≟ℕ k
  ... | yes e = inj₁ e
  ... | no ne = inj₂ (inj₁ (trans (sym (upd-ne (us G) j k true ne)) u))
  cl-us (inj₂ x) = inj₂ (inj₂ x)

  fullc-us : ∀ {G bl k} → wp bl k ≡ Z → FullC G bl → FullC (record G { us = us G [ k ≔ true ] }) bl
  fullc-us {G} {bl} {k} full F j cj with cl-us {G} {j} {k} cj
  ... | inj₁ refl = full
  ... | inj₂ c = F j c

  ∨-split : ∀ {x y} → (x Data.Bool.Base.∨ y) ≡ true → x ≡ true ⊎ y ≡ true
  ∨-split {true} _ = inj₁ refl
  ∨-split {false} e = inj₂ e

private
  -- one Boolean flag true rules another out, so the other true rules it out
  contra : ∀ {a b} → (a ≡ true → b ≡ false) → b ≡ true → a ≡ false
  contra {false} f _ = refl
  contra {true} f b = ⊥-elim (t→¬f b (f refl))

-- the abstraction's disjoint classes: an erasable block is neither used
-- nor a victim, and the current victim is not erasable
es-apart : ∀ {c G X bl d} → Abs c G X bl d → ∀ k → es G k ≡ true → us G k ≡ false × vi G k ≡ false
es-apart I k e = contra (Abs.usE I k) e , Abs.esV I k e

cv-apart : ∀ {c G X bl d k} → Abs c G X bl d → cv G ≡ just k → es G k ≡ false
cv-apart {k = k} I cvk = contra (Abs.esV I k) (Abs.cvV I k cvk)

-- every step of the layer keeps it, given that a used block and a victim
-- are not erasable (the abstraction's disjoint classes)
fullc-core : ∀ {c G X bl G' X' bl'} → (∀ k → es G k ≡ true → us G k ≡ false × vi G k ≡ false) →
             FullC G bl → LStep c (G , X , bl) (G' , X' , bl') → FullC G' bl'
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lw (_ , pl) _ _ _ _) = fullc-place {G} {X} {X'} pl F
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lwa {bl' = bl'} (_ , pl) moved kP full _ _ _) =
  fullc-us {G} {bl'} {ab bl} (trans (proj₁ (place-other {X} {X'} {bl} {bl'} {ab bl} pl (full-apart {X} {bl} {bl'} {ab bl} full))) full)
    (fullc-place {G} {X} {X'} pl F)
fullc-core {G = G} {X} {bl} ue F (lret full _ _ _) = fullc-us {G} {bl} {ab bl} full F
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lwr (_ , pl) _ _ _ _ _) = fullc-place {G} {X} {X'} pl F
fullc-core {G = G} ue F (lfl (_ , refl) _ _) j (inj₁ u) = F j (inj₁ u)
fullc-core {G = G} ue F (lfl (_ , refl) _ _) j (inj₂ (inj₁ ()))
fullc-core {G = G} ue F (lfl (_ , refl) _ _) j (inj₂ (inj₂ e)) with ∨-split {es G j} e
... | inj₁ x = F j (inj₂ (inj₂ x))
... | inj₂ v = F j (inj₂ (inj₁ v))
fullc-core {G = G} ue F (lbar (_ , refl) _ _) j (inj₁ u) = F j (inj₁ u)
fullc-core {G = G} ue F (lbar (_ , refl) _ _) j (inj₂ (inj₁ ()))
fullc-core {G = G} ue F (lbar (_ , refl) _ _) j (inj₂ (inj₂ e)) with ∨-split {es G j} e
... | inj₁ x = F j (inj₂ (inj₂ x))
... | inj₂ v = F j (inj₂ (inj₁ v))
fullc-core ue F (lsy (_ , refl)) = F
fullc-core {G = G} {bl = bl} ue F (lera (k , _ , refl) esk _) j cj with j ≟ℕ k
... | yes refl = ⊥-elim (gone cj)
  where
  gone : Classed (record G { es = es G [ j ≔ false ] }) j → ⊥
  gone (inj₁ u) = t→¬f u (proj₁ (ue j esk))
  gone (inj₂ (inj₁ v)) = t→¬f v (proj₂ (ue j esk))
  gone (inj₂ (inj₂ e)) = t→¬f e (upd-self (es G) j false)
... | no ne = trans (upd-ne (wp bl) j k 0 ne) (F j (back cj))
  where
  back : Classed (record G { es = es G [ k ≔ false ] }) j → Classed G j
  back (inj₁ u) = inj₁ u
  back (inj₂ (inj₁ v)) = inj₂ (inj₁ v)
  back (inj₂ (inj₂ e)) = inj₂ (inj₂ (trans (sym (upd-ne (es G) j k false ne)) e))
fullc-core {G = G} ue F (lgcm {k = k} _ usk _ _ _ _) j cj with j ≟ℕ k
... | yes refl = F j (inj₁ usk)
... | no ne = F j (back cj)
  where
  back : Classed (record G { us = us G [ k ≔ false ] ; vi = vi G [ k ≔ true ] ; cv = just k ; gn = suc (gn G) }) j → Classed G j
  back (inj₁ u) = inj₁ (trans (sym (upd-ne (us G) j k false ne)) u)
  back (inj₂ (inj₁ v)) = inj₂ (inj₁ (trans (sym (upd-ne (vi G) j k true ne)) v))
  back (inj₂ (inj₂ e)) = inj₂ (inj₂ e)
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lrl _ (_ , pl) _ _ _ _) = fullc-place {G} {X} {X'} pl F
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lrla {bl' = bl'} _ (_ , pl) moved kP full _ _ _) =
  fullc-us {G} {bl'} {ab bl} (trans (proj₁ (place-other {X} {X'} {bl} {bl'} {ab bl} pl (full-apart {X} {bl} {bl'} {ab bl} full))) full)
    (fullc-place {G} {X} {X'} pl F)
fullc-core {G = G} {X} {bl} {X' = X'} ue F (lrlr _ (_ , pl) _ _ _ _ _) = fullc-place {G} {X} {X'} pl F
fullc-core ue F (ldone _ _ _) = F

fullc-step : ∀ {c G X bl G' X' bl'} → LInv c (G , X , bl) → FullC G bl → LStep c (G , X , bl) (G' , X' , bl') → FullC G' bl'
fullc-step (inj₁ F′) = fullc-core (λ k e → ⊥-elim (t→¬f e (Fresh.noEs F′ k)))
fullc-step (inj₂ (inj₁ R)) = fullc-core (es-apart (Run.abs R))
fullc-step (inj₂ (inj₂ Rt)) = fullc-core (es-apart (Retired.abs Rt))

-- a full block has pages to erase
private
  consM-ne : ∀ (m : Maybe ℕ) xs q → m ≡ just q → consM m xs ≢ []
  consM-ne .(just q) xs q refl ()

owners-ne : ∀ {bl k} → Dense bl → wp bl k ≡ Z → owners bl k ≢ []
owners-ne {bl} {k} D full e =
  consM-ne (own bl k zb) (ownersB bl k zb) (proj₁ d) (proj₂ d) (subst (λ w → ownersB bl k w ≡ []) full e)
  where
  d : Σ ℕ λ p → own bl k zb ≡ just p
  d = D k zb (subst (λ w → zb < w) (sym full) (≤-refl {suc zb}))

------------------------------------------------------------------------
-- A victim whose every page is queued holds no valid sector

private
  hereM-just : ∀ m p → hereM m p ≡ true → m ≡ just p
  hereM-just nothing  p ()
  hereM-just (just q) p h = cong just (≡ᵇ-T h)

  locx-of : ∀ {c G X bl} → LInv c (G , X , bl) → LocX X bl
  locx-of (inj₁ F) = Fresh.locx F
  locx-of (inj₂ (inj₁ R)) = Run.locx R
  locx-of (inj₂ (inj₂ Rt)) = Retired.locx Rt

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

private
  unq-esF : ∀ q s p → qd s p ≡ false → qd (esF q s) p ≡ false
  unq-esF q s p f with p ≟ℕ q
  ... | yes refl = subst (λ b → (inv s p ∨ b) ≡ false) (sym (upd-self (ers s) p false)) (trans (∨-identityʳ (inv s p)) (qd-inv s p f))
  ... | no ne = subst (λ b → (inv s p ∨ b) ≡ false) (sym (upd-ne (ers s) p q false ne)) f

  -- a block erase puts no page on a queue
  run-unqueued : ∀ {X ps X' p} → EsRunM X ps X' → qd (stX X) p ≡ false → qd (stX X') p ≡ false
  run-unqueued {X} {p = p} (one {p = q} (_ , e)) f = subst (λ s′ → qd s′ p ≡ false) (sym e) (unq-esF q (stX X) p f)
  run-unqueued {X} {p = p} (_∷_ {p = q} (_ , e) rn) f =
    run-unqueued rn (subst (λ s′ → qd s′ p ≡ false) (sym e) (unq-esF q (stX X) p f))

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


module _ {c : Spc.Config} (V : Spc.Valid c) (eL : Spc.L c ≡ suc amax) (eW : Spc.W c ≡ suc wmax) (eS : Spc.S c ≡ Z)
         (KZ : Spc.K c * Z ≤ suc kmax) {X0 bl0 X1 bl1} (new : SB.Model.New BXone (X0 , bl0))
         (rec : SB.Model.ok BXone SB.recover (X0 , bl0) (X1 , bl1)) (abP : ab bl0 < Spc.P c) where

  private
    st0 : Start c X1 bl1
    st0 = new-start {c} new rec abP

    -- what a state the layer reaches has
    Reach : LS → Set
    Reach s = Star (LStep c) (G0 , X1 , bl1) s

    fullc-star : ∀ {s s'} → LInv c s → FullC (proj₁ s) (proj₂ (proj₂ s)) → Star (LStep c) s s' → FullC (proj₁ s') (proj₂ (proj₂ s'))
    fullc-star L F ε = F
    fullc-star {G , X , bl} L F (_◅_ {j = G′ , X′ , bl′} st r) =
      fullc-star (step-inv eL eW eS L st) (fullc-step {c} {G} {X} {bl} {G′} {X′} {bl′} L F st) r

    inv-at : ∀ {G X bl} → Reach (G , X , bl) → LInv c (G , X , bl)
    inv-at r = layer-inv eL eW eS st0 r

    gb-at : ∀ {G X bl} → Reach (G , X , bl) → GB c (G , X , bl)
    gb-at r = gb-star eL eW eS (start-inv st0) (gb-start st0) r

    einv-at : ∀ {G X bl} → Reach (G , X , bl) → EInv (G , X , bl)
    einv-at r = einv-star eL eW eS (start-inv st0) (fresh-rec {X0} {X1} {bl0} {bl1} rec , λ j e → ⊥-elim (t→¬f e refl)) r

    above-at : ∀ {G X bl} → Reach (G , X , bl) → Above bl
    above-at r = bl-star Above (λ {bl} k n → above-balloc {bl} k n) (λ {bl} k → above-berase {bl} k) (above-start st0) r

    dense-at : ∀ {G X bl} → Reach (G , X , bl) → Dense bl
    dense-at r = bl-star Dense (λ {bl} k n → dense-balloc {bl} k n) (λ {bl} k → dense-berase {bl} k) (dense-start st0) r

    fullc-at : ∀ {G X bl} → Reach (G , X , bl) → FullC G bl
    fullc-at r = fullc-star (start-inv st0) (λ k cl → ⊥-elim (none {k} cl)) r
      where
      none : ∀ {k} → Classed G0 k → ⊥
      none (inj₁ ())
      none (inj₂ (inj₁ ()))
      none (inj₂ (inj₂ ()))

    -- one page of the victim through P's relocation (`rlX` or `rl0`),
    -- into a block with room the caller names for a valid page
    page-step : ∀ {G X bl k o p} → Reach (G , X , bl) → cv G ≡ just k → o < wp bl k → own bl k o ≡ just p →
                qd (stX X) p ≡ false → (Valid (stX X) p → Σ ℕ λ kb → Target c bl kb) →
                Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' →
                  LStep c (G , X , bl) (G' , X' , bl') × cv G' ≡ cv G × suc (done X bl k) ≤ done X' bl' k × proj₁ X' ≡ proj₁ X
    page-step {G} {X} {bl} {k} {o} {p} r cvk lt eo qf tgt with valid? (stX X) p
    ... | inj₁ vp = valid-walk {c} {G} {X} {bl} {k} {o} {p} {proj₁ (tgt vp)} KZ (inv-at r) (fullc-at r) (gb-at r) (proj₁ (einv-at r)) (above-at r)
                      cvk lt eo qf vp (proj₂ (tgt vp))
    ... | inj₂ nv with dead-walk {c} {G} {X} {bl} {k} {o} {p} KZ (inv-at r) (gb-at r) (proj₁ (einv-at r)) cvk lt eo qf nv
    ...   | X′ , _ , st′ , _ , inc , ph = G , X′ , bl , st′ , refl , inc , ph

    Res : Gh → XS → BL → Set
    Res G X bl = Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' → Star (LStep c) (G , X , bl) (G' , X' , bl') × cv G' ≡ nothing

    Step1 : Gh → XS → BL → ℕ → Set
    Step1 G X bl k = Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' →
                       LStep c (G , X , bl) (G' , X' , bl') × cv G' ≡ cv G × suc (done X bl k) ≤ done X' bl' k × proj₁ X' ≡ proj₁ X

    -- the victim is not erasable
    victim-es : ∀ {G X bl k} → LInv c (G , X , bl) → cv G ≡ just k → es G k ≡ false
    victim-es (inj₁ F) cvk = ⊥-elim (nothing≢just (trans (sym (Fresh.noCv F)) cvk))
    victim-es (inj₂ (inj₁ R)) cvk = cv-apart (Run.abs R) cvk
    victim-es (inj₂ (inj₂ Rt)) cvk = cv-apart (Retired.abs Rt) cvk

  mutual
    -- by the pages of the victim still to go (`Z ≤ done + m`)
    ends : ∀ m {G X bl k} → Reach (G , X , bl) → proj₁ X ≡ false → cv G ≡ just k → Z ≤ done X bl k + m → Res G X bl
    ends m {G} {false , S} {bl} {k} r refl cvk fuel with pending? (stX (false , S)) bl k (wp bl k)
    ... | inj₂ all =
      _ , _ , _ , ldone cvk (all-queued-vc0 {false , S} {bl} {k} (proj₁ (ri-of (inv-at r))) (locx-of (inv-at r)) all) all ◅ ε , refl
    ... | inj₁ (o , p , lt , eo , qf) with m
    ...   | zero = ⊥-elim (<-irrefl refl (≤-trans (cnt< (stX (false , S)) bl k (wp bl k) o p lt eo qf)
                                            (≤-trans (proj₁ (proj₂ (gb-at r)) k) (subst (Z ≤_) (+-identityʳ (done (false , S) bl k)) fuel))))
    ...   | suc m′ with valid? (stX (false , S)) p
    ...     | inj₂ nv = cont m′ r refl cvk fuel (page-step r cvk lt eo qf (λ vp → ⊥-elim (nv vp)))
    ...     | inj₁ vp with layer-reloc V (inv-at r) cvk
                          (subst (λ j → 1 ≤ vc (false , S) bl j) (cong proj₁ (proj₂ (ri-of (inv-at r)) k o p eo))
                                 (vc-pos (false , S) bl _ p (proj₁ vp) (proj₂ vp)))
    ...       | inj₁ room =
      cont m′ r refl cvk fuel (page-step r cvk lt eo qf (λ _ → target-of eS (inv-at r) (proj₁ (proj₂ (gb-at r))) (inj₁ room)))
    ...       | inj₂ (k′ , k′P , inj₁ frk) =
      cont m′ r refl cvk fuel (page-step r cvk lt eo qf (λ _ → target-of eS (inv-at r) (proj₁ (proj₂ (gb-at r))) (inj₂ (k′ , k′P , frk))))
    ...       | inj₂ (k′ , k′P , inj₂ esk′)
      with sync-erase {c} {G} {S} {bl} {k′} (inv-at r) (layer-queued eL eW eS st0 r) (einv-at r) esk′
             (owners-ne {bl} {k′} (dense-at r) (fullc-at r k′ (inj₂ (inj₂ esk′))))
    ...         | X′ , st1 , ph1 , unq , qx , X″ , rn , ph2 =
      proj₁ R , proj₁ (proj₂ R) , proj₁ (proj₂ (proj₂ R)) , st1 ◅ st2 ◅ proj₁ (proj₂ (proj₂ (proj₂ R))) , proj₂ (proj₂ (proj₂ (proj₂ R)))
      where
        G2 = record G { es = es G [ k′ ≔ false ] }
        bl2 = berase k′ bl
        st2 : LStep c (G , X′ , bl) (G2 , X″ , bl2)
        st2 = lera (k′ , rn , refl) esk′ k′P
        r2 = r ◅◅ (st1 ◅ st2 ◅ ε)
        ne : k ≢ k′
        ne = λ e → t→¬f esk′ (subst (λ j → es G j ≡ false) e (victim-es (inv-at r) cvk))
        off : ∀ o′ p′ → own bl k o′ ≡ just p′ → ¬ (p′ ∈ owners bl k′)
        off o′ p′ e i with mem-own bl k′ (wp bl k′) p′ i
        ... | o″ , _ , e′ = ne (cong proj₁ (trans (sym (proj₂ (ri-of (inv-at r)) k o′ p′ e)) (proj₂ (ri-of (inv-at r)) k′ o″ p′ e′)))
        mono : done (false , S) bl k ≤ done X″ bl2 k
        mono = done-keep {false , S} {X″} {bl} {bl2} {k} (upd-ne (wp bl) k k′ 0 ne) (λ _ → refl)
                 (λ o′ p′ _ e x → run-queued rn p′ (off o′ p′ e) (qx p′ x))
        fr2 : fr bl2 k′ ≡ true
        fr2 = upd-self (fr bl) k′ true
        R = cont m′ {G2} {X″} {bl2} {k} r2 ph2 cvk (≤-trans fuel (+-monoˡ-≤ (suc m′) mono))
              (page-step r2 cvk (subst (o <_) (sym (upd-ne (wp bl) k k′ 0 ne)) lt) eo (run-unqueued rn (unq p qf))
                 (λ _ → target-of eS (inv-at r2) (proj₁ (proj₂ (gb-at r2))) (inj₂ (k′ , k′P , fr2))))

    cont : ∀ m′ {G X bl k} → Reach (G , X , bl) → proj₁ X ≡ false → cv G ≡ just k → Z ≤ done X bl k + suc m′ →
           Step1 G X bl k → Res G X bl
    cont m′ {G} {X} {bl} {k} r ph cvk fuel (G′ , X′ , bl′ , st′ , ec , inc , ph′) with
      ends m′ {G′} {X′} {bl′} {k} (r ◅◅ (st′ ◅ ε)) (trans ph′ ph) (trans ec cvk)
           (≤-trans fuel (subst (_≤ done X′ bl′ k + m′) (sym (+-suc (done X bl k) m′)) (+-monoˡ-≤ m′ inc)))
    ... | G″ , X″ , bl″ , run′ , nocv = G″ , X″ , bl″ , st′ ◅ run′ , nocv

  -- **GC of every victim ends**: in every state the layer reaches from
  -- the first recovery of a new disk in PUSBic's phase, while GC moves a
  -- victim, a run of the layer relocates each of its pages not yet on
  -- P's queues (P's `rlX` for a dead one; `rl0` for a valid one, into the
  -- open block or a free one, a block the layer holds erasable erased
  -- first after the SYNC that releases its pages) and ends the victim
  victim-ends : ∀ {G X bl k} → Star (LStep c) (G0 , X1 , bl1) (G , X , bl) → proj₁ X ≡ false → cv G ≡ just k →
                Σ Gh λ G' → Σ XS λ X' → Σ BL λ bl' → Star (LStep c) (G , X , bl) (G' , X' , bl') × cv G' ≡ nothing
  victim-ends {G} {X} {bl} {k} r ph cvk = ends Z r ph cvk (m≤n+m Z (done X bl k))
