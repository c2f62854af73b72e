{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the data-superblock layer runs GC, and the block GC freed is
-- erased by the model.
--
-- Until the thirty-second session the layer of SCFTL.Impl.SpaceLayer
-- could never take a victim under the code's GC timing: a write that
-- opens a block asked `NotNeeded` of the used blocks with the retired
-- one among them, so the used blocks stayed below U, while `lgcm` asks
-- for U of them.  Space retires a full block and opens a free one first
-- (`act`) and then checks GC; the layer now does the same in its ghost
-- (`lret`), and writes and relocations go on from there (`lwr`,
-- `lrlr`).  This module is the run that shows it, under the code's
-- policies, from the first recovery of a new disk:
--
--   the instance of SCFTL.Mutants.LayerIgnoresGcTiming (one logical
--   sector, one write per epoch, blocks of one page; W = 1, K = 1,
--   U = 2, L = 1, N = 0, S = 1, P = 4), and the steps:
--     1. a write of sector 0 into block 0 (`lw`), an epoch barrier;
--     2. a write of sector 0 again, opening block 1 (`lwa`; block 0, full,
--        becomes used and holds a dead page), an epoch barrier;
--     3. block 1 is full: retired in the ghost (`lret`, Space opens block
--        2), and GC is needed (two used blocks, no victim this epoch);
--     4. GC takes block 0 (`lgcm`, no valid sector), P's relocation of its
--        dead page (`lrl` by `rlX`: the page on P's invalid queue), its GC
--        ends (`ldone`, `Relocated`);
--     5. a flush: block 0 erasable in the ghost, its page on P's erasable
--        queue (`fl3`);
--     6. the erase of block 0 (`lera`: BXone's block erase, P's erase of
--        its one page): block 0 is free again.
--
--   `gc-run`    : the run, every step under its guards;
--   `freed`     : block 0 is free and at write pointer 0 at its end;
--   `queued`    : SCFTL.Impl.SpaceQueued's invariant holds at each state
--                 of it (`layer-queued`), e.g. after the flush;
--   `finds`     : and a wanted write finds a block there
--                 (`space-progress-one`);
--   `budget-here` : at GC's start, with the victim's page on neither of
--                 P's queues, P's relocation guard holds
--                 (SCFTL.Impl.SpaceGcBound's `code-budget`), and the
--                 layer can end the victim (`ends-here`,
--                 `layer-dead-victim-ends`; `gc-ends`, SpaceGcWalk's
--                 `victim-ends`);
--   `live-here` : the state after the fourth step is one of `gc-live`'s
--                 (GC needed for the next block, a free one there);
--   `step9b`, `not-yet`, `after-barrier` : the epoch ended by a barrier
--                 instead of the flush: block 0 erasable in the ghost, its
--                 page still only on P's invalid queue (PU's barrier keeps
--                 the queues), and the layer's SYNC then the erase
--                 (`synced-erase`);
--   `fits-here`, `named-here` : after that barrier every map a recovery
--                 may return to leaves the epoch's need outside its
--                 blocks (SCFTL.Impl.SpaceRecFit's `rec-fit`); the
--                 barrier's epoch names one block.
------------------------------------------------------------------------
module SCFTL.Impl.SpaceLayerGcExample where

open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_; _++_)
open import Data.List.Relation.Unary.All using ([])
open import Data.Maybe.Base using (nothing; just)
open import Data.Nat.Base using (ℕ; zero; suc; _≤ᵇ_; _≤_; _<_; z≤n; s≤s)
open import Data.Nat.Properties using (≤ᵇ⇒≤; ≤-step; <-irrefl; n<1+n)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_)
open import Relation.Nullary using (¬_)

open import SCFTL.Impl.Model Bool false 0 0 0 _≟B_
  using (St; syn; erased; cpt; unmapped; wr0; rlX; fl3; esF; nxt; inv; ers; gcnt; smap; Valid; _[_≔_])
open import SCFTL.Impl.UnsyncedBarrier Bool false 0 0 0 4 _≟B_ using (StU; ⟪_,_⟫; st; ues; flB; epE)
open import SCFTL.Impl.UnsyncedRecStep Bool false 0 0 0 4 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false 0 0 0 4 _≟B_ using (SU; ⟦_,_⟧; ghostN)
open import SCFTL.Impl.BlocksOver Bool false 0 0 0 4 _≟B_ 0
  using (BL; own; wp; fr; loc; balloc; berase; forget; Fresh; own-balloc)
open import SCFTL.Impl.OneModelBlocks Bool false 0 0 0 4 _≟B_ 2 0 using (stX; BXone; one)
open import SCFTL.Impl.SpaceSim Bool false 0 0 0 4 _≟B_ 2 0 using (Gh; us; es; vi; cv; gn; BlockFor)
open import SCFTL.Impl.SpaceLayer Bool false 0 0 0 4 _≟B_ 2 0
  using (LS; LStep; lw; lwa; lret; lbar; lfl; lgcm; lrl; ldone; lera; G0; endEp; Start; usedOf; layer-inv; gc-live)
open import SCFTL.Impl.SpaceLayerStart Bool false 0 0 0 4 _≟B_ 2 0 using (new-start; space-progress-one)
open import SCFTL.Impl.SpaceQueued Bool false 0 0 0 4 _≟B_ 2 0 using (QInv; layer-queued; synced-erase)
open import SCFTL.Impl.SpaceGcBound Bool false 0 0 0 4 _≟B_ 2 0 using (code-budget; layer-dead-victim-ends)
open import SCFTL.Impl.SpaceGcWalk Bool false 0 0 0 4 _≟B_ 2 0 using (victim-ends)
open import SCFTL.Impl.SpaceRecFit Bool false 0 0 0 4 _≟B_ 2 0 using (RecFit; rec-fit; nbk)
open import SCFTL.Impl.OneModelBlocksNamed Bool false 0 0 0 4 _≟B_ 2 0 using (uesX)
open import SCFTL.Impl.UnsyncedImages Bool false 0 0 0 4 _≟B_ using (mapAt)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Bool false 0 0 4 as SB

------------------------------------------------------------------------
-- The configuration (that of mutant 48, which the code's constraints
-- accept)

cfgG : Sp.Config
cfgG = Sp.cfg 1 1 2 1 1 4 0 1 4

private
  le : ∀ m n → {T (m ≤ᵇ n)} → m ≤ n
  le m n {t} = ≤ᵇ⇒≤ m n t

valid : Sp.Valid cfgG
valid = record
  { U≥1 = le 1 2 ; ppp≥1 = le 1 1 ; pad<S = le 1 1
  ; c1 = le 1 1 ; c2 = le 4 4 ; c3 = le 1 1 ; c4 = le 4 4 }

------------------------------------------------------------------------
-- The new disk and its first recovery

s0 : St
s0 = record
  { dat = λ _ → syn erased ; cpL = syn (cpt 0 unmapped) ; cpO = syn erased ; dr = [] ; rcd = λ _ → syn erased
  ; gen = 0 ; l2p = unmapped ; mb = λ _ → nothing ; dbuf = [] ; ept = [] ; nxt = 0
  ; inv = λ _ → false ; ers = λ _ → false ; wcnt = 0 ; gcnt = 0 ; smap = unmapped ; ep = 0 ; lnk = nothing }

bl0 : BL
bl0 = record { loc = λ _ → (0 , 0) ; own = λ _ _ → nothing ; wp = λ _ → 0 ; ab = 0 ; fr = λ _ → true }

S0 : SU
S0 = ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧

mk : StU → SU
mk u = ⟦ u , ghostN u ⟧

X : StU → Bool × SU
X u = false , mk u

u1 : StU
u1 = ⟪ recU true 0 unmapped [] [] s0 , [] ⟫

new0 : SB.Model.New BXone ((false , S0) , bl0)
new0 = (refl , ((refl , refl , refl , (λ _ → refl)) , refl , refl)) , ((λ _ _ → refl) , (λ _ → refl) , (λ _ → refl)) , (λ _ → refl)

n1 : ℕ
n1 = nxt (stX (X u1))

bl1 : BL
bl1 = forget n1 bl0

rec1 : SB.Model.ok BXone SB.recover ((false , S0) , bl0) (X u1 , bl1)
rec1 = (refl , inj₁ ((true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)) , refl

start1 : Start cfgG (X u1) bl1
start1 = new-start new0 rec1 (le 1 4)

------------------------------------------------------------------------
-- The states

wU bU : StU → StU
wU ⟪ s , e ⟫ = ⟪ wr0 0 true s , e ⟫
bU ⟪ s , e ⟫ = ⟪ flB s , e ++ epE s ∷ [] ⟫

u2 u3 u4 u5 u6 u7 u8 : StU
u2 = wU u1
u3 = bU u2
u4 = wU u3
u5 = bU u4
u6 = ⟪ rlX n1 (st u5) , ues u5 ⟫        -- P's relocation of the dead page
u7 = ⟪ fl3 (st u6) , [] ⟫               -- the flush
u8 = ⟪ esF n1 (st u7) , [] ⟫            -- the page's erase

bl2 bl4 bl9 : BL
bl2 = balloc 0 n1 bl1
bl4 = balloc 1 (suc n1) bl2
bl9 = berase 0 bl4

Ga Gb Gc Gd Ge Gf Gg Gh′ : Gh
Ga = endEp G0
Gb = record Ga { us = us Ga [ 0 ≔ true ] }
Gc = endEp Gb
Gd = record Gc { us = us Gc [ 1 ≔ true ] }
Ge = record Gd { us = us Gd [ 0 ≔ false ] ; vi = vi Gd [ 0 ≔ true ] ; cv = just 0 ; gn = suc (gn Gd) }
Gf = record Ge { cv = nothing }
Gg = endEp Gf
Gh′ = record Gg { es = es Gg [ 0 ≔ false ] }

------------------------------------------------------------------------
-- The run

private
  -- P's next page is on no physical page (a new disk; one page placed)
  fresh1 : Fresh bl1 n1
  fresh1 k o ()

  fresh2 : Fresh bl2 (suc n1)
  fresh2 k o e with own-balloc bl1 0 n1 k o (suc n1) e
  ... | inj₁ ()
  ... | inj₂ ()

  -- the dead page: sector 0 is mapped to the second page
  dead : ¬ Valid (st u5) n1
  dead (_ , ())

step1 : LStep cfgG (G0 , X u1 , bl1) (G0 , X u2 , bl2)
step1 = lw ((inj₁ (refl , mk u1 , refl , ((inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl)))
           , inj₁ (refl , 0 , (inj₁ refl , s≤s z≤n , refl , fresh1) , refl))
           refl refl (inj₂ (s≤s z≤n)) (inj₁ (refl , refl , refl))

step2 : LStep cfgG (G0 , X u2 , bl2) (Ga , X u3 , bl2)
step2 = lbar (inj₁ (refl , mk u2 , refl , (inj₁ (le 1 4 , refl) , refl)) , refl) refl (inj₂ (s≤s z≤n))

step3 : LStep cfgG (Ga , X u3 , bl2) (Gb , X u4 , bl4)
step3 = lwa ((inj₁ (refl , mk u3 , refl , ((inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl)))
            , inj₁ (refl , 1 , (inj₂ refl , s≤s z≤n , refl , fresh2) , refl))
            (λ ()) (le 2 4) refl refl (inj₂ (s≤s (s≤s z≤n))) (refl , refl , refl)

step4 : LStep cfgG (Gb , X u4 , bl4) (Gc , X u5 , bl4)
step4 = lbar (inj₁ (refl , mk u4 , refl , (inj₁ (le 2 4 , refl) , refl)) , refl) refl (inj₂ (s≤s (s≤s z≤n)))

-- block 1 is full: retired in the ghost, Space opens block 2
step5 : LStep cfgG (Gc , X u5 , bl4) (Gd , X u5 , bl4)
step5 = lret {kn = 2} refl (refl , refl , refl) refl (le 3 4)

-- GC is needed (two used blocks, no victim this epoch): block 0, which
-- holds no valid sector
step6 : LStep cfgG (Gd , X u5 , bl4) (Ge , X u5 , bl4)
step6 = lgcm refl refl (le 1 4) (le 1 1) (le 2 2) z≤n

-- GC's budget there (SCFTL.Impl.SpaceGcBound): block 0's page is on
-- neither of P's queues, and K · Z = 1 = kmax + 1, so P's relocation
-- guard holds (`layer-budget`; mutant 53 spends the budget elsewhere)
budget-here : gcnt (st u5) ≤ 0
budget-here = code-budget cfgG refl refl refl (le 1 1) start1 (step1 ◅ step2 ◅ step3 ◅ step4 ◅ step5 ◅ step6 ◅ ε)
                refl (s≤s z≤n) refl refl

-- and the layer can end that victim (`layer-dead-victim-ends`: block 0
-- holds no valid sector; the run is step7, step8)
ends-here : Σ (Bool × SU) λ X′ → Star (LStep cfgG) (Ge , X u5 , bl4) (record Ge { cv = nothing } , X′ , bl4)
ends-here = layer-dead-victim-ends refl refl refl (le 1 1) new0 rec1 (le 1 4)
              (step1 ◅ step2 ◅ step3 ◅ step4 ◅ step5 ◅ step6 ◅ ε) refl refl

-- ... which SCFTL.Impl.SpaceGcWalk's `victim-ends` (every victim, its
-- valid pages too) gives as well
gc-ends : Σ Gh λ G′ → Σ (Bool × SU) λ X′ → Σ BL λ bl′ →
            Star (LStep cfgG) (Ge , X u5 , bl4) (G′ , X′ , bl′) × cv G′ ≡ nothing
gc-ends = victim-ends valid refl refl refl (le 1 1) new0 rec1 (le 1 4)
            (step1 ◅ step2 ◅ step3 ◅ step4 ◅ step5 ◅ step6 ◅ ε) refl refl

-- P's relocation of the victim's dead page: onto P's invalid queue
step7 : LStep cfgG (Ge , X u5 , bl4) (Ge , X u6 , bl4)
step7 = lrl refl ((inj₁ (refl , mk u5 , refl , ((inj₁ (z≤n , n1 , le 1 2 , inj₂ (dead , refl)) , refl) , refl)))
                 , inj₂ (refl , refl))
            refl (λ b _ ne → ⊥-elim (ne refl)) (0 , n1 , s≤s z≤n , refl , refl , refl) (inj₂ refl)

-- its GC ends: no valid sector, every page relocated
step8 : LStep cfgG (Ge , X u6 , bl4) (Gf , X u6 , bl4)
step8 = ldone refl refl rel
  where
  rel : ∀ o p → o < wp bl4 0 → own bl4 0 o ≡ just p → _
  rel zero p _ refl = refl
  rel (suc o) p (s≤s ()) _

-- a flush: block 0 erasable, its page on P's erasable queue
step9 : LStep cfgG (Gf , X u6 , bl4) (Gg , X u7 , bl4)
step9 = lfl (inj₁ (refl , mk u6 , refl , inj₁ (inj₁ refl , refl)) , refl) refl (inj₁ (le 1 1))

-- the erase of block 0: P's erase of its one page
step10 : LStep cfgG (Gg , X u7 , bl4) (Gh′ , X u8 , bl9)
step10 = lera (0 , one (inj₁ (refl , mk u7 , refl , (((n1 , refl , refl) , refl) , refl)) , refl) , refl) refl (le 1 4)

gc-run : Star (LStep cfgG) (G0 , X u1 , bl1) (Gh′ , X u8 , bl9)
gc-run = step1 ◅ step2 ◅ step3 ◅ step4 ◅ step5 ◅ step6 ◅ step7 ◅ step8 ◅ step9 ◅ step10 ◅ ε

-- block 0 is free again, at write pointer 0
freed : fr bl9 0 ≡ true × wp bl9 0 ≡ 0
freed = refl , refl

-- the queue invariant along the run: after the flush, block 0 is
-- erasable and its page queued
queued : QInv (Gg , X u7 , bl4)
queued = layer-queued refl refl refl start1
           (step1 ◅ step2 ◅ step3 ◅ step4 ◅ step5 ◅ step6 ◅ step7 ◅ step8 ◅ step9 ◅ ε)

-- and at the end a wanted write finds a block
finds : BlockFor cfgG Gh′ bl9
finds = space-progress-one valid refl refl refl new0 rec1 (le 1 4) gc-run refl (s≤s z≤n)

------------------------------------------------------------------------
-- The other way to end the epoch: a barrier.  Block 0 is then erasable
-- in the ghost while its page is still on P's invalid queue (PU's
-- barrier keeps the queues until a SYNC makes the epoch durable), so no
-- erase yet; the SYNC of the layer releases it, and the erase follows
-- (`synced-erase`)

u7b : StU
u7b = bU u6

step9b : LStep cfgG (Gf , X u6 , bl4) (Gg , X u7b , bl4)
step9b = lbar (inj₁ (refl , mk u6 , refl , (inj₁ (le 3 4 , refl) , refl)) , refl) refl (inj₁ (le 1 1))

-- the page is not erasable yet, only invalid
not-yet : ers (st u7b) n1 ≡ false × inv (st u7b) n1 ≡ true
not-yet = refl , refl

after-barrier : Σ (Bool × SU) λ X′ → LStep cfgG (Gg , X u7b , bl4) (Gg , X′ , bl4) × _ ≡ false ×
                Σ (Bool × SU) λ X″ → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X′ , bl4) (X″ , berase 0 bl4)
after-barrier = synced-erase refl refl refl new0 rec1 (le 1 4)
                  (step1 ◅ step2 ◅ step3 ◅ step4 ◅ step5 ◅ step6 ◅ step7 ◅ step8 ◅ step9b ◅ ε) refl refl (λ ())

-- After that barrier a recovery may return to the stable L2P or to the
-- epoch the barrier ended; each names blocks that leave the epoch's need
-- (SCFTL.Impl.SpaceRecFit's `rec-fit`: need = W + K·N = 2, P·S = 4, so
-- at most two blocks each).  The epoch's map names one block: block 1,
-- where the write of step 4 placed its page
fits-here : RecFit cfgG (X u7b) bl4
fits-here = rec-fit (Sp.needs valid) refl refl refl new0 rec1 (le 1 4)
              (step1 ◅ step2 ◅ step3 ◅ step4 ◅ step5 ◅ step6 ◅ step7 ◅ step8 ◅ step9b ◅ ε)

named-here : nbk cfgG (mapAt (smap (stX (X u7b))) (uesX (X u7b)) 1) (loc bl4) ≡ 1
named-here = refl

------------------------------------------------------------------------
-- The state after the fourth step is one `gc-live` speaks of: block 1
-- full, GC needed with it counted used (two used blocks, no victim this
-- epoch), block 2 free; so the layer takes a victim from there

private
  gc-needed : ¬ Sp.NotNeeded cfgG 0 (0 ∷ usedOf cfgG Gc (X u5) bl4)
  gc-needed (inj₁ ())
  gc-needed (inj₂ (s≤s (s≤s ())))

live-here : Σ Gh λ G1 → Σ Gh λ G2 → Σ ℕ λ k →
              LStep cfgG (Gc , X u5 , bl4) (G1 , X u5 , bl4) × LStep cfgG (G1 , X u5 , bl4) (G2 , X u5 , bl4) × cv G2 ≡ just k
live-here = gc-live {kn = 2} valid refl refl refl (layer-inv refl refl refl start1 (step1 ◅ step2 ◅ step3 ◅ step4 ◅ ε))
              refl (refl , refl , refl) refl (le 3 4) refl (le 1 1) gc-needed
