{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 34 (issue 39), of PU as a `Model` (SCFTL.Impl.UnsyncedModel,
-- `PUM`): recovery reads the region's split at the last SYNC ONE EPOCH
-- TOO LATE — it takes the oldest unsynced epoch for part of the durable
-- part (as if the after-sync flag were read above that epoch's pages)
-- and replays it without checking its digest; the later epochs are
-- checked in order as in PUM.  (PUM's recovery reads the durable ghost:
-- the durable part is what the last SYNC left, every epoch above it is
-- checked by `accU`.)
--
-- The model: `PUM` with its recovery step MUTATED (`RecOkM`: `recU`
-- with the ghost's parse, the oldest epoch moved into the durable part);
-- its normal steps, crashes and crashed recoveries are PUM's (the run
-- below has no crashed recovery).
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; w(1,true) to page 1; barrier (epoch 1, no
--   SYNC), crashing right after its programs with data page 1 lost
--   (junk) and everything else landed (its committed page included);
--   recover.
-- SC1B (a crashed barrier, no barrier before it) allows t2 =
-- (false,false) and the crashed barrier's own image (true,true).  The
-- mutant replays epoch 1's committed page unchecked: sector 0 on page 0
-- (true), sector 1 on the lost page 1 (false): (true,false), a mix.
-- PUM checks epoch 1's digest, which page 1 fails, and recovers
-- (false,false) (`pum-stops`).
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.BarrierSplitLate where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; map; length; take; drop)
open import Data.List.Relation.Unary.Any using (here; there)
open import Data.List.Relation.Unary.All using (All; [])
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0; land-D; land-C; land-L)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.UnsyncedEpochs Bool false A W K _≟B_ using (UEp; lay; accU)
open import SCFTL.Impl.UnsyncedEpochsCrash Bool false A W K _≟B_ using (ue)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (StU; ⟪_,_⟫; st; ues; flB; epE)
open import SCFTL.Impl.UnsyncedRecovery Bool false A W K 3 _≟B_ using (ParseS)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedRecCrash Bool false A W K 3 _≟B_ using (shapes)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_
  using (Gh; SU; ⟦_,_⟧; su; gh; ghostN; okPU; crashPU; NewPU)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; use; reg; op; barrier; w)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

-- MUTATED: the split read one epoch too late (PUM: `recU b g C pr es' s`)
RecOkM : St → Gh → St → Set
RecOkM s gh s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C → pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ (List Cell) λ T → Σ (List UEp) λ es' → ParseS (map cur (dr s)) T es' (proj₂ gh) × shapes es' ≡ proj₁ gh ×
  s' ≡ recU b g C (lay (take 1 es') (proj₂ gh)) (drop 1 es') s

okMut : Op → SU → SU → Set
okMut (use u)    S S' = okPU (use u) S S'
okMut SB.recover S S' = RecOkM (st (su S)) (gh S) (st (su S')) × ues (su S') ≡ [] × gh S' ≡ ghostN (su S')

Pmut : Model
Pmut = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okMut ; crash = crashPU }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 : St
s1 = recU true 0 unmapped [] [] s0   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = wr0 1 true s2                   -- w(1,true) to page 1
s4 = flB s3                          -- barrier: epoch 1, no SYNC (crash right after)

-- the crash: data page 1 lost (junk), everything else landed
lose1 : (ℕ → MC) → ℕ → MC
lose1 D (suc zero) = syn junk
lose1 D p          = sync (D p)

s5 s6 : St
s5 = record (syncAll s4) { dat = lose1 (dat s4) }

-- the epoch as the barrier wrote it: its committed page, no tentative page
c₁ : Cell
c₁ = proj₁ (ue 1 (epE s3))

s6 = recU true 1 unmapped (lay ((c₁ , []) ∷ []) []) [] s5   -- the mutant's recovery

crD : ∀ p → CrashD (dat s4 p) (dat s5 p)
crD zero          = land-D (dat s4 0)
crD (suc zero)    = junk , refl
crD (suc (suc p)) = land-D (dat s4 (suc (suc p)))

img5 : Img s4 s5
img5 = crD , land-C (cpL s4) , land-C (cpO s4) , land-L (dr s4) , (λ p → land-C (rcd s4 p))

S0 S1 S2 S3 S5 S6 : SU
S0 = ⟦ ⟪ s0 , [] ⟫ , ([] , []) ⟧
S1 = ⟦ ⟪ s1 , [] ⟫ , ghostN ⟪ s1 , [] ⟫ ⟧
S2 = ⟦ ⟪ s2 , [] ⟫ , ghostN ⟪ s2 , [] ⟫ ⟧
S3 = ⟦ ⟪ s3 , [] ⟫ , ghostN ⟪ s3 , [] ⟫ ⟧
S5 = ⟦ ⟪ s5 , [] ⟫ , ghostN ⟪ s4 , epE s3 ∷ [] ⟫ ⟧
S6 = ⟦ ⟪ s6 , [] ⟫ , ghostN ⟪ s6 , [] ⟫ ⟧

open FragmentsB Pmut

r1 : okMut SB.recover S0 S1
r1 = (true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl

w1 : okMut (use (reg (op (w 0 true)))) S1 S2
w1 = (inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl

w2 : okMut (use (reg (op (w 1 true)))) S2 S3
w2 = (inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl) , refl) , refl

c1 : crashPU (use (reg barrier)) S3 S5
c1 = inj₁ (s≤s z≤n , img5 , refl) , refl

r2 : okMut SB.recover S5 S6
r2 = (true , 1 , unmapped , refl , [] , (c₁ , []) ∷ [] , (refl , []) , refl , refl) , refl , refl

shape : ShapeM
shape = shapeM 0 (shape1 nothing (op (w 0 true) ∷ op (w 1 true) ∷ []) (reg barrier) 0 ∷ []) []

F : MultiRec shape S0
F = multirec (new-s0 , refl , refl) [] r1
      (onerec {t3c = S5} {t3r = S5} no-flush (w1 ∷ w2 ∷ []) c1 [] r2
       ∷ done [])

recovered : rd s6 0 ≡ true × rd s6 1 ≡ false
recovered = refl , refl

violation : ¬ MultiRecSCB F
violation (here o , _) with o 0 z≤n
... | ()
violation (there (here o) , _) with o 1 (s≤s z≤n)
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

------------------------------------------------------------------------
-- PUM on the same crash: epoch 1 is checked, page 1 fails its digest,
-- recovery stops at the durable part (nothing accepted)

pum-stops : accU 1 (λ p → cur (dat s5 p)) [] ((c₁ , []) ∷ []) ≡ []
pum-stops = refl
