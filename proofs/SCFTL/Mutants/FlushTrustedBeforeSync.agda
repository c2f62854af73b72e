{-# OPTIONS --safe --without-K #-}
------------------------------------------------------------------------
-- Mutant 36 (issue 39), of PU as a `Model` (SCFTL.Impl.UnsyncedModel,
-- `PUM`; the ghost at a flush's crash points, SCFTL.Impl.UnsyncedCommands):
-- a crash of a flush BEFORE its SYNC leaves the ghost of the FLUSHED
-- state — the whole region, the flush's committed page included, as the
-- durable part — as if recovery trusted an after-sync flag (a proof of
-- durability) on a page programmed before the SYNC returned.  (PUM, and
-- PUMc at every command of the flush's first batch, leave the ghost of
-- the barrier the flush is before its SYNC, `ghC`: the flush's epoch is
-- an unsynced epoch whose digest recovery checks.)
--
-- The model: `PUM` with its crash relation MUTATED at that one crash
-- point of the flush (`CrFM`: before the SYNC, the ghost
-- `ghostN ⟪ fl3 _ , [] ⟫` in place of the barrier's); its steps,
-- recovery, other crash points and crashed recoveries are PUM's.
--
-- Counterexample (one-recovery fragment after format + recovery):
--   w(0,true) to page 0; w(1,true) to page 1; flush, crashing right
--   before its SYNC with data page 1 lost (junk) and everything else
--   landed (its committed page included); recover.
-- SC1B (a crashed flush, no barrier before it) allows t2 =
-- (false,false) and the flush's own image (true,true).  With the
-- mutated ghost the committed page is in the durable part and replayed
-- unchecked: sector 0 on page 0 (true), sector 1 on the lost page 1
-- (false): (true,false), a mix.  With PUM's ghost the epoch is checked,
-- page 1 fails its digest, and recovery returns (false,false)
-- (`pum-stops`).
--
-- "SnapshotConsistent" in this module is the barrier version
-- `SnapshotConsistentB` (SC1B), renamed so that check.sh's mutant rule
-- applies unchanged.
------------------------------------------------------------------------
module SCFTL.Mutants.FlushTrustedBeforeSync where

open import Data.Nat.Base using (ℕ; zero; suc; z≤n; s≤s)
open import Data.Bool.Base using (Bool; true; false)
open import Data.Bool.Properties using () renaming (_≟_ to _≟B_)
open import Data.List.Base using (List; []; _∷_; map)
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
open import SCFTL.Impl.UnsyncedBarrier Bool false A W K 3 _≟B_ using (StU; ⟪_,_⟫; st; ues)
open import SCFTL.Impl.UnsyncedRecStep Bool false A W K 3 _≟B_ using (recU)
open import SCFTL.Impl.UnsyncedModel Bool false A W K 3 _≟B_
  using (Gh; SU; ⟦_,_⟧; su; gh; ghostN; okPU; crashPU; NewPU)
import SCFTL.SpecBarrier Bool false A W 3 as SB
open SB using (Model; module FragmentsB; Shape1; shape1; ShapeM; shapeM;
               Op; use; reg; op; w)
open SB public using () renaming (SnapshotConsistentB to SnapshotConsistent)

------------------------------------------------------------------------
-- The mutant

-- the flush's crash points; MUTATED: before its SYNC, the flushed
-- state's ghost (PUM: `ghostN ⟪ flB (st s) , ues s ++ epE (st s) ∷ [] ⟫`)
CrFM : StU → St → Gh → Set
CrFM s s'' g = (Img (fl2 (st s)) s'' × g ≡ ghostN ⟪ fl3 (st s) , [] ⟫)
             ⊎ (Img (fl3 (st s)) s'' × g ≡ ghostN ⟪ fl3 (st s) , [] ⟫)
             ⊎ ((Img (ck1 (fl3 (st s))) s'' ⊎ Img (ck2 (fl3 (st s))) s'') × g ≡ ([] , map cur (dr s'')))
             ⊎ (Img (ck3 (fl3 (st s))) s'' × g ≡ ghostN ⟪ ck3 (fl3 (st s)) , [] ⟫)

crashMut : Op → SU → SU → Set
crashMut (use SB.flush)  S S' = CrFM (su S) (st (su S')) (gh S') × ues (su S') ≡ []
crashMut (use (reg x))   S S' = crashPU (use (reg x)) S S'
crashMut SB.recover      S S' = crashPU SB.recover S S'

Pmut : Model
Pmut = record { State = SU ; New = NewPU ; read = λ S → rd (st (su S)) ; ok = okPU ; crash = crashMut }

------------------------------------------------------------------------
-- The run

s1 s2 s3 s4 : St
s1 = recU true 0 unmapped [] [] s0   -- recovery from the new disk (generation 1)
s2 = wr0 0 true s1                   -- w(0,true) to page 0
s3 = wr0 1 true s2                   -- w(1,true) to page 1
s4 = fl2 s3                          -- flush: its programs, crash before its SYNC

-- the crash: data page 1 lost (junk), everything else landed
lose1 : (ℕ → MC) → ℕ → MC
lose1 D (suc zero) = syn junk
lose1 D p          = sync (D p)

s5 s6 : St
s5 = record (syncAll s4) { dat = lose1 (dat s4) }

-- the flush's committed page
c₁ : Cell
c₁ = dlt (gen s3) (ep s3) (dbuf s3) true (dgOf s3)

-- the mutant's recovery: the durable part the mutated ghost names (the
-- committed page), no unsynced epoch
s6 = recU true 1 unmapped (proj₂ (ghostN ⟪ fl3 s3 , [] ⟫)) [] s5

durable-is-committed : proj₂ (ghostN ⟪ fl3 s3 , [] ⟫) ≡ c₁ ∷ []
durable-is-committed = refl

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
S5 = ⟦ ⟪ s5 , [] ⟫ , ghostN ⟪ fl3 s3 , [] ⟫ ⟧
S6 = ⟦ ⟪ s6 , [] ⟫ , ghostN ⟪ s6 , [] ⟫ ⟧

open FragmentsB Pmut

r1 : okPU SB.recover S0 S1
r1 = (true , 0 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl

w1 : okPU (use (reg (op (w 0 true)))) S1 S2
w1 = (inj₁ ((z≤n , z≤n) , false , false , refl) , refl) , refl

w2 : okPU (use (reg (op (w 1 true)))) S2 S3
w2 = (inj₁ ((s≤s z≤n , s≤s z≤n) , false , false , refl) , refl) , refl

c1 : crashMut (use SB.flush) S3 S5
c1 = inj₁ (img5 , refl) , refl

r2 : okPU SB.recover S5 S6
r2 = (true , 1 , unmapped , refl , [] , [] , (refl , []) , refl , refl) , refl , refl

shape : ShapeM
shape = shapeM 0 (shape1 nothing (op (w 0 true) ∷ op (w 1 true) ∷ []) SB.flush 0 ∷ []) []

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
-- PUM on the same crash: its ghost names the flush's epoch as an
-- unsynced epoch, which is checked; page 1 fails its digest, recovery
-- stops at the durable part (nothing accepted)

pum-stops : accU 1 (λ p → cur (dat s5 p)) [] ((c₁ , []) ∷ []) ≡ []
pum-stops = refl
