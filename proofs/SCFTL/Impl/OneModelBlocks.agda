{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Issue 39: the block layer in the one model.  BXone is PX
-- (SCFTL.Impl.OneModel: every commit path the code runs) with the
-- superblock rules of SCFTL.Impl.BlocksOver on top: in-order
-- programming at the write pointer of the open or a reusable block,
-- program only of erased physical pages, a physical page's content its
-- last incarnation's, erase per block as PX's own erase step for every
-- page placed in the block since its last erase (so the lazy chain's
-- guard and the unsynced epochs' hold for each of them).
--
--   obligationsBXone : ForwardSimulation.Obligations BXone SB
--   theorem1-BXone   : Theorem 1 for BXone against SB
--   BXone-snapshot-consistent : SC1B
--
-- Also: every erase step of PX erases a page no L2P entry names
-- (`px-es-safe`), so a block erase keeps every mapped page
-- (`block-erase-safe`).  Physical reads: SCFTL.Impl.OneModelBlocksRead;
-- see proofs/README.md, "Blocks in the one model".
------------------------------------------------------------------------
open import Data.Nat.Base using (ℕ)
open import Relation.Binary.Definitions using (DecidableEquality)

module SCFTL.Impl.OneModelBlocks (Data : Set) (d0 : Data) (amax wmax kmax umax : ℕ)
                                 (_≟D_ : DecidableEquality Data) (kc zb : ℕ) where

open import Data.Bool.Base using (Bool; true; false)
open import Data.Nat.Base using (ℕ; suc; _≤_)
open import Data.List.Base using ([])
open import Relation.Nullary using (¬_)
open import Data.Maybe.Base using (nothing; just)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Binary.PropositionalEquality using (_≡_; _≢_; refl; sym; trans; cong)

open import SCFTL.Impl.Model Data d0 amax wmax kmax _≟D_ using (St; nxt; okP; opt; optP; wr0; rl0; l2p; dat; esF; ers)
open import SCFTL.Impl.Invariants Data d0 amax wmax kmax _≟D_ using (RI)
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (⟪_,_⟫; GcI; module GcI)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (⟦_,_⟧)
open import SCFTL.Impl.UnsyncedBridgeAll Data d0 amax wmax kmax umax _≟D_ using (ivX; ri-X)
open import SCFTL.Impl.LazyChainObligations Data d0 amax wmax kmax _≟D_ kc using (RIL)
open import SCFTL.Impl.LazyChainModel Data d0 amax wmax kmax _≟D_ kc using (okPL; EraseGuard; optL; konsS; konsPg)
import SCFTL.Spec Data d0 amax wmax as Sp
open import SCFTL.Impl.UnsyncedBarrier Data d0 amax wmax kmax umax _≟D_ using (st)
open import SCFTL.Impl.UnsyncedModel Data d0 amax wmax kmax umax _≟D_ using (su)
open import SCFTL.Impl.OneModel Data d0 amax wmax kmax umax _≟D_ kc using (XS; PX; obligationsPX)
open import SCFTL.Impl.BlocksOver Data d0 amax wmax kmax umax _≟D_ zb
import SCFTL.SpecBarrier Data d0 amax wmax umax as SB

-- P's state inside PX's
stX : XS → St
stX X = st (su (proj₂ X))

open Over PX stX public

BXone : SB.Model
BXone = BX

obligationsBXone : SB.ForwardSimulation.Obligations BXone SB.SB
obligationsBXone = obligationsBX obligationsPX

theorem1-BXone : SB.CorrespondenceB.BehaviourallyCorrect BXone SB.SB
theorem1-BXone = theorem1-BX obligationsPX

BXone-snapshot-consistent : SB.SnapshotConsistentB BXone
BXone-snapshot-consistent = BX-snapshot-consistent obligationsPX

------------------------------------------------------------------------
-- Not vacuous: every write and relocation PX takes is a step of BXone
-- wherever the block rules find its page (P's next page taken, or
-- none), and on a new disk they do (`new-place`)

Grow : St → St → Set
Grow s s' = nxt s' ≡ suc (nxt s) ⊎ nxt s' ≡ nxt s

-- the consolidation page takes no page of P's
konsS-nxt : ∀ s → nxt (konsS s) ≡ nxt s
konsS-nxt s with konsPg s
... | nothing = refl
... | just c  = refl

private
  optP-nxt : ∀ f s → nxt (optP f s) ≡ nxt s
  optP-nxt true  s = refl
  optP-nxt false s = refl

  opt-nxt : ∀ f1 f2 s → nxt (opt f1 f2 s) ≡ nxt s
  opt-nxt f1 true  s = optP-nxt f1 s
  opt-nxt f1 false s = optP-nxt f1 s

  optL-nxt : ∀ f1 f2 s → nxt (optL f1 f2 s) ≡ nxt s
  optL-nxt f1 true  s rewrite konsS-nxt (optP f1 s) = optP-nxt f1 s
  optL-nxt f1 false s = optP-nxt f1 s

  growP-w : ∀ a d {s s'} → okP (Sp.use (Sp.reg (Sp.w a d))) s s' → Grow s s'
  growP-w a d {s} (inj₁ (_ , f1 , f2 , refl)) = inj₁ (opt-nxt f1 f2 (wr0 a d s))
  growP-w a d (inj₂ (_ , refl)) = inj₂ refl

  growP-rl : ∀ {s s'} → okP (Sp.use (Sp.reg Sp.rl)) s s' → Grow s s'
  growP-rl {s} (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , refl))) = inj₁ (opt-nxt f1 f2 (rl0 p s))
  growP-rl (inj₁ (_ , p , _ , inj₂ (_ , refl))) = inj₂ refl
  growP-rl (inj₂ (_ , refl)) = inj₂ refl

  growL-w : ∀ a d {s s'} → okPL EraseGuard (Sp.use (Sp.reg (Sp.w a d))) s s' → Grow s s'
  growL-w a d {s} (inj₁ (_ , f1 , f2 , refl)) = inj₁ (optL-nxt f1 f2 (wr0 a d s))
  growL-w a d (inj₂ (_ , refl)) = inj₂ refl

  growL-rl : ∀ {s s'} → okPL EraseGuard (Sp.use (Sp.reg Sp.rl)) s s' → Grow s s'
  growL-rl {s} (inj₁ (_ , p , _ , inj₁ (_ , f1 , f2 , refl))) = inj₁ (optL-nxt f1 f2 (rl0 p s))
  growL-rl (inj₁ (_ , p , _ , inj₂ (_ , refl))) = inj₂ refl
  growL-rl (inj₂ (_ , refl)) = inj₂ refl

-- PX's writes and relocations take P's next page or none
grow-w : ∀ a d {X X'} → SB.Model.ok PX (SB.use (SB.reg (SB.op (SB.w a d)))) X X' → Grow (stX X) (stX X')
grow-w a d {false , S} (inj₁ (refl , S0 , refl , ((o , _) , _))) = growP-w a d o
grow-w a d {true , S} (inj₁ (refl , S0 , () , _))
grow-w a d (inj₂ (refl , _ , s' , refl , o)) = growL-w a d o

grow-rl : ∀ {X X'} → SB.Model.ok PX (SB.use (SB.reg (SB.op SB.rl))) X X' → Grow (stX X) (stX X')
grow-rl {false , S} (inj₁ (refl , S0 , refl , ((o , _) , _))) = growP-rl o
grow-rl {true , S} (inj₁ (refl , S0 , () , _))
grow-rl (inj₂ (refl , _ , s' , refl , o)) = growL-rl o

-- a write of PX whose page the block rules find is a write of BXone
bx-w : ∀ a d {X X' bl} → SB.Model.ok PX (SB.use (SB.reg (SB.op (SB.w a d)))) X X' →
       (nxt (stX X') ≡ suc (nxt (stX X)) → Σ ℕ λ k → AllocOK (stX X) bl k) →
       Σ BL λ bl' → SB.Model.ok BXone (SB.use (SB.reg (SB.op (SB.w a d)))) (X , bl) (X' , bl')
bx-w a d {X} {X'} {bl} o al = proj₁ P , o , proj₂ P
  where P = grow-place {X} {X'} {bl} (grow-w a d {X} {X'} o) al

bx-rl : ∀ {X X' bl} → SB.Model.ok PX (SB.use (SB.reg (SB.op SB.rl))) X X' →
        (nxt (stX X') ≡ suc (nxt (stX X)) → Σ ℕ λ k → AllocOK (stX X) bl k) →
        Σ BL λ bl' → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.rl))) (X , bl) (X' , bl')
bx-rl {X} {X'} {bl} o al = proj₁ P , o , proj₂ P
  where P = grow-place {X} {X'} {bl} (grow-rl {X} {X'} o) al

------------------------------------------------------------------------
-- A block erase never touches a page the L2P maps

module OPX = SB.ForwardSimulation.Obligations obligationsPX

-- P's invariant where the lazy chain's phase holds: no erasable page
-- is mapped
ril-eOK : ∀ {s p} → RIL s → ers s p ≡ true → ∀ a → a ≤ amax → l2p s a ≢ just p
ril-eOK {p = p} (inj₁ r) ep = proj₁ (proj₂ (RI.eOK r p ep))
ril-eOK {p = p} (inj₂ (_ , r , _)) ep = proj₁ (proj₂ (RI.eOK r p ep))


-- P's RI (on the state or the virtually consolidated one) from PUSBic's
-- RI with no epoch unsynced
ril-of : ∀ {s g} → OPX.RI (false , ⟦ ⟪ s , [] ⟫ , g ⟧) → RIL s
ril-of {s} {g} (t , a , y) = inj₁ (ri-X (ivX {⟦ ⟪ s , [] ⟫ , g ⟧} {t} a) y)

-- every erase step of PX erases a page no L2P entry names
px-es-safe : ∀ {X X'} → OPX.RI X → SB.Model.ok PX (SB.use (SB.reg (SB.op SB.es))) X X' →
             Σ ℕ λ p → stX X' ≡ esF p (stX X) × (∀ a → a ≤ amax → l2p (stX X) a ≢ just p) × ers (stX X) p ≡ true
px-es-safe {false , S} (t , a , _) (inj₁ (refl , .S , refl , (((p , ep , e) , _) , _))) =
  p , e , proj₂ (GcI.ersI gc p ep) , ep
  where
    gc : GcI (stX (false , S))
    gc = proj₁ (proj₁ (proj₂ (proj₁ (ivX {S} {t} a))))
px-es-safe {true , S} _ (inj₁ (_ , _ , () , _))
px-es-safe {false , ⟦ ⟪ s , .[] ⟫ , g ⟧} r (inj₂ (refl , refl , s' , refl , (p , ep , _ , e))) =
  p , e , ril-eOK (ril-of {s} {g} r) ep , ep
px-es-safe {true , ⟦ ⟪ s , .[] ⟫ , g ⟧} (_ , r) (inj₂ (refl , refl , s' , refl , (p , ep , _ , e))) =
  p , e , ril-eOK r ep , ep

private
  upd-dat : ∀ {s p q} → ¬ (p ≡ q) → dat (esF q s) p ≡ dat s p
  upd-dat {s} {p} {q} ne = upd-ne (dat s) p q _ ne

  run-safe : ∀ {X ps X'} → OPX.RI X → EsRunM X ps X' →
             (∀ a → l2p (stX X') a ≡ l2p (stX X) a)
           × (∀ a p → a ≤ amax → l2p (stX X) a ≡ just p → dat (stX X') p ≡ dat (stX X) p)
  run-safe {X} r (one (o , _)) with px-es-safe {X} r o
  ... | q , e , free , _ =
    (λ a → cong (λ z → l2p z a) e) ,
    (λ a p le m → trans (cong (λ z → dat z p) e) (upd-dat {stX X} {p} {q} (λ { refl → free a le m })))
  run-safe {X} r ((o , _) ∷ rn) with px-es-safe {X} r o | run-safe (OPX.B-ok (SB.reg (SB.op SB.es)) r o) rn
  ... | q , e , free , _ | keepL , keepD =
    (λ a → trans (keepL a) (cong (λ z → l2p z a) e)) ,
    (λ a p le m → trans (keepD a p le (trans (cong (λ z → l2p z a) e) m))
                        (trans (cong (λ z → dat z p) e) (upd-dat {stX X} {p} {q} (λ { refl → free a le m }))))

-- a block erase of BXone keeps the L2P and the content of every page
-- it maps (every page of the block is erased by PX's own erase step,
-- which erases only pages no L2P entry names: `px-es-safe`)
block-erase-safe : ∀ {Y Y'} → OPX.RI (proj₁ Y) → SB.Model.ok BXone (SB.use (SB.reg (SB.op SB.es))) Y Y' →
                   (∀ a → l2p (stX (proj₁ Y')) a ≡ l2p (stX (proj₁ Y)) a)
                 × (∀ a p → a ≤ amax → l2p (stX (proj₁ Y)) a ≡ just p → dat (stX (proj₁ Y')) p ≡ dat (stX (proj₁ Y)) p)
block-erase-safe r (k , rn , _) = run-safe r rn
