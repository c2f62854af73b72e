{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39, toward the data superblocks in the one model: the valid
-- counts per block, read off the L2P and the block bookkeeping, and how
-- every step of the block layer over PX (BXone; BXφ has the same steps)
-- changes them.
--
-- SCFTL.Impl.Space proves the W/K/U bounds over counts: a list `vs` of
-- valid counts of the used superblocks and the open one's `va`, moved by
-- its steps (a write: one sector off the superblock of the old copy, one
-- onto the open one; a relocation: one off the victim, one onto the open
-- one; an erase: of a superblock with none).  Here the counts are a
-- function of the one model's state (blocks.rs keeps them as counters;
-- its validator recomputes them from the L2P):
--
--   `vc X bl k` : the addresses (<= amax) whose L2P entry names a page
--                 placed in block k (`loc`);
--   `vc-w`, `vc-rl` : every write and relocation of BXone from a state
--                 of its invariant either keeps every count, the
--                 bookkeeping and P's write counter (`Unmoved`: refused,
--                 or a relocation of a page with no valid sector) or
--                 moves one (`Moves`): the block of the address's old
--                 page loses one (none if it was unmapped: a new logical
--                 sector) and the block the allocation took gains one
--                 (`MoveEq`: vc' k + [old block = k] = vc k + [k = new
--                 block]); a write counts one in P's write counter, a
--                 relocation none;
--   `vc-flush`, `vc-barrier`, `vc-sy` : every count kept (every commit
--                 path keeps the L2P);
--   `vc-erase`  : a block erase keeps every count and the write counter,
--                 and the erased block had none (every page it erases is
--                 one no L2P entry names: SCFTL.Impl.OneModelBlocksRead
--                 `run-unm`); `vc-empty`: a block at write pointer 0 has
--                 none;
--   `vc-sum`    : the counts of any B blocks add up to at most the
--                 logical sectors, amax + 1 (Space's `sumL`);
--   `erase-has-owner` : a block erase erases a block with an owner; a
--                 block whose placements a recovery all forgot has none,
--                 and is freed by the recovery itself instead (since the
--                 thirty-first session: BlocksOver's `forget` frees every
--                 vacant block);
--   `vc0-unnamed`, **`bx-rec-vc0`** : a block with no valid sector holds
--                 no page an entry names (`OwnLoc`), so right after a
--                 recovery every block with no valid
--                 sector is free or one block erase from it
--                 (SCFTL.Impl.RecoveryReclaim's `bx-rec-reuse`): what
--                 Space's `rec` takes of every block the recovered map
--                 does not reference (thirty-first session).
--
-- SCFTL.Impl.SpaceSim builds the simulation of the block layer's steps
-- by Space's data half on these.
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.SpaceValid (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
  (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false; T)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; [])
open import Data.List.Relation.Unary.All using (lookup)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (zero; suc; _+_; _≤_; _<_; _≡ᵇ_; s≤s; z≤n)
open import Data.Nat.Properties
  using (≤-refl; ≤-trans; <-irrefl; n<1+n; ≤-step; ≤∧≢⇒<; +-assoc; +-comm; +-mono-≤; ≡ᵇ⇒≡; ≡⇒≡ᵇ; ≤-reflexive)
  renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Data.Unit.Base using (tt)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality
  using (_≡_; _≢_; refl; sym; trans; cong; cong₂; subst)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; Map; nxt; l2p; wcnt; _[_≔_])
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb
  using (stX; BXone; module OPX; block-erase-safe; EsRunM; one; _∷_; Place)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; PPg; Z; Opens; loc; own; wp; ab; fr; balloc; berase; owners; upd-self; upd-ne; here-own;
         OwnLoc; forget; ownloc-forget)
open import SCFTL.Impl.OneModelBlocksRead Data d0 amax wmax kmax umax _≟D_ kc zb
  using (LocX; lt-nxt; Remap; RemapW; Same; remap-w; remap-rl; keep-flush; keep-barrier; keep-sy; run-unm; owners-mem)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
open import SCFTL.Impl.SpaceUsed using (b2n; tot; tot-ext; tot-0; tot-mono; tot-1; tot-swap; tot-upd; tot-≥; ≡ᵇ-T; b2n-ne; b2n-eq; MoveEq)
open import SCFTL.Impl.RecoveryReclaim Data d0 amax wmax kmax umax _≟D_ kc zb using (Unnamed; bx-rec-reuse)

