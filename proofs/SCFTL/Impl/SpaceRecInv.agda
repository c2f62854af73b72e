{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, the data superblocks across a crash, second part: the
-- layer's invariant after a recovery.
--
-- SCFTL.Impl.SpaceRecFit proves that every map a recovery may rebuild
-- fits (`Fit`: the blocks below P it names leave the epoch's need, and
-- every page it names lies below P).  Here, for a state the block
-- layer's recovery leaves (`Recovered`: its L2P fits, P's write counter
-- 0, the open block below P, and BXone's bookkeeping facts), the ghost
-- the code's rebuild (blocks.rs `rebuild`) gives it and the layer's
-- invariant there:
--
--   `recGh`    : used, the blocks the recovered L2P names; erasable, every
--                other block below P that is not free (the vacant ones
--                the recovery freed stay free); no victim, no GC count;
--   `classes`  : below P each block is in exactly one of used, free,
--                erasable (a free block is at write pointer 0, so holds
--                no valid sector);
--   `rec-reach`: Space's data half goes there from any state it reaches:
--                its recovery (`rec`, SCFTL.Impl.SpaceRecFit's `rec-at`)
--                to the named blocks used, the rest erasable and a fresh
--                open block, then one `era` for each free block but one;
--   **`rec-inv`** : so, where a free block `kn` below P is left, the
--                state is `Retired` (SCFTL.Impl.SpaceLayer) with that
--                ghost: `kn` stands for Space's fresh open block, and the
--                block layer's open block, whose tail the code abandons,
--                is free, used or erasable (`abC`, which the thirty-fifth
--                session relaxed for it: full or not).
--
-- Not here (proofs/README.md, "Not done", item 1): the layer's recovery
-- step itself (a crash at a layer step, crashed recoveries, the block
-- layer's recovery, then `rec-inv` — `Recovered`'s facts from the crash,
-- `Fit` from SpaceRecFit's `crash-fit-op`), the case where no block is
-- free (the next allocation erases first), and the other invariants of
-- the layer across it (SpaceQueued's, SpaceGcBound's, SpaceGcWalk's).
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceRecInv (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; not; _∧_)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (length)
open import Data.Maybe.Base using (nothing; just)
open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; s≤s; z≤n)
open import Data.Nat.Properties using (+-identityʳ; +-assoc; +-suc; _<?_) renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst)
open import Relation.Binary.Construct.Closure.ReflexiveTransitive using (Star; ε; _◅_; _◅◅_)
open import Relation.Nullary using (yes; no)
open import Relation.Nullary.Decidable using (⌊_⌋)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (l2p; wcnt)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb using (stX; obligationsBXone)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb using (LocX)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb using (BL; loc; wp; ab; fr; upd-self; upd-ne)
open import SCFTL.Impl.SpaceValid Data d0 amax wmax kmax umax _≟D_ kc zb using (vc; inBlk; vc-empty)
open import SCFTL.Impl.SpaceUsed using (b2n; tot; tot-ext; tot-+; tot-0; tot-1; tot-flip; tot-pos; ≡ᵇ-T; used-count)
open import SCFTL.Impl.SpaceData using (StD; sd; StepD; era; ReachD)
open import SCFTL.Impl.SpaceSim Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Gh; gh; us; es; vi; cv; gn; Abs; FrWp; Opened; f≢t)
open import SCFTL.Impl.SpaceLayer Data d0 amax wmax kmax umax _≟D_ kc zb
  using (Classed; Placed; Retired)
open import SCFTL.Impl.SpaceRecFit Data d0 amax wmax kmax umax _≟D_ kc zb using (nz; Fit; recUsed; rec-at)
import SCFTL.Impl.Space as Sp
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

module OBX = SB.ForwardSimulation.Obligations obligationsBXone

------------------------------------------------------------------------
-- What the block layer's recovery leaves, and the ghost of it

-- the facts of a recovered state the invariant needs
record Recovered (c : Sp.Config) (X : XS) (bl : BL) : Set where
  field
    fit  : Fit c (l2p (stX X)) (loc bl)    -- SpaceRecFit's `crash-fit-op`
    wc0  : wcnt (stX X) ≡ 0                -- a recovery starts an epoch
    abP  : ab bl < Sp.P c                  -- the code's open block is a data block
    frwp : FrWp bl
    locx : LocX X bl
    ri   : OBX.RI (X , bl)

-- a recovery starts an epoch: P's write counter 0, in either phase
wc-rec : ∀ {X X'} → SB.Model.ok PX SB.recover X X' → wcnt (stX X') ≡ 0
wc-rec {false , S} {.false , S'} (refl , inj₁ ((_ , _ , _ , _ , _ , _ , _ , _ , e) , _)) = cong wcnt e
wc-rec {false , S} {.false , S'} (refl , inj₂ ((_ , _ , _ , _ , _ , _ , _ , _ , _ , _ , e) , _)) = cong wcnt e
wc-rec {true , S} {.true , S'} (refl , _ , s' , e , (_ , _ , _ , _ , e2)) = trans (cong (λ z → wcnt (st (su z))) e) (cong wcnt e2)

-- below P
belowP : Sp.Config → ℕ → Bool
belowP c k = ⌊ k <? Sp.P c ⌋

-- the code's rebuild: used, the blocks the recovered L2P names; erasable,
-- every other block below P that is not free; no victim, no GC count
recGh : Sp.Config → XS → BL → Gh
recGh c X bl = gh (λ k → nz (vc X bl k)) (λ k → not (fr bl k) ∧ (not (nz (vc X bl k)) ∧ belowP c k)) (λ _ → false) nothing 0

belowP-lt : ∀ c k → k < Sp.P c → belowP c k ≡ true
belowP-lt c k lt with k <? Sp.P c
... | yes _ = refl
... | no nl = ⊥-elim (nl lt)

-- a free block holds no valid sector
fr-vc : ∀ {X bl k} → FrWp bl → LocX X bl → fr bl k ≡ true → vc X bl k ≡ 0
fr-vc {X} {bl} {k} fw lx f = vc-empty {X} {bl} {k} lx (fw k f)

nz0 : ∀ {n} → n ≡ 0 → nz n ≡ false
nz0 refl = refl

-- below P every block is in exactly one class: free, erasable, used
classes : ∀ {c X bl} → FrWp bl → LocX X bl → ∀ k → k < Sp.P c →
          b2n (fr bl k) + (b2n (es (recGh c X bl) k) + b2n (us (recGh c X bl) k)) ≡ 1
classes {c} {X} {bl} fw lx k lt with fr bl k in ef
... | true rewrite nz0 (fr-vc {X} {bl} {k} fw lx ef) = refl
... | false with nz (vc X bl k)
...   | true  = refl
...   | false rewrite belowP-lt c k lt = refl

-- ... so the three counts below P add up to P
all-classes : ∀ {c X bl} → FrWp bl → LocX X bl →
              tot (λ k → b2n (fr bl k)) (Sp.P c) + (tot (λ k → b2n (es (recGh c X bl) k)) (Sp.P c) + tot (λ k → b2n (us (recGh c X bl) k)) (Sp.P c))
              ≡ Sp.P c
all-classes {c} {X} {bl} fw lx =
  trans (cong (tot (λ k → b2n (fr bl k)) (Sp.P c) +_) (sym (tot-+ (λ k → b2n (es G k)) (λ k → b2n (us G k)) (Sp.P c))))
    (trans (sym (tot-+ (λ k → b2n (fr bl k)) (λ k → b2n (es G k) + b2n (us G k)) (Sp.P c)))
      (trans (tot-ext _ (λ _ → 1) (Sp.P c) (classes {c} {X} {bl} fw lx)) (tot-1 (Sp.P c))))
  where G = recGh c X bl

------------------------------------------------------------------------
-- Space's data half goes there

private
  -- Space's erases, one block at a time
  eraN : ∀ c n f e i xs r a w g q u → Star (StepD c) (sd f (n + e) i xs r a w g q u) (sd (n + f) e i xs r a w g q u)
  eraN c zero    f e i xs r a w g q u = ε
  eraN c (suc n) f e i xs r a w g q u =
    era ◅ subst (λ m → Star (StepD c) (sd (suc f) (n + e) i xs r a w g q u) (sd m e i xs r a w g q u))
                (+-suc n f) (eraN c n (suc f) e i xs r a w g q u)

-- the counts: free blocks but the one standing for Space's open block,
-- erasable ones
frees erasables : Sp.Config → XS → BL → ℕ → ℕ
frees c X bl kn = tot (λ k → b2n (fr (Opened bl kn) k)) (Sp.P c)
erasables c X bl kn = tot (λ k → b2n (es (recGh c X bl) k)) (Sp.P c)

-- the abstract state after the recovery and the erases
recD : Sp.Config → XS → BL → ℕ → StD
recD c X bl kn = sd (frees c X bl kn + 0) (erasables c X bl kn) 0 (recUsed c X bl) (Sp.S c) 0 0 0 0 (length (recUsed c X bl))

-- **Space's data half goes there from every state it reaches**: its
-- recovery (to the named blocks used, every other erasable, a fresh open
-- block), then one erase for each free block but `kn`
rec-reach : ∀ {c X bl kn d} → Sp.L c ≡ suc amax → Recovered c X bl → fr bl kn ≡ true → kn < Sp.P c →
            ReachD c d → ReachD c (recD c X bl kn)
rec-reach {c} {X} {bl} {kn} {d} eL R frk kP r =
  r ◅◅ (rec-at {c} {X} {bl} eL (Recovered.fit R) (F′ + E) cnt d ◅ eraN c F′ 0 E 0 ys (Sp.S c) 0 0 0 0 (length ys))
  where
  G = recGh c X bl
  ys = recUsed c X bl
  F′ = frees c X bl kn
  E = erasables c X bl kn
  U = tot (λ k → b2n (us G k)) (Sp.P c)
  fw = Recovered.frwp R
  lx = Recovered.locx R
  all = all-classes {c} {X} {bl} fw lx
  -- `kn` one of them
  flip : tot (λ k → b2n (fr bl k)) (Sp.P c) ≡ suc F′
  flip = tot-flip (fr bl) (fr (Opened bl kn)) kn (Sp.P c) kP frk (upd-self (fr bl) kn false)
           (λ j _ jk → upd-ne (fr bl) j kn false jk)
  cnt : suc (F′ + E + length ys) ≡ Sp.P c
  cnt = trans (cong (λ m → suc (F′ + E + m)) (used-count (us G) (vc X bl) (Sp.P c)))
          (trans (cong suc (+-assoc F′ E U)) (trans (cong (_+ (E + U)) (sym flip)) all))

------------------------------------------------------------------------
-- The invariant there

-- a block with a valid sector lies below P: the recovered map fits
named-below : ∀ {c X bl j} → Recovered c X bl → 1 ≤ vc X bl j → j < Sp.P c
named-below {c} {X} {bl} {j} R p1 with tot-pos (λ a → inBlk (loc bl) j (l2p (stX X) a)) (suc amax) p1
... | a , s≤s le , ib with l2p (stX X) a in em
...   | just q = subst (_< Sp.P c) (≡ᵇ-T ib) (proj₂ (Recovered.fit R) a q le em)

-- **the layer's invariant after a recovery**: where a free block `kn`
-- below P is left, the recovered state with the rebuild's ghost is
-- `Retired` — Space's open block is `kn`, the block layer's open block
-- (the code abandons its tail) free, used or erasable
rec-inv : ∀ {c X bl kn d} → Sp.L c ≡ suc amax → ReachD c d → Recovered c X bl → fr bl kn ≡ true → kn < Sp.P c →
          Retired c (recGh c X bl , X , bl)
rec-inv {c} {X} {bl} {kn} {d} eL r R frk kP = record
  { d = recD c X bl kn ; reach = rec-reach {c} {X} {bl} {kn} {d} eL R frk kP r
  ; kn = kn ; knFr = frk ; abs = abs1 ; placed = placed1
  ; abP = Recovered.abP R ; abC = abC1
  ; frwp = fw ; locx = lx ; ri = Recovered.ri R }
  where
  G = recGh c X bl
  fw = Recovered.frwp R
  lx = Recovered.locx R
  vc0 : vc X bl kn ≡ 0
  vc0 = fr-vc {X} {bl} {kn} fw lx frk
  -- a free block of the opened state is free in the recovered one
  fr-of : ∀ k → fr (Opened bl kn) k ≡ true → fr bl k ≡ true
  fr-of k f with k ≟ℕ kn
  ... | yes refl = ⊥-elim (f≢t (trans (sym (upd-self (fr bl) k false)) f))
  ... | no ne = trans (sym (upd-ne (fr bl) k kn false ne)) f
  es-fr : ∀ k → fr bl k ≡ true → es G k ≡ false
  es-fr k f rewrite f = refl
  us-fr : ∀ k → fr bl k ≡ true → us G k ≡ false
  us-fr k f = nz0 (fr-vc {X} {bl} {k} fw lx f)
  abs1 : Abs c G X (Opened bl kn) (recD c X bl kn)
  abs1 = record
    { vsA = refl ; vaA = sym vc0
    ; roomA = trans (cong (Sp.S c +_) (fw kn frk)) (+-identityʳ (Sp.S c))
    ; wcA = sym (Recovered.wc0 R)
    ; abU = us-fr kn frk ; abP = kP
    ; frA = +-identityʳ _ ; abF = upd-self (fr bl) kn false
    ; frU = λ k f → us-fr k (fr-of k f)
    ; erA = refl ; invA = sym (tot-0 (Sp.P c)) ; pdA = refl ; gcA = refl
    ; abE = es-fr kn frk ; abV = refl
    ; frE = λ k f → es-fr k (fr-of k f) ; frV = λ _ _ → refl
    ; usE = λ k u → us-es k u ; usV = λ _ _ → refl ; esV = λ _ _ → refl
    ; cvV = λ _ () }
    where
    us-es : ∀ k → us G k ≡ true → es G k ≡ false
    us-es k u rewrite u with fr bl k
    ... | true  = refl
    ... | false = refl
  placed1 : Placed c G X (Opened bl kn)
  placed1 j with vc X bl j in e
  ... | zero  = inj₁ refl
  ... | suc m = inj₂ (inj₂ (inj₁ (refl , named-below {c} {X} {bl} {j} R (subst (1 ≤_) (sym e) (s≤s z≤n)))))
  abC1 : fr bl (ab bl) ≡ true ⊎ Classed G (ab bl)
  abC1 with fr bl (ab bl) in ef
  ... | true = inj₁ refl
  ... | false with nz (vc X bl (ab bl)) in ev
  ...   | true  = inj₂ (inj₁ refl)
  ...   | false = inj₂ (inj₂ (inj₂ (belowP-lt c (ab bl) (Recovered.abP R))))
