{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: BXone reads its physical pages.
--
-- SCFTL.Impl.OneModelBlocks puts the superblock rules on PX (BXone).
-- Here, as SCFTL.Impl.BlocksRead does for B over P, the bookkeeping is
-- proven to keep every page the L2P maps on a physical page that holds
-- it, so the code's read (L2P entry → physical address → flash, the
-- merge buffer first) returns PX's read:
--
--   LocX X bl       : every page the volatile L2P maps is located
--                     (`here`: its physical page's incarnation) below
--                     its block's write pointer (`InR`)
--   read-physical   : LocX X bl → rdBX X bl a ≡ rd (stX X) a
--   loc-ok          : every operation of BXone but recovery keeps LocX,
--                     in either phase of PX: a write or relocation maps
--                     only P's next page anew, which the allocation
--                     places (`shape-w`, `shape-rl`, `old-stays`,
--                     `new-here`); a block erase keeps the L2P, and no
--                     page it maps is in the erased block (every page of
--                     the block is erased by a PX erase step, which
--                     erases only pages no L2P entry names:
--                     `run-unm`, `owners-mem`); flush, barrier and SYNC
--                     keep the L2P (`keep-flush`, `keep-barrier`,
--                     `keep-sy`: the one-SYNC, in-page, OOB and lazy
--                     commits, the consolidation page, the checkpoint,
--                     the barrier without SYNC, the full and the partial
--                     SYNC)
--
--   program-erased : erase before program.  A page waiting in the
--                     merge buffer is an erased physical page (`cell`),
--                     placed on a physical page the allocation found
--                     erased, so the merge buffer's program programs only
--                     erased physical pages
--
-- Recovery replaces the L2P by the recovered map; as for B
-- (`loc-rec`, `RecLoc`), LocX after it needs the recovered map's pages
-- located; SCFTL.Impl.OneModelBlocksPhys states that as the one lemma
-- Theorem 1 with this read still takes (`RecoveredLocated`) and proves
-- it for a new disk (proofs/README.md, "Blocks in the one model").
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelBlocksRead (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                     (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Empty using (⊥; ⊥-elim)
open import Data.List.Base using (List; []; _∷_)
open import Data.List.Relation.Unary.Any using (Any) renaming (here to hd; there to tl)
open import Data.List.Relation.Unary.All using (All; []; _∷_; lookup) renaming (map to all-map)
open import Data.Maybe.Base using (Maybe; nothing; just)
open import Data.Nat.Base using (suc; _≤_; _<_; s≤s; z≤n)
open import Data.Nat.Properties using (n<1+n; <-irrefl; ≤-trans; n≤1+n; ≤-reflexive; <-transˡ; ≤∧≢⇒<)
  renaming (_≟_ to _≟ℕ_)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_; yes; no)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong; subst; subst₂)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_
  using (St; nxt; l2p; mb; dat; esF; ers; okP; opt; optP; wr0; rl0; rd; rdMD; cellD; pvm; cur; _[_≔_]; erased; wcnt)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st; GcI; module GcI)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (okPL; EraseGuard; optL; konsS; konsPg)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX)
open import SCFTL.Impl.OneModelBlocks Data d0 amax wmax kmax umax _≟D_ kc zb
  using (stX; BXone; module OPX; px-es-safe; block-erase-safe; EsRunM; one; _∷_; Place)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
  using (BL; loc; own; wp; here; hereM; cell; balloc; berase; act; own-balloc-ne; owners; ownersB; consM;
         upd-self; upd-ne; just-inj; here-cell; here-mb; here-at; here-own)
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB
import SCFTL.Spec Data d0 amax wmax as Sp

------------------------------------------------------------------------
-- The invariant and the physical read

-- p lies below its block's write pointer
InR : BL → ℕ → Set
InR bl p = proj₂ (loc bl p) < wp bl (proj₁ (loc bl p))

LocX : XS → BL → Set
LocX X bl = ∀ a p → a ≤ amax → l2p (stX X) a ≡ just p → here bl p ≡ true × InR bl p

-- the code's read: the L2P entry, the merge buffer, else the physical page
rdBX : XS → BL → ℕ → Data
rdBX X bl a = rdMD (mb (stX X)) (λ p → cell (stX X) bl (proj₁ (loc bl p)) (proj₂ (loc bl p))) (l2p (stX X) a)

read-physical : ∀ {X bl} → LocX X bl → ∀ a → a ≤ amax → rdBX X bl a ≡ rd (stX X) a
read-physical {X} {bl} lx a le with l2p (stX X) a in e
... | nothing = refl
... | just p with mb (stX X) p in em
...   | just x  = refl
...   | nothing = cong (λ m → cellD (pvm nothing (cur m))) (here-cell (stX X) bl p (proj₁ (lx a p le e)) em)

