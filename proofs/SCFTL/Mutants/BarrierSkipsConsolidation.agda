{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 42 (issue 39), of the one model PX (SCFTL.Impl.OneModel): a
-- barrier from the chain phase is PUSBic's barrier on the state as it
-- is, WITHOUT the chain's consolidation page first (PX: `Pre true` is
-- PL's consolidation step `konsU`; the code's `fl_b` runs `kons_s`
-- before the barrier's region page).  PUSBic's recovery, which the
-- barrier's crash leads to, reads the region and the link of its newest
-- commit once: a chain of lazily committed records above it is lost.
--
-- The model: `PXwith PreM`, PX's steps with the mutated `Pre`.
--
-- Counterexample (one-recovery fragment after format + recovery):
--   flush (empty epoch 1 on the region, link 0); w(0,true) to page 0;
--   lazy flush in page 0 (epoch 2, link 1); w(1,true) to page 1; lazy
--   flush in page 1 (epoch 3, link 2: a chain of two records); barrier,
--   crashing before its first command (the mutant: PUSBic's barrier from
--   the chain's state), everything landed; recover (PUSBic's).
-- SC1B (a crashed barrier right after the flush) allows the images
-- before and after the last flush, both (true,true).  The mutant's
-- recovery (PUSBic's: the region and the unsynced epochs above its
-- durable part, no record) replays epoch 1 only: (false,false), both
-- lazily committed epochs lost (`recovered`).  In PX the
-- barrier's crash points from the chain phase are PL's flush's, whose
-- recovery walks the whole chain (`pl-recovers`), or PUSBic's
-- barrier's after the consolidation page, which holds both records'
-- pairs.
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.BarrierSkipsConsolidation where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s; _≤_; _<_)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Empty using (⊥)
open import Data.List.Base using (List; []; _∷_)
open import Data.List.Relation.Unary.Any using (here; there)
open import Data.List.Relation.Unary.All using (All; [])
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0; img-sync)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.Lemmas Bool false A W K _≟B_ using () renaming ([] to []L)
open import SCFTL.Impl.CrashPoints Bool false A W K _≟B_ using (before)
open import SCFTL.Impl.LazyChainP Bool false A W K _≟B_ using (fiL)
open import SCFTL.Impl.LazyChainModel Bool false A W K _≟B_ 32 using (rec0L)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_ using (Gh; SU; ⟦_,_⟧; su; gh; ghostN)
open import SCFTL.Impl.UnsyncedCommands Bool false A W K 3 _≟B_ using (ghC)
open import SCFTL.Impl.OneModel Bool false A W K 3 _≟B_ 32 using (XS; lzS; okPXw; crashPXw; PXwith)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; UOp; use; reg; op; barrier; w)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

-- MUTATED: from the chain phase, PUSBic's barrier on the state itself
-- (PX: `S0 ≡ konsU S`, the consolidation page first)
PreM : Bool → UOp → SU → SU → Set
PreM false u S S0 = S0 ≡ S
PreM true (reg barrier) S S0 = S0 ≡ S
PreM true _ _ _ = ⊥

Pmut : Model
Pmut = PXwith PreM

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 s7 s8 : St
s1 = recU true 0 unmapped [] [] s0   -- recovery from the new disk (generation 1)
s2 = fl3 s1                          -- flush: empty epoch 1, link 0
s3 = wr0 0 true s2                   -- w(0,true) to page 0
s4 = fiL 0 s3                        -- lazy flush in page 0 (epoch 2, link 1)
s5 = wr0 1 true s4                   -- w(1,true) to page 1
s6 = fiL 1 s5                        -- lazy flush in page 1 (epoch 3, link 2)
s7 = syncAll s6                      -- the barrier crashes before its first command

g1 g7 : Gh
g1 = ghostN ⟪ s1 , [] ⟫
g7 = ghC ⟪ s6 , [] ⟫ (before [] []L)

s8 = recU true 1 unmapped (proj₂ g7) [] s7   -- PUSBic's recovery

lazy1 : InP s3 0
lazy1 = refl , refl , s≤s z≤n , only
  where
    only : ∀ p → 0 ≤ p → p < nxt s3 → Σ Bool λ d → Σ ℕ λ a → mb s3 p ≡ just (d , a)
    only zero    _ _ = true , 0 , refl
    only (suc p) _ (s≤s ())

