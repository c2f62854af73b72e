{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 29 (issue 39), of recovery over PU's unsynced epochs
-- (SCFTL.Impl.UnsyncedBarrier's barrier `flB`, SCFTL.Impl.UnsyncedEpochs'
-- in-order check `accU`): recovery finds the unsynced epochs by their
-- committed pages and checks each in order, but NOT THAT THEY FOLLOW
-- ONE ANOTHER — an epoch whose committed page was lost is not seen, and
-- the next one is accepted after the one before it.  (The code's digest
-- chain seeds each epoch's digest with the previous epoch's, so an epoch
-- verifies only after the very epoch it was written after; PB and
-- `accU` take the epochs as written, `CrashEs`, where a lost committed
-- page is an epoch that fails.)
--
-- The model: P over the operations with a barrier; write/GC/flush P's;
-- the barrier PU's `flB` (no SYNC), its crash point right after its
-- programs; recovery P's `rec0` (then the full checkpoint) with the
-- recovered L2P replaced (`rec0m`, MUTATED): the region read, newest
-- page first, as the committed pages each with the pages below it up to
-- the next committed one (`grp`: pages above the newest committed page
-- skipped), oldest epoch first, checked by `accU` (each with P's `okC`
-- at its place, the first failure ending it), with nothing proven below
-- (the run has no SYNC after the format's recovery).
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; barrier (epoch 1); w(0,false) to page 1;
--   barrier (epoch 2); w(1,true) to page 2; barrier (epoch 3), crashing
--   right after its programs with epoch 2's committed page lost
--   (erased) and everything else landed; recover.
-- SC1B (a crashed barrier) allows t2 = (false,false), the images at the
-- barriers (true,false), (false,false) and the crashed barrier's own
-- (false,true).  The mutant sees epochs 1 and 3 (epoch 2's committed
-- page is gone, its data page 1 unnamed), both verify, and replays epoch
-- 3 on epoch 1: (true,true), a mix.  On the epochs as written `accU`
-- stops at epoch 2 and recovers epoch 1's image (`in-order-stops`).
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.BarrierEpochsUnchained where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; map; length; reverse)
open import Data.List.Relation.Unary.Any using (here; there)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Product using (Σ; _×_; _,_; proj₁; proj₂)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common using (A; W; K; s0; new-s0; land-D; land-C; land-L)
open import SCFTL.Impl.Model Bool false A W K _≟B_
open import SCFTL.Impl.BarrierOps Bool false A W 3 using (oS)
open import SCFTL.Impl.UnsyncedEpochs Bool false A W K _≟B_ using (UEp; accU; lay)
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (flB)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; use; reg; op; barrier; w)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

-- the pages below a committed page, up to the next committed page
below : List Cell → List Cell × List Cell
below []                        = [] , []
below (dlt h x ps true d ∷ cs)  = [] , dlt h x ps true d ∷ cs
below (c ∷ cs)                  = c ∷ proj₁ (below cs) , proj₂ (below cs)

-- the region (newest first) as epochs found by their committed pages
-- (newest first); pages above the newest committed page skipped
grp : ℕ → List Cell → List UEp
grp zero    _                         = []
grp (suc n) []                        = []
grp (suc n) (dlt h x ps true d ∷ cs)  = (dlt h x ps true d , proj₁ (below cs)) ∷ grp n (proj₂ (below cs))
grp (suc n) (c ∷ cs)                  = grp n cs

-- MUTATED: the recovered L2P (P: `recMap`, newest committed page only;
-- the fix: the epochs as written, each after the one before it)
recMapM : ℕ → Map → St → Map
recMapM g C s = proj₁ (rp g (accU g (λ p → cur (dat s p)) [] (reverse (grp (length cs) cs))) (st0 C))
  where cs = map cur (dr s)

rec0m : Bool → ℕ → Map → St → St
rec0m b g C s = record (rec0 b g C s) { l2p = recMapM g C (syncAll s) ; smap = recMapM g C (syncAll s) }

