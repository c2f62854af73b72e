{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 16 (issue 39), of the epoch chain PB (SCFTL.Impl.EpochChain):
-- recovery KEEPS A LATER VERIFIED BARRIER EPOCH AFTER AN EARLIER ONE
-- FAILED — a mix of epochs.
--
-- The one change: where P's recovery (`recImg`) stops at the first
-- unsynced epoch that does not verify, dropping it and every later one,
-- the mutant's (`recImg′`) skips it and goes on with the next.
--
-- Counterexample (one-recovery fragment after format + recovery, no
-- flush before the crash, so t2 is the formatted image):
--   w(0,true); barrier (epoch 1: page [0 ↦ true], committed page, no
--   SYNC); w(1,true); barrier (epoch 2: [1 ↦ true]); w(0,false) crashing
--   with epoch 1's data page lost (both committed pages and epoch 2's
--   page landed); recover.
-- SC1B allows t2 = (false,false) and the images at the two barriers,
-- (true,false) and (true,true).  The mutant skips epoch 1 (its digest
-- names page [0 ↦ true], absent) and applies epoch 2: (false,true).
-- P stops at epoch 1: (false,false) = t2 (`P-stops`).
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.BarrierEpochMix where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_)
open import Data.List.Relation.Unary.Any using (here; there)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (_,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.EpochChain Bool false 1 2 3 _≟B_
import SCFTL.SpecBarrier Bool false 1 2 3 as SB
open SB using (module FragmentsB; Shape1; shape1; ShapeM; shapeM; Label)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

recImg′ : Arr → List Ep → Arr
recM′   : Arr → Maybe (List Sec) → List Ep → Arr
recImg′ b [] = b
recImg′ b (e ∷ es) = recM′ b (chk e) es
recM′ b nothing   es = recImg′ b es            -- MUTATED: P stops here (b)
recM′ b (just xs) es = recImg′ (apply b xs) es

recS′ : St → St
recS′ s = st (recImg′ (base s) (eps s)) [] [] 0

okM : Op → St → St → Set
okM (use u) = okB (use u)
okM recover s s′ = s′ ≡ recS′ s

crashM : Op → St → St → Set
crashM (use u) = crashB (use u)
crashM recover s s′ = Img s s′ ⊎ Img (recS′ s) s′

Pmut : Model
Pmut = record { State = St ; New = NewB ; read = read ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s0 : St
s0 = st (λ _ → false) [] [] 0

s1 s2 s3 s4 s5 s6 : St
s1 = recS′ s0
s2 = wr 0 true s1
s3 = barU s2
s4 = wr 1 true s3
s5 = barU s4
-- the crash: epoch 1's data page lost, everything else landed
s6 = st (base s5) (ep (nothing ∷ []) (just ((0 , true) ∷ [])) ∷ commit ((1 , true) ∷ []) ∷ []) [] 0

crash-s6 : Img s5 s6
crash-s6 = refl , (inj₁ refl ∷ (inj₁ refl ∷ [])) , refl

bs : List RB
bs = op (w 0 true) ∷ barrier ∷ op (w 1 true) ∷ barrier ∷ []

shape : ShapeM
shape = shapeM 0 (shape1 nothing bs (reg (op (w 0 false))) 0 ∷ []) []

open FragmentsB Pmut

F : MultiRec shape s0
F = multirec (refl , refl) [] refl
      (onerec {t3c = s6} {t3r = s6} no-flush
         (inj₁ ((z≤n , z≤n) , refl) ∷ (inj₁ (s≤s z≤n , refl) ∷
          (inj₁ ((s≤s z≤n , z≤n) , refl) ∷ (inj₁ (s≤s (s≤s z≤n) , refl) ∷ []))))
         crash-s6 [] refl
       ∷ done [])

violation : ¬ MultiRecSCB F
violation (here o , _) with o 1 (s≤s z≤n)
... | ()
violation (there (here o) , _) with o 1 (s≤s z≤n)
... | ()
violation (there (there (here o)) , _) with o 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

-- What P does at the same point: it stops at epoch 1 and recovers t2.
P-stops : ∀ a → read (recS s6) a ≡ read s1 a
P-stops a = refl