------------------------------------------------------------------------
-- What PX's invariants give: mapped pages are below P's next page

lt-nxt : ∀ {X} → OPX.RI X → ∀ a p → a ≤ amax → l2p (stX X) a ≡ just p → p < nxt (stX X)
lt-nxt {false , S} (t , ar , _) a p le e = GcI.blw gc a p le e
  where
    gc : GcI (stX (false , S))
    gc = proj₁ (proj₁ (proj₂ (proj₁ (ivX {S} {t} ar))))
lt-nxt {true , S} (_ , inj₁ ri) a p le e = proj₁ (RI.vOK ri a p le e)
lt-nxt {true , S} (_ , inj₂ (_ , ri , _)) a p le e = proj₁ (RI.vOK ri a p le e)

------------------------------------------------------------------------
-- How PX's steps change the L2P

Keep : St → St → Set
Keep s s' = ∀ a → l2p s' a ≡ l2p s a

-- P's next page taken, and mapped anew if anything is
NewPg : St → St → Set
NewPg s s' = nxt s' ≡ suc (nxt s) × (∀ a p → l2p s' a ≡ just p → l2p s a ≡ just p ⊎ p ≡ nxt s)

private
  upd-new : ∀ (f : ℕ → Maybe ℕ) x n b p → (f [ x ≔ just n ]) b ≡ just p → f b ≡ just p ⊎ p ≡ n
  upd-new f x n b p e with b ≟ℕ x
  ... | yes refl = inj₂ (sym (just-inj (trans (sym (upd-self f b (just n))) e)))
  ... | no ne    = inj₁ (trans (sym (upd-ne f b x (just n) ne)) e)

  optP-keeps : ∀ f s → nxt (optP f s) ≡ nxt s × Keep s (optP f s)
  optP-keeps true  s = refl , λ a → refl
  optP-keeps false s = refl , λ a → refl

  opt-keeps : ∀ f1 f2 s → nxt (opt f1 f2 s) ≡ nxt s × Keep s (opt f1 f2 s)
  opt-keeps f1 true  s = optP-keeps f1 s
  opt-keeps f1 false s = optP-keeps f1 s

  konsS-keeps : ∀ s → nxt (konsS s) ≡ nxt s × Keep s (konsS s)
  konsS-keeps s with konsPg s
  ... | nothing = refl , λ a → refl
  ... | just c  = refl , λ a → refl

  optL-keeps : ∀ f1 f2 s → nxt (optL f1 f2 s) ≡ nxt s × Keep s (optL f1 f2 s)
  optL-keeps f1 true s =
    trans (proj₁ (konsS-keeps (optP f1 s))) (proj₁ (optP-keeps f1 s)) ,
    λ a → trans (proj₂ (konsS-keeps (optP f1 s)) a) (proj₂ (optP-keeps f1 s) a)
  optL-keeps f1 false s = optP-keeps f1 s

  new-after : ∀ {s u u'} → NewPg s u → nxt u' ≡ nxt u × Keep u u' → NewPg s u'
  new-after (en , m) (e , k) = trans e en , λ a p x → m a p (trans (sym (k a)) x)

  newW : ∀ a d s → NewPg s (wr0 a d s)
  newW a d s = refl , λ b p e → upd-new (l2p s) a (nxt s) b p e

  newR : ∀ q s → NewPg s (rl0 q s)
  newR q s = refl , λ b p e → upd-new (l2p s) _ (nxt s) b p e

  shapeP-w : ∀ a d {s s'} → okP (Sp.use (Sp.reg (Sp.w a d))) s s' → NewPg s s' ⊎ Keep s s'
  shapeP-w a d {s} (inj₁ (_ , f1 , f2 , refl)) = inj₁ (new-after {s} {wr0 a d s} {opt f1 f2 (wr0 a d s)} (newW a d s) (opt-keeps f1 f2 (wr0 a d s)))
  shapeP-w a d (inj₂ (_ , refl)) = inj₂ (λ b → refl)

  shapeL-w : ∀ a d {s s'} → okPL EraseGuard (Sp.use (Sp.reg (Sp.w a d))) s s' → NewPg s s' ⊎ Keep s s'
  shapeL-w a d {s} (inj₁ (_ , f1 , f2 , refl)) = inj₁ (new-after {s} {wr0 a d s} {optL f1 f2 (wr0 a d s)} (newW a d s) (optL-keeps f1 f2 (wr0 a d s)))
  shapeL-w a d (inj₂ (_ , refl)) = inj₂ (λ b → refl)

  shapeP-rl : ∀ {s s'} → okP (Sp.use (Sp.reg Sp.rl)) s s' → NewPg s s' ⊎ Keep s s'
  shapeP-rl {s} (inj₁ (_ , q , _ , inj₁ (_ , f1 , f2 , refl))) = inj₁ (new-after {s} {rl0 q s} {opt f1 f2 (rl0 q s)} (newR q s) (opt-keeps f1 f2 (rl0 q s)))
  shapeP-rl (inj₁ (_ , q , _ , inj₂ (_ , refl))) = inj₂ (λ b → refl)
  shapeP-rl (inj₂ (_ , refl)) = inj₂ (λ b → refl)

  shapeL-rl : ∀ {s s'} → okPL EraseGuard (Sp.use (Sp.reg Sp.rl)) s s' → NewPg s s' ⊎ Keep s s'
  shapeL-rl {s} (inj₁ (_ , q , _ , inj₁ (_ , f1 , f2 , refl))) = inj₁ (new-after {s} {rl0 q s} {optL f1 f2 (rl0 q s)} (newR q s) (optL-keeps f1 f2 (rl0 q s)))
  shapeL-rl (inj₁ (_ , q , _ , inj₂ (_ , refl))) = inj₂ (λ b → refl)
  shapeL-rl (inj₂ (_ , refl)) = inj₂ (λ b → refl)

  -- P's flush, every commit path, keeps the L2P
  keepP-flush : ∀ {s s'} → okP (Sp.use Sp.flush) s s' → Keep s s'
  keepP-flush (inj₁ refl) a = refl
  keepP-flush (inj₂ (inj₁ refl)) a = refl
  keepP-flush (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) a = refl
  keepP-flush (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) a = refl
  keepP-flush (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) a = refl
  keepP-flush (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) a = refl

  trans-keep : ∀ {s u s'} → Keep s u → Keep u s' → Keep s s'
  trans-keep k1 k2 a = trans (k2 a) (k1 a)

  -- the chain phase's flush: the consolidation page and P's flush, or
  -- the lazy commit
  keepL-flush : ∀ {s s'} → okPL EraseGuard (Sp.use Sp.flush) s s' → Keep s s'
  keepL-flush {s} {s'} (inj₁ o) = trans-keep {s} {konsS s} {s'} (proj₂ (konsS-keeps s)) (keepP-flush o)
  keepL-flush (inj₂ (M , _ , refl)) a = refl

  -- PUSBic's flush, barrier and SYNC
  keepFl : ∀ {S S'} → SB.Model.ok PX (SB.use SB.flush) (false , S) (false , S') → Keep (stX (false , S)) (stX (false , S'))
  keepFl (inj₁ (_ , _ , refl , inj₁ (inj₁ e , _))) a = cong (λ z → l2p (st z) a) e
  keepFl (inj₁ (_ , _ , refl , inj₁ (inj₂ e , _))) a = cong (λ z → l2p (st z) a) e
  keepFl (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₁ e) , _))) a = cong (λ z → l2p (st z) a) e
  keepFl (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₂ e) , _))) a = cong (λ z → l2p (st z) a) e
  keepFl (inj₂ (() , _))

-- PX's writes and relocations map anew only P's next page, taking it
shape-w : ∀ a d {X X'} → SB.Model.ok PX (SB.use (SB.reg (SB.op (SB.w a d)))) X X' →
          NewPg (stX X) (stX X') ⊎ Keep (stX X) (stX X')
shape-w a d {false , S} (inj₁ (refl , S0 , refl , ((o , _) , _))) = shapeP-w a d o
shape-w a d {true , S} (inj₁ (refl , S0 , () , _))
shape-w a d (inj₂ (refl , _ , s' , refl , o)) = shapeL-w a d o

shape-rl : ∀ {X X'} → SB.Model.ok PX (SB.use (SB.reg (SB.op SB.rl))) X X' →
           NewPg (stX X) (stX X') ⊎ Keep (stX X) (stX X')
shape-rl {false , S} (inj₁ (refl , S0 , refl , ((o , _) , _))) = shapeP-rl o
shape-rl {true , S} (inj₁ (refl , S0 , () , _))
shape-rl (inj₂ (refl , _ , s' , refl , o)) = shapeL-rl o

-- Exactly (for counting valid sectors, SCFTL.Impl.SpaceValid): a write
-- or relocation either remaps one address in range to P's next page,
-- taking it, and keeps every other entry, or keeps the L2P, the next
-- page and P's write counter (and a write counts one: `RemapW`)
Remap : St → St → Set
Remap s s' = nxt s' ≡ suc (nxt s) × Σ ℕ λ a → a ≤ amax × (∀ b → l2p s' b ≡ (l2p s [ a ≔ just (nxt s) ]) b)

Same : St → St → Set
Same s s' = nxt s' ≡ nxt s × Keep s s' × wcnt s' ≡ wcnt s

-- a write's: the remap, and P's write counter one up from within its bound
RemapW : St → St → Set
RemapW s s' = Remap s s' × wcnt s' ≡ suc (wcnt s) × wcnt s ≤ wmax

-- a relocation's: the remap, P's write counter kept
RemapR : St → St → Set
RemapR s s' = Remap s s' × wcnt s' ≡ wcnt s

private
  remap-after : ∀ {s u u'} → Remap s u → nxt u' ≡ nxt u × Keep u u' → Remap s u'
  remap-after (en , a , le , m) (e , k) = trans e en , a , le , λ b → trans (k b) (m b)

  wc-optP : ∀ f s → wcnt (optP f s) ≡ wcnt s
  wc-optP true  s = refl
  wc-optP false s = refl

  wc-opt : ∀ f1 f2 s → wcnt (opt f1 f2 s) ≡ wcnt s
  wc-opt f1 true  s = wc-optP f1 s
  wc-opt f1 false s = wc-optP f1 s

  wc-konsS : ∀ s → wcnt (konsS s) ≡ wcnt s
  wc-konsS s with konsPg s
  ... | nothing = refl
  ... | just c  = refl

  wc-optL : ∀ f1 f2 s → wcnt (optL f1 f2 s) ≡ wcnt s
  wc-optL f1 true  s = trans (wc-konsS (optP f1 s)) (wc-optP f1 s)
  wc-optL f1 false s = wc-optP f1 s

  remapP-w : ∀ a d {s s'} → okP (Sp.use (Sp.reg (Sp.w a d))) s s' → RemapW s s' ⊎ Same s s'
  remapP-w a d {s} (inj₁ (ib , f1 , f2 , refl)) =
    inj₁ (remap-after {s} {wr0 a d s} {opt f1 f2 (wr0 a d s)} (refl , a , proj₁ ib , λ b → refl) (opt-keeps f1 f2 (wr0 a d s)) ,
          wc-opt f1 f2 (wr0 a d s) , proj₂ ib)
  remapP-w a d (inj₂ (_ , refl)) = inj₂ (refl , (λ b → refl) , refl)

  remapL-w : ∀ a d {s s'} → okPL EraseGuard (Sp.use (Sp.reg (Sp.w a d))) s s' → RemapW s s' ⊎ Same s s'
  remapL-w a d {s} (inj₁ (ib , f1 , f2 , refl)) =
    inj₁ (remap-after {s} {wr0 a d s} {optL f1 f2 (wr0 a d s)} (refl , a , proj₁ ib , λ b → refl) (optL-keeps f1 f2 (wr0 a d s)) ,
          wc-optL f1 f2 (wr0 a d s) , proj₂ ib)
  remapL-w a d (inj₂ (_ , refl)) = inj₂ (refl , (λ b → refl) , refl)

  remapP-rl : ∀ {s s'} → okP (Sp.use (Sp.reg Sp.rl)) s s' → RemapR s s' ⊎ Same s s'
  remapP-rl {s} (inj₁ (_ , q , _ , inj₁ (v , f1 , f2 , refl))) =
    inj₁ (remap-after {s} {rl0 q s} {opt f1 f2 (rl0 q s)} (refl , _ , proj₁ v , λ b → refl) (opt-keeps f1 f2 (rl0 q s)) ,
          wc-opt f1 f2 (rl0 q s))
  remapP-rl (inj₁ (_ , q , _ , inj₂ (_ , refl))) = inj₂ (refl , (λ b → refl) , refl)
  remapP-rl (inj₂ (_ , refl)) = inj₂ (refl , (λ b → refl) , refl)

  remapL-rl : ∀ {s s'} → okPL EraseGuard (Sp.use (Sp.reg Sp.rl)) s s' → RemapR s s' ⊎ Same s s'
  remapL-rl {s} (inj₁ (_ , q , _ , inj₁ (v , f1 , f2 , refl))) =
    inj₁ (remap-after {s} {rl0 q s} {optL f1 f2 (rl0 q s)} (refl , _ , proj₁ v , λ b → refl) (optL-keeps f1 f2 (rl0 q s)) ,
          wc-optL f1 f2 (rl0 q s))
  remapL-rl (inj₁ (_ , q , _ , inj₂ (_ , refl))) = inj₂ (refl , (λ b → refl) , refl)
  remapL-rl (inj₂ (_ , refl)) = inj₂ (refl , (λ b → refl) , refl)

remap-w : ∀ a d {X X'} → SB.Model.ok PX (SB.use (SB.reg (SB.op (SB.w a d)))) X X' →
          RemapW (stX X) (stX X') ⊎ Same (stX X) (stX X')
remap-w a d {false , S} (inj₁ (refl , S0 , refl , ((o , _) , _))) = remapP-w a d o
remap-w a d {true , S} (inj₁ (refl , S0 , () , _))
remap-w a d (inj₂ (refl , _ , s' , refl , o)) = remapL-w a d o

remap-rl : ∀ {X X'} → SB.Model.ok PX (SB.use (SB.reg (SB.op SB.rl))) X X' →
           RemapR (stX X) (stX X') ⊎ Same (stX X) (stX X')
remap-rl {false , S} (inj₁ (refl , S0 , refl , ((o , _) , _))) = remapP-rl o
remap-rl {true , S} (inj₁ (refl , S0 , () , _))
remap-rl (inj₂ (refl , _ , s' , refl , o)) = remapL-rl o

-- flush, barrier and SYNC keep the L2P, in either phase
keep-flush : ∀ {X X'} → SB.Model.ok PX (SB.use SB.flush) X X' → Keep (stX X) (stX X')
keep-flush {false , S} {.false , S'} o@(inj₁ (refl , _ , refl , _)) = keepFl {S} {S'} o
keep-flush {true , S} (inj₁ (refl , S0 , () , _))
keep-flush {b , S} {.true , S'} (inj₂ (refl , _ , s' , e , o)) =
  trans-keep {stX (b , S)} {s'} {stX (true , S')} (keepL-flush o) (λ a → cong (λ z → l2p (st (su z)) a) e)

-- every flush of PX ends the epoch: P's write counter is 0 after it
-- (every commit path: P's, PUSBic's, the chain phase's and the lazy one)
private
  wcP-flush : ∀ {s s'} → okP (Sp.use Sp.flush) s s' → wcnt s' ≡ 0
  wcP-flush (inj₁ refl) = refl
  wcP-flush (inj₂ (inj₁ refl)) = refl
  wcP-flush (inj₂ (inj₂ (inj₁ (L , _ , inj₁ refl)))) = refl
  wcP-flush (inj₂ (inj₂ (inj₁ (L , _ , inj₂ refl)))) = refl
  wcP-flush (inj₂ (inj₂ (inj₂ (L , M , _ , inj₁ refl)))) = refl
  wcP-flush (inj₂ (inj₂ (inj₂ (L , M , _ , inj₂ refl)))) = refl

  wcL-flush : ∀ {s s'} → okPL EraseGuard (Sp.use Sp.flush) s s' → wcnt s' ≡ 0
  wcL-flush (inj₁ o) = wcP-flush o
  wcL-flush (inj₂ (M , _ , refl)) = refl

  wcFl : ∀ {S S'} → SB.Model.ok PX (SB.use SB.flush) (false , S) (false , S') → wcnt (stX (false , S')) ≡ 0
  wcFl (inj₁ (_ , _ , refl , inj₁ (inj₁ e , _))) = cong (λ z → wcnt (st z)) e
  wcFl (inj₁ (_ , _ , refl , inj₁ (inj₂ e , _))) = cong (λ z → wcnt (st z)) e
  wcFl (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₁ e) , _))) = cong (λ z → wcnt (st z)) e
  wcFl (inj₁ (_ , _ , refl , inj₂ ((_ , M , _ , inj₂ e) , _))) = cong (λ z → wcnt (st z)) e
  wcFl (inj₂ (() , _))

wc-flush : ∀ {X X'} → SB.Model.ok PX (SB.use SB.flush) X X' → wcnt (stX X') ≡ 0
wc-flush {false , S} {.false , S'} o@(inj₁ (refl , _ , refl , _)) = wcFl {S} {S'} o
wc-flush {true , S} (inj₁ (refl , S0 , () , _))
wc-flush {b , S} {.true , S'} (inj₂ (refl , _ , s' , e , o)) = trans (cong (λ z → wcnt (st (su z))) e) (wcL-flush o)

-- every barrier of PX ends the epoch too: P's write counter is 0 after it
wc-barrier : ∀ {X X'} → SB.Model.ok PX (SB.use (SB.reg SB.barrier)) X X' → wcnt (stX X') ≡ 0
wc-barrier {false , S} (inj₁ (refl , .S , refl , (inj₁ (_ , e) , _))) = cong (λ z → wcnt (st z)) e
wc-barrier {false , S} (inj₁ (refl , .S , refl , (inj₂ (inj₁ e) , _))) = cong (λ z → wcnt (st z)) e
wc-barrier {false , S} (inj₁ (refl , .S , refl , (inj₂ (inj₂ e) , _))) = cong (λ z → wcnt (st z)) e
wc-barrier {true , S} (inj₁ (refl , S0 , e0 , (inj₁ (_ , e) , _))) = cong (λ z → wcnt (st z)) e
wc-barrier {true , S} (inj₁ (refl , S0 , e0 , (inj₂ (inj₁ e) , _))) = cong (λ z → wcnt (st z)) e
wc-barrier {true , S} (inj₁ (refl , S0 , e0 , (inj₂ (inj₂ e) , _))) = cong (λ z → wcnt (st z)) e
wc-barrier (inj₂ (refl , _ , s' , _ , ()))

keep-barrier : ∀ {X X'} → SB.Model.ok PX (SB.use (SB.reg SB.barrier)) X X' → Keep (stX X) (stX X')
keep-barrier {false , S} (inj₁ (refl , .S , refl , (inj₁ (_ , e) , _))) a = cong (λ z → l2p (st z) a) e
keep-barrier {false , S} (inj₁ (refl , .S , refl , (inj₂ (inj₁ e) , _))) a = cong (λ z → l2p (st z) a) e
keep-barrier {false , S} (inj₁ (refl , .S , refl , (inj₂ (inj₂ e) , _))) a = cong (λ z → l2p (st z) a) e
keep-barrier {true , S} (inj₁ (refl , S0 , e0 , (inj₁ (_ , e) , _))) a =
  trans (cong (λ z → l2p (st z) a) e) (trans (cong (λ z → l2p (st (su z)) a) e0) (proj₂ (konsS-keeps (stX (true , S))) a))
keep-barrier {true , S} (inj₁ (refl , S0 , e0 , (inj₂ (inj₁ e) , _))) a =
  trans (cong (λ z → l2p (st z) a) e) (trans (cong (λ z → l2p (st (su z)) a) e0) (proj₂ (konsS-keeps (stX (true , S))) a))
keep-barrier {true , S} (inj₁ (refl , S0 , e0 , (inj₂ (inj₂ e) , _))) a =
  trans (cong (λ z → l2p (st z) a) e) (trans (cong (λ z → l2p (st (su z)) a) e0) (proj₂ (konsS-keeps (stX (true , S))) a))
keep-barrier (inj₂ (refl , _ , s' , _ , ()))

-- a SYNC of PX keeps P's write counter
wc-sy : ∀ {X X'} → SB.Model.ok PX (SB.use (SB.reg (SB.op SB.sy))) X X' → wcnt (stX X') ≡ wcnt (stX X)
wc-sy {false , S} (inj₁ (refl , .S , refl , inj₁ (r , _ , e , _))) = cong (λ z → wcnt (st z)) e
wc-sy {false , S} (inj₁ (refl , .S , refl , inj₂ (xs , ys , l , r , _ , _ , _ , e , _))) = cong (λ z → wcnt (st z)) e
wc-sy {true , S} (inj₁ (refl , S0 , () , _))
wc-sy (inj₂ (refl , _ , s' , _ , ()))

keep-sy : ∀ {X X'} → SB.Model.ok PX (SB.use (SB.reg (SB.op SB.sy))) X X' → Keep (stX X) (stX X')
keep-sy {false , S} (inj₁ (refl , .S , refl , inj₁ (r , _ , e , _))) a = cong (λ z → l2p (st z) a) e
keep-sy {false , S} (inj₁ (refl , .S , refl , inj₂ (xs , ys , l , r , _ , _ , _ , e , _))) a = cong (λ z → l2p (st z) a) e
keep-sy {true , S} (inj₁ (refl , S0 , () , _))
keep-sy (inj₂ (refl , _ , s' , _ , ()))

------------------------------------------------------------------------
-- Allocation keeps every located page where it is and locates the new one

private
  wp-grow : ∀ (f : ℕ → ℕ) k kp → f kp ≤ (f [ k ≔ suc (f k) ]) kp
  wp-grow f k kp with kp ≟ℕ k
  ... | yes refl = ≤-trans (n≤1+n (f kp)) (≤-reflexive (sym (upd-self f kp _)))
  ... | no ne    = ≤-reflexive (sym (upd-ne f kp k _ ne))

old-stays : ∀ bl k n p → here bl p ≡ true → InR bl p → ¬ (p ≡ n) →
            here (balloc k n bl) p ≡ true × InR (balloc k n bl) p
old-stays bl k n p h ir pn = h' , ir'
  where
    bl' = balloc k n bl
    lp : loc bl' p ≡ loc bl p
    lp = upd-ne (loc bl) p n _ pn
    own-eq : own bl' (proj₁ (loc bl p)) (proj₂ (loc bl p)) ≡ own bl (proj₁ (loc bl p)) (proj₂ (loc bl p))
    own-eq = own-balloc-ne bl k n (proj₁ (loc bl p)) (proj₂ (loc bl p))
               (λ { (e1 , e2) → <-irrefl refl (subst₂ _<_ e2 (cong (wp bl) e1) ir) })
               (λ e → subst (λ z → proj₂ (loc bl p) < wp bl z) e ir)
    h' : here bl' p ≡ true
    h' = subst (λ l → hereM (own bl' (proj₁ l) (proj₂ l)) p ≡ true) (sym lp)
               (trans (cong (λ m → hereM m p) own-eq) h)
    ir' : InR bl' p
    ir' = subst (λ l → proj₂ l < wp bl' (proj₁ l)) (sym lp)
                (<-transˡ ir (wp-grow (wp bl) k (proj₁ (loc bl p))))

new-here : ∀ bl k n → here (balloc k n bl) n ≡ true × InR (balloc k n bl) n
new-here bl k n = here-at bl' n k (wp bl k) ow ln , ir
  where
    bl' = balloc k n bl
    ln : loc bl' n ≡ (k , wp bl k)
    ln = upd-self (loc bl) n _
    ow : own bl' k (wp bl k) ≡ just n
    ow = trans (cong (λ f → f (wp bl k)) (upd-self (own bl) k _)) (upd-self (act bl k) (wp bl k) (just n))
    ir : InR bl' n
    ir = subst (λ l → proj₂ l < wp bl' (proj₁ l)) (sym ln)
               (subst (wp bl k <_) (sym (upd-self (wp bl) k _)) (n<1+n (wp bl k)))

loc-place : ∀ {X X' bl bl'} → OPX.RI X → LocX X bl → (NewPg (stX X) (stX X') ⊎ Keep (stX X) (stX X')) →
            Place X X' bl bl' → LocX X' bl'
loc-place {X} {X'} {bl} r lx (inj₂ keep) (inj₁ (_ , k , aok , refl)) a p le m =
  old-stays bl k (nxt (stX X)) p (proj₁ L) (proj₂ L) (λ e → <-irrefl e (lt-nxt {X} r a p le m0))
  where
    m0 = trans (sym (keep a)) m
    L = lx a p le m0
loc-place r lx (inj₂ keep) (inj₂ (_ , refl)) a p le m = lx a p le (trans (sym (keep a)) m)
loc-place {X} r lx (inj₁ (en , _)) (inj₂ (e , _)) a p le m =
  ⊥-elim (<-irrefl (trans (sym e) en) (n<1+n (nxt (stX X))))
loc-place {X} {X'} {bl} r lx (inj₁ (en , mp)) (inj₁ (_ , k , aok , refl)) a p le m with mp a p m
... | inj₁ m0 = old-stays bl k (nxt (stX X)) p (proj₁ L) (proj₂ L) (λ e → <-irrefl e (lt-nxt {X} r a p le m0))
  where L = lx a p le m0
... | inj₂ refl = new-here bl k (nxt (stX X))

------------------------------------------------------------------------
-- A block erase leaves no mapped page in the block

_∈_ : ℕ → List ℕ → Set
p ∈ ps = Any (p ≡_) ps

private
  cons-keep : ∀ {p} m {xs} → p ∈ xs → p ∈ consM m xs
  cons-keep nothing  i = i
  cons-keep (just q) i = tl i

owners-mem : ∀ bl k n o p → o < n → own bl k o ≡ just p → p ∈ ownersB bl k n
owners-mem bl k (suc n) o p (s≤s lt) e with o ≟ℕ n
... | yes refl = subst (λ m → p ∈ consM m (ownersB bl k o)) (sym e) (hd refl)
... | no ne    = cons-keep (own bl k n) (owners-mem bl k n o p (≤∧≢⇒< lt ne) e)

Unm : St → ℕ → Set
Unm s q = ∀ a → a ≤ amax → l2p s a ≢ just q

private
  t≢f : true ≢ false
  t≢f ()

-- an erase step's page is the one PX's step made non-erasable
same-pg : ∀ {s q p' u} → u ≡ esF q s → u ≡ esF p' s → ers s p' ≡ true → q ≡ p'
same-pg {s} {q} {p'} e1 e2 ep with q ≟ℕ p'
... | yes eq = eq
... | no ne  = ⊥-elim (t≢f (trans (sym lhs) (trans h rhs)))
  where
    h : ers (esF q s) p' ≡ ers (esF p' s) p'
    h = cong (λ z → ers z p') (trans (sym e1) e2)
    lhs : ers (esF q s) p' ≡ true
    lhs = trans (upd-ne (ers s) p' q false (λ x → ne (sym x))) ep
    rhs : ers (esF p' s) p' ≡ false
    rhs = upd-self (ers s) p' false

private
  step-unm : ∀ {X q X1} → OPX.RI X → SB.Model.ok PX (SB.use (SB.reg (SB.op SB.es))) X X1 →
             stX X1 ≡ esF q (stX X) → Unm (stX X) q × Keep (stX X) (stX X1)
  step-unm {X} {q} r o eq with px-es-safe {X} r o
  ... | p' , e' , free , ep = subst (Unm (stX X)) (sym (same-pg {stX X} eq e' ep)) free ,
                              λ a → cong (λ z → l2p z a) e'

-- every page a block erase erases is one the L2P does not map
run-unm : ∀ {X ps X'} → OPX.RI X → EsRunM X ps X' → All (Unm (stX X)) ps
run-unm {X} r (one (o , eq)) = proj₁ (step-unm {X} r o eq) ∷ []
run-unm {X} r (_∷_ {X1 = X1} (o , eq) rn) =
  proj₁ (step-unm {X} r o eq) ∷
  all-map (λ u a le m → u a le (trans (proj₂ (step-unm {X} r o eq) a) m)) (run-unm {X1} (OPX.B-ok (SB.reg (SB.op SB.es)) r o) rn)

private
  lookup∈ : ∀ {P : ℕ → Set} {p ps} → All P ps → p ∈ ps → P p
  lookup∈ (x ∷ _)  (hd refl) = x
  lookup∈ (_ ∷ xs) (tl i)    = lookup∈ xs i

  inr-erase : ∀ {X X' bl k} → OPX.RI X → EsRunM X (owners bl k) X' → ∀ a p → a ≤ amax →
              l2p (stX X) a ≡ just p → here bl p ≡ true → InR bl p → InR (berase k bl) p
  inr-erase {X} {X'} {bl} {k} r rn a p le m h ir with proj₁ (loc bl p) ≟ℕ k
  ... | no ne = subst (proj₂ (loc bl p) <_) (sym (upd-ne (wp bl) (proj₁ (loc bl p)) k 0 ne)) ir
  ... | yes e = ⊥-elim (lookup∈ (run-unm {X} r rn) mem a le m)
    where
      own-k : own bl k (proj₂ (loc bl p)) ≡ just p
      own-k = subst (λ z → own bl z (proj₂ (loc bl p)) ≡ just p) e (here-own bl p h)
      mem : p ∈ owners bl k
      mem = owners-mem bl k (wp bl k) (proj₂ (loc bl p)) p (subst (λ z → proj₂ (loc bl p) < wp bl z) e ir) own-k

------------------------------------------------------------------------
-- Every operation of BXone but recovery keeps LocX

loc-ok : ∀ u {X X' bl bl'} → OPX.RI X → LocX X bl → SB.Model.ok BXone (SB.use u) (X , bl) (X' , bl') → LocX X' bl'
loc-ok (SB.reg (SB.op (SB.w a d))) {X} {X'} {bl} {bl'} r lx (o , pl) =
  loc-place {X} {X'} {bl} {bl'} r lx (shape-w a d {X} {X'} o) pl
loc-ok (SB.reg (SB.op SB.rl)) {X} {X'} {bl} {bl'} r lx (o , pl) =
  loc-place {X} {X'} {bl} {bl'} r lx (shape-rl {X} {X'} o) pl
loc-ok (SB.reg (SB.op SB.es)) {X} {X'} {bl} r lx (k , rn , refl) a p le m =
  proj₁ L , inr-erase {X} {X'} {bl} {k} r rn a p le m0 (proj₁ L) (proj₂ L)
  where
    m0 = trans (sym (proj₁ (block-erase-safe {X , bl} {X' , berase k bl} r (k , rn , refl)) a)) m
    L = lx a p le m0
loc-ok (SB.reg (SB.op SB.sy)) {X} {X'} r lx (o , refl) a p le m = lx a p le (trans (sym (keep-sy {X} {X'} o a)) m)
loc-ok (SB.reg SB.barrier) {X} {X'} r lx (o , refl) a p le m = lx a p le (trans (sym (keep-barrier {X} {X'} o a)) m)
loc-ok SB.flush {X} {X'} r lx (o , refl) a p le m = lx a p le (trans (sym (keep-flush {X} {X'} o a)) m)

------------------------------------------------------------------------
-- Erase before program: a page waiting in P's merge buffer is an erased
-- physical page (`cell`, `here-mb`), placed only on a physical page the
-- allocation found erased at its block's write pointer (`AllocOK`), and
-- nothing else is placed there before a block erase; so when the merge
-- buffer is programmed, every page in it that is located finds its
-- physical page erased.  (Until the twenty-first session the allocation
-- asked P's page taken to be erased in P too, and `EB` carried that to
-- the program; P takes a page number again after a crash that lost it,
-- with whatever content P kept, so that guard refused the code's
-- allocations after such a crash.)

program-erased : ∀ {X bl} → ∀ p x → mb (stX X) p ≡ just x → here bl p ≡ true →
                 cur (cell (stX X) bl (proj₁ (loc bl p)) (proj₂ (loc bl p))) ≡ erased
program-erased {X} {bl} p x m h = cong cur (here-mb (stX X) bl p h m)
