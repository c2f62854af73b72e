{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 8 of P (issue 39): a checkpoint WRITTEN IN PLACE, into the
-- live slot instead of the shadow.
--
-- The one change: the full checkpoint programs the new checkpoint over
-- the live slot `cpL` (P: into the shadow `cpO`).  Consequently there is
-- no old slot to erase in the second phase (only the delta region is
-- erased) and no role swap at the end; the shadow slot stays erased
-- forever (format leaves it erased).
--
-- NO SNAPSHOT-CONSISTENCY COUNTEREXAMPLE EXISTS IN P's CRASH MODEL; the
-- bug is a loss of recoverability, proven here as `unrecoverable`.
-- Why.  The only crash point that differs from P is the one right
-- before the checkpoint's first SYNC, where the live slot is being
-- reprogrammed (`uns (cpt g C) (cpt (g+1) L)`) and everything else is
-- durable.  P's crash model lets an unsynced metadata page end up old,
-- new or junk (the page CRC rules out a valid-looking mixture):
--   * old:  checkpoint g and the delta region (not yet erased, durable)
--           replay to the same L2P L as before the checkpoint (the
--           newest committed page's digest still verifies: every data
--           page is durable at this point);
--   * new:  checkpoint g+1 maps L; the region's pages are of
--           generation g, so recovery accepts none of them;
--   * junk: neither slot holds a checkpoint, `pick` returns nothing,
--           and recovery has no transition at all (neither successful
--           nor crashed).
-- At the later crash points the new checkpoint is durable, as in P.
-- Snapshot consistency (SCFTL.Framework) quantifies over fragments in
-- which every recovery succeeds, so the junk outcome yields no fragment:
-- the disk is lost, not inconsistent.  An SC counterexample would need a
-- recovery that falls back (e.g. reformats, or trusts a torn slot), which
-- P does not have.  The same holds for the other reading of the mutant
-- (new checkpoint into the live slot, second phase and swap unchanged):
-- there the second phase erases the new checkpoint, so after the first
-- full checkpoint no slot holds one and no later recovery succeeds.
--
-- The run below: format, recover, w(0,true), flush with a full
-- checkpoint crashing before its first SYNC with the live slot junk: no
-- recovery (successful or crashed) exists from there; the other two
-- outcomes of the same crash recover the flushed image.
------------------------------------------------------------------------
module SCFTL.Mutants.CheckpointInPlace where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.List.Base using ([]; _∷_; map)
open import Data.Maybe.Base using (just; nothing)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (_⊎_; inj₁; inj₂)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Mutants.Common

------------------------------------------------------------------------
-- The mutant

ck1′ ck2′ ck3′ : St → St
ck1′ s = record s { cpL = put (cpt (suc (gen s)) (l2p s)) (cpL s) }   -- MUTATED (P: cpO)
ck2′ s = let u = syncAll (ck1′ s) in record u { dr = map (put erased) (dr u) }
ck3′ s = let u = syncAll (ck2′ s) in record u { dr = [] ; gen = suc (gen s) }

CkPt′ : St → St → Set
CkPt′ s m = m ≡ ck1′ s ⊎ m ≡ ck2′ s ⊎ m ≡ ck3′ s

FlPt′ : St → St → Set
FlPt′ s m = m ≡ fl2 s ⊎ m ≡ fl3 s ⊎ CkPt′ (fl3 s) m

okM crashM : Op → St → St → Set
okM (use flush) s s' = s' ≡ fl3 s ⊎ s' ≡ ck3′ (fl3 s)
okM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  (s' ≡ ck3′ (rec0 b g C s)
   ⊎ clean g (λ p → cur (dat s p)) (map cur (dr s)) ≡ true × Quiet g s × s' ≡ rec0 b g C s)
okM o = okP o
crashM (use flush) s s' = Σ St λ m → FlPt′ s m × Img m s'
crashM recover s s' = Σ Bool λ b → Σ ℕ λ g → Σ Map λ C →
  pick (cur (cpL s)) (cur (cpO s)) ≡ just (b , g , C) ×
  Σ St λ m → CkPt′ (rec0 b g C s) m × Img m s'
crashM o = crashP o

Pmut : Model
Pmut = record { State = St ; New = NewP ; read = rd ; ok = okM ; crash = crashM }

------------------------------------------------------------------------
-- The run

s1 s2 m2 s3 : St
s1 = ck3′ (rec0 true 0 unmapped s0)   -- recovery from the new disk (in place)
s2 = wr0 0 true s1                    -- w(0,true)
m2 = ck1′ (fl3 s2)                    -- flush + checkpoint, first SYNC point
s3 = record (syncAll m2) { cpL = syn junk }   -- crash: the live slot torn

img3 : Img m2 s3
img3 = (λ p → land-D (dat m2 p)) , inj₂ (inj₂ refl) , land-C (cpO m2) , land-L (dr m2) , (λ p → land-C (rcd m2 p))

open Fragments Pmut

r1 : okM recover s0 s1
r1 = true , 0 , unmapped , refl , inj₁ refl

w1 : okM (use (regop (w 0 true))) s1 s2
w1 = inj₁ ((z≤n , z≤n) , false , false , refl)

c2 : crashM (use flush) s2 s3
c2 = m2 , inj₂ (inj₂ (inj₁ refl)) , img3

run : Trace s0 s3
run = step (okL recover) r1 (step (okL (use (regop (w 0 true)))) w1
        (step (crashL (use flush)) c2 []))

-- The result for this mutant: a crashed state, reachable from a new
-- disk, from which no recovery, successful or crashed, exists.
Unrecoverable : Set
Unrecoverable = Σ St λ s → Trace s0 s
  × (∀ s' → ¬ okM recover s s') × (∀ s' → ¬ crashM recover s s')

unrecoverable : Unrecoverable
unrecoverable = s3 , run , (λ { _ (_ , _ , _ , () , _) }) , (λ { _ (_ , _ , _ , () , _) })

-- The other outcomes of the same crash recover the flushed image.
old-outcome new-outcome : St
old-outcome = record (syncAll m2) { cpL = syn (cpt 1 unmapped) }
new-outcome = syncAll m2

other-outcomes-consistent :
    Img m2 old-outcome
  × Σ St (λ s' → okM recover old-outcome s' × rd s' 0 ≡ true)
  × Img m2 new-outcome
  × Σ St (λ s' → okM recover new-outcome s' × rd s' 0 ≡ true)
other-outcomes-consistent =
    ((λ p → land-D (dat m2 p)) , inj₁ refl , land-C (cpO m2) , land-L (dr m2) , (λ p → land-C (rcd m2 p)))
  , (_ , (true , 1 , unmapped , refl , inj₁ refl) , refl)
  , img-sync m2
  , (_ , (true , 2 , l2p s2 , refl , inj₁ refl) , refl)

-- In P the live slot is untouched (and durable) at this crash point.
P-live-slot-durable : cpL (ck1 (fl3 s2)) ≡ syn (cpt 1 unmapped)
P-live-slot-durable = refl
