{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 40 (issue 39), of the SYNC outside a commit (`SB.sy`, PU's step
-- `syS`, SCFTL.Impl.UnsyncedSync): the SYNC RELEASES EVERY INVALID PAGE,
-- without the guard `Rel` (only pages the new stable L2P does not map),
-- so a page the OPEN epoch's GC freed, which the stable L2P still maps,
-- becomes erasable and is erased before the commit that stops mapping it.
--
-- In the code the SYNC before an erase makes the superblocks the ENDED
-- epochs freed erasable (their victims were released at the barrier
-- that ended them, `blocks.rs` `end_epoch`); the open epoch's victims
-- stay invalid until its own commit.  Here the one change to P with the
-- SYNC step: `syM` = `syU [] (inv s)` (the release of every invalid
-- page), where PU's guard allows no page the stable L2P maps
-- (`guard-refuses`).
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; flush (durable, epoch 1: 0 ↦ 0); gc_rl of page
--   0 (its sector copied to page 1, page 0 invalid); SYNC (MUTATED: page
--   0 erasable); gc_es erasing page 0; w(1,true) crashing at its end,
--   everything landed; recover.
-- SC1B (a crashed write, no barrier since the flush) allows only the
-- flush's image, (true,false).  Recovery finds epoch 1's commit, whose
-- digest names page 0, erased: the digest fails and recovery falls back
-- to the checkpoint, (false,false).
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.SyncReleasesMappedVictim where

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
open import SCFTL.Impl.UnsyncedSync Bool false A W K 3 _≟B_ using (syU)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; use; reg; op; barrier; flush; w; rl; es; sy)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

-- the SYNC with no epoch unsynced, releasing every invalid page
syM : St → St
syM s = syU [] (inv s) s   -- MUTATED: PU's guard releases only pages the stable L2P does not map

okM crashM : Op → St → St → Set
okM (use (reg (op sy))) s s' = s' ≡ syM s
okM o s s' = okP (oS o) s s'
crashM (use (reg (op sy))) s s' = Img s s' ⊎ Img (syM s) s'
crashM o s s' = crashP (oS o) s s'

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 s5 s6 m7 s7 s8 : St
s1 = ck3 (rec0 true 0 unmapped s0)   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = fl3 s2                          -- flush: epoch 1 durable
s4 = rl0 0 s3                        -- gc_rl: the sector of page 0 to page 1, page 0 invalid
s5 = syM s4                          -- SYNC: page 0 erasable
s6 = esF 0 s5                        -- gc_es: page 0 erased
m7 = wr0 1 true s6                   -- w(1,true), crashing at its end
s7 = syncAll m7                      -- everything landed
s8 = ck3 (rec0 true 1 (l2p s1) s7)   -- recovery

img7 : Img m7 s7
img7 = (λ p → land-D (dat m7 p)) , land-C (cpL m7) , land-C (cpO m7) , land-L (dr m7)
     , (λ p → land-C (rcd m7 p))

open FragmentsB Pmut

r1 : okM SB.recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (reg (op (w 0 true)))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

f1 : okM (use flush) s2 s3
f1 = inj₁ refl

g1 : okM (use (reg (op rl))) s3 s4
g1 = inj₁ (z≤n , 0 , s≤s z≤n , inj₁ ((z≤n , refl) , false , false , refl))

y1 : okM (use (reg (op sy))) s4 s5
y1 = refl

e1 : okM (use (reg (op es))) s5 s6
e1 = 0 , refl , refl

c1 : crashM (use (reg (op (w 1 true)))) s6 s7
c1 = m7 , inj₁ ((s≤s z≤n , z≤n) , false , false , refl) , img7

r2 : okM SB.recover s7 s8
r2 = true , 1 , l2p s1 , refl , inj₁ refl

shape : ShapeM
shape = shapeM 0 (shape1 (just (reg (op (w 0 true)) ∷ []))
                         (op rl ∷ op sy ∷ op es ∷ [])
                         (reg (op (w 1 true))) 0 ∷ []) []

F : MultiRec shape s0
F = multirec new-s0 [] r1
      (onerec {t3c = s7} {t3r = s7} (flushed (w1 ∷ []) f1) (g1 ∷ y1 ∷ e1 ∷ []) c1 [] r2
       ∷ done [])

recovered : rd s8 0 ≡ false × rd s8 1 ≡ false
recovered = refl , refl

violation : ¬ MultiRecSCB F
violation (here o , _) with o 0 z≤n
... | ()

not-snapshot-consistent : ¬ SnapshotConsistent Pmut
not-snapshot-consistent sc = violation (sc F)

-- PU's guard refuses the release: the stable L2P still maps page 0 (the
-- relocated copy commits only with the open epoch)
guard-refuses : smap s4 0 ≡ just 0 × inv s4 0 ≡ true
guard-refuses = refl , refl