okM crashM : Op → St → St → Set
okM (use (reg barrier)) s s' = s' ≡ flB s
okM SB.recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) × s' ≡ ck3 (rec0m b g C s)     -- MUTATED
okM o s s' = okP (oS o) s s'
crashM (use (reg barrier)) s s' = Σ St λ m → m ≡ flB s × Img m s'
crashM o s s' = crashP (oS o) s s'

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 s7 s8 s9 : St
s1 = ck3 (rec0m true 0 unmapped s0)  -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = flB s2                          -- barrier: epoch 1, no SYNC
s4 = wr0 0 false s3                  -- w(0,false) to page 1
s5 = flB s4                          -- barrier: epoch 2, no SYNC
s6 = wr0 1 true s5                   -- w(1,true) to page 2
s7 = flB s6                          -- barrier: epoch 3, no SYNC (crash right after)

-- the crash: epoch 2's committed page lost (erased), everything else landed
lose2 : List MC → List MC
lose2 (a ∷ b ∷ rest) = sync a ∷ syn erased ∷ map sync rest
lose2 ms             = map sync ms

s8 = record (syncAll s7) { dr = lose2 (dr s7) }
s9 = ck3 (rec0m true 1 (l2p s1) s8)  -- recovery

img8 : Img s7 s8
img8 = (λ p → land-D (dat s7 p)) , land-C (cpL s7) , land-C (cpO s7) ,
       (land-C _ ∷ inj₁ refl ∷ land-L _) , (λ p → land-C (rcd s7 p))

open FragmentsB Pmut

r1 : okM SB.recover s0 s1
r1 = true , 0 , unmapped , refl , refl

w1 : okM (use (reg (op (w 0 true)))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

w2 : okM (use (reg (op (w 0 false)))) s3 s4
w2 = inj₁ ((z≤n , z≤n) , false , false , refl)

w3 : okM (use (reg (op (w 1 true)))) s5 s6
w3 = inj₁ ((s≤s z≤n , z≤n) , false , false , refl)

c1 : crashM (use (reg barrier)) s6 s8
c1 = s7 , refl , img8

r2 : okM SB.recover s8 s9
r2 = true , 1 , l2p s1 , refl , refl

shape : ShapeM
shape = shapeM 0 (shape1 nothing (op (w 0 true) ∷ barrier ∷ op (w 0 false) ∷ barrier ∷ op (w 1 true) ∷ []) (reg barrier) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s8} {t3r = s8} no-flush (w1 ∷ refl ∷ w2 ∷ refl ∷ w3 ∷ []) c1 [] r2
       ∷ done [])

recovered : rd s9 0 ≡ true × rd s9 1 ≡ true
recovered = refl , refl

violation : ¬ MultiRecSCB F
violation (here o , _) with o 0 z≤n
... | ()
violation (there (here o) , _) with o 1 (s≤s z≤n)
... | ()
violation (there (there (here o)) , _) with o 0 z≤n
... | ()
violation (there (there (there (here o))) , _) with o 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

------------------------------------------------------------------------
-- The region the crash leaves; the mutant's epochs and the epochs as
-- written

c₁ c₃ : Cell
c₁ = dlt 1 1 ((0 , 0) ∷ []) true (((0 , true , 0) ∷ []) , [] , 1)
c₃ = dlt 1 3 ((1 , 2) ∷ []) true (((2 , true , 1) ∷ []) , [] , 3)

D8 : ℕ → Cell
D8 p = cur (dat s8 p)

region : map cur (dr s8) ≡ c₃ ∷ erased ∷ c₁ ∷ []
region = refl

-- the mutant sees epochs 1 and 3 (epoch 2's lost page under epoch 3)
by-committed-pages : reverse (grp 3 (map cur (dr s8))) ≡ (c₁ , []) ∷ (c₃ , erased ∷ []) ∷ []
by-committed-pages = refl

-- ... and accepts both
mutant-accepts : accU 1 D8 [] ((c₁ , []) ∷ (c₃ , erased ∷ []) ∷ []) ≡ c₃ ∷ erased ∷ c₁ ∷ []
mutant-accepts = refl

-- on the epochs as written (epoch 2's committed page lost) the in-order
-- check stops at epoch 2: epoch 1's image, (true,false), allowed
in-order-stops : accU 1 D8 [] ((c₁ , []) ∷ (erased , []) ∷ (c₃ , []) ∷ []) ≡ c₁ ∷ []
in-order-stops = refl