lazy2 : InP s5 1
lazy2 = refl , refl , s≤s (s≤s z≤n) , only
  where
    only : ∀ p → 1 ≤ p → p < nxt s5 → Σ Bool λ d → Σ ℕ λ a → mb s5 p ≡ just (d , a)
    only (suc zero)    _ _                   = true , 1 , refl
    only (suc (suc p)) _ (s≤s (s≤s ()))

X0 X1 X2 X3 X4 X5 X6 X7 X8 : XS
X0 = false , ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧
X1 = false , ⟦ ⟪ s1 , [] ⟫ , g1 ⟧
X2 = true , lzS s2 g1
X3 = true , lzS s3 g1
X4 = true , lzS s4 g1
X5 = true , lzS s5 g1
X6 = true , lzS s6 g1
X7 = false , ⟦ ⟪ s7 , [] ⟫ , g7 ⟧
X8 = false , ⟦ ⟪ s8 , [] ⟫ , ghostN ⟪ s8 , [] ⟫ ⟧

open FragmentsB Pmut

r1 : okPXw PreM SB.recover X0 X1
r1 = refl , inj₁ ((true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)

f1 : okPXw PreM (use SB.flush) X1 X2
f1 = inj₂ (refl , refl , s2 , refl , inj₁ (inj₁ refl))

w1 : okPXw PreM (use (reg (op (w 0 true)))) X2 X3
w1 = inj₂ (refl , refl , s3 , refl , inj₁ ((z≤n , z≤n) , false , false , refl))

f2 : okPXw PreM (use SB.flush) X3 X4
f2 = inj₂ (refl , refl , s4 , refl , inj₂ (0 , (s≤s z≤n , inj₁ lazy1) , refl))

w2 : okPXw PreM (use (reg (op (w 1 true)))) X4 X5
w2 = inj₂ (refl , refl , s5 , refl , inj₁ ((s≤s z≤n , z≤n) , false , false , refl))

f3 : okPXw PreM (use SB.flush) X5 X6
f3 = inj₂ (refl , refl , s6 , refl , inj₂ (1 , (s≤s (s≤s z≤n) , inj₁ lazy2) , refl))

c : crashPXw PreM (use (reg barrier)) X6 X7
c = inj₁ (refl , lzS s6 g1 , refl , inj₁ (s≤s z≤n , s6 , before [] []L , img-sync s6 , refl) , refl)

r2 : okPXw PreM SB.recover X7 X8
r2 = refl , inj₁ ((true , 1 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl)

shape : ShapeM
shape = shapeM 0 (shape1 (just (SB.flush ∷ reg (op (w 0 true)) ∷ SB.flush ∷ reg (op (w 1 true)) ∷ [])) [] (reg barrier) 0 ∷ []) []

F : MultiRec shape X0
F = multirec {t0' = X0} {t1 = X1} (refl , new-s0 , refl , refl) [] r1
      (_∷_ {t1 = X1} {t2 = X5} {t3 = X6} {t4 = X8}
        (onerec {u = X6} {t3c = X7} {t3r = X7} (flushed {t1 = X1} {t2 = X5} {u = X6} (f1 ∷ w1 ∷ f2 ∷ w2 ∷ []) f3) [] c [] r2)
        (done {t = X8} {t' = X8} []))

-- the image at the last flush, and what recovery shows
at-last-flush : rd s6 0 ≡ true × rd s6 1 ≡ true
at-last-flush = refl , refl

recovered : rd s8 0 ≡ false × rd s8 1 ≡ false
recovered = refl , refl

violation : ¬ MultiRecSCB F
violation (here o , _) with o 1 (s≤s z≤n)
... | ()
violation (there (here o) , _) with o 1 (s≤s z≤n)
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

-- PL's recovery of the same crash (PX's branch for a crash in the chain
-- phase) walks both records
pl-recovers : rd (ck3 (rec0L true 1 unmapped s7)) 0 ≡ true × rd (ck3 (rec0L true 1 unmapped s7)) 1 ≡ true
pl-recovers = refl , refl
