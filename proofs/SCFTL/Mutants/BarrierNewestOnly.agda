{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 24 (issue 39), of P with a barrier (SCFTL.Impl.DurableBarrier:
-- P over the operations with a barrier, `PD`): the barrier WITHOUT
-- SYNC on P as it is — recovery checks only the NEWEST committed page
-- (`acc`), a mix of epochs.
--
-- The one change: PD's barrier is P's flush (one SYNC, durable); the
-- mutant's (`flU`) programs the merge buffer and the committed delta
-- page (`fl2`) and starts the next epoch with NO SYNC (docs/FORMAT.md
-- §4.3, kind 5; the invalid and erasable queues are kept: they are
-- released only at a SYNC), its crash point right after the programs.
-- Recovery is P's, unchanged: it accepts the newest committed page whose
-- digest verifies and replays everything below it unchecked, which is
-- sound only when everything below was synced before it was programmed.
--
-- Counterexample (one-recovery fragment after format + recovery, no
-- flush before the crash, so t2 is the formatted image):
--   w(0,true) to page 0; barrier (epoch 1: page 0 and its committed
--   page, no SYNC); w(1,true) to page 1; barrier (epoch 2), crashing
--   right after its programs with page 0 lost (erased) and everything
--   else landed (both committed pages, page 1); recover.
-- SC1B (a crashed barrier) allows t2 = (false,false), the image at the
-- first barrier (true,false) and the crashed barrier's own (true,true).
-- The mutant's recovery accepts epoch 2's committed page (its digest
-- names only page 1, which holds true) and replays epoch 1's below it:
-- address 0 is mapped to the lost page 0, (false,true).
-- The check over every unsynced epoch in order (`accU`,
-- SCFTL.Impl.UnsyncedEpochs) stops at epoch 1 and returns t2
-- (`in-order-stops`), where P's `acc` takes both (`newest-only`).
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.BarrierNewestOnly where

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
open import SCFTL.Impl.UnsyncedEpochs Bool false A W K _≟B_ using (accU; lay)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; use; reg; op; barrier; w)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

-- the barrier without SYNC: merge buffer and committed page programmed,
-- the next epoch starts
flU : St → St
flU s = let u = fl2 s in
        record u { smap = l2p u ; dbuf = [] ; ept = [] ; wcnt = 0 ; gcnt = 0
                 ; ep = suc (ep s) ; lnk = nothing }

okM crashM : Op → St → St → Set
okM (use (reg barrier)) s s' = s' ≡ flU s                      -- MUTATED (PD: okP (use flush))
okM o s s' = okP (oS o) s s'
crashM (use (reg barrier)) s s' = Σ St λ m → m ≡ flU s × Img m s'   -- MUTATED (PD: crashP (use flush))
crashM o s s' = crashP (oS o) s s'

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 s7 : St
s1 = ck3 (rec0 true 0 unmapped s0)   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = flU s2                          -- barrier: epoch 1, no SYNC
s4 = wr0 1 true s3                   -- w(1,true) to page 1
s5 = flU s4                          -- barrier: epoch 2, no SYNC (crash right after)

-- the crash: page 0 lost (erased), everything else landed
lose0 : ℕ → MC → MC
lose0 zero    m = syn erased
lose0 (suc p) m = sync m

s6 = record (syncAll s5) { dat = λ p → lose0 p (dat s5 p) }
s7 = ck3 (rec0 true 1 (l2p s1) s6)   -- recovery

img6 : Img s5 s6
img6 = dat6 , land-C (cpL s5) , land-C (cpO s5) , land-L (dr s5) , (λ p → land-C (rcd s5 p))
  where
    dat6 : ∀ p → CrashD (dat s5 p) (dat s6 p)
    dat6 zero    = erased , refl
    dat6 (suc p) = land-D (dat s5 (suc p))

open FragmentsB Pmut

r1 : okM SB.recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (reg (op (w 0 true)))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

w2 : okM (use (reg (op (w 1 true)))) s3 s4
w2 = inj₁ ((s≤s z≤n , z≤n) , false , false , refl)

c1 : crashM (use (reg barrier)) s4 s6
c1 = s5 , refl , img6

r2 : okM SB.recover s6 s7
r2 = true , 1 , l2p s1 , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 nothing (op (w 0 true) ∷ barrier ∷ op (w 1 true) ∷ []) (reg barrier) 0 ∷ []) []

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
-- The region the crash leaves, P's newest-only check, and the check of
-- every unsynced epoch in order

c₁ c₂ : Cell
c₁ = dlt 1 1 ((0 , 0) ∷ []) true (((0 , true , 0) ∷ []) , [] , 1)
c₂ = dlt 1 2 ((1 , 1) ∷ []) true (((1 , true , 1) ∷ []) , [] , 2)

D6 : ℕ → Cell
D6 p = cur (dat s6 p)

-- the region: epoch 2 on epoch 1, nothing proven below
region : map cur (dr s6) ≡ lay ((c₁ , []) ∷ (c₂ , []) ∷ []) []
region = refl

-- P's recovery accepts both (the newest verifies) ...
newest-only : acc 1 D6 (map cur (dr s6)) ≡ c₂ ∷ c₁ ∷ []
newest-only = refl

-- ... the in-order check stops at epoch 1, whose page is lost
in-order-stops : accU 1 D6 [] ((c₁ , []) ∷ (c₂ , []) ∷ []) ≡ []
in-order-stops = refl
