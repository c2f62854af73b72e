{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 28 (issue 39), of PU's barrier without SYNC
-- (SCFTL.Impl.UnsyncedBarrier, `flB`): the barrier does NOT RECORD ITS
-- EPOCH — the merge buffer is programmed and the next epoch starts, as
-- in `flB`, but no committed delta page (kind 5) is programmed: the
-- epoch's pairs are dropped with the delta buffer (docs/FORMAT.md §4.3:
-- a barrier's epoch is committed by its kind-5 page).
--
-- The model: P over the operations with a barrier (as mutant 24's),
-- write/GC/flush P's, the barrier the mutated `flB` (`flBm`), its crash
-- point right after its programs; recovery P's.  The counterexample's
-- crash comes after a durable flush, so no unsynced epoch is on the
-- region and P's recovery is what PU's in-order check does there
-- (`accU` over no unsynced epoch: the proven part, `accU-one`); with
-- PU's barrier the same run recovers the flush's image (`pu-keeps`).
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; barrier (epoch 1: page 0 programmed, NO
--   committed page); w(1,true) to page 1; flush, crashing right after
--   its SYNC (everything landed); recover.
-- SC1B (a crashed flush) allows t2 = (false,false), the image at the
-- barrier (true,false) and the flush's own (true,true).  The flush's
-- committed page names only epoch 2's pair (1 ↦ page 1); epoch 1's pair
-- (0 ↦ page 0) is nowhere on flash: recovery reads (false,true), a mix.
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.BarrierEpochUnrecorded where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; map)
open import Data.List.Relation.Unary.Any using (here; there)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0; land-D; land-C; land-L)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.BarrierOps Bool false A W 3 using (oS)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (flB)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; use; reg; op; barrier; flush; w)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

-- PU's barrier without SYNC (`flB`: `fl2`, then the next epoch) with
-- no committed page: only the merge buffer is programmed
flBm : St → St
flBm s = let u = progMB s in
         record u { dbuf = [] ; ept = [] ; wcnt = 0 ; gcnt = 0
                  ; ep = suc (ep s) ; lnk = nothing }

okM crashM : Op → St → St → Set
okM (use (reg barrier)) s s' = s' ≡ flBm s                       -- MUTATED (PU: flB)
okM o s s' = okP (oS o) s s'
crashM (use (reg barrier)) s s' = Σ St λ m → m ≡ flBm s × Img m s'   -- MUTATED (PU: flB)
crashM o s s' = crashP (oS o) s s'

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 s7 : St
s1 = ck3 (rec0 true 0 unmapped s0)   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = flBm s2                         -- barrier: epoch 1, no committed page
s4 = wr0 1 true s3                   -- w(1,true) to page 1
s5 = fl3 s4                          -- flush, right after its SYNC (crash)
s6 = syncAll s5                      -- everything landed
s7 = ck3 (rec0 true 1 (l2p s1) s6)   -- recovery

img6 : Img s5 s6
img6 = (λ p → land-D (dat s5 p)) , land-C (cpL s5) , land-C (cpO s5) , land-L (dr s5) , (λ p → land-C (rcd s5 p))

open FragmentsB Pmut

r1 : okM SB.recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (reg (op (w 0 true)))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

w2 : okM (use (reg (op (w 1 true)))) s3 s4
w2 = inj₁ ((s≤s z≤n , z≤n) , false , false , refl)

c1 : crashM (use flush) s4 s6
c1 = s5 , inj₂ (inj₁ refl) , img6

r2 : okM SB.recover s6 s7
r2 = true , 1 , l2p s1 , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 nothing (op (w 0 true) ∷ barrier ∷ op (w 1 true) ∷ []) flush 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s6} {t3r = s6} no-flush (w1 ∷ refl ∷ w2 ∷ []) c1 [] r2
       ∷ done [])

recovered : rd s7 0 ≡ false × rd s7 1 ≡ true
recovered = refl , refl

violation : ¬ MultiRecSCB F
violation (here o , _) with o 1 (s≤s z≤n)
... | ()
violation (there (here o) , _) with o 0 z≤n
... | ()
violation (there (there (here o)) , _) with o 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

------------------------------------------------------------------------
-- With PU's barrier (`flB`: its committed page programmed) the same run
-- recovers the flush's image

u3 u4 u5 u6 u7 : St
u3 = flB s2
u4 = wr0 1 true u3
u5 = fl3 u4
u6 = syncAll u5
u7 = ck3 (rec0 true 1 (l2p s1) u6)

pu-keeps : rd u7 0 ≡ true × rd u7 1 ≡ true
pu-keeps = refl , refl
