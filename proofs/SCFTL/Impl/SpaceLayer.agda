{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks in the one model: the layer and the
-- assembly, for runs without a crash.
--
-- `LStep c` is the data-superblock layer over the block layer of the one
-- model (BXone): its states are a block-layer state with a ghost `Gh`
-- (blocks.rs's classes — used, erasable, this epoch's victims, the
-- victim GC is moving — and gc.rs's count of victims this epoch), its
-- steps are BXone's operations under the code's policies, each guard
-- stated on the concrete state (the ghost, P's state, the block
-- bookkeeping, the valid counts `vc`):
--
--   `lw`   : a write while the open block has room, with no victim
--            pending and GC not needed (gc.rs `gc_needed`: the used
--            blocks below U or the epoch's K victims taken), into the
--            open block only while it is in none of the ghost's classes
--            (`OpenOK`);
--   `lwa`  : a write that opens a free block below P when the open one
--            is full (its data then lies in a used block), GC asked of
--            the used blocks with the full one among them;
--   `lret` : the full open block retired in the ghost alone (Space's
--            `act`; the block layer opens a block only with the sector
--            it places there), when a free block below P is there;
--   `lwr`, `lrlr` : a write or a relocation that opens a free block once
--            the open block is in one of the ghost's classes (used, then
--            maybe a victim, erasable: retired by `lret` when full, or,
--            thirty-fifth session, abandoned by a recovery with room
--            left, as the code does) or free (a recovery freed it:
--            the code may open any free block then), the ghost kept
--            (`Leave`; `lwa`, `lrla` and `lret` ask the open block in
--            none of the classes, `Unclassed`);
--   `lfl`, `lbar` : a flush (every commit path), an epoch barrier: this
--            epoch's victims become erasable, the count starts again;
--   `lsy`  : a SYNC;
--   `lera` : the erase of an erasable block below P;
--   `lgcm` : GC takes a used victim with at most N valid sectors (a
--            choice of the code, no step of the model);
--   `lrl`, `lrla` : a relocation of one of the current victim's pages,
--            into the open block (`OpenOK`, as `lw`) or a free one when
--            the open one is full
--            (P's `rlX` of a dead page is an `lrl` that places nothing);
--            each page once, and only the victim's (`Walk`, thirty-third
--            session; SCFTL.Impl.SpaceGcBound: the relocations then fit
--            P's per-epoch budget, SCFTL.Impl.SpaceGcWalk: GC of every
--            victim ends);
--   `ldone`: the current victim holds no valid sector any more, and GC
--            has been through every page placed in it (`Relocated`:
--            each on P's invalid queue, by `rl0` for a valid sector,
--            `rlX` for a dead one), so the block the epoch's end makes
--            erasable has every page on P's queues
--            (SCFTL.Impl.SpaceQueued; thirty-second session: before, a
--            dead page of the victim might never reach them, and the
--            block had no erase step).
--
-- (`LStepT c T` is the layer with GC's timing `T` as a parameter; the
-- code's is `LStep c`, `T` = Space's `NotNeeded c`; mutant 48,
-- SCFTL.Mutants.LayerIgnoresGcTiming, drops it and loses progress.)
--
-- Until the thirty-second session the layer had no `lret`, `lwr`,
-- `lrlr`, and under the code's timing it never took a victim: `lwa` asks
-- `NotNeeded` of the used blocks with the retired one among them, so
-- they stayed below U, while `lgcm` asks for U of them — its GC results
-- held of states no run reached, and a run whose open block filled with
-- U - 1 blocks used wrote no more.  Space avoids it by retiring a full
-- block first (`act`) and checking GC after; `lret` does that in the
-- ghost (SCFTL.Impl.SpaceLayerGcExample: a run through GC, the victim's
-- relocation, its end, a flush and the victim's erase).
--
-- Its invariant `LInv`: a state of Space's data half that StepD reaches
-- from format (`ReachD`) and the abstraction of SCFTL.Impl.SpaceSim
-- (`Abs`) to it, every valid sector in the open block, a used block
-- below P or the current victim (`Placed`), free blocks at write pointer
-- 0 (`FrWp`), BXone's `LocX` and invariant — or, before the first write
-- of a new disk, the same of the state with the open block taken off the
-- free ones (`Fresh`: BlocksOver's new disk has every block free, the
-- open one included; the first allocation takes it) — or, once `lret`
-- retired the full open block, the same of the state with a free block
-- `kn` opened in its place (`Retired`: Space has opened one, and any
-- free block may stand for it, SCFTL.Impl.SpaceSimRetire's `reopen`;
-- the next placement takes one and the state is running again; the
-- block layer's open block is free or in one of the ghost's classes,
-- `abC`, full or not since the thirty-fifth session, so that a
-- recovery's abandoned open block fits).
--
--   `step-inv`      : every step of the layer keeps `LInv` — each is one
--                     of SpaceSim's simulation lemmas (from `Retired`,
--                     over the abstraction of `Opened bl kn`);
--   `start-inv`     : a state after the first recovery of a new disk
--                     (`Start`: nothing mapped, P's write counter 0,
--                     every block free and at write pointer 0) has it,
--                     Space's `init` and P - 1 erases its abstraction;
--   **`layer-write`**, `layer-reloc` : so in every state the layer
--                     reaches from there, a wanted write (P's write
--                     counter below W, no victim pending) and a pending
--                     relocation find room: the open block, or a free or
--                     erasable block below P (SpaceSim's `BlockFor`,
--                     from Space's `data-progress`);
--   `layer-victim`  : and when GC is needed (U used blocks), a used
--                     block below P with at most N valid sectors exists,
--                     so `lgcm`'s guard can be met (Space's `data-victim`).
--
-- `Start` is what the first recovery of a new disk leaves
-- (SCFTL.Impl.SpaceLayerStart: `new-start`, `space-progress-one`).  Not
-- here: recovery after a crash (P's recovery reclaims the pages the
-- recovered map does not name since the thirtieth session; the block
-- layer's recovery frees every vacant block since the thirty-first, and
-- keeps the open block when it is not vacant), so a crash ends what this
-- module says; SCFTL.Impl.SpaceRecLayer (thirty-fifth session) adds the
-- layer's recovery step and carries `LInv` across it.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceLayer (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; _∨_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; _++_; length)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (zero; suc; _+_; _∸_; _≤_; _<_; s≤s; z≤n)
open import Data.Nat.Properties using (+-identityʳ; +-suc; m+n≡0⇒m≡0; ≤-step; n<1+n; <-irrefl; ≮⇒≥) renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂; map₂)
import Data.Sum.Base
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
open import Relation.Nullary using (¬_; yes; no)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; l2p; wcnt; gcnt; nxt; inv; ers; _[_≔_])
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb
  using (stX; BXone; obligationsBXone; module OPX)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (LocX; loc-ok)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; Z; loc; own; wp; ab; fr; balloc; berase; owners; ownersB; consM; upd-self; upd-ne)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb
  using (vc; inBlk; vc-w; vc-rl; vc-flush; vc-barrier; vc-sy; vc-erase; vc-empty)
open import SCFTL.Impl.SpaceUsed using (b2n; b2n-ne; tot; tot-ext; tot-0; tot-flip; usedL; MoveEq)
open import SCFTL.Impl.SpaceData
  using (StD; sd; StepD; ReachD; initD; era; gcD; vsD; wcD; pendD; data-victim)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; gh; us; es; vi; cv; gn; Abs; OldIn; FrWp; Opened; BlockFor; pendOf; FromVictim; f≢t; nothing≢just;
         core-w; after-opened; vc-pos; t→¬f; kept;
         sim-w; sim-act; sim-fl; sim-barrier; sim-sy; sim-era; sim-gcm; sim-rl; sim-rl-act; sim-done; activate; core-rl;
         frwp-ok; block-for-write; block-for-reloc)
open import SCFTL.Impl.SpaceSimRetire Data d0 amax wmax kmax umax _≟D_ kc zb using (abs-fr; reopen; old-ret)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (EsRunM)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

module OBX = SB.ForwardSimulation.Obligations obligationsBXone

------------------------------------------------------------------------
-- The layer

-- the used blocks' valid counts (Space's list)
usedOf : Sp.Config → Gh → XS → BL → List ℕ
usedOf c G X bl = usedL (us G) (vc X bl) (Sp.P c)

-- an epoch ends: its victims erasable (two-phase GC), the count again 0
endEp : Gh → Gh
endEp G = record G { es = λ k → es G k ∨ vi G k ; vi = λ _ → false ; gn = 0 }

-- page p on one of P's queues: invalid (GC went through it this epoch)
-- or erasable (a SYNC or a commit released it since)
qd : St → ℕ → Bool
qd s p = inv s p ∨ ers s p

-- every page placed in block k since its last erase is on one of P's
-- queues: GC has been through each (gc.rs walks every page of the victim;
-- P's `rl0` relocates a valid sector, `rlX` passes a dead one; a SYNC
-- may release such a page from the invalid queue into the erasable one
-- before GC ends, thirty-third session: the invalid queue alone left
-- the victim's end out of reach then)
Relocated : XS → BL → ℕ → Set
Relocated X bl k = ∀ o p → o < wp bl k → own bl k o ≡ just p → qd (stX X) p ≡ true

-- P's relocation is of a page of victim k that GC has not been through
-- yet: placed in k below its write pointer, on neither of P's queues
-- before the step, on the invalid one after it (gc.rs walks the victim's
-- pages once each; thirty-third session: before, the layer let P's `rlX`
-- take any dead page, and P's relocations per epoch, `gcnt`, bounded by
-- kmax, could run out with a page of the victim left,
-- SCFTL.Impl.SpaceGcBound)
Walk : ℕ → XS → BL → XS → Set
Walk k X bl X' = Σ ℕ λ o → Σ ℕ λ p → o < wp bl k × own bl k o ≡ just p × qd (stX X) p ≡ false × inv (stX X') p ≡ true

-- a block in none of the ghost's classes (the open block before it is
-- retired), or in one of them (the old open block once retired: used,
-- then maybe a victim, erasable)
Unclassed Classed : Gh → ℕ → Set
Unclassed G k = us G k ≡ false × vi G k ≡ false × es G k ≡ false
Classed G k = us G k ≡ true ⊎ vi G k ≡ true ⊎ es G k ≡ true

-- the open block may be left for another (`lwr`, `lrlr`): it is in one
-- of the classes, or free (a recovery freed it, vacant: the code may
-- open any free block then; thirty-fifth session)
Leave : Gh → BL → Set
Leave G bl = Classed G (ab bl) ⊎ fr bl (ab bl) ≡ true

-- a write or a relocation that keeps the open block (`lw`, `lrl`) places
-- its sector there only while that block is in none of the classes, or
-- places nothing (thirty-fifth session: after a recovery the open block,
-- abandoned by the code, may be in one, and not full; `lwr`, `lrlr` then
-- take another)
OpenOK : Gh → BL → BL → Set
OpenOK G bl bl' = Unclassed G (ab bl) ⊎ bl' ≡ bl

-- what every placing step of the layer gives of the block k it takes:
-- the open block only while in none of the classes
Guard : XS → Gh → BL → BL → Set
Guard X G bl bl' = ∀ k → bl' ≡ balloc k (nxt (stX X)) bl → k ≡ ab bl → Unclassed G k

