{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 17 (issue 39), of the epoch chain PB (SCFTL.Impl.EpochChain):
-- a page that an UNSYNCED epoch freed is ERASED BEFORE A SYNC.
--
-- In the code a superblock an epoch freed (its sectors overwritten or
-- relocated by that epoch) stays invalid until a SYNC makes the epoch
-- durable (flush.rs; docs/FORMAT.md §4.3): a barrier does not release
-- it.  PB has no physical pages: the pages P may erase (freed before
-- the last SYNC) hold no sector of any image recovery may return, so
-- P's gc erase is the identity on PB.  The one change: the mutant's
-- gc erase (`es`) may erase the page that holds the DURABLE copy of a
-- sector an unsynced epoch or the open epoch overwrote (`freed`): that
-- sector of the durable image `base` is gone (read as d0, an erased
-- sector).
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true); flush (durable: (true,false)); w(0,false); w(1,true);
--   barrier (epoch [0 ↦ false, 1 ↦ true], no SYNC); gc erase of the
--   page of sector 0's durable copy (freed by that epoch);
--   w(1,false) crashing with the barrier's committed page lost; recover.
-- SC1B allows t2 = (true,false) and the image at the barrier,
-- (false,true).  The mutant's recovery falls back to the durable image,
-- whose sector 0 was erased: (false,false).
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.BarrierVictimErasedBeforeSync where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; _++_; map)
open import Data.List.Relation.Unary.Any using (Any; here; there)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.EpochChain Bool false 1 2 3 _≟B_
import SCFTL.SpecBarrier Bool false 1 2 3 as SB
open SB using (module FragmentsB; Shape1; shape1; ShapeM; shapeM; Label)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

-- sectors overwritten since the last SYNC (their durable copies freed)
freed : St → List Addr
freed s = map proj₁ (digs (eps s) ++ opn s)
  where
    digs : List Ep → List Sec
    digs [] = []
    digs (ep _ (just dg) ∷ es) = dg ++ digs es
    digs (ep _ nothing ∷ es) = digs es

-- the durable copy of sector a erased
eraseCopy : Addr → St → St
eraseCopy a s = record s { base = base s [ a ↦ false ] }

okM : Op → St → St → Set
okM (use (reg (op esOp))) s s′ =                -- MUTATED: P's is s′ ≡ s
  s′ ≡ s ⊎ Σ Addr (λ a → Any (a ≡_) (freed s) × s′ ≡ eraseCopy a s)
okM (use u) = okB (use u)
okM recover = okB recover

Pmut : Model
Pmut = record { State = St ; New = NewB ; read = read ; ok = okM ; crash = crashB }

------------------------------------------------------------------------
-- The run

s0 : St
s0 = st (λ _ → false) [] [] 0

s1 t2 u u1 u2 u3 u4 s6 : St
s1 = recS s0
t2 = wr 0 true s1
u  = syncF t2
u1 = wr 0 false u
u2 = wr 1 true u1
u3 = barU u2
u4 = eraseCopy 0 u3
-- the crash: the barrier's committed page lost
s6 = st (base u4) (ep (just (0 , false) ∷ just (1 , true) ∷ []) nothing ∷ []) [] 0

crash-s6 : Img u4 s6
crash-s6 = refl , (inj₂ refl ∷ []) , refl

bs : List RB
bs = op (w 0 false) ∷ op (w 1 true) ∷ barrier ∷ op esOp ∷ []

shape : ShapeM
shape = shapeM 0 (shape1 (just (reg (op (w 0 true)) ∷ [])) bs (reg (op (w 1 false))) 0 ∷ []) []

open FragmentsB Pmut

F : MultiRec shape s0
F = multirec (refl , refl) [] refl
      (onerec {u = u} {t3c = s6} {t3r = s6}
         (flushed (inj₁ ((z≤n , z≤n) , refl) ∷ []) refl)
         (inj₁ ((z≤n , z≤n) , refl) ∷ (inj₁ ((s≤s z≤n , s≤s z≤n) , refl) ∷
          (inj₁ (s≤s z≤n , refl) ∷ (inj₂ (0 , here refl , refl) ∷ []))))
         crash-s6 [] refl
       ∷ done [])

violation : ¬ MultiRecSCB F
violation (here o , _) with o 0 z≤n
... | ()
violation (there (here o) , _) with o 1 (s≤s z≤n)
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

-- What P does at the same point (no erase): it recovers t2.
P-keeps : ∀ a → read (recS (st (base u3) (eps s6) [] 0)) a ≡ read t2 a
P-keeps a = refl
