{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 25 (issue 39), of P with a barrier without SYNC (mutant 24's
-- barrier `flU`, SCFTL.Mutants.BarrierNewestOnly): the barrier RELEASES
-- THE EPOCH'S GC VICTIMS (invalid → erasable) as P's flush does at its
-- SYNC, so a page an UNSYNCED epoch freed is ERASED BEFORE A SYNC.
--
-- In the code a superblock an epoch freed stays invalid until a SYNC
-- makes the epoch durable (flush.rs; docs/FORMAT.md §4.3, "What a host
-- power cut may lose"): a barrier does not release it.  Mutant 24's
-- barrier keeps the queues (its `ers` after the barrier is P's before
-- it: `M24-keeps`); the one change here: `flR` = `flU` + the release.
-- Mutant 17 is the same bug on the epoch chain PB (images, no pages);
-- this is it on P's pages, with P's gc erase (`esF` of a page in `ers`).
--
-- Counterexample (one-recovery fragment after format + recovery; the
-- run of mutant 17):
--   w(0,true) to page 0; flush (durable, epoch 1: 0 ↦ 0, (true,false));
--   w(0,false) to page 1; w(1,true) to page 2; gc_rl of victim page 0
--   (no valid sector any more: invalid); barrier (epoch 2, no SYNC;
--   MUTATED: page 0 erasable); gc_es erasing page 0; w(1,false)
--   crashing with the barrier's committed page lost (old: erased) and
--   everything else landed; recover.
-- SC1B (a crashed write) allows t2 = (true,false) and the image at the
-- barrier, (false,true).  Recovery drops the lost barrier epoch and
-- falls back to epoch 1, whose page 0 is erased: its digest fails and
-- recovery falls back to the checkpoint, (false,false).  (Recovery's
-- check does not matter here: had it taken epoch 1 as proven, without
-- a check, address 0 would read the erased page 0, the same image.)
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.BarrierReleasesVictims where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false; _∨_)
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
open import SCFTL.Mutants.BarrierNewestOnly using (flU)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; use; reg; op; barrier; flush; w; rl; es)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

-- mutant 24's barrier, releasing the epoch's invalid pages
flR : St → St
flR s = record (flU s) { ers = λ p → ers s p ∨ inv s p ; inv = λ _ → false }   -- MUTATED

okM crashM : Op → St → St → Set
okM (use (reg barrier)) s s' = s' ≡ flR s
okM o s s' = okP (oS o) s s'
crashM (use (reg barrier)) s s' = Σ St λ m → m ≡ flR s × Img m s'
crashM o s s' = crashP (oS o) s s'

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 s7 s8 m9 s9 s10 : St
s1 = ck3 (rec0 true 0 unmapped s0)   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = fl3 s2                          -- flush: epoch 1 durable
s4 = wr0 0 false s3                  -- w(0,false) to page 1
s5 = wr0 1 true s4                   -- w(1,true) to page 2
s6 = rlX 0 s5                        -- gc_rl: page 0 holds no valid sector, invalid
s7 = flR s6                          -- barrier (no SYNC): page 0 erasable
s8 = esF 0 s7                        -- gc_es: page 0 erased
m9 = wr0 1 false s8                  -- w(1,false), crashing at its end

-- the crash: the barrier's committed page lost (its old content), the
-- rest landed
old-C : ∀ x → CrashC x (syn (dur x))
old-C (syn c)   = refl
old-C (uns o n) = inj₁ refl

lose-head : List MC → List MC
lose-head []       = []
lose-head (x ∷ xs) = syn (dur x) ∷ map sync xs

lose-head-C : ∀ xs → CrashL xs (lose-head xs)
lose-head-C []       = []
lose-head-C (x ∷ xs) = old-C x ∷ land-L xs

s9  = record (syncAll m9) { dr = lose-head (dr m9) }
s10 = ck3 (rec0 true 1 (l2p s1) s9)   -- recovery

img9 : Img m9 s9
img9 = (λ p → land-D (dat m9 p)) , land-C (cpL m9) , land-C (cpO m9) , lose-head-C (dr m9)
     , (λ p → land-C (rcd m9 p))

open FragmentsB Pmut

r1 : okM SB.recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (reg (op (w 0 true)))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

w2 : okM (use (reg (op (w 0 false)))) s3 s4
w2 = inj₁ ((z≤n , z≤n) , false , false , refl)

w3 : okM (use (reg (op (w 1 true)))) s4 s5
w3 = inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl)

g1 : okM (use (reg (op rl))) s5 s6
g1 = inj₁ (z≤n , 0 , s≤s z≤n , inj₂ ((λ { (_ , ()) }) , refl))

e1 : okM (use (reg (op es))) s7 s8
e1 = 0 , refl , refl

c1 : crashM (use (reg (op (w 1 false)))) s8 s9
c1 = m9 , inj₁ ((s≤s z≤n , z≤n) , false , false , refl) , img9

r2 : okM SB.recover s9 s10
r2 = true , 1 , l2p s1 , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (reg (op (w 0 true)) ∷ []))
                         (op (w 0 false) ∷ op (w 1 true) ∷ op rl ∷ barrier ∷ op es ∷ [])
                         (reg (op (w 1 false))) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s9} {t3r = s9} (flushed (w1 ∷ []) f1) (w2 ∷ w3 ∷ g1 ∷ refl ∷ e1 ∷ []) c1 [] r2
       ∷ done [])

recovered : rd s10 0 ≡ false × rd s10 1 ≡ false
recovered = refl , refl

violation : ¬ MultiRecSCB F
violation (here o , _) with o 0 z≤n
... | ()
violation (there (here o) , _) with o 1 (s≤s z≤n)
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

-- Mutant 24's barrier keeps page 0 invalid, not erasable: no gc_es of
-- it before a SYNC
M24-keeps : ers (flU s6) 0 ≡ false × inv (flU s6) 0 ≡ true
M24-keeps = refl , refl