guard-unc : ∀ {X G bl bl'} → Unclassed G (ab bl) → Guard X G bl bl'
guard-unc {G = G} u k _ e = subst (Unclassed G) (sym e) u

guard-moved : ∀ {X G bl bl'} → ab bl' ≢ ab bl → Guard X G bl bl'
guard-moved mv k refl e = ⊥-elim (mv e)

guard-open : ∀ {X G bl bl'} → OpenOK G bl bl' → Guard X G bl bl'
guard-open {X} {G} {bl} (inj₁ u) = guard-unc {X} {G} {bl} u
guard-open {X} {G} {bl} (inj₂ refl) k e _ =
  ⊥-elim (<-irrefl (trans (cong (λ b → wp b k) e) (upd-self (wp bl) k _)) (n<1+n (wp bl k)))

-- the layer's state: the ghost, P's state (with the phase), the blocks
LS : Set
LS = Gh × XS × BL

-- the layer with GC's timing as a parameter `T` (given this epoch's GC
-- count and the used blocks' counts: may the epoch go on without GC?);
-- the code's is `LStep` below, a weaker one is mutant 48's
module _ (c : Sp.Config) (T : ℕ → List ℕ → Set) where
  private
    OkW : ℕ → Data → XS → BL → XS → BL → Set
    OkW a dd X bl X' bl' = SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w a dd)))) (X , bl) (X' , bl')
    OkR : XS → BL → XS → BL → Set
    OkR X bl X' bl' = SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , bl')

  data LStepT : LS → LS → Set where
    lw   : ∀ {G X X' bl bl' a dd} → OkW a dd X bl X' bl' → ab bl' ≡ ab bl →
           cv G ≡ nothing → T (gn G) (usedOf c G X bl) → OpenOK G bl bl' →
           LStepT (G , X , bl) (G , X' , bl')
    lwa  : ∀ {G X X' bl bl' a dd} → OkW a dd X bl X' bl' → ab bl' ≢ ab bl → ab bl' < Sp.P c → wp bl (ab bl) ≡ Z →
           cv G ≡ nothing → T (gn G) (0 ∷ usedOf c G X bl) → Unclassed G (ab bl) →
           LStepT (G , X , bl) (record G { us = us G [ ab bl ≔ true ] } , X' , bl')
    -- the full open block retired in the ghost alone (Space's `act`: the
    -- block layer opens a block only with the sector it places there),
    -- when a free block below P is there for Space to open
    lret : ∀ {G X bl kn} → wp bl (ab bl) ≡ Z → Unclassed G (ab bl) → fr bl kn ≡ true → kn < Sp.P c →
           LStepT (G , X , bl) (record G { us = us G [ ab bl ≔ true ] } , X , bl)
    -- a write that opens a free block below P once the open block is
    -- retired (GC asked of the used blocks, the retired one among them)
    -- or free
    lwr  : ∀ {G X X' bl bl' a dd} → OkW a dd X bl X' bl' → ab bl' ≢ ab bl → ab bl' < Sp.P c →
           Leave G bl → cv G ≡ nothing → T (gn G) (usedOf c G X bl) →
           LStepT (G , X , bl) (G , X' , bl')
    lfl  : ∀ {G X X' bl bl'} → SB.Model.ok BXone (SB.use SB.flush) (X , bl) (X' , bl') →
           cv G ≡ nothing → T (gn G) (usedOf c G X bl) →
           LStepT (G , X , bl) (endEp G , X' , bl')
    lbar : ∀ {G X X' bl bl'} → SB.Model.ok BXone (SB.use (SB.reg SB.barrier)) (X , bl) (X' , bl') →
           cv G ≡ nothing → T (gn G) (usedOf c G X bl) →
           LStepT (G , X , bl) (endEp G , X' , bl')
    lsy  : ∀ {G X X' bl bl'} → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.sy))) (X , bl) (X' , bl') →
           LStepT (G , X , bl) (G , X' , bl')
    lera : ∀ {G X X' bl bl'} (o : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , bl')) →
           es G (proj₁ o) ≡ true → proj₁ o < Sp.P c →
           LStepT (G , X , bl) (record G { es = es G [ proj₁ o ≔ false ] } , X' , bl')
    lgcm : ∀ {G X bl k} → cv G ≡ nothing → us G k ≡ true → k < Sp.P c → gn G < Sp.K c →
           Sp.U c ≤ length (usedOf c G X bl) → vc X bl k ≤ Sp.N c →
           LStepT (G , X , bl)
                 (record G { us = us G [ k ≔ false ] ; vi = vi G [ k ≔ true ] ; cv = just k ; gn = suc (gn G) } , X , bl)
    lrl  : ∀ {G X X' bl bl' k} → cv G ≡ just k → OkR X bl X' bl' → ab bl' ≡ ab bl → FromVictim k X bl X' →
           Walk k X bl X' → OpenOK G bl bl' →
           LStepT (G , X , bl) (G , X' , bl')
    lrla : ∀ {G X X' bl bl' k} → cv G ≡ just k → OkR X bl X' bl' → ab bl' ≢ ab bl → ab bl' < Sp.P c →
           wp bl (ab bl) ≡ Z → FromVictim k X bl X' → Walk k X bl X' → Unclassed G (ab bl) →
           LStepT (G , X , bl) (record G { us = us G [ ab bl ≔ true ] } , X' , bl')
    lrlr : ∀ {G X X' bl bl' k} → cv G ≡ just k → OkR X bl X' bl' → ab bl' ≢ ab bl → ab bl' < Sp.P c →
           FromVictim k X bl X' → Walk k X bl X' → Leave G bl →
           LStepT (G , X , bl) (G , X' , bl')
    ldone : ∀ {G X bl k} → cv G ≡ just k → vc X bl k ≡ 0 → Relocated X bl k →
            LStepT (G , X , bl) (record G { cv = nothing } , X , bl)

-- the code's: GC not needed (gc.rs `gc_needed` false: fewer than U used
-- blocks, or the epoch's K victims taken); a write that opens a block
-- asks it of the used blocks with the retired one among them
LStep : Sp.Config → LS → LS → Set
LStep c = LStepT c (Sp.NotNeeded c)

------------------------------------------------------------------------
-- The invariant

-- where a valid sector may lie: the open block, a used block below P,
-- the current victim
In : Sp.Config → Gh → BL → ℕ → Set
In c G bl j = j ≡ ab bl ⊎ (us G j ≡ true × j < Sp.P c) ⊎ cv G ≡ just j

Placed : Sp.Config → Gh → XS → BL → Set
Placed c G X bl = ∀ j → vc X bl j ≡ 0 ⊎ In c G bl j

record Run (c : Sp.Config) (s : LS) : Set where
  G = proj₁ s
  X = proj₁ (proj₂ s)
  bl = proj₂ (proj₂ s)
  field
    d      : StD
    reach  : ReachD c d
    abs    : Abs c G X bl d
    placed : Placed c G X bl
    frwp   : FrWp bl
    locx   : LocX X bl
    ri     : OBX.RI (X , bl)

-- before the first write of a new disk: the open block is still free
record Fresh (c : Sp.Config) (s : LS) : Set where
  G = proj₁ s
  X = proj₁ (proj₂ s)
  bl = proj₂ (proj₂ s)
  field
    d     : StD
    reach : ReachD c d
    abs   : Abs c G X (Opened bl (ab bl)) d
    abFr  : fr bl (ab bl) ≡ true
    abWp  : wp bl (ab bl) ≡ 0
    noUs  : ∀ j → us G j ≡ false
    noEs  : ∀ j → es G j ≡ false
    noVi  : ∀ j → vi G j ≡ false
    noCv  : cv G ≡ nothing
    none  : ∀ j → vc X bl j ≡ 0
    frwp  : FrWp bl
    locx  : LocX X bl
    ri    : OBX.RI (X , bl)

-- the open block retired in the ghost alone (after `lret`): Space has
-- opened a free block `kn` (SpaceSim's `activate`, the abstraction of
-- `Opened bl kn`), which any free block may stand for (SpaceSimRetire's
-- `reopen`); the block layer's open block is in one of the ghost's
-- classes (used, then maybe a victim, erasable), or erased and free
-- again (until the thirty-fifth session it had to be full when in a
-- class: a recovery's open block, abandoned with room left, had no
-- place)
record Retired (c : Sp.Config) (s : LS) : Set where
  G = proj₁ s
  X = proj₁ (proj₂ s)
  bl = proj₂ (proj₂ s)
  field
    d      : StD
    reach  : ReachD c d
    kn     : ℕ
    knFr   : fr bl kn ≡ true
    abs    : Abs c G X (Opened bl kn) d
    placed : Placed c G X (Opened bl kn)
    abP    : ab bl < Sp.P c
    abC    : fr bl (ab bl) ≡ true ⊎ Classed G (ab bl)
    frwp   : FrWp bl
    locx   : LocX X bl
    ri     : OBX.RI (X , bl)

LInv : Sp.Config → LS → Set
LInv c s = Fresh c s ⊎ Run c s ⊎ Retired c s

runI : ∀ {c s} → Run c s → LInv c s
runI R = inj₂ (inj₁ R)

retI : ∀ {c s} → Retired c s → LInv c s
retI R = inj₂ (inj₂ R)

-- BXone's invariant, in each of the three states
ri-of : ∀ {c G X bl} → LInv c (G , X , bl) → OBX.RI (X , bl)
ri-of (inj₁ F) = Fresh.ri F
ri-of (inj₂ (inj₁ R)) = Run.ri R
ri-of (inj₂ (inj₂ Rt)) = Retired.ri Rt

private
  Z≢0 : Z ≢ 0
  Z≢0 ()

-- a block in a class is not in none
clash : ∀ {G k} → Classed G k → Unclassed G k → ⊥
clash (inj₁ u) (nu , _ , _) = t→¬f u nu
clash (inj₂ (inj₁ v)) (_ , nv , _) = t→¬f v nv
clash (inj₂ (inj₂ e)) (_ , _ , ne) = t→¬f e ne

-- a retired state's open block, when full, is in one of the classes (it
-- is free otherwise, at write pointer 0)
ret-unc : ∀ {c G X bl} → Retired c (G , X , bl) → wp bl (ab bl) ≡ Z → Unclassed G (ab bl) → ⊥
ret-unc {c} {G} {X} {bl} Rt full uncl with Retired.abC Rt
... | inj₁ f = Z≢0 (trans (sym full) (Retired.frwp Rt (ab bl) f))
... | inj₂ cls = clash {G} {ab bl} cls uncl

private
  ∨-r : ∀ a {b} → b ≡ true → (a ∨ b) ≡ true
  ∨-r true  _ = refl
  ∨-r false e = e

  ∨-l : ∀ {a} b → a ≡ true → (a ∨ b) ≡ true
  ∨-l b refl = refl

-- an epoch's end keeps a block in a class (a victim becomes erasable)
cls-end : ∀ {G k} → Classed G k → Classed (endEp G) k
cls-end (inj₁ u) = inj₁ u
cls-end {G} {k} (inj₂ (inj₁ v)) = inj₂ (inj₂ (∨-r (es G k) v))
cls-end {G} {k} (inj₂ (inj₂ e)) = inj₂ (inj₂ (∨-l (vi G k) e))

-- ... and so does GC's choice of a victim (the victim becomes one)
cls-gc : ∀ {G k j} → Classed G j →
         Classed (record G { us = us G [ k ≔ false ] ; vi = vi G [ k ≔ true ] ; cv = just k ; gn = suc (gn G) }) j
