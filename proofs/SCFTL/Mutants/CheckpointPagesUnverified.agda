{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 18 (issue 39): recovery's parse of a checkpoint slot trusts the
-- commit record and reads the L2P pages it names without verifying them
-- (`read_l2p` without the per-page checks and the record's CRC over the
-- pages: a page that is no L2P page reads as unmapped).  Everything
-- else is SCFTL.Impl.CheckpointSlot's (P's rule `Newest` included).
--
-- Mutant of the slot abstraction, not of P (check.sh:
-- MUTANTS_OF_CHECKPOINT_SLOT): `Pmut : SlotModel` and
-- `not-slot-abstraction : ¬ SlotAbstraction Pmut`, by a crash outcome of
-- the code's checkpoint that this parse reads as a checkpoint no crash
-- outcome of P's one cell is.
--
-- The run (instance SCFTL.Impl.CheckpointSlotExample: two L2P pages):
-- the shadow slot holds the older checkpoint of generation 0 (as it does
-- on configuration 7, which erases the old slot only when the next
-- checkpoint targets it), mapping both addresses to page 0; the
-- checkpoint of generation 2 starts by erasing that slot; it crashes
-- after the erase of L2P page 0 was issued, before the SYNC, with that
-- erase landed and nothing else.  The record of generation 0 is intact:
-- the mutant parses the slot to generation 0 with address 0 unmapped —
-- neither the old checkpoint (0 ↦ page 0), nor the new one, nor none.
-- P's parse finds no checkpoint there (`P-no-checkpoint`): page 0 fails.
--
-- What it shows: the page checks are what make the erase phase safe.
-- (In the whole system this outcome alone is harmless — the live slot
-- has the higher generation and `pick` ignores the shadow — but the
-- slot no longer refines P's cell.)  With the record in the same batch
-- as the pages (`refines-one-sync`'s protocol, which P's parse makes
-- safe) the same parse takes a torn new checkpoint (`torn-new`): from a
-- formatted shadow, the checkpoint of generation 2 (0 ↦ page 7) lands
-- its record and L2P page 1 but not page 0, and the mutant reads
-- generation 2 with address 0 unmapped — the newest checkpoint, which
-- recovery would pick, losing address 0.
------------------------------------------------------------------------
module SCFTL.Mutants.CheckpointPagesUnverified where

open import Data.Nat.Base using (ℕ; zero; suc; _≤_; z≤n)
open import Data.Fin.Base using (Fin) renaming (zero to fz; suc to fs)
open import Data.Maybe.Base using (Maybe; just; nothing)
open import Data.Bool.Base using (Bool; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.Product using (Σ; _×_; _,_)
open import Data.Sum.Base using (inj₁; inj₂)
open import Data.Empty using (⊥)
open import Relation.Nullary using (¬_)
open import Relation.Binary.PropositionalEquality using (_≡_; refl)

open import SCFTL.Impl.CheckpointSlotExample
import SCFTL.Impl.Model Bool false 1 2 0 _≟B_ as P

-- MUTATED: a page read without its checks (kind, generation, index,
-- CRC, the record's CRC over the pages); anything else reads unmapped.
rdCh : MCell → Maybe ℕ
rdCh (l2pP _ _ c) = c
rdCh _            = nothing

Valid′ : Img → ℕ → (ℕ → Maybe ℕ) → Set
Valid′ o g C = Σ (Fin 2 → Maybe ℕ) λ ch → Img.ir o ≡ recP g ch
             × (∀ a → a ≤ 1 → join2 (λ i → rdCh (Img.ip o i)) a ≡ C a)

Pmut : SlotModel
Pmut = record { Parse = Valid′ ; Find = Newest }

-- The shadow slot before: the checkpoint of generation 0, 0 ↦ 0, 1 ↦ 0.
Cold : ℕ → Maybe ℕ
Cold _ = just 0

o-old : Img
o-old = img (λ i → newPg 0 Cold i) (newRc 0 Cold)

abs-old : Statement.Abs Valid′ o-old (P.cpt 0 Cold)
abs-old = inj₁ (0 , Cold , refl , split2 Cold , refl , λ { zero _ → refl ; (suc a) _ → refl })

-- The checkpoint of generation 2 (C1: 0 ↦ 7) has issued the erase of
-- L2P page 0.
r1 : Reach 2 C1 (durS o-old) erasing _
r1 = e-pg fz start

-- The crash outcome: that erase landed.
pg1 : Fin 2 → MCell
pg1 fz     = erased
pg1 (fs _) = l2pP 0 (fs fz) (just 0)

o1 : Img
o1 = img pg1 (newRc 0 Cold)

cs1 : CrashS (exec 2 C1 (erP fz) (durS o-old)) o1
cs1 = (λ { fz → inj₂ (inj₁ refl) ; (fs fz) → refl }) , refl

-- P's parse: no checkpoint in the slot (the junk outcome of P's cell).
P-no-checkpoint : Statement.NoParse Valid o1
P-no-checkpoint g C v = bad-page fz (inj₁ refl) v

-- The mutant's parse: generation 0 with address 0 unmapped.
mixed : ℕ → Maybe ℕ
mixed = join2 (λ i → rdCh (pg1 i))

mutant-reads-mixed : Valid′ o1 0 mixed
mutant-reads-mixed = split2 Cold , refl , λ a _ → refl

private
  nothing≢just : ∀ {x : ℕ} → nothing ≡ just x → ⊥
  nothing≢just ()

-- No crash outcome of P's cell `uns (cpt 0 Cold) (cpt 2 C1)` is what
-- the mutant reads.
violation : ¬ (Σ P.Cell λ c → P.CrashC (P.uns (P.cpt 0 Cold) (P.cpt 2 C1)) (P.syn c)
                            × Statement.Abs Valid′ o1 c)
violation (c , inj₁ refl , inj₁ (g , C , refl , ch , er , f)) = nothing≢just (f 0 z≤n)
violation (c , inj₁ refl , inj₂ (nc , _))                     = nc 0 Cold refl
violation (c , inj₂ (inj₁ refl) , inj₁ (g , C , refl , ch , () , f))
violation (c , inj₂ (inj₁ refl) , inj₂ (nc , _))              = nc 2 C1 refl
violation (c , inj₂ (inj₂ refl) , inj₁ (g , C , () , _))
violation (c , inj₂ (inj₂ refl) , inj₂ (_ , np))              = np 0 mixed mutant-reads-mixed

not-slot-abstraction : ¬ SlotAbstraction Pmut
not-slot-abstraction (ref , _) = violation (ref abs-old r1 cs1)

-- The one-SYNC protocol: a torn new checkpoint.
private
  abs-fmt : Statement.Abs Valid′ o-fmt P.erased
  abs-fmt = inj₂ ((λ g C ()) , λ { g C (ch , () , _) })

s2 : Slot
s2 = exec 2 C1 prR (exec 2 C1 (prP (fs fz)) (exec 2 C1 SYNC
       (exec 2 C1 (erP (fs fz)) (exec 2 C1 (erP fz) (exec 2 C1 erR (durS o-fmt))))))

r2 : Reach1 2 C1 (durS o-fmt) programming s2
r2 = p-rc (p-pg (fs fz) (e-sync (e-pg (fs fz) (e-pg fz (e-rc start)))
                                (λ { fz → refl ; (fs fz) → refl }) refl))

pg2 : Fin 2 → MCell
pg2 fz     = erased
pg2 (fs _) = newPg 2 C1 (fs fz)

o2 : Img
o2 = img pg2 (newRc 2 C1)

cs2 : CrashS s2 o2
cs2 = (λ { fz → refl ; (fs fz) → inj₂ (inj₁ refl) }) , inj₂ (inj₁ refl)

-- P's parse: no checkpoint (page 0 fails).
P-rejects-torn : Statement.NoParse Valid o2
P-rejects-torn g C v = bad-page fz (inj₁ refl) v

torn : ℕ → Maybe ℕ
torn = join2 (λ i → rdCh (pg2 i))

mutant-reads-torn : Valid′ o2 2 torn
mutant-reads-torn = split2 C1 , refl , λ a _ → refl

torn-new : ¬ (Σ P.Cell λ c → P.CrashC (P.uns P.erased (P.cpt 2 C1)) (P.syn c)
                         × Statement.Abs Valid′ o2 c)
torn-new (c , inj₁ refl , inj₁ (g , C , () , _))
torn-new (c , inj₁ refl , inj₂ (_ , np))                     = np 2 torn mutant-reads-torn
torn-new (c , inj₂ (inj₁ refl) , inj₁ (g , C , refl , ch , er , f)) = nothing≢just (f 0 z≤n)
torn-new (c , inj₂ (inj₁ refl) , inj₂ (nc , _))              = nc 2 C1 refl
torn-new (c , inj₂ (inj₂ refl) , inj₁ (g , C , () , _))
torn-new (c , inj₂ (inj₂ refl) , inj₂ (_ , np))              = np 2 torn mutant-reads-torn

-- With the mutant's parse the one-SYNC protocol does not refine P's cell.
one-sync-torn : ¬ (∀ {o0 c0 g C ph s o} → Statement.Abs Valid′ o0 c0 → Reach1 g C (durS o0) ph s → CrashS s o
                   → Σ P.Cell λ c → P.CrashC (P.uns c0 (P.cpt g C)) (P.syn c) × Statement.Abs Valid′ o c)
one-sync-torn h = torn-new (h abs-fmt r2 cs2)