------------------------------------------------------------------------
-- Valid counts

-- the entry names a page placed in block k
inBlk : (ℕ → PPg) → ℕ → Maybe ℕ → Bool
inBlk lc k nothing  = false
inBlk lc k (just q) = proj₁ (lc q) ≡ᵇ k

vcM : Map → (ℕ → PPg) → ℕ → ℕ
vcM m lc k = tot (λ a → b2n (inBlk lc k (m a))) (suc amax)

-- valid sectors of block k
vc : XS → BL → ℕ → ℕ
vc X bl k = vcM (l2p (stX X)) (loc bl) k

-- the counts do not change where the entries in range and the places of
-- the pages they name do not
-- (the entries in range: `vc-same≤`, thirty-fourth session)
vc-same≤ : ∀ {m m' lc lc'} → (∀ b → b ≤ amax → m' b ≡ m b) → (∀ b q → b ≤ amax → m b ≡ just q → lc' q ≡ lc q) →
           ∀ k → vcM m' lc' k ≡ vcM m lc k
vc-same≤ {m} {m'} {lc} {lc'} em el k = tot-ext _ _ (suc amax) each
  where
  each : ∀ a → a < suc amax → b2n (inBlk lc' k (m' a)) ≡ b2n (inBlk lc k (m a))
  each a (s≤s le) rewrite em a le with m a in e
  ... | nothing = refl
  ... | just q  = cong (λ l → b2n (proj₁ l ≡ᵇ k)) (el a q le e)

vc-same : ∀ {m m' lc lc'} → (∀ b → m' b ≡ m b) → (∀ b q → b ≤ amax → m b ≡ just q → lc' q ≡ lc q) →
          ∀ k → vcM m' lc' k ≡ vcM m lc k
vc-same {m} {m'} {lc} {lc'} em = vc-same≤ {m} {m'} {lc} {lc'} (λ b _ → em b)