cls-gc {G} {k} {j} x with j ≟ℕ k
... | yes refl = inj₂ (inj₁ (upd-self (vi G) j true))
... | no ne with x
...   | inj₁ u = inj₁ (trans (upd-ne (us G) j k false ne) u)
...   | inj₂ (inj₁ v) = inj₂ (inj₁ (trans (upd-ne (vi G) j k true ne) v))
...   | inj₂ (inj₂ e) = inj₂ (inj₂ e)

------------------------------------------------------------------------
-- Counts

private
  no1≤0 : 1 ≤ 0 → ⊥
  no1≤0 ()

  -- an epoch's end with no erasable block and no victim leaves none
  ends : ∀ {x y} → x ≡ false → y ≡ false → (x ∨ y) ≡ false
  ends refl refl = refl

  -- a count a move does not raise: every block but the one written into
  mv-zero : ∀ {v v' : ℕ → ℕ} {old kn j} → MoveEq v v' old kn → kn ≢ j → v j ≡ 0 → v' j ≡ 0
  mv-zero {v} {v'} {old} {kn} {j} mv nj z =
    m+n≡0⇒m≡0 (v' j) (trans (mv j) (trans (cong (λ x → x + b2n (kn Data.Nat.Base.≡ᵇ j)) z) (b2n-ne kn j nj)))

  placed-move : ∀ {v v' : ℕ → ℕ} {old kn} {I I' : ℕ → Set} → MoveEq v v' old kn → I' kn →
                (∀ j → I j → v' j ≡ 0 ⊎ I' j) → (∀ j → v j ≡ 0 ⊎ I j) → ∀ j → v' j ≡ 0 ⊎ I' j
  placed-move {v} {v'} {old} {kn} mv ikn f p j with p j
  ... | inj₂ ij = f j ij
  ... | inj₁ z with kn ≟ℕ j
  ...   | yes refl = inj₂ ikn
  ...   | no nj    = inj₁ (mv-zero {v} {v'} {old} {kn} {j} mv nj z)

  placed-keep : ∀ {v v' : ℕ → ℕ} {I I' : ℕ → Set} → (∀ j → v' j ≡ v j) →
                (∀ j → I j → v' j ≡ 0 ⊎ I' j) → (∀ j → v j ≡ 0 ⊎ I j) → ∀ j → v' j ≡ 0 ⊎ I' j
  placed-keep keep f p j with p j
  ... | inj₁ z  = inj₁ (trans (keep j) z)
  ... | inj₂ ij = f j ij

-- a block's pages do not depend on which block is open or free
owners-op : ∀ bl kn k → owners (Opened bl kn) k ≡ owners bl k
owners-op bl kn k = go (wp bl k)
  where
  go : ∀ n → ownersB (Opened bl kn) k n ≡ ownersB bl k n
  go zero    = refl
  go (suc n) = cong (consM (own bl k n)) (go n)

-- with no victim pending, every mapped page lies in the open block or a
-- used one (SpaceSim's `OldIn`)
old-of : ∀ {c G X bl} → Placed c G X bl → cv G ≡ nothing → OldIn c (us G) X bl
old-of {c} {G} {X} {bl} p nocv b q le e with p (proj₁ (loc bl q))
... | inj₁ z = ⊥-elim (no1≤0 (subst (1 ≤_) z (vc-pos X bl b q le e)))
... | inj₂ (inj₁ e0) = inj₁ e0
... | inj₂ (inj₂ (inj₁ u)) = inj₂ u
... | inj₂ (inj₂ (inj₂ e0)) = ⊥-elim (nothing≢just (trans (sym nocv) e0))

-- with no valid sector anywhere, nothing is mapped
old-none : ∀ {c us X bl} → (∀ j → vc X bl j ≡ 0) → OldIn c us X bl
old-none {c} {us} {X} {bl} z b q le e = ⊥-elim (no1≤0 (subst (1 ≤_) (z (proj₁ (loc bl q))) (vc-pos X bl b q le e)))

------------------------------------------------------------------------
-- Every step keeps the invariant

module _ {c : Sp.Config} (eL : Sp.L c ≡ suc amax) (eW : Sp.W c ≡ suc wmax) (eS : Sp.S c ≡ Z) where

  private
    -- the abstract run grows by a step or a run
    grow1 : ∀ {d d'} → ReachD c d → StepD c d d' → ReachD c d'
    grow1 r st = r ◅◅ (st ◅ ε)

    riX : ∀ {X bl} → OBX.RI (X , bl) → OPX.RI X
    riX = proj₁

    -- the open block and the used blocks keep their place when a step
    -- keeps the open block and the ghost
    in-same : ∀ {G bl bl'} → ab bl' ≡ ab bl → ∀ j → In c G bl j → In c G bl' j
    in-same e j (inj₁ ej) = inj₁ (trans ej (sym e))
    in-same e j (inj₂ x)  = inj₂ x

    -- ... and when a full open block becomes a used one
    in-act : ∀ {G bl bl'} → ab bl < Sp.P c → ∀ j → In c G bl j → In c (record G { us = us G [ ab bl ≔ true ] }) bl' j ⊎ j ≡ ab bl'
    in-act {G} {bl} abP j (inj₁ refl) = inj₁ (inj₂ (inj₁ (upd-self (us G) j true , abP)))
    in-act {G} {bl} abP j (inj₂ (inj₁ (u , lt))) with j ≟ℕ ab bl
    ... | yes refl = inj₁ (inj₂ (inj₁ (upd-self (us G) j true , lt)))
    ... | no ne    = inj₁ (inj₂ (inj₁ (trans (upd-ne (us G) j (ab bl) true ne) u , lt)))
    in-act abP j (inj₂ (inj₂ e)) = inj₁ (inj₂ (inj₂ e))

    -- the new open block holds what the step moved; the others keep their place
    act-f : ∀ {G bl bl'} {v' : ℕ → ℕ} → ab bl < Sp.P c → ∀ j → In c G bl j →
            v' j ≡ 0 ⊎ In c (record G { us = us G [ ab bl ≔ true ] }) bl' j
    act-f {G} {bl} {bl'} abP j i with in-act {G} {bl} {bl'} abP j i
    ... | inj₁ i' = inj₂ i'
    ... | inj₂ e  = inj₂ (inj₁ e)

    -- the open block of a running state is in none of the ghost's
    -- classes, and not free
    unc : ∀ {G X bl d} {A : Set} → Abs c G X bl d → Classed G (ab bl) → A
    unc I (inj₁ u) = t→¬f u (Abs.abU I)
    unc I (inj₂ (inj₁ v)) = t→¬f v (Abs.abV I)
    unc I (inj₂ (inj₂ e)) = t→¬f e (Abs.abE I)

    run-leave : ∀ {G X bl d} {A : Set} → Abs c G X bl d → Leave G bl → A
    run-leave I (inj₁ cls) = unc I cls
    run-leave I (inj₂ f) = t→¬f f (Abs.abF I)

    -- GC's guards on the abstraction
    nnA : ∀ {G X bl d} → Abs c G X bl d → Sp.NotNeeded c (gn G) (usedOf c G X bl) → Sp.NotNeeded c (gcD d) (vsD d)
    nnA I (inj₁ k) = inj₁ (subst (Sp.K c ≤_) (sym (Abs.gcA I)) k)
    nnA I (inj₂ u) = inj₂ (subst (λ l → length l < Sp.U c) (sym (Abs.vsA I)) u)

  ----------------------------------------------------------------------
  -- from a running state

  run-step : ∀ {s s'} → Run c s → LStep c s s' → LInv c s'
  run-step {G , X , bl} R (lw {X' = X'} {bl' = bl'} {a} {dd} o stay nocv nn _) = runI record
    { d = proj₁ S1 ; reach = reach1 ; abs = abs1
    ; placed = placed1 (vc-w a dd {X} {X'} (riX {X} {bl} (Run.ri R)) o)
    ; frwp = frwp-ok (SB.use (SB.reg (SB.op (SB.w a dd)))) (Run.frwp R) o
    ; locx = loc-ok (SB.reg (SB.op (SB.w a dd))) (riX {X} {bl} (Run.ri R)) (Run.locx R) o
    ; ri = OBX.B-ok (SB.reg (SB.op (SB.w a dd))) (Run.ri R) o }
    where
    I = Run.abs R
    nn′ = nnA {G} {X} {bl} {Run.d R} I nn
    S0 = sim-w {c} {G} {X} {X'} {bl} {bl'} {Run.d R} {a} {dd} eL eW eS (riX {X} {bl} (Run.ri R)) I (old-of {c} {G} {X} {bl} (Run.placed R) nocv) nocv nn′ o stay
    S1 : Σ StD λ d' → ReachD c d' × Abs c G X' bl' d'
    S1 with S0
    ... | inj₁ (d' , st , I') = d' , grow1 (Run.reach R) st , I'
    ... | inj₂ I' = Run.d R , Run.reach R , I'
    reach1 = proj₁ (proj₂ S1)
    abs1 = proj₂ (proj₂ S1)
    placed1 : _ → Placed c G X' bl'
    placed1 (inj₁ (refl , _ , keep)) = placed-keep keep (λ j i → inj₂ i) (Run.placed R)
    placed1 (inj₂ ((b , le , _ , kn , refl , _ , _ , mv) , _)) =
      placed-move mv (inj₁ refl) (λ j i → inj₂ (in-same {G} {bl} {bl'} stay j i)) (Run.placed R)
  run-step {G , X , bl} R (lwa {X' = X'} {bl' = bl'} {a} {dd} o moved kP full nocv nn _) = runI record
    { d = proj₁ S0 ; reach = Run.reach R ◅◅ proj₁ (proj₂ S0) ; abs = proj₂ (proj₂ S0)
    ; placed = placed1 (vc-w a dd {X} {X'} (riX {X} {bl} (Run.ri R)) o)
    ; frwp = frwp-ok (SB.use (SB.reg (SB.op (SB.w a dd)))) (Run.frwp R) o
    ; locx = loc-ok (SB.reg (SB.op (SB.w a dd))) (riX {X} {bl} (Run.ri R)) (Run.locx R) o
    ; ri = OBX.B-ok (SB.reg (SB.op (SB.w a dd))) (Run.ri R) o }
    where
    I = Run.abs R
    G' = record G { us = us G [ ab bl ≔ true ] }
    conv : Sp.K c ≤ gn G ⊎ suc (length (usedOf c G X bl)) < Sp.U c →
           Sp.K c ≤ gcD (Run.d R) ⊎ suc (length (vsD (Run.d R))) < Sp.U c
    conv (inj₁ k) = inj₁ (subst (Sp.K c ≤_) (sym (Abs.gcA I)) k)
    conv (inj₂ u) = inj₂ (subst (λ l → suc (length l) < Sp.U c) (sym (Abs.vsA I)) u)
    nn′ = conv nn
    S0 = sim-act {c} {G} {X} {X'} {bl} {bl'} {Run.d R} {a} {dd} eL eW eS (riX {X} {bl} (Run.ri R)) (Run.locx R) (Run.frwp R) I
           (old-of {c} {G} {X} {bl} (Run.placed R) nocv) nocv nn′ o moved kP full
    placed1 : _ → Placed c G' X' bl'
    placed1 (inj₁ (refl , _ , _)) = ⊥-elim (moved refl)
    placed1 (inj₂ ((b , le , _ , kn , refl , _ , _ , mv) , _)) =
      placed-move mv (inj₁ refl) (act-f {G} {bl} {bl'} (Abs.abP I)) (Run.placed R)
  run-step {G , X , bl} R (lfl {X' = X'} {bl' = bl'} o nocv nn) = runI record
    { d = proj₁ S0 ; reach = grow1 (Run.reach R) (proj₁ (proj₂ S0)) ; abs = proj₂ (proj₂ S0)
    ; placed = placed-keep (vc-flush {X} {X'} {bl} {bl'} o) (λ j i → inj₂ (in-same {G} {bl} {bl'} (cong ab (proj₂ o)) j i)) (Run.placed R)
    ; frwp = frwp-ok (SB.use SB.flush) (Run.frwp R) o
    ; locx = loc-ok SB.flush (riX {X} {bl} (Run.ri R)) (Run.locx R) o
    ; ri = OBX.B-ok SB.flush (Run.ri R) o }
    where
    I = Run.abs R
    S0 = sim-fl {c} {G} {X} {X'} {bl} {bl'} {Run.d R} I nocv
           (nnA {G} {X} {bl} {Run.d R} I nn) o
  run-step {G , X , bl} R (lbar {X' = X'} {bl' = bl'} o nocv nn) = runI record
    { d = proj₁ S0 ; reach = grow1 (Run.reach R) (proj₁ (proj₂ S0)) ; abs = proj₂ (proj₂ S0)
    ; placed = placed-keep (vc-barrier {X} {X'} {bl} {bl'} o) (λ j i → inj₂ (in-same {G} {bl} {bl'} (cong ab (proj₂ o)) j i)) (Run.placed R)
    ; frwp = frwp-ok (SB.use (SB.reg SB.barrier)) (Run.frwp R) o
    ; locx = loc-ok (SB.reg SB.barrier) (riX {X} {bl} (Run.ri R)) (Run.locx R) o
    ; ri = OBX.B-ok (SB.reg SB.barrier) (Run.ri R) o }
    where
    I = Run.abs R
    S0 = sim-barrier {c} {G} {X} {X'} {bl} {bl'} {Run.d R} I nocv
           (nnA {G} {X} {bl} {Run.d R} I nn) o
  run-step {G , X , bl} R (lsy {X' = X'} {bl' = bl'} o) = runI record
    { d = Run.d R ; reach = Run.reach R ; abs = sim-sy {c} {G} {X} {X'} {bl} {bl'} (Run.abs R) o
    ; placed = placed-keep (vc-sy {X} {X'} {bl} {bl'} o) (λ j i → inj₂ (in-same {G} {bl} {bl'} (cong ab (proj₂ o)) j i)) (Run.placed R)
    ; frwp = frwp-ok (SB.use (SB.reg (SB.op SB.sy))) (Run.frwp R) o
    ; locx = loc-ok (SB.reg (SB.op SB.sy)) (riX {X} {bl} (Run.ri R)) (Run.locx R) o
    ; ri = OBX.B-ok (SB.reg (SB.op SB.sy)) (Run.ri R) o }
  run-step {G , X , bl} R (lera {X' = X'} {bl' = .(berase k bl)} (k , rn , refl) esk kP) = runI record
    { d = proj₁ S0 ; reach = grow1 (Run.reach R) (proj₁ (proj₂ S0)) ; abs = proj₂ (proj₂ S0)
    ; placed = placed-keep keep (λ j i → inj₂ i) (Run.placed R)
    ; frwp = frwp-ok (SB.use (SB.reg (SB.op SB.es))) (Run.frwp R) o
    ; locx = loc-ok (SB.reg (SB.op SB.es)) (riX {X} {bl} (Run.ri R)) (Run.locx R) o
    ; ri = OBX.B-ok (SB.reg (SB.op SB.es)) (Run.ri R) o }
    where
    o : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , berase k bl)
    o = k , rn , refl
    S0 = sim-era {c} {G} {X} {X'} {bl} {berase k bl} {Run.d R} (riX {X} {bl} (Run.ri R)) (Run.locx R) (Run.abs R) o esk kP
    keep : ∀ j → vc X' (berase k bl) j ≡ vc X bl j
    keep = proj₁ (proj₂ (proj₂ (proj₂ (vc-erase {X} {X'} {bl} {berase k bl} (riX {X} {bl} (Run.ri R)) (Run.locx R) o))))
  run-step {G , X , bl} R (lgcm {k = k} nocv usk kP gk uL vN) = runI record
    { d = proj₁ S0 ; reach = grow1 (Run.reach R) (proj₁ (proj₂ S0)) ; abs = proj₂ (proj₂ S0)
    ; placed = placed-keep (λ _ → refl) f (Run.placed R)
    ; frwp = Run.frwp R ; locx = Run.locx R ; ri = Run.ri R }
    where
    I = Run.abs R
    G' = record G { us = us G [ k ≔ false ] ; vi = vi G [ k ≔ true ] ; cv = just k ; gn = suc (gn G) }
    S0 = sim-gcm {c} {G} {X} {bl} {Run.d R} {k} I nocv usk kP (subst (_< Sp.K c) (sym (Abs.gcA I)) gk)
           (subst (λ l → Sp.U c ≤ length l) (sym (Abs.vsA I)) uL) vN
    f : ∀ j → In c G bl j → vc X bl j ≡ 0 ⊎ In c G' bl j
    f j (inj₁ e) = inj₂ (inj₁ e)
    f j (inj₂ (inj₁ (u , lt))) with j ≟ℕ k
    ... | yes refl = inj₂ (inj₂ (inj₂ refl))
    ... | no ne    = inj₂ (inj₂ (inj₁ (trans (upd-ne (us G) j k false ne) u , lt)))
    f j (inj₂ (inj₂ e)) = ⊥-elim (nothing≢just (trans (sym nocv) e))
  run-step {G , X , bl} R (lrl {X' = X'} {bl' = bl'} {k} cvk o stay pol _ _) = runI record
    { d = proj₁ S1 ; reach = proj₁ (proj₂ S1) ; abs = proj₂ (proj₂ S1)
    ; placed = placed1 (vc-rl {X} {X'} (riX {X} {bl} (Run.ri R)) o)
    ; frwp = frwp-ok (SB.use (SB.reg (SB.op SB.rl))) (Run.frwp R) o
    ; locx = loc-ok (SB.reg (SB.op SB.rl)) (riX {X} {bl} (Run.ri R)) (Run.locx R) o
    ; ri = OBX.B-ok (SB.reg (SB.op SB.rl)) (Run.ri R) o }
    where
    S1 : Σ StD λ d' → ReachD c d' × Abs c G X' bl' d'
    S1 with sim-rl {c} {G} {X} {X'} {bl} {bl'} {Run.d R} {k} eS (riX {X} {bl} (Run.ri R)) (Run.abs R) cvk o stay pol
    ... | inj₁ (d' , st , I') = d' , grow1 (Run.reach R) st , I'
    ... | inj₂ I' = Run.d R , Run.reach R , I'
    placed1 : _ → Placed c G X' bl'
    placed1 (inj₁ (refl , _ , keep)) = placed-keep keep (λ j i → inj₂ i) (Run.placed R)
    placed1 (inj₂ ((b , le , _ , kn , refl , _ , _ , mv) , _)) =
      placed-move mv (inj₁ refl) (λ j i → inj₂ (in-same {G} {bl} {bl'} stay j i)) (Run.placed R)
  run-step {G , X , bl} R (lrla {X' = X'} {bl' = bl'} {k} cvk o moved kP full pol _ _) = runI record
    { d = proj₁ S0 ; reach = Run.reach R ◅◅ proj₁ (proj₂ S0) ; abs = proj₂ (proj₂ S0)
    ; placed = placed1 (vc-rl {X} {X'} (riX {X} {bl} (Run.ri R)) o)
    ; frwp = frwp-ok (SB.use (SB.reg (SB.op SB.rl))) (Run.frwp R) o
    ; locx = loc-ok (SB.reg (SB.op SB.rl)) (riX {X} {bl} (Run.ri R)) (Run.locx R) o
    ; ri = OBX.B-ok (SB.reg (SB.op SB.rl)) (Run.ri R) o }
    where
    G' = record G { us = us G [ ab bl ≔ true ] }
    S0 = sim-rl-act {c} {G} {X} {X'} {bl} {bl'} {Run.d R} {k} eS (riX {X} {bl} (Run.ri R)) (Run.locx R) (Run.frwp R) (Run.abs R)
           cvk o moved kP full pol
    placed1 : _ → Placed c G' X' bl'
    placed1 (inj₁ (refl , _ , _)) = ⊥-elim (moved refl)
    placed1 (inj₂ ((b , le , _ , kn , refl , _ , _ , mv) , _)) =
      placed-move mv (inj₁ refl) (act-f {G} {bl} {bl'} (Abs.abP (Run.abs R))) (Run.placed R)
  run-step {G , X , bl} R (ldone {k = k} cvk z _) = runI record
    { d = Run.d R ; reach = Run.reach R
    ; abs = sim-done {c} {G} {X} {bl} {Run.d R} {k} (Run.abs R) cvk (trans (Abs.pdA (Run.abs R)) (trans (cong (pendOf X bl) cvk) z))
    ; placed = placed-keep (λ _ → refl) f (Run.placed R)
    ; frwp = Run.frwp R ; locx = Run.locx R ; ri = Run.ri R }
    where
    f : ∀ j → In c G bl j → vc X bl j ≡ 0 ⊎ In c (record G { cv = nothing }) bl j
    f j (inj₁ e) = inj₂ (inj₁ e)
    f j (inj₂ (inj₁ u)) = inj₂ (inj₂ (inj₁ u))
    f j (inj₂ (inj₂ e)) with trans (sym cvk) e
    ... | refl = inj₁ z

  -- the full open block retired in the ghost: Space's activation of a
  -- free block (SpaceSim's `activate`)
  run-step {G , X , bl} R (lret {kn = kn} full uncl frk kP) = retI record
    { d = proj₁ A ; reach = grow1 (Run.reach R) (proj₁ (proj₂ A)) ; kn = kn ; knFr = frk
    ; abs = proj₁ (proj₂ (proj₂ A))
    ; placed = placed-keep {vc X bl} {vc X bl} (λ _ → refl) (act-f {G} {bl} {Opened bl kn} {vc X bl} (Abs.abP I)) (Run.placed R)
    ; abP = Abs.abP I
    ; abC = inj₂ (inj₁ (upd-self (us G) (ab bl) true))
    ; frwp = Run.frwp R ; locx = Run.locx R ; ri = Run.ri R }
    where
    I = Run.abs R
    A = activate {c} {G} {X} {bl} {Run.d R} {kn} (Run.locx R) (Run.frwp R) I frk kP (trans full (sym eS))
  run-step R (lwr o moved kP lv nocv nn) = run-leave (Run.abs R) lv
  run-step R (lrlr cvk o moved kP pol _ lv) = run-leave (Run.abs R) lv

  ----------------------------------------------------------------------
  -- from a state before the first write

  private
    -- no block is in a class yet
    fresh-unc : ∀ {G X bl k} {A : Set} → Fresh c (G , X , bl) → Classed G k → A
    fresh-unc {k = k} F (inj₁ u) = t→¬f u (Fresh.noUs F k)
    fresh-unc {k = k} F (inj₂ (inj₁ v)) = t→¬f v (Fresh.noVi F k)
    fresh-unc {k = k} F (inj₂ (inj₂ e)) = t→¬f e (Fresh.noEs F k)

  fresh-step : ∀ {s s'} → Fresh c s → LStep c s s' → LInv c s'
  fresh-step {G , X , bl} F (lw {X' = X'} {bl' = bl'} {a} {dd} o stay nocv nn _) = go (vc-w a dd {X} {X'} (riX {X} {bl} (Fresh.ri F)) o) stay
    where
    I = Fresh.abs F
    frwp′ = frwp-ok (SB.use (SB.reg (SB.op (SB.w a dd)))) (Fresh.frwp F) o
    locx′ = loc-ok (SB.reg (SB.op (SB.w a dd))) (riX {X} {bl} (Fresh.ri F)) (Fresh.locx F) o
    ri′ = OBX.B-ok (SB.reg (SB.op (SB.w a dd))) (Fresh.ri F) o
    go : _ → ab bl' ≡ ab bl → LInv c (G , X' , bl')
    -- refused: still before the first write
    go (inj₁ (refl , wc , keep)) _ = inj₁ record
      { d = Fresh.d F ; reach = Fresh.reach F
      ; abs = kept {c} {G} {X} {X'} {Opened bl (ab bl)} {Fresh.d F} I keep wc
      ; abFr = Fresh.abFr F ; abWp = Fresh.abWp F
      ; noUs = Fresh.noUs F ; noEs = Fresh.noEs F ; noVi = Fresh.noVi F ; noCv = Fresh.noCv F
      ; none = λ j → trans (keep j) (Fresh.none F j)
      ; frwp = frwp′ ; locx = locx′ ; ri = ri′ }
    -- the first allocation takes the open block off the free ones
    go (inj₂ ((b , le , _ , kn , refl , _ , wlt , mv) , wc , wb)) refl = runI record
      { d = proj₁ W1 ; reach = grow1 (Fresh.reach F) (proj₁ (proj₂ W1)) ; abs = proj₂ (proj₂ W1)
      ; placed = placed-move mv (inj₁ refl) (λ j i → inj₂ (in-same {G} {bl} {bl'} refl j i)) (λ j → inj₁ (Fresh.none F j))
      ; frwp = frwp′ ; locx = locx′ ; ri = ri′ }
      where
      W1 = core-w {c} {G} {X} {X'} {Opened bl kn} {bl'} {Fresh.d F} {b} eL eW I (old-none {c} {us G} {X} {bl} (Fresh.none F)) nocv
             (nnA {G} {X} {Opened bl kn} {Fresh.d F} I nn) le mv (subst (wp bl kn <_) (sym eS) wlt)
             (after-opened bl kn (nxt (stX X))) wc wb
  fresh-step F (lwa o moved kP full nocv nn _) = ⊥-elim (Z≢0 (trans (sym full) (Fresh.abWp F)))
  fresh-step {G , X , bl} F (lfl {X' = X'} (o , refl) nocv nn) = inj₁ record
    { d = proj₁ S0 ; reach = grow1 (Fresh.reach F) (proj₁ (proj₂ S0)) ; abs = proj₂ (proj₂ S0)
    ; abFr = Fresh.abFr F ; abWp = Fresh.abWp F
    ; noUs = Fresh.noUs F ; noEs = λ j → ends (Fresh.noEs F j) (Fresh.noVi F j) ; noVi = λ _ → refl ; noCv = Fresh.noCv F
    ; none = λ j → trans (vc-flush {X} {X'} {bl} {bl} (o , refl) j) (Fresh.none F j)
    ; frwp = Fresh.frwp F ; locx = loc-ok SB.flush {X} {X'} {bl} {bl} (riX {X} {bl} (Fresh.ri F)) (Fresh.locx F) (o , refl)
    ; ri = OBX.B-ok SB.flush {X , bl} {X' , bl} (Fresh.ri F) (o , refl) }
    where
    I = Fresh.abs F
    S0 = sim-fl {c} {G} {X} {X'} {Opened bl (ab bl)} {Opened bl (ab bl)} {Fresh.d F} I nocv
           (nnA {G} {X} {Opened bl (ab bl)} {Fresh.d F} I nn) (o , refl)
  fresh-step {G , X , bl} F (lbar {X' = X'} (o , refl) nocv nn) = inj₁ record
    { d = proj₁ S0 ; reach = grow1 (Fresh.reach F) (proj₁ (proj₂ S0)) ; abs = proj₂ (proj₂ S0)
    ; abFr = Fresh.abFr F ; abWp = Fresh.abWp F
    ; noUs = Fresh.noUs F ; noEs = λ j → ends (Fresh.noEs F j) (Fresh.noVi F j) ; noVi = λ _ → refl ; noCv = Fresh.noCv F
    ; none = λ j → trans (vc-barrier {X} {X'} {bl} {bl} (o , refl) j) (Fresh.none F j)
    ; frwp = Fresh.frwp F ; locx = loc-ok (SB.reg SB.barrier) {X} {X'} {bl} {bl} (riX {X} {bl} (Fresh.ri F)) (Fresh.locx F) (o , refl)
    ; ri = OBX.B-ok (SB.reg SB.barrier) {X , bl} {X' , bl} (Fresh.ri F) (o , refl) }
    where
    I = Fresh.abs F
    S0 = sim-barrier {c} {G} {X} {X'} {Opened bl (ab bl)} {Opened bl (ab bl)} {Fresh.d F} I nocv
           (nnA {G} {X} {Opened bl (ab bl)} {Fresh.d F} I nn) (o , refl)
  fresh-step {G , X , bl} F (lsy {X' = X'} (o , refl)) = inj₁ record
    { d = Fresh.d F ; reach = Fresh.reach F
    ; abs = sim-sy {c} {G} {X} {X'} {Opened bl (ab bl)} {Opened bl (ab bl)} (Fresh.abs F) (o , refl)
    ; abFr = Fresh.abFr F ; abWp = Fresh.abWp F
    ; noUs = Fresh.noUs F ; noEs = Fresh.noEs F ; noVi = Fresh.noVi F ; noCv = Fresh.noCv F
    ; none = λ j → trans (vc-sy {X} {X'} {bl} {bl} (o , refl) j) (Fresh.none F j)
    ; frwp = Fresh.frwp F ; locx = loc-ok (SB.reg (SB.op SB.sy)) {X} {X'} {bl} {bl} (riX {X} {bl} (Fresh.ri F)) (Fresh.locx F) (o , refl)
    ; ri = OBX.B-ok (SB.reg (SB.op SB.sy)) {X , bl} {X' , bl} (Fresh.ri F) (o , refl) }
  fresh-step F (lera o esk kP) = t→¬f esk (Fresh.noEs F (proj₁ o))
  fresh-step F (lgcm {k = k} nocv usk kP gk uL vN) = t→¬f usk (Fresh.noUs F k)
  fresh-step F (lrl cvk o stay pol _ _) = ⊥-elim (nothing≢just (trans (sym (Fresh.noCv F)) cvk))
  fresh-step F (lrla cvk o moved kP full pol _ _) = ⊥-elim (nothing≢just (trans (sym (Fresh.noCv F)) cvk))
  fresh-step F (ldone cvk z _) = ⊥-elim (nothing≢just (trans (sym (Fresh.noCv F)) cvk))
  fresh-step F (lret full uncl frk kP) = ⊥-elim (Z≢0 (trans (sym full) (Fresh.abWp F)))
  fresh-step {G , X , bl} F (lwr o moved kP (inj₁ cls) nocv nn) = fresh-unc {G} {X} {bl} {ab bl} F cls
  -- the open block, free, left for another free block: it stands for
  -- Space's open block as well (SpaceSimRetire's `reopen`)
  fresh-step {G , X , bl} F (lwr {X' = X'} {bl' = bl'} {a} {dd} o moved kP (inj₂ _) nocv nn)
    with vc-w a dd {X} {X'} (riX {X} {bl} (Fresh.ri F)) o
  ... | inj₁ (refl , _ , _) = ⊥-elim (moved refl)
  ... | inj₂ ((b , le , _ , k' , refl , inj₁ e , _) , _) = ⊥-elim (moved e)
  ... | inj₂ ((b , le , _ , k' , refl , inj₂ frk , wlt , mv) , wc , wb) = runI record
    { d = proj₁ W1 ; reach = grow1 (Fresh.reach F) (proj₁ (proj₂ W1)) ; abs = proj₂ (proj₂ W1)
    ; placed = placed-move {I = λ _ → ⊥} {I' = In c G bl'} mv (inj₁ refl) (λ j ()) (λ j → inj₁ (Fresh.none F j))
    ; frwp = frwp-ok (SB.use (SB.reg (SB.op (SB.w a dd)))) (Fresh.frwp F) o
    ; locx = loc-ok (SB.reg (SB.op (SB.w a dd))) (riX {X} {bl} (Fresh.ri F)) (Fresh.locx F) o
    ; ri = OBX.B-ok (SB.reg (SB.op (SB.w a dd))) (Fresh.ri F) o }
    where
    I′ = reopen {c} {G} {X} {bl} {Fresh.d F} {ab bl} {k'} (Fresh.locx F) (Fresh.frwp F) (Fresh.abFr F) frk kP (Fresh.abs F)
    W1 = core-w {c} {G} {X} {X'} {Opened bl k'} {bl'} {Fresh.d F} {b} eL eW I′ (old-none {c} {us G} {X} {Opened bl k'} (Fresh.none F)) nocv
           (nnA {G} {X} {Opened bl k'} {Fresh.d F} I′ nn) le mv (subst (wp bl k' <_) (sym eS) wlt)
           (after-opened bl k' (nxt (stX X))) wc wb
  fresh-step F (lrlr cvk o moved kP pol _ lv) = ⊥-elim (nothing≢just (trans (sym (Fresh.noCv F)) cvk))

  ----------------------------------------------------------------------
  -- from a state whose full open block is retired in the ghost alone

  private
    -- the block a placement from a retired state takes is free: the old
    -- open block only once erased (a placement into the open block asks
    -- it in none of the ghost's classes)
    ret-free : ∀ {G X bl} (Rt : Retired c (G , X , bl)) → ∀ {k'} → (k' ≡ ab bl → Unclassed G k') → (k' ≡ ab bl ⊎ fr bl k' ≡ true) →
               fr bl k' ≡ true
    ret-free Rt _ (inj₂ f) = f
    ret-free {G} {X} {bl} Rt gd (inj₁ refl) with Retired.abC Rt
    ... | inj₁ f = f
    ... | inj₂ cls = ⊥-elim (clash {G} {ab bl} cls (gd refl))

    -- where the valid sectors lie once a placement took block k': Space's
    -- open block stood for it, and held none
    ret-placed : ∀ {G X X' bl bl' k' old} (Rt : Retired c (G , X , bl)) → ab bl' ≡ k' →
                 MoveEq (vc X bl) (vc X' bl') old k' → Placed c G X' bl'
    ret-placed {G} {X} {X'} {bl} {bl'} {k'} {old} Rt eab mv =
      placed-move {vc X bl} {vc X' bl'} {old} {k'} mv (inj₁ (sym eab)) f (Retired.placed Rt)
      where
      f : ∀ j → In c G (Opened bl (Retired.kn Rt)) j → vc X' bl' j ≡ 0 ⊎ In c G bl' j
      f j (inj₁ refl) with k' ≟ℕ j
      ... | yes refl = inj₂ (inj₁ (sym eab))
      ... | no ne = inj₁ (mv-zero {vc X bl} {vc X' bl'} {old} {k'} {j} mv ne
                            (vc-empty {X} {bl} {j} (Retired.locx Rt) (Retired.frwp Rt j (Retired.knFr Rt))))
      f j (inj₂ x) = inj₂ (inj₂ x)

    -- a write from a retired state: Space's write into its open block,
    -- which the block taken stands for
    ret-w : ∀ {G X X' bl a dd b k'} (Rt : Retired c (G , X , bl)) → cv G ≡ nothing →
            Sp.NotNeeded c (gn G) (usedOf c G X bl) →
            SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w a dd)))) (X , bl) (X' , balloc k' (nxt (stX X)) bl) →
            fr bl k' ≡ true → k' < Sp.P c → b ≤ amax →
            MoveEq (vc X bl) (vc X' (balloc k' (nxt (stX X)) bl)) (λ j → inBlk (loc bl) j (l2p (stX X) b)) k' →
            wp bl k' < Z → wcnt (stX X') ≡ suc (wcnt (stX X)) → wcnt (stX X) ≤ wmax →
            LInv c (G , X' , balloc k' (nxt (stX X)) bl)
    ret-w {G} {X} {X'} {bl} {a} {dd} {b} {k'} Rt nocv nn o frk kP' le mv wlt wc wb = runI record
      { d = proj₁ W ; reach = grow1 (Retired.reach Rt) (proj₁ (proj₂ W)) ; abs = proj₂ (proj₂ W)
      ; placed = ret-placed {G} {X} {X'} {bl} {balloc k' (nxt (stX X)) bl} {k'} Rt refl mv
      ; frwp = frwp-ok (SB.use (SB.reg (SB.op (SB.w a dd)))) (Retired.frwp Rt) o
      ; locx = loc-ok (SB.reg (SB.op (SB.w a dd))) (riX {X} {bl} (Retired.ri Rt)) (Retired.locx Rt) o
      ; ri = OBX.B-ok (SB.reg (SB.op (SB.w a dd))) (Retired.ri Rt) o }
      where
      kn = Retired.kn Rt
      I' = reopen {c} {G} {X} {bl} {Retired.d Rt} {kn} {k'} (Retired.locx Rt) (Retired.frwp Rt) (Retired.knFr Rt) frk kP' (Retired.abs Rt)
      old = old-ret {c} {G} {X} {bl} {kn} {k'} (Retired.locx Rt) (Retired.frwp Rt) (Retired.knFr Rt)
              (old-of {c} {G} {X} {Opened bl kn} (Retired.placed Rt) nocv)
      W = core-w {c} {G} {X} {X'} {Opened bl k'} {balloc k' (nxt (stX X)) bl} {Retired.d Rt} {b} eL eW I' old nocv
            (nnA {G} {X} {Opened bl kn} {Retired.d Rt} (Retired.abs Rt) nn) le mv (subst (wp bl k' <_) (sym eS) wlt)
            (after-opened bl k' (nxt (stX X))) wc wb

    -- ... and a relocation
    ret-rl : ∀ {G X X' bl k b k'} (Rt : Retired c (G , X , bl)) → cv G ≡ just k → FromVictim k X bl X' →
             SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , balloc k' (nxt (stX X)) bl) →
             fr bl k' ≡ true → k' < Sp.P c → b ≤ amax → l2p (stX X') b ≡ just (nxt (stX X)) →
             MoveEq (vc X bl) (vc X' (balloc k' (nxt (stX X)) bl)) (λ j → inBlk (loc bl) j (l2p (stX X) b)) k' →
             wp bl k' < Z → wcnt (stX X') ≡ wcnt (stX X) → LInv c (G , X' , balloc k' (nxt (stX X)) bl)
    ret-rl {G} {X} {X'} {bl} {k} {b} {k'} Rt cvk pol o frk kP' le eb mv wlt wc = runI record
      { d = proj₁ W ; reach = grow1 (Retired.reach Rt) (proj₁ (proj₂ W)) ; abs = proj₂ (proj₂ W)
      ; placed = ret-placed {G} {X} {X'} {bl} {balloc k' (nxt (stX X)) bl} {k'} Rt refl mv
      ; frwp = frwp-ok (SB.use (SB.reg (SB.op SB.rl))) (Retired.frwp Rt) o
      ; locx = loc-ok (SB.reg (SB.op SB.rl)) (riX {X} {bl} (Retired.ri Rt)) (Retired.locx Rt) o
      ; ri = OBX.B-ok (SB.reg (SB.op SB.rl)) (Retired.ri Rt) o }
      where
      I' = reopen {c} {G} {X} {bl} {Retired.d Rt} {Retired.kn Rt} {k'} (Retired.locx Rt) (Retired.frwp Rt) (Retired.knFr Rt) frk kP' (Retired.abs Rt)
      W = core-rl {c} {G} {X} {X'} {Opened bl k'} {balloc k' (nxt (stX X)) bl} {Retired.d Rt} {k} {b}
            (riX {X} {bl} (Retired.ri Rt)) I' cvk pol le eb mv (subst (wp bl k' <_) (sym eS) wlt) (after-opened bl k' (nxt (stX X))) wc

  retired-step : ∀ {s s'} → Retired c s → LStep c s s' → LInv c s'
  retired-step {G , X , bl} Rt (lw {X' = X'} {bl' = bl'} {a} {dd} o stay nocv nn uncl) with vc-w a dd {X} {X'} (riX {X} {bl} (Retired.ri Rt)) o
  ... | inj₁ (refl , wc , keep) = retI record
    { d = Retired.d Rt ; reach = Retired.reach Rt ; kn = Retired.kn Rt ; knFr = Retired.knFr Rt
    ; abs = kept {c} {G} {X} {X'} {Opened bl (Retired.kn Rt)} {Retired.d Rt} (Retired.abs Rt) keep wc
    ; placed = placed-keep keep (λ j i → inj₂ i) (Retired.placed Rt)
    ; abP = Retired.abP Rt ; abC = Retired.abC Rt
    ; frwp = frwp-ok (SB.use (SB.reg (SB.op (SB.w a dd)))) (Retired.frwp Rt) o
    ; locx = loc-ok (SB.reg (SB.op (SB.w a dd))) (riX {X} {bl} (Retired.ri Rt)) (Retired.locx Rt) o
    ; ri = OBX.B-ok (SB.reg (SB.op (SB.w a dd))) (Retired.ri Rt) o }
  ... | inj₂ ((b , le , _ , k' , refl , opens , wlt , mv) , wc , wb) =
    ret-w {G} {X} {X'} {bl} {a} {dd} {b} {k'} Rt nocv nn o (ret-free Rt (guard-open {X} {G} {bl} uncl k' refl) opens)
      (subst (_< Sp.P c) (sym stay) (Retired.abP Rt)) le mv wlt wc wb
  retired-step {G , X , bl} Rt (lwa o moved kP full nocv nn uncl) = ⊥-elim (ret-unc {c} {G} {X} {bl} Rt full uncl)
  retired-step {G , X , bl} Rt (lret full uncl frk kP) = ⊥-elim (ret-unc {c} {G} {X} {bl} Rt full uncl)
  retired-step {G , X , bl} Rt (lwr {X' = X'} {bl' = bl'} {a} {dd} o moved kP cls nocv nn)
    with vc-w a dd {X} {X'} (riX {X} {bl} (Retired.ri Rt)) o
  ... | inj₁ (refl , _ , _) = ⊥-elim (moved refl)
  ... | inj₂ ((b , le , _ , k' , refl , inj₁ e , _) , _) = ⊥-elim (moved e)
  ... | inj₂ ((b , le , _ , k' , refl , inj₂ frk , wlt , mv) , wc , wb) =
    ret-w {G} {X} {X'} {bl} {a} {dd} {b} {k'} Rt nocv nn o frk kP le mv wlt wc wb
  retired-step {G , X , bl} Rt (lfl {X' = X'} (o , refl) nocv nn) = retI record
    { d = proj₁ S0 ; reach = grow1 (Retired.reach Rt) (proj₁ (proj₂ S0)) ; kn = Retired.kn Rt ; knFr = Retired.knFr Rt
    ; abs = proj₂ (proj₂ S0)
    ; placed = placed-keep (vc-flush {X} {X'} {bl} {bl} (o , refl)) (λ j i → inj₂ i) (Retired.placed Rt)
    ; abP = Retired.abP Rt ; abC = map₂ (cls-end {G}) (Retired.abC Rt)
    ; frwp = Retired.frwp Rt ; locx = loc-ok SB.flush {X} {X'} {bl} {bl} (riX {X} {bl} (Retired.ri Rt)) (Retired.locx Rt) (o , refl)
    ; ri = OBX.B-ok SB.flush {X , bl} {X' , bl} (Retired.ri Rt) (o , refl) }
    where
    S0 = sim-fl {c} {G} {X} {X'} {Opened bl (Retired.kn Rt)} {Opened bl (Retired.kn Rt)} {Retired.d Rt} (Retired.abs Rt) nocv
           (nnA {G} {X} {Opened bl (Retired.kn Rt)} {Retired.d Rt} (Retired.abs Rt) nn) (o , refl)
  retired-step {G , X , bl} Rt (lbar {X' = X'} (o , refl) nocv nn) = retI record
    { d = proj₁ S0 ; reach = grow1 (Retired.reach Rt) (proj₁ (proj₂ S0)) ; kn = Retired.kn Rt ; knFr = Retired.knFr Rt
    ; abs = proj₂ (proj₂ S0)
    ; placed = placed-keep (vc-barrier {X} {X'} {bl} {bl} (o , refl)) (λ j i → inj₂ i) (Retired.placed Rt)
    ; abP = Retired.abP Rt ; abC = map₂ (cls-end {G}) (Retired.abC Rt)
    ; frwp = Retired.frwp Rt ; locx = loc-ok (SB.reg SB.barrier) {X} {X'} {bl} {bl} (riX {X} {bl} (Retired.ri Rt)) (Retired.locx Rt) (o , refl)
    ; ri = OBX.B-ok (SB.reg SB.barrier) {X , bl} {X' , bl} (Retired.ri Rt) (o , refl) }
    where
    S0 = sim-barrier {c} {G} {X} {X'} {Opened bl (Retired.kn Rt)} {Opened bl (Retired.kn Rt)} {Retired.d Rt} (Retired.abs Rt) nocv
           (nnA {G} {X} {Opened bl (Retired.kn Rt)} {Retired.d Rt} (Retired.abs Rt) nn) (o , refl)
  retired-step {G , X , bl} Rt (lsy {X' = X'} (o , refl)) = retI record
    { d = Retired.d Rt ; reach = Retired.reach Rt ; kn = Retired.kn Rt ; knFr = Retired.knFr Rt
    ; abs = sim-sy {c} {G} {X} {X'} {Opened bl (Retired.kn Rt)} {Opened bl (Retired.kn Rt)} (Retired.abs Rt) (o , refl)
    ; placed = placed-keep (vc-sy {X} {X'} {bl} {bl} (o , refl)) (λ j i → inj₂ i) (Retired.placed Rt)
    ; abP = Retired.abP Rt ; abC = Retired.abC Rt
    ; frwp = Retired.frwp Rt ; locx = loc-ok (SB.reg (SB.op SB.sy)) {X} {X'} {bl} {bl} (riX {X} {bl} (Retired.ri Rt)) (Retired.locx Rt) (o , refl)
    ; ri = OBX.B-ok (SB.reg (SB.op SB.sy)) {X , bl} {X' , bl} (Retired.ri Rt) (o , refl) }
  retired-step {G , X , bl} Rt (lera {X' = X'} {bl' = .(berase k bl)} (k , rn , refl) esk kP) = retI record
    { d = proj₁ S0 ; reach = grow1 (Retired.reach Rt) (proj₁ (proj₂ S0)) ; kn = kn
    ; knFr = trans (upd-ne (fr bl) kn k true kn≢k) (Retired.knFr Rt)
    ; abs = abs-fr {c} {G'} {X'} {berase k (Opened bl kn)} {proj₁ S0} ((fr bl [ k ≔ true ]) [ kn ≔ false ]) frEq (proj₂ (proj₂ S0))
    ; placed = placed-keep keep (λ j i → inj₂ i) (Retired.placed Rt)
    ; abP = Retired.abP Rt ; abC = abC′
    ; frwp = frwp-ok (SB.use (SB.reg (SB.op SB.es))) (Retired.frwp Rt) o
    ; locx = loc-ok (SB.reg (SB.op SB.es)) (riX {X} {bl} (Retired.ri Rt)) (Retired.locx Rt) o
    ; ri = OBX.B-ok (SB.reg (SB.op SB.es)) (Retired.ri Rt) o }
    where
    kn = Retired.kn Rt
    I = Retired.abs Rt
    G' = record G { es = es G [ k ≔ false ] }
    o : SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , berase k bl)
    o = k , rn , refl
    rn′ : EsRunM X (owners (Opened bl kn) k) X'
    rn′ = subst (λ ps → EsRunM X ps X') (sym (owners-op bl kn k)) rn
    S0 = sim-era {c} {G} {X} {X'} {Opened bl kn} {berase k (Opened bl kn)} {Retired.d Rt} (riX {X} {bl} (Retired.ri Rt))
           (Retired.locx Rt) I (k , rn′ , refl) esk kP
    kn≢k : kn ≢ k
    kn≢k e = t→¬f esk (subst (λ z → es G z ≡ false) e (Abs.abE I))
    frEq : ∀ j → ((fr bl [ k ≔ true ]) [ kn ≔ false ]) j ≡ ((fr bl [ kn ≔ false ]) [ k ≔ true ]) j
    frEq j with j ≟ℕ kn | j ≟ℕ k
    ... | yes refl | yes refl = ⊥-elim (kn≢k refl)
    ... | yes refl | no jk = trans (upd-self (fr bl [ k ≔ true ]) j false) (sym (trans (upd-ne (fr bl [ j ≔ false ]) j k true jk) (upd-self (fr bl) j false)))
    ... | no jn | yes refl = trans (upd-ne (fr bl [ j ≔ true ]) j kn false jn) (trans (upd-self (fr bl) j true) (sym (upd-self (fr bl [ kn ≔ false ]) j true)))
    ... | no jn | no jk = trans (upd-ne (fr bl [ k ≔ true ]) j kn false jn)
                            (trans (upd-ne (fr bl) j k true jk) (sym (trans (upd-ne (fr bl [ kn ≔ false ]) j k true jk) (upd-ne (fr bl) j kn false jn))))
    keep : ∀ j → vc X' (berase k bl) j ≡ vc X bl j
    keep = proj₁ (proj₂ (proj₂ (proj₂ (vc-erase {X} {X'} {bl} {berase k bl} (riX {X} {bl} (Retired.ri Rt)) (Retired.locx Rt) o))))
    -- the old open block erased is free again
    abC′ : fr (berase k bl) (ab bl) ≡ true ⊎ Classed G' (ab bl)
    abC′ with ab bl ≟ℕ k
    ... | yes e = inj₁ (subst (λ z → (fr bl [ k ≔ true ]) z ≡ true) (sym e) (upd-self (fr bl) k true))
    ... | no ne = Data.Sum.Base.[ (λ f → inj₁ (trans (upd-ne (fr bl) (ab bl) k true ne) f)) , (λ x → inj₂ (g x)) ] (Retired.abC Rt)
      where
      g : Classed G (ab bl) → Classed G' (ab bl)
      g (inj₁ u) = inj₁ u
      g (inj₂ (inj₁ v)) = inj₂ (inj₁ v)
      g (inj₂ (inj₂ e)) = inj₂ (inj₂ (trans (upd-ne (es G) (ab bl) k false ne) e))
  retired-step {G , X , bl} Rt (lgcm {k = k} nocv usk kP gk uL vN) = retI record
    { d = proj₁ S0 ; reach = grow1 (Retired.reach Rt) (proj₁ (proj₂ S0)) ; kn = kn ; knFr = Retired.knFr Rt
    ; abs = proj₂ (proj₂ S0)
    ; placed = placed-keep (λ _ → refl) f (Retired.placed Rt)
    ; abP = Retired.abP Rt ; abC = map₂ (cls-gc {G} {k}) (Retired.abC Rt)
    ; frwp = Retired.frwp Rt ; locx = Retired.locx Rt ; ri = Retired.ri Rt }
    where
    kn = Retired.kn Rt
    I = Retired.abs Rt
    G' = record G { us = us G [ k ≔ false ] ; vi = vi G [ k ≔ true ] ; cv = just k ; gn = suc (gn G) }
    S0 = sim-gcm {c} {G} {X} {Opened bl kn} {Retired.d Rt} {k} I nocv usk kP (subst (_< Sp.K c) (sym (Abs.gcA I)) gk)
           (subst (λ l → Sp.U c ≤ length l) (sym (Abs.vsA I)) uL) vN
    f : ∀ j → In c G (Opened bl kn) j → vc X bl j ≡ 0 ⊎ In c G' (Opened bl kn) j
    f j (inj₁ e) = inj₂ (inj₁ e)
    f j (inj₂ (inj₁ (u , lt))) with j ≟ℕ k
    ... | yes refl = inj₂ (inj₂ (inj₂ refl))
    ... | no ne    = inj₂ (inj₂ (inj₁ (trans (upd-ne (us G) j k false ne) u , lt)))
    f j (inj₂ (inj₂ e)) = ⊥-elim (nothing≢just (trans (sym nocv) e))
  retired-step {G , X , bl} Rt (lrl {X' = X'} {bl' = bl'} {k} cvk o stay pol _ uncl) with vc-rl {X} {X'} (riX {X} {bl} (Retired.ri Rt)) o
  ... | inj₁ (refl , wc , keep) = retI record
    { d = Retired.d Rt ; reach = Retired.reach Rt ; kn = Retired.kn Rt ; knFr = Retired.knFr Rt
    ; abs = kept {c} {G} {X} {X'} {Opened bl (Retired.kn Rt)} {Retired.d Rt} (Retired.abs Rt) keep wc
    ; placed = placed-keep keep (λ j i → inj₂ i) (Retired.placed Rt)
    ; abP = Retired.abP Rt ; abC = Retired.abC Rt
    ; frwp = frwp-ok (SB.use (SB.reg (SB.op SB.rl))) (Retired.frwp Rt) o
    ; locx = loc-ok (SB.reg (SB.op SB.rl)) (riX {X} {bl} (Retired.ri Rt)) (Retired.locx Rt) o
    ; ri = OBX.B-ok (SB.reg (SB.op SB.rl)) (Retired.ri Rt) o }
  ... | inj₂ ((b , le , eb , k' , refl , opens , wlt , mv) , wc) =
    ret-rl {G} {X} {X'} {bl} {k} {b} {k'} Rt cvk pol o (ret-free Rt (guard-open {X} {G} {bl} uncl k' refl) opens)
      (subst (_< Sp.P c) (sym stay) (Retired.abP Rt)) le eb mv wlt wc
  retired-step {G , X , bl} Rt (lrla cvk o moved kP full pol _ uncl) = ⊥-elim (ret-unc {c} {G} {X} {bl} Rt full uncl)
  retired-step {G , X , bl} Rt (lrlr {X' = X'} {bl' = bl'} {k} cvk o moved kP pol _ cls) with vc-rl {X} {X'} (riX {X} {bl} (Retired.ri Rt)) o
  ... | inj₁ (refl , _ , _) = ⊥-elim (moved refl)
  ... | inj₂ ((b , le , _ , k' , refl , inj₁ e , _) , _) = ⊥-elim (moved e)
  ... | inj₂ ((b , le , eb , k' , refl , inj₂ frk , wlt , mv) , wc) =
    ret-rl {G} {X} {X'} {bl} {k} {b} {k'} Rt cvk pol o frk kP le eb mv wlt wc
  retired-step {G , X , bl} Rt (ldone {k = k} cvk z _) = retI record
    { d = Retired.d Rt ; reach = Retired.reach Rt ; kn = kn ; knFr = Retired.knFr Rt
    ; abs = sim-done {c} {G} {X} {Opened bl kn} {Retired.d Rt} {k} I cvk (trans (Abs.pdA I) (trans (cong (pendOf X (Opened bl kn)) cvk) z))
    ; placed = placed-keep (λ _ → refl) f (Retired.placed Rt)
    ; abP = Retired.abP Rt ; abC = Retired.abC Rt
    ; frwp = Retired.frwp Rt ; locx = Retired.locx Rt ; ri = Retired.ri Rt }
    where
    kn = Retired.kn Rt
    I = Retired.abs Rt
    f : ∀ j → In c G (Opened bl kn) j → vc X bl j ≡ 0 ⊎ In c (record G { cv = nothing }) (Opened bl kn) j
    f j (inj₁ e) = inj₂ (inj₁ e)
    f j (inj₂ (inj₁ u)) = inj₂ (inj₂ (inj₁ u))
    f j (inj₂ (inj₂ e)) with trans (sym cvk) e
    ... | refl = inj₁ z

  ----------------------------------------------------------------------
  -- every step, every run

  step-inv : ∀ {s s'} → LInv c s → LStep c s s' → LInv c s'
  step-inv (inj₁ F) st = fresh-step F st
  step-inv (inj₂ (inj₁ R)) st = run-step R st
  step-inv (inj₂ (inj₂ Rt)) st = retired-step Rt st

  star-inv : ∀ {s s'} → LInv c s → Star (LStep c) s s' → LInv c s'
  star-inv i ε        = i
  star-inv i (st ◅ r) = star-inv (step-inv i st) r

------------------------------------------------------------------------
-- The start: the state the first recovery of a new disk leaves (nothing
-- mapped, P's write counter 0, every block free and erased — BlocksOver's
-- new disk, which recovery's `forget` keeps so), with the empty ghost

G0 : Gh
G0 = gh (λ _ → false) (λ _ → false) (λ _ → false) nothing 0

record Start (c : Sp.Config) (X : XS) (bl : BL) : Set where
  field
    ri    : OBX.RI (X , bl)
    empty : ∀ b → b ≤ amax → l2p (stX X) b ≡ nothing
    wc0   : wcnt (stX X) ≡ 0
    gc0   : gcnt (stX X) ≡ 0
    allFr : ∀ j → fr bl j ≡ true
    allWp : ∀ j → wp bl j ≡ 0
    abP   : ab bl < Sp.P c

private
  used-none : ∀ (v : ℕ → ℕ) n → usedL (λ _ → false) v n ≡ []
  used-none v zero    = refl
  used-none v (suc n) = used-none v n

  tot-1 : ∀ n → tot (λ _ → 1) n ≡ n
  tot-1 zero    = refl
  tot-1 (suc n) = cong suc (tot-1 n)

  -- P - 1 erases of Space's format: every block but the open one free
  eras : ∀ c n f → Star (StepD c) (sd f n 0 [] (Sp.S c) 0 0 0 0 0) (sd (n + f) 0 0 [] (Sp.S c) 0 0 0 0 0)
  eras c zero    f = ε
  eras c (suc n) f =
    era ◅ subst (λ x → Star (StepD c) (sd (suc f) n 0 [] (Sp.S c) 0 0 0 0 0) (sd x 0 0 [] (Sp.S c) 0 0 0 0 0))
                (+-suc n f) (eras c n (suc f))

start-inv : ∀ {c X bl} → Start c X bl → LInv c (G0 , X , bl)
start-inv {c} {X} {bl} st = inj₁ record
  { d = d1 ; reach = eras c (Sp.P c ∸ 1) 0 ; abs = abs1
  ; abFr = Start.allFr st k ; abWp = Start.allWp st k
  ; noUs = λ _ → refl ; noEs = λ _ → refl ; noVi = λ _ → refl ; noCv = refl
  ; none = zero-vc
  ; frwp = λ j _ → Start.allWp st j
  ; locx = λ a p le m → ⊥-elim (nothing≢just (trans (sym (Start.empty st a le)) m))
  ; ri = Start.ri st }
  where
  k = ab bl
  d1 = sd (Sp.P c ∸ 1 + 0) 0 0 [] (Sp.S c) 0 0 0 0 0
  zero-vc : ∀ j → vc X bl j ≡ 0
  zero-vc j = trans (tot-ext _ (λ _ → 0) (suc amax) each) (tot-0 (suc amax))
    where
    each : ∀ a → a < suc amax → b2n (inBlk (loc bl) j (l2p (stX X) a)) ≡ 0
    each a (s≤s le) = cong (λ m → b2n (inBlk (loc bl) j m)) (Start.empty st a le)
  fr' : ℕ → Bool
  fr' = fr bl [ k ≔ false ]
  flip : tot (λ j → b2n (fr bl j)) (Sp.P c) ≡ suc (tot (λ j → b2n (fr' j)) (Sp.P c))
  flip = tot-flip (fr bl) fr' k (Sp.P c) (Start.abP st) (Start.allFr st k) (upd-self (fr bl) k false)
           (λ j _ jk → upd-ne (fr bl) j k false jk)
  all : tot (λ j → b2n (fr bl j)) (Sp.P c) ≡ Sp.P c
  all = trans (tot-ext _ (λ _ → 1) (Sp.P c) (λ j _ → cong b2n (Start.allFr st j))) (tot-1 (Sp.P c))
  frees : Sp.P c ∸ 1 + 0 ≡ tot (λ j → b2n (fr' j)) (Sp.P c)
  frees = trans (+-identityʳ _) (cong (_∸ 1) (trans (sym all) flip))
  abs1 : Abs c G0 X (Opened bl k) d1
  abs1 = record
    { vsA = sym (used-none (vc X bl) (Sp.P c)) ; vaA = sym (zero-vc k)
    ; roomA = trans (cong (Sp.S c +_) (Start.allWp st k)) (+-identityʳ _)
    ; wcA = sym (Start.wc0 st)
    ; abU = refl ; abP = Start.abP st ; frA = frees ; abF = upd-self (fr bl) k false
    ; frU = λ _ _ → refl
    ; erA = sym (tot-0 (Sp.P c)) ; invA = sym (tot-0 (Sp.P c)) ; pdA = refl ; gcA = refl
    ; abE = refl ; abV = refl ; frE = λ _ _ → refl ; frV = λ _ _ → refl
    ; usE = λ _ e → ⊥-elim (f≢t e) ; usV = λ _ e → ⊥-elim (f≢t e) ; esV = λ _ e → ⊥-elim (f≢t e)
    ; cvV = λ _ () }

------------------------------------------------------------------------
-- Space progress for the one model, without a crash

-- an element of the used blocks' list is a used block's count
used-mem : ∀ us (v : ℕ → ℕ) n as x bs → usedL us v n ≡ as ++ x ∷ bs → Σ ℕ λ k → k < n × us k ≡ true × v k ≡ x
used-mem us v zero as x bs e = ⊥-elim (nil≢ as e)
  where
  nil≢ : ∀ as {x bs} → [] ≢ as ++ x ∷ bs
  nil≢ [] ()
  nil≢ (_ ∷ _) ()
used-mem us v (suc n) as x bs e with us n in un
... | false = let (k , lt , uk , vk) = used-mem us v n as x bs e in k , ≤-step lt , uk , vk
... | true with as | e
...   | []     | refl = n , n<1+n n , un , refl
...   | a ∷ as′ | e′ = let (k , lt , uk , vk) = used-mem us v n as′ x bs (tail≡ e′) in k , ≤-step lt , uk , vk
  where
  tail≡ : ∀ {y : ℕ} {l l′ : List ℕ} → y ∷ l ≡ a ∷ l′ → l ≡ l′
  tail≡ refl = refl

module _ {c : Sp.Config} (V : Sp.Valid c) where

  -- the abstract state and its used list, before the first write or after
  private
    absD : ∀ {s} → LInv c s → Σ StD λ d → ReachD c d × vsD d ≡ usedOf c (proj₁ s) (proj₁ (proj₂ s)) (proj₂ (proj₂ s))
    absD (inj₁ F) = Fresh.d F , Fresh.reach F , Abs.vsA (Fresh.abs F)
    absD (inj₂ (inj₁ R)) = Run.d R , Run.reach R , Abs.vsA (Run.abs R)
    absD (inj₂ (inj₂ Rt)) = Retired.d Rt , Retired.reach Rt , Abs.vsA (Retired.abs Rt)

  -- **a wanted write finds a block**: P's write counter below W, no
  -- victim pending — room in the open block, or a free or erasable block
  -- below P
  layer-write : ∀ {G X bl} → Sp.S c ≡ Z → LInv c (G , X , bl) → cv G ≡ nothing → wcnt (stX X) < Sp.W c → BlockFor c G bl
  layer-write eS (inj₁ F) nocv wl = inj₁ (subst (_< Sp.S c) (sym (Fresh.abWp F)) (subst (0 <_) (sym eS) (s≤s z≤n)))
  layer-write eS (inj₂ (inj₂ Rt)) nocv wl = inj₂ (Retired.kn Rt , Abs.abP (Retired.abs Rt) , inj₁ (Retired.knFr Rt))
  layer-write {G} {X} {bl} eS (inj₂ (inj₁ R)) nocv wl =
    block-for-write V (Run.reach R) I (subst (_< Sp.W c) (sym (Abs.wcA I)) wl) (trans (Abs.pdA I) (cong (pendOf X bl) nocv))
    where I = Run.abs R

  -- ... and a pending relocation
  layer-reloc : ∀ {G X bl k} → LInv c (G , X , bl) → cv G ≡ just k → 1 ≤ vc X bl k → BlockFor c G bl
  layer-reloc (inj₁ F) cvk _ = ⊥-elim (nothing≢just (trans (sym (Fresh.noCv F)) cvk))
  layer-reloc (inj₂ (inj₂ Rt)) cvk _ = inj₂ (Retired.kn Rt , Abs.abP (Retired.abs Rt) , inj₁ (Retired.knFr Rt))
  layer-reloc {G} {X} {bl} (inj₂ (inj₁ R)) cvk p1 =
    block-for-reloc V (Run.reach R) I (subst (1 ≤_) (sym (trans (Abs.pdA I) (cong (pendOf X bl) cvk))) p1)
    where I = Run.abs R

  -- when GC is needed, `lgcm`'s victim exists: a used block below P with
  -- at most N valid sectors
  layer-victim : ∀ {G X bl} → LInv c (G , X , bl) → Sp.U c ≤ length (usedOf c G X bl) →
                 Σ ℕ λ k → k < Sp.P c × us G k ≡ true × vc X bl k ≤ Sp.N c
  layer-victim {G} {X} {bl} i uL with absD i
  ... | d , r , ev with data-victim c V r (subst (λ l → Sp.U c ≤ length l) (sym ev) uL)
  ...   | as , v , bs , e , _ , vN with used-mem (us G) (vc X bl) (Sp.P c) as v bs (trans (sym ev) e)
  ...     | k , lt , uk , refl = k , lt , uk , vN

-- **The assembly**: from the first recovery of a new disk, every state
-- the layer reaches has the invariant, so `layer-write`, `layer-reloc`
-- and `layer-victim` hold there
layer-inv : ∀ {c X bl s} → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
            Start c X bl → Star (LStep c) (G0 , X , bl) s → LInv c s
layer-inv eL eW eS st r = star-inv eL eW eS (start-inv st) r

-- **GC is live**: wherever the code's write would need GC before it
-- opens a block (the open block full and in none of the ghost's classes,
-- GC needed with it counted used, the epoch's K victims not all taken)
-- and a free block below P is there, the layer retires the open block in
-- its ghost (`lret`) and takes a victim (`lgcm`).  Before the thirty-
-- second session no step of the layer could: `lwa` refused the write,
-- and `lgcm` found fewer than U used blocks (SCFTL.Impl.SpaceLayerGcExample
-- is such a state after its fourth step)
gc-live : ∀ {c G X bl kn} → Sp.Valid c → Sp.L c ≡ suc amax → Sp.W c ≡ suc wmax → Sp.S c ≡ Z →
          LInv c (G , X , bl) → wp bl (ab bl) ≡ Z → Unclassed G (ab bl) → fr bl kn ≡ true → kn < Sp.P c →
          cv G ≡ nothing → gn G < Sp.K c → ¬ Sp.NotNeeded c (gn G) (0 ∷ usedOf c G X bl) →
          Σ Gh λ G1 → Σ Gh λ G2 → Σ ℕ λ k →
            LStep c (G , X , bl) (G1 , X , bl) × LStep c (G1 , X , bl) (G2 , X , bl) × cv G2 ≡ just k
gc-live {c} {G} {X} {bl} {kn} V eL eW eS (inj₁ F) full uncl frk kP nocv gk nn =
  ⊥-elim (Z≢0 (trans (sym full) (Fresh.abWp F)))
gc-live {c} {G} {X} {bl} {kn} V eL eW eS (inj₂ (inj₂ Rt)) full uncl frk kP nocv gk nn =
  ⊥-elim (ret-unc {c} {G} {X} {bl} Rt full uncl)
gc-live {c} {G} {X} {bl} {kn} V eL eW eS (inj₂ (inj₁ R)) full uncl frk kP nocv gk nn =
  G1 , _ , proj₁ vic , st1 , lgcm nocv (proj₁ (proj₂ (proj₂ vic))) (proj₁ (proj₂ vic)) gk uL (proj₂ (proj₂ (proj₂ vic))) , refl
  where
  G1 = record G { us = us G [ ab bl ≔ true ] }
  st1 : LStep c (G , X , bl) (G1 , X , bl)
  st1 = lret full uncl frk kP
  I = Run.abs R
  A = activate {c} {G} {X} {bl} {Run.d R} {kn} (Run.locx R) (Run.frwp R) I frk kP (trans full (sym eS))
  -- one used block more: the retired one
  len : length (usedOf c G1 X bl) ≡ suc (length (usedOf c G X bl))
  len = trans (cong length (sym (Abs.vsA (proj₁ (proj₂ (proj₂ A))))))
              (trans (proj₁ (proj₂ (proj₂ (proj₂ A)))) (cong (λ l → suc (length l)) (Abs.vsA I)))
  uL : Sp.U c ≤ length (usedOf c G1 X bl)
  uL = subst (Sp.U c ≤_) (sym len) (≮⇒≥ (λ lt → nn (inj₂ lt)))
  vic = layer-victim V (step-inv eL eW eS (inj₂ (inj₁ R)) st1) uL