-- One address remapped to a page n no entry named, placed in block kn:
-- the old page's block loses one, block kn gains one.
vc-remap : ∀ {m m' lc lc' a n kn} → a ≤ amax →
           (∀ b → m' b ≡ (m [ a ≔ just n ]) b) →
           (∀ q → q ≢ n → lc' q ≡ lc q) → proj₁ (lc' n) ≡ kn →
           (∀ b → b ≤ amax → m b ≢ just n) →
           ∀ k → vcM m' lc' k + b2n (inBlk lc k (m a)) ≡ vcM m lc k + b2n (kn ≡ᵇ k)
vc-remap {m} {m'} {lc} {lc'} {a} {n} {kn} le em el en fresh k =
  trans (tot-upd f g a (suc amax) (s≤s le) same)
        (cong (λ z → vcM m lc k + b2n z) (trans (cong (λ z → inBlk lc' k z) (trans (em a) (upd-self m a (just n))))
                                               (cong (_≡ᵇ k) en)))
  where
  f g : ℕ → ℕ
  f b = b2n (inBlk lc k (m b))
  g b = b2n (inBlk lc' k (m' b))
  same : ∀ b → b < suc amax → b ≢ a → f b ≡ g b
  same b (s≤s bl) ne rewrite em b | upd-ne m b a (just n) ne with m b in e
  ... | nothing = refl
  ... | just q  = cong (λ l → b2n (proj₁ l ≡ᵇ k)) (sym (el q (λ qn → fresh b bl (trans e (cong just qn)))))

------------------------------------------------------------------------
-- Every step of BXone

Moves : XS → BL → XS → BL → Set
Moves X bl X' bl' =
  Σ ℕ λ a → a ≤ amax × l2p (stX X') a ≡ just (nxt (stX X)) ×
  Σ ℕ λ kn → bl' ≡ balloc kn (nxt (stX X)) bl × Opens bl kn × wp bl kn < Z ×
  MoveEq (vc X bl) (vc X' bl') (λ k → inBlk (loc bl) k (l2p (stX X) a)) kn

Keeps : XS → BL → XS → BL → Set
Keeps X bl X' bl' = ∀ k → vc X' bl' k ≡ vc X bl k

-- a refused write or relocation, or one of a victim with no valid sector:
-- the bookkeeping, P's write counter and every count kept
Unmoved : XS → BL → XS → BL → Set
Unmoved X bl X' bl' = bl' ≡ bl × wcnt (stX X') ≡ wcnt (stX X) × Keeps X bl X' bl'

private
  suc≢ : ∀ n → suc n ≢ n
  suc≢ n e = <-irrefl (sym e) (n<1+n n)

  -- a write or relocation: the PX step's shape and the placement
  placed-remap : ∀ {X X' bl bl'} → OPX.RI X → Remap (stX X) (stX X') → Place X X' bl bl' → Moves X bl X' bl'
  placed-remap {X} {X'} {bl} r (en , a , le , m) (inj₁ (_ , k , aok , refl)) =
    a , le , trans (m a) (upd-self (l2p (stX X)) a (just (nxt (stX X)))) , k , refl , proj₁ aok , proj₁ (proj₂ aok) ,
    vc-remap {l2p (stX X)} {l2p (stX X')} {loc bl} {loc (balloc k (nxt (stX X)) bl)} {a} {nxt (stX X)} {k}
      le m (λ q qn → upd-ne (loc bl) q (nxt (stX X)) _ qn) (cong proj₁ (upd-self (loc bl) (nxt (stX X)) _))
      (λ b b≤ e → <-irrefl refl (lt-nxt {X} r b (nxt (stX X)) b≤ e))
  placed-remap {X} r (en , _) (inj₂ (e , _)) = ⊥-elim (suc≢ (nxt (stX X)) (trans (sym en) e))

  placed-same : ∀ {X X' bl bl'} → Same (stX X) (stX X') → Place X X' bl bl' → Unmoved X bl X' bl'
  placed-same {X} (en , _) (inj₁ (e , _)) = ⊥-elim (suc≢ (nxt (stX X)) (trans (sym e) en))
  placed-same {X} {X'} {bl} (_ , keep , wc) (inj₂ (_ , refl)) =
    refl , wc , vc-same {l2p (stX X)} {l2p (stX X')} {loc bl} {loc bl} keep (λ _ _ _ _ → refl)

-- a write: the counts kept (refused) or one moved onto the block the
-- allocation took, P's write counter one up from within its bound
vc-w : ∀ a d {X X' bl bl'} → OPX.RI X →
       SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w a d)))) (X , bl) (X' , bl') →
       Unmoved X bl X' bl' ⊎ (Moves X bl X' bl' × wcnt (stX X') ≡ suc (wcnt (stX X)) × wcnt (stX X) ≤ wmax)
vc-w a d {X} {X'} r (o , pl) with remap-w a d {X} {X'} o
... | inj₁ (rm , wc , wb) = inj₂ (placed-remap {X} {X'} r rm pl , wc , wb)
... | inj₂ sm             = inj₁ (placed-same {X} {X'} sm pl)

-- a relocation: the same (kept when refused, or when its victim holds no
-- valid sector: P's `rlX`)
vc-rl : ∀ {X X' bl bl'} → OPX.RI X →
        SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , bl') →
        Unmoved X bl X' bl' ⊎ (Moves X bl X' bl' × wcnt (stX X') ≡ wcnt (stX X))
vc-rl {X} {X'} r (o , pl) with remap-rl {X} {X'} o
... | inj₁ (rm , wc) = inj₂ (placed-remap {X} {X'} r rm pl , wc)
... | inj₂ sm = inj₁ (placed-same {X} {X'} sm pl)

-- flush (every commit path), barrier and SYNC keep every count
vc-flush : ∀ {X X' bl bl'} → SB.Model.ok BXone (SB.use SB.flush) (X , bl) (X' , bl') → Keeps X bl X' bl'
vc-flush {X} {X'} {bl} (o , refl) = vc-same {l2p (stX X)} {l2p (stX X')} {loc bl} {loc bl} (keep-flush {X} {X'} o) (λ _ _ _ _ → refl)

vc-barrier : ∀ {X X' bl bl'} → SB.Model.ok BXone (SB.use (SB.reg SB.barrier)) (X , bl) (X' , bl') → Keeps X bl X' bl'
vc-barrier {X} {X'} {bl} (o , refl) = vc-same {l2p (stX X)} {l2p (stX X')} {loc bl} {loc bl} (keep-barrier {X} {X'} o) (λ _ _ _ _ → refl)

vc-sy : ∀ {X X' bl bl'} → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.sy))) (X , bl) (X' , bl') → Keeps X bl X' bl'
vc-sy {X} {X'} {bl} (o , refl) = vc-same {l2p (stX X)} {l2p (stX X')} {loc bl} {loc bl} (keep-sy {X} {X'} o) (λ _ _ _ _ → refl)

-- A block erase keeps every count, and the erased block had none: each
-- page a mapped address names is located in its block below the write
-- pointer (LocX), so it is one of the block's owners, and a block erase
-- erases only pages no entry names.
vc-erase : ∀ {X X' bl bl'} → OPX.RI X → LocX X bl →
           SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , bl') →
           Σ ℕ λ k → bl' ≡ berase k bl × vc X bl k ≡ 0 × Keeps X bl X' bl' × wcnt (stX X') ≡ wcnt (stX X)
vc-erase {X} {X'} {bl} r lx (k , rn , refl) =
  k , refl , zero-k ,
  vc-same {l2p (stX X)} {l2p (stX X')} {loc bl} {loc bl}
    (proj₁ (block-erase-safe {X , bl} {X' , berase k bl} r (k , rn , refl))) (λ _ _ _ _ → refl) ,
  wc-run rn
  where
  -- an erase step of PX is P's `esF` of one page: the write counter kept
  wc-run : ∀ {Y ps Y'} → EsRunM Y ps Y' → wcnt (stX Y') ≡ wcnt (stX Y)
  wc-run (one (_ , e)) = cong wcnt e
  wc-run (_∷_ (_ , e) rn′) = trans (wc-run rn′) (cong wcnt e)
  each : ∀ b → b < suc amax → b2n (inBlk (loc bl) k (l2p (stX X) b)) ≡ 0
  each b (s≤s le) with l2p (stX X) b in m
  ... | nothing = refl
  ... | just p with proj₁ (loc bl p) ≡ᵇ k in e
  ...   | false = refl
  ...   | true  = ⊥-elim (lookup (run-unm {X} r rn) mem b le m)
    where
    ek : proj₁ (loc bl p) ≡ k
    ek = ≡ᵇ-T e
    L = lx b p le m
    own-k : own bl k (proj₂ (loc bl p)) ≡ just p
    own-k = subst (λ z → own bl z (proj₂ (loc bl p)) ≡ just p) ek (here-own bl p (proj₁ L))
    mem = owners-mem bl k (wp bl k) (proj₂ (loc bl p)) p (subst (λ z → proj₂ (loc bl p) < wp bl z) ek (proj₂ L)) own-k
  zero-k : vc X bl k ≡ 0
  zero-k = trans (tot-ext _ (λ _ → 0) (suc amax) each) (tot-0 (suc amax))

-- A block at write pointer 0 (a free one: erased, or never written) has
-- no valid sector: every mapped page lies below its block's write
-- pointer (LocX).
vc-empty : ∀ {X bl k} → LocX X bl → wp bl k ≡ 0 → vc X bl k ≡ 0
vc-empty {X} {bl} {k} lx w0 = trans (tot-ext _ (λ _ → 0) (suc amax) each) (tot-0 (suc amax))
  where
  each : ∀ b → b < suc amax → b2n (inBlk (loc bl) k (l2p (stX X) b)) ≡ 0
  each b (s≤s le) with l2p (stX X) b in m
  ... | nothing = refl
  ... | just p with proj₁ (loc bl p) ≡ᵇ k in e
  ...   | false = refl
  ...   | true  = ⊥-elim (none (subst (λ z → proj₂ (loc bl p) < wp bl z) (≡ᵇ-T e) (proj₂ (lx b p le m))))
    where
    none : proj₂ (loc bl p) < wp bl k → ⊥
    none lt = lt0 (subst (proj₂ (loc bl p) <_) w0 lt)
      where
      lt0 : ∀ {m} → m < 0 → ⊥
      lt0 ()

------------------------------------------------------------------------
-- The counts of any B blocks add up to at most the logical sectors

private
  tot-none : ∀ j B → B ≤ j → tot (λ k → b2n (j ≡ᵇ k)) B ≡ 0
  tot-none j zero    _  = refl
  tot-none j (suc B) le =
    trans (cong (_+ tot (λ k → b2n (j ≡ᵇ k)) B) (b2n-ne j B (λ e → <-irrefl (sym e) le)))
          (tot-none j B (≤-trans (≤-step ≤-refl) le))

-- one block's indicator adds up to at most one (public since the
-- thirty-fourth session: SCFTL.Impl.SpaceRecFit counts the open block)
tot-one : ∀ j B → tot (λ k → b2n (j ≡ᵇ k)) B ≤ 1
tot-one j zero = z≤n
tot-one j (suc B) with j ≟ℕ B
... | yes refl = ≤-reflexive (trans (cong (_+ tot (λ k → b2n (j ≡ᵇ k)) j) (b2n-eq j))
                                    (cong suc (tot-none j j ≤-refl)))
... | no ne    = ≤-trans (≤-reflexive (cong (_+ tot (λ k → b2n (j ≡ᵇ k)) B) (b2n-ne j B ne))) (tot-one j B)

vc-sum : ∀ X bl B → tot (vc X bl) B ≤ suc amax
vc-sum X bl B =
  ≤-trans (≤-reflexive (tot-swap G B (suc amax)))
    (≤-trans (tot-mono _ (λ _ → 1) (suc amax) (λ a _ → atMost1 a)) (≤-reflexive (tot-1 (suc amax))))
  where
  G : ℕ → ℕ → ℕ
  G k a = b2n (inBlk (loc bl) k (l2p (stX X) a))
  atMost1 : ∀ a → tot (λ k → G k a) B ≤ 1
  atMost1 a with l2p (stX X) a
  ... | nothing = ≤-trans (≤-reflexive (tot-0 B)) z≤n
  ... | just q  = tot-one (proj₁ (loc bl q)) B

------------------------------------------------------------------------
-- A block erase needs an owner

-- A block erase is its owners' erases: a block with no owner — one all
-- of whose placements a recovery forgot — has no erase.  Since the
-- thirty-first session recovery frees such a block (other than the open
-- one) itself: `forget` sets it to write pointer 0 and reusable, and
-- `act` erases it when it is taken (SCFTL.Impl.RecoveryReclaim's
-- `bx-rec-reuse`; proofs/README.md, "The block layer's recovery frees a
-- vacant block").
erase-has-owner : ∀ {X X' bl bl'} → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X , bl) (X' , bl') →
                  Σ ℕ λ k → bl' ≡ berase k bl × owners bl k ≢ []
erase-has-owner (k , rn , refl) = k , refl , λ e → no-run (subst (λ ps → EsRunM _ ps _) e rn)
  where
  no-run : ∀ {X X'} → ¬ EsRunM X [] X'
  no-run ()

------------------------------------------------------------------------
-- After a recovery: a block with no valid sector is reusable

-- a block with no valid sector holds no page an entry names
vc0-unnamed : ∀ {X bl} → OwnLoc bl → ∀ k → vc X bl k ≡ 0 →
              ∀ o q → own bl k o ≡ just q → Unnamed (l2p (stX X)) q
vc0-unnamed {X} {bl} ol k z o q e a le m = <-irrefl refl (subst (1 ≤_) z (subst (_≤ vc X bl k) f1 (tot-≥ f (suc amax) a (s≤s le))))
  where
  f : ℕ → ℕ
  f b = b2n (inBlk (loc bl) k (l2p (stX X) b))
  f1 : f a ≡ 1
  f1 = trans (cong (λ mq → b2n (inBlk (loc bl) k mq)) m)
              (trans (cong (λ pg → b2n (proj₁ pg ≡ᵇ k)) (ol k o q e)) (b2n-eq k))

-- **Right after a recovery of the block layer over PX, every block with
-- no valid sector is free, or one block erase from it** — what Space's
-- `rec` takes of every block the recovered map does not reference
-- (erasable; blocks.rs `rebuild`: valid 0 → Erasable, the old active
-- superblock included; `activate_next`)
bx-rec-vc0 : ∀ {X bl X' bl'} → OwnLoc bl → SB.Model.ok BXone SB.recover (X , bl) (X' , bl') →
             ∀ k → vc X' bl' k ≡ 0 →
             (wp bl' k ≡ 0 × fr bl' k ≡ true)
           ⊎ (Σ XS λ X'' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) (X' , bl') (X'' , berase k bl'))
bx-rec-vc0 {X} {bl} {X'} ol (o , refl) k z =
  bx-rec-reuse {X} {bl} {X'} ol (o , refl) k
    (vc0-unnamed {X'} {forget (nxt (stX X')) bl} (ownloc-forget {bl} (nxt (stX X')) ol) k z)
